"""Small things a newcomer hit (issue 20): each mistake is one clear line, and what `durak check`
counts and reads adds up."""

from __future__ import annotations

import os

import pytest
from cli_support import run

from durak_spec.conformance.runner import Selection
from durak_spec.reference_impl.errors import SetupError
from durak_spec.reference_impl.game import Setup
from durak_spec.tools.check import run_suite

ONE = "attack/open_any_card"
MATCH = "match/cardzmania_2p_seed4"
HUGE = "1" * 4000


def test_a_setup_with_no_seats_says_how_many_players_the_deck_is_for(spec, tmp_path):
    rs = spec.ruleset("podkidnoy")
    with pytest.raises(SetupError) as err:
        Setup.from_json({"hands": [], "talon": [], "trump": "6H"}, rs.deck, rs.player_limits)
    assert "0 to -1" not in str(err.value) and "0 players" in str(err.value)
    setup = tmp_path / "setup.yaml"
    setup.write_text("hands: []\ntalon: []\ntrump: 6H\n")
    result = run("deal", setup)
    assert result.exit_code == 2 and "0 players; this deck is for 2 to 6" in result.output
    assert "seat -1" not in result.output and "0 to -1" not in result.output


@pytest.mark.parametrize("args", [
    ["simulate", "--players", HUGE],
    ["check", "--option", f"max_attack_cards={HUGE}"],
    ["deal", "SETUP"],
])
def test_a_4000_digit_integer_is_not_echoed_whole(args, tmp_path):
    setup = tmp_path / "setup.yaml"
    setup.write_text(f"hands: [[6H, 7H], [6S, 7S]]\ntalon: [8H]\ntrump: 8H\ndealer: {HUGE}\n")
    result = run(*[setup if a == "SETUP" else a for a in args])
    assert result.exit_code == 2, result.output
    assert "4,000 digits" in result.output and len(result.output) < 500, result.output


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "a_folder"
    path.mkdir()
    (path / "x.yaml").write_text("id: x\n")
    return path


@pytest.mark.parametrize("args, named", [
    (["replay", "FOLDER", "--variant", "podkidnoy"], "TRACE_FILE"),
    (["deal", "FOLDER"], "SETUP_FILE"),
    (["judge", "FOLDER", "--action", "0 attack 6H"], "POSITION_FILE"),
    (["check", "--known-failures", "FOLDER"], "--known-failures"),
    (["check", "--cases-dir", "FILE"], "--cases-dir"),
    (["check", "--report", "FOLDER"], "--report"),
])
def test_a_folder_where_a_file_is_expected_is_one_line(args, named, folder):
    args = [folder if a == "FOLDER" else folder / "x.yaml" if a == "FILE" else a for a in args]
    result = run(*args)
    assert result.exit_code == 2
    assert "Usage:" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and str(folder) in lines[0], result.output


def test_an_unreadable_file_is_one_line(tmp_path, monkeypatch):
    setup = tmp_path / "setup.yaml"
    setup.write_text("hands: [[6H], [6S]]\ntalon: []\ntrump: 6H\n")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, *a, **k: False if str(p) == str(setup)
                        else real(p, mode, *a, **k))
    result = run("deal", setup)
    assert result.exit_code == 2 and "Usage:" not in result.output
    assert result.output.strip() == f"Error: SETUP_FILE {setup}: can't be read (permission denied)"


class Progress:
    """What run_suite tells a progress bar."""

    def __init__(self):
        self.totals, self.done = [], 0

    def set_total(self, total):
        self.totals.append(total)

    def advance(self, n=1, failures=0):
        self.done += n


def test_the_progress_total_counts_the_match_cases_too(spec):
    progress = Progress()
    results, meta, _ = run_suite(spec, "reference", Selection(cases=(ONE, MATCH)), progress=progress)
    assert any(r.area == "match" for r in results)
    assert progress.done == progress.totals[-1] == len(results) == meta["planned"]


@pytest.fixture
def ledger(tmp_path):
    def write(entries: dict):
        path = tmp_path / "known.yaml"
        path.write_text("known_failures:\n" + "".join(f"  {k}: {v}\n" for k, v in entries.items()))
        return path
    return write


@pytest.mark.parametrize("key, message", [
    ("attack/open_any_crad", "no case 'attack/open_any_crad' in the suite. Did you mean 'attack/open_any_card'?"),
    (f"{ONE}@podkidnoi", "no preset 'podkidnoi'"),
])
def test_a_known_failure_that_names_no_case_or_preset_is_an_error_naming_it(ledger, key, message):
    result = run("check", "-q", "--case", ONE, "--known-failures", ledger({key: "a reason"}))
    assert result.exit_code == 2
    assert f"known_failures.{key}: {message}" in result.output
    assert "case runs" not in result.output  # refused before anything ran


def test_a_known_failure_under_a_preset_its_case_never_runs_under_is_reported(ledger):
    result = run("check", "-q", "--case", ONE, "--variant", "podkidnoy", "--known-failures", ledger({f"{ONE}@cardzmania": "a reason"}))
    assert result.exit_code == 2
    assert f"known_failures.{ONE}@cardzmania: the case never runs under cardzmania" in result.output


def test_a_known_failure_that_passes_now_fails_the_run_and_asks_to_remove_it(ledger):
    result = run("check", "-q", "--case", ONE, "--variant", "podkidnoy",
                 "--known-failures", ledger({ONE: "a reason"}))
    assert result.exit_code == 1
    assert f"XPASS {ONE}" in result.output and f"remove {ONE} from the known-failures" in result.output
