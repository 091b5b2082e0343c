"""Rule attribution: the ONE rule that decides a difference between an engine and the reference.

Every consumer that compares an engine with the reference (the conformance runner, the fuzzer,
replay of game logs) describes what the engine did as a list of `Observation`s, one per step sent
to it (the action, whether the engine accepted it, and its state and legal set where they were
asked for), the last one being where it differs. `diagnose(ruleset, setup, observations)` replays
them on the reference and answers with a `Diagnosis`:

- `rule`: the rule whose clause, evaluated at that step, would have to change for the reference
  to do what the engine did.
  - An action the engine accepts or lists that the reference forbids: the rule that forbids it
    (`Game.explain`; every forbidding rule under `also`).
  - An action the reference allows that the engine rejects or leaves out: the legality rule whose
    clause, changed at one place (a comparison made strict or loose, a sub-expression made true or
    false, definitions inlined), turns the reference's legal set into the engine's with the fewest
    other changes; smaller changes win ties.
  - The bout ends on one side only: the engine ends it while the reference still lets someone add
    a card, so the rule that stops those cards in the engine decides (as above); the reference
    ends it and the engine lets cards be added, so the rule that forbids them decides; otherwise
    the bout-end rule.
  - A state field that differs: the rule that decides that field at that step (the draw:
    `draw.who` or `draw.order` by what differs; the next attacker: `rotation.*`; the table after a
    transfer: `transfer.effect`; the first attacker: the start rule; ...), or the rule that last
    decided it when the difference is older than the step. Roles come first: an engine with the
    wrong attacker lists wrong attacks, and that is the rotation's fault, not the attack rule's.
- `as_if`: variants under which the reference reproduces the engine: each option's values alone,
  then pairs of the options that change the failing step at all, at most SEARCH_LIMIT variants
  (a count, so a report is the same on a loaded machine as on an idle one; the seconds of
  `budget` only stop a search that is pathologically slow). Values
  that change no compiled clause (`Ruleset.behaviour_key`) are not replayed; rulesets are
  compiled once per process.

`legal_differences(game, engine_legal)` splits a legal-set difference by the kinds of action that
differ and names a rule for each part, so two broken rules showing in one legal set are named
apart; `edge_rule(game, action)` names the rule at whose edge an allowed action sits, for a
refusal no one-place change explains.

`Diagnosis.message()` says either "your engine plays as if `X = Y`: declare it as a house rule" or
"no option explains this: rule R".
"""

from __future__ import annotations

import ast
import copy
import re
import time
import weakref
from collections import Counter, OrderedDict
from dataclasses import asdict, dataclass, field
from itertools import permutations

from .errors import DurakError, NotationError, SpecError
from .game import Game, Setup
from .model import options_read, rule_options, value_text
from .notation import action_text, comparable_field, parse_action, protocol_state
from .observation import Observation
from .primitives import PRIMITIVES
from .ruleset import Ruleset, resolve_options
from .state import Action, State
from .vocab import ACTION_KINDS, ACTIONS, CARD_KINDS

ROLE_FIELDS = ("attacker", "defender", "taking")
ROLE_INPUTS = {"attacker", "defender"}
WORDS = re.compile(r"\b[a-z_]+\b")
ADDING = ("throw", "pass")  # what an engine that ends a bout early no longer allows
# The rule each action kind's own effect falls under when a field differs right after it.
EFFECT_RULES = {"attack": "attack.opener", "throw": "throw_in.rank", "cover": "defence.beat",
                "take": "defence.take", "pass": "bout.pass"}
ACTION_EFFECTS = {a["effect"] for a in ACTIONS.values() if a.get("effect")}  # spec's own effect rules
EFFECT_RULES.update({k: a["effect"] for k, a in ACTIONS.items() if a.get("effect")})
MOVES_ROLES = {k for k, a in ACTIONS.items() if a.get("moves_roles")}  # transfer, show
# When one step changes several fields, the earliest stage that differs is the cause:
STAGE = {"older": 0, "effect": 1, "bout_end": 2, "draw": 3, "out": 4, "game_over": 5, "fool": 6,
         "attacker": 7, "defender": 8}


@dataclass
class Diagnosis:
    rule: str | None
    check: str = ""          # verdict, legal or state.<field>
    why: str = ""
    also: list = field(default_factory=list)
    step: int | None = None  # index in the observations
    as_if: list = field(default_factory=list)  # [{option: value, ...}] reproducing the engine
    partly: list = field(default_factory=list)  # variants reproducing only the failing check
    searched: int = 0        # variants replayed by the counterfactual search
    alternatives: list = field(default_factory=list)  # other rules that explain it as well
    larger: list = field(default_factory=list)  # ... as well by a larger change
    involved: list = field(default_factory=list, repr=False)  # rules consulted at the step
    older: bool = field(default=False, repr=False)  # the difference is older than the step
    local: bool = False      # named by one player's record kept otherwise (a pass), not by a
    # change of the rule's clause: it fits this step, and what the engine did before tests it not
    besides: list = field(default_factory=list)  # other rules the same observation breaks as
    # well, each a difference of its own (a draw of other counts, dealt in another order)
    # the one-place change of a clause that turns the reference's legal set into the engine's,
    # where one does: [rule id, the clause's text so changed] (for a replay under it: fuzz)
    change: list = field(default_factory=list, repr=False)

    def message(self) -> str:
        if self.as_if:
            variants = [" and ".join(f"`{k} = {value_text(v)}`" for k, v in change.items())
                        for change in self.as_if[:3]]
            more = f" (or as if {' or '.join(variants[1:])})" if len(variants) > 1 else ""
            return f"your engine plays as if {variants[0]}{more}: declare it as a house rule"
        if self.rule:
            return f"no option explains this: rule {self.rule}"
        return "no rule of the reference decides this difference"

    def to_json(self) -> dict:
        out = asdict(self)
        out.pop("involved")
        out.pop("older")
        out.pop("change")
        out["message"] = self.message()
        return out


# -- rulesets, compiled once ---------------------------------------------------------------------

# Variants kept, the least recently asked for dropped first: a check's diagnoses ask for a few
# thousand (durak check of a broken engine: about 3,400 for 2,700 programs, each asked for about
# 2.6 times, far apart), and each kept keeps its program, about 0.1 MB, fewer when they share.
_CACHE_LIMIT = 2048
_RULESETS: OrderedDict = OrderedDict()  # (spec, preset, option values, primitives) -> (variant,
# the ruleset whose program it shares)
_PROGRAMS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # (spec, preset,
# primitives, Ruleset.program_key) -> the ruleset with that program, while a kept variant shares it


def variant_ruleset(spec, preset: str, options: dict) -> Ruleset:
    """The ruleset of `preset` with `options`, compiled once per process. Its program (the
    costly part: Ruleset._fuse) is generated once for every variant that compiles its rules alike
    (Ruleset.program_key: values of options that the clauses read but fold to the same code
    change nothing), the variant sharing it (Ruleset.requested_as)."""
    prims = tuple(map(id, PRIMITIVES.values()))  # a primitive replaced (a test's recorder) compiles anew
    key = (id(spec), preset, tuple(sorted((k, repr(v)) for k, v in options.items())), prims)
    kept = _RULESETS.get(key)
    if kept is not None and kept[0].spec is spec:
        _RULESETS.move_to_end(key)
        return kept[0]
    values, origins = resolve_options(spec, preset, options)
    rs = Ruleset(spec, preset, options, (values, origins), program=False)
    program = (id(spec), preset, prims, rs.program_key())
    base = _PROGRAMS.get(program)
    if base is not None and base.spec is spec:
        rs = base.requested_as(options, origins, rs)
    else:
        base = _PROGRAMS[program] = rs.with_program()
    _RULESETS[key] = (rs, base)
    while len(_RULESETS) > _CACHE_LIMIT:
        _RULESETS.popitem(last=False)
    return rs


def _setup(ruleset: Ruleset, setup) -> Setup:
    if isinstance(setup, Setup):
        return setup
    return Setup.from_json(setup, ruleset.deck, ruleset.player_limits)


# -- replaying observations ----------------------------------------------------------------------

@dataclass
class _Point:
    """The reference at the last observation: before and after the step, and what it says."""

    before: Game
    after: Game
    action: Action | None
    legal: bool                 # the reference accepts the step (True at the start)
    provenance: dict            # field -> rule id that last decided it, before this step
    stages: dict                # field -> (stage, rule) this step decided, on the reference
    history: list = field(default_factory=list)  # [(State, Action)] the engine allowed before,
    # and the reference too (the steps it accepted, the actions it listed as legal)


class Inconsistent(Exception):
    """The reference does not do what the engine was observed to do before the last step."""


def _initial_provenance(game: Game, setup: Setup) -> dict:
    rs = game.ruleset
    prov = {"hands": "deck.deal", "hand_sizes": "deck.deal", "talon_count": "deck.deal"}
    if setup.attacker is None:
        prov["attacker"] = rs.decisions["first_attacker"].rule.id
    if setup.defender is None:
        prov["defender"] = rs.decisions["first_defender"].rule.id
    return prov


def _stages(rs: Ruleset, had_table: bool, beaten_before: int, talon_before: int, after,
            action: Action) -> dict:
    """field -> (stage, rule) for what the reference decided at this step."""
    effect = EFFECT_RULES.get(action.kind)
    out = {f: (STAGE["effect"], effect) for f in ("table", "hands", "hand_sizes", "taking")}
    if action.kind in MOVES_ROLES:
        out["attacker"] = out["defender"] = (STAGE["effect"], effect)
    if had_table and not after.table:
        beaten = after.beaten_bouts > beaten_before
        end_rule = rs.decisions["bout_beaten_off" if beaten else "bout_taken"].rule.id
        for f in ("table", "discard_count", "taking", "hands", "hand_sizes"):
            out[f] = (STAGE["bout_end"], end_rule)
        if not beaten and _partial_pickup(rs):  # who holds what is then the pickup rule's
            for f in ("hands", "hand_sizes"):
                out[f] = (STAGE["bout_end"], rs.decisions["pickup_count"].rule.id)
        if len(after.talon) != talon_before:
            for f in ("hands", "hand_sizes", "talon_count"):
                out[f] = (STAGE["draw"], "draw")
        out["out"] = (STAGE["out"], rs.decisions["out"].rule.id)
        out["finished"] = (STAGE["game_over"], rs.decisions["game_over"].rule.id)
        out["fool"] = (STAGE["fool"], rs.decisions["fool"].rule.id)
        if not after.finished:
            name = "next_attacker_after_beaten_off" if beaten else "next_attacker_after_take"
            out["attacker"] = (STAGE["attacker"], rs.decisions[name].rule.id)
            out["defender"] = (STAGE["defender"], rs.decisions["next_defender"].rule.id)
    return out


def _partial_pickup(rs: Ruleset) -> bool:
    """Whether a taking defender may pick up fewer than every attack card (decision pickup_count)."""
    whole = rs.shared(("whole table",), ("table_attack_count",), lambda: rs.compile_clause(
        "table_attack_count", "int", "every attack card").src)
    return rs.decisions["pickup_count"].clause.src != whole


def _remember(prov: dict, stages: dict, talon_before: list, after) -> None:
    """Record which rule decided each field at this step. An action's own effect on the hands and
    the table is no decision worth remembering; a draw is, with the talon it dealt from."""
    for f, (stage, rule) in stages.items():
        if rule is None or stage == STAGE["effect"] and f in ("hands", "hand_sizes", "talon_count",
                                                                "table", "taking"):
            continue
        prov[f] = rule
    if len(after.talon) != len(talon_before):
        prov["_drawn_from"] = frozenset(c.text for c in talon_before)  # the talon the draw dealt from


def _listed(game: Game, obs: Observation, history: list) -> None:
    """Add to `history` the actions the engine listed as legal at an observation before the last
    one that the reference allows there too (one copy of the state for them all)."""
    if obs.legal is None or game.state.finished:
        return
    texts = _texts(obs.legal)
    agreed = [a for a in game.legal_actions() if action_text(a) in texts]
    if agreed:
        state = game.state.clone()
        history += [(state, a) for a in agreed]


