"""Adapters: how the runner talks to an engine under test.

`reference` (the reference interpreter, in process), `python:MODULE:CLASS` (a class with the
interface of engine.py, in process: its methods return exactly the protocol's result objects) and `cmd:COMMAND LINE` (a subprocess speaking the JSON-lines
protocol of PROTOCOL.md). Every call returns a Reply that is exactly one of result, skipped or
error. An engine that crashes, hangs, exits, floods or answers out of protocol raises EngineFault
naming what happened; the runner then restarts the adapter and goes on.

No engine can take the runner down with it. A `python:` engine that calls sys.exit() or
os._exit() is an `exit` fault, not the end of the run, and one that raises KeyboardInterrupt (or
any other BaseException) a `crash`: only a real Ctrl-C (RunInterrupted) stops the run. One that
does not answer within the timeout is interrupted (SIGALRM, in the main thread) and is a `hang`;
one that lists more than MAX_ACTIONS legal actions is a `flood`. Its results are held to what a
subprocess's answer line can carry: at most MAX_LINE bytes of JSON (`flood`), JSON values only
(`garbage`). A `cmd:` engine runs in its own process group, killed whole when it stops (no orphan
keeps its stdout open), and so is every process it started that left the group (setsid): each
carries ENGINE_MARK in its environment and is found under /proc (Linux); only the last
STDERR_TAIL bytes of its stderr are kept.
"""

from __future__ import annotations

import importlib
import itertools
import json
import math
import os
import selectors
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from durak_spec.conformance.engine import PROTOCOL_VERSION, ReferenceEngine, Skip
from durak_spec.conformance.protocol import check_response, dumps

DEFAULT_TIMEOUT = 5.0
# Starting an interpreter or a JVM and loading an engine takes longer than answering one request:
# the handshake gets at least this long, so --timeout can stay short.
START_TIMEOUT = 10.0
MAX_LINE = 1_000_000
# No position has more than a few hundred legal actions; an engine listing more is flooding.
MAX_ACTIONS = 10_000
STDERR_TAIL = 64_000  # bytes of a cmd: engine's stderr kept for the report
# While waiting for an answer, look this often whether the engine process is still there (an
# engine that exits while a child of it holds stdout open is an exit, not a hang).
POLL = 0.25
# The environment variable each cmd: engine is started with, holding a token of that start: every
# process the engine starts inherits it, so close() finds the ones that left its process group.
ENGINE_MARK = "DURAK_ENGINE_RUN"
MAX_RESULT_DEPTH = 64  # levels of nesting an in-process engine's result may have
_starts = itertools.count(1)


class RunInterrupted(KeyboardInterrupt):
    """A real interruption of the run (Ctrl-C, or SIGTERM where a command turns it into one), as
    opposed to a KeyboardInterrupt an in-process engine raises itself, which is its fault."""

    def __init__(self, signal_name: str = "SIGINT"):
        self.signal_name = signal_name
        super().__init__(signal_name)


def raise_interrupted(signum, frame):
    """A signal handler: the run is interrupted (RunInterrupted naming the signal)."""
    raise RunInterrupted(signal.Signals(signum).name)


def check_timeout(seconds: float, what: str = "--timeout") -> float:
    """A timeout must be a positive number of seconds (0 or less would blame every answer on
    the engine)."""
    if not isinstance(seconds, (int, float)) or not 0 < seconds < float("inf"):
        raise AdapterError(f"{what} must be a positive, finite number of seconds, not {seconds!r}")
    return float(seconds)


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


class _EngineExit(BaseException):
    """Raised in place of os._exit() while an in-process engine runs."""

    def __init__(self, code):
        self.code = code


class _EngineTimeout(BaseException):
    """Raised by SIGALRM inside an in-process engine that overran its timeout (a BaseException,
    so an engine's `except Exception` does not swallow it)."""


_real_exit = os._exit


def _fake_exit(code=0):
    raise _EngineExit(code)


def _alarm(signum, frame):
    raise _EngineTimeout()


def _restore(timed: bool) -> None:
    """The process as it was before an in-process engine's call: the timer stopped first (it
    repeats every 0.1 s, and left running would raise the engine's timeout in the runner), then
    os._exit."""
    if timed:
        signal.setitimer(signal.ITIMER_REAL, 0)
    os._exit = _real_exit


