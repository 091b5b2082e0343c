"""The conformance suite as pytest items, for `pytest --durak-adapter ADAPTER` (tools/pytest_plugin.py
registers this only when that option is given).

Each selected case run is one item whose id carries the rule, the case and the preset:
`limits.cap::limits/seventh_card[podkidnoy]` (the case's first rule), so `-k`, `--deselect` and
pytest's reports work on them as on any test. The runner (conformance/runner.py) runs each item on
one engine session opened at the first item and closed at the end; a failure's message is durak
check's own block (conformance/report.py failure_text); a skip is pytest's skip with the runner's
reason; a known failure (--durak-known-failures) is an xfail, and one that passes fails. As with
durak check, a run whose case runs were mostly skipped is never green: the session fails and says
TESTED TOO LITTLE.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.matches import run_match_case
from durak_spec.conformance.problems import Evidence, find_problems
from durak_spec.conformance.report import failure_text, problem_text
from durak_spec.conformance.runner import (
    FAILING,
    Selection,
    Session,
    load_known_failures,
    summarize,
    tested_too_little,
)
from durak_spec.conformance.transport import AdapterError, check_adapter_name, make_adapter
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.model import check_option_value
from durak_spec.reference_impl.spec import load_spec
from durak_spec.tools.common import UserError, _parse_options

MAX_FAULTS = 5  # engine faults (crash, hang, exit) in a row before the remaining items give up
PROPERTY = "durak_status"  # the runner's status, carried by each item's report (also under xdist)


class CaseRunFailed(Exception):
    """A case run that failed, errored, was broken or passed while known to fail."""

    def __init__(self, result):
        super().__init__(result.message)
        self.result = result


class EngineUnavailable(Exception):
    """The engine failed its handshake, or faulted too often: no case can run."""


class DurakSuite:
    """The plugin object registered for one pytest run with --durak-adapter."""

    def __init__(self, config):
        opt = config.getoption
        self.adapter_name = opt("durak_adapter")
        self.timeout = opt("durak_timeout")
        self.paths = tuple(opt("durak_path"))
        try:
            check_adapter_name(self.adapter_name)
            self.options = _parse_options(opt("durak_option"))
            known_file = opt("durak_known_failures")
            self.known = load_known_failures(known_file) if known_file else {}
        except (AdapterError, UserError) as exc:
            raise pytest.UsageError(f"--durak-adapter: {_message(exc)}") from None
        if not self.timeout > 0:
            raise pytest.UsageError("--durak-timeout: give a positive number of seconds")
        self.selection = Selection(tuple(opt("durak_case")), tuple(opt("durak_rule")),
                                   tuple(opt("durak_area")), tuple(opt("durak_variant")),
                                   tuple(opt("durak_players")))
        self.spec = None
        self.session: Session | None = None
        self.unavailable = ""
        self.faults_in_a_row = 0
        self.statuses: list[str] = []
        self.results: list = []          # the case runs of this process, for its problems
        self.evidence = Evidence()       # what the engine did in them, to confirm advice

    # -- collection ----------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)  # before -k and --deselect look at the items
    def pytest_collection_modifyitems(self, session, config, items) -> None:
        self.spec = load_spec()
        self._check_selection()
        suite = load_suite(self.spec, ids=self.selection.cases)
        groups: dict[str, RuleGroup] = {}

        def group(name: str):
            if name not in groups:
                groups[name] = RuleGroup.from_parent(session, name=name, nodeid=name)
            return groups[name]

        for err in suite.broken:  # the suite's own bug, reported apart from the engine's
            items.append(BrokenCaseItem.from_parent(group("broken"), name=err.file or "case",
                                                    error=str(err)))
        for case in suite.cases:
            if not self.selection.picks(case):
                continue
            rule = self._rule_of(case)
            for variant in self.selection.variants_of(case):
                items.append(CaseItem.from_parent(group(rule), name=f"{case.id}[{variant}]",
                                                  suite=self, case=case, variant=variant))
        for path, case_id, data in suite.matches:
            if self._picks_match(case_id, data):
                preset = (data.get("match") or {}).get("preset", "")
                items.append(MatchItem.from_parent(group("match"), name=f"{case_id}[{preset}]",
                                                   suite=self, case_id=case_id, data=data,
                                                   file=path))

    def _rule_of(self, case) -> str:
        """The rule an item is filed under: the first of the case's rules that --durak-rule
        selects (a case may be picked for a rule one of its steps names), else its first rule."""
        picked = self.selection.rules
        for rule in [*case.rules, *(s.rule for s in case.steps if s.rule)]:
            if any(rule == p or rule.startswith(p + ".") or fnmatch.fnmatchcase(rule, p)
                   for p in picked):
                return rule
        return case.rules[0] if case.rules else case.area

    def _check_selection(self) -> None:
        spec, sel = self.spec, self.selection
        unknown = [v for v in sel.variants if v not in spec.presets]
        if unknown:
            raise pytest.UsageError(f"--durak-variant: unknown preset {unknown[0]!r}; presets: "
                                    f"{', '.join(spec.presets)}")
        areas = [a["id"] for a in spec.areas]
        bad = [a for a in sel.areas if a not in areas]
        if bad:
            raise pytest.UsageError(f"--durak-area: unknown area {bad[0]!r}; areas: {', '.join(areas)}")
        for name, value in self.options.items():
            try:
                check_option_value(spec, name, value, None, f"--durak-option {name}")
            except DurakError as exc:
                raise pytest.UsageError(str(exc)) from None

    def _picks_match(self, case_id: str, data: dict) -> bool:
        """The match cases durak check would run for this selection (tools/check.py)."""
        sel, m = self.selection, data.get("match") or {}
        if sel.cases and not any(fnmatch.fnmatchcase(case_id, p) for p in sel.cases):
            return False
        if (sel.rules or sel.areas) and "match" not in sel.areas:
            return False
        return not ((sel.variants and m.get("preset") not in sel.variants)
                    or (sel.players and m.get("players") not in sel.players))

    # -- running -------------------------------------------------------------------------------
    def engine(self) -> Session:
        """The engine session, opened at the first item; raises EngineUnavailable once it cannot
        be used."""
        if self.unavailable:
            raise EngineUnavailable(self.unavailable)
        if self.session is None:
            try:
                adapter = make_adapter(self.adapter_name, self.timeout, self.spec, paths=self.paths)
                session = Session(self.spec, adapter, known=self.known,
                                  adapter_name=self.adapter_name, options=self.options,
                                  paths=self.paths)
                session.open()
            except AdapterError as exc:
                self.unavailable = str(exc)
                raise EngineUnavailable(self.unavailable) from None
            self.session = session
        return self.session

    def run(self, item, play):
        """Run one item's case on the engine and turn the runner's status into pytest's."""
        session = self.engine()
        restarts = session.restarts
        # A failure's advice is confirmed over this case run, so its message is what durak
        # check says for its `reproduce` command; the problems at the end confirm over them all.
        session.evidence = Evidence()
        result = play(session)
        for game in session.evidence.games:
            self.evidence.add(*game)
        find_problems([result], session.evidence)
        self.results.append(result)
        self.faults_in_a_row = self.faults_in_a_row + 1 if session.restarts > restarts else 0
        if self.faults_in_a_row >= MAX_FAULTS:
            self.unavailable = f"gave up after {self.faults_in_a_row} engine faults in a row"
        item.user_properties.append((PROPERTY, result.status))
        if result.status == "skip":
            pytest.skip(result.message)
        if result.status == "xfail":
            pytest.xfail(result.message)
        if result.status in FAILING:
            raise CaseRunFailed(result)

    # -- the end of the run --------------------------------------------------------------------
    def pytest_runtest_logreport(self, report) -> None:
        status = dict(report.user_properties).get(PROPERTY)
        if status is not None and report.when == "call":
            self.statuses.append(status)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None
        if exitstatus == pytest.ExitCode.OK and self.too_little():
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def too_little(self) -> bool:
        return tested_too_little([_Status(s) for s in self.statuses])

    def pytest_terminal_summary(self, terminalreporter) -> None:
        counts = summarize([_Status(s) for s in self.statuses])
        text = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing run"
        terminalreporter.write_line(f"durak-spec: {len(self.statuses)} case runs against "
                                    f"{self.adapter_name}: {text}")
        problems = find_problems(self.results, self.evidence)
        if problems:
            terminalreporter.write_line(f"{len(problems)} problem(s) behind "
                                        f"{sum(p['count'] for p in problems)} failing run(s):")
            for i, problem in enumerate(problems, 1):
                terminalreporter.write_line(problem_text(i, problem))
        if self.too_little():
            what = "nothing was tested" if not self.statuses else \
                f"most case runs were skipped ({counts['skip']} of {len(self.statuses)})"
            terminalreporter.write_line(f"TESTED TOO LITTLE: {what}", yellow=True, bold=True)