_CHECKPOINTS: dict = {}  # id(ruleset) -> (ruleset, setup, observations, game, provenance, history)


def _keep(rs: Ruleset, setup: Setup, observations: list, game: Game, prov: dict, history: list) -> None:
    """Keep the replay before the last observation: the differences of one case run are
    attributed one after the other, each on a longer prefix of the same observations, and the
    next replay resumes here instead of from the deal (_resume)."""
    if len(_CHECKPOINTS) >= 8:
        _CHECKPOINTS.clear()
    _CHECKPOINTS[id(rs)] = (rs, setup, observations[:-1], game.clone(), dict(prov), list(history))


def _resume(rs: Ruleset, setup: Setup, observations: list):
    """(index, game, provenance, history) of the kept replay of the same ruleset and setup whose
    observations (the same objects) begin these, before their last one; None if there is none."""
    kept = _CHECKPOINTS.get(id(rs))
    if kept is None or kept[0] is not rs or len(kept[2]) >= len(observations) or \
            any(a is not b for a, b in zip(kept[2], observations)) or kept[1] != setup:
        return None
    return len(kept[2]), kept[3].clone(), dict(kept[4]), list(kept[5])


def _replay(rs: Ruleset, setup: Setup, observations: list[Observation], check_earlier: bool) -> _Point:
    """Replay the observations on the reference and return the point of the last one. A step the
    reference forbids is not applied (the engine is taken to have rejected it). With
    `check_earlier`, raise Inconsistent as soon as the reference does not do what the engine was
    observed to do before the last step."""
    last = len(observations) - 1
    resumed = None if check_earlier else _resume(rs, setup, observations)
    if resumed is None:
        game = Game(rs, setup)
        prov = _initial_provenance(game, setup)
        history: list = []  # what the engine allowed before the last step, where the reference did
        start = 0
    else:
        start, game, prov, history = resumed
    for i, obs in enumerate(observations[start:], start):
        if i == last and not check_earlier and i > 0:
            _keep(rs, setup, observations, game, prov, history)
        if obs.action is None:
            if i == last:
                return _Point(game, game, None, True, dict(prov), {}, history)
            if not check_earlier:
                _listed(game, obs, history)
            if check_earlier and not _consistent(game, True, None, obs):
                raise Inconsistent(i)
            continue
        action = parse_action(obs.action, rs.deck, game.state.n)
        legal = action in game.legal_actions()
        if i == last:
            before = game.clone()
            if not legal:
                return _Point(before, before, action, False, dict(prov), {}, history)
            s = game.state
            had, beaten, talon = bool(s.table), s.beaten_bouts, len(s.talon)
            game.apply_action(action)
            return _Point(before, game, action, True, dict(prov),
                          _stages(rs, had, beaten, talon, game.state, action), history)
        if check_earlier and obs.accepted is not None and obs.accepted != legal:
            raise Inconsistent(i)
        if not legal:
            continue
        s = game.state
        had, beaten, talon = bool(s.table), s.beaten_bouts, list(s.talon)
        pre = None if check_earlier else game.clone()
        if pre is not None and obs.accepted is not False:
            history.append((pre.state, action))
        table = [c.real.text for pair in s.table for c in pair if c is not None]
        game.apply_action(action)
        if not check_earlier:
            _listed(game, obs, history)
        stages = _stages(rs, had, beaten, len(talon), game.state, action)
        _remember(prov, stages, talon, game.state)
        moved = prov["_cards"] = dict(prov.get("_cards", {}))  # card -> the rule that last moved it
        if action.card is not None:
            moved[action.card.real.text] = EFFECT_RULES.get(action.kind)
        if had and not game.state.table:
            moved.update(dict.fromkeys(table, stages["table"][1]))
        if len(game.state.talon) < len(talon):  # a draw: each card it dealt, and its talon
            dealt = [c.text for c in talon[:len(talon) - len(game.state.talon)]]
            moved.update(dict.fromkeys(dealt, "draw"))
            prov["_draw_talon"] = {**prov.get("_draw_talon", {}),
                                   **dict.fromkeys(dealt, frozenset(c.text for c in talon))}
        if pre is not None and had and not game.state.table:
            prov["_pre_end"] = (pre, action)  # the last bout end, for what the engine still allows
        if check_earlier and not _consistent(game, True, action, obs):
            raise Inconsistent(i)
    raise ValueError("no observations")


# -- comparing ------------------------------------------------------------------------------------

def observable(game: Game) -> dict:
    """The reference's state in the protocol's fields (roles left out once the game is over)."""
    view = protocol_state(game.state)
    if view["finished"]:
        for f in ROLE_FIELDS:
            view.pop(f)
    return view


def differing_fields(ref: dict, have: dict) -> list[str]:
    """Fields of `have` that differ from the reference's view (both in the protocol's notation)."""
    out = []
    for key, value in have.items():
        if key in ref and value != ref[key] and \
                comparable_field(key, value) != comparable_field(key, ref[key]):
            out.append(key)
    return out


def _texts(actions) -> set[str]:
    return {" ".join(str(a).split()) for a in actions}


def _legal_texts(game: Game) -> set[str]:
    return {action_text(a) for a in game.legal_actions()}


def _consistent(game: Game, legal: bool, action, obs: Observation, fields=None) -> bool:
    """The reference in `game` (after the step if `legal`) does what the engine was observed to
    do (only `fields` of the state, and `legal` among them, when given)."""
    if action is not None and obs.accepted is not None and obs.accepted != legal:
        return False
    if obs.state:
        keys = obs.state if fields is None else [f for f in fields if f in obs.state]
        if keys and differing_fields(observable(game), {k: obs.state[k] for k in keys}):
            return False
    if obs.legal is not None and (fields is None or "legal" in fields):
        want = _parsed_legal(obs, game)
        if want is None and _texts(obs.legal) != _legal_texts(game) or \
                want is not None and want != set(game.legal_actions()):
            return False
    return True


def _parsed_legal(obs: Observation, game: Game):
    """The observed legal set as Actions of the game's deck (parsed once), or None if some text
    does not parse."""
    deck = game.ruleset.deck
    if obs.parsed is None or obs.parsed[0] is not deck:
        try:
            actions = {parse_action(t, deck, game.state.n) for t in obs.legal}
        except (NotationError, ValueError, TypeError):
            actions = None
        obs.parsed = (deck, actions)
    return obs.parsed[1]


# -- attribution: permissions ---------------------------------------------------------------------

def forbidding_rules(game: Game, action: Action) -> list[str]:
    """Every rule that forbids `action` now, the one Game.explain names first; [] if legal."""
    first, _ = game.explain(action)
    if not first:
        return []
    s, rs = game.state, game.ruleset
    rules = [first]
    if not s.finished and 0 <= action.seat < s.n:
        for cr in rs.legality[action.kind]:
            if cr.rule.id not in rules and not cr.clause.fn(s, action.seat, action.card, action.target):
                rules.append(cr.rule.id)
    return rules


def _universe(s, named=None) -> list[Action]:
    """Every action any seat could make with the cards it holds (legal or not), each card also
    as the named suits `named` offers for the kind (Ruleset.named_forms: the Weli's)."""
    out = []
    named = named or {}
    unbeaten = [t for t, d in s.table if d is None]
    for seat in range(s.n):
        for kind in ACTION_KINDS:
            forms = named.get(kind)
            hand = s.hands[seat] if not forms else [
                f for c in s.hands[seat] for f in (c,) + forms.get(c, ())]
            if kind == "cover":
                out += [Action(kind, seat, c, t) for c in hand for t in unbeaten]
            elif kind in CARD_KINDS:
                out += [Action(kind, seat, c) for c in hand]
            else:
                out.append(Action(kind, seat))
    return out


CANDIDATES = (ast.BoolOp, ast.Compare, ast.UnaryOp, ast.Call, ast.Name, ast.IfExp, ast.Attribute)
LOOSER = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def _inline(spec, node):
    """The clause tree with every definition it names replaced by the definition's own tree; a
    call of a definition with parameters (`beats(card, target)`) by its tree with the arguments
    in place of the parameters."""
    class Inliner(ast.NodeTransformer):
        def visit_Name(self, n):
            d = spec.definitions.get(n.id)
            if d is not None and not d.params:
                return _inline(spec, ast.parse(d.clause.strip(), mode="eval").body)
            return n

        def visit_Call(self, n):
            d = spec.definitions.get(n.func.id) if isinstance(n.func, ast.Name) else None
            if d is None or not d.params or len(n.args) != len(d.params) or n.keywords:
                return self.generic_visit(n)
            args = {name: self.visit(arg) for (name, _type), arg in zip(d.params, n.args)}

            class Bind(ast.NodeTransformer):
                def visit_Name(self, m):
                    return copy.deepcopy(args[m.id]) if m.id in args else m

            body = Bind().visit(ast.parse(d.clause.strip(), mode="eval").body)
            return _inline(spec, body)
    return Inliner().visit(node)


def _mutations(rs: Ruleset, rule) -> list[tuple[object, int, int, str | None]]:
    """Each one-place change of the rule's clause (definitions inlined), compiled:
    [(fn(s, seat, card, target), size, depth, option)]; `option` is the option whose other value
    the change is (also where that value makes the whole clause true or false), else None. Size
    0 makes a comparison strict or loose, 1 sets a sub-expression to True or False, or an option
    the clause reads to another of its values (everywhere it reads it, so at depth 0: a place of
    the clause changed alike is the smaller change), 2 sets the whole clause. Shared by the
    rulesets in which the clause reads the same option values."""
    return rs.shared(("mutations", rule.id, rule.clause), (rule.clause,),
                     lambda: _make_mutations(rs, rule))


class _Mutations(list):
    """_mutations' list, with the text of each change's clause: texts[id(fn)]."""

    texts: dict


def _make_mutations(rs: Ruleset, rule) -> list[tuple[object, int, int, str | None]]:
    out = _Mutations()
    out.texts = {}
    try:
        tree = ast.Expression(_inline(rs.spec, ast.parse(rule.clause.strip(), mode="eval").body))
    except SyntaxError:
        return out
    places = []  # (node, depth, parent, field, index)

    def visit(node, depth, parent, name, index):
        if isinstance(node, CANDIDATES):
            places.append((node, depth, parent, name, index))
        for field_name, value in ast.iter_fields(node):
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        visit(item, depth + 1, node, field_name, i)
            elif isinstance(value, ast.AST):
                visit(value, depth + 1, node, field_name, None)

    visit(tree.body, 0, tree, "body", None)
    seen = {}

    def add(text: str, size: int, depth: int, option: str | None = None) -> None:
        try:
            clause = rs.compile_variant_of(rule, text)
        except SpecError:
            return
        if clause.src not in seen:
            seen[clause.src] = len(out)
            out.append((clause.fn, size, depth, option))
            out.texts[id(clause.fn)] = text
        elif option and out[seen[clause.src]][3] is None:  # the whole clause's change, and the
            out[seen[clause.src]] = out[seen[clause.src]][:3] + (option,)  # option's value too

    def place_changes(node, depth, parent, name, index) -> None:
        changes = []
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in LOOSER:
            changes.append((0, ast.Compare(node.left, [LOOSER[type(node.ops[0])]()], node.comparators)))
        size = 2 if depth == 0 else 1
        changes += [(size, ast.Constant(True)), (size, ast.Constant(False))]
        for size, new in changes:
            _put(parent, name, index, new)  # swap in, write the text out, swap back
            text = ast.unparse(tree)
            _put(parent, name, index, node)
            add(text, size, depth)

    # the whole clause first, then each option's other values (a value that makes the clause
    # true or false throughout is the whole clause's change), then each place in it
    for place in places:
        if place[1] == 0:
            place_changes(*place)
    read = [_option_name(node) for node, *_ in places if _option_name(node) in rs.spec.options]
    for option in dict.fromkeys(read):
        for value in rs.spec.options[option].values:
            if value == rs.options.get(option) and type(value) is type(rs.options.get(option)):
                continue
            add(ast.unparse(_set_option(copy.deepcopy(tree), option, value)), 1, 0, option)
    for place in places:
        if place[1] > 0:
            place_changes(*place)
    return out


