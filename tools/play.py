"""`durak simulate`, `durak deal` and `durak replay`: play on the reference interpreter."""

from __future__ import annotations

import json
import random
import sys
import textwrap

import click

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import action_json, state_text
from durak_spec.reference_impl.simulate import STEP_LIMIT
from durak_spec.reference_impl.simulate import simulate as run_simulation
from durak_spec.reference_impl.trace import Recorder
from durak_spec.reference_impl.trace import replay as run_replay
from durak_spec.reference_impl.yamlio import InputError, load_file, read_bounded
from durak_spec.tools.common import ProgressReport, UserError, _load, _parse_options, _ruleset

# A game log holds one line per step: far more than a setup, still bounded.
MAX_TRACE_BYTES = 20_000_000


@click.command("simulate")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Preset to play (repeatable; default podkidnoy).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option of each preset (repeatable).")
@click.option("--players", type=int, multiple=True,
              help="Player count (repeatable; default 2). One run per preset and count.")
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True,
              help="Games per run.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the first deal; game i is dealt from seed + i.")
@click.option("--no-check", is_flag=True, help="Skip invariant checks (pure speed).")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Write the first game as a JSON-lines trace to this file.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Text for people, JSON for programs.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or status lines.")
@click.pass_context
def simulate(ctx, variants, options, players, games, seed, no_check, record, fmt, quiet):
    """Play random legal games on the reference, check every invariant, print games/s."""
    spec = _load(ctx)
    runs = [(v, n) for v in variants or ("podkidnoy",) for n in players or (2,)]
    rulesets = {v: _ruleset(spec, v, options) for v, _ in runs}
    out, failed = [], None
    for variant, n in runs:
        rs = rulesets[variant]
        try:
            with ProgressReport(f"simulate {variant}, {n} players", games, "games",
                                quiet=quiet or fmt == "json", failures="violations") as progress:
                report = run_simulation(rs, n, games, seed, check=not no_check,
                                        progress=progress.advance)
        except DurakError as exc:
            raise UserError(str(exc)) from None
        if record and not out:
            _record_game(rs, n, seed, record)
        out.append((variant, n, report))
        if report.violations:
            failed = (variant, n, report.violations[0])
            break
    if fmt == "json":
        click.echo(json.dumps([{"variant": v, "players": n, "games": r.games,
                                "finished": r.finished, "draws": r.draws, "steps": r.steps,
                                "seconds": round(r.seconds, 3), "fools": r.fools,
                                "violations": [list(x) for x in r.violations]}
                               for v, n, r in out], indent=2))
    else:
        for variant, n, report in out:
            click.echo(f"{report.games} games of {variant}, {n} players, seeds {seed}.."
                       f"{seed + report.games - 1}: {report.finished} finished, "
                       f"{report.draws} draws, {report.steps} steps")
            click.echo(f"{report.games_per_second:,.0f} games/s, "
                       f"{report.steps / report.seconds if report.seconds else 0:,.0f} steps/s"
                       f"{'' if no_check else ', invariants checked every step'}")
    if failed:
        variant, n, (seed_, step, inv, action) = failed
        click.echo(f"invariant {inv} fails in game seed {seed_} after step {step} ({action}); "
                   f"reproduce: durak simulate --variant {variant} --players {n} "
                   f"--games 1 --seed {seed_}", err=True)
        sys.exit(1)


def _record_game(rs, players, seed, path):
    rec = Recorder(Game.from_seed(rs, players, seed))
    rng = random.Random(seed)
    while not rec.game.is_terminal() and rec.game.state.steps < STEP_LIMIT:
        rec.apply(rng.choice(rec.game.legal_actions()))
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(rec.dumps())
    except OSError as exc:
        raise UserError(f"{path}: {exc.strerror}") from None


