"""The runner survives bad engines and bad input: a crashing, hanging, exiting, flooding, lying or
garbage-printing engine errors the case it broke, is restarted, and the run goes on to write its
report; ledgers, selections and declared capabilities decide what runs and how it counts."""

from __future__ import annotations

import json
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conformance_support import BROKEN, FIXTURE_CASES, PYTHON, jobs_of, misbehaving

from durak_spec.conformance import transport
from durak_spec.conformance.runner import Selection, Session
from durak_spec.conformance.transport import (
    START_TIMEOUT,
    STDERR_TAIL,
    AdapterError,
    CmdAdapter,
    EngineFault,
    make_adapter,
)

# The engine misbehaves at this action, which only defence/cover_other_suit plays; the cases
# before and after it in the run must pass.
TRIGGER = "1 cover 9S with JC"
FAULTY = "defence/cover_other_suit"
TIMEOUT = "5"  # answers, and the handshake (python startup on a busy machine)
# what the report says happened, per mode
FAULTS = {
    "crash": ("engine crash:", "EngineCrash"),
    "hang": ("engine hang:", f"no answer to apply within {TIMEOUT} s"),
    "exit": ("engine exit:", "exited (code 0)"),
    "garbage": ("engine garbage:", "non-JSON"),
    "flood": ("engine flood:", "without a newline"),
    "wrong-id": ("engine protocol:", "answered id"),
    "both": ("engine protocol:", "(schema response.json)"),
    "missing-keys": ("engine protocol:", "(schema response.json)"),
    "bad-result": ("engine protocol:", "(schema result-apply.json)"),
    "orphan": ("engine exit:", "a process it started still held its stdout"),
}
ORPHAN_MARK = f"durak-orphan-{os.getpid()}"


@pytest.fixture(scope="module")
def fault_runs(tmp_path_factory):
    """`durak check` as a real process against the misbehaving engine in every mode, run side by
    side (each spends most of its time waiting on its engine):
    {mode: (exit code, stdout, stderr, report)}. A hang of the runner fails on the timeout."""
    root = tmp_path_factory.mktemp("faults")

    def run(mode):
        report = root / f"{mode}.json"
        argv = [PYTHON, "-c", "from durak_spec.tools.cli import main; main()", "check", "-q",
                "--cases-dir", str(FIXTURE_CASES), "--case", "defence/*", "--timeout", TIMEOUT,
                "--report", str(report), "--adapter", misbehaving(mode, "--on", TRIGGER)]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "DURAK_ORPHAN_MARK": ORPHAN_MARK})
        data = json.loads(report.read_text()) if report.exists() else None
        return mode, (proc.returncode, proc.stdout, proc.stderr, data)

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(pool.map(run, FAULTS))


@pytest.mark.parametrize("mode", FAULTS)
def test_a_misbehaving_engine_errors_one_case_and_the_run_goes_on(mode, fault_runs, fixture_suite):
    code, stdout, stderr, report = fault_runs[mode]
    assert "Traceback" not in stderr, stderr  # the engine's traceback is in the report, not ours
    assert code == 1, stdout + stderr
    assert report is not None, "the report was not written"
    statuses = {c["case"]: c["status"] for c in report["cases"]}
    assert statuses == {c.id: ("error" if c.id == FAULTY else "pass")
                        for c in fixture_suite.cases if c.id.startswith("defence/")}
    faulty = next(c for c in report["cases"] if c["case"] == FAULTY)
    what, detail = FAULTS[mode]
    assert faulty["message"].startswith(what) and detail in faulty["message"], faulty["message"]
    assert faulty["message"].endswith("restarted") or mode == "crash"
    assert report["restarts"] == 1


def test_an_engine_s_children_are_killed_with_it(fault_runs):
    assert fault_runs["orphan"][0] == 1
    left = [p for p in Path("/proc").glob("[0-9]*")
            if ORPHAN_MARK.encode() in _cmdline(p)]
    assert not left, "the engine's child outlived the run"


def _marked(mark: str) -> list[Path]:
    return [p for p in Path("/proc").glob("[0-9]*") if mark.encode() in _cmdline(p)]


