"""A rulebook page per preset: the rules that can decide under it, grouped the way a player reads
a rulebook (cards and deal, who starts, attacking, ...), each with its normative text, the values
the preset gives the options it reads and where in the sources those values come from, and links
to the rule's section and its sources. Rule texts come from spec/ through nodes, never reST."""

from __future__ import annotations

from docutils import nodes

from .directives import DurakDirective, option_link, source_links
from .util import joined, literal, normative, para, ref, strong, value_text

# The chapters of a rulebook, in reading order, and the rule areas (spec/spec.yaml) each holds.
CHAPTERS = (
    ("The cards and the deal", ("deck",)),
    ("Who starts", ("start",)),
    ("Playing a card", ("play",)),
    ("Attacking", ("attack",)),
    ("Adding cards", ("throw_in",)),
    ("How many cards", ("limits",)),
    ("Defending and taking", ("defence",)),
    ("Transferring", ("transfer",)),
    ("The end of a bout", ("bout",)),
    ("Drawing", ("draw",)),
    ("Who plays next", ("rotation",)),
    ("Teams", ("teams",)),
    ("The end of the deal", ("end",)),
    ("Deals in a match and scoring", ("match", "scoring")),
)


def chapters(data, preset: str) -> list[tuple[str, list]]:
    """[(chapter title, [rules that can decide under the preset])], empty chapters left out;
    areas no chapter names come last, under their own titles."""
    spec = data.spec
    named = {a for _, areas in CHAPTERS for a in areas}
    order = list(CHAPTERS) + [(a["title"], (a["id"],)) for a in spec.areas if a["id"] not in named]
    out = []
    for heading, areas in order:
        rules = [r for r in spec.rules if r.area in areas and preset in data.deciding_presets(r)]
        if rules:
            out.append((heading, rules))
    return out


class Rulebook(DurakDirective):
    """`.. durak-rulebook:: PRESET` - the preset's rules in force, chapter by chapter."""

    required_arguments = 1

    def run(self):
        data = self.data()
        name = self.arguments[0]
        preset = data.spec.presets.get(name)
        if preset is None:
            self.fail(f"unknown preset {name!r}")
        ruleset = data.rulesets[name]
        cited = data.spec.citations(name)
        out = [para(preset["title"]),
               para("Sources: ", *source_links(preset["sources"]),
                    ". Only the rules that can decide something under this variant are listed; "
                    "each links to its section, where its clause, cases and the disputes around "
                    "it are.")]
        for heading, rules in chapters(data, name):
            out.append(nodes.rubric(heading, heading))
            items = nodes.bullet_list()
            for rule in rules:
                item = nodes.list_item()
                item += para(strong(rule.title), " (", ref(rule.id, rule.id, literal=True), "; ",
                             *source_links(rule.sources), ")")
                item += normative(rule.text)
                values = [o for o in data.rule_options.get(rule.id, []) if o in ruleset.options]
                if values:
                    item += para("Here: ", *joined([[option_link(o), " = ",
                                                     literal(value_text(ruleset.options[o])),
                                                     *_where(cited, o)] for o in values], "; "))
                items += item
            out.append(items)
        return out


def _where(cited: dict, option: str) -> list:
    """Where the preset's value comes from: its citations, or that it is the default."""
    if option not in cited:
        return [" (the default)"]
    preset, places = cited[option]
    parts = []
    for tag, place in places.items():
        parts += ([" (sources silent, ruled: ", place, ")"] if tag == "ruling"
                  else [" (", ref(f"src.{tag}", tag), ": ", place, ")"])
    return parts + ([f" [from {preset}]"] if parts else [])


DIRECTIVES = {"durak-rulebook": Rulebook}
