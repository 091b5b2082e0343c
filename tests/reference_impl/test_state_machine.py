"""Random legal games under every preset and 2-6 players, driven by a hypothesis state machine.

After every step every invariant of spec/invariants.yaml is checked (the deal_end ones when a deal
ends, whoever its losers are under the preset's ending and teams); illegal actions are tried too
and must be rejected with an active rule id and no change of state. A second test runs the same
machine on a copy of spec/ whose attack cap is removed and asserts that the machine fails there.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from durak_spec.reference_impl.errors import IllegalAction
from durak_spec.reference_impl.game import Game
from durak_spec.reference_impl.match import score_deal
from durak_spec.reference_impl.notation import state_json
from durak_spec.reference_impl.spec import load_spec
from durak_spec.reference_impl.state import Action
from durak_spec.reference_impl.vocab import ACTION_KINDS


def machine_for(spec, presets=None, players=(2, 6)):
    """A state machine class playing games under `spec`."""
    preset_names = sorted(presets or spec.presets)
    rulesets = {p: spec.ruleset(p) for p in preset_names}

    class DurakMachine(RuleBasedStateMachine):
        @initialize(preset=st.sampled_from(preset_names),
                    n=st.integers(players[0], players[1]), seed=st.integers(0, 2**31))
        def deal(self, preset, n, seed):
            self.ruleset = rulesets[preset]
            self.game = Game.from_seed(self.ruleset, n, seed)
            self.active_ids = {r.id for r in self.ruleset.active_rules}

        @precondition(lambda self: not self.game.is_terminal())
        @rule(data=st.data())
        def play_legal(self, data):
            legal = self.game.legal_actions()
            assert legal, "a game that is not over must offer an action"
            action = data.draw(st.sampled_from(legal), label="action")
            failed = self.game.check_invariants("action", action)
            assert not failed, f"{failed} fail before {action}"
            self.game.apply_action(action)

        @precondition(lambda self: not self.game.is_terminal())
        @rule(kind=st.sampled_from(ACTION_KINDS), seat=st.integers(0, 5), data=st.data())
        def try_illegal(self, kind, seat, data):
            s = self.game.state
            cards = self.ruleset.deck.cards
            seat = seat % s.n
            card = data.draw(st.sampled_from(cards)) if kind in ("attack", "throw", "cover", "transfer") else None
            if card is not None and not card.is_joker and data.draw(st.booleans(), label="named"):
                deck = self.ruleset.deck  # played as another suit: the Weli's form, or a fault
                card = deck.as_suit(card, data.draw(st.sampled_from([x for x in deck.suits if x != card.suit])))
            target = data.draw(st.sampled_from(cards)) if kind == "cover" else None
            action = Action(kind, seat, card, target)
            if action in self.game.legal_actions():
                return
            before = state_json(s)
            with pytest.raises(IllegalAction) as info:
                self.game.apply_action(action)
            assert info.value.rule_id in self.active_ids | {"end.game_over"}, info.value.rule_id
            assert state_json(self.game.state) == before, "a rejected action changed the state"

        @rule()
        def observe(self):
            terminal, legal = self.game.is_terminal(), self.game.legal_actions()
            assert terminal == (not legal), "only a finished game offers no action"
            if terminal:  # the deal_end invariants of spec/invariants.yaml, under every preset
                result = score_deal(self.ruleset, self.game)
                assert result.failed == (), f"invariants {list(result.failed)} fail"
                returns = self.game.returns()
                assert abs(sum(returns)) < 1e-9
                assert [r == -1.0 for r in returns] == \
                    (list(result.losers) if 0 < sum(result.losers) < len(returns) else [False] * len(returns))

        @invariant()
        def spec_invariants_hold(self):
            if hasattr(self, "game"):
                failed = self.game.check_invariants("state")
                assert not failed, f"invariants {failed} fail"

    return DurakMachine


TestReferenceGames = machine_for(load_spec()).TestCase


def test_state_machine_catches_a_spec_with_the_attack_cap_removed(spec_copy):
    spec_copy.edit("rules/limits.yaml", 'clause: "not limits_apply or within_cap"', 'clause: "True"')
    spec_copy.edit("presets.yaml", "max_attack_cards: 6", "max_attack_cards: 4")
    broken = machine_for(spec_copy.load(), presets=["podkidnoy"], players=(2, 3))
    # No shrinking: the test needs the failure, not the smallest game that shows it.
    broken.TestCase.settings = settings(max_examples=300, stateful_step_count=300, deadline=None,
                                        derandomize=True, database=None,
                                        phases=[Phase.explicit, Phase.generate])
    with pytest.raises(AssertionError, match="inv.attack_cap"):
        broken.TestCase("runTest").runTest()


def test_state_machine_catches_a_summary_ending_where_everyone_holding_cards_loses(spec_copy):
    spec_copy.edit("rules/end.yaml", "(team_play and fool is not None and not team_out(seat))",
                   "(fool is not None and hand(seat) > 0)")
    broken = machine_for(spec_copy.load(), presets=["summary"], players=(3, 4))
    broken.TestCase.settings = settings(max_examples=50, stateful_step_count=400, deadline=None,
                                        derandomize=True, database=None,
                                        phases=[Phase.explicit, Phase.generate])
    with pytest.raises(AssertionError, match="inv.fool_loses_alone"):
        broken.TestCase("runTest").runTest()