def _proc_lists_new_sessions() -> str | None:
    """Why this machine's /proc cannot show a process that left its session, or None when it
    can: the runner finds such processes there, so where /proc hides them (a sandbox with its own
    view of processes) there is nothing to test."""
    mark = f"durak-probe-{os.getpid()}-{time.monotonic_ns()}"
    probe = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(60)", mark],
                             start_new_session=True, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 5
        while not _marked(mark) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _marked(mark):
            return None
        listed = sum(1 for _ in Path("/proc").glob("[0-9]*"))
        return (f"/proc lists {listed} processes but not pid {probe.pid}, a process this test "
                f"started in a new session")
    finally:
        probe.kill()
        probe.wait()


def test_a_process_that_left_the_engine_s_session_is_killed_with_it(spec, monkeypatch):
    """setsid puts a grandchild out of the engine's process group, where killpg misses it."""
    hidden = _proc_lists_new_sessions()
    if hidden:
        pytest.skip(f"the runner finds escaped processes under /proc; {hidden}")
    mark = f"durak-escape-{os.getpid()}"
    monkeypatch.setenv("DURAK_ORPHAN_MARK", mark)
    adapter = CmdAdapter(misbehaving("escape")[4:], timeout=30)
    adapter.open()
    try:
        setup = {"hands": [["6S", "8C", "TD", "QS", "KC", "AD"], ["7S", "9C", "JD", "QH", "KS", "AC"]],
                 "talon": ["7C", "8D", "9S", "6H"], "trump": "6H"}
        assert adapter.call("start", variant={"preset": "podkidnoy", "options": {}},
                            setup=setup).kind == "result"
        first = adapter.call("legal").value["actions"][0]
        assert adapter.call("apply", action=first).value["accepted"] is True
        deadline = time.monotonic() + 5
        while not _marked(mark) and time.monotonic() < deadline:
            time.sleep(0.05)
        escaped = _marked(mark)
        assert escaped, "the engine started no process"
    finally:
        adapter.close()
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in escaped) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in escaped), "a process the engine started outlived it"


def _alive(proc: Path) -> bool:
    try:
        return (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


# In process the timeout also covers compiling a variant's rules on `start`: give it room on a
# busy machine.
PY_TIMEOUT = "5"
PYTHON_FAULTS = {
    "sys-exit": "engine exit: the engine called sys.exit(0) in apply; restarted",
    "os-exit": "engine exit: the engine called os._exit(0) in apply; restarted",
    "hang": f"engine hang: no answer to apply within {PY_TIMEOUT} s; restarted",
    "spin": f"engine hang: no answer to apply within {PY_TIMEOUT} s; restarted",
}


@pytest.fixture(scope="module")
def python_fault_runs(tmp_path_factory):
    """`durak check` as a real process against the in-process misbehaving engine."""
    root = tmp_path_factory.mktemp("python-faults")

    def run(mode):
        report = root / f"{mode}.json"
        argv = [PYTHON, "-c", "from durak_spec.tools.cli import main; main()", "check", "-q",
                "--cases-dir", str(FIXTURE_CASES), "--case", "defence/*", "--timeout", PY_TIMEOUT,
                "--report", str(report), "--adapter",
                "python:durak_spec.conformance.examples.misbehaving_engine:MisbehavingEngine"]
        env = {**os.environ, "DURAK_MISBEHAVE": mode, "DURAK_MISBEHAVE_ON": TRIGGER}
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
        data = json.loads(report.read_text()) if report.exists() else None
        return mode, (proc.returncode, proc.stdout + proc.stderr, data)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, PYTHON_FAULTS))


@pytest.mark.parametrize("mode", PYTHON_FAULTS)
def test_an_in_process_engine_that_exits_or_hangs_errors_one_case(mode, python_fault_runs,
                                                                    fixture_suite):
    code, output, report = python_fault_runs[mode]
    assert code == 1 and report is not None, output  # not a silent exit 0: a false pass
    statuses = {c["case"]: c["status"] for c in report["cases"]}
    assert statuses == {c.id: ("error" if c.id == FAULTY else "pass")
                        for c in fixture_suite.cases if c.id.startswith("defence/")}
    faulty = next(c for c in report["cases"] if c["case"] == FAULTY)
    assert faulty["message"] == PYTHON_FAULTS[mode]


