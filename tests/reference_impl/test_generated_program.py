"""The program a Ruleset generates (ruleset.py `_fuse`): flow events, bout ends and settling all
follow spec/, and the game API around it keeps its contract (fresh lists, independent clones)."""

from __future__ import annotations

import ast
import dataclasses
import random

import pytest

from durak_spec.reference_impl import game
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.match import Match
from durak_spec.reference_impl.notation import state_json
from durak_spec.reference_impl.ruleset import DRAW, draw_agrees, random_bits
from durak_spec.reference_impl.state import State
from durak_spec.reference_impl.vocab import STATE


def start(spec, setup, preset="podkidnoy", **options):
    rs = spec.ruleset(preset, options)
    return Game(rs, Setup.from_json(setup, rs.deck))


def play(game, *actions):
    for text in actions:
        game.apply_action(game.parse_action(text))
    return game


BEATEN = {"hands": [["9S", "TC"], ["JS", "7D"]], "talon": ["6S", "7S", "8S", "AH"], "trump": "AH",
          "dealer": 1, "attacker": 0}


def test_removing_replenish_from_a_flow_event_stops_the_draw(spec, spec_copy):
    shipped = play(start(spec, BEATEN), "0 attack 9S", "1 cover 9S with JS")  # nothing to add
    assert shipped.full_state()["hands"] == [["6S", "7S", "8S", "TC", "AH"], ["7D"]]

    spec_copy.edit("flow.yaml", "bout_beaten_off:\n    - discard_table\n    - replenish\n",
                   "bout_beaten_off:\n    - discard_table\n")
    edited = play(start(spec_copy.load(), BEATEN), "0 attack 9S", "1 cover 9S with JS")
    assert edited.full_state()["hands"] == [["TC"], ["7D"]]
    assert edited.full_state()["bout"] == 2


TAKE = {"hands": [["9S", "9C"], ["6S", "7D"]], "talon": ["8D", "AH"], "trump": "AH", "dealer": 1,
        "attacker": 0}


def test_the_bout_taken_decision_is_read_from_the_spec(spec, spec_copy):
    shipped = play(start(spec, TAKE), "0 attack 9S", "1 take")
    assert "0 throw 9C" in {str(a) for a in shipped.legal_actions()}

    spec_copy.edit("rules/bout.yaml", 'clause: "taking and not any_throw"', 'clause: "taking"')
    edited = play(start(spec_copy.load(), TAKE), "0 attack 9S", "1 take")
    assert edited.full_state()["hands"] == [["9C", "8D", "AH"], ["6S", "9S", "7D"]]
    assert edited.full_state()["bout"] == 2


def test_a_spec_in_which_nobody_can_act_is_reported_as_a_deadlock(spec_copy):
    spec_copy.edit("rules/bout.yaml", 'clause: "taking and not any_throw"', 'clause: "taking and False"')
    game = start(spec_copy.load(), {**TAKE, "hands": [["9S", "TC"], ["6S", "7D"]]})
    game.apply_action(game.parse_action("0 attack 9S"))
    with pytest.raises(RuntimeError, match="deadlock.*podkidnoy"):
        game.apply_action(game.parse_action("1 take"))


def test_legal_actions_is_a_fresh_list_each_time(spec):
    game = Game.from_seed(spec.ruleset("podkidnoy"), 3, 7)
    listed = game.legal_actions()
    listed.clear()
    assert game.legal_actions() and game.legal_actions() is not game.legal_actions()


def test_a_clone_plays_on_without_touching_the_original(spec):
    game = Game.from_seed(spec.ruleset("perevodnoy"), 4, 11)
    rng = random.Random(11)
    for _ in range(15):
        game.apply_action(rng.choice(game.legal_actions()))
    before, legal = state_json(game.state), [str(a) for a in game.legal_actions()]
    copy = game.clone()
    assert state_json(copy.state) == before
    while not copy.is_terminal():
        copy.apply_action(rng.choice(copy.legal_actions()))
    assert state_json(game.state) == before
    assert [str(a) for a in game.legal_actions()] == legal


