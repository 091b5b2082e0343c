"""`durak check`: run the conformance suite against an engine and report.

Exit codes: 0 the selected cases passed, 1 some failed, errored, were broken or a known failure
passed, 2 usage or setup errors (bad adapter, unreadable files, an engine that fails its handshake:
the reports still say why), 3 the run tested too little: nothing ran, most selected case runs were
skipped (the reasons are printed, grouped) or the deadline passed, 130 interrupted by Ctrl-C or SIGTERM
(the reports and the summary hold what ran).
"""

from __future__ import annotations

import fnmatch
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from durak_spec.conformance import report as reports
from durak_spec.conformance.cases import case_ids, load_suite
from durak_spec.conformance.problems import find_problems
from durak_spec.conformance.runner import (
    FAILING,
    Selection,
    Session,
    exit_code,
    load_known_failures,
    skip_reasons,
    summarize,
    tested_too_little,
    would_help,
)
from durak_spec.conformance.transport import (
    DEFAULT_TIMEOUT,
    START_TIMEOUT,
    AdapterError,
    check_adapter_name,
    make_adapter,
)
from durak_spec.reference_impl.errors import DurakError, suggest
from durak_spec.reference_impl.model import check_option_value
from durak_spec.tools.common import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TOO_LITTLE,
    EXIT_USAGE,
    Interruptions,
    ProgressReport,
    Seconds,
    UserError,
    _load,
    _parse_options,
    check_report_paths,
    command_seconds,
    interruption,
    output_console,
)

SHOW_FAILURES = 20
DEFAULT_DEADLINE = 3600.0
DEFAULT_MAX_FAULTS = 5


@dataclass
class Limits:
    """When a run gives up: after `deadline` seconds in all, or after `max_faults` engine faults
    (crash, hang, exit, ...) in a row; either is reported, and the cases not run are counted."""

    deadline: float = DEFAULT_DEADLINE
    max_faults: int = DEFAULT_MAX_FAULTS


def run_suite(spec, adapter_name, selection, *, cases_dir=None, known_file=None,
              timeout=DEFAULT_TIMEOUT, spec_dir=None, progress=None, options=None, paths=(),
              limits: Limits | None = None):
    """Run the selected cases; returns (results, meta, suite). Raises AdapterError on setup
    errors before the engine runs. An engine that fails its handshake, a deadline, too many
    faults in a row or Ctrl-C end the run early with what was done so far: meta says why
    (`error` or `stopped`; `interrupted` is True after Ctrl-C). `options` are option values the
    engine plays whatever it declares (--option); `paths` are the folders a python: engine is
    imported from (--path)."""
    limits = limits or Limits()
    known = load_known_failures(known_file) if known_file else {}
    suite = load_suite(spec, cases_dir, ids=selection.cases, pick=selection.picks)
    adapter = make_adapter(adapter_name, timeout, spec, paths=paths)
    session = Session(spec, adapter, known=known, adapter_name=adapter_name, spec_dir=spec_dir,
                      options=options, paths=paths)
    started, t0 = reports.now(), time.perf_counter()
    jobs = [(c, v) for c in suite.cases if selection.picks(c) for v in selection.variants_of(c)]
    results, meta = [], {"adapter": adapter_name, "engine": {}, "started": started}
    if progress is not None:
        progress.set_total(len(jobs))
    faults_in_a_row = 0
    matches: list = []
    try:
        meta["engine"] = session.open()
        matches = _match_jobs(session, suite, selection)
        if progress is not None and matches:  # the total counts everything that will run
            progress.set_total(len(jobs) + len(matches))
        for i, (case, variant) in enumerate(jobs):
            if time.perf_counter() - t0 > limits.deadline:
                meta["stopped"] = (f"the deadline of {limits.deadline:g} s passed; "
                                   f"{len(jobs) - i} of {len(jobs)} case runs not run")
                break
            restarts = session.restarts
            result = session.run_case(case, variant)
            results.append(result)
            faults_in_a_row = faults_in_a_row + 1 if session.restarts > restarts else 0
            if progress is not None:
                progress.advance(failures=result.status in FAILING)
            if faults_in_a_row >= limits.max_faults and i + 1 < len(jobs):
                meta["stopped"] = (f"gave up after {faults_in_a_row} engine faults in a row; "
                                   f"{len(jobs) - i - 1} of {len(jobs)} case runs not run")
                break
        if matches and not meta.get("stopped"):
            results += _run_matches(session, matches, progress)
    except AdapterError as exc:  # the handshake failed: no case ran, the reports say why
        meta["error"] = str(exc)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (tools/common.Interruptions)
        meta["interrupted"] = True
        meta["stopped"] = (f"interrupted ({interruption(exc)}) after {len(results)} of "
                           f"{len(jobs)} case runs")
    finally:
        problems = _problems(results, session, meta)
        session.close()
    seconds = time.perf_counter() - t0
    meta.update({"finished": reports.now(), "seconds": round(seconds, 3), "steps": session.steps,
                 "restarts": session.restarts,
                 "planned": len(jobs) + len(matches),
                 "selection": {k: list(v) for k, v in vars(selection).items() if v},
                 "options": dict(options or {}),
                 "broken_files": [str(e) for e in suite.broken],
                 "rederived": sum(1 for r in results if r.engine_options and r.status != "skip"),
                 "skip_reasons": [{"reason": k, "count": n} for k, n in skip_reasons(results)],
                 "would_help": [{"declare": k, "runs": n} for k, n in would_help(results)],
                 "tested_too_little": tested_too_little(results),
                 "problems": problems})
    return results, meta, suite


