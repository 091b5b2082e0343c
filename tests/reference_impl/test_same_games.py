"""A faster interpreter plays the very same games (issue 26): every preset at 2 to 6 players
against digests recorded by the interpreter before the flat generated program (game_identity.py;
the opt-in run covers 1,000 seeds each, a block of it sampled here), and the program that writes
primitives out against the one that calls them."""

from __future__ import annotations

import copy
import json

import pytest
from game_identity import CI_SEEDS, HASHES, LONG, SEEDS, block_digest, player_counts, rules_key

from durak_spec.reference_impl import inline, primitives
from durak_spec.reference_impl import ruleset as ruleset_module
from durak_spec.reference_impl.spec import shipped_spec

RECORDED = json.loads(HASHES.read_text()) if HASHES.exists() else {"games": {}, "rules": {}}


@pytest.mark.parametrize("preset", sorted(shipped_spec().presets))
def test_every_preset_plays_the_games_recorded_before_the_flat_program(spec, preset):
    ruleset = spec.ruleset(preset)
    want = RECORDED["games"].get(preset)
    assert want, f"no games recorded for preset {preset}: run tests/reference_impl/game_identity.py --write"
    counts = player_counts(ruleset)
    assert sorted(want) == sorted(str(n) for n in counts)
    changed = RECORDED["rules"].get(preset) != rules_key(ruleset)
    for n in counts:
        have = block_digest(ruleset, n, 0, CI_SEEDS)
        assert have == want[str(n)][0], (
            f"{preset}, {n} players: the games of seeds 0-{CI_SEEDS - 1} differ from those recorded"
            + (" (the preset's rules changed since: if that change is meant, re-record with "
               "game_identity.py --write)" if changed else " (its rules did not change)"))


@pytest.mark.parametrize(("preset", "players"), [("podkidnoy", 2), ("perevodnoy", 4)])
def test_the_long_run_has_every_preset_and_plays_its_first_block_alike(spec, preset, players):
    """The opt-in run (game_identity.py) holds digests of seeds 0 to 999 of every preset at
    every player count, and a block of it is played here as a sample."""
    long = json.loads(LONG.read_text())
    assert long["complete"] and long["ranges"][0][0] == 0 and long["ranges"][-1][1] >= SEEDS
    for name in spec.presets:
        counts = sorted(str(n) for n in player_counts(spec.ruleset(name)))
        assert sorted(long["games"].get(name, {})) == counts, f"{name}: not recorded at every count"
        assert {len(h) for h in long["games"][name].values()} == {len(long["ranges"])}, name
    start, stop = long["ranges"][0]
    have = block_digest(spec.ruleset(preset), players, start, stop, full=False)
    assert have == long["games"][preset][str(players)][0], (
        f"{preset}, {players} players: the games of seeds {start}-{stop - 1} differ from the long run's")


def test_a_changed_rule_plays_other_games_and_says_its_rules_changed(spec, spec_copy):
    """The digests see a difference in play: after a bout beaten off, the defender's left
    neighbour attacks instead of the defender (rule rotation.after_beaten_off)."""
    spec_copy.edit("rules/rotation.yaml",
                   'clause: "defender if not is_out(defender) else left(defender)"',
                   'clause: "left(defender) if not is_out(defender) else defender"')
    edited = spec_copy.load().ruleset("podkidnoy")
    assert rules_key(edited) != RECORDED["rules"]["podkidnoy"]
    assert rules_key(spec.ruleset("podkidnoy")) == RECORDED["rules"]["podkidnoy"]
    assert block_digest(edited, 2, 0, CI_SEEDS) != RECORDED["games"]["podkidnoy"]["2"][0]


@pytest.mark.parametrize("preset", ["podkidnoy", "perevodnoy", "weli", "changeable_trump",
                                    "marmot_tournament", "poker_durak"])
def test_primitives_written_out_play_as_primitives_called(spec, preset, monkeypatch):
    """The generated step writes each primitive's body out (inline.py); a primitive that is not
    primitives.py's own (here each wrapped) is called instead, and both play alike."""
    inlined = spec.ruleset(preset)
    assert "_do_" not in inlined.step_source
    for name, fn in list(primitives.PRIMITIVES.items()):
        monkeypatch.setitem(primitives.PRIMITIVES, name,
                            lambda g, s, a, _fn=fn, **kw: _fn(g, s, a, **kw))
    called = spec.ruleset(preset)
    assert "_do_bout_taken0_" in called.step_source
    for n in (2, 4):
        assert block_digest(inlined, n, 0, 3) == block_digest(called, n, 0, 3), (preset, n)


def test_without_the_primitives_source_the_step_calls_them(spec_copy, monkeypatch, tmp_path):
    """Where primitives.py's source cannot be read (a build without .py files), nothing is
    written out and the games are the same. (The cache of what inlining derives is an empty
    folder of the test's own: the source is gone only for getsource, not from the disk.)"""
    def no_source(obj):
        raise OSError("could not get source code")

    cached = (inline._body, inline.decisions_asked, inline.inline_source)
    for fn in cached:
        fn.cache_clear()
    monkeypatch.setattr(inline.inspect, "getsource", no_source)
    monkeypatch.setenv("DURAK_CACHE_DIR", str(tmp_path / "code"))
    try:
        ruleset = spec_copy.load().ruleset("podkidnoy")
        assert "_do_attack0_add_attack_card(g, s, a)" in ruleset.step_source
        have = block_digest(ruleset, 2, 0, CI_SEEDS)
    finally:
        for fn in cached:
            fn.cache_clear()
    assert have == RECORDED["games"]["podkidnoy"]["2"][0]


