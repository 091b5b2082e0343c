"""Match cases: a match described as a sequence of deals with expected scores (protocol 1.1,
capability `"match": true`; PROTOCOL.md "Matches").

A match case (a YAML file under conformance/cases/ with a `match:` key) names a preset, a player
count and its deals: each deal's cards (deal 1 also its dealer), its script of actions, and what
the deal must score: who dealt and opened it, the finishing order, the fool, each seat's score and
the totals, the epaulettes each seat received, the next dealer and whether the match is over. The runner starts deal 1 with `start`,
plays the script with `apply`, asks `score`, then sends each further deal's cards with
`next_deal`: the engine decides that deal's dealer and first attacker by its match rules.

`record_match` plays a random match on the reference and writes such a case; `check_match_case`
replays a case on the reference (a case that disagrees with the spec is broken); `run_match_case`
runs it against an engine and returns a runner `Result`. A verdict that differs in a deal is
diagnosed as a case's is (reference_impl/diagnose.py), from that deal's setup as the match
decided it: the failure names the rule that decides it.
"""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

from durak_spec.conformance.actionmodel import translate
from durak_spec.conformance.cases import Step
from durak_spec.conformance.engine import state_view
from durak_spec.conformance.runner import Mismatch, Result, Session
from durak_spec.conformance.transport import EngineFault
from durak_spec.reference_impl.diagnose import Observation
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Setup
from durak_spec.reference_impl.match import Match
from durak_spec.reference_impl.notation import action_text, parse_action
from durak_spec.reference_impl.simulate import STEP_LIMIT
from durak_spec.reference_impl.spec import Spec

COMPARED = ("dealer", "first_attacker", "finish_order", "fool", "scores", "totals", "epaulettes",
            "next_dealer", "over")
# Compared as false when left out: a deal called off for a redeal (rule deck.redeal) says so.
FLAGS = ("redeal",)


def _expect(result: dict) -> dict:
    return {**{k: result[k] for k in COMPARED}, **{k: True for k in FLAGS if result.get(k)}}


def _flag_differs(have: dict, expect: dict) -> str | None:
    return next((k for k in FLAGS if bool(have.get(k)) != bool(expect.get(k))), None)


class MatchCaseError(DurakError):
    """A match case file that does not describe a match the runner can play."""


def record_match(spec: Spec, preset: str, players: int, seed: int, deals: int | None = None,
                 options: dict | None = None) -> dict:
    """A match case: a random match of `preset` on the reference (at most `deals` deals)."""
    rs = spec.ruleset(preset, options or {})
    match = Match(rs, players)
    rng = random.Random(seed)
    out = []
    while not match.over and (deals is None or len(out) < deals):
        deal_seed = rng.randrange(2**31)
        game = match.deal(deal_seed)
        full = game.setup.to_json()
        cards = {k: full[k] for k in ("hands", "talon", "trump", "hidden") if k in full}
        if not out:
            cards["dealer"] = game.setup.dealer
        choice = random.Random(deal_seed).choice
        script = []
        while not game.is_terminal() and game.state.steps < STEP_LIMIT:
            action = choice(game.legal_actions())
            script.append(action_text(action))
            game.apply_action(action)
        if not game.is_terminal():
            break
        result = match.record(game).to_json()
        out.append({"setup": cards, "script": script,
                    "expect": _expect(result)})
    rules = [rs.match_decisions[d].rule.id for d in ("deal_score", "next_dealer", "match_over")]
    return {"id": f"match/{preset}_{players}p_seed{seed}",
            "description": f"A match of {preset} with {players} players: {len(out)} deals scored "
                           f"by the match rules (seed {seed}).",
            "rules": rules, "variants": [preset],
            "match": {"preset": preset, "players": players, "options": dict(options or {}),
                      "deals": out}}


