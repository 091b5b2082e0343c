"""Each primitive of the interpreter (reference_impl/primitives.py) and its z3 model
(tools/verify/backend/machine.py) do the same thing: every primitive is run on states of random
games under every preset, by the interpreter and by the z3 model from the same state, and the
results must agree field by field. A z3 model that drifts from its primitive fails here, whichever
preset or player count exposes it; so does a primitive added without a model.
"""

from __future__ import annotations

import random

import pytest
import z3
from verify_support import symbolic_action

from durak_spec.reference_impl import primitives as interpreter
from durak_spec.reference_impl.game import Game
from durak_spec.reference_impl.spec import shipped_spec
from durak_spec.tools.verify.backend.machine import PRIMITIVES as SYMBOLIC
from durak_spec.tools.verify.backend.machine import Machine
from durak_spec.tools.verify.backend.state import concrete
from durak_spec.tools.verify.backend.values import simp, zbool, zint

PLAYERS = (2, 3, 4, 6)
GAMES = 2            # games per preset and player count
PER_PRIMITIVE = 4    # calls of each primitive checked per preset and player count
MAX_STEPS = 120


class Recorder:
    """Wraps every primitive so that each call keeps (name, keywords, state before, action,
    state after) while the game plays on as usual."""

    def __init__(self, monkeypatch):
        self.calls: list[tuple] = []
        for name, fn in list(interpreter.PRIMITIVES.items()):
            monkeypatch.setitem(interpreter.PRIMITIVES, name, self._wrap(name, fn))

    def _wrap(self, name, fn):
        def run(g, s, a, **kw):
            before = s.clone()
            fn(g, s, a, **kw)
            self.calls.append((name, kw, before, a, s.clone(), g))
        return run


def disagreements(m, name, kw, before, action, after) -> list[str]:
    """Fields where the z3 model of primitive `name`, run on `before`, does not give `after`."""
    m.side = []
    pre = concrete(m, before)
    post = SYMBOLIC[name](m, pre, symbolic_action(m, before, action), **kw)
    want = concrete(m, after).f
    solver = z3.Solver()
    solver.add([zbool(c) for c in m.side])
    pairs = []
    for field, have in post.f.items():
        items = zip(have, want[field]) if isinstance(have, list) else [(have, want[field])]
        for i, (h, w) in enumerate(items):
            label = f"{field}[{i}]" if isinstance(have, list) else field
            pairs.append((label, h, w))
    bad = []
    for label, h, w in pairs:
        h = simp(h)
        if isinstance(h, (bool, int)):
            if h != w:
                bad.append(f"{label}: z3 {h!r}, interpreter {w!r}")
            continue
        eq = zbool(h) == zbool(w) if z3.is_bool(h) else zint(h) == zint(w)
        if solver.check(z3.Not(eq)) != z3.unsat:  # z3 must force the interpreter's value
            bad.append(f"{label}: z3 allows {solver.model().eval(h, model_completion=True)}, "
                       f"interpreter {w!r}")
    return bad


def test_every_primitive_has_a_z3_model():
    assert set(SYMBOLIC) == set(interpreter.PRIMITIVES)


@pytest.mark.parametrize("preset", sorted(shipped_spec().presets))
def test_each_primitive_agrees_with_its_z3_model_on_random_games(spec, preset, monkeypatch):
    recorder = Recorder(monkeypatch)
    ruleset = spec.ruleset(preset)  # compiled after the wrapping, so its flow calls the recorder
    rng = random.Random(preset)
    seen: dict[str, int] = {}
    for n in PLAYERS:
        if not ruleset.player_limits[0] <= n <= ruleset.player_limits[1]:
            continue
        m = Machine(ruleset, n)
        for seed in range(GAMES):
            game = Game.from_seed(ruleset, n, seed)
            while not game.is_terminal() and game.state.steps < MAX_STEPS:
                game.apply_action(rng.choice(game.legal_actions()))
            for name, kw, before, action, after, _ in recorder.calls:
                count = seen.get((name, n), 0)
                if count >= PER_PRIMITIVE and rng.random() > 0.1:
                    continue
                seen[(name, n)] = count + 1
                bad = disagreements(m, name, kw, before, action, after)
                assert not bad, f"{preset}, {n} players, primitive {name} ({action}): {bad}"
            recorder.calls.clear()
    assert len({name for name, _ in seen}) >= 8, sorted(seen)


def test_a_z3_model_that_drifts_from_its_primitive_is_caught(spec, monkeypatch):
    """Break the z3 model of one primitive (the defender picks up one card fewer) and the
    comparison names it."""
    recorder = Recorder(monkeypatch)
    ruleset = spec.ruleset("podkidnoy")
    original = SYMBOLIC["defender_picks_up"]

    def short_pickup(m, s, a):
        out = original(m, s, a)
        hand = list(out.f["hand"])
        d = s.defender
        hand = [simp(z3.If(zint(d) == i, zint(h) - 1, zint(h))) for i, h in enumerate(hand)]
        return out.replace(hand=hand)

    monkeypatch.setitem(SYMBOLIC, "defender_picks_up", short_pickup)
    m = Machine(ruleset, 2)
    rng = random.Random(3)
    found = []
    for seed in range(5):
        game = Game.from_seed(ruleset, 2, seed)
        while not game.is_terminal() and game.state.steps < MAX_STEPS:
            legal = game.legal_actions()
            takes = [a for a in legal if a.kind == "take"]
            game.apply_action(takes[0] if takes else rng.choice(legal))
        for name, kw, before, action, after, _ in recorder.calls:
            if name == "defender_picks_up":
                found += disagreements(m, name, kw, before, action, after)
        recorder.calls.clear()
        if found:
            break
    assert found and all(f.startswith("hand[") for f in found), found



@pytest.mark.parametrize("preset", ["marmot_tournament", "podkidnoy_colour_redeal"])
def test_the_void_deal_of_a_redeal_agrees_with_its_z3_model(spec, preset, monkeypatch):
    """Random games rarely call a redeal, so every deal below that allows one calls it."""
    recorder = Recorder(monkeypatch)
    ruleset = spec.ruleset(preset)
    checked = 0
    for n in PLAYERS:
        m = Machine(ruleset, n)
        for seed in range(40):
            game = Game.from_seed(ruleset, n, seed)
            calls = [a for a in game.legal_actions() if a.kind == "redeal"]
            if calls:
                game.apply_action(calls[0])
            for name, kw, before, action, after, _ in recorder.calls:
                assert not disagreements(m, name, kw, before, action, after), (preset, n, seed)
                checked += name == "void_deal"
            recorder.calls.clear()
    assert checked >= 4
