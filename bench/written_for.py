"""Benchmark: specialise.written_for (the step program written for one player count) against the
specialise.py of another git revision, over every preset at 2 to 6 players.

Loads reference_impl/specialise.py as it is at --against (default main) beside the working one,
runs both over the generic program and seating of each preset and count (what a cold code cache
makes `Ruleset.step_source_for` run), checks their outputs are identical and prints the CPU
milliseconds per call of each (median of --repeats rounds, alternating) and their ratio.

    python bench/written_for.py [--against main] [--repeats 1]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from durak_spec.reference_impl import ruleset, specialise
from durak_spec.reference_impl.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent


def peer(rev: str):
    """reference_impl/specialise.py as it is at `rev`, loaded as a module of its own."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:reference_impl/specialise.py"],
                          capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "specialise_peer.py"
    path.write_text(text)
    found = importlib.util.spec_from_file_location("specialise_peer", path)
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def inputs() -> list[tuple]:
    spec = load_spec()
    out = []
    for preset in sorted(spec.presets):
        rs = spec.ruleset(preset)
        for n in range(2, 7):
            team, team_play = rs.seating(n)
            out.append((rs.step_source, n, team, team_play, ruleset.STATE_QUERIES,
                        ruleset.PROGRAM_QUERIES, ruleset.INT_VALUES))
    return out


def timed(module, calls) -> tuple[float, list[str]]:
    """(CPU ms per call, outputs)."""
    start = time.process_time()
    outs = [module.written_for(*call) for call in calls]
    return 1000 * (time.process_time() - start) / len(calls), outs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="main", help="git revision of the peer (default main)")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    try:
        other = peer(args.against)
    except subprocess.CalledProcessError:
        print(f"no reference_impl/specialise.py at {args.against!r}", file=sys.stderr)
        return 2
    calls = inputs()
    mine, theirs = [], []
    for _ in range(args.repeats):
        ms_theirs, expected = timed(other, calls)
        ms_mine, got = timed(specialise, calls)
        theirs.append(ms_theirs)
        mine.append(ms_mine)
    same = sum(a == b for a, b in zip(got, expected))
    print(f"{len(calls)} calls (every preset at 2-6 players): {same} identical")
    a, b = statistics.median(theirs), statistics.median(mine)
    print(f"{args.against}: {a:.1f} ms CPU per call; working tree: {b:.1f} ms ({a / b:.2f}x)")
    return 0 if same == len(calls) else 1


if __name__ == "__main__":
    sys.exit(main())
