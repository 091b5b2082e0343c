"""The Sphinx docs: built with -W from spec/, every rule anchored by its id, every option in the
preset matrix, edits of the spec showing up, and the tutorial's engine passing real cases.

Each build runs `sphinx-build -W` in a subprocess on a copy of docs/ (so the generated pages of a
spec copy never land in the working tree), pointed at the checkout for conformance/ and positions/.
"""

from __future__ import annotations

import ast
import html
import json
import re
import shutil
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from docutils.nodes import make_id

from durak_spec.reference_impl.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

from durak_docs.clause import pretty  # noqa: E402


def build(tmp: Path, spec_dir: Path | None = None, verify_report: str | None = None,
          site_reports: Path | None = None) -> subprocess.CompletedProcess:
    """The site; its verification statuses from `verify_report` (a `durak verify --report`
    file), none for a spec copy, else proved in the build itself; its results site from the
    reports in `site_reports`, else none."""
    src = tmp / "docs"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns("_build", "_generated", "__pycache__"))
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(src),
           str(tmp / "html"), "-D", f"durak_root={ROOT}"]
    if spec_dir is not None:
        cmd += ["-D", f"durak_spec_dir={spec_dir}", "-D", "durak_verify=0"]
    elif verify_report is not None:
        cmd += ["-D", f"durak_verify={verify_report}"]
    cmd += ["-D", f"durak_site={site_reports or 0}"]
    # Generous: a build takes a minute or two alone, far longer on a machine busy with others.
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)


@pytest.fixture(scope="module")
def site(tmp_path_factory, full_verify, example_reports) -> Path:
    """The shipped docs, showing the test run's one full `durak verify` and its reports of the
    example engines (tests/conftest.py)."""
    tmp = tmp_path_factory.mktemp("site")
    done = build(tmp, verify_report=full_verify["report"], site_reports=example_reports)
    assert done.returncode == 0, f"sphinx-build -W failed:\n{done.stderr[-4000:]}"
    return tmp / "html"


def page(site: Path, rel: str) -> str:
    return (site / rel).read_text(encoding="utf-8")


def yaml_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


