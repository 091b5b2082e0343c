"""Conformance cases: loading, validation and writing.

A case is one YAML file under conformance/cases/<area>/<name>.yaml whose `id` repeats that path
(<area>/<name>). The format is fixed by schemas/case.schema.json and described in CASES.md. Loading
checks the schema, then the cross-references against spec/: every cited rule id, preset and option
exists, and the setup and actions are in the canonical notation. A case that fails these checks is
reported with its file and field; it never stops the rest of the suite from loading.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from durak_spec.reference_impl.errors import DurakError, suggest
from durak_spec.reference_impl.spec import Spec, check_option_value
from durak_spec.reference_impl.yamlio import (
    INDEX_NAME,
    ContentIndex,
    InputError,
    digest,
    load_file,
    read_bytes,
    seal_of,
)

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "cases"
DEFAULT_VARIANTS = ("podkidnoy",)


class CaseError(DurakError):
    """A case file that is not a valid case (our bug, not the engine's): names file and field."""

    def __init__(self, file: str, message: str, path: str | None = None):
        self.file, self.message, self.path = file, message, path
        super().__init__(f"{file}:{path}: {message}" if path else f"{file}: {message}")


@dataclass
class Step:
    action: str
    expect: str = "accept"
    rule: str | None = None
    state: dict | None = None
    legal: list[str] | None = None
    note: str | None = None


@dataclass
class Case:
    id: str
    description: str
    rules: list[str]
    variants: list[str]
    options: dict
    setup: dict
    steps: list[Step]
    legal: list[str] | None = None
    generated: dict | None = None
    file: str = ""
    data: dict = field(default_factory=dict, repr=False)

    @property
    def area(self) -> str:
        """The rule area: the first part of the first cited rule id."""
        return self.rules[0].split(".")[0]

    @property
    def players(self) -> int:
        return len(self.setup.get("hands", []))

    @property
    def cited_rules(self) -> list[str]:
        """The rule ids the case cites: its `rules` and its steps' `rule`s."""
        return self.rules + [s.rule for s in self.steps if s.rule]

    @property
    def is_position(self) -> bool:
        """True when the case starts in the middle of a deal (needs the `positions` capability)."""
        return any(k in self.setup for k in ("table", "defender", "taking", "passed", "out",
                                             "bout", "beaten_bouts"))

    def to_dict(self) -> dict:
        return dict(self.data)


@lru_cache(maxsize=None)
def case_schema() -> dict:
    return json.loads((HERE / "schemas" / "case.schema.json").read_text())


@lru_cache(maxsize=None)
def from_deal_schema() -> dict:
    return json.loads((HERE / "schemas" / "from_deal.schema.json").read_text())


def _yaml_path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top)"


def parse_case(data, spec: Spec, file: str = "<case>", rel_id: str | None = None, *,
               validated: bool = False) -> Case:
    """Validate one case's data against the schema (unless `validated`: the index holds it) and
    spec/, and build a Case."""
    if not validated:
        import jsonschema  # only for a case the index does not hold: its import is costly

        validator = jsonschema.Draft202012Validator(case_schema())
        errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), e.message))
        if errors:
            err = jsonschema.exceptions.best_match(errors)
            raise CaseError(file, f"{err.message} (schema case.schema.json)",
                            _yaml_path(err.absolute_path))
        if "from_deal" in data:
            validator = jsonschema.Draft202012Validator(from_deal_schema())
            errors = sorted(validator.iter_errors(data["from_deal"]), key=lambda e: len(e.absolute_path))
            if errors:
                err = jsonschema.exceptions.best_match(errors)
                raise CaseError(file, f"{err.message} (schema from_deal.schema.json)",
                                _yaml_path(["from_deal", *err.absolute_path]))
    if rel_id is not None and data["id"] != rel_id:
        raise CaseError(file, f"id {data['id']!r} must repeat the file's path: {rel_id!r}", "id")
    known = _spec_view(spec)[1]
    for i, rule_id in enumerate(data["rules"]):
        if rule_id not in known:
            raise CaseError(file, f"unknown rule id {rule_id!r}.{suggest(rule_id, known)}", f"rules[{i}]")
    variants = data.get("variants", list(DEFAULT_VARIANTS))
    for i, name in enumerate(variants):
        if name not in spec.presets:
            raise CaseError(file, f"unknown preset {name!r}; presets: {', '.join(spec.presets)}."
                            f"{suggest(name, spec.presets)}", f"variants[{i}]")
    options = data.get("options") or {}
    for name, value in options.items():
        try:
            check_option_value(spec, name, value, None, f"options.{name}")
        except DurakError as exc:
            raise CaseError(file, str(exc), f"options.{name}") from None
    steps = []
    for i, raw in enumerate(data["steps"]):
        rule = raw.get("rule")
        if rule is not None and rule not in known:
            raise CaseError(file, f"unknown rule id {rule!r}.{suggest(rule, known)}", f"steps[{i}].rule")
        if rule is not None and raw.get("expect", "accept") != "reject":
            raise CaseError(file, "`rule` names the rule that rejects the step; add `expect: reject`",
                            f"steps[{i}].rule")
        steps.append(Step(raw["do"], raw.get("expect", "accept"), rule, raw.get("state"),
                          raw.get("legal"), raw.get("note")))
    return Case(data["id"], data["description"], list(data["rules"]), list(variants), dict(options),
                data["setup"], steps, data.get("legal"), data.get("generated"), file, data)


