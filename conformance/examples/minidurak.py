"""minidurak: a small podkidnoy engine written as an independent project would write one; it knows
nothing of durak-spec. The style examples (style_*.py) each present it through one common move
model and adapt that to the protocol: copy the one closest to your engine.

Its rules are Pagat's podkidnoy: a 36-card pack, two to six players, the lowest trump leads (else
the dealer's left neighbour), everyone but the defender may add cards of a rank on the table once
a card is beaten (or after a take), the main attacker first and then clockwise from the
defender's left, at most six attack cards and no more than the defender held when the bout began,
the attacker draws first and the defender last, and the last player holding cards is the fool.
Four house rules are switches: `free_for_all` (anyone may add, in no order), `any_time` (cards
may be added while earlier ones lie unbeaten: with `free_for_all`, a siege), `done_by_main` (the
main attacker's "done" ends the adding for everyone) and `any_card_undoes_done` (a card added by
anyone gives those who said "done" a new chance, not only a beat or a take).
"""

from __future__ import annotations

from typing import NamedTuple

RANKS = "6789TJQKA"
SUITS = "SCDH"
HAND = 6


class Card(NamedTuple):
    rank: int
    suit: str

    def __str__(self) -> str:
        return RANKS[self.rank] + self.suit


def card(text: str) -> Card:
    text = text.upper().replace("10", "T")
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return Card(RANKS.index(text[0]), text[1])


