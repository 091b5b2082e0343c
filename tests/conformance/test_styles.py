"""One example engine per engine style (conformance/examples/style_*.py, PROTOCOL.md "Action
models"): each clean one passes every podkidnoy case under the variant it declares, each broken
twin fails on the rule it breaks, and the translation between a case's script and an engine's
action model (conformance/actionmodel.py) is exact where it matters."""

from __future__ import annotations

import fnmatch
import importlib
from dataclasses import replace

import pytest
from conformance_support import PYTHON

from durak_spec.conformance.actionmodel import ActionModel, Stepper, apply_move, translate
from durak_spec.conformance.cases import Step
from durak_spec.conformance.engine import state_view
from durak_spec.conformance.examples.styles_base import PODKIDNOY
from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.runner import FAILING, Session
from durak_spec.conformance.transport import PythonAdapter, make_adapter
from durak_spec.reference_impl.game import Game, Setup

# style module: (clean adapter, the rule its broken twin breaks, cases that show it)
STYLES = {
    "style_silent": ("SilentEngine", "throw_in.rank", "throw_in/*"),
    "style_explicit_pass": ("ExplicitPassEngine", "draw.order", "draw/*"),
    "style_done": ("DoneEngine", "limits.cap", "limits/*"),
    "style_no_pass_unbeaten": ("NoPassWhileUnbeatenEngine", "defence.beat", "defence/*"),
    "style_one_move_opening": ("OneMoveOpeningEngine", "throw_in.timing", "throw_in/multi_lead*"),
    "style_turnless": ("TurnlessEngine", "defence.take", "defence/*"),
    "style_play_card": ("PlayCardEngine", "rotation.after_take", "rotation/*"),
}


# Presets that differ from podkidnoy only in options minidurak's declared variant overrides.
PODKIDNOY_FAMILY = {"podkidnoy", "podkidnoy_online", "podkidnoy_no_cap"}


def adapter_class(module: str, broken: bool = False):
    name = STYLES[module][0]
    mod = importlib.import_module(f"durak_spec.conformance.examples.{module}")
    return getattr(mod, "Broken" + name if broken else name)


def under_declared_variant(spec, suite, engine, pattern="*"):
    """Every podkidnoy-family case that starts from a deal, as the engine's declared variant
    plays it: the case's steps with their verdicts, states and legal sets derived on the
    reference under that variant."""
    declared = {**PODKIDNOY, **engine.house_rules}
    rs = spec.ruleset("podkidnoy", declared)
    jobs = []
    for case in suite.cases:
        if case.is_position or not fnmatch.fnmatch(case.id, pattern) or not set(
                case.variants) & PODKIDNOY_FAMILY:
            continue
        game = Game(rs, Setup.from_json(case.setup, rs.deck, rs.player_limits))
        moves = translate(case.steps, game, ActionModel(), state_view,
                          legal_before=case.legal is not None)
        steps = [Step(m.action, m.expect, m.rule, m.state, m.legal) for m in moves.moves]
        jobs.append((replace(case, options=declared, steps=steps, legal=moves.legal), "podkidnoy"))
    return jobs


def run(spec, engine, jobs):
    session = Session(spec, PythonAdapter(engine, engine.__name__), check_cases=False)
    session.open()
    try:
        return [session.run_case(case, variant) for case, variant in jobs]
    finally:
        session.close()


@pytest.mark.parametrize("module", sorted(STYLES))
def test_each_style_example_passes_every_case_under_its_declared_variant(spec, shipped_suite, module):
    engine = adapter_class(module)
    results = run(spec, engine, under_declared_variant(spec, shipped_suite, engine))
    # skipped only where a case plays a kind the example does not declare (protocol 1.1 action_kinds)
    assert [(r.case, r.message) for r in results if r.status in FAILING | {"skip"}
            and "action_kinds" not in r.message] == []
    assert len(results) > 100


@pytest.mark.parametrize("module", sorted(STYLES))
def test_each_broken_style_twin_fails_on_the_rule_it_breaks(spec, shipped_suite, module):
    _, rule, pattern = STYLES[module]
    engine = adapter_class(module, broken=True)
    results = run(spec, engine, under_declared_variant(spec, shipped_suite, engine, pattern))
    failed = [r for r in results if r.status == "fail"]
    assert failed, f"{engine.__name__} passes every case of {pattern}"
    named = [r for r in failed if getattr(r, "rule", None) == rule or rule in r.rules
             or rule == r.want or rule in str(r.want)]
    assert named, [(r.case, r.rules, r.want) for r in failed]


