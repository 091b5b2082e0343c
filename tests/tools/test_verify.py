"""`durak verify` and the z3 backend (tools/z3*.py, tools/verify*.py).

The backend must mean what the Python backend means (checked on states from random games); the
invariants must be proved for a preset; copies of spec/ with a rule broken must each give a
counterexample for the right invariant that the interpreter reproduces; preset problems, boundary
cases and the D1 equivalence must come out as the research says.
"""

from __future__ import annotations

import functools
import io
import json
import multiprocessing
import random
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
import yaml
import z3
from cli_support import run
from rich.console import Console
from verify_support import symbolic_action

from durak_spec.conformance import fromdeal
from durak_spec.conformance.cases import parse_case
from durak_spec.reference_impl import vocab
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.lang import SEAT, STR
from durak_spec.reference_impl.primitives import PRIMITIVES
from durak_spec.reference_impl.ruleset import SEAT_DECISIONS
from durak_spec.tools.verify import boundary, cex, equiv, models
from durak_spec.tools.verify.backend import machine
from durak_spec.tools.verify.backend.concrete import Cards, replay
from durak_spec.tools.verify.backend.machine import PRIMITIVES as SYMBOLIC
from durak_spec.tools.verify.backend.machine import (
    RESULT_DECISIONS,
    Machine,
    conj,
    layer_slots,
    pair_aggregates,
    renamed,
)
from durak_spec.tools.verify.backend.state import (
    CALL_NAMES,
    VALUE_NAMES,
    SymAction,
    SymState,
    concrete,
    reset_names,
)
from durak_spec.tools.verify.backend.values import V, lean_z3, simp, solve_apart, zbool, zint
from durak_spec.tools.verify.boundary import generate, generate_fresh
from durak_spec.tools.verify.command import chains, run_all
from durak_spec.tools.verify.equiv import compare
from durak_spec.tools.verify.invariants import Induction, check, properties
from durak_spec.tools.verify.presets import dead_options, deals, pack
from durak_spec.tools.verify.report import SCHEMA, invariant_status, preset_entry
from durak_spec.tools.verify.run import verify_preset

# The invariant a plain card on a trump breaks. spec/invariants.yaml has none about beating yet,
# so the tests that need it add it to their copy of spec/.
COVER_INVARIANT = """  - id: inv.trump_covered_by_trump
    title: A trump is covered only by a trump
    text: No trump on the table is ever covered by a card that is not a trump.
    scope: state
    clause: "all(not is_trump(p.attack) or is_trump(p.cover) for p in covered)"
"""

BROKEN = {
    "attack cap removed": (
        "rules/limits.yaml", 'clause: "not limits_apply or within_cap"', 'clause: "True"',
        "inv.attack_cap"),
    "defender-hand bound reads the attacker's hand": (
        "rules/limits.yaml",
        'clause: "not limits_apply or table_attack_count + 1 <= defender_hand_at_start"',
        'clause: "not limits_apply or table_attack_count + 1 <= hand(attacker)"',
        "inv.unbeaten_le_hand"),
    "draw order reversed": (
        "rules/draw.yaml", 'clause: "0 if seat == attacker else (players if seat == defender',
        'clause: "players if seat == attacker else (0 if seat == defender', "inv.draw_order"),
    "a plain card beats a trump": (
        "definitions.yaml", "or (is_trump(card) and not is_trump(target) and",
        "or (is_trump(card) != is_trump(target) and", "inv.trump_covered_by_trump"),
}


def with_cover_invariant(spec_copy):
    """The spec copy with inv.trump_covered_by_trump (shipped now; added if a copy lacks it)."""
    path = spec_copy.root / "invariants.yaml"
    if "inv.trump_covered_by_trump" not in path.read_text():
        path.write_text(path.read_text() + COVER_INVARIANT)
    return spec_copy


# -- the backend ------------------------------------------------------------------------------

def test_every_vocabulary_name_has_a_symbolic_meaning():
    assert set(vocab.STATE) == VALUE_NAMES | CALL_NAMES
    assert {n for n, e in vocab.STATE.items() if e.args is not None} == CALL_NAMES


def test_every_primitive_of_the_flow_has_a_symbolic_model():
    assert set(SYMBOLIC) == set(PRIMITIVES)


def _candidates(game):
    """Legal actions and illegal ones near them: every card of every hand, every kind."""
    s = game.state
    out = list(game.legal_actions())
    for seat in range(s.n):
        out += [game.parse_action(f"{seat} {k}") for k in ("take", "pass")]
        for c in s.hands[seat][:3]:
            out += [game.parse_action(f"{seat} {k} {c}") for k in ("attack", "throw", "transfer")]
            out += [game.parse_action(f"{seat} cover {a} with {c}") for a, _ in s.table[:2]]
        for c in s.hands[seat][:1]:  # played as a named suit (only the Weli may be)
            named = f"{c}={'H' if c.suit != 'H' else 'S'}"
            out += [game.parse_action(f"{seat} {k} {named}") for k in ("attack", "throw")]
    return out


def _value(x):
    x = simp(x)
    return x if isinstance(x, (bool, int)) or x is None else simp(z3.simplify(x))


# House rules that real engines play (spec/options.yaml), set together so that random games reach
# the state and primitives they add.
HOUSE_RULES = {"going_out": "at_once", "defender_hand_bound": "defender_has_card",
               "thrower_order": "last_adder_priority", "pile_on": "when_all_beaten"}
MORE_HOUSE_RULES = {"done_by": "main_attacker", "pile_on": "one_at_a_time",
                    "no_trump_lead": "lowest_card"}
ROUND_TWO_HOUSE_RULES = {"going_out": "skipped_at_once", "transfer_last_card": False,
                         "thrower_order": "last_adder_clockwise", "throwers": "neighbours",
                         "thrower_order_after_take": "attacker_clockwise",
                         "pass_withdrawn_by": "any_card", "max_before_first_beat": 5}


@pytest.mark.parametrize("preset,n,options", [("podkidnoy", 3, {}), ("perevodnoy_online", 2, {}),
                                              ("podkidnoy_online", 4, {}),
                                              ("perevodnoy", 3, HOUSE_RULES),
                                              ("podkidnoy", 4, MORE_HOUSE_RULES),
                                              ("perevodnoy", 4, ROUND_TWO_HOUSE_RULES),
                                              ("podkidnoy", 3, {"thrower_order": "attacker_then_any",
                                                                "pass_withdrawn_by": "any_card"}),
                                              ("podkidnoy_teams", 4, {}),
                                              ("weli", 3, {"transfer": True})])
def test_the_z3_backend_agrees_with_the_python_backend_on_states_of_random_games(spec, preset, n,
                                                                                  options):
    assert _agree(spec.ruleset(preset, options), n, seeds=3, steps=60) > 500


