"""The generated step and play loop (ruleset.py `Ruleset.step_source`) written for one player
count (`written_for`, four passes over its `ast`): what the ruleset and the count fix folded into
constants (`specialised`); the play loop holding the state fields it reads in locals
(`held_in_locals`); tests short of what an earlier assignment or operand already states
(`with_known_values`); locals that only copy another read as the original (`copies_dropped`).

A game's seat count, its seats' teams and whether that is team play never change once it is dealt
(game.py `_initial_state`, from `Ruleset.seating`), so the program of a player count reads them as
constants: `s.n`, the seats `_SEATS[s.n]`, `s.team` and `s.team_play`. What that folds is folded
(a team of one per seat makes `s.team[x]` the seat `x` itself), each `if` test loses the
comparisons an earlier operand of it settles, and a loop over the few seats is unrolled, each
copy reading its seat as a constant (a team's `(0, 1, 0, 1)[seat]` folds). The
generated program keeps the state in a local named `s`; nothing here knows a rule.
"""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

MAX_UNROLLED = 6  # seats up to which a loop over them is written out seat by seat


def written_for(src: str, n: int, team: tuple, team_play: bool, queries, pure, ints) -> str:
    """The generated step program `src` written for `n` seats (specialised), its play loop
    holding the state in locals (held_in_locals), and the tests of its step and play loop short
    of what they know (with_known_values), their locals that copy others dropped (copies_dropped).

    The passes hand one tree to each other: what a pass changed is written out and read again
    (`_reread`), as handing its source text on does, and the rest, read from text already, is
    left as it is (reading a function written out from what was read gives the same tree)."""
    src = specialised(src, n, team, team_play)
    tree = ast.parse(src)
    held = _held_in_locals(tree, "play", queries, pure)
    if held is None:  # refused, part way through: the tree as it was
        tree = ast.parse(src)
    elif held:
        _reread(tree, "play")
    for function in ("step", "play"):
        _with_known_values(tree, function, ints)
        _reread(tree, function)
        _copies_dropped(tree, function)
        if function != "play":
            _reread(tree, function)
    return _unparse(tree)


def _reread(tree: ast.Module, function: str) -> None:
    """Each function `function` of `tree` written out and read again, as the next pass reads it
    from the source text a pass hands on."""
    for i, func in enumerate(tree.body):
        if isinstance(func, ast.FunctionDef) and func.name == function:
            tree.body[i] = ast.parse(_unparse(func)).body[0]


def specialised(src: str, n: int, team: tuple, team_play: bool, seats_name: str = "_SEATS") -> str:
    """`src` (the generated step program) for `n` seats with teams `team`."""
    tree = ast.parse(src)
    tree = _Fold(n, tuple(team), bool(team_play), seats_name).visit(tree)
    for func in tree.body:
        if isinstance(func, ast.FunctionDef):
            _constant_locals(func)
    tree = _Fold(n, tuple(team), bool(team_play), seats_name).visit(tree)
    tree = _Unroll(_Fold(n, tuple(team), bool(team_play), seats_name)).visit(tree)
    return _unparse(tree)


@lru_cache(maxsize=1)
def pass_fingerprint() -> str:
    """A digest of this module's source, for keeping what its passes write between runs."""
    try:
        return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    except OSError:  # no source file: a value no other run shares
        return repr(object())


def _unparse(node) -> str:
    """ast.unparse(ast.fix_missing_locations(node)), the locations put in without a call per node."""
    todo = [(node, 1, 0, 1, 0)]
    while todo:
        node_, lineno, col, end_lineno, end_col = todo.pop()
        attributes = node_._attributes
        if attributes:
            if "lineno" in attributes:
                if hasattr(node_, "lineno"):
                    lineno = node_.lineno
                else:
                    node_.lineno = lineno
            if "end_lineno" in attributes:
                if getattr(node_, "end_lineno", None) is None:
                    node_.end_lineno = end_lineno
                else:
                    end_lineno = node_.end_lineno
            if "col_offset" in attributes:
                if hasattr(node_, "col_offset"):
                    col = node_.col_offset
                else:
                    node_.col_offset = col
            if "end_col_offset" in attributes:
                if getattr(node_, "end_col_offset", None) is None:
                    node_.end_col_offset = end_col
                else:
                    end_col = node_.end_col_offset
        for name in node_._fields:
            child = getattr(node_, name, None)
            if isinstance(child, ast.AST):
                todo.append((child, lineno, col, end_lineno, end_col))
            elif isinstance(child, list):
                todo += [(x, lineno, col, end_lineno, end_col) for x in child if isinstance(x, ast.AST)]
    return ast.unparse(node)


