"""Fingerprints of random games under every preset, for showing that a faster interpreter plays
the very same games (issue 26): same legal actions in the same order, same states, same results.

A game is dealt from its seed and played by `random.Random(seed).choice` over its legal actions,
as `durak simulate` plays it. Its full digest covers, at every step, the texts of the legal actions
in order, the action chosen and the state after it in the canonical notation (notation.state_json),
and at the end the returns and the step count: the test checks it for the first CI_SEEDS seeds of
every preset and player count (`game_hashes.json`). The opt-in run checks seeds 0 to SEEDS - 1 in
blocks of BLOCK with a lighter digest, for the time it takes: at every step the number of legal
actions and the action chosen, the state at the end of every bout and of the game
(`game_hashes_1000.json`).

Both were recorded by the interpreter of commit 7239c17 (main before the generated program wrote
primitives out; 3ca4f9e played the same games); the rulings of 8ef2e92 then changed the games of
marmot_tournament, summary, perevodnoy_passport and the team presets, whose test digests were
re-recorded with every primitive called (not written out), and their long-run digests on 4a3abf6
(whose games at seeds 0-3 are those test digests) with --write --preset, as were those of
podkidnoy_trump_exchange, whose games changed with 762f86a. Each preset's rules key: a digest of
its active rules' clause texts, the option values they read, the flow and the definitions, so
that a difference can say whether the rules changed since (then re-record on a commit whose games
you trust) or the interpreter did.

    python tests/reference_impl/game_identity.py               # the opt-in run (many minutes)
    python tests/reference_impl/game_identity.py --write       # record it (on a trusted commit)
    python tests/reference_impl/game_identity.py --write --preset P   # record P's, keep the rest
    python tests/reference_impl/game_identity.py --write-ci    # record the test's digests
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from durak_spec.reference_impl.game import Game
from durak_spec.reference_impl.notation import state_json
from durak_spec.reference_impl.simulate import STEP_LIMIT
from durak_spec.reference_impl.spec import load_spec

HASHES = Path(__file__).parent / "game_hashes.json"  # the test's: seeds 0..CI_SEEDS-1, full digests
LONG = Path(__file__).parent / "game_hashes_1000.json"  # the opt-in run's
PLAYERS = (2, 3, 4, 5, 6)
CI_SEEDS = 4      # seeds 0..3 of every preset and player count, in the test
BLOCK = 100       # the opt-in run: seeds in blocks of 100 ...
SEEDS = 1000      # ... up to 1,000


def blocks(seeds: int = SEEDS) -> list[tuple[int, int]]:
    """The seed ranges [start, stop) of the long run's digests."""
    return [(b, min(b + BLOCK, seeds)) for b in range(0, seeds, BLOCK)]


def game_digest(ruleset, players: int, seed: int, full: bool = True) -> bytes:
    """The digest of the random game of `seed`: legal actions, choices, states and result. Not
    `full` (the 1,000-seed blocks, for the time they take): at every step the number of legal
    actions and the action chosen, the state at every bout's end and at the end of the game."""
    h = hashlib.sha256()
    game = Game.from_seed(ruleset, players, seed)
    choice = random.Random(seed).choice
    state = game.state
    while not game.is_terminal() and state.steps < STEP_LIMIT:
        legal = game.legal_actions()
        action = choice(legal)
        game.apply_action(action)
        if full:
            h.update("|".join(map(str, legal)).encode())
            h.update(f"\n{action}\n".encode())
            h.update(repr(state_json(state)).encode())
        else:
            h.update(f"{len(legal)} {action}\n".encode())
            if not state.table:
                h.update(repr(state_json(state)).encode())
    if not full:
        h.update(repr(state_json(state)).encode())
    h.update(json.dumps([game.returns(), state.steps, game.is_terminal()]).encode())
    return h.digest()


def block_digest(ruleset, players: int, start: int, stop: int, full: bool = True) -> str:
    h = hashlib.sha256()
    for seed in range(start, stop):
        h.update(game_digest(ruleset, players, seed, full))
    return h.hexdigest()[:16]


def player_counts(ruleset) -> list[int]:
    lo, hi = ruleset.player_limits
    return [n for n in PLAYERS if lo <= n <= hi]


