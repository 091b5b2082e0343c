"""`durak judge` (tools/judge.py): the shipped positions rule as they claim, the rulings name their
rules, options and disputes, presets are compared, and impossible positions are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_support import run

from durak_spec.tools.judge.report import to_text
from durak_spec.tools.judge.ruling import (
    PositionError,
    compare,
    misfit,
    parse_position_action,
    read_position,
    rule_variant,
)

POSITIONS = Path(__file__).resolve().parents[2] / "positions"
FILES = sorted(POSITIONS.glob("*.yaml"))


def judge_json(*args) -> dict:
    result = run("judge", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


RULESETS: dict = {}


def ruleset(spec, preset: str, **options):
    """Rulesets of the session's spec, compiled once per preset and overrides."""
    key = (preset, tuple(sorted(options.items())))
    if key not in RULESETS:
        RULESETS[key] = spec.ruleset(preset, options)
    return RULESETS[key]


def ruling(spec, name, preset: str, **options):
    position = read_position(POSITIONS / name, spec)
    action = parse_position_action(spec, position, None)
    return rule_variant(spec, ruleset(spec, preset, **options), position, action)


def all_variants(spec, path):
    """Rulings under every preset and what splits them, as `--all-variants` computes them."""
    position = read_position(path, spec)
    action = parse_position_action(spec, position, None)
    rulings = [rule_variant(spec, ruleset(spec, p), position, action) for p in fitting(spec, position)]
    return position, rulings, compare(spec, position, action, rulings)


def fitting(spec, position):
    """The presets whose deck can hold the position (`--all-variants` notes the others)."""
    return [p for p in spec.presets if misfit(ruleset(spec, p), position) is None]


def claims():
    for path in FILES:
        for i, claim in enumerate(yaml.safe_load(path.read_text()).get("expect", [])):
            for preset in claim["variants"]:
                yield pytest.param(path.name, preset, claim, id=f"{path.stem}[{i}]-{preset}")


def test_positions_cover_the_top_disputes():
    about = {d for path in FILES for d in yaml.safe_load(path.read_text())["disputes"]}
    assert {"D2", "D3", "D4", "D18", "D27", "D31"} <= about
    assert all(yaml.safe_load(path.read_text()).get("expect") for path in FILES)


@pytest.mark.parametrize("name, preset, claim", list(claims()))
def test_each_position_rules_as_it_claims(spec, name, preset, claim):
    r = ruling(spec, name, preset, **claim.get("options", {}))
    assert r.legal is claim["legal"]
    if "rule" in claim:
        assert r.forbidding_rule == claim["rule"]
    for key, want in claim.get("outcome", {}).items():
        assert r.outcome[key] == want, key


def test_the_seventh_card_is_stopped_by_the_cap_except_without_one(spec):
    capped = ruling(spec, "attack-limit-seventh-card.yaml", "podkidnoy")
    assert (capped.legal, capped.forbidding_rule) == (False, "limits.cap")
    assert ("max_attack_cards", 6, "preset podkidnoy") in capped.options
    free = ruling(spec, "attack-limit-seventh-card.yaml", "podkidnoy_no_cap")
    assert free.legal and free.outcome["bout"] == "continues"
    assert ("max_attack_cards", None, "preset podkidnoy_no_cap") in free.options


def test_the_simultaneous_last_card_is_a_draw_unless_an_option_names_a_fool(spec):
    assert ruling(spec, "simultaneous-last-card.yaml", "podkidnoy").outcome["draw"] is True
    strict = ruling(spec, "simultaneous-last-card.yaml", "podkidnoy",
                    simultaneous_finish="last_defender_loses")
    assert strict.outcome["fool"] == 1
    assert ("simultaneous_finish", "last_defender_loses", "override") in strict.options
    assert "end.fool" in {rule.id for role, rule in strict.rules if role == "then"}


def test_after_a_take_the_out_seat_is_skipped(spec):
    r = ruling(spec, "who-attacks-next.yaml", "podkidnoy")
    assert (r.outcome["next_attacker"], r.outcome["next_defender"]) == (3, 0)
    assert "rotation.after_take" in {rule.id for _, rule in r.rules}


def test_a_position_nobody_can_continue_is_judged_as_given(spec):
    r = ruling(spec, "throw-in-after-take.yaml", "podkidnoy", throw_in_after_take=False)
    assert r.legal is False
    assert [(role, rule.id) for role, rule in r.rules] == [
        ("forbids", "throw_in.after_take"), ("settles", "bout.taken")]
    assert any("bout.taken" in note for note in r.notes)


