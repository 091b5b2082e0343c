"""Fingerprints of random games under every preset, for showing that a faster interpreter plays
the very same games (issue 26): same legal actions in the same order, same states, same results.

A game is dealt from its seed and played by `random.Random(seed).choice` over its legal actions,
as `durak simulate` plays it. Its digest covers, at every step, the texts of the legal actions in
order, the action chosen and the state after it in the canonical notation (notation.state_json),
and at the end the returns and the step count. Digests are grouped into blocks of seeds: the first
CI_SEEDS seeds (the test), then blocks of BLOCK seeds up to SEEDS (the opt-in run).

`game_hashes.json` beside this file was recorded by the interpreter of commit 7239c17 (main before
the generated program wrote primitives out; 3ca4f9e played the same games), with each preset's rules key: a digest of its active rules'
clause texts, the option values they read, the flow and the definitions, so that a difference
can say whether the rules changed since (then re-record on a commit whose games you trust) or the
interpreter did.

    python tests/reference_impl/game_identity.py            # check all SEEDS seeds (opt-in, minutes)
    python tests/reference_impl/game_identity.py --write    # record (only on a trusted commit)
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

HASHES = Path(__file__).parent / "game_hashes.json"
PLAYERS = (2, 3, 4, 5, 6)
CI_SEEDS = 4      # seeds 0..3 of every preset and player count, in the test
BLOCK = 100       # then seeds in blocks of 100 ...
SEEDS = 1000      # ... up to 1,000 (the opt-in run)


def blocks(seeds: int = SEEDS) -> list[tuple[int, int]]:
    """The seed ranges [start, stop) whose digests are recorded."""
    return [(0, CI_SEEDS)] + [(b, min(b + BLOCK, seeds)) for b in range(0, seeds, BLOCK)]


def game_digest(ruleset, players: int, seed: int) -> bytes:
    """The digest of the random game of `seed`: legal actions, choices, states and result."""
    h = hashlib.sha256()
    game = Game.from_seed(ruleset, players, seed)
    choice = random.Random(seed).choice
    while not game.is_terminal() and game.state.steps < STEP_LIMIT:
        legal = game.legal_actions()
        action = choice(legal)
        game.apply_action(action)
        h.update("|".join(map(str, legal)).encode())
        h.update(f"\n{action}\n".encode())
        h.update(repr(state_json(game.state)).encode())
    h.update(json.dumps([game.returns(), game.state.steps, game.is_terminal()]).encode())
    return h.digest()


def block_digest(ruleset, players: int, start: int, stop: int) -> str:
    h = hashlib.sha256()
    for seed in range(start, stop):
        h.update(game_digest(ruleset, players, seed))
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


def digests(preset: str, players: int, ranges) -> list[str]:
    ruleset = load_spec().ruleset(preset)
    return [block_digest(ruleset, players, a, b) for a, b in ranges]


def record(seeds: int, jobs: int) -> dict:
    spec = load_spec()
    todo = [(p, n) for p in spec.presets for n in player_counts(spec.ruleset(p))]
    with ProcessPoolExecutor(jobs) as pool:
        results = pool.map(digests, *zip(*[(p, n, blocks(seeds)) for p, n in todo]))
        games: dict = {}
        for (p, n), hashes in zip(todo, results):
            games.setdefault(p, {})[str(n)] = hashes
    return {"seeds": seeds, "ci_seeds": CI_SEEDS, "block": BLOCK,
            "rules": {p: rules_key(spec.ruleset(p)) for p in spec.presets}, "games": games}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="record the digests")
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    have = record(args.seeds, args.jobs)
    if args.write:
        HASHES.write_text(json.dumps(have, indent=1, sort_keys=True) + "\n")
        print(f"recorded {HASHES}")
        return 0
    want = json.loads(HASHES.read_text())
    if want["seeds"] != have["seeds"]:
        print(f"the recorded digests cover {want['seeds']} seeds; run with --seeds {want['seeds']}")
        return 2
    bad = [(p, n, i) for p, by_n in want["games"].items() for n, hs in by_n.items()
           for i, h in enumerate(hs) if have["games"].get(p, {}).get(n, [None] * len(hs))[i] != h]
    checked = len(want["games"]) and sum(len(by_n) for by_n in want["games"].values())
    for p, n, i in bad:
        a, b = blocks(want["seeds"])[i]
        changed = " (its rules changed since recording)" if want["rules"].get(p) != have["rules"][p] else ""
        print(f"{p}, {n} players, seeds {a}-{b - 1}: games differ{changed}")
    if not checked:
        print("nothing checked")
        return 3
    print(f"{want['seeds']} games under each of {checked} presets and player counts: "
          f"{'all identical' if not bad else f'{len(bad)} block(s) differ'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
