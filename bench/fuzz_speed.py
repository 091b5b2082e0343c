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

CPU time on the shared machine differs by 10 % and more from one run to the next; with --machine
(and --baseline) it counts machine instructions instead, with valgrind (callgrind) as
bench/opcount.py --machine does: per game of a campaign of --games games, in one worker process
after 10 warm-up games, the window of that campaign less the window of one that plays none
(bench/callgrind.py), with PYTHONHASHSEED 0 and the code cache filled first: the import, the
spec's load, the warm-up and the exit (some 4,000 M instructions, which differ by millions from
one path of the tree to another) are not counted. It repeats whatever the load
(valgrind runs Python about 50 times slower: --games 20 takes a few minutes per tree).
Run: python bench/fuzz_speed.py --baseline 3ca4f9e --machine --games 20
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import callgrind  # noqa: E402

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


def worker(games: int, seed_value: int, windows: bool = False) -> None:
    """One in-process campaign on the durak_spec this process imports: a JSON line [games, steps,
    CPU seconds]. With `windows` (under valgrind, for --machine), a campaign of no games and then
    the campaign, each in a window of its own (callgrind.py)."""
    spec = load_spec()
    one_round(spec, "reference", None, 10, seed_value + 1000)  # compiled, warm
    if windows:
        callgrind.start()
        one_round(spec, "reference", None, 0, seed_value)
        callgrind.stop()
        callgrind.start()
    cpu = time.process_time()
    games, steps, _ = one_round(spec, "reference", None, games, seed_value)
    cpu = time.process_time() - cpu
    if windows:
        callgrind.stop()
    print(json.dumps([games, steps, cpu]))


def machine(path: Path, games: int) -> tuple[float, int]:
    """Machine instructions per game of the in-process campaign (games from seed 0), and its
    steps: in one worker importing durak_spec from `path`, the window of a campaign of `games`
    games less the window of one of none (the same setup and end), after a first worker has
    filled the code cache and with PYTHONHASHSEED 0."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPATH": str(path), "PYTHONHASHSEED": "0",
               "DURAK_CACHE_DIR": cache}
        argv = [sys.executable, __file__, "--worker", "--seed", "0", "--games"]
        subprocess.run(argv + ["0"], capture_output=True, env=env, cwd=cache, check=True)
        (none, total), out = callgrind.windows(argv + [str(games), "--machine"], env,
                                               Path(cache), 2)
    return (total - none) / games, json.loads(out.splitlines()[-1])[1]


def against_baseline(rev: str, games: int, repeats: int, count: bool = False) -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    from playouts import _checkout, _tree

    with tempfile.TemporaryDirectory() as tmp:  # two names of one length: see _checkout
        paths = {"baseline": _tree(rev, Path(tmp) / "baseline"),
                 "this checkout": _checkout(Path(tmp) / "checkout")}
        if count:
            if shutil.which("valgrind") is None:
                raise SystemExit("--machine needs valgrind (apt-get install valgrind)")
            per, step = {}, {}
            for name, path in paths.items():
                per[name], steps = machine(path, games)
                step[name] = per[name] * games / steps
                print(f"{name:14s}: {per[name]:14,.0f} machine instructions per game "
                      f"({games} games, {steps} steps, {step[name]:,.0f} per step)", flush=True)
            print(f"in process, two-player podkidnoy, machine instructions per game, {rev} / "
                  f"this checkout: {per['baseline'] / per['this checkout']:.2f}x "
                  "(target, issue 26: >= 2x in games/s)")
            # the fuzzer's choices may differ between the two (the same seed, other games)
            print(f"... per step judged: {step['baseline'] / step['this checkout']:.2f}x")
            return 0
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
    parser.add_argument("--machine", action="store_true",
                        help="with --baseline: count machine instructions with valgrind instead")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.games, args.seed, args.machine)
    if args.baseline:
        raise SystemExit(against_baseline(args.baseline, args.games, args.repeats, args.machine))
    if args.machine:
        raise SystemExit("--machine goes with --baseline REV")
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
