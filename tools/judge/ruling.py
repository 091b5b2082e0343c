"""`durak judge`: settle a dispute over a concrete position, under one preset or all of them.

A position is a setup in the notation of case setups (reference_impl/game.py, Setup.from_json),
optionally with the disputed action; positions/README.md describes the file. For each variant the
reference interpreter decides the action; the ruling names the rules that decided it (ids, text and
sources stay in spec/), the option values those rules read and where each value comes from, what
happens next, and the variant's position on each dispute concerned (spec/disputes.yaml). Across
presets, options are flipped one at a time to find which disputes make the rulings differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from durak_spec.reference_impl.errors import DurakError, NotationError, SetupError, suggest
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.match import score_deal
from durak_spec.reference_impl.model import options_read, rule_options, value_text
from durak_spec.reference_impl.notation import action_text, parse_action
from durak_spec.reference_impl.spec import Rule, Spec
from durak_spec.reference_impl.state import Action
from durak_spec.reference_impl.yamlio import InputError, load_file

META_FIELDS = ("action", "note", "disputes", "expect")


class PositionError(DurakError):
    """A position file that cannot be read, or a position that cannot occur."""


@dataclass
class Position:
    file: str
    setup: Setup
    action: object = None  # text or JSON form, parsed per game
    note: str | None = None
    disputes: list[str] = field(default_factory=list)
    deck: object = None  # the deck the position was read in (the smallest whose cards it uses)


@dataclass
class Ruling:
    """One variant's answer for a position and (optionally) an action."""

    variant: str
    preset: str
    overrides: dict
    action: str | None
    legal: bool | None = None
    reason: str = ""
    rules: list[tuple[str, Rule]] = field(default_factory=list)  # (role, rule)
    options: list[tuple[str, object, str]] = field(default_factory=list)  # name, value, origin
    outcome: dict | None = None
    legal_actions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    option_values: dict = field(default_factory=dict)  # every option, resolved
    option_origins: dict = field(default_factory=dict)  # default, preset NAME or override
    scoring: dict | None = None  # a finished deal scored as the first deal of a match

    @property
    def forbidding_rule(self) -> str | None:
        return next((r.id for role, r in self.rules if role == "forbids"), None)

    @property
    def key(self) -> tuple:
        """What two rulings must share to agree: verdict, forbidding rule and outcome; without an
        action, the legal actions."""
        if self.action is None:
            return tuple(self.legal_actions)
        return (self.legal, self.forbidding_rule, self.outcome["text"] if self.outcome else None)


# -- reading a position --------------------------------------------------------------------------

def read_position(path, spec: Spec) -> Position:
    """Read a position file: `{setup: {...}, action, note, disputes}`, or the setup fields at
    the top level beside action, note and disputes."""
    try:
        data = load_file(path)
    except InputError as exc:
        raise PositionError(str(exc)) from None
    if not isinstance(data, dict):
        raise PositionError(f"{path}: a position is a mapping with a setup (hands, trump, ...), "
                            f"not {type(data).__name__}")
    if "setup" in data:
        unknown = sorted(set(data) - {"setup", *META_FIELDS})
        if unknown:
            raise PositionError(f"{path}: unknown field(s) {unknown} beside setup; fields: setup, "
                                f"{', '.join(META_FIELDS)}.{suggest(unknown[0], META_FIELDS)}")
        setup_data = data["setup"]
    else:
        setup_data = {k: v for k, v in data.items() if k not in META_FIELDS}
    limits = (spec.deck_data["players"]["min"], spec.deck_data["players"]["max"])
    setup, deck = _read_setup(spec, setup_data, limits, path)
    disputes = data.get("disputes", [])
    if not isinstance(disputes, list):
        raise PositionError(f"{path}: disputes: a list of dispute ids such as [D4], "
                            f"not {disputes!r}")
    for did in disputes:
        if did not in spec.disputes:
            raise PositionError(f"{path}: disputes: unknown dispute "
                                f"{did!r}.{suggest(did, spec.disputes)}")
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        raise PositionError(f"{path}: note: text, not {note!r}")
    return Position(str(path), setup, data.get("action"), note, disputes, deck)


def _card_texts(data) -> list[str]:
    """Every card text a setup names, as often as it names it."""
    texts: list[str] = []

    def walk(x):
        if isinstance(x, str):
            texts.append(x)
        elif isinstance(x, list):
            for y in x:
                walk(y)
    if isinstance(data, dict):
        for key in ("hands", "talon", "table", "trump", "hidden"):
            walk(data.get(key))
    return texts


