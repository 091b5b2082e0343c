"""ledger_durak: a podkidnoy engine in a functional style, written apart from durak-spec and from
minidurak: a position is an immutable record, `moves(pos)` lists what each seat may do and
`after(pos, move)` returns the next position. Its table asks every attacker for an explicit
"pass" before a bout ends, even one with nothing to add; its adapter (`LedgerEngine`, in
process) passes for such a player, as PROTOCOL.md "Explicit passes" says, and lists moves in the
engine's order (takes and passes first). It keeps who is out as flags and the table as two
lists, which the adapter turns into the protocol's state.

    durak check --adapter python:durak_spec.conformance.examples.ledger_durak:LedgerEngine

Its buggy twins carry classic bugs, each in a rule area of its own (bench/independent_engines.py):
`BuggyLedgerEngine` has all three, `Ledger<Bug>Engine` one each:

  SeatOrder       after a take the attackers are asked in seat order (rule throw_in.order)
  LastDefender    when the last bout leaves nobody holding cards, its defender is the fool, where
                  podkidnoy calls it a draw (end.fool)
  TakeBeaten      the defender may still take once every card is beaten (defence.take)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from durak_spec.conformance.engine import Skip
from durak_spec.conformance.examples.reference_engine import serve

RANKS = "6789TJQKA"
REFILL = 6
CAP = 6
PLAYS = {"max_attack_cards": 6, "defender_hand_bound": "start_of_bout", "opening": "single",
         "throwers": "all_opponents", "thrower_order": "attacker_priority",
         "thrower_order_after_take": "as_in_bout", "pile_on": "after_first_beat",
         "throw_in_match": "rank_any_table_card", "pass_is_final": False,
         "pass_withdrawn_by": "beat_or_take", "done_by": "each_attacker",
         "throw_in_after_take": True, "throw_in_limit": "same_as_bout", "transfer": False,
         "draw_order": "attacker_clockwise_defender_last", "hand_size": 6,
         "first_attacker": "lowest_trump", "going_out": "end_of_bout",
         "no_trump_lead": "left_of_dealer", "simultaneous_finish": "draw", "deck_cards": 36,
         "jokers": "none", "trump": "turn_up", "weli": "none", "deal_ends": "last_holding",
         "teams": "none", "passport": "none", "trump_exchange": "none", "redeal": "none",
         "changeable_trump": False, "turn_up_place": "bottom", "first_bout_max": None}


@dataclass(frozen=True)
class Pos:
    hands: tuple          # one tuple of cards per seat
    talon: tuple          # top first, the turn-up last
    trump: str
    attacker: int
    defender: int
    attacks: tuple = ()   # attack cards in the order laid
    covers: tuple = ()    # the card covering each, or None
    start_hand: int = 0
    taking: bool = False
    passed: frozenset = frozenset()
    out: tuple = ()       # a flag per seat
    over: bool = False
    fool: int | None = None

    @property
    def n(self) -> int:
        return len(self.hands)


@dataclass(frozen=True)
class Rules:
    """The engine's behaviour switches: all False is podkidnoy as its author meant it."""

    seat_order_after_take: bool = False
    last_defender_loses: bool = False
    take_when_beaten: bool = False


def rank(c: str) -> int:
    return RANKS.index(c[0])


def left(pos: Pos, seat: int) -> int:
    for k in range(1, pos.n):
        s = (seat + k) % pos.n
        if not pos.out[s]:
            return s
    return seat


def deal(hands, talon, trump, dealer, attacker=None) -> Pos:
    n = len(hands)
    if attacker is None:
        trumps = [(rank(c), s) for s, h in enumerate(hands) for c in h if c[1] == trump[1]]
        attacker = min(trumps)[1] if trumps else (dealer + 1) % n
    pos = Pos(tuple(tuple(h) for h in hands), tuple(talon), trump, attacker, 0, out=(False,) * n)
    defender = left(pos, attacker)
    return replace(pos, defender=defender, start_hand=len(pos.hands[defender]))


def beats(trump: str, low: str, high: str) -> bool:
    return rank(high) > rank(low) if low[1] == high[1] else high[1] == trump[1]


