"""`durak verify`, part 2: what to make of a transition the induction could not prove.

First look for a concrete position (one a Setup can state) from which an action the spec allows
leads, through any bout end it triggers, to a state breaking the property; replay it on the
interpreter and keep it only if the interpreter agrees. Failing that, check the whole step (action
and bout end together), which proves properties that hold between steps but not inside one.
Failing that, bounded model checking from real deals (tools/verify_bmc.py) decides between an
abstract counterexample and "proved up to depth k".
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from durak_spec.reference_impl import vocab
from durak_spec.reference_impl.errors import DurakError
from durak_spec.tools.verify.backend.concrete import Position, Step, replay
from durak_spec.tools.verify.backend.machine import conj
from durak_spec.tools.verify.backend.state import SymAction, SymState
from durak_spec.tools.verify.backend.values import zbool
from durak_spec.tools.verify.invariants import EVENTS, Induction, Prop, check
from durak_spec.tools.verify.models import Search

ATTEMPTS = 3  # abstract models tried per action kind of a failing transition (models.Search)


@dataclass
class Counterexample:
    """A confirmed counterexample: the position, the action, and what the interpreter saw."""

    preset: str
    players: int
    prop: str
    step: str
    position: Position
    after: dict
    failed: list


def _holds(prop: Prop, game, action=None) -> bool:
    s = game.state
    if prop.scope == "action":
        return bool(prop.clause.fn(s, action.seat, action.kind))
    return bool(prop.clause.fn(s, None, None)) if not prop.lemma else bool(prop.clause.fn(s))


def confirm(ruleset, prop: Prop, position: Position):
    """(after-state, failing ids) when the interpreter reproduces the break, else None."""
    game, _ = replay(ruleset, position)
    if game is None:
        return None
    try:
        action = game.parse_action(position.actions[0])
    except DurakError:
        return None
    if action not in game.legal_actions():
        return None
    if prop.scope == "action":
        return (None, [prop.id]) if not _holds(prop, game, action) else None
    if not _holds(prop, game):  # it must hold before the action and fail after it
        return None
    game.apply_action(action)
    if _holds(prop, game):
        return None
    return game.full_state(), game.check_invariants()


def _composite(ind: Induction, prop: Prop, step: str, assumed: set, expressible: bool):
    """Constraints for: a settled pre-state, an action of some kind, the bout end it triggers
    (the event `step` when it is one), and `prop` broken afterwards; one per action kind."""
    m = ind.m
    kinds = [step] if step in vocab.ACTION_KINDS else list(vocab.ACTION_KINDS)
    for kind in kinds:
        if ind.transitions[kind].never:
            continue
        start = len(m.side)
        s0 = SymState.fresh(m, "cex")
        a = SymAction.fresh(kind, m.nranks, m.nsuits)
        cons = [m.well_formed(s0), m.settled(s0), m.legal(s0, a)]
        if expressible:
            cons.append(m.expressible(s0))
        cons += [ind.term(p, s0) for p in ind.state_props if p.id in assumed]
        s1 = m.run_event(kind, s0, a)
        if prop.scope == "action":
            cons.append(z3.Not(zbool(ind.term(prop, s0, a))))
        else:
            if step in EVENTS:
                due = m.decide(s1, step)
                if step == "bout_taken":
                    due = conj([z3.Not(zbool(m.decide(s1, "bout_beaten_off"))), due])
                cons += [z3.Not(zbool(s1.finished)), due]
                s2 = m.run_event(step, s1, None)
            else:
                s2 = m.settle(s1)
            cons.append(z3.Not(zbool(ind.term(prop, s2))))
        yield kind, s0, a, s1, cons + m.side[start:]


def find_counterexample(ind: Induction, preset: str, prop: Prop, step: str, assumed: set):
    """(A confirmed Counterexample or None, the models.Search, which says whether None is
    proved: no position a Setup states breaks the property in this step)."""
    search = Search(ATTEMPTS)
    for _, s0, a, s1, cons in _composite(ind, prop, step, assumed, expressible=True):
        for position, _ in search.positions(ind.m, s0, cons, [Step(a, s1)]):
            seen = confirm(ind.ruleset, prop, position)
            if seen is not None:
                return Counterexample(preset, ind.n, prop.id, step, position, seen[0], seen[1]), search
    return None, search


def whole_step_proves(ind: Induction, prop: Prop, step: str, assumed: set) -> tuple[bool, object]:
    """True when every whole step (action, then its bout end) preserves the property; else the
    abstract model of a step that breaks it, from a position no Setup states."""
    for _, s0, _, _, cons in _composite(ind, prop, step, assumed, expressible=False):
        result, model = check(cons)
        if result != z3.unsat:
            return False, (model, s0)
    return True, None


def describe(model, s0: SymState) -> str:
    """A short account of an abstract pre-state, for the reason of a bounded result."""
    if model is None:
        return "none found: the solver gave up on the step"
    f = s0.f

    def v(x):
        return model.eval(zbool(x) if isinstance(x, bool) else x, model_completion=True)
    parts = [f"{label}={v(f[name])}" for label, name in (
        ("talon", "talon"), ("attack cards", "A"), ("unbeaten", "U"),
        ("defender_hand_at_start", "dhs"), ("attacker", "attacker"), ("defender", "defender"))]
    parts.append("hands=" + ",".join(str(v(h)) for h in f["hand"]))
    return " ".join(parts)
