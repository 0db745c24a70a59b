"""Stopping a judged eval (issue #14 item 11), real ``ragcov`` subprocesses against the real local
API server: Ctrl-C cancels the judge requests in flight (the server sees their connections close)
and exits within seconds instead of waiting for them; SIGTERM marks the session interrupted and
prints what finished, which ``--resume`` then completes asking only for the rest; a second stop
signal exits at once."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.fake_api import FakeAPIServer
from tests.support.ragcov_procs import CORPUS, N_QUESTIONS, QUESTIONS, REPO, sessions, wait_items

pytestmark = pytest.mark.slow

CONCURRENCY = 4
REPLY = json.dumps({"score": 0.9, "reason": "fine"})


def judged_eval(work: Path, server: FakeAPIServer, *extra: str) -> subprocess.Popen:
    """``ragcov eval`` of sample_data/ judged by ``openai:gpt-4o-mini`` at ``server`` (stderr is a pipe: a log)."""
    env = {
        **os.environ,
        "OPENAI_API_KEY": "k",
        "OPENAI_BASE_URL": server.base_url,
        "PYTHONPATH": str(REPO),
        "RAGCOV_RETRY_BASE_DELAY": "0.001",
        "RAGCOV_PROGRESS_EVERY": "0.5",
    }
    env.pop("RAGCOV_PRICE_PER_MTOK", None)
    argv = [
        "eval",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
        "--embedder",
        "hash",
        "--judge-llm",
        "openai:gpt-4o-mini",
        "--metrics",
        "answer_relevance",
        "--concurrency",
        str(CONCURRENCY),
        "--db",
        str(work / "r.db"),
        "--no-preflight",
        *extra,
    ]  # the servers here answer items only: the probe is pinned elsewhere
    return subprocess.Popen(
        [sys.executable, "-m", "ragcov_tui", *argv],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_ctrl_c_cancels_the_requests_in_flight_and_exits_at_once(tmp_path: Path) -> None:
    with FakeAPIServer(latency=60.0) as server:  # every judge request is held open for a minute
        server.chat_handler = lambda messages, body: REPLY
        proc = judged_eval(tmp_path, server, "--quiet")  # quiet: no model-list GET (it would be held too)
        wait_for(lambda: server.count("/chat/completions") == CONCURRENCY)
        time.sleep(0.2)  # no request more is coming: every worker waits on one
        sent_at = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        exited = time.monotonic() - sent_at
        wait_for(lambda: server.dropped >= CONCURRENCY, timeout=10)
        cancelled = max(server.dropped_at) - sent_at
    print(f"Ctrl-C: exit after {exited:.2f} s, last in-flight request closed after {cancelled:.2f} s")
    assert proc.returncode == 130 and exited < 10 and cancelled < 10  # measured ~1 s here; the issue asks 2 s
    assert server.count("/chat/completions") == CONCURRENCY
    sid = sessions(tmp_path)[0]["id"]
    [line] = err.strip().splitlines()  # one line (issue #23 §7): the stop report's parts joined by "; "
    stopped, embeddings, llm, resume = line.removeprefix("interrupted: ").split("; ")
    assert stopped == f"stopped: 0 of {N_QUESTIONS} questions evaluated, {N_QUESTIONS} not yet"
    assert embeddings.startswith("embeddings: ")  # the hash embedder: no cost line
    assert (
        llm
        == f"llm openai:gpt-4o-mini: requests: {CONCURRENCY} ({CONCURRENCY} abandoned), 0 cached, 0 tokens, cost unknown"
    )
    assert resume == f"continue with: ragcov eval --resume {sid} (same options)"
    [row] = sessions(tmp_path)
    assert row["status"] == "interrupted" and row["error"].startswith("interrupted by Ctrl-C")
    assert row["usage"]["llm_requests"] == CONCURRENCY and row["usage"]["cost_usd"] is None


def test_sigterm_marks_the_session_interrupted_with_a_report_and_resume_asks_only_for_the_rest(tmp_path: Path) -> None:
    with FakeAPIServer(latency=0.15) as server:
        server.chat_handler = lambda messages, body: REPLY
        proc = judged_eval(tmp_path, server)
        sid = wait_items(tmp_path, 6, proc)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 143
        conn = sqlite3.connect(tmp_path / "r.db")
        kept = conn.execute(
            "SELECT count(*) FROM eval_items WHERE session_id = ? AND status = 'done'", [sid]
        ).fetchone()[0]
        conn.close()
        line = err.strip().splitlines()[-1]  # above it: progress lines (the run is not --quiet)
        assert line.startswith("interrupted by SIGTERM: ")
        parts = line.removeprefix("interrupted by SIGTERM: ").split("; ")
        assert f"stopped: {kept} of {N_QUESTIONS} questions evaluated, {N_QUESTIONS - kept} not yet" in parts
        assert f"continue with: ragcov eval --resume {sid} (same options)" in parts
        [usage] = [part for part in parts if part.startswith("llm openai:gpt-4o-mini: requests: ")]
        sent = server.count("/chat/completions")
        made = re.match(r"llm openai:gpt-4o-mini: requests: (\d+)(?: \((\d+) abandoned\))?, ", usage)
        assert made is not None and usage.endswith("cost unknown"), usage
        requests, abandoned = int(made[1]), int(made[2] or 0)
        # every request the server saw is counted; one abandoned as the signal came may never have reached it
        assert requests - abandoned <= sent <= requests, (usage, sent)
        [row] = sessions(tmp_path)
        assert row["status"] == "interrupted" and row["error"].startswith("interrupted by SIGTERM at evaluating ")

        before = server.count("/chat/completions")
        resumed = judged_eval(tmp_path, server, "--resume", sid, "--json", str(tmp_path / "r.json"))
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err
        report = json.loads((tmp_path / "r.json").read_text())
        asked = server.count("/chat/completions") - before
    assert report["counts"]["done"] == N_QUESTIONS and report["skipped_done"] == kept
    # one judgement per question left; a reply that came back while the run stopped was cached, not lost
    assert asked == report["usage"]["llm_requests"] and asked + report["usage"]["llm_cached"] == N_QUESTIONS - kept


SLOW_CLEANUP = textwrap.dedent("""
    import sys, time
    from ragcov_tui.cli.commands import interruptible

    @interruptible
    def cmd(args, out):
        try:
            print("ready", flush=True)
            time.sleep(60)
        except KeyboardInterrupt:
            print("cleaning up", flush=True)
            time.sleep(60)  # a cleanup that hangs
        return 0

    sys.exit(cmd(None, None))
""")


@pytest.mark.parametrize(
    "first,second,code",
    [(signal.SIGINT, signal.SIGINT, 130), (signal.SIGTERM, signal.SIGINT, 130), (signal.SIGINT, signal.SIGTERM, 143)],
)
def test_a_second_stop_signal_exits_at_once(first: int, second: int, code: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_CLEANUP],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    proc.send_signal(first)
    assert proc.stdout.readline().strip() == "cleaning up"
    sent_at = time.monotonic()
    proc.send_signal(second)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code and time.monotonic() - sent_at < 10
    assert err.strip() == "stopped again: exiting now"
