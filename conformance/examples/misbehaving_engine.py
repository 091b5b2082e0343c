"""A subprocess engine that misbehaves on request, to prove the runner survives bad engines.

    python -m durak_spec.conformance.examples.misbehaving_engine MODE [--on ACTION] [--delay SECONDS]

It is the reference engine, served by reference_engine.serve, except at the `apply` of ACTION
(every apply when --on is not given), where it does what MODE says (or DURAK_MISBEHAVE when no
MODE is given):

    crash        raises: exits with a traceback on stderr and a non-zero code
    hang         never answers
    exit         exits cleanly (code 0) without answering
    garbage      answers with a line that is not JSON
    flood        writes 2 MB without a newline
    wrong-id     answers with another request's id
    both         answers with both `result` and `error`
    missing-keys answers with only the id (no result, skipped or error)
    bad-result   answers with a result that breaks its schema ({"accepted": "yes"})
    slow-start   waits --delay seconds (default 2) before it reads the first request, then behaves
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from durak_spec.conformance.engine import ReferenceEngine
from durak_spec.conformance.examples.reference_engine import serve

MODES = ("crash", "hang", "exit", "garbage", "flood", "wrong-id", "both", "missing-keys",
         "bad-result", "slow-start")
FLOOD_BYTES = 2_000_000


class EngineCrash(RuntimeError):
    """Raised on purpose in crash mode; nothing catches it."""


def misbehave(mode: str, req: dict, out) -> None:
    """Do what `mode` says instead of answering `req` (returns only for the protocol modes)."""
    if mode == "crash":
        raise EngineCrash(f"crashing on purpose at {req['action']!r}")
    if mode == "hang":
        while True:
            time.sleep(3600)
    if mode == "exit":
        out.flush()
        sys.exit(0)
    lines = {
        "garbage": "this is not JSON {",
        "wrong-id": json.dumps({"id": req["id"] + 1000, "result": {"accepted": True}}),
        "both": json.dumps({"id": req["id"], "result": {"accepted": True}, "error": "also"}),
        "missing-keys": json.dumps({"id": req["id"]}),
        "bad-result": json.dumps({"id": req["id"], "result": {"accepted": "yes"}}),
    }
    if mode == "flood":
        out.write("x" * FLOOD_BYTES)
    else:
        out.write(lines[mode] + "\n")
    out.flush()


def requests(mode: str, on: str | None, stdin, out):
    """The request lines for serve(), minus the one this engine misbehaves on."""
    for line in stdin:
        try:
            req = json.loads(line)
        except ValueError:
            yield line
            continue
        if (mode != "slow-start" and isinstance(req, dict) and req.get("cmd") == "apply"
                and (on is None or req.get("action") == on)):
            misbehave(mode, req, out)
            continue
        yield line


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="misbehaving_engine", description=__doc__.split("\n")[0])
    parser.add_argument("mode", nargs="?", choices=MODES, default=os.environ.get("DURAK_MISBEHAVE"))
    parser.add_argument("--on", help="misbehave at the apply of this action (default: every apply)")
    parser.add_argument("--delay", type=float, default=2.0, help="slow-start: seconds to wait")
    args = parser.parse_args(argv)
    if args.mode not in MODES:
        parser.error(f"give a mode ({', '.join(MODES)}) or set DURAK_MISBEHAVE to one")
    if args.mode == "slow-start":
        time.sleep(args.delay)
    engine = ReferenceEngine(name=f"misbehaving ({args.mode})")
    serve(engine, stdin=requests(args.mode, args.on, sys.stdin, sys.stdout), stdout=sys.stdout)


if __name__ == "__main__":
    main()
