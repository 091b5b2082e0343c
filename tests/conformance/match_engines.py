"""Engines for the match-case tests: the reference, and twins that break one match rule each."""

from __future__ import annotations

from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.conformance.examples.house_rules import NoPassWhileUnbeaten


class NoMatchEngine(ReferenceEngine):
    """Declares no match level: match cases are not run against it."""

    def hello(self) -> dict:
        out = super().hello()
        del out["match"]
        return out


class FoolDoesNotDealEngine(ReferenceEngine):
    """The winner deals the next deal instead of the durak."""

    def score(self) -> dict:
        out = super().score()
        if out["fool"] is not None and out["finish_order"]:
            out["next_dealer"] = out["finish_order"][0]
        return out


class FlatPenaltyEngine(ReferenceEngine):
    """Scores 2 for the last place instead of CardzMania's 3."""

    def score(self) -> dict:
        out = super().score()
        if self.game.ruleset.options["scoring"] == "penalty_points":
            out["scores"] = [2 if s == 3 else s for s in out["scores"]]
        return out


class NoEpaulettesEngine(ReferenceEngine):
    """Never gives the fool epaulettes, and leaves the field out of its score."""

    def score(self) -> dict:
        out = super().score()
        del out["epaulettes"]
        return out


class NoPassWhileUnbeatenMatchEngine(NoPassWhileUnbeaten, ReferenceEngine):
    """The reference with no pass while a card is unbeaten (actions pass_while_unbeaten false),
    playing matches: a match script that needs such a pass is skipped, never failed."""

    def hello(self) -> dict:
        return {**super().hello(), "actions": {"pass_while_unbeaten": False}}