def test_the_ruleset_still_offers_its_legal_and_passes_functions(spec):
    rs = spec.ruleset("podkidnoy")
    game = play(start(spec, TAKE), "0 attack 9S", "1 take")
    others, throws = rs.legal_fn(game.state, None)
    rs.passes_fn(game.state, throws, None)
    assert others == [] and [str(a) for a in throws] == ["0 throw 9C", "0 pass"]
    assert throws == game.legal_actions()


def test_cards_of_a_hand_are_played_as_their_own_suit_without_a_test_at_run_time(spec):
    """The loops over a hand yield physical cards, so play.own_card's `card.suit ==
    card.own_suit` folds away; where a kind offers the Weli's named suits it stays."""
    assert ".real." not in spec.ruleset("podkidnoy").source
    assert "card.suit == card.real.suit" in spec.ruleset("weli").source


@pytest.mark.parametrize("preset, players", [("podkidnoy", 2), ("perevodnoy", 4)])
def test_play_out_plays_the_game_apply_action_plays(spec, preset, players):
    """Game.play_out (durak simulate's loop) applies the chosen actions without the checks of
    apply_action and plays the very same game, up to its step limit too."""
    rs = spec.ruleset(preset)
    for seed, limit in ((3, 5000), (4, 5000), (5, 9)):
        one, two = Game.from_seed(rs, players, seed), Game.from_seed(rs, players, seed)
        choice = random.Random(seed).choice
        while not one.is_terminal() and one.state.steps < limit:
            one.apply_action(choice(one.legal_actions()))
        two.play_out(random.Random(seed).choice, limit)
        assert state_json(two.state) == state_json(one.state)
        assert two.legal_actions() == one.legal_actions() and two.state.steps <= limit


def test_the_generated_play_loop_plays_the_games_apply_action_plays(spec):
    """Once a ruleset's step is compiled, Game.play_out runs the generated `play` (the step's
    body in a loop, its locals kept from one step to the next): every preset at every player
    count it seats plays the same games as apply_action, one action at a time, to the same end,
    drawing as random.choice does (ruleset.py DRAW), and hands a chooser of its own the very
    actions apply_action lists, at every step."""
    for preset in spec.presets:
        rs = spec.ruleset(preset)
        lo, hi = rs.player_limits
        for players in range(max(lo, 2), min(hi, 6) + 1):
            rs.program(players)  # compiled: play_out runs it once the game's first step has
            for seed in range(3):
                one, two = Game.from_seed(rs, players, seed), Game.from_seed(rs, players, seed)
                choice, listed = random.Random(seed).choice, []
                while not one.is_terminal() and one.state.steps < 5000:
                    listed.append(one.legal_actions())
                    one.apply_action(choice(listed[-1]))
                two.play_out(random.Random(seed).choice, 5000)
                assert state_json(two.state) == state_json(one.state), (preset, players, seed)
                assert two.legal_actions() == one.legal_actions() and two.returns() == one.returns()
                three, seen, choice = Game.from_seed(rs, players, seed), [], random.Random(seed).choice
                three.play_out(lambda legal: seen.append(list(legal)) or choice(legal), 5000)
                assert seen == listed, (preset, players, seed)


def test_a_failure_in_the_generated_play_loop_keeps_the_actions_legal_before_it(spec, monkeypatch):
    """play_out's loop leaves in the game the actions listed before the step that failed."""
    rs = spec.ruleset("podkidnoy")
    rs.program(2)  # compiled: play_out runs the generated loop
    game = Game.from_seed(rs, 2, 1)
    before, calls = game.legal_actions(), []

    def choose(legal):
        calls.append(legal)
        if len(calls) == 3:
            raise KeyError("chooser")
        return legal[0]
    with pytest.raises(KeyError):
        game.play_out(choose, 100)
    assert game.legal_actions() == calls[2] and game.state.steps == 2 and calls[0] == before


