"""Problems, not failures: what a run found, grouped by root cause (DESIGN.md principle 10).

One bug of an engine shows in many case runs (every case that touches it, under every preset, at
every player count) and in many fuzz games. A report leads with problems: one per rule that
decides the failures (computed by the reference, reference_impl/diagnose.py) and per family of
difference (what the engine allows or refuses, a state it reaches, an error it answers with),
each with its count of failing runs, the cases, presets and player counts it shows under, the
shortest run that reproduces it and the command for it.

Advice ("your engine plays as if X = Y: declare it as a house rule") is given only when it is
confirmed: the reference under X = Y reproduces every observation of the engine in the whole run
(`Evidence`: every case run and fuzz game so far, passing ones included), not only the failing
prefix the counterfactual search (diagnose.search_options) looked at. Otherwise the problem says
"no option explains this: rule R", and so do the failures it groups.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.model import value_text
from durak_spec.reference_impl.observation import Observation

MAX_CANDIDATES = 6  # advices tried per problem, most frequent first
MAX_LISTED = 200    # cases listed per problem


@dataclass
class Evidence:
    """Everything the engine was observed to do in a run: one game (a case run or a fuzz game)
    per `add`, with its ruleset, setup, observations, and the differences reported in it: marks
    (index of the observation, the record that reports it)."""

    games: list = field(default_factory=list)   # (ruleset, setup, [Observation], marks)
    _verdicts: dict = field(default_factory=dict, repr=False)
    # where the run did not look: change -> whether the engine plays as the reference under it
    # there (durak check's Session.plays_as: the cases it skipped for that very value); None: no one
    probe: object = field(default=None, repr=False)

    def add(self, ruleset, setup, observations: list[Observation], marks=()) -> None:
        if observations:
            self.games.append((ruleset, setup, list(observations), list(marks)))
            self._verdicts = {k: v for k, v in self._verdicts.items() if v is False}

    def confirms(self, change: dict, others=()) -> bool:
        """The reference under each game's variant changed by `change` reproduces every game.
        Where a game shows a difference of `others` (records of other problems: another bug of
        the engine), that observation is left out (its action still counts, when play went on
        after it); what led up to it counts."""
        skip = {id(r) for r in others}
        key = (tuple(sorted((k, repr(v)) for k, v in change.items())), frozenset(skip))
        if key not in self._verdicts:
            games = sorted(self.games, key=lambda g: not g[3])
            self._verdicts[key] = bool(games) and _reproduced(games, change, skip)
        return self._verdicts[key]

    def explains(self, change: dict, records, others=()) -> bool:
        """The reference under each game's variant changed by `change` reproduces every game in
        which one of `records` shows, their differences included (those of `others` left out,
        as confirms does)."""
        mine = {id(r) for r in records}
        games = [g for g in self.games if any(id(r) in mine for _, r in g[3])]
        return bool(games) and _reproduced(games, change, {id(r) for r in others} - mine)


def _reproduced(games: list, change: dict, skip: set) -> bool:
    """The reference under each game's variant changed by `change` reproduces each of `games`,
    the observations at the differences of records `skip` (ids) left out, and those at the others
    narrowed to what they compare."""
    from durak_spec.reference_impl.diagnose import leave_out, reproduces, variant_ruleset

    for ruleset, setup, observations, marks in games:
        observations = _narrowed(leave_out(observations, [i for i, r in marks if id(r) in skip]),
                                 [(i, r) for i, r in marks if id(r) not in skip])
        try:
            rs = variant_ruleset(ruleset.spec, ruleset.preset, {**ruleset.options, **change})
        except DurakError:
            return False
        if not reproduces(rs, setup, observations):
            return False
    return True


def _narrowed(observations: list, marks: list) -> list:
    """The observations with each one at a difference of this problem (`marks`) narrowed to what
    that difference compares (the verdict; the legal set; a state field, with whether the
    engine's game is over there where it told: a variant that ends the game at that step would
    otherwise reproduce any role, which no finished game compares): the engine's state and legal
    set asked for there, to diagnose it, may show another bug no step compared, since the case
    ended at it."""
    if not marks:
        return observations
    out = list(observations)
    for i, record in marks:
        if not 0 <= i < len(out):
            continue
        obs, check = out[i], (record.get("check") if isinstance(record, dict) else
                              getattr(record, "check", None)) or ""
        if check == "legal":
            out[i] = Observation(obs.action, obs.accepted, legal=obs.legal)
        elif check.startswith("state.") and isinstance(obs.state, dict) and check[6:] in obs.state:
            kept = (check[6:],) + (("finished",) if "finished" in obs.state else ())
            out[i] = Observation(obs.action, obs.accepted, state={k: obs.state[k] for k in kept})
        else:
            out[i] = Observation(obs.action, obs.accepted)
    return out


class _Difference:
    """A later difference of a case run (runner.Result.differences), shaped as a record."""

    def __init__(self, run, data: dict):
        self.run, self.data = run, data

    def __getattr__(self, name):
        if name in ("case", "variant", "reproduce", "players", "status", "steps_run"):
            return getattr(self.run, name)
        return self.data.get(name)

    def __setattr__(self, name, value):
        if name in ("run", "data"):
            object.__setattr__(self, name, value)
        else:
            self.data[name] = value


def _records(results) -> list:
    out = []
    for r in results:
        if r.status in ("fail", "error"):
            out.append(r)
            out += [_Difference(r, d) for d in getattr(r, "differences", None) or []]
    return out


def _identity(record):
    return record.data if isinstance(record, _Difference) else record


def advice_text(change: dict) -> str:
    return " and ".join(f"`{k} = {value_text(v)}`" for k, v in change.items())


def advice_message(advice: dict | None, rule: str | None) -> str:
    if advice:
        return f"your engine plays as if {advice_text(advice)}: declare it as a house rule"
    if rule:
        return f"no option explains this: rule {rule}"
    return "the reference names no rule for this difference"


def kind_of(r) -> str:
    """What the engine does wrong in one failing run: allows (what the reference forbids),
    refuses (what it allows), allows and refuses, state.<field>, rule (names another rule for a
    rejection), or error."""
    if r.status == "error":
        return "error"
    check = r.check or ""
    if check == "verdict":
        return "allows" if str(r.have).startswith("accepted") else "refuses"
    if check == "legal" and isinstance(r.want, list) and isinstance(r.have, list):
        extra, missing = set(map(str, r.have)) - set(map(str, r.want)), \
            set(map(str, r.want)) - set(map(str, r.have))
        return "allows and refuses" if extra and missing else "allows" if extra else "refuses"
    return check or r.status


_NUMBERS = re.compile(r"\d+(\.\d+)?")
_QUOTED = re.compile(r"(?<!\w)('[^']*'|\"[^\"]*\")")  # not an apostrophe (the engine's)
_BRACKETED = re.compile(r"\([^()]*\)?|\[[^\[\]]*\]?")  # a ruleset, a position, a list


def error_signature(message: str) -> str:
    """An engine error's kind and message without its particulars (numbers, quoted values, what
    the runner did next): errors that differ only in those are one problem."""
    text = str(message).split("; restart")[0].split("; seen ")[0]  # (fuzz's count of it)
    text = _QUOTED.sub("'...'", _NUMBERS.sub("N", _BRACKETED.sub("(...)", text)))
    return text[:160]


def error_key(message: str) -> str:
    """A short digest of error_signature(message): durak fuzz's signature of an engine error
    carries it, so that two errors of one command (a KeyError at a take, a ZeroDivisionError at a
    cover) are two divergences, each with its own witness, and the same error at other cards is one."""
    return hashlib.sha1(error_signature(message).encode()).hexdigest()[:6]


def _family(kind: str) -> str:
    if kind in ("allows", "refuses", "allows and refuses", "legal"):
        return "permission"
    if kind.startswith("state"):
        return "state"
    return kind


def _group_key(r) -> tuple:
    kind = kind_of(r)
    if kind == "error":
        return (None, "error: " + error_signature(r.message))
    return (getattr(r, "rule", None), _family(kind))


def _length(r) -> tuple:
    """The shortest run first: the earliest failing step, then the fewest steps played."""
    step = r.step if isinstance(r.step, int) else 10 ** 6
    return (step, getattr(r, "steps_run", 0) or 0, len(r.case), r.case, r.variant)


def _kind_text(kinds: list[str]) -> str:
    directions = set()
    states = []
    for k in kinds:
        if k == "allows and refuses":
            directions |= {"allows", "refuses"}
        elif k in ("allows", "refuses"):
            directions.add(k)
        elif k not in states:
            states.append(k)
    parts = [" and ".join(d for d in ("allows", "refuses") if d in directions)] if directions else []
    return ", ".join(parts + sorted(states))


def what_the_engine_does(kind: str) -> str:
    """A problem's `kind` as a reader is told it: "the engine allows and refuses", "the engine's
    state.hands differs", "the engine answers with an error"."""
    does, differs = [], []
    for part in str(kind or "").split(", "):
        if part.startswith("state."):
            differs.append(part)
        elif part == "error":
            does.append("answers with an error")
        elif part == "rule":
            does.append("names another rule for a rejection")
        elif part:
            does.append(part)
    fields = f"{' and '.join(differs)} differ{'s' if len(differs) == 1 else ''}" if differs else ""
    if not does:
        return f"the engine's {fields}" if fields else "the engine differs"
    return f"the engine {', '.join(does)}" + (f"; its {fields}" if fields else "")


