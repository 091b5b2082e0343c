"""Reports of a conformance run: JSON (schemas/report.schema.json), JUnit XML and self-contained HTML.

Every failure carries the case id, its rule ids, the step, want and have, and the command that
reproduces it. Broken cases (the suite's bugs) are listed apart from the engine's failures.

The renderers take Result-shaped records (conformance/runner.py's Result, or anything with its
attributes: `durak fuzz` renders its divergences through them too) and a `meta` dict: adapter,
engine (its hello), started, finished, seconds, and when the run did not go to its end `error`
(the engine failed its handshake) or `stopped` (the reason, e.g. a deadline or Ctrl-C). What an
engine sent is bounded here (MAX_TEXT characters, MAX_ITEMS items per list), so no engine can
inflate a report. Every file is written whole or not at all (a temporary file, then a rename).
"""

from __future__ import annotations

import html
import json
import os
import tempfile
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from durak_spec.conformance.problems import what_the_engine_does
from durak_spec.conformance.runner import FAILING, STATUSES
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.model import value_text
from durak_spec.reference_impl.picture import position_svg

REPORT_VERSION = "1"
MAX_TEXT = 4000
MAX_ITEMS = 200
MAX_NESTING = 12
# Where the built docs are (sphinx-build docs OUT): a rule id links to its area's page there
# (_generated/rules/AREA.html, docs/_ext/durak_docs/pages.py), anchored at the id. `durak check
# --docs-url` (or DURAK_DOCS_URL) says where; by default a folder docs/ beside the report.
DOCS_URL = os.environ.get("DURAK_DOCS_URL", "docs/")


def bounded(value, depth: int = 0):
    """`value` with long strings cut, long lists and mappings shortened (saying how much was
    left out) and deep nesting summarised: what a report stores of what an engine sent."""
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else \
            value[:MAX_TEXT] + f"... ({len(value) - MAX_TEXT:,} more characters)"
    if isinstance(value, (list, tuple, set, frozenset, dict)) and depth >= MAX_NESTING:
        return f"({type(value).__name__} nested too deeply to show)"
    if isinstance(value, dict):
        items = list(value.items())
        out = {str(k)[:200]: bounded(v, depth + 1) for k, v in items[:MAX_ITEMS]}
        if len(items) > MAX_ITEMS:
            out["..."] = f"{len(items) - MAX_ITEMS:,} more keys"
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        out = [bounded(v, depth + 1) for v in items[:MAX_ITEMS]]
        if len(items) > MAX_ITEMS:
            out.append(f"... {len(items) - MAX_ITEMS:,} more")
        return out
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return bounded(str(value), depth)


def record_json(r) -> dict:
    """One Result-shaped record as JSON, with what the engine sent bounded."""
    data = r.to_json() if hasattr(r, "to_json") else dict(vars(r))
    return {k: bounded(v) for k, v in data.items()}


def summarize(results) -> dict:
    counts = {s: 0 for s in STATUSES}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    return counts


def report_json(results, meta: dict) -> dict:
    return {"report_version": REPORT_VERSION, "tool": "durak-spec", **bounded(meta),
            "summary": summarize(results), "cases": [record_json(r) for r in results]}


# -- writing ------------------------------------------------------------------------------------

def check_writable(path) -> str | None:
    """Why a report could not be written at `path`, or None: checked before a run starts, by
    writing (and removing) a temporary file beside it, as the report itself will be written."""
    p = Path(path)
    if p.is_dir():
        return "is a directory"
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        return f"its folder {parent} does not exist"
    return probe_folder(parent)


def probe_folder(folder) -> str | None:
    """Why no file can be written in `folder`, or None (tried, not guessed from permissions:
    root passes those, a read-only file system does not)."""
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".durak-probe-"):
            pass
    except OSError as exc:
        return f"can't write in {folder}: {exc.strerror or exc}"
    return None