def test_a_condition_that_loops_is_tested_after_the_plain_ones_of_its_level(spec):
    """The swap of podkidnoy_trump_exchange: deck.trump_exchange_card's look over every card in
    play ('no lower trump in play') runs only for a card below the turn-up (the plain condition of
    deck.trump_exchange_turn_up, a later rule), not for every trump of every hand."""
    src = spec.ruleset("podkidnoy_trump_exchange").source
    swap = src[src.index("# swap"):]
    key = next(line for line in swap.splitlines() if "_TC_swap.get(" in line)  # the plain tests'
    assert "_v_turn_up_rank" in key, key
    test = next(line for line in swap.splitlines() if "_m_swap_0 :=" in line)  # _Least's
    assert test.index("card in _q") < test.index("_m_swap_0 :="), test
    scope = test[test.index("_m_swap_0 :="):].split("(")[2]  # min((_scopeN(...
    assert "s.in_play()" in src[src.index(f"def {scope}("):]


@pytest.mark.parametrize("preset", ["podkidnoy_trump_exchange", "marmot_tournament"])
def test_the_cards_in_play_are_listed_at_most_once_per_settle(spec, preset, monkeypatch):
    """deck.trump_exchange_card's 'no lower trump in play' reads the state alone: the list of
    every card in play is made at most once while the legal actions of a state are listed (it
    was made again for every card looked at), in settle and, once the ruleset has played
    WARM_STEPS, in the generated play loop (twelve games play more steps than that)."""
    seen = []

    def in_play(s):
        seen.append((s.steps, len(s.discard), len(s.talon), tuple(map(len, s.hands)), len(s.table)))
        return made(s)

    made = State.in_play
    monkeypatch.setattr(State, "in_play", in_play)
    rs = spec.ruleset(preset)
    for seed in range(12):
        seen.clear()
        rng = random.Random(seed)
        Game.from_seed(rs, 2, seed).play_out(rng.choice, 1000)
        assert seen and len(set(seen)) == len(seen), (seed, len(seen) - len(set(seen)))
    assert rs.compiled_program(2) is not None


def test_every_deal_of_every_preset_is_a_valid_setup(spec):
    """Game.from_seed does not ask Setup.validate of the setup it deals (game._validate_for): each
    deal of every preset, at every player count its deck seats, must pass it."""
    for preset in spec.presets:
        rs = spec.ruleset(preset)
        for players in range(rs.player_limits[0], rs.player_limits[1] + 1):
            for seed in range(3):
                setup = Setup.deal(rs, players, seed)
                setup.validate(rs.deck, rs.player_limits, rs.turn_up_place)
                assert all(setup.hands), (preset, players, seed)


@pytest.mark.parametrize("size", [1, 2, 3, 7, 24, 32, 36, 52, 54, 72, 108, 200])
def test_a_deal_shuffles_as_random_shuffle_does(size):
    """Setup.deal shuffles by CPython's shuffle loop written out (game._drawn, no Python call
    per card): the deck in the same order as `random.Random(seed).shuffle` leaves it, whatever
    the deck and the seed, a redrawn index (one out of range) included."""
    for seed in list(range(40)) + [2**31 - 1, 2**64 + 3, -5]:
        ours, theirs, dealt = list(range(size)), list(range(size)), list(range(size))
        game._drawn(ours, seed)
        random.Random(seed).shuffle(theirs)
        game._shuffle(dealt, seed)
        assert ours == theirs == dealt, (size, seed)


def test_a_deal_shuffles_with_random_shuffle_where_its_loop_differs(monkeypatch):
    """Where this Python's shuffle is not the loop game._shuffle writes out (its first call
    compares them), a deal is shuffled by random.shuffle itself."""
    def reversed_shuffle(self, x):
        x.reverse()

    monkeypatch.setattr(random.Random, "shuffle", reversed_shuffle)
    monkeypatch.setattr(game, "_LIKE_RANDOM", [])
    deck = list(range(36))
    game._shuffle(deck, 1)
    assert game._LIKE_RANDOM == [False] and deck == list(range(35, -1, -1))


