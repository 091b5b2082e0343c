"""The conformance runner: runs cases against an engine through an adapter and judges each step.

Per case and variant the outcome is one of:
  pass     every step matched
  fail     the engine differs from the case (the first difference: step, want, have)
  skip     the engine cannot play the case's player count or mid-deal position, the case's script
           cannot be played under the engine's variant (the step and the rule that forbids it), or
           the engine skipped it (with the reason)
  error    the engine crashed, hung, exited, flooded, printed garbage or answered out of protocol
  broken   the case itself disagrees with the reference interpreter (our bug, reported apart)
  xfail    failed, and listed in the engine's known-failures file
  xpass    listed as a known failure but passed now: the ledger needs updating

Every case runs under the variant the engine plays (`Session.engine_variant`): the case's preset and
options, then the house rules the engine declares in `hello` (per player count too), then the
`--option` values given to `durak check`. When that variant differs from the case's, the reference
re-derives the case's expectations under it (`derive`): verdicts with rule ids, states, legal sets;
the result lists the expectations that differ from the shipped ones (`rederived`). A failure names
the rule that decides it, computed by the reference (`reference_impl/diagnose.py`), and whether
an option value explains it.
"""

from __future__ import annotations

import copy
import fnmatch
import shlex
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from durak_spec.conformance import fromdeal
from durak_spec.conformance.actionmodel import ActionModel, atomic_observations, translate
from durak_spec.conformance.cases import CASES_DIR, Case, CaseFacts, Step
from durak_spec.conformance.engine import PROTOCOL_VERSION, ReferenceEngine, comparable, state_view
from durak_spec.conformance.problems import Evidence
from durak_spec.conformance.protocol import check_result, reads_named_suits
from durak_spec.conformance.transport import (
    Adapter,
    AdapterError,
    EngineFault,
    PythonAdapter,
    Reply,
)
from durak_spec.reference_impl.errors import ClauseError, DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.model import rule_options, value_text
from durak_spec.reference_impl.notation import action_text, comparable_field
from durak_spec.reference_impl.observation import Observation
from durak_spec.reference_impl.spec import Spec, check_option_value
from durak_spec.reference_impl.vocab import CAPABILITIES
from durak_spec.reference_impl.yamlio import InputError, load_file

STATUSES = ("pass", "fail", "skip", "error", "broken", "xfail", "xpass")
FAILING = {"fail", "error", "broken", "xpass"}


@dataclass
class Result:
    case: str
    variant: str
    status: str
    description: str = ""
    rules: list = field(default_factory=list)
    area: str = ""
    file: str = ""
    step: int | None = None
    action: str | None = None
    check: str | None = None
    want: object = None
    have: object = None
    message: str = ""
    reproduce: str = ""
    seconds: float = 0.0
    steps_run: int = 0
    rule: str | None = None          # the rule that decides the failure, named by the reference
    diagnosis: dict | None = None    # reference_impl/diagnose.py's Diagnosis, as JSON
    engine_options: dict = field(default_factory=dict)  # where the engine's variant differs: {name: value}
    rederived: list = field(default_factory=list)  # expectations that differ from the shipped ones
    skip_reason: str = ""            # a skip's reason without the case's particulars, for grouping
    players: int | None = None       # the case's player count
    differences: list = field(default_factory=list)  # later distinct differences of the same run
    same_as: str = ""                # the preset this run's result was taken from (same behaviour)
    would_help: str = ""             # for a skip: the declaration in hello that would run it
    from_deal: int | None = None     # actions of the prefix that reached the case's position

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Selection:
    cases: tuple = ()
    rules: tuple = ()
    areas: tuple = ()
    variants: tuple = ()
    players: tuple = ()

    def picks(self, case: Case | CaseFacts) -> bool:
        if self.players and case.players not in self.players:
            return False
        if self.cases and not any(fnmatch.fnmatchcase(case.id, p) for p in self.cases):
            return False
        if self.rules and not any(r == p or r.startswith(p + ".") or fnmatch.fnmatchcase(r, p)
                                  for p in self.rules for r in case.cited_rules):
            return False
        if self.areas and not any(r.split(".")[0] in self.areas for r in case.rules):
            return False
        return True

    def variants_of(self, case: Case) -> list[str]:
        return [v for v in case.variants if not self.variants or v in self.variants]


def _options_key(options: dict) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in options.items()))


class _Replay(ReferenceEngine):
    """The session's own reference replay, on the rulesets the session has already compiled
    (compiling a ruleset costs more than playing most cases)."""

    def __init__(self, spec: Spec, compiled: dict):
        super().__init__(spec)
        self.compiled = compiled

    def ruleset(self, variant: dict):
        key = (variant["preset"], _options_key(variant.get("options") or {}))
        if key not in self.compiled:
            self.compiled[key] = super().ruleset(variant)
        return self.compiled[key]


class Mismatch(Exception):
    def __init__(self, step, action, check, want, have, message):
        self.step, self.action, self.check = step, action, check
        self.want, self.have, self.message = want, have, message
        super().__init__(message)


class EngineSkipped(Exception):
    pass


class EngineError(Exception):
    pass


def load_known_failures(path) -> dict[str, str]:
    """Read a known-failures file: {known_failures: {case id or id@variant: reason}}."""
    try:
        data = load_file(path)
    except InputError as exc:
        raise AdapterError(str(exc)) from None
    entries = data.get("known_failures") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise AdapterError(f"{path}: a known-failures file is a mapping `known_failures:` of "
                           "case id (or id@variant) to a one-line reason")
    for key, reason in entries.items():
        if not isinstance(reason, str) or not reason.strip():
            raise AdapterError(f"{path}: known_failures.{key}: give the reason in one line")
    return dict(entries)


def compare_state(want: dict, have) -> tuple[str, object, object] | None:
    """The first field where `have` differs from the partial state `want`, or None."""
    if not isinstance(have, dict):
        return ("state", want, have)
    for key, value in want.items():
        if key not in have:
            return (key, value, "(missing)")
        # Most fields are equal as given; normalise (sort hands, table, out) only when not.
        if value != have[key] and comparable_field(key, value) != comparable_field(key, have[key]):
            return (key, value, have[key])
    return None


