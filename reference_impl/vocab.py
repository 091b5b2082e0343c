"""The vocabulary clauses may use: names and functions over a game state, with their types.

Each entry maps a clause name to Python source over `s` (a `State`) and, in action clauses, the
action's `seat`, `card` and `target`. This is the only place where clause names meet the state's
representation; docs list it so spec authors know what they can say.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

from .lang import BOOL, CARD, INT, KIND, RANK, RANKSET, SEAT, SUIT, Name

STATE = {
    "players": Name(INT, "s.n", doc="number of seats in the game"),
    "active_players": Name(INT, "s.active", doc="players not yet out"),
    "attacker": Name(SEAT, "s.attacker", doc="the main attacker of the current bout"),
    "defender": Name(SEAT, "s.defender", doc="the defender of the current bout"),
    "opener": Name(SEAT, "s.opener", doc="the player who opened the current bout"),
    "dealer": Name(SEAT, "s.dealer", doc="the dealer of this deal"),
    "trump_suit": Name(SUIT + "?", "s.trump_suit", doc="the trump suit, or None without trumps (rule deck.trump decides it)"),
    "turn_up": Name(CARD, "s.trump_card", doc="the card turned up to show the trump (the trump card of the setup)"),
    "talon_count": Name(INT, "len(s.talon)", doc="cards left in the talon, the turned-up trump included"),
    "hidden_card": Name(BOOL, "(s.hidden_card is not None)",
                        doc="a card still lies face down under the turn-up, to be turned up once "
                            "the turn-up is drawn (changeable trump)"),
    # the turn-up under the talon (the most common place) read without a call
    "turn_up_rank": Name(RANK + "?", "(None if not s.talon else s.trump_card.rank if s.talon[-1] "
                                     "is s.trump_card else s.turn_up_rank())",
                         doc="rank of the turned-up trump card while it is still in the talon, else None"),
    "discard_count": Name(INT, "len(s.discard)", doc="cards in the discard pile"),
    "deck_size": Name(INT, "s.deck_size", doc="cards in the deck"),
    "bout_number": Name(INT, "s.bout_number", doc="1 for the first bout of the deal, then 2, ..."),
    "beaten_bouts": Name(INT, "s.beaten_bouts", doc="bouts beaten off so far in this deal"),
    "table_attack_count": Name(INT, "len(s.table)", doc="attack cards on the table, beaten or not"),
    "table_unbeaten": Name(INT, "s.unbeaten", doc="attack cards not yet covered"),
    "table_covered": Name(INT, "(len(s.table) - s.unbeaten)", doc="attack cards already covered"),
    "table_card_count": Name(INT, "(2 * len(s.table) - s.unbeaten)", doc="all cards on the table"),
    "table_ranks": Name(RANKSET, "s.table_ranks", doc="ranks of every card on the table"),
    "attack_ranks": Name(RANKSET, "s.attack_ranks", doc="ranks of the attack cards"),
    "attack_rank_count": Name(INT, "len(s.attack_ranks)", doc="distinct ranks among attack cards"),
    "defender_hand": Name(INT, "len(s.hands[s.defender])", doc="cards in the defender's hand"),
    "defender_hand_at_start": Name(INT, "s.defender_hand_at_start",
                                   doc="cards the defender held when the bout began or was transferred to them"),
    "added_since_answer": Name(INT, "s.added_since_answer",
                               doc="attack cards added since the defender last covered, took or "
                                   "transferred (or since the bout began)"),
    "last_adder": Name(SEAT, "s.last_adder",
                       doc="the player who added the latest attack card of the bout (the main "
                           "attacker before the bout is opened)"),
    "taking": Name(BOOL, "s.taking", doc="the defender has said they take"),
    "any_throw": Name(BOOL, "s.any_throw", doc="some player may add a card now"),
    "finished": Name(BOOL, "s.finished", doc="the game is over"),
    "redealt": Name(BOOL, "s.redealt",
                    doc="the deal was called off for a redeal: void, with no fool (rule deck.redeal)"),
    "last_attacker": Name(SEAT, "s.last_attacker", doc="main attacker of the last bout that ended"),
    "last_defender": Name(SEAT, "s.last_defender", doc="defender of the last bout that ended"),
    "hand": Name(INT, "len(s.hands[{0}])", (SEAT,), doc="cards in a player's hand"),
    "laid": Name(INT, "s.laid({0})", (SEAT,), doc="attack cards on the table the player laid"),
    # while nobody is out, the next seat, found without a call
    "left": Name(SEAT, "((({0}) + 1) % s.n if True not in s.out else s.left_of({0}))", (SEAT,),
                 doc="the next player in the game clockwise"),
    "cw": Name(INT, "(({1}) - ({0})) % s.n", (SEAT, SEAT), doc="clockwise seat distance from a to b"),
    "is_out": Name(BOOL, "s.out[{0}]", (SEAT,), doc="the player is out of the game"),
    "exchanges": Name(INT, "s.exchanges[{0}]", (SEAT,),
                      doc="times the player has exchanged cards with the talon in this deal"),
    "passed": Name(BOOL, "s.passed[{0}]", (SEAT,), doc="the player has passed in this bout"),
    "has_throw": Name(BOOL, "s.can_throw[{0}]", (SEAT,), doc="the player may add some card now"),
    "lowest_rank": Name(RANK + "?", "s.lowest_rank({0})", (SEAT,),
                        doc="rank of the player's lowest card of any suit, or None for an empty hand"),
    "drew": Name(INT, "s.drew[{0}]", (SEAT,), doc="cards the player drew after the last bout"),
    "hand_after_draw": Name(INT, "s.after_draw[{0}]", (SEAT,),
                            doc="the player's hand size right after the last draw"),
    "short_after_draw": Name(BOOL, "s.short_after_draw[{0}]", (SEAT,),
                             doc="the player needed cards after the last bout and was left short"),
    # teams (spec/teams.yaml); without teams every player is a team of one
    "team_play": Name(BOOL, "s.team_play", doc="the players play in teams at this player count"),
    "team": Name(INT, "s.team[{0}]", (SEAT,),
                 doc="the player's team number (their own seat number when playing alone)"),
    "teammate": Name(BOOL, "({0} != {1} and s.team[{0}] == s.team[{1}])", (SEAT, SEAT),
                     doc="two different players of one team"),
    # without teams and while nobody is out, the next seat, found without a call
    "next_opponent": Name(SEAT, "((({0}) + 1) % s.n if not s.team_play and True not in s.out "
                                "else s.next_opponent({0}))", (SEAT,),
                          doc="the next player clockwise in the game who is not the player's teammate"),
    "teams_in_game": Name(INT, "s.teams_in_game()", doc="teams with a player still in the game"),
    "team_out": Name(BOOL, "s.team_out({0})", (SEAT,),
                     doc="every player of the player's team is out"),
    # the result of a deal
    "fool": Name(SEAT + "?", "s.fool", doc="the fool of the finished deal, or None"),
    "finish_place": Name(INT, "s.finish_place({0})", (SEAT,),
                         doc="1 for the first player out, 2 for the second, ...; 0 while in the game"),
    "right": Name(SEAT, "s.right_of({0})", (SEAT,),
                  doc="the next player in the game counterclockwise (to the right)"),
    # the match this deal belongs to (reference_impl/match.py; 1 and no previous deal otherwise)
    "deal_number": Name(INT, "s.deal_number", doc="1 for the first deal of a match, then 2, ..."),
    "after_a_loss": Name(BOOL, "s.after_a_loss",
                         doc="this deal follows a deal of the same match that somebody lost"),
    "previous_fool": Name(SEAT, "s.previous_fool",
                          doc="the fool of the previous deal (the dealer when there was none)"),
    "previous_winner": Name(SEAT, "s.previous_winner",
                            doc="the winner of the previous deal (the dealer when there was none)"),
}

# The match vocabulary: what the match rules (spec/rules/match.yaml, scoring.yaml) and the deal_end
# invariants read about a finished deal and the tallies, over a match.MatchView `s`.
MATCH = {
    "players": STATE["players"],
    "deal_number": Name(INT, "s.deal_number", doc="the number of the deal just played, from 1"),
    "dealer": Name(SEAT, "s.dealer", doc="the dealer of the deal just played"),
    "fool": Name(SEAT + "?", "s.fool", doc="the fool of the deal, or None after a draw"),
    "loses": Name(BOOL, "s.losers[{0}]", (SEAT,), doc="the player lost the deal (end.losers)"),
    "place": Name(INT, "s.places[{0}]", (SEAT,),
                  doc="the player's place in the deal's finishing order, from 1 (end.standing)"),
    "team_play": STATE["team_play"], "team": STATE["team"], "teammate": STATE["teammate"],
    "left": Name(SEAT, "(({0}) + 1) % s.n", (SEAT,), doc="the player to the left"),
    "right": Name(SEAT, "(({0}) - 1) % s.n", (SEAT,), doc="the player to the right"),
    "final_defender": Name(SEAT, "s.final_defender", doc="the defender of the deal's final bout"),
    "final_taken": Name(BOOL, "s.final_taken", doc="the final bout ended with the defender taking"),
    "final_attack_count": Name(INT, "s.final_attack_count",
                               doc="attack cards of the final bout"),
    "final_attack_rank": Name(INT + "?", "s.final_attack_rank",
                              doc="the rank every attack card of the final bout has, as its "
                                  "strength index (rank_index); None if they differ"),
    "final_last_rank": Name(INT + "?", "s.final_last_rank",
                            doc="the rank of the last attack card laid in the deal's final bout, "
                                "as its strength index (rank_index)"),
    "final_last_rank_count": Name(INT, "s.final_last_rank_count",
                                  doc="attack cards of the final bout with the rank of the last "
                                      "one laid"),
    "final_attack_plain": Name(BOOL, "s.final_attack_plain",
                               doc="an attack card of the final bout is not a trump"),
    "rank_index": Name(INT, "({0})", (RANK,),
                       doc="a rank's strength index as a number, the deck's lowest rank 0: "
                           "rank_index('6')"),
    "score": Name(INT, "s.score[{0}]", (SEAT,),
                 doc="the player's score: before this deal in deal_score, after it elsewhere"),
    "epaulettes": Name(INT, "s.epaulettes[{0}]", (SEAT,),
                       doc="epaulettes the player has received, this deal's included"),
    "deal_score": Name(INT, "s.deal_score[{0}]", (SEAT,), doc="what the player scored in this deal"),
    "deal_epaulettes": Name(INT, "s.deal_epaulettes[{0}]", (SEAT,),
                            doc="epaulettes the player received in this deal"),
    "next_dealer": Name(SEAT, "s.next_dealer", doc="the dealer of the next deal"),
    "winner": Name(SEAT + "?", "s.winner",
                   doc="the winner of the deal (match.winner); None while it is being decided"),
}

# Facts of the variant's deck, constant for a ruleset (folded where a clause uses them).
DECK = {
    "deck_lowest_rank": Name(RANK, "deck_lowest_rank", doc="the lowest rank of the deck's suits (six with 36 cards, two with 52)"),
    "deck_highest_rank": Name(RANK, "deck_highest_rank", doc="the highest rank of the deck (the ace)"),
}


def deck_constants(deck) -> dict:
    """The values of DECK for one deck, for the clause compiler."""
    return {"deck_lowest_rank": (RANK, deck.rank_index[deck.plain_ranks[0]]),
            "deck_highest_rank": (RANK, deck.rank_index[deck.plain_ranks[-1]])}


# Names bound by the action being checked, by action kind.
ACTION = {
    "seat": Name(SEAT, "seat", doc="the player making the action"),
    "card": Name(CARD, "card", doc="the card played"),
    "target": Name(CARD, "target", doc="the attack card being covered"),
    "card_in_hand": Name(BOOL, "(card is not None and card.real in s.hands[seat])",
                         doc="the card is in the actor's hand (a card played as a suit its player "
                             "names: the card itself)"),
    "target_unbeaten": Name(BOOL, "s.is_unbeaten(target)",
                            doc="the target is an unbeaten attack card on the table"),
    "unbeaten_share_rank": Name(BOOL, "s.unbeaten_share_rank(card)",
                                    doc="every unbeaten attack card has the rank of `card`"),
    "kind": Name(KIND, "kind", doc="the action's kind (attack, throw, cover, take, pass, transfer, show, swap, exchange, redeal)"),
    "second": Name(CARD, "target", doc="the second card given in an exchange"),
    "second_in_hand": Name(BOOL, "(target in s.hands[seat])",
                           doc="the second card given is in the actor's hand"),
    "card_shown": Name(BOOL, "(card in s.shown)",
                       doc="the card has been shown to pass this bout on (the passport)"),
}


def _action_kinds() -> dict[str, dict]:
    """The action kinds of spec/flow.yaml (`actions:`), read once from the shipped spec: the kinds
    are data, and every module that names actions (notation, the interpreter, the z3 backend)
    reads them from here. A spec folder is checked to declare the same kinds (spec.load_spec)."""
    found = importlib.util.find_spec("durak_spec.spec")
    for loc in (found.submodule_search_locations or []) if found else []:
        path = Path(loc, "flow.yaml")
        if path.is_file():
            # libyaml's loader where the build has it (this runs at every start); the file is
            # the shipped spec's own, checked by load_spec, so no bound is needed here
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)["actions"]
    raise RuntimeError("the installed package has no spec/flow.yaml; reinstall durak-spec")


ACTIONS = _action_kinds()
ACTION_KINDS = tuple(ACTIONS)
CARD_KINDS = {k for k, a in ACTIONS.items() if "card" in a["operands"]}
TARGET_KINDS = {k for k, a in ACTIONS.items() if "target" in a["operands"]}
# Kinds with a second card of the actor's hand (it travels in the action's `target` slot).
SECOND_KINDS = {k for k, a in ACTIONS.items() if "second" in a["operands"]}
# kind -> the protocol capability an engine declares to be sent actions of that kind (1.1)
CAPABILITIES = {k: a["capability"] for k, a in ACTIONS.items() if a.get("capability")}


def action_names(kinds) -> dict[str, Name]:
    """The action names a clause applying to `kinds` may use."""
    kinds = set(kinds)
    names = {"seat": ACTION["seat"]}
    if kinds <= CARD_KINDS:
        names.update(card=ACTION["card"], card_in_hand=ACTION["card_in_hand"],
                     unbeaten_share_rank=ACTION["unbeaten_share_rank"],
                     card_shown=ACTION["card_shown"])
    if kinds <= TARGET_KINDS:
        names.update(target=ACTION["target"], target_unbeaten=ACTION["target_unbeaten"])
    if kinds <= SECOND_KINDS:
        names.update(second=ACTION["second"], second_in_hand=ACTION["second_in_hand"])
    return names


SEAT_CLAUSE = {"seat": Name(SEAT, "seat", doc="the player being considered")}
INVARIANT_ACTION = {"seat": ACTION["seat"], "kind": ACTION["kind"]}
