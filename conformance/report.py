"""Reports of a conformance run: JSON (schemas/report.schema.json), JUnit XML and self-contained HTML.

Every failure carries the case id, its rule ids, the step, want and have, and the command that
reproduces it. Broken cases (the suite's bugs) are listed apart from the engine's failures.
"""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import datetime, timezone

from durak_spec.conformance.runner import Result, summarize

REPORT_VERSION = "1"


def report_json(results: list[Result], meta: dict) -> dict:
    return {"report_version": REPORT_VERSION, "tool": "durak-spec", **meta,
            "summary": summarize(results), "cases": [r.to_json() for r in results]}


def write_json(path, results, meta) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report_json(results, meta), f, indent=1, default=str)
        f.write("\n")


def write_junit(path, results: list[Result], meta: dict) -> None:
    by_area = defaultdict(list)
    for r in results:
        by_area[r.area or "other"].append(r)
    suites = ET.Element("testsuites", name=f"durak-spec conformance: {meta.get('engine', {}).get('name', '')}")
    for area, items in sorted(by_area.items()):
        counts = summarize(items)
        suite = ET.SubElement(
            suites, "testsuite", name=area, tests=str(len(items)),
            failures=str(counts["fail"] + counts["xpass"]), errors=str(counts["error"] + counts["broken"]),
            skipped=str(counts["skip"] + counts["xfail"]), time=f"{sum(r.seconds for r in items):.3f}")
        for r in items:
            tc = ET.SubElement(suite, "testcase", classname=f"{area}.{r.variant}", name=r.case,
                               time=f"{r.seconds:.4f}")
            detail = _detail_text(r)
            if r.status in ("fail", "xpass"):
                ET.SubElement(tc, "failure", message=r.message[:500], type=r.check or r.status).text = detail
            elif r.status in ("error", "broken"):
                ET.SubElement(tc, "error", message=r.message[:500], type=r.status).text = detail
            elif r.status in ("skip", "xfail"):
                ET.SubElement(tc, "skipped", message=r.message[:500])
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def _detail_text(r: Result) -> str:
    lines = [f"case {r.case} under {r.variant}; rules {', '.join(r.rules)}"]
    if r.step is not None:
        lines.append(f"step {r.step}: {r.action}")
    if r.check:
        lines += [f"check: {r.check}", f"want: {r.want!r}", f"have: {r.have!r}"]
    lines += [r.message, f"reproduce: {r.reproduce}"]
    return "\n".join(lines)


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left}
.pass{color:#1a7f37}.fail,.error,.xpass{color:#cf222e}.broken{color:#9a6700}.skip,.xfail{color:#777}
details{margin:.3em 0 .3em 1em}summary{cursor:pointer}
pre{background:#f6f8fa;padding:.5em;white-space:pre-wrap;margin:.3em 0}
code{background:#f6f8fa;padding:0 3px}
"""


def write_html(path, results: list[Result], meta: dict) -> None:
    counts = summarize(results)
    engine = meta.get("engine", {})
    out = ["<!doctype html><html><head><meta charset='utf-8'>",
           f"<title>durak-spec conformance: {html.escape(str(engine.get('name', '')))}</title>",
           f"<style>{_CSS}</style></head><body>",
           f"<h1>Conformance of {html.escape(str(engine.get('name', '?')))} "
           f"{html.escape(str(engine.get('version', '')))}</h1>",
           f"<p>Adapter <code>{html.escape(str(meta.get('adapter', '')))}</code>, "
           f"{len(results)} case runs, {html.escape(str(meta.get('finished', '')))}.</p><table>"]
    out += [f"<tr><td class='{s}'>{s}</td><td>{n}</td></tr>" for s, n in counts.items() if n]
    out.append("</table>")
    out += _fuzz_html(meta.get("fuzz") or [])
    by_area = defaultdict(list)
    for r in results:
        by_area[r.area or "other"].append(r)
    for area, items in sorted(by_area.items()):
        c = summarize(items)
        head = ", ".join(f"{n} {s}" for s, n in c.items() if n)
        out.append(f"<h2 id='area-{html.escape(area)}'>{html.escape(area)} <small>({head})</small></h2>")
        for r in sorted(items, key=lambda r: (r.status == "pass", r.case, r.variant)):
            title = (f"<span class='{r.status}'>{r.status}</span> <code>{html.escape(r.case)}</code> "
                     f"@ {html.escape(r.variant)}: {html.escape(r.description)}")
            if r.status == "pass":
                out.append(f"<div>{title}</div>")
                continue
            body = [f"<div>rules: {', '.join('<code>%s</code>' % html.escape(x) for x in r.rules)}</div>"]
            if r.step is not None:
                body.append(f"<div>step {r.step}: <code>{html.escape(str(r.action))}</code> ({html.escape(str(r.check))})</div>")
            if r.check:
                body.append(f"<div>want:</div><pre>{html.escape(json.dumps(r.want, default=str))}</pre>")
                body.append(f"<div>have:</div><pre>{html.escape(json.dumps(r.have, default=str))}</pre>")
            body.append(f"<div>{html.escape(r.message)}</div>")
            body.append(f"<div>reproduce:</div><pre>{html.escape(r.reproduce)}</pre>")
            out.append(f"<details{' open' if r.status in ('fail', 'error', 'broken') else ''}>"
                       f"<summary>{title}</summary>{''.join(body)}</details>")
    out.append("</body></html>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


def _fuzz_html(campaigns: list) -> list[str]:
    """durak fuzz: per campaign, the games played and the rule coverage."""
    out = []
    for c in campaigns:
        out.append(f"<h2>Fuzzing under {html.escape(str(c['variant']))}: {c['games']} games, "
                   f"{len(c['divergences'])} distinct divergence(s)</h2><table>"
                   "<tr><th>rule</th><th>accept</th><th>reject</th></tr>")
        for rule, entry in sorted(c["coverage"].items()):
            cells = []
            for side in ("accept", "reject"):
                e = entry[side]
                text, cls = ("-", "skip") if e["target"] is None else \
                    ("reached", "pass") if e["exercised"] else ("not reached", "fail")
                cells.append(f"<td class='{cls}'>{text}{' (edge)' if e['target'] == 'edge' else ''}</td>")
            out.append(f"<tr><td><code>{html.escape(rule)}</code></td>{''.join(cells)}</tr>")
        out.append("</table>")
    return out


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
