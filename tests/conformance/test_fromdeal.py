"""Mid-deal positions reached from a deal (conformance/fromdeal.py): the deal and prefix found
replay to the very position, positions no history reaches are named unreachable under the option
value that makes them so, and an engine that can only deal runs position cases from the deal (and
is caught when it breaks a rule there)."""

from __future__ import annotations

from dataclasses import replace

import conformance_support
from conformance_support import declaring

from durak_spec.conformance import fromdeal, runner
from durak_spec.conformance import fuzz as fuzz_module
from durak_spec.conformance.cases import parse_case
from durak_spec.conformance.coverage import summary
from durak_spec.conformance.examples.broken_throw_in_rank import ThrowInAnyRank
from durak_spec.conformance.examples.deal_only import DealOnlyEngine
from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.lockstep import Lockstep
from durak_spec.conformance.runner import Session, would_help
from durak_spec.conformance.transport import make_adapter
from durak_spec.tools.lint.cases import from_deal_problem

TALON = ["QS", "6D", "7D", "8S", "9H", "TD", "JS", "QC", "KC", "KD", "AC", "AD", "6H"]
COVERED = {"hands": [["TC", "6C", "9C"], ["JC", "QD", "KS", "AS"]], "talon": TALON, "trump": "6H",
           "attacker": 0, "defender": 1,
           "table": [["6S", "7S"], ["7C", "8C"], ["8D", "9D"], ["9S", None]]}
# four unbeaten sixes: laid together only where cards may be added while others are unanswered
SIX_TALON = ["QS", "7D", "8S", "9H", "TD", "JS", "QC", "KC", "KD", "AC", "AD", "8H"]
SIXES = {"hands": [["TC", "7C"], ["JC", "QD", "KS", "AS"]], "talon": SIX_TALON, "trump": "8H",
         "attacker": 0, "defender": 1,
         "table": [["6S", None], ["6C", None], ["6D", None], ["7S", None]]}
FOUR_SIXES = {**SIXES, "table": [["6S", None], ["6C", None], ["6D", None], ["6H", None]]}


def test_a_position_is_reached_from_a_deal_and_the_answer_replays_to_it(spec):
    rs = spec.ruleset("podkidnoy", {})
    reached = fromdeal.reach(rs, COVERED)
    assert reached.status == "found", reached.why
    assert not set(reached.setup) & {"table", "defender", "taking", "passed", "bout"}
    assert len(reached.prefix) == 7 and reached.prefix[0] == "0 attack 6S"
    assert fromdeal.check(rs, COVERED, reached) is None
    # a prefix one action short is caught by the replay
    short = replace(reached, prefix=reached.prefix[:-1])
    assert "ends elsewhere" in fromdeal.check(rs, COVERED, short)


def test_cards_no_order_of_play_can_lay_are_unreachable_with_the_rule(spec):
    rs = spec.ruleset("podkidnoy", {"pile_on": "any_time"})
    reached = fromdeal.reach(rs, SIXES)
    assert reached.status == "unreachable" and reached.rule == "throw_in.rank", reached.why
    assert fromdeal.reach(rs, FOUR_SIXES).status == "found"
    one = spec.ruleset("podkidnoy", {"pile_on": "one_at_a_time"})
    assert fromdeal.reach(one, FOUR_SIXES).status == "unreachable"


def test_under_transfers_covers_by_an_earlier_defender_are_searched_so_a_failure_proves(spec):
    # a transfer or a shown card moves the defence on: any seat may have covered a card before
    rs = spec.ruleset("perevodnoy", {"pile_on": "any_time"})
    reached = fromdeal.reach(rs, SIXES)
    assert reached.status == "unreachable" and reached.rule == "throw_in.rank", reached.why
    assert fromdeal.reach(rs, FOUR_SIXES).status == "found"


