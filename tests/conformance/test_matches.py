"""Match cases (conformance/matches.py, protocol 1.1 "match"): a match as a sequence of deals with
expected scores, run by `durak check` against engines that declare the match level."""

from __future__ import annotations

import shlex
from pathlib import Path

from click.testing import CliRunner

from durak_spec.conformance.cases import CASES_DIR
from durak_spec.conformance.matches import check_match_case, record_match
from durak_spec.reference_impl.yamlio import load_file
from durak_spec.tools.cli import cli

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
    # the failure's command runs that match case alone against the same engine, and fails it
    argv = shlex.split(failed[0]["reproduce"])
    assert argv[:2] == ["durak", "check"] and "--adapter" in argv and "--variant" not in argv
    again = check(*argv[2:])
    assert again.exit_code == 1
    assert again.statuses() == {(failed[0]["case"], failed[0]["variant"]): "fail"}


def test_an_engine_without_the_match_level_keeps_working(check):
    run = check("--adapter", "python:match_engines:NoMatchEngine", "--path", HERE,
                "--case", "start/*")
    assert run.exit_code == 0
    assert not any(c["case"].startswith("match/") for c in run.report["cases"])


def test_the_runner_compares_the_epaulettes(check):
    """An engine may leave epaulettes out where the variant gives none; where it gives some, the
    runner compares them and names scoring.epaulettes."""
    run = check("--adapter", "python:match_engines:NoEpaulettesEngine", "--path", HERE,
                "--case", "match/*")
    statuses = run.statuses()
    failed = [c for c in run.report["cases"] if c["status"] == "fail"]
    assert run.exit_code == 1 and statuses[("match/cardzmania_3p_seed1", "cardzmania")] == "pass"
    assert {c["case"] for c in failed} == {"match/podkidnoy_epaulettes_3p_seed2",
                                           "match/podkidnoy_epaulette_ladder_3p_seed2"}
    assert all(c["check"] == "score.epaulettes" and c["rule"] == "scoring.epaulettes"
               for c in failed)


def test_durak_cases_match_records_a_case_the_reference_passes(tmp_path, spec):
    result = CliRunner().invoke(cli, ["cases", "match", "--variant", "cardzmania", "--players",
                                       "2", "--seed", "4", "--out", str(tmp_path), "-q"])
    assert result.exit_code == 0, result.output
    written = tmp_path / "match" / "cardzmania_2p_seed4.yaml"
    assert written.read_text() == (CASES_DIR / "match" / "cardzmania_2p_seed4.yaml").read_text()
    data = load_file(written)
    assert check_match_case(spec, data["id"], data) is None
    assert data["match"]["deals"][-1]["expect"]["over"] is True
    short = CliRunner().invoke(cli, ["cases", "match", "--variant", "podkidnoy", "--deals", "2",
                                      "--seed", "1", "--out", str(tmp_path), "-q"])
    assert short.exit_code == 0, short.output
    data = load_file(tmp_path / "match" / "podkidnoy_3p_seed1.yaml")
    assert len(data["match"]["deals"]) == 2 and data["match"]["options"]["match_deals"] == 2
    bad = CliRunner().invoke(cli, ["cases", "match", "--variant", "nope"])
    assert bad.exit_code == 2 and "unknown preset" in bad.output


def test_match_scripts_are_sent_as_the_engines_action_model_plays_them(check):
    """A match case whose script needs a pass the engine's model has no room for is skipped
    with that reason; the others run, their moves translated (none fails)."""
    run = check("--adapter", "python:match_engines:NoPassWhileUnbeatenMatchEngine", "--path", HERE,
                "--case", "match/*")
    cases = run.report["cases"]
    assert cases and not [c for c in cases if c["status"] in ("fail", "error")]
    skipped = [c for c in cases if c["status"] == "skip"]
    assert skipped and all("no pass while an attack card is unbeaten" in c["message"] for c in skipped)


def test_a_verdict_that_differs_in_a_later_deal_names_its_rule(check):
    """The reference diagnoses a deal of a match as it does a case, from that deal's setup (the
    dealer and first attacker the match decided): a bout capped at five cards is limits.cap in
    the third deal, not a difference no rule decides."""
    run = check("--adapter", "python:durak_spec.conformance.examples.mutants:cap_five",
                "--case", "match/podkidnoy_teams_4p_seed3")
    [case] = run.report["cases"]
    assert (case["status"], case["rule"]) == ("fail", "limits.cap")
    assert case["message"].startswith("deal 3: the engine rejects a legal action; ")
    assert [p["rule"] for p in run.report["problems"]] == ["limits.cap"]
