"""Bad input gets one clear message and a non-zero exit, never a traceback."""

from __future__ import annotations

import json

import pytest
from cli_support import run


def test_rules_lists_one_rule_id_at_the_start_of_each_line(spec):
    result = run("rules")
    assert result.exit_code == 0
    ids = [line.split()[0] for line in result.output.splitlines()]
    assert ids == [r.id for r in spec.rules]


def test_rules_shows_text_clause_and_sources_of_one_rule():
    result = run("rules", "defence.beat")
    assert result.exit_code == 0
    assert "beats(card, target)" in result.output and "[W19]" in result.output


def test_variants_shows_where_each_option_value_comes_from():
    result = run("variants", "perevodnoy")
    assert result.exit_code == 0
    assert "preset perevodnoy" in result.output and "preset podkidnoy" in result.output


def test_simulate_prints_games_per_second():
    result = run("simulate", "--variant", "perevodnoy", "--players", "3", "--games", "5")
    assert result.exit_code == 0 and "games/s" in result.output


@pytest.mark.parametrize("args, message", [
    (["simulate", "--variant", "podkidnoi"], "Did you mean 'podkidnoy'"),
    (["simulate", "--option", "max_atack_cards=4"], "Did you mean 'max_attack_cards'"),
    (["simulate", "--option", "max_attack_cards=3"], "allowed values"),
    (["simulate", "--option", "transfer"], "NAME=VALUE"),
    (["simulate", "--players", "7"], "7 players"),
    (["rules", "defence.beet"], "Did you mean 'defence.beat'"),
    (["variants", "nope"], "unknown preset"),
])
def test_usage_mistakes_exit_2_with_one_message(args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.output


def test_too_few_cards_for_the_players_is_a_clear_error(spec_copy):
    spec_copy.edit("deck.yaml", 'ranks: ["6", "7", "8", "9", T, J, Q, K, A]', 'ranks: ["9", T, J, Q, K, A]')
    assert run("--spec", str(spec_copy.root), "simulate", "--players", "4", "--games", "1").exit_code == 0
    result = run("--spec", str(spec_copy.root), "simulate", "--players", "5", "--games", "1")
    assert result.exit_code == 2
    assert "can't deal 6 cards to 5 players from 24 cards" in result.output


def _setup_file(tmp_path, data):
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("data, message", [
    ({"hands": [["9S", "9S"], ["7H"]], "talon": ["AH"], "trump": "AH"}, "appears twice"),
    ({"hands": [["9S"], ["7H"]], "talon": ["AH", "6D"], "trump": "AH"}, "bottom (last) card"),
    ({"hands": [["9Z"], ["7H"]], "talon": ["AH"], "trump": "AH"}, "unknown card '9Z'"),
    ({"hands": [["9S"]], "talon": ["AH"], "trump": "AH"}, "1 players"),
    ({"hands": [["9S"], ["7H"]], "talon": ["AH"]}, "setup.trump: is missing"),
    ({"hands": [["9S"], ["7H"]], "talon": ["AH"], "trump": "AH", "dealer": 5}, "seat 5 does not exist"),
    ({"hands": [["9S"], ["7H"]], "talon": ["AH"], "trump": "AH", "colour": 1}, "unknown field"),
    ({"hands": [["9S"], []], "talon": [], "trump": "AH"}, "seat 1 holds no cards and the talon is empty"),
    ({"hands": [["9S"], [], ["7S"]], "talon": [], "trump": "AH"}, "list the seat under out"),
    ({"hands": [[], ["6S"]], "talon": ["8S", "7S"], "trump": "7S"},
     "seat 0 holds no cards at the start of a bout while the talon holds 2"),
])
def test_setups_that_cannot_be_dealt_are_rejected_with_the_field(tmp_path, data, message):
    result = run("deal", _setup_file(tmp_path, data))
    assert result.exit_code == 2
    assert message in result.output


def test_a_good_setup_shows_the_state_and_legal_actions(tmp_path):
    data = {"hands": [["9S"], ["7H", "AS"]], "talon": ["6H", "AH"], "trump": "AH", "attacker": 0}
    result = run("deal", _setup_file(tmp_path, data))
    assert result.exit_code == 0 and "0 attack 9S" in result.output


def test_malformed_yaml_in_a_spec_file_names_the_file_and_line(spec_copy):
    spec_copy.write("options.yaml", "options:\n  max_attack_cards: [unclosed\n")
    result = run("--spec", str(spec_copy.root), "rules")
    assert result.exit_code == 2
    assert "options.yaml" in result.output and "line" in result.output


def test_a_yaml_alias_bomb_is_refused(spec_copy):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join('*' + chr(97 + i) for _ in range(9))}]\n" for i in range(12))
    spec_copy.write("presets.yaml", bomb)
    result = run("--spec", str(spec_copy.root), "variants")
    assert result.exit_code == 2
    assert "alias" in result.output


def test_a_huge_spec_file_is_refused(spec_copy):
    spec_copy.write("sources.yaml", "# padding\n" * 300_000)
    result = run("--spec", str(spec_copy.root), "rules")
    assert result.exit_code == 2 and "limit" in result.output


