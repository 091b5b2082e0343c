"""The example engines of conformance/examples/house_rules.py: each declares a house rule (or an
action model) honestly and gets zero failures from check (on the cases of its rules) and from
fuzz at 2 to 6 players; each broken twin is caught under the rule it breaks. Kept cheap: a few
cases and games each."""

from __future__ import annotations

import json
import random

import pytest
from conformance_support import ANSWER_TIMEOUT, jobs_of, run_cases

from durak_spec.conformance import lockstep
from durak_spec.conformance.examples import house_rules
from durak_spec.conformance.fuzz import Campaign, Entry, campaign_key, fuzz, open_database
from durak_spec.conformance.lockstep import Divergence, Lockstep
from durak_spec.conformance.problems import Evidence, find_problems
from durak_spec.conformance.runner import Selection, house_rule_options
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.game import Game, Setup

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
    # podkidnoy's golden games: a case of one order rule had the twin refuse one card of a
    # defence card's rank from a seat that is not a neighbour, which a rank rule, two teams and
    # neighbours explain alike; whole games tell them apart
    "NeighboursUnderTransfersEngine": ("podkidnoy", "golden/podkidnoy/*", {"throw_in.who"}),
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
    adapter = make_adapter(MODULE + name, spec=spec, timeout=ANSWER_TIMEOUT)
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


PASS_KEPT = ({"hands": [["JH", "JC", "QD", "7S", "8S", "9C"], ["QH", "6C", "7C", "8C", "9S", "TS"],
                        ["JS", "JD", "6D", "7D", "8D", "AS"]],
              "talon": ["6H", "7H", "8H", "9H", "TH", "AH"], "trump": "AH", "attacker": 0},
             ["0 attack JH", "1 cover JH with QH", "0 throw JC", "1 take", "0 pass", "2 throw JS"])


def _lockstep(spec, name: str, preset: str):
    adapter = make_adapter(MODULE + name, spec=spec)
    hello = adapter.open()
    found = []
    lock = Lockstep(spec, adapter, hello, preset, house_rule_options(spec, hello, preset, 3, {}),
                    found.append)
    return lock, adapter, found


def test_fuzz_names_a_pass_kept_after_another_players_card_by_the_pass_rule(spec):
    """The broken pass-withdrawn twin keeps 0's pass after 2's card: fuzz's attribution names
    throw_in.not_passed, as check does (it named throw_in.rank, 129 times in 200 games)."""
    lock, adapter, found = _lockstep(spec, "BrokenPassWithdrawnEngine", "podkidnoy")
    try:
        setup = Setup.from_json(PASS_KEPT[0], lock.ruleset.deck, lock.ruleset.player_limits)
        lock.play(setup, random.Random(0), fixed=PASS_KEPT[1])
    finally:
        adapter.close()
    assert {d.signature for d in found} == {"legal-extra throw_in.not_passed",
                                            "legal-missing throw_in.not_passed"}


def test_a_sampled_attribution_reports_the_actions_of_its_own_occurrence(spec, monkeypatch):
    """Attribution is sampled per kind of difference; an occurrence that reuses an earlier rule
    still names its own actions (the message quoted another occurrence's)."""
    monkeypatch.setattr(lockstep, "SAMPLE", 0)  # the third occurrence reuses the second's rule
    lock, adapter, found = _lockstep(spec, "BrokenPassWithdrawnEngine", "podkidnoy")
    adapter.close()
    rs = lock.ruleset
    setup = Setup.from_json(PASS_KEPT[0], rs.deck, rs.player_limits)
    game = Game(rs, setup)
    steps = [{"do": t, "expect": "accept"} for t in PASS_KEPT[1]]
    for t in PASS_KEPT[1]:
        game.apply_action(game.parse_action(t))
    want = {"0 pass", "0 throw QD"}
    for have in (["2 pass", "2 throw JD"], ["2 pass", "2 throw JD"], ["2 pass", "2 throw JD", "0 throw QD"]):
        lock._check_legal(game, want, have, lockstep._Segment(setup), steps)
    assert [d.message.split(":")[1].split(" (")[0] for d in found[-2:]] == [
        " the engine lists 2 pass, 2 throw JD", " the engine omits 0 pass"]