def _players(r):
    return getattr(r, "players", None)


def find_problems(results, evidence: Evidence | None = None) -> list[dict]:
    """The problems of a run's failing records (Result-shaped: runner.Result, or fuzz's), most
    failing runs first. With `evidence`, each problem's advice is confirmed against the whole run,
    and the records' diagnoses and messages say what was confirmed."""
    groups: dict = {}
    records = _records(results)
    _join_shown(records)
    for r in records:
        groups.setdefault(_group_key(r), []).append(r)
    advices: dict = {}
    for (rule, family), runs in groups.items():
        others = [_identity(r) for key, rs in groups.items() if key != (rule, family) for r in rs]
        if family == "error":
            advice = None
        elif evidence is not None:
            advice = _confirmed_advice(runs, evidence, others)
        else:  # records confirmed on their own (durak fuzz's): advice they all agree on
            given = [(getattr(r, "diagnosis", None) or {}).get("advice") for r in runs]
            advice = given[0] if given[0] and all(a == given[0] for a in given) else None
        advices[(rule, family)] = advice
    if evidence is not None:
        _beside_advised(groups, advices, evidence)
        _join_explained(groups, advices, evidence)
    out = []
    for (rule, family), runs in groups.items():
        runs.sort(key=_length)
        kinds = list(dict.fromkeys(kind_of(r) for r in runs))
        advice = advices[(rule, family)]
        if evidence is not None and family != "error":
            for r in runs:
                _settle(r, advice, rule)
        first = runs[0]
        out.append({
            "rule": rule,
            "kind": "error" if family.startswith("error") else _kind_text(kinds),
            "count": sum({(r.case, r.variant): getattr(r, "occurrences", 1) or 1
                          for r in runs}.values()),
            "cases": sorted({r.case for r in runs})[:MAX_LISTED],
            "presets": sorted({r.variant for r in runs}),
            "players": sorted({p for r in runs if (p := _players(r)) is not None}),
            "advice": advice,
            "message": (error_signature(first.message) if family.startswith("error")
                        else advice_message(advice, rule)),
            "example": {"case": first.case, "variant": first.variant, "step": first.step,
                        "action": first.action, "check": first.check, "want": first.want,
                        "have": first.have, "message": first.message},
            "reproduce": first.reproduce,
        })
    out.sort(key=lambda p: (-p["count"], str(p["rule"]), p["kind"]))
    return out


