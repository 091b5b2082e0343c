"""The clause language: a small, typed, side-effect-free expression language for spec/ clauses.

Syntax is a whitelisted subset of Python expressions, parsed with `ast`. Each clause is type
checked against a vocabulary (names the interpreter provides), option references (`opt.NAME`) are
replaced by the ruleset's constant values and folded, and the result is emitted as Python source
built from the checked tree only, then compiled once. Spec text itself never reaches eval/exec.

The same checked tree is what the z3 backend translates (see `Clause.tree`).
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, NamedTuple

from .errors import ClauseError, SpecError, suggest

# Types are short strings; "T?" is "T or None".
INT, BOOL, STR, SEAT, CARD, RANK, SUIT, RANKSET, NONE, COLOUR, KIND, PAIR = (
    "int", "bool", "str", "seat", "card", "rank", "suit", "set[rank]", "none", "colour", "kind",
    "pair",
)
NUMERIC = {INT, SEAT, RANK}
# Values of these types may be compared with each other with < <= > >=.
ORDERED = {INT: INT, SEAT: SEAT, RANK: RANK}
# Types whose values a clause writes as string literals ('A', 'S', 'red', 'attack'); a literal
# meets such a value only where its type is known, and must be one of the type's values.
LITERAL_TYPES = {RANK, SUIT, COLOUR, KIND}
# A card's `suit` is the suit it is played as; `own_suit` the suit printed on it (they differ only
# for a card played as a suit its player names, the Weli: cards.Deck.as_suit).
CARD_ATTRS = {"rank": (RANK, "{0}.rank"), "suit": (SUIT, "{0}.suit"),
              "own_suit": (SUIT, "{0}.real.suit"),
              "colour": (COLOUR, "{0}.colour"), "is_joker": (BOOL, "{0}.is_joker")}
PAIR_ATTRS = {"attack": (CARD, "{0}[0]"), "cover": (CARD, "{0}[1]")}
AGGREGATES = {"all": BOOL, "any": BOOL, "sum": INT, "min": None, "max": None, "argmin": SEAT,
              "argmax": SEAT, "count": INT}
# What an aggregate may iterate: seats, the cards of a seat's hand, the suits of the deck, the
# covered pairs of the table (attack card and its cover), and the cards still in play (every hand,
# the table and the talon: all but the discard pile, which is out of play).
ITERABLES = ("seats", "cards(SEAT)", "suits", "covered", "in_play")
# The iterables that read the state alone, and the source that makes each: a generated program
# makes each at most once where the state cannot change (Env.iterable_locals), not per card or
# seat looked at.
STATE_ITERABLES = {"covered": (PAIR, "[_p for _p in s.table if _p[1] is not None]"),
                   "in_play": (CARD, "s.in_play()")}


def lazy_iterable(name: str) -> str:
    """The source that reads STATE_ITERABLES[name] from its `_v_` local, a list the generated
    program sets empty (`[]`) before its loops: the first read fills it, the later ones (of the
    same list, passed to a comprehension's own function too) find it full. Made where needed and
    not before: most settles look at no card that needs it. An empty iterable is made anew at
    each read, which changes only the time."""
    return f"(_v_{name} or _v_{name}.extend({STATE_ITERABLES[name][1]}) or _v_{name})"


CMP_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
           ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
ARITH_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
             ast.Pow: "**"}
# What each operator computes, for folding two constants while compiling.
FOLD = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge, "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
        "is": operator.is_, "is not": operator.is_not, "+": operator.add, "-": operator.sub,
        "*": operator.mul, "//": operator.floordiv, "%": operator.mod}
MAX_POW = 64  # exponents of '**' are clamped to 0..MAX_POW
MAX_POW_BASE = 16  # the largest base of '**' (a constant)
MAX_CLAUSE_CHARS = 2000
MAX_DEPTH = 40


def join_types(a: str, b: str) -> str | None:
    """The type of an if-else whose branches have types a and b, or None if they don't join."""
    if a == b:
        return a
    if a == NONE:
        return b.rstrip("?") + "?"
    if b == NONE:
        return a.rstrip("?") + "?"
    if a.rstrip("?") == b.rstrip("?"):
        return a.rstrip("?") + "?"
    if {a, b} <= {INT, SEAT}:
        return INT
    return None


@dataclass(frozen=True)
class Name:
    """A vocabulary entry: a value (`args` is None) or a function of typed arguments."""

    type: str
    code: str
    args: tuple[str, ...] | None = None
    doc: str = ""


@dataclass
class Emitted:
    """Python source for a checked sub-expression, or a folded constant. `option` names the
    option a constant was read from (its value list checks literals compared with it)."""

    type: str
    src: str
    const: bool = False
    value: Any = None
    names: frozenset = frozenset()
    option: str | None = None


def const(value) -> Emitted:
    t = BOOL if isinstance(value, bool) else INT if isinstance(value, int) else \
        NONE if value is None else STR
    return Emitted(t, repr(value), True, value)


class Definition(NamedTuple):
    """A named sub-expression of spec/definitions.yaml; with `params` ((name, type), ...) it is
    called like a function, `beats(card, target)`, and sees only its parameters."""

    text: str
    clause: str
    file: str
    path: str
    params: tuple = ()


class Literals(NamedTuple):
    """What literals of RANK, SUIT and COLOUR may be, for one deck: `ranks` maps each rank symbol
    of every deck to its strength index in this deck (ranks another deck has still order right),
    `suits` the suit letters, `colours` the colours; `jokers` says whether the deck has any."""

    ranks: dict
    suits: tuple
    colours: tuple
    jokers: bool = True
    all_suits: tuple = ()
    constants: dict = {}  # name -> (type, value): facts of the deck, such as deck_lowest_rank


@dataclass
class Clause:
    """A compiled clause: its text, checked tree, type, free names and Python callable."""

    text: str
    tree: ast.AST
    type: str
    src: str
    names: frozenset
    const: bool = False
    value: Any = None
    file: str = ""
    path: str = ""
    params: tuple[str, ...] = ()
    what: str = ""  # names the clause in errors raised while it runs ('rule attack.opener')

    @cached_property
    def fn(self) -> Callable:
        """The clause as a Python callable fn(s, *params), made the first time it is asked for:
        most clauses of a ruleset are only written into its generated programs (src), so a
        ruleset that never calls them costs no compile."""
        args = ", ".join(("s",) + self.params)
        code = compile(f"lambda {args}: {self.src}", f"<{self.file}:{self.path}>", "eval")
        ns = dict(RUNTIME, _ORIGIN=Origin(self.what, self.text, self.file, self.path))
        return eval(code, ns)  # our generated source, built from the checked tree


@dataclass
class Env:
    """What a clause may refer to: vocabulary, local names (a Name, or an Emitted for a
    definition's parameter), options with their allowed values, definitions, the literals of the
    deck, and the action kinds a `kind` may be."""

    vocab: dict[str, Name]
    options: dict[str, Any]
    definitions: dict[str, Definition] = field(default_factory=dict)
    locals: dict[str, Any] = field(default_factory=dict)
    seat_range: str = "range(s.n)"
    option_values: dict[str, list] = field(default_factory=dict)
    literals: Literals | None = None
    kinds: tuple = ()
    # Sources of cards known to be physical cards, never one played as another suit (the cards
    # of a hand in a generated loop): their own_suit is their suit.
    real_cards: frozenset = frozenset()
    # Read each of STATE_ITERABLES through its `_v_` local (lazy_iterable).
    iterable_locals: bool = False


class Origin(NamedTuple):
    """Where a compiled clause comes from; its code's globals hold it as `_ORIGIN`, so that an
    error the clause raises while it runs can name it (failure_of)."""

    what: str  # 'rule ID', 'invariant ID', 'definition NAME', or '' (the YAML path says it)
    text: str
    file: str
    path: str


# Clause text -> its parsed tree, shared by every compiler in the process: the rulesets of many
# presets parse the same texts. Nothing changes a tree once parsed (tools that rewrite one, such as
# diagnose and verify, rewrite a copy).
_PARSED: dict[str, ast.Expression] = {}
MAX_PARSED = 4096


class Compiler:
    """Checks and compiles clause text against an Env; caches definitions. `what` names the
    clause in errors raised while it runs ('rule attack.opener')."""

    def __init__(self, env: Env, file: str = "", path: str = "", what: str = ""):
        self.env = env
        self.file = file
        self.path = path
        self.what = what
        self._def_cache: dict[str, Emitted] = {}
        self._def_stack: list[str] = []
        self._depth = 0

    def error(self, message: str) -> SpecError:
        return SpecError(message, self.file, self.path)

    # -- entry points ---------------------------------------------------------------------
    def parse(self, text: str) -> ast.Expression:
        if not isinstance(text, str):
            raise self.error(f"a clause must be a string, not {type(text).__name__}")
        if len(text) > MAX_CLAUSE_CHARS:
            raise self.error(f"clause is {len(text)} characters; the limit is {MAX_CLAUSE_CHARS}")
        tree = _PARSED.get(text)
        if tree is None:
            try:
                tree = ast.parse(text.strip(), mode="eval")
            except SyntaxError as exc:
                raise self.error(f"clause {text!r} is not a valid expression: {exc.msg}") from None
            if len(_PARSED) >= MAX_PARSED:
                _PARSED.clear()
            _PARSED[text] = tree
        return tree

    def compile(self, text: str, want: str | None = None, params: tuple[str, ...] = ()) -> Clause:
        tree = self.parse(text)
        em = self.emit(tree.body)
        if want is not None:
            em = self.coerce(em, want.rstrip("?"))
            if not self.assignable(em.type, want):
                raise self.error(f"clause {text!r} has type {em.type}; a {want} is needed here")
        return Clause(text, tree, em.type, em.src, em.names, const=em.const, value=em.value,
                      file=self.file, path=self.path, params=tuple(params), what=self.what)

    def conjuncts(self, text: str) -> list[tuple[ast.AST, Emitted]]:
        """Check a bool clause and return its top-level 'and' operands, each emitted alone."""
        body = self.parse(text).body
        whole = self.emit(body)
        if whole.type != BOOL:
            raise self.error(f"clause {text!r} has type {whole.type}; a bool is needed here")
        parts = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) else [body]
        return [(node, self.emit(node)) for node in parts]

    @staticmethod
    def assignable(have: str, want: str) -> bool:
        if have == want or have == NONE and want.endswith("?"):
            return True
        return want.endswith("?") and have == want[:-1]

    # -- literals ---------------------------------------------------------------------------
    def literal_values(self, t: str) -> list:
        """The string literals a value of type `t` may be compared with."""
        lit = self.env.literals
        if t == KIND:
            return list(self.env.kinds)
        if lit is None:
            return []
        return {RANK: list(lit.ranks), SUIT: list(lit.all_suits or lit.suits),
                COLOUR: list(lit.colours)}.get(t, [])

    def coerce(self, em: Emitted, t: str) -> Emitted:
        """A string literal read as a value of type `t` (a rank symbol becomes its strength index in
        the deck); an unknown literal is an error naming the values it may be. Anything else is
        returned as it is."""
        if not (em.const and em.type == STR and isinstance(em.value, str)) or t not in LITERAL_TYPES:
            return em
        allowed = self.literal_values(t)
        if t == KIND and not allowed:
            return Emitted(KIND, em.src, True, em.value, em.names)
        if em.value not in allowed:
            raise self.error(f"{em.value!r} is not a {t}: a {t} is one of "
                             f"{', '.join(map(str, allowed))}.{suggest(em.value, allowed)}")
        if t == RANK:
            index = self.env.literals.ranks[em.value]
            return Emitted(RANK, repr(index), True, index, em.names)
        return Emitted(t, em.src, True, em.value, em.names)

    def check_option_literal(self, a: Emitted, b: Emitted) -> None:
        """An option compared with a literal: the literal must be one of the option's values."""
        for opt_side, other in ((a, b), (b, a)):
            if opt_side.option is None or not other.const or other.option is not None:
                continue
            values = self.env.option_values.get(opt_side.option)
            if values is None:
                continue
            if not any(other.value == v and type(other.value) is type(v) for v in values):
                shown = ", ".join("None" if v is None else repr(v) for v in values)
                words = [v for v in values if isinstance(v, str)]
                hint = suggest(other.value, words) if isinstance(other.value, str) else ""
                raise self.error(f"option {opt_side.option} is never {other.value!r}: its values "
                                 f"are {shown}.{hint}")

    # -- the checker/emitter --------------------------------------------------------------
    def emit(self, node: ast.AST) -> Emitted:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise self.error("clause is nested too deeply")
        try:
            handler = self.HANDLERS.get(type(node))
            if handler is None:
                raise self.error(
                    f"{type(node).__name__} is not allowed in clauses (allowed: names, opt.NAME, "
                    "literals, and/or/not, comparisons, + - * // % **, if-else, calls of vocabulary "
                    "functions and definitions, and all/any/sum/min/max/count/argmin/argmax over "
                    f"{', '.join(ITERABLES)})")
            return handler(self, node)
        finally:
            self._depth -= 1

    def _constant(self, node: ast.Constant) -> Emitted:
        if node.value is None or isinstance(node.value, (bool, int, str)):
            return const(node.value)
        raise self.error(f"literal {node.value!r} is not allowed; use ints, strings, True/False/None")

    def _name(self, node: ast.Name) -> Emitted:
        n = node.id
        if n in ("True", "False", "None"):
            return const({"True": True, "False": False, "None": None}[n])
        if n in self.env.locals:
            entry = self.env.locals[n]
            if isinstance(entry, Emitted):
                return entry
            if entry.code == "True":
                return Emitted(BOOL, "True", True, True, frozenset({n}))
            return Emitted(entry.type, entry.code, names=frozenset({n}))
        lit = self.env.literals
        if lit is not None and n in lit.constants:
            t, value = lit.constants[n]
            return Emitted(t, repr(value), True, value, frozenset({n}))
        if n in self.env.definitions:
            if self.env.definitions[n].params:
                raise self.error(f"definition {n!r} takes parameters "
                                 f"({', '.join(p for p, _ in self.env.definitions[n].params)}); call it")
            return self._definition(n)
        entry = self.env.vocab.get(n)
        if entry is None:
            known = list(self.env.vocab) + list(self.env.locals) + list(self.env.definitions)
            raise self.error(f"unknown name {n!r} in clause.{suggest(n, known)}")
        if entry.args is not None:
            raise self.error(f"{n!r} is a function of ({', '.join(entry.args)}); call it")
        return Emitted(entry.type, f"({entry.code})", names=frozenset({n}))

    def _definition(self, n: str, bound: dict | None = None) -> Emitted:
        """Emit definition `n` in place: alone with its parameters `bound` (name -> Emitted), or
        (without parameters) seeing the names of the clause that uses it."""
        scope = self.env.locals if bound is None else bound
        key = (n, tuple(sorted((k, v.src if isinstance(v, Emitted) else v.code)
                               for k, v in scope.items())))
        if key in self._def_cache:
            return self._def_cache[key]
        if n in self._def_stack:
            raise self.error(f"definition {n!r} refers to itself: {' -> '.join(self._def_stack + [n])}")
        d = self.env.definitions[n]
        self._def_stack.append(n)
        saved = (self.file, self.path, self.env.locals)
        self.file, self.path = d.file, d.path
        if bound is not None:
            self.env.locals = dict(bound)
        try:
            em = self.emit(self.parse(d.clause).body)
        finally:
            self.file, self.path, self.env.locals = saved
            self._def_stack.pop()
        em = Emitted(em.type, f"({em.src})", em.const, em.value, em.names | {n})
        self._def_cache[key] = em
        return em

    def _attribute(self, node: ast.Attribute) -> Emitted:
        if isinstance(node.value, ast.Name) and node.value.id == "opt":
            name = node.attr
            if name not in self.env.options:
                raise self.error(f"unknown option {name!r}.{suggest(name, self.env.options)}")
            em = const(self.env.options[name])
            em.option = name
            return em
        base = self.emit(node.value)
        if base.type == PAIR:
            if node.attr not in PAIR_ATTRS:
                raise self.error(f"a pair has no attribute {node.attr!r}.{suggest(node.attr, PAIR_ATTRS)}")
            t, tpl = PAIR_ATTRS[node.attr]
            return Emitted(t, tpl.format(base.src), names=base.names)
        if base.type.rstrip("?") != CARD:
            raise self.error(f"attribute .{node.attr} needs a card, but the value is a {base.type}")
        if node.attr not in CARD_ATTRS:
            raise self.error(f"a card has no attribute {node.attr!r}.{suggest(node.attr, CARD_ATTRS)}")
        t, tpl = CARD_ATTRS[node.attr]
        if node.attr == "own_suit" and base.src in self.env.real_cards:
            tpl = CARD_ATTRS["suit"][1]
        if node.attr == "is_joker" and self.env.literals is not None and not self.env.literals.jokers:
            if base.type != CARD:
                raise self.error(".is_joker needs a card, not a card that may be None")
            return Emitted(BOOL, "False", True, False, base.names)
        if base.type == CARD:
            return Emitted(t, tpl.format(base.src), names=base.names)
        if t == BOOL:
            raise self.error(f".{node.attr} needs a card, not a card that may be None")
        return Emitted(t + "?", f"(None if {base.src} is None else {tpl.format(base.src)})",
                       names=base.names)

    def _boolop(self, node: ast.BoolOp) -> Emitted:
        is_and = isinstance(node.op, ast.And)
        parts, names = [], frozenset()
        for v in node.values:
            em = self.emit(v)
            if em.type != BOOL:
                raise self.error(f"'{'and' if is_and else 'or'}' needs bool operands, got {em.type}")
            names |= em.names
            if em.const:
                if em.value is (not is_and):  # False in and / True in or decides it
                    return const(not is_and)
                continue
            parts.append(em.src)
        if not parts:
            return const(is_and)
        if len(parts) == 1:
            return Emitted(BOOL, parts[0], names=names)
        return Emitted(BOOL, "(" + (" and " if is_and else " or ").join(parts) + ")", names=names)

    def _unaryop(self, node: ast.UnaryOp) -> Emitted:
        em = self.emit(node.operand)
        if isinstance(node.op, ast.Not):
            if em.type != BOOL:
                raise self.error(f"'not' needs a bool, got {em.type}")
            return const(not em.value) if em.const else Emitted(BOOL, f"(not {em.src})", names=em.names)
        if isinstance(node.op, ast.USub) and em.type == INT:
            return const(-em.value) if em.const else Emitted(INT, f"(-{em.src})", names=em.names)
        raise self.error(f"unary {type(node.op).__name__} is not allowed on {em.type}")

    def _binop(self, node: ast.BinOp) -> Emitted:
        op = ARITH_OPS.get(type(node.op))
        if op is None:
            raise self.error(f"operator {type(node.op).__name__} is not allowed in clauses")
        a, b = self.emit(node.left), self.emit(node.right)
        for em in (a, b):
            if em.type not in NUMERIC:
                raise self.error(f"arithmetic '{op}' needs numbers, got {em.type}")
        if op == "**":
            if not (a.const and 2 <= a.value <= MAX_POW_BASE):
                raise self.error(f"'**' needs a constant base from 2 to {MAX_POW_BASE}")
            if a.const and b.const:
                return const(_pow(a.value, b.value))
            return Emitted(INT, f"_pow({a.src}, {b.src})", names=a.names | b.names)
        if a.const and b.const:
            if op in ("//", "%") and b.value == 0:
                raise self.error("division by zero in clause")
            return const(FOLD[op](a.value, b.value))  # two folded int literals
        return Emitted(INT, f"({a.src} {op} {b.src})", names=a.names | b.names)

    def _compare(self, node: ast.Compare) -> Emitted:
        parts, names = [], frozenset()
        left = self.emit(node.left)
        all_const = True
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.emit(right_node)
            op = CMP_OPS[type(op_node)]
            left, right = self.coerce(left, right.type.rstrip("?")), self.coerce(right, left.type.rstrip("?"))
            self._check_compare(left, op, right)
            names |= left.names | right.names
            if left.const and right.const:
                if not FOLD[op](left.value, right.value):
                    return const(False)
            elif op in ("==", "!=") and left.src == right.src:  # a value is itself (no side effects)
                if op == "!=":
                    return const(False)
            else:
                all_const = False
                parts.append(f"{left.src} {op} {right.src}")
            left = right
        if all_const:
            return const(True)
        return Emitted(BOOL, "(" + " and ".join(f"({p})" for p in parts) + ")", names=names)

    def _check_compare(self, a: Emitted, op: str, b: Emitted) -> None:
        if op in ("is", "is not"):
            if b.type != NONE and a.type != NONE:
                raise self.error(f"'{op}' is only for comparing with None")
            return
        if op in ("in", "not in"):
            if b.type != RANKSET or a.type != RANK:
                raise self.error(f"'{op}' needs a rank and a set of ranks, got {a.type} and {b.type}")
            return
        self.check_option_literal(a, b)
        ta, tb = a.type.rstrip("?"), b.type.rstrip("?")
        if op in ("==", "!="):
            compatible = ta == tb or NONE in (ta, tb) or {ta, tb} <= {INT, SEAT}
            if not compatible:
                raise self.error(f"can't compare {a.type} with {b.type} using '{op}'")
            return
        if ta not in ORDERED or tb not in ORDERED or (ta != tb and {ta, tb} != {INT, SEAT}):
            raise self.error(f"'{op}' needs two numbers of one kind, got {a.type} and {b.type}")

    def _ifexp(self, node: ast.IfExp) -> Emitted:
        test = self.emit(node.test)
        if test.type != BOOL:
            raise self.error(f"the condition of if-else must be bool, got {test.type}")
        body, orelse = self.emit(node.body), self.emit(node.orelse)
        body, orelse = self.coerce(body, orelse.type.rstrip("?")), self.coerce(orelse, body.type.rstrip("?"))
        t = self._join(body.type, orelse.type)
        if test.const or body.src == orelse.src:  # (no side effects: a test of no consequence)
            chosen = body if test.const and test.value else orelse
            return Emitted(t, chosen.src, chosen.const, chosen.value, chosen.names, chosen.option)
        return Emitted(t, f"({body.src} if {test.src} else {orelse.src})",
                       names=test.names | body.names | orelse.names)

    def _join(self, a: str, b: str) -> str:
        joined = join_types(a, b)
        if joined is None:
            raise self.error(f"the branches of if-else have different types: {a} and {b}")
        return joined

    def _call(self, node: ast.Call) -> Emitted:
        if node.keywords or not isinstance(node.func, ast.Name):
            raise self.error("only plain calls of vocabulary functions are allowed")
        fname = node.func.id
        if fname in AGGREGATES:
            return self._aggregate(fname, node)
        d = self.env.definitions.get(fname)
        if d is not None and d.params:
            if len(node.args) != len(d.params):
                raise self.error(f"{fname}() takes {len(d.params)} argument(s), got {len(node.args)}")
            bound = {}
            for (pname, want), arg_node in zip(d.params, node.args):
                em = self.coerce(self.emit(arg_node), want.rstrip("?"))
                if not (self.assignable(em.type, want) or {em.type, want} <= {INT, SEAT}):
                    raise self.error(f"{fname}() needs a {want} for {pname}, got {em.type}")
                bound[pname] = Emitted(want, em.src, em.const, em.value, em.names, em.option)
            return self._definition(fname, bound)
        entry = self.env.vocab.get(fname)
        if entry is None or entry.args is None:
            funcs = [k for k, v in self.env.vocab.items() if v.args is not None] + list(AGGREGATES)
            funcs += [k for k, v in self.env.definitions.items() if v.params]
            raise self.error(f"unknown function {fname!r}.{suggest(fname, funcs)}")
        if len(node.args) != len(entry.args):
            raise self.error(f"{fname}() takes {len(entry.args)} argument(s), got {len(node.args)}")
        args, names = [], frozenset({fname})
        for want, arg_node in zip(entry.args, node.args):
            em = self.coerce(self.emit(arg_node), want)
            if not (em.type == want or {em.type, want} <= {INT, SEAT}):
                raise self.error(f"{fname}() needs a {want} argument, got {em.type}")
            args.append(em.src)
            names |= em.names
        return Emitted(entry.type, "(" + entry.code.format(*args) + ")", names=names)

    def _iterable(self, fname: str, it: ast.AST) -> tuple[str, str, frozenset]:
        """(element type, Python source, names) of what an aggregate iterates."""
        if isinstance(it, ast.Name) and it.id == "seats":
            return SEAT, self.env.seat_range, frozenset()
        if isinstance(it, ast.Name) and it.id == "suits" and self.env.literals is not None:
            return SUIT, repr(tuple(self.env.literals.suits)), frozenset()
        if isinstance(it, ast.Name) and it.id in STATE_ITERABLES:
            kind, src = STATE_ITERABLES[it.id]
            return kind, lazy_iterable(it.id) if self.env.iterable_locals else src, frozenset({it.id})
        if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "cards"
                and len(it.args) == 1 and not it.keywords):
            seat = self.emit(it.args[0])
            if seat.type not in (SEAT, INT):
                raise self.error(f"cards() needs a seat, got {seat.type}")
            return CARD, f"s.hands[{seat.src}]", seat.names | {"cards"}
        raise self.error(f"{fname}() must iterate one of: {', '.join(ITERABLES)}")

    def _aggregate(self, fname: str, node: ast.Call) -> Emitted:
        if len(node.args) != 1 or not isinstance(node.args[0], ast.GeneratorExp):
            raise self.error(f"{fname}() takes one generator: {fname}(EXPR for x in seats if COND)")
        gen = node.args[0]
        if len(gen.generators) != 1:
            raise self.error(f"{fname}() takes exactly one 'for' clause")
        comp = gen.generators[0]
        if not isinstance(comp.target, ast.Name) or comp.is_async:
            raise self.error(f"{fname}() must iterate 'for NAME in {ITERABLES[0]}'")
        var = comp.target.id
        if var in self.env.vocab or var in self.env.locals or var in self.env.definitions:
            raise self.error(f"loop variable {var!r} hides a name; pick another")
        vtype, iter_src, iter_names = self._iterable(fname, comp.iter)
        if fname in ("argmin", "argmax") and vtype != SEAT:
            raise self.error(f"{fname}() picks a seat: iterate 'for NAME in seats'")
        pyvar = f"_{var}{self._depth}"
        self.env.locals[var] = Name(vtype, pyvar)
        try:
            elt = self.emit(gen.elt)
            conds = [self.emit(c) for c in comp.ifs]
        finally:
            del self.env.locals[var]
        for c in conds:
            if c.type != BOOL:
                raise self.error(f"the 'if' of {fname}() must be bool, got {c.type}")
        names = (elt.names.union(*(c.names for c in conds)) - {var}) | iter_names
        cond_src = "".join(f" if {c.src}" for c in conds)
        loop = f"for {pyvar} in {iter_src}{cond_src}"
        if fname in ("all", "any"):
            if elt.type != BOOL:
                raise self.error(f"{fname}() needs a bool expression, got {elt.type}")
            return Emitted(BOOL, f"{fname}({elt.src} {loop})", names=names)
        if fname == "count":
            if elt.type != BOOL:
                raise self.error(f"count() needs a bool expression, got {elt.type}")
            return Emitted(INT, f"sum(1 {loop} if {elt.src})", names=names)
        if elt.type.rstrip("?") not in NUMERIC:
            raise self.error(f"{fname}() needs numbers, got {elt.type}")
        if fname == "sum":
            return Emitted(INT, f"sum({elt.src} {loop})", names=names)
        if fname in ("min", "max"):
            return Emitted(elt.type.rstrip("?") + "?", f"{fname}(({elt.src} {loop}), default=None)",
                           names=names)
        pick = "min" if fname == "argmin" else "max"
        return Emitted(SEAT + "?", f"_arg{pick}((({elt.src}), {pyvar}) {loop})", names=names)

    HANDLERS = {
        ast.Constant: _constant, ast.Name: _name, ast.Attribute: _attribute, ast.BoolOp: _boolop,
        ast.UnaryOp: _unaryop, ast.BinOp: _binop, ast.Compare: _compare, ast.IfExp: _ifexp,
        ast.Call: _call,
    }


