"""durak fuzz: campaigns collect every distinct divergence of an engine (each under its own rule),
shrink each to a short case that the case schema accepts and `durak check` replays, and say which
legality clauses they exercised."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from conformance_support import ANSWER_TIMEOUT

from durak_spec.conformance.cases import HERE, load_suite
from durak_spec.conformance.coverage import summary
from durak_spec.conformance.examples.mutants import MUTANTS
from durak_spec.conformance.fuzz import _agrees, _deal_of, flat, fuzz
from durak_spec.conformance.lockstep import Lockstep, observations, text_of
from durak_spec.conformance.problems import advice_message
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.tools.cli import cli

EXAMPLES = "durak_spec.conformance.examples"
BROKEN = [
    ("broken_no_cap:NoAttackCap", "podkidnoy", "limits.cap", [4]),
    ("broken_beat:BeatAnySuit", "podkidnoy", "defence.beat", [2]),
    ("broken_draw_order:DefenderDrawsFirst", "podkidnoy", "draw.order", [2]),
    ("broken_throw_in_rank:ThrowInAnyRank", "podkidnoy", "throw_in.rank", [2]),
    ("broken_transfer_capacity:TransferIgnoresCapacity", "perevodnoy", "transfer.capacity", [2]),
]


def _fuzz(spec, name, preset, tmp_path, games, players=(2,), hello_change=None, **kw):
    adapter = make_adapter(name, spec=spec, timeout=ANSWER_TIMEOUT)
    hello = adapter.open()
    if hello_change:
        hello = {**hello, **hello_change}
        adapter.combined = hello.get("step") is True
        adapter.delta = hello.get("delta") is True
    kw.setdefault("diagnosis", 0)
    try:
        return fuzz(spec, adapter, hello, preset=preset, players=list(players), games=games,
                    out_dir=tmp_path, adapter_name=name, **kw)
    finally:
        adapter.close()


def _replays(spec, name, tmp_path, rule):
    """Every written case of `rule` fails on the engine and passes on the reference."""
    suite = load_suite(spec, tmp_path)
    assert suite.cases and not suite.broken, suite.broken
    runner = CliRunner()
    for case in [c for c in suite.cases if rule in c.rules]:
        on_engine = runner.invoke(cli, ["check", "--adapter", name, "--cases-dir", str(tmp_path),
                                        "--case", case.id, "-q"])
        on_reference = runner.invoke(cli, ["check", "--cases-dir", str(tmp_path), "--case",
                                           case.id, "-q"])
        assert on_engine.exit_code == 1 and "1 fail" in on_engine.output, (case.id, on_engine.output)
        assert on_reference.exit_code == 0 and "1 pass" in on_reference.output, case.id


def _divergences_from(spec, name, setup, fixed):
    """The divergences one podkidnoy lockstep game of engine `name` reports from the position
    `setup` (JSON), its first actions `fixed`."""
    adapter = make_adapter(name, spec=spec)
    found = []
    lock = Lockstep(spec, adapter, adapter.open(), "podkidnoy", {}, found.append)
    try:
        rs = lock.ruleset
        lock.play(Setup.from_json(setup, rs.deck, rs.player_limits), random.Random(0), fixed=fixed)
    finally:
        adapter.close()
    return found


def test_the_reference_never_diverges_from_itself(spec, tmp_path):
    result = _fuzz(spec, "reference", "perevodnoy", tmp_path, games=30, players=(2, 3, 5))
    assert not result.entries and result.games == 30 and result.steps > 1000
    done, total, _ = summary(result.coverage)
    assert total > 20 and done > total // 2


@pytest.mark.parametrize("engine,preset,rule,players", BROKEN, ids=[b[2] for b in BROKEN])
def test_each_broken_engine_is_found_under_its_rule_with_a_short_case(spec, tmp_path, engine,
                                                                      preset, rule, players):
    name = f"python:{EXAMPLES}.{engine}"
    result = _fuzz(spec, name, preset, tmp_path, games=60, players=players)
    rules = {e.witness.rule for e in result.entries}
    assert rule in rules, f"{engine}: {[e.signature for e in result.entries]}"
    # each shrunk case starts from a position just before the divergence (the engine declares
    # positions), and replays on the engine but not on the reference
    lengths = sorted(e.witness.length for e in result.entries)
    assert lengths[len(lengths) // 2] <= 1 and lengths[-1] <= 8, \
        [(e.signature, e.witness.length) for e in result.entries]
    if rule in ("defence.beat", "limits.cap"):
        _replays(spec, name, tmp_path, rule)


@pytest.mark.parametrize("mutants,players", [
    # Known regression (ledger, strict): since d228d22 an engine listing no cover when the earliest
    # unbeaten card is a trump it cannot beat is charged to defence.target as well, a collateral
    # entry seen before any other: diagnose must tell it from an engine held to the earliest card.
    (("trump_beats_only_trump", "pile_on_any_time"), (2, 4)),
    (("first_attacker_highest_trump", "take_when_all_beaten", "throw_in_attack_ranks"), (2, 4)),
], ids=["two broken rules", "three broken rules"])
def test_one_campaign_reports_every_bug_of_an_engine(spec, tmp_path, mutants, players):
    """A divergence does not end the campaign or hide the others: every broken rule of an engine
    made of several single-rule mutants is reported, each under its own rule, at 2 and 4 players
    (bench/fuzz_campaigns.py runs the full 1,000-game campaigns)."""
    name = f"python:{EXAMPLES}.mutants:{'+'.join(mutants)}"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=60, players=players, diagnosis=0)
    rules = {e.witness.rule for e in result.entries}
    broken = {MUTANTS[m].breaks for m in mutants}
    sigs = [e.signature for e in result.entries]
    assert broken <= rules, sigs
    # every entry is named by the rule the attribution computes: no collateral signatures (at most
    # one, seen only after the others), one entry per kind and rule, never an unnamed rule
    assert len(rules - broken) <= 1 and all(e.after for e in result.entries
                                            if e.witness.rule not in broken), sigs
    assert len(set(sigs)) == len(sigs) and all(e.witness.rule for e in result.entries), sigs
    assert sum(e.count for e in result.entries) > len(result.entries)  # counted, not repeated


def test_a_divergence_follows_an_earlier_one_only_when_accepting_that_one_makes_it_disappear(
        spec, tmp_path):
    """Co-occurrence is no consequence. A trump that beats no plain card shows in nearly every
    bout, so the other bug's refusals (a player who passed may still add) come after it; replayed
    with its differences taken as agreed they still show: not its consequence. A cover the engine
    left out of its list and then refuses is gone once that list is accepted: its consequence."""
    name = f"python:{EXAMPLES}.mutants:passed_player_adds+trump_beats_only_trump"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=15, players=(3,), shrink=False,
                   seed_value=1)
    every = flat(result.entries)
    by_sig = {e.signature: e for e in every}
    refused = by_sig["verdict-rejects defence.beat"]
    assert refused.follows == ["legal-missing defence.beat"], refused.after
    independent = [e for e in every if "legal-missing defence.beat" in e.after | e.witness.after
                   and e.witness.rule != "defence.beat"]
    assert independent, [(e.signature, e.after) for e in every]
    assert all("legal-missing defence.beat" not in e.follows for e in independent), \
        [(e.signature, e.follows) for e in independent]
    assert all(set(e.follows) <= e.after | e.witness.after for e in every)
    # the replay itself: with the covers it left out taken as agreed, the engine's list is the
    # reference's there, and the refusal at the end is agreed too
    adapter = make_adapter(name, spec=spec)
    found = []
    lock = Lockstep(spec, adapter, adapter.open(), "podkidnoy", {}, found.append)
    w = refused.witness
    rs = lock.ruleset
    try:
        for agreed in (None, "the covers"):
            if agreed:
                lock.agreed = (frozenset(), frozenset(t for d in found if d.kind == "legal-missing"
                                                      for t in d.texts))
                found.clear()
            lock.play(Setup.from_json(w.setup, rs.deck, rs.player_limits), random.Random(0),
                      fixed=[s["do"] for s in w.steps])
            shown = {d.signature for d in found}
            assert "legal-missing defence.beat" in shown and refused.signature in shown \
                if agreed is None else not shown & {"legal-missing defence.beat", refused.signature}
    finally:
        adapter.close()


def test_a_consequence_is_tried_on_what_came_before_its_own_witness(spec, tmp_path):
    """The candidates of a consequence are the signatures seen before every occurrence of it, and
    those seen before its witness: a refusal seen once at the start of a game, with nothing
    before it, was never tried against the covers its witness left out of the list first."""
    from durak_spec.conformance.fuzz import Campaign, Entry
    name = f"python:{EXAMPLES}.mutants:passed_player_adds+trump_beats_only_trump"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=15, players=(3,), shrink=False,
                   seed_value=1)
    refused = {e.signature: e for e in flat(result.entries)}["verdict-rejects defence.beat"]
    assert "legal-missing defence.beat" in refused.witness.after
    adapter = make_adapter(name, spec=spec)
    try:
        camp = Campaign(spec, adapter, adapter.open(), preset="podkidnoy", options={}, players=[3],
                        seed_value=1, adapter_name=name, known={}, db=None, db_key=b"")
        alone = Entry(refused.witness, after=set())  # an occurrence elsewhere had none before it
        camp.settle_follows(alone)
    finally:
        adapter.close()
    assert alone.follows == ["legal-missing defence.beat"]


def test_a_confirmed_consequence_is_its_causes_problem():
    """A refusal named by another rule that replaying shows to follow from a bug (a passed
    player's card refused, limits.hand_at_start, after the engine left that player's card out of
    its list, throw_in.not_passed) is counted in that bug's problem, and says why."""
    from durak_spec.conformance.fuzz import Entry, FuzzResult, results_of
    from durak_spec.conformance.lockstep import Divergence
    from durak_spec.conformance.problems import find_problems

    def entry(kind, rule, follows=()):
        div = Divergence(kind, rule, "throw", "2 throw 9S", ["2 throw 9S"] if "missing" in kind
                         else "accepted", [] if "missing" in kind else "rejected", "a difference",
                         {}, [{"do": "2 throw 9S", "expect": "accept"}], 3)
        return Entry(div, count=3, follows_from=list(follows), after=set(follows))

    cause = entry("legal-missing", "throw_in.not_passed")
    later = entry("verdict-rejects", "limits.hand_at_start", ["legal-missing throw_in.not_passed"])
    alone = entry("verdict-rejects", "limits.hand_at_start")
    records = results_of(FuzzResult(entries=[cause, later]), "podkidnoy", "engine")
    assert [r.rule for r in records] == ["throw_in.not_passed"] * 2
    assert "probably a consequence of legal-missing throw_in.not_passed" in records[1].message
    assert records[1].description == "verdict-rejects limits.hand_at_start"
    problems = find_problems(records)
    assert len(problems) == 1 and problems[0]["count"] == 6, problems
    records = results_of(FuzzResult(entries=[cause, alone]), "podkidnoy", "engine")
    assert {p["rule"] for p in find_problems(records)} == {"throw_in.not_passed", "limits.hand_at_start"}


