"""Output of `durak judge` (tools/judge.py): the judgement as text, with a rich table across
variants, or as JSON. Rule text and sources are quoted from spec/, never restated here.
"""

from __future__ import annotations

import io
import textwrap
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table

from durak_spec.reference_impl.spec import Spec
from durak_spec.tools.judge.ruling import value_text

if TYPE_CHECKING:
    from durak_spec.reference_impl.game import Setup
    from durak_spec.tools.judge.ruling import Differences, Position, Ruling


def related_disputes(spec: Spec, position: Position, ruling: Ruling) -> list[str]:
    """The position's own disputes first, then those whose options or rules this ruling used."""
    used = {n for n, _, _ in ruling.options}
    rule_ids = {r.id for _, r in ruling.rules}
    others = [d.id for d in spec.disputes.values()
              if set(d.options) & used or set(d.rules) & rule_ids]
    return list(dict.fromkeys(position.disputes + others))


def _dispute_json(spec: Spec, did: str, options: dict) -> dict:
    d = spec.disputes[did]
    case = d.ruling_for(options)
    stance = d.positions[case.position] if case and case.position else None
    return {"id": did, "title": d.title, "question": d.question, "options": d.options,
            "open": d.open, "position": stance.id if stance else None,
            "stance": stance.text if stance else None,
            "sources": list(stance.sources) if stance else [],
            "moot": case.moot if case else None}


def to_json(spec: Spec, position: Position, rulings: list[Ruling],
            diff: Differences | None) -> dict:
    """The whole judgement as plain data (the --format json output)."""
    tags: list[str] = []
    out = []
    for r in rulings:
        disputes = [_dispute_json(spec, did, r.option_values)
                    for did in related_disputes(spec, position, r)]
        tags += [t for _, rule in r.rules for t in rule.sources]
        tags += [t for d in disputes for t in d["sources"]]
        out.append({
            "variant": r.variant, "preset": r.preset, "overrides": r.overrides, "action": r.action,
            "legal": r.legal, "reason": r.reason or None,
            "rules": [{"id": rule.id, "role": role, "title": rule.title, "text": rule.text,
                       "sources": rule.sources, "file": rule.file, "path": rule.path}
                      for role, rule in r.rules],
            "options": [{"name": n, "value": v, "origin": o,
                         "cite": _cite(spec, r, n, o)} for n, v, o in r.options],
            "outcome": r.outcome, "legal_actions": r.legal_actions, "notes": r.notes,
            "scoring": r.scoring, "disputes": disputes})
    differences = None
    if diff is not None:
        differences = {"verdicts_differ": diff.verdicts_differ, "groups": diff.groups,
                       "options": diff.options, "combined": diff.combined,
                       "disputes": [{"id": did, "title": spec.disputes[did].title,
                                     "options": spec.disputes[did].options}
                                    for did in diff.disputes]}
    return {"position": position.file, "note": position.note, "disputes": position.disputes,
            "action": rulings[0].action if rulings else None, "rulings": out,
            "differences": differences,
            "sources": {t: _source_json(spec.sources[t]) for t in dict.fromkeys(tags)}}


def _source_json(src: dict) -> dict:
    return {k: src[k] for k in ("title", "site", "author", "date", "url", "revision") if k in src}


def picture(setup: Setup) -> list[str]:
    """A few lines showing the position."""
    talon = f"talon {len(setup.talon)}" + (f" (bottom {setup.trump})" if setup.talon else "")
    discard = f", discard {setup.discard}" if setup.discard is not None else ""
    lines = [f"trump {setup.trump}, {talon}{discard}, bout {setup.bout} "
             f"({setup.beaten_bouts} beaten off)"]
    for seat, hand in enumerate(setup.hands):
        role = ("attacker" if seat == setup.attacker else
                "defender" if seat == setup.defender else "")
        extra = " (out)" if seat in setup.out else " (passed)" if seat in setup.passed else ""
        lines.append(f"  seat {seat} {role:8} {' '.join(c.text for c in hand) or '-'}{extra}")
    table = "  ".join(f"{a}/{d or '--'}" for a, d in setup.table)
    lines.append(f"  table: {table or '-'}" + ("  (the defender takes)" if setup.taking else ""))
    return lines


