"""`durak verify --write-boundary`: for each legality clause (and order rule), a position where it
is just satisfied and one where it is just violated, as generated conformance cases.

"Just" means: the clause holds (fails) because of one numeric comparison in it, and that comparison
sits at its edge: equality, or off by one (e.g. the defender holds exactly as many cards as there
will be unbeaten ones). Clauses without such a comparison get a position where they decide the
verdict. A rejecting case also has every earlier rule of its kind satisfied, so the interpreter
names this rule; every case is replayed on the interpreter before it is written, and one case
lists every preset under which the interpreter gives it the same verdict. A position that no
legal history reaches (conformance/fromdeal.py proves it) is refused like a model the interpreter
contradicts, and each case carries, per preset, the deal and prefix that reach its position
(`from_deal`), so engines that can only deal run it too.
"""

from __future__ import annotations

import ast
import copy
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import yaml
import z3

from durak_spec.conformance.cases import dump_case
from durak_spec.conformance.fromdeal import reach
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import POSITION_FIELDS
from durak_spec.reference_impl.lang import CMP_OPS
from durak_spec.reference_impl.spec import load_spec
from durak_spec.tools.verify.backend.concrete import Position, Step, replay
from durak_spec.tools.verify.backend.machine import Machine
from durak_spec.tools.verify.backend.state import SymAction, SymState, reset_names
from durak_spec.tools.verify.backend.translate import Translator, parse
from durak_spec.tools.verify.backend.values import PY_CMP, tight, zbool
from durak_spec.tools.verify.cases import write_case
from durak_spec.tools.verify.invariants import properties
from durak_spec.tools.verify.models import Search

SUBDIR = "generated/boundary"
ATTEMPTS = 24  # z3 models tried per query (models.Search); positions no deal reaches are refused too


@dataclass
class Found:
    setup: dict
    action: str
    players: int
    edge: str  # the comparison at its edge, in words, or '' when the clause has none


def _rules(spec):
    """Every rule with a legality clause or an order key, in spec order."""
    return [r for r in spec.rules if r.applies_to]


def _query(m: Machine, rule, kind: str, verdict: str, props, edges: bool):
    """Yield (constraints, s0, action, atom or None) for each way to reach the boundary: at the
    edge of each comparison in turn when `edges`, else where the clause decides the verdict."""
    s0 = SymState.fresh(m, "edge")
    a = SymAction.fresh(kind, m.nranks, m.nsuits)
    base = [m.well_formed(s0), m.expressible(s0), m.settled(s0), m.action_facts(s0, a),
            z3.Not(zbool(s0.finished))]
    base += [m.clause(s0, p.clause.tree) for p in props if p.scope == "state"]
    if rule.key:  # an order rule: it decides between seats that all pass the legality clauses
        rivals = z3.Or([z3.And(a.seat != y, zbool(m.could(s0, kind, y))) for y in range(m.n)])
        order = m.order_ok(s0, a)
        want = [m.generated(s0, a), m.passes_rules(s0, a), rivals,
                order if verdict == "accept" else z3.Not(zbool(order))]
        if not edges:
            yield base + want + m.side, s0, a, None
        return
    terms = m.rule_terms(s0, a)
    index = next(i for i, (cr, _) in enumerate(terms) if cr.rule.id == rule.id)
    clause = m.ruleset.legality[kind][index].clause.tree
    if verdict == "accept":
        base.append(m.legal(s0, a))
    else:
        base += [t for _, t in terms[:index]]
    atoms = []
    whole = Translator(s0, a.names(), atoms=atoms).bool(clause)
    if not edges:
        yield base + [whole if verdict == "accept" else z3.Not(zbool(whole))] + m.side, s0, a, None
        return
    for atom in atoms:
        flipped = Translator(s0, a.names(), {id(atom.node): verdict != "accept"}).bool(clause)
        edge = tight(atom, verdict == "accept")
        decides = [whole, z3.Not(zbool(flipped))] if verdict == "accept" else [z3.Not(zbool(whole)), flipped]
        yield base + decides + [edge] + m.side, s0, a, atom