class Tables(HTMLParser):
    """Rows of the tables of a page, each cell as its text and the hrefs inside it."""

    def __init__(self):
        super().__init__()
        self.tables: list[tuple[list[str], list]] = []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append(((attrs.get("class") or "").split(), []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = {"text": "", "hrefs": []}
            self.tables[-1][1][-1].append(self._cell)
        elif tag == "a" and self._cell is not None and attrs.get("href"):
            self._cell["hrefs"].append(attrs["href"])

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def tables(html: str, cls: str) -> list[list[list[dict]]]:
    parser = Tables()
    parser.feed(html)
    return [rows for classes, rows in parser.tables if cls in classes]


def test_every_rule_is_anchored_by_its_id_on_its_area_page(site, spec):
    for rule in spec.rules:
        html = page(site, f"_generated/rules/{rule.area}.html")
        assert f'id="{rule.id}"' in html, f"{rule.id} has no anchor #{rule.id}"
        normalised = make_id(rule.id)
        assert f'id="{normalised}"' in html, f"{rule.id} has no anchor #{normalised}"
        assert rule.title in text(html), rule.title


def test_every_option_is_a_row_of_the_matrix_with_each_presets_value(site, spec):
    (matrix,) = tables(page(site, "_generated/presets.html"), "durak-matrix")
    header, rows = matrix[0], matrix[1:]
    presets = [c["text"].strip() for c in header[2:]]
    assert presets == list(spec.presets)
    by_option = {r[0]["text"].strip(): r for r in rows}
    assert list(by_option) == list(spec.options)
    resolved = {p: spec.ruleset(p).options for p in presets}
    for name, row in by_option.items():
        assert any(h.endswith(f"options.html#opt.{name}") for h in row[0]["hrefs"]), name
        for preset, cell in zip(presets, row[2:]):
            assert cell["text"].strip().rstrip("↑") == yaml_text(resolved[preset][name]), name


def test_options_invariants_disputes_and_sources_have_anchors(site, spec):
    options = page(site, "_generated/options.html")
    assert all(f'id="opt.{name}"' in options for name in spec.options)
    invariants = page(site, "_generated/invariants.html")
    assert all(f'id="{inv["id"]}"' in invariants for inv in spec.invariants)
    disputes = page(site, "_generated/disputes.html")
    assert all(f'id="dispute.{d}"' in disputes for d in spec.disputes)
    sources = page(site, "_generated/sources.html")
    assert all(f'id="src.{tag}"' in sources for tag in spec.sources)


def test_each_invariant_shows_its_z3_verification_status_per_preset(site, spec):
    invariants = page(site, "_generated/invariants.html")
    assert invariants.count("z3 (durak verify)") == len(spec.invariants)
    assert all(f"{preset}: proved" in invariants for preset in spec.presets)


def test_every_case_is_listed_and_linked_from_the_rules_it_cites(site, spec):
    from durak_spec.conformance.cases import CASES_DIR, case_files
    from durak_spec.reference_impl.yamlio import load_file

    cases_page = page(site, "_generated/cases.html")
    files = [f for f in case_files(CASES_DIR) if "/golden/" not in f.as_posix()]
    for path in files:
        case = load_file(path)
        if "retired" in case:
            continue
        assert f'id="case.{case["id"]}"' in cases_page, case["id"]
        for rule_id in case["rules"]:
            area = spec.rule(rule_id).area
            area_page = page(site, f"_generated/rules/{area}.html")
            assert f'cases.html#case.{case["id"]}"' in area_page, (case["id"], rule_id)


def test_protocol_and_case_format_pages_include_the_conformance_documents(site):
    protocol = text(page(site, "_generated/protocol.html"))
    headings = [line.lstrip("#").replace("`", "").strip()
                for line in (ROOT / "conformance" / "PROTOCOL.md").read_text().splitlines()
                if line.startswith("## ")]
    assert headings and all(h in protocol for h in headings)
    fields = page(site, "_generated/case-format.html")
    schema = json.loads((ROOT / "conformance/schemas/case.schema.json").read_text())
    for name in schema["properties"]:
        assert f'<span class="pre">{name}</span></code>' in fields, name


def test_the_tutorial_transcript_is_the_engine_speaking_the_protocol(site):
    tutorial = html.unescape(page(site, "tutorial-check-your-engine.html"))  # Sphinx versions differ
    assert '"rule": "defence.beat"' in tutorial
    assert '"cmd": "stop"' in tutorial


def test_positions_are_drawn_as_svg_with_a_verdict_per_variant(site):
    html = page(site, "_generated/positions.html")
    files = sorted((ROOT / "positions").glob("*.yaml"))
    assert html.count("<svg ") == len(files)
    limits = page(site, "_generated/rules/limits.html")
    assert "<svg " in limits and 'href="#limits.cap"' in limits


def test_a_rule_added_to_a_spec_copy_shows_up_anchored(spec_copy, tmp_path):
    spec_copy.edit("rules/limits.yaml", "rules:\n", """rules:
  - id: limits.docs_probe
    title: A rule that exists only in this copy
    text: A bout MUST NOT hold more than forty attack cards.
    sources: [W19]
    catalogue: [R16]
    applies_to: [attack, throw]
    clause: "table_attack_count + 1 <= 40 or opt.pile_on == 'any_time'"
    violation: forty cards are enough
""")
    done = build(tmp_path / "copy", spec_copy.root)
    assert done.returncode == 0, done.stderr[-4000:]
    html = page(tmp_path / "copy" / "html", "_generated/rules/limits.html")
    assert 'id="limits.docs_probe"' in html and "A rule that exists only in this copy" in html
    assert 'href="../options.html#opt.pile_on"' in html  # the clause links the option it reads
    options = page(tmp_path / "copy" / "html", "_generated/options.html")
    assert 'limits.html#limits.docs_probe"' in options  # ... and the option lists the rule


def test_a_broken_spec_stops_the_build_with_one_line_naming_the_file(spec_copy, tmp_path):
    spec_copy.edit("rules/limits.yaml", "sources: [W19, BGA, TAKE, CZM, PGT-K-new]",
                   "sources: [W19, NOSUCH]")
    done = build(tmp_path / "broken", spec_copy.root)
    assert done.returncode == 2
    assert "can't load the spec" in done.stderr and "limits.yaml" in done.stderr
    assert "NOSUCH" in done.stderr and "Traceback" not in done.stderr


def test_the_clause_layout_keeps_every_clause_s_syntax_tree():
    spec = load_spec()
    texts = [t for r in spec.rules for t in (r.clause, r.key, r.when) if t]
    texts += [i["clause"] for i in spec.invariants] + [d[1] for d in spec.definitions.values()]
    for text in texts:
        laid_out = pretty(text, width=40)
        assert ast.dump(ast.parse(f"({laid_out})", mode="eval")) == \
            ast.dump(ast.parse(text.strip(), mode="eval")), text
    assert "\n" in pretty(spec.rule("throw_in.who").clause, width=40)  # long clauses are split


def test_the_docs_show_a_results_site_built_from_the_example_engines(site, example_reports):
    text = page(site, "results-across-engines.html")
    index = page(site, "results-site/index.html")
    assert "href='results-site/index.html'" in text
    names = {json.loads(f.read_text())["engine"]["name"] for f in example_reports.glob("*.json")}
    assert len(names) >= 3
    for name in names:
        assert html.escape(name) in text and f">{html.escape(name)}</a>" in index


def test_the_tutorial_engine_passes_a_case_and_writes_both_reports(tmp_path):
    engine = DOCS / "tutorial" / "my_engine.py"
    cases = tmp_path / "cases" / "limits"  # one case: loading the whole suite takes longer
    cases.mkdir(parents=True)
    shutil.copy(ROOT / "conformance" / "cases" / "limits" / "seventh_card.yaml", cases)
    done = subprocess.run(
        [sys.executable, "-c", "from durak_spec.tools.cli import main; main()", "check",
         "--adapter", f"cmd:{sys.executable} {engine}", "--cases-dir", str(tmp_path / "cases"),
         "--report", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html"), "-q"],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["pass"] >= 1 and not report["summary"].get("fail")
    assert re.search(r"limits/seventh_card", (tmp_path / "r.html").read_text())


# -- in a real browser (the `browser` fixture of tests/conftest.py) -------------------------------


def test_the_preset_matrix_fits_a_1280_pixel_window(site, browser):
    browser.get((site / "_generated" / "presets.html").as_uri())
    fit = browser.execute_script("""
        const table = document.querySelector('table.durak-matrix');
        const heads = [...table.querySelectorAll('thead th')].map(th => th.getBoundingClientRect());
        return {view: document.documentElement.clientWidth,
                scroll: document.documentElement.scrollWidth,
                right: table.getBoundingClientRect().right,
                heads: heads.length, last: heads[heads.length - 1].right};
    """)
    spec = load_spec()
    assert browser.execute_script("return window.innerWidth") == 1280
    assert fit["heads"] == 2 + len(spec.presets)  # option, default, one column per preset
    assert fit["right"] <= fit["view"] and fit["last"] <= fit["view"], fit
    assert fit["scroll"] <= fit["view"], fit  # no horizontal scrolling


def test_the_names_in_a_clause_link_to_their_definitions(site, browser):
    browser.get((site / "_generated" / "rules" / "limits.html").as_uri())
    links = browser.execute_script("""
        return [...document.querySelectorAll('pre.durak-clause a')].map(a => ({
            text: a.textContent, target: a.hash.slice(1),
            found: !!document.getElementById(decodeURIComponent(a.hash.slice(1))) ||
                   a.pathname !== location.pathname}));
    """)
    names = {link["text"] for link in links}
    assert {"limits_apply", "within_cap"} <= names, names  # the clause of limits.cap
    assert all(link["found"] for link in links), [x for x in links if not x["found"]]


@pytest.fixture(scope="module")
def html_report(tmp_path_factory):
    from click.testing import CliRunner

    from durak_spec.tools.cli import cli
    path = tmp_path_factory.mktemp("report") / "report.html"
    cases = ROOT / "tests" / "conformance" / "cases"
    result = CliRunner().invoke(cli, [
        "check", "-q", "--cases-dir", str(cases), "--html", str(path),
        "--adapter", "python:durak_spec.conformance.examples.broken_beat:BeatAnySuit"])
    assert result.exit_code == 1, result.output
    return path


def test_every_rule_link_of_an_html_report_resolves_in_the_built_site(site, tmp_path):
    from click.testing import CliRunner

    from durak_spec.tools.cli import cli
    path = tmp_path / "report.html"
    result = CliRunner().invoke(cli, [
        "check", "-q", "--cases-dir", str(ROOT / "tests" / "conformance" / "cases"),
        "--html", str(path), "--docs-url", str(site),
        "--adapter", "python:durak_spec.conformance.examples.broken_beat:BeatAnySuit"])
    assert result.exit_code == 1, result.output
    links = set(re.findall(r"href='([^'#][^']*)'", path.read_text()))
    rule_links = {link for link in links if link.startswith(str(site))}
    assert len(rule_links) >= 3, links  # the rules of the failures and of the cases
    for link in sorted(rule_links):
        file, _, anchor = unescape(link).partition("#")
        assert Path(file).is_file(), f"{link}: no such page in the built site"
        assert f'id="{anchor}"' in Path(file).read_text(encoding="utf-8"), f"{link}: no anchor"


def test_the_html_report_reads_well_in_a_browser(html_report, browser):
    from selenium.webdriver.common.by import By

    browser.get(html_report.as_uri())
    first = browser.execute_script("""
        const h2 = document.querySelector('h2');
        const svg = document.querySelector('.failure svg').getBoundingClientRect();
        return {first: h2.id, top: h2.getBoundingClientRect().top, svg: [svg.width, svg.height],
                scroll: document.documentElement.scrollWidth,
                view: document.documentElement.clientWidth};
    """)
    # the report leads with its problems (root causes), then the failures grouped by rule
    assert first["first"] == "problems" and first["top"] < 400
    assert browser.execute_script("return document.getElementById('failures') !== null")
    assert first["svg"][0] > 200 and first["svg"][1] > 100  # the position is drawn
    assert first["scroll"] <= first["view"]
    rows = "return [...document.querySelectorAll('tr.row-pass')].filter(r => r.offsetParent).length"
    shown = browser.execute_script(rows)
    assert shown > 0
    browser.find_element(By.ID, "hide-pass").click()
    assert browser.execute_script(rows) == 0  # the filter hides every passing row
    assert browser.execute_script("return document.querySelectorAll('tr.row-fail').length") > 0
    browser.find_element(By.CSS_SELECTOR, "nav.counts a.fail").click()
    assert browser.execute_script("return location.hash") == "#failures"


def test_the_matches_page_has_a_worked_match_per_scoring_preset(site, spec):
    text = page(site, "_generated/matches.html")
    for preset in ("podkidnoy", "cardzmania", "podkidnoy_epaulettes", "podkidnoy_epaulette_ladder"):
        assert f'<span class="pre">{preset}</span>' in text, preset
    assert "match.next_dealer" in text and text.count("<table") >= 4
    assert "The match is over after" in text and "has not ended" not in text
    assert "How deal" in text and "scoring.epaulette_ladder" in text and "epaulette(s)" in text


def test_the_teams_page_has_the_seating_the_team_rules_and_a_worked_match_per_team_preset(site, spec):
    text = page(site, "_generated/teams.html")
    for layout in ("two_teams", "three_teams"):
        assert layout in text
    for rule in ("throw_in.who", "rotation.defender", "end.losers", "transfer.allowed"):
        assert rule in text, rule
    for option in ("team_outcome", "transfer_in_teams", "next_deal_opener"):
        assert option in text, option
    for preset in ("podkidnoy_teams", "podkidnoy_three_teams"):
        assert f'<span class="pre">{preset}</span>' in text, preset
    assert text.count("team totals") >= 3 and "How deal 1 scored" in text


def test_the_sources_table_lists_every_variant_with_what_implements_it(site, spec):
    html = page(site, "_generated/variants.html")
    body = text(html)
    for v in spec.variants:
        assert v["title"] in body.replace("\n", " ")
        for p in v.get("presets", []):
            assert f"presets.html#preset.{p}" in html
    assert body.count("not modelled:") == sum(1 for v in spec.variants if v.get("reason"))


def test_a_rule_lists_the_presets_where_it_can_decide_not_every_preset(spec):
    """Issue 24: "In force: in every preset" stood on 73 rules, the passport's and the redeal's
    among them; a rule decides where it is reached and can refuse (or decides, or orders)."""
    from durak_docs.data import DocsData

    data = DocsData.load(spec.root, spec.root.parent)
    deciding = {r.id: data.deciding_presets(r) for r in spec.rules}
    assert deciding["transfer.passport_card"] == ["perevodnoy_passport"]
    assert sorted(deciding["deck.redeal_hand"]) == ["marmot_tournament", "podkidnoy_colour_redeal"]
    assert "marmot_tournament" not in deciding["deck.redeal"]  # there the redeal is always allowed
    assert "podkidnoy_no_cap" not in deciding["limits.cap"]
    assert len(deciding["defence.beat"]) == len(spec.presets)


def test_a_rulebook_page_states_the_rules_in_force_in_plain_words_with_links(site, spec):
    """Issue 24: each preset's rulebook says its rules in its own values, linked to the rule
    ids and sources; no normative keyword or option name is left on the page."""
    html_text = page(site, "_generated/rulebook/marmot_tournament.html")
    words = text(html_text)
    assert "lowest trump still in the game" in words
    assert "no more than six" in words and "counterclockwise" in words
    assert 'href="../rules/deck.html#deck.trump_exchange"' in html_text
    assert 'href="../sources.html#src.MAR"' in html_text
    assert "MUST" not in words and "opt." not in words and "trump_exchange =" not in words
    for name in spec.presets:
        assert (site / "_generated" / "rulebook" / f"{name}.html").is_file(), name
