"""Engines with several independent broken rules at once: the edits of broken engines combined.

`combined(NoAttackCap, DefenderDrawsFirst)` is the reference on a copy of spec/ carrying both
engines' edits; its `breaks` lists both rules. The fuzzer's tests and benchmarks use these to show
that one campaign reports every bug of an engine, each under its own rule. (The single-rule
mutant table of examples/ can absorb this: a combined engine is just the union of its members'
edits, keyed by the members' names.)

    in process   python:durak_spec.conformance.examples.combined:NoAttackCap+DefenderDrawsFirst
    subprocess   cmd:python -m durak_spec.conformance.examples.combined NoAttackCap DefenderDrawsFirst
"""

from __future__ import annotations

import importlib
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.conformance.examples.broken import BrokenEngine
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.reference_impl.spec import Spec, default_spec_dir, load_spec

MEMBERS = {"NoAttackCap": "broken_no_cap", "BeatAnySuit": "broken_beat",
           "DefenderDrawsFirst": "broken_draw_order", "ThrowInAnyRank": "broken_throw_in_rank",
           "TransferIgnoresCapacity": "broken_transfer_capacity"}


def member(name: str) -> type:
    if name not in MEMBERS:
        raise ValueError(f"no broken engine {name!r}; engines: {', '.join(MEMBERS)}")
    module = importlib.import_module(f"durak_spec.conformance.examples.{MEMBERS[name]}")
    return getattr(module, name)


@lru_cache(maxsize=None)
def _spec(edits: tuple) -> Spec:
    with tempfile.TemporaryDirectory(prefix="durak-combined-") as tmp:
        root = Path(tmp) / "spec"
        shutil.copytree(default_spec_dir(), root, ignore=shutil.ignore_patterns("__pycache__"))
        for rel, old, new in edits:
            path = root / rel
            text = path.read_text(encoding="utf-8")
            if text.count(old) != 1:
                raise RuntimeError(f"spec/{rel} no longer holds {old!r} exactly once")
            path.write_text(text.replace(old, new), encoding="utf-8")
        return load_spec(root)


@lru_cache(maxsize=None)
def combined(*names: str) -> type:
    """An engine class with the edits of every named broken engine."""
    members = [member(n) for n in names]

    def __init__(self):
        ReferenceEngine.__init__(self, _spec(tuple(m.edit for m in members)),
                                 name="broken: " + " + ".join(m.wrong for m in members))

    return type("+".join(names), (BrokenEngine,),
                {"__init__": __init__, "breaks": [m.breaks for m in members],
                 "wrong": " + ".join(m.wrong for m in members)})


def __getattr__(name: str):
    """`python:...combined:A+B` loads the combined engine class."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return combined(*name.split("+"))
    except ValueError:
        raise AttributeError(name) from None


if __name__ == "__main__":
    serve(combined(*sys.argv[1:])())