def test_a_legal_set_witness_is_diagnosed_by_its_own_differences(spec, tmp_path):
    """A legal set in which the engine adds a card too early (pile_on_any_time) and leaves out the
    covers by a trump (trump_beats_only_trump) is two divergences: the first is diagnosed on the
    early card alone. Diagnosed on the whole set, `spades_only_by_spades and pile_on = any_time`
    explained both, the divergence took the rule that reads the first option (defence.beat), the
    run refuted that advice, and throw_in.timing was no divergence's rule."""
    name = f"python:{EXAMPLES}.mutants:trump_beats_only_trump+pile_on_any_time"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=4, players=(2,), seed_value=1,
                   diagnosis=5.0)
    extra = [e for e in result.entries if e.witness.kind == "legal-extra"]
    assert extra and {e.witness.rule for e in extra} == {"throw_in.timing"}, \
        [(e.signature, e.as_if, e.witness.message) for e in extra]
    assert all("spades_only_by_spades" not in change for e in extra for change in e.as_if)
    # its record shows the part of the legal sets it is about: the engine allows, no more
    from durak_spec.conformance.fuzz import results_of
    from durak_spec.conformance.problems import find_problems
    records = results_of(result, "podkidnoy", name)
    timing = [r for r in records if r.description == "legal-extra throw_in.timing"]
    assert timing and not any(" cover " in t for r in timing for t in r.want + r.have)
    assert [p["kind"] for p in find_problems(records) if p["rule"] == "throw_in.timing"] == ["allows"]


def test_divergences_renamed_by_their_diagnosis_stand_once_under_their_signature():
    """A legal set the campaign charged to throw_in.order that throw_in_match explains becomes
    throw_in.rank's (first_attacker_highest_trump+take_when_all_beaten+throw_in_attack_ranks at 4
    players, durak fuzz --games 200 --seed 1: `legal-extra throw_in.rank` and `legal-missing
    throw_in.rank` each stood twice)."""
    from durak_spec.conformance.fuzz import Entry, merge_renamed
    from durak_spec.conformance.lockstep import Divergence

    def entry(rule, steps, count, first_game):
        div = Divergence("legal-extra", rule, "throw", "1 throw 7D", [], ["1 throw 7D"], "", {},
                         [{"do": "0 attack 7H", "expect": "accept"}] * steps, 4)
        return Entry(div, count=count, first_game=first_game)

    first, renamed, other = entry("throw_in.rank", 5, 40, 0), entry("throw_in.rank", 2, 9, 3), \
        entry("defence.take", 1, 7, 1)
    merged = merge_renamed([first, other, renamed])
    assert [e.signature for e in merged] == ["legal-extra throw_in.rank", "legal-extra defence.take"]
    assert merged[0].count == 49 and merged[0].witness.length == 2 and merged[0].first_game == 0


