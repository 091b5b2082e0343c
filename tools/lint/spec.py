"""`durak lint`: consistency of spec/ beyond what its schemas check.

Problems (exit 1): a preset that does not compile, an option no clause reads, an option or preset
whose listed disputes or sources are empty, options and the dispute register (disputes.yaml)
disagreeing, a rule or a preset's option value without its plain words for the rulebook pages.
Notes (printed, exit 0): sources nobody cites.
Case coverage (every legality rule has accepting and rejecting cases) joins when the conformance
suite exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.model import rule_options, value_text
from durak_spec.reference_impl.spec import Spec

OPTION_REF = re.compile(r"\bopt\.([a-z_][a-z0-9_]*)")


@dataclass
class LintReport:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict = field(default_factory=dict)


def _clause_texts(spec: Spec):
    for r in spec.rules:
        for text in (r.when, r.clause, r.key):
            if text:
                yield text
    for d in spec.definitions.values():
        yield d.clause
    for inv in spec.invariants:
        yield inv["clause"]
    for steps in spec.flow.values():
        for step in steps:
            if isinstance(step, dict) and "when" in step:
                yield step["when"]


def lint(spec: Spec) -> LintReport:
    report = LintReport()
    for name in spec.presets:
        try:
            spec.ruleset(name)
        except DurakError as exc:
            report.problems.append(f"preset {name} does not compile: {exc}")
    read = {m for text in _clause_texts(spec) for m in OPTION_REF.findall(text)}
    for name, option in spec.options.items():
        if name not in read:
            report.problems.append(f"options.yaml: option {name} is read by no clause; a variant "
                                   "could set it and nothing would change")
        if not option.disputes:
            report.problems.append(f"options.yaml: option {name} lists no dispute it settles")
    _check_disputes(spec, report)
    _check_variants(spec, report)
    _check_citations(spec, report)
    _check_plain_words(spec, report, read)
    cited = {t for r in spec.rules for t in r.sources}
    cited |= {t for o in spec.options.values() for t in o.sources}
    cited |= {t for p in spec.presets.values() for t in p["sources"]}
    cited |= {t for d in spec.disputes.values() for s in d.positions.values() for t in s.sources}
    uncited = sorted(set(spec.sources) - cited)
    if uncited:
        report.notes.append(f"{len(uncited)} sources are in the register but cited by no rule, "
                            f"option, preset or dispute: {', '.join(uncited)}")
    report.counts = {"rules": len(spec.rules), "options": len(spec.options),
                     "presets": len(spec.presets), "invariants": len(spec.invariants),
                     "sources": len(spec.sources), "disputes": len(spec.disputes)}
    return report


def _check_disputes(spec: Spec, report: LintReport) -> None:
    """The dispute register and options.yaml agree both ways: a dispute's `options` exist and
    list it back; an option's `disputes` are in the register, not open, and name the option."""
    for did, d in spec.disputes.items():
        for name in d.options:
            if name not in spec.options:
                report.problems.append(f"disputes.yaml: {did} is decided by option {name}, "
                                       "which options.yaml does not define")
            elif did not in spec.options[name].disputes:
                report.problems.append(f"disputes.yaml: {did} is decided by option {name}, but "
                                       f"options.yaml does not list {did} under {name}.disputes")
    for name, option in spec.options.items():
        for did in option.disputes:
            d = spec.disputes.get(did)
            if d is None:
                report.problems.append(f"options.yaml: option {name} settles {did}, which is not "
                                       "in the dispute register disputes.yaml")
            elif d.is_open:
                report.problems.append(f"options.yaml: option {name} settles {did}, which "
                                       "disputes.yaml lists as open; give it options and a ruling")
            elif name not in d.options:
                report.problems.append(f"options.yaml: option {name} settles {did}, but "
                                       f"disputes.yaml does not list {name} under {did}.options")


def _check_variants(spec: Spec, report: LintReport) -> None:
    """The sources table (variants.yaml) does not go stale: an entry that says it is not modelled
    may not rest on disputes that options now settle, and an entry implemented by options names
    disputes that are settled, not open."""
    for v in spec.variants:
        disputes = [spec.disputes[d] for d in v.get("disputes", []) if d in spec.disputes]
        if v.get("reason") and disputes and not any(d.is_open for d in disputes):
            report.problems.append(
                f"variants.yaml: {v['id']} says it is not modelled, but options settle "
                f"{', '.join(d.id for d in disputes)}; name the presets or option values that "
                "implement it")
        if not v.get("reason"):
            for d in disputes:
                if d.is_open:
                    report.problems.append(
                        f"variants.yaml: {v['id']} is implemented by options, but disputes.yaml "
                        f"still lists {d.id} as open; give it its options and a ruling")