def test_the_z3_backend_agrees_with_the_python_backend_under_every_preset(spec):
    """A short game per preset: its deck, trump option, deal and ending reach the backend too."""
    for preset in spec.presets:
        ruleset = spec.ruleset(preset)
        assert _agree(ruleset, ruleset.player_limits[0] + 1, seeds=1, steps=8) > 20, preset


def test_the_cards_in_play_read_alike_in_both_backends(spec):
    """deck.trump_exchange_card reads the cards still in play (D61): with the six of trumps
    discarded the seven may be swapped and the eight may not; with the six in the talon neither.
    On those states the z3 term of each swap is the interpreter's verdict; on a symbolic state,
    which does not hold the discard pile, it stays open."""
    positions = Path(__file__).resolve().parents[2] / "positions"
    ruleset = spec.ruleset("marmot_tournament")
    m = Machine(ruleset, 2)
    seen = {}
    for name in ("trump-exchange-after-six-discarded.yaml", "trump-exchange-six-in-play.yaml"):
        setup = Setup.from_json(yaml.safe_load((positions / name).read_text())["setup"], ruleset.deck)
        game = Game(ruleset, setup)
        s, cs = game.state, concrete(m, game.state)
        for text in ("1 swap 7H", "0 swap 8H"):
            a = game.parse_action(text)
            (cr, term), = [(cr, t) for cr, t in m.rule_terms(cs, symbolic_action(m, s, a))
                           if cr.rule.id == "deck.trump_exchange_card"]
            want = bool(cr.clause.fn(s, a.seat, a.card, a.target))
            assert _value(term) is want, (name, text)
            seen[(name, text)] = want
    assert seen == {("trump-exchange-after-six-discarded.yaml", "1 swap 7H"): True,
                    ("trump-exchange-after-six-discarded.yaml", "0 swap 8H"): False,
                    ("trump-exchange-six-in-play.yaml", "1 swap 7H"): False,
                    ("trump-exchange-six-in-play.yaml", "0 swap 8H"): False}
    fresh = SymState.fresh(m)
    sa = symbolic_action(m, game.state, game.parse_action("1 swap 7H"))
    (term,) = [t for cr, t in m.rule_terms(fresh, sa) if cr.rule.id == "deck.trump_exchange_card"]
    solver = z3.Solver()
    solver.add([zbool(c) for c in m.side])
    assert solver.check(zbool(term)) == z3.sat and solver.check(z3.Not(zbool(term))) == z3.sat


def _agree(ruleset, n, seeds, steps):
    """Compare the backends' invariants, decisions (the trump suit too) and rule terms on the states
    of `seeds` random games of at most `steps` steps; the number of rule terms compared."""
    m = Machine(ruleset, n)
    props = properties(ruleset)
    rng = random.Random(7)
    checked = 0
    for seed in range(seeds):
        game = Game.from_seed(ruleset, n, seed)
        while not game.is_terminal() and game.state.steps < steps:
            s = game.state
            cs = concrete(m, s)
            for p in props:
                want = p.clause.fn(s) if p.lemma else p.clause.fn(s, 0, "attack")
                assert _value(m.clause(cs, p.clause.tree, {"seat": _seat(0), "kind": _kind("attack")})) == bool(want), p.id
            for name, cr in ruleset.decisions.items():
                if name in RESULT_DECISIONS:
                    continue
                seats = range(n) if name in SEAT_DECISIONS else [None]
                for seat in seats:
                    want = cr.clause.fn(s, seat)
                    if isinstance(want, str):  # a suit letter; the backend numbers suits
                        want = m.suit_index(want)
                    have = _value(m.decide(cs, name, seat))
                    if "cards" in cr.clause.names and not isinstance(have, (bool, int, type(None))):
                        continue  # reads the cards of hands, which z3 over-approximates
                    assert have == want or (want is None and have is None), (name, seat)
            for a in _candidates(game):
                sa = symbolic_action(m, s, a)
                for cr, term in m.rule_terms(cs, sa):
                    assert _value(term) == bool(cr.clause.fn(s, a.seat, a.card, a.target)), (cr.rule.id, str(a))
                    checked += 1
            game.apply_action(rng.choice(game.legal_actions()))
    return checked


def _seat(x):
    return V(x, SEAT)


def _kind(k):
    return V(k, STR)


# -- invariants -------------------------------------------------------------------------------

def test_every_invariant_of_podkidnoy_is_proved_by_induction_for_two_and_three_players(spec):
    report = verify_preset(str(spec.root), "podkidnoy", {}, [2, 3], 3, equivalences=False)
    statuses = {k: c.status for k, c in report.cells.items()}
    assert set(statuses.values()) == {"proved", "never"}
    assert all(statuses[(inv["id"], "throw")] == "proved" for inv in spec.invariants
               if inv["scope"] != "deal_end")
    assert statuses[("inv.attack_cap", "transfer")] == "never"  # podkidnoy has no transfers
    # the deal_end invariants: proved over every result of a deal, or assumed (a deal's own facts)
    assert set(report.match.proved.values()) == {"proved", "assumed"}
    assert report.match.proved["inv.penalty_total"] == "proved"


def test_the_induction_is_not_vacuous(spec):
    """Every transition the proofs quantify over happens in some position they assume."""
    ind = Induction(spec.ruleset("perevodnoy"), 3, properties(spec.ruleset("perevodnoy")))
    proved, _ = ind.houdini()
    # (a kind this variant never allows, such as the passport's show here, is no transition)
    assert all(ind.possible(t, proved) for t in ind.transitions.values() if not t.never)
    assert sum(not t.never for t in ind.transitions.values()) >= 8
    ind.transitions["cover"].constraints.append(z3.BoolVal(False))  # a step that cannot happen
    assert not ind.possible(ind.transitions["cover"], proved)


