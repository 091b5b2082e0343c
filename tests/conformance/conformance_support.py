"""Shared pieces of the conformance tests: the fixture cases, the example engines, quick runs.

This folder is on sys.path while the tests run, so the engine here is also reachable as the
adapter `python:conformance_support:HouseRulesEngine`.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.conformance.runner import Selection, Session
from durak_spec.conformance.transport import make_adapter

HERE = Path(__file__).resolve().parent
# Each answer of an engine in these tests, in seconds (the command's default is 5): the engines
# answer in milliseconds, but a test process that has run many others, on a loaded machine, can
# pause longer than 5 s in one answer (a collection of its heap), and a test of something else
# would fail as a hang. Tests of timeouts give their own.
ANSWER_TIMEOUT = 60.0
# Small cases of our own, so these tests do not depend on the shipped suite's exact content.
FIXTURE_CASES = HERE / "cases"
PYTHON = sys.executable


@dataclass(frozen=True)
class Broken:
    """One of the deliberately broken example engines (conformance/examples/broken_*.py)."""

    module: str
    cls: str

    @property
    def engine_class(self):
        module = __import__(f"durak_spec.conformance.examples.{self.module}", fromlist=[self.cls])
        return getattr(module, self.cls)

    @property
    def rule(self) -> str:
        return self.engine_class.breaks

    @property
    def python(self) -> str:
        return f"python:durak_spec.conformance.examples.{self.module}:{self.cls}"

    @property
    def cmd(self) -> str:
        return f"cmd:{PYTHON} -m durak_spec.conformance.examples.{self.module}"

    def __str__(self) -> str:
        return self.module


BROKEN = [Broken("broken_no_cap", "NoAttackCap"),
          Broken("broken_draw_order", "DefenderDrawsFirst"),
          Broken("broken_beat", "BeatAnySuit"),
          Broken("broken_throw_in_rank", "ThrowInAnyRank"),
          Broken("broken_transfer_capacity", "TransferIgnoresCapacity")]

REFERENCE_CMD = f"cmd:{PYTHON} -m durak_spec.conformance.examples.reference_engine"


def misbehaving(mode: str, *extra: str) -> str:
    """The cmd: adapter name of the misbehaving example engine in `mode`."""
    return "cmd:" + shlex.join([PYTHON, "-m", "durak_spec.conformance.examples.misbehaving_engine",
                                mode, *extra])


class HouseRulesEngine(ReferenceEngine):
    """The reference, declaring narrow capabilities: podkidnoy only, two players, a five-card
    first bout, deals only (no mid-deal positions)."""

    def hello(self) -> dict:
        return {**super().hello(), "name": "house rules", "presets": ["podkidnoy"],
                "players": [2], "options": {"first_bout_max": [5]}, "positions": False}


def jobs_of(suite, selection: Selection | None = None) -> list:
    """The (case, variant) runs a selection picks, as run_suite orders them."""
    selection = selection or Selection()
    return [(c, v) for c in suite.cases if selection.picks(c) for v in selection.variants_of(c)]


def run_cases(spec, adapter_name: str, jobs, *, check_cases: bool = False, timeout: float = 60.0,
              diagnose_budget: float = 30.0, evidence=None):
    """Run jobs in one session, without reloading spec/ or the cases. `timeout` bounds each
    answer of the engine: these tests are about what engines answer, not how fast, and on a loaded
    machine an example engine's first answer (building its rulesets) has taken over 5 s, the
    command line's default (the tests of deadlines set their own). `diagnose_budget` is the
    safety limit in seconds of the counterfactual search of one failure (the search stops at a
    count of variants, diagnose.SEARCH_LIMIT, so two runs' diagnoses compare whole). Pass an
    `evidence` (problems.Evidence) to keep what the engine did, to confirm advice with."""
    session = Session(spec, make_adapter(adapter_name, timeout, spec), adapter_name=adapter_name,
                      check_cases=check_cases, diagnose_budget=diagnose_budget)
    if evidence is not None:
        session.evidence = evidence
    session.open()
    try:
        return [session.run_case(case, variant) for case, variant in jobs]
    finally:
        session.close()


def declaring(engine_class, name: str, **hello):
    """`engine_class` with `hello` extended (its house rules declared, say)."""
    def hello_(self):
        return {**engine_class.hello(self), **hello}
    return type(name, (engine_class,), {"hello": hello_})


def _mutant(*names):
    from durak_spec.conformance.examples.mutants import engine_class
    return engine_class(*names)


# The draw_counterclockwise mutant, honest about it: it declares the draw order it plays.
HonestCounterclockwise = declaring(
    _mutant("draw_counterclockwise"), "HonestCounterclockwise",
    options={"draw_order": ["attacker_counterclockwise_defender_last"]})


class LeftOfDealerAtTwo(ReferenceEngine):
    """The reference, but at a two-player table the dealer's left neighbour always leads."""

    def start(self, variant: dict, setup: dict):
        options = dict(variant.get("options") or {})
        if len(setup["hands"]) == 2:
            options["first_attacker"] = "left_of_dealer"
        return super().start({**variant, "options": options}, setup)


LeftOfDealerAtTwoDeclared = declaring(
    LeftOfDealerAtTwo, "LeftOfDealerAtTwoDeclared",
    house_rules=[{"players": [2], "options": {"first_attacker": ["left_of_dealer"]}}])

class NeighboursWithTransfers(ReferenceEngine):
    """The reference, but under perevodnoy only the main attacker and the defender's left
    neighbour add cards (a house rule that holds under one of its presets)."""

    def start(self, variant: dict, setup: dict):
        options = dict(variant.get("options") or {})
        if variant.get("preset") == "perevodnoy":
            options["throwers"] = "neighbours"
        return super().start({**variant, "options": options}, setup)


NeighboursWithTransfersDeclared = declaring(
    NeighboursWithTransfers, "NeighboursWithTransfersDeclared", presets=["podkidnoy", "perevodnoy"],
    house_rules=[{"presets": ["perevodnoy"], "options": {"throwers": ["neighbours"]}}])

# Declares that it plays six players only: nearly every case is skipped.
SixPlayersOnly = declaring(ReferenceEngine, "SixPlayersOnly", players=[6])
# Declares a podkidnoy engine: no transfers.
NoTransfers = declaring(ReferenceEngine, "NoTransfers", presets=["podkidnoy"],
                        options={"transfer": [False], "first_bout_max": [None, 5]})


class VersionOneKinds(ReferenceEngine):
    """An engine of protocol 1's six action kinds: it lists no show, swap or exchange and refuses them as
    unknown; it declares no `action_kinds`."""

    NEW = ("show", "swap", "exchange", "redeal")

    def hello(self):
        out = dict(ReferenceEngine.hello(self))
        out.pop("action_kinds", None)
        return out

    def apply(self, action):
        if action.split()[1] in self.NEW:
            return {"accepted": False, "reason": "unknown action kind"}
        return ReferenceEngine.apply(self, action)

    def legal(self):
        return {"actions": [a for a in ReferenceEngine.legal(self)["actions"]
                            if a.split()[1] not in self.NEW]}


# The same engine claiming the new kinds it does not play: the cases that need them fail.
VersionOneKindsClaimingMore = declaring(VersionOneKinds, "VersionOneKindsClaimingMore",
                                        action_kinds=["show", "swap", "exchange", "redeal"])

# Declares a 36-card engine: cases dealt from other decks cannot be played on it.
ThirtySixCards = declaring(ReferenceEngine, "ThirtySixCards", presets=["podkidnoy"],
                           options={"deck_cards": [36], "jokers": ["none"], "packs": [1]})

# Speaks protocol 1: it reads version 1's card notation only (no named suits, 6D=H).
VersionOneNotation = declaring(ReferenceEngine, "VersionOneNotation", protocol="1", presets=["weli"])
