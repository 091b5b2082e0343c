"""Style: every attacker must pass explicitly. The engine asks each player who could attack, in
turn, to add a card or pass, even a player who has nothing to add, and ends a bout only once all
of them have passed. In the protocol a player with nothing to add is skipped, so the adapter
passes for a player whose only move is a pass, right after each action (PROTOCOL.md "Explicit
passes"); it lists no such pass. A player who could add still passes through the runner.

    durak check --adapter python:durak_spec.conformance.examples.style_explicit_pass:ExplicitPassEngine

`BrokenExplicitPassEngine` draws the defender first after a bout: the suite fails it under
draw.order.
"""

from __future__ import annotations

from durak_spec.conformance.examples.minidurak import Durak
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.conformance.examples.styles_base import MinidurakMoves, parse_move


class ExplicitDurak(Durak):
    """minidurak asking every attacker for a pass."""

    def attackers(self) -> list[int]:
        return [s for s in range(self.n) if self.table and s != self.defender and not self.out[s]]

    def may_say_done(self, seat: int, adders: list[int]) -> bool:
        return seat in self.attackers() and seat not in self.done

    def _settle(self) -> None:
        waiting = [s for s in self.attackers() if s not in self.done]
        defended_to_the_last_card = (not self.taking and not self.unbeaten()
                                     and not self.hands[self.defender])
        if waiting and not defended_to_the_last_card:
            return
        super()._settle()


class ExplicitPassEngine(MinidurakMoves):
    name = "minidurak-explicit-pass"
    engine_class = ExplicitDurak

    def start(self, variant: dict, setup: dict) -> dict:
        super().start(variant, setup)
        self._pass_for_players_with_nothing_to_add()
        return {}

    def apply(self, action: str) -> dict:
        move = parse_move(action)
        if move is None or move in self._automatic() or not self.game.play(move):
            return {"accepted": False}
        self._pass_for_players_with_nothing_to_add()
        return {"accepted": True}

    def _automatic(self) -> list[tuple]:
        """The passes of players whose only move is to pass."""
        moves = self.game.moves()
        return [m for m in moves if m[0] == "done"
                and not any(x[0] == "add" and x[1] == m[1] for x in moves)]

    def _pass_for_players_with_nothing_to_add(self) -> None:
        while forced := self._automatic():
            self.game.play(forced[0])


class DefenderDrawsFirst(ExplicitDurak):
    def draw_order(self):
        order = super().draw_order()
        return sorted(order, key=lambda s: s != self.defender)


class BrokenExplicitPassEngine(ExplicitPassEngine):
    name = "minidurak-explicit-pass (broken: the defender draws first)"
    engine_class = DefenderDrawsFirst


if __name__ == "__main__":
    serve(ExplicitPassEngine())
