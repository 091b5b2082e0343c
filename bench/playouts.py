"""Benchmark: random legal playouts on the reference interpreter against durakgame 1.0.4.

Both engines play complete 2-player podkidnoy games choosing uniformly among their legal moves,
in the same process and run, so the ratio is meaningful on a shared, noisy machine. The reference
is also timed with 4 and 6 players. Invariant checks are off here (they are a test, not play).
Each figure is the best of --repeats runs. Run: pip install '.[bench]' && python bench/playouts.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from durak.reference_impl.simulate import simulate
from durak.reference_impl.spec import load_spec

sys.path.insert(0, str(Path(__file__).parent))


def best_of(repeats: int, fn):
    """The fastest of `repeats` runs, the one least disturbed by other load: (seconds, steps)."""
    return min((fn() for _ in range(repeats)), key=lambda r: r[0])


def reference(players: int, games: int, seed: int):
    rs = load_spec().ruleset("podkidnoy")

    def run():
        report = simulate(rs, players, games, seed, check=False)
        return report.seconds, report.steps
    return run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for players in (2, 4, 6):
        secs, steps = best_of(args.repeats, reference(players, args.games, 1))
        rows.append((f"reference podkidnoy, {players} players", args.games, secs, steps))
    try:
        import durakgame_driver
    except ImportError as exc:
        print(f"durakgame is not installed ({exc}); pip install '.[bench]' to compare")
        peer = None
    else:
        secs, steps = best_of(args.repeats, lambda: durakgame_driver.time_games(args.games, 1))
        peer = ("durakgame 1.0.4 podkidnoy, 2 players", args.games, secs, steps)
        rows.append(peer)
    print(f"{'engine':40} {'games':>6} {'games/s':>9} {'steps/s':>9}")
    for name, games, secs, steps in rows:
        print(f"{name:40} {games:6d} {games / secs:9.0f} {steps / secs:9.0f}")
    if peer is not None:
        ours, theirs = rows[0][1] / rows[0][2], peer[1] / peer[2]
        print(f"ratio reference/durakgame, 2-player games/s: {ours / theirs:.2f}x "
              "(target: >= 1000 games/s and >= 1.5x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
