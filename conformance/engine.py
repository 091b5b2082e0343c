"""The engine side of the protocol, for Python engines: the interface and the reference engine.

An engine plugged in as `python:MODULE:CLASS` is a class with one method per command of
PROTOCOL.md, and ONE contract: each method returns exactly the command's result object, the JSON
value a subprocess engine writes under "result" (so the same class serves in process and, behind
examples/reference_engine.py's `serve`, as a subprocess, with identical results):

    hello() -> dict                    name, version, protocol, presets, options, players, levels,
                                       positions, house_rules, action_kinds (see PROTOCOL.md
                                       "hello")
    start(variant: dict, setup: dict)  start a game; returns {} (or None); raise Skip("why") if it
                                       cannot play it
    apply(action: str) -> dict         {"accepted": true} or {"accepted": false, "rule": ..., "reason": ...}
    legal() -> dict                    {"actions": [every legal action, in the canonical text]}
    state() -> dict                    {"state": {the state in the protocol's state notation}}
    next_deal(setup: dict) -> dict     optional (protocol 1.1, "match": true): begin the next deal
                                       of the match with these cards; returns {}
    score() -> dict                    optional (protocol 1.1, "match": true): the finished deal's
                                       scoring in the match (schemas/protocol/result-score.json)
    step(actions, state, legal) -> dict
                                       optional (protocol 1.1, declared as "step": true in hello):
                                       {"steps": [...]}: apply each action in turn; after each
                                       accepted one, add "state" and "legal" when asked
    stop() -> dict                     optional: release resources; returns {} (or None)

Any other exception a method raises is reported as that engine's error for the case; a result
that breaks its schema (schemas/protocol/result-<cmd>.json) is out of protocol.
"""

from __future__ import annotations

import importlib.metadata
import weakref
from typing import TYPE_CHECKING

from durak_spec.conformance.actionmodel import apply_move, move_actions
from durak_spec.reference_impl.errors import DurakError, IllegalAction
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import protocol_state
from durak_spec.reference_impl.spec import Spec, load_spec
from durak_spec.reference_impl.state import ActionTexts
from durak_spec.reference_impl.vocab import CAPABILITIES

if TYPE_CHECKING:  # a match is made only for an engine that plays matches (_match)
    from durak_spec.reference_impl.match import Match

PROTOCOL_VERSION = "1.1"
try:
    __version__ = importlib.metadata.version("durak-spec")
except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a bare checkout
    __version__ = "0+unknown"
LEVELS = ("verdicts", "state", "legal")


class Skip(Exception):
    """Raised by an engine that cannot play a requested game (a variant or setup it lacks)."""


def state_view(game: Game) -> dict:
    """The state as the protocol carries it (PROTOCOL.md "state")."""
    return protocol_state(game.state)


ROLE_FIELDS = ("attacker", "defender", "taking")


def thin_states(entries: list) -> list:
    """The entries of a `step` answer with each state reduced to the fields that differ from the
    state of the entry before it that has one, in place: the answer to a request with "delta"
    (PROTOCOL.md; examples/reference_engine.py's `serve` does it for any engine class)."""
    prev = None
    for entry in entries:
        full = entry.get("state") if isinstance(entry, dict) else None
        if not isinstance(full, dict):
            continue
        if prev is not None:
            entry["state"] = {k: v for k, v in full.items()
                              if k not in prev or not same_json(prev[k], v)}
        prev = full
    return entries


