"""Translated values for the z3 backend (tools/z3backend.py) and the operations on them.

A value is a Python constant (folded), a z3 term, a `Card` (rank and suit terms), a tuple of bools
(a set of ranks, one per rank) or an `Opt` (a value of a "T?" type with a symbolic None flag).
The helpers fold constants as they go, so that a clause whose options decide it stays a constant,
and give comparisons Python's meaning for None, sets of ranks and suit letters.
"""

from __future__ import annotations

import ast
import operator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

import z3

from durak_spec.reference_impl.lang import INT, RANK


@contextmanager
def lean_z3():
    """Inside, z3's Python layer skips the checks it makes of every argument (sorts, contexts)
    before handing them to z3, which checks the sorts again itself and still rejects a wrong one;
    durak verify builds millions of terms, and those checks cost it about a twentieth of its time.
    The switch is the one `python -O` turns off; where a z3 release has none, nothing changes."""
    saved = getattr(z3.z3, "Z3_DEBUG", True)
    z3.z3.Z3_DEBUG = False
    try:
        yield
    finally:
        z3.z3.Z3_DEBUG = saved


def tactic_solver(ctx=None):
    """z3's SMT core behind simplification, as one fixed pipeline. z3's default solver picks a
    portfolio of tactics by the question's logic, some of which answer with a model that depends
    on the state of the process (two solves of the same question in fresh contexts, one after a
    garbage collection, gave two models); this pipeline's model depends on the question alone."""
    return z3.Then("simplify", "propagate-values", "solve-eqs", "smt", ctx=ctx).solver()


def solve_apart(terms, timeout_ms: int, make_solver=tactic_solver):
    """(result, model) for the bool terms, solved in a z3 context of their own into which they
    are copied; the model is copied back into the process's context, so it evaluates the
    caller's terms. z3 numbers terms in the order a context makes them and its search follows
    those numbers: in the process's context the answer (which model) would depend on whatever was
    built before it; here it depends on the question alone, whichever presets ran before it in
    the process (a --jobs worker runs several), so witnesses and counterexamples repeat run to run.
    `make_solver(ctx)` makes the solver (default: tactic_solver, whose model is the question's)."""
    ctx = z3.Context()
    s = make_solver(ctx)
    s.set("timeout", timeout_ms)
    # Copied in one go: subterms the terms share are copied once (one translation, one cache),
    # into the same terms and in the same order as term by term.
    question = z3.AstVector()
    for t in terms:
        question.push(t)
    s.add(question.translate(ctx))
    result = s.check()
    if result != z3.sat:
        return result, None
    return result, s.model().translate(z3.main_ctx())


class V(NamedTuple):
    value: Any
    type: str


class Card(NamedTuple):
    """A card's rank and the suit it is played as; `own` is the suit printed on it where it may
    differ (an action's card, which may be the Weli played as a named suit), else None: the same."""

    rank: Any
    suit: Any
    own: Any = None

    @property
    def own_suit(self):
        return self.suit if self.own is None else self.own


class Opt(NamedTuple):
    """A value of an optional type: `none` says it is None; then `value` is meaningless."""

    value: Any
    none: Any


@dataclass
class Atom:
    """A comparison of two numbers inside a clause (`left op right`), for boundary cases."""

    node: ast.AST
    op: str
    left: Any
    right: Any


class Untranslatable(Exception):
    """A clause uses a construct the z3 backend does not model (the message says which)."""

    def __init__(self, what: str):
        super().__init__(f"the z3 backend cannot translate {what}")


PY_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
          ">": operator.gt, ">=": operator.ge}


EDGE_TYPES = {INT, RANK}  # comparisons of these have edges; seats and suits have no "by one"


def is_const(x) -> bool:
    return x is None or isinstance(x, (bool, int, str))


_MAIN = z3.main_ctx()
_BOOLS = {True: z3.BoolVal(True), False: z3.BoolVal(False)}  # in the process's context


def zbool(x):
    return _BOOLS[x] if isinstance(x, bool) else x


_INTS: dict[int, z3.IntNumRef] = {}


def zint(x):
    if isinstance(x, int) and not isinstance(x, bool):
        v = _INTS.get(x)
        if v is None:
            v = _INTS[x] = z3.IntVal(x)
        return v
    return x


# z3 makes one term `true` and one `false` per context, so a bool term of the process's context
# is a constant exactly when its id is one of theirs (one call into z3 instead of three).
_BOOL_IDS = {t.get_id(): v for v, t in _BOOLS.items()}


def simp(x):
    """A Python bool or int when the term is a constant, else the term."""
    if is_const(x):
        return x
    if isinstance(x, z3.IntNumRef):  # what z3 makes of an integer numeral
        return x.as_long()
    if isinstance(x, z3.BoolRef):
        if x.ctx is _MAIN:
            return _BOOL_IDS.get(x.get_id(), x)
        return True if z3.is_true(x) else False if z3.is_false(x) else x
    return x


def differs(x, y):
    """A z3 bool: two translated values differ (optional values compare with their None flag)."""
    if isinstance(x, Opt) or isinstance(y, Opt) or x is None or y is None:
        ox, oy = (v if isinstance(v, Opt) else Opt(0 if v is None else v, v is None) for v in (x, y))
        return z3.Or(zbool(ox.none) != zbool(oy.none),
                     z3.And(z3.Not(zbool(ox.none)), zint(ox.value) != zint(oy.value)))
    if isinstance(x, bool) or isinstance(y, bool) or z3.is_bool(x) or z3.is_bool(y):
        return zbool(x) != zbool(y)
    return zint(x) != zint(y)


