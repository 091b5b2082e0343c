"""README's examples work as written: each quick `durak` command in its sh blocks (rules,
variants, deal, judge, --version) runs from the repository root and exits 0. (README's first
command, install and check included, is run by .ci/run in a fresh virtualenv.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from durak_spec.tools.cli import cli

ROOT = Path(__file__).resolve().parent.parent
QUICK = ("rules", "variants", "deal", "judge", "--version")


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            argv = shlex.split(line, comments=True)
            if argv[:1] == ["durak"] and len(argv) > 1 and argv[1] in QUICK and "&&" not in argv:
                out.append(line.split("#")[0].strip())
    return out


def test_readme_shows_a_deal_of_a_setup_file_and_of_a_position_file():
    deals = [c for c in readme_commands() if c.startswith("durak deal")]
    assert any("examples/setup.yaml" in c for c in deals)
    assert any("positions/" in c for c in deals)


@pytest.mark.parametrize("command", readme_commands())
def test_a_readme_command_works_as_written(command, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, shlex.split(command)[1:])
    assert result.exit_code == 0 and result.exception is None or \
        isinstance(result.exception, SystemExit) and result.exit_code == 0, result.output
    assert result.output.strip()
