"""Running the `durak` command in process for tests: never a traceback, never a stray exception."""

from __future__ import annotations

from click.testing import CliRunner

from durak_spec.tools.cli import cli


def run(*args):
    """Invoke `durak ARGS...`; fail the test on a traceback or an exception other than exit."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"unexpected exception {result.exception!r}"
    return result
