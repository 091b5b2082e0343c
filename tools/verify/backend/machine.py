"""One ruleset at one player count, symbolically: legality, the flow of primitives, bout ends and
deals, all built from the clauses of spec/ through the z3 backend (tools/z3backend.py).

Each primitive of reference_impl/primitives.py has one symbolic model here (`PRIMITIVES`); every
choice inside them is the `decides:` clause of spec/rules/ that the interpreter asks. Legality of an
action is the conjunction of the legality clauses of its kind (Ruleset.legality), plus what the
interpreter's generator guarantees by construction (the game is not over, the card is in the
actor's hand, the target is an unbeaten attack card) and the order rule for throws and passes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import z3

from durak_spec.reference_impl.lang import CARD, INT, SEAT
from durak_spec.tools.verify.backend.state import (
    SymAction,
    SymState,
    count,
    draw_tag,
    fresh_number,
    ite_state,
    names_made,
    seat_sum,
)
from durak_spec.tools.verify.backend.translate import Translator, parse
from durak_spec.tools.verify.backend.values import (
    Card,
    Opt,
    Untranslatable,
    V,
    _equal,
    ite,
    pick,
    simp,
    zbool,
    zint,
)

# Decisions about a finished deal's result that the symbolic state does not model (who loses
# with the fool, the finishing order): they read the finishing order, which is not abstracted.
RESULT_DECISIONS = ("loser", "place_key")


def conj(terms):
    out = []
    for t in terms:
        t = simp(t)
        if t is True:
            continue
        if t is False:
            return False
        out.append(t)
    return True if not out else (out[0] if len(out) == 1 else z3.And(out))


def setat(items, index, value):
    index = simp(index)
    if isinstance(index, int):
        out = list(items)
        if index < len(out):  # a slot beyond the modelled ones (machine.layer_slots) is not held
            out[index] = value
        return out
    return [ite(index == i, value, x) for i, x in enumerate(items)]


def renamed(term, pairs):
    """`term` with each variable of `pairs` (old, new) replaced (a folded constant stays)."""
    return term if isinstance(term, bool) else z3.substitute(term, *pairs)


def zmin(a, b):
    return ite(zint(a) <= zint(b), a, b)


@dataclass
class PairAggregate:
    """An aggregate over the covered pairs of the table that some clause of the ruleset uses: its
    syntax tree, and the interpreter's count of the pairs meeting its condition (`fn(state)`)."""

    key: str
    node: ast.AST
    fn: object


def pair_aggregates(ruleset) -> list[PairAggregate]:
    """Every aggregate over `covered` in the clauses of the ruleset, its definitions included."""
    texts = [cr.clause.text for crs in ruleset.legality.values() for cr in crs]
    texts += [cr.clause.text for cr in ruleset.decisions.values()]
    texts += [c.text for _, c in ruleset.invariants]
    texts += [d.clause for d in ruleset.spec.definitions.values() if not d.params]
    found: dict[str, ast.AST] = {}
    for text in texts:
        for node in ast.walk(parse(text)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
                    and isinstance(node.args[0], ast.GeneratorExp)
                    and isinstance(node.args[0].generators[0].iter, ast.Name)
                    and node.args[0].generators[0].iter.id == "covered"):
                found.setdefault(pair_key(node), node)
    out = []
    for key, node in found.items():
        gen = node.args[0]
        comp = gen.generators[0]
        conds = [ast.unparse(c) for c in comp.ifs]
        if node.func.id in ("all", "any", "count"):
            conds.append(ast.unparse(gen.elt))
        cond = " and ".join(f"({c})" for c in conds) or "True"
        text = f"count({cond} for {comp.target.id} in covered)"
        fn = ruleset.compile_clause(text, INT, f"the pair count of {key}").fn
        out.append(PairAggregate(key, node, fn))
    return out


