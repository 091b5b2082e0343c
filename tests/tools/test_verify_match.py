"""`durak verify`, the match part (tools/verify/match.py): the bound within which every match
ends, and the options of a match that have an effect (read by the match rules, not by a deal)."""

from __future__ import annotations

import json

import jsonschema
from rich.console import Console

from durak_spec.tools.verify.match import ends_within, prove_deal_end, render_matches, verify_match
from durak_spec.tools.verify.presets import dead_options
from durak_spec.tools.verify.report import SCHEMA, verify_report
from durak_spec.tools.verify.run import PresetReport


def test_every_ladder_match_ends_within_its_number_of_deals(spec):
    rs = spec.ruleset("podkidnoy_epaulette_ladder")
    assert rs.options["match_end"] == "score_or_deals"
    assert ends_within(rs, 3) == (rs.options["match_deals"], "")
    # played to the ace alone, a run of deals that score nothing never ends it
    bound, why = ends_within(spec.ruleset("podkidnoy_epaulette_ladder", {"match_end": "score"}), 3)
    assert bound is None and "for ever" in why


def test_the_options_of_a_match_have_an_effect_and_a_dead_one_is_found(spec_copy):
    spec_copy.edit("presets.yaml", "  cardzmania:", """  ten_deals_to_eight:
    title: Penalty points for ten deals, and a target nothing reads
    extends: podkidnoy
    sources: [CZM]
    options:
      scoring: penalty_points
      match_target: 8
  cardzmania:""")
    spec = spec_copy.load()
    assert dead_options(spec, "cardzmania", spec.ruleset("cardzmania"), [3]) == ([], [])
    problems, _ = dead_options(spec, "ten_deals_to_eight", spec.ruleset("ten_deals_to_eight"), [3])
    assert len(problems) == 1 and "match_target=8 has no effect" in problems[0]
    assert "match.end" in problems[0]


def test_the_winner_is_proved_not_a_loser_and_a_winner_rule_that_ignores_losers_is_caught(spec_copy):
    rs = spec_copy.load().ruleset("podkidnoy_teams")
    assert prove_deal_end(rs, 4)["inv.winner_not_loser"] == "proved"
    broken = spec_copy.edit("rules/match.yaml", 'clause: "argmin(place(x) for x in seats if not loses(x))"',
                            'clause: "argmin(place(x) for x in seats)"').load()
    status = prove_deal_end(broken.ruleset("podkidnoy_teams"), 4)["inv.winner_not_loser"]
    assert status.startswith("counterexample at 4 players")


def test_a_match_rule_broken_under_one_option_of_the_deal_is_caught_there_and_not_beside_it(
        spec, spec_copy):
    """Match proofs are made once for rulesets whose match rules read the same (match._frame):
    podkidnoy_teams with either opening shares them, until a match rule reads the opening."""
    multi = {"opening": "same_rank_multi"}
    assert spec.ruleset("podkidnoy_teams").options["opening"] != "same_rank_multi"
    for overrides in ({}, multi):  # made once, with the shipped rules
        rs = spec.ruleset("podkidnoy_teams", overrides)
        assert verify_match(rs, [4]).proved["inv.winner_not_loser"] == "proved"
    broken = spec_copy.edit(
        "rules/match.yaml", 'clause: "argmin(place(x) for x in seats if not loses(x))"',
        'clause: "argmin(place(x) for x in seats if opt.opening == \'same_rank_multi\' or not '
        'loses(x))"').load()
    status = verify_match(broken.ruleset("podkidnoy_teams", multi), [4]).proved
    assert status["inv.winner_not_loser"].startswith("counterexample at 4 players")
    plain = verify_match(broken.ruleset("podkidnoy_teams"), [4]).proved
    assert plain["inv.winner_not_loser"] == "proved"


def _table_and_json(match):
    """The match table as printed, and the preset's match entry of `durak verify --report`."""
    report = PresetReport(match.preset, [], {}, list(match.players), match=match)
    console = Console(record=True, width=300)
    render_matches(console, [report])
    full = verify_report([report], 0, 0.0, {})
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(full)
    return console.export_text(), full["presets"][0]["match"]


def test_a_redeal_makes_the_deals_dealt_unbounded_and_the_bound_counts_the_deals_of_the_match(
        spec, spec_copy):
    """marmot_tournament lets a two-suited hand call a redeal (deck.redeal): its bound is on the
    deals that count, and the table and the report say that void deals are not bounded. The same
    preset in a copy of the spec without the redeal option has the same bound and no such claim,
    so the claim comes from the option, not from the preset's name."""
    with_redeal = verify_match(spec.ruleset("marmot_tournament"), [2])
    assert with_redeal.void_deals[0] == "deck.redeal"
    text, entry = _table_and_json(with_redeal)
    assert "10 deals + redeals: unbounded" in text and "no rule limits the void deals" in text
    assert entry["ends_within"] == {"2": 10}
    assert entry["void_deals"]["bounded"] is False and "deck.redeal" in entry["void_deals"]["rules"]
    assert "not bounded" in entry["void_deals"]["note"]

    plain = spec_copy.edit("presets.yaml", "      redeal: two_suits\n", "").load()
    without = verify_match(plain.ruleset("marmot_tournament"), [2])
    assert without.ends_within == with_redeal.ends_within and without.void_deals == []
    text, entry = _table_and_json(without)
    assert "redeal" not in text and "void" not in text
    assert entry["void_deals"] == {"rules": [], "bounded": True, "note": ""}


def test_a_redeal_is_read_from_the_flow_so_a_redeal_that_does_not_void_the_deal_is_not_one(
        spec_copy):
    """The claim follows the flow: an action kind whose event runs void_deal. With the redeal's
    event emptied in a copy, calling one voids nothing, and no deal is void."""
    assert verify_match(spec_copy.load().ruleset("podkidnoy_colour_redeal"), [2]).void_deals
    broken = spec_copy.edit("flow.yaml", "  redeal: [void_deal]\n", "  redeal: []\n").load()
    assert verify_match(broken.ruleset("podkidnoy_colour_redeal"), [2]).void_deals == []
