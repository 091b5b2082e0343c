"""A Ruleset: one preset plus option overrides, resolved and compiled once.

Compiling turns every active rule's clause into a Python callable, then generates one program per
ruleset (see `Ruleset._fuse`, readable as `Ruleset.source`): the legality clauses of each action
kind fused into loops with each condition hoisted to the loop it depends on (state, seat, card,
target), each flow event of spec/flow.yaml as one function calling its primitives, `settle`, which
lists the legal actions after running the bout ends that are due, and `step`
(`Ruleset.step_source`), which Game.apply_action calls once per action: the action's event, the
count of steps, then settle, with every primitive and the decisions they ask for written out as
their clauses (inline.py), each bout end's in a function of its own (`end_bout_taken`), which
settle calls when it is due. `step` is written and compiled only once the ruleset has played
WARM_STEPS actions; until then the same three calls are made one by one (`Ruleset.play_step`).
The generated source comes from checked clause trees and primitives.py only; Python adds loops,
never a rule.
"""

from __future__ import annotations

import ast
import copy
import operator
import random
import re
from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from . import primitives, vocab
from .codecache import cached, compile_program
from .errors import SpecError, suggest
from .inline import NotInlinable, decisions_asked, inline_source, module_helpers
from .lang import (
    BOOL,
    CARD,
    CMP_OPS,
    COLOUR,
    INT,
    KIND,
    RANK,
    RUNTIME,
    SEAT,
    STATE_ITERABLES,
    SUIT,
    Clause,
    Compiler,
    Env,
    Literals,
    Name,
    Origin,
    lazy_iterable,
)
from .lift import lifted
from .model import Rule, check_option_value, options_read
from .primitives import PRIMITIVES
from .specialise import pass_fingerprint, written_for
from .state import State, action_table

if TYPE_CHECKING:  # the loader builds rulesets, so only annotations name it
    from .spec import Spec

ACTION_PARAMS = ("seat", "card", "target")
CARD_NAMES = {"card", "card_in_hand", "unbeaten_share_rank", "card_shown"}
TARGET_NAMES = {"target", "target_unbeaten", "second", "second_in_hand"}
DECISION_TYPES = {
    "trump_suit": SUIT + "?", "first_attacker": SEAT + "?", "first_defender": SEAT + "?", "bout_beaten_off": BOOL,
    "bout_taken": BOOL, "drawer": BOOL, "draw_key": INT, "next_attacker_after_beaten_off": SEAT + "?",
    "next_attacker_after_take": SEAT + "?", "next_defender": SEAT + "?", "out": BOOL, "game_over": BOOL,
    "fool": SEAT + "?", "transfer_defender": SEAT + "?", "loser": BOOL, "place_key": INT,
    "pickup_count": INT,
}
SEAT_DECISIONS = {"drawer", "draw_key", "out", "loser", "place_key"}
# Decisions of the match layer (reference_impl/match.py), made after a deal over vocab.MATCH.
MATCH_DECISION_TYPES = {"deal_score": INT, "deal_epaulettes": INT, "winner": SEAT + "?",
                        "next_dealer": SEAT + "?", "match_over": BOOL, "match_key": INT}
MATCH_SEAT_DECISIONS = {"deal_score", "deal_epaulettes", "match_key"}
# Decisions checked after every step, in this order; each starts the flow event of its name.
BOUT_ENDS = ("bout_beaten_off", "bout_taken")
MAX_SETTLE = 1000  # bout ends in a row before the interpreter gives up
WARM_STEPS = 300  # actions a ruleset plays before its generated step is written (play_step)
# Games a warm ruleset then starts (each with one call of play_step) before the step and play loop
# written for their player count (`program`, specialise.py's passes: about 0.2 s idle) replace the
# generic ones: a test's few hundred games never pay for the passes, `durak simulate` soon does.
SPECIALISE_GAMES = 200
_UNSET = type("Unset", (), {"__repr__": lambda self: "_UNSET"})()  # a local not yet computed
MAX_SHARED = 20000  # compiled pieces a spec keeps for its rulesets to share
# A state container a vocabulary function indexes (`s.out[seat]`), read once per call of the
# generated functions into a `_c_` local; but can_throw, which settle itself sets midway.
CONTAINER = re.compile(r"\bs\.(\w+)\[")
HOISTED = re.compile(r"\b_c_\w+\b")
SET_BY_SETTLE = {"can_throw"}
DRAW_ORDER_CALL = re.compile(r"^( *)(\w+) = draw_order\(s\)$")  # inline.py's, in a bout end
SEATS_RANGE = re.compile(r"\brange\(s\.n\)")  # a loop over the seats (see _seats_kept)
LISTED_FIRST = {"throw", "pass"}  # the kinds settle lists before the bout ends (`throws`)
# What a primitive asks of the ruleset (g.ruleset.NAME) that the generated program defines itself
PROGRAM = (("draw_order_fn", "draw_order"),)
# The state's methods that only read it (state.py: its queries) and the game's decide, and the
# functions of the generated program that only read (made from clauses): calls after which
# play's locals hold.
STATE_QUERIES = frozenset(n for n, v in vars(State).items()
                          if callable(v) and not n.startswith("_")) - {"clone"} | {"decide"}
PROGRAM_QUERIES = frozenset({"draw_order"})
# The `_v_` locals of the generated program that hold integers (specialise.with_known_values)
INT_VALUES = frozenset(f"_v_{n}" for n, e in vocab.STATE.items() if e.args is None and e.type == INT)
TARGET_READ = re.compile(r"\btarget((?:\.\w+)+)")  # an attribute of the target card: target.real.suit


def _deadlock(ruleset_name: str):
    raise RuntimeError(f"interpreter deadlock: nobody can act and no bout-end rule applies "
                       f"(ruleset {ruleset_name})")


def _unsettled(ruleset_name: str):
    raise RuntimeError(f"interpreter did not settle after {MAX_SETTLE} bout ends (ruleset {ruleset_name})")


@dataclass
class CompiledRule:
    rule: Rule
    clause: Clause