def test_an_unknown_name_in_a_clause_is_a_spec_error_with_a_suggestion(spec_copy):
    spec_copy.edit("rules/defence.yaml", 'clause: "table_unbeaten > 0"', 'clause: "table_unbeatn > 0"')
    result = run("--spec", str(spec_copy.root), "simulate", "--games", "1")
    assert result.exit_code == 2
    assert "defence.yaml:rules[4].clause" in result.output
    assert "Did you mean 'table_unbeaten'" in result.output


def test_a_type_error_in_a_clause_is_a_spec_error(spec_copy):
    spec_copy.edit("rules/defence.yaml", 'clause: "table_unbeaten > 0"', 'clause: "table_unbeaten > trump_suit"')
    result = run("--spec", str(spec_copy.root), "simulate", "--games", "1")
    assert result.exit_code == 2 and "needs two numbers" in result.output


def test_an_unknown_option_in_a_clause_is_a_spec_error(spec_copy):
    spec_copy.edit("rules/throw_in.yaml", "not taking or opt.throw_in_after_take", "not taking or opt.throw_in_after_takes")
    result = run("--spec", str(spec_copy.root), "simulate", "--games", "1")
    assert result.exit_code == 2 and "unknown option 'throw_in_after_takes'" in result.output


def test_an_unknown_source_tag_is_a_spec_error(spec_copy):
    spec_copy.edit("rules/attack.yaml", "sources: [PGT-K-old, W19, RST, DAPP]", "sources: [PGT-K-olde, W19, RST, DAPP]")
    result = run("--spec", str(spec_copy.root), "rules")
    assert result.exit_code == 2 and "unknown source tag 'PGT-K-olde'" in result.output


def test_a_schema_violation_names_the_yaml_path(spec_copy):
    spec_copy.edit("options.yaml", "    type: int_or_none\n    default: 6", "    type: float\n    default: 6")
    result = run("--spec", str(spec_copy.root), "rules")
    assert result.exit_code == 2 and "options.max_attack_cards.type" in result.output


def test_a_preset_value_outside_the_option_values_is_a_spec_error(spec_copy):
    spec_copy.edit("presets.yaml", "max_attack_cards: 6", "max_attack_cards: 13")
    result = run("--spec", str(spec_copy.root), "variants")
    assert result.exit_code == 2 and "presets.podkidnoy.options.max_attack_cards" in result.output


def test_a_clause_with_a_forbidden_construct_is_refused(spec_copy):
    spec_copy.edit("rules/defence.yaml", 'clause: "table_unbeaten > 0"', 'clause: "__import__(\'os\').system(\'true\')"')
    result = run("--spec", str(spec_copy.root), "simulate", "--games", "1")
    assert result.exit_code == 2
    assert "only plain calls" in result.output or "unknown function" in result.output


def test_a_truncated_trace_is_reported_with_its_line(tmp_path):
    path = tmp_path / "t.jsonl"
    assert run("simulate", "--games", "1", "--record", str(path)).exit_code == 0
    assert run("replay", str(path)).exit_code == 0
    path.write_text(path.read_text()[:700])
    result = run("replay", str(path))
    assert result.exit_code == 2 and "line 2" in result.output and "truncated" in result.output


def test_lint_passes_on_the_shipped_spec():
    result = run("lint")
    assert result.exit_code == 0 and "0 problem(s)" in result.output


def test_lint_reports_an_option_no_clause_reads(spec_copy, tmp_path):
    spec_copy.edit("rules/throw_in.yaml", "not taking or opt.throw_in_after_take", "not taking or True")
    # over an empty folder of cases: the spec's own checks, not the 2,000 case runs
    result = run("--spec", str(spec_copy.root), "lint", "--cases-dir", str(tmp_path))
    assert result.exit_code == 1
    assert "option throw_in_after_take is read by no clause" in result.output


def test_two_rules_deciding_one_value_under_a_preset_are_a_spec_error_naming_both(spec_copy):
    spec_copy.edit("rules/start.yaml", """    when: "opt.first_attacker == 'left_of_dealer'"
    decides: first_attacker""", "    decides: first_attacker")
    result = run("--spec", str(spec_copy.root), "simulate", "--games", "1")
    assert result.exit_code == 2
    assert "both start.lowest_trump and start.left_of_dealer decide first_attacker" in result.output


def test_lint_wants_every_area_at_both_table_sizes(spec, tmp_path):
    from durak_spec.conformance.cases import CASES_DIR, load_suite
    from durak_spec.tools.lint.cases import table_size_gaps

    assert table_size_gaps(spec, load_suite(spec)) == []
    for name in ("draw/two_players_attacker_first", "rotation/after_take_three_players"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f"{name}.yaml").write_text((CASES_DIR / f"{name}.yaml").read_text())
    problems = table_size_gaps(spec, load_suite(spec, tmp_path))
    assert problems == [
        "rule area draw has no case at three or more players; every area with cases needs both "
        "table sizes (record one with `durak cases record`)",
        "rule area rotation has no case at two players; every area with cases needs both "
        "table sizes (record one with `durak cases record`)"]