def layer_slots(ruleset) -> int:
    """How many attack slots of the table the state records the layer of: none when the defender
    always picks up the whole table (the decision pickup_count is table_attack_count), else as many
    as a bout can hold (the fixed cap, which inv.attack_cap proves, or the deck)."""
    whole = ruleset.compile_clause("table_attack_count", INT, "every attack card").src
    if ruleset.decisions["pickup_count"].clause.src == whole:
        return 0
    cap = ruleset.options.get("max_attack_cards")
    bounded = isinstance(cap, int) and ruleset.options.get("throw_in_limit") != "unbounded"
    return cap if bounded else len(ruleset.deck)


# Per ruleset (kept, so that its id is not another's): its pair aggregates and layer slots, which
# every Machine of it at any player count reads alike; durak verify makes a thousand machines.
_SHAPES: dict[int, tuple] = {}


def _shape(ruleset) -> tuple[list[PairAggregate], int]:
    known = _SHAPES.get(id(ruleset))
    if known is None or known[0] is not ruleset:
        known = _SHAPES[id(ruleset)] = (ruleset, pair_aggregates(ruleset), layer_slots(ruleset))
    return known[1], known[2]


def pair_key(node) -> str:
    return ast.dump(node, annotate_fields=False)


class Machine:
    """Symbolic semantics of `ruleset` with `n` players."""

    def __init__(self, ruleset, n: int):
        self.ruleset = ruleset
        self.n = n
        self.options = ruleset.options
        self.definitions = ruleset.spec.definitions
        deck = ruleset.deck
        self.plain_suits = list(deck.suits)
        self.suits = list(deck.suits) + list(deck.joker_suits)  # suit values of cards, by index
        self.nranks = deck.rank_count
        self.nsuits = len(self.suits)
        self.rank_index = dict(deck.rank_index)
        self.plain_ranks = sorted({c.rank for c in deck.cards if not c.is_joker})
        self.joker_rank = deck.rank_index[deck.joker_rank] if deck.jokers else None
        self.colours = sorted(set(ruleset.spec.deck_data["colours"].values()))
        colour = dict(ruleset.spec.deck_data["colours"])
        colour.update({j.suit: j.colour for j in deck.jokers})
        self.suit_colours = [self.colours.index(colour[x]) for x in self.suits]
        self.constants = ruleset.literals().constants
        self.deck_size = len(deck)
        self.side: list = []  # constraints of witness variables, added to every solver
        self.pair_aggregates, self.layer_slots = _shape(ruleset)
        self._pair_index = {a.key: i for i, a in enumerate(self.pair_aggregates)}
        self.groups = {}
        for kind, cr in ruleset.order.items():
            self.groups.setdefault(cr.rule.id, (cr, set()))[1].add(kind)

    # -- cards --------------------------------------------------------------------------------
    def suit_index(self, suit) -> int:
        """The number standing for a suit letter in the state (-1: no trump suit)."""
        return -1 if suit is None else self.suits.index(suit)

    @staticmethod
    def trump_value(term):
        """The trump suit as clauses see it: None when the state's number is -1 (no trumps)."""
        term = simp(term)
        if isinstance(term, int):
            return None if term < 0 else term
        return Opt(term, term < 0)

    def fresh_turn_up(self) -> Card:
        """The turned-up card of a state, which the abstraction does not hold: any card of the
        deck that may show the trump (definition turn_up_allowed)."""
        i = fresh_number()
        card = Card(z3.Int(f"turn_up.rank#{i}"), z3.Int(f"turn_up.suit#{i}"))
        self.side.append(zbool(self.card_ok(card)))
        return card

    def trump_decided(self, s: SymState, trump=None):
        """The state's trump suit (or the trump number `trump`) is the one rule deck.trump decides
        (`decides: trump_suit`) from the options and a turn-up that turn_up_allowed admits."""
        if trump is not None:  # decided from a card of its own, not the state's turn-up
            s = SymState(self, s.f)
        decided = self.clause(s, self.ruleset.decisions["trump_suit"].clause.tree)
        if isinstance(decided, str):  # a suit letter of the clause
            decided = self.suits.index(decided)
        turn_up = s.value("turn_up")
        allowed = Translator(s, {"c": V(turn_up, CARD)}).term("turn_up_allowed(c)").value
        trump = s.f["trump"] if trump is None else trump
        return conj([allowed, _equal(self.trump_value(trump), decided, self.suits)])

    def is_joker(self, card: Card):
        return False if self.joker_rank is None else simp(zint(card.suit) >= len(self.plain_suits))

    def colour_of(self, card: Card):
        return pick(self.suit_colours, card.suit)

    def card_text(self, rank: int, suit: int) -> str:
        deck = self.ruleset.deck
        for c in deck.cards:
            if c.rank == rank and self.suits.index(c.suit) == suit:
                return c.text
        return deck.rank_symbol(rank) + self.suits[suit]

    def pair_index(self, node) -> int:
        key = pair_key(node)
        if key not in self._pair_index:
            raise Untranslatable("an aggregate over the covered pairs inside a definition with "
                                 "parameters")
        return self._pair_index[key]

    # -- clauses ------------------------------------------------------------------------------
    def clause(self, state, text_or_node, names=None, overrides=None, atoms=None):
        return Translator(state, names, overrides, atoms).term(text_or_node).value

    def decide(self, state, name: str, seat=None):
        cr = self.ruleset.decisions[name]
        names = {} if seat is None else {"seat": _seat_v(seat)}
        value = self.clause(state, cr.clause.tree, names)
        value = value.value if isinstance(value, Opt) else value
        return self.suits.index(value) if isinstance(value, str) else value  # a suit letter

    def hand_size(self, state):
        return self.clause(state, self.definitions["hand_size"][1])

    def card_ok(self, card: Card):
        """The card is a card of the deck: a plain rank of a plain suit, or a joker."""
        r, x = zint(card.rank), zint(card.suit)
        plain = z3.And(z3.Or([r == k for k in self.plain_ranks]), x >= 0, x < len(self.plain_suits))
        if self.joker_rank is None:
            return plain
        return z3.Or(plain, z3.And(r == self.joker_rank, x >= len(self.plain_suits), x < self.nsuits))

    def action_facts(self, s: SymState, a: SymAction):
        """What the vocabulary's card facts imply about the abstract state."""
        facts = [a.seat >= 0, a.seat < self.n]
        if a.card is not None:
            member = _member(a.card.rank, s.attack_ranks)
            facts += [self.card_ok(a.card), self.card_ok(Card(a.card.rank, a.card.own_suit)),
                      z3.Implies(a.card_in_hand, s.hand_of(a.seat) >= 1),
                      z3.Implies(a.unbeaten_share_rank, z3.Or(zint(s.U) == 0, member)),
                      z3.Implies(z3.Or(zint(s.U) == 0, z3.And(count(s.attack_ranks) == 1, member)),
                                 a.unbeaten_share_rank)]
        if a.second_in_hand is not None:  # two different cards of the actor's hand
            facts += [self.card_ok(a.target),
                      z3.Implies(a.second_in_hand, s.hand_of(a.seat) >= 2),
                      z3.Not(z3.And(a.card.rank == a.target.rank, a.card.suit == a.target.suit))]
        elif a.target is not None:
            facts += [self.card_ok(a.target),
                      z3.Implies(a.target_unbeaten, z3.And(zint(s.U) >= 1,
                                                           _member(a.target.rank, s.attack_ranks))),
                      z3.Not(z3.And(a.card.rank == a.target.rank, a.card.suit == a.target.suit))]
        return conj(facts)

    def rule_terms(self, s: SymState, a: SymAction, overrides=None, atoms=None):
        """[(CompiledRule, term)] for the legality rules of the action's kind, in check order."""
        names = a.names()
        return [(cr, self.clause(s, cr.clause.tree, names, overrides, atoms))
                for cr in self.ruleset.legality[a.kind]]

    def generated(self, s: SymState, a: SymAction):
        """What the interpreter's generator guarantees for every action it lists."""
        facts = [z3.Not(zbool(s.finished))]
        if a.card is not None:
            facts.append(a.card_in_hand)
        if a.second_in_hand is not None:
            facts.append(a.second_in_hand)
        elif a.target is not None:
            facts.append(a.target_unbeaten)
        if a.kind == "pass":  # passes are listed only when some seat can throw (Game._generate)
            facts.append(z3.Or(s.can_throw))
        if a.kind == "throw":  # a seat with a legal throw is marked as able to throw
            facts.append(pick(s.can_throw, a.seat))
        return conj(facts)

    def passes_rules(self, s: SymState, a: SymAction):
        return conj([t for _, t in self.rule_terms(s, a)])

    def order_ok(self, s: SymState, a: SymAction):
        """The order rule: among seats with a throw or pass, only those with the lowest key act."""
        for cr, kinds in self.groups.values():
            if a.kind not in kinds:
                continue
            mine = self.clause(s, cr.clause.tree, {"seat": _seat_v(a.seat)})
            terms = []
            for y in range(self.n):
                acts = [self.could(s, k, y) for k in sorted(kinds)]
                theirs = self.clause(s, cr.clause.tree, {"seat": _seat_v(y)})
                before = zint(theirs) < zint(mine)
                terms.append(z3.Implies(z3.And(a.seat != y, z3.Or([zbool(x) for x in acts])), z3.Not(before)))
            return conj(terms)
        return True

    def could(self, s: SymState, kind: str, seat: int):
        """The seat has some legal action of `kind` (before any order rule)."""
        if kind == "throw":
            return s.can_throw[seat]
        b = SymAction.fresh(kind, self.nranks, self.nsuits, "-other")
        if b.card is not None:
            raise Untranslatable(f"an order rule over {kind} (only throws and card-less kinds)")
        return conj([self.action_facts(s, b), b.seat == seat, self.passes_rules(s, b)])

    def legal(self, s: SymState, a: SymAction):
        """The action is in the interpreter's list of legal actions."""
        return conj([self.action_facts(s, a), self.generated(s, a), self.passes_rules(s, a),
                     self.order_ok(s, a)])

    def throw_witnesses(self, s: SymState) -> list:
        """Fresh per-seat bools `can throw`, each implying a witness card passing every throw
        clause (Game._generate marks can_throw before any order rule).

        The seats' witnesses differ only in their variables. Once a seat's clauses translate
        without making anything (no variable, no side constraint, no value the state holds),
        every later seat's are that seat's terms with the witness renamed: z3.substitute builds
        the very terms translating would (the same ids, so the same questions), at a fraction
        of the cost."""
        out, pure = [], None
        for y in range(self.n):
            w = SymAction.fresh("throw", self.nranks, self.nsuits, f"-witness{y}")
            ct = z3.Bool(f"can_throw[{y}]@{w.seat}")
            if pure is not None:
                w0, facts0, rules0 = pure
                pairs = list(zip(w0.variables(), w.variables()))
                facts, rules = renamed(facts0, pairs), renamed(rules0, pairs)
            else:
                before = (names_made(), len(self.side), len(s._havoc))
                facts, rules = self.action_facts(s, w), self.passes_rules(s, w)
                if (names_made(), len(self.side), len(s._havoc)) == before:
                    pure = (w, facts, rules)
            self.side.append(z3.Implies(ct, conj([w.seat == y, facts, w.card_in_hand, rules])))
            out.append(ct)
        return out

    # -- effects ------------------------------------------------------------------------------
    def run_event(self, event: str, s: SymState, a: SymAction | None) -> SymState:
        for step in self.ruleset.spec.flow[event]:
            step = {"do": step} if isinstance(step, str) else step
            when = True
            if "when" in step:
                when = simp(self.clause(s, step["when"]))
                if when is False:
                    continue
            new = PRIMITIVES[step["do"]](self, s, a, **({"after": step["after"]} if step.get("after") else {}))
            s = ite_state(when, new, s)
        return s

    def settle(self, s: SymState) -> SymState:
        """The bout end due after an action, if any, as the interpreter runs it (a second is never
        due: the next bout starts with an empty table and nobody taking)."""
        live = z3.Not(zbool(s.finished))
        beaten = conj([live, self.decide(s, "bout_beaten_off")])
        taken = conj([live, self.decide(s, "bout_taken")])
        return ite_state(beaten, self.run_event("bout_beaten_off", s, None),
                         ite_state(taken, self.run_event("bout_taken", s, None), s))

    def settled(self, s: SymState):
        """No bout end is due: every position the interpreter stops at is settled."""
        return z3.Or(zbool(s.finished), z3.Not(z3.Or(zbool(self.decide(s, "bout_beaten_off")),
                                                      zbool(self.decide(s, "bout_taken")))))

    def step(self, s: SymState, a: SymAction):
        """(legal, state after the action's flow, state after any bout end)."""
        legal = self.legal(s, a)
        s1 = self.run_event(a.kind, s, a)
        return legal, s1, self.settle(s1)

    # -- states -------------------------------------------------------------------------------
    def well_formed(self, s: SymState):
        """Facts every position satisfies by construction of its zones (not rules): counts are
        non-negative, seats exist, and the rank sets match the table they describe."""
        n, f = self.n, s.f
        A, U = zint(f["A"]), zint(f["U"])
        ar, tr = f["attack_ranks"], f["table_ranks"]
        facts = [U >= 0, U <= A, zint(f["talon"]) >= 0, zint(f["discard"]) >= 0,
                 zint(f["dhs"]) >= 0, zint(f["bout"]) >= 1, zint(f["beaten"]) >= 0,
                 zint(f["trump"]) >= -1, zint(f["trump"]) < len(self.plain_suits),
                 zint(f["hidden_trump"]) >= -1, zint(f["hidden_trump"]) < len(self.plain_suits)]
        facts += [z3.And(zint(p) >= 0, zint(p) <= A - U) for p in f["pairs"]]
        facts += [z3.And(zint(x) >= 0, zint(x) < n) for x in f["laid"]]
        if f["laid"]:
            facts.append(A <= len(f["laid"]))
        for name in ("attacker", "defender", "opener", "dealer", "last_attacker", "last_defender",
                     "transferer", "last_adder", "prev_fool", "prev_winner"):
            facts += [zint(f[name]) >= 0, zint(f[name]) < n]
        facts.append(zint(f["deal"]) >= 1)
        facts += [zint(f["added"]) >= 0, zint(f["added"]) <= U]
        facts += [z3.Implies(z3.Not(zbool(f["fool_none"])), z3.And(zint(f["fool"]) >= 0, zint(f["fool"]) < n))]
        for i in range(n):
            facts += [zint(f["hand"][i]) >= 0, zint(f["drew"][i]) >= 0, zint(f["after_draw"][i]) >= 0,
                      zint(f["exchanges"][i]) >= 0]
        nar, ntr = count(ar), count(tr)
        facts += [z3.Implies(A == 0, z3.And([z3.Not(zbool(x)) for x in ar + tr])),
                  z3.Implies(A > 0, zint(nar) >= 1), zint(nar) <= A, zint(ntr) <= 2 * A - U,
                  A <= self.nsuits * zint(nar), 2 * A - U <= self.nsuits * zint(ntr)]
        facts += [z3.Implies(zbool(a), zbool(t)) for a, t in zip(ar, tr)]
        facts.append(self.trump_decided(s))
        facts.append(z3.Implies(zbool(f["redealt"]), z3.And(zbool(f["finished"]), zbool(f["fool_none"]))))
        facts.append(z3.Implies(zbool(f["hidden"]), zbool(self.trump_decided(s, f["hidden_trump"]))))
        if not self.ruleset.turn_up_hidden:  # no card lies hidden (rule deck.changeable_trump)
            facts.append(z3.Not(zbool(f["hidden"])))
        return conj(facts)

    def expressible(self, s: SymState):
        """The facts a Setup position implies (Game._initial_state derives these fields), so a
        model satisfying them can be written as a conformance case."""
        n, f = self.n, s.f
        facts = [z3.Not(zbool(f["finished"])), zbool(f["fool_none"]), z3.Not(zbool(f["redealt"])),
                 zint(f["opener"]) == f["attacker"], zint(f["last_attacker"]) == f["attacker"],
                 zint(f["last_defender"]) == f["defender"], zint(f["attacker"]) != f["defender"],
                 zint(f["dhs"]) == s.hand_of(f["defender"]) + zint(f["A"]) - f["U"],
                 zint(f["beaten"]) <= zint(f["bout"]) - 1, zint(f["added"]) == f["U"],
                 zint(f["last_adder"]) == f["attacker"], zint(f["deal"]) == 1,
                 z3.Not(zbool(f["after_loss"])), zint(f["prev_fool"]) == f["dealer"],
                 zint(f["prev_winner"]) == f["dealer"],
                 z3.Implies(zbool(f["hidden"]), zint(f["talon"]) >= 2)]
        facts += [z3.Implies(zint(f["A"]) > k, zint(x) == f["attacker"]) for k, x in enumerate(f["laid"])]
        for i in range(n):
            facts += [zint(f["drew"][i]) == 0, zint(f["after_draw"][i]) == f["hand"][i],
                      z3.Not(zbool(f["short"][i])), zint(f["exchanges"][i]) == 0,
                      z3.Implies(zbool(f["out"][i]), z3.And(zint(f["hand"][i]) == 0,
                                                            zint(f["attacker"]) != i, zint(f["defender"]) != i))]
        return conj(facts)

    def dealt(self, s: SymState):
        """s is the start of a deal as Setup.deal makes it (roles by the start rules), the first
        of a match or a later one (any dealer, after a lost deal or not)."""
        n, f = self.n, s.f
        size = self.hand_size(s)
        facts = [zint(f["talon"]) == self.deck_size - n * size, zint(f["A"]) == 0, zint(f["U"]) == 0,
                 zint(f["added"]) == 0,
                 zint(f["discard"]) == 0, z3.Not(zbool(f["taking"])), z3.Not(zbool(f["finished"])),
                 z3.Not(zbool(f["redealt"])),
                 zbool(f["fool_none"]), zint(f["bout"]) == 1, zint(f["beaten"]) == 0,
                 z3.Implies(zint(f["deal"]) == 1, z3.And(zint(f["dealer"]) == n - 1,
                                                         z3.Not(zbool(f["after_loss"]))))]
        for i in range(n):
            facts += [zint(f["hand"][i]) == size, z3.Not(zbool(f["passed"][i])),
                      zint(f["exchanges"][i]) == 0,
                      z3.Not(zbool(f["out"][i])), zint(f["drew"][i]) == 0,
                      zint(f["after_draw"][i]) == size, z3.Not(zbool(f["short"][i]))]
        facts += [zint(p) == 0 for p in f["pairs"]]
        # a hidden card lies under the turn-up where there are two talon cards (Setup.deal)
        facts.append(z3.Implies(zbool(f["hidden"]), zint(f["talon"]) >= 2))
        blank = s.replace(attacker=0, defender=0)
        attacker = self.decide(blank, "first_attacker")
        defender = self.decide(blank.replace(attacker=attacker), "first_defender")
        facts += [zint(f["attacker"]) == attacker, zint(f["defender"]) == defender,
                  zint(f["opener"]) == f["attacker"], zint(f["last_attacker"]) == f["attacker"],
                  zint(f["last_defender"]) == f["defender"], zint(f["last_adder"]) == f["attacker"],
                  zint(f["dhs"]) == s.hand_of(f["defender"])]
        return conj(facts)


