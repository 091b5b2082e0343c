"""Bounded model checking from real deals: every sequence of up to k whole steps (an action of
any kind, then the bout end it triggers) from any deal Setup.deal can make, for a property the
induction could not prove. Used only where induction does not go through; the report says why.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from durak_spec.reference_impl import vocab
from durak_spec.tools.verify.backend.machine import conj, materialize
from durak_spec.tools.verify.backend.state import SymAction, SymState, ite_state
from durak_spec.tools.verify.backend.values import zbool
from durak_spec.tools.verify.invariants import Induction, Prop, check

STEP_TIMEOUT_MS = 20000


@dataclass
class Bounded:
    depth: int  # steps checked without a violation
    trace: list | None = None  # (kind, seat) per step of an abstract counterexample
    complete: bool = True  # False when the solver gave up before the requested depth


def bmc(ind: Induction, prop: Prop, depth: int) -> Bounded:
    m = ind.m
    kinds = [k for k in vocab.ACTION_KINDS if not ind.transitions[k].never]
    s = SymState.fresh(m, "bmc0")
    start = len(m.side)
    cons = [m.well_formed(s), m.dealt(s)]
    if prop.scope == "state":
        result, _ = check(cons + m.side[start:] + [z3.Not(zbool(ind.term(prop, s)))], STEP_TIMEOUT_MS)
        if result == z3.sat:
            return Bounded(0, [])
    steps = []
    for d in range(1, depth + 1):
        choice = z3.Int(f"bmc.choice{d}")
        nxt, legal, actions = None, [], []
        for i, kind in enumerate(kinds):
            a = SymAction.fresh(kind, m.nranks, m.nsuits, f"-bmc{d}")
            ok, _, after = m.step(s, a)
            legal.append(conj([choice == i, ok]))
            actions.append(a)
            nxt = after if nxt is None else ite_state(choice == i, after, nxt)
        steps.append((choice, actions))
        cons.append(z3.Or([zbool(x) for x in legal]))
        if prop.scope == "action":
            bad = z3.Or([z3.And(choice == i, z3.Not(zbool(ind.term(prop, s, a))))
                         for i, a in enumerate(actions)])
        nxt, eqs = materialize(nxt, f"bmc{d}")
        cons += eqs
        if prop.scope == "state":
            bad = z3.Not(zbool(ind.term(prop, nxt)))
        result, model = check(cons + m.side[start:] + [bad], STEP_TIMEOUT_MS)
        if result == z3.sat:
            trace = []
            for c, acts in steps:
                i = model.eval(c, model_completion=True).as_long()
                trace.append((kinds[i], model.eval(acts[i].seat, model_completion=True).as_long()))
            return Bounded(d - 1, trace)
        if result == z3.unknown:
            return Bounded(d - 1, complete=False)
        s = nxt
    return Bounded(depth)