class _Status:
    """A status in the shape the runner's summaries count."""

    def __init__(self, status: str):
        self.status = status


class RuleGroup(pytest.Collector):
    """The items of one rule; they are made by DurakSuite, so there is nothing to collect."""

    def collect(self):
        return []


class CaseItem(pytest.Item):
    """One case run: a case under one preset, on the engine under test."""

    def __init__(self, *, suite: DurakSuite, case, variant: str, **kwargs):
        super().__init__(**kwargs)
        self.suite, self.case, self.variant = suite, case, variant

    def runtest(self) -> None:
        self.suite.run(self, lambda session: session.run_case(self.case, self.variant))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseRunFailed):
            return failure_text(excinfo.value.result)
        if isinstance(excinfo.value, EngineUnavailable):
            return f"engine {self.suite.adapter_name}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return Path(self.case.file or "."), None, f"{self.case.id} @ {self.variant}"


class MatchItem(CaseItem):
    """One match case: deals in series, for an engine that declares "match": true."""

    def __init__(self, *, suite: DurakSuite, case_id: str, data: dict, file: str, **kwargs):
        pytest.Item.__init__(self, **kwargs)
        self.suite, self.case_id, self.data, self.file = suite, case_id, data, file

    def runtest(self) -> None:
        if not self.suite.engine().hello.get("match"):
            pytest.skip('the engine does not declare "match": true (protocol 1.1)')
        self.suite.run(self, lambda session: run_match_case(session, self.case_id, self.data,
                                                            self.file))

    def reportinfo(self):
        return Path(self.file or "."), None, f"match {self.case_id}"


class BrokenCaseItem(pytest.Item):
    """A case file that does not load: a bug of the suite, not of the engine."""

    def __init__(self, *, error: str, **kwargs):
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise CaseRunFailed(_Broken(self.error))

    def repr_failure(self, excinfo, style=None):
        return f"BROKEN CASE FILE {self.error}"

    def reportinfo(self):
        return Path("."), None, f"broken case file {self.name}"


class _Broken:
    def __init__(self, message: str):
        self.message = message


def _message(exc) -> str:
    return exc.message if isinstance(exc, UserError) else str(exc)