def same_json(a, b) -> bool:
    """Whether a and b are the same JSON value, not only equal to Python (0 == False, 6.0 == 6,
    [0] == [False]): a field thinned from a state because it equals the last one would hide an
    engine's change from false to 0, which the fuzzer reports as out of protocol."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(map(same_json, a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same_json(v, b[k]) for k, v in a.items())
    return a == b


def comparable(view: dict) -> dict:
    """The fields of a state view that the rules decide: once the game is over no rule decides the
    roles, so they are left out."""
    if view.get("finished"):
        return {k: v for k, v in view.items() if k not in ROLE_FIELDS}
    return view


# deck -> {players: ({text: its atomic actions}, {listed action: its text})}, shared by every
# reference engine: what a text means and how an action is written depend on the deck and the
# seats alone, and an engine started afresh (a campaign's, a restart's) finds them known
_PARSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _Texts(ActionTexts):
    """A listed action -> its text (ActionTexts), which the first time also makes the text mean
    that action (the shared action object: apply finds it by identity)."""

    __slots__ = ("moves",)

    def __init__(self, moves: dict):
        super().__init__()
        self.moves = moves

    def __missing__(self, action) -> str:
        t = super().__missing__(action)
        if t not in self.moves:
            self.moves[t] = [action]
        return t


def _parsed(deck, n: int) -> tuple[dict, _Texts]:
    """The (moves, texts) pair of _PARSED for `deck` at `n` players."""
    by_n = _PARSED.setdefault(deck, {})
    pair = by_n.get(n)
    if pair is None:
        moves = {}
        pair = by_n[n] = (moves, _Texts(moves))
    return pair


class ReferenceEngine:
    """The reference interpreter behind the engine interface (the `reference` adapter)."""

    def __init__(self, spec: Spec | None = None, name: str = "durak-spec reference"):
        self.spec = spec if spec is not None else load_spec()
        self.name = name
        self.game: Game | None = None
        self._rulesets: dict = {}
        self._last: tuple | None = None  # (variant, a copy of it, ruleset) of the last start
        # the pair of _PARSED of the game being played
        self._moves: dict = {}
        self._texts: dict = _Texts(self._moves)
        self.match: Match | None = None  # the match of the current deal (protocol 1.1 "match")
        self._scored: dict | None = None
        self._first: int | None = None

    def hello(self) -> dict:
        lo, hi = self.spec.deck_data["players"]["min"], self.spec.deck_data["players"]["max"]
        return {"name": self.name, "version": __version__, "protocol": PROTOCOL_VERSION,
                "presets": list(self.spec.presets), "options": "any",
                "players": list(range(lo, hi + 1)),
                "levels": list(LEVELS), "positions": True, "step": True, "match": True,
                "action_kinds": sorted(CAPABILITIES)}

    def ruleset(self, variant: dict):
        last = self._last
        if last is not None and last[0] is variant and last[1] == variant:  # in process, unchanged
            return last[2]
        key = (variant["preset"], tuple(sorted((k, repr(v)) for k, v in
                                               (variant.get("options") or {}).items())))
        if key not in self._rulesets:
            self._rulesets[key] = self.spec.ruleset(variant["preset"], variant.get("options") or {})
        snapshot = {k: dict(v) if isinstance(v, dict) else v for k, v in variant.items()}
        self._last = (variant, snapshot, self._rulesets[key])
        return self._rulesets[key]

    def start(self, variant: dict, setup: dict) -> dict:
        rs = self.ruleset(variant)
        self.game = Game(rs, Setup.from_json(setup, rs.deck, rs.player_limits))
        self._moves, self._texts = _parsed(rs.deck, self.game.state.n)
        self.match, self._scored, self._first = None, None, self.game.state.attacker
        return {}

    def _match(self) -> Match:
        """The match the current game is the first deal of, until next_deal begins another."""
        if self.match is None:
            from durak_spec.reference_impl.match import Match  # only engines of matches

            rs, setup = self.game.ruleset, self.game.setup
            self.match = Match(rs, setup.players, first_dealer=setup.dealer)
            self.match._first_attacker = self._first
        return self.match

    def score(self) -> dict:
        if self._scored is None:
            if not self.game.is_terminal():
                raise DurakError("the deal is not over yet; a deal is scored once it has ended")
            self._scored = self._match().record(self.game).to_json()
        return dict(self._scored)

    def next_deal(self, setup: dict) -> dict:
        self.score()
        rs = self.game.ruleset
        cards = {k: setup[k] for k in ("hands", "talon", "trump", "hidden") if k in setup}
        self.game = self.match.start(Setup.from_json(cards, rs.deck, rs.player_limits))
        self._scored = None
        return {}

    def apply(self, action: str) -> dict:
        game = self.game
        try:
            moves = self._moves.get(action) if type(action) is str else None
            if moves is None:
                moves = move_actions(action, game)  # one action, or a multi-card opening
                if type(action) is str and len(moves) == 1:  # openings of several cards vary
                    self._moves[action] = moves
            if len(moves) == 1:
                game.apply_action(moves[0])
            else:
                apply_move(game, action)
        except IllegalAction as exc:
            return {"accepted": False, "rule": exc.rule_id, "reason": exc.reason}
        except DurakError as exc:
            return {"accepted": False, "reason": str(exc)}
        return {"accepted": True}

    def legal(self) -> dict:
        return {"actions": list(map(self._texts.__getitem__, self.game.legal_actions()))}

    def state(self) -> dict:
        return {"state": state_view(self.game)}

    def step(self, actions: list[str], state: bool = True, legal: bool = True) -> dict:
        cls = type(self)
        if cls.apply is not ReferenceEngine.apply or cls.legal is not ReferenceEngine.legal:
            return self._step_through(actions, state, legal)  # a subclass's own apply or legal
        # apply and legal as they are above, inline: the fuzzer asks for every action it plays
        game, moves_of, texts = self.game, self._moves, self._texts
        out = []
        for action in actions:
            moves = moves_of.get(action) if type(action) is str else None
            if moves is None or len(moves) != 1:
                verdict = self.apply(action)
                if not verdict["accepted"]:
                    out.append(verdict)
                    continue
            else:
                try:
                    game.apply_action(moves[0])
                except IllegalAction as exc:
                    out.append({"accepted": False, "rule": exc.rule_id, "reason": exc.reason})
                    continue
                except DurakError as exc:
                    out.append({"accepted": False, "reason": str(exc)})
                    continue
                if state and legal:  # the usual request: the entry made at once
                    listed = []
                    for a in game._legal:  # the game's own list (legal_actions copies it)
                        listed.append(texts[a])
                    out.append({"accepted": True, "state": protocol_state(game.state),
                                "legal": listed})
                    continue
                verdict = {"accepted": True}
            if state:
                verdict["state"] = protocol_state(game.state)
            if legal:  # the game's own list (legal_actions copies it): only read here
                verdict["legal"] = list(map(texts.__getitem__, game._legal))
            out.append(verdict)
        return {"steps": out}

    def _step_through(self, actions: list[str], state: bool, legal: bool) -> dict:
        """step through the methods apply and legal (a subclass may change what they answer)."""
        out = []
        apply, texts_now = self.apply, self.legal
        for action in actions:
            verdict = apply(action)
            if verdict["accepted"]:
                if state:
                    verdict["state"] = protocol_state(self.game.state)
                if legal:
                    verdict["legal"] = texts_now()["actions"]
            out.append(verdict)
        return {"steps": out}

    def stop(self) -> dict:
        self.game = None
        return {}