class Ruleset:
    """A variant ready to play: resolved options, compiled rules, decisions, invariants, flow."""

    def __init__(self, spec: Spec, preset: str, overrides: dict, resolved: tuple | None = None,
                 program: bool = True):
        self.spec = spec
        self.preset = preset
        self.options, self.option_origins = resolved or resolve_options(spec, preset, overrides)
        self.overrides = dict(overrides)
        self.deck = self._deck()
        self.player_limits = self.deck.players
        layout = spec.teams.get(self.options.get("teams"), {})
        self._seating = {row["players"]: tuple(row["teams"]) for row in layout.get("seating", [])}
        self.active_rules: list[Rule] = []
        self.legality: dict[str, list[CompiledRule]] = {k: [] for k in vocab.ACTION_KINDS}
        self.order: dict[str, CompiledRule] = {}
        self.decisions: dict[str, CompiledRule] = {}
        self.match_decisions: dict[str, CompiledRule] = {}  # over vocab.MATCH, see match.py
        self.invariants: list[tuple[dict, Clause]] = []
        self.events: dict[str, object] = {}  # event -> generated fn(game, state, action), see _fuse
        self._compile_rules()
        self._compile_invariants()
        self._compile_flow()
        hand_size = self._compile_text(
            "hand_size", spec.definitions["hand_size"][2], "definitions.hand_size", INT,
            what="definition hand_size")
        self.hand_size_fn, self.hand_size_src = hand_size.fn, hand_size.src
        allowed = self._compile_text("turn_up_allowed(c)", "definitions.yaml", "turn_up_allowed",
                                     BOOL, {"c": Name(CARD, "c")}, ("c",),
                                     what="definition turn_up_allowed")
        self.turn_up_allowed_fn = allowed.fn  # fn(state, card): the card may show the trump
        dealt = self._compile_text("dealt_cards", "definitions.yaml", "dealt_cards", INT,
                                   what="definition dealt_cards")
        self.dealt_cards_fn = dealt.fn  # fn(state): cards the deal hands out
        self._deal_srcs = (allowed.src, dealt.src)  # for behaviour_key
        on_top = self._compile_text("turn_up_on_top", "definitions.yaml", "turn_up_on_top", BOOL)
        if not on_top.const:
            raise SpecError("definition turn_up_on_top may read only options (opt.NAME)",
                            "definitions.yaml", "definitions.turn_up_on_top")
        self.turn_up_place = "top" if on_top.value else "bottom"  # where the trump card lies
        hidden = self._compile_text("turn_up_hidden", "definitions.yaml", "turn_up_hidden", BOOL)
        if not hidden.const:
            raise SpecError("definition turn_up_hidden may read only options (opt.NAME)",
                            "definitions.yaml", "definitions.turn_up_hidden")
        self.turn_up_hidden = bool(hidden.value)  # a card lies face down under the turn-up
        self.named_forms = self._named_forms()  # kind -> {card: its forms as named suits}
        # every card played as another suit that some action may lay (the Weli's forms)
        self.played_forms = {f for offered in self.named_forms.values()
                             for forms in offered.values() for f in forms}
        # decision -> its compiled fn(state, seat), shared by every game of this ruleset
        self.decide_fns = {name: cr.clause.fn for name, cr in self.decisions.items()}
        self.match_fns = {name: cr.clause.fn for name, cr in self.match_decisions.items()}
        if program:  # else the pieces alone (program_key), generated by with_program
            self.with_program()

    def with_program(self) -> Ruleset:
        """This ruleset with its program generated and compiled (Ruleset(..., program=False)
        leaves it out)."""
        self.legal_fn, self.passes_fn = self._fuse()  # also settle_fn, step_source, draw_order_fn
        return self

    def _named_forms(self) -> dict:
        """kind -> {card: its forms}: the cards of the deck played as another suit (Deck.as_suit,
        the Weli's named suit) that the legal-action generator offers beside the card for actions
        of that kind - each form that passes every condition of the kind's legality rules that
        reads nothing but the card (play.named_suit: only the Weli). The rules decide the rest.
        Shared by the rulesets of one deck (spec.make_deck gives each composition one Deck) whose
        legality rules read the same option values."""
        deck = self.deck
        key = ("named forms", id(deck)) + tuple(
            (kind, tuple((cr.rule.id, cr.rule.clause) + self._read_key(cr.rule.clause)
                         for cr in self.legality[kind])) for kind in vocab.CARD_KINDS)

        def make():
            forms = [(c, deck.as_suit(c, x)) for c in deck.cards if not c.is_joker
                     for x in deck.suits if x != c.suit]
            out = {}
            for kind in vocab.CARD_KINDS:
                tests = [fn for cr in self.legality[kind] for fn in self._card_conditions(cr.rule)]
                offered: dict = {}
                for card, form in forms:
                    if all(fn(form) for fn in tests):  # a clause that fails here: lang.failure_of
                        offered.setdefault(card, []).append(form)
                if offered:
                    out[kind] = {c: tuple(fs) for c, fs in offered.items()}
            return out
        return self._memo(key, make)

    def _card_conditions(self, rule) -> list:
        """The conditions (top-level 'and' operands) of a legality rule's clause that read only
        the action's card, options and deck constants, each as fn(card)."""
        def make():
            compiler = Compiler(self._env(vocab.action_names(rule.applies_to)), rule.file,
                                f"{rule.path}.clause")
            pure = {"card"} | set(self.spec.definitions) | set(self.literals().constants)
            ns = dict(RUNTIME, _ORIGIN=Origin(f"rule {rule.id}", rule.clause, rule.file,
                                               f"{rule.path}.clause"))
            fns = []
            for _node, em in compiler.conjuncts(rule.clause):
                if not em.const and "card" in em.names and em.names <= pure:
                    fns.append(eval(compile(f"lambda card: {em.src}", f"<{rule.id}>", "eval"),
                                    ns))  # generated from the checked clause
            return fns
        return self._memo(("card conditions", rule.id, rule.clause, self._read_key(rule.clause)), make)

    def seating(self, n: int) -> tuple[tuple[int, ...], bool]:
        """Each seat's team at `n` players and whether that is team play (spec/teams.yaml); where
        the layout seats no teams at `n`, everyone is a team of one."""
        teams = self._seating.get(n)
        return (teams, True) if teams else (tuple(range(n)), False)

    @property
    def name(self) -> str:
        return self.preset + "".join(f" {k}={v}" for k, v in sorted(self.overrides.items()))

    # -- options --------------------------------------------------------------------------
    def requested_as(self, overrides: dict, origins: dict, rules: Ruleset | None = None) -> Ruleset:
        """This compiled variant as asked for with other overrides that resolve to the same
        option values: the compiled rules are shared, the name and the origins are the asker's.
        With `rules`, a ruleset of other values built without its program whose program_key is
        this one's: the option values, and what the program does not read (match decisions,
        invariants), are that one's."""
        twin = copy.copy(self)
        twin.overrides, twin.option_origins = dict(overrides), origins
        if rules is not None:
            twin.options, twin.invariants = rules.options, rules.invariants
            twin.match_decisions, twin.match_fns = rules.match_decisions, rules.match_fns
            twin._read_keys = rules.__dict__.setdefault("_read_keys", {})  # its option values
        return twin

    def _deck(self):
        """The deck the definitions deck_pack, deck_jokers and deck_copies pick (rule
        deck.composition), which must follow from the options alone."""
        values = []
        for name, want in (("deck_pack", INT), ("deck_jokers", BOOL), ("deck_copies", INT)):
            d = self.spec.definitions.get(name)
            if d is None:
                raise SpecError(f"definitions.yaml must define {name} (rule deck.composition)")
            c = Compiler(self.option_env(), d.file, d.path).compile(d.clause, want)
            if not c.const:
                raise SpecError(f"definition {name} may read only options (opt.NAME)", d.file, d.path)
            values.append(c.value)
        return self.spec.make_deck(*values)

    # -- compiling ------------------------------------------------------------------------
    def option_env(self) -> Env:
        """An Env where only options (and option-only definitions) may be named."""
        return Env({}, self.options, dict(self.spec.definitions),
                   option_values={n: o.values for n, o in self.spec.options.items()})

    def literals(self) -> Literals:
        deck = self.deck
        return Literals(dict(deck.rank_index), tuple(deck.suits),
                        tuple(sorted(set(self.spec.deck_data["colours"].values()))),
                        bool(deck.jokers), tuple(deck.suits) + tuple(deck.joker_suits),
                        vocab.deck_constants(deck))

    def _env(self, names: dict[str, Name], table=None) -> Env:
        return Env(dict(vocab.STATE if table is None else table), self.options,
                   dict(self.spec.definitions), dict(names),
                   option_values={n: o.values for n, o in self.spec.options.items()},
                   literals=self.literals(), kinds=tuple(vocab.ACTION_KINDS))

    def clause_env(self, names: dict[str, Name] | None = None) -> Env:
        """What a clause of this ruleset may refer to (vocabulary, options, definitions), plus
        `names` (e.g. the action's seat and card), for compiling spec clauses elsewhere."""
        return self._env(names or {})

    def _decision(self, decided: dict, rule, types: dict, seat_decisions: set, table=None) -> None:
        """Compile the clause of a rule that decides a value into `decided`; one rule per value."""
        if rule.decides in decided:
            other = decided[rule.decides].rule
            raise SpecError(f"both {other.id} and {rule.id} decide {rule.decides} "
                            f"under preset {self.preset}", rule.file, f"{rule.path}.decides")
        names = vocab.SEAT_CLAUSE if rule.decides in seat_decisions else {}
        c = self._compile_text(rule.clause, rule.file, f"{rule.path}.clause",
                               types[rule.decides], names, ("seat",), table, f"rule {rule.id}")
        decided[rule.decides] = CompiledRule(rule, c)

    def _compile_text(self, text, file, path, want, names=None, params=(), table=None,
                      what="") -> Clause:
        key = ("clause", text, file, path, want, tuple(sorted(names or {})), params,
               table is vocab.MATCH, what, self._read_key(text))
        return self._memo(key, lambda: Compiler(self._env(names or {}, table), file, path,
                                                what).compile(text, want, params))

    # -- sharing compiled pieces between rulesets of one spec --------------------------------
    def _memo(self, key, make):
        """What `make()` builds, shared by every ruleset of this spec whose key is the same: a
        compiled clause depends only on its text and the values of the options it reads, so the
        variants of a preset (durak verify, diagnose's counterfactual search) compile each once."""
        cache = self.spec.__dict__.setdefault("_compiled", {})
        if key not in cache:
            if len(cache) > MAX_SHARED:
                cache.clear()
            cache[key] = make()
        return cache[key]

    def shared(self, key: tuple, texts: tuple, make):
        """What `make()` builds from this ruleset for the clause `texts`, shared by every ruleset
        of the spec in which those texts read the same option values (for tools that derive
        things from clauses, like reference_impl/diagnose.py)."""
        return self._memo(key + self._read_key(*texts), make)

    def _read_key(self, *texts) -> tuple:
        """The values of the options `texts` read (through definitions too), kept per ruleset
        once its deck is known (a ruleset's options do not change)."""
        mine = self.__dict__.setdefault("_read_keys", {})
        key = mine.get(texts)
        if key is None:
            reads = self.spec.__dict__.setdefault("_reads", {})
            if texts not in reads:
                reads[texts] = tuple(options_read(self.spec, texts))
            key = tuple((n, repr(self.options.get(n))) for n in reads[texts]) + self._deck_key()
            if getattr(self, "deck", None) is not None:
                mine[texts] = key
        return key

    def _deck_key(self) -> tuple:
        """The deck's literals (rank, suit and colour values depend on the deck, not only on the
        options a clause names)."""
        key = self.__dict__.get("_deck_key_value")
        if key is None:
            deck = getattr(self, "deck", None)
            key = () if deck is None else (repr(self.literals()),)
            if deck is not None:
                self._deck_key_value = key
        return key

    def compile_clause(self, text: str, want: str | None, what: str, names=None,
                       params=()) -> Clause:
        """Compile a clause that is not in spec/ (tools build some from spec clauses) in this
        ruleset's vocabulary; `what` names it in errors."""
        return self._compile_text(text, "", what, want, names, params)

    def _is_active(self, rule: Rule) -> bool:
        return rule.when is None or self.holds(rule.when, rule.file, f"{rule.path}.when")

    def holds(self, when: str, file: str, path: str) -> bool:
        """Whether `when`, a clause over options only (a rule's `when`, a `plain_where` entry's),
        holds under this ruleset's options; `file` and `path` name it in errors."""
        c = self._memo(("when", when, file, path, self._read_key(when)),
                       lambda: Compiler(self.option_env(), file, path).compile(when, BOOL))
        if not c.const:
            raise SpecError("a `when` may use only options (opt.NAME)", file, path)
        return bool(c.value)

    def _compile_rules(self) -> None:
        for rule in self.spec.rules:
            if not self._is_active(rule):
                continue
            self.active_rules.append(rule)
            if rule.applies_to:
                names = vocab.action_names(rule.applies_to)
                if rule.key:
                    c = self._compile_text(rule.key, rule.file, f"{rule.path}.key", INT, names,
                                           ACTION_PARAMS, what=f"rule {rule.id}")
                    for kind in rule.applies_to:
                        if kind in self.order:
                            raise SpecError(f"two order rules apply to {kind}: "
                                            f"{self.order[kind].rule.id} and {rule.id}",
                                            rule.file, rule.path)
                        self.order[kind] = CompiledRule(rule, c)
                else:
                    c = self._compile_text(rule.clause, rule.file, f"{rule.path}.clause", BOOL,
                                           names, ACTION_PARAMS, what=f"rule {rule.id}")
                    for kind in rule.applies_to:
                        self.legality[kind].append(CompiledRule(rule, c))
            elif rule.decides in MATCH_DECISION_TYPES:
                self._decision(self.match_decisions, rule, MATCH_DECISION_TYPES,
                               MATCH_SEAT_DECISIONS, vocab.MATCH)
            elif rule.decides:
                self._decision(self.decisions, rule, DECISION_TYPES, SEAT_DECISIONS)
        missing = sorted(set(DECISION_TYPES) - set(self.decisions)) + sorted(
            set(MATCH_DECISION_TYPES) - set(self.match_decisions))
        if missing:
            raise SpecError(f"no active rule decides {', '.join(missing)} under preset "
                            f"{self.preset}; add a rule with `decides:`")

    def _compile_invariants(self) -> None:
        file = str(self.spec.root / "invariants.yaml")
        for i, inv in enumerate(self.spec.invariants):
            names = vocab.INVARIANT_ACTION if inv["scope"] == "action" else {}
            table = vocab.MATCH if inv["scope"] == "deal_end" else None
            c = self._compile_text(inv["clause"], file, f"invariants[{i}].clause", BOOL, names,
                                   ("seat", "kind"), table, f"invariant {inv['id']}")
            self.invariants.append((inv, c))

    def _compile_flow(self) -> None:
        file = str(self.spec.root / "flow.yaml")
        self._flow_steps: dict[str, list[tuple[object, Clause | None]]] = {}
        for event, steps in self.spec.flow.items():
            compiled = []
            for i, step in enumerate(steps):
                step = {"do": step} if isinstance(step, str) else step
                if step["do"] not in PRIMITIVES:
                    raise SpecError(f"unknown primitive {step['do']!r}.{suggest(step['do'], PRIMITIVES)}",
                                    file, f"events.{event}[{i}].do")
                when = None
                if "when" in step:
                    c = self._compile_text(step["when"], file, f"events.{event}[{i}].when", BOOL)
                    if c.const and not c.value:
                        continue
                    when = None if c.const else c
                fn = PRIMITIVES[step["do"]]
                if step.get("after"):
                    fn = partial(fn, after=step["after"])
                compiled.append((fn, when))
            self._flow_steps[event] = compiled

    @property
    def flow(self) -> dict[str, list[tuple[object, object]]]:
        """event -> [(primitive, its `when` as fn(s), or None)], for tools that walk the flow."""
        return {event: [(fn, None if when is None else when.fn) for fn, when in steps]
                for event, steps in self._flow_steps.items()}

    def _hoisting_compiler(self, names, file, path, keep=(), real=frozenset()) -> Compiler:
        """A compiler that reads each state value (but those in `keep`) from its `_v_` local,
        and each container a vocabulary function indexes from its `_c_` local; the names in
        `real` hold physical cards (Env.real_cards)."""
        env = self._env(names)
        env.real_cards = frozenset(real)
        env.iterable_locals = True
        key = frozenset(keep)
        if key not in _HOISTED:  # the same for every ruleset: the state vocabulary rewritten
            _HOISTED[key] = {n: (Name(e.type, f"_v_{n}") if e.args is None and n not in keep else
                                 Name(e.type, CONTAINER.sub(_container_local, e.code), e.args, e.doc)
                                 if e.args is not None else e)
                             for n, e in vocab.STATE.items()}
        env.vocab = dict(_HOISTED[key])
        return Compiler(env, file, path)

    def _bout_end(self, event: str) -> tuple[str, set[str]]:
        """Source of a BOUT_ENDS decision over the `_v_` locals, and the state names it reads.
        settle writes `any_throw` just before, so that one is read from the state."""
        rule = self.decisions[event].rule
        return self._memo(("end", event, rule.id, rule.clause, self._read_key(rule.clause)),
                          lambda: self._bout_end_src(rule))

    def _bout_end_src(self, rule) -> tuple[str, set[str]]:
        compiler = self._hoisting_compiler({}, rule.file, f"{rule.path}.clause", keep={"any_throw"})
        em = compiler.emit(compiler.parse(rule.clause).body)
        return em.src, {n for n in em.names if _state_value(n) and n != "any_throw"} | set(
            HOISTED.findall(em.src))

    def _block(self, kind: str, out: str) -> tuple[list[str], set[str]]:
        rules = tuple((cr.rule.id, cr.rule.clause, self._read_key(cr.rule.clause))
                      for cr in self.legality[kind])
        forms = tuple(sorted(f.index for fs in self.named_forms.get(kind, {}).values() for f in fs))
        return self._memo(("block", kind, out, rules, forms),
                          lambda: self._block_lines(kind, out))

    def _block_lines(self, kind: str, out: str) -> tuple[list[str], set[str]]:
        """Generated lines appending every legal `kind` action to `out`, with conditions hoisted
        by what they depend on (state, seat, card, target), and the state names they read once;
        no lines if `kind` is never legal. Actions come from the shared table `_T_<kind>`."""
        levels: list[list[str]] = [[], [], [], []]
        gen_names = dict(vocab.action_names([kind]))
        for name in ("card_in_hand", "target_unbeaten", "second_in_hand"):  # true by construction
            if name in gen_names:
                gen_names[name] = Name(BOOL, "True")
        seat_exprs: list[str] = []
        used: set[str] = set()
        hoisted: list[list[str]] = [[], []]  # locals computed once per settle and once per seat
        # the loops below take cards from the hand: physical cards, but for named suits' forms
        real = {"card"} if kind in vocab.CARD_KINDS and kind not in self.named_forms else set()
        if kind in vocab.SECOND_KINDS:
            real.add("target")
        for cr in self.legality[kind]:
            r = cr.rule
            compiler = self._hoisting_compiler(gen_names, r.file, f"{r.path}.clause", real=real)
            for node, em in compiler.conjuncts(r.clause):
                if em.const:
                    if not em.value:
                        return [], set()
                    continue
                names = em.names
                used |= {n for n in names if _state_value(n)}
                level = _level(names)
                fixed = self._fixed_seat(compiler, node) if level == 1 else None
                if fixed is not None:
                    seat_exprs.append(fixed)
                elif level in (1, 2):  # its and/or operands of a lower level, once at theirs
                    split = _Split(compiler, level, f"_h_{kind}_", len(hoisted[0]) + len(hoisted[1]))
                    levels[level].append(split.source(node))
                    for at, assignment in split.hoisted:
                        hoisted[at].append(assignment)
                    needed = split.needed(node)
                    if needed is not None and needed[0] < level:
                        levels[needed[0]].append(needed[1])
                else:
                    levels[level].append(em.src)
        for conditions in levels:  # at each level, a condition looping over cards or seats last
            conditions.sort(key=_loops)
        _given_earlier(levels)
        # the first tests of each card that read the card and values of the state only: the
        # cards that pass them, a set kept by those values (see _card_tests)
        card_set = _card_tests(levels) if kind in vocab.CARD_KINDS and kind not in self.named_forms \
            else None
        if kind in vocab.CARD_KINDS:  # a look over the cards in play for one lower than the
            # card: the lowest of them found once per settle (see _Least)
            least = _Least(f"_m_{kind}_")
            levels[2][:] = [least.rewritten(src) for src in levels[2]]
            hoisted[0] += [f"{name} = _UNSET" for name in least.names]

        def cond(level, extra=()):
            return " and ".join([f"({c})" for c in extra] + [f"({c})" for c in levels[level]]) or "True"

        table = f"_T_{kind}"
        if kind in vocab.TARGET_KINDS:  # a cover needs an unbeaten target
            lines = [f"    # {kind}", f"    if {cond(0)} and s.unbeaten:", "        unbeaten = []",
                     "        for a, d in s.table:", "            if d is None:",
                     "                unbeaten.append(a)"]
        else:
            lines = [f"    # {kind}", f"    if {cond(0)}:"]
        lines += [f"        {h}" for h in hoisted[0]]
        outer = lines
        if card_set is not None:  # no card passes: no seat is visited; a hand none of whose
            # cards passes is not walked
            tests, values = card_set
            key = ", ".join(values)
            key = f"({key})" if len(values) > 1 else key
            tab = f"_TC_{kind}"
            lines += [f"        _q = {tab}.get({key})", "        if _q is None:",
                      f"            _q = {tab}[{key}] = _frozenset([card for card in _SLOTS "
                      f"if card is not None and {tests}])",
                      "        if _q:"]
            lines = []
        hand = " and not _q.isdisjoint(_c_hands[seat])" if card_set is not None else ""
        if seat_exprs:  # 'seat == E' conditions: visit only that seat
            lines += [f"        seat = {seat_exprs[0]}",
                      f"        if {cond(1, [f'seat == {e}' for e in seat_exprs[1:]])}{hand}:"]
        else:
            lines += ["        for seat in range(s.n):", f"            if not ({cond(1)}{hand}): continue"]
        lines += [f"            {h}" for h in hoisted[1]]
        if kind in vocab.CARD_KINDS:  # each card of the hand, and the Weli in every suit
            if kind in self.named_forms:  # each held card, then its forms (_forms_<kind>)
                head, pad = ["for _held in _c_hands[seat]:",
                             f"    for card in _forms_{kind}[_held.index]:"], "    "
            else:
                head, pad = ["for card in _c_hands[seat]:"], ""

            def each(body, head=head, pad=pad):
                tests = [f"({cond(2)})"] if levels[2] else []
                if card_set is not None:
                    tests.insert(0, "card in _q")
                test = [f"    if not ({' and '.join(tests)}): continue"] if tests else []
                return head + [pad + line for line in test + body]
            lines.append(f"            row = {table}[seat]")
            values = _tabulable(cond(3)) if kind in vocab.TARGET_KINDS else None
            if values is not None:  # what the card and the target decide, looked up by index
                key = ", ".join(["at"] + values)
                key = f"({key})" if values else key
                tab = f"_TB_{kind}"
                build = ["_tb = " + tab + ".get(" + key + ")", "if _tb is None:",
                         f"    _tb = {tab}[{key}] = [False if card is None else {cond(3)} "
                         "for card in _SLOTS]"]
                lines += ["            if len(unbeaten) == 1:", "                target = unbeaten[0]",
                          "                at = target.index"]
                lines += _indented(build, 16)
                lines += _indented(each([f"    if _tb[card.index]: {out}.append(row[card.index][at])"]), 16)
                lines += ["            else:", "                _tbs = []",
                          "                for target in unbeaten:", "                    at = target.index"]
                lines += _indented(build, 20) + ["                    _tbs.append((_tb, at))"]
                lines += _indented(each(["    i = card.index", "    crow = row[i]",
                                         "    for _tb, at in _tbs:",
                                         f"        if _tb[i]: {out}.append(crow[at])"]), 16)
            elif kind in vocab.TARGET_KINDS:  # one unbeaten target (the usual case): no inner loop,
                # and what the conditions read of it read once
                reads = sorted(set(TARGET_READ.findall(cond(3))))
                one = TARGET_READ.sub(lambda m: "_t" + m.group(1).replace(".", "_"), cond(3))
                lines += ["            if len(unbeaten) == 1:", "                target = unbeaten[0]",
                          "                at = target.index"]
                lines += [f"                _t{r.replace('.', '_')} = target{r}" for r in reads]
                lines += _indented(each([f"    if {one}: {out}.append(row[card.index][at])"]), 16)
                lines.append("            else:")
                lines += _indented(each(["    crow = row[card.index]", "    for target in unbeaten:",
                                           f"        if {cond(3)}: {out}.append(crow[target.index])"]), 16)
            elif kind in vocab.SECOND_KINDS:  # each pair of hand cards once, the lower index first
                lines += _indented(each(["    crow = row[card.index]",
                                         "    for target in _c_hands[seat]:",
                                         f"        if target.index > card.index and {cond(3)}: "
                                         f"{out}.append(crow[target.index])"]), 12)
            else:
                lines += _indented(each([f"    {out}.append(row[card.index])"]), 12)
        else:
            lines.append(f"            {out}.append({table}[seat])")
        if lines is not outer:
            lines = outer + _indented(lines, 4)
        return lines, used | {name for line in lines for name in HOISTED.findall(line)}

    def _fuse(self):
        """Generate one program from checked clause trees only, compile it once and return its
        `legal` and `passes`. The program holds:

        - `legal(s)`: every legal action but passes, as (others, throws); `passes(s, out)`
          appends the passes, which depend on who may throw. Both accept and ignore a second
          argument, the action constructor they once took; actions come from `action_table`.
        - `ev_<event>(game, s, action)` per flow event: its primitives in order, each under its
          `when`.
        - `draw_order(s)`: (draw_key, seat) of the seats that draw after a bout, in draw order.
        - `settle(game, s)`: the legal actions now, after running every bout end that is due.
          Throws and passes come first: they say who may throw, which the bout-end decisions
          read; when one of BOUT_ENDS holds its event runs and settling starts over, so the
          other actions are listed only once no bout ends.

        and beside it `step(game, s, action)` (`step_source`, compiled on first use): the
        action's event, `s.steps += 1` and settle's body, every primitive written out, and one
        function per bout end (`end_<event>(g, s)`) that it calls: a function clears all its
        locals at each call, and the bout ends' are many and seldom needed. The play loop
        (`_play_lines`) writes the bout ends out instead: a loop keeps its locals.
        """
        kinds = [k for k in vocab.ACTION_KINDS if k not in ("throw", "pass")]
        others = [self._block(kind, "out") for kind in kinds]
        throw, pass_out, pass_throws = (self._block("throw", "throws"), self._block("pass", "out"),
                                        self._block("pass", "throws"))
        used = set().union(*(names for _, names in others + [throw]))
        body = [line for lines, _ in [throw] + others for line in lines]
        ns = dict(RUNTIME)
        lines = ["def legal(s, A=None):", "    out = []", "    throws = []"] + _prelude(used) + body
        lines += ["    return out, throws", "def passes(s, out, A=None):"] + _prelude(pass_out[1])
        lines += pass_out[0] or ["    pass"]
        lines += self._events(ns) + self._draw_order_lines()
        lines += ["def settle(g, s):", "    ends = 0", "    while True:", "        if s.finished:",
                  "            return []", "        throws = []"]
        ends = [self._bout_end(event) for event in BOUT_ENDS]
        # a value only one block reads is read in that block, when it runs; others once, first
        blocks = [throw, pass_throws] + others
        uses = Counter(n for _, names in blocks + ends for n in names)
        shared = {n for n, k in uses.items() if k > 1}
        throw, pass_throws, *others = [(_localized(lines, names - shared), names & shared)
                                       for lines, names in blocks]
        ends = [(_inlined(src, names - shared), names & shared) for src, names in ends]
        lines += _indented(_prelude(shared) + throw[0], 4)
        lines += ["        if throws:", "            can = [False] * s.n", "            for a in throws:",
                  "                can[a[1]] = True", "            s.can_throw = can"]
        order = self._order_lines(ns)
        if order:  # where the passes begin (see _order_lines)
            lines.append("            _k = len(throws)")
        # s.can_throw is `can` from here on
        lines += _indented([ln.replace("s.can_throw[", "can[") for ln in pass_throws[0]], 8)
        lines += order
        lines += ["            # throws precede passes, and the order rules keep their order",
                  "            s.any_throw = throws[0][0] == 'throw'",
                  "        else:", "            if True in s.can_throw:  # else it stays as it is",
                  "                s.can_throw = [False] * s.n",
                  "            s.any_throw = False"]
        settle_at = len(lines)
        for event, (src, _) in zip(BOUT_ENDS, ends):
            lines += _bout_end_block(src, [f"            ev_{event}(g, s, None)"])
        # settle's body before the bout ends, for step (written when step is first asked for)
        head = list(lines[lines.index("def settle(g, s):") + 1:settle_at])
        rest = ["        out = []"] + _indented([ln for lines, _ in others for ln in lines], 4)
        rest += ["        out += throws", "        if not out:", "            _deadlock()",
                 "        return out"]
        lines += rest
        self._step_parts = (head, [src for src, _ in ends], rest)
        forms = sorted(self.played_forms, key=lambda c: c.index)
        for kind, table in action_table(self.deck, self.player_limits[1], vocab.ACTION_KINDS,
                                        vocab.CARD_KINDS, vocab.TARGET_KINDS | vocab.SECOND_KINDS,
                                        forms).items():
            ns[f"_T_{kind}"] = table
            ns[f"_TB_{kind}"] = {}  # see _tabulable: its rows made as settle first needs them
            ns[f"_TC_{kind}"] = {}  # see _card_tests: its sets made as settle first needs them
        slots = [None] * (max(c.index for c in list(self.deck.cards) + forms) + 1)
        for c in list(self.deck.cards) + forms:  # the cards the tables (_TB_) hold, by index
            slots[c.index] = c
        ns["_SLOTS"] = tuple(slots)
        for kind, offered in self.named_forms.items():  # by card index: the card, then its forms
            ns[f"_forms_{kind}"] = [(c,) + tuple(offered.get(c, ())) for c in self.deck.cards]
        ns.update(_SEATS=tuple(tuple(range(n)) for n in range(self.player_limits[1] + 1)),
                  _frozenset=frozenset, _UNSET=_UNSET,
                  _MAX_SETTLE=MAX_SETTLE, _deadlock=partial(_deadlock, self.name),
                  _unsettled=partial(_unsettled, self.name),
                  # how lang.failure_of names a clause that raises in this program: keep it, and
                  # keep the state a local named `s` (tests/reference_impl/test_clause_errors.py)
                  _PROGRAM=self.failing_clause)
        self.source = lifted(_seats_kept("\n".join(lines)), "_scope")
        code = self._memo(("source", self.source),
                          lambda: compile_program(self.source, f"<legal actions of {self.name}>"))
        exec(code, ns)
        self.settle_fn, self._ns = ns["settle"], ns
        self.draw_order_fn = ns["draw_order"]
        for event in self._flow_steps:
            self.events[event] = ns[f"ev_{event}"]
        return ns["legal"], ns["passes"]

    @property
    def step_source(self) -> str:
        """The source of `step(g, s, a)` (see _step_lines), written the first time it is asked
        for: writing out every primitive with its decisions costs more than the rest of the
        program, and a ruleset that plays a few steps only (a case of the suite) never needs it."""
        src = self.__dict__.get("_step_source")
        if src is None:
            head, ends, rest = self._step_parts
            written, looped, bodies = list(head), list(head), []
            for event, cond in zip(BOUT_ENDS, ends):
                written += _bout_end_block(cond, [f"            end_{event}(g, s)"])
                bodies += [f"def end_{event}(g, s):"] + self._draw_order_written(
                    self._event_lines(event, self._ns, "None", 4))
                # the play loop writes the bout ends out: a call of step clears every local of
                # the function at each step, a loop's locals stay, and no call or read again
                looped += _bout_end_block(cond, self._draw_order_written(
                    self._event_lines(event, self._ns, "None", 12)))
            step = self._step_lines(self._ns, written + rest)
            if any("draw_order(" in line for line in bodies):  # one a primitive calls
                bodies += self._draw_order_lines()
            src = self._step_source = lifted(_seats_kept("\n".join(
                bodies + step + _play_lines(self._step_lines(self._ns, looped + rest)))),
                "_step_scope")
        return src

    @property
    def play_step(self):
        """What a game first calls for each action: once this ruleset has played WARM_STEPS
        actions (in all its games), it hands the game the step written for its player count
        (`program`); before that it does the same in three calls (the action's event, the count
        of steps, settle), with the primitives called rather than written out, so that a ruleset
        that plays a few steps never writes or compiles `step`. Both play the same games
        (tests/reference_impl/test_same_games.py)."""
        fn = self.__dict__.get("_first_steps")
        if fn is None:
            fn = self._first_steps = self._make_first_steps()
        return fn

    def _make_first_steps(self):
        events, settle, played = self.events, self.settle_fn, [0]
        programs = self.__dict__.setdefault("_programs", {})

        def first_steps(g, s, a):
            program = programs.get(s.n)
            if program is None:
                played[0] += 1
                if played[0] > WARM_STEPS + SPECIALISE_GAMES:  # many games: worth its passes
                    program = self.program(s.n)
                elif played[0] > WARM_STEPS:  # from now on, every game steps at once
                    g._step = self.step_fn
                    return g._step(g, s, a)
            if program is not None:  # the game steps at once from now on
                g._step = program[0]
                return program[0](g, s, a)
            event = events.get(a[0])
            if event is not None:
                event(g, s, a)
            s.steps += 1
            return settle(g, s)
        return first_steps

    @property
    def step_fn(self):
        """The generated `step(g, s, a)` (see _step_lines), compiled the first time it is asked
        for (play_step asks once a ruleset has played WARM_STEPS actions)."""
        fn = self.__dict__.get("_step_fn")
        if fn is None:
            code = self._memo(("step", self.step_source),
                              lambda: compile_program(self.step_source, f"<step of {self.name}>"))
            exec(code, self._ns)
            self._play_fn = self._ns["play"]
            fn = self._step_fn = self._ns["step"]
        return fn

    def step_source_for(self, n: int) -> str:
        """The source of `step` and `play` written for `n` players (specialise.py): the player
        count, the seats, their teams and whether that is team play as constants, and in `play`
        the state fields it reads held in locals, and the tests of both short of what they know."""
        sources = self.__dict__.setdefault("_step_sources", {})
        src = sources.get(n)
        if src is None:
            team, team_play = self.seating(n)
            generic = self.step_source
            args = (n, team, team_play, STATE_QUERIES, PROGRAM_QUERIES, INT_VALUES)
            key = (pass_fingerprint(), n, team, team_play) + tuple(map(sorted, args[3:]))
            src = sources[n] = cached(f"step for\0{key!r}\0{generic}",  # the passes take long
                                      lambda: written_for(generic, *args))
        return src

    def program(self, n: int) -> tuple:
        """(step, play) written for `n` players (step_source_for), compiled the first time it is
        asked for, in a namespace of its own beside the rest of the program's."""
        programs = self.__dict__.setdefault("_programs", {})
        found = programs.get(n)
        if found is None:
            src = self.step_source_for(n)
            code = self._memo(("step", src), lambda: compile_program(
                src, f"<step of {self.name} at {n} players>"))
            ns = dict(self._ns)
            exec(code, ns)
            found = programs[n] = (ns["step"], ns["play"])
        return found

    def compiled_program(self, n: int) -> tuple | None:
        """(step, play) for `n` players if `program(n)` has compiled them, else None."""
        return self.__dict__.get("_programs", {}).get(n)

    @property
    def play_fn(self):
        """The generated `play(g, s, legal, choose, limit)` (see _play_lines), once `step_fn` is
        compiled; None before."""
        return self.__dict__.get("_play_fn")

    def failing_clause(self, s, exc: Exception) -> Origin | None:
        """The clause that raises `exc` (the same type and message) in state `s`, when the
        generated program raised it: run only after a failure (lang.failure_of), so that the
        program itself carries no bookkeeping. Each rule's clause is tried whole over the seats,
        the cards of their hands and the unbeaten cards, then each of its conjuncts alone (the
        program hoists them apart); then the decisions, order keys and flow conditions."""
        def same(fn, *args) -> bool:
            try:
                fn(s, *args)
            except Exception as other:  # noqa: BLE001 - the probe looks for exc's twin
                return type(other) is type(exc) and str(other) == str(exc)
            return False

        seats = range(s.n)
        unbeaten = [None] + [a for a, d in s.table if d is None]
        for kind, rules in self.legality.items():
            cards = (lambda seat: [None]) if kind not in vocab.CARD_KINDS else \
                (lambda seat: list(s.hands[seat]))
            targets = (lambda seat: unbeaten) if kind in vocab.TARGET_KINDS else \
                (lambda seat: [None] + list(s.hands[seat])) if kind in vocab.SECOND_KINDS else \
                (lambda seat: [None])
            calls = [(seat, card, target) for seat in seats for card in cards(seat)
                     for target in targets(seat)]
            for cr in rules:
                r = cr.rule
                origin = Origin(f"rule {r.id}", r.clause, r.file, f"{r.path}.clause")
                compiler = Compiler(self._env(vocab.action_names(r.applies_to)), r.file, origin.path)
                parts = [cr.clause.fn] + [
                    eval(compile(f"lambda s, seat, card, target: {em.src}", "<probe>", "eval"),
                         dict(RUNTIME)) for _node, em in compiler.conjuncts(r.clause)]
                if any(same(fn, *call) for fn in parts for call in calls):
                    return origin
        probes = [(cr, [(seat,) for seat in [None, *seats]]) for cr in self.decisions.values()]
        probes += [(cr, [(seat, None, None) for seat in seats]) for cr in self.order.values()]
        for cr, calls in probes:
            if any(same(cr.clause.fn, *call) for call in calls):
                return cr.clause.fn.__globals__["_ORIGIN"]
        for steps in self._flow_steps.values():
            for _fn, when in steps:
                if when is not None and same(when.fn):
                    return when.fn.__globals__["_ORIGIN"]
        return None

    def _step_lines(self, ns: dict, settle: list[str]) -> list[str]:
        """`step(g, s, a)`: the event of the action's kind written out, the step counted, then
        settle's body: one call per action (Game.apply_action)."""
        lines = ["def step(g, s, a):", "    _kind = a[0]"]
        for i, kind in enumerate(k for k in vocab.ACTION_KINDS if k in self._flow_steps):
            lines.append(f"    {'if' if i == 0 else 'elif'} _kind == {kind!r}:")
            lines += self._event_lines(kind, ns, "a", 8, shared=True)
        return lines + ["    s.steps += 1"] + settle

    def _events(self, ns: dict) -> list[str]:
        """One function per flow event: its primitives in order, each `when` inlined."""
        lines = []
        for event, steps in self._flow_steps.items():
            lines.append(f"def ev_{event}(g, s, a):")
            lines += self._event_lines(event, ns, "a", 4, written_out=False)
        return lines

    def _event_lines(self, event: str, ns: dict, action: str, indent: int,
                     written_out: bool = True, shared: bool = False) -> list[str]:
        """The steps of a flow event as lines of the generated program: each primitive's body
        written out (inline.py) with the clauses of the decisions it asks for, under its `when`;
        a primitive that cannot be written out (or that is not primitives.py's own, as when a
        test wraps it) is called. With `shared`, the locals of its i-th primitive are named
        `_e<i>_...` whatever the event, for events written in branches of which one runs: a
        function clears every local it has at each call, used or not."""
        decisions = {name: cr.clause.src for name, cr in self.decisions.items()}
        lines = []
        pad = " " * indent
        for i, (fn, when) in enumerate(self._flow_steps[event]):
            keywords = {}
            if isinstance(fn, partial):  # keywords from flow.yaml, validated by its schema
                fn, keywords = fn.func, fn.keywords
            inner = " " * (indent + 4 if when is not None else indent)
            body, helpers = self._primitive_source(fn, keywords, f"_{event}{i}_", action,
                                                   decisions if written_out else None,
                                                   f"_e{i}_" if shared else None)
            for name, value in helpers.items():
                if ns.setdefault(name, value) is not value:
                    raise RuntimeError(f"the generated program uses {name} for two things")
            body = [inner + line for line in body]
            lines += ([f"{pad}if {when.src}:"] + body) if when is not None else body
        return lines or [f"{pad}pass"]

    def _primitive_source(self, fn, keywords: dict, prefix: str, action: str, decisions,
                          local_prefix: str | None = None):
        """A call of primitive `fn` as unindented lines and the names they need: its body written
        out where it can be (not without `decisions`), its locals named with `local_prefix` (by
        default `prefix`), else a call of a helper named with `prefix`; shared by the rulesets
        whose decisions it asks for are decided alike."""
        local_prefix = local_prefix or prefix
        fn_name = getattr(fn, "__name__", "")
        own = decisions is not None and getattr(primitives, fn_name, None) is fn
        try:
            asked = tuple(sorted((n, decisions.get(n)) for n in decisions_asked(fn))) if own else ()
        except NotInlinable:
            own, asked = False, ()
        key = ("primitive", fn, own, tuple(sorted(keywords.items())), prefix, local_prefix, action,
               asked)

        def make():
            if own:
                try:
                    return (list(inline_source(fn, key[3], local_prefix, action, asked, PROGRAM)),
                            module_helpers(fn))
                except NotInlinable:
                    pass
            name = f"_do{prefix}" + (fn_name if fn_name.isidentifier() else "call")
            args = f"g, s, {action}" + "".join(f", {k}={v!r}" for k, v in keywords.items())
            return [f"{name}({args})"], {name: fn}
        return self._memo(key, make)

    def _draw_order_lines(self) -> list[str]:
        """(draw_key, seat) of the seats that draw (decision `drawer`), sorted, in one pass."""
        return ["def draw_order(s):"] + ["    " + ln for ln in self._draw_order_body("order")] + [
            "    return order"]

    def _draw_order_body(self, into: str) -> list[str]:
        drawer, key = self.decisions["drawer"].clause.src, self.decisions["draw_key"].clause.src
        return [f"{into} = []", "for seat in range(s.n):",
                f"    if {drawer}: {into}.append(({key}, seat))", f"{into}.sort()"]

    def _draw_order_written(self, lines: list[str]) -> list[str]:
        """`lines` with each `X = draw_order(s)` written out (_draw_order_lines' body, into X):
        in a player count's program its loop over the seats unrolled and the state it reads held
        in the play loop's locals, without a call per bout end."""
        out = []
        for line in lines:
            match = DRAW_ORDER_CALL.match(line)
            if match is None:
                out.append(line)
                continue
            pad, into = match.groups()
            out += [pad + ln for ln in self._draw_order_body(into)]
        return out

    def _order_lines(self, ns: dict) -> list[str]:
        """Of the kinds an order rule governs, keep only the actions of the seats with the lowest
        key (several seats that share it may act in any order)."""
        groups: dict[str, tuple[set, Clause]] = {}
        for kind, cr in self.order.items():
            groups.setdefault(cr.rule.id, (set(), cr.clause))[0].add(kind)
        lines = []
        for i, (kinds, clause) in enumerate(groups.values()):
            ns[f"_K{i}"], ns[f"_O{i}"] = frozenset(kinds), clause.fn
            # the key of each seat, its clause written out where it reads no card: loops, not
            # comprehensions, which would make the state a closure's cell in the whole function
            key = f"_O{i}(s, seat, None, None)" if clause.names & (CARD_NAMES | TARGET_NAMES) \
                else clause.src
            if kinds >= LISTED_FIRST:  # it governs every action listed here, so the actions
                # listed are of two seats or more: no loop to find a second one
                lines = ["                keys = {}",
                         "                for seat in _set(_map(_seat, throws)):",
                         f"                    keys[seat] = {key}",
                         "                low = min(keys.values())",
                         "                kept = []",
                         "                for b in throws:",
                         "                    if keys[b[1]] == low:",
                         "                        kept.append(b)",
                         "                throws = kept"]
                ns.update(_set=set, _map=map, _seat=operator.itemgetter(1))
                break
            lines += ["                one = -1  # the seat of the first action governed, until another seat's",
                      "                for a in throws:",
                      f"                    if a[0] in _K{i}:",
                      "                        if one < 0:",
                      "                            one = a[1]",
                      "                        elif a[1] != one:",
                      "                            keys = {}",
                      "                            for b in throws:",
                      f"                                if b[0] in _K{i} and b[1] not in keys:",
                      "                                    seat = b[1]",
                      f"                                    keys[seat] = {key}",
                      "                            low = min(keys.values())",
                      "                            kept = []",
                      "                            for b in throws:",
                      f"                                if b[0] not in _K{i} or keys[b[1]] == low:",
                      "                                    kept.append(b)",
                      "                            throws = kept",
                      "                            break"]
        if not lines:
            return lines
        # Only the actions of two seats or more need ordering. Those listed are the throw-ins, by
        # the seats `can` marks, then the passes, in seat order (_block_lines visits the seats in
        # order): passes of one seat only begin and end with that seat.
        return ["            _one = throws[0][1]",
                "            if can.count(True) > 1 or throws[-1][1] != _one or len(throws) > _k "
                "and throws[_k][1] != _one:"
                ] + lines

    @staticmethod
    def _fixed_seat(compiler: Compiler, node) -> str | None:
        """Source of E when `node` is 'seat == E' and E does not depend on the seat."""
        if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)
                and isinstance(node.left, ast.Name) and node.left.id == "seat"):
            other = compiler.emit(node.comparators[0])
            if other.type == SEAT and not other.names & ({"seat"} | CARD_NAMES | TARGET_NAMES):
                return other.src
        return None

    def behaviour_key(self) -> tuple:
        """Equal for two rulesets that play every game alike: the generated program, the hand
        size, the decisions and the order keys, with every option folded in (a value of an
        option that no active clause reads changes nothing here); and what a game reads from
        the ruleset besides them: the deck (its cards and copies), who sits in which team at
        each player count (the program asks the state), the player counts, where the turn-up
        lies and whether a card hides under it, which card may show the trump and how many the
        deal hands out. (A match of several deals is compared apart: match.py.)"""
        deck = self.deck
        return (self.source, self.hand_size_src,
                tuple(sorted((n, cr.clause.src) for n, cr in self.decisions.items())),
                tuple(sorted((k, cr.clause.src) for k, cr in self.order.items())),
                tuple(c.text for c in deck.cards), deck.copies, tuple(sorted(self._seating.items())),
                tuple(self.player_limits), self.turn_up_place, self.turn_up_hidden, self._deal_srcs)

    def program_key(self) -> tuple:
        """Equal for two rulesets that generate the same program and hold the same rules of
        play, decisions and flow (not match decisions, not invariants: requested_as), known
        before the program is generated (program=False): what _fuse generates it from, each
        clause as compiled (options folded in) beside its text, which it compiles again."""
        def pieces(crs):
            return tuple((cr.rule.id, cr.rule.clause, cr.rule.key, cr.clause.src, cr.clause.names)
                         for cr in crs)
        deck = self.deck
        return (id(deck), tuple(sorted(self._seating.items())), tuple(self.player_limits),
                tuple(r.id for r in self.active_rules),
                tuple((k, pieces(crs)) for k, crs in self.legality.items()),
                tuple((k, pieces([cr])) for k, cr in self.order.items()),
                tuple((k, pieces([cr])) for k, cr in self.decisions.items()),
                tuple((event, tuple((getattr(fn, "func", fn), repr(getattr(fn, "keywords", None)),
                                     None if when is None else when.src) for fn, when in steps))
                      for event, steps in self._flow_steps.items()),
                tuple((k, tuple((c.index, tuple(f.index for f in fs)) for c, fs in v.items()))
                      for k, v in self.named_forms.items()),
                self.hand_size_src, self._deal_srcs, self.turn_up_place, self.turn_up_hidden)

    def compile_variant_of(self, rule: Rule, text: str) -> Clause:
        """Compile `text` in place of the legality clause of `rule` (an action rule), in this
        ruleset's options: for asking what the rule would allow if its clause said otherwise
        (reference_impl/diagnose.py). Raises SpecError if the text does not check."""
        return self._compile_text(text, rule.file, f"{rule.path}.clause", BOOL,
                                  vocab.action_names(rule.applies_to), ACTION_PARAMS,
                                  what=f"rule {rule.id}")

    def describe_options(self) -> list[tuple[str, object, str]]:
        return [(n, self.options[n], self.option_origins[n]) for n in self.spec.options]


