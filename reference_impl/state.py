"""The game state: zones (hands, talon, table, discard), seats, roles and bout bookkeeping.

A plain container with the few queries the vocabulary (vocab.py) exposes to clauses. It knows no
rule: what may happen to it is decided by clauses in spec/ and done by primitives.py.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card


class Action(NamedTuple):
    """An atomic action made by one seat. `card` is None for take and pass; `target` is the
    attack card being covered, for cover only."""

    kind: str
    seat: int
    card: Card | None = None
    target: Card | None = None

    def __str__(self) -> str:
        from .notation import action_text
        return action_text(self)


class State:
    __slots__ = (
        "n", "hands", "talon", "trump_card", "trump_suit", "table", "discard", "deck_size",
        "attacker", "defender", "opener", "dealer", "bout_number", "beaten_bouts", "taking",
        "passed", "out", "active", "finish_order", "defender_hand_at_start", "unbeaten",
        "table_ranks", "attack_ranks", "can_throw", "any_throw", "finished", "fool",
        "last_attacker", "last_defender", "drew", "after_draw", "short_after_draw",
        "transferer", "hand_size", "steps",
    )

    def clone(self) -> "State":
        new = State.__new__(State)
        for name in State.__slots__:
            setattr(new, name, getattr(self, name))
        new.hands = [list(h) for h in self.hands]
        new.talon = list(self.talon)
        new.table = [list(p) for p in self.table]
        new.discard = list(self.discard)
        for name in ("passed", "out", "finish_order", "can_throw", "drew", "after_draw",
                     "short_after_draw"):
            setattr(new, name, list(getattr(self, name)))
        new.table_ranks = set(self.table_ranks)
        new.attack_ranks = set(self.attack_ranks)
        return new

    # -- queries the vocabulary uses ------------------------------------------------------
    def left_of(self, seat: int) -> int:
        """The next seat clockwise that is not out (the seat itself if everyone else is)."""
        n, out = self.n, self.out
        for step in range(1, n):
            nxt = (seat + step) % n
            if not out[nxt]:
                return nxt
        return seat

    def unbeaten_cards(self) -> list[Card]:
        return [a for a, d in self.table if d is None]

    def is_unbeaten(self, card) -> bool:
        return any(a is card and d is None for a, d in self.table)

    def unbeaten_share_rank(self, card) -> bool:
        return all(a.rank == card.rank for a, d in self.table if d is None)

    def has_trump(self, seat: int) -> bool:
        t = self.trump_suit
        return any(c.suit == t for c in self.hands[seat])

    def lowest_trump(self, seat: int):
        t = self.trump_suit
        return min((c.rank for c in self.hands[seat] if c.suit == t), default=None)

    def table_cards(self) -> list[Card]:
        return [c for pair in self.table for c in pair if c is not None]
