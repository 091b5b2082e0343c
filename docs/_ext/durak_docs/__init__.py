"""durak_docs: the Sphinx extension that builds the reference pages from spec/ and conformance/.

At `builder-inited` it loads the spec (config `durak_spec_dir`, or the environment variable
DURAK_DOCS_SPEC, or the checkout's spec/) and the conformance cases of the checkout
(`durak_root` / DURAK_DOCS_ROOT), and writes reST skeletons into docs/_generated/. The skeletons
call the directives of this package, which render every rule, option, preset, dispute, invariant,
source, case and position from the loaded data.
"""

from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.yamlio import InputError

from . import directives, engines_site, links, position, reference, rulebook, state, transcript
from .data import DocsData
from .pages import build_pages

GENERATED = "_generated"
logger = logging.getLogger(__name__)


def _paths(app) -> tuple[Path, Path]:
    root = app.config.durak_root or os.environ.get("DURAK_DOCS_ROOT") or Path(app.srcdir).parent
    spec = app.config.durak_spec_dir or os.environ.get("DURAK_DOCS_SPEC") or Path(root) / "spec"
    return Path(spec).resolve(), Path(root).resolve()


def verification(data, setting: str) -> dict:
    """`durak verify`'s result per invariant and preset: {invariant id: {preset: (status, note)}}.

    `setting` is the config value durak_verify: a path to a `durak verify --report` file (CI
    proves once and the docs show that run), or anything else true to run the verification
    here, every preset at every player count."""
    import json

    from durak_spec.tools.verify.report import invariant_status, verify_report

    path = Path(setting)
    if setting not in ("1", "true", "yes") and (path.suffix == ".json" or path.exists()):
        try:
            return invariant_status(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            logger.error("durak_docs: durak_verify=%s: can't read it as a durak verify report: "
                         "%s", setting, exc)
            raise SystemExit(2) from None
    from durak_spec.tools.verify.command import run_all
    reports = run_all(data.spec, list(data.spec.presets), {}, (), 3, 2, False)
    return invariant_status(verify_report(reports, 0, 0.0, {}))


def generate(app) -> None:
    """Load the spec and cases, then (re)write the generated pages that changed."""
    spec_dir, root = _paths(app)
    try:
        data = DocsData.load(spec_dir, root)
    except (DurakError, InputError) as exc:
        # A broken spec is the author's mistake, not Sphinx's: one line, no crash report.
        logger.error("durak_docs: can't load the spec: %s", exc)
        raise SystemExit(2) from None
    setting = str(app.config.durak_verify)
    if setting.lower() not in ("0", "false", "no", ""):
        data.verification = verification(data, setting)
    data.results_site = engines_site.build(app, data, str(app.config.durak_site))
    state.set_data(data)
    gendir = Path(app.srcdir) / GENERATED
    pages = build_pages(data, gendir)
    for rel, text in pages.items():
        path = gendir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    for path in gendir.rglob("*"):
        if path.is_file() and path.relative_to(gendir).as_posix() not in pages:
            path.unlink()  # a page of a rule area the spec no longer has


class ExactIds(SphinxTransform):
    """Give each documented id's section the id itself as its first HTML id (`limits.cap`), and
    point its label there, keeping Sphinx's normalised form (`limits-cap`) as a second anchor."""

    default_priority = 800  # before SphinxDomains (850) collects the labels

    def apply(self, **kwargs) -> None:
        if not self.env.docname.startswith(GENERATED + "/"):
            return
        exact = state.data().exact_anchor_names()
        for section in self.document.findall(nodes.section):
            for name in section["names"]:
                if name in exact and exact[name] not in section["ids"]:
                    section["ids"].insert(0, exact[name])
                    self.document.ids[exact[name]] = section
                    self.document.nameids[name] = exact[name]


def setup(app):
    app.add_config_value("durak_spec_dir", None, "env", [str])
    app.add_config_value("durak_root", None, "env", [str])
    app.add_config_value("durak_verify", "1", "env", [str])
    app.add_config_value("durak_site", "1", "env", [str])
    app.connect("builder-inited", generate)
    app.connect("include-read", links.on_include_read)
    for table in (directives.DIRECTIVES, reference.DIRECTIVES, position.DIRECTIVES,
                  transcript.DIRECTIVES, engines_site.DIRECTIVES, rulebook.DIRECTIVES):
        for name, cls in table.items():
            app.add_directive(name, cls)
    app.add_transform(ExactIds)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
