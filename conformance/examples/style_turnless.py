"""Style: no notion of whose turn it is. The engine keeps no current player: it answers, for
any seat, whether a move is allowed now, and anyone may add a card whenever the rules let them
(thrower_order free_for_all, a house rule declared in hello). The protocol's legal set is every
action any seat may make, so the adapter asks the engine seat by seat and lists them all.

    durak check --adapter python:durak_spec.conformance.examples.style_turnless:TurnlessEngine

`BrokenTurnlessEngine` lets the defender take when every card is beaten: the suite fails it
under defence.take.
"""

from __future__ import annotations

from durak_spec.conformance.examples.minidurak import Durak
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.conformance.examples.styles_base import MinidurakAdapter, move_text, parse_move


class TurnlessDurak(Durak):
    """minidurak asked per seat: `allowed(seat)` lists what that seat may do now."""

    def __init__(self, *args, **kw):
        super().__init__(*args, free_for_all=True, **kw)

    def allowed(self, seat: int) -> list[tuple]:
        return [m for m in self.moves() if m[1] == seat]


class TurnlessEngine(MinidurakAdapter):
    name = "minidurak-turnless"
    house_rules = {"thrower_order": "free_for_all"}
    engine_class = TurnlessDurak

    def apply(self, action: str) -> dict:
        move = parse_move(action)
        return {"accepted": move is not None and move in self.game.allowed(move[1])
                and self.game.play(move)}

    def listed(self) -> list[str]:
        return [move_text(m) for seat in range(self.game.n) for m in self.game.allowed(seat)]


class TakeAnyTime(TurnlessDurak):
    def moves(self):
        out = super().moves()
        take = ("take", self.defender)
        if self.table and not self.taking and take not in out:
            out.append(take)
        return out


class BrokenTurnlessEngine(TurnlessEngine):
    name = "minidurak-turnless (broken: the defender may take with every card beaten)"
    engine_class = TakeAnyTime


if __name__ == "__main__":
    serve(TurnlessEngine())