def _copies(data) -> int:
    """The most times one card's text occurs in a setup's cards (two where two packs are
    shuffled together); 1 when it names no card twice."""
    texts = _card_texts(data)
    return max((texts.count(t) for t in set(texts)), default=1)


def _holds(deck, data) -> bool:
    """Whether the deck has every card the setup names."""
    try:
        for text in set(_card_texts(data)):
            deck.card(text)
    except NotationError:
        return False
    return True


def _decks(spec: Spec, setup_data) -> list:
    """The decks to read a position in, the spec's default deck first, then smallest first: each
    pack of deck.yaml, without and with jokers, in as many copies as the setup names a card."""
    decks = [spec.deck]
    for copies in range(1, min(_copies(setup_data), 8) + 1):
        for pack in spec.deck_data["packs"]:
            for jokers in (False, True):
                deck = spec.make_deck(pack, jokers, copies)
                if all(deck is not d for d in decks):
                    decks.append(deck)
    return sorted(decks, key=lambda d: (d is not spec.deck, len(d.pack)))


def _read_setup(spec: Spec, setup_data, limits, path):
    """The setup read in the smallest deck that holds its cards (a two or a joker belongs to the
    bigger decks; each preset re-reads it in its own deck), and that deck."""
    errors = []
    for deck in _decks(spec, setup_data):
        if deck is not spec.deck and not _holds(deck, setup_data):
            continue  # a card of another deck
        try:
            setup = Setup.from_json(setup_data, deck, limits)
            _check_possible(setup)
            return setup, deck
        except DurakError as exc:
            if deck is spec.deck and _holds(deck, setup_data):
                raise PositionError(f"{path}: {exc}") from None  # the default deck's own cards
            errors.append(exc)
    # the first complaint of a deck that holds the cards, else the default deck's
    raise PositionError(f"{path}: {errors[1] if len(errors) > 1 else errors[0]}") from None


def _check_possible(setup: Setup) -> None:
    """What no sequence of play can produce, beyond what Setup.validate checks. Beaten-off bouts
    move whole attack-and-cover pairs to the discard, so a stated discard count is even and needs
    bouts that were beaten off."""
    if setup.discard is None:
        return
    if setup.discard % 2:
        raise SetupError(f"{setup.discard} cards in the discard; beaten-off bouts discard attack "
                         "cards with their covers, so the count is even", "discard")
    if setup.discard < 2 * setup.beaten_bouts:
        raise SetupError(f"{setup.beaten_bouts} bouts beaten off discard at least "
                         f"{2 * setup.beaten_bouts} cards, not {setup.discard}", "discard")
    if setup.discard and not setup.beaten_bouts:
        raise SetupError(f"{setup.discard} cards in the discard but no bout has been beaten off "
                         "(beaten_bouts is 0)", "discard")


# -- ruling --------------------------------------------------------------------------------------

def _flow_options(spec: Spec, events) -> list[str]:
    texts = [step["when"] for e in events for step in spec.flow.get(e, [])
             if isinstance(step, dict) and "when" in step]
    return options_read(spec, texts)


def misfit(ruleset, position: Position) -> str | None:
    """Why the position cannot be set up with the ruleset's deck (None if it can): its cards,
    or its discard count, belong to another deck."""
    try:
        Game.unsettled(ruleset, Setup.from_json(position.setup.to_json(), ruleset.deck,
                                                ruleset.player_limits))
    except DurakError as exc:
        return str(exc)
    return None