def _alternatives(r) -> list:
    """Other rules one change of which explains the record's difference as well: as small a change
    (`alternatives`) or a larger one (`larger`)."""
    diagnosis = getattr(r, "diagnosis", None) or {}
    return list(dict.fromkeys((diagnosis.get("alternatives") or []) + (diagnosis.get("larger") or [])))


def _join_shown(records) -> None:
    """A difference that several rules explain (diagnose's `alternatives`, and `larger`: an
    engine that lists no cover where the earliest card cannot be beaten is held to it, or cannot
    beat with those cards; one that serves the attackers in seat order after a take serves a
    player whose pass is kept, or serves in another order) is the run's problem that other
    failures show plainly: its rule becomes the other rule that decides failures explained by no
    other rule, where the rule it was given decides none of them. The run's evidence settles what
    one step cannot. A failure named by one player's record kept otherwise (a pass: diagnose's
    `local`) shows no rule plainly: that change fits its step whatever the engine did before, where
    a change of a rule's clause must fit the whole game (BrokenOneMoveSiegeEngine: one refusal late
    in a 4-player game, where the other seats' throws refute the change of the timing rule and the
    opener's pass kept still fits, took the 103 records naming the timing rule first)."""
    plain: dict = {}
    for r in records:
        rule, diagnosis = getattr(r, "rule", None), getattr(r, "diagnosis", None) or {}
        if r.status != "error" and rule and not _alternatives(r) and not diagnosis.get("local"):
            plain[rule] = plain.get(rule, 0) + 1
    for r in records:
        rule = getattr(r, "rule", None)
        others = [a for a in _alternatives(r) if plain.get(a)]
        if others and not plain.get(rule):
            _rename(r, max(others, key=lambda a: plain[a]))


def _join_explained(groups: dict, advices: dict, evidence: Evidence) -> None:
    """A problem no option explains whose every game the confirmed advice of another problem
    reproduces, its differences included, is that problem: the house rule the engine plays
    explains it too, and the rule it was named by (a one-place change of another rule that
    happens to do the same at that step) is no bug of the engine. It joins the problem of the
    same family first, else the one with the most failing runs."""
    advised = sorted((key for key, a in advices.items() if a), key=lambda k: -len(groups[k]))
    for key in [k for k, a in advices.items() if not a and k[1] != "error"]:
        for target in sorted(advised, key=lambda k: k[1] != key[1]):
            others = [_identity(r) for k, rs in groups.items() if k not in (key, target) for r in rs]
            if evidence.explains(advices[target], [_identity(r) for r in groups[key]], others):
                for r in groups[key]:
                    _rename(r, target[0])
                groups[target] += groups.pop(key)
                break


