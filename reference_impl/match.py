"""A match: deals played one after another under one ruleset.

A deal is a `Game`; between deals the match rules of spec/ (rules/match.yaml and rules/scoring.yaml,
decisions over the match vocabulary `vocab.MATCH`) decide what each player scores, the epaulettes,
the deal's winner, who deals next, whether the match is over, and the standings. Who opens the next
deal is that deal's own start rule, which reads the previous fool and winner from its setup (the
match fields of `Setup`). This module holds no rule: it keeps the tallies and asks the decisions.
A deal called off for a redeal (rule deck.redeal) is void: it scores nothing, is not a deal of the
match, and the same dealer deals again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import SetupError
from .game import Game, Setup
from .ruleset import Ruleset


@dataclass(frozen=True)
class DealResult:
    """One finished deal of a match and what the match rules made of it."""

    number: int
    dealer: int
    first_attacker: int | None
    seed: int | None
    fool: int | None
    winner: int | None
    losers: tuple[bool, ...]
    places: tuple[int, ...]
    finish_order: tuple[int, ...]
    scores: tuple[int, ...]  # what each seat scored in this deal
    epaulettes: tuple[int, ...]  # epaulettes each seat received in this deal
    totals: tuple[int, ...]  # score totals after this deal
    epaulette_totals: tuple[int, ...]
    next_dealer: int
    over: bool
    steps: int = 0
    failed: tuple[str, ...] = ()  # deal_end invariants that fail (none, unless the spec is broken)
    redeal: bool = False  # the deal was void (rule deck.redeal); the same dealer deals again

    def to_json(self) -> dict:
        """The deal's result as the protocol's `score` command and match cases give it."""
        return {"deal": self.number, "dealer": self.dealer, "first_attacker": self.first_attacker,
                "fool": self.fool,
                "winner": self.winner, "losers": [i for i, lost in enumerate(self.losers) if lost],
                "places": list(self.places), "finish_order": list(self.finish_order),
                "scores": list(self.scores), "epaulettes": list(self.epaulettes),
                "totals": list(self.totals), "epaulette_totals": list(self.epaulette_totals),
                "next_dealer": self.next_dealer, "over": self.over,
                **({"redeal": True} if self.redeal else {})}


class MatchView:
    """What match clauses read (`s` in the code of vocab.MATCH): the finished deal and the tallies."""

    __slots__ = ("n", "deal_number", "dealer", "fool", "losers", "places", "team", "team_play",
                 "final_defender", "final_taken", "final_attack_count", "final_attack_rank",
                 "final_attack_plain", "final_last_rank", "final_last_rank_count", "score", "epaulettes", "deal_score", "deal_epaulettes",
                 "next_dealer", "winner")


def _final_attack(game: Game) -> tuple[int, int | None, bool, int | None, int]:
    """The final bout's attack cards: how many, the rank index they all share (None if they
    differ), whether one of them is not a trump, the rank index of the last one laid (None if
    there was none) and how many of them have that rank."""
    s = game.state
    cards = [a for a, _ in s.last_table]
    ranks = {c.rank for c in cards}
    shared = next(iter(ranks)) if len(ranks) == 1 else None
    last = cards[-1].rank if cards else None
    return (len(cards), shared, any(c.suit != s.trump_suit for c in cards), last,
            sum(c.rank == last for c in cards))


def tally_view(ruleset: Ruleset, players: int, totals, epaulette_totals) -> MatchView:
    """A view of the tallies alone (the standings read scores and teams only)."""
    v = MatchView()
    v.n = players
    v.team, v.team_play = ruleset.seating(players)
    v.score, v.epaulettes = list(totals), list(epaulette_totals)
    v.deal_score = v.deal_epaulettes = [0] * players
    v.winner = None
    return v


def deal_view(ruleset: Ruleset, game: Game, number: int, totals, epaulette_totals) -> MatchView:
    """A finished deal as deal `number` of a match, with the tallies before it."""
    s = game.state
    if not s.finished:
        raise SetupError("the deal is not over yet; a deal is scored once it has ended")
    v = tally_view(ruleset, s.n, totals, epaulette_totals)
    v.deal_number, v.dealer, v.fool = number, s.dealer, s.fool
    v.losers, v.places = s.losers, s.places
    v.final_defender, v.final_taken = s.last_defender, s.last_taken
    (v.final_attack_count, v.final_attack_rank, v.final_attack_plain, v.final_last_rank,
     v.final_last_rank_count) = _final_attack(game)
    v.next_dealer = s.dealer
    return v


def score_deal(ruleset: Ruleset, game: Game, number: int = 1, totals=None, epaulette_totals=None,
               first_attacker: int | None = None) -> DealResult:
    """Score a finished deal as deal `number` of a match with these totals before it: each
    seat's deal_score and deal_epaulettes (`score` reads the totals before the deal), then over
    the new totals the winner, the next dealer and whether the match is over."""
    n = game.state.n
    totals = list(totals or [0] * n)
    epaulette_totals = list(epaulette_totals or [0] * n)
    s = game.state
    first = first_attacker if first_attacker is not None else game.setup.attacker
    if s.redealt:  # void (rule deck.redeal): nothing scored, and the same dealer deals again
        zero = (0,) * n
        return DealResult(number, s.dealer, first, game.setup.seed, None, None, (False,) * n,
                          zero, (), zero, zero, tuple(totals), tuple(epaulette_totals), s.dealer,
                          False, s.steps, (), redeal=True)
    decide = ruleset.match_fns
    v = deal_view(ruleset, game, number, totals, epaulette_totals)
    scores = tuple(int(decide["deal_score"](v, x)) for x in range(n))
    eps = tuple(int(decide["deal_epaulettes"](v, x)) for x in range(n))
    v.score = [t + d for t, d in zip(totals, scores)]
    v.epaulettes = [t + d for t, d in zip(epaulette_totals, eps)]
    v.deal_score, v.deal_epaulettes = list(scores), list(eps)
    winner = v.winner = decide["winner"](v, None)
    next_dealer = decide["next_dealer"](v, None)
    if next_dealer is None:
        rule = ruleset.match_decisions["next_dealer"].rule
        raise SetupError(f"rule {rule.id} decided no dealer for the next deal")
    v.next_dealer = next_dealer
    failed = tuple(inv["id"] for inv, c in ruleset.invariants
                   if inv["scope"] == "deal_end" and not c.fn(v, None, None))
    return DealResult(number, s.dealer, first, game.setup.seed, s.fool, winner, tuple(s.losers),
                      tuple(s.places), tuple(s.finish_order), scores, eps, tuple(v.score),
                      tuple(v.epaulettes), next_dealer, bool(decide["match_over"](v, None)),
                      s.steps, failed)


@dataclass
class Match:
    """A series of deals under one ruleset and player count, from a first dealer."""

    ruleset: Ruleset
    players: int
    first_dealer: int | None = None
    deals: list[DealResult] = field(default_factory=list)
    redeals: list[DealResult] = field(default_factory=list)  # void deals, which are not deals
    _first_attacker: int | None = field(default=None, repr=False)

    def __post_init__(self):
        lo, hi = self.ruleset.player_limits
        if not isinstance(self.players, int) or isinstance(self.players, bool) \
                or not lo <= self.players <= hi:
            raise SetupError(f"{self.players} players; this deck is for {lo} to {hi}", "players")
        if self.first_dealer is None:
            self.first_dealer = self.players - 1
        if not isinstance(self.first_dealer, int) or not 0 <= self.first_dealer < self.players:
            raise SetupError(f"seat {self.first_dealer!r} does not exist", "dealer")

    # -- where the match stands -----------------------------------------------------------
    @property
    def over(self) -> bool:
        return bool(self.deals) and self.deals[-1].over

    @property
    def number(self) -> int:
        """The number of the next deal (1 for the first)."""
        return len(self.deals) + 1

    @property
    def totals(self) -> tuple[int, ...]:
        return self.deals[-1].totals if self.deals else (0,) * self.players

    @property
    def epaulette_totals(self) -> tuple[int, ...]:
        return self.deals[-1].epaulette_totals if self.deals else (0,) * self.players

    @property
    def dealer(self) -> int:
        """The dealer of the next deal."""
        return self.deals[-1].next_dealer if self.deals else self.first_dealer

    def context(self) -> dict:
        """The match fields of the next deal's setup: its number, the previous fool and winner."""
        last = self.deals[-1] if self.deals else None
        return {"deal_number": self.number, "previous_fool": last.fool if last else None,
                "previous_winner": last.winner if last else None}

    def standings(self) -> list[tuple[int, int, int]]:
        """(place, seat, key) by the match_key decision, best first; equal keys share a place."""
        v = tally_view(self.ruleset, self.players, self.totals, self.epaulette_totals)
        key = self.ruleset.match_fns["match_key"]
        keys = sorted((int(key(v, x)), x) for x in range(self.players))
        out, place = [], 0
        for i, (k, seat) in enumerate(keys):
            if i == 0 or k != keys[i - 1][0]:
                place = i + 1
            out.append((place, seat, k))
        return out

    # -- playing ---------------------------------------------------------------------------
    def deal(self, seed: int) -> Game:
        """The next deal, shuffled with `seed` and dealt by the match's next dealer."""
        return self._begin(Setup.deal(self.ruleset, self.players, seed, dealer=self.dealer,
                                      **self.context()), dealt=True)

    def start(self, setup: Setup) -> Game:
        """The next deal from explicit cards; its dealer and match fields come from the match."""
        if setup.players != self.players:
            raise SetupError(f"{setup.players} hands in a match of {self.players} players", "hands")
        ctx = self.context()
        setup.dealer, setup.deal_number = self.dealer, ctx["deal_number"]
        setup.previous_fool, setup.previous_winner = ctx["previous_fool"], ctx["previous_winner"]
        return self._begin(setup)

    def _begin(self, setup: Setup, dealt: bool = False) -> Game:
        """The deal of `setup`; `dealt`: Setup.deal's, valid as dealt (see Game.from_seed)."""
        if self.over:
            raise SetupError("the match is over")
        game = Game(self.ruleset, setup, _dealt=dealt)
        self._first_attacker = game.state.attacker
        return game

    def record(self, game: Game) -> DealResult:
        """Score a finished deal and add it to the match."""
        result = score_deal(self.ruleset, game, self.number, self.totals, self.epaulette_totals,
                            self._first_attacker)
        (self.redeals if result.redeal else self.deals).append(result)
        return result
