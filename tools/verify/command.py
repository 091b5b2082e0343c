"""`durak verify`: z3 checks of the specification itself, from the same clauses the interpreter
compiles (backend/translate.py is the clause language's second backend).

For every preset: the consistency of its deal and options (presets.py); every invariant of
spec/invariants.yaml proved per action kind and bout end (run.py), or a counterexample replayed on
the interpreter and written as a conformance case; the D1 hand-bound equivalence (equiv.py); with
--write-boundary, boundary cases for every legality clause (boundary.py). Exit 1 when anything has a counterexample or a preset problem.
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import click
from rich.console import Console
from rich.table import Table

from durak_spec.reference_impl.errors import DurakError, suggest
from durak_spec.tools.common import (
    ProgressReport,
    UserError,
    _load,
    _parse_options,
    generated_root,
)
from durak_spec.tools.verify.backend.values import Untranslatable
from durak_spec.tools.verify.boundary import skip_notes, write_boundary_cases
from durak_spec.tools.verify.cases import (
    clear_counterexamples,
    counterexample_case,
    write_case,
)
from durak_spec.tools.verify.equiv import render_equivalences
from durak_spec.tools.verify.invariants import LEMMAS, STEPS
from durak_spec.tools.verify.match import render_matches
from durak_spec.tools.verify.presets import pack, render_presets
from durak_spec.tools.verify.report import verify_report, write_report
from durak_spec.tools.verify.run import verify_preset

SYMBOL = {"proved": "✓", "never": "·", "bounded": "≤{depth}", "counterexample": "✗"}
HEADINGS = {"bout_beaten_off": "beaten off", "bout_taken": "taken"}


def _cell_text(cell) -> str:
    text = SYMBOL[cell.status].format(depth=cell.depth)
    return f"[red]{text}[/red]" if cell.status == "counterexample" else \
        f"[yellow]{text}[/yellow]" if cell.status == "bounded" else text


def _player_range(ruleset, players):
    lo, hi = ruleset.player_limits
    if not players:
        return list(range(lo, hi + 1))
    for n in players:
        if not lo <= n <= hi:
            raise click.UsageError(f"--players {n}: this deck is for {lo} to {hi} players")
    return sorted(set(players))


def _counts(spec, preset, overrides, players, presets):
    """The player counts to prove `preset` at: those where no earlier preset checked in this run
    plays its deals exactly as it does (Spec.deal_twin)."""
    counts = _player_range(spec.ruleset(preset, overrides), players)
    return [n for n in counts if spec.deal_twin(preset, n) not in presets] or counts


def chains(spec, presets, overrides, twins) -> list[list[int]]:
    """The presets (indexes into `presets`) in runs that one worker checks one after the other:
    a preset joins the run of the one listed just before it when their rulesets deal the same
    pack and differ in one option value, and neither is a twin. Their clauses then translate
    alike wherever that option is not read, so their inductions ask many of the same questions,
    which a worker answers once (invariants.check); in two workers each would ask them."""
    rulesets = [spec.ruleset(p, overrides) for p in presets]
    out: list[list[int]] = []
    for i, r in enumerate(rulesets):
        if i and not twins[presets[i]] and not twins[presets[i - 1]] and out[-1][-1] == i - 1:
            q = rulesets[i - 1]
            differ = [n for n in r.options.keys() | q.options.keys()
                      if r.options.get(n) != q.options.get(n)]
            if len(differ) == 1 and pack(r.deck) == pack(q.deck):
                out[-1].append(i)
                continue
        out.append([i])
    return out


def _verify_run(args: list) -> list:
    """verify_preset for each preset of a run, in order, in one process."""
    return [verify_preset(*a) for a in args]


def run_all(spec, presets, overrides, players, depth, jobs, equivalences, progress=None):
    twins = {p: spec.deal_twin(p) for p in presets}
    args = [(str(spec.root), p, overrides, _counts(spec, p, overrides, players, presets), depth,
             equivalences, LEMMAS, twins[p] if twins[p] in presets else None,
             _player_range(spec.ruleset(p, overrides), players)) for p in presets]
    if progress is not None:
        progress.set_total(len(args))
    if jobs > 1 and len(args) > 1:
        # The most work first: a twin checks only its match rules, the others prove their deals
        # at each player count; cheap runs then fill the end of the run, not one long one.
        work = [0 if twin else len(counts) for _, _, _, counts, _, _, _, twin, _ in args]
        runs = chains(spec, presets, overrides, {p: a[7] for p, a in zip(presets, args)})
        runs.sort(key=lambda run: -sum(work[i] for i in run))
        reports = [None] * len(args)
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_verify_run, [args[i] for i in run]): run for run in runs}
            for future in as_completed(futures):
                failed = future.exception() is not None
                for i, report in zip(futures[future], [] if failed else future.result()):
                    reports[i] = report
                if progress is not None:
                    progress.advance(len(futures[future]), failures=failed or sum(
                        _problems(reports[i]) for i in futures[future]))
            for future in futures:
                future.result()  # raise a worker's exception
            return reports
    reports = []
    for a in args:
        reports.append(verify_preset(*a))
        if progress is not None:
            progress.advance(failures=_problems(reports[-1]))
    return reports


def _problems(report) -> int:
    return len(report.problems) + sum(c.status == "counterexample" for c in report.cells.values())


def render(console, report, only: str | None):
    table = Table(title=f"{report.preset}: invariants and lemmas, per step (players "
                        f"{', '.join(map(str, report.players))})", title_justify="left")
    # the ids stay whole (they are what one greps for); step headings fold on a narrow terminal
    table.add_column("property", min_width=max((len(pid) for pid, _, _ in report.props), default=8))
    for step in STEPS:
        table.add_column(HEADINGS.get(step, step), justify="center", overflow="fold")
    for pid, title, lemma in report.props:
        if only and pid != only:
            continue
        row = [f"{pid}" + (" [dim](lemma)[/dim]" if lemma else "")]
        row += [_cell_text(report.cells[(pid, step)]) for step in STEPS]
        table.add_row(*row)
    console.print(table)
    for pid, title, lemma in report.props:
        if only and pid != only:
            continue
        for step in STEPS:
            cell = report.cells[(pid, step)]
            if cell.status == "bounded":
                console.print(f"  {pid} / {HEADINGS.get(step, step)}: proved up to depth "
                              f"{cell.depth} from every deal (players {cell.players}); "
                              f"{cell.note}", highlight=False)
            elif cell.status == "counterexample":
                where = f"players {cell.players}"
                console.print(f"  [red]{pid} / {HEADINGS.get(step, step)}: counterexample[/red] "
                              f"({where})", highlight=False)
                if cell.cex is not None:
                    console.print(f"    position: {json.dumps(cell.cex.position.setup)}",
                                  highlight=False, soft_wrap=True)
                    console.print(f"    action:   {cell.cex.position.actions[0]}", highlight=False)
                    console.print(f"    after it, the interpreter finds failing: "
                                  f"{', '.join(cell.cex.failed)}", highlight=False)
                else:
                    console.print(f"    {cell.note}", highlight=False)


@click.command("verify")
@click.option("--variant", "variants", multiple=True, metavar="PRESET",
              help="Preset to check (repeatable); default: every preset.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option of each preset checked (repeatable).")
@click.option("--invariant", "only", default=None, metavar="ID",
              help="Show and resolve only this invariant (or lemma); all are still assumed.")
@click.option("--players", type=int, multiple=True,
              help="Player count to check (repeatable); default: every count the deck allows.")
@click.option("--depth", type=click.IntRange(1, 12), default=4, show_default=True,
              help="Steps of bounded model checking where induction does not go through.")
@click.option("--out", "cases_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Where generated conformance cases go (default: durak-verify/ in the current "
                   "folder).")
@click.option("--write-boundary", is_flag=True,
              help="Also generate the boundary cases of every legality clause.")
@click.option("--write-shipped", is_flag=True,
              help="Write generated cases into the shipped suite (conformance/cases/generated/): "
                   "for regenerating it in a git checkout of durak-spec.")
@click.option("--jobs", type=click.IntRange(1, 16), default=min(2, os.cpu_count() or 1),
              show_default=True, help="Presets checked in parallel.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, writable=True),
              default=None, metavar="FILE",
              help="Write the results as JSON (conformance/schemas/verify-report.schema.json); "
                   "the docs read it with sphinx-build -D durak_verify=FILE.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or status lines.")
@click.pass_context
def verify_command(ctx, variants, options, only, players, depth, cases_dir, write_boundary,
                   write_shipped, jobs, report_path, quiet):
    """Prove the spec's invariants with z3 per preset, or print counterexamples (written as
    conformance cases under --out)."""
    started = time.perf_counter()
    root = generated_root(cases_dir, "durak-verify", write_shipped)
    spec = _load(ctx)
    overrides = _parse_options(options)
    presets = list(variants) or list(spec.presets)
    for p in presets:
        if p not in spec.presets:
            raise UserError(f"--variant: unknown preset {p!r}.{suggest(p, spec.presets)} "
                            f"Presets: {', '.join(spec.presets)}")
    try:
        rulesets = {p: spec.ruleset(p, overrides) for p in presets}
    except DurakError as exc:
        raise UserError(str(exc)) from None
    if only is not None:
        ids = [inv["id"] for inv in spec.invariants] + [lem.id for lem in LEMMAS]
        if only in [inv["id"] for inv in spec.invariants if inv["scope"] == "deal_end"]:
            pass  # a match invariant: shown in the match table
        if only not in ids:
            raise UserError(f"--invariant: unknown invariant {only!r}.{suggest(only, ids)}")
    console = Console(highlight=False, soft_wrap=False, width=max(120, Console().width))
    failures = 0
    try:
        with ProgressReport("verify", len(presets), "presets", quiet=quiet,
                            failures="problems") as progress:
            reports = run_all(spec, presets, overrides, players, depth, jobs, only is None,
                               progress)
    except (Untranslatable, DurakError) as exc:
        raise UserError(f"durak verify: {exc}") from None
    for report in reports:
        if report.twin is not None:
            console.print(f"{report.preset}: plays every deal as {report.twin} does (only its "
                          f"match options differ): {report.twin}'s deal proofs are its own",
                          highlight=False)
            continue
        render_presets(console, report)
        others = sorted(set(report.match.players) - set(report.players))
        if others:
            console.print(f"{report.preset}: at {', '.join(map(str, others))} players it plays "
                          f"every deal as {spec.deal_twin(report.preset, others[0])} does, whose "
                          "proofs are its own there", highlight=False)
        failures += len(report.problems)
        render(console, report, only)
        for pid, _, _ in report.props:  # this run's counterexamples replace the last run's
            if not only or pid == only:
                clear_counterexamples(root, pid, report.preset)
        for (pid, step), cell in report.cells.items():
            if only and pid != only:
                continue
            if cell.status == "counterexample":
                failures += 1
                if cell.cex is not None:
                    title = dict((i, t) for i, t, _ in report.props)[pid]
                    path = write_case(root, counterexample_case(cell.cex, rulesets[report.preset],
                                                                title), spec)
                    console.print(f"    written as {path}", highlight=False)

        if report.equivalences:
            render_equivalences(console, report.equivalences)
            failures += sum(1 for f in report.equivalences if f.agrees is False)
    failures += render_matches(console, reports, only)
    boundary = None
    if write_boundary:
        written, boundary = write_boundary_cases(spec, presets, root)
        console.print(f"boundary cases: {len(written)} written under "
                      f"{root / 'generated' / 'boundary'}", highlight=False)
        for note in skip_notes(boundary):
            console.print(f"  skipped: {note}", highlight=False)

    seconds = time.perf_counter() - started
    if report_path is not None:
        try:
            write_report(report_path, verify_report(reports, failures, seconds, overrides,
                                                    boundary))
        except OSError as exc:
            raise UserError(f"--report {report_path}: can't write it: {exc.strerror}") from None
    counts = sorted({n for r in reports for n in r.players})
    console.print(f"durak verify: {len(presets)} preset(s), players {', '.join(map(str, counts))}: "
                  f"{failures} problem(s); run time {seconds:.1f} s", highlight=False)
    if failures:
        sys.exit(1)
