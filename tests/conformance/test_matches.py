"""Match cases (conformance/matches.py, protocol 1.1 "match"): a match as a sequence of deals with
expected scores, run by `durak check` against engines that declare the match level."""

from __future__ import annotations

from pathlib import Path

from durak_spec.conformance.cases import CASES_DIR
from durak_spec.conformance.matches import check_match_case, record_match
from durak_spec.reference_impl.yamlio import load_file

HERE = Path(__file__).resolve().parent


def test_the_shipped_match_cases_agree_with_the_reference(spec):
    matches = [load_file(p) for p in sorted((CASES_DIR / "match").glob("*.yaml"))]
    assert len(matches) >= 3
    presets = {data["match"]["preset"] for data in matches}
    assert {"cardzmania", "podkidnoy", "podkidnoy_epaulettes"} <= presets
    for data in matches:
        case_id = data["id"]
        assert check_match_case(spec, case_id, data) is None, case_id


def test_a_case_with_a_wrong_expected_score_is_broken(spec):
    case = record_match(spec, "cardzmania", 3, 1)
    case["match"]["deals"][0]["expect"]["scores"] = [0, 0, 0]
    assert "deal 1: scores" in check_match_case(spec, case["id"], case)


def test_the_reference_passes_and_broken_twins_fail_on_the_rule(check):
    run = check("--adapter", "reference", "--case", "match/*")
    assert run.exit_code == 0 and set(run.statuses().values()) == {"pass"}
    assert len(run.statuses()) >= 3
    dealer = check("--adapter", "python:match_engines:FoolDoesNotDealEngine", "--path", HERE,
                   "--case", "match/*")
    failed = [c for c in dealer.report["cases"] if c["status"] == "fail"]
    assert dealer.exit_code == 1 and failed
    assert all(c["check"] == "score.next_dealer" and c["rule"] == "match.next_dealer" for c in failed)
    flat = check("--adapter", "python:match_engines:FlatPenaltyEngine", "--path", HERE,
                 "--case", "match/cardzmania*")
    failed = [c for c in flat.report["cases"] if c["status"] == "fail"]
    assert flat.exit_code == 1 and failed
    assert failed[0]["check"] == "score.scores" and failed[0]["rule"] == "scoring.penalty_points"


def test_an_engine_without_the_match_level_keeps_working(check):
    run = check("--adapter", "python:match_engines:NoMatchEngine", "--path", HERE,
                "--case", "start/*")
    assert run.exit_code == 0
    assert not any(c["case"].startswith("match/") for c in run.report["cases"])
