"""Drawing up, roles for the next bout, the first attacker and the end of the game:
spec/rules/draw.yaml, rotation.yaml, start.yaml and end.yaml."""

from __future__ import annotations

TRUMP = "AH"


def hand(g, seat) -> set[str]:
    return set(g.full_state()["hands"][seat])


# -- draw.order / draw.who --------------------------------------------------------------------------

def test_with_three_players_the_attacker_draws_first_and_the_defender_gets_nothing_when_the_talon_runs_out(durak):
    talon = ["8C", "8D", "9C", "JC", "QC", "KC", "AH"]
    g = durak.game([["6S", "KD"], ["7S", "9D"], ["TC"]], talon, trump="AH", attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")  # nobody can add: beaten off
    assert hand(g, 0) == {"KD", "8C", "8D", "9C", "JC", "QC"}  # first, all five it needs
    assert hand(g, 2) == {"TC", "KC", "AH"}                    # then the rest of the talon
    assert hand(g, 1) == {"9D"}                                # the defender, last, gets nothing
    assert g.full_state()["talon"] == []


FOUR_TALON = ["8S", "9S", "TS", "JS", "QS", "KS", "AS", "8C", "9C", "8D", "QC", "KH"]
FOUR_HANDS = [["TC"], ["JC"], ["6S", "KD"], ["7S", "9D"]]


def test_with_four_players_the_draw_goes_clockwise_from_the_attacker_and_ends_with_the_defender(durak):
    # attacker 2, defender 3: the order is 2, 0, 1, then 3
    g = durak.game(FOUR_HANDS, FOUR_TALON, trump="KH", attacker=2)
    durak.play(g, "2 attack 6S", "3 cover 6S with 7S")
    assert hand(g, 2) == {"KD", "8S", "9S", "TS", "JS", "QS"}
    assert hand(g, 0) == {"TC", "KS", "AS", "8C", "9C", "8D"}
    assert hand(g, 1) == {"JC", "QC", "KH"}
    assert hand(g, 3) == {"9D"}


def test_counterclockwise_draw_order_reverses_the_others_but_keeps_the_defender_last(durak):
    g = durak.game(FOUR_HANDS, FOUR_TALON, trump="KH", attacker=2,
                   draw_order="attacker_counterclockwise_defender_last")
    # invariants are checked separately below (inv.draw_order assumes a clockwise draw)
    durak.play(g, "2 attack 6S", "3 cover 6S with 7S", check_invariants=False)
    assert hand(g, 2) == {"KD", "8S", "9S", "TS", "JS", "QS"}
    assert hand(g, 1) == {"JC", "KS", "AS", "8C", "9C", "8D"}
    assert hand(g, 0) == {"TC", "QC", "KH"}
    assert hand(g, 3) == {"9D"}


def test_the_state_invariants_hold_after_a_counterclockwise_draw(durak):
    g = durak.game(FOUR_HANDS, FOUR_TALON, trump="KH", attacker=2,
                   draw_order="attacker_counterclockwise_defender_last")
    durak.play(g, "2 attack 6S", "3 cover 6S with 7S", check_invariants=False)
    assert g.check_invariants() == []


def test_everyone_draws_up_to_the_hand_size_while_the_talon_lasts(durak):
    talon = ["8C", "8D", "9C", "JC", "QC", "KC", "AC", "TD", "JD", "QD", "AH"]
    g = durak.game([["6S", "KD"], ["7S", "9D"]], talon, trump="AH", attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    state = g.full_state()
    assert [len(h) for h in state["hands"]] == [6, 6]
    assert state["talon"] == ["AH"]
    assert hand(g, 1) == {"9D", "KC", "AC", "TD", "JD", "QD"}


def test_a_player_holding_more_than_the_hand_size_draws_nothing(durak):
    # 1 takes and holds seven cards; 0 draws first and the talon keeps the rest
    talon = ["8C", "8D", "9C", "JC", "QC", "KC", "AH"]
    g = durak.game([["6S", "KD"], ["7D", "8S", "9S", "TS", "JS", "QS"]], talon, trump="AH",
                   attacker=0)
    durak.play(g, "0 attack 6S", "1 take")
    state = g.full_state()
    assert len(state["hands"][1]) == 7
    assert hand(g, 0) == {"KD", "8C", "8D", "9C", "JC", "QC"}
    assert state["talon"] == ["KC", "AH"]


# -- rotation ----------------------------------------------------------------------------------------

def test_after_a_beaten_off_bout_the_defender_attacks_next(durak):
    g = durak.game([["6S", "KD"], ["7S", "9D"], ["TC", "JC"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    state = g.full_state()
    assert (state["bout"], state["attacker"], state["defender"]) == (2, 1, 2)
    assert durak.legal(g, "attack") == {"1 attack 9D"}


def test_after_a_take_the_player_left_of_the_defender_attacks_next(durak):
    g = durak.game([["6S", "KD"], ["7D", "9D"], ["TC", "JC"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 take")
    state = g.full_state()
    assert hand(g, 1) == {"6S", "7D", "9D"}
    assert (state["bout"], state["attacker"], state["defender"]) == (2, 2, 0)


def test_after_a_take_with_four_players_the_defender_is_skipped(durak):
    hands = [["6S", "KD"], ["7D", "9D"], ["TC", "JC"], ["QC", "KC"]]
    g = durak.game(hands, trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 take")
    state = g.full_state()
    assert (state["attacker"], state["defender"]) == (2, 3)


def test_after_a_take_with_two_players_the_same_player_attacks_again(durak):
    g = durak.game([["6S", "KD"], ["7D", "9D"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 take")
    state = g.full_state()
    assert (state["bout"], state["attacker"], state["defender"]) == (2, 0, 1)


def test_when_the_defender_goes_out_the_next_player_in_the_game_attacks(durak):
    # 1 beats with their last card, the talon is empty: 1 is out, 2 attacks 0
    g = durak.game([["6S", "KD"], ["7S"], ["TC", "JC"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    state = g.full_state()
    assert state["out"] == [1]
    assert (state["attacker"], state["defender"]) == (2, 0)


# -- end.out / end.game_over / end.fool ---------------------------------------------------------------

def test_a_player_without_cards_goes_out_once_the_talon_is_empty(durak):
    g = durak.game([["6S"], ["7S", "9D"], ["TC", "JC"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    state = g.full_state()
    assert state["out"] == [0]
    assert state["finished"] is False
    assert (state["attacker"], state["defender"]) == (1, 2)


def test_a_player_without_cards_draws_instead_while_the_talon_has_cards(durak):
    g = durak.game([["6S"], ["7S", "9D"]], ["8C", "9C", "AH"], trump="AH", attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    state = g.full_state()
    assert state["out"] == []
    assert hand(g, 0) == {"8C", "9C", "AH"}


def test_a_player_who_is_out_cannot_act(durak):
    g = durak.game([["6S"], ["7S", "9D"], ["TC", "9C"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "1 attack 9D")
    assert g.full_state()["out"] == [0]
    assert durak.reject(g, "0 pass").rule_id == "play.active_seat"


def test_the_last_player_holding_cards_is_the_fool(durak):
    g = durak.game([["6S"], ["7S", "8D"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert g.is_terminal()
    assert g.full_state()["result"] == {"fool": 1, "draw": False, "finish_order": [0]}
    assert g.returns() == [1.0, -1.0]
    assert g.legal_actions() == []


def test_a_defender_who_takes_the_last_attack_is_the_fool(durak):
    g = durak.game([["6S"], ["7D", "8D"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 take")
    assert g.is_terminal()
    assert g.full_state()["result"]["fool"] == 1
    assert hand(g, 1) == {"6S", "7D", "8D"}


def test_with_three_players_the_fool_may_be_a_player_outside_the_last_bout(durak):
    g = durak.game([["6S"], ["7S"], ["9D"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert g.is_terminal()
    assert g.full_state()["result"] == {"fool": 2, "draw": False, "finish_order": [0, 1]}
    assert g.returns() == [0.5, 0.5, -1.0]


def test_the_game_does_not_end_while_the_talon_has_cards(durak):
    talon = ["8C", "9C", "TC", "JC", "QC", "KC", "8D", "9D", "TD", "JD", "QD", "KD", "AH"]
    g = durak.game([["6S"], ["7S"]], talon, trump="AH", attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    state = g.full_state()
    assert not g.is_terminal()
    assert state["out"] == [] and state["talon"] == ["AH"]
    assert [len(h) for h in state["hands"]] == [6, 6]


def test_a_defender_left_empty_when_the_attackers_draw_empties_the_talon_goes_out(durak):
    # both hands are empty after the bout; 0 draws the whole talon first, so 1 gets nothing
    g = durak.game([["6S"], ["7S"]], ["8C", "AH"], trump="AH", attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert g.is_terminal()
    assert hand(g, 0) == {"8C", "AH"}
    assert g.full_state()["result"] == {"fool": 0, "draw": False, "finish_order": [1]}


def test_a_simultaneous_last_card_finish_is_a_draw_by_default(durak):
    g = durak.game([["6S"], ["7S"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert g.is_terminal()
    result = g.full_state()["result"]
    assert result["fool"] is None and result["draw"] is True
    assert g.returns() == [0.0, 0.0]


def test_with_last_defender_loses_a_simultaneous_finish_makes_the_defender_the_fool(durak):
    g = durak.game([["6S"], ["7S"]], trump=TRUMP, attacker=0, simultaneous_finish="last_defender_loses")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert g.full_state()["result"]["fool"] == 1
    assert g.returns() == [1.0, -1.0]


def test_with_last_attacker_loses_a_simultaneous_finish_makes_the_attacker_the_fool(durak):
    g = durak.game([["6S"], ["7S"]], trump=TRUMP, attacker=0, simultaneous_finish="last_attacker_loses")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert g.full_state()["result"]["fool"] == 0


# -- start.lowest_trump / start.left_of_dealer / start.first_defender ------------------------------------

def test_the_holder_of_the_lowest_trump_attacks_first_with_any_card(durak):
    # trump 6H lies under the talon and is not held; 7H in seat 2 is the lowest trump in a hand
    hands = [["9H", "6S"], ["KS", "QS"], ["7H", "JH"]]
    g = durak.game(hands, ["8C", "6H"], trump="6H", dealer=0)
    state = g.full_state()
    assert (state["attacker"], state["defender"]) == (2, 0)
    assert durak.legal(g, "attack") == {"2 attack 7H", "2 attack JH"}
    assert durak.reject(g, "0 attack 9H").rule_id == "attack.opener"


def test_when_nobody_holds_a_trump_the_dealers_left_neighbour_attacks_first(durak):
    hands = [["9S", "6S"], ["KS", "QS"], ["7C", "JC"]]
    g = durak.game(hands, ["8C", "6H"], trump="6H", dealer=1)
    assert (g.full_state()["attacker"], g.full_state()["defender"]) == (2, 0)
    g = durak.game(hands, ["8C", "6H"], trump="6H", dealer=2)
    assert (g.full_state()["attacker"], g.full_state()["defender"]) == (0, 1)


def test_with_left_of_dealer_the_lowest_trump_does_not_matter(durak):
    hands = [["9H", "6S"], ["KS", "QS"], ["7H", "JH"]]
    g = durak.game(hands, ["8C", "6H"], trump="6H", dealer=0, first_attacker="left_of_dealer")
    assert (g.full_state()["attacker"], g.full_state()["defender"]) == (1, 2)