def _verdict(ruleset, setup, action_text):
    """('accept'|'reject'|None, rule the interpreter names) for the action at the position."""
    game, _ = replay(ruleset, Position(setup, [action_text], len(setup["hands"])))
    if game is None:
        return None, ""
    try:
        action = game.parse_action(action_text)
    except DurakError:
        return None, ""
    if action in game.legal_actions():
        return "accept", ""
    return "reject", game.explain(action)[0]


def edge_words(atom, satisfied: bool, ruleset) -> str:
    """How a comparison sits at its edge, in words (option values written in)."""
    if satisfied:
        how = {"<=": "holds with equality", ">=": "holds with equality", "==": "holds",
               "<": "holds by one", ">": "holds by one", "!=": "holds by one"}[atom.op]
    else:
        how = {"<=": "fails by one", ">=": "fails by one", "==": "fails by one",
               "<": "fails with equality", ">": "fails with equality", "!=": "fails"}[atom.op]
    return f"{folded_text(atom.node, ruleset)} {how}"


class _Fold(ast.NodeTransformer):
    """A clause as one ruleset reads it: definitions inlined, options written in as constants,
    constant parts evaluated."""

    def __init__(self, options, definitions):
        self.options, self.definitions = options, definitions

    def visit_Name(self, node):
        if node.id in self.definitions:
            return self.visit(copy.deepcopy(parse(self.definitions[node.id][1])))
        return node

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "opt":
            return ast.Constant(self.options[node.attr])
        return self.generic_visit(node)

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node

    def visit_Compare(self, node):
        node = self.generic_visit(node)
        parts = [node.left] + node.comparators
        if len(node.ops) == 1 and all(isinstance(p, ast.Constant) for p in parts):
            op = CMP_OPS[type(node.ops[0])]
            a, b = parts[0].value, parts[1].value
            if op in PY_CMP and (a is not None and b is not None or op in ("==", "!=")):
                return ast.Constant(PY_CMP[op](a, b))
            if op in ("is", "is not"):
                return ast.Constant((a is b) == (op == "is"))
        return node

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
            return ast.Constant(not node.operand.value)
        return node

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        is_and = isinstance(node.op, ast.And)
        rest = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, bool):
                if v.value is not is_and:
                    return ast.Constant(not is_and)
                continue
            rest.append(v)
        if not rest:
            return ast.Constant(is_and)
        return rest[0] if len(rest) == 1 else ast.BoolOp(node.op, rest)

    def visit_BinOp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.right, ast.Constant) and node.right.value == 0 and isinstance(node.op, ast.Add):
            return node.left
        return node


def folded_text(node, ruleset) -> str:
    return ast.unparse(_Fold(ruleset.options, ruleset.spec.definitions).visit(copy.deepcopy(node)))


def _attempt(ruleset, rule, verdict, search, m, query, s0, a):
    """A position from a model of `query` that the interpreter confirms, or None."""
    for position, _ in search.positions(m, s0, query, [Step(a)]):
        seen, named = _verdict(ruleset, position.setup, position.actions[0])
        if seen == verdict and (verdict == "accept" or named == rule.id) and \
                _reachable(ruleset, position.setup, position.actions[0]):
            return position
    return None


def _reachable(ruleset, setup: dict, action: str) -> bool:
    """Not proved unreachable from a deal (a position no legal history ends in tests nothing)."""
    try:
        return reach(ruleset, setup, [action]).status != "unreachable"
    except DurakError:
        return False


def find(ruleset, rule, verdict: str, players, search: Search) -> Found | None:
    """The first confirmed boundary position: at a comparison's edge if any can be, else where
    the clause decides; fewest players first. `search` (models.Search) counts the models z3
    found and says whether None is proved."""
    reset_names()  # the same search finds the same position whatever was generated before
    props = properties(ruleset)
    kinds = [k for k in rule.applies_to
             if (rule.key and rule.id in {cr.rule.id for cr in ruleset.order.values()})
             or any(cr.rule.id == rule.id for cr in ruleset.legality[k])]
    for edges, n, kind in ((e, n, k) for e in (True, False) for n in players for k in kinds):
        m = Machine(ruleset, n)
        for query, s0, a, atom in _query(m, rule, kind, verdict, props, edges):
            position = _attempt(ruleset, rule, verdict, search, m, query, s0, a)
            if position is not None:
                edge = edge_words(atom, verdict == "accept", ruleset) if atom else ""
                return Found(position.setup, position.actions[0], n, edge)
    return None


