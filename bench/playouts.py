"""Benchmark: random legal playouts on the reference interpreter against durakgame 1.0.4.

Both engines play complete 2-player podkidnoy games choosing uniformly among their legal moves
with `random.Random.choice`, in the same process and run. Their 2-player runs alternate, so load
from other processes on a shared machine falls on both alike and the ratio stays meaningful. The
reference is also timed with 4 and 6 players, and on each variant preset of the deck, trump and
deal (VARIANTS) with 2 players. Invariant checks are off here (they are a test, not play). Each
figure is the best of --repeats runs, in wall-clock time and, steadier on a shared machine, in
the process's CPU time (time.process_time), each taken around the whole run of either engine.
Run: pip install '.[bench]' && python bench/playouts.py

With --baseline REV (a git revision of this repository) it instead times every preset at 2, 4 and
6 players on this checkout and on REV (taken out with git archive into a temporary folder), each
in a process of its own, the two alternating round by round, and prints the ratio of their CPU
games/s per preset and player count (issue 26's target: at least 2.5x on every one, against the
interpreter of 3ca4f9e). Run: python bench/playouts.py --baseline 3ca4f9e --games 250
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from durak_spec.reference_impl.simulate import simulate
from durak_spec.reference_impl.spec import load_spec

sys.path.insert(0, str(Path(__file__).parent))


# Presets of other decks, trumps, card strength and deals (and the Weli's named suits, the
# changeable trump's reveal, the redeal), timed beside podkidnoy.
VARIANTS = ("full_deck", "full_deck_jokers", "full_deck_jokers_low", "two_packs", "without_trumps",
            "spades_by_spades", "crazy_durak", "lowest_trump_beats_ace", "summary", "albanian",
            "railway", "weli", "changeable_trump", "podkidnoy_colour_redeal")


def reference(players: int, games: int, seed: int, preset: str = "podkidnoy"):
    rs = load_spec().ruleset(preset)

    def run():
        report = simulate(rs, players, games, seed, check=False)
        return report.seconds, report.steps
    return run


def best_runs(repeats: int, runs: dict) -> dict:
    """Run each of `runs` once per round, `repeats` rounds, and keep each one's fastest
    (seconds, steps, CPU seconds): the run least disturbed by other load, in wall-clock time and
    in CPU time apart."""
    best = {}
    for _ in range(repeats):
        for name, run in runs.items():
            cpu = time.process_time()
            seconds, steps = run()
            cpu = time.process_time() - cpu
            old = best.get(name)
            best[name] = (seconds, steps, cpu) if old is None else \
                (min(seconds, old[0]), steps, min(cpu, old[2]))
    return best


ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FOLDERS = ("spec", "reference_impl", "conformance", "tools")  # durak_spec's (setup.py)
BASELINE_PLAYERS = (2, 4, 6)
WARM_GAMES = 10  # untimed games of each preset and player count first (--baseline)


def worker(games: int) -> int:
    """Time every preset of the durak_spec this process imports, at BASELINE_PLAYERS (those its
    deck seats), `games` games each: one JSON line {preset: {players: [CPU seconds, steps]}}."""
    spec = load_spec()
    out: dict = {}
    for preset in spec.presets:
        rs = spec.ruleset(preset)
        lo, hi = rs.player_limits
        for n in BASELINE_PLAYERS:
            if lo <= n <= hi:
                # compiled and warm: past the actions a ruleset plays before it writes its step
                # (ruleset.WARM_STEPS, 300), which two games of two players did not reach, so
                # that writing it fell in the timed run
                simulate(rs, n, WARM_GAMES, 10**6, check=False)
                cpu = time.process_time()
                report = simulate(rs, n, games, 1, check=False)
                out.setdefault(preset, {})[str(n)] = [time.process_time() - cpu, report.steps]
    print(json.dumps(out))
    return 0


def _tree(rev: str, where: Path) -> Path:
    """A folder to put on PYTHONPATH that imports durak_spec as revision `rev` has it."""
    src, top = where / "src", where / "py" / "durak_spec"
    src.mkdir(parents=True)
    top.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    for folder in PACKAGE_FOLDERS:
        (top / folder).symlink_to(src / folder)
    return where / "py"


def _checkout(where: Path) -> Path:
    """A folder to put on PYTHONPATH that imports durak_spec from this checkout, laid out as
    _tree lays out a revision (where/py/durak_spec/...): given `where` of the same length as
    _tree's, the two import from paths of the same length, and a count of machine instructions
    (which the lengths of the paths a process holds move by a few tenths of a per cent) weighs
    the code alone."""
    top = where / "py" / "durak_spec"
    top.mkdir(parents=True)
    for folder in PACKAGE_FOLDERS:
        (top / folder).symlink_to(ROOT / folder)
    return where / "py"


def against_baseline(rev: str, games: int, repeats: int) -> int:
    """Every preset at 2, 4 and 6 players, this checkout against `rev`, alternating processes."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"baseline": _tree(rev, Path(tmp) / "baseline"), "this checkout": None}
        if not (ROOT / "reference_impl").is_dir():
            raise SystemExit("run --baseline from a checkout of durak-spec")
        (Path(tmp) / "here" / "durak_spec").mkdir(parents=True)
        for folder in PACKAGE_FOLDERS:
            (Path(tmp) / "here" / "durak_spec" / folder).symlink_to(ROOT / folder)
        paths["this checkout"] = Path(tmp) / "here"
        best: dict = {}
        played: dict = {}  # the steps of each run's games
        for r in range(repeats):
            for name, path in paths.items():
                env = {**os.environ, "PYTHONPATH": str(path)}
                run = subprocess.run([sys.executable, __file__, "--worker", "--games", str(games)],
                                     capture_output=True, text=True, env=env, cwd=tmp)
                if run.returncode:
                    raise SystemExit(f"{name} failed:\n{run.stderr[-2000:]}")
                for preset, by_n in json.loads(run.stdout.splitlines()[-1]).items():
                    for n, (cpu, steps) in by_n.items():
                        old = best.setdefault(name, {}).get((preset, n))
                        best[name][(preset, n)] = cpu if old is None else min(old, cpu)
                        played.setdefault(name, {})[(preset, n)] = steps
                print(f"round {r + 1}: {name} done", flush=True)
    ours, base = best["this checkout"], best["baseline"]
    print(f"\n{'preset':30} {'players':>7} {'baseline CPU games/s':>21} {'now':>8} {'ratio':>7}")
    ratios, per_step = [], []  # per_step: CPU per step where the games differ, else per game
    for key in sorted(ours):
        if key not in base:
            print(f"{key[0]:30} {key[1]:>7} {'(not in ' + rev + ')':>21} {games / ours[key]:8.0f}")
            continue
        ratios.append(base[key] / ours[key])
        steps = played["baseline"][key], played["this checkout"][key]
        per_step.append(ratios[-1] * steps[1] / steps[0])
        other = f"  (other games: its rules changed since; {steps[0]} -> {steps[1]} steps, " \
            f"CPU per step {per_step[-1]:.2f}x)" if steps[0] != steps[1] else ""
        print(f"{key[0]:30} {key[1]:>7} {games / base[key]:21.0f} {games / ours[key]:8.0f} "
              f"{ratios[-1]:6.2f}x{other}")
    if not ratios:
        print(f"TESTED NOTHING: no preset of this checkout is in {rev}")
        return 3
    print(f"against {rev}, {len(ratios)} presets and player counts, CPU games/s: lowest "
          f"{min(ratios):.2f}x, median {statistics.median(ratios):.2f}x, highest {max(ratios):.2f}x "
          f"(target, issue 26: >= 2.5x on every one)")
    if per_step != ratios:  # the same work compared where the rules changed the games
        print(f"the same with CPU per step where the games differ: lowest {min(per_step):.2f}x, "
              f"median {statistics.median(per_step):.2f}x, highest {max(per_step):.2f}x")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", metavar="REV",
                        help="time every preset at 2, 4 and 6 players against git revision REV")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.games)
    if args.baseline:
        return against_baseline(args.baseline, args.games, args.repeats)
    ours = "reference podkidnoy, 2 players"
    peer = "durakgame 1.0.4 podkidnoy, 2 players"
    paired = {ours: reference(2, args.games, 1)}
    try:
        import durakgame_driver
    except ImportError as exc:
        print(f"durakgame is not installed ({exc}); pip install '.[bench]' to compare")
    else:
        paired[peer] = lambda: durakgame_driver.time_games(args.games, 1)
    best = best_runs(args.repeats, paired)
    best.update(best_runs(args.repeats, {f"reference podkidnoy, {n} players": reference(n, args.games, 1)
                                         for n in (4, 6)}))
    variant_games = max(1, args.games // 4)
    best.update(best_runs(args.repeats, {f"reference {p}, 2 players": reference(2, variant_games, 1, p)
                                         for p in VARIANTS}))
    order = [ours] + [f"reference podkidnoy, {n} players" for n in (4, 6)] + [peer]
    order += [f"reference {p}, 2 players" for p in VARIANTS]
    print(f"{'engine':40} {'games':>6} {'games/s':>9} {'steps/s':>9} {'CPU games/s':>12}")
    for name in order:
        if name in best:
            secs, steps, cpu = best[name]
            games = variant_games if name.split()[1].rstrip(",") in VARIANTS else args.games
            print(f"{name:40} {games:6d} {games / secs:9.0f} {steps / secs:9.0f} {games / cpu:12.0f}")
    if peer in best:
        print(f"ratio reference/durakgame, 2-player games/s: {best[peer][0] / best[ours][0]:.2f}x "
              f"wall-clock, {best[peer][2] / best[ours][2]:.2f}x CPU time (target, issue 26: >= 3x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
