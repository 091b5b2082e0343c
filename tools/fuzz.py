"""`durak fuzz`: differential fuzzing of an engine against the reference (conformance/fuzz.py).

Exit 0 when nothing diverged, 1 when something did (the minimal case is written and its path
printed), 2 on usage errors.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import click

from durak_spec.conformance.fuzz import fuzz
from durak_spec.conformance.transport import (
    DEFAULT_TIMEOUT,
    AdapterError,
    EngineFault,
    make_adapter,
)
from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.spec import load_spec
from durak_spec.tools.common import UserError, _load, _parse_options


def fuzz_one(spec_dir, adapter_name, preset, options, players, games, seed_value, out_dir,
             timeout, shrink=True) -> dict:
    """One fuzzing campaign (one worker); returns a plain summary dict (picklable)."""
    spec = load_spec(spec_dir)
    adapter = make_adapter(adapter_name, timeout, spec)
    try:
        hello = adapter.open()
    except EngineFault as exc:
        raise AdapterError(f"engine {adapter_name} did not complete the handshake: {exc}") from None
    try:
        if preset not in hello.get("presets", []):
            raise AdapterError(f"engine {adapter_name} does not play preset {preset}; it plays "
                               f"{', '.join(hello.get('presets', [])) or 'nothing'}")
        declared = hello.get("options", "any")
        fixed = dict(options)
        if declared != "any":  # fuzz under the house rules the engine declares
            preset_values = spec.ruleset(preset, fixed).options
            for name, values in declared.items():
                if name not in fixed and values and preset_values.get(name) not in values:
                    fixed[name] = values[0]
        res = fuzz(spec, adapter, hello, preset=preset, options=fixed, players=players, games=games,
                   seed_value=seed_value, out_dir=Path(out_dir), adapter_name=adapter_name,
                   shrink=shrink)
    finally:
        adapter.close()
    summary = {"games": res.games, "steps": res.steps, "seconds": res.seconds, "seed": seed_value,
               "options": fixed, "skipped": res.skipped, "errors": res.errors}
    if res.found is not None:
        d = res.found.divergence
        summary.update(case=str(res.case_path), message=d.message, rules=d.rules, step=d.step,
                       check=d.check, want=d.want, have=d.have, case_id=res.case["id"])
    return summary


@click.command("fuzz")
@click.option("--adapter", "adapter_name", default="reference", show_default=True,
              help="reference, python:MODULE:CLASS or cmd:COMMAND LINE")
@click.option("--variant", default="podkidnoy", show_default=True, help="Preset to play.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="Option override.")
@click.option("--players", type=int, default=None, help="Player count (default: drawn per game).")
@click.option("--games", type=int, default=200, show_default=True)
@click.option("--seed", "seed_value", type=int, default=0, show_default=True)
@click.option("--workers", type=int, default=1, show_default=True, help="Worker processes.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="durak-fuzz",
              show_default=True, help="Where minimal cases and the example database go.")
@click.option("--timeout", type=float, default=DEFAULT_TIMEOUT, show_default=True)
@click.option("--no-shrink", is_flag=True, help="Report the first divergence without shrinking it.")
@click.pass_context
def fuzz_command(ctx, adapter_name, variant, options, players, games, seed_value, workers, out_dir,
                 timeout, no_shrink):
    """Play random games in lockstep on the reference and an engine; shrink any divergence."""
    spec = _load(ctx)
    if variant not in spec.presets:
        raise UserError(f"unknown preset {variant!r}; presets: {', '.join(spec.presets)}")
    overrides = _parse_options(options)
    try:
        spec.ruleset(variant, overrides)
    except DurakError as exc:
        raise UserError(str(exc)) from None
    lo, hi = spec.deck_data["players"]["min"], spec.deck_data["players"]["max"]
    if players is not None and not lo <= players <= hi:
        raise UserError(f"--players {players}: this deck is for {lo} to {hi} players")
    if games < 1 or workers < 1:
        raise UserError("--games and --workers must be at least 1")
    spec_dir = ctx.obj.get("spec_dir")
    t0 = time.perf_counter()
    shares = [games // workers + (1 if i < games % workers else 0) for i in range(workers)]
    jobs = [(spec_dir, adapter_name, variant, overrides, players, share, seed_value + i, out_dir,
             timeout, not no_shrink) for i, share in enumerate(shares) if share]
    try:
        if len(jobs) == 1:
            results = [fuzz_one(*jobs[0])]
        else:
            with ProcessPoolExecutor(len(jobs)) as pool:
                results = list(pool.map(fuzz_one, *zip(*jobs)))
    except (AdapterError, DurakError) as exc:
        raise UserError(str(exc)) from None
    seconds = time.perf_counter() - t0
    played = sum(r["games"] for r in results)
    steps = sum(r["steps"] for r in results)
    click.echo(f"{adapter_name} under {variant}: {played} games, {steps} steps in {seconds:.2f} s "
               f"({played / seconds:.0f} games/s, {steps / seconds:.0f} steps/s, {len(jobs)} worker(s))")
    if results[0].get("options"):
        click.echo(f"options fixed by the engine's declared house rules and --option: "
                   f"{results[0]['options']}")
    skipped = sum(r["skipped"] for r in results)
    if skipped:
        click.echo(f"{skipped} deal(s) skipped by the engine (outside what it plays)")
    for r in results:
        for err in r["errors"]:
            click.echo(f"error: {err}", err=True)
    found = [r for r in results if "case" in r]
    for r in found:
        click.echo(f"DIVERGENCE (worker seed {r['seed']}): {r['message']}")
        click.echo(f"  rules: {', '.join(r['rules']) or '-'}; minimal case: {r['case']}")
        click.echo(f"  replay: durak check --adapter '{adapter_name}' --cases-dir {out_dir} "
                   f"--case {r['case_id']}")
    if not found:
        click.echo("no divergence")
    sys.exit(1 if found else 2 if any(r["errors"] for r in results) else 0)