def test_a_saved_witness_with_a_pass_the_model_has_no_room_for_is_replayed_without_it(spec, tmp_path):
    """A witness saved before the engine declared pass_while_unbeaten false (its passes made
    while a card was unbeaten) is replayed without them, as check leaves them out of a case:
    it was a false 'the engine rejects 0 pass'."""
    name = "MinidurakNoPassSiegeEngine"
    setup = {"hands": [["9C", "7C", "8S"], ["9S", "TS", "JS"], ["TD", "8D", "QS"]],
             "talon": ["QH", "KH", "AH"], "trump": "AH", "dealer": 2, "attacker": 1}
    steps = [{"do": "1 attack 9S", "expect": "accept"}, {"do": "0 pass", "expect": "accept"},
             {"do": "2 cover 9S with QS", "expect": "accept"}]
    db = open_database(str(tmp_path / "db"), tmp_path)
    db.save(campaign_key(name, "siege", {}), json.dumps(
        {"signature": "verdict-rejects bout.pass", "players": 3, "setup": setup, "steps": steps},
        sort_keys=True).encode())
    adapter = make_adapter(MODULE + name, spec=spec)
    hello = adapter.open()
    try:
        res = fuzz(spec, adapter, hello, preset="siege", options={}, players=[3], games=1,
                   seed_value=1, out_dir=tmp_path, adapter_name=name, shrink=False,
                   database=str(tmp_path / "db"))
    finally:
        adapter.close()
    assert res.replayed == 1 and res.entries == [], [e.signature for e in res.entries]


def test_check_names_the_rule_of_a_legal_set_difference_of_an_engine_with_an_action_model(
        spec, shipped_suite):
    """check kept no legal set of an engine with an action model for the diagnosis (its sets
    leave out what the model cannot express), so the extra cards of the siege twin were 'no
    rule'; the sets are now completed as fuzz completes them."""
    jobs = jobs_of(shipped_suite, Selection(cases=("throw_in/after_take_order",)))[:2]
    results = run_cases(spec, MODULE + "BrokenMinidurakNoPassSiegeEngine", jobs)
    failures = [r for r in results if r.status == "fail"]
    assert failures and {r.rule for r in failures} == {"throw_in.rank"}, [(r.case, r.rule) for r in failures]


def test_fuzz_names_the_rule_that_reads_the_option_a_witness_is_explained_by(spec):
    """The minidurak pass-withdrawn twin keeps 2's pass after 1's card: one step alone reads as
    well as a limit one card short (the third card refused with three in the defender's hand),
    which fuzz's sampled attribution named (81 of 300 occurrences, limits.hand_at_start); the
    diagnosis of the witness finds pass_withdrawn_by = beat_or_take, and the rule that reads it
    decides, as check names it."""
    adapter = make_adapter(MODULE + "BrokenMinidurakPassWithdrawnEngine", spec=spec)
    hello = adapter.open()
    try:
        options = house_rule_options(spec, hello, "podkidnoy", 3, {})
        camp = Campaign(spec, adapter, hello, preset="podkidnoy", options=options, players=[3],
                        seed_value=1, adapter_name="twin", known={}, db=None, db_key=b"")
        setup = {"hands": [["TC", "6D", "7D", "JD", "QH", "AH"], ["8S", "JS", "QS", "AS", "6C", "KD"],
                           ["7C", "9C", "JC", "TD", "QD", "JH"]],
                 "talon": ["AD", "KC", "QC", "7S", "7H", "6S", "8C", "TH", "KH", "KS", "TS", "9D",
                           "AC", "9H", "9S", "8D", "8H", "6H"], "trump": "6H", "dealer": 2}
        steps = [{"do": t, "expect": "accept"}
                 for t in ("2 attack TD", "0 cover TD with QH", "2 pass", "1 throw QS")]
        have = ["0 cover QS with AH", "0 take"]
        entry = Entry(Divergence("legal-missing", "limits.hand_at_start", "pass", "2 pass",
                                 have + ["2 pass", "2 throw QD"], have, "", setup, steps, 3))
        camp.diagnose(entry, 30.0)
    finally:
        adapter.close()
    assert entry.witness.rule == "throw_in.not_passed"
    assert entry.as_if[0] == {"pass_withdrawn_by": "beat_or_take"}