def _walk(node):
    """ast.walk, in the same order and as lazily (a node's children are listed before it is
    handed out), at a third of its cost: the passes walk the program some thousand times."""
    todo = [node]
    for node in todo:  # a list read while it grows: each node once, breadth first
        for name in node._fields:
            child = getattr(node, name, None)
            if isinstance(child, ast.AST):
                todo.append(child)
            elif isinstance(child, list):
                todo += [x for x in child if isinstance(x, ast.AST)]
        yield node


def _is_state(node, attr: str) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name) and node.value.id == "s")


def _const(value, like):
    return ast.copy_location(ast.Constant(value), like)


def _is_const(node) -> bool:
    return isinstance(node, ast.Constant)


def _tuple_value(node) -> tuple | None:
    """The tuple `node` is, a constant or a tuple of constants (as a constant written out and
    read again is: the seats' teams), or None."""
    if _is_const(node):
        return node.value if isinstance(node.value, tuple) else None
    if isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load) and all(map(_is_const, node.elts)):
        return tuple(e.value for e in node.elts)
    return None


_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
            ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
            ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b}
_NEGATED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
            ast.In: ast.NotIn, ast.NotIn: ast.In}
_ARITH = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}


class _Fold(ast.NodeTransformer):
    """The player count's constants put in, and what they fold."""

    def __init__(self, n: int, team: tuple, team_play: bool, seats_name: str):
        self.n, self.team, self.team_play, self.seats_name = n, team, team_play, seats_name
        self.identity = team == tuple(range(n))

    def visit_Attribute(self, node):
        if _is_state(node, "n"):
            return _const(self.n, node)
        if _is_state(node, "team_play"):
            return _const(self.team_play, node)
        if _is_state(node, "team"):
            return _const(self.team, node)
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        node = self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        if isinstance(node.value, ast.Name) and node.value.id == self.seats_name \
                and _is_const(node.slice) and node.slice.value == self.n:
            return _const(tuple(range(self.n)), node)
        values = _tuple_value(node.value)
        if values is not None:
            if _is_const(node.slice) and isinstance(node.slice.value, int) \
                    and -len(values) <= node.slice.value < len(values):
                return _const(values[node.slice.value], node)
            if values == self.team and self.identity:  # a seat's team is the seat
                return node.slice
        return node

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            inner = node.operand
            if _is_const(inner):
                return _const(not inner.value, node)
            if isinstance(inner, ast.Compare) and len(inner.ops) == 1 and type(inner.ops[0]) in _NEGATED:
                return ast.copy_location(ast.Compare(inner.left, [_NEGATED[type(inner.ops[0])]()],
                                                     inner.comparators), node)
        return node

    def visit_Compare(self, node):
        node = self.generic_visit(node)
        if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE and _is_const(node.left) \
                and _is_const(node.comparators[0]):
            try:
                return _const(_COMPARE[type(node.ops[0])](node.left.value, node.comparators[0].value),
                              node)
            except TypeError:
                return node
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)) \
                and isinstance(node.left, ast.Name) and isinstance(node.comparators[0], ast.Name) \
                and node.left.id == node.comparators[0].id:  # a local (a seat) against itself
            return _const(isinstance(node.ops[0], ast.Eq), node)
        return node

    def visit_BinOp(self, node):
        node = self.generic_visit(node)
        if type(node.op) in _ARITH and _is_const(node.left) and _is_const(node.right) \
                and all(isinstance(x.value, int) and not isinstance(x.value, bool)
                        for x in (node.left, node.right)):
            return _const(_ARITH[type(node.op)](node.left.value, node.right.value), node)
        return node

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        drop = isinstance(node.op, ast.And)  # the constant an `and` passes over
        values = []
        for i, v in enumerate(node.values):
            if _is_const(v) and bool(v.value) is drop and i + 1 < len(node.values):
                continue  # decides nothing (the last operand is the value when all pass)
            values.append(v)
            if _is_const(v) and bool(v.value) is not drop:
                break  # it decides: the rest is never evaluated
        if len(values) == 1:
            return values[0]
        return ast.copy_location(ast.BoolOp(node.op, values), node)

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if _is_const(node.test):
            return node.body if node.test.value else node.orelse
        return node

    def visit_If(self, node):
        node = self.generic_visit(node)
        node.test = _settled(node.test)
        if _is_const(node.test):
            return (node.body if node.test.value else node.orelse) or [ast.Pass()]
        return node


