"""Adapters: how the runner talks to an engine under test.

`reference` (the reference interpreter, in process), `python:MODULE:CLASS` (a class with the
interface of engine.py, in process: its methods return exactly the protocol's result objects) and `cmd:COMMAND LINE` (a subprocess speaking the JSON-lines
protocol of PROTOCOL.md). Every call returns a Reply that is exactly one of result, skipped or
error. An engine that crashes, hangs, exits, floods or answers out of protocol raises EngineFault
naming what happened; the runner then restarts the adapter and goes on.
"""

from __future__ import annotations

import importlib
import json
import os
import selectors
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from durak_spec.conformance.engine import PROTOCOL_VERSION, ReferenceEngine, Skip
from durak_spec.conformance.protocol import check_response

DEFAULT_TIMEOUT = 5.0
# Starting an interpreter or a JVM and loading an engine takes longer than answering one request:
# the handshake gets at least this long, so --timeout can stay short.
START_TIMEOUT = 10.0
MAX_LINE = 1_000_000


@dataclass
class Reply:
    kind: str  # "result", "skipped" or "error"
    value: object = None


class EngineFault(Exception):
    """The engine did not answer within the protocol: `what` is crash (exited with a non-zero
    code), exit (exited with code 0), hang, garbage, flood or protocol."""

    def __init__(self, what: str, detail: str):
        self.what, self.detail = what, detail
        super().__init__(f"{what}: {detail}")


class AdapterError(Exception):
    """An adapter name or engine that cannot be set up at all (a usage error, exit 2)."""


class Adapter:
    name = "adapter"

    def open(self) -> dict:
        """Start the engine and return its hello (capabilities)."""
        raise NotImplementedError

    def call(self, cmd: str, **args) -> Reply:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def restart(self) -> dict:
        self.close()
        return self.open()

    def calls(self, requests: list[tuple[str, dict]]) -> list[Reply]:
        """Several requests in order; a subprocess gets them all before answering any."""
        return [self.call(cmd, **args) for cmd, args in requests]

    pipelined = False  # True when step_send returns before the engine has answered
    _ahead = None

    def step_send(self, actions: list[str], state: bool, legal: bool) -> None:
        """Start a step request; step_receive gives its answer (a subprocess engine works on it
        meanwhile)."""
        try:
            self._ahead = self.step(actions, state, legal)
        except EngineFault as fault:
            self._ahead = fault

    def step_receive(self) -> Reply:
        ahead, self._ahead = self._ahead, None
        if isinstance(ahead, EngineFault):
            raise ahead
        return ahead

    def step(self, actions: list[str], state: bool, legal: bool) -> Reply:
        """Apply `actions` in turn; result {"steps": [verdict, with "state" and "legal" after each
        accepted action when asked]}. One round trip for engines that declare the protocol 1.1
        `step` capability; for the others it is made of apply, state and legal requests."""
        steps = []
        for action in actions:
            reply = self.call("apply", action=action)
            if reply.kind != "result" or not isinstance(reply.value, dict):
                return reply
            entry = dict(reply.value)
            if entry.get("accepted") is True:
                for wanted, cmd, key in ((state, "state", "state"), (legal, "legal", "actions")):
                    if wanted:
                        more = self.call(cmd)
                        if more.kind != "result" or not isinstance(more.value, dict):
                            return more
                        entry[cmd] = more.value.get(key)
            steps.append(entry)
        return Reply("result", {"steps": steps})


