"""Rule attribution: the ONE rule that decides a difference between an engine and the reference.

Every consumer that compares an engine with the reference (the conformance runner, the fuzzer,
replay of game logs) describes what the engine did as a list of `Observation`s, one per step sent
to it (the action, whether the engine accepted it, and its state and legal set where they were
asked for), the last one being where it differs. `diagnose` replays them on the reference and
answers with a `Diagnosis`:

- `rule`: the rule whose clause, evaluated at that step, would have to change for the reference
  to do what the engine did. An action the engine accepts or lists that the reference forbids is
  charged to the rule that forbids it (`Game.explain`, every forbidding rule under `also`). An
  action the reference allows that the engine rejects or leaves out is charged to the rule whose
  clause, weakened or strengthened at one sub-expression, turns the reference's legal set into the
  engine's with the fewest other changes. A state field that differs is charged to the rule that
  decides that field at that step (the draw: `draw.who` or `draw.order` by what differs; the next
  attacker: `rotation.*`; the table after a transfer: `transfer.effect`; the first attacker: the
  start rule; ...), or to the rule that last decided it when the difference is older than the step.
  Roles are checked first: an engine that has the wrong attacker lists wrong attacks, and that is
  the rotation's fault, not the attack rule's.
- `as_if`: variants under which the reference reproduces the engine: each option's values alone,
  then pairs of the options that change the failing step at all (the others cannot explain it),
  within a time budget. Rulesets are compiled once per process and cached.

`Diagnosis.message()` says either "your engine plays as if `X = Y`: declare it as a house rule" or
"no option explains this: rule R".
"""

from __future__ import annotations

import ast
import copy
import time
from dataclasses import asdict, dataclass, field

from .errors import DurakError, NotationError, SpecError
from .game import Game, Setup
from .model import value_text
from .notation import action_text, comparable_field, parse_action, protocol_state
from .ruleset import Ruleset
from .state import Action
from .vocab import ACTION_KINDS, CARD_KINDS

ROLE_FIELDS = ("attacker", "defender", "taking")
# The rule each action kind's own effect falls under when a field differs right after it.
EFFECT_RULES = {"attack": "attack.opener", "throw": "throw_in.rank", "cover": "defence.beat",
                "take": "defence.take", "pass": "bout.pass", "transfer": "transfer.effect"}
# When one step changes several fields, the earliest stage that differs is the cause:
# (0) older than this step, (1) the action's own effect, (2) the end of the bout, (3) the draw,
# (4) going out, (5) the end of the game, (6) the fool, (7) the next attacker, (8) the defender.
STAGE = {"older": 0, "effect": 1, "bout_end": 2, "draw": 3, "out": 4, "game_over": 5, "fool": 6,
         "attacker": 7, "defender": 8}


@dataclass
class Observation:
    """What the engine did at one step: `action` is None for the start of the game. `state` (any
    subset of the protocol's state fields) and `legal` are the engine's after the step, or before
    it when the engine rejected it; None where they were not asked for."""

    action: str | None
    accepted: bool | None = None
    state: dict | None = None
    legal: list | None = None


@dataclass
class Diagnosis:
    rule: str | None
    check: str = ""          # verdict, legal or state.<field>
    why: str = ""
    also: list = field(default_factory=list)
    step: int | None = None  # index in the observations
    as_if: list = field(default_factory=list)  # [{option: value, ...}] reproducing the engine
    searched: int = 0        # variants tried by the counterfactual search
    exact: bool = False      # an as_if variant reproduces every field observed at the step

    def message(self) -> str:
        if self.as_if:
            first = " and ".join(f"`{k} = {value_text(v)}`" for k, v in self.as_if[0].items())
            return f"your engine plays as if {first}: declare it as a house rule"
        if self.rule:
            return f"no option explains this: rule {self.rule}"
        return "no rule of the reference decides this difference"

    def to_json(self) -> dict:
        out = asdict(self)
        out["as_if"] = [{k: v for k, v in d.items()} for d in self.as_if]
        out["message"] = self.message()
        return out


# -- rulesets, compiled once ---------------------------------------------------------------------

