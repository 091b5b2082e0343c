"""The data of the current build, loaded once at builder-inited and read by every directive."""

from __future__ import annotations

from .data import DocsData

_CURRENT: list[DocsData] = []


def set_data(data: DocsData) -> None:
    _CURRENT[:] = [data]


def data() -> DocsData:
    if not _CURRENT:
        raise RuntimeError("the durak_docs extension has not loaded the spec yet")
    return _CURRENT[0]
