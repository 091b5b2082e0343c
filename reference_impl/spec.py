"""Loading spec/: read every file, validate it against its JSON Schema, check cross-references.

The normative content lives in spec/ (see spec/README.md). This module only reads it; compiling
clauses for one variant happens in `ruleset.py`.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from . import vocab
from .cards import Deck
from .disputes import Dispute, read_disputes
from .errors import SpecError, suggest
from .lang import Definition
from .model import Option, Rule, check_option_value, type_ok
from .primitives import PRIMITIVES
from .ruleset import Ruleset, resolve_options
from .yamlio import INDEX_NAME, ContentIndex, InputError, digest, load_file, read_bytes, seal_of

__all__ = ["Option", "Rule", "Spec", "check_option_value", "default_spec_dir", "load_spec",
           "shipped_spec"]


def default_spec_dir() -> Path:
    """The spec/ folder shipped with the installed package."""
    spec = importlib.util.find_spec("durak_spec.spec")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if Path(loc, "spec.yaml").is_file():
            return Path(loc)
    raise SpecError("the installed package has no spec/spec.yaml; reinstall durak-spec")


# compiled variants a Spec keeps (Spec.ruleset): a run plays a handful, an advice search or a
# campaign over option values may ask for many; each holds its generated programs.
RULESET_CACHE = 32


@dataclass
class Spec:
    """The whole specification, validated but not yet compiled for a variant."""

    root: Path
    title: str
    sources: dict
    deck: Deck
    deck_data: dict
    options: dict[str, Option]
    presets: dict
    definitions: dict  # name -> lang.Definition (text, clause, file, path, params)
    flow: dict
    invariants: list[dict]
    rules: list[Rule]
    areas: list[dict]
    disputes: dict[str, Dispute] = field(default_factory=dict)  # D-id -> Dispute
    teams: dict = field(default_factory=dict)  # layout -> {title, text, sources, seating}
    variants: list = field(default_factory=list)  # the sources table (variants.yaml)
    _decks: dict = field(default_factory=dict, repr=False)
    _rulesets: dict = field(default_factory=dict, repr=False)  # see ruleset()

    @property
    def rules_by_id(self) -> dict[str, Rule]:
        return {r.id: r for r in self.rules}

    def rule(self, rule_id: str) -> Rule:
        try:
            return self.rules_by_id[rule_id]
        except KeyError:
            raise SpecError(f"unknown rule id {rule_id!r}.{suggest(rule_id, self.rules_by_id)}") from None

    def with_clause(self, rule_id: str, clause: str) -> Spec:
        """This spec with the clause of rule `rule_id` replaced by `clause` (a one-place change
        reference_impl/diagnose.py found): a spec of its own, compiling its own rulesets."""
        self.rule(rule_id)
        return replace(self, rules=[replace(r, clause=clause) if r.id == rule_id else r
                                    for r in self.rules], _rulesets={})

    def ruleset(self, preset: str = "podkidnoy", overrides: dict | None = None) -> Ruleset:
        """The variant compiled, once per preset, option values and primitives: asked for
        again, even with other overrides that resolve to the same values (an engine's declared
        variant and the case's own), the compiled rules are shared. The RULESET_CACHE most
        recent are kept."""
        overrides = dict(overrides or {})
        values, origins = resolve_options(self, preset, overrides)
        # the program calls (or writes out) the primitives as they are now: one replaced, as a
        # test's recorder does, compiles anew
        key = (preset, repr(sorted(values.items())), tuple(map(id, PRIMITIVES.values())))
        rs = self._rulesets.pop(key, None)
        if rs is None:
            rs = Ruleset(self, preset, overrides, (values, origins))
        self._rulesets[key] = rs  # the most recently used last
        while len(self._rulesets) > RULESET_CACHE:
            del self._rulesets[next(iter(self._rulesets))]
        return rs if rs.overrides == overrides else rs.requested_as(overrides, origins)

    def citations(self, preset: str) -> dict:
        """Where a preset's option values come from: {option: (preset that assigns it,
        {source tag or 'ruling': place})} for every option the preset or a preset it extends
        assigns (presets.yaml `cite`); options left at their defaults are absent."""
        chain, p = [], preset
        while p is not None and p not in chain and p in self.presets:
            chain.append(p)
            p = self.presets[p].get("extends")
        out: dict = {}
        for name in reversed(chain):
            data = self.presets[name]
            for option in data.get("options", {}):
                out[option] = (name, dict(data.get("cite", {}).get(option, {})))
        return out

    def make_deck(self, pack, jokers: bool = False, copies: int = 1) -> Deck:
        """The deck of `copies` packs of `pack` cards (a key of deck.yaml's packs), with the
        jokers of deck.yaml if `jokers`; one Deck object per composition, shared by rulesets."""
        key = (str(pack), bool(jokers), int(copies))
        deck = self._decks.get(key)
        if deck is None:
            data = self.deck_data
            packs = data["packs"]
            if key[0] not in packs:
                raise SpecError(f"no pack of {pack} cards in deck.yaml; packs: {', '.join(packs)}")
            if key[2] < 1:
                raise SpecError(f"a deck needs at least one pack, not {copies}")
            deck = Deck(packs[key[0]]["ranks"], data["suits"], colours=data["colours"],
                        jokers=data["jokers"] if key[1] else [], copies=key[2],
                        all_ranks=data["ranks"])
            deck.players = (packs[key[0]]["players"]["min"], packs[key[0]]["players"]["max"])
            self._decks[key] = deck
        return deck

    def deal_twin(self, preset: str, players: int | None = None) -> str | None:
        """The first preset listed before `preset` that plays every deal exactly as it does (only
        options of the group `match` differ: scoring and the end of a match), or None. With
        `players`, at that player count only: where neither seats teams, `teams` may differ."""
        def deal_options(p):
            rs = self.ruleset(p)
            alone = players is not None and not rs.seating(players)[1]
            return {n: v for n, v in rs.options.items()
                    if self.options[n].group != "match" and not (alone and n == "teams")}
        mine = deal_options(preset)
        for other in self.presets:
            if other == preset:
                return None
            if deal_options(other) == mine:
                return other
        return None


@lru_cache(maxsize=None)
def _schema(name: str) -> dict:
    return json.loads((default_spec_dir() / "schemas" / name).read_text())


def _yaml_path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top)"


MAX_MESSAGE = 200


def _validate(data, schema_name: str, file: str) -> None:
    import jsonschema  # only for a file the index does not hold: its import costs a fifth of a second

    validator = jsonschema.Draft202012Validator(_schema(schema_name))
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), e.message))
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        message = err.message
        if len(message) > MAX_MESSAGE:  # the schema's words quote the value; a long one is cut
            message = message[:MAX_MESSAGE] + "..."
        raise SpecError(f"{message} (schema {schema_name})", file, _yaml_path(err.absolute_path))


@lru_cache(maxsize=8)
def _trusted(root: Path) -> bool:
    """The shipped spec folder (which an editable install builds as a tree of links)."""
    return root.resolve() == default_spec_dir().resolve()


@lru_cache(maxsize=1)
def spec_index() -> ContentIndex:
    """The shipped spec files, validated once (yamlio.ContentIndex), sealed by the schemas."""
    root = default_spec_dir()
    return ContentIndex(root / INDEX_NAME, seal_of(sorted((root / "schemas").glob("*.json"))))


class _Reader:
    """Reads the files of one spec folder: a file whose bytes the shipped index holds (validated
    against the same schema) is taken from it; any other is parsed and validated. With `record`,
    every file is parsed and validated, and (file, sha256, facts, data) appended to it."""

    def __init__(self, root: Path, record: list | None = None):
        self.root, self.record = root, record
        self.index = spec_index() if record is None else None

    def __call__(self, rel: str, schema: str):
        return _read(self.root, rel, schema, self)


def _read(root: Path, rel: str, schema: str, reader: _Reader | None = None):
    path = root / rel
    # A spec file of a folder given with --spec is part of that folder: one that leads elsewhere
    # (a symlink to /etc/shadow, a `../` path in the manifest) is refused before it is read, so
    # no error quotes its contents. (The shipped folder may be a tree of links: an editable install.)
    try:
        inside = _trusted(root) or path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise SpecError(getattr(exc, "strerror", None) or str(exc), str(path)) from None
    if not inside:
        raise SpecError(f"leads outside the spec folder {root} (to {path.resolve()}); "
                        "copy the file into the folder", str(path))
    try:
        raw = read_bytes(path)
        sha = digest(raw)
        if reader is not None and reader.index is not None and \
                (reader.index.facts(sha) or {}).get("schema") == schema:
            data = reader.index.data(sha)
            if data is not None:
                return data
        data = load_file(path, raw)
    except InputError as exc:
        raise SpecError(exc.message, str(path)) from None
    _validate(data, schema, str(path))
    if reader is not None and reader.record is not None:
        reader.record.append((Path(rel).as_posix(), sha, {"schema": schema}, data))
    return data


def _check_actions(flow: dict, file: str) -> None:
    """Every action kind has its event, and the kinds are those the vocabulary read from the
    shipped spec (vocab.ACTIONS): the interpreter, the notation and the z3 backend know them by
    what each carries."""
    for kind in flow["actions"]:
        if kind not in flow["events"]:
            raise SpecError(f"action kind {kind!r} has no event: add events.{kind}", file,
                            f"actions.{kind}")
    for event in flow["events"]:
        if event not in flow["actions"] and event not in ("bout_beaten_off", "bout_taken"):
            raise SpecError(f"event {event!r} is neither an action kind nor a bout end."
                            f"{suggest(event, flow['actions'])}", file, f"events.{event}")
    if flow["actions"] != vocab.ACTIONS:
        raise SpecError("the action kinds differ from the shipped spec's: kinds and their operands "
                        "are read once from the installed spec/flow.yaml, so change them there",
                        file, "actions")


def load_spec(root=None, record: list | None = None) -> Spec:
    """Load and validate a spec folder (the shipped one by default). With `record` (a list),
    every file is parsed and validated in full, and what each holds is appended to it for the
    index (`write_spec_index`)."""
    root = Path(root) if root is not None else default_spec_dir()
    if not (root / "spec.yaml").is_file():
        raise SpecError("no spec.yaml here; point at a folder that holds the spec", str(root))
    read = _Reader(root, record)
    manifest = read("spec.yaml", "manifest.schema.json")
    files = manifest["files"]
    sources = read(files["sources"], "sources.schema.json")["sources"]
    deck_data = read(files["deck"], "deck.schema.json")
    options_file = str(root / files["options"])
    options = {name: Option(name=name, **o) for name, o in
               read(files["options"], "options.schema.json")["options"].items()}
    presets = read(files["presets"], "presets.schema.json")["presets"]
    defs_file = str(root / files["definitions"])
    definitions = {n: Definition(d["text"], d["clause"], defs_file, f"definitions.{n}.clause",
                                 tuple(d.get("params", {}).items())) for n, d in
                   read(files["definitions"], "definitions.schema.json")["definitions"].items()}
    flow_data = read(files["flow"], "flow.schema.json")
    flow = flow_data["events"]
    _check_actions(flow_data, str(root / files["flow"]))
    invariants = read(files["invariants"], "invariants.schema.json")["invariants"]
    rules: list[Rule] = []
    for area in manifest["areas"]:
        file = str(root / area["file"])
        for i, r in enumerate(read(area["file"], "rules.schema.json")["rules"]):
            rules.append(Rule(area=area["id"], file=file, path=f"rules[{i}]", **r))
            for kind in r.get("applies_to", []):
                if kind not in flow_data["actions"]:
                    raise SpecError(f"unknown action kind {kind!r}; kinds (flow.yaml actions): "
                                    f"{', '.join(flow_data['actions'])}."
                                    f"{suggest(kind, flow_data['actions'])}", file,
                                    f"rules[{i}].applies_to")
    _check_deck(deck_data, str(root / files["deck"]))
    spec = Spec(root, manifest["title"], sources, None, deck_data, options, presets, definitions,
                flow, invariants, rules, manifest["areas"])
    first = next(iter(deck_data["packs"]))
    spec.deck = spec.make_deck(first)
    spec.teams = read(files["teams"], "teams.schema.json")["layouts"]
    _check_teams(spec, str(root / files["teams"]), options_file)
    _check_references(spec, str(root / files["sources"]), options_file,
                      str(root / files["presets"]), str(root / files["invariants"]))
    spec.disputes = read_disputes(read(files["disputes"], "disputes.schema.json"), spec,
                                  str(root / files["disputes"]))
    if "variants" in files:
        spec.variants = read(files["variants"], "variants.schema.json")["variants"]
        _check_variants(spec, str(root / files["variants"]))
    return spec


def _check_variants(spec: Spec, file: str) -> None:
    """Every entry of the sources table cites known sources and names presets, option values and
    disputes that exist, or says why it is not modelled."""
    seen = set()
    for i, v in enumerate(spec.variants):
        path = f"variants[{i}]"
        if v["id"] in seen:
            raise SpecError(f"the id {v['id']!r} appears twice", file, f"{path}.id")
        seen.add(v["id"])
        for tag in v["sources"]:
            if tag not in spec.sources:
                raise SpecError(f"unknown source {tag!r}.{suggest(tag, spec.sources)}", file,
                                f"{path}.sources")
        for name in v.get("presets", []):
            if name not in spec.presets:
                raise SpecError(f"unknown preset {name!r}.{suggest(name, spec.presets)}", file,
                                f"{path}.presets")
        for name, value in v.get("options", {}).items():
            check_option_value(spec, name, value, file, f"{path}.options.{name}")
        for did in v.get("disputes", []):
            if did not in spec.disputes:
                raise SpecError(f"unknown dispute {did!r}", file, f"{path}.disputes")
        implemented = bool(v.get("presets") or v.get("options"))
        if implemented == bool(v.get("reason")):
            raise SpecError("an entry names the presets or option values that implement it, or "
                            "gives the reason it is not modelled; give exactly one", file, path)


def _check_deck(data: dict, file: str) -> None:
    """Each pack's ranks are ranks of the deck table, in its order; suits and jokers have colours."""
    ranks = data["ranks"]
    for name, pack in data["packs"].items():
        for i, sym in enumerate(pack["ranks"]):
            if sym not in ranks:
                raise SpecError(f"rank {sym!r} is not in ranks.{suggest(sym, ranks)}", file,
                                f"packs.{name}.ranks[{i}]")
        order = [ranks.index(sym) for sym in pack["ranks"]]
        if order != sorted(order):
            raise SpecError("a pack lists its ranks from lowest to highest, in the order of ranks",
                            file, f"packs.{name}.ranks")
    for suit in data["suits"]:
        if suit not in data["colours"]:
            raise SpecError(f"suit {suit} has no colour", file, "colours")
    for i, j in enumerate(data["jokers"]):
        if j["suit"] in data["suits"]:
            raise SpecError(f"a joker's letter must not be a suit of the four, not {j['suit']!r}",
                            file, f"jokers[{i}].suit")


def _check_references(spec: Spec, sources_file, options_file, presets_file, inv_file) -> None:
    def check_tags(tags, file, path):
        for i, tag in enumerate(tags):
            if tag not in spec.sources:
                raise SpecError(f"unknown source tag {tag!r}.{suggest(tag, spec.sources)}",
                                file, f"{path}.sources[{i}]")

    seen: dict[str, Rule] = {}
    for r in spec.rules:
        if r.id in seen:
            other = seen[r.id]
            raise SpecError(f"rule id {r.id!r} is already used in {other.file}:{other.path}",
                            r.file, f"{r.path}.id")
        seen[r.id] = r
        if not r.id.startswith(r.area + "."):
            raise SpecError(f"rule id {r.id!r} must start with its area {r.area + '.'!r}",
                            r.file, f"{r.path}.id")
        check_tags(r.sources, r.file, r.path)
        for name in r.options:
            if name not in spec.options:
                raise SpecError(f"unknown option {name!r}.{suggest(name, spec.options)}",
                                r.file, f"{r.path}.options")
        if r.definition and r.definition not in spec.definitions:
            raise SpecError(f"unknown definition {r.definition!r}.{suggest(r.definition, spec.definitions)}",
                            r.file, f"{r.path}.definition")
        if r.applies_to and not (r.clause or r.key):
            raise SpecError("a rule with applies_to needs a clause or a key", r.file, r.path)
    for name, o in spec.options.items():
        path = f"options.{name}"
        check_tags(o.sources, options_file, path)
        if o.default not in o.values or type(o.default) is not type(o.values[o.values.index(o.default)]):
            raise SpecError(f"default {o.default!r} is not one of the values {o.values}",
                            options_file, f"{path}.default")
        for v in o.values:
            if not type_ok(o.type, v):
                raise SpecError(f"value {v!r} is not of type {o.type}", options_file, f"{path}.values")
    for name, p in spec.presets.items():
        check_tags(p["sources"], presets_file, f"presets.{name}")
        if "extends" in p and p["extends"] not in spec.presets:
            raise SpecError(f"extends unknown preset {p['extends']!r}.{suggest(p['extends'], spec.presets)}",
                            presets_file, f"presets.{name}.extends")
        chain, at = [name], p.get("extends")
        while at is not None and at in spec.presets:
            if at in chain:
                raise SpecError("presets extend each other in a cycle: "
                                f"{' -> '.join(chain[chain.index(at):] + [at])}",
                                presets_file, f"presets.{name}.extends")
            chain.append(at)
            at = spec.presets[at].get("extends")
        for opt, value in p["options"].items():
            check_option_value(spec, opt, value, presets_file, f"presets.{name}.options.{opt}")
    ids = set()
    for i, inv in enumerate(spec.invariants):
        if inv["id"] in ids:
            raise SpecError(f"invariant id {inv['id']!r} is used twice", inv_file, f"invariants[{i}].id")
        ids.add(inv["id"])


def _check_teams(spec: Spec, file: str, options_file: str) -> None:
    """Every layout is a value of the option `teams` and back; seatings fit the deck's player
    limits and put at least two teams at the table."""
    option = spec.options.get("teams")
    values = set(option.values) - {"none"} if option is not None else set()
    for name in sorted(values - set(spec.teams)):
        raise SpecError(f"option teams has the value {name!r} but no layout of that name", file,
                        "layouts")
    lo, hi = spec.deck_data["players"]["min"], spec.deck_data["players"]["max"]
    for name, layout in spec.teams.items():
        path = f"layouts.{name}"
        if name not in values:
            raise SpecError(f"layout {name!r} is not a value of the option teams", options_file,
                            "options.teams.values")
        for tag in layout["sources"]:
            if tag not in spec.sources:
                raise SpecError(f"unknown source tag {tag!r}.{suggest(tag, spec.sources)}", file,
                                f"{path}.sources")
        seen = set()
        for i, row in enumerate(layout["seating"]):
            n, teams = row["players"], row["teams"]
            where = f"{path}.seating[{i}]"
            if n in seen or not lo <= n <= hi:
                raise SpecError(f"{n} players: twice, or outside the deck's {lo} to {hi}", file, where)
            seen.add(n)
            if len(teams) != n or len(set(teams)) < 2 or set(teams) != set(range(len(set(teams)))):
                raise SpecError(f"teams must give one team number per seat, numbered from 0, with "
                                f"at least two teams: {teams}", file, f"{where}.teams")


def spec_index_text(root=None) -> str:
    """The index of a spec folder's files (the shipped one by default), each parsed and validated
    in full: what `durak lint --write-index` writes to spec/index.jsonl."""
    record: list = []
    load_spec(root, record=record)
    schemas = default_spec_dir() / "schemas"
    return ContentIndex.text(seal_of(sorted(schemas.glob("*.json"))), record)


@lru_cache(maxsize=4)
def shipped_spec() -> Spec:
    """The shipped spec, loaded once per process."""
    return load_spec()
