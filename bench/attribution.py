"""Rule attribution and problems on engines with one or several rules broken: does the report name
each broken rule once, and never give advice that would hide a bug?

Runs the shipped conformance suite (or the cases of --area / --case) against each engine, in
process: each shipped broken engine (conformance/examples/broken_*.py), each single-rule mutant of
conformance/examples/mutants.py, and engines that combine two, three and five mutants. The report's
problems are computed as `durak check` computes them (conformance/problems.py: grouped by root
cause, advice confirmed against the whole run). One row per engine:

  runs      failing case runs
  right     failing runs whose rule (computed by the reference) is one the engine breaks
  problems  problems of the report, and how many name a rule the engine breaks
  missed    broken rules that are the rule of no problem
  advice    problems with advice: right (the engine really plays that option value) / wrong

The totals give problems per bug (target at most 2), right rule per problem (target 95 %), right
rule per failing run (target 90 %), wrong advice (target 0) and the option mutants whose value is
advised (target: all).

    python bench/attribution.py                         # every engine, the whole shipped suite
    python bench/attribution.py --multi                 # only the engines with several bugs
    python bench/attribution.py --engine cap_five --engine trump_beats_only_trump+cap_five
    python bench/attribution.py --area defence --area limits
    python bench/attribution.py --per-rule 3           # 3 cases each bug alone fails (a sample)
"""

from __future__ import annotations

import argparse
import sys
import time

from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.examples.mutants import MUTANTS, TABLE
from durak_spec.conformance.problems import find_problems
from durak_spec.conformance.runner import Selection, Session
from durak_spec.conformance.transport import AdapterError, make_adapter
from durak_spec.reference_impl.model import rule_options, value_text
from durak_spec.reference_impl.spec import load_spec

TIMEOUT = 60.0  # seconds an engine may take over an answer: the mutants are the reference, and an
# answer late on a loaded machine is no finding of attribution (an engine error, counted as a problem)

BROKEN = [("broken_no_cap", "NoAttackCap", ("max_attack_cards", None)),
          ("broken_draw_order", "DefenderDrawsFirst", None),
          ("broken_beat", "BeatAnySuit", None),
          ("broken_throw_in_rank", "ThrowInAnyRank", None),
          # not transfer_capacity_check = none: that value frees the passport's show too
          # (transfer.passport_capacity), which this engine still bounds (transfer/passport_capacity)
          ("broken_transfer_capacity", "TransferIgnoresCapacity", None)]

# Engines with several rules broken at once: real bugs side by side, and an option value among them.
MULTI = ["cover_earliest_only+attacker_again_after_take",
         "transfer_keeps_card+throw_in_after_take_always",
         "trump_beats_only_trump+cap_five",
         "trump_beats_only_trump+take_when_all_beaten+beaten_off_skips_defender",
         "adds_to_empty_hand+throw_in_seat_order_after_take+draw_counterclockwise",
         "cover_earliest_only+passed_player_adds+turn_up_drawn_first+named_suit_anywhere"
         "+first_attacker_highest_trump",
         "trump_beats_only_trump+take_when_all_beaten+beaten_off_skips_defender+out_before_draw"
         "+no_cap",
         "draw_counterclockwise+hand_size_seven+pile_on_any_time"]


def engines(multi_only: bool = False):
    """(name, adapter, {broken rule}, [(option, value)] the engine really plays) of each engine."""
    out = []
    if not multi_only:
        for module, cls, option in BROKEN:
            adapter = f"python:durak_spec.conformance.examples.{module}:{cls}"
            mod = __import__(f"durak_spec.conformance.examples.{module}", fromlist=[cls])
            out.append((module, adapter, {getattr(mod, cls).breaks}, [option] if option else []))
        out += [(m.name, f"python:durak_spec.conformance.examples.mutants:{m.name}", {m.breaks},
                 [m.as_option] if m.as_option else []) for m in TABLE]
    for name in MULTI:
        mutants = [MUTANTS[n] for n in name.split("+")]
        out.append((name, f"python:durak_spec.conformance.examples.mutants:{name}",
                    {m.breaks for m in mutants}, [m.as_option for m in mutants if m.as_option]))
    return out


class _Plain(Session):
    """A session that tells whether a case run differs, without diagnosing it (for the sample)."""

    def _diagnose(self, res, *args, **kwargs) -> None:
        return None


