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
from durak_spec.reference_impl.yamlio import InputError, load_file
from durak_spec.tools.common import UserError, _load, _parse_options, _ruleset


@click.command("simulate")
@click.option("--variant", default="podkidnoy", show_default=True, help="Preset name.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE")
@click.option("--players", type=int, default=2, show_default=True)
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--no-check", is_flag=True, help="Skip invariant checks (pure speed).")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Write the first game as a JSON-lines trace to this file.")
@click.pass_context
def simulate(ctx, variant, options, players, games, seed, no_check, record):
    """Play random legal games on the reference, check every invariant, print games/s."""
    spec = _load(ctx)
    rs = _ruleset(spec, variant, options)
    try:
        report = run_simulation(rs, players, games, seed, check=not no_check)
    except DurakError as exc:
        raise UserError(str(exc)) from None
    if record:
        _record_game(rs, players, seed, record)
    click.echo(f"{report.games} games of {variant}, {players} players, seeds {seed}.."
               f"{seed + report.games - 1}: {report.finished} finished, {report.draws} draws, "
               f"{report.steps} steps")
    click.echo(f"{report.games_per_second:,.0f} games/s, "
               f"{report.steps / report.seconds if report.seconds else 0:,.0f} steps/s"
               f"{'' if no_check else ', invariants checked every step'}")
    if report.violations:
        seed_, step, inv, action = report.violations[0]
        click.echo(f"invariant {inv} fails in game seed {seed_} after step {step} ({action}); "
                   f"reproduce: durak simulate --variant {variant} --players {players} "
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
@click.option("--variant", default="podkidnoy", show_default=True)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def deal(ctx, setup_file, variant, options, fmt):
    """Start a game from an explicit setup file (YAML/JSON) and show the state and legal actions."""
    spec = _load(ctx)
    rs = _ruleset(spec, variant, options)
    try:
        data = load_file(setup_file)
        game = Game(rs, Setup.from_json(data, rs.deck, rs.player_limits))
    except (DurakError, InputError) as exc:
        raise UserError(f"{setup_file}: {exc}" if not str(exc).startswith(setup_file) else str(exc)) from None
    if fmt == "json":
        click.echo(json.dumps({"state": game.full_state(),
                               "legal_actions": [action_json(a) for a in game.legal_actions()]}, indent=2))
        return
    click.echo(state_text(game.state))
    click.echo("legal actions: " + ", ".join(str(a) for a in game.legal_actions()))


@click.command("replay")
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("--variant", default=None, help="Preset the game was played under (default: the "
              "trace header's, else podkidnoy).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="Option override.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def replay(ctx, trace_file, variant, options, fmt):
    """Check a game log (JSON lines, conformance/TRACE.md) step by step against the spec."""
    spec = _load(ctx)
    if variant is not None and variant not in spec.presets:
        raise UserError(f"unknown preset {variant!r}; presets: {', '.join(spec.presets)}")
    try:
        with open(trace_file, encoding="utf-8") as f:
            text = f.read(4_000_000)
        result = run_replay(spec, text, variant, _parse_options(options) if options else None)
    except OSError as exc:
        raise UserError(f"{trace_file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"{trace_file}: not UTF-8 text") from None
    except DurakError as exc:
        raise UserError(f"{trace_file}: {exc}") from None
    if fmt == "json":
        click.echo(json.dumps({"file": trace_file, "ok": result.ok, "steps": result.steps,
                               "line": result.line, "message": result.message,
                               "rule": result.rule_id, "position": result.position,
                               "checked": result.checked, "diagnosis": result.diagnosis},
                              indent=2))
    elif result.ok:
        checked = ", ".join(f"{v} {k}" for k, v in (result.checked or {}).items())
        click.echo(f"{trace_file}: {result.steps} steps replayed; every step follows the spec "
                   f"(checked {checked})")
    else:
        click.echo(f"{trace_file}:{result.line}: after {result.steps} steps: {result.message}", err=True)
        if result.rule_id:
            rule = spec.rules_by_id.get(result.rule_id)
            click.echo(f"  rule {result.rule_id}: {rule.title if rule else ''}", err=True)
        if result.position:
            click.echo("  position before the step:\n" + textwrap.indent(result.position, "  "), err=True)
    sys.exit(0 if result.ok else 1)
