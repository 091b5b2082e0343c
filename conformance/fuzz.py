"""Differential fuzzing campaigns: every distinct divergence of an engine, each shrunk to a case.

A campaign plays games in lockstep on the reference and the engine (lockstep.py) and collects
every divergence, deduplicated as AFL deduplicates crashes: by a signature (its kind, the rule
that decides it, the shape of the action), kept once with a count of occurrences and the shortest
witness seen, while the campaign goes on. Divergences already known (this campaign's, or an
accepted ledger given with `--known`) steer later games away so that deeper rules are reached.
The campaign also tracks which legality clauses were exercised on both sides of their edge
(coverage.py) and aims its probes at the rest.

Each distinct divergence is then shrunk, as creduce does, to the shortest setup that still
reproduces it on the engine: a mid-deal position just before the divergence when the engine
declares `positions`; otherwise a deal with the shortest prefix of actions found: the shortest
occurrence, restarted as a deal from the position at the start of its bout (the hands, talon and
trump of that moment, the attacker named, the discard and the seats out left out), the action at
stake moved earlier, short games from other deals, removal of chunks of the prefix that keep it
legal and still diverging, then of the cards the steps do not need. Every candidate is kept only
when the engine shows the same signature (kind and rule) on it, so any kind of divergence
(verdict, legal set, state field, error) shrinks. It is written as a conformance case that
`durak check` replays.

Witnesses are saved in a hypothesis example database, keyed by engine and variant: a directory
under the output folder by default, or a shared one (`redis://HOST:PORT/DB`, hypothesis's
Redis-backed database) so that campaigns on several processes or machines replay what the others
found first, as hypothesis replays its saved examples before generating new ones.
"""

from __future__ import annotations

import gc
import hashlib
import json
import random
import re
import shlex
import tempfile
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from durak_spec.conformance import fromdeal
from durak_spec.conformance.cases import parse_case, write_case
from durak_spec.conformance.coverage import ClauseCoverage
from durak_spec.conformance.lockstep import (
    Divergence,
    GameSkipped,
    Lockstep,
    observations,
    position_of,
    text_of,
)
from durak_spec.conformance.problems import (
    MAX_CANDIDATES,
    Evidence,
    advice_message,
    confirmed_advice,
)
from durak_spec.conformance.record import record_case
from durak_spec.conformance.runner import Result, Session
from durak_spec.conformance.transport import Adapter, AdapterError
from durak_spec.reference_impl.diagnose import Observation, action_group, named_apart
from durak_spec.reference_impl.diagnose import diagnose as counterfactual
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.model import rule_options
from durak_spec.reference_impl.simulate import STEP_LIMIT
from durak_spec.reference_impl.state import Action
from durak_spec.reference_impl.vocab import CARD_KINDS
from durak_spec.reference_impl.yamlio import InputError, load_file

SHRINK_TESTS = 400   # engine runs spent shrinking one divergence, at most
SEARCH_GAMES = 120   # short games from new deals tried for a shorter witness (without positions)
SHORT = 8            # a witness this short is not searched further
EARLIER_TESTS = 80   # engine runs spent moving a verdict's action earlier in its witness
EARLIER_LIKE = 3     # actions like the witness's last one tried after each prefix
BOUT_TRIES = 4       # bout starts of a witness tried as deals (without positions), latest first
CARD_TESTS = 24      # engine runs spent dropping cards from a shrunk deal
SYNC_EVERY = 50      # games between looks at a shared database for other workers' finds
YOUNG = 10_000       # allocations between collections of the youngest generation, in a campaign
CAUSES = 4           # earlier signatures replayed as agreed, at most, to settle what one follows
CONFIRM_GAMES = 10   # games played where the campaign did not look, to confirm one advice
CONFIRM_VALUES = 3   # other values of an advised option the engine is sent in them, at most
BEYOND_SHARE = 2     # a campaign's games / this: games played again beyond the causes it explained
SEED_EVERY = 10      # every this many games, a game starts from the generated boundary case of a
                     # clause side not reached yet (from a deal, for an engine without positions)


@dataclass
class Entry:
    """One distinct divergence of the campaign."""

    witness: Divergence          # the shortest occurrence (shrunk at the end)
    count: int = 1
    first_game: int = 0
    known: str | None = None     # the ledger's reason when the divergence is known
    replayed: bool = False       # first found by replaying a saved witness
    as_if: list = field(default_factory=list)  # option values under which the reference agrees
    case: dict | None = None
    case_path: Path | None = None
    found_length: int = 0        # the witness's length before shrinking
    # the signatures seen before every occurrence of this one, since the engine was last in sync
    # with the reference: the candidates of which it may be the consequence
    after: set = field(default_factory=set)
    # those of them whose differences, taken as agreed in a replay of the witness, make this one
    # disappear (Campaign.settle_follows): it is probably their consequence
    follows_from: list = field(default_factory=list)
    observed: list | None = None  # the witness as observations (diagnose), evidence for advice
    advice: dict | None = None    # the variant of as_if that every witness of the run confirms
    # other rules that explain an occurrence as well (the attribution's alternatives, and those
    # of the shrunk witness's diagnosis), and whether some occurrence was explained by its rule
    # alone: where the run shows one of those rules plainly and this one never, the divergence is
    # that rule's (group_causes)
    alternatives: list = field(default_factory=list)
    plain: bool = True
    renamed_from: str | None = None  # the campaign's rule, where an option's rule renamed it
    # of follows_from, those settled by replaying under the option values that explain them
    # (Campaign.settle_by_variant): signature -> those values
    explained: dict = field(default_factory=dict)
    # ... or under the one-place change of a clause that explains them where no option value does
    # (diagnose's `change`): signature -> {"rule": id, "clause": the changed clause}
    changed: dict = field(default_factory=dict)
    # the one-place change of a clause that its diagnosis found (Diagnosis.change), or None
    change: tuple | None = None
    beside: bool = False  # its advice was confirmed with another root cause's (_advise_beside)
    # the other signatures of the same root cause, joined to this one (group_causes): each with
    # its own witness, count and case
    forms: list = field(default_factory=list)
    # found beyond other causes (Campaign.beyond): what explains them (their advice's option
    # values, "rule R" -> a changed clause), as which the reference played the games that
    # reached it; its witness is under the variant itself
    beyond: dict | None = None
    # it follows from its follows_from only together: the reference played as all of them
    # explain it, at once, no longer shows it (Campaign.settle_beyond)
    together: bool = False

    @property
    def check(self) -> str:
        """What its witness compares (verdict, legal, state.<field>): what advice must reproduce
        at its own difference (problems.Evidence narrows the observation to it)."""
        return self.witness.check

    @property
    def total(self) -> int:
        """Occurrences of the root cause: this signature's and its other forms'."""
        return self.count + sum(f.count for f in self.forms)

    @property
    def follows(self) -> list:
        return list(self.follows_from)

    @property
    def signature(self) -> str:
        return self.witness.signature

    def to_json(self) -> dict:
        w = self.witness
        return {"signature": w.signature, "kind": w.kind, "rule": w.rule, "shape": w.shape,
                "status": "known" if self.known is not None else "new",
                "occurrences": self.count, "first_game": self.first_game,
                "replayed": self.replayed, "steps": len(w.steps), "found_steps": self.found_length,
                "from_position": _is_position(w.setup), "message": w.message,
                "diagnosis": w.diagnosis, "as_if": self.as_if, "advice": self.advice,
                "known": self.known,
                "follows": self.follows, "explained": self.explained, "changed": self.changed,
                "case": self.case["id"] if self.case else None,
                "case_path": str(self.case_path) if self.case_path else None,
                "beyond": self.beyond, "together": self.together,
                "forms": [{"signature": f.signature, "occurrences": f.count, "steps": len(f.witness.steps),
                           "message": f.witness.message, "follows": f.follows,
                           "case": f.case["id"] if f.case else None,
                           "case_path": str(f.case_path) if f.case_path else None}
                          for f in self.forms]}


def _is_position(setup: dict) -> bool:
    return any(k in setup for k in ("table", "defender", "taking", "passed", "out", "bout",
                                    "beaten_bouts", "discard"))


@dataclass
class FuzzResult:
    games: int = 0
    steps: int = 0
    seconds: float = 0.0
    skipped: int = 0
    skip_reasons: dict = field(default_factory=dict)  # the engine's reason -> deals it skipped
    played_at: dict = field(default_factory=dict)  # player count -> [games played, deals skipped]
    replayed: int = 0
    entries: list = field(default_factory=list)
    vanished: list = field(default_factory=list)   # known, not seen: (signature, reason, replayed)
    interrupted: bool = False
    coverage: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    played_forms: frozenset = frozenset()  # the variant's forms played as a named suit (texts)
    # games played again with the reference as the causes found explain them (Campaign.beyond):
    # how many, and as what (option values, and "rule R" -> a clause where no option explains R)
    beyond_games: int = 0
    beyond_as: dict = field(default_factory=dict)
    beyond_stopped: str = ""

    @property
    def new(self) -> list:
        return [e for e in self.entries if e.known is None]

    @property
    def never_played(self) -> list:
        """The player counts at which the engine skipped every deal dealt."""
        return sorted(n for n, (played, missed) in self.played_at.items() if missed and not played)

    @property
    def mostly_skipped(self) -> bool:
        """The engine skipped more of the deals dealt than it played, or every deal at a player
        count it was asked to play: the campaign tested too little (durak fuzz exits 3, as durak
        check does when most case runs were skipped)."""
        return self.skipped > self.games or bool(self.never_played)

    @property
    def found(self) -> Entry | None:
        """The first new divergence, if any."""
        return self.new[0] if self.new else None