class Durak:
    """One deal. Moves are tuples: ("open", seat, card), ("add", seat, card),
    ("beat", seat, attack_card, card), ("take", seat), ("done", seat)."""

    cap = 6  # attack cards per bout

    def __init__(self, hands, talon, trump: Card, dealer: int, attacker: int | None = None, *,
                 free_for_all: bool = False, any_time: bool = False, done_by_main: bool = False,
                 any_card_undoes_done: bool = False):
        self.n = len(hands)
        self.hands = [list(h) for h in hands]
        self.talon, self.trump = list(talon), trump
        self.free_for_all, self.any_time, self.done_by_main = free_for_all, any_time, done_by_main
        self.any_card_undoes_done = any_card_undoes_done
        self.table: list[list] = []
        self.out = [False] * self.n
        self.done: set[int] = set()
        self.taking = self.finished = False
        self.fool: int | None = None
        self.attacker = self._first(dealer) if attacker is None else attacker
        self.defender = self.next_in(self.attacker)
        self.start_hand = len(self.hands[self.defender])

    def resume(self, table, defender: int, taking: bool, done, out) -> None:
        """Continue from a position in the middle of a bout: the table's [attack, cover or None]
        pairs, the defender, whether they said take, who said done, who is out."""
        self.table = [[a, d] for a, d in table]
        self.out = [s in out for s in range(self.n)]
        self.defender, self.taking, self.done = defender, taking, set(done)
        self.start_hand = len(self.hands[defender]) + sum(d is not None for _, d in self.table)
        self._settle()

    # -- seats and cards ---------------------------------------------------------------------------
    def next_in(self, seat: int) -> int:
        """The next seat clockwise still in the game."""
        for step in range(1, self.n):
            if not self.out[(seat + step) % self.n]:
                return (seat + step) % self.n
        return seat

    def _first(self, dealer: int) -> int:
        trumps = [(min(c.rank for c in h if c.suit == self.trump.suit), seat)
                  for seat, h in enumerate(self.hands) if any(c.suit == self.trump.suit for c in h)]
        return min(trumps)[1] if trumps else (dealer + 1) % self.n

    def beats(self, attack: Card, cover: Card) -> bool:
        if cover.suit == attack.suit:
            return cover.rank > attack.rank
        return cover.suit == self.trump.suit

    def unbeaten(self) -> list[Card]:
        return [a for a, d in self.table if d is None]

    def discard_count(self) -> int:
        return 36 - len(self.talon) - sum(map(len, self.hands)) - sum(
            1 + (d is not None) for _, d in self.table)

    # -- who may do what ---------------------------------------------------------------------------
    def may_add(self, seat: int, c: Card) -> bool:
        """Add card c to the bout (not counting whose turn it is)."""
        ranks = {x.rank for pair in self.table for x in pair if x is not None}
        return (bool(self.table) and seat != self.defender and not self.out[seat]
                and seat not in self.done and c in self.hands[seat] and c.rank in ranks
                and (self.any_time or self.taking or len(self.unbeaten()) < len(self.table))
                and len(self.table) < min(self.cap, self.start_hand))

    def adders(self) -> list[int]:
        return [s for s in range(self.n) if any(self.may_add(s, c) for c in self.hands[s])]

    def may_say_done(self, seat: int, adders: list[int]) -> bool:
        """Say "done" (pass), given the players who could add a card."""
        if self.done_by_main and not self.out[self.attacker]:
            return seat == self.attacker and bool(adders)
        return seat in adders

    def turn(self, adders: list[int]) -> int | None:
        """Who adds or says done first: the main attacker, then clockwise from the defender's
        left (None: nobody, or anyone under free_for_all)."""
        waiting = [s for s in range(self.n) if s in adders or self.may_say_done(s, adders)]
        if self.free_for_all or not waiting:
            return None
        return min(waiting, key=lambda s: 0 if s == self.attacker else (s - self.defender) % self.n)

    def moves(self) -> list[tuple]:
        """Every legal move of every seat."""
        if self.finished:
            return []
        out = []
        if not self.table:
            return [("open", self.attacker, c) for c in self.hands[self.attacker]]
        adders = self.adders()
        turn = self.turn(adders)
        for s in range(self.n):
            if turn is not None and s != turn:
                continue
            out += [("add", s, c) for c in self.hands[s] if self.may_add(s, c)]
            if self.may_say_done(s, adders):
                out.append(("done", s))
        if not self.taking:
            d = self.defender
            out += [("beat", d, a, c) for a in self.unbeaten() for c in self.hands[d]
                    if self.beats(a, c)]
            if self.unbeaten():
                out.append(("take", d))
        return out

    # -- playing -----------------------------------------------------------------------------------
    def play(self, move: tuple) -> bool:
        """Make a move; False (and nothing changes) if it is not legal."""
        if move not in self.moves():
            return False
        kind, seat = move[0], move[1]
        if kind in ("open", "add"):
            self.hands[seat].remove(move[2])
            self.table.append([move[2], None])
            if self.any_card_undoes_done:
                self.done = set()
        elif kind == "beat":
            self.hands[seat].remove(move[3])
            next(p for p in self.table if p[0] == move[2] and p[1] is None)[1] = move[3]
            self.done = set()
        elif kind == "take":
            self.taking, self.done = True, set()
        elif self.done_by_main and seat == self.attacker:
            self.done = set(range(self.n))
        else:
            self.done.add(seat)
        self._settle()
        return True

    def _settle(self) -> None:
        """End the bout when nobody will or may add another card."""
        if not self.table:
            return
        if self.taking:
            if not self.adders():
                self.hands[self.defender] += [c for pair in self.table for c in pair if c is not None]
                self._end_bout(beaten=False)
        elif not self.unbeaten() and (not self.hands[self.defender] or not self.adders()):
            self._end_bout(beaten=True)

    def draw_order(self) -> list[int]:
        """Who draws, in order: the main attacker, the others clockwise, the defender last."""
        a, d = self.attacker, self.defender
        return sorted((s for s in range(self.n) if not self.out[s]),
                      key=lambda s: 0 if s == a else self.n if s == d else (s - a) % self.n)

    def next_attacker(self, beaten: bool) -> int:
        """After a beaten-off bout the defender attacks; after a take, the player to their left."""
        d = self.defender
        return (d if not self.out[d] else self.next_in(d)) if beaten else self.next_in(d)

    def _end_bout(self, beaten: bool) -> None:
        self.table = []
        for s in self.draw_order():
            need = max(0, HAND - len(self.hands[s]))
            self.hands[s] += self.talon[:need]
            del self.talon[:need]
        for s in range(self.n):
            if not self.out[s] and not self.hands[s] and not self.talon:
                self.out[s] = True
        left = [s for s in range(self.n) if not self.out[s]]
        if not self.talon and len(left) <= 1:
            self.finished, self.fool = True, (left[0] if left else None)
            return
        self.attacker = self.next_attacker(beaten)
        self.defender = self.next_in(self.attacker)
        self.start_hand = len(self.hands[self.defender])
        self.taking, self.done = False, set()
