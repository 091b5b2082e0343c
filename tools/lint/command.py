"""`durak lint`: the command; the checks are spec.py (the spec itself), cases.py (the suite) and
coverage.py (accepting and rejecting cases for every legality rule)."""

from __future__ import annotations

import sys

import click

from durak_spec.tools.common import _load
from durak_spec.tools.lint.cases import lint_cases
from durak_spec.tools.lint.spec import lint


@click.command("lint")
@click.option("--cases-dir", type=click.Path(file_okay=False, exists=True), default=None,
              help="Lint the cases under this folder instead of the shipped suite.")
@click.pass_context
def lint_command(ctx, cases_dir):
    """Check spec/ and the conformance suite for consistency and coverage; exit 1 on problems."""
    spec = _load(ctx)
    report = lint(spec)
    lint_cases(spec, report, cases_dir)
    for note in report.notes:
        click.echo(f"note: {note}")
    for problem in report.problems:
        click.echo(f"problem: {problem}", err=True)
    counts = ", ".join(f"{v} {k}" for k, v in report.counts.items())
    click.echo(f"{counts}: {len(report.problems)} problem(s)")
    if report.problems:
        sys.exit(1)
