"""The Weli (option weli, rules play.named_suit and play.own_suit, D38): a designated six its player
plays as any suit they name; on the table it is a six of that suit for every rule."""

from __future__ import annotations

from durak_spec.reference_impl.game import Game, Setup


def test_the_weli_is_offered_in_every_suit_and_attacks_as_the_named_suit(durak):
    g = durak.game([["6D", "7S"], ["8S", "9S"]], ["AH"], trump="AH", attacker=0, preset="weli")
    assert {"0 attack 6D", "0 attack 6D=S", "0 attack 6D=C", "0 attack 6D=H"} <= durak.legal(g, "attack")
    durak.play(g, "0 attack 6D=S")
    assert g.full_state()["table"] == [["6D=S", None]]
    assert g.state.hands[0] == [g.ruleset.deck.card("7S")]
    assert durak.is_legal(g, "1 cover 6D=S with 8S")  # a higher spade beats the six of spades


def test_naming_the_trump_suit_makes_the_weli_a_trump(durak):
    g = durak.game([["6D", "7S"], ["AS", "9S"]], ["7H"], trump="7H", attacker=0, preset="weli")
    durak.play(g, "0 attack 6D=H")
    assert durak.reject(g, "1 cover 6D=H with AS").rule_id == "defence.beat"
    g = durak.game([["AS", "7S"], ["6D", "9S"]], ["7H"], trump="7H", attacker=0, preset="weli")
    durak.play(g, "0 attack AS", "1 cover AS with 6D=H")  # the Weli trumps the ace as a heart
    assert [[a.text, d.text] for a, d in g.state.last_table] == [["AS", "6D=H"]]
    assert all(c.real is c for c in g.state.discard)  # beaten off as the card it is


def test_the_weli_stays_a_six_for_throw_ins_and_a_named_card_on_the_table_keeps_its_suit(durak):
    g = durak.game([["6S", "6D", "7C"], ["8S", "9S", "KH", "KS"]], ["AH"], trump="AH", attacker=0,
                   preset="weli")
    durak.play(g, "0 attack 6S", "1 cover 6S with 8S", "0 throw 6D=C")
    assert durak.is_legal(g, "1 cover 6D=C with 9S") is False  # a spade does not beat a club
    assert durak.is_legal(g, "1 cover 6D=C with KH")  # a trump does


def test_a_picked_up_weli_goes_back_to_the_hand_as_the_card_it_is(durak):
    g = durak.game([["6D", "7C"], ["8S", "9S"]], ["AH"], trump="AH", attacker=0, preset="weli")
    durak.play(g, "0 attack 6D=S", "1 take")  # nothing to add: the bout ends at once
    assert sorted(c.text for c in g.state.hands[1]) == ["6D", "8S", "9S"]


def test_the_weli_is_transferred_as_a_six(durak):
    g = durak.game([["6S", "7C"], ["6D", "9S"], ["KS", "QS"]], ["AH"], trump="AH", attacker=0,
                   preset="weli", transfer=True)
    durak.play(g, "0 attack 6S", "1 transfer 6D=H")
    assert g.full_state()["table"] == [["6S", None], ["6D=H", None]] and g.state.defender == 2


def test_only_the_weli_takes_a_named_suit(durak):
    g = durak.game([["6D", "6S"], ["8S", "9S"]], ["AH"], trump="AH", attacker=0, preset="weli")
    assert durak.reject(g, "0 attack 6S=D").rule_id == "play.named_suit"
    g = durak.game([["6D", "6S"], ["8S", "9S"]], ["AH"], trump="AH", attacker=0)
    assert not any(a.card is not None and a.card.real is not a.card for a in g.legal_actions())
    assert durak.reject(g, "0 attack 6D=H").rule_id == "play.named_suit"


def test_a_card_not_held_is_still_refused_as_not_own_card_when_named(durak):
    g = durak.game([["7D", "6S"], ["8S", "9S"]], ["AH"], trump="AH", attacker=0, preset="weli")
    assert durak.reject(g, "0 attack 6D=H").rule_id == "play.own_card"


def test_a_swapped_card_keeps_its_own_suit(durak):
    g = durak.game([["6D", "7C"], ["8S", "9S"]], ["8H", "AD"], trump="AD", attacker=0,
                   preset="weli", trump_exchange="lowest_trump")
    assert durak.is_legal(g, "0 swap 6D")
    assert durak.reject(g, "0 swap 6D=S").rule_id == "play.own_suit"


def test_a_position_with_a_named_card_on_the_table_plays_on(durak):
    rs = durak.ruleset("weli")
    data = {"hands": [["7C"], ["8S", "KC"]], "talon": [], "trump": "AH", "dealer": 1,
            "attacker": 0, "defender": 1, "table": [["6D=C", None]]}
    g = Game(rs, Setup.from_json(data, rs.deck))
    assert durak.legal(g, "cover") == {"1 cover 6D=C with KC"}


def test_a_named_card_on_the_table_is_a_setup_error_where_no_weli_is_played(durak):
    import pytest

    from durak_spec.reference_impl.errors import SetupError
    rs = durak.ruleset("podkidnoy")
    data = {"hands": [["7C"], ["8S", "KC"]], "talon": [], "trump": "AH", "dealer": 1,
            "attacker": 0, "defender": 1, "table": [["6D=C", None]]}
    with pytest.raises(SetupError, match="play.named_suit"):
        Game(rs, Setup.from_json(data, rs.deck))
    with pytest.raises(SetupError, match="only on the table"):
        Setup.from_json({"hands": [["6D=C"], ["8S"]], "trump": "AH"}, rs.deck)


def test_which_six_is_the_weli_is_data_and_the_rule_decides_what_is_offered(spec_copy):
    """Principle 1: the preset's option picks the Weli, and the generator offers a named suit
    wherever play.named_suit's card-only condition allows it, with no Python change."""
    spec = spec_copy.edit("presets.yaml", "      weli: D\n", "      weli: S\n").load()
    rs = spec.ruleset("weli")
    data = {"hands": [["6D", "6S"], ["8S", "9S"]], "talon": ["AH"], "trump": "AH", "attacker": 0}
    g = Game(rs, Setup.from_json(data, rs.deck))
    named = {str(a) for a in g.legal_actions() if a.card is not None and a.card.real is not a.card}
    assert named == {"0 attack 6S=C", "0 attack 6S=D", "0 attack 6S=H"}
    loose = spec_copy.edit("rules/play.yaml", 'clause: "card.suit == card.own_suit or is_weli(card)"',
                           'clause: "card.suit == card.own_suit or card.rank == \'6\'"').load()
    rs = loose.ruleset("podkidnoy")
    g = Game(rs, Setup.from_json(data, rs.deck))
    named = {str(a) for a in g.legal_actions() if a.card is not None and a.card.real is not a.card}
    assert len(named) == 6 and "0 attack 6D=H" in named