class PythonAdapter(Adapter):
    """An engine object in this process, called through the engine.py interface."""

    def __init__(self, factory, name: str):
        self.factory, self.name, self.engine = factory, name, None
        self.combined = False

    def open(self) -> dict:
        try:
            self.engine = self.factory()
            hello = self.engine.hello()
        except Exception as exc:  # the engine's own failure to start
            raise AdapterError(f"engine {self.name} failed to start: {type(exc).__name__}: {exc}") from None
        self.combined = isinstance(hello, dict) and hello.get("step") is True
        return hello

    def step(self, actions: list[str], state: bool, legal: bool) -> Reply:
        if not self.combined:
            return super().step(actions, state, legal)
        try:
            return Reply("result", self.engine.step(actions, state, legal))
        except Skip as exc:
            return Reply("skipped", str(exc) or "the engine skipped it")
        except Exception as exc:
            return Reply("error", f"{type(exc).__name__}: {exc}")

    def call(self, cmd: str, **args) -> Reply:
        """Call the engine's method of the command (start(variant, setup), apply(action), the
        others without arguments); it returns the command's result object exactly as PROTOCOL.md
        gives it (start and stop may return None for {})."""
        method = getattr(self.engine, cmd, None)
        if method is None:
            return Reply("error", f"the engine has no method {cmd}()")
        try:
            if cmd == "start":
                result = method(args["variant"], args["setup"])
            elif cmd == "apply":
                result = method(args["action"])
            else:
                result = method()
            return Reply("result", {} if result is None and cmd in ("start", "stop") else result)
        except Skip as exc:
            return Reply("skipped", str(exc) or "the engine skipped it")
        except Exception as exc:  # an engine bug is a result to report, not a crash of the run
            return Reply("error", f"{type(exc).__name__}: {exc}")

    def close(self) -> None:
        if self.engine is not None and hasattr(self.engine, "stop"):
            try:
                self.engine.stop()
            except Exception:
                pass
        self.engine = None


