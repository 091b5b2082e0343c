"""`durak verify --report FILE`: the run as JSON (conformance/schemas/verify-report.schema.json),
for CI and for the docs, which show each invariant's status per preset from it
(`sphinx-build -D durak_verify=FILE`) instead of proving everything a second time.
"""

from __future__ import annotations

import json
from pathlib import Path

from durak_spec.tools.verify.invariants import STEPS

REPORT_VERSION = "1"
SCHEMA = Path(__file__).resolve().parents[2] / "conformance" / "schemas" / "verify-report.schema.json"


def _cell(cell) -> dict:
    out = {"status": cell.status, "players": sorted(cell.players)}
    if cell.depth is not None:
        out["depth"] = cell.depth
    if cell.note:
        out["note"] = cell.note
    if cell.gave_up:
        out["gave_up"] = sorted(cell.gave_up)
    return out


def preset_entry(report) -> dict:
    """One preset's results: its deal proofs per invariant and step (none for a twin, whose
    proofs are its twin's), its problems, the D1 equivalences and its match invariants."""
    entry = {"preset": report.preset, "players": sorted(report.players), "twin": report.twin,
             "seconds": round(report.seconds, 3), "problems": list(report.problems),
             "notes": list(report.notes), "invariants": [], "equivalences": [], "match": {}}
    for pid, title, lemma in report.props:
        entry["invariants"].append({"id": pid, "title": title, "lemma": lemma,
                                    "steps": {s: _cell(report.cells[(pid, s)]) for s in STEPS}})
    for f in report.equivalences:
        entry["equivalences"].append({"a": f.a, "b": f.b, "overrides": f.overrides,
                                      "equal_players": list(f.equal_players),
                                      "interpreter_agrees": f.agrees, "note": f.note,
                                      "gave_up": list(f.gave_up), "witness": f.witness})
    if report.match is not None:
        m = report.match
        ends = sorted(m.ends_within.items())
        entry["match"] = {"players": sorted(m.players), "invariants": dict(m.proved),
                          "ends_within": {str(n): k for n, (k, _) in ends},
                          "ends_within_note": next((why for _, (k, why) in ends if k is None), ""),
                          "void_deals": {"rules": list(m.void_deals), "bounded": not m.void_deals,
                                         "note": m.void_note()}}
    return entry


def verify_report(reports, problems: int, seconds: float, overrides: dict,
                  boundary: list | None = None) -> dict:
    """The run as JSON; `boundary` (boundary.generate's results, per rule and verdict) only when
    --write-boundary ran."""
    out = {"report_version": REPORT_VERSION, "tool": "durak verify", "options": overrides,
           "problems": problems, "seconds": round(seconds, 3),
           "presets": [preset_entry(r) for r in reports]}
    if boundary is not None:
        out["boundary"] = boundary
    return out


def write_report(path: str | Path, report: dict) -> None:
    Path(path).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def invariant_status(report: dict) -> dict:
    """{invariant id: {preset: (status, note)}} from a report: the worst status over the steps
    where the invariant can break (`never` steps do not count); a twin shows its twin's."""
    rank = {"proved": 0, "bounded": 1, "counterexample": 2}
    by_preset = {p["preset"]: p for p in report["presets"]}
    out: dict = {}
    for name, entry in by_preset.items():
        source = by_preset.get(entry["twin"], entry) if entry["twin"] else entry
        for inv in source["invariants"]:
            for cell in inv["steps"].values():
                if cell["status"] == "never":
                    continue
                worst = out.setdefault(inv["id"], {}).get(name, ("proved", ""))
                if rank.get(cell["status"], 0) >= rank.get(worst[0], 0):
                    note = (f"depth {cell.get('depth')}" if cell["status"] == "bounded"
                            else cell.get("note", ""))
                    if entry["twin"] and cell["status"] == "proved":
                        note = note or f"as {entry['twin']}, which plays every deal as it does"
                    out[inv["id"]][name] = (cell["status"], note)
    return out