def _wrap(text: str, indent: int) -> str:
    return textwrap.fill(text, 96, initial_indent=" " * indent, subsequent_indent=" " * indent)


def _verdict(r: Ruling) -> str:
    if r.action is None:
        return ", ".join(r.legal_actions) or "nobody can act"
    if r.legal:
        return f"allowed; then {r.outcome['text']}"
    return f"not allowed: {r.forbidding_rule}: {r.reason}"


def to_text(spec: Spec, position: Position, rulings: list[Ruling],
            diff: Differences | None) -> str:
    """The judgement for people: the position, the ruling(s), rules, options, disputes, sources."""
    about = f" ({', '.join(position.disputes)})" if position.disputes else ""
    lines = [f"Position {position.file}{about}"]
    if position.note:
        lines.append(_wrap(position.note, 2))
    lines += picture(position.setup) + [""]
    tags: list[str] = []
    if len(rulings) == 1:
        r = rulings[0]
        head = f"{r.action} under {r.variant}: " if r.action else \
            f"Legal actions under {r.variant}: "
        lines.append(head + _verdict(r))
        lines += [f"  note: {n}" for n in r.notes]
        lines += _scoring_text(r)
        lines += _rules_text(r.rules, tags)
        if r.options:
            lines += ["", "Options read (and where the preset's value comes from)"]
            for n, v, o in r.options:
                lines.append(f"  {n:30} {value_text(v):26} {o}")
                lines += [f"      {_cite_text(tag, place)}"
                          for tag, place in _cite(spec, r, n, o).items()]
        dids = related_disputes(spec, position, r)
        if dids:
            lines += ["", f"Disputes (the position of {r.variant})"]
            for did in dids:
                lines += _dispute_text(spec, did, r.option_values, tags)
    else:
        lines.append(_table(rulings))
        notes: dict[str, list[str]] = {}
        for r in rulings:
            for n in r.notes:
                notes.setdefault(n, []).append(r.variant)
        for n, names in notes.items():
            who = "every variant" if len(names) == len(rulings) else ", ".join(names)
            lines.append(_wrap(f"note ({who}): {n}", 2))
        for r in rulings:
            lines += [line.replace("Scoring", f"Scoring under {r.variant}", 1)
                      for line in _scoring_text(r)]
        lines += _differences_text(spec, rulings, diff)
        seen, rules = set(), []
        for r in rulings:
            for role, rule in r.rules:
                if role in ("forbids", "settles", "then", "scores") and rule.id not in seen:
                    seen.add(rule.id)
                    rules.append((role, rule))
        lines += _rules_text(rules, tags)
    if tags:
        lines += ["", "Sources"]
        for tag in dict.fromkeys(tags):
            src = spec.sources[tag]
            who = src.get("author") or src.get("site")
            lines.append(f"  [{tag}] {src['title']}, {who}, {src['date']}. "
                         f"{src.get('url') or src.get('revision', '')}".rstrip())
    return "\n".join(lines)


def _scoring_text(r: Ruling) -> list[str]:
    """A finished deal's scoring, as the first deal of a match (match.py)."""
    sc = r.scoring
    if not sc:
        return []
    order = sorted(range(len(sc["places"])), key=lambda x: sc["places"][x])
    losers = ", ".join(map(str, sc["losers"])) or "nobody (a draw)"
    text = (f"Scoring (as the first deal of a match): finishing order {' '.join(map(str, order))}; "
            f"losers {losers}; each seat scores {' '.join(map(str, sc['scores']))}")
    if any(sc["epaulettes"]):
        text += "; epaulettes " + ", ".join(f"seat {s}: {e}" for s, e in enumerate(sc["epaulettes"])
                                           if e)
    if sc.get("winner") is not None:
        text += f"; the winner (match.winner) is seat {sc['winner']}"
    text += f"; seat {sc['next_dealer']} deals next"
    return [_wrap(text, 2)]


