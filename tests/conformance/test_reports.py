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


def test_the_report_leads_with_one_problem_per_root_cause(reports):
    """The wrong beat rule fails many case runs; they are one problem under defence.beat, with
    its shortest run and no advice (no option makes a trump fail to beat)."""
    data, paths = reports
    failing = [c for c in data["cases"] if c["status"] == "fail"]
    beat = [p for p in data["problems"] if p["rule"] == "defence.beat"]
    assert len(failing) > len(data["problems"]) and len(beat) == 1
    assert sum(p["count"] for p in data["problems"]) == len(failing)
    [p] = beat
    assert p["advice"] is None and p["message"] == "no option explains this: rule defence.beat"
    shortest = min((c["step"], c["steps_run"]) for c in failing if c["rule"] == "defence.beat")
    assert (p["example"]["step"], p["example"]["case"] in p["cases"]) == (shortest[0], True)
    assert p["reproduce"].startswith("durak check --adapter ")
    page = paths["html"].read_text()
    assert page.index("id='problems'") < page.index("id='failures'")


def test_the_junit_report_counts_the_failures(reports):
    data, paths = reports
    suites = ET.parse(paths["xml"]).getroot()
    first, *runs = suites.findall("testsuite")
    assert first.get("name") == "problems"  # root causes lead, one failing test each
    assert [tc.find("failure") is not None for tc in first] == [True] * len(data["problems"])
    testcases = [tc for s in runs for tc in s.findall("testcase")]
    assert len(testcases) == len(data["cases"])
    failures = sum(int(s.get("failures")) for s in runs)
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


def _sections(page: str) -> tuple[str, str]:
    """The failures section and the table of every case run."""
    failures = page.index("<h2 id='failures'>")
    every = page.index("<h2 id='all'>")
    assert failures < every
    return page[failures:every], page[every:]


def test_the_html_report_opens_with_the_failures_grouped_by_rule(reports):
    data, paths = reports
    page = paths["html"].read_text()
    failures, every = _sections(page)
    failed = {c["case"] for c in data["cases"] if c["status"] == "fail"}
    # one entry per failing case, under its rule, with the variants it fails under
    assert failures.count("<details class='failure'") == len(failed)
    assert "<h3 id='rule-defence.beat'>" in failures
    for case in failed:
        variants = ", ".join(c["variant"] for c in data["cases"] if c["case"] == case)
        assert f"<code>{case}</code> <span class='variants'>under {variants}</span>" in failures
    # the counts link to the failures; rule ids link to their docs page
    assert f"<a class='fail' href='#failures'>{data['summary']['fail']} fail</a>" in page
    assert "<a href='docs/_generated/rules/defence.html#defence.beat'><code>defence.beat</code></a>" in page
    # every case run is a row, which the filter can hide when it passes
    assert every.count("<tr class='row-") == len(data["cases"])
    assert every.count("<tr class='row-pass'") == data["summary"]["pass"] > 0
    assert "id='hide-pass'" in every and "body.hide-pass tr.row-pass{display:none}" in page


def test_the_html_report_pictures_the_position_at_the_failing_step(reports):
    _, paths = reports
    failures, every = _sections(paths["html"].read_text())
    # defence/cover_other_suit fails at its step 1 (1 cover 9S with JC): the position before it
    # has 9S on the table, and both cards of the action are outlined.
    entry = failures[failures.index("<code>defence/cover_other_suit</code>"):]
    entry = entry[:entry.index("</details>")]
    assert "the position before step 1 (by the reference)" in entry
    svg = entry[entry.index("<svg"):entry.index("</svg>")]
    assert svg.count('stroke="#1f6fd1"') == 2  # 9S on the table and JC in seat 1's hand
    assert "<svg" not in every


def test_what_an_engine_sent_is_bounded_in_every_report():
    from durak_spec.conformance import report
    from durak_spec.conformance.runner import Result

    huge = Result("a/b", "podkidnoy", "fail", check="legal", step=0, action="0 attack 9S",
                  want=["1 take"], have=[f"0 attack 6S #{i}" for i in range(1_000_000)],
                  message="x" * 1_000_000, rules=["defence.beat"], area="defence")
    meta = {"adapter": "x", "engine": {"name": "e" * 100_000}, "seconds": 1}
    assert len(json.dumps(report.report_json([huge], meta))) < 60_000
    assert len(report.junit_text([huge], meta)) < 60_000
    assert len(report.html_text([huge], meta)) < 80_000


def test_a_handshake_failure_still_writes_every_report_with_the_error(tmp_path):
    from click.testing import CliRunner

    from durak_spec.tools.cli import cli
    paths = {k: tmp_path / f"r.{k}" for k in ("json", "xml", "html")}
    adapter = "cmd:/nonexistent/engine --json"
    result = CliRunner().invoke(cli, ["check", "-q", "--cases-dir", str(FIXTURE_CASES),
                                      "--adapter", adapter, "--report", str(paths["json"]),
                                      "--junit", str(paths["xml"]), "--html", str(paths["html"])])
    assert result.exit_code == 2 and "can't start it" in result.output
    assert "can't start it" in json.loads(paths["json"].read_text())["error"]
    [case] = ET.parse(paths["xml"]).getroot().findall("testsuite/testcase")
    assert case.get("name") == "handshake" and "can't start it" in case.find("error").get("message")
    assert "The engine did not start" in paths["html"].read_text()


@pytest.mark.parametrize("bad", ["no/such/folder/r.json", "."])
def test_a_bad_report_path_is_refused_before_the_run_and_loses_nothing(bad, tmp_path, check):
    good = tmp_path / "r.xml"
    run = check("--cases-dir", FIXTURE_CASES, "--junit", good, "--html", bad)
    assert run.exit_code == 2 and "--html .: is a folder; give a file" in run.output if bad == "." else \
        f"can't write the report {bad}: its folder no/such/folder does not exist" in run.output
    assert run.report is None and not good.exists()  # nothing ran


def test_a_report_that_fails_to_write_does_not_discard_the_others(tmp_path, monkeypatch):
    from durak_spec.conformance import report
    from durak_spec.conformance.runner import Result

    def full(path, *args):
        raise OSError(28, "No space left on device")

    monkeypatch.setitem(report.WRITERS, "json", full)
    paths = {"json": tmp_path / "r.json", "junit": tmp_path / "r.xml", "html": tmp_path / "r.html"}
    problems = report.write_reports(paths, [Result("a/b", "podkidnoy", "pass")],
                                    {"adapter": "x", "engine": {}})
    assert problems == [f"can't write {paths['json']}: No space left on device"]
    assert paths["junit"].exists() and paths["html"].exists()


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


def test_report_files_get_the_mode_of_any_new_file(reports):
    import os
    import stat

    mask = os.umask(0o22)
    os.umask(mask)
    for path in reports[1].values():  # mkstemp's 0600 made them unreadable by others
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask, path


def test_a_failure_s_diagnosis_reads_as_words(reports):
    from durak_spec.conformance.report import diagnosis_text

    data, paths = reports
    diagnosed = [c for c in data["cases"] if c.get("diagnosis")]
    assert diagnosed
    words = diagnosis_text(diagnosed[0]["diagnosis"])
    assert words.startswith("rule defence.beat decides the ") and "{" not in words, words
    page = paths["html"].read_text()
    assert html.escape(words, quote=True) in page or html.escape(words, quote=False) in page
    assert "diagnosis: {" not in page and "&#x27;rule&#x27;:" not in page
