"""Benchmark: how fast `durak check` gets to its first answer.

Prints, each as the median of --repeats rounds (the rounds of each pair alternate, so other load on
the machine falls on both alike):
- the load of the spec and the whole suite, from the indexes (spec/index.jsonl,
  conformance/cases/index.jsonl: files taken by content hash), against the old path in the same
  run (every file parsed and schema-validated: `load_spec(record=[])`, `load_suite(trust=False)`);
- the load of one case (`--case ONE`) from the index, against the old path, which parsed and
  validated the whole suite whatever was selected;
- the wall time of `durak --version` and of `durak check --adapter reference --case ONE` as whole
  processes, and their ratio (the target: at most 4), with and without `--variant podkidnoy` (the
  case runs under 12 presets; the reference compiles a ruleset for each); warm (the compiled
  programs kept from an earlier run, reference_impl/codecache.py) and the first run (none kept).
In-process loads are timed with every cache emptied first. The whole processes keep their
bytecode as an installed package does, after one warm-up round. CPU seconds are printed beside the
wall clock: on a busy machine, CPU seconds are what an idle one approaches.
Run: python bench/load.py [--repeats 5] [--case attack/open_any_card]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from durak_spec.conformance import cases as cases_module
from durak_spec.conformance.cases import load_suite
from durak_spec.reference_impl import spec as spec_module
from durak_spec.reference_impl.spec import load_spec

DURAK = [sys.executable, "-c", "from durak_spec.tools.cli import main; main()"]


def _cold() -> None:
    cases_module._CACHE.clear()
    cases_module.case_index.cache_clear()
    spec_module.spec_index.cache_clear()
    spec_module._schema.cache_clear()
    cases_module.case_schema.cache_clear()


def load(full: bool, ids: tuple = ()) -> tuple[float, float, int]:
    """(wall s, CPU s, cases) to load the spec and the suite (or the cases `ids`)."""
    _cold()
    t0, c0 = time.perf_counter(), time.process_time()
    spec = load_spec(record=[] if full else None)
    if full:  # the old path: every case file parsed and validated, then the selection made
        suite = load_suite(spec, trust=False)
        n = sum(1 for c in suite.cases if not ids or c.id in ids)
    else:
        n = len(load_suite(spec, ids=ids).cases)
    return time.perf_counter() - t0, time.process_time() - c0, n


# The timed processes may keep their bytecode (.pyc), as an installed package does: where
# PYTHONDONTWRITEBYTECODE is set, every start of a checkout would compile each module anew.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
# the compiled programs of reference_impl/codecache.py, in a folder of this run's own
CODE_CACHE = tempfile.mkdtemp(prefix="durak-bench-code-")
ENV["DURAK_CACHE_DIR"] = CODE_CACHE


def process(argv: list[str], cold: bool = False) -> tuple[float, float]:
    """(wall s, CPU s of the child) of one whole process; `cold`: with the code cache emptied, as
    the first run after an install or a change of the spec is."""
    if cold:
        shutil.rmtree(CODE_CACHE, ignore_errors=True)
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    wall = time.perf_counter() - t0
    after = os.times()
    return wall, (after.children_user - before.children_user) + \
        (after.children_system - before.children_system)


def median_pair(fn_a, fn_b, repeats: int) -> tuple[list, list]:
    a, b = [], []
    for _ in range(repeats):
        a.append(fn_a())
        b.append(fn_b())
    return a, b


def med(rows, i: int) -> float:
    return statistics.median(r[i] for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--case", default="attack/open_any_card")
    ap.add_argument("--full-repeats", type=int, default=2,
                    help="rounds of the old path (it takes seconds each)")
    args = ap.parse_args()

    print(f"load (median of {args.repeats}; old path: {args.full_repeats} rounds), machine "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    rows = []
    for label, ids in (("whole suite", ()), (f"--case {args.case}", (args.case,))):
        new, old = median_pair(lambda: load(False, ids), lambda: load(True, ids), args.full_repeats)
        new += [load(False, ids) for _ in range(args.repeats - args.full_repeats)]
        rows.append((label, new, old))
        print(f"  {label:40} {med(new, 0):7.3f} s wall {med(new, 1):7.3f} s CPU ({new[0][2]} cases)"
              f"   old path {med(old, 0):7.3f} s wall {med(old, 1):7.3f} s CPU"
              f"   old/new {med(old, 0) / med(new, 0):6.1f}x wall {med(old, 1) / med(new, 1):6.1f}x CPU")

    print("whole processes (wall; CPU of the process)")
    version = DURAK + ["--version"]
    for label, extra in (("one case, one preset", ["--variant", "podkidnoy"]),
                         ("one case, every preset it names", [])):
        check = DURAK + ["check", "-q", "--adapter", "reference", "--case", args.case, *extra]
        process(version), process(check)  # warm: bytecode written, files in the page cache
        v, c = median_pair(lambda: process(version), lambda: process(check), args.repeats)
        print(f"  durak --version                          {med(v, 0):7.3f} s wall {med(v, 1):7.3f} s CPU")
        print(f"  durak check --case ({label:30}) {med(c, 0):7.3f} s wall {med(c, 1):7.3f} s CPU"
              f"   ratio to --version {med(c, 0) / med(v, 0):5.1f}x wall {med(c, 1) / med(v, 1):5.1f}x CPU"
              f" (target: at most 4x wall)")
        cold_v, cold_c = median_pair(lambda: process(version), lambda: process(check, cold=True),
                                     args.repeats)
        print(f"  the same, the first run (code cache empty) {med(cold_c, 0):7.3f} s wall "
              f"{med(cold_c, 1):7.3f} s CPU   ratio to --version {med(cold_c, 0) / med(cold_v, 0):5.1f}x wall")
    shutil.rmtree(CODE_CACHE, ignore_errors=True)


if __name__ == "__main__":
    main()
