"""Action notation (reference_impl/notation.py, cards.py): canonical text and JSON forms, their
round trips, and the errors for text that is not a card or an action."""

from __future__ import annotations

import json
import random

import pytest

from durak_spec.reference_impl.errors import NotationError
from durak_spec.reference_impl.game import Game
from durak_spec.reference_impl.notation import action_json, action_text, parse_action
from durak_spec.reference_impl.spec import shipped_spec
from durak_spec.reference_impl.state import Action


@pytest.fixture(scope="module")
def deck():
    return shipped_spec().deck


CASES = [
    # text, JSON, (kind, seat, card, target)
    ("0 attack 9S", {"seat": 0, "kind": "attack", "card": "9S"}, ("attack", 0, "9S", None)),
    ("2 throw 9D", {"seat": 2, "kind": "throw", "card": "9D"}, ("throw", 2, "9D", None)),
    ("1 cover 9S with JS", {"seat": 1, "kind": "cover", "card": "JS", "target": "9S"},
     ("cover", 1, "JS", "9S")),
    ("1 take", {"seat": 1, "kind": "take"}, ("take", 1, None, None)),
    ("0 pass", {"seat": 0, "kind": "pass"}, ("pass", 0, None, None)),
    ("1 transfer TC", {"seat": 1, "kind": "transfer", "card": "TC"}, ("transfer", 1, "TC", None)),
    ("0 exchange 7S 8D", {"seat": 0, "kind": "exchange", "card": "7S", "second": "8D"},
     ("exchange", 0, "7S", "8D")),
]


def _action(deck, kind, seat, c, t):
    return Action(kind, seat, deck.card(c) if c else None, deck.card(t) if t else None)


@pytest.mark.parametrize("text, obj, parts", CASES, ids=[c[0] for c in CASES])
def test_an_action_prints_as_its_canonical_text_and_json(deck, text, obj, parts):
    a = _action(deck, *parts)
    assert action_text(a) == text
    assert str(a) == text
    assert action_json(a) == obj


@pytest.mark.parametrize("text, obj, parts", CASES, ids=[c[0] for c in CASES])
def test_text_and_json_parse_to_the_same_action(deck, text, obj, parts):
    a = _action(deck, *parts)
    assert parse_action(text, deck, 3) == a
    assert parse_action(obj, deck, 3) == a
    assert parse_action(action_text(a), deck) == a
    assert parse_action(action_json(a), deck) == a