def rule_variant(spec: Spec, ruleset, position: Position, action: Action | None = None) -> Ruling:
    """Judge `action` (or list the legal actions) in `position` under one ruleset."""
    try:
        # the setup in the cards of this variant's deck (decks differ between presets)
        position = replace(position, setup=Setup.from_json(position.setup.to_json(), ruleset.deck,
                                                           ruleset.player_limits))
        game = Game(ruleset, position.setup)
    except RuntimeError:  # the interpreter found nobody able to act
        raise PositionError(f"{position.file}: nobody can act in this position under "
                            f"{ruleset.name}; check the hands, the table and the roles") from None
    except DurakError as exc:
        raise PositionError(f"{position.file}: {exc}") from None
    name = ruleset.preset + "".join(f" {k}={value_text(v)}"
                                    for k, v in sorted(ruleset.overrides.items()))
    ruling = Ruling(name, ruleset.preset, dict(ruleset.overrides), None,
                    option_values=dict(ruleset.options),
                    option_origins=dict(ruleset.option_origins))
    state = game.full_state()
    setup = position.setup
    settled = None  # the bout-end decision that ran before anyone could act
    if state["finished"] or state["bout"] != setup.bout:
        settled = ruleset.decisions["bout_beaten_off" if state["beaten_bouts"] > setup.beaten_bouts
                                    else "bout_taken"].rule
        ruling.notes.append(f"nobody may act in the position as given, so its bout ends at once "
                            f"({settled.id}); the legal actions listed are those after that")
    ruling.legal_actions = [action_text(a) for a in game.legal_actions()]
    if action is None and game.is_terminal():
        ruling.scoring = score_deal(ruleset, game).to_json()
    consulted: list[str] = []
    if action is not None:
        act = game.parse_action(action_text(action))  # the cards of this variant's deck
        ruling.action = action_text(act)
        ruling.legal = settled is None and act in game.legal_actions()
        if ruling.legal:
            ruling.rules = [("allows", cr.rule) for cr in ruleset.legality[act.kind]]
            if act.kind in ruleset.order:
                ruling.rules.append(("order", ruleset.order[act.kind].rule))
            after = game.clone()
            try:
                after.apply_action(act)
            except RuntimeError:  # the interpreter found nobody able to act afterwards
                raise PositionError(f"{position.file}: after {ruling.action} nobody can act under "
                                    f"{name}; check that the position can occur") from None
            ruling.outcome, events = _outcome(state, after.full_state(), act)
            ruling.rules += [("then", ruleset.decisions[d].rule)
                             for d in _decisions(state, ruling.outcome)]
            if after.is_terminal():
                ruling.scoring = score_deal(ruleset, after).to_json()
            if after.is_terminal() and not after.state.redealt:
                ruling.rules += [("scores", ruleset.match_decisions[d].rule)
                                 for d in ("deal_score", "deal_epaulettes", "next_dealer")]
            consulted += _flow_options(spec, [act.kind] + events)
        else:
            rule_id, ruling.reason = _explain(_as_given(ruleset, setup) if settled else game, act,
                                              settled)
            ruling.rules = [("forbids", spec.rule(rule_id))]
            if settled is not None and rule_id != settled.id:
                ruling.rules.append(("settles", settled))
    for _, rule in ruling.rules:
        consulted += rule_options(spec, rule)
    ruling.options = [(n, ruleset.options[n], ruleset.option_origins[n])
                      for n in dict.fromkeys(consulted)]
    return ruling


def _as_given(ruleset, setup: Setup) -> Game:
    """The position exactly as the setup gives it. A Game settles on construction any bout that
    nobody can continue; to name the rule that forbids an action in the position itself, explain()
    runs on the state built from the setup before that settling."""
    return Game.unsettled(ruleset, setup)


def _explain(game: Game, action: Action, settled: Rule | None) -> tuple[str, str]:
    try:
        return game.explain(action)
    except RuntimeError:  # passes every legality rule, yet the bout had to end: that rule decides
        return settled.id, "nobody may act in this position, so the bout ends"


def _outcome(before: dict, after: dict, act: Action | None = None) -> tuple[dict, list[str]]:
    """What the action led to, and the bout-end events that ran."""
    if (after.get("result") or {}).get("redeal"):  # rule deck.redeal: the deal is void
        return {"bout": "redeal", "finished": True, "fool": None, "draw": False, "redeal": True,
                "went_out": [], "drew": False,
                "text": "the deal is called off for a redeal: nobody is the fool, nothing is "
                        "scored, and the same dealer deals again"}, []
    beaten = after["beaten_bouts"] > before["beaten_bouts"]
    ended = beaten or after["bout"] > before["bout"] or after["finished"]
    if not ended:
        out = {"bout": "continues", "attacker": after["attacker"], "defender": after["defender"],
               "taking": after["taking"]}
        text = (f"the bout goes on: seat {after['attacker']} attacks, "
                f"seat {after['defender']} defends")
        out["text"] = text + (" and has said they take" if after["taking"] else "")
        return out, []
    event = "bout_beaten_off" if beaten else "bout_taken"
    out = {"bout": "beaten_off" if beaten else "taken"}
    first = ("the bout is beaten off" if beaten
             else f"seat {before['defender']} picks up the table")
    if not beaten:  # a partial pickup (defence.pickup) sends cards back to the seats that laid them
        on_table = {c for pair in before["table"] for c in pair if c is not None}
        if act is not None and act.card is not None:
            on_table.add(act.card.text)
        back = sum(len(on_table.intersection(h)) for x, h in enumerate(after["hands"])
                   if x != before["defender"])
        out["picked_up"], out["returned"] = len(on_table) - back, back
        if back:
            first = (f"seat {before['defender']} picks up {len(on_table) - back} of the "
                     f"{len(on_table)} cards on the table, and {back} "
                     f"{'goes' if back == 1 else 'go'} back to whoever laid {'it' if back == 1 else 'them'}")
    if after["finished"]:
        result = after["result"] or {}
        out.update(finished=True, fool=result.get("fool"), draw=bool(result.get("draw")))
        out["text"] = f"{first}; the game is over: " + (
            "a draw, nobody is the fool" if out["draw"] else f"seat {out['fool']} is the fool")
    else:
        out.update(finished=False, next_attacker=after["attacker"], next_defender=after["defender"])
        out["text"] = f"{first}; seat {after['attacker']} attacks seat {after['defender']} next"
    out["went_out"] = sorted(set(after["out"]) - set(before["out"]))
    out["drew"] = bool(before["talon"])
    if after["trump"] != before["trump"]:  # a hidden card turned up (deck.changeable_trump)
        out["trump"], out["trump_suit"] = after["trump"], after["trump_suit"]
        out["text"] += (f"; the hidden {after['trump']} is turned up, so "
                        f"{after['trump_suit'] or 'no suit'} is trump from now on")
    return out, [event]


