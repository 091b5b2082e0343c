"""Attack limits: spec/rules/limits.yaml (limits.cap, limits.first_bout, limits.hand_at_start,
limits.unbeaten_le_hand, limits.total_le_hand) with the options max_attack_cards,
defender_hand_bound, first_bout_max and first_bout_scope. Trump is hearts; talons are empty
unless stated."""

from __future__ import annotations

import random

import pytest

from durak_spec.reference_impl.errors import SpecError
from durak_spec.reference_impl.game import Game, Setup

TRUMP = "AH"

# The attacker holds seven sixes and sevens; the defender holds eight cards, so only the fixed cap
# can stop the attack.
CAP_HANDS = [["6S", "6C", "6D", "6H", "7C", "7D", "7H"],
             ["7S", "9S", "TS", "JS", "QS", "KS", "AS", "9C"]]
FIVE_THROWS = ["0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 throw 6D", "0 throw 6H",
               "0 throw 7C", "0 throw 7D"]


def attack_count(g: Game) -> int:
    return len(g.full_state()["table"])


# -- limits.cap -----------------------------------------------------------------------------------

def test_the_seventh_attack_card_is_rejected_by_the_cap_of_six(durak):
    g = durak.game(CAP_HANDS, trump=TRUMP, attacker=0)
    durak.play(g, *FIVE_THROWS)
    assert attack_count(g) == 6
    assert len(g.full_state()["hands"][1]) == 7  # the defender could still answer more cards
    assert durak.reject(g, "0 throw 7H").rule_id == "limits.cap"
    assert durak.legal(g, "throw") == set()


def test_the_cap_counts_beaten_cards_too(durak):
    g = durak.game(CAP_HANDS, trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "1 cover 6C with 9C",
               "0 throw 6D", "0 throw 6H", "0 throw 7C", "0 throw 7D")
    state = g.full_state()
    assert len(state["table"]) == 6
    assert sum(d is None for _, d in state["table"]) == 4
    assert durak.reject(g, "0 throw 7H").rule_id == "limits.cap"


def test_without_a_fixed_cap_the_seventh_card_is_allowed(durak):
    g = durak.game(CAP_HANDS, trump=TRUMP, attacker=0, max_attack_cards=None)
    durak.play(g, *FIVE_THROWS)
    assert durak.legal(g, "throw") == {"0 throw 7H"}
    durak.play(g, "0 throw 7H")
    assert attack_count(g) == 7


def test_the_podkidnoy_no_cap_preset_has_no_fixed_cap(durak):
    g = durak.game(CAP_HANDS, trump=TRUMP, attacker=0, preset="podkidnoy_no_cap")
    durak.play(g, *FIVE_THROWS, "0 throw 7H", check_invariants=False)
    assert attack_count(g) == 7
    g = durak.game(CAP_HANDS, trump=TRUMP, attacker=0)
    assert durak.reject(durak.play(g, *FIVE_THROWS), "0 throw 7H").rule_id == "limits.cap"


def test_a_cap_of_four_rejects_the_fifth_card(durak):
    g = durak.game(CAP_HANDS, trump=TRUMP, attacker=0, max_attack_cards=4)
    durak.play(g, *FIVE_THROWS[:5])
    assert attack_count(g) == 4
    assert durak.reject(g, "0 throw 7C").rule_id == "limits.cap"
    assert durak.reject(g, "0 throw 6H").rule_id == "play.own_card"  # already on the table


# -- limits.hand_at_start and the other defender_hand_bound values -------------------------------

THREE_CARD_HANDS = [["6S", "6C", "6D", "6H"], ["7S", "9D", "TD"]]