_HOISTED: dict[frozenset, dict] = {}  # keep -> vocab.STATE as _hoisting_compiler rewrites it


def _level(names) -> int:
    """The loop of a legality block where a condition reading `names` is tested: 0 once, 1 per
    seat, 2 per card of the seat's hand, 3 per target or second card."""
    return 3 if names & TARGET_NAMES else 2 if names & CARD_NAMES else 1 if "seat" in names else 0


class _Split:
    """A condition of a legality block whose `and`/`or` operands read less than the condition
    (a throw-in's `taking or table_covered > 0 or multi_card_lead`, tested per card): those
    operands computed once at their own loop into locals named `prefix` (`hoisted`: (level,
    assignment)), and the condition over those locals (`source`); and what must hold at a lower
    loop for the condition to hold at all (`needed`), so that a seat none of whose cards can
    pass it is not visited card by card. Definitions without parameters are looked into.
    Clauses have no side effects: only the time spent changes."""

    def __init__(self, compiler: Compiler, level: int, prefix: str, start: int):
        self.compiler, self.level, self.prefix, self.count = compiler, level, prefix, start
        self.hoisted: list[tuple[int, str]] = []
        self.names: dict[str, tuple[int, str]] = {}  # source hoisted -> (its level, its local)

    def _operands(self, node):
        """The and/or node `node` is (a parameterless definition looked into), its operator
        (" and ", " or ") and operands, each with its Emitted, those whose constant value leaves
        the result to the others dropped; None if it is no such node."""
        defs = self.compiler.env.definitions
        while isinstance(node, ast.Name) and node.id in defs and not defs[node.id].params:
            node = self.compiler.parse(defs[node.id].clause).body
        if not isinstance(node, ast.BoolOp):
            return None
        op = " and " if isinstance(node.op, ast.And) else " or "
        parts = []
        for value in node.values:
            em = self.compiler.emit(value)
            if em.const:
                if bool(em.value) == (op == " and "):
                    continue  # true in an and, false in an or
                return None  # it decides the whole, which the compiler folds itself
            parts.append((value, em))
        return (op, parts) if parts else None

    def source(self, node) -> str:
        split = self._operands(node)
        if split is None:
            return self.compiler.emit(node).src
        op, parts = split
        low = [em for _, em in parts if _level(em.names) < self.level]
        out = []
        if low:
            at, src = max(_level(em.names) for em in low), op.join(f"({em.src})" for em in low)
            name = f"{self.prefix}{self.count}"
            self.count += 1
            self.hoisted.append((at, f"{name} = {src}"))
            self.names[src] = (at, name)
            out.append(name)
        out += [f"({self.source(value)})" for value, em in parts if _level(em.names) >= self.level]
        return op.join(out)

    def needed(self, node) -> tuple[int, str] | None:
        """(level, source) of a condition of a lower level that holds wherever `node` does (after
        `source(node)`: it reads the locals hoisted to a level below its own)."""
        found = self._needed(node)
        if found is None:
            return None
        at = max(level for level, _ in found[1])
        return at, found[0].join(f"({self._read(level, src, at)})" for level, src in found[1])

    def _read(self, level: int, src: str, at: int) -> str:
        hoisted = self.names.get(src)
        return hoisted[1] if hoisted is not None and hoisted[0] < at else src

    def _needed(self, node):
        """(operator, [(level, source)]): alternatives or conjuncts of lower levels, or None."""
        split = self._operands(node)
        if split is None:
            return None
        op, parts = split
        low = [em for _, em in parts if _level(em.names) < self.level]
        joined = [(max(_level(em.names) for em in low), op.join(f"({em.src})" for em in low))] \
            if low else []
        if op == " and ":
            return (op, joined) if joined else None
        for value, em in parts:
            if _level(em.names) >= self.level:
                inner = self.needed(value)
                if inner is None:
                    return None
                joined.append(inner)
        return op, joined