def _option_name(node) -> str | None:
    """The option `opt.NAME` reads, or None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "opt":
        return node.attr
    return None


def _set_option(tree, option: str, value):
    """The clause tree with every reading of `option` replaced by `value`."""
    class Setter(ast.NodeTransformer):
        def visit_Attribute(self, node):
            return ast.Constant(value) if _option_name(node) == option else self.generic_visit(node)
    return Setter().visit(tree)


def _put(parent, name: str, index, node) -> None:
    if index is None:
        setattr(parent, name, node)
    else:
        getattr(parent, name)[index] = node


def _refuted(history, kinds, fn) -> bool:
    """Whether a changed clause `fn` of a rule of action `kinds` forbids something the engine
    allowed earlier in the same game (`history`, where the reference allowed it too): a change
    that explains the last step but not what the engine did before is not the engine's rule."""
    return any(a.kind in kinds and not fn(st, a.seat, a.card, a.target) for st, a in history)


def _passes_refuted(rs: Ruleset, history, rid: str, fn, kinds) -> bool:
    """Whether a changed clause `fn` of rule `rid` forbids a pass the engine allowed earlier in
    the game (`history`): a pass follows from who may add a card (the pass clauses read it), so
    a change of a throw rule that leaves a player who passed nothing to add is refuted too."""
    if "throw" not in kinds:
        return False
    forms = (rs.named_forms or {}).get("throw") or {}
    throw = [fn if cr.rule.id == rid else cr.clause.fn for cr in rs.legality["throw"]]
    passes = [fn if cr.rule.id == rid else cr.clause.fn for cr in rs.legality["pass"]]
    can: dict = {}  # one state's can_throw under the change (listed passes share their state)
    for st, a in history:
        if a.kind != "pass":
            continue
        if id(st) not in can:
            can[id(st)] = [any(all(f(st, seat, c, None) for f in throw)
                               for card in st.hands[seat] for c in (card,) + forms.get(card, ()))
                           for seat in range(st.n)]
        saved = st.can_throw, st.any_throw
        st.can_throw = can[id(st)]
        st.any_throw = any(st.can_throw)
        try:
            allowed = all(f(st, a.seat, None, None) for f in passes)
        finally:
            st.can_throw, st.any_throw = saved
        if not allowed:
            return True
    return False


def _permissions(rs: Ruleset, s, ref_allowed: set, eng: set[str], extra_texts, first_named=None,
                 involved: list | None = None, history=(), ties: list | None = None,
                 records=(), larger: list | None = None, local: list | None = None,
                 change: list | None = None) -> tuple[str | None, int]:
    """The legality rule one change of which turns `ref_allowed` (Actions, in state `s`) into the
    engine's `eng` (texts) with the fewest mismatches: (rule id, size of the change). A change
    that forbids what the engine allowed earlier in the game (`history`) is not considered.
    `records` are changes of another kind, of one player's record in the state (_pass_records):
    (the rule reading it, the legal texts with it changed), each of size 1, after a clause change
    of that size. A seat served out of turn is the order rule's: every seat served at once, or
    the order of another value of an option it reads (_other_orders), each of size 1, or the
    seats the engine serves instead, of size 2. A one-place change of the value of an option the
    variant sets (or of the record such an option keeps) ranks with the smallest changes and
    wins ties (ranked). Of changes as close and as small, the rule that forbids the first action
    the engine lists wins, then the one that changes the rule's verdict on fewer actions any seat
    could make here with any card of the deck (_breadth: a house rule that stops one rank is a
    smaller change than one that stops whole seats, one that stops a take than one that stops
    every action), then the deeper one, then the rule of fewer kinds of action (a rule every
    action shares, who may act at all, would show in every kind). The rules of the kinds that
    differ are added to `involved`, to `ties` the other rules a change of which
    does it with as few mismatches and as small a change, and to `larger` those a larger change
    of which does it with as few mismatches. Where a change of a record is the best, its rule is
    added to `local`; where a change of a clause is, [its rule, the clause's changed text] is put
    in `change`.

    When no change does better than none, two looser questions follow, each only then: which
    change explains this step alone (`history` aside: the engine's rule is then no one-place
    change, but the rule that one change brings closest is the one it departs from), and then
    which explains the cards with the passes as the reference lists them (an engine that forbids
    a card now may still let its player pass, where the reference's pass needs a card to add)."""
    involved = [] if involved is None else involved
    parsed = []
    for text in extra_texts:
        try:
            parsed.append(parse_action(text, rs.deck, s.n))
        except NotationError:
            continue
    universe = list(dict.fromkeys(_universe(s, rs.named_forms) + [a for a in parsed if 0 <= a.seat < s.n]))
    verdicts = {a: {cr.rule.id: bool(cr.clause.fn(s, a.seat, a.card, a.target))
                    for cr in rs.legality[a.kind]} for a in universe}
    order_cut = {a for a, v in verdicts.items() if all(v.values()) and a not in ref_allowed}
    texts = {a: action_text(a) for a in universe}
    unparsed = len(set(extra_texts)) - len({texts[a] for a in parsed if a in texts})
    passes = [a for a in universe if a.kind == "pass"]
    throws = [a for a in universe if a.kind == "throw"]
    # A seat the engine lets pass while it lists no card for that seat to add: the engine's
    # passes do not follow from who may add a card, so a pass it allowed earlier refutes no
    # change of a throw rule (_passes_refuted).
    bare_pass = any(texts[a] in eng and not any(b.seat == a.seat and texts[b] in eng for b in throws)
                    for a in passes)
    groups: dict = {}
    for kind, cr in rs.order.items():
        groups.setdefault(cr.rule.id, (set(), cr.clause.fn))[0].add(kind)
    groups = list(groups.values())

    base_pre = {a: all(verdicts[a].values()) for a in universe if a.kind != "pass"}
    by_kind: dict = {}
    for a in universe:
        by_kind.setdefault(a.kind, []).append(a)

    def predict(rid=None, fn=None, kinds=(), follow=True) -> set:
        """The actions allowed with rule `rid`'s clause replaced by `fn`. A pass follows from who
        may add a card (the pass clauses read it), so passes are judged again on that (unless not
        `follow`: then on the cards the reference lets each player add)."""
        pre = dict(base_pre)
        for kind in kinds:
            if kind == "pass":
                continue
            for a in by_kind.get(kind, ()):
                v = verdicts[a]
                pre[a] = all(ok for r, ok in v.items() if r != rid) and bool(fn(s, a.seat, a.card, a.target))
        saved = s.can_throw, s.any_throw
        if "throw" in kinds and follow:
            s.can_throw = [False] * s.n
            for a in throws:
                if pre[a]:
                    s.can_throw[a.seat] = True
            s.any_throw = any(s.can_throw)
        try:
            for a in passes:
                pre[a] = all(bool(fn(s, a.seat, None, None)) if cr.rule.id == rid and "pass" in kinds
                             else bool(cr.clause.fn(s, a.seat, None, None))
                             for cr in rs.legality["pass"])
            allowed = {a for a, ok in pre.items() if ok}
            for kinds_, key in groups:  # the order rules serve one seat first, as settle does
                seats = {a.seat for a in allowed if a.kind in kinds_}
                if len(seats) > 1:
                    keys = {seat: key(s, seat, None, None) for seat in seats}
                    low = min(keys.values())
                    allowed = {a for a in allowed if a.kind not in kinds_ or keys[a.seat] == low}
        finally:
            s.can_throw, s.any_throw = saved
        return allowed

    # Only a rule of the kinds that differ can turn one set into the other (a pass follows from
    # the cards that may be added).
    base = predict()
    differing = {a.kind for a in universe if (a in base) != (texts[a] in eng)}
    if "pass" in differing:
        differing.add("throw")

    def score(allowed: set) -> int:
        return sum(1 for a in universe if (a in allowed) != (texts[a] in eng)) + unparsed

    baseline = score(base)
    rank = {r.id: (len(r.applies_to or ()), i) for i, r in enumerate(rs.spec.rules)}
    rules = list({cr.rule.id: cr.rule for kind in ACTION_KINDS for cr in rs.legality[kind]
                  if differing & set(cr.rule.applies_to)}.values())
    clauses = {cr.rule.id: cr.clause.fn for kind in ACTION_KINDS for cr in rs.legality[kind]}
    declared = _declared(rs)

    def ranked(size: int, option) -> tuple[int, bool]:
        """A change's size and whether it leaves alone every option the variant sets. A change
        of such an option's value (or of the record it keeps) is a house rule the engine
        declares, or the option a case is about, played otherwise: where the engine departs as
        closely elsewhere, that is likelier, so as a one-place change it ranks with the smallest."""
        own = option in declared if isinstance(option, str) else bool(option)
        return (0 if own and size <= 1 else size), not own

    unbeaten = [t for t, d in s.table if d is None]

    def search(history, follow: bool):
        """The best change of a clause: ((score, size, preference...), rule id) or None, and
        each rule's best (score, size)."""
        best, fits = None, {}
        for rule in rules:
            kinds = set(rule.applies_to)
            for fn, size, depth, option in _mutations(rs, rule):
                sc = score(predict(rule.id, fn, kinds, follow))
                if sc >= baseline:
                    continue
                wide = _breadth(rs, s, kinds, clauses[rule.id], fn, unbeaten) \
                    if best is None or sc <= best[0][0] else 0
                key = (sc, *ranked(size, option), rule.id != first_named, wide, -depth,
                       rank.get(rule.id, (99, 999)))
                better = best is None or key < best[0]
                if not better and (key[0] > best[0][0] or fits.get(rule.id, (INF, INF)) <= key[:2]):
                    continue  # neither the best change nor one as close (or closer for its rule)
                if _refuted(history, kinds, fn) or \
                        (not bare_pass and _passes_refuted(rs, history, rule.id, fn, kinds)):
                    continue
                fits[rule.id] = min(fits.get(rule.id, key[:2]), key[:2])
                if best is None or key < best[0]:
                    best = (key, rule.id, fn)
        return best, fits

    best, fits = search(history, True)
    by_record = None
    for rid, allowed_texts in records:
        sc = sum(1 for a in universe if (texts[a] in allowed_texts) != (texts[a] in eng)) + unparsed
        kept = set(rule_options(rs.spec, rs.spec.rules_by_id[rid])) & declared  # the record's
        key = (sc, *ranked(1, kept), rid != first_named, INF, 1, rank.get(rid, (99, 999)))
        if sc < baseline:
            fits[rid] = min(fits.get(rid, key[:2]), key[:2])
            if best is None or key < best[0]:
                best = by_record = (key, rid)
    if order_cut & set(parsed):  # a seat served out of turn: the order rule
        by_rule: dict = {}
        for kind, cr in rs.order.items():
            by_rule.setdefault(cr.rule.id, set()).add(kind)
        for rid, kinds_ in by_rule.items():
            # every seat served at once; or, a larger change (another order), the seats the
            # engine serves instead of the reference's
            served = {a.seat for a in universe if a.kind in kinds_ and texts[a] in eng}
            alike = {a for a in ref_allowed | order_cut if a.kind in kinds_}
            others = {a for a in ref_allowed if a.kind not in kinds_}
            changes = [(score(ref_allowed | alike), 1, None),
                       (score(others | {a for a in alike if a.seat in served}), 2, None)]
            for key_fn, option in _other_orders(rs, rid, kinds_):  # an option it reads, set
                if _order_refuted(rs, history, kinds_, key_fn):   # to another value
                    continue
                keys = {seat: key_fn(s, seat, None, None) for seat in {a.seat for a in alike}}
                low = min(keys.values(), default=0)
                changes.append((score(others | {a for a in alike if keys[a.seat] == low}), 1, option))
            for sc, size, option in changes:
                key = (sc, *ranked(size, option), rid != first_named, INF, 0,
                       rank.get(rid, (99, 999)))
                if sc < baseline:
                    fits[rid] = min(fits.get(rid, key[:2]), key[:2])
                    if best is None or key < best[0]:
                        best = (key, rid)
    for looser in ([((), True)] if history else []) + [((), False)]:  # the step alone; the cards
        if best is not None or first_named is not None:
            break
        best, fits = search(*looser)
    involved.extend(r.id for r in rules if r.id not in involved)
    involved.extend(cr.rule.id for cr in rs.order.values())
    if best is None:
        return first_named, 3
    if ties is not None:
        ties.extend(r for r, fit in fits.items() if fit == best[0][:2] and r != best[1])
    if larger is not None:
        larger.extend(sorted((r for r, fit in fits.items()
                              if fit[0] == best[0][0] and fit[1] > best[0][1] and r != best[1]),
                             key=lambda r: fits[r]))
    if local is not None and best is by_record:
        local.append(best[1])
    if change is not None and len(best) > 2:
        text = _mutations(rs, rs.spec.rules_by_id[best[1]]).texts.get(id(best[2]))
        if text is not None:
            change[:] = [best[1], text]
    return best[1], best[0][1]