def _problems(results, session, meta) -> list:
    """The run's problems, found while the engine is still open: confirming advice may play on
    it the cases its variant skipped (Session.plays_as). An engine that failed its handshake,
    faulted too often or was interrupted is asked nothing more."""
    if meta.get("error") or meta.get("interrupted") or meta.get("stopped"):
        session.evidence.probe = None
    return find_problems(results, session.evidence)


def _match_jobs(session, suite, selection) -> list:
    """The selected match cases (conformance/matches.py), for an engine that declares "match":
    true in hello; an engine that does not is driven as before."""
    if not session.hello.get("match"):
        return []
    out = []
    for path, case_id, data in suite.matches:
        preset = (data.get("match") or {}).get("preset")
        players = (data.get("match") or {}).get("players")
        if selection.cases and not any(fnmatch.fnmatchcase(case_id, p) for p in selection.cases):
            continue
        if (selection.rules or selection.areas) and "match" not in selection.areas:
            continue
        if (selection.variants and preset not in selection.variants) or \
                (selection.players and players not in selection.players):
            continue
        out.append((path, case_id, data))
    return out


def _run_matches(session, matches, progress) -> list:
    from durak_spec.conformance.matches import run_match_case  # only when matches are selected

    out = []
    for path, case_id, data in matches:
        out.append(run_match_case(session, case_id, data, path))
        if progress is not None:
            progress.advance(failures=out[-1].status in FAILING)
    return out


def _print_summary(console: Console, results, meta, suite) -> None:
    engine = meta.get("engine") or {}
    by_area = defaultdict(list)
    for r in results:
        by_area[r.area].append(r)
    if results:
        # The engine's name on a line of its own: as a table title it would wrap to the table.
        console.print(f"{engine.get('name')} {engine.get('version', '')} via {meta['adapter']}",
                      highlight=False, markup=False, soft_wrap=True)
        table = Table()
        statuses = [s for s, n in summarize(results).items() if n] or ["pass"]
        table.add_column("area")
        for s in statuses:
            table.add_column(s, justify="right")
        for area, items in sorted(by_area.items()):
            c = summarize(items)
            table.add_row(area, *[str(c[s]) for s in statuses])
        console.print(table)
    print_problems(console, meta.get("problems") or [])
    bad = [r for r in results if r.status in FAILING]
    if bad and meta.get("problems"):
        console.print(f"The failing case runs ({len(bad)}), first {min(len(bad), SHOW_FAILURES)}:",
                      highlight=False)
    for r in bad[:SHOW_FAILURES]:
        text = Text(reports.failure_text(r))  # the same block the pytest plugin fails with
        text.stylize("bold red", 0, len(r.status))
        # soft wrap: the reproduce line stays one unbroken line, to paste as it is
        console.print(text, highlight=False, soft_wrap=True)
    if len(bad) > SHOW_FAILURES:
        console.print(f"... and {len(bad) - SHOW_FAILURES} more (see --report/--html)")
    for err in suite.broken:
        console.print(f"[yellow]BROKEN CASE FILE[/] {err}", highlight=False)
    counts = ", ".join(f"{n} {s}" for s, n in summarize(results).items() if n)
    rate = len(results) / meta["seconds"] if meta["seconds"] else 0
    rederived = f"; {meta['rederived']} ran under the engine's variant" if meta.get("rederived") else ""
    # The whole command's time (start, loading, the runs, reports), then the runs' own.
    total = command_seconds()
    total = meta["seconds"] if total is None else max(total, meta["seconds"])
    console.print(f"{len(results)} of {meta['planned']} case runs in {total:.2f} s "
                  f"({meta['seconds']:.2f} s running them: {rate:.0f} cases/s, {meta['steps']} steps): "
                  f"{counts or 'nothing run'}{rederived}", highlight=False)
    reasons = skip_reasons(results)
    if reasons:
        console.print("skipped, by reason:", highlight=False)
        for reason, n in reasons:
            console.print(f"  {n:5}  {reason}", highlight=False, markup=False, soft_wrap=True)
    helps = would_help(results)
    if helps:
        console.print("what would run more: " + "; ".join(
            f"{what}: {n} more run{'s' if n > 1 else ''}" for what, n in helps), highlight=False)
    if meta.get("stopped"):
        console.print(f"[bold red]STOPPED[/] {meta['stopped']}", highlight=False)
    elif meta.get("tested_too_little"):
        what = "nothing was tested" if not results else \
            f"most case runs were skipped ({summarize(results)['skip']} of {len(results)})"
        code = f"exit code {EXIT_TOO_LITTLE}" if not exit_code(results) and not suite.broken \
            else "the failures above decide the exit code (1)"
        console.print(f"[bold yellow]TESTED TOO LITTLE[/]: {what}; {code}", highlight=False)


