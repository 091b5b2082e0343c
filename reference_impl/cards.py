"""Cards and decks: the vocabulary of card identity. Ranks, suits, colours, jokers and packs come
from spec/deck.yaml; which of them a variant's deck holds is decided by definitions of spec/.

Canonical card text is rank then suit letter: 6S, TD (ten), QH, AC; "10D" is accepted on input.
Jokers have their own text (BJ, RJ). With several packs identical cards exist: they are one Card
object held several times, so the same text names either copy.
"""

from __future__ import annotations

from .errors import NotationError, suggest


class Card:
    """One card of a deck. `rank` is its strength index in the deck's rank order (0 = the
    deck's lowest rank); `real` is the physical card (itself, except for a card played as another
    suit, see `Deck.as_suit`)."""

    __slots__ = ("rank", "suit", "text", "index", "rank_symbol", "colour", "is_joker", "real")

    def __init__(self, rank: int, rank_symbol: str, suit: str, index: int, text: str | None = None,
                 colour: str = "", is_joker: bool = False):
        self.rank = rank
        self.rank_symbol = rank_symbol
        self.suit = suit
        self.text = text or rank_symbol + suit
        self.index = index
        self.colour = colour
        self.is_joker = is_joker
        self.real = self

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index


class Deck:
    """A deck composition: plain ranks low to high and suits, optional jokers, and the number of
    packs. Each distinct card is one Card object; `pack` lists every card of the deck with its
    copies, `cards` each distinct card once (in suit, then rank order, jokers last).

    `all_ranks` is the rank order of every deck of the spec (jokers' rank first): a rank's index
    here is its place in that order counted from this deck's lowest rank, so rank literals of
    clauses have a strength in every deck (a two is below a six even where the deck has no two)."""

    def __init__(self, ranks: list[str], suits: list[str], *, colours: dict | None = None,
                 jokers: list[dict] | None = None, copies: int = 1, all_ranks: list[str] | None = None,
                 joker_rank: str = "*"):
        self.all_ranks = list(all_ranks or ranks)
        jokers = list(jokers or [])
        self.ranks = ([joker_rank] if jokers else []) + list(ranks)
        self.plain_ranks = list(ranks)
        self.suits = list(suits)
        self.colours = dict(colours or {})
        self.copies = copies
        self.joker_rank = joker_rank
        self.players = (2, 6)  # the player counts this deck serves (deck.yaml packs)
        base = self.all_ranks.index(self.ranks[0])
        self.rank_index = {sym: i - base for i, sym in enumerate(self.all_ranks)}
        cards: list[Card] = []
        for suit in self.suits:
            for sym in ranks:
                cards.append(Card(self.rank_index[sym], sym, suit, len(cards),
                                  colour=self.colours.get(suit, "")))
        for j in jokers:
            cards.append(Card(self.rank_index[joker_rank], joker_rank, j["suit"], len(cards),
                              text=j["text"], colour=j["colour"], is_joker=True))
        self.cards = cards
        self.jokers = [c for c in cards if c.is_joker]
        self.joker_suits = [c.suit for c in self.jokers]
        self.pack = [c for _ in range(copies) for c in cards]
        self.by_text = {c.text: c for c in cards}
        self._forms: dict = {}

    def __len__(self) -> int:
        return len(self.pack)

    @property
    def rank_count(self) -> int:
        """One more than the highest rank index: the size of a table over ranks."""
        return max(c.rank for c in self.cards) + 1

    def rank_symbol(self, index: int) -> str:
        for sym, i in self.rank_index.items():
            if i == index:
                return sym
        raise KeyError(index)

    def as_suit(self, card: Card, suit: str) -> Card:
        """`card` played as a card of `suit` (the Weli): one Card object per (card, suit), whose
        `real` is the physical card; its text is '6D=H'. The card as its own suit is itself."""
        if suit == card.real.suit:
            return card.real
        key = (card.real.index, suit)
        form = self._forms.get(key)
        if form is None:
            real = card.real
            form = Card(real.rank, real.rank_symbol, suit, len(self.cards) + len(self._forms),
                        text=f"{real.text}={suit}", colour=self.colours.get(suit, real.colour))
            form.real = real
            self._forms[key] = form
            self.by_text[form.text] = form
        return form

    def card(self, text) -> Card:
        """Parse one card in canonical notation, naming the bad text and a near match."""
        if type(text) is str:  # the canonical text itself, as the protocol writes it
            card = self.by_text.get(text)
            if card is not None:
                return card
        if not isinstance(text, str):
            raise NotationError(f"a card is a string like '9S', not {text!r}")
        t = text.strip().upper()
        if t.startswith("10"):
            t = "T" + t[2:]
        card = self.by_text.get(t)
        if card is None and "=" in t:
            base, _, suit = t.partition("=")
            real = self.by_text.get(base)
            if real is not None and suit in self.suits:
                return self.as_suit(real, suit)
        if card is None:
            jokers = f", or a joker ({' '.join(j.text for j in self.jokers)})" if self.jokers else ""
            raise NotationError(
                f"unknown card {text!r}: a card is a rank ({' '.join(self.plain_ranks)}) followed by a "
                f"suit ({' '.join(self.suits)}){jokers}.{suggest(t, self.by_text)}")
        return card

    def cards_of(self, texts, what: str = "cards") -> list[Card]:
        if not isinstance(texts, list):
            raise NotationError(f"{what} must be a list of cards, not {texts!r}")
        return [self.card(t) for t in texts]
