"""One grammar for every `durak` subcommand: the same flag means the same thing everywhere, and
every option says what it does (`durak CMD --help`)."""

from __future__ import annotations

import click
import pytest

from durak_spec.tools.cli import cli
from durak_spec.tools.common import Seconds


def commands(group=cli, prefix=()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from commands(command, prefix + (name,))
        else:
            yield " ".join(prefix + (name,)), command


COMMANDS = dict(commands())


def options(command):
    return {opt: p for p in command.params if isinstance(p, click.Option) for opt in p.opts}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_has_help_text(name):
    missing = [p.opts[0] for p in COMMANDS[name].params
               if isinstance(p, click.Option) and not p.help]
    assert not missing, f"durak {name}: {missing} have no help text"


@pytest.mark.parametrize("name", COMMANDS)
def test_a_flag_means_the_same_thing_in_every_command(name):
    opts = options(COMMANDS[name])
    assert "--workers" not in opts, "parallelism is --jobs"
    if "--variant" in opts:
        assert opts["--variant"].multiple, "--variant is repeatable"
    if "--option" in opts:
        assert opts["--option"].multiple and opts["--option"].metavar == "NAME=VALUE"
    if "--cases-dir" in opts:  # always an input folder
        kind = opts["--cases-dir"].type
        assert isinstance(kind, click.Path) and kind.exists and not kind.file_okay
    if "--out" in opts:  # always an output folder
        kind = opts["--out"].type
        assert isinstance(kind, click.Path) and not kind.file_okay
    for report in ("--report", "--junit", "--html"):
        if report in opts:
            assert isinstance(opts[report].type, click.Path) and not opts[report].type.dir_okay
    if "--jobs" in opts:
        assert isinstance(opts["--jobs"].type, click.IntRange) and opts["--jobs"].type.min == 1
    if "--timeout" in opts:
        kind = opts["--timeout"].type
        assert isinstance(kind, Seconds)  # positive and finite: nan and inf are usage errors
    if "--format" in opts:
        assert list(opts["--format"].type.choices) == ["text", "json"]
    if "--quiet" in opts:
        assert "-q" in opts


LONG_RUNS = ("check", "fuzz", "verify", "simulate", "cases golden", "cases cover", "lint")


@pytest.mark.parametrize("name", LONG_RUNS)
def test_long_runs_can_be_quiet(name):
    assert "-q" in options(COMMANDS[name])


# Commands whose output a program may read; cases golden/cover, verify and fuzz write files
# (cases, --report) and print for people.
FOR_PROGRAMS = ("rules", "variants", "simulate", "deal", "replay", "check", "judge", "lint")


@pytest.mark.parametrize("name", FOR_PROGRAMS)
def test_commands_with_output_for_programs_take_format_json(name):
    assert "--format" in options(COMMANDS[name])
