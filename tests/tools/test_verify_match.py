"""`durak verify`, the match part (tools/verify/match.py): the bound within which every match
ends, and the options of a match that have an effect (read by the match rules, not by a deal)."""

from __future__ import annotations

from durak_spec.tools.verify.match import ends_within, prove_deal_end
from durak_spec.tools.verify.presets import dead_options


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
