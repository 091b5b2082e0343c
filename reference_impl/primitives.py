"""State-changing primitives that spec/flow.yaml sequences. Each is generic: it moves cards or
sets roles, and asks the ruleset's decisions (rules with `decides:` in spec/rules/) whenever a
choice depends on the rules.
"""

from __future__ import annotations


def add_attack_card(g, s, a):
    """Move the action's card from the actor's hand to the table as an attack card."""
    if not s.table:
        s.opener = a.seat
        s.defender_hand_at_start = len(s.hands[s.defender])
    s.hands[a.seat].remove(a.card)
    s.table.append([a.card, None])
    s.unbeaten += 1
    s.table_ranks.add(a.card.rank)
    s.attack_ranks.add(a.card.rank)


def cover_card(g, s, a):
    """Lay the action's card on its target attack card."""
    for pair in s.table:
        if pair[0] is a.target:
            pair[1] = a.card
            break
    s.hands[a.seat].remove(a.card)
    s.unbeaten -= 1
    s.table_ranks.add(a.card.rank)


def clear_passes(g, s, a):
    s.passed = [False] * s.n


def mark_passed(g, s, a):
    s.passed[a.seat] = True


def start_taking(g, s, a):
    s.taking = True


def move_defence_on(g, s, a):
    """After a transfer: the defender hands the defence to the next player in the game."""
    s.transferer = s.defender
    s.defender = s.left_of(s.defender)
    s.defender_hand_at_start = len(s.hands[s.defender])


def transferer_attacks(g, s, a):
    s.attacker = s.transferer


def _clear_table(s):
    s.table = []
    s.unbeaten = 0
    s.table_ranks = set()
    s.attack_ranks = set()


def discard_table(g, s, a):
    s.discard.extend(s.table_cards())
    s.beaten_bouts += 1
    _clear_table(s)


def defender_picks_up(g, s, a):
    s.hands[s.defender].extend(s.table_cards())
    _clear_table(s)


def replenish(g, s, a):
    """Each drawer (decision `drawer`) in `draw_key` order fills up from the top of the talon."""
    drawer, key = g.decide_seat["drawer"], g.decide_seat["draw_key"]
    s.last_attacker, s.last_defender = s.attacker, s.defender
    n = s.n
    s.drew = [0] * n
    s.after_draw = [len(h) for h in s.hands]
    s.short_after_draw = [False] * n
    order = sorted((key(s, seat), seat) for seat in range(n) if drawer(s, seat))
    talon, size = s.talon, s.hand_size
    for _, seat in order:
        hand = s.hands[seat]
        take = min(size - len(hand), len(talon))
        if take > 0:
            hand.extend(talon[:take])
            del talon[:take]
            s.drew[seat] = take
        s.after_draw[seat] = len(hand)
        s.short_after_draw[seat] = len(hand) < size


def mark_out(g, s, a):
    out = g.decide_seat["out"]
    for seat in range(s.n):
        if not s.out[seat] and out(s, seat):
            s.out[seat] = True
            s.active -= 1
            s.finish_order.append(seat)


def check_end(g, s, a):
    if g.decide("game_over"):
        s.finished = True
        s.fool = g.decide("fool")


def next_roles(g, s, a, *, after):
    """Start the next bout with the roles the rotation rules decide."""
    if s.finished:
        return
    s.attacker = g.decide("next_attacker_after_beaten_off" if after == "beaten_off"
                          else "next_attacker_after_take")
    s.defender = g.decide("next_defender")
    s.taking = False
    s.passed = [False] * s.n
    s.bout_number += 1
    s.opener = s.attacker
    s.defender_hand_at_start = len(s.hands[s.defender])


PRIMITIVES = {
    "add_attack_card": add_attack_card, "cover_card": cover_card, "clear_passes": clear_passes,
    "mark_passed": mark_passed, "start_taking": start_taking, "move_defence_on": move_defence_on,
    "transferer_attacks": transferer_attacks, "discard_table": discard_table,
    "defender_picks_up": defender_picks_up, "replenish": replenish, "mark_out": mark_out,
    "check_end": check_end, "next_roles": next_roles,
}
