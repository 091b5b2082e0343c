"""Lockstep play: one game on the reference and on an engine side by side, judged step by step.

The reference plans a stretch of the game (its own legal actions, now and then an illegal one to
probe), the engine plays the whole stretch in one `step` request (protocol 1.1; emulated with
apply, state and legal for engines that do not declare it), and every answer is compared with the
reference's: the verdict, and as far as the engine's levels go the state and the legal set.

A game does not stop at its first divergence. Each one is reported to the campaign with its
signature (its kind and the rule that decides it) and a witness (a setup and the steps after which it
shows), then play goes on:

- a legal-set difference: play continues on actions both sides agree on;
- a verdict difference: the engine is brought back to the reference's position (started from it
  when it declares `positions`, else restarted and the accepted actions replayed) and play goes on
  with another action;
- a state difference: the engine is started from the reference's position when it declares
  `positions`; otherwise the game is abandoned.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from operator import attrgetter

from durak_spec.conformance.actionmodel import ActionModel, atomic_texts, multi_card_openings
from durak_spec.conformance.coverage import ClauseCoverage
from durak_spec.conformance.engine import comparable, same_json, state_view
from durak_spec.conformance.problems import error_key
from durak_spec.conformance.protocol import check_result, reads_named_suits
from durak_spec.conformance.transport import Adapter, EngineFault
from durak_spec.reference_impl.diagnose import (
    Observation,
    allowed_before,
    attribute,
    edge_rule,
    group_of,
    legal_differences,
)
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import (
    comparable_field,
    record_is,
    record_state,
    state_record,
)
from durak_spec.reference_impl.ruleset import draw, draws_like_choice
from durak_spec.reference_impl.simulate import STEP_LIMIT
from durak_spec.reference_impl.state import Action, ActionTexts
from durak_spec.reference_impl.vocab import ACTION_KINDS, CAPABILITIES, CARD_KINDS

CHUNK = 128        # actions per step request, at most; fewer while divergences cut stretches short
PIPE_CHUNK = 24    # ... to a subprocess, which plays one stretch while the next is planned
PROBE = 0.12       # share of steps that probe an illegal action
PROBE_TRIES = 6    # illegal candidates drawn per probe; the one whose rule is least covered wins
CARD_BIAS = 0.8    # share of choices among card plays when there are any (bouts grow to limits)
NAMED = 0.25       # share of probed cards played as another suit, where the variant has a Weli
LEAD_GROWS = 0.5  # chance that a one-move opening (model opening one_move) takes one more card
AVOID = 0.9        # chance of steering away from an action that would repeat a known divergence
MAX_CUTS = 64      # times a game may go back to the reference before it is given up
SAMPLE = 8         # occurrences of each kind and shape attributed in full before sampling
# The order in which state fields are compared: the first that differs names the divergence.
STATE_ORDER = ("finished", "fool", "out", "attacker", "defender", "taking", "table", "hands",
               "hand_sizes", "talon_count", "discard_count", "trump")


_TEXT = ActionTexts()  # (_plan lists a step's legal set by it)
_LISTED = attrgetter("_legal")  # a Game's legal actions (what Game.legal_actions copies)


def text_of(action: Action) -> str:
    return _TEXT[action]


# Whether _choose may draw its index as Random.choice does, inline (ruleset.DRAW, checked once)
_LIKE_CHOICE = draws_like_choice()


def shape_of(action: Action | None) -> str:
    """The shape of an action in a signature: its kind (start for a divergence before any)."""
    return action.kind if action is not None else "start"


@dataclass
class Divergence:
    """One occurrence of a divergence, with a witness that shows it."""

    kind: str            # verdict-accepts, verdict-rejects, legal-extra, legal-missing, state.F, error
    rule: str            # the rule that decides it ('' when none does)
    shape: str           # the shape of the action
    action: str | None   # the action at stake
    want: object
    have: object
    message: str
    setup: dict          # the witness: a setup (a deal or a mid-deal position) ...
    steps: list          # ... and steps {"do", "expect"}; it shows at the last (or at the start)
    players: int
    diagnosis: str = ""
    after: frozenset = frozenset()  # signatures seen before it since the engine was last in sync
    texts: tuple = ()    # the actions it differs by: the action at stake, or a legal set's part
    # where another state field differs, the engine's `finished` then: a variant under which the
    # game is over there does not play as the engine does (roles are not compared after the end)
    finished: object = None
    # other rules that explain it as well (the attribution's alternatives): none when its rule is
    # the only one that does (it shows that rule plainly)
    alternatives: tuple = ()
    # for a bout over on one side only, the engine's legal set after the step, which named its rule
    listed: list | None = None
    # for a rule the same observation breaks besides the rule of another divergence (diagnose's
    # `besides`: a draw of other counts dealt in another order too), that other rule
    besides_of: str = ""

    @property
    def signature(self) -> str:
        return signature(self.kind, self.rule, self.shape)

    @property
    def length(self) -> int:
        return len(self.steps)

    @property
    def check(self) -> str:
        """The check of a case that shows it: verdict, legal or state.<field>."""
        return "verdict" if self.kind.startswith("verdict") else \
            "legal" if self.kind.startswith("legal") else self.kind

    def to_json(self) -> dict:
        return {"signature": self.signature, "kind": self.kind, "rule": self.rule,
                "shape": self.shape, "action": self.action, "message": self.message,
                "setup": self.setup, "steps": self.steps, "players": self.players}


def signature(kind: str, rule: str, shape: str = "") -> str:
    """KIND RULE: divergences of one kind decided by one rule are one bug, whatever the action
    (the shape is kept with the witness, not in the signature). An engine error has no rule: its
    shape says what it answered to which command and a digest of its message without particulars
    (`error step-error#3f2a1c`, `error legal-protocol#90be4d`: problems.error_key), so errors of
    one kind and message are one signature and others are not."""
    if kind == "error" and not rule and shape:
        return f"error {shape}"
    return f"{kind} {rule or '-'}"


def _others(found) -> tuple:
    """The other rules a diagnosis says explain the difference as well (as small a change, or a
    larger one)."""
    if found is None or not found.rule:
        return ()
    return tuple(dict.fromkeys(r for r in list(found.alternatives) + list(found.larger)
                               if r != found.rule))


def _same(have, want: set) -> bool:
    """The engine's legal list is the reference's set (the common case, checked cheaply)."""
    try:
        return type(have) is list and len(have) == len(want) and want.issuperset(have) and \
            len(set(have)) == len(want)
    except TypeError:
        return False


def _group_only(g: Game, engine_legal: set | None, text: str) -> list | None:
    """The engine's legal set with only the differences in the group of the action `text`
    (diagnose.group_of) kept, the others as the reference has them: an action the engine
    refuses is attributed among its own kind, not to another bug that shows in the same set (a
    card played as a suit the variant offers none stands apart from the covers, as
    diagnose.legal_differences splits a set)."""
    if engine_legal is None:
        return None
    ref = {text_of(a) for a in g.legal_actions()}
    group = group_of(g, text, ref)
    return sorted({t for t in ref if group_of(g, t, ref) != group} |
                  {t for t in engine_legal if group_of(g, t, ref) == group})


def _split(g: Game, want: set, have: set) -> dict:
    """The engine's extra and missing actions against `want`, by group (diagnose.group_of), as
    diagnose.legal_differences splits them: {group: (extra, missing)}."""
    out: dict = {}
    for text in sorted(have - want) + sorted(want - have):
        out.setdefault(group_of(g, text, want), ([], []))[text in want].append(text)
    return out


def _over_alike(have, want: dict) -> bool:
    """Whether the engine's state `have` after the last step is the reference's `want` as
    _check_state compares them, with nothing to report: `want` has no roles once the game is over
    (comparable), which the engine's state still shows."""
    return type(have) is dict and comparable(have) == want and check_result(
        "state", {"state": have}) is None


