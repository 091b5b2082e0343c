"""The reference engine's combined request (conformance/engine.py, protocol 1.1 `step`): its
answer is what apply, state and legal answer asked one by one, and an engine made from it that
answers apply or legal otherwise (the mutants, the broken engines) is answered through its own
methods."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
import yaml

from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import action_text


def _texts(rs, setup: Setup, seed: int) -> list:
    """A random game's actions as text, with an action the reference refuses now and then and
    a text no action has."""
    g, rng, out = Game(rs, setup), random.Random(seed), []
    while not g.is_terminal() and len(out) < 150:
        if rng.random() < 0.15:
            refused = [a for a in (g.parse_action(f"{seat} take") for seat in range(setup.players))
                       if a not in g.legal_actions()]
            out += [action_text(a) for a in refused[:1]] + ["0 attack ZZ"]
        a = rng.choice(g.legal_actions())
        out.append(action_text(a))
        g.apply_action(a)
    return out


def _one_by_one(engine, texts: list) -> list:
    out = []
    for text in texts:
        verdict = engine.apply(text)
        if verdict["accepted"]:
            verdict["state"] = engine.state()["state"]
            verdict["legal"] = engine.legal()["actions"]
        out.append(verdict)
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_a_step_answers_what_apply_state_and_legal_answer_one_by_one(spec, players):
    rs = spec.ruleset("perevodnoy")
    variant = {"preset": "perevodnoy", "options": dict(rs.options)}
    for seed in range(4):
        setup = Setup.deal(rs, players, seed)
        texts = _texts(rs, setup, seed)
        combined, single = ReferenceEngine(spec), ReferenceEngine(spec)
        combined.start(variant, setup.to_json())
        single.start(variant, setup.to_json())
        want = _one_by_one(single, texts)
        assert any(not v["accepted"] for v in want) and any(v["accepted"] for v in want)
        assert combined.step(texts, True, True)["steps"] == want
        combined.start(variant, setup.to_json())
        assert combined.step(texts, False, False)["steps"] == \
            [{k: v for k, v in e.items() if k not in ("state", "legal")} for e in want]


class _NoTake(ReferenceEngine):
    """Refuses every take and lists none."""

    def apply(self, action):
        if isinstance(action, str) and action.endswith(" take"):
            return {"accepted": False, "reason": "this engine never takes"}
        return super().apply(action)

    def legal(self):
        return {"actions": [a for a in super().legal()["actions"] if not a.endswith(" take")]}


def test_a_step_goes_through_the_apply_and_legal_of_an_engine_made_from_the_reference(spec):
    rs = spec.ruleset("podkidnoy")
    variant = {"preset": "podkidnoy", "options": dict(rs.options)}
    setup = Setup.deal(rs, 2, 3)
    texts = _texts(rs, setup, 3)
    engine = _NoTake(spec)
    engine.start(variant, setup.to_json())
    steps = engine.step(texts, True, True)["steps"]
    takes = [e for t, e in zip(texts, steps) if t.endswith(" take")]
    assert takes and all(e == {"accepted": False, "reason": "this engine never takes"}
                         for e in takes)
    assert all(not a.endswith(" take") for e in steps for a in e.get("legal", []))
    engine.start(variant, setup.to_json())
    assert steps == _one_by_one(engine, texts)


class _OverWithSeatNames(ReferenceEngine):
    """Once the game is over, names its roles by words: out of protocol, though no rule decides
    the roles then (the fuzzer compares them no more)."""

    def step(self, actions, state=True, legal=True):
        out = super().step(actions, state, legal)
        for entry in out["steps"]:
            if entry.get("state", {}).get("finished"):
                entry["state"]["attacker"] = "seat zero"
        return out


def _fuzzed(spec, tmp_path, engine, name: str):
    """Three two-player podkidnoy games of durak fuzz against `engine(spec)` in process, its
    answers not held to a subprocess's bounds (adapter.checked): the lockstep judges them."""
    from durak_spec.conformance.fuzz import fuzz
    from durak_spec.conformance.transport import PythonAdapter

    adapter = PythonAdapter(lambda: engine(spec), name)
    adapter.checked = False
    hello = adapter.open()
    try:
        return fuzz(spec, adapter, hello, preset="podkidnoy", players=2, games=3,
                    out_dir=tmp_path, adapter_name=name, shrink=False, diagnosis=0)
    finally:
        adapter.close()


