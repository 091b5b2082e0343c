"""Benchmark: random legal playouts on the reference interpreter against durakgame 1.0.4.

Both engines play complete 2-player podkidnoy games choosing uniformly among their legal moves
with `random.Random.choice`, in the same process and run. Their 2-player runs alternate, so load
from other processes on a shared machine falls on both alike and the ratio stays meaningful. The
reference is also timed with 4 and 6 players, and on each variant preset of the deck, trump and
deal (VARIANTS) with 2 players. Invariant checks are off here (they are a test, not play). Each
figure is the best of --repeats runs, in wall-clock time and, steadier on a shared machine, in
the process's CPU time (time.process_time), each taken around the whole run of either engine.
Run: pip install '.[bench]' && python bench/playouts.py
"""

from __future__ import annotations

import argparse
import sys
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
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
