"""Nothing is written inside the installed package: what a command generates goes to --out or a
folder in the current directory, and the command says where; only --write-shipped writes the
shipped suite, and only in a git checkout (tools/common.generated_root).

The package is laid out as an install puts it (durak_spec/ with its four folders, outside any
checkout) and run from there with `python -m`, so a write into it would show."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run

from durak_spec.tools import common
from durak_spec.tools.common import in_checkout

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("spec", "reference_impl", "conformance", "tools")  # setup.py's ROOTS


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site-packages")
    for folder in FOLDERS:
        shutil.copytree(REPO / folder, site / "durak_spec" / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return site


def durak(site: Path, cwd: Path, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "durak_spec.tools.cli", *map(str, args)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def files(site: Path) -> dict:
    return {p.relative_to(site): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}


def test_the_readme_match_example_writes_into_the_current_folder(installed, tmp_path):
    before = files(installed)
    run = durak(installed, tmp_path, "cases", "match", "--variant", "cardzmania", "--players", "3",
                "--seed", "1")
    assert run.returncode == 0, run.stderr
    assert files(installed) == before
    written = tmp_path / "durak-cases" / "match" / "cardzmania_3p_seed1.yaml"
    assert written.is_file() and "wrote durak-cases/match/cardzmania_3p_seed1.yaml" in run.stderr


def test_verify_of_an_edited_spec_writes_its_counterexamples_into_the_current_folder(
        installed, tmp_path, spec_copy):
    spec_copy.edit("definitions.yaml", "or (is_trump(card) and not is_trump(target) and",
                   "or (is_trump(card) != is_trump(target) and")  # a plain card beats a trump
    before = files(installed)
    work = tmp_path / "work"
    work.mkdir()
    run = durak(installed, work, "--spec", spec_copy.root, "verify", "--variant", "podkidnoy",
                "--players", "2", "--invariant", "inv.trump_covered_by_trump", "-q", "--jobs", "1")
    assert run.returncode == 1, run.stdout + run.stderr
    assert files(installed) == before
    written = list((work / "durak-verify" / "generated" / "counterexamples").rglob("*.yaml"))
    assert written and f"written as {written[0].relative_to(work)}" in run.stdout


def test_write_shipped_is_refused_outside_a_checkout_and_with_out(monkeypatch, tmp_path):
    monkeypatch.setattr(common, "CASES_DIR", tmp_path / "site-packages" / "conformance" / "cases")
    refused = run("cases", "golden", "--variant", "podkidnoy", "--players", "2", "--write-shipped")
    assert refused.exit_code == 2 and "belongs to an installed package" in refused.output
    assert "give --out DIR" in refused.output and not (tmp_path / "site-packages").exists()
    both = run("verify", "--write-shipped", "--out", tmp_path)
    assert both.exit_code == 2 and "not both" in both.output


def test_only_a_git_checkout_counts_as_one(tmp_path):
    cases = tmp_path / "repo" / "conformance" / "cases"
    cases.mkdir(parents=True)
    (tmp_path / "repo" / "pyproject.toml").write_text("")
    assert not in_checkout(cases)
    (tmp_path / "repo" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file
    assert in_checkout(cases)
