"""Cases run under the variant the engine plays: declared house rules (per player count too) and
--option are tested, with expectations re-derived by the reference, never skipped wholesale; a run
that tested too little exits 3 with its skip reasons grouped and counted."""

from __future__ import annotations

import pytest
from conformance_support import FIXTURE_CASES, jobs_of, run_cases

from durak_spec.conformance.runner import (
    Selection,
    Session,
    declared_options,
    skip_reasons,
)
from durak_spec.conformance.runner import (
    tested_too_little as too_little,
)
from durak_spec.conformance.transport import make_adapter

SUPPORT = "python:conformance_support:"


def by_key(results) -> dict:
    return {(r.case, r.variant): r for r in results}


def test_an_engine_honest_about_its_draw_order_is_tested_not_skipped(spec, shipped_suite):
    # the draw cases but those of who adds cards and ends the adding (draw/
    # order_clockwise_not_join_order_one_done plays free_for_all and done_by main_attacker: its
    # script is no game of an engine that plays neither)
    jobs = [(c, v) for c, v in jobs_of(shipped_suite, Selection(areas=("draw",)))
            if not {"thrower_order", "done_by"} & set(c.options)]
    honest = by_key(run_cases(spec, SUPPORT + "HonestCounterclockwise", jobs))
    # the same engine without the declaration fails, and the failures name the rule and the option
    plain = run_cases(spec, "python:durak_spec.conformance.examples.mutants:draw_counterclockwise", jobs)
    failures = [r for r in plain if r.status == "fail"]
    assert failures and {r.rule for r in failures} == {"draw.order"}
    assert all(r.diagnosis["as_if"][0] == {"draw_order": "attacker_counterclockwise_defender_last"}
               for r in failures)
    assert "plays as if `draw_order = attacker_counterclockwise_defender_last`" in failures[0].message
    # declared, every case runs under its variant and passes: none is skipped
    assert {r.status for r in honest.values()} == {"pass"}, \
        [(k, r.status, r.message) for k, r in honest.items() if r.status != "pass"]
    assert len(honest) == len(jobs)
    rederived = [r for r in honest.values() if r.rederived]
    assert {(r.case, r.variant) for r in failures} <= {(r.case, r.variant) for r in rederived}
    ccw = "attacker_counterclockwise_defender_last"  # a variant drawing so already needs no option
    plain = {(c.id, v) for c, v in jobs if not c.options and spec.ruleset(v).options["draw_order"] != ccw}
    assert plain and all(r.engine_options == {"draw_order": ccw}
                         for k, r in honest.items() if k in plain)


def test_house_rules_per_player_count_hold_only_at_those_counts(spec, shipped_suite):
    jobs = jobs_of(shipped_suite, Selection(cases=("start/*",)))
    assert {c.players for c, _ in jobs} >= {2, 3}
    undeclared = run_cases(spec, SUPPORT + "LeftOfDealerAtTwo", jobs)
    failing = {r.case for r in undeclared if r.status == "fail"}
    assert failing and all(c.players == 2 for c, _ in jobs if c.id in failing)
    assert {r.rule for r in undeclared if r.status == "fail"} == {"start.lowest_trump"}
    declared = run_cases(spec, SUPPORT + "LeftOfDealerAtTwoDeclared", jobs)
    assert not [r for r in declared if r.status not in ("pass", "skip")]
    for (case, _), r in zip(jobs, declared):
        two = case.players == 2 and case.options.get("first_attacker") != "left_of_dealer"
        assert bool(r.engine_options) == two, (case.id, r.engine_options)
        if r.status == "skip":  # its script needs another first attacker: said so, with the rule
            assert two and "first_attacker = left_of_dealer instead of lowest_trump" in r.message
            assert "attack.opener" in r.message
    ran_at_two = [r for (case, _), r in zip(jobs, declared) if case.players == 2 and r.status == "pass"]
    assert ran_at_two and all(r.engine_options for r in ran_at_two if r.case != "start/left_of_dealer_two_players")


