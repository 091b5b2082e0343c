"""The index of the shipped cases (conformance/cases/index.jsonl): a case whose bytes it holds is
taken from it unparsed; an edited or new one is parsed and validated in full, never trusted."""

from __future__ import annotations

import shutil

import pytest

from durak_spec.conformance import cases as cases_module
from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.runner import Selection
from durak_spec.reference_impl.yamlio import INDEX_NAME, ContentIndex

SAMPLE = ("attack/open_any_card", "attack/open_on_table", "defence/cover_higher_same_suit")


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """A shipped folder of a few cases with the shipped index, and the files parsed from it."""
    root = tmp_path / "cases"
    for case_id in SAMPLE:
        (root / case_id).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(cases_module.CASES_DIR / f"{case_id}.yaml", root / f"{case_id}.yaml")
    shutil.copy(cases_module.CASES_DIR / INDEX_NAME, root / INDEX_NAME)
    monkeypatch.setattr(cases_module, "CASES_DIR", root)
    cases_module.case_index.cache_clear()
    cases_module._CACHE.clear()
    parsed = []
    real = cases_module.load_file
    monkeypatch.setattr(cases_module, "load_file",
                        lambda p, raw=None: parsed.append(p.relative_to(root).as_posix()) or real(p, raw))
    yield root, parsed
    cases_module.case_index.cache_clear()
    cases_module._CACHE.clear()


def test_shipped_cases_the_index_holds_are_not_parsed(spec, shipped):
    root, parsed = shipped
    suite = load_suite(spec)
    assert sorted(c.id for c in suite.cases) == sorted(SAMPLE) and not suite.broken
    assert parsed == []


def test_an_edited_shipped_case_is_validated_in_full(spec, shipped):
    root, parsed = shipped
    path = root / f"{SAMPLE[0]}.yaml"
    path.write_text(path.read_text() + "bogus_field: 1\n")
    suite = load_suite(spec)
    assert parsed == [f"{SAMPLE[0]}.yaml"]
    assert [e.file for e in suite.broken] == [str(path)]
    assert "bogus_field" in str(suite.broken[0])
    assert sorted(c.id for c in suite.cases) == sorted(SAMPLE[1:])


def test_a_case_the_index_holds_is_the_case_parsed_in_full(spec, shipped):
    trusted = load_suite(spec)
    cases_module._CACHE.clear()
    full = load_suite(spec, trust=False)
    assert [(c.id, c.data, c.steps) for c in trusted.cases] == \
        [(c.id, c.data, c.steps) for c in full.cases]


def test_cases_are_selected_by_rule_from_the_index_without_being_parsed(spec, shipped):
    root, parsed = shipped
    suite = load_suite(spec, pick=Selection(rules=("defence",)).picks)
    assert [c.id for c in suite.cases] == ["defence/cover_higher_same_suit"]
    assert parsed == []


def test_an_index_written_under_another_schema_is_ignored(tmp_path):
    path = tmp_path / INDEX_NAME
    path.write_text(ContentIndex.text("seal-a", [("a.yaml", "0" * 64, {}, {"x": 1})]))
    assert ContentIndex(path, "seal-a").data("0" * 64) == {"x": 1}
    assert ContentIndex(path, "seal-b").data("0" * 64) is None


@pytest.mark.parametrize("whole", [False, True], ids=["searched", "read whole"])
def test_an_index_gives_each_digest_its_own_line_whether_searched_or_read_whole(tmp_path, whole):
    """A few digests are found by a search of the file, more by reading it whole: both give each
    digest its own facts and data, and a digest that only a data text holds is not in the index."""
    shas = [f"{i:064x}" for i in range(12)]
    decoy = "f" * 64
    entries = [(f"{i}.yaml", sha, {"id": i}, {"x": i, "note": f'"sha256":"{decoy}"'})
               for i, sha in enumerate(shas)]
    path = tmp_path / INDEX_NAME
    path.write_text(ContentIndex.text("seal", entries))
    index = ContentIndex(path, "seal")
    if whole:
        for sha in shas[:ContentIndex.SCAN_LOOKUPS]:
            index.facts(sha)
    for i in reversed(range(len(shas))):
        assert index.facts(shas[i]) == {"file": f"{i}.yaml", "sha256": shas[i], "id": i}
        assert index.data(shas[i])["x"] == i
    assert index.facts(decoy) is None and index.data("0" * 63 + "z") is None
    assert index._lines is not None  # twelve lookups: the index was read whole at last


def test_lint_notes_an_index_out_of_date_until_it_is_rewritten(spec, shipped, monkeypatch):
    from durak_spec.tools.lint import index as lint_index

    root, _ = shipped
    monkeypatch.setattr(lint_index, "CASES_DIR", root)
    assert root / INDEX_NAME in lint_index.stale_indexes(spec)  # it holds the whole suite
    (root / INDEX_NAME).write_text(lint_index.index_files(spec)[root / INDEX_NAME])
    assert root / INDEX_NAME not in lint_index.stale_indexes(spec)
    path = root / f"{SAMPLE[1]}.yaml"
    path.write_text(path.read_text().replace("description:", "description: edited,", 1))
    cases_module._CACHE.clear()
    assert root / INDEX_NAME in lint_index.stale_indexes(spec)


def test_write_index_refuses_a_folder_other_than_the_shipped_one(tmp_path):
    from click.testing import CliRunner

    from durak_spec.tools.cli import cli

    result = CliRunner().invoke(cli, ["lint", "--write-index", "--cases-dir", str(tmp_path)])
    assert result.exit_code == 2 and "--write-index" in result.output, result.output
