"""The part every minidurak adapter shares (conformance/examples/style_*.py): hello, start and
state, which do not depend on the engine's move model. Each style module adds `apply` and `legal`,
the mapping between its engine's moves and the protocol's actions (PROTOCOL.md "Action models")."""

from __future__ import annotations

from durak_spec.conformance.engine import Skip
from durak_spec.conformance.examples.minidurak import Durak, card

PODKIDNOY = {"max_attack_cards": 6, "defender_hand_bound": "start_of_bout", "first_bout_max": None,
             "opening": "single", "throwers": "all_opponents", "thrower_order": "attacker_priority",
             "pile_on": "after_first_beat", "throw_in_match": "rank_any_table_card",
             "pass_is_final": False, "throw_in_after_take": True, "throw_in_limit": "same_as_bout",
             "transfer": False, "draw_order": "attacker_clockwise_defender_last", "hand_size": 6,
             "six_player_hand_size": 6, "first_attacker": "lowest_trump",
             "no_trump_lead": "left_of_dealer", "done_by": "each_attacker",
             "going_out": "end_of_bout", "simultaneous_finish": "draw"}
MID_DEAL = ("table", "defender", "taking", "passed", "out", "bout", "beaten_bouts")


class MinidurakAdapter:
    """minidurak behind the protocol; subclasses give the style's engine and its mapping."""

    name = "minidurak"
    house_rules: dict = {}       # option values that differ from podkidnoy
    actions: dict = {}           # hello "actions": what the runner must do for this move model
    engine_class = Durak
    engine_options: dict = {}    # the engine's own switches for those house rules
    presets: tuple = ("podkidnoy",)
    positions = False            # start also from a position in the middle of a bout

    def __init__(self):
        self.game: Durak | None = None

    def hello(self) -> dict:
        rules = {**PODKIDNOY, **self.house_rules}
        hello = {"name": self.name, "version": "1.0", "protocol": "1.1",
                 "presets": list(self.presets), "players": [2, 3, 4, 5, 6],
                 "options": {k: [v] for k, v in rules.items()},
                 "levels": ["verdicts", "state", "legal"], "positions": self.positions}
        if self.actions:
            hello["actions"] = dict(self.actions)
        return hello

    # The protocol's result objects (conformance/engine.py): subclasses list their moves in
    # listed() and apply them in apply().
    def legal(self) -> dict:
        return {"actions": self.listed()}

    def listed(self) -> list[str]:
        raise NotImplementedError

    def start(self, variant: dict, setup: dict) -> dict:
        rules = {**PODKIDNOY, **self.house_rules}
        for name, value in (variant.get("options") or {}).items():
            if name in rules and value != rules[name]:
                raise Skip(f"minidurak plays {name} = {rules[name]!r}, not {value!r}")
        if any(k in setup for k in MID_DEAL) and not self.positions:
            raise Skip("minidurak starts only from a deal")
        hands = [[card(c) for c in h] for h in setup["hands"]]
        dealer = setup.get("dealer", len(hands) - 1)
        self.game = self.engine_class(hands, [card(c) for c in setup.get("talon", [])],
                                      card(setup["trump"]), dealer, setup.get("attacker"),
                                      **self.engine_options)
        if any(k in setup for k in MID_DEAL):
            g = self.game
            g.resume([(card(a), card(d) if d else None) for a, d in setup.get("table", [])],
                     setup.get("defender", g.defender), bool(setup.get("taking")),
                     setup.get("passed", []), setup.get("out", []))
        return {}

    def state(self) -> dict:
        return {"state": self.view()}

    def view(self) -> dict:
        g = self.game
        return {"hands": [[str(c) for c in h] for h in g.hands],
                "hand_sizes": [len(h) for h in g.hands], "talon_count": len(g.talon),
                "trump": str(g.trump), "discard_count": g.discard_count(),
                "table": [[str(a), str(d) if d is not None else None] for a, d in g.table],
                "attacker": g.attacker, "defender": g.defender, "taking": g.taking,
                "out": [s for s in range(g.n) if g.out[s]], "finished": g.finished,
                "fool": g.fool}


# The protocol's action kinds and minidurak's move names, one for one in the canonical model.
KIND_OF_MOVE = {"open": "attack", "add": "throw", "beat": "cover", "take": "take", "done": "pass"}
MOVE_OF_KIND = {v: k for k, v in KIND_OF_MOVE.items()}


def move_text(move: tuple) -> str:
    """A minidurak move in the protocol's notation."""
    kind, seat = KIND_OF_MOVE[move[0]], move[1]
    if move[0] == "beat":
        return f"{seat} cover {move[2]} with {move[3]}"
    return f"{seat} {kind}" + (f" {move[2]}" if len(move) > 2 else "")


def parse_move(text: str) -> tuple | None:
    """The minidurak move of an action in the protocol's notation, or None if it has none."""
    words = text.split()
    try:
        seat, kind = int(words[0]), MOVE_OF_KIND.get(words[1])
        if kind == "beat" and len(words) == 5 and words[3] == "with":
            return ("beat", seat, card(words[2]), card(words[4]))
        if kind in ("open", "add") and len(words) == 3:
            return (kind, seat, card(words[2]))
        if kind in ("take", "done") and len(words) == 2:
            return (kind, seat)
    except (ValueError, IndexError):
        pass
    return None


class MinidurakMoves(MinidurakAdapter):
    """minidurak's own moves in the protocol's text, each answered by minidurak alone: the
    engines that are minidurak with a switch set (a style, a house rule) and nothing more."""

    def apply(self, action: str) -> dict:
        move = parse_move(action)
        return {"accepted": move is not None and self.game.play(move)}

    def listed(self) -> list[str]:
        return [move_text(m) for m in self.game.moves()]
