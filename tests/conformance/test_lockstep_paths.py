"""The lockstep's shorter paths per step play and count as the longer ones they stand for:
Game.apply_listed as apply_action, and skipping ClauseCoverage.accepted for a kind with no rule
left open as calling it."""

from __future__ import annotations

import random

import pytest

from durak_spec.conformance.lockstep import Lockstep
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import action_text, state_json


@pytest.mark.parametrize("preset,players", [("podkidnoy", 2), ("perevodnoy", 4)])
def test_apply_listed_plays_as_apply_action(spec, preset, players):
    rs = spec.ruleset(preset)
    rng = random.Random(7)
    for _ in range(15):
        setup = Setup.deal(rs, players, rng.randrange(2**31))
        listed, checked = Game(rs, setup), Game(rs, setup)
        while not checked.is_terminal():
            legal = listed.legal_actions()
            assert [action_text(a) for a in legal] == [action_text(a) for a in
                                                       checked.legal_actions()]
            i = rng.randrange(len(legal))
            listed.apply_listed(legal[i])
            checked.apply_action(checked.legal_actions()[i])
            assert state_json(listed.state) == state_json(checked.state)
        assert listed.is_terminal() and listed.legal_actions() == []


class _AllOpen(dict):
    """open_rules that names every kind open: the lockstep calls accepted() at every step."""

    def get(self, kind, default=None):
        return True


def _campaign(spec, everything: bool, rng_type=random.Random) -> tuple:
    adapter = make_adapter("reference", spec=spec)
    lock = Lockstep(spec, adapter, adapter.open(), "podkidnoy", {})
    if everything:
        lock.coverage.open_rules = _AllOpen()
    rng = rng_type(3)
    try:
        for game in range(12):
            lock.coverage.game = game
            lock.play(Setup.deal(lock.ruleset, 2 + game % 2, rng.randrange(2**31)), rng)
    finally:
        adapter.close()
    return lock.steps, lock.coverage.to_json()


def test_coverage_skipped_only_where_accepted_marks_nothing(spec):
    assert _campaign(spec, False) == _campaign(spec, True)


class _Chooser(random.Random):
    """A Random the planner does not draw from inline (not exactly random.Random): it calls
    choice, as it does on a Python whose choice draws otherwise (ruleset.draws_like_choice)."""


def test_the_planners_inline_draw_plays_what_random_choice_plays(spec):
    """Lockstep._choose draws its index inline where ruleset.draws_like_choice holds, so a seed
    plays the same campaign as with rng.choice itself: the same steps and coverage."""
    from durak_spec.conformance.lockstep import _LIKE_CHOICE

    assert _LIKE_CHOICE
    assert _campaign(spec, False) == _campaign(spec, False, _Chooser)