def test_the_action_properties_asked_together_get_each_ones_own_answer(spec_copy):
    """Induction.action_scope asks all the action-scope properties of a kind in one question
    first and each alone only when that one is sat: with the defender allowed to throw, only
    inv.defender_never_attacks fails (at throws, and at passes, which a throw allows), each with
    the model its own question gets."""
    spec_copy.edit("rules/throw_in.yaml", 'clause: "seat != defender and not teammate(seat, defender)',
                   'clause: "not teammate(seat, defender)')
    ruleset = spec_copy.load().ruleset("podkidnoy")
    with lean_z3():
        ind = Induction(ruleset, 3, properties(ruleset))
        proved = ind.houdini()[0]
        found = ind.action_scope(proved)
        alone = {}
        for kind in vocab.ACTION_KINDS:
            t = ind.transitions[kind]
            for p in ind.action_props:
                if t.never:
                    alone[(p.id, kind)] = "never"
                    continue
                result, model = check(t.constraints + ind.side() + ind.pre_terms(t, proved)
                                      + [z3.Not(zbool(ind.term(p, t.pre, t.action)))])
                alone[(p.id, kind)] = model if result == z3.sat else None
    failing = {key for key, model in found.items() if model not in (None, "never")}
    assert ("inv.defender_never_attacks", "throw") in failing
    assert {pid for pid, _ in failing} == {"inv.defender_never_attacks"}
    assert {k: v if v in (None, "never") else v.sexpr() for k, v in found.items()} == \
        {k: v if v in (None, "never") else v.sexpr() for k, v in alone.items()}


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_verify_finds_a_counterexample_for_the_right_invariant_when_a_rule_is_broken(
        spec_copy, tmp_path, broken):
    rel, old, new, invariant = BROKEN[broken]
    with_cover_invariant(spec_copy).edit(rel, old, new)
    cases = tmp_path / "cases"
    result = run("--spec", str(spec_copy.root), "verify", "--variant", "podkidnoy", "--players", "2",
                 "--out", str(cases))
    assert result.exit_code == 1, result.output
    assert f"{invariant} / " in result.output and "counterexample" in result.output
    written = sorted((cases / "generated" / "counterexamples" / invariant).glob("*.yaml"))
    assert written, result.output
    spec = spec_copy.load()
    for path in written:
        data = yaml.safe_load(path.read_text())
        parse_case(data, spec, str(path), rel_id=str(path.relative_to(cases))[:-5])
        assert invariant in data["generated"]["failing"]
        ruleset = spec.ruleset("podkidnoy")
        game = Game(ruleset, Setup.from_json(data["setup"], ruleset.deck))
        game.apply_action(game.parse_action(data["steps"][0]["do"]))
        assert invariant in game.check_invariants()


def test_a_rule_broken_under_one_presets_option_is_caught_there_and_not_in_its_siblings(spec_copy):
    """Presets whose clauses translate alike ask z3 the same questions, answered once in the
    process (invariants.check); the cap broken under podkidnoy_trump_exchange's option alone
    changes its questions only, asked after its siblings' answers are known."""
    spec_copy.edit("rules/limits.yaml", 'clause: "not limits_apply or within_cap"',
                   'clause: "not limits_apply or within_cap or opt.trump_exchange != \'none\'"')
    root = str(spec_copy.root)

    def cap(preset):
        report = verify_preset(root, preset, {}, [2], 2, equivalences=False)
        return {report.cells[("inv.attack_cap", k)].status for k in ("attack", "throw")}
    assert cap("podkidnoy") == {"proved"}
    assert "counterexample" in cap("podkidnoy_trump_exchange")
    assert cap("poker_durak") == {"proved"}


def test_the_invariant_about_covers_is_proved_while_the_beating_rule_is_intact(spec_copy, tmp_path):
    with_cover_invariant(spec_copy)
    result = run("--spec", str(spec_copy.root), "verify", "--variant", "podkidnoy", "--players", "2",
                 "--invariant", "inv.trump_covered_by_trump", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "inv.trump_covered_by_trump" in result.output and "✗" not in result.output


def test_without_its_lemmas_an_invariant_is_only_proved_up_to_a_depth_and_says_why(spec):
    report = verify_preset(str(spec.root), "podkidnoy", {}, [2], 2, equivalences=False, lemmas=())
    cell = report.cells[("inv.unbeaten_le_hand", "throw")]
    assert cell.status == "bounded" and cell.depth == 2
    assert "no Setup states" in cell.note and "defender_hand_at_start=" in cell.note


# -- presets ----------------------------------------------------------------------------------

def test_six_players_can_not_be_dealt_six_cards_from_a_32_card_deck(spec_copy):
    spec_copy.edit("deck.yaml", 'ranks: ["6", "7",', 'ranks: ["7",').edit("deck.yaml", '"6": six, ', "")
    made = {d.players: d for d in deals(spec_copy.load().ruleset("podkidnoy"))}
    assert made[5].talon == 2 and "can't deal 6 cards to 6 players from 32 cards" in made[6].note


def test_six_players_on_36_cards_leave_no_card_to_turn_up(spec):
    made = {d.players: d for d in deals(spec.ruleset("podkidnoy"))}
    assert made[6].talon == 0 and "dealer's last card is the trump" in made[6].note
    assert made[2].talon == 24


def test_an_option_the_other_options_rule_out_is_a_problem_with_its_reason(spec_copy):
    spec_copy.edit("presets.yaml", "  podkidnoy_no_cap:", """  short_cap:
    title: Four cards a bout, five before the first discard
    extends: podkidnoy
    sources: [W19]
    options:
      max_attack_cards: 4
      first_bout_max: 5
  podkidnoy_no_cap:""")
    spec = spec_copy.load()
    problems, _ = dead_options(spec, "short_cap", spec.ruleset("short_cap"))
    assert len(problems) == 1 and "first_bout_max=5 has no effect" in problems[0]
    assert "limits.first_bout" in problems[0] or "within_first_bout_cap" in problems[0]


def test_verify_exits_1_on_a_preset_problem(spec_copy, tmp_path):
    spec_copy.edit("presets.yaml", "      max_attack_cards: null\n    cite:\n      max_attack_cards:\n        PGT-K-old:",
                   "      max_attack_cards: 4\n      first_bout_max: 5\n    cite:\n      max_attack_cards:\n"
                   "        PGT-K-old:")
    result = run("--spec", str(spec_copy.root), "verify", "--variant", "podkidnoy_no_cap",
                 "--players", "2", "--out", str(tmp_path))
    assert result.exit_code == 1 and "first_bout_max=5 has no effect" in result.output


# -- boundary cases ---------------------------------------------------------------------------

SHIPPED_BOUNDARY = Path(__file__).resolve().parents[2] / "conformance" / "cases" / "generated" / \
    "boundary"


def _replay(spec, case, preset):
    ruleset = spec.ruleset(preset)
    game = Game(ruleset, Setup.from_json(case["setup"], ruleset.deck))
    action = game.parse_action(case["steps"][0]["do"])
    return game, action


def test_boundary_cases_put_the_defender_hand_bound_exactly_at_its_edge(spec):
    cases, results = generate(spec, ["podkidnoy_online"], players=[2],
                              only={"limits.unbeaten_le_hand"})
    assert not any(r["skipped"] for r in results)
    by_verdict = {c["steps"][0]["expect"]: c for c in cases}
    for verdict, c in by_verdict.items():
        parse_case(c, spec, c["id"], rel_id=c["id"])
        assert c["id"] == f"generated/boundary/limits/limits.unbeaten_le_hand.{verdict}"
        assert c["generated"]["by"].startswith("durak verify")
        # no position a deal cannot reach; where the search finds the deal, the case carries it
        block = fromdeal.Reached.from_json(c["from_deal"]["podkidnoy_online"])
        assert block.status != "unreachable", block.why
        if block.status == "found":
            assert fromdeal.check(spec.ruleset("podkidnoy_online"), c["setup"], block,
                                  [c["steps"][0]["do"]]) is None
        game, action = _replay(spec, c, "podkidnoy_online")
        s = game.state
        unbeaten_after = s.unbeaten + (1 if action.kind in ("attack", "throw") else 0)
        hand = len(s.hands[s.defender])
        if verdict == "accept":
            assert action in game.legal_actions() and unbeaten_after == hand
        else:
            assert game.explain(action)[0] == "limits.unbeaten_le_hand" and unbeaten_after == hand + 1
    assert set(by_verdict) == {"accept", "reject"}


def test_boundary_generation_in_a_fresh_process_gives_the_same_cases_every_time(spec):
    first = generate_fresh(spec.root, ["podkidnoy"], [2], {"defence.take", "attack.opener"})
    again = generate_fresh(spec.root, ["podkidnoy"], [2], {"defence.take", "attack.opener"})
    assert len(first[0]) == 4 and json.dumps(first) == json.dumps(again)


def test_write_boundary_puts_its_cases_and_skips_in_the_report(tmp_path, monkeypatch):
    """--write-boundary --report: the cases written and the clauses skipped, with why, are in the
    report (`boundary`), not only on the console; the section is absent without the flag."""
    from durak_spec.tools.verify import command
    monkeypatch.setattr(command, "write_boundary_cases", functools.partial(
        boundary.write_boundary_cases, players=[2], only={"defence.take", "transfer.rank"}))
    for flag in ("--write-boundary", None):
        report = tmp_path / f"{flag}.json"
        result = run("verify", "--variant", "podkidnoy", "--players", "2", "--out",
                     tmp_path / "out", "--report", report, "-q", *filter(None, [flag]))
        assert result.exit_code == 0, result.output
        data = json.loads(report.read_text())
        if flag is None:
            assert "boundary" not in data
            continue
        assert [(e["rule"], e["verdict"]) for e in data["boundary"]] == [
            ("defence.take", "accept"), ("defence.take", "reject"),
            ("transfer.rank", "accept"), ("transfer.rank", "reject")]
        files = [c["file"] for e in data["boundary"] for c in e["cases"]]
        assert files and all((tmp_path / "out" / f).is_file() for f in files)
        assert all(e["skipped"][0]["presets"] == ["podkidnoy"] for e in data["boundary"][2:])


def test_rewriting_the_boundary_cases_retires_the_ids_it_no_longer_writes(spec, tmp_path):
    """An id written before and not now keeps a retired marker naming where its rule and
    verdict went (CASES.md: a retired id is never reused); a marker already there keeps its
    reason; files of rules outside `only` are left alone."""
    folder = tmp_path / "generated" / "boundary" / "defence"
    folder.mkdir(parents=True)
    stale = {"defence.take.weli.accept": {"id": "x", "description": "an older run's case"},
             "defence.take.reject": {"id": "generated/boundary/defence/defence.take.reject",
                                     "retired": "unreachable"},
             "defence.beat.accept": {"id": "other"}}
    for name, data in stale.items():
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(data))
    paths, results = boundary.write_boundary_cases(spec, ["podkidnoy"], tmp_path, [2],
                                                   {"defence.take"})
    read = {p.stem: yaml.safe_load(p.read_text()) for p in folder.glob("*.yaml")}
    assert read["defence.beat.accept"] == {"id": "other"}
    gone = read["defence.take.weli.accept"]
    assert set(gone) == {"id", "retired"} and gone["id"].endswith("defence.take.weli.accept")
    assert "generated/boundary/defence/defence.take." in gone["retired"]
    assert read["defence.take.reject"]["retired"] == "unreachable"
    written = {p.stem for p in paths}
    assert "defence.take.reject" not in written and "defence.take.accept" in written
    for p in paths:
        parse_case(yaml.safe_load(p.read_text()), spec, p.stem)


