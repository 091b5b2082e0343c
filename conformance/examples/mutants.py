"""Mutants of the reference: one table of engines that each get ONE rule wrong, and their mixes.

Each `Mutant` is the reference interpreter with a textual edit of a copy of spec/ (the mechanism
of broken.py), or playing one option value whatever the variant it is sent says, and records the
rule it breaks and, when the mutant is really another value of an option, that `(option, value)`
(`as_option`): the attribution bench (bench/attribution.py) and the tests check that the suite
names `breaks` and that the counterfactual search finds `as_option`.

Use a mutant, or several at once (their edits and forced options combined in one engine):

    in process   engine_class("cap_five", "draw_counterclockwise")()    # an engine.py class
    adapter      python:durak_spec.conformance.examples.mutants:cap_five+draw_counterclockwise
    subprocess   cmd:python -m durak_spec.conformance.examples.mutants cap_five draw_counterclockwise
    listing      python -m durak_spec.conformance.examples.mutants --list

`MUTANTS` maps each name to its Mutant; `combine(*names)` gives the combined rules broken and
option values. Like the broken engines, a mutant gives reasons but no rule ids in its rejections.
Two mutants that edit the same text of spec/ cannot be combined (engine_class raises ValueError).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.conformance.examples.broken import edited_spec_many
from durak_spec.conformance.examples.reference_engine import serve
from durak_spec.reference_impl.spec import shipped_spec


@dataclass(frozen=True)
class Mutant:
    name: str
    breaks: str                 # the rule id it gets wrong
    wrong: str                  # what it does wrong, in a few words
    edits: tuple = ()           # ((file under spec/, old text, new text), ...)
    options: tuple = ()         # ((option, value), ...) it plays whatever it is sent
    as_option: tuple | None = None  # (option, value) under which the reference plays like it
    quirk: str = ""             # a QUIRKS entry: what no edit of spec/ can say (a card kept twice)

    @property
    def change(self) -> str:
        """The spec edit or option change, in one line."""
        parts = [f"{name} = {_text(value)}" for name, value in self.options]
        parts += [f"spec/{rel}: {old!r} -> {new!r}" for rel, old, new in self.edits]
        parts += [f"quirk: {self.quirk}"] if self.quirk else []
        return "; ".join(parts)


def _text(value) -> str:
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


M = Mutant
# The flow step after each bout's draw that the out_before_draw edits keep in place.
_REVEAL = ('    - {do: reveal_hidden_card, when: "opt.changeable_trump and hidden_card and '
           'talon_count < 2"}\n')

TABLE = [
    M("first_attacker_left_of_dealer", "start.lowest_trump", "the dealer's left neighbour leads",
      options=(("first_attacker", "left_of_dealer"),), as_option=("first_attacker", "left_of_dealer")),
    M("first_attacker_highest_trump", "start.lowest_trump", "the highest trump leads",
      edits=(("rules/start.yaml", "argmax(trump_weight(x) * players -",
              "argmin(trump_weight(x) * players +"),)),
    M("trump_beats_only_trump", "defence.beat", "a trump does not beat a plain card",
      edits=(("definitions.yaml", "or (is_trump(card) and not is_trump(target) and not (opt.spades_only_by_spades",
              "or (False and not (opt.spades_only_by_spades"),)),
    M("cap_five", "limits.cap", "a bout holds at most five attack cards",
      options=(("max_attack_cards", 5),), as_option=("max_attack_cards", 5)),
    # not defender_hand_bound = none: the edit frees only variants bounding the attack by the
    # hand at the start of the bout, and the engine still plays the other bounds where a variant
    # asks for them (limits/defender_has_card_* under defender_has_card, podkidnoy_online)
    M("no_hand_bound", "limits.hand_at_start", "attacks are not bounded by the defender's hand",
      edits=(("rules/limits.yaml", "not limits_apply or table_attack_count + 1 <= defender_hand_at_start",
              "True"),)),
    M("pile_on_any_time", "throw_in.timing", "cards may be added before the defender beats one",
      edits=(("rules/throw_in.yaml", "taking or table_covered > 0 or opt.pile_on",
              "True or table_covered > 0 or opt.pile_on"),)),
    # not pile_on = any_time: that value also lets a second seat add before the first card is
    # beaten (throw_in/one_at_a_time_second_card), which this engine refuses
    M("throw_in_attack_ranks", "throw_in.rank", "only the ranks of attack cards may be added",
      options=(("throw_in_match", "rank_attack_cards_only"),),
      as_option=("throw_in_match", "rank_attack_cards_only")),
    M("take_when_all_beaten", "defence.take", "the defender may take when every card is beaten",
      edits=(("rules/defence.yaml", 'clause: "table_unbeaten > 0"', 'clause: "table_attack_count > 0"'),)),
    M("transfer_keeps_opener", "transfer.effect", "the opener stays main attacker after a transfer",
      options=(("main_attacker_after_transfer", "original_opener"),),
      as_option=("main_attacker_after_transfer", "original_opener")),
    M("transfer_capacity_before_adding", "transfer.capacity",
      "the next defender's hand is counted before the transfer card",
      options=(("transfer_capacity_check", "before_adding"),),
      as_option=("transfer_capacity_check", "before_adding")),
    M("draw_counterclockwise", "draw.order", "the attackers draw counterclockwise",
      options=(("draw_order", "attacker_counterclockwise_defender_last"),),
      as_option=("draw_order", "attacker_counterclockwise_defender_last")),
    M("attacker_again_after_take", "rotation.after_take", "the attacker attacks again after a take",
      edits=(("rules/rotation.yaml", 'clause: "left(defender)"',
              'clause: "attacker if not is_out(attacker) else left(defender)"'),)),
    M("beaten_off_skips_defender", "rotation.after_beaten_off",
      "the defender's left neighbour attacks after a beaten-off bout",
      edits=(("rules/rotation.yaml", 'clause: "defender if not is_out(defender) else left(defender)"',
              'clause: "left(defender)"'),)),
    M("out_before_draw", "end.out", "a player with an empty hand is out before the draw",
      edits=(("rules/end.yaml", 'clause: "hand(seat) == 0 and talon_count == 0 and',
              'clause: "hand(seat) == 0 and'),
             ("flow.yaml", "    - discard_table\n    - replenish\n" + _REVEAL + "    - mark_out\n",
              "    - discard_table\n    - mark_out\n    - replenish\n" + _REVEAL),
             ("flow.yaml", "    - defender_picks_up\n    - replenish\n" + _REVEAL + "    - mark_out\n",
              "    - defender_picks_up\n    - mark_out\n    - replenish\n" + _REVEAL + ""))),
    M("fool_last_defender", "end.fool", "when the last players go out together the defender loses",
      options=(("simultaneous_finish", "last_defender_loses"),),
      as_option=("simultaneous_finish", "last_defender_loses")),
    M("named_suit_anywhere", "play.named_suit", "any card may be played as a suit its player names",
      edits=(("rules/play.yaml", 'clause: "card.suit == card.own_suit or is_weli(card)"',
              'clause: "True"'),)),
    M("weli_as_its_own_suit", "play.named_suit", "the Weli is played only as its own suit",
      options=(("weli", "none"),), as_option=("weli", "none")),
    # Bugs seen in real engines (issue 21), and option values an engine may play without saying.
    M("no_cap", "limits.cap", "a bout holds any number of attack cards",
      options=(("max_attack_cards", None),), as_option=("max_attack_cards", None)),
    # a case gives the hands dealt, so the hand size shows where a draw fills hands up to it
    M("hand_size_seven", "draw.who", "players draw up to seven cards",
      options=(("hand_size", 7),), as_option=("hand_size", 7)),
    M("cover_earliest_only", "defence.target", "only the earliest unbeaten card may be covered",
      quirk="earliest_target"),
    M("transfer_keeps_card", "transfer.effect", "the transfer card stays in the transferer's hand too",
      quirk="keep_transfer_card"),
    M("throw_in_seat_order_after_take", "throw_in.order",
      "after a take the attackers are asked in seat order",
      edits=(("rules/throw_in.yaml", 'key: "cw(attacker, seat) if taking and opt.thrower_order_after_take '
              "== 'attacker_clockwise' else (0 if seat == attacker else cw(defender, seat))\"",
              'key: "seat if taking else (0 if seat == attacker else cw(defender, seat))"'),)),
    M("adds_to_empty_hand", "limits.defender_has_card",
      "cards are added to a defender who holds no card",
      edits=(("rules/limits.yaml", 'clause: "not limits_apply or defender_hand >= 1"',
              'clause: "True"'),)),
    M("turn_up_drawn_first", "deck.trump", "the turn-up is the first card drawn",
      quirk="turn_up_first"),
    M("throw_in_after_take_always", "throw_in.after_take",
      "cards are added after a take where the variant forbids it",
      edits=(("rules/throw_in.yaml", 'clause: "not taking or opt.throw_in_after_take"',
              'clause: "True"'),), as_option=("throw_in_after_take", True)),
    # the clause reads nothing but the option: playing it true under every variant is that value
    # the table is gone when the reference draws (discard_table, defender_picks_up come first):
    # who laid cards, and when, is no state a clause can read then, so this is a quirk
    M("draw_in_join_order", "draw.order", "the attackers draw in the order they joined the bout",
      quirk="join_order_draw"),
    M("passed_player_adds", "throw_in.not_passed", "a player who passed may still add cards",
      edits=(("rules/throw_in.yaml", 'clause: "not passed(seat)"', 'clause: "True"'),)),
]
MUTANTS = {m.name: m for m in TABLE}


def combine(*names: str) -> tuple[list[str], dict]:
    """The rules the named mutants break together, and the option values they force."""
    mutants = [_mutant(n) for n in names]
    forced: dict = {}
    for m in mutants:
        for option, value in m.options:
            if option in forced and forced[option] != value:
                raise ValueError(f"mutants {', '.join(names)} force {option} to two values")
            forced[option] = value
    return list(dict.fromkeys(m.breaks for m in mutants)), forced


def _mutant(name: str) -> Mutant:
    if name not in MUTANTS:
        raise ValueError(f"no mutant {name!r}; mutants: {', '.join(MUTANTS)}")
    return MUTANTS[name]


class MutantEngine(ReferenceEngine):
    """The reference with the edits and forced options of `mutants` (set by engine_class)."""

    mutants: tuple = ()

    def __init__(self):
        edits = tuple(e for m in self.mutants for e in m.edits)
        seen = [old for _, old, _ in edits]
        if len(set(seen)) != len(seen):
            raise ValueError("two of these mutants edit the same text of spec/")
        _, self.forced = combine(*(m.name for m in self.mutants))
        spec = edited_spec_many(edits) if edits else shipped_spec()
        super().__init__(spec, name="mutant: " + " + ".join(m.wrong for m in self.mutants))

    def start(self, variant: dict, setup: dict):
        options = {**(variant.get("options") or {}), **self.forced}
        out = super().start({**variant, "options": options}, setup)
        for m in self.mutants:
            if m.quirk in QUIRKS and QUIRKS[m.quirk][2]:
                QUIRKS[m.quirk][2](self.game)
        return out

    def _refused(self, action) -> bool:
        try:
            parsed = self.game.parse_action(action) if isinstance(action, str) else None
        except Exception:  # noqa: BLE001 - the reference's own apply names what is wrong
            return False
        return parsed is not None and any(
            QUIRKS[m.quirk][0] and QUIRKS[m.quirk][0](self.game, parsed) for m in self.mutants if m.quirk)

    def apply(self, action: str) -> dict:
        if self._refused(action):
            return {"accepted": False, "reason": "not allowed by this engine"}
        verdict = super().apply(action)
        verdict.pop("rule", None)
        if verdict["accepted"] and isinstance(action, str):
            after = [QUIRKS[m.quirk][1] for m in self.mutants if m.quirk and QUIRKS[m.quirk][1]]
            for quirk in after:
                quirk(self.game, action)
            if after:  # the legal actions listed before the quirk changed the state
                self.game._refresh()
        return verdict

    def legal(self) -> dict:
        out = super().legal()
        if any(m.quirk and QUIRKS[m.quirk][0] for m in self.mutants):
            out = {"actions": [a for a in out["actions"] if not self._refused(a)]}
        return out


def _earliest_target(game, action) -> bool:
    """A cover of any unbeaten card but the earliest one on the table (refused)."""
    if action.kind != "cover":
        return False
    unbeaten = [t for t, d in game.state.table if d is None]
    return bool(unbeaten) and action.target != unbeaten[0]


def _keep_transfer_card(game, text: str) -> None:
    """After a transfer the card is back in the transferer's hand (it is on the table too): the
    physical card, also when it was played as a named suit (the Weli, '6D=H')."""
    words = text.split()
    if len(words) == 3 and words[1] == "transfer":
        action = game.parse_action(text)
        game.state.hands[action.seat].append(action.card.real)


def _turn_up_first(game) -> None:
    """The turn-up (the talon's last card) is moved to the top: it is drawn first."""
    talon = game.state.talon
    if len(talon) > 1:
        talon.insert(0, talon.pop())


def _join_order_draw(game, text: str) -> None:
    """After a bout, the attackers who laid cards draw in the order they first laid one (not
    clockwise from the main attacker): the main attacker first and the defender last, as the
    reference. The cards the reference drew are dealt again in that order; where the talon's
    shortfall would leave a player empty-handed the reference's draw stands (no case reaches it)."""
    s = game.state
    joined, talon = getattr(game, "join_order_memo", ((), []))
    game.join_order_memo = (list(dict.fromkeys(s.laid_by)), list(s.talon))
    drawn = sum(s.drew)
    if s.table or not joined or not drawn or len(talon) - drawn != len(s.talon):
        return
    first, last = s.last_attacker, s.last_defender
    drawers = [seat for seat in range(s.n) if s.drew[seat] or s.short_after_draw[seat]]
    order = [first] + [seat for seat in joined if seat not in (first, last)]
    order = [seat for seat in order + drawers if seat != last] + [last]
    kept = {seat: s.hands[seat][:len(s.hands[seat]) - s.drew[seat]] for seat in drawers}
    deal, at = {}, 0
    for seat in dict.fromkeys(order):
        if seat in kept:
            take = min(s.hand_size - len(kept[seat]), drawn - at)
            deal[seat], at = talon[at:at + take], at + take
    if any(not kept[seat] and not deal[seat] for seat in drawers):
        return
    for seat in drawers:
        s.hands[seat] = kept[seat] + deal[seat]
        s.drew[seat] = len(deal[seat])
        s.after_draw[seat] = len(s.hands[seat])
        s.short_after_draw[seat] = len(s.hands[seat]) < s.hand_size


# name -> (refuses(game, action), after(game, action text), at_start(game))
QUIRKS = {"earliest_target": (_earliest_target, None, None),
          "keep_transfer_card": (None, _keep_transfer_card, None),
          "turn_up_first": (None, None, _turn_up_first),
          "join_order_draw": (None, _join_order_draw, None)}


_CLASSES: dict = {}


def engine_class(*names: str) -> type:
    """An engine class (no constructor arguments) combining the named mutants."""
    key = tuple(names)
    if not key:
        raise ValueError("name at least one mutant")
    if key not in _CLASSES:
        mutants = tuple(_mutant(n) for n in key)
        combine(*key)
        _CLASSES[key] = type("Mutant_" + "_".join(key), (MutantEngine,), {"mutants": mutants})
    return _CLASSES[key]


def __getattr__(name: str):
    """`python:...mutants:NAME+NAME` loads the combined engine class."""
    parts = name.split("+")
    if all(p in MUTANTS for p in parts):
        return engine_class(*parts)
    raise AttributeError(name)


def main(argv=None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args == ["--list"]:
        for m in TABLE:
            option = f"{m.as_option[0]} = {_text(m.as_option[1])}" if m.as_option else "-"
            print(f"{m.name:34} {m.breaks:26} {option:50} {m.change}")
        return
    serve(engine_class(*args)())


if __name__ == "__main__":
    main()