def _found(spec, name: str, preset: str, players: int, setup: dict, fixed: list) -> list:
    """The divergences lockstep finds playing `fixed` from `setup` with engine `name`."""
    adapter = make_adapter(MODULE + name, spec=spec)
    hello = adapter.open()
    found = []
    try:
        lock = Lockstep(spec, adapter, hello, preset,
                        house_rule_options(spec, hello, preset, players, {}), found.append)
        lock.play(Setup.from_json(setup, lock.ruleset.deck, lock.ruleset.player_limits),
                  random.Random(0), fixed=fixed)
    finally:
        adapter.close()
    return [d.signature for d in found]


def test_a_take_refused_until_a_card_is_beaten_is_the_take_rule(spec):
    """The broken no-pass siege twin refuses a take while every card is unbeaten. No one-place
    change says that: forbidding every take is refuted by the take it allowed before, so fuzz fell
    back on the first rule of the kind (play.active_seat, 2,810 of 3,138 occurrences at 4
    players); where the take was all the reference allowed, every take rule's clause made false
    explained it and the first in the spec won. Now the change that explains the step alone
    names the rule, and of changes as small the rule of fewer kinds of action wins."""
    deal = {"hands": [["6S", "TS", "8C", "TC", "AC", "TD"], ["AS", "JC", "7D", "KD", "8H", "TH"],
                      ["KC", "9D", "QD", "6H", "QH", "AH"], ["8S", "JS", "KS", "QC", "7H", "JH"]],
            "talon": ["6C", "KH", "QS", "7S", "9H", "6D", "9S", "JD", "7C", "9C", "AD", "8D"],
            "trump": "8D", "dealer": 3}
    steps = ["1 attack KD", "3 throw KS", "2 cover KS with 9D", "2 take", "3 attack 7H"]
    assert set(_found(spec, "BrokenNoPassSiegeEngine", "podkidnoy", 4, deal, steps)) == {
        "legal-missing defence.take"}
    only_take = {"hands": [["9S", "KS", "9C", "KC", "9D", "9H", "TH", "KH"], [], ["JS"],
                           ["6S", "7S", "QS", "6C", "7C", "QC", "6H", "7H"]],
                 "talon": [], "trump": "8D", "dealer": 3, "attacker": 1, "table": [["AH", None]],
                 "defender": 2, "bout": 18, "beaten_bouts": 6, "discard": 18}
    assert _found(spec, "BrokenNoPassSiegeEngine", "podkidnoy", 4, only_take, []) == [
        "legal-missing defence.take"]


def test_cards_withheld_from_a_player_the_house_rule_leaves_out_are_who_may_add(spec):
    """The broken neighbours twin plays throwers neighbours under podkidnoy too: seat 3, not the
    defender's neighbour, may not add. Under podkidnoy's own value the rule's clause reads no
    other player, so only an option value set otherwise says it (a one-place change now); a
    change of the timing rule, forbidding every card once one is covered, named it before
    (throw_in.timing, and throw_in.rank, in fuzz)."""
    position = {"hands": [["8C", "QC", "7H", "8H"], ["TS", "7C", "7D"], ["8S", "9S", "QS", "9C"],
                          ["7S", "KS", "6C", "JC", "KC", "AC"],
                          ["6S", "AS", "6D", "8D", "9D", "TD", "JD", "QD", "AD", "6H", "9H", "QH"]],
                "talon": [], "trump": "8H", "dealer": 4, "attacker": 0, "defender": 1, "bout": 2,
                "table": [["TC", "KH"], ["TH", "JH"], ["JS", None], ["KD", "AH"]], "discard": 0}
    assert _found(spec, "BrokenNeighboursUnderTransfersEngine", "podkidnoy", 5, position, []) == [
        "legal-missing throw_in.who"]


