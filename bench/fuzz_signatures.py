"""Benchmark: does `durak fuzz` show one root cause as one signature, under the rule it breaks?

For single-rule mutants of the reference and engines that combine several
(conformance/examples/mutants.py, the multi-bug engines of bench/attribution.py), one campaign of
--games games per player count, as `durak fuzz --adapter python:...mutants:NAMES --games G --seed S
--players N` runs it. One row per engine and player count:

  sigs      distinct signatures of the campaign: its root causes (other signatures of one cause
            are its forms, Entry.forms, counted under `forms`)
  right     signatures whose rule is one the engine breaks
  marks     signatures and forms marked "probably a consequence" of others (replayed)
  problems  problems of the report (conformance/problems.py, as the command groups them), and how
            many name a rule the engine breaks
  advice    signatures with advice: right (an option value the engine really plays) / wrong

The totals give signatures per bug found (target 1: one root cause, one signature), the bugs
found shown as exactly one signature under their rule, right rule per signature, problems per
bug, and wrong advice (target 0; a mutant that claims no option value counts any advice as
wrong: no_hand_bound plays defender_hand_bound = none under podkidnoy, not defender_has_card, and
keeps the bound another value asks for, so no value is its house rule, as durak check finds).

    python bench/fuzz_signatures.py                  # every engine, 200 games, 2 and 4 players
    python bench/fuzz_signatures.py --engine trump_beats_only_trump+cap_five --players 3
    python bench/fuzz_signatures.py --multi --games 100
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from durak_spec.conformance.examples.mutants import MUTANTS, TABLE
from durak_spec.conformance.fuzz import fuzz, results_of
from durak_spec.conformance.problems import find_problems
from durak_spec.conformance.transport import AdapterError, make_adapter
from durak_spec.reference_impl.model import value_text
from durak_spec.reference_impl.spec import load_spec

sys.path.insert(0, str(Path(__file__).parent))
from attribution import MULTI  # noqa: E402  (the multi-bug engines of the check bench)

# the preset a mutant needs for its rule to play at all (podkidnoy otherwise)
PRESET = {"transfer": "perevodnoy", "play": "weli"}


def preset_of(names: list[str]) -> str:
    areas = {MUTANTS[n].breaks.split(".")[0] for n in names}
    presets = {PRESET[a] for a in areas if a in PRESET}
    return presets.pop() if len(presets) == 1 else "podkidnoy"


def campaign(spec, adapter_name: str, preset: str, players: int, games: int, seed: int):
    adapter = make_adapter(adapter_name, spec=spec)
    hello = adapter.open()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            res = fuzz(spec, adapter, hello, preset=preset, players=players, games=games,
                       seed_value=seed, out_dir=Path(tmp), adapter_name=adapter_name)
            return res, find_problems(results_of(res, preset, adapter_name))
    finally:
        adapter.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", action="append", default=[],
                        help="only this engine (a mutant name, or names joined by +; repeatable)")
    parser.add_argument("--multi", action="store_true", help="only the engines with several bugs")
    parser.add_argument("--single", action="store_true", help="only the single-rule mutants")
    parser.add_argument("--players", type=int, action="append", default=[])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", "-q", action="store_true", help="no line per signature")
    args = parser.parse_args(argv)
    names = args.engine or ([] if args.multi else [m.name for m in TABLE]) + \
        ([] if args.single else MULTI)
    players = args.players or [2, 4]
    spec = load_spec()
    t0 = time.perf_counter()
    tot = dict(bugs=0, found=0, one=0, forms=0, sigs=0, right=0, marks=0, problems=0, named=0, ok=0, wrong=0)
    print(f"{'engine':60} {'pl':>2} {'bugs':>4} {'sigs':>4} {'right':>5} {'forms':>5} {'marks':>5} "
          f"{'problems':>8} {'right':>5} {'advice ok/wrong':>15}")
    for name in names:
        mutants = [MUTANTS[n] for n in name.split("+")]
        broken = {m.breaks for m in mutants}
        genuine = {m.as_option for m in mutants if m.as_option}
        adapter = f"python:durak_spec.conformance.examples.mutants:{name}"
        for n in players:
            try:
                res, problems = campaign(spec, adapter, preset_of(name.split("+")), n, args.games,
                                         args.seed)
            except AdapterError as exc:
                print(f"{name[:60]:60} {n:2} did not start: {exc}")
                continue
            entries = [e for e in res.entries if e.known is None]
            if not res.games:
                print(f"{name[:60]:60} {n:2} no game played")
                continue
            right = [e for e in entries if e.witness.rule in broken]
            forms = [f for e in entries for f in getattr(e, "forms", [])]
            marks = [e for e in entries + forms if e.follows_from]
            ok = [e for e in entries if e.advice and set(e.advice.items()) <= genuine]
            wrong = [e for e in entries if e.advice and not set(e.advice.items()) <= genuine]
            named = [p for p in problems if p["rule"] in broken]
            found = {e.witness.rule for e in entries} & broken
            one = [b for b in found if sum(e.witness.rule == b for e in entries) == 1]
            print(f"{name[:60]:60} {n:2} {len(broken):4} {len(entries):4} {len(right):5} "
                  f"{len(forms):5} {len(marks):5} {len(problems):8} {len(named):5} {len(ok):7}/{len(wrong)}",
                  flush=True)
            if not args.quiet:
                for e in entries:
                    mark = " " if e.witness.rule in broken else "x"
                    advice = ", ".join(f"{k} = {value_text(v)}" for k, v in (e.advice or {}).items())
                    print(f"    {mark} {e.signature:48} {e.count:6}"
                          + (f"  follows {', '.join(e.follows)}" if e.follows_from else "")
                          + (f"  advice: {advice}" if advice else ""), flush=True)
                    for f in getattr(e, "forms", []):
                        print(f"        + {f.signature:46} {f.count:6}"
                              + (f"  follows {', '.join(f.follows)}" if f.follows_from else ""))
            tot["bugs"] += len(broken)
            tot["sigs"] += len(entries)
            tot["right"] += len(right)
            tot["marks"] += len(marks)
            tot["found"] += len(found)
            tot["one"] += len(one)
            tot["forms"] += len(forms)
            tot["problems"] += len(problems)
            tot["named"] += len(named)
            tot["ok"] += len(ok)
            tot["wrong"] += len(wrong)

    def pct(a, b):
        return f"{100 * a / b:.1f} %" if b else "-"
    b = tot["bugs"] or 1
    print(f"\n{len(names)} engines x {len(players)} player counts, {tot['bugs']} bugs, "
          f"{args.games} games each, seed {args.seed}, {time.perf_counter() - t0:.0f} s")
    print(f"signatures per bug: {tot['sigs'] / b:.2f} ({tot['sigs']} signatures, {tot['forms']} "
          f"more as their forms, {tot['marks']} marked as a consequence)")
    print(f"bugs found: {tot['found']}/{tot['bugs']}; signatures per bug found: "
          f"{tot['sigs'] / (tot['found'] or 1):.2f}; found bugs shown as exactly one signature: "
          f"{tot['one']}/{tot['found']}")
    print(f"right rule per signature: {tot['right']}/{tot['sigs']} ({pct(tot['right'], tot['sigs'])})")
    print(f"problems per bug: {tot['problems'] / b:.2f}; right rule per problem: "
          f"{tot['named']}/{tot['problems']} ({pct(tot['named'], tot['problems'])})")
    print(f"advice: {tot['ok']} right, {tot['wrong']} wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main())