def test_a_finished_state_out_of_protocol_only_in_its_roles_is_reported_by_the_fuzzer(spec,
                                                                                      tmp_path):
    res = _fuzzed(spec, tmp_path, _OverWithSeatNames, "seat names")
    assert res.entries and {e.signature.split("#")[0] for e in res.entries} == \
        {"error state-protocol"}
    assert sum(e.count for e in res.entries) == res.games == 3  # at the end of every game


def test_reference_engines_share_what_texts_mean_for_a_deck_and_its_seats(spec):
    """An engine started afresh (a campaign's, a restart's) finds the texts of the actions another
    one listed, and the actions of the texts it applied, known: per deck and player count."""
    rs = spec.ruleset("podkidnoy")
    variant = {"preset": "podkidnoy", "options": dict(rs.options)}
    first, again, other = ReferenceEngine(spec), ReferenceEngine(spec), ReferenceEngine(spec)
    first.start(variant, Setup.deal(rs, 2, 1).to_json())
    listed = first.legal()["actions"]
    again.start(variant, Setup.deal(rs, 2, 2).to_json())
    other.start(variant, Setup.deal(rs, 3, 2).to_json())
    assert again._texts is first._texts and again._moves is first._moves
    assert other._texts is not first._texts
    assert all(t in again._moves for t in listed)


@pytest.mark.parametrize("steps", [[], [{"accepted": True}, {"accepted": False, "rule": "x"}],
                                   [{"accepted": 1}], [{"accepted": True}, []], [{"state": {}}],
                                   [{"accepted": None}], "steps"])
def test_the_quick_check_of_a_step_answer_says_what_its_schema_says(steps):
    """protocol.check_result's quick test of a step answer (the types of its entries and their
    verdicts) passes only answers the schema passes, and leaves the others to the schema."""
    from durak_spec.conformance.protocol import check_result, first_error

    answer = {"steps": steps}
    assert (check_result("step", answer) is None) == (first_error("result-step", answer) is None)


class _StartOutOfProtocol(ReferenceEngine):
    """Answers state or legal (`bad`) at the start of a game out of protocol, otherwise as the
    reference does."""

    bad = "state"

    def state(self):
        out = super().state()
        if self.bad == "state" and not self.game.state.steps:
            out["state"]["talon_count"] = str(out["state"]["talon_count"])
        if self.bad == "state-int" and not self.game.state.steps:  # 0 for false: equal in Python
            out["state"]["taking"] = int(out["state"]["taking"])
        return out

    def legal(self):
        out = super().legal()
        if self.bad == "legal" and not self.game.state.steps:
            out["actions"] = out["actions"] + [7]
        return out


@pytest.mark.parametrize("bad", ["state", "state-int", "legal"])
def test_a_start_answer_out_of_protocol_is_reported_though_the_reference_s_are_taken_unchecked(
        spec, tmp_path, bad):
    """Lockstep._start takes a legal list that is the reference's own texts unchecked (valid by
    construction): one out of protocol is still reported as such, at every game; so is a state
    that Python finds equal to the reference's (0 for false) but the protocol does not."""
    res = _fuzzed(spec, tmp_path, type("Bad", (_StartOutOfProtocol,), {"bad": bad}), "bad start")
    cmd = bad.split("-")[0]
    assert {e.signature.split("#")[0] for e in res.entries} == {f"error {cmd}-protocol"}
    assert sum(e.count for e in res.entries) == 3
    assert all(e.witness.message.startswith(f"the engine's answer to {cmd} at the start is out "
                                            "of protocol") for e in res.entries)


