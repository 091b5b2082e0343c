"""Inlining for the generated program (ruleset.py `_fuse`): the body of a primitive of
primitives.py, written out in place of its call, with each decision it asks for written out as
its compiled clause.

A primitive is read from its own source, so primitives.py stays the one home of what each state
change does (and what tests/tools/test_primitives_agree.py checks against z3). In the body: its
keyword arguments from spec/flow.yaml become constants and the tests on them are folded; its own
names get a prefix, so that two bodies in one function never share a local; the action `a` is
what the caller names; every `g.decide_seat["NAME"](s, X)` becomes the clause that decides NAME
with `seat` bound to X. A body that returns early, or asks for a decision otherwise, is not
inlined (the caller calls the primitive instead).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import os
import textwrap
from functools import lru_cache
from pathlib import Path

from .codecache import cached

PARAMS = ("g", "s", "a")


class NotInlinable(Exception):
    """A primitive whose body cannot be written out in place of its call."""


@lru_cache(maxsize=None)
def _body(fn) -> tuple[ast.FunctionDef, frozenset]:
    """The function's definition, and the names it binds (its locals; a primitive's g, s and a
    stay as the caller names them)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):  # no source to read (a build without .py files)
        raise NotInlinable(f"no source for {getattr(fn, '__name__', fn)!r}") from None
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef):
        raise NotInlinable(f"{fn.__name__} is not a plain function")
    for node in ast.walk(func):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)):
            raise NotInlinable(f"{fn.__name__} returns early or is not a plain body")
    bound = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {n.arg for n in ast.walk(func) if isinstance(n, ast.arg)}
    return func, frozenset(bound)


@lru_cache(maxsize=None)
def decisions_asked(fn) -> frozenset:
    """The names of the decisions primitive `fn` (and the helpers it calls) asks for."""
    return _kept(fn, "decisions", (), lambda: _decisions_asked(fn))


def _decisions_asked(fn) -> frozenset:
    func, _ = _body(fn)
    names = {_decision_name(n) for n in ast.walk(func) if isinstance(n, ast.Subscript)}
    for helper in module_helpers(fn).values():
        if inspect.isfunction(helper) and helper.__module__ == fn.__module__:
            try:
                names |= decisions_asked(helper)
            except NotInlinable:
                pass
    return frozenset(names - {None})


@lru_cache(maxsize=4096)
def inline_source(fn, keywords: tuple, prefix: str, action: str, asked: tuple,
                  program: tuple = ()) -> tuple[str, ...]:
    """inline_lines, unindented, shared by every spec loaded in this process: `keywords`,
    `asked` (the decisions of `decisions_asked(fn)` with their clauses' source) and `program`
    as sorted pairs."""
    return _kept(fn, "lines", (keywords, prefix, action, asked, program),
                 lambda: tuple(inline_lines(fn, dict(keywords), prefix, action, dict(asked),
                                            program=dict(program))))


def inline_lines(fn, keywords: dict, prefix: str, action: str, decisions: dict[str, str],
                 indent: int = 0, program: dict | None = None) -> list[str]:
    """The body of primitive `fn` as source lines indented by `indent`, ready to stand in place of
    `fn(g, s, <action>, **keywords)`; `decisions` maps a decision's name to its clause's source
    over `s` and `seat` (those of `decisions_asked(fn)` are read); `program` maps an attribute
    of the ruleset the body reads (`g.ruleset.NAME`) to the name the generated program gives
    it. Raises NotInlinable."""
    func, bound = _body(fn)
    rewrite = _Rewrite(fn, keywords, prefix, bound - set(PARAMS), action, decisions,
                       program=program)
    body = rewrite.body(func)
    if not body:
        body = [ast.Pass()]
    module = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(module)
    return [" " * indent + line for line in ast.unparse(module).splitlines()]


def module_helpers(fn) -> dict:
    """The module-level names and builtins a primitive's body, and those of the helpers it
    calls, refer to, by name."""
    names = _kept(fn, "helpers", (), lambda: tuple(_module_helpers(fn)))
    return {n: fn.__globals__[n] if n in fn.__globals__ else getattr(builtins, n) for n in names}


def _module_helpers(fn, found=None) -> dict:
    found = {} if found is None else found
    func, bound = _body(fn)
    for n in {n.id for n in ast.walk(func) if isinstance(n, ast.Name)} - bound:
        if n in found:
            continue
        if n in fn.__globals__:
            found[n] = value = fn.__globals__[n]
            if inspect.isfunction(value) and value.__module__ == fn.__module__:
                try:
                    _module_helpers(value, found)
                except NotInlinable:
                    pass
        elif hasattr(builtins, n):
            found[n] = getattr(builtins, n)
    return found


def _kept(fn, what: str, args: tuple, make):
    """What `make()` derives from primitive `fn`'s source, kept between runs (codecache.py) under
    the sources it reads: `fn`'s module, this module, and which function each of the module's
    names holds (a test may put a wrapper in place of one). A NotInlinable answer is kept too."""
    try:
        where = _fingerprint(fn)
    except (OSError, AttributeError):  # no source file: derived anew each time (and refused)
        return make()

    def answer():
        try:
            return ("lines", make())
        except NotInlinable as exc:
            return ("refused", str(exc))
    tag, value = cached(f"inline\0{where}\0{what}\0{fn.__qualname__}\0{args!r}", answer)
    if tag == "refused":
        raise NotInlinable(value)
    return value


