"""The `durak` command: wires the subcommands, each defined in its own module, into one group.

This module only wires; no command module imports it. Every user mistake ends in one line on
stderr and a non-zero exit (2 for usage and input errors, 1 when a check finds a problem), never
a traceback. A clause of a --spec copy that fails while it runs is one line too (exit 2).
"""

from __future__ import annotations

import copy
import importlib
import importlib.metadata
import os
import sys
import time

import click

from durak_spec.reference_impl.errors import DurakError, clip_values

try:
    VERSION = importlib.metadata.version("durak-spec")
except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a bare checkout
    VERSION = "0+unknown"

# name -> (module, command): a command's module is imported when that command runs (or `--help`
# lists them all), so `durak --version` and each command's start import only what they use (verify
# needs z3, fuzz hypothesis; check needs neither).
COMMANDS = {
    "rules": ("durak_spec.tools.rules", "rules"),
    "variants": ("durak_spec.tools.rules", "variants"),
    "simulate": ("durak_spec.tools.play", "simulate"),
    "deal": ("durak_spec.tools.play", "deal"),
    "replay": ("durak_spec.tools.play", "replay"),
    "check": ("durak_spec.tools.check", "check_command"),
    "cases": ("durak_spec.tools.cases", "cases_group"),
    "fuzz": ("durak_spec.tools.fuzz", "fuzz_command"),
    "judge": ("durak_spec.tools.judge.command", "judge_command"),
    "verify": ("durak_spec.tools.verify.command", "verify_command"),
    "lint": ("durak_spec.tools.lint.command", "lint_command"),
    "match": ("durak_spec.tools.match", "match_command"),
    "site": ("durak_spec.tools.site", "site_command"),
}


class Commands(click.Group):
    """The subcommands, with an error a spec clause raises while it runs (lang.failure_of) said
    in one line naming the rule, the clause and the step, exit 2, whichever command ran it."""

    def list_commands(self, ctx) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx, name: str):
        if name not in COMMANDS:
            return None
        module, command = COMMANDS[name]
        return _one_line_paths(getattr(importlib.import_module(module), command))

    def invoke(self, ctx):
        # When the command started, before its module is imported or anything loaded: a
        # command's summary gives the whole command's time (tools.common.command_seconds).
        ctx.meta.setdefault("durak.started", time.perf_counter())
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:  # ours (UserError) and click's: values cut
            exc.message = clip_values(exc.message)
            raise
        except Exception as exc:
            from durak_spec.reference_impl.lang import failure_of
            from durak_spec.tools.common import UserError

            failure = failure_of(exc)
            if failure is None:
                raise
            raise UserError(str(failure)) from None


class OneLinePath(click.Path):
    """click.Path whose refusal of a path (missing, a folder where a file is expected or the
    reverse, unreadable) is one line naming the option and the path, exit 2: click's own is its
    usage block. Commands gets every path parameter this type when it loads a command."""

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            from durak_spec.tools.common import UserError

            raise UserError(self.problem(value, param, exc)) from None

    def problem(self, value, param, exc) -> str:
        path = os.fsdecode(value) if isinstance(value, (str, bytes)) else str(value)
        if not os.path.exists(path):
            what = "no such folder" if not self.file_okay else \
                "no such file" if not self.dir_okay else "no such file or folder"
        elif os.path.isdir(path) and not self.dir_okay:
            what = "is a folder; give a file"
        elif not os.path.isdir(path) and not self.file_okay:
            what = "is a file; give a folder"
        elif self.readable and not os.access(path, os.R_OK):
            what = "can't be read (permission denied)"
        else:
            what = exc.format_message()
        name = param.opts[0] if param is not None and param.opts and param.opts[0].startswith("-") \
            else (param.human_readable_name if param is not None else "path")
        return clip_values(f"{name} {path}: {what}")


def _one_line_paths(command: click.Command) -> click.Command:
    """`command` (and a group's subcommands) with each click.Path parameter a OneLinePath."""
    for param in command.params:
        if type(param.type) is click.Path:
            param.type = copy.copy(param.type)
            param.type.__class__ = OneLinePath
    for sub in getattr(command, "commands", {}).values():
        _one_line_paths(sub)
    return command


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(VERSION, "--version", "-V", prog_name="durak",
                      message="%(prog)s (durak-spec) %(version)s")
@click.option("--spec", "spec_dir", type=click.Path(file_okay=False), default=None,
              help="Use the spec folder at this path instead of the shipped one.")
@click.pass_context
def cli(ctx, spec_dir):
    """durak-spec: the rules of Durak as data, a reference interpreter and a conformance suite."""
    ctx.ensure_object(dict)
    ctx.obj["spec_dir"] = spec_dir


def main(argv=None):
    try:
        cli.main(args=argv, prog_name="durak", standalone_mode=True)
    except DurakError as exc:  # a safety net: errors we raise on purpose never show a traceback
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
