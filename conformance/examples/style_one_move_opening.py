"""Style: a multi-card opening is one move. The opener may lead several cards of one rank
(opening same_rank_multi, a house rule declared in hello), all in one move; after it the
defender answers. The engine declares `"actions": {"opening": "one_move"}` (protocol 1.1): the
runner then sends the opening attack and the opener's further cards before anyone else acts as
one action, `0 attack 7S 7C 7D`, and leaves the opener's further cards out of the legal sets
it compares while that opening could still have grown. The adapter lists one-card openings
(`0 attack 7S`); a longer one extends them.

    durak check --adapter python:durak_spec.conformance.examples.style_one_move_opening:OneMoveOpeningEngine

`BrokenOneMoveOpeningEngine` lets an opening mix ranks: the suite fails it where the second card
is refused.
"""

from __future__ import annotations

from itertools import combinations

from durak_spec.conformance.examples.minidurak import Durak, card
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.conformance.examples.styles_base import MinidurakAdapter, move_text, parse_move


class OneMoveDurak(Durak):
    """minidurak whose opening move is ("open", seat, (card, ...))."""

    def same_kind(self, cards) -> bool:
        return len({c.rank for c in cards}) == 1

    def moves(self) -> list[tuple]:
        if self.finished or self.table:
            return super().moves()
        hand, room = self.hands[self.attacker], min(self.cap, self.start_hand)
        return [("open", self.attacker, cards) for k in range(1, room + 1)
                for cards in combinations(hand, k) if self.same_kind(cards)]

    def play(self, move: tuple) -> bool:
        if move[0] != "open":
            return super().play(move)
        if self.table or move[1] != self.attacker or not any(
                set(move[2]) == set(m[2]) and len(move[2]) == len(m[2]) for m in self.moves()):
            return False
        for c in move[2]:
            self.hands[self.attacker].remove(c)
            self.table.append([c, None])
        return True


class OneMoveOpeningEngine(MinidurakAdapter):
    name = "minidurak-one-move-opening"
    house_rules = {"opening": "same_rank_multi"}
    actions = {"opening": "one_move"}
    engine_class = OneMoveDurak

    def apply(self, action: str) -> dict:
        words = action.split()
        if len(words) >= 3 and words[1] == "attack":
            try:
                move = ("open", int(words[0]), tuple(card(c) for c in words[2:]))
            except ValueError:
                return {"accepted": False}
        else:
            move = parse_move(action)
        return {"accepted": move is not None and self.game.play(move)}

    def listed(self) -> list[str]:
        return [f"{m[1]} attack {m[2][0]}" if m[0] == "open" else move_text(m)
                for m in self.game.moves() if m[0] != "open" or len(m[2]) == 1]


class MixedOpening(OneMoveDurak):
    def same_kind(self, cards) -> bool:
        return True


class BrokenOneMoveOpeningEngine(OneMoveOpeningEngine):
    name = "minidurak-one-move-opening (broken: an opening may mix ranks)"
    engine_class = MixedOpening


if __name__ == "__main__":
    serve(OneMoveOpeningEngine())