def test_check_names_the_opener_held_back_under_a_siege_by_the_timing_rule(spec, shipped_suite):
    """The broken one-move siege twin lets no card of the opener's on before the opening is
    answered; at two players the opener alone may add, yet may still pass, which the reference's
    pass (it needs a card to add) never does: no change of a card rule explained the cards with
    the passes following, and check fell back on play.active_seat (148 runs). The cards are
    now explained with the passes as the reference lists them. The same holds for a later
    difference of the game (step 31, the opener's card refused): the passes the engine let the
    opener make in earlier bouts, with nothing it would let on, refuted the timing rule's change
    there, and a record of the opener's pass alone was named (throw_in.not_passed), which the
    run's problem then took for all 91 runs."""
    jobs = jobs_of(shipped_suite, Selection(cases=("golden/siege/2p_seed1",), variants=("siege",)))
    failures = [r for r in run_cases(spec, MODULE + "BrokenOneMoveSiegeEngine", jobs) if r.status == "fail"]
    assert failures and {r.rule for r in failures} == {"throw_in.timing"}, [(r.case, r.rule) for r in failures]
    later = [d for r in failures for d in r.differences]
    assert later and {d["rule"] for d in later} == {"throw_in.timing"}, later
    assert [p["rule"] for p in find_problems(failures)] == ["throw_in.timing"]
    # at four players the other seats' throws refute the timing rule's change late in a game,
    # and the opener's pass kept fits that step alone: a local finding, which takes no other run
    jobs += jobs_of(shipped_suite, Selection(cases=("golden/podkidnoy_online/4p_seed1",),
                                             variants=("podkidnoy_online",)))
    failures = [r for r in run_cases(spec, MODULE + "BrokenOneMoveSiegeEngine", jobs) if r.status == "fail"]
    local = [d for r in failures for d in r.differences if d["diagnosis"].get("local")]
    assert [d["rule"] for d in local] == ["throw_in.not_passed"], local
    assert [p["rule"] for p in find_problems(failures)] == ["throw_in.timing", "throw_in.not_passed"]


def test_the_skipped_at_once_twin_breaks_who_may_add_as_well_as_transfers(spec):
    """The broken skipped-at-once twin plays going_out end_of_bout, which who may add reads too
    (defender_left): seat 2 has no card and the talon is empty, so under the house rule seat 3
    is the defender's neighbour who may add; the twin still counts seat 2. Fuzz meets this far
    more often than a transfer to an empty hand, and names it throw_in.who, rightly; check's
    cases of the house rule are transfers (CHECKED)."""
    position = {"hands": [["6S", "7D", "8D", "KD"], ["8S", "9S", "6C", "8C", "6D", "6H", "8H"], [],
                          ["7S", "TS", "JS", "KS", "AS", "7C", "9C", "KC", "AC", "9D", "AD", "7H",
                           "9H", "TH", "JH", "QH", "KH", "AH"]],
                "talon": [], "trump": "8C", "dealer": 3, "attacker": 0, "defender": 1, "bout": 7,
                "table": [["QD", "JC"], ["QS", "TC"], ["QC", None], ["TD", "JD"]], "discard": 0}
    found = _found(spec, "BrokenSkippedAtOnceEngine", "perevodnoy", 4, position, ["1 take"])
    assert "legal-missing throw_in.who" in found and {s.split()[1] for s in found} == {"throw_in.who"}, found


def test_a_seat_served_in_another_order_is_the_order_rule_not_who_may_add(spec):
    """The broken last-adder-clockwise twin asks the main attacker (2) after the last adder (0),
    where the clockwise order asks seat 1. throwers neighbours (an option's other value, a
    one-place change of who may add) stops seat 1 too, and named it (106 + 106 occurrences at 4
    players); the order rule's own option set to another value (thrower_order
    last_adder_priority) is as small a change of the rule that the engine's card names."""
    deal = {"hands": [["8S", "9S", "6C", "6D", "TH", "JH"], ["JS", "KS", "8C", "AD", "7H", "8H"],
                      ["7S", "7D", "8D", "KD", "6H", "QH"], ["QS", "7C", "JC", "9D", "TD", "9H"]],
            "talon": ["KH", "AS", "AC", "TC", "QC", "JD", "AH", "9C", "QD", "6S", "KC", "TS"],
            "trump": "TS", "dealer": 3}
    steps = ["2 attack 6H", "3 cover 6H with QS", "2 throw QH", "0 throw 6C", "3 cover 6C with 7C",
             "0 throw 6D"]
    assert set(_found(spec, "BrokenLastAdderClockwiseEngine", "podkidnoy", 4, deal, steps)) == {
        "legal-extra throw_in.order_last_adder_clockwise",
        "legal-missing throw_in.order_last_adder_clockwise"}


