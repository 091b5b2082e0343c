"""conformance/protocol.py: the schema problems of an engine's answers, and their digests."""

from __future__ import annotations

import random

import pytest

from durak_spec.conformance.protocol import _plain_state, check_result, first_error
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import protocol_state


@pytest.fixture(scope="module")
def state(spec) -> dict:
    rs = spec.ruleset("podkidnoy")
    return protocol_state(Game(rs, Setup.deal(rs, 2, 0)).state)


def _digest(cmd: str, result) -> str:
    problem = check_result(cmd, result)
    assert problem, result
    return problem.digest


def _state_digest(state: dict, **changes) -> str:
    return _digest("state", {"state": {**state, **changes}})


HELLO = {"name": "x", "version": "1", "protocol": "1.1", "presets": ["podkidnoy"],
         "players": [2], "levels": ["verdicts"]}


def test_a_problem_s_digest_names_what_is_wrong_and_where_not_the_value(state):
    """One bug whatever the value it shows in: a hand size of 0 as false and of 1 as true, a seat
    above the maximum, a card's text out of its pattern, a word out of an enum (whose messages
    quote the value) have one digest each; the same problem in another field has another."""
    sizes = state["hand_sizes"]
    as_false = _state_digest(state, hand_sizes=[False] + sizes[1:])
    assert as_false == _state_digest(state, hand_sizes=[True] + sizes[1:]) \
        == _state_digest(state, hand_sizes=sizes[:-1] + [True])
    assert check_result("state", {"state": {**state, "hand_sizes": [False] + sizes[1:]}}) != \
        check_result("state", {"state": {**state, "hand_sizes": [True] + sizes[1:]}})
    taking = _state_digest(state, taking=1)
    assert taking == _state_digest(state, taking=0) != as_false
    seat = _state_digest(state, attacker=6)
    assert seat == _state_digest(state, attacker=9) != _state_digest(state, defender=6)
    assert seat != _state_digest(state, attacker=-1)  # below the minimum: another bound
    trump = _state_digest(state, trump="6s")
    assert trump == _state_digest(state, trump="zz") != _state_digest(state, hands=[["6s"], []])
    assert _state_digest(state, trump=6) != trump  # not a string at all: another problem
    levels = _digest("hello", {**HELLO, "levels": ["verdict"]})
    assert levels == _digest("hello", {**HELLO, "levels": ["states", "legal"]})
    assert levels != _digest("hello", {**HELLO, "action_kinds": ["shw"]})
    missing = _digest("hello", {k: v for k, v in HELLO.items() if k != "name"})
    assert missing != _digest("hello", {k: v for k, v in HELLO.items() if k != "version"})


def test_a_problem_s_digest_is_not_of_the_library_s_wording(state, monkeypatch):
    """The digest is the same however jsonschema words its message (CI installs the newest)."""
    import jsonschema.exceptions

    cases = [("state", {"state": {**state, "taking": 1}}),
             ("state", {"state": {**state, "trump": "6s"}}),
             ("hello", {**HELLO, "levels": ["verdict"]})]
    before = [_digest(cmd, r) for cmd, r in cases]
    best_match = jsonschema.exceptions.best_match

    def reworded(errors, *args, **kwargs):
        err = best_match(errors, *args, **kwargs)
        err.message = f"the library now says it otherwise: {random.random()}"
        return err

    monkeypatch.setattr(jsonschema.exceptions, "best_match", reworded)
    after = [_digest(cmd, r) for cmd, r in cases]
    assert all(p.startswith("the library now says") for p in
               (check_result(cmd, r) for cmd, r in cases))
    assert after == before


def test_the_quick_test_of_a_state_implies_its_schema(spec, state):
    """protocol._plain_state takes a state without the schema only where the schema takes it: a
    seat above its maximum, a card's text out of its pattern, a table card of another type or a
    list written as a string are out of protocol though their types look right."""
    for changes in [{"attacker": 6}, {"defender": -1}, {"fool": 7}, {"out": [6]},
                    {"trump": "6s"}, {"hands": [["6s"], []]}, {"table": [[5]]},
                    {"table": [["6S", "x"]]}, {"hands": ""}, {"redeal": 1}]:
        assert check_result("state", {"state": {**state, **changes}}), changes
    rs = spec.ruleset("podkidnoy")
    rng = random.Random(1)
    values = [0, 1, 5, 6, -1, True, False, None, 1.5, 6.0, "6S", "6s", "6D=H", "", [], {},
              ["6S"], ["x"], [None], [["6S", None]], [[5]], [["6S", "7S", "8S"]], [[]]]
    taken = 0
    for seed in range(3):
        g = Game(rs, Setup.deal(rs, 2, seed))
        while not g.is_terminal():
            view = protocol_state(g.state)
            for _ in range(10):
                other = {**view, rng.choice([*view, "redeal"]): rng.choice(values)}
                if _plain_state(other):
                    taken += 1
                    assert first_error("result-state", {"state": other}) is None, other
            g.apply_action(rng.choice(g.legal_actions()))
    assert taken > 100
