"""`durak check` answers fast: usage errors before anything is read, and only the selected cases
read (issue 20, "a fast first answer")."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import time

import pytest
from cli_support import run

from durak_spec.conformance import cases as cases_module
from durak_spec.conformance.cases import CASES_DIR, load_suite
from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.conformance.protocol import check_result
from durak_spec.tools import check as check_module

ONE = "attack/open_any_card"


@pytest.fixture
def loads(monkeypatch):
    """What `durak check` read: 'spec' and 'cases' each time it loads either."""
    seen = []
    real_load, real_suite = check_module._load, check_module.load_suite
    monkeypatch.setattr(check_module, "_load", lambda ctx: seen.append("spec") or real_load(ctx))
    monkeypatch.setattr(check_module, "load_suite",
                        lambda *a, **k: seen.append("cases") or real_suite(*a, **k))
    return seen


@pytest.mark.parametrize("args, message", [
    (["--adapter", "bogus"], "unknown adapter 'bogus'"),
    (["--adapter", "python:only_a_module"], "python:MODULE:CLASS"),
    (["--adapter", "cmd:"], "cmd: needs a command line"),
    (["--adapter", "cmd:engine 'unclosed"], "No closing quotation"),
    (["--timeout", "nan"], "positive, finite number of seconds"),
    (["--timeout", "inf"], "positive, finite number of seconds"),
    (["--timeout", "soon"], "is not a number of seconds"),
    (["--deadline", "-1"], "positive, finite number of seconds"),
    (["--option", "max_attack"], "--option takes NAME=VALUE"),
    (["--report", "/nonexistent/folder/r.json"], "can't write the report"),
])
def test_usage_errors_are_reported_before_the_spec_or_a_case_is_read(loads, args, message):
    result = run("check", "-q", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert loads == []


def test_a_preset_typo_is_reported_before_any_case_is_read(loads):
    result = run("check", "-q", "--variant", "podkidnoi")
    assert result.exit_code == 2 and "unknown preset 'podkidnoi'" in result.output
    assert loads == ["spec"]


def test_selecting_cases_by_id_reads_only_their_files(spec, monkeypatch):
    read = []
    real = cases_module.load_file
    monkeypatch.setattr(cases_module, "load_file", lambda p, raw=None: read.append(p) or real(p, raw))
    cases_module._CACHE.clear()
    suite = load_suite(spec, ids=(ONE,), trust=False)  # not from the index
    assert [c.id for c in suite.cases] == [ONE]
    assert [p.relative_to(CASES_DIR).as_posix() for p in read] == [f"{ONE}.yaml"]
    read.clear()
    cases_module._CACHE.clear()
    suite = load_suite(spec, ids=("attack/open_*",), trust=False)
    assert {c.id for c in suite.cases} == {ONE, "attack/open_on_table"}
    assert len(read) == 2


def test_a_broken_case_outside_the_selection_does_not_fail_the_run(tmp_path):
    shutil.copytree(CASES_DIR / "attack", tmp_path / "attack")
    (tmp_path / "attack" / "broken.yaml").write_text("id: [unclosed\n")
    result = run("check", "-q", "--cases-dir", tmp_path, "--case", ONE)
    assert result.exit_code == 0, result.output
    assert "BROKEN" not in result.output
    result = run("check", "-q", "--cases-dir", tmp_path, "--case", "attack/*")
    assert result.exit_code == 1 and "BROKEN CASE FILE" in result.output


HEAVY = ("z3", "hypothesis", "sphinx", "jsonschema", "durak_spec.tools.verify", "durak_spec.conformance.fuzz")


def imported_by(*args) -> set[str]:
    """The heavy modules `durak ARGS` imports, run in a fresh interpreter."""
    code = ("import sys\nfrom durak_spec.tools.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         timeout=120)
    return set(ast.literal_eval(out.stderr.strip().splitlines()[-1]))


def test_durak_version_imports_no_command():
    assert imported_by("--version") == set()


def test_checking_one_case_on_the_reference_imports_no_validator_prover_or_fuzzer():
    assert imported_by("check", "-q", "--case", ONE, "--variant", "podkidnoy") == set()


def test_the_reference_hello_that_check_trusts_holds_to_the_schema(spec):
    hello = ReferenceEngine(spec).hello()
    assert check_result("hello", hello) is None
    assert check_result("hello", {**hello, "levels": "all"}) is not None  # the check can fail


def test_the_summary_gives_the_whole_command_s_time(monkeypatch):
    real_load = check_module._load

    def slow_load(ctx):  # loading that takes a second, before any case runs
        time.sleep(1.0)
        return real_load(ctx)

    monkeypatch.setattr(check_module, "_load", slow_load)
    result = run("check", "-q", "--case", ONE, "--variant", "podkidnoy")
    assert result.exit_code == 0, result.output
    total, running = re.search(r"case runs in ([\d.]+) s \(([\d.]+) s running them", result.output).groups()
    assert float(total) >= 1.0 and float(running) < float(total)
