"""Recording and replaying games as JSON-lines traces.

Line 1 is a header: {"trace": "durak-spec", "format": 1, "preset": ..., "options": {...},
"setup": {...}}. Every further line is one step: {"step": i, "action": {...}, "state": {...}},
with the action and the state after it in the canonical JSON notation (notation.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .errors import DurakError, IllegalAction
from .game import Game, Setup
from .notation import action_json, parse_action, state_json
from .spec import Spec

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


def _parse_lines(text: str):
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise TraceError(n, f"not JSON ({exc.msg}); the trace may be truncated") from None
        if not isinstance(obj, dict):
            raise TraceError(n, "each line must be a JSON object")
        yield n, obj


def replay(spec: Spec, text: str) -> ReplayResult:
    """Replay a trace; stop at the first illegal action or state that differs."""
    lines = list(_parse_lines(text))
    if not lines:
        raise TraceError(1, "the trace is empty")
    n, head = lines[0]
    if head.get("trace") != "durak-spec" or head.get("format") != FORMAT:
        raise TraceError(n, f"not a durak-spec trace header of format {FORMAT}")
    ruleset = spec.ruleset(head.get("preset", "podkidnoy"), head.get("options") or {})
    game = Game(ruleset, Setup.from_json(head.get("setup"), ruleset.deck, ruleset.player_limits))
    for n, obj in lines[1:]:
        try:
            action = parse_action(obj.get("action"), ruleset.deck, game.state.n)
            game.apply_action(action)
        except IllegalAction as exc:
            return ReplayResult(n - 1, False, n, str(exc), exc.rule_id)
        except DurakError as exc:
            raise TraceError(n, str(exc)) from None
        if "state" in obj and obj["state"] != state_json(game.state):
            want, have = obj["state"], state_json(game.state)
            diff = [k for k in sorted(set(want) | set(have)) if want.get(k) != have.get(k)]
            return ReplayResult(n - 1, False, n, f"state differs in {', '.join(diff)}")
    return ReplayResult(len(lines) - 1, True)