def _seat_v(seat):
    return V(seat, SEAT)


def _member(rank, ranks):
    return z3.Or([z3.And(rank == r, zbool(x)) for r, x in enumerate(ranks)])


def _add_rank(ranks, rank):
    return [simp(z3.Or(zbool(x), rank == r)) for r, x in enumerate(ranks)]


# -- the primitives of reference_impl/primitives.py, one symbolic model each -----------------------

def add_attack_card(m, s, a):
    opening = simp(zint(s.A) == 0)
    hand = s.f["hand"]
    return s.replace(opener=ite(opening, a.seat, s.opener),
                     dhs=ite(opening, s.hand_of(s.defender), s.dhs),
                     added=zint(s.added) + 1, last_adder=a.seat,
                     hand=setat(hand, a.seat, pick(hand, a.seat) - 1),
                     A=zint(s.A) + 1, U=zint(s.U) + 1,
                     table_ranks=_add_rank(s.table_ranks, a.card.rank),
                     attack_ranks=_add_rank(s.attack_ranks, a.card.rank),
                     laid=setat(s.laid, s.A, a.seat))


def cover_card(m, s, a):
    hand = s.f["hand"]
    t = Translator(s)
    pairs = [simp(zint(p) + ite(t.pair_condition(agg.node, a.target, a.card), 1, 0))
             for p, agg in zip(s.f["pairs"], m.pair_aggregates)]
    return s.replace(hand=setat(hand, a.seat, pick(hand, a.seat) - 1), U=zint(s.U) - 1, added=0,
                     table_ranks=_add_rank(s.table_ranks, a.card.rank), pairs=pairs)


