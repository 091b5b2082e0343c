"""Style: one "done" button. Any player but the defender may add a card at any time, and the main
attacker alone ends the adding with "done", for everyone. Those are two house rules, declared in
hello: thrower_order free_for_all and done_by main_attacker. The adapter maps "done" to the main
attacker's `pass`; nobody else has a pass.

    durak check --adapter python:durak_spec.conformance.examples.style_done:DoneEngine

`BrokenDoneEngine` has no cap of six attack cards: the suite fails it under limits.cap.
"""

from __future__ import annotations

from functools import partial

from durak_spec.conformance.examples.minidurak import Durak
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.conformance.examples.styles_base import MinidurakMoves


class DoneEngine(MinidurakMoves):
    name = "minidurak-done"
    house_rules = {"thrower_order": "free_for_all", "done_by": "main_attacker"}
    engine_class = partial(Durak, free_for_all=True, done_by_main=True)


class NoCap(Durak):
    cap = 36


class BrokenDoneEngine(DoneEngine):
    name = "minidurak-done (broken: no cap of six)"
    engine_class = partial(NoCap, free_for_all=True, done_by_main=True)


if __name__ == "__main__":
    serve(DoneEngine())
