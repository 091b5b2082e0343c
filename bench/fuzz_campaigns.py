"""Benchmark: what one `durak fuzz` campaign finds, how short its cases are, what it covers.

For engines with two and with three independent broken rules (single-rule mutants of the
reference combined in one engine, conformance/examples/mutants.py), one campaign of --games games
at 2 and at 4 players each: which broken rules were reported (each under its own rule), after how
many games the last of them first showed, the distinct divergences, and the lengths of the shrunk
cases, with the engine declaring `positions` (cases start just before the divergence) and without
(cases start from a deal: the position at the start of the divergence's bout, with the shortest
prefix found), and the seconds of the whole campaign and of its shrinking, diagnosis and cases
(`after`). Then campaigns against the reference itself, at 2 and at 4 players, with and without
positions: how many of the legality-clause sides that can decide under podkidnoy were exercised
(coverage.py). The rules named that are not the broken ones are printed too (collateral names).
Targets: every broken rule reported within 1,000 games; median shrunk case <= 8 steps, max 20;
every clause side exercised at 2 and at 4 players.
Run: python bench/fuzz_campaigns.py [--games 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from durak_spec.conformance.coverage import summary
from durak_spec.conformance.examples.mutants import MUTANTS
from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.spec import load_spec

ENGINES = [("trump_beats_only_trump", "pile_on_any_time"),
           ("first_attacker_highest_trump", "take_when_all_beaten", "throw_in_attack_ranks")]


def campaign(spec, name: str, players: int, games: int, seed: int, positions: bool = True):
    adapter = make_adapter(name, spec=spec)
    hello = adapter.open()
    if not positions:
        hello = {**hello, "positions": False}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            return fuzz(spec, adapter, hello, preset="podkidnoy", players=players, games=games,
                        seed_value=seed, out_dir=Path(tmp), adapter_name=name)
    finally:
        adapter.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    spec = load_spec()
    lengths: dict[bool, list] = {True: [], False: []}
    print(f"{'engine':58s} {'pl':>2s} {'pos':>3s} {'found':>5s} {'games':>5s} {'distinct':>8s} "
          f"{'med':>4s} {'max':>4s} {'s':>5s} {'after':>5s}")
    for names in ENGINES:
        breaks = {MUTANTS[n].breaks for n in names}
        adapter = "python:durak_spec.conformance.examples.mutants:" + "+".join(names)
        for players in (2, 4):
            for positions in (True, False):
                t0 = time.perf_counter()
                res = campaign(spec, adapter, players, args.games, args.seed, positions)
                first = {}
                for e in res.entries:
                    rule = e.witness.rule
                    first[rule] = min(first.get(rule, e.first_game), e.first_game)
                found = breaks & set(first)
                needed = max((first[r] for r in found), default=0) + 1
                steps = [e.witness.length for e in res.entries]
                lengths[positions] += steps
                print(f"{'+'.join(names):58s} {players:2d} {'yes' if positions else 'no':>3s} "
                      f"{len(found)}/{len(breaks):<3d} {needed:5d} {len(res.entries):8d} "
                      f"{statistics.median(steps) if steps else 0:4.0f} {max(steps, default=0):4d} "
                      f"{time.perf_counter() - t0:5.1f} {time.perf_counter() - t0 - res.seconds:5.1f}")
                extra = {e.witness.rule for e in res.entries} - breaks
                if extra:
                    print(f"    also named: {', '.join(sorted(extra))}")
                missing = breaks - found
                if missing:
                    print(f"    NOT reported: {', '.join(sorted(missing))}; reported rules: "
                          f"{', '.join(sorted(first))}")
    for positions, label in ((True, "with positions"), (False, "from deals")):
        got = lengths[positions]
        med, top = statistics.median(got), max(got)
        print(f"shrunk cases {label}: {len(got)} cases, median {med:.0f} steps, max {top} "
              f"(target median <= 8, max <= 20: {'met' if med <= 8 and top <= 20 else 'NOT met'})")
    for players in (2, 4):
        for positions in (True, False):
            res = campaign(spec, "reference", players, args.games, args.seed, positions)
            done, total, missing = summary(res.coverage)
            print(f"coverage, reference {'with' if positions else 'without'} positions, "
                  f"{players} players, {res.games} games: {done}/{total} clause sides exercised"
                  + (f"; not reached: {', '.join(f'{r} {s}' for r, s in missing)}"
                     if missing else ""))


if __name__ == "__main__":
    main()
