"""durak fuzz beyond the causes it found (Campaign.beyond): one bug that shows in most bouts must
not hide another. An engine that throws in only the ranks of attack cards ends bouts early in
most games, so lockstep play parts from it long before a bug that shows later in a deal; once the
run has confirmed that it plays as if throw_in_match = rank_attack_cards_only, more games are
played with the reference so, and what the engine still does otherwise is shown again under the
variant itself, each with a case of its own."""

from __future__ import annotations

import pytest
from conformance_support import ANSWER_TIMEOUT

from durak_spec.conformance import fuzz as fuzz_module
from durak_spec.conformance.fuzz import check_case, flat, fuzz, results_of
from durak_spec.conformance.problems import find_problems
from durak_spec.conformance.transport import make_adapter

MUTANTS = "python:durak_spec.conformance.examples.mutants:"
TWO_BUGS = MUTANTS + "throw_in_attack_ranks+no_hand_bound"
GAMES = 100  # at 4 players, seed 1: the campaign's own games never reach the hand bound's bug


def _campaign(spec, name, tmp_path, games=GAMES, **kw):
    adapter = make_adapter(name, spec=spec, timeout=ANSWER_TIMEOUT)
    hello = adapter.open()
    try:
        return fuzz(spec, adapter, hello, preset="podkidnoy", players=[4], games=games,
                    seed_value=1, out_dir=tmp_path, adapter_name=name, **kw)
    finally:
        adapter.close()


def _rules(res) -> set:
    return {e.witness.rule for e in flat(res.entries)}


def _verdict(spec, name, case) -> str:
    adapter = make_adapter(name, spec=spec, timeout=ANSWER_TIMEOUT)
    hello = adapter.open()
    try:
        return check_case(spec, adapter, hello, case, "podkidnoy").status
    finally:
        adapter.close()


@pytest.fixture(scope="module")
def two_bugs(spec, tmp_path_factory):
    return _campaign(spec, TWO_BUGS, tmp_path_factory.mktemp("beyond"))


def test_a_bug_the_first_hides_is_found_beyond_it_with_a_case_under_the_variant(spec, two_bugs):
    res = two_bugs
    assert res.beyond_games == GAMES // fuzz_module.BEYOND_SHARE
    assert res.beyond_as == {"throw_in_match": "rank_attack_cards_only"}
    found = [e for e in flat(res.entries) if e.witness.rule == "limits.hand_at_start"]
    assert found and all(e.beyond == res.beyond_as for e in found)
    root = next(e for e in found if not e.follows_from)
    # its case is under podkidnoy itself: the engine with both bugs and the one with the hand
    # bound's alone fail it; the reference and the engine with the throw-in bug alone pass it
    assert _verdict(spec, TWO_BUGS, root.case) == "fail"
    assert _verdict(spec, MUTANTS + "no_hand_bound", root.case) == "fail"
    assert _verdict(spec, MUTANTS + "throw_in_attack_ranks", root.case) == "pass"
    assert _verdict(spec, "reference", root.case) == "pass"


def test_without_the_games_beyond_the_second_bug_is_not_found(spec, tmp_path, monkeypatch):
    monkeypatch.setattr(fuzz_module, "BEYOND_SHARE", 10**9)
    res = _campaign(spec, TWO_BUGS, tmp_path)
    assert res.beyond_games == 0
    assert "throw_in.rank" in _rules(res) and "limits.hand_at_start" not in _rules(res)


def test_where_two_causes_meet_it_is_their_consequence_not_a_third_problem(spec, two_bugs,
                                                                           tmp_path, monkeypatch):
    """From one position the engine with both bugs accepts a pass that neither bug alone does:
    played again with the reference as both explain it, it no longer shows, and the report has
    two problems for the two bugs."""
    together = [e for e in flat(two_bugs.entries) if e.together]
    assert together and all(e.beyond for e in together)
    assert all({"limits.hand_at_start", "throw_in.rank"} <= {s.split()[1] for s in e.follows}
               for e in together)
    problems = find_problems(results_of(two_bugs, "podkidnoy", TWO_BUGS))
    assert sorted(p["rule"] for p in problems) == ["limits.hand_at_start", "throw_in.rank"]
    monkeypatch.setattr(fuzz_module.Campaign, "settle_beyond", lambda self, new, entries: None)
    unsettled = _campaign(spec, TWO_BUGS, tmp_path)
    assert len(find_problems(results_of(unsettled, "podkidnoy", TWO_BUGS))) > 2


def test_an_engine_with_one_house_rule_gets_nothing_beyond_it(spec, tmp_path):
    res = _campaign(spec, MUTANTS + "throw_in_attack_ranks", tmp_path, games=40)
    assert res.beyond_games == 20 and res.beyond_as == {"throw_in_match": "rank_attack_cards_only"}
    assert not any(e.beyond for e in flat(res.entries))


def test_a_variant_the_reference_cannot_play_stops_the_games_beyond_and_says_so(
        spec, tmp_path, monkeypatch):
    played = fuzz_module.Campaign._occurrences

    def deadlocks(self, setup_json, steps, rng=None, limit=None, ruleset=None, sent=None):
        if ruleset is not None and steps is None and sent is None:  # a game beyond
            raise RuntimeError("interpreter deadlock: nobody can act")
        return played(self, setup_json, steps, rng, limit, ruleset, sent)
    monkeypatch.setattr(fuzz_module.Campaign, "_occurrences", deadlocks)
    res = _campaign(spec, TWO_BUGS, tmp_path, games=20)
    assert res.beyond_games == 0 and "interpreter deadlock" in res.beyond_stopped
    assert "throw_in.rank" in _rules(res)


@pytest.mark.parametrize("where", ["shrink", "_under_variant"])
def test_stopped_while_shrinking_or_looking_beyond_the_finds_are_reported(spec, tmp_path,
                                                                          monkeypatch, where):
    """Ctrl-C (or SIGTERM) after the games, while a divergence is shrunk or the games beyond
    run: the campaign stops there and reports what it found, each with its case, as when it is
    stopped during its games; nothing found is lost."""
    def stop(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(fuzz_module.Campaign, where, stop)
    res = _campaign(spec, TWO_BUGS, tmp_path, games=20, diagnosis=30 if where != "shrink" else 0)
    assert res.interrupted and "throw_in.rank" in _rules(res)
    assert all(e.case_path is not None and e.case_path.exists() for e in flat(res.entries))
    if where == "_under_variant":
        assert res.beyond_stopped == "interrupted"
