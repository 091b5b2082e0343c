"""Directives that render spec/ entries: areas, rules, options, presets, disputes, invariants.

Each takes an id, looks it up in the loaded spec and builds docutils nodes; the generated pages
(pages.py) only arrange sections and call these, so no rule text passes through reST source.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from . import state
from .util import (
    clause_block,
    clause_inline,
    fields,
    joined,
    literal,
    normative,
    para,
    ref,
    strong,
    table,
    value_text,
)

BULK_FOLDERS = {"golden": "Golden games", "generated": "Generated cases"}


class DurakDirective(SphinxDirective):
    """Base: the loaded data, and a rebuild when a spec file or a case changes."""

    def data(self):
        data = state.data()
        if not self.env.temp_data.get("durak_dependencies"):  # once per page, not per directive
            self.env.temp_data["durak_dependencies"] = True
            for path in data.spec.root.rglob("*.yaml"):
                self.env.note_dependency(str(path))
            for case in data.cases:
                self.env.note_dependency(case.file)
        return data

    def fail(self, message: str):
        raise self.error(f"{self.name}: {message}")


def rule_link(rule_id: str) -> nodes.Node:
    return ref(rule_id, rule_id, literal=True)


def option_link(name: str) -> nodes.Node:
    return ref(f"opt.{name}", name, literal=True)


def preset_link(name: str) -> nodes.Node:
    return ref(f"preset.{name}", name, literal=True)


def source_links(tags) -> list:
    return joined([ref(f"src.{t}", t) for t in tags])


def case_link(case_id: str) -> nodes.Node:
    return ref(f"case.{case_id}", case_id, literal=True)


class AreasTable(DurakDirective):
    """All rule areas in manifest order, with their rules."""

    def run(self):
        spec = self.data().spec
        rows = []
        for area in spec.areas:
            rules = [r for r in spec.rules if r.area == area["id"]]
            rows.append([[ref(f"area.{area['id']}", area["title"])], area["file"],
                         joined([rule_link(r.id) for r in rules])])
        return [table(["area", "file", "rules"], rows, [3, 3, 8])]


class AreaSummary(DurakDirective):
    """The rules of one area, one line each."""

    required_arguments = 1

    def run(self):
        data = self.data()
        area = self.arguments[0]
        rules = [r for r in data.spec.rules if r.area == area]
        file = next((a["file"] for a in data.spec.areas if a["id"] == area), None)
        if file is None:
            self.fail(f"unknown rule area {area!r}")
        intro = para("The rules below are defined in ", literal(f"spec/{file}"),
                     "; the interpreter checks the legality rules of this area in this order.")
        rows = [[[rule_link(r.id)], r.title, _kind(r)] for r in rules]
        return [intro, table(["rule", "title", "kind"], rows, [3, 6, 3])]


def _kind(rule) -> str:
    if rule.applies_to:
        what = "order of " if rule.key else "legality of "
        return what + ", ".join(rule.applies_to)
    if rule.decides:
        return f"decides {rule.decides}"
    return "descriptive"


class RuleBody(DurakDirective):
    """One rule: text, sources, applicability, the options it reads, its clause and its cases."""

    required_arguments = 1

    def run(self):
        data = self.data()
        rule = data.spec.rules_by_id.get(self.arguments[0])
        if rule is None:
            self.fail(f"unknown rule id {self.arguments[0]!r}")
        out = [normative(rule.text)]
        items = [
            ("Sources", source_links(rule.sources)),
            ("Catalogue", ", ".join(rule.catalogue)),
            ("Kind", _kind(rule)),
            ("Decides in", _in_force(rule, data)),
            ("Options read", joined([option_link(o) for o in data.rule_options[rule.id]])),
            ("Violation", [nodes.Text("Can't ACTION: "), literal(rule.id),
                           nodes.Text(f": {rule.violation}")] if rule.violation else None),
        ]
        out.append(fields(items))
        for label, text in (("Clause", rule.clause), ("Order key (lowest acts first)", rule.key)):
            if text:
                out += [para(strong(label)), clause_block(text, data)]
        out += _cases(data.cases_for(rule.id), rule.id)
        where = f"Defined in spec/{_rel(data, rule.file)}, {rule.path}."
        out.append(para(nodes.emphasis(where, where)))
        return out


def _in_force(rule, data) -> list:
    """The presets under which the rule can decide something (data.deciding_presets), after its
    `when` if it has one: a rule every preset has but that an earlier rule always pre-empts, or
    that always allows, is not listed there."""
    presets = data.deciding_presets(rule)
    head = [clause_inline(rule.when, data), nodes.Text(" — ")] if rule.when else []
    if len(presets) == len(data.rulesets):
        return head + [nodes.Text("every preset")]
    return head + [nodes.Text("presets: "), *joined([preset_link(p) for p in presets] or ["none"])]


def _cases(cases, rule_id: str) -> list:
    """Hand-written cases one per line; golden and generated ones as a list of links."""
    out = [para(strong("Conformance cases"))]
    if not cases:
        return out + [para("No conformance case cites this rule yet.")]
    items = nodes.bullet_list()
    bulk: dict[str, list] = {}
    for c in cases:
        folder = c.id.split("/")[0]
        if folder in BULK_FOLDERS:
            bulk.setdefault(folder, []).append(c)
            continue
        role = " (a step is rejected by this rule)" if rule_id in c.rejects else ""
        item = nodes.list_item()
        item += para(case_link(c.id), f" — {c.description}{role}")
        items += item
    for folder, group in bulk.items():
        item = nodes.list_item()
        item += para(f"{BULK_FOLDERS[folder]}: ", *joined([case_link(c.id) for c in group]))
        items += item
    return out + [items]


def _rel(data, file: str) -> str:
    try:
        return Path(file).relative_to(data.spec.root).as_posix()
    except ValueError:
        return file


class OptionBody(DurakDirective):
    required_arguments = 1

    def run(self):
        data = self.data()
        name = self.arguments[0]
        o = data.spec.options.get(name)
        if o is None:
            self.fail(f"unknown option {name!r}")
        setters = [p for p, preset in data.spec.presets.items() if name in preset["options"]]
        items = [
            ("Type", o.type),
            ("Default", [literal(value_text(o.default))]),
            ("Values", joined([literal(value_text(v)) for v in o.values])),
            ("Disputes", joined([ref(f"dispute.{d}", d) for d in o.disputes])),
            ("Sources", source_links(o.sources)),
            ("Read by", joined([rule_link(r) for r in data.option_rules.get(name, [])])),
            ("Set by presets", joined([preset_link(p) for p in setters])),
        ]
        return [para(o.meaning), fields(items)]


class PresetBody(DurakDirective):
    required_arguments = 1

    def run(self):
        data = self.data()
        name = self.arguments[0]
        p = data.spec.presets.get(name)
        if p is None:
            self.fail(f"unknown preset {name!r}")
        assigned = joined([[option_link(o), " = ", literal(value_text(v))]
                           for o, v in p["options"].items()])
        items = [("Extends", [preset_link(p["extends"])] if "extends" in p else None),
                 ("Sources", source_links(p["sources"])),
                 ("Assigns", assigned)]
        return [para(p["title"]), fields(items)]


class PresetMatrix(DurakDirective):
    """Options down, presets across: each preset's resolved value, marked by where it comes from."""

    def run(self):
        data = self.data()
        presets = list(data.rulesets)
        rows = []
        for name, o in data.spec.options.items():
            row = [[option_link(name)], [literal(value_text(o.default))]]
            for p in presets:
                rs = data.rulesets[p]
                text = value_text(rs.options[name])
                origin = rs.option_origins[name]
                if origin == f"preset {p}":
                    cell = [strong(text)]
                elif origin == "default":
                    cell = [nodes.inline(text, text, classes=["durak-default"])]
                else:
                    cell = [nodes.Text(text), nodes.superscript("", "↑")]
                row.append(cell)
            rows.append(row)
        legend = para(strong("bold"), ": set by the preset itself; ",
                      nodes.Text("value↑"), ": inherited from the preset it extends; plain: the "
                      "option's default.")
        headers = ["option", "default"] + [[preset_link(p)] for p in presets]
        return [legend, table(headers, rows, [4, 2] + [2] * len(presets),
                              classes=["durak-matrix"])]


