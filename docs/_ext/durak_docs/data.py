"""What the pages are built from: the spec, its presets resolved, the conformance cases, and the
cross-references between them (which options a rule reads, which cases cite it, ...).

Everything is computed from spec/ and conformance/ at build time; nothing here holds rule text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from durak_spec.reference_impl import vocab
from durak_spec.reference_impl.spec import Rule, Spec, load_spec
from durak_spec.reference_impl.yamlio import MAX_BYTES

from .clause import names, option_names

FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class CaseRef:
    """A conformance case as the docs show it."""

    id: str
    description: str
    variants: list[str]
    rules: list[str]
    rejects: set[str]  # rule ids a rejected step of the case names
    file: str


@dataclass
class DocsData:
    spec: Spec
    root: Path
    cases: list[CaseRef]
    broken_cases: list[str]
    rulesets: dict  # preset -> Ruleset
    disputes: dict  # dispute id -> title, question, positions, options, rules, rulings per preset
    rule_options: dict[str, list[str]] = field(default_factory=dict)
    option_rules: dict[str, list[str]] = field(default_factory=dict)
    def_rules: dict[str, list[str]] = field(default_factory=dict)
    verification: dict | None = None  # invariant id -> {preset: (status, note)}, from durak verify
    results_site: dict | None = None  # the engines of the results site built with the docs

    @classmethod
    def load(cls, spec_dir: Path, root: Path) -> "DocsData":
        spec = load_spec(spec_dir)
        cases, broken = _load_cases(spec, root / "conformance" / "cases")
        rulesets = {p: spec.ruleset(p) for p in spec.presets}
        data = cls(spec, root, cases, broken, rulesets, _disputes(spec, rulesets))
        data._cross_reference()
        return data

    # -- cross references -----------------------------------------------------------------
    def _cross_reference(self) -> None:
        spec = self.spec
        def_options, def_defs = {}, {}
        for name, (_text, clause, _f, _p, _params) in spec.definitions.items():
            def_options[name] = option_names(clause)
            def_defs[name] = names(clause) & set(spec.definitions)
        for r in spec.rules:
            opts = set(r.options) | option_names(r.when) | option_names(r.clause)
            opts |= option_names(r.key)
            pending = list((names(r.clause) | names(r.key)) & set(spec.definitions))
            seen = set()
            while pending:
                d = pending.pop()
                if d in seen:
                    continue
                seen.add(d)
                self.def_rules.setdefault(d, []).append(r.id)
                opts |= def_options[d]
                pending += def_defs[d]
            self.rule_options[r.id] = [o for o in spec.options if o in opts]
            for o in self.rule_options[r.id]:
                self.option_rules.setdefault(o, []).append(r.id)

    def cases_for(self, rule_id: str) -> list[CaseRef]:
        return [c for c in self.cases if rule_id in c.rules or rule_id in c.rejects]

    def active_presets(self, rule: Rule) -> list[str]:
        return [p for p, rs in self.rulesets.items() if rule in rs.active_rules]

    def deciding_presets(self, rule: Rule) -> list[str]:
        """The presets under which the rule can decide something: it is active, and a legality
        rule is reached (no earlier rule of its kind refuses every action of that kind) and can
        refuse (its clause is not always true)."""
        return [p for p, rs in self.rulesets.items() if rule in rs.active_rules
                and (not rule.applies_to or rule.key or _can_refuse(rs, rule))]

    def in_rulebook(self, rule: Rule, preset: str) -> bool:
        """Whether the preset's rulebook states the rule: it can decide under the preset, or it
        is a legality rule that is reached and always allows because of the options it reads (a
        permission, such as transferring under perevodnoy); a legality rule of action kinds that
        some earlier rule always refuses is left to that rule ("there are no transfers")."""
        rs = self.rulesets[preset]
        if rule not in rs.active_rules:
            return False
        if rule.applies_to and not rule.key:
            reached = _reached(rs, rule)
            if not any(kind in possible_kinds(rs) for kind in rule.applies_to):
                return any(_gates(rs, rule, kind) for kind in rule.applies_to)
            return (preset in self.deciding_presets(rule)
                    or (bool(self.rule_options.get(rule.id)) and any(reached)))
        return preset in self.deciding_presets(rule)

    def sources_citing(self, tag: str) -> list[str]:
        return [r.id for r in self.spec.rules if tag in r.sources]

    # -- labels -----------------------------------------------------------------------------
    def label_for(self, kind: str, piece: str) -> str | None:
        """The docs label a clause token links to, if any."""
        if kind == "opt":
            return f"opt.{piece[4:]}" if piece[4:] in self.spec.options else None
        if kind != "name":
            return None
        if piece in self.spec.definitions:
            return f"def.{piece}"
        if piece in vocab.STATE or piece in vocab.ACTION:
            return f"vocab.{piece}"
        return None

    def exact_anchor_names(self) -> dict[str, str]:
        """Section label -> the exact id it documents, which becomes its HTML id (ExactIds)."""
        spec = self.spec
        ids = [r.id for r in spec.rules] + [i["id"] for i in spec.invariants]
        ids += [f"opt.{o}" for o in spec.options] + [f"preset.{p}" for p in spec.presets]
        ids += [f"dispute.{d}" for d in self.disputes]
        return {i.lower(): i for i in ids}


STEPS = re.compile(r"^steps:.*?(?=^[A-Za-z_]|\Z)", re.M | re.S)
STEP_RULE = re.compile(r"\brule:\s*['\"]?([a-z_]+\.[a-z0-9_]+)")


def _load_cases(spec: Spec, cases_dir: Path) -> tuple[list[CaseRef], list[str]]:
    """The fields the docs show of every case: id, description, rules, variants, and the rule ids
    that reject a step. Validating cases is `durak lint`'s job; the docs parse a case without its
    `steps:` block and only scan that block for `rule:` ids, which keeps the build fast with the
    golden games (megabytes of states after every step)."""
    out, broken = [], []
    for path in sorted(cases_dir.rglob("*.yaml")) if cases_dir.is_dir() else []:
        rel = path.relative_to(cases_dir).with_suffix("").as_posix()
        try:
            if path.stat().st_size > MAX_BYTES:
                raise ValueError(f"is larger than {MAX_BYTES} bytes")
            text = path.read_text(encoding="utf-8")
            steps = STEPS.search(text)
            head = text[:steps.start()] + text[steps.end():] if steps else text
            case = yaml.load(head, Loader=FAST_LOADER)  # noqa: S506 - a safe loader
        except (OSError, ValueError, yaml.YAMLError) as exc:
            broken.append(f"{path}: {exc}")
            continue
        if not isinstance(case, dict):
            broken.append(f"{path}: a case is a mapping with id, description, rules and steps")
            continue
        if "retired" in case:
            continue
        rules = [r for r in case.get("rules") or [] if isinstance(r, str)]
        unknown = [r for r in rules if r not in spec.rules_by_id]
        if unknown:
            broken.append(f"{path}: rules: unknown rule id(s) {', '.join(unknown)}")
        rejects = set(STEP_RULE.findall(steps.group())) if steps else set()
        out.append(CaseRef(str(case.get("id", rel)), str(case.get("description", "")),
                           list(case.get("variants") or ["podkidnoy"]), rules, rejects, str(path)))
    return sorted(out, key=lambda c: c.id), broken


def _disputes(spec: Spec, rulesets: dict) -> dict:
    """The dispute register (spec/disputes.yaml) with each preset's ruling, derived from the
    preset's option values by the register's `ruling` cases."""
    out: dict[str, dict] = {}
    for did, d in spec.disputes.items():
        rulings = {}
        for p, rs in rulesets.items():
            case = d.ruling_for(rs.options)
            rulings[p] = (("moot", case.moot) if case and case.moot else
                          ("position", case.position) if case else ("none", d.open or ""))
        out[did] = {"title": d.title, "question": d.question, "options": d.options,
                    "positions": d.positions, "open": d.open, "rules": d.rules, "note": d.note,
                    "flagged": d.flagged, "rulings": rulings}
    return dict(sorted(out.items(), key=lambda kv: _dispute_key(kv[0])))


def _dispute_key(did: str):
    digits = "".join(ch for ch in did if ch.isdigit())
    return (did.rstrip("0123456789"), int(digits) if digits else 0, did)


def _can_refuse(ruleset, rule: Rule) -> bool:
    """Whether a legality rule can be the rule that refuses an action under the ruleset."""
    return any(not always for always in _reached(ruleset, rule))


def possible_kinds(ruleset) -> set[str]:
    """The action kinds no legality rule always refuses under the ruleset."""
    return {kind for kind, crs in ruleset.legality.items()
            if not any(cr.clause.const and not cr.clause.value for cr in crs)}


def _gates(ruleset, rule: Rule, kind: str) -> bool:
    """Whether the rule is the first legality rule of `kind` that always refuses it."""
    for cr in ruleset.legality.get(kind, []):
        if cr.clause.const and not cr.clause.value:
            return cr.rule.id == rule.id
    return False


def _reached(ruleset, rule: Rule) -> list[bool]:
    """For each action kind of a legality rule under which it is checked at all (no earlier rule
    of that kind refuses every such action): whether it always allows."""
    out = []
    for kind in rule.applies_to:
        for cr in ruleset.legality.get(kind, []):
            if cr.rule.id == rule.id:
                out.append(bool(cr.clause.const and cr.clause.value))
                break
            if cr.clause.const and not cr.clause.value:
                break  # an earlier rule refuses every action of this kind
    return out
