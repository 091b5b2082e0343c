"""Random legal games on the reference interpreter, with every spec invariant checked each step."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from .game import Game
from .ruleset import Ruleset

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
    if not check:  # the plain loop, as lean as the public API allows (the game keeps its state)
        legal, apply, state = game.legal_actions, game.apply_action, game.state
        while not state.finished and state.steps < STEP_LIMIT:
            apply(choice(legal()))
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
