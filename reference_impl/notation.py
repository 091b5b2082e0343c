"""Canonical text and JSON notation for actions and states (fixed here, documented in
conformance/PROTOCOL.md and docs).

Action text: "<seat> <kind> [<card>]", and for cover "<seat> cover <target> with <card>":
  "0 attack 9S", "2 throw 9D", "1 cover 9S with JS", "1 take", "0 pass", "1 transfer 9C",
  "1 show 9H" (the passport), "2 swap 6H" (the trump exchange), "0 exchange 7S 8D" (poker durak:
  two cards of the hand, written in the deck's order, the lower first). The kinds and what each carries
  are spec/flow.yaml's `actions:` (vocab.ACTIONS).
Action JSON: {"seat": 1, "kind": "cover", "card": "JS", "target": "9S"}; an exchange's second
card is "second": {"seat": 0, "kind": "exchange", "card": "7S", "second": "8D"}.
A card played as another suit (the Weli: a six whose suit its player names) is the card, "=" and
the suit, in text and JSON alike: "0 attack 6D=H", {"seat": 0, "kind": "attack", "card": "6D=H"}
(Deck.card reads it, Deck.as_suit makes it; its `real` is the physical card).
"""

from __future__ import annotations

import operator
from operator import is_

from .cards import Deck
from .errors import NotationError, suggest
from .state import Action, State, action_text
from .vocab import ACTION_KINDS, CARD_KINDS, SECOND_KINDS, TARGET_KINDS

__all__ = ["action_json", "action_text", "cards_json", "comparable_field", "parse_action",
           "protocol_state", "state_json", "state_text"]


def action_json(a: Action) -> dict:
    out = {"seat": a.seat, "kind": a.kind}
    if a.card is not None:
        out["card"] = a.card.text
    if a.target is not None:
        out["second" if a.kind in SECOND_KINDS else "target"] = a.target.text
    return out


def _kind(kind) -> str:
    if kind not in ACTION_KINDS:
        raise NotationError(f"unknown action kind {kind!r}; kinds: {', '.join(ACTION_KINDS)}."
                            f"{suggest(kind, ACTION_KINDS)}")
    return kind


def _seat(seat, players: int | None) -> int:
    try:
        value = int(seat)
    except (TypeError, ValueError):
        raise NotationError(f"a seat is a number, not {seat!r}") from None
    if isinstance(seat, bool) or value < 0 or (players is not None and value >= players):
        raise NotationError(f"seat {seat!r} does not exist" +
                            (f"; seats are 0 to {players - 1}" if players else ""))
    return value


def parse_action(value, deck: Deck, players: int | None = None) -> Action:
    """Read an action from its text or JSON form."""
    if isinstance(value, dict):
        return _action_from_json(value, deck, players)
    if not isinstance(value, str):
        raise NotationError(f"an action is text like '0 attack 9S' or a JSON object, not {value!r}")
    words = value.split()
    if len(words) < 2:
        raise NotationError(f"action {value!r} needs a seat and a kind, e.g. '0 attack 9S'")
    seat, kind = _seat(words[0], players), _kind(words[1])
    rest = words[2:]
    if kind in TARGET_KINDS:
        if len(rest) != 3 or rest[1] != "with":
            raise NotationError(f"write a cover as '<seat> cover <attack card> with <card>', not {value!r}")
        return Action(kind, seat, deck.card(rest[2]), deck.card(rest[0]))
    if kind in SECOND_KINDS:
        if len(rest) != 2:
            raise NotationError(f"{kind} takes two cards: '<seat> {kind} <card> <card>', not {value!r}")
        return _pair(kind, seat, deck.card(rest[0]), deck.card(rest[1]))
    if kind in CARD_KINDS:
        if len(rest) != 1:
            raise NotationError(f"{kind} takes one card: '<seat> {kind} <card>', not {value!r}")
        return Action(kind, seat, deck.card(rest[0]))
    if rest:
        raise NotationError(f"{kind} takes no card: '<seat> {kind}', not {value!r}")
    return Action(kind, seat)


def _pair(kind: str, seat: int, card, second) -> Action:
    """An action with two cards of the hand, the lower (in the deck's order) first."""
    if card.index == second.index:
        raise NotationError(f"{kind} gives two different cards, not {card} twice")
    return Action(kind, seat, *sorted((card, second), key=_INDEX))