class DisputeBody(DurakDirective):
    """One dispute: the question, the positions with their sources, what settles it, and the
    position each preset takes (derived from its option values by the register's ruling)."""

    required_arguments = 1

    def run(self):
        data = self.data()
        d = data.disputes.get(self.arguments[0])
        if d is None:
            self.fail(f"unknown dispute {self.arguments[0]!r}")
        out = [para(d["question"])] if d.get("question") else []
        if d["positions"]:
            items = nodes.bullet_list()
            for pid, stance in d["positions"].items():
                item = nodes.list_item()
                item += para(literal(pid), f": {stance.text} ",
                             *(["(", *source_links(stance.sources), ")"] if stance.sources else []))
                items += item
            out += [para(strong("Positions")), items]
        out.append(fields([("Settled by", joined([option_link(o) for o in d["options"]])),
                           ("Open", d.get("open")),
                           ("Rules", joined([rule_link(r) for r in d.get("rules", [])]))]))
        if d.get("note"):
            out.append(para(nodes.emphasis("", d["note"])))
        rows = [[[preset_link(p)], _ruling(kind, value)]
                for p, (kind, value) in d["rulings"].items()]
        out.append(table(["preset", "ruling"], rows, [3, 9]))
        return out


def _ruling(kind: str, value) -> list:
    if kind == "position":
        return [literal(value)]
    if kind == "moot":
        return [nodes.emphasis("", "does not arise: "), nodes.Text(value)]
    return [nodes.emphasis("", "no ruling"), nodes.Text(f": {value}" if value else "")]


