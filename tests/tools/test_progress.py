"""Long runs show progress, and piped output stays readable: a status line now and then when
stderr is not a terminal (a CI log), a bar on a terminal, and `reproduce:` commands that are one
unbroken line, whatever the width."""

from __future__ import annotations

import io
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from durak_spec.tools.common import ProgressReport

FIXTURE_CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases"


def test_not_on_a_terminal_progress_is_a_periodic_status_line(monkeypatch):
    out = io.StringIO()
    clock = {"now": 0.0}
    monkeypatch.setattr("durak_spec.tools.common.time.monotonic", lambda: clock["now"])
    with ProgressReport("check", None, "case runs", console=Console(file=out)) as progress:
        progress.set_total(12)
        for i in range(12):
            clock["now"] += 4  # a case run every 4 s
            progress.advance(failures=i in (3, 7))
    lines = out.getvalue().splitlines()
    assert len(lines) == 4  # every 10 s (advances 4 s apart), not once per case
    assert lines[-1] == "check: 12/12 case runs, 2 failing, 0.2 case runs/s, about 0 s left"
    assert lines[0] == "check: 3/12 case runs, 0 failing, 0.2 case runs/s, about 36 s left"


def test_quiet_shows_nothing(monkeypatch):
    out = io.StringIO()
    clock = {"now": 0.0}
    monkeypatch.setattr("durak_spec.tools.common.time.monotonic", lambda: clock["now"])
    with ProgressReport("lint", 5, "case runs", quiet=True, console=Console(file=out)) as p:
        for _ in range(5):
            clock["now"] += 20
            p.advance()
    assert out.getvalue() == ""


def test_on_a_terminal_progress_is_a_bar_with_rate_time_left_and_failures():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system=None, width=120)
    with ProgressReport("check", 4, "case runs", console=console) as progress:
        progress.advance(failures=1)
        progress._bar.refresh()
        shown = out.getvalue()
    assert "1/4 case runs" in shown and "1 failing" in shown and "/s" in shown


def test_piped_output_keeps_every_reproduce_command_on_one_line(tmp_path):
    # a long --cases-dir makes each reproduce command far wider than any terminal
    cases = tmp_path / ("a-rather-long-folder-name-" * 6) / "cases"
    shutil.copytree(FIXTURE_CASES, cases)
    proc = subprocess.run(
        [sys.executable, "-c", "from durak_spec.tools.cli import main; main()", "check",
         "--cases-dir", str(cases), "--adapter",
         "python:durak_spec.conformance.examples.broken_beat:BeatAnySuit"],
        capture_output=True, text=True, timeout=300, env={"COLUMNS": "60", "PATH": "/usr/bin"})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    commands = [line.split("reproduce: ", 1)[1] for line in lines if "reproduce: " in line]
    assert commands and all(shlex.split(c)[:2] == ["durak", "check"] and
                            c.endswith("--variant podkidnoy") and str(cases) in c
                            for c in commands)
    header = next(line for line in lines if "area" in line)
    assert "pass" in header and "fail" in header  # the table's columns are not squeezed
