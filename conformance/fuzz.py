"""Differential fuzzing: random games in lockstep on the reference and on an engine.

Hypothesis draws the deal (a seed, and the player count unless fixed) and, at every step, either
a legal action to play or an illegal one to probe. Both sides start from the same explicit setup;
after each step they are compared as far as the engine's declared levels allow: verdicts always,
legal sets and state when declared. A divergence is shrunk by hypothesis to a minimal game and
written as a conformance case (the case schema's format, replayable by `durak check`) that names
the rule ids involved. A hypothesis example database under the output folder lets later runs
replay earlier failures first.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, given, reject, seed, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import Unsatisfiable

from durak_spec.conformance.cases import parse_case, write_case
from durak_spec.conformance.engine import comparable, state_view
from durak_spec.conformance.protocol import check_result
from durak_spec.conformance.record import _candidates, record_case
from durak_spec.conformance.runner import Session
from durak_spec.conformance.transport import Adapter, EngineFault
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import action_text, comparable_field
from durak_spec.reference_impl.simulate import STEP_LIMIT
from durak_spec.reference_impl.spec import Spec
from durak_spec.reference_impl.vocab import ACTION_KINDS

CHOICES = 1024  # bytes of choices drawn per game; past them every choice is 0 (the first action)


class Choices:
    """Per-game choices drawn as one block of bytes: cheap to draw, and hypothesis shrinks them
    towards zero, i.e. towards games that always take the first legal action."""

    def __init__(self, raw: bytes):
        self.raw, self.i = raw, 0

    def byte(self) -> int:
        if self.i >= len(self.raw):
            return 0
        self.i += 1
        return self.raw[self.i - 1]

    def pick(self, n: int) -> int:
        return self.byte() % n

    def action(self, legal: list):
        """A legal action, or None to probe an illegal one. Card plays are favoured (3 in 4) so
        that bouts grow to their limits; a zero byte plays the first card action."""
        b = self.byte()
        cards = [a for a in legal if a.card is not None]
        if b < 192 and cards:
            return cards[b % len(cards)]
        if b < 248:
            return legal[b % len(legal)]
        return None
STATE_RULES = {"hands": ["draw.who", "draw.order"], "talon_count": ["draw.who", "draw.order"],
               "hand_sizes": ["draw.who", "draw.order"], "table": ["bout.beaten_off", "bout.taken"],
               "discard_count": ["bout.beaten_off"], "attacker": ["rotation.after_beaten_off",
               "rotation.after_take"], "defender": ["rotation.defender"], "taking": ["defence.take"],
               "out": ["end.out"], "finished": ["end.game_over"], "fool": ["end.fool"],
               "trump": ["deck.trump"]}


class GameSkipped(Exception):
    """The engine skipped a deal (a setup it cannot play); the example is discarded."""


class Divergence(AssertionError):
    def __init__(self, step: int, check: str, want, have, rules: list[str], message: str):
        self.step, self.check, self.want, self.have = step, check, want, have
        self.rules, self.message = rules, message
        super().__init__(message)


@dataclass
class Found:
    players: int
    deal_seed: int
    steps: list  # dicts: {"do": text, "expect": accept|reject}
    divergence: Divergence


@dataclass
class FuzzResult:
    games: int = 0
    steps: int = 0
    seconds: float = 0.0
    found: Found | None = None
    case_path: Path | None = None
    case: dict | None = None
    errors: list = field(default_factory=list)
    skipped: int = 0


class Lockstep:
    """Plays one game on the reference and the engine side by side."""

    def __init__(self, spec: Spec, adapter: Adapter, hello: dict, preset: str, options: dict):
        self.spec, self.adapter, self.hello = spec, adapter, hello
        self.preset = preset
        self.ruleset = spec.ruleset(preset, options)
        self.resolved = dict(self.ruleset.options)
        self.levels = set(hello.get("levels", ["verdicts"]))
        self.games = self.steps = self.skipped = 0
        self.skip_reason = ""

    def _call(self, cmd, step, **args):
        try:
            reply = self.adapter.call(cmd, **args)
        except EngineFault as fault:
            try:
                self.hello = self.adapter.restart()
            except Exception:
                pass
            raise Divergence(step, "engine", "an answer", f"{fault.what}: {fault.detail}", [],
                             f"the engine failed on {cmd}: {fault}") from None
        if reply.kind == "skipped" and cmd == "start":
            raise GameSkipped(reply.value)
        if reply.kind != "result":
            raise Divergence(step, cmd, "a result", f"{reply.kind}: {reply.value}", [],
                             f"the engine answered {cmd} with {reply.kind}: {reply.value}")
        problem = check_result(cmd, reply.value)
        if problem:
            raise Divergence(step, cmd, "a valid result", reply.value, [], f"{cmd}: {problem}")
        return reply.value

    def play(self, data, players: int | None) -> None:
        lo, hi = self.ruleset.player_limits
        allowed = [n for n in self.hello.get("players", range(lo, hi + 1)) if lo <= n <= hi]
        n = players if players else data.draw(st.sampled_from(allowed), label="players")
        deal_seed = data.draw(st.integers(0, 2**31 - 1), label="deal seed")
        choices = Choices(data.draw(st.binary(min_size=CHOICES, max_size=CHOICES), label="choices"))
        setup = Setup.deal(self.ruleset, n, deal_seed)
        game = Game(self.ruleset, setup)
        trail: list = []
        self.current = (n, deal_seed, trail)
        self.games += 1
        self._call("start", 0, variant={"preset": self.preset, "options": self.resolved},
                   setup=setup.to_json())
        self._compare(game, -1, trail)
        step = 0
        while not game.is_terminal() and step < STEP_LIMIT:
            legal = game.legal_actions()
            action = choices.action(legal)
            if action is None:
                self._probe(game, choices, step, trail)
                continue
            text = action_text(action)
            game.apply_action(action)
            trail.append({"do": text, "expect": "accept"})
            verdict = self._call("apply", step, action=text)
            if not verdict["accepted"]:
                raise Divergence(step, "verdict", "accepted", "rejected" + (
                    f" ({verdict['reason']})" if verdict.get("reason") else ""),
                    [cr.rule.id for cr in self.ruleset.legality[action.kind]],
                    f"step {step}: {text}: the reference accepts it, the engine rejects it")
            self._compare(game, step, trail)
            step += 1
            self.steps += 1

    def _probe(self, game: Game, choices: Choices, step: int, trail: list) -> None:
        legal = set(game.legal_actions())
        illegal = [a for a in _candidates(game, ACTION_KINDS) if a not in legal]
        if not illegal:
            return
        action = illegal[choices.pick(len(illegal))]
        text = action_text(action)
        rule, _ = game.explain(action)
        trail.append({"do": text, "expect": "reject", "rule": rule})
        verdict = self._call("apply", step, action=text)
        if verdict["accepted"]:
            raise Divergence(step, "verdict", f"rejected by {rule}", "accepted", [rule],
                             f"step {step}: {text}: the reference rejects it by {rule}, the engine accepts it")

    def _compare(self, game: Game, step: int, trail: list) -> None:
        where = f"after step {step}" if step >= 0 else "at the start"
        if "state" in self.levels:
            have = self._call("state", step)["state"]
            want = comparable(state_view(game))
            for key in want:
                if key in have and comparable_field(key, have[key]) != comparable_field(key, want[key]):
                    raise Divergence(step, f"state.{key}", want[key], have[key],
                                     STATE_RULES.get(key, []),
                                     f"state.{key} {where}: want {want[key]!r}, have {have[key]!r}")
        if "legal" in self.levels:
            have = self._call("legal", step)["actions"]
            want = {action_text(a) for a in game.legal_actions()}
            have_set = {" ".join(str(a).split()) for a in have}
            if want != have_set:
                missing, extra = sorted(want - have_set), sorted(have_set - want)
                rules = sorted({game.explain(game.parse_action(a))[0] for a in extra
                                if _parses(game, a)} - {""})
                rules += sorted({cr.rule.id for a in missing for cr in
                                 self.ruleset.legality[a.split()[1]]} - set(rules))
                raise Divergence(step, "legal", sorted(want), sorted(have_set), rules,
                                 f"legal actions {where}: missing {missing or '-'}, extra {extra or '-'}")

def _parses(game: Game, text: str) -> bool:
    try:
        game.parse_action(text)
        return True
    except Exception:
        return False


def _slug(adapter_name: str) -> str:
    """A short folder name for an adapter: the class of python:, the program of cmd:."""
    if adapter_name.startswith("python:"):
        module, _, cls = adapter_name[7:].partition(":")
        text = f"{module.rsplit('.', 1)[-1]}_{cls}"
    elif adapter_name.startswith("cmd:"):
        words = adapter_name[4:].split()
        text = words[-1].rsplit("/", 1)[-1].rsplit(".", 1)[-1] if words else "cmd"
    else:
        text = adapter_name
    return re.sub(r"[^a-z0-9_.-]+", "_", text.lower()).strip("_.")[:48] or "engine"


def fuzz(spec: Spec, adapter: Adapter, hello: dict, *, preset: str, options: dict | None = None,
         players: int | None = None, games: int = 100, seed_value: int = 0,
         out_dir: Path | None = None, adapter_name: str = "engine", shrink: bool = True) -> FuzzResult:
    """Fuzz one engine under one variant; on a divergence, shrink it and write a case."""
    lock = Lockstep(spec, adapter, hello, preset, options or {})
    result = FuzzResult()
    out_dir = Path(out_dir or "durak-fuzz")
    key = hashlib.sha1(f"{adapter_name}|{preset}|{sorted((options or {}).items())}|{players}".encode())
    db = DirectoryBasedExampleDatabase(str(out_dir / ".hypothesis" / key.hexdigest()[:16]))
    failures: list = []
    phases = [Phase.reuse, Phase.generate] + ([Phase.shrink] if shrink else [])

    @seed(seed_value)
    @settings(max_examples=games, deadline=None, database=db, phases=phases,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
              report_multiple_bugs=False, print_blob=False, derandomize=False)
    @given(st.data())
    def run(data):
        try:
            lock.play(data, players)
        except GameSkipped as exc:
            lock.skipped += 1
            lock.skip_reason = str(exc)
            reject()
        except Divergence as div:
            n, deal_seed, trail = lock.current
            failures.append(Found(n, deal_seed, list(trail), div))
            raise

    t0 = time.perf_counter()
    try:
        run()
    except Divergence:
        result.found = failures[-1]
    except Unsatisfiable:
        result.errors.append(f"the engine skipped every deal ({lock.skipped}): {lock.skip_reason}")
    result.seconds = time.perf_counter() - t0
    result.games, result.steps = lock.games - lock.skipped, lock.steps
    result.skipped = lock.skipped
    if result.found is not None:
        result.case = _smallest_case(spec, adapter, hello, result.found, preset, options or {},
                                     adapter_name, seed_value)
        result.case_path = write_case(result.case, spec, out_dir)
    return result


def _smallest_case(spec, adapter, hello, found: Found, preset, options, adapter_name, seed_value):
    """The found game as a case, without the rejected probes before the divergence when the
    engine still fails the case without them."""
    full = found_case(spec, found, preset, options, adapter_name, seed_value)
    last = len(found.steps) - 1
    kept = [s for i, s in enumerate(found.steps) if s["expect"] == "accept" or i == last]
    if len(kept) == len(found.steps):
        return full
    slim = found_case(spec, Found(found.players, found.deal_seed, kept, found.divergence), preset,
                      options, adapter_name, seed_value)
    session = Session(spec, adapter, check_cases=False)
    session.hello = hello
    try:
        status = session.run_case(parse_case(slim, spec), preset).status
    except Exception:
        status = "unknown"
    return slim if status in ("fail", "error") else full


def found_case(spec: Spec, found: Found, preset: str, options: dict, adapter_name: str,
               seed_value: int) -> dict:
    """The minimal divergent game as a conformance case, with the reference's expectations."""
    div = found.divergence
    rs = spec.ruleset(preset, options)
    setup = Setup.deal(rs, found.players, found.deal_seed)
    steps = [dict(s) for s in found.steps]
    check_state = div.check.startswith("state") or div.check == "engine"
    check_legal = div.check == "legal"
    rules = [r for r in div.rules if r in spec.rules_by_id] or ["play.active_seat"]
    ident = f"fuzz/{_slug(adapter_name)}/{preset}_{found.players}p_{found.deal_seed}_{len(steps)}"
    start_legal = check_legal and not steps
    if not steps:  # a divergence before any step: show the first legal action too
        game = Game(rs, setup)
        steps = [{"do": action_text(game.legal_actions()[0]), "expect": "accept"}]
    return record_case(
        spec, id=ident, description=f"Found by durak fuzz against {adapter_name}: {div.message}"[:300],
        rules=rules, setup=setup.to_json(), steps=steps, variants=[preset], options=options,
        state="last" if check_state or not check_legal else "none",
        legal="last" if check_legal or not check_state else "none", start_legal=start_legal,
        generated={"by": "durak fuzz", "seed": seed_value,
                   "note": f"adapter {adapter_name}; deal seed {found.deal_seed}; "
                           f"divergence in {div.check} at step {div.step}"})
