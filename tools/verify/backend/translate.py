"""The clause language's second backend: spec clauses translated into z3 terms.

reference_impl/lang.py compiles a checked clause into a Python callable; this module walks the same
syntax tree under the same rules (options folded to constants, definitions inlined, constant
operands deciding `and`/`or`/`if` before the rest is looked at, aggregates over seats unrolled)
and builds z3 terms over a symbolic state (tools/z3state.py). Clauses reach here only after the
Python backend has type checked them, so this module trusts their types.

A translated value is a `V(value, type)` (tools/z3values.py).
"""

from __future__ import annotations

import ast
import operator
from functools import lru_cache

import z3

from durak_spec.reference_impl import vocab
from durak_spec.reference_impl.lang import BOOL, CMP_OPS, INT, RANK, SEAT, SUIT, const, join_types
from durak_spec.tools.verify.backend.values import (
    EDGE_TYPES,
    PY_CMP,
    Atom,
    Opt,
    Untranslatable,
    V,
    as_opt,
    compare,
    fold_bools,
    implies,
    is_const,
    ite,
    negate,
    num,
    opt_simp,
    simp,
    zbool,
    zint,
)

ARITH = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


@lru_cache(maxsize=None)
def parse(text: str) -> ast.AST:
    """The body of a clause's syntax tree, parsed once per text so atoms keep their identity."""
    return ast.parse(text.strip(), mode="eval").body