class PythonAdapter(Adapter):
    """An engine object in this process, called through the engine.py interface."""

    def __init__(self, factory, name: str, timeout: float | None = None,
                 start_timeout: float | None = None):
        self.factory, self.name, self.engine = factory, name, None
        self.combined = False
        self.passes: tuple = ()  # exceptions let through: the runner's own reference's ClauseError
        self.timeout = timeout
        # the handshake: exactly start_timeout when given, else at least START_TIMEOUT
        self.start_timeout = start_timeout or max(timeout or 0, START_TIMEOUT)
        self._previous_alarm = None  # the SIGALRM handler to restore, while ours is installed
        self._previous_sigint = None  # the SIGINT handler to restore, while ours is installed
        self.checked = True  # results held to a subprocess's bounds; not for our own reference

    def _guarded_call(self, cmd: str, fn, timeout):
        """Call fn() so that os._exit raises _EngineExit and, where the alarm handler is
        installed (open() in the main thread), overrunning `timeout` raises _EngineTimeout
        (again every 0.1 s if the engine catches it). It runs around every call of the suite."""
        timed = timeout is not None and self._previous_alarm is not None
        try:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, timeout, 0.1)
            os._exit = _fake_exit
            try:
                return fn()
            finally:
                _restore(timed)
        except (Exception, RunInterrupted):
            raise
        except _EngineTimeout:
            _restore(timed)  # again: the alarm may fall in the lines that restore, as fn returns
            self.engine = None  # it may be in any state: the runner restarts a fresh one
            raise EngineFault("hang", f"no answer to {cmd} within {timeout:g} s") from None
        except _EngineExit as exc:
            self.engine = None
            raise EngineFault(_exit_kind(exc.code), f"the engine called os._exit({exc.code}) "
                                                    f"in {cmd}") from None
        except SystemExit as exc:
            self.engine = None
            raise EngineFault(_exit_kind(exc.code or 0), f"the engine called sys.exit"
                                                         f"({exc.code!r}) in {cmd}") from None
        except BaseException as exc:  # KeyboardInterrupt it raised itself, GeneratorExit, ...
            self.engine = None
            raise EngineFault("crash", f"the engine raised {type(exc).__name__} in {cmd}"
                                       f"{': ' + str(exc)[:200] if str(exc) else ''}") from None

    def open(self) -> dict:
        def start():
            self.engine = self.factory()
            return self.engine.hello()

        main = threading.current_thread() is threading.main_thread()
        if self.timeout is not None and self._previous_alarm is None and main:
            self._previous_alarm = signal.signal(signal.SIGALRM, _alarm) or signal.SIG_DFL
        if main and self._previous_sigint is None and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            # a real Ctrl-C is told apart from a KeyboardInterrupt the engine raises
            self._previous_sigint = signal.signal(signal.SIGINT, raise_interrupted)

        try:
            hello = self._guarded_call("hello", start, self.start_timeout if self.timeout else None)
        except EngineFault:
            raise
        except Exception as exc:  # the engine's own failure to start
            raise AdapterError(f"engine {self.name} failed to start: {type(exc).__name__}: {exc}") from None
        self.combined = isinstance(hello, dict) and hello.get("step") is True
        return hello

    def step(self, actions: list[str], state: bool, legal: bool) -> Reply:
        if not self.combined:
            return super().step(actions, state, legal)
        if self.engine is None:
            raise EngineFault("exit", "the engine is not running")
        try:
            result = self._guarded_call("step", lambda: self.engine.step(actions, state, legal),
                                        self.timeout)
        except Skip as exc:
            return Reply("skipped", str(exc) or "the engine skipped it")
        except (EngineFault, *self.passes):
            raise
        except Exception as exc:
            return Reply("error", f"{type(exc).__name__}: {str(exc)[:2000]}")
        if not self.checked:  # our own interpreter: its results need no bounds
            return Reply("result", result)
        _check_json(result, "step")
        steps = result.get("steps") if isinstance(result, dict) else None
        if isinstance(steps, list):
            for e in steps:  # a plain loop, run for every step of the fuzzer's stretches
                if isinstance(e, dict):
                    listed = e.get("legal")
                    if isinstance(listed, list) and len(listed) > MAX_ACTIONS:
                        raise EngineFault("flood", f"listed more than {MAX_ACTIONS:,} legal actions")
        return Reply("result", result)

    def call(self, cmd: str, **args) -> Reply:
        """Call the engine's method of the command (start(variant, setup), apply(action), the
        others without arguments); it returns the command's result object exactly as PROTOCOL.md
        gives it (start and stop may return None for {})."""
        if self.engine is None:
            raise EngineFault("exit", "the engine is not running")
        method = getattr(self.engine, cmd, None)
        if method is None:
            return Reply("error", f"the engine has no method {cmd}()")
        try:
            invoke = self._invoke_checked if self.checked else self._invoke
            return self._guarded_call(cmd, lambda: invoke(cmd, method, args), self.timeout)
        except Skip as exc:
            return Reply("skipped", str(exc) or "the engine skipped it")
        except (EngineFault, *self.passes):
            raise
        except Exception as exc:  # an engine bug is a result to report, not a crash of the run
            return Reply("error", f"{type(exc).__name__}: {str(exc)[:2000]}")

    @staticmethod
    def _invoke(cmd, method, args) -> Reply:
        if cmd == "start":
            result = method(args["variant"], args["setup"])
        elif cmd == "apply":
            result = method(args["action"])
        elif cmd == "next_deal":
            result = method(args["setup"])
        else:
            result = method()
        if cmd == "legal" and isinstance(result, dict):
            actions = result.get("actions")
            if not isinstance(actions, (list, tuple, dict, str)) and actions is not None:
                actions = _bounded_list(actions)  # a generator: read no more than the limit
                result = {**result, "actions": actions}
            if isinstance(actions, (list, tuple)) and len(actions) > MAX_ACTIONS:
                raise EngineFault("flood", f"listed more than {MAX_ACTIONS:,} legal actions")
        return Reply("result", {} if result is None and cmd in ("start", "stop", "next_deal")
                     else result)

    def _invoke_checked(self, cmd, method, args) -> Reply:
        reply = self._invoke(cmd, method, args)
        _check_json(reply.value, cmd)
        return reply

    def close(self) -> None:
        if self.engine is not None and hasattr(self.engine, "stop"):
            try:
                self._guarded_call("stop", self.engine.stop, self.timeout)
            except (Exception, EngineFault):
                pass
        self.engine = None
        if self._previous_alarm is not None:
            signal.signal(signal.SIGALRM, self._previous_alarm)
            self._previous_alarm = None
        if self._previous_sigint is not None:
            signal.signal(signal.SIGINT, self._previous_sigint)
            self._previous_sigint = None


