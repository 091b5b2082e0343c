"""Benchmark: lockstep differential fuzzing throughput, in process and through a subprocess.

Runs `durak fuzz`'s campaign (conformance/fuzz.py) with the reference engine as the engine under
test, two-player podkidnoy: once in process (the `reference` adapter) and once through `cmd:` with
the shipped template, conformance/examples/reference_engine.py (which answers the protocol 1.1
`step` request with "delta" states), comparing every step: verdicts, the legal set and the state.
As a peer in the same run it times the reference alone playing random games (no engine, no
comparison), the subprocess with whole states in its step answers (no "delta") and without the
combined request (apply, state and legal per action, protocol 1). It says whether the protocol's
lines are written by orjson (extra "fast") or json. Each figure is the best of --repeats rounds;
loading the spec and starting the engine are not counted.
Targets: at least 500 two-player games/s in process and 250 through the subprocess.
Run: python bench/fuzz_speed.py [--games 400] [--repeats 3]

With --baseline REV (a git revision of this repository) it instead times the in-process campaign
on this checkout and on REV, each in a process of its own (the trees as bench/playouts.py
--baseline builds them), alternating round by round, and prints the ratio of their CPU games/s
(issue 26's target: at least 2x, against 3ca4f9e). Run: python bench/fuzz_speed.py --baseline
3ca4f9e
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.protocol import orjson
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.spec import load_spec

TEMPLATE = f"cmd:{sys.executable} -m durak_spec.conformance.examples.reference_engine"
ADAPTERS = {"in process": ("reference", None), "subprocess": (TEMPLATE, None),
            "subprocess, no delta": (TEMPLATE, {"delta": False}),
            "subprocess, protocol 1": (TEMPLATE, {"step": False, "delta": False})}
TARGETS = {"in process": 500, "subprocess": 250}


def one_round(spec, name: str, change, games: int, seed_value: int) -> tuple[int, int, float]:
    adapter = make_adapter(name, spec=spec)
    hello = adapter.open()
    if change:
        hello = {**hello, **change}
        adapter.combined = hello.get("step") is True
        adapter.delta = hello.get("delta") is True
    try:
        with tempfile.TemporaryDirectory() as tmp:
            res = fuzz(spec, adapter, hello, preset="podkidnoy", players=2, games=games,
                       seed_value=seed_value, out_dir=Path(tmp), adapter_name=name)
    finally:
        adapter.close()
    if res.entries:
        raise SystemExit(f"the reference diverged from itself: {res.entries[0].signature}")
    return res.games, res.steps, res.seconds


def reference_alone(spec, games: int, seed_value: int) -> tuple[int, int, float]:
    rs = spec.ruleset("podkidnoy")
    rng = random.Random(seed_value)
    steps, t0 = 0, time.perf_counter()
    for _ in range(games):
        game = Game(rs, Setup.deal(rs, 2, rng.randrange(2**31)))
        while not game.is_terminal():
            game.apply_action(rng.choice(game.legal_actions()))
            steps += 1
    return games, steps, time.perf_counter() - t0


def worker(games: int, seed_value: int) -> None:
    """One in-process campaign on the durak_spec this process imports: a JSON line [games, steps,
    CPU seconds]."""
    spec = load_spec()
    one_round(spec, "reference", None, 10, seed_value + 1000)  # compiled, warm
    cpu = time.process_time()
    games, steps, _ = one_round(spec, "reference", None, games, seed_value)
    print(json.dumps([games, steps, time.process_time() - cpu]))


def against_baseline(rev: str, games: int, repeats: int) -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    from playouts import PACKAGE_FOLDERS, ROOT, _tree

    with tempfile.TemporaryDirectory() as tmp:
        here = Path(tmp) / "here" / "durak_spec"
        here.mkdir(parents=True)
        for folder in PACKAGE_FOLDERS:
            (here / folder).symlink_to(ROOT / folder)
        paths = {"baseline": _tree(rev, Path(tmp) / "baseline"), "this checkout": here.parent}
        best: dict = {}
        for r in range(repeats):
            for name, path in paths.items():
                run = subprocess.run([sys.executable, __file__, "--worker", "--games", str(games),
                                      "--seed", str(r)], capture_output=True, text=True, cwd=tmp,
                                     env={**os.environ, "PYTHONPATH": str(path)})
                if run.returncode:
                    raise SystemExit(f"{name} failed:\n{run.stderr[-2000:]}")
                played, steps, cpu = json.loads(run.stdout.splitlines()[-1])
                print(f"round {r + 1} {name:14s}: {played} games, {steps} steps in {cpu:.2f} s CPU",
                      flush=True)
                best[name] = max(best.get(name, 0), played / cpu)
    ratio = best["this checkout"] / best["baseline"]
    print(f"in process, two-player podkidnoy, CPU games/s: {rev} {best['baseline']:.0f}, this "
          f"checkout {best['this checkout']:.0f}: {ratio:.2f}x (target, issue 26: >= 2x)")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", metavar="REV",
                        help="time the in-process campaign against git revision REV")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.games, args.seed)
    if args.baseline:
        raise SystemExit(against_baseline(args.baseline, args.games, args.repeats))
    spec = load_spec()
    best: dict[str, tuple[float, float]] = {}
    for r in range(args.repeats):
        rounds = {"reference alone": reference_alone(spec, args.games, r)}
        for label, (name, change) in ADAPTERS.items():
            rounds[label] = one_round(spec, name, change, args.games, r)
        for label, (games, steps, seconds) in rounds.items():
            best[label] = max(best.get(label, (0, 0)), (games / seconds, steps / seconds))
            print(f"round {r + 1} {label:24s}: {games} games, {steps} steps in {seconds:.2f} s")
    print()
    print(f"lines written by {'orjson' if orjson is not None else 'json (orjson is not installed)'}")
    print(f"{'two-player podkidnoy':24s} {'games/s':>9s} {'steps/s':>9s} {'of reference alone':>19s}")
    peer = best["reference alone"][0]
    for label, (gps, sps) in best.items():
        print(f"{label:24s} {gps:9.0f} {sps:9.0f} {gps / peer:18.0%}")
    for label, target in TARGETS.items():
        got = best[label][0]
        print(f"target >= {target} games/s {label}: {'met' if got >= target else 'NOT met'} "
              f"({got:.0f})")


if __name__ == "__main__":
    main()
