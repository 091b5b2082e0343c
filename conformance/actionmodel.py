"""How an engine's own moves map onto the protocol's canonical actions (PROTOCOL.md "Action
models", protocol 1.1).

A case's script is a list of atomic actions. Most engines differ from it only in how they present
moves, and their adapter maps them as PROTOCOL.md says: explicit passes by players with nothing
to add, a single "done", no notion of whose turn it is, one move for opening and adding cards.
Two differences need the runner's help; an engine declares them in `hello` under "actions":

- `"pass_while_unbeaten": false`: the engine has no pass while an attack card is unbeaten (and the
  defender has not said take). Such a pass is never sent, and no legal set the engine is compared
  with holds one.
- `"opening": "one_move"`: the opener lays a multi-card opening as one move. The opening attack
  and the opener's further cards, up to the next action of anyone else, are sent as one move,
  `0 attack 7S 7C 7D`; while that opening could still grow, the opener's further cards and pass
  are left out of the legal sets compared.

`Stepper` plays moves on the reference as the model sees them (`legal`, `choices`, `apply`);
`translate` turns a case's script into the moves the model plays, with verdicts, states and legal
sets re-derived on the reference for the script actually sent. The runner and the fuzzer call
them; the reference engine plays multi-card openings through `apply_move`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from durak_spec.reference_impl.errors import IllegalAction, NotationError
from durak_spec.reference_impl.game import Game
from durak_spec.reference_impl.notation import action_text
from durak_spec.reference_impl.observation import Observation
from durak_spec.reference_impl.state import Action

# hello's "actions": capability -> (default, values).
CAPABILITIES = {"pass_while_unbeaten": (True, (True, False)),
                "opening": ("atomic", ("atomic", "one_move")),
                "idle_pass": ("refused", ("refused", "no_op"))}


@dataclass(frozen=True)
class ActionModel:
    """An engine's action model; the default is the canonical one (every action atomic)."""

    pass_while_unbeaten: bool = True
    opening: str = "atomic"
    idle_pass: str = "refused"  # no_op: a "done" from a player with nothing to add is accepted, changing nothing

    @classmethod
    def from_hello(cls, hello: dict) -> ActionModel:
        """The model an engine declares in hello's "actions" (none: the canonical model). An
        unknown capability or value raises ValueError naming it."""
        declared = hello.get("actions") or {}
        if not isinstance(declared, dict):
            raise ValueError(f"hello: actions must be an object, not {declared!r}")
        for key, value in declared.items():
            if key not in CAPABILITIES:
                raise ValueError(f"hello: actions.{key} is not a capability; known: "
                                 f"{', '.join(CAPABILITIES)}")
            if value not in CAPABILITIES[key][1] or type(value) is not type(CAPABILITIES[key][0]):
                raise ValueError(f"hello: actions.{key} is {value!r}; one of "
                                 f"{', '.join(map(repr, CAPABILITIES[key][1]))}")
        return cls(**declared)

    @property
    def canonical(self) -> bool:
        return self == ActionModel()

    def idle(self, action: Action, game: Game) -> bool:
        """Whether `action` is a pass from a player with nothing to add, which the reference
        refuses and an engine with idle_pass no_op accepts as a no-op: neither is a fault, so
        such a pass is neither sent nor probed."""
        if self.idle_pass != "no_op" or action.kind != "pass" or not game.explain(action)[0]:
            return False
        return not any(a.kind == "throw" and a.seat == action.seat for a in game.legal_actions())

    def expressible(self, action: Action, state, lead_open: bool) -> bool:
        """Whether the model has a move for the canonical `action` in `state`. `lead_open`: the
        table holds a one-move opening that nobody else has answered or added to yet."""
        if (action.kind == "pass" and not self.pass_while_unbeaten and state.unbeaten > 0
                and not state.taking):
            return False
        if lead_open and action.kind in ("throw", "pass") and action.seat == state.opener:
            return False  # a further card of the opening move, or declining to lay one
        return True

    def sendable(self, game: Game) -> list[Action]:
        """The reference's legal actions the model can express, for a caller that sends each
        one-move opening whole (the fuzzer): an opening is open while every card on the table
        is the opener's and unanswered, in a variant whose openings may hold several cards."""
        s = game.state
        lead_open = (self.opening == "one_move" and s.table and s.unbeaten == len(s.table)
                     and not s.taking and multi_card_openings(game.ruleset)
                     and all(x == s.opener for x in s.laid_by))
        return [a for a in game.legal_actions() if self.expressible(a, s, lead_open)]

    def describe(self) -> str:
        """How the model differs from the canonical one, e.g. 'opening one_move'."""
        parts = []
        for key, (default, _) in CAPABILITIES.items():
            value = getattr(self, key)
            if value != default:
                parts.append(f"{key} {str(value).lower() if isinstance(value, bool) else value}")
        return ", ".join(parts) or "canonical"


