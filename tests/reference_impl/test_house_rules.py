"""House rules seen in real engines, as option values (spec/options.yaml): each changes exactly
what its meaning says, and random games under them keep every invariant and never deadlock.
Trump is hearts in every position; the talon is empty unless stated."""

from __future__ import annotations

import pytest

from durak_spec.reference_impl.simulate import simulate

TRUMP = "AH"

# One ruleset per new option value, on the preset whose other rules it meets most.
HOUSE_RULES = [
    ("podkidnoy", {"defender_hand_bound": "defender_has_card"}),
    ("perevodnoy", {"going_out": "at_once", "throwers": "neighbours"}),
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
