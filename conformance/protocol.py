"""The JSON-lines protocol's message schemas (schemas/protocol/, described in PROTOCOL.md).

The runner validates every answer an engine gives: the envelope (the request's id and exactly one
of result, skipped or error) and, for results, the schema of that command's result.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from itertools import repeat
from pathlib import Path

try:  # optional (extra "fast"): writes the protocol's lines several times faster than json
    import orjson
except ImportError:  # pragma: no cover - depends on the installation
    orjson = None

SCHEMAS = Path(__file__).resolve().parent / "schemas"
COMMANDS = ("hello", "start", "apply", "legal", "state", "step", "stop")


@lru_cache(maxsize=None)
def _registry():
    from referencing import Registry, Resource  # with jsonschema: imported only to validate

    resources = []
    for path in [SCHEMAS / "case.schema.json", *sorted((SCHEMAS / "protocol").glob("*.json"))]:
        data = json.loads(path.read_text())
        resources.append((data["$id"], Resource.from_contents(data)))
    return Registry().with_resources(resources)


@lru_cache(maxsize=None)
def validator(name: str):
    """A jsonschema validator for schemas/protocol/<name>.json (e.g. 'response', 'result-hello'):
    jsonschema is imported when an answer first needs one (most pass the quick tests below)."""
    import jsonschema

    schema = json.loads((SCHEMAS / "protocol" / f"{name}.json").read_text())
    return jsonschema.Draft202012Validator(schema, registry=_registry())


def first_error(name: str, data) -> str | None:
    """The first schema error of `data` against message schema `name`, as one line, or None."""
    errors = list(validator(name).iter_errors(data))
    if not errors:
        return None
    from jsonschema.exceptions import best_match

    err = best_match(errors)
    where = "/".join(str(p) for p in err.absolute_path)
    return f"{err.message}" + (f" at {where}" if where else "") + f" (schema {name}.json)"


def reads_named_suits(hello: dict) -> bool:
    """Whether an engine reads protocol 1.1's card texts: a card played as a named suit (`6D=H`,
    the Weli). An engine that answers protocol "1" reads version 1's notation only."""
    return str(hello.get("protocol", "")).strip() not in ("1", "1.0")


def dumps(obj) -> str:
    """One protocol line (without its newline): compact JSON, by orjson when it is installed and
    can write the value (else by json, which then writes or refuses it as it always has). Lines
    are read by json.loads alone: orjson reads an integer beyond 64 bits as a float, and the
    runner must see what an engine sent exactly."""
    if orjson is not None:
        try:
            return orjson.dumps(obj).decode()
        except TypeError:
            pass
    return json.dumps(obj, separators=(",", ":"))


def _plain_response(obj) -> bool:
    """A quick test that implies the response schema holds (the common case, checked cheaply)."""
    return (type(obj.get("id")) is int and len(obj) == 2
            and ("result" in obj or type(obj.get("skipped")) is str and obj["skipped"]
                 or type(obj.get("error")) is str))


# An action's text starts with the seat, then its kind (the pattern of result-legal.json)
_ACTION = re.compile(r"\s*[0-9]+\s+[a-z]+(\s.*)?$", re.S)


def _is_cards(x) -> bool:
    return type(x) is list and all(type(c) is str and 2 <= len(c) <= 3 for c in x)


def _plain_state(st) -> bool:
    ints = ("talon_count", "discard_count", "attacker", "defender")
    return (type(st) is dict and all(type(st.get(k, 0)) is int for k in ints)
            and all(type(st.get(k, False)) is bool for k in ("taking", "finished"))
            and all(_is_cards(h) for h in st.get("hands", []))
            and all(type(p) is list and 1 <= len(p) <= 2 for p in st.get("table", []))
            and all(type(x) is int for x in st.get("out", []))
            and all(type(x) is int for x in st.get("hand_sizes", []))
            and type(st.get("trump", "")) is str
            and (st.get("fool") is None or type(st.get("fool")) is int))


_ACCEPTED = repeat("accepted")
_DICT, _BOOL = {dict}, {bool}


def _plain_steps(steps: list) -> bool:
    """Every entry of a step answer is an object with a boolean "accepted": told by the types of
    the entries and of their verdicts, collected by map (the fuzzer asks at every stretch)."""
    return set(map(type, steps)) <= _DICT and set(map(type, map(dict.get, steps, _ACCEPTED))) <= _BOOL


_PLAIN = {
    "apply": lambda r: type(r) is dict and type(r.get("accepted")) is bool
    and all(type(r.get(k, "")) is str for k in ("rule", "reason")),
    "legal": lambda r: type(r) is dict and type(r.get("actions")) is list
    and all(type(a) is str and _ACTION.match(a) for a in r["actions"]),
    "state": lambda r: type(r) is dict and _plain_state(r.get("state")),
    # step: the fuzzer checks an entry's state and legal against the schema wherever it cannot
    # prove them the reference's own: a state equal to it with the reference's own numbers and
    # truth values (notation.record_is: not 0 for false), a legal list of its texts
    "step": lambda r: type(r) is dict and type(r.get("steps")) is list and _plain_steps(r["steps"]),
    "start": lambda r: type(r) is dict,
    "stop": lambda r: type(r) is dict,
}


def check_response(obj, request_id: int) -> str | None:
    """Why `obj` is not a valid answer to request `request_id`, or None."""
    if not isinstance(obj, dict):
        return "an answer is a JSON object"
    problem = None if _plain_response(obj) else first_error("response", obj)
    if problem:
        return problem
    if obj["id"] != request_id:
        return f"answered id {obj['id']}, expected {request_id}"
    return None


def check_result(cmd: str, result) -> str | None:
    """Why `result` is not a valid result of `cmd`, or None."""
    plain = _PLAIN.get(cmd)
    if plain is not None and plain(result):
        return None
    return first_error(f"result-{cmd}", result)