def _settled(test):
    """An `if` test (only its truth counts) with each comparison that an earlier operand of its
    `and` makes true or false folded, and the operands that leave only truth dropped."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _settled(test.operand)
        return _const(not inner.value, test) if _is_const(inner) else \
            ast.copy_location(ast.UnaryOp(ast.Not(), inner), test)
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return test
    true: set = set()
    false: set = set()
    kept = []
    for value in test.values:
        value = _Known(true, false).visit(value)
        if _is_const(value):
            if not value.value:
                return _const(False, test)
            continue
        kept.append(value)
        _facts(value, true, false)
    if not kept:
        return _const(True, test)
    return kept[0] if len(kept) == 1 else ast.copy_location(ast.BoolOp(ast.And(), kept), test)


def _facts(node, true: set, false: set) -> None:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        for value in node.values:
            _facts(value, true, false)
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        true.add(ast.dump(node))
        if type(node.ops[0]) in _NEGATED:
            false.add(ast.dump(ast.Compare(node.left, [_NEGATED[type(node.ops[0])]()],
                                           node.comparators)))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        false.add(ast.dump(node.operand))
    else:
        true.add(ast.dump(node))


_SCOPES = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.Lambda)


class _Known(ast.NodeTransformer):
    """Comparisons (and plain operands) known true or false replaced by their value; truth
    only, so only where an operand's truth is all that is used: in `and`, `or` and `not`."""

    def __init__(self, true: set, false: set):
        self.true, self.false = true, false

    def _known(self, node):
        key = ast.dump(node)
        if key in self.true:
            return _const(True, node)
        if key in self.false:
            return _const(False, node)
        return None

    def visit(self, node):
        known = self._known(node)
        if known is not None:
            return known
        if isinstance(node, ast.BoolOp):
            values = [self.visit(v) for v in node.values]
            return _Fold(0, (), False, "").visit_BoolOp(ast.copy_location(ast.BoolOp(node.op, values), node))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand = self.visit(node.operand)
            if _is_const(operand):
                return _const(not operand.value, node)
            return ast.copy_location(ast.UnaryOp(ast.Not(), operand), node)
        return node


def _constant_locals(func: ast.FunctionDef) -> None:
    """Each local of `func` that every assignment to it sets to one and the same constant (and
    that nothing else binds) read as that constant, its assignments dropped."""
    stores: dict[str, list] = {}
    for node in _walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            stores.setdefault(node.targets[0].id, []).append(node)
    simple = {id(a.targets[0]) for assigns in stores.values() for a in assigns}
    bound_otherwise = {node.id for node in _walk(func) if isinstance(node, ast.Name)
                       and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in simple}
    bound_otherwise |= {node.arg for node in _walk(func) if isinstance(node, ast.arg)}
    constants = {}
    for name, assigns in stores.items():
        if name in bound_otherwise:
            continue
        values = {repr(a.value.value) if _is_const(a.value) else None for a in assigns}
        if len(values) == 1 and None not in values:
            constants[name] = assigns[0].value.value
    if not constants:
        return

    class Put(ast.NodeTransformer):
        def visit_Assign(self, node):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].id in constants:
                return ast.Pass()
            return self.generic_visit(node)

        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Load) and node.id in constants:
                return _const(constants[node.id], node)
            return node
    Put().visit(func)
    for node in _walk(func):  # a body left with passes only keeps one
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and all(isinstance(x, ast.stmt) for x in body):
                kept = [x for x in body if not isinstance(x, ast.Pass)]
                setattr(node, field, kept or ([ast.Pass()] if field == "body" else []))


def _loop_exits(body) -> bool:
    """Whether a `break` or `continue` of the loop whose body is `body` is in it."""
    for stmt in body:
        if isinstance(stmt, (ast.For, ast.While)):  # an inner loop: its head and else only
            stmt = [stmt.iter if isinstance(stmt, ast.For) else stmt.test] + stmt.orelse
            if _loop_exits(stmt[1:]):
                return True
            continue
        for node in _this_loop(stmt):
            if isinstance(node, (ast.Break, ast.Continue)):
                return True
    return False


