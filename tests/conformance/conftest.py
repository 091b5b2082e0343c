"""Fixtures for the conformance tests: `durak check` in process, and the loaded suites."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from click.testing import CliRunner
from conformance_support import ANSWER_TIMEOUT, FIXTURE_CASES

from durak_spec.conformance.cases import load_suite
from durak_spec.tools.cli import cli


@dataclass
class CheckRun:
    exit_code: int
    output: str
    report: dict | None

    def statuses(self) -> dict:
        """{(case id, variant): status} from the JSON report."""
        return {(c["case"], c["variant"]): c["status"] for c in self.report["cases"]}

    def result(self, case: str, variant: str = "podkidnoy") -> dict:
        return next(c for c in self.report["cases"] if (c["case"], c["variant"]) == (case, variant))


@pytest.fixture
def check(tmp_path):
    """Run `durak check -q ARGS --report FILE` in process: exit code, output and the report.

    Each answer gets ANSWER_TIMEOUT seconds (conformance_support) unless the test gives its own
    --timeout or asks for the command's default (`default_timeout=True`)."""
    def run(*args, default_timeout: bool = False) -> CheckRun:
        path = tmp_path / "report.json"
        path.unlink(missing_ok=True)
        timeout = () if default_timeout or "--timeout" in args else ("--timeout", f"{ANSWER_TIMEOUT:g}")
        result = CliRunner().invoke(cli, ["check", "-q", *map(str, args), *timeout,
                                          "--report", str(path)])
        assert "Traceback" not in result.output, result.output
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return CheckRun(result.exit_code, result.output,
                        json.loads(path.read_text()) if path.exists() else None)
    return run


@pytest.fixture(scope="session")
def fixture_suite(spec):
    suite = load_suite(spec, FIXTURE_CASES)
    assert suite.cases and not suite.broken, suite.broken
    return suite


@pytest.fixture(scope="session")
def shipped_suite(spec):
    return load_suite(spec)
