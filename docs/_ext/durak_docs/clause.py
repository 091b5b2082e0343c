"""Clauses made readable: a line-breaking pretty printer and the names a clause mentions.

The pretty printer only re-lays the clause's own syntax tree (`ast.unparse` pieces, parentheses
added where a part is split); the result parses back to the same tree, which tests check.
"""

from __future__ import annotations

import ast
import re

WIDTH = 76
INDENT = 4
# A string literal, an option reference or a name, in the order they must be tried.
TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\bopt\.\w+|\b[A-Za-z_]\w*\b")


def pretty(text: str, width: int = WIDTH) -> str:
    """The clause laid out over several lines when it is longer than `width`."""
    text = " ".join(text.split())
    return _Layout(text, width).fmt(ast.parse(text, mode="eval").body, 0, 0)


def tokens(text: str):
    """Split text into (kind, piece) with kind one of 'name', 'opt', 'text'."""
    pos = 0
    for m in TOKEN.finditer(text):
        if m.start() > pos:
            yield "text", text[pos:m.start()]
        piece = m.group()
        kind = "text" if piece[0] in "'\"" else "opt" if piece.startswith("opt.") else "name"
        yield kind, piece
        pos = m.end()
    if pos < len(text):
        yield "text", text[pos:]


def option_names(text: str | None) -> set[str]:
    """Options a clause reads directly (opt.NAME)."""
    return {piece[4:] for kind, piece in tokens(text or "") if kind == "opt"}


def names(text: str | None) -> set[str]:
    """Plain names a clause mentions (vocabulary, definitions, bound variables)."""
    return {piece for kind, piece in tokens(text or "") if kind == "name"}


CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
       ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
COMPOUND = (ast.BoolOp, ast.IfExp, ast.Compare)


class _Layout:
    """Lays out one clause; `col` is where a piece starts, `ind` the indent of its block."""

    def __init__(self, text: str, width: int):
        self.text = text
        self.width = width

    def flat(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node)

    def fmt(self, node: ast.AST, col: int, ind: int) -> str:
        flat = self.flat(node)
        if col + len(flat) <= self.width:
            return flat
        pad = " " * ind
        if isinstance(node, ast.BoolOp):
            op = "and " if isinstance(node.op, ast.And) else "or "
            first = self.part(node.values[0], col, ind)
            return first + "".join(f"\n{pad}{op}{self.part(v, ind + len(op), ind)}"
                                   for v in node.values[1:])
        if isinstance(node, ast.IfExp):
            return self.ifexp(node, col, ind)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return "not " + self.part(node.operand, col + 4, ind)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = CMP[type(node.ops[0])] + " "
            return (self.part(node.left, col, ind)
                    + f"\n{pad}{op}{self.part(node.comparators[0], ind + len(op), ind)}")
        if isinstance(node, ast.Call) and not node.keywords:
            return self.call(node, ind)
        return flat

    def ifexp(self, node: ast.IfExp, col: int, ind: int) -> str:
        """An if-else chain as one line per branch: 'A if c', 'else B if d', 'else C'."""
        branches, last = [], node
        while isinstance(last, ast.IfExp):
            branches.append((last.body, last.test))
            last = last.orelse
        lines, start = [], col
        for i, (body, test) in enumerate(branches):
            lead = "else " if i else ""
            line = f"{lead}{self.flat(body)} if {self.flat(test)}"
            if start + len(line) > self.width:
                at = ind + len(lead)
                line = (lead + self.part(body, start + len(lead), at)
                        + f"\n{' ' * at}if {self.part(test, at + 3, at)}")
            lines.append(line)
            start = ind
        lines.append("else " + self.part(last, ind + 5, ind + 5))
        return f"\n{' ' * ind}".join(lines)

    def call(self, node: ast.Call, ind: int) -> str:
        inner = ind + INDENT
        if len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp):
            gen = node.args[0]
            lines = [self.fmt(gen.elt, inner, inner)]
            for comp in gen.generators:
                lines.append(f"for {self.flat(comp.target)} in {self.flat(comp.iter)}")
                lines += [f"if {self.part(cond, inner + 3, inner)}" for cond in comp.ifs]
        else:
            lines = [self.fmt(a, inner, inner) + "," for a in node.args]
        body = "".join(f"\n{' ' * inner}{line}" for line in lines)
        return f"{self.flat(node.func)}({body}\n{' ' * ind})"

    def part(self, node: ast.AST, col: int, ind: int) -> str:
        """A piece of a split expression, in parentheses when it is compound and split itself."""
        flat = self.flat(node)
        if not isinstance(node, COMPOUND) or (isinstance(node, ast.Compare)
                                              and col + len(flat) <= self.width):
            return self.fmt(node, col, ind)
        if col + len(flat) + 2 <= self.width:
            return f"({flat})"
        inner = ind + INDENT
        return f"(\n{' ' * inner}{self.fmt(node, inner, inner)}\n{' ' * ind})"