def test_the_ruling_quotes_rule_text_and_sources_from_the_spec(spec):
    data = judge_json(POSITIONS / "attack-limit-seventh-card.yaml")
    (r,) = data["rulings"]
    rule = spec.rule("limits.cap")
    assert r["rules"][0] == {"id": "limits.cap", "role": "forbids", "title": rule.title,
                             "text": rule.text, "sources": rule.sources, "file": rule.file,
                             "path": rule.path}
    assert set(rule.sources) <= set(data["sources"])
    assert data["sources"]["W19"]["title"] == spec.sources["W19"]["title"]
    assert {"id": "D2", "position": "fixed_cap"}.items() <= r["disputes"][0].items()


def test_all_variants_names_the_disputes_that_make_the_rulings_differ(spec):
    _, rulings, diff = all_variants(spec, POSITIONS / "attack-limit-first-bout.yaml")
    assert diff.verdicts_differ and not diff.combined
    assert (diff.disputes, sorted(diff.options)) == (["D3"], ["first_bout_max", "first_bout_scope"])
    position = read_position(POSITIONS / "attack-limit-first-bout.yaml", spec)
    fit = set(fitting(spec, position))
    assert {r.variant for r in rulings} == fit and "full_deck" not in fit  # its discard count is of 36 cards
    assert {r.variant: r.legal for r in rulings if r.variant != "podkidnoy_online"} == dict.fromkeys(
        fit - {"podkidnoy_online"}, True)
    assert not next(r.legal for r in rulings if r.variant == "podkidnoy_online")
    assert all_variants(spec, POSITIONS / "attack-limit-seventh-card.yaml")[2].disputes == ["D2"]
    transfer = all_variants(spec, POSITIONS / "transfer-first-bout.yaml")[2]
    assert set(transfer.disputes) == {"D18", "D21"}


def test_all_variants_text_shows_a_table_and_the_dispute():
    result = run("judge", POSITIONS / "transfer-first-bout.yaml", "--all-variants")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    row = next(line for line in lines if line.strip().startswith("perevodnoy_online"))
    assert "not allowed" in row and "transfer.first_bout" in row
    assert any(line.startswith("  D21 No transfer in the first bout") for line in lines)


def test_presets_that_agree_are_reported_as_agreeing(spec):
    position, rulings, diff = all_variants(spec, POSITIONS / "simultaneous-last-card.yaml")
    assert diff is None
    assert "Every variant rules the same." in to_text(spec, position, rulings, diff)


def test_same_verdict_under_different_rules_names_the_dispute_behind_the_rules(spec):
    _, rulings, diff = all_variants(spec, POSITIONS / "throw-in-after-take-limit.yaml")
    assert {r.legal for r in rulings} == {False}
    assert (diff.verdicts_differ, diff.disputes) == (False, ["D1"])


def test_without_an_action_the_legal_actions_are_listed_per_variant(tmp_path, spec):
    data = yaml.safe_load((POSITIONS / "transfer-first-bout.yaml").read_text())
    del data["action"]
    path = tmp_path / "no-action.yaml"
    path.write_text(yaml.safe_dump(data))
    _, rulings, diff = all_variants(spec, path)
    actions = {r.variant: r.legal_actions for r in rulings}
    assert "1 transfer 9C" in actions["perevodnoy"]
    assert "1 transfer 9C" not in actions["podkidnoy"] and "1 take" in actions["podkidnoy"]
    assert "D21" in diff.disputes


def test_action_option_overrides_the_files_action():
    data = judge_json(POSITIONS / "transfer-window.yaml", "--action", "1 take",
                      "--variant", "perevodnoy")
    (r,) = data["rulings"]
    assert (r["action"], r["legal"]) == ("1 take", True)
    assert r["outcome"]["taking"] is True


def test_setup_fields_may_sit_at_the_top_level(tmp_path, spec):
    data = yaml.safe_load((POSITIONS / "attack-limit-seventh-card.yaml").read_text())
    flat = {**data.pop("setup"), **data}
    path = tmp_path / "flat.json"
    path.write_text(json.dumps(flat))
    r = ruling(spec, path, "podkidnoy")
    assert (r.legal, r.forbidding_rule) == (False, "limits.cap")


