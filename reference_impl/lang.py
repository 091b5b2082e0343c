"""The clause language: a small, typed, side-effect-free expression language for spec/ clauses.

Syntax is a whitelisted subset of Python expressions, parsed with `ast`. Each clause is type
checked against a vocabulary (names the interpreter provides), option references (`opt.NAME`) are
replaced by the ruleset's constant values and folded, and the result is emitted as Python source
built from the checked tree only, then compiled once. Spec text itself never reaches eval/exec.

The same checked tree is what the z3 backend translates (see `Clause.tree`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import SpecError, suggest

# Types are short strings; "T?" is "T or None".
INT, BOOL, STR, SEAT, CARD, RANK, SUIT, RANKSET, NONE = (
    "int", "bool", "str", "seat", "card", "rank", "suit", "set[rank]", "none",
)
NUMERIC = {INT, SEAT, RANK}
# Values of these types may be compared with each other with < <= > >=.
ORDERED = {INT: INT, SEAT: SEAT, RANK: RANK}
CARD_ATTRS = {"rank": (RANK, "{0}.rank"), "suit": (SUIT, "{0}.suit"),
              "is_trump": (BOOL, "({0}.suit == s.trump_suit)")}
AGGREGATES = {"all": BOOL, "any": BOOL, "sum": INT, "min": None, "max": None, "argmin": SEAT,
              "argmax": SEAT, "count": INT}
CMP_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
           ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
ARITH_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
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
    """Python source for a checked sub-expression, or a folded constant."""

    type: str
    src: str
    const: bool = False
    value: Any = None
    names: frozenset = frozenset()


def const(value) -> Emitted:
    t = BOOL if isinstance(value, bool) else INT if isinstance(value, int) else \
        NONE if value is None else STR
    return Emitted(t, repr(value), True, value)


@dataclass
class Clause:
    """A compiled clause: its text, checked tree, type, free names and Python callable."""

    text: str
    tree: ast.AST
    type: str
    src: str
    names: frozenset
    fn: Callable | None = None
    const: bool = False
    value: Any = None
    file: str = ""
    path: str = ""


@dataclass
class Env:
    """What a clause may refer to: vocabulary, local names, options and definitions."""

    vocab: dict[str, Name]
    options: dict[str, Any]
    definitions: dict[str, Any] = field(default_factory=dict)  # name -> (text, file, path)
    locals: dict[str, Name] = field(default_factory=dict)
    seat_range: str = "range(s.n)"


class Compiler:
    """Checks and compiles clause text against an Env; caches definitions."""

    def __init__(self, env: Env, file: str = "", path: str = ""):
        self.env = env
        self.file = file
        self.path = path
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
        try:
            return ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise self.error(f"clause {text!r} is not a valid expression: {exc.msg}") from None

    def compile(self, text: str, want: str | None = None, params: tuple[str, ...] = ()) -> Clause:
        tree = self.parse(text)
        em = self.emit(tree.body)
        if want is not None and not self.assignable(em.type, want):
            raise self.error(f"clause {text!r} has type {em.type}; a {want} is needed here")
        clause = Clause(text, tree, em.type, em.src, em.names, const=em.const, value=em.value,
                        file=self.file, path=self.path)
        args = ", ".join(("s",) + params)
        code = compile(f"lambda {args}: {em.src}", f"<{self.file}:{self.path}>", "eval")
        clause.fn = eval(code, dict(RUNTIME))  # our generated source, built from the checked tree
        return clause

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
                    "literals, and/or/not, comparisons, + - * // %, if-else, calls of vocabulary "
                    "functions and all/any/sum/min/max/count/argmin/argmax over seats)")
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
            if entry.code == "True":
                return Emitted(BOOL, "True", True, True, frozenset({n}))
            return Emitted(entry.type, entry.code, names=frozenset({n}))
        if n in self.env.definitions:
            return self._definition(n)
        entry = self.env.vocab.get(n)
        if entry is None:
            known = list(self.env.vocab) + list(self.env.locals) + list(self.env.definitions)
            raise self.error(f"unknown name {n!r} in clause.{suggest(n, known)}")
        if entry.args is not None:
            raise self.error(f"{n!r} is a function of ({', '.join(entry.args)}); call it")
        return Emitted(entry.type, f"({entry.code})", names=frozenset({n}))

    def _definition(self, n: str) -> Emitted:
        if n in self._def_cache:
            return self._def_cache[n]
        if n in self._def_stack:
            raise self.error(f"definition {n!r} refers to itself: {' -> '.join(self._def_stack + [n])}")
        text, file, path = self.env.definitions[n]
        self._def_stack.append(n)
        saved = (self.file, self.path)
        self.file, self.path = file, path
        try:
            em = self.emit(self.parse(text).body)
        finally:
            self.file, self.path = saved
            self._def_stack.pop()
        em = Emitted(em.type, f"({em.src})", em.const, em.value, em.names | {n})
        self._def_cache[n] = em
        return em

    def _attribute(self, node: ast.Attribute) -> Emitted:
        if isinstance(node.value, ast.Name) and node.value.id == "opt":
            name = node.attr
            if name not in self.env.options:
                raise self.error(f"unknown option {name!r}.{suggest(name, self.env.options)}")
            return const(self.env.options[name])
        base = self.emit(node.value)
        if base.type != CARD:
            raise self.error(f"attribute .{node.attr} needs a card, but the value is a {base.type}")
        if node.attr not in CARD_ATTRS:
            raise self.error(f"a card has no attribute {node.attr!r}.{suggest(node.attr, CARD_ATTRS)}")
        t, tpl = CARD_ATTRS[node.attr]
        return Emitted(t, tpl.format(base.src), names=base.names)

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
        if a.const and b.const:
            if op in ("//", "%") and b.value == 0:
                raise self.error("division by zero in clause")
            return const(eval(f"{a.value!r} {op} {b.value!r}", {}))  # two folded int literals
        return Emitted(INT, f"({a.src} {op} {b.src})", names=a.names | b.names)

    def _compare(self, node: ast.Compare) -> Emitted:
        parts, names = [], frozenset()
        left = self.emit(node.left)
        all_const = True
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.emit(right_node)
            op = CMP_OPS[type(op_node)]
            self._check_compare(left, op, right)
            names |= left.names | right.names
            if left.const and right.const:
                if not eval(f"_a {op} _b", {"_a": left.value, "_b": right.value}):
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
        ta, tb = a.type.rstrip("?"), b.type.rstrip("?")
        if op in ("==", "!="):
            compatible = ta == tb or {ta, tb} <= {STR, SUIT} or NONE in (ta, tb) or {ta, tb} <= {INT, SEAT}
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
        t = self._join(body.type, orelse.type)
        if test.const:
            chosen = body if test.value else orelse
            return Emitted(t, chosen.src, chosen.const, chosen.value, chosen.names)
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
        entry = self.env.vocab.get(fname)
        if entry is None or entry.args is None:
            funcs = [k for k, v in self.env.vocab.items() if v.args is not None] + list(AGGREGATES)
            raise self.error(f"unknown function {fname!r}.{suggest(fname, funcs)}")
        if len(node.args) != len(entry.args):
            raise self.error(f"{fname}() takes {len(entry.args)} argument(s), got {len(node.args)}")
        args, names = [], frozenset({fname})
        for want, arg_node in zip(entry.args, node.args):
            em = self.emit(arg_node)
            if not (em.type == want or {em.type, want} <= {INT, SEAT}):
                raise self.error(f"{fname}() needs a {want} argument, got {em.type}")
            args.append(em.src)
            names |= em.names
        return Emitted(entry.type, "(" + entry.code.format(*args) + ")", names=names)

    def _aggregate(self, fname: str, node: ast.Call) -> Emitted:
        if len(node.args) != 1 or not isinstance(node.args[0], ast.GeneratorExp):
            raise self.error(f"{fname}() takes one generator: {fname}(EXPR for x in seats if COND)")
        gen = node.args[0]
        if len(gen.generators) != 1:
            raise self.error(f"{fname}() takes exactly one 'for' clause")
        comp = gen.generators[0]
        if not isinstance(comp.target, ast.Name) or not (
                isinstance(comp.iter, ast.Name) and comp.iter.id == "seats") or comp.is_async:
            raise self.error(f"{fname}() must iterate 'for NAME in seats'")
        var = comp.target.id
        if var in self.env.vocab or var in self.env.locals:
            raise self.error(f"loop variable {var!r} hides a name; pick another")
        pyvar = f"_{var}{self._depth}"
        self.env.locals[var] = Name(SEAT, pyvar)
        try:
            elt = self.emit(gen.elt)
            conds = [self.emit(c) for c in comp.ifs]
        finally:
            del self.env.locals[var]
        for c in conds:
            if c.type != BOOL:
                raise self.error(f"the 'if' of {fname}() must be bool, got {c.type}")
        names = elt.names.union(*(c.names for c in conds)) - {var}
        cond_src = "".join(f" if {c.src}" for c in conds)
        loop = f"for {pyvar} in {self.env.seat_range}{cond_src}"
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


def _argmin(pairs):
    best = min(((k, s) for k, s in pairs if k is not None), default=None)
    return None if best is None else best[1]


def _argmax(pairs):
    best = max(((k, -s) for k, s in pairs if k is not None), default=None)
    return None if best is None else -best[1]


# The only globals generated code sees.
RUNTIME = {"__builtins__": {}, "all": all, "any": any, "sum": sum, "min": min, "max": max,
           "range": range, "len": len, "_argmin": _argmin, "_argmax": _argmax}
