"""A rulebook page per preset: the rules in force under it in plain words, chapter by chapter the
way a player reads a rulebook (cards and deal, who starts, attacking, ...), in the preset's own
option values, each statement linked to its rule id and to where it comes from.

The words are data: each rule's `plain` sentence (spec/rules/) and each option's sentence for the
preset's value (spec/options.yaml `plain`); an option is said once, with the first rule in force
that reads it, and a rule with nothing of its own left to say is linked from the statement that
said its options. Nothing here holds rule text."""

from __future__ import annotations

from dataclasses import dataclass, field

from docutils import nodes

from .clause import option_names
from .data import possible_kinds
from .directives import DurakDirective, source_links
from .util import joined, para, ref

# The chapters of a rulebook, in reading order: the rule areas (spec/spec.yaml) each holds, and
# the action kinds without which its rules that are no legality rule have nothing to say (where
# no transfer or passport is possible, the transfer chapter says only that).
CHAPTERS = (
    ("The cards and the deal", ("deck",), ()),
    ("Who starts", ("start",), ()),
    ("Playing a card", ("play",), ()),
    ("Attacking", ("attack",), ()),
    ("Adding cards", ("throw_in",), ()),
    ("How many cards", ("limits",), ()),
    ("Defending and taking", ("defence",), ()),
    ("Transferring", ("transfer",), ("transfer", "show")),
    ("The end of a bout", ("bout",), ()),
    ("Drawing", ("draw",), ()),
    ("Who plays next", ("rotation",), ()),
    ("Teams", ("teams",), ()),
    ("The end of the deal", ("end",), ()),
    ("Deals in a match and scoring", ("match", "scoring"), ()),
)


@dataclass
class Statement:
    """What the rulebook says for one rule: its sentences, the rules it speaks for (its own and
    those whose options it said) and the options whose values it states."""

    sentences: list[str]
    rules: list = field(default_factory=list)
    options: list[str] = field(default_factory=list)


def chapters(data, preset: str) -> list[tuple[str, list]]:
    """[(chapter title, [rules in force under the preset])], empty chapters left out; areas no
    chapter names come last, under their own titles. A rule not in force joins where its `when`
    (or, without one, the rule) reads an option no rule in force reads and the preset's value of
    it has something to say (a bout without a fixed cap: limits.cap never refuses, and saying so
    settles an argument)."""
    spec = data.spec
    named = {a for _, areas, _ in CHAPTERS for a in areas}
    order = list(CHAPTERS) + [(a["title"], (a["id"],), ()) for a in spec.areas
                              if a["id"] not in named]
    rs = data.rulesets[preset]
    possible = possible_kinds(rs)
    found = [(heading, [r for r in spec.rules if r.area in areas and data.in_rulebook(r, preset)
                        and (r.applies_to or not kinds or set(kinds) & possible)])
             for heading, areas, kinds in order]
    read = {o for _, rules in found for r in rules for o in data.rule_options.get(r.id, [])}
    out = []
    for (heading, rules), (_, areas, _) in zip(found, order):
        off = set()
        for r in spec.rules:
            if r.area not in areas or r in rs.active_rules:
                continue
            says = {o for o in data.rule_options.get(r.id, []) if o not in read
                    and (r.when is None or o in option_names(r.when))
                    and option_words(rs, spec.options[o])}
            if says:
                off.add(r.id)
                read |= says  # one rule not in force says a value, not every one reading it
        rules = [r for r in spec.rules if r in rules or r.id in off]
        if rules:
            out.append((heading, rules))
    return out


def homes(data, preset: str, book) -> dict[str, str]:
    """Option -> the id of the rule in force whose statement says its value: the first rule in
    the book that names it alone under `options:`, else the first that names it there, else the
    first that reads it."""
    rules = [r for _, rs in book for r in rs]
    out = {}
    for name in dict.fromkeys(o for r in rules for o in data.rule_options.get(r.id, [])):
        alone = [r for r in rules if r.options == [name]]
        named = [r for r in rules if name in r.options]
        reading = [r for r in rules if name in data.rule_options.get(r.id, [])]
        out[name] = (alone or named or reading)[0].id
    return out


