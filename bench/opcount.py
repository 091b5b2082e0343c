"""Benchmark aid: the Python instructions the reference runs per game, a measure that the load of
the machine does not move.

On a shared machine the CPU time of one run differs from the next by 10 % and more, which hides
the few per cent a change to the generated program gains or loses (issue 26). This counts the
bytecode instructions the interpreter executes (sys.settrace with opcode events) while `durak
simulate`'s loop plays --games random games of a preset from seeds 0, 1, ... (setup and
random's choice included), by where they run: the generated program, split into the parts of
its `step` (the action's event, settle's throw-ins and who may throw, each bout end, the listing
of the other actions); clauses of spec/; the primitives; the rest of the interpreter; random.
The same count twice gives the same figures.

Instructions are not time: one that calls into C (a list's sort, a set's add) costs more than
one that loads a local. Time the result with bench/playouts.py; use this to see where the
interpreter's own work goes and whether a change to the generator does less of it.

With --baseline REV (a git revision of this repository) it counts on REV too, in a process of
its own (the tree taken out as bench/playouts.py --baseline does), and prints the ratio of the
totals per game, REV's to this checkout's, with the parts both have.

With --lines N it prints the N lines that run the most instructions per game, each with its file
(the generated program's by the ruleset's name), function and text: where to look first.

Python instructions are not all alike: in CPython 3.11 a specialised instruction (a slot's load,
a comparison of two strings) costs a few machine instructions, a call into C (a set's lookup, a
map over a hand, a dict subclass's item) a hundred and more, so a change that trades the one for
the other can run fewer Python instructions and more time. --machine counts the machine
instructions per game instead, with valgrind (callgrind): the games alone, in a window of the
process that plays them (bench/callgrind.py), with the code cache warm and PYTHONHASHSEED 0, which
repeats whatever the load and wherever the tree lies (and takes a minute or two: valgrind runs Python about 50 times slower).
With --durakgame it counts durakgame 1.0.4's random 2-player games too (bench/durakgame_driver.py,
the peer of bench/playouts.py, games from random.Random(1)) and prints the ratio of the two, a
figure for issue 26's target of 3x that the machine's load does not move (it weighs instructions,
not time: a cache miss or a slow division counts as one).
Run: python bench/opcount.py [--preset podkidnoy] [--players 2] [--games 50] [--baseline 3ca4f9e]
     python bench/opcount.py --lines 30;  python bench/opcount.py --machine --games 200
     python bench/opcount.py --machine --durakgame --games 200
"""

from __future__ import annotations

import argparse
import json
import linecache
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from durak_spec.reference_impl.simulate import play_random_game
from durak_spec.reference_impl.spec import load_spec

sys.path.insert(0, str(Path(__file__).parent))
import callgrind  # noqa: E402
from playouts import ROOT, _checkout, _tree  # noqa: E402

WARM_GAMES = 10    # played first, uncounted: the generated step is written after 300 actions


def _where(code) -> str:
    """The part of the interpreter that a code object belongs to."""
    name = code.co_filename
    if name.startswith(("<step of", "<legal actions of")):
        return "generated program"
    if ".yaml" in name:
        return "clauses of spec/"
    if name.endswith("primitives.py"):
        return "primitives.py"
    if name.endswith("random.py"):
        return "random (shuffle, choice)"
    if "reference_impl" in name:
        return "rest of the interpreter"
    return "other"


def _part_of(code) -> str:
    """The part a code object's instructions count to: a bout end's function of the generated
    step (`end_bout_taken`) is that bout end's part of the step."""
    if code.co_filename.startswith("<step of") and code.co_name.startswith("end_"):
        return f"step: {code.co_name[4:]}"
    return _where(code)


