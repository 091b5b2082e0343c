"""`durak lint`, suite part: the cases are valid, pass on the reference, cover every legality
rule with an accepting and a rejecting case under each preset where it applies (tools/coverage.py),
and every rule area with cases has them at both table sizes: two players and three or more.
"""

from __future__ import annotations

from durak_spec.conformance import fromdeal
from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.matches import check_match_case
from durak_spec.conformance.runner import Session
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.spec import Spec
from durak_spec.reference_impl.yamlio import InputError
from durak_spec.tools.lint.coverage import coverage, gaps, load_untested


def lint_cases(spec: Spec, report, cases_dir=None, progress=None) -> list:
    """Add the suite's problems and counts to a LintReport; return the coverage needs.
    `progress` (tools.common.ProgressReport) counts the case runs."""
    suite = load_suite(spec, cases_dir, trust=False)  # every file validated, none from the index
    for err in suite.broken:
        report.problems.append(f"broken case file: {err}")
    session = Session(spec, make_adapter("reference", spec=spec), adapter_name="reference")
    session.open()
    runs = 0
    if progress is not None:
        progress.set_total(sum(len(c.variants) for c in suite.cases))
    for case in suite.cases:
        for variant in case.variants:
            runs += 1
            result = session.run_case(case, variant)
            if result.status != "pass":  # a position unreachable under the case's own preset too
                report.problems.append(f"{case.file}: under {variant}: {result.status}: {result.message}")
            problem = from_deal_problem(spec, case, variant)
            if problem:
                report.problems.append(f"{case.file}: from_deal.{variant}: {problem}")
            if progress is not None:
                progress.advance(failures=result.status != "pass")
    for path, case_id, data in suite.matches:  # match cases replay on the reference's match layer
        problem = check_match_case(spec, case_id, data)
        if problem:
            report.problems.append(f"{path}: match case {case_id}: {problem}")
    try:
        untested = load_untested()
    except InputError as exc:
        report.problems.append(str(exc))
        untested = []
    known = spec.rules_by_id
    for i, entry in enumerate(untested):
        if not isinstance(entry, dict) or entry.get("rule") not in known or not entry.get("reason"):
            report.problems.append(f"untested.yaml[{i}]: each entry names an existing rule and a reason")
    report.problems += table_size_gaps(spec, suite)
    needs = coverage(spec, suite, untested)
    for need in gaps(needs):
        report.problems.append(
            f"no {need.verdict}ing case for {need.rule} under {need.preset} "
            f"(kinds {', '.join(need.kinds)}); add one or run `durak cases cover`")
    generated = sum(1 for c in suite.cases if c.generated)
    covered = sum(1 for n in needs if n.covered_by)
    report.counts.update({"cases": len(suite.cases), "generated cases": generated,
                          "case runs": runs, "match cases": len(suite.matches),
                          "coverage": f"{covered}/{len(needs)} rule-preset-verdict needs covered, "
                                      f"{sum(1 for n in needs if n.untested)} listed untested"})
    return needs


def from_deal_problem(spec: Spec, case, variant: str) -> str | None:
    """What is wrong with the case's shipped `from_deal` block for `variant`: missing for a
    position, or a deal and prefix that do not replay to the position on the reference."""
    if not case.is_position:
        return None
    entry = (case.data.get("from_deal") or {}).get(variant)
    if entry is None:
        return "missing: run `durak cases from-deal --write`"
    reached = fromdeal.Reached.from_json(entry)
    if reached.status != "found":
        return None
    why = fromdeal.check(spec.ruleset(variant, case.options), case.setup, reached,
                         [s.action for s in case.steps])
    return f"the deal and prefix do not reach the position: {why}" if why else None


def table_size_gaps(spec: Spec, suite) -> list[str]:
    """Rule areas whose cases are all at two players, or all at three or more: a two-player
    engine's draw order or first attacker would be checked only by accident."""
    sizes: dict[str, set] = {}
    for case in suite.cases:
        sizes.setdefault(case.area, set()).add("2" if case.players == 2 else "3+")
    problems = []
    for area in [a["id"] for a in spec.areas]:
        have = sizes.get(area)
        if have and have != {"2", "3+"}:
            missing = "two players" if "2" not in have else "three or more players"
            problems.append(f"rule area {area} has no case at {missing}; every area with cases needs "
                            "both table sizes (record one with `durak cases record`)")
    return problems
