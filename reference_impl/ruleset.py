"""A Ruleset: one preset plus option overrides, resolved and compiled once.

Compiling turns every active rule's clause into a Python callable and fuses the legality clauses of
each action kind into one generator function, hoisting conditions that do not depend on the card
(or on the seat) out of the inner loops. The generated source comes from checked clause trees only.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import vocab
from .errors import SpecError, suggest
from .lang import BOOL, INT, RUNTIME, SEAT, Clause, Compiler, Env, Name
from .spec import Rule, Spec, check_option_value

ACTION_PARAMS = ("seat", "card", "target")
CARD_NAMES = {"card", "card_in_hand", "unbeaten_share_rank"}
TARGET_NAMES = {"target", "target_unbeaten"}
DECISION_TYPES = {
    "first_attacker": SEAT + "?", "first_defender": SEAT + "?", "bout_beaten_off": BOOL,
    "bout_taken": BOOL, "drawer": BOOL, "draw_key": INT, "next_attacker_after_beaten_off": SEAT + "?",
    "next_attacker_after_take": SEAT + "?", "next_defender": SEAT + "?", "out": BOOL, "game_over": BOOL,
    "fool": SEAT + "?",
}
SEAT_DECISIONS = {"drawer", "draw_key", "out"}


@dataclass
class CompiledRule:
    rule: Rule
    clause: Clause


class Ruleset:
    """A variant ready to play: resolved options, compiled rules, decisions, invariants, flow."""

    def __init__(self, spec: Spec, preset: str, overrides: dict):
        self.spec = spec
        self.preset = preset
        self.options, self.option_origins = self._resolve(preset, overrides)
        self.overrides = dict(overrides)
        self.deck = spec.deck
        limits = spec.deck_data["players"]
        self.player_limits = (limits["min"], limits["max"])
        self.active_rules: list[Rule] = []
        self.legality: dict[str, list[CompiledRule]] = {k: [] for k in vocab.ACTION_KINDS}
        self.order: dict[str, CompiledRule] = {}
        self.decisions: dict[str, CompiledRule] = {}
        self.invariants: list[tuple[dict, Clause]] = []
        self.flow: dict[str, list[tuple[str, object, str | None]]] = {}
        self._compile_rules()
        self._compile_invariants()
        self._compile_flow()
        self.hand_size_fn = self._compile_text(
            "hand_size", spec.definitions["hand_size"][2], "definitions.hand_size", INT).fn
        self.generators = {k: self._fuse(k) for k in vocab.ACTION_KINDS}

    @property
    def name(self) -> str:
        return self.preset + "".join(f" {k}={v}" for k, v in sorted(self.overrides.items()))

    # -- options --------------------------------------------------------------------------
    def _resolve(self, preset: str, overrides: dict):
        spec = self.spec
        if preset not in spec.presets:
            raise SpecError(f"unknown preset {preset!r}.{suggest(preset, spec.presets)} "
                            f"Presets: {', '.join(spec.presets)}")
        chain, p = [], preset
        while p is not None:
            if p in chain:
                raise SpecError(f"presets extend each other in a cycle: {' -> '.join(chain + [p])}",
                                path=f"presets.{p}.extends")
            chain.append(p)
            p = spec.presets[p].get("extends")
        values = {n: o.default for n, o in spec.options.items()}
        origins = {n: "default" for n in spec.options}
        for p in reversed(chain):
            for n, v in spec.presets[p]["options"].items():
                values[n], origins[n] = v, f"preset {p}"
        for n, v in overrides.items():
            check_option_value(spec, n, v, None, f"--option {n}")
            values[n], origins[n] = v, "override"
        return values, origins

    # -- compiling ------------------------------------------------------------------------
    def _env(self, names: dict[str, Name]) -> Env:
        defs = {n: (d[1], d[2], d[3]) for n, d in self.spec.definitions.items()}
        return Env(dict(vocab.STATE), self.options, defs, dict(names))

    def _compile_text(self, text, file, path, want, names=None, params=()) -> Clause:
        return Compiler(self._env(names or {}), file, path).compile(text, want, params)

    def _is_active(self, rule: Rule) -> bool:
        if rule.when is None:
            return True
        c = Compiler(Env({}, self.options), rule.file, f"{rule.path}.when").compile(rule.when, BOOL)
        if not c.const:
            raise SpecError("a rule's `when` may use only options (opt.NAME)", rule.file,
                            f"{rule.path}.when")
        return bool(c.value)

    def _compile_rules(self) -> None:
        for rule in self.spec.rules:
            if not self._is_active(rule):
                continue
            self.active_rules.append(rule)
            if rule.applies_to:
                names = vocab.action_names(rule.applies_to)
                if rule.key:
                    c = self._compile_text(rule.key, rule.file, f"{rule.path}.key", INT, names,
                                           ACTION_PARAMS)
                    for kind in rule.applies_to:
                        if kind in self.order:
                            raise SpecError(f"two order rules apply to {kind}: "
                                            f"{self.order[kind].rule.id} and {rule.id}",
                                            rule.file, rule.path)
                        self.order[kind] = CompiledRule(rule, c)
                else:
                    c = self._compile_text(rule.clause, rule.file, f"{rule.path}.clause", BOOL,
                                           names, ACTION_PARAMS)
                    for kind in rule.applies_to:
                        self.legality[kind].append(CompiledRule(rule, c))
            elif rule.decides:
                names = vocab.SEAT_CLAUSE if rule.decides in SEAT_DECISIONS else {}
                if rule.decides in self.decisions:
                    other = self.decisions[rule.decides].rule
                    raise SpecError(f"both {other.id} and {rule.id} decide {rule.decides} "
                                    f"under preset {self.preset}", rule.file, f"{rule.path}.decides")
                c = self._compile_text(rule.clause, rule.file, f"{rule.path}.clause",
                                       DECISION_TYPES[rule.decides], names, ("seat",))
                self.decisions[rule.decides] = CompiledRule(rule, c)
        missing = sorted(set(DECISION_TYPES) - set(self.decisions))
        if missing:
            raise SpecError(f"no active rule decides {', '.join(missing)} under preset "
                            f"{self.preset}; add a rule with `decides:`")

    def _compile_invariants(self) -> None:
        file = str(self.spec.root / "invariants.yaml")
        for i, inv in enumerate(self.spec.invariants):
            names = vocab.INVARIANT_ACTION if inv["scope"] == "action" else {}
            c = self._compile_text(inv["clause"], file, f"invariants[{i}].clause", BOOL, names,
                                   ("seat", "kind"))
            self.invariants.append((inv, c))

    def _compile_flow(self) -> None:
        from .primitives import PRIMITIVES
        file = str(self.spec.root / "flow.yaml")
        for event, steps in self.spec.flow.items():
            compiled = []
            for i, step in enumerate(steps):
                step = {"do": step} if isinstance(step, str) else step
                if step["do"] not in PRIMITIVES:
                    raise SpecError(f"unknown primitive {step['do']!r}.{suggest(step['do'], PRIMITIVES)}",
                                    file, f"events.{event}[{i}].do")
                when = None
                if "when" in step:
                    c = self._compile_text(step["when"], file, f"events.{event}[{i}].when", BOOL)
                    if c.const and not c.value:
                        continue
                    when = None if c.const else c.fn
                compiled.append((step["do"], when, step.get("after")))
            self.flow[event] = compiled

    def _fuse(self, kind: str):
        """One generator for `kind`: conditions hoisted by what they depend on."""
        levels: list[list[str]] = [[], [], [], []]
        gen_names = dict(vocab.action_names([kind]))
        if "card_in_hand" in gen_names:
            gen_names["card_in_hand"] = Name(BOOL, "True")
        if "target_unbeaten" in gen_names:
            gen_names["target_unbeaten"] = Name(BOOL, "True")
        for cr in self.legality[kind]:
            r = cr.rule
            em = Compiler(self._env(gen_names), r.file, f"{r.path}.clause").compile(
                r.clause, BOOL, ACTION_PARAMS)
            if em.const:
                if not em.value:
                    return None  # never legal under this ruleset
                continue
            names = em.names
            level = 3 if names & TARGET_NAMES else 2 if names & CARD_NAMES else \
                1 if "seat" in names else 0
            levels[level].append(em.src)

        def cond(level):
            return " and ".join(f"({c})" for c in levels[level]) or "True"

        lines = ["def gen(s, out, A):", f"    if not ({cond(0)}): return"]
        if kind == "cover":
            lines += ["    unbeaten = [a for a, d in s.table if d is None]"]
        lines += ["    for seat in range(s.n):", f"        if not ({cond(1)}): continue"]
        if kind in vocab.CARD_KINDS:
            lines += ["        for card in s.hands[seat]:", f"            if not ({cond(2)}): continue"]
            if kind == "cover":
                lines += ["            for target in unbeaten:",
                          f"                if {cond(3)}: out.append(A(({kind!r}, seat, card, target)))"]
            else:
                lines += [f"            out.append(A(({kind!r}, seat, card, None)))"]
        else:
            lines += [f"        out.append(A(({kind!r}, seat, None, None)))"]
        namespace = dict(RUNTIME)
        exec(compile("\n".join(lines), f"<generator {kind}>", "exec"), namespace)  # generated code
        return namespace["gen"]

    def describe_options(self) -> list[tuple[str, object, str]]:
        return [(n, self.options[n], self.option_origins[n]) for n in self.spec.options]
