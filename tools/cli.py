"""The `durak` command: one entry point for reading the rules, listing variants and simulating.

Every user mistake ends in one line on stderr and a non-zero exit (2 for usage and input errors,
1 when a check finds a problem), never a traceback.
"""

from __future__ import annotations

import json
import sys
import textwrap

import click

from durak.reference_impl.errors import DurakError
from durak.reference_impl.spec import Spec  # noqa: F401
from durak.reference_impl.yamlio import InputError

from .common import UserError, _load, _parse_options, _ruleset  # noqa: F401 - used by commands below


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--spec", "spec_dir", type=click.Path(file_okay=False), default=None,
              help="Use the spec folder at this path instead of the shipped one.")
@click.pass_context
def cli(ctx, spec_dir):
    """durak-spec: the rules of Durak as data, a reference interpreter and a conformance suite."""
    ctx.ensure_object(dict)
    ctx.obj["spec_dir"] = spec_dir


@cli.command()
@click.argument("rule_id", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def rules(ctx, rule_id, fmt):
    """List the rules (one id per line), or show one rule with its text, sources and clause."""
    spec = _load(ctx)
    if rule_id is None:
        if fmt == "json":
            click.echo(json.dumps([{"id": r.id, "title": r.title} for r in spec.rules], indent=2))
            return
        for r in spec.rules:
            click.echo(f"{r.id:32} {r.title}")
        return
    try:
        r = spec.rule(rule_id)
    except DurakError as exc:
        raise UserError(str(exc)) from None
    if fmt == "json":
        click.echo(json.dumps({k: getattr(r, k) for k in (
            "id", "title", "text", "sources", "catalogue", "area", "when", "clause", "key",
            "applies_to", "violation", "decides")}, indent=2))
        return
    click.echo(f"{r.id}: {r.title}\n")
    click.echo(textwrap.fill(r.text, 88) + "\n")
    for label, value in (("applies to", ", ".join(r.applies_to)), ("decides", r.decides),
                         ("when", r.when), ("clause", r.clause), ("order key", r.key),
                         ("catalogue", ", ".join(r.catalogue))):
        if value:
            click.echo(f"{label:11} {value}")
    click.echo("sources")
    for tag in r.sources:
        src = spec.sources[tag]
        who = src.get("author") or src.get("site")
        where = src.get("url") or src.get("revision")
        click.echo(f"  [{tag}] {src['title']}, {who}, {src['date']}. {where}")
    click.echo(f"\ndefined in {r.file}:{r.path}")


@cli.command()
@click.argument("name", required=False)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option of the preset (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def variants(ctx, name, options, fmt):
    """List the presets, or show one preset's resolved options and where each value comes from."""
    spec = _load(ctx)
    if name is None:
        if fmt == "json":
            click.echo(json.dumps({n: p["title"] for n, p in spec.presets.items()}, indent=2))
            return
        for n, p in spec.presets.items():
            base = f" (extends {p['extends']})" if "extends" in p else ""
            click.echo(f"{n:20} {p['title']}{base}")
        return
    rs = _ruleset(spec, name, options)
    if fmt == "json":
        click.echo(json.dumps({"preset": name, "options": rs.options,
                               "origins": rs.option_origins}, indent=2))
        return
    p = spec.presets[name]
    click.echo(f"{name}: {p['title']}")
    click.echo(f"sources: {', '.join(p['sources'])}\n")
    for opt, value, origin in rs.describe_options():
        shown = "null" if value is None else json.dumps(value) if isinstance(value, bool) else value
        click.echo(f"  {opt:32} {str(shown):34} {origin}")


@cli.command()
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
    from durak.reference_impl.simulate import simulate as run
    spec = _load(ctx)
    rs = _ruleset(spec, variant, options)
    try:
        report = run(rs, players, games, seed, check=not no_check)
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
    import random

    from durak.reference_impl.game import Game
    from durak.reference_impl.simulate import STEP_LIMIT
    from durak.reference_impl.trace import Recorder
    rec = Recorder(Game.from_seed(rs, players, seed))
    rng = random.Random(seed)
    while not rec.game.is_terminal() and rec.game.state.steps < STEP_LIMIT:
        rec.apply(rng.choice(rec.game.legal_actions()))
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(rec.dumps())
    except OSError as exc:
        raise UserError(f"{path}: {exc.strerror}") from None


@cli.command()
@click.argument("setup_file", type=click.Path(dir_okay=False))
@click.option("--variant", default="podkidnoy", show_default=True)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def deal(ctx, setup_file, variant, options, fmt):
    """Start a game from an explicit setup file (YAML/JSON) and show the state and legal actions."""
    from durak.reference_impl.game import Game, Setup
    from durak.reference_impl.notation import action_json, state_text
    from durak.reference_impl.yamlio import load_file
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


@cli.command()
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("--variant", default=None, help="Preset the game was played under (default: the "
              "trace header's, else podkidnoy).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="Option override.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def replay(ctx, trace_file, variant, options, fmt):
    """Check a game log (JSON lines, conformance/TRACE.md) step by step against the spec."""
    from durak.reference_impl.trace import replay as run
    spec = _load(ctx)
    if variant is not None and variant not in spec.presets:
        raise UserError(f"unknown preset {variant!r}; presets: {', '.join(spec.presets)}")
    try:
        with open(trace_file, encoding="utf-8") as f:
            text = f.read(4_000_000)
        result = run(spec, text, variant, _parse_options(options) if options else None)
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
                               "checked": result.checked}, indent=2))
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


@cli.command("lint")
@click.option("--cases-dir", type=click.Path(file_okay=False, exists=True), default=None,
              help="Lint the cases under this folder instead of the shipped suite.")
@click.pass_context
def lint_command(ctx, cases_dir):
    """Check spec/ and the conformance suite for consistency and coverage; exit 1 on problems."""
    from durak.tools.lint import lint
    from durak.tools.lint_cases import lint_cases
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


from .check import cases_group, check_command  # noqa: E402  (they use the helpers above)
from .fuzzing import fuzz_command  # noqa: E402

cli.add_command(check_command)
cli.add_command(cases_group)
cli.add_command(fuzz_command)


def main(argv=None):
    try:
        cli.main(args=argv, prog_name="durak", standalone_mode=True)
    except DurakError as exc:  # a safety net: errors we raise on purpose never show a traceback
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


from durak.tools.judge import judge_command  # noqa: E402 - registered after the group exists

cli.add_command(judge_command)

from durak.tools.verify import verify_command  # noqa: E402 - registered after the group exists

cli.add_command(verify_command)

if __name__ == "__main__":
    main()
