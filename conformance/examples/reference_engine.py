"""The reference interpreter as a subprocess engine: the template to copy for your own.

Run it as `durak check --adapter "cmd:python -m durak_spec.conformance.examples.reference_engine"`.
It reads one JSON request per line on stdin and writes one JSON answer per line on stdout, as
conformance/PROTOCOL.md specifies. `serve` works for any engine class with the interface of
conformance/engine.py, whose methods return exactly the protocol's result objects: the same class
then also runs in process as `python:MODULE:CLASS`, with identical results. To adapt it to your
engine, write such a class (hello, start, apply, legal, state) calling into your engine and keep
the loop; `step` is made of apply, state and legal when the class has none.
"""

import json
import sys

from durak_spec.conformance.engine import ReferenceEngine, Skip, thin_states
from durak_spec.conformance.protocol import dumps  # json.dumps, or orjson's when installed


def serve(engine, stdin=sys.stdin, stdout=sys.stdout) -> None:
    """Answer requests until `stop` or end of input. Every answer: result, skipped or error."""
    commands = {
        "hello": lambda req: hello(engine),
        "start": lambda req: engine.start(req["variant"], req["setup"]) or {},
        "apply": lambda req: engine.apply(req["action"]),
        "legal": lambda req: engine.legal(),
        "state": lambda req: engine.state(),
        "step": lambda req: steps(engine, req),
        "stop": lambda req: (engine.stop() if hasattr(engine, "stop") else None) or {},
        # protocol 1.1 "match": true
        "next_deal": lambda req: engine.next_deal(req["setup"]) or {},
        "score": lambda req: engine.score(),
    }
    # hello declares "step" and "delta" (protocol 1.1), so the fuzzer sends whole stretches of a
    # game in one request, and each state in the answer carries only the fields that changed
    for line in stdin:
        if not line.strip():
            continue
        req_id = None
        try:
            req = json.loads(line)
            req_id = req.get("id")
            answer = {"id": req_id, "result": commands[req["cmd"]](req)}
        except Skip as exc:
            answer = {"id": req_id, "skipped": str(exc) or "not supported"}
        except Exception as exc:  # report, never die: the runner decides what an error means
            answer = {"id": req_id if isinstance(req_id, int) else 0,
                      "error": f"{type(exc).__name__}: {exc}"}
        stdout.write(dumps(answer) + "\n")
        stdout.flush()
        if answer.get("result") is not None and req.get("cmd") == "stop":
            return


def hello(engine) -> dict:
    """The engine's hello; an engine that declares `step` also gets "delta": true, which serve
    answers for it (the states of a step answer thinned to the fields that changed)."""
    out = engine.hello()
    if isinstance(out, dict) and out.get("step") is True and "delta" not in out:
        out = {**out, "delta": True}
    return out


def steps(engine, req: dict) -> dict:
    """The answer to a `step` request: the engine's own step() when it has one, else made of
    apply, state and legal; with "delta" each state keeps only the fields that changed since the
    state before it in the answer."""
    if hasattr(engine, "step"):
        result = engine.step(req["actions"], bool(req.get("state")), bool(req.get("legal")))
    else:
        result = {"steps": [step(engine, action, req) for action in req["actions"]]}
    if req.get("delta") and isinstance(result, dict) and isinstance(result.get("steps"), list):
        result = {**result, "steps": thin_states([dict(e) if isinstance(e, dict) else e
                                                  for e in result["steps"]])}
    return result


def step(engine, action: str, req: dict) -> dict:
    """One action of a `step` request: the verdict, and after an accepted action the state and
    the legal actions when the request asks for them."""
    verdict = engine.apply(action)
    if verdict["accepted"]:
        if req.get("state"):
            verdict["state"] = engine.state()["state"]
        if req.get("legal"):
            verdict["legal"] = engine.legal()["actions"]
    return verdict


if __name__ == "__main__":
    serve(ReferenceEngine())
