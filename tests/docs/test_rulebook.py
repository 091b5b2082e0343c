"""The rulebook pages (docs/_ext/durak_docs/rulebook.py): each preset's rules in force said in
plain words from spec/ data (a rule's `plain`, an option's sentence for the preset's value), each
statement linked to the rules it states; no option name or normative keyword on the page, and an
edited sentence in a spec copy shows up."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from durak_docs.data import DocsData  # noqa: E402
from durak_docs.rulebook import chapters, statements  # noqa: E402

from durak_spec.tools.lint.spec import lint as lint_spec  # noqa: E402

IDENTIFIER = re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\bopt\.|\b(MUST|MAY|SHOULD)\b")


@pytest.fixture(scope="module")
def data(spec) -> DocsData:
    return DocsData.load(spec.root, ROOT)


def said(data, preset: str) -> dict[str, str]:
    """Rule id -> the words of the statement that speaks for it."""
    return {r.id: " ".join(st.sentences) for _, sts in statements(data, preset)
            for st in sts for r in st.rules}


def test_every_rule_in_force_is_stated_in_plain_words_and_linked(data, spec):
    for preset in spec.presets:
        book = said(data, preset)
        listed = {r.id for _, rules in chapters(data, preset) for r in rules}
        assert listed == set(book), (preset, sorted(listed ^ set(book)))
        for rule_id, words in book.items():
            assert words and not IDENTIFIER.search(words), (preset, rule_id, words)
    # where transfers are played, every rule that can decide is in the book
    deciding = {r.id for r in spec.rules if "perevodnoy_passport" in data.deciding_presets(r)}
    assert deciding <= set(said(data, "perevodnoy_passport"))


def test_each_rulebook_says_the_presets_own_values(data):
    marmot = said(data, "marmot_tournament")
    assert "lowest trump still in the game" in marmot["deck.trump_exchange"]
    assert "no more than six" in marmot["defence.pickup"]
    assert "counterclockwise" in marmot["draw.order"]
    podkidnoy = said(data, "podkidnoy")
    assert "Nobody may swap" in podkidnoy["deck.trump_exchange"]
    assert "at most 6 attack cards" in podkidnoy["limits.cap"]
    assert "transfer.effect" not in podkidnoy  # no transfers: the chapter says only that
    assert "cannot be passed on" in podkidnoy["transfer.allowed"]
    no_cap = said(data, "podkidnoy_no_cap")
    assert "no fixed limit" in no_cap["limits.cap"]  # limits.cap is off, its value still said
    passport = said(data, "perevodnoy_passport")
    assert "passport" in passport["transfer.passport"] and "passed on" in passport["transfer.effect"]


def test_a_sentence_edited_in_a_spec_copy_shows_up_on_the_rulebook(spec_copy):
    spec_copy.edit("options.yaml", "A full hand is {value} cards.",
                   "Everybody holds {value} cards after drawing.")
    data = DocsData.load(spec_copy.root, ROOT)
    assert "Everybody holds 6 cards after drawing." in said(data, "podkidnoy")["draw.who"]


def test_team_play_is_said_only_where_teams_play(data, spec):
    """A rule's `plain_where` sentences are said only under the presets whose options make their
    `when` hold: nothing about partners or teams in a rulebook where everyone plays alone."""
    teams = [p for p in spec.presets if spec.ruleset(p).options["teams"] != "none"]
    alone = [p for p in spec.presets if p not in teams]
    assert teams and alone
    for preset in alone:
        words = " ".join(said(data, preset).values()).lower()
        assert "team play" not in words and "partner" not in words, preset
    for preset in teams:
        book = said(data, preset)
        assert "partner" in book["rotation.defender"] and "partner" in book["throw_in.who"], preset


def test_a_plain_where_clause_that_reads_the_state_is_a_lint_problem_naming_it(spec_copy):
    spec_copy.edit("rules/rotation.yaml", "- when: \"opt.teams != 'none'\"\n        plain: In team play it",
                   "- when: \"team_play\"\n        plain: In team play it")
    problems = lint_spec(spec_copy.load()).problems
    named = [p for p in problems if "rules/rotation.yaml" in p and "plain_where[0].when" in p]
    assert len(named) == 1, problems  # once, not once per preset


def test_a_plain_where_sentence_no_preset_says_is_a_lint_problem(spec_copy):
    """rules[2] of rotation.yaml: other files' rules[2] hold plain_where sentences that are said,
    so the check must tell them apart by file."""
    spec_copy.edit("rules/rotation.yaml", "- when: \"opt.teams != 'none'\"\n        plain: In team play it",
                   "- when: \"opt.teams == 'two_teams' and opt.teams == 'three_teams'\"\n"
                   "        plain: In team play it")
    problems = lint_spec(spec_copy.load()).problems
    assert any("rules/rotation.yaml" in p and "holds under no preset" in p for p in problems), problems