# -- the known-divergences ledger -------------------------------------------------------------
KINDS = ("verdict-accepts", "verdict-rejects", "legal-extra", "legal-missing", "error")


def load_known(path, spec=None) -> dict[str, str]:
    """Read a ledger `known_divergences: {signature: reason}` (the signatures durak fuzz prints,
    KIND RULE, e.g. `legal-extra throw_in.timing`, or for an engine error `error` and what it
    answered with its message's digest, e.g. `error step-error#3f2a1c`; a third word, the shape
    of an action that older signatures carried, is ignored), naming the entry of any mistake."""
    try:
        data = load_file(path)
    except InputError as exc:
        raise AdapterError(str(exc)) from None
    entries = data.get("known_divergences") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise AdapterError(f"{path}: a known-divergences file is a mapping `known_divergences:` of "
                           "signature (as durak fuzz prints it: KIND RULE SHAPE) to a one-line reason")
    out = {}
    for key, reason in entries.items():
        words = key.split() if isinstance(key, str) else []
        if len(words) not in (2, 3) or not (words[0] in KINDS or words[0].startswith("state.")):
            raise AdapterError(f"{path}: known_divergences: {key!r} is not a signature "
                               f"KIND RULE (kinds: {', '.join(KINDS)}, state.FIELD), "
                               "e.g. 'verdict-accepts limits.cap'")
        if spec is not None and words[0] != "error" and words[1] != "-" and \
                words[1] not in spec.rules_by_id:
            raise AdapterError(f"{path}: known_divergences: {key!r} names no rule of the spec "
                               f"({words[1]})")
        if not isinstance(reason, str) or not reason.strip():
            raise AdapterError(f"{path}: known_divergences.{key}: give the reason in one line")
        out[f"{words[0]} {words[1]}"] = reason  # a third word (an action's shape) is not part of it
    return out


# -- the example database ------------------------------------------------------------------------
def open_database(where: str | None, out_dir: Path) -> ExampleDatabase:
    """A hypothesis example database: `redis://HOST:PORT/DB` for a shared one (needs the redis
    package), a folder path, or by default <out_dir>/.hypothesis."""
    if where and where.startswith(("redis://", "rediss://", "unix://")):
        try:
            import redis
            from hypothesis.extra.redis import RedisExampleDatabase
        except ImportError:
            raise AdapterError("--database redis://... needs the redis package: "
                               "pip install 'durak-spec[redis]'") from None
        client = redis.Redis.from_url(where)
        try:
            client.ping()
        except redis.exceptions.RedisError as exc:
            raise AdapterError(f"--database {where}: can't reach it: {exc}") from None
        return RedisExampleDatabase(client, key_prefix=b"durak-fuzz:")
    return DirectoryBasedExampleDatabase(str(Path(where) if where else out_dir / ".hypothesis"))


def campaign_key(adapter_name: str, preset: str, options: dict) -> bytes:
    text = f"durak fuzz|{adapter_name}|{preset}|{sorted(options.items())!r}"
    return hashlib.sha1(text.encode()).hexdigest()[:24].encode()


def _encode(div: Divergence) -> bytes:
    return json.dumps({"signature": div.signature, "players": div.players, "setup": div.setup,
                       "steps": div.steps}, sort_keys=True).encode()