def clear_passes(m, s, a):
    return s.replace(passed=[False] * m.n)


def mark_passed(m, s, a):
    return s.replace(passed=setat(s.passed, a.seat, True))


def mark_all_passed(m, s, a):
    return s.replace(passed=[True] * m.n)


def start_taking(m, s, a):
    return s.replace(taking=True, added=0)


def move_defence_on(m, s, a):
    new = m.decide(s, "transfer_defender")
    return s.replace(transferer=s.defender, defender=new, dhs=s.hand_of(new), added=0)


def remember_shown(m, s, a):
    """The shown cards of a bout are not held by the abstraction (a clause reading `card_shown`
    gets a free bool, see SymAction), and showing moves no card: nothing it holds changes."""
    return s


def swap_with_turn_up(m, s, a):
    """A card of the hand and the turn-up change places: hand sizes and the talon count stay,
    and the trump suit is the turn-up's suit before and after (the legality rules ask it)."""
    return s


def exchange_with_talon(m, s, a):
    """Two cards of the hand and the top two of the talon change places: hand sizes and the talon
    count stay; the actor's exchanges go up by one."""
    ex = s.f["exchanges"]
    return s.replace(exchanges=setat(ex, a.seat, pick(ex, a.seat) + 1))


def reveal_hidden_card(m, s, a):
    """The hidden card is turned up: no card lies hidden any more, and the trump is the one
    decided from that card (the state's `hidden_trump`); no card moves."""
    return s.replace(hidden=False, trump=s.hidden_trump, hidden_trump=-1)