def _this_loop(node):
    """`node` and what it holds, but inner loops, functions and classes."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef,
                                  ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _this_loop(child)
        elif isinstance(child, (ast.For, ast.While)):  # its head and else belong to this loop
            for part in [child.iter if isinstance(child, ast.For) else child.test] + child.orelse:
                yield from _this_loop(part)


class _Unroll(ast.NodeTransformer):
    """`for x in (0, 1): body` as `x = 0; body; x = 1; body`, for loops over a few seats whose
    body neither breaks nor continues (a leading `if T: continue` becomes `if not T: rest`).
    Where the body binds `x` nowhere, each copy reads the seat as a constant and `fold` folds
    what that settles (a team's `(0, 1, 0, 1)[x]`). Where the body is one `if` whose test has
    operands of its `and` that read neither the seat nor what the body changes (`len(s.talon)
    == 0` of each seat's going out), those are tested once, before the copies (`_invariant`)."""

    def __init__(self, fold: _Fold):
        self.fold = fold
        self.fresh: set = set()

    def visit_FunctionDef(self, node):
        outer, self.fresh = self.fresh, _fresh_lists(node)
        node = self.generic_visit(node)
        self.fresh = outer
        return node

    def visit_For(self, node):
        node = self.generic_visit(node)
        if not (isinstance(node.iter, ast.Constant) and isinstance(node.iter.value, tuple)
                and len(node.iter.value) <= MAX_UNROLLED and isinstance(node.target, ast.Name)
                and not node.orelse):
            return node
        body = node.body
        first = body[0]
        if isinstance(first, ast.If) and not first.orelse and len(first.body) == 1 \
                and isinstance(first.body[0], ast.Continue) and not _loop_exits(body[1:]):
            test = _Fold(0, (), False, "").visit_UnaryOp(ast.UnaryOp(ast.Not(), first.test))
            if isinstance(test, ast.UnaryOp) and isinstance(test.operand, ast.UnaryOp) \
                    and isinstance(test.operand.op, ast.Not):
                test = test.operand.operand  # not not X: the truth of X
            body = [ast.If(test, body[1:] or [ast.Pass()], [])]
        if _loop_exits(body):
            return node
        name = node.target.id
        bound = any(isinstance(x, ast.Name) and x.id == name and not isinstance(x.ctx, ast.Load)
                    or isinstance(x, ast.arg) and x.arg == name for stmt in body for x in ast.walk(stmt))
        hoisted = None
        if not bound and len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse \
                and _changes_only_fresh(body[0].body, self.fresh):
            stored = {x.id for stmt in body[0].body for x in ast.walk(stmt)
                      if isinstance(x, ast.Name) and not isinstance(x.ctx, ast.Load)} | {name}
            operands = _and_operands(body[0].test)
            keep = [v for v in operands if not _invariant(v, stored)]
            if len(keep) < len(operands):  # the operands that read no seat, once before
                hoisted = [v for v in operands if _invariant(v, stored)]
                test = keep[0] if len(keep) == 1 else \
                    ast.BoolOp(ast.And(), keep) if keep else ast.Constant(True)
                body = [ast.If(test, body[0].body, [])]
        out, sets = [], []
        for value in node.iter.value:
            sets.append(ast.Assign([ast.Name(name, ast.Store())], ast.Constant(value)))
            out.append(sets[-1])
            copies = [_copy(stmt) for stmt in body]
            if not bound:
                put = _Put({name: value})
                copies = [self.fold.visit(put.visit(stmt)) for stmt in copies]
                copies = [x for stmt in copies for x in (stmt if isinstance(stmt, list) else [stmt])]
            out += copies
        if not bound and sets and not any(isinstance(x, ast.Name) and x.id == name
                                          and isinstance(x.ctx, ast.Load)
                                          for stmt in out for x in _walk(stmt)):
            # no copy reads the seat: it is set once, to what the loop leaves behind
            out = [sets[-1]] + [x for x in out if not any(x is a for a in sets)]
        if hoisted:  # the seat the loop leaves behind, set as it would be where no copy runs
            test = hoisted[0] if len(hoisted) == 1 else ast.BoolOp(ast.And(), hoisted)
            last = ast.Assign([ast.Name(name, ast.Store())], ast.Constant(node.iter.value[-1]))
            return [ast.If(test, out or [ast.Pass()], [last])]
        return out or [ast.Pass()]


def _copy(stmt):
    return ast.parse(_unparse(stmt)).body[0]


def _and_operands(test) -> list:
    """The operands of `test`'s `and`, those of an `and` among them too, in order."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [x for v in test.values for x in _and_operands(v)]
    return [test]


def _fresh_lists(func) -> set:
    """The locals of `func` that every binding sets to a new empty list (`gone = []`): no alias
    of the state, so that appending to one changes nothing else."""
    fresh, other = set(), set()
    for node in _walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.List) \
                and not node.value.elts:
            fresh.add(node.targets[0].id)
            continue
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        for target in targets:
            other |= {x.id for x in _walk(target) if isinstance(x, ast.Name)}
        if isinstance(node, (ast.NamedExpr, ast.arg)):
            other.add(node.target.id if isinstance(node, ast.NamedExpr) else node.arg)
    return fresh - other


def _changes_only_fresh(body: list, fresh: set) -> bool:
    """Whether `body` changes nothing but locals: it stores no attribute or item and calls
    nothing but `X.append` of a fresh list X."""
    for node in (x for stmt in body for x in _walk(stmt)):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, (ast.Delete, ast.Lambda, ast.FunctionDef, ast.ClassDef) + _SCOPES):
            return False
        if isinstance(node, ast.Call):
            func = node.func
            if not (isinstance(func, ast.Attribute) and func.attr == "append"
                    and isinstance(func.value, ast.Name) and func.value.id in fresh):
                return False
    return True


_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _invariant(node, stored: set) -> bool:
    """Whether `node` (an operand of an `and`) reads none of `stored` and cannot fail or change
    anything: names, constants, state fields (`s.X`), `len` of those, `not`, `and`, `or` and
    comparisons by equality or identity (by order, of lengths and integers only)."""
    for x in _walk(node):
        if isinstance(x, ast.Name):
            if x.id in stored or not isinstance(x.ctx, ast.Load):
                return False
        elif isinstance(x, ast.Attribute):
            if not (isinstance(x.value, ast.Name) and x.value.id == "s" and isinstance(x.ctx, ast.Load)):
                return False
        elif isinstance(x, ast.Call):
            if not (isinstance(x.func, ast.Name) and x.func.id == "len" and len(x.args) == 1
                    and not x.keywords and isinstance(x.args[0], (ast.Name, ast.Attribute))):
                return False
        elif isinstance(x, ast.Compare):
            for op, left, right in zip(x.ops, [x.left] + x.comparators[:-1], x.comparators):
                if isinstance(op, _ORDERING) and not all(
                        isinstance(v, ast.Call) or _is_const(v) and type(v.value) is int
                        for v in (left, right)):
                    return False
                if not isinstance(op, _ORDERING + (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                    return False
        elif isinstance(x, ast.Constant):
            if not isinstance(x.value, (int, str, type(None))):  # bool is an int
                return False
        elif not isinstance(x, (ast.BoolOp, ast.UnaryOp, ast.Load, ast.And, ast.Or, ast.Not,
                                ast.cmpop)):
            return False
        if isinstance(x, ast.UnaryOp) and not isinstance(x.op, ast.Not):
            return False
    return not any(isinstance(x, ast.Name) and x.id == "seat" for x in _walk(node))


def held_in_locals(src: str, function: str = "play", queries=frozenset(), pure=frozenset()) -> str:
    """`src` with the state fields `function` reads (`s.X`) held in locals `_s_X`: read once at
    its start, written through (`s.X = _s_X = v`: the state is whole at every moment, for what
    raises or returns), and read again after a call that may set them: one of the program's own
    functions that sets them, or any other call handed `s` or `g` but the `queries` (methods of
    the state or the game that only read) and the `pure` functions (generated from clauses). The chooser of
    the play loop is handed the legal actions only. Unchanged where the state is used otherwise
    (aliased, or handed to a call in a loop's or a test's head)."""
    tree = ast.parse(src)
    if not _held_in_locals(tree, function, queries, pure):
        return src
    return _unparse(tree)


def _held_in_locals(tree: ast.Module, function: str, queries, pure) -> bool | None:
    """held_in_locals on `tree` in place: whether it changed it (None: refused, the tree changed
    part way)."""
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    func = funcs.get(function)
    if func is None:
        return False
    writes = _Writes(funcs, queries, pure)
    fields = _fields_read(func)
    if fields is None or not fields:
        return False
    try:
        body = _Hold(fields, writes).block(func.body)
    except _Refused:
        return None
    loads = [ast.Assign([ast.Name(f"_s_{x}", ast.Store())],
                        ast.Attribute(ast.Name("s", ast.Load()), x, ast.Load())) for x in sorted(fields)]
    func.body = loads + body
    return True


class _Refused(Exception):
    """The state is used in a way the pass does not follow."""


ALL = None  # what a call that may set any field sets


def _fields_read(func) -> set | None:
    """The fields `s.X` read in `func` (not the methods it calls), None if `s` is used otherwise
    than by its attributes and as a call's argument."""
    fields = set()
    calls = {id(n.func) for n in _walk(func) if isinstance(n, ast.Call)}
    attrs = set()
    for node in _walk(func):
        if isinstance(node, _SCOPES):
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "s":
            attrs.add(id(node.value))
            if isinstance(node.ctx, ast.Load) and id(node) not in calls:
                fields.add(node.attr)
    args = {id(a) for n in _walk(func) if isinstance(n, ast.Call) for a in n.args}
    for node in _walk(func):
        if isinstance(node, ast.Name) and node.id == "s" and id(node) not in attrs:
            if id(node) not in args or not isinstance(node.ctx, ast.Load):
                return None
    return fields


class _Writes:
    """The fields a call may set: ALL, or a set."""

    def __init__(self, funcs: dict, queries, pure):
        self.funcs, self.queries, self.pure = funcs, set(queries), set(pure)
        self.known: dict[str, object] = {}

    def of_call(self, call: ast.Call):
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id in ("s", "g"):  # a method of the state or the game
            return set() if func.attr in self.queries else ALL
        handed = {a.id for a in list(call.args) + [k.value for k in call.keywords]
                  if isinstance(a, ast.Name)}
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return ALL
        if not handed & {"s", "g"}:
            return set()  # handed neither the state nor the game (a field's value is no state)
        if isinstance(func, ast.Name) and func.id in self.pure:
            return set()
        if isinstance(func, ast.Name) and func.id in self.funcs:
            return self.of_function(func.id)
        return ALL

    def of_function(self, name: str):
        if name in self.known:
            found = self.known[name]
            return ALL if found == "busy" else found
        self.known[name] = "busy"
        found: set | None = set()
        for node in _walk(self.funcs[name]):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                    and isinstance(node.value, ast.Name) and node.value.id == "s":
                found.add(node.attr)
            elif isinstance(node, ast.Name) and node.id == "s" and isinstance(node.ctx, ast.Store):
                found = ALL
                break
            elif isinstance(node, ast.Call):
                more = self.of_call(node)
                if more is ALL:
                    found = ALL
                    break
                found |= more
        self.known[name] = found
        return found


def _state_attr(node, fields) -> bool:
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "s" and node.attr in fields)


class _Hold:
    def __init__(self, fields: set, writes: _Writes):
        self.fields, self.writes = fields, writes

    def block(self, body: list) -> list:
        out = []
        for stmt in body:
            out += self.stmt(stmt)
        return out

    def reloads(self, names) -> list:
        return [ast.Assign([ast.Name(f"_s_{x}", ast.Store())],
                           ast.Attribute(ast.Name("s", ast.Load()), x, ast.Load()))
                for x in sorted(names & self.fields)]

    def set_by_calls(self, nodes) -> set:
        found: set = set()
        for part in nodes:
            for node in _walk(part):
                if isinstance(node, ast.Call):
                    more = self.writes.of_call(node)
                    if more is ALL:
                        return set(self.fields)
                    found |= more
        return found

    def stmt(self, stmt) -> list:
        if isinstance(stmt, (ast.If, ast.While)):
            if self.set_by_calls([stmt.test]):
                raise _Refused
            stmt.test = _Reads(self.fields).visit(stmt.test)
            stmt.body, stmt.orelse = self.block(stmt.body), self.block(stmt.orelse)
            return [stmt]
        if isinstance(stmt, ast.For):
            if self.set_by_calls([stmt.iter, stmt.target]) or self._stores(stmt.target):
                raise _Refused
            stmt.iter = _Reads(self.fields).visit(stmt.iter)
            stmt.body, stmt.orelse = self.block(stmt.body), self.block(stmt.orelse)
            return [stmt]
        if isinstance(stmt, ast.Try):
            stmt.body, stmt.orelse = self.block(stmt.body), self.block(stmt.orelse)
            stmt.finalbody = self.block(stmt.finalbody)
            for handler in stmt.handlers:
                handler.body = self.block(handler.body)
            return [stmt]
        if isinstance(stmt, (ast.With, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef,
                             ast.AsyncFor, ast.AsyncWith, ast.Match)):
            raise _Refused
        after = self.set_by_calls([stmt])
        if isinstance(stmt, ast.AugAssign) and _state_attr(stmt.target, self.fields):
            name = stmt.target.attr
            local = ast.Name(f"_s_{name}", ast.Store())
            return [ast.AugAssign(local, stmt.op, _Reads(self.fields).visit(stmt.value)),
                    ast.Assign([ast.Attribute(ast.Name("s", ast.Load()), name, ast.Store())],
                               ast.Name(f"_s_{name}", ast.Load()))] + self.reloads(after)
        if isinstance(stmt, ast.Assign):
            stmt.value = _Reads(self.fields).visit(stmt.value)
            targets = []
            for target in stmt.targets:
                if _state_attr(target, self.fields):
                    targets += [target, ast.Name(f"_s_{target.attr}", ast.Store())]
                else:
                    target = _Reads(self.fields).visit(target)
                    after |= self._stores(target)
                    targets.append(target)
            stmt.targets = targets
            return [stmt] + self.reloads(after)
        after |= {n.attr for n in _walk(stmt) if _state_attr(n, self.fields)
                  and isinstance(n.ctx, (ast.Store, ast.Del))}
        return [_Reads(self.fields).visit(stmt)] + self.reloads(after)

    def _stores(self, target) -> set:
        """The fields a target sets (in a tuple), read again after it."""
        return {n.attr for n in _walk(target) if _state_attr(n, self.fields)
                and isinstance(n.ctx, ast.Store)}


class _Reads(ast.NodeTransformer):
    """Each read of a held field `s.X` made a read of its local (a container's too, where it
    is changed in place: the local is the same object)."""

    def __init__(self, fields):
        self.fields = fields

    def visit_Attribute(self, node):
        if _state_attr(node, self.fields) and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Name(f"_s_{node.attr}", ast.Load()), node)
        return self.generic_visit(node)