def test_a_position_without_its_bout_is_proved_unreachable_in_later_bouts_too(spec):
    # seat 2 opening against seat 1 of three: no bout, first or later, pairs them so
    rs = spec.ruleset("podkidnoy", {})
    position = {"hands": [["9D", "TD"], ["7D", "JD"], ["6S", "7S"]], "talon": ["AS", "AC", "QS"],
                "trump": "QS", "attacker": 2, "defender": 1, "table": [["9H", "TH"]]}
    reached = fromdeal.reach(rs, position)
    assert reached.status == "unreachable" and reached.rule == "start.first_defender", reached.why
    # where the first bout alone is barred (no transfer in it), later bouts are laid too
    online = spec.ruleset("perevodnoy_online", {})
    sixes = {**FOUR_SIXES, "table": [["6S", None], ["6C", None]]}
    assert fromdeal.reach(online, sixes).status == "found"


def _case(spec, setup, steps, options=None):
    data = {"id": "limits/from_deal_probe", "description": "probe", "rules": ["limits.first_bout"],
            "variants": ["podkidnoy"], "options": options or {}, "setup": setup, "steps": steps}
    return parse_case(data, spec)


def _session(spec, name, base=None, **hello):
    engine = declaring(base or DealOnlyEngine, "Probe", **hello)
    setattr(conformance_support, name, engine)
    session = Session(spec, make_adapter(f"python:conformance_support:{name}", 5.0, spec),
                      check_cases=True)
    session.open()
    return session


def test_an_engine_that_can_only_deal_runs_a_position_case_and_is_caught_there(spec):
    steps = [{"do": "1 cover 9S with KS"}, {"do": "0 throw TC", "expect": "reject",
                                             "rule": "throw_in.rank"}, {"do": "0 throw 9C"}]
    case = _case(spec, COVERED, steps)
    session = _session(spec, "ProbeDealOnly")
    try:
        res = session.run_case(case, "podkidnoy")
    finally:
        session.close()
    assert res.status == "pass" and res.from_deal == 7, res.message
    assert "reached from a deal: 7 action(s)" in res.description
    # the same engine throwing in any rank, dealing only, is caught at the case's own step
    session = _session(spec, "ProbeAnyRank", ThrowInAnyRank, positions=False)
    try:
        res = session.run_case(case, "podkidnoy")
    finally:
        session.close()
    assert res.status == "fail" and res.step == 7 + 1 and res.rule == "throw_in.rank", res.message


def test_a_position_unreachable_under_the_engines_house_rule_is_never_sent(spec):
    case = _case(spec, FOUR_SIXES, [{"do": "1 take"}], options={"pile_on": "any_time"})
    for positions in (True, False):
        session = _session(spec, f"ProbeOneAtATime{positions}", positions=positions,
                           options={"pile_on": ["one_at_a_time"]})
        try:
            res = session.run_case(case, "podkidnoy")
        finally:
            session.close()
        assert res.status == "skip" and "unreachable under pile_on = one_at_a_time" in res.message, \
            res.message
        assert res.would_help == ""


def test_skips_say_which_declaration_would_run_them(spec, monkeypatch):
    case = _case(spec, COVERED, [{"do": "1 cover 9S with KS"}])
    session = _session(spec, "ProbeTwoOnly", players=[3])
    try:
        res = session.run_case(case, "podkidnoy")
    finally:
        session.close()
    assert res.status == "skip" and res.would_help == "declare players 2"
    # a search that gives up (here at a bound of 5 states) proves nothing: positions would run it
    monkeypatch.setattr(fromdeal, "NODES", 5)
    monkeypatch.setattr(runner, "REACHED", {})
    session = _session(spec, "ProbeDealsOnly3")
    try:
        deal_only = session.run_case(_case(spec, COVERED, [{"do": "1 cover 9S with KS"}]),
                                     "perevodnoy")
    finally:
        session.close()
    assert deal_only.status == "skip" and deal_only.would_help == "declare positions", \
        deal_only.message
    assert "that proves nothing, as the search stopped at its bound of 5 states" in \
        deal_only.message
    assert would_help([res, deal_only, deal_only]) == [("declare positions", 2),
                                                      ("declare players 2", 1)]


