"""Recording and replaying games as JSON-lines traces.

Line 1 is a header: {"trace": "durak-spec", "format": 1, "preset": ..., "options": {...},
"setup": {...}}. Every further line is one step: {"step": i, "action": {...}, "state": {...}},
with the action and the state after it in the canonical JSON notation (notation.py). Logs written
by other engines may carry less (conformance/TRACE.md): `replay` checks whatever is there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .diagnose import Observation, diagnose
from .errors import DurakError
from .game import Game, Setup
from .notation import (
    action_json,
    action_text,
    comparable_field,
    parse_action,
    state_json,
    state_text,
)
from .spec import Spec
from .yamlio import InputError, parse_json

FORMAT = 1


class TraceError(DurakError):
    """A trace that cannot be read, naming the line."""

    def __init__(self, line: int, message: str):
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


class Recorder:
    """Plays a game and keeps every step for writing out."""

    def __init__(self, game: Game):
        self.game = game
        rs = game.ruleset
        self.lines = [{"trace": "durak-spec", "format": FORMAT, "preset": rs.preset,
                       "options": dict(rs.overrides), "setup": game.setup.to_json()}]

    def apply(self, action) -> None:
        self.game.apply_action(action)
        self.lines.append({"step": len(self.lines), "action": action_json(action),
                           "state": state_json(self.game.state)})

    def dumps(self) -> str:
        return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in self.lines)


@dataclass
class ReplayResult:
    steps: int
    ok: bool
    line: int | None = None
    message: str = ""
    rule_id: str | None = None
    position: str = ""
    checked: dict | None = None
    diagnosis: dict | None = None  # reference_impl/diagnose.py's Diagnosis, as JSON
    finished: bool = False  # whether the game the log plays is over by the spec at its end


STEP_KEYS = {"step", "action", "accepted", "state", "legal", "seat", "note"}
HEADER_KEYS = {"trace", "format", "preset", "variant", "options", "setup", "engine"}


def _parse_lines(text: str):
    lines = text.splitlines()
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            obj = parse_json(raw, "trace", n)
        except InputError as exc:
            message = exc.message.removeprefix(f"line {n}, ").removeprefix(f"line {n}: ")
            last = exc.truncated and n == len(lines) and not text.endswith("\n")
            raise TraceError(n, f"not JSON ({message})" +
                             ("; the log may be cut short (its last line has no newline)"
                              if last else "")) from None
        if not isinstance(obj, dict):
            raise TraceError(n, "each line must be a JSON object")
        yield n, obj


def _state_fields(game: Game) -> dict:
    """Every state field a log may report: the trace notation's and the protocol's."""
    fields = state_json(game.state)
    s = game.state
    fields.update(hand_sizes=[len(h) for h in s.hands], talon_count=len(s.talon),
                  fool=s.fool if s.finished else None)
    return fields


def replay(spec: Spec, text: str, variant: str | None = None, options: dict | None = None) -> ReplayResult:
    """Check a game log step by step: every action legal, every logged verdict, state field and
    legal set as the spec says. Stops at the first step that breaks a rule or differs.

    Lines after the header may log as little as the action; `accepted`, `state` (any subset of
    fields) and `legal` are checked when present. A final `{"result": {...}}` line is checked too.
    """
    lines = list(_parse_lines(text))
    if not lines:
        raise TraceError(1, "the trace is empty")
    n, head = lines[0]
    if head.get("trace") != "durak-spec" or head.get("format") != FORMAT:
        raise TraceError(n, f'the first line must be a header {{"trace": "durak-spec", "format": {FORMAT}, '
                            '"setup": {...}}')
    unknown = set(head) - HEADER_KEYS
    if unknown:
        raise TraceError(n, f"unknown header field(s) {sorted(unknown)}; fields: {sorted(HEADER_KEYS)}")
    preset = variant or head.get("variant") or head.get("preset") or "podkidnoy"
    if options is None:
        options = head.get("options") or {}
    ruleset = spec.ruleset(preset, options)
    try:
        game = Game(ruleset, Setup.from_json(head.get("setup"), ruleset.deck, ruleset.player_limits))
    except DurakError as exc:
        raise TraceError(n, str(exc)) from None
    checked = {"actions": 0, "verdicts": 0, "states": 0, "legal sets": 0}
    steps = 0
    observed: list[Observation] = []  # what the log says, for attributing a difference

    def failed(line, message, rule, position):
        found = diagnose(ruleset, game.setup, observed) if observed else None
        if found is not None and found.rule:
            rule = found.rule
            message += f"; {found.message()}"
        return ReplayResult(steps, False, line, message, rule, position, checked,
                            found.to_json() if found is not None else None)

    for n, obj in lines[1:]:
        if "result" in obj:
            return _check_result(game, n, obj["result"], steps, checked)
        unknown = set(obj) - STEP_KEYS
        if unknown or "action" not in obj:
            raise TraceError(n, f"a step line has an `action` and may have {sorted(STEP_KEYS - {'action'})}"
                                + (f"; unknown field(s) {sorted(unknown)}" if unknown else ""))
        try:
            action = parse_action(obj["action"], ruleset.deck, game.state.n)
        except DurakError as exc:
            raise TraceError(n, str(exc)) from None
        position = state_text(game.state)
        accepted = obj.get("accepted", True)
        observed.append(Observation(action_text(action), accepted,
                                    obj["state"] if isinstance(obj.get("state"), dict) else None,
                                    obj["legal"] if isinstance(obj.get("legal"), list) else None))
        rule, reason = game.explain(action)
        checked["actions"] += 1
        if accepted and rule:
            return failed(n, f"{action_text(action)} breaks {rule}: {reason}", rule, position)
        if not accepted:
            checked["verdicts"] += 1
            if not rule:
                return failed(n, f"the log rejects {action_text(action)}, which the spec allows here",
                              None, position)
            continue
        game.apply_action(action)
        steps += 1
        problem = _compare(game, obj, checked)
        if problem:
            return failed(n, problem, None, state_text(game.state))
    return ReplayResult(steps, True, checked=checked, finished=game.state.finished,
                        position="" if game.state.finished else state_text(game.state))


def _compare(game: Game, obj: dict, checked: dict) -> str:
    if isinstance(obj.get("state"), dict):
        checked["states"] += 1
        have = _state_fields(game)
        for key, value in obj["state"].items():
            if key in have and comparable_field(key, value) != comparable_field(key, have[key]):
                return f"state.{key}: the log has {value!r}, the spec gives {have[key]!r}"
    if isinstance(obj.get("legal"), list):
        checked["legal sets"] += 1
        want = {action_text(a) for a in game.legal_actions()}
        logged = {" ".join(str(a).split()) for a in obj["legal"]}
        if logged != want:
            return (f"legal actions: the log lists {sorted(logged - want) or '-'} that the spec "
                    f"forbids and misses {sorted(want - logged) or '-'}")
    return ""


def _check_result(game: Game, n: int, result, steps: int, checked: dict) -> ReplayResult:
    s = game.state
    if not s.finished:
        return ReplayResult(steps, False, n, "the log ends the game, but by the spec it goes on",
                            "end.game_over", state_text(s), checked)
    if isinstance(result, dict) and "fool" in result and result["fool"] != s.fool:
        return ReplayResult(steps, False, n, f"the log's fool is {result['fool']!r}; by the spec "
                            f"it is {s.fool!r}", "end.fool", state_text(s), checked)
    return ReplayResult(steps, True, checked=checked)
