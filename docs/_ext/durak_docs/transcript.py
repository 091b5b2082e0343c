"""A protocol transcript for the tutorial: the requests a runner sends and the answers an engine
gives, produced at build time by running the engine, each message checked against its schema."""

from __future__ import annotations

import json
import subprocess
import sys

from docutils import nodes
from docutils.parsers.rst import directives

from durak_spec.conformance import protocol
from durak_spec.reference_impl.yamlio import InputError, parse_text

from .directives import DurakDirective

TIMEOUT = 60


class TranscriptDirective(DurakDirective):
    """``.. durak-transcript:: /tutorial/my_engine.py`` with YAML content: variant, setup,
    actions. Runs the engine once with hello, start, each apply, legal, state and stop."""

    required_arguments = 1
    has_content = True
    option_spec = {"variant": directives.unchanged}

    def run(self):
        data = self.data()
        rel, engine = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(rel)
        try:
            spec = parse_text("\n".join(self.content), "durak-transcript")
        except InputError as exc:
            self.fail(str(exc))
        preset = spec.get("variant", "podkidnoy")
        if preset not in data.rulesets:
            self.fail(f"unknown preset {preset!r}")
        requests = [{"cmd": "hello", "protocol": "1.1"},
                    {"cmd": "start", "variant": {"preset": preset,
                                                 "options": data.rulesets[preset].options},
                     "setup": spec["setup"]}]
        requests += [{"cmd": "apply", "action": a} for a in spec.get("actions", [])]
        requests += [{"cmd": "legal"}, {"cmd": "state"}, {"cmd": "stop"}]
        requests = [{"id": i, **req} for i, req in enumerate(requests, 1)]
        for req in requests:
            problem = protocol.first_error(f"request-{req['cmd']}", req)
            if problem:
                self.fail(f"request {req}: {problem}")
        stdin = "".join(json.dumps(r) + "\n" for r in requests)
        try:
            done = subprocess.run([sys.executable, engine], input=stdin, capture_output=True,
                                  text=True, timeout=TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            self.fail(f"{engine} did not answer within {TIMEOUT} s")
        answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        if len(answers) != len(requests):
            self.fail(f"{engine} gave {len(answers)} answers to {len(requests)} requests: "
                      f"{done.stderr.strip()[-500:]}")
        lines = []
        for req, ans in zip(requests, answers):
            problem = protocol.check_response(ans, req["id"]) or (
                "result" in ans and protocol.check_result(req["cmd"], ans["result"]))
            if problem:
                self.fail(f"answer {ans} to {req['cmd']}: {problem}")
            lines += ["> " + _short(req), "< " + json.dumps(ans)]
        block = nodes.literal_block("\n".join(lines), "\n".join(lines), language="none")
        note = nodes.paragraph(text="Lines starting with > are the runner's requests, < the "
                               "engine's answers; the options of start are shortened here.")
        return [note, block]


def _short(req: dict) -> str:
    if req["cmd"] != "start":
        return json.dumps(req)
    shown = dict(req, variant={"preset": req["variant"]["preset"], "options": "OPTIONS"})
    count = len(req["variant"]["options"])
    return json.dumps(shown).replace('"OPTIONS"', f"{{... the {count} option values ...}}")


DIRECTIVES = {"durak-transcript": TranscriptDirective}