INF = float("inf")


def _declared(rs: Ruleset) -> set[str]:
    """The options the variant sets itself (a house rule the engine declares, an option a case is
    about), not those its preset or the defaults give."""
    return {n for n, origin in rs.option_origins.items() if origin == "override"}


def _other_orders(rs: Ruleset, rid: str, kinds) -> list:
    """[(key, option)]: the order of action `kinds` under each other value of an option that
    order rule `rid` reads (in its `when` or its key), a one-place change of the rule as an
    option's other value is of a legality clause (_make_mutations). A value that switches
    another order rule on gives that rule's key; one that leaves no order (free_for_all) is the
    change that serves every seat at once, tried apart."""
    def make():
        spec, out = rs.spec, []
        own = {k: rs.order[k].clause.src for k in kinds if k in rs.order}
        for option in rule_options(spec, spec.rules_by_id[rid]):
            for value in spec.options[option].values if option in spec.options else ():
                if value == rs.options.get(option) and type(value) is type(rs.options.get(option)):
                    continue
                try:
                    other = variant_ruleset(spec, rs.preset, {**rs.options, option: value})
                except DurakError:
                    continue
                crs = [other.order.get(k) for k in kinds]
                if all(cr is not None for cr in crs) and len({cr.clause.src for cr in crs}) == 1 \
                        and any(crs[0].clause.src != src for src in own.values()):
                    out.append((crs[0].clause.fn, option))
        return out
    options = tuple(sorted((k, repr(v)) for k, v in rs.options.items()))
    return rs.shared(("other orders", rid, tuple(sorted(kinds)), rs.preset, options), (), make)


def _order_refuted(rs: Ruleset, history, kinds, key) -> bool:
    """Whether the order `key` of action `kinds` would have served another seat first where the
    engine allowed an action of those kinds earlier in the game (`history`): as _refuted is for a
    changed legality clause, what the engine did before rules that order out."""
    forms = (rs.named_forms or {}).get("throw") or {}

    def may_act(st, seat) -> bool:
        if "throw" in kinds and any(all(cr.clause.fn(st, seat, c, None) for cr in rs.legality["throw"])
                                    for card in st.hands[seat] for c in (card,) + forms.get(card, ())):
            return True
        return any(all(cr.clause.fn(st, seat, None, None) for cr in rs.legality[kind])
                   for kind in kinds if kind not in CARD_KINDS)

    seats: dict = {}  # one state's seats that may act (listed actions share their state)
    for st, a in history:
        if a.kind not in kinds:
            continue
        if id(st) not in seats:
            seats[id(st)] = [seat for seat in range(st.n) if may_act(st, seat)]
        if any(key(st, seat, None, None) < key(st, a.seat, None, None) for seat in seats[id(st)]):
            return True
    return False


def _breadth(rs: Ruleset, s, kinds, clause, fn, unbeaten) -> int:
    """On how many actions any seat could make here, with any card of the deck (a cover on any
    unbeaten card), the changed clause `fn` of a rule of action `kinds` says otherwise than its
    `clause`: how much of the rule the change alters, not only of the actions at hand."""
    cards = rs.deck.cards
    out = 0
    for kind in kinds:
        if kind == "cover":
            pairs = [(c, t) for c in cards for t in unbeaten]
        elif kind in CARD_KINDS:
            pairs = [(c, None) for c in cards]
        else:
            pairs = [(None, None)]
        for seat in range(s.n):
            for card, target in pairs:
                try:
                    out += bool(fn(s, seat, card, target)) != bool(clause(s, seat, card, target))
                except Exception:  # a card no hand holds may be outside what the clause reads
                    out += 1
    return out


def permission_finding(game: Game, engine_legal: set[str] | None, focus: Action | None = None,
                       history=(), listed=None) -> Diagnosis:
    """The legality rule behind a difference of permissions in `game`: `engine_legal` is the
    engine's legal set (None if unknown: then the engine is taken to allow what the reference
    allows but `focus`, which it rejected); `history`, what the engine allowed before in the
    game (_Point.history), rules out changes that would have forbidden it; `listed`, where
    `engine_legal` keeps only one group's differences (legal_differences), the engine's whole set:
    the cards it plays as a named suit still say which card it covers (_target_choice)."""
    ref = _legal_texts(game)
    eng = set(engine_legal) if engine_legal is not None else ref - {action_text(focus)}
    extra, missing = sorted(eng - ref), sorted(ref - eng)
    if not extra and not missing:
        return Diagnosis(None, "legal", "no difference")
    chosen, alike = _target_choice(game, eng, missing, history, listed) if not extra else \
        (None, None)
    if chosen is not None:
        earliest = next(t for t, d in game.state.table if d is None)
        return Diagnosis(chosen, "legal", f"the engine lets no card cover "
                         f"{', '.join(sorted({t.split()[2] for t in missing}))} while "
                         f"{earliest.text} is unbeaten", involved=[chosen],
                         alternatives=_cards_explain(game, eng, chosen, history))
    named = []
    for text in sorted(extra, key=lambda t: " pass" in t):  # a pass follows from the cards
        try:
            named.append(forbidding_rules(game, parse_action(text, game.ruleset.deck, game.state.n)))
        except (NotationError, ValueError):
            continue
    first = named[0][0] if named and named[0] else None
    involved: list = []
    ties: list = [alike] if alike else []
    larger: list = []
    local: list = []
    change: list = []
    rule, _ = _permissions(game.ruleset, game.state, set(game.legal_actions()), eng, extra, first,
                           involved, history, ties, _pass_records(game, history), larger, local,
                           change)
    also = sorted({r for rules in named for r in rules} - {rule})
    why = (f"the engine allows {', '.join(extra[:3]) or '-'}{' ...' if len(extra) > 3 else ''} "
           f"and not {', '.join(missing[:3]) or '-'}{' ...' if len(missing) > 3 else ''}")
    return Diagnosis(rule, "legal", why, also=also, involved=involved,
                     alternatives=[r for r in dict.fromkeys(ties) if r != rule],
                     larger=[r for r in larger if r != rule and r not in ties], local=bool(local),
                     change=change if change and change[0] == rule else [])


def _pass_records(game: Game, history) -> list[tuple[str, set]]:
    """For each player who passed in the bout under way (`history`), the rule that reads who has
    passed and the legal set with that player's pass kept instead of withdrawn (or withdrawn
    instead of kept): an engine that withdraws passes otherwise (pass_withdrawn_by,
    pass_is_final) keeps another record of them, and the rule reading the record decides."""
    rs, s = game.ruleset, game.state
    reader = next((cr.rule.id for cr in rs.legality["throw"]
                   if "passed" in WORDS.findall(cr.rule.clause or "")), None)
    if reader is None or s.finished or not s.table:
        return []
    out = []
    for seat in dict.fromkeys(a.seat for st, a in history
                              if a.kind == "pass" and st.bout_number == s.bout_number):
        other = game.clone()
        other.state.passed[seat] = not s.passed[seat]
        try:
            other._refresh()
        except (DurakError, RuntimeError):
            continue
        out.append((reader, _legal_texts(other)))
    return out


def _target_choice(game: Game, eng: set[str], missing: list[str], history=(), listed=None
                   ) -> tuple[str | None, str | None]:
    """The rule that says which attack card may be covered, when that is all that differs: a
    defender held to the earliest unbeaten card. The engine lists exactly the reference's covers
    of that card and no cover of any later one. One change of the beat rule can come close to
    that; the choice of target is another rule's (the one reading `target_unbeaten`).

    An engine that covers a later card while the earliest stays unbeaten, now or earlier in the
    game (`history`), is not held to it. Where the earliest card cannot be beaten at all, an
    engine held to it lists no cover, and so does one that cannot beat the later cards with the
    cards the defender holds: then the target decides only when no change of another cover rule
    does it as well (one that still lets some card of the deck beat another, and forbids no
    cover the engine allowed before); the target is then the other rule that explains it as well.
    Unless the engine's whole set (`listed`) covers the earliest card otherwise, by a card played
    as a named suit, and no later one: it then shows that card may be covered, and the later ones
    not. Returns (the target rule, if it decides; the target rule, if it explains it as well)."""
    s = game.state
    unbeaten = [t for t, d in s.table if d is None]
    covers = [a for a in game.legal_actions() if a.kind == "cover"]
    if len(unbeaten) < 2 or not missing or any(t.split()[1:2] != ["cover"] for t in missing):
        return None, None
    if any((a.target == unbeaten[0]) != (action_text(a) in eng) for a in covers):
        return None, None
    if any(a.kind == "cover" and a.target != next(t for t, d in st.table if d is None)
           for st, a in history):
        return None, None
    target = next((cr.rule for cr in game.ruleset.legality.get("cover", ())
                   if "target_unbeaten" in WORDS.findall(cr.rule.clause or "")), None)
    if target is None:
        return None, None
    if not any(a.target == unbeaten[0] for a in covers) and \
            not _covers_earliest(game, listed, eng, unbeaten) and \
            _cards_decide(game, covers, target, history):
        return None, target.id
    return target.id, None


def _covers_earliest(game: Game, listed, eng: set[str], unbeaten: list) -> bool:
    """Whether the engine's whole set `listed` holds covers that `eng` (its set as one group's
    differences leave it) does not, all of the earliest unbeaten card and some."""
    targets = set()
    for text in set(listed or ()) - eng:
        if text.split()[1:2] != ["cover"]:
            continue
        try:
            targets.add(parse_action(text, game.ruleset.deck, game.state.n).target)
        except (NotationError, ValueError):
            return False
    return targets == {unbeaten[0]}


def _cards_decide(game: Game, covers: list, target, history) -> bool:
    """Whether one change of a cover rule other than `target` forbids every cover in `covers`,
    still lets some card of the deck beat another, and forbids no cover the engine allowed
    before."""
    s, rs = game.state, game.ruleset
    seat = covers[0].seat
    cards = list(rs.deck.cards)
    for cr in rs.legality.get("cover", ()):
        if cr.rule.id == target.id or cr.clause.const:
            continue
        for fn, _size, _depth, _option in _mutations(rs, cr.rule):
            if any(fn(s, a.seat, a.card, a.target) for a in covers):
                continue
            if not any(fn(s, seat, c, t) for c in cards for t in cards if c != t):
                continue  # nothing beats anything: no rule of the cards
            if not _refuted(history, ("cover",), fn):
                return True
    return False