def test_lint_flags_an_unreachable_position_and_a_from_deal_block_that_does_not_reach(spec):
    rs = spec.ruleset("podkidnoy", {})
    good = fromdeal.reach(rs, COVERED, ["1 cover 9S with KS"]).to_json()
    short = {**good, "prefix": good["prefix"][:-1]}
    problems = {}
    for name, block in (("good", {"podkidnoy": good}), ("short", {"podkidnoy": short}),
                        ("missing", None)):
        case = _case(spec, COVERED, [{"do": "1 cover 9S with KS"}])
        if block is not None:
            case.data["from_deal"] = block
        problems[name] = from_deal_problem(spec, case, "podkidnoy")
    assert problems["good"] is None
    assert "do not reach the position" in problems["short"]
    assert problems["missing"].startswith("missing")
    # the reference engine as lint runs it: an unreachable position is a skip, which lint lists
    session = Session(spec, make_adapter("reference", spec=spec), adapter_name="reference")
    session.open()
    try:
        res = session.run_case(_case(spec, SIXES, [{"do": "1 take"}], {"pile_on": "any_time"}),
                               "podkidnoy")
    finally:
        session.close()
    assert res.status == "skip" and "unreachable" in res.message and "throw_in.rank" in res.message


def test_fuzz_without_positions_starts_boundary_seeds_from_the_deals_that_reach_them(spec,
                                                                                     tmp_path,
                                                                                     monkeypatch):
    started = []
    play = Lockstep.play

    def recording(self, setup, rng, fixed=None, **kw):
        started.append((setup.is_position, list(fixed or [])))
        return play(self, setup, rng, fixed=fixed, **kw)
    monkeypatch.setattr(Lockstep, "play", recording)
    monkeypatch.setattr(fuzz_module, "SEED_EVERY", 2)  # every other game from a boundary seed
    name = "python:durak_spec.conformance.examples.deal_only:DealOnlyEngine"
    adapter = make_adapter(name, spec=spec)
    hello = adapter.open()
    try:
        result = fuzz(spec, adapter, hello, preset="podkidnoy", players=[2], games=6,
                      out_dir=tmp_path, adapter_name=name, diagnosis=0)
    finally:
        adapter.close()
    assert not result.entries
    seeded = [actions for is_position, actions in started if actions]
    assert seeded and not any(is_position for is_position, _ in started)
    # a seed is a deal, then the prefix that reaches the boundary position, then its action
    assert all(len(actions) > 1 for actions in seeded)


def _deal_only_coverage(spec, tmp_path, preset: str) -> tuple:
    name = "python:durak_spec.conformance.examples.deal_only:DealOnlyEngine"
    adapter = make_adapter(name, spec=spec)
    hello = adapter.open()
    assert hello["positions"] is False
    try:
        result = fuzz(spec, adapter, hello, preset=preset, players=[2, 4], games=20,
                      out_dir=tmp_path / preset, adapter_name=name, diagnosis=0)
    finally:
        adapter.close()
    assert not result.entries
    return summary(result.coverage)


def test_fuzz_without_positions_meets_the_rule_coverage_targets_at_two_and_four_players(
        spec, tmp_path, monkeypatch):
    # every side of a legality clause that can decide (a boundary case exists for it at 2 or 4
    # players) is exercised by an engine that can only deal, transfers included
    for preset, least in (("podkidnoy", 15), ("perevodnoy", 35)):
        done, total, missing = _deal_only_coverage(spec, tmp_path, preset)
        assert total >= least and done == total, missing
    # the boundary seeds reached from deals are what gets there: without them a side is missed
    monkeypatch.setattr(fromdeal, "reach", lambda *a, **k: fromdeal.Reached("not_found"))
    done, total, missing = _deal_only_coverage(spec, tmp_path / "unseeded", "perevodnoy")
    assert done < total, "every side exercised without a boundary seed: the check proves nothing"
