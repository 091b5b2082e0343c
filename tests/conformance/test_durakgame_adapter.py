"""The durakgame adapter: translates faithfully, and lets the suite find durakgame's real bugs."""

from __future__ import annotations

import importlib.metadata
import json
import random
import shlex
import sys

import pytest
import yaml
from click.testing import CliRunner

pytest.importorskip("durakgame")

from durak_spec.conformance.adapters.durakgame import DurakgameEngine  # noqa: E402
from durak_spec.conformance.runner import Selection  # noqa: E402
from durak_spec.reference_impl.game import Setup  # noqa: E402
from durak_spec.tools.check import run_suite  # noqa: E402
from durak_spec.tools.cli import cli  # noqa: E402  (before tools.check, which cli imports)

ADAPTER = "python:durak_spec.conformance.adapters.durakgame:DurakgameEngine"
SUBPROCESS = f"cmd:{shlex.quote(sys.executable)} -m durak_spec.conformance.adapters.durakgame"
SETUP = {"hands": [["9S", "9D", "KC", "6C", "7C", "8C"], ["TS", "7S", "QD", "JC", "AD", "6D"]],
         "talon": ["QS", "KS", "AS", "8H"], "trump": "8H", "attacker": 0}

# Small cases; the runner checks every claim on the reference first (a wrong one is `broken`).
CASES = """
id: defence/throw_in_kept
description: A card thrown in after a take leaves the attacker's hand
rules: [throw_in.after_take, bout.taken]
setup: {hands: [[9S, 9D, KC, 6C, 7C, 8C], [TS, 7S, QD, JC, AD, 6D]], talon: [QS, KS, AS, 8H],
        trump: 8H, attacker: 0}
steps:
- do: 0 attack 9S
- do: 1 take
- do: 0 throw 9D
  state: {hands: [[KC, 6C, 7C, 8C, QS, KS], [TS, 7S, QD, JC, AD, 6D, 9S, 9D]]}
---
id: defence/pickup_keeps_thrown
description: The defender takes, the attacker throws one card in and passes; the pickup is the step
  that leaves that card with its thrower too (not the throw-in before it)
rules: [bout.taken, throw_in.after_take]
setup: {hands: [[6S, 7C, 7D, KS, 7H, TC], [7S, 8S, AD, 8D, 8H, JH]],
        talon: [9D, 6C, QD, 9S, TS, 6D, JC, AH, 6H], trump: 6H, attacker: 0}
steps:
- do: 0 attack 6S
- do: 1 cover 6S with 7S
- do: 0 throw 7C
- do: 1 take
- do: 0 throw 7D
- do: 0 pass
  state: {hands: [[KS, 6C, TC, 9D, QD, 7H], [6S, 7S, 8S, 7C, 7D, 8D, AD, 8H, JH]]}
---
id: draw/taker_draws
description: A defender who took and holds fewer than six cards draws after the attacker
rules: [draw.who, bout.taken]
setup: {hands: [[9S, KC, 6C, 7C, 8C, TC], [TS, 7H]], talon: [QS, KS, AS, JD, QD, 8H], trump: 8H,
        attacker: 0}
steps:
- do: 0 attack 9S
- do: 1 take
  state: {hand_sizes: [6, 6], talon_count: 2}
---
id: limits/first_bout_take
description: A take on the fifth card of the first bout ends it, the first-bout cap being reached
rules: [limits.first_bout, throw_in.after_take]
options: {first_bout_max: 5, first_bout_scope: until_first_discard}
setup: {hands: [[7S, 8C, 9D, TS, JC, 7C], [8S, 9C, TD, JS, QD, 6D]], talon: [QS, KS, AS, AH],
        trump: AH, attacker: 0}
steps: [{do: 0 attack 7S}, {do: 1 cover 7S with 8S}, {do: 0 throw 8C}, {do: 1 cover 8C with 9C},
        {do: 0 throw 9D}, {do: 1 cover 9D with TD}, {do: 0 throw TS}, {do: 1 cover TS with JS},
        {do: 0 throw JC}, {do: 1 take, state: {taking: false, table: []}}]
---
id: play/cover_and_pass
description: A refused cover, a cover and a pass beat the bout off
rules: [defence.beat, bout.beaten_off]
variants: [podkidnoy, perevodnoy]
setup: {hands: [[9S, 9D, KC, 6C, 7C, 8C], [TS, 7S, QD, JC, AD, 6D]], talon: [QS, KS, AS, 8H],
        trump: 8H, attacker: 0}
steps:
- do: 0 attack 9S
- {do: 1 cover 9S with 7S, expect: reject, rule: defence.beat}
- do: 1 cover 9S with TS
- do: 0 pass
  state: {table: [], attacker: 1, discard_count: 22,
          hands: [[9D, KC, 6C, 7C, 8C, QS], [7S, QD, JC, AD, 6D, KS]]}
---
id: attack/three_players
description: The first attacker of a three-player deal opens
rules: [attack.opener]
setup: {hands: [[9S, KC], [TS, 7H], [QD, JC]], talon: [QS, 8H], trump: 8H, attacker: 0}
steps: [{do: 0 attack 9S}]
---
id: start/lowest_trump_with_dealer
description: The dealer holds the lowest trump and leads
rules: [start.lowest_trump]
setup: {hands: [[9S, KC, 8H, 6C, 7C, 8C], [TS, 7H, QD, JC, AD, 6D]], talon: [QS, AH], trump: AH,
        dealer: 1}
steps: [{do: 1 attack TS}]
"""