def test_house_rules_per_preset_hold_only_under_that_preset_in_check_and_in_fuzz(spec, shipped_suite,
                                                                                tmp_path):
    hello = {"options": "any", "house_rules": [
        {"presets": ["perevodnoy"], "options": {"throwers": ["neighbours"]}},
        {"presets": ["perevodnoy"], "players": [2], "options": {"hand_size": [7]}}]}
    assert declared_options(hello, 3, "perevodnoy") == (True, {"throwers": ["neighbours"]})
    assert declared_options(hello, 2, "perevodnoy")[1] == {"throwers": ["neighbours"], "hand_size": [7]}
    assert declared_options(hello, 3, "podkidnoy") == (True, {})
    jobs = jobs_of(shipped_suite, Selection(areas=("throw_in",)))
    jobs = [(c, v) for c, v in jobs if v in ("podkidnoy", "perevodnoy") and c.players >= 4]
    assert {v for _, v in jobs} == {"podkidnoy", "perevodnoy"}
    undeclared = run_cases(spec, SUPPORT + "NeighboursWithTransfers", jobs)
    failing = [r for r in undeclared if r.status == "fail"]
    assert failing and {r.variant for r in failing} == {"perevodnoy"}
    declared = run_cases(spec, SUPPORT + "NeighboursWithTransfersDeclared", jobs)
    assert [r for r in declared if r.status == "fail"] == []
    assert all(bool(r.engine_options) == (r.variant == "perevodnoy") for r in declared
               if r.status == "pass" and not case_of(jobs, r).options)
    # fuzz reads the declaration the same way: under perevodnoy it plays neighbours, and agrees
    from durak_spec.tools.fuzz import fuzz_one
    for preset in ("perevodnoy", "podkidnoy"):
        res, _, fixed = fuzz_one(None, SUPPORT + "NeighboursWithTransfersDeclared", preset, {}, [4],
                                 4, 1, tmp_path, 5.0, False, {}, None)
        assert res.games == 4 and res.entries == [], [e.signature for e in res.entries]
        assert (fixed.get("throwers") == "neighbours") == (preset == "perevodnoy")
    res, _, _ = fuzz_one(None, SUPPORT + "NeighboursWithTransfers", "perevodnoy", {}, [4], 6, 1,
                         tmp_path, 5.0, False, {}, None)
    assert res.entries  # undeclared, the same engine diverges under perevodnoy


def case_of(jobs, result):
    return next(c for c, v in jobs if c.id == result.case and v == result.variant)


def test_the_engine_variant_resolves_case_then_declared_house_rules_then_option(spec, shipped_suite):
    case = next(c for c in shipped_suite.cases if c.players == 2 and "perevodnoy" in c.variants)
    adapter = make_adapter(SUPPORT + "NoTransfers", spec=spec)
    session = Session(spec, adapter, options={"hand_size": 5})
    session.open()
    resolved = session.ruleset(case, "perevodnoy").options
    preset, values = session.engine_variant(case, "perevodnoy", resolved)
    assert preset == "podkidnoy"  # the engine's preset nearest the case's
    assert values["transfer"] is False and values["hand_size"] == 5
    assert values["first_bout_max"] == resolved["first_bout_max"]  # listed, so the case's stands
    hello = {"options": "any", "house_rules": [{"players": [2], "options": {"hand_size": [7]}}]}
    assert declared_options(hello, 2) == (True, {"hand_size": [7]})
    assert declared_options(hello, 3) == (True, {})


def test_a_step_illegal_under_the_engine_variant_skips_naming_step_rule_and_options(check):
    run = check("--cases-dir", FIXTURE_CASES, "--adapter", SUPPORT + "NoTransfers",
                "--area", "transfer")
    skipped = [c for c in run.report["cases"] if c["status"] == "skip"]
    assert skipped, run.output
    for c in skipped:
        assert "transfer.allowed" in c["message"] and "transfer = false instead of true" in c["message"]
        assert "None" not in c["message"] and "True" not in c["message"]
    # the rejection the other case probes still runs, re-derived: rejected by transfer.allowed
    ran = [c for c in run.report["cases"] if c["status"] == "pass"]
    assert ran and all(c["rederived"] for c in ran)


def test_a_mostly_skipped_run_exits_3_with_the_reasons_grouped_and_counted(check):
    run = check("--cases-dir", FIXTURE_CASES, "--adapter", SUPPORT + "SixPlayersOnly")
    assert run.exit_code == 3, run.output
    assert "TESTED TOO LITTLE" in run.output and "exit code 3" in run.output
    report = run.report
    skips = report["summary"]["skip"]
    assert skips * 2 > len(report["cases"]) and report["tested_too_little"]
    assert sum(g["count"] for g in report["skip_reasons"]) == skips
    assert "skipped, by reason:" in run.output
    for group in report["skip_reasons"]:
        assert f"{group['count']:5}  {group['reason']}" in run.output.replace("\n", " ") or \
            group["reason"][:40] in run.output


def test_a_run_that_tests_nothing_is_never_green(check, tmp_path):
    empty = tmp_path / "cases"
    empty.mkdir()
    run = check("--cases-dir", empty)
    assert run.exit_code == 2 and "holds no case files" in run.output
    assert check("--cases-dir", FIXTURE_CASES, "--case", "no_such/*").exit_code == 2
    assert too_little([]) and skip_reasons([]) == []


def test_option_runs_every_case_under_it_and_bad_values_are_usage_errors(check):
    broken = "python:durak_spec.conformance.examples.broken_no_cap:NoAttackCap"
    plain = check("--cases-dir", FIXTURE_CASES, "--adapter", broken, "--rule", "limits.cap")
    assert plain.exit_code == 1
    run = check("--cases-dir", FIXTURE_CASES, "--adapter", broken, "--rule", "limits.cap",
                "--option", "max_attack_cards=null")
    assert run.exit_code == 0, run.output
    assert all(c["engine_options"] == {"max_attack_cards": None} for c in run.report["cases"])
    assert any(c["rederived"] for c in run.report["cases"])
    assert "--option max_attack_cards=null" in run.report["cases"][0]["reproduce"]
    bad = check("--cases-dir", FIXTURE_CASES, "--option", "max_attack_cards=3")
    assert bad.exit_code == 2 and "allowed values" in bad.output
    unknown = check("--cases-dir", FIXTURE_CASES, "--option", "no_such_option=1")
    assert unknown.exit_code == 2 and "unknown option" in unknown.output