def _write_atomic(path, text: str) -> None:
    """Write through a temporary file renamed into place, with the mode a plain new file gets
    (0666 less the umask: readable by others, as a report to share should be; mkstemp's is 0600)."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent if str(p.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            os.fchmod(f.fileno(), 0o666 & ~_umask())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask (read by setting it, at once set back)."""
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def write_json(path, results, meta) -> None:
    _write_atomic(path, json.dumps(report_json(results, meta), indent=1, default=str) + "\n")


def write_junit(path, results, meta: dict) -> None:
    _write_atomic(path, junit_text(results, meta))


def write_html(path, results, meta: dict, positions: dict | None = None) -> None:
    _write_atomic(path, html_text(results, meta, positions))


WRITERS = {"json": write_json, "junit": write_junit, "html": write_html}


def write_reports(paths: dict, results, meta: dict, positions: dict | None = None) -> list[str]:
    """Write each report of `paths` ({"json"|"junit"|"html": path or None}); one that fails
    does not stop the others. Returns one line per report that could not be written."""
    problems = []
    for kind, path in paths.items():
        if not path:
            continue
        try:
            if kind == "html":
                write_html(path, results, meta, positions)
            else:
                WRITERS[kind](path, results, meta)
        except OSError as exc:
            problems.append(f"can't write {path}: {exc.strerror or exc}")
    return problems


# -- JUnit --------------------------------------------------------------------------------------

def junit_text(results, meta: dict) -> str:
    import xml.etree.ElementTree as ET  # only a JUnit report needs it

    meta = bounded(meta)
    by_area = defaultdict(list)
    for r in results:
        by_area[r.area or "other"].append(r)
    engine = meta.get("engine") or {}
    suites = ET.Element("testsuites", name=f"durak-spec conformance: {engine.get('name', '')}")
    problems = meta.get("problems") or []
    if problems:  # root causes first: one failing test per problem, its shortest run the detail
        suite = ET.SubElement(suites, "testsuite", name="problems", tests=str(len(problems)),
                              failures=str(len(problems)), errors="0", skipped="0", time="0")
        for i, p in enumerate(problems, 1):
            tc = ET.SubElement(suite, "testcase", classname="problems",
                               name=f"problem {i}: {p.get('rule') or '(no rule)'} {p.get('kind')}",
                               time="0")
            ET.SubElement(tc, "failure", message=_clip(_problem_line(p), 500),
                          type=str(p.get("kind"))).text = _problem_text(p)
    if meta.get("error"):  # the engine never got to play: CI still gets a red test with why
        suite = ET.SubElement(suites, "testsuite", name="engine", tests="1", failures="0",
                              errors="1", skipped="0", time="0")
        tc = ET.SubElement(suite, "testcase", classname="engine", name="handshake", time="0")
        ET.SubElement(tc, "error", message=_clip(meta["error"], 500), type="handshake").text = \
            _clip(meta["error"], MAX_TEXT)
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
            message = _clip(r.message, 500)
            if r.status in ("fail", "xpass"):
                ET.SubElement(tc, "failure", message=message, type=r.check or r.status).text = detail
            elif r.status in ("error", "broken"):
                ET.SubElement(tc, "error", message=message, type=r.status).text = detail
            elif r.status in ("skip", "xfail"):
                ET.SubElement(tc, "skipped", message=message)
    if meta.get("stopped"):  # a run that did not reach its end is not a green one
        suite = ET.SubElement(suites, "testsuite", name="run", tests="1", failures="0",
                              errors="1", skipped="0", time=str(meta.get("seconds", 0)))
        tc = ET.SubElement(suite, "testcase", classname="run", name="complete", time="0")
        ET.SubElement(tc, "error", message=_clip(meta["stopped"], 500), type="stopped").text = \
            meta["stopped"]
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _problem_line(p: dict) -> str:
    return (f"{p.get('rule') or '(no rule)'}: {what_the_engine_does(p.get('kind'))} in {p.get('count')} "
            f"run(s) of {len(p.get('cases') or [])} case(s); {p.get('message')}")