def test_one_root_cause_is_one_signature_with_its_other_forms_under_it():
    """A campaign's divergences are grouped by root cause, each shown once with its other
    signatures as forms: one rule's refusals and states (a cap of five: a sixth card left out, a
    bout ended early), a divergence replaying shows to follow from one of them (a refusal named
    throw_in.who), and a rule never shown plainly whose witnesses another rule the run shows
    plainly explains as well (covers of the earliest card only, where every cover of the later
    card is by a trump: defence.target, or a trump that beats no plain card). A rule shown plainly
    stays apart even where some witness names another as an alternative (two bugs), and so do
    known divergences (the ledger's) and engine errors."""
    from durak_spec.conformance.fuzz import (
        Entry,
        FuzzResult,
        group_causes,
        merge_renamed,
        results_of,
    )
    from durak_spec.conformance.lockstep import Divergence
    from durak_spec.conformance.problems import find_problems

    def entry(kind, rule, count, follows=(), alternatives=(), plain=True, known=None):
        div = Divergence(kind, rule, "cover", "1 cover 9C with QC", [], [], "a difference", {},
                         [{"do": "1 cover 9C with QC", "expect": "accept"}], 2)
        return Entry(div, count=count, follows_from=list(follows), known=known,
                     alternatives=list(alternatives), plain=plain)

    beat = entry("legal-missing", "defence.beat", 300)
    refused = entry("verdict-rejects", "defence.beat", 20, ["legal-missing defence.beat"])
    target = entry("legal-missing", "defence.target", 50, alternatives=["defence.beat"], plain=False)
    cap, table = entry("legal-missing", "limits.cap", 40), entry("state.table", "limits.cap", 30)
    who = entry("verdict-rejects", "throw_in.who", 3, ["legal-missing limits.cap"])
    rank = entry("legal-extra", "throw_in.rank", 9, alternatives=["limits.cap"])  # plain too
    error = entry("error", "", 2)
    known = entry("state.hands", "limits.cap", 5, known="accepted")
    grouped = group_causes([beat, cap, target, refused, table, who, rank, error, known])
    assert [(e.signature, [f.signature for f in e.forms]) for e in grouped] == [
        ("legal-missing defence.beat", ["legal-missing defence.target", "verdict-rejects defence.beat"]),
        ("legal-missing limits.cap", ["state.table limits.cap", "verdict-rejects throw_in.who"]),
        ("legal-extra throw_in.rank", []), ("error cover", []), ("state.hands limits.cap", [])]
    assert grouped[0].total == 370
    # grouped again (a worker's entries), the same; a report counts each cause once
    shape = [(e.signature, len(e.forms)) for e in grouped]
    assert [(e.signature, len(e.forms)) for e in group_causes(grouped)] == shape
    assert [(e.signature, len(e.forms)) for e in group_causes(flat(grouped))] == shape
    # named by the rule reading an option the run does not confirm (throwers = none for a
    # refused throw of an engine that asks the attackers in seat order after a take): the rule
    # the campaign named it by takes it; with the option confirmed, it stays
    order = entry("legal-extra", "throw_in.order", 120)
    for advice, roots in ((None, ["legal-extra throw_in.order"]),
                          ({"throwers": "none"}, ["legal-extra throw_in.order",
                                                  "verdict-rejects throw_in.who"])):
        renamed = entry("verdict-rejects", "throw_in.who", 13)
        renamed.renamed_from, renamed.advice = "throw_in.order", advice
        assert [e.signature for e in group_causes([order, renamed])] == roots
    # one renamed so joins an entry already under its new signature (merge_renamed): what it
    # shows is no plainer for that (cover_earliest_only with attacker_again_after_take at 4
    # players: a refused cover that trump = none explains, unconfirmed, joined the covers
    # refused by defence.beat, made that rule plain and a root cause of its own)
    for advice, roots in ((None, ["legal-missing defence.target"]),
                          ({"trump": "none"}, ["legal-missing defence.target",
                                               "legal-missing defence.beat"])):
        earliest = entry("legal-missing", "defence.target", 1947, alternatives=["defence.beat"])
        listed = entry("legal-missing", "defence.beat", 1028, alternatives=["defence.target"],
                       plain=False)
        refused = entry("verdict-rejects", "defence.beat", 49, alternatives=["defence.target"],
                        plain=False)
        renamed = entry("verdict-rejects", "defence.beat", 174)
        renamed.renamed_from, renamed.advice = "defence.target", advice
        assert [e.signature for e in group_causes(merge_renamed([earliest, listed, refused,
                                                                 renamed]))] == roots
    # a rule shown plainly less often than the rule it would overrule does not take it
    rare = entry("legal-missing", "defence.beat", 30)
    assert [e.signature for e in group_causes([rare, target])] == \
        ["legal-missing defence.beat", "legal-missing defence.target"]
    records = results_of(FuzzResult(entries=grouped[:3]), "podkidnoy", "engine")
    assert [(p["rule"], p["count"]) for p in find_problems(records)] == \
        [("defence.beat", 370), ("limits.cap", 73), ("throw_in.rank", 9)]
    assert "the same cause shows as legal-missing defence.target (50 time(s))" in records[0].message


def test_a_state_follows_the_house_rule_that_explains_an_earlier_divergence(spec, tmp_path):
    """A state the engine reaches follows from no action of its step: an engine that bounds no
    attack by the defender's hand at the start of the bout (no_hand_bound) and lists no legal
    sets keeps open a taken bout the reference ends (state.table, named bout.taken). Replayed with
    the reference under the house rule the run confirms for its permissions
    (defender_hand_bound = defender_has_card), the state is the engine's: the same cause."""
    from durak_spec.conformance.fuzz import Campaign, Entry, group_causes
    from durak_spec.conformance.lockstep import Divergence
    name = f"python:{EXAMPLES}.mutants:no_hand_bound"
    levels = {"levels": ["verdicts", "state"]}
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=30, players=(4,), seed_value=1,
                   shrink=False, hello_change=levels)
    [state] = result.entries
    assert state.signature == "state.table bout.taken"
    house_rule = {"defender_hand_bound": "defender_has_card"}
    allows = Entry(Divergence("legal-extra", "limits.hand_at_start", "throw", "3 throw 8C", [], [],
                              "", {}, [], 4), as_if=[house_rule], advice=house_rule)
    adapter = make_adapter(name, spec=spec)
    try:
        camp = Campaign(spec, adapter, {**adapter.open(), **levels}, preset="podkidnoy", options={},
                        players=[4], seed_value=1, adapter_name=name, known={}, db=None, db_key=b"")
        camp.settle_by_variant(state, state.witness, [allows, state])
        other = Entry(Divergence("legal-extra", "limits.hand_at_start", "throw", "3 throw 8C", [],
                                 [], "", {}, [], 4), as_if=[{"max_attack_cards": 5}],
                      advice={"max_attack_cards": 5})
        refuted = Entry(state.witness)
        camp.settle_by_variant(refuted, state.witness, [other, refuted])
    finally:
        adapter.close()
    assert state.follows == ["legal-extra limits.hand_at_start"]
    assert state.explained == {"legal-extra limits.hand_at_start": house_rule}
    assert [f.signature for f in group_causes([allows, state])[0].forms] == [state.signature]
    assert refuted.follows == []  # a house rule that does not keep the bout open explains nothing


def test_a_bout_the_engine_keeps_open_is_named_by_what_it_still_allows_there(spec):
    """An engine that lets a player who passed still add (passed_player_adds) keeps open a bout
    the reference ends when the attacker passes: the state differs (table), and the rule that
    ends the bout (bout.beaten_off) is not the engine's bug. The legal set the engine lists
    after the step says which rule keeps it open: throw_in.not_passed, the rule of its other
    divergences, so one root cause is one signature; the shrunk witness keeps that set for its
    diagnosis."""
    name = f"python:{EXAMPLES}.mutants:passed_player_adds"
    setup = {"hands": [["6S", "7S", "AS", "6C", "QD"], ["KS", "8C", "AC", "6D", "JD"]],
             "talon": ["KH", "TS", "TC", "6H"], "trump": "6H", "dealer": 1, "attacker": 0,
             "table": [["9C", "QC"]], "defender": 1, "bout": 8, "beaten_bouts": 5, "discard": 20}
    [div] = _divergences_from(spec, name, setup, ["0 pass"])
    assert (div.kind, div.rule) == ("state.table", "throw_in.not_passed"), div
    assert div.listed and "0 pass" in div.listed


def test_advice_on_a_first_attacker_is_confirmed_by_every_deal_the_engine_started_otherwise(spec):
    """An engine whose highest trump leads starts every deal otherwise; fuzz plays on from the
    reference's roles, so no later step shows the first attacker again. A shrunk witness where
    the dealer's left neighbour holds the highest trump is explained by first_attacker =
    left_of_dealer; the other deals the engine started (Lockstep.starts) refute it (the five-bug
    engine of bench/attribution.py was advised it at 4 players, durak fuzz --games 200 --seed 1)."""
    from durak_spec.conformance.fuzz import Campaign, Entry, confirm_advice
    from durak_spec.conformance.lockstep import Divergence
    from durak_spec.reference_impl.diagnose import Observation
    name = f"python:{EXAMPLES}.mutants:first_attacker_highest_trump"
    house_rule = {"first_attacker": "left_of_dealer"}
    adapter = make_adapter(name, spec=spec)
    try:
        camp = Campaign(spec, adapter, adapter.open(), preset="podkidnoy", options={}, players=[4],
                        seed_value=1, adapter_name=name, known={}, db=None, db_key=b"")
        rs, left = camp.lock.ruleset, spec.ruleset("podkidnoy", house_rule)
        deals = {}
        for seed in range(60):
            setup = Setup.deal(rs, 4, seed)
            _, state = adapter.calls([("start", {"variant": camp.lock.variant, "setup": setup.to_json()}),
                                      ("state", {})])
            engine = state.value["state"]["attacker"]
            if engine != Game(rs, setup).state.attacker:
                deals.setdefault(engine == Game(left, setup).state.attacker, (setup, engine))
        (alike, first), (other, second) = deals[True], deals[False]

        def witness():
            entry = Entry(Divergence("state.attacker", "start.lowest_trump", "start", None, 0, first,
                                     "", alike.to_json(), [], 4), as_if=[house_rule])
            entry.observed = [Observation(None, True, state={"attacker": first})]
            return entry
        # the deals the engine starts alone show it here: games where the campaign did not
        # look (Campaign.plays_as) would refute the advice too
        camp.plays_as = lambda change, others: True
        alone = witness()
        confirm_advice(camp, [alone])
        camp.lock.starts = [(other, Observation(None, True, state={"attacker": second}),
                             alone.signature)]
        refuted = witness()
        confirm_advice(camp, [refuted])
    finally:
        adapter.close()
    assert alone.advice == house_rule and refuted.advice is None


