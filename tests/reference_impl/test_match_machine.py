"""Whole matches (reference_impl/match.py), driven by a hypothesis state machine.

A rule of the machine plays one whole deal by random legal actions (every state and action
invariant checked at every step) and scores it. After each deal the machine checks the deal_end
invariants of spec/invariants.yaml and, against expectations written here from the sources rather
than from the spec's clauses: the penalty points of a deal sum to the same total for the player
count, the durak deals next, the next deal is opened by the seat next_deal_opener names (in
teams, by the winning team), and the
match ends exactly when its end rule says. A last test edits a copy of spec/ (the fool no longer
deals) and shows the machine catches it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from durak_spec.reference_impl.match import Match
from durak_spec.reference_impl.simulate import STEP_LIMIT
from durak_spec.reference_impl.spec import load_spec, shipped_spec

PRESETS = ("podkidnoy", "cardzmania", "podkidnoy_epaulettes", "podkidnoy_epaulette_ladder",
           "podkidnoy_teams", "podkidnoy_three_teams")
OPENERS = ("left_of_fool", "right_of_fool", "left_of_fool_three_attack_fool", "fool", "winner",
           "first_deal_rule", None)  # None: the preset's own
PENALTY_TOTAL = {2: 3, 3: 4, 4: 6, 5: 8, 6: 10}  # 0 + 1 + 3, and 2 for each other player
LADDER_RUNGS = 9  # six, seven, ..., ace: the ninth scored deal gives a player the ace


def expected_opener(opener: str, n: int, fool: int, winner: int) -> int | None:
    """Who opens the deal after a deal lost by `fool` (everyone is in at the start of a deal);
    None where the first deal's rule applies again."""
    return {"left_of_fool": (fool + 1) % n, "right_of_fool": (fool - 1) % n,
            "left_of_fool_three_attack_fool": (fool - 1) % n if n == 3 else (fool + 1) % n,
            "fool": fool, "winner": winner, "first_deal_rule": None}[opener]