class Translator:
    """Translates clause trees into z3 terms over `state` (a z3state.SymState, which knows its
    ruleset's options and definitions and gives the vocabulary's values).

    `names` binds action names (seat, card, kind, ...) for the clause at hand; `overrides` maps
    comparison nodes to fixed truth values (boundary cases); `atoms` collects numeric comparisons.
    """

    def __init__(self, state, names: dict[str, V] | None = None, overrides: dict | None = None,
                 atoms: list | None = None):
        self.state = state
        self.options = state.options
        self.definitions = state.definitions
        self.names = dict(names or {})
        self.overrides = overrides or {}
        self.atoms = atoms
        self.loop: dict[str, int] = {}

    # -- entry points -----------------------------------------------------------------------
    def term(self, text_or_node) -> V:
        node = parse(text_or_node) if isinstance(text_or_node, str) else text_or_node
        if isinstance(node, ast.Expression):
            node = node.body
        return self.tr(node)

    def bool(self, text_or_node):
        """A z3 Bool (or Python bool when folded) for a bool clause."""
        return self.term(text_or_node).value

    # -- dispatch -----------------------------------------------------------------------------
    def tr(self, node) -> V:
        handler = self.HANDLERS.get(type(node))
        if handler is None:
            raise Untranslatable(f"{type(node).__name__} nodes")
        return handler(self, node)

    def _constant(self, node):
        return V(node.value, const(node.value).type)

    def _name(self, node):
        n = node.id
        if n in ("True", "False", "None"):
            value = {"True": True, "False": False, "None": None}[n]
            return V(value, const(value).type)
        if n in self.loop:
            return V(self.loop[n], SEAT)
        if n in self.names:
            return self.names[n]
        if n in self.definitions:
            text = self.definitions[n][1]
            return self.tr(parse(text))
        entry = vocab.STATE.get(n)
        if entry is None or entry.args is not None:
            raise Untranslatable(f"the name {n!r}")
        return V(self.state.value(n), entry.type)

    def _attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "opt":
            value = self.options[node.attr]
            return V(value, const(value).type)
        base = self.tr(node.value).value
        if node.attr == "rank":
            return V(base.rank, RANK)
        if node.attr == "suit":
            return V(base.suit, SUIT)
        if node.attr == "is_trump":
            return V(simp(base.suit == self.state.value("trump_suit")), BOOL)
        raise Untranslatable(f"the card attribute .{node.attr}")

    def _boolop(self, node):
        is_and = isinstance(node.op, ast.And)
        parts = []
        for v in node.values:
            x = simp(self.tr(v).value)
            if isinstance(x, bool):
                if x is (not is_and):
                    return V(not is_and, BOOL)
                continue
            parts.append(x)
        if not parts:
            return V(is_and, BOOL)
        if len(parts) == 1:
            return V(parts[0], BOOL)
        return V(z3.And(parts) if is_and else z3.Or(parts), BOOL)

    def _unaryop(self, node):
        x = self.tr(node.operand)
        v = simp(x.value)
        if isinstance(node.op, ast.Not):
            return V(not v if isinstance(v, bool) else z3.Not(v), BOOL)
        if isinstance(node.op, ast.USub):
            return V(-v, INT)
        raise Untranslatable(f"unary {type(node.op).__name__}")

    def _binop(self, node):
        a, b = self.tr(node.left).value, self.tr(node.right).value
        a, b = simp(num(a)), simp(num(b))
        fn = ARITH[type(node.op)]
        if is_const(a) and is_const(b):
            return V(fn(a, b), INT)
        if isinstance(node.op, ast.FloorDiv):  # SMT div is floor division for a positive divisor
            return V(zint(a) / zint(b), INT)
        return V(fn(zint(a), zint(b)), INT)

    def _compare(self, node):
        if len(node.ops) == 1 and id(node) in self.overrides:
            return V(self.overrides[id(node)], BOOL)
        parts = []
        left = self.tr(node.left)
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.tr(right_node)
            op = CMP_OPS[type(op_node)]
            x = simp(compare(op, left, right, self.state))
            if isinstance(x, bool):
                if not x:
                    return V(False, BOOL)
            else:
                parts.append(x)
                if (self.atoms is not None and len(node.ops) == 1 and op in PY_CMP
                        and {left.type.rstrip("?"), right.type.rstrip("?")} <= EDGE_TYPES):
                    self.atoms.append(Atom(node, op, num(left.value), num(right.value)))
            left = right
        if not parts:
            return V(True, BOOL)
        return V(parts[0] if len(parts) == 1 else z3.And(parts), BOOL)

    def _ifexp(self, node):
        test = simp(self.tr(node.test).value)
        if isinstance(test, bool):
            return self.tr(node.body if test else node.orelse)
        body, orelse = self.tr(node.body), self.tr(node.orelse)
        return V(ite(test, body.value, orelse.value), join_types(body.type, orelse.type) or INT)

    def _call(self, node):
        fname = node.func.id
        if fname in ("all", "any", "sum", "count", "min", "max", "argmin", "argmax"):
            return self._aggregate(fname, node)
        entry = vocab.STATE[fname]
        args = [self.tr(a).value for a in node.args]
        return V(self.state.call(fname, args), entry.type)

    def _aggregate(self, fname, node):
        gen = node.args[0]
        comp = gen.generators[0]
        var = comp.target.id
        items = []  # (seat, condition, value, type)
        for seat in range(self.state.n):
            self.loop[var] = seat
            try:
                conds = [simp(self.tr(c).value) for c in comp.ifs]
                cond = True
                for c in conds:
                    cond = c if cond is True else (cond if c is True else simp(z3.And(zbool(cond), zbool(c))))
                if cond is False:
                    continue
                elt = self.tr(gen.elt)
            finally:
                del self.loop[var]
            items.append((seat, cond, elt.value, elt.type))
        etype = items[0][3] if items else INT
        if fname in ("all", "any"):
            terms = [implies(c, v) if fname == "all" else fold_bools([c, v], True)
                     for _, c, v, _ in items]
            return V(fold_bools(terms, fname == "all"), BOOL)
        if fname in ("sum", "count"):
            total = 0
            for _, c, v, _ in items:
                one = (1 if fname == "count" else num(v))
                term = ite(zbool(v), one, 0) if fname == "count" else one
                total = total + (term if c is True else ite(c, term, 0))
            return V(simp(total) if not is_const(total) else total, INT)
        key, chosen, none = 0, 0, True  # the best key so far, what it selects, whether any
        for seat, c, v, _ in items:
            o = as_opt(v)
            better = o.value < key if fname in ("min", "argmin") else o.value > key
            valid = fold_bools([c, negate(o.none)], True)
            take = simp(fold_bools([valid, fold_bools([none, simp(better)], False)], True))
            payload = seat if fname in ("argmin", "argmax") else o.value
            key, chosen, none = ite(take, o.value, key), ite(take, payload, chosen), ite(take, False, none)
        best = Opt(chosen, none)
        rtype = SEAT + "?" if fname in ("argmin", "argmax") else etype.rstrip("?") + "?"
        return V(opt_simp(best), rtype)

    HANDLERS = {
        ast.Constant: _constant, ast.Name: _name, ast.Attribute: _attribute, ast.BoolOp: _boolop,
        ast.UnaryOp: _unaryop, ast.BinOp: _binop, ast.Compare: _compare, ast.IfExp: _ifexp,
        ast.Call: _call,
    }
