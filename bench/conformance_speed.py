"""Benchmark: the shipped conformance suite against the reference, in process and as a subprocess.

Runs every case of conformance/cases/ the way `durak check` does (each case is first replayed on
the session's own reference to catch broken cases, then played on the engine under test), through
the `reference` adapter and through `cmd:` with conformance/examples/reference_engine.py, and
prints cases/s and steps/s for each and the ratio between them. The two alternate round by round,
so load from other processes falls on both alike; each figure is the best of --repeats rounds.

- cold: a fresh session per round, as one `durak check` run (engine start, ruleset compilation),
- warm: a second pass over the suite in the same session (the runner's own throughput).
Loading the suite (YAML and schema checks) is timed apart and counted in neither. Next to the
wall-clock rates it prints the CPU seconds of the runner and of the engine process (Linux /proc):
on a busy machine the ping-pong between two processes waits for time slices, so cases per CPU
second is what an idle machine approaches.
Run: python bench/conformance_speed.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.runner import Session
from durak_spec.conformance.transport import make_adapter
from durak_spec.reference_impl.spec import load_spec

ADAPTERS = {
    "in process": "reference",
    "subprocess": f"cmd:{sys.executable} -m durak_spec.conformance.examples.reference_engine",
}


def engine_cpu(session) -> float:
    """CPU seconds used so far by a cmd: engine's process (0 in process or off Linux)."""
    proc = getattr(session.adapter, "proc", None)
    try:
        with open(f"/proc/{proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (AttributeError, OSError, ValueError, IndexError):
        return 0.0


def timed_round(spec, adapter_name: str, jobs) -> dict:
    """One cold pass and one warm pass over `jobs` in one session:
    (wall seconds, steps, statuses, runner CPU seconds, engine CPU seconds) for each."""
    session = Session(spec, make_adapter(adapter_name, spec=spec), adapter_name=adapter_name)
    out = {}
    t0, c0 = time.perf_counter(), time.process_time()
    session.open()
    e0 = 0.0  # the engine's start counts towards the cold pass
    try:
        for label in ("cold", "warm"):
            steps0 = session.steps
            results = [session.run_case(case, variant) for case, variant in jobs]
            e1 = engine_cpu(session)
            out[label] = (time.perf_counter() - t0, session.steps - steps0,
                          Counter(r.status for r in results), time.process_time() - c0, e1 - e0)
            t0, c0, e0 = time.perf_counter(), time.process_time(), e1
    finally:
        session.close()
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    spec = load_spec()
    t0 = time.perf_counter()
    suite = load_suite(spec)
    jobs = [(case, variant) for case in suite.cases for variant in case.variants]
    print(f"loaded {len(suite.cases)} cases ({len(jobs)} case runs) in "
          f"{time.perf_counter() - t0:.2f} s")
    best: dict = {}
    for _ in range(args.repeats):
        for name, adapter_name in ADAPTERS.items():
            for label, figures in timed_round(spec, adapter_name, jobs).items():
                key = (name, label)
                if key not in best or figures[0] < best[key][0]:
                    best[key] = figures
    for (name, label), (seconds, steps, statuses, cpu, engine) in best.items():
        status = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
        print(f"{name:10} {label}: {len(jobs) / seconds:6.0f} cases/s {steps / seconds:7.0f} steps/s"
              f" ({seconds:.2f} s; CPU {cpu:.2f} s runner + {engine:.2f} s engine ="
              f" {len(jobs) / (cpu + engine):.0f} cases per CPU s; {status})")
    for label in ("cold", "warm"):
        ratio = best[("subprocess", label)][0] / best[("in process", label)][0]
        print(f"{label}: the subprocess takes {ratio:.2f}x the in-process time")
    failed = any(set(figures[2]) - {"pass"} for figures in best.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