def _rules_text(rules, tags: list[str]) -> list[str]:
    if not rules:
        return []
    lines = ["", "Rules"]
    for role, rule in rules:
        lines.append(f"  {rule.id} ({role}): {rule.title}")
        lines.append(_wrap(rule.text, 6))
        lines.append(f"      sources: {', '.join(rule.sources)}")
        tags += rule.sources
    return lines


def _dispute_text(spec: Spec, did: str, options: dict, tags: list[str]) -> list[str]:
    d = spec.disputes[did]
    case = d.ruling_for(options)
    if case is None:
        return [f"  {did} {d.title}: not modelled ({d.open})"]
    if case.moot:
        return [f"  {did} {d.title}: does not arise, {case.moot}"]
    stance = d.positions[case.position]
    tags += stance.sources
    fixed = " (fixed; no option yet)" if d.is_open else ""
    return [f"  {did} {d.title}: {stance.id}{fixed}",
            _wrap(stance.text + (f" [{', '.join(stance.sources)}]" if stance.sources else ""), 6)]


def _table(rulings: list[Ruling]) -> str:
    action = rulings[0].action
    table = Table(box=box.SIMPLE, title=action or "Legal actions", title_justify="left")
    table.add_column("variant", no_wrap=True)
    if action is None:
        table.add_column("legal actions")
        for r in rulings:
            table.add_row(r.variant, ", ".join(r.legal_actions) or "nobody can act")
    else:
        for name in ("ruling", "rule", "then, or why not"):
            table.add_column(name, no_wrap=name in ("ruling", "rule"))
        for r in rulings:
            table.add_row(r.variant, "allowed" if r.legal else "not allowed",
                          r.forbidding_rule or "", r.outcome["text"] if r.outcome else r.reason)
    console = Console(file=io.StringIO(), width=120, color_system=None, force_terminal=False)
    console.print(table)
    return "\n".join(line.rstrip() for line in console.file.getvalue().rstrip().splitlines())


def _differences_text(spec: Spec, rulings, diff: Differences | None) -> list[str]:
    if diff is None:
        return ["", "Every variant rules the same."]
    how = ("allow different actions" if rulings[0].action is None else "rule differently"
           if diff.verdicts_differ else "agree on the verdict, under different rules")
    joined = "together" if diff.combined else "each on its own"
    lines = ["", f"The variants {how}; the options that make the difference ({joined}): "
             f"{', '.join(diff.options) or 'none found'}"]
    for did in diff.disputes:
        d = spec.disputes[did]
        lines.append(f"  {did} {d.title} (decided by {', '.join(d.options)})")
        for r in rulings:
            case = d.ruling_for(r.option_values)
            label = case.position or "does not arise" if case else "not modelled"
            values = ", ".join(f"{n}={value_text(r.option_values[n])} ({r.option_origins[n]})"
                               for n in d.options)
            why = f" ({case.moot})" if case and case.moot else ""
            lines.append(f"      {r.variant:24} {label:26} {values}{why}")
    return lines


def _cite(spec: Spec, r, option: str, origin: str) -> dict:
    """Where the ruling preset's value of an option comes from (presets.yaml `cite`): {source tag
    or 'ruling': place}; empty for defaults and overrides."""
    if origin == "override":
        return {}
    return dict(spec.citations(r.preset).get(option, (None, {}))[1])


def _cite_text(tag: str, place: str) -> str:
    return f"sources silent, ruled: {place}" if tag == "ruling" else f"[{tag}] {place}"