def compare_legal(want: list[str], have) -> tuple[list, list] | None:
    """(missing, extra) actions of `have` against the complete legal set `want`, or None."""
    if not isinstance(have, list):
        return (sorted(want), [repr(have)])
    if set(want) == set(have):
        return None
    want_set, have_set = {" ".join(a.split()) for a in want}, {" ".join(str(a).split()) for a in have}
    if want_set == have_set:
        return None
    return sorted(want_set - have_set), sorted(have_set - want_set)


class Unplayable(Exception):
    """The case's script cannot be played under the engine's variant."""

    def __init__(self, step: int | None, action: str | None, rule: str, reason: str):
        self.step, self.action, self.rule, self.reason = step, action, rule, reason
        super().__init__(reason)


def _cards_outside(setup, deck) -> list[str]:
    """The cards a case's setup names (hands, talon, trump, table) that `deck` does not hold."""
    out: list[str] = []

    def walk(value):
        if isinstance(value, str):
            try:
                deck.card(value)
            except DurakError:
                if value not in out:
                    out.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)
    if isinstance(setup, dict):
        for name in ("hands", "talon", "trump", "hidden", "table"):
            walk(setup.get(name))
    return out


def declared_options(hello: dict, players: int, preset: str | None = None) -> tuple[bool, dict]:
    """The engine's house rules at this player count under this preset (the one it plays):
    (follows any value of an option it does not list, {option: [values]}). `house_rules` entries
    whose `players` hold the count and whose `presets` hold the preset (an entry without one of
    the two keys holds for every count, or every preset) override the top-level `options`, later
    entries last (PROTOCOL.md "House rules per player count and preset")."""
    top = hello.get("options", {})
    any_value = top == "any"
    declared = {} if any_value else dict(top or {})
    for entry in hello.get("house_rules") or []:
        counts, presets = entry.get("players"), entry.get("presets")
        if (counts is None or players in counts) and (presets is None or preset in presets):
            declared.update(entry.get("options") or {})
    return any_value, declared


def house_rule_options(spec: Spec, hello: dict, preset: str, players: int, fixed: dict) -> dict:
    """The option overrides a game of `players` under `preset` (one the engine plays) is played
    with: `fixed` (--option), then the engine's declared house rules there, where the preset's
    value is not one the engine lists (it plays the first it lists). durak fuzz plays these; durak
    check reaches the same values through Session.engine_variant."""
    _, declared = declared_options(hello, players, preset)
    out = dict(fixed)
    preset_values = spec.ruleset(preset, fixed).options
    for name, values in declared.items():
        if name in fixed or not isinstance(values, list) or not values:
            continue
        if not any(_same(preset_values.get(name), v) for v in values):
            out[name] = values[0]
    return out


def check_hello_options(spec: Spec, hello: dict) -> str | None:
    """A problem with the option names or values an engine declares, or None."""
    for i, entry in enumerate(hello.get("house_rules") or []):
        for name in (entry.get("presets") or []) if isinstance(entry, dict) else []:
            if name not in spec.presets:
                return (f"hello: house_rules[{i}].presets: unknown preset {name!r}; presets: "
                        f"{', '.join(spec.presets)}")
    where = [("options", hello.get("options"))]
    where += [(f"house_rules[{i}].options", e.get("options"))
              for i, e in enumerate(hello.get("house_rules") or []) if isinstance(e, dict)]
    for path, options in where:
        if not isinstance(options, dict):
            continue
        for name, values in options.items():
            for i, value in enumerate(values if isinstance(values, list) else []):
                try:
                    check_option_value(spec, name, value, None, f"{path}.{name}[{i}]")
                except DurakError as exc:
                    return f"hello: {path}.{name}: {exc}"
    return None


def options_text(names, ours: dict, theirs: dict | None = None) -> str:
    """`name = value` in spec notation, and `instead of` the case's value when given."""
    parts = []
    for n in names:
        text = f"{n} = {value_text(ours[n])}"
        if theirs is not None:
            text += f" instead of {value_text(theirs[n])}"
        parts.append(text)
    return ", ".join(parts)


def _same(a, b) -> bool:
    return a == b and type(a) is type(b)


