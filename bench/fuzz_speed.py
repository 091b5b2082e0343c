"""Benchmark: lockstep differential fuzzing throughput, in process and through the subprocess.

Runs `durak fuzz`'s engine (conformance/fuzz.py) against the reference engine as the engine under
test, once through the `reference` adapter (in process) and once through `cmd:` with
conformance/examples/reference_engine.py, two-player podkidnoy, and prints games/s and steps/s
for each and the ratio. Both compare every step: verdicts, the legal set and the state. Each
figure is the best of --repeats rounds; spec loading and the engine's start are not counted.
Target (issue: differential fuzzing): at least 100 two-player games/s in process.
Run: python bench/fuzz_speed.py [--games 300] [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.spec import load_spec

ADAPTERS = {
    "in process": "reference",
    "subprocess": f"cmd:{sys.executable} -m durak_spec.conformance.examples.reference_engine",
}


def one_round(spec, name: str, games: int, seed_value: int) -> tuple[int, int, float]:
    adapter = make_adapter(name, spec=spec)
    hello = adapter.open()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            res = fuzz(spec, adapter, hello, preset="podkidnoy", players=2, games=games,
                       seed_value=seed_value, out_dir=Path(tmp), adapter_name=name)
    finally:
        adapter.close()
    if res.found is not None:
        raise SystemExit(f"the reference diverged from itself: {res.found.divergence}")
    return res.games, res.steps, res.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    spec = load_spec()
    best: dict[str, tuple[float, float]] = {}
    for r in range(args.repeats):
        for label, name in ADAPTERS.items():
            games, steps, seconds = one_round(spec, name, args.games, seed_value=r)
            rate = (games / seconds, steps / seconds)
            best[label] = max(best.get(label, (0, 0)), rate)
            print(f"round {r + 1} {label:10s}: {games} games, {steps} steps in {seconds:.2f} s")
    print()
    print(f"{'':12s} {'games/s':>9s} {'steps/s':>9s}")
    for label, (gps, sps) in best.items():
        print(f"{label:12s} {gps:9.0f} {sps:9.0f}")
    ratio = best["in process"][0] / best["subprocess"][0]
    print(f"in process / subprocess: {ratio:.2f}x; target >= 100 two-player games/s in process: "
          f"{'met' if best['in process'][0] >= 100 else 'NOT met'}")


if __name__ == "__main__":
    main()