def test_a_style_example_runs_through_the_subprocess_protocol(check):
    result = check("--adapter", f"cmd:{PYTHON} -m durak_spec.conformance.examples.style_play_card",
                   "--variant", "podkidnoy", "--area", "rotation")
    assert result.exit_code == 0, result.output
    assert "pass" in result.statuses().values()


# -- the translation ---------------------------------------------------------------------------------

def game_of(spec, preset, setup, **options):
    rs = spec.ruleset(preset, options)
    return Game(rs, Setup.from_json(setup, rs.deck, rs.player_limits))


def test_a_one_move_opening_is_sent_as_one_action_and_its_refused_cards_apart(spec, shipped_suite):
    suite = shipped_suite
    case = suite.by_id()["attack/multi_card_opening"]
    game = game_of(spec, "podkidnoy_online", case.setup)
    moves = translate(case.steps, game, ActionModel(opening="one_move"), state_view)
    assert [m.action for m in moves.moves] == ["0 attack 7S 7C 7D"]
    assert moves.moves[0].steps == (0, 1, 2)
    assert "0 throw 7C" not in moves.moves[0].legal
    refused = suite.by_id()["throw_in/multi_lead_other_rank"]
    game = game_of(spec, "podkidnoy_online", refused.setup)
    moves = translate(refused.steps, game, ActionModel(opening="one_move"), state_view)
    first = moves.moves[0]
    assert first.expect == "reject" and len(first.action.split()) == 4, moves.moves


def test_a_pass_the_model_has_no_room_for_is_left_out_and_the_rest_rederived(spec):
    setup = {"hands": [["6S", "6C", "6H", "KD"], ["7S", "9D", "TD", "JD"], ["6D", "KC"]],
             "talon": ["QS", "AH"], "trump": "AH", "attacker": 0}
    script = [Step("0 attack 6S"), Step("1 cover 6S with 7S"), Step("0 throw 6C"),
              Step("0 pass"), Step("2 throw 6D")]
    moves = translate(script, game_of(spec, "podkidnoy", setup),
                      ActionModel(pass_while_unbeaten=False), state_view)
    assert [i for i, _ in moves.dropped] == [3]
    last = moves.moves[-1]
    assert (last.action, last.expect, last.rule) == ("2 throw 6D", "reject", "throw_in.order")
    canonical = translate(script, game_of(spec, "podkidnoy", setup), ActionModel(), state_view)
    assert not canonical.dropped and canonical.moves[-1].expect == "accept"


def test_the_model_view_leaves_out_exactly_the_passes_while_cards_are_unbeaten(spec):
    setup = {"hands": [["6S", "6C", "KD"], ["7S", "9D", "TD"], ["6D", "KC"]],
             "talon": ["QS", "AH"], "trump": "AH", "attacker": 0}
    game = game_of(spec, "podkidnoy", setup)
    stepper = Stepper(ActionModel(pass_while_unbeaten=False), game)
    for text in ("0 attack 6S", "1 cover 6S with 7S", "0 throw 6C"):
        stepper.apply(text)
    full = {str(a) for a in game.legal_actions()}
    assert {a for a in full if a.endswith("pass")} - set(stepper.legal()) == {
        a for a in full if a.endswith("pass")}
    stepper.apply("1 take")
    assert any(a.endswith("pass") for a in stepper.legal())


def test_a_multi_card_move_is_all_or_nothing_on_the_reference(spec):
    setup = {"hands": [["7S", "7C", "9D"], ["8S", "8C", "AH"]], "talon": ["JS", "6H"],
             "trump": "6H", "attacker": 0}
    game = game_of(spec, "podkidnoy_online", setup)
    before = game.full_state()
    with pytest.raises(Exception):
        apply_move(game, "0 attack 7S 9D")
    assert game.full_state() == before
    apply_move(game, "0 attack 7S 7C")
    assert len(game.state.table) == 2


def test_hello_declares_the_model_and_unknown_capabilities_are_named():
    assert ActionModel.from_hello({}).canonical
    assert ActionModel.from_hello({"actions": {"opening": "one_move"}}).describe() == "opening one_move"
    with pytest.raises(ValueError, match="actions.turns"):
        ActionModel.from_hello({"actions": {"turns": False}})


