"""What the z3 backend tests share: an interpreter action as the backend's SymAction."""

from __future__ import annotations

from durak_spec.reference_impl.vocab import SECOND_KINDS
from durak_spec.tools.verify.backend.state import SymAction
from durak_spec.tools.verify.backend.values import Card


def symbolic_action(m, s, a):
    """The SymAction of an interpreter action, with the vocabulary's card facts as they are."""
    if a is None:
        return None
    suits = m.suits
    card = (Card(a.card.rank, suits.index(a.card.suit), suits.index(a.card.real.suit))
            if a.card is not None else None)
    target = Card(a.target.rank, suits.index(a.target.suit)) if a.target is not None else None
    second = a.kind in SECOND_KINDS
    return SymAction(a.kind, a.seat, card, target,
                     (a.card.real in s.hands[a.seat]) if card else None,
                     s.is_unbeaten(a.target) if target and not second else None,
                     s.unbeaten_share_rank(a.card) if card else None,
                     (a.card in s.shown) if card else None,
                     (a.target in s.hands[a.seat]) if second else None)