def test_a_deal_starts_as_the_same_setup_given_explicitly(spec, monkeypatch):
    """Game.from_seed (and a match's deal) builds the start of a deal without a position's work
    (no table, nobody out, no discard: Game._initial_state): the same state as the same setup
    given explicitly and read as a position, at every player count and in a later deal."""
    games = []
    for preset in ("podkidnoy", "podkidnoy_teams", "two_packs", "railway", "changeable_trump"):
        rs = spec.ruleset(preset)
        for players in range(rs.player_limits[0], rs.player_limits[1] + 1):
            games += [Game.from_seed(rs, players, seed) for seed in range(2)]
    match = Match(spec.ruleset("podkidnoy"), 3)
    first = match.deal(1)
    first.play_out(random.Random(1).choice, 5000)
    match.record(first)
    games.append(match.deal(2))
    assert games[-1].setup.deal_number == 2
    monkeypatch.setattr(Setup, "is_position", property(lambda setup: True))
    for dealt in games:
        given = Game(dealt.ruleset, dataclasses.replace(dealt.setup))
        assert _slots(dealt.state) == _slots(given.state), (dealt.ruleset.name, dealt.setup.seed)


def _slots(state: State) -> dict:
    return {name: getattr(state, name) for name in State.__slots__}


def test_the_operands_of_a_card_condition_that_read_no_card_are_tested_once(spec):
    """The online presets' throw-in timing, `taking or table_covered > 0 or multi_card_lead`
    (multi_card_lead: the attacker, nothing covered, the card of the lead's only rank): `taking`
    and `table_covered > 0` once per settle, the attacker's part once per seat, and a seat none of
    whose cards can pass it is not looked at card by card."""
    src = spec.ruleset("podkidnoy_online").source
    throw = src[src.index("# throw"):src.index("# pass")].splitlines()
    per_card = next(line for line in throw if "card.rank in (_v_table_ranks)" in line)
    assert "_v_taking" not in per_card and "seat ==" not in per_card, per_card
    per_seat = next(line for line in throw if "_c_out[seat]" in line)
    assert "_v_attacker" in per_seat and "card" not in per_seat, per_seat


@pytest.mark.parametrize("preset", ["podkidnoy", "podkidnoy_trump_exchange", "marmot_tournament"])
def test_no_local_of_the_generated_functions_is_kept_in_a_cell(spec, preset):
    """A comprehension or lambda that reads a local (the trump exchange's 'no lower trump in
    play' reads the card looked at; check_end's ordering reads the state) is a function of its
    own, so that the generated step, settle and bout ends read their locals directly."""
    rs = spec.ruleset(preset)
    for name, fn in list(rs._ns.items()) + list(rs.program(2)[0].__globals__.items()):
        if name in ("step", "play", "settle", "legal", "passes", "draw_order") or name.startswith("end_"):
            assert fn.__code__.co_cellvars == (), (name, fn.__code__.co_cellvars)


ON_TABLE = {"hands": [["8C"], ["TS", "6S", "JD", "7H", "6C", "QC"]], "talon": ["8D", "AH"],
            "trump": "AH", "dealer": 1, "attacker": 0, "defender": 1}


@pytest.mark.parametrize("preset", ["podkidnoy", "weli"])
def test_a_cover_is_listed_from_a_table_of_what_each_card_beats(spec, preset):
    """defence.beat reads the card, the target and the trump suit only: settle tests each card of
    the defender's hand by one look in a row of the table `_TB_cover`, made once per target and
    trump suit (the rows of a ruleset are shared by its games), for one target and for several;
    the covers listed are those the rule allows."""
    rs = spec.ruleset(preset)
    tables = rs._ns["_TB_cover"]
    nine = rs.deck.card("9S")
    one = Game(rs, Setup.from_json({**ON_TABLE, "table": [["9S", None]]}, rs.deck))
    row = tables[(nine.index, "H")]
    assert [c for c in rs.deck.cards if row[c.index]] == [
        c for c in rs.deck.cards if c.suit == "H" or c.suit == "S" and c.rank > nine.rank]
    assert sorted(str(a) for a in one.legal_actions() if a.kind == "cover") == [
        "1 cover 9S with 7H", "1 cover 9S with TS"]
    two = Game(rs, Setup.from_json({**ON_TABLE, "table": [["9S", None], ["9D", None]]}, rs.deck))
    assert tables[(nine.index, "H")] is row and (rs.deck.card("9D").index, "H") in tables
    assert [str(a) for a in two.legal_actions() if a.kind == "cover"] == [
        "1 cover 9S with TS", "1 cover 9D with JD", "1 cover 9S with 7H", "1 cover 9D with 7H"]
    for card in two.state.hands[1]:
        for target in ("9S", "9D"):
            cover = two.parse_action(f"1 cover {target} with {card}")
            assert (cover in two.legal_actions()) == (two.explain(cover)[0] == ""), cover


