"""Each preset's option values say where in their sources they come from (presets.yaml `cite`):
`durak variants` and `durak judge` show the place, and lint keeps the citations true to the
dispute register (issue 24)."""

from __future__ import annotations

import json

from cli_support import run

from durak_spec.tools.lint.spec import LintReport, _check_citations, _check_plain_words


def citation_problems(spec) -> list[str]:
    report = LintReport()
    _check_citations(spec, report)
    return report.problems


def test_every_shipped_preset_cites_each_value_it_assigns(spec):
    assert citation_problems(spec) == []
    for name, preset in spec.presets.items():
        assert set(preset.get("cite", {})) == set(preset["options"]), name


def test_variants_shows_the_place_each_value_comes_from():
    text = run("variants", "perevodnoy_passport")
    assert text.exit_code == 0, text.output
    assert "[W19] section Variation allowing defender to pass" in text.output
    data = json.loads(run("variants", "summary", "--format", "json").output)
    assert data["citations"]["throwers"] == {
        "preset": "summary", "cite": {"SUM": data["citations"]["throwers"]["cite"]["SUM"]}}
    assert data["citations"]["max_attack_cards"]["preset"] == "summary"
    assert "pile_on" not in data["citations"] or data["citations"]["pile_on"]["preset"] == "summary"


def test_the_judge_names_the_place_of_each_value_a_deciding_rule_read():
    result = run("judge", "positions/attack-limit-seventh-card.yaml", "--variant", "podkidnoy")
    assert result.exit_code == 0, result.output
    assert "[W19] section Defending, second paragraph" in result.output
    data = json.loads(run("judge", "positions/attack-limit-seventh-card.yaml", "--format",
                          "json").output)
    cap = next(o for o in data["rulings"][0]["options"] if o["name"] == "max_attack_cards")
    assert "W19" in cap["cite"]


def test_lint_catches_a_source_the_register_does_not_list_for_that_value(spec_copy):
    # SUM is among summary's sources, but D8 lists it for neighbours, not for every opponent
    spec_copy.edit("presets.yaml", "      throwers: neighbours\n", "      throwers: all_opponents\n")
    problems = citation_problems(spec_copy.load())
    assert any("summary: cite.throwers cites SUM for throwers='all_opponents'" in p for p in problems)


def test_lint_catches_an_uncited_value_and_a_source_the_preset_does_not_cite(spec_copy):
    spec_copy.edit("presets.yaml", "      redeal:\n        MAR: \"section Dealing (a hand of only two suits)\"\n", "")
    spec_copy.edit("presets.yaml", "      passport:\n        W19:", "      passport:\n        TS-RU:")
    problems = citation_problems(spec_copy.load())
    assert any("marmot_tournament assigns redeal but does not cite" in p for p in problems)
    assert any("perevodnoy_passport: cite.passport cites TS-RU, which is not among" in p
               for p in problems)


def plain_problems(spec) -> list[str]:
    report = LintReport()
    _check_plain_words(spec, report, {o for o in spec.options})
    return report.problems


def test_lint_names_a_rule_or_a_preset_value_without_plain_words(spec, spec_copy):
    """The rulebook pages say each rule in plain words from spec/ data; lint names what is
    missing, and a plain key that is no value of its option."""
    assert plain_problems(spec) == []
    taken = "    plain: >-\n      When the defender has said they take and nobody adds another card,"
    text = (spec_copy.root / "rules/bout.yaml").read_text()
    start = text.index(taken)
    spec_copy.edit("rules/bout.yaml", text[start:text.index("    text:", start)], "")
    spec_copy.edit("options.yaml", '      "all_but_one": >-', '      "all_but_two": >-')
    problems = plain_problems(spec_copy.load())
    assert any("(bout.taken) reads no option and has no plain sentence" in p for p in problems)
    assert any("options.deal.plain.all_but_two: 'all_but_two' is no value of deal" in p
               for p in problems)
    assert any("options.deal.plain has no sentence for all_but_one (preset railway's value)" in p
               for p in problems)
