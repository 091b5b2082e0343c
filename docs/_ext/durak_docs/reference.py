"""Reference directives: sources, the clause vocabulary, definitions, cases and JSON Schemas."""

from __future__ import annotations

import json

from docutils import nodes

from durak_spec.reference_impl import lang, vocab

from .directives import DurakDirective, case_link, option_link, preset_link, rule_link
from .util import anchor, clause_block, joined, literal, para, strong, table, value_text


class SourcesList(DurakDirective):
    """The source register: one entry per tag, with the rules that cite it."""

    def run(self):
        data = self.data()
        out = nodes.definition_list()
        for tag, src in data.spec.sources.items():
            item = nodes.definition_list_item()
            term = nodes.term()
            term += anchor(self.state.document, f"src.{tag}")
            term += strong(f"[{tag}] ")
            title = src["title"]
            term += (nodes.reference(title, title, refuri=src["url"]) if src.get("url")
                     else nodes.Text(title))
            item += term
            body = nodes.definition()
            who = ", ".join(x for x in (src.get("author"), src.get("site")) if x)
            facts = [who, src.get("date"), src.get("revision") and f"revision {src['revision']}",
                     f"{src['kind']}, reliability {src['reliability']}"]
            body += para("; ".join(str(f) for f in facts if f) + ".")
            if src.get("note"):
                body += para(src["note"])
            cited = [rule_link(r) for r in data.sources_citing(tag)]
            cited += [option_link(o) for o, opt in data.spec.options.items() if tag in opt.sources]
            cited += [preset_link(p) for p, pr in data.spec.presets.items() if tag in pr["sources"]]
            if cited:
                body += para("Cited by ", *joined(cited), ".")
            item += body
            out += item
        return [out]


class VocabularyTables(DurakDirective):
    """The names a clause may use (reference_impl/vocab.py) and the operators it may apply."""

    def run(self):
        doc = self.state.document
        out = []
        for title, names in (("State names and functions", vocab.STATE),
                             ("Action names", vocab.ACTION)):
            rows = []
            for name, entry in names.items():
                args = f"({', '.join(entry.args)})" if entry.args else ""
                rows.append([[anchor(doc, f"vocab.{name}"), literal(name + args)], entry.type,
                             entry.doc])
            out += [para(strong(title)), table(["name", "type", "meaning"], rows, [4, 2, 8])]
        kinds = sorted(vocab.ACTION_KINDS)
        rows = [[literal(k), joined([literal(n) for n in vocab.action_names([k])])] for k in kinds]
        out += [para(strong("Action names available to a rule, by the kinds it applies to")),
                table(["kind", "names"], rows, [2, 10])]
        rows = [[literal(f"card.{a}"), t] for a, (t, _code) in lang.CARD_ATTRS.items()]
        out += [para(strong("Card attributes")), table(["attribute", "type"], rows, [4, 8])]
        rows = [[literal(f"{name}(EXPR for x in seats if COND)"), t or "the type of EXPR"]
                for name, t in lang.AGGREGATES.items()]
        out += [para(strong("Aggregates over seats")), table(["form", "type"], rows, [6, 6]),
                para("An aggregate may iterate: ", *joined([literal(i) for i in lang.ITERABLES]),
                     " (the seats; the cards of a seat's hand; the suits of the deck; the covered "
                     "pairs of the table; the cards still in play - every hand, the table and the "
                     "talon, not the discard pile).")]
        ops = list(lang.CMP_OPS.values()) + list(lang.ARITH_OPS.values())
        out.append(para("Operators: ", *joined([literal(o) for o in ops + ["and", "or", "not",
                                                                            "x if c else y"]]),
                        ". Literals: integers, strings, True, False, None. Options: ",
                        literal("opt.NAME"), ", folded to the preset's value before play."))
        return out


class DefinitionsTable(DurakDirective):
    """Named sub-expressions of spec/definitions.yaml, with the rules that use them."""

    def run(self):
        data = self.data()
        out = []
        for name, (text, clause, _file, _path, params) in data.spec.definitions.items():
            target = anchor(self.state.document, f"def.{name}")
            shown = f"{name}({', '.join(f'{p}: {t}' for p, t in params)})" if params else name
            out.append(para(target, literal(shown), " — ", text))
            out.append(clause_block(clause, data))
            users = data.def_rules.get(name, [])
            if users:
                out.append(para("Used by ", *joined([rule_link(r) for r in users]), "."))
        return out