def test_without_positions_a_case_is_the_deal_and_a_short_prefix(spec, tmp_path):
    """An engine that can only start deals is brought back by replaying; its cases start from the
    deal, shrunk to the shortest prefix that still shows the divergence."""
    name = f"python:{EXAMPLES}.broken_no_cap:NoAttackCap"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=80, players=(4,),
                   hello_change={"positions": False})
    cap = [e for e in result.entries if e.witness.rule == "limits.cap"]
    assert cap, [e.signature for e in result.entries]
    for e in result.entries:
        assert "table" not in e.witness.setup and e.witness.length <= e.found_length
    assert min(e.witness.length for e in cap) < max(e.found_length for e in cap) or \
        min(e.witness.length for e in cap) <= 8
    _replays(spec, name, tmp_path, "limits.cap")


@pytest.mark.parametrize("mutant,sig", [
    ("fool_last_defender", "state.fool end.fool"),
    # since 1a0a1ca retired the unreachable boundary cases, 200 games no longer reach this one
    ("out_before_draw", "state.hands end.out")], ids=["fool at the end", "out before the draw"])
def test_a_late_state_divergence_without_positions_is_shrunk_to_a_short_deal(spec, tmp_path,
                                                                             mutant, sig):
    """A state field that differs only late in a game (who is the fool; a player out while the
    talon still holds cards) is shrunk, for an engine that takes only deals, to a deal made of
    the position at the start of its bout, without the steps and cards it does not need: a
    short case that fails on the engine and passes on the reference."""
    name = f"python:{EXAMPLES}.mutants:{mutant}"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=300, players=(2, 4),
                   hello_change={"positions": False})
    late = [e for e in result.entries if e.signature == sig]
    assert late, [e.signature for e in result.entries]
    w = late[0].witness
    assert late[0].found_length > 20 and w.length <= 4, (late[0].found_length, w.steps)
    assert "table" not in w.setup and sum(map(len, w.setup["hands"])) <= 6, w.setup
    _replays(spec, name, tmp_path, sig.split()[1])


def test_a_bout_start_becomes_a_deal_without_the_seats_out(spec):
    """The deal a witness restarts from: the hands, talon and trump of the bout start, the
    attacker named, the discard out of play, a seat out left out and the steps renumbered; the
    reference plays them there with the same verdicts and the same roles and choices."""
    rs = spec.ruleset("podkidnoy", {})
    position = Setup.from_json({"hands": [["6S", "7S"], [], ["8S", "9H"], ["TC", "JC"]],
                                "talon": [], "trump": "TS", "dealer": 3, "attacker": 2,
                                "defender": 3, "out": [1], "bout": 5, "beaten_bouts": 2,
                                "discard": 30}, rs.deck, rs.player_limits)
    steps = [{"do": "2 attack 9H", "expect": "accept"}, {"do": "3 take", "expect": "accept"},
             {"do": "2 throw 8S", "expect": "reject"}]
    deal, moved = _deal_of(Game(rs, position), steps)
    assert deal.to_json() == {"hands": [["6S", "7S"], ["8S", "9H"], ["TC", "JC"]], "talon": [],
                              "trump": "TS", "dealer": 2, "attacker": 1}
    assert [s["do"] for s in moved] == ["1 attack 9H", "2 take", "1 throw 8S"]
    assert _agrees(rs, deal, moved) and not _agrees(rs, deal, steps)
    assert sorted(map(str, Game(rs, deal).legal_actions())) == ["1 attack 8S", "1 attack 9H"]


def test_verdicts_alone_find_an_engine_that_accepts_what_the_spec_forbids(spec, tmp_path):
    name = f"python:{EXAMPLES}.broken_throw_in_rank:ThrowInAnyRank"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=100, hello_change={"levels": ["verdicts"]})
    assert {e.witness.kind for e in result.entries} <= {"verdict-accepts", "verdict-rejects"}
    assert "verdict-accepts throw_in.rank" in {e.signature for e in result.entries}


def test_the_same_seed_plays_the_same_campaign(spec, tmp_path):
    name = f"python:{EXAMPLES}.broken_beat:BeatAnySuit"
    first = _fuzz(spec, name, "podkidnoy", tmp_path / "a", games=20, seed_value=7)
    second = _fuzz(spec, name, "podkidnoy", tmp_path / "b", games=20, seed_value=7)
    assert [(e.signature, e.count, e.case) for e in first.entries] == \
        [(e.signature, e.count, e.case) for e in second.entries]


def test_saved_witnesses_are_replayed_first(spec, tmp_path):
    name = f"python:{EXAMPLES}.broken_no_cap:NoAttackCap"
    first = _fuzz(spec, name, "podkidnoy", tmp_path, games=40, players=(4,))
    again = _fuzz(spec, name, "podkidnoy", tmp_path, games=1, players=(4,), seed_value=99)
    assert first.entries and again.replayed >= len(first.entries)
    assert {e.signature for e in first.entries} <= {e.signature for e in again.entries}
    before = {e.signature for e in first.entries}
    assert all(e.replayed for e in again.entries if e.signature in before)


def test_the_subprocess_and_the_combined_request_change_nothing(spec, tmp_path):
    """A campaign in process with the step request and without it (apply, state and legal per
    action) is the same, and through `cmd:` (the template's step request, its states thinned by
    "delta" or whole) it finds the same divergences."""
    cmd = f"cmd:{sys.executable} -m {EXAMPLES}.broken_beat"
    inproc = f"python:{EXAMPLES}.broken_beat:BeatAnySuit"
    runs = [_fuzz(spec, cmd, "podkidnoy", tmp_path / "cmd", games=20, shrink=False),
            _fuzz(spec, inproc, "podkidnoy", tmp_path / "py", games=20, shrink=False),
            _fuzz(spec, inproc, "podkidnoy", tmp_path / "old", games=20, shrink=False,
                  hello_change={"step": False}),
            _fuzz(spec, cmd, "podkidnoy", tmp_path / "whole", games=20, shrink=False,
                  hello_change={"delta": False})]
    seen = [sorted((e.signature, e.count) for e in r.entries) for r in runs]
    assert seen[1] and seen[1] == seen[2]
    assert seen[0] == seen[3]
    # a subprocess plays shorter stretches, planned while the engine plays the previous one
    assert {e.witness.rule for e in runs[0].entries} == {e.witness.rule for e in runs[1].entries} \
        == {"defence.beat"}


