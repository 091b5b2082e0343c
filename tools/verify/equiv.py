"""`durak verify`, equivalences the research points out (rules catalogue, R16 and modelling note 2):
the defender-hand bound read at the start of the bout (limits.hand_at_start) and read as unbeaten
cards against the current hand (limits.unbeaten_le_hand) allow the same attacks and throws in
every position the invariants allow; where they differ, and where the literal reading
(limits.total_le_hand) differs, a witness position is made concrete and the interpreter, run under
both readings, must agree with z3 on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import z3

from durak_spec.tools.verify.backend.concrete import Position, Step, replay, value
from durak_spec.tools.verify.backend.machine import Machine, conj
from durak_spec.tools.verify.backend.state import SymAction, SymState, reset_names
from durak_spec.tools.verify.backend.values import zbool
from durak_spec.tools.verify.invariants import Induction, check, properties
from durak_spec.tools.verify.models import Search

OPTION = "defender_hand_bound"
COMPARISONS = (("start_of_bout", "unbeaten_le_current"), ("start_of_bout", "total_le_current"))
# Where transfers exist, also try the other transfer windows: the research expects the readings
# to part once a transfer changes the defender.
TRANSFER_OPTIONS = {"transfer_window": ("before_any_beat", "while_unbeaten_share_rank")}
KINDS = ("attack", "throw")
# Models asked for per question of the witness search, each after excluding the counts of those
# no real cards fill; a bound of ours (each costs a z3 question and a card problem), not z3's.
# Where it is reached the report says the search gave up, not that no position parts the readings.
MAX_MODELS = 16


@dataclass
class Finding:
    preset: str
    overrides: dict
    a: str
    b: str
    equal_players: list = field(default_factory=list)
    witness: dict | None = None  # setup, actions, verdicts
    agrees: bool | None = None
    note: str = ""
    gave_up: list = field(default_factory=list)  # player counts where the witness search gave up


def _variants(spec, presets):
    for preset in presets:
        yield preset, {}
        if spec.ruleset(preset).options.get("transfer"):
            for name, values in TRANSFER_OPTIONS.items():
                for v in values:
                    if spec.ruleset(preset).options[name] != v:
                        yield preset, {name: v}


def _setting(spec, preset, overrides, value):
    return spec.ruleset(preset, {**overrides, OPTION: value})


def _differ(ma, mb, s_a, s_b, a, legal_a):
    """Legal under one reading (order rule included), not allowed by the other's clauses;
    `legal_a` is ma.legal(s_a, a), the term the witness search keeps the direction with."""
    return z3.Or(z3.And(zbool(legal_a), z3.Not(zbool(mb.passes_rules(s_b, a)))),
                 z3.And(zbool(mb.legal(s_b, a)), z3.Not(zbool(ma.passes_rules(s_a, a)))))


def compare(spec, preset, overrides, a_value, b_value, players, proved_for) -> Finding:
    """Whether the two readings allow the same attacks and throws in every settled position
    satisfying the properties `proved_for(n)` proves for the preset; else a witness."""
    base = spec.ruleset(preset, overrides)
    ra, rb = _setting(spec, preset, overrides, a_value), _setting(spec, preset, overrides, b_value)
    finding = Finding(preset, overrides, a_value, b_value)
    props = [p for p in properties(base) if p.scope == "state"]
    unreached, gave_up = [], []  # player counts without a witness, and why
    for n in players:
        proved = proved_for(n)
        reset_names()  # nothing built before is used below: presets alike ask alike (check)
        start = _Start(ra, rb, base, n, [p for p in props if p.id in proved])
        mp, ma, mb, s, sa, sb = start.mp, start.ma, start.mb, start.s, start.sa, start.sb
        diffs = []
        for kind in KINDS:
            a = SymAction.fresh(kind, mp.nranks, mp.nsuits)
            # any card in any hand (not only those of seats marked as able to throw)
            diffs.append(conj([ma.action_facts(sa, a), z3.Not(zbool(s.finished)), a.card_in_hand,
                               z3.Xor(zbool(ma.passes_rules(sa, a)), zbool(mb.passes_rules(sb, a)))]))
        result, _ = check(start.facts + mp.side + ma.side + mb.side + [z3.Or([zbool(d) for d in diffs])])
        if result == z3.unsat:
            finding.equal_players.append(n)
            continue
        witness, search = _witness(start)
        if witness is None:
            if search.complete:  # every question asked to the end: none has a position
                unreached.append(n)
            else:
                finding.gave_up.append(n)
                gave_up.append(f"at {n} players the clauses differ, but the witness search "
                               f"{search.gave_up()}")
            finding.note = "; ".join(
                ([f"at {', '.join(map(str, unreached))} players the clauses differ only in "
                  f"positions that no action reaches from a position a Setup states"]
                 if unreached else []) + gave_up)
            continue
        finding.witness = witness
        finding.agrees = _interpreter_agrees(ra, rb, witness)
        break
    return finding


class _Start:
    """What the comparison at one player count and its witness search share: the three
    machines (base ruleset, readings a and b), one settled starting state seen under each, and
    its facts (well formed, settled, the proved properties), built once, not again for the
    search and for each of its first actions."""

    def __init__(self, ra, rb, base, n, props):
        self.ra, self.rb, self.n = ra, rb, n
        self.mp, self.ma, self.mb = mp, ma, mb = Machine(base, n), Machine(ra, n), Machine(rb, n)
        self.s = s = SymState.fresh(mp, "eq")
        self.sa, self.sb = SymState(ma, s.f), SymState(mb, s.f)
        self.facts = [mp.well_formed(s), mp.settled(s)] + [mp.clause(s, p.clause.tree) for p in props]


def _witness(start: _Start):
    """(A concrete position where the readings part, at once or after one action, or None; the
    models.Search, which says whether None is proved). The position is settled under both readings,
    so each interpreter meets the same one. Every first action starts from the comparison's
    state (`start`), so the models depend on what the comparison built: the same whatever ran
    before it (check and reset_names)."""
    mp, ma, mb, ra, rb, n = start.mp, start.ma, start.mb, start.ra, start.rb, start.n
    s0, sa0, sb0 = start.s, start.sa, start.sb
    search = Search(MAX_MODELS, [sa0, sb0])
    base = start.facts + [mp.expressible(s0), ma.settled(sa0), mb.settled(sb0)]
    for first in (None, "transfer", "cover", "throw", "attack"):
        cons = list(base)
        steps, sa, sb, extra = [], sa0, sb0, []
        if first is not None:
            b = SymAction.fresh(first, mp.nranks, mp.nsuits)
            legal = conj([ma.legal(sa0, b), mb.legal(sb0, b)])
            if legal is False:
                continue
            s1 = mp.run_event(first, s0, b)
            sa, sb = SymState(ma, s1.f), SymState(mb, s1.f)
            cons += [legal] + [z3.Not(zbool(m.decide(x, e))) for m, x in ((ma, sa), (mb, sb))
                               for e in ("bout_beaten_off", "bout_taken")]
            steps.append(Step(b, [sa, sb]))
        for kind in KINDS:
            a = SymAction.fresh(kind, mp.nranks, mp.nsuits)
            if first is not None:
                extra = [z3.Or(a.card.rank != b.card.rank, a.card.suit != b.card.suit)]
            legal_a = ma.legal(sa, a)
            query = cons + extra + [_differ(ma, mb, sa, sb, a, legal_a)] + mp.side + ma.side + mb.side
            def direction(model, legal_a=legal_a):  # the card problem keeps the model's
                return [zbool(legal_a) == value(model, legal_a)]
            for position, model in search.positions(mp, s0, query, steps + [Step(a)], direction):
                allowed = value(model, legal_a)  # the direction the model found, held in its cards
                verdicts = {ra.options[OPTION]: allowed, rb.options[OPTION]: not allowed}
                return {"setup": position.setup, "actions": position.actions, "players": n,
                        "z3": verdicts}, search
    return None, search


def _interpreter_agrees(ra, rb, witness) -> bool:
    """Play the witness under both readings; record and compare the verdicts with z3's."""
    position = Position(witness["setup"], witness["actions"], witness["players"])
    seen = {}
    for r in (ra, rb):
        game, why = replay(r, position)
        if game is None:
            seen[r.options[OPTION]] = f"no game: {why}"
            witness["interpreter"] = seen
            return False
        *before, last = position.actions
        for text in before:
            action = game.parse_action(text)
            if action not in game.legal_actions():
                seen[r.options[OPTION]] = f"{text!r} refused by {game.explain(action)[0]}"
                witness["interpreter"] = seen
                return False
            game.apply_action(action)
        action = game.parse_action(last)
        legal = action in game.legal_actions()
        seen[r.options[OPTION]] = legal if legal else game.explain(action)[0]
    witness["interpreter"] = seen
    return all((seen[k] is True) == v for k, v in witness["z3"].items())


