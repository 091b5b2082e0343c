"""The results site of the shipped example engines (`durak site`), built with the docs into
`results-site/` of the HTML output, and the directive that shows its engines on a page.

Config `durak_site`: `1` (the default) runs the examples here, under EXAMPLE_SELECTION; a folder of
`durak check --report` files, or report files separated by commas, builds the site from those (the
test suite runs the examples once, with run_examples, and shares the reports); `0` leaves it out.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from docutils import nodes

from durak_spec.conformance import report as reports
from durak_spec.conformance.runner import Selection
from durak_spec.tools.check import run_suite
from durak_spec.tools.site import build_site

from .directives import DurakDirective

SITE = "results-site"
# The podkidnoy cases for three and four players: every rule area, at a third of the cost of all
EXAMPLE_SELECTION = Selection(variants=("podkidnoy",), players=(3, 4))
# (adapter, report file): the reference, an independent engine in Python (minidurak, which plays
# only deals), an engine without the attack cap, and the JavaScript template at two versions
# (with node)
PYTHON_EXAMPLES = [
    ("reference", "reference"),
    ("python:durak_spec.conformance.examples.style_silent:SilentEngine", "minidurak-silent"),
    ("python:durak_spec.conformance.examples.broken_no_cap:NoAttackCap", "broken-no-cap"),
]
JS_TEMPLATE = Path("conformance") / "examples" / "javascript" / "engine.js"
# The JavaScript template's history: version 0.9.0 drew the defender first (draw.order), 1.0.0 is
# the shipped file.
JS_HISTORY = [("version: '1.0.0'", "version: '0.9.0'"),
              ("return [...order, this.defender];", "return [this.defender, ...order];")]


def run_examples(spec, root: Path, out: Path) -> list[Path]:
    """Run the example engines under EXAMPLE_SELECTION and write a `durak check` report of each
    into `out`, oldest first; the JavaScript engine only where node is installed."""
    out.mkdir(parents=True, exist_ok=True)
    adapters = list(PYTHON_EXAMPLES)
    node = shutil.which("node")
    if node is not None:
        source = (root / JS_TEMPLATE).read_text(encoding="utf-8")
        old = source
        for before, after in JS_HISTORY:
            assert old.count(before) == 1, f"{JS_TEMPLATE} no longer has {before!r}"
            old = old.replace(before, after)
        (out / "engine-0.9.0.js").write_text(old, encoding="utf-8")
        adapters += [(f"cmd:{node} {out / 'engine-0.9.0.js'}", "durak-js-example-0.9.0"),
                     (f"cmd:{node} {root / JS_TEMPLATE}", "durak-js-example-1.0.0")]
    written, shared = [], SharedRulesets(spec)
    for adapter, name in adapters:
        results, meta, _suite = run_suite(shared, adapter, EXAMPLE_SELECTION)
        path = out / f"{name}.json"
        reports.write_json(path, results, meta)
        written.append(path)
    return written


class SharedRulesets:
    """The spec, with each ruleset compiled once for all the example runs (a run compiles the
    rulesets of its cases' variants, the same for every engine; compiling is most of its time)."""

    def __init__(self, spec):
        self._spec, self._rulesets = spec, {}

    def __getattr__(self, name):
        return getattr(self._spec, name)

    def ruleset(self, preset: str = "podkidnoy", overrides: dict | None = None):
        key = (preset, repr(sorted((overrides or {}).items())))
        if key not in self._rulesets:
            self._rulesets[key] = self._spec.ruleset(preset, overrides)
        return self._rulesets[key]


def report_files(setting: str) -> list[Path]:
    """The reports a `durak_site` setting names: a folder's *.json, or files separated by commas."""
    if "," not in setting and Path(setting).is_dir():
        return sorted(Path(setting).glob("*.json"), key=lambda p: (p.stat().st_mtime, p.name))
    return [Path(p.strip()) for p in setting.split(",") if p.strip()]


def build(app, data, setting: str) -> dict | None:
    """Build the site into the HTML output; returns what the directive shows, or None."""
    if setting.lower() in ("0", "false", "no", "") or getattr(app.builder, "format", "") != "html":
        return None
    if setting.lower() in ("1", "true", "yes"):
        files = run_examples(data.spec, data.root, Path(app.doctreedir) / "durak-site-reports")
    else:
        files = report_files(setting)
    out = Path(app.outdir) / SITE
    if out.exists():
        shutil.rmtree(out)
    build_site(data.spec, [str(f) for f in files], out, "durak-spec results: the example engines")
    engines = []
    for f in files:
        report = json.loads(f.read_text(encoding="utf-8"))
        engine = report.get("engine") or {}
        engines.append({"name": engine.get("name", "?"), "version": engine.get("version", ""),
                        "summary": report["summary"],
                        "problems": len(report.get("problems") or [])})
    return {"engines": engines}


class ResultsSiteDirective(DurakDirective):
    """``.. durak-results-site::``: the reports the site was built from, and a link to it."""

    def run(self):
        site = getattr(self.data(), "results_site", None)
        if not site:
            return [nodes.paragraph(text="This build left the results site out (durak_site=0).")]
        table = nodes.table(classes=["durak-results"])
        group = nodes.tgroup(cols=6)
        table += group
        for _ in range(6):
            group += nodes.colspec(colwidth=1)
        head, body = nodes.thead(), nodes.tbody()
        group += head
        group += body
        head += _row(["engine", "version", "pass", "fail", "skip", "problems"])
        for e in site["engines"]:
            s = e["summary"]
            body += _row([e["name"], e["version"], s.get("pass", 0),
                          s.get("fail", 0) + s.get("xpass", 0), s.get("skip", 0), e["problems"]])
        link = nodes.raw("", f"<p><a class='reference external' href='{SITE}/index.html'>"
                             "Open the results site</a> (index, a page per engine and per rule)."
                             "</p>", format="html")
        return [table, link]


def _row(cells) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        entry += nodes.paragraph(text=str(cell))
        row += entry
    return row


DIRECTIVES = {"durak-results-site": ResultsSiteDirective}
