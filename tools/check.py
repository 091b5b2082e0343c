"""`durak check`: run the conformance suite against an engine and report.

Exit codes: 0 the selected cases passed, 1 some failed, errored, were broken or a known failure
passed, 2 usage or setup errors (bad adapter, unreadable files), 3 the run tested too little:
nothing ran, or most selected case runs were skipped (the reasons are printed, grouped).
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from durak_spec.conformance import report as reports
from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.runner import (
    EXIT_TOO_LITTLE,
    Selection,
    Session,
    check_exit_code,
    load_known_failures,
    skip_reasons,
    summarize,
)
from durak_spec.conformance.transport import DEFAULT_TIMEOUT, AdapterError, make_adapter
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.model import check_option_value, value_text
from durak_spec.tools.common import UserError, _load, _parse_options

SHOW_FAILURES = 20


def run_suite(spec, adapter_name, selection, *, cases_dir=None, known_file=None,
              timeout=DEFAULT_TIMEOUT, spec_dir=None, progress=None, options=None, paths=()):
    """Run the selected cases; returns (results, meta, suite). Raises AdapterError on setup errors.
    `options` are option values the engine plays whatever it declares (--option); `paths` are the
    folders a python: engine is imported from (--path)."""
    suite = load_suite(spec, cases_dir)
    known = load_known_failures(known_file) if known_file else {}
    adapter = make_adapter(adapter_name, timeout, spec, paths=paths)
    session = Session(spec, adapter, known=known, adapter_name=adapter_name, spec_dir=spec_dir,
                      options=options, paths=paths)
    started, t0 = reports.now(), time.perf_counter()
    hello = session.open()
    jobs = [(c, v) for c in suite.cases if selection.picks(c) for v in selection.variants_of(c)]
    results = []
    try:
        task = progress.add_task("cases", total=len(jobs)) if progress else None
        for case, variant in jobs:
            results.append(session.run_case(case, variant))
            if progress:
                progress.advance(task)
    finally:
        session.close()
    seconds = time.perf_counter() - t0
    meta = {"adapter": adapter_name, "engine": hello, "started": started, "finished": reports.now(),
            "seconds": round(seconds, 3), "steps": session.steps, "restarts": session.restarts,
            "selection": {k: list(v) for k, v in vars(selection).items() if v},
            "options": dict(options or {}),
            "broken_files": [str(e) for e in suite.broken],
            "rederived": sum(1 for r in results if r.engine_options and r.status != "skip"),
            "skip_reasons": [{"reason": k, "count": n} for k, n in skip_reasons(results)],
            "tested_too_little": check_exit_code(results) == EXIT_TOO_LITTLE}
    return results, meta, suite


def _print_summary(console: Console, results, meta, suite) -> None:
    by_area = defaultdict(list)
    for r in results:
        by_area[r.area].append(r)
    table = Table(title=f"{meta['engine'].get('name')} {meta['engine'].get('version', '')} "
                        f"via {meta['adapter']}")
    statuses = [s for s, n in summarize(results).items() if n] or ["pass"]
    table.add_column("area")
    for s in statuses:
        table.add_column(s, justify="right")
    for area, items in sorted(by_area.items()):
        c = summarize(items)
        table.add_row(area, *[str(c[s]) for s in statuses])
    console.print(table)
    bad = [r for r in results if r.status in ("fail", "error", "broken", "xpass")]
    for r in bad[:SHOW_FAILURES]:
        rule = f"rule: {r.rule}" if r.rule else f"rules: {', '.join(r.rules)}"
        console.print(f"[bold red]{r.status.upper()}[/] {r.case} @ {r.variant}  {rule}", highlight=False)
        if r.engine_options:
            console.print(f"  under the engine's variant: {options_text(r.engine_options)}"
                          + (f"; re-derived: {', '.join(r.rederived)}" if r.rederived else ""),
                          highlight=False, markup=False)
        if r.step is not None:
            console.print(f"  step {r.step}: {r.action}   ({r.check})", highlight=False)
        if r.check:
            console.print(f"  want: {r.want!r}\n  have: {r.have!r}", highlight=False, markup=False)
        console.print(f"  {r.message}", highlight=False, markup=False)
        console.print(f"  reproduce: {r.reproduce}", highlight=False, markup=False)
    if len(bad) > SHOW_FAILURES:
        console.print(f"... and {len(bad) - SHOW_FAILURES} more (see --report/--html)")
    for err in suite.broken:
        console.print(f"[yellow]BROKEN CASE FILE[/] {err}", highlight=False)
    counts = ", ".join(f"{n} {s}" for s, n in summarize(results).items() if n)
    rate = len(results) / meta["seconds"] if meta["seconds"] else 0
    rederived = f"; {meta['rederived']} ran under the engine's variant" if meta.get("rederived") else ""
    console.print(f"{len(results)} case runs in {meta['seconds']:.2f} s ({rate:.0f} cases/s, "
                  f"{meta['steps']} steps): {counts or 'nothing selected'}{rederived}", highlight=False)
    reasons = skip_reasons(results)
    if reasons:
        console.print("skipped, by reason:", highlight=False)
        for reason, n in reasons:
            console.print(f"  {n:5}  {reason}", highlight=False, markup=False)
    if meta.get("tested_too_little"):
        what = "nothing was tested" if not results else \
            f"most case runs were skipped ({summarize(results)['skip']} of {len(results)})"
        console.print(f"[bold yellow]TESTED TOO LITTLE[/]: {what}; exit code {EXIT_TOO_LITTLE}",
                      highlight=False)


def options_text(options: dict) -> str:
    return ", ".join(f"{n} = {value_text(v)}" for n, v in options.items())


@click.command("check", epilog="Exit codes: 0 the selected cases passed; 1 failures (a case failed, "
               "errored or was broken, or a known failure passed); 2 usage or setup errors; 3 the "
               "run tested too little: nothing ran, or most selected case runs were skipped.")
@click.option("--adapter", "adapter_name", default="reference", show_default=True,
              help="reference, python:MODULE:CLASS or cmd:COMMAND LINE")
@click.option("--path", "paths", multiple=True, type=click.Path(file_okay=False, exists=True),
              help="A folder to import a python: engine from, before the current folder (repeatable).")
@click.option("--case", "cases", multiple=True, help="Case id or glob (repeatable).")
@click.option("--rule", "rules", multiple=True, help="Rule id or id prefix (repeatable).")
@click.option("--area", "areas", multiple=True, help="Rule area (repeatable).")
@click.option("--variant", "variants", multiple=True, help="Only runs under this preset (repeatable).")
@click.option("--players", "players", multiple=True, type=int,
              help="Only cases with this many players (repeatable).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="An option value the engine plays whatever its hello declares (repeatable); "
                   "every case runs under it, its expectations re-derived by the reference.")
@click.option("--cases-dir", type=click.Path(file_okay=False, exists=True), default=None,
              help="Run the cases under this folder instead of the shipped suite.")
@click.option("--known-failures", "known_file", type=click.Path(dir_okay=False), default=None,
              help="YAML ledger of this engine's known failures (one reason each).")
@click.option("--timeout", type=float, default=DEFAULT_TIMEOUT, show_default=True,
              help="Seconds to wait for each answer of a cmd: engine.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False), help="Write a JSON report.")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), help="Write JUnit XML.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), help="Write an HTML report.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.pass_context
def check_command(ctx, adapter_name, paths, cases, rules, areas, variants, players, options,
                  cases_dir, known_file, timeout, report_file, junit_file, html_file, quiet):
    """Run the conformance suite against an engine and report every difference.

    Each case runs under the variant the engine plays: the case's preset and options, then the
    house rules the engine declares in hello, then --option; where that differs from the case's,
    the reference re-derives the case's expectations. Every failure names the rule that decides
    it and whether an option value explains it."""
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
    fixed = _parse_options(options)
    for name, value in fixed.items():
        try:
            check_option_value(spec, name, value, None, f"--option {name}")
        except DurakError as exc:
            raise UserError(str(exc)) from None
    selection = Selection(tuple(cases), tuple(rules), tuple(areas), tuple(variants), tuple(players))
    console = Console(stderr=True)
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, transient=True,
                      disable=quiet or not console.is_terminal) as progress:
            results, meta, suite = run_suite(spec, adapter_name, selection, cases_dir=cases_dir,
                                             known_file=known_file, timeout=timeout,
                                             spec_dir=ctx.obj.get("spec_dir"), progress=progress,
                                             options=fixed, paths=paths)
    except AdapterError as exc:
        raise UserError(str(exc)) from None
    if not results and (cases or rules or areas or players):
        raise UserError("the selection matches no case")
    for path, writer in ((report_file, reports.write_json), (junit_file, reports.write_junit),
                         (html_file, reports.write_html)):
        if path:
            try:
                writer(path, results, meta)
            except OSError as exc:
                raise UserError(f"can't write {path}: {exc.strerror}") from None
    _print_summary(Console(), results, meta, suite)
    code = check_exit_code(results)
    sys.exit(1 if suite.broken and code != 1 else code)
