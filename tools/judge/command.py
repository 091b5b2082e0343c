"""`durak judge`: the command. The rulings themselves are made in ruling.py and rendered by
report.py."""

from __future__ import annotations

import json

import click

from durak_spec.reference_impl.errors import DurakError
from durak_spec.tools.common import UserError, _load, _parse_options
from durak_spec.tools.judge.report import to_json, to_text
from durak_spec.tools.judge.ruling import (
    compare,
    misfit,
    parse_position_action,
    read_position,
    rule_variant,
)


@click.command("judge")
@click.argument("position_file", type=click.Path(dir_okay=False))
@click.option("--action", default=None, metavar="ACTION",
              help="The disputed action, e.g. '2 throw 9D' (default: the file's `action`).")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Preset to rule under (repeatable; default podkidnoy).")
@click.option("--all-variants", is_flag=True, help="Rule under every preset and compare.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option of each preset (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Text for people, JSON for programs.")
@click.pass_context
def judge_command(ctx, position_file, action, variants, all_variants, options, fmt):
    """Rule on an action in a mid-game position: legal or not, by which rules, with which
    option values and sources; with --all-variants, which presets rule otherwise and the disputes
    behind it. Without an action, list the legal actions."""
    if variants and all_variants:
        raise UserError("give --variant or --all-variants, not both")
    spec = _load(ctx)
    overrides = _parse_options(options)
    try:
        position = read_position(position_file, spec)
        act = parse_position_action(spec, position, action)
        presets = list(spec.presets) if all_variants else list(variants) or ["podkidnoy"]
        if all_variants:  # a position whose cards or discard count fit another deck is not ruled on
            unfit = {p: why for p in presets if (why := misfit(spec.ruleset(p, overrides), position))}
            presets = [p for p in presets if p not in unfit]
            for p, why in unfit.items():
                click.echo(f"note: not ruled under {p}: {why}", err=True)
        rulings = [rule_variant(spec, spec.ruleset(p, overrides), position, act) for p in presets]
        diff = compare(spec, position, act, rulings) if len(rulings) > 1 else None
    except DurakError as exc:
        raise UserError(str(exc)) from None
    if fmt == "json":
        click.echo(json.dumps(to_json(spec, position, rulings, diff), indent=2))
    else:
        click.echo(to_text(spec, position, rulings, diff))