def test_the_shipped_boundary_cases_still_get_their_verdicts(spec):
    files = sorted(SHIPPED_BOUNDARY.rglob("*.yaml"))
    assert files, "run durak verify --write-boundary"
    for path in files:
        case = yaml.safe_load(path.read_text())
        if "retired" in case:  # its position is unreachable from a deal (durak cases from-deal)
            continue
        step = case["steps"][0]
        for preset in case["variants"]:
            game, action = _replay(spec, case, preset)
            if step["expect"] == "accept":
                assert action in game.legal_actions(), (case["id"], preset)
            else:
                assert game.explain(action)[0] == step["rule"], (case["id"], preset)


def test_a_question_gets_the_same_model_whatever_the_process_built_before():
    """z3 numbers terms in the order a context makes them and searches by those numbers; the
    checks solve apart (values.solve_apart), so the model (a witness, a counterexample) does not
    depend on what other presets built earlier in the same worker."""
    def model(tag, history):
        if history:  # the same variables made earlier, in another order, inside other terms
            made = [z3.Int(f"{tag}.x{i}") for i in reversed(range(6))]
            _ = [z3.Int(f"{tag}.y{i}") + x for i, x in enumerate(made)]
        xs = [z3.Int(f"{tag}.x{i}") for i in range(6)]
        result, m = solve_apart([z3.Sum(xs) == 7] + [x >= 0 for x in xs] + [z3.Distinct(xs[:3])],
                                10000)
        assert result == z3.sat
        return [m.eval(x).as_long() for x in xs]

    models = [model(f"history{k}", k % 2) for k in range(4)]
    assert all(m == models[0] for m in models)


def _witnesses_translated(m, s):
    """Machine.throw_witnesses as it was before renaming: each seat's clauses translated."""
    out = []
    for y in range(m.n):
        w = SymAction.fresh("throw", m.nranks, m.nsuits, f"-witness{y}")
        ct = z3.Bool(f"can_throw[{y}]@{w.seat}")
        m.side.append(z3.Implies(ct, conj([w.seat == y, m.action_facts(s, w), w.card_in_hand,
                                           m.passes_rules(s, w)])))
        out.append(ct)
    return out


@pytest.mark.parametrize("tag", ["pre", "mid"])
def test_renamed_throw_witnesses_are_the_terms_translating_each_seat_gives(spec, tag, monkeypatch):
    """Machine.throw_witnesses translates one seat's throw clauses and renames them for the
    others: for every preset and player count, the constraints are the very terms (same ids)
    that translating every seat makes, and the names made after them are the same too."""
    calls = []
    monkeypatch.setattr(machine, "renamed", lambda t, pairs: calls.append(1) or renamed(t, pairs))
    with lean_z3():
        for preset in spec.presets:
            ruleset = spec.ruleset(preset)
            lo, hi = ruleset.player_limits
            for n in range(lo, hi + 1):
                built = []
                for make in (lambda m, s: s.can_throw, _witnesses_translated):
                    reset_names()
                    m = Machine(ruleset, n)
                    s = SymState.fresh(m, tag)
                    start = len(m.side)
                    cts = make(m, s)
                    after = SymState.fresh(m, "after")  # the names made next
                    built.append(([t.get_id() for t in cts + m.side[start:]],
                                  after.f["talon"].get_id(), len(s._havoc)))
                assert built[0] == built[1], (preset, n)
    assert calls  # the renaming was used