class Session:
    """Drives one engine (through its adapter) over a list of cases."""

    def __init__(self, spec: Spec, adapter: Adapter, *, known: dict | None = None,
                 adapter_name: str = "", spec_dir: str | None = None, check_cases: bool = True,
                 options: dict | None = None, paths: tuple = (), diagnose_budget: float = 30.0):
        self.spec, self.adapter = spec, adapter
        self.known = known or {}
        self.adapter_name = adapter_name or adapter.name
        self.spec_dir = spec_dir
        self.options = dict(options or {})  # --option: what the engine plays, whatever it declares
        self.paths = tuple(paths)           # --path folders the python: adapter imports from
        self.diagnose_budget = diagnose_budget
        self._diagnose_memo: dict = {}  # what explained earlier failures (diagnose.search_options)
        self.hello: dict = {}
        self._rulesets: dict = {}
        self.check_cases = check_cases
        self._compiled: dict = {}  # (preset, resolved options) -> ruleset, shared with the replay
        self._reference = _Replay(spec, self._compiled) if check_cases else None
        self.restarts = 0
        self.steps = 0
        self.evidence = Evidence()  # what the engine did in every case run, to confirm advice
        self._alike: dict = {}      # (case, behaviour of the variant played) -> its first result
        # case runs skipped because a step is illegal under the engine's variant, and where:
        # where the run did not look, and what Evidence.plays_as asks the engine (plays_as)
        self._unplayed: list = []   # (case, preset, preset sent, options sent, run options, step, rule)
        self._plays_as: dict = {}
        self.evidence.probe = self.plays_as
        # id(ruleset) -> Ruleset.behaviour_key(): the ids stay unique because _rulesets keeps
        # every ruleset _behaviour is asked about (run_case's rs and run_rs) for the run's length
        self._behaviours: dict = {}

    # -- engine lifecycle ---------------------------------------------------------------------
    def open(self) -> dict:
        try:
            hello = self.adapter.open()
        except EngineFault as exc:
            raise AdapterError(f"engine {self.adapter_name} did not complete the handshake: {exc}") from None
        # The in-process reference's hello is ours, trusted like its replay's results (a test
        # holds it to the schema); every other engine's is checked against the schema.
        problem = (None if self.adapter_name == "reference" else check_result("hello", hello)) \
            or check_hello_options(self.spec, hello)
        major = PROTOCOL_VERSION.split(".")[0]
        if not problem and str(hello.get("protocol", "")).split(".")[0] != major:
            problem = (f"the engine speaks protocol {hello.get('protocol')!r}; this runner speaks "
                       f"{PROTOCOL_VERSION} and accepts {major} and {major}.x")
        if problem:
            self.adapter.close()
            raise AdapterError(f"engine {self.adapter_name}: hello: {problem}")
        self.hello = hello
        self.model = ActionModel.from_hello(hello)  # the schema has checked its values
        return hello

    def close(self) -> None:
        self.adapter.close()

    def _restart(self) -> str:
        self.restarts += 1
        try:
            self.hello = self.adapter.restart()
            return "restarted"
        except (EngineFault, AdapterError) as exc:
            return f"restart failed: {exc}"

    # -- variants and capabilities ------------------------------------------------------------
    def ruleset(self, case: Case, preset: str):
        return self._ruleset(preset, case.options)

    def _ruleset(self, preset: str, options: dict):
        key = (preset, repr(sorted(options.items())))
        if key not in self._rulesets:
            rs = self.spec.ruleset(preset, options)
            self._rulesets[key] = rs
            self._compiled.setdefault((preset, _options_key(rs.options)), rs)
        return self._rulesets[key]

    def capability_gap(self, case: Case, preset: str, resolved: dict | None = None) -> str | None:
        """Why the engine cannot play this case at all (its player count or a mid-deal
        position), or None. A difference of variant is no gap: the case runs under the engine's."""
        h = self.hello
        players = h.get("players")
        if players is not None and case.players not in players:
            return f"the engine does not play {case.players} players"
        return None

    def kind_gap(self, case: Case, ruleset) -> str | None:
        """Why the engine cannot play this case under `ruleset`: an action kind added in protocol
        1.1 (show, swap) that a step plays or the variant makes possible, and that the engine does
        not declare under `action_kinds` in hello. None when there is none."""
        self._missing_kinds: list[str] = []
        declared = set(self.hello.get("action_kinds") or [])
        used = {s.action.split()[1] for s in case.steps if len(s.action.split()) > 1}
        missing = [k for k in CAPABILITIES if k not in declared and (k in used or not any(
            cr.clause.const and cr.clause.value is False for cr in ruleset.legality.get(k, [])))]
        if not missing:
            return None
        self._missing_kinds = missing
        return (f"the variant has the action kind(s) {', '.join(missing)}, which the engine does not "
                f"declare (hello \"action_kinds\", protocol 1.1)")

    def notation_gap(self, case: Case, ruleset) -> str | None:
        """Why the case would send the engine a card text it is not asked to read: a card played
        as a named suit (`6D=H`) goes only to engines whose variant has the Weli and that read
        protocol 1.1 (PROTOCOL.md "Action kinds"). None when there is none."""
        table = (case.setup or {}).get("table") or []
        texts = [s.action for s in case.steps] + [c for pair in table if isinstance(pair, list)
                                                  for c in pair if isinstance(c, str)]
        if not any("=" in t for t in texts if isinstance(t, str)):
            return None
        if not ruleset.played_forms:
            return "a card played as a named suit (the Weli's notation) under a variant without the Weli"
        if not reads_named_suits(self.hello):
            return ("a card played as a named suit (the Weli's notation, protocol 1.1) to an "
                    "engine of protocol 1")
        return None

    def engine_variant(self, case: Case, preset: str, resolved: dict) -> tuple[str, dict]:
        """The preset to send and the option values the engine plays for this case: the case's,
        then the engine's declared house rules (a value it does not list becomes the first it
        lists; an option it does not list follows its preset), then --option."""
        presets = [p for p in self.hello.get("presets", []) if p in self.spec.presets]
        if preset in presets or not presets:
            own = preset
        else:  # the engine's preset closest to the case's variant
            own = min(presets, key=lambda p: sum(
                not _same(v, resolved[n]) for n, v in self._ruleset(p, {}).options.items()))
        any_value, declared = declared_options(self.hello, case.players, own)
        preset_values = self._ruleset(own, {}).options
        values = {}
        for name in self.spec.options:
            if name in declared:
                listed = declared[name]
                values[name] = resolved[name] if any(_same(resolved[name], v) for v in listed) \
                    else listed[0]
            elif any_value:
                values[name] = resolved[name]
            else:
                values[name] = preset_values[name]
        values.update(self.options)
        return own, values

    def reproduce(self, case_id: str, file: str, preset: str | None) -> str:
        """The command that runs case `case_id` (loaded from `file`) alone against this engine,
        as this run ran it (a match case, which names its own preset, without --variant)."""
        spec = f" --spec {shlex.quote(self.spec_dir)}" if self.spec_dir else ""
        root = _cases_root(case_id, file)
        cases = f" --cases-dir {shlex.quote(str(root))}" if root and root != CASES_DIR else ""
        paths = "".join(f" --path {shlex.quote(str(p))}" for p in self.paths)
        variant = f" --variant {preset}" if preset else ""
        options = "".join(f" --option {shlex.quote(f'{n}={value_text(v)}')}"
                          for n, v in self.options.items())
        return (f"durak{spec} check --adapter {shlex.quote(self.adapter_name)}{paths}{cases} "
                f"--case {shlex.quote(case_id)}{variant}{options}")

    # -- re-deriving expectations ---------------------------------------------------------------
    def derive(self, case: Case, ruleset) -> tuple[Case, list[str]]:
        """The case with its expectations re-derived on the reference under `ruleset` (the
        engine's variant), and what differs from the shipped ones. Raises Unplayable when a step
        the case plays (expects accepted) is illegal under it."""
        foreign = _cards_outside(case.setup, ruleset.deck)
        if foreign:  # rule deck.composition: the engine's deck is another deck
            raise Unplayable(None, None, "deck.composition",
                             f"its deck of {len(ruleset.deck.pack)} cards does not hold the case's "
                             f"card(s) {', '.join(foreign[:4])}")
        try:
            game = Game(ruleset, Setup.from_json(case.setup, ruleset.deck, ruleset.player_limits))
        except (DurakError, RuntimeError) as exc:
            raise Unplayable(None, None, "", f"its setup cannot be played: {exc}") from None
        changes = []
        legal = None
        if case.legal is not None:
            legal = sorted(action_text(a) for a in game.legal_actions())
            if compare_legal(case.legal, legal):
                changes.append("start: legal")
        steps = []
        for i, step in enumerate(case.steps):
            action = game.parse_action(step.action)
            if action in game.legal_actions():
                try:
                    game.apply_action(action)
                except RuntimeError as exc:  # nobody can act afterwards under this variant
                    raise Unplayable(i, step.action, "", str(exc)) from None
                new = Step(step.action, "accept", None, note=step.note)
            else:
                rule, reason = game.explain(action)
                if step.expect == "accept":
                    raise Unplayable(i, step.action, rule, reason)
                new = Step(step.action, "reject", rule, note=step.note)
            if new.expect != step.expect:
                changes.append(f"step {i}: {new.expect} (shipped: {step.expect})")
            elif new.rule != step.rule and step.rule:
                changes.append(f"step {i}: rejected by {new.rule} (shipped: {step.rule})")
            if step.state is not None:
                view = comparable(state_view(game))
                new.state = {k: view[k] for k in step.state if k in view}
                diff = [k for k in new.state if k not in step.state or
                        comparable_field(k, new.state[k]) != comparable_field(k, step.state[k])]
                changes += [f"step {i}: state.{k}" for k in diff]
            if step.legal is not None:
                new.legal = sorted(action_text(a) for a in game.legal_actions())
                if compare_legal(step.legal, new.legal):
                    changes.append(f"step {i}: legal")
            steps.append(new)
        derived = Case(case.id, case.description, case.rules, case.variants, case.options,
                       case.setup, steps, legal, case.generated, case.file, case.data)
        return derived, changes

    def _unplayable_reason(self, exc: Unplayable, resolved: dict, values: dict) -> tuple[str, str]:
        """(message, grouping key) of a case whose script the engine's variant cannot play."""
        differ = [n for n in self.spec.options if not _same(values[n], resolved[n])]
        rule = self.spec.rules_by_id.get(exc.rule)
        read = [n for n in (rule_options(self.spec, rule) if rule else []) if n in differ]
        every = read + [n for n in differ if n not in read]
        key = f": the engine plays {options_text(read, values, resolved)}" if read \
            else " under the engine's variant"
        variant = f"the engine plays {options_text(every, values, resolved)}" if every \
            else "the engine's variant"
        if exc.step is None:
            return (f"{variant}, and under it {exc.reason}", f"the setup cannot be played{key}")
        by = f" by {exc.rule}" if exc.rule else ""
        return (f"step {exc.step} `{exc.action}` cannot be played: {variant}, and under it "
                f"{exc.rule or 'the reference'} forbids it ({exc.reason})",
                f"a step the case plays is illegal{by}{key}")

    # -- running ------------------------------------------------------------------------------
    def run_case(self, case: Case, preset: str) -> Result:
        t0 = time.perf_counter()
        res = Result(case.id, preset, "pass", case.description, list(case.rules), case.area, case.file,
                     reproduce=self.reproduce(case.id, case.file, preset), players=case.players)
        try:
            rs = self.ruleset(case, preset)
        except DurakError as exc:
            res.status, res.message = "broken", f"the case's variant does not load: {exc}"
            return res
        resolved = dict(rs.options)
        if self._reference is not None:
            problem = self._check_on_reference(case, preset, resolved)
            if problem:
                res.status, res.message = "broken", problem
                return self._finish(res, t0)
        gap = self.capability_gap(case, preset, resolved)
        if gap:
            res.status, res.message, res.skip_reason = "skip", gap, gap
            res.would_help = f"declare players {case.players}"
            return self._finish(res, t0)
        own, values = self.engine_variant(case, preset, resolved)
        res.engine_options = {n: values[n] for n in self.spec.options if not _same(values[n], resolved[n])}
        run_rs = rs
        if res.engine_options:
            try:
                # the case's options and the engine's own values are what the run's variant sets
                # (diagnose._declared): the rest follows the preset, as durak fuzz plays it
                run_rs = self._ruleset(preset, {**case.options, **res.engine_options})
                case, res.rederived = self.derive(case, run_rs)
            except DurakError as exc:
                res.status, res.message = "skip", f"the engine's variant does not load: {exc}"
                res.skip_reason = "the engine's variant does not load"
                return self._finish(res, t0)
            except Unplayable as exc:
                res.status = "skip"
                res.message, res.skip_reason = self._unplayable_reason(exc, resolved, values)
                if exc.step is not None and exc.rule:
                    self._unplayed.append((case, preset, own, values, dict(res.engine_options),
                                           exc.step, exc.rule))
                return self._finish(res, t0)
        gap = self.kind_gap(case, run_rs) or self.notation_gap(case, run_rs)
        if gap:
            res.status, res.message, res.skip_reason = "skip", gap, gap
            kinds = self._missing_kinds
            if kinds:
                res.would_help = f"declare action kind{'s' if len(kinds) > 1 else ''} {', '.join(kinds)}"
            elif run_rs.played_forms and not reads_named_suits(self.hello):
                res.would_help = "declare protocol 1.1"
            return self._finish(res, t0)
        alike = (case.id, self._behaviour(run_rs))
        if alike in self._alike:
            return self._finish(self._as_run(self._alike[alike], res), t0)
        if case.is_position:
            reached = self.reached(case, preset, run_rs, values)
            if reached.status == "unreachable":
                res.status = "skip"
                res.message, res.skip_reason = self._unreachable(case, preset, reached, resolved, values)
                return self._finish(res, t0)
            if not self.hello.get("positions", False):
                if reached.status != "found":
                    res.status = "skip"
                    res.message = ("the case starts from a mid-deal position, which the engine "
                                   f"cannot be put in, and no deal reaching it was found: {reached.why}")
                    res.skip_reason = ("a mid-deal position not reached from a deal (the search "
                                       "is not complete)")
                    res.would_help = "declare positions"
                    return self._finish(res, t0)
                case = from_deal_case(case, reached)
                res.from_deal = len(reached.prefix)
        observations: list[Observation] = []
        differences: list = []  # (Mismatch, index of its observation)
        try:
            played = self.as_engine_plays(case, run_rs)
            res.description = played.description
            try:
                res.steps_run = self._play(self.adapter, played, own, values,
                                           self.hello.get("levels", []), observations=observations,
                                           differences=differences)
            except Mismatch as m:
                differences.append((m, len(observations) - 1))
            marks = self._differences(res, run_rs, case, observations, differences) \
                if differences else []
            self._observed(run_rs, case, observations, marks, res)
            if res.status == "fail" and res.steps_run < len(played.steps):
                self._after_first_attacker(res, run_rs, played, own, values)
        except EngineSkipped as exc:
            res.status, res.message = "skip", f"the engine skipped it: {exc}"
            res.skip_reason = res.message
        except EngineError as exc:
            res.status, res.message = "error", str(exc)
        except EngineFault as fault:
            res.status = "error"
            res.message = f"engine {fault.what}: {fault.detail}; {self._restart()}"
        if res.status in ("pass", "fail"):
            self._alike[alike] = copy.deepcopy(res)
        return self._finish(res, t0)

    # -- advice, where the run did not look ----------------------------------------------------
    def plays_as(self, change: dict) -> bool:
        """Whether the engine plays as the reference under its variant changed by `change` in the
        case runs skipped because a step was illegal under its variant by a rule that reads an
        option of `change` (the cases that test exactly that value: a seventh and an eighth card
        under podkidnoy_no_cap, skipped for an engine sent a cap of six). Each such case that
        `change` makes playable is played on the engine, sent what it was sent before: a verdict
        other than the reference's under `change`, at the skipped step or later, refutes it, once
        every verdict before that step agreed and the engine's state just before it is the
        reference's (another bug of the engine refutes nothing). An engine that plays seven
        attack cards is not advised max_attack_cards = null when it refuses the eighth."""
        key = repr(sorted(change.items()))
        if key not in self._plays_as:
            self._plays_as[key] = self._probe(change)
        return self._plays_as[key]

    def _probe(self, change: dict) -> bool:
        model = getattr(self, "model", None)
        if model is None or not model.canonical:
            return True
        for case, preset, own, values, engine_options, at, rule in self._unplayed[:PROBE_LIMIT]:
            rule_def = self.spec.rules_by_id.get(rule)
            if rule_def is None or not set(change) & set(rule_options(self.spec, rule_def)):
                continue
            if case.is_position and not self.hello.get("positions", False):
                continue
            try:
                rs = self._ruleset(preset, {**case.options, **engine_options, **change})
                derived, _ = self.derive(case, rs)
            except (DurakError, Unplayable):
                continue
            if self._refutes(derived, rs, own, values, at):
                return False
        return True

    def _refutes(self, case: Case, ruleset, own: str, values: dict, at: int) -> bool:
        """Whether the engine's verdicts part from `case`'s (derived under `ruleset`) at step
        `at` or later, having agreed before it, in the same state."""
        try:
            game = Game(ruleset, Setup.from_json(case.setup, ruleset.deck, ruleset.player_limits))
            self._call(self.adapter, "start", variant={"preset": own, "options": values},
                       setup=case.setup)
            for i, step in enumerate(case.steps):
                if i == at and "state" in self.hello.get("levels", []):
                    have = self._call(self.adapter, "state").value["state"]
                    if compare_state(comparable(state_view(game)), have):
                        return False
                accepted = self.send(self.adapter, step.action)["accepted"]
                if accepted != (step.expect == "accept"):
                    return i >= at
                if accepted:
                    game.apply_action(game.parse_action(step.action))
        except (EngineSkipped, EngineError, DurakError, RuntimeError):
            return False
        except EngineFault:
            self._restart()
            return False
        return False

    def _after_first_attacker(self, res: Result, ruleset, played: Case, own: str, values: dict) -> None:
        """A case that ended at its start because the engine lets another player open the deal
        (the first-attacker rule decides the difference) is played again with the reference's
        first attacker given in the setup (PROTOCOL.md, Setup: `attacker`), so that the rules
        the case is about are still tested: one bug does not hide another. The differences of
        that game join the run's later differences (one of a rule and kind already reported is
        a repeat of it), marked `first_attacker_given`; the game joins the evidence."""
        first = ruleset.decisions["first_attacker"].rule.id
        if "attacker" in played.setup or res.step not in (None, 0) or res.rule != first:
            return
        try:
            game = Game(ruleset, Setup.from_json(played.setup, ruleset.deck, ruleset.player_limits))
        except DurakError:
            return
        pinned = replace(played, setup={**played.setup, "attacker": game.state.attacker})
        observations: list[Observation] = []
        differences: list = []
        probe = Result(res.case, res.variant, "pass")
        try:
            try:
                self._play(self.adapter, pinned, own, values, self.hello.get("levels", []),
                           observations=observations, differences=differences)
            except Mismatch as m:
                differences.append((m, len(observations) - 1))
            found = self._differences(probe, ruleset, pinned, observations, differences) \
                if differences else []
        except (EngineSkipped, EngineError):
            return
        except EngineFault:
            self._restart()
            return
        if found:  # the first difference of that game, as a record like the later ones
            head = _record(probe, found[0][0])
            found = [(at, head if r is probe else r) for at, r in found]
        seen = {(res.rule, _record_kind(res.check, res.want, res.have)): res}
        seen.update({(d["rule"], _record_kind(d["check"], d["want"], d["have"])): d
                     for d in res.differences})
        marks = []
        for at, record in found:
            key = (record["rule"], _record_kind(record["check"], record["want"], record["have"]))
            if key not in seen and len(res.differences) < MAX_DIFFERENCES:
                seen[key] = record
                record["first_attacker_given"] = True
                res.differences.append(record)
            marks.append((at, seen.get(key, record)))
        self._observed(ruleset, pinned, observations, marks, res)

    def _behaviour(self, ruleset) -> tuple:
        key = self._behaviours.get(id(ruleset))
        if key is None:
            key = self._behaviours[id(ruleset)] = ruleset.behaviour_key()
        return key

    @staticmethod
    def _as_run(first: Result, res: Result) -> Result:
        """The result of a case under a preset that plays as one it already ran under (the same
        compiled behaviour of the engine's variant): reported under this preset too."""
        out = copy.deepcopy(first)
        out.variant, out.reproduce, out.same_as = res.variant, res.reproduce, first.variant
        out.engine_options, out.rederived, out.seconds = res.engine_options, res.rederived, 0.0
        return out

    def _differences(self, res: Result, ruleset, case: Case, observations: list, found: list) -> list:
        """The run fails at its first difference; each later one under another rule (or of
        another kind) is diagnosed too and kept in `res.differences`. Returns each difference's
        observation and the record that reports it (a repeat of one under the same rule, that
        one's)."""
        found = [(part, at) for m, at in found for part in _by_kind(m)]
        m, at = found[0]
        res.status, res.step, res.action, res.check = "fail", m.step, m.action, m.check
        res.want, res.have, res.message = m.want, m.have, m.message
        last = len(observations) - 1
        self._diagnose(res, ruleset, case, observations[:at + 1], m, live=at == last)
        seen = {(res.rule, _kind(m)): res}
        marks = [(at, res)]  # each difference's observation, and the record reporting it
        _besides(_record(res, at), m, seen, marks, res.differences)
        for m, at in found[1:]:
            if len(res.differences) >= MAX_DIFFERENCES:
                break
            probe = Result(res.case, res.variant, "fail", step=m.step, action=m.action,
                           check=m.check, want=m.want, have=m.have, message=m.message)
            self._diagnose(probe, ruleset, case, observations[:at + 1], m, live=at == last,
                           search=False)
            if (probe.rule, _kind(m)) in seen:
                marks.append((at, seen[(probe.rule, _kind(m))]))
                _besides(_record(probe, at), m, seen, marks, res.differences)
                continue
            probe.message = m.message
            self._diagnose(probe, ruleset, case, observations[:at + 1], m, live=False,
                           settled=[i for i, _ in marks])
            record = _record(probe, at)
            seen[(probe.rule, _kind(m))] = record
            marks.append((at, record))
            res.differences.append(record)
            _besides(record, m, seen, marks, res.differences)
        return marks

    # -- positions reached from a deal (conformance/fromdeal.py) -------------------------------
    def reached(self, case: Case, preset: str, ruleset, values: dict) -> fromdeal.Reached:
        """How the case's position is reached from a deal under the variant the run plays: the
        block shipped in the case for its own preset when the run plays it, else a search
        (cached by spec, variant and case)."""
        shipped = (case.data.get("from_deal") or {}).get(preset)
        own = self._ruleset(preset, case.options).options
        if shipped is not None and all(_same(values[n], own[n]) for n in own):
            return fromdeal.Reached.from_json(shipped)
        key = (str(self.spec.root), _options_key(values), case.id, repr(case.setup))
        if key not in REACHED:
            REACHED[key] = fromdeal.reach(ruleset, case.setup, [s.action for s in case.steps])
        return REACHED[key]

    def _unreachable(self, case: Case, preset: str, reached, resolved: dict,
                     values: dict) -> tuple[str, str]:
        """(message, grouping key) of a position no history reaches under the run's variant:
        'unreachable under X = Y', naming the engine's option values without which a deal
        reaches it (each put back to the case's value alone), else the rule that forbids it."""
        differ = [n for n in self.spec.options if not _same(values[n], resolved[n])]
        culprits = []
        for name in differ:
            try:
                rs = self._ruleset(preset, {**values, name: resolved[name]})
            except DurakError:
                continue
            if self.reached(case, preset, rs, {**values, name: resolved[name]}).status == "found":
                culprits.append(name)
        if culprits:
            under = options_text(culprits, values)
            return (f"the position is unreachable under {under} ({reached.why}), so it is not sent",
                    f"a position unreachable under {under}")
        rule = f" (rule {reached.rule})" if reached.rule else ""
        return (f"the position is unreachable under the variant played{rule}: {reached.why}; so "
                "it is not sent", f"a position unreachable under its variant{rule}")

    def as_engine_plays(self, case: Case, ruleset) -> Case:
        """The case as the engine's action model plays it (conformance/actionmodel.py): unchanged
        for the protocol's own model; otherwise its moves, with the expectations re-derived on
        the reference for them, and the steps left out named in the description."""
        model = getattr(self, "model", None)
        if model is None or model.canonical:
            return case
        game = Game(ruleset, Setup.from_json(case.setup, ruleset.deck, ruleset.player_limits))
        moves = translate(case.steps, game, model, state_view, legal_before=case.legal is not None)
        steps = [Step(m.action, m.expect, m.rule, m.state, m.legal) for m in moves.moves]
        left_out = "; ".join(f"step {i} ({case.steps[i].action}) not sent: {why}" for i, why in moves.dropped)
        note = f" [played as the engine's action model: {model.describe()}{'; ' + left_out if left_out else ''}]"
        return replace(case, steps=steps, legal=moves.legal, description=case.description + note)

    def _observed(self, ruleset, case: Case, observations: list, marks: list, res: Result) -> None:
        """Keep what the engine did in this run, the evidence any advice must agree with, and
        which observation each difference reported is at."""
        model = getattr(self, "model", None)
        if model is not None and not model.canonical:
            observations = self._atomic(ruleset, case, observations)
            marks = [(len(observations) - 1, res)] if marks else []
        self.evidence.add(ruleset, case.setup, observations, marks)

    def _atomic(self, ruleset, case: Case, observations: list) -> list:
        """The engine's moves in its action model as the diagnosis reads them
        (actionmodel.atomic_observations)."""
        game = Game(ruleset, Setup.from_json(case.setup, ruleset.deck, ruleset.player_limits))
        return atomic_observations(observations, game, self.model)

    def _diagnose(self, res: Result, ruleset, case: Case, observations: list, m: Mismatch,
                  live: bool = True, search: bool = True, settled=()) -> None:
        """Name the rule that decides the failure (computed by the reference), and whether an
        option value explains it. The engine is asked for its state and legal set at the failing
        step where its levels allow, so that the reference sees what the engine did."""
        if m.check == "rule":  # the engine names another rule for a rejection the case expects
            res.rule = m.want
            return
        if not observations:
            return
        last = observations[-1]
        levels = self.hello.get("levels", []) if live else []
        part = getattr(m, "part", None)
        try:
            if last.state is None or set(last.state) < set(STATE_FIELDS):
                if "state" in levels:
                    last.state = self._call(self.adapter, "state").value["state"]
            if last.legal is None and "legal" in levels:
                last.legal = self._call(self.adapter, "legal").value["actions"]
        except (EngineSkipped, EngineError, EngineFault):
            pass
        model = getattr(self, "model", None)
        if model is not None and not model.canonical:
            observations = self._atomic(ruleset, case, observations)
            settled = ()  # indexes of the engine's moves, not of these actions
        elif part is not None:  # one group's difference of a legal set, diagnosed alone
            observations = observations[:-1] + [replace(observations[-1], legal=part, parsed=None)]
        from durak_spec.reference_impl.diagnose import diagnose  # loaded only for a failure

        try:
            found = diagnose(ruleset, case.setup, observations, budget=self.diagnose_budget,
                             memo=self._diagnose_memo, search=search, settled=settled)
        except (DurakError, RuntimeError, ValueError) as exc:
            res.message += f"; the reference could not attribute it: {exc}"
            return
        res.rule = found.rule
        res.diagnosis = found.to_json()
        if found.rule or found.as_if:
            res.message += f"; {found.message()}"

    def _finish(self, res: Result, t0: float) -> Result:
        res.seconds = time.perf_counter() - t0
        for key in (f"{res.case}@{res.variant}", res.case):
            if key in self.known:
                if res.status in ("fail", "error"):
                    res.status, res.message = "xfail", f"known failure: {self.known[key]}; {res.message}"
                elif res.status == "pass":
                    res.status = "xpass"
                    res.message = (f"listed as a known failure ({self.known[key]}) but passes "
                                   f"now: remove {key} from the known-failures file")
                break
        return res

    def _check_on_reference(self, case: Case, preset: str, resolved: dict) -> str | None:
        ref = PythonAdapter(lambda: self._reference, "reference")
        ref.engine = self._reference
        ref.passes = (ClauseError,)  # the spec is wrong: the run stops (tools/cli.py says why)
        ref.checked = False  # our own interpreter's results need no bounds
        try:
            self._play(ref, case, preset, resolved, ["verdicts", "state", "legal"], reference=True)
        except Mismatch as m:
            where = f"step {m.step}" if m.step is not None else "start"
            return (f"BUG IN CASE: the reference interpreter disagrees at {where} "
                    f"({m.action or '-'}, {m.check}): {m.message}")
        except (EngineSkipped, EngineError) as exc:
            return f"BUG IN CASE: the reference interpreter cannot run it: {exc}"
        return None

    def _call(self, adapter, cmd: str, *, trusted: bool = False, **args) -> Reply:
        reply = adapter.call(cmd, **args)
        if reply.kind == "skipped":
            raise EngineSkipped(reply.value)
        if reply.kind == "error":
            raise EngineError(f"engine error on {cmd}: {reply.value}")
        # The session's own reference replay is trusted: its results need no schema check.
        problem = None if trusted else check_result(cmd, reply.value)
        if problem:
            raise EngineFault("protocol", f"result of {cmd}: {problem}"
                             f"{_python_hint(adapter, cmd, reply.value)}")
        return reply

    def _play(self, adapter, case: Case, preset: str, resolved: dict, levels, reference=False,
              observations: list | None = None, differences: list | None = None) -> int:
        """Play the case; a difference raises Mismatch, except that a legal set that differs is
        added to `differences` (when given) and the case goes on along its script: the engine
        may still accept its next action, and show another difference."""
        obs = observations if observations is not None else []
        self._call(adapter, "start", trusted=reference,
                   variant={"preset": preset, "options": resolved}, setup=case.setup)
        if case.legal is not None and "legal" in levels:
            obs.append(Observation(None))
            try:
                self._check_legal(adapter, None, None, case.legal, reference, obs[-1])
            except Mismatch as m:
                self._go_on(adapter, m, obs, levels, differences)
        for i, step in enumerate(case.steps):
            obs.append(Observation(step.action))
            try:
                self._step(adapter, i, step, levels, reference, obs[-1])
            except Mismatch as m:
                self._go_on(adapter, m, obs, levels, differences)
            if not reference:
                self.steps += 1
        return len(case.steps)

    def _go_on(self, adapter, m: Mismatch, obs: list, levels, differences: list | None) -> None:
        """Keep a legal-set difference and go on, or raise it. The engine's whole state at that
        step is asked for now, for the diagnosis made when the case is over."""
        if differences is None or m.check != "legal":
            raise m
        if "state" in levels and (obs[-1].state is None or set(obs[-1].state) < set(STATE_FIELDS)):
            try:
                obs[-1].state = self._call(adapter, "state").value["state"]
            except (EngineSkipped, EngineError):
                pass
        differences.append((m, len(obs) - 1))

    # The three small pieces a step is made of: send it, compare the state, compare the legal set.
    def send(self, adapter, action: str, trusted: bool = False) -> dict:
        """Send one action; the engine's verdict."""
        return self._call(adapter, "apply", trusted=trusted, action=action).value

    def _step(self, adapter, i: int, step: Step, levels, trusted: bool = False,
              obs: Observation | None = None) -> None:
        obs = obs if obs is not None else Observation(step.action)
        verdict = self.send(adapter, step.action, trusted)
        accepted = obs.accepted = verdict["accepted"]
        if accepted != (step.expect == "accept"):
            have = "accepted" if accepted else "rejected" + (f" by {verdict['rule']}" if verdict.get("rule") else "")
            want = "accepted" if step.expect == "accept" else "rejected" + (f" by {step.rule}" if step.rule else "")
            reason = f" ({verdict['reason']})" if verdict.get("reason") else ""
            raise Mismatch(i, step.action, "verdict", want, have,
                           f"{step.action}: want {want}, have {have}{reason}")
        if not accepted and step.rule and verdict.get("rule") and verdict["rule"] != step.rule:
            raise Mismatch(i, step.action, "rule", step.rule, verdict["rule"],
                           f"{step.action}: rejected by {verdict['rule']}, want {step.rule}")
        if step.state is not None and "state" in levels:
            have_state = self._call(adapter, "state", trusted=trusted).value["state"]
            diff = compare_state(step.state, have_state)
            obs.state = ({k: have_state[k] for k in step.state if k in have_state}
                         if isinstance(have_state, dict) else None)
            if diff:
                key, want, have = diff
                raise Mismatch(i, step.action, f"state.{key}", want, have,
                               f"after {step.action}: state.{key}: want {want!r}, have {have!r}")
        if step.legal is not None and "legal" in levels:
            self._check_legal(adapter, i, step.action, step.legal, trusted, obs)

    def _check_legal(self, adapter, i, action, want, trusted: bool = False,
                     obs: Observation | None = None) -> None:
        have = self._call(adapter, "legal", trusted=trusted).value["actions"]
        if obs is not None:
            obs.legal = list(have)
        diff = compare_legal(want, have)
        if diff:
            missing, extra = diff
            where = f"after {action}" if action else "at the start"
            raise Mismatch(i, action, "legal", sorted(want), sorted(have),
                           f"legal actions {where}: missing {missing or '-'}, extra {extra or '-'}")


