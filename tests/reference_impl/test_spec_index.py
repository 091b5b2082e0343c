"""The index of the shipped spec files (spec/index.jsonl): a file whose bytes it holds is taken
from it, neither parsed nor validated again; an edited one (a --spec copy) is read in full."""

from __future__ import annotations

import pytest

from durak_spec.reference_impl import spec as spec_module
from durak_spec.reference_impl.errors import SpecError
from durak_spec.reference_impl.spec import load_spec


@pytest.fixture
def parsed(monkeypatch):
    """The spec files parsed (not taken from the index)."""
    seen = []
    real = spec_module.load_file
    monkeypatch.setattr(spec_module, "load_file",
                        lambda p, raw=None: seen.append(p.name) or real(p, raw))
    return seen


def test_the_shipped_spec_loads_from_its_index_without_parsing(parsed):
    spec = load_spec()
    assert spec.rules and parsed == []


def test_the_spec_from_the_index_is_the_spec_parsed_in_full(parsed):
    trusted, full = load_spec(), load_spec(record=[])
    assert len(parsed) > 20  # every file, in full
    assert [(r.id, r.text, r.clause, r.when) for r in trusted.rules] == \
        [(r.id, r.text, r.clause, r.when) for r in full.rules]
    assert trusted.presets == full.presets and trusted.flow == full.flow
    assert trusted.options == full.options and trusted.disputes == full.disputes


def test_an_edited_spec_file_is_validated_in_full(spec_copy, parsed):
    spec_copy.edit("deck.yaml", "\nranks:", "\nranks_typo: 1\nranks:")
    with pytest.raises(SpecError, match="ranks_typo"):
        spec_copy.load()
    assert parsed == ["deck.yaml"]  # the files before it are the shipped ones: from the index
