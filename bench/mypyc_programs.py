"""Benchmark: the generated programs compiled with mypyc, beside the same programs in pure Python.

Issue 26's item 4 asks whether compiling a variant's generated step and play loop with mypyc
pays. This measures it. For each --case PRESET:PLAYERS it writes that program as a module of its
own, with the one annotation that lets mypyc compile its reads of the state as native ones
(`s: State`), and compiles it with mypyc together with the two modules whose classes it reads
(cards.py's Card, state.py's State). Those two are compiled from a copy of reference_impl/ in a
temporary folder, changed only as mypyc's native classes need (EDITS below: their fields declared,
an alias of a method written as a method, Deck left a Python class since the action tables keep it
in a weak dictionary); this checkout is not touched. Each case is then timed in alternating
processes: this checkout in pure Python, and the copy with its compiled modules, each playing the
same --games random games (`durak simulate`'s loop, `simulate(check=False)`), after warm-up. It
prints CPU games/s of both, their ratio, and fails if the two did not play the same games (steps,
finished games, fools).

Without a generated program compiled, a copy whose Card and State alone are compiled plays
slower than pure Python (Python's bytecode reads a native class's fields through descriptors),
so the figure is of the whole route: the classes and the program compiled together. With
--untyped it compiles the programs alone, as they are, beside this checkout's own Card and State:
slower than pure Python too.

Needs mypy (which brings mypyc; `pip install mypy`) and a C compiler; each program takes some
seconds to compile. Run: python bench/mypyc_programs.py [--case podkidnoy:2] [--games 1000]
"""

from __future__ import annotations

import argparse
import ast
import builtins
import importlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from playouts import PACKAGE_FOLDERS, ROOT, _checkout  # noqa: E402

CASES = ("podkidnoy:2", "podkidnoy:6", "podkidnoy_teams:6")
WARM_GAMES = 20  # untimed games first: the ruleset warm and its program for the count written

# The state's fields mypyc reads natively with a type (the rest are declared Any): the containers
# the play loop walks, and counters it does arithmetic on.
FIELD_TYPES = {"n": "int", "hands": "list[list[Card]]", "talon": "list[Card]",
               "discard": "list[Card]", "table": "list[list[Any]]", "passed": "list[bool]",
               "out": "list[bool]", "steps": "int", "unbeaten": "int"}
CARD_FIELDS = {"rank": "int", "suit": "str", "text": "str", "index": "int", "rank_symbol": "str",
               "colour": "str", "is_joker": "bool", "real": "Card"}


def _state_fields() -> str:
    from durak_spec.reference_impl.state import State
    return "".join(f"    {name}: {FIELD_TYPES.get(name, 'Any')}\n" for name in State.__slots__)


MYPYC_ATTR = """try:
    from mypy_extensions import mypyc_attr
except ImportError:  # mypy not installed: the copy in pure Python
    def mypyc_attr(**_flags):
        return lambda cls: cls
"""


# (file, text, its replacement, why): what native classes need, each applied exactly once.
def _edits() -> list[tuple[str, str, str, str]]:
    from durak_spec.reference_impl.state import State
    slots_pattern = r"    __slots__ = \(\n(?:        .*\n)+?    \)\n"
    return [
        ("cards.py", '    __slots__ = ("rank", "suit", "text", "index", "rank_symbol", "colour", '
                     '"is_joker", "real")\n',
         "".join(f"    {k}: {v}\n" for k, v in CARD_FIELDS.items()), "Card's fields declared"),
        ("cards.py", "    __str__ = __repr__\n",
         "    def __str__(self) -> str:\n        return self.text\n", "a method, not an alias"),
        ("cards.py", "class Deck:", "@mypyc_attr(native_class=False)\nclass Deck:",
         "weak references to a deck (state.py's action tables)"),
        ("cards.py", "from .errors import", MYPYC_ATTR + "from .errors import", "mypyc_attr"),
        ("state.py", "from typing import NamedTuple", "from typing import Any, NamedTuple", "Any"),
        ("state.py", re.compile(slots_pattern), _state_fields(), "State's fields declared"),
        ("state.py", "_VALUES = tuple(n for n in State.__slots__ ",
         f"_VALUES = tuple(n for n in {State.__slots__!r} ", "a native class has no __slots__"),
        ("state.py", "        table = {}\n", "        table: dict = {}\n", "a mixed table"),
        ("state.py", "        slots = [None] *", "        slots: list[Any] = [None] *", "cards or None"),
    ]


