"""The conformance runner: runs cases against an engine through an adapter and judges each step.

Per case and variant the outcome is one of:
  pass     every step matched
  fail     the engine differs from the case (the first difference: step, want, have)
  skip     outside the engine's declared capabilities, or the engine skipped it (with the reason)
  error    the engine crashed, hung, exited, flooded, printed garbage or answered out of protocol
  broken   the case itself disagrees with the reference interpreter (our bug, reported apart)
  xfail    failed, and listed in the engine's known-failures file
  xpass    listed as a known failure but passed now: the ledger needs updating
"""

from __future__ import annotations

import fnmatch
import shlex
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from durak_spec.conformance.actionmodel import ActionModel, translate
from durak_spec.conformance.cases import CASES_DIR, Case, Step
from durak_spec.conformance.engine import ReferenceEngine, state_view
from durak_spec.conformance.protocol import check_result
from durak_spec.conformance.transport import (
    Adapter,
    AdapterError,
    EngineFault,
    PythonAdapter,
    Reply,
)
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import comparable_field
from durak_spec.reference_impl.spec import Spec
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

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Selection:
    cases: tuple = ()
    rules: tuple = ()
    areas: tuple = ()
    variants: tuple = ()

    def picks(self, case: Case) -> bool:
        if self.cases and not any(fnmatch.fnmatchcase(case.id, p) for p in self.cases):
            return False
        if self.rules and not any(r == p or r.startswith(p + ".") or fnmatch.fnmatchcase(r, p)
                                  for p in self.rules for r in case.rules + [s.rule for s in case.steps if s.rule]):
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