def test_delta_states_are_judged_as_whole_states(spec, tmp_path):
    """protocol 1.1 "delta": the thinned states of a step answer rebuild exactly (every field
    changed or not), and a campaign through `cmd:` finds the same state divergences with and
    without it."""
    from durak_spec.conformance.engine import ReferenceEngine, thin_states
    from durak_spec.conformance.transport import CmdAdapter, Reply

    engine = ReferenceEngine(spec)
    rs = spec.ruleset("podkidnoy")
    engine.start({"preset": "podkidnoy", "options": dict(rs.options)},
                 {"hands": [["6S", "7S", "8S"], ["6H", "7H", "9S"]], "talon": ["AD", "KC"],
                  "trump": "KC", "dealer": 1})
    texts = ["0 attack 6S", "1 take", "1 cover 6S with 9S", "0 throw 6H", "0 pass", "1 attack 7H"]
    whole = engine.step(texts, True, True)["steps"]
    engine.start({"preset": "podkidnoy", "options": dict(rs.options)},
                 {"hands": [["6S", "7S", "8S"], ["6H", "7H", "9S"]], "talon": ["AD", "KC"],
                  "trump": "KC", "dealer": 1})
    thin = thin_states([dict(e) for e in engine.step(texts, True, True)["steps"]])
    assert [len(e.get("state", {})) for e in thin] != [len(e.get("state", {})) for e in whole]
    adapter = CmdAdapter("unused")
    adapter.delta = True
    assert adapter._full_states(Reply("result", {"steps": thin})).value["steps"] == whole
    cmd = f"cmd:{sys.executable} -m {EXAMPLES}.broken_draw_order"
    runs = [_fuzz(spec, cmd, "podkidnoy", tmp_path / name, games=12, shrink=False,
                  hello_change=change) for name, change in (("thin", None),
                                                            ("whole", {"delta": False}))]
    seen = [sorted((e.signature, e.count) for e in r.entries) for r in runs]
    assert seen[0] == seen[1] and any(s.startswith("state.") for s, _ in seen[0])


def test_a_delta_state_keeps_a_field_that_changes_only_its_json_type():
    """thin_states drops a field equal to the last state's; Python finds false equal to 0 and
    6 to 6.0, so a field turning from false to 0 (or a size from 6 to 6.0, in a list) must stay
    in the delta, or the engine's out-of-protocol answer never reaches the fuzzer."""
    from durak_spec.conformance.engine import thin_states

    base = {"taking": False, "hand_sizes": [6, 6], "fool": None, "table": [["6S", None]]}
    changed = [{"taking": 0}, {"hand_sizes": [6, 6.0]}, {"table": [["6S", False]]},
               {"fool": False}]
    for change in changed:
        thin = thin_states([{"state": dict(base)}, {"state": {**base, **change}}])
        assert thin[1]["state"] == change, change
    assert thin_states([{"state": dict(base)}, {"state": dict(base)}])[1]["state"] == {}


def _cli(*args):
    result = CliRunner().invoke(cli, ["fuzz", *map(str, args)])
    assert "Traceback" not in result.output, result.output
    return result