def multi_card_openings(ruleset) -> bool:
    """Whether the variant lets an opening hold several cards (option `opening`, which the
    capability of that name maps): where it does not, a one-move opening is one card and the
    opener's further cards are throw-ins like anyone else's (pile_on any_time, a siege)."""
    option = ruleset.spec.options.get("opening")
    return option is not None and ruleset.options.get("opening") != option.default


# -- moves ----------------------------------------------------------------------------------------

def move_actions(text: str, game: Game) -> list[Action]:
    """The atomic actions of a move: one action, or a multi-card opening `S attack C1 C2 ...`
    (the attack with C1, then throws of C2, ... by seat S)."""
    words = text.split() if isinstance(text, str) else []
    if len(words) > 3 and words[1] == "attack":
        return [game.parse_action(" ".join(words[:3]))] + [
            game.parse_action(f"{words[0]} throw {card}") for card in words[3:]]
    return [game.parse_action(text)]


def atomic_texts(text: str) -> list[str]:
    """A move's atomic actions as text: a one-move opening `S attack C1 C2` is `S attack C1` and
    `S throw C2`; any other move is itself."""
    words = text.split() if isinstance(text, str) else []
    if len(words) > 3 and words[1] == "attack":
        return [" ".join(words[:3])] + [f"{words[0]} throw {c}" for c in words[3:]]
    return [text]


def apply_move(game: Game, text: str) -> None:
    """Apply a move on the reference, all of its actions or none: IllegalAction (naming the rule
    that refuses the first action it cannot make) leaves the game unchanged."""
    actions = move_actions(text, game)
    if len(actions) == 1:
        game.apply_action(actions[0])
        return
    trial = game.clone()
    for action in actions:
        trial.apply_action(action)
    game.state, game._legal = trial.state, trial._legal


class Stepper:
    """A reference game played move by move as an engine's model sees it."""

    def __init__(self, model: ActionModel, game: Game):
        self.model, self.game = model, game
        self.lead: list[str] = []  # the one-move opening while it could still grow: its actions

    def expressible(self, action: Action) -> bool:
        """Whether the model has a move for the canonical `action` now."""
        return self.model.expressible(action, self.game.state, bool(self.lead))

    def legal(self) -> list[str]:
        """The reference's legal actions the model can express, as text."""
        return [action_text(a) for a in self.game.legal_actions() if self.expressible(a)]

    def visible(self, texts) -> list[str]:
        """An engine's listed actions without those the model cannot express, so that both
        sides are compared modulo the same actions."""
        out = []
        for text in texts:
            try:
                action = self.game.parse_action(text)
            except NotationError:
                out.append(text)  # left for the comparison to report
                continue
            if self.expressible(action):
                out.append(text)
        return out

    def choices(self) -> list[str]:
        """Every move the model can make now: its legal actions and, for one-move openings,
        each opening with any of the opener's further cards of its rank."""
        moves = self.legal()
        if self.model.opening != "one_move":
            return moves
        out = []
        for text in moves:
            out.append(text)
            action = self.game.parse_action(text)
            if action.kind != "attack":
                continue
            same = [c.text for c in self.game.state.hands[action.seat]
                    if c.rank == action.card.rank and c is not action.card]
            for k in range(1, len(same) + 1):
                out += [m for m in (" ".join([text, *extra]) for extra in combinations(same, k))
                        if _plays(self.game.clone(), m)]
        return out

    def apply(self, text: str) -> None:
        """Apply a move (IllegalAction leaves everything as it was)."""
        apply_move(self.game, text)
        words = text.split()
        self.lead = words[2:] if (self.model.opening == "one_move" and words[1] == "attack"
                                  and multi_card_openings(self.game.ruleset)) else []