def test_every_legal_action_of_random_games_round_trips_through_text_and_json(durak):
    seen_kinds = set()
    for preset, players, seed in [("podkidnoy", 2, 1), ("podkidnoy", 4, 2), ("perevodnoy", 3, 3)]:
        g = Game.from_seed(durak.ruleset(preset), players, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            for a in g.legal_actions():
                assert g.parse_action(action_text(a)) == a
                assert g.parse_action(action_json(a)) == a
                seen_kinds.add(a.kind)
            g.apply_action(rng.choice(g.legal_actions()))
    assert seen_kinds == {"attack", "throw", "cover", "take", "pass", "transfer"}


def test_ten_may_be_written_10_and_prints_as_t(deck):
    assert deck.card("10S") is deck.card("TS")
    a = parse_action("1 cover 9S with 10S", deck)
    assert a.card is deck.card("TS")
    assert action_text(a) == "1 cover 9S with TS"
    assert parse_action({"seat": 0, "kind": "attack", "card": "10D"}, deck).card is deck.card("TD")


def test_parsed_cards_are_the_decks_own_card_objects(deck):
    a = parse_action("0 attack qh", deck)
    assert a.card is deck.card("QH")


@pytest.mark.parametrize("value, bad", [
    ("0 attack 5S", "5S"),
    ("0 attack 9X", "9X"),
    ("1 cover ZZ with JS", "ZZ"),
    ("1 cover 9S with 11S", "11S"),
    ({"seat": 0, "kind": "throw", "card": "KK"}, "KK"),
    ({"seat": 1, "kind": "cover", "card": "JS", "target": "1S"}, "1S"),
])
def test_a_bad_card_is_a_notation_error_that_names_the_card(deck, value, bad):
    with pytest.raises(NotationError) as info:
        parse_action(value, deck)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("value, fragment", [
    ("0 attak 9S", "unknown action kind 'attak'"),
    ("0 take 9S", "take takes no card"),
    ("0 attack", "attack takes one card"),
    ("1 cover 9S JS", "write a cover as"),
    ("x attack 9S", "a seat is a number"),
    ("0", "needs a seat and a kind"),
    ({"seat": 0, "kind": "pass", "card": "9S"}, "has no 'card'"),
    ({"seat": 0, "kind": "attack"}, "needs a 'card'"),
    ({"seat": 1, "kind": "throw", "card": "9S", "target": "8S"}, "'target' is required for cover"),
    ({"kind": "take"}, "needs 'seat' and 'kind'"),
    ("0 exchange 7S", "exchange takes two cards"),
    ("0 exchange 7S 7S", "two different cards"),
    ({"seat": 0, "kind": "exchange", "card": "7S"}, "'second' is required"),
    ({"seat": 0, "kind": "attack", "card": "7S", "second": "8D"}, "'second' is required"),
])
def test_malformed_actions_are_notation_errors_that_say_what_is_wrong(deck, value, fragment):
    with pytest.raises(NotationError) as info:
        parse_action(value, deck)
    assert fragment in str(info.value)


def test_a_seat_beyond_the_players_is_rejected(deck):
    with pytest.raises(NotationError) as info:
        parse_action("3 take", deck, players=3)
    assert "seats are 0 to 2" in str(info.value)
    assert parse_action("2 take", deck, players=3) == Action("take", 2)


def test_a_card_played_as_another_suit_has_one_text_and_json_form_and_no_variant_plays_it(durak):
    """The Weli's notation (conformance/PROTOCOL.md, D38): '6D=H' reads as the six of diamonds
    played as a heart, prints back the same in text and JSON, and is refused where no Weli is played."""
    game = durak.game([["6D", "7S"], ["8S", "9S"]], ["AH"], trump="AH", attacker=0)
    deck = game.ruleset.deck
    a = parse_action("0 attack 6d=h", deck, 2)
    assert (a.card.text, a.card.suit, a.card.real) == ("6D=H", "H", deck.card("6D"))
    assert str(a) == "0 attack 6D=H" and action_json(a)["card"] == "6D=H"
    assert parse_action(action_json(a), deck, 2) == a and deck.card("6D=D") is deck.card("6D")
    assert game.explain(a)[0] == "play.named_suit"
    with pytest.raises(NotationError):
        deck.card("6D=X")


def test_the_protocol_state_is_the_state_s_json_and_every_answer_is_the_caller_s_own():
    """protocol_state reads the state straight, with a hand's texts kept from one call to the
    next: it says what state_json says, and a caller that changes the lists of one answer (an
    engine building its own) changes no later answer."""
    from durak_spec.reference_impl.game import Setup
    from durak_spec.reference_impl.notation import protocol_state, state_json

    rs = shipped_spec().ruleset("podkidnoy")
    rng = random.Random(3)
    for players in (2, 4):
        g = Game(rs, Setup.deal(rs, players, players))
        while not g.is_terminal():
            g.apply_action(rng.choice(g.legal_actions()))
            full, view = state_json(g.state), protocol_state(g.state)
            assert view["hands"] == full["hands"] and view["table"] == full["table"]
            assert view["hand_sizes"] == [len(h) for h in full["hands"]]
            assert (view["talon_count"], view["trump"], view["discard_count"], view["out"]) == \
                (len(full["talon"]), full["trump"], full["discard_count"], full["out"])
            for hand in view["hands"]:
                hand.append("XX")
            for pair in view["table"]:
                pair.append("XX")
            assert protocol_state(g.state)["hands"] == full["hands"]
            assert protocol_state(g.state)["table"] == full["table"]


def _loosely_equal_others(view: dict):
    """Copies of `view` with one number or truth value (inside the lists too) replaced by one
    Python finds equal: 0 or 1 for a truth value, a truth value for 0 or 1, n.0 for n."""
    for key, value in view.items():
        for index, x in enumerate(value) if isinstance(value, list) else [(None, value)]:
            if type(x) not in (bool, int):
                continue
            for other in [int(x), float(x)] if type(x) is bool else \
                    [float(x)] + ([bool(x)] if x in (0, 1) else []):
                copy = json.loads(json.dumps(view))
                if index is None:
                    copy[key] = other
                else:
                    copy[key][index] = other
                yield copy


def _other_states(view: dict):
    """Copies of `view` that differ from it as Python compares too: a field left out or added,
    a card, a pair, a list as another kind of sequence."""
    yield {k: v for k, v in view.items() if k != "fool"}
    yield {**view, "redeal": False}
    yield {**view, "trump": view["trump"] + " "}
    yield {**view, "hands": [h[:-1] for h in view["hands"]]}
    yield {**view, "hands": [tuple(h) for h in view["hands"]]}
    yield {**view, "table": [[a, d] for d, a in view["table"]]}
    yield {**view, "table": [tuple(p) for p in view["table"]]}
    yield {**view, "out": view["out"] + [0]}
    yield {**view, "hand_sizes": view["hand_sizes"][:-1]}


def test_a_state_record_is_the_protocol_state_and_an_engine_state_is_it_only_exactly():
    """notation.state_record keeps what protocol_state reads, however the game goes on:
    record_state makes protocol_state's dict of it; record_is holds for that dict read back from
    JSON (its keys in any order), ended or not, and for no state that differs from it, were it
    only as JSON does (0 for false, a truth value for 0 or 1, 6.0 for 6, in a list or not).
    engine.same_json (how the fuzzer's _check_state and a delta answer tell a state the
    reference's in JSON too, not only equal to it) tells them apart the same way, ended or not."""
    from durak_spec.conformance.engine import same_json
    from durak_spec.reference_impl.game import Setup
    from durak_spec.reference_impl.notation import (
        protocol_state,
        record_is,
        record_state,
        state_record,
    )

    counted = {"loose": 0, "other": 0, "out": 0, "table": 0}
    for preset, players in (("podkidnoy", 2), ("perevodnoy", 4), ("podkidnoy", 6)):
        rs = shipped_spec().ruleset(preset)
        rng = random.Random(players)
        g = Game(rs, Setup.deal(rs, players, players))
        kept = []
        while True:
            kept.append((state_record(g.state), protocol_state(g.state)))
            if g.is_terminal():
                break
            g.apply_action(rng.choice(g.legal_actions()))
        for record, view in kept:  # the game has gone on since each was made
            assert record_state(record) == view
            again = json.loads(json.dumps(dict(reversed(view.items()))))
            assert record_is(again, record) and same_json(again, view)
            assert not record_is(view["hands"], record)
            for other in _loosely_equal_others(view):
                assert other == view and not record_is(other, record)
                assert not same_json(other, view)
                counted["loose"] += 1
            for other in _other_states(view):
                if other != view:  # (an empty table or hand stays as it is)
                    assert not record_is(other, record) and not same_json(other, view)
                    counted["other"] += 1
            counted["out"] += bool(view["out"]) and not view["finished"]
            counted["table"] += any(d is not None for _, d in view["table"])
    assert all(counted.values()), counted
