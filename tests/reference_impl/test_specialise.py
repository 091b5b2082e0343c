"""The generated step written for one player count (reference_impl/specialise.py): what the count
fixes is read as constants, and the games are those of the program for every count."""

from __future__ import annotations

import ast
import inspect
import random
import re

import pytest

from durak_spec.reference_impl import ruleset as ruleset_module
from durak_spec.reference_impl import state as state_module
from durak_spec.reference_impl.game import Game
from durak_spec.reference_impl.notation import state_json
from durak_spec.reference_impl.specialise import (
    copies_dropped,
    held_in_locals,
    specialised,
    with_known_values,
    written_for,
)


@pytest.mark.parametrize(("preset", "players"), [("podkidnoy", 2), ("podkidnoy", 5),
                                                 ("podkidnoy_teams", 4), ("perevodnoy", 3)])
def test_the_step_of_a_player_count_reads_nothing_the_count_fixes(spec, preset, players):
    """`s.n`, the seats `_SEATS[s.n]`, `s.team` and `s.team_play` are constants in the step
    written for a player count, and its loops over the seats are written out seat by seat."""
    rs = spec.ruleset(preset)
    generic, written = rs.step_source, rs.step_source_for(players)
    for read in (r"\bs\.n\b", r"_SEATS\[", r"\bs\.team\b", r"\bs\.team_play\b"):
        assert re.search(read, generic), read  # else the test shows nothing
        assert not re.search(read, written), read
    assert "for seat in _SEATS[s.n]:" in generic
    assert not re.search(r"for seat in \(\d", written)


def test_a_seat_is_its_own_team_only_without_teams(spec):
    """Without teams `s.team[x]` is the seat x (the throw-in's 'not my defender's partner' is
    'not the defender'); with two teams of two it is read from the teams themselves."""
    alone = spec.ruleset("podkidnoy").step_source_for(4)
    teams = spec.ruleset("podkidnoy_teams").step_source_for(4)
    assert "(0, 1, 0, 1)[" in teams
    assert "(0, 1, 2, 3)[" not in alone and "1 != _v_defender" in alone  # seat 1, unrolled


SEATS = tuple(tuple(range(k)) for k in range(8))
LOOPS = """
def f(s, out, stop):
    for seat in _SEATS[s.n]:
        if not (s.team[seat] != s.team[0] and not s.team_play or seat > 1): continue
        out.append(seat)
    for seat in _SEATS[s.n]:
        if seat == stop:
            break
        out.append(-seat)
    return out
"""


class _S:
    def __init__(self, n, team, team_play):
        self.n, self.team, self.team_play = n, team, team_play


@pytest.mark.parametrize(("n", "team", "team_play"), [(2, (0, 1), False), (3, (0, 1, 2), False),
                                                      (4, (0, 1, 0, 1), True), (7, tuple(range(7)), False)])
def test_a_specialised_function_does_what_the_general_one_does(n, team, team_play):
    """Folded constants, `if` tests short of what earlier operands settle, loops unrolled (but one
    that breaks): the same results as the general source."""
    source = specialised(LOOPS, n, team, team_play)
    assert "s.n" not in source and "s.team" not in source
    assert source.count("for seat in") == (1 if n <= 6 else 2), source
    general, special = {"_SEATS": SEATS}, {"_SEATS": None}
    exec(LOOPS, general)
    exec(source, special)
    for stop in range(-1, n + 1):
        s = _S(n, team, team_play)
        assert special["f"](s, [], stop) == general["f"](s, [], stop), (n, stop)


def test_a_game_of_each_count_plays_as_with_the_step_for_every_count(spec, monkeypatch):
    """Games played by the step of their player count (from the first action) end as those
    played by the events and settle one call at a time, at 2 to 6 players."""
    monkeypatch.setattr(ruleset_module, "WARM_STEPS", 10**9)
    fast, slow = (ruleset_module.Ruleset(spec, "podkidnoy", {}) for _ in range(2))
    for players in range(2, 7):
        fast.program(players)  # compiled: its games step by it from the first action
        for seed in range(3):
            one, two = Game.from_seed(fast, players, seed), Game.from_seed(slow, players, seed)
            one.play_out(random.Random(seed).choice, 5000)
            two.play_out(random.Random(seed).choice, 5000)
            assert state_json(one.state) == state_json(two.state), (players, seed)
        assert fast.compiled_program(players) is not None and slow.compiled_program(players) is None


def test_the_play_loop_reads_the_state_fields_from_its_locals(spec):
    """`play` holds the fields it reads in locals (specialise.held_in_locals): it reads `s.X`
    only to load them, at its start and after a call that sets them (a bout end)."""
    tree = ast.parse(spec.ruleset("podkidnoy").step_source_for(2))
    play = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "play")
    calls = {id(n.func) for n in ast.walk(play) if isinstance(n, ast.Call)}
    reads = [n for n in ast.walk(play) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
             and isinstance(n.value, ast.Name) and n.value.id == "s" and id(n) not in calls]
    loads = {id(n.value) for n in ast.walk(play) if isinstance(n, ast.Assign)
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == f"_s_{getattr(n.value, 'attr', '')}"}
    assert len(reads) > 20 and {id(n) for n in reads} == loads, [n.attr for n in reads if id(n) not in loads]


