"""A mid-deal position reached from a deal: the deal and the legal actions that lead to it.

Most engines can only deal and play (PROTOCOL.md: `positions: false`). For a case that starts
from a position, `reach` finds a deal (hands, talon, trump, dealer, and the first attacker where
the rules would pick another) and a prefix of legal actions after which the reference's observable
state is exactly the position's: hands, talon in order, trump, table, roles, taking, passed, out,
discard count, bout and beaten bouts. Every answer is checked by replaying it on the reference.

The search is constructive. The position's table is the current bout: its attack cards are laid
and covered again from a deal in which their players still hold them, in every order the rules
allow (a depth-first search over the reference's own legal actions, so every rule of the variant
is obeyed, none restated here). Every card of the table is given to a player who laid it: an attack
card to the main attacker or another who may add, a covering card to the defender, or, where a
transfer or a shown card can move the defence on within the bout, to any seat. Earlier bouts, where
the position counts some (bout, beaten_bouts), are played before it as the shortest bouts there
are: a card beaten off with a card of the discard, or a card taken into the hand that holds it. A
position that does not say its bout may lie in a later one: where the rules of the bout read the
bout counts, the table is also laid as in a later bout (every count the rules tell apart), and
where they read what earlier bouts leave behind (cards drawn, exchanges made) a failure proves
nothing. Where the search covers every history that can end in the position (the first bout, or
any bout alike; every opener and every assignment of the table's cards, within the bounds), a
failure proves the position unreachable and the answer says so; otherwise it gives up, saying
`not_found` and what it left out.

The result is language-neutral (schemas/from_deal.schema.json), shipped in case files under
`from_deal:` for the case's own presets (CASES.md), and cached per spec, variant and case.
"""

from __future__ import annotations

import ast
import itertools
import time
from dataclasses import dataclass, field

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import action_text, state_json
from durak_spec.reference_impl.state import Action
from durak_spec.reference_impl.vocab import ACTIONS, STATE

NODES = 100000        # bound on the reference states one search visits
ASSIGNMENTS = 4096    # bound on the ways of giving the table's cards to players
PRIOR_ORDERS = 64     # bound on the orders of earlier bouts (beaten off or taken) tried
LATER_BOUTS = 3       # a position that does not fix its bout is also sought this many bouts on
# Action kinds that move the roles within a bout (transfer, show): where one can be legal, any
# seat may have opened the bout, laid a card or covered one before the defence moved on, and the
# search tries them all. The others (a trump exchange, an exchange with the talon, a redeal)
# change neither the table nor a hand's size, and a deal may hold their outcome directly.
MOVES_ROLES = tuple(k for k, a in ACTIONS.items() if a.get("moves_roles"))
# The kinds of action the search plays to lay a table (the others change neither the table nor
# a hand's size, and a history may leave them out).
LAYS = ("attack", "throw", "transfer", "show", "cover", "take", "pass")
# What a later bout of the deal may hold otherwise than its first, given the same cards: the bout
# counts, and what earlier bouts leave behind (reference_impl/state.py; the finishing order only
# ranks players once the game is over, which the search never plays to). A position that does not
# say its bout may lie in a later one: the counts are tried (_later_bouts_alike); where a rule of
# the bout reads what earlier bouts leave behind, a failure proves nothing.
COUNTS = frozenset({"bout_number", "beaten_bouts"})
LEFT_BEHIND = frozenset(n for n, e in STATE.items() if any(
    f"s.{attr}" in e.code for attr in ("drew", "after_draw", "short_after_draw", "exchanges",
                                       "last_table", "last_taken", "last_attacker",
                                       "last_defender", "emptied")))