def _problem_text(p: dict) -> str:
    ex = p.get("example") or {}
    return "\n".join([_problem_line(p), f"presets: {', '.join(p.get('presets') or [])}",
                      f"cases: {', '.join((p.get('cases') or [])[:20])}",
                      f"shortest: {ex.get('case')} under {ex.get('variant')}, step {ex.get('step')}: "
                      f"{ex.get('action')} ({ex.get('check')})",
                      _clip(ex.get("message", ""), MAX_TEXT), f"reproduce: {p.get('reproduce')}"])


def _clip(text, n: int) -> str:
    text = str(text)
    return text if len(text) <= n else text[:n] + "..."


def diagnosis_text(d) -> str:
    """A failure's diagnosis (reference_impl/diagnose.py, Diagnosis.to_json) in words: which rule
    decides which check and why, what else was involved, what the option search found."""
    if not isinstance(d, dict):
        return str(d)
    check = f"the {d['check']} check" if d.get("check") else "the difference"
    decides = f"rule {d['rule']} decides {check}" if d.get("rule") else \
        f"no rule of the reference decides {check}"
    words = [decides + (f": {d['why']}" if d.get("why") else "")]
    if d.get("also"):
        words.append("also involved: " + ", ".join(map(str, d["also"])))
    if d.get("message"):
        searched = f" ({d['searched']} variants tried)" if d.get("searched") else ""
        words.append(f"{d['message']}{searched}")
    partly = [options_text(c) for c in d.get("partly") or [] if isinstance(c, dict)]
    if partly:
        words.append("the failing check alone is reproduced by " + " or ".join(partly[:3]))
    if isinstance(d.get("advice"), dict) and d["advice"]:
        words.append(f"confirmed over the whole run: plays as if {options_text(d['advice'])}")
    return "; ".join(words)


def _show(value) -> str:
    return _clip(json.dumps(bounded(value), default=str), MAX_TEXT)


def options_text(options: dict) -> str:
    """Option values as `name = value, ...`."""
    return ", ".join(f"{n} = {value_text(v)}" for n, v in options.items())


def failure_text(r) -> str:
    """One failing case run as the terminal shows it (durak check, the pytest plugin): the status,
    case, variant and deciding rule on the first line, then the engine's variant where it differs,
    the step, want and have, the message, and a command that reproduces it."""
    rule = f"rule: {r.rule}" if r.rule else f"rules: {', '.join(r.rules)}"
    lines = [f"{r.status.upper()} {r.case} @ {r.variant}  {rule}"]
    if r.engine_options:
        lines.append(f"  under the engine's variant: {options_text(r.engine_options)}"
                     + (f"; re-derived: {', '.join(r.rederived)}" if r.rederived else ""))
    if r.step is not None:
        lines.append(f"  step {r.step}: {r.action}   ({r.check})")
    if r.check:
        lines += [f"  want: {_show(r.want)}", f"  have: {_show(r.have)}"]
    lines.append(f"  {_clip(r.message, 2000)}")
    lines.append(f"  reproduce: {r.reproduce}")  # one unbroken line, to paste as it is
    return "\n".join(lines)


def problem_text(i: int, p: dict) -> str:
    """Problem number `i` of a run (conformance/problems.py) as the terminal shows it (durak
    check, the pytest plugin): its rule and kind, counts, message, shortest run and command."""
    presets = ", ".join(p["presets"][:6]) + (f" (+{len(p['presets']) - 6})" if len(p["presets"]) > 6 else "")
    players = f"; {', '.join(map(str, p['players']))} players" if p.get("players") else ""
    ex = p["example"]
    where = f"step {ex['step']}: {ex['action']} ({ex['check']})" if ex.get("step") is not None else ""
    return "\n".join([
        f"PROBLEM {i} {p['rule'] or '(no rule)'}: {what_the_engine_does(p['kind'])}  "
        f"({p['count']} run(s), {len(p['cases'])} case(s); under {presets}{players})",
        f"  {p['message']}",
        f"  shortest: {ex['case']} @ {ex['variant']}  {where}",
        f"  {_clip(ex['message'], 400)}",
        f"  reproduce: {p['reproduce']}"])


