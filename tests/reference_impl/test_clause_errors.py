"""A clause of an edited spec that fails while it runs (it divides by zero in some position) is a
ClauseError naming the rule, the clause and the step, wherever it runs: a legality rule hoisted
apart by the generated program, a decision inlined in `settle`, a decision a primitive calls, an
invariant. Every command says it in one line, exit 2 (tools/cli.py)."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest

from durak_spec.reference_impl.errors import ClauseError
from durak_spec.reference_impl.game import Game
from durak_spec.reference_impl.lang import failure_of
from durak_spec.reference_impl.simulate import SimulationReport, play_random_game

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from cli_support import run  # noqa: E402

# A term that is 0 everywhere but divides by zero once one card is on the table: the rule plays as
# before until the first attack (step 1).
AFTER_ONE = "1 // (1 - table_attack_count) > 99"
ALWAYS = "1 // (table_attack_count - table_attack_count) == 0"

EDITS = {  # rule id: (file, clause, its edit), the step it first fails at
    "attack.opener": ("rules/attack.yaml", 'clause: "seat == attacker and table_attack_count == 0"',
                      f'clause: "seat == attacker and {ALWAYS}"', 0),
    "defence.not_after_take": ("rules/defence.yaml", 'clause: "not taking"',
                               f'clause: "not taking and not ({AFTER_ONE})"', 1),
    "bout.taken": ("rules/bout.yaml", 'clause: "taking and not any_throw"',
                   f'clause: "taking and not any_throw or {AFTER_ONE}"', 1),
    "defence.pickup": ("rules/defence.yaml",
                       "clause: \"table_attack_count if opt.pickup_limit == 'all'",
                       "clause: \"table_attack_count + 0 // (table_attack_count - table_attack_count) "
                       "if opt.pickup_limit == 'all'", None),
}


def _broken(spec_copy, rule_id):
    rel, old, new, _ = EDITS[rule_id]
    return spec_copy.edit(rel, old, new)


@pytest.mark.parametrize("check", [True, False], ids=["checked", "play_out"])
@pytest.mark.parametrize("rule_id", sorted(EDITS))
def test_a_clause_that_fails_in_play_names_its_rule_clause_and_step(spec_copy, rule_id, check):
    ruleset = _broken(spec_copy, rule_id).load().ruleset("podkidnoy", {})
    with pytest.raises(ClauseError) as caught:
        for seed in range(20):  # someone takes within a few games (defence.pickup)
            play_random_game(ruleset, 2, seed, check, SimulationReport())
    err = caught.value
    assert err.rule_id == rule_id, str(err)
    assert EDITS[rule_id][2].split('"')[1] in str(err) and "ZeroDivisionError" in str(err)
    if EDITS[rule_id][3] is not None:
        assert err.step == EDITS[rule_id][3]
    assert pickle.loads(pickle.dumps(err)).args == err.args  # crosses verify's process pool


def test_an_invariant_that_fails_names_the_invariant(spec_copy):
    spec_copy.edit("invariants.yaml", 'clause: "sum(hand(x) for x in seats) + talon_count',
                   f'clause: "{AFTER_ONE} or sum(hand(x) for x in seats) + talon_count')
    ruleset = spec_copy.load().ruleset("podkidnoy", {})
    with pytest.raises(ClauseError, match=r"invariant \S+: the clause .* fails at step 1"):
        play_random_game(ruleset, 2, 1, report=SimulationReport())


def test_an_error_raised_outside_clauses_is_left_as_it_is(spec):
    game = Game.from_seed(spec.ruleset("podkidnoy", {}), 2, 1)
    try:
        game.apply_action(None)  # the interpreter's own TypeError, no clause involved
    except Exception as exc:  # noqa: BLE001
        assert not isinstance(exc, ClauseError) and failure_of(exc) is None


@pytest.mark.parametrize("args", [
    ["simulate", "--variant", "podkidnoy", "--games", "3"],
    ["deal", "SETUP"],
    ["judge", "SETUP"],
    ["check", "--case", "attack/defender_opens", "--cases-dir", "CASES"],
    ["fuzz", "--games", "2", "--out", "OUT"],
])
def test_every_command_says_a_failing_clause_in_one_line_exit_2(spec_copy, tmp_path, args):
    _broken(spec_copy, "attack.opener")
    setup = tmp_path / "setup.yaml"
    setup.write_text("hands: [[6S, 8C, TD, QS, KC, AD], [7S, 9C, JD, QH, KS, AC]]\n"
                     "talon: [7C, 8D, 9S, 6H]\ntrump: 6H\n")
    cases = tmp_path / "cases" / "attack"
    cases.mkdir(parents=True)
    shipped = Path(__file__).resolve().parents[2] / "conformance" / "cases" / "attack"
    (cases / "defender_opens.yaml").write_text((shipped / "defender_opens.yaml").read_text())
    paths = {"SETUP": setup, "CASES": tmp_path / "cases", "OUT": tmp_path / "out"}
    result = run("--spec", spec_copy.root, *[paths.get(a, a) for a in args])
    assert result.exit_code == 2, result.output
    assert "rule attack.opener: the clause 'seat == attacker and 1 // (table_attack_count - " \
           "table_attack_count) == 0' fails at step 0 (ZeroDivisionError" in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
