"""Style: a player with nothing to add says nothing. This is the protocol's own model: a player
passes only when they could add a card, and a bout ends by itself once nobody will or may add
one. Each of the engine's moves is one action, so the adapter only renames them.

    durak check --adapter python:durak_spec.conformance.examples.style_silent:SilentEngine

`BrokenSilentEngine` is the same engine with one rule broken (an added card may match only an
attack card's rank, not a covering card's): the suite fails it under throw_in.rank.
"""

from __future__ import annotations

from durak_spec.conformance.examples.minidurak import Durak
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.conformance.examples.styles_base import MinidurakMoves


class SilentEngine(MinidurakMoves):
    name = "minidurak-silent"


class AttackRanksOnly(Durak):
    def may_add(self, seat, c):
        ranks = {a.rank for a, _ in self.table}
        return super().may_add(seat, c) and c.rank in ranks


class BrokenSilentEngine(SilentEngine):
    name = "minidurak-silent (broken: throw-ins match attack ranks only)"
    engine_class = AttackRanksOnly


if __name__ == "__main__":
    serve(SilentEngine())