def _cards_explain(game: Game, eng: set[str], target: str, history) -> list[str]:
    """The cover rules other than `target` one change of which gives exactly the engine's covers
    `eng` (and forbids no cover the engine allowed before): where the engine covers only the
    earliest card, a trump that beats no plain card explains it as well when every cover of the
    later cards is by a trump and none of the earliest's is. As in _cards_decide, a change that
    lets no card of the deck beat another is no rule of the cards."""
    s, rs = game.state, game.ruleset
    covers = [a for a in game.legal_actions() if a.kind == "cover"]
    if not covers:
        return []
    seat, cards = covers[0].seat, list(rs.deck.cards)
    out = []
    for cr in rs.legality.get("cover", ()):
        if cr.rule.id == target or cr.clause.const:
            continue
        for fn, _size, _depth, _option in _mutations(rs, cr.rule):
            if any(bool(fn(s, a.seat, a.card, a.target)) != (action_text(a) in eng) for a in covers):
                continue
            if not any(fn(s, seat, c, t) for c in cards for t in cards if c != t):
                continue
            if not _refuted(history, ("cover",), fn):
                out.append(cr.rule.id)
                break
    return out


def edge_rule(game: Game, action: Action) -> str | None:
    """The first legality rule of the action's kind at whose edge this allowed action sits: one
    comparison of its clause made strict (or loose) forbids it (a sixth card: limits.cap). It
    names the rule of an allowed action an engine refuses when no one-place change of a clause
    turns the reference's legal set into the engine's; None when no comparison is at its edge."""
    s, rs = game.state, game.ruleset
    if s.finished or not 0 <= action.seat < s.n:
        return None
    for cr in rs.legality.get(action.kind, ()):
        if cr.clause.const:
            continue
        for fn, size, _depth, _option in _mutations(rs, cr.rule):
            if size == 0 and not fn(s, action.seat, action.card, action.target):
                return cr.rule.id
    return None


# Action kinds whose permissions hang together: a pass follows from the cards that may be added.
KIND_GROUPS = (("throw", "pass"),)


def kind_group(kind: str) -> tuple:
    return next((g for g in KIND_GROUPS if kind in g), (kind,))


def action_group(text: str, apart: bool = False) -> tuple:
    """The group an action's text falls in when a legal-set difference is split: its kind's
    (KIND_GROUPS), or a group apart for a play of a card as a named suit that the engine lists and
    the variant offers no card (`apart`, _named_apart): whether a card may be played as another
    suit at all is the named-suit rule's matter, whatever else differs in the set."""
    words = text.split()
    group = kind_group(words[1] if len(words) > 1 else "")
    return group + ("=",) if apart else group


def _named_apart(game: Game, text: str, ref: set[str]) -> bool:
    """The engine lists `text`, which the reference does not, and it plays a card as a named suit
    that no card of the variant may take (not a Weli's form: those stay with their kind, listed
    for another seat or refused with the other trumps by another bug)."""
    return named_apart(text, ref, {f.text for f in game.ruleset.played_forms})


def named_apart(text: str, ref, offered) -> bool:
    """_named_apart, given the texts of the forms the variant offers (Ruleset.played_forms)."""
    return text not in ref and any("=" in w and w not in offered for w in text.split()[2:])


def group_of(game: Game, text: str, ref: set[str]) -> tuple:
    """The group the action `text` falls in when the engine's legal set is split against the
    reference's `ref` (texts, in `game`): action_group, a play as a named suit apart
    (_named_apart). Every consumer that splits a legal-set difference groups by it."""
    return action_group(text, _named_apart(game, text, ref))


def _own_group(game: Game, engine_legal: set[str], text: str) -> set[str]:
    """The engine's legal set with only the differences in the group of the action `text`
    (action_group), the others as the reference has them: an action the engine refuses is
    attributed among its own kind, not to another bug that shows in the same set (as
    legal_differences splits a set, and fuzz a refusal)."""
    group, ref = action_group(text), _legal_texts(game)
    return {t for t in ref if action_group(t) != group} | \
        {t for t in engine_legal if group_of(game, t, ref) == group}


def legal_differences(game: Game, engine_legal, history=(), findings: list | None = None
                      ) -> list[tuple[str | None, list, list]]:
    """The engine's legal set `engine_legal` (texts) against the reference's in `game`, split by
    the kinds of action that differ (a throw and a pass together): for each group, the rule one
    change of which accounts for that group's differences alone, and the group's extra and
    missing texts: [(rule, extra, missing)]. Two rules broken at once (cards added too early and
    a cover refused, say) are named apart instead of one hiding the other. Given `findings`, the
    diagnosis of each group is added to it, in the same order (with its alternatives)."""
    ref = _legal_texts(game)
    eng = _texts(engine_legal)
    extra, missing = sorted(eng - ref), sorted(ref - eng)
    groups: dict = {}
    for text in extra + missing:
        groups.setdefault(group_of(game, text, ref), ([], []))[text in ref].append(text)
    out = []
    for group, (more, fewer) in groups.items():
        if len(groups) == 1:
            found = permission_finding(game, eng, history=history)
        else:
            found = permission_finding(game, (ref - set(fewer)) | set(more), history=history,
                                       listed=eng)
        if findings is not None:
            findings.append(found)
        rule = found.rule
        if rule is None and more:
            try:
                rule = game.explain(parse_action(more[0], game.ruleset.deck, game.state.n))[0] or None
            except (NotationError, ValueError):
                rule = None
        if rule is None and fewer:
            rule = edge_rule(game, parse_action(fewer[0], game.ruleset.deck, game.state.n))
        out.append((rule, more, fewer))
    return out


def _throw_blockers(game: Game, seat: int) -> list[str]:
    """The rules that stop `seat` from adding each card it holds, most frequent first."""
    s, rs = game.state, game.ruleset
    counts: dict[str, int] = {}
    for card in s.hands[seat]:
        for cr in rs.legality["throw"]:
            if not cr.clause.fn(s, seat, card, None):
                counts[cr.rule.id] = counts.get(cr.rule.id, 0) + 1
    return sorted(counts, key=lambda r: -counts[r])


# -- attribution: the end of a bout ----------------------------------------------------------------

def _engine_bout_open(obs: Observation, ref_game: Game) -> bool | None:
    """Whether the engine's bout still has cards on the table, from its state or its legal set
    (None if neither tells)."""
    if obs.state and isinstance(obs.state.get("table"), list):
        return bool(obs.state["table"])
    if obs.legal is not None:
        kinds = {t.split()[1] for t in _texts(obs.legal) if len(t.split()) > 1}
        if "attack" in kinds:
            return False
        if kinds & {"throw", "cover", "take", "transfer"}:
            return True
    return None


def _pre_settle(before: Game, action: Action) -> Game:
    """The reference right after a step's own effect, before the bout end it led to."""
    game = before.clone()
    game.ruleset.events[action.kind](game, game.state, action)
    s = game.state
    throws = {a.seat for a in _universe(s) if a.kind == "throw" and all(
        cr.clause.fn(s, a.seat, a.card, None) for cr in game.ruleset.legality["throw"])}
    s.can_throw = [seat in throws for seat in range(s.n)]
    s.any_throw = bool(throws)
    return game


def _bout_end_finding(point: _Point, ref_game: Game, obs: Observation, engine_moved: bool
                      ) -> Diagnosis | None:
    """When the bout is over on one side only: the rule that decides it (see the docstring)."""
    engine_open = _engine_bout_open(obs, ref_game)
    ref_open = bool(ref_game.state.table)
    if engine_open is None or engine_open == ref_open or ref_game.state.finished:
        return None
    rs = ref_game.ruleset
    if ref_open:  # the engine ended the bout; the reference goes on
        s = ref_game.state
        ref_allowed = set(ref_game.legal_actions())
        adding = {a for a in ref_allowed if a.kind in ADDING}
        end = rs.decisions["bout_taken" if s.taking else "bout_beaten_off"].rule.id
        if adding:
            eng = {action_text(a) for a in ref_allowed - adding}
            involved: list = []
            rule, size = _permissions(rs, s, ref_allowed, eng, [], None, involved, point.history)
            if rule is not None and size < 2:
                return Diagnosis(rule, "state.table", "the engine ends the bout; by the reference "
                                 f"{', '.join(sorted(action_text(a) for a in adding)[:3])} may "
                                 "still be played", also=[end], involved=involved)
        return Diagnosis(end, "state.table", "the engine ends the bout, the reference does not")
    # the reference ended the bout (at this step, or at the last bout end); the engine goes on
    if point.action is not None and engine_moved and point.legal:
        pre = _pre_settle(point.before, point.action)
    elif "_pre_end" in point.provenance:
        pre = _pre_settle(*point.provenance["_pre_end"])
    else:
        return None
    s = pre.state
    if obs.state and _hands_differ(s.hands, obs.state):  # at the reference's bout end already:
        return _field_finding(point, ["hands"], obs.state, engine_moved=False)  # what it adds follows
    taken = s.taking
    end = rs.decisions["bout_taken" if taken else "bout_beaten_off"].rule.id
    if obs.legal is not None:
        eng = {t for t in _texts(obs.legal) if len(t.split()) > 1 and t.split()[1] in ADDING}
        if eng:
            allowed = {a for a in _universe(s) if a.kind == "throw" and all(
                cr.clause.fn(s, a.seat, a.card, None) for cr in rs.legality["throw"])}
            named = []
            for text in sorted(eng, key=lambda t: " pass" in t):
                try:
                    a = parse_action(text, rs.deck, s.n)
                except NotationError:
                    continue
                named += [cr.rule.id for cr in rs.legality[a.kind]
                          if 0 <= a.seat < s.n and not cr.clause.fn(s, a.seat, a.card, a.target)]
            first = named[0] if named else None
            involved: list = []
            rule, size = _permissions(rs, s, allowed, eng, sorted(eng), first, involved,
                                      point.history)
            if rule is not None:
                return Diagnosis(rule, "state.table", "the reference ends the bout; the engine "
                                 f"still allows {', '.join(sorted(eng)[:3])}", also=[end],
                                 involved=involved)
    else:
        rule = _declared_keeps_open(rs, s, point.history)
        if rule is not None:
            return Diagnosis(rule, "state.table", "the reference ends the bout, the engine does "
                             "not; an option the variant sets, played otherwise, lets a card on",
                             also=[end], involved=[rule])
    return Diagnosis(end, "state.table", "the reference ends the bout, the engine does not")


def _declared_keeps_open(rs: Ruleset, s, history) -> str | None:
    """The throw rule that, with an option the variant sets (a house rule the engine declares)
    at another of its values, would let some player add a card in state `s`, where the reference
    ends the bout and the engine, whose legal set is unknown, goes on: the change of the option
    it declares is the likeliest one-place change that keeps the bout open (_permissions,
    ranked). None if no such change does, or one forbids what the engine allowed before."""
    declared = _declared(rs)
    forms = (rs.named_forms or {}).get("throw") or {}
    throw = rs.legality["throw"]
    for cr in throw:
        for fn, _size, _depth, option in _mutations(rs, cr.rule):
            if option not in declared or _refuted(history, ("throw",), fn) or \
                    _passes_refuted(rs, history, cr.rule.id, fn, ("throw",)):
                continue
            if any(fn(s, seat, c, None) and all(o.clause.fn(s, seat, c, None) for o in throw
                                                if o is not cr)
                   for seat in range(s.n) for card in s.hands[seat]
                   for c in (card,) + forms.get(card, ())):
                return cr.rule.id
    return None


# -- attribution: state fields ----------------------------------------------------------------------

def _turn_up_drawn(point: _Point, eng_hands: list) -> bool:
    """Whether the engine's hands are the reference's after this step played from the talon with
    its last card (the turn-up, or the card under it) moved to the other end: the same players
    drawing as many cards each in the same order, where the turn-up lies decides that, not who
    draws or in what order. Cards are counted, not named: two packs hold two copies of each."""
    if len(point.before.state.talon) < 2 or point.action is None:
        return False
    moved = point.before.clone()
    talon = moved.state.talon
    talon.insert(0, talon.pop())
    moved.apply_action(point.action)
    eng = [Counter(hand) for hand in eng_hands]
    return eng != [Counter(c.text for c in hand) for hand in point.after.state.hands] and \
        eng == [Counter(c.text for c in hand) for hand in moved.state.hands]


