"""Shared test fixtures: hypothesis profiles and copies of spec/ that tests may edit."""

from __future__ import annotations

import os
import shutil
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