def with_known_values(src: str, function: str, ints=frozenset()) -> str:
    """`src` with `function`'s tests short of what is known where they run: a value a plain
    assignment just computed (`n = len(t)`, `v = u`) read from its local in the assignments and
    the `if` test that follow it (until a statement that may change it), and in an `if` test an
    integer local that an earlier operand compared equal to a constant read as that constant,
    and `x + k <= c` as `x <= c - k` (`x + 1 <= y` as `x < y`, `x - y > 0` as `x > y`) for the
    integer locals `ints`."""
    tree = ast.parse(src)
    _with_known_values(tree, function, ints)
    return _unparse(tree)


def _with_known_values(tree: ast.Module, function: str, ints) -> None:
    for func in tree.body:
        if isinstance(func, ast.FunctionDef) and func.name == function:
            _KnownValues(set(ints)).visit(func)


_PURE = (ast.Name, ast.Constant, ast.Load, ast.Compare, ast.BinOp, ast.UnaryOp, ast.BoolOp,
         ast.operator, ast.cmpop, ast.unaryop, ast.boolop)


def _pure(node) -> bool:
    """An expression of locals and constants (and `len` of a local) that reads no state and
    changes nothing."""
    for x in _walk(node):
        if isinstance(x, ast.Call):
            if not (isinstance(x.func, ast.Name) and x.func.id == "len" and len(x.args) == 1
                    and isinstance(x.args[0], ast.Name) and not x.keywords):
                return False
        elif not isinstance(x, _PURE):
            return False
    return True


