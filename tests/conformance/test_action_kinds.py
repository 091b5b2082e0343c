"""Action kinds added in protocol 1.1 (show, swap, exchange, redeal) are an optional capability: an engine that does
not declare them under `action_kinds` is driven as before, the cases needing them skipped with the
reason; the reference engine declares and plays them; an engine claiming them wrongly fails."""

from __future__ import annotations

from conformance_support import jobs_of, run_cases

from durak_spec.conformance.runner import Selection
from durak_spec.reference_impl.notation import action_json, parse_action

SUPPORT = "python:conformance_support:"
NEW_PRESETS = {"perevodnoy_passport", "podkidnoy_trump_exchange", "poker_durak",
               "marmot_tournament", "podkidnoy_colour_redeal"}


def _jobs(shipped_suite):
    return jobs_of(shipped_suite, Selection(cases=("transfer/passport*", "start/trump_exchange*", "draw/exchange*",
                                                   "start/redeal*",
                                                   "transfer/capacity_exact", "defence/take_first_card")))


def test_an_engine_without_the_new_kinds_skips_only_the_runs_needing_them(spec, shipped_suite):
    jobs = _jobs(shipped_suite)
    assert {v for _, v in jobs} & NEW_PRESETS and {v for _, v in jobs} - NEW_PRESETS
    results = run_cases(spec, SUPPORT + "VersionOneKinds", jobs)
    for (case, variant), r in zip(jobs, results):
        plays_one = any(s.action.split()[1] in ("show", "swap", "exchange", "redeal")
                        for s in case.steps)
        if variant in NEW_PRESETS or plays_one:
            assert r.status == "skip" and "does not declare" in r.message and "action_kinds" in r.message, \
                (case.id, variant, r.status, r.message)
        else:
            assert r.status == "pass", (case.id, variant, r.status, r.message)


def test_the_reference_plays_them_and_a_false_claim_fails(spec, shipped_suite):
    jobs = [(c, v) for c, v in _jobs(shipped_suite) if v in NEW_PRESETS]
    assert {r.status for r in run_cases(spec, "reference", jobs)} == {"pass"}
    claimed = run_cases(spec, SUPPORT + "VersionOneKindsClaimingMore", jobs)
    assert any(r.status == "fail" for r in claimed)


def test_the_new_kinds_have_one_text_and_one_json_form(spec):
    deck = spec.ruleset("perevodnoy_passport").deck
    for text in ("1 show 9H", "2 swap 6H"):
        a = parse_action(text, deck, 3)
        assert str(a) == text and parse_action(action_json(a), deck, 3) == a
    assert action_json(parse_action("1 show 9H", deck)) == {"seat": 1, "kind": "show", "card": "9H"}
    exchange = parse_action("0 exchange 8D 7S", deck, 3)  # two cards, printed lower first
    assert str(exchange) == "0 exchange 7S 8D" and parse_action(action_json(exchange), deck) == exchange
    assert action_json(exchange) == {"seat": 0, "kind": "exchange", "card": "7S", "second": "8D"}
    redeal = parse_action("1 redeal", deck, 3)  # no card
    assert str(redeal) == "1 redeal" and parse_action(action_json(redeal), deck) == redeal
    assert action_json(redeal) == {"seat": 1, "kind": "redeal"}
