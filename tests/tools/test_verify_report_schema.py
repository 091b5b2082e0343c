"""The verify report's D1 equivalences as its schema describes them: a real comparison's entry,
witness and verdicts included, is valid, and an entry short of what a reader needs is not."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace

import jsonschema
import pytest
import z3

from durak_spec.tools.verify import models
from durak_spec.tools.verify.equiv import compare
from durak_spec.tools.verify.invariants import STEPS, Induction, properties
from durak_spec.tools.verify.report import SCHEMA, verify_report
from durak_spec.tools.verify.run import Cell


@pytest.fixture(scope="module")
def report(spec):
    ruleset = spec.ruleset("podkidnoy")
    proved = Induction(ruleset, 2, properties(ruleset)).houdini()[0]
    found = [compare(spec, "podkidnoy", {}, "start_of_bout", b, [2], lambda n: proved)
             for b in ("unbeaten_le_current", "total_le_current")]
    preset = SimpleNamespace(preset="podkidnoy", players={2}, twin=None, seconds=0.0, problems=[],
                             notes=[], props=[], cells={}, equivalences=found, match=None)
    return verify_report([preset], 0, 0.0, {})


def _errors(report) -> list:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    return list(validator.iter_errors(report))


def test_a_real_comparison_with_and_without_a_witness_is_valid(report):
    entries = report["presets"][0]["equivalences"]
    assert [e["witness"] is None for e in entries] == [True, False]
    assert entries[1]["witness"]["interpreter"]["total_le_current"] == "limits.total_le_hand"
    assert _errors(report) == []


@pytest.mark.parametrize("field,value", [("witness", "dropped"), ("interpreter_agrees", "yes"),
                                         ("equal_players", [1]), ("actions", []),
                                         ("z3", {"total_le_current": "no"}), ("setup", "dropped"),
                                         ("gave_up", "dropped"), ("gave_up", "2"),
                                         ("gave_up", ["2"]), ("gave_up", [1])])
def test_an_equivalence_short_of_what_a_reader_needs_is_refused(report, field, value):
    broken = copy.deepcopy(report)
    entry = broken["presets"][0]["equivalences"][1]
    where = entry["witness"] if field in ("actions", "z3", "setup") else entry
    if value == "dropped":
        del where[field]
    else:
        where[field] = value
    assert _errors(broken)


def test_where_a_search_gave_up_the_entry_says_so_apart_from_its_note(spec, monkeypatch):
    """A reader tells "proved unreachable" from "the search gave up" by a field, not by the
    note's words: the player counts where the D1 witness search gave up (Finding.gave_up), and
    per invariant and step those where the counterexample search did (Cell.gave_up)."""
    ruleset = spec.ruleset("podkidnoy")
    proved = Induction(ruleset, 2, properties(ruleset)).houdini()[0]
    monkeypatch.setattr(models.Cards, "solve", _no_cards)
    found = compare(spec, "podkidnoy", {}, "start_of_bout", "total_le_current", [2],
                    lambda n: proved)
    assert found.witness is None and found.gave_up == [2]
    cell = Cell("bounded", [2, 3], depth=4, note="...", gave_up=[3])
    preset = SimpleNamespace(preset="podkidnoy", players={2}, twin=None, seconds=0.0, problems=[],
                             notes=[], props=[("p", "P", False)], cells={("p", s): cell for s in STEPS},
                             equivalences=[found], match=None)
    report = verify_report([preset], 0, 0.0, {})
    entry = report["presets"][0]
    assert entry["equivalences"][0]["gave_up"] == [2]
    assert all(c["gave_up"] == [3] for c in entry["invariants"][0]["steps"].values())
    assert _errors(report) == []
    for bad in ("3", ["3"], [7]):
        broken = copy.deepcopy(report)
        broken["presets"][0]["invariants"][0]["steps"]["attack"]["gave_up"] = bad
        assert _errors(broken)


def _no_cards(self):
    self.result = z3.unknown
    return None