def _fingerprint(fn) -> str:
    """The sources `fn`'s derived lines depend on, by their contents, not where they lie: a
    checkout moved or cloned anew finds what another path of the same tree kept."""
    functions = sorted((name, value.__module__, value.__qualname__, _source(value))
                       for name, value in fn.__globals__.items() if inspect.isfunction(value))
    return "\0".join([_digest(fn.__code__.co_filename), _digest(__file__), repr(functions)])


def _source(fn) -> str:
    """The digest of the file `fn` is written in, or its file's name where it has none."""
    try:
        return _digest(fn.__code__.co_filename)
    except OSError:
        return fn.__code__.co_filename


def _digest(path: str) -> str:
    stat = os.stat(path)
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _DIGESTS:
        _DIGESTS[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return _DIGESTS[key]


_DIGESTS: dict[tuple, str] = {}


def _copy(node):
    return ast.parse(ast.unparse(node)).body[0]


class _Rewrite(ast.NodeTransformer):
    def __init__(self, fn, keywords, prefix, bound, action, decisions, depth=0, names=None,
                 program=None):
        self.fn, self.keywords, self.prefix, self.bound = fn, keywords, prefix, bound
        self.names = names or {}  # parameters that are the caller's names
        self.program = program or {}  # g.ruleset.NAME -> the generated program's own name
        self.action = ast.parse(action, mode="eval").body
        self.decisions, self.depth, self.calls = decisions, depth, 0

    def body(self, func) -> list:
        """The function's statements rewritten, without its docstring."""
        func = self.visit(_copy(func))
        return [st for st in func.body
                if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]

    def visit_Name(self, node):
        if node.id in self.keywords:
            return ast.Constant(self.keywords[node.id])
        if node.id in self.names:
            return ast.Name(self.names[node.id], node.ctx)
        if node.id in self.bound:
            return ast.Name(self.prefix + node.id, node.ctx)
        if node.id == "a":
            return _copy_expr(self.action)
        return node

    def visit_Expr(self, node):
        """A call of a helper of the same module as a statement: its body, its parameters
        bound to the arguments first."""
        call = node.value
        helper = None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and not call.keywords:
            helper = self.fn.__globals__.get(call.func.id)
        if (not inspect.isfunction(helper) or helper.__module__ != self.fn.__module__
                or self.depth > 3):
            return self.generic_visit(node)
        try:
            func, bound = _body(helper)
        except NotInlinable:
            return self.generic_visit(node)
        params = [arg.arg for arg in func.args.args]
        if len(params) != len(call.args) or func.args.kwonlyargs or func.args.vararg:
            return self.generic_visit(node)
        self.calls += 1
        prefix = f"{self.prefix}{call.func.id.strip('_')}{self.calls}_"
        stored = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        names, binds = {}, []
        for p, arg in zip(params, call.args):
            arg = self.visit(arg)
            if isinstance(arg, ast.Name) and p not in stored:  # the caller's name itself
                names[p] = arg.id
            else:
                binds.append(ast.Assign([ast.Name(prefix + p, ast.Store())], arg))
        inner = _Rewrite(helper, {}, prefix, bound, "None", self.decisions, self.depth + 1, names,
                         self.program)
        return binds + inner.body(func)

    def visit_arg(self, node):
        if node.arg in self.bound:
            node.arg = self.prefix + node.arg
        return node

    def visit_Call(self, node):
        name = _decision_name(node.func)
        if name is not None:
            if name not in self.decisions or len(node.args) != 2 or node.keywords:
                raise NotInlinable(f"a decision {name!r} asked for otherwise than (s, seat)")
            seat = self.visit(node.args[1])
            clause = ast.parse(self.decisions[name], mode="eval").body
            return _Bind(seat).visit(clause)
        if _decision_table(node.func):
            raise NotInlinable("a decision looked up otherwise than by name")
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        if _decision_table(node):
            raise NotInlinable("the decisions' table is used otherwise than by a call")
        if (node.attr in self.program and isinstance(node.value, ast.Attribute)
                and node.value.attr == "ruleset" and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "g"):
            return ast.Name(self.program[node.attr], node.ctx)
        return self.generic_visit(node)

    def visit_Compare(self, node):
        node = self.generic_visit(node)
        if (isinstance(node.left, ast.Constant) and len(node.ops) == 1
                and isinstance(node.comparators[0], ast.Constant)
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq))):
            same = node.left.value == node.comparators[0].value
            return ast.Constant(same if isinstance(node.ops[0], ast.Eq) else not same)
        return node

    def visit_If(self, node):
        node = self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return (node.body if node.test.value else node.orelse) or [ast.Pass()]
        return node

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node


class _Bind(ast.NodeTransformer):
    """A decision's clause with its `seat` bound to an expression."""

    def __init__(self, seat):
        self.seat = seat

    def visit_Name(self, node):
        return _copy_expr(self.seat) if node.id == "seat" else node


def _copy_expr(node):
    return ast.parse(ast.unparse(node), mode="eval").body


def _decision_table(node) -> bool:
    """node is `g.decide_seat`."""
    return (isinstance(node, ast.Attribute) and node.attr == "decide_seat"
            and isinstance(node.value, ast.Name) and node.value.id == "g")


def _decision_name(node) -> str | None:
    """NAME when node is `g.decide_seat["NAME"]`."""
    if (isinstance(node, ast.Subscript) and _decision_table(node.value)
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        return node.slice.value
    return None