HELD = """
def bump(g, s):
    s.x += 10
def play(g, s, out, other):
    out.append(s.x)
    s.x += 1
    out.append(s.x)
    bump(g, s)
    out.append(s.x)
    s.y, s.x = s.x, 7
    out.append((s.x, s.y))
    other(s)
    out.append(s.x)
    s.box.append(s.x)
    s.box = [s.x]
    s.box.append(1)
    out.append(tuple(s.box))
    if s.read(s):
        out.append(s.x)
    return out
"""


class _State:
    def __init__(self):
        self.x, self.y, self.box = 1, 2, []

    def read(self, s):
        return s.x > 0


def test_a_field_set_behind_the_locals_is_read_again():
    """A held field is read again after the program's own function sets it, after a call handed
    the state that it does not know (it may set anything), and after a tuple assignment; the
    state's queries leave the locals as they are; containers rebound are rebound locally too."""
    held = held_in_locals(HELD, "play", queries={"read"})
    assert "_s_x" in held and "_s_box" in held
    for other in (lambda s: None, lambda s: setattr(s, "x", 100)):
        have, want = _State(), _State()
        general, special = {}, {}
        exec(HELD, general)
        exec(held, special)
        assert special["play"](None, have, [], other) == general["play"](None, want, [], other)
        assert vars(have) == vars(want)


def test_the_state_queries_the_play_loop_trusts_only_read(spec):
    """held_in_locals keeps its locals across a call of a state method (ruleset.STATE_QUERIES):
    none of those methods sets a field of the state."""
    tree = ast.parse(inspect.getsource(state_module.State))
    methods = {f.name: f for f in tree.body[0].body if isinstance(f, ast.FunctionDef)}
    for name in ruleset_module.STATE_QUERIES - {"decide"}:
        stores = [n for n in ast.walk(methods[name]) if isinstance(n, ast.Attribute)
                  and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and n.value.id == "self"]
        assert not stores, name


KNOWN = """
def play(t, u, h, out):
    n = len(t)
    v = u
    if n > 0 and (n - v > 0 or h == 2) and n + 1 <= 6 and n + 1 <= h:
        out.append(1)
    if n == 0 and n + 1 <= 6 and n + 1 <= h:
        out.append(2)
    t.append(0)
    if len(t) > n:
        out.append(3)
    return out
"""


def test_tests_short_of_what_is_known_decide_as_before():
    """with_known_values: a value an assignment just computed is read from its local in the test
    after it, an integer known equal to a constant is that constant, and `x + 1 <= y` is
    `x < y`; a value changed since (the list grew) is computed again; the same results."""
    known = with_known_values(KNOWN, "play", {"n", "u", "v", "h"})
    assert "n - v" not in known and "n + 1" not in known and "len(t) > n" in known, known
    general, special = {}, {}
    exec(KNOWN, general)
    exec(known, special)
    for size in range(8):
        for u in range(-1, 8):
            for h in range(-1, 8):
                assert special["play"]([0] * size, u, h, []) == general["play"]([0] * size, u, h, [])


def test_the_step_of_a_player_count_is_written_once_for_every_run(spec, monkeypatch, tmp_path):
    """Writing the step of a player count takes long (a few ast passes): a later run takes it
    from the code cache (codecache.py), under a key of the generic step and this module."""
    monkeypatch.setenv("DURAK_CACHE_DIR", str(tmp_path / "code"))
    first = ruleset_module.Ruleset(spec, "podkidnoy", {}).step_source_for(3)

    def refused(*args):
        raise AssertionError("written again")
    monkeypatch.setattr(ruleset_module, "written_for", refused)
    assert ruleset_module.Ruleset(spec, "podkidnoy", {}).step_source_for(3) == first
    with pytest.raises(AssertionError):
        ruleset_module.Ruleset(spec, "podkidnoy", {}).step_source_for(4)


COPIES = """
def play(xs, out):
    a = xs[0]
    i = 0
    while i < len(xs):
        b = a
        c = a
        if b > 5:
            a = i
            i += 1
            continue
        out.append((b, c))
        a = c + 1
        out.append(c)
        i += 1
    return out
"""


def test_a_copy_is_read_as_its_original_only_where_they_agree():
    """copies_dropped: `b = a` goes where a is not bound again before b's reads (a bound in a
    branch that leaves the loop's body is not), and stays where it is (c, read after `a = ...`)."""
    dropped = copies_dropped(COPIES, "play")
    assert "b = a" not in dropped and "c = a" in dropped, dropped
    general, special = {}, {}
    exec(COPIES, general)
    exec(dropped, special)
    for xs in ([0, 1, 2], [7, 0, 0, 0], [5, 9], [9] * 6):
        assert special["play"](xs, []) == general["play"](xs, [])


