"""The JSON-lines protocol's message schemas (schemas/protocol/, described in PROTOCOL.md).

The runner validates every answer an engine gives: the envelope (the request's id and exactly one
of result, skipped or error) and, for results, the schema of that command's result.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import jsonschema
from referencing import Registry, Resource

SCHEMAS = Path(__file__).resolve().parent / "schemas"
COMMANDS = ("hello", "start", "apply", "legal", "state", "stop")


@lru_cache(maxsize=None)
def _registry() -> Registry:
    resources = []
    for path in [SCHEMAS / "case.schema.json", *sorted((SCHEMAS / "protocol").glob("*.json"))]:
        data = json.loads(path.read_text())
        resources.append((data["$id"], Resource.from_contents(data)))
    return Registry().with_resources(resources)


@lru_cache(maxsize=None)
def validator(name: str) -> jsonschema.Draft202012Validator:
    """A validator for schemas/protocol/<name>.json (e.g. 'response', 'result-hello')."""
    schema = json.loads((SCHEMAS / "protocol" / f"{name}.json").read_text())
    return jsonschema.Draft202012Validator(schema, registry=_registry())


def first_error(name: str, data) -> str | None:
    """The first schema error of `data` against message schema `name`, as one line, or None."""
    errors = list(validator(name).iter_errors(data))
    if not errors:
        return None
    err = jsonschema.exceptions.best_match(errors)
    where = "/".join(str(p) for p in err.absolute_path)
    return f"{err.message}" + (f" at {where}" if where else "") + f" (schema {name}.json)"


def check_response(obj, request_id: int) -> str | None:
    """Why `obj` is not a valid answer to request `request_id`, or None."""
    if not isinstance(obj, dict):
        return "an answer is a JSON object"
    problem = first_error("response", obj)
    if problem:
        return problem
    if obj["id"] != request_id:
        return f"answered id {obj['id']}, expected {request_id}"
    return None


def check_result(cmd: str, result) -> str | None:
    """Why `result` is not a valid result of `cmd`, or None."""
    return first_error(f"result-{cmd}", result)