def _singles() -> dict:
    """{adapter of an engine breaking one rule: that rule}: the shipped broken engines and the
    single-rule mutants."""
    out = {}
    for module, cls, _ in BROKEN:
        mod = __import__(f"durak_spec.conformance.examples.{module}", fromlist=[cls])
        out[f"python:durak_spec.conformance.examples.{module}:{cls}"] = getattr(mod, cls).breaks
    out.update({f"python:durak_spec.conformance.examples.mutants:{m.name}": m.breaks for m in TABLE})
    return out


def per_rule(spec, cases: list, rows: list, n: int, selection: Selection) -> list:
    """For each bug of the engines (each engine that breaks one rule, and each mutant of an engine
    that combines several), the first `n` of `cases` that name its rule, the first `n` naming
    another rule that reads one of its options (the evidence that refutes advice), and the first
    `n` that an engine with that bug alone fails:
    a case naming the rule or reaching it is no case that exercises the bug (draw.order is
    reached by every draw, and one case of the suite tells the order attackers joined in from
    clockwise). Cases naming the bug's rule are tried first (hand-written ones of the rule's own
    area first), then the rest of its area, then the other cases until one is found. Played
    without diagnosis, which only a failure needs: a few seconds per bug. A bug no case
    exercises is said loudly."""
    singles = _singles()
    bugs = []
    for name, adapter, _, _ in rows:
        parts = [adapter] if adapter in singles else \
            [f"python:durak_spec.conformance.examples.mutants:{m}" for m in name.split("+")]
        bugs += [a for a in parts if a in singles and a not in bugs]
    picked: set = set()
    for adapter in bugs:
        rule = singles[adapter]
        area = rule.split(".")[0]
        naming = sorted((c for c in cases if rule in c.rules),
                        key=lambda c: (c.generated is not None, c.id.split("/")[0] != area))
        tiers = [naming, [c for c in cases if c.area == area and c not in naming],
                 [c for c in cases if c.area != area and c not in naming]]
        found = _exercising(spec, adapter, tiers, n, selection)
        if not found:
            print(f"sample: !! no selected case exercises {adapter.rsplit(':', 1)[-1]} "
                  f"({rule}): its engines are not tested by this sample")
        # and the first cases naming the rule, failed or not: a case the engine passes is the
        # evidence that refutes advice (pile_on = any_time for a pile-on bug that still refuses a
        # second seat's card before the first is beaten); and the first naming another rule that
        # reads an option of this one (transfer/passport_capacity refutes
        # transfer_capacity_check = none for an engine that bounds the passport's show)
        options = set(rule_options(spec, spec.rules_by_id[rule]))
        siblings = {r.id for r in spec.rules if r.id != rule and options & set(rule_options(spec, r))}
        sharing = sorted((c for c in cases if siblings & set(c.rules) and c not in naming),
                         key=lambda c: (c.generated is not None, c.area != area))
        picked.update(found + [c.id for c in naming[:n] + sharing[:n]])
    return [c for c in cases if c.id in picked]


def _exercising(spec, adapter: str, tiers: list, n: int, selection: Selection) -> list:
    """Ids of the first `n` cases of `tiers` the engine fails under some variant; of the last
    tier, only the first such case."""
    session = _Plain(spec, make_adapter(adapter, TIMEOUT, spec), adapter_name=adapter,
                     check_cases=False)
    session.open()
    found: list = []
    try:
        for i, tier in enumerate(tiers):
            if found and (len(found) >= n or i == len(tiers) - 1):
                break
            for case in tier:
                if any(session.run_case(case, v).status in ("fail", "error")
                       for v in selection.variants_of(case)):
                    found.append(case.id)
                    if len(found) >= n or i == len(tiers) - 1:
                        break
    finally:
        session.close()
    return found


