"""The two families of errors: SpecError while loading spec/, IllegalAction during play.

Setup problems (a deal that cannot be made) are SetupError. Every error carries its facts as
attributes so callers (CLI, conformance runner, judge) can report them without parsing messages.
"""

from __future__ import annotations

import difflib


def suggest(word: str, choices) -> str:
    """Return ' Did you mean X?' for the closest choice, or ''."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


class DurakError(Exception):
    """Base of every error the package raises on purpose."""


class SpecError(DurakError):
    """A spec file, option, preset or clause is wrong; names the file and the YAML path."""

    def __init__(self, message: str, file: str | None = None, path: str | None = None):
        self.message = message
        self.file = file
        self.path = path
        where = ":".join(p for p in (file, path) if p)
        super().__init__(f"{where}: {message}" if where else message)


class SetupError(DurakError):
    """A setup that cannot be dealt or a position that cannot exist."""

    def __init__(self, message: str, field: str | None = None):
        self.message = message
        self.field = field
        super().__init__(f"setup.{field}: {message}" if field else message)


class NotationError(DurakError):
    """Text or JSON that is not a card, an action or a state in the canonical notation."""


class IllegalAction(DurakError):
    """An action the rules forbid; `rule_id` names the rule that forbids it."""

    def __init__(self, action, rule_id: str, reason: str):
        self.action = action
        self.rule_id = rule_id
        self.reason = reason
        super().__init__(f"Can't {action}: {rule_id}: {reason}")