def machine_for(spec, presets=PRESETS):
    class MatchMachine(RuleBasedStateMachine):
        @initialize(preset=st.sampled_from(presets), n=st.integers(2, 6),
                    opener=st.sampled_from(OPENERS), short=st.booleans())
        def start(self, preset, n, opener, short):
            self.begin(preset, n, opener, short)

        @precondition(lambda self: self.match.over or self.stuck)
        @rule(preset=st.sampled_from(presets), n=st.integers(2, 6),
              opener=st.sampled_from(OPENERS), short=st.booleans())
        def next_match(self, preset, n, opener, short):
            self.begin(preset, n, opener, short)

        def begin(self, preset, n, opener, short):
            options = {} if opener is None else {"next_deal_opener": opener}
            if short:
                options.update(match_end="deals", match_deals=3)
            elif preset == "podkidnoy_epaulette_ladder":
                # keep matches short: the ladder's own end rule (the ace, or its number of deals)
                options.update(match_deals=3)
            self.ruleset = spec.ruleset(preset, options)
            self.opt = self.ruleset.options
            self.match = Match(self.ruleset, n)
            self.n = n
            self.stuck = False
            self.team_play = self.ruleset.seating(n)[1]
            self.own_opener = opener is None

        @precondition(lambda self: not self.match.over and not self.stuck)
        @rule(seed=st.integers(0, 2**31 - 1))
        def play_deal(self, seed):
            m, before = self.match, list(self.match.totals)
            dealer, previous = m.dealer, (m.deals[-1] if m.deals else None)
            game = m.deal(seed)
            s = game.state
            assert s.dealer == dealer
            if previous is not None and previous.fool is not None:
                want = expected_opener(self.opt["next_deal_opener"], self.n, previous.fool,
                                       previous.winner)
                if want is not None:
                    assert s.attacker == want, (previous.fool, s.attacker, want)
                if self.team_play and self.own_opener:
                    # W19: in later deals the winning team from the previous deal begins
                    assert not previous.losers[s.attacker], "the winning team opens"
            choice = random.Random(seed).choice
            while not game.is_terminal() and s.steps < STEP_LIMIT:
                action = choice(game.legal_actions())
                assert not game.check_invariants("action", action)
                game.apply_action(action)
                assert not game.check_invariants("state"), game.check_invariants("state")
            if not game.is_terminal():  # a deal that cycles (catalogue R40): nothing to score
                self.stuck = True
                return
            result = m.record(game)
            assert result.failed == (), result.failed
            assert list(result.totals) == [a + b for a, b in zip(before, result.scores)]
            if result.fool is not None:
                assert result.next_dealer == result.fool, "the durak deals next"
                assert result.places[result.fool] == self.n
            else:
                assert result.next_dealer == (result.dealer + 1) % self.n
            if self.opt["scoring"] == "penalty_points":
                assert sum(result.scores) == PENALTY_TOTAL[self.n]
                assert sorted(result.scores) == sorted(
                    [0, 3] + ([1] if self.n > 2 else []) + [2] * (self.n - 3))
            if self.opt["scoring"] == "epaulette_ladder":
                reached = max(result.totals) >= LADDER_RUNGS  # somebody received the ace
            else:
                reached = max(result.totals) >= self.opt["match_target"]
            dealt = result.number >= self.opt["match_deals"]
            assert result.over == {"deals": dealt, "score": reached,
                                   "score_or_deals": dealt or reached}[self.opt["match_end"]]
            if self.opt["scoring"] == "penalty_points" and self.opt["match_end"] == "score":
                # a match always ends: every deal adds PENALTY_TOTAL points, so some player
                # reaches the target within target * n / total deals (rounded up)
                bound = -(-self.opt["match_target"] * self.n // PENALTY_TOTAL[self.n])
                assert result.number <= bound and (result.over or result.number < bound)

        @invariant()
        def standings_order_the_scores(self):
            if hasattr(self, "match") and self.match.deals:
                keys = [k for _, _, k in self.match.standings()]
                assert keys == sorted(keys)

    return MatchMachine


TestMatches = machine_for(shipped_spec()).TestCase
# A step plays a whole deal: a few short matches per run keep the CI cost to seconds.
TestMatches.settings = settings(TestMatches.settings,
                                max_examples=min(TestMatches.settings.max_examples, 6),
                                stateful_step_count=6)


def test_the_machine_catches_a_match_where_the_fool_does_not_deal(spec_copy):
    spec = spec_copy.edit("rules/match.yaml", 'clause: "fool if fool is not None else left(dealer)"',
                          'clause: "left(dealer)"').load()
    machine = machine_for(spec, ("cardzmania",))()
    machine.start("cardzmania", 3, "left_of_fool", False)
    with pytest.raises(AssertionError, match="durak deals next|loser_deals"):
        for seed in range(20):
            machine.play_deal(seed)
            if machine.match.over:
                machine.start("cardzmania", 3, "left_of_fool", False)


def test_a_match_of_the_reference_spec_follows_an_edited_scoring_rule(spec_copy):
    """Rules are data: penalty points of 5 for the last place change the totals, no Python."""
    spec = spec_copy.edit("rules/scoring.yaml", "(3 if place(seat) == players", "(5 if place(seat) == players").load()
    m = Match(spec.ruleset("cardzmania"), 3)
    game = m.deal(1)
    rng = random.Random(1)
    while not game.is_terminal():
        game.apply_action(rng.choice(game.legal_actions()))
    result = m.record(game)
    assert sorted(result.scores) == [0, 1, 5] and "inv.penalty_total" in result.failed


def test_every_preset_plays_a_short_match_at_every_player_count():
    spec = load_spec()
    for preset in spec.presets:
        rs = spec.ruleset(preset, {"match_end": "deals", "match_deals": 2})
        for n in range(2, 7):
            m = Match(rs, n)
            for seed in range(2):
                game = m.deal(seed)
                rng = random.Random(seed)
                while not game.is_terminal() and game.state.steps < STEP_LIMIT:
                    game.apply_action(rng.choice(game.legal_actions()))
                if not game.is_terminal():
                    break
                assert m.record(game).failed == ()
