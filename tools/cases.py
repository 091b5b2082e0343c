"""`durak cases`: record conformance cases with the reference interpreter (record, golden, cover,
match), and reach their positions from deals (from-deal)."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import click

from durak_spec.conformance.cases import CASES_DIR, CaseError, dump_case, load_suite, write_case
from durak_spec.conformance.fromdeal import reach
from durak_spec.conformance.matches import check_match_case, record_match
from durak_spec.conformance.record import coverage_case, golden_case, record_case
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.yamlio import InputError, load_file
from durak_spec.tools.common import ProgressReport, UserError, _load, generated_root
from durak_spec.tools.lint.coverage import coverage, gaps, load_untested
from durak_spec.tools.match import match_overrides


@click.group("cases")
def cases_group():
    """Record conformance cases with the reference interpreter."""


@cases_group.command("record")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@click.option("--state", type=click.Choice(["every", "last", "none"]), default="last", show_default=True,
              help="After which steps to record the state.")
@click.option("--legal", type=click.Choice(["every", "last", "none"]), default="last", show_default=True,
              help="After which steps to record the legal actions.")
@click.pass_context
def record_command(ctx, files, state, legal):
    """Check each case's claimed verdicts on the reference and fill in state and legal sets."""
    spec = _load(ctx)
    for name in files:
        try:
            data = load_file(name)
            if not isinstance(data, dict) or "id" not in data or "setup" not in data or "steps" not in data:
                raise UserError(f"{name}: a case needs id, setup and steps")
            # A hand-written step claims `accept` unless it says otherwise.
            steps = [{"expect": "accept", **{k: v for k, v in s.items()
                                             if k in ("do", "expect", "rule", "note", "state", "legal")}}
                     if isinstance(s, dict) else {"do": s, "expect": "accept"}
                     for s in data["steps"]]
            case = record_case(spec, id=data["id"], description=data.get("description", ""),
                               rules=data.get("rules", []), setup=data["setup"], steps=steps,
                               variants=data.get("variants"), options=data.get("options"),
                               state=state, legal=legal,
                               start_legal=data.get("legal") or "legal" in data,
                               generated=data.get("generated"))
            root = Path(name).resolve().parents[len(Path(data["id"]).parts) - 1]
            path = write_case(case, spec, root)
        except (CaseError, DurakError, InputError) as exc:
            raise UserError(f"{name}: {exc}") from None
        click.echo(f"recorded {path}")


@cases_group.command("golden")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Preset to record (repeatable; default: every preset).")
@click.option("--players", "players", multiple=True, type=int,
              help="Player count (repeatable; default: 2 to 6).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the deals.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Root folder for the cases (default: durak-cases/ in the current folder).")
@click.option("--write-shipped", is_flag=True,
              help="Write into the shipped suite (conformance/cases): in a git checkout only.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or status lines.")
@click.pass_context
def golden_command(ctx, variants, players, seed, out_dir, write_shipped, quiet):
    """Write golden playthroughs: whole seeded games with state and legal set after every step."""
    root = generated_root(out_dir, "durak-cases", write_shipped)
    spec = _load(ctx)
    for v in variants:
        if v not in spec.presets:
            raise UserError(f"unknown preset {v!r}; presets: {', '.join(spec.presets)}")
    jobs = [(v, n) for v in variants or spec.presets for n in players or range(2, 7)]
    with ProgressReport("cases golden", len(jobs), "cases", quiet=quiet) as progress:
        for v, n in jobs:
            try:
                case = golden_case(spec, v, n, seed)
                path = write_case(case, spec, root)
            except DurakError as exc:
                raise UserError(str(exc)) from None
            progress.console.print(f"wrote {path} ({len(case['steps'])} steps)", highlight=False,
                                   markup=False, soft_wrap=True)
            progress.advance()


@cases_group.command("cover")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Root folder for the cases (default: durak-cases/ in the current folder).")
@click.option("--write-shipped", is_flag=True,
              help="Write into the shipped suite (conformance/cases): in a git checkout only.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or status lines.")
@click.pass_context
def cover_command(ctx, out_dir, write_shipped, quiet):
    """Generate a case for every coverage gap lint reports, by random play from seeded deals: the
    gaps of the suite under --out, or of the shipped suite when the cases go to durak-cases/."""
    root = generated_root(out_dir, "durak-cases", write_shipped)
    spec = _load(ctx)
    suite = root if out_dir is not None or write_shipped else CASES_DIR
    missing = gaps(coverage(spec, load_suite(spec, suite), load_untested()))
    with ProgressReport("cases cover", len(missing), "gaps", quiet=quiet,
                        failures="not found") as progress:
        for need in missing:
            case = coverage_case(spec, need.preset, need.rule, need.verdict, need.kinds)
            progress.advance(failures=case is None)
            if case is None:
                click.echo(f"not found: {need.verdict} for {need.rule} under {need.preset}; "
                           "write it by hand or list it in untested.yaml", err=True)
                continue
            path = write_case(case, spec, root)
            click.echo(f"wrote {path} ({len(case['steps'])} steps)")


