"""bench/mypyc_programs.py measures issue 26's item 4 (the generated programs compiled with mypyc)
on a typed copy of the program and a copy of reference_impl/ made native-ready. Both must stay
what they claim: the typed program plays the games the ruleset's own program plays, and the
copy's edits still apply to today's cards.py and state.py and leave an interpreter that plays the
same games. Neither needs mypyc: that the compiled programs play the same games the bench checks
itself, each run."""

from __future__ import annotations

import importlib.util
import json
import types
from pathlib import Path

import pytest

from durak_spec.reference_impl.simulate import simulate
from durak_spec.reference_impl.spec import load_spec

BENCH = Path(__file__).resolve().parents[2] / "bench" / "mypyc_programs.py"


@pytest.fixture(scope="module")
def bench():
    loaded = importlib.util.spec_from_file_location("mypyc_programs_bench", BENCH)
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


def _played(report) -> tuple:
    return report.games, report.steps, report.finished, sorted(report.fools.items())


@pytest.mark.parametrize(("preset", "n"), [("podkidnoy", 2), ("podkidnoy_teams", 6)])
def test_the_typed_program_plays_the_rulesets_own_games(spec, bench, preset, n):
    module = types.ModuleType(bench.module_name(preset, n))
    source = bench.typed_program(preset, n)
    assert "def play(g, s: State," in source and "def step(g, s: State," in source
    exec(compile(source, module.__name__, "exec"), module.__dict__)
    ours, typed = spec.ruleset(preset), spec.ruleset(preset)
    for rs in (ours, typed):
        simulate(rs, n, bench.WARM_GAMES, 10**6, check=False)
    bench.install(typed, n, module)
    assert typed.compiled_program(n) == (module.step, module.play)
    assert _played(simulate(typed, n, 40, 7, check=False)) == \
        _played(simulate(ours, n, 40, 7, check=False))


def test_the_native_copys_edits_apply_and_it_plays_the_same_games(bench, tmp_path):
    copy = bench.native_copy(tmp_path / "copy")
    state = (copy / "durak_spec" / "reference_impl" / "state.py").read_text()
    assert "    hands: list[list[Card]]\n" in state and "__slots__" not in state.split("class State")[1][:200]
    out = json.loads(bench._run(copy, ["--worker", "podkidnoy", "2", "pure", "--games", "30"]))
    ours = simulate(load_spec().ruleset("podkidnoy"), 2, 30, 1, check=False)
    assert out[1:] == [ours.steps, ours.finished, [list(x) for x in sorted(ours.fools.items())]]


def test_an_edit_that_no_longer_applies_is_named(bench, tmp_path, monkeypatch):
    edits = bench._edits()
    monkeypatch.setattr(bench, "_edits", lambda: [*edits, ("state.py", "no such text", "", "a gone thing")])
    with pytest.raises(SystemExit, match="the edit for 'a gone thing' found 0 places"):
        bench.native_copy(tmp_path / "copy")
