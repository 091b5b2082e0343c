"""Links inside the repository documents the docs include (conformance/PROTOCOL.md, CASES.md).

Those documents link to files next to them (`schemas/case.schema.json`). When a page includes
them, such a link is rewritten at read time: to the page that includes the linked document, to a
download of the linked file, or, for a folder or a missing file, to its plain text.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]+)\)")
# Repository documents the generated pages include, and the page that includes each.
INCLUDED = {"conformance/PROTOCOL.md": "_generated/protocol.md",
            "conformance/CASES.md": "_generated/case-format.md"}


def rewrite(text: str, source: Path, root: Path, srcdir: Path) -> str:
    """`text` of the included file `source` with its relative links made to work from srcdir."""
    out, fenced = [], False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        out.append(line if fenced else LINK.sub(lambda m: _link(m, source, root, srcdir), line))
    return "".join(out)


def _link(m: re.Match, source: Path, root: Path, srcdir: Path) -> str:
    label, target = m.group(1), m.group(2)
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
        return m.group(0)
    path_part, _, anchor = target.partition("#")
    path = (source.parent / path_part).resolve()
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return label
    if rel in INCLUDED:
        return f"[{label}](/{INCLUDED[rel]}{'#' + anchor if anchor else ''})"
    if path.is_file():
        return f"[{label}](/{_relpath(path, srcdir)})"
    return label


def _relpath(path: Path, srcdir: Path) -> str:
    return os.path.relpath(path, srcdir).replace(os.sep, "/")


def on_include_read(app, relative_path, parent_docname, content) -> None:
    """Sphinx `include-read` handler for documents of the checkout outside docs/."""
    from . import state
    srcdir = Path(app.srcdir)
    source = (srcdir / relative_path).resolve()
    root = state.data().root
    if source.suffix == ".md" and source.is_relative_to(root) and not source.is_relative_to(srcdir):
        content[0] = rewrite(content[0], source, root, srcdir)
