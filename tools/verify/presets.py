"""`durak verify`, preset consistency: deals the deck can make, what happens to the trump when no
card is left to turn up, and option values that cannot matter given the preset's other options.

Deal sizes come from the hand_size definition translated by the z3 backend for each player count.
An option value "cannot matter" when every other allowed value of that option leaves every
legality clause, order rule, decision and flow condition of the preset with the same value in
every position the invariants and lemmas allow; such a value contradicts the options that make it
irrelevant. Positions are abstract (tools/z3state.py), so this check can miss a dead option that
only real cards would reveal, never invent one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import z3

from durak_spec.reference_impl import vocab
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.ruleset import SEAT_DECISIONS
from durak_spec.tools.verify.backend.machine import RESULT_DECISIONS, Machine
from durak_spec.tools.verify.backend.state import SymAction, SymState
from durak_spec.tools.verify.backend.values import differs, simp, zbool
from durak_spec.tools.verify.invariants import check, properties
from durak_spec.tools.verify.match import match_matters

OPTION_REF = re.compile(r"\bopt\.([a-z_][a-z0-9_]*)")


@dataclass
class Deal:
    players: int
    hand_size: int | None
    talon: int | None
    note: str


def deals(ruleset) -> list[Deal]:
    out = []
    lo, hi = ruleset.player_limits
    deck = len(ruleset.deck)
    for n in range(lo, hi + 1):
        m = Machine(ruleset, n)
        size = simp(m.hand_size(SymState.fresh(m, "deal")))
        if not isinstance(size, int):
            out.append(Deal(n, None, None, "the hand_size definition depends on the state of play"))
            continue
        dealt = simp(m.clause(SymState.fresh(m, "deal"), "dealt_cards")) \
            if "dealt_cards" in m.definitions else n * size
        talon = deck - dealt if isinstance(dealt, int) else deck - n * size
        if talon < 0:
            note = f"can't deal {size} cards to {n} players from {deck} cards"
        elif talon == 0:
            note = ("no talon: every card is dealt, so no card is turned up; the dealer's last "
                    "card is the trump and stays in their hand (deck.trump)")
        elif talon == 1:
            note = "the talon is only the turned-up trump"
        else:
            note = f"talon {talon}, the turned-up trump at its bottom"
        out.append(Deal(n, size, talon, note))
    return out


def _clauses(m: Machine, s: SymState, mid: SymState, actions: dict, throw: SymAction):
    """Every clause the preset's play reads, as (label, a function translating it): legality and
    order in a settled state `s`; in a state `mid` between an action and its bout end, the throw
    clauses (they say who can throw there), the decisions and the flow conditions."""
    out = [(f"legality of {kind}", lambda a=a: m.legal(s, a)) for kind, a in actions.items()]
    out.append(("legality of throw between steps", lambda: m.passes_rules(mid, throw)))
    for name, cr in sorted(m.ruleset.decisions.items()):
        if name in RESULT_DECISIONS:
            continue
        seats = range(m.n) if name in SEAT_DECISIONS else [None]
        for seat in seats:
            out.append((f"decision {name}", lambda name=name, seat=seat: m.decide(mid, name, seat)))
    for event, steps in m.ruleset.spec.flow.items():
        for i, step in enumerate(steps):
            if isinstance(step, dict) and "when" in step:
                out.append((f"flow {event}[{i}]", lambda when=step["when"]: m.clause(mid, when)))
    out.append(("hand_size", lambda: m.hand_size(s)))
    for name in DEAL_DEFINITIONS:  # the deal procedure (rule deck.deal, deck.trump)
        if name in m.definitions:
            out.append((f"definition {name}", lambda name=name: m.clause(s, name)))
    return out


class _Reads(dict):
    """A ruleset's option values that note which of them are read: a clause translated while
    reading only options two rulesets share is the same term under both (see _frame)."""

    def __init__(self, values):
        super().__init__(values)
        self.read: set = set()
        self.all = False  # something went over every option

    def __getitem__(self, name):
        self.read.add(name)
        return super().__getitem__(name)

    def get(self, name, default=None):
        self.read.add(name)
        return super().get(name, default)

    def __contains__(self, name):
        self.read.add(name)
        return super().__contains__(name)

    def __iter__(self):
        self.all = True
        return super().__iter__()

    def keys(self):
        self.all = True
        return super().keys()

    def values(self):
        self.all = True
        return super().values()

    def items(self):
        self.all = True
        return super().items()


def _frame(m: Machine) -> tuple:
    """Everything a translation at `m` reads besides option values and the states: the deck's
    numbering, the state's shape, seating, and the source of every rule and decision clause.
    Two machines with the same frame translate a clause alike wherever the options it reads
    agree."""
    r = m.ruleset
    return (m.n, m.suits, m.plain_suits, m.nranks, sorted(m.rank_index.items()), m.plain_ranks,
            m.joker_rank, m.colours, m.suit_colours, repr(m.constants), m.deck_size,
            [a.key for a in m.pair_aggregates], m.layer_slots, id(m.definitions), id(r.spec.flow),
            r.turn_up_hidden, r.seating(m.n),
            [(k, [(cr.rule.id, ast.dump(cr.clause.tree)) for cr in crs])
             for k, crs in r.legality.items()],
            [(k, cr.rule.id, ast.dump(cr.clause.tree)) for k, cr in r.order.items()],
            [(k, ast.dump(cr.clause.tree)) for k, cr in r.decisions.items()])


_MISSING = object()


def _same_values(a: dict, b: dict, names) -> bool:
    for name in names:
        x, y = dict.get(a, name, _MISSING), dict.get(b, name, _MISSING)
        if not (x == y and type(x) is type(y)):
            return False
    return True


# Definitions the deal reads (reference_impl/game.py Setup.deal and the setup's validation).
DEAL_DEFINITIONS = ("dealt_cards", "turn_up_on_top", "turn_up_hidden")


class _Side:
    """One ruleset's half of a comparison at n players: its symbolic states, actions, the facts
    its invariants give and every clause its play reads (built once, compared with each other
    ruleset's values)."""

    def __init__(self, ruleset, n: int):
        self.m = m = Machine(ruleset, n)
        self.s, self.mid = SymState.fresh(m, "opt"), SymState.fresh(m, "optmid")
        self.actions = {k: SymAction.fresh(k, m.nranks, m.nsuits) for k in vocab.ACTION_KINDS}
        self.throw = SymAction.fresh("throw", m.nranks, m.nsuits, "-mid")
        facts = [m.well_formed(self.s), m.settled(self.s), m.well_formed(self.mid),
                 m.action_facts(self.mid, self.throw)]
        for p in properties(ruleset):
            if p.scope == "state":
                facts += [m.clause(self.s, p.clause.tree), m.clause(self.mid, p.clause.tree)]
        self.facts = facts + [m.action_facts(self.s, a) for a in self.actions.values()]
        # each value with the options read while translating it (None: possibly all of them)
        self.meanings, self.reads = [], []
        m.options = reads = _Reads(ruleset.options)
        try:
            for label, value in _clauses(m, self.s, self.mid, self.actions, self.throw):
                reads.read, reads.all = set(), False
                self.meanings.append((label, value()))
                self.reads.append(None if reads.all else frozenset(reads.read))
        finally:
            m.options = ruleset.options
        self.frame = _frame(m)


def matters(ruleset_a, ruleset_b, n: int, side_a: _Side | None = None) -> str | None:
    """The first clause whose value differs between the two rulesets at n players in a position
    the invariants of ruleset_a allow, or None (`side_a`: ruleset_a's half, if already built)."""
    a = side_a or _Side(ruleset_a, n)
    mb = Machine(ruleset_b, n)
    # Who can throw is shared: the legality of each throw is itself compared below, and where
    # it agrees the same hands give both rulesets the same throwers.
    sb = SymState(mb, a.s.f, _can_throw=a.s.can_throw, _havoc=a.s._havoc)
    midb = SymState(mb, a.mid.f, _can_throw=a.mid.can_throw, _havoc=a.mid._havoc)
    # A clause that reads only options both rulesets share translates to the same term under
    # both (same frame): it cannot differ, so it is not translated again.
    same_frame = _frame(mb) == a.frame
    differ = []
    for (label, x), reads, (_, value) in zip(a.meanings, a.reads,
                                              _clauses(mb, sb, midb, a.actions, a.throw)):
        if same_frame and reads is not None and _same_values(ruleset_a.options,
                                                              ruleset_b.options, reads):
            continue
        differ.append((label, simp(differs(x, value()))))
    live = [(label, d) for label, d in differ if d is not False]
    if not live:
        return None
    result, model = check(a.facts + a.m.side + mb.side + [z3.Or([zbool(d) for _, d in live])])
    if result != z3.sat:
        return None
    return next(label for label, d in live if z3.is_true(model.eval(zbool(d), model_completion=True)))


def dead_options(spec, preset: str, ruleset, players=None) -> tuple[list[str], list[str]]:
    """Option values the preset sets that no other value of that option would change: problems
    when the value is not the option's default (the preset asks for a change its other options
    rule out), notes when it only restates the default."""
    problems, notes = [], []
    readers = _readers(spec)
    sides: dict[int, _Side] = {}  # the preset's half of every comparison, per player count

    def side(n: int) -> _Side:
        if n not in sides:
            sides[n] = _Side(ruleset, n)
        return sides[n]
    for name, value in spec.presets[preset]["options"].items():
        others = [v for v in spec.options[name].values if not (v == value and type(v) is type(value))]
        live = False
        for other in others:
            try:
                alt = spec.ruleset(preset, {**ruleset.overrides, name: other})
            except DurakError:
                continue
            if pack(alt.deck) != pack(ruleset.deck):  # another pack: other cards to deal
                live = True
                break
            lo, hi = ruleset.player_limits
            if any(match_matters(ruleset, alt, n) or matters(ruleset, alt, n, side(n))
                   for n in players or range(lo, hi + 1)):
                live = True
                break
        if live:
            continue
        shown = "null" if value is None else value
        text = (f"preset {preset}: option {name}={shown} has no effect: every other value "
                f"({', '.join('null' if v is None else str(v) for v in others)}) leaves every "
                f"clause of the preset unchanged in every position its invariants allow (read "
                f"by: {', '.join(readers.get(name, ['nothing']))})")
        default = spec.options[name].default
        if value == default and type(value) is type(default):
            notes.append(text + "; it restates the default, so nothing is lost")
        else:
            problems.append(text + "; the preset's other options rule out what it asks for")
    return problems, notes


def pack(deck) -> tuple:
    """The cards a deck deals, each with its copies."""
    return deck.copies, tuple(c.text for c in deck.cards)


def _readers(spec) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in spec.rules:
        for text in (r.when, r.clause, r.key):
            for name in OPTION_REF.findall(text or ""):
                out.setdefault(name, []).append(r.id)
    for dname, d in spec.definitions.items():
        for name in OPTION_REF.findall(d[1]):
            out.setdefault(name, []).append(f"definition {dname}")
    return {k: sorted(set(v)) for k, v in out.items()}


def _deal_text(d: Deal) -> str:
    if d.talon is None or d.talon < 0:
        return f"{d.players}p: {d.note}"
    if d.talon == 0:
        return (f"{d.players}p {d.hand_size} each, no talon (no card to turn up: the dealer's last "
                f"card is the trump, deck.trump)")
    return f"{d.players}p {d.hand_size} each, talon {d.talon}"


def render_presets(console, report) -> None:
    """The deal and option checks of one preset's report (tools/verify_run.PresetReport)."""
    console.print(f"[bold]{report.preset}[/bold]: deals: "
                  f"{'; '.join(_deal_text(d) for d in report.deals)}", highlight=False)
    for problem in report.problems:
        console.print(f"  [red]problem[/red]: {problem}", highlight=False)
    for note in report.notes:
        console.print(f"  note: {note}", highlight=False)
    if not report.problems:
        console.print("  preset consistent: every deal can be made, and no option value it sets "
                      "is ruled out by its other options", highlight=False)
