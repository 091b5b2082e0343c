"""Style: one "play a card" move for opening and adding. The engine has a single move that lays
a card on the table; whether it opens the bout or adds to it depends on the table. The
protocol's `attack` opens a bout on an empty table and `throw` adds to an open one, so the
adapter turns `attack` and `throw` into the engine's play only on an empty and on an open table
respectively, refuses each otherwise, and lists each play under the kind the table gives it.

    durak check --adapter python:durak_spec.conformance.examples.style_play_card:PlayCardEngine

`BrokenPlayCardEngine` lets the defender who took attack next: the suite fails it under
rotation.after_take.
"""

from __future__ import annotations

from durak_spec.conformance.examples.minidurak import Durak, card
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.conformance.examples.styles_base import MinidurakAdapter, move_text


class PlayDurak(Durak):
    """minidurak whose one card-laying move is ("play", seat, card)."""

    def plays(self) -> list[tuple]:
        return [("play", m[1], m[2]) if m[0] in ("open", "add") else m for m in self.moves()]

    def play_card(self, seat: int, c) -> bool:
        return self.play(("add" if self.table else "open", seat, c))


class PlayCardEngine(MinidurakAdapter):
    name = "minidurak-play-card"
    engine_class = PlayDurak

    def apply(self, action: str) -> dict:
        words = action.split()
        g = self.game
        try:
            seat = int(words[0])
            if words[1] in ("attack", "throw") and len(words) == 3:
                opens = words[1] == "attack"
                ok = opens == (not g.table) and g.play_card(seat, card(words[2]))
                return {"accepted": ok}
            if words[1] == "cover" and len(words) == 5 and words[3] == "with":
                return {"accepted": g.play(("beat", seat, card(words[2]), card(words[4])))}
            if words[1] in ("take", "pass") and len(words) == 2:
                return {"accepted": g.play(("take" if words[1] == "take" else "done", seat))}
        except (ValueError, IndexError):
            pass
        return {"accepted": False}

    def listed(self) -> list[str]:
        kind = "throw" if self.game.table else "attack"
        return [f"{m[1]} {kind} {m[2]}" if m[0] == "play" else move_text(m)
                for m in self.game.plays()]


class TakerAttacks(PlayDurak):
    def next_attacker(self, beaten):
        return super().next_attacker(beaten) if beaten else self.defender


class BrokenPlayCardEngine(PlayCardEngine):
    name = "minidurak-play-card (broken: the taker attacks next)"
    engine_class = TakerAttacks


if __name__ == "__main__":
    serve(PlayCardEngine())
