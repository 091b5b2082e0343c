"""Package discovery for setuptools; everything else is in pyproject.toml.

The import package `durak_spec` is assembled from the top-level folders below. Each of their
subfolders holding code or data is a package of its own, so the data folders (conformance/cases/*,
the schema folders) are installed as declared packages rather than as files setuptools would warn
about ("Package would be ignored"), and a new area or preset folder needs no edit here.
"""

from pathlib import Path

from setuptools import setup

ROOTS = {"durak_spec.spec": "spec", "durak_spec.reference_impl": "reference_impl",
         "durak_spec.conformance": "conformance", "durak_spec.tools": "tools"}
SHIPPED = {".py", ".yaml", ".json", ".jsonl", ".md", ".js"}


def packages() -> list[str]:
    here = Path(__file__).parent
    out = []
    for package, folder in ROOTS.items():
        for d in [here / folder, *sorted((here / folder).rglob("*"))]:
            if d.is_dir() and d.name != "__pycache__" and \
                    any(f.suffix in SHIPPED for f in d.iterdir() if f.is_file()):
                out.append(".".join([package, *d.relative_to(here / folder).parts]))
    return out


setup(packages=packages())