# What a condition tabulated over the cards of the deck may be made of: nothing that can raise,
# nothing that reads the state but the `_v_` values settle read before (see _tabulable).
_TABULABLE = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Compare,
              ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is,
              ast.IsNot, ast.Name, ast.Load, ast.Constant, ast.Tuple, ast.Attribute, ast.IfExp)
_SCALARS = {INT, BOOL, SEAT, RANK, SUIT, COLOUR, KIND}
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _tabulable(src: str, cards=("card", "target"), not_none=frozenset()) -> list[str] | None:
    """The `_v_` locals a condition of a card and a target reads, when it reads nothing else but
    the attributes of the two (and constants), so that its value for every pair can be kept in a
    table by the target's index and those values (a cover's 'beats': the card's suit and rank
    against the target's and the trump suit); None when it reads anything else or may raise.
    `cards`: the card names it may read; `not_none`: the `_v_` locals that may be None in general
    but are known not to be where the condition is tested (an earlier test says so)."""
    if src == "True":
        return None
    values = set()
    for node in ast.walk(ast.parse(src, mode="eval")):
        if not isinstance(node, _TABULABLE):
            return None
        if isinstance(node, ast.Compare) and any(isinstance(op, _ORDERING) for op in node.ops) \
                and any(isinstance(x, ast.Name) and x.id.startswith("_v_") and x.id not in not_none
                        and x.id[3:] in vocab.STATE and vocab.STATE[x.id[3:]].type.endswith("?")
                        for x in [node.left] + node.comparators):
            return None  # None < 1 raises: a value that may be None is only compared for equality
        if isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if not (isinstance(root, ast.Name) and root.id in cards):
                return None
        elif isinstance(node, ast.Name) and node.id not in cards:
            name = node.id[3:] if node.id.startswith("_v_") else None
            entry = vocab.STATE.get(name) if name else None
            if entry is None or entry.args is not None or entry.type.rstrip("?") not in _SCALARS:
                return None
            values.add(node.id)
    return sorted(values)