def print_problems(console: Console, problems: list) -> None:
    """The problems first: one block per root cause, with its shortest reproducing run."""
    if not problems:
        return
    runs = sum(p["count"] for p in problems)
    console.print(f"[bold]{len(problems)} problem(s)[/] behind {runs} failing run(s):", highlight=False)
    for i, p in enumerate(problems, 1):
        text = Text(reports.problem_text(i, p))  # the same block the pytest plugin prints
        text.stylize("bold red", 0, len(f"PROBLEM {i}"))
        console.print(text, highlight=False, soft_wrap=True)


def _exit_code(results, meta, suite) -> int:
    if meta.get("interrupted"):
        return EXIT_INTERRUPTED
    if meta.get("error"):
        return EXIT_USAGE
    if exit_code(results) or suite.broken:
        return EXIT_FINDINGS
    if meta.get("stopped") or tested_too_little(results):  # not a green run
        return EXIT_TOO_LITTLE
    return EXIT_OK


def known_failure_problems(known: dict, ids, presets, suite) -> list[str]:
    """The entries of a known-failures ledger that can never match a case run: an id that no
    case file of the suite has, a preset that does not exist, or one the case never runs under.
    (An entry that matches and passes is reported as xpass, a failure.)"""
    out, ids = [], set(ids)
    by_id = suite.by_id() if suite is not None else {}
    for key in known:
        case_id, _, variant = str(key).partition("@")
        if case_id not in ids:
            out.append(f"{key}: no case {case_id!r} in the suite.{suggest(case_id, ids)}")
        elif variant and variant not in presets:
            out.append(f"{key}: no preset {variant!r}.{suggest(variant, presets)}")
        elif variant and case_id in by_id and variant not in by_id[case_id].variants:
            out.append(f"{key}: the case never runs under {variant} (it runs under "
                       f"{', '.join(by_id[case_id].variants)})")
    return out


def _check_known(known_file, known: dict, ids, presets, suite=None) -> None:
    problems = known_failure_problems(known, ids, presets, suite)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise UserError(f"{known_file}: known_failures.{problems[0]}{more}; fix or remove the "
                        "entry (conformance/README.md, \"Known failures\")")


@click.command("check", epilog="Exit codes: 0 the selected cases passed; 1 failures (a case failed, "
               "errored or was broken, or a known failure passed); 2 usage or setup errors; 3 the "
               "run tested too little: nothing ran, most selected case runs were skipped, or the "
               "deadline passed; 130 interrupted.")
@click.option("--adapter", "adapter_name", default="reference", show_default=True,
              help="The engine: reference, python:MODULE:CLASS or cmd:COMMAND LINE.")
@click.option("--path", "paths", multiple=True, type=click.Path(file_okay=False, exists=True),
              metavar="DIR",
              help="A folder to import a python: engine from, before the current folder (repeatable).")
@click.option("--case", "cases", multiple=True, metavar="ID", help="Case id or glob (repeatable).")
@click.option("--rule", "rules", multiple=True, metavar="ID", help="Rule id or id prefix (repeatable).")
@click.option("--area", "areas", multiple=True, metavar="AREA", help="Rule area (repeatable).")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Only runs under this preset (repeatable; default: every preset a case names).")
@click.option("--players", "players", multiple=True, type=int, metavar="N",
              help="Only cases with this many players (repeatable).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="An option value the engine plays whatever its hello declares (repeatable); "
                   "every case runs under it, its expectations re-derived by the reference.")
@click.option("--cases-dir", type=click.Path(file_okay=False, exists=True), default=None,
              help="Run the cases under this folder instead of the shipped suite.")
@click.option("--known-failures", "known_file", type=click.Path(dir_okay=False), default=None,
              help="YAML ledger of this engine's known failures (one reason each).")