def test_the_judge_follows_an_edited_spec(spec_copy):
    spec_copy.edit("presets.yaml", "      max_attack_cards: 6\n", "      max_attack_cards: 7\n")
    result = run("--spec", spec_copy.root, "judge", POSITIONS / "attack-limit-seventh-card.yaml",
                 "--format", "json")
    (r,) = json.loads(result.output)["rulings"]
    assert r["legal"] is True
    cap = next(o for o in r["options"] if o["name"] == "max_attack_cards")
    assert (cap["value"], cap["origin"]) == (7, "preset podkidnoy")


def test_the_seven_of_trumps_after_the_six_is_discarded_tells_the_readings_of_d61_apart(spec_copy):
    """The claim of trump-exchange-after-six-discarded fails under the deck's-lowest reading (the
    clause before D61 was followed), so the position checks the reading the spec states."""
    path = POSITIONS / "trump-exchange-after-six-discarded.yaml"
    spec_copy.edit("rules/deck.yaml",
                   "not any(is_trump(c) and c.rank < card.rank for c in in_play)",
                   "card.rank == deck_lowest_rank")
    result = run("--spec", spec_copy.root, "judge", path, "--variant", "marmot_tournament",
                 "--format", "json")
    (r,) = json.loads(result.output)["rulings"]
    assert r["legal"] is False
    assert [x["id"] for x in r["rules"] if x["role"] == "forbids"] == ["deck.trump_exchange_card"]
    (r,) = judge_json(path, "--variant", "marmot_tournament")["rulings"]
    assert r["legal"] is True


SEVENTH = yaml.safe_load((POSITIONS / "attack-limit-seventh-card.yaml").read_text())


def broken(**setup):
    return {"action": SEVENTH["action"], "setup": {**SEVENTH["setup"], **setup}}


@pytest.mark.parametrize("data, message", [
    (broken(hands=[["8H", "9S", "AD"], ["AS", "7C", "9D", "KD", "AH", "8H"],
                   ["7S", "TC", "JH", "QS"]]),
     "setup.hands[1]: card 8H appears twice (also in hands[0])"),
    (broken(table=[["6S", "TS"], ["6C", "6H"], ["8S", "JS"], ["8C", "KC"], ["6D", None],
                   ["JD", None]]),
     "setup.table[5]: card JD appears twice (also in talon)"),
    (broken(discard=14),
     "24 cards in hands, talon and table and 14 in the discard make 38; the deck has 36"),
    (broken(hands=[["8H", "9S"], ["AS", "7C", "9D", "KD", "AH"], ["7S", "TC", "JH", "QS"]],
            discard=13),
     "13 cards in the discard; beaten-off bouts discard attack cards with their covers"),
    (broken(beaten_bouts=0), "12 cards in the discard but no bout has been beaten off"),
    (broken(out=[2]), "seat 2 is out but holds 4 card(s)"),
])
def test_impossible_positions_are_rejected_with_the_reason(tmp_path, spec, data, message):
    path = tmp_path / "impossible.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(PositionError) as err:
        read_position(path, spec)
    assert message in str(err.value) and str(err.value).startswith(str(path))


def test_the_cli_rejects_an_impossible_position_in_one_line(tmp_path):
    path = tmp_path / "impossible.yaml"
    path.write_text(yaml.safe_dump(broken(discard=14)))
    result = run("judge", path, "--all-variants")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: {path}: setup.discard: 24 cards in hands, talon and table and 14 in the discard "
        "make 38; the deck has 36"]