def _card_tests(levels: list[list[str]]) -> tuple[str, list[str]] | None:
    """The first tests of each card of a legality block (`levels[2]`, split at its `and`s) that
    read the card and scalar values of the state only and cannot raise (see _tabulable), as one
    condition, and the `_v_` locals it reads; those tests dropped from `levels[2]`. The block
    keeps the set of the cards that pass them by those values (`_TC_<kind>`): a card not in it is
    not tested further, a hand that holds none is not walked, and with none no seat is visited.
    Only the first ones: a later test could raise where an earlier one fails. None if none is."""
    if not levels[2]:
        return None
    true: set = set()
    for src in levels[0] + levels[1]:
        _facts(ast.parse(src, mode="eval").body, true, set())
    operands = []
    for src in levels[2]:
        body = ast.parse(src, mode="eval").body
        parts = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) else [body]
        operands += [ast.unparse(part) for part in parts]
    not_none = {name for name in vocab.STATE if ast.dump(ast.parse(
        f"_v_{name} is not None", mode="eval").body) in true}
    tests, values = [], set()
    for src in operands:
        read = _tabulable(src, ("card",), {f"_v_{n}" for n in not_none})
        if read is None or not read:  # a test of the card alone is as cheap as a look in a set
            break
        tests.append(src)
        values |= set(read)
    if not tests:
        return None
    levels[2][:] = operands[len(tests):]
    return " and ".join(f"({t})" for t in tests), sorted(values)