def test_a_pass_kept_where_a_limit_one_card_short_reads_as_well_is_the_declared_house_rule(spec):
    """The broken pass-withdrawn twin keeps 2's pass after 0's card at 6 players: a hand limit
    one card short (a comparison made strict, the smallest change) stops 2's card as well, and
    named it (limits.hand_at_start, 192 occurrences in 200 games). The pass record is read by the
    rule of the option the engine declares (pass_withdrawn_by), which of one-place changes as
    close now wins."""
    position = {"hands": [["6H"], [], ["6C", "8D", "8H"], [], ["7D", "7H", "KH"], []],
                "talon": [], "trump": "TS", "dealer": 5, "attacker": 2, "defender": 4,
                "table": [["6D", "KD"], ["KC", None]], "out": [1, 3, 5], "bout": 18,
                "beaten_bouts": 6, "discard": 26}
    assert _found(spec, "BrokenPassWithdrawnEngine", "podkidnoy", 6, position,
                  ["2 pass", "0 throw 6H"]) == ["legal-missing throw_in.not_passed"]


def test_a_bout_the_twin_keeps_open_past_the_cap_it_declares_is_the_cap_rule(spec):
    """The broken five-before-first-beat twin lets a sixth card on before a beat. Where the fifth
    ends a taken bout on the reference's side, the engine keeps the table, and fuzz (which asks
    the state there, not the legal set) named the bout's end, bout.taken, first at 3 to 6 players
    (107 occurrences at 4). The declared cap's other value (none) lets 2's aces on: the rule
    reading it keeps the bout open."""
    position = {"hands": [["8S", "8S", "9S", "9S", "JS", "JS", "QS", "AS", "8C", "8C", "JC", "JC",
                           "QC", "6D", "8D", "8D", "9D", "JD", "JD", "QD", "8H", "8H", "JH", "JH",
                           "QH"], ["6D", "9D", "6H", "KH"],
                          ["6S", "7S", "7S", "TS", "TS", "KS", "KS", "AS", "7C", "7C", "TC", "7D",
                           "7D", "KD", "KD", "AD", "7H", "7H", "TH", "KH", "AH"], ["TC", "TD"]],
                "talon": [], "trump": "AC", "dealer": 3, "attacker": 3, "defender": 0,
                "table": [["AC", None], ["AD", None], ["AH", None], ["AC", None]], "taking": True,
                "bout": 19, "beaten_bouts": 2, "discard": 16}
    assert _found(spec, "BrokenFiveBeforeFirstBeatEngine", "two_packs", 4, position,
                  ["2 throw AS"]) == ["state.table limits.before_first_beat"]


def test_a_run_under_a_declared_house_rule_sets_only_its_own_options(spec, shipped_suite, monkeypatch):
    """The ruleset a failure of an engine playing a house rule is diagnosed under sets the case's
    options and the engine's own values, and leaves the rest to the preset, as durak fuzz plays
    it: built from every resolved value, it set all 60 options, and diagnosis ranked a change of
    any option's value as a change of a house rule the engine declares (diagnose._declared)."""
    from durak_spec.reference_impl import diagnose

    seen = []
    real = diagnose.diagnose

    def recording(ruleset, *args, **kwargs):
        seen.append(diagnose._declared(ruleset))
        return real(ruleset, *args, **kwargs)
    monkeypatch.setattr(diagnose, "diagnose", recording)
    jobs = jobs_of(shipped_suite, Selection(cases=("throw_in/pass_kept_after_other_card",),
                                            variants=("podkidnoy",)))
    failures = [r for r in run_cases(spec, MODULE + "BrokenPassWithdrawnEngine", jobs)
                if r.status == "fail"]
    assert failures and seen
    case = jobs[0][0]
    assert all(d == set(case.options) | {"pass_withdrawn_by"} for d in seen), seen