LOOSE = Path(__file__).resolve().parent / "loose_numbers.py"


def _fuzz_cli(tmp_path, adapter: str, *more) -> tuple:
    """`durak fuzz` of three two-player podkidnoy games against `adapter`: its exit code, the
    signatures it reports (their digests of the message aside) and the report's divergences."""
    from click.testing import CliRunner

    from durak_spec.tools.cli import cli

    report = tmp_path / "report.json"
    run = CliRunner().invoke(cli, ["fuzz", "--adapter", adapter, "--games", "3", "--players", "2",
                                   "--out", str(tmp_path / "out"), "--report", str(report),
                                   "--no-shrink", "-q", *more])
    assert "Traceback" not in run.output, run.output
    found = json.loads(report.read_text())["fuzz"][0]["divergences"]
    return run.exit_code, {d["signature"].split("#")[0] for d in found}, found


def _loose(mode: str, how: str) -> list:
    if how == "cmd":
        return [f"cmd:{sys.executable} {LOOSE} {mode}"]
    return [f"python:loose_numbers:{mode.title().replace('-', '')}"]


# The bugs of each engine of loose_numbers.py out of protocol: one divergence each, wherever it
# showed (not one per action it showed after) and whatever the value (a hand size of 0 as false
# and one of 1 as true are one bug; so are "taking" 0 and 1, an attacker of 6 and of 7, and every
# trump card's text in lower case); "taking" as 1 and a hand size as false are two
BUGS = {"taking-int": 1, "finished-int": 1, "taking-float": 1, "sizes-bool": 1, "seat-range": 1,
        "trump-lower": 1, "taking-sizes": 2}


@pytest.mark.parametrize("how", ["python", "cmd"])
@pytest.mark.parametrize("mode", sorted(BUGS))
def test_a_state_python_finds_equal_to_the_reference_s_but_the_protocol_does_not_is_reported(
        tmp_path, monkeypatch, mode, how):
    """At every step after the start (issue 26 item 3): an engine answering "taking": 0 for
    false, "finished": 0, 1.0 for true or a hand size of 1 as true is out of protocol, as the
    state at the start or durak check says, though Python finds it equal to the reference's;
    so is one that writes a seat above the schema's maximum or a card's text in lower case."""
    monkeypatch.syspath_prepend(str(LOOSE.parent))
    code, signatures, found = _fuzz_cli(tmp_path, *_loose(mode, how))
    assert (code, signatures) == (1, {"error state-protocol"})
    assert len(found) == BUGS[mode], [d["message"] for d in found]
    if mode == "taking-sizes":  # one divergence in each field
        assert sorted("taking" in d["message"] for d in found) == [False, True]
    # (the last state of a game is held to the protocol whatever it equals: it shows roles the
    # reference's no longer compares) some witnesses end in a game not over
    ends = [yaml.safe_load(Path(d["case_path"]).read_text())["steps"][-1]["state"]["finished"]
            for d in found]
    assert False in ends


@pytest.mark.parametrize("how", ["python", "cmd"])
def test_a_state_with_a_hand_size_of_six_as_6_0_is_taken_as_the_protocol_s_schema_takes_it(
        spec, tmp_path, monkeypatch, how):
    """JSON Schema's integer is a number without a fraction: 6.0 for 6 is in protocol (durak check
    holds a state to the same schema), so the fuzzer reports nothing; a check of the types alone
    would call every such step out of protocol."""
    from durak_spec.conformance.protocol import check_result
    from durak_spec.reference_impl.notation import protocol_state

    rs = spec.ruleset("podkidnoy")
    state = protocol_state(Game(rs, Setup.deal(rs, 2, 0)).state)
    state["hand_sizes"] = [float(n) for n in state["hand_sizes"]]
    assert check_result("state", {"state": state}) is None
    monkeypatch.syspath_prepend(str(LOOSE.parent))
    assert _fuzz_cli(tmp_path, *_loose("sizes-float", how))[:2] == (0, set())


