"""The third-party engine `durakgame` (PyPI, 1.0.4) behind the durak-spec engine interface.

durakgame is a two-player podkidnoy engine by someone else. This adapter translates, it does not
fix: a verdict is whether durakgame lists the move among its own options
(`Game.generateOptions`), and its bugs stay visible to the suite. Use it as
`durak check --adapter python:durak_spec.conformance.adapters.durakgame:DurakgameEngine`, or as a
subprocess: `cmd:python -m durak_spec.conformance.adapters.durakgame`. What the suite finds is in
docs/durakgame.md. Line numbers below are of durakgame 1.0.4's modules.

durakgame's moves are coarser than the protocol's atomic actions:
- one player acts at a time: each attack card is answered (DefensiveMove or ForfeitingMove)
  before the next, and a DefensiveMove always covers the last attack card (game.py:157-165);
- after a take, all throw-ins are one FinishingMove with a subset of cards (game.py:138-152),
  so the adapter buffers `throw` actions and submits the FinishingMove on `pass`, or as soon as
  durakgame lists no larger subset;
- a move that is durakgame's only option and no atomic action (an EndingMove when nothing can be
  added, a FinishingMove when nothing more can be thrown in) is submitted at once, since in the
  protocol such a bout ends by itself.
"""

from __future__ import annotations

import importlib.metadata
from math import comb

try:
    from durakgame import (
        AttackingMove,
        Card,
        CardValue,
        DefensiveMove,
        EndingMove,
        FinishingMove,
        ForfeitingMove,
        GameConfiguration,
        GameResult,
        OpeningMove,
        Player,
        Suit,
        Switch,
        standardDeck,
    )
    from durakgame.game import Game
    from durakgame.history import GameHistory
except ImportError as exc:  # a clear line instead of a traceback for the adapter loader
    raise ImportError(f"durakgame is not installed ({exc}); "
                      "pip install 'durak-spec[durakgame]'") from None

from durak_spec.conformance.engine import PROTOCOL_VERSION, Skip

RANKS = {"6": CardValue.Six, "7": CardValue.Seven, "8": CardValue.Eight, "9": CardValue.Nine,
         "T": CardValue.Ten, "J": CardValue.Jack, "Q": CardValue.Queen, "K": CardValue.King,
         "A": CardValue.Ace}
SUITS = {"S": Suit.Spade, "C": Suit.Cross, "D": Suit.Diamond, "H": Suit.Heart}
RANK_TEXT = {v: k for k, v in RANKS.items()}
SUIT_TEXT = {v: k for k, v in SUITS.items()}

# More FinishingMove subsets than this are refused: the duplication bug (game.py:196-198 gives
# the thrown cards to the defender without taking them from the attacker) can grow hands until
# generateOptions enumerates millions of subsets (game.py:144-150).
MAX_OPTIONS = 20_000

