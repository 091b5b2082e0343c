"""The game state: zones (hands, talon, table, discard), seats, roles and bout bookkeeping.

A plain container with the few queries the vocabulary (vocab.py) exposes to clauses. It knows no
rule: what may happen to it is decided by clauses in spec/ and done by primitives.py.
"""

from __future__ import annotations

import operator
import weakref
from itertools import chain, compress
from typing import NamedTuple

from .cards import Card, Deck


class Action(NamedTuple):
    """An atomic action made by one seat. `card` is None for take and pass; `target` is the
    attack card being covered, for cover only."""

    kind: str
    seat: int
    card: Card | None = None
    target: Card | None = None

    def __str__(self) -> str:
        return action_text(self)


def action_text(a: Action) -> str:
    """The canonical text of an action (conformance/PROTOCOL.md): "<seat> <kind> [<card>]", and
    "<seat> cover <target> with <card>" for a cover."""
    if a.kind == "cover":
        return f"{a.seat} cover {a.target} with {a.card}"
    if a.target is not None:  # a second card of the hand (an exchange)
        return f"{a.seat} {a.kind} {a.card} {a.target}"
    return f"{a.seat} {a.kind}" + (f" {a.card}" if a.card is not None else "")


class ActionTexts(dict):
    """Action -> its text (action_text), made the first time it is asked for: the fuzzer reads a
    step's texts with map in C, without a Python call or an exception for an action not seen yet."""

    __slots__ = ()

    def __missing__(self, action: Action) -> str:
        t = self[action] = action_text(action)
        return t


_TABLES: "weakref.WeakKeyDictionary[Deck, dict]" = weakref.WeakKeyDictionary()


def action_table(deck: Deck, seats: int, kinds, card_kinds, target_kinds=("cover",),
                 forms=()) -> dict[str, list]:
    """Every action over `deck` for `seats` seats, built once per deck and shared, so legal-action
    generation looks actions up instead of building them: table[kind][seat] for kinds without a
    card, table[kind][seat][card.index] with one, table["cover"][seat][card.index][target.index].
    `forms` are cards played as a named suit (Deck.as_suit) to hold too, at their own index."""
    key = (seats, tuple(kinds), tuple(sorted(target_kinds)), tuple(c.index for c in forms))
    cached = _TABLES.setdefault(deck, {})
    if key not in cached:
        cards = list(deck.cards) + list(forms)
        slots = [None] * (max(c.index for c in cards) + 1)
        for c in cards:
            slots[c.index] = c
        make = tuple.__new__

        table = {}
        for kind in kinds:  # comprehensions, not a function per cell: a cover table has 10,000s
            if kind in target_kinds:
                table[kind] = [[None if c is None else
                                [None if t is None else make(Action, (kind, seat, c, t)) for t in slots]
                                for c in slots] for seat in range(seats)]
            elif kind in card_kinds:
                table[kind] = [[None if c is None else make(Action, (kind, seat, c, None))
                                for c in slots] for seat in range(seats)]
            else:
                table[kind] = [make(Action, (kind, seat, None, None)) for seat in range(seats)]
        cached[key] = table
    return cached[key]