def atomic_observations(observations: list, game: Game, model: ActionModel) -> list:
    """An engine's observed moves (diagnose.Observation) as the diagnosis reads them, played
    from `game` (the reference at the setup): a one-move opening `S attack C1 C2` becomes `S
    attack C1` and `S throw C2`, and each legal set the engine listed gets back, as the
    reference lists them, the actions its model cannot express (the diagnosis knows no action
    model: a pass it has no room for is no difference)."""
    stepper = Stepper(model, game)
    out = []
    for o in observations:
        if o.action is not None:
            try:
                stepper.apply(o.action)
            except (IllegalAction, NotationError, IndexError):
                pass  # the reference refuses it: the diagnosis does not play it either
        legal = o.legal
        if legal is not None:
            hidden = {action_text(a) for a in game.legal_actions()} - set(stepper.legal())
            legal = sorted(set(legal) | hidden)
        texts = atomic_texts(o.action) if o.action is not None else [None]
        out += [Observation(text, o.accepted) for text in texts]
        out[-1].state, out[-1].legal = o.state, legal
    return out


def _plays(game: Game, text: str) -> bool:
    try:
        apply_move(game, text)
    except (IllegalAction, NotationError):
        return False
    return True


# -- translating a case ---------------------------------------------------------------------------

@dataclass
class Move:
    """One move sent to the engine and what the reference says of it."""

    action: str
    steps: tuple[int, ...]           # the case steps it carries (several: a multi-card opening)
    expect: str = "accept"
    rule: str | None = None
    state: dict | None = None        # the fields the carried step compares, re-derived
    legal: list[str] | None = None   # re-derived when the carried step compares it


@dataclass
class Translation:
    """A case's script as an engine's model plays it."""

    moves: list[Move] = field(default_factory=list)
    legal: list[str] | None = None   # before the first move, when the case compares it
    dropped: list[tuple[int, str]] = field(default_factory=list)  # (case step, why)

    @property
    def changed(self) -> bool:
        return bool(self.dropped) or any(len(m.steps) > 1 for m in self.moves)


def translate(steps, game: Game, model: ActionModel, view, legal_before: bool = False) -> Translation:
    """Case steps (with action, expect, state, legal) as `model` plays them from `game`, the
    reference at the case's setup under the engine's variant (played on here).

    A pass the model has no room for is dropped. The opener's further cards join a one-move
    opening (in a variant whose openings may hold several cards), which is sent once it can grow
    no more; a refused further card is tried before it, as that opening with the card on top (its
    verdict and rule compared, not the state). Once another step came between (a step refused, a
    pass dropped), the opening has been sent and cannot grow: the opener's further cards and pass
    are dropped, and left out of the legal sets compared, until someone else's action is
    accepted. Each move's verdict and rule, and its state (the fields its step compares, from
    `view(game)`) and legal set wherever its step compares them, are re-derived on the
    reference."""
    stepper = Stepper(model, game)
    out = Translation(legal=sorted(stepper.legal()) if legal_before else None)
    opening: Move | None = None  # the one-move opening while it can grow, kept last
    for i, step in enumerate(steps):
        try:
            action = game.parse_action(step.action)
        except NotationError:  # sent and refused: an opening stays as it was
            opening = None
            out.moves.append(_derived(Move(step.action, (i,), "reject"), step, stepper, view))
            continue
        if opening is not None and action.kind == "throw" and action.seat == game.state.opener:
            text = f"{opening.action} {action.card.text}"
            out.moves.remove(opening)
            try:
                game.apply_action(action)
            except IllegalAction as exc:  # this card on top of the opening is refused
                out.moves += [Move(text, opening.steps + (i,), "reject", exc.rule_id), opening]
                continue
            stepper.lead.append(action.card.text)
            opening = _derived(Move(text, opening.steps + (i,)), step, stepper, view)
            out.moves.append(opening)
            continue
        opening = None
        if model.idle(action, game):
            out.dropped.append((i, "the engine accepts a pass with nothing to add as a no-op "
                                   "(actions.idle_pass no_op)"))
            continue
        if not stepper.expressible(action):
            why = ("no pass while an attack card is unbeaten" if not stepper.lead
                   else f"no {action.kind} by the opener once its one-move opening was sent")
            out.dropped.append((i, f"the engine's model has {why}"))
            continue  # an opening stays as the reference sees it: it could still grow
        move = Move(step.action, (i,))
        try:
            stepper.apply(step.action)
        except IllegalAction as exc:  # nothing changed: an opening stays open
            move.expect, move.rule = "reject", exc.rule_id
        out.moves.append(_derived(move, step, stepper, view))
        if stepper.lead and move.expect == "accept" and action.kind == "attack":
            opening = move
    return out


def _derived(move: Move, step, stepper: Stepper, view) -> Move:
    if step.state is not None:
        full = view(stepper.game)
        move.state = {k: full[k] for k in step.state if k in full}
    if step.legal is not None:
        move.legal = sorted(stepper.legal())
    return move
