"""Benchmark driver for the third-party PyPI engine ``durakgame`` (v1.0.4).

durakgame is a 2-player podkidnoy Durak simulator.  Its public entry point,
``durakgame.play``, shuffles with the *global* ``random`` module and asks
``Player.nextMove`` agents for move indices.  To get reproducible, seedable
games and to time only the game logic, this driver uses the engine's
lower-level ``durakgame.game.Game`` class directly, reproducing the loop of
``Game.kickoff``:

    while not game.isFinished:
        options = game.generateOptions()   # engine's list of legal moves
        move = options[draw(len(options))] # what rng.choice(options) picks, drawn
                                           # as the reference's play loop draws it
        game.updateHistory(move)
        if fix_duplication and isinstance(move, FinishingMove):
            hand = game.currentPlayer.hand  # the attacker
            for card in move.cards:
                hand.remove(card)
        game.process(move)

The deck is ``durakgame.standardDeck()`` shuffled by the caller's
``random.Random`` as ``rng.shuffle`` shuffles it, its loop written out as
the reference's deal writes it; ``Game.__post_init__`` deals it (alternately
P1, P2, 6 cards each, next card = trump, placed at the bottom of the talon).

ENGINE BUG WORKED AROUND: ``Game.process`` (durakgame/game.py:193-200)
handles a ``FinishingMove(cards)`` (throw-ins after the defender takes) by
adding ``cards`` to the defender's hand WITHOUT removing them from the
attacker's hand, so cards get duplicated.  Unpatched, random games grow hands
of ~90 "cards", the engine then enumerates tens of millions of FinishingMove
subsets (one game took minutes and >15 GB RAM).  By default this driver
removes the thrown cards from the attacker's hand just before calling
``process`` (before the attacker draws, as the engine's own order requires),
which restores card conservation; pass ``fix_duplication=False`` to run the
engine verbatim (not recommended: not legal Durak and may not finish in
practical time).

One "step" is one engine move (OpeningMove, AttackingMove, DefensiveMove,
ForfeitingMove, EndingMove or FinishingMove).  Note that a FinishingMove
(throw-ins after the defender takes) is a single step carrying a whole
subset of cards; the engine lists every subset as a separate option.

Used by durak-spec to compare games/s of its reference interpreter against
third-party engines.  Run directly to print games/s for 500 games.
"""

from __future__ import annotations

import random
import time

from durakgame import FinishingMove, Player, standardDeck
from durakgame.game import Game

MAX_STEPS = 10_000  # random games take ~60-250 steps; this is a safety net


def play_random_game(rng: random.Random, *, fix_duplication: bool = True) -> int:
    """Play one complete game, choosing uniformly among the engine's legal
    moves at every step.  Returns the number of steps (moves) played."""
    deck = standardDeck()
    bits = rng.getrandbits
    # rng.shuffle(deck), its loop written out as the reference's deal writes it (game._drawn):
    # the same order from the same stream, without a Python call per card
    for i in reversed(range(1, len(deck))):
        n = i + 1
        k = n.bit_length()
        j = bits(k)
        while j >= n:
            j = bits(k)
        deck[i], deck[j] = deck[j], deck[i]
    game = Game(deck, Player(), Player())
    steps = 0
    while not game.isFinished:
        if steps >= MAX_STEPS:
            raise RuntimeError(f"durakgame game exceeded {MAX_STEPS} steps")
        options = game.generateOptions()
        # rng.choice(options), its draw written out as the reference's generated play loop
        # writes it (ruleset.DRAW, Random._randbelow_with_getrandbits): the same moves from the
        # same stream, without the two calls per move, so that the harness costs both alike
        n = len(options)
        k = n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        move = options[r]
        game.updateHistory(move)
        if fix_duplication and isinstance(move, FinishingMove):
            hand = game.currentPlayer.hand  # the attacker
            for card in move.cards:
                hand.remove(card)
        game.process(move)
        steps += 1
    game.history.result = game.result
    return steps


def time_games(n_games: int, seed: int) -> tuple[float, int]:
    """Play ``n_games`` random games from ``random.Random(seed)``.
    Returns (elapsed wall-clock seconds, total steps)."""
    rng = random.Random(seed)
    total = 0
    start = time.perf_counter()
    for _ in range(n_games):
        total += play_random_game(rng)
    elapsed = time.perf_counter() - start
    return elapsed, total


if __name__ == "__main__":
    n = 500
    elapsed, steps = time_games(n, seed=12345)
    print(
        f"durakgame 1.0.4: {n} games in {elapsed:.3f} s -> "
        f"{n / elapsed:.1f} games/s, {steps} steps "
        f"({steps / n:.1f} steps/game, {steps / elapsed:.0f} steps/s)"
    )