PASSES = """
def step(s, a):
    k = a
    if k > 0 and k > 0:
        s.x = k


def play(s, g):
    if s.x > 0:
        s.y = s.x
    with g:
        pass
"""


@pytest.mark.parametrize("function", ["step", "play"])
def test_the_passes_handing_one_tree_on_write_what_each_handing_its_text_on_writes(function):
    """written_for hands one tree from pass to pass: it writes what the passes write handed each
    other's text, held_in_locals's refusal too (`with` in play, after it changed the `if`)."""
    src = PASSES if function == "play" else PASSES.replace("    with g:\n        pass\n", "")
    if function == "play":
        assert held_in_locals(src, "play") == src  # refused
    text = held_in_locals(specialised(src, 2, (0, 1), False), "play")
    for name in ("step", "play"):
        text = copies_dropped(with_known_values(text, name, {"k"}), name)
    assert written_for(src, 2, (0, 1), False, (), (), {"k"}) == text


def test_an_unrolled_seat_is_a_constant_and_folds_its_team():
    """Each copy of an unrolled loop over the seats reads the seat as a constant, so that a
    seat's team folds (`(0, 1, 0, 1)[seat]` is 0 or 1), unless the body binds the seat itself;
    a test left with constants that all pass keeps its last (an `or` of two falses is False,
    not an empty test)."""
    src = ("def f(s, out):\n    for seat in _SEATS[s.n]:\n        if s.team[seat] == s.team[0]:\n"
           "            out.append(seat)\n    for seat in _SEATS[s.n]:\n        seat = seat + 1\n"
           "        out.append(seat)\n    return s.team_play or s.n > 5\n")
    source = specialised(src, 4, (0, 1, 0, 1), True)
    assert "(0, 1, 0, 1)[" not in source and "out.append(2)" in source and "1 ==" not in source
    assert source.count("out.append(seat)") == 4 and "return s." not in source
    ns = {}
    exec(source, ns)
    assert ns["f"](_S(4, (0, 1, 0, 1), True), []) is True
    alone = specialised(src, 2, (0, 1), False)
    exec(alone, ns)
    assert ns["f"](_S(2, (0, 1), False), []) is False


HOIST = """
def f(s, hands, talon, stop):
    gone = []
    for seat in _SEATS[s.n]:
        if len(hands[seat]) == 0 and (len(talon) == 0 and seat != s.defender):
            gone.append(seat)
    kept = []
    for seat in _SEATS[s.n]:
        if len(hands[seat]) == 0 and len(talon) == 0:
            talon.append(seat)
            kept.append(seat)
    for seat in _SEATS[s.n]:
        if len(hands[seat]) > stop and len(talon[0:1]) == 0:
            kept.append(-seat)
    return gone, kept, seat
"""


def test_a_test_of_no_seat_in_an_unrolled_loop_is_tested_once_before_it():
    """An operand of an unrolled loop's `if` that reads neither the seat nor anything the body
    changes (the talon's length, for each seat's going out) is tested once, before the copies;
    not where the body changes what it reads (the body appends to the talon) or where it might
    fail (a slice); the seat the loop leaves behind is the same either way, and so are the
    results."""
    source = specialised(HOIST, 4, (0, 1, 2, 3), False)
    tree = ast.parse(source)
    first = tree.body[0].body[1]
    assert isinstance(first, ast.If) and ast.unparse(first.test) == "len(talon) == 0", source
    assert "len(talon) == 0" not in ast.unparse(first.body)
    assert source.count("len(talon) == 0") == 1 + 4  # the second loop's stay, seat by seat
    general, special = {"_SEATS": SEATS}, {"_SEATS": None}
    exec(HOIST, general)
    exec(source, special)
    s = type("S", (), {"n": 4, "defender": 1})()
    for hands in ([[1], [], [], [2]], [[], [], [1], []], [[1]] * 4):
        for talon in ([], [7]):
            for stop in (-1, 0):
                want = general["f"](s, hands, list(talon), stop)
                assert special["f"](s, hands, list(talon), stop) == want, (hands, talon, stop)


def test_an_unrolled_loop_sets_its_seat_once():
    """The copies of an unrolled loop read the seat as a constant: the seat is set once, to the
    last, as the loop leaves it; where a copy still reads it (the body binds it) it is set before
    each copy."""
    src = ("def f(s, out):\n    for seat in _SEATS[s.n]:\n        out.append(seat)\n"
           "    for seat in _SEATS[s.n]:\n        seat = seat + 1\n        out.append(seat)\n"
           "    return seat\n")
    source = specialised(src, 3, (0, 1, 2), False)
    assert "    seat = 2\n    out.append(0)\n    out.append(1)\n    out.append(2)\n" in source, source
    assert "seat = 0\n    seat = seat + 1" in source and "seat = 1\n    seat = seat + 1" in source
    general, special = {"_SEATS": SEATS}, {"_SEATS": None}
    exec(src, general)
    exec(source, special)
    assert special["f"](_S(3, (0, 1, 2), False), []) == general["f"](_S(3, (0, 1, 2), False), [])