def observations(kept: list) -> list:
    """A segment's steps as Lockstep.observed keeps them (each the tuple of an Observation's
    fields: a tuple costs less to make at every step than an object), as Observations."""
    return [Observation(*fields) for fields in kept]


def _done(texts: list) -> list:
    """The steps the engine accepted as the reference did, `texts`, as a witness's steps."""
    return [{"do": t, "expect": "accept"} for t in texts]


EVIDENCE_SEGMENTS = 300  # segments (a deal or a position, and what the engine played from it)
EVIDENCE_STEPS = 400     # kept per segment


class GameSkipped(Exception):
    """The engine skipped a deal (a setup it cannot play)."""


@dataclass(slots=True)  # one per planned step: slots make it cheaper to build and read
class Planned:
    action: Action
    text: str
    accept: bool
    rule: str = ""                # the rule that refuses it, for a probe
    # the reference's state after it (when the engine shows state): notation.state_record's
    # record, made into the protocol's dict (`view`) only where wanted (want())
    record: tuple | None = None
    view: dict | None = None
    legal: set | None = None      # the reference's legal set after it (when the engine lists it)
    listed: list | None = None    # ... as the reference lists it (its texts in the legal order)
    extra: tuple = ()             # a one-move opening's further cards: throws by the opener
    dropped: int = 0              # steps of a script left out before it (the model has no room)

    def want(self) -> dict:
        """The reference's state after it as _check_state compares it (engine.comparable)."""
        if self.view is None:
            view = record_state(self.record)
            self.view = comparable(view) if view["finished"] else view
        return self.view


@dataclass
class _Segment:
    """Where the engine (re)starts: a setup, and accepted actions it replays from there."""

    setup: Setup
    trail: list = field(default_factory=list)


def position_of(game: Game) -> Setup | None:
    """The reference's current position as a mid-deal setup, or None when a setup cannot say it
    exactly (the game started from it does not have the same state and legal actions)."""
    s = game.state
    try:
        setup = Setup([list(h) for h in s.hands], list(s.talon), s.trump_card, s.dealer,
                      s.attacker, table=[list(p) for p in s.table], defender=s.defender,
                      taking=s.taking, passed=[i for i, p in enumerate(s.passed) if p],
                      out=[i for i, o in enumerate(s.out) if o], bout=s.bout_number,
                      beaten_bouts=s.beaten_bouts, discard=len(s.discard),
                      hidden=s.hidden_card)
        again = Game(game.ruleset, setup)
    except DurakError:
        return None
    if state_view(again) != state_view(game) or \
            set(again.legal_actions()) != set(game.legal_actions()):
        return None
    return setup


def _with_roles(setup: Setup, game: Game) -> Setup | None:
    """The deal `setup` with the reference's first attacker named (a deal may name it), when that
    also gives the reference's defender; else None."""
    if setup.is_position or game.state.steps:
        return None
    named = Setup(setup.hands, setup.talon, setup.trump, setup.dealer, game.state.attacker)
    try:
        again = Game(game.ruleset, named)
    except DurakError:
        return None
    return named if again.state.defender == game.state.defender else None


def _own_suits(sendable):
    """`sendable` without the actions that play a card as a named suit."""
    def own(game: Game) -> list:
        return [a for a in sendable(game) if a.card is None or a.card.real is a.card]
    return own


