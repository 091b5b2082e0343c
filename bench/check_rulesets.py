"""Benchmark: the rulesets a cold `durak check` of a broken engine builds for its diagnoses, on this
checkout and on another git revision (taken out with `git archive`), each in a process of its own.

Runs `durak check --adapter A` in process with an empty code cache (DURAK_CACHE_DIR) and counts
the rulesets built (Ruleset.__init__) and the programs generated (Ruleset._fuse); prints each
side's wall and CPU seconds, those counts and the peak memory, the ratio of their CPU, and whether
the two JSON reports are the same once times are left out. Alternates the sides --repeats times.

    python bench/check_rulesets.py [--against main] [--adapter python:...mutants:attacker_again_after_take]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
from playouts import _tree  # noqa: E402  (the peer tree, as playouts.py --baseline builds it)

ADAPTER = "python:durak_spec.conformance.examples.mutants:attacker_again_after_take"
TREE = re.compile(r"/\S*?/(?=conformance/)")  # where a tree lies, before a case file's path

DRIVER = r"""
import json, resource, sys, time
from durak_spec.reference_impl import ruleset as R
counts = {"built": 0, "programs": 0}
init, fuse = R.Ruleset.__init__, R.Ruleset._fuse
def counted_init(self, *a, **k):
    counts["built"] += 1
    init(self, *a, **k)
def counted_fuse(self):
    counts["programs"] += 1
    return fuse(self)
R.Ruleset.__init__, R.Ruleset._fuse = counted_init, counted_fuse
from durak_spec.tools.cli import main
wall, cpu = time.perf_counter(), time.process_time()
try:
    main(["check", "-q", "--adapter", sys.argv[1], "--report", sys.argv[2]])
except SystemExit:
    pass
counts.update(wall=time.perf_counter() - wall, cpu=time.process_time() - cpu,
              mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
print(json.dumps(counts))
"""


def run(adapter: str, report: Path, path: Path | None) -> dict:
    env = dict(os.environ, DURAK_CACHE_DIR=tempfile.mkdtemp(prefix="check_rulesets_cache_"))
    if path is not None:
        env["PYTHONPATH"] = str(path)
    out = subprocess.run([sys.executable, "-c", DRIVER, adapter, str(report)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def timeless(report: Path):
    """The JSON report with its times left out, and case files named from the tree's root."""
    def strip(x):
        if isinstance(x, str):
            return TREE.sub("", x)
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("seconds", "started")
                    and not (k == "finished" and isinstance(v, str))}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip(json.loads(report.read_text()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="main", help="git revision of the peer")
    parser.add_argument("--adapter", default=ADAPTER)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    peer = _tree(args.against, Path(tempfile.mkdtemp(prefix="check_rulesets_")))
    out = Path(tempfile.mkdtemp(prefix="check_rulesets_reports_"))
    rows = {"this": [], args.against: []}
    for i in range(args.repeats):
        for name, path in (("this", None), (args.against, peer)):
            rows[name].append(run(args.adapter, out / f"{name}_{i}.json", path))
            r = rows[name][-1]
            print(f"{name:12} wall {r['wall']:6.1f} s  CPU {r['cpu']:6.1f} s  rulesets built "
                  f"{r['built']:5}  programs generated {r['programs']:5}  peak {r['mb']} MB", flush=True)
    best = {name: min(r["cpu"] for r in runs) for name, runs in rows.items()}
    same = all(timeless(out / f"this_{i}.json") == timeless(out / f"{args.against}_{i}.json")
               for i in range(args.repeats))
    print(f"CPU {args.against} / this: {best[args.against] / best['this']:.2f}x (best of "
          f"{args.repeats}); reports {'identical' if same else 'DIFFER'} (times aside; {out})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
