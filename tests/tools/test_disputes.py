"""The dispute register (spec/disputes.yaml): loading checks, rulings derived from presets, and the
lint checks that options.yaml and the register agree both ways."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from durak_spec.reference_impl.errors import SpecError
from durak_spec.reference_impl.spec import load_spec
from durak_spec.tools.cli import cli
from durak_spec.tools.lint.spec import lint


def dispute_problems(spec) -> list[str]:
    return [p for p in lint(spec).problems if "disputes" in p]


def test_the_register_holds_every_catalogue_dispute_d1_to_d48_then_numbers_on(spec):
    assert len(spec.disputes) >= 48
    assert list(spec.disputes) == [f"D{i}" for i in range(1, len(spec.disputes) + 1)]


def test_each_dispute_is_decided_by_options_or_open_with_a_reason(spec):
    for d in spec.disputes.values():
        assert bool(d.options) != d.is_open, d.id
        if d.is_open:
            assert len(d.open) > 20, d.id
        for stance in d.positions.values():
            assert set(stance.sources) <= set(spec.sources)


def test_the_shipped_register_and_options_agree_both_ways(spec):
    assert dispute_problems(spec) == []
    for name, option in spec.options.items():
        for did in option.disputes:
            assert name in spec.disputes[did].options


def test_every_preset_gets_a_position_or_a_reason_on_every_dispute_with_options(spec):
    for preset in spec.presets:
        options = spec.ruleset(preset).options
        for d in spec.disputes.values():
            if d.is_open:
                continue
            case = d.ruling_for(options)
            assert case is not None and (case.position in d.positions or case.moot), (preset, d.id)


def test_rulings_are_derived_from_the_presets_option_values(spec):
    d2 = spec.disputes["D2"]
    assert d2.stance_for(spec.ruleset("podkidnoy").options).id == "fixed_cap"
    assert d2.stance_for(spec.ruleset("podkidnoy_no_cap").options).id == "hand_only"
    d3 = spec.disputes["D3"]
    assert d3.stance_for(spec.ruleset("podkidnoy_online").options).id == "until_first_discard"
    assert d3.stance_for(spec.ruleset("perevodnoy_online").options).id == "first_bout_of_deal"
    assert spec.disputes["D21"].ruling_for(spec.ruleset("podkidnoy").options).moot


def test_changing_a_preset_changes_its_ruling_without_touching_the_register(spec_copy):
    spec_copy.edit("presets.yaml", "      max_attack_cards: null\n    cite:\n      max_attack_cards:\n        PGT-K-old:",
                   "      max_attack_cards: 8\n    cite:\n      max_attack_cards:\n        PGT-K-old:")
    spec = spec_copy.load()
    options = spec.ruleset("podkidnoy_no_cap").options
    assert spec.disputes["D2"].stance_for(options).id == "fixed_cap"


@pytest.mark.parametrize("old, new, message, where", [
    ("    options: [max_attack_cards]\n", "    options: [max_atack_cards]\n",
     "unknown option 'max_atack_cards'. Did you mean 'max_attack_cards'?",
     "disputes.D2.options[0]"),
    ("        sources: [SDH, RST, TS-RU]", "        sources: [SDH, RTS, TS-RU]",
     "unknown source tag 'RTS'", "disputes.D1.positions.unbeaten_le_current.sources[1]"),
    ("    rules: [limits.cap]\n", "    rules: [limits.kap]\n",
     "unknown rule id 'limits.kap'", "disputes.D2.rules[0]"),
    ("{when: {max_attack_cards: null}, position: hand_only}",
     "{when: {max_attack_cards: null}, position: hand_onyl}", "unknown position 'hand_onyl'",
     "disputes.D2.ruling[0].position"),
    ("{when: {throw_in_after_take: true}, position: allowed}",
     "{when: {throw_in_after_take: yes please}, position: allowed}",
     "option throw_in_after_take can't be 'yes please'",
     "disputes.D4.ruling[0].when.throw_in_after_take"),
    ("      - {when: {draw_order: attacker_counterclockwise_defender_last}, "
     "position: counterclockwise}\n", "",
     "no case of the ruling covers draw_order=\"attacker_counterclockwise_defender_last\"",
     "disputes.D29.ruling"),
])
def test_a_broken_register_is_a_spec_error_naming_the_file_and_path(spec_copy, old, new, message,
                                                                    where):
    spec_copy.edit("disputes.yaml", old, new)
    with pytest.raises(SpecError) as err:
        spec_copy.load()
    assert message in err.value.message
    assert err.value.file.endswith("disputes.yaml") and err.value.path == where


@pytest.mark.parametrize("old, new, message, where", [
    ("    options: [max_attack_cards]\n",
     "    options: [max_attack_cards]\n    open: no option could ever express this one\n",
     "either decided by `options`", "disputes.D2"),
    ("      - {position: fixed_cap}\n", "      - {position: fixed_cap, moot: it never arises}\n",
     "names a `position`, or says with `moot`", "disputes.D2.ruling[1]"),
    ("    ruling:\n      - {when: {max_attack_cards: null}, position: hand_only}\n"
     "      - {position: fixed_cap}\n", "", "a dispute decided by options needs a ruling",
     "disputes.D2"),
])
def test_a_dispute_must_be_decided_or_open_and_each_case_must_rule(spec_copy, old, new, message,
                                                                  where):
    spec_copy.edit("disputes.yaml", old, new)
    with pytest.raises(SpecError) as err:
        spec_copy.load()
    assert message in err.value.message and err.value.path == where


def test_a_dispute_pointing_at_a_missing_option_stops_durak_lint_with_the_path(spec_copy):
    spec_copy.edit("disputes.yaml", "    options: [draw_order]\n", "    options: [draw_orders]\n")
    result = CliRunner().invoke(cli, ["--spec", str(spec_copy.root), "lint"])
    assert result.exit_code == 2
    assert "disputes.yaml:disputes.D29.options[0]: unknown option 'draw_orders'" in result.output


def test_lint_catches_a_dispute_pointing_at_a_missing_option():
    spec = load_spec()  # a private copy: the register is changed in memory, past the load checks
    spec.disputes["D29"].options[0] = "draw_orders"
    assert dispute_problems(spec) == [
        "disputes.yaml: D29 is decided by option draw_orders, which options.yaml does not define",
        "options.yaml: option draw_order settles D29, but disputes.yaml does not list draw_order "
        "under D29.options"]


def test_lint_catches_an_option_whose_dispute_is_missing_from_the_register(spec_copy):
    spec_copy.edit("options.yaml", "    disputes: [D27]\n", "    disputes: [D27, D999]\n")
    problems = dispute_problems(spec_copy.load())
    assert problems == ["options.yaml: option simultaneous_finish settles D999, which is not in "
                        "the dispute register disputes.yaml"]


def test_lint_catches_an_option_claiming_an_open_dispute(spec_copy):
    spec_copy.edit("options.yaml", "    disputes: [D27]\n", "    disputes: [D27, D33]\n")
    assert any("settles D33, which disputes.yaml lists as open" in p
               for p in dispute_problems(spec_copy.load()))


def test_lint_catches_a_dispute_the_option_does_not_list_back(spec_copy):
    spec_copy.edit("options.yaml", "    disputes: [D18, D47]\n", "    disputes: [D18]\n")
    assert dispute_problems(spec_copy.load()) == [
        "disputes.yaml: D47 is decided by option transfer_window, but options.yaml does not list "
        "D47 under transfer_window.disputes"]


def test_lint_catches_an_option_the_dispute_does_not_list_back(spec_copy):
    spec_copy.edit("disputes.yaml", "    options: [hand_size, six_player_hand_size, deal]\n",
                   "    options: [six_player_hand_size, deal]\n")
    assert dispute_problems(spec_copy.load()) == [
        "options.yaml: option hand_size settles D15, but disputes.yaml does not list hand_size "
        "under D15.options"]


def test_lint_catches_a_stale_sources_table(spec_copy):
    """variants.yaml cannot go stale: an entry 'not modelled' whose disputes options now settle,
    and an entry implemented by options whose dispute is still open, are lint problems."""
    assert not [p for p in lint(spec_copy.load()).problems if "variants.yaml" in p]
    spec_copy.edit("variants.yaml", "disputes: [D30], reason:", "disputes: [D29], reason:")
    spec_copy.edit("variants.yaml", "options: {deck_cards: 52}, disputes: [D53]}",
                   "options: {deck_cards: 52}, disputes: [D53, D44]}")
    assert [p for p in lint(spec_copy.load()).problems if "variants.yaml" in p] == [
        "variants.yaml: full_deck is implemented by options, but disputes.yaml still lists D44 as "
        "open; give it its options and a ruling",
        "variants.yaml: card_by_card says it is not modelled, but options settle D29; name the "
        "presets or option values that implement it"]


def test_the_sources_table_names_what_exists(spec_copy):
    spec_copy.edit("variants.yaml", "presets: [railway]", "presets: [railroad]")
    with pytest.raises(SpecError, match="unknown preset 'railroad'"):
        spec_copy.load()
