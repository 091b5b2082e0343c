"""From an abstract z3 query to real cards: a Setup position (the mid-deal notation Setup.from_json
reads) and actions in canonical text, for replay on the reference interpreter.

The abstract state (tools/z3state.py) holds counts and rank sets. Given a model of some query,
this module keeps the model's counts (hand sizes, talon, table) and solves the query again jointly
with a card-level problem: which card lies in which hand, talon slot or table pair, so that the
rank sets, table pairs, the action's cards and who can throw all agree with real cards. Table
pairs pass the spec's own cover clauses that speak only of the two cards; who can throw is the
spec's throw clauses evaluated card by card.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.lang import CARD
from durak_spec.tools.verify.backend.state import SymAction, SymState
from durak_spec.tools.verify.backend.translate import Translator
from durak_spec.tools.verify.backend.values import Card, V, is_const, simp, solve_apart, zbool, zint

PAIR_NAMES = {"card", "target", "trump_suit", "players", "deck_size"}
TIMEOUT_MS = 30000


@dataclass
class Position:
    """A concrete position and the actions played from it, as conformance cases write them."""

    setup: dict
    actions: list[str]
    players: int


@dataclass
class Step:
    """One symbolic action and the state(s) its flow leaves (whose `can_throw`, when the query
    used it, the cards must reproduce: one state, or one per ruleset compared)."""

    action: SymAction
    after: SymState | list | None = None


def value(model, term):
    term = simp(term)
    if isinstance(term, (bool, int)):
        return term
    v = model.eval(term, model_completion=True)
    return z3.is_true(v) if z3.is_bool(v) else v.as_long()


class Cards:
    """The joint card-level problem for one model of a query over machine `m` and state s0."""

    def __init__(self, m, model, s0: SymState, steps: list[Step], query: list, views=()):
        self.m, self.s0, self.steps, self.query, self.views = m, s0, steps, query, list(views)
        self.model = model
        self.deck = m.ruleset.deck
        self.n = m.n
        f = s0.f
        self.counts = [h for h in f["hand"]] + [f["talon"], f["A"], f["U"]]
        self.fixed = [(t, value(model, t)) for t in self.counts]
        self.hands = [value(model, h) for h in f["hand"]]
        self.talon = value(model, f["talon"])
        self.A, self.U = value(model, f["A"]), value(model, f["U"])
        self.C = self.A - self.U
        self.z = [z3.Int(f"zone[{c.text}]") for c in self.deck.cards]
        self.suit = {c: m.suits.index(c.suit) for c in self.deck.cards}
        # a card hidden under the turn-up (changeable trump), of the suit it makes trump
        self.hidden = bool(value(model, f["hidden"])) and self.talon >= 2
        self.hidden_suit = value(model, f["hidden_trump"])
        # the cards are laid for this hidden flag (and, with a hidden card, this trump and hidden
        # suit): the card problem, solved anew, must not choose others, or the position written
        # would not be its model's (a hidden card its model lacks, or one that lies nowhere)
        self.fixed.append((f["hidden"], value(model, f["hidden"])))
        if self.hidden:
            self.fixed += [(f["trump"], value(model, f["trump"])), (f["hidden_trump"], self.hidden_suit)]

    # zones: seats 0..n-1, talon n, discard n+1, attack slot k at n+2+k, cover slot k at n+2+A+k
    def attack_zone(self, k):
        return self.n + 2 + k

    def cover_zone(self, k):
        return self.n + 2 + self.A + k

    def slot_card(self, zone) -> Card:
        z, cards = self.z, self.deck.cards
        return Card(z3.Sum([z3.If(z[c.index] == zone, c.rank, 0) for c in cards]),
                    z3.Sum([z3.If(z[c.index] == zone, self.suit[c], 0) for c in cards]))

    def is_card(self, card: Card, c) -> z3.BoolRef:
        """The (played) card is the deck's card `c`: its rank and its own suit."""
        return z3.And(zint(card.rank) == c.rank, zint(card.own_suit) == self.suit[c])

    def constraints(self) -> list:
        m, z, cards, f = self.m, self.z, self.deck.cards, self.s0.f
        top = self.cover_zone(self.C)
        out = [z3.And(x >= 0, x < top) for x in z] + [t == v for t, v in self.fixed]

        def count(zone):
            return z3.Sum([z3.If(x == zone, 1, 0) for x in z])
        out += [count(i) == h for i, h in enumerate(self.hands)] + [count(self.n) == self.talon]
        out += [count(self.attack_zone(k)) == 1 for k in range(self.A)]
        out += [count(self.cover_zone(k)) == 1 for k in range(self.C)]
        on_attack = [z3.And(x >= self.attack_zone(0), x < self.attack_zone(self.A)) for x in z]
        on_table = [z3.And(x >= self.attack_zone(0), x < top) for x in z]
        for name, where in (("attack_ranks", on_attack), ("table_ranks", on_table)):
            for r, present in enumerate(f[name]):
                out.append(zbool(present) == z3.Or([where[c.index] for c in cards if c.rank == r] or [False]))
        if self.hidden and self.hidden_suit >= 0:  # the talon holds a card for it, beside the turn-up
            need = 2 if self.hidden_suit == value(self.model, f["trump"]) else 1
            out.append(z3.Sum([z3.If(z[c.index] == self.n, 1, 0) for c in cards
                               if self.suit[c] == self.hidden_suit]) >= need)
        trump = f["trump"]
        pairs = [(self.slot_card(self.attack_zone(k)), self.slot_card(self.cover_zone(k)))
                 for k in range(self.C)]
        pure = {n for n, d in m.definitions.items() if d.params} | set(m.constants)
        rules = [cr for cr in m.ruleset.legality["cover"] if cr.clause.names - pure <= PAIR_NAMES]
        for attack, cover in pairs:
            names = {"card": V(cover, CARD), "target": V(attack, CARD)}
            out += [zbool(m.clause(self.s0, cr.clause.tree, names)) for cr in rules]
        t = Translator(self.s0)
        for count, agg in zip(f["pairs"], m.pair_aggregates):
            out.append(zint(count) == z3.Sum(
                [z3.If(zbool(t.pair_condition(agg.node, a, d)), 1, 0) for a, d in pairs] + [0]))
        if self.talon:
            out.append(z3.Or([z3.And(z[c.index] == self.n, self.suit[c] == trump) for c in cards]))
        played = [s.action for s in self.steps if s.action.card is not None]
        for i, a in enumerate(played):  # where the card is: the actor's hand exactly when the
            # query says so (a rejected action may play a card its actor does not hold)
            held = zbool(a.card_in_hand) if a.card_in_hand is not None else z3.BoolVal(True)
            out += [z3.Implies(self.is_card(a.card, c), (z[c.index] == a.seat) == held) for c in cards]
            out += [z3.Or(zint(a.card.rank) != b.card.rank, zint(a.card.own_suit) != b.card.own_suit)
                    for b in played[:i]]
        # unbeaten attack cards: (rank, still unbeaten) for table slots and cards played here
        unbeaten = [(self.slot_card(self.attack_zone(k)), z3.BoolVal(True)) for k in range(self.C, self.A)]
        for view in [self.s0] + self.views:  # views: s0's position under other rulesets
            out += self._throws(view, [], unbeaten)
        gone = []
        for step in self.steps:
            a = step.action
            if a.target is not None:
                out += [z3.Implies(self.is_card(a.target, c), z3.And(
                    z[c.index] >= self.attack_zone(self.C), z[c.index] < self.attack_zone(self.A))
                    == zbool(a.target_unbeaten)) for c in cards]
                unbeaten = [(u, z3.And(live, z3.Not(z3.And(u.rank == a.target.rank, u.suit == a.target.suit))))
                            for u, live in unbeaten]
            elif a.card is not None:
                unbeaten = unbeaten + [(a.card, z3.BoolVal(True))]
            if a.card is not None:
                gone.append(a.card)
            for after in step.after if isinstance(step.after, list) else [step.after]:
                if after is not None:
                    out += self._throws(after, list(gone), unbeaten)
        return out

    def _throws(self, state: SymState, gone: list, unbeaten) -> list:
        """Each seat can throw some card exactly when the query's `can_throw` says so."""
        if state._can_throw is None:
            return []
        m, z, out = state.machine, self.z, []
        # What does not depend on the seat, made once per card, not once per seat and card: the
        # same terms (z3 builds a term once), so the same question, at a fraction of the cost.
        per_card = []
        for c in self.deck.cards:
            usr = z3.And([z3.Implies(live, zint(u.rank) == c.rank) for u, live in unbeaten] or [True])
            suit = z3.IntVal(self.suit[c])
            per_card.append((c, usr, z3.IntVal(c.rank), suit, [z3.Not(self.is_card(g, c)) for g in gone]))
        for y, ct in enumerate(state._can_throw):
            w = SymAction.fresh("throw", m.nranks, m.nsuits, "-card")
            legal = zbool(m.passes_rules(state, w))
            seat, held_true = z3.IntVal(y), z3.BoolVal(True)
            options = []
            for c, usr, rank, suit, not_gone in per_card:
                term = z3.substitute(legal, (w.seat, seat), (w.card_in_hand, held_true),
                                     (w.card.rank, rank), (w.card.suit, suit), (w.card.own, suit),
                                     (w.unbeaten_share_rank, usr))
                options.append(z3.And([z[c.index] == y] + not_gone + [term]))
            out.append(zbool(ct) == z3.Or(options))
        return out

    def solve(self) -> Position | None:
        """The position, or None when no cards fit (`result` says whether z3 proved that: unsat,
        or gave up: unknown)."""
        self.result, model = solve_apart([zbool(x) for x in self.query + self.constraints()],
                                         TIMEOUT_MS)
        if self.result != z3.sat:
            return None
        return self._position(model)

    def block(self, counts_only: bool = False) -> z3.BoolRef:
        """After solve() found no cards: a constraint excluding the models of the same query
        whose card problem holds this one's constraints, so has no cards either when z3 proved
        this one has none (result unsat). Those are the models with this model's counts and
        hidden flag and, where a card lies hidden under the turn-up here, its trump and hidden
        suit (self.fixed); no others. With `counts_only`, every model with this one's counts:
        after a position the caller refused, where nothing is proved, so that the next model
        tries other counts rather than the same ones with another hidden card."""
        fixed = self.fixed[:len(self.counts)] if counts_only else self.fixed
        eqs = [zbool(t) == v for t, v in fixed if not is_const(simp(t))]
        return z3.Not(z3.And(eqs)) if eqs else z3.BoolVal(False)

    def _position(self, model) -> Position:
        cards, n, f = self.deck.cards, self.n, self.s0.f
        zone = {c: model.eval(self.z[c.index], model_completion=True).as_long() for c in cards}
        hands = [[c.text for c in cards if zone[c] == i] for i in range(n)]
        trump_suit = self.m.suits[value(model, f["trump"])]
        talon = [c for c in cards if zone[c] == n]
        if talon:
            trump = next(c for c in talon if c.suit == trump_suit)
            rest = [c for c in talon if c is not trump]
            # the turn-up's place in the talon (definition turn_up_on_top, rule deck.trump)
            talon = [trump] + rest if self.m.ruleset.turn_up_place == "top" else rest + [trump]
            if value(model, f["hidden"]):  # the last card, under the turn-up (rule
                # deck.changeable_trump); flag and suit are the first model's (self.fixed)
                suit = value(model, f["hidden_trump"])
                hidden = next((c for c in rest if suit < 0 or self.suit[c] == suit), None)
                if hidden is not None:
                    talon = [c for c in rest if c is not hidden] + [trump, hidden]
        else:
            spare = [c for c in cards if c.suit == trump_suit]
            trump = next((c for c in spare if zone[c] == n + 1), spare[0])
        table = []
        for k in range(self.A):
            a = next(c for c in cards if zone[c] == self.attack_zone(k))
            d = next(c for c in cards if zone[c] == self.cover_zone(k)) if k < self.C else None
            table.append([a.text, d.text if d else None])
        setup = {"hands": hands, "talon": [c.text for c in talon], "trump": trump.text,
                 "dealer": value(model, f["dealer"]), "attacker": value(model, f["attacker"]),
                 "defender": value(model, f["defender"])}
        if value(model, f["hidden"]) and len(talon) >= 2 and talon[-2] is trump:
            setup["hidden"] = talon[-1].text
        if table:
            setup["table"] = table
        if value(model, f["taking"]):
            setup["taking"] = True
        for name in ("passed", "out"):
            seats = [i for i in range(n) if value(model, f[name][i])]
            if seats:
                setup[name] = seats
        bout, beaten = value(model, f["bout"]), value(model, f["beaten"])
        if bout != 1:
            setup["bout"] = bout
        if beaten:
            setup["beaten_bouts"] = beaten
        actions = [action_text(self.m, model, s.action) for s in self.steps]
        return Position(setup, actions, n)


def card_text(m, model, card: Card) -> str:
    return m.card_text(value(model, card.rank), value(model, card.suit))


def action_text(m, model, a: SymAction) -> str:
    seat = value(model, a.seat)
    if a.kind == "cover":
        return f"{seat} cover {card_text(m, model, a.target)} with {card_text(m, model, a.card)}"
    if a.card is not None:
        return f"{seat} {a.kind} {card_text(m, model, a.card)}"
    return f"{seat} {a.kind}"


def replay(ruleset, position: Position):
    """(Game at the position, '') or (None, why the interpreter refuses the setup)."""
    try:
        setup = Setup.from_json(position.setup, ruleset.deck, ruleset.player_limits)
        return Game(ruleset, setup), ""
    except (DurakError, RuntimeError) as exc:
        return None, str(exc)