def test_a_machine_reads_its_own_rulesets_pair_aggregates_and_layer_slots(spec):
    """Machines share their ruleset's pair aggregates and layer slots (made once per ruleset):
    after machines of every preset, and of podkidnoy with a partial pickup, each still has those
    of its own ruleset."""
    rulesets = [spec.ruleset(p) for p in spec.presets]
    rulesets.append(spec.ruleset("podkidnoy", {"pickup_limit": "hand"}))
    machines = [Machine(r, 2) for r in rulesets] + [Machine(r, 3) for r in rulesets]
    for m in machines:
        assert m.layer_slots == layer_slots(m.ruleset), m.ruleset.preset
        assert [a.key for a in m.pair_aggregates] == [a.key for a in pair_aggregates(m.ruleset)]
    assert len({m.layer_slots for m in machines}) > 1


def test_lean_z3_still_rejects_a_wrong_sort_and_puts_z3s_checks_back():
    saved = getattr(z3.z3, "Z3_DEBUG", None)
    with lean_z3():
        with pytest.raises(z3.Z3Exception):
            z3.And(z3.Int("lean.x"), z3.Bool("lean.b"))
    assert getattr(z3.z3, "Z3_DEBUG", None) == saved


def test_simp_reads_z3s_true_and_false_in_any_context_and_nothing_else():
    made = z3.simplify(z3.And(z3.Bool("simp.b"), z3.Not(z3.Bool("simp.b"))))
    assert simp(made) is False and simp(z3.simplify(z3.Or(made, z3.Not(made)))) is True
    assert simp(z3.BoolVal(True, ctx=z3.Context())) is True
    assert simp(z3.Not(z3.BoolVal(True))) is not False and simp(z3.Int("simp.x") + 0) is not False


# -- equivalences -----------------------------------------------------------------------------

def test_the_two_readings_of_the_hand_bound_agree_without_transfers(spec):
    ruleset = spec.ruleset("podkidnoy")
    ind = Induction(ruleset, 2, properties(ruleset))
    proved = ind.houdini()[0]
    found = compare(spec, "podkidnoy", {}, "start_of_bout", "unbeaten_le_current", [2], lambda n: proved)
    assert found.equal_players == [2] and found.witness is None


def test_the_readings_part_after_a_late_transfer_and_the_interpreter_agrees(spec):
    overrides = {"transfer_window": "while_unbeaten_share_rank"}
    ruleset = spec.ruleset("perevodnoy", overrides)
    ind = Induction(ruleset, 2, properties(ruleset))
    proved = ind.houdini()[0]
    assert "lemma.hand_at_start" in proved  # in its weaker form, an inequality, after a late transfer
    found = compare(spec, "perevodnoy", overrides, "start_of_bout", "unbeaten_le_current", [2],
                    lambda n: proved)
    assert found.witness is not None and found.agrees is True
    assert " transfer " in found.witness["actions"][0]
    assert set(found.witness["interpreter"].values()) & {"limits.hand_at_start", "limits.unbeaten_le_hand"}


def test_the_literal_reading_differs_and_the_interpreter_agrees(spec):
    ruleset = spec.ruleset("podkidnoy")
    proved = Induction(ruleset, 2, properties(ruleset)).houdini()[0]
    found = compare(spec, "podkidnoy", {}, "start_of_bout", "total_le_current", [2], lambda n: proved)
    assert found.agrees is True
    assert found.witness["interpreter"]["total_le_current"] == "limits.total_le_hand"


class _Refusing(Cards):
    """Real cards for a model, except for the counts (hands, talon, table) in `refused`: the
    first model the search asks cards for is refused, and with `every`, every model."""

    refused: list = []
    every = False

    def constraints(self):
        counts = (tuple(self.hands), self.talon, self.A, self.U)
        if not self.refused or self.every:
            self.refused.append(counts)
        return super().constraints() + [counts not in self.refused]


def test_a_model_no_cards_fill_is_excluded_and_z3_asked_again_in_the_same_question(
        spec, monkeypatch):
    """Whether a player count gets a witness must not depend on which model z3 returns first:
    where real cards fill no position with the first model's counts, the witness search
    excludes those counts and asks the same question again (models.Search). It used to move on
    to the next question: a witness after a first action, or none."""
    ruleset = spec.ruleset("podkidnoy")
    proved = Induction(ruleset, 2, properties(ruleset)).houdini()[0]
    plain = compare(spec, "podkidnoy", {}, "start_of_bout", "total_le_current", [2], lambda n: proved)
    assert len(plain.witness["actions"]) == 1  # found at once, without a first action
    monkeypatch.setattr(_Refusing, "refused", [])
    monkeypatch.setattr(models, "Cards", _Refusing)
    found = compare(spec, "podkidnoy", {}, "start_of_bout", "total_le_current", [2], lambda n: proved)
    assert len(_Refusing.refused) == 1 and found.witness is not None and found.agrees is True
    assert len(found.witness["actions"]) == 1  # the same question, another model
    setup = found.witness["setup"]
    counts = (tuple(map(len, setup["hands"])), len(setup["talon"]), len(setup.get("table", [])),
              sum(d is None for _, d in setup.get("table", [])))
    assert counts not in _Refusing.refused


def test_a_witness_search_that_runs_out_of_models_says_it_gave_up_not_that_none_exists(
        spec, monkeypatch):
    """Where no model the bound allows gets real cards, the note says the search gave up after
    so many models; the note that no action reaches a differing position is for questions z3
    proves have no model left (perevodnoy_passport, where all of them have none)."""
    ruleset = spec.ruleset("podkidnoy")
    proved = Induction(ruleset, 2, properties(ruleset)).houdini()[0]
    monkeypatch.setattr(_Refusing, "refused", [])
    monkeypatch.setattr(_Refusing, "every", True)
    monkeypatch.setattr(models, "Cards", _Refusing)
    monkeypatch.setattr(equiv, "MAX_MODELS", 2)
    found = compare(spec, "podkidnoy", {}, "start_of_bout", "total_le_current", [2], lambda n: proved)
    assert found.witness is None and len(_Refusing.refused) >= 2
    assert found.note == (f"at 2 players the clauses differ, but the witness search gave up "
                          f"after {len(_Refusing.refused)} models")
    shown = io.StringIO()
    equiv.render_equivalences(Console(file=shown, width=300), [found])
    assert f"start_of_bout and total_le_current: {found.note}" in shown.getvalue()
    passport = spec.ruleset("perevodnoy_passport")
    proved = Induction(passport, 2, properties(passport)).houdini()[0]
    monkeypatch.setattr(models, "Cards", Cards)
    found = compare(spec, "perevodnoy_passport", {}, "start_of_bout", "unbeaten_le_current", [2],
                    lambda n: proved)
    assert found.witness is None and found.note == ("at 2 players the clauses differ only in "
                                                    "positions that no action reaches from a "
                                                    "position a Setup states")