class _KnownValues(ast.NodeTransformer):
    def __init__(self, ints: set):
        self.ints = ints

    def _block(self, body: list) -> list:
        known: dict[str, ast.Name] = {}  # dump of a pure expression -> the local holding it
        out = []
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name) and _pure(stmt.value):
                name = stmt.targets[0].id
                stmt.value = _Replace(known).visit(stmt.value)
                known = {k: v for k, v in known.items()  # what read the name rebound, or was it
                         if v.id != name and f"id='{name}'" not in k}
                if not any(isinstance(x, ast.Name) and x.id == name for x in _walk(stmt.value)):
                    known[ast.dump(stmt.value)] = ast.Name(name, ast.Load())  # a copy's reads too
                out.append(stmt)
                continue
            if isinstance(stmt, ast.If) and known:
                stmt.test = _Replace(known).visit(stmt.test)
            known = {}
            out.append(self.visit(stmt))
        return out

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(node, field, self._block(body))
        for handler in getattr(node, "handlers", []):
            handler.body = self._block(handler.body)
        if isinstance(node, (ast.If, ast.While)):
            node.test = _IntTests(self.ints).settle(node.test)
        return node

    def visit_FunctionDef(self, node):
        node.body = self._block(node.body)
        return node


class _Replace(ast.NodeTransformer):
    def __init__(self, known: dict):
        self.known = known

    def visit(self, node):
        if isinstance(node, _SCOPES):
            return node
        if isinstance(node, ast.expr) and not isinstance(node, ast.Constant):
            found = self.known.get(ast.dump(node))
            if found is not None:
                return ast.copy_location(ast.Name(found.id, ast.Load()), node)
        return super().visit(node)


