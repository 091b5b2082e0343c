"""Hostile input never crashes, hangs or exhausts `durak`: each file below ends in one line on
stderr that names the file (and the place, where there is one), exit 2, within seconds, in a
process whose address space is capped, and never quotes a file the input merely points at."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from durak_spec.reference_impl.spec import default_spec_dir

MEMORY_CAP = 1_500_000_000  # bytes of address space; the bombs below want gigabytes
# Each run may take at most a few times as long as `durak deal` of a good setup run beside it
# (about a second alone, much longer on a busy machine; the bombs took minutes when unbounded).
SLOWER = 3
SETUP = "hands: [[6S, 7S, 8S], [9S, TS, JS]]\ntalon: [QS, KS, AH]\ntrump: AH\n"


def alias_bomb(key: str = "bomb") -> str:
    """81 aliases in 9 levels of 9: under the alias count limit, 9**9 values expanded."""
    lines = [f"{key}0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"{key}{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    return "\n".join(lines) + "\n"


def _cap():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def durak(*args) -> tuple[int, str, float]:
    argv = [sys.executable, "-c", "from durak_spec.tools.cli import main; main()", *map(str, args)]
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, preexec_fn=_cap,
                          stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout + proc.stderr, time.monotonic() - t0


def spec_with(root, rel: str, text: str | None = None, append: str = ""):
    shutil.copytree(default_spec_dir(), root, ignore=shutil.ignore_patterns("__pycache__"))
    path = root / rel
    path.write_text(text if text is not None else path.read_text() + append)
    return root


def _inputs(tmp):
    """{name: (argv, what the one line must say)}; files are written into tmp."""
    def write(name, text):
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    deep_json = "[" * 100_000 + "]" * 100_000
    big = "9" * 5000
    log_head = '{"trace": "durak-spec", "format": 1, "setup": %s}\n'
    cases = tmp / "cases"
    write("cases/area/bomb.yaml", "id: area/bomb\ndescription: a bomb\n" + alias_bomb())
    return {
        "alias bomb in a setup": (["deal", write("bomb.yaml", SETUP + alias_bomb())],
                                  "bomb.yaml: line 10, column 8: expands to more than"),
        "alias bomb in a case file": (["check", "-q", "--cases-dir", cases], "bomb.yaml"),
        "alias bomb in a spec file": (
            ["--spec", spec_with(tmp / "spec-bomb", "deck.yaml", append=alias_bomb()), "rules"],
            "deck.yaml: line"),
        "long integer in a YAML setup": (["deal", write("int.yaml", SETUP + f"dealer: {big}\n")],
                                         "int.yaml: line 4, column 9: an integer of 5000 digits"),
        "long integer in a JSON setup": (
            ["deal", write("int.json", '{"hands": [], "dealer": %s}' % big)],
            "int.json: line 1, column 25: an integer of 5000 digits"),
        "long integer in a game log": (
            ["replay", write("int.jsonl", log_head % big)], "int.jsonl: line 1: not JSON"),
        "long integer in a spec file": (
            ["--spec", spec_with(tmp / "spec-int", "deck.yaml", append=f"huge: {big}\n"), "rules"],
            "an integer of 5000 digits"),
        "deep JSON setup": (["deal", write("deep.json", deep_json)], "deep.json: is nested too"),
        "deep YAML setup": (["deal", write("deep.yaml", deep_json)],
                            "deep.yaml: line 1, column 101: nested more than 100 levels"),
        "deep game log": (["replay", write("deep.jsonl", log_head % deep_json)],
                          "deep.jsonl: line 1: not JSON (is nested too deeply"),
        "deep spec file": (
            ["--spec", spec_with(tmp / "spec-deep", "deck.yaml", append="deep: " + deep_json), "rules"],
            "deck.yaml: line"),
        "endless setup": (["deal", "/dev/zero"], "/dev/zero: is larger than the limit"),
        "endless position": (["judge", "/dev/zero"], "/dev/zero: is larger than the limit"),
        "endless game log": (["replay", "/dev/zero"], "/dev/zero: is larger than the limit"),
        "preset extending itself": (
            ["--spec", spec_with(tmp / "spec-cycle", "presets.yaml", text=(
                default_spec_dir() / "presets.yaml").read_text().replace(
                "    extends: podkidnoy\n", "    extends: perevodnoy\n", 1)), "rules"],
            "presets.perevodnoy.extends: presets extend each other in a cycle: "
            "perevodnoy -> perevodnoy"),
    }


@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    inputs = _inputs(tmp)
    good = tmp / "good.yaml"
    good.write_text(SETUP)
    inputs["a good setup"] = (["deal", good], "")
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs = dict(zip(inputs, pool.map(lambda argv: durak(*argv[0]), inputs.values())))
    baseline = runs.pop("a good setup")
    assert baseline[0] == 0, baseline
    return {name: (inputs[name][1], *runs[name], baseline[2]) for name in runs}


@pytest.mark.parametrize("name", [
    "alias bomb in a setup", "alias bomb in a case file", "alias bomb in a spec file",
    "long integer in a YAML setup", "long integer in a JSON setup", "long integer in a game log",
    "long integer in a spec file", "deep JSON setup", "deep YAML setup", "deep game log",
    "deep spec file", "endless setup", "endless position", "endless game log",
    "preset extending itself"])
def test_hostile_input_is_one_clear_line_within_seconds(name, hostile_runs):
    want, code, output, seconds, baseline = hostile_runs[name]
    assert "Traceback" not in output and "MemoryError" not in output, output[-2000:]
    assert code != 0 and code > 0, (code, output[-2000:])  # not killed by a signal
    assert want in output, output[-2000:]
    assert seconds < SLOWER * baseline + 5, (seconds, baseline)
    if name != "alias bomb in a case file":  # check prints its summary; the others one line
        assert code == 2 and len(output.strip().splitlines()) == 1, output[-2000:]


def test_a_spec_file_linking_outside_the_folder_is_refused_unread(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:SECRET-HASH-DO-NOT-PRINT:19000:0:99999:7:::\n")
    root = spec_with(tmp_path / "spec", "deck.yaml", append="")
    (root / "deck.yaml").unlink()
    os.symlink(secret, root / "deck.yaml")
    code, output, _ = durak("--spec", root, "rules")
    assert code == 2 and "SECRET" not in output, output
    assert f"{root / 'deck.yaml'}: leads outside the spec folder" in output


def test_a_spec_schema_error_quotes_at_most_a_bounded_piece_of_the_value(spec_copy):
    from durak_spec.reference_impl.errors import SpecError

    spec_copy.edit("deck.yaml", "\nranks:", "\nranks: " + "x" * 100_000 + "\nold_ranks:")
    with pytest.raises(SpecError) as info:
        spec_copy.load()
    assert len(str(info.value)) < 600