def unbeaten(pos: Pos) -> list[str]:
    return [a for a, c in zip(pos.attacks, pos.covers) if c is None]


def attackers(pos: Pos) -> list[int]:
    return [s for s in range(pos.n) if s != pos.defender and not pos.out[s]]


def may_add(pos: Pos, seat: int, card: str) -> bool:
    ranks = {rank(c) for c in pos.attacks + pos.covers if c}
    return (bool(pos.attacks) and seat in attackers(pos) and seat not in pos.passed
            and card in pos.hands[seat] and rank(card) in ranks
            and (pos.taking or len(unbeaten(pos)) < len(pos.attacks))
            and len(pos.attacks) < min(CAP, pos.start_hand))


def priority(pos: Pos, rules: Rules, seat: int) -> int:
    if pos.taking and rules.seat_order_after_take:
        return seat
    return 0 if seat == pos.attacker else (seat - pos.defender) % pos.n


def moves(pos: Pos, rules: Rules) -> list[tuple]:
    if pos.over:
        return []
    if not pos.attacks:
        return [("attack", pos.attacker, c) for c in pos.hands[pos.attacker]]
    out: list[tuple] = []
    d = pos.defender
    if not pos.taking and (unbeaten(pos) or rules.take_when_beaten):
        out.append(("take", d))
        out += [("cover", d, a, c) for a in unbeaten(pos) for c in pos.hands[d] if beats(pos.trump, a, c)]
    waiting = [s for s in attackers(pos) if s not in pos.passed]
    if waiting:
        seat = min(waiting, key=lambda s: priority(pos, rules, s))
        out.insert(0, ("pass", seat))
        out += [("throw", seat, c) for c in pos.hands[seat] if may_add(pos, seat, c)]
    return out


def after(pos: Pos, rules: Rules, move: tuple) -> Pos:
    kind, seat = move[0], move[1]
    hands = list(pos.hands)
    if kind in ("attack", "throw"):
        hands[seat] = tuple(c for c in hands[seat] if c != move[2])
        pos = replace(pos, hands=tuple(hands), attacks=pos.attacks + (move[2],),
                      covers=pos.covers + (None,))
    elif kind == "cover":
        hands[seat] = tuple(c for c in hands[seat] if c != move[3])
        i = next(i for i, (a, c) in enumerate(zip(pos.attacks, pos.covers)) if a == move[2] and c is None)
        pos = replace(pos, hands=tuple(hands), covers=pos.covers[:i] + (move[3],) + pos.covers[i + 1:],
                      passed=frozenset())
    elif kind == "take":
        pos = replace(pos, taking=True, passed=frozenset())
    else:
        pos = replace(pos, passed=pos.passed | {seat})
    return settle(pos, rules)


def settle(pos: Pos, rules: Rules) -> Pos:
    """End the bout once every attacker has passed (or the defender has beaten their last card)."""
    if not pos.attacks:
        return pos
    waiting = [s for s in attackers(pos) if s not in pos.passed]
    if pos.taking:
        if not waiting:
            hands = list(pos.hands)
            hands[pos.defender] += tuple(c for c in pos.attacks + pos.covers if c)
            return end_bout(replace(pos, hands=tuple(hands)), rules, beaten=False)
    elif not unbeaten(pos) and (not waiting or not pos.hands[pos.defender]):
        return end_bout(pos, rules, beaten=True)
    return pos


def end_bout(pos: Pos, rules: Rules, beaten: bool) -> Pos:
    hands, talon = [list(h) for h in pos.hands], list(pos.talon)
    a, d = pos.attacker, pos.defender
    order = sorted((s for s in range(pos.n) if not pos.out[s]),
                   key=lambda s: 0 if s == a else pos.n if s == d else (s - a) % pos.n)
    for s in order:
        while len(hands[s]) < REFILL and talon:
            hands[s].append(talon.pop(0))
    out = tuple(pos.out[s] or (not hands[s] and not talon) for s in range(pos.n))
    pos = replace(pos, hands=tuple(map(tuple, hands)), talon=tuple(talon), attacks=(), covers=(),
                  taking=False, passed=frozenset(), out=out)
    holding = [s for s in range(pos.n) if not out[s]]
    if not talon and len(holding) <= 1:
        fool = holding[0] if holding else (d if rules.last_defender_loses else None)
        return replace(pos, over=True, fool=fool)
    nxt = (d if not out[d] else left(pos, d)) if beaten else left(pos, d)
    pos = replace(pos, attacker=nxt)
    defender = left(pos, nxt)
    return replace(pos, defender=defender, start_hand=len(pos.hands[defender]))