_RULESETS: dict = {}
_RULESET_LIMIT = 512


def variant_ruleset(spec, preset: str, options: dict) -> Ruleset:
    """The ruleset of `preset` with `options`, compiled once per process."""
    key = (id(spec), str(spec.root), preset, tuple(sorted((k, repr(v)) for k, v in options.items())))
    rs = _RULESETS.get(key)
    if rs is None:
        if len(_RULESETS) >= _RULESET_LIMIT:
            _RULESETS.clear()
        rs = _RULESETS[key] = spec.ruleset(preset, options)
    return rs


# -- replaying observations ----------------------------------------------------------------------

@dataclass
class _Point:
    """The reference at one observation: before and after the step, and what it says."""

    before: Game
    after: Game
    action: Action | None
    legal: bool                 # the reference accepts the step (True at the start)
    provenance: dict            # field -> rule id that last decided it, before this step
    stages: dict                # field -> (stage, rule) this step decided, on the reference


def _initial_provenance(game: Game, setup: Setup) -> dict:
    rs = game.ruleset
    prov = {"hands": "deck.deal", "hand_sizes": "deck.deal", "talon_count": "deck.deal"}
    if setup.attacker is None:
        prov["attacker"] = rs.decisions["first_attacker"].rule.id
    if setup.defender is None:
        prov["defender"] = rs.decisions["first_defender"].rule.id
    return prov


def _stages(rs: Ruleset, before, after, action: Action) -> dict:
    """field -> (stage, rule) for what the reference decided at this step."""
    out = {}
    kind = action.kind
    effect = EFFECT_RULES.get(kind)
    for f in ("table", "hands", "hand_sizes", "taking"):
        out[f] = (STAGE["effect"], effect)
    if kind == "transfer":
        for f in ("attacker", "defender"):
            out[f] = (STAGE["effect"], "transfer.effect")
    ended = bool(before.table) and not after.table
    if ended:
        beaten = after.beaten_bouts > before.beaten_bouts
        end_rule = rs.decisions["bout_beaten_off" if beaten else "bout_taken"].rule.id
        for f in ("table", "discard_count", "taking"):
            out[f] = (STAGE["bout_end"], end_rule)
        for f in ("hands", "hand_sizes"):
            out[f] = (STAGE["bout_end"], end_rule)
        if len(after.talon) != len(before.talon):
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


def _walk(rs: Ruleset, setup: Setup, observations: list[Observation]):
    """Replay the observations on the reference; yield a _Point per observation. A step the
    reference forbids is not applied (the engine is expected to have rejected it)."""
    game = Game(rs, setup)
    prov = _initial_provenance(game, setup)
    for obs in observations:
        if obs.action is None:
            yield _Point(game, game, None, True, dict(prov), {})
            continue
        action = parse_action(obs.action, rs.deck, game.state.n)
        before = game.clone()
        if action not in game.legal_actions():
            yield _Point(before, before, action, False, dict(prov), {})
            continue
        game.apply_action(action)
        stages = _stages(rs, before.state, game.state, action)
        yield _Point(before, game.clone(), action, True, dict(prov), stages)
        for f, (_, rule) in stages.items():
            if rule is not None:
                prov[f] = "draw.order" if rule == "draw" else rule


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
        if key not in ref:
            continue
        if value != ref[key] and comparable_field(key, value) != comparable_field(key, ref[key]):
            out.append(key)
    return out


def _texts(actions) -> set[str]:
    return {" ".join(str(a).split()) for a in actions}


def _legal_texts(game: Game) -> set[str]:
    return {action_text(a) for a in game.legal_actions()}


# -- attribution ------------------------------------------------------------------------------------

def forbidding_rules(game: Game, action: Action) -> list[str]:
    """Every rule that forbids `action` now, the one Game.explain names first; [] if legal."""
    first, _ = game.explain(action)
    if not first:
        return []
    s, rs = game.state, game.ruleset
    rules = [first]
    if action.kind in rs.legality and 0 <= action.seat < s.n and not s.finished:
        for cr in rs.legality[action.kind]:
            if cr.rule.id not in rules and not cr.clause.fn(s, action.seat, action.card, action.target):
                rules.append(cr.rule.id)
    return rules


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
        elif words[1] in ("cover", "take", "transfer"):
            seats["defender"].add(int(words[0]))
    out = {}
    for role, found in seats.items():
        if len(found) == 1 and found != {getattr(s, role)}:
            out[role] = found.pop()
    return out