class Lockstep:
    """Plays games of one variant on the reference and an engine, reporting every divergence to
    `on_divergence` and the rules exercised to `coverage`."""

    def __init__(self, spec, adapter: Adapter, hello: dict, preset: str, options: dict,
                 on_divergence=None, coverage: ClauseCoverage | None = None):
        self.spec, self.adapter, self.hello = spec, adapter, hello
        self.preset = preset
        self.ruleset = spec.ruleset(preset, options)
        self.variant = {"preset": preset, "options": dict(self.ruleset.options)}
        levels = set(hello.get("levels", ["verdicts"]))
        self.state_level, self.legal_level = "state" in levels, "legal" in levels
        self.positions = hello.get("positions") is True
        self.model = ActionModel.from_hello(hello)  # only actions its move model can express
        self._canonical = self.model.canonical  # asked at every step (_note)
        # the game's own list of legal actions, not a copy (Game.legal_actions): it is read, never
        # changed, and each step lists anew
        self._sendable = _LISTED if self._canonical else self.model.sendable
        # a card played as a named suit (6D=H) is sent only where the variant has the Weli, and
        # never to an engine of protocol 1, which reads version 1's notation only
        self.named_suits = bool(self.ruleset.played_forms) and reads_named_suits(hello)
        if self.ruleset.played_forms and not self.named_suits:
            self._sendable = _own_suits(self._sendable)
        self.on_divergence = on_divergence or (lambda d: None)
        # the campaign counts what it does not want: (signature, length, prior, alternatives)
        self.wants = lambda sig, length, prior, alternatives=(): True
        self.since_sync: frozenset = frozenset()  # signatures seen since the last (re)start
        # (actions the engine lists, actions it leaves out) that the reference takes as agreed:
        # a replay with earlier differences accepted (fuzz.Campaign.settle_follows)
        self.agreed: tuple | None = None
        self.pending: set = set()                 # ... and at the step being judged
        self.coverage = coverage if coverage is not None else ClauseCoverage(self.ruleset)
        self.deck = self.ruleset.deck.cards
        self.steps = 0           # engine steps judged (replays not counted)
        self.avoid_probe: set = set()   # rules whose probes are known to diverge
        self.avoid_after: set = set()   # action kinds after which a known state divergence shows
        self.run = float(CHUNK)         # average steps judged before a stretch is cut short
        self._sampled: dict = {}        # (kind, shape) -> [occurrences, last attribution]
        self._fresh = True              # whether _sample computed its last answer (not kept)
        # what the engine did where it agreed with the reference, per segment (setup, [its
        # steps, each as the tuple of an Observation's fields: `observations` makes them]), at
        # most EVIDENCE_SEGMENTS spread over the whole campaign (every `_stride`th segment, the
        # stride doubled and every other one dropped when full): what advice must also reproduce
        self.observed: list = []
        # where the engine starts a deal otherwise (its first attacker, say), what it showed and
        # the signature reported: (setup, Observation, signature), evidence for that one's advice
        # (play goes on from the reference's position, so no later step shows it again)
        self.starts: list = []
        self.reported = ""  # the signature of the last divergence reported
        self._observing = None
        self._current: list | None = None  # the observations of the segment played, if kept
        self._segments = 0
        self._stride = 1
        self._flight: list = []  # the Planned steps of the stretch sent last (_in_flight)

    # -- steering ------------------------------------------------------------------------------
    def known(self, div: Divergence) -> None:
        """Steer later play away from a divergence already known, so deeper rules are reached."""
        if div.kind in ("verdict-accepts", "legal-extra"):
            self.avoid_probe.add(div.rule)
        elif div.kind.startswith("state.") and not self.positions and div.shape:
            self.avoid_after.add(div.shape)

    # -- planning on the reference ----------------------------------------------------------
    def _choose(self, g: Game, legal: list, rng: random.Random, avoid: set,
                agree: set | None = None) -> Planned | None:
        """The next action: a probe now and then, else a legal one; `avoid` and `agree` (the
        engine's own legal set, when known) restrict the first choice after going back. None
        when no action is left that both sides agree on."""
        pool = legal
        if avoid or agree is not None:
            pool = [a for a in legal if text_of(a) not in avoid
                    and (agree is None or text_of(a) in agree)]
            if not pool:
                return None
        if rng.random() < PROBE:
            probe = self._probe(g, legal, rng, agree)
            if probe is not None:
                return probe
        if self.avoid_after and rng.random() < AVOID:
            pool = [a for a in pool if a.kind not in self.avoid_after] or pool
        cards = []  # the card plays (a plain loop: cheaper than maps chained in C)
        for a in pool:
            if a[2] is not None:
                cards.append(a)
        seq = cards if cards and rng.random() < CARD_BIAS else pool
        if seq and _LIKE_CHOICE and type(rng) is random.Random:  # rng.choice(seq), one call
            action = draw(seq, rng.getrandbits)
        else:
            action = rng.choice(seq)
        return Planned(action, _TEXT[action], True)

    def _probe_kinds(self, g: Game) -> tuple:
        """The kinds probed: protocol 1's, and a kind added in 1.1 (vocab.CAPABILITIES) only
        where the variant can make it legal."""
        rs = g.ruleset
        kinds = rs.__dict__.get("_probe_kinds")
        if kinds is None:
            kinds = rs._probe_kinds = tuple(k for k in ACTION_KINDS if k not in CAPABILITIES or not any(
                cr.clause.const and cr.clause.value is False for cr in rs.legality[k]))
        return kinds

    def _probe(self, g: Game, legal: list, rng: random.Random, agree=None) -> Planned | None:
        s = g.state
        legal_set = set(legal)
        best = None
        targets = [a for a, _ in s.table]
        tries = PROBE_TRIES if self.coverage.rejects_open else 1
        for _ in range(tries * 3):
            if tries <= 0:
                break
            seat, kind = rng.randrange(s.n), rng.choice(self._probe_kinds(g))
            if kind in CARD_KINDS:
                hand = s.hands[seat]
                card = rng.choice(hand) if hand and rng.random() < 0.9 else rng.choice(self.deck)
                if self.named_suits and not card.is_joker and rng.random() < NAMED:
                    deck = g.ruleset.deck  # a named suit (the Weli's play, or play.named_suit's fault)
                    card = deck.as_suit(card, rng.choice([x for x in deck.suits if x != card.suit]))
                if kind == "cover":
                    if not targets:
                        continue
                    action = Action(kind, seat, card, rng.choice(targets))
                else:
                    action = Action(kind, seat, card)
            else:
                action = Action(kind, seat)
            if action in legal_set or agree is not None and text_of(action) in agree:
                continue
            if not self.model.expressible(action, s, False) or self.model.idle(action, g):
                continue
            tries -= 1
            rule = g.explain(action)[0]
            if rule in self.avoid_probe and rng.random() < AVOID:
                continue
            rank = 0 if self.coverage.wants_reject(rule) else 1
            if best is None or rank < best[0]:
                best = (rank, Planned(action, text_of(action), False, rule))
                if rank == 0:
                    break
        if best is None:
            return None
        self.coverage.rejected(s, best[1].action, best[1].rule, legal)
        return best[1]

    def _plan(self, g: Game, rng: random.Random, avoid: set, limit: int, fixed=None, agree=None):
        """Play up to `limit` steps on `g` (mutated); return the steps and checkpoints
        {index: copy of g before that step}."""
        plan, checkpoints = [], {}
        state, legal_level = self.state_level, self.legal_level
        sendable, accepted, coverage = self._sendable, self.coverage.accepted, self.coverage
        open_rules = coverage.open_rules.get
        todo = iter(fixed) if fixed is not None else None
        lead = self.model.opening == "one_move" and multi_card_openings(g.ruleset)
        legal, texts = None, _TEXT
        dropped = 0
        while len(plan) < limit and not g.state.finished:
            if not checkpoints:  # a copy at the stretch's start, to go back to a step of it
                checkpoints[0] = g.clone()
            if legal is None:
                legal = sendable(g)
            if todo is not None:
                text = next(todo, None)
                if text is None:
                    break
                action = g.parse_action(text)
                if not self.model.canonical and (not self.model.expressible(action, g.state, False)
                                                 or self.model.idle(action, g)):
                    # a step the engine's model has no room for (a witness saved before it was
                    # declared, a seed's prefix): left out, as check leaves it out of a case
                    dropped += 1
                    continue
                rule = g.explain(action)[0]
                p = Planned(action, text_of(action), not rule, rule, dropped=dropped)
                dropped = 0
                if rule:
                    coverage.rejected(g.state, action, rule, legal)
            else:
                p = self._choose(g, legal, rng, avoid, agree) if not plan else \
                    self._choose(g, legal, rng, ())
                if p is None:
                    break
            if p.accept:
                if open_rules(p.action[0]):  # else accepted() has nothing to mark
                    accepted(g.state, p.action)
                if todo is None:  # chosen from `legal`: the listed action itself
                    g.apply_listed(p.action)
                else:
                    g.apply_action(p.action)
                if lead and p.action.kind == "attack":
                    todo, probe = self._lead(g, p, rng, todo)
                    if probe is not None:  # sent first: the opening with a card it may not hold
                        plan.append(probe)
                if state:
                    p.record = state_record(g.state)
                legal = sendable(g)
                if legal_level:
                    listed = []  # (a plain loop: cheaper than map in C)
                    for a in legal:
                        listed.append(texts[a])
                    p.listed, p.legal = listed, set(listed)
            plan.append(p)
        return plan, checkpoints

    def _lead(self, g: Game, p: Planned, rng: random.Random, todo):
        """Grow the opening `p` just applied on `g` into a one-move opening (model opening
        one_move): with a script, by its next steps while they are the opener's accepted throws;
        else, now and then, by a few of the opener's legal throws. The cards join `p` (its text
        becomes `S attack C1 C2 ...`). Returns the rest of the script and, now and then without
        one, a probe to send before `p`: the opening with a card of the opener's hand on top that
        the reference refuses there."""
        extra = []
        if todo is not None:
            rest = list(todo)
            while rest:
                try:
                    a = g.parse_action(rest[0])
                except DurakError:
                    break
                if a.kind != "throw" or a.seat != p.action.seat or g.explain(a)[0]:
                    break
                g.apply_action(a)
                extra.append(a)
                rest.pop(0)
            todo = iter(rest)
        else:
            while rng.random() < LEAD_GROWS:
                more = [a for a in g.legal_actions() if a.kind == "throw" and a.seat == p.action.seat]
                if not more:
                    break
                a = rng.choice(more)
                self.coverage.accepted(g.state, a)
                g.apply_listed(a)
                extra.append(a)
        probe = None
        if todo is None and rng.random() < PROBE:
            seat = p.action.seat
            wrong = [(a, rule) for a in (Action("throw", seat, c) for c in g.state.hands[seat])
                     for rule in [g.explain(a)[0]] if rule]
            if wrong:
                a, rule = rng.choice(wrong)
                text = " ".join([p.text] + [x.card.text for x in extra] + [a.card.text])
                probe = Planned(p.action, text, False, rule)
        if extra:
            p.extra = tuple(extra)
            p.text = " ".join([p.text] + [a.card.text for a in extra])
        return todo, probe

    @staticmethod
    def _game_at(checkpoints: dict, plan: list, j: int, cursor: list | None = None) -> Game:
        """The reference after the first j planned steps (a copy). `cursor` [index, game] keeps
        the last one so that judging a segment in order replays each step once."""
        if cursor is not None and cursor[1] is not None and cursor[0] <= j:
            base, g = cursor
        else:
            base = max(k for k in checkpoints if k <= j)
            g = checkpoints[base].clone()
        for p in plan[base:j]:
            if p.accept:
                g.apply_action(p.action)
                for extra in p.extra:
                    g.apply_action(extra)
        if cursor is not None:
            cursor[0], cursor[1] = j, g
        return g

    # -- the engine side -----------------------------------------------------------------------
    def _start(self, seg: _Segment, compare: bool, g: Game) -> bool:
        """(Re)start the engine at the segment's setup and replay its trail (the reference `g` is
        at the setup when `compare`). False when the game cannot go on (a divergence was
        reported)."""
        self.since_sync, self.pending = frozenset(), set()
        self.start_differs = False
        setup_json = seg.setup.to_json()
        requests = [("start", {"variant": self.variant, "setup": setup_json})]
        if compare and self.state_level:
            requests.append(("state", {}))
        if compare and self.legal_level:
            requests.append(("legal", {}))
        try:
            replies = self.adapter.calls(requests)
        except EngineFault as fault:
            self._fault(fault, seg, None, "start")
            return False
        start = replies[0]
        if start.kind == "skipped":
            raise GameSkipped(start.value)
        if start.kind != "result":
            self._report("error", "", None, "a result", f"{start.kind}: {start.value}",
                         f"the engine answered start with {start.kind}: {start.value}", seg, [],
                         token=f"start-{start.kind}")
            return False
        if compare:
            record = state_record(g.state) if self.state_level else None
            want = {text_of(a) for a in self._sendable(g)} if self.legal_level else None
            for reply in replies[1:]:
                cmd = requests[replies.index(reply)][0]
                if reply.kind != "result":  # as durak check says it: the engine's own message
                    self._report("error", "", None, "a result", f"{reply.kind}: {reply.value}",
                                 f"the engine answered {cmd} at the start with {reply.kind}: "
                                 f"{reply.value}", seg, [], token=f"{cmd}-{reply.kind}")
                    return False
                value = reply.value
                if cmd == "legal" and type(value) is dict and _same(value.get("actions"), want):
                    continue  # the reference's own texts: valid by construction
                if cmd == "state" and type(value) is dict and record_is(value.get("state"), record):
                    continue  # the reference's own state (notation.record_is): valid too
                # (not a state Python finds equal to the reference's: 0 == False, 1.0 == 1)
                problem = check_result(cmd, value)  # names the field that is wrong
                if problem:
                    self._report("error", "", None, "a valid result", reply.value,
                                 f"the engine's answer to {cmd} at the start is out of protocol: "
                                 f"{problem}", seg, [], token=f"{cmd}-protocol", problem=problem)
                    return False
            k = 1
            if self.state_level:
                have = replies[k].value.get("state")
                if not record_is(have, record) and not self._check_state(
                        comparable(record_state(record)), have, None, seg, []):
                    self.start_differs = True
                    if len(self.starts) < EVIDENCE_SEGMENTS and isinstance(have, dict):
                        self.starts.append((seg.setup, Observation(None, True, state=have),
                                            self.reported))
                    return False
                k += 1
            if self.legal_level:
                have = self._check_legal(g, want, replies[k].value.get("actions"), seg, [])
                self.agree = None if have is None or have == want else have
        if seg.trail:
            entries = self._step(seg.trail, seg, [])
            if entries is None:
                return False
            if len(entries) != len(seg.trail) or not all(e.get("accepted") for e in entries):
                self._report("error", "", None, "the same verdicts", "other verdicts",
                             "the engine answered differently when the same actions were "
                             "replayed from the same setup (is it deterministic?)", seg, [],
                             token="nondeterministic")
                return False
        return True

    def _step(self, texts: list, seg: _Segment, before: list):
        """The engine's entries for `texts`, or None after reporting an error."""
        self._send(texts, [])
        return self._receive(seg)

    def _send(self, texts: list, plan: list) -> None:
        """Send a stretch; `plan` (Planned) is what a fault's witness replays (_in_flight)."""
        self._flight = plan
        self.adapter.step_send(texts, self.state_level, self.legal_level)

    def _in_flight(self) -> list:
        """The witness's steps of the stretch sent last, so that a case shrunk from a hang or a
        crash reproduces it: its accepted steps, and the first probe of an illegal action after
        the last of them (a witness's steps but its last are accepted). Made only when one is
        reported."""
        plan = self._flight
        last = max((i for i, p in enumerate(plan) if p.accept), default=-1)
        probe = next((p for p in plan[last + 1:] if p.rule), None)
        return [{"do": p.text, "expect": "accept"} for p in plan if p.accept] + (
            [{"do": probe.text, "expect": "reject", "rule": probe.rule}] if probe else [])

    def _receive(self, seg: _Segment):
        """The engine's entries for the stretch sent last, or None after reporting an error."""
        try:
            reply = self.adapter.step_receive()
        except EngineFault as fault:
            self._fault(fault, seg, None, "step", self._in_flight())
            return None
        problem = None
        if reply.kind == "result":
            problem = check_result("step", reply.value)
            if not problem:
                return reply.value["steps"]
            detail = problem
        else:
            detail = f"{reply.kind}: {reply.value}"
        # the stretch is the witness, as a fault's: the case shrunk from it shows the same error
        self._report("error", "", None, "a result", detail,
                     f"the engine answered step with {detail}", seg,
                     self._in_flight(),
                     token="step-protocol" if reply.kind == "result" else f"step-{reply.kind}",
                     problem=problem or "")
        return None

    def _fault(self, fault: EngineFault, seg: _Segment, action, cmd: str,
               steps: list = ()) -> None:
        try:
            self.hello = self.adapter.restart()
        except Exception:  # the next start reports it again
            pass
        self._report("error", "", action, "an answer", f"{fault.what}: {fault.detail}",
                     f"the engine failed on {cmd}: {fault}", seg, list(steps),
                     token=f"{cmd}-{fault.what}".replace(" ", "-"))

    # -- judging -------------------------------------------------------------------------------
    def _report(self, kind, rule, action: Action | None, want, have, message, seg: _Segment,
                steps: list, token: str = "", texts=(), finished=None, alternatives=(),
                listed=None, besides_of: str = "", problem: str = "") -> None:
        """Report one occurrence. The witness is built only when the campaign wants it: a new
        signature, or a shorter witness of a known one. An engine error's `token` (what it
        answered, to which command) and its message's digest stand in its signature for the rule
        it has not: where `problem` is given (protocol.check_result's), its digest, of what is
        wrong and where in the schema's terms alone, not of where it showed nor of the value
        (an answer out of protocol after any action is one divergence, not one per card, and a
        hand size of 0 as false and one of 1 as true are one, not one per value)."""
        shape = shape_of(action) if kind != "error" or action is not None else "step"
        if kind == "error" and token:
            digest = getattr(problem, "digest", None)
            shape = f"{token}#{digest or error_key(problem or message)}"
        sig = self.reported = signature(kind, rule, shape)
        prior = self.since_sync
        self.pending.add(sig)
        if not self.wants(sig, len(seg.trail) + len(steps), prior, tuple(alternatives)):
            return
        witness = [{"do": t, "expect": "accept"} for move in seg.trail for t in atomic_texts(move)]
        parts: list = []  # the last step's atomic actions: the action at stake where no texts
        for s in steps:  # a one-move opening's cards, as the atomic actions a case plays; a
            # refused one is refused at its last card
            parts = atomic_texts(s["do"])
            witness += [{"do": t, "expect": "accept"} for t in parts[:-1]] + [{**s, "do": parts[-1]}]
        self.on_divergence(Divergence(
            kind, rule, shape, text_of(action) if action is not None else None, want, have,
            message, seg.setup.to_json(), witness, seg.setup.players, after=prior,
            texts=tuple(texts or parts), finished=finished, alternatives=tuple(alternatives),
            listed=listed, besides_of=besides_of))

    def _check_state(self, want: dict, have, action, seg, steps, listed=None) -> bool:
        """Report the first state field that differs; False when one does. `listed` is the
        engine's legal set after the step, when it lists one: where the bout is over on one side
        only, what the engine still allows there says which rule keeps it open (a player who
        passed and may still add), not only the rule that ends it."""
        if same_json(have, want):  # (not only equal: 0 == False, 6.0 == 6)
            return True
        where = f"after {text_of(action)}" if action is not None else "at the start"
        problem = check_result("state", {"state": have})
        if problem:
            self._report("error", "", action, "a valid state", have,
                         f"state {where}: {problem}", seg, steps, token="state-protocol",
                         problem=problem)
            return False
        for key in STATE_ORDER:
            if key in want and key in have and \
                    comparable_field(key, want[key]) != comparable_field(key, have[key]):
                found = self._attribute(seg, steps, Observation(
                    steps[-1]["do"] if steps else None, True, state=have),
                    ("state", key, shape_of(action)))
                fresh = self._fresh
                shown = None
                if found is not None and found.check == "state.table" and listed is not None \
                        and isinstance(listed, list):
                    again = self._attribute(seg, steps, Observation(
                        steps[-1]["do"] if steps else None, True, state=have, legal=listed),
                        ("state-listed", key, shape_of(action)))
                    if again is not None and again.check == "state.table" and again.rule:
                        found, shown, fresh = again, listed, self._fresh
                if found is not None and found.check.startswith("state.") and \
                        found.check[6:] in want and found.check[6:] in have:
                    key = found.check[6:]
                self._report(f"state.{key}", found.rule or "" if found else "", action,
                             want[key], have[key],
                             f"state.{key} {where}: want {want[key]!r}, have {have[key]!r}",
                             seg, steps, finished=have.get("finished") if key != "finished" else None,
                             alternatives=_others(found), listed=shown)
                # the other rules the same observation breaks (a draw of other counts dealt in
                # another order too: draw.order besides draw.who), each a divergence of its own,
                # as durak check keeps them (runner._besides); only where this occurrence was
                # attributed, not sampled: another occurrence of its kind and shape need not
                # break them, and its witness would not show them
                for rule in (found.besides if found is not None and fresh else ()):
                    if rule and rule != found.rule:
                        self._report(f"state.{key}", rule, action, want[key], have[key],
                                     f"state.{key} {where}: want {want[key]!r}, have "
                                     f"{have[key]!r} ({rule}, besides {found.rule})", seg, steps,
                                     finished=have.get("finished") if key != "finished" else None,
                                     besides_of=found.rule or "")
                return False
        return True

    def _sample(self, key, compute):
        """compute(), sampled per `key` as _attribute is: the first SAMPLE times, then the 16th,
        32nd, 64th...; in between the last answer is kept."""
        seen = self._sampled.setdefault(key, [0, None])
        seen[0] += 1
        n = seen[0]
        self._fresh = n <= SAMPLE or not n & (n - 1)  # computed for this occurrence
        if self._fresh:
            seen[1] = compute()
            self._fresh = True  # (compute() may have sampled another key)
        return seen[1]

    def _fallback_rule(self, g: Game, action: Action) -> str:
        """A rule for an action no attribution names: the one that forbids it, the one at whose
        edge it sits (diagnose.edge_rule), else the first legality rule of its kind."""
        try:
            rule = g.explain(action)[0] or edge_rule(g, action)
        except DurakError:
            rule = None
        if not rule:
            rule = next((cr.rule.id for cr in self.ruleset.legality.get(action.kind, ())
                         if not cr.clause.const), "")
        return rule

    def _attribute(self, seg: _Segment, steps: list, last: Observation, key=None):
        """The interpreter's attribution (reference_impl/diagnose.py) of the difference at the
        last of `steps` (at the start when there are none), the engine observed as `last`.

        It searches the clauses, so it is sampled: for each `key` (kind and shape) the first
        SAMPLE occurrences are attributed, then the 16th, 32nd, 64th...; the others keep the
        last answer (their divergence is counted under the rule found for its kind and shape)."""
        if key is not None:
            return self._sample(key, lambda: self._attribute(seg, steps, last))
        obs = [Observation(t, True) for move in seg.trail for t in atomic_texts(move)]
        obs += [Observation(t, s["expect"] == "accept") for s in steps[:-1] for t in atomic_texts(s["do"])]
        obs.append(last)
        try:
            return attribute(self.ruleset, seg.setup, obs)
        except (DurakError, KeyError, ValueError):
            return None

    def _completed(self, g: Game, have: set) -> set:
        """The engine's legal set `have` with the reference's actions its action model cannot
        express added, as the reference lists them: what the diagnosis compares (it knows no
        action model), so that a pass the engine has no room for is never a difference."""
        if self.model.canonical:
            return have
        ref = {text_of(a) for a in g.legal_actions()}
        return have | (ref - {text_of(a) for a in self._sendable(g)})

    def _differences(self, g: Game, have: set, seg: _Segment, steps: list,
                     findings: list | None = None) -> list:
        """legal_differences, knowing what the engine allowed earlier in the segment (and the
        diagnosis of each group added to `findings`)."""
        obs = [Observation(t, True) for move in seg.trail for t in atomic_texts(move)]
        obs += [Observation(t, s["expect"] == "accept") for s in steps for t in atomic_texts(s["do"])]
        try:
            history = allowed_before(self.ruleset, seg.setup, obs)
        except (DurakError, KeyError, ValueError):
            history = ()
        return legal_differences(g, have, history, findings)

    def _check_legal(self, g: Game, want: set, have, seg, steps) -> set | None:
        """Report the legal-set differences, one per signature; return the engine's set."""
        if _same(have, want):
            return want
        problem = check_result("legal", {"actions": have})
        if problem:
            self._report("error", "", None, "a list of actions", have, f"legal: {problem}", seg,
                         steps, token="legal-protocol", problem=problem)
            return None
        have_set = {" ".join(a.split()) for a in have}
        if self.agreed is not None:  # the reference adopts the engine's view of these actions
            extra, missing = self.agreed
            want = (want - (missing - have_set)) | (extra & have_set)
        if have_set == want:
            return have_set
        where = f"after {steps[-1]['do']}" if steps else "at the start"
        last = steps[-1]["do"] if steps else None
        seen = self._completed(g, have_set)
        whole = self._attribute(seg, steps, Observation(last, True, legal=sorted(seen)),
                                ("legal", len(have_set - want), len(want - have_set)))
        if whole is not None and whole.check.startswith("state.") and whole.rule:
            # the engine has another seat acting: the rule deciding the role, for every action
            groups = [(whole.rule, _others(whole), sorted(have_set - want), sorted(want - have_set))]
        else:
            # the rule of each group of kinds is sampled; its actions are this occurrence's
            split = _split(g, want, have_set)
            key = ("groups", tuple(sorted({t.split()[1] for t in have_set ^ want
                                           if len(t.split()) > 1})), tuple(sorted(split)))

            def named():
                findings: list = []
                found = self._differences(g, seen, seg, steps, findings)
                ref = {text_of(a) for a in g.legal_actions()}
                return {group_of(g, (more + fewer)[0], ref): (rule, _others(f) if rule == f.rule
                                                               else ())
                        for (rule, more, fewer), f in zip(found, findings)}
            rules = self._sample(key, named)
            groups = []
            for group, (more, fewer) in split.items():
                rule, alternatives = rules.get(group) or (None, ())
                if not rule and whole is not None:
                    rule, alternatives = whole.rule, _others(whole)
                groups.append((rule, alternatives, more, fewer))
        for rule, alternatives, more, fewer in groups:
            for kind, texts in (("legal-extra", more), ("legal-missing", fewer)):
                if not texts:
                    continue
                try:
                    action = g.parse_action(texts[0])
                except DurakError:
                    action = None
                named = rule or (self._fallback_rule(g, action) if action is not None else "")
                verb = "lists" if kind == "legal-extra" else "omits"
                self._report(kind, named, action, sorted(want), sorted(have_set),
                             f"legal actions {where}: the engine {verb} {', '.join(texts[:3])}"
                             + (" ..." if len(texts) > 3 else "")
                             + (f" ({named})" if named else ""), seg, steps, texts=texts,
                             alternatives=alternatives if named == rule else ())
        return have_set

    def _note(self, seg: _Segment, text: str, accepted: bool = True, legal: list | None = None) -> None:
        """Keep one step the engine agreed on (its verdict, and `legal`, its legal set when it was
        the reference's), in the segment's list, as the fields of its Observation."""
        if not self._canonical:
            return
        if self._observing is not seg:
            self._observing, self._current = seg, None
            self._segments += 1
            if (self._segments - 1) % self._stride:
                return
            self._current = []
            self.observed.append((seg.setup, self._current))
            if len(self.observed) > EVIDENCE_SEGMENTS:
                self.observed, self._stride = self.observed[::2], self._stride * 2
        current = self._current
        if current is not None and len(current) < EVIDENCE_STEPS:
            current.append((text, accepted, None, None if legal is None else list(legal)))

    def _keep(self, keep, seg: _Segment, text: str, accepted: bool, legal: list | None = None):
        """One agreeing step of a stretch kept: through _note while `keep` is None (the stretch's
        first, or the first after a difference), which starts the segment's list, then appended to
        that list itself; the list to pass next time (False: this segment keeps none)."""
        if keep is None:
            self._note(seg, text, accepted, legal)
            return self._current if self._observing is seg and self._current is not None else False
        if keep is not False and len(keep) < EVIDENCE_STEPS:
            keep.append((text, accepted, None, None if legal is None else list(legal)))
        return keep

    # -- one game ------------------------------------------------------------------------------
    def play(self, setup: Setup, rng: random.Random, fixed: list | None = None,
             limit: int = STEP_LIMIT) -> None:
        """One game from `setup`: random play (or the actions `fixed`, then stop), at most
        `limit` steps."""
        g = Game(self.ruleset, setup)
        seg = _Segment(setup)
        restart, avoid, played, cuts, compare = True, set(), 0, 0, True
        self.agree = None
        ahead = None  # a stretch sent to the engine, not judged yet: (plan, checkpoints, chunk)
        top = PIPE_CHUNK if self.adapter.pipelined else CHUNK
        while True:
            if ahead is None:
                if g.is_terminal() or played >= limit or cuts >= MAX_CUTS:
                    return
                if restart:
                    if not self._start(seg, compare and not seg.trail, g):
                        if not (self.start_differs and fixed is None) or seg.setup.is_position:
                            return  # a position the engine does not take as it is: give it up
                        # the engine starts elsewhere (its first attacker, say): start it from
                        # the reference's position, or name the reference's roles in the deal
                        cuts, compare = cuts + 1, False
                        start = position_of(g) if self.positions else _with_roles(seg.setup, g)
                        if start is None:
                            return
                        seg, g = _Segment(start), Game(self.ruleset, start)
                        continue
                    restart, compare = False, True
                chunk = max(8, min(top, int(2 * self.run)))
                plan, checkpoints = self._plan(g, rng, avoid, min(chunk, limit - played), fixed,
                                               self.agree)
                if not plan:
                    return
                self._send([p.text for p in plan], plan)
                ahead = (plan, checkpoints, chunk)
            plan, checkpoints, chunk = ahead
            nxt = None
            if self.adapter.pipelined and fixed is None and not g.is_terminal() and \
                    played + len(plan) < limit:
                # plan the next stretch while the engine plays this one (dropped if it is cut)
                more_plan, more_checkpoints = self._plan(g, rng, set(),
                                                         min(chunk, limit - played - len(plan)))
                nxt = (more_plan, more_checkpoints, chunk) if more_plan else None
            entries = self._receive(seg)
            if entries is None:
                return
            outcome, j, more = self._judge(plan, checkpoints, entries, seg, fixed is not None)
            avoid = avoid | more if outcome == "cut" and j == 0 else more
            self.steps += j if outcome != "done" else len(plan)
            played += len(plan)
            if fixed is None and (outcome != "done" or len(plan) >= chunk):
                self.run = 0.8 * self.run + 0.2 * (j if outcome != "done" else 2 * len(plan))
            ahead = None
            if outcome == "done":
                seg.trail += [p.text for p in plan if p.accept]
                if fixed is not None:
                    fixed = fixed[sum(1 + len(p.extra) + p.dropped for p in plan):]
                    if not fixed:
                        return
                if nxt is not None:
                    self._send([p.text for p in nxt[0]], nxt[0])
                    ahead = nxt
                continue
            if outcome == "abandon" or fixed is not None:
                return
            # bring the engine back to the reference after the first j planned steps
            cuts += 1
            g = self._game_at(checkpoints, plan, j)
            restart = True
            position = position_of(g) if self.positions else None
            if position is not None:
                seg, g = _Segment(position), Game(self.ruleset, position)
            else:
                seg.trail += [p.text for p in plan[:j] if p.accept]

    def _judge(self, plan: list, checkpoints: dict, entries: list, seg: _Segment, fixed: bool):
        """('done', n, _) when every step matched, ('cut', j, avoid) to go back to the reference
        after j steps and avoid an action there, ('abandon', j, _) to give the game up."""
        state, legal = self.state_level, self.legal_level
        done: list = []  # the texts of the steps accepted so far (_done: as a witness's steps)
        cursor: list = [0, None]
        agree = self.agree
        # the segment's kept observations, once a _note in this stretch has started it (False:
        # none kept); agreeing steps are added here without calling _note for each
        keep = None
        answered = len(entries)
        for j, p in enumerate(plan):
            if self.pending:
                self.since_sync, self.pending = self.since_sync | self.pending, set()
            if j >= answered:
                self._report("error", "", p.action, "an entry per action",
                             f"{len(entries)} entries for {len(plan)} actions",
                             f"the engine answered {len(entries)} of {len(plan)} actions", seg,
                             _done(done),
                             token="step-entries")
                return "abandon", j, set()
            e = entries[j]
            accepted = e.get("accepted")
            if accepted is not p.accept:
                if self.agreed is not None and p.text in self.agreed[0 if accepted else 1]:
                    return "abandon", j, set()  # a verdict taken as agreed: the replay ends
                g = self._game_at(checkpoints, plan, j)
                expect = "accept" if p.accept else "reject"
                if p.accept:
                    reason = f" ({e['reason']})" if e.get("reason") else ""
                    kind, want, have = "verdict-rejects", "accepted", f"rejected{reason}"
                    message = f"{p.text}: the reference accepts it, the engine rejects it{reason}"
                    found = self._attribute(seg, _done(done) + [{"do": p.text, "expect": "accept"}],
                                            Observation(p.text, False, legal=_group_only(
                                                g, None if agree is None else self._completed(g, agree),
                                                p.text)),
                                            (kind, p.action.kind))
                    rule = found.rule or "" if found is not None else ""
                    alternatives = _others(found) if rule else ()
                    rule = rule or self._fallback_rule(g, p.action)
                else:
                    rule = p.rule or self._fallback_rule(self._game_at(checkpoints, plan, j), p.action)
                    alternatives = ()
                    kind, want, have = "verdict-accepts", f"rejected by {rule}", "accepted"
                    message = f"{p.text}: the reference rejects it by {rule}, the engine accepts it"
                self._report(kind, rule, p.action, want, have, message, seg,
                             _done(done) + [{"do": p.text, "expect": expect}], texts=[p.text],
                             alternatives=alternatives)
                self.agree = agree
                return "cut", j, {p.text}
            if not accepted:
                if fixed:
                    continue
                keep = self._keep(keep, seg, p.text, False)
                continue
            done.append(p.text)
            if state and not record_is(e.get("state"), p.record) and \
                    not _over_alike(e.get("state"), p.want()):
                keep = None
                listed = e.get("legal") if legal and isinstance(e.get("legal"), list) else None
                if listed is not None and not self._canonical:
                    listed = sorted(self._completed(self._game_at(checkpoints, plan, j + 1, cursor),
                                                    {" ".join(str(a).split()) for a in listed}))
                if not self._check_state(p.want(), e.get("state"), p.action, seg, _done(done),
                                         listed):
                    self.agree = None
                    if not fixed:
                        self._note(seg, p.text, True)
                    return ("cut", j + 1, set()) if self.positions else ("abandon", j, set())
            if legal:
                have = e.get("legal")
                # equal lists: the same set, unless ours repeats; then the evidence keeps ours,
                # a list of the same texts that nothing changes (else a copy of the engine's)
                kept = p.listed if type(have) is list and have == p.listed and \
                    len(p.listed) == len(p.legal) else None
                agreed = kept is not None or _same(have, p.legal)
            else:
                agreed, kept = False, None
            if fixed:
                pass
            elif keep is None:
                keep = self._keep(keep, seg, p.text, True, have if agreed else None)
            elif keep is not False and len(keep) < EVIDENCE_STEPS:  # as _keep keeps it
                keep.append((p.text, True, None, kept if kept is not None else
                             list(have) if agreed else None))
            if legal:
                agree = None
                if not agreed:
                    keep = None
                    g = self._game_at(checkpoints, plan, j + 1, cursor)
                    have_set = self._check_legal(g, p.legal, have, seg, _done(done))
                    if have_set is None:
                        return "abandon", j, set()
                    agree = have_set
                    nxt = plan[j + 1] if j + 1 < len(plan) and not fixed else None
                    if nxt is not None and nxt.accept != (nxt.text in have_set):
                        self.agree = agree
                        return "cut", j + 1, {nxt.text}
        self.agree = agree if legal else None
        return "done", len(plan), set()
