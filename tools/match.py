"""`durak match`: random matches (deals in series) on the reference interpreter, scored by the
match rules of spec/ (rules/match.yaml, rules/scoring.yaml), with every invariant checked after
every step and the deal_end invariants after every deal; a score table per deal."""

from __future__ import annotations

import json
import sys

import click

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.simulate import play_random_match
from durak_spec.tools.common import (
    EXIT_FINDINGS,
    EXIT_TOO_LITTLE,
    ProgressReport,
    UserError,
    _load,
    _parse_options,
)


def match_overrides(spec, options, deals) -> dict:
    """The option overrides of `--option NAME=VALUE` and `--deals K` (a match of K deals)."""
    overrides = _parse_options(options)
    if deals is not None:
        values = spec.options["match_deals"].values
        if deals not in values:
            raise UserError(f"--deals {deals}: a match may have {', '.join(map(str, values))} "
                            "deals (option match_deals)")
        overrides.update(match_end="deals", match_deals=deals)
    return overrides


def _ruleset(spec, variant, options, deals):
    try:
        return spec.ruleset(variant, match_overrides(spec, options, deals))
    except DurakError as exc:
        raise UserError(str(exc)) from None


def _seats(values) -> str:
    return " ".join(f"{v:>2}" for v in values)


def render_text(report, variant: str, players: int) -> list[str]:
    """The score table of one match: one line per deal, then the standings."""
    m = report.match
    rs = m.ruleset
    epaulettes = rs.options.get("epaulettes", "none") != "none"
    teams, team_play = rs.seating(players)
    lines = [f"{variant}, {players} players, match seed {report.seed}"
             + (f", teams {' '.join(map(str, teams))}" if team_play else "")]
    width = 3 * players
    head = (f"{'deal':>4} {'dealer':>6} {'opens':>5}  {'finishing order':<{max(15, width)}} "
            f"{'fool':>4}  {'scores':<{width}}  {'totals':<{width}}")
    if epaulettes:
        head += f"  {'epaulettes':<{max(10, width)}}"
    lines.append(head)
    for d in m.deals:
        order = sorted(range(players), key=lambda x: d.places[x])
        fool = "-" if d.fool is None else str(d.fool)
        line = (f"{d.number:>4} {d.dealer:>6} {('' if d.first_attacker is None else d.first_attacker):>5}  "
                f"{' '.join(map(str, order)):<{max(15, width)}} {fool:>4}  "
                f"{_seats(d.scores):<{width}}  {_seats(d.totals):<{width}}")
        if epaulettes:
            line += f"  {_seats(d.epaulette_totals)}"
        lines.append(line.rstrip())
    standings = m.standings()
    if m.over:
        best = [seat for place, seat, _ in standings if place == 1]
        who = ("team of seats " if team_play else "seat" + ("s " if len(best) > 1 else " ")) + \
            ", ".join(map(str, best))
        lines.append(f"match over after {len(m.deals)} deal(s): {who} "
                     f"{'win' if len(best) > 1 or team_play else 'wins'} "
                     f"(scores {' '.join(str(k) for _, _, k in sorted(standings, key=lambda r: r[1]))}"
                     f"{', lowest wins' if not team_play else ', team totals, lowest wins'})")
    if report.stopped:
        lines.append(f"stopped: {report.stopped}")
    return lines


@click.command("match")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="Preset to play, with its deal rules and its match rules (scoring, match end); "
                   "repeatable, default podkidnoy.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override an option of each preset (repeatable), e.g. match_target=8.")
@click.option("--players", type=int, multiple=True,
              help="Player count (repeatable; default 3). One run per preset and count.")
@click.option("--deals", type=int, default=None,
              help="Play matches of this many deals (sets match_end=deals and match_deals).")
@click.option("--matches", type=click.IntRange(min=1), default=1, show_default=True,
              help="Matches per run (match i uses seed SEED + i).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first match.")
@click.option("--max-deals", type=click.IntRange(min=1), default=500, show_default=True,
              help="Stop a match that has not ended after this many deals.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Score tables for people, every deal's result as JSON.")
@click.option("--quiet", "-q", is_flag=True,
              help="No score tables, progress bar or status lines: the summary only.")
@click.pass_context
def match_command(ctx, variants, options, players, deals, matches, seed, max_deals, fmt, quiet):
    """Play random matches on the reference, check every invariant, print a score table per deal."""
    spec = _load(ctx)
    runs = [(v, n) for v in variants or ("podkidnoy",) for n in players or (3,)]
    rulesets = {v: _ruleset(spec, v, options, deals) for v, _ in runs}
    out, violations = [], []
    for variant, n in runs:
        reports = []
        with ProgressReport(f"match {variant}, {n} players", matches, "matches",
                            quiet=quiet or fmt == "json", failures="violations") as progress:
            for i in range(matches):
                try:
                    report = play_random_match(rulesets[variant], n, seed + i, max_deals)
                except DurakError as exc:
                    raise UserError(str(exc)) from None
                reports.append(report)
                progress.advance(failures=len(report.violations))
                if report.violations:
                    break
        out.append((variant, n, reports))
        violations += [(variant, n, r.seed, v) for r in reports for v in r.violations]
        if violations:
            break
    if fmt == "json":
        click.echo(json.dumps([{"variant": variant, "players": n, "matches": [
            {"seed": r.seed, "deals": [d.to_json() for d in r.match.deals], "over": r.match.over,
             "standings": [{"place": p, "seat": s, "score": k} for p, s, k in r.match.standings()],
             "stopped": r.stopped or None,
             "violations": [{"deal": d, "step": st, "invariant": inv, "action": a}
                            for d, st, inv, a in r.violations]} for r in reports]}
            for variant, n, reports in out], indent=2))
    else:
        for variant, n, reports in out:
            if not quiet:
                for report in reports:
                    click.echo("\n".join(render_text(report, variant, n)))
                    click.echo()
            total = sum(len(r.match.deals) for r in reports)
            ended = sum(1 for r in reports if r.match.over)
            click.echo(f"{len(reports)} match(es) of {variant}, {n} players: {ended} ended by "
                       f"their end rule, {total} deals, {sum(r.steps for r in reports)} steps, "
                       "invariants checked every step and every deal")
    if violations:
        variant, n, match_seed, (deal, step, inv, action) = violations[0]
        click.echo(f"invariant {inv} fails in match seed {match_seed}, deal {deal}, after step "
                   f"{step} ({action}); reproduce: durak match --variant {variant} --players "
                   f"{n} --seed {match_seed}", err=True)
        sys.exit(EXIT_FINDINGS)
    if any(r.stopped for _, _, reports in out for r in reports):
        sys.exit(EXIT_TOO_LITTLE)
