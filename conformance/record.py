"""Recording cases with the reference interpreter: golden playthroughs and expectation filling.

A case author writes the setup and the steps with the verdicts they claim; `record_case` plays them
on the reference under every listed variant, refuses a claim the reference contradicts, and adds
the state and the legal set after the steps asked for. Golden playthroughs are whole seeded games
recorded with the legal set and state after every step.
"""

from __future__ import annotations

import random

from durak_spec.conformance.cases import CaseError
from durak_spec.conformance.engine import comparable, state_view
from durak_spec.conformance.runner import compare_legal, compare_state
from durak_spec.reference_impl.errors import IllegalAction
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.notation import action_text
from durak_spec.reference_impl.spec import Spec
from durak_spec.reference_impl.state import Action
from durak_spec.reference_impl.vocab import CARD_KINDS, SECOND_KINDS, TARGET_KINDS

STATE_KEYS = ("hands", "talon_count", "table", "discard_count", "attacker", "defender", "taking",
              "out", "finished", "fool")


def _state(game: Game) -> dict:
    """The protocol's state, comparable: STATE_KEYS are recorded, any field a case claims is
    checked (the trump card after a reveal or an exchange, say)."""
    return comparable(state_view(game))


def _recorded(st: dict, claimed: dict | None) -> dict:
    return {k: st[k] for k in STATE_KEYS + tuple(k for k in claimed or {} if k not in STATE_KEYS)
            if k in st}


def _verdicts(spec: Spec, variant: str, options: dict, setup: dict, actions: list[str]):
    """Play `actions` on the reference; yield (verdict, rule, state, legal) after each."""
    rs = spec.ruleset(variant, options)
    game = Game(rs, Setup.from_json(setup, rs.deck, rs.player_limits))
    start_legal = sorted(action_text(a) for a in game.legal_actions())
    out = []
    for text in actions:
        action = game.parse_action(text)
        try:
            game.apply_action(action)
            verdict, rule = "accept", None
        except IllegalAction as exc:
            verdict, rule = "reject", exc.rule_id
        out.append((verdict, rule, _state(game), sorted(action_text(a) for a in game.legal_actions())))
    return start_legal, out


def record_case(spec: Spec, *, id: str, description: str, rules: list[str], setup: dict,
                steps: list, variants: list[str] | None = None, options: dict | None = None,
                state: str = "last", legal: str = "last", start_legal: bool | list = False,
                generated: dict | None = None) -> dict:
    """Build a case dict whose expectations come from (and are checked against) the reference.

    `steps` holds action texts (the reference's verdict is recorded) or dicts with `do` and the
    claimed `expect`, `rule`, partial `state` or `legal` (a claim the reference contradicts raises
    CaseError; a claimed state is then completed). `state` and
    `legal` say after which steps to record them: every, last or none (and for state, bouts:
    whenever a bout has just ended, and after the last step).
    """
    variants = list(variants or ["podkidnoy"])
    options = dict(options or {})
    raw = [s if isinstance(s, dict) else {"do": s} for s in steps]
    actions = [s["do"] for s in raw]
    first_legal, played = _verdicts(spec, variants[0], options, setup, actions)
    for other in variants[1:]:
        _, again = _verdicts(spec, other, options, setup, actions)
        for i, (a, b) in enumerate(zip(played, again)):
            if a[:2] != b[:2] or a[2] != b[2] or a[3] != b[3]:
                raise CaseError(id, f"{variants[0]} and {other} differ at step {i} ({actions[i]}): "
                                f"{a[:2]} vs {b[:2]}; split the case per variant", f"steps[{i}]")
    out_steps = []
    last = len(raw) - 1
    for i, (claim, (verdict, rule, st, lg)) in enumerate(zip(raw, played)):
        want = claim.get("expect")
        if want is not None and want != verdict:
            raise CaseError(id, f"step {i} ({claim['do']}) claims {want}; the reference says "
                            f"{verdict}" + (f" by {rule}" if rule else ""), f"steps[{i}]")
        if claim.get("rule") and claim["rule"] != rule:
            raise CaseError(id, f"step {i} ({claim['do']}) claims rule {claim['rule']}; the "
                            f"reference names {rule}", f"steps[{i}].rule")
        if claim.get("state"):
            diff = compare_state(claim["state"], st)
            if diff:
                raise CaseError(id, f"step {i} ({claim['do']}) claims state.{diff[0]} = {diff[1]!r}; "
                                f"the reference has {diff[2]!r}", f"steps[{i}].state")
        if claim.get("legal") is not None:
            diff = compare_legal(claim["legal"], lg)
            if diff:
                raise CaseError(id, f"step {i} ({claim['do']}) claims a legal set the reference "
                                f"does not have: missing {diff[0]}, extra {diff[1]}", f"steps[{i}].legal")
        step = {"do": claim["do"]}
        if verdict == "reject":
            step["expect"] = "reject"
            step["rule"] = rule
        if claim.get("note"):
            step["note"] = claim["note"]
        bout_over = state == "bouts" and not st["table"]
        if state == "every" or bout_over or (state in ("last", "bouts") and i == last) or claim.get("state"):
            step["state"] = _recorded(st, claim.get("state"))
        if legal == "every" or (legal == "last" and i == last) or claim.get("legal") is not None:
            step["legal"] = lg
        out_steps.append(step)
    case = {"id": id, "description": description, "rules": list(rules)}
    if variants != ["podkidnoy"]:
        case["variants"] = variants
    if options:
        case["options"] = options
    case["setup"] = setup
    if isinstance(start_legal, list):
        diff = compare_legal(start_legal, first_legal)
        if diff:
            raise CaseError(id, f"the legal set claimed before the first step differs from the "
                            f"reference's: missing {diff[0]}, extra {diff[1]}", "legal")
    if start_legal:
        case["legal"] = first_legal
    case["steps"] = out_steps
    if generated:
        case["generated"] = generated
    return case