def _draw_rule(before, after, eng: dict) -> str | None:
    """draw.who or draw.order by what differs after a draw, or None when the cards kept from
    before the draw already differ (the difference is not the draw's)."""
    talon = {c.text for c in before.talon}
    n = after.n
    size = after.hand_size
    drawers = {seat for seat in range(n) if after.drew[seat] or after.short_after_draw[seat]}
    if isinstance(eng.get("hands"), list) and len(eng["hands"]) == n:
        eng_drawn = []
        for seat in range(n):
            hand = eng["hands"][seat]
            if not isinstance(hand, list):
                return None
            kept_eng = {c for c in hand if c not in talon}
            kept_ref = {c.text for c in after.hands[seat] if c.text not in talon}
            if kept_eng != kept_ref:
                return None
            eng_drawn.append(len(hand) - len(kept_eng))
        eng_sizes = [len(h) for h in eng["hands"]]
    elif isinstance(eng.get("hand_sizes"), list) and len(eng["hand_sizes"]) == n:
        eng_sizes = eng["hand_sizes"]
        eng_drawn = [eng_sizes[seat] - (len(after.hands[seat]) - after.drew[seat]) for seat in range(n)]
    else:
        return "draw.order"
    eng_talon = eng.get("talon_count", len(talon) - sum(max(0, d) for d in eng_drawn))
    for seat in range(n):
        if eng_drawn[seat] > 0 and seat not in drawers:
            return "draw.who"
        if seat in drawers and eng_sizes[seat] < size and isinstance(eng_talon, int) and eng_talon > 0:
            return "draw.who"
    return "draw.order"


def _field_finding(point: _Point, fields: list[str], eng: dict, engine_moved: bool) -> Diagnosis:
    """The rule deciding the earliest-stage field among `fields` (which differ)."""
    b, a = point.before.state, point.after.state
    candidates = []
    for f in fields:
        stage = point.stages.get(f) if engine_moved and point.legal else None
        if f == "table" and point.action is not None and engine_moved:
            ref_empty = not a.table
            eng_empty = not eng.get("table")
            if ref_empty != eng_empty and b.table:
                taken = b.taking or point.action.kind == "take"
                rs = point.before.ruleset
                stage = (STAGE["bout_end"], rs.decisions["bout_taken" if taken else "bout_beaten_off"].rule.id)
        if stage is None:
            rule = point.provenance.get("hands" if f in ("hand_sizes", "talon_count") else f)
            if rule is None:
                rule = {"out": "end.out", "finished": "end.game_over", "fool": "end.fool",
                        "discard_count": "bout.beaten_off", "taking": "defence.take",
                        "table": EFFECT_RULES.get(point.action.kind) if point.action else None
                        }.get(f)
            stage = (STAGE["older"], rule)
        rule = stage[1]
        if rule == "draw":
            rule = _draw_rule(b, a, eng) or point.stages.get("table", (0, None))[1]
        candidates.append((stage[0], f, rule))
    candidates.sort(key=lambda c: (c[0], fields.index(c[1])))
    _, f, rule = candidates[0]
    return Diagnosis(rule, f"state.{f}", f"state.{f} differs",
                     also=[r for _, _, r in candidates[1:] if r and r != rule])


def _universe(s) -> list[Action]:
    """Every action any seat could make with the cards it holds (legal or not)."""
    out = []
    unbeaten = [t for t, d in s.table if d is None]
    for seat in range(s.n):
        for kind in ACTION_KINDS:
            if kind == "cover":
                out += [Action(kind, seat, c, t) for c in s.hands[seat] for t in unbeaten]
            elif kind in CARD_KINDS:
                out += [Action(kind, seat, c) for c in s.hands[seat]]
            else:
                out.append(Action(kind, seat))
    return out


_MUTATIONS: dict = {}


