"""The lockstep's shorter paths per step play as the longer ones they stand for: Game.apply_listed
as apply_action."""

from __future__ import annotations

import random

import pytest

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
