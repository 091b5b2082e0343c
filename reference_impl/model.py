"""The spec's data model below the loader: a rule and an option as written in spec/, and the check
of an option value, shared by the loader, the dispute register and rulesets."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import SpecError, clip_values, suggest


@dataclass
class Rule:
    """One rule: id, prose, sources and (optionally) its formal clause, as written in spec/."""

    id: str
    title: str
    text: str
    sources: list[str]
    catalogue: list[str]
    area: str
    file: str
    path: str
    when: str | None = None
    clause: str | None = None
    key: str | None = None
    applies_to: list[str] = field(default_factory=list)
    violation: str = ""
    decides: str | None = None
    options: list[str] = field(default_factory=list)
    definition: str | None = None
    plain: str = ""  # the rule in plain words, for the rulebook pages (no option values)
    # further sentences, each said only under the presets where its `when` (over options) holds
    plain_where: list[dict] = field(default_factory=list)


@dataclass
class Option:
    name: str
    group: str
    type: str
    default: object
    values: list
    meaning: str
    disputes: list[str]
    sources: list[str]
    # The rulebook's sentence per value, keyed by the value's spec notation (value_text), or "*"
    # for a template of the other values ({value}); an empty sentence says nothing.
    plain: dict = field(default_factory=dict)
    plain_when: str | None = None  # over options: the sentences are said only where it holds

    def plain_for(self, value, values: dict | None = None) -> str | None:
        """The rulebook's sentence for `value`, or None when there is none; `{value}` in it is
        the value, `{OPTION}` the value of another option in `values`."""
        text = self.plain.get(value_text(value), self.plain.get("*"))
        if text is None:
            return None
        given = {"value": value, **(values or {})}
        return PLACEHOLDER.sub(lambda m: value_text(given[m.group(1)]) if m.group(1) in given
                               else m.group(0), text)


def type_ok(kind: str, v) -> bool:
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "int_or_none":
        return v is None or isinstance(v, int) and not isinstance(v, bool)
    return isinstance(v, str)


def check_option_value(spec, name: str, value, file: str | None, path: str) -> None:
    """Raise SpecError unless `value` is an allowed value of option `name`."""
    option = spec.options.get(name)
    if option is None:
        raise SpecError(f"unknown option {name!r}.{suggest(name, spec.options)}", file, path)
    if not any(value == v and type(value) is type(v) for v in option.values):
        raise SpecError(f"option {name} can't be {clip_values(repr(value))}; allowed values: "
                        f"{', '.join('null' if v is None else str(v) for v in option.values)}",
                        file, path)


def value_text(v) -> str:
    """An option value in spec notation (as YAML writes it): null, true, false, 6, single."""
    return "null" if v is None else str(v).lower() if isinstance(v, bool) else str(v)


PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
OPTION_REF = re.compile(r"\bopt\.([a-z_][a-z0-9_]*)")
WORD = re.compile(r"\b[a-z_][a-z0-9_]*\b")


def options_read(spec, texts, seen=None) -> list[str]:
    """Options that clause texts read, through the definitions they use too, in first-use order."""
    seen = set() if seen is None else seen
    found: list[str] = []
    for text in texts:
        if not text:
            continue
        found += OPTION_REF.findall(text)
        for word in WORD.findall(text):
            if word in spec.definitions and word not in seen:
                seen.add(word)
                found += options_read(spec, [spec.definitions[word].clause], seen)
    return list(dict.fromkeys(found))


def rule_options(spec, rule: Rule) -> list[str]:
    """Options a rule reads in its when, clause or key, or names under `options:`."""
    read = options_read(spec, [rule.when, rule.clause, rule.key])
    return list(dict.fromkeys(read + rule.options))