@dataclass
class Suite:
    cases: list[Case]
    broken: list[CaseError]
    retired: list[str]
    # match cases (a `match:` key; conformance/matches.py reads them): (path, id, data)
    matches: list = field(default_factory=list)

    def by_id(self) -> dict[str, Case]:
        return {c.id: c for c in self.cases}


def case_files(root: Path | None = None, ids: tuple = ()) -> list[Path]:
    """The case files under `root`; with `ids` (case ids or globs), only those whose path says
    one of them, found without reading any file (a case's id repeats its path)."""
    root = Path(root) if root is not None else CASES_DIR
    if ids and all(_PLAIN_ID.fullmatch(p) for p in ids):  # no glob: look the files up
        return sorted({root / f"{p}.yaml" for p in ids if (root / f"{p}.yaml").is_file()})
    files = sorted(root.rglob("*.yaml"))
    if ids:
        files = [f for f in files if any(fnmatch.fnmatchcase(_rel_id(f, root), p) for p in ids)]
    return files


def case_ids(root: Path | None = None) -> list[str]:
    """The ids of every case file under `root` (cases, matches, retired), read from their paths
    (a case's id repeats its path) without parsing any file."""
    root = Path(root) if root is not None else CASES_DIR
    return [_rel_id(f, root) for f in case_files(root)]


# A case id without glob characters or a way out of the folder (`..`): a file name to look up.
_PLAIN_ID = re.compile(r"[a-z0-9_]+(/[a-z0-9_-][a-z0-9_.-]*)+")


def _rel_id(path: Path, root: Path) -> str:
    return path.relative_to(root).with_suffix("").as_posix()


@dataclass(frozen=True)
class CaseFacts:
    """What selecting a case reads of it (runner.Selection.picks), as a Case has it: the index
    holds these facts, so a case is picked without being parsed."""

    id: str
    rules: list
    cited_rules: list
    variants: list
    players: int


def _facts(data) -> dict:
    """The facts the index keeps of one valid file: its kind, and what selection reads."""
    if _is_retired(data):
        return {"kind": "retired", "id": data.get("id")}
    if "match" in data:
        return {"kind": "match", "id": data.get("id")}
    return {"kind": "case", "id": data["id"], "rules": list(data["rules"]),
            "cited_rules": list(data["rules"]) + [s["rule"] for s in data["steps"] if s.get("rule")],
            "variants": list(data.get("variants", DEFAULT_VARIANTS)),
            "players": len(data["setup"].get("hands", []))}


def _is_retired(data) -> bool:
    return isinstance(data, dict) and "retired" in data and \
        set(data) <= {"id", "retired", "description"}


@lru_cache(maxsize=1)
def case_index() -> ContentIndex:
    """The shipped cases, validated once (yamlio.ContentIndex), sealed by the case schema."""
    return ContentIndex(CASES_DIR / INDEX_NAME, seal_of([HERE / "schemas" / "case.schema.json"]))


_CACHE: dict = {}  # (path, mtime, size, spec root) -> Case: files are parsed and validated once


def _spec_view(spec: Spec) -> tuple[tuple, dict]:
    """(what a parsed case depends on in spec/, its rules by id), once per loaded spec (a spec is
    not changed once loaded; ruleset.py shares compiled clauses on the same ground)."""
    view = spec.__dict__.get("_cases_view")
    if view is None:
        rules = spec.rules_by_id
        view = ((str(spec.root), tuple(rules), tuple(spec.presets), tuple(spec.options)), rules)
        spec.__dict__["_cases_view"] = view
    return view