def native_copy(where: Path) -> Path:
    """A folder to put on PYTHONPATH whose durak_spec is this checkout with reference_impl copied
    and its Card and State made mypyc's native classes (EDITS)."""
    top = where / "durak_spec"
    top.mkdir(parents=True)
    for folder in PACKAGE_FOLDERS:
        if folder == "reference_impl":
            shutil.copytree(ROOT / folder, top / folder, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (top / folder).symlink_to(ROOT / folder)
    for name, old, new, why in _edits():
        path = top / "reference_impl" / name
        text = path.read_text()
        if isinstance(old, re.Pattern):
            text, count = old.subn(new, text)
        else:
            count = text.count(old)
            text = text.replace(old, new)
        if count != 1:
            raise SystemExit(f"reference_impl/{name} has changed: the edit for '{why}' found "
                             f"{count} places to apply, not one; update bench/mypyc_programs.py")
        path.write_text(text)
    return where


def module_name(preset: str, n: int) -> str:
    return f"durak_program_{preset}_{n}"


def typed_program(preset: str, n: int, typed: bool = True) -> str:
    """The generated program of `preset` at `n` players as a module: its globals from the
    ruleset's namespace declared (set after import, see `install`) and, if `typed`, `s: State`
    in the signature of each function that takes the state."""
    from durak_spec.reference_impl.simulate import simulate
    from durak_spec.reference_impl.spec import load_spec
    rs = load_spec().ruleset(preset)
    simulate(rs, n, WARM_GAMES, 1, check=False)
    src = rs.step_source_for(n)
    tree = ast.parse(src)
    defined = {f.name for f in tree.body if isinstance(f, ast.FunctionDef)}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names = sorted(x for x in used if x in rs._ns and x not in defined and not hasattr(builtins, x))
    src, count = re.subn(r"^def (\w+)\(g, s([,)])", r"def \1(g, s: State\2" if typed else
                         r"def \1(g, s\2", src, flags=re.M)
    if not count:
        raise SystemExit("the generated program has no function of (g, s, ...): update the bench")
    head = ["from typing import Any", "from durak_spec.reference_impl.state import State"]
    return "\n".join(head + [f"{x}: Any = None" for x in names]) + "\n" + src


def install(rs, n: int, module) -> None:
    """`module`'s step and play as `rs`'s program for `n` players, its globals the ruleset's."""
    rs.program(n)
    for name, value in vars(module).items():
        if value is None and name in rs._ns:
            setattr(module, name, rs._ns[name])
    rs._programs[n] = (module.step, module.play)


def worker(preset: str, n: int, games: int, compiled: bool, untyped: bool) -> None:
    """One timed run: a JSON line [CPU seconds, steps, finished, fools]."""
    from durak_spec.reference_impl import state
    from durak_spec.reference_impl.simulate import simulate
    from durak_spec.reference_impl.spec import load_spec
    rs = load_spec().ruleset(preset)
    simulate(rs, n, WARM_GAMES, 10**6, check=False)
    if not state.__file__.startswith(str(Path.cwd())):
        raise SystemExit(f"durak_spec is not the one on PYTHONPATH: {state.__file__}")
    if compiled:
        module = importlib.import_module(module_name(preset, n))
        for m in (module,) if untyped else (state, module):
            if not m.__file__.endswith(sysconfig.get_config_var("EXT_SUFFIX")):
                raise SystemExit(f"{m.__name__} is not the compiled module: {m.__file__}")
        install(rs, n, module)
    cpu = time.process_time()
    report = simulate(rs, n, games, 1, check=False)
    cpu = time.process_time() - cpu
    print(json.dumps([cpu, report.steps, report.finished, sorted(report.fools.items())]))


def _run(path: Path, args: list[str]) -> str:
    env = {"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"}
    run = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                         env=env, cwd=path)
    if run.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{run.stderr[-2000:]}")
    return run.stdout


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", help="PRESET:PLAYERS (repeatable)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--untyped", action="store_true",
                        help="compile the programs alone, untyped, Card and State left Python's")
    parser.add_argument("--worker", nargs=3, metavar=("PRESET", "PLAYERS", "MODE"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--write", nargs=3, metavar=("PRESET", "PLAYERS", "FILE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), args.games, args.worker[2] == "mypyc",
               args.untyped)
        return 0
    if args.write:
        Path(args.write[2]).write_text(typed_program(args.write[0], int(args.write[1]),
                                                     not args.untyped))
        return 0
    if importlib.util.find_spec("mypyc") is None:
        print("needs mypyc: pip install mypy", file=sys.stderr)
        return 2
    cases = []
    for case in args.case or CASES:
        preset, _, n = case.partition(":")
        if not n.isdigit():
            parser.error(f"--case {case!r}: PRESET:PLAYERS, as podkidnoy:2")
        cases.append((preset, int(n)))
    with tempfile.TemporaryDirectory() as tmp:
        pure = _checkout(Path(tmp) / "pure")
        untyped = ["--untyped"] if args.untyped else []
        # untyped: the programs alone compiled, beside this checkout's own Card and State
        native = _checkout(Path(tmp) / "mypyc") if untyped else native_copy(Path(tmp) / "mypyc")
        sources = [] if untyped else ["durak_spec/reference_impl/cards.py",
                                      "durak_spec/reference_impl/state.py"]
        for preset, n in cases:
            sources.append(f"{module_name(preset, n)}.py")
            _run(native, ["--write", preset, str(n), str(native / sources[-1]), *untyped])
        start = time.perf_counter()
        build = subprocess.run([sys.executable, "-m", "mypyc", "--follow-imports=silent",
                                "--namespace-packages", "--explicit-package-bases", *sources],
                               capture_output=True, text=True, cwd=native)
        if build.returncode:
            raise SystemExit(f"mypyc failed:\n{(build.stdout + build.stderr)[-3000:]}")
        print(f"mypyc compiled {'' if untyped else 'Card, State and '}{len(cases)} programs"
              f"{' (untyped)' if untyped else ''} in "
              f"{time.perf_counter() - start:.0f} s")
        best: dict = {}
        played: dict = {}
        for _ in range(args.repeats):
            for preset, n in cases:
                for mode, path in (("pure", pure), ("mypyc", native)):
                    out = json.loads(_run(path, ["--worker", preset, str(n), mode, *untyped,
                                                 "--games", str(args.games)]).splitlines()[-1])
                    key = (preset, n, mode)
                    best[key] = min(best.get(key, out[0]), out[0])
                    played[key] = out[1:]
    print(f"\n{'preset':20} {'players':>7} {'pure games/s':>13} {'mypyc':>8} {'ratio':>6}")
    differ = []
    for preset, n in cases:
        p, m = best[(preset, n, "pure")], best[(preset, n, "mypyc")]
        print(f"{preset:20} {n:>7} {args.games / p:13.0f} {args.games / m:8.0f} {p / m:5.2f}x")
        if played[(preset, n, "pure")] != played[(preset, n, "mypyc")]:
            differ.append(f"{preset} at {n}")
    print(f"CPU time, best of {args.repeats} alternating runs of {args.games} games each")
    if differ:
        print(f"FAILED: the compiled programs played other games than pure Python: {', '.join(differ)}")
        return 1
    print("the same games on both (steps, finished games and fools of every run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
