"""`durak fuzz`: differential fuzzing campaigns of an engine against the reference
(conformance/fuzz.py).

Every distinct divergence is listed once, with the rule that decides it, its occurrences and the
path of its shrunk case, those found in the games played beyond the causes the run explained
(conformance/fuzz.py Campaign.beyond) marked so; the rule coverage of the campaign follows. Exit 0 when nothing new
diverged, 1 on new divergences (or a known one whose saved witness no longer diverges), 2 on usage
errors, 3 when the engine skipped more deals than it played or every deal at a player count (the
reasons are printed, grouped),
130 when interrupted by Ctrl-C or SIGTERM (what was found so far is reported and written, and the
reports say the run was interrupted).
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import click

from durak_spec.conformance import report as reports
from durak_spec.conformance.coverage import summary
from durak_spec.conformance.fuzz import (
    FuzzResult,
    flat,
    fuzz,
    group_causes,
    load_known,
    results_of,
)
from durak_spec.conformance.problems import find_problems, what_the_engine_does
from durak_spec.conformance.runner import exit_code, house_rule_options
from durak_spec.conformance.transport import (
    DEFAULT_TIMEOUT,
    START_TIMEOUT,
    AdapterError,
    EngineFault,
    make_adapter,
    raise_interrupted,
)
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.model import value_text
from durak_spec.reference_impl.spec import load_spec
from durak_spec.tools.common import (
    EXIT_INTERRUPTED,
    EXIT_TOO_LITTLE,
    EXIT_USAGE,
    Interruptions,
    ProgressReport,
    Seconds,
    UserError,
    _load,
    _parse_options,
    check_report_paths,
    interruption,
)


def fuzz_one(spec_dir, adapter_name, preset, options, players, games, seed_value, out_dir,
             timeout, shrink, known, database, progress=None) -> tuple[FuzzResult, dict, dict]:
    """One campaign (one worker): (result, the engine's hello, the options fuzzed under)."""
    spec = load_spec(spec_dir)
    adapter = make_adapter(adapter_name, timeout, spec)
    try:
        hello = adapter.open()
    except EngineFault as exc:
        raise AdapterError(f"engine {adapter_name} did not complete the handshake: {exc}") from None
    try:
        if preset not in hello.get("presets", []):
            raise AdapterError(f"engine {adapter_name} does not play preset {preset}; it plays "
                               f"{', '.join(hello.get('presets', [])) or 'nothing'}")
        # fuzz under the house rules the engine declares, per player count and preset as check
        # reads them: the counts that play alike share one campaign
        lo, hi = spec.ruleset(preset, options).player_limits
        counts = [n for n in ([players] if isinstance(players, int) else list(
            players or hello.get("players") or range(lo, hi + 1))) if lo <= n <= hi] or [lo]
        groups: dict = {}
        for n in counts:
            fixed = house_rule_options(spec, hello, preset, n, options)
            groups.setdefault(tuple(sorted(fixed.items(), key=lambda kv: kv[0])), []).append(n)
        results, done, shown = [], 0, {}
        for i, (key, group) in enumerate(groups.items()):
            share = games - done if i == len(groups) - 1 else games * len(group) // len(counts)
            done += share
            if share < 1:
                continue
            fixed = dict(key)
            shown[", ".join(map(str, group)) + " players"] = fixed
            results.append(fuzz(spec, adapter, hello, preset=preset, options=fixed,
                                players=group if players is not None or len(groups) > 1 else None,
                                games=share, seed_value=seed_value, out_dir=out_dir,
                                adapter_name=adapter_name, shrink=shrink, known=known,
                                database=database,
                                progress=None if progress is None else partial(_offset, progress,
                                                                               done - share)))
        res = results[0] if len(results) == 1 else merge(results)
        res.seconds = sum(r.seconds for r in results)  # the groups' campaigns ran one after another
        fixed = next(iter(shown.values())) if len(shown) == 1 else shown
    finally:
        adapter.close()
    return res, hello, fixed


def _offset(progress, before: int, game: int, found: int) -> None:
    """Progress of a campaign that follows `before` games of the same run."""
    progress(before + game, found)


def merge(results: list[FuzzResult]) -> FuzzResult:
    """One result of several workers' campaigns: divergences by signature (occurrences added,
    the shortest witness kept), coverage side by side."""
    out = FuzzResult()
    by_sig: dict = {}
    for r in results:
        out.games += r.games
        out.steps += r.steps
        out.seconds = max(out.seconds, r.seconds)
        out.skipped += r.skipped
        for n, (played, missed) in r.played_at.items():
            mine = out.played_at.setdefault(n, [0, 0])
            mine[0], mine[1] = mine[0] + played, mine[1] + missed
        for reason, n in r.skip_reasons.items():
            out.skip_reasons[reason] = out.skip_reasons.get(reason, 0) + n
        out.replayed += r.replayed
        out.errors += r.errors
        out.interrupted |= r.interrupted
        out.played_forms |= r.played_forms
        out.beyond_games += r.beyond_games
        out.beyond_as.update(r.beyond_as)
        out.beyond_stopped = out.beyond_stopped or r.beyond_stopped
        for e in flat(r.entries):  # each worker's root causes taken apart, grouped again below
            have = by_sig.get(e.signature)
            if have is None:
                by_sig[e.signature] = e
            else:
                have.count += e.count
                have.after &= e.after
                have.follows_from = [s for s in have.follows_from if s in e.follows_from]
                have.plain |= e.plain
                have.alternatives += [a for a in e.alternatives if a not in have.alternatives]
                if e.witness.length < have.witness.length:
                    have.witness, have.case, have.case_path = e.witness, e.case, e.case_path
        for rule, entry in r.coverage.items():
            mine = out.coverage.setdefault(rule, entry)
            for side in ("accept", "reject"):
                if entry[side]["exercised"] and not mine[side]["exercised"]:
                    mine[side] = entry[side]
    out.entries = group_causes(sorted(by_sig.values(), key=lambda e: (
        e.known is not None, bool(e.follows_from), e.first_game)))
    seen = {e.signature for e in flat(out.entries)}
    vanished: dict = {}
    for r in results:
        for sig, reason, replayed in r.vanished:
            if sig not in seen:
                vanished[sig] = (sig, reason, replayed or vanished.get(sig, ("", "", False))[2])
    out.vanished = list(vanished.values())
    return out


def _print(res: FuzzResult, adapter_name: str, preset: str, players, options, out_dir, jobs,
           quiet: bool, spec_dir) -> None:
    rate = res.games / res.seconds if res.seconds else 0.0
    who = f"{players} players" if players else "every player count it plays"
    click.echo(f"{adapter_name} under {preset} ({who}): {res.games} games, {res.steps} steps in "
               f"{res.seconds:.2f} s ({rate:.0f} games/s, {jobs} job(s))"
               + (f"; {res.replayed} saved witness(es) replayed first" if res.replayed else ""))
    if options:
        click.echo(f"options fixed by the engine's declared house rules and --option: {options}")
    if res.skipped:
        click.echo(f"{res.skipped} deal(s) skipped by the engine (outside what it plays), by reason:")
        for reason, n in sorted(res.skip_reasons.items(), key=lambda kv: -kv[1]):
            click.echo(f"  {n:5}  {reason}")
        if res.never_played:
            click.echo(f"TESTED TOO LITTLE: the engine skipped every deal at "
                       f"{', '.join(map(str, res.never_played))} players under {preset}; exit code "
                       "3 unless divergences decide it (1)")
        elif res.mostly_skipped:
            click.echo(f"TESTED TOO LITTLE: the engine skipped {res.skipped} of the "
                       f"{res.skipped + res.games} deals dealt under {preset}; exit code 3 unless "
                       "divergences decide it (1)")
    for err in res.errors:
        click.echo(f"error: {err}", err=True)
    new, known = res.new, [e for e in res.entries if e.known is not None]
    forms = sum(len(e.forms) for e in res.entries)
    click.echo(f"{len(res.entries)} distinct divergence(s): {len(new)} new, {len(known)} known; "
               f"{sum(1 for e in res.entries if not e.follows_from)} not the consequence of another"
               + (f"; {forms} more signature(s) shown as forms of these causes" if forms else ""))
    if res.beyond_stopped:
        click.echo(f"the games beyond the causes found stopped after {res.beyond_games}: "
                   f"{res.beyond_stopped}")
    if res.beyond_games:
        beyond = [e for e in flat(res.entries) if e.beyond]
        click.echo(f"{res.beyond_games} more game(s) with the reference playing as the causes found "
                   f"explain them ({_as_text(res.beyond_as)}), to reach what they hide: "
                   f"{len(beyond)} divergence(s) found there, each shown again under {preset}")
    spec_opt = f" --spec {shlex.quote(spec_dir)}" if spec_dir else ""
    for e in res.entries:
        w = e.witness
        tag = "NEW  " if e.known is None else "known"
        click.echo(f"{tag} {w.signature}: seen {e.total} time(s), first in game {e.first_game}"
                   + (" (replayed from the database)" if e.replayed else ""))
        click.echo(f"      rule: {w.rule or '-'}; {w.message}")
        if e.follows_from:
            click.echo(f"      {_follows(e)}")
        if e.beyond:
            click.echo(f"      found beyond the other causes: in a game where the reference played "
                       f"as {_as_text(e.beyond)}; its case is under {preset}")
        if w.diagnosis:
            click.echo(f"      diagnosis: {w.diagnosis}")
        if e.known is not None:
            click.echo(f"      known: {e.known}")
        if e.case_path:
            start = "a mid-deal position" if _is_position(w.setup) else "a deal"
            click.echo(f"      case: {e.case_path} ({len(w.steps)} step(s) from {start}; "
                       f"found in {e.found_length})")
            if not quiet:
                click.echo(f"      replay: durak{spec_opt} check --adapter "
                           f"{shlex.quote(adapter_name)} --cases-dir {shlex.quote(str(out_dir))} "
                           f"--case {e.case['id']} --variant {preset}")
        for f in e.forms:  # the same root cause, seen as another kind or named otherwise
            why = (_follows(f) if f.follows_from else
                   "same rule" if f.witness.rule == w.rule else
                   f"{w.rule} explains it as well")
            click.echo(f"      also as {f.signature}: seen {f.count} time(s) ({why}); "
                       f"{f.witness.message}")
            if f.case_path:
                click.echo(f"        case: {f.case_path} ({len(f.witness.steps)} step(s))")
    for sig, reason, replayed in res.vanished:
        state = "VANISHED (its saved witness no longer diverges: update the ledger)" if replayed \
            else "not reached (no saved witness to replay)"
        click.echo(f"known {sig}: {state}; ledger: {reason}")
    if not res.steps:  # what the reference explored alone is no coverage of the engine
        click.echo(f"rule coverage: none claimed: the engine played no step of the {res.games} "
                   f"game(s)\nTESTED TOO LITTLE: no step was tested under {preset}; exit code 3 "
                   "unless divergences other than engine errors decide it (1)")
        return
    done, total, missing = summary(res.coverage)
    click.echo(f"rule coverage: {done} of {total} clause sides that can decide under {preset} were "
               f"exercised" + (f"; not reached: {', '.join(f'{r} {s}' for r, s in missing)}"
                               if missing else ""))
    if not quiet:
        for rule, entry in sorted(res.coverage.items()):
            cells = []
            for side in ("accept", "reject"):
                e = entry[side]
                if e["target"] is None:
                    cells.append(f"{side} -")
                else:
                    game = e["edge"] if e["target"] == "edge" else e["decided"]
                    cells.append(f"{side} {'game ' + str(game) if game is not None else 'NOT REACHED'}"
                                 f"{' (edge)' if e['target'] == 'edge' else ''}")
            click.echo(f"  {rule:28s} {cells[0]:28s} {cells[1]}")


def _as_text(values: dict) -> str:
    """Option values and changed clauses (FuzzResult.beyond_as) as one line."""
    return "; ".join(f"{k}: {v}" if k.startswith("rule ") else f"{k} = {v}"
                     for k, v in values.items())


def _follows(e) -> str:
    """Why a divergence is probably the consequence of earlier ones (Entry.follows_from)."""
    if getattr(e, "together", False):
        return (f"follows {' and '.join(e.follows)} together: replayed with the reference as they "
                "explain them, all at once, it no longer shows (probably their consequence where "
                "they meet)")
    changed = getattr(e, "changed", {})
    agreed = [s for s in e.follows if s not in e.explained and s not in changed]
    parts = [f"follows {', '.join(agreed)}: replayed with that difference taken as agreed, it "
             "no longer shows (probably its consequence)"] if agreed else []
    for sig, change in e.explained.items():
        values = " and ".join(f"{k} = {value_text(v)}" for k, v in change.items())
        parts.append(f"follows {sig}: replayed with the reference under {values}, which explains "
                     "that one, neither shows (probably its consequence)")
    for sig, change in changed.items():
        parts.append(f"follows {sig}: replayed with the reference's {change['rule']} changed as "
                     "its diagnosis found (no option explains it), neither shows (probably its "
                     "consequence)")
    return "; ".join(parts)


def print_problems(problems: list) -> None:
    """The divergences of every campaign grouped by root cause: one line per problem."""
    if not problems:
        return
    click.echo(f"{len(problems)} problem(s) behind the divergences:")
    for i, p in enumerate(problems, 1):
        click.echo(f"PROBLEM {i} {p['rule'] or '(no rule)'}: {what_the_engine_does(p['kind'])} "
                   f"({p['count']} occurrence(s), {len(p['cases'])} signature(s); under "
                   f"{', '.join(p['presets'])}): {p['message']}")


def _is_position(setup: dict) -> bool:
    return any(k in setup for k in ("table", "defender", "taking", "passed", "out", "bout",
                                    "beaten_bouts", "discard"))


@click.command("fuzz")
@click.option("--adapter", "adapter_name", default="reference", show_default=True,
              help="reference, python:MODULE:CLASS or cmd:COMMAND LINE")
@click.option("--variant", "variants", multiple=True,
              help="Preset to play (repeatable; default podkidnoy). One campaign per preset.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="Option override.")
@click.option("--players", type=int, multiple=True,
              help="Player count (repeatable; games cycle through them). Default: every count "
                   "the engine plays.")
@click.option("--games", type=int, default=200, show_default=True, help="Games per campaign.")
@click.option("--seed", "seed_value", type=int, default=0, show_default=True,
              help="Seed of the campaign (the same seed plays the same games).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes; they split the games and share what they find through the "
                   "example database.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="durak-fuzz",
              show_default=True, help="Output folder: shrunk cases, and the default example database.")
@click.option("--known", "known_file", type=click.Path(dir_okay=False),
              help="YAML ledger `known_divergences: {SIGNATURE: reason}` of accepted divergences: "
                   "they are reported as known and never hide others.")
@click.option("--database", metavar="URL",
              help="Where witnesses are saved and replayed first: a folder, or redis://HOST:PORT/DB "
                   "(hypothesis's Redis example database; pip install 'durak-spec[redis]') shared "
                   "by campaigns on several processes or machines. Default: OUT/.hypothesis.")
@click.option("--timeout", type=Seconds(), default=None,
              help=f"Seconds an engine may take over each answer, its handshake included (python: "
                   f"and cmd:).  [default: {DEFAULT_TIMEOUT:g}, and {START_TIMEOUT:g} for the "
                   f"handshake]")
@click.option("--no-shrink", is_flag=True, help="Report divergences without shrinking them.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False),
              help="Write a JSON report (schemas/report.schema.json).")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), help="Write JUnit XML.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), help="Write an HTML report.")
@click.option("--quiet", "-q", is_flag=True, help="Shorter output: no replay commands or coverage table.")
@click.pass_context
def fuzz_command(ctx, adapter_name, variants, options, players, games, seed_value, jobs, out_dir,
                 known_file, database, timeout, no_shrink, report_file, junit_file, html_file, quiet):
    """Play random games in lockstep on the reference and an engine; report every distinct
    divergence, each shrunk to a short case. Where the run explains its causes (a house rule the
    engine plays), half as many games again are played as they explain it, so that one bug does
    not hide another."""
    spec = _load(ctx)
    variants = variants or ("podkidnoy",)
    for variant in variants:
        if variant not in spec.presets:
            raise UserError(f"unknown preset {variant!r}; presets: {', '.join(spec.presets)}")
    overrides = _parse_options(options)
    try:
        for variant in variants:
            spec.ruleset(variant, overrides)
    except DurakError as exc:
        raise UserError(str(exc)) from None
    lo, hi = spec.deck_data["players"]["min"], spec.deck_data["players"]["max"]
    for n in players:
        if not lo <= n <= hi:
            raise UserError(f"--players {n}: this deck is for {lo} to {hi} players")
    if games < 1 or jobs < 1:
        raise UserError("--games and --jobs must be at least 1")
    try:
        known = load_known(known_file, spec) if known_file else {}
    except AdapterError as exc:
        raise UserError(str(exc)) from None
    paths = {"json": report_file, "junit": junit_file, "html": html_file}
    check_report_paths(paths)  # before the run: a bad path loses nothing
    problem = check_out_dir(out_dir)
    if problem:
        raise UserError(f"--out {out_dir}: {problem}")
    spec_dir = ctx.obj.get("spec_dir")
    started = reports.now()
    all_results, metas, interrupted, too_little, how = [], [], False, False, ""
    played_nothing = False  # a campaign in which the engine played no step
    with Interruptions() as signals:  # SIGTERM too writes the partial reports
        for variant in variants:
            shares = [games // jobs + (1 if i < games % jobs else 0) for i in range(jobs)]
            args = [(spec_dir, adapter_name, variant, overrides, list(players) or None, share,
                     seed_value + i, out_dir, timeout, not no_shrink, known, database)
                    for i, share in enumerate(shares) if share]
            try:
                if len(args) == 1:
                    with ProgressReport(f"fuzz {variant}", games, "games", quiet=quiet,
                                        failures="divergences") as progress:
                        def advance(game, found, progress=progress):
                            progress.advance(failures=found - progress.failures)

                        outs = [fuzz_one(*args[0], progress=advance)]
                else:
                    with ProcessPoolExecutor(len(args), initializer=_worker_signals) as pool:
                        # a signal stops the workers, which return what they found
                        signals.forward = partial(_stop_workers, pool)
                        try:
                            outs = list(pool.map(fuzz_one, *zip(*args)))
                        finally:
                            signals.forward = None
            except (AdapterError, DurakError) as exc:
                raise UserError(str(exc)) from None
            except KeyboardInterrupt as exc:
                interrupted, how = True, interruption(exc)
                break
            res = merge([o[0] for o in outs])
            hello, fixed = outs[0][1], outs[0][2]
            if res.interrupted or signals.signal_name:
                interrupted, how = True, signals.how
            too_little |= res.mostly_skipped or not res.steps
            played_nothing |= not res.steps
            _print(res, adapter_name, variant, list(players), fixed, out_dir, len(args), quiet,
                   spec_dir)
            all_results += results_of(res, variant, adapter_name, spec_dir, out_dir)
            metas.append({"variant": variant, "options": fixed, "players": list(players) or None,
                          "games": res.games, "steps": res.steps, "seconds": round(res.seconds, 3),
                          "skipped": res.skipped, "never_played": res.never_played,
                          "skip_reasons": [{"reason": k, "count": n} for k, n in sorted(
                              res.skip_reasons.items(), key=lambda kv: -kv[1])],
                          "seed": seed_value, "jobs": len(args), "replayed": res.replayed,
                          "divergences": [e.to_json() for e in res.entries],
                          "beyond": {"games": res.beyond_games, "as": res.beyond_as,
                                     "stopped": res.beyond_stopped},
                          "vanished": [{"signature": s, "reason": r, "replayed": p}
                                       for s, r, p in res.vanished],
                          "coverage": res.coverage})
            if interrupted:
                break
    meta = {"adapter": adapter_name, "engine": hello if metas else {}, "started": started,
            "finished": reports.now(), "seconds": round(sum(m["seconds"] for m in metas), 3),
            "fuzz": metas, "problems": find_problems(all_results)}
    if interrupted:  # the reports say so, as check's do
        meta["interrupted"] = True
        meta["stopped"] = (f"interrupted ({how}) after {sum(m['games'] for m in metas)} of "
                           f"{games * len(variants)} games")
    print_problems(meta["problems"])
    problems = reports.write_reports(paths, all_results, meta)
    for problem in problems:
        click.echo(f"Error: {problem}", err=True)
    if interrupted:
        click.echo("interrupted: the divergences found so far are reported above", err=True)
        sys.exit(EXIT_INTERRUPTED)
    failing = exit_code([r for r in all_results if r.status != "skip"])
    # an engine that played no step tested nothing, whatever errors it made on the way
    errors_only = all(r.description.startswith("error") for r in all_results
                      if r.status == "fail")
    if too_little and (not failing or played_nothing and errors_only):
        failing = EXIT_TOO_LITTLE
    sys.exit(max(failing, EXIT_USAGE) if problems else failing)


def _worker_signals() -> None:
    """In a fuzz worker: Ctrl-C and SIGTERM stop its campaign, which returns what it found."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, raise_interrupted)


def _stop_workers(pool) -> None:
    """Ask the workers of `pool` to stop (SIGTERM: see _worker_signals)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            os.kill(proc.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass


def check_out_dir(path) -> str | None:
    """Why cases could not be written under `path`, or None; the folder is made if missing."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        return "is a file, not a folder"
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"can't be made: {exc.strerror or exc}"
    return reports.probe_folder(p)