def void_deal(m, s, a):
    """The deal ends void: finished, with no fool (the losers and places are not modelled)."""
    return s.replace(finished=True, redealt=True, fool_none=True)


def transferer_attacks(m, s, a):
    return s.replace(attacker=s.transferer)


def _cleared(m, s, **changes):
    return s.replace(A=0, U=0, table_ranks=[False] * m.nranks, attack_ranks=[False] * m.nranks,
                     pairs=[0] * len(m.pair_aggregates), added=0, laid=[0] * m.layer_slots,
                     **changes)


def discard_table(m, s, a):
    return _cleared(m, s, discard=zint(s.discard) + 2 * zint(s.A) - s.U, beaten=zint(s.beaten) + 1)


def defender_picks_up(m, s, a):
    """The defender gets their covers back and picks up pickup_count attack cards in slot order;
    the attack cards left go back to the seats that laid them (state field `laid`)."""
    hand = s.f["hand"]
    d = s.defender
    if not m.layer_slots:  # the decision is the whole table (machine.layer_slots)
        return _cleared(m, s, hand=setat(hand, d, pick(hand, d) + 2 * zint(s.A) - s.U))
    A, covered = zint(s.A), zint(s.A) - s.U
    room = zint(m.decide(s, "pickup_count"))
    room = ite(room < 0, 0, ite(room > A, A, room))
    # Each hand after the pickup is a fresh variable equal to its sum (the later primitives then
    # read plain variables), and the cards going back add up to those not picked up.
    tag, backs, after = draw_tag(), [], []
    for x in range(m.n):
        back = z3.Int(f"pickup{tag}.back[{x}]")
        m.side.append(back == seat_sum(ite(z3.And(zint(room) <= k, A > k, zint(y) == x), 1, 0)
                                       for k, y in enumerate(s.laid)))
        new = z3.Int(f"pickup{tag}.hand[{x}]")
        m.side.append(new == zint(hand[x]) + back + ite(zint(d) == x, covered + room, 0))
        backs.append(back)
        after.append(new)
    m.side.append(z3.Sum(backs) == A - room)
    return _cleared(m, s, hand=after)


