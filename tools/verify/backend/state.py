"""A symbolic game state for the z3 backend, with the clause vocabulary (reference_impl/vocab.py)
mapped onto it.

The state abstracts what clauses can see: hand sizes per seat, talon and discard counts, table
counts and the sets of ranks on the table, roles, passes, out seats, bout counters and the
bookkeeping of the last draw. Which cards a hand holds, and which are still in play rather than
discarded, is not tracked; where a clause needs a card
(the card played, the card covered) the action carries a symbolic rank and suit, and where it needs
to know whether a seat could add some card (`has_throw`, `any_throw`) the state carries a witness
card per seat that must pass the spec's own throw clauses. That over-approximates the game, so a
proof here holds for every real position; counterexamples are made concrete and replayed on the
interpreter before they are reported (tools/z3concrete.py).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import z3

from durak_spec.reference_impl import vocab
from durak_spec.reference_impl.lang import BOOL, CARD, SEAT, STR
from durak_spec.tools.verify.backend.values import (
    Card,
    Opt,
    Untranslatable,
    V,
    ite,
    pick,
    simp,
    zbool,
    zint,
)

SCALAR_INTS = ("talon", "A", "U", "discard", "attacker", "defender", "opener", "dealer",
               "last_attacker", "last_defender", "bout", "beaten", "dhs", "trump", "transferer",
               "fool", "added", "last_adder", "deal", "prev_fool", "prev_winner", "hidden_trump")
# `hidden`: a card lies face down under the turn-up (changeable trump); `hidden_trump` is the
# trump number rule deck.trump decides from that card once it is turned up.
SCALAR_BOOLS = ("taking", "finished", "fool_none", "after_loss", "hidden", "redealt")
SEAT_INTS = ("hand", "drew", "after_draw", "exchanges")
SEAT_BOOLS = ("passed", "out", "short")
RANK_BOOLS = ("table_ranks", "attack_ranks")
# Per aggregate over the covered pairs of the table (Machine.pair_aggregates): how many pairs
# satisfy its condition, counted as covers are laid (see machine.cover_card).
PAIR_INTS = ("pairs",)
# Per attack slot of the table, up to Machine.layer_slots (none unless a partial pickup can return
# cards): the seat that laid the attack card in that slot.
SLOT_INTS = ("laid",)
FIELDS = SCALAR_INTS + SCALAR_BOOLS + SEAT_INTS + SEAT_BOOLS + RANK_BOOLS + PAIR_INTS + SLOT_INTS

_ids = itertools.count()
_draws = itertools.count()
_made = [0, 0]  # fresh numbers and draw tags handed out since the last reset_names


def reset_names() -> None:
    """Start fresh variable names again from 0, so a search repeats exactly (same names, same
    terms, same models) whatever ran before it in the process, and two searches built alike ask
    z3 the same terms (invariants.check answers a question asked before from memory). Only
    where nothing built before is used after: a name made since means something else."""
    global _ids, _draws
    _ids = itertools.count()
    _draws = itertools.count()
    _made[:] = [0, 0]


def fresh_number() -> int:
    """A number no variable made since the last reset_names has in its name."""
    _made[0] += 1
    return next(_ids)


def draw_tag() -> int:
    """A fresh number for the variables of one draw (machine.replenish)."""
    _made[1] += 1
    return next(_draws)


def names_made() -> tuple:
    """How many fresh numbers and draw tags were handed out since the last reset_names: a
    translation that leaves it unchanged made no variable of its own."""
    return tuple(_made)


def seat_sum(terms):
    """The sum of int terms (folded when every one is a constant)."""
    total = 0
    for t in terms:
        total = total + t
    return simp(total) if not isinstance(total, int) else total


def count(bools):
    """How many of the bool terms hold."""
    return seat_sum(ite(b, 1, 0) for b in bools)


@dataclass
class SymAction:
    """An action of one kind with a symbolic seat and, for card kinds, symbolic cards.

    `card_in_hand`, `target_unbeaten` and `unbeaten_share_rank` are the vocabulary's facts about
    cards the abstraction does not hold; Machine.action_facts ties them to what the state holds."""

    kind: str
    seat: object
    card: Card | None = None
    target: Card | None = None
    card_in_hand: object = None
    target_unbeaten: object = None
    unbeaten_share_rank: object = None
    card_shown: object = None
    second_in_hand: object = None

    @classmethod
    def fresh(cls, kind: str, nranks: int, nsuits: int, tag: str = "") -> "SymAction":
        p = f"{kind}{tag}#{fresh_number()}"
        seat = z3.Int(f"{p}.seat")
        if kind not in vocab.CARD_KINDS:
            return cls(kind, seat)
        card = Card(z3.Int(f"{p}.card.rank"), z3.Int(f"{p}.card.suit"), z3.Int(f"{p}.card.own_suit"))
        two = kind in vocab.TARGET_KINDS or kind in vocab.SECOND_KINDS
        target = Card(z3.Int(f"{p}.target.rank"), z3.Int(f"{p}.target.suit")) if two else None
        second = kind in vocab.SECOND_KINDS
        return cls(kind, seat, card, target, z3.Bool(f"{p}.card_in_hand"),
                   z3.Bool(f"{p}.target_unbeaten") if target and not second else None,
                   z3.Bool(f"{p}.unbeaten_share_rank"), z3.Bool(f"{p}.card_shown"),
                   z3.Bool(f"{p}.second_in_hand") if second else None)

    def variables(self) -> list:
        """The action's z3 variables, in a fixed order (`renamed` maps one action's onto
        another's of the same kind)."""
        out = [self.seat]
        for card in (self.card, self.target):
            if card is not None:
                out += [card.rank, card.suit] + ([card.own] if card.own is not None else [])
        out += [self.card_in_hand, self.target_unbeaten, self.unbeaten_share_rank, self.card_shown,
                self.second_in_hand]
        return [v for v in out if v is not None]

    def names(self) -> dict:
        """Values for the action names a legality clause may use."""
        out = {"seat": V(self.seat, SEAT), "kind": V(self.kind, STR)}
        if self.card is not None:
            out.update(card=V(self.card, CARD), card_in_hand=V(self.card_in_hand, BOOL),
                       unbeaten_share_rank=V(self.unbeaten_share_rank, BOOL))
            if self.card_shown is not None:  # the shown cards are not held: a free bool
                out["card_shown"] = V(self.card_shown, BOOL)
        if self.second_in_hand is not None:  # the second card of an exchange
            out.update(second=V(self.target, CARD), second_in_hand=V(self.second_in_hand, BOOL))
        elif self.target is not None:
            out.update(target=V(self.target, CARD), target_unbeaten=V(self.target_unbeaten, BOOL))
        return out