@pytest.mark.parametrize("mode, message", [
    ("interrupt", "engine crash: the engine raised KeyboardInterrupt in apply; restarted"),
    ("huge", "engine flood: answered apply with more than 1,000,000 bytes of JSON; restarted"),
    ("not-json", "engine garbage: answered apply with a set, which JSON cannot carry; restarted"),
])
def test_an_in_process_engine_is_held_to_what_a_subprocess_could_do(mode, message, check,
                                                                    monkeypatch):
    """Its own KeyboardInterrupt is its fault, not a Ctrl-C that stops the run; its results
    are bounded and JSON, as an answer line is."""
    monkeypatch.setenv("DURAK_MISBEHAVE", mode)
    monkeypatch.setenv("DURAK_MISBEHAVE_ON", TRIGGER)
    run = check("--cases-dir", FIXTURE_CASES, "--case", "defence/cover_*", "--timeout", "30",
                "--adapter", "python:durak_spec.conformance.examples.misbehaving_engine:"
                             "MisbehavingEngine")
    assert run.exit_code == 1 and not run.report.get("interrupted"), run.output
    statuses = {c["case"]: (c["status"], c["message"]) for c in run.report["cases"]}
    assert statuses.pop(FAULTY) == ("error", message)
    assert statuses and {s for s, _ in statuses.values()} == {"pass"}


def test_the_handshake_waits_as_long_as_an_explicit_timeout_says(spec):
    adapter = make_adapter(misbehaving("slow-start", "--delay", "30"), 0.5, spec)
    t0 = time.monotonic()
    with pytest.raises(EngineFault, match="no answer to hello within 0.5 s"):
        adapter.open()
    assert time.monotonic() - t0 < 5 and adapter.proc is None
    assert make_adapter(misbehaving("slow-start"), None, spec).start_timeout == START_TIMEOUT


def test_an_engine_listing_millions_of_legal_actions_is_a_flood_stored_small(check, monkeypatch,
                                                                             tmp_path):
    monkeypatch.setenv("DURAK_MISBEHAVE", "many-legal")
    run = check("--cases-dir", FIXTURE_CASES, "--case", "defence/*", "--timeout", "30",
                "--html", tmp_path / "r.html",
                "--adapter", "python:durak_spec.conformance.examples.misbehaving_engine:"
                             "MisbehavingEngine")
    assert run.exit_code == 1
    flooded = [c for c in run.report["cases"] if c["status"] == "error"]
    assert flooded and all("listed more than 10,000 legal actions" in c["message"]
                           for c in flooded)
    assert len(json.dumps(run.report)) < 100_000
    assert (tmp_path / "r.html").stat().st_size < 200_000


def test_a_cmd_engine_s_stderr_is_kept_as_a_bounded_tail():
    adapter = CmdAdapter(misbehaving("stderr")[4:], timeout=5)
    try:
        adapter.open()
        for _ in range(5):  # 5 MB written to stderr in all
            assert adapter.call("hello", protocol="1").kind == "result"
        assert len(adapter._stderr) <= 2 * STDERR_TAIL
        assert adapter.stderr_tail(100).endswith("e" * 50)
    finally:
        adapter.close()


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_a_timeout_that_is_not_positive_is_a_usage_error(value, check):
    run = check("--cases-dir", FIXTURE_CASES, "--timeout", value)
    assert run.exit_code == 2 and "--timeout" in run.output, run.output


def test_a_crash_report_carries_the_engine_s_stderr(fault_runs):
    report = fault_runs["crash"][3]
    faulty = next(c for c in report["cases"] if c["case"] == FAULTY)
    assert "exited (code 1)" in faulty["message"]
    assert "crashing on purpose" in faulty["message"]  # the last line of its traceback


def test_a_slow_starting_engine_gets_more_than_the_answer_timeout_for_its_handshake(
        check, monkeypatch):
    # without --timeout, answers get DEFAULT_TIMEOUT and the handshake START_TIMEOUT
    monkeypatch.setattr(transport, "DEFAULT_TIMEOUT", 0.5)
    run = check("--cases-dir", FIXTURE_CASES, "--case", "defence/cover_with_trump",
                "--adapter", misbehaving("slow-start", "--delay", "1.5"), default_timeout=True)
    assert run.exit_code == 0, run.output
    assert set(run.statuses().values()) == {"pass"}