def _first_actions(terms, kinds) -> set:
    """The first-action kinds whose variables (`transfer#3.seat`, ...) occur in the terms."""
    seen, found, todo = set(), set(), list(terms)
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.update(k for k in kinds if str(t).startswith(f"{k}#"))
        todo.extend(t.children())
    return found


@pytest.mark.parametrize("preset,overrides,b,parts", [
    ("perevodnoy", {"transfer_window": "while_unbeaten_share_rank"}, "unbeaten_le_current", True),
    ("perevodnoy_passport", {}, "unbeaten_le_current", False)])  # every first action tried
def test_the_witness_search_asks_over_the_comparisons_state_each_first_action_apart(
        spec, monkeypatch, preset, overrides, b, parts):
    """The witness search reuses the comparison's machines, state and facts (equiv._Start) for
    all its first actions: every question it asks holds all the comparison's facts (the proved
    properties among them), and no other first action's facts than its own (the side
    constraints, which only define fresh variables, aside). It fails when the search drops a
    fact or lets one first action's facts into the next one's questions."""
    ruleset = spec.ruleset(preset, overrides)
    proved = Induction(ruleset, 2, properties(ruleset)).houdini()[0]
    asked, starts = [], []
    real_witness, real_check = equiv._witness, models.check

    def witness(start):  # its questions reach z3 through the model search (models.Search)
        starts.append(start)
        monkeypatch.setattr(models, "check", lambda q: asked.append(q) or real_check(q))
        try:
            return real_witness(start)
        finally:
            monkeypatch.setattr(models, "check", real_check)
    monkeypatch.setattr(equiv, "_witness", witness)
    found = compare(spec, preset, overrides, "start_of_bout", b, [2], lambda n: proved)
    assert (found.agrees is True if parts else found.witness is None and found.note)
    assert len(starts) == 1 and len(asked) >= 3  # after a first action
    start = starts[0]
    assert len(start.facts) == 2 + sum(p.scope == "state" for p in properties(ruleset) if p.id in proved)
    side = {t.get_id() for m in (start.mp, start.ma, start.mb) for t in m.side}
    firsts = ("transfer", "cover", "throw", "attack")
    for query in asked:
        terms = [zbool(t) for t in query if not isinstance(zbool(t), bool)]
        facts = [zbool(f) for f in start.facts if not isinstance(zbool(f), bool)]
        assert facts and {f.get_id() for f in facts} <= {t.get_id() for t in terms}
        own = [t for t in terms if t.get_id() not in side]
        # the kinds of the question's own action (attack or throw) occur too: at most one other
        assert len(_first_actions(own, firsts) - {"attack", "throw"}) <= 1


# -- the command line -------------------------------------------------------------------------

