"""`durak site`: one static results site from the JSON reports of several engines and of one
engine over time, built from real runs of the shipped example engines (the reports the docs' site
shows, tests/conftest.py example_reports), a fuzz report, an engine's earlier report, and an older
report without problems whose engine has a hostile name. Checked as files and in headless
Chromium, where every link of every page must resolve, anchors included."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest
from click.testing import CliRunner

from durak_spec.tools.cli import cli

NO_CAP = "broken: no attack cap"
HOSTILE = "<script>alert(1)</script> old engine"


def durak(*args):
    result = CliRunner().invoke(cli, [*map(str, args)])
    assert "Traceback" not in result.output, result.output
    return result


@pytest.fixture(scope="module")
def reports(example_reports, tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("reports")
    files = sorted(example_reports.glob("*.json"))
    fuzz = folder / "fuzz.json"
    run = durak("fuzz", "--adapter", "python:durak_spec.conformance.examples.broken_beat:BeatAnySuit",
                "--games", "6", "--players", "2", "--no-shrink", "--out", folder / "fuzz",
                "--report", fuzz, "-q")
    assert run.exit_code == 1, run.output
    # the engine without the cap, as it was before it lost the cap: the reference's run under its name
    reference = json.loads((example_reports / "reference.json").read_text())
    no_cap = json.loads((example_reports / "broken-no-cap.json").read_text())
    reference["engine"] = {**no_cap["engine"], "version": "0.0.9"}
    reference["started"] = "2020-01-01T00:00:00+00:00"
    (folder / "no-cap-earlier.json").write_text(json.dumps(reference))
    # a report written before problems existed, by an engine with a hostile name
    old = {k: v for k, v in no_cap.items() if k != "problems"}
    old["engine"] = {**no_cap["engine"], "name": HOSTILE}
    (folder / "old.json").write_text(json.dumps(old))
    return [*files, fuzz, folder / "no-cap-earlier.json", folder / "old.json"]


@pytest.fixture(scope="module")
def site(reports, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    run = durak("site", *reports, "--out", out)
    assert run.exit_code == 0, run.output
    assert f"to {out / 'index.html'}" in run.output
    return out


def engine_page(site: Path, name: str) -> str:
    index = (site / "index.html").read_text()
    href = re.search(rf"<a href='(engines/[^']+)'>{re.escape(name)}</a>", index).group(1)
    return (site / href).read_text()


def test_the_index_has_a_row_per_engine_and_area_cells_linking_to_the_failures(site, reports):
    index = (site / "index.html").read_text()
    names = {json.loads(f.read_text())["engine"]["name"] for f in reports}
    rows = re.findall(r"<tr><td class='name'><a href='engines/[^']+'>([^<]*)</a>", index)
    assert len(rows) == len(names) >= 5
    # the engine without the cap fails limits: its cell links to that area of its page
    slug = re.search(rf"<a href='engines/([^']+)\.html'>{re.escape(NO_CAP)}</a>", index).group(1)
    assert f"<a class='fail' href='engines/{slug}.html#area-limits'>" in index
    assert "<a class='pass' href='engines/" in index  # the reference's cells
    page = (site / f"engines/{slug}.html").read_text()
    assert "id='area-limits'" in page and "limits/" in page


def test_an_engine_page_shows_its_problems_with_their_shortest_case_drawn(site):
    page = engine_page(site, NO_CAP)
    problems = re.findall(r"<div class='problem' id='problem-\d+'>.*?</div>\n", page, re.S)
    [cap] = [p for p in problems if "<code>limits.cap</code></a>" in p.split("</h3>")[0]]
    assert "<svg" in cap and "Shortest case" in cap and "durak check --adapter" in cap


def test_an_engine_over_time_has_its_trend_oldest_first(site):
    page = engine_page(site, NO_CAP)
    trend = page[page.index("id='trend'"):]
    assert trend.count("<rect class='pass'") == 2 and trend.count("<rect class='fail'") == 1
    assert trend.index("0.0.9") < trend.index("0.1.0")
    index = (site / "index.html").read_text()
    assert "#trend'>2</a>" in index


def test_a_rule_page_lists_the_engines_that_fail_it_and_those_that_pass(site):
    page = (site / "rules" / "limits.cap.html").read_text()
    failing, passing = page.split("id='pass'")
    assert NO_CAP in failing and "#problem-" in failing
    assert "durak-spec reference" in passing and NO_CAP not in passing


def test_a_report_without_problems_gets_its_failures_grouped_and_every_name_escaped(site):
    index = (site / "index.html").read_text()
    assert "<script>" not in index and html_escaped(HOSTILE) in index
    page = engine_page(site, html_escaped(HOSTILE))
    assert "<script>" not in page and "id='problem-1'" in page


def html_escaped(text: str) -> str:
    import html
    return html.escape(text, quote=True)


def test_a_fuzz_report_is_an_engine_of_the_site(site):
    page = engine_page(site, "broken: a higher plain card beats any plain suit")
    assert "defence.beat" in page


def test_what_is_not_a_report_is_one_line_naming_the_file(tmp_path):
    (tmp_path / "text.json").write_text("not json")
    (tmp_path / "other.json").write_text(json.dumps({"tool": "durak-spec", "cases": []}))
    for name, said in (("text.json", "not JSON"), ("other.json", "not a durak check or durak fuzz"),
                       ("missing.json", "cannot read it")):
        run = durak("site", tmp_path / name, "--out", tmp_path / "site")
        assert run.exit_code == 2, run.output
        assert f"{tmp_path / name}: {said}" in run.output and run.output.count("\n") == 1
    assert not (tmp_path / "site").exists()


def test_every_link_of_every_page_resolves_in_a_browser(site, browser):
    """Walk the site from its index as a reader would: every page that a link names loads, and
    every #anchor is an element of its page."""
    start = (site / "index.html").as_uri()
    ids, links, todo = {}, [], [start]
    while todo:
        url = todo.pop()
        if url in ids:
            continue
        path = Path(unquote(urlparse(url).path))
        assert path.is_file(), f"a link names {path}, which the site does not have"
        browser.get(url)
        assert browser.title, url
        ids[url] = set(browser.execute_script(
            "return Array.from(document.querySelectorAll('[id]'), e => e.id)"))
        for href in browser.execute_script(
                "return Array.from(document.querySelectorAll('a[href]'), a => a.getAttribute('href'))"):
            target, fragment = urldefrag(urljoin(url, href))
            assert target.startswith("file://"), f"{url} links out of the site: {href}"
            links.append((url, target, fragment))
            todo.append(target)
    for page, target, fragment in links:
        assert not fragment or unquote(fragment) in ids[target], f"{page}: no #{fragment} in {target}"
    assert len(ids) > 20 and len(links) > 200
    browser.get(start)
    rows = browser.find_elements("css selector", "#engines tbody tr")
    heads = [th.text for th in browser.find_elements("css selector", "#engines thead th")]
    assert len(rows) >= 5 and {"limits", "throw_in", "problems"} <= set(heads)
