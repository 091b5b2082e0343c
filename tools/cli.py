"""The `durak` command: wires the subcommands, each defined in its own module, into one group.

This module only wires; no command module imports it. Every user mistake ends in one line on
stderr and a non-zero exit (2 for usage and input errors, 1 when a check finds a problem), never
a traceback. A clause of a --spec copy that fails while it runs is one line too (exit 2).
"""

from __future__ import annotations

import sys

import click

from durak_spec.conformance.engine import __version__
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.lang import failure_of
from durak_spec.tools.cases import cases_group
from durak_spec.tools.check import check_command
from durak_spec.tools.common import UserError
from durak_spec.tools.fuzz import fuzz_command
from durak_spec.tools.judge.command import judge_command
from durak_spec.tools.lint.command import lint_command
from durak_spec.tools.match import match_command
from durak_spec.tools.play import deal, replay, simulate
from durak_spec.tools.rules import rules, variants
from durak_spec.tools.verify.command import verify_command


class Commands(click.Group):
    """The subcommands, with an error a spec clause raises while it runs (lang.failure_of) said
    in one line naming the rule, the clause and the step, exit 2, whichever command ran it."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Exception as exc:
            failure = failure_of(exc)
            if failure is None:
                raise
            raise UserError(str(failure)) from None


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="durak",
                      message="%(prog)s (durak-spec) %(version)s")
@click.option("--spec", "spec_dir", type=click.Path(file_okay=False), default=None,
              help="Use the spec folder at this path instead of the shipped one.")
@click.pass_context
def cli(ctx, spec_dir):
    """durak-spec: the rules of Durak as data, a reference interpreter and a conformance suite."""
    ctx.ensure_object(dict)
    ctx.obj["spec_dir"] = spec_dir


for command in (rules, variants, simulate, deal, replay, check_command, cases_group, fuzz_command,
                judge_command, verify_command, lint_command, match_command):
    cli.add_command(command)


def main(argv=None):
    try:
        cli.main(args=argv, prog_name="durak", standalone_mode=True)
    except DurakError as exc:  # a safety net: errors we raise on purpose never show a traceback
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