class _IntTests:
    """An `if` test's comparisons of integer locals: an operand `x == c` makes x the constant c
    in the operands after it; `x + k OP c` is `x OP c - k`, `x + 1 <= y` is `x < y`, `x - y OP
    0` is `x OP y`."""

    def __init__(self, ints: set):
        self.ints = ints

    def settle(self, test):
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            values, equal = [], {}
            for value in test.values:
                if equal:
                    value = _Fold(0, (), False, "").visit(_Put(equal).visit(value))
                value = self.compare(value)
                if _is_const(value):
                    if not value.value:
                        return _const(False, test)
                    continue
                values.append(value)
                if isinstance(value, ast.Compare) and len(value.ops) == 1 \
                        and isinstance(value.ops[0], ast.Eq) and isinstance(value.left, ast.Name) \
                        and value.left.id in self.ints and _is_const(value.comparators[0]) \
                        and type(value.comparators[0].value) is int:
                    equal[value.left.id] = value.comparators[0].value
            if not values:
                return _const(True, test)
            return values[0] if len(values) == 1 else ast.copy_location(ast.BoolOp(ast.And(), values), test)
        return self.compare(test)

    def compare(self, node):
        if isinstance(node, ast.BoolOp):
            return ast.copy_location(ast.BoolOp(node.op, [self.compare(v) for v in node.values]), node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return ast.copy_location(ast.UnaryOp(node.op, self.compare(node.operand)), node)
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1
                and isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq))):
            return node
        left, op, right = node.left, node.ops[0], node.comparators[0]
        if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Sub) and _is_const(right) \
                and right.value == 0 and type(right.value) is int \
                and all(isinstance(x, ast.Name) and x.id in self.ints for x in (left.left, left.right)):
            return ast.copy_location(ast.Compare(left.left, [op], [left.right]), node)  # x - y > 0
        if not (isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add)
                and isinstance(left.left, ast.Name) and left.left.id in self.ints
                and _is_const(left.right) and type(left.right.value) is int):
            return node
        x, k = left.left, left.right.value
        if _is_const(right) and type(right.value) is int:
            return ast.copy_location(ast.Compare(x, [op], [_const(right.value - k, right)]), node)
        if k == 1 and isinstance(right, ast.Name) and right.id in self.ints \
                and isinstance(op, (ast.LtE, ast.Gt)):
            return ast.copy_location(ast.Compare(x, [ast.Lt() if isinstance(op, ast.LtE) else ast.GtE()],
                                                 [right]), node)
        return node