def _rename(r, rule: str | None) -> None:
    """The record now names `rule`, no longer among its alternatives; the rule it named is kept
    under `also`."""
    given = getattr(r, "rule", None)
    if given == rule:
        return
    r.rule = rule
    if isinstance(getattr(r, "diagnosis", None), dict):
        r.diagnosis["rule"] = rule
        for name in ("alternatives", "larger"):
            r.diagnosis[name] = [a for a in r.diagnosis.get(name) or [] if a != rule]
        r.diagnosis["also"] = list(dict.fromkeys([g for g in [given] if g] +
                                                 (r.diagnosis.get("also") or [])))


def _beside_advised(groups: dict, advices: dict, evidence: Evidence) -> None:
    """A problem no option explains alone, where other problems are explained by confirmed
    advice: the engine plays those house rules everywhere, and what they change after their own
    differences (cards a draw dealt in another order, played later) is no observation of theirs
    that confirms leaves out. Its candidates are confirmed with those values beside them (with
    none of them changed): an engine filling hands to seven that draws counterclockwise too was
    advised draw_order but not hand_size = 7."""
    advised = [a for a in advices.values() if a]
    base: dict = {}
    for a in advised:
        if any(k in base and base[k] != v for k, v in a.items()):
            return  # two problems advise two values of one option: no base to add to
        base.update(a)
    if not base:
        return
    for key in [k for k, a in advices.items() if not a and k[1] != "error"]:
        others = [_identity(r) for k, rs in groups.items() if k != key for r in rs]
        candidates = [c for c in _candidates(groups[key]) if not set(c) & set(base)]
        found = confirmed_advice([{**base, **c} for c in candidates], evidence, others)
        if found:
            advices[key] = {k: v for k, v in found.items() if k not in base}


def _candidates(runs) -> list:
    """The variants the runs' explanations name, most frequent first (MAX_CANDIDATES)."""
    counts: dict = {}
    for r in runs:
        for change in (getattr(r, "diagnosis", None) or {}).get("as_if") or []:
            if isinstance(change, dict) and change:
                key = tuple(sorted(change.items(), key=lambda kv: kv[0]))
                counts[key] = counts.get(key, 0) + 1
    return [dict(k) for k in sorted(counts, key=lambda k: (-counts[k], len(k)))[:MAX_CANDIDATES]]


def _confirmed_advice(runs, evidence: Evidence, others: list) -> dict | None:
    """The most frequent variant among the runs' explanations that the whole run confirms (all
    but the differences of the other problems, `others`: one bug does not veto another's
    advice)."""
    return confirmed_advice(_candidates(runs), evidence, others)


def confirmed_advice(candidates: list, evidence: Evidence, others=()) -> dict | None:
    """The first of `candidates` (variants, {option: value}) that the whole run confirms, when
    the run singles out the house rule: where a candidate that changes other options is
    confirmed too, the run cannot tell which house rule the engine plays (a trump that beats no
    plain card, seen only against a spade, is as much `spades_only_by_spades` as `trump = none`),
    and a guess would hide the bug as often as name the house rule: no advice. Values of the same
    option that the run does not tell apart (no Weli, or a Weli of a suit never played) name one
    house rule; the first, the nearest, is advised."""
    confirmed = [c for c in candidates if evidence.confirms(c, others)
                 and (evidence.probe is None or evidence.probe(c))]
    # a candidate that adds a change to another confirmed one explains nothing more
    confirmed = [c for c in confirmed if not any(o != c and o.items() <= c.items() for o in confirmed)]
    if not confirmed:
        return None
    if any(set(c) != set(confirmed[0]) for c in confirmed[1:]):
        return None
    return confirmed[0]


def _settle(r, advice: dict | None, rule: str | None) -> None:
    """Make one failing run say what its problem says: the confirmed advice, or none."""
    diagnosis = getattr(r, "diagnosis", None)
    if not isinstance(diagnosis, dict):
        return
    old = diagnosis.get("message")
    new = advice_message(advice, rule or diagnosis.get("rule"))
    diagnosis["advice"] = advice
    diagnosis["message"] = new
    if old and old != new and isinstance(r.message, str):
        if r.message.endswith(old):
            r.message = r.message[: len(r.message) - len(old)] + new
        elif advice or old.startswith("your engine plays as if"):
            r.message = f"{r.message}; {new}"
