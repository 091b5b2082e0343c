"""The generated program's comprehensions and lambdas lifted into functions of their own
(`lifted`), the last source-to-source step of every ruleset's program (ruleset.py `_fuse`,
`step_source`).

The pass is pure and works function by function: what one top-level function of the program
lifts depends on that function's text alone, and only the helpers' numbers on the functions
before it. Each function's findings are kept in this process by its text (`_MEMO`), so that the
variants of a preset, which share most of their program (the flow events, draw_order, most of
legal and settle), walk the syntax trees of the functions they differ in only: a diagnosis builds
hundreds of variants (diagnose.py `variant_ruleset`).
"""

from __future__ import annotations

import ast

_SCOPES = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.Lambda)
MEMO_SIZE = 4096  # functions' findings kept; past that the memo starts over
# function text -> ((line, start, end, free names, text) per lifted scope, in the program's order)
_MEMO: dict[str, tuple] = {}
# (prefix, program) -> the program lifted: variants whose options change nothing they play (a
# diagnosis's search meets many) write the same program
_PROGRAMS: dict[tuple, str] = {}
PROGRAMS_SIZE = 256  # about 30 KB each


def lifted(src: str, prefix: str) -> str:
    """`_lifted(src, prefix)`, kept in this process by the prefix and the source: the rulesets of
    a process that write the same program do not walk it again. Not kept in the code cache: a
    cold `durak check` of a mutant writes some 1,400 programs more, which pushed the cache past
    codecache.MAX_ENTRIES (pruned mid-run), and its second run took longer than with this memo
    alone (36.2 against 30.4 s wall, load 3-4)."""
    out = _PROGRAMS.get((prefix, src))
    if out is None:
        out = _lifted(src, prefix)
        if len(_PROGRAMS) >= PROGRAMS_SIZE:
            _PROGRAMS.clear()
        _PROGRAMS[prefix, src] = out
    return out


def _lifted(src: str, prefix: str) -> str:
    """The generated program with each comprehension and lambda that reads a local of its
    function (the card of a hand looked at, the state `s`) made a call of a function of its own,
    `<prefix>N(those locals)`, defined after the program: else CPython keeps those locals in
    cells throughout the function, every read of them an indirection more. The values are bound
    at the call where the cells bound them at each use; a comprehension or lambda of the
    generated program is used up in the expression that makes it, so nothing changes but time."""
    lines = src.split("\n")
    edits: dict[int, list] = {}
    helpers: list[str] = []
    for first, (line, start, end, args, text) in _findings(src, lines):
        name = f"{prefix}{len(helpers) // 2}"
        helpers += [f"def {name}({args}):", f"    return {text}"]
        # a call's only argument, a generator, spans the call's parentheses
        call = f"({name}({args}))" if text.startswith("(") else f"{name}({args})"
        edits.setdefault(first + line, []).append((start, end, call))
    for i, spans in edits.items():
        line = lines[i].encode()
        for start, end, call in sorted(spans, reverse=True):
            line = line[:start] + call.encode() + line[end:]
        lines[i] = line.decode()
    return "\n".join(lines + helpers)


def _findings(src: str, lines: list[str]):
    """(first line of its function, finding) for each scope to lift, in the program's order:
    the program cut before each line that starts a top-level `def`, each piece's findings taken
    from the memo or found. A piece that does not parse alone (a `def` line inside a string)
    means the program is not cut: it is looked at whole."""
    starts = [i for i, line in enumerate(lines) if line.startswith("def ")]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    pieces = []
    for first, after in zip(starts, starts[1:] + [len(lines)]):
        text = "\n".join(lines[first:after])
        found = _MEMO.get(text)
        if found is None:
            try:
                found = _scopes(text)
            except SyntaxError:
                return [(0, f) for f in _scopes(src)]
            if len(_MEMO) >= MEMO_SIZE:
                _MEMO.clear()
            _MEMO[text] = found
        pieces += [(first, f) for f in found]
    return pieces


def _scopes(src: str) -> tuple:
    """(line, start, end, free names, text) of each comprehension or lambda of `src`'s top-level
    functions that no other one holds, that lies on one line and reads a local of its function,
    in the order the syntax tree holds them; `start` and `end` are offsets in the line's UTF-8.

    One walk of each function, in preorder: a function's locals are its arguments and every name
    stored in it (in its comprehensions too); a scope's free names those it loads that are locals
    of the function and that it does not store itself (nor take as a lambda's arguments)."""
    tree = ast.parse(src)
    lines = src.split("\n")
    found = []
    for func in tree.body:
        if not isinstance(func, ast.FunctionDef):
            continue
        local = {a.arg for a in func.args.args}
        outer: list = []  # [node, loaded, bound] of each outermost scope
        stack = [(func, None)]
        while stack:
            node, held = stack.pop()
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    local.add(node.id)
                    if held is not None:
                        held[2].add(node.id)
                elif held is not None and isinstance(node.ctx, ast.Load):
                    held[1].add(node.id)
                continue
            if held is None and isinstance(node, _SCOPES):
                held = [node, set(), {a.arg for a in node.args.args}
                        if isinstance(node, ast.Lambda) else set()]
                outer.append(held)
            children = []
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, ast.AST):
                    children.append((value, held))
                elif isinstance(value, list):
                    children += [(v, held) for v in value if isinstance(v, ast.AST)]
            stack += reversed(children)
        for node, loaded, bound in outer:
            free = sorted(loaded & local - bound)
            if not free or node.lineno != node.end_lineno:
                continue
            text = lines[node.lineno - 1].encode()[node.col_offset:node.end_col_offset].decode()
            found.append((node.lineno - 1, node.col_offset, node.end_col_offset, ", ".join(free), text))
    return tuple(found)
