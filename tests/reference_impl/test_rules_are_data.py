"""Rules are data: edit a clause or an option in a copy of spec/ and the interpreter follows,
with no Python change."""

from __future__ import annotations

import pytest

from durak_spec.reference_impl.errors import IllegalAction
from durak_spec.reference_impl.game import Game, Setup


def start(spec, setup, preset="podkidnoy", **options):
    rs = spec.ruleset(preset, options)
    return Game(rs, Setup.from_json(setup, rs.deck))


BEAT = {"hands": [["9S", "7C"], ["7S", "JS", "8D"]], "talon": ["6D", "AH"], "trump": "AH",
        "dealer": 1, "attacker": 0}


def test_negating_the_beat_clause_swaps_which_covers_are_legal(spec, spec_copy):
    shipped = start(spec, BEAT)
    shipped.apply_action(shipped.parse_action("0 attack 9S"))
    covers = {str(a) for a in shipped.legal_actions() if a.kind == "cover"}
    assert covers == {"1 cover 9S with JS"}

    spec_copy.edit("rules/defence.yaml", 'clause: "beats(card, target)"',
                   'clause: "not beats(card, target)"')
    negated = start(spec_copy.load(), BEAT)
    negated.apply_action(negated.parse_action("0 attack 9S"))
    covers = {str(a) for a in negated.legal_actions() if a.kind == "cover"}
    assert covers == {"1 cover 9S with 7S", "1 cover 9S with 8D"}
    with pytest.raises(IllegalAction) as info:
        negated.apply_action(negated.parse_action("1 cover 9S with JS"))
    assert info.value.rule_id == "defence.beat"


FIVE = {"hands": [["9S", "9C", "9D", "9H", "TH", "JC"], ["TS", "TC", "TD", "JH", "QS", "QC", "QD"]],
        "talon": ["6D", "AH"], "trump": "AH", "dealer": 1, "attacker": 0}
FOUR_COVERED = ["0 attack 9S", "1 cover 9S with TS", "0 throw 9C", "1 cover 9C with TC",
                "0 throw 9D", "1 cover 9D with TD", "0 throw 9H"]


def _attack_with_tens_and_nines(game, count):
    """Four nines on the table, three of them covered with tens."""
    assert count == 4
    for text in FOUR_COVERED:
        game.apply_action(game.parse_action(text))


def test_changing_the_cap_in_a_preset_changes_when_throw_ins_stop(spec, spec_copy):
    shipped = start(spec, FIVE)
    _attack_with_tens_and_nines(shipped, 4)
    shipped.apply_action(shipped.parse_action("0 throw TH"))  # the fifth card is fine under 6

    spec_copy.edit("presets.yaml", "max_attack_cards: 6", "max_attack_cards: 4")
    capped = start(spec_copy.load(), FIVE)
    _attack_with_tens_and_nines(capped, 4)
    with pytest.raises(IllegalAction) as info:
        capped.apply_action(capped.parse_action("0 throw TH"))
    assert info.value.rule_id == "limits.cap"


DRAW = {"hands": [["9S"], ["JS", "8C"], ["7D", "6C"]],
        "talon": ["6S", "7S", "8S", "TS", "QS", "KS", "AS", "AH"], "trump": "AH",
        "dealer": 2, "attacker": 0}


def _hands_after_first_bout(spec):
    game = start(spec, DRAW)
    for text in ("0 attack 9S", "1 cover 9S with JS", "0 pass", "2 pass"):
        if any(str(a) == text for a in game.legal_actions()):
            game.apply_action(game.parse_action(text))
    return game.full_state()["hands"]


def test_reversing_the_draw_order_clause_makes_the_defender_draw_first(spec, spec_copy):
    hands = _hands_after_first_bout(spec)
    # attacker 0 fills up first (6 cards), seat 2 takes the last 2, defender 1 gets none
    assert [len(h) for h in hands] == [6, 1, 4]

    spec_copy.edit("rules/draw.yaml",
                   "clause: \"0 if seat == attacker else (players if seat == defender else",
                   "clause: \"0 - (0 if seat == attacker else (players if seat == defender else")
    spec_copy.edit("rules/draw.yaml", "else cw(seat, attacker)))\"", "else cw(seat, attacker))))\"")
    reversed_hands = _hands_after_first_bout(spec_copy.load())
    assert [len(h) for h in reversed_hands] == [0, 6, 5]


def test_an_option_flag_turns_throw_ins_after_a_take_off(spec):
    setup = {"hands": [["9S", "9C"], ["6S", "7D"]], "talon": ["8D", "AH"], "trump": "AH",
             "dealer": 1, "attacker": 0}
    on = start(spec, setup)
    off = start(spec, setup, throw_in_after_take=False)
    for game in (on, off):
        game.apply_action(game.parse_action("0 attack 9S"))
        game.apply_action(game.parse_action("1 take"))
    assert "0 throw 9C" in {str(a) for a in on.legal_actions()}
    # with the option off nobody may add, so the defender picks up at once and the bout is over
    assert off.full_state()["hands"][1] == ["6S", "9S", "7D"]
    assert off.full_state()["bout"] == 2 and on.full_state()["bout"] == 1