def _detail_text(r) -> str:
    lines = [f"case {r.case} under {r.variant}; rules {', '.join(r.rules)}"]
    if r.step is not None:
        lines.append(f"step {r.step}: {r.action}")
    if r.check:
        lines += [f"check: {r.check}", f"want: {_show(r.want)}", f"have: {_show(r.have)}"]
    diagnosis = getattr(r, "diagnosis", None)
    if diagnosis:
        lines.append(f"diagnosis: {_clip(diagnosis_text(diagnosis), MAX_TEXT)}")
    lines += [_clip(r.message, MAX_TEXT), f"reproduce: {r.reproduce}"]
    return "\n".join(lines)


# -- HTML ---------------------------------------------------------------------------------------

def deciding_rule(r) -> str:
    """The rule a failure is filed under: the one the runner attributes it to, else the case's
    first rule."""
    return getattr(r, "rule", None) or (r.rules[0] if r.rules else "(no rule)")


def rule_url(rule_id: str, docs_url: str = DOCS_URL) -> str:
    area = rule_id.split(".")[0]
    return f"{docs_url.rstrip('/')}/_generated/rules/{area}.html#{rule_id}"


def _failure_key(r) -> tuple:
    """What makes two runs of a case the same failure under different variants."""
    return (r.case, r.status, r.step, r.check, _show(r.want), _show(r.have))


_CSS = """
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;padding:1.5em 2em;color:#222;max-width:1150px}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
h3{font-size:1.05em;margin:1.2em 0 .3em}
table{border-collapse:collapse;width:100%}td,th{padding:2px 10px;text-align:left;vertical-align:top}
tr:nth-child(even){background:#f8f8f8}
.pass{color:#1a7f37}.fail,.error,.xpass{color:#cf222e}.broken{color:#9a6700}.skip,.xfail{color:#666}
.counts a{display:inline-block;margin:0 .4em .4em 0;padding:.15em .6em;border-radius:1em;
  border:1px solid currentColor;text-decoration:none;font-weight:600}
.banner{padding:.6em 1em;border-radius:6px;background:#fff1f0;border:1px solid #cf222e}
.failure{border:1px solid #e5c6c6;border-radius:6px;padding:.4em .8em;margin:.6em 0;background:#fffafa}
.failure summary{cursor:pointer;font-weight:600}
.failure .variants{font-weight:normal;color:#555}
pre{background:#f6f8fa;padding:.5em;white-space:pre-wrap;word-break:break-all;margin:.3em 0;
  max-height:24em;overflow:auto}
code{background:#f6f8fa;padding:0 3px}
.picture{overflow-x:auto;margin:.4em 0}
label.filter{display:block;margin:.8em 0}
body.hide-pass tr.row-pass{display:none}
"""

