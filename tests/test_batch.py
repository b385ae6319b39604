"""The OpenAI Batch API path (rtlab.llm.run_batch, `rtlab annotate --batch`) against the simulated server's
/v1/files and /v1/batches: the same answers as the synchronous path, in the same cache; resume after an
interruption submits nothing new; failed and expired batches reported; cached requests never resubmitted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from test_annotate import make_run

from rtlab.annotation import annotate, annotator_grid, first_requests, item_contexts
from rtlab.environment import replay
from rtlab.ingest import write_jsonl
from rtlab.llm import (
    SIMULATED_MODEL,
    BatchPlan,
    DiskCache,
    LLMClient,
    LLMError,
    SimulatedServer,
    request_key,
    run_batch,
)

KEY = "sk-test-secret-0123456789"
"""An API key shaped like a real one: it must appear in no state file and no report."""
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def srv():
    with SimulatedServer() as server:
        yield server


def client(srv, folder: Path) -> LLMClient:
    return LLMClient(base_url=srv.base_url, api_key=KEY, backoff=0.01, cache_dir=folder)


def requests(n: int) -> list[dict]:
    return [
        {"model": SIMULATED_MODEL, "messages": [{"role": "user", "content": f"question {i}"}], "seed": 0}
        for i in range(n)
    ]


def no_wait(_seconds: float) -> None:
    pass


class Interrupt(Exception):
    """Stands for the process being stopped while it waits between polls."""


def interrupt_after(n: int):
    calls = []

    def sleep(_seconds: float) -> None:
        calls.append(1)
        if len(calls) > n:
            raise Interrupt

    return sleep


def all_text(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file())


def test_batch_cache_equals_the_synchronous_answers(tmp_path):
    t = make_run()
    grid = annotator_grid([SIMULATED_MODEL], ["p1", "p2"])  # 2 annotators x 3 failed items = 6 requests
    with SimulatedServer() as a, SimulatedServer() as b:
        batched = annotate([t], grid, client(a, tmp_path / "batch"), batch=True, batch_poll=0.001)
        direct = annotate([t], grid, client(b, tmp_path / "sync"))
        assert a.n_requests == 0  # no chat completion: every first request came from the batch into the cache
        assert (a.batches.uploads, a.batches.created, b.n_requests) == (1, 1, 6)
    assert batched.batch is not None and (batched.batch.n_submitted, batched.batch.n_collected) == (6, 6)
    assert all(c.cached for c in batched.llm.calls)
    pd.testing.assert_frame_equal(batched.labels, direct.labels)
    contexts = item_contexts([t], [replay(t)])
    for request in first_requests(contexts, grid):
        key = request_key(request)
        one, two = DiskCache(tmp_path / "batch").get(key), DiskCache(tmp_path / "sync").get(key)
        assert one is not None and two is not None
        for field in ("content", "prompt_tokens", "completion_tokens", "finish_reason", "request"):
            assert one[field] == two[field], field


def test_resume_after_an_interruption_submits_nothing_new(srv, tmp_path):
    reqs = requests(5)
    srv.batches.plan(BatchPlan(polls=4))
    with pytest.raises(Interrupt):  # stopped at its third wait: the batch is still in progress
        run_batch(client(srv, tmp_path / "c"), reqs, poll=0.001, sleep=interrupt_after(2))
    (state,) = (tmp_path / "c" / "batches").glob("batch-*.json")
    saved = json.loads(state.read_text())
    assert saved["batch_id"] and saved["input_file_id"] and len(saved["keys"]) == 5
    assert KEY not in state.read_text() and oct(state.stat().st_mode & 0o777) == "0o600"
    assert oct(state.parent.stat().st_mode & 0o777) == "0o700"
    assert srv.batches.status(saved["batch_id"]) == "in_progress"
    again = run_batch(client(srv, tmp_path / "c"), reqs, poll=0.001, sleep=no_wait)
    assert (srv.batches.uploads, srv.batches.created) == (1, 1)  # the same batch, polled again
    assert (again.n_submitted, again.n_resumed, again.n_collected, again.failures) == (0, 5, 5, [])
    assert again.batches[0].resumed and again.batches[0].batch_id == saved["batch_id"]
    assert not state.exists()  # collected: the state file is gone
    sync = client(srv, tmp_path / "c")
    assert all(sync.complete(r).cached for r in reqs) and srv.n_requests == 0


def test_resume_after_the_process_is_killed_mid_poll(srv, tmp_path):
    """`rtlab annotate --batch` killed (SIGKILL) while it polls; the next run resumes the same batch."""
    runs = tmp_path / "runs.jsonl"
    write_jsonl([make_run()], runs)
    srv.batches.plan(BatchPlan(polls=10**9))  # in progress until the test releases it
    cache, out = tmp_path / "cache", tmp_path / "labels.csv"
    args = [
        *(str(runs), "-o", str(out), "--model", SIMULATED_MODEL, "--batch", "--batch-poll", "0.01"),
        *("--base-url", srv.base_url, "--api-key", KEY, "--cache-dir", str(cache)),
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rtlab", "annotate", *args], env=env, stderr=subprocess.PIPE
    )
    try:
        assert srv.batches.wait_for_retrieves(2, timeout=120)  # it is polling now
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not out.exists() and (srv.batches.uploads, srv.batches.created) == (1, 1)
    srv.batches.release()
    done = subprocess.run(
        [sys.executable, "-m", "rtlab", "annotate", *args], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert (srv.batches.uploads, srv.batches.created, srv.n_requests) == (1, 1, 0)  # resumed, nothing new
    assert "0 submitted, 3 resumed; 3 answers cached, 0 failed" in done.stderr
    labels = pd.read_csv(out)
    assert (labels["annotator"] == f"llm:{SIMULATED_MODEL}:p1:s0").sum() == 3
    assert KEY not in all_text(cache) and KEY not in done.stderr


def test_failed_and_expired_batches_are_reported_and_nothing_failed_is_cached(srv, tmp_path):
    reqs = requests(4)
    keys = sorted(request_key(r) for r in reqs)  # lines are written in key order
    srv.batches.plan(BatchPlan(outcome="failed"))
    failed = run_batch(client(srv, tmp_path / "c"), reqs, poll=0.001, sleep=no_wait)
    assert [b.status for b in failed.batches] == ["failed"] and failed.n_collected == 0
    assert sorted(f.key for f in failed.failures) == keys
    assert all("ended failed" in f.error and "scripted_failure" in f.error for f in failed.failures)
    assert not list((tmp_path / "c" / "batches").glob("*.json"))  # a failed batch is not resumed
    # expired after 2 lines answered, and line 0 failing: 1 answered (line 1), 3 reported
    srv.batches.plan(BatchPlan(outcome="expired", expire_after=2, fail_lines=frozenset({0})))
    expired = run_batch(client(srv, tmp_path / "c"), reqs, poll=0.001, sleep=no_wait)
    assert [b.status for b in expired.batches] == ["expired"] and expired.n_collected == 1
    errors = {f.key: f.error for f in expired.failures}
    assert sorted(errors) == [keys[0], keys[2], keys[3]]
    assert errors[keys[0]].startswith("HTTP 500: scripted line failure")
    assert errors[keys[2]].startswith("batch_expired") and errors[keys[3]].startswith("batch_expired")
    cache = DiskCache(tmp_path / "c")
    assert [cache.get(k) is not None for k in keys] == [False, True, False, False]
    assert (expired.batches[0].completed, expired.batches[0].failed) == (1, 3)


def test_cached_requests_are_not_resubmitted_and_big_batches_are_split(srv, tmp_path):
    reqs = requests(7)
    sync = client(srv, tmp_path / "c")
    sync.batch(reqs[:2])  # 2 answered the normal way, cached
    assert srv.n_requests == 2
    run = run_batch(client(srv, tmp_path / "c"), reqs + reqs[:1], poll=0.001, sleep=no_wait, max_requests=2)
    # 7 distinct (the repeat counted once), 2 cached; 5 submitted in batches of 2: 3 batches
    assert (run.n_requests, run.n_cached, run.n_submitted, run.n_collected) == (7, 2, 5, 5)
    assert (srv.batches.uploads, srv.batches.created, len(run.batches)) == (3, 3, 3)
    uploaded = [
        json.loads(line)["custom_id"]
        for f in srv.batches._files.values()
        if f.purpose == "batch"
        for line in f.data.splitlines()
    ]
    assert sorted(uploaded) == sorted(request_key(r) for r in reqs[2:])
    again = run_batch(client(srv, tmp_path / "c"), reqs, poll=0.001, sleep=no_wait)
    assert (again.n_cached, again.n_submitted, srv.batches.uploads) == (7, 0, 3)  # all cached: nothing sent


def test_each_line_is_the_synchronous_request_byte_for_byte(srv, tmp_path):
    """The batch line's body is the canonical request the sync path posts (so the cache key is the same)."""
    reqs = requests(2)
    run_batch(client(srv, tmp_path / "c"), reqs, poll=0.001, sleep=no_wait)
    (upload,) = [f for f in srv.batches._files.values() if f.purpose == "batch"]
    lines = [json.loads(line) for line in upload.data.splitlines()]
    assert {line["url"] for line in lines} == {"/v1/chat/completions"}
    assert {line["custom_id"] for line in lines} == {request_key(line["body"]) for line in lines}
    client(srv, tmp_path / "d").batch(reqs)
    assert sorted(srv.requests, key=request_key) == sorted((line["body"] for line in lines), key=request_key)


