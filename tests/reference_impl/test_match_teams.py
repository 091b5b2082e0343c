"""Team play across deals (reference_impl/match.py with spec/teams.yaml): the winning team opens
the next deal (W19), the team presets' next_deal_opener; a loser deals (PGT-K-team, ROZ)."""

from __future__ import annotations

import random

from durak_spec.reference_impl.match import Match
from durak_spec.reference_impl.simulate import STEP_LIMIT


def _openers(ruleset, players: int, deals: int, seed: int = 0):
    """(previous deal's losers, next deal's first attacker, its dealer) for each later deal."""
    m, out = Match(ruleset, players), []
    for i in range(deals):
        game = m.deal(seed + i)
        if m.deals and m.deals[-1].fool is not None:
            out.append((m.deals[-1].losers, game.state.attacker, game.state.dealer))
        rng = random.Random(seed + i)
        while not game.is_terminal() and game.state.steps < STEP_LIMIT:
            game.apply_action(rng.choice(game.legal_actions()))
        if not game.is_terminal() or m.record(game).over:
            break
    return out


def test_the_winning_team_opens_the_next_deal_and_a_loser_deals(spec):
    for preset, n, outcome in (("podkidnoy_teams", 4, None), ("podkidnoy_teams", 6, None),
                               ("podkidnoy_three_teams", 6, None),
                               ("podkidnoy_three_teams", 6, "first_team_out_wins")):
        rs = spec.ruleset(preset, {"team_outcome": outcome} if outcome else {})
        assert rs.options["next_deal_opener"] == "winner"
        seen = _openers(rs, n, 6)
        assert seen, (preset, n)
        for losers, opener, dealer in seen:
            assert not losers[opener], (preset, n, outcome)
            assert losers[dealer]


def test_the_fools_left_neighbour_may_be_a_loser_when_two_teams_of_three_lose(spec):
    """Where the first team out wins and the two others lose, the fool's left neighbour can be of
    a losing team: the team presets say the winner opens for this reason."""
    rs = spec.ruleset("podkidnoy_three_teams", {"team_outcome": "first_team_out_wins",
                                                "next_deal_opener": "left_of_fool"})
    assert any(losers[opener] for losers, opener, _ in _openers(rs, 6, 8))
