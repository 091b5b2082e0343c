"""Helpers every `durak` subcommand shares: loading the spec and reading options, with user
mistakes turned into one-line errors (exit 2)."""

from __future__ import annotations

import click

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.spec import Spec, load_spec
from durak_spec.reference_impl.yamlio import InputError, parse_text


class UserError(click.ClickException):
    exit_code = 2


def _load(ctx) -> Spec:
    try:
        return load_spec(ctx.obj.get("spec_dir"))
    except (DurakError, InputError) as exc:
        raise UserError(str(exc)) from None


def _parse_options(pairs) -> dict:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise UserError(f"--option takes NAME=VALUE, not {pair!r}")
        name, raw = pair.split("=", 1)
        try:
            out[name.strip()] = parse_text(raw, f"--option {name}") if raw.strip() else None
        except InputError as exc:
            raise UserError(str(exc)) from None
    return out


def _ruleset(spec: Spec, variant: str, options):
    try:
        return spec.ruleset(variant, _parse_options(options))
    except DurakError as exc:
        raise UserError(str(exc)) from None