def _mutations(rs: Ruleset, rule) -> list[tuple[object, int]]:
    """Each way to replace one bool sub-expression of the rule's clause by True or False, compiled:
    [(fn(s, seat, card, target), depth)], the whole clause first."""
    key = (id(rs), rule.id)
    if key in _MUTATIONS:
        return _MUTATIONS[key]
    out, seen = [], set()
    try:
        tree = ast.parse(rule.clause.strip(), mode="eval")
    except SyntaxError:
        return []
    nodes = []

    def visit(node, depth):
        if isinstance(node, (ast.BoolOp, ast.Compare, ast.UnaryOp, ast.Call, ast.Name, ast.IfExp)):
            nodes.append((node, depth))
        for child in ast.iter_child_nodes(node):
            visit(child, depth + 1)

    visit(tree.body, 0)
    for index, (_, depth) in enumerate(nodes):
        for value in (True, False):
            new = copy.deepcopy(tree)
            target = [n for n in _walk_nodes(new.body)][index]
            text = ast.unparse(_replace(new, target, ast.Constant(value)))
            try:
                clause = rs.compile_variant_of(rule, text)
            except SpecError:
                continue
            if clause.src in seen:
                continue
            seen.add(clause.src)
            out.append((clause.fn, depth))
    _MUTATIONS[key] = out
    return out


def _walk_nodes(node):
    if isinstance(node, (ast.BoolOp, ast.Compare, ast.UnaryOp, ast.Call, ast.Name, ast.IfExp)):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _walk_nodes(child)


def _replace(tree, target, new):
    if tree.body is target:
        tree.body = new
        return tree
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, new)
                return tree
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is target:
                        value[i] = new
                        return tree
    return tree


def permission_finding(game: Game, engine_legal: set[str] | None, focus: Action | None = None
                       ) -> Diagnosis:
    """The legality rule behind a difference of permissions: `engine_legal` is the engine's legal
    set (None if unknown: then the engine is taken to allow what the reference allows, but
    `focus`, which it rejected)."""
    rs, s = game.ruleset, game.state
    ref = _legal_texts(game)
    eng = set(engine_legal) if engine_legal is not None else ref - {action_text(focus)}
    extra, missing = sorted(eng - ref), sorted(ref - eng)
    if not extra and not missing:
        return Diagnosis(None, "legal", "no difference")
    parsed_extra = []
    for text in extra:
        try:
            parsed_extra.append(parse_action(text, rs.deck, s.n))
        except NotationError:
            continue
    universe = list(dict.fromkeys(_universe(s) + parsed_extra))
    # Each action's verdict by each legality rule of its kind, once.
    verdicts = {}
    for a in universe:
        if not 0 <= a.seat < s.n:
            continue
        verdicts[a] = {cr.rule.id: bool(cr.clause.fn(s, a.seat, a.card, a.target))
                       for cr in rs.legality[a.kind]}
    legal_now = set(game.legal_actions())
    order_cut = {a for a, v in verdicts.items() if all(v.values()) and a not in legal_now}
    texts = {a: action_text(a) for a in verdicts}
    explained = [forbidding_rules(game, a) for a in parsed_extra]
    first_named = explained[0][0] if explained and explained[0] else None

    def score(allowed) -> int:
        return sum(1 for a in verdicts if allowed(a) != (texts[a] in eng)) + \
            len(extra) - len(parsed_extra)

    baseline = score(lambda a: a in legal_now)
    best = None  # (score, preference, rule id)
    order_rank = {r.id: i for i, r in enumerate(rs.spec.rules)}
    rules = {}
    for kind in ACTION_KINDS:
        for cr in rs.legality[kind]:
            rules.setdefault(cr.rule.id, cr.rule)
    for rule_id, rule in rules.items():
        kinds = set(rule.applies_to)
        for fn, depth in _mutations(rs, rule):
            def allowed(a, fn=fn, rule_id=rule_id, kinds=kinds):
                v = verdicts[a]
                if a.kind not in kinds:
                    return a in legal_now
                if a in order_cut:
                    return False
                return all(ok for r, ok in v.items() if r != rule_id) and \
                    bool(fn(s, a.seat, a.card, a.target))
            sc = score(allowed)
            pref = (0 if rule_id == first_named else 1, order_rank.get(rule_id, 999), -depth)
            if sc < baseline and (best is None or (sc, pref) < best[:2]):
                best = (sc, pref, rule_id)
    for kind, cr in rs.order.items():  # the order rule: a seat served out of turn
        if any(a in order_cut for a in parsed_extra):
            sc = score(lambda a: a in legal_now or (a in order_cut and a.kind in rs.order))
            pref = (0 if cr.rule.id == first_named else 1, order_rank.get(cr.rule.id, 999), 0)
            if sc < baseline and (best is None or (sc, pref) < best[:2]):
                best = (sc, pref, cr.rule.id)
    if best is None:
        rule_id = first_named
    else:
        rule_id = best[2]
    also = sorted({r for rs_ in explained for r in rs_} - {rule_id})
    why = (f"the engine allows {', '.join(extra[:3]) or '-'}"
           f"{' ...' if len(extra) > 3 else ''} and not {', '.join(missing[:3]) or '-'}"
           f"{' ...' if len(missing) > 3 else ''}")
    return Diagnosis(rule_id, "legal", why, also=also)