class _Put(ast.NodeTransformer):
    def __init__(self, values: dict):
        self.values = values

    def visit(self, node):
        return node if isinstance(node, _SCOPES) else super().visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return _const(self.values[node.id], node)
        return node


def copies_dropped(src: str, function: str) -> str:
    """`src` with each local of `function` that is a copy of another (`a = b`, its only binding)
    read as the original where that is surely the same value: every read of the copy follows it
    in the same block, and nothing binds the original from the copy to the last of them."""
    tree = ast.parse(src)
    _copies_dropped(tree, function)
    return _unparse(tree)


def _copies_dropped(tree: ast.Module, function: str) -> None:
    for func in tree.body:
        if isinstance(func, ast.FunctionDef) and func.name == function:
            stores: dict[str, int] = {}
            for node in _walk(func):
                if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                    stores[node.id] = stores.get(node.id, 0) + 1
                elif isinstance(node, ast.arg):
                    stores[node.arg] = stores.get(node.arg, 0) + 2
            _Copies(stores).visit(func)


def _names(nodes, ctx):
    return [n for part in nodes for n in _walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)]


class _Copies(ast.NodeVisitor):
    def __init__(self, stores: dict):
        self.stores = stores

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                self._block(body)
        for handler in getattr(node, "handlers", []):
            self._block(handler.body)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.visit(child)

    def _block(self, body: list) -> None:
        i = 0
        while i < len(body):
            stmt = body[i]
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Name) \
                    and self.stores.get(stmt.targets[0].id) == 1 and self._drop(body, i):
                del body[i]
                continue
            i += 1

    def _drop(self, body: list, i: int) -> bool:
        copy, original = body[i].targets[0].id, body[i].value.id
        func_reads = self.all_reads.get(copy, 0) if hasattr(self, "all_reads") else None
        later = body[i + 1:]
        reads = [n for n in _names(later, ast.Load) if n.id == copy]
        if func_reads is not None and func_reads != len(reads):
            return False  # read elsewhere too
        if not reads:
            return False
        last = max(j for j, stmt in enumerate(later)
                   if any(n.id == copy for n in _names([stmt], ast.Load)))
        reach = []  # what may run between the copy and a read of it
        for stmt in later[:last + 1]:
            if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body \
                    and isinstance(stmt.body[-1], (ast.Continue, ast.Break, ast.Return, ast.Raise)) \
                    and not any(n.id == copy for n in _names(stmt.body, ast.Load)):
                reach.append(stmt.test)  # its body leaves the block: no read of the copy follows it
            else:
                reach.append(stmt)
        if any(n.id == original for n in _names(reach, (ast.Store, ast.Del))):
            return False
        for j, stmt in enumerate(later[:last + 1]):
            for n in _walk(stmt):
                if isinstance(n, ast.Name) and n.id == copy:
                    n.id = original
        return True

    def visit_FunctionDef(self, node):
        self.all_reads: dict[str, int] = {}
        for n in _walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                self.all_reads[n.id] = self.all_reads.get(n.id, 0) + 1
        self._block(node.body)
        for child in node.body:
            self.visit(child)
