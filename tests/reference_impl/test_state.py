"""The state's queries (reference_impl/state.py) that clauses read, over states of random games."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from durak_spec.reference_impl.game import Game
from durak_spec.reference_impl.lang import SEAT


def test_the_cards_in_play_are_every_physical_card_but_the_discard(spec):
    """in_play (deck.trump_exchange_card reads it): every hand, the table and the talon, each card
    as its physical card (the Weli played as a named suit is the six it is), the discard apart."""
    tables = 0
    for preset in ("weli", "podkidnoy_trump_exchange", "two_packs"):
        rs = spec.ruleset(preset)
        for seed in range(3):
            game, choose = Game.from_seed(rs, 3, seed), random.Random(seed).choice
            while not game.is_terminal():
                s = game.state
                in_play = s.in_play()
                assert Counter(in_play) + Counter(s.discard) == Counter(rs.deck.pack), (preset, seed)
                assert all(c.real is c for c in in_play), (preset, seed)
                tables += bool(s.table)
                game.apply_action(choose(game.legal_actions()))
    assert tables > 100


def test_the_teams_in_game_are_those_with_a_seat_not_out(spec):
    rs = spec.ruleset("podkidnoy_teams")
    for n in (4, 6):
        s = Game.from_seed(rs, n, 0).state
        assert s.team_play
        for out in itertools.product((False, True), repeat=n):
            s.out = list(out)
            assert s.teams_in_game() == len({s.team[x] for x in range(n) if not out[x]}), out


@pytest.mark.parametrize("preset", ["podkidnoy", "podkidnoy_teams", "partners_side_by_side"])
def test_a_clauses_next_seats_are_the_states_own(spec, spec_copy, preset):
    """left(x) and next_opponent(x) read the next seat without a call while nobody is out (and
    no teams play, for next_opponent; vocab.py): the seats State.left_of and
    State.next_opponent give, for every seat under every pattern of seats out; with partners
    side by side too (a layout of spec/teams.yaml a copy seats so)."""
    if preset == "partners_side_by_side":
        spec_copy.edit("teams.yaml", "{players: 4, teams: [0, 1, 0, 1]}",
                       "{players: 4, teams: [0, 0, 1, 1]}")
        spec, preset = spec_copy.load(), "podkidnoy_teams"
    rs = spec.ruleset(preset)
    left = rs.compile_clause("left(attacker)", SEAT, "left").fn
    after = rs.compile_clause("next_opponent(attacker)", SEAT, "next_opponent").fn
    teams = 0
    for n in range(2, 7):
        s = Game.from_seed(rs, n, 0).state
        teams += s.team_play
        for out in itertools.product((False, True), repeat=n):
            s.out = list(out)
            for seat in range(n):
                s.attacker = seat
                assert left(s) == s.left_of(seat), (n, out, seat)
                assert after(s) == s.next_opponent(seat), (n, out, seat)
    assert teams == (2 if preset == "podkidnoy_teams" else 0)


def test_a_clauses_turn_up_rank_is_the_states_own(spec):
    """turn_up_rank reads the turn-up under the talon without a call (vocab.py): the rank
    State.turn_up_rank gives on every step of random games, with the turn-up under the talon,
    on top of it (albanian) and with a card hidden under it (changeable_trump)."""
    seen = Counter()
    for preset in ("podkidnoy_trump_exchange", "albanian", "changeable_trump"):
        rs = spec.ruleset(preset)
        rank = rs.compile_clause("turn_up_rank", None, "turn_up_rank").fn
        for seed in range(2):
            game, choose = Game.from_seed(rs, 2, seed), random.Random(seed).choice
            while not game.is_terminal():
                s = game.state
                assert rank(s) == s.turn_up_rank(), (preset, seed, s.steps)
                seen[preset, rank(s) is None] += 1
                game.apply_action(choose(game.legal_actions()))
    assert all(seen[p, gone] for p in ("podkidnoy_trump_exchange", "albanian", "changeable_trump")
               for gone in (False, True)), seen
