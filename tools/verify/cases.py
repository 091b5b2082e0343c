"""Conformance cases written by `durak verify`: counterexamples and boundary cases, one case per
YAML file under <--out>/generated/ (conformance/cases/generated/ only with --write-shipped in a
checkout: tools/common.generated_root), each with its provenance (`generated:`).
"""

from __future__ import annotations

from pathlib import Path

from durak_spec.conformance import cases as suite

COUNTEREXAMPLES = "generated/counterexamples"


def write_case(root: Path, case: dict, spec) -> Path:
    """Validate the case against the schema and spec/, and write it in the suite's canonical form."""
    return suite.write_case(case, spec, Path(root))


def clear_counterexamples(root: Path, prop: str, preset: str) -> None:
    """Remove the counterexample cases an earlier run wrote for this property and preset."""
    for path in (Path(root) / COUNTEREXAMPLES / prop).glob(f"{preset}.*.yaml"):
        path.unlink()


def _after(state: dict | None) -> dict:
    if not state:
        return {}
    return {"hand_sizes": [len(h) for h in state["hands"]], "talon_count": len(state["talon"]),
            "table": state["table"], "discard_count": state["discard_count"],
            "attacker": state["attacker"], "defender": state["defender"],
            "taking": state["taking"], "out": state["out"], "finished": state["finished"]}


def counterexample_case(cex, ruleset, title: str) -> dict:
    """The counterexample as a case: the spec accepts the action and the state after it breaks
    the invariant (the step's `state` pins what the interpreter did)."""
    kind = cex.position.actions[0].split()[1]
    step = {"do": cex.position.actions[0], "expect": "accept"}
    state = _after(cex.after)
    if state:
        step["state"] = state
    step["note"] = f"afterwards {cex.prop} ({title}) fails"
    return {
        "id": f"{COUNTEREXAMPLES}/{cex.prop}/{cex.preset}.{cex.step}",
        "description": f"durak verify: under {cex.preset} with {cex.players} players, "
                       f"'{cex.position.actions[0]}' is legal here and breaks {cex.prop}.",
        "rules": [cr.rule.id for cr in ruleset.legality[kind]],
        "variants": [cex.preset],
        "setup": cex.position.setup,
        "steps": [step],
        "generated": {"by": "durak verify", "kind": "counterexample", "invariant": cex.prop,
                      "step": cex.step, "preset": cex.preset, "players": cex.players,
                      "failing": list(cex.failed)},
    }
