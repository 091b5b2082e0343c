"""A Ruleset: one preset plus option overrides, resolved and compiled once.

Compiling turns every active rule's clause into a Python callable and fuses the legality clauses of
each action kind into one generator function, hoisting conditions that do not depend on the card
(or on the seat) out of the inner loops. The generated source comes from checked clause trees only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial

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
        self.flow: dict[str, list[tuple[object, object]]] = {}  # event -> [(primitive, when)]
        self._compile_rules()
        self._compile_invariants()
        self._compile_flow()
        self.hand_size_fn = self._compile_text(
            "hand_size", spec.definitions["hand_size"][2], "definitions.hand_size", INT).fn
        self.legal_fn, self.passes_fn = self._fuse()

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
                fn = PRIMITIVES[step["do"]]
                if step.get("after"):
                    fn = partial(fn, after=step["after"])
                compiled.append((fn, when))
            self.flow[event] = compiled

    def _block(self, kind: str, out: str) -> list[str] | None:
        """Generated lines appending every legal `kind` action to `out`, with conditions hoisted
        by what they depend on (state, seat, card, target); None if `kind` is never legal."""
        levels: list[list[str]] = [[], [], [], []]
        gen_names = dict(vocab.action_names([kind]))
        for name in ("card_in_hand", "target_unbeaten"):  # true by construction of the loops
            if name in gen_names:
                gen_names[name] = Name(BOOL, "True")
        seat_exprs: list[str] = []
        for cr in self.legality[kind]:
            r = cr.rule
            env = self._env(gen_names)
            env.vocab = {n: (Name(e.type, f"_v_{n}") if e.args is None else e)
                         for n, e in env.vocab.items()}
            compiler = Compiler(env, r.file, f"{r.path}.clause")
            for node, em in compiler.conjuncts(r.clause):
                if em.const:
                    if not em.value:
                        return None
                    continue
                names = em.names
                self._used |= {n for n in names if n in vocab.STATE and vocab.STATE[n].args is None}
                level = 3 if names & TARGET_NAMES else 2 if names & CARD_NAMES else \
                    1 if "seat" in names else 0
                fixed = self._fixed_seat(compiler, node) if level == 1 else None
                if fixed is not None:
                    seat_exprs.append(fixed)
                else:
                    levels[level].append(em.src)

        def cond(level, extra=()):
            return " and ".join([f"({c})" for c in extra] + [f"({c})" for c in levels[level]]) or "True"

        lines = [f"    # {kind}", f"    if {cond(0)}:"]
        if kind == "cover":
            lines.append("        unbeaten = [a for a, d in s.table if d is None]")
        if seat_exprs:  # 'seat == E' conditions: visit only that seat
            lines += [f"        seat = {seat_exprs[0]}",
                      f"        for seat in ((seat,) if {cond(1, [f'seat == {e}' for e in seat_exprs[1:]])} else ()):"]
        else:
            lines += ["        for seat in range(s.n):", f"            if not ({cond(1)}): continue"]
        if kind in vocab.CARD_KINDS:
            lines.append("            for card in s.hands[seat]:")
            if levels[2]:
                lines.append(f"                if not ({cond(2)}): continue")
            if kind == "cover":
                lines += ["                for target in unbeaten:",
                          f"                    if {cond(3)}: {out}.append(A(({kind!r}, seat, card, target)))"]
            else:
                lines.append(f"                {out}.append(A(({kind!r}, seat, card, None)))")
        else:
            lines.append(f"            {out}.append(A(({kind!r}, seat, None, None)))")
        return lines

    def _fuse(self):
        """One function listing every legal action but passes: (others, throws); and one for
        passes, which depend on who may throw."""
        self._used: set[str] = set()
        body = []
        for kind in vocab.ACTION_KINDS:
            if kind != "pass":
                body += self._block(kind, "throws" if kind == "throw" else "out") or []

        def prelude():  # each state value a clause uses, read once per call
            return [f"    _v_{n} = {vocab.STATE[n].code}" for n in sorted(self._used)]
        lines = ["def legal(s, A):", "    out = []", "    throws = []"] + prelude() + body
        lines.append("    return out, throws")
        self._used = set()
        passes = self._block("pass", "out")
        lines += ["def passes(s, out, A):"] + prelude() + (passes or ["    pass"])
        namespace = dict(RUNTIME)
        exec(compile("\n".join(lines), f"<legal actions of {self.name}>", "exec"), namespace)
        self.source = "\n".join(lines)
        return namespace["legal"], namespace["passes"]

    @staticmethod
    def _fixed_seat(compiler: Compiler, node) -> str | None:
        """Source of E when `node` is 'seat == E' and E does not depend on the seat."""
        if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)
                and isinstance(node.left, ast.Name) and node.left.id == "seat"):
            other = compiler.emit(node.comparators[0])
            if other.type == SEAT and not other.names & ({"seat"} | CARD_NAMES | TARGET_NAMES):
                return other.src
        return None

    def describe_options(self) -> list[tuple[str, object, str]]:
        return [(n, self.options[n], self.option_origins[n]) for n in self.spec.options]
