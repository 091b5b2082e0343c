"""`durak verify`, part 3: the match rules (spec/rules/match.yaml, scoring.yaml) and the deal_end
invariants of spec/invariants.yaml, proved with z3 from the same clauses the match layer runs
(reference_impl/match.py), for every result a deal can have.

A deal's result is symbolic (`DealResult` below): places, fool, losers, the final bout, the tallies
before the deal. What the deal guarantees about it is assumed: the deal_end invariants in
`DEAL_FACTS`, which the hypothesis machine over whole matches checks after every deal
(tests/reference_impl/test_match_machine.py). Every other deal_end invariant is proved from the
scoring and match clauses. Then bounded model checking over whole matches finds the number of
deals within which every match ends under its end rule, or a run of results that never ends it.
Those are deals of the match: a deal called off for a redeal (the flow runs the primitive
void_deal) is void and does not count, so where one can be, the report says that void deals are
not bounded (`void_deal_rules`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import z3

from durak_spec.reference_impl import vocab
from durak_spec.reference_impl.lang import SEAT
from durak_spec.reference_impl.primitives import PRIMITIVES
from durak_spec.tools.verify.backend.translate import Translator, options_read
from durak_spec.tools.verify.backend.values import (
    Opt,
    V,
    differs,
    pick,
    simp,
    solve_apart,
    zbool,
    zint,
)

DEAL_FACTS = ("inv.places", "inv.draw_no_loser", "inv.fool_loses_alone", "inv.fool_last")
MAX_DEALS = 30  # the longest match the bounded check looks at (or match_deals, if more)


class DealResult:
    """A symbolic finished deal and the tallies before it: the `state` the translator reads,
    with the names of vocab.MATCH."""

    vocab = vocab.MATCH

    def __init__(self, ruleset, n: int, tag: str, score=None, epaulettes=None, deal=None,
                 dealer=None):
        self.ruleset, self.n = ruleset, n
        self.options = ruleset.options
        self.definitions = ruleset.spec.definitions
        self.suits = list(ruleset.deck.suits)
        self.ranks = list(ruleset.deck.ranks)
        # what the translator asks the machine of a deal's state (literals, deck constants)
        self.machine = self
        self.constants = ruleset.literals().constants
        self.rank_index = dict(ruleset.deck.rank_index)
        self.plain_suits = list(ruleset.deck.suits)
        self.colours = sorted(set(ruleset.spec.deck_data["colours"].values()))
        self.teams = ruleset.seating(n)[0]
        self.team_play = ruleset.seating(n)[1]
        ints = lambda name: [z3.Int(f"{tag}.{name}[{i}]") for i in range(n)]  # noqa: E731
        self.places = ints("place")
        self.losers = [z3.Bool(f"{tag}.loses[{i}]") for i in range(n)]
        self.fool = Opt(z3.Int(f"{tag}.fool"), z3.Bool(f"{tag}.fool_none"))
        self.final_defender = z3.Int(f"{tag}.final_defender")
        self.final_taken = z3.Bool(f"{tag}.final_taken")
        self.final_count = z3.Int(f"{tag}.final_count")
        self.final_rank = Opt(z3.Int(f"{tag}.final_rank"), z3.Bool(f"{tag}.final_mixed"))
        self.final_plain = z3.Bool(f"{tag}.final_plain")
        self.final_last = Opt(z3.Int(f"{tag}.final_last"), z3.Bool(f"{tag}.final_last_none"))
        self.final_last_count = z3.Int(f"{tag}.final_last_count")
        self.score = score if score is not None else ints("score")
        self.epaulettes = epaulettes if epaulettes is not None else ints("epaulettes")
        self.deal = deal if deal is not None else z3.Int(f"{tag}.deal")
        self.dealer = dealer if dealer is not None else z3.Int(f"{tag}.dealer")
        self.deal_score = [0] * n
        self.deal_epaulettes = [0] * n
        self.next_dealer = self.dealer
        self.winner = Opt(0, True)  # decided in score_it

    def facts(self) -> list:
        """What any result of a deal is, by construction of its fields."""
        n, facts = self.n, []
        seat = lambda x: z3.And(zint(x) >= 0, zint(x) < n)  # noqa: E731
        facts += [seat(self.final_defender), seat(self.dealer), zint(self.deal) >= 1,
                  z3.Implies(z3.Not(self.fool.none), seat(self.fool.value)),
                  zint(self.final_count) >= 1,
                  z3.Implies(z3.Not(self.final_rank.none),
                             z3.Or([self.final_rank.value == self.rank_index[r]
                                    for r in self.ranks])),
                  # the last card laid has a rank of the deck, shared by 1 to all attack cards
                  z3.Not(self.final_last.none),
                  z3.Or([self.final_last.value == self.rank_index[r] for r in self.ranks]),
                  zint(self.final_last_count) >= 1,
                  zint(self.final_last_count) <= self.final_count,
                  z3.Implies(z3.Not(self.final_rank.none),
                             z3.And(self.final_last.value == self.final_rank.value,
                                    zint(self.final_last_count) == self.final_count))]
        facts += [zint(x) >= 0 for x in self.score + self.epaulettes]
        return facts

    # -- the vocabulary ------------------------------------------------------------------------
    def value(self, name: str):
        return {
            "players": self.n, "deal_number": self.deal, "dealer": self.dealer, "fool": self.fool,
            "team_play": self.team_play, "final_defender": self.final_defender,
            "final_taken": self.final_taken, "final_attack_count": self.final_count,
            "final_attack_rank": self.final_rank, "final_attack_plain": self.final_plain,
            "final_last_rank": self.final_last, "final_last_rank_count": self.final_last_count,
            "next_dealer": self.next_dealer, "winner": self.winner,
        }[name]

    def call(self, name: str, args: list):
        if name == "rank_index":  # a rank literal is its strength index (Compiler.coerce)
            (rank,) = args
            return self.rank_index[rank] if isinstance(rank, str) else rank
        if name == "teammate":
            a, b = args
            return simp(z3.Or([z3.And(zint(a) == i, zint(b) == j) for i in range(self.n)
                               for j in range(self.n) if i != j and self.teams[i] == self.teams[j]]
                              or [False]))
        (x,) = args
        n = self.n
        if name == "left":
            return pick([(i + 1) % n for i in range(n)], x)
        if name == "right":
            return pick([(i - 1) % n for i in range(n)], x)
        table = {"loses": self.losers, "place": self.places, "team": list(self.teams),
                 "score": self.score, "epaulettes": self.epaulettes,
                 "deal_score": self.deal_score, "deal_epaulettes": self.deal_epaulettes}
        return pick(table[name], x)

    # -- the match layer's steps ---------------------------------------------------------------
    def decide(self, name: str, seat=None):
        cr = self.ruleset.match_decisions[name]
        names = {} if seat is None else {"seat": V(seat, SEAT)}
        value = Translator(self, names).term(cr.clause.tree).value
        return value

    def score_it(self):
        """As match.score_deal: the deal's scores over the totals before it, then the new totals
        and the next dealer. Returns (scores, epaulettes, totals after, epaulettes after)."""
        n = self.n
        scores = [simp(zint(self.decide("deal_score", x))) for x in range(n)]
        eps = [simp(zint(self.decide("deal_epaulettes", x))) for x in range(n)]
        self.deal_score, self.deal_epaulettes = scores, eps
        self.score = [simp(zint(t) + d) for t, d in zip(self.score, scores)]
        self.epaulettes = [simp(zint(t) + d) for t, d in zip(self.epaulettes, eps)]
        self.winner = self.decide("winner")
        dealer = self.decide("next_dealer")
        self.next_dealer = dealer.value if isinstance(dealer, Opt) else dealer
        return scores, eps

    def clause(self, tree):
        return Translator(self).term(tree).value


def _invariants(ruleset):
    return [(inv, c) for inv, c in ruleset.invariants if inv["scope"] == "deal_end"]


def _check(terms):
    return solve_apart([zbool(t) for t in terms], 60000)


@dataclass
class MatchReport:
    preset: str
    players: list
    proved: dict = field(default_factory=dict)  # invariant id -> "proved" | "assumed" | failure text
    ends_within: dict = field(default_factory=dict)  # players -> deals, or None with the reason
    void_deals: list = field(default_factory=list)  # the rules under which a deal can be void
    notes: dict = field(default_factory=dict)

    def void_note(self) -> str:
        """What the bound leaves out, in words: '' when no deal can be void."""
        if not self.void_deals:
            return ""
        return (f"a deal may be called off for a redeal ({', '.join(self.void_deals)}): a void "
                f"deal is not a deal of the match and leaves its tallies, deal number and dealer "
                f"as they were, so the bound counts only the deals that count; no rule limits "
                f"the void deals, so the deals dealt in a match are not bounded")
    seconds: float = 0.0


def prove_deal_end(ruleset, n: int) -> dict:
    """Each deal_end invariant for every deal result at n players: 'assumed' for DEAL_FACTS,
    'proved', or a text naming a counterexample."""
    r = DealResult(ruleset, n, "r")
    facts = r.facts()
    invs = _invariants(ruleset)
    # the facts are read before scoring: they are about the deal, not its scores
    facts += [zbool(r.clause(c.tree)) for inv, c in invs if inv["id"] in DEAL_FACTS]
    r.score_it()
    out = {}
    for inv, c in invs:
        if inv["id"] in DEAL_FACTS:
            out[inv["id"]] = "assumed"
            continue
        result, model = _check(facts + [z3.Not(zbool(r.clause(c.tree)))])
        if result == z3.unsat:
            out[inv["id"]] = "proved"
        elif result == z3.sat:
            places = [model.eval(zint(p), model_completion=True) for p in r.places]
            fool = "none" if z3.is_true(model.eval(zbool(r.fool.none), model_completion=True)) \
                else model.eval(r.fool.value, model_completion=True)
            out[inv["id"]] = f"counterexample at {n} players: places {places}, fool {fool}"
        else:
            out[inv["id"]] = f"unknown at {n} players ({result})"
    return out


def _one_deal(ruleset, n: int, tag: str, deal=None):
    """A symbolic deal with arbitrary tallies before it: (result, facts, scores, epaulettes)."""
    r = DealResult(ruleset, n, tag, deal=deal)
    facts = r.facts() + [zbool(r.clause(c.tree)) for inv, c in _invariants(ruleset)
                         if inv["id"] in DEAL_FACTS]
    scores, eps = r.score_it()
    return r, facts, scores, eps


def _optimum(facts, term, maximize: bool):
    """The max (or min) of an int term under the facts; None when unbounded or unknown."""
    opt = z3.Optimize()
    opt.set("timeout", 60000)
    opt.add([zbool(f) for f in facts])
    handle = opt.maximize(zint(term)) if maximize else opt.minimize(zint(term))
    if opt.check() != z3.sat:
        return None
    value = (opt.upper(handle) if maximize else opt.lower(handle))
    return value.as_long() if z3.is_int_value(value) else None


def match_matters(ruleset_a, ruleset_b, n: int) -> str | None:
    """The first match decision whose value differs between the two rulesets for some result of
    a deal at n players (the same deal and tallies before it), or None: how `durak verify` sees
    that an option of the match (scoring, match_end, ...) has an effect."""
    ra, rb = DealResult(ruleset_a, n, "mm"), DealResult(ruleset_b, n, "mm")  # shared z3 names
    facts = ra.facts() + [zbool(ra.clause(c.tree)) for inv, c in _invariants(ruleset_a)
                          if inv["id"] in DEAL_FACTS]
    pairs = []
    for r in (ra, rb):
        scores, eps = r.score_it()
        out = [(f"decision deal_score of seat {i}", x) for i, x in enumerate(scores)]
        out += [(f"decision deal_epaulettes of seat {i}", x) for i, x in enumerate(eps)]
        out += [("decision next_dealer", r.next_dealer), ("decision winner", r.decide("winner")),
                ("decision match_over", r.decide("match_over"))]
        out += [(f"decision match_key of seat {i}", r.decide("match_key", i)) for i in range(n)]
        pairs.append(out)
    live = [(la, simp(differs(x, y))) for (la, x), (_, y) in zip(*pairs)]
    live = [(label, d) for label, d in live if d is not False]
    if not live:
        return None
    result, model = _check(facts + [z3.Or([zbool(d) for _, d in live])])
    if result != z3.sat:
        return None
    return next(label for label, d in live if z3.is_true(model.eval(zbool(d), model_completion=True)))


def ends_within(ruleset, n: int, cap: int = MAX_DEALS) -> tuple[int | None, str]:
    """A number of deals K within which every match ends under its end rule, whatever the deals'
    results, or (None, why). Two measures: the deal number, when the end rule reads it (the
    first number at which no result leaves the match going); and the scores, when every deal adds
    at least m > 0 to their sum and the sum is at most M while the match goes on (then K is
    M // m + 1). When a deal may score nothing and the end rule reads only the tallies, a match
    can go on for ever."""
    over_rule = ruleset.match_decisions["match_over"].clause
    bounds = []
    if "deal_number" in over_rule.names:
        def ends_at(d):
            r, facts, _, _ = _one_deal(ruleset, n, f"at{d}", deal=d)
            return _check(facts + [z3.Not(zbool(r.decide("match_over")))])[0] == z3.unsat
        hi = max(cap, int(ruleset.options.get("match_deals") or 0))
        if ends_at(hi):  # any verified number is a bound; bisect towards the least one
            lo = 0
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if ends_at(mid) else (mid, hi)
            bounds.append(hi)
    r, facts, scores, _ = _one_deal(ruleset, n, "step")
    least = _optimum(facts, sum(scores), maximize=False)
    if least is not None and least > 0:
        going = facts + [z3.Not(zbool(r.decide("match_over")))]
        most = _optimum(going, sum(zint(x) for x in r.score), maximize=True)
        if most is not None:
            bounds.append(most // least + 1)
    if bounds:
        return min(bounds), ""
    if "deal_number" not in over_rule.names:
        return None, ("a match can go on for ever: a deal may score nothing (a draw, or no final "
                      "attack of the rung's rank) and the end rule reads only the scores")
    return None, f"no bound found within {cap} deals"


def void_deal_rules(ruleset) -> list[str]:
    """The rules under which a deal can end void: the legality rules of its own (applying to no
    other kind) of each action kind whose flow event runs the primitive void_deal (a redeal), when
    that kind can be legal under the ruleset (no clause of it is constantly false). Empty when no
    deal can be void."""
    void = PRIMITIVES["void_deal"]
    kinds = [k for k in vocab.ACTION_KINDS
             if any(getattr(fn, "func", fn) is void for fn, _ in ruleset.flow.get(k, ()))
             and not any(cr.clause.const and not cr.clause.value for cr in ruleset.legality[k])]
    crs = [cr for k in kinds for cr in ruleset.legality[k]]
    own = [cr.rule.id for cr in crs if set(cr.rule.applies_to) <= set(kinds)]
    return list(dict.fromkeys(own or [f"action {k}" for k in kinds]))


def _frame(ruleset, n: int) -> tuple:
    """Everything the match checks at n players read: the source of every match decision and
    deal_end invariant, the definitions, the values of the options those read, the deck's names
    and numbering, the seating. Rulesets with the same frame (most presets: they differ in
    options of the deal only) get the same proofs and bounds, which are made once (_PROVED)."""
    defs = ruleset.spec.definitions
    trees = [(name, cr.clause.tree) for name, cr in sorted(ruleset.match_decisions.items())]
    trees += [(inv["id"], c.tree) for inv, c in _invariants(ruleset)]
    read = sorted({o for _, tree in trees for o in options_read(tree, defs)} | {"match_deals"})
    deck = ruleset.deck
    return (n, ruleset.seating(n), tuple((name, ast.dump(tree)) for name, tree in trees),
            tuple((o, repr(ruleset.options.get(o))) for o in read),
            tuple(sorted((name, repr(d)) for name, d in defs.items())),
            tuple(deck.suits), tuple(deck.ranks), tuple(sorted(deck.rank_index.items())),
            repr(sorted(ruleset.spec.deck_data["colours"].items())),
            repr(ruleset.literals().constants), tuple(DEAL_FACTS))


_PROVED: dict = {}  # _frame -> (prove_deal_end, ends_within) at its player count


def verify_match(ruleset, players) -> MatchReport:
    import time
    started = time.perf_counter()
    report = MatchReport(ruleset.preset, list(players))
    for n in players:
        key = _frame(ruleset, n)
        if key not in _PROVED:
            _PROVED[key] = (prove_deal_end(ruleset, n), ends_within(ruleset, n))
        proved, ends = _PROVED[key]
        for inv_id, status in proved.items():
            old = report.proved.get(inv_id)
            if old is None or old in ("proved", "assumed"):
                report.proved[inv_id] = status
        report.ends_within[n] = ends
    report.void_deals = void_deal_rules(ruleset)
    report.seconds = time.perf_counter() - started
    return report


def render_matches(console, reports, only: str | None = None) -> int:
    """The match table: each deal_end invariant per preset, and the deals within which every
    match ends. Returns the number of problems (invariants with a counterexample)."""
    from rich.table import Table

    reports = [r for r in reports if r.match is not None]
    if not reports:
        return 0
    ids = list(dict.fromkeys(i for r in reports for i in r.match.proved))
    if only:
        ids = [i for i in ids if i == only]
    table = Table(title="Matches: deal_end invariants for every result a deal can have (✓ proved, "
                        "= assumed: a fact of the deal, checked after every deal by the match "
                        "machine), and the deals within which every match ends",
                  title_justify="left")
    table.add_column("preset", no_wrap=True)
    for i in ids:
        table.add_column(i.removeprefix("inv."), justify="center", overflow="fold")
    table.add_column("ends within", overflow="fold")
    problems = 0
    for r in reports:
        m = r.match
        row = [r.preset]
        for i in ids:
            status = m.proved.get(i, "")
            row.append("✓" if status == "proved" else "=" if status == "assumed" else "[red]✗[/red]")
            problems += status not in ("proved", "assumed", "")
        ends = sorted(m.ends_within.items())
        if any(k is None for _, (k, _) in ends):
            cell = "no bound (below)"
        elif len({k for _, (k, _) in ends}) == 1:
            cell = f"{ends[0][1][0]} deals"
        else:
            cell = ", ".join(f"{n}: {k}" for n, (k, _) in ends)
        row.append(cell + (" + redeals: unbounded (below)" if m.void_deals else ""))
        table.add_row(*row)
    console.print(table)
    for r in reports:
        why = next((why for _, (k, why) in sorted(r.match.ends_within.items()) if k is None), None)
        for text in (why, r.match.void_note()):
            if text:
                console.print(f"  {r.preset}: {text}", highlight=False)
    for r in reports:
        for i, status in r.match.proved.items():
            if status not in ("proved", "assumed") and (not only or i == only):
                console.print(f"  [red]{r.preset}: {i}: {status}[/red]", highlight=False)
    return problems
