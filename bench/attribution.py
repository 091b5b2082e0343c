"""Rule attribution on engines that get one rule wrong: is the rule named first the broken one?

Runs the shipped conformance suite against each shipped broken engine (conformance/examples/
broken_*.py) and each single-rule mutant of conformance/examples/mutants.py, in process, and
prints one row per engine: its failures, how many name the broken rule first (the rule the
reference computes, reference_impl/diagnose.py), and whether the counterfactual search recovers
the option value for the mutants that really are another option value. The totals line gives the
share of failures whose rule named first is the broken rule, and the option recoveries.

    python bench/attribution.py                 # every engine, the whole shipped suite
    python bench/attribution.py --max-failures 20 --engine cap_five --engine broken_beat
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.examples.mutants import TABLE
from durak_spec.conformance.runner import Selection, Session
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.model import value_text
from durak_spec.reference_impl.spec import load_spec

BROKEN = [("broken_no_cap", "NoAttackCap", ("max_attack_cards", None)),
          ("broken_draw_order", "DefenderDrawsFirst", None),
          ("broken_beat", "BeatAnySuit", None),
          ("broken_throw_in_rank", "ThrowInAnyRank", None),
          ("broken_transfer_capacity", "TransferIgnoresCapacity", ("transfer_capacity_check", "none"))]


def engines():
    """(name, adapter, broken rule, (option, value) or None) of every engine to attribute."""
    out = []
    for module, cls, option in BROKEN:
        adapter = f"python:durak_spec.conformance.examples.{module}:{cls}"
        mod = __import__(f"durak_spec.conformance.examples.{module}", fromlist=[cls])
        out.append((module, adapter, getattr(mod, cls).breaks, option))
    for m in TABLE:
        out.append((m.name, f"python:durak_spec.conformance.examples.mutants:{m.name}", m.breaks,
                    m.as_option))
    return out


def attribute(spec, suite, adapter: str, max_failures: int | None):
    """The failing results of one engine on the suite (at most max_failures of them)."""
    session = Session(spec, make_adapter(adapter, 5.0, spec), adapter_name=adapter, check_cases=False)
    session.open()
    jobs = [(c, v) for c in suite.cases for v in Selection().variants_of(c)]
    failures = []
    try:
        for case, variant in jobs:
            r = session.run_case(case, variant)
            if r.status == "fail":
                failures.append(r)
                if max_failures and len(failures) >= max_failures:
                    break
    finally:
        session.close()
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", action="append", default=[],
                        help="only this engine (a broken_* module or a mutant name; repeatable)")
    parser.add_argument("--max-failures", type=int, default=None,
                        help="stop each engine after this many failures")
    args = parser.parse_args(argv)
    spec = load_spec()
    suite = load_suite(spec)
    rows = [e for e in engines() if not args.engine or e[0] in args.engine]
    total = named = 0
    recoverable = recovered = 0
    t0 = time.perf_counter()
    print(f"{'engine':34} {'breaks':26} {'fails':>5} {'named':>5} {'%':>5}  option explains -> found")
    for name, adapter, rule, option in rows:
        failures = attribute(spec, suite, adapter, args.max_failures)
        hits = sum(1 for r in failures if r.rule == rule)
        others = Counter(r.rule for r in failures if r.rule != rule)
        found = Counter()
        among = 0  # failures whose explanations include the mutant's option value
        for r in failures:
            as_if = (r.diagnosis or {}).get("as_if", [])
            for change in as_if[:1]:
                found[tuple(sorted(change.items(), key=str))] += 1
            among += option is not None and {option[0]: option[1]} in as_if
        want = f"{option[0]} = {value_text(option[1])}" if option else "-"
        got = "-"
        if found:
            (best, count), = found.most_common(1)
            got = " and ".join(f"{k} = {value_text(v)}" for k, v in best) + f" first ({count}/{len(failures)})"
        if option is not None and failures:
            recoverable += 1
            recovered += among * 2 > len(failures)
            got += f"; {want} among the explanations {among}/{len(failures)}"
        pct = 100 * hits / len(failures) if failures else 0
        print(f"{name:34} {rule:26} {len(failures):5} {hits:5} {pct:5.0f}  {want} -> {got}")
        if others:
            print(f"{'':34} {'also named:':26} " + ", ".join(f"{k} {n}" for k, n in others.most_common(4)))
        total += len(failures)
        named += hits
    print(f"\nrule named first is the broken rule: {named}/{total} failures "
          f"({100 * named / total if total else 0:.1f} %); the counterfactual finds the option "
          f"value (among its explanations, for most of the engine's failures) for "
          f"{recovered}/{recoverable} option mutants; {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