def replenish(m, s, a):
    """Drawers in draw_key order (ties by seat) fill up from the talon while it lasts.

    Filling up in order, the drawers before a seat take min(talon, what they need) together, so
    a seat gets min(its need, what the talon holds beyond the needs of the drawers before it):
    no permutation of the seats is needed, only which seat comes before which."""
    n, size, talon = m.n, m.hand_size(s), s.talon
    hand = s.f["hand"]
    drawer = [m.decide(s, "drawer", x) for x in range(n)]
    key = [m.decide(s, "draw_key", x) for x in range(n)]
    need = [ite(drawer[x], ite(zint(hand[x]) < size, size - zint(hand[x]), 0), 0) for x in range(n)]
    got = []
    for x in range(n):
        # y draws before x: a lower key, or the same key and a lower seat
        ahead = seat_sum(ite(zint(key[y]) <= key[x] if y < x else zint(key[y]) < key[x], need[y], 0)
                         for y in range(n) if y != x)
        left = simp(zint(talon) - ahead)
        got.append(simp(ite(zint(left) <= 0, 0, zmin(need[x], left))))
    rest = simp(zint(talon) - seat_sum(got))
    after = [simp(zint(hand[x]) + got[x]) for x in range(n)]
    return s.replace(last_attacker=s.attacker, last_defender=s.defender, hand=after, talon=rest,
                     drew=got, after_draw=after,
                     short=[simp(z3.And(zbool(drawer[x]), zint(after[x]) < size)) for x in range(n)])


