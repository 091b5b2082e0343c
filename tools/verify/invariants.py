"""`durak verify`, part 1: every invariant of spec/invariants.yaml, per preset and player count,
proved by induction over the actions and bout ends, from the same clauses the interpreter runs.

A step of the game is an action followed, when one is due, by a bout end; both are checked as
transitions (`ACTION_KINDS` and `EVENTS`). The properties proved together are the spec's state
invariants plus the lemmas below (facts of reachable states the invariants need, each proved here,
never assumed). Houdini's algorithm drops whatever some transition breaks until the rest is
inductive. A dropped property's failing transitions are then made concrete (tools/z3concrete.py)
and replayed on the interpreter; what cannot be reproduced is checked by bounded model checking
from real deals instead (tools/verify_bmc.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from durak_spec.reference_impl import vocab
from durak_spec.reference_impl.lang import BOOL, Compiler, Env
from durak_spec.tools.verify.backend.machine import Machine, conj
from durak_spec.tools.verify.backend.state import SymAction, SymState, reset_names
from durak_spec.tools.verify.backend.values import solve_apart, zbool

EVENTS = ("bout_beaten_off", "bout_taken")
STEPS = vocab.ACTION_KINDS + EVENTS


@dataclass(frozen=True)
class Lemma:
    id: str
    clause: str
    why: str


# Facts of reachable positions that the spec's invariants rest on. They are proved with the
# invariants (the same induction), so assuming them is sound.
LEMMAS = (
    Lemma("lemma.hand_at_start",
          "finished or defender_hand_at_start == defender_hand + table_covered or "
          "((opt.passport != 'none' and opt.passport_window == 'any_time' or opt.transfer and "
          "opt.transfer_window == 'while_unbeaten_share_rank') and "
          "defender_hand_at_start <= defender_hand + table_covered)",
          "the defender's hand at the start of the bout is their hand now plus the cards they "
          "covered with; where a bout can pass on after a card is beaten (a late transfer or "
          "passport), the new defender did not beat those cards, so it is at most that; "
          "inv.unbeaten_le_hand rests on it under limits.hand_at_start"),
    Lemma("lemma.nobody_out_while_talon", "talon_count == 0 or active_players == players",
          "players go out only once the talon is empty (end.out), and the talon never grows"),
    Lemma("lemma.two_in_game",
          "finished or active_players >= 2 or (opt.going_out == 'at_once' and table_attack_count > 0)",
          "the game ends (end.game_over) before fewer than two players are left, except in the "
          "middle of a bout when players go out at once; inv.roles rests on it"),
    Lemma("lemma.empty_hands_out",
          "finished or table_attack_count > 0 or talon_count > 0 or "
          "all(is_out(x) or hand(x) > 0 for x in seats)",
          "between bouts, once the talon is empty, a player without cards is out (end.out)"),
    Lemma("lemma.taking_leaves_unbeaten", "finished or not taking or table_unbeaten > 0",
          "the defender takes only with an unbeaten card on the table (defence.take) and covers "
          "nothing after (defence.not_after_take)"),
)


@dataclass
class Prop:
    """An invariant or a lemma: its id, scope, checked tree and Python function."""

    id: str
    scope: str
    clause: object
    title: str
    lemma: bool = False


def properties(ruleset, lemmas=LEMMAS) -> list[Prop]:
    out = [Prop(inv["id"], inv["scope"], clause, inv["title"]) for inv, clause in ruleset.invariants
           if inv["scope"] in ("state", "action")]  # deal_end ones: tools/verify/match.py
    defs = {n: (d[1], d[2], d[3]) for n, d in ruleset.spec.definitions.items()}
    for lem in lemmas:
        c = Compiler(Env(dict(vocab.STATE), ruleset.options, defs), "tools/verify_invariants.py",
                     lem.id).compile(lem.clause, BOOL)
        out.append(Prop(lem.id, "state", c, lem.why, lemma=True))
    return out


@dataclass
class Transition:
    """One action kind or bout end from a symbolic pre-state: its constraints and post-state."""

    name: str
    pre: SymState
    constraints: list
    post: SymState | None
    action: SymAction | None = None
    never: bool = False


# The answers z3 gave in this process, by question: z3 makes one term of terms built alike
# (hash-consing), so the same ids in the same order are the same question, whichever preset or
# player count built it; presets whose clauses translate alike ask many of the same (each
# Induction names its variables from 0, state.reset_names). The terms are kept with the answer,
# so that their ids are not given to other terms.
_ANSWERS: dict = {}
MAX_ANSWERS = 50000


def check(constraints, timeout_ms: int = 60000):
    terms = [zbool(c) for c in constraints]
    key = (timeout_ms, *(t.get_id() for t in terms))
    known = _ANSWERS.get(key)
    if known is not None:
        return known[1], known[2]
    result, model = solve_apart(terms, timeout_ms)
    if len(_ANSWERS) >= MAX_ANSWERS:
        _ANSWERS.clear()
    _ANSWERS[key] = (terms, result, model)
    return result, model


class Induction:
    """The induction for one ruleset and player count."""

    def __init__(self, ruleset, n: int, props: list[Prop]):
        reset_names()  # built alike, another preset's induction asks the same questions (check)
        self.ruleset, self.n = ruleset, n
        self.m = m = Machine(ruleset, n)
        self.props = props
        self.state_props = [p for p in props if p.scope == "state"]
        self.action_props = [p for p in props if p.scope == "action"]
        self.settled = SymState.fresh(m, "pre")
        self.mid = SymState.fresh(m, "mid")
        start = len(m.side)
        self.base_settled = [m.well_formed(self.settled), m.settled(self.settled)]
        self.base_mid = [m.well_formed(self.mid), z3.Not(zbool(self.mid.finished))]
        _ = self.mid.can_throw
        self.base_side = m.side[start:]
        self.transitions = {name: self._transition(name) for name in STEPS}
        self._terms: dict = {}

    def term(self, prop: Prop, state: SymState, action: SymAction | None = None):
        """The property over `state` (action-scope ones also over the action's seat and kind).

        Translated once per property, state and action: houdini asks for the same pre-state's
        terms at every transition and round, and a term is a pure function of the three."""
        key = (prop.id, id(state), id(action) if prop.scope == "action" else None)
        if key not in self._terms:
            names = {}
            if prop.scope == "action":
                names = {"seat": action.names()["seat"], "kind": action.names()["kind"]}
            self._terms[key] = (state, action, self.m.clause(state, prop.clause.tree, names))
        return self._terms[key][2]

    def _transition(self, name: str) -> Transition:
        m = self.m
        start = len(m.side)
        if name in EVENTS:
            s = self.mid
            due = m.decide(s, name)
            if name == "bout_taken":  # the interpreter looks for a beaten-off bout first
                due = conj([z3.Not(zbool(m.decide(s, "bout_beaten_off"))), due])
            post = m.run_event(name, s, None)
            cons = self.base_mid + [due]
            t = Transition(name, s, cons, post)
        else:
            s = self.settled
            a = SymAction.fresh(name, m.nranks, m.nsuits)
            legal = m.legal(s, a)
            if legal is False:
                return Transition(name, s, [], None, a, never=True)
            post = m.run_event(name, s, a)
            t = Transition(name, s, self.base_settled + [legal], post, a)
        t.constraints = t.constraints + m.side[start:]
        return t

    def side(self):
        return self.base_side

    def pre_terms(self, t: Transition, ids):
        return [self.term(p, t.pre) for p in self.state_props if p.id in ids]

    def preserves(self, t: Transition, assumed: set[str], targets: list[Prop]):
        """(unsat or sat, model, [props failing in the model]) for: assumed before, t, targets after."""
        posts = [(p, self.term(p, t.post)) for p in targets]
        result, model = check(t.constraints + self.side() + self.pre_terms(t, assumed)
                              + [z3.Not(conj([x for _, x in posts]))])
        if result != z3.sat:
            return result, None, []
        failing = [p for p, x in posts if not z3.is_true(model.eval(zbool(x), model_completion=True))]
        return result, model, failing

    def possible(self, t: Transition, assumed: set[str]) -> bool:
        """Whether the step happens in some position satisfying `assumed` (else proofs about it
        would hold vacuously)."""
        if t.never:
            return False
        result, _ = check(t.constraints + self.side() + self.pre_terms(t, assumed))
        return result != z3.unsat

    def houdini(self, exclude=()):
        """The largest inductive subset of the state properties, and the first transition found
        breaking each dropped one (with the assumptions then in force)."""
        cand = {p.id for p in self.state_props} - set(exclude)
        broken: dict[str, list[str]] = {}
        changed = True
        while changed:
            changed = False
            for name, t in self.transitions.items():
                if t.never or not cand:
                    continue
                targets = [p for p in self.state_props if p.id in cand]
                result, model, failing = self.preserves(t, cand, targets)
                if result == z3.unknown:
                    failing = targets
                for p in failing:
                    cand.discard(p.id)
                    broken.setdefault(p.id, []).append(name)
                    changed = True
        return cand, broken

    def initial(self):
        """State properties that fail at some deal (they cannot be invariants)."""
        s = SymState.fresh(self.m, "deal")
        start = len(self.m.side)
        dealt = self.m.dealt(s)
        posts = [(p, self.term(p, s)) for p in self.state_props]
        result, model = check([self.m.well_formed(s), dealt] + self.m.side[start:]
                              + [z3.Not(conj([x for _, x in posts]))])
        if result != z3.sat:
            return []
        return [p.id for p, x in posts if not z3.is_true(model.eval(zbool(x), model_completion=True))]

    def action_scope(self, proved: set[str]):
        """{(prop id, kind): model or None} for the action-scope properties."""
        out = {}
        for kind in vocab.ACTION_KINDS:
            t = self.transitions[kind]
            if t.never:
                out.update({(p.id, kind): "never" for p in self.action_props})
                continue
            base = t.constraints + self.side() + self.pre_terms(t, proved)
            terms = [(p, self.term(p, t.pre, t.action)) for p in self.action_props]
            # One question for all of them first: when no step of this kind breaks any, each
            # one's own question is unsat too; else each is asked alone (its own model).
            if len(terms) > 1 and check(base + [z3.Not(zbool(conj([x for _, x in terms])))])[0] \
                    == z3.unsat:
                out.update({(p.id, kind): None for p, _ in terms})
                continue
            for p, x in terms:
                result, model = check(base + [z3.Not(zbool(x))])
                out[(p.id, kind)] = model if result == z3.sat else None
        return out


@dataclass
class Outcome:
    """What the induction found for one property and step at one player count."""

    status: str  # proved | never | failed
    model: object = None
    note: str = ""


@dataclass
class InductionReport:
    n: int
    proved: set
    outcomes: dict = field(default_factory=dict)  # (prop id, step) -> Outcome
    at_deal: list = field(default_factory=list)


def run_induction(ruleset, n: int, props: list[Prop]) -> tuple[Induction, InductionReport]:
    ind = Induction(ruleset, n, props)
    at_deal = ind.initial()
    proved, _ = ind.houdini(exclude=at_deal)
    report = InductionReport(n, proved, at_deal=at_deal)
    for t in ind.transitions.values():
        if not t.never and not ind.possible(t, proved):
            t.never = True  # no position the proved properties allow has this step
    for p in ind.state_props:
        for name, t in ind.transitions.items():
            if t.never:
                report.outcomes[(p.id, name)] = Outcome("never")
            elif p.id in proved:
                report.outcomes[(p.id, name)] = Outcome("proved")
            else:
                result, model, failing = ind.preserves(t, proved | {p.id}, [p])
                report.outcomes[(p.id, name)] = (Outcome("failed", model) if result != z3.unsat
                                                 else Outcome("proved", note="relative"))
    for (pid, kind), model in ind.action_scope(proved).items():
        report.outcomes[(pid, kind)] = (Outcome("never") if model == "never" else
                                        Outcome("failed", model) if model is not None else Outcome("proved"))
    return ind, report