class CmdAdapter(Adapter):
    """A subprocess speaking JSON lines on stdin/stdout, with a timeout on every answer."""

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT,
                 start_timeout: float = START_TIMEOUT):
        self.command, self.timeout = command, timeout
        self.start_timeout = max(timeout, start_timeout)
        self.name = f"cmd:{command}"
        self.proc: subprocess.Popen | None = None
        self._buf = b""
        self._id = 0
        self._stderr = None
        self._sel: selectors.BaseSelector | None = None
        self.combined = False

    def open(self) -> dict:
        try:
            argv = shlex.split(self.command)
        except ValueError as exc:
            raise AdapterError(f"cmd:{self.command}: {exc}") from None
        if not argv:
            raise AdapterError("cmd: needs a command line, e.g. cmd:python my_engine.py")
        self._stderr = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, bufsize=0)
        except OSError as exc:
            raise AdapterError(f"cmd:{self.command}: can't start it: {exc.strerror or exc}") from None
        os.set_blocking(self.proc.stdout.fileno(), False)
        # One selector for the engine's life: a new one per answer costs three system calls.
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout.fileno(), selectors.EVENT_READ)
        self._buf = b""
        reply = self.call("hello", protocol=PROTOCOL_VERSION)
        if reply.kind != "result" or not isinstance(reply.value, dict):
            raise EngineFault("protocol", f"hello answered {reply.kind}: {reply.value!r}")
        self.combined = reply.value.get("step") is True
        return reply.value

    def step(self, actions: list[str], state: bool, legal: bool) -> Reply:
        if not self.combined:
            return super().step(actions, state, legal)
        return self.call("step", actions=actions, state=state, legal=legal)

    @property
    def pipelined(self) -> bool:
        return self.combined

    def step_send(self, actions: list[str], state: bool, legal: bool) -> None:
        if not self.combined:
            return super().step_send(actions, state, legal)
        try:
            self._ahead = self._send("step", {"actions": actions, "state": state, "legal": legal})
        except EngineFault as fault:
            self._ahead = fault

    def step_receive(self) -> Reply:
        if not self.combined or not isinstance(self._ahead, int):
            return super().step_receive()
        ident, self._ahead = self._ahead, None
        return self._receive("step", ident)

    def calls(self, requests: list[tuple[str, dict]]) -> list[Reply]:
        sent = [(cmd, self._send(cmd, args)) for cmd, args in requests]
        return [self._receive(cmd, ident) for cmd, ident in sent]

    def stderr_tail(self, limit: int = 2000) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - limit))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def _fault(self, what: str, detail: str) -> EngineFault:
        tail = self.stderr_tail(500)
        self.close()
        return EngineFault(what, detail + (f"; stderr: {tail}" if tail else ""))

    def call(self, cmd: str, **args) -> Reply:
        return self._receive(cmd, self._send(cmd, args))

    def _send(self, cmd: str, args: dict) -> int:
        if self.proc is None:
            raise EngineFault("exit", "the engine is not running")
        self._id += 1
        message = {"id": self._id, "cmd": cmd, **args}
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            code = self.proc.poll()
            raise self._fault(_exit_kind(code),
                              f"the engine exited (code {code}) before {cmd}") from None
        return self._id

    def _receive(self, cmd: str, ident: int) -> Reply:
        if self.proc is None:
            raise EngineFault("exit", "the engine is not running")
        line = self._read_line(cmd, self.start_timeout if cmd == "hello" else self.timeout)
        try:
            obj = json.loads(line)
        except ValueError:
            raise self._fault("garbage", f"answered {cmd} with non-JSON: {line[:120]!r}") from None
        problem = check_response(obj, ident)
        if problem:
            raise self._fault("protocol", f"answer to {cmd}: {problem}: {line[:200]!r}")
        kind = next(k for k in ("result", "skipped", "error") if k in obj)
        return Reply(kind, obj[kind])

    def _read_line(self, cmd: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE:
                raise self._fault("flood", f"sent more than {MAX_LINE} bytes without a newline "
                                           f"in answer to {cmd}")
            left = deadline - time.monotonic()
            if left <= 0 or not self._sel.select(left):
                raise self._fault("hang", f"no answer to {cmd} within {timeout:g} s")
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                try:
                    code = self.proc.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    code = None  # it closed stdout but lives on; close() kills it
                raise self._fault(_exit_kind(code),
                                  f"the engine exited (code {code}) while answering {cmd}")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        if len(line) > MAX_LINE:
            raise self._fault("flood", f"answered {cmd} with a line of {len(line)} bytes")
        return line.decode("utf-8", "replace")

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                try:
                    proc.stdin.write(b'{"id": 0, "cmd": "stop"}\n')
                    proc.stdin.flush()
                    proc.stdin.close()
                    proc.wait(timeout=0.5)
                except (OSError, ValueError, subprocess.TimeoutExpired):
                    pass
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
        finally:
            for stream in (proc.stdout, proc.stdin):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass


def _exit_kind(code) -> str:
    return "exit" if code == 0 else "crash"


def _import_module(module_name: str, paths) -> object:
    """Import an engine's module from the --path folders, then the current folder, then the usual
    sys.path. A module of that name imported earlier from another folder is imported afresh."""
    folders = [os.path.abspath(p) for p in paths] + [os.getcwd()]
    for folder in reversed(folders):
        if folder in sys.path:
            sys.path.remove(folder)
        sys.path.insert(0, folder)
    loaded = sys.modules.get(module_name)
    if loaded is not None:
        here = getattr(loaded, "__file__", None)
        top = module_name.split(".")[0]
        local = [f for f in folders if os.path.exists(os.path.join(f, top + ".py"))
                 or os.path.isdir(os.path.join(f, top))]
        if local and (here is None or not any(os.path.abspath(here).startswith(f + os.sep)
                                              for f in local[:1])):
            for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
                del sys.modules[name]
    return importlib.import_module(module_name)


def make_adapter(name: str, timeout: float = DEFAULT_TIMEOUT, spec=None, paths=()) -> Adapter:
    """Build an adapter from its name: reference, python:MODULE:CLASS or cmd:COMMAND LINE.
    A python: engine is imported from the `paths` folders (--path), then the current folder."""
    if name == "reference":
        return PythonAdapter(lambda: ReferenceEngine(spec), "reference")
    if name.startswith("python:"):
        parts = name.split(":")
        if len(parts) != 3 or not all(parts[1:]):
            raise AdapterError(f"write a Python engine as python:MODULE:CLASS, not {name!r}")
        module_name, class_name = parts[1], parts[2]
        for p in paths:
            if not os.path.isdir(p):
                raise AdapterError(f"--path {p}: no such folder")
        try:
            module = _import_module(module_name, paths)
        except Exception as exc:
            where = ", ".join(list(paths) + ["the current folder"])
            raise AdapterError(f"{name}: can't import {module_name} (looked in {where}): "
                               f"{type(exc).__name__}: {exc}") from None
        cls = getattr(module, class_name, None)
        if cls is None:
            raise AdapterError(f"{name}: module {module_name} has no {class_name}")
        return PythonAdapter(cls, name)
    if name.startswith("cmd:"):
        return CmdAdapter(name[4:].strip(), timeout)
    raise AdapterError(f"unknown adapter {name!r}; use reference, python:MODULE:CLASS or cmd:COMMAND")