def rules_key(ruleset) -> str:
    """A digest of what the games of `ruleset` follow from in spec/, not of how it is run."""
    spec = ruleset.spec
    rules = sorted((r.id, r.clause, r.key, r.decides, ruleset._read_key(r.clause or r.key or ""))
                   for r in ruleset.active_rules)
    definitions = sorted((n, d.clause) for n, d in spec.definitions.items())
    text = repr((rules, definitions, spec.flow, ruleset._deck_key()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def digests(preset: str, players: int, ranges, full: bool) -> list[str]:
    ruleset = load_spec().ruleset(preset)
    return [block_digest(ruleset, players, a, b, full) for a, b in ranges]


def record(ranges, full: bool, jobs: int, only=None, progress=None) -> dict:
    """The digests of the seed `ranges` of every preset and player count (or those in `only`);
    `progress(partial)` after each."""
    spec = load_spec()
    todo = [(p, n) for p in spec.presets for n in player_counts(spec.ruleset(p))
            if only is None or (p, str(n)) in only]
    out = {"ranges": ranges, "complete": False,
           "rules": {p: rules_key(spec.ruleset(p)) for p in spec.presets}, "games": {}}
    with ProcessPoolExecutor(jobs) as pool:
        results = pool.map(digests, *zip(*[(p, n, ranges, full) for p, n in todo]))
        for (p, n), hashes in zip(todo, results):
            out["games"].setdefault(p, {})[str(n)] = hashes
            if progress:
                progress(out)
    out["complete"] = True
    return out


def _writer(path: Path):
    return lambda partial: path.write_text(json.dumps(partial, indent=1, sort_keys=True) + "\n")


def _write_presets(presets: list[str], jobs: int) -> int:
    """Record the long run's digests of `presets` at every player count into the recorded file,
    over its seed ranges, keeping the other presets' digests; the file is complete once every
    preset and player count of the spec is in it."""
    spec = load_spec()
    unknown = sorted(set(presets) - set(spec.presets))
    if unknown:
        print(f"unknown preset(s) {', '.join(unknown)}")
        return 2
    have = json.loads(LONG.read_text())
    ranges = [tuple(r) for r in have["ranges"]]
    only = {(p, str(n)) for p in presets for n in player_counts(spec.ruleset(p))}
    new = record(ranges, False, jobs, only)
    for p in presets:
        have["games"][p] = new["games"][p]
        have["rules"][p] = new["rules"][p]
    have["complete"] = all(sorted(have["games"].get(p, {})) == sorted(str(n) for n in player_counts(
        spec.ruleset(p))) for p in spec.presets)
    _writer(LONG)(have)
    print(f"recorded {', '.join(presets)} in {LONG}{'' if have['complete'] else ' (still incomplete)'}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help="record the long run's digests (written as each is done)")
    parser.add_argument("--write-ci", action="store_true", help="record the test's digests")
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--preset", action="append", help="check only these presets (repeatable)")
    args = parser.parse_args(argv)
    if args.write and args.preset:  # these presets' long-run digests, the others kept
        return _write_presets(args.preset, args.jobs)
    if args.write_ci or args.write:
        path = HASHES if args.write_ci else LONG
        ranges = [(0, CI_SEEDS)] if args.write_ci else blocks(args.seeds)
        _writer(path)(record(ranges, bool(args.write_ci), args.jobs, progress=_writer(path)))
        print(f"recorded {path}")
        return 0
    want = json.loads(LONG.read_text())
    ranges = [tuple(r) for r in want["ranges"]]
    only = {(p, n) for p, by_n in want["games"].items() for n in by_n
            if not args.preset or p in args.preset}
    every = sum(len(by_n) for by_n in want["games"].values())
    have = record(ranges, False, args.jobs, only)
    bad = [(p, n, i) for p, n in sorted(only) for i, h in enumerate(want["games"][p][n])
           if have["games"][p][n][i] != h]
    for p, n, i in bad:
        a, b = ranges[i]
        changed = " (its rules changed since recording)" if want["rules"].get(p) != have["rules"][p] else ""
        print(f"{p}, {n} players, seeds {a}-{b - 1}: games differ{changed}")
    print(f"seeds {ranges[0][0]}-{ranges[-1][1] - 1} under each of {len(only)} presets and player "
          f"counts: {'all identical' if not bad else f'{len(bad)} block(s) differ'}")
    if bad:
        return 1
    if not want.get("complete") or not only or len(only) < every:
        print(f"TESTED TOO LITTLE: {len(only)} presets and player counts checked of "
              f"{every} recorded{'' if want.get('complete') else ' (the recording is not complete)'}")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
