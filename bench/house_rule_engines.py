"""Benchmark: the example engines of house rules and action models, as a user runs them.

For each clean engine of conformance/examples/house_rules.py and style_*.py and its broken twin,
`durak check` (the whole suite under the presets it declares) and `durak fuzz --games G --seed S
--players N` for N = 2 to 6, each through the command line with a JSON report. A clean engine
must get no failure and no divergence; a broken twin must be named first (problem 1) by a rule
it breaks, in check and wherever fuzz finds a divergence. One row per engine: check's failures
and problem 1, then per player count fuzz's divergences and problem 1 (`-` where none), and
whether the row meets its target. Slow (about 20 minutes on an idle machine
for all engines); --engine picks some.
Run: python bench/house_rule_engines.py [--games 200] [--seed 1] [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HOUSE = "python:durak_spec.conformance.examples.house_rules:"
STYLE = "python:durak_spec.conformance.examples."
# clean engine: (presets fuzz plays, the rules its broken twin may be named by first; None: its
# twin is another engine's)
ENGINES = {
    HOUSE + "LastAdderClockwiseEngine": (["podkidnoy"], {"throw_in.order_last_adder_clockwise"}),
    HOUSE + "AttackerThenAnyEngine": (["podkidnoy"], {"throw_in.attacker_first"}),
    HOUSE + "PassWithdrawnEngine": (["podkidnoy"], {"throw_in.not_passed"}),
    HOUSE + "MinidurakPassWithdrawnEngine": (["podkidnoy"], {"throw_in.not_passed"}),
    HOUSE + "NoLastCardTransferEngine": (["perevodnoy"], {"transfer.last_card"}),
    HOUSE + "FiveBeforeFirstBeatEngine": (["two_packs"], {"limits.before_first_beat"}),
    # going_out end_of_bout, which transfers and who may add both read (its docstring)
    HOUSE + "SkippedAtOnceEngine": (["perevodnoy"], {"transfer.capacity", "throw_in.who"}),
    HOUSE + "NeighboursUnderTransfersEngine": (["podkidnoy", "perevodnoy"], {"throw_in.who"}),
    HOUSE + "IdleDoneEngine": (["podkidnoy"], {"throw_in.order", "bout.pass"}),
    HOUSE + "NoPassSiegeEngine": (["podkidnoy"], {"defence.take"}),
    HOUSE + "MinidurakNoPassSiegeEngine": (["siege"], {"throw_in.rank"}),
    HOUSE + "MinidurakNoPassSiegeDealsEngine": (["siege"], None),
    HOUSE + "OneMoveSiegeEngine": (["podkidnoy"], {"throw_in.timing"}),
    STYLE + "style_silent:SilentEngine": (["podkidnoy"], {"throw_in.rank"}),
    STYLE + "style_explicit_pass:ExplicitPassEngine": (["podkidnoy"], {"draw.order"}),
    STYLE + "style_done:DoneEngine": (["podkidnoy"], {"limits.cap"}),
    STYLE + "style_no_pass_unbeaten:NoPassWhileUnbeatenEngine": (["podkidnoy"], {"defence.beat"}),
    STYLE + "style_one_move_opening:OneMoveOpeningEngine": (["podkidnoy"], {"throw_in.timing"}),
    STYLE + "style_turnless:TurnlessEngine": (["podkidnoy"], {"defence.take"}),
    STYLE + "style_play_card:PlayCardEngine": (["podkidnoy"], {"rotation.after_take"}),
}
PLAYERS = (2, 3, 4, 5, 6)


def twin(adapter: str) -> str:
    head, _, name = adapter.rpartition(":")
    return f"{head}:Broken{name}"


def durak(args: list, report: Path) -> dict:
    """Run `durak ARGS --report REPORT` and read the report (an error exit without one: {})."""
    exe = Path(sys.executable).with_name("durak")
    subprocess.run([str(exe), *args, "--report", str(report), "-q"], capture_output=True,
                   text=True)
    try:
        return json.loads(report.read_text())
    except (OSError, ValueError):
        return {}


def outcome(report: dict) -> tuple[int | None, str | None]:
    """(failures and errors, the rule of problem 1) of a check or fuzz report."""
    if not report:
        return None, None
    summary = report.get("summary", {})
    problems = report.get("problems") or []
    first = problems[0]["rule"] if problems else None
    return summary.get("fail", 0) + summary.get("error", 0), first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", action="append", default=[],
                        help="only the engines whose adapter contains this (repeatable)")
    args = parser.parse_args()
    print("engine | check | " + " | ".join(f"fuzz {n}" for n in PLAYERS) + " | target")
    met = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for clean, (presets, rules) in ENGINES.items():
            for adapter in [clean] + ([twin(clean)] if rules else []):
                if args.engine and not any(e in adapter for e in args.engine):
                    continue
                broken = adapter != clean
                cells, ok = [], True
                for n in (None, *PLAYERS):
                    out = Path(tmp) / f"{len(cells)}-{adapter.rpartition(':')[2]}"
                    if n is None:
                        report = durak(["check", "--adapter", adapter], out.with_suffix(".json"))
                    else:
                        report = durak(["fuzz", "--adapter", adapter, "--games", str(args.games),
                                        "--seed", str(args.seed), "--players", str(n),
                                        "--out", str(out)]
                                       + [a for p in presets for a in ("--variant", p)],
                                       out.with_suffix(".json"))
                    fails, rule = outcome(report)
                    cells.append("error" if fails is None else f"{fails} {rule or '-'}")
                    wrong = fails if not broken else fails and rule not in rules
                    if fails is None or wrong:
                        ok = False
                    if n is None and broken and not fails:
                        ok = False  # check must catch the twin
                name = adapter.rpartition(":")[2]
                print(" | ".join([name, *cells, "met" if ok else "NOT MET"]), flush=True)
                met, total = met + ok, total + 1
    print(f"{met} of {total} engines meet their target")


if __name__ == "__main__":
    main()
