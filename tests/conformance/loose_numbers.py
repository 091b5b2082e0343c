"""Engines that answer every state after the start in numbers Python finds equal to the
reference's, in process and as a subprocess (`python loose_numbers.py MODE`, served as the template
serves the reference):

    taking-int    "taking": 0 for false, 1 for true        (out of protocol: a boolean)
    finished-int  "finished": 0 for false                   (out of protocol: a boolean)
    taking-float  "taking": 0.0 for false, 1.0 for true     (out of protocol: a boolean)
    sizes-bool    a hand size of 0 or 1 as false or true    (out of protocol: an integer)
    sizes-float   every hand size as a float, 6.0 for 6     (in protocol: to JSON Schema, an
                                                             integer is a number without a fraction)

and engines out of protocol in values of one field, each one bug whatever the value, or in two:

    seat-range    the attacker's seat plus 6                (above the schema's maximum)
    trump-lower   the trump card's text in lower case       (not the pattern of a card)
    taking-sizes  "taking": 1 for true, a hand size of 0 as false (two bugs, in two fields)

Their start and their verdicts and legal sets are the reference's."""

from __future__ import annotations

import sys

from durak_spec.conformance.engine import ReferenceEngine


def _loosen(state: dict, mode: str) -> None:
    if mode == "taking-int":
        state["taking"] = int(state["taking"])
    elif mode == "finished-int":
        state["finished"] = int(state["finished"])
    elif mode == "taking-float":
        state["taking"] = float(state["taking"])
    elif mode == "sizes-bool":
        state["hand_sizes"] = [bool(n) if n < 2 else n for n in state["hand_sizes"]]
    elif mode == "sizes-float":
        state["hand_sizes"] = [float(n) for n in state["hand_sizes"]]
    elif mode == "seat-range":
        state["attacker"] += 6
    elif mode == "trump-lower":
        state["trump"] = state["trump"].lower()
    elif mode == "taking-sizes":
        state["taking"] = 1 if state["taking"] else False
        state["hand_sizes"] = [False if n == 0 else n for n in state["hand_sizes"]]


class LooseNumbers(ReferenceEngine):
    mode = "taking-int"

    def state(self) -> dict:
        out = super().state()
        if self.game.state.steps:
            _loosen(out["state"], self.mode)
        return out

    def step(self, actions, state=True, legal=True) -> dict:
        out = super().step(actions, state, legal)
        for entry in out["steps"]:
            if "state" in entry:
                _loosen(entry["state"], self.mode)
        return out


def _named(mode: str) -> type:
    return type(mode.title().replace("-", ""), (LooseNumbers,), {"mode": mode})


TakingInt = _named("taking-int")
FinishedInt = _named("finished-int")
TakingFloat = _named("taking-float")
SizesBool = _named("sizes-bool")
SizesFloat = _named("sizes-float")
SeatRange = _named("seat-range")
TrumpLower = _named("trump-lower")
TakingSizes = _named("taking-sizes")

if __name__ == "__main__":
    from durak_spec.conformance.examples.reference_engine import serve

    serve(_named(sys.argv[1])())
