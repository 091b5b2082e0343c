"""The reference interpreter: a game under a Ruleset, from an explicit setup.

API in the style of OpenSpiel: legal_actions(), apply_action(), is_terminal(), returns(), clone(),
observation(seat), full_state(). Which actions are legal, what they do and when a bout or the game
ends are all read from the compiled ruleset (spec/); this module only sequences them.
"""

from __future__ import annotations

import operator
import random
from collections import Counter
from dataclasses import dataclass, field
from functools import partial, wraps
from itertools import chain, filterfalse

from .cards import Card, Deck
from .errors import IllegalAction, NotationError, SetupError, clip_values, suggest
from .lang import failure_of
from .notation import action_text, cards_json, parse_action, state_json
from .ruleset import Ruleset, random_bits
from .state import Action, State
from .vocab import ACTION_KINDS

POSITION_FIELDS = ("table", "defender", "taking", "passed", "out", "bout", "beaten_bouts", "discard")
MATCH_FIELDS = ("deal", "previous_fool", "previous_winner")
_REAL = operator.attrgetter("real")  # the physical card (Card.real)
SETUP_FIELDS = ("hands", "talon", "trump", "hidden", "dealer", "attacker", "seed") + POSITION_FIELDS \
    + MATCH_FIELDS


def _naming_clauses(method):
    """`method`, with an error a clause raises while it runs turned into a ClauseError naming the
    clause (lang.failure_of); the hot paths (Game.apply_action) do the same inline."""
    @wraps(method)
    def run(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            raise failure_of(exc) or exc
    return run


@dataclass
class Setup:
    """An explicit start: hands per seat, talon from the top, trump card, dealer seat. Cards of the
    deck that appear nowhere are out of play (they start in the discard pile).

    A setup may also describe a position in the middle of a deal (the position fields): the cards
    on the table, the roles, whether the defender has said they take, who has passed, who is out,
    the bout number and how many bouts were beaten off. Without them it is the start of a deal.

    The match fields place the deal in a match (reference_impl/match.py): its number, and the fool
    and winner of the previous deal, which the start rules read (start.next_deal).

    `hidden` is the card lying face down under the turn-up under changeable trump (rule
    deck.changeable_trump): the last card of the talon, while the turn-up still lies in it.
    """

    hands: list[list[Card]]
    talon: list[Card]
    trump: Card
    dealer: int
    attacker: int | None = None
    seed: int | None = field(default=None, compare=False)
    table: list[list[Card | None]] = field(default_factory=list)
    defender: int | None = None
    taking: bool = False
    passed: list[int] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    bout: int = 1
    beaten_bouts: int = 0
    discard: int | None = None
    deal_number: int = 1
    previous_fool: int | None = None
    previous_winner: int | None = None
    hidden: Card | None = None

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def is_position(self) -> bool:
        """True when the setup is a mid-deal position rather than the start of a deal."""
        return bool(self.table or self.defender is not None or self.taking or self.passed
                    or self.out or self.bout != 1 or self.beaten_bouts)

    def to_json(self) -> dict:
        out = {"hands": [cards_json(h) for h in self.hands], "talon": [c.text for c in self.talon],
               "trump": self.trump.text, "dealer": self.dealer}
        if self.hidden is not None:
            out["hidden"] = self.hidden.text
        if self.attacker is not None:
            out["attacker"] = self.attacker
        if self.table:
            out["table"] = [[a.text, d.text if d is not None else None] for a, d in self.table]
        if self.defender is not None:
            out["defender"] = self.defender
        if self.taking:
            out["taking"] = True
        if self.passed:
            out["passed"] = list(self.passed)
        if self.out:
            out["out"] = list(self.out)
        if self.bout != 1:
            out["bout"] = self.bout
        if self.beaten_bouts:
            out["beaten_bouts"] = self.beaten_bouts
        if self.discard is not None:
            out["discard"] = self.discard
        if self.deal_number != 1:
            out["deal"] = self.deal_number
        for name in ("previous_fool", "previous_winner"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_json(cls, data, deck: Deck, limits=(2, 6)) -> "Setup":
        """Read a setup or position, naming the field of any mistake."""
        if not isinstance(data, dict):
            raise SetupError(f"a setup is a mapping with hands, talon and trump, not {type(data).__name__}")
        unknown = set(data) - set(SETUP_FIELDS)
        if unknown:
            raise SetupError(f"unknown field(s) {sorted(unknown)}; fields: {', '.join(SETUP_FIELDS)}"
                             f"{suggest(sorted(unknown)[0], SETUP_FIELDS)}")
        for name in ("hands", "trump"):
            if name not in data:
                raise SetupError("is missing", name)
        hands_raw = data["hands"]
        if not isinstance(hands_raw, list):
            raise SetupError("must be a list with one list of cards per seat", "hands")
        try:
            hands = [deck.cards_of(h, f"hands[{i}]") for i, h in enumerate(hands_raw)]
            talon = deck.cards_of(data.get("talon", []), "talon")
            trump = deck.card(data["trump"])
            hidden = deck.card(data["hidden"]) if data.get("hidden") is not None else None
            table = _table_of(data.get("table", []), deck)
        except NotationError as exc:
            raise SetupError(str(exc)) from None
        players = len(hands)
        if not limits[0] <= players <= limits[1]:  # before any seat is checked against them
            raise SetupError(f"{players} players; this deck is for {limits[0]} to {limits[1]}",
                             "hands")
        dealer = data.get("dealer", players - 1)
        for name in ("dealer", "attacker", "defender", "previous_fool", "previous_winner"):
            seat = dealer if name == "dealer" else data.get(name)
            if seat is not None:
                _check_seat(seat, players, name)
        seats = {}
        for name in ("passed", "out"):
            value = data.get(name, [])
            if not isinstance(value, list):
                raise SetupError("must be a list of seats", name)
            for i, seat in enumerate(value):
                _check_seat(seat, players, f"{name}[{i}]")
            seats[name] = sorted(set(value))
        counts = {}
        for name, low in (("bout", 1), ("beaten_bouts", 0), ("discard", 0), ("deal", 1)):
            value = data.get(name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < low):
                raise SetupError(f"must be a whole number of at least {low}, not "
                                 f"{clip_values(repr(value))}", name)
            counts[name] = value
        taking = data.get("taking", False)
        if not isinstance(taking, bool):
            raise SetupError(f"must be true or false, not {clip_values(repr(taking))}", "taking")
        setup = cls(hands, talon, trump, dealer, data.get("attacker"), table=table,
                    defender=data.get("defender"), taking=taking, passed=seats["passed"],
                    out=seats["out"], bout=counts["bout"] or 1,
                    beaten_bouts=counts["beaten_bouts"] or 0, discard=counts["discard"],
                    deal_number=counts["deal"] or 1, previous_fool=data.get("previous_fool"),
                    previous_winner=data.get("previous_winner"), hidden=hidden)
        setup.validate(deck, limits, None)  # the trump's place is checked per ruleset (Game)
        return setup

    def validate(self, deck: Deck, limits=(2, 6), turn_up_place="bottom") -> None:
        """Check the setup can occur; `turn_up_place` is where the trump card lies in the talon
        (None: anywhere)."""
        lo, hi = limits
        if not lo <= self.players <= hi:
            raise SetupError(f"{self.players} players; this deck is for {lo} to {hi}", "hands")
        zones = self._zones()
        copies, hand_zones = deck.copies, len(self.hands)  # zones up to the talon's
        own = list(chain.from_iterable(zones[:hand_zones + 1]))  # hands and talon
        real = list(map(_REAL, own))
        # every physical card in a zone
        held = real + list(map(_REAL, chain.from_iterable(zones[hand_zones + 1:])))
        if real != own or (len(set(held)) != len(held) if copies == 1 else
                           max(Counter(held).values(), default=0) > copies):
            self._check_cards(zones, copies)  # raises, naming the card and its zone
        talon = self.talon
        if self.hidden is not None:  # rule deck.changeable_trump
            if not talon or talon[-1] is not self.hidden:
                raise SetupError(f"the hidden card {self.hidden} must be the last card of the talon",
                                 "hidden")
            talon = talon[:-1]
            if not any(c is self.trump for c in talon):
                raise SetupError(f"a hidden card lies under the turn-up only while the turn-up "
                                 f"{self.trump} is in the talon; once it is drawn the hidden card "
                                 f"is turned up: give it as the trump", "hidden")
        if turn_up_place == "bottom" and talon and talon[-1] is not self.trump:
            raise SetupError(f"the trump card {self.trump} must be the bottom (last) card of the "
                             f"talon{' above the hidden card' if self.hidden else ''}, which is "
                             f"{talon[-1]}", "trump")
        if turn_up_place == "top" and self.trump in self.talon[1:] and self.talon[0] is not self.trump:
            raise SetupError(f"the trump card {self.trump} lies on top of the talon (first) or has "
                             f"been drawn; the top card is {self.talon[0]}", "trump")
        held = len(held)
        if self.discard is not None and held + self.discard != len(deck):
            raise SetupError(f"{held} cards in hands, talon and table and {self.discard} in the "
                             f"discard make {held + self.discard}; the deck has {len(deck)}",
                             "discard")
        if self.beaten_bouts > self.bout - 1:
            raise SetupError(f"{self.beaten_bouts} bouts beaten off before bout {self.bout}",
                             "beaten_bouts")
        for seat in self.out:
            if self.hands[seat]:
                raise SetupError(f"seat {seat} is out but holds {len(self.hands[seat])} card(s)", "out")
            if seat in (self.attacker, self.defender):
                raise SetupError(f"seat {seat} is out and cannot attack or defend", "out")
        if not self.table:
            for seat, hand in enumerate(self.hands):
                if hand or seat in self.out:
                    continue
                if not self.talon:
                    raise SetupError(f"seat {seat} holds no cards and the talon is empty, so that "
                                     f"player is already out: list the seat under out", f"hands[{seat}]")
                # every player draws up after each bout, and one left short emptied the talon
                raise SetupError(f"seat {seat} holds no cards at the start of a bout while the "
                                 f"talon holds {len(self.talon)}: every player draws up after "
                                 f"each bout, so no deal reaches this position", f"hands[{seat}]")
        if self.table and (self.attacker is None or self.defender is None):
            raise SetupError("a position with cards on the table must name its attacker and defender",
                             "table")
        if self.defender is not None and self.defender == self.attacker:
            raise SetupError("the attacker and the defender are the same seat", "defender")

    def _check_cards(self, zones: list[list[Card]], copies: int) -> None:
        """Raise for a card played as another suit in a hand or the talon, or held more times than
        the deck has it (validate's quick test found one)."""
        seen: dict[Card, int] = {}  # how many times each card lies in a zone
        for z, cards in enumerate(zones):
            for c in cards:
                real = c.real
                if real is not c and z <= len(self.hands):
                    raise SetupError(f"card {c} is played as another suit, which a card is only "
                                     "on the table", self._zone_names()[z])
                times = seen.get(real, 0)
                if times == copies:
                    self._too_many(c, copies)
                seen[real] = times + 1

    def _zones(self) -> list[list[Card]]:
        """The cards of each zone: hands by seat, the talon, then the table's pairs."""
        return self.hands + [self.talon] + [[c for c in pair if c is not None] for pair in self.table]

    def _zone_names(self) -> list[str]:
        return [f"hands[{i}]" for i in range(len(self.hands))] + ["talon"] + \
            [f"table[{i}]" for i in range(len(self.table))]

    def _too_many(self, card: Card, copies: int):
        """Raise for a card that lies in more places than the deck holds it."""
        places = [where for where, cards in zip(self._zone_names(), self._zones()) for c in cards
                  if c.real is card.real]
        times = "twice" if copies == 1 else f"{copies + 1} times"
        raise SetupError(f"card {card} appears {times} (also in {', '.join(places[:copies])}); "
                         f"the deck holds it {copies} time(s)", places[copies])

    @classmethod
    @_naming_clauses
    def deal(cls, ruleset: Ruleset, players: int, seed: int, dealer: int | None = None,
             **match) -> "Setup":
        """Shuffle with `seed` and deal per deck.deal and deck.trump (spec/rules/deck.yaml), by
        `dealer` (default: the last seat); `match` holds the match fields (MATCH_FIELDS)."""
        lo, hi = ruleset.player_limits
        if not isinstance(players, int) or not lo <= players <= hi:
            raise SetupError(f"{players} players; this deck is for {lo} to {hi}", "players")
        deck = list(ruleset.deck.pack)  # every card as many times as the deck holds it
        hidden = None
        _shuffle(deck, seed)
        probe = State.__new__(State)
        probe.n, probe.deck_size = players, len(deck)
        size = ruleset.hand_size_fn(probe)
        dealt = ruleset.dealt_cards_fn(probe)  # rule deck.deal
        if dealt > len(deck) or dealt < 0:
            raise SetupError(f"can't deal {size} cards to {players} players from {len(deck)} cards",
                             "players")
        dealer = players - 1 if dealer is None else dealer
        _check_seat(dealer, players, "dealer")
        # One card at a time from the dealer's left: seat j gets every players-th card.
        hands = [deck[(j - dealer - 1) % players:dealt:players] for j in range(players)]
        talon = deck[dealt:]
        # The turn-up (rule deck.trump): the bottom card, or with no talon the dealer's last card;
        # a card that may not show the trump (turn_up_allowed) makes way for the next one up.
        allowed = partial(ruleset.turn_up_allowed_fn, probe)
        if talon:
            at = len(talon) - 1
            while at > 0 and not allowed(talon[at]):
                at -= 1
            if not allowed(talon[at]):
                at = len(talon) - 1
            trump = talon[at]
            for i in range(at if ruleset.deck.copies > 1 else 0):  # its first copy, with packs
                if talon[i] is trump:
                    at = i
                    break
            del talon[at]
            # under the talon, drawn last; or on top, drawn first (turn_up_on_top)
            talon.insert(0 if ruleset.turn_up_place == "top" else len(talon), trump)
            # changeable trump: the next card lies face down under it (deck.changeable_trump)
            rest = [c for c in reversed(talon) if c is not trump and allowed(c)] \
                if ruleset.turn_up_hidden else []
            if rest:
                hidden = rest[0]
                talon.remove(hidden)
                talon.append(hidden)
        else:
            trump = next((c for c in reversed(deck[:dealt]) if allowed(c)), deck[dealt - 1])
        setup = cls(hands, talon, trump, dealer, **match)
        setup.hidden = hidden
        setup.seed = seed
        return setup


_DRAWS: dict[int, tuple] = {}  # deck size -> (i, i + 1, its bit length) for i from the top
_LIKE_RANDOM: list[bool] = []  # whether _drawn shuffles as random.shuffle: found at first use


def _shuffle(deck: list, seed) -> None:
    """Shuffle `deck` in place as `random.Random(seed).shuffle(deck)` does: by _drawn, once the
    first call has found that it shuffles decks of a few sizes as random.shuffle does, under two
    seeds each (else by random.shuffle itself)."""
    if not _LIKE_RANDOM:
        _LIKE_RANDOM.append(all(_drawn(list(range(size)), seed) == _shuffled(size, seed)
                                for size in (2, 3, 5, 17, 36, 54, 80) for seed in (0, 2**40 + size)))
    if _LIKE_RANDOM[0]:
        _drawn(deck, seed)
    else:
        random.Random(seed).shuffle(deck)


def _drawn(deck: list, seed) -> list:
    """`deck` shuffled in place by CPython's shuffle loop (Fisher-Yates from the top, each index
    drawn with getrandbits, drawn again while out of range), without its Python call per card."""
    draws = _DRAWS.get(len(deck))
    if draws is None:
        draws = _DRAWS[len(deck)] = tuple((i, i + 1, (i + 1).bit_length())
                                          for i in reversed(range(1, len(deck))))
    bits = random.Random(seed).getrandbits
    for i, n, k in draws:
        j = bits(k)
        while j >= n:
            j = bits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _shuffled(size: int, seed) -> list:
    deck = list(range(size))
    random.Random(seed).shuffle(deck)
    return deck


@_naming_clauses
def _validate_for(ruleset: Ruleset, setup: Setup, dealt: bool = False) -> None:
    """Validate a setup for a ruleset: the deck, the player count and the turn-up (rule
    deck.trump: the turn_up_allowed definition). A setup `dealt` by Setup.deal under this
    ruleset, and untouched since, holds every card of the pack once per copy, the turn-up where
    the ruleset lays it and no position: Setup.validate is asked only if a hand is empty (a deal
    of fewer cards than seats), the rest as for any setup (tests/reference_impl/
    test_generated_program.py deals every preset and validates the deals)."""
    if not dealt or not all(setup.hands):
        setup.validate(ruleset.deck, ruleset.player_limits, ruleset.turn_up_place)
    forms = ruleset.played_forms
    for i, pair in enumerate(setup.table):
        for c in pair:
            if c is not None and c.real is not c and c not in forms:
                raise SetupError(f"{c} is played as a suit its player names, which only the Weli "
                                 "may be under this variant (rule play.named_suit, option weli)",
                                 f"table[{i}]")
    probe = State.__new__(State)
    probe.n, probe.deck_size = setup.players, len(ruleset.deck)
    if not ruleset.turn_up_allowed_fn(probe, setup.trump):
        raise SetupError(f"{setup.trump} may not be the turned-up trump card under this variant "
                         "(rule deck.trump, definition turn_up_allowed)", "trump")
    if setup.hidden is not None:
        if not ruleset.turn_up_hidden:
            raise SetupError(f"no card lies hidden under the turn-up in this variant (rule "
                             f"deck.changeable_trump, option changeable_trump); drop hidden "
                             f"{setup.hidden}", "hidden")
        if not ruleset.turn_up_allowed_fn(probe, setup.hidden):
            raise SetupError(f"{setup.hidden} may not be turned up to show the trump under this "
                             "variant (definition turn_up_allowed)", "hidden")


def _check_seat(seat, players: int, name: str) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < max(players, 1):
        seats = f"seats are 0 to {players - 1}" if players > 1 else \
            "the only seat is 0" if players == 1 else "there are no seats (hands is empty)"
        raise SetupError(f"seat {clip_values(repr(seat))} does not exist; {seats}", name)


def _table_of(raw, deck: Deck) -> list[list[Card | None]]:
    if not isinstance(raw, list):
        raise NotationError("table: a list of [attack card, covering card or null] pairs")
    table = []
    for i, pair in enumerate(raw):
        if isinstance(pair, str):
            pair = [pair, None]
        if not isinstance(pair, list) or not 1 <= len(pair) <= 2:
            raise NotationError(f"table[{i}]: a pair [attack card, covering card or null], not {pair!r}")
        attack = deck.card(pair[0])
        cover = deck.card(pair[1]) if len(pair) == 2 and pair[1] is not None else None
        table.append([attack, cover])
    return table


class Game:
    """One game (one deal) played under a ruleset."""

    def __init__(self, ruleset: Ruleset, setup: Setup, _state: State | None = None,
                 _dealt: bool = False):
        self.ruleset = ruleset
        self.setup = setup
        self.decide_seat = ruleset.decide_fns
        self._settle, self._step = ruleset.settle_fn, ruleset.play_step
        self._legal: list[Action] = []
        if _state is not None:
            self.state = _state
            return
        _validate_for(ruleset, setup, _dealt)
        try:
            self.state = self._initial_state(setup, _dealt)
            self._refresh()
        except Exception as exc:
            raise failure_of(exc) or exc

    @classmethod
    @_naming_clauses
    def unsettled(cls, ruleset: Ruleset, setup: Setup) -> "Game":
        """The position exactly as the setup gives it, before a bout that nobody can continue is
        ended: for explaining what the rules say in that very position (durak judge). Its
        legal_actions() is empty; play from Game(ruleset, setup) instead."""
        _validate_for(ruleset, setup)
        shell = cls(ruleset, setup, _state=State.__new__(State))
        return cls(ruleset, setup, _state=shell._initial_state(setup))

    # -- construction ---------------------------------------------------------------------
    def _initial_state(self, setup: Setup, dealt: bool = False) -> State:
        """The state `setup` describes; `dealt`: a setup Setup.deal made under this ruleset and
        nobody changed since (see _validate_for), whose every card lies in a hand or the talon."""
        s = State.__new__(State)
        n = len(setup.hands)
        ruleset = self.ruleset
        s.n = n
        s.hands = hands = [list(h) for h in setup.hands]
        s.talon = list(setup.talon)
        s.trump_card, s.hidden_card, s.redealt, s.trump_suit = setup.trump, setup.hidden, False, None
        s.deck_size = len(ruleset.deck)
        s.dealer = setup.dealer
        if setup.is_position:
            s.table = [list(p) for p in setup.table]
            s.discard = self._out_of_play(setup)
            s.unbeaten = sum(1 for _, d in s.table if d is None)
            s.attack_ranks = {a.rank for a, _ in s.table}
            s.table_ranks = {c.rank for p in s.table for c in p if c is not None}
            s.bout_number, s.beaten_bouts, s.taking = setup.bout, setup.beaten_bouts, setup.taking
            s.passed, s.out = [False] * n, [False] * n
            for seat in setup.passed:
                s.passed[seat] = True
            for seat in setup.out:
                s.out[seat] = True
            s.active, s.finish_order = n - len(setup.out), list(setup.out)
            s.laid_by = [setup.attacker] * len(s.table)  # a position does not say who laid what
        else:  # the start of a deal
            s.table, s.laid_by, s.finish_order = [], [], []
            s.discard = [] if dealt else self._out_of_play(setup)
            s.unbeaten, s.attack_ranks, s.table_ranks = 0, set(), set()
            s.bout_number, s.beaten_bouts, s.taking = 1, 0, False
            s.passed, s.out, s.active = [False] * n, [False] * n, n
        s.can_throw, s.any_throw = [False] * n, False
        s.finished, s.fool = False, None
        s.drew, s.after_draw, s.short_after_draw = [0] * n, list(map(len, hands)), [False] * n
        s.transferer, s.steps = None, 0
        s.team, s.team_play = ruleset.seating(n)
        s.emptied, s.losers, s.places = [-1] * n, None, None
        s.last_table, s.last_taken = [], False
        s.deal_number, s.after_a_loss = setup.deal_number, setup.previous_fool is not None
        s.previous_fool = setup.dealer if setup.previous_fool is None else setup.previous_fool
        s.previous_winner = setup.dealer if setup.previous_winner is None else setup.previous_winner
        s.shown = set()
        s.exchanges = [0] * n
        s.hand_size = ruleset.hand_size_fn(s)
        s.trump_suit = self.decide_seat["trump_suit"](s, None)
        s.attacker = s.defender = 0
        s.attacker = setup.attacker if setup.attacker is not None else self._decide(s, "first_attacker")
        s.defender = setup.defender if setup.defender is not None else self._decide(s, "first_defender")
        s.opener = s.last_adder = s.attacker
        s.last_attacker, s.last_defender = s.attacker, s.defender
        # A position's unbeaten cards count as added since the defender's last answer.
        s.added_since_answer = s.unbeaten
        # The defender's hand when the bout began: what they hold plus the cards they covered with.
        s.defender_hand_at_start = len(hands[s.defender]) + len(s.table) - s.unbeaten
        if s.attacker == s.defender:
            raise SetupError("the first attacker and defender are the same seat", "attacker")
        return s

    def _out_of_play(self, setup: Setup) -> list[Card]:
        """The cards of the deck in no zone of the setup (each copy once): the discard. The setup
        is validated, so no card lies in more places than the deck holds it: where the zones hold
        as many cards as the deck, as in every deal, none is out of play."""
        pack = self.ruleset.deck.pack
        zones = setup._zones()
        if sum(map(len, zones)) == len(pack):
            return []
        held = list(map(_REAL, chain.from_iterable(zones)))
        used = set(held)
        left = list(filterfalse(used.__contains__, pack))
        if len(used) != len(held) or len(left) + len(held) != len(pack):  # copies of a card
            left = list(pack)
            for c in held:
                left.remove(c)
        return left

    def _decide(self, s: State, name: str):
        value = self.decide_seat[name](s, None)
        if value is None and name != "fool":
            rule = self.ruleset.decisions[name].rule
            raise SetupError(f"rule {rule.id} decided no seat for {name} in this position")
        return value

    @_naming_clauses
    def decide(self, name: str):
        """Evaluate the rule that decides `name` on the current state."""
        return self._decide(self.state, name)

    @classmethod
    def resumed(cls, ruleset: Ruleset, setup: Setup, state: State) -> "Game":
        """A game going on from `state` (one of this setup's games, changed by the caller, as
        conformance/fromdeal.py does to lay a bout as a later one): its legal actions listed
        afresh."""
        game = cls(ruleset, setup, _state=state)
        game._refresh()
        return game

    @classmethod
    def from_seed(cls, ruleset: Ruleset, players: int, seed: int) -> "Game":
        """The game of the deal of `seed` (Setup.deal, valid as dealt: see _validate_for)."""
        return cls(ruleset, Setup.deal(ruleset, players, seed), _dealt=True)

    def clone(self) -> "Game":
        g = Game(self.ruleset, self.setup, _state=self.state.clone())
        g._legal = self._legal
        return g

    # -- the game API ---------------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        """Every action any seat may make now (several seats may be able to act at once)."""
        return list(self._legal)

    def is_terminal(self) -> bool:
        return self.state.finished

    def returns(self) -> list[float]:
        """Zero-sum returns from the losers the spec names (end.losers): -1 for each loser, and
        the losers' stake shared by the others; all 0 for a draw or an unfinished game."""
        s = self.state
        losers = s.losers
        if not s.finished or not losers or not any(losers) or all(losers):
            return [0.0] * s.n
        lost = sum(losers)
        share = lost / (s.n - lost)
        return [-1.0 if losers[seat] else share for seat in range(s.n)]

    def acting_seats(self) -> list[int]:
        return sorted({a.seat for a in self._legal})

    def action_to_string(self, action: Action) -> str:
        return action_text(action)

    def parse_action(self, value) -> Action:
        return parse_action(value, self.ruleset.deck, self.state.n)

    def full_state(self) -> dict:
        return state_json(self.state)

    def observation(self, seat: int) -> dict:
        """What `seat` may see: own hand, others' hand sizes, the table, talon count, trump (the
        card turned up now; a hidden card under it only as lying there)."""
        view = state_json(self.state)
        view["hands"] = [h if i == seat else len(h) for i, h in enumerate(view["hands"])]
        view["talon"] = len(view["talon"])
        if "hidden" in view:
            view["hidden"] = True
        view["seat"] = seat
        return view

    def apply_action(self, action: Action) -> None:
        """Apply a legal action; raise IllegalAction naming the rule, leaving the state unchanged."""
        for known in self._legal:  # the listed action itself, found without comparing cards
            if known is action:
                break
        else:
            if action not in self._legal:
                rule_id, reason = self.explain(action)
                raise IllegalAction(action_text(action), rule_id, reason)
        s = self.state
        try:
            self._legal = self._step(self, s, action)  # its event, then settle (Ruleset._fuse)
        except Exception as exc:  # free until raised; names a clause that fails (ClauseError)
            raise failure_of(exc) or exc

    def apply_listed(self, action: Action) -> None:
        """Apply an action taken from this game's legal_actions() since its last step (the listed
        object itself), without looking for it in the list: apply_action for a caller that
        chose it from there (the fuzzer's planning)."""
        try:
            self._legal = self._step(self, self.state, action)
        except Exception as exc:  # free until raised; names a clause that fails (ClauseError)
            raise failure_of(exc) or exc

    def play_out(self, choose, limit: int) -> None:
        """Apply `choose(legal actions)` until the game ends or `limit` steps are played: what
        apply_action does, without checking that the chosen action is listed (it is taken from
        the list) and without copying the list, which `choose` must leave as it is."""
        s, step, legal = self.state, self._step, self._legal
        program = self.ruleset.compiled_program(s.n)
        play = program[1] if program is not None and (
            step is program[0] or step is self.ruleset.play_step) else \
            self.ruleset.play_fn if step is self.ruleset.__dict__.get("_step_fn") else None
        if play is not None:  # the whole loop generated (a game's first step hands it the step)
            try:
                self._legal = play(self, s, legal, choose, limit, random_bits(choose))
            except Exception as exc:  # the actions legal before the failing step kept
                raise failure_of(exc) or exc
            return
        try:
            while legal and s.steps < limit:  # settle lists nothing once the game is over
                legal = step(self, s, choose(legal))
        except Exception as exc:  # free until raised; names a clause that fails (ClauseError)
            raise failure_of(exc) or exc
        finally:
            self._legal = legal

    # -- legality -------------------------------------------------------------------------
    def _refresh(self) -> None:
        """List the legal actions, first running every bout end that is due (Ruleset._fuse)."""
        self._legal = self._settle(self, self.state)

    @_naming_clauses
    def explain(self, action: Action) -> tuple[str, str]:
        """The id of the first rule that forbids `action`, and why; ('', '') if it is legal."""
        s = self.state
        if action in self._legal:
            return "", ""
        if s.finished:
            return "end.game_over", "the game is over"
        if action.kind not in ACTION_KINDS:
            raise NotationError(f"unknown action kind {action.kind!r}")
        if not 0 <= action.seat < s.n:
            raise NotationError(f"seat {action.seat} does not exist; seats are 0 to {s.n - 1}")
        for cr in self.ruleset.legality[action.kind]:
            if not cr.clause.fn(s, action.seat, action.card, action.target):
                return cr.rule.id, cr.rule.violation
        cr = self.ruleset.order.get(action.kind)
        if cr is not None:
            return cr.rule.id, cr.rule.violation
        raise RuntimeError(f"{action_text(action)} passes every rule but is not legal")

    # -- invariants -----------------------------------------------------------------------
    @_naming_clauses
    def check_invariants(self, scope: str = "state", action: Action | None = None) -> list[str]:
        """Ids of the spec invariants of `scope` that fail now (action scope: before `action`)."""
        s = self.state
        failed = []
        for inv, clause in self.ruleset.invariants:
            if inv["scope"] != scope:
                continue
            args = (action.seat, action.kind) if action is not None else (None, None)
            if not clause.fn(s, *args):
                failed.append(inv["id"])
        return failed
