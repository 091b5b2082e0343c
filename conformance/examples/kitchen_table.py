#!/usr/bin/env python3
"""kitchen_table: a podkidnoy engine as a hobbyist writes one in plain Python, behind the JSON-lines
protocol by a loop of its own. It imports nothing of durak-spec (copy the file anywhere and run it
with any Python 3.9+); its moves have its own names (lead, add, beat, pickup, bito), it lists
them in its own order (the defender's first, then by seat from the highest), and it starts only
from a deal (`positions: false`).

    durak check --adapter "cmd:python conformance/examples/kitchen_table.py"
    durak fuzz --adapter "cmd:python conformance/examples/kitchen_table.py --bug cover-first" --players 2

`--bug NAME` (repeatable) switches on one of the classic bugs real engines were seen to have,
each in a rule area of its own, so that the suite's reports can be judged on an engine nobody
tuned them for (bench/independent_engines.py):

  cover-first   only the earliest unbeaten card may be covered (rule defence.target)
  seven-cards   the cap of six attack cards is off by one: a seventh is accepted (limits.cap)
  turnup-first  the turned-up trump is the first card drawn, not the last (deck.trump)

Without --bug it plays Pagat's podkidnoy: the lowest trump leads (else the dealer's left
neighbour), cards of a rank on the table are added once a card is beaten or after a take, the
main attacker first and then clockwise from the defender's left, at most six attack cards and no
more than the defender held when the bout began, the attacker draws first and the defender last.
"""

from __future__ import annotations

import json
import sys

ORDER = "6789TJQKA"
SUITS = "SCDH"
FULL_HAND = 6
BUGS = ("cover-first", "seven-cards", "turnup-first")

PLAYS = {"max_attack_cards": 6, "defender_hand_bound": "start_of_bout", "first_bout_max": None,
         "opening": "single", "throwers": "all_opponents", "thrower_order": "attacker_priority",
         "pile_on": "after_first_beat", "throw_in_match": "rank_any_table_card",
         "pass_is_final": False, "throw_in_after_take": True, "throw_in_limit": "same_as_bout",
         "transfer": False, "draw_order": "attacker_clockwise_defender_last", "hand_size": 6,
         "six_player_hand_size": 6, "first_attacker": "lowest_trump",
         "no_trump_lead": "left_of_dealer", "done_by": "each_attacker",
         "going_out": "end_of_bout", "simultaneous_finish": "draw", "deck_cards": 36,
         "jokers": "none", "packs": 1, "trump": "turn_up", "weli": "none", "deal_ends": "last_holding",
         "teams": "none", "turn_up_place": "bottom", "trump_exchange": "none", "passport": "none",
         "changeable_trump": False, "redeal": "none", "spades_only_by_spades": False,
         "lowest_trump_beats_ace": False, "pickup_limit": "all", "poker_exchange_uses": 0,
         "deal": "hand_size", "max_before_first_beat": None,
         "thrower_order_after_take": "as_in_bout", "pass_withdrawn_by": "beat_or_take"}


class Refused(Exception):
    pass


def value(c: str) -> int:
    return ORDER.index(c[0])


class Pile:
    """One attack card on the table and what covers it."""

    def __init__(self, attack: str):
        self.attack, self.cover = attack, None


