"""The redeal (rules deck.redeal, deck.redeal_hand, deck.redeal_window; dispute D17): a player whose
hand holds at most two suits (marmot_tournament) or one colour (podkidnoy_colour_redeal) may call
for a redeal before the first card is played; the deal is void, and in a match the same dealer
deals again without the deal counting."""

from __future__ import annotations

import random

from durak_spec.reference_impl.game import Setup
from durak_spec.reference_impl.match import Match

TWO_SUITS = [["6S", "9H", "KD", "QS", "7H", "8D"], ["7C", "9C", "JD", "QD", "AC", "6D"]]
TALON = ["AD", "TC", "KS", "8C", "6C", "9S", "TD", "8S", "JC", "AS", "QC", "7S", "KC", "TS", "JS",
         "9D", "7D", "6H", "8H", "TH", "JH", "QH", "KH", "AH"]


def test_the_holder_of_a_two_suit_hand_may_call_a_redeal_and_the_deal_is_void(durak):
    g = durak.game(TWO_SUITS, TALON, trump="AH", attacker=0, preset="marmot_tournament")
    assert durak.legal(g, "redeal") == {"1 redeal"}
    assert durak.reject(g, "0 redeal").rule_id == "deck.redeal_hand"
    durak.play(g, "1 redeal")
    assert g.is_terminal() and g.returns() == [0.0, 0.0]
    assert g.full_state()["result"] == {"fool": None, "draw": False, "redeal": True, "finish_order": []}


def test_a_redeal_comes_only_before_the_first_card_is_played(durak):
    g = durak.game(TWO_SUITS, TALON, trump="AH", attacker=0, preset="marmot_tournament")
    durak.play(g, "0 attack 6S")
    assert durak.reject(g, "1 redeal").rule_id == "deck.redeal_window"


def test_a_one_colour_hand_entitles_a_redeal_only_under_that_option(durak):
    hands = [["6S", "9C", "KC", "QS", "7C", "8C"], ["7H", "9H", "JD", "QD", "AH", "6D"]]
    talon = ["AD", "KS", "9S", "TD", "8S", "AS", "QC", "7S", "TS", "JS", "9D", "7D", "6H", "AC"]
    g = durak.game(hands, talon, trump="AC", attacker=1, preset="podkidnoy_colour_redeal")
    assert durak.legal(g, "redeal") == {"0 redeal", "1 redeal"}  # all black, all red
    g = durak.game(TWO_SUITS, TALON, trump="AH", attacker=0, preset="podkidnoy_colour_redeal")
    assert durak.reject(g, "1 redeal").rule_id == "deck.redeal_hand"  # clubs and diamonds
    g = durak.game(hands, talon, trump="AC", attacker=1)
    assert durak.reject(g, "0 redeal").rule_id == "deck.redeal"


def test_in_a_match_a_redeal_does_not_count_and_the_same_dealer_deals_again(durak):
    rs = durak.ruleset("marmot_tournament")
    match = Match(rs, 2, first_dealer=1)
    data = {"hands": TWO_SUITS, "talon": TALON, "trump": "AH"}
    game = match.start(Setup.from_json(data, rs.deck))
    durak.play(game, "1 redeal")
    result = match.record(game)
    assert result.redeal and result.to_json()["redeal"] is True and result.scores == (0, 0)
    assert match.deals == [] and match.number == 1 and match.dealer == 1 and not match.over
    again = match.deal(seed=7)
    assert again.setup.dealer == 1 and again.setup.deal_number == 1


MATCHES = 4  # of each player count


def test_random_matches_with_redeals_end_and_keep_their_invariants(durak):
    rs = durak.ruleset("marmot_tournament", match_end="deals", match_deals=3)
    rng = random.Random(4)
    redeals = 0
    for players in (2, 4) * MATCHES:  # a redeal is rare: enough matches that one comes
        match = Match(rs, players)
        while not match.over:
            game = match.deal(rng.randrange(2**31))
            while not game.is_terminal():
                legal = game.legal_actions()
                calls = [a for a in legal if a.kind == "redeal"]
                action = calls[0] if calls else rng.choice(legal)
                assert game.check_invariants("action", action) == []
                game.apply_action(action)
            result = match.record(game)
            redeals += result.redeal
            assert not result.failed
        assert len(match.deals) == 3
    assert redeals, redeals


def test_a_void_deal_passes_every_state_invariant(durak):
    g = durak.game(TWO_SUITS, TALON, trump="AH", attacker=0, preset="marmot_tournament")
    durak.play(g, "1 redeal")
    assert g.check_invariants() == []