def test_the_fuzz_command_reports_like_check_and_honours_a_ledger(tmp_path):
    engine = f"python:{EXAMPLES}.broken_beat:BeatAnySuit"
    out = tmp_path / "out"
    ok = _cli("--games", "10", "--players", "2", "--out", out, "-q")
    assert ok.exit_code == 0 and "0 distinct divergence(s)" in ok.output
    assert "rule coverage:" in ok.output
    report = tmp_path / "r.json"
    bad = _cli("--adapter", engine, "--games", "20", "--players", "2", "--out", out, "--report",
               report, "--junit", tmp_path / "r.xml", "--html", tmp_path / "r.html")
    assert bad.exit_code == 1 and "NEW" in bad.output and "defence.beat" in bad.output
    data = json.loads(report.read_text())
    schema = json.loads((HERE / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(data, schema)
    sigs = [d["signature"] for d in data["fuzz"][0]["divergences"]]
    assert data["summary"]["fail"] == len(sigs) > 0
    assert "<testsuites" in (tmp_path / "r.xml").read_text()
    assert "defence.beat" in (tmp_path / "r.html").read_text()
    # every divergence accepted in a ledger: exit 0, each reported as known; a listed one that
    # never shows is reported as not reached
    ledger = tmp_path / "known.yaml"
    ledger.write_text("known_divergences:\n" + "".join(f"  {s}: accepted\n" for s in sigs)
                      + "  verdict-accepts limits.cap throw: accepted too\n")  # a shape is ignored
    known = _cli("--adapter", engine, "--games", "20", "--players", "2", "--out", out,
                 "--known", ledger)
    assert known.exit_code == 0, known.output
    assert "0 new" in known.output and "known verdict-accepts limits.cap: not reached" in known.output


def test_fuzz_usage_errors_exit_2(tmp_path):
    assert _cli("--variant", "nope").exit_code == 2
    assert _cli("--adapter", "python:nomodule:X", "--out", tmp_path).exit_code == 2
    assert _cli("--players", "9").exit_code == 2
    assert _cli("--jobs", "0").exit_code == 2
    ledger = tmp_path / "bad.yaml"
    for entry in ("nonsense", "legal-extra no.such_rule pass", "odd-kind bout.pass pass"):
        ledger.write_text(f"known_divergences:\n  {entry}: x\n")
        bad = _cli("--known", ledger, "--out", tmp_path, "--games", "1")
        assert bad.exit_code == 2 and str(ledger) in bad.output, bad.output


def test_a_divergence_that_is_another_option_value_is_diagnosed_as_that_house_rule(spec, tmp_path):
    name = f"python:{EXAMPLES}.mutants:cap_five"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=40, players=(4,), diagnosis=2.0)
    cap = [e for e in result.entries if e.witness.rule == "limits.cap"]
    assert cap, [e.signature for e in result.entries]
    assert any({"max_attack_cards": 5} in e.as_if for e in cap), [e.as_if for e in cap]
    assert any("plays as if `max_attack_cards = " in e.witness.diagnosis for e in cap)


def test_a_bad_out_folder_or_report_path_is_refused_before_any_game(tmp_path):
    afile = tmp_path / "a-file"
    afile.write_text("")
    bad_out = _cli("--out", afile / "sub", "--games", "100000")
    assert bad_out.exit_code == 2 and f"--out {afile / 'sub'}: can't be made" in bad_out.output
    bad_report = _cli("--out", tmp_path, "--games", "100000", "--junit", tmp_path / "no" / "r.xml")
    assert bad_report.exit_code == 2 and "can't write the report" in bad_report.output


def test_a_minimal_case_is_never_lost_to_an_unwritable_folder(spec, tmp_path, monkeypatch):
    import durak_spec.conformance.fuzz as fuzz_module

    real = fuzz_module.write_case
    out = tmp_path / "out"

    def full_disk(data, spec, root=None):
        if root == out:
            raise OSError(28, "No space left on device")
        return real(data, spec, root)

    monkeypatch.setattr(fuzz_module, "write_case", full_disk)
    result = _fuzz(spec, f"python:{EXAMPLES}.broken_beat:BeatAnySuit", "podkidnoy", out, games=10,
                   shrink=False)
    assert result.entries and all(e.case_path and e.case_path.exists() for e in result.entries)
    assert all(out not in e.case_path.parents for e in result.entries)
    assert all(f"can't write under {out} (No space left on device); the case is in" in err
               for err in result.errors)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_stops_a_campaign_and_its_reports_say_it_was_interrupted(tmp_path, jobs):
    import os
    import signal
    import subprocess
    import time

    report, mark = tmp_path / "r.json", tmp_path / "hanging"
    argv = [sys.executable, "-c", "from durak_spec.tools.cli import main; main()", "fuzz", "-q",
            "--adapter", f"python:{EXAMPLES}.misbehaving_engine:MisbehavingEngine",
            "--games", "50", "--jobs", jobs, "--players", "2", "--timeout", "60",
            "--out", str(tmp_path / "out"), "--report", str(report)]
    env = {**os.environ, "DURAK_MISBEHAVE": "hang", "DURAK_HANG_MARK": str(mark)}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    deadline = time.monotonic() + 120
    while not mark.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # until an engine hangs
    assert mark.exists(), proc.communicate(timeout=30)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, out + err
    data = json.loads(report.read_text())
    assert data["interrupted"] is True and "interrupted (SIGTERM) after " in data["stopped"]
    assert data["stopped"].endswith(" of 50 games")


def test_the_case_shrunk_from_a_hang_reproduces_the_hang(spec, tmp_path, monkeypatch):
    from durak_spec.conformance.runner import Session
    from durak_spec.conformance.transport import PythonAdapter

    monkeypatch.setenv("DURAK_MISBEHAVE", "hang")
    monkeypatch.setenv("DURAK_MISBEHAVE_ON", "1 cover AH with AD")  # deep in the first game
    from durak_spec.conformance.examples.misbehaving_engine import MisbehavingEngine

    def adapter():  # a short timeout for the answers, room for the handshake
        return PythonAdapter(MisbehavingEngine, "python:misbehaving", timeout=2.0,
                             start_timeout=60)

    engine = adapter()
    hello = engine.open()
    try:
        result = fuzz(spec, engine, hello, preset="podkidnoy", players=[2], games=1,
                      out_dir=tmp_path, adapter_name="python:misbehaving", diagnosis=0)
    finally:
        engine.close()
    hang = [e for e in result.entries if "hang" in e.signature]
    assert hang and hang[0].case_path, [e.signature for e in result.entries]
    case = load_suite(spec, tmp_path).cases[0]
    assert case.steps, "the case stops before the step that hangs"
    session = Session(spec, adapter())
    session.open()
    try:
        rerun = session.run_case(case, "podkidnoy")
    finally:
        session.close()
    assert rerun.status == "error" and "hang" in rerun.message, (rerun.status, rerun.message)


def test_a_campaign_whose_engine_played_no_step_claims_no_coverage_and_exits_3(tmp_path,
                                                                               monkeypatch):
    monkeypatch.setenv("DURAK_MISBEHAVE", "crash")  # raises at every apply: no step is played
    result = _cli("--adapter", f"python:{EXAMPLES}.misbehaving_engine:MisbehavingEngine",
                  "--games", "2", "--players", "2", "--out", tmp_path, "--report",
                  tmp_path / "r.json")
    assert result.exit_code == 3, result.output
    assert "0 steps" in result.output and "rule coverage: none claimed" in result.output
    assert "TESTED TOO LITTLE" in result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["fuzz"][0]["coverage"] == {}


def test_a_campaign_whose_engine_skipped_most_deals_exits_3_with_the_reasons(tmp_path, monkeypatch):
    monkeypatch.setenv("DURAK_MISBEHAVE", "skip-most")  # plays only deals with a spade trump
    result = _cli("--adapter", f"python:{EXAMPLES}.misbehaving_engine:MisbehavingEngine",
                  "--games", "3", "--players", "2", "--out", tmp_path, "-q", "--report",
                  tmp_path / "r.json")
    assert result.exit_code == 3, result.output
    assert "TESTED TOO LITTLE: the engine skipped" in result.output
    assert "this engine deals only with spades as trump" in result.output
    campaign = json.loads((tmp_path / "r.json").read_text())["fuzz"][0]
    assert campaign["games"] == 3 and campaign["skipped"] > 3
    assert campaign["skip_reasons"][0]["reason"] == "this engine deals only with spades as trump"
    # the deals it plays, it plays as the reference does: the only finding is the skipping
    assert campaign["steps"] > 0 and not campaign["divergences"], campaign["divergences"][:1]


def test_a_player_count_whose_every_deal_is_skipped_exits_3_and_the_others_are_played(
        tmp_path, monkeypatch):
    """The campaign deals the next count after a skipped deal: an engine that declares 2 to 6
    players but seats at most four plays every game asked at 2 to 4 (it was held at five until ten
    times the games were skipped, 3 games played), and the run says which counts it never played."""
    monkeypatch.setenv("DURAK_MISBEHAVE", "skip-five")
    result = _cli("--adapter", f"python:{EXAMPLES}.misbehaving_engine:MisbehavingEngine",
                  "--games", "8", "--out", tmp_path, "-q", "--no-shrink", "--report",
                  tmp_path / "r.json")
    assert result.exit_code == 3, result.output
    assert "TESTED TOO LITTLE: the engine skipped every deal at 5, 6 players" in result.output
    campaign = json.loads((tmp_path / "r.json").read_text())["fuzz"][0]
    assert campaign["games"] == 8 and 0 < campaign["skipped"] <= 8 and campaign["never_played"] == [5, 6]
    assert campaign["skip_reasons"][0]["reason"] == "this engine seats at most four players"


@pytest.mark.parametrize("mode,said", [
    ("state-error", "the engine answered state at the start with error: EngineCrash: no state to "
                    "show: the table is being dealt; "),
    ("bad-take", "is not of type 'boolean' at steps/"),
])
def test_an_engine_error_says_what_check_says(tmp_path, monkeypatch, mode, said):
    """An error answered to state is the engine's own message, whole (it was "out of protocol"
    and cut at 200 characters); an answer out of protocol names the field that is wrong."""
    monkeypatch.setenv("DURAK_MISBEHAVE", mode)
    result = _cli("--adapter", f"python:{EXAMPLES}.misbehaving_engine:MisbehavingEngine",
                  "--games", "2", "--players", "2", "--out", tmp_path, "-q", "--no-shrink")
    assert result.exit_code in (1, 3), result.output
    assert said in result.output
    if mode == "state-error":
        assert "dealt; (end)" in result.output and "out of protocol" not in result.output
    else:
        assert "/accepted (schema result-step.json)" in result.output


def test_two_errors_of_one_command_are_two_signatures_each_with_its_own_case(tmp_path,
                                                                            monkeypatch):
    """An engine error's signature is its kind and its message without particulars: a KeyError at
    a take and a ZeroDivisionError at a cover are two divergences (each case shrunk to its own
    error), the KeyError at every seat's take one; a ledger names one of them."""
    monkeypatch.setenv("DURAK_MISBEHAVE", "two-crashes")
    engine = f"python:{EXAMPLES}.misbehaving_engine:MisbehavingEngine"
    result = _cli("--adapter", engine, "--games", "12", "--players", "2", "--out", tmp_path, "-q",
                  "--report", tmp_path / "r.json")
    assert result.exit_code in (1, 3), result.output
    divergences = json.loads((tmp_path / "r.json").read_text())["fuzz"][0]["divergences"]
    errors = {d["message"].split(": ")[1]: d for d in divergences if d["kind"] == "error"}
    assert set(errors) == {"KeyError", "ZeroDivisionError"}, [d["message"] for d in divergences]
    assert len({d["signature"] for d in errors.values()}) == 2
    assert errors["KeyError"]["occurrences"] > 2  # takes by either seat, one signature
    for name, d in errors.items():
        case = Path(d["case_path"]).read_text()
        assert name in case and ("take" if name == "KeyError" else "cover") in case.split("steps:")[1]
    ledger = tmp_path / "known.yaml"
    ledger.write_text(f"known_divergences:\n  {errors['KeyError']['signature']}: crashes at a take\n")
    again = _cli("--adapter", engine, "--games", "12", "--players", "2", "--out", tmp_path / "2",
                 "-q", "--known", ledger)
    assert "known error step-error#" in again.output and "NEW   error step-error#" in again.output


def test_an_error_signature_keeps_the_field_and_drops_the_values():
    from durak_spec.conformance.problems import error_key, error_signature
    message = ("the engine's answer to state at the start is out of protocol: '24' is not of type "
               "'integer' at state/talon_count (schema result-state.json); seen 3 time(s)")
    assert error_signature(message) == ("the engine's answer to state at the start is out of "
                                        "protocol: '...' is not of type '...' at state/talon_count (...)")
    assert error_key(message) == error_key(message.replace("'24'", "'7'").replace("3 time", "9 time"))
    assert error_key(message) != error_key(message.replace("talon_count", "discard_count"))


def test_fuzz_advises_no_option_that_only_explains_a_witness(spec, tmp_path):
    """A trump that beats no plain card looks like `trump = none` or `spades_only_by_spades` in
    one short witness; the games the engine played refute both, so fuzz says what check says."""
    name = f"python:{EXAMPLES}.mutants:trump_beats_only_trump"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=20, players=(2,), diagnosis=2.0)
    beat = [e for e in result.entries if e.witness.rule == "defence.beat"]
    assert beat and any(e.as_if for e in beat), [(e.signature, e.as_if) for e in beat]
    assert all(e.advice is None for e in beat)
    assert not any("plays as if" in (e.witness.diagnosis or "") for e in beat), \
        [e.witness.diagnosis for e in beat]