class Deal:
    def __init__(self, hands, stock, turnup, dealer, leader, bugs):
        self.bugs = set(bugs)
        self.players = len(hands)
        self.hands = [list(h) for h in hands]
        self.stock = list(stock)          # the talon, top card first, the turn-up last
        if "turnup-first" in self.bugs and len(self.stock) > 1:
            self.stock.insert(0, self.stock.pop())
        self.turnup = turnup
        self.trumps = turnup[1]
        self.piles: list[Pile] = []
        self.gone = [False] * self.players
        self.bito: set[int] = set()
        self.picking_up = False
        self.over = False
        self.loser = None
        self.lead = leader if leader is not None else self.first_leader(dealer)
        self.target = self.left_of(self.lead)
        self.bound = len(self.hands[self.target])

    def first_leader(self, dealer: int) -> int:
        best = None
        for seat, hand in enumerate(self.hands):
            for c in hand:
                if c[1] == self.trumps and (best is None or value(c) < best[0]):
                    best = (value(c), seat)
        return best[1] if best else (dealer + 1) % self.players

    def left_of(self, seat: int) -> int:
        s = seat
        for _ in range(self.players - 1):
            s = (s + 1) % self.players
            if not self.gone[s]:
                return s
        return seat

    def higher(self, low: str, high: str) -> bool:
        if low[1] == high[1]:
            return value(high) > value(low)
        return high[1] == self.trumps

    def open_piles(self) -> list[Pile]:
        return [p for p in self.piles if p.cover is None]

    def room(self) -> bool:
        """Another attack card fits: six at most, and no more than the defender held."""
        if len(self.piles) >= self.bound:
            return False
        # the off-by-one: `<=` where `<` was meant lets a seventh card in
        return len(self.piles) <= 6 if "seven-cards" in self.bugs else len(self.piles) < 6

    def can_add(self, seat: int, c: str) -> bool:
        ranks = {x[0] for p in self.piles for x in (p.attack, p.cover) if x}
        if not self.piles or seat == self.target or self.gone[seat] or seat in self.bito:
            return False
        if c not in self.hands[seat] or c[0] not in ranks:
            return False
        if not self.picking_up and len(self.open_piles()) == len(self.piles):
            return False
        return self.room()

    def who_can_add(self) -> list[int]:
        return [s for s in range(self.players) if any(self.can_add(s, c) for c in self.hands[s])]

    def first_to_add(self, seats: list[int]):
        if not seats:
            return None
        return min(seats, key=lambda s: -1 if s == self.lead else (s - self.target) % self.players)

    def options(self) -> list[dict]:
        if self.over:
            return []
        if not self.piles:
            return [{"verb": "lead", "seat": self.lead, "card": c} for c in self.hands[self.lead]]
        found = []
        if not self.picking_up and self.open_piles():
            piles = self.open_piles()[:1] if "cover-first" in self.bugs else self.open_piles()
            for p in piles:
                for c in self.hands[self.target]:
                    if self.higher(p.attack, c):
                        found.append({"verb": "beat", "seat": self.target, "on": p.attack, "card": c})
            found.append({"verb": "pickup", "seat": self.target})
        seat = self.first_to_add(self.who_can_add())
        if seat is not None:
            found += [{"verb": "add", "seat": seat, "card": c} for c in self.hands[seat]
                      if self.can_add(seat, c)]
            found.append({"verb": "bito", "seat": seat})
        return found

    def do(self, move: dict) -> None:
        if move not in self.options():
            raise Refused(f"{move} is not a move now")
        verb, seat = move["verb"], move["seat"]
        if verb in ("lead", "add"):
            self.hands[seat].remove(move["card"])
            self.piles.append(Pile(move["card"]))
        elif verb == "beat":
            self.hands[seat].remove(move["card"])
            next(p for p in self.piles if p.attack == move["on"]).cover = move["card"]
            self.bito.clear()
        elif verb == "pickup":
            self.picking_up = True
            self.bito.clear()
        else:
            self.bito.add(seat)
        self.maybe_end_bout()

    def maybe_end_bout(self) -> None:
        if not self.piles:
            return
        if self.picking_up:
            if not self.who_can_add():
                for p in self.piles:
                    self.hands[self.target] += [x for x in (p.attack, p.cover) if x]
                self.next_bout(beaten=False)
        elif not self.open_piles() and (not self.hands[self.target] or not self.who_can_add()):
            self.next_bout(beaten=True)

    def next_bout(self, beaten: bool) -> None:
        self.piles = []
        drawers = [self.lead] + [s for s in (
            (self.lead + k) % self.players for k in range(1, self.players))
            if s not in (self.lead, self.target) and not self.gone[s]] + [self.target]
        for s in drawers:
            while len(self.hands[s]) < FULL_HAND and self.stock:
                self.hands[s].append(self.stock.pop(0))
        for s in range(self.players):
            if not self.hands[s] and not self.stock:
                self.gone[s] = True
        holding = [s for s in range(self.players) if not self.gone[s]]
        if not self.stock and len(holding) <= 1:
            self.over, self.loser = True, (holding[0] if holding else None)
            return
        if beaten:
            self.lead = self.target if not self.gone[self.target] else self.left_of(self.target)
        else:
            self.lead = self.left_of(self.target)
        self.target = self.left_of(self.lead)
        self.bound = len(self.hands[self.target])
        self.picking_up = False
        self.bito.clear()

    def discarded(self) -> int:
        on_table = sum(1 + (p.cover is not None) for p in self.piles)
        return 36 - len(self.stock) - sum(map(len, self.hands)) - on_table