class CmdAdapter(Adapter):
    """A subprocess speaking JSON lines on stdin/stdout, with a timeout on every answer."""

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT,
                 start_timeout: float | None = None):
        self.command, self.timeout = command, check_timeout(timeout)
        # the handshake: exactly start_timeout when given, else at least START_TIMEOUT
        self.start_timeout = start_timeout or max(timeout, START_TIMEOUT)
        self.name = f"cmd:{command}"
        self.proc: subprocess.Popen | None = None
        self._mark = ""  # this start's token in ENGINE_MARK
        self._buf = b""
        self._id = 0
        self._stderr = bytearray()  # the last STDERR_TAIL bytes the engine wrote to stderr
        self._sel: selectors.BaseSelector | None = None
        self.combined = False
        self.delta = False  # step answers carry only the state fields that changed (1.1 "delta")

    def open(self) -> dict:
        try:
            argv = shlex.split(self.command)
        except ValueError as exc:
            raise AdapterError(f"cmd:{self.command}: {exc}") from None
        if not argv:
            raise AdapterError("cmd: needs a command line, e.g. cmd:python my_engine.py")
        self._stderr = bytearray()
        try:
            # Its own process group (session): close() kills the engine and every child it
            # started, and a Ctrl-C at the terminal reaches the runner, which stops it cleanly.
            self._mark = f"{os.getpid()}.{next(_starts)}"
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, bufsize=0, start_new_session=True,
                                         env={**os.environ, ENGINE_MARK: self._mark})
        except OSError as exc:
            raise AdapterError(f"cmd:{self.command}: can't start it: {exc.strerror or exc}") from None
        for stream in (self.proc.stdout, self.proc.stderr):
            os.set_blocking(stream.fileno(), False)
        # One selector for the engine's life: a new one per answer costs three system calls.
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout.fileno(), selectors.EVENT_READ)
        self._sel.register(self.proc.stderr.fileno(), selectors.EVENT_READ)
        self._buf = b""
        reply = self.call("hello", protocol=PROTOCOL_VERSION)
        if reply.kind != "result" or not isinstance(reply.value, dict):
            raise EngineFault("protocol", f"hello answered {reply.kind}: {reply.value!r}")
        self.combined = reply.value.get("step") is True
        self.delta = reply.value.get("delta") is True
        return reply.value

    def step(self, actions: list[str], state: bool, legal: bool) -> Reply:
        if not self.combined:
            return super().step(actions, state, legal)
        return self._full_states(self.call("step", **self._step_request(actions, state, legal)))

    def _step_request(self, actions: list[str], state: bool, legal: bool) -> dict:
        request = {"actions": actions, "state": state, "legal": legal}
        if self.delta and state:
            request["delta"] = True
        return request

    def _full_states(self, reply: Reply) -> Reply:
        """A step answer to a request with "delta", each state rebuilt whole: the fields it
        carries over those of the state before it in the answer (PROTOCOL.md, "delta"), so that
        it is judged exactly as a whole state would be."""
        if not self.delta or reply.kind != "result" or not isinstance(reply.value, dict) or \
                not isinstance(reply.value.get("steps"), list):
            return reply
        prev = None
        for entry in reply.value["steps"]:
            state = entry.get("state") if isinstance(entry, dict) else None
            if not isinstance(state, dict):
                continue
            if prev is not None:
                state = entry["state"] = {**prev, **state}
            prev = state
        return reply

    @property
    def pipelined(self) -> bool:
        return self.combined

    def step_send(self, actions: list[str], state: bool, legal: bool) -> None:
        if not self.combined:
            return super().step_send(actions, state, legal)
        try:
            self._ahead = self._send("step", self._step_request(actions, state, legal))
        except EngineFault as fault:
            self._ahead = fault

    def step_receive(self) -> Reply:
        if not self.combined or not isinstance(self._ahead, int):
            return super().step_receive()
        ident, self._ahead = self._ahead, None
        return self._full_states(self._receive("step", ident))

    def calls(self, requests: list[tuple[str, dict]]) -> list[Reply]:
        sent = [(cmd, self._send(cmd, args)) for cmd, args in requests]
        return [self._receive(cmd, ident) for cmd, ident in sent]

    def stderr_tail(self, limit: int = 2000) -> str:
        if self.proc is not None:
            self._drain_stderr()
        return bytes(self._stderr[-limit:]).decode("utf-8", "replace").strip()

    def _drain_stderr(self) -> bool:
        """Read what the engine wrote to stderr, keeping the tail; False at its end."""
        while True:
            try:
                chunk = os.read(self.proc.stderr.fileno(), 65536)
            except BlockingIOError:
                return True
            except (OSError, ValueError):
                return False
            if not chunk:
                return False
            self._stderr += chunk
            if len(self._stderr) > 2 * STDERR_TAIL:
                del self._stderr[:-STDERR_TAIL]

    def _fault(self, what: str, detail: str) -> EngineFault:
        self.close()
        tail = self.stderr_tail(500)
        return EngineFault(what, detail + (f"; stderr: {tail}" if tail else ""))

    def call(self, cmd: str, **args) -> Reply:
        return self._receive(cmd, self._send(cmd, args))

    def _send(self, cmd: str, args: dict) -> int:
        if self.proc is None:
            raise EngineFault("exit", "the engine is not running")
        self._id += 1
        message = {"id": self._id, "cmd": cmd, **args}
        try:
            self.proc.stdin.write((dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            code = self._wait(1)
            raise self._fault(_exit_kind(code),
                              f"the engine exited (code {code}) before {cmd}") from None
        return self._id

    def _receive(self, cmd: str, ident: int) -> Reply:
        if self.proc is None:
            raise EngineFault("exit", "the engine is not running")
        line = self._read_line(cmd, self.start_timeout if cmd == "hello" else self.timeout)
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            raise self._fault("garbage", f"answered {cmd} with non-JSON: {line[:120]!r}") from None
        problem = check_response(obj, ident)
        if problem:
            raise self._fault("protocol", f"answer to {cmd}: {problem}: {line[:200]!r}")
        kind = next(k for k in ("result", "skipped", "error") if k in obj)
        return Reply(kind, obj[kind])

    def _wait(self, seconds: float):
        try:
            return self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None

    def _read_line(self, cmd: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        out_fd, err_fd = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE:
                raise self._fault("flood", f"sent more than {MAX_LINE} bytes without a newline "
                                           f"in answer to {cmd}")
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fault("hang", f"no answer to {cmd} within {timeout:g} s")
            ready = {key.fd for key, _ in self._sel.select(min(left, POLL))}
            if err_fd in ready and not self._drain_stderr():
                self._sel.unregister(err_fd)
            if out_fd not in ready:
                code = self.proc.poll()
                if code is not None:  # it is gone, but something it started holds stdout open
                    raise self._fault(_exit_kind(code), f"the engine exited (code {code}) while "
                                      f"answering {cmd}; a process it started still held its stdout")
                continue
            try:
                chunk = os.read(out_fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                code = self._wait(1)  # None: it closed stdout but lives on; close() kills it
                raise self._fault(_exit_kind(code),
                                  f"the engine exited (code {code}) while answering {cmd}")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        if len(line) > MAX_LINE:
            raise self._fault("flood", f"answered {cmd} with a line of {len(line)} bytes")
        return line.decode("utf-8", "replace")

    def close(self) -> None:
        proc, self.proc = self.proc, None
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
            started = _started_by(proc.pid, self._mark)  # before the engine's end reparents them
            try:  # the engine and everything it started; its group outlives it while any is left
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            _kill_all(started, self._mark)
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        finally:
            self.proc = proc  # for the last drain of stderr
            self._drain_stderr()
            self.proc = None
            if self._sel is not None:
                self._sel.close()
                self._sel = None
            for stream in (proc.stdout, proc.stdin, proc.stderr):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass


def _processes() -> list[tuple[int, int, bytes]]:
    """(pid, parent pid, environment) of every process this user may read, from /proc; [] where
    there is none (not Linux)."""
    out = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{name}/environ", "rb") as f:
                environ = f.read()
        except OSError:  # gone, or another user's
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # after the command name, which may hold ')'
        out.append((int(name), int(fields[1]), environ))
    return out


def _started_by(pid: int, mark: str) -> set[int]:
    """The processes the engine `pid` started: its descendants and whatever carries its mark."""
    procs = _processes()
    children: dict[int, list[int]] = {}
    for p, parent, _ in procs:
        children.setdefault(parent, []).append(p)
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    needle = f"{ENGINE_MARK}={mark}".encode() + b"\0"
    found |= {p for p, _, env in procs if mark and needle in env + b"\0"}
    found.discard(os.getpid())
    return found


def _kill_all(pids: set[int], mark: str) -> None:
    """SIGKILL `pids`, then whatever still carries `mark` (a process may fork as it is killed),
    a few rounds at most."""
    for _ in range(5):
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if not mark:
            return
        needle = f"{ENGINE_MARK}={mark}".encode() + b"\0"
        pids = {p for p, _, env in _processes() if needle in env + b"\0"
                and p != os.getpid() and not _is_zombie(p)}
        if not pids:
            return


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3] in (b"Z", b"X")


def _check_json(value, cmd: str) -> None:
    """Raise EngineFault unless `value` is what one answer line of a subprocess could carry:
    JSON values only (garbage), at most MAX_LINE bytes of JSON (flood), MAX_RESULT_DEPTH levels.
    It walks the value once, containers on a stack and their scalars in place, and stops as
    soon as the bound is passed."""
    budget = MAX_LINE
    todo = [(value, 0)]
    while todo:
        v, depth = todo.pop()
        kind = type(v)
        if kind is not dict and kind is not list and kind is not tuple:
            budget -= _other(v, cmd, todo, depth)
            if budget < 0:
                break
            continue
        budget -= 2 + len(v)
        if budget < 0:
            break
        if depth >= MAX_RESULT_DEPTH:
            raise EngineFault("garbage", f"answered {cmd} with a value nested deeper than "
                                         f"{MAX_RESULT_DEPTH} levels")
        if kind is dict:
            for k in v:
                if type(k) is not str:
                    raise EngineFault("garbage", f"answered {cmd} with the key {str(k)[:40]!r} "
                                                 f"of type {type(k).__name__}; JSON keys are "
                                                 "strings")
                budget -= len(k) + 3
            v = v.values()
        for x in v:
            kind = type(x)
            if kind is str:
                budget -= len(x) + 3
            elif kind is int:
                budget -= 2 + x.bit_length() * 3 // 10
            elif x is None or kind is bool:
                budget -= 6
            elif kind is dict or kind is list or kind is tuple:
                todo.append((x, depth + 1))
            else:
                budget -= _other(x, cmd, todo, depth + 1)
        if budget < 0:
            break
    if budget < 0:
        raise EngineFault("flood", f"answered {cmd} with more than {MAX_LINE:,} bytes of JSON")


def _other(v, cmd: str, todo: list, depth: int) -> int:
    """The JSON size of a value _check_json's fast paths do not take (a float, a subclass of a
    JSON type; a container goes on `todo`), or EngineFault (garbage) if JSON cannot carry it."""
    if isinstance(v, str):
        return len(v) + 3
    if v is None or isinstance(v, bool):
        return 6
    if isinstance(v, int):
        return 2 + v.bit_length() * 3 // 10
    if isinstance(v, float):
        if not math.isfinite(v):
            raise EngineFault("garbage", f"answered {cmd} with {v!r}, which JSON cannot carry")
        return 25
    if isinstance(v, (dict, list, tuple)):
        todo.append((dict(v) if isinstance(v, dict) else list(v), depth))
        return 0
    raise EngineFault("garbage", f"answered {cmd} with a {type(v).__name__}, which JSON cannot "
                                 "carry")


def _bounded_list(items) -> list:
    """The items of an iterable, raising a flood fault past MAX_ACTIONS (an endless generator
    cannot exhaust memory)."""
    out = []
    for item in items:
        if len(out) == MAX_ACTIONS:
            raise EngineFault("flood", f"listed more than {MAX_ACTIONS:,} legal actions")
        out.append(item)
    return out


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


def check_adapter_name(name: str) -> None:
    """Refuse an adapter name that is none of reference, python:MODULE:CLASS or cmd:COMMAND
    LINE, before anything is loaded or started."""
    if name == "reference":
        return
    if name.startswith("python:"):
        parts = name.split(":")
        if len(parts) != 3 or not all(parts[1:]):
            raise AdapterError(f"write a Python engine as python:MODULE:CLASS, not {name!r}")
        return
    if name.startswith("cmd:"):
        try:
            argv = shlex.split(name[4:])
        except ValueError as exc:
            raise AdapterError(f"{name}: {exc}") from None
        if not argv:
            raise AdapterError("cmd: needs a command line, e.g. cmd:python my_engine.py")
        return
    raise AdapterError(f"unknown adapter {name!r}; use reference, python:MODULE:CLASS or cmd:COMMAND")


def make_adapter(name: str, timeout: float | None = DEFAULT_TIMEOUT, spec=None,
                 paths=()) -> Adapter:
    """Build an adapter from its name: reference, python:MODULE:CLASS or cmd:COMMAND LINE.
    A python: engine is imported from the `paths` folders (--path), then the current folder.
    `timeout` bounds every answer, the handshake's too; None: DEFAULT_TIMEOUT for answers and
    START_TIMEOUT for the handshake (an engine may take longer to start than to answer)."""
    start_timeout = None if timeout is None else timeout
    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    check_timeout(timeout)
    check_adapter_name(name)
    if name == "reference":
        adapter = PythonAdapter(lambda: ReferenceEngine(spec), "reference", timeout, start_timeout)
        adapter.checked = False  # our own interpreter: its results need no bounds
        return adapter
    if name.startswith("python:"):
        module_name, class_name = name.split(":")[1:]
        for p in paths:
            if not os.path.isdir(p):
                raise AdapterError(f"--path {p}: no such folder")
        try:
            module = _import_module(module_name, paths)
        except RunInterrupted:
            raise
        except BaseException as exc:  # SystemExit, KeyboardInterrupt at import: the engine's own
            where = ", ".join(list(paths) + ["the current folder"])
            raise AdapterError(f"{name}: can't import {module_name} (looked in {where}): "
                               f"{type(exc).__name__}: {exc}") from None
        cls = getattr(module, class_name, None)
        if cls is None:
            raise AdapterError(f"{name}: module {module_name} has no {class_name}")
        return PythonAdapter(cls, name, timeout, start_timeout)
    return CmdAdapter(name[4:].strip(), timeout, start_timeout)