def _step_parts(source: str) -> dict[int, str]:
    """Line number -> part, for the generated step's source: where each part begins, in `step`
    and in `play` (the step's body in Game.play_out's loop, indented 8 more)."""
    lines = source.splitlines()
    starts: dict[int, str] = {}
    indent, reads = 0, False
    for i, line in enumerate(lines, 1):
        if line.startswith("def "):
            indent = 8 if line.startswith("def play(") else 0
            if indent:
                starts[i] = "step: before settle"
        line = line[indent:] if line[:indent].isspace() else line
        kind = re.match(r"    (?:if|elif) _kind == '(\w+)':", line)
        if kind:
            starts[i] = f"step: event {kind.group(1)}"
        elif line.startswith(("    s.steps += 1", "    _s_steps += 1")):
            starts[i] = "step: settle's reads"
            reads = True  # until the throw-ins (a program written by ast has no comments)
        elif line == "        # throw" or (reads and re.match(r"        if (?!s\.finished|throws:)", line)):
            starts[i] = "step: throw-ins listed"  # the comment, or the first test after the reads
            reads = False
        elif line == "        if throws:":
            starts[i] = "step: who may throw, passes, order"
        elif line == "        out = []":
            starts[i] = "step: other actions listed"
        elif re.match(r"        if .*:$", line) and i < len(lines):
            # step calls the bout end's function; play writes it out, its locals named by it
            end = re.search(r"\bend_(bout_\w+)\(", lines[i]) or re.search(
                r"\b_(bout_[a-z_]+?)\d+_", lines[i])
            if end:
                starts[i] = f"step: {end.group(1)}"
    return starts


def _line_text(rs, filename: str, line: int, players: int) -> str:
    """The text of a line that ran: of the generated program (its step or the rest), or a file."""
    if filename.startswith("<step of"):
        lines = (rs.step_source_for(players) if hasattr(rs, "step_source_for")
                 else rs.step_source).splitlines()
    elif filename.startswith("<legal actions of"):
        lines = rs.source.splitlines()
    else:
        return linecache.getline(filename, line).strip()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def count(preset: str, players: int, games: int, lines: int = 0) -> dict:
    """Instructions per game by part, over `games` games from seeds 0, 1, ...; with `lines`, the
    that many lines that run the most, as [instructions per game, file, function, line, text]."""
    rs = load_spec().ruleset(preset)
    for seed in range(10**6, 10**6 + WARM_GAMES):
        play_random_game(rs, players, seed, check=False)
    if hasattr(rs, "program"):  # the program of the count, as a long run (simulate) has it
        rs.program(players)
    if hasattr(rs, "compiled_program"):  # the step and play written for this player count
        step, play = rs.compiled_program(players) or (None, None)
        source = rs.step_source_for(players) if step is not None else ""
    else:  # a revision before them (--baseline): one step for every player count
        step, play = getattr(rs, "step_fn", None), getattr(rs, "play_fn", None)
        source = rs.step_source if step is not None else ""
    step_code = getattr(step, "__code__", None)
    play_code = getattr(play, "__code__", None)
    starts = sorted(_step_parts(source).items()) if step_code is not None else []
    by_line: Counter = Counter()
    parts: Counter = Counter()
    every_line: Counter = Counter()  # (code, line) -> instructions, with `lines`
    steps = 0

    def trace(frame, event, arg):
        code = frame.f_code
        frame.f_trace_opcodes = True
        if code is step_code or (code is play_code and code is not None):
            def local(frame, event, arg):
                if event == "opcode":
                    by_line[code, frame.f_lineno or 0] += 1
                return local
        elif lines:
            where = _part_of(code)

            def local(frame, event, arg):
                if event == "opcode":
                    parts[where] += 1
                    every_line[code, frame.f_lineno or 0] += 1
                return local
        else:
            where = _part_of(code)

            def local(frame, event, arg):
                if event == "opcode":
                    parts[where] += 1
                return local
        return local

    sys.settrace(trace)
    try:
        for seed in range(games):
            steps += play_random_game(rs, players, seed, check=False).state.steps
    finally:
        sys.settrace(None)
    for (_code, line), n in by_line.items():
        part = "step: before settle"
        for start, name in starts:
            if start > line:
                break
            part = name
        parts[part] += n
    every_line.update(by_line)
    top = [[n / games, code.co_filename, code.co_name, line,
            _line_text(rs, code.co_filename, line, players)]
           for (code, line), n in every_line.most_common(lines)] if lines else []
    return {"games": games, "steps": steps, "lines": top,
            "parts": {k: v / games for k, v in parts.items()}}