# -- the adapter --------------------------------------------------------------------------------
def text(m: tuple) -> str:
    if m[0] == "cover":
        return f"{m[1]} cover {m[2]} with {m[3]}"
    return " ".join([str(m[1]), m[0], *m[2:]])


class LedgerEngine:
    """ledger_durak behind the protocol, in process."""

    rules = Rules()
    name = "ledger-durak"

    def __init__(self):
        self.pos: Pos | None = None

    def hello(self) -> dict:
        return {"name": self.name, "version": "1.4", "protocol": "1.1", "presets": ["podkidnoy"],
                "players": [2, 3, 4, 5, 6], "levels": ["verdicts", "state", "legal"],
                "positions": False}

    def start(self, variant: dict, setup: dict) -> dict:
        for name, value in (variant.get("options") or {}).items():
            if name in PLAYS and PLAYS[name] != value:
                raise Skip(f"ledger-durak plays {name} = {PLAYS[name]!r}")
        if set(setup) - {"hands", "talon", "trump", "dealer", "attacker"}:
            raise Skip("ledger-durak starts from a deal")
        self.pos = deal(setup["hands"], setup.get("talon", []), setup["trump"],
                        setup.get("dealer", len(setup["hands"]) - 1), setup.get("attacker"))
        self._pass_for_the_idle()
        return {}

    def _idle(self) -> list[tuple]:
        """The passes of players whose only move is to pass."""
        ms = moves(self.pos, self.rules)
        return [m for m in ms if m[0] == "pass" and not any(x[0] == "throw" and x[1] == m[1] for x in ms)]

    def _pass_for_the_idle(self) -> None:
        while idle := self._idle():
            self.pos = after(self.pos, self.rules, idle[0])

    def apply(self, action: str) -> dict:
        listed = {text(m): m for m in moves(self.pos, self.rules)}
        move = listed.get(" ".join(str(action).split()))
        if move is None or move in self._idle():
            return {"accepted": False, "reason": "not your move"}
        self.pos = after(self.pos, self.rules, move)
        self._pass_for_the_idle()
        return {"accepted": True}

    def legal(self) -> dict:
        idle = self._idle()
        return {"actions": [text(m) for m in moves(self.pos, self.rules) if m not in idle]}

    def state(self) -> dict:
        p = self.pos
        return {"state": {
            "hands": [list(h) for h in p.hands], "hand_sizes": [len(h) for h in p.hands],
            "talon_count": len(p.talon), "trump": p.trump,
            "discard_count": 36 - len(p.talon) - sum(map(len, p.hands)) - len(p.attacks)
            - sum(c is not None for c in p.covers),
            "table": [[a, c] for a, c in zip(p.attacks, p.covers)], "attacker": p.attacker,
            "defender": p.defender, "taking": p.taking,
            "out": [s for s in range(p.n) if p.out[s]], "finished": p.over, "fool": p.fool}}


class LedgerSeatOrderEngine(LedgerEngine):
    rules = Rules(seat_order_after_take=True)
    name = "ledger-durak (after a take, attackers in seat order)"


class LedgerLastDefenderEngine(LedgerEngine):
    rules = Rules(last_defender_loses=True)
    name = "ledger-durak (the last defender is the fool)"


class LedgerTakeBeatenEngine(LedgerEngine):
    rules = Rules(take_when_beaten=True)
    name = "ledger-durak (takes when every card is beaten)"


class BuggyLedgerEngine(LedgerEngine):
    rules = Rules(seat_order_after_take=True, last_defender_loses=True, take_when_beaten=True)
    name = "ledger-durak (three bugs)"


if __name__ == "__main__":
    serve(LedgerEngine())