def _deals(case_id: str, data: dict) -> tuple[dict, list]:
    m = data.get("match")
    if not isinstance(m, dict) or not isinstance(m.get("deals"), list) or not m["deals"] \
            or not isinstance(m.get("preset"), str) or not isinstance(m.get("players"), int):
        raise MatchCaseError(f"{case_id}: match needs preset, players and a list of deals")
    for i, d in enumerate(m["deals"]):
        if not (isinstance(d, dict) and isinstance(d.get("setup"), dict)
                and isinstance(d.get("script"), list) and isinstance(d.get("expect"), dict)):
            raise MatchCaseError(f"{case_id}: match.deals[{i}] needs setup, script and expect")
    return m, m["deals"]


def check_match_case(spec: Spec, case_id: str, data: dict) -> str | None:
    """Why the case disagrees with the reference interpreter, or None."""
    try:
        m, deals = _deals(case_id, data)
        rs = spec.ruleset(m["preset"], m.get("options") or {})
        first = deals[0]["setup"]
        match = Match(rs, m["players"], first_dealer=first.get("dealer"))
        for i, d in enumerate(deals):
            cards = {k: d["setup"][k] for k in ("hands", "talon", "trump", "hidden") if k in d["setup"]}
            game = match.start(Setup.from_json(cards, rs.deck, rs.player_limits))
            for action in d["script"]:
                game.apply_action(parse_action(action, rs.deck))
            if not game.is_terminal():
                return f"deal {i + 1}: the script does not finish the deal"
            have = match.record(game).to_json()
            for k in COMPARED:
                if have[k] != d["expect"].get(k):
                    return (f"deal {i + 1}: {k} is {have[k]!r} by the spec, the case says "
                            f"{d['expect'].get(k)!r}")
            flag = _flag_differs(have, d["expect"])
            if flag:
                return f"deal {i + 1}: {flag} is {bool(have.get(flag))} by the spec"
    except DurakError as exc:
        return str(exc)
    return None