def ite(c, a, b):
    """z3 If over translated payloads of the same shape; folds a constant condition."""
    c = simp(c)
    if isinstance(c, bool):
        return a if c else b
    if isinstance(a, Card) or isinstance(b, Card):
        own = None if a.own is None and b.own is None else ite(c, a.own_suit, b.own_suit)
        return Card(ite(c, a.rank, b.rank), ite(c, a.suit, b.suit), own)
    if isinstance(a, tuple) and not isinstance(a, Opt):
        return tuple(ite(c, x, y) for x, y in zip(a, b))
    if isinstance(a, Opt) or isinstance(b, Opt) or a is None or b is None:
        oa, ob = as_opt(a), as_opt(b)
        return Opt(ite(c, oa.value, ob.value), ite(c, oa.none, ob.none))
    if isinstance(a, str) or isinstance(b, str):
        if a == b:
            return a
        raise Untranslatable("an if-else choosing between strings on a state condition")
    if is_const(a) and is_const(b) and a == b and type(a) is type(b):
        return a
    if isinstance(a, bool) or isinstance(b, bool) or z3.is_bool(a) or z3.is_bool(b):
        return z3.If(c, zbool(a), zbool(b))
    return z3.If(c, zint(a), zint(b))


def as_opt(x) -> Opt:
    if isinstance(x, Opt):
        return x
    if x is None:
        return Opt(0, True)
    return Opt(x, False)


def pick(items, index):
    """items[index] for a Python or symbolic index (seats are 0..len-1)."""
    index = simp(index)
    if isinstance(index, int):
        return items[index]
    out = items[-1]
    for i in range(len(items) - 2, -1, -1):
        out = ite(index == i, items[i], out)
    return out


def num(x):
    """The number inside an optional value (comparisons of a None are type errors in Python)."""
    return x.value if isinstance(x, Opt) else x


def implies(c, v):
    c, v = simp(c), simp(v)
    if c is True or v is True or c is False:
        return True if (c is False or v is True) else v
    return fold_bools([negate(c), v], False)


def opt_simp(o: Opt):
    none = simp(o.none)
    if none is True:
        return None
    if none is False:
        return simp(o.value)
    return Opt(simp(o.value), none)


def fold_bools(terms, is_and: bool):
    rest = []
    for t in terms:
        if isinstance(t, bool):
            if t is not is_and:
                return not is_and
            continue
        rest.append(t)
    if not rest:
        return is_and
    return rest[0] if len(rest) == 1 else (z3.And(rest) if is_and else z3.Or(rest))


def compare(op: str, a: V, b: V, state):
    """One comparison of two translated values, with Python's meaning for None and sets."""
    x, y = a.value, b.value
    if op in ("is", "is not"):
        other = y if x is None else x
        none = True if other is None else as_opt(other).none
        return none if op == "is" else negate(none)
    if op in ("in", "not in"):
        member = _member(x, y)
        return member if op == "in" else negate(member)
    if op in ("==", "!="):
        eq = _equal(x, y, state.suits)
        return eq if op == "==" else negate(eq)
    x, y = num(x), num(y)
    if is_const(x) and is_const(y):
        return PY_CMP[op](x, y)
    return PY_CMP[op](zint(x), zint(y))


def negate(x):
    x = simp(x)
    return (not x) if isinstance(x, bool) else z3.Not(x)


def _member(rank, ranks):
    rank = simp(rank)
    if isinstance(rank, int):
        return ranks[rank] if 0 <= rank < len(ranks) else False
    terms = []
    for r, present in enumerate(ranks):
        present = simp(present)
        if present is False:
            continue
        terms.append(rank == r if present is True else z3.And(rank == r, present))
    return fold_bools(terms, False)


def _equal(x, y, suits):
    if x is None or y is None or isinstance(x, Opt) or isinstance(y, Opt):
        ox, oy = as_opt(x), as_opt(y)
        both_none = simp(z3.And(zbool(ox.none), zbool(oy.none)))
        one_none = simp(z3.Or(zbool(ox.none), zbool(oy.none)))
        if x is None or y is None:
            return one_none
        return ite(one_none, both_none, simp(zint(ox.value) == zint(oy.value)))
    if isinstance(x, Card):
        return simp(z3.And(zint(x.rank) == zint(y.rank), zint(x.suit) == zint(y.suit)))
    if isinstance(x, tuple):
        return fold_bools([simp(zbool(p) == zbool(q)) for p, q in zip(x, y)], True)
    if isinstance(x, str) or isinstance(y, str):  # a suit compared with a suit letter
        if isinstance(x, str) and isinstance(y, str):
            return x == y
        letter, suit = (x, y) if isinstance(x, str) else (y, x)
        if letter not in suits:
            return False
        return simp(zint(suit) == suits.index(letter))
    if is_const(x) and is_const(y):
        return x == y
    if isinstance(x, bool) or isinstance(y, bool) or z3.is_bool(x) or z3.is_bool(y):
        return simp(zbool(x) == zbool(y))
    return simp(zint(x) == zint(y))


def tight(atom: Atom, satisfied: bool):
    """The comparison is at its boundary: just holds (satisfied) or just fails by one."""
    d = zint(atom.left) - zint(atom.right)
    if atom.op == "==":
        return d == 0 if satisfied else z3.Or(d == 1, d == -1)
    if atom.op == "!=":
        return z3.Or(d == 1, d == -1) if satisfied else d == 0
    edge = {"<=": (0, 1), "<": (-1, 0), ">=": (0, -1), ">": (1, 0)}[atom.op]
    return d == (edge[0] if satisfied else edge[1])
