"""Safe reading of YAML and JSON input: size limit, alias limit, duplicate keys, clear errors.

Everything user-supplied (spec files, setups, positions, cases) is read through `load_file`, so a
huge file, an alias bomb or a duplicate key is a one-line error naming the file, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

MAX_BYTES = 2_000_000
MAX_ALIASES = 100


class InputError(Exception):
    """A file that cannot be read as the data it should hold."""

    def __init__(self, file: str, message: str):
        self.file = file
        self.message = message
        super().__init__(f"{file}: {message}")


class _GuardedLoader(yaml.SafeLoader):
    """SafeLoader that refuses too many aliases and duplicate mapping keys."""

    def __init__(self, stream):
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_ALIASES} aliases (a YAML alias bomb?)")
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        _check_duplicates(self, node, deep)
        return super().construct_mapping(node, deep=deep)


def _check_duplicates(loader, node, deep) -> None:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hashable = key in seen
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a plain value", key_node.start_mark) from None
        if hashable:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)


_CBase = getattr(yaml, "CSafeLoader", None)
if _CBase is not None:
    class _FastGuardedLoader(_CBase):
        """The C parser with the duplicate-key guard, for text without anchors (so no aliases)."""

        def construct_mapping(self, node, deep=False):
            _check_duplicates(self, node, deep)
            return _CBase.construct_mapping(self, node, deep=deep)
else:  # pragma: no cover - PyYAML built without libyaml
    _FastGuardedLoader = None


def parse_text(text: str, file: str = "<input>"):
    """Parse YAML (a superset of JSON) with the guards above."""
    if len(text) > MAX_BYTES:
        raise InputError(file, f"is {len(text)} bytes; the limit is {MAX_BYTES}")
    # An alias needs an anchor (&); text without one can't be an alias bomb: parse it in C.
    loader = _FastGuardedLoader if _FastGuardedLoader is not None and "&" not in text else _GuardedLoader
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - SafeLoader subclasses
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise InputError(file, f"{where}{exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise InputError(file, str(exc)) from None
    except RecursionError:
        raise InputError(file, "is nested too deeply") from None


def load_file(path) -> object:
    """Read and parse one YAML or JSON file."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise InputError(str(p), f"is {size} bytes; the limit is {MAX_BYTES}")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(str(p), "no such file") from None
    except IsADirectoryError:
        raise InputError(str(p), "is a directory, not a file") from None
    except UnicodeDecodeError:
        raise InputError(str(p), "is not UTF-8 text") from None
    except OSError as exc:
        raise InputError(str(p), exc.strerror or str(exc)) from None
    if p.suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(str(p), f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    return parse_text(text, str(p))