def _order_explains(point: _Point, eng_hands: list) -> bool:
    """Whether the engine's hands are the reference's draw dealt to the same drawers in another
    order: where a draw empties the talon, that may be the turn-up drawn first as well (the run
    tells them apart, conformance/problems.py)."""
    b, a = point.before.state, point.after.state
    drawers = [seat for seat in range(a.n) if a.drew[seat] or a.short_after_draw[seat]]
    if len(drawers) < 2 or len(drawers) > 5:
        return False
    cards = [c.text for c in b.talon[:len(b.talon) - len(a.talon)]]
    kept = {seat: [c.text for c in a.hands[seat][:len(a.hands[seat]) - a.drew[seat]]] for seat in drawers}
    eng = [Counter(hand) for hand in eng_hands]
    for order in permutations(drawers):
        hands, at = [Counter(c.text for c in hand) for hand in a.hands], 0
        for seat in order:
            take = min(a.hand_size - len(kept[seat]), len(cards) - at)
            hands[seat] = Counter(kept[seat] + cards[at:at + max(0, take)])
            at += max(0, take)
        if hands == eng:
            return True
    return False


def _order_too(point: _Point, eng: dict) -> bool:
    """Where the engine drew other counts than the reference (draw.who), whether it drew in
    another order too: the counts each seat drew in the engine, dealt from the talon in the
    reference's draw order (decision draw_key, as primitives.replenish sorts it), do not give the
    cards the engine holds, and dealt in another order they do. Copies are counted (two packs)."""
    hands, before, after = eng.get("hands"), point.before.state, point.after.state
    if not isinstance(hands, list) or len(hands) != after.n or \
            not all(isinstance(h, list) for h in hands):
        return False
    drawn = []
    for seat, hand in enumerate(hands):
        mine = after.hands[seat]
        kept = Counter(c.text for c in mine[:len(mine) - after.drew[seat]])
        if kept - Counter(map(str, hand)):
            return False
        drawn.append(Counter(map(str, hand)) - kept)
    seats = [seat for seat in range(after.n) if drawn[seat]]
    if not 2 <= len(seats) <= 6:
        return False
    talon = [c.text for c in before.talon]

    def deals(order) -> bool:
        at = 0
        for seat in order:
            take = drawn[seat].total()
            if Counter(talon[at:at + take]) != drawn[seat]:
                return False
            at += take
        return True

    at_draw = after.clone()  # the roles the draw read (primitives.replenish keeps them)
    at_draw.attacker, at_draw.defender = after.last_attacker, after.last_defender
    key = point.after.ruleset.decide_fns["draw_key"]
    try:
        own = sorted(seats, key=lambda seat: (key(at_draw, seat), seat))
    except (DurakError, TypeError, ValueError, IndexError):
        return False
    return not deals(own) and any(deals(order) for order in permutations(seats))


def _draw_rule(point: _Point, eng: dict, turn_up_rule: str) -> str | None:
    """draw.who or draw.order by what differs after a draw, or None when the cards kept from
    before the draw already differ (the difference is not the draw's); the rule placing the
    turn-up when the engine drew the turn-up instead of the talon's next card. The reference's
    drawers put the cards they draw after those they keep (primitives.replenish)."""
    before, after = point.before.state, point.after.state
    talon = Counter(c.text for c in before.talon)
    n, size = after.n, after.hand_size
    drawers = {seat for seat in range(n) if after.drew[seat] or after.short_after_draw[seat]}
    if isinstance(eng.get("hands"), list) and len(eng["hands"]) == n:
        eng_drawn = []
        for seat in range(n):
            hand = eng["hands"][seat]
            if not isinstance(hand, list) or not all(isinstance(c, str) for c in hand):
                return None
            mine = after.hands[seat]
            kept = Counter(c.text for c in mine[:len(mine) - after.drew[seat]])
            drawn = Counter(hand) - kept
            if kept - Counter(hand) or drawn - talon:
                return None
            eng_drawn.append(drawn.total())
        eng_sizes = [len(h) for h in eng["hands"]]
        if _turn_up_drawn(point, eng["hands"]):
            return turn_up_rule
    elif isinstance(eng.get("hand_sizes"), list) and len(eng["hand_sizes"]) == n:
        eng_sizes = eng["hand_sizes"]
        eng_drawn = [eng_sizes[seat] - (len(after.hands[seat]) - after.drew[seat]) for seat in range(n)]
    else:
        return "draw.order"
    eng_talon = eng.get("talon_count", len(before.talon) - sum(max(0, d) for d in eng_drawn))
    eng_out = eng.get("out") if isinstance(eng.get("out"), list) else []
    if any(seat in drawers and eng_drawn[seat] <= 0 and not after.out[seat] for seat in eng_out):
        return "end.out"  # out before the draw, so it drew nothing: going out decides it
    for seat in range(n):
        if eng_drawn[seat] > 0 and (seat not in drawers or eng_sizes[seat] > size):
            return "draw.who"  # a seat that draws, or draws beyond a full hand: who draws how many
        if seat in drawers and eng_sizes[seat] < size and isinstance(eng_talon, int) and eng_talon > 0:
            return "draw.who"
    return "draw.order"


def _older_draw_rule(point: _Point, eng: dict, talon: frozenset | None = None) -> str:
    """draw.who or draw.order for hands that differ since an earlier draw: the cards that differ
    came from the talon that draw dealt from (`talon`; the last draw's where not given: an
    engine drawing more cards takes some the reference left there); as many of them per seat
    but other cards is the order's doing, unless the engine holds the turn-up, still in the
    reference's talon (where the turn-up lies). Copies are counted (two packs), and an engine
    that still shows the reference's last bout on its table is compared with the reference
    before that bout ended (_lagging): the reference's draw after it is none of the engine's."""
    drawn = point.provenance.get("_drawn_from", frozenset()) if talon is None else talon
    hands = eng.get("hands")
    ref = point.before.state.hands
    if not isinstance(hands, list) or len(hands) != len(ref):
        return "draw.order"
    if all(isinstance(h, list) for h in hands) and _turn_up_held(point, eng):
        return point.before.ruleset.decisions["trump_suit"].rule.id
    counts = []
    step_card = {point.action.card.real.text} if point.action and point.action.card else set()
    # a bout ending at this step draws again: those cards are this step's, not the older draw's
    now = _drawn_now(point, eng, len(point.before.state.talon) - len(point.after.state.talon))
    lagging = _lagging(point, eng)
    if lagging is not None:  # the engine has not ended (nor drawn after) the reference's last bout
        ref, now = lagging.state.hands, set()
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list):
            return "draw.order"
        # copies counted: with two packs a hand may hold both copies of a card, or one of each
        mine, theirs = Counter(c.text for c in ref[seat]), Counter(map(str, hand)) - Counter(now)
        more, fewer = theirs - mine, mine - theirs
        if set(more + fewer) - drawn - step_card:  # the step's own card may have left the hand
            return "draw.order"
        counts.append([sum(n for c, n in diff.items() if c in drawn) for diff in (more, fewer)])
    return "draw.order" if all(x == y for x, y in counts) else "draw.who"


def _lagging(point: _Point, eng: dict) -> Game | None:
    """The reference right after the step that ended its last bout, before that bout's end (the
    pickup or discard, the draw), where the engine still shows that bout on its table and the
    reference shows none: the engine's hands are to be compared with those."""
    table = eng.get("table")
    if not isinstance(table, list) or not table or point.before.state.table or \
            "_pre_end" not in point.provenance:
        return None
    try:
        return _pre_settle(*point.provenance["_pre_end"])
    except (DurakError, KeyError, IndexError, TypeError):
        return None


def _hands_differ(ref_hands, eng: dict) -> bool:
    """Whether the engine's hands hold other cards than `ref_hands` (copies counted)."""
    hands = eng.get("hands")
    if not isinstance(hands, list) or len(hands) != len(ref_hands) or \
            not all(isinstance(h, list) for h in hands):
        return False
    return any(Counter(map(str, h)) != Counter(c.text for c in r) for h, r in zip(hands, ref_hands))


def _turn_up_held(point: _Point, eng: dict) -> bool:
    """The engine holds the turn-up while the reference's talon still has it under other cards:
    it took cards from the talon's other end, where the turn-up lies (by a draw, or the
    exchange of poker durak), and the rule that says where it lies decides. Copies are counted:
    with two packs a hand may hold the other copy of the turn-up's card."""
    talon, hands = point.before.state.talon, eng.get("hands")
    if len(talon) < 2 or not isinstance(hands, list):
        return False
    turn_up = talon[-1].text
    held = sum(h.count(turn_up) for h in hands if isinstance(h, list))
    return held > sum(c.text == turn_up for hand in point.before.state.hands for c in hand)


def _hands_older(point: _Point, eng: dict) -> bool:
    """The hands differ in cards this step's action did not touch: an older difference."""
    if point.action is None or point.action.card is None or not isinstance(eng.get("hands"), list):
        return False
    ref = point.after.state.hands
    if len(eng["hands"]) != len(ref):
        return False
    moved = {point.action.card.text}
    for seat, hand in enumerate(eng["hands"]):
        if not isinstance(hand, list):
            return False
        if (set(hand) ^ {c.text for c in ref[seat]}) - moved:
            return True
    return False


def _field_finding(point: _Point, fields: list[str], eng: dict, engine_moved: bool) -> Diagnosis:
    """The rule deciding the earliest-stage field among `fields` (which differ)."""
    candidates, alternatives, besides = [], [], []
    for f in fields:
        stage = point.stages.get(f) if engine_moved and point.legal else None
        if stage is not None and stage[0] == STAGE["effect"] and f in ("hands", "hand_sizes") \
                and _hands_older(point, eng):
            stage = None
        if stage is None:
            rule = point.provenance.get("hands" if f in ("hand_sizes", "talon_count") else f)
            if rule is None:
                rule = {"out": "end.out", "finished": "end.game_over", "fool": "end.fool",
                        "discard_count": "bout.beaten_off", "taking": "defence.take"}.get(f)
            stage = (STAGE["older"], rule)
        rule = stage[1]
        if rule == "draw" and stage[0] == STAGE["older"]:
            rule = _older_draw_rule(point, eng)
        elif stage[0] == STAGE["older"] and f in ("hands", "hand_sizes") and _turn_up_held(point, eng):
            rule = point.before.ruleset.decisions["trump_suit"].rule.id
        elif rule == "draw":
            turn_up = point.before.ruleset.decisions["trump_suit"].rule.id
            rule = _draw_rule(point, eng, turn_up) or point.stages.get("table", (0, None))[1]
            order_rule = point.before.ruleset.decisions["draw_key"].rule.id
            if rule == turn_up and _order_explains(point, eng["hands"]):
                alternatives.append(order_rule)
            elif rule == point.before.ruleset.decisions["drawer"].rule.id and _order_too(point, eng):
                besides.append(order_rule)
        candidates.append((stage[0], fields.index(f), f, rule))
    # a field no rule is known to decide (the trump a draw reveals) follows those with one
    candidates.sort(key=lambda c: (c[3] is None, c[:3]))
    _, _, f, rule = candidates[0]
    also = [r for _, _, _, r in candidates[1:] if r and r != rule]
    # The rules that last decided the roles the deciding rule reads are involved too: a draw that
    # starts from another attacker is the doing of whatever made that seat the attacker.
    spec_rule = point.before.ruleset.spec.rules_by_id.get(rule or "")
    for role in sorted(ROLE_INPUTS & set(WORDS.findall(spec_rule.clause or ""))) if spec_rule else ():
        if point.provenance.get(role) not in (None, rule):
            also.append(point.provenance[role])
    decisions_of = point.before.ruleset.decisions
    decisions = [cr.rule.id for cr in decisions_of.values()]
    return Diagnosis(rule, f"state.{f}", f"state.{f} differs", also=list(dict.fromkeys(also)),
                     involved=decisions, alternatives=[r for r in alternatives if r != rule],
                     older=candidates[0][0] == STAGE["older"],
                     besides=list(dict.fromkeys(besides)) if rule == decisions_of["drawer"].rule.id else [])


