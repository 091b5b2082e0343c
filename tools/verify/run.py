"""One preset through `durak verify`: the induction at each player count, then a counterexample,
a whole-step proof or a bounded check for whatever it could not prove. Results are plain data, so
presets can run in parallel processes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from durak_spec.reference_impl.spec import load_spec
from durak_spec.tools.verify.backend.values import lean_z3
from durak_spec.tools.verify.bmc import bmc
from durak_spec.tools.verify.cex import (
    Counterexample,
    describe,
    find_counterexample,
    whole_step_proves,
)
from durak_spec.tools.verify.equiv import check_equivalences
from durak_spec.tools.verify.invariants import LEMMAS, STEPS, properties, run_induction
from durak_spec.tools.verify.match import verify_match
from durak_spec.tools.verify.presets import dead_options, deals

RANK = {"counterexample": 3, "bounded": 2, "proved": 1, "never": 0}


@dataclass
class Cell:
    """The result for one property and one step of one preset, over the player counts."""

    status: str = "never"  # proved | bounded | counterexample | never
    players: list = field(default_factory=list)
    depth: int | None = None
    note: str = ""
    cex: Counterexample | None = None
    # player counts where neither a counterexample nor a whole-step proof was found and the search
    # for a counterexample from a position a Setup states gave up (models.Search): none is unproved
    gave_up: list = field(default_factory=list)

    def merge(self, n: int, status: str, depth=None, note="", cex=None):
        if RANK[status] > RANK[self.status]:
            self.status, self.players, self.note, self.cex = status, [n], note, cex
            self.depth = depth
        elif status == self.status:
            self.players.append(n)
            if depth is not None:
                self.depth = depth if self.depth is None else min(self.depth, depth)


@dataclass
class PresetReport:
    preset: str
    props: list  # (id, title, is lemma)
    cells: dict  # (prop id, step) -> Cell
    players: list
    deals: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    equivalences: list = field(default_factory=list)
    seconds: float = 0.0
    twin: str | None = None  # the preset whose deal proofs are this one's (Spec.deal_twin)
    match: object = None  # match.MatchReport


def verify_preset(spec_root, preset: str, overrides: dict, players, depth: int,
                  equivalences: bool = True, lemmas=LEMMAS, twin: str | None = None,
                  match_players=None) -> PresetReport:
    """Everything `durak verify` checks for one preset (plain data, for a worker process). With
    `twin`, a preset that plays every deal as this one does: only the match rules are checked."""
    with lean_z3():
        return _verify_preset(spec_root, preset, overrides, players, depth, equivalences, lemmas,
                              twin, match_players)


def _verify_preset(spec_root, preset, overrides, players, depth, equivalences, lemmas, twin,
                   match_players) -> PresetReport:
    spec = load_spec(spec_root)
    ruleset = spec.ruleset(preset, overrides)
    start = time.perf_counter()
    if twin is not None:
        return PresetReport(preset, [], {}, list(players), twin=twin,
                            match=verify_match(ruleset, match_players or players),
                            seconds=time.perf_counter() - start)
    props = properties(ruleset, lemmas)
    by_id = {p.id: p for p in props}
    cells = {(p.id, s): Cell() for p in props for s in STEPS}
    deals_made = deals(ruleset)
    problems = [f"preset {preset}, {d.players} players: {d.note} (definitions.hand_size)"
                for d in deals_made if d.talon is None or d.talon < 0]
    dealable = {d.players for d in deals_made if d.talon is not None and d.talon >= 0}
    players = [n for n in players if n in dealable]
    dead, notes = dead_options(spec, preset, ruleset, players)
    problems += dead
    proved, bounded_runs = {}, {}
    for n in players:
        ind, rep = run_induction(ruleset, n, props)
        proved[n] = rep.proved
        for pid in rep.at_deal:
            for step in STEPS:
                cells[(pid, step)].merge(n, "counterexample", note="it already fails at some "
                                         "deal, before any action (Setup.deal and the start rules)")
        for (pid, step), outcome in rep.outcomes.items():
            cell = cells[(pid, step)]
            if pid in rep.at_deal:
                continue
            if outcome.status != "failed":
                cell.merge(n, outcome.status, note=outcome.note)
                continue
            prop = by_id[pid]
            assumed = rep.proved | ({pid} if prop.scope == "state" else set())
            cex, search = find_counterexample(ind, preset, prop, step, assumed)
            if cex is not None:
                cell.merge(n, "counterexample", cex=cex)
                continue
            whole, witness = whole_step_proves(ind, prop, step, assumed)
            if whole:
                cell.merge(n, "proved", note="over whole steps (action and bout end together)")
                continue
            if not search.complete:  # the result below stands in for a search that gave up
                cell.gave_up.append(n)
            if (n, pid) not in bounded_runs:
                bounded_runs[(n, pid)] = bmc(ind, prop, depth)
            bounded = bounded_runs[(n, pid)]
            why = ("induction fails from positions that satisfy every proved property but that "
                   "no Setup states and the interpreter cannot reproduce, e.g. "
                   + describe(*witness)) if search.complete else (
                "induction fails, and the search for a position a Setup states that breaks it "
                f"{search.gave_up()}; e.g. " + describe(*witness))
            if not bounded.complete:
                why += f"; the solver gave up at depth {bounded.depth + 1}"
            if bounded.trace is not None:
                trace = ", ".join(f"{seat} {kind}" for kind, seat in bounded.trace)
                cell.merge(n, "counterexample", note=f"abstract, after {len(bounded.trace)} "
                           f"steps from a deal: {trace} (cards not reconstructed)")
            else:
                cell.merge(n, "bounded", depth=bounded.depth, note=why)
    found = check_equivalences(spec, preset, players, proved) if equivalences and not overrides else []
    return PresetReport(preset, [(p.id, p.title, p.lemma) for p in props], cells, list(players),
                        deals_made, problems, notes, found, time.perf_counter() - start,
                        match=verify_match(ruleset, match_players or players))
