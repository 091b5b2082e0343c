"""The rulesets a diagnosis searches (reference_impl/diagnose.py variant_ruleset): a variant that
agrees with a compiled one on every option that one reads shares its rules and program, and is
exactly what compiling it alone gives; the store keeps the variants used lately."""

from __future__ import annotations

import gc
import random
from collections import OrderedDict

import pytest

from durak_spec.reference_impl import diagnose, ruleset
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.ruleset import Ruleset

# a preset of each kind of thing a ruleset reads beside its clauses: the deck's definitions
# (two_packs, full_deck_jokers), the team layout (podkidnoy_teams), transfers and their options
PRESETS = ("podkidnoy", "perevodnoy_passport", "podkidnoy_teams", "two_packs", "full_deck_jokers")
PAIRS = 40  # variants changing two options at once, per preset


@pytest.fixture
def stores(monkeypatch):
    """Empty stores, and the programs generated: [id(Ruleset)]."""
    monkeypatch.setattr(diagnose, "_RULESETS", OrderedDict())
    monkeypatch.setattr(diagnose, "_PROGRAMS", type(diagnose._PROGRAMS)())  # empty, as it is
    generated = []
    fuse = Ruleset._fuse

    def counted(self):
        generated.append(id(self))  # not the ruleset: the store alone keeps it
        return fuse(self)
    monkeypatch.setattr(ruleset.Ruleset, "_fuse", counted)
    return generated


def fingerprint(rs: Ruleset) -> tuple:
    """What a game, a diagnosis and a report read from a ruleset."""
    return (rs.behaviour_key(), rs.step_source, rs.options, rs.option_origins, rs.overrides,
            rs.name, [r.id for r in rs.active_rules],
            sorted((k, [(cr.rule.id, cr.clause.src) for cr in crs]) for k, crs in rs.legality.items()),
            sorted((k, cr.rule.id) for k, cr in rs.order.items()),
            sorted((k, cr.rule.id) for k, cr in rs.decisions.items()),
            sorted((k, cr.rule.id, cr.clause.src) for k, cr in rs.match_decisions.items()),
            [(inv["id"], c.src) for inv, c in rs.invariants],
            [(event, [(getattr(fn, "func", fn).__name__, getattr(fn, "keywords", None),
                       None if when is None else when.src) for fn, when in steps])
             for event, steps in rs._flow_steps.items()],
            sorted((k, sorted((c.text, [f.text for f in fs]) for c, fs in v.items()))
                   for k, v in rs.named_forms.items()),
            id(rs.deck), [rs.seating(n) for n in range(2, 7)], rs.turn_up_place,
            rs.turn_up_hidden, rs.hand_size_src)


def variants(spec, preset: str) -> list[dict]:
    """The preset, each option set to each of its other values, and PAIRS pairs of such changes."""
    base = spec.ruleset(preset).options
    singles = [{n: v} for n, o in spec.options.items() for v in o.values
               if not (v == base[n] and type(v) is type(base[n]))]
    rng = random.Random(preset)
    pairs = []
    while len(pairs) < PAIRS:
        a, b = rng.sample(singles, 2)
        if set(a) != set(b):
            pairs.append({**a, **b})
    return [{}] + singles + pairs


@pytest.mark.parametrize("preset", PRESETS)
def test_a_variant_sharing_a_compiled_ruleset_is_that_variant_compiled_alone(spec, stores, preset):
    base = spec.ruleset(preset).options
    shared = 0
    for change in variants(spec, preset):
        options = {**base, **change}
        before = len(stores)
        try:
            rs = diagnose.variant_ruleset(spec, preset, options)
        except DurakError:
            continue
        if len(stores) > before:
            continue  # compiled for itself
        shared += 1
        alone = Ruleset(spec, preset, options)
        assert fingerprint(rs) == fingerprint(alone), (preset, change)
    assert shared > 20, "too few variants shared a compiled ruleset: the test compares little"


def test_a_variant_whose_rules_compile_alike_generates_no_program_of_its_own(spec, stores):
    """A value that the clauses read but fold to the same code (a transfer option where no
    transfer is allowed) gives the program of the variant compiled before."""
    base = spec.ruleset("podkidnoy").options
    first = diagnose.variant_ruleset(spec, "podkidnoy", dict(base))
    alike = []
    for option, o in spec.options.items():
        for value in o.values:
            if value != base[option]:
                before = len(stores)
                try:
                    rs = diagnose.variant_ruleset(spec, "podkidnoy", {**base, option: value})
                except DurakError:
                    continue
                if len(stores) == before:
                    alike.append(rs)
                    assert rs.options[option] == value and rs.source is first.source
    assert len(alike) > 10 and len(stores) < 150


def test_the_store_keeps_the_variants_used_lately(spec, stores, monkeypatch):
    """A long run with many failures asks for more variants than the store keeps: those it asks
    for again and again stay (the least recently used go first), and the store stays bounded."""
    base = spec.ruleset("podkidnoy").options
    diagnose.variant_ruleset(spec, "podkidnoy", dict(base))
    changes = []  # six variants of programs of their own
    for option, o in spec.options.items():
        for value in o.values:
            before = len(stores)
            if value != base[option] and len(changes) < 6:
                try:
                    diagnose.variant_ruleset(spec, "podkidnoy", {**base, option: value})
                except DurakError:
                    continue
                if len(stores) > before:
                    changes.append({option: value})
    assert len(changes) == 6
    monkeypatch.setattr(diagnose, "_CACHE_LIMIT", 3)
    monkeypatch.setattr(diagnose, "_RULESETS", OrderedDict())
    monkeypatch.setattr(diagnose, "_PROGRAMS", type(diagnose._PROGRAMS)())  # empty, as it is
    hot = diagnose.variant_ruleset(spec, "podkidnoy", dict(base))
    for change in changes:
        diagnose.variant_ruleset(spec, "podkidnoy", {**base, **change})
        assert diagnose.variant_ruleset(spec, "podkidnoy", dict(base)) is hot
        assert len(diagnose._RULESETS) <= 3
    gc.collect()
    assert len(diagnose._PROGRAMS) <= 3, "a program no kept variant shares is kept"
    cold = diagnose.variant_ruleset(spec, "podkidnoy", {**base, **changes[0]})
    assert fingerprint(cold) == fingerprint(Ruleset(spec, "podkidnoy", {**base, **changes[0]}))
