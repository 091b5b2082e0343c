"""Defence and taking: spec/rules/defence.yaml (defence.beat, defence.target, defence.take,
defence.defender_only, defence.not_after_take). Trump is hearts in every position here."""

from __future__ import annotations

import pytest

TRUMP = "AH"  # out of play: the talon is empty, so hearts are trump and AH is in the discard


def duel(durak, attacker_hand, defender_hand, **options):
    """Two players, empty talon, seat 0 attacks seat 1."""
    return durak.game([attacker_hand, defender_hand], trump=TRUMP, attacker=0, **options)


# -- defence.beat -------------------------------------------------------------------------

def test_a_higher_card_of_the_same_suit_beats_a_plain_card(durak):
    g = duel(durak, ["6S", "9C"], ["8S", "7D", "QD"])
    discarded = g.full_state()["discard_count"]
    durak.play(g, "0 attack 6S", "1 cover 6S with 8S")
    state = g.full_state()
    # nothing to add: the bout is beaten off and both cards go to the discard
    assert state["hands"][1] == ["7D", "QD"]
    assert state["discard_count"] == discarded + 2
    assert state["bout"] == 2


def test_a_lower_card_of_the_same_suit_does_not_beat(durak):
    g = duel(durak, ["9S", "6C"], ["7S", "8D", "QD"])
    durak.play(g, "0 attack 9S")
    assert durak.reject(g, "1 cover 9S with 7S").rule_id == "defence.beat"


def test_a_higher_card_of_another_plain_suit_does_not_beat(durak):
    g = duel(durak, ["6S", "6C"], ["AC", "8D", "QD"])
    durak.play(g, "0 attack 6S")
    exc = durak.reject(g, "1 cover 6S with AC")
    assert exc.rule_id == "defence.beat"
    assert durak.legal(g, "cover") == set()


def test_any_trump_beats_any_plain_card_even_an_ace(durak):
    g = duel(durak, ["AS", "6C"], ["6H", "8D", "QD"])
    durak.play(g, "0 attack AS")
    assert durak.legal(g, "cover") == {"1 cover AS with 6H"}
    durak.play(g, "1 cover AS with 6H")
    assert g.full_state()["table"] == [["AS", "6H"]]


def test_a_plain_card_cannot_beat_a_trump_however_high(durak):
    g = duel(durak, ["6H", "6C"], ["AS", "AD", "AC"])
    durak.play(g, "0 attack 6H")
    for card in ("AS", "AD", "AC"):
        assert durak.reject(g, f"1 cover 6H with {card}").rule_id == "defence.beat"
    assert durak.legal(g, "cover") == set()


def test_a_lower_trump_cannot_beat_a_higher_trump(durak):
    g = duel(durak, ["9H", "6C"], ["7H", "8D", "QD"])
    durak.play(g, "0 attack 9H")
    assert durak.reject(g, "1 cover 9H with 7H").rule_id == "defence.beat"


def test_a_higher_trump_beats_a_lower_trump(durak):
    g = duel(durak, ["7H", "6C"], ["9H", "8D", "QD"])
    durak.play(g, "0 attack 7H")
    assert "1 cover 7H with 9H" in durak.legal(g, "cover")


def test_the_defender_need_not_follow_suit_when_trumping(durak):
    # A trump is allowed even though the defender also holds a higher card of the led suit.
    g = duel(durak, ["6S", "6C"], ["8S", "7H", "QD"])
    durak.play(g, "0 attack 6S")
    assert durak.legal(g, "cover") == {"1 cover 6S with 8S", "1 cover 6S with 7H"}


# -- defence.target ------------------------------------------------------------------------

def test_an_attack_card_that_is_already_covered_cannot_be_covered_again(durak):
    g = duel(durak, ["6S", "6C", "KD"], ["7S", "9S", "8C", "QD"])
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C")
    assert durak.reject(g, "1 cover 6S with 9S").rule_id == "defence.target"
    assert durak.legal(g, "cover") == {"1 cover 6C with 8C"}


def test_a_card_that_is_not_on_the_table_cannot_be_the_target(durak):
    g = duel(durak, ["6S", "6C"], ["7S", "8C", "QD"])
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 cover 6C with 8C").rule_id == "defence.target"


