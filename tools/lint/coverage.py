"""Case coverage of the legality rules: which (preset, rule) pairs have accepting and rejecting cases.

A legality rule needs, under each preset where it is active:
  - an accepting case, unless every action kind it applies to is forbidden outright there (another
    rule's clause folds to false, e.g. transfer.allowed under podkidnoy);
  - a rejecting case, unless its clause folds to true there (it can never reject) or its kinds are
    forbidden outright by an earlier rule.
A case counts for a preset when it runs under it without option overrides: an accepting case cites
the rule in `rules:` and accepts an action of a kind the rule applies to; a rejecting case has a
step rejected with `rule:` that rule. conformance/untested.yaml lists what deliberately stays
untested, one reason each. A preset that plays every deal as an earlier preset does (Spec.deal_twin:
only its match options differ) needs nothing of its own; its matches have match cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from durak_spec.conformance.cases import HERE as CONFORMANCE_DIR
from durak_spec.conformance.cases import Suite
from durak_spec.reference_impl.spec import Spec
from durak_spec.reference_impl.yamlio import InputError, load_file

UNTESTED_FILE = CONFORMANCE_DIR / "untested.yaml"


@dataclass
class Need:
    preset: str
    rule: str
    verdict: str  # "accept" or "reject"
    kinds: tuple
    covered_by: list = field(default_factory=list)
    untested: str | None = None


def needs(spec: Spec) -> list[Need]:
    """Every (preset, legality rule, verdict) the suite must cover."""
    out = []
    for preset in spec.presets:
        if spec.deal_twin(preset):
            continue
        rs = spec.ruleset(preset)
        blocked = {kind for kind, crs in rs.legality.items()
                   if any(cr.clause.const and cr.clause.value is False for cr in crs)}
        rules: dict[str, tuple] = {}
        for kind, crs in rs.legality.items():
            for cr in crs:
                rules.setdefault(cr.rule.id, (cr, []))[1].append(kind)
        for rule_id, (cr, kinds) in rules.items():
            open_kinds = tuple(k for k in kinds if k not in blocked)
            if open_kinds:
                out.append(Need(preset, rule_id, "accept", open_kinds))
            always_true = cr.clause.const and cr.clause.value is True
            forbids_outright = cr.clause.const and cr.clause.value is False
            if forbids_outright or (open_kinds and not always_true):
                out.append(Need(preset, rule_id, "reject", tuple(kinds)))
    return out


def load_untested(path: Path = UNTESTED_FILE) -> list[dict]:
    if not path.is_file():
        return []
    data = load_file(path)
    if not isinstance(data, list):
        raise InputError(str(path), "must be a list of {rule, variants, reason}")
    return data


def coverage(spec: Spec, suite: Suite, untested: list[dict] | None = None) -> list[Need]:
    """The needs, each with the cases that cover it (and the untested reason, if listed)."""
    result = needs(spec)
    index = {(n.preset, n.rule, n.verdict): n for n in result}
    for case in suite.cases:
        if case.options:
            continue
        kinds_accepted = {s.action.split()[1] for s in case.steps if s.expect == "accept"}
        for preset in case.variants:
            for rule in case.rules:
                n = index.get((preset, rule, "accept"))
                if n and kinds_accepted & set(n.kinds):
                    n.covered_by.append(case.id)
            for s in case.steps:
                if s.expect == "reject" and s.rule:
                    n = index.get((preset, s.rule, "reject"))
                    if n:
                        n.covered_by.append(case.id)
    for entry in untested or []:
        for preset in entry.get("variants") or list(spec.presets):
            for verdict in ("accept", "reject"):
                n = index.get((preset, entry.get("rule"), verdict))
                if n and not n.covered_by and entry.get("verdict", verdict) == verdict:
                    n.untested = entry.get("reason", "")
    return result


def gaps(needs_list: list[Need]) -> list[Need]:
    return [n for n in needs_list if not n.covered_by and not n.untested]