_FLIPPED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}


class _Least(ast.NodeTransformer):
    """A card's test whether some card of a collection of the state ranks below it (or above),
    `any(A(c) and c.rank < card.rank for c in C)` where neither A nor C reads the card, as a test
    against the lowest rank (the highest) of the cards of C that pass A, found once per settle
    into a local named `prefix`N (set to `_UNSET` before the block's loops) the first time a card
    is tested: `m is not None and m < card.rank`. The same truth for every card; A must be one
    that cannot raise (see _tabulable), as it is now tested for every card of C up to the end."""

    def __init__(self, prefix: str):
        self.prefix, self.names = prefix, []

    def rewritten(self, src: str) -> str:
        tree = ast.parse(src, mode="eval")
        before = len(self.names)
        tree = self.visit(tree)
        return src if len(self.names) == before else ast.unparse(ast.fix_missing_locations(tree))

    def visit_Call(self, node):
        node = self.generic_visit(node)
        found = _least_of(node)
        if found is None:
            return node
        var, iterable, others, op, outer = found
        name = f"{self.prefix}{len(self.names)}"
        self.names.append(name)
        least = "max" if isinstance(op, (ast.Gt, ast.GtE)) else "min"
        test = f" if {' and '.join(f'({ast.unparse(o)})' for o in others)}" if others else ""
        src = (f"(({name} if {name} is not _UNSET else ({name} := {least}(({var}.rank for {var} in "
               f"{ast.unparse(iterable)}{test}), default=None))) is not None and "
               f"{name} {CMP_OPS[type(op)]} {ast.unparse(outer)})")
        return ast.copy_location(ast.parse(src, mode="eval").body, node)


