"""The spec's data model below the loader: a rule and an option as written in spec/, and the check
of an option value, shared by the loader, the dispute register and rulesets."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import SpecError, suggest


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
        raise SpecError(f"option {name} can't be {value!r}; allowed values: "
                        f"{', '.join('null' if v is None else str(v) for v in option.values)}",
                        file, path)
