"""The model search that the counterexample (cex.py), boundary (boundary.py) and D1 witness
(equiv.py) searches share: from an abstract question to real cards, one model after another.

Per question, z3 gives a model; real cards are solved for it (backend/concrete.Cards). Where no
cards fill it, or the caller refuses the position (the interpreter disagrees, no deal reaches it),
the models whose card problem holds the same constraints are excluded (Cards.block) and z3 asked
again, up to the caller's bound. The search says whether its "none" is proved: every question
asked until z3 finds no model left, every card problem proved unsat and no position refused.
"""

from __future__ import annotations

import z3

from durak_spec.tools.verify.backend.concrete import Cards, Step
from durak_spec.tools.verify.backend.state import SymState
from durak_spec.tools.verify.backend.values import zbool
from durak_spec.tools.verify.invariants import check


class Search:
    """The models asked for over one search's questions, and whether its "none" is proved."""

    def __init__(self, limit: int, views=()):
        self.limit, self.views = limit, list(views)
        self.models = 0
        self.unknown = 0  # questions and card problems z3 left undecided (its time limit)
        self.refused = 0  # positions the caller refused
        self.complete = True  # every question exhausted, every card problem proved unsat

    def positions(self, m, s0: SymState, query: list, steps: list[Step], held=None):
        """Yield (position, model) for models of `query` over machine m and s0 (the position's
        state; `views` are its states under other rulesets), up to `limit` models; the caller stops
        at the position it accepts. `held(model)`: terms the card problem keeps at the model's
        value (the direction of a verdict), so that the block holds them too."""
        blocks = []
        for _ in range(self.limit):
            result, model = check(query + blocks)
            if result != z3.sat:
                self._undecided(result)
                return
            self.models += 1
            kept = held(model) if held else []
            cards = Cards(m, model, s0, steps, query + blocks + kept, self.views)
            position = cards.solve()
            if position is not None:
                yield position, model
                self.refused += 1  # asked for another: this one was refused
                self.complete = False
            else:
                self._undecided(cards.result)
            # after a refused position the block asks for a model of other counts (no proof, and
            # the search is no longer complete: a refusal mostly comes of the counts, which
            # decide whether a deal reaches the position); after cards proved missing, for any
            # model whose card problem is not this one's. A model of the other direction asks
            # another card problem: the block keeps it
            block = cards.block(counts_only=position is not None)
            blocks.append(z3.Or(block, z3.Not(z3.And([zbool(k) for k in kept])))
                          if kept else block)
        self.complete = False

    def _undecided(self, result) -> None:
        if result != z3.unsat:
            self.complete = False
            self.unknown += 1

    def gave_up(self) -> str:
        """Why the search's "none" is not proved, for a note: '' when it is."""
        if self.complete:
            return ""
        out = f"gave up after {self.models} model{'' if self.models == 1 else 's'}"
        if self.refused:
            out += f" ({self.refused} position(s) refused)"
        if self.unknown:
            out += f" and {self.unknown} question(s) z3 left undecided"
        return out