def mark_out(m, s, a):
    for x in range(m.n):
        out = s.f["out"]
        s = s.replace(out=setat(out, x, simp(z3.Or(zbool(out[x]), zbool(m.decide(s, "out", x))))))
    return s


def check_end(m, s, a):
    over = m.decide(s, "game_over")
    fool = m.ruleset.decisions["fool"]
    value = m.clause(s, fool.clause.tree)
    v = value if isinstance(value, Opt) else Opt(0 if value is None else value, value is None)
    return s.replace(finished=simp(z3.Or(zbool(s.finished), zbool(over))),
                     fool=ite(over, v.value, s.fool), fool_none=ite(over, v.none, s.fool_none))


def next_roles(m, s, a, *, after):
    name = "next_attacker_after_beaten_off" if after == "beaten_off" else "next_attacker_after_take"
    attacker = m.decide(s, name)
    s1 = s.replace(attacker=attacker)
    defender = m.decide(s1, "next_defender")
    s2 = s1.replace(defender=defender, taking=False, passed=[False] * m.n, bout=zint(s.bout) + 1,
                    opener=attacker, last_adder=attacker, dhs=s1.hand_of(defender))
    return ite_state(s.finished, s, s2)


PRIMITIVES = {
    "add_attack_card": add_attack_card, "cover_card": cover_card, "clear_passes": clear_passes,
    "mark_passed": mark_passed, "mark_all_passed": mark_all_passed, "start_taking": start_taking,
    "move_defence_on": move_defence_on, "remember_shown": remember_shown,
    "swap_with_turn_up": swap_with_turn_up, "exchange_with_talon": exchange_with_talon,
    "reveal_hidden_card": reveal_hidden_card, "void_deal": void_deal,
    "transferer_attacks": transferer_attacks,
    "discard_table": discard_table,
    "defender_picks_up": defender_picks_up, "replenish": replenish, "mark_out": mark_out,
    "check_end": check_end, "next_roles": next_roles,
}



def materialize(s: SymState, tag: str = "m"):
    """A fresh state equal to `s` field by field, and those equalities: clauses over it then
    mention plain variables instead of copies of the terms that computed them."""
    fresh = SymState.fresh(s.machine, tag)
    eqs = []
    for name in s.f:
        x, y = s.f[name], fresh.f[name]
        for p, q in (zip(x, y) if isinstance(x, list) else [(x, y)]):
            eqs.append(q == (zbool(p) if z3.is_bool(q) else zint(p)))
    return fresh, eqs