def _attribute(point: _Point, obs: Observation) -> Diagnosis:
    game_before = point.before
    action = point.action
    if action is not None and obs.accepted is not None and obs.accepted != point.legal:
        if obs.accepted:  # the engine accepted what the reference forbids
            if obs.state and action.kind != "transfer":
                roles = [f for f in differing_fields(observable(game_before), obs.state)
                         if f in ("attacker", "defender", "out")]
                if roles and not obs.state.get("finished"):
                    return _field_finding(point, roles, obs.state, engine_moved=False)
            rules = forbidding_rules(game_before, action)
            _, reason = game_before.explain(action)
            return Diagnosis(rules[0] if rules else None, "verdict",
                             f"{action_text(action)}: {reason}", also=rules[1:])
        # the engine rejected what the reference allows: its position is the one before the step
        if obs.state:
            fields = differing_fields(observable(game_before), obs.state)
            if fields:
                return _field_finding(point, fields, obs.state, engine_moved=False)
        if obs.legal is not None:
            roles = _role_fields(game_before, _texts(obs.legal))
            if roles:
                return _field_finding(point, list(roles), roles, engine_moved=False)
        found = permission_finding(game_before, _texts(obs.legal) if obs.legal is not None else None,
                                   action)
        found.check = "verdict"
        found.why = f"the engine rejects {action_text(action)}, which the reference allows"
        return found
    moved = action is None or point.legal
    ref_game = point.after if moved else game_before
    if obs.state:
        fields = differing_fields(observable(ref_game), obs.state)
        if fields:
            return _field_finding(point, fields, obs.state, engine_moved=moved and action is not None)
    if obs.legal is not None and _texts(obs.legal) != _legal_texts(ref_game):
        roles = _role_fields(ref_game, _texts(obs.legal))
        if roles:
            p = point if not moved or action is None else _Point(
                point.after, point.after, None, True,
                {**point.provenance, **{f: r for f, (_, r) in point.stages.items() if r}}, {})
            return _field_finding(p, list(roles), roles, engine_moved=False)
        return permission_finding(ref_game, _texts(obs.legal))
    return Diagnosis(None, "", "the reference does what the engine did")


def attribute(ruleset: Ruleset, setup, observations: list[Observation]) -> Diagnosis:
    """The rule that decides the difference at the last observation (no counterfactual search)."""
    setup = _setup(ruleset, setup)
    point = None
    for point in _walk(ruleset, setup, observations):
        pass
    if point is None:
        return Diagnosis(None, "", "nothing was observed")
    found = _attribute(point, observations[-1])
    found.step = len(observations) - 1
    return found


def _setup(ruleset: Ruleset, setup) -> Setup:
    if isinstance(setup, Setup):
        return setup
    return Setup.from_json(setup, ruleset.deck, ruleset.player_limits)


# -- the counterfactual ---------------------------------------------------------------------------