@dataclass
class SymState:
    """Field values (z3 terms or Python constants) of one state under one `machine`
    (tools/z3machine.py: a ruleset and a player count)."""

    machine: object
    f: dict
    _can_throw: list | None = field(default=None, repr=False)
    _havoc: dict = field(default_factory=dict, repr=False)
    # The cards still in play (Card values), held only by a state made from an interpreter
    # State (`concrete`); elsewhere an aggregate over `in_play` is a fresh value (translate.py).
    cards_in_play: list | None = field(default=None, repr=False)

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def fresh(cls, machine, tag: str = "s") -> "SymState":
        p = f"{tag}#{fresh_number()}"
        n, nr = machine.n, machine.nranks
        f = {}
        for name in SCALAR_INTS:
            f[name] = z3.Int(f"{p}.{name}")
        for name in SCALAR_BOOLS:
            f[name] = z3.Bool(f"{p}.{name}")
        for name in SEAT_INTS:
            f[name] = [z3.Int(f"{p}.{name}[{i}]") for i in range(n)]
        for name in SEAT_BOOLS:
            f[name] = [z3.Bool(f"{p}.{name}[{i}]") for i in range(n)]
        for name in RANK_BOOLS:
            f[name] = [z3.Bool(f"{p}.{name}[{r}]") for r in range(nr)]
        f["pairs"] = [z3.Int(f"{p}.pairs[{k}]") for k in range(len(machine.pair_aggregates))]
        f["laid"] = [z3.Int(f"{p}.laid[{k}]") for k in range(machine.layer_slots)]
        return cls(machine, f)

    def replace(self, **changes) -> "SymState":
        f = dict(self.f)
        f.update(changes)
        return SymState(self.machine, f)

    def __getattr__(self, name):
        try:
            return self.__dict__["f"][name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def can_throw(self) -> list:
        """Per seat: the seat may add some card now. Created on first use, each with a witness
        card that must pass every throw clause (the machine adds those constraints)."""
        if self._can_throw is None:
            self._can_throw = self.machine.throw_witnesses(self)
        return self._can_throw

    # -- what the translator needs -----------------------------------------------------------
    @property
    def n(self):
        return self.machine.n

    @property
    def options(self):
        return self.machine.options

    @property
    def definitions(self):
        return self.machine.definitions

    @property
    def suits(self):
        return self.machine.suits

    def hand_of(self, seat):
        return pick(self.f["hand"], seat)

    def active(self):
        return self.machine.n - count(self.f["out"])

    def _next(self, seat, step_sign: int):
        """The next seat in the direction of `step_sign` (+1 clockwise) that is not out, or the
        seat itself (State.left_of, State.right_of)."""
        seat = simp(seat)
        n, out = self.machine.n, self.f["out"]
        if not isinstance(seat, int):
            return pick([self._next(i, step_sign) for i in range(n)], seat)
        result = seat
        for step in range(n - 1, 0, -1):
            nxt = (seat + step_sign * step) % n
            result = ite(out[nxt], result, nxt)
        return result

    def left(self, seat):
        return self._next(seat, 1)

    @property
    def teams(self) -> tuple:
        return self.machine.ruleset.seating(self.machine.n)[0]

    def right(self, seat):
        return self._next(seat, -1)

    def next_opponent(self, seat):
        """The next seat clockwise that is not out and not a teammate (State.next_opponent)."""
        seat = simp(seat)
        n, out, teams = self.machine.n, self.f["out"], self.teams
        if not isinstance(seat, int):
            return pick([self.next_opponent(i) for i in range(n)], seat)
        result = seat
        for step in range(n - 1, 0, -1):
            nxt = (seat + step) % n
            if teams[nxt] != teams[seat]:
                result = ite(out[nxt], result, nxt)
        return result

    def laid_count(self, seat):
        """Attack cards on the table the seat laid (State.laid), over the modelled slots."""
        a, laid = zint(self.f["A"]), self.f["laid"]
        return seat_sum(ite(z3.And(a > k, zint(laid[k]) == seat), 1, 0) for k in range(len(laid)))

    def team_out(self, seat):
        n, out, teams = self.machine.n, self.f["out"], self.teams
        return pick([simp(z3.And([zbool(out[y]) for y in range(n) if teams[y] == teams[x]]))
                     for x in range(n)], seat)

    def teams_in_game(self):
        n, out, teams = self.machine.n, self.f["out"], self.teams
        return seat_sum(ite(z3.Or([z3.Not(zbool(out[x])) for x in range(n) if teams[x] == t]), 1, 0)
                        for t in sorted(set(teams)))

    def value(self, name: str):
        """A vocabulary name's value in this state."""
        if name == "any_throw":
            return simp(z3.Or([z3.BoolVal(x) if isinstance(x, bool) else x for x in self.can_throw]))
        return _VALUES[name](self, self.f)

    def call(self, name: str, args: list):
        """A vocabulary function's value in this state for translated arguments."""
        f = self.f
        if name == "teammate":
            a, b = (simp(x) for x in args)
            teams = self.teams
            pairs = [(i, j) for i in range(len(teams)) for j in range(len(teams))
                     if i != j and teams[i] == teams[j]]
            if isinstance(a, int) and isinstance(b, int):
                return (a, b) in pairs
            return simp(z3.Or([z3.And(zint(a) == i, zint(b) == j) for i, j in pairs])) if pairs else False
        if name == "finish_place":
            raise Untranslatable("finish_place (the finishing order is not modelled)")
        if name == "cw":
            a, b = (simp(x) for x in args)
            n = self.machine.n
            if isinstance(a, int) and isinstance(b, int):
                return (b - a) % n
            d = zint(b) - zint(a)  # seats are 0..n-1, so Python's % is one wrap-around
            return ite(d >= 0, d, d + n)
        (x,) = args
        per_seat = {"hand": "hand", "is_out": "out", "passed": "passed", "drew": "drew",
                    "exchanges": "exchanges",
                    "hand_after_draw": "after_draw", "short_after_draw": "short"}
        if name in per_seat:
            return pick(f[per_seat[name]], x)
        if name == "left":
            return self.left(x)
        if name == "laid":
            return self.laid_count(x)
        if name == "has_throw":
            return pick(self.can_throw, x)
        if name == "team":
            return pick(list(self.teams), x)
        if name == "right":
            return self.right(x)
        if name == "next_opponent":
            return self.next_opponent(x)
        if name == "team_out":
            return self.team_out(x)
        if name == "lowest_rank":  # the cards of a hand are not held: a fresh rank per state
            return self.havoc(("lowest_rank", repr(x)), lambda: self._rank_or_none(x))
        raise KeyError(name)

    def _rank_or_none(self, seat):
        v = z3.Int(f"havoc.lowest_rank#{fresh_number()}")
        self.machine.side.append(z3.And(v >= 0, v < self.machine.nranks))
        return Opt(v, simp(zint(self.hand_of(seat)) == 0))

    def _turn_up_rank(self):
        """Which card is turned up is not held: a fresh rank, None once the talon is empty or,
        with a hidden card under it, holds that card alone."""
        v = z3.Int(f"havoc.turn_up_rank#{fresh_number()}")
        self.machine.side.append(z3.And(v >= 0, v < self.machine.nranks))
        talon = zint(self.f["talon"])
        return Opt(v, simp(z3.Or(talon == 0, z3.And(zbool(self.f["hidden"]), talon < 2))))

    def havoc(self, key, make):
        """The value of something the abstraction does not hold (an aggregate over the cards of a
        hand): one fresh value per state and key, made by `make()` the first time."""
        if key not in self._havoc:
            self._havoc[key] = make()
        return self._havoc[key]


_VALUES = {
    "players": lambda s, f: s.machine.n,
    "active_players": lambda s, f: s.active(),
    "attacker": lambda s, f: f["attacker"],
    "defender": lambda s, f: f["defender"],
    "opener": lambda s, f: f["opener"],
    "dealer": lambda s, f: f["dealer"],
    "trump_suit": lambda s, f: s.machine.trump_value(f["trump"]),
    "turn_up": lambda s, f: s.havoc("turn_up", s.machine.fresh_turn_up),
    "talon_count": lambda s, f: f["talon"],
    "turn_up_rank": lambda s, f: s.havoc(("turn_up_rank",), s._turn_up_rank),
    "hidden_card": lambda s, f: f["hidden"],
    "redealt": lambda s, f: f["redealt"],
    "discard_count": lambda s, f: f["discard"],
    "deck_size": lambda s, f: s.machine.deck_size,
    "bout_number": lambda s, f: f["bout"],
    "beaten_bouts": lambda s, f: f["beaten"],
    "table_attack_count": lambda s, f: f["A"],
    "table_unbeaten": lambda s, f: f["U"],
    "table_covered": lambda s, f: simp(zint(f["A"]) - f["U"]),
    "table_card_count": lambda s, f: simp(2 * zint(f["A"]) - f["U"]),
    "table_ranks": lambda s, f: tuple(f["table_ranks"]),
    "attack_ranks": lambda s, f: tuple(f["attack_ranks"]),
    "attack_rank_count": lambda s, f: count(f["attack_ranks"]),
    "defender_hand": lambda s, f: s.hand_of(f["defender"]),
    "defender_hand_at_start": lambda s, f: f["dhs"],
    "added_since_answer": lambda s, f: f["added"],
    "last_adder": lambda s, f: f["last_adder"],
    "taking": lambda s, f: f["taking"],
    "finished": lambda s, f: f["finished"],
    "last_attacker": lambda s, f: f["last_attacker"],
    "last_defender": lambda s, f: f["last_defender"],
    "team_play": lambda s, f: s.machine.ruleset.seating(s.machine.n)[1],
    "teams_in_game": lambda s, f: s.teams_in_game(),
    "fool": lambda s, f: Opt(f["fool"], f["fool_none"]),
    "deal_number": lambda s, f: f["deal"],
    "after_a_loss": lambda s, f: f["after_loss"],
    "previous_fool": lambda s, f: f["prev_fool"],
    "previous_winner": lambda s, f: f["prev_winner"],
}
VALUE_NAMES = set(_VALUES) | {"any_throw"}
CALL_NAMES = {"hand", "left", "cw", "is_out", "passed", "has_throw", "lowest_rank", "drew",
              "hand_after_draw", "short_after_draw", "team", "teammate", "next_opponent",
              "team_out", "finish_place", "right", "laid", "exchanges"}


def ite_state(c, a: SymState, b: SymState) -> SymState:
    """Field-wise if-then-else of two states of one machine."""
    c = simp(c)
    if isinstance(c, bool):
        return a if c else b
    f = {}
    for name in a.f:
        x, y = a.f[name], b.f[name]
        if x is y:
            f[name] = x
        elif isinstance(x, list):
            f[name] = [p if p is q else ite(c, p, q) for p, q in zip(x, y)]
        else:
            f[name] = ite(c, x, y)
    return SymState(a.machine, f)


def concrete(machine, s) -> SymState:
    """The symbolic state holding the values of an interpreter State `s` (backend cross-checks)."""
    f = {
        "talon": len(s.talon), "A": len(s.table), "U": s.unbeaten, "discard": len(s.discard),
        "attacker": s.attacker, "defender": s.defender, "opener": s.opener, "dealer": s.dealer,
        "last_attacker": s.last_attacker, "last_defender": s.last_defender,
        "bout": s.bout_number, "beaten": s.beaten_bouts, "dhs": s.defender_hand_at_start,
        "trump": machine.suit_index(s.trump_suit),
        "transferer": s.transferer if s.transferer is not None else 0,
        "fool": s.fool if s.fool is not None else 0, "fool_none": s.fool is None,
        "added": s.added_since_answer, "last_adder": s.last_adder,
        "deal": s.deal_number, "prev_fool": s.previous_fool, "prev_winner": s.previous_winner,
        "after_loss": s.after_a_loss,
        "hidden": s.hidden_card is not None, "hidden_trump": _hidden_trump(machine, s),
        "taking": s.taking, "finished": s.finished, "redealt": s.redealt,
        "hand": [len(h) for h in s.hands], "drew": list(s.drew), "after_draw": list(s.after_draw),
        "exchanges": list(s.exchanges),
        "passed": list(s.passed), "out": list(s.out), "short": list(s.short_after_draw),
        "table_ranks": [r in s.table_ranks for r in range(machine.nranks)],
        "attack_ranks": [r in s.attack_ranks for r in range(machine.nranks)],
        "pairs": [agg.fn(s) for agg in machine.pair_aggregates],
        "laid": (list(s.laid_by) + [0] * machine.layer_slots)[:machine.layer_slots],
    }
    turn_up = Card(s.trump_card.rank, machine.suits.index(s.trump_card.suit))
    in_play = [Card(c.rank, machine.suits.index(c.suit)) for c in s.in_play()]
    return SymState(machine, f, _can_throw=list(s.can_throw), _havoc={"turn_up": turn_up},
                    cards_in_play=in_play)


def _hidden_trump(machine, s) -> int:
    """The trump number rule deck.trump decides from the hidden card of `s` (-1 without one)."""
    if s.hidden_card is None:
        return -1
    shown = s.clone()
    shown.trump_card = s.hidden_card
    return machine.suit_index(machine.ruleset.decide_fns["trump_suit"](shown, None))
