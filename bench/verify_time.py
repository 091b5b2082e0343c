"""Benchmark: `durak verify --jobs 2` over every preset (what the tests' full_verify runs), the
working tree against another git revision, in turns.

Extracts --against (default main) into a temporary folder as playouts.py --baseline does, runs both trees' verify in
fresh processes, alternating, --repeats times each, and prints per run the wall time, the CPU
time of the run and its workers and the load average; then the medians, their ratio, and
whether the two trees' JSON reports are the same (times aside, and fields only one tree writes
named and left out). The machine is shared: read CPU beside wall, and the load beside both.

    python bench/verify_time.py [--against main] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from playouts import _tree  # noqa: E402  (the baseline tree, as playouts.py --baseline builds it)


def run(pythonpath: str | None, out: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, load) of one `durak verify -q --jobs 2` over every preset."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "durak_spec.tools.cli", "verify", "-q", "--jobs", "2",
                    "--out", str(out / "cases"), "--report", str(out / "report.json")],
                   cwd=out, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, load


def report(path: Path):
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "seconds"}
        return [strip(v) for v in x] if isinstance(x, list) else x
    return strip(json.loads(path.read_text()))


def common(a, b, only: set, where: str = ""):
    """a and b with the keys of objects that only one of them has left out (their names added
    to `only`): a report field one tree adds is not a difference in what both report."""
    if isinstance(a, dict) and isinstance(b, dict):
        only.update(f"{where}.{k}" for k in set(a) ^ set(b))
        keys = [k for k in a if k in b]
        pairs = [common(a[k], b[k], only, f"{where}.{k}") for k in keys]
        return dict(zip(keys, (x for x, _ in pairs))), dict(zip(keys, (y for _, y in pairs)))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = [common(x, y, only, f"{where}[]") for x, y in zip(a, b)]
        return [x for x, _ in pairs], [y for _, y in pairs]
    return a, b


def differences(peer: dict, this: dict) -> list[str]:
    """Where the reports differ: per preset, the sections (and equivalences, by their readings
    and overrides) whose contents differ, with the witness's player count and first action."""
    out = []
    theirs = {p.get("preset"): p for p in peer.get("presets", [])}
    for p in this.get("presets", []):
        q = theirs.get(p.get("preset"), {})
        for key in sorted(set(p) | set(q)):
            if p.get(key) == q.get(key):
                continue
            if key != "equivalences":
                out.append(f"{p.get('preset')}: {key}")
                continue
            for e, f in zip(p[key], q.get(key) or []):
                if e != f:
                    def said(x):
                        w = x.get("witness")
                        return (f"equal {x.get('equal_players')}, witness "
                                f"{(w['players'], w['actions']) if w else None}, note {bool(x.get('note'))}"
                                f", gave up {x.get('gave_up')}")
                    out.append(f"{p.get('preset')}: {e['a']}/{e['b']} {e['overrides']}: "
                               f"{said(f)} -> {said(e)}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="main")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="copy the first run's reports of both trees here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        path = str(_tree(args.against, where / "peer"))
        times = {"peer": [], "this": []}
        for i in range(args.repeats):
            for name, pythonpath in (("peer", path), ("this", None)):
                out = where / f"{name}{i}"
                out.mkdir()
                wall, cpu, load = run(pythonpath, out)
                times[name].append((wall, cpu))
                print(f"{name:4} ({args.against if name == 'peer' else 'working tree'}): "
                      f"wall {wall:6.1f} s  CPU {cpu:6.1f} s  load {load:.2f}", flush=True)
        only: set = set()
        peer, this = common(report(where / "peer0" / "report.json"),
                            report(where / "this0" / "report.json"), only)
        same = peer == this
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for name in ("peer", "this"):
                shutil.copy(where / f"{name}0" / "report.json", args.keep / f"{name}.json")
        for line in differences(peer, this):
            print(f"  differs: {line}")
    med = {k: [statistics.median(x[j] for x in v) for j in (0, 1)] for k, v in times.items()}
    print(f"median wall {med['peer'][0]:.1f} -> {med['this'][0]:.1f} s "
          f"({med['peer'][0] / med['this'][0]:.2f}x), CPU {med['peer'][1]:.1f} -> "
          f"{med['this'][1]:.1f} s ({med['peer'][1] / med['this'][1]:.2f}x); reports "
          f"{'identical' if same else 'DIFFER'} (times aside"
          f"{'; fields in one tree only: ' + ', '.join(sorted(only)) if only else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