@dataclass
class Reached:
    """The answer of a search: `found` (setup and prefix), `unreachable` (a proof: the search
    covered every history) or `not_found` (within its bound); `why` says what stopped it, `rule`
    the rule that forbids the action the position needs, where one does."""

    status: str
    setup: dict | None = None
    prefix: list[str] = field(default_factory=list)
    why: str = ""
    rule: str = ""
    nodes: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict:
        """The language-neutral block (schemas/from_deal.schema.json)."""
        if self.status == "found":
            return {"setup": self.setup, "prefix": list(self.prefix)}
        out = {"unreachable" if self.status == "unreachable" else "not_found": self.why}
        if self.rule:
            out["rule"] = self.rule
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Reached":
        if "setup" in data:
            return cls("found", data["setup"], list(data.get("prefix", [])))
        if "unreachable" in data:
            return cls("unreachable", why=data["unreachable"], rule=data.get("rule", ""))
        return cls("not_found", why=data.get("not_found", ""), rule=data.get("rule", ""))


def observe(state) -> tuple:
    """The observable state a position fixes, in a form compared as a whole."""
    view = state_json(state)
    return (tuple(tuple(sorted(h)) for h in view["hands"]), tuple(view["talon"]), view["trump"],
            view.get("hidden"), tuple(sorted(tuple(p) for p in view["table"])), view["attacker"],
            view["defender"], view["taking"], tuple(view["passed"]), tuple(view["out"]),
            view["discard_count"], view["bout"], view["beaten_bouts"], view["finished"])


_FIELDS = ("hands", "talon", "trump", "hidden", "table", "attacker", "defender", "taking", "passed",
           "out", "discard count", "bout", "beaten bouts", "finished")


def first_difference(a: tuple, b: tuple, names=_FIELDS) -> str:
    for name, x, y in zip(names, a, b):
        if x != y:
            return f"{name}: {x!r} instead of {y!r}"
    return ""


def check(ruleset, position: dict, reached: Reached, steps: list[str] | None = None) -> str | None:
    """Why `reached` does not lead to `position` under `ruleset` (replayed on the reference), or
    None when it does: same observable state (bout counts aside where the position gives none),
    the same legal actions, and `steps` playing alike from both."""
    try:
        target = Game(ruleset, Setup.from_json(position, ruleset.deck, ruleset.player_limits))
        game = play(ruleset, reached)
    except (DurakError, RuntimeError) as exc:
        return str(exc)
    have, want = observe(game.state), observe(target.state)
    if free_bout(position):
        have, want = _sans_counts(have), _sans_counts(want)
    if have != want:
        names = _FIELDS[:11] + _FIELDS[13:] if free_bout(position) else _FIELDS
        return f"the prefix ends elsewhere ({first_difference(have, want, names)})"
    if _legal(game) != _legal(target):
        return "the prefix ends in the position's cards but with other legal actions"
    if steps and not replays_alike(game, target, steps):
        return "the case's steps play otherwise after the prefix than from the position"
    return None


def play(ruleset, reached: Reached) -> Game:
    """The reference game after the deal and the prefix (IllegalAction if a step is illegal)."""
    game = Game(ruleset, Setup.from_json(reached.setup, ruleset.deck, ruleset.player_limits))
    for text in reached.prefix:
        game.apply_action(game.parse_action(text))
    return game


def _legal(game: Game) -> set[str]:
    return {action_text(a) for a in game.legal_actions()}


def _sans_counts(obs: tuple) -> tuple:
    """An observed state without the bout and beaten-bout counts."""
    return obs[:11] + obs[13:]


def free_bout(position: dict) -> bool:
    """A position that does not say which bout it is in (no bout, no beaten_bouts)."""
    return not any(k in position for k in ("bout", "beaten_bouts"))


def replays_alike(game: Game, target: Game, steps: list[str]) -> bool:
    """Whether `steps` play alike from both games: verdicts, rules, observable states (bout
    counts aside) and legal sets after each."""
    a, b = game.clone(), target.clone()
    for text in steps:
        try:
            act_a, act_b = a.parse_action(text), b.parse_action(text)
        except DurakError:
            return True  # a step in another notation: the runner's business
        legal_a, legal_b = act_a in a.legal_actions(), act_b in b.legal_actions()
        if legal_a != legal_b:
            return False
        if not legal_a:
            if a.explain(act_a)[0] != b.explain(act_b)[0]:
                return False
            continue
        try:
            a.apply_action(act_a)
            b.apply_action(act_b)
        except (DurakError, RuntimeError):
            return False
        if _sans_counts(observe(a.state)) != _sans_counts(observe(b.state)) or _legal(a) != _legal(b):
            return False
    return True


