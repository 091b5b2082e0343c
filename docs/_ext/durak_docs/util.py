"""Docutils node helpers shared by the directives: references, anchors, tables, values."""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes

from .clause import pretty, tokens


def ref(label: str, text: str, literal: bool = False) -> nodes.Node:
    """A cross-reference to a label of the docs; -W turns a dangling one into an error."""
    node = addnodes.pending_xref("", refdomain="std", reftype="ref", reftarget=label.lower(),
                                 refexplicit=True, refwarn=True)
    node += nodes.literal(text, text) if literal else nodes.inline(text, text)
    return node


def anchor(document, name: str) -> nodes.inline:
    """An anchor whose HTML ids are Sphinx's normalised form of `name` and `name` itself; the
    label `name` points at the exact id (docutils maps a name to the last of its node's ids)."""
    ids = [i for i in (nodes.make_id(name), name) if i]
    node = nodes.inline("", "", ids=list(dict.fromkeys(ids)),
                        names=[nodes.fully_normalize_name(name)])
    document.note_explicit_target(node)
    return node


def para(*parts) -> nodes.paragraph:
    node = nodes.paragraph()
    for p in parts:
        node += nodes.Text(p) if isinstance(p, str) else p
    return node


def joined(items, sep: str = ", ") -> list:
    """Inline nodes of `items` with `sep` between them; an item may be a list of nodes."""
    out = []
    for i, item in enumerate(items):
        if i:
            out.append(nodes.Text(sep))
        for part in item if isinstance(item, list) else [item]:
            out.append(nodes.Text(part) if isinstance(part, str) else part)
    return out


def strong(text: str) -> nodes.strong:
    return nodes.strong(text, text)


def literal(text: str) -> nodes.literal:
    return nodes.literal(text, text)


def value_text(value) -> str:
    """An option value as YAML writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def normative(text: str) -> nodes.paragraph:
    """Rule prose with its RFC 2119 keywords in bold."""
    node = nodes.paragraph()
    for i, word in enumerate(text.split(" ")):
        if i:
            node += nodes.Text(" ")
        bare = word.strip(".,;:()")
        node += strong(word) if bare in ("MUST", "MAY", "NOT", "SHOULD") else nodes.Text(word)
    return node


def fields(items) -> nodes.field_list:
    """A field list from (name, body) pairs; a body is a string, a node or a list of them."""
    out = nodes.field_list()
    for name, body in items:
        if body is None or body == [] or body == "":
            continue
        f = nodes.field()
        f += nodes.field_name(name, name)
        fb = nodes.field_body()
        if isinstance(body, (str, nodes.Text)) or (isinstance(body, nodes.Inline)):
            fb += para(body)
        elif isinstance(body, list):
            fb += para(*body)
        else:
            fb += body
        f += fb
        out += f
    return out


def table(headers, rows, widths=None, classes=()) -> nodes.table:
    """A table; each cell is a string, a node or a list of inline nodes."""
    t = nodes.table(classes=list(classes))
    group = nodes.tgroup(cols=len(headers))
    t += group
    for w in widths or [1] * len(headers):
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    head += _row(headers)
    group += head
    body = nodes.tbody()
    for r in rows:
        body += _row(r)
    group += body
    return t


def _row(cells) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        if isinstance(cell, nodes.Body):
            entry += cell
        elif isinstance(cell, list):
            entry += para(*cell)
        else:
            entry += para(cell)
        row += entry
    return row


def clause_block(text: str, data) -> nodes.literal_block:
    """A clause laid out readably, each option, definition and vocabulary name linked."""
    # A rawsource that differs from the text makes Sphinx render the block as a parsed literal,
    # keeping the links (an empty one would be filled with the text and highlighted, unlinked).
    block = nodes.literal_block(f"clause: {text}", classes=["durak-clause"])
    for kind, piece in tokens(pretty(text)):
        label = data.label_for(kind, piece)
        block += ref(label, piece) if label else nodes.Text(piece)
    return block


def clause_inline(text: str, data) -> nodes.literal:
    """A short clause (a `when`) on one line, names linked."""
    node = nodes.literal(classes=["durak-clause"])
    for kind, piece in tokens(" ".join(text.split())):
        label = data.label_for(kind, piece)
        node += ref(label, piece) if label else nodes.Text(piece)
    return node
