"""An engine speaking the durak-spec protocol (conformance/PROTOCOL.md) on stdin and stdout.

The tutorial "Check your engine" builds this file step by step. The engine behind it is a
stand-in, the durak-spec reference interpreter, so that the file runs as it is; each method of
`Engine` marks the one place where your own engine's calls go. Each method returns exactly the
protocol's result object, so the same class also runs in process:
`durak check --adapter python:my_engine:Engine`.
"""

import json
import sys

from durak_spec.conformance.engine import Skip  # raise it when the engine can't play a game
from durak_spec.reference_impl.errors import IllegalAction
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.spec import load_spec

SPEC = load_spec()


class Engine:
    """Maps the protocol's commands onto an engine's API."""

    def hello(self):
        # What the engine can do; the runner only asks for what is declared here.
        return {"name": "my-engine", "version": "0.1", "protocol": "1.1",
                "presets": list(SPEC.presets), "options": "any", "players": [2, 3, 4, 5, 6],
                "levels": ["verdicts", "state", "legal"], "positions": True}

    def start(self, variant, setup):
        # Your engine: create a game with these option values, hands, talon and trump.
        if variant["preset"] not in SPEC.presets:
            raise Skip(f"no preset {variant['preset']}")
        rules = SPEC.ruleset(variant["preset"], variant["options"])
        self.game = Game(rules, Setup.from_json(setup, rules.deck, rules.player_limits))
        return {}

    def apply(self, action):
        # Your engine: parse "1 cover 9S with JS", try it, report whether it was accepted.
        try:
            self.game.apply_action(self.game.parse_action(action))
        except IllegalAction as exc:
            return {"accepted": False, "rule": exc.rule_id, "reason": exc.reason}
        return {"accepted": True}

    def legal(self):
        # Your engine: every action any seat may make now, as canonical text.
        return {"actions": [self.game.action_to_string(a) for a in self.game.legal_actions()]}

    def state(self):
        # Your engine: its state in the protocol's notation.
        full = self.game.full_state()
        return {"state": {
            "hands": full["hands"], "hand_sizes": [len(h) for h in full["hands"]],
            "talon_count": len(full["talon"]), "trump": full["trump"], "table": full["table"],
            "discard_count": full["discard_count"], "attacker": full["attacker"],
            "defender": full["defender"], "taking": full["taking"], "out": full["out"],
            "finished": full["finished"], "fool": (full["result"] or {}).get("fool")}}


def main():
    engine = Engine()
    for line in sys.stdin:
        request = json.loads(line)
        cmd, answer = request["cmd"], {"id": request["id"]}
        try:
            if cmd == "start":
                answer["result"] = engine.start(request["variant"], request["setup"])
            elif cmd == "apply":
                answer["result"] = engine.apply(request["action"])
            elif cmd == "stop":
                answer["result"] = {}
            else:
                answer["result"] = getattr(engine, cmd)()
        except Skip as exc:
            answer["skipped"] = str(exc)
        except Exception as exc:  # one answer per request, always: a failure is an error answer
            answer = {"id": request["id"], "error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(answer), flush=True)
        if cmd == "stop":
            return


if __name__ == "__main__":
    main()
