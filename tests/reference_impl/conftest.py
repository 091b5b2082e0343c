"""Shared helpers for the reference interpreter's rule tests.

Tests take the `durak` fixture and build small explicit positions with it:

    g = durak.game([["6S", "7S"], ["8S", "9H"]], trump="AH", attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 8S")
    exc = durak.reject(g, "1 take")          # asserts the state did not change
    assert exc.rule_id == "defence.take"

Cards that appear in no hand and not in the talon are out of play (they start in the discard).
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from durak_spec.reference_impl.errors import IllegalAction
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.spec import shipped_spec


@lru_cache(maxsize=None)
def _ruleset(preset: str, frozen_options: tuple):
    return shipped_spec().ruleset(preset, dict(frozen_options))


class Durak:
    """Builders and assertions over the reference interpreter."""

    @staticmethod
    def ruleset(preset: str = "podkidnoy", **options):
        return _ruleset(preset, tuple(sorted(options.items())))

    def game(self, hands, talon=(), *, trump, dealer=None, attacker=None, hidden=None,
             preset: str = "podkidnoy", **options) -> Game:
        rs = self.ruleset(preset, **options)
        data = {"hands": [list(h) for h in hands], "talon": list(talon), "trump": trump,
                "dealer": len(hands) - 1 if dealer is None else dealer}
        if hidden is not None:
            data["hidden"] = hidden
        if attacker is not None:
            data["attacker"] = attacker
        return Game(rs, Setup.from_json(data, rs.deck))

    @staticmethod
    def play(g: Game, *actions: str, check_invariants: bool = True) -> Game:
        """Apply actions given as text; each must be legal. After each, the state invariants of
        spec/invariants.yaml must hold unless `check_invariants` is false."""
        for text in actions:
            g.apply_action(g.parse_action(text))
            if check_invariants:
                assert g.check_invariants() == [], f"invariants broken after {text!r}"
        return g

    @staticmethod
    def reject(g: Game, action: str) -> IllegalAction:
        """Assert `action` is illegal and leaves the state as it was; return the error."""
        before = g.full_state()
        a = g.parse_action(action)
        assert a not in g.legal_actions(), f"{action!r} is unexpectedly legal"
        with pytest.raises(IllegalAction) as info:
            g.apply_action(a)
        assert g.full_state() == before, f"rejecting {action!r} changed the state"
        return info.value

    @staticmethod
    def legal(g: Game, kind: str | None = None, seat: int | None = None) -> set[str]:
        """The legal actions as text, optionally of one kind and/or one seat."""
        return {str(a) for a in g.legal_actions()
                if (kind is None or a.kind == kind) and (seat is None or a.seat == seat)}

    @staticmethod
    def is_legal(g: Game, action: str) -> bool:
        return g.parse_action(action) in g.legal_actions()


@pytest.fixture
def durak() -> Durak:
    return Durak()