def _case(rule, verdict, found: Found, presets, name):
    step = {"do": found.action, "expect": verdict}
    if verdict == "reject":
        step["rule"] = rule.id
    how = "just satisfied" if verdict == "accept" else "just violated"
    edge = f": {found.edge}" if found.edge else ""
    return {
        "id": f"{SUBDIR}/{rule.area}/{name}",
        "description": f"{rule.id} ({rule.title}) {how}{edge}.",
        "rules": [rule.id],
        "variants": list(presets),
        "setup": found.setup,
        "steps": [step],
        "generated": {"by": "durak verify --write-boundary", "kind": "boundary", "rule": rule.id,
                      "verdict": verdict, "players": found.players,
                      "edge": found.edge or "the clause decides the verdict"},
    }


def _active(ruleset, rule, verdict: str) -> bool:
    """The rule can decide a verdict under the ruleset: it applies, and no clause of its kind is
    constantly false (the kind would never be legal)."""
    for kind in rule.applies_to:
        crs = ruleset.legality[kind]
        if any(cr.clause.const and not cr.clause.value for cr in crs):
            continue
        if rule.key and any(cr.rule.id == rule.id for cr in ruleset.order.values()):
            return True
        for cr in crs:
            if cr.rule.id == rule.id and not cr.clause.const:
                return True
    return False


def generate(spec, presets, players=range(2, 7), only=None, retired=()):
    """([case dict], [result]): boundary cases for every rule (or the ids in `only`), verdict and
    preset, and per rule and verdict what came of it (`_result`): the cases written, each with
    its presets, and the presets skipped, each with why. No case takes an id in `retired`."""
    rulesets = {p: spec.ruleset(p) for p in presets}
    cases, results = [], []
    for rule in _rules(spec):
        if only is not None and rule.id not in only:
            continue
        for verdict in ("accept", "reject"):
            active = [p for p in presets if _active(rulesets[p], rule, verdict)]
            result = _result(rule.id, verdict)
            if len(active) < len(presets):
                result["skipped"].append(_skip([p for p in presets if p not in active], INACTIVE))
            covered: list[str] = []
            for preset in active:
                if preset in covered:
                    continue
                search = Search(ATTEMPTS)
                found = find(rulesets[preset], rule, verdict, players, search)
                if found is None:
                    why = (f"the search for a position {search.gave_up()}" if not search.complete
                           else "z3 found positions, but no real cards fill any" if search.models
                           else f"the clause cannot {'hold' if verdict == 'accept' else 'fail'} "
                                f"for a legal-looking action in any position the invariants allow")
                    result["skipped"].append(_skip([preset], why, not search.complete))
                    continue
                # the same case serves every preset that reads the rule's clause the same way
                # (so the edge is the same edge) and whose interpreter gives the same verdict
                text = _clause_text(rulesets[preset], rule)
                same = [p for p in active if p not in covered
                        and _clause_text(rulesets[p], rule) == text
                        and _verdict(rulesets[p], found.setup, found.action) ==
                        (verdict, rule.id if verdict == "reject" else "")]
                reached = {p: reach(rulesets[p], found.setup, [found.action]) for p in same}
                same = [p for p in same if reached[p].status != "unreachable"]
                case = _case(rule, verdict, found, same, _name(rule, verdict, preset,
                                                               not covered, retired))
                if any(k in found.setup for k in POSITION_FIELDS):
                    case["from_deal"] = {p: reached[p].to_json() for p in same}
                cases.append(case)
                result["cases"].append({"file": f"{case['id']}.yaml",  # as write_case names it
                                        "presets": list(same),
                                        "players": found.players})
                covered += same
            results.append(result)
    return cases, results


def _name(rule, verdict: str, preset: str, first: bool, retired) -> str:
    """The case's file name: <rule>.<verdict> for a rule and verdict's first case, else
    <rule>.<preset>.<verdict> (the preset searched), else with a number before the verdict: the
    first whose id is not retired (CASES.md: a retired id is never reused)."""
    names = [f"{rule.id}.{verdict}"] if first else []
    names += [f"{rule.id}.{preset}.{verdict}"]
    names += (f"{rule.id}.{preset}.{k}.{verdict}" for k in range(2, 2 + len(retired)))
    return next(n for n in names if f"{SUBDIR}/{rule.area}/{n}" not in retired)


