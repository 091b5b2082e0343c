"""The compiled programs kept between runs (reference_impl/codecache.py): an entry is taken only
for the source that names it, a damaged or unwritable cache is as if there were none, the folder
stays bounded, and games played from kept programs are the games compiled anew."""

from __future__ import annotations

import subprocess
import sys

import pytest

from durak_spec.reference_impl import codecache, inline, primitives


@pytest.fixture
def folder(tmp_path, monkeypatch):
    where = tmp_path / "code"
    monkeypatch.setenv("DURAK_CACHE_DIR", str(where))
    return where


def counting():
    calls = []

    def make():
        calls.append(1)
        return ("value", len(calls))
    return make, calls


def test_a_kept_value_is_taken_from_the_folder_and_only_for_its_own_key(folder):
    make, calls = counting()
    assert codecache.cached("key one", make) == ("value", 1)
    assert codecache.cached("key one", make) == ("value", 1)
    assert len(calls) == 1 and len(list(folder.glob("*.bin"))) == 1
    assert codecache.cached("key two", make) == ("value", 2)
    assert len(calls) == 2


def test_a_kept_program_runs_as_the_compiled_one(folder):
    source = "def f(x):\n    return [x * 2, x + 1]\n"
    for _ in range(2):
        ns = {}
        exec(codecache.compile_program(source, "<test program>"), ns)
        assert ns["f"](5) == [10, 6]
    assert len(list(folder.glob("*.bin"))) == 1


def test_a_damaged_entry_is_made_again(folder):
    make, calls = counting()
    codecache.cached("key", make)
    for entry in folder.glob("*.bin"):
        entry.write_bytes(b"\x00not marshal data")
    assert codecache.cached("key", make) == ("value", 2)
    assert codecache.cached("key", make) == ("value", 2)  # and the good one written back


def test_a_folder_that_cannot_be_written_is_no_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_text("in the way")
    monkeypatch.setenv("DURAK_CACHE_DIR", str(blocker / "code"))
    make, calls = counting()
    assert codecache.cached("key", make) == ("value", 1)
    assert codecache.cached("key", make) == ("value", 2)


@pytest.mark.parametrize("value", ["", "off"])
def test_the_cache_can_be_turned_off(value, monkeypatch):
    monkeypatch.setenv("DURAK_CACHE_DIR", value)
    assert codecache.cache_dir() is None
    make, calls = counting()
    codecache.cached("key", make), codecache.cached("key", make)
    assert len(calls) == 2


def test_the_folder_stays_bounded(folder, monkeypatch):
    monkeypatch.setattr(codecache, "MAX_ENTRIES", 4)
    for i in range(12):
        codecache.cached(f"key {i}", lambda: i)
    assert 0 < len(list(folder.glob("*.bin"))) <= 4


def test_a_wrapper_put_in_place_of_a_primitive_changes_what_inlining_reads(folder, monkeypatch):
    before = inline._fingerprint(primitives.mark_out)

    def wrapper(g, s, a):
        return None
    monkeypatch.setattr(primitives, "discard_table", wrapper)
    assert inline._fingerprint(primitives.mark_out) != before


def test_the_same_primitives_at_another_path_are_read_as_the_same(tmp_path):
    """What inlining derives is kept under the contents of the sources it reads, not their
    paths: a checkout moved or cloned anew at another path finds it kept (a copy of
    primitives.py elsewhere has the same fingerprint), and a changed copy does not."""
    import importlib.util
    from pathlib import Path

    def loaded(folder, text):
        folder.mkdir()
        (folder / "primitives.py").write_text(text)
        spec = importlib.util.spec_from_file_location(primitives.__name__, folder / "primitives.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # not put in sys.modules: its imports are the package's
        return module

    text = Path(primitives.__file__).read_text()
    copy = loaded(tmp_path / "moved", text)
    assert copy.mark_out.__code__.co_filename != primitives.mark_out.__code__.co_filename
    assert inline._fingerprint(copy.mark_out) == inline._fingerprint(primitives.mark_out)
    changed = loaded(tmp_path / "changed", text + "\n\ndef one_more(g, s, a):\n    return None\n")
    assert inline._fingerprint(changed.mark_out) != inline._fingerprint(primitives.mark_out)


def test_games_from_kept_programs_are_the_games_compiled_anew(folder, monkeypatch):
    """A fresh process with an empty cache, a second with the cache it left: the same program
    source and the same games (and a third with the cache off)."""
    script = (
        "import random\n"
        "from durak_spec.reference_impl.game import Game, Setup\n"
        "from durak_spec.reference_impl.spec import load_spec\n"
        "rs = load_spec().ruleset('perevodnoy', {})\n"
        "out = [str(hash(rs.source + rs.step_source))]\n"
        "for seed in range(8):\n"
        "    g, rng = Game(rs, Setup.deal(rs, 3, seed)), random.Random(seed)\n"
        "    while not g.is_terminal():\n"
        "        g.apply_action(rng.choice(g.legal_actions()))\n"
        "    out.append(repr(g.returns()))\n"
        "print('|'.join(out))\n")
    runs = []
    for setting in (str(folder), str(folder), "off"):
        env = {"DURAK_CACHE_DIR": setting, "PYTHONHASHSEED": "0", "PATH": ""}
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env=env, check=True)
        runs.append(done.stdout)
        if setting != "off":
            assert list(folder.glob("*.bin"))
    assert runs[0] == runs[1] == runs[2] and runs[0].count("|") == 8