def option_words(rs, option) -> str | None:
    """The option's sentence for its value under ruleset `rs`, where its `plain_when` holds."""
    if option.plain_when and not rs.holds(option.plain_when, "options.yaml",
                                          f"options.{option.name}.plain_when"):
        return None
    return option.plain_for(rs.options[option.name], rs.options)


def plain_words(rs, rule) -> list[str]:
    """The rule's own sentences under ruleset `rs`: its `plain`, and each `plain_where` sentence
    whose `when` holds under the preset's options (a team-play sentence only where teams play)."""
    return ([rule.plain] if rule.plain else []) + [
        extra["plain"] for i, extra in enumerate(rule.plain_where)
        if rs.holds(extra["when"], rule.file, f"{rule.path}.plain_where[{i}].when")]


def statements(data, preset: str) -> list[tuple[str, list[Statement]]]:
    """The rulebook of a preset as data: per chapter, what it says for the rules in force. A rule
    with nothing of its own to say is spoken for by the statement that says one of its options,
    else by its neighbour in the chapter."""
    book = chapters(data, preset)
    home = homes(data, preset, book)
    said_by: dict[str, Statement] = {}
    out, silent = [], []
    for heading, rules in book:
        said: list[Statement] = []
        for rule in rules:
            st = Statement(plain_words(data.rulesets[preset], rule), [rule])
            for name in data.rule_options.get(rule.id, []):
                if home[name] != rule.id:
                    continue
                st.options.append(name)
                sentence = option_words(data.rulesets[preset], data.spec.options[name])
                if sentence:
                    st.sentences.append(sentence)
            for name in st.options:
                said_by[name] = st
            if st.sentences:
                said.append(st)
            else:
                silent.append((rule, st, said[-1] if said else None, said))
        out.append((heading, said))
    for rule, st, before, said in silent:
        speaker = next((said_by[o] for o in data.rule_options.get(rule.id, [])
                        if said_by.get(o) is not None and said_by[o].sentences), None)
        speaker = speaker or before or (said[0] if said else None)
        if speaker is not None:
            speaker.rules.append(rule)
            speaker.options += st.options
    return [(h, said) for h, said in out if said]


class Rulebook(DurakDirective):
    """`.. durak-rulebook:: PRESET` - the preset's rules in force, in plain words."""

    required_arguments = 1

    def run(self):
        data = self.data()
        name = self.arguments[0]
        preset = data.spec.presets.get(name)
        if preset is None:
            self.fail(f"unknown preset {name!r}")
        cited = data.spec.citations(name)
        out = [para(preset["title"]),
               para("Sources: ", *source_links(preset["sources"]),
                    ". The rules in force under this variant, in plain words. After each, the "
                    "rule it states (its section has the exact wording, the clause, the cases and "
                    "the disputes around it) and where it comes from.")]
        for heading, said in statements(data, name):
            out.append(nodes.rubric(heading, heading))
            items = nodes.bullet_list()
            for st in said:
                item = nodes.list_item()
                item += para(" ".join(st.sentences), " (", *_origin(st, cited), ")")
                items += item
            out.append(items)
        return out


def _origin(st: Statement, cited: dict) -> list:
    """The rule ids a statement speaks for, then where it comes from: the preset's citation of
    each option value it states, and the rules' own sources for the rest (their plain words, or
    an option left at its default)."""
    parts = joined([ref(r.id, r.id, literal=True) for r in st.rules])
    places = [(tag, place) for o in st.options if o in cited for tag, place in cited[o][1].items()]
    for tag, place in dict.fromkeys(places):
        parts += ["; sources silent, ruled: " + place] if tag == "ruling" else \
                 ["; ", ref(f"src.{tag}", tag), ": " + place]
    if any(r.plain for r in st.rules) or any(o not in cited for o in st.options) or not places:
        parts += ["; ", *source_links(list(dict.fromkeys(t for r in st.rules for t in r.sources)))]
    return parts


DIRECTIVES = {"durak-rulebook": Rulebook}