@click.option("--timeout", type=Seconds(), default=None,
              help=f"Seconds an engine may take over each answer, its handshake included (python: "
                   f"and cmd:).  [default: {DEFAULT_TIMEOUT:g}, and {START_TIMEOUT:g} for the "
                   f"handshake]")
@click.option("--deadline", type=Seconds(), default=DEFAULT_DEADLINE,
              show_default=True, help="Seconds the whole run may take; then it stops and says so.")
@click.option("--max-faults", type=click.IntRange(min=1), default=DEFAULT_MAX_FAULTS,
              show_default=True, help="Give up after this many engine faults (crash, hang, exit, "
                                      "...) in a row.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write a JSON report (conformance/schemas/report.schema.json).")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write JUnit XML.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write an HTML report.")
@click.option("--docs-url", default=reports.DOCS_URL, show_default=True, metavar="URL",
              help="Where the built docs are: rule ids in the HTML report link there.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="The summary as text, or the JSON report on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or status lines.")
@click.pass_context
def check_command(ctx, adapter_name, paths, cases, rules, areas, variants, players, options,
                  cases_dir, known_file, timeout, deadline, max_faults, report_file, junit_file,
                  html_file, docs_url, fmt, quiet):
    """Run the conformance suite against an engine and report every difference.

    Each case runs under the variant the engine plays: the case's preset and options, then the
    house rules the engine declares in hello, then --option; where that differs from the case's,
    the reference re-derives the case's expectations. Every failure names the rule that decides
    it and whether an option value explains it."""
    # Usage errors first, before the spec or any case is read.
    try:
        check_adapter_name(adapter_name)
    except AdapterError as exc:
        raise UserError(str(exc)) from None
    fixed = _parse_options(options)
    outputs = {"json": report_file, "junit": junit_file, "html": html_file}
    check_report_paths(outputs)  # before the run: a bad path loses nothing
    if cases_dir is not None and not any(Path(cases_dir).rglob("*.yaml")):
        raise UserError(f"--cases-dir {cases_dir}: holds no case files (*.yaml)")
    try:
        known = load_known_failures(known_file) if known_file else {}
    except AdapterError as exc:
        raise UserError(str(exc)) from None
    spec = _load(ctx)
    unknown = [v for v in variants if v not in spec.presets]
    if unknown:
        raise UserError(f"unknown preset {unknown[0]!r}; presets: {', '.join(spec.presets)}")
    area_ids = [a["id"] for a in spec.areas]
    bad_area = [a for a in areas if a not in area_ids]
    if bad_area:
        raise UserError(f"unknown area {bad_area[0]!r}; areas: {', '.join(area_ids)}")
    lo, hi = spec.deck_data["players"]["min"], spec.deck_data["players"]["max"]
    bad_players = [n for n in players if not lo <= n <= hi]
    if bad_players:
        raise UserError(f"--players {bad_players[0]}: this deck is for {lo} to {hi} players")
    for name, value in fixed.items():
        try:
            check_option_value(spec, name, value, None, f"--option {name}")
        except DurakError as exc:
            raise UserError(str(exc)) from None
    if known:
        _check_known(known_file, known, case_ids(cases_dir), spec.presets)
    selection = Selection(tuple(cases), tuple(rules), tuple(areas), tuple(variants), tuple(players))
    try:
        with Interruptions(), ProgressReport("check", None, "case runs", quiet=quiet) as progress:
            results, meta, suite = run_suite(spec, adapter_name, selection, cases_dir=cases_dir,
                                             known_file=known_file, timeout=timeout,
                                             spec_dir=ctx.obj.get("spec_dir"), progress=progress,
                                             options=fixed, paths=paths,
                                             limits=Limits(deadline, max_faults))
    except AdapterError as exc:
        raise UserError(str(exc)) from None
    meta["docs_url"] = docs_url
    if not results and not meta.get("error") and not meta.get("interrupted") \
            and (cases or rules or areas or variants or players):
        raise UserError("the selection matches no case")
    positions = reports.failure_positions(spec, suite, results) if html_file else None
    problems = reports.write_reports(outputs, results, meta, positions)
    if fmt == "json":
        click.echo(json.dumps(reports.report_json(results, meta), indent=1, default=str))
    if meta.get("error"):
        click.echo(f"Error: {meta['error']}", err=True)
    elif fmt == "text":
        _print_summary(output_console(), results, meta, suite)
    if known:  # entries naming a preset their case never runs under: they can never match
        problems += [f"{known_file}: known_failures.{p}; fix or remove the entry"
                     for p in known_failure_problems(known, case_ids(cases_dir), spec.presets, suite)]
    for problem in problems:
        click.echo(f"Error: {problem}", err=True)
    code = _exit_code(results, meta, suite)
    sys.exit(max(code, EXIT_USAGE) if problems and code != EXIT_INTERRUPTED else code)