def test_attack_cards_may_not_outnumber_the_defenders_hand_at_the_start_of_the_bout(durak):
    g = durak.game(THREE_CARD_HANDS, trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 throw 6D")
    assert attack_count(g) == 3
    assert durak.reject(g, "0 throw 6H").rule_id == "limits.hand_at_start"


def test_the_hand_at_start_bound_also_holds_for_cards_added_after_a_take(durak):
    g = durak.game(THREE_CARD_HANDS, trump=TRUMP, attacker=0)
    durak.play(g, "0 attack 6S", "1 take", "0 throw 6C")
    assert durak.legal(g, "throw") == {"0 throw 6D", "0 throw 6H"}
    durak.play(g, "0 throw 6D")
    # a fourth six would outnumber the three cards the defender began with: nothing more may be
    # added, so the defender picks up the three sixes at once and 0 keeps 6H
    state = g.full_state()
    assert state["table"] == [] and state["taking"] is False
    assert state["hands"][0] == ["6H"]
    assert state["hands"][1] == ["6S", "7S", "6C", "6D", "9D", "TD"]


def test_with_an_unbounded_throw_in_limit_the_bound_lifts_after_a_take(durak):
    g = durak.game(THREE_CARD_HANDS, trump=TRUMP, attacker=0, throw_in_limit="unbounded")
    durak.play(g, "0 attack 6S", "1 take", "0 throw 6C", "0 throw 6D", "0 throw 6H")
    # all four sixes were added and picked up with the defender's three cards
    state = g.full_state()
    assert state["hands"][1] == ["6S", "7S", "6C", "6D", "9D", "TD", "6H"]
    assert state["hands"][0] == []


# Cap 4; after 6S is beaten and 6C added, the defender takes and 0 adds three more cards.
UNBOUNDED_HANDS = [["6S", "6C", "6D", "6H", "7C", "7D"], ["7S", "9D", "TD", "JD", "QD"]]
UNBOUNDED_PLAY = ["0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "1 take", "0 throw 6D",
                  "0 throw 6H"]


def test_cards_added_after_a_take_obey_the_cap_by_default(durak):
    g = durak.game(UNBOUNDED_HANDS, trump=TRUMP, attacker=0, max_attack_cards=4)
    durak.play(g, *UNBOUNDED_PLAY[:-1])
    assert attack_count(g) == 3 and g.full_state()["taking"] is True
    durak.play(g, UNBOUNDED_PLAY[-1])
    # the fourth card reached the cap, so nothing more could be added: the defender picked up
    # the five table cards at once and 0 kept 7C and 7D
    state = g.full_state()
    assert state["table"] == [] and state["bout"] == 2
    assert state["hands"][0] == ["7C", "7D"]
    assert len(state["hands"][1]) == 4 + 5


def test_with_an_unbounded_throw_in_limit_cards_added_after_a_take_pass_the_cap(durak):
    g = durak.game(UNBOUNDED_HANDS, trump=TRUMP, attacker=0, max_attack_cards=4,
                   throw_in_limit="unbounded")
    durak.play(g, *UNBOUNDED_PLAY)
    assert durak.legal(g, "throw", seat=0) == {"0 throw 7C", "0 throw 7D"}
    durak.play(g, "0 throw 7C")
    assert attack_count(g) == 5


def test_the_attack_cap_invariant_holds_with_an_unbounded_throw_in_limit(durak):
    g = durak.game(UNBOUNDED_HANDS, trump=TRUMP, attacker=0, max_attack_cards=4,
                   throw_in_limit="unbounded")
    durak.play(g, *UNBOUNDED_PLAY, "0 throw 7C", check_invariants=False)
    assert g.check_invariants() == []


def test_unbeaten_le_current_rejects_the_same_fourth_card_under_its_own_rule(durak):
    g = durak.game(THREE_CARD_HANDS, trump=TRUMP, attacker=0, defender_hand_bound="unbeaten_le_current")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 throw 6D")
    assert durak.reject(g, "0 throw 6H").rule_id == "limits.unbeaten_le_hand"


def test_total_le_current_already_rejects_the_third_card(durak):
    g = durak.game(THREE_CARD_HANDS, trump=TRUMP, attacker=0, defender_hand_bound="total_le_current")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C")
    # two attack cards against a hand of two: a third would outnumber the current hand
    assert durak.reject(g, "0 throw 6D").rule_id == "limits.total_le_hand"


def test_with_no_hand_bound_only_the_cap_limits_the_attack(durak):
    g = durak.game(THREE_CARD_HANDS, trump=TRUMP, attacker=0, defender_hand_bound="none")
    durak.play(g, "0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 throw 6D", "0 throw 6H")
    assert attack_count(g) == 4


def _playout_pairs(durak, opts_a, opts_b, seeds, players, pick_from):
    """Play the same random actions under two rulesets and yield both legal sets at every step
    while the two games are in the same position (a stricter ruleset may end a bout earlier,
    after which the positions differ and that game is left)."""
    for n in players:
        for seed in seeds:
            ga = Game.from_seed(durak.ruleset("podkidnoy", **opts_a), n, seed)
            gb = Game.from_seed(durak.ruleset("podkidnoy", **opts_b), n, seed)
            rng = random.Random(seed * 31 + n)
            while not ga.is_terminal() and ga.full_state() == gb.full_state():
                la, lb = set(ga.legal_actions()), set(gb.legal_actions())
                yield la, lb
                choices = sorted(map(str, la if pick_from == "a" else lb))
                a = ga.parse_action(rng.choice(choices))
                ga.apply_action(a)
                gb.apply_action(a)


def test_unbeaten_le_current_gives_the_same_legal_sets_as_start_of_bout(durak):
    # Uncapped, so the defender's hand is what binds; whole random games, 2 to 4 players.
    base = {"max_attack_cards": None}
    steps = 0
    for la, lb in _playout_pairs(durak, {**base, "defender_hand_bound": "start_of_bout"},
                                 {**base, "defender_hand_bound": "unbeaten_le_current"},
                                 seeds=range(3), players=(2, 3, 4), pick_from="a"):
        assert la == lb
        steps += 1
    assert steps > 300


def test_total_le_current_never_allows_more_than_start_of_bout_and_sometimes_fewer(durak):
    compared = strictly_fewer = 0
    for la, lb in _playout_pairs(durak, {"defender_hand_bound": "start_of_bout"},
                                 {"defender_hand_bound": "total_le_current"},
                                 seeds=range(6), players=(2, 3), pick_from="b"):
        assert lb <= la
        compared += 1
        strictly_fewer += lb < la
    assert compared > 30
    assert strictly_fewer > 0


# -- limits.first_bout ---------------------------------------------------------------------------------

@pytest.mark.parametrize("scope", ["first_bout_of_deal", "until_first_discard"])
def test_a_first_bout_cap_of_five_rejects_the_sixth_card_in_the_first_bout(durak, scope):
    g = durak.game(CAP_HANDS, trump=TRUMP, attacker=0, first_bout_max=5, first_bout_scope=scope)
    durak.play(g, *FIVE_THROWS[:6])
    assert attack_count(g) == 5
    assert durak.reject(g, "0 throw 7D").rule_id == "limits.first_bout"


# Bout 1: 0 leads 8S and 1 takes it (nobody can add an eight). Bout 2: 0 attacks again (two
# players) against a defender now holding seven cards.
TAKEN_FIRST = [["6S", "6C", "6D", "6H", "7C", "7D", "7H", "8S"],
               ["7S", "9S", "9C", "TC", "JC", "QC"]]
SECOND_BOUT = ["0 attack 6S", "1 cover 6S with 7S", "0 throw 6C", "0 throw 6D", "0 throw 6H",
               "0 throw 7C"]


def _after_a_taken_first_bout(durak, scope):
    g = durak.game(TAKEN_FIRST, trump=TRUMP, attacker=0, first_bout_max=5, first_bout_scope=scope)
    durak.play(g, "0 attack 8S", "1 take")
    state = g.full_state()
    assert (state["bout"], state["beaten_bouts"], state["attacker"]) == (2, 0, 0)
    assert len(state["hands"][1]) == 7
    durak.play(g, *SECOND_BOUT)
    assert attack_count(g) == 5
    return g


def test_first_bout_of_deal_scope_lifts_the_cap_in_the_second_bout_after_a_take(durak):
    g = _after_a_taken_first_bout(durak, "first_bout_of_deal")
    durak.play(g, "0 throw 7D")
    assert attack_count(g) == 6
    assert durak.reject(g, "0 throw 7H").rule_id == "limits.cap"


def test_until_first_discard_scope_keeps_the_cap_while_no_bout_was_beaten_off(durak):
    g = _after_a_taken_first_bout(durak, "until_first_discard")
    assert durak.reject(g, "0 throw 7D").rule_id == "limits.first_bout"


@pytest.mark.parametrize("scope", ["first_bout_of_deal", "until_first_discard"])
def test_after_a_beaten_off_first_bout_neither_scope_caps_at_five(durak, scope):
    # Bout 1: 0 leads 8S, 1 beats it with 9S and nobody can add; 1 then attacks 0.
    hands = [["8S", "7S", "TC", "JC", "QC", "KC", "AC"],
             ["9S", "6S", "6C", "6D", "6H", "7C", "7D"]]
    g = durak.game(hands, trump=TRUMP, attacker=0, first_bout_max=5, first_bout_scope=scope)
    durak.play(g, "0 attack 8S", "1 cover 8S with 9S")
    state = g.full_state()
    assert (state["bout"], state["beaten_bouts"], state["attacker"]) == (2, 1, 1)
    durak.play(g, "1 attack 6S", "0 cover 6S with 7S", "1 throw 6C", "1 throw 6D", "1 throw 6H",
               "1 throw 7C", "1 throw 7D")
    assert attack_count(g) == 6


def test_a_spec_with_one_clause_changed_plays_by_it_and_leaves_the_spec_alone(durak, spec):
    """Spec.with_clause, as fuzz replays under a change diagnose found: the cap's clause made
    always true lets the seventh card in, and the spec keeps its own clause."""
    changed = spec.with_clause("limits.cap", "True")
    assert changed.rule("limits.cap").clause == "True" != spec.rule("limits.cap").clause
    rs = changed.ruleset("podkidnoy")
    g = Game(rs, Setup.from_json({"hands": CAP_HANDS, "talon": [], "trump": TRUMP, "dealer": 1,
                                  "attacker": 0}, rs.deck))
    durak.play(g, *FIVE_THROWS, "0 throw 7H", check_invariants=False)
    assert attack_count(g) == 7  # the shipped spec stops it: the test of podkidnoy_no_cap above
    with pytest.raises(SpecError):
        spec.with_clause("limits.no_such_rule", "True")