# -- the campaign --------------------------------------------------------------------------------
class Campaign:
    def __init__(self, spec, adapter: Adapter, hello: dict, *, preset: str, options: dict,
                 players, seed_value: int, adapter_name: str, known: dict, db, db_key: bytes):
        self.spec, self.adapter, self.hello = spec, adapter, hello
        self.preset, self.options = preset, options
        self.adapter_name, self.seed_value = adapter_name, seed_value
        self.known, self.db, self.db_key = known, db, db_key
        self.entries: dict[str, Entry] = {}
        self.game = 0
        self.lock = Lockstep(spec, adapter, hello, preset, options, self._record)
        self.lock.wants = self._wants
        rs = self.lock.ruleset
        lo, hi = rs.player_limits
        declared = hello.get("players", range(lo, hi + 1))
        wanted = [players] if isinstance(players, int) else list(players or declared)
        self.players = [n for n in wanted if lo <= n <= hi and n in declared]
        self.coverage = self.lock.coverage = ClauseCoverage(rs, self.players or [2])
        self._reached: dict = {}  # (rule, side) -> its seed reached from a deal (fromdeal.Reached)
        self.saved: set = set()
        self.skipped = 0       # deals the engine skipped
        self.dealing = None    # the player count of the deal being played
        self.played_at: dict = {}  # player count -> games the engine played, deals it skipped
        self.replayed_signatures: set = set()
        self.replaying = False
        self.beyond_games, self.beyond_as = 0, {}  # Campaign.beyond: games played, and as what
        self.beyond_stopped = ""  # ... and why it stopped before its games, if it did
        self._beyond_causes: list = []  # ... and the entries whose explanations it played as
        for sig in known:
            kind, rule = sig.split()[:2]
            self.lock.known(Divergence(kind, rule, "", None, None, None, "", {}, [], 0))

    def _wants(self, sig: str, length: int, prior: frozenset, alternatives: tuple = ()) -> bool:
        """Count an occurrence; True when its witness is wanted (new, or shorter)."""
        entry = self.entries.get(sig)
        if entry is None:
            return True
        entry.count += 1
        entry.after &= prior
        entry.plain |= not alternatives
        entry.alternatives += [a for a in alternatives if a not in entry.alternatives]
        return length < entry.witness.length

    def _record(self, div: Divergence) -> None:
        entry = self.entries.get(div.signature)
        if entry is None:
            self.entries[div.signature] = Entry(div, first_game=self.game, replayed=self.replaying,
                                                known=self.known.get(div.signature),
                                                after=set(div.after),
                                                alternatives=list(div.alternatives),
                                                plain=not div.alternatives)
            self.lock.known(div)
            if self.db is not None:
                self._save(div)
        elif div.length < entry.witness.length:
            entry.witness = div

    def _save(self, div: Divergence) -> None:
        value = _encode(div)
        self.saved.add(value)
        self.db.save(self.db_key, value)

    def replay_saved(self) -> int:
        """Replay the witnesses saved in the database (ours from earlier runs, or other
        workers'), before any new game; returns how many were replayed."""
        if self.db is None:
            return 0
        n = 0
        for value in list(self.db.fetch(self.db_key)):
            if value in self.saved:
                continue
            self.saved.add(value)
            try:
                item = json.loads(value)
                self.replayed_signatures.add(item.get("signature"))
                setup = Setup.from_json(item["setup"], self.lock.ruleset.deck,
                                        self.lock.ruleset.player_limits)
                self.replaying = True
                self.lock.play(setup, random.Random(0), fixed=[s["do"] for s in item["steps"]])
            except (ValueError, KeyError, TypeError, DurakError, GameSkipped):
                continue  # a witness from another spec version, or a setup the engine skips
            finally:
                self.replaying = False
            n += 1
        return n

    def play_game(self, rng: random.Random) -> None:
        self.coverage.game = self.game
        if self.game % SEED_EVERY == SEED_EVERY - 1:
            for key in self.coverage.missing():
                seed = self._seed(key)
                if seed is None:
                    continue
                setup_json, actions = seed
                try:
                    rs = self.lock.ruleset
                    setup = Setup.from_json(setup_json, rs.deck, rs.player_limits)
                    self.lock.play(setup, rng, fixed=actions)
                    return
                except DurakError:
                    pass
                break
        # the next count after a skipped deal too: a count the engine skips every time does not
        # stop the campaign at it (it dealt only that count until ten times the games were skipped)
        dealt = self.game + self.skipped
        n = self.players[dealt % len(self.players)] if len(self.players) > 1 else self.players[0]
        self.dealing = n
        setup = Setup.deal(self.lock.ruleset, n, rng.randrange(2**31))
        self.coverage.game = self.game
        self.lock.play(setup, rng)

    def _seed(self, key) -> tuple | None:
        """The boundary case of a clause side as the engine can start it: its position when the
        engine takes positions, else the deal and prefix that reach it (conformance/fromdeal.py);
        None for a position no history reaches under the variant played (never sent) or, without
        positions, one the search did not reach."""
        seed = self.coverage.seeds.get(key)
        if seed is None:
            return None
        if key not in self._reached:
            setup_json, actions = seed
            self._reached[key] = fromdeal.reach(self.lock.ruleset, setup_json, actions)
        reached = self._reached[key]
        if reached.status == "unreachable":
            return None
        if self.lock.positions:
            return seed
        if reached.status != "found":
            return None
        return reached.setup, list(reached.prefix) + list(seed[1])

    # -- consequences ------------------------------------------------------------------------
    def settle_follows(self, entry: Entry) -> None:
        """Which earlier divergences this one follows from, by replay: its witness (the campaign's
        shortest occurrence, before shrinking) is played again on the engine with the differences
        of an earlier signature seen in it taken as agreed (the reference adopts the engine's view
        of those actions: Lockstep.agreed), each candidate alone (at most CAUSES of them), then
        all together; a candidate is kept when the divergence then no longer shows at its step.
        Co-occurrence alone proves nothing: a bug the engine shows at every step precedes every
        other one. At most CAUSES + 2 replays of one witness, with fixed steps: deterministic."""
        entry.follows_from = []
        w = entry.witness
        # the signatures seen before every occurrence first, then those seen before the witness
        # itself (a divergence seen once alone elsewhere still follows another in its witness)
        prior = list(entry.after) + [sig for sig in w.after if sig not in entry.after]
        if not prior:
            return
        self._scratch_coverage = ClauseCoverage(self.lock.ruleset)
        seen = self._occurrences(w.setup, w.steps)
        mine = [d for d in seen if d.signature == w.signature and d.length == w.length] or \
            [d for d in seen if d.kind == w.kind and d.length == w.length]
        if not mine:
            return  # not shown again: nothing to settle
        texts = set(mine[0].texts)
        earlier = [d for d in seen if d.length < w.length and d.signature in prior]
        candidates = sorted(dict.fromkeys(d.signature for d in earlier),
                            key=lambda sig: sig not in entry.after)[:CAUSES]

        def disappears(signatures: set) -> bool:
            extra = {t for d in earlier if d.signature in signatures and d.kind == "legal-extra"
                     for t in d.texts}
            missing = {t for d in earlier if d.signature in signatures and d.kind == "legal-missing"
                       for t in d.texts}
            if not extra and not missing:
                return False
            self.lock.agreed = (frozenset(extra), frozenset(missing))
            try:
                again = self._occurrences(w.setup, w.steps)
            finally:
                self.lock.agreed = None
            return not any(d.kind == w.kind and d.length == w.length and
                           (not texts or texts & set(d.texts)) for d in again)

        found = [sig for sig in candidates if disappears({sig})]
        if not found and len(candidates) > 1 and disappears(set(candidates)):
            found = candidates
        entry.follows_from = sorted(found)

    def settle_by_variant(self, entry: Entry, w: Divergence, entries: list) -> None:
        """Which earlier divergence this one follows from, where taking the earlier one's
        differences as agreed cannot say it: a state the engine reaches (a bout it keeps open, a
        table it ends early) follows from no action of the step, but from what the engine allowed
        or refused before. Its witness `w` (the campaign's shortest, before shrinking) is played
        again with the reference under what explains an earlier signature seen in it: that
        entry's confirmed advice, else its diagnosis's first variant, else, where no option value
        explains it, the spec with the one-place change of a clause its diagnosis found
        (Diagnosis.change: the reference then lists what the engine listed there); the engine is
        still sent the campaign's variant. The earlier one is kept when this divergence then no
        longer shows at its step, neither does the earlier one, and no other appears before it.
        A divergence not seen in the witness is tried too when its advice is confirmed by the
        run: the house rule the engine plays also shows as a state with no difference before it
        (an engine that bounds no attack by the defender's hand keeps a taken bout open). At most
        CAUSES + 1 replays of one witness, with fixed steps: deterministic."""
        if entry.follows_from or entry.known is not None:
            return
        by_sig = {e.signature: e for e in entries if e is not entry and e.known is None}
        prior = list(dict.fromkeys(list(entry.after) + list(w.after)))
        candidates = [by_sig[sig] for sig in prior if sig in by_sig and
                      (by_sig[sig].advice or by_sig[sig].as_if or by_sig[sig].change)]
        candidates += [e for e in by_sig.values() if e.advice and e.signature not in prior and
                       e.witness.rule != w.rule]
        candidates = candidates[:CAUSES]
        if not candidates:
            return
        self._scratch_coverage = ClauseCoverage(self.lock.ruleset)
        before = self._shown_again(w)
        if before is None:
            return  # not shown again: nothing to settle
        found = []
        for cause in candidates:
            change = cause.advice or (cause.as_if[0] if cause.as_if else None)
            try:
                variant = self.spec.ruleset(self.preset, {**self.options, **change}) if change \
                    else self._changed_ruleset(*cause.change)
            except DurakError:
                continue
            if not self._gone_under(w, variant, before, cause.signature):
                continue
            found.append(cause.signature)
            if change:
                entry.explained[cause.signature] = change
            else:
                entry.changed[cause.signature] = {"rule": cause.change[0],
                                                  "clause": cause.change[1]}
        entry.follows_from = sorted(found)

    def _shown_again(self, w: Divergence) -> set | None:
        """The signatures witness `w` shows played again, or None where it does not show itself."""
        seen = self._occurrences(w.setup, w.steps)
        if not any(d.kind == w.kind and d.length == w.length for d in seen):
            return None
        return {d.signature for d in seen}

    def _gone_under(self, w: Divergence, ruleset, before: set, cause: str | None = None) -> bool:
        """Whether `w`, played again with the reference under `ruleset`, no longer shows, and
        neither `cause` nor any signature not in `before` shows up to its step."""
        again = self._occurrences(w.setup, w.steps, ruleset=ruleset)
        shown = {d.signature for d in again if d.length <= w.length}
        return not (any(d.kind == w.kind and d.length == w.length for d in again)
                    or cause in shown or shown - before)

    def _changed_ruleset(self, rule_id: str, clause: str):
        """The campaign's variant compiled from the spec with the clause of `rule_id` replaced
        by `clause` (a one-place change diagnose found), once per change."""
        cache = self.__dict__.setdefault("_changed", {})
        key = (rule_id, clause)
        if key not in cache:
            cache[key] = self.spec.with_clause(rule_id, clause).ruleset(self.preset, self.options)
        return cache[key]

    # -- advice ------------------------------------------------------------------------------
    def plays_as(self, change: dict, others: set) -> bool:
        """Whether the engine plays as the reference under the campaign's variant changed by
        `change` where the campaign did not look: the evidence (confirm_advice) holds only steps
        the campaign's variant reaches, and two values of an option may part only beyond them (a
        defender left with no card, where no bound of the hand at the start of the bout lets a
        game go). CONFIRM_GAMES random games from new deals in lockstep with the reference under
        the changed variant, the engine sent the campaign's variant, then as many with each
        option of `change` sent at another of its values (at most CONFIRM_VALUES): a house rule is
        what the engine plays whatever it is sent, as durak check sees it run under every
        preset's value; an engine that plays another value where it is sent one reads the option,
        and what it plays under the campaign's is a bug of it (no_hand_bound frees only the bound
        of the hand at the start of the bout). A divergence under a rule of another root cause
        (`others`: their rules and the rules that explain them as well, not this one's: a trump
        that beats no plain card shows as defence.target too) or an engine error refutes
        nothing. Deterministic: the games' seeds come from
        the campaign's seed and the change."""
        key = (tuple(sorted((k, repr(v)) for k, v in change.items())), frozenset(others))
        cache = self.__dict__.setdefault("_plays_as", {})
        if key in cache:
            return cache[key]
        base = dict(self.lock.variant["options"])
        try:
            reference = self.spec.ruleset(self.preset, {**self.options, **change})
        except DurakError:
            cache[key] = False
            return False
        sends = [base]
        for option, value in change.items():
            known = self.spec.options.get(option)
            values = [v for v in (known.values if known is not None else [])
                      if v != value and v != base.get(option)]
            for other in values[:CONFIRM_VALUES]:
                try:
                    self.spec.ruleset(self.preset, {**self.options, option: other})
                except DurakError:
                    continue
                sends.append({**base, option: other})
        rng = random.Random(f"{self.seed_value} {key[0]}")
        self._scratch_coverage = ClauseCoverage(reference, self.players)
        plays = True
        for sent in sends:
            for game in range(CONFIRM_GAMES):
                n = self.players[game % len(self.players)]
                try:
                    setup = Setup.deal(reference, n, rng.randrange(2**31)).to_json()
                except DurakError:
                    continue
                seen = self._occurrences(setup, None, random.Random(rng.getrandbits(64)),
                                         limit=STEP_LIMIT, ruleset=reference, sent=sent)
                if any(d.kind != "error" and d.rule not in others for d in seen):
                    plays = False
                    break
            if not plays:
                break
        cache[key] = plays
        return plays

    # -- beyond the causes found ---------------------------------------------------------------
    def beyond(self, entries: list, games: int) -> list[Entry]:
        """Divergences that other causes hide. An engine with a bug that shows in most bouts (a
        throw-in rule of its own, say) ends every game the campaign plays early: the reference
        and the engine part, and a bug that shows only later in a deal (who goes out at the draw,
        who is the fool) is never reached. Where the run confirmed advice for its causes (the
        engine plays as if X = Y), play `games` more games with the reference under those values,
        which the engine then plays alike, and wherever it still diverges, take the reference's
        position before that step under the variant itself: a divergence the engine shows there
        too, from that position (or from a deal and prefix that reach it, for an engine without
        positions), is a cause of its own, with a witness under the variant like any other. Its
        entry says which advice the games were played under (Entry.beyond)."""
        causes = [e for e in entries if e.advice or e.change is not None]
        masked = self._explained_by(causes)
        if masked is None or games <= 0:
            return []
        masked, change, clauses = masked
        known = set(self.entries)
        self.beyond_games, self.beyond_as = games, {**change, **{
            f"rule {rule_id}": clause for rule_id, clause in clauses.items()}}
        self._beyond_causes = causes
        rng = random.Random(f"{self.seed_value} beyond {sorted(self.beyond_as.items())}")
        self._scratch_coverage = ClauseCoverage(masked, self.players)
        new: list[Entry] = []
        for game in range(games):
            n = self.players[game % len(self.players)]
            try:
                setup = Setup.deal(masked, n, rng.randrange(2**31)).to_json()
            except DurakError:
                continue
            try:
                seen = self._occurrences(setup, None, random.Random(rng.getrandbits(64)),
                                         limit=STEP_LIMIT, ruleset=masked)
            except (RuntimeError, DurakError) as exc:  # the variant so changed cannot be played
                self.beyond_games = game
                self.beyond_stopped = f"the reference could not play as they explain: {exc}"
                break
            for d in seen:
                if d.kind == "error" or d.signature in known:
                    continue
                known.add(d.signature)  # one try per signature: the first witness reached
                w = self._under_variant(d, masked)
                if w is not None and w.signature not in self.entries:
                    entry = Entry(w, first_game=self.game, known=self.known.get(w.signature),
                                  after=set(), alternatives=list(w.alternatives),
                                  plain=not w.alternatives, beyond=dict(self.beyond_as))
                    self.entries[w.signature] = entry
                    new.append(entry)
        return new

    def _explained_by(self, causes: list):
        """(the campaign's variant played as every one of `causes` explains it: its confirmed
        advice's option values, else where no option explains it the one-place change of a clause
        its diagnosis found; those values; those clauses by rule), or None where none explains
        any or two explain one option or rule otherwise."""
        change: dict = {}
        clauses: dict = {}
        for e in causes:
            for option, value in (e.advice or {}).items():
                if change.setdefault(option, value) != value:  # two causes, two values: neither
                    return None
            if not e.advice and e.change is not None:
                if clauses.setdefault(e.change[0], e.change[1]) != e.change[1]:
                    return None
        if not (change or clauses):
            return None
        try:
            spec = self.spec
            for rule_id, clause in clauses.items():
                spec = spec.with_clause(rule_id, clause)
            return spec.ruleset(self.preset, {**self.options, **change}), change, clauses
        except DurakError:
            return None

    def settle_beyond(self, new: list, entries: list) -> None:
        """A divergence found beyond other causes may show only where two of them meet (a
        throw-in the engine refuses and a bound of the hand it does not keep, which alone each
        play as the variant there): its witness is played again with the reference as every
        other cause explains it, all at once (the causes the games were played as, and the other
        divergences found beyond them); where it then no longer shows, and nothing else does
        before it, it follows from them together (Entry.together). One that follows from one
        cause alone is found first, as settle_by_variant finds it."""
        for entry in new:
            if entry.known is None and not entry.follows_from:  # one cause alone, first
                self.settle_by_variant(entry, entry.witness, entries)
            if entry.follows_from or entry.known is not None:
                continue
            causes = self._beyond_causes + [e for e in new if e is not entry and
                                            (e.advice or e.change is not None)]
            combined = self._explained_by(causes)
            if combined is None:
                continue
            w = entry.witness
            self._scratch_coverage = ClauseCoverage(self.lock.ruleset)
            before = self._shown_again(w)
            if before is None:
                continue
            try:
                if not self._gone_under(w, combined[0], before):
                    continue
            except (RuntimeError, DurakError):  # the variant so changed cannot play it: unsettled
                continue
            by_rule: dict = {}  # one signature per cause's rule: its most frequent
            for e in sorted(causes, key=lambda e: (-e.count, e.signature)):
                by_rule.setdefault(e.witness.rule, e.signature)
            entry.follows_from = sorted(by_rule.values())
            entry.together = True

    def _under_variant(self, d: Divergence, masked) -> Divergence | None:
        """The divergence `d`, seen with the reference under `masked`, shown by the engine under
        the campaign's variant: from the position before its last step (the variant's own rules
        from there on), else None."""
        try:
            setup = Setup.from_json(d.setup, masked.deck, masked.player_limits)
            g = Game(masked, setup)
            for step in d.steps[:-1]:
                if step["expect"] == "accept":
                    g.apply_action(g.parse_action(step["do"]))
        except (DurakError, RuntimeError):
            return None
        position = position_of(g) if g.state.steps or setup.is_position else setup
        if position is None:
            return None
        steps = list(d.steps[-1:])
        start = position.to_json()
        if not self.lock.positions and position.is_position:
            reached = fromdeal.reach(self.lock.ruleset, start, [s["do"] for s in steps])
            if reached.status != "found":
                return None
            start = reached.setup
            steps = [{"do": a, "expect": "accept"} for a in reached.prefix] + steps
        self._scratch_coverage = ClauseCoverage(self.lock.ruleset, self.players)
        return self._reproduces(d.signature, start, steps)

    # -- shrinking ---------------------------------------------------------------------------
    def _occurrences(self, setup_json: dict, steps: list | None, rng=None,
                     limit: int | None = None, ruleset=None, sent: dict | None = None
                     ) -> list[Divergence]:
        """The divergences the engine shows when the witness (setup, steps) is played again, or
        in a random game of at most `limit` steps from the setup (`steps` None); with the
        reference under `ruleset` instead of the campaign's (the engine is sent the campaign's
        variant all the same, or the options `sent`). What the engine agreed on under another
        ruleset is no evidence of the campaign's (Lockstep.observed)."""
        found: list[Divergence] = []
        lock = self.lock
        saved = (lock.on_divergence, lock.coverage, lock.wants, lock._sampled, lock.avoid_probe,
                 lock.avoid_after, lock.run, lock.since_sync, lock.pending, lock.ruleset,
                 lock.variant, lock.observed, lock._observing, lock._current, lock._segments,
                 lock._stride)
        if ruleset is not None:
            lock.ruleset = ruleset
            lock.observed, lock._observing, lock._current = [], None, None
        if sent is not None:
            lock.variant = {**lock.variant, "options": sent}
        lock.on_divergence, lock.coverage = found.append, self._scratch_coverage
        starts = len(lock.starts)  # a replay's starts are no campaign's evidence
        lock._sampled, lock.avoid_probe, lock.avoid_after = {}, set(), set()
        self.lock.wants = lambda sig, length, prior, alternatives=(): True
        steps_before = self.lock.steps
        try:
            setup = Setup.from_json(setup_json, self.lock.ruleset.deck,
                                    self.lock.ruleset.player_limits)
            if steps is None:
                self.lock.play(setup, rng, limit=limit)
            else:
                self.lock.play(setup, random.Random(0), fixed=[s["do"] for s in steps])
        except (DurakError, GameSkipped):
            return []
        finally:
            (lock.on_divergence, lock.coverage, lock.wants, lock._sampled, lock.avoid_probe,
             lock.avoid_after, lock.run, lock.since_sync, lock.pending, lock.ruleset,
             lock.variant, lock.observed, lock._observing, lock._current, lock._segments,
             lock._stride) = saved
            del lock.starts[starts:]
            self.lock.steps = steps_before
        return found

    def _reproduces(self, sig: str, setup_json: dict, steps: list) -> Divergence | None:
        """The shortest witness of `sig` among the divergences the candidate shows."""
        hits = [d for d in self._occurrences(setup_json, steps) if d.signature == sig]
        return min(hits, key=lambda d: d.length) if hits else None

    def shrink(self, entry: Entry) -> None:
        self._scratch_coverage = ClauseCoverage(self.lock.ruleset)
        w = entry.witness
        entry.found_length = w.length
        sig = w.signature
        budget = [SHRINK_TESTS]

        def test(setup_json, steps):
            if budget[0] <= 0:
                return None
            budget[0] -= 1
            return self._reproduces(sig, setup_json, steps)

        again = test(w.setup, w.steps)
        if again is None:  # not reproducible (a flaky engine): keep what was seen
            return
        w = _keep(w, again)
        if w.kind == "error" and len(w.steps) > 1:
            w = self._cut_after_error(w, test)
        if self.lock.positions and w.steps:
            w = self._from_position(w, test)
        if not self.lock.positions and len(w.steps) > 1:
            w = self._from_bout_start(w, test)
        if not self.lock.positions and w.kind.startswith("verdict") and len(w.steps) > 1:
            w = self._earlier(w, test)
        if not self.lock.positions and len(w.steps) > SHORT:
            w = self._search_deals(w)
        if len(w.steps) > 1:
            w = self._reduce_prefix(w, test)
        if not _is_position(w.setup):
            before = w.setup
            w = self._fewer_cards(w, test)
            # with fewer cards in the other hands a bout may end by itself where it went on:
            # the earlier bouts' steps can then go, with their cards
            if len(w.steps) > 1 and w.setup != before:
                w = self._fewer_cards(self._reduce_prefix(w, test), test)
        entry.witness = w

    def _cut_after_error(self, w: Divergence, test) -> Divergence:
        """The shortest prefix of the steps that still shows the engine error, by bisection: an
        error answered to a whole stretch does not say at which of its actions it arose, and the
        other passes of the shrinker keep the witness's last step."""
        lo, hi = 1, len(w.steps)  # the first `hi` steps show it
        while lo < hi:
            mid = (lo + hi) // 2
            got = test(w.setup, w.steps[:mid])
            if got is not None:
                w, hi = _keep(w, got, force=True), min(mid, len(got.steps))
            else:
                lo = mid + 1
        return w

    def _from_bout_start(self, w: Divergence, test) -> Divergence:
        """Start from a deal that is the reference's position at the start of a bout of the
        witness, the latest bout first (the bout of the divergence, then the ones before): the
        hands, talon and trump of that moment with its attacker named, the cards already
        discarded out of play and the seats already out left out of the deal."""
        rs = self.lock.ruleset
        game = Game(rs, Setup.from_json(w.setup, rs.deck, rs.player_limits))
        starts = []   # (deal, steps from there), the latest BOUT_TRIES bout starts
        for k, s in enumerate(w.steps):
            if k and not game.state.table and not game.state.taking:
                found = _deal_of(game, w.steps[k:])
                if found is not None:
                    starts = (starts + [found])[-BOUT_TRIES:]
            try:
                game.apply_action(game.parse_action(s["do"]))
            except DurakError:
                break
        for setup, steps in reversed(starts):
            if not _agrees(rs, setup, steps):
                continue
            got = test(setup.to_json(), steps)
            if got is not None:
                return _keep(w, got, force=got.length <= w.length)
        return w

    def _fewer_cards(self, w: Divergence, test) -> Divergence:
        """The deal with as few cards as still show the divergence: the talon dropped (the
        turned-up trump stays the trump), then the cards of the hands no step names, in halves
        as ddmin removes them."""
        rs = self.lock.ruleset
        setup = Setup.from_json(w.setup, rs.deck, rs.player_limits)
        if setup.is_position:
            return w
        named = {word for s in w.steps for word in s["do"].split()[2:]}
        tries = [CARD_TESTS]

        def attempt(hands, talon) -> bool:
            nonlocal w, setup
            if tries[0] <= 0 or any(not h for h in hands):
                return False
            tries[0] -= 1
            cand = Setup(hands, talon, setup.trump, setup.dealer, setup.attacker)
            if not _agrees(rs, cand, w.steps, setup):
                return False
            got = test(cand.to_json(), w.steps)
            if got is None or got.length > w.length:
                return False
            w, setup = _keep(w, got, force=True), cand
            return True

        if setup.talon:
            attempt([list(h) for h in setup.hands], [])
        spare = [(i, c) for i, h in enumerate(setup.hands) for c in h if c.text not in named]
        n = 1
        while spare and tries[0] > 0:
            chunk = -(-len(spare) // n)
            for i in range(0, len(spare), chunk):
                drop = set(spare[i:i + chunk])
                hands = [[c for c in h if (seat, c) not in drop] for seat, h in enumerate(setup.hands)]
                if attempt(hands, list(setup.talon)):
                    spare = spare[:i] + spare[i + chunk:]
                    n = max(n - 1, 1)
                    break
            else:
                if chunk == 1:
                    break
                n = min(len(spare), n * 2)
        return w

    def _earlier(self, w: Divergence, test) -> Divergence:
        """The shortest prefix of the witness after which an action like its last one (of the
        same kind, and refused by the same rule when the engine accepts what the reference
        refuses) shows the divergence: the last action moved as early as it can go, as a
        reducer tries to hoist the statement that crashes."""
        rs = self.lock.ruleset
        game = Game(rs, Setup.from_json(w.setup, rs.deck, rs.player_limits))
        last = w.steps[-1]
        expect = last["expect"]
        kind = w.shape
        tries = EARLIER_TESTS
        for k in range(len(w.steps) - 1):
            if game.is_terminal() or tries <= 0:
                break
            for text in self._like(game, last["do"], kind, w.rule if expect == "reject" else None):
                tries -= 1
                got = test(w.setup, w.steps[:k] + [{"do": text, "expect": expect}])
                if got is not None:
                    return _keep(w, got)
            try:
                game.apply_action(game.parse_action(w.steps[k]["do"]))
            except DurakError:
                break
        return w

    @staticmethod
    def _like(game: Game, text: str, kind: str, refused_by: str | None) -> list[str]:
        """Up to EARLIER_LIKE actions of `kind` now: refused by the rule `refused_by`, or allowed
        when it is None; the witness's own action first."""
        s = game.state
        legal = game.legal_actions()
        if refused_by is None:
            pool = [a for a in legal if a.kind == kind]
        else:
            pool = []
            targets = [t for t, d in s.table if d is None] or [None]
            for seat in range(s.n):
                if kind in CARD_KINDS:
                    for card in s.hands[seat]:
                        for target in (targets if kind == "cover" else [None]):
                            pool.append(Action(kind, seat, card, target))
                else:
                    pool.append(Action(kind, seat))
            pool = [a for a in pool if game.explain(a)[0] == refused_by]
        texts = [text_of(a) for a in pool]
        if text in texts:
            texts.remove(text)
            texts.insert(0, text)
        return texts[:EARLIER_LIKE]

    def _search_deals(self, w: Divergence) -> Divergence:
        """Short games from new deals, each cut at the current witness's length: the shortest
        prefix on any deal that still shows the divergence (as csmith's users search for a small
        program before reducing it)."""
        rng = random.Random(f"{self.seed_value} {w.signature}")
        for _ in range(SEARCH_GAMES):
            if len(w.steps) <= SHORT:
                break
            setup = Setup.deal(self.lock.ruleset, w.players, rng.randrange(2**31))
            found = self._occurrences(setup.to_json(), None, rng, len(w.steps) - 1)
            hits = [d for d in found if d.signature == w.signature and d.length < w.length]
            if hits:
                w = min(hits, key=lambda d: d.length)
        return w

    def _from_position(self, w: Divergence, test) -> Divergence:
        """Start from the reference's position just before the divergence (further back when
        the engine shows it only after more steps)."""
        rs = self.lock.ruleset
        game = Game(rs, Setup.from_json(w.setup, rs.deck, rs.player_limits))
        positions = [position_of(game)]
        for s in w.steps[:-1]:
            game.apply_action(game.parse_action(s["do"]))
            positions.append(position_of(game))
        for back in range(1, len(w.steps) + 1):
            at = len(w.steps) - back
            pos = positions[at]
            if pos is None or at == 0:
                continue
            got = test(pos.to_json(), w.steps[at:])
            if got is not None:
                return _keep(w, got, force=True)
            if back >= 4:
                break
        return w

    def _reduce_prefix(self, w: Divergence, test) -> Divergence:
        """ddmin over the steps before the last: drop chunks that leave a sequence the
        reference plays with the same verdicts and that still shows the divergence. From a deal,
        the cards the dropped steps play leave the hands with them when the rest needs it (an
        attack and its cover dropped together, say)."""
        rs = self.lock.ruleset
        w = self._drop_cards_played(w, test)
        prefix = w.steps[:-1]
        n = 2
        while prefix:
            chunk = max(1, -(-len(prefix) // n))
            for i in range(0, len(prefix), chunk):
                steps = prefix[:i] + prefix[i + chunk:] + w.steps[-1:]
                got = None
                for setup, steps in _setups_for(rs, w.setup, prefix[i:i + chunk], steps):
                    got = test(setup, steps)
                    if got is not None:
                        break
                if got is not None:
                    w = _keep(w, got)
                    prefix = w.steps[:-1]
                    n = max(n - 1, 2)
                    break
            else:
                if chunk == 1:
                    break
                n = min(len(prefix), n * 2)
        return w

    def _drop_cards_played(self, w: Divergence, test) -> Divergence:
        """Drop, one card at a time, every step before the last that names a card (its attack
        or throw and the cover of it, which need not be next to each other), the cards with
        them from a deal."""
        rs = self.lock.ruleset
        i = 0
        while i < len(w.steps) - 1:
            words = w.steps[i]["do"].split()
            cards = set(words[2:3]) if len(words) > 2 else set()
            group = [s for s in w.steps[:-1] if cards & set(s["do"].split()[2:])]
            i += 1
            if not group:
                continue
            steps = [s for s in w.steps[:-1] if s not in group] + w.steps[-1:]
            for setup, steps in _setups_for(rs, w.setup, group, steps):
                got = test(setup, steps)
                if got is not None:
                    w, i = _keep(w, got), 0
                    break
        return w

    def diagnose(self, entry: Entry, budget: float) -> None:
        """The counterfactual diagnosis of the shrunk witness: "plays as if X = Y" or "no option
        explains this: rule R" (reference_impl/diagnose.py)."""
        w = entry.witness
        obs = [Observation(s["do"], s["expect"] == "accept") for s in w.steps]
        last = w.steps[-1]["do"] if w.steps else None
        if w.kind == "verdict-accepts":
            obs[-1] = Observation(last, True)
        elif w.kind == "verdict-rejects":
            obs[-1] = Observation(last, False)
        elif w.kind.startswith("state."):
            field_name = w.kind[6:]
            state = {field_name: w.have}
            if w.finished is not None:  # the game goes on there, by the engine's account
                state["finished"] = w.finished
            # where the bout is over on one side only, what the engine still allows there
            seen = Observation(last, True, state=state, legal=w.listed)
            obs = obs[:-1] + [seen] if w.steps else [seen]
        elif w.kind.startswith("legal") and isinstance(w.have, list):
            seen = Observation(last, True, legal=self._completed(w))
            obs = obs[:-1] + [seen] if w.steps else [seen]
        else:
            return
        if w.besides_of:
            # a rule the observation breaks besides another's (diagnose's `besides`): the
            # diagnosis names the other, whose divergence this one stands beside; no option
            # explains this one, as durak check says it (runner._besides)
            w.diagnosis = advice_message(None, w.rule)
            entry.observed = obs
            return
        try:
            found = counterfactual(self.lock.ruleset, w.setup, obs, budget=budget)
        except (DurakError, KeyError, ValueError):
            return
        w.diagnosis = found.message()
        entry.as_if = list(found.as_if)
        entry.change = tuple(found.change) if found.change else None
        entry.alternatives += [a for a in found.alternatives + found.larger
                               if a != found.rule and a not in entry.alternatives]
        entry.observed = obs
        if not w.rule and found.rule or found.as_if and entry.known is None and \
                _reads(self.spec, found.rule, found.as_if[0]):
            # where an option value explains the witness, the rule that reads it decides, as in
            # check (the campaign's rule was sampled, one step at a time)
            if w.rule and w.rule != found.rule:
                entry.renamed_from = w.rule
            w.rule = found.rule

    def _completed(self, w: Divergence) -> list:
        """The engine's legal set in a legal-set witness, with the reference's actions that its
        action model cannot express added (Lockstep._completed): what the diagnosis compares.
        Only the differences of this divergence's groups of kinds (diagnose.kind_group) are kept,
        the rest as the reference lists them: the same set may show another bug, which is
        another divergence (the covers a trump no longer beats beside a card added too early)."""
        have = set(w.have)
        mine = _own_groups(w, {f.text for f in self.lock.ruleset.played_forms})
        if mine is not None:
            have = {t for t in w.want if not mine(t)} | {t for t in have if mine(t)}
        if self.lock.model.canonical:
            return sorted(have)
        rs = self.lock.ruleset
        try:
            game = Game(rs, Setup.from_json(w.setup, rs.deck, rs.player_limits))
            for s in w.steps:
                if s["expect"] == "accept":
                    game.apply_action(game.parse_action(s["do"]))
        except (DurakError, ValueError, KeyError):
            return sorted(have)
        return sorted(self.lock._completed(game, have))

    # -- output ------------------------------------------------------------------------------
    def write_case(self, entry: Entry, out_dir: Path) -> None:
        entry.case = found_case(self.spec, entry.witness, self.preset, self.options,
                                self.adapter_name, self.seed_value)
        entry.case_path = write_case(entry.case, self.spec, out_dir)


def _own_groups(w: Divergence, offered=frozenset()):
    """For a legal-set divergence, a test of whether an action's text is of one of the groups
    (diagnose.group_of: its kind's, a play as a named suit apart) its own differences are of;
    None when it names none. `offered`: the texts of the forms the variant offers
    (Ruleset.played_forms), which stay with their kind."""
    if not (w.kind.startswith("legal") and w.texts and isinstance(w.want, list)
            and isinstance(w.have, list)):
        return None
    ref = set(w.want)

    def group(text: str) -> tuple:
        return action_group(text, named_apart(text, ref, offered))
    ours = {group(t) for t in w.texts if len(t.split()) > 1}

    def mine(text: str) -> bool:
        return len(str(text).split()) > 1 and group(str(text)) in ours
    return mine


def _reads(spec, rule_id: str | None, options: dict) -> bool:
    """Whether the rule reads one of the options (a rule the counterfactual found them by)."""
    rule = spec.rules_by_id.get(rule_id) if rule_id else None
    return rule is not None and bool(set(options) & set(rule_options(spec, rule)))


def _keep(old: Divergence, new: Divergence, force: bool = False) -> Divergence:
    """The shorter of two witnesses, keeping the first one's facts (rule, diagnosis)."""
    if force or new.length < old.length or (new.length == old.length and old.steps != new.steps):
        return new
    return old


def _deal_of(game: Game, steps: list):
    """The reference's position at the start of a bout as a deal, with the steps from there
    renumbered for it: (setup, steps), or None when a deal cannot say it (a seat out with
    fewer seats than the variant plays, a hand empty)."""
    s, rs = game.state, game.ruleset
    live = [i for i in range(s.n) if not s.out[i]]
    seat = {old: new for new, old in enumerate(live)}
    if len(live) < rs.player_limits[0] or s.attacker not in seat or s.defender not in seat or \
            any(not s.hands[i] for i in live):
        return None
    dealer = seat.get(s.dealer, (seat[s.attacker] - 1) % len(live))
    setup = Setup([list(s.hands[i]) for i in live], list(s.talon), s.trump_card, dealer,
                  seat[s.attacker], hidden=s.hidden_card)
    try:
        setup.validate(rs.deck, rs.player_limits)
    except DurakError:
        return None
    moved = []
    for step in steps:
        words = step["do"].split()
        if not words or not words[0].isdigit() or int(words[0]) not in seat:
            return None
        moved.append({**step, "do": " ".join([str(seat[int(words[0])])] + words[1:])})
    return setup, moved


def _setups_for(rs, setup_json: dict, dropped: list, steps: list):
    """The (setup as JSON, steps) from which the reference plays `steps` with their verdicts once
    `dropped` are left out: the witness's own setup, and, from a deal, the deal without the cards
    only the dropped steps play; where a dropped step leaves a card's action illegal as written
    but the same seat may lay the same card otherwise (an attack on the table a dropped bout
    left empty, not a throw), the steps so respelled."""
    setup = Setup.from_json(setup_json, rs.deck, rs.player_limits)
    setups = [(setup, setup_json, None)]
    if not setup.is_position:
        kept = {word for s in steps for word in s["do"].split()[2:]}
        gone = {word for s in dropped for word in s["do"].split()[2:]} - kept
        hands = [[c for c in h if c.text not in gone] for h in setup.hands]
        if hands != setup.hands and all(hands):
            smaller = Setup(hands, list(setup.talon), setup.trump, setup.dealer, setup.attacker)
            setups.append((smaller, smaller.to_json(), setup))
    for cand, as_json, roles in setups:
        if _agrees(rs, cand, steps, roles):
            yield as_json, steps
            continue
        respelled = _respelled(rs, cand, steps)
        if respelled is not None and _agrees(rs, cand, respelled, roles):
            yield as_json, respelled


def _respelled(rs, setup: Setup, steps: list) -> list | None:
    """`steps` with each accepted action the reference refuses replaced by the one action it
    allows the same seat with the same card and target (another kind), or None where there is
    none such or nothing changes."""
    out, changed = [], False
    try:
        g = Game(rs, setup)
        for s in steps:
            a = g.parse_action(s["do"])
            if s["expect"] == "accept" and g.explain(a)[0]:
                alike = [b for b in g.legal_actions() if (b.seat, b.card, b.target) ==
                         (a.seat, a.card, a.target) and b.kind != a.kind and a.card is not None]
                if len(alike) != 1:
                    return None
                a, s, changed = alike[0], {**s, "do": text_of(alike[0])}, True
            if s["expect"] == "accept":
                g.apply_action(a)
            out.append(s)
    except (DurakError, RuntimeError):
        return None
    return out if changed else None


def _agrees(rs, setup: Setup, steps: list, roles: Setup | None = None) -> bool:
    """The reference plays `steps` from `setup` with the verdicts they expect (and, given
    `roles`, with its attacker and defender)."""
    try:
        g = Game(rs, setup)
        if roles is not None:
            before = Game(rs, roles)
            if (g.state.attacker, g.state.defender) != (before.state.attacker,
                                                        before.state.defender):
                return False
        for s in steps:
            a = g.parse_action(s["do"])
            refused = bool(g.explain(a)[0])
            if refused != (s["expect"] == "reject"):
                return False
            if not refused:
                g.apply_action(a)
    except (DurakError, RuntimeError):
        return False
    return True


def fuzz(spec, adapter: Adapter, hello: dict, *, preset: str, options: dict | None = None,
         players=None, games: int = 100, seed_value: int = 0, out_dir: Path | None = None,
         adapter_name: str = "engine", shrink: bool = True, known: dict | None = None,
         database: str | None = None, sync=None, progress=None,
         diagnosis: float = 30.0) -> FuzzResult:
    """One campaign of `games` games against one engine under one variant: every distinct
    divergence, shrunk and written as a case under `out_dir`.

    `players` is a count, a list of counts (games cycle through them) or None (every count the
    engine plays). `database` is where witnesses are shared (see open_database). `sync` is a
    callable polled every SYNC_EVERY games; when it returns True the database is read again.
    `diagnosis` is the safety limit, in seconds per divergence, of the counterfactual search over
    option values (0: none); the search itself stops after diagnose.SEARCH_LIMIT variants, so its
    result does not depend on the machine's load."""
    options = dict(options or {})
    out_dir = Path(out_dir or "durak-fuzz")
    db = open_database(database, out_dir)
    camp = Campaign(spec, adapter, hello, preset=preset, options=options, players=players,
                    seed_value=seed_value, adapter_name=adapter_name, known=known or {}, db=db,
                    db_key=campaign_key(adapter_name, preset, options))
    result = FuzzResult()
    if not camp.players:
        result.errors.append("the engine plays none of the requested player counts")
        return result
    t0 = time.perf_counter()
    result.replayed = camp.replay_saved()
    master = random.Random(seed_value)
    skipped, reason = 0, ""
    # The spec, the compiled rulesets and the engine live the whole campaign: frozen, they are
    # left out of the full collections that the states of the games set off (a fifth of the
    # time of an in-process campaign went to traversing them again and again). Every step builds
    # states and lists that die young: collecting every YOUNG allocations, not every 700, leaves
    # most of them to reference counting.
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], YOUNG), *thresholds[1:])
    try:
        while camp.game < games:
            rng = random.Random(master.getrandbits(64))
            camp.dealing = None
            try:
                camp.play_game(rng)
            except GameSkipped as exc:
                skipped, reason = skipped + 1, str(exc)
                camp.skipped = skipped
                if camp.dealing is not None:
                    camp.played_at.setdefault(camp.dealing, [0, 0])[1] += 1
                key = reason[:300]
                if key in result.skip_reasons or len(result.skip_reasons) < 20:
                    result.skip_reasons[key] = result.skip_reasons.get(key, 0) + 1
                if skipped > 10 * games:
                    break
                continue
            camp.game += 1
            if camp.dealing is not None:
                camp.played_at.setdefault(camp.dealing, [0, 0])[0] += 1
            if progress is not None:
                progress(camp.game, len(camp.entries))
            if camp.game % SYNC_EVERY == 0 and (database or sync) and (sync is None or sync()):
                result.replayed += camp.replay_saved()
    except KeyboardInterrupt:  # keep what was found; the command writes its reports
        result.interrupted, shrink = True, False
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    result.seconds = time.perf_counter() - t0
    result.games, result.steps, result.skipped = camp.game, camp.lock.steps, skipped
    result.played_at = camp.played_at
    result.played_forms = frozenset(f.text for f in camp.lock.ruleset.played_forms)
    if camp.game == 0 and skipped:
        result.errors.append(f"the engine skipped every deal ({skipped}): {reason}")
    def in_order() -> list:
        return sorted(camp.entries.values(),
                      key=lambda e: (e.known is not None, bool(e.follows_from), e.first_game))
    found: dict = {}

    def shrunk_and_diagnosed(group: list) -> None:  # the witness as found kept first
        for entry in group:
            entry.found_length = entry.witness.length
            found[id(entry)] = entry.witness
            if shrink:
                camp.shrink(entry)
            if diagnosis > 0:
                camp.diagnose(entry, diagnosis)
    late = False  # stopped after the games, while shrinking or looking further
    try:
        if not result.interrupted:
            for entry in camp.entries.values():  # before shrinking: the witness shows what came first
                camp.settle_follows(entry)
        entries = in_order()
        shrunk_and_diagnosed(entries)
        confirm_advice(camp, entries)
        if not result.interrupted:  # causes that the advised house rules hide, each a case of its own
            new = camp.beyond(entries, camp.game // BEYOND_SHARE)
            entries += new
            shrunk_and_diagnosed(new)
            if new:
                confirm_advice(camp, entries)
                camp.settle_beyond(new, entries)
        if not result.interrupted:  # a state the engine reaches through an earlier difference too
            for entry in entries:
                camp.settle_by_variant(entry, found[id(entry)], entries)
    except KeyboardInterrupt:  # what was found is reported as it stands: no find is lost
        result.interrupted, late = True, True
        entries = in_order()
        if camp.beyond_games:
            camp.beyond_stopped = camp.beyond_stopped or "interrupted"
    result.beyond_games, result.beyond_as = camp.beyond_games, camp.beyond_as
    result.beyond_stopped = camp.beyond_stopped
    entries = group_causes(merge_renamed(entries))
    if not late:
        confirm_advice(camp, entries)  # again, each root cause with all its forms
    for entry in flat(entries):
        try:
            camp.write_case(entry, out_dir)
        except DurakError as exc:
            result.errors.append(f"{entry.signature}: the case could not be written: {exc}")
        except OSError as exc:  # never lose a minimal case to an unwritable folder
            result.errors.append(_write_elsewhere(camp, entry, out_dir, exc))
        if db is not None:
            camp._save(entry.witness)
    result.entries = entries
    seen = {e.signature for e in flat(entries)}
    result.vanished = [(sig, reason, sig in camp.replayed_signatures)
                       for sig, reason in (known or {}).items() if sig not in seen]
    # what the reference explored alone is no coverage of the engine (tools/fuzz.py says so)
    result.coverage = camp.coverage.to_json() if result.steps else {}
    return result


def merge_renamed(entries: list) -> list:
    """One entry per signature once diagnosis has named some by the rule that reads the option
    explaining them (Campaign.diagnose): a divergence the campaign charged to throw_in.order that
    `throw_in_match` explains is throw_in.rank's, and joins the entry already under that
    signature (occurrences added, the shorter witness kept) instead of standing twice."""
    out: dict = {}
    for e in entries:
        have = out.get(e.signature)
        if have is None:
            out[e.signature] = e
            continue
        have.count += e.count
        have.first_game = min(have.first_game, e.first_game)
        have.after &= e.after
        have.follows_from = [s for s in have.follows_from if s in e.follows_from]
        have.explained = {s: c for s, c in have.explained.items() if s in have.follows_from}
        have.changed = {s: c for s, c in have.changed.items() if s in have.follows_from}
        have.change = have.change or e.change
        have.replayed |= e.replayed
        # one renamed by an option value the run does not confirm shows its new rule no more
        # plainly joined than alone (group_causes): the rule it was named by explains it as well
        # (a refused cover of the earliest-card engine, which trump = none explains, joined to the
        # covers refused by defence.beat made that rule plain, and a signature of its own)
        unconfirmed = [x.renamed_from for x in (have, e) if x.renamed_from and not x.advice]
        have.plain = any(x.plain and not (x.renamed_from and not x.advice) for x in (have, e))
        have.renamed_from = None
        have.alternatives += [a for a in unconfirmed + e.alternatives
                              if a not in have.alternatives and a != have.witness.rule]
        if e.witness.length < have.witness.length:
            have.witness, have.observed, have.found_length = e.witness, e.observed, e.found_length
        have.as_if = have.as_if or e.as_if
    return list(out.values())


def flat(entries: list) -> list:
    """The entries and the other forms joined to them (group_causes), one list."""
    return [f for e in entries for f in [e] + e.forms]


def group_causes(entries: list) -> list:
    """One entry per root cause, the others joined to it as its forms (Entry.forms), as AFL
    keeps one crash per bug: the new divergences of one rule, whatever their kind (what the
    engine allows, refuses, the state it reaches: a cap of five shows as a sixth card left out
    and as a bout ended early); a divergence that replaying shows to follow from others of one
    root cause (Entry.follows_from); and the divergences of a rule no witness of which shows it
    plainly, when their diagnosis names as an alternative a rule the run shows plainly (a witness
    with no alternative): an engine whose trump beats no plain card lists only the covers of the
    earliest card where those of the later one are all by a trump, which a defender held to the
    earliest card does as well, and its other witnesses say which it is (where that rule's own
    divergences are seen at least as often: a few plain ones do not outweigh many). Known
    divergences (the ledger's) stay apart: they never hide a new one. Entries whose forms were joined before (a
    worker's) are taken apart and grouped again."""
    every = list({id(e): e for e in flat(entries)}.values())
    for e in every:
        e.forms = []
    new = [e for e in every if e.known is None]
    by_sig = {e.signature: e for e in new}

    def rule_of(e):
        return e.witness.rule if e.witness.kind != "error" and e.witness.rule else None

    own = {}  # rule -> its divergences that follow from no other
    for e in new:
        if rule_of(e) and not e.follows_from:
            own.setdefault(rule_of(e), []).append(e)
            if e.renamed_from and not e.advice and e.renamed_from not in e.alternatives:
                # named by an option's rule that the run does not confirm: the rule the campaign
                # named it by explains it as well (throwers = none for a refused throw of an
                # engine asking the attackers in seat order after a take: throw_in.order's)
                e.alternatives.append(e.renamed_from)
    plain = {r for r, es in own.items()
             if any(e.plain and not (e.renamed_from and not e.advice) for e in es)}
    occurrences = {r: sum(e.count for e in es) for r, es in own.items()}
    joined = {}
    for r, es in own.items():
        if r in plain:
            continue
        # the run weighs as much as what it overrules, as problems._join_shown weighs it
        shown = {a for e in es for a in e.alternatives
                 if a in plain and a != r and occurrences[a] >= occurrences[r]}
        if shown:
            joined[r] = max(sorted(shown), key=lambda a: occurrences[a])
    keys: dict = {}

    def key(e, visiting=()):
        if id(e) in keys:
            return keys[id(e)]
        k = ("signature", e.signature)
        rule = rule_of(e)
        causes = [by_sig[s] for s in e.follows_from if s in by_sig and by_sig[s] is not e]
        if causes and id(e) not in visiting:
            theirs = {key(c, visiting + (id(e),)) for c in causes}
            if len(theirs) == 1:
                k = theirs.pop()
            elif rule:
                k = ("rule", joined.get(rule, rule))
        elif rule:
            k = ("rule", joined.get(rule, rule))
        keys[id(e)] = k
        return k

    groups: dict = {}
    for e in new:
        groups.setdefault(key(e), []).append(e)
    out = []
    for k, es in groups.items():
        root_rule = k[1] if k[0] == "rule" else None
        es.sort(key=lambda e: (rule_of(e) != root_rule, bool(e.follows_from), -e.count,
                               e.first_game))
        head = es[0]
        head.forms = sorted(es[1:], key=lambda e: (-e.count, e.first_game))
        out.append(head)
    out.sort(key=lambda e: (bool(e.follows_from), min(f.first_game for f in [e] + e.forms)))
    known = sorted((e for e in every if e.known is not None),
                   key=lambda e: (bool(e.follows_from), e.first_game))
    return out + known


def confirm_advice(camp, entries: list) -> None:
    """Keep "plays as if X = Y" only where the reference under X = Y reproduces what the engine did
    in the campaign: every step it agreed on in games spread over the whole campaign (at most
    lockstep.EVIDENCE_SEGMENTS of them, evenly) and
    every witness (each other divergence's own difference left out: another bug), as durak check
    confirms advice over its whole run (conformance/problems.py); otherwise the diagnosis says
    "no option explains this: rule R"."""
    for f in flat(entries):  # confirmed again below, with the root causes as they are now
        if f.beside:
            f.advice, f.beside = None, False
            f.witness.diagnosis = advice_message(None, f.witness.rule or None)
    every = flat(entries)
    # the campaign's evidence, gathered the first time advice is to be confirmed (a campaign
    # with no candidate needs none)
    evidence = cache(lambda: _evidence(camp, every))
    for e in entries:  # a root cause and its forms: advice reproduces all of them
        mine = [e] + e.forms
        candidates = list(dict.fromkeys(
            tuple(sorted(c.items(), key=lambda kv: kv[0])) for f in mine for c in f.as_if))
        if not candidates:
            continue
        others = [o for o in every if not any(o is f for f in mine)]
        candidates = [dict(c) for c in candidates[:MAX_CANDIDATES]]
        advice = confirmed_advice(candidates, evidence(), others)
        if advice is not None:
            # then games where the run did not look, over the values of the advised option that
            # the evidence does not tell apart (the nearest first); they never single out one of
            # two options the run cannot tell apart (no advice)
            ours = {f.witness.rule for f in mine}
            theirs = {r for o in others for r in [o.witness.rule] + list(o.alternatives)} - ours
            advice = next((c for c in candidates if set(c) == set(advice) and
                           evidence().confirms(c, others) and camp.plays_as(c, theirs)), None)
        for f in mine:
            if f.as_if or f is e:
                f.advice = advice
                f.witness.diagnosis = advice_message(advice, f.witness.rule or None)
    _advise_beside(camp, entries, evidence, every)


def _evidence(camp, every: list) -> Evidence:
    """What the engine did in the campaign, for confirming advice: the steps it agreed on
    (Lockstep.observed), every witness with its difference marked, and the deals it started
    otherwise."""
    evidence = Evidence()
    for setup, kept in camp.lock.observed:
        evidence.add(camp.lock.ruleset, setup, observations(kept))
    for e in every:
        if e.observed:
            evidence.add(camp.lock.ruleset, e.witness.setup, e.observed,
                         [(len(e.observed) - 1, e)])
    by_sig = {e.signature: e for e in every}
    for setup, observation, sig in camp.lock.starts:  # deals the engine started otherwise
        if sig in by_sig:
            evidence.add(camp.lock.ruleset, setup, [observation], [(0, by_sig[sig])])
    return evidence


def _advise_beside(camp, entries: list, evidence, every: list) -> None:
    """Advice for a root cause with no advice confirmed whose witnesses break, besides its own
    rule, the rule of another root cause with none either (diagnose's `besides`: a draw of other
    counts dealt in another order too): no option value explains their observations alone where
    the engine plays two house rules at once, one read by each rule (hand size seven, drawn
    counterclockwise), and the other shows nowhere on its own (in every draw a hand of seven
    differs too), so neither is found. Its candidates (its forms' option values, and the values
    of the options its rules read) are tried with each value of an option the other's rule reads
    and its own do not; one that reproduces both root causes' witnesses, the whole run (their
    differences included) and the games where the run did not look (Campaign.plays_as) is split
    between them by the rule that reads each option, as durak check advises each problem
    (problems._beside_advised)."""
    if not any(f.witness.besides_of for f in every):
        return
    spec = camp.spec
    base = camp.lock.ruleset.options

    def values(name: str) -> list:
        return [v for v in spec.options[name].values
                if not (v == base.get(name) and type(v) is type(base.get(name)))]

    def read(forms) -> list:
        return list(dict.fromkeys(n for f in forms if f.witness.rule in spec.rules_by_id
                                  for n in rule_options(spec, spec.rules_by_id[f.witness.rule])
                                  if n in spec.options))
    for e in entries:
        mine = [e] + e.forms
        if e.advice is not None or e.known is not None:
            continue
        rules = {f.witness.rule for f in mine}
        beside = [o for o in entries if o is not e and o.advice is None and o.known is None
                  and any(f.witness.besides_of in rules for f in [o] + o.forms)]
        if not beside:
            continue
        own = read(mine)
        found = [dict(c) for c in dict.fromkeys(tuple(sorted(c.items(), key=lambda kv: kv[0]))
                                                 for f in mine for c in f.as_if)]
        candidates = found + [{n: v} for n in own for v in values(n)
                              if {n: v} not in found]
        for b in beside:
            theirs = [b] + b.forms
            options = [n for n in read(theirs) if n not in own]
            pairs = [{**c, n: v} for c in candidates for n in options if n not in c
                     for v in values(n)][:MAX_CANDIDATES * 4]
            witnesses = Evidence()
            for f in mine + theirs:
                if f.observed:
                    witnesses.add(camp.lock.ruleset, f.witness.setup, f.observed)
            pairs = [c for c in pairs if witnesses.confirms(c)]
            others = [o for o in every if not any(o is f for f in mine + theirs)]
            advice = confirmed_advice(pairs, evidence(), others) if pairs else None
            rest = {r for o in others for r in [o.witness.rule] + list(o.alternatives)} - \
                rules - {f.witness.rule for f in theirs}
            if advice is None or not camp.plays_as(advice, rest):
                continue
            split = ({k: v for k, v in advice.items() if k not in options},
                     {k: v for k, v in advice.items() if k in options})
            if not all(split):
                continue
            for head, part in zip((e, b), split):
                for f in [head] + head.forms:
                    if f is head or f.as_if:
                        f.advice, f.beside = part, True
                        f.witness.diagnosis = advice_message(part, f.witness.rule or None)
            break


def _write_elsewhere(camp, entry, out_dir: Path, exc: OSError) -> str:
    """Write a case that could not go under out_dir into a fresh temporary folder instead;
    the line to report either way (with the whole case when even that fails)."""
    why = f"can't write under {out_dir} ({exc.strerror or exc})"
    try:
        fallback = Path(tempfile.mkdtemp(prefix="durak-fuzz-"))
        camp.write_case(entry, fallback)
    except OSError:
        text = json.dumps(entry.case, separators=(",", ":")) if entry.case else "(none)"
        return f"{entry.signature}: {why}, nor in a temporary folder; the case: {text}"
    return f"{entry.signature}: {why}; the case is in {entry.case_path} instead"


# -- cases and report records -------------------------------------------------------------------
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
    return re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")[:48] or "engine"


def case_id(adapter_name: str, preset: str, div: Divergence) -> str:
    sig = re.sub(r"[^a-z0-9_.-]+", "_", f"{div.kind}.{div.rule or 'none'}.{div.shape}".lower())
    return f"fuzz/{_slug(adapter_name)}/{re.sub(r'[^a-z0-9_.-]+', '_', preset)}.{sig}"


def found_case(spec, div: Divergence, preset: str, options: dict, adapter_name: str,
               seed_value: int) -> dict:
    """The witness of a divergence as a conformance case, with the reference's expectations."""
    check_state = div.kind.startswith("state") or div.kind == "error"
    check_legal = div.kind.startswith("legal")
    steps = [dict(s) for s in div.steps]
    start_legal = check_legal and not steps
    if not steps:  # a divergence before any step: show the first legal action too
        rs = spec.ruleset(preset, options)
        game = Game(rs, Setup.from_json(div.setup, rs.deck, rs.player_limits))
        steps = [{"do": text_of(game.legal_actions()[0]), "expect": "accept"}]
    rules = [div.rule] if div.rule in spec.rules_by_id else ["play.active_seat"]
    where = "a mid-deal position" if _is_position(div.setup) else "a deal"
    return record_case(
        spec, id=case_id(adapter_name, preset, div),
        description=(f"Found by durak fuzz against {adapter_name} ({div.signature}), from {where} "
                     f"in {len(div.steps)} step(s): {div.message}")[:400],
        rules=rules, setup=div.setup, steps=steps, variants=[preset], options=options,
        state="last" if check_state else "none", legal="last" if check_legal else "none",
        start_legal=start_legal,
        generated={"by": "durak fuzz", "seed": seed_value, "signature": div.signature,
                   "note": f"adapter {adapter_name}; {div.players} players"})


def results_of(result: FuzzResult, preset: str, adapter_name: str, spec_dir: str | None = None,
               cases_dir: Path | None = None) -> list[Result]:
    """The campaign's divergences as report records (runner.Result), for report.py's renderers:
    fail for a new divergence, xfail for a known one, xpass for a known one that vanished."""
    out = []
    spec_opt = f" --spec {shlex.quote(spec_dir)}" if spec_dir else ""
    every = {f.signature: f for f in flat(result.entries)}
    for e in result.entries:
        w = e.witness
        reproduce = (f"durak{spec_opt} check --adapter {shlex.quote(adapter_name)} --cases-dir "
                     f"{shlex.quote(str(cases_dir))} --case {e.case['id']} --variant {preset}"
                     if e.case and cases_dir is not None else "")
        detail = f"{w.message}; seen {e.count} time(s)"
        if e.forms:  # the other signatures of this root cause, each with its own case
            detail += "; the same cause shows as " + ", ".join(
                f"{f.signature} ({f.count} time(s){', follows ' + ', '.join(f.follows) if f.follows else ''})"
                for f in e.forms)
        if w.diagnosis:
            detail += f"; {w.diagnosis}"
        # a divergence that replaying shows to follow from others is their problem's, when they
        # are of one rule: one root cause, one problem
        causes = {sig.split()[1] for sig in e.follows} - {"-"}
        if e.together:  # where causes meet: the problem of the one found beyond the others
            causes = {sig.split()[1] for sig in e.follows if sig in every and every[sig].beyond}
        want, have, mine = w.want, w.have, _own_groups(w, result.played_forms)
        if mine is not None:  # the part of the legal sets this divergence is about
            want, have = [t for t in want if mine(t)], [t for t in have if mine(t)]
        problem_rule = causes.pop() if len(causes) == 1 else w.rule or None
        if e.follows:
            detail += (f"; probably a consequence of {', '.join(e.follows)} (replayed with that "
                       "difference taken as agreed, or under the option values or the change of "
                       "a clause that explain it, it does not show)")
        if e.known is not None:
            detail = f"known divergence: {e.known}; {detail}"
        out.append(Result(
            case=e.case["id"] if e.case else w.signature, variant=preset,
            status="xfail" if e.known is not None else "fail", description=w.signature,
            rules=[w.rule] if w.rule else [], area=w.rule.split(".")[0] if w.rule else "fuzz",
            file=str(e.case_path or ""), step=len(w.steps) - 1 if w.steps else None,
            action=w.action, check=w.check, want=want, have=have, message=detail,
            reproduce=reproduce, steps_run=len(w.steps), players=w.players, rule=problem_rule))
        out[-1].occurrences = e.total
        out[-1].diagnosis = {"rule": w.rule or None, "as_if": e.as_if, "advice": e.advice,
                             "message": w.diagnosis} if w.diagnosis else None
    for sig, reason, replayed in result.vanished:
        kind, rule = sig.split()[:2]
        message = (f"listed as a known divergence ({reason}) but its saved witness no longer "
                   f"diverges: remove it from the ledger" if replayed else
                   f"listed as a known divergence ({reason}) but not reached in "
                   f"{result.games} games (no saved witness to replay)")
        out.append(Result(case=sig, variant=preset, status="xpass" if replayed else "skip",
                          description=sig, rules=[rule] if rule != "-" else [],
                          area=rule.split(".")[0], message=message))
    return out


def check_case(spec, adapter, hello, case: dict, preset: str):
    """Run one written case on the engine (for tests and the command's self-check)."""
    session = Session(spec, adapter, check_cases=False)
    session.hello = hello
    return session.run_case(parse_case(case, spec), preset)