def _action_from_json(obj: dict, deck: Deck, players) -> Action:
    unknown = set(obj) - {"seat", "kind", "card", "target", "second"}
    if unknown:
        raise NotationError(f"unknown action field(s) {sorted(unknown)}; fields: seat, kind, card, "
                            "target, second")
    if "seat" not in obj or "kind" not in obj:
        raise NotationError(f"an action needs 'seat' and 'kind': {obj!r}")
    kind, seat = _kind(obj["kind"]), _seat(obj["seat"], players)
    if (kind in SECOND_KINDS) != ("second" in obj):
        raise NotationError(f"'second' is required for {', '.join(sorted(SECOND_KINDS))} and only there")
    if kind in SECOND_KINDS:
        if "card" not in obj or "target" in obj:
            raise NotationError(f"a {kind} action needs a 'card' and a 'second', and no 'target'")
        return _pair(kind, seat, deck.card(obj["card"]), deck.card(obj["second"]))
    if kind in CARD_KINDS and "card" not in obj:
        raise NotationError(f"a {kind} action needs a 'card'")
    if kind not in CARD_KINDS and "card" in obj:
        raise NotationError(f"a {kind} action has no 'card'")
    if (kind in TARGET_KINDS) != ("target" in obj):
        raise NotationError("'target' is required for cover and only for cover")
    card = deck.card(obj["card"]) if "card" in obj else None
    target = deck.card(obj["target"]) if "target" in obj else None
    return Action(kind, seat, card, target)


_INDEX = operator.attrgetter("index")
_TEXT = operator.attrgetter("text")


def cards_json(cards) -> list[str]:
    return [c.text for c in sorted(cards, key=_INDEX)]


def state_json(s: State) -> dict:
    """The observable state, as the conformance suite compares it."""
    result = None
    if s.redealt:  # a void deal (rule deck.redeal): no fool, and not a draw
        result = {"fool": None, "draw": False, "redeal": True, "finish_order": []}
    elif s.finished:
        result = {"fool": s.fool, "draw": s.fool is None, "finish_order": list(s.finish_order)}
    out = {
        "players": s.n,
        "hands": [cards_json(h) for h in s.hands],
        "talon": [c.text for c in s.talon],
        "trump": s.trump_card.text,
        "trump_suit": s.trump_suit,
        "table": [[a.text, d.text if d is not None else None] for a, d in s.table],
        "discard_count": len(s.discard),
        "attacker": s.attacker,
        "defender": s.defender,
        "taking": s.taking,
        "passed": [i for i, p in enumerate(s.passed) if p],
        "out": [i for i, o in enumerate(s.out) if o],
        "bout": s.bout_number,
        "beaten_bouts": s.beaten_bouts,
        "finished": s.finished,
        "result": result,
    }
    if s.hidden_card is not None:  # changeable trump: the card under the turn-up, still hidden
        out["hidden"] = s.hidden_card.text
    return out


# A hand's sorted card texts, by the hand's cards in their order (cards hash by identity): the
# fuzzer shows a state per step on each side, and from one step to the next most hands are the
# same. Bounded: emptied when it reaches _HANDS_MAX entries.
_HANDS: dict = {}
_HANDS_MAX = 50_000


def _hand_texts(key: tuple) -> list[str]:
    """The sorted card texts of a hand not in _HANDS yet (`key`: its cards as a tuple), kept
    there: a list that record_is compares an engine's list with as it is, never handed out
    (protocol_state and record_state copy it)."""
    if len(_HANDS) >= _HANDS_MAX:
        _HANDS.clear()
    texts = _HANDS[key] = list(map(_TEXT, sorted(key, key=_INDEX)))
    return texts


def protocol_state(s: State) -> dict:
    """The state as the engine protocol carries it (conformance/PROTOCOL.md "state"): the fields
    of state_json that the protocol compares, read straight from the state because the fuzzer
    builds one per step on each side. Every call makes new lists: a caller may change them."""
    out, table, get = s.out, [], _HANDS.get
    texts, sizes = [], []
    # plain loops: a comprehension is a function call in 3.11, and a map costs more machine
    # instructions than the loop (bench/fuzz_speed.py --machine)
    for hand in s.hands:
        key = tuple(hand)
        known = get(key)
        texts.append(list(known if known is not None else _hand_texts(key)))
        sizes.append(len(hand))
    for a, d in s.table:
        table.append([a.text, d.text if d is not None else None])
    state = {"hands": texts, "hand_sizes": sizes,
             "talon_count": len(s.talon), "trump": s.trump_card.text, "table": table,
             "discard_count": len(s.discard), "attacker": s.attacker, "defender": s.defender,
             "taking": s.taking, "out": [i for i, o in enumerate(out) if o] if True in out else [],
             "finished": s.finished, "fool": s.fool}
    if s.redealt:  # a void deal (rule deck.redeal); left out otherwise
        state["redeal"] = True
    return state