def test_an_engine_that_never_completes_the_handshake_is_a_setup_error(spec):
    adapter = CmdAdapter(misbehaving("slow-start", "--delay", "30")[4:], timeout=0.2,
                         start_timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises(AdapterError, match="did not complete the handshake: hang: no answer to "
                                           "hello within 0.5 s"):
        Session(spec, adapter).open()
    assert time.monotonic() - t0 < 10
    assert adapter.proc is None  # killed, not left behind


@pytest.mark.parametrize("adapter, message", [
    ("python:durak_spec.conformance.examples", "python:MODULE:CLASS"),
    ("python:no_such_module_here:Engine", "can't import no_such_module_here"),
    ("python:durak_spec.conformance.examples.broken_no_cap:NoSuchClass", "has no NoSuchClass"),
    ("java:Engine", "unknown adapter 'java:Engine'"),
    ("cmd:", "cmd: needs a command line"),
    ("cmd:/nonexistent/durak-engine --fast", "can't start it"),
    ("cmd:python -c 'unbalanced", "No closing quotation"),
])
def test_an_adapter_that_cannot_be_set_up_is_one_line_and_exit_2(adapter, message, check):
    run = check("--cases-dir", FIXTURE_CASES, "--adapter", adapter)
    assert run.exit_code == 2
    lines = run.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.output
    # An engine that could not start still gets its reports (CI reads them), saying why.
    assert run.report is None or (message in run.report["error"] and run.report["cases"] == [])


NO_CAP = BROKEN[0]


def test_a_known_failure_is_xfail_and_the_run_exits_0(check, tmp_path):
    ledger = tmp_path / "known.yaml"
    ledger.write_text("known_failures:\n  limits/seventh_card: our engine has no attack cap yet\n")
    run = check("--cases-dir", FIXTURE_CASES, "--adapter", NO_CAP.python,
                "--known-failures", ledger)
    assert run.exit_code == 0, run.output
    xfail = run.result("limits/seventh_card")
    assert xfail["status"] == "xfail" and "our engine has no attack cap yet" in xfail["message"]
    assert set(run.statuses().values()) == {"pass", "xfail"}


def test_a_known_failure_that_passes_is_xpass_and_the_run_exits_1(check, tmp_path):
    ledger = tmp_path / "known.yaml"
    ledger.write_text("known_failures:\n"
                      "  limits/seventh_card: no attack cap\n"
                      "  defence/cover_other_suit@podkidnoy: we once let any suit beat\n")
    run = check("--cases-dir", FIXTURE_CASES, "--adapter", NO_CAP.python,
                "--known-failures", ledger)
    assert run.exit_code == 1
    xpass = run.result("defence/cover_other_suit")
    assert xpass["status"] == "xpass" and "passes now" in xpass["message"]
    assert run.result("limits/seventh_card")["status"] == "xfail"


def test_a_malformed_known_failures_file_is_one_line_and_exit_2(check, tmp_path):
    ledger = tmp_path / "known.yaml"
    ledger.write_text("known_failures:\n  limits/seventh_card:\n")
    run = check("--cases-dir", FIXTURE_CASES, "--known-failures", ledger)
    assert run.exit_code == 2 and "known_failures.limits/seventh_card" in run.output
    assert len(run.output.strip().splitlines()) == 1


def picked(fixture_suite, **selection) -> set:
    return {(c.id, v) for c, v in jobs_of(fixture_suite, Selection(**selection))}


@pytest.mark.parametrize("args, selection", [
    (["--case", "defence/*"], {"cases": ("defence/*",)}),
    (["--case", "limits/seventh_card", "--case", "draw/*"],
     {"cases": ("limits/seventh_card", "draw/*")}),
    (["--rule", "defence.beat"], {"rules": ("defence.beat",)}),
    (["--rule", "limits"], {"rules": ("limits",)}),
    (["--variant", "perevodnoy"], {"variants": ("perevodnoy",)}),
])
def test_the_selection_options_pick_the_cases_they_name(args, selection, check, fixture_suite):
    want = picked(fixture_suite, **selection)
    assert want and want != picked(fixture_suite)  # a real subset
    run = check("--cases-dir", FIXTURE_CASES, *args)
    assert run.exit_code == 0, run.output
    assert set(run.statuses()) == want


def test_the_area_option_picks_the_cases_of_that_rule_area(check, fixture_suite):
    want = picked(fixture_suite, areas=("transfer",))
    run = check("--cases-dir", FIXTURE_CASES, "--area", "transfer")
    assert run.exit_code == 0, run.output
    assert want and set(run.statuses()) == want


def test_a_selection_that_matches_nothing_is_exit_2(check):
    run = check("--cases-dir", FIXTURE_CASES, "--case", "no_such_area/*")
    assert run.exit_code == 2 and "matches no case" in run.output


def test_cases_the_engine_cannot_play_are_skipped_with_the_reason(check, fixture_suite):
    run = check("--cases-dir", FIXTURE_CASES, "--adapter",
                "python:conformance_support:HouseRulesEngine")
    reasons = {key: c["message"] for c in run.report["cases"]
               for key in [(c["case"], c["variant"])] if c["status"] == "skip"}
    ran = {key for key, status in run.statuses().items() if status == "pass"}
    assert set(reasons) | ran == picked(fixture_suite)
    assert reasons[("transfer/next_defender_too_few", "perevodnoy")] == \
        "the engine does not play 3 players"
    assert reasons[("limits/first_bout_three_players", "podkidnoy")] == \
        "the engine does not play 3 players"
    # a mid-deal position runs from a deal that reaches it (conformance/fromdeal.py)
    assert ("limits/first_bout_position", "podkidnoy") in ran
    assert run.result("limits/first_bout_position")["from_deal"] == 8
    # a difference of variant is no reason to skip: the case runs under the engine's variant
    assert ("defence/cover_other_suit", "podkidnoy") in ran
    assert run.result("defence/cover_other_suit")["engine_options"] == {"first_bout_max": 5}
    # unless a step the case plays is illegal under it: the step, the rule and the option
    seventh = reasons[("limits/seventh_card", "podkidnoy")]
    assert "step 10 `0 throw JD` cannot be played" in seventh
    assert "first_bout_max = 5 instead of null" in seventh


def test_a_run_gives_up_after_too_many_faults_in_a_row_and_says_so(check, tmp_path):
    junit = tmp_path / "r.xml"
    run = check("--cases-dir", FIXTURE_CASES, "--timeout", "5", "--max-faults", "2",
                "--junit", junit, "--adapter", misbehaving("crash"))
    assert run.exit_code == 1
    assert [c["status"] for c in run.report["cases"]] == ["error", "error"]
    assert run.report["stopped"].startswith("gave up after 2 engine faults in a row; ")
    assert "STOPPED gave up after 2 engine faults in a row" in run.output
    assert "name=\"complete\"" in junit.read_text()


def test_a_run_past_its_deadline_stops_says_so_and_is_not_green(check):
    run = check("--cases-dir", FIXTURE_CASES, "--deadline", "0.000001")
    assert run.exit_code == 3, run.output
    assert run.report["cases"] == [] and "the deadline of 1e-06 s passed" in run.report["stopped"]


def test_a_run_where_every_case_was_skipped_is_not_green(check):
    run = check("--cases-dir", FIXTURE_CASES, "--variant", "perevodnoy",
                "--adapter", "python:conformance_support:HouseRulesEngine")
    assert run.exit_code == 3, run.output
    assert {c["status"] for c in run.report["cases"]} == {"skip"}


def test_an_empty_cases_folder_is_not_a_green_run(check, tmp_path):
    run = check("--cases-dir", tmp_path)
    assert run.exit_code == 2 and "holds no case files" in run.output


@pytest.mark.parametrize("adapter, sig", [("cmd", "SIGINT"), ("python", "SIGINT"),
                                          ("cmd", "SIGTERM")])
def test_ctrl_c_stops_cleanly_writes_the_partial_reports_and_exits_130(adapter, sig, tmp_path):
    import signal

    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    argv = [PYTHON, "-c", "from durak_spec.tools.cli import main; main()", "check", "-q",
            "--cases-dir", str(FIXTURE_CASES), "--case", "defence/*", "--timeout", "60",
            "--report", str(report), "--junit", str(junit), "--adapter",
            misbehaving("hang", "--on", TRIGGER) if adapter == "cmd" else
            "python:durak_spec.conformance.examples.misbehaving_engine:MisbehavingEngine"]
    mark = tmp_path / "hanging"
    env = {**os.environ, "DURAK_MISBEHAVE": "hang", "DURAK_MISBEHAVE_ON": TRIGGER,
           "DURAK_HANG_MARK": str(mark)}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not mark.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # until it hangs, at the second case of three
    assert mark.exists(), proc.communicate(timeout=30)
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    how = "Ctrl-C" if sig == "SIGINT" else sig
    data = json.loads(report.read_text())
    assert data["interrupted"] and f"interrupted ({how})" in data["stopped"]
    assert [c["status"] for c in data["cases"]] == ["pass"]  # the case before the hang
    assert junit.exists() and f"STOPPED interrupted ({how}) after 1 of 3 case runs" in out


@pytest.mark.parametrize("fast", [True, False], ids=["orjson", "json"])
def test_protocol_lines_are_written_alike_with_or_without_orjson(fast, monkeypatch):
    """orjson (extra "fast") only speeds writing up: every line reads back as json's would."""
    from durak_spec.conformance import protocol

    if fast:
        pytest.importorskip("orjson")
    else:
        monkeypatch.setattr(protocol, "orjson", None)
    big = 123456789012345678901234567890
    message = {"id": 2, "cmd": "step", "actions": ["0 attack 9S"], "state": True,
               7: [None, big, -1, "\u00e9"], "reason": "two\nlines"}
    line = protocol.dumps(message)
    assert "\n" not in line
    assert repr(json.loads(line)) == repr(json.loads(json.dumps(message)))


def test_an_in_process_result_is_bounded_as_cheaply_as_an_answer_line():
    from durak_spec.conformance.transport import _check_json

    cycle: list = []
    cycle.append(cycle)
    faults = {"flood": [{"note": "x" * 2_000_000}, {"actions": list(range(2_000_000))}],
              "garbage": [{"a": {1}}, {"a": float("nan")}, {1: "a"}, cycle, {"o": object()}]}
    for what, values in faults.items():
        for value in values:
            with pytest.raises(EngineFault) as caught:
                _check_json(value, "apply")
            assert caught.value.what == what, (what, caught.value)
    _check_json({"state": {"hands": [["6S", "QS"], ["7S"]], "fool": None, "taking": False,
                           "n": 3, "score": 1.5, "pairs": [("6S", None)]}}, "state")


def test_an_alarm_that_falls_as_an_answer_ends_leaves_no_timer_running(monkeypatch):
    """An in-process engine's answer that ends just as its timeout runs out: the alarm may fall
    after the answer, in the lines that put the process back as it was. It is a hang like any
    other, and the timer (which repeats every 0.1 s) is stopped; left running, it would raise
    the engine's timeout every 0.1 s in the runner itself."""
    import signal
    import types

    class Quick:
        def hello(self):
            return {"protocol": "1"}

    adapter = transport.PythonAdapter(Quick, "quick", timeout=5.0)
    adapter.open()
    real_os = transport.os

    class AlarmOnRestore(types.ModuleType):  # os, but the alarm falls as os._exit is put back
        fell = False

        def __setattr__(self, name, value):
            object.__setattr__(self, name, value)
            if name == "_exit" and value is transport._real_exit and not AlarmOnRestore.fell:
                AlarmOnRestore.fell = True
                raise transport._EngineTimeout()

    fake = AlarmOnRestore("os")
    fake.__dict__.update(vars(real_os))
    monkeypatch.setattr(transport, "os", fake)
    try:
        with pytest.raises(EngineFault, match="no answer to state within 5 s"):
            adapter._guarded_call("state", lambda: {"state": {}}, 5.0)
        assert AlarmOnRestore.fell and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert fake._exit is transport._real_exit
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        monkeypatch.setattr(transport, "os", real_os)
        adapter.close()