@pytest.mark.parametrize("args, message", [
    (["--variant", "perevodnoi"], "Did you mean 'perevodnoy'"),
    (["--variant", "podkidnoy", "--all-variants"], "give --variant or --all-variants, not both"),
    (["--action", "0 throw 8X"], "--action: unknown card '8X'"),
    (["--action", "7 throw 8H"], "--action: seat '7' does not exist"),
    (["--action", "0 throws 8H"], "unknown action kind 'throws'"),
    (["--option", "max_attack_cards=3"], "allowed values"),
])
def test_usage_mistakes_exit_2_with_one_line(args, message):
    result = run("judge", POSITIONS / "attack-limit-seventh-card.yaml", *args)
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", "a position is a mapping"),
    ("setup: {hands: [[9S], [7H]], trump: AH}\nactoin: 0 attack 9S\n",
     "unknown field(s) ['actoin']"),
    ("setup: {hands: [[9S], [7H]], trump: AH}\ndisputes: [D4, D99]\n", "unknown dispute 'D99'"),
    ("setup: {hands: [[9S], [7H]], trump: AH}\naction: 0 fly\n",
     "action: unknown action kind 'fly'"),
    ("hands: [[9S], [7H]]\ntrump: AH\ncolour: red\n", "unknown field(s) ['colour']"),
    ("setup: {hands: [[9S], [7H]]\n", "line"),
])
def test_bad_position_files_are_one_clear_message(tmp_path, spec, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(PositionError) as err:
        parse_position_action(spec, read_position(path, spec), None)
    assert message in str(err.value) and str(err.value).startswith(str(path))


def test_a_missing_position_file_is_a_clear_error():
    result = run("judge", "positions/no-such-position.yaml")
    assert result.exit_code == 2 and "no such file" in result.output


def test_a_finished_deal_shows_its_scoring_under_a_match_preset(spec):
    strict = ruling(spec, "simultaneous-last-card.yaml", "cardzmania",
                    simultaneous_finish="last_defender_loses")
    assert strict.scoring["fool"] == 1 and strict.scoring["scores"] == [0, 3]
    assert strict.scoring["next_dealer"] == 1, "the durak deals next"
    assert "scoring.penalty_points" in {rule.id for role, rule in strict.rules if role == "scores"}
    text = run("judge", str(POSITIONS / "simultaneous-last-card.yaml"), "--variant", "cardzmania",
               "--option", "simultaneous_finish=last_defender_loses").output
    assert "Scoring (as the first deal of a match)" in text and "scores 0 3" in text


def test_a_finished_team_deal_shows_the_losing_teams_and_the_winner(spec):
    """D41 under first_team_out_wins: the first team out wins, the two others lose, and the
    winner (who opens the next deal of the team presets) is of the winning team."""
    r = ruling(spec, "team-deal-end.yaml", "podkidnoy_three_teams",
               team_outcome="first_team_out_wins")
    assert r.scoring["losers"] == [1, 2, 4, 5] and r.scoring["winner"] == 0
    text = run("judge", str(POSITIONS / "team-deal-end.yaml"), "--variant",
               "podkidnoy_three_teams", "--option", "team_outcome=first_team_out_wins").output
    assert "losers 1, 2, 4, 5" in text and "the winner (match.winner) is seat 0" in text


def test_the_last_attack_card_a_six_earns_the_epaulette(spec):
    """D59: W19 gives the epaulette when the last card an attacker played is a six; the bout's
    first card, a nine, does not stop it (the spec once asked for every final card to be a six)."""
    with_them = ruling(spec, "epaulettes-last-six.yaml", "podkidnoy_epaulettes")
    assert with_them.scoring["fool"] == 1 and with_them.scoring["epaulettes"] == [0, 1]
    assert ruling(spec, "epaulettes-last-six.yaml", "podkidnoy").scoring["epaulettes"] == [0, 0]


FULL_DECK_POSITION = """\
action: "1 cover 2S with 3S"
setup:
  hands: [[7H, QD, AS, 6C, 8C], [3S, TH, 8D, KC, 6D, 7C]]
  talon: [KH, JC, QH, 6H]
  trump: 6H
  attacker: 0
  defender: 1
  table: [[2S, null]]
"""


def test_a_position_of_the_full_deck_is_ruled_under_the_presets_whose_deck_holds_it(tmp_path):
    """Issue 20: the judge read every position in the 36-card deck and refused a two."""
    path = tmp_path / "full.yaml"
    path.write_text(FULL_DECK_POSITION)
    result = run("judge", str(path), "--variant", "full_deck_jokers")
    assert result.exit_code == 0, result.output
    assert "1 cover 2S with 3S under full_deck_jokers: allowed" in result.output
    refused = run("judge", str(path), "--variant", "podkidnoy")
    assert refused.exit_code == 2 and "no preset asked for has a deck" in refused.output


def test_the_presets_not_ruled_under_are_noted_after_the_verdict_grouped_by_reason(tmp_path):
    path = tmp_path / "full.yaml"
    path.write_text(FULL_DECK_POSITION)
    result = run("judge", str(path), "--variant", "podkidnoy", "--variant", "perevodnoy",
                 "--variant", "full_deck")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    notes = [i for i, line in enumerate(lines) if line.startswith("note: not ruled under")]
    verdict = next(i for i, line in enumerate(lines) if "under full_deck: allowed" in line)
    assert len(notes) == 1 and notes[0] > verdict
    assert lines[notes[0]].startswith("note: not ruled under podkidnoy, perevodnoy: unknown card")
    data = json.loads(run("judge", str(path), "--variant", "podkidnoy", "--variant", "full_deck",
                          "--format", "json").output)
    assert data["not_ruled"] == [{"presets": ["podkidnoy"], "reason": data["not_ruled"][0]["reason"]}]
