"""Style: no pass while a card is unbeaten. The engine offers "pass" only once every card is
beaten or the defender has said they take; before that an attacker adds a card or waits. That
is a narrower move model, not another rule: the engine declares `"actions":
{"pass_while_unbeaten": false}` in hello (protocol 1.1), and the runner never sends it such a
pass and leaves such passes out of the legal sets it compares.

    durak check --adapter python:durak_spec.conformance.examples.style_no_pass_unbeaten:NoPassWhileUnbeatenEngine

`BrokenNoPassWhileUnbeatenEngine` lets a plain card beat a trump of any rank: the suite fails it
under defence.beat.
"""

from __future__ import annotations

from durak_spec.conformance.examples.minidurak import Durak
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.conformance.examples.styles_base import MinidurakMoves


class NoPassDurak(Durak):
    def may_say_done(self, seat: int, adders: list[int]) -> bool:
        return super().may_say_done(seat, adders) and (self.taking or not self.unbeaten())


class NoPassWhileUnbeatenEngine(MinidurakMoves):
    name = "minidurak-no-pass-while-unbeaten"
    actions = {"pass_while_unbeaten": False}
    engine_class = NoPassDurak


class AnyCardBeatsTrump(NoPassDurak):
    def beats(self, attack, cover):
        return cover.rank > attack.rank or super().beats(attack, cover)


class BrokenNoPassWhileUnbeatenEngine(NoPassWhileUnbeatenEngine):
    name = "minidurak-no-pass-while-unbeaten (broken: a higher card of any suit beats)"
    engine_class = AnyCardBeatsTrump


if __name__ == "__main__":
    serve(NoPassWhileUnbeatenEngine())
