"""Reports on engines nobody tuned the suite for: three independent podkidnoy engines with classic
bugs, each run as a user runs it, through the command line.

The engines (conformance/examples/) share no code with the reference, mutants.py or minidurak:
kitchen_table.py (plain Python over JSON lines, its own move names and legal order, no
positions), javascript/tavern.js (node; house rules free_for_all, done_by main_attacker, no
throw-ins after a take; positions) and ledger_durak.py (in process, functional, explicit passes
mapped by its adapter). Each has three bugs in three rule areas; one is really another option
value (its `as_option`), which the report should advise. For each engine: the clean twin, each
bug alone, and all bugs together, through `durak check` (the whole suite) and `durak fuzz
--games G --seed S --players N` for N in --players (2 and 4), each with a JSON report. One row
per run:

  fail      failing case runs (check) or divergences (fuzz: signatures)
  right     of those, how many name a rule the engine breaks
  problems  problems of the report, and how many name a rule the engine breaks
  missed    broken rules that are the rule of no problem
  advice    problems with advice: right (the engine really plays that value) / wrong

A clean twin must show no failure at all. The totals give problems per bug (target at most 2),
right rule per problem (95 %) and per failing run (90 %), and wrong advice (0).

    python bench/independent_engines.py                      # all (about 10 minutes idle)
    python bench/independent_engines.py --engine tavern --no-single
    python bench/independent_engines.py --no-fuzz
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "conformance" / "examples"
LEDGER = "python:durak_spec.conformance.examples.ledger_durak:"


def _kitchen(bugs: list) -> str:
    return "cmd:" + shlex.join([sys.executable, str(EXAMPLES / "kitchen_table.py"),
                                *[a for b in bugs for a in ("--bug", b)]])


def _tavern(bugs: list) -> str:
    return "cmd:" + shlex.join(["node", str(EXAMPLES / "javascript" / "tavern.js"),
                                *[a for b in bugs for a in ("--bug", b)]])


def _ledger(bugs: list) -> str:
    names = {"seat-order": "LedgerSeatOrderEngine", "last-defender": "LedgerLastDefenderEngine",
             "take-beaten": "LedgerTakeBeatenEngine"}
    if not bugs:
        return LEDGER + "LedgerEngine"
    return LEDGER + (names[bugs[0]] if len(bugs) == 1 else "BuggyLedgerEngine")


# engine: (adapter for a list of bugs, {bug: (rule it breaks, (option, value) it really plays)})
ENGINES = {
    "kitchen_table": (_kitchen, {"cover-first": ("defence.target", None),
                                 "seven-cards": ("limits.cap", ("max_attack_cards", 7)),
                                 "turnup-first": ("deck.trump", None)}),
    "tavern": (_tavern, {"join-order-draw": ("draw.order", None),
                         "adds-after-take": ("throw_in.after_take", ("throw_in_after_take", True)),
                         "attacker-again": ("rotation.after_take", None)}),
    "ledger": (_ledger, {"seat-order": ("throw_in.order", None),
                         "last-defender": ("end.fool", ("simultaneous_finish", "last_defender_loses")),
                         "take-beaten": ("defence.take", None)}),
}
# bugs no two-player game can show (with two players the attacker after a take is the same
# seat, and one attacker joins a bout): a fuzz campaign at 2 players does not count them
THREE_OR_MORE = {"join-order-draw", "attacker-again", "seat-order"}


def durak(args: list, report: Path) -> dict:
    """Run `durak ARGS --report REPORT -q` and read the report ({} when there is none)."""
    exe = Path(sys.executable).with_name("durak")
    subprocess.run([str(exe), *args, "--report", str(report), "-q"], capture_output=True, text=True)
    try:
        return json.loads(report.read_text())
    except (OSError, ValueError):
        return {}


def failing(report: dict, tool: str) -> list[str | None]:
    """The rule of each failing run (check: each failing case run and each later difference in
    it; fuzz: each divergence's signature)."""
    if tool == "fuzz":
        return [d.get("rule") or None for f in report.get("fuzz", []) for d in f.get("divergences", [])
                if d.get("known") is None]
    out = []
    for r in report.get("cases", []):
        if r.get("status") in ("fail", "error"):
            out.append(r.get("rule"))
            out += [d.get("rule") for d in r.get("differences") or []]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", action="append", default=[], choices=sorted(ENGINES))
    parser.add_argument("--players", type=int, action="append", default=[])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-single", action="store_true", help="not each bug alone")
    parser.add_argument("--no-fuzz", action="store_true", help="durak check only")
    args = parser.parse_args(argv)
    players = args.players or [2, 4]
    tot = dict(bugs=0, problems=0, named=0, runs=0, right=0, ok=0, wrong=0, clean_fail=0)
    print(f"{'engine':44} {'tool':8} {'fail':>5} {'right':>5} {'problems':>8} {'right':>5} "
          f"{'missed':>6} {'advice ok/wrong':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.engine or ENGINES:
            adapter_of, table = ENGINES[name]
            configs = [[]] + ([] if args.no_single else [[b] for b in table]) + [list(table)]
            for bugs in configs:
                broken = {table[b][0] for b in bugs}
                genuine = [{table[b][1][0]: table[b][1][1]} for b in bugs if table[b][1]]
                label = f"{name} {'+'.join(bugs) or '(clean)'}"
                runs = [("check", ["check", "--adapter", adapter_of(bugs)])]
                if not args.no_fuzz:
                    runs += [(f"fuzz {n}", ["fuzz", "--adapter", adapter_of(bugs), "--players", str(n),
                                            "--games", str(args.games), "--seed", str(args.seed),
                                            "--out", str(Path(tmp) / f"out{len(label)}{n}")])
                             for n in players]
                for tool, cli in runs:
                    if tool == "fuzz 2":
                        broken = {table[b][0] for b in bugs if b not in THREE_OR_MORE}
                    else:
                        broken = {table[b][0] for b in bugs}
                    report = durak(cli, Path(tmp) / "report.json")
                    if not report:
                        print(f"{label[:44]:44} {tool:8} no report")
                        continue
                    rules = failing(report, tool.split()[0])
                    problems = report.get("problems") or []
                    named = [p for p in problems if p["rule"] in broken]
                    missed = sorted(broken - {p["rule"] for p in problems})
                    ok = [p for p in problems if p.get("advice") and p["advice"] in genuine]
                    wrong = [p for p in problems if p.get("advice") and p["advice"] not in genuine]
                    right = sum(r in broken for r in rules)
                    print(f"{label[:44]:44} {tool:8} {len(rules):5} {right:5} {len(problems):8} "
                          f"{len(named):5} {len(missed):6} {len(ok):7}/{len(wrong)}"
                          + ("  !! a clean engine fails" if not bugs and rules else ""), flush=True)
                    for p in problems:
                        advice = ", ".join(f"{k} = {json.dumps(v)}" for k, v in (p.get("advice") or {}).items())
                        print(f"    {' ' if p['rule'] in broken else 'x'} {str(p['rule']):28} "
                              f"{p['kind'][:30]:30} {p['count']:6}  {'advice: ' + advice if advice else ''}")
                    if missed:
                        print(f"      missed: {', '.join(missed)}")
                    if not bugs:
                        tot["clean_fail"] += bool(rules)
                        continue
                    tot["bugs"] += len(broken)
                    tot["problems"] += len(problems)
                    tot["named"] += len(named)
                    tot["runs"] += len(rules)
                    tot["right"] += right
                    tot["ok"] += len(ok)
                    tot["wrong"] += len(wrong)

    def pct(a, b):
        return f"{100 * a / b:.1f} %" if b else "-"
    print(f"\nclean twins with a failure: {tot['clean_fail']} (target 0)")
    print(f"problems per bug: {tot['problems'] / (tot['bugs'] or 1):.2f} ({tot['problems']} problems, "
          f"{tot['bugs']} bugs over the runs)")
    print(f"right rule per problem: {tot['named']}/{tot['problems']} ({pct(tot['named'], tot['problems'])})")
    print(f"right rule per failing run: {tot['right']}/{tot['runs']} ({pct(tot['right'], tot['runs'])})")
    print(f"advice: {tot['ok']} right, {tot['wrong']} wrong (target 0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