def run(spec, cases, adapter: str, selection: Selection):
    """The results of one engine on the cases, and its problems."""
    session = Session(spec, make_adapter(adapter, TIMEOUT, spec), adapter_name=adapter, check_cases=False)
    session.open()
    results = []
    try:
        for case in cases:
            results += [session.run_case(case, v) for v in selection.variants_of(case)]
        return results, find_problems(results, session.evidence)  # the engine open, as check
    finally:
        session.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", action="append", default=[],
                        help="only this engine (a broken_* module, a mutant name, or names joined "
                             "by +; repeatable)")
    parser.add_argument("--multi", action="store_true", help="only the engines with several bugs")
    parser.add_argument("--area", action="append", default=[], help="only the cases of this area")
    parser.add_argument("--case", action="append", default=[], help="only these cases (globs)")
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="only every Nth selected case, in the suite's order (a sample)")
    parser.add_argument("--per-rule", type=int, default=0, metavar="N",
                        help="only the first N selected cases that an engine with each bug alone "
                             "fails, those naming its rule first (a sample that tests every bug)")
    args = parser.parse_args(argv)
    spec = load_spec()
    suite = load_suite(spec)
    selection = Selection(cases=tuple(args.case), areas=tuple(args.area))
    rows = engines(args.multi)
    if args.engine:
        known = {e[0] for e in rows}
        rows = [e for e in rows if e[0] in args.engine]
        for name in args.engine:
            if name not in known:
                mutants = [MUTANTS[n] for n in name.split("+")]
                rows.append((name, f"python:durak_spec.conformance.examples.mutants:{name}",
                             {m.breaks for m in mutants},
                             [m.as_option for m in mutants if m.as_option]))
    cases = [c for c in suite.cases if selection.picks(c)]
    if args.per_rule:
        cases = per_rule(spec, cases, rows, args.per_rule, selection)
    cases = cases[::max(1, args.every)]
    print(f"sample: {len(cases)} of {len(suite.cases)} cases"
          + (f", the first {args.per_rule} naming each bug's rule, {args.per_rule} naming a rule "
             f"sharing its options and {args.per_rule} it alone fails"
             if args.per_rule else "")
          + (f", every {args.every}th" if args.every > 1 else ""))
    t0 = time.perf_counter()
    bugs = problems_all = problems_right = runs_all = runs_right = 0
    advised_right = advised_wrong = options_all = options_found = hinted = 0
    print(f"{'engine':44} {'bugs':>4} {'runs':>5} {'right':>5} {'problems':>8} {'right':>5} "
          f"{'missed':>6} {'advice ok/wrong':>15}")
    for name, adapter, broken, options in rows:
        try:
            results, problems = run(spec, cases, adapter, selection)
        except AdapterError as exc:
            print(f"{name[:44]:44} did not start: {exc}", flush=True)
            continue
        failing = [r for r in results if r.status == "fail"]
        right = sum(r.rule in broken for r in failing)
        named = [p for p in problems if p["rule"] in broken]
        missed = sorted(broken - {p["rule"] for p in problems})
        genuine = [{o: v} for o, v in options]
        ok = [p for p in problems if p["advice"] and p["advice"] in genuine]
        wrong = [p for p in problems if p["advice"] and p["advice"] not in genuine]
        advised = [g for g in genuine if any(p["advice"] == g for p in problems)]
        unconfirmed = sum(1 for r in failing if (r.diagnosis or {}).get("as_if")
                          and r.diagnosis["as_if"][0] not in genuine)
        print(f"{name[:44]:44} {len(broken):4} {len(failing):5} {right:5} {len(problems):8} "
              f"{len(named):5} {len(missed):6} {len(ok):7}/{len(wrong)}", flush=True)
        for p in problems:
            mark = " " if p["rule"] in broken else "x"
            advice = ", ".join(f"{k} = {value_text(v)}" for k, v in (p["advice"] or {}).items())
            print(f"    {mark} {str(p['rule']):30} {p['kind'][:28]:28} {p['count']:5}  "
                  f"{'advice: ' + advice if advice else ''}", flush=True)
        if missed:
            print(f"      missed: {', '.join(missed)}")
        if not failing:
            print(f"      !! no failing run: the sample does not test {name}")
        bugs += len(broken)
        problems_all += len(problems)
        problems_right += len(named)
        runs_all += len(failing)
        runs_right += right
        advised_right += len(ok)
        advised_wrong += len(wrong)
        options_all += len(genuine)
        options_found += len(advised)
        hinted += unconfirmed

    def pct(a, b):
        return f"{100 * a / b:.1f} %" if b else "-"
    print(f"\n{len(rows)} engines, {bugs} bugs, {len(cases)} cases, {time.perf_counter() - t0:.0f} s")
    print(f"problems per bug: {problems_all / bugs if bugs else 0:.2f} ({problems_all} problems)")
    print(f"right rule per problem: {problems_right}/{problems_all} ({pct(problems_right, problems_all)})")
    print(f"right rule per failing run: {runs_right}/{runs_all} ({pct(runs_right, runs_all)})")
    print(f"wrong advice: {advised_wrong} problem(s); right advice: {advised_right}; option values "
          f"advised: {options_found}/{options_all}; failing runs whose counterfactual search alone "
          f"(unconfirmed, as reports said before) would advise a wrong value: {hinted}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