def test_a_comparison_an_earlier_condition_of_the_block_states_is_not_tested_again(spec):
    """throw_in.who: `seat != defender and not teammate(seat, defender)`, where teammate(x, y) is
    `x != y and team(x) == team(y)`: the throw-in block tests `seat != defender` once per seat,
    and the team comparison after it."""
    src = spec.ruleset("podkidnoy").source
    throw = src[src.index("# throw"):src.index("# attack")].splitlines()
    per_seat = next(line for line in throw if "_c_out[seat]" in line)
    assert per_seat.count("seat != ") == 1, per_seat
    assert "_c_team[seat] == _c_team[_v_defender]" in per_seat, per_seat


@pytest.mark.parametrize("preset", ["podkidnoy_trump_exchange", "marmot_tournament"])
def test_a_state_value_the_block_condition_reads_is_read_once_for_its_loops_too(spec, preset):
    """deck.trump_exchange_turn_up: the swap block's condition `turn_up_rank is not None` keeps
    the turn-up's rank in its local as it reads it (`:=`), which the cards' test reads: the state
    is asked once per settle, not twice (a method call each)."""
    src = spec.ruleset(preset).source
    settle = src[src.index("def settle("):]
    settle = settle[:settle.index("\ndef ")]
    read = STATE["turn_up_rank"].code  # the state's method, called when the shortcut fails
    assert settle.count(read) == settle.count("s.turn_up_rank()") == 1, settle
    assert f"(_v_turn_up_rank := {read}) is not None" in settle


@pytest.mark.parametrize("cond, kept", [
    ("_v_x", "(_v_x := s.x())"),
    ("a and _v_x > 1 and _v_x", "a and (_v_x := s.x()) > 1 and _v_x"),
    ("a or _v_x", None),                       # an or may pass over it
    ("(b and _v_x) and _v_x + 1 > 2", None),   # its first reader may not read it
    ("f(_v_x) and 1 < 2 < _v_x", None),        # nor a later link of a chained comparison
    ("_v_x > 0 and (_v_x if a else 1) > 0", "(_v_x := s.x()) > 0 and (_v_x if a else 1) > 0"),
])
def test_a_block_condition_keeps_a_value_only_where_it_surely_reads_it(cond, kept):
    from durak_spec.reference_impl.ruleset import _assigned_where_read

    tree = ast.parse(cond, mode="eval")
    assert _assigned_where_read(tree, "_v_x", "s.x()") == (kept is not None)
    assert ast.unparse(tree) == (kept or cond)


@pytest.mark.parametrize("cond, values", [
    ("card.suit == target.suit and card.rank > target.rank or card.suit == _v_trump_suit", ["_v_trump_suit"]),
    ("card.rank < _v_table_attack_count", ["_v_table_attack_count"]),
    ("card.rank < _v_turn_up_rank", None),   # turn_up_rank may be None: None < 1 raises
    ("card.rank in _v_table_ranks", None),   # a set of the state, not a value to key a table by
    ("_c_out[seat]", None),                  # a container of the state
    ("any(c.rank > card.rank for c in _v_in_play)", None),
])
def test_only_a_condition_that_cannot_raise_is_kept_in_a_table(cond, values):
    from durak_spec.reference_impl.ruleset import _tabulable

    assert _tabulable(cond) == values


def _swaps_by_the_rules(rs, s):
    """The swaps deck.trump_exchange* allow in state `s`, each clause run as compiled alone."""
    table = rs._ns["_T_swap"]
    return [table[seat][card.index] for seat in range(s.n) if not s.out[seat]
            for card in s.hands[seat]
            if all(cr.clause.fn(s, seat, card, None) for cr in rs.legality["swap"])]