# The house rules durakgame follows, as values of spec/options.yaml.
OPTIONS = {
    # GameConfiguration.MaxTossAD caps a bout once a card was discarded (gameutils.py:34,
    # game.py:128-131); start() sets it (a deck's worth of cards for null, i.e. no fixed cap).
    "max_attack_cards": [None, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    # A card is added only when the defender still holds one (game.py:131), each covered from
    # the hand, and after a take the bound is the hand at the start of the bout: covered cards
    # plus hand (game.py:141). Without transfers unbeaten_le_current allows the same moves.
    "defender_hand_bound": ["start_of_bout", "unbeaten_le_current"],
    # GameConfiguration.MaxTossBD is the cap while the discard pile is empty (gameutils.py:31-33,
    # game.py:128); start() sets it to 5, or to MaxTossAD for null.
    "first_bout_max": [None, 5],
    # game.py:128 tests the discard pile: until_first_discard (without a first-bout cap the scope
    # changes nothing).
    "first_bout_scope": ["until_first_discard"],
    # A bout opens with one OpeningMove and the defender answers it (game.py:116, 172-176).
    "opening": ["single"],
    # Two players only: the main attacker is the only one who may add cards, so these agree.
    "throwers": ["all_opponents", "neighbours", "main_attacker"],
    "thrower_order": ["attacker_priority", "free_for_all"],
    # One player acts at a time: the defender answers each attack card before the next is added
    # (game.py:118-122, 157-165).
    "pile_on": ["one_at_a_time"],
    # Added cards match the rank of any attack or defence card (gameutils.py:15-18).
    "throw_in_match": ["rank_any_table_card"],
    # After a ForfeitingMove the attacker adds cards with a FinishingMove (game.py:138-152).
    "throw_in_after_take": [True],
    # Throw-ins after a take are bounded (game.py:141-142); a bound that differs from the bout's
    # cap is a miscount the suite reports, not an unbounded variant.
    "throw_in_limit": ["same_as_bout"],
    # No transfer move exists (move.py).
    "transfer": [False],
    # Two players: the attacker draws first and the defender last either way (game.py:190-191).
    "draw_order": ["attacker_clockwise_defender_last", "attacker_counterclockwise_defender_last"],
    # GameConfiguration.HandCC is the hand players draw up to (game.py:212-216).
    "hand_size": [5, 6, 7],
    # Game.player1 always leads (game.py:21-23) and is dealt to first (game.py:78-82): the
    # dealer's left neighbour. start() seats a setup's explicit attacker as player1; asked for a
    # lowest_trump deal whose lowest trump is elsewhere, it skips.
    "first_attacker": ["left_of_dealer"],
    # Both hands empty is GameResult.Draw (game.py:63-65).
    "simultaneous_finish": ["draw"],
}
POSITION_FIELDS = ("table", "taking", "passed", "out", "beaten_bouts")  # with defender and bout
# Declared with the one value durakgame plays, but other values change nothing in some games:
# start() plays those and skips the others (an explicit attacker; no first-bout cap).
CHECKED_AT_START = ("first_attacker", "first_bout_scope")


def card_of(text) -> Card:
    """A durakgame Card from the protocol's notation (`9S`, `TD`, `10D`)."""
    if not isinstance(text, str) or len(text) not in (2, 3):
        raise ValueError(f"not a card: {text!r}")
    rank, suit = text[:-1].upper(), text[-1].upper()
    rank = "T" if rank == "10" else rank
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return Card(RANKS[rank], SUITS[suit])


def text_of(card: Card) -> str:
    return RANK_TEXT[card.value] + SUIT_TEXT[card.suit]


def parse_action(text: str) -> tuple[int, str, Card | None, Card | None]:
    """(seat, kind, card, covered card) of an action in the protocol's notation."""
    words = text.split() if isinstance(text, str) else []
    if len(words) < 2 or not words[0].isdigit():
        raise ValueError(f"can't read action {text!r}")
    seat, kind, rest = int(words[0]), words[1], words[2:]
    if kind in ("take", "pass") and not rest:
        return seat, kind, None, None
    if kind in ("attack", "throw", "transfer") and len(rest) == 1:
        return seat, kind, card_of(rest[0]), None
    if kind == "cover" and len(rest) == 3 and rest[1] == "with":
        return seat, kind, card_of(rest[2]), card_of(rest[0])
    raise ValueError(f"can't read action {text!r}")


def move_text(move) -> str:
    cards = getattr(move, "cards", None)
    if cards is not None:
        return f"FinishingMove([{', '.join(map(text_of, cards))}])"
    card = getattr(move, "card", None)
    return f"{type(move).__name__}({text_of(card)})" if card else f"{type(move).__name__}()"


def config_of(opts: dict) -> GameConfiguration:
    """durakgame's own settings for the option values it follows (see OPTIONS)."""
    cap = opts.get("max_attack_cards", 6)
    cap = 36 if cap is None else cap  # a deck's worth: no fixed cap
    first = opts.get("first_bout_max")
    return GameConfiguration(HandCC=opts.get("hand_size", 6), MaxTossAD=cap,
                             MaxTossBD=cap if first is None else min(first, cap))


class DurakgameEngine:
    """durakgame.game.Game behind hello/start/apply/legal/state (conformance/engine.py)."""

    def __init__(self):
        self.game: Game | None = None
        self.first = 0          # the seat playing durakgame's player1
        self.pending: list[Card] = []  # throw-ins after a take, not yet a FinishingMove
        self.out_of_play = 0    # setup cards in no zone: the protocol counts them as discarded
        self._version = 0
        self._options_cache: tuple[int, list] | None = None
        self._subsets_cache: tuple[int, dict] = (-1, {})

    def hello(self) -> dict:
        return {"name": "durakgame", "version": importlib.metadata.version("durakgame"),
                "protocol": PROTOCOL_VERSION, "presets": ["podkidnoy"], "players": [2],
                "options": {k: list(v) for k, v in OPTIONS.items()}, "levels": ["verdicts", "state", "legal"], "positions": False}

    # -- start --------------------------------------------------------------------------------
    def start(self, variant: dict, setup: dict) -> dict:
        opts = variant.get("options") or {}
        self._check_variant(variant.get("preset"), opts)
        if (any(setup.get(k) for k in POSITION_FIELDS) or setup.get("defender") is not None
                or setup.get("bout", 1) != 1):
            raise Skip("durakgame starts only from a deal, not from a mid-deal position")
        hands = [[card_of(c) for c in hand] for hand in setup["hands"]]
        if len(hands) != 2:
            raise Skip(f"durakgame plays 2 players, not {len(hands)}")
        talon, trump = [card_of(c) for c in setup.get("talon", [])], card_of(setup["trump"])
        self.first = self._first_seat(setup, hands, trump, opts)
        # Game deals a full deck itself (game.py:75-86); the setup's cards replace that deal.
        game = Game(standardDeck(), Player(), Player(), config=config_of(opts))
        game.player1.hand = list(hands[self.first])
        game.player2.hand = list(hands[1 - self.first])
        game.trump, game.deck, game.discardPile = trump, list(talon), set()
        game.history = GameHistory(list(game.player1.hand), list(game.player2.hand), list(talon))
        self.game, self.pending = game, []
        self._version, self._options_cache, self._subsets_cache = 0, None, (-1, {})
        # durakgame's discard pile means "a bout was beaten off" (game.py:128, 188); the setup's
        # missing cards were never on this deal's table, so they are counted apart.
        self.out_of_play = 36 - len(talon) - sum(len(h) for h in hands)
        self._settle()
        return {}

    @staticmethod
    def _check_variant(preset, opts: dict) -> None:
        if preset != "podkidnoy":
            raise Skip(f"durakgame plays podkidnoy only, not {preset}")
        for name, values in OPTIONS.items():
            if name in CHECKED_AT_START:
                continue
            if name in opts and opts[name] not in values:
                raise Skip(f"durakgame follows {name} = {values}, not {opts[name]!r}")
        scope = opts.get("first_bout_scope")
        if opts.get("first_bout_max") is not None and scope != "until_first_discard":
            raise Skip("durakgame keeps its first-bout cap until the first discard (game.py:128), "
                       f"not for first_bout_scope {scope}")

    @staticmethod
    def _first_seat(setup: dict, hands, trump: Card, opts: dict) -> int:
        """The seat to play player1, who leads: the setup's attacker, or the dealer's left."""
        if setup.get("attacker") is not None:
            return setup["attacker"]
        first = (setup.get("dealer", 1) + 1) % 2
        if opts.get("first_attacker", "lowest_trump") == "lowest_trump":
            trumps = [(c.value, seat) for seat, hand in enumerate(hands) for c in hand
                      if c.suit == trump.suit]
            if trumps and min(trumps)[1] != first:
                raise Skip(f"durakgame lets the dealer's left neighbour (seat {first}) lead "
                           f"(game.py:21-23); under lowest_trump seat {min(trumps)[1]} would")
        return first

    # -- seats and options --------------------------------------------------------------------
    def _seat(self, switch: Switch) -> int:
        return self.first if switch == Switch.First else 1 - self.first

    def _options(self) -> list:
        """durakgame's own list of legal moves, refusing a blow-up of FinishingMove subsets."""
        if self._options_cache and self._options_cache[0] == self._version:
            return self._options_cache[1]
        g = self.game
        if g.isFinished:
            return []
        if g.table.isForfeited:
            ranks = g.table.getTossableValues()
            hand = g.currentPlayer.hand
            tossable = sum(1 for c in hand if c.value in ranks)
            count = sum(comb(tossable, k) for k in range(min(tossable, g.config.HandCC) + 1))
            if count > MAX_OPTIONS:
                raise RuntimeError(
                    f"durakgame would list up to {count} FinishingMove subsets: seat "
                    f"{self._seat(g.move)} holds {len(hand)} cards, {len(hand) - len(set(hand))} "
                    "of them duplicates (FinishingMove keeps the thrown cards, game.py:193-198)")
        options = g.generateOptions()
        self._options_cache = (self._version, options)
        return options

    def _play(self, move) -> None:
        self.game.updateHistory(move)  # as Game.kickoff does (game.py:97-98)
        self.game.process(move)
        self._version += 1
        if isinstance(move, FinishingMove):
            self.pending = []

    def _subsets(self, options) -> dict:
        """durakgame's FinishingMove options keyed by their cards as a sorted tuple of texts."""
        if self._subsets_cache[0] != self._version:
            keyed = {tuple(sorted(map(text_of, o.cards))): o
                     for o in options if isinstance(o, FinishingMove)}
            self._subsets_cache = (self._version, keyed)
        return self._subsets_cache[1]

    def _extensions(self, options) -> list[Card]:
        """The cards the attacker may add to the pending throw-ins: durakgame lists the subset
        holding them (it lists every subset, game.py:145-150, so each prefix is a move)."""
        subsets, hand = self._subsets(options), list(self.game.currentPlayer.hand)
        for c in self.pending:
            hand.remove(c)
        pending = list(map(text_of, self.pending))
        return [c for c in dict.fromkeys(hand)
                if tuple(sorted(pending + [text_of(c)])) in subsets]

    def _finishing(self, options):
        """The FinishingMove with exactly the pending cards, or None."""
        return self._subsets(options).get(tuple(sorted(map(text_of, self.pending))))

    def _settle(self) -> None:
        """Submit the moves that are no atomic action: durakgame's forced bout endings."""
        g = self.game
        while not g.isFinished:
            options = self._options()
            if g.table.isForfeited:
                if self._extensions(options):
                    return
                move = self._finishing(options)
                if move is None:
                    raise RuntimeError("durakgame offers no FinishingMove to end the take; it "
                                       f"lists {[move_text(o) for o in options]}")
            elif options == [EndingMove()]:
                move = options[0]
            elif not options:
                raise RuntimeError("durakgame lists no move in an unfinished game")
            else:
                return
            self._play(move)

    # -- the protocol commands ----------------------------------------------------------------
    def apply(self, action: str) -> dict:
        try:
            seat, kind, card, target = parse_action(action)
        except ValueError as exc:
            return {"accepted": False, "reason": str(exc)}
        g = self.game
        if g.isFinished:
            return {"accepted": False, "reason": "the game is over (Game.isFinished)"}
        actor = self._seat(g.move)
        if seat != actor:
            return {"accepted": False, "reason": f"durakgame lets one player act at a time; "
                                                 f"now seat {actor}"}
        options = self._options()
        if g.table.isForfeited:
            return self._apply_after_take(kind, card, options)
        move = self._move_for(kind, card, target)
        if move is None or move not in options:
            return {"accepted": False, "reason": f"not among durakgame's options: "
                                                 f"{', '.join(map(move_text, options))}"}
        self._play(move)
        self._settle()
        return {"accepted": True}

    def _move_for(self, kind, card, target):
        table = self.game.table
        if kind == "attack":
            return OpeningMove(card)
        if kind == "throw":
            return AttackingMove(card)
        if kind == "cover":
            unbeaten = table.attack[len(table.defense):]
            return DefensiveMove(card) if unbeaten == [target] else None
        if kind == "take":
            return ForfeitingMove()
        if kind == "pass":
            return EndingMove()
        return None  # transfer: durakgame has no such move

    def _apply_after_take(self, kind, card, options) -> dict:
        if kind == "throw" and card in self._extensions(options):
            self.pending.append(card)
            self._settle()
            return {"accepted": True}
        if kind == "pass":
            move = self._finishing(options)
            if move is None:
                raise RuntimeError(f"durakgame lists no FinishingMove with the cards thrown in: "
                                   f"{[move_text(o) for o in options]}")
            self._play(move)
            self._settle()
            return {"accepted": True}
        return {"accepted": False, "reason": "after a take durakgame offers FinishingMove with "
                f"{', '.join(map(text_of, self._extensions(options))) or 'no more cards'}"}

    def legal(self) -> dict:
        return {"actions": self._legal()}

    def _legal(self) -> list[str]:
        g = self.game
        if g.isFinished:
            return []
        seat, options = self._seat(g.move), self._options()
        if g.table.isForfeited:
            throws = [f"{seat} throw {text_of(c)}" for c in self._extensions(options)]
            return throws + [f"{seat} pass"]
        out = []
        for o in options:
            if isinstance(o, OpeningMove):
                out.append(f"{seat} attack {text_of(o.card)}")
            elif isinstance(o, AttackingMove):
                out.append(f"{seat} throw {text_of(o.card)}")
            elif isinstance(o, DefensiveMove):
                out.append(f"{seat} cover {text_of(g.table.attack[-1])} with {text_of(o.card)}")
            elif isinstance(o, ForfeitingMove):
                out.append(f"{seat} take")
            elif isinstance(o, EndingMove):
                out.append(f"{seat} pass")
        return list(dict.fromkeys(out))

    def state(self) -> dict:
        return {"state": self._state()}

    def _state(self) -> dict:
        g = self.game
        attacker = self._seat(g.turn)
        hands = []
        for seat in (0, 1):
            hand = list(g.player1.hand if seat == self.first else g.player2.hand)
            if seat == attacker:
                for c in self.pending:  # buffered throw-ins are on the table already
                    hand.remove(c)
            hands.append(hand)
        table = [[text_of(a), text_of(g.table.defense[i]) if i < len(g.table.defense) else None]
                 for i, a in enumerate(g.table.attack)] + [[text_of(c), None] for c in self.pending]
        between_bouts = not g.table.attack and not g.deck
        result = g.result if g.isFinished else GameResult.Unfinished
        fool = {GameResult.Win: self._seat(Switch.Second),
                GameResult.Loss: self._seat(Switch.First)}.get(result)
        return {
            "hands": [[text_of(c) for c in h] for h in hands],
            "hand_sizes": [len(h) for h in hands],
            "talon_count": len(g.deck),
            "trump": text_of(g.trump),
            "table": table,
            "discard_count": len(g.discardPile) + self.out_of_play,
            "attacker": attacker,
            "defender": 1 - attacker,
            "taking": g.table.isForfeited,
            "out": [s for s in (0, 1) if between_bouts and not hands[s]],
            "finished": g.isFinished,
            "fool": fool,
        }

    def stop(self) -> dict:
        self.game = None
        return {}


if __name__ == "__main__":
    from durak_spec.conformance.examples.reference_engine import serve

    serve(DurakgameEngine())