def _signature(point: _Point, obs: Observation):
    """What the reference does at the last step, in the terms the engine was observed in."""
    moved = point.action is None or point.legal
    game = point.after if moved and (obs.accepted is not False) else point.before
    view = observable(game)
    state = None
    if obs.state:
        state = tuple((k, repr(comparable_field(k, view.get(k)))) for k in sorted(obs.state))
    legal = tuple(sorted(_legal_texts(game))) if obs.legal is not None else None
    return (point.legal, state, legal)


def _consistent(point: _Point, obs: Observation, fields=None) -> bool:
    """The reference at this point does what the engine was observed to do (only `fields` of the
    state when given)."""
    if point.action is not None and obs.accepted is not None and obs.accepted != point.legal:
        return False
    game = point.after if point.legal else point.before
    if obs.state:
        keys = obs.state if fields is None else [f for f in fields if f in obs.state]
        if differing_fields(observable(game), {k: obs.state[k] for k in keys}):
            return False
    if obs.legal is not None and (fields is None or "legal" in fields):
        if _texts(obs.legal) != _legal_texts(game):
            return False
    return True


def _try(rs: Ruleset, setup: Setup, observations: list[Observation], check: str):
    """(consistent before the last step, reproduces the check, reproduces everything, signature)."""
    try:
        points = list(_walk(rs, setup, observations))
    except (DurakError, RuntimeError, ValueError):
        return False, False, False, None
    for point, obs in zip(points[:-1], observations[:-1]):
        if not _consistent(point, obs):
            return False, False, False, None
    last, obs = points[-1], observations[-1]
    fields = [check[len("state."):]] if check.startswith("state.") else \
        (["legal"] if check == "legal" else [])
    reproduces = _consistent(last, obs, fields) if check else _consistent(last, obs)
    exact = _consistent(last, obs)
    return True, reproduces, exact, _signature(last, obs)


def search_options(ruleset: Ruleset, setup, observations: list[Observation], check: str = "",
                   budget: float = 3.0) -> tuple[list[dict], bool, int]:
    """Option values (one option, then pairs) under which the reference reproduces the engine at
    the last observation and agrees with it before. Returns (variants as {option: value}, whether
    the first reproduces every observed field, variants tried)."""
    spec = ruleset.spec
    setup = _setup(ruleset, setup)
    deadline = time.perf_counter() + budget
    base = ruleset.options
    _, _, _, base_sig = _try(ruleset, setup, observations, check)
    singles, movers, found, tried = [], [], [], 0
    for name, option in spec.options.items():
        for value in option.values:
            if value == base[name] and type(value) is type(base[name]):
                continue
            singles.append((name, value))
    exact_any = False

    def attempt(change: dict):
        nonlocal tried, exact_any
        tried += 1
        try:
            rs = variant_ruleset(spec, ruleset.preset, {**base, **change})
        except DurakError:
            return None
        consistent, reproduces, exact, sig = _try(rs, setup, observations, check)
        if consistent and reproduces:
            found.append((not exact, len(change), change))
            exact_any = exact_any or exact
        return consistent and sig != base_sig

    for name, value in singles:
        if time.perf_counter() > deadline:
            break
        if attempt({name: value}):
            movers.append((name, value))
    if not found:
        for i, (n1, v1) in enumerate(movers):
            for n2, v2 in movers[i + 1:]:
                if n1 == n2 or time.perf_counter() > deadline:
                    continue
                attempt({n1: v1, n2: v2})
    found.sort(key=lambda f: (f[0], f[1]))
    return [change for _, _, change in found], bool(found) and not found[0][0], tried


def diagnose(ruleset: Ruleset, setup, observations: list[Observation], *, search: bool = True,
             budget: float = 3.0) -> Diagnosis:
    """Attribute the difference at the last observation to one rule, and search the option space
    for a variant that explains it (see the module's docstring)."""
    setup = _setup(ruleset, setup)
    found = attribute(ruleset, setup, observations)
    if search and found.rule is not None or search and found.check:
        found.as_if, found.exact, found.searched = search_options(
            ruleset, setup, observations, found.check, budget)
    return found
