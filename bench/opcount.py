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
Run: python bench/opcount.py [--preset podkidnoy] [--players 2] [--games 50] [--baseline 3ca4f9e]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from durak_spec.reference_impl.simulate import play_random_game
from durak_spec.reference_impl.spec import load_spec

sys.path.insert(0, str(Path(__file__).parent))
from playouts import ROOT, _tree  # noqa: E402

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


def _step_parts(source: str) -> dict[int, str]:
    """Line number -> part, for the generated step's source: where each part begins."""
    lines = source.splitlines()
    starts: dict[int, str] = {}
    for i, line in enumerate(lines, 1):
        kind = re.match(r"    (?:if|elif) _kind == '(\w+)':", line)
        if kind:
            starts[i] = f"step: event {kind.group(1)}"
        elif line.startswith("    s.steps += 1"):
            starts[i] = "step: settle's reads"
        elif line == "        # throw":
            starts[i] = "step: throw-ins listed"
        elif line == "        if throws:":
            starts[i] = "step: who may throw, passes, order"
        elif line == "        out = []":
            starts[i] = "step: other actions listed"
        elif re.match(r"        if .*:$", line) and i < len(lines):
            end = re.search(r"_(bout_\w+?)\d", lines[i])
            if end:
                starts[i] = f"step: {end.group(1)}"
    return starts


def count(preset: str, players: int, games: int) -> dict:
    """Instructions per game by part, over `games` games from seeds 0, 1, ..."""
    rs = load_spec().ruleset(preset)
    for seed in range(10**6, 10**6 + WARM_GAMES):
        play_random_game(rs, players, seed, check=False)
    step = getattr(rs, "step_fn", None)
    step_code = getattr(step, "__code__", None)
    starts = sorted(_step_parts(rs.step_source).items()) if step_code is not None else []
    by_line: Counter = Counter()
    parts: Counter = Counter()
    steps = 0

    def trace(frame, event, arg):
        code = frame.f_code
        frame.f_trace_opcodes = True
        if code is step_code:
            def local(frame, event, arg):
                if event == "opcode":
                    by_line[frame.f_lineno or 0] += 1
                return local
        else:
            where = _where(code)

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
    for line, n in by_line.items():
        part = "step: before settle"
        for start, name in starts:
            if start > line:
                break
            part = name
        parts[part] += n
    return {"games": games, "steps": steps,
            "parts": {k: v / games for k, v in parts.items()}}


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
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.worker:
        print(json.dumps(count(args.preset, args.players, args.games)))
        return 0
    results = {"this checkout": count(args.preset, args.players, args.games)}
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


if __name__ == "__main__":
    raise SystemExit(main())
