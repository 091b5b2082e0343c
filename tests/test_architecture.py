"""Whole-repository checks of the code's shape: the import layering and cycles declared as
import-linter contracts in pyproject.toml, and ruff's lint of every Python file.

Each check is also shown to fail: on a copy of the installed package with one forbidden import
added, and on a file with a lint error.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{name} is not installed next to {sys.executable}; install '.[test]'")
    return str(path)


def _lint_imports(env=None) -> subprocess.CompletedProcess:
    return subprocess.run([_tool("lint-imports"), "--config", str(ROOT / "pyproject.toml"),
                           "--no-cache"], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)


def _package_copy(tmp_path: Path) -> Path:
    """A copy of the installed durak_spec package (real files, whatever the install mode)."""
    dest = tmp_path / "site" / "durak_spec"
    for part in ("reference_impl", "conformance", "tools"):
        origin = Path(importlib.util.find_spec(f"durak_spec.{part}").origin).parent
        shutil.copytree(origin, dest / part, symlinks=False,
                        ignore=shutil.ignore_patterns("__pycache__", "cases"))
    return dest


def _with_import(tmp_path: Path, module: str, line: str) -> dict:
    """Env whose PYTHONPATH puts a package copy first, with `line` appended to `module`."""
    copy = _package_copy(tmp_path)
    path = copy / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text() + f"\n{line}\n")
    return {**os.environ, "PYTHONPATH": str(copy.parent)}


def test_the_import_contracts_are_kept():
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout


def test_the_interpreter_importing_the_command_line_breaks_the_layering(tmp_path):
    env = _with_import(tmp_path, "reference_impl.errors", "import durak_spec.tools.common  # noqa")
    result = _lint_imports(env)
    assert result.returncode != 0
    assert "tools above conformance above reference_impl BROKEN" in result.stdout


def test_a_command_importing_the_cli_that_wires_it_breaks_the_tools_layering(tmp_path):
    env = _with_import(tmp_path, "tools.play", "import durak_spec.tools.cli  # noqa")
    result = _lint_imports(env)
    assert result.returncode != 0
    assert "tools: cli.py wires the commands, which share only common.py BROKEN" in result.stdout


def test_a_lazy_import_that_closes_a_cycle_is_caught(tmp_path):
    env = _with_import(tmp_path, "tools.verify.backend.state",
                       "def _reset():\n    from durak_spec.tools.verify.backend import machine  # noqa")
    result = _lint_imports(env)
    assert result.returncode != 0
    assert "no import cycles between siblings, at any depth BROKEN" in result.stdout


def test_ruff_finds_nothing_in_the_repository():
    result = subprocess.run([_tool("ruff"), "check", "--no-cache", str(ROOT)], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_reports_an_unused_import_under_the_project_configuration(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import json\n")
    result = subprocess.run([_tool("ruff"), "check", "--no-cache", "--config",
                             str(ROOT / "pyproject.toml"), str(bad)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 1 and "F401" in result.stdout