MAX_DIFFERENCES = 10  # later differences kept per case run
PROBE_LIMIT = 200     # skipped case runs looked at to confirm one advice (Session.plays_as)


def _record(r: Result, at: int) -> dict:
    """A later difference of a case run as `Result.differences` keeps it: the failing run's
    fields, and the index of its observation."""
    return {"step": r.step, "action": r.action, "check": r.check, "want": r.want, "have": r.have,
            "message": r.message, "rule": r.rule, "diagnosis": r.diagnosis, "observation": at}


def _besides(record: dict, m: Mismatch, seen: dict, marks: list, out: list) -> None:
    """The other rules the observation of a difference breaks as well (diagnose's `besides`: a
    draw of other counts, dealt in another order too), each a difference of its own at the same
    observation, kept in `out` unless one under that rule and of that kind is (`seen`)."""
    diagnosis = record.get("diagnosis") or {}
    for rule in diagnosis.get("besides") or []:
        key = (rule, _kind(m))
        if key not in seen:
            if len(out) >= MAX_DIFFERENCES:
                continue
            said = f"no option explains this: rule {rule}"
            seen[key] = {**record, "rule": rule, "message": f"{m.message}; {said}",
                         "diagnosis": {**diagnosis, "rule": rule, "also": [diagnosis.get("rule")],
                                       "as_if": [], "partly": [], "alternatives": [], "larger": [],
                                       "besides": [], "message": said}}
            out.append(seen[key])
        marks.append((record["observation"], seen[key]))


