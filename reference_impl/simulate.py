"""Random legal games on the reference interpreter, with every spec invariant checked each step."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from .game import Game
from .match import Match
from .ruleset import SPECIALISE_GAMES, Ruleset

STEP_LIMIT = 5000  # games of 3+ players may cycle forever through takes (catalogue R40)


@dataclass
class SimulationReport:
    games: int = 0
    finished: int = 0
    draws: int = 0
    steps: int = 0
    seconds: float = 0.0
    fools: dict = field(default_factory=dict)
    violations: list = field(default_factory=list)  # (game seed, step, invariant id, action)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0


def play_random_game(ruleset: Ruleset, players: int, seed: int, check: bool = True,
                     report: SimulationReport | None = None) -> Game:
    """Play one game from the deal of `seed`, choosing uniformly among legal actions."""
    game = Game.from_seed(ruleset, players, seed)
    choice = random.Random(seed).choice
    if not check:  # the plain loop: the game applies each action chosen from its own list
        game.play_out(choice, STEP_LIMIT)
        return game
    while not game.is_terminal() and game.state.steps < STEP_LIMIT:
        action = choice(game.legal_actions())
        for inv in game.check_invariants("action", action):
            report.violations.append((seed, game.state.steps, inv, str(action)))
        game.apply_action(action)
        for inv in game.check_invariants("state"):
            report.violations.append((seed, game.state.steps, inv, str(action)))
        if report.violations:
            break
    return game


def simulate(ruleset: Ruleset, players: int, games: int, seed: int, check: bool = True,
             progress=None) -> SimulationReport:
    """Play `games` random games (game i uses deal seed `seed + i`)."""
    report = SimulationReport()
    start = time.perf_counter()
    if games >= SPECIALISE_GAMES:  # a long run: its program written for the count at once
        ruleset.program(players)
    for i in range(games):
        game = play_random_game(ruleset, players, seed + i, check, report)
        report.games += 1
        report.steps += game.state.steps
        if game.is_terminal():
            report.finished += 1
            fool = game.state.fool
            if fool is None:
                report.draws += 1
            else:
                report.fools[fool] = report.fools.get(fool, 0) + 1
        if progress:
            progress()
        if report.violations:
            break
    report.seconds = time.perf_counter() - start
    return report


@dataclass
class MatchReport:
    """One random match: its deals, and whatever went wrong."""

    match: Match
    seed: int
    steps: int = 0
    violations: list = field(default_factory=list)  # (deal number, step, invariant id, action)
    stopped: str = ""  # why the match stopped before its end rule ended it


def play_random_match(ruleset: Ruleset, players: int, seed: int, max_deals: int = 500,
                      check: bool = True) -> MatchReport:
    """Play a match of random legal deals: deal k is shuffled with a seed drawn from `seed`. With
    `check`, every state and action invariant is checked at every step and the deal_end
    invariants after every deal."""
    match = Match(ruleset, players)
    report = MatchReport(match, seed)
    rng = random.Random(seed)
    while not match.over:
        if len(match.deals) >= max_deals:
            report.stopped = f"the match had not ended after {max_deals} deals"
            break
        deal_seed = rng.randrange(2**31)
        game = match.deal(deal_seed)
        sub = SimulationReport()
        choice = random.Random(deal_seed).choice
        while not game.is_terminal() and game.state.steps < STEP_LIMIT:
            action = choice(game.legal_actions())
            if check:
                for inv in game.check_invariants("action", action):
                    sub.violations.append((match.number, game.state.steps, inv, str(action)))
            game.apply_action(action)
            if check:
                for inv in game.check_invariants("state"):
                    sub.violations.append((match.number, game.state.steps, inv, str(action)))
            if sub.violations:
                break
        report.steps += game.state.steps
        if sub.violations:
            report.violations += sub.violations
            break
        if not game.is_terminal():
            report.stopped = f"deal {match.number} (seed {deal_seed}) did not end in {STEP_LIMIT} steps"
            break
        result = match.record(game)
        if check and result.failed:
            report.violations += [(result.number, game.state.steps, inv, "end of deal")
                                  for inv in result.failed]
            break
    return report
