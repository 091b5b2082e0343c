"""The pytest plugin (tools/pytest_plugin.py, entry point pytest11 `durak`): in a folder of its own
with durak-spec installed, `pytest --durak-adapter ADAPTER` makes each selected case run a test
item RULE::CASE[PRESET] that fails with durak check's own message; known failures xfail, a run
that tested too little is not green, and without the option the plugin loads nothing."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from durak_spec.tools.cli import cli

NO_CAP = "python:durak_spec.conformance.examples.broken_no_cap:NoAttackCap"


def pytest_in(folder, *args) -> subprocess.CompletedProcess:
    """pytest run in `folder`, a project of someone else's: no conftest, no settings of ours."""
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA",
                           *map(str, args)], cwd=folder, capture_output=True, text=True,
                          timeout=600, check=False)


def test_without_the_adapter_option_the_plugin_imports_nothing_of_durak_spec(tmp_path):
    (tmp_path / "test_theirs.py").write_text(
        "import sys\n\n"
        "def test_their_own():\n"
        "    loaded = sorted(m for m in sys.modules if m.startswith('durak_spec'))\n"
        "    assert loaded == ['durak_spec', 'durak_spec.tools', 'durak_spec.tools.pytest_plugin']\n")
    run = pytest_in(tmp_path)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "PASSED test_theirs.py::test_their_own" in run.stdout
    assert "--durak-adapter=ADAPTER" in pytest_in(tmp_path, "--help").stdout


def test_each_case_run_is_an_item_named_by_rule_case_and_preset_failing_as_check_fails(tmp_path):
    cases = ("--durak-case", "limits/seventh_card", "--durak-case", "limits/after_take_unbounded")
    run = pytest_in(tmp_path, "--durak-adapter", NO_CAP, "--durak-variant", "podkidnoy", *cases)
    assert run.returncode == 1, run.stdout[-3000:]
    assert "FAILED limits.cap::limits/seventh_card[podkidnoy]" in run.stdout
    assert "PASSED limits.cap::limits/after_take_unbounded[podkidnoy]" in run.stdout
    assert "durak-spec: 2 case runs" in run.stdout and "1 pass, 1 fail" in run.stdout
    checked = CliRunner().invoke(cli, ["check", "-q", "--adapter", NO_CAP, "--variant", "podkidnoy",
                                       "--case", "limits/seventh_card"])
    assert checked.exit_code == 1
    block = checked.output[checked.output.index("FAIL limits/seventh_card"):]
    block = block[:block.index("\n", block.index("reproduce:"))]
    assert block.count("\n") >= 4 and block in run.stdout
    # the problems close the run, as they open check's summary
    problem = checked.output[checked.output.index("PROBLEM 1"):checked.output.index("The failing")]
    assert problem.strip() in run.stdout


def test_a_known_failure_xfails_and_one_that_passes_fails(tmp_path):
    known = tmp_path / "known.yaml"
    known.write_text("known_failures:\n  limits/seventh_card: no cap yet\n"
                     "  limits/after_take_unbounded: thought to fail\n")
    run = pytest_in(tmp_path, "--durak-adapter", NO_CAP, "--durak-variant", "podkidnoy",
                    "--durak-known-failures", known, "--durak-rule", "limits.cap",
                    "--durak-case", "limits/seventh_card", "--durak-case", "limits/after_take_unbounded")
    assert run.returncode == 1, run.stdout[-3000:]
    assert "XFAIL limits.cap::limits/seventh_card[podkidnoy]" in run.stdout
    assert "FAILED limits.cap::limits/after_take_unbounded[podkidnoy]" in run.stdout
    assert "XPASS limits/after_take_unbounded @ podkidnoy" in run.stdout


def test_a_run_that_skipped_most_case_runs_is_not_green(tmp_path):
    engine = "python:durak_spec.conformance.examples.style_silent:SilentEngine"  # deals only
    run = pytest_in(tmp_path, "--durak-adapter", engine, "--durak-variant", "podkidnoy",
                    "--durak-case", "limits/after_take_unbounded")
    assert run.returncode == 1, run.stdout[-3000:]
    assert "SKIPPED" in run.stdout
    assert "TESTED TOO LITTLE: most case runs were skipped (1 of 1)" in run.stdout


def test_a_mistake_in_the_options_is_one_line_and_no_traceback(tmp_path):
    for args, said in ((("--durak-adapter", NO_CAP, "--durak-variant", "podkidnoi"),
                        "unknown preset 'podkidnoi'"),
                       (("--durak-adapter", "nonsense"), "--durak-adapter: "),
                       (("--durak-adapter", NO_CAP, "--durak-known-failures", tmp_path / "none.yaml"),
                        "none.yaml")):
        run = pytest_in(tmp_path, *args)
        assert run.returncode == 4, run.stdout[-2000:] + run.stderr[-2000:]
        assert said in run.stderr and "Traceback" not in run.stderr + run.stdout
