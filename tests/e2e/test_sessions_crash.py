"""SIGKILL at random points loses no acknowledged move and leaves a consistent database."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from games import REGISTRY
from sessions.replay import replay

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "tests" / "support" / "sessions_crash_script.py"


def run_and_kill(db: Path, out: Path, seed: int, rng: random.Random) -> list[tuple[int, int]]:
    """Run the script until it has acknowledged some moves, SIGKILL it, return the acks."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(SCRIPT.parent)])}
    errors = out.with_suffix(".err")
    with out.open("w") as sink, errors.open("w") as complaints:
        process = subprocess.Popen(
            [sys.executable, str(SCRIPT), str(db), str(seed)],
            stdout=sink,
            stderr=complaints,
            cwd=REPO,
            env=env,
        )
        try:
            give_up = time.monotonic() + 120
            while not out.read_text().count("\n") and time.monotonic() < give_up:
                assert process.poll() is None, f"the script died: {errors.read_text()}"
                time.sleep(0.02)
            time.sleep(rng.uniform(0.05, 0.6))
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
    assert process.returncode == -signal.SIGKILL, errors.read_text()
    acked = []
    for line in out.read_text().splitlines(keepends=True):
        if line.endswith("\n"):
            session, n = line.split()
            acked.append((int(session), int(n)))
    assert acked, f"the script acknowledged no move: {errors.read_text()}"
    return acked


def check_database(db: Path, acked: list[tuple[int, int]]) -> None:
    """Integrity, every acknowledged move present, and stored state == replayed log."""
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        logged = {(r[0], r[1]) for r in connection.execute("SELECT session, n FROM moves")}
        assert set(acked) <= logged
        for row in connection.execute("SELECT * FROM sessions WHERE state IS NOT NULL"):
            moves = connection.execute(
                "SELECT n, seat, action FROM moves WHERE session = ? ORDER BY n", (row["id"],)
            ).fetchall()
            assert [m["n"] for m in moves] == list(range(1, row["moves"] + 1))
            players = connection.execute(
                "SELECT COUNT(*) FROM seats WHERE session = ?", (row["id"],)
            ).fetchone()[0]
            rebuilt = replay(
                row["game"],
                players,
                json.loads(row["options"]),
                row["seed"],
                [(m["seat"], m["action"]) for m in moves],
            )
            stored = REGISTRY[row["game"]].from_dict(json.loads(row["state"]))
            assert rebuilt == stored
            assert (row["status"] == "finished") == stored.finished
    finally:
        connection.close()


def test_sigkill_loses_no_acknowledged_move(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    rng = random.Random()
    acked: list[tuple[int, int]] = []
    for round_no in range(4):
        acked += run_and_kill(db, tmp_path / f"out{round_no}.txt", rng.randrange(1 << 30), rng)
        check_database(db, acked)
    assert len(set(acked)) == len(acked), "a move number was acknowledged twice"
