"""House rules seen in real engines, as option values (spec/options.yaml): each changes exactly
what its meaning says, and random games under them keep every invariant and never deadlock.
Trump is hearts in every position; the talon is empty unless stated."""

from __future__ import annotations

import pytest

from durak_spec.reference_impl.simulate import simulate

TRUMP = "AH"

# One ruleset per new option value, on the preset whose other rules it meets most.
HOUSE_RULES = [
    ("podkidnoy", {"defender_hand_bound": "defender_has_card", "pile_on": "one_at_a_time",
                   "done_by": "main_attacker"}),
    ("perevodnoy", {"going_out": "at_once", "throwers": "neighbours",
                    "thrower_order": "last_adder_priority", "pile_on": "when_all_beaten"}),
    ("podkidnoy_online", {"done_by": "main_attacker", "thrower_order": "free_for_all",
                          "no_trump_lead": "lowest_card", "going_out": "at_once"}),
    ("perevodnoy", {"going_out": "skipped_at_once", "transfer_last_card": False,
                    "thrower_order": "last_adder_clockwise", "throwers": "neighbours",
                    "thrower_order_after_take": "attacker_clockwise",
                    "pass_withdrawn_by": "any_card", "max_before_first_beat": 5}),
    ("two_packs", {"thrower_order": "attacker_then_any", "pass_withdrawn_by": "any_card",
                   "max_before_first_beat": 5, "opening": "same_rank_multi", "pile_on": "any_time"}),
]


@pytest.mark.parametrize("preset,options", HOUSE_RULES, ids=lambda v: str(v))
@pytest.mark.parametrize("players", [2, 3, 5])
def test_random_games_under_a_house_rule_keep_every_invariant(durak, preset, options, players):
    report = simulate(durak.ruleset(preset, **options), players, games=12, seed=players)
    assert report.violations == []
    assert report.finished == report.games


# -- defender_hand_bound: defender_has_card --------------------------------------------------------

def test_with_defender_has_card_more_cards_may_be_unbeaten_than_the_defender_holds(durak):
    g = durak.game([["6S", "6C", "7C", "8D"], ["7S", "8C"], ["9S"]], ["QS", "KS", TRUMP],
                   trump=TRUMP, attacker=0, defender_hand_bound="defender_has_card")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 throw 7C")
    assert g.state.unbeaten == 2 and len(g.state.hands[1]) == 1
    durak.play(g, "1 cover 6C with 8C")
    assert durak.reject(g, "0 throw 8D").rule_id == "limits.defender_has_card"
    assert {str(a) for a in g.legal_actions()} == {"1 take"}


def test_under_the_default_bound_the_same_throw_is_refused(durak):
    g = durak.game([["6S", "6C", "7C", "8D"], ["7S", "8C"], ["9S"]], ["QS", "KS", TRUMP],
                   trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C")
    assert durak.reject(g, "0 throw 7C").rule_id == "limits.hand_at_start"


# -- going_out: at_once ----------------------------------------------------------------------------

def test_going_out_at_once_moves_the_defenders_left_neighbour_up(durak):
    hands = [["6S", "8D"], ["7S", "8C", "JH"], ["6C"], ["6D", "QC"]]
    for going_out, seat3_may_throw in (("end_of_bout", False), ("at_once", True)):
        g = durak.game(hands, trump=TRUMP, attacker=0, throwers="neighbours",
                       thrower_order="free_for_all", going_out=going_out)
        durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "2 throw 6C")
        assert g.state.out[2] is (going_out == "at_once")
        durak.play(g, "1 cover 6C with 8C")
        assert ("3 throw 6D" in {str(a) for a in g.legal_actions()}) is seat3_may_throw


def test_a_transfer_needs_another_player_in_the_game(durak):
    # Two players, the talon empty: the opener leads their last card and is out at once, so the
    # defender has nobody to pass the attack to.
    g = durak.game([["6S"], ["6C", "9S", "TS"]], trump=TRUMP, attacker=0, preset="perevodnoy",
                   going_out="at_once")
    durak.play(g, "0 attack 6S")
    assert g.state.out[0]
    assert durak.reject(g, "1 transfer 6C").rule_id == "transfer.capacity"


# -- pile_on: when_all_beaten and one_at_a_time ------------------------------------------------------

HANDS = [["6S", "6C", "7C", "8D"], ["7S", "8C", "9C", "TD"], ["6D", "QS"]]


def test_when_all_beaten_adds_in_rounds_and_one_at_a_time_one_card_each(durak):
    for pile_on, second_card_ok in (("when_all_beaten", True), ("one_at_a_time", False)):
        g = durak.game(HANDS, ["JS", "QC", TRUMP], trump=TRUMP, attacker=0, pile_on=pile_on)
        durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C")
        assert ("0 throw 7C" in {str(a) for a in g.legal_actions()}) is second_card_ok
    durak.play(g, "1 cover 6C with 8C", "0 throw 7C")


def test_in_rounds_nothing_is_added_once_the_defender_answers_until_all_are_beaten(durak):
    g = durak.game(HANDS, ["JS", "QC", TRUMP], trump=TRUMP, attacker=0, pile_on="when_all_beaten")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 throw 7C",
               "1 cover 6C with 8C")
    assert durak.reject(g, "0 throw 8D").rule_id == "throw_in.answered"
    durak.play(g, "1 cover 7C with 9C", "0 throw 8D")


# -- thrower_order: last_adder_priority -------------------------------------------------------------

def test_the_player_who_added_the_last_card_has_first_say(durak):
    hands = [["6S", "7C", "8S", "KD"], ["7S", "8C", "9D", "TD"], ["6C", "7D", "QS"]]
    for order, first in (("attacker_priority", 0), ("last_adder_priority", 2)):
        g = durak.game(hands, ["JS", "QC", TRUMP], trump=TRUMP, attacker=0, thrower_order=order)
        durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 pass", "2 throw 6C",
                   "1 cover 6C with 8C")
        assert {a.seat for a in g.legal_actions() if a.kind in ("throw", "pass")} == {first}


# -- done_by: main_attacker --------------------------------------------------------------------------

def test_the_main_attackers_done_ends_the_bout_for_everyone(durak):
    hands = [["6S", "6H", "KD"], ["7S", "8C", "9D", "TD"], ["6C", "7D", "QS"]]
    for done_by, bout_over in (("each_attacker", False), ("main_attacker", True)):
        g = durak.game(hands, ["JS", "QC", "KH", TRUMP], trump=TRUMP, attacker=0, done_by=done_by)
        durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 pass")
        assert (g.state.table == []) is bout_over


# -- no_trump_lead: lowest_card ----------------------------------------------------------------------

def test_without_trumps_the_lowest_card_leads_ties_from_the_dealers_left(durak):
    hands = [["7S", "8C", "9D"], ["6D", "9S", "TC"], ["6S", "JD", "QS"]]
    for dealer, first in ((0, 1), (1, 2), (2, 1)):
        for rule, want in (("left_of_dealer", (dealer + 1) % 3), ("lowest_card", first)):
            g = durak.game(hands, ["AS", "AC", "6H"], trump="6H", dealer=dealer, no_trump_lead=rule)
            assert g.state.attacker == want, (dealer, rule)