def _kind(m: Mismatch) -> str:
    """The family of a difference, for telling two differences of one run apart."""
    return _record_kind(m.check, m.want, getattr(m, "part", None) or m.have)


def _by_kind(m: Mismatch) -> list:
    """A legal-set difference as one difference per group of actions that differ (a throw and a
    pass together: diagnose.action_group): two rules broken at once show
    in one legal set (a seventh card offered, and a trump cover left out), each under its own
    rule, and the option value that explains one is not refused for the other's difference.
    Each part keeps the engine's whole legal set as `have`, and the set with its group's
    difference alone as `part`. A set in which openings differ is not split: a bout over on one
    side only (the next bout's attacks listed against the throw-ins and passes of this one) is
    one difference, the bout end's."""
    if m.check != "legal" or not isinstance(m.want, list) or not isinstance(m.have, list):
        return [m]
    from durak_spec.reference_impl.diagnose import action_group  # loaded only for a failure

    want, have = {str(a) for a in m.want}, {str(a) for a in m.have}
    groups: dict = {}
    for text in sorted(have - want) + sorted(want - have):
        groups.setdefault(action_group(text), ([], []))[text in want].append(text)
    if len(groups) < 2 or any(g[0] == "attack" for g in groups):
        return [m]
    where = m.message.split(": missing")[0]
    out = []
    for more, fewer in groups.values():
        part = Mismatch(m.step, m.action, m.check, m.want, m.have,
                        f"{where}: missing {fewer or '-'}, extra {more or '-'}")
        part.part = sorted((want - set(fewer)) | set(more))
        out.append(part)
    return out