def _least_of(node):
    """(variable, iterable, other tests, attribute, operator, the card's side) of `node` when it
    is `any(... and c.A OP card.A for c in C)` as _Least rewrites it, else None."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "any" and len(node.args) == 1
            and not node.keywords and isinstance(node.args[0], ast.GeneratorExp)):
        return None
    gen = node.args[0]
    if len(gen.generators) != 1:
        return None
    comp = gen.generators[0]
    if comp.ifs or comp.is_async or not isinstance(comp.target, ast.Name):
        return None
    var = comp.target.id
    elt = gen.elt
    parts = elt.values if isinstance(elt, ast.BoolOp) and isinstance(elt.op, ast.And) else [elt]
    last, others = parts[-1], parts[:-1]
    if not (isinstance(last, ast.Compare) and len(last.ops) == 1 and type(last.ops[0]) in _FLIPPED):
        return None
    left, right, op = last.left, last.comparators[0], last.ops[0]

    def of(side, name):
        return isinstance(side, ast.Attribute) and side.attr == "rank" \
            and isinstance(side.value, ast.Name) and side.value.id == name

    if of(left, var) and of(right, "card"):
        outer = right
    elif of(right, var) and of(left, "card"):
        op, outer = _FLIPPED[type(op)](), left
    else:
        return None
    reads = {n.id for n in ast.walk(comp.iter) if isinstance(n, ast.Name)}
    if "card" in reads or var in reads:
        return None
    for other in others:  # tests of the collection's card and the state's values alone
        if _tabulable(ast.unparse(other), (var,)) is None:
            return None
    return var, comp.iter, others, op, outer


class _Given(ast.NodeTransformer):
    """A condition with each comparison (or its negation) that an earlier condition of the same
    test states made True (or False), and what that folds: `seat != defender and not (seat !=
    defender and teammate)` tests `seat != defender` once. Comprehensions and lambdas, whose
    names may be bound anew, are left as they are. Clauses have no side effects."""

    def __init__(self, true: set, false: set):
        self.true, self.false = true, false

    def visit(self, node):
        if isinstance(node, _SCOPES):
            return node
        if isinstance(node, (ast.Compare, ast.UnaryOp)):
            key = ast.dump(node)
            if key in self.true or key in self.false:
                return ast.copy_location(ast.Constant(key in self.true), node)
        node = self.generic_visit(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) \
                and isinstance(node.operand, ast.Constant):
            return ast.copy_location(ast.Constant(not node.operand.value), node)
        if isinstance(node, ast.BoolOp):
            keep = ast.And if isinstance(node.op, ast.And) else ast.Or
            drop = isinstance(node.op, ast.And)  # the operand value an and (or) passes over
            values = [v for v in node.values
                      if not (isinstance(v, ast.Constant) and v.value is drop)]
            if isinstance(node.op, ast.Or) and values and isinstance(values[0], ast.Constant) \
                    and values[0].value is True:
                return ast.copy_location(ast.Constant(True), node)
            if not values:
                return ast.copy_location(ast.Constant(drop), node)
            if len(values) == 1:
                return values[0]
            node = ast.copy_location(ast.BoolOp(keep(), values), node)
        return node


def _facts(node, true: set, false: set) -> None:
    """What a condition that holds says of the comparisons in it: itself, its `and` operands,
    and the operand of a `not` false."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        for value in node.values:
            _facts(value, true, false)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        if isinstance(node.operand, (ast.Compare, ast.UnaryOp)):
            false.add(ast.dump(node.operand))
        true.add(ast.dump(node))
    elif isinstance(node, ast.Compare):
        true.add(ast.dump(node))


def _given_earlier(levels: list[list[str]]) -> None:
    """Each condition of a legality block (by level, in the order they are tested) with what
    the conditions tested before it state folded in (see _Given); one that they make true
    dropped. A condition is rewritten (ast.unparse) only where something folds."""
    true: set = set()
    false: set = set()
    for conditions in levels:
        kept = []
        for src in conditions:
            tree = ast.parse(src, mode="eval")
            body = _Given(true, false).visit(tree.body)
            if isinstance(body, ast.Constant) and body.value is True:
                continue
            if ast.dump(body) != ast.dump(ast.parse(src, mode="eval").body):
                src = ast.unparse(ast.fix_missing_locations(body))
            kept.append(src)
            _facts(body, true, false)
        conditions[:] = kept


def _loops(src: str) -> int:
    """How many loops (aggregates over seats or cards) the source of a condition runs: the
    generated program tests its conditions of one level in that order, the cheap ones first
    (clauses have no side effects, so only the time spent changes)."""
    return sum(isinstance(node, ast.comprehension) for node in ast.walk(ast.parse(src, mode="eval")))


def _seats_kept(src: str) -> str:
    """The generated program with its loops over the seats (`range(s.n)`, of its blocks, its
    primitives and its clauses) over a tuple of the seats made once per player count: a range
    is an object made anew at each loop."""
    return SEATS_RANGE.sub("_SEATS[s.n]", src)


_SCOPES = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.Lambda)


RETURN = re.compile(r"^( *)return (.*)$")