@pytest.fixture
def cases_dir(tmp_path):
    for text in CASES.split("\n---\n"):
        path = tmp_path / f"{yaml.safe_load(text)['id']}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def started(setup=SETUP, **options) -> DurakgameEngine:
    engine = DurakgameEngine()
    engine.start({"preset": "podkidnoy", "options": {"first_attacker": "lowest_trump", **options}},
                 setup)
    return engine


def test_hello_declares_two_player_podkidnoy_in_values_of_spec_options(spec):
    hello = DurakgameEngine().hello()
    assert hello["version"] == importlib.metadata.version("durakgame")
    assert (hello["presets"], hello["players"], hello["positions"]) == (["podkidnoy"], [2], False)
    for name, values in hello["options"].items():
        assert set(values) <= set(spec.options[name].values), name


def test_start_seats_the_explicit_attacker_and_maps_the_opening_moves():
    engine = started({**SETUP, "attacker": 1})
    assert sorted(engine.legal()["actions"]) == sorted(f"1 attack {c}" for c in SETUP["hands"][1])
    assert engine.apply("1 attack 7S") == {"accepted": True}
    assert sorted(engine.legal()["actions"]) == ["0 cover 7S with 9S", "0 take"]
    state = engine.state()["state"]
    assert state["table"] == [["7S", None]] and (state["attacker"], state["defender"]) == (1, 0)
    assert state["talon_count"] == 4 and state["discard_count"] == 20 and state["trump"] == "8H"


def test_an_illegal_move_is_rejected_with_a_reason_and_changes_nothing():
    engine = started()
    engine.apply("0 attack 9S")
    before = engine.state()["state"]
    for action in ("1 cover 9S with 7S", "0 throw 9D", "1 attack TS", "1 transfer 9D", "1 dance"):
        verdict = engine.apply(action)
        assert verdict["accepted"] is False and verdict["reason"] and "rule" not in verdict, action
    assert engine.state()["state"] == before


def test_throw_ins_after_a_take_wait_for_the_pass_and_keep_durakgames_duplication():
    engine = started({**SETUP, "hands": [["9S", "9D", "9C", "6C", "7C", "8C"], SETUP["hands"][1]]})
    engine.apply("0 attack 9S")
    engine.apply("1 take")
    assert sorted(engine.legal()["actions"]) == ["0 pass", "0 throw 9C", "0 throw 9D"]
    assert engine.apply("0 throw 9D") == {"accepted": True}
    state = engine.state()["state"]
    assert state["taking"] and ["9D", None] in state["table"] and "9D" not in state["hands"][0]
    assert engine.apply("0 pass") == {"accepted": True}
    hands = engine.state()["state"]["hands"]
    assert "9D" in hands[1] and "9D" in hands[0]  # the engine's bug, left for the suite to find


def test_a_bout_with_nothing_left_to_add_ends_without_a_pass():
    engine = started()
    engine.apply("0 attack 6C")
    assert engine.apply("1 cover 6C with JC") == {"accepted": True}  # 0 holds no 6 and no jack
    state = engine.state()["state"]
    assert state["table"] == [] and state["attacker"] == 1 and state["discard_count"] == 22
    assert engine.apply("0 pass")["accepted"] is False


def test_a_blown_up_hand_is_refused_with_an_error_not_enumerated():
    engine = started()
    engine.apply("0 attack 9S")
    engine.apply("1 take")
    engine.game.player1.hand.extend(engine.game.player1.hand[:1] * 40)  # as duplication does
    engine._version += 1
    with pytest.raises(RuntimeError, match="FinishingMove subsets"):
        engine.legal()["actions"]