def golden_case(spec: Spec, variant: str, players: int, seed: int) -> dict:
    """A complete seeded game under `variant`: the legal set after every step, the state after
    every bout and at the end."""
    rs = spec.ruleset(variant)
    setup = Setup.deal(rs, players, seed)
    game = Game(rs, setup)
    rng = random.Random(seed)
    actions = []
    while not game.is_terminal():
        action = rng.choice(game.legal_actions())
        actions.append(action_text(action))
        game.apply_action(action)
    rules = [r.id for r in rs.active_rules if r.id.split(".")[0] in ("play", "end")][:3] or \
        [rs.active_rules[0].id]
    return record_case(
        spec, id=f"golden/{variant}/{players}p_seed{seed}",
        description=f"A complete {variant} game for {players} players (seed {seed}), with the "
                    f"legal actions after every step and the state after every bout",
        rules=rules, setup=setup.to_json(), steps=actions, variants=[variant], state="bouts",
        legal="every", start_legal=True,
        generated={"by": "durak cases golden", "seed": seed,
                   "note": "uniformly random legal actions on the reference interpreter"})


def _candidates(game: Game, kinds):
    """Actions of `kinds` worth trying in this position: each seat's own cards, each also played
    as another suit where the variant has the Weli (its named suit, cards.Deck.as_suit: that
    notation is sent to no other engine), one foreign card, and every cover target on the table."""
    s = game.state
    deck = game.ruleset.deck
    for seat in range(s.n):
        hand = list(s.hands[seat])
        foreign = next((c for c in deck.cards if c not in hand), None)
        named = [deck.as_suit(c, next(x for x in deck.suits if x != c.suit))
                 for c in hand if not c.is_joker] if game.ruleset.played_forms else []
        cards = hand + named + ([foreign] if foreign is not None else [])
        for kind in kinds:
            if kind not in CARD_KINDS:
                yield Action(kind, seat)
            elif kind in TARGET_KINDS:
                for attack, _ in s.table:
                    for card in cards:
                        yield Action(kind, seat, card, attack)
            elif kind in SECOND_KINDS:  # pairs of cards, the lower index first
                for i, card in enumerate(cards):
                    for other in cards[i + 1:]:
                        yield Action(kind, seat, *sorted((card, other), key=lambda c: c.index))
            else:
                for card in cards:
                    yield Action(kind, seat, card)


def coverage_case(spec: Spec, preset: str, rule: str, verdict: str, kinds, *, seeds=range(1, 61),
                  players=(2, 3, 4), max_steps: int = 120) -> dict | None:
    """A case that reaches, by random legal play from a seeded deal, an action of `kinds` that
    the reference accepts (verdict accept) or rejects first by `rule` (verdict reject)."""
    rs = spec.ruleset(preset)
    best = None
    for n in players:
        for seed in seeds:
            setup = Setup.deal(rs, n, seed)
            game = Game(rs, setup)
            rng = random.Random(seed)
            prefix = []
            while not game.is_terminal() and len(prefix) < max_steps:
                if best is not None and len(prefix) >= len(best[2]):
                    break
                hit = _find(game, kinds, rule, verdict)
                if hit is not None:
                    if best is None or len(prefix) < len(best[2]):
                        best = (n, seed, list(prefix), hit, setup)
                    break
                action = rng.choice(game.legal_actions())
                prefix.append(action_text(action))
                game.apply_action(action)
            if best is not None and len(best[2]) <= 2:
                break
        if best is not None:
            break
    if best is None:
        return None
    n, seed, prefix, hit, setup = best
    steps = prefix + [{"do": hit, "expect": verdict, **({"rule": rule} if verdict == "reject" else {})}]
    area = rule.split(".")[0]
    return record_case(
        spec, id=f"generated/coverage/{preset}/{rule}.{verdict}",
        description=f"{preset}: the reference {'accepts' if verdict == 'accept' else 'rejects'} "
                    f"{hit!r}{' by ' + rule if verdict == 'reject' else ''} after "
                    f"{len(prefix)} random legal steps ({n} players, seed {seed})",
        rules=[rule], setup=setup.to_json(), steps=steps, variants=[preset], state="last",
        legal="last", generated={"by": "durak cases cover", "seed": seed,
                                 "note": f"area {area}: random legal play until the rule decides"})


def _find(game: Game, kinds, rule: str, verdict: str) -> str | None:
    legal = set(game.legal_actions())
    for action in _candidates(game, kinds):
        if verdict == "accept":
            if action in legal:
                return action_text(action)
        elif action not in legal and game.explain(action)[0] == rule:
            return action_text(action)
    return None