# Random.choice's draw of an index below n (random.py, Random._randbelow_with_getrandbits), as the
# play loop writes it out when its chooser is an exact random.Random's `choice` (random_bits): the
# same numbers taken from the same stream, without two calls of Python functions per step.
DRAW = ("_n = len(_legal)", "_k = _n.bit_length()", "_r = _bits(_k)", "while _r >= _n:",
        "    _r = _bits(_k)", "a = _legal[_r]")
DRAW_CHECKED = (1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 100, 1000)  # list lengths, 40 draws each


def _draw_function(lines=DRAW):
    """`lines` as a function (_legal, _bits) -> the item they draw into `a`."""
    ns: dict = {}
    exec("\n".join(["def draw(_legal, _bits):"] + ["    " + line for line in lines]
                   + ["    return a"]), ns)
    return ns["draw"]


# An item of a list drawn as the play loop draws it (DRAW), with a random.Random's getrandbits:
# the lockstep's planner draws with it where draws_like_choice() holds
draw = _draw_function()


def draw_agrees(lines=DRAW) -> bool:
    """Whether `lines`, an index drawn from `_bits` into `a`, pick the actions Random.choice picks
    and leave the generator where it leaves it, over seeded draws from lists of DRAW_CHECKED
    lengths (a Python whose random module draws otherwise makes this false)."""
    try:
        drawn = _draw_function(lines)
        for n in DRAW_CHECKED:
            listed = list(range(n))
            ours, theirs = random.Random(n), random.Random(n)
            for _ in range(40):
                if drawn(listed, ours.getrandbits) != theirs.choice(listed):
                    return False
            if ours.getstate() != theirs.getstate():
                return False
    except Exception:  # a draw that fails (an index past the list) draws otherwise too
        return False
    return True


_DRAW_AGREES: list[bool] = []  # draw_agrees() of DRAW, once per process


def random_bits(choose):
    """The `getrandbits` of the random.Random whose bound `choice` `choose` is, for the play
    loop to draw as that choice does (DRAW), when it is an exact random.Random's and DRAW picks
    as Random.choice in this process (checked once); None otherwise (the loop calls `choose`)."""
    if getattr(choose, "__func__", None) is not random.Random.choice \
            or type(choose.__self__) is not random.Random:
        return None
    return choose.__self__.getrandbits if draws_like_choice() else None


def draws_like_choice() -> bool:
    """draw_agrees() of DRAW, checked once per process: whether an index drawn as DRAW draws it
    (here and in the lockstep's planner) is the one Random.choice picks."""
    if not _DRAW_AGREES:
        _DRAW_AGREES.append(draw_agrees())
    return _DRAW_AGREES[0]


def _play_lines(step: list[str]) -> list[str]:
    """`play(g, s, legal, choose, limit, bits)`: what Game.play_out does with `step`, in one
    function: while some action is legal and fewer than `limit` steps are played, the action
    `choose` picks (drawn with `bits` as DRAW, when random_bits gave it), applied, and the
    actions legal after it; it returns those. Step's body in a loop,
    each of its returns (settle's, of the loop that settles) a `break` out of that loop: a call
    of step clears its many locals at each step. Where it fails it leaves the actions legal
    before the failing step in `g._legal`, as the loop of play_out did."""
    body = []
    for line in step[1:]:
        match = RETURN.match(line)
        if match:
            line = f"{match.group(1)}_legal = {match.group(2)}; break"
        body.append("        " + line)
    return ["def play(g, s, _legal, _choose, _limit, _bits=None):", "    try:",
            "        while _legal and s.steps < _limit:", "            if _bits is None:",
            "                a = _choose(_legal)", "            else:"] + [
            "                " + line for line in DRAW] + body + [
            "    except:  # noqa: E722 - any failure: the caller names it", "        g._legal = _legal",
            "        raise",
            "    return _legal"]


def _bout_end_block(cond: str, body: list[str]) -> list[str]:
    """settle's lines for one bout end: when `cond` holds, its event (`body`), counted against
    _MAX_SETTLE, then settling starts over."""
    return [f"        if {cond}:"] + body + ["            ends += 1", "            if ends >= _MAX_SETTLE:",
                                            "                _unsettled()", "            continue"]


def _prelude(names) -> list[str]:
    """Each state value the clauses use, and each container they index, read once per call."""
    return [f"    {_local(n)} = {_code(n)}" for n in sorted(names)]


def _state_value(name: str) -> bool:
    """Whether `name` is a value read from the state alone (a parameterless one of vocab.STATE,
    or one of STATE_ITERABLES), which the generated program reads once into its `_v_` local."""
    return name in STATE_ITERABLES or name in vocab.STATE and vocab.STATE[name].args is None


def _code(name: str) -> str:
    """The source that reads a `_c_` container or a `_v_` state value's name."""
    if name.startswith("_c_"):
        return f"s.{name[3:]}"
    return "[]" if name in STATE_ITERABLES else vocab.STATE[name].code  # [], see lazy_iterable


def _local(name: str) -> str:
    return name if name.startswith("_c_") else f"_v_{name}"


def _inlined(src: str, names) -> str:
    """`src` reading each of `names` from the state where it uses it."""
    for n in names:
        if n in STATE_ITERABLES:
            src = src.replace(lazy_iterable(n), f"({STATE_ITERABLES[n][1]})")
        src = re.sub(rf"\b{_local(n)}\b", lambda _, n=n: f"({_code(n)})", src)
    return src


def _localized(lines: list[str], names) -> list[str]:
    """A block (see Ruleset._block_lines) that reads `names` itself: in its condition, and once
    at the start of its body for the loops."""
    if not lines or not names:
        return lines
    body = "\n".join(lines[2:])
    used = [n for n in sorted(names) if re.search(rf"\b{_local(n)}\b", body)]
    head = re.match(r"^( *if )(.*)(:)$", lines[1])
    tree = ast.parse(head.group(2), mode="eval") if head else None
    kept = []  # read by the condition where it is surely evaluated: assigned there
    for n in used:
        if n not in STATE_ITERABLES and tree is not None and _assigned_where_read(tree, _local(n)):
            kept.append(n)
    cond = _inlined(lines[1], [n for n in names if n not in kept])
    if kept:
        tree = ast.parse(re.match(r"^( *if )(.*)(:)$", cond).group(2), mode="eval")
        for n in kept:
            _assigned_where_read(tree, _local(n), _code(n))
        cond = head.group(1) + ast.unparse(tree) + ":"
    reads = [f"        {_local(n)} = {_code(n)}" for n in used if n not in kept]
    return lines[:1] + [cond] + reads + lines[2:]


def _surely_read(node, local: str):
    """The Name node reading `local` that evaluating `node` surely evaluates (not one an and/or,
    a conditional expression or a later link of a chained comparison may pass over, nor one in
    a comprehension), or None."""
    if isinstance(node, ast.Name):
        return node if node.id == local else None
    if isinstance(node, ast.Compare):
        parts = [node.left, node.comparators[0]]
    elif isinstance(node, ast.BinOp):
        parts = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        parts = [node.operand]
    elif isinstance(node, ast.BoolOp):
        parts = [node.values[0]]
    elif isinstance(node, (ast.Attribute, ast.Subscript)):
        parts = [node.value]
    else:
        return None
    for part in parts:
        found = _surely_read(part, local)
        if found is not None:
            return found
    return None


def _assigned_where_read(tree: ast.Expression, local: str, code: str | None = None) -> bool:
    """Whether the first operand of the condition `tree` (its top-level `and`'s) that reads
    `local` surely reads it (_surely_read): then a block whose condition holds has read it
    there. With `code`, that read becomes `(local := code)` and every other read of the
    operand `code` (the later operands read the local)."""
    body = tree.body
    operands = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) else [body]
    for operand in operands:
        if not any(isinstance(x, ast.Name) and x.id == local for x in ast.walk(operand)):
            continue
        sure = _surely_read(operand, local)
        if sure is None or code is None:
            return sure is not None
        inside = {id(x) for x in ast.walk(operand)}
        for node in ast.walk(tree):  # the tree: the operand may be the read itself
            for field, value in ast.iter_fields(node):
                if isinstance(value, ast.Name) and value.id == local and id(value) in inside:
                    new = ast.parse(code, mode="eval").body
                    if value is sure:
                        new = ast.NamedExpr(ast.Name(local, ast.Store()), new)
                    setattr(node, field, new)
                elif isinstance(value, list):
                    for i, item in enumerate(value):
                        if isinstance(item, ast.Name) and item.id == local and id(item) in inside:
                            new = ast.parse(code, mode="eval").body
                            value[i] = ast.NamedExpr(ast.Name(local, ast.Store()), new) \
                                if item is sure else new
        ast.fix_missing_locations(tree)
        return True
    return False


def _container_local(match: re.Match) -> str:
    name = match.group(1)
    return match.group(0) if name in SET_BY_SETTLE else f"_c_{name}["


def _indented(lines: list[str], by: int) -> list[str]:
    return [" " * by + line for line in lines]


def resolve_options(spec: Spec, preset: str, overrides: dict) -> tuple[dict, dict]:
    """The option values of a preset with overrides, and where each comes from (default,
    preset NAME, override); overrides are checked against their options' values."""
    if preset not in spec.presets:
        raise SpecError(f"unknown preset {preset!r}.{suggest(preset, spec.presets)} "
                        f"Presets: {', '.join(spec.presets)}")
    chain, p = [], preset
    while p is not None:
        if p in chain:
            raise SpecError(f"presets extend each other in a cycle: {' -> '.join(chain + [p])}",
                            path=f"presets.{p}.extends")
        chain.append(p)
        p = spec.presets[p].get("extends")
    values = {n: o.default for n, o in spec.options.items()}
    origins = {n: "default" for n in spec.options}
    for p in reversed(chain):
        for n, v in spec.presets[p]["options"].items():
            values[n], origins[n] = v, f"preset {p}"
    for n, v in overrides.items():
        check_option_value(spec, n, v, None, f"--option {n}")
        values[n], origins[n] = v, "override"
    return values, origins