@click.command("deal")
@click.argument("setup_file", type=click.Path(dir_okay=False))
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Preset to play under (repeatable; default podkidnoy).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option of each preset (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Text for people, JSON for programs.")
@click.pass_context
def deal(ctx, setup_file, variants, options, fmt):
    """Start a game from a setup file (YAML/JSON) or a position file (its `setup:`, as `durak
    judge` reads it) and show the state and the legal actions."""
    spec = _load(ctx)
    variants = variants or ("podkidnoy",)
    rulesets = [_ruleset(spec, v, options) for v in variants]
    try:
        data = load_file(setup_file)
        if isinstance(data, dict) and isinstance(data.get("setup"), dict) and "hands" not in data:
            data = data["setup"]  # a position file: its setup, whatever else it says
        games = [Game(rs, Setup.from_json(data, rs.deck, rs.player_limits)) for rs in rulesets]
    except InputError as exc:
        raise UserError(str(exc)) from None
    except DurakError as exc:
        raise UserError(f"{setup_file}: {exc}") from None
    if fmt == "json":
        shown = [{"variant": v, "state": g.full_state(),
                  "legal_actions": [action_json(a) for a in g.legal_actions()]}
                 for v, g in zip(variants, games)]
        click.echo(json.dumps(shown[0] if len(shown) == 1 else shown, indent=2))
        return
    for v, game in zip(variants, games):
        if len(games) > 1:
            click.echo(f"under {v}:")
        click.echo(state_text(game.state))
        click.echo("legal actions: " + ", ".join(str(a) for a in game.legal_actions()))


@click.command("replay")
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Preset the game was played under (repeatable: the log is checked under each; "
                   "default: the log header's, else podkidnoy).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option (repeatable; default: the log header's options).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Text for people, JSON for programs.")
@click.pass_context
def replay(ctx, trace_file, variants, options, fmt):
    """Check a game log (JSON lines, conformance/TRACE.md) step by step against the spec."""
    spec = _load(ctx)
    for variant in variants:
        if variant not in spec.presets:
            raise UserError(f"unknown preset {variant!r}; presets: {', '.join(spec.presets)}")
    try:
        text = read_bounded(trace_file, MAX_TRACE_BYTES)
        overrides = _parse_options(options) if options else None
        results = [(v, run_replay(spec, text, v, overrides)) for v in variants or (None,)]
    except InputError as exc:
        raise UserError(str(exc)) from None
    except DurakError as exc:
        raise UserError(f"{trace_file}: {exc}") from None
    if fmt == "json":
        shown = [{"file": trace_file, "variant": v, "ok": r.ok, "steps": r.steps,
                  "finished": r.finished, "line": r.line, "message": r.message, "rule": r.rule_id,
                  "position": r.position, "checked": r.checked, "diagnosis": r.diagnosis}
                 for v, r in results]
        click.echo(json.dumps(shown[0] if len(shown) == 1 else shown, indent=2))
    else:
        for variant, result in results:
            _replay_text(spec, trace_file + (f" under {variant}" if len(results) > 1 else ""),
                         result)
    sys.exit(0 if all(r.ok for _, r in results) else 1)


def _replay_text(spec, name: str, result) -> None:
    if result.ok:
        checked = ", ".join(f"{v} {k}" for k, v in (result.checked or {}).items())
        click.echo(f"{name}: {result.steps} steps replayed; every step follows the spec "
                   f"(checked {checked})")
        if not result.finished:
            click.echo(f"{name}: the log ends after {result.steps} steps, before the game is "
                       "over (by the spec it goes on from:)\n" + textwrap.indent(result.position, "  "))
        return
    click.echo(f"{name}:{result.line}: after {result.steps} steps: {result.message}", err=True)
    if result.rule_id:
        rule = spec.rules_by_id.get(result.rule_id)
        click.echo(f"  rule {result.rule_id}: {rule.title if rule else ''}", err=True)
    if result.position:
        click.echo("  position before the step:\n" + textwrap.indent(result.position, "  "), err=True)