class CasesTable(DurakDirective):
    """Every conformance case, grouped by its folder (the rule area)."""

    def run(self):
        data = self.data()
        if data.broken_cases:
            for msg in data.broken_cases:
                self.state.document.reporter.warning(f"broken conformance case: {msg}")
        if not data.cases:
            return [para("The suite has no cases yet.")]
        groups: dict[str, list] = {}
        for c in data.cases:
            groups.setdefault(c.id.split("/")[0], []).append(c)
        out = []
        for folder, cases in groups.items():
            rows = [[[anchor(self.state.document, f"case.{c.id}"), literal(c.id)], c.description,
                     joined([rule_link(r) for r in c.rules]),
                     joined([preset_link(v) for v in c.variants])] for c in cases]
            out += [para(strong(f"{folder}/")),
                    table(["case", "description", "rules", "variants"], rows, [4, 6, 3, 3])]
        return out


class CoverageTable(DurakDirective):
    """Per rule: how many cases cite it and how many reject a step by it."""

    def run(self):
        data = self.data()
        rows = []
        for r in data.spec.rules:
            cases = data.cases_for(r.id)
            rejecting = [c for c in cases if r.id in c.rejects]
            rows.append([[rule_link(r.id)], str(len(cases)), str(len(rejecting)),
                         joined([case_link(c.id) for c in cases])])
        return [table(["rule", "cases", "rejecting", "which"], rows, [4, 1, 1, 8])]


class SchemaFields(DurakDirective):
    """A JSON Schema as a table of fields: path, type, required, description."""

    required_arguments = 1

    def run(self):
        data = self.data()
        path = data.root / self.arguments[0]
        if not path.is_file():
            self.fail(f"no schema at {path}")
        self.env.note_dependency(str(path))
        schema = json.loads(path.read_text())
        rows = []
        _walk(schema, schema, "", True, rows, set())
        out = [para(schema.get("description", ""))] if schema.get("description") else []
        if not rows:
            return out + [para("An empty object: ", literal("{}"), ".")]
        out.append(table(["field", "type", "required", "meaning"],
                         [[[literal(f)], t, "yes" if req else "", d] for f, t, req, d in rows],
                         [4, 4, 1, 7]))
        return out


def _resolve(root: dict, node: dict) -> tuple[str | None, dict]:
    """A local `#/$defs/NAME` reference resolved; another file's definition by name only."""
    ref_ = node.get("$ref", "")
    if "#/$defs/" not in ref_:
        return None, node
    name = ref_.split("/")[-1]
    if ref_.startswith("#"):
        return name, root["$defs"][name]
    return f"{name} ({ref_.split('#')[0].rsplit('/', 1)[-1]})", {}


def _type(root: dict, node: dict) -> str:
    name, target = _resolve(root, node)
    if name and (not target or target.get("type") not in ("object", "array")):
        return name
    if "const" in target:
        return f"the value {json.dumps(target['const'])}"
    if "enum" in target:
        return "one of " + ", ".join(value_text(v) for v in target["enum"])
    if "anyOf" in target:
        return " or ".join(_type(root, n) for n in target["anyOf"])
    t = target.get("type", "any")
    if isinstance(t, list):
        return " or ".join(t)
    if t == "array":
        if "prefixItems" in target:
            return "[" + ", ".join(_type(root, n) for n in target["prefixItems"]) + "]"
        return f"list of {_type(root, target['items'])}" if "items" in target else "list"
    extras = []
    if "pattern" in target and not name:
        extras.append(f"matching {target['pattern']}")
    if "minimum" in target:
        extras.append(f">= {target['minimum']}")
    if "maximum" in target:
        extras.append(f"<= {target['maximum']}")
    return (name or t) + (f" ({', '.join(extras)})" if extras else "")


def _walk(root: dict, node: dict, prefix: str, required: bool, rows: list, seen: set) -> None:
    name, target = _resolve(root, node)
    if name in seen:
        return
    seen = seen | ({name} if name else set())
    if target.get("type") == "array" and "items" in target:
        _walk(root, target["items"], prefix + "[]", required, rows, seen)
        return
    if target.get("type") != "object" or "properties" not in target:
        return
    needed = set(target.get("required", []))
    for key, sub in target["properties"].items():
        field = f"{prefix}.{key}" if prefix else key
        _, resolved = _resolve(root, sub)
        desc = sub.get("description") or resolved.get("description", "")
        if "default" in sub:
            desc += f" Default: {value_text(sub['default'])}."
        rows.append((field, _type(root, sub), key in needed, desc.strip()))
        _walk(root, sub, field, key in needed, rows, seen)


DIRECTIVES = {
    "durak-sources": SourcesList,
    "durak-vocabulary": VocabularyTables,
    "durak-definitions": DefinitionsTable,
    "durak-cases": CasesTable,
    "durak-coverage": CoverageTable,
    "durak-schema": SchemaFields,
}
