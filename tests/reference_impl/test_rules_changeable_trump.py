"""The changeable trump (rule deck.changeable_trump, dispute D56): a card lies face down under the
turn-up, and once the turn-up is drawn it is turned up and its suit is trump for the rest of the
deal. The reveal is the flow step reveal_hidden_card after the draw (spec/flow.yaml)."""

from __future__ import annotations

import pytest

from durak_spec.reference_impl.errors import SetupError
from durak_spec.reference_impl.game import Game, Setup

PRESET = "changeable_trump"
# Seat 0 attacks with 6C and draws two cards (9C and the turn-up AH); seat 1 holds seven cards,
# covers and draws nothing; the hidden 7S stays in the talon and is turned up.
HANDS = [["6C", "8C", "TC", "JC", "6S"], ["7C", "KC", "AC", "6D", "7D", "8D", "9D"]]
TALON = ["9C", "AH", "7S"]


def beaten_off_with_the_turn_up_drawn(durak):
    g = durak.game(HANDS, TALON, trump="AH", hidden="7S", attacker=0, preset=PRESET)
    assert g.full_state()["trump_suit"] == "H" and g.full_state()["hidden"] == "7S"
    return durak.play(g, "0 attack 6C", "1 cover 6C with 7C", "0 pass")


def test_a_deal_lays_a_hidden_card_under_the_turn_up_as_the_last_card_of_the_talon(durak):
    setup = Setup.deal(durak.ruleset(PRESET), 3, seed=5)
    assert setup.hidden is not None and setup.talon[-1] is setup.hidden
    assert setup.talon[-2] is setup.trump
    assert Setup.deal(durak.ruleset(), 3, seed=5).hidden is None


def test_six_players_on_36_cards_have_no_talon_and_no_hidden_card(durak):
    assert Setup.deal(durak.ruleset(PRESET), 6, seed=1).hidden is None


def test_once_the_turn_up_is_drawn_the_hidden_card_is_turned_up_and_its_suit_is_trump(durak):
    g = beaten_off_with_the_turn_up_drawn(durak)
    state = g.full_state()
    assert "AH" in state["hands"][0] and state["talon"] == ["7S"]
    assert state["trump"] == "7S" and state["trump_suit"] == "S" and "hidden" not in state
    assert g.state.turn_up_rank() is not None  # the new turn-up lies in the talon, drawn last


def test_after_the_reveal_the_new_trump_beats_and_the_old_one_does_not(durak):
    g = beaten_off_with_the_turn_up_drawn(durak)  # seat 1 beat off, so seat 1 attacks seat 0
    durak.play(g, "1 attack 6D")
    assert durak.reject(g, "0 cover 6D with AH").rule_id == "defence.beat"
    durak.play(g, "0 cover 6D with 6S")


def test_without_changeable_trump_the_turn_up_decides_the_trump_for_the_whole_deal(durak):
    talon = ["9C", "7S", "AH"]
    g = durak.game(HANDS, talon, trump="AH", attacker=0)
    durak.play(g, "0 attack 6C", "1 cover 6C with 7C", "0 pass")
    assert g.full_state()["trump_suit"] == "H" and g.full_state()["talon"] == ["AH"]


def test_a_hidden_card_drawn_with_the_turn_up_still_decides_the_trump(durak):
    hands = [["6C", "8C", "TC", "JC"], ["7C", "KC", "AC", "6D", "7D", "8D", "9D"]]
    g = durak.game(hands, TALON, trump="AH", hidden="7S", attacker=0, preset=PRESET)
    durak.play(g, "0 attack 6C", "1 cover 6C with 7C")  # seat 0 draws all three
    state = g.full_state()
    assert state["talon"] == [] and {"9C", "AH", "7S"} <= set(state["hands"][0])
    assert state["trump"] == "7S" and state["trump_suit"] == "S"


def test_a_player_sees_that_a_card_lies_hidden_but_not_which(durak):
    g = durak.game(HANDS, TALON, trump="AH", hidden="7S", attacker=0, preset=PRESET)
    view = g.observation(1)
    assert view["hidden"] is True and view["talon"] == 3 and "7S" not in str(view)


def test_the_trump_exchange_swaps_the_turn_up_above_the_hidden_card(durak):
    hands = [["6H", "8C"], ["7C", "KC"]]
    g = durak.game(hands, ["9C", "AH", "7S"], trump="AH", hidden="7S", attacker=0, preset=PRESET,
                   trump_exchange="lowest_trump")
    durak.play(g, "0 swap 6H")
    assert g.full_state()["talon"] == ["9C", "6H", "7S"] and g.full_state()["trump"] == "6H"


def test_the_poker_exchange_never_takes_the_turn_up_above_a_hidden_card(durak):
    hands = [["6C", "8C"], ["7C", "KC"]]
    g = durak.game(hands, ["9C", "AH", "7S"], trump="AH", hidden="7S", attacker=0, preset=PRESET,
                   poker_exchange_uses=3)
    assert durak.reject(g, "0 exchange 6C 8C").rule_id == "draw.exchange_talon"
    g = durak.game(hands, ["9C", "TC", "AH", "7S"], trump="AH", hidden="7S", attacker=0,
                   preset=PRESET, poker_exchange_uses=3)
    durak.play(g, "0 exchange 6C 8C")
    assert g.full_state()["talon"][-2:] == ["AH", "7S"]


@pytest.mark.parametrize("preset, talon, hidden, field", [
    ("podkidnoy", ["9C", "AH", "7S"], "7S", "hidden"),        # no changeable trump
    (PRESET, ["9C", "7S", "AH"], "7S", "hidden"),             # not the last card
    (PRESET, ["9C", "7S"], "7S", "hidden"),                   # the turn-up already drawn
    (PRESET, ["AH", "9C", "7S"], "7S", "trump"),              # the turn-up not just above it
])
def test_a_setup_with_a_hidden_card_where_none_can_lie_is_refused_naming_the_field(
        durak, preset, talon, hidden, field):
    rs = durak.ruleset(preset)
    data = {"hands": HANDS, "talon": talon, "trump": "AH", "hidden": hidden}
    with pytest.raises(SetupError) as info:
        Game(rs, Setup.from_json(data, rs.deck))
    assert field in str(info.value)


def test_a_setup_with_its_hidden_card_reads_and_writes_the_same(durak):
    rs = durak.ruleset(PRESET)
    data = {"hands": HANDS, "talon": TALON, "trump": "AH", "hidden": "7S", "dealer": 1}
    again = Setup.from_json(data, rs.deck).to_json()
    assert again["hidden"] == "7S" and Setup.from_json(again, rs.deck).to_json() == again


def test_a_turn_up_on_top_of_the_talon_has_no_hidden_card_under_it(durak):
    rs = durak.ruleset(PRESET, turn_up_place="top")
    assert not rs.turn_up_hidden and Setup.deal(rs, 3, seed=5).hidden is None