def _pow(base, exponent):
    """base ** exponent with the exponent clamped to 0..MAX_POW, so the result stays an int of
    bounded size whatever the state."""
    if exponent < 0:
        exponent = 0
    elif exponent > MAX_POW:
        exponent = MAX_POW
    return base ** exponent


# (key, seat) pairs: the seat of the least (greatest) key that is not None, the lowest seat on a
# tie; None when every key is None. Plain loops, as these run inside decisions every bout.
def _argmin(pairs):
    best = seat = None
    for k, s in pairs:
        if k is not None and (best is None or k < best or k == best and s < seat):
            best, seat = k, s
    return seat


def _argmax(pairs):
    best = seat = None
    for k, s in pairs:
        if k is not None and (best is None or k > best or k == best and s < seat):
            best, seat = k, s
    return seat


# The only globals generated code sees.
RUNTIME = {"__builtins__": {}, "all": all, "any": any, "sum": sum, "min": min, "max": max,
           "range": range, "len": len, "_argmin": _argmin, "_argmax": _argmax, "_pow": _pow}


# Where the clauses' code calls out: frames of these modules' functions are passed over when an
# error is traced back to the clause that raised it.
_CALLED = {_pow.__code__, _argmin.__code__, _argmax.__code__}


def failure_of(exc: BaseException) -> ClauseError | None:
    """The ClauseError for `exc` when a clause raised it while it ran, else None.

    The innermost frame of its traceback tells (past the helpers clauses call): a compiled
    clause's globals hold its Origin (`_ORIGIN`); a generated program's (ruleset.py) hold
    `_PROGRAM`, which finds the clause that fails in the state the frame was given. An error
    raised anywhere else (a primitive, the interpreter) is not a clause's."""
    if isinstance(exc, ClauseError):
        return exc
    if not isinstance(exc, Exception):
        return None
    frames, tb = [], exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for at in range(len(frames) - 1, -1, -1):
        frame = frames[at]
        if frame.f_code in _CALLED:
            continue
        ns = frame.f_globals
        state = _state_of(frames[:at + 1], ns)
        origin = ns.get("_ORIGIN")
        if origin is None and ns.get("_PROGRAM") is not None and state is not None:
            origin = ns["_PROGRAM"](state, exc)
        if not isinstance(origin, Origin):
            return None
        return ClauseError(origin.what or origin.path, origin.text, origin.file, origin.path,
                           getattr(state, "steps", None), f"{type(exc).__name__}: {exc}")
    return None


def _state_of(frames: list, ns: dict):
    """The state `s` the innermost of `frames` run in `ns` read (a generator inside a clause
    sees it as a free name, or not at all)."""
    for frame in reversed(frames):
        if frame.f_globals is not ns:
            break
        s = frame.f_locals.get("s")
        if s is not None:
            return s
    return None
