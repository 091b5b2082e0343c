"""Helpers every `durak` subcommand shares: loading the spec and reading options, with user
mistakes turned into one-line errors (exit 2), the exit codes, and the progress of long runs."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import click
from rich.console import Console

from durak_spec.conformance import report as reports
from durak_spec.conformance.cases import CASES_DIR
from durak_spec.conformance.transport import RunInterrupted
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.spec import Spec, load_spec
from durak_spec.reference_impl.yamlio import InputError, parse_text

# Exit codes of every command (README "Exit codes").
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_TOO_LITTLE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class UserError(click.ClickException):
    exit_code = EXIT_USAGE


class Seconds(click.ParamType):
    """A positive, finite number of seconds: 0, negatives, nan and inf are usage errors, found
    before anything is loaded."""

    name = "seconds"

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{clip(str(value))!r} is not a number of seconds", param, ctx)
        if not 0 < seconds < float("inf"):
            self.fail(f"{clip(str(value))!r}: give a positive, finite number of seconds", param, ctx)
        return seconds


def command_seconds() -> float | None:
    """Seconds since the `durak` command started (cli.Commands), or None outside one."""
    ctx = click.get_current_context(silent=True)
    started = ctx.meta.get("durak.started") if ctx is not None else None
    return time.perf_counter() - started if started is not None else None


def clip(text: str, limit: int = 60) -> str:
    """A value quoted in a message, cut to `limit` characters (a 4,000-digit number or a pasted
    file is not echoed whole)."""
    return text if len(text) <= limit else f"{text[:limit - 20]}...({len(text):,} characters)"


def output_console() -> Console:
    """The console for a command's results on stdout. Piped into a file or a CI log it is not
    squeezed into 80 columns, and long lines (a `reproduce:` command) are never broken."""
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 160), soft_wrap=True)
    return console


def _load(ctx, full: bool = False) -> Spec:
    """The spec of --spec, or the shipped one; `full`: every file parsed and validated, none
    taken from the shipped index (durak lint)."""
    try:
        return load_spec(ctx.obj.get("spec_dir"), record=[] if full else None)
    except (DurakError, InputError) as exc:
        raise UserError(str(exc)) from None


def in_checkout(folder: Path | None = None) -> bool:
    """True when `folder` (default: the shipped cases) lies in a git checkout of durak-spec rather
    than in an installed package."""
    repo = Path(folder or CASES_DIR).resolve().parents[1]
    return (repo / ".git").exists() and (repo / "pyproject.toml").is_file()


def generated_root(out_dir, default: str, write_shipped: bool = False) -> Path:
    """Where a command writes the cases it generates: --out, else the folder `default` in the
    current directory. Only --write-shipped writes the shipped suite (conformance/cases), and only
    in a git checkout of durak-spec: nothing is ever written inside an installed package."""
    if not write_shipped:
        return Path(out_dir) if out_dir is not None else Path(default)
    if out_dir is not None:
        raise UserError("give --out DIR or --write-shipped, not both (--write-shipped writes the "
                        "shipped suite)")
    if not in_checkout():
        raise UserError(f"--write-shipped regenerates the cases of a git checkout of durak-spec; "
                        f"{CASES_DIR} belongs to an installed package, which no command writes "
                        f"into: give --out DIR")
    return CASES_DIR


def check_report_paths(outputs: dict) -> None:
    """Every report file given ({format: path or None}) can be written, checked before a run so
    a bad path loses nothing; a UserError names the first that can't."""
    for path in filter(None, outputs.values()):
        problem = reports.check_writable(path)
        if problem:
            raise UserError(f"can't write the report {path}: {problem}")


def _parse_options(pairs) -> dict:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise UserError(f"--option takes NAME=VALUE, not {pair!r}")
        name, raw = pair.split("=", 1)
        try:
            out[name.strip()] = parse_text(raw, f"--option {name}") if raw.strip() else None
        except InputError as exc:
            raise UserError(str(exc)) from None
    return out