INACTIVE = "the rule decides no verdict under these presets (it does not apply, or a clause of " \
           "its action kind is always false)"


def _result(rule_id: str, verdict: str) -> dict:
    """What came of one rule and verdict: `cases`, each {file (relative to the cases root),
    presets, players}, and `skipped`, each {presets, reason, gave_up (the search's "none" is not
    proved)}; together they name every preset once (verify-report.schema.json, `boundary`)."""
    return {"rule": rule_id, "verdict": verdict, "cases": [], "skipped": []}


def _skip(presets: list, reason: str, gave_up: bool = False) -> dict:
    return {"presets": list(presets), "reason": reason, "gave_up": gave_up}


def skip_notes(results) -> list[str]:
    """One line per preset whose search found no case (presets the rule cannot decide under are
    left out: the report lists them)."""
    return [f"{r['rule']} {r['verdict']} under {', '.join(s['presets'])}: {s['reason']}"
            for r in results for s in r["skipped"] if s["reason"] != INACTIVE]


def _clause_text(ruleset, rule) -> str:
    """The rule's clause (or order key) as this ruleset reads it, options written in."""
    for cr in list(ruleset.order.values()) + [c for crs in ruleset.legality.values() for c in crs]:
        if cr.rule.id == rule.id:
            return folded_text(cr.clause.tree.body, ruleset)
    return ""


def _generate_at(spec_root, presets, players, only, retired):
    return generate(load_spec(spec_root), presets, players, only, retired)


def generate_fresh(spec_root, presets, players=range(2, 7), only=None, retired=()):
    """generate() in a fresh process: z3's answers depend on every term created before in the
    process, so only a fresh one gives the same cases on every run."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_generate_at, str(spec_root), list(presets), list(players), only,
                           set(retired)).result()


def write_boundary_cases(spec, presets, root, players=range(2, 7), only=None):
    """Regenerate the boundary cases under root/generated/boundary (of the rules in `only`, else
    all); return (paths, results): per rule and verdict, the cases written (each file relative to
    root) and the presets skipped. An id written before and not now leaves a retired marker, so
    that ids never change meaning (conformance/CASES.md)."""
    before = _boundary_files(root, only)
    retired = {i for i, (_, data) in before.items() if isinstance(data, dict) and "retired" in data}
    cases, results = generate_fresh(spec.root, presets, players, only, retired)
    for path, _ in before.values():
        path.unlink()
    paths = [write_case(root, c, spec) for c in cases]
    for case_id, (path, old) in before.items():
        if not path.exists():
            _retire(path, case_id, old, results)
    return paths, results


def _boundary_files(root, only) -> dict:
    """{id: (path, its data)} of the files under root/generated/boundary (cases and retired
    markers) of the rules in `only`, else of all."""
    out = {}
    for path in sorted((Path(root) / SUBDIR).rglob("*.yaml")):
        if only is None or any(path.stem.startswith(f"{r}.") for r in only):
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
            except yaml.YAMLError:
                data = None  # not a case: rewritten, or retired, like one
            out[path.relative_to(root).with_suffix("").as_posix()] = (path, data)
    return out


def _retire(path: Path, case_id: str, old, results) -> None:
    """Leave a retired marker at `path`: the one it held, else one naming where its rule and
    verdict are now."""
    if isinstance(old, dict) and "retired" in old:
        why = old["retired"]
    else:
        why = "durak verify --write-boundary no longer writes it"
        for r in results:
            if path.stem.startswith(f"{r['rule']}.") and path.stem.endswith(f".{r['verdict']}"):
                files = [c["file"] for c in r["cases"]]
                why += (f": the boundary cases of {r['rule']} ({r['verdict']}) are now "
                        f"{', '.join(files) if files else 'none'} (durak verify --report: "
                        f"boundary)")
                break
    path.write_text(dump_case({"id": case_id, "retired": why}), encoding="utf-8")
