"""Example engines for house rules and action models seen in real engines (spec/options.yaml,
PROTOCOL.md "Action models"): each plays one house rule or presents its moves one way, declares it
honestly in hello, and passes `durak check` and `durak fuzz`; each `Broken...` twin breaks that
one rule and is caught under it.

Most are the reference interpreter with the house rule switched on whatever variant the runner
sends, as a real engine has its house rules built in, so what they show is the suite's side: an
engine that describes itself honestly is told only about its real bugs. MinidurakPassWithdrawnEngine
and MinidurakNoPassSiegeEngine play theirs in an engine of its own (minidurak), with its own bug
in the twin. Run one with

    durak check --adapter python:durak_spec.conformance.examples.house_rules:LastAdderClockwiseEngine
    durak fuzz --adapter python:durak_spec.conformance.examples.house_rules:LastAdderClockwiseEngine

(add --variant two_packs for FiveBeforeFirstBeatEngine, perevodnoy for the transfer engines,
siege for MinidurakNoPassSiegeEngine).
"""

from __future__ import annotations

from functools import partial

from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.conformance.examples.minidurak import Durak
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.conformance.examples.style_no_pass_unbeaten import NoPassDurak
from durak_spec.conformance.examples.styles_base import MinidurakMoves


class HouseRuleEngine(ReferenceEngine):
    """The reference playing `plays` (option values) under every variant, declaring `declares`
    (the values it says it plays, by default the ones it plays) for its `presets`."""

    presets: tuple = ("podkidnoy",)
    plays: dict = {}
    declares: dict | None = None
    house_rules: list = []       # hello's house_rules entries, as declared
    actions: dict = {}           # hello's "actions": the engine's action model

    def hello(self) -> dict:
        out = super().hello()
        declared = self.plays if self.declares is None else self.declares
        out.update(presets=list(self.presets), options={k: [v] for k, v in declared.items()},
                   match=False)
        if self.house_rules:
            out["house_rules"] = [dict(e) for e in self.house_rules]
        if self.actions:
            out["actions"] = dict(self.actions)
        return out

    def played(self, variant: dict) -> dict:
        """The option values this engine plays in a game of `variant`."""
        return dict(self.plays)

    def start(self, variant: dict, setup: dict) -> dict:
        options = {**(variant.get("options") or {}), **self.played(variant)}
        return super().start({**variant, "options": options}, setup)


# -- who is asked first to add cards -----------------------------------------------------------------

class LastAdderClockwiseEngine(HouseRuleEngine):
    """Players are asked clockwise from the one who added the last card; after a take, the main
    attacker first and then clockwise (throw_in.order_last_adder_clockwise)."""

    plays = {"thrower_order": "last_adder_clockwise", "thrower_order_after_take": "attacker_clockwise"}


class BrokenLastAdderClockwiseEngine(LastAdderClockwiseEngine):
    """Declares the clockwise order but asks the main attacker second, as last_adder_priority."""

    plays = {"thrower_order": "last_adder_priority", "thrower_order_after_take": "attacker_clockwise"}
    declares = LastAdderClockwiseEngine.plays


class AttackerThenAnyEngine(HouseRuleEngine):
    """The main attacker first, then the others in any order (throw_in.attacker_first)."""

    plays = {"thrower_order": "attacker_then_any"}


class BrokenAttackerThenAnyEngine(AttackerThenAnyEngine):
    """Declares the main attacker first but lets anyone add at any time."""

    plays = {"thrower_order": "free_for_all"}
    declares = AttackerThenAnyEngine.plays


# -- passes, transfers, caps, going out ---------------------------------------------------------------

class PassWithdrawnEngine(HouseRuleEngine):
    """A pass is withdrawn by any card added to the bout (pass_withdrawn_by any_card)."""

    plays = {"pass_withdrawn_by": "any_card"}


class BrokenPassWithdrawnEngine(PassWithdrawnEngine):
    """Declares it, but a pass is withdrawn only by a beat or a take (throw_in.not_passed)."""

    plays = {"pass_withdrawn_by": "beat_or_take"}
    declares = PassWithdrawnEngine.plays


class MinidurakPassWithdrawnEngine(MinidurakMoves):
    """The same house rule in an engine of its own, minidurak (conformance/examples/minidurak.py,
    which knows nothing of the reference): its switch any_card_undoes_done is pass_withdrawn_by
    any_card, declared in hello beside the podkidnoy it plays."""

    name = "minidurak-pass-withdrawn"
    house_rules = {"pass_withdrawn_by": "any_card"}
    engine_class = partial(Durak, any_card_undoes_done=True)