def state_record(s: State) -> tuple:
    """What protocol_state reads of `s`, kept as it is now (later steps change the state's lists
    in place), its hands' and table's texts made at once: record_state makes protocol_state's
    dict of it, only when one is wanted, and record_is tells whether an engine's state is that
    dict exactly. The fuzzer keeps one per step it plans. Its hands are _HANDS's own lists,
    never to be changed (record_state copies them)."""
    get, texts, sizes, table = _HANDS.get, [], [], []
    for hand in s.hands:  # (plain loops, as protocol_state's)
        key = tuple(hand)
        texts.append(get(key) or _hand_texts(key))
        sizes.append(len(hand))
    for a, d in s.table:
        table.append([a.text, d.text if d is not None else None])
    return (texts, sizes, table, len(s.talon), s.trump_card.text, len(s.discard), s.attacker,
            s.defender, s.taking, tuple(s.out), s.finished, s.fool, s.redealt)


def record_state(record: tuple) -> dict:
    """protocol_state of the state `record` (state_record) was made of: its lists new."""
    texts, sizes, table, talon, trump, discard, attacker, defender, taking, out, finished, fool, \
        redealt = record
    state = {"hands": [list(h) for h in texts], "hand_sizes": list(sizes), "talon_count": talon,
             "trump": trump, "table": [list(p) for p in table], "discard_count": discard,
             "attacker": attacker, "defender": defender, "taking": taking,
             "out": [i for i, o in enumerate(out) if o], "finished": finished, "fool": fool}
    if redealt:
        state["redeal"] = True
    return state


def record_is(have, record: tuple) -> bool:
    """Whether `have` (an engine's state) is record_state(record) exactly, as JSON too, for a
    game not over: its hands and table equal to the record's texts (each list compared whole: a
    list is never equal to a tuple, nor a text to anything but a text), its numbers and truth
    values the record's own objects (False and True are unique, CPython keeps one object per
    small integer and json.loads returns it), so 0 for false or 6.0 for 6 is not taken for them
    (Python finds them equal). A game over too: its roles then are the record's as well, though
    the fuzzer no longer compares them (the reference's own state is in protocol). False for a
    redealt deal and for any state it does not prove, which the caller then compares as it would
    without it: this decides how soon a state is taken, never whether."""
    texts, sizes, table, talon, trump, discard, attacker, defender, taking, out, finished, fool, \
        redealt = record
    try:
        if redealt or type(have) is not dict or len(have) != 12 \
                or have["finished"] is not finished or have["taking"] is not taking \
                or have["attacker"] is not attacker or have["defender"] is not defender \
                or have["talon_count"] is not talon or have["discard_count"] is not discard \
                or have["fool"] is not fool or have["trump"] != trump \
                or have["hands"] != texts or have["table"] != table:
            return False
        given = have["hand_sizes"]
        if type(given) is not list or len(given) != len(sizes) or not all(map(is_, given, sizes)):
            return False
        gone = have["out"]
        if True in out:
            seats = [i for i, o in enumerate(out) if o]
            return type(gone) is list and len(gone) == len(seats) and all(map(is_, gone, seats))
        return gone == []
    except (KeyError, TypeError):  # an in-process engine's object where the protocol has a list
        return False


def state_text(s: State) -> str:
    """A short human-readable picture of the state."""
    lines = [f"trump {s.trump_card} ({s.trump_suit}), talon {len(s.talon)}, discard "
             f"{len(s.discard)}, bout {s.bout_number}"]
    for seat, hand in enumerate(s.hands):
        role = "A" if seat == s.attacker else "D" if seat == s.defender else " "
        mark = " out" if s.out[seat] else ""
        lines.append(f"  {seat}{role} {' '.join(cards_json(hand)) or '-'}{mark}")
    table = "  ".join(f"{a}/{d}" if d else f"{a}/--" for a, d in s.table)
    lines.append(f"  table: {table or '-'}{'  (taking)' if s.taking else ''}")
    if s.finished:
        lines.append(f"  result: {'draw' if s.fool is None else f'seat {s.fool} is the fool'}")
    return "\n".join(lines)


def comparable_field(key: str, value):
    """A state field in the form two states are compared in: hands as sets of cards, table pairs
    in any order, seat lists (out, passed) as sets."""
    if key == "hands" and isinstance(value, list):
        return [sorted(h) if isinstance(h, list) else h for h in value]
    if key == "table" and isinstance(value, list):
        return sorted([list(p) + [None] * (2 - len(p)) if isinstance(p, list) else p for p in value],
                      key=repr)
    if key in ("out", "passed") and isinstance(value, list):
        return sorted(value, key=repr)
    return value
