"""Pictures of positions: a setup drawn as SVG (reference_impl/picture.py, shared with the HTML
conformance report), and the reference interpreter's verdict on an action under each variant,
computed at build time.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes

from durak_spec.reference_impl.errors import DurakError
from durak_spec.reference_impl.game import Game, Setup
from durak_spec.reference_impl.picture import position_svg
from durak_spec.reference_impl.yamlio import InputError, load_file

from .directives import DurakDirective, preset_link, rule_link
from .util import fields, joined, literal, para, ref, strong, table

SETUP_FIELDS = {"hands", "talon", "trump", "dealer", "attacker", "defender", "table", "taking",
                "passed", "out", "bout", "beaten_bouts", "discard"}
POSITION_FIELDS = {"title", "setup", "action", "note", "disputes", "expect", "variants"}


def setup_view(game: Game) -> dict:
    """The position as its file gives it (before any bout that cannot go on has ended), in the
    notation of `Game.full_state`; roles the file leaves out are the ones the rules decided."""
    s, first = game.setup, game.state
    return {"hands": [_texts(h) for h in s.hands], "talon": _texts(s.talon), "trump": s.trump.text,
            "trump_suit": s.trump.suit,
            "table": [[a.text, d.text if d is not None else None] for a, d in s.table],
            "attacker": s.attacker if s.attacker is not None else first.attacker,
            "defender": s.defender if s.defender is not None else first.defender,
            "taking": s.taking, "passed": list(s.passed), "out": list(s.out)}


def _texts(cards) -> list[str]:
    return [c.text for c in cards]


def read_position(path: Path) -> dict:
    """A position file of positions/ (see positions/README.md): the setup under `setup`, or its
    fields at the top level beside the others. Raises DurakError naming the file."""
    try:
        pos = load_file(path)
    except InputError as exc:
        raise DurakError(str(exc)) from None
    if not isinstance(pos, dict):
        raise DurakError(f"{path}: a position is a mapping with a setup")
    if "setup" not in pos:
        pos = {"setup": {k: v for k, v in pos.items() if k in SETUP_FIELDS},
               **{k: v for k, v in pos.items() if k not in SETUP_FIELDS}}
    unknown = set(pos) - POSITION_FIELDS
    if unknown:
        raise DurakError(f"{path}: unknown field(s) {sorted(unknown)}; fields: "
                         f"{', '.join(sorted(POSITION_FIELDS | SETUP_FIELDS))}")
    return pos


def judge(pos: dict, data) -> dict:
    """variant -> (game, rule id or '', reason): the reference's verdict on the position's action
    under each variant (rule id '' when the action is legal or there is none)."""
    out = {}
    for v in pos.get("variants") or list(data.rulesets):
        rs = data.rulesets.get(v)
        if rs is None:
            raise DurakError(f"unknown preset {v!r}; presets: {', '.join(data.rulesets)}")
        try:
            game = Game(rs, Setup.from_json(pos["setup"], rs.deck, rs.player_limits))
        except DurakError:
            if pos.get("variants"):
                raise
            continue  # the position's cards or discard count are of another variant's deck
        rule_id, reason = "", ""
        if pos.get("action"):
            try:
                rule_id, reason = game.explain(game.parse_action(pos["action"]))
            except DurakError as exc:
                raise DurakError(f"action {pos['action']!r}: {exc}") from None
        out[v] = (game, rule_id, reason)
    return out


def position_areas(pos: dict, data) -> set[str]:
    """Rule areas a position illustrates: those of the rules that refuse its action under some
    variant, and of the rules of the disputes it is about."""
    rules = {rule for _g, rule, _r in judge(pos, data).values() if rule}
    for did in pos.get("disputes") or []:
        rules |= set(data.disputes.get(did, {}).get("rules", []))
    return {data.spec.rules_by_id[r].area for r in rules if r in data.spec.rules_by_id}


class PositionDirective(DurakDirective):
    """``.. durak-position:: positions/file.yaml`` (a path in the checkout): the position drawn,
    its note and disputes, and the reference interpreter's verdict on its action per preset."""

    required_arguments = 1

    def run(self):
        data = self.data()
        path = data.root / self.arguments[0]
        self.env.note_dependency(str(path))
        try:
            pos = read_position(path)
            games = judge(pos, data)
        except DurakError as exc:
            self.fail(str(exc))
        view = setup_view(next(iter(games.values()))[0])
        action = str(pos.get("action") or "")
        marked = set(action.replace(" with ", " ").split()[2:])
        title = pos.get("title") or pos.get("note") or self.arguments[0]
        figure = nodes.container(classes=["durak-position"])
        figure += nodes.raw("", position_svg(view, title, marked), format="html")
        out = [figure]
        if pos.get("note"):
            out.append(para(pos["note"]))
        facts = [("Trump", view["trump"]), ("File", [literal(self.arguments[0])])]
        if pos.get("disputes"):
            facts.append(("Disputes", joined([ref(f"dispute.{d}", d) for d in pos["disputes"]])))
        out.append(fields(facts))
        if action:
            out.append(self._verdicts(action, games))
        return out

    def _verdicts(self, action: str, games: dict) -> nodes.Node:
        rows = []
        for variant, (_game, rule_id, reason) in games.items():
            verdict = ([strong("accepted")] if not rule_id else
                       [strong("refused"), nodes.Text(" by "), rule_link(rule_id),
                        nodes.Text(f": {reason}")])
            rows.append([[preset_link(variant)], verdict])
        caption = para("The reference interpreter's verdict on ", literal(action),
                       ", computed when these pages were built:")
        return nodes.container("", caption, table(["variant", "verdict"], rows, [3, 9]),
                               classes=["durak-verdicts"])


DIRECTIVES = {"durak-position": PositionDirective}
