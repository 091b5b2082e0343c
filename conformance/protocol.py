"""The JSON-lines protocol's message schemas (schemas/protocol/, described in PROTOCOL.md).

The runner validates every answer an engine gives: the envelope (the request's id and exactly one
of result, skipped or error) and, for results, the schema of that command's result.
"""

from __future__ import annotations

import hashlib
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


class SchemaProblem(str):
    """first_error's line, and `digest`: a short digest of what is wrong and where in the
    schema's own terms (schema_key), never of the value nor of the library's wording: the
    fuzzer's signature of an answer out of protocol carries it, so that an engine writing a hand
    size of 0 as false and one of 1 as true is one divergence, not one per value."""

    __slots__ = ("digest",)


# The JSON type of a value as JSON Schema names it (bool before int: a bool is an int to Python)
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string",
               type(None): "null", list: "array", dict: "object"}


def schema_key(name: str, err) -> str:
    """What a jsonschema error says is wrong, without the value: the schema, the path (each
    index as *), the keyword, what the schema expects there (the keyword's value: a type, a
    pattern, a bound, an enum's list; for required, the properties missing; for
    additionalProperties, those it does not allow) and the JSON type of the value found."""
    path = "/".join("*" if type(p) is int else str(p) for p in err.absolute_path)
    expected = err.validator_value
    instance = err.instance
    if err.validator == "required" and type(instance) is dict:
        expected = [p for p in expected if p not in instance]
    elif err.validator == "additionalProperties" and type(instance) is dict \
            and type(err.schema) is dict:
        known, patterns = err.schema.get("properties", {}), err.schema.get("patternProperties", {})
        expected = sorted(str(k) for k in instance
                          if k not in known and not any(re.search(p, str(k)) for p in patterns))
    found = _JSON_TYPES.get(type(instance)) or type(instance).__name__
    return json.dumps([name, path, err.validator, expected, found], sort_keys=True, default=str)


def first_error(name: str, data) -> SchemaProblem | None:
    """The first schema error of `data` against message schema `name`, as one line (with the
    digest of schema_key), or None."""
    errors = list(validator(name).iter_errors(data))
    if not errors:
        return None
    from jsonschema.exceptions import best_match

    err = best_match(errors)
    where = "/".join(str(p) for p in err.absolute_path)
    problem = SchemaProblem(f"{err.message}" + (f" at {where}" if where else "")
                            + f" (schema {name}.json)")
    problem.digest = hashlib.sha1(schema_key(name, err).encode()).hexdigest()[:6]
    return problem


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


@lru_cache(maxsize=None)
def _state_terms() -> tuple:
    """What result-state.json allows of a card's text, a table card's text and a seat: (card
    pattern, table card pattern, highest seat), read from the schema itself."""
    fields = json.loads((SCHEMAS / "protocol" / "result-state.json").read_text()
                        )["properties"]["state"]["properties"]
    table_card = next(s for s in fields["table"]["items"]["items"]["anyOf"] if "pattern" in s)
    return (re.compile(fields["trump"]["pattern"]).match, re.compile(table_card["pattern"]).match,
            fields["attacker"]["maximum"])


def _plain_state(st) -> bool:
    """A quick test that implies result-state.json's "state" holds: every field it names of its
    type, a card's text of its pattern, a seat in its range (the types alone would take an
    attacker of 7 or a trump of "6s")."""
    if type(st) is not dict:
        return False
    card, table_card, top = _state_terms()
    get = st.get
    for k in ("talon_count", "discard_count"):
        if type(get(k, 0)) is not int:
            return False
    for k in ("attacker", "defender"):
        x = get(k, 0)
        if type(x) is not int or not 0 <= x <= top:
            return False
    for k in ("taking", "finished", "redeal"):
        if type(get(k, False)) is not bool:
            return False
    fool = get("fool")
    if fool is not None and (type(fool) is not int or not 0 <= fool <= top):
        return False
    if "trump" in st and (type(st["trump"]) is not str or not card(st["trump"])):
        return False
    hands, table, out, sizes = get("hands", []), get("table", []), get("out", []), \
        get("hand_sizes", [])
    if type(hands) is not list or type(table) is not list or type(out) is not list \
            or type(sizes) is not list:
        return False
    for h in hands:
        if type(h) is not list or not all(type(c) is str and card(c) for c in h):
            return False
    for pair in table:
        if type(pair) is not list or not all(c is None or type(c) is str and table_card(c)
                                             for c in pair):
            return False
    return all(type(x) is int and 0 <= x <= top for x in out) and \
        all(type(x) is int for x in sizes)


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