def reach(ruleset, position: dict, steps: list[str] | None = None,
          nodes: int | None = None) -> Reached:
    """Search a deal and a prefix that reach `position` under `ruleset`; with `steps` (a case's
    actions), one after which they play as from the position (verdicts, rules, states, legal)."""
    t0 = time.perf_counter()
    search = _Search(ruleset, position, nodes or NODES)
    search.steps = list(steps or [])
    try:
        result = search.run()
    except DurakError as exc:
        result = Reached("not_found", why=f"the position cannot be played: {exc}")
    result.nodes, result.seconds = search.nodes, time.perf_counter() - t0
    return result


class _Budget(Exception):
    pass


class _Search:
    def __init__(self, ruleset, position: dict, nodes: int):
        self.rs, self.position, self.limit = ruleset, position, nodes
        self.nodes = 0
        self.cut = False          # a bound stopped some branch: a failure proves nothing
        self.best = (-1, "", "")  # (progress, why, rule) of the deepest dead end
        self.best_at = None       # (state, action) where that rule forbids the action
        self.others_cover = False
        self.left_behind: frozenset = frozenset()
        self._assignments_cut = False
        # transfers (or a passport shown) can move the roles within the bout: then any seat may
        # have opened it and laid a card, and the search tries them all
        self.moves_roles = any(not any(cr.clause.const and cr.clause.value is False
                                       for cr in ruleset.legality.get(k, [])) for k in MOVES_ROLES)

    # -- the whole search -----------------------------------------------------------------------
    def run(self) -> Reached:
        rs = self.rs
        pos = Setup.from_json(self.position, rs.deck, rs.player_limits)
        unsettled = Game.unsettled(rs, pos)
        target = Game(rs, pos)
        # a position that does not say which bout it is in may lie in any bout
        self.free_bout = free_bout(self.position)
        self.target = target
        self.want, self.want_legal = self.seen(target.state), _legal(target)
        if not pos.is_position:
            return Reached("found", pos.to_json(), [])
        if self.seen(unsettled.state) != self.want:
            return Reached("unreachable", why="the rules end the bout at once in this position "
                           "(nobody may act in it), so no history stops there")
        discard = len(target.state.discard)
        if pos.beaten_bouts * 2 > discard:
            return Reached("unreachable", why=f"{pos.beaten_bouts} bout(s) beaten off put at least "
                           f"{pos.beaten_bouts * 2} cards in the discard, which holds {discard}")
        # roles a position leaves out are the rules' (Game decided them)
        pos.attacker, pos.defender = target.state.attacker, target.state.defender
        self.pos = pos
        prior = pos.bout - 1
        try:
            found = self._current_bout(prior) if prior == 0 else \
                self._after_bouts(prior, pos.beaten_bouts)
        except _Budget:
            found, self.cut = None, True
        if found is not None:
            return found
        progress, why, rule = self.best
        complete = not self.cut and prior == 0 and self._simple_variant()
        if complete and self.free_bout:
            complete = self._later_bouts_alike()
            self.best = (progress, why, rule)
        if self.free_bout and not complete:  # later in the deal, after bouts beaten or taken
            for later in range(1, LATER_BOUTS + 1):
                for beaten in range(later, len(pos.out) - 1, -1):
                    try:
                        found = self._after_bouts(later, beaten)
                    except _Budget:
                        found, self.cut = None, True
                    if found is not None:
                        return found
        why = why or "no order of the table's cards could be played"
        if complete:
            return Reached("unreachable", why=why, rule=rule)
        return Reached("not_found", why=f"no history found; {why}; that proves nothing, as "
                       f"{self._gap(prior)}", rule=rule)

    def _gap(self, prior: int) -> str:
        """What the search left out, which a failure cannot rule out."""
        if self.cut:
            return f"the search stopped at its bound of {self.limit} states"
        if prior:
            return "earlier bouts are tried in their simplest shapes only"
        if self._assignments_cut:
            return f"at most {ASSIGNMENTS} ways of giving the table's cards to players are tried"
        if self.others_cover:
            return "players other than the defender could cover, which the search does not try"
        if self.left_behind:
            return (f"the position does not say its bout, and {', '.join(sorted(self.left_behind))} "
                    "(what earlier bouts leave behind) may decide otherwise in a later bout")
        return ("the position does not say its bout, and it may be reached in a later bout, "
                "where the rules read the bout counts")

    def seen(self, state) -> tuple:
        """The observable state compared; without the bout counts when the position leaves
        them out (the case replay check, `steps`, then shows they change nothing it tests)."""
        obs = observe(state)
        return _sans_counts(obs) if self.free_bout else obs

    def _simple_variant(self) -> bool:
        """Every opener and assignment of attack cards to players was tried, and nobody but the
        defender could cover (covers are given to the defender)."""
        return not self._assignments_cut and not self.others_cover

    # -- the current bout -------------------------------------------------------------------------
    def _current_bout(self, prior: int, history=None) -> Reached | None:
        """Lay the table from a deal (after `history`: earlier bouts, when given)."""
        pos = self.pos
        openers = [pos.attacker] + ([s for s in range(pos.players) if s != pos.attacker
                                     and s not in pos.out] if self.moves_roles else [])
        for hands, prefix_bouts, attacker in (history or [(None, None, s) for s in openers]):
            for owner in self._assignments(attacker):
                found = self._lay(owner, hands, prefix_bouts, attacker)
                if found is not None:
                    return found
        return None

    def _assignments(self, attacker):
        """Who laid each card of the table, as {card: seat}: each attack card by the main attacker
        or another player who may add; each covering card by the defender or, where transfers (or
        a shown card) move the roles within the bout, by any seat that may have defended before
        (the reference's legal actions say who may). Assignments with fewer covers by others come
        first."""
        pos = self.pos
        attacks = [a for a, _ in pos.table]
        answers = [d for _, d in pos.table if d is not None]
        others = [s for s in range(pos.players) if s != attacker
                  and (s != pos.defender or self.moves_roles)]
        choices = [attacker] + others
        defenders = [pos.defender] + ([s for s in range(pos.players) if s != pos.defender]
                                      if self.moves_roles else [])
        # a player in the game with no cards left and no talon to draw from laid some of them
        # (a deal gives everyone cards): the assignments that leave such a player out are no deal
        must = {s for s in range(pos.players) if not pos.hands[s] and not pos.talon
                and s not in pos.out}
        coverings = sorted(itertools.product(defenders, repeat=len(answers)),
                           key=lambda c: sum(s != pos.defender for s in c))
        count = 0
        for covered_by in coverings:
            for owners in itertools.product(choices, repeat=len(attacks)):
                if not must <= set(owners) | set(covered_by):
                    continue
                if count == ASSIGNMENTS:
                    self._assignments_cut = True
                    return
                count += 1
                yield {**dict(zip(attacks, owners)), **dict(zip(answers, covered_by))}

    def _deal_hands(self, owner: dict, hands=None) -> list[list]:
        out = [list(h) for h in (hands if hands is not None else self.pos.hands)]
        for card, seat in owner.items():
            out[seat].append(card)
        return out

    def _lay(self, owner: dict, hands, prefix_bouts, attacker, later=None) -> Reached | None:
        """The table laid from the deal that gives each card to its `owner` (after earlier bouts,
        where `prefix_bouts` makes them); with `later` (bout, bouts beaten off), from that deal
        as if it were that later bout, which is no history but shows whether one might exist."""
        pos, rs = self.pos, self.rs
        deal_hands = self._deal_hands(owner, hands)
        if prefix_bouts is None:
            setup = Setup(deal_hands, list(pos.talon), pos.trump, pos.dealer, hidden=pos.hidden)
            if later is not None:  # a seat out now and given no card of the table went out before
                setup.out = [s for s in pos.out if not deal_hands[s]]
                setup.bout, setup.beaten_bouts = later
            try:
                game = Game(rs, setup)
            except DurakError:
                game = None
            if game is None or game.state.attacker != attacker:
                setup.attacker = attacker
                try:
                    game = Game(rs, setup)
                except DurakError as exc:
                    self._dead(0, f"its deal cannot be played: {exc}", "")
                    return None
            prefix: list[str] = []
            if later is not None:
                game = self._as_later(game, setup, attacker, later)
                if game is None:
                    return None
        else:
            setup, prefix = prefix_bouts(deal_hands)
            if setup is None:
                return None
            game = setup_game = Game(rs, setup)
            del setup_game
            for text in prefix:
                game.apply_action(game.parse_action(text))
        if not self.moves_roles and (game.state.defender != pos.defender
                                     or game.state.attacker != attacker):
            decision = "first_defender" if later is None else "next_defender"
            self._dead(0, f"a bout opened by seat {attacker} is defended by seat "
                       f"{game.state.defender}, not by seat {pos.defender}",
                       rs.decisions[decision].rule.id)
            return None
        covers = {a: d for a, d in pos.table if d is not None}
        path: list[str] = []
        seen: set = set()
        if self._dfs(game, owner, covers, path, seen):
            return Reached("found", setup.to_json(), prefix + path)
        return None

    def _as_later(self, game: Game, setup: Setup, attacker: int, later) -> Game | None:
        """The deal's game as bout `later[0]` after `later[1]` bouts beaten off, opened by
        `attacker` against the defender the rotation rules give (reference_impl/primitives.py
        next_roles), or None where they give none."""
        s = game.state.clone()
        s.bout_number, s.beaten_bouts = later
        s.attacker = s.opener = s.last_adder = attacker
        defender = self.rs.decide_fns["next_defender"](s, None)
        if defender is None or defender == attacker:
            return None
        s.defender = defender
        s.defender_hand_at_start = len(s.hands[defender])
        return Game.resumed(self.rs, setup, s)

    def _dfs(self, game: Game, owner: dict, covers: dict, path: list, seen: set) -> bool:
        self.nodes += 1
        if self.nodes > self.limit:
            raise _Budget()
        s = game.state
        if self.seen(s) == self.want:
            if _legal(game) != self.want_legal:
                self._dead(99, "the table is laid but other actions are legal there", "")
            elif self.steps and not replays_alike(game, self.target, self.steps):
                self._dead(99, "the table is laid but the case's steps play otherwise there", "")
            else:
                return True
        key = (observe(s), s.added_since_answer, s.last_adder, tuple(s.can_throw),
               tuple(s.laid_by), s.transferer)
        if key in seen:
            return False
        seen.add(key)
        on_table = {a for a, _ in s.table}
        covered = {a for a, d in s.table if d is not None}
        pos = self.pos
        moves, missing = [], []
        legal = game.legal_actions()
        for a in legal:
            kind, card = a.kind, a.card
            if kind == "cover" and a.seat != pos.defender and not self.moves_roles:
                self.others_cover = True  # covers by others are not searched: no proof
            if kind in ("attack", "throw", "transfer") and card in owner and card not in on_table \
                    and owner[card] == a.seat:
                moves.append((0, a))
            elif kind == "cover" and covers.get(a.target) is card and a.target not in covered \
                    and owner[card] == a.seat:
                moves.append((0, a))
            elif kind == "take" and pos.taking and not s.taking:
                moves.append((1, a))
            elif kind in ("pass", "show"):
                moves.append((2, a))
        for card, seat in owner.items():  # what the position needs and the rules forbid now
            if card not in on_table:
                missing.append(Action("throw" if s.table else "attack", seat, card))
        for target, card in covers.items():
            if target in on_table and target not in covered:
                missing.append(Action("cover", owner[card], card, target))
        if len(on_table) == len(owner) and len(covered) == len(covers):
            if pos.taking and not s.taking:
                missing.append(Action("take", pos.defender))
            missing += [Action("pass", seat) for seat in pos.passed if not s.passed[seat]]
        bout = s.bout_number
        placed = len(on_table) + len(covered) + (1 if s.taking else 0)
        for a in missing:
            if a not in legal:
                rule, reason = game.explain(a)
                self._dead(placed + 1, f"{rule or 'the rules'} forbid(s) `{action_text(a)}` "
                           f"({reason})" if reason else f"`{action_text(a)}` is not legal", rule,
                           (s, a))
                break
        for _, a in sorted(moves, key=lambda m: m[0]):
            child = game.clone()
            child.apply_action(a)
            if child.state.bout_number != bout or child.state.finished:
                if a.kind not in ("pass", "show"):
                    self._dead(placed + 1, f"`{action_text(a)}` ends the bout", "")
                continue
            path.append(action_text(a))
            if self._dfs(child, owner, covers, path, seen):
                return True
            path.pop()
        return False

    def _dead(self, progress: int, why: str, rule: str, at=None) -> None:
        """Remember the deepest dead end (a rule's verdict over a bout that ends at equal depth)."""
        if (progress, bool(rule)) > (self.best[0], bool(self.best[2])):
            self.best, self.best_at = (progress, why, rule), at

    def _later_bouts_alike(self) -> bool:
        """Whether no later bout of the deal reaches the position either, the first bout having
        failed: the current bout is laid again from each deal as if it were a later bout (the
        counts of bouts and bouts beaten off set, the roles as rotation.defender gives them), for
        every count the rules can tell apart (each count read compared with a constant: one
        past the largest). False where the rules read what earlier bouts leave behind, or where
        the table can be laid in such a bout (earlier bouts are then searched for real)."""
        clauses = self._clauses()
        read = frozenset().union(*(c.names for c in clauses))
        self.left_behind = read & LEFT_BEHIND
        if self.left_behind:
            return False
        # counts no rule reads are all alike: the second bout stands for every later one (and
        # holds the players out before it, whom no deal can)
        counted = [c for c in clauses if c.names & COUNTS]
        top = max([1] + [n.value for c in counted for n in ast.walk(c.tree)
                         if isinstance(n, ast.Constant) and type(n.value) is int]
                  + self._definition_ints(frozenset().union(*(c.names for c in counted))))
        pairs = [(b, k) for b in range(2, top + 2) for k in range(b)] if counted else [(2, 0)]
        pos = self.pos
        openers = [pos.attacker] + ([s for s in range(pos.players) if s != pos.attacker
                                     and s not in pos.out] if self.moves_roles else [])
        try:
            for later in pairs:
                for attacker in openers:
                    for owner in self._assignments(attacker):
                        if self._lay(owner, None, None, attacker, later=later):
                            return False
        except _Budget:
            self.cut = True
            return False
        return not self._assignments_cut

    def _clauses(self) -> list:
        """The compiled clauses that decide a bout's play: the legality and order of the kinds
        that lay the table, and the decisions."""
        rs = self.rs
        return ([cr.clause for k in LAYS for cr in rs.legality.get(k, [])]
                + [rs.order[k].clause for k in LAYS if k in rs.order]
                + [cr.clause for cr in rs.decisions.values()])

    def _definition_ints(self, names) -> list[int]:
        """The integer constants of the definitions among `names` (spec/definitions.yaml)."""
        out = []
        for name in names:
            entry = self.rs.spec.definitions.get(name)
            if entry is None:
                continue
            out += [n.value for n in ast.walk(ast.parse(entry.clause, mode="eval"))
                    if isinstance(n, ast.Constant) and type(n.value) is int]
        return out

    # -- earlier bouts ------------------------------------------------------------------------------
    def _after_bouts(self, prior: int, beaten: int) -> Reached | None:
        """Earlier bouts before the table: each a single card beaten off with a card of the
        discard, or taken by the defender into the hand that holds it now; the orders of beaten
        and taken bouts and the first attacker are searched, the table laid after each."""
        pos, rs = self.pos, self.rs
        game = Game(rs, pos)
        discard = list(game.state.discard)
        pairs = self._beaten_pairs(discard, beaten)
        # a seat out now went out attacking with its last card in a bout beaten off
        outs = dict(zip(pos.out, pairs or []))
        if len(outs) < len(pos.out):
            pairs = None
        if pairs is None:
            self._dead(0, f"{beaten} bout(s) beaten off need {2 * beaten} cards of the discard "
                       f"that beat each other; the discard holds {len(discard)}", "")
            return None
        orders = list(itertools.islice(
            (o for o in itertools.product((True, False), repeat=prior) if sum(o) == beaten),
            PRIOR_ORDERS))
        history = []
        for order in orders:
            for first in range(pos.players):
                if first in pos.out:
                    continue
                history.append((None, self._prior(order, first, pairs, outs), pos.attacker))
        for _, make, attacker in history:
            for owner in self._assignments(attacker):
                found = self._lay(owner, None, make, attacker)
                if found is not None:
                    return found
        return None

    def _beaten_pairs(self, discard, count):
        """`count` pairs (attack, cover) of discard cards, the cover higher of the same suit."""
        cards = sorted(discard, key=lambda c: (c.suit, c.rank))
        pairs = []
        i = 0
        while len(pairs) < count and i + 1 < len(cards):
            a, b = cards[i], cards[i + 1]
            if a.suit == b.suit and a.rank != b.rank:
                pairs.append((a, b))
                i += 2
            else:
                i += 1
        return pairs if len(pairs) == count else None

    def _prior(self, order, first: int, pairs, outs: dict):
        """A maker of (deal, prefix) for earlier bouts in `order` (True: beaten off), the first
        opened by seat `first`; None where it does not work out. A seat of `outs` holds only
        the attack card of its pair until it attacks with it in a bout beaten off."""
        rs, pos = self.rs, self.pos

        def make(deal_hands):
            hands = [list(h) for h in deal_hands]
            pending = dict(outs)
            for seat, (x, _) in pending.items():
                hands[seat].append(x)
            # cards taken in earlier bouts come from the hands that hold them at the end
            setup = Setup([list(h) for h in hands], list(pos.talon), pos.trump, pos.dealer,
                          attacker=first, hidden=pos.hidden)
            try:
                game = Game(rs, setup)
            except DurakError:
                return None, []
            plan, prefix = [p for p in pairs if p not in outs.values()], []
            moved: dict = {}
            for beaten_off in order:
                s = game.state
                a, d = s.attacker, s.defender
                if beaten_off and a in pending:
                    x, y = pending.pop(a)
                    hands[d].append(y)
                    acts = [f"{a} attack {x.text}", f"{d} cover {x.text} with {y.text}"]
                elif beaten_off:
                    if not plan:
                        return None, []
                    x, y = plan.pop()
                    hands[a].append(x)
                    hands[d].append(y)
                    acts = [f"{a} attack {x.text}", f"{d} cover {x.text} with {y.text}"]
                else:
                    pool = [c for c in hands[d] if c not in moved and c in pos.hands[d]]
                    if not pool:
                        return None, []
                    x = pool[0]
                    moved[x] = d
                    hands[d].remove(x)
                    hands[a].append(x)
                    acts = [f"{a} attack {x.text}", f"{d} take"]
                setup = Setup([list(h) for h in hands], list(pos.talon), pos.trump, pos.dealer,
                              attacker=first, hidden=pos.hidden)
                try:
                    game = Game(rs, setup)
                    for text in prefix:
                        game.apply_action(game.parse_action(text))
                    bout = game.state.bout_number  # the bout the acts play (it may end by itself)
                    for text in acts:
                        game.apply_action(game.parse_action(text))
                    while game.state.bout_number == bout and not game.state.finished:
                        passes = [m for m in game.legal_actions() if m.kind == "pass"]
                        if not passes:
                            return None, []
                        game.apply_action(passes[0])
                        acts.append(action_text(passes[0]))
                except (DurakError, RuntimeError):
                    return None, []
                prefix += acts
            return setup, prefix
        return make


def unreachable_message(reached: Reached, options: list[tuple[str, str]]) -> str:
    """'unreachable under X = Y' for the option values that make the difference, where known."""
    under = f" under {', '.join(f'{n} = {v}' for n, v in options)}" if options else ""
    return f"unreachable{under}: {reached.why}"
