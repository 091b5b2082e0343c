"""durak replay: game logs from other engines, checked step by step against the spec."""

from __future__ import annotations

import json
import re

import jsonschema
from cli_support import run

from durak_spec.conformance.protocol import SCHEMAS, _registry


def _recorded(tmp_path, players=2, seed=3):
    path = tmp_path / "own.jsonl"
    assert run("simulate", "--games", "1", "--players", str(players), "--seed", str(seed),
               "--record", str(path)).exit_code == 0
    return [json.loads(line) for line in path.read_text().splitlines()]


def _sparse_log(lines):
    """What a less chatty engine logs: the action text and two state fields."""
    out = [{"trace": "durak-spec", "format": 1, "engine": "elsewhere 1.0", "setup": lines[0]["setup"]}]
    for obj in lines[1:]:
        a, st = obj["action"], obj["state"]
        text = f"{a['seat']} {a['kind']}" + (f" {a['target']} with {a['card']}" if a["kind"] == "cover"
                                              else f" {a['card']}" if "card" in a else "")
        out.append({"action": text, "state": {"hand_sizes": [len(h) for h in st["hands"]],
                                              "attacker": st["attacker"]}})
    return out


def _write(tmp_path, lines, name="log.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return str(path)


def test_a_sparse_log_of_a_legal_game_replays(tmp_path):
    log = _sparse_log(_recorded(tmp_path))
    result = run("replay", _write(tmp_path, log), "--variant", "podkidnoy")
    assert result.exit_code == 0 and f"{len(log) - 1} steps replayed" in result.output


def test_every_line_of_a_log_validates_against_the_trace_schema(tmp_path):
    schema = json.loads((SCHEMAS / "trace-line.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema, registry=_registry())
    lines = _recorded(tmp_path)
    for line in lines + _sparse_log(lines) + [{"result": {"fool": 1}}]:
        validator.validate(line)


def test_the_first_illegal_step_is_named_with_its_rule_line_and_position(tmp_path):
    log = _sparse_log(_recorded(tmp_path))
    first = log[1]["action"]
    seat = int(first.split()[0])
    log[1]["action"] = f"{1 - seat} attack {first.split()[2]}"  # the wrong seat opens
    result = run("replay", _write(tmp_path, log), "--format", "json")
    out = json.loads(result.output)
    assert result.exit_code == 1 and out["line"] == 2 and out["steps"] == 0
    assert out["rule"] in ("attack.opener", "play.active_seat", "play.own_card")
    assert "table:" in out["position"]


def test_a_logged_state_that_the_spec_contradicts_is_reported(tmp_path):
    log = _sparse_log(_recorded(tmp_path))
    log[3]["state"]["hand_sizes"] = [9, 9]
    result = run("replay", _write(tmp_path, log))
    assert result.exit_code == 1 and ":4:" in result.output and "state.hand_sizes" in result.output


def test_a_logged_refusal_of_a_legal_action_is_reported(tmp_path):
    log = _sparse_log(_recorded(tmp_path))
    log.insert(1, {"action": log[1]["action"], "accepted": False})
    result = run("replay", _write(tmp_path, log))
    assert result.exit_code == 1 and "which the spec allows" in result.output


def test_a_result_line_with_the_wrong_fool_is_reported(tmp_path):
    lines = _recorded(tmp_path)
    fool = lines[-1]["state"]["result"]["fool"]
    log = _sparse_log(lines) + [{"result": {"fool": 0 if fool == 1 else 1}}]
    result = run("replay", _write(tmp_path, log))
    assert result.exit_code == 1 and "end.fool" in result.output
    log[-1] = {"result": {"fool": fool}}
    assert run("replay", _write(tmp_path, log)).exit_code == 0


def test_a_truncated_or_malformed_log_names_its_line(tmp_path):
    log = _sparse_log(_recorded(tmp_path))
    path = _write(tmp_path, log)
    text = open(path).read()
    cut = text[: text.index("\n", text.index("\n") + 1) + 15]
    open(path, "w").write(cut)
    result = run("replay", path)
    # (the test's own folder name holds "truncated": look at what follows the file name)
    said = result.output.split(path, 1)[1]
    assert result.exit_code == 2 and said.startswith(": line 3: not JSON")
    assert "the log may be cut short (its last line has no newline)" in said
    open(path, "w").write(cut + "\n" + json.dumps(log[2]) + "\n")  # a bad line, then more
    said = run("replay", path).output.split(path, 1)[1]
    assert said.startswith(": line 3: not JSON") and "cut short" not in said
    open(path, "w").write(json.dumps(log[0]) + "\n" + json.dumps({"move": "0 attack 6S"}) + "\n")
    result = run("replay", path)
    assert result.exit_code == 2 and "line 2" in result.output and "action" in result.output


def test_replay_names_the_rule_and_the_option_behind_a_state_that_differs(spec, tmp_path):
    """A log of an engine that draws counterclockwise, replayed as podkidnoy: the first state
    that differs is charged to draw.order, and the option that explains it is found."""
    from durak_spec.reference_impl.game import Game
    from durak_spec.reference_impl.trace import Recorder, replay

    rs = spec.ruleset("podkidnoy", {"draw_order": "attacker_counterclockwise_defender_last"})
    for seed in range(30):
        recorder = Recorder(Game.from_seed(rs, 4, seed))
        while not recorder.game.is_terminal() and len(recorder.lines) < 300:
            recorder.apply(recorder.game.legal_actions()[0])
        result = replay(spec, recorder.dumps(), "podkidnoy", options={})
        if not result.ok:
            break
    assert not result.ok and "state.hands" in result.message
    assert result.rule_id == "draw.order"
    assert result.diagnosis["as_if"][0] == {"draw_order": "attacker_counterclockwise_defender_last"}
    assert "plays as if `draw_order = attacker_counterclockwise_defender_last`" in result.message
    lines = [json.loads(line) for line in recorder.dumps().splitlines()]
    lines[0]["options"] = {}  # the log does not say how it draws
    path = tmp_path / "ccw.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    shown = run("replay", str(path), "--variant", "podkidnoy", "--format", "json")
    assert shown.exit_code == 1 and json.loads(shown.output)["rule"] == "draw.order"


def test_a_log_that_ends_before_the_game_says_so(tmp_path):
    log = _sparse_log(_recorded(tmp_path))
    whole = run("replay", _write(tmp_path, log, "whole.jsonl"))
    assert whole.exit_code == 0 and "before the game is over" not in whole.output
    short = run("replay", _write(tmp_path, log[:6], "short.jsonl"))
    assert short.exit_code == 0, short.output
    assert "the log ends after 5 steps, before the game is over" in short.output


def test_a_log_larger_than_the_limit_is_refused_not_cut(tmp_path, monkeypatch):
    from durak_spec.tools import play

    monkeypatch.setattr(play, "MAX_TRACE_BYTES", 2000)
    log = _sparse_log(_recorded(tmp_path))
    result = run("replay", _write(tmp_path, log))
    assert result.exit_code == 2
    assert re.search(r"log\.jsonl: is [\d,]+ bytes; the limit is 2,000$", result.output.strip())
    assert "not JSON" not in result.output