class Session:
    """Drives one engine (through its adapter) over a list of cases."""

    def __init__(self, spec: Spec, adapter: Adapter, *, known: dict | None = None,
                 adapter_name: str = "", spec_dir: str | None = None, check_cases: bool = True):
        self.spec, self.adapter = spec, adapter
        self.known = known or {}
        self.adapter_name = adapter_name or adapter.name
        self.spec_dir = spec_dir
        self.hello: dict = {}
        self._rulesets: dict = {}
        self.check_cases = check_cases
        self._compiled: dict = {}  # (preset, resolved options) -> ruleset, shared with the replay
        self._reference = _Replay(spec, self._compiled) if check_cases else None
        self.restarts = 0
        self.steps = 0

    # -- engine lifecycle ---------------------------------------------------------------------
    def open(self) -> dict:
        try:
            hello = self.adapter.open()
        except EngineFault as exc:
            raise AdapterError(f"engine {self.adapter_name} did not complete the handshake: {exc}") from None
        problem = check_result("hello", hello)
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
        key = (preset, repr(sorted(case.options.items())))
        if key not in self._rulesets:
            rs = self.spec.ruleset(preset, case.options)
            self._rulesets[key] = rs
            self._compiled.setdefault((preset, _options_key(rs.options)), rs)
        return self._rulesets[key]

    def capability_gap(self, case: Case, preset: str, resolved: dict) -> str | None:
        """Why the engine's declared capabilities exclude this case, or None."""
        h = self.hello
        if preset not in h.get("presets", []):
            return f"the engine does not play preset {preset}"
        players = h.get("players")
        if players is not None and case.players not in players:
            return f"the engine does not play {case.players} players"
        if case.is_position and not h.get("positions", False):
            return "the case starts from a mid-deal position; the engine can only start deals"
        declared = h.get("options", {})
        if declared != "any":
            for name, value in resolved.items():
                if name in declared and value not in declared[name]:
                    return (f"the engine follows {name} = {', '.join(map(repr, declared[name]))}; "
                            f"this case needs {value!r}")
            for name in case.options:
                if name not in declared:
                    return f"the case sets option {name}, which the engine does not declare"
        return None

    def reproduce(self, case: Case, preset: str) -> str:
        spec = f" --spec {shlex.quote(self.spec_dir)}" if self.spec_dir else ""
        root = _cases_root(case)
        cases = f" --cases-dir {shlex.quote(str(root))}" if root and root != CASES_DIR else ""
        return (f"durak{spec} check --adapter {shlex.quote(self.adapter_name)}{cases} "
                f"--case {shlex.quote(case.id)} --variant {preset}")

    # -- running ------------------------------------------------------------------------------
    def run_case(self, case: Case, preset: str) -> Result:
        t0 = time.perf_counter()
        res = Result(case.id, preset, "pass", case.description, list(case.rules), case.area, case.file,
                     reproduce=self.reproduce(case, preset))
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
            res.status, res.message = "skip", gap
            return self._finish(res, t0)
        try:
            played = self.as_engine_plays(case, rs)
            res.description = played.description
            res.steps_run = self._play(self.adapter, played, preset, resolved, self.hello.get("levels", []))
        except Mismatch as m:
            res.status, res.step, res.action, res.check = "fail", m.step, m.action, m.check
            res.want, res.have, res.message = m.want, m.have, m.message
        except EngineSkipped as exc:
            res.status, res.message = "skip", f"the engine skipped it: {exc}"
        except EngineError as exc:
            res.status, res.message = "error", str(exc)
        except EngineFault as fault:
            res.status = "error"
            res.message = f"engine {fault.what}: {fault.detail}; {self._restart()}"
        return self._finish(res, t0)

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

    def _finish(self, res: Result, t0: float) -> Result:
        res.seconds = time.perf_counter() - t0
        for key in (f"{res.case}@{res.variant}", res.case):
            if key in self.known:
                if res.status in ("fail", "error"):
                    res.status, res.message = "xfail", f"known failure: {self.known[key]}; {res.message}"
                elif res.status == "pass":
                    res.status = "xpass"
                    res.message = f"listed as a known failure ({self.known[key]}) but passes now"
                break
        return res

    def _check_on_reference(self, case: Case, preset: str, resolved: dict) -> str | None:
        ref = PythonAdapter(lambda: self._reference, "reference")
        ref.engine = self._reference
        try:
            self._play(ref, case, preset, resolved, ["verdicts", "state", "legal"], reference=True)
        except Mismatch as m:
            where = f"step {m.step}" if m.step is not None else "start"
            return (f"BUG IN CASE: the reference interpreter disagrees at {where} "
                    f"({m.action or '-'}, {m.check}): {m.message}")
        except (EngineSkipped, EngineError) as exc:
            return f"BUG IN CASE: the reference interpreter cannot run it: {exc}"
        return None

    def _call(self, adapter: Adapter, cmd: str, *, trusted: bool = False, **args) -> Reply:
        reply = adapter.call(cmd, **args)
        if reply.kind == "skipped":
            raise EngineSkipped(reply.value)
        if reply.kind == "error":
            raise EngineError(f"engine error on {cmd}: {reply.value}")
        # The session's own reference replay is trusted: its results need no schema check.
        problem = None if trusted else check_result(cmd, reply.value)
        if problem:
            raise EngineFault("protocol", f"result of {cmd}: {problem}")
        return reply

    def _play(self, adapter, case: Case, preset: str, resolved: dict, levels, reference=False) -> int:
        self._call(adapter, "start", trusted=reference,
                   variant={"preset": preset, "options": resolved}, setup=case.setup)
        if case.legal is not None and "legal" in levels:
            self._check_legal(adapter, None, None, case.legal, reference)
        for i, step in enumerate(case.steps):
            self._step(adapter, i, step, levels, reference)
            if not reference:
                self.steps += 1
        return len(case.steps)

    def _step(self, adapter, i: int, step: Step, levels, trusted: bool = False) -> None:
        verdict = self._call(adapter, "apply", trusted=trusted, action=step.action).value
        accepted = verdict["accepted"]
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
            if diff:
                key, want, have = diff
                raise Mismatch(i, step.action, f"state.{key}", want, have,
                               f"after {step.action}: state.{key}: want {want!r}, have {have!r}")
        if step.legal is not None and "legal" in levels:
            self._check_legal(adapter, i, step.action, step.legal, trusted)

    def _check_legal(self, adapter, i, action, want, trusted: bool = False) -> None:
        have = self._call(adapter, "legal", trusted=trusted).value["actions"]
        diff = compare_legal(want, have)
        if diff:
            missing, extra = diff
            where = f"after {action}" if action else "at the start"
            raise Mismatch(i, action, "legal", sorted(want), sorted(have),
                           f"legal actions {where}: missing {missing or '-'}, extra {extra or '-'}")


def _cases_root(case: Case) -> Path | None:
    """The folder a case was loaded from (its file's path minus the id), or None."""
    path, depth = Path(case.file), len(case.id.split("/"))
    if path.suffix != ".yaml" or len(path.parts) <= depth:
        return None
    return path.resolve().parents[depth - 1]


def summarize(results: list[Result]) -> dict:
    counts = {s: 0 for s in STATUSES}
    for r in results:
        counts[r.status] += 1
    return counts


def exit_code(results: list[Result]) -> int:
    return 1 if any(r.status in FAILING for r in results) else 0
