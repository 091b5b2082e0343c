"""`durak check`: run the conformance suite against an engine and report.

Exit codes: 0 every selected case passed (or was skipped), 1 some failed, errored, were broken or a
known failure passed, 2 usage or setup errors (bad adapter, unreadable files).
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
    Selection,
    Session,
    exit_code,
    load_known_failures,
    summarize,
)
from durak_spec.conformance.transport import DEFAULT_TIMEOUT, AdapterError, make_adapter
from durak_spec.tools.common import UserError, _load

SHOW_FAILURES = 20


def run_suite(spec, adapter_name, selection, *, cases_dir=None, known_file=None,
              timeout=DEFAULT_TIMEOUT, spec_dir=None, progress=None):
    """Run the selected cases; returns (results, meta, suite). Raises AdapterError on setup errors."""
    suite = load_suite(spec, cases_dir)
    known = load_known_failures(known_file) if known_file else {}
    adapter = make_adapter(adapter_name, timeout, spec)
    session = Session(spec, adapter, known=known, adapter_name=adapter_name, spec_dir=spec_dir)
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
            "broken_files": [str(e) for e in suite.broken]}
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
        console.print(f"[bold red]{r.status.upper()}[/] {r.case} @ {r.variant}  "
                      f"rules: {', '.join(r.rules)}", highlight=False)
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
    console.print(f"{len(results)} case runs in {meta['seconds']:.2f} s ({rate:.0f} cases/s, "
                  f"{meta['steps']} steps): {counts or 'nothing selected'}", highlight=False)


@click.command("check")
@click.option("--adapter", "adapter_name", default="reference", show_default=True,
              help="reference, python:MODULE:CLASS or cmd:COMMAND LINE")
@click.option("--case", "cases", multiple=True, help="Case id or glob (repeatable).")
@click.option("--rule", "rules", multiple=True, help="Rule id or id prefix (repeatable).")
@click.option("--area", "areas", multiple=True, help="Rule area (repeatable).")
@click.option("--variant", "variants", multiple=True, help="Only runs under this preset (repeatable).")
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
def check_command(ctx, adapter_name, cases, rules, areas, variants, cases_dir, known_file, timeout,
                  report_file, junit_file, html_file, quiet):
    """Run the conformance suite against an engine and report every difference."""
    spec = _load(ctx)
    unknown = [v for v in variants if v not in spec.presets]
    if unknown:
        raise UserError(f"unknown preset {unknown[0]!r}; presets: {', '.join(spec.presets)}")
    area_ids = [a["id"] for a in spec.areas]
    bad_area = [a for a in areas if a not in area_ids]
    if bad_area:
        raise UserError(f"unknown area {bad_area[0]!r}; areas: {', '.join(area_ids)}")
    selection = Selection(tuple(cases), tuple(rules), tuple(areas), tuple(variants))
    console = Console(stderr=True)
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, transient=True,
                      disable=quiet or not console.is_terminal) as progress:
            results, meta, suite = run_suite(spec, adapter_name, selection, cases_dir=cases_dir,
                                             known_file=known_file, timeout=timeout,
                                             spec_dir=ctx.obj.get("spec_dir"), progress=progress)
    except AdapterError as exc:
        raise UserError(str(exc)) from None
    for path, writer in ((report_file, reports.write_json), (junit_file, reports.write_junit),
                         (html_file, reports.write_html)):
        if path:
            try:
                writer(path, results, meta)
            except OSError as exc:
                raise UserError(f"can't write {path}: {exc.strerror}") from None
    _print_summary(Console(), results, meta, suite)
    if not results and (cases or rules or areas):
        raise UserError("the selection matches no case")
    sys.exit(exit_code(results) or (1 if suite.broken else 0))