def test_the_fuzzer_plays_only_what_an_engines_action_model_can_say(spec, tmp_path):
    """Without the model, the fuzzer would send this engine passes while cards are unbeaten and
    expect them in its legal sets: divergences that are no bugs."""
    name = "python:durak_spec.conformance.examples.style_no_pass_unbeaten:NoPassWhileUnbeatenEngine"
    adapter = make_adapter(name, spec=spec)
    hello = adapter.open()
    try:
        plain = fuzz(spec, adapter, {k: v for k, v in hello.items() if k != "actions"},
                     preset="podkidnoy", players=[3], games=8, out_dir=tmp_path / "plain",
                     adapter_name=name, shrink=False)
        declared = fuzz(spec, adapter, hello, preset="podkidnoy", players=[3], games=8,
                        out_dir=tmp_path / "declared", adapter_name=name, shrink=False)
    finally:
        adapter.close()
    assert plain.entries and not declared.entries


# -- one-move openings: what the runner sends and compares (issue: house rules round 2) -----------

ONE_MOVE = ActionModel(opening="one_move")
FOUR = {"hands": [["6S", "6C", "6D", "KD"], ["7S", "8C", "9D", "TD"], ["6H", "QS", "AS"],
                  ["7C", "JH", "AD"]], "talon": ["JS", "QC", "AH"], "trump": "AH", "attacker": 0}


def _translated(spec, options, script, legal_at=()):
    rs = spec.ruleset("podkidnoy", options)
    game = Game(rs, Setup.from_json(FOUR, rs.deck, rs.player_limits))
    steps = [Step(text, legal=[] if i in legal_at else None) for i, text in enumerate(script)]
    return translate(steps, game, ONE_MOVE, state_view)


def test_under_a_siege_without_multi_card_openings_the_openers_throws_are_not_merged(spec):
    out = _translated(spec, {"pile_on": "any_time"}, ["0 attack 6S", "0 throw 6C", "0 throw 6D"])
    assert [m.action for m in out.moves] == ["0 attack 6S", "0 throw 6C", "0 throw 6D"]
    assert all(m.expect == "accept" for m in out.moves) and not out.dropped
    # with multi-card openings the same cards are one move
    out = _translated(spec, {"opening": "same_rank_multi"}, ["0 attack 6S", "0 throw 6C"])
    assert [m.action for m in out.moves] == ["0 attack 6S 6C"]


@pytest.mark.parametrize("between", ["2 throw 6H", "0 pass"])
def test_after_a_refused_step_or_a_dropped_pass_the_sent_opening_no_longer_grows(spec, between):
    out = _translated(spec, {"opening": "same_rank_multi"},
                      ["0 attack 6S", between, "0 throw 6C", "2 throw 6H"], legal_at={3})
    sent = [m.action for m in out.moves]
    assert "0 attack 6S 6C" not in sent and "0 throw 6C" not in sent  # dropped, never merged late
    assert any(i == 2 for i, _ in out.dropped)
    last = out.moves[-1]
    assert last.action == "2 throw 6H" and last.expect == "reject"
    # the reference could still add the opener's cards; the legal set compared leaves them out
    assert last.legal is not None and not [t for t in last.legal if t.startswith("0 ")]


def test_the_fuzzer_sends_multi_card_openings_whole_and_finds_a_broken_one(spec, tmp_path):
    """Fuzz grows one-move openings on the reference and sends them as one move, with a card the
    opening may not hold now and then: the clean engine agrees, the broken twin (an opening may
    mix ranks) is caught; the witness is written as atomic steps."""
    found = {}
    for broken in (False, True):
        name = ("python:durak_spec.conformance.examples.style_one_move_opening:"
                + ("Broken" if broken else "") + "OneMoveOpeningEngine")
        adapter = make_adapter(name, spec=spec)
        hello = adapter.open()
        try:
            found[broken] = fuzz(spec, adapter, hello, preset="podkidnoy",
                                 options={"opening": "same_rank_multi"}, players=[2, 4], games=12,
                                 out_dir=tmp_path / str(broken), adapter_name=name, shrink=False)
        finally:
            adapter.close()
    assert not found[False].entries and found[False].games == 12
    entry = found[True].entries[0]
    assert entry.witness.kind == "verdict-accepts"
    assert not [s for s in entry.witness.steps  # atomic: no multi-card opening text
                if s["do"].split()[1] == "attack" and len(s["do"].split()) > 3]
    assert entry.witness.steps[-1]["do"].split()[1] == "throw"