@pytest.mark.parametrize("preset", ["podkidnoy_trump_exchange", "marmot_tournament"])
def test_the_swaps_listed_through_the_set_of_cards_that_may_be_swapped_are_those_the_rules_allow(
        spec, preset):
    """A swap's first tests read the card, the trump suit and the turn-up's rank only: settle
    keeps the set of the cards that pass them by those values (`_TC_swap`, _card_tests), skips a
    hand that holds none, and finds the lowest trump in play once (_Least). The swaps listed at
    every step of random games are those the rules allow, in the order of the hands."""
    rs = spec.ruleset(preset)
    swaps = 0
    for seed in range(30):
        g = Game.from_seed(rs, 2 + seed % 3, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            listed = [a for a in g.legal_actions() if a.kind == "swap"]
            assert listed == _swaps_by_the_rules(rs, g.state), (seed, g.state.steps)
            swaps += len(listed)
            g.apply_action(rng.choice(g.legal_actions()))
    assert swaps and rs._ns["_TC_swap"]
    assert all(isinstance(k, tuple) and len(k) == 2 for k in rs._ns["_TC_swap"])


def test_the_first_tests_of_a_card_that_read_values_of_the_state_alone_are_kept_in_a_set():
    from durak_spec.reference_impl.ruleset import _card_tests

    quantifier = "not any(c.rank < card.rank for c in _v_in_play)"
    levels = [["_v_turn_up_rank is not None"], [], [
        f"card.rank < _v_turn_up_rank and card.suit == _v_trump_suit and {quantifier}"], []]
    tests, values = _card_tests(levels)
    assert values == ["_v_trump_suit", "_v_turn_up_rank"]
    assert [ast.dump(ast.parse(t)) for t in levels[2]] == [ast.dump(ast.parse(quantifier))]
    assert tests == "(card.rank < _v_turn_up_rank) and (card.suit == _v_trump_suit)"
    # no earlier test says the turn-up's rank is not None: None < 1 would raise
    assert _card_tests([[], [], ["card.rank < _v_turn_up_rank"], []]) is None
    # only the first tests: a later test may raise where an earlier one fails
    assert _card_tests([[], [], [f"{quantifier} and card.suit == _v_trump_suit"], []]) is None
    assert _card_tests([[], [], ["card.rank in _v_table_ranks"], []]) is None  # a set, no value


@pytest.mark.parametrize("src, rewritten", [
    ("not any(c.suit == _v_trump_suit and c.rank < card.rank for c in _v_in_play)", True),
    ("any(card.rank >= c.rank for c in _v_in_play)", True),
    ("any(c.rank > card.rank for c in _v_in_play)", True),
    ("any(c.rank <= card.rank and c.suit == _v_trump_suit for c in _v_in_play)", False),
    ("any(c.suit == card.suit and c.rank < card.rank for c in _v_in_play)", False),
    ("any(c.rank < _v_turn_up_rank and c.rank < card.rank for c in _v_in_play)", False),
])
def test_a_look_for_a_lower_card_in_play_is_a_test_against_the_lowest_found_once(
        spec, src, rewritten):
    """_Least: `any(A(c) and c.rank < card.rank for c in C)` as `m < card.rank`, m the lowest rank
    of the cards of C that pass A (the highest for >), found at the first card tested: the same
    truth for every card and collection. Not where A reads the card, may raise (None < 1), or
    is not the first of the tests."""
    from durak_spec.reference_impl.ruleset import _Least

    least = _Least("_m_x_")
    new = least.rewritten(src)
    assert (new != src) == rewritten and len(least.names) == rewritten
    rs = spec.ruleset("podkidnoy_trump_exchange")
    ns = dict(rs._ns)
    rng = random.Random(1)
    cards = list(rs.deck.cards)
    for _ in range(200):
        items = rng.sample(cards, rng.randrange(len(cards)))
        trump = rng.choice(["S", "H", None])
        ns.update(_v_trump_suit=trump, _v_turn_up_rank=rng.choice([None, 3]))
        first = {**ns, "_m_x_0": ns["_UNSET"], "_v_in_play": list(items)}
        for card in rng.sample(cards, 6):  # several cards against one collection, as a hand
            try:
                want = eval(src, {**ns, "card": card, "_v_in_play": items})
            except TypeError:
                continue
            first["card"] = card
            assert eval(new, first) == want, (new, card, items, trump)


def test_the_bout_ends_write_the_draw_order_out_for_the_player_count(spec):
    """The bout ends of a player count's program, in their functions (step's) and in the play
    loop, write the draw order out without a call (its loop over the seats unrolled, the count a
    constant); the lines written order the drawers as the generic draw_order does at every step
    of random games."""
    rs = spec.ruleset("podkidnoy_teams")
    src = rs.step_source_for(6)
    assert "draw_order" not in src
    for event in ("bout_taken", "bout_beaten_off"):
        written = src[src.index(f"def end_{event}(g, s):"):]
        written = written[:written.index("\ndef ")]
        assert "for seat in" not in written and written.count("_drawers.append(") == 6
    ns = dict(rs._ns)
    exec("\n".join(["def order(s):"] + rs._draw_order_written(["    got = draw_order(s)"])
                   + ["    return got"]), ns)
    for seed in range(5):
        g = Game.from_seed(rs, 6, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            assert ns["order"](g.state) == rs.draw_order_fn(g.state)
            g.apply_action(rng.choice(g.legal_actions()))


def test_the_play_loop_writes_the_bout_ends_out(spec):
    """The play loop runs each bout end written out in it, where step calls a function per bout
    end (a call of step clears its locals, the loop's stay): no call and no state read again."""
    tree = ast.parse(spec.ruleset("podkidnoy").step_source_for(2))
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    called = {name: {n.func.id for n in ast.walk(functions[name]) if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Name)} for name in ("step", "play")}
    assert {"end_bout_taken", "end_bout_beaten_off"} <= called["step"]
    assert not {n for n in called["play"] if n.startswith("end_")}, called["play"]
    assert "s.beaten_bouts += 1" in ast.unparse(functions["play"])


def test_the_play_loop_draws_as_random_choice_and_only_for_an_exact_random(spec):
    """The play loop draws the index of a random.Random's `choice` itself (ruleset.DRAW): only for
    an exact random.Random's bound choice; a subclass's or any other chooser is called, and every
    chooser plays the game apply_action plays with it."""
    assert random_bits(random.Random(1).choice) is not None

    class Other(random.Random):
        pass
    assert random_bits(Other(1).choice) is None and random_bits(lambda legal: legal[0]) is None
    rs = spec.ruleset("podkidnoy")
    rs.program(2)
    first = lambda legal: legal[-1]  # noqa: E731
    for seed, make in ((2, lambda: random.Random(2).choice), (2, lambda: Other(2).choice),
                       (3, lambda: first)):
        one, two = Game.from_seed(rs, 2, seed), Game.from_seed(rs, 2, seed)
        choose = make()
        while not one.is_terminal() and one.state.steps < 5000:
            one.apply_action(choose(one.legal_actions()))
        two.play_out(make(), 5000)
        assert state_json(two.state) == state_json(one.state) and two.returns() == one.returns()


@pytest.mark.parametrize("broken", [
    ("_n = len(_legal)", "_k = _n.bit_length()", "_r = _bits(_k)", "while _r > _n:",
     "    _r = _bits(_k)", "a = _legal[_r]"),
    ("_n = len(_legal)", "_k = (_n - 1).bit_length()", "_r = _bits(_k)", "while _r >= _n:",
     "    _r = _bits(_k)", "a = _legal[_r]"),
    ("_n = len(_legal)", "_k = _n.bit_length()", "_r = _bits(_k)", "a = _legal[_r % _n]")])
def test_the_check_of_the_play_loops_draw_fails_for_a_draw_unlike_random_choice(broken):
    """ruleset.draw_agrees, which random_bits asks once per process before the loop draws for
    itself, holds for DRAW and fails for a draw that takes other numbers or leaves the stream
    elsewhere (a bound off by one, the bits of n - 1, no draw again)."""
    assert draw_agrees(DRAW)
    assert not draw_agrees(broken)
