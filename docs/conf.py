"""Sphinx configuration of the durak-spec docs. The reference pages are generated from spec/ and
conformance/ by the extension in _ext/durak_docs at every build (see README.md)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "durak-spec"
author = "durak-spec contributors"
extensions = ["myst_parser", "durak_docs"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "README.md", "Thumbs.db", ".DS_Store"]
myst_heading_anchors = 3
# Rule text is shown exactly as spec/ writes it, quotes included.
smartquotes = False
html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["durak.css"]
html_title = "durak-spec"
html_theme_options = {"description": "The rules of Durak as data", "fixed_sidebar": False,
                      "page_width": "1100px"}
# Set by the test suite (-D durak_spec_dir=...) to build the docs of an edited copy of spec/.
durak_spec_dir = None
durak_root = None