def _show_lines(top: list) -> None:
    print(f"\nthe {len(top)} lines that run the most instructions per game")
    for n, filename, function, line, text in top:
        where = filename if filename.startswith("<") else Path(filename).name
        print(f"{n:9,.0f}  {where[:28]:28} {function[:14]:14} {line:5}  {text[:100]}")


def _played(path: Path | None, cache: Path, preset: str, players: int, games: int,
            peer: bool = False, window: bool = True) -> int:
    """The machine instructions valgrind counts in the window (callgrind.py) of a process (this
    script, --play) that loads the preset, warms up and plays `games` games, importing
    durak_spec from `path` (None: this checkout); with `peer`, durakgame's games instead."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "DURAK_CACHE_DIR": str(cache)}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    argv = [sys.executable, __file__, "--play", "--preset", preset, "--players", str(players),
            "--games", str(games)] + (["--durakgame"] if peer else [])
    if not window:  # filling the code cache
        subprocess.run(argv, capture_output=True, env=env, cwd=cache, check=True)
        return 0
    return callgrind.windows(argv, env, cache, 1)[0][0]


def machine(path: Path | None, preset: str, players: int, games: int, peer: bool = False) -> float:
    """Machine instructions per game: the window of the games alone, in a run after one that
    fills the code cache (with `peer`, durakgame's games)."""
    with tempfile.TemporaryDirectory() as cache:
        _played(path, Path(cache), preset, players, 0, peer, window=False)
        return _played(path, Path(cache), preset, players, games, peer) / games


def play_durakgame(games: int) -> None:
    """What --machine --durakgame counts of the peer: warm up, then play `games` games."""
    import durakgame_driver

    for seed in range(10**6, 10**6 + WARM_GAMES):
        durakgame_driver.play_random_game(random.Random(seed))
    rng = random.Random(1)
    callgrind.start()
    for _ in range(games):
        durakgame_driver.play_random_game(rng)
    callgrind.stop()


def play(preset: str, players: int, games: int) -> None:
    """What --machine counts: load, warm up, then play `games` games from seeds 0, 1, ..."""
    rs = load_spec().ruleset(preset)
    for seed in range(10**6, 10**6 + WARM_GAMES):
        play_random_game(rs, players, seed, check=False)
    if hasattr(rs, "program"):  # the program of the count, as a long run (simulate) has it
        rs.program(players)
    callgrind.start()
    for seed in range(games):
        play_random_game(rs, players, seed, check=False)
    callgrind.stop()


def _show(results: dict[str, dict]) -> None:
    names = list(results)
    keys = sorted({k for r in results.values() for k in r["parts"]},
                  key=lambda k: (not k.startswith("step"), k))
    print(f"{'instructions per game':42}" + "".join(f"{n:>16}" for n in names))
    for key in keys:
        print(f"{key:42}" + "".join(f"{r['parts'].get(key, 0):16,.0f}" for r in results.values()))
    totals = {n: sum(r["parts"].values()) for n, r in results.items()}
    print(f"{'total':42}" + "".join(f"{t:16,.0f}" for t in totals.values()))
    print(f"{'per step':42}" + "".join(
        f"{totals[n] * r['games'] / max(r['steps'], 1):16,.1f}" for n, r in results.items()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="podkidnoy")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--baseline", metavar="REV", help="count on git revision REV too")
    parser.add_argument("--lines", type=int, default=0, metavar="N",
                        help="print the N lines that run the most instructions")
    parser.add_argument("--machine", action="store_true",
                        help="count machine instructions with valgrind instead")
    parser.add_argument("--durakgame", action="store_true",
                        help="with --machine, count durakgame 1.0.4's 2-player games too")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--play", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.play:  # under valgrind, for --machine (--games 0: the run that fills the code cache)
        if args.durakgame:
            play_durakgame(args.games)
        else:
            play(args.preset, args.players, args.games)
        return 0
    if args.durakgame and (not args.machine or args.players != 2 or args.preset != "podkidnoy"):
        parser.error("--durakgame counts with --machine, at 2-player podkidnoy (durakgame's game)")
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.lines < 0:
        parser.error("--lines must be at least 0")
    if args.worker:
        print(json.dumps(count(args.preset, args.players, args.games)))
        return 0
    if args.machine:
        return _main_machine(args)
    results = {"this checkout": count(args.preset, args.players, args.games, args.lines)}
    if args.baseline:
        if not (ROOT / "reference_impl").is_dir():
            raise SystemExit("run --baseline from a checkout of durak-spec")
        with tempfile.TemporaryDirectory() as tmp:
            path = _tree(args.baseline, Path(tmp) / "baseline")
            run = subprocess.run([sys.executable, __file__, "--worker", "--preset", args.preset,
                                  "--players", str(args.players), "--games", str(args.games)],
                                 capture_output=True, text=True, cwd=tmp,
                                 env={**os.environ, "PYTHONPATH": str(path)})
            if run.returncode:
                raise SystemExit(f"{args.baseline} failed:\n{run.stderr[-2000:]}")
            results[args.baseline] = json.loads(run.stdout.splitlines()[-1])
    print(f"{args.preset}, {args.players} players, {args.games} games from seed 0")
    _show(results)
    if args.lines:
        _show_lines(results["this checkout"]["lines"])
    if not sum(results["this checkout"]["parts"].values()):
        print("TESTED NOTHING: no instruction was counted")
        return 3
    if args.baseline:
        ours = sum(results["this checkout"]["parts"].values())
        base = sum(results[args.baseline]["parts"].values())
        other = results[args.baseline]["steps"] != results["this checkout"]["steps"]
        print(f"instructions per game, {args.baseline} / this checkout: {base / ours:.2f}x"
              + ("  (other games: the preset's rules changed since)" if other else ""))
    return 0


def _main_machine(args) -> int:
    """--machine: machine instructions per game on this checkout (and on --baseline REV)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--machine needs valgrind (apt-get install valgrind)")
    if args.baseline and not (ROOT / "reference_impl").is_dir():
        raise SystemExit("run --baseline from a checkout of durak-spec")
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:  # two names of one length: see playouts._checkout
        here = _checkout(Path(tmp) / "checkout")
        figures["this checkout"] = machine(here, args.preset, args.players, args.games)
        if args.baseline:
            path = _tree(args.baseline, Path(tmp) / "baseline")
            figures[args.baseline] = machine(path, args.preset, args.players, args.games)
    print(f"{args.preset}, {args.players} players, {args.games} games from seed 0: "
          "machine instructions per game (valgrind)")
    for name, n in figures.items():
        print(f"{name:42}{n:16,.0f}")
    if figures["this checkout"] <= 0:
        print("TESTED NOTHING: no instruction was counted")
        return 3
    if args.baseline:
        print(f"machine instructions per game, {args.baseline} / this checkout: "
              f"{figures[args.baseline] / figures['this checkout']:.2f}x")
    if args.durakgame:
        peer = machine(None, args.preset, args.players, args.games, peer=True)
        print(f"{'durakgame 1.0.4':42}{peer:16,.0f}")
        print(f"machine instructions per game, durakgame / this checkout: "
              f"{peer / figures['this checkout']:.2f}x (target, issue 26: >= 3x in games/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
