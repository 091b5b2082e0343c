"""Reports of a failing run: JSON that validates against its schema, JUnit XML with the failures
counted, self-contained HTML with want/have, and a reproduce command that reproduces the failure."""

from __future__ import annotations

import html
import json
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from conformance_support import BROKEN, FIXTURE_CASES, jobs_of

import durak_spec.conformance

REPORT_SCHEMA = Path(durak_spec.conformance.__file__).parent / "schemas" / "report.schema.json"
BEAT = next(b for b in BROKEN if b.rule == "defence.beat")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """One failing run (the engine with the wrong beat rule) written as JSON, JUnit and HTML."""
    from click.testing import CliRunner

    from durak_spec.tools.cli import cli
    root = tmp_path_factory.mktemp("reports")
    paths = {kind: root / f"report.{kind}" for kind in ("json", "xml", "html")}
    result = CliRunner().invoke(cli, [
        "check", "-q", "--cases-dir", str(FIXTURE_CASES), "--adapter", BEAT.python,
        "--report", str(paths["json"]), "--junit", str(paths["xml"]), "--html", str(paths["html"])])
    assert result.exit_code == 1, result.output
    return json.loads(paths["json"].read_text()), paths


def test_the_json_report_validates_and_has_one_entry_per_case_run(reports, fixture_suite):
    data, _ = reports
    jsonschema.Draft202012Validator(json.loads(REPORT_SCHEMA.read_text())).validate(data)
    runs = {(c["case"], c["variant"]) for c in data["cases"]}
    assert runs == {(c.id, v) for c, v in jobs_of(fixture_suite)}
    assert len(data["cases"]) == len(runs)
    counted = {s: sum(c["status"] == s for c in data["cases"]) for s in data["summary"]}
    assert counted == data["summary"] and data["summary"]["fail"] > 0


def test_a_failure_in_the_json_report_names_case_rules_step_want_and_have(reports):
    data, _ = reports
    failure = next(c for c in data["cases"] if c["case"] == "defence/cover_other_suit")
    assert failure["status"] == "fail" and failure["rules"] == ["defence.beat"]
    assert (failure["step"], failure["action"], failure["check"]) == \
        (1, "1 cover 9S with JC", "verdict")
    assert failure["want"] == "rejected by defence.beat" and failure["have"] == "accepted"


def test_the_junit_report_counts_the_failures(reports):
    data, paths = reports
    suites = ET.parse(paths["xml"]).getroot()
    testcases = suites.findall("testsuite/testcase")
    assert len(testcases) == len(data["cases"])
    failures = sum(int(s.get("failures")) for s in suites.findall("testsuite"))
    assert failures == data["summary"]["fail"] + data["summary"]["xpass"] > 0
    failed = {tc.get("name") for tc in testcases if tc.find("failure") is not None}
    assert failed == {c["case"] for c in data["cases"] if c["status"] == "fail"}


def test_the_html_report_is_self_contained_and_shows_want_have_and_reproduce(reports):
    data, paths = reports
    page = paths["html"].read_text()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|@import|url\(""", page)
    assert "http://" not in page and "https://" not in page
    for failure in (c for c in data["cases"] if c["status"] == "fail"):
        assert html.escape(json.dumps(failure["want"])) in page
        assert html.escape(json.dumps(failure["have"])) in page
        assert html.escape(failure["reproduce"]) in page


def test_the_reproduce_command_reproduces_exactly_that_failure(reports, check):
    data, _ = reports
    failure = next(c for c in data["cases"] if c["status"] == "fail")
    argv = shlex.split(failure["reproduce"])
    assert argv[:2] == ["durak", "check"]
    again = check(*argv[2:])
    assert again.exit_code == 1
    assert len(again.report["cases"]) == 1
    [rerun] = again.report["cases"]
    keep = ("case", "variant", "status", "rules", "step", "action", "check", "want", "have",
            "message", "reproduce")
    assert {k: rerun[k] for k in keep} == {k: failure[k] for k in keep}