ORDER_GUARD = ("if can.count(True) > 1 or throws[-1][1] != _one or len(throws) > _k and "
               "throws[_k][1] != _one:")


def _with_guard(ruleset, guard: str):
    """A copy of `ruleset` whose generated step asks `guard` before ordering the throw-ins."""
    twin = copy.copy(ruleset)
    assert ORDER_GUARD in ruleset.step_source
    twin._step_source = ruleset.step_source.replace(ORDER_GUARD, guard)
    twin._step_sources, twin._programs, twin._first_steps = {}, {}, None  # written anew from it
    return twin


@pytest.mark.parametrize("players", [3, 4])
def test_the_order_rules_are_skipped_only_where_one_seat_has_actions(spec, players, monkeypatch):
    """The generated settle orders the throw-ins and passes only where two seats or more have
    one listed (ruleset._order_lines). With done_by main_attacker the main attacker passes for
    everyone while others throw in, so a guard that counted only the seats that may throw would
    skip orderings that matter: it plays other games, the generated one those of ordering always."""
    monkeypatch.setattr(ruleset_module, "WARM_STEPS", 0)  # every step the generated one
    monkeypatch.setattr(ruleset_module, "SPECIALISE_GAMES", 0)  # written for the player count
    ruleset = spec.ruleset("podkidnoy", {"done_by": "main_attacker"})
    always = block_digest(_with_guard(ruleset, "if True:"), players, 0, 20)
    assert block_digest(ruleset, players, 0, 20) == always
    assert block_digest(_with_guard(ruleset, "if can.count(True) > 1:"), players, 0, 20) != always


@pytest.mark.parametrize("players", [3, 6])
def test_an_order_rule_over_every_kind_listed_orders_as_one_over_some(spec, monkeypatch, players):
    """Where the order rule governs throw-ins and passes, all that settle lists before the bout
    ends, the generated settle keeps the seats of the lowest key without looking for a second
    seat (ruleset._order_lines): the games are those of the general ordering, which tests each
    action's kind, as when the rule governs some kinds only."""
    fast = spec.ruleset("podkidnoy")
    assert "_set(_map(_seat, throws))" in fast.step_source
    monkeypatch.setattr(ruleset_module, "LISTED_FIRST", {"throw", "pass", "a kind never listed"})
    general = ruleset_module.Ruleset(spec, "podkidnoy", {})
    assert "if a[0] in _K0:" in general.step_source
    assert block_digest(fast, players, 0, 20) == block_digest(general, players, 0, 20)


@pytest.mark.parametrize("preset", ["podkidnoy", "perevodnoy", "weli", "changeable_trump",
                                    "marmot_tournament"])
def test_the_first_steps_and_the_generated_step_play_the_same_games(spec, preset, monkeypatch):
    """A ruleset plays its first WARM_STEPS actions through its events and settle, then writes
    and compiles the generic `step`, and after SPECIALISE_GAMES more games the step written for
    the player count (Ruleset.play_step): each way alone plays the games recorded."""
    for warm, special in ((0, 0), (0, 10**9), (10**9, 0)):
        monkeypatch.setattr(ruleset_module, "WARM_STEPS", warm)
        monkeypatch.setattr(ruleset_module, "SPECIALISE_GAMES", special)
        ruleset = ruleset_module.Ruleset(spec, preset, {})
        for n in (2, 4):
            have = block_digest(ruleset, n, 0, CI_SEEDS)
            assert have == RECORDED["games"][preset][str(n)][0], (preset, n, warm, special)
        assert bool(ruleset.__dict__.get("_programs")) == (warm == special == 0), \
            "the step for the player count was compiled when it should not be, or not"
        assert bool(ruleset.__dict__.get("_step_fn")) == (warm == 0 < special), \
            "the generic step was compiled when it should not be, or not"


def test_presets_that_share_a_behaviour_key_play_the_same_games(spec):
    """The runner runs a case once for presets of one behaviour key and reports the result under
    each (runner._as_run), and diagnose skips an option value whose key is the preset's: two
    presets whose recorded games differ at some player count (a team layout, the turn-up on top,
    another deck) must have different keys."""
    by_key: dict = {}
    for name in sorted(spec.presets):
        by_key.setdefault(spec.ruleset(name).behaviour_key(), []).append(name)
    shared = [names for names in by_key.values() if len(names) > 1]
    assert shared, "no two presets share a key: the test compares nothing"
    for names in shared:
        games = [RECORDED["games"][n] for n in names]
        assert all(g == games[0] for g in games), f"{names} share a behaviour key but play other games"
    for preset, overrides in (("podkidnoy", {"teams": "two_teams"}), ("albanian", {}),
                              ("podkidnoy_three_teams", {})):
        other = spec.ruleset(preset, overrides)
        base = spec.ruleset("podkidnoy_teams" if preset == "podkidnoy_three_teams" else "podkidnoy")
        assert other.behaviour_key() != base.behaviour_key(), (preset, overrides)
