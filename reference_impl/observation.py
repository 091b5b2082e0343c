"""What an engine did at one step, as the runner and fuzzing record it and diagnose.py reads it: a
module of its own, so that recording a passing run does not load the diagnosis."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Observation:
    """What the engine did at one step: `action` is None for the start of the game. `state` (any
    subset of the protocol's state fields) and `legal` are the engine's after the step, or before
    it when the engine rejected it; None where they were not asked for."""

    action: str | None
    accepted: bool | None = None
    state: dict | None = None
    legal: list | None = None
    parsed: object = field(default=None, repr=False, compare=False)  # legal, as Actions (a cache)
