"""durak fuzz: lockstep games against the reference find each deliberately broken engine, shrink
the divergence to a case that the case schema accepts and `durak check` replays."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.transport import make_adapter
from durak_spec.tools.cli import cli

BROKEN = [
    ("broken_no_cap:NoAttackCap", "podkidnoy", "limits.cap"),
    ("broken_beat:BeatAnySuit", "podkidnoy", "defence.beat"),
    ("broken_draw_order:DefenderDrawsFirst", "podkidnoy", "draw.order"),
    ("broken_throw_in_rank:ThrowInAnyRank", "podkidnoy", "throw_in.rank"),
    ("broken_transfer_capacity:TransferIgnoresCapacity", "perevodnoy", "transfer.capacity"),
]


def _fuzz(spec, name, preset, tmp_path, games, levels=None, seed_value=0):
    adapter = make_adapter(name, spec=spec)
    hello = adapter.open()
    if levels is not None:
        hello = dict(hello, levels=levels)
    try:
        return fuzz(spec, adapter, hello, preset=preset, games=games, seed_value=seed_value,
                    out_dir=tmp_path, adapter_name=name)
    finally:
        adapter.close()


def test_the_reference_never_diverges_from_itself(spec, tmp_path):
    result = _fuzz(spec, "reference", "perevodnoy", tmp_path, games=30)
    assert result.found is None and result.games >= 30 and result.steps > 500


@pytest.mark.parametrize("engine,preset,rule", BROKEN, ids=[b[2] for b in BROKEN])
def test_fuzzing_alone_finds_each_broken_engine_within_1000_games(spec, tmp_path, engine, preset, rule):
    name = f"python:durak_spec.conformance.examples.{engine}"
    result = _fuzz(spec, name, preset, tmp_path, games=1000)
    assert result.found is not None, f"{engine} not found in {result.games} games"
    assert rule in result.found.divergence.rules
    # The minimal case is a valid case of the suite that names the rule, and it replays:
    suite = load_suite(spec, tmp_path)
    assert not suite.broken and [c.id for c in suite.cases] == [result.case["id"]]
    assert rule in suite.cases[0].rules
    runner = CliRunner()
    on_engine = runner.invoke(cli, ["check", "--adapter", name, "--cases-dir", str(tmp_path), "-q"])
    on_reference = runner.invoke(cli, ["check", "--cases-dir", str(tmp_path), "-q"])
    assert on_engine.exit_code == 1 and "1 fail" in on_engine.output
    assert on_reference.exit_code == 0 and "1 pass" in on_reference.output


def test_verdicts_alone_find_an_engine_that_accepts_what_the_spec_forbids(spec, tmp_path):
    """An engine that lists neither legal sets nor state is still caught, by its verdicts on the
    actions played and on the illegal ones probed (here: a bout the engine keeps open)."""
    name = "python:durak_spec.conformance.examples.broken_throw_in_rank:ThrowInAnyRank"
    result = _fuzz(spec, name, "podkidnoy", tmp_path, games=300, levels=["verdicts"])
    assert result.found is not None and result.found.divergence.check == "verdict"
    runner = CliRunner()
    on_engine = runner.invoke(cli, ["check", "--adapter", name, "--cases-dir", str(tmp_path), "-q"])
    assert on_engine.exit_code == 1 and "1 fail" in on_engine.output


def test_a_seed_repeats_the_same_campaign(spec, tmp_path):
    name = "python:durak_spec.conformance.examples.broken_no_cap:NoAttackCap"
    first = _fuzz(spec, name, "podkidnoy", tmp_path / "a", games=1000, seed_value=7)
    second = _fuzz(spec, name, "podkidnoy", tmp_path / "b", games=1000, seed_value=7)
    assert first.case == second.case


def test_the_example_database_replays_a_known_failure_first(spec, tmp_path):
    name = "python:durak_spec.conformance.examples.broken_no_cap:NoAttackCap"
    first = _fuzz(spec, name, "podkidnoy", tmp_path, games=1000, seed_value=3)
    again = _fuzz(spec, name, "podkidnoy", tmp_path, games=1000, seed_value=99)
    assert first.found is not None and again.found is not None
    assert again.case["id"] == first.case["id"]


def test_the_fuzz_command_exits_1_on_a_divergence_and_0_without(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(cli, ["fuzz", "--games", "20", "--players", "2", "--out", str(tmp_path)])
    assert ok.exit_code == 0 and "no divergence" in ok.output
    bad = runner.invoke(cli, ["fuzz", "--adapter", "python:durak_spec.conformance.examples.broken_beat:BeatAnySuit",
                              "--games", "200", "--workers", "2", "--out", str(tmp_path)])
    assert bad.exit_code == 1 and "DIVERGENCE" in bad.output and "defence.beat" in bad.output


def test_fuzz_usage_errors_exit_2(tmp_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["fuzz", "--variant", "nope"]).exit_code == 2
    assert runner.invoke(cli, ["fuzz", "--adapter", "python:nomodule:X", "--out", str(tmp_path)]).exit_code == 2
    assert runner.invoke(cli, ["fuzz", "--players", "9"]).exit_code == 2
