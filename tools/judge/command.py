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
        asked = list(spec.presets) if all_variants else list(variants) or ["podkidnoy"]
        # a position whose cards or discard count belong to another deck is not ruled on there
        unfit = {p: why for p in asked if (why := misfit(spec.ruleset(p, overrides), position))}
        presets = [p for p in asked if p not in unfit]
        notes = not_ruled(unfit)
        if not presets:
            raise UserError(f"{position_file}: no preset asked for has a deck that holds this "
                            f"position; " + "; ".join(f"{', '.join(n['presets'])}: {n['reason']}"
                                                       for n in notes))
        rulings = [rule_variant(spec, spec.ruleset(p, overrides), position, act) for p in presets]
        diff = compare(spec, position, act, rulings) if len(rulings) > 1 else None
    except DurakError as exc:
        raise UserError(str(exc)) from None
    if fmt == "json":
        out = to_json(spec, position, rulings, diff)
        if notes:
            out["not_ruled"] = notes
        click.echo(json.dumps(out, indent=2))
    else:
        click.echo(to_text(spec, position, rulings, diff))
        for n in notes:  # after the verdict, one line per reason
            click.echo(f"note: not ruled under {', '.join(n['presets'])}: {n['reason']}")


def not_ruled(unfit: dict) -> list[dict]:
    """The presets a position could not be ruled under, grouped by the reason (in the order the
    presets were asked for)."""
    groups: dict = {}
    for preset, why in unfit.items():
        groups.setdefault(why, []).append(preset)
    return [{"presets": presets, "reason": why} for why, presets in groups.items()]