class BrokenMinidurakPassWithdrawnEngine(MinidurakPassWithdrawnEngine):
    """Declares it, but minidurak's switch is off: only a beat or a take undoes a "done"."""

    name = "minidurak-pass-withdrawn (broken: a card added keeps the passes)"
    engine_class = Durak
    plays = {"pass_withdrawn_by": "beat_or_take"}  # what it plays in fact


class NoLastCardTransferEngine(HouseRuleEngine):
    """No transfer with one's last card (transfer.last_card), in perevodnoy."""

    presets = ("perevodnoy",)
    plays = {"transfer_last_card": False}


class BrokenNoLastCardTransferEngine(NoLastCardTransferEngine):
    """Declares it, but transfers with the last card all the same."""

    plays = {"transfer_last_card": True}
    declares = NoLastCardTransferEngine.plays


class FiveBeforeFirstBeatEngine(HouseRuleEngine):
    """At most five attack cards until the defender has beaten one, in every bout
    (limits.before_first_beat); it binds where cards pile up before a beat: two packs and
    multi-card openings."""

    presets = ("two_packs",)
    plays = {"max_before_first_beat": 5, "opening": "same_rank_multi"}


class BrokenFiveBeforeFirstBeatEngine(FiveBeforeFirstBeatEngine):
    """Declares the cap but lets the sixth card on all the same."""

    plays = {"max_before_first_beat": None, "opening": "same_rank_multi"}
    declares = FiveBeforeFirstBeatEngine.plays


class SkippedAtOnceEngine(HouseRuleEngine):
    """A player left without cards is skipped at once by transfers and by who may add, but
    marked out only when the bout ends (going_out skipped_at_once), in perevodnoy."""

    presets = ("perevodnoy",)
    plays = {"going_out": "skipped_at_once", "throwers": "neighbours"}


class BrokenSkippedAtOnceEngine(SkippedAtOnceEngine):
    """Declares it, but plays going_out end_of_bout: a transfer still stops at the empty-handed
    player (transfer.capacity reads it through transfer_target), and so does who may add under
    throwers neighbours (throw_in.who, through defender_left). Check's cases of the house rule
    are transfers; fuzz meets the neighbour who may add far more often."""

    plays = {"going_out": "end_of_bout", "throwers": "neighbours"}
    declares = SkippedAtOnceEngine.plays


class NeighboursUnderTransfersEngine(HouseRuleEngine):
    """A house rule of one preset only: with transfers (perevodnoy) only the main attacker and
    the defender's left neighbour add cards, without them everyone does; declared in hello's
    house_rules keyed by preset."""

    presets = ("podkidnoy", "perevodnoy")
    house_rules = [{"presets": ["perevodnoy"], "options": {"throwers": ["neighbours"]}}]

    def played(self, variant: dict) -> dict:
        return {"throwers": "neighbours"} if variant.get("preset") == "perevodnoy" else {}


class BrokenNeighboursUnderTransfersEngine(NeighboursUnderTransfersEngine):
    """Declares it, but plays neighbours under podkidnoy too."""

    def played(self, variant: dict) -> dict:
        return {"throwers": "neighbours"}


# -- action models --------------------------------------------------------------------------------

class IdleDoneEngine(HouseRuleEngine):
    """A "done" from a player with nothing to add is accepted and changes nothing (actions
    idle_pass no_op); it lists no such pass. It plays done_by main_attacker with thrower_order
    free_for_all, where a player other than the main attacker may add but has no pass: under
    podkidnoy's own options a player who could add may always pass, so the broken twin below
    differed only in positions no deal reaches, which fuzz no longer starts from (c6c390e)."""

    plays = {"done_by": "main_attacker", "thrower_order": "free_for_all"}
    actions = {"idle_pass": "no_op"}

    def apply(self, action: str) -> dict:
        out = super().apply(action)
        if not out["accepted"] and self.idle(action):
            return {"accepted": True}
        return out

    def idle(self, action: str) -> bool:
        words = action.split()
        return len(words) == 2 and words[1] == "pass" and not any(
            a.startswith(f"{words[0]} throw ") for a in self.legal()["actions"])


class BrokenIdleDoneEngine(IdleDoneEngine):
    """Accepts every pass as a no-op, also one made out of turn by a player who could add."""

    def idle(self, action: str) -> bool:
        words = action.split()
        return len(words) == 2 and words[1] == "pass"