def _ruleset(spec: Spec, variant: str, options):
    try:
        return spec.ruleset(variant, _parse_options(options))
    except DurakError as exc:
        raise UserError(str(exc)) from None


def interruption(exc: BaseException) -> str:
    """How a run was interrupted, for its reports: 'Ctrl-C' or the signal's name (SIGTERM)."""
    name = getattr(exc, "signal_name", "SIGINT")
    return "Ctrl-C" if name == "SIGINT" else name


class Interruptions:
    """While a long run goes (check, fuzz): SIGTERM stops it as Ctrl-C does, so the partial
    reports are written (RunInterrupted, a KeyboardInterrupt naming the signal). With `forward`
    set (a function), the first signal calls it instead (fuzz's workers stop and return what they
    found) and a second one stops the run at once. Only in the main thread; else nothing."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.signal_name: str | None = None
        self.forward = None
        self._previous: dict = {}

    def __enter__(self) -> "Interruptions":
        if threading.current_thread() is threading.main_thread():
            self._previous = {s: signal.signal(s, self._handle) for s in self.SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)
        self._previous = {}

    def _handle(self, signum, frame) -> None:
        first = self.signal_name is None
        self.signal_name = self.signal_name or signal.Signals(signum).name
        if self.forward is not None and first:
            self.forward()
            return
        raise RunInterrupted(self.signal_name)

    @property
    def how(self) -> str:
        return interruption(RunInterrupted(self.signal_name or "SIGINT"))


class ProgressReport:
    """Progress of a long run on stderr: a rich bar on a terminal (done, rate, time left and the
    failures so far), a one-line status every STATUS_EVERY seconds when stderr is not a terminal
    (a CI log), nothing with --quiet. Use as a context manager; `advance()` after each unit."""

    STATUS_EVERY = 10.0

    def __init__(self, what: str, total: int | None, unit: str, *, quiet: bool = False,
                 failures: str = "failing", console: Console | None = None):
        self.what, self.total, self.unit, self.failures_word = what, total, unit, failures
        self.console = console or Console(stderr=True)
        self.quiet = quiet
        self.done = self.failures = 0
        self._bar = None  # a rich Progress, on a terminal only
        self._task = None
        self._t0 = self._last = 0.0

    def __enter__(self) -> "ProgressReport":
        self._t0 = self._last = time.monotonic()
        if not self.quiet and self.console.is_terminal:
            # imported here: a run that is not on a terminal never pays for the bar
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )
            self._bar = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"), TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(compact=True, elapsed_when_finished=True),
                TextColumn("{task.fields[failures]}"), console=self.console, transient=True)
            self._bar.__enter__()
            self._task = self._bar.add_task(self.what, total=self.total, unit=self.unit,
                                            rate="", failures="")
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None

    def set_total(self, total: int | None) -> None:
        """The number of units, once known; the clock for the rate starts here."""
        self.total = total
        self._t0 = self._last = time.monotonic()
        if self._bar is not None:
            self._bar.update(self._task, total=total)

    def rate(self) -> float:
        elapsed = time.monotonic() - self._t0
        return self.done / elapsed if elapsed > 0 else 0.0

    def advance(self, n: int = 1, failures: int = 0) -> None:
        self.done += n
        self.failures += failures
        if self.quiet:
            return
        if self._bar is not None:
            style = "[red]" if self.failures else ""
            self._bar.update(self._task, advance=n, rate=f"{self.rate():,.0f}/s",
                             failures=f"{style}{self.failures} {self.failures_word}"
                             if self.failures else "")
            return
        now = time.monotonic()
        if now - self._last >= self.STATUS_EVERY:
            self._last = now
            self.console.print(self.status(), highlight=False, markup=False, soft_wrap=True)

    def status(self) -> str:
        rate = self.rate()
        of = f"/{self.total}" if self.total is not None else ""
        left = ""
        if self.total and rate > 0:
            left = f", about {max(0.0, (self.total - self.done) / rate):,.0f} s left"
        return (f"{self.what}: {self.done}{of} {self.unit}, {self.failures} {self.failures_word}, "
                f"{rate:,.1f} {self.unit}/s{left}")