_JS = """
document.getElementById('hide-pass').addEventListener('change', function (e) {
  document.body.classList.toggle('hide-pass', e.target.checked);
});
"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def html_text(results, meta: dict, positions: dict | None = None) -> str:
    """The report as one self-contained page: failures first (grouped by rule, one entry per
    failure with the variants it fails under, the position at the failing step), then every
    case run by area with a filter that hides the passing rows."""
    positions = positions or {}
    meta = bounded(meta)
    counts = summarize(results)
    engine = meta.get("engine") or {}
    docs_url = meta.get("docs_url", DOCS_URL)
    failing = [r for r in results if r.status in FAILING]
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>durak-spec conformance: {_e(engine.get('name', ''))}</title>",
           f"<style>{_CSS}</style></head><body>",
           f"<h1>Conformance of {_e(engine.get('name', '?'))} {_e(engine.get('version', ''))}</h1>",
           f"<p>Adapter <code>{_e(meta.get('adapter', ''))}</code>: {len(results)} case runs in "
           f"{_e(meta.get('seconds', '?'))} s, finished {_e(meta.get('finished', ''))}.</p>"]
    if meta.get("error"):
        out.append(f"<p class='banner' id='error'><b>The engine did not start:</b> "
                   f"{_e(_clip(meta['error'], MAX_TEXT))}</p>")
    if meta.get("stopped"):
        out.append(f"<p class='banner' id='stopped'><b>The run stopped early:</b> "
                   f"{_e(meta['stopped'])}</p>")
    links = []
    for status, n in counts.items():
        if n:
            target = "failures" if status in FAILING else f"status-{status}"
            links.append(f"<a class='{status}' href='#{target}'>{n} {status}</a>")
    out.append(f"<nav class='counts'>{''.join(links)}</nav>")

    out += _problems_html(meta.get("problems") or [], docs_url)
    by_rule = defaultdict(dict)
    for r in failing:
        by_rule[deciding_rule(r)].setdefault(_failure_key(r), []).append(r)
    out.append(f"<h2 id='failures'>Failures ({len(failing)} case runs"
               f"{', by rule' if failing else ''})</h2>")
    if not failing:
        out.append("<p>None.</p>")
    for rule in sorted(by_rule):
        entries = by_rule[rule]
        rule_link = f"<a href='{_e(rule_url(rule, docs_url))}'><code>{_e(rule)}</code></a>" \
            if "." in rule else _e(rule)
        out.append(f"<h3 id='rule-{_e(rule)}'>{rule_link} <small>({len(entries)})</small></h3>")
        for runs in entries.values():
            out.append(_failure_html(runs, positions, docs_url))

    out += _fuzz_html(meta.get("fuzz") or [])
    out.append("<h2 id='all'>Every case run, by area</h2>")
    out.append("<label class='filter'><input type='checkbox' id='hide-pass'> hide passing rows"
               "</label>")
    seen_status = set()
    by_area = defaultdict(list)
    for r in results:
        by_area[r.area or "other"].append(r)
    out.append("<table><thead><tr><th>status</th><th>case</th><th>variant</th><th>rules</th>"
               "<th>what</th></tr></thead><tbody>")
    for area, items in sorted(by_area.items()):
        c = ", ".join(f"{n} {s}" for s, n in summarize(items).items() if n)
        out.append(f"<tr id='area-{_e(area)}'><th colspan='5'>{_e(area)} <small>({c})</small>"
                   "</th></tr>")
        for r in sorted(items, key=lambda r: (r.status == "pass", r.case, r.variant)):
            anchor = ""
            if r.status not in seen_status and r.status not in FAILING:
                seen_status.add(r.status)
                anchor = f" id='status-{r.status}'"
            what = _e(_clip(r.message, 300)) if r.status != "pass" else _e(r.description)
            rules = " ".join(_rule_code(x, docs_url) for x in r.rules)
            out.append(f"<tr class='row-{r.status}'{anchor}><td class='{r.status}'>{r.status}</td>"
                       f"<td><code>{_e(r.case)}</code></td><td>{_e(r.variant)}</td>"
                       f"<td>{rules}</td><td>{what}</td></tr>")
    out.append("</tbody></table>")
    out.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(out)


def _problems_html(problems: list, docs_url: str) -> list[str]:
    """The root causes, before the failures they group."""
    if not problems:
        return []
    out = [f"<h2 id='problems'>Problems ({len(problems)}, behind "
           f"{sum(p.get('count', 0) for p in problems)} failing runs)</h2>"]
    for i, p in enumerate(problems, 1):
        rule = p.get("rule")
        head = _rule_code(rule, docs_url) if rule and "." in rule else _e(rule or "(no rule)")
        ex = p.get("example") or {}
        out.append(
            f"<details class='failure' id='problem-{i}' open><summary>problem {i}: {head} "
            f"<span class='variants'>{_e(what_the_engine_does(p.get('kind')))}: {p.get('count')} run(s), "
            f"{len(p.get('cases') or [])} case(s)</span></summary>"
            f"<div>{_e(p.get('message'))}</div>"
            f"<div>presets: {_e(', '.join(p.get('presets') or []))}</div>"
            f"<div>shortest: <code>{_e(ex.get('case'))}</code> under {_e(ex.get('variant'))}, "
            f"step {_e(ex.get('step'))}: <code>{_e(ex.get('action'))}</code> ({_e(ex.get('check'))})"
            f"</div><div>{_e(_clip(ex.get('message', ''), MAX_TEXT))}</div>"
            f"<div>reproduce:</div><pre>{_e(p.get('reproduce'))}</pre></details>")
    return out


def _rule_code(rule_id: str, docs_url: str) -> str:
    return f"<a href='{_e(rule_url(rule_id, docs_url))}'><code>{_e(rule_id)}</code></a>"


def _failure_html(runs, positions: dict, docs_url: str) -> str:
    r = runs[0]
    variants = ", ".join(x.variant for x in runs)
    body = [f"<div>{_e(r.description)}</div>" if r.description else "",
            f"<div>rules: {' '.join(_rule_code(x, docs_url) for x in r.rules)}</div>"]
    if r.step is not None:
        body.append(f"<div>step {r.step}: <code>{_e(r.action)}</code> ({_e(r.check)})</div>")
    body.append(picture_html(r, positions))
    if r.check:
        body.append(f"<div>want:</div><pre>{_e(_show(r.want))}</pre>")
        body.append(f"<div>have:</div><pre>{_e(_show(r.have))}</pre>")
    diagnosis = getattr(r, "diagnosis", None)
    if diagnosis:
        body.append(f"<div>diagnosis: {_e(_clip(diagnosis_text(diagnosis), MAX_TEXT))}</div>")
    body.append(f"<div>{_e(_clip(r.message, MAX_TEXT))}</div>")
    body.append("<div>reproduce:</div><pre>" +
                "\n".join(_e(x.reproduce) for x in runs) + "</pre>")
    return (f"<details class='failure' open><summary><span class='{r.status}'>{r.status}</span> "
            f"<code>{_e(r.case)}</code> <span class='variants'>under {_e(variants)}</span>"
            f"</summary>{''.join(body)}</details>")


def picture_html(r, positions: dict) -> str:
    """The position of a failing run at its failing step (failure_positions), drawn with the
    cards of its action outlined; '' when there is none."""
    picture = positions.get((r.case, r.variant))
    if picture is None:
        return ""
    when = "after" if (r.check or "").startswith(("state", "legal")) else "before"
    try:
        svg = position_svg(picture, f"the position {when} step {r.step} of {r.case}",
                           marked=_cards_of(r.action))
    except (KeyError, TypeError, ValueError, IndexError):
        return ""
    # inline in HTML an <svg> needs no namespace (and the page names no URL)
    svg = svg.replace(' xmlns="http://www.w3.org/2000/svg"', "")
    return (f"<div>the position {when} step {r.step} (by the reference):</div>"
            f"<div class='picture'>{svg}</div>")


MAX_PICTURES = 200


def failure_positions(spec, suite, results) -> dict:
    """{(case, variant): the reference state before the failing step}, for the pictures of the
    HTML report (at most MAX_PICTURES; a case that cannot be replayed has none)."""
    cases = suite.by_id()
    out = {}
    for r in results:
        if len(out) >= MAX_PICTURES:
            break
        case = cases.get(r.case)
        if r.status not in FAILING or r.step is None or case is None:
            continue
        try:
            rs = spec.ruleset(r.variant, case.options)
            game = Game(rs, Setup.from_json(case.setup, rs.deck, rs.player_limits))
            # A verdict is judged before its step; a state or a legal set after it.
            upto = r.step + 1 if (r.check or "").startswith(("state", "legal")) else r.step
            for step in case.steps[:upto]:
                if step.expect == "accept":
                    game.apply_action(game.parse_action(step.action))
        except DurakError:
            continue
        out[(r.case, r.variant)] = game.full_state()
    return out


def _cards_of(action) -> frozenset:
    if not isinstance(action, str):
        return frozenset()
    return frozenset(w for w in action.split()[2:] if len(w) in (2, 3) and w != "with")


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
