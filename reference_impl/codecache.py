"""The compiled generated programs, and what inlining reads from primitives.py, kept between runs
as Python keeps its bytecode.

Each ruleset generates a program of some 30,000 characters (ruleset.py `_fuse`), and compiling it
costs 15-25 ms, more than everything else a one-case `durak check` does for each preset it runs.
The code object of a program is kept in the user's cache directory, named by a hash of the
program's source, its file name and the Python that compiled it: a changed spec, option or
generator writes another source and so another entry, and an entry can only ever hold the code of
the source that names it.

Where it lives: `$DURAK_CACHE_DIR` if set (an empty value or `off` turns the cache off), else
`$XDG_CACHE_HOME/durak-spec/code`, else `~/.cache/durak-spec/code`. Nothing is ever written inside
the installed package. The same folder keeps what inline.py derives from a primitive's source
(the lines of its body written out, the decisions it asks for: `cached`), named by a hash of the
sources it was derived from. A directory that cannot be written, an entry that cannot be read, a full
disk: the program is compiled as if there were no cache, and nothing is said (a cache is never
worth a failed run). The directory holds at most MAX_ENTRIES programs; past that, the oldest
half is removed when the next one is written.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import sys
import tempfile
from pathlib import Path

MAX_ENTRIES = 2000  # about 45 KB each: at most about 90 MB
# what the code objects depend on besides the source: the interpreter's bytecode format
_TAG = f"{sys.implementation.cache_tag}-{importlib.util.MAGIC_NUMBER.hex()}"


def cache_dir() -> Path | None:
    """Where compiled programs are kept, or None when the cache is turned off."""
    chosen = os.environ.get("DURAK_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip() in ("", "off") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "durak-spec" / "code"


def compile_program(source: str, filename: str):
    """compile(source, filename, "exec"), taken from the cache when an earlier run compiled it."""
    return cached(f"{filename}\0{source}", lambda: compile(source, filename, "exec"))


def cached(key: str, make):
    """What `make()` returns (a value marshal can write: code, str, tuples, sets, dicts of those),
    kept under `key`, which must name everything the value depends on."""
    folder = cache_dir()
    if folder is None:
        return make()
    entry = folder / (hashlib.sha256(f"{_TAG}\0{key}".encode()).hexdigest() + ".bin")
    try:
        return marshal.loads(entry.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):  # absent, unreadable or damaged
        pass
    value = make()
    _write(folder, entry, marshal.dumps(value))
    return value


def _write(folder: Path, entry: Path, data: bytes) -> None:
    """Write an entry whole or not at all (a concurrent reader never sees half of one)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, entry)
        except BaseException:
            os.unlink(tmp)
            raise
        _prune(folder)
    except OSError:
        pass


# folder -> how many entries it held when this process last listed it, plus those written since:
# the folder is listed again only when that count passes MAX_ENTRIES (a first run writes a dozen
# entries, and listing a full folder after each costs more than the writes).
_COUNTED: dict[str, int] = {}


def _prune(folder: Path) -> None:
    """Past MAX_ENTRIES entries, remove the oldest half."""
    counted = _COUNTED.get(str(folder))
    if counted is not None and counted < MAX_ENTRIES:
        _COUNTED[str(folder)] = counted + 1
        return
    entries = [e for e in os.scandir(folder) if e.name.endswith(".bin")]
    _COUNTED[str(folder)] = len(entries)
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda e: e.stat().st_mtime)
    _COUNTED[str(folder)] = len(entries) - len(entries) // 2
    for old in entries[:len(entries) // 2]:
        try:
            os.unlink(old.path)
        except OSError:
            pass
