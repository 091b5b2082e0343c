"""State-changing primitives that spec/flow.yaml sequences. Each is generic: it moves cards or
sets roles, and asks the ruleset's decisions (rules with `decides:` in spec/rules/) whenever a
choice depends on the rules.

A card played as a suit its player names (the Weli, cards.Deck.as_suit) lies on the table as
played, and leaves the hand and comes back to a hand or the discard as the card it is (`real`).

The action `a` is read by index (a[1] its seat, a[2] its card, a[3] its target or second card):
an Action is a subclass of tuple, which CPython unpacks and reads by field name the slow way.
"""

from __future__ import annotations


def add_attack_card(g, s, a):
    """Move the action's card from the actor's hand to the table as an attack card."""
    seat, card = a[1], a[2]
    if not s.table:
        s.opener = seat
        s.defender_hand_at_start = len(s.hands[s.defender])
    hand = s.hands[seat]
    _remove(hand, card)
    if not hand:
        s.emptied[seat] = s.steps
    s.table.append([card, None])
    s.laid_by.append(seat)
    s.unbeaten += 1
    s.added_since_answer += 1
    s.last_adder = seat
    s.table_ranks.add(card.rank)
    s.attack_ranks.add(card.rank)


def cover_card(g, s, a):
    """Lay the action's card on its target attack card."""
    seat, card, target = a[1], a[2], a[3]
    for pair in s.table:
        if pair[0] is target and pair[1] is None:  # with two packs, the copy still unbeaten
            pair[1] = card
            break
    hand = s.hands[seat]
    _remove(hand, card)
    if not hand:
        s.emptied[seat] = s.steps
    s.unbeaten -= 1
    s.added_since_answer = 0
    s.table_ranks.add(card.rank)


def _remove(hand, card):
    """Remove `card` (the physical card, for one played as a named suit) from `hand`. Cards are
    singletons, so this looks for the card itself: list.remove would compare cards with ==,
    which Card's ordering methods make slow."""
    card = card.real
    i = 0  # counted, not enumerate()d: a call into C for each card, and an object per remove
    for held in hand:
        if held is card:
            del hand[i]
            break
        i += 1
    else:
        hand.remove(card)  # raises ValueError, as for any card not held


def clear_passes(g, s, a):
    if True in s.passed:  # else the list stays as it is: nobody has passed
        s.passed = [False] * s.n


def mark_passed(g, s, a):
    s.passed[a[1]] = True


def mark_all_passed(g, s, a):
    """Everyone has declined to add cards (one "done" for all)."""
    s.passed = [True] * s.n


def start_taking(g, s, a):
    s.taking = True
    s.added_since_answer = 0


def move_defence_on(g, s, a):
    """After a transfer or a passport: the defender hands the defence to the next player in the
    game."""
    s.transferer = s.defender
    s.defender = g.decide_seat["transfer_defender"](s, None)
    s.defender_hand_at_start = len(s.hands[s.defender])
    s.added_since_answer = 0


def remember_shown(g, s, a):
    """Keep the action's card as shown in this bout (it stays in the actor's hand)."""
    s.shown.add(a[2])


def swap_with_turn_up(g, s, a):
    """Exchange the action's card with the turned-up trump card lying in the talon: the card
    takes the turn-up's place and becomes the turn-up, and the turn-up goes to the actor's hand."""
    seat, card = a[1], a[2]
    talon, old = s.talon, s.trump_card
    at = s.turn_up_index()
    hand = s.hands[seat]
    _remove(hand, card)
    hand.append(old)
    talon[at] = card
    s.trump_card = card


def exchange_with_talon(g, s, a):
    """The actor gives the action's two cards (`card` and, in the target slot, the second) for the
    top two cards of the talon, which take their places; count the exchange."""
    seat, card, second = a[1], a[2], a[3]
    hand, talon = s.hands[seat], s.talon
    _remove(hand, card)
    _remove(hand, second)
    hand += talon[:2]
    talon[:2] = [card, second]
    s.exchanges[seat] += 1


def reveal_hidden_card(g, s, a):
    """Turn up the card lying face down under the turn-up: it becomes the turn-up, wherever it
    now is, and the trump suit is decided again from it (decision `trump_suit`)."""
    s.trump_card, s.hidden_card = s.hidden_card, None
    s.trump_suit = g.decide_seat["trump_suit"](s, None)


def void_deal(g, s, a):
    """End the deal void (a redeal): nobody is the fool, nobody loses, nobody is placed; the
    match deals again (reference_impl/match.py)."""
    s.finished, s.redealt, s.fool = True, True, None
    s.losers = (False,) * s.n
    s.places = (0,) * s.n


def transferer_attacks(g, s, a):
    s.attacker = s.transferer


def discard_table(g, s, a):
    _move_table(s, s.discard)
    s.beaten_bouts += 1
    s.last_taken = False