def test_the_evidence_for_advice_is_spread_over_the_whole_campaign():
    """Advice is confirmed against segments from the whole campaign, not only its first ones:
    every kept segment is a multiple of one stride apart, the last ones are among them, and no
    more than EVIDENCE_SEGMENTS are kept."""
    from types import SimpleNamespace

    from durak_spec.conformance.lockstep import EVIDENCE_SEGMENTS, Lockstep
    lock = SimpleNamespace(model=SimpleNamespace(canonical=True), _canonical=True, observed=[],
                           _observing=None, _current=None, _segments=0, _stride=1)
    total = 5 * EVIDENCE_SEGMENTS
    for i in range(total):
        seg = SimpleNamespace(setup=i)
        Lockstep._note(lock, seg, f"step of {i}")
        Lockstep._note(lock, seg, f"next step of {i}")
    kept = [setup for setup, _ in lock.observed]
    assert len(kept) <= EVIDENCE_SEGMENTS and kept[-1] >= total - lock._stride
    assert kept == list(range(0, total, lock._stride)) and lock._stride > 1
    assert all([o.action for o in observations(obs)] == [f"step of {i}", f"next step of {i}"]
               for i, obs in lock.observed)


def test_a_state_witness_keeps_the_engines_game_going_so_no_early_end_explains_it(spec, tmp_path):
    """The taker attacks next: in a shrunk witness of three players, a deal that ends when the
    first player goes out "explains" the wrong attacker, because the reference compares no roles
    once its game is over. The engine's game goes on there (its `finished` is part of what was
    observed), so fuzz names the rotation rule and advises nothing, as check does."""
    name = f"python:{EXAMPLES}.style_play_card:BrokenPlayCardEngine"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=3, players=(3,), diagnosis=2.0)
    found = [e for e in result.entries if e.signature.startswith("state.")]
    assert found, [e.signature for e in result.entries]
    assert all(e.witness.rule == "rotation.after_take" for e in found), \
        [(e.signature, e.witness.diagnosis) for e in found]
    assert all(e.witness.finished is False and e.advice is None for e in found)
    assert not any("plays as if" in (e.witness.diagnosis or "") for e in found), \
        [e.witness.diagnosis for e in found]


def test_advice_is_confirmed_by_games_where_the_campaign_did_not_look(spec, tmp_path):
    """no_hand_bound frees the attack where podkidnoy bounds it by the defender's hand at the start
    of the bout, and keeps the bound another variant asks for. Its campaign's evidence cannot tell
    defender_hand_bound = defender_has_card from none (they part only at a defender left with no
    card, beyond podkidnoy's bound), and fuzz advised the first while check gave none: games under
    the advised value refute defender_has_card (the engine adds to an empty-handed defender), games
    with the engine sent another bound refute none (it keeps that bound), as check's runs under
    other presets do. A mutant that plays max_attack_cards = 5 whatever it is sent keeps its
    advice, beside a trump that beats no plain card: in those games that bug shows under another
    signature (legal-missing defence.target), a rule that explains its own divergences as well,
    and refutes nothing."""
    name = f"python:{EXAMPLES}.mutants:no_hand_bound"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=60, players=(4,), diagnosis=30.0,
                   shrink=False)
    explained = [e for e in flat(result.entries) if e.as_if]
    assert {"defender_hand_bound": "defender_has_card"} in [c for e in explained for c in e.as_if]
    assert [e.advice for e in flat(result.entries)] == [None] * len(flat(result.entries))
    result = _fuzz(spec, f"python:{EXAMPLES}.mutants:trump_beats_only_trump+cap_five",
                   "podkidnoy", tmp_path / "cap", games=40, players=(4,), diagnosis=30.0,
                   shrink=False)
    assert {e.witness.rule: e.advice for e in result.entries} == \
        {"defence.beat": None, "limits.cap": {"max_attack_cards": 5}}


def test_games_where_the_run_did_not_look_refute_advice_but_never_choose_between_options(spec):
    """Two options that the run's evidence cannot tell apart give no advice (problems.
    confirmed_advice); the games of Campaign.plays_as only refute the advice chosen, or let a
    further value of its option take its place. pile_on_any_time at 2 players plays as
    pile_on = any_time and as opening = same_rank_multi; refuting the first advised the second."""
    from types import SimpleNamespace

    from durak_spec.conformance.fuzz import Entry, confirm_advice
    from durak_spec.conformance.lockstep import Divergence
    rs = spec.ruleset("podkidnoy")
    setup = Setup.deal(rs, 2, 7)
    first = Game(rs, setup).legal_actions()[0]
    # a step as Lockstep.observed keeps it: an Observation's fields (lockstep.observations)
    lock = SimpleNamespace(ruleset=rs, observed=[(setup, [(text_of(first), True, None, None)])],
                           starts=[])
    refuted = {"pile_on": "any_time"}
    camp = SimpleNamespace(lock=lock, plays_as=lambda change, others: change != refuted)

    def entry(as_if):
        return Entry(Divergence("legal-extra", "throw_in.timing", "throw", None, [], [], "", {},
                                [], 2), as_if=as_if)
    for as_if, advice in (([refuted, {"opening": "same_rank_multi"}], None),
                          ([refuted, {"pile_on": "when_all_beaten"}], {"pile_on": "when_all_beaten"}),
                          ([{"max_attack_cards": 5}, {"max_attack_cards": None}],
                           {"max_attack_cards": 5})):
        e = entry(as_if)
        confirm_advice(camp, [e])
        assert e.advice == advice, as_if


def test_every_step_judged_agreeing_is_kept_as_evidence_with_the_engine_s_legal_list(spec):
    """The evidence advice is confirmed against (Lockstep.observed) holds each step of a kept
    segment once, in order: the action, its verdict and, after an accepted one, the legal list
    the engine gave, which is the reference's there (the judge adds agreeing steps to it
    without calling _note for each)."""
    adapter = make_adapter("reference", spec=spec)
    lock = Lockstep(spec, adapter, adapter.open(), "podkidnoy", {})
    try:
        rs = lock.ruleset
        setup = Setup.deal(rs, 2, 7)
        lock.play(setup, random.Random(3))
    finally:
        adapter.close()
    [(kept_setup, kept)] = lock.observed
    steps = observations(kept)
    assert kept_setup is setup and len(steps) > 40
    assert len(steps) == lock.steps  # every step judged, the refused probes too
    assert any(not o.accepted for o in steps)  # the probes the engine refused too
    g = Game(rs, setup)
    for o in steps:
        action = g.parse_action(o.action)
        if not o.accepted:
            assert g.explain(action)[0] and o.legal is None
            continue
        g.apply_action(action)
        assert sorted(o.legal) == sorted(str(a) for a in g.legal_actions()), o
    assert g.is_terminal()


