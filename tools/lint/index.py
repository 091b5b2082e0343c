"""`durak lint`, the indexes: spec/index.jsonl and conformance/cases/index.jsonl hold what each
shipped file parses to, under the SHA-256 of its bytes (reference_impl/yamlio.py, ContentIndex),
so that `durak check` and every command read the shipped files without parsing and validating
them again. An index out of date costs time, never correctness (a file it does not hold is read
in full): lint notes it, and `durak lint --write-index` rewrites both in a checkout."""

from __future__ import annotations

from pathlib import Path

from durak_spec.conformance.cases import CASES_DIR, index_text
from durak_spec.reference_impl.spec import Spec, default_spec_dir, spec_index_text
from durak_spec.reference_impl.yamlio import INDEX_NAME


def index_files(spec: Spec) -> dict[Path, str]:
    """{index path: its text as it should be}, each file parsed and validated in full."""
    return {default_spec_dir() / INDEX_NAME: spec_index_text(),
            CASES_DIR / INDEX_NAME: index_text(spec)}


def stale_indexes(spec: Spec) -> list[Path]:
    """The indexes whose text differs from what the shipped files make now."""
    out = []
    for path, text in index_files(spec).items():
        try:
            current = path.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            out.append(path)
    return out


def write_indexes(spec: Spec) -> list[Path]:
    out = []
    for path, text in index_files(spec).items():
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out
