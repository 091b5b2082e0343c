"""Machine instructions of windows of a process, counted by valgrind (callgrind).

A process counted whole (valgrind's "Collected" line) and less a process that does the same but
plays no games is not a measure of the games: everything the two do besides (importing, loading
the spec, warming up, the collections and deallocations at exit) must cost the same in both to
the instruction, and it does not: the two are separate processes of some 4,000 million
instructions each, and a difference of one in ten thousand between them is 0.4 million, tens of
thousands per game once divided. Here the process marks its windows itself: `start()` (a call of
os.getpgrp) zeroes the counts, `stop()` (a call of os.getsid) writes out what was counted since;
nothing else in the bench's workers calls either, and `windows` refuses a run whose windows are
not the ones it asked for.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

OPTIONS = ["--zero-before=os_getpgrp*", "--dump-before=os_getsid*"]


def start() -> None:
    """Zero the counts: what follows, until stop(), is one window."""
    os.getpgrp()


def stop() -> None:
    """Write out the instructions counted since start()."""
    os.getsid(0)


def windows(argv: list[str], env: dict, cwd: Path, count: int) -> tuple[list[int], str]:
    """The machine instructions of each of the `count` windows (start() ... stop()) that the
    process `argv` runs under callgrind, and its output."""
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg",
                              "--dump-line=no", *OPTIONS, *argv], capture_output=True, text=True,
                             env=env, cwd=cwd)
        if run.returncode:
            raise SystemExit(f"valgrind failed:\n{run.stderr[-2000:]}")
        # cg.1, cg.2, ...: a part written at each stop(); cg: the rest, at exit
        parts = sorted(Path(out).glob("cg.*"), key=lambda p: int(p.suffix[1:]))
        found = []
        for part in parts:
            with part.open() as f:
                summary = next((m for m in map(re.compile(r"summary:\s*(\d+)").match, f) if m),
                               None)
            if summary is None:
                raise SystemExit(f"valgrind wrote no summary in {part.name}")
            found.append(int(summary.group(1)))
    if len(found) != count:
        raise SystemExit(f"valgrind counted {len(found)} windows, not {count}: something else "
                         "called os.getsid")
    return found, run.stdout