@pytest.mark.parametrize("players", [2, 3])
def test_players_selects_cases_by_table_size(check, fixture_suite, players):
    run = check("--cases-dir", FIXTURE_CASES, "--players", players)
    want = {(c.id, v) for c, v in jobs_of(fixture_suite, Selection(players=(players,)))}
    assert want and set(run.statuses()) == want


def test_a_mostly_skipped_run_with_failures_says_the_failures_decide_the_exit_code(spec):
    """Failures come before 'tested too little': the summary must not promise exit code 3."""
    from dataclasses import replace

    from rich.console import Console

    from durak_spec.tools.check import _exit_code, _print_summary, run_suite

    results, meta, suite = run_suite(spec, SUPPORT + "SixPlayersOnly", Selection(),
                                     cases_dir=str(FIXTURE_CASES))
    assert meta["tested_too_little"] and _exit_code(results, meta, suite) == 3
    ran = next((i for i, r in enumerate(results) if r.status != "skip"), 0)
    results[ran] = replace(results[ran], status="fail")
    console = Console(record=True, width=200)
    _print_summary(console, results, meta, suite)
    text = console.export_text()
    assert "TESTED TOO LITTLE" in text and "exit code 3" not in text
    assert "the failures above decide the exit code (1)" in text
    assert _exit_code(results, meta, suite) == 1


def test_cases_dealt_from_a_deck_the_engine_does_not_hold_are_skipped_saying_so(spec, shipped_suite):
    jobs = [(c, v) for c, v in jobs_of(shipped_suite, Selection(variants=("full_deck_jokers",)))
            if not c.id.startswith("golden/")]
    results = run_cases(spec, SUPPORT + "ThirtySixCards", jobs)
    # positions no history reaches are never sent, whatever the deck (conformance/fromdeal.py)
    skipped = [r for r in results if r.status == "skip" and "unreachable" not in r.skip_reason]
    assert skipped and {r.status for r in results} <= {"pass", "skip"}
    for r in skipped:
        assert "does not hold the case's card(s)" in r.message and "deck_cards = 36 instead of 52" in r.message
    assert {reason for reason, _ in skip_reasons(skipped)} == \
        {"the setup cannot be played: the engine plays deck_cards = 36 instead of 52, jokers = none "
         "instead of beat_colour"}


NAMED_SUIT_WITHOUT_WELI = {  # the case play/named_suit_not_in_variant, retired for this reason
    "id": "play/named_suit_not_in_variant", "description": "a six played as a named suit",
    "rules": ["play.named_suit"], "variants": ["podkidnoy"],
    "setup": {"hands": [["6D", "8S", "TD", "QS", "KC", "AD"], ["7S", "9C", "JD", "QH", "KS", "AC"]],
              "talon": ["7C", "8D", "9S", "7H"], "trump": "7H", "attacker": 0},
    "steps": [{"do": "0 attack 6D=H", "expect": "reject", "rule": "play.named_suit"}]}


def test_the_welis_named_suits_go_only_to_engines_of_protocol_1_1_whose_variant_has_the_weli(
        spec, shipped_suite):
    from durak_spec.conformance.cases import parse_case
    from durak_spec.conformance.lockstep import Lockstep
    from durak_spec.reference_impl.game import Game, Setup

    jobs = [(c, v) for c, v in jobs_of(shipped_suite, Selection(cases=("play/*",)))
            if any("=" in s.action for s in c.steps)]
    assert jobs and {v for _, v in jobs} == {"weli"}  # no shipped case sends one elsewhere
    assert {r.status for r in run_cases(spec, "reference", jobs)} == {"pass"}
    old = run_cases(spec, SUPPORT + "VersionOneNotation", jobs)
    assert {(r.status, r.skip_reason, r.would_help) for r in old} == {
        ("skip", "a card played as a named suit (the Weli's notation, protocol 1.1) to an engine "
                 "of protocol 1", "declare protocol 1.1")}
    case = parse_case(NAMED_SUIT_WITHOUT_WELI, spec)
    [elsewhere] = run_cases(spec, "reference", [(case, "podkidnoy")])
    assert (elsewhere.status, elsewhere.message) == (
        "skip", "a card played as a named suit (the Weli's notation) under a variant without the Weli")
    # fuzz probes and plays named suits only for an engine of protocol 1.1 under the Weli
    hello = {"protocol": "1.1", "levels": ["verdicts"]}
    weli, weli_v1 = (Lockstep(spec, None, h, "weli", {}) for h in (hello, {**hello, "protocol": "1"}))
    assert weli.named_suits and not weli_v1.named_suits
    assert not Lockstep(spec, None, hello, "podkidnoy", {}).named_suits
    game = Game(weli.ruleset, Setup.from_json(jobs[0][0].setup, weli.ruleset.deck))
    named = [a for a in weli._sendable(game) if a.card is not None and a.card.real is not a.card]
    assert named and not set(named) & set(weli_v1._sendable(game))