def _role_fields(game: Game, legal: set[str]) -> dict:
    """Roles the engine's legal set implies, where they differ from the reference's: the seat of
    its attack actions is its main attacker, the seat of its covers, takes and transfers its
    defender."""
    s = game.state
    seats = {"attacker": set(), "defender": set()}
    for text in legal:
        words = text.split()
        if len(words) < 2 or not words[0].isdigit():
            continue
        if words[1] == "attack":
            seats["attacker"].add(int(words[0]))
        elif words[1] in ("cover", "take", "transfer", "show"):
            seats["defender"].add(int(words[0]))
    out = {}
    for role, found in seats.items():
        if len(found) == 1 and found != {getattr(s, role)}:
            out[role] = found.pop()
    return out


# -- attribution -----------------------------------------------------------------------------------

def _attribute(point: _Point, obs: Observation) -> Diagnosis:
    before, action = point.before, point.action
    if action is not None and obs.accepted is not None and obs.accepted != point.legal:
        if obs.accepted:  # the engine accepted what the reference forbids
            if obs.state and action.kind not in MOVES_ROLES and not obs.state.get("finished"):
                roles = [f for f in differing_fields(observable(before), obs.state)
                         if f in ("attacker", "defender", "out")]
                if roles and obs.state.get("table"):
                    return _field_finding(point, roles, obs.state, engine_moved=False)
            rules = forbidding_rules(before, action)
            _, reason = before.explain(action)
            if action.kind == "pass":  # a pass needs a card to add: what stops those cards
                rules += _throw_blockers(before, action.seat)
            kinds = [action.kind] + (["throw"] if action.kind == "pass" else [])
            involved = [cr.rule.id for k in kinds for cr in before.ruleset.legality[k]]
            return Diagnosis(rules[0] if rules else None, "verdict",
                             f"{action_text(action)}: {reason}",
                             also=list(dict.fromkeys(r for r in rules[1:] if r != rules[0])),
                             involved=involved)
        # the engine rejected what the reference allows: its position is the one before the step
        found = _position_finding(point, before, obs, engine_moved=False)
        if found is None:
            engine_legal = None if obs.legal is None else \
                _own_group(before, _texts(obs.legal), action_text(action))
            found = permission_finding(before, engine_legal, action, point.history,
                                       None if obs.legal is None else _texts(obs.legal))
            found.check = "verdict"
            found.why = f"the engine rejects {action_text(action)}, which the reference allows"
            if found.rule is None:
                found.rule = edge_rule(before, action)
        return found
    moved = action is None or point.legal
    ref_game = point.after if moved else before
    found = _position_finding(point, ref_game, obs, engine_moved=moved and action is not None)
    if found is not None:
        return found
    if obs.legal is not None and _texts(obs.legal) != _legal_texts(ref_game):
        return permission_finding(ref_game, _texts(obs.legal), history=point.history)
    return Diagnosis(None, "", "the reference does what the engine did")


def _drawn_now(point: _Point, eng: dict, unknown: int) -> set[str]:
    """The cards a bout that ends at this step (on either side) may have dealt: a draw deals
    from the talon's top, as many cards as the engine's talon shows gone (`unknown` where it
    does not say). Empty where no bout ends."""
    b, a = point.before.state, point.after.state
    if point.action is None or not b.table or a.table and eng.get("table") != []:
        return set()
    left = eng.get("talon_count")
    top = len(b.talon) - left if isinstance(left, int) and 0 <= left <= len(b.talon) else unknown
    return {c.text for c in b.talon[:top]}


def _older_cards(point: _Point, eng: dict, took: bool = True) -> list[str]:
    """Cards the engine holds that no step up to this one brought where it shows them: in a
    player's hand where the reference has them neither before nor after the step, nor on the
    table before or after it, nor at the top of the talon when the bout ends at the step on
    either side (the draw follows); or
    shown twice (in a hand and on the table, or in two hands) where the deck has one copy, but
    the step's own card and, where the engine ends the bout at the step, the table's cards (a
    pickup that leaves a thrown card with its thrower too is this step's). An older difference than
    whatever this step decides. Where the engine refused the step (not `took`), the reference's
    state after it is nowhere the engine is, and the step's card moved nowhere."""
    hands = eng.get("hands")
    b, a = point.before.state, (point.after if took else point.before).state
    if point.action is None or not isinstance(hands, list) or len(hands) != b.n or \
            not all(isinstance(h, list) for h in hands):
        return []
    table = {c.real.text for t in (b.table, a.table) for pair in t for c in pair if c is not None}
    ends = bool(b.table) and (not a.table or eng.get("table") == [])
    drawn = _drawn_now(point, eng, len(b.talon))
    # the table goes to a hand only when a bout is taken: to the defender's, or back to the
    # adders' where a pickup may be partial; a bout beaten off on the reference's side leaves
    # every other hand as it was (a card kept by a transferer shows only when the bout ends)
    beaten = ends and not a.table and a.beaten_bouts > b.beaten_bouts
    takers = {b.defender, a.defender} if beaten and not _partial_pickup(point.before.ruleset) \
        else set(range(b.n))
    out = []
    for seat, hand in enumerate(hands):
        mine = {c.text for c in b.hands[seat]} | {c.text for c in a.hands[seat]} | drawn | \
            (table if seat in takers else set())
        out += [c for c in hand if isinstance(c, str) and c not in mine]
    if point.before.ruleset.deck.copies == 1 and isinstance(eng.get("table"), list):
        shown = [str(c).split("=")[0] for c in [c for h in hands for c in h] + [  # a card, not its named suit
            c for pair in eng["table"] if isinstance(pair, list) for c in pair if c is not None]]
        # the step's own card, and the table's cards where the engine ends the bout at the step
        # (its pickup may leave a copy with the thrower), moved now; a card the engine still
        # shows on the table and in a hand was in that hand before the step, and so was one that
        # an action's own effect put on the table (a transfer's card, kept by the transferer)
        moved = {point.action.card.real.text} if took and point.action.card is not None else set()
        last = point.provenance.get("_cards", {})
        moved |= {c for c in table if last.get(c) not in ACTION_EFFECTS} \
            if b.table and eng.get("table") == [] else set()
        out += [c for c in dict.fromkeys(shown) if shown.count(c) > 1 and c not in out and c not in moved]
    return out


def _position_finding(point: _Point, ref_game: Game, obs: Observation, engine_moved: bool):
    """A difference of position (the bout over on one side only, a state field, roles the legal
    set implies), or None. Cards the engine holds since an earlier step come first: the rule of
    the step that last moved them (the reference's), else, or where the engine holds the
    turn-up, the rule that last decided the hands."""
    older = _older_cards(point, obs.state, took=engine_moved) if obs.state else []
    if older:
        moved = point.provenance.get("_cards", {})
        rule = next((moved[c] for c in older if moved.get(c)), None)
        # the engine holding the turn-up, under other cards in the reference's talon, took from
        # the talon's other end: where the turn-up lies decides, whatever last moved that card
        # (a swap that made it the turn-up)
        if rule is None or _turn_up_held(point, obs.state):
            return _field_finding(point, ["hands"], obs.state, engine_moved=False)
        if rule == "draw":  # dealt by an earlier draw, which may not be the last one
            talon = point.provenance["_draw_talon"][next(c for c in older if moved.get(c))]
            rule = _older_draw_rule(point, obs.state, talon)
        return Diagnosis(rule, "state.hands", f"the engine holds {', '.join(older[:3])} since an "
                         "earlier step", involved=[rule], older=True)
    found = _bout_end_finding(point, ref_game, obs, engine_moved)
    if found is not None:
        return found
    if obs.state:
        fields = differing_fields(observable(ref_game), obs.state)
        if fields:
            return _field_finding(point, fields, obs.state, engine_moved)
    if obs.legal is not None and not ref_game.state.finished:
        roles = _role_fields(ref_game, _texts(obs.legal))
        if roles:
            return _field_finding(point, list(roles), roles, engine_moved)
    return None


def allowed_before(ruleset: Ruleset, setup, observations: list[Observation]) -> list:
    """What the engine allowed in `observations` (every one of them) where the reference allowed
    it too, as _Point.history: for legal_differences after the last of them."""
    return _replay(ruleset, _setup(ruleset, setup), list(observations) + [Observation(None)],
                   False).history


_ATTRIBUTED: list = []  # the last attribution: [(ruleset, setup, observations, what was seen, Diagnosis)]


def _seen(observations: list[Observation]) -> tuple:
    return tuple((id(o), o.action, o.accepted, id(o.state), id(o.legal)) for o in observations)


def attribute(ruleset: Ruleset, setup, observations: list[Observation]) -> Diagnosis:
    """The rule that decides the difference at the last observation (no counterfactual search).
    The same observations attributed again (a later difference of a case run, named first to
    tell it from those reported, then searched) give the kept answer."""
    setup = _setup(ruleset, setup)
    if not observations:
        return Diagnosis(None, "", "nothing was observed")
    seen = _seen(observations)
    if _ATTRIBUTED and _ATTRIBUTED[0][0] is ruleset and _ATTRIBUTED[0][3] == seen and \
            _ATTRIBUTED[0][1] == setup:
        return copy.deepcopy(_ATTRIBUTED[0][4])
    found = _attribute_anew(ruleset, setup, observations)
    _ATTRIBUTED[:] = [(ruleset, setup, list(observations), seen, copy.deepcopy(found))]
    return found


def _attribute_anew(ruleset: Ruleset, setup: Setup, observations: list[Observation]) -> Diagnosis:
    point = _replay(ruleset, setup, observations, False)
    found = _attribute(point, observations[-1])
    found.step = len(observations) - 1
    _draw_told(ruleset, setup, observations, found)
    if found.rule is None and found.check:
        try:
            found.rule = _last_resort(point, observations[-1], found)
        except (DurakError, ValueError, IndexError):
            pass
    return found


def _draw_told(rs: Ruleset, setup: Setup, observations: list[Observation], found: Diagnosis) -> None:
    """Where an earlier draw decides a difference, which of its two rules does (who draws how
    many, or in what order) is told by the values of the options each reads: a value under which
    the reference does everything the engine did, of one rule's options only, names that rule
    (the hands of later steps mix the cards of several draws, and what the engine dealt then is
    not seen; a draw at the step itself is judged by what it dealt, _draw_rule, where a hand
    size that happens to deal the talon's last cards alike is no evidence). A variant that would
    have dealt another hand than the setup's counts here (the setup gave the hands, so the
    engine dealt none), though it is never advice (search_options): an engine that fills hands
    to seven after dealing six draws as that variant does."""
    rules = [rs.decisions[d].rule.id for d in ("drawer", "draw_key")]
    if found.rule not in rules or not found.older or not found.check or found.step is None:
        return
    spec, told = rs.spec, []
    for rid in rules:
        for name in rule_options(spec, spec.rules_by_id[rid]):
            for value in spec.options[name].values:
                if rid in told or value == rs.options[name] and type(value) is type(rs.options[name]):
                    continue
                try:
                    variant = variant_ruleset(spec, rs.preset, {**rs.options, name: value})
                except DurakError:
                    continue
                if variant.behaviour_key() == rs.behaviour_key():
                    continue
                outcome = _try(variant, setup, observations, found.check)
                if outcome is not None and outcome[1]:
                    told.append(rid)
    if len(told) == 1 and told[0] != found.rule:
        found.also = list(dict.fromkeys([found.rule, *(r for r in found.also if r != told[0])]))
        found.rule = told[0]
        found.involved = list(dict.fromkeys([told[0], *found.involved]))