# -- the protocol: its words and ours ---------------------------------------------------------------
WORD = {"lead": "attack", "add": "throw", "beat": "cover", "pickup": "take", "bito": "pass"}
VERB = {v: k for k, v in WORD.items()}


def card_text(text: str) -> str:
    t = text.upper().replace("10", "T")
    if len(t) != 2 or t[0] not in ORDER or t[1] not in SUITS:
        raise Refused(f"not a card: {text}")
    return t


def to_text(m: dict) -> str:
    if m["verb"] == "beat":
        return f"{m['seat']} cover {m['on']} with {m['card']}"
    return f"{m['seat']} {WORD[m['verb']]}" + (f" {m['card']}" if "card" in m else "")


def from_text(text: str) -> dict:
    w = str(text).split()
    if len(w) < 2 or not w[0].isdigit() or w[1] not in VERB:
        raise Refused(f"not a move: {text}")
    m = {"verb": VERB[w[1]], "seat": int(w[0])}
    if m["verb"] == "beat" and len(w) == 5 and w[3] == "with":
        m.update(on=card_text(w[2]), card=card_text(w[4]))
    elif m["verb"] in ("lead", "add") and len(w) == 3:
        m["card"] = card_text(w[2])
    elif len(w) != 2:
        raise Refused(f"not a move: {text}")
    return m


class Server:
    def __init__(self, bugs):
        self.bugs, self.deal = bugs, None

    def hello(self, req):
        return {"result": {"name": "kitchen-table", "version": "0.3", "protocol": "1.1",
                           "presets": ["podkidnoy"], "players": [2, 3, 4, 5, 6],
                           "levels": ["verdicts", "state", "legal"], "positions": False}}

    def start(self, req):
        options = (req.get("variant") or {}).get("options") or {}
        for name, want in options.items():
            if name in PLAYS and PLAYS[name] != want:
                return {"skipped": f"kitchen-table plays {name} = {PLAYS[name]}"}
        setup = req["setup"]
        extra = set(setup) - {"hands", "talon", "trump", "dealer", "attacker"}
        if extra:
            return {"skipped": f"kitchen-table starts from a deal, not with {sorted(extra)}"}
        hands = [[card_text(c) for c in h] for h in setup["hands"]]
        self.deal = Deal(hands, [card_text(c) for c in setup.get("talon", [])],
                         card_text(setup["trump"]), setup.get("dealer", len(hands) - 1),
                         setup.get("attacker"), self.bugs)
        return {"result": {}}

    def apply(self, req):
        try:
            self.deal.do(from_text(req["action"]))
        except Refused as exc:
            return {"result": {"accepted": False, "reason": str(exc)}}
        return {"result": {"accepted": True}}

    def legal(self, req):
        moves = sorted(self.deal.options(),
                       key=lambda m: (m["seat"] != self.deal.target, -m["seat"], m["verb"]))
        return {"result": {"actions": [to_text(m) for m in moves]}}

    def state(self, req):
        d = self.deal
        return {"result": {"state": {
            "hands": [list(h) for h in d.hands], "hand_sizes": [len(h) for h in d.hands],
            "talon_count": len(d.stock), "trump": d.turnup, "discard_count": d.discarded(),
            "table": [[p.attack, p.cover] for p in d.piles], "attacker": d.lead,
            "defender": d.target, "taking": d.picking_up,
            "out": [s for s in range(d.players) if d.gone[s]], "finished": d.over,
            "fool": d.loser}}}

    def stop(self, req):
        return {"result": {}}


def main(argv) -> None:
    bugs = []
    while argv:
        flag = argv.pop(0)
        if flag == "--bug" and argv and argv[0] in BUGS:
            bugs.append(argv.pop(0))
        else:
            sys.exit(f"usage: kitchen_table.py [--bug {'|'.join(BUGS)}]...")
    server = Server(bugs)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = {}
        try:
            req = json.loads(line)
            handler = getattr(server, req["cmd"], None)
            answer = handler(req) if handler else {"error": f"unknown command {req['cmd']}"}
        except Exception as exc:  # never die: say what went wrong
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        answer["id"] = req.get("id", 0) if isinstance(req, dict) else 0
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if req.get("cmd") == "stop":
            return


if __name__ == "__main__":
    main(sys.argv[1:])