def test_a_rule_broken_besides_another_at_one_observation_is_a_signature_of_its_own(spec, tmp_path):
    """An engine filling hands to seven that also draws counterclockwise: at 4 players a draw of
    other counts is dealt in another order too, which breaks draw.order besides draw.who
    (diagnose's `besides`). Fuzz keeps it as a divergence of its own, as durak check does: its
    own signature, witness and case (it showed under no signature: every hands difference named
    draw.who). No option value explains either alone, and the draw order never shows on its own
    (every draw of a hand of seven differs in its count too): the two house rules together, one
    read by each rule, reproduce the run, and each root cause is advised its own, as durak check
    advises them (it was advised neither, where check advised both). Drawing in the order the
    attackers joined is no option value: that twin is advised no draw order. Filling to seven in
    the reference's order breaks who draws alone."""
    name = f"python:{EXAMPLES}.mutants:draw_counterclockwise+hand_size_seven"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=20, players=(4,), diagnosis=10)
    by_rule = {e.witness.rule: e for e in flat(result.entries) if e.witness.kind == "state.hands"}
    assert set(by_rule) == {"draw.who", "draw.order"}, [e.signature for e in flat(result.entries)]
    order = by_rule["draw.order"]
    assert order.witness.besides_of == "draw.who"
    assert order.advice == {"draw_order": "attacker_counterclockwise_defender_last"}
    assert order.witness.diagnosis == advice_message(order.advice, "draw.order")
    assert by_rule["draw.who"].advice == {"hand_size": 7}
    assert order.case["rules"] == ["draw.order"]
    _replays(spec, name, tmp_path, "draw.order")
    # confirmed again once the root causes are grouped anew (fuzz confirms before and after
    # group_causes): a form whose own value alone is refuted joins draw.who, and the draw order
    # advised beside it the first time is not kept apart from draw.who's (it was, stale)
    from durak_spec.conformance.fuzz import Campaign, Entry, confirm_advice
    who = by_rule["draw.who"]
    who.forms = [Entry(who.witness, as_if=[{"hand_size": 7}], observed=who.observed)]
    adapter = make_adapter(name, spec=spec)
    try:
        camp = Campaign(spec, adapter, adapter.open(), preset="podkidnoy", options={},
                        players=[4], seed_value=0, adapter_name=name, known={}, db=None,
                        db_key=b"")
        confirm_advice(camp, [who, order])
    finally:
        adapter.close()
    assert (who.advice, order.advice) == (
        {"hand_size": 7}, {"draw_order": "attacker_counterclockwise_defender_last"})
    joined = f"python:{EXAMPLES}.mutants:draw_in_join_order+hand_size_seven"
    twin = _fuzz(spec, joined, "podkidnoy", tmp_path / "joined", games=60, players=(4,),
                 diagnosis=10)
    orders = [e for e in flat(twin.entries) if e.witness.rule == "draw.order"]
    assert orders and all(e.advice is None for e in orders), \
        [(e.signature, e.advice) for e in flat(twin.entries)]
    seven = f"python:{EXAMPLES}.mutants:hand_size_seven"
    alone = _fuzz(spec, seven, "podkidnoy", tmp_path / "seven", games=20, players=(4,))
    assert {e.witness.rule for e in flat(alone.entries)} == {"draw.who"}


def test_cards_played_as_a_named_suit_stand_apart_and_still_say_which_card_is_covered(spec):
    """An engine that covers only the earliest unbeaten card and lets any card be played as a
    suit its player names (cover_earliest_only+named_suit_anywhere) lists, where the earliest
    card (JD, trumps AD) can be beaten only as a named suit, those named covers of it and no
    cover of the later TS. The named covers are play.named_suit's divergence alone, as
    diagnose.legal_differences splits a set (lockstep split them with the covers, and one
    divergence under defence.beat said both); the missing plain cover of TS is the target rule's,
    since the named covers show the engine covers the earliest card (it was defence.beat's: no
    plain cover of JD exists). A later legal-set divergence differs by its own actions, not by the
    step before it."""
    name = f"python:{EXAMPLES}.mutants:cover_earliest_only+named_suit_anywhere"
    setup = {"hands": [["8S", "9S", "QS", "6H", "9H", "JH", "QH", "AH"], ["8C", "9C", "8H"]],
             "talon": ["KS", "7H", "QC", "JS", "KH", "QD", "6D", "6C", "TH", "AC", "AD"],
             "trump": "AD", "dealer": 1, "attacker": 1,
             "table": [["TC", "JC"], ["JD", None], ["TS", None]], "defender": 0, "bout": 10,
             "beaten_bouts": 4, "discard": 10}
    named, target, later = _divergences_from(spec, name, setup, ["0 take"])
    assert (named.signature, named.texts) == (
        "legal-extra play.named_suit",
        ("0 cover JD with AH=D", "0 cover JD with QH=D", "0 cover JD with QS=D"))
    assert (target.signature, target.texts) == ("legal-missing defence.target",
                                                ("0 cover TS with QS",))
    assert later.steps == [{"do": "0 take", "expect": "accept"}]
    assert later.signature == "legal-extra play.named_suit" and "0 take" not in later.texts and \
        "1 attack 7H=C" in later.texts


def test_a_state_follows_an_earlier_difference_no_option_explains_under_its_changed_clause(spec):
    """An engine that lets a player who passed still add (passed_player_adds) lists, in a bout
    where seat 2 has passed, seat 2's cards again (legal-extra throw_in.not_passed, which no option
    explains); after the defender takes and seat 2 passes, it keeps the table the reference
    clears (a state, which follows from no action of its step). Replayed with the reference
    compiled from the spec with the one-place change of throw_in.not_passed's clause that the
    earlier divergence's diagnosis found, neither shows: the state is probably its consequence.
    A change that explains something else (a cover rule's) marks nothing, and neither does an
    earlier divergence with no change to replay under."""
    from durak_spec.conformance.fuzz import Campaign, Entry
    name = f"python:{EXAMPLES}.mutants:passed_player_adds"
    setup = {"hands": [["QC", "KC", "QD", "KD", "QH", "KH"], ["AC", "8D", "8H", "9H"],
                       ["TS", "JS", "AS", "7C", "8C", "TC", "JC", "TD", "JD", "AD", "JH"],
                       ["8S", "9S", "9C", "9D"]],
             "talon": ["TH", "AH", "QS"], "trump": "QS", "dealer": 3, "attacker": 3,
             "table": [["6H", "7H"], ["6D", "KS"], ["7D", "7S"], ["6S", None], ["6C", None]],
             "defender": 0, "passed": [2], "bout": 4, "discard": 0}
    adapter = make_adapter(name, spec=spec)
    try:
        camp = Campaign(spec, adapter, adapter.open(), preset="podkidnoy", options={},
                        players=[4], seed_value=1, adapter_name=name, known={}, db=None,
                        db_key=b"")
        found = []
        camp.lock.on_divergence = found.append
        rs = camp.lock.ruleset
        camp.lock.play(Setup.from_json(setup, rs.deck, rs.player_limits), random.Random(0),
                       fixed=["0 take", "2 pass"])
        extra, state = [Entry(d, after=set(d.after)) for d in found]
        assert (extra.signature, state.witness.kind) == ("legal-extra throw_in.not_passed",
                                                         "state.table")
        assert extra.signature in state.witness.after
        camp.diagnose(extra, 10)
        assert extra.as_if == [] and extra.change[0] == "throw_in.not_passed"
        unexplained = Entry(extra.witness)  # the same divergence, no change found for it
        other = Entry(extra.witness, change=("defence.beat", "card.rank > target.rank"))
        for cause in (unexplained, other):
            refuted = Entry(state.witness, after=set(state.after))
            camp.settle_by_variant(refuted, state.witness, [cause, refuted])
            assert refuted.follows == [] and refuted.changed == {}
        camp.settle_by_variant(state, state.witness, [extra, state])
    finally:
        adapter.close()
    assert state.follows == ["legal-extra throw_in.not_passed"]
    assert state.changed == {"legal-extra throw_in.not_passed": {
        "rule": "throw_in.not_passed", "clause": extra.change[1]}}


def test_a_campaign_with_no_advice_to_confirm_gathers_no_evidence(spec, monkeypatch):
    """confirm_advice gathers the campaign's evidence (every step the engine agreed on, made
    into Observations) only when some root cause has an option value to confirm."""
    from types import SimpleNamespace

    from durak_spec.conformance import fuzz as fuzz_module
    from durak_spec.conformance.fuzz import Entry, confirm_advice
    from durak_spec.conformance.lockstep import Divergence

    gathered = []
    real = fuzz_module._evidence
    monkeypatch.setattr(fuzz_module, "_evidence", lambda camp, every: gathered.append(1) or
                        real(camp, every))
    rs = spec.ruleset("podkidnoy")
    setup = Setup.deal(rs, 2, 7)
    first = Game(rs, setup).legal_actions()[0]
    lock = SimpleNamespace(ruleset=rs, observed=[(setup, [(text_of(first), True, None, None)])],
                           starts=[])
    camp = SimpleNamespace(lock=lock, plays_as=lambda change, others: True)

    def entry(as_if):
        return Entry(Divergence("legal-extra", "throw_in.timing", "throw", None, [], [], "", {},
                                [], 2), as_if=as_if)
    confirm_advice(camp, [entry([])])
    assert gathered == []
    confirm_advice(camp, [entry([{"max_attack_cards": 5}])])
    assert gathered == [1]