STATE_MACHINE = ("checked after every step of random games under every preset and 2 to 6 players "
                 "by the hypothesis state machine (tests/reference_impl/test_state_machine.py), "
                 "and by durak simulate")


class InvariantBody(DurakDirective):
    required_arguments = 1

    def run(self):
        data = self.data()
        inv = next((i for i in data.spec.invariants if i["id"] == self.arguments[0]), None)
        if inv is None:
            self.fail(f"unknown invariant {self.arguments[0]!r}")
        scope = ("the state after every step" if inv["scope"] == "state"
                 else "the state before every applied action")
        rows = [("Checked on", scope), ("Tested", STATE_MACHINE)]
        if data.verification is not None:
            by_preset = data.verification.get(inv["id"], {})
            text = "; ".join(f"{p}: {status}" + (f" ({note})" if note else "")
                             for p, (status, note) in by_preset.items()) or "not reached by any step"
            rows.append(("z3 (durak verify)", "proved by induction over every action and bout end, "
                         "2 to 6 players, unless said otherwise: " + text))
        return [para(inv["text"]), fields(rows),
                para(strong("Clause")), clause_block(inv["clause"], data)]


class SourcesTable(DurakDirective):
    """The sources table (spec/variants.yaml): every variant and house rule the sources mention,
    with the presets and option values that implement it or the reason it is not modelled."""

    def run(self):
        data = self.data()
        rows = []
        for v in data.spec.variants:
            how: list = []
            if v.get("presets"):
                how += ["presets "] + joined([preset_link(p) for p in v["presets"]])
            if v.get("options"):
                how += (["; " if how else ""] + ["options "]
                        + joined([[option_link(n), " = ", literal(value_text(x))]
                                  for n, x in v["options"].items()]))
            if v.get("reason"):
                how += [nodes.emphasis("", "not modelled: "), nodes.Text(v["reason"])]
            if v.get("note"):
                how += [nodes.Text(" " + v["note"])]
            disputes = joined([ref(f"dispute.{d}", d) for d in v.get("disputes", [])])
            rows.append([[strong(v["title"])], source_links(v["sources"]),
                         [nodes.Text(", ".join(v.get("catalogue", [])))], disputes, how])
        intro = para(f"{len(rows)} variants and house rules, "
                     f"{sum(1 for v in data.spec.variants if not v.get('reason'))} of them "
                     "implemented by presets or options. ``durak lint`` fails when an entry "
                     "that says it is not modelled rests on disputes that options settle.")
        return [intro, table(["variant or house rule", "sources", "catalogue", "disputes",
                              "implemented by"], rows, [5, 3, 2, 2, 8])]


DIRECTIVES = {
    "durak-areas": AreasTable,
    "durak-area": AreaSummary,
    "durak-rule": RuleBody,
    "durak-option": OptionBody,
    "durak-preset": PresetBody,
    "durak-matrix": PresetMatrix,
    "durak-dispute": DisputeBody,
    "durak-invariant": InvariantBody,
    "durak-variants": SourcesTable,
}
