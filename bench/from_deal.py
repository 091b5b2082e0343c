"""Positions reached from a deal: how much of the suite an engine that can only deal runs.

Runs the shipped conformance suite in process against the reference engine declaring
`positions: true` (the peer) and against the same engine declaring `positions: false`
(conformance/examples/deal_only.py: its `start` refuses a position, so every position case runs
from the deal conformance/fromdeal.py finds), then against the style engines (minidurak, which
deal only). Prints for each: case runs executed (not skipped), failures, seconds; the ratios of
the deal-only engine to the peer (runs executed: target at least 0.90; time: target at most 2x);
the prefix search's median and worst time per position case and preset (target: median at most
50 ms), with the search's outcomes; and the skips grouped by what would run them.

With `--fuzz-games N` it also runs a fuzz campaign of N games per preset (`--fuzz-preset`,
repeatable; default podkidnoy and perevodnoy) at 2 and 4 players on both engines and prints the
rule coverage each reached (clause sides exercised of those that can decide): without positions
the boundary seeds start from the deals that reach them.

    python bench/from_deal.py                  # the whole suite, the reference pair and styles
    python bench/from_deal.py --no-styles --case 'generated/boundary/*'
    python bench/from_deal.py --no-suite --fuzz-games 200
"""

from __future__ import annotations

import argparse
import fnmatch
import statistics
import tempfile
import time
from collections import Counter

from durak_spec.conformance import fromdeal, runner
from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.coverage import summary
from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.runner import Session, would_help
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.spec import load_spec

PEER = "python:durak_spec.conformance.engine:ReferenceEngine"
DEAL_ONLY = "python:durak_spec.conformance.examples.deal_only:DealOnlyEngine"
STYLES = ["python:durak_spec.conformance.examples.style_explicit_pass:ExplicitPassEngine",
          "python:durak_spec.conformance.examples.style_done:DoneEngine",
          "python:durak_spec.conformance.examples.style_play_card:PlayCardEngine"]


def run(spec, jobs, adapter: str):
    """(results, seconds) of one engine over the jobs, in one session; the search cache is
    emptied first, so each engine pays for its own searches."""
    runner.REACHED.clear()
    session = Session(spec, make_adapter(adapter, 5.0, spec), adapter_name=adapter,
                      check_cases=False)
    session.open()
    t0 = time.perf_counter()
    try:
        results = [session.run_case(case, variant) for case, variant in jobs]
    finally:
        session.close()
    return results, time.perf_counter() - t0


def row(name: str, results, seconds: float) -> tuple[int, int]:
    counts = Counter(r.status for r in results)
    ran = len(results) - counts["skip"]
    failed = counts["fail"] + counts["error"] + counts["broken"]
    print(f"{name:60} {ran:5} run {failed:4} fail {counts['skip']:5} skip {seconds:7.1f} s")
    return ran, failed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", default=[], help="case id glob (repeatable)")
    ap.add_argument("--no-styles", action="store_true", help="leave out the style engines")
    ap.add_argument("--no-suite", action="store_true", help="leave out the conformance suite")
    ap.add_argument("--fuzz-games", type=int, default=0, help="games per fuzz campaign (0: none)")
    ap.add_argument("--fuzz-preset", action="append", default=[], help="preset to fuzz (repeatable)")
    args = ap.parse_args(argv)
    spec = load_spec()
    if args.fuzz_games:
        fuzz_coverage(spec, args.fuzz_preset or ["podkidnoy", "perevodnoy"], args.fuzz_games)
    if args.no_suite:
        return 0
    suite = load_suite(spec)
    cases = [c for c in suite.cases if not args.case or
             any(fnmatch.fnmatchcase(c.id, p) for p in args.case)]
    jobs = [(c, v) for c in cases for v in c.variants]
    print(f"{len(jobs)} case runs, {sum(1 for c, _ in jobs if c.is_position)} from positions "
          "(machine shared; in process)")

    # the search alone, on the case's own presets
    times, outcomes = [], Counter()
    for case, variant in jobs:
        if case.is_position:
            found = fromdeal.reach(spec.ruleset(variant, case.options), case.setup)
            times.append(found.seconds)
            outcomes[found.status] += 1
    if times:
        print(f"prefix search: median {statistics.median(times) * 1000:.2f} ms, worst "
              f"{max(times) * 1000:.1f} ms per position case and preset (target: median <= 50 ms); "
              + ", ".join(f"{n} {s}" for s, n in sorted(outcomes.items())))

    peer, peer_s = run(spec, jobs, PEER)
    deal, deal_s = run(spec, jobs, DEAL_ONLY)
    ran_peer, _ = row("reference, positions: true", peer, peer_s)
    ran_deal, failed_deal = row("reference, positions: false (deal_only)", deal, deal_s)
    ratio = ran_deal / ran_peer if ran_peer else 0.0
    print(f"runs executed, deals only / positions: {ratio:.3f} (target >= 0.90: "
          f"{'met' if ratio >= 0.9 else 'NOT MET'}); failures of the deal-only engine: {failed_deal} "
          f"(target 0: {'met' if failed_deal == 0 else 'NOT MET'}); time ratio {deal_s / peer_s:.2f}x "
          f"(target <= 2x: {'met' if deal_s <= 2 * peer_s else 'NOT MET'})")
    helps = would_help(deal)
    if helps:
        print("deal-only skips, what would run them: " + "; ".join(f"{w}: {n} more" for w, n in helps))
    lost = Counter(r.skip_reason for r, p in zip(deal, peer) if r.status == "skip" and p.status != "skip")
    for reason, n in lost.most_common(5):
        print(f"  {n:5}  run with positions, skipped without: {reason}")
    if not args.no_styles:
        for adapter in STYLES:
            results, seconds = run(spec, jobs, adapter)
            row(adapter.rsplit(":", 1)[-1] + " (positions: false)", results, seconds)
    return 0


def fuzz_coverage(spec, presets, games: int) -> None:
    """Rule coverage of a fuzz campaign with and without positions, same seed and games."""
    for preset in presets:
        for adapter in (PEER, DEAL_ONLY):
            engine = make_adapter(adapter, 5.0, spec)
            hello = engine.open()
            t0 = time.perf_counter()
            try:
                with tempfile.TemporaryDirectory() as out:
                    result = fuzz(spec, engine, hello, preset=preset, players=[2, 4], games=games,
                                  out_dir=out, adapter_name=adapter, diagnosis=0)
            finally:
                engine.close()
            done, total, missing = summary(result.coverage)
            label = "positions: true" if adapter == PEER else "positions: false"
            print(f"fuzz {preset:12} {label:17} {games} games at 2 and 4 players: rule coverage "
                  f"{done}/{total} clause sides, {len(result.entries)} divergences, "
                  f"{time.perf_counter() - t0:.1f} s; missing: "
                  + (", ".join(f"{r} {s}" for r, s in missing[:6]) or "none"))


if __name__ == "__main__":
    raise SystemExit(main())