def test_transient_errors_of_the_batch_api_are_retried(srv, tmp_path):
    reqs = requests(3)
    srv.batches.fail_next(429, 500)  # the upload is refused twice, then goes through
    run = run_batch(client(srv, tmp_path / "c"), reqs, poll=0.001, sleep=no_wait)
    assert (run.n_collected, srv.batches.uploads) == (3, 1)
    srv.batches.fail_next(401)  # not retried: a configuration problem, raised at once, the key redacted
    with pytest.raises(LLMError, match="HTTP 401") as err:
        run_batch(client(srv, tmp_path / "d"), reqs, poll=0.001, sleep=no_wait)
    assert KEY not in str(err.value)


def test_a_state_file_of_another_endpoint_is_left_alone(tmp_path):
    reqs = requests(2)
    with SimulatedServer() as one:
        one.batches.plan(BatchPlan(polls=10**9))
        with pytest.raises(Interrupt):
            run_batch(client(one, tmp_path / "c"), reqs, poll=0.001, sleep=interrupt_after(1))
    with SimulatedServer() as two:  # another port: another endpoint, whose batches the first knows nothing of
        run = run_batch(client(two, tmp_path / "c"), reqs, poll=0.001, sleep=no_wait)
        assert (run.n_submitted, run.n_resumed, two.batches.uploads) == (2, 0, 1)
    assert len(list((tmp_path / "c" / "batches").glob("batch-*.json"))) == 1  # the first one's, kept
