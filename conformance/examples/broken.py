"""Deliberately broken engines: the reference interpreter on a copy of spec/ with ONE clause edited.

Each `broken_*` module defines one engine that gets exactly one rule wrong (its `breaks`). The
suite must fail it on the cases of that rule: tests/conformance/test_broken_engines.py checks so.
Every engine works in process (`python:durak_spec.conformance.examples.broken_no_cap:NoAttackCap`) and
as a subprocess (`cmd:python -m durak_spec.conformance.examples.broken_no_cap`).

The engines drop `rule` from their rejections: a third-party engine does not know spec/'s rule ids,
so the suite has to catch them by verdicts, states and legal sets alone.
"""

from __future__ import annotations

import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.reference_impl.spec import Spec, default_spec_dir, load_spec


@lru_cache(maxsize=None)
def edited_spec(rel: str, old: str, new: str) -> Spec:
    """The shipped spec/ with `old` replaced by `new` in the file `rel` (it must occur once)."""
    return edited_spec_many(((rel, old, new),))


@lru_cache(maxsize=None)
def edited_spec_many(edits: tuple) -> Spec:
    """The shipped spec/ with several edits (file under spec/, old text, new text), applied in
    order; each `old` must occur exactly once when its turn comes."""
    with tempfile.TemporaryDirectory(prefix="durak-broken-") as tmp:
        root = Path(tmp) / "spec"
        shutil.copytree(default_spec_dir(), root, ignore=shutil.ignore_patterns("__pycache__"))
        for rel, old, new in edits:
            path = root / rel
            text = path.read_text(encoding="utf-8")
            if text.count(old) != 1:
                raise RuntimeError(f"spec/{rel} no longer holds {old!r} exactly once; "
                                   "update the engine's edit")
            path.write_text(text.replace(old, new), encoding="utf-8")
        return load_spec(root)


class BrokenEngine(ReferenceEngine):
    """The reference engine with one textual edit of spec/ (set by subclasses)."""

    breaks = ""        # the rule id this engine gets wrong
    wrong = ""         # what it does wrong, for its name
    edit: tuple[str, str, str] = ("", "", "")  # (file under spec/, old text, new text)

    def __init__(self):
        super().__init__(edited_spec(*self.edit), name=f"broken: {self.wrong}")

    def apply(self, action: str) -> dict:
        verdict = super().apply(action)
        verdict.pop("rule", None)
        return verdict


def main(engine_class) -> None:
    """Serve one broken engine over the JSON-lines protocol on stdin/stdout."""
    serve(engine_class())
