"""The reference interpreter as a subprocess engine: the template to copy for your own.

Run it as `durak check --adapter "cmd:python -m durak_spec.conformance.examples.reference_engine"`.
It reads one JSON request per line on stdin and writes one JSON answer per line on stdout, as
conformance/PROTOCOL.md specifies. To adapt it to your engine, replace the calls of `engine`
(hello, start, apply, legal, state) with calls into your engine; keep the loop and `step`.
"""

import json
import sys

from durak_spec.conformance.engine import ReferenceEngine, Skip


def serve(engine, stdin=sys.stdin, stdout=sys.stdout) -> None:
    """Answer requests until `stop` or end of input. Every answer: result, skipped or error."""
    commands = {
        "hello": lambda req: engine.hello(),
        "start": lambda req: engine.start(req["variant"], req["setup"]) or {},
        "apply": lambda req: engine.apply(req["action"]),
        "legal": lambda req: {"actions": engine.legal()},
        "state": lambda req: {"state": engine.state()},
        "step": lambda req: {"steps": [step(engine, action, req) for action in req["actions"]]},
        "stop": lambda req: {},
    }
    # hello declares "step": true (protocol 1.1), so the fuzzer sends whole games in one request
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
        stdout.write(json.dumps(answer) + "\n")
        stdout.flush()
        if answer.get("result") is not None and req.get("cmd") == "stop":
            return


def step(engine, action: str, req: dict) -> dict:
    """One action of a `step` request: the verdict, and after an accepted action the state and
    the legal actions when the request asks for them."""
    verdict = engine.apply(action)
    if verdict["accepted"]:
        if req.get("state"):
            verdict["state"] = engine.state()
        if req.get("legal"):
            verdict["legal"] = engine.legal()
    return verdict


if __name__ == "__main__":
    serve(ReferenceEngine())