def _last_resort(point: _Point, obs: Observation, found: Diagnosis) -> str | None:
    """A rule for a real difference no attribution above decides: per kind of action that
    differs, the rule that forbids an extra action or at whose edge a missing one sits
    (legal_differences), else the first legality rule of the kinds that differ, else the rule
    that last decided the state field that differs."""
    game = point.after if point.legal and obs.accepted is not False else point.before
    kinds: list = []
    if point.action is not None and found.check == "verdict":
        kinds.append(point.action.kind)
        rule = edge_rule(point.before, point.action)
        if rule:
            return rule
    if obs.legal is not None:
        for rule, more, fewer in legal_differences(game, obs.legal, point.history):
            if rule:
                return rule
            kinds += [t.split()[1] for t in more + fewer if len(t.split()) > 1]
    for kind in dict.fromkeys(kinds):
        for cr in game.ruleset.legality.get(kind, ()):
            if not cr.clause.const:
                return cr.rule.id
    if found.check.startswith("state."):
        name = found.check[len("state."):]
        return point.provenance.get("hands" if name in ("hand_sizes", "talon_count") else name)
    return None


# -- the counterfactual ---------------------------------------------------------------------------

def _signature(point: _Point, obs: Observation):
    """What the reference does at the last step, in the terms the engine was observed in."""
    game = point.after if point.legal and obs.accepted is not False else point.before
    view = observable(game)
    state = tuple((k, repr(comparable_field(k, view.get(k)))) for k in sorted(obs.state or {}))
    legal = tuple(sorted(_legal_texts(game))) if obs.legal is not None else None
    return (point.legal, state, legal)


def _try(rs: Ruleset, setup: Setup, observations: list[Observation], check: str):
    """(reproduces the check, reproduces everything, signature), or None when the reference
    under `rs` does not agree with the engine before the last step."""
    try:
        point = _replay(rs, setup, observations, True)
    except (Inconsistent, DurakError, RuntimeError, ValueError):
        return None
    obs = observations[-1]
    game = point.after if point.legal else point.before
    if check.startswith("state."):
        fields = [check[len("state."):]]
    else:
        fields = ["legal"] if check == "legal" else []
    reproduces = _consistent(game, point.legal, point.action, obs, fields)
    exact = _consistent(game, point.legal, point.action, obs)
    return reproduces, exact, _signature(point, obs)


def _dealt_hand_size(setup: Setup) -> int | None:
    """The hand size a fresh deal shows (every hand alike, cards left in the talon), or None: a
    variant dealing another hand size cannot be the engine's (deck.deal)."""
    sizes = {len(h) for h in setup.hands}
    if setup.is_position or len(sizes) != 1 or not setup.talon:
        return None
    return sizes.pop()


def _deck_key(deck) -> tuple:
    """What makes two decks the same: the same cards in the same order, as many copies."""
    return deck.copies, tuple(c.text for c in deck.cards)


def _hand_size(rs: Ruleset, setup: Setup) -> int:
    probe = State.__new__(State)
    probe.n, probe.deck_size = setup.players, len(rs.deck)
    return rs.hand_size_fn(probe)


def _involved_options(rs: Ruleset, setup: Setup, observations: list[Observation]) -> list[str]:
    """The options that can change what the reference does at the last step: those read by the
    legality rules of the kinds of action involved there (the step's, and those of the actions
    where the legal sets differ; a pass follows from the cards that may be added), by the order
    rules, by every decision (a bout end, draw, rotation or result follows a step) and by the
    flow. Other options cannot explain the difference."""
    spec = rs.spec
    try:
        point = _replay(rs, setup, observations, True) if len(observations) > 1 else \
            _replay(rs, setup, observations, False)
    except (Inconsistent, DurakError, RuntimeError, ValueError):
        point = None
    kinds = set()
    obs = observations[-1]
    if point is not None:
        if point.action is not None:
            kinds.add(point.action.kind)
        if obs.legal is not None:
            game = point.after if point.legal else point.before
            kinds |= {t.split()[1] for t in _texts(obs.legal) ^ _legal_texts(game)
                      if len(t.split()) > 1}
    else:
        kinds = set(ACTION_KINDS)
    if kinds & {"throw", "pass"}:
        kinds |= {"throw", "pass"}
    rules = {cr.rule.id for k in kinds & set(rs.legality) for cr in rs.legality[k]}
    rules |= {cr.rule.id for cr in rs.order.values()}
    rules |= {cr.rule.id for cr in rs.decisions.values()}
    rules |= {r.id for r in spec.rules if r.options}
    names = [n for r in spec.rules if r.id in rules for n in rule_options(spec, r)]
    names += options_read(spec, [step["when"] for steps in spec.flow.values() for step in steps
                                 if isinstance(step, dict) and "when" in step])
    names += options_read(spec, ["hand_size"])
    # a rule switched on or off by an option (`when`) counts for its alternatives too
    names += [n for r in spec.rules if r.when for n in options_read(spec, [r.when])
              if any(n in options_read(spec, [o.when]) for o in spec.rules if o.id in rules and o.when)]
    return [n for n in dict.fromkeys(names) if n in spec.options]


SEARCH_LIMIT = 200  # variants replayed per search; over the whole suite, the first six shipped
# mutants' searches needed at most 89


def search_options(ruleset: Ruleset, setup, observations: list[Observation], check: str = "",
                   rules=(), budget: float = 30.0, memo: dict | None = None,
                   limit: int = SEARCH_LIMIT
                   ) -> tuple[list[dict], list[dict], int]:
    """Option values (one option, then pairs) under which the reference reproduces the engine at
    the last observation and agrees with it before. The options `rules` read are tried first.
    Returns (variants reproducing every field observed at the last step, variants reproducing
    only the failing check, variants replayed); a variant is {option: value}.

    `memo`, kept by the caller across the failures of one engine, makes a run with many failures
    cheap: variants that explained an earlier failure of the same rule are tried first (and end
    the search when they explain this one too), and once three searches for a rule found nothing,
    only the options that rule reads are tried for it."""
    spec = ruleset.spec
    setup = _setup(ruleset, setup)
    deadline = time.perf_counter() + budget
    base = ruleset.options
    base_try = _try(ruleset, setup, observations, check)
    base_sig = base_try[2] if base_try else None
    by_id = spec.rules_by_id
    first = [n for r in rules if r in by_id for n in rule_options(spec, by_id[r])]
    names = list(dict.fromkeys(first + _involved_options(ruleset, setup, observations)))
    behaviour = ruleset.behaviour_key()
    dealt = _dealt_hand_size(setup)
    deck = _deck_key(ruleset.deck)
    exact, partly, movers, tried = [], [], [], 0

    def spent() -> bool:
        return tried >= limit or time.perf_counter() > deadline

    def attempt(change: dict):
        nonlocal tried
        try:
            rs = variant_ruleset(spec, ruleset.preset, {**base, **change})
        except DurakError:
            return False
        if rs.behaviour_key() == behaviour or dealt is not None and _hand_size(rs, setup) != dealt:
            return False
        if _deck_key(rs.deck) != deck:  # another deck has other cards: the setup is not its deal
            return False
        tried += 1
        outcome = _try(rs, setup, observations, check)
        if outcome is None:
            return False
        reproduces, whole, sig = outcome
        if whole:
            exact.append(change)
        elif reproduces:
            partly.append(change)
        return sig != base_sig

    seen = memo.setdefault((ruleset.preset, rules[0] if rules else None), {"found": [], "misses": 0}) \
        if memo is not None else {"found": [], "misses": 0}
    for change in list(seen["found"]):
        if all(n in base for n in change) and attempt(dict(change)) is not None and exact:
            break
    if seen["misses"] >= 3:
        names = [n for n in names if n in first]
    for name in names if not exact else []:
        for value in spec.options[name].values:
            if spent():
                break
            if value == base[name] and type(value) is type(base[name]):
                continue
            if attempt({name: value}):
                movers.append((name, value))
        if exact and name not in first:
            break
    if not exact and seen["misses"] < 3:
        for i, (n1, v1) in enumerate(movers):
            for n2, v2 in movers[i + 1:]:
                if n1 != n2 and not spent():
                    attempt({n1: v1, n2: v2})
    def order(change: dict):  # the nearest value of a numeric option first
        return (len(change), [names.index(n) for n in change],
                sum(abs(v - base[n]) for n, v in change.items()
                    if isinstance(v, int) and isinstance(base[n], int) and not isinstance(v, bool)))
    exact = sorted({tuple(sorted(c.items(), key=str)): c for c in exact}.values(), key=order)
    if exact:
        seen["found"] = [c for c in [exact[0]] + seen["found"] if c][:4]
    else:
        seen["misses"] += 1
    return exact, sorted(partly, key=order), tried


def diagnose(ruleset: Ruleset, setup, observations: list[Observation], *, search: bool = True,
             budget: float = 30.0, memo: dict | None = None, settled=()) -> Diagnosis:
    """Attribute the difference at the last observation to one rule, and search the option space
    for a variant that explains it (see the module's docstring). Pass the same `memo` dict for
    the failures of one engine (search_options). `settled`: indexes of earlier observations that
    show differences reported already (another bug of the engine, with its own diagnosis): the
    search asks a variant to agree there with the engine's action and verdict alone, so an
    earlier bug does not keep the option value that explains this difference from being found."""
    setup = _setup(ruleset, setup)
    found = attribute(ruleset, setup, observations)
    if search and found.check:
        searched = leave_out(observations, [i for i in settled if i < len(observations) - 1])
        found.as_if, found.partly, found.searched = search_options(
            ruleset, setup, searched, found.check, [found.rule, *found.also], budget, memo)
        named = found.rule
        _follow_option(ruleset.spec, found)
        if found.rule != named:  # the rule reading the option found: do its options explain it
            rival, _, n = search_options(ruleset, setup, searched, found.check, [found.rule],
                                         budget, None)  # otherwise too? then no advice
            found.searched += n
            if any(set(c) != set(found.as_if[0]) for c in rival):
                found.as_if = []  # two house rules fit: advising either might hide the bug
    return found


def leave_out(observations: list[Observation], indexes) -> list[Observation]:
    """The observations with those at `indexes` left out: the last one dropped, an earlier one
    kept as its action and verdict alone (what the engine did there still leads to what follows)."""
    if not indexes:
        return observations
    out = list(observations)
    for i in sorted(set(indexes), reverse=True):
        if i == len(out) - 1:
            out.pop()
        elif 0 <= i < len(out):
            out[i] = Observation(out[i].action, out[i].accepted)
    return out


def _follow_option(spec, found: Diagnosis) -> None:
    """When the option that explains the difference is read not by the rule named but by one of
    the other rules involved, that other rule decides it."""
    if not found.as_if:
        return
    options = set(found.as_if[0])
    rules = spec.rules_by_id

    def reads(rule_id):
        return rule_id in rules and options & set(rule_options(spec, rules[rule_id]))

    if found.rule and reads(found.rule):
        return
    others = [r for r in found.also if reads(r)] or [r for r in found.involved if reads(r)]
    if others:
        found.also = [r for r in [found.rule, *found.also] if r and r != others[0]]
        found.rule = others[0]


def reproduces(ruleset: Ruleset, setup, observations: list[Observation]) -> bool:
    """Whether the reference under `ruleset` does everything the engine was observed to do in
    one game: every verdict, and every state field and legal set it was asked for (what makes
    advice "plays as if X = Y" true for a run, not only for its failing prefix)."""
    try:
        game = Game(ruleset, _setup(ruleset, setup))
        for obs in observations:
            if obs.action is None:
                if not _consistent(game, True, None, obs):
                    return False
                continue
            action = parse_action(obs.action, ruleset.deck, game.state.n)
            legal = action in game.legal_actions()
            if obs.accepted is not None and obs.accepted != legal:
                return False
            if legal:
                game.apply_action(action)
            if not _consistent(game, legal, None, obs):
                return False
    except (DurakError, RuntimeError, ValueError, TypeError, KeyError, IndexError):
        return False
    return True