def _record_kind(check, want, have) -> str:
    if check == "legal" and isinstance(want, list) and isinstance(have, list):
        return "legal+" if set(have) - set(want) else "legal-"
    return check or ""


REACHED: dict = {}  # (spec, variant, case id, setup) -> fromdeal.Reached, for every session


def from_deal_case(case: Case, reached) -> Case:
    """The case as played from the deal that reaches its position: the prefix first, as steps the
    reference accepts, then the case's own steps (their numbers follow the prefix's)."""
    prefix = [Step(text, "accept", note="from_deal prefix") for text in reached.prefix]
    legal = case.legal
    if prefix and legal is not None:
        prefix[-1].legal, legal = list(legal), None
    note = (f" [reached from a deal: {len(prefix)} action(s) lead to its position, steps "
            f"{len(prefix)} on are the case's]" if prefix else "")
    return replace(case, setup=dict(reached.setup), steps=prefix + list(case.steps), legal=legal,
                   description=case.description + note)


def would_help(results: list[Result]) -> list[tuple[str, int]]:
    """Skipped runs grouped by the declaration in hello that would run them, most first."""
    counts: dict[str, int] = {}
    for r in results:
        if r.status == "skip" and r.would_help:
            counts[r.would_help] = counts.get(r.would_help, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


STATE_FIELDS = ("hands", "hand_sizes", "talon_count", "trump", "table", "discard_count", "attacker",
                "defender", "taking", "out", "finished", "fool")


_RESULT_KEY = {"legal": "actions", "state": "state", "apply": "accepted"}


def _python_hint(adapter, cmd: str, result=None) -> str:
    """For a python: engine whose result is not the command's result object (a list of actions
    where {"actions": [...]} was due), what the method returns; none where the object is there
    and only something inside it is wrong (an action's text)."""
    key = _RESULT_KEY.get(cmd)
    if isinstance(result, dict) and (key is None or key in result):
        return ""
    if isinstance(adapter, PythonAdapter) and cmd in ("legal", "state", "start", "apply", "hello"):
        return (f" (a python: engine's {cmd}() returns the protocol's result object, e.g. "
                + {"legal": '{"actions": [...]}', "state": '{"state": {...}}', "start": "{}",
                   "apply": '{"accepted": true}', "hello": "the hello object"}[cmd] + ")")
    return ""


def _cases_root(case_id: str, file: str) -> Path | None:
    """The folder a case was loaded from (its file's path minus the id), or None."""
    path, depth = Path(file), len(case_id.split("/"))
    if path.suffix != ".yaml" or len(path.parts) <= depth:
        return None
    return path.resolve().parents[depth - 1]


def summarize(results: list[Result]) -> dict:
    counts = {s: 0 for s in STATUSES}
    for r in results:
        counts[r.status] += 1
    return counts


def tested_too_little(results: list[Result]) -> bool:
    """Nothing ran, or most selected case runs were skipped: such a run is never green."""
    return not results or summarize(results)["skip"] * 2 > len(results)


def skip_reasons(results: list[Result]) -> list[tuple[str, int]]:
    """The reasons case runs were skipped, grouped and counted, most frequent first."""
    counts: dict[str, int] = {}
    for r in results:
        if r.status == "skip":
            key = r.skip_reason or r.message
            counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def exit_code(results: list[Result]) -> int:
    """1 when there are findings (a failure, error, broken case or unexpected pass), else 0."""
    return 1 if any(r.status in FAILING for r in results) else 0