def check_equivalences(spec, preset: str, players: list, proved: dict) -> list[Finding]:
    """The comparisons for one preset (whose proved properties per player count are `proved`)
    and, where it has transfers, for its other transfer windows (proved here)."""
    out = []
    for _, overrides in _variants(spec, [preset]):
        if overrides:
            ruleset = spec.ruleset(preset, overrides)
            cache = {}

            def proved_for(n, ruleset=ruleset, cache=cache):
                if n not in cache:
                    ind = Induction(ruleset, n, properties(ruleset))
                    cache[n] = ind.houdini(exclude=ind.initial())[0]
                return cache[n]
        else:
            def proved_for(n):
                return proved[n]
        for a_value, b_value in COMPARISONS:
            out.append(compare(spec, preset, overrides, a_value, b_value, players, proved_for))
    return out


def render_equivalences(console, findings: list[Finding]) -> None:
    console.print("[bold]Equivalences[/bold] (D1): the defender-hand bound, read "
                  "start_of_bout against the other readings, for attacks and throws", highlight=False)
    for f in findings:
        label = f.preset + "".join(f" {k}={v}" for k, v in f.overrides.items())
        if f.witness is None:
            said = ([f"the same attacks and throws are legal, players "
                     f"{', '.join(map(str, f.equal_players))} (proved)"] if f.equal_players else [])
            said += [f.note] if f.note else []
            # "=" only where every player count is proved equal or without a reachable difference
            console.print(f"  {label}: {f.a} {'and' if f.gave_up else '='} {f.b}: {'; '.join(said)}",
                          highlight=False)
            continue
        w = f.witness
        verdict = "the interpreter agrees" if f.agrees else "[red]the interpreter disagrees[/red]"
        same = f" (equal at {', '.join(map(str, f.equal_players))} players)" if f.equal_players else ""
        console.print(f"  {label}: {f.a} ≠ {f.b} at {w['players']} players{same}:", highlight=False)
        if f.note:  # fewer players, where no witness was found
            console.print(f"    {f.note}", highlight=False)
        console.print(f"    position {json.dumps(w['setup'])}", highlight=False, soft_wrap=True)
        z3_says = ", ".join(f"{k}: {'legal' if v else 'illegal'}" for k, v in w["z3"].items())
        seen = ", ".join(f"{k}: {'legal' if v is True else 'rejected by ' + str(v)}"
                         for k, v in (w.get("interpreter") or {}).items())
        console.print(f"    then {' then '.join(repr(a) for a in w['actions'])}: z3 says "
                      f"{z3_says}; the interpreter says {seen}; {verdict}", highlight=False)
