"""Benchmark: building the rulesets of the option variants a diagnosis searches.

Builds --variants distinct variants of each --preset (one option value changed, then two), as
reference_impl/diagnose.py's search builds them (a new Ruleset each), twice in alternating rounds:
with lift.py's memos (each function's findings and each program lifted, kept in the process), and
with them emptied before each ruleset (every program walked whole, as before the memos). Prints the
milliseconds per ruleset of each (median of --repeats rounds, wall and CPU) and their ratio. Both
build in one spec, so the compiled clauses and blocks it shares are shared alike.

    python bench/ruleset_build.py [--variants 200] [--preset podkidnoy --preset perevodnoy] [--repeats 3]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

from durak_spec.reference_impl import lift
from durak_spec.reference_impl.errors import SpecError
from durak_spec.reference_impl.ruleset import Ruleset
from durak_spec.reference_impl.spec import load_spec


def variants(spec, presets, n: int) -> list[tuple[str, dict]]:
    """`n` variants spread over every one- and two-option change of each preset."""
    out = []
    for preset in presets:
        base = spec.ruleset(preset).options
        singles = [(k, v) for k, o in spec.options.items() for v in o.values if v != base.get(k)]
        out += [(preset, {k: v}) for k, v in singles]
        out += [(preset, {k1: v1, k2: v2})
                for (k1, v1), (k2, v2) in itertools.combinations(singles, 2) if k1 != k2]
    return out[::max(1, len(out) // n)][:n]


def build(spec, chosen, memo: bool) -> tuple[float, float]:
    """(wall ms, CPU ms) per ruleset built."""
    wall = cpu = 0.0
    for preset, options in chosen:
        if not memo:
            lift._MEMO.clear()
            lift._PROGRAMS.clear()
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            Ruleset(spec, preset, options)
        except SpecError:  # a combination the spec forbids: as a diagnosis meets it
            pass
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
    return 1000 * wall / len(chosen), 1000 * cpu / len(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", type=int, default=200)
    parser.add_argument("--preset", action="append")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    spec = load_spec()
    chosen = variants(spec, args.preset or ["podkidnoy", "perevodnoy"], args.variants)
    build(spec, chosen, True)  # the spec's shared clauses and blocks compiled once, for both
    rounds: dict[bool, list] = {True: [], False: []}
    for _ in range(args.repeats):
        for memo in (False, True):
            lift._MEMO.clear()
            lift._PROGRAMS.clear()
            rounds[memo].append(build(spec, chosen, memo))
    figures = {memo: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
               for memo, r in rounds.items()}
    for memo, name in ((False, "each program walked whole"), (True, "lift.py's memos")):
        wall, cpu = figures[memo]
        print(f"{name:26} {wall:6.2f} ms wall {cpu:6.2f} ms CPU per ruleset ({len(chosen)} variants)")
    print(f"ratio (whole / memos): {figures[False][1] / figures[True][1]:.2f} (CPU)")


if __name__ == "__main__":
    main()
