"""The verify report as its schema describes it: a real D1 comparison's entry, witness and
verdicts included, is valid, and an entry short of what a reader needs is not; so with the
boundary writer's results (--write-boundary)."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace

import jsonschema
import pytest
import yaml
import z3

from durak_spec.tools.verify import boundary, models
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


# -- --write-boundary: what the boundary writer did, per rule and verdict ----------------------

BOUNDARY_RULES = {"defence.take", "transfer.rank"}  # transfer.rank decides nothing in podkidnoy


@pytest.fixture(scope="module")
def boundary_report(spec, tmp_path_factory):
    root = tmp_path_factory.mktemp("cases")
    written, results = boundary.write_boundary_cases(spec, ["podkidnoy"], root, [2],
                                                     BOUNDARY_RULES)
    return root, written, verify_report([], 0, 0.0, {}, results)


def test_the_report_says_which_boundary_cases_were_written_and_which_skipped(spec,
                                                                             boundary_report):
    root, written, report = boundary_report
    assert _errors(report) == []
    entries = {(e["rule"], e["verdict"]): e for e in report["boundary"]}
    assert sorted(entries) == sorted((r, v) for r in BOUNDARY_RULES for v in ("accept", "reject"))
    files = []
    for (rule, verdict), entry in entries.items():
        named = [p for c in entry["cases"] for p in c["presets"]] + \
            [p for s in entry["skipped"] for p in s["presets"]]
        assert named == ["podkidnoy"], (rule, verdict)  # every preset once
        for c in entry["cases"]:
            case = yaml.safe_load((root / c["file"]).read_text())
            assert case["rules"] == [rule] and case["steps"][0]["expect"] == verdict
            assert case["variants"] == c["presets"] and case["generated"]["players"] == c["players"]
            files.append(root / c["file"])
    assert sorted(files) == sorted(written) and len(written) == 2
    for verdict in ("accept", "reject"):
        assert entries["transfer.rank", verdict]["skipped"] == [
            {"presets": ["podkidnoy"], "reason": boundary.INACTIVE, "gave_up": False}]


def test_a_verify_run_without_write_boundary_has_no_boundary_section():
    assert "boundary" not in verify_report([], 0, 0.0, {})


def test_where_the_boundary_search_gave_up_the_entry_says_so(spec, monkeypatch):
    monkeypatch.setattr(models.Cards, "solve", _no_cards)
    cases, results = boundary.generate(spec, ["podkidnoy"], [2], {"defence.take"})
    assert cases == []
    skips = [s for r in results for s in r["skipped"]]
    assert [s["gave_up"] for s in skips] == [True, True], skips
    assert all("gave up" in s["reason"] for s in skips)
    report = verify_report([], 0, 0.0, {}, results)
    assert _errors(report) == []
    assert [n.split(":")[0] for n in boundary.skip_notes(results)] == [
        "defence.take accept under podkidnoy", "defence.take reject under podkidnoy"]


@pytest.mark.parametrize("where,field,value", [
    ("entry", "rule", 1), ("entry", "verdict", "accepted"), ("entry", "cases", "dropped"),
    ("entry", "skipped", {}), ("case", "file", None), ("case", "presets", "podkidnoy"),
    ("case", "presets", []), ("case", "players", "2"), ("case", "players", 7),
    ("case", "file", "dropped"), ("skip", "gave_up", "no"), ("skip", "gave_up", "dropped"),
    ("skip", "reason", ["why"]), ("skip", "presets", [1]), ("report", "boundary", {})])
def test_a_boundary_entry_of_the_wrong_shape_is_refused(boundary_report, where, field, value):
    broken = copy.deepcopy(boundary_report[2])
    entries = {(e["rule"], e["verdict"]): e for e in broken["boundary"]}
    target = {"report": broken, "entry": entries["defence.take", "accept"],
              "case": entries["defence.take", "accept"]["cases"][0],
              "skip": entries["transfer.rank", "reject"]["skipped"][0]}[where]
    if value == "dropped":
        del target[field]
    else:
        target[field] = value
    assert _errors(broken)