class NoPassWhileUnbeaten:
    """For an engine built on the reference (before ReferenceEngine among its bases): no pass
    while an attack card is unbeaten and the defender has not said take (actions
    pass_while_unbeaten false); it refuses such a pass and lists none."""

    def _unsaid(self, text: str) -> bool:
        s = self.game.state
        return text.split()[1:2] == ["pass"] and s.unbeaten > 0 and not s.taking

    def apply(self, action: str) -> dict:
        return {"accepted": False} if self._unsaid(action) else super().apply(action)

    def legal(self) -> dict:
        return {"actions": [a for a in super().legal()["actions"] if not self._unsaid(a)]}


class NoPassSiegeEngine(NoPassWhileUnbeaten, HouseRuleEngine):
    """Under a siege (pile_on any_time) it has no pass while a card is unbeaten (actions
    pass_while_unbeaten false)."""

    plays = {"pile_on": "any_time"}
    actions = {"pass_while_unbeaten": False}


class BrokenNoPassSiegeEngine(NoPassSiegeEngine):
    """Under the siege it lets the defender take only once every card is beaten."""

    def apply(self, action: str) -> dict:
        if action.split()[1:2] == ["take"] and self.game.state.unbeaten == len(self.game.state.table):
            return {"accepted": False}
        return super().apply(action)

    def legal(self) -> dict:
        s = self.game.state
        return {"actions": [a for a in super().legal()["actions"]
                            if not (a.split()[1:2] == ["take"] and s.unbeaten == len(s.table))]}


class SiegeNoPassDurak(NoPassDurak):
    """minidurak under a siege: anyone adds at any moment, in no order; a "done" only once
    every card is beaten or the defender takes."""

    def __init__(self, *args, **kw):
        super().__init__(*args, free_for_all=True, any_time=True, **kw)


class MinidurakNoPassSiegeEngine(MinidurakMoves):
    """The siege preset with no pass while a card is unbeaten (actions pass_while_unbeaten
    false) in an engine of its own, minidurak: written from the rules, not from the reference,
    so that what the runner sends it and compares at every player count is put to the test.
    It takes positions in the middle of a bout; MinidurakNoPassSiegeDealsEngine does not."""

    name = "minidurak-siege-no-pass"
    presets = ("siege",)
    house_rules = {"pile_on": "any_time", "thrower_order": "free_for_all"}
    actions = {"pass_while_unbeaten": False}
    engine_class = SiegeNoPassDurak
    positions = True


class MinidurakNoPassSiegeDealsEngine(MinidurakNoPassSiegeEngine):
    """The same engine starting only from deals: positions are reached by play."""

    positions = False


class AnyRankSiegeDurak(SiegeNoPassDurak):
    def may_add(self, seat, c) -> bool:
        return (bool(self.table) and seat != self.defender and not self.out[seat]
                and seat not in self.done and c in self.hands[seat]
                and len(self.table) < min(self.cap, self.start_hand))


class BrokenMinidurakNoPassSiegeEngine(MinidurakNoPassSiegeEngine):
    """Lets a card of any rank be added (throw_in.rank). Its legal sets differ from the
    reference's in the cards and passes it lists, never in the passes its model has no room
    for: the suite tells it of the ranks only."""

    name = "minidurak-siege-no-pass (broken: a card of any rank may be added)"
    engine_class = AnyRankSiegeDurak


class OneMoveSiegeEngine(HouseRuleEngine):
    """Under a siege with one-card openings, its opening is one move (actions opening one_move):
    the opener's further cards are throw-ins like anyone else's."""

    plays = {"pile_on": "any_time"}
    actions = {"opening": "one_move"}


class BrokenOneMoveSiegeEngine(OneMoveSiegeEngine):
    """Refuses the opener's own throw-ins while the opening is unanswered: no card beaten and
    the defender not taking (after a take it lets them on, as every variant does)."""

    def _held(self, action: str) -> bool:
        s, words = self.game.state, action.split()
        return (words[1:2] == ["throw"] and int(words[0]) == s.opener and not s.taking
                and s.unbeaten == len(s.table))

    def apply(self, action: str) -> dict:
        return {"accepted": False} if self._held(action) else super().apply(action)

    def legal(self) -> dict:
        return {"actions": [a for a in super().legal()["actions"] if not self._held(a)]}


if __name__ == "__main__":
    serve(LastAdderClockwiseEngine())