def _read_case(path: Path, spec: Spec, rel_id: str, raw: bytes | None = None,
               trusted: dict | None = None):
    """A case, a retired id (str) or a match ("match", id, data); `trusted` is the data the index
    holds for the file's bytes (schema-valid: only spec/'s cross-references are checked)."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size, trusted is not None, *_spec_view(spec)[0])
    if key not in _CACHE:
        data = trusted if trusted is not None else load_file(path, raw)
        if _is_retired(data):
            _CACHE[key] = data.get("id", rel_id)
        elif isinstance(data, dict) and "match" in data:
            _CACHE[key] = ("match", data.get("id", rel_id), data)
        else:
            _CACHE[key] = parse_case(data, spec, str(path), rel_id, validated=trusted is not None)
    return _CACHE[key]


def load_suite(spec: Spec, root: Path | None = None, ids: tuple = (), pick=None, *,
               trust: bool = True) -> Suite:
    """Load every case under `root`, or with `ids` (case ids or globs) only the files whose path
    names one of them, and with `pick` (a predicate on CaseFacts) only the cases it picks (a
    match or retired file is not a case: ids alone select it). Invalid files are collected, not
    fatal. In the shipped folder a file whose bytes the index holds is taken from it, unparsed
    and trusted to be schema-valid (`trust=False`: every file parsed and validated in full);
    any other file, and any other folder, is read in full."""
    root = Path(root) if root is not None else CASES_DIR
    index = case_index() if trust and root.resolve() == CASES_DIR.resolve() else None
    cases, broken, retired, matches, seen = [], [], [], [], {}
    for path in case_files(root, ids):
        rel_id = _rel_id(path, root)
        try:
            raw = trusted = None
            if index is not None:
                raw = read_bytes(path)
                sha = digest(raw)
                facts = index.facts(sha)
                if facts is not None and facts["kind"] == "case" and pick is not None and \
                        not pick(CaseFacts(facts["id"], facts["rules"], facts["cited_rules"],
                                           facts["variants"], facts["players"])):
                    continue
                trusted = index.data(sha) if facts is not None else None
            case = _read_case(path, spec, rel_id, raw, trusted)
            if pick is not None and isinstance(case, Case) and not pick(case):
                continue
        except InputError as exc:
            broken.append(CaseError(str(path), exc.message))
            continue
        except CaseError as exc:
            broken.append(exc)
            continue
        if isinstance(case, str):
            retired.append(case)
            continue
        if isinstance(case, tuple):
            matches.append((str(path), case[1], case[2]))
            continue
        if case.id in seen:
            broken.append(CaseError(str(path), f"id {case.id!r} is also used by {seen[case.id]}", "id"))
            continue
        seen[case.id] = str(path)
        cases.append(case)
    return Suite(cases, broken, retired, matches)


class _Dumper(yaml.SafeDumper):
    """Block style for mappings, flow style for short lists of cards or actions."""


def _represent_list(dumper, data):
    flow = all(isinstance(x, (str, int, type(None))) for x in data) or \
        all(isinstance(x, list) and all(isinstance(y, (str, type(None))) for y in x) for x in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow and bool(data))


_Dumper.add_representer(list, _represent_list)


def dump_case(data: dict) -> str:
    """The canonical YAML text of a case (validated by the schema before it is written)."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=100, allow_unicode=True)


def index_text(spec: Spec) -> str:
    """The index of the shipped cases, each parsed and validated in full: what `durak lint
    --write-index` writes to conformance/cases/index.jsonl. A broken file is left out (read in
    full at every run, and reported)."""
    entries = []
    for path in case_files(CASES_DIR):
        try:
            raw = read_bytes(path)
            case = _read_case(path, spec, _rel_id(path, CASES_DIR), raw)
            data = case.data if isinstance(case, Case) else case[2] if isinstance(case, tuple) \
                else load_file(path, raw)
        except (InputError, CaseError):
            continue
        entries.append((path.relative_to(CASES_DIR).as_posix(), digest(raw), _facts(data), data))
    return ContentIndex.text(seal_of([HERE / "schemas" / "case.schema.json"]), entries)


def write_case(data: dict, spec: Spec, root: Path | None = None) -> Path:
    """Validate a case and write it to <root>/<id>.yaml; returns the path."""
    root = Path(root) if root is not None else CASES_DIR
    parse_case(data, spec, f"<{data.get('id', 'case')}>")
    path = root / f"{data['id']}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_case(data))
    return path