@cases_group.command("match")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Preset whose match to record (repeatable; default: podkidnoy).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option of each preset (repeatable), e.g. match_target=8.")
@click.option("--players", "players", multiple=True, type=int,
              help="Player count (repeatable; default: 3).")
@click.option("--deals", type=int, default=None,
              help="Record matches of this many deals (sets match_end=deals and match_deals).")
@click.option("--max-deals", type=click.IntRange(min=1), default=None,
              help="Stop recording a match after this many deals (the case then ends mid-match).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the match.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Root folder for the cases (default: durak-cases/ in the current folder); a "
                   "case goes to match/.")
@click.option("--write-shipped", is_flag=True,
              help="Write into the shipped suite (conformance/cases): in a git checkout only.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or status lines.")
@click.pass_context
def match_cases_command(ctx, variants, options, players, deals, max_deals, seed, out_dir,
                        write_shipped, quiet):
    """Write match cases: a random match on the reference as a sequence of deals (cards, script)
    with what each deal scores (conformance/matches.py; run by durak check on engines that
    declare "match")."""
    root = generated_root(out_dir, "durak-cases", write_shipped)
    spec = _load(ctx)
    for v in variants:
        if v not in spec.presets:
            raise UserError(f"unknown preset {v!r}; presets: {', '.join(spec.presets)}")
    overrides = match_overrides(spec, options, deals)
    jobs = [(v, n) for v in variants or ("podkidnoy",) for n in players or (3,)]
    with ProgressReport("cases match", len(jobs), "cases", quiet=quiet) as progress:
        for v, n in jobs:
            try:
                case = record_match(spec, v, n, seed, max_deals, overrides)
            except DurakError as exc:
                raise UserError(str(exc)) from None
            problem = check_match_case(spec, case["id"], case)
            if problem:  # the reference disagrees with its own recording: a bug, never a case
                raise UserError(f"{case['id']}: {problem}")
            path = root / f"{case['id']}.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dump_case(case))
            deals_made = case["match"]["deals"]
            over = "over" if deals_made and deals_made[-1]["expect"]["over"] else "not over"
            progress.console.print(f"wrote {path} ({len(deals_made)} deals, {over})",
                                   highlight=False, markup=False, soft_wrap=True)
            progress.advance()


@cases_group.command("from-deal")
@click.option("--cases-dir", "cases_dir", type=click.Path(file_okay=False, exists=True), default=None,
              help="Root folder of the cases (default: the shipped suite).")
@click.option("--case", "patterns", multiple=True, metavar="GLOB", help="Case ids (repeatable).")
@click.option("--write", is_flag=True,
              help="Write each case's `from_deal` block into its file (else only report).")
@click.option("--drop-unreachable", is_flag=True,
              help="With --write: take the presets under which a generated case's position is "
                   "unreachable out of its variants, and retire a case left with none.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or status lines.")
@click.pass_context
def from_deal_command(ctx, cases_dir, patterns, write, drop_unreachable, quiet):
    """Find, for each case that starts from a mid-deal position, the deal and the legal actions
    that reach it under each of its presets (conformance/fromdeal.py), or why none does."""
    if drop_unreachable and not write:
        raise UserError("--drop-unreachable changes case files: give --write too")
    spec = _load(ctx)
    root = Path(cases_dir) if cases_dir else CASES_DIR
    suite = load_suite(spec, root)
    picked = [c for c in suite.cases if c.is_position and
              (not patterns or any(fnmatch.fnmatchcase(c.id, p) for p in patterns))]
    if not picked:
        raise UserError(f"no case that starts from a position under {root}")
    counts: dict[str, int] = {}
    retired = 0
    with ProgressReport("cases from-deal", len(picked), "cases", quiet=quiet) as progress:
        for case in picked:
            block = {}
            for preset in case.variants:
                found = reach(spec.ruleset(preset, case.options), case.setup,
                              [s.action for s in case.steps])
                block[preset] = found.to_json()
                counts[found.status] = counts.get(found.status, 0) + 1
                if found.status != "found":
                    progress.console.print(f"{case.id} under {preset}: {found.status}: {found.why}",
                                           highlight=False, markup=False, soft_wrap=True)
            if write:
                data = load_file(case.file)
                if drop_unreachable and data.get("generated"):
                    block = {p: b for p, b in block.items() if "unreachable" not in b}
                    data["variants"] = [p for p in data.get("variants", []) if p in block]
                if not block:
                    Path(case.file).write_text(dump_case(
                        {"id": case.id, "retired": "its position is unreachable from a deal under "
                         "every preset it ran under (durak cases from-deal)"}))
                    retired += 1
                else:
                    data["from_deal"] = block
                    Path(case.file).write_text(dump_case(data))
            progress.advance()
    click.echo(", ".join(f"{n} {s}" for s, n in sorted(counts.items())) +
               (f"; wrote {len(picked)} case file(s) under {root}" if write else "") +
               (f", {retired} retired" if retired else ""))
