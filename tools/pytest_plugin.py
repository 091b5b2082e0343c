"""durak-spec's pytest plugin: `pytest --durak-adapter ADAPTER` runs the conformance suite against
an engine as test items, in any folder where durak-spec is installed (registered through the
`pytest11` entry point in pyproject.toml; `-p no:durak` turns it off).

This module only adds the options. Without --durak-adapter it imports nothing of durak-spec, so
no other pytest run pays for it (not our own test suite, nor anyone's); with it, the suite's
items come from tools/pytest_suite.py.
"""

from __future__ import annotations


def pytest_addoption(parser) -> None:
    group = parser.getgroup("durak", "durak-spec conformance suite (durak check as test items)")
    group.addoption("--durak-adapter", metavar="ADAPTER",
                    help="Run the conformance suite against this engine: python:MODULE:CLASS, "
                         "cmd:COMMAND LINE or reference. Each case run is one test item, "
                         "RULE::CASE[PRESET].")
    group.addoption("--durak-variant", action="append", default=[], metavar="PRESET",
                    help="Only runs under this preset (repeatable).")
    group.addoption("--durak-rule", action="append", default=[], metavar="ID",
                    help="Only cases of this rule id or id prefix (repeatable).")
    group.addoption("--durak-area", action="append", default=[], metavar="AREA",
                    help="Only cases of this rule area (repeatable).")
    group.addoption("--durak-case", action="append", default=[], metavar="ID",
                    help="Only this case id or glob (repeatable).")
    group.addoption("--durak-players", action="append", default=[], type=int, metavar="N",
                    help="Only cases with this many players (repeatable).")
    group.addoption("--durak-option", action="append", default=[], metavar="NAME=VALUE",
                    help="An option value the engine plays whatever its hello declares.")
    group.addoption("--durak-known-failures", metavar="FILE",
                    help="YAML ledger of the engine's known failures (one reason each): they "
                         "xfail, and one that passes fails.")
    group.addoption("--durak-path", action="append", default=[], metavar="DIR",
                    help="A folder to import a python: engine from, before the current folder.")
    group.addoption("--durak-timeout", type=float, default=5.0, metavar="SECONDS",
                    help="Seconds the engine may take over each answer (default 5).")


def pytest_configure(config) -> None:
    if config.getoption("durak_adapter"):
        from durak_spec.tools.pytest_suite import DurakSuite

        config.pluginmanager.register(DurakSuite(config), "durak-suite")
