"""Cards and decks: the vocabulary of card identity. Rank order and suits come from spec/deck.yaml.

Canonical card text is rank then suit letter: 6S, TD (ten), QH, AC. "10D" is accepted on input.
"""

from __future__ import annotations

from .errors import NotationError, suggest


class Card:
    """One card of a deck; `rank` is its strength index in the deck's rank order (0 = lowest)."""

    __slots__ = ("rank", "suit", "text", "index", "rank_symbol")

    def __init__(self, rank: int, rank_symbol: str, suit: str, index: int):
        self.rank = rank
        self.rank_symbol = rank_symbol
        self.suit = suit
        self.text = rank_symbol + suit
        self.index = index

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index


class Deck:
    """A deck composition: ranks low to high and suits, each card a singleton Card object."""

    def __init__(self, ranks: list[str], suits: list[str]):
        self.ranks = list(ranks)
        self.suits = list(suits)
        self.cards = [Card(r, sym, suit, i)
                      for i, (r, sym, suit) in enumerate(
                          (r, sym, s) for s in self.suits for r, sym in enumerate(self.ranks))]
        self.by_text = {c.text: c for c in self.cards}

    def __len__(self) -> int:
        return len(self.cards)

    def card(self, text) -> Card:
        """Parse one card in canonical notation, naming the bad text and a near match."""
        if not isinstance(text, str):
            raise NotationError(f"a card is a string like '9S', not {text!r}")
        t = text.strip().upper()
        if t.startswith("10"):
            t = "T" + t[2:]
        card = self.by_text.get(t)
        if card is None:
            raise NotationError(
                f"unknown card {text!r}: a card is a rank ({' '.join(self.ranks)}) followed by a "
                f"suit ({' '.join(self.suits)}).{suggest(t, self.by_text)}")
        return card

    def cards_of(self, texts, what: str = "cards") -> list[Card]:
        if not isinstance(texts, list):
            raise NotationError(f"{what} must be a list of cards, not {texts!r}")
        return [self.card(t) for t in texts]
