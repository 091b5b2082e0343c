"""Transfers (perevodnoy): spec/rules/transfer.yaml (allowed, window, rank, capacity, first_bout,
effect) and the transfer step of spec/flow.yaml. Trump is hearts; talons are empty."""

from __future__ import annotations

TRUMP = "AH"


def perevodnoy(durak, hands, attacker=0, **options):
    return durak.game(hands, trump=TRUMP, attacker=attacker, preset="perevodnoy", **options)


# -- transfer.window / transfer.rank ----------------------------------------------------------------

def test_the_defender_may_transfer_with_a_card_of_the_attack_rank_before_any_beat(durak):
    g = perevodnoy(durak, [["6S", "KD"], ["6C", "7C", "9D"], ["8S", "9S", "TD"]])
    durak.play(g, "0 attack 6S")
    assert durak.legal(g, "transfer") == {"1 transfer 6C"}
    durak.play(g, "1 transfer 6C")
    assert g.full_state()["table"] == [["6S", None], ["6C", None]]


def test_a_transfer_is_illegal_once_the_defender_has_beaten_a_card(durak):
    g = perevodnoy(durak, [["6S", "6D", "KD"], ["7S", "6C", "9D"], ["8S", "9S", "TD", "JD"]])
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6D")
    # the only unbeaten card is a six and 1 holds a six, but a card was already beaten
    assert durak.reject(g, "1 transfer 6C").rule_id == "transfer.window"
    assert durak.legal(g, "transfer") == set()


def test_under_while_unbeaten_share_rank_that_same_transfer_is_legal(durak):
    g = perevodnoy(durak, [["6S", "6D", "KD"], ["7S", "6C", "9D"], ["8S", "9S", "TD", "JD"]],
                   transfer_window="while_unbeaten_share_rank")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6D")
    assert durak.legal(g, "transfer") == {"1 transfer 6C"}


def test_a_transfer_card_of_a_different_rank_is_illegal(durak):
    g = perevodnoy(durak, [["6S", "KD"], ["6C", "7C", "9D"], ["8S", "9S", "TD"]])
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 transfer 7C").rule_id == "transfer.rank"


# -- transfer.capacity --------------------------------------------------------------------------------

def test_with_three_players_the_next_defender_must_hold_as_many_cards_as_the_attack_will(durak):
    # after the transfer the attack holds two cards; seat 2 holds only one
    g = perevodnoy(durak, [["6S", "KD"], ["6C", "7C", "9D"], ["8S"]])
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 transfer 6C").rule_id == "transfer.capacity"


def test_with_three_players_two_cards_are_enough_for_a_two_card_attack(durak):
    g = perevodnoy(durak, [["6S", "KD"], ["6C", "7C", "9D"], ["8S", "9S"]])
    durak.play(g, "0 attack 6S")
    assert durak.legal(g, "transfer") == {"1 transfer 6C"}


def test_the_capacity_check_looks_at_the_defenders_left_not_the_attacker(durak):
    # the attacker holds many cards, seat 2 (the defender's left) only one
    g = perevodnoy(durak, [["6S", "KD", "QD", "JD"], ["6C", "7C", "9D"], ["8S"]])
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 transfer 6C").rule_id == "transfer.capacity"


def test_with_before_adding_one_card_is_enough_for_a_one_card_attack(durak):
    g = perevodnoy(durak, [["6S", "KD"], ["6C", "7C", "9D"], ["8S"]],
                   transfer_capacity_check="before_adding")
    durak.play(g, "0 attack 6S")
    assert durak.legal(g, "transfer") == {"1 transfer 6C"}


def test_with_two_players_the_attacker_who_receives_the_transfer_must_hold_enough(durak):
    # after leading, the attacker holds one card: too few for a two-card attack
    g = perevodnoy(durak, [["6S", "KD"], ["6C", "9D", "TD"]])
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 transfer 6C").rule_id == "transfer.capacity"


def test_with_two_players_a_transfer_returns_the_attack_to_the_opener(durak):
    g = perevodnoy(durak, [["6S", "KD", "QD"], ["6C", "9D", "TD"]])
    durak.play(g, "0 attack 6S", "1 transfer 6C")
    state = g.full_state()
    assert (state["attacker"], state["defender"]) == (1, 0)
    assert durak.legal(g, "cover", seat=0) == set()  # KD, QD beat no black six
    assert "0 take" in durak.legal(g)


def test_with_transfer_return_to_origin_off_a_two_player_transfer_is_illegal(durak):
    g = perevodnoy(durak, [["6S", "KD", "QD"], ["6C", "9D", "TD"]],
                   transfer_return_to_origin=False)
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 transfer 6C").rule_id == "transfer.return"


# -- transfer.effect -----------------------------------------------------------------------------------

def test_after_a_transfer_the_player_to_the_left_defends_and_the_transferer_attacks(durak):
    hands = [["6S", "KD"], ["6C", "9D", "TD"], ["6D", "8S", "9S"], ["7S", "8C", "9C", "TC"]]
    g = perevodnoy(durak, hands)
    durak.play(g, "0 attack 6S", "1 transfer 6C")
    state = g.full_state()
    assert (state["attacker"], state["defender"]) == (1, 2)
    # the new defender may transfer again, to seat 3 (who holds four cards for three)
    assert durak.legal(g, "transfer") == {"2 transfer 6D"}
    durak.play(g, "2 transfer 6D")
    state = g.full_state()
    assert (state["attacker"], state["defender"]) == (2, 3)
    assert state["table"] == [["6S", None], ["6C", None], ["6D", None]]


def test_the_old_defender_can_no_longer_cover_after_transferring(durak):
    g = perevodnoy(durak, [["6S", "KD"], ["6C", "7S", "9D"], ["8S", "9S", "TD"]])
    durak.play(g, "0 attack 6S", "1 transfer 6C")
    assert durak.reject(g, "1 cover 6S with 7S").rule_id == "defence.defender_only"
    assert durak.legal(g, "cover", seat=2) == {"2 cover 6S with 8S", "2 cover 6S with 9S"}


# -- transfer.allowed / transfer.first_bout --------------------------------------------------------

def test_there_are_no_transfers_in_podkidnoy(durak):
    g = durak.game([["6S", "KD"], ["6C", "7C", "9D"], ["8S", "9S", "TD"]], trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 transfer 6C").rule_id == "transfer.allowed"


FIRST_BOUT_HANDS = [["6S", "KD", "QD", "JD"], ["6C", "7S", "8C", "9C"], ["8D", "TD", "9H"]]


def test_with_transfer_forbidden_first_bout_the_first_bout_cannot_be_transferred(durak):
    g = perevodnoy(durak, FIRST_BOUT_HANDS, transfer_forbidden_first_bout=True)
    durak.play(g, "0 attack 6S")
    assert g.full_state()["bout"] == 1
    assert durak.reject(g, "1 transfer 6C").rule_id == "transfer.first_bout"


def test_with_transfer_forbidden_first_bout_the_second_bout_can_be_transferred(durak):
    g = perevodnoy(durak, FIRST_BOUT_HANDS, transfer_forbidden_first_bout=True)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S")
    state = g.full_state()
    assert (state["bout"], state["attacker"], state["defender"]) == (2, 1, 2)
    durak.play(g, "1 attack 8C")
    assert durak.legal(g, "transfer") == {"2 transfer 8D"}


def test_without_that_option_the_first_bout_can_be_transferred(durak):
    g = perevodnoy(durak, FIRST_BOUT_HANDS)
    durak.play(g, "0 attack 6S")
    assert durak.legal(g, "transfer") == {"1 transfer 6C"}
