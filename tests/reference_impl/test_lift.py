"""lift.py: the lifting pass writes byte for byte what it wrote walking each whole program, with its
memos full or empty."""

from __future__ import annotations

import ast

import pytest

from durak_spec.reference_impl import lift
from durak_spec.reference_impl import ruleset as ruleset_module
from durak_spec.reference_impl.ruleset import Ruleset

_SCOPES = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.Lambda)


def _outer_scopes(node):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _SCOPES):
            yield child
        else:
            yield from _outer_scopes(child)


def whole_program_lifted(src: str, prefix: str) -> str:
    """The pass as ruleset.py had it before lift.py (4c3b0ac): the whole program parsed, each
    function walked once for its locals and once more per comprehension or lambda."""
    tree = ast.parse(src)
    lines = src.split("\n")
    edits: dict[int, list] = {}
    helpers: list[str] = []
    for func in tree.body:
        if not isinstance(func, ast.FunctionDef):
            continue
        local = {a.arg for a in func.args.args} | {
            n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in _outer_scopes(func):
            bound = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                     and isinstance(n.ctx, ast.Store)}
            if isinstance(node, ast.Lambda):
                bound |= {a.arg for a in node.args.args}
            free = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                           and isinstance(n.ctx, ast.Load)} & local - bound)
            if not free or node.lineno != node.end_lineno:
                continue
            name, args = f"{prefix}{len(helpers) // 2}", ", ".join(free)
            text = lines[node.lineno - 1].encode()[node.col_offset:node.end_col_offset].decode()
            helpers += [f"def {name}({args}):", f"    return {text}"]
            call = f"({name}({args}))" if text.startswith("(") else f"{name}({args})"
            edits.setdefault(node.lineno - 1, []).append((node.col_offset, node.end_col_offset, call))
    for i, spans in edits.items():
        line = lines[i].encode()
        for start, end, call in sorted(spans, reverse=True):
            line = line[:start] + call.encode() + line[end:]
        lines[i] = line.decode()
    return "\n".join(lines + helpers)


# option variants a diagnosis searches: one or two values changed from a preset's
VARIANTS = [("podkidnoy", {}), ("podkidnoy", {"max_attack_cards": None}),
            ("podkidnoy", {"lowest_trump_beats_ace": True}),
            ("podkidnoy", {"throw_in_after_take": False, "pile_on": "any_time"}),
            ("perevodnoy", {}), ("perevodnoy", {"transfer_capacity_check": "none"}),
            ("podkidnoy_teams", {})]


@pytest.fixture(scope="module")
def programs(spec):
    """(source, prefix) of every program lifted while building each preset's ruleset (its program
    and step) and the variants, fresh (not the spec's shared rulesets)."""
    found = []
    keep = ruleset_module.lifted

    def record(src, prefix):
        found.append((src, prefix))
        return keep(src, prefix)
    ruleset_module.lifted = record
    try:
        for preset, options in [(p, {}) for p in spec.presets] + VARIANTS:
            Ruleset(spec, preset, options).step_source
    finally:
        ruleset_module.lifted = keep
    return found


def test_variants_are_valid(spec):
    for preset, options in VARIANTS:
        assert spec.ruleset(preset, options).options.items() >= options.items()


def test_same_source_as_the_whole_program_walk(programs):
    assert len({p for _, p in programs}) == 2 and len(programs) > 2 * len(VARIANTS)
    lift._MEMO.clear()
    for rounds in range(2):  # the memo of functions empty, then full
        lift._PROGRAMS.clear()
        for src, prefix in programs:
            assert lift.lifted(src, prefix) == whole_program_lifted(src, prefix)
    # each program alone, with the memo holding none of its functions
    for src, prefix in programs[::7]:
        lift._MEMO.clear()
        assert lift._lifted(src, prefix) == whole_program_lifted(src, prefix)


def test_lifted_helpers_are_numbered_across_functions():
    src = "\n".join(["def f(s):", "    return [c for c in s.hand if c > s.x]",
                     "def g(s, t):", "    return any(c > t for c in s.hand), (lambda: s)()"])
    lift._MEMO.clear()
    lift._lifted(src.split("\n", 2)[2], "_p")  # g seen first, alone: its helper was number 0
    assert lift._lifted(src, "_p") == whole_program_lifted(src, "_p")
    assert "def _p2(s):" in lift._lifted(src, "_p")


def test_a_name_a_comprehension_stores_is_a_local_of_its_function():
    """as ast.walk over the function found them: a later scope that reads it passes it"""
    src = "\n".join(["def f(s):", "    a = [c for c in s.hand]", "    return (lambda y: y > c)(a)"])
    lift._MEMO.clear()
    assert lift._lifted(src, "_p") == whole_program_lifted(src, "_p")
    assert "def _p1(c):" in lift._lifted(src, "_p")


def test_a_program_that_does_not_cut_is_walked_whole():
    src = "\n".join(["def f(s):", "    x = '''", "def g(t):", "'''",
                     "    return [c for c in s.hand if c > x]"])
    lift._MEMO.clear()
    assert lift._lifted(src, "_p") == whole_program_lifted(src, "_p") != src


def test_a_program_lifted_again_in_a_process_is_not_walked(monkeypatch):
    src = "def f(s):\n    return [c for c in s.hand if c > s.x]"
    made = []
    monkeypatch.setattr(lift, "_lifted", lambda src, prefix: made.append(prefix) or prefix + src)
    lift._PROGRAMS.clear()
    assert lift.lifted(src, "_p") == lift.lifted(src, "_p") == "_p" + src and made == ["_p"]
