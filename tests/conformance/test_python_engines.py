"""One contract for Python engines: a class whose methods return exactly the protocol's result
objects gives the same results in process (python:MODULE:CLASS) and as a subprocess (cmd:), is
found in the current folder or a --path folder, even as a module named durak.py, and a result of
another shape is reported as out of protocol, saying what is expected."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from conformance_support import PYTHON, run_cases

from durak_spec.conformance.runner import Session
from durak_spec.conformance.transport import make_adapter

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial" / "my_engine.py"
SELECTION = ("--case", "draw/two_players_*", "--case", "transfer/three_players", "--case",
             "start/lowest_trump_two_players", "--variant", "perevodnoy")


def outcome(report) -> list:
    return [(c["case"], c["variant"], c["status"], c["step"], c["check"], c["rule"])
            for c in report["cases"]]


def test_the_tutorial_engine_named_durak_py_gives_the_same_results_both_ways(check, tmp_path):
    folder = tmp_path / "engine"
    folder.mkdir()
    shutil.copy(TUTORIAL, folder / "durak.py")
    in_process = check("--adapter", "python:durak:Engine", "--path", folder, *SELECTION)
    subprocess = check("--adapter", f"cmd:{PYTHON} {folder / 'durak.py'}", *SELECTION)
    assert in_process.exit_code == 0, in_process.output
    assert subprocess.exit_code == 0, subprocess.output
    assert outcome(in_process.report) == outcome(subprocess.report)
    assert len(in_process.report["cases"]) == 4
    assert f"--path {folder}" in in_process.report["cases"][0]["reproduce"]
    assert sys.modules["durak"].__file__ == str(folder / "durak.py")


def test_a_mutant_fails_alike_in_process_and_as_a_subprocess_with_the_same_rule(spec, shipped_suite):
    jobs = [(c, v) for c in shipped_suite.cases if c.id.startswith("rotation/") for v in c.variants]
    name = "attacker_again_after_take"
    # both runs' diagnoses search the same 945 option variants of the reference, compiled once
    # (reference_impl/diagnose.py variant_ruleset keeps those used last); the observations come
    # from the two engines
    # the searches stop at a count of variants, not a time: the two diagnoses compare whole
    in_process = run_cases(spec, f"python:durak_spec.conformance.examples.mutants:{name}", jobs)
    subprocess = run_cases(spec, f"cmd:{PYTHON} -m durak_spec.conformance.examples.mutants {name}",
                           jobs)
    failing = [r for r in in_process if r.status == "fail"]
    assert failing and {r.rule for r in failing} == {"rotation.after_take"}
    assert [(r.case, r.status, r.step, r.check, r.rule, r.diagnosis) for r in subprocess] == \
        [(r.case, r.status, r.step, r.check, r.rule, r.diagnosis) for r in in_process]


class BareList:
    """An engine that returns the bare list of actions from legal(), not the result object."""

    def __init__(self):
        from durak_spec.conformance.engine import ReferenceEngine
        self.inner = ReferenceEngine()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def legal(self):
        return self.inner.legal()["actions"]


def test_a_result_of_another_shape_is_out_of_protocol_and_says_what_is_expected(spec, shipped_suite):
    case = next(c for c in shipped_suite.cases if c.legal is not None)
    session = Session(spec, make_adapter("python:test_python_engines:BareList", spec=spec,
                                         paths=(str(Path(__file__).parent),)))
    session.open()
    result = session.run_case(case, case.variants[0])
    assert result.status == "error"
    assert "result of legal" in result.message and '{"actions": [...]}' in result.message


def test_a_missing_path_folder_is_a_usage_error(check, tmp_path):
    run = check("--adapter", "python:durak:Engine", "--path", tmp_path / "nowhere")
    assert run.exit_code == 2