def test_verify_over_every_preset_and_player_count_proves_everything(full_verify, spec):
    """What CI promises: the full `durak verify` over all presets has no counterexample, and its
    --report says so per preset, invariant and step, as its schema describes."""
    output = full_verify["output"]
    assert full_verify["exit_code"] == 0, output[-6000:]
    assert "counterexample" not in output.split("Equivalences")[0]
    assert "0 problem(s)" in output and "run time" in output
    report = json.loads(Path(full_verify["report"]).read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(report)
    assert report["problems"] == 0
    assert [p["preset"] for p in report["presets"]] == list(spec.presets)
    status = invariant_status(report)
    deal_ids = [inv["id"] for inv in spec.invariants if inv["scope"] != "deal_end"]
    assert set(status) >= set(deal_ids)
    assert all(status[i][p][0] == "proved" for i in deal_ids for p in spec.presets)
    assert not list(Path(full_verify["cases"]).rglob("*.yaml"))  # no counterexample written


def _witnesses(report_path, presets) -> dict:
    report = json.loads(Path(report_path).read_text())
    return {(p["preset"], e["a"], e["b"], json.dumps(e["overrides"])): e["witness"]
            for p in report["presets"] if p["preset"] in presets for e in p["equivalences"]}


def test_the_witnesses_are_the_same_alone_and_in_the_full_run(full_verify, tmp_path):
    """The D1 witnesses of two_packs and perevodnoy_online from a process of their own, in that
    order (two_packs first, alone; then perevodnoy_online after it), are those the full run
    reported (two workers, each after other presets). z3's default solver answered their card
    problems with models that changed with the state of the process: two_packs alone had
    another witness than in the full run (values.tactic_solver)."""
    presets = ("two_packs", "perevodnoy_online")
    subprocess.run([sys.executable, "-m", "durak_spec.tools.cli", "verify", "-q", "--jobs", "1",
                    *(a for p in presets for a in ("--variant", p)), "--out", str(tmp_path),
                    "--report", str(tmp_path / "report.json")], capture_output=True, check=False)
    alone = _witnesses(tmp_path / "report.json", presets)
    assert sum(w is not None for w in alone.values()) >= 2  # the literal reading parts there
    assert alone == _witnesses(full_verify["report"], presets)


def test_the_verify_report_names_a_broken_rules_counterexample_and_the_docs_status_shows_it(
        spec_copy, tmp_path):
    """The report of a spec copy whose attack cap is gone: the command exits 1, the report counts
    the problem and inv.attack_cap's status per preset is a counterexample (what the docs show)."""
    file, old, new, invariant = BROKEN["attack cap removed"]
    spec_copy.edit(f"{file}", old, new)
    out = tmp_path / "r.json"
    result = run("--spec", spec_copy.root, "verify", "--variant", "podkidnoy", "--players", "2",
                 "--out", tmp_path / "cases", "--report", out)
    assert result.exit_code == 1, result.output
    report = json.loads(out.read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(report)
    assert report["problems"] >= 1
    assert invariant_status(report)[invariant]["podkidnoy"][0] == "counterexample"


def test_presets_one_option_apart_are_checked_in_one_worker_and_report_as_alone(spec):
    """podkidnoy and perevodnoy (one option apart, the same pack) run in one worker, which
    answers the questions their inductions share once; each report is the one the preset gets
    in a process of its own, so an answer remembered from the other preset is its own."""
    presets = list(spec.presets)
    twins = {p: None for p in presets}
    runs = [[presets[i] for i in group] for group in chains(spec, presets, {}, twins)]
    assert ["podkidnoy", "perevodnoy"] in runs
    for group in runs:
        rulesets = [spec.ruleset(p) for p in group]
        for a, b in zip(rulesets, rulesets[1:]):
            assert pack(a.deck) == pack(b.deck)
            assert sum(a.options[n] != b.options[n] for n in a.options) == 1
    pair = ["podkidnoy", "perevodnoy"]
    together = run_all(spec, pair, {}, (2,), 4, 2, True)
    alone = []
    for p in pair:  # each in a fresh process
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            alone.append(pool.submit(verify_preset, str(spec.root), p, {}, [2], 4).result())

    def entry(report):
        return {k: v for k, v in preset_entry(report).items() if k != "seconds"}
    assert [entry(r) for r in together] == [entry(r) for r in alone]


def test_a_twin_preset_shows_its_twins_status_and_the_worst_step_wins():
    cell = {"players": [2]}
    report = {"presets": [
        {"preset": "a", "twin": None, "invariants": [{"id": "inv.x", "steps": {
            "attack": {**cell, "status": "proved"}, "cover": {**cell, "status": "bounded", "depth": 4},
            "transfer": {**cell, "status": "never"}}}]},
        {"preset": "b", "twin": "a", "invariants": []}]}
    status = invariant_status(report)
    assert status["inv.x"]["a"] == ("bounded", "depth 4")
    assert status["inv.x"]["b"] == ("bounded", "depth 4")


def test_verify_prints_its_run_time_and_exits_0_when_everything_is_proved(tmp_path):
    result = run("verify", "--variant", "podkidnoy", "--players", "2", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "run time" in result.output and "0 problem(s)" in result.output


@pytest.mark.parametrize("args,message", [
    (["--variant", "podkidnoi"], "unknown preset 'podkidnoi'. Did you mean 'podkidnoy'?"),
    (["--invariant", "inv.atack_cap"], "unknown invariant 'inv.atack_cap'. Did you mean 'inv.attack_cap'?"),
    (["--players", "7"], "this deck is for 2 to 6 players"),
])
def test_bad_verify_arguments_get_one_line_and_exit_2(args, message):
    result = run("verify", *args)
    assert result.exit_code == 2 and message in result.output


REVEAL_STEP = '    - {do: reveal_hidden_card, when: "opt.changeable_trump and hidden_card and talon_count < 2"}\n'


def test_the_hidden_card_is_proved_turned_up_only_while_the_flow_turns_it_up(spec, spec_copy):
    """inv.hidden_card_under_turn_up is proved by induction under changeable_trump; with the
    reveal step dropped from the flow after a take, the induction fails for that step."""
    cell = ("inv.hidden_card_under_turn_up", "bout_taken")
    proved = verify_preset(str(spec.root), "changeable_trump", {}, [2], 2, equivalences=False)
    assert proved.cells[cell].status == "proved"
    text = (spec_copy.root / "flow.yaml").read_text()
    at = text.index(REVEAL_STEP, text.index("bout_taken:"))
    (spec_copy.root / "flow.yaml").write_text(text[:at] + text[at + len(REVEAL_STEP):])
    broken = verify_preset(str(spec_copy.root), "changeable_trump", {}, [2], 2, equivalences=False)
    assert broken.cells[cell].status != "proved", broken.cells[cell]
    assert broken.cells[("inv.hidden_card_under_turn_up", "bout_beaten_off")].status == "proved"


def test_a_redeal_window_that_lets_play_be_undone_breaks_the_redeal_invariant(spec, spec_copy):
    """inv.redeal_before_play is proved for the redeal step; with rule deck.redeal_window gone
    it is not."""
    cell = ("inv.redeal_before_play", "redeal")
    proved = verify_preset(str(spec.root), "marmot_tournament", {}, [2], 2, equivalences=False)
    assert proved.cells[cell].status == "proved"
    spec_copy.edit("rules/deck.yaml",
                   'clause: "bout_number == 1 and beaten_bouts == 0 and table_attack_count == 0"',
                   'clause: "True"')
    broken = verify_preset(str(spec_copy.root), "marmot_tournament", {}, [2], 2, equivalences=False)
    assert broken.cells[cell].status != "proved", broken.cells[cell]


def test_a_position_z3_finds_with_a_hidden_card_is_written_with_it_and_replays(spec):
    """A counterexample's cards (tools/verify/backend/concrete.py) lay a hidden card of the suit
    the abstract state makes trump under the turn-up, and the interpreter takes the setup."""
    rs = spec.ruleset("changeable_trump")
    m = Machine(rs, 2)
    s0 = SymState.fresh(m)
    f = s0.f
    query = [m.well_formed(s0), m.expressible(s0), m.settled(s0), zbool(f["hidden"]),
             zint(f["talon"]) == 5, zint(f["A"]) == 0, zint(f["hand"][0]) == 6,
             zint(f["hand"][1]) == 6, zint(f["discard"]) == 19, zint(f["hidden_trump"]) != f["trump"]]
    solver = z3.Solver()
    solver.add([zbool(q) for q in query] + [zbool(c) for c in m.side])
    assert solver.check() == z3.sat
    model = solver.model()
    position = Cards(m, model, s0, [], query).solve()
    assert position is not None and position.setup["hidden"] == position.setup["talon"][-1]
    game, why = replay(rs, position)
    assert game is not None, why
    hidden = game.state.hidden_card
    assert m.suits.index(hidden.suit) == model.eval(f["hidden_trump"]).as_long()


def test_a_models_block_excludes_its_counts_and_its_hidden_card_and_nothing_else(spec):
    """Cards.block, which the model search (models.Search) adds when no cards fill a model: the
    models with that model's counts and hidden flag (and, where it lays a card hidden under the
    turn-up, that card's trump and suit), whose card problems hold the same constraints; a
    model with the same counts and the other hidden flag asks another card problem and stays."""
    rs = spec.ruleset("changeable_trump")
    m = Machine(rs, 2)
    s0 = SymState.fresh(m)
    f = s0.f
    query = [m.well_formed(s0), m.expressible(s0), m.settled(s0), zint(f["talon"]) == 5,
             zint(f["A"]) == 0, zint(f["hand"][0]) == 6, zint(f["hand"][1]) == 6]
    base = [zbool(q) for q in query] + [zbool(c) for c in m.side]

    def model(*extra):
        solver = z3.Solver()
        solver.add(base + list(extra))
        assert solver.check() == z3.sat
        return solver.model()

    def possible(*extra) -> bool:
        solver = z3.Solver()
        solver.add(base + list(extra))
        return solver.check() == z3.sat
    hidden = model(zbool(f["hidden"]))
    block = Cards(m, hidden, s0, [], query).block()
    same = [x == hidden.eval(x, model_completion=True) for x in (f["trump"], f["hidden_trump"])]
    assert not possible(block, zbool(f["hidden"]), *same)
    assert possible(block, z3.Not(zbool(f["hidden"])), *same)
    assert possible(block, zbool(f["hidden"]), z3.Not(z3.And(same)))
    plain = model(z3.Not(zbool(f["hidden"])))
    block = Cards(m, plain, s0, [], query).block()
    assert not possible(block, z3.Not(zbool(f["hidden"]))) and possible(block, zbool(f["hidden"]))


def test_the_card_problem_keeps_the_hidden_flag_so_the_position_is_its_models(spec):
    """Cards._position writes the hidden card from the card problem's model, whose hidden flag
    (and trump and hidden suit, with a hidden card) is the first model's: the cards are laid for
    it. The flag used to be free there: a model of the card problem could lack the hidden card
    the position wrote, or have one it did not write."""
    rs = spec.ruleset("changeable_trump")
    m = Machine(rs, 2)
    s0 = SymState.fresh(m)
    f = s0.f
    query = [m.well_formed(s0), m.expressible(s0), m.settled(s0), zint(f["talon"]) == 5,
             zint(f["A"]) == 0, zint(f["hand"][0]) == 6, zint(f["hand"][1]) == 6] + m.side
    for flag in (True, False):
        solver = z3.Solver()
        solver.add([zbool(q) for q in query] + [zbool(f["hidden"]) == flag])
        assert solver.check() == z3.sat
        cards = Cards(m, solver.model(), s0, [], query)
        problem = [zbool(x) for x in query + cards.constraints()]
        other = z3.Solver()
        other.add(problem + [zbool(f["hidden"]) != flag])
        assert other.check() == z3.unsat  # sat without the flag in Cards.fixed
        position = cards.solve()
        assert ("hidden" in position.setup) == flag
        game, why = replay(rs, position)
        assert game is not None, why
        assert (game.state.hidden_card is not None) == flag


def _pinned(spec, preset="changeable_trump"):
    """The preset at 2 players: a legal attack from a position with its counts pinned (hands 6
    and 6, talon 5, empty table); under changeable_trump a card may lie hidden under the turn-up."""
    rs = spec.ruleset(preset)
    m = Machine(rs, 2)
    s0 = SymState.fresh(m, "pin")
    a = SymAction.fresh("attack", m.nranks, m.nsuits)
    f = s0.f
    query = [m.well_formed(s0), m.expressible(s0), m.settled(s0), m.legal(s0, a),
             zint(f["talon"]) == 5, zint(f["A"]) == 0, zint(f["hand"][0]) == 6,
             zint(f["hand"][1]) == 6] + m.side
    return rs, m, s0, a, query


def _search_through(which, monkeypatch, rs, m, s0, a, query):
    """The position the counterexample or boundary search returns for `query`, every position
    it meets accepted (the interpreter's say is not the point here)."""
    if which == "cex":
        monkeypatch.setattr(cex, "_composite", lambda *args, **kw: iter([("attack", s0, a, None, query)]))
        monkeypatch.setattr(cex, "confirm", lambda ruleset, prop, position: ({}, []))
        ind = SimpleNamespace(m=m, n=2, ruleset=rs)
        found, _ = cex.find_counterexample(ind, "changeable_trump", SimpleNamespace(id="p"), "attack", set())
        return None if found is None else found.position
    monkeypatch.setattr(boundary, "_verdict", lambda ruleset, setup, action: ("accept", ""))
    monkeypatch.setattr(boundary, "_reachable", lambda ruleset, setup, action: True)
    return boundary._attempt(rs, SimpleNamespace(id="r"), "accept", models.Search(boundary.ATTEMPTS),
                             m, query, s0, a)


@pytest.mark.parametrize("which", ["cex", "boundary"])
def test_a_model_no_cards_fill_excludes_its_hidden_flag_too_in_the_cex_and_boundary_search(
        spec, monkeypatch, which):
    """The counterexample and boundary searches exclude a model no cards fill as the witness
    search does (models.Search, Cards.block): its counts and hidden flag, not its counts alone,
    which also excluded the same counts with the other flag, a card problem of its own that may
    have cards. Here every model has the same counts and the first gets no cards: the search
    must come back with the other flag (it used to come back with nothing)."""
    rs, m, s0, a, query = _pinned(spec)
    solve, refused = Cards.solve, []

    def first_refused(self):
        if not refused:
            refused.append(self.hidden)
            self.result = z3.unsat
            return None
        return solve(self)
    monkeypatch.setattr(Cards, "solve", first_refused)
    position = _search_through(which, monkeypatch, rs, m, s0, a, query)
    assert len(refused) == 1 and position is not None
    setup = position.setup
    assert [len(h) for h in setup["hands"]] == [6, 6] and len(setup["talon"]) == 5
    assert ("hidden" in setup) != refused[0]


def test_the_cex_search_says_where_it_gave_up(spec, monkeypatch):
    """A counterexample search whose models all get no cards is not a proof that no position a
    Setup states breaks the property: its Search says it gave up (run.py writes the player count
    in the cell's gave_up and the note says so), at its bound or where the interpreter refused a
    position; one whose question has no model left is."""
    rs, m, s0, a, query = _pinned(spec)
    loose = query[:4] + query[8:]  # the hand sizes, talon and table not pinned
    monkeypatch.setattr(cex, "_composite", lambda *args, **kw: iter([("attack", s0, a, None, loose)]))
    met = []

    def refuse(ruleset, prop, position):  # refuses each position, noting its counts
        setup = position.setup
        met.append((tuple(map(len, setup["hands"])), len(setup["talon"]), len(setup.get("table", []))))
    monkeypatch.setattr(cex, "confirm", refuse)
    ind = SimpleNamespace(m=m, n=2, ruleset=rs)
    found, search = cex.find_counterexample(ind, "changeable_trump", SimpleNamespace(id="p"), "attack", set())
    assert found is None and not search.complete and search.models == cex.ATTEMPTS
    assert search.gave_up() == f"gave up after {cex.ATTEMPTS} models ({cex.ATTEMPTS} position(s) refused)"
    # after a refused position (nothing proved) the next model has other counts, not the same
    # counts with another hidden card (models.Search, Cards.block(counts_only=True))
    assert len(met) == cex.ATTEMPTS and len(set(met)) == len(met)
    monkeypatch.setattr(cex, "_composite", lambda *args, **kw: iter([("attack", s0, a, None, query)]))
    found, search = cex.find_counterexample(ind, "changeable_trump", SimpleNamespace(id="p"), "attack", set())
    assert found is None and search.models == 1 and not search.complete  # the counts pinned
    rs, m, s0, a, query = _pinned(spec, "podkidnoy")  # no hidden card: one model of these counts
    ind = SimpleNamespace(m=m, n=2, ruleset=rs)
    monkeypatch.setattr(cex, "_composite", lambda *args, **kw: iter([("attack", s0, a, None, query)]))
    found, search = cex.find_counterexample(ind, "podkidnoy", SimpleNamespace(id="p"), "attack", set())
    assert found is None and search.models == 1 and not search.complete
    assert search.gave_up() == "gave up after 1 model (1 position(s) refused)"
    monkeypatch.setattr(cex, "_composite", lambda *args, **kw: iter(
        [("attack", s0, a, None, query + [zint(s0.f["talon"]) == 4])]))
    found, search = cex.find_counterexample(ind, "changeable_trump", SimpleNamespace(id="p"), "attack", set())
    assert found is None and search.complete and search.models == 0 and search.gave_up() == ""
