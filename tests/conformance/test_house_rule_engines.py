"""The example engines of conformance/examples/house_rules.py: each declares a house rule (or an
action model) honestly and gets zero failures from check (on the cases of its rules) and from
fuzz at 2 to 6 players; each broken twin is caught under the rule it breaks. Kept cheap: a few
cases and games each."""

from __future__ import annotations

import pytest
from conformance_support import jobs_of, run_cases

from durak_spec.conformance.examples import house_rules
from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.problems import Evidence, find_problems
from durak_spec.conformance.runner import Selection, house_rule_options
from durak_spec.conformance.transport import make_adapter

MODULE = "python:durak_spec.conformance.examples.house_rules:"

# engine: (preset, cases that show its rule, the rules its broken twin is caught under by check)
CHECKED = {
    "LastAdderClockwiseEngine": ("podkidnoy", "throw_in/order_*", {"throw_in.order_last_adder_clockwise"}),
    "AttackerThenAnyEngine": ("podkidnoy", "throw_in/attacker_first*", {"throw_in.attacker_first"}),
    "PassWithdrawnEngine": ("podkidnoy", "throw_in/pass_*", {"throw_in.not_passed"}),
    "MinidurakPassWithdrawnEngine": ("podkidnoy", "throw_in/pass_*", {"throw_in.not_passed"}),
    "NoLastCardTransferEngine": ("perevodnoy", "transfer/last_card_*", {"transfer.last_card"}),
    "FiveBeforeFirstBeatEngine": ("two_packs", "limits/before_first_beat_*", {"limits.before_first_beat"}),
    "SkippedAtOnceEngine": ("perevodnoy", "transfer/*at_*", {"transfer.capacity", "transfer.next_defender"}),
    "NeighboursUnderTransfersEngine": ("podkidnoy", "throw_in/order_last_adder_clockwise_*", {"throw_in.who"}),
}
# action models: (preset, the rules fuzz catches the broken twin under)
FUZZED = {
    "IdleDoneEngine": ("podkidnoy", {"throw_in.order", "bout.pass"}),
    "NoPassSiegeEngine": ("podkidnoy", {"defence.take"}),
    "OneMoveSiegeEngine": ("podkidnoy", {"throw_in.timing", "throw_in.order"}),
    "MinidurakNoPassSiegeEngine": ("siege", {"throw_in.rank"}),
}
# clean engines whose broken twin is another's: (preset)
CLEAN = {"MinidurakNoPassSiegeDealsEngine": "siege"}


def _fuzz(spec, name, preset, tmp_path, games):
    """A campaign as durak fuzz plays it: under the house rules the engine declares (the same at
    every player count for these engines), at 2 to 6 players."""
    adapter = make_adapter(MODULE + name, spec=spec)
    hello = adapter.open()
    try:
        options = house_rule_options(spec, hello, preset, 2, {})
        assert all(house_rule_options(spec, hello, preset, n, {}) == options for n in range(3, 7))
        return fuzz(spec, adapter, hello, preset=preset, options=options, players=[2, 3, 4, 5, 6],
                    games=games, seed_value=1, out_dir=tmp_path / name, adapter_name=name,
                    shrink=False)
    finally:
        adapter.close()


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_a_house_rule_engine_passes_check_and_its_broken_twin_fails_under_the_rule(
        spec, shipped_suite, name):
    preset, pattern, rules = CHECKED[name]
    jobs = jobs_of(shipped_suite, Selection(cases=(pattern,)))
    clean = run_cases(spec, MODULE + name, jobs)
    assert [r for r in clean if r.status in ("fail", "error")] == []
    assert [r for r in clean if r.status == "pass"]
    twin, evidence = "Broken" + name, Evidence()
    results = run_cases(spec, MODULE + twin, jobs, evidence=evidence)
    broken = [r for r in results if r.status == "fail"]
    assert broken and {r.rule for r in broken} & rules, [(r.case, r.rule) for r in broken]
    # advice, where given, is what the twin really plays: never a value that hides its bug
    engine = getattr(house_rules, twin)()
    plays = engine.played({"preset": preset}) if hasattr(engine, "played") else engine.plays
    for problem in find_problems(results, evidence):
        advice = problem["advice"] or {}
        assert all(plays.get(k, "unset") == v for k, v in advice.items()), problem


@pytest.mark.parametrize("name", sorted(CHECKED) + sorted(FUZZED) + sorted(CLEAN))
def test_an_example_engine_gets_no_divergence_from_fuzz_at_two_to_six_players(spec, tmp_path, name):
    preset = CLEAN.get(name) or (CHECKED.get(name) or FUZZED[name])[0]
    res = _fuzz(spec, name, preset, tmp_path, games=5)
    assert res.games == 5 and res.entries == [], [e.signature for e in res.entries]


@pytest.mark.parametrize("name", sorted(FUZZED))
def test_fuzz_catches_the_broken_twin_of_an_action_model_under_the_rule(spec, tmp_path, name):
    preset, rules = FUZZED[name]
    res = _fuzz(spec, "Broken" + name, preset, tmp_path, games=10)
    assert {e.witness.rule for e in res.entries} & rules, [e.signature for e in res.entries]


def test_an_engine_without_a_pass_while_a_card_is_unbeaten_is_told_of_its_bug_only(spec, tmp_path):
    """minidurak under a siege with no pass while a card is unbeaten, adding cards of any rank:
    restarted from the reference's position after each divergence, it was told at every start
    that it 'omits 2 pass', a pass its model has no room for (the diagnosis compared its legal
    set with all of the reference's, thousands of times a campaign); now only of the ranks."""
    res = _fuzz(spec, "BrokenMinidurakNoPassSiegeEngine", "siege", tmp_path, games=3)
    assert res.entries and not [e.signature for e in res.entries if e.witness.kind == "legal-missing"]
    assert "legal-extra throw_in.rank" in {e.signature for e in res.entries}