def _check_plain_words(spec: Spec, report: LintReport, read: set) -> None:
    """The rulebook pages (docs) say every rule in plain words: each rule that reads no option has
    its `plain` sentence, and each value a preset gives an option that clauses read has its
    sentence in the option's `plain` (an empty one where there is nothing to add); a `plain` key
    that is no value of the option is a typo."""
    for r in spec.rules:
        if not r.plain and not r.plain_where and not rule_options(spec, r):
            report.problems.append(f"{r.file}: {r.path} ({r.id}) reads no option and has no plain "
                                   "sentence for the rulebook pages (plain: ...)")
    for name, option in spec.options.items():
        allowed = {value_text(v) for v in option.values} | {"*"}
        for key in sorted(set(option.plain) - allowed):
            report.problems.append(f"options.yaml: options.{name}.plain.{key}: {key!r} is no value "
                                   f"of {name} (values: {', '.join(sorted(allowed - {'*'}))})")
    needed: dict = {}
    # the `when` of each plain_where sentence and each option's plain_when: (clause, file, path)
    whens = [(w["when"], r.file, f"{r.path}.plain_where[{i}].when")
             for r in spec.rules for i, w in enumerate(r.plain_where)]
    whens += [(o.plain_when, "options.yaml", f"options.{name}.plain_when")
              for name, o in spec.options.items() if o.plain_when]
    # (file, path) -> whether some preset's page says it; None where its clause failed
    said: dict = {(file, path): False for _, file, path in whens}
    for preset in spec.presets:
        try:
            ruleset = spec.ruleset(preset)
        except DurakError:
            continue  # reported above
        values = ruleset.options
        for name in read & set(spec.options):
            needed.setdefault((name, value_text(values[name])), preset)
        for when, file, path in whens:
            if said[file, path] is None:
                continue  # its clause failed under an earlier preset: reported once
            try:
                said[file, path] = ruleset.holds(when, file, path) or said[file, path]
            except DurakError as exc:
                report.problems.append(f"{exc} (under {preset})")
                said[file, path] = None
    for _, file, path in whens:
        if said[file, path] is False:
            report.problems.append(f"{file}: {path}: holds under no preset, so no rulebook page "
                                   "says what it guards")
    for (name, value), preset in sorted(needed.items()):
        if spec.options[name].plain_for(_value(spec, name, value)) is None:
            report.problems.append(f"options.yaml: options.{name}.plain has no sentence for "
                                   f"{value} (preset {preset}'s value), so its rulebook page "
                                   "cannot say the rule in plain words")


def _value(spec: Spec, name: str, text: str):
    """The value of option `name` whose spec notation is `text`."""
    return next(v for v in spec.options[name].values if value_text(v) == text)


def _check_citations(spec: Spec, report: LintReport) -> None:
    """Each option value a preset assigns says where it comes from (presets.yaml `cite`): sources
    the preset cites, and each one a source the dispute register lists for the position that value
    takes (in some dispute the option decides and that does not leave moot); where the sources
    are silent, `ruling` names a dispute the option decides, whose note gives the choice."""
    for name, preset in spec.presets.items():
        where = f"presets.yaml: preset {name}"
        cite = preset.get("cite", {})
        for option in sorted(set(cite) - set(preset["options"])):
            report.problems.append(f"{where} cites option {option}, which it does not assign")
        try:
            values = spec.ruleset(name).options
        except DurakError:
            continue  # reported above
        for option in preset["options"]:
            places = cite.get(option)
            if not places:
                report.problems.append(f"{where} assigns {option} but does not cite where it "
                                       f"comes from (cite.{option}: SOURCE: place)")
                continue
            deciding = [d for d in spec.disputes.values() if option in d.options]
            stances = [s for d in deciding if (s := d.stance_for(values)) is not None]
            for tag, place in places.items():
                if tag == "ruling":
                    named = set(re.findall(r"\bD[0-9]+\b", place))
                    if not named & {d.id for d in deciding}:
                        report.problems.append(
                            f"{where}: cite.{option}.ruling names no dispute that {option} decides "
                            f"({', '.join(d.id for d in deciding) or 'none'})")
                    continue
                if tag not in preset["sources"]:
                    report.problems.append(f"{where}: cite.{option} cites {tag}, which is not among "
                                           f"the preset's sources ({', '.join(preset['sources'])})")
                elif stances and not any(tag in s.sources for s in stances):
                    report.problems.append(
                        f"{where}: cite.{option} cites {tag} for {option}={values[option]!r}, but the "
                        f"dispute register lists {tag} for none of the positions that value takes "
                        f"({', '.join(sorted({s.id for s in stances}))})")