def defender_picks_up(g, s, a):
    """The defender picks up `pickup_count` attack cards of the table (decision of that name), in
    the order laid, and gets back the cards they covered with; each attack card left goes back to
    the player who laid it."""
    table, hand = s.table, s.hands[s.defender]
    room = g.decide_seat["pickup_count"](s, None)
    if room < len(table):
        pairs, s.table = table, []
        for i, (attack, cover) in enumerate(pairs):
            if cover is not None:
                hand.append(cover.real)
            (hand if i < room else s.hands[s.laid_by[i]]).append(attack.real)
        _move_table(s, hand)
        s.last_table = pairs
    else:
        _move_table(s, hand)
    s.last_taken = True


def _move_table(s, dest):
    """Every card on the table, pair by pair, attack card first, onto `dest`; clear the table."""
    for attack, cover in s.table:
        dest.append(attack.real)
        if cover is not None:
            dest.append(cover.real)
    s.last_table = s.table  # the last bout's pairs, kept for scoring (epaulettes)
    s.table = []
    s.laid_by = []
    if s.shown:
        s.shown = set()
    s.unbeaten = 0
    s.added_since_answer = 0
    s.table_ranks = set()
    s.attack_ranks = set()


def replenish(g, s, a):
    """Each drawer (decision `drawer`) in `draw_key` order fills up from the top of the talon."""
    s.last_attacker, s.last_defender = s.attacker, s.defender
    n, hands, talon, size = s.n, s.hands, s.talon, s.hand_size
    s.drew = drew = [0] * n
    drawers = g.ruleset.draw_order_fn(s)  # (draw_key, seat) of each drawer, in draw order
    for _, seat in drawers:
        hand = hands[seat]
        take = size - len(hand)
        if take > len(talon):
            take = len(talon)
        if take > 0:
            hand += talon[:take]
            del talon[:take]
            drew[seat] = take
    s.after_draw = list(map(len, hands))
    s.short_after_draw = short = [False] * n
    for _, seat in drawers:
        short[seat] = len(hands[seat]) < size


def mark_out(g, s, a):
    """Mark out every seat the `out` decision says is; those going out together join the
    finishing order in the order they played their last card."""
    is_out = s.out
    gone = []
    for seat in range(s.n):
        if not is_out[seat] and g.decide_seat["out"](s, seat):
            gone.append(seat)
    if len(gone) > 1:
        gone.sort(key=s.emptied.__getitem__)
    for seat in gone:
        is_out[seat] = True
        s.active -= 1
        s.finish_order.append(seat)


def check_end(g, s, a):
    """End the deal when `game_over` says so: the fool, the losers and the standing, each by its
    decision."""
    if g.decide_seat["game_over"](s, None):
        s.finished = True
        s.fool = g.decide_seat["fool"](s, None)
        s.losers = tuple([bool(g.decide_seat["loser"](s, x)) for x in range(s.n)])
        order = sorted(range(s.n), key=lambda x: (g.decide_seat["place_key"](s, x), x))
        places = [0] * s.n
        for place, seat in enumerate(order, 1):
            places[seat] = place
        s.places = tuple(places)


def next_roles(g, s, a, *, after):
    """Start the next bout with the roles the rotation rules decide."""
    if not s.finished:
        if after == "beaten_off":
            attacker = g.decide_seat["next_attacker_after_beaten_off"](s, None)
            if attacker is None:
                g.decide("next_attacker_after_beaten_off")  # raises, naming the rule
        else:
            attacker = g.decide_seat["next_attacker_after_take"](s, None)
            if attacker is None:
                g.decide("next_attacker_after_take")
        s.attacker = attacker
        defender = g.decide_seat["next_defender"](s, None)
        if defender is None:
            g.decide("next_defender")
        s.defender = defender
        s.taking = False
        if True in s.passed:
            s.passed = [False] * s.n
        s.bout_number += 1
        s.opener = s.last_adder = s.attacker
        s.defender_hand_at_start = len(s.hands[s.defender])


PRIMITIVES = {
    "add_attack_card": add_attack_card, "cover_card": cover_card, "clear_passes": clear_passes,
    "mark_passed": mark_passed, "mark_all_passed": mark_all_passed, "start_taking": start_taking,
    "move_defence_on": move_defence_on, "remember_shown": remember_shown,
    "swap_with_turn_up": swap_with_turn_up, "exchange_with_talon": exchange_with_talon,
    "reveal_hidden_card": reveal_hidden_card, "void_deal": void_deal,
    "transferer_attacks": transferer_attacks,
    "discard_table": discard_table,
    "defender_picks_up": defender_picks_up, "replenish": replenish, "mark_out": mark_out,
    "check_end": check_end, "next_roles": next_roles,
}
