"""Shared test fixtures: hypothesis profiles and copies of spec/ that tests may edit."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from durak_spec.reference_impl.spec import default_spec_dir, load_spec

# ci: bounded so the whole suite stays well inside CI's budget; long: opt-in campaigns.
settings.register_profile("ci", max_examples=25, stateful_step_count=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.register_profile("dev", max_examples=50, stateful_step_count=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, stateful_step_count=600, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="session")
def spec():
    return load_spec()


class SpecCopy:
    """A writable copy of the shipped spec/ folder with checked text edits."""

    def __init__(self, root: Path):
        self.root = root
        shutil.copytree(default_spec_dir(), root, ignore=shutil.ignore_patterns("__pycache__"))

    def edit(self, rel: str, old: str, new: str) -> "SpecCopy":
        path = self.root / rel
        text = path.read_text()
        assert text.count(old) == 1, f"{old!r} must occur exactly once in {rel}"
        path.write_text(text.replace(old, new))
        return self

    def write(self, rel: str, text: str) -> "SpecCopy":
        (self.root / rel).write_text(text)
        return self

    def load(self):
        return load_spec(self.root)


@pytest.fixture
def spec_copy(tmp_path):
    return SpecCopy(tmp_path / "spec")


@pytest.fixture(scope="session")
def example_reports(tmp_path_factory) -> Path:
    """The folder of `durak check` reports of the shipped example engines that the docs' results
    site shows (docs/_ext/durak_docs/engines_site.py), run once per test run as full_verify is:
    shared by the site's tests and the docs build."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "example-reports"
    with open(shared / "example-reports.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / "done").exists():
            sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
            from durak_docs.engines_site import run_examples

            run_examples(load_spec(), Path(__file__).resolve().parents[1], folder)
            (folder / "done").write_text("")
    return folder


@pytest.fixture(scope="session")
def full_verify(tmp_path_factory) -> dict:
    """One `durak verify` over every preset and player count, shared by the whole test session.

    Under pytest-xdist each worker is its own session, so the run happens once per test run:
    the first worker to ask takes a lock in the folder the workers share, runs it and leaves the
    result there; the others wait for the lock and read it (the docs build shows the same
    report, so CI proves everything once, not twice). Returns {"exit_code", "output",
    "report": path of the JSON report, "cases": the folder counterexample cases went to}."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "full-verify"
    folder.mkdir(exist_ok=True)
    done = folder / "result.json"
    with open(shared / "full-verify.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            run = subprocess.run(
                [sys.executable, "-m", "durak_spec.tools.cli", "verify", "-q", "--jobs", "2",
                 "--out", str(folder / "cases"), "--report", str(folder / "report.json")],
                capture_output=True, text=True, timeout=1800, check=False)
            done.write_text(json.dumps({"exit_code": run.returncode,
                                        "output": run.stdout + run.stderr,
                                        "report": str(folder / "report.json"),
                                        "cases": str(folder / "cases")}))
    return json.loads(done.read_text())


# -- in a real browser ---------------------------------------------------------------------------
# Headless Chromium from the distribution (apt-get install chromium chromium-driver), driven by
# selenium. .ci/run installs it and sets DURAK_BROWSER_TESTS=required, so that in CI these tests
# fail rather than skip when the browser is missing; elsewhere they skip, saying why.

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the selenium package (pip install '.[test]')")
    if missing:
        message = f"the browser tests need {', '.join(missing)}"
        if os.environ.get("DURAK_BROWSER_TESTS") == "required":
            pytest.fail(message + " (DURAK_BROWSER_TESTS=required)")
        pytest.skip(message + "; .ci/run installs them")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1280,900",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