def run_match_case(session: Session, case_id: str, data: dict, file: str = "") -> Result:
    """Run a match case against the session's engine (which declared "match": true)."""
    t0 = time.perf_counter()
    m = data.get("match") or {}
    res = Result(case_id, str(m.get("preset", "")), "pass", str(data.get("description", "")),
                 list(data.get("rules") or []), "match", file,
                 reproduce=session.reproduce(case_id, file, None))
    problem = check_match_case(session.spec, case_id, data)
    if problem:
        res.status, res.message = "broken", problem
        return _done(res, t0)
    hello = session.hello
    if not hello.get("match"):
        res.status = "skip"
        res.message = res.skip_reason = "the engine does not play matches (no \"match\" in hello)"
        res.would_help = "declare match"
        return _done(res, t0)
    if m["players"] not in hello.get("players", [m["players"]]):
        res.status, res.message = "skip", f"the engine does not play {m['players']} players"
        res.skip_reason = "player count"
        return _done(res, t0)
    rs = session.spec.ruleset(m["preset"], m.get("options") or {})
    variant = {"preset": m["preset"], "options": dict(rs.options)}
    adapter = session.adapter
    model = getattr(session, "model", None)
    # the reference plays the match beside the engine, so that each deal's script is sent as the
    # engine's action model plays it (actionmodel.translate: passes it has no room for dropped,
    # one-move openings merged), each move's verdict re-derived
    ref = Match(rs, m["players"], first_dealer=m["deals"][0]["setup"].get("dealer"))
    try:
        for i, d in enumerate(m["deals"]):
            if i == 0:
                setup = dict(d["setup"])
                reply = adapter.call("start", variant=variant, setup=setup)
            else:
                cards = {k: d["setup"][k] for k in ("hands", "talon", "trump", "hidden") if k in d["setup"]}
                reply = adapter.call("next_deal", setup=cards)
            if reply.kind != "result":
                res.status = "skip" if reply.kind == "skipped" else "error"
                res.message = f"deal {i + 1}: {reply.kind}: {reply.value}"
                res.skip_reason = res.message if res.status == "skip" else ""
                return _done(res, t0)
            cards = {k: d["setup"][k] for k in ("hands", "talon", "trump", "hidden") if k in d["setup"]}
            game = ref.start(Setup.from_json(cards, rs.deck, rs.player_limits))
            if model is None or model.canonical:
                moves = [(j, action, True) for j, action in enumerate(d["script"])]
                for action in d["script"]:
                    game.apply_action(parse_action(action, rs.deck))
            else:
                tr = translate([Step(a) for a in d["script"]], game, model, state_view)
                moves = [(mv.steps[0], mv.action, mv.expect == "accept") for mv in tr.moves]
                if tr.dropped or not game.is_terminal():
                    j, why = tr.dropped[0] if tr.dropped else (None, "")
                    why = why.removeprefix("the engine's model has ")
                    res.status = "skip"
                    res.skip_reason = (f"a match script needs steps the engine's action model "
                                       f"({model.describe()}) has no room for"
                                       + (f": {why}" if why else ""))
                    res.message = res.skip_reason + (f" (deal {i + 1}, step {j}: {d['script'][j]})"
                                                     if j is not None else f" (deal {i + 1})")
                    return _done(res, t0)
            for j, action, accept in moves:
                verdict = adapter.call("apply", action=action)
                res.steps_run += 1
                if verdict.kind != "result" or bool(verdict.value.get("accepted")) is not accept:
                    res.status, res.step, res.action = "fail", j, action
                    res.check, res.want, res.have = "verdict", accept, verdict.value
                    res.message = (f"deal {i + 1}: the engine rejects a legal action" if accept
                                   else f"deal {i + 1}: the engine accepts an illegal action")
                    if verdict.kind == "result" and (model is None or model.canonical):
                        played = [Observation(a, True) for a in d["script"][:j]]
                        session._diagnose(res, rs, SimpleNamespace(setup=game.setup.to_json()),
                                          played + [Observation(action, not accept)],
                                          Mismatch(j, action, "verdict", accept, verdict.value, res.message))
                    return _done(res, t0)
            if game.is_terminal():
                ref.record(game)
            reply = adapter.call("score")
            have = reply.value if reply.kind == "result" and isinstance(reply.value, dict) else {}
            if reply.kind != "result":
                res.status, res.message = "error", f"deal {i + 1}: score: {reply.value}"
                return _done(res, t0)
            if "epaulettes" not in have and rs.options["epaulettes"] == "none":
                have["epaulettes"] = [0] * m["players"]  # nobody wears any: it may be left out
            flag = _flag_differs(have, d["expect"])
            for k in COMPARED + ((flag,) if flag else ()):
                if k == flag or have.get(k) != d["expect"][k]:
                    res.status, res.check = "fail", f"score.{k}"
                    res.want, res.have = d["expect"].get(k, False), have.get(k)
                    res.message = f"deal {i + 1}: {k}"
                    res.rule = _rule_of(rs, k)
                    return _done(res, t0)
    except EngineFault as fault:
        res.status, res.message = "error", f"engine {fault.what}: {fault.detail}"
    return _done(res, t0)


def _rule_of(rs, key: str) -> str | None:
    """The rule that decides a compared field of the score."""
    decision = {"scores": "deal_score", "totals": "deal_score", "epaulettes": "deal_epaulettes",
                "next_dealer": "next_dealer", "over": "match_over"}.get(key)
    if decision is not None:
        return rs.match_decisions[decision].rule.id
    if key in ("dealer",):
        return rs.match_decisions["next_dealer"].rule.id
    if key == "first_attacker":
        return rs.decisions["first_attacker"].rule.id
    return {"finish_order": "end.standing", "fool": "end.fool", "redeal": "deck.redeal"}.get(key)


def _done(res: Result, t0: float) -> Result:
    res.seconds = round(time.perf_counter() - t0, 4)
    return res
