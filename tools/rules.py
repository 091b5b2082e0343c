"""`durak rules` and `durak variants`: read the rules and the presets of the spec."""

from __future__ import annotations

import json
import textwrap

import click

from durak_spec.reference_impl.errors import DurakError
from durak_spec.tools.common import UserError, _load, _ruleset


@click.command("rules")
@click.argument("rule_id", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Text for people, JSON for programs.")
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


@click.command("variants")
@click.argument("name", required=False)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option of the preset (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Text for people, JSON for programs.")
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
    cited = spec.citations(name)
    if fmt == "json":
        click.echo(json.dumps({"preset": name, "options": rs.options,
                               "origins": rs.option_origins,
                               "citations": {o: {"preset": p, "cite": c} for o, (p, c) in cited.items()
                                             if rs.option_origins[o] != "override"}}, indent=2))
        return
    p = spec.presets[name]
    click.echo(f"{name}: {p['title']}")
    click.echo(f"sources: {', '.join(p['sources'])}\n")
    for opt, value, origin in rs.describe_options():
        shown = "null" if value is None else json.dumps(value) if isinstance(value, bool) else value
        click.echo(f"  {opt:32} {str(shown):34} {origin}")
        if opt in cited and origin != "override":
            for tag, place in cited[opt][1].items():
                click.echo(f"      {citation_text(tag, place)}")


def citation_text(tag: str, place: str) -> str:
    """One citation of an option value: the source and the place in it, or the ruling where the
    sources are silent."""
    return f"sources silent, ruled: {place}" if tag == "ruling" else f"[{tag}] {place}"
