"""Engines written apart from the reference (conformance/examples/kitchen_table.py,
javascript/tavern.js, ledger_durak.py; bench/independent_engines.py measures their reports): each
clean twin passes check and fuzz with no failure, a buggy one's problems name the rules its bugs
break, and what they showed about the suite stays fixed (a legal-set witness of fuzz diagnosed by
the engine's legal set; a legal list out of the protocol's notation an error of the protocol)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from durak_spec.conformance.examples.ledger_durak import LedgerEngine
from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.problems import find_problems
from durak_spec.conformance.protocol import check_result
from durak_spec.conformance.runner import Session, house_rule_options
from durak_spec.conformance.transport import make_adapter

EXAMPLES = Path(__file__).resolve().parents[2] / "conformance" / "examples"
KITCHEN = f"cmd:{sys.executable} {EXAMPLES / 'kitchen_table.py'}"
LEDGER = "python:durak_spec.conformance.examples.ledger_durak:"
NODE = shutil.which("node")


def tavern() -> str:
    if NODE is None:
        if os.environ.get("DURAK_REQUIRE_NODE") == "1":
            pytest.fail("DURAK_REQUIRE_NODE=1 but node is missing (apt-get install nodejs)")
        pytest.skip("SKIPPED LOUDLY: node is missing; CI installs it (.ci/run)")
    return f"cmd:{NODE} {EXAMPLES / 'javascript' / 'tavern.js'}"


CLEAN = {"kitchen_table": lambda: KITCHEN, "tavern": tavern, "ledger": lambda: LEDGER + "LedgerEngine"}


@pytest.mark.parametrize("engine", sorted(CLEAN))
def test_each_clean_twin_passes_check_with_no_failure(engine, check):
    run = check("--adapter", CLEAN[engine](), "--variant", "podkidnoy")
    summary = run.report["summary"]
    assert summary["fail"] == summary["error"] == 0, run.output
    assert summary["pass"] > 100
    assert run.report["problems"] == []


@pytest.mark.parametrize("engine", sorted(CLEAN))
def test_each_clean_twin_passes_fuzzing_at_two_and_four_players(engine, spec, tmp_path):
    adapter = make_adapter(CLEAN[engine](), spec=spec)
    hello = adapter.open()
    try:  # under the house rules it declares, as durak fuzz plays them
        res = fuzz(spec, adapter, hello, preset="podkidnoy", players=[2, 4], games=30,
                   options=house_rule_options(spec, hello, "podkidnoy", 2, {}),
                   seed_value=1, out_dir=tmp_path)
    finally:
        adapter.close()
    assert res.games == 30
    assert res.entries == []


def test_the_buggy_ledgers_problems_name_the_three_rules_it_breaks(check):
    run = check("--adapter", LEDGER + "BuggyLedgerEngine", "--variant", "podkidnoy",
                "--case", "defence/take_all_beaten", "--case", "end/simultaneous_draw",
                "--case", "golden/podkidnoy/5p_seed1")
    problems = {p["rule"]: p["advice"] for p in run.report["problems"]}
    assert problems == {"defence.take": None, "throw_in.order": None,
                        "end.fool": {"simultaneous_finish": "last_defender_loses"}}


def test_fuzz_diagnoses_a_legal_set_witness_by_what_the_engine_listed(spec, tmp_path):
    """kitchen_table --bug cover-first lists no cover of a later unbeaten card: the witness's
    diagnosis compares the engine's legal set, and names the rule (it once compared the
    reference's own, and said no rule of the reference decides the difference)."""
    adapter = make_adapter(KITCHEN + " --bug cover-first", spec=spec)
    hello = adapter.open()
    try:
        res = fuzz(spec, adapter, hello, preset="podkidnoy", players=[2], games=20,
                   seed_value=1, out_dir=tmp_path)
    finally:
        adapter.close()
    missing = [e for e in res.entries if e.witness.kind == "legal-missing"]
    assert missing and {e.witness.rule for e in missing} == {"defence.target"}
    assert all("defence.target" in e.witness.diagnosis for e in missing)


class SeatLastEngine(LedgerEngine):
    """Lists its moves as "attack 0 6S": its own words, out of the protocol's notation."""

    def legal(self) -> dict:
        return {"actions": [" ".join([a.split()[1], a.split()[0], *a.split()[2:]])
                            for a in super().legal()["actions"]]}


def test_a_legal_list_out_of_the_notation_is_an_error_of_the_protocol(spec):
    assert check_result("legal", {"actions": ["0 attack 6S", "1  cover 6S with 7S"]}) is None
    assert check_result("legal", {"actions": ["attack 0 6S"]}) is not None
    assert check_result("step", {"steps": [{"accepted": True, "legal": ["0 pass"]}]}) is None
    session = Session(spec, make_adapter(f"python:{__name__}:SeatLastEngine", spec=spec),
                      check_cases=False)
    session.open()
    try:
        case = next(c for c in session_cases(spec) if c.id == "attack/not_main_attacker")
        res = session.run_case(case, "podkidnoy")
    finally:
        session.close()
    assert res.status == "error"
    assert "actions/" in res.message
    # the result object is there; only an action's text is wrong: no hint about its shape
    assert "returns the protocol's result object" not in res.message
    problems = find_problems([res])
    assert [p["kind"] for p in problems] == ["error"]


def session_cases(spec):
    from durak_spec.conformance.cases import load_suite
    return load_suite(spec).cases


def test_advice_is_refuted_by_the_cases_skipped_for_that_very_value(check):
    """kitchen_table --bug seven-cards accepts a seventh attack card and refuses an eighth: the
    failing runs alone do not tell max_attack_cards = 7 from no cap, and the case with an eighth
    card (podkidnoy_no_cap) is skipped under the cap of six the engine is sent; played under
    each advice considered (Session.plays_as), it refutes no cap."""
    run = check("--adapter", KITCHEN + " --bug seven-cards", "--case", "limits/cap_six_players",
                "--case", "limits/no_cap_seventh_card")
    assert [(p["rule"], p["advice"]) for p in run.report["problems"]] == \
        [("limits.cap", {"max_attack_cards": 7})]


def test_check_catches_a_draw_in_join_order_under_one_done_and_refutes_counterclockwise(check):
    """tavern (free_for_all, done_by main_attacker) skips the draw-order cases whose scripts
    pass for each attacker: a five-player case under its own house rules catches its draw in
    the order attackers joined, and no advice of counterclockwise hides it."""
    run = check("--adapter", tavern() + " --bug join-order-draw", "--case", "draw/*")
    assert [(p["rule"], p["advice"]) for p in run.report["problems"]] == [("draw.order", None)]
