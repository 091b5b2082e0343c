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
    orphan       starts a child process that keeps stdout open and sleeps, then exits
    escape       starts a process that leaves the engine's session (setsid) and sleeps, then
                 answers correctly
    stderr       writes 1 MB to stderr at every request and answers correctly

As `python:durak_spec.conformance.examples.misbehaving_engine:MisbehavingEngine` it is an
in-process engine that misbehaves the same way at the apply of DURAK_MISBEHAVE_ON (every apply
when unset), in the mode DURAK_MISBEHAVE names:

    sys-exit     calls sys.exit(0)
    os-exit      calls os._exit(0)
    hang         never returns (sleeps)
    spin         never returns (a busy loop)
    many-legal   from then on lists five million legal actions
    crash        raises
    two-crashes  raises a KeyError at a take and a ZeroDivisionError at a cover by a trump (two
                 bugs: durak fuzz reports them apart)
    interrupt    raises KeyboardInterrupt itself (no Ctrl-C was pressed)
    huge         answers with a 3 MB string in its result
    not-json     answers with a set in its result
    skip-most    skips every deal whose trump is not a spade (about three deals in four)
    skip-five    declares 2 to 6 players but skips every deal of five or six
    state-error  answers every state request with an error (a message of 300 characters)
    bad-take     answers a take with {"accepted": "yes"} (out of protocol)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from durak_spec.conformance.engine import ReferenceEngine, Skip
from durak_spec.conformance.examples.reference_engine import serve

MODES = ("crash", "hang", "exit", "garbage", "flood", "wrong-id", "both", "missing-keys",
         "bad-result", "slow-start", "orphan", "stderr", "escape")
PYTHON_MODES = ("sys-exit", "os-exit", "hang", "spin", "many-legal", "crash", "two-crashes",
                "interrupt", "huge", "not-json", "skip-most", "skip-five", "state-error",
                "bad-take")
STDERR_BYTES = 1_000_000
FLOOD_BYTES = 2_000_000


class EngineCrash(RuntimeError):
    """Raised on purpose in crash mode; nothing catches it."""


def misbehave(mode: str, req: dict, out) -> None:
    """Do what `mode` says instead of answering `req` (returns only for the protocol modes)."""
    if mode == "crash":
        raise EngineCrash(f"crashing on purpose at {req['action']!r}")
    if mode == "hang":
        _hanging()
        while True:
            time.sleep(3600)
    if mode == "exit":
        out.flush()
        sys.exit(0)
    if mode == "orphan":
        # The child's command line carries DURAK_ORPHAN_MARK, so a test can look for it after.
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)",
                          os.environ.get("DURAK_ORPHAN_MARK", "orphan")], stdout=out)
        out.flush()
        os._exit(0)
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
        if mode == "stderr":
            sys.stderr.write("e" * (STDERR_BYTES - 1) + "\n")
            sys.stderr.flush()
            yield line
            continue
        if (mode != "slow-start" and isinstance(req, dict) and req.get("cmd") == "apply"
                and (on is None or req.get("action") == on)):
            if mode == "escape":  # its own session: out of the engine's process group
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)",
                                  os.environ.get("DURAK_ORPHAN_MARK", "orphan")],
                                 start_new_session=True, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                yield line
                continue
            misbehave(mode, req, out)
            continue
        yield line


def _hanging() -> None:
    """Say that the engine hangs now, for a test that waits for it: DURAK_HANG_MARK names a file
    to write."""
    mark = os.environ.get("DURAK_HANG_MARK")
    if mark:
        with open(mark, "w") as f:
            f.write("hanging\n")


class MisbehavingEngine(ReferenceEngine):
    """The reference in process, misbehaving as DURAK_MISBEHAVE says (see the module's doc)."""

    def __init__(self):
        super().__init__(name="misbehaving in process")
        self.mode = os.environ.get("DURAK_MISBEHAVE", "")
        if self.mode not in PYTHON_MODES:
            raise ValueError(f"set DURAK_MISBEHAVE to one of {', '.join(PYTHON_MODES)}")
        self.on = os.environ.get("DURAK_MISBEHAVE_ON")
        self.flooding = False

    def apply(self, action: str) -> dict:
        if self.on is None or action == self.on:
            if self.mode == "sys-exit":
                sys.exit(0)
            if self.mode == "os-exit":
                os._exit(0)
            if self.mode == "hang":
                _hanging()
                while True:
                    time.sleep(3600)
            if self.mode == "spin":
                while True:
                    pass
            if self.mode == "crash":
                raise EngineCrash(f"crashing on purpose at {action!r}")
            words = action.split()
            if self.mode == "two-crashes" and words[1:2] == ["take"]:
                raise KeyError(f"no pile for seat {words[0]}")
            if self.mode == "two-crashes" and words[1:2] == ["cover"] and \
                    words[2][-1] == self.game.state.trump_card.suit:
                raise ZeroDivisionError("division by zero in beats()")
            if self.mode == "interrupt":
                raise KeyboardInterrupt
            if self.mode == "huge":
                return {**super().apply(action), "note": "x" * 3_000_000}
            if self.mode == "not-json":
                return {**super().apply(action), "note": {"a set"}}
            if self.mode == "many-legal":
                self.flooding = True
            if self.mode == "bad-take" and words[1:2] == ["take"]:
                return {**super().apply(action), "accepted": "yes"}
        return super().apply(action)

    def start(self, variant: dict, setup: dict) -> None:
        self.flooding = False
        if self.mode == "skip-most" and not str(setup.get("trump", "")).endswith("S"):
            raise Skip("this engine deals only with spades as trump")
        if self.mode == "skip-five" and len(setup.get("hands", ())) >= 5:
            raise Skip("this engine seats at most four players")
        super().start(variant, setup)

    def state(self) -> dict:
        if self.mode == "state-error":
            raise EngineCrash("no state to show: " + "the table is being dealt; " * 11 + "(end)")
        return super().state()

    def legal(self) -> dict:
        if self.flooding:
            return {"actions": [f"0 attack 6S #{i}" for i in range(5_000_000)]}
        return super().legal()


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
