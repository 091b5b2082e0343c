"""Rule coverage of a fuzzing campaign: which legality clauses decided, on which side of their edge.

A legality rule (a clause of `applies_to`, or an order rule's key) **decides** on its accept side
when an action of its kind that the reference allows is sent to the engine, and on its reject side
when a probed action is refused first by it. For a clause with a numeric comparison (say
`table_attack_count + 1 <= opt.max_attack_cards`), the **edge** of a side is reached when that
comparison holds with equality (or by one for `<`, `>`) on the accept side, and fails by one on
the reject side: limits.cap's edges are the sixth card of a bout and a refused seventh.

What a side must reach to count as exercised is what `durak verify --write-boundary` found for it
under the preset (conformance/cases/generated/boundary/): its edge when the boundary case sits at
an edge, otherwise a position where the clause decides; and a side counts only at the player
counts for which a boundary case exists (an order rule needs three players, for instance). So the
campaign's coverage and the generated boundary cases speak of the same boundaries.

The instrumented clauses are compiled from the same clause text as the interpreter's and used only
for this accounting; a rule is no longer evaluated once its sides are reached.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from functools import lru_cache

import yaml

from durak_spec.conformance.cases import CASES_DIR
from durak_spec.reference_impl.lang import BOOL, CMP_OPS, INT, RANK, RUNTIME, Compiler, Emitted
from durak_spec.reference_impl.vocab import action_names

BOUNDARY_DIR = CASES_DIR / "generated" / "boundary"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
NO_EDGE = "the clause decides the verdict"
SIDES = ("accept", "reject")
# For each operator, the difference a - b at which it holds at its edge, and those at which it
# fails by one.
_EDGE = {"<=": (0, (1,)), "<": (-1, (0,)), ">=": (0, (-1,)), ">": (1, (0,)), "==": (0, (-1, 1))}
_CMP = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt,
        "==": operator.eq}


class _EdgeCompiler(Compiler):
    """A clause compiler that wraps each numeric comparison in `_E(k, a, b)`, which records
    whether the comparison sits at its edge."""

    def __init__(self, env, file: str, path: str, ops: list):
        super().__init__(env, file, path)
        self.ops = ops

    def _compare(self, node: ast.Compare) -> Emitted:
        em = Compiler._compare(self, node)
        if em.const or len(node.ops) != 1 or CMP_OPS[type(node.ops[0])] not in _EDGE:
            return em
        a, b = self.emit(node.left), self.emit(node.comparators[0])
        if a.type not in (INT, RANK) or b.type not in (INT, RANK) or a.const and b.const:
            return em
        self.ops.append(CMP_OPS[type(node.ops[0])])
        return Emitted(BOOL, f"_E({len(self.ops) - 1}, {a.src}, {b.src})", names=em.names)

    HANDLERS = {**Compiler.HANDLERS, ast.Compare: _compare}


@dataclass
class Side:
    decided: int | None = None   # the campaign game in which the clause first decided this side
    edge: int | None = None      # ... and first did so at its edge


class _Rule:
    def __init__(self, rule_id: str, kinds, fn, ops: list, order: bool):
        self.id, self.kinds, self.fn, self.ops, self.order = rule_id, tuple(kinds), fn, ops, order
        self.accept, self.reject = Side(), Side()


@lru_cache(maxsize=None)
def boundary_cases() -> tuple:
    """(rule, side, preset, players, needs edge, setup, actions) of every generated boundary
    case."""
    out = []
    for path in sorted(BOUNDARY_DIR.rglob("*.yaml")):
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
            gen = data["generated"]
            for preset in data.get("variants", ["podkidnoy"]):
                out.append((gen["rule"], gen["verdict"], preset, int(gen.get("players", 2)),
                            bool(gen.get("edge")) and gen.get("edge") != NO_EDGE,
                            data["setup"], tuple(s["do"] for s in data["steps"])))
        except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError):
            continue
    return tuple(out)


class ClauseCoverage:
    """Which legality rules of one ruleset decided on each side, over a campaign."""

    def __init__(self, ruleset, players=(2,)):
        self.ruleset = ruleset
        self.game = 0
        self.rules: dict[str, _Rule] = {}
        self._hits: list = []
        for kind, compiled in ruleset.legality.items():
            for cr in compiled:
                if not cr.clause.const and cr.rule.id not in self.rules:
                    self.rules[cr.rule.id] = self._instrument(cr.rule)
        for kind, cr in ruleset.order.items():
            self.rules.setdefault(cr.rule.id, _Rule(cr.rule.id, cr.rule.applies_to, None, [], True))
        # what each side must reach: {(rule, side): needs edge}, for these player counts
        top = max(players)
        self.targets: dict = {}
        self.seeds: dict = {}  # (rule, side) -> (setup, actions) of its boundary case
        for rule, side, preset, n, edge, setup, actions in boundary_cases():
            if preset == ruleset.preset and n <= top and rule in self.rules:
                self.targets[(rule, side)] = self.targets.get((rule, side), True) and edge
                if n in players:
                    self.seeds.setdefault((rule, side), (setup, list(actions)))
        self._open: dict = {}
        for rule in self.rules.values():
            if not rule.order:
                for kind in rule.kinds:
                    self._open.setdefault(kind, []).append(rule)
        self._rejects_open, self._marks, self._marks_seen = True, 0, -1
        # kind -> its rules accepted() still marks: a caller may skip accepted() for a kind
        # with none (the lockstep, at every step it plans)
        self.open_rules = self._open

    def _instrument(self, rule) -> _Rule:
        ops: list = []
        env = self.ruleset.clause_env(action_names(rule.applies_to))
        compiler = _EdgeCompiler(env, rule.file, f"{rule.path}.clause", ops)
        src = compiler.emit(compiler.parse(rule.clause).body).src
        hits = self._hits

        def edge(k, a, b, _ops=ops, _hits=hits):
            op = _ops[k]
            at, over = _EDGE[op]
            d = a - b
            if d == at:
                _hits.append(True)
            elif d in over:
                _hits.append(False)
            return _CMP[op](a, b)

        fn = eval(compile(f"lambda s, seat, card, target: {src}",  # generated from the clause
                          f"<coverage of {rule.id}>", "eval"), {**RUNTIME, "_E": edge})
        return _Rule(rule.id, rule.applies_to, fn, ops, False)

    def _edges(self, rule: _Rule, state, action) -> list:
        self._hits.clear()
        rule.fn(state, action.seat, action.card, action.target)
        return self._hits

    def _mark(self, side: Side, at_edge: bool) -> None:
        if side.decided is None:
            side.decided = self.game
            self._marks += 1
        if at_edge and side.edge is None:
            side.edge = self.game
            self._marks += 1

    def accepted(self, state, action) -> None:
        """An action the reference allows is sent, from `state`."""
        rules = self._open.get(action.kind)
        if not rules:
            return
        for rule in list(rules):
            at_edge = bool(rule.ops) and True in self._edges(rule, state, action)
            self._mark(rule.accept, at_edge)
            if at_edge or not rule.ops:
                for kind in rule.kinds:
                    if rule in self._open.get(kind, ()):
                        self._open[kind].remove(rule)

    def rejected(self, state, action, rule_id: str, legal) -> None:
        """A probed action is refused first by `rule_id`, from `state` (`legal` the actions
        allowed there)."""
        rule = self.rules.get(rule_id)
        if rule is None or rule.reject.edge is not None:
            return
        if rule.order:
            self._mark(rule.reject, False)
            if any(a.kind == action.kind for a in legal):
                self._mark(rule.accept, False)
            return
        self._mark(rule.reject, bool(rule.ops) and False in self._edges(rule, state, action))

    def exercised(self, rule_id: str, side: str) -> int | None:
        """The game in which the side was first exercised as its target asks, or None."""
        rule = self.rules[rule_id]
        got = getattr(rule, side)
        return got.edge if self.targets.get((rule_id, side)) else got.decided

    @property
    def rejects_open(self) -> bool:
        """Some reject side is still to be exercised (once none is, it stays so)."""
        if self._rejects_open and self._marks != self._marks_seen:
            self._marks_seen = self._marks
            self._rejects_open = any(side == "reject" for _, side in self.missing())
        return self._rejects_open

    def wants_reject(self, rule_id: str) -> bool:
        return (rule_id, "reject") in self.targets and self.exercised(rule_id, "reject") is None

    def missing(self) -> list[tuple[str, str]]:
        """(rule id, side) of every side that can decide but was not exercised."""
        return [key for key in self.targets if self.exercised(*key) is None]

    def to_json(self) -> dict:
        """{rule: {kinds, accept: {decided, edge, target}, reject: ...}}: each side's first game
        (decided, and at the edge) and its target: 'edge', 'decides' or null when it cannot
        decide under this variant and player count."""
        out = {}
        for r in self.rules.values():
            out[r.id] = {"kinds": list(r.kinds)}
            for side in SIDES:
                got = getattr(r, side)
                target = self.targets.get((r.id, side))
                out[r.id][side] = {"decided": got.decided, "edge": got.edge,
                                   "target": None if target is None else "edge" if target else "decides",
                                   "exercised": self.exercised(r.id, side) is not None}
        return out


def summary(coverage: dict) -> tuple[int, int, list]:
    """(sides exercised, sides that can decide, [(rule, side) missing]) of a to_json dict."""
    targets = [(rule, side) for rule, e in coverage.items() for side in SIDES if e[side]["target"]]
    missing = [(rule, side) for rule, side in targets if not coverage[rule][side]["exercised"]]
    return len(targets) - len(missing), len(targets), missing
