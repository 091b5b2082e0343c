"""The two families of errors: SpecError while loading spec/, IllegalAction during play.

Setup problems (a deal that cannot be made) are SetupError. A clause that raises while it runs
(a division by zero in play) is a ClauseError, outside both families. Every error carries its facts
as attributes so callers (CLI, conformance runner, judge) can report them without parsing messages.
"""

from __future__ import annotations

import difflib
import re

# A value quoted in a message is cut to this length: a 4,000-digit number, a pasted file or a
# runaway string is named, not echoed whole.
MAX_VALUE_DIGITS = 40
MAX_VALUE_CHARS = 200
_LONG_NUMBER = re.compile(r"\d{%d,}" % (MAX_VALUE_DIGITS + 1))
_LONG_WORD = re.compile(r"\S{%d,}" % (MAX_VALUE_CHARS + 1))


def clip_values(message: str) -> str:
    """`message` with each number of more than MAX_VALUE_DIGITS digits, and each run of more
    than MAX_VALUE_CHARS characters without a space, cut and its length said."""
    message = _LONG_NUMBER.sub(
        lambda m: f"{m.group()[:20]}...({len(m.group()):,} digits)", message)
    return _LONG_WORD.sub(
        lambda m: f"{m.group()[:MAX_VALUE_CHARS - 40]}...({len(m.group()):,} characters)", message)


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


class ClauseError(Exception):
    """A clause of the spec raised an error while it ran (it divided by zero in some position):
    the spec is wrong, not the action, the setup or the engine. Not a DurakError, so nothing in
    play takes it for an illegal action or a bad setup; every command reports it in one line and
    exits 2. `what` is 'rule ID', 'invariant ID', 'definition NAME' or the clause's YAML path;
    `step` the number of actions played in the deal when it failed (None where unknown)."""

    def __init__(self, what: str, clause: str, file: str, path: str, step: int | None, error: str):
        self.what, self.clause, self.file, self.path = what, clause, file, path
        self.step, self.error = step, error
        self.rule_id = what[len("rule "):] if what.startswith("rule ") else None
        where = ":".join(p for p in (file, path) if p)
        when = f" at step {step}" if step is not None else ""
        super().__init__(f"{where + ': ' if where else ''}{what}: the clause {clause!r} fails{when} "
                         f"({error}); a clause must have a value in every position")

    def __reduce__(self):  # crosses process pools (durak verify --jobs) with its facts
        return type(self), (self.what, self.clause, self.file, self.path, self.step, self.error)