def test_the_defender_chooses_which_unbeaten_card_to_cover_and_in_what_order(durak):
    g = duel(durak, ["6S", "6C", "7C", "KD"], ["7S", "8C", "9C", "QD", "JD"])
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 throw 7C")
    assert durak.legal(g, "cover") == {"1 cover 6C with 8C", "1 cover 6C with 9C",
                                       "1 cover 7C with 8C", "1 cover 7C with 9C"}
    durak.play(g, "1 cover 7C with 9C", "1 cover 6C with 8C")
    assert g.full_state()["bout"] == 2  # all beaten, nothing to add: beaten off


# -- defence.take --------------------------------------------------------------------------

def test_the_defender_may_take_while_an_attack_card_is_unbeaten(durak):
    g = duel(durak, ["6S", "KC"], ["7D", "8D", "QD"])
    durak.play(g, "0 attack 6S")
    assert "1 take" in durak.legal(g)
    durak.play(g, "1 take")
    # nobody can add a six, so the defender picks up at once
    state = g.full_state()
    assert state["table"] == []
    assert state["hands"][1] == ["6S", "7D", "8D", "QD"]


def test_the_defender_may_not_take_when_every_attack_card_is_beaten(durak):
    # 0 still holds a six, so the bout stays open with every card covered
    g = duel(durak, ["6S", "6C", "KD"], ["7S", "8D", "QD"])
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    assert g.full_state()["table"] == [["6S", "7S"]]
    assert durak.reject(g, "1 take").rule_id == "defence.take"


def test_taking_is_possible_after_some_cards_were_beaten(durak):
    g = duel(durak, ["6S", "6C", "KD"], ["7S", "8D", "QD"])
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "1 take")
    state = g.full_state()
    # 0 has no more sixes or sevens to add: the defender picks up all three table cards
    assert state["table"] == []
    assert state["hands"][1] == ["6S", "7S", "6C", "8D", "QD"]


def test_the_defender_may_not_cover_after_saying_take(durak):
    g = duel(durak, ["6S", "6C", "KD"], ["7S", "8S", "8D"])
    durak.play(g, "0 attack 6S", "1 take")
    assert g.full_state()["taking"] is True  # 0 may still add 6C
    assert durak.reject(g, "1 cover 6S with 7S").rule_id == "defence.not_after_take"


# -- defence.defender_only -----------------------------------------------------------------

def test_only_the_defender_may_cover(durak):
    g = duel(durak, ["6S", "8S", "KD"], ["7D", "8D", "QD"])
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "0 cover 6S with 8S").rule_id == "defence.defender_only"


def test_only_the_defender_may_take(durak):
    g = duel(durak, ["6S", "8S", "KD"], ["7D", "8D", "QD"])
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "0 take").rule_id == "defence.defender_only"


def test_a_third_player_may_neither_cover_nor_take(durak):
    g = durak.game([["6S", "KD"], ["7D", "8D", "QD"], ["8S", "9C"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S")
    assert g.full_state()["defender"] == 1
    assert durak.reject(g, "2 cover 6S with 8S").rule_id == "defence.defender_only"
    assert durak.reject(g, "2 take").rule_id == "defence.defender_only"


def test_covering_with_a_card_not_in_hand_is_rejected_as_not_own_card(durak):
    g = duel(durak, ["6S", "KD"], ["7D", "8D", "QD"])
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 cover 6S with 9S").rule_id == "play.own_card"


@pytest.mark.parametrize("attack, cover, legal", [
    ("6S", "7S", True), ("6S", "6H", True), ("KS", "QS", False), ("6S", "7C", False),
    ("7H", "8H", True), ("8H", "7H", False), ("6H", "AS", False),
])
def test_the_legal_covers_are_exactly_those_defence_beat_allows(durak, attack, cover, legal):
    g = duel(durak, [attack, "KD"], [cover, "9D", "TD"])
    durak.play(g, f"0 attack {attack}")
    assert durak.is_legal(g, f"1 cover {attack} with {cover}") is legal