def test_check_runs_durakgame_under_its_house_rules_and_names_the_rule_of_each_bug(spec, cases_dir):
    results, meta, suite = run_suite(spec, ADAPTER, Selection(), cases_dir=str(cases_dir))
    assert not suite.broken
    got = {(r.case, r.variant): r for r in results}
    assert meta["engine"]["name"] == "durakgame"
    assert {r.status for r in results} <= {"pass", "fail", "skip"}
    for case_id, check, rule in (("defence/throw_in_kept", "state.hands", "bout.taken"),
                                 ("defence/pickup_keeps_thrown", "state.hands", "bout.taken"),
                                 ("draw/taker_draws", "state.hand_sizes", "draw.who"),
                                 ("limits/first_bout_take", "state.taking", "limits.first_bout")):
        r = got[(case_id, "podkidnoy")]
        assert (r.status, r.check, r.rule) == ("fail", check, rule), (case_id, r.message)
        assert r.rules and ADAPTER in r.reproduce
    assert "no option explains this: rule bout.taken" in got[("defence/throw_in_kept", "podkidnoy")].message
    # after a take on the first bout's fifth card durakgame lets one more card in, as if the
    # throw-ins after a take had no limit: the reference says so
    assert {"throw_in_limit": "unbounded"} in got[("limits/first_bout_take", "podkidnoy")].diagnosis["as_if"]
    assert got[("play/cover_and_pass", "podkidnoy")].status == "pass"
    # a perevodnoy case runs under durakgame's podkidnoy: no transfer, expectations re-derived
    transfer = got[("play/cover_and_pass", "perevodnoy")]
    assert transfer.status == "pass" and transfer.engine_options["transfer"] is False
    assert got[("attack/three_players", "podkidnoy")].message == "the engine does not play 3 players"
    lowest = got[("start/lowest_trump_with_dealer", "podkidnoy")]
    assert lowest.status == "skip" and "step 0 `1 attack TS` cannot be played" in lowest.message
    assert "first_attacker = left_of_dealer instead of lowest_trump" in lowest.message


def test_the_subprocess_engine_gives_the_same_outcomes(spec, cases_dir):
    inproc, _, _ = run_suite(spec, ADAPTER, Selection(), cases_dir=str(cases_dir))
    sub, meta, _ = run_suite(spec, SUBPROCESS, Selection(), cases_dir=str(cases_dir))
    assert meta["restarts"] == 0
    assert [(r.case, r.variant, r.status, r.check, r.rule) for r in sub] == \
           [(r.case, r.variant, r.status, r.check, r.rule) for r in inproc]


def test_durak_check_cli_exits_1_and_writes_the_report(cases_dir, tmp_path):
    report = tmp_path / "dg.json"
    result = CliRunner().invoke(cli, ["check", "--adapter", ADAPTER, "--cases-dir", str(cases_dir),
                                      "--report", str(report), "-q"])
    assert result.exit_code == 1, result.output
    data = json.loads(report.read_text())
    assert data["summary"]["fail"] == 4 and data["summary"]["error"] == 0


def test_every_action_legal_lists_is_accepted_in_random_games(spec):
    ruleset = spec.ruleset("podkidnoy", {})
    bounded = 0
    for seed in range(20):
        engine = started({**Setup.deal(ruleset, 2, seed).to_json(), "attacker": 0})
        rng = random.Random(seed)
        try:
            while actions := engine.legal()["actions"]:
                action = rng.choice(actions)
                assert engine.apply(action) == {"accepted": True}, (seed, action)
        except RuntimeError as exc:  # the duplication bug grew a hand past the bound
            assert "FinishingMove subsets" in str(exc)
            bounded += 1
            continue
        assert engine.state()["state"]["finished"], seed
    assert bounded < 20


def test_the_benchmark_driver_plays_the_games_random_shuffle_and_choice_play():
    """bench/durakgame_driver.py writes out Random.shuffle's loop and Random.choice's draw (as the
    reference's deal and play loop do, so that bench/playouts.py weighs the engines alike): the
    same decks, moves and games as rng.shuffle and rng.choice give, and the stream left where they
    leave it."""
    import importlib.util
    from pathlib import Path

    from durakgame import FinishingMove, Player, standardDeck
    from durakgame.game import Game

    path = Path(__file__).resolve().parents[2] / "bench" / "durakgame_driver.py"
    loaded = importlib.util.spec_from_file_location("durakgame_driver_bench", path)
    driver = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(driver)

    def played(game_class):
        moves = []

        class Recorded(game_class):
            def process(self, move):
                moves.append(str(move))
                return super().process(move)
        return Recorded, moves

    for seed in range(20):
        recorded, theirs = played(Game)
        rng = random.Random(seed)
        deck = standardDeck()
        rng.shuffle(deck)
        dealt = [str(card) for card in deck]
        game = recorded(deck, Player(), Player())
        while not game.isFinished:
            move = rng.choice(game.generateOptions())
            game.updateHistory(move)
            if isinstance(move, FinishingMove):
                for card in move.cards:
                    game.currentPlayer.hand.remove(card)
            game.process(move)

        driver.Game, ours = played(Game)
        decks = []
        driver.Game.__init__ = lambda self, deck, *players: (
            decks.append([str(card) for card in deck]), Game.__init__(self, deck, *players))[1]
        mine = random.Random(seed)
        steps = driver.play_random_game(mine)
        assert decks == [dealt] and ours == theirs and steps == len(theirs), seed
        assert mine.getstate() == rng.getstate(), seed
