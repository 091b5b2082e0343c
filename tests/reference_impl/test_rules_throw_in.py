"""Throwing in: spec/rules/throw_in.yaml (open_bout, who, not_passed, timing, rank, after_take,
order), spec/rules/bout.yaml (bout.pass) and the cover/take steps of spec/flow.yaml.
Trump is hearts in every position; the talon is empty unless stated."""

from __future__ import annotations

TRUMP = "AH"


def four(durak, hands, attacker=0, **options):
    return durak.game(hands, trump=TRUMP, attacker=attacker, **options)


# -- throw_in.open_bout / throw_in.who -------------------------------------------------------

def test_a_card_cannot_be_thrown_in_before_the_bout_is_opened(durak):
    g = durak.game([["6S", "6C"], ["7S", "9D"]], trump=TRUMP, attacker=0)
    assert durak.reject(g, "0 throw 6C").rule_id == "throw_in.open_bout"


def test_the_defender_cannot_throw_into_their_own_bout(durak):
    g = durak.game([["6S", "6C", "KD"], ["7S", "6D", "9D"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert durak.reject(g, "1 throw 6D").rule_id == "throw_in.who"


# -- throw_in.rank -----------------------------------------------------------------------------

def test_a_thrown_card_must_match_the_rank_of_an_attack_or_a_defence_card(durak):
    g = durak.game([["6S", "6C", "7C", "8C", "KD"], ["7S", "9D", "TD", "JD", "QD"]],
                   trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    # 6C matches the attack card, 7C the defence card
    assert durak.legal(g, "throw") == {"0 throw 6C", "0 throw 7C"}
    assert durak.reject(g, "0 throw 8C").rule_id == "throw_in.rank"
    assert durak.reject(g, "0 throw KD").rule_id == "throw_in.rank"


def test_with_rank_attack_cards_only_a_defence_rank_cannot_be_thrown(durak):
    g = durak.game([["6S", "6C", "7C", "KD"], ["7S", "9D", "TD", "JD", "QD"]],
                   trump=TRUMP, attacker=0, throw_in_match="rank_attack_cards_only")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert durak.legal(g, "throw") == {"0 throw 6C"}
    assert durak.reject(g, "0 throw 7C").rule_id == "throw_in.rank"


# -- throw_in.timing -----------------------------------------------------------------------------

def test_in_podkidnoy_nobody_throws_in_before_the_defender_beats_a_card(durak):
    g = durak.game([["6S", "6C", "KD"], ["7S", "9D", "TD"], ["6D", "KC"]],
                   trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S")
    assert durak.legal(g, "throw") == set()
    assert durak.reject(g, "0 throw 6C").rule_id == "throw_in.timing"
    assert durak.reject(g, "2 throw 6D").rule_id == "throw_in.timing"
    durak.play(g, "1 cover 6S with 7S")
    assert durak.legal(g, "throw") == {"0 throw 6C"}


def test_with_pile_on_any_time_cards_may_be_thrown_before_any_beat(durak):
    g = durak.game([["6S", "6C", "KD"], ["7S", "9D", "TD"]],
                   trump=TRUMP, attacker=0, pile_on="any_time")
    durak.play(g, "0 attack 6S")
    assert durak.legal(g, "throw") == {"0 throw 6C"}
    durak.play(g, "0 throw 6C")
    assert g.full_state()["table"] == [["6S", None], ["6C", None]]


# -- throw_in.who: neighbours vs all_opponents ------------------------------------------------

FOUR_HANDS = [["6S", "KD"], ["7S", "8D", "9D", "TD", "JD", "QD"], ["6C", "KC"], ["6D", "KS"]]


def test_with_all_opponents_the_far_player_may_throw_once_the_others_pass(durak):
    g = four(durak, FOUR_HANDS, throwers="all_opponents")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    # 0 has nothing to add and is skipped; 2 (the defender's left) has priority over 3
    assert durak.legal(g, "throw") == {"2 throw 6C"}
    assert durak.reject(g, "3 throw 6D").rule_id == "throw_in.order"
    durak.play(g, "2 pass")
    assert durak.legal(g, "throw") == {"3 throw 6D"}
    durak.play(g, "3 throw 6D")
    assert g.full_state()["table"] == [["6S", "7S"], ["6D", None]]


def test_with_neighbours_only_the_main_attacker_and_the_defenders_left_may_throw(durak):
    g = four(durak, FOUR_HANDS, throwers="neighbours")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert durak.legal(g, "throw") == {"2 throw 6C"}
    assert durak.reject(g, "3 throw 6D").rule_id == "throw_in.who"
    durak.play(g, "2 pass")
    # 3 may not add, so the bout is beaten off although 3 holds a six
    state = g.full_state()
    assert state["bout"] == 2
    assert state["hands"][3] == ["KS", "6D"]
    assert state["attacker"] == 1


def test_with_neighbours_the_main_attacker_may_still_throw(durak):
    hands = [["6S", "6H", "KD"], ["7S", "8D", "9D", "TD", "JD", "QD"], ["KC"], ["6D", "KS"]]
    g = four(durak, hands, throwers="neighbours")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert durak.legal(g, "throw") == {"0 throw 6H"}


def test_with_main_attacker_only_the_defenders_left_neighbour_may_not_throw(durak):
    g = four(durak, FOUR_HANDS, throwers="main_attacker")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    # nobody may add: the bout was beaten off at once
    assert g.full_state()["bout"] == 2
    assert g.full_state()["hands"][2] == ["6C", "KC"]


# -- throw_in.order -------------------------------------------------------------------------------

def test_the_main_attacker_throws_first_then_clockwise_from_the_defenders_left(durak):
    # attacker 2, defender 3: priority 2, then 0 (the defender's left), then 1
    hands = [["6C", "KC"], ["7C", "KS"], ["6S", "6D", "KD"], ["7S", "8H", "9H", "TH", "JH", "QH"]]
    g = four(durak, hands, attacker=2)
    durak.play(g, "2 attack 6S", "3 cover 6S with 7S")
    assert durak.legal(g, "throw") == {"2 throw 6D"}
    assert durak.legal(g, "pass") == {"2 pass"}
    assert durak.reject(g, "0 throw 6C").rule_id == "throw_in.order"
    assert durak.reject(g, "1 throw 7C").rule_id == "throw_in.order"
    assert durak.reject(g, "0 pass").rule_id == "throw_in.order"
    durak.play(g, "2 pass")
    assert durak.legal(g, "throw") == {"0 throw 6C"}
    assert durak.reject(g, "1 throw 7C").rule_id == "throw_in.order"
    durak.play(g, "0 pass")
    assert durak.legal(g, "throw") == {"1 throw 7C"}


def test_the_main_attacker_keeps_priority_after_throwing(durak):
    hands = [["6S", "6D", "6C", "KD"], ["7S", "8H", "9H", "TH", "JH", "QH"], ["7C", "KS"]]
    g = durak.game(hands, trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6D")
    assert durak.legal(g, "throw") == {"0 throw 6C"}
    assert durak.reject(g, "2 throw 7C").rule_id == "throw_in.order"


def test_with_free_for_all_every_eligible_player_may_throw_at_once(durak):
    hands = [["6S", "6D", "KD"], ["7S", "8H", "9H", "TH", "JH", "QH"], ["7C", "KS"]]
    g = durak.game(hands, trump=TRUMP, attacker=0, thrower_order="free_for_all")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert durak.legal(g, "throw") == {"0 throw 6D", "2 throw 7C"}
    assert durak.legal(g, "pass") == {"0 pass", "2 pass"}


# -- bout.pass --------------------------------------------------------------------------------------

def test_a_player_with_a_legal_throw_may_pass_and_the_bout_then_ends(durak):
    g = durak.game([["6S", "6C", "KD"], ["7S", "9D", "TD"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert durak.legal(g, seat=0) == {"0 throw 6C", "0 pass"}
    durak.play(g, "0 pass")
    state = g.full_state()
    assert state["bout"] == 2 and state["table"] == []
    assert state["attacker"] == 1  # beaten off: the defender attacks next


def test_a_player_with_nothing_to_add_cannot_pass(durak):
    hands = [["6S", "6C", "KD"], ["7S", "9D", "TD"], ["KS", "QC"]]
    g = durak.game(hands, trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert durak.reject(g, "2 pass").rule_id == "bout.pass"


def test_nobody_can_pass_before_the_first_beat_in_podkidnoy(durak):
    g = durak.game([["6S", "6C", "KD"], ["7S", "9D", "TD"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S")
    assert durak.legal(g, "pass") == set()
    assert durak.reject(g, "0 pass").rule_id == "bout.pass"


def test_the_defender_cannot_pass(durak):
    g = durak.game([["6S", "6C", "KD"], ["7S", "6D", "TD"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert durak.reject(g, "1 pass").rule_id == "bout.pass"


def test_a_player_who_passed_can_neither_throw_nor_pass_again(durak):
    # 0 adds 6C and passes while 6C is unbeaten, so the bout stays open
    g = durak.game([["6S", "6C", "7C", "KD"], ["7S", "8C", "9D", "TD"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 pass")
    assert g.full_state()["passed"] == [0]
    assert durak.reject(g, "0 throw 7C").rule_id == "throw_in.not_passed"
    assert durak.reject(g, "0 pass").rule_id == "bout.pass"


# -- flow: cover clears passes (unless pass_is_final) ----------------------------------------------

PASS_HANDS = [["6S", "6C", "7C", "KD"], ["7S", "8C", "9D", "TD"]]


def test_passes_are_cleared_when_the_defender_covers_another_card(durak):
    g = durak.game(PASS_HANDS, trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 pass",
               "1 cover 6C with 8C")
    assert g.full_state()["passed"] == []
    assert durak.legal(g, seat=0) == {"0 throw 7C", "0 pass"}


def test_with_pass_is_final_a_pass_survives_the_next_cover(durak):
    g = durak.game(PASS_HANDS, trump=TRUMP, attacker=0, pass_is_final=True)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 pass",
               "1 cover 6C with 8C")
    # 0 may not add 7C, nobody else may: the bout is beaten off at once
    state = g.full_state()
    assert state["bout"] == 2
    assert state["hands"][0] == ["7C", "KD"]


# -- throw_in.after_take ----------------------------------------------------------------------------

def test_after_a_take_the_attackers_may_still_throw_in_by_default(durak):
    g = durak.game([["6S", "6C", "KD"], ["7D", "8D", "9D"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 take")
    assert g.full_state()["taking"] is True
    assert durak.legal(g, seat=0) == {"0 throw 6C", "0 pass"}
    durak.play(g, "0 throw 6C")
    state = g.full_state()
    # nothing more to add: the defender picks up both sixes
    assert state["table"] == []
    assert state["hands"][1] == ["6S", "6C", "7D", "8D", "9D"]


def test_after_a_take_the_attacker_may_pass_and_the_defender_picks_up(durak):
    g = durak.game([["6S", "6C", "KD"], ["7D", "8D", "9D"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 take", "0 pass")
    state = g.full_state()
    assert state["hands"][1] == ["6S", "7D", "8D", "9D"]
    assert state["hands"][0] == ["6C", "KD"]


def test_with_throw_in_after_take_false_the_defender_picks_up_at_once(durak):
    g = durak.game([["6S", "6C", "KD"], ["7D", "8D", "9D"]], trump=TRUMP, attacker=0,
                   throw_in_after_take=False)
    durak.play(g, "0 attack 6S", "1 take")
    state = g.full_state()
    # no throw was possible after the take, so the bout ended with only the attack card
    assert state["table"] == [] and state["taking"] is False
    assert state["hands"][1] == ["6S", "7D", "8D", "9D"]
    assert state["hands"][0] == ["6C", "KD"]
    # the 6C can no longer join that bout: the table is empty
    assert durak.reject(g, "0 throw 6C").rule_id == "throw_in.open_bout"


# -- throw_in.not_passed vs the take step of flow.yaml ------------------------------------------------
# 0 adds 6C and passes; 2 could still add 6D when 1 takes, so the bout stays open after the take.

PASS_THEN_TAKE = [["6S", "6C", "7C", "KD"], ["7S", "9D", "TD", "JD", "QD"], ["6D", "KS"]]
PASS_THEN_TAKE_PLAY = ["0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 pass", "1 take"]


def test_a_take_gives_a_player_who_passed_a_new_chance_to_add(durak):
    g = durak.game(PASS_THEN_TAKE, trump=TRUMP, attacker=0)
    durak.play(g, *PASS_THEN_TAKE_PLAY)
    assert "0 throw 7C" in durak.legal(g, "throw")


def test_with_pass_is_final_a_player_who_passed_may_not_add_after_a_take(durak):
    g = durak.game(PASS_THEN_TAKE, trump=TRUMP, attacker=0, pass_is_final=True)
    durak.play(g, *PASS_THEN_TAKE_PLAY)
    assert durak.reject(g, "0 throw 7C").rule_id == "throw_in.not_passed"
    assert durak.legal(g, "throw") == {"2 throw 6D"}