def _decisions(before: dict, outcome: dict) -> list[str]:
    """The decisions (rules with `decides:`) that shaped the outcome."""
    if outcome["bout"] in ("continues", "redeal"):
        return []
    names = ["bout_beaten_off" if outcome["bout"] == "beaten_off" else "bout_taken"]
    if outcome.get("returned"):
        names.append("pickup_count")
    if outcome["drew"]:
        names += ["drawer", "draw_key"]
    if outcome.get("trump"):
        names.append("trump_suit")
    if outcome["went_out"] or outcome["finished"]:
        names.append("out")
    if outcome["finished"]:
        return names + ["game_over", "fool"]
    after = "beaten_off" if outcome["bout"] == "beaten_off" else "take"
    return names + [f"next_attacker_after_{after}", "next_defender"]


# -- comparing variants --------------------------------------------------------------------------

@dataclass
class Differences:
    verdicts_differ: bool
    groups: list[list[str]]  # variant names that rule alike
    options: list[str]  # options whose values make the rulings differ
    disputes: list[str]  # dispute ids decided by those options
    combined: bool = False  # no single option explains it; these options differ together


def compare(spec: Spec, position: Position, action: Action | None,
            rulings: list[Ruling]) -> Differences | None:
    """Group rulings that agree and find the options (and so the disputes) that split them: an
    option counts when setting it, alone, to another group's value changes a variant's ruling."""
    groups: dict[tuple, list[Ruling]] = {}
    for r in rulings:
        groups.setdefault(r.key, []).append(r)
    if len(groups) < 2:
        return None
    decisive: list[str] = []
    candidates: list[str] = []
    cache: dict = {}
    for a in rulings:
        read_a = {n for n, _, _ in a.options} if action is not None else set(spec.options)
        for b in rulings:
            if a.key == b.key:
                continue
            read = read_a | {n for n, _, _ in b.options}
            for name in sorted(read):
                value = b.option_values[name]
                if _same(a.option_values[name], value):
                    continue
                candidates.append(name)
                flip = (a.preset, tuple(sorted(a.overrides.items(), key=str)), name, repr(value))
                if flip not in cache:
                    try:
                        rs = spec.ruleset(a.preset, {**a.overrides, name: value})
                        cache[flip] = rule_variant(spec, rs, position, action).key != a.key
                    except DurakError:  # a combination the spec rejects says nothing here
                        cache[flip] = False
                if cache[flip]:
                    decisive.append(name)
    combined = not decisive
    chosen = list(dict.fromkeys(decisive or candidates))
    disputes = [d.id for d in spec.disputes.values() if set(d.options) & set(chosen)]
    verdicts = {(r.legal, r.outcome["text"] if r.outcome else None, tuple(r.legal_actions)
                 if action is None else ()) for r in rulings}
    return Differences(len(verdicts) > 1, [[r.variant for r in g] for g in groups.values()],
                       chosen, disputes, combined)


def _same(a, b) -> bool:
    return a == b and type(a) is type(b)


def parse_position_action(spec: Spec, position: Position, cli_action: str | None) -> Action | None:
    """The action to judge: --action if given, else the file's `action`, else None."""
    raw, where = (cli_action, "--action") if cli_action is not None else (
        position.action, f"{position.file}: action")
    if raw is None:
        return None
    try:
        return parse_action(raw, position.deck or spec.deck, position.setup.players)
    except DurakError as exc:
        raise PositionError(f"{where}: {exc}") from None


# -- command -------------------------------------------------------------------------------------
