"""Pictures of positions as SVG: the hands, the table's pairs, the talon and the trump, drawn from
the observable state (`Game.full_state`). Pure functions of that state's JSON, shared by the docs
(positions of the disputes) and the HTML conformance report (the position at a failing step).
"""

from __future__ import annotations

from html import escape

SUITS = {"S": ("\u2660", "#1d1d1d"), "C": ("\u2663", "#1d1d1d"), "D": ("\u2666", "#c0392b"),
         "H": ("\u2665", "#c0392b")}
# Jokers (the notation's BJ and RJ): a star in the joker's colour, "Jk" for a rank.
JOKERS = {"BJ": ("\u2605", "#1d1d1d"), "RJ": ("\u2605", "#c0392b")}
CW, CH = 40, 56          # card size
LABEL = 150              # width of the seat labels
PAIR = CW + 26           # distance between table pairs
ROW = CH + 16            # height of a seat's row


def card_svg(text: str, x: float, y: float, trump_suit: str, marked: bool = False) -> str:
    """One face-up card; trumps are tinted, the card an action plays is outlined."""
    rank, suit = text[:-1], text[-1]
    if text in JOKERS:
        rank, suit = "Jk", None
    symbol, colour = JOKERS[text] if suit is None else SUITS[suit]
    fill = "#fdf3c4" if suit == trump_suit else "#ffffff"
    stroke = 'stroke="#1f6fd1" stroke-width="3"' if marked else 'stroke="#555"'
    return (f'<g transform="translate({x:g},{y:g})">'
            f'<rect width="{CW}" height="{CH}" rx="4" fill="{fill}" {stroke}/>'
            f'<text x="4" y="14" font-size="12" font-family="sans-serif" fill="{colour}">'
            f'{"10" if rank == "T" else rank}</text>'
            f'<text x="4" y="27" font-size="11" fill="{colour}">{symbol}</text>'
            f'<text x="{CW / 2 + 3}" y="{CH / 2 + 14}" font-size="22" text-anchor="middle" '
            f'fill="{colour}">{symbol}</text></g>')


def back_svg(x: float, y: float) -> str:
    return (f'<rect x="{x}" y="{y}" width="{CW}" height="{CH}" rx="4" fill="#35608f" '
            f'stroke="#1f3b5a"/>')


def text_svg(x: float, y: float, text: str, size: int = 13, weight: str = "normal") -> str:
    return (f'<text x="{x}" y="{y}" font-size="{size}" font-family="sans-serif" '
            f'font-weight="{weight}" fill="#222">{escape(text)}</text>')


def position_svg(view: dict, title: str, marked=frozenset()) -> str:
    """SVG of an observable state (the JSON of `Game.full_state`); `marked` cards are outlined."""
    trump_suit = view["trump_suit"]
    hands, table_pairs = view["hands"], view["table"]
    longest = max((len(h) for h in hands), default=0)
    step = CW + 6 if longest <= 10 else max(16, (10 * (CW + 6)) // longest)
    width = max(LABEL + longest * step + 20, LABEL + len(table_pairs) * PAIR + 150, 460)
    parts = []
    for seat, hand in enumerate(hands):
        y = 10 + seat * ROW
        roles = [r for r, on in (("attacker", seat == view["attacker"]),
                                 ("defender", seat == view["defender"]),
                                 ("out", seat in view["out"]),
                                 ("passed", seat in view["passed"])) if on]
        parts.append(text_svg(10, y + 24, f"Seat {seat}", 14, "bold"))
        if roles:
            parts.append(text_svg(10, y + 42, ", ".join(roles)))
        parts += [card_svg(c, LABEL + i * step, y, trump_suit, c in marked)
                  for i, c in enumerate(hand)]
    y = 18 + len(hands) * ROW
    parts.append(f'<rect x="4" y="{y - 8}" width="{width - 8}" height="{CH + 34}" rx="8" '
                 f'fill="#e8f1e4" stroke="#9bb79a"/>')
    parts.append(text_svg(10, y + 24, "Table", 14, "bold"))
    if view["taking"]:
        parts.append(text_svg(10, y + 42, "defender takes"))
    for i, (attack, cover) in enumerate(table_pairs):
        x = LABEL + i * PAIR
        parts.append(card_svg(attack, x, y, trump_suit, attack in marked))
        if cover:
            parts.append(card_svg(cover, x + 14, y + 12, trump_suit, cover in marked))
    tx = width - 120
    talon = view["talon"]
    if talon:
        # The trump lies face up under the talon; drawn beside it so that it can be read.
        parts.append(back_svg(tx, y))
        parts.append(card_svg(view["trump"], tx + 26, y + 6, trump_suit))
        parts.append(text_svg(tx, y + CH + 20, f"talon {len(talon)}, trump last", 11))
    else:
        shown = SUITS[trump_suit][0] if trump_suit in SUITS else "none"
        parts.append(text_svg(tx, y + 24, f"trump {shown} ({view['trump']})", 14,
                              "bold"))
        parts.append(text_svg(tx, y + 42, "talon empty", 12))
    height = y + CH + 30
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}"><title>{escape(title)}</title>'
            + "".join(parts) + "</svg>")
