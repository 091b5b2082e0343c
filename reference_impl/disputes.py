"""The register of disputes (spec/disputes.yaml): questions the sources answer differently, the
positions taken, and which options decide them.

A variant's position on a dispute is not written per preset: `Dispute.ruling_for(options)` derives
it from the variant's resolved option values through the dispute's `ruling` cases, so presets and
the register cannot drift apart. Loading checks every reference and that the cases cover every
combination of the option values they read.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field

from .errors import SpecError, suggest
from .model import check_option_value

MAX_COMBINATIONS = 100_000


@dataclass(frozen=True)
class Stance:
    """One position taken in a dispute, with the sources that take it."""

    id: str
    text: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class RulingCase:
    """A case of a dispute's ruling: when the options match `when`, the variant takes `position`,
    or the dispute does not arise for the reason in `moot`."""

    when: dict
    position: str | None = None
    moot: str | None = None

    def matches(self, options: dict) -> bool:
        return all(k in options and _same(options[k], v) for k, v in self.when.items())


@dataclass
class Dispute:
    id: str
    title: str
    question: str
    positions: dict[str, Stance]
    options: list[str] = field(default_factory=list)
    open: str | None = None
    rules: list[str] = field(default_factory=list)
    ruling: list[RulingCase] = field(default_factory=list)
    flagged: bool = False
    note: str | None = None
    file: str = ""
    path: str = ""

    @property
    def is_open(self) -> bool:
        """True when no option expresses the dispute yet."""
        return self.open is not None

    def ruling_for(self, options: dict) -> RulingCase | None:
        """The case that rules for a variant with these resolved option values; None when the
        register gives no ruling (a dispute the spec does not model)."""
        return next((c for c in self.ruling if c.matches(options)), None)

    def stance_for(self, options: dict) -> Stance | None:
        case = self.ruling_for(options)
        return self.positions[case.position] if case and case.position else None


def _same(a, b) -> bool:
    return a == b and type(a) is type(b)


def read_disputes(data: dict, spec, file: str) -> dict[str, Dispute]:
    """Build the register from validated YAML and check it against the rest of `spec`."""
    disputes = {}
    for did, d in data["disputes"].items():
        path = f"disputes.{did}"
        positions = {pid: Stance(pid, p["stance"], tuple(p["sources"]))
                     for pid, p in d["positions"].items()}
        ruling = [RulingCase(dict(c.get("when", {})), c.get("position"), c.get("moot"))
                  for c in d.get("ruling", [])]
        disputes[did] = Dispute(did, d["title"], d["question"], positions,
                                list(d.get("options", [])), d.get("open"),
                                list(d.get("rules", [])), ruling, d.get("flagged", False),
                                d.get("note"), file, path)
    for dispute in disputes.values():
        _check(dispute, spec)
    return disputes


def _check(d: Dispute, spec) -> None:
    if bool(d.options) == d.is_open:
        raise SpecError("a dispute is either decided by `options` (with a `ruling`) or `open` with "
                        "the reason no option expresses it yet; give exactly one", d.file, d.path)
    for pid, stance in d.positions.items():
        for i, tag in enumerate(stance.sources):
            if tag not in spec.sources:
                raise SpecError(f"unknown source tag {tag!r}.{suggest(tag, spec.sources)}",
                                d.file, f"{d.path}.positions.{pid}.sources[{i}]")
    for i, name in enumerate(d.options):
        if name not in spec.options:
            raise SpecError(f"unknown option {name!r}.{suggest(name, spec.options)}",
                            d.file, f"{d.path}.options[{i}]")
    rule_ids = spec.rules_by_id
    for i, rid in enumerate(d.rules):
        if rid not in rule_ids:
            raise SpecError(f"unknown rule id {rid!r}.{suggest(rid, rule_ids)}", d.file,
                            f"{d.path}.rules[{i}]")
    for i, case in enumerate(d.ruling):
        where = f"{d.path}.ruling[{i}]"
        if (case.position is None) == (case.moot is None):
            raise SpecError("a ruling case names a `position`, or says with `moot` why the "
                            "dispute does not arise; give exactly one", d.file, where)
        for name, value in case.when.items():
            check_option_value(spec, name, value, d.file, f"{where}.when.{name}")
        if case.position is not None and case.position not in d.positions:
            raise SpecError(f"unknown position {case.position!r}; positions of {d.id}: "
                            f"{', '.join(d.positions)}.{suggest(case.position, d.positions)}",
                            d.file, f"{where}.position")
    _check_coverage(d, spec)


def _check_coverage(d: Dispute, spec) -> None:
    """Every combination of values of the options the ruling reads must meet a case."""
    if not d.ruling:
        if not d.is_open:
            raise SpecError("a dispute decided by options needs a ruling", d.file, d.path)
        return
    names = list(dict.fromkeys(d.options + [n for c in d.ruling for n in c.when]))
    values = [spec.options[n].values for n in names]
    count = 1
    for v in values:
        count *= len(v)
    if count > MAX_COMBINATIONS:
        raise SpecError(f"the ruling reads {count} combinations of option values; "
                        f"split the dispute or rule on fewer options", d.file, f"{d.path}.ruling")
    for combo in itertools.product(*values):
        options = dict(zip(names, combo))
        if d.ruling_for(options) is None:
            shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in options.items())
            raise SpecError(f"no case of the ruling covers {shown}; add a case for it "
                            "(a case without `when` covers the rest)", d.file, f"{d.path}.ruling")
