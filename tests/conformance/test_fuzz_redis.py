"""durak fuzz --database redis://...: campaigns on several processes (or machines) share what they
find through hypothesis's Redis example database; a divergence one worker found is replayed first
by the other. Needs a real redis-server: CI installs it and sets DURAK_REQUIRE_REDIS=1, so there
this test fails rather than skips when redis is missing."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

REQUIRED = os.environ.get("DURAK_REQUIRE_REDIS") == "1"
ENGINE = "python:durak_spec.conformance.examples.broken_beat:BeatAnySuit"


@pytest.fixture
def redis_url(tmp_path):
    """A real redis-server on a free loopback port, for this test only."""
    server = shutil.which("redis-server")
    try:
        import redis
    except ImportError:
        redis = None
    if server is None or redis is None:
        missing = "redis-server (apt-get install redis-server)" if server is None else \
            "the redis package (pip install 'durak-spec[redis]')"
        if REQUIRED:
            pytest.fail(f"DURAK_REQUIRE_REDIS=1 but {missing} is missing")
        pytest.skip(f"SKIPPED LOUDLY: {missing} is missing; CI installs it (.ci/run)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 15
    while True:
        try:
            client.ping()
            break
        except redis.exceptions.ConnectionError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail(f"redis-server did not start on port {port}")
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(timeout=10)


def _worker(tmp_path, name: str, url: str, *args) -> dict:
    """One `durak fuzz` worker in its own process, with its own output folder."""
    report = tmp_path / f"{name}.json"
    run = subprocess.run(
        [sys.executable, "-c", "from durak_spec.tools.cli import main; main()", "fuzz",
         "--adapter", ENGINE, "--players", "2", "--database", url, "--out", str(tmp_path / name),
         "--report", str(report), "-q", *args],
        capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    return json.loads(report.read_text())["fuzz"][0]


def test_two_workers_share_their_divergences_through_redis(redis_url, tmp_path):
    first = _worker(tmp_path, "a", redis_url, "--games", "30", "--seed", "1")
    found = {d["signature"] for d in first["divergences"]}
    assert found and not first["replayed"]
    # another worker, another seed and output folder, a single game: it replays the first
    # worker's witnesses before its own game, and so reports their divergences first
    second = _worker(tmp_path, "b", redis_url, "--games", "1", "--seed", "2")
    assert second["replayed"] >= len(found)
    replayed = {d["signature"] for d in second["divergences"] if d["replayed"]}
    assert found <= replayed
    assert all(d["first_game"] == 0 for d in second["divergences"] if d["replayed"])
