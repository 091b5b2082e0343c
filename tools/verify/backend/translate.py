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
from durak_spec.reference_impl.lang import (
    BOOL,
    CARD,
    CMP_OPS,
    COLOUR,
    INT,
    PAIR,
    RANK,
    SEAT,
    SUIT,
    _pow,
    const,
    join_types,
)
from durak_spec.tools.verify.backend.state import fresh_number
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
         ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: _pow}



def options_read(node, definitions, seen=None) -> list[str]:
    """The options a clause tree reads, through the definitions it uses, sorted."""
    seen = set() if seen is None else seen
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "opt":
            found.add(sub.attr)
        elif isinstance(sub, ast.Name) and sub.id in definitions and sub.id not in seen:
            seen.add(sub.id)
            found.update(options_read(parse(definitions[sub.id].clause), definitions, seen))
    return sorted(found)


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
            return self.loop[n]
        if n in self.names:
            return self.names[n]
        machine = self.state.machine
        if n in machine.constants:
            t, value = machine.constants[n]
            return V(value, t)
        if n in self.definitions:
            return self._inline(n, None)
        entry = getattr(self.state, "vocab", vocab.STATE).get(n)
        if entry is None or entry.args is not None:
            raise Untranslatable(f"the name {n!r}")
        return V(self.state.value(n), entry.type)

    def _inline(self, n, bound):
        """A definition's clause, with its parameters `bound` (name -> V) or, without parameters,
        the names of the clause that uses it."""
        d = self.definitions[n]
        if bound is None:
            return self.tr(parse(d.clause))
        saved = (self.names, self.loop)
        self.names, self.loop = bound, {}
        try:
            return self.tr(parse(d.clause))
        finally:
            self.names, self.loop = saved

    def _attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "opt":
            value = self.options[node.attr]
            return V(value, const(value).type)
        base = self.tr(node.value)
        m = self.state.machine
        if base.type == PAIR:
            attack, cover = base.value
            return V(attack if node.attr == "attack" else cover, CARD)
        card = base.value
        if isinstance(card, Opt) or card is None:
            if card is None:
                return V(None, "none")
            inner = self._card_attr(m, card.value, node.attr)
            return V(Opt(inner.value, card.none), inner.type + "?")
        return self._card_attr(m, card, node.attr)

    @staticmethod
    def _card_attr(m, card, attr):
        if attr == "rank":
            return V(card.rank, RANK)
        if attr == "suit":
            return V(card.suit, SUIT)
        if attr == "own_suit":
            return V(card.own_suit, SUIT)
        if attr == "is_joker":
            return V(m.is_joker(card), BOOL)
        if attr == "colour":
            return V(m.colour_of(card), COLOUR)
        raise Untranslatable(f"the card attribute .{attr}")

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
        if isinstance(node.op, ast.Pow):
            raise Untranslatable("'**' with an exponent that depends on the state")
        if isinstance(node.op, ast.FloorDiv):  # SMT div is floor division for a positive divisor
            return V(zint(a) / zint(b), INT)
        return V(fn(zint(a), zint(b)), INT)

    def _literal(self, v: V, t: str) -> V:
        """A string literal read as a value of type `t` (Compiler.coerce): a rank symbol becomes
        its index, a colour its number; suit letters stay letters (values.compare reads them)."""
        if not isinstance(v.value, str) or v.type in (RANK, COLOUR, SUIT):
            return v
        m = self.state.machine
        if t == RANK:
            return V(m.rank_index[v.value], RANK)
        if t == COLOUR:
            return V(m.colours.index(v.value) if v.value in m.colours else -1, COLOUR)
        return v

    def _compare(self, node):
        if len(node.ops) == 1 and id(node) in self.overrides:
            return V(self.overrides[id(node)], BOOL)
        parts = []
        left = self.tr(node.left)
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.tr(right_node)
            op = CMP_OPS[type(op_node)]
            left = self._literal(left, right.type.rstrip("?"))
            right = self._literal(right, left.type.rstrip("?"))
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
        body, orelse = self._literal(body, orelse.type.rstrip("?")), self._literal(orelse, body.type.rstrip("?"))
        return V(ite(test, body.value, orelse.value), join_types(body.type, orelse.type) or INT)

    def _call(self, node):
        fname = node.func.id
        if fname in ("all", "any", "sum", "count", "min", "max", "argmin", "argmax"):
            return self._aggregate(fname, node)
        d = self.definitions.get(fname)
        if d is not None and d.params:
            bound = {}
            for (pname, want), arg in zip(d.params, node.args):
                v = self._literal(self.tr(arg), want)
                bound[pname] = V(v.value, want)
            return self._inline(fname, bound)
        entry = getattr(self.state, "vocab", vocab.STATE)[fname]
        args = [self.tr(a).value for a in node.args]
        return V(self.state.call(fname, args), entry.type)

    def _aggregate(self, fname, node):
        gen = node.args[0]
        comp = gen.generators[0]
        var = comp.target.id
        it = comp.iter
        m = self.state.machine
        if isinstance(it, ast.Name) and it.id == "covered":
            return self._pairs(fname, node, gen, comp)
        if isinstance(it, ast.Call) and it.func.id == "cards":
            seat = self.tr(it.args[0]).value
            return self._havoc_cards(fname, node, repr(seat), self.state.hand_of(seat))
        if isinstance(it, ast.Name) and it.id == "in_play":
            cards = self.state.cards_in_play
            if cards is None:  # which cards are out of play is not held: at most the deck's
                left = simp(m.deck_size - zint(self.state.value("discard_count")))
                return self._havoc_cards(fname, node, "in_play", left)
            domain = [(V(c, CARD), c) for c in cards]  # a concrete state's own cards
        elif isinstance(it, ast.Name) and it.id == "suits":
            domain = [(V(letter, SUIT), letter) for letter in m.plain_suits]
        else:
            domain = [(V(seat, SEAT), seat) for seat in range(self.state.n)]
        items = []  # (seat, condition, value, type)
        for bound, seat in domain:
            self.loop[var] = bound
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

    def _havoc_cards(self, fname, node, where: str, size):
        """An aggregate over cards the abstraction does not hold (a hand's, or those in play): a
        fresh value per state and (aggregate, `where`, bound names); a count is bounded by
        `size`, the number of cards iterated."""
        m = self.state.machine
        reads = tuple((o, repr(self.options[o])) for o in options_read(node, self.definitions))
        key = (ast.dump(node), where, reads,
               tuple(sorted((k, repr(v.value)) for k, v in self.names.items())),
               tuple(sorted((k, repr(v.value)) for k, v in self.loop.items())))

        def make():
            tag = f"havoc{fresh_number()}.{fname}"
            if fname in ("all", "any"):
                return V(z3.Bool(tag), BOOL)
            if fname == "count":
                v = z3.Int(tag)
                m.side.append(z3.And(v >= 0, v <= zint(size)))
                return V(v, INT)
            if fname == "sum":
                return V(z3.Int(tag), INT)
            return V(Opt(z3.Int(tag), z3.Bool(tag + ".none")), RANK + "?")
        return self.state.havoc(key, make)

    def _pairs(self, fname, node, gen, comp):
        """An aggregate over the covered pairs: the state counts the pairs meeting its condition
        (Machine.pair_aggregates), so all/any/count read that count."""
        m = self.state.machine
        index = m.pair_index(node)
        n_sat = self.state.f["pairs"][index]
        covered = simp(zint(self.state.value("table_attack_count")) - self.state.value("table_unbeaten"))
        if fname == "count":
            return V(n_sat, INT)
        if fname == "all":
            return V(simp(zint(n_sat) == covered), BOOL)
        if fname == "any":
            return V(simp(zint(n_sat) > 0), BOOL)
        raise Untranslatable(f"{fname}() over the covered pairs")

    def pair_condition(self, node, attack, cover):
        """The condition an aggregate over the covered pairs counts, for one pair of cards."""
        gen = node.args[0]
        comp = gen.generators[0]
        fname = node.func.id
        self.loop[comp.target.id] = V((attack, cover), PAIR)
        try:
            terms = [self.tr(c).value for c in comp.ifs]
            elt = self.tr(gen.elt).value
        finally:
            del self.loop[comp.target.id]
        if fname in ("all", "any", "count"):
            terms.append(elt)
        return fold_bools([simp(zbool(t)) if not isinstance(t, bool) else t for t in terms], True)

    HANDLERS = {
        ast.Constant: _constant, ast.Name: _name, ast.Attribute: _attribute, ast.BoolOp: _boolop,
        ast.UnaryOp: _unaryop, ast.BinOp: _binop, ast.Compare: _compare, ast.IfExp: _ifexp,
        ast.Call: _call,
    }
