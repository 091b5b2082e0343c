"""`durak lint`: the command; the checks are spec.py (the spec itself), cases.py (the suite) and
coverage.py (accepting and rejecting cases for every legality rule)."""

from __future__ import annotations

import json
import sys

import click

from durak_spec.tools.common import ProgressReport, UserError, _load, in_checkout
from durak_spec.tools.lint.cases import lint_cases
from durak_spec.tools.lint.index import stale_indexes, write_indexes
from durak_spec.tools.lint.spec import lint


@click.command("lint")
@click.option("--cases-dir", type=click.Path(file_okay=False, exists=True), default=None,
              help="Lint the cases under this folder instead of the shipped suite.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Text for people, JSON for programs.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or status lines.")
@click.option("--write-index", is_flag=True,
              help="In a checkout of the repository, rewrite spec/index.jsonl and "
                   "conformance/cases/index.jsonl (what each shipped file parses to, so that "
                   "commands need not parse and validate it again) when lint finds no problem.")
@click.pass_context
def lint_command(ctx, cases_dir, fmt, quiet, write_index):
    """Check spec/ and the conformance suite for consistency and coverage; exit 1 on problems."""
    shipped = ctx.obj.get("spec_dir") is None and cases_dir is None
    if write_index and not (shipped and in_checkout()):
        raise UserError("--write-index rewrites the indexes of the shipped spec and cases of a git "
                        "checkout of durak-spec (an installed package is never written into); "
                        "give neither --spec nor --cases-dir")
    spec = _load(ctx, full=True)
    report = lint(spec)
    with ProgressReport("lint", None, "case runs", quiet=quiet or fmt == "json",
                        failures="problems") as progress:
        lint_cases(spec, report, cases_dir, progress)
    if shipped:
        if write_index and not report.problems:
            for path in write_indexes(spec):
                report.notes.append(f"wrote {path}")
        elif write_index:
            report.notes.append("the indexes were not rewritten: lint found problems")
        else:
            for path in stale_indexes(spec):
                report.notes.append(f"{path} is out of date: the files it does not hold are parsed "
                                    "and validated at every run; `durak lint --write-index` "
                                    "rewrites it")
    if fmt == "json":
        click.echo(json.dumps({"counts": report.counts, "notes": report.notes,
                               "problems": report.problems}, indent=2, default=str))
        sys.exit(1 if report.problems else 0)
    for note in report.notes:
        click.echo(f"note: {note}")
    for problem in report.problems:
        click.echo(f"problem: {problem}", err=True)
    counts = ", ".join(f"{v} {k}" for k, v in report.counts.items())
    click.echo(f"{counts}: {len(report.problems)} problem(s)")
    if report.problems:
        sys.exit(1)
