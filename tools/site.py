"""`durak site REPORT.json ... --out DIR`: one static results site across engines, from the JSON
reports of `durak check` and `durak fuzz` (conformance/schemas/report.schema.json).

Reports are grouped by engine (the name its hello gives); several reports of one engine are its
history, ordered by when each run started, and the newest stands for the engine. The site is plain
HTML with relative links, opened from disk or any static host:

    index.html             one row per engine: version, the variant it plays, pass/fail/skip,
                           its problems, and one column per rule area linking to its failures
    engines/<engine>.html  the engine's problems, each with its shortest case drawn, its failures
                           by area, why runs were skipped, and its trend over its reports
    rules/<rule>.html      per rule: the engines that fail it and those that pass its cases

A report's `problems` (conformance/problems.py) are shown as they are; an older report without
them gets its failing runs grouped by the rule that decides them. Everything a report says is
escaped and bounded: a report is what an engine's run wrote, not trusted markup.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import click
import jsonschema

from durak_spec.conformance import report as reports
from durak_spec.conformance.cases import HERE as CONFORMANCE_DIR
from durak_spec.conformance.cases import load_suite
from durak_spec.conformance.problems import what_the_engine_does
from durak_spec.conformance.runner import FAILING, STATUSES
from durak_spec.tools.common import UserError, _load

MAX_REPORT_BYTES = 64 * 1024 * 1024  # a report larger than this is refused, not read
MAX_LISTED = 200                     # failing runs listed per engine and area
MAX_PICTURES = 100                   # problems drawn per engine
_COUNTED = ("pass", "fail", "skip", "error")

_CSS = reports._CSS + """
.grid td,.grid th{text-align:center;white-space:nowrap}.grid td.name,.grid th.name{text-align:left}
.grid a{text-decoration:none;font-weight:600}.grid .none{color:#bbb}
.problem{border:1px solid #e5c6c6;border-radius:6px;padding:.4em .8em;margin:.8em 0;background:#fffafa}
.trend rect.pass{fill:#2da44e}.trend rect.fail{fill:#cf222e}.trend rect.skip{fill:#bbb}
.trend rect.error{fill:#9a6700}.trend text{font-size:11px;fill:#444}
nav.crumbs{margin-bottom:1em}small{color:#666}
.wide{overflow-x:auto}.grid td.played{white-space:normal;min-width:24em}
"""


@dataclass
class Report:
    """One JSON report, as read from its file."""

    file: str
    data: dict
    order: int

    @property
    def engine(self) -> dict:
        return self.data.get("engine") if isinstance(self.data.get("engine"), dict) else {}

    @property
    def name(self) -> str:
        return str(self.engine.get("name") or self.data.get("adapter") or Path(self.file).stem)

    @property
    def version(self) -> str:
        return str(self.engine.get("version") or "")

    @property
    def started(self) -> str:
        return str(self.data.get("started") or self.data.get("finished") or "")

    @property
    def cases(self) -> list[dict]:
        return self.data["cases"]

    def counts(self, runs: list[dict] | None = None) -> dict:
        out = dict.fromkeys(STATUSES, 0)
        for c in self.cases if runs is None else runs:
            out[c["status"]] += 1
        # known failures that still fail are no failure; the others count as what they are
        out["fail"] += out.pop("xpass")
        out["error"] += out.pop("broken")
        out["skip"] += out.pop("xfail")
        return out

    def problems(self) -> list[dict]:
        """The report's problems, or for a report written before they existed its failing runs
        grouped by the rule that decides them and the kind of check."""
        given = self.data.get("problems")
        if isinstance(given, list):
            return given
        groups: dict = defaultdict(list)
        for c in self.cases:
            if c["status"] in FAILING:
                groups[(_rule_of(c), (c.get("check") or c["status"]).split(".")[0])].append(c)
        out = []
        for (rule, kind), runs in groups.items():
            runs.sort(key=lambda c: (c.get("step") is None, c.get("step") or 0, c["case"]))
            first = runs[0]
            out.append({"rule": rule, "kind": kind, "count": len(runs),
                        "cases": sorted({c["case"] for c in runs}),
                        "presets": sorted({c["variant"] for c in runs}), "advice": None,
                        "message": first.get("message", ""), "reproduce": first["reproduce"],
                        "example": {k: first.get(k) for k in ("case", "variant", "step", "action",
                                                              "check", "want", "have", "message")}})
        out.sort(key=lambda p: (-p["count"], str(p["rule"])))
        return out


@dataclass
class Engine:
    """An engine's reports, oldest first; the newest stands for it."""

    name: str
    slug: str
    reports: list[Report] = field(default_factory=list)

    @property
    def latest(self) -> Report:
        return self.reports[-1]


def read_report(path: str, validator, order: int) -> Report:
    """A report file, validated against the report schema; a one-line UserError naming the file
    otherwise."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_REPORT_BYTES:
            raise UserError(f"{path}: {size:,} bytes; a report is at most {MAX_REPORT_BYTES:,}")
        data = json.loads(p.read_bytes())
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except (ValueError, RecursionError) as exc:
        raise UserError(f"{path}: not JSON ({str(exc)[:200]})") from None
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in error.absolute_path)
        raise UserError(f"{path}: not a durak check or durak fuzz report "
                        f"(conformance/schemas/report.schema.json) at {where.lstrip('.') or 'the top'}: "
                        f"{str(error.message)[:200]}")
    return Report(str(path), data, order)


def group_engines(report_list: list[Report]) -> list[Engine]:
    """Reports grouped by engine name, each engine's oldest first, engines by name."""
    by_name: dict[str, list[Report]] = defaultdict(list)
    for r in report_list:
        by_name[r.name].append(r)
    engines, slugs = [], set()
    for name in sorted(by_name, key=str.lower):
        base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "engine"
        slug, n = base, 2
        while slug in slugs:
            slug, n = f"{base}-{n}", n + 1
        slugs.add(slug)
        engines.append(Engine(name, slug, sorted(by_name[name], key=lambda r: (r.started, r.order))))
    return engines


def _rule_of(c: dict) -> str:
    """The rule a failing run is filed under (report.deciding_rule, on a report's JSON)."""
    return c.get("rule") or (c.get("rules") or ["(no rule)"])[0]


def _area_of(c: dict) -> str:
    return c.get("area") or _rule_of(c).split(".")[0]


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _slug_rule(rule: str) -> str:
    """A rule id as a file name (ids are dotted words; anything else is replaced)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", rule).strip(".-")[:100] or "rule"


def variant_played(r: Report, spec) -> str:
    """The variant an engine plays, as its hello declares it and --option forced it: its presets,
    and the house rules that differ from its first preset (the value it plays by default)."""
    engine = r.engine
    presets = [str(p) for p in engine.get("presets") or []]
    text = ", ".join(presets[:3]) + (f" and {len(presets) - 3} more" if len(presets) > 3 else "")
    try:
        base = spec.ruleset(presets[0], {}).options if presets else {}
    except Exception:  # a preset this spec does not have: every declared value is shown
        base = {}
    options = engine.get("options")
    if options == "any":
        text += "; any option value"
    elif isinstance(options, dict):
        own = {k: v[0] if isinstance(v, list) and v else v for k, v in options.items()}
        house = [f"{k} = {json.dumps(v)}" for k, v in own.items() if k not in base or base[k] != v]
        if house:
            text += "; house rules: " + ", ".join(house)
    if engine.get("house_rules"):
        text += "; per player count too"
    forced = r.data.get("options") or {}
    if isinstance(forced, dict) and forced:
        text += "; --option " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in forced.items())
    return text or "(not declared)"


# -- pages ----------------------------------------------------------------------------------------

def _page(title: str, body: list[str], root: str) -> str:
    return "\n".join(["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
                      "<meta name='viewport' content='width=device-width, initial-scale=1'>",
                      f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
                      f"<nav class='crumbs'><a href='{root}index.html'>All engines</a></nav>",
                      *body, "</body></html>"])


def _count_cells(counts: dict) -> str:
    return "".join(f"<td class='{s if counts[s] else 'none'}'>{counts[s]}</td>" for s in _COUNTED)


class Site:
    """The pages of one site, built from the grouped reports."""

    def __init__(self, engines: list[Engine], spec, title: str, docs_url: str | None):
        self.engines, self.spec, self.title, self.docs_url = engines, spec, title, docs_url
        order = {a["id"]: i for i, a in enumerate(spec.areas)}
        seen = {_area_of(c) for e in engines for c in e.latest.cases}
        self.areas = sorted(seen, key=lambda a: (order.get(a, len(order)), a))
        self.problems = {e.slug: e.latest.problems() for e in engines}
        self.rules = self._rules()

    def _rules(self) -> dict:
        """{rule: {"fail": {slug: [problem numbers]}, "pass": [slugs]}} over the newest reports."""
        rules: dict = defaultdict(lambda: {"fail": {}, "ran": set()})
        for e in self.engines:
            for c in e.latest.cases:
                if c["status"] not in ("skip", "xfail"):
                    for rule in c.get("rules") or []:
                        rules[rule]["ran"].add(e.slug)
                if c["status"] in FAILING:
                    rules[_rule_of(c)]["fail"].setdefault(e.slug, [])
            for i, p in enumerate(self.problems[e.slug], 1):
                if p.get("rule"):
                    rules[p["rule"]]["fail"].setdefault(e.slug, []).append(i)
        for entry in rules.values():
            entry["pass"] = sorted(entry.pop("ran") - set(entry["fail"]))
        return dict(sorted(rules.items()))

    def pages(self) -> dict[str, str]:
        out = {"index.html": self.index()}
        for e in self.engines:
            out[f"engines/{e.slug}.html"] = self.engine_page(e)
        for rule in self.rules:
            out[f"rules/{_slug_rule(rule)}.html"] = self.rule_page(rule)
        return out

    # -- the index -----------------------------------------------------------------------------
    def index(self) -> str:
        body = [f"<h1>{_e(self.title)}</h1>",
                f"<p>{len(self.engines)} engine(s) from "
                f"{sum(len(e.reports) for e in self.engines)} report(s). Each row is an engine's "
                "newest report; a cell counts the case runs of a rule area and links to their "
                "failures.</p>",
                "<div class='wide'><table class='grid' id='engines'><thead><tr>"
                "<th class='name'>engine</th><th>version</th>",
                *(f"<th>{s}</th>" for s in _COUNTED), "<th>problems</th>",
                *(f"<th>{_e(a)}</th>" for a in self.areas),
                "<th>reports</th><th class='name'>variant played</th></tr></thead><tbody>"]
        for e in self.engines:
            r, link = e.latest, f"engines/{e.slug}.html"
            history = f"<a href='{link}#trend'>{len(e.reports)}</a>" if len(e.reports) > 1 else "1"
            n = len(self.problems[e.slug])
            problems = f"<a class='fail' href='{link}#problems'>{n}</a>" if n else \
                "<span class='pass'>0</span>"
            played = variant_played(r, self.spec)
            body.append(f"<tr><td class='name'><a href='{link}'>{_e(e.name)}</a></td>"
                        f"<td>{_e(r.version)}</td>{_count_cells(r.counts())}<td>{problems}</td>"
                        + "".join(self._area_cell(e, a) for a in self.areas)
                        + f"<td>{history}</td><td class='name played' title='{_e(played)}'><small>"
                        f"{_e(reports._clip(played, 90))}</small></td></tr>")
        body.append("</tbody></table></div>")
        body.append("<h2 id='rules'>Rules</h2><p>Every rule the engines' case runs cite, with "
                    "the engines that fail it.</p><table><thead><tr><th>rule</th><th>fails</th>"
                    "<th>passes</th></tr></thead><tbody>")
        names = {e.slug: e.name for e in self.engines}
        for rule, entry in self.rules.items():
            failing = ", ".join(_e(names[s]) for s in entry["fail"]) or "-"
            body.append(f"<tr><td><a href='rules/{_e(_slug_rule(rule))}.html'><code>{_e(rule)}"
                        f"</code></a></td><td class='{'fail' if entry['fail'] else 'none'}'>"
                        f"{failing}</td><td>{len(entry['pass'])} engine(s)</td></tr>")
        body.append("</tbody></table>")
        return _page(self.title, body, "")

    def _area_cell(self, e: Engine, area: str) -> str:
        runs = [c for c in e.latest.cases if _area_of(c) == area]
        counts = e.latest.counts(runs)
        href = f"engines/{e.slug}.html#area-{_e(area)}"
        tip = _e(", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no case run")
        failing = counts["fail"] + counts["error"]
        if failing:
            return f"<td class='fail' title='{tip}'><a class='fail' href='{href}'>{failing} &#x2717;</a></td>"
        if counts["pass"]:
            return f"<td class='pass' title='{tip}'><a class='pass' href='{href}'>&#x2713; {counts['pass']}</a></td>"
        if counts["skip"]:
            return f"<td class='skip' title='{tip}'><a class='skip' href='{href}'>skip</a></td>"
        return f"<td class='none' title='{tip}'>&middot;</td>"

    # -- an engine -----------------------------------------------------------------------------
    def engine_page(self, e: Engine) -> str:
        r = e.latest
        counts = r.counts()
        body = [f"<h1>{_e(e.name)} {_e(r.version)}</h1>",
                f"<p>Adapter <code>{_e(r.data.get('adapter', ''))}</code>; newest report "
                f"<code>{_e(Path(r.file).name)}</code>, started {_e(r.started or '?')}.</p>",
                f"<p>Plays: {_e(reports._clip(variant_played(r, self.spec), 2000))}</p>",
                "<nav class='counts'>" + "".join(
                    f"<a class='{self._area_class(e, a)}' href='#area-{_e(a)}'>{_e(a)}</a>"
                    for a in self.areas) + "</nav>",
                "<p>" + ", ".join(f"<span class='{s}'>{counts[s]} {s}</span>" for s in _COUNTED)
                + "</p>"]
        if r.data.get("error"):
            body.append(f"<p class='banner'>The engine did not start: {_e(r.data['error'][:2000])}</p>")
        if r.data.get("stopped"):
            body.append(f"<p class='banner'>The run stopped early: {_e(r.data['stopped'][:2000])}</p>")
        if r.data.get("tested_too_little"):
            body.append("<p class='banner'>TESTED TOO LITTLE: most selected case runs were "
                        "skipped.</p>")
        body += self._problems_html(e)
        body += self._areas_html(e)
        body += self._skips_html(r)
        if len(e.reports) > 1:
            body += _trend_html(e)
        return _page(f"{e.name}: durak-spec results", body, "../")

    @staticmethod
    def _area_class(e: Engine, area: str) -> str:
        counts = e.latest.counts([c for c in e.latest.cases if _area_of(c) == area])
        return "fail" if counts["fail"] + counts["error"] else "pass" if counts["pass"] else "skip"

    def _problems_html(self, e: Engine) -> list[str]:
        problems = self.problems[e.slug]
        out = [f"<h2 id='problems'>Problems ({len(problems)})</h2>"]
        if not problems:
            return out + ["<p>None: no case run failed.</p>"]
        examples = [_record(p["example"]) for p in problems[:MAX_PICTURES]]
        positions = self._positions(examples)
        for i, p in enumerate(problems, 1):
            ex = p.get("example") or {}
            rule = p.get("rule")
            head = f"<a href='../rules/{_e(_slug_rule(rule))}.html'><code>{_e(rule)}</code></a>" \
                if rule else "(no rule named)"
            cases = p.get("cases") or []
            body = [f"<div>{_e(p.get('message', ''))}</div>",
                    f"<div>presets: {_e(', '.join(p.get('presets') or []))}"
                    + (f"; players: {_e(', '.join(map(str, p['players'])))}" if p.get("players") else "")
                    + "</div>",
                    f"<div>cases: {_e(', '.join(cases[:12]))}"
                    + (f" and {len(cases) - 12} more" if len(cases) > 12 else "") + "</div>",
                    f"<h3>Shortest case: <code>{_e(ex.get('case'))}</code> under "
                    f"{_e(ex.get('variant'))}</h3>"]
            if ex.get("step") is not None:
                body.append(f"<div>step {_e(ex['step'])}: <code>{_e(ex.get('action'))}</code> "
                            f"({_e(ex.get('check'))})</div>")
            if i <= len(examples):
                body.append(reports.picture_html(examples[i - 1], positions))
            if ex.get("check"):
                body.append(f"<div>want:</div><pre>{_e(reports._show(ex.get('want')))}</pre>"
                            f"<div>have:</div><pre>{_e(reports._show(ex.get('have')))}</pre>")
            body.append(f"<div>{_e(reports._clip(ex.get('message', ''), 2000))}</div>"
                        f"<div>reproduce:</div><pre>{_e(p.get('reproduce', ''))}</pre>")
            out.append(f"<div class='problem' id='problem-{i}'><h3>Problem {i}: {head} "
                       f"<small>{_e(what_the_engine_does(p.get('kind', '')))}: {_e(p.get('count'))} failing "
                       f"run(s), {len(cases)} case(s)</small></h3>{''.join(body)}</div>")
        return out

    def _positions(self, records: list) -> dict:
        """The pictures' positions, for the cases of the shipped suite (others have none)."""
        ids = tuple(sorted({x.case for x in records if isinstance(x.case, str)}))
        if not ids:
            return {}
        try:
            suite = load_suite(self.spec, ids=ids)
        except Exception:  # a picture is an extra: a case that cannot be read has none
            return {}
        return reports.failure_positions(self.spec, suite, records)

    def _areas_html(self, e: Engine) -> list[str]:
        out = ["<h2 id='failures'>Failures by rule area</h2>"]
        for area in self.areas:
            runs = [c for c in e.latest.cases if _area_of(c) == area]
            counts = e.latest.counts(runs)
            failing = [c for c in runs if c["status"] in FAILING]
            summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no case run"
            out.append(f"<section id='area-{_e(area)}'><h3>{_e(area)} <small>({summary})</small></h3>")
            if not failing:
                out.append("<p>No failures in this area.</p></section>")
                continue
            out.append("<table><thead><tr><th>case</th><th>preset</th><th>rule</th><th>step</th>"
                       "<th>what</th></tr></thead><tbody>")
            for c in failing[:MAX_LISTED]:
                rule = _rule_of(c)
                step = "" if c.get("step") is None else f"{c['step']}: <code>{_e(c.get('action'))}</code>"
                out.append(f"<tr><td class='{_e(c['status'])}'><code>{_e(c['case'])}</code></td>"
                           f"<td>{_e(c['variant'])}</td><td><a href='../rules/"
                           f"{_e(_slug_rule(rule))}.html'><code>{_e(rule)}</code></a></td>"
                           f"<td>{step}</td><td>{_e(reports._clip(c.get('message', ''), 400))}</td></tr>")
            if len(failing) > MAX_LISTED:
                out.append(f"<tr><td colspan='5'>... and {len(failing) - MAX_LISTED} more</td></tr>")
            out.append("</tbody></table></section>")
        return out

    @staticmethod
    def _skips_html(r: Report) -> list[str]:
        reasons = r.data.get("skip_reasons") or []
        if not reasons:
            return []
        out = ["<h2 id='skips'>Why case runs were skipped</h2><table>"]
        for entry in reasons[:20]:
            out.append(f"<tr><td>{_e(entry.get('count'))}</td><td>{_e(entry.get('reason'))}</td></tr>")
        return out + ["</table>"]

    # -- a rule --------------------------------------------------------------------------------
    def rule_page(self, rule: str) -> str:
        entry = self.rules[rule]
        known = self.spec.rules_by_id.get(rule)
        title = getattr(known, "title", "") if known is not None else ""
        body = [f"<h1><code>{_e(rule)}</code> {_e(title)}</h1>"]
        if self.docs_url and known is not None:
            body.append(f"<p><a href='{_e(reports.rule_url(rule, self.docs_url))}'>The rule's "
                        "text and sources</a></p>")
        by_slug = {e.slug: e for e in self.engines}
        body.append(f"<h2 id='fail'>Engines that fail it ({len(entry['fail'])})</h2>")
        if entry["fail"]:
            body.append("<table><thead><tr><th>engine</th><th>version</th><th>failing runs</th>"
                        "<th>what</th></tr></thead><tbody>")
            for slug, numbers in entry["fail"].items():
                e = by_slug[slug]
                runs = [c for c in e.latest.cases if c["status"] in FAILING and _rule_of(c) == rule]
                problems = self.problems[slug]
                links = [f"<a href='../engines/{slug}.html#problem-{i}'>problem {i}</a>: "
                         f"{_e(problems[i - 1].get('message', ''))}" for i in numbers]
                if not links:
                    links = [f"<a href='../engines/{slug}.html#failures'>its failures</a>"]
                body.append(f"<tr><td><a href='../engines/{slug}.html'>{_e(e.name)}</a></td>"
                            f"<td>{_e(e.latest.version)}</td><td class='fail'>{len(runs)}</td>"
                            f"<td>{'<br>'.join(links)}</td></tr>")
            body.append("</tbody></table>")
        else:
            body.append("<p>None.</p>")
        passing = ", ".join(f"<a href='../engines/{s}.html'>{_e(by_slug[s].name)}</a>"
                            for s in entry["pass"]) or "none"
        body.append(f"<h2 id='pass'>Engines that pass every case run citing it</h2><p>{passing}</p>")
        return _page(f"{rule}: durak-spec results", body, "../")


def _record(example: dict) -> SimpleNamespace:
    """A problem's shortest run in the shape the HTML report's pictures take."""
    return SimpleNamespace(status="fail", **{k: example.get(k) for k in
                                             ("case", "variant", "step", "action", "check")})


def _trend_html(e: Engine) -> list[str]:
    """The engine's reports, oldest first: a bar per report (pass, fail, error, skip) and a table."""
    bar, gap, height = 28, 10, 120
    width = len(e.reports) * (bar + gap) + gap
    svg = [f"<svg class='trend' width='{width}' height='{height + 40}' role='img' "
           f"aria-label='results of {_e(e.name)} per report, oldest first'>"]
    rows = []
    for i, r in enumerate(e.reports):
        counts, x = r.counts(), gap + i * (bar + gap)
        total = sum(counts[s] for s in _COUNTED) or 1
        y = height
        for status in ("pass", "skip", "error", "fail"):
            h = round(height * counts[status] / total)
            if h:
                y -= h
                svg.append(f"<rect class='{status}' x='{x}' y='{y}' width='{bar}' height='{h}'>"
                           f"<title>{counts[status]} {status}</title></rect>")
        svg.append(f"<text x='{x}' y='{height + 14}'>{_e(r.version[:6])}</text>")
        rows.append(f"<tr><td>{_e(r.started)}</td><td>{_e(r.version)}</td>"
                    f"{_count_cells(counts)}<td>{len(r.problems())}</td>"
                    f"<td><code>{_e(Path(r.file).name)}</code></td></tr>")
    svg.append("</svg>")
    return ["<h2 id='trend'>Trend</h2>", f"<p>{len(e.reports)} reports, oldest first.</p>",
            "<div class='picture'>" + "".join(svg) + "</div>",
            "<table><thead><tr><th>started</th><th>version</th>",
            *(f"<th>{s}</th>" for s in _COUNTED), "<th>problems</th><th>report</th></tr></thead>"
            "<tbody>", *rows, "</tbody></table>"]


def build_site(spec, report_files: list[str], out: Path, title: str = "durak-spec results",
               docs_url: str | None = None) -> dict[str, str]:
    """Read the reports and write the site under `out`; returns {relative path: html}."""
    schema = json.loads((CONFORMANCE_DIR / "schemas" / "report.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    engines = group_engines([read_report(f, validator, i) for i, f in enumerate(report_files)])
    pages = Site(engines, spec, title, docs_url).pages()
    for rel, text in pages.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return pages


@click.command("site")
@click.argument("report_files", nargs=-1, required=True, metavar="REPORT.json...")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="The folder to write the site into (index.html, engines/, rules/).")
@click.option("--title", default="durak-spec results", show_default=True,
              help="The title of the index page.")
@click.option("--docs-url", default=None, metavar="URL",
              help="Where the built docs are: rule pages link to the rule's text there.")
@click.pass_context
def site_command(ctx, report_files, out_dir, title, docs_url):
    """Build one static results site from the JSON reports of durak check and durak fuzz, of any
    number of engines and of one engine over time: an index with a row per engine and a column
    per rule area, a page per engine (problems, shortest cases drawn, trend), a page per rule."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out_dir}: is a file, not a folder")
    spec = _load(ctx)
    try:
        pages = build_site(spec, list(report_files), out, title, docs_url)
    except OSError as exc:
        raise UserError(f"--out {out_dir}: cannot write the site ({exc.strerror or exc})") from None
    click.echo(f"wrote {len(pages)} pages to {out / 'index.html'}")