class State:
    __slots__ = (
        "n", "hands", "talon", "trump_card", "trump_suit", "table", "discard", "deck_size",
        "attacker", "defender", "opener", "dealer", "bout_number", "beaten_bouts", "taking",
        "passed", "out", "active", "finish_order", "defender_hand_at_start", "unbeaten",
        "table_ranks", "attack_ranks", "can_throw", "any_throw", "finished", "fool",
        "last_attacker", "last_defender", "drew", "after_draw", "short_after_draw",
        "transferer", "hand_size", "steps", "added_since_answer", "last_adder", "team",
        "team_play", "emptied", "losers", "places", "deal_number", "after_a_loss", "previous_fool",
        "previous_winner", "last_table", "last_taken", "shown", "laid_by", "exchanges",
        "hidden_card", "redealt",
    )

    def clone(self) -> "State":
        """An independent copy: containers are copied, cards and numbers shared."""
        new = State.__new__(State)
        for name, value in zip(_VALUES, _get_values(self)):
            setattr(new, name, value)
        new.hands = [h[:] for h in self.hands]
        new.table = [p[:] for p in self.table]
        new.talon, new.discard = self.talon[:], self.discard[:]
        new.passed, new.out, new.finish_order = self.passed[:], self.out[:], self.finish_order[:]
        new.can_throw, new.drew = self.can_throw[:], self.drew[:]
        new.after_draw, new.short_after_draw = self.after_draw[:], self.short_after_draw[:]
        new.table_ranks, new.attack_ranks = set(self.table_ranks), set(self.attack_ranks)
        new.emptied = self.emptied[:]
        new.shown = set(self.shown)
        new.laid_by = self.laid_by[:]
        new.exchanges = self.exchanges[:]
        return new

    # -- queries the vocabulary uses ------------------------------------------------------
    def left_of(self, seat: int) -> int:
        """The next seat clockwise that is not out (the seat itself if everyone else is)."""
        n, out = self.n, self.out
        nxt = (seat + 1) % n
        while nxt != seat:
            if not out[nxt]:
                return nxt
            nxt = (nxt + 1) % n
        return seat

    def right_of(self, seat: int) -> int:
        """The next seat counterclockwise that is not out (the seat itself if everyone else is)."""
        n, out = self.n, self.out
        nxt = (seat - 1) % n
        while nxt != seat:
            if not out[nxt]:
                return nxt
            nxt = (nxt - 1) % n
        return seat

    def next_opponent(self, seat: int) -> int:
        """The next seat clockwise that is not out and not on the seat's team (the seat itself if
        there is none). Without teams every team has one seat, so this is left_of."""
        n, out, team = self.n, self.out, self.team
        mine = team[seat]
        nxt = (seat + 1) % n
        while nxt != seat:
            if not out[nxt] and team[nxt] != mine:
                return nxt
            nxt = (nxt + 1) % n
        return seat

    def teams_in_game(self) -> int:
        return len(set(compress(self.team, map(operator.not_, self.out))))

    def team_out(self, seat: int) -> bool:
        out, team = self.out, self.team
        return all(out[x] for x in range(self.n) if team[x] == team[seat])

    def finish_place(self, seat: int) -> int:
        order = self.finish_order
        return order.index(seat) + 1 if seat in order else 0

    def unbeaten_cards(self) -> list[Card]:
        return [a for a, d in self.table if d is None]

    def is_unbeaten(self, card) -> bool:
        return any(a is card and d is None for a, d in self.table)

    def unbeaten_share_rank(self, card) -> bool:
        return all(a.rank == card.rank for a, d in self.table if d is None)

    def lowest_rank(self, seat: int):
        return min((c.rank for c in self.hands[seat]), default=None)

    def turn_up_rank(self):
        """The turned-up trump card's rank while it lies in the talon (at either end, or just
        above a hidden card under it), else None."""
        talon, card = self.talon, self.trump_card
        if talon and (talon[-1] is card or talon[0] is card):
            return card.rank
        if self.hidden_card is not None and len(talon) > 1 and talon[-2] is card:
            return card.rank
        return None

    def turn_up_index(self) -> int:
        """Where the turned-up trump card lies in the talon (it must lie there)."""
        talon, card = self.talon, self.trump_card
        for i in (len(talon) - 1, 0, len(talon) - 2):
            if talon[i] is card:
                return i
        raise ValueError(f"the turn-up {card} is not in the talon")

    def laid(self, seat: int) -> int:
        """Attack cards on the table that `seat` laid."""
        return self.laid_by.count(seat)

    def table_cards(self) -> list[Card]:
        return [c for pair in self.table for c in pair if c is not None]

    def in_play(self) -> list[Card]:
        """The physical cards still in the game: every hand, the table and the talon (the turn-up
        and a card hidden under it included); the discard pile is out of play."""
        out = list(chain.from_iterable(self.hands))
        if self.table:
            out += [c.real for pair in self.table for c in pair if c is not None]
        out += self.talon
        return out


# Slots holding numbers, cards, bools or None, which a clone may share.
_CONTAINERS = {"hands", "table", "talon", "discard", "passed", "out", "finish_order", "can_throw",
               "drew", "after_draw", "short_after_draw", "table_ranks", "attack_ranks", "emptied",
               "shown", "laid_by", "exchanges"}
_VALUES = tuple(n for n in State.__slots__ if n not in _CONTAINERS)
_get_values = operator.attrgetter(*_VALUES)
