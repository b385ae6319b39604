"""LLMClient against the local simulated server with the real openai client: retries, cache, batches, cost.

No verdict here depends on how fast the machine is: a test that needs calls in flight holds them at the server
(``slow(HELD)``) and waits for their arrival (``wait_for_requests``) before it acts, then releases them; a
timeout under test is one the held call cannot beat; a wait under test (Retry-After) is checked from below
only. Speed is measured in ``bench/annotate.py``.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import importlib.util
import json
import os
import signal
import threading
import time
from collections.abc import Callable

import pytest

from rtlab.llm import (
    ANSWER_FIELDS,
    SIMULATED_MODEL,
    CallResult,
    LLMClient,
    LLMError,
    Scripted,
    SimulatedServer,
    call_cost,
    http_error,
    load_prices,
    normalize_request,
    refuse,
    reply,
    request_key,
    results_frame,
    slow,
    usage_summary,
)

HELD = 60.0
"""A scripted delay that holds a call in flight until the test releases it (``srv.release()``, or the next
``reset``); if nothing does, it ends after this long, so a test that hangs fails instead."""
SAFETY = 30.0
"""Client timeout where the timeout is not under test: only a hang reaches it."""
TIMEOUT = 2.0
"""Client timeout where it is under test: a held call cannot beat it, and an answered one on a loaded
machine (milliseconds) does not come near it."""
GRACE = 0.25
"""How long held calls stay held once the expected number is in flight, so that a client breaking its
concurrency bound shows it (one call too many arrives). A client that keeps its bound passes however long
or short this is: load can only hide a broken bound, never fail a sound one."""


def make(srv, tmp_path, **kw) -> LLMClient:
    kw.setdefault("backoff", 0.01)
    kw.setdefault("timeout", SAFETY)
    return LLMClient(base_url=srv.base_url, api_key="x", cache_dir=tmp_path / "cache", seed=0, **kw)


def release_when(srv, n: int) -> Callable[[], bool]:
    """Start a thread that releases the held calls once ``n`` requests have arrived (or after the server's safety
    timeout), and :data:`GRACE` after that; the function returned joins it and says whether they did arrive."""
    reached: list[bool] = []

    def run() -> None:
        try:
            reached.append(srv.wait_for_requests(n))
            if reached[0]:
                srv.wait_for_requests(n + 1, timeout=GRACE)  # one more would be one too many in flight
        finally:
            srv.release()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def joined() -> bool:
        thread.join()
        return reached == [True]

    return joined


def wound_down(client: LLMClient) -> bool:
    """Wait until nothing is left running on the client's event loop (a cancelled batch's workers have
    stopped); ``False`` if something still runs after the safety timeout."""

    async def others_end() -> bool:
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        if not left:
            return True
        _, pending = await asyncio.wait(left, timeout=SAFETY)
        return not pending

    return client._runner.submit(others_end()).result()


def req(text: str = "hello", model: str = SIMULATED_MODEL, **params) -> dict:
    return {"model": model, "messages": [{"role": "user", "content": text}], **params}


def test_key_is_canonical():
    a = {"model": "m", "messages": [{"role": "user", "content": "x", "name": None}], "temperature": 0}
    b = {"temperature": 0, "seed": None, "messages": [{"content": "x", "role": "user"}], "model": "m"}
    assert request_key(a) == request_key(b)
    assert request_key(a) != request_key({**a, "temperature": 0.5})
    assert request_key(a) != request_key({**a, "response_format": {"type": "json_object"}})
    assert list(normalize_request(b)) == ["messages", "model", "temperature"]
    with pytest.raises(LLMError):
        request_key({"model": "m"})


def test_cache_hit_makes_zero_requests(srv, tmp_path):
    first = make(srv, tmp_path).batch([req("a"), req("b")])
    assert srv.n_requests == 2 and not any(r.cached for r in first)
    again = make(srv, tmp_path).batch([req("a"), req("b")])  # a new client: the cache is on disk
    assert srv.n_requests == 2
    assert all(r.cached and r.attempts == 0 for r in again)
    assert [r.content for r in again] == [r.content for r in first]
    files = list((tmp_path / "cache").rglob("*.json"))
    assert len(files) == 2 and not list((tmp_path / "cache").rglob("*.tmp"))
    record = json.loads(files[0].read_text())
    assert record["request"]["model"] == SIMULATED_MODEL and record["schema"] == "rtlab.llm-cache/1"


def test_malformed_content_is_returned_not_an_error(srv, tmp_path):
    srv.script(reply("{not json"))
    r = make(srv, tmp_path).complete(req())
    assert r.ok and r.content == "{not json" and r.attempts == 1


def test_429_retry_after_is_honoured(srv, tmp_path):
    srv.script(http_error(429, retry_after=1))
    start = time.monotonic()
    r = make(srv, tmp_path).complete(req())
    assert r.ok and r.attempts == 2
    times = srv.request_times
    assert times[1] - times[0] >= 1.0  # waited what the server asked, not the 0.01 s backoff
    assert time.monotonic() - start >= 1.0


def test_500_then_success(srv, tmp_path):
    srv.script(http_error(500), http_error(503))
    r = make(srv, tmp_path).complete(req())
    assert r.ok and r.attempts == 3 and srv.n_requests == 3


def test_timeout_then_success(srv, tmp_path):
    srv.script(slow(HELD))  # the first attempt is held past the client's timeout; the second is answered
    r = make(srv, tmp_path, timeout=TIMEOUT).complete(req())
    assert r.ok and r.attempts == 2 and srv.n_requests == 2


def test_attempts_are_bounded_and_failures_not_cached(srv, tmp_path):
    srv.script(*[http_error(500)] * 3)
    client = make(srv, tmp_path, max_attempts=3)
    r = client.complete(req())
    assert not r.ok and r.attempts == 3 and "HTTP 500" in r.error and r.cost is None
    assert client.cached(req()) is None
    assert client.complete(req()).ok and srv.n_requests == 4


def test_backoff_grows_exponentially_with_jitter(srv, tmp_path):
    waits: list[float] = []
    srv.script(*[http_error(502)] * 3)
    r = make(srv, tmp_path, backoff=1.0, max_attempts=4, sleep=waits.append).complete(req())
    assert r.ok
    assert len(waits) == 3
    for n, w in enumerate(waits):
        assert 0.5 * 2**n <= w <= 2**n


def test_refusal_is_not_cached(srv, tmp_path):
    srv.script(refuse("no"))
    client = make(srv, tmp_path)
    r = client.complete(req())
    assert r.refusal == "no" and not r.ok
    assert client.cached(req()) is None


def test_bad_request_raises_at_once(srv, tmp_path):
    srv.script(http_error(401))
    with pytest.raises(LLMError, match="401"):
        make(srv, tmp_path).complete(req())
    assert srv.n_requests == 1


def test_concurrent_batch_keeps_input_order(tmp_path):
    texts = [f"item {i}" for i in range(16)]
    with SimulatedServer() as srv:  # a server of its own: max_in_flight counts only this batch
        srv.script(*[slow(HELD)] * 8)  # the first 8 calls are held until all 8 are in flight at once
        released = release_when(srv, 8)
        results = make(srv, tmp_path).batch([req(t) for t in texts], max_workers=8, progress=True)
        assert released()  # 8 calls were in flight together: the batch is concurrent
        assert srv.n_requests == 16 and srv.max_in_flight == 8
    assert [r.content for r in results] == [f"[simulated] {t}" for t in texts]
    assert [r.attempts for r in results] == [1] * 16


def test_batch_dedupes_identical_requests(srv, tmp_path):
    results = make(srv, tmp_path, cache=False).batch([req("x"), req("y"), req("x")])
    assert srv.n_requests == 2 and results[0] is results[2]


def test_interrupted_batch_resumes_with_nothing_lost(srv, tmp_path):
    requests = [req(f"r{i}") for i in range(4)]
    srv.script(reply("ok0"), reply("ok1"), http_error(400))
    with pytest.raises(LLMError):
        make(srv, tmp_path).batch(requests, max_workers=1)
    assert srv.n_requests == 3
    results = make(srv, tmp_path).batch(requests, max_workers=1)
    assert [r.cached for r in results] == [True, True, False, False]
    assert [r.content for r in results[:2]] == ["ok0", "ok1"]
    assert srv.n_requests == 5  # only the two calls not done


def test_cost_by_hand(srv, tmp_path):
    prices = {"gpt-x": (2.5, 10.0)}
    text = "x" * 400  # 100 prompt tokens on the simulated server
    r = make(srv, tmp_path, prices=prices).complete(req(text, model="gpt-x"))
    assert r.prompt_tokens == 100
    assert r.completion_tokens == -(-len(r.content) // 4)
    assert r.cost == pytest.approx((100 * 2.5 + r.completion_tokens * 10.0) / 1e6)
    assert call_cost("gpt-x", 1_000_000, 1_000_000, prices) == 12.5
    assert call_cost("unknown", 10, 10, prices) is None
    assert make(srv, tmp_path, prices=prices).complete(req("other", model="unknown")).cost is None
    summary = usage_summary([r])
    assert summary["calls"] == 1 and summary["cost"] == pytest.approx(r.cost)


def test_dry_run_counts_uncached_calls_and_estimates_cost(srv, tmp_path):
    client = make(srv, tmp_path, prices={"gpt-x": (1.0, 2.0)})
    client.complete(req("a" * 40, model="gpt-x"))
    srv.reset()
    plan = client.dry_run(
        [req("a" * 40, model="gpt-x"), req("b" * 41, model="gpt-x"), req("b" * 41, model="gpt-x")],
        max_output_tokens=100,
    )
    assert srv.n_requests == 0
    assert (plan.n_requests, plan.n_cached, plan.n_calls) == (2, 1, 1)
    assert plan.prompt_tokens == 11  # ceil(41 / 4)
    assert plan.cost == pytest.approx((11 * 1.0 + 100 * 2.0) / 1e6)
    assert "1 calls to make" in plan.describe()
    unknown = client.dry_run([req("z", model="nope")])
    assert unknown.cost is None and unknown.unpriced == ("nope",)


def test_environment_configuration(srv, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    client = LLMClient(cache_dir=tmp_path)
    assert client.base_url == srv.base_url and client.api_key == "from-env"
    assert client.complete(req()).ok
    monkeypatch.delenv("OPENAI_API_KEY")
    assert LLMClient(cache_dir=tmp_path).api_key == "local"  # loopback endpoint: any key
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.invalid/v1")
    with pytest.raises(LLMError, match="API key"):
        LLMClient(cache=False).complete(req())


def test_prices_file_and_results_frame(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"m": [1, 4]}))
    assert load_prices(path) == {"m": (1.0, 4.0)}
    path.write_text(json.dumps({"m": [1]}))
    with pytest.raises(LLMError, match="'m'"):
        load_prices(path)
    frame = results_frame([CallResult(key="k", model="m", content="c", cached=True)])
    assert frame.loc[0, "model"] == "m" and bool(frame.loc[0, "cached"])


def test_ask_until_valid_asks_again_with_the_reason(srv, tmp_path) -> None:
    from rtlab.llm._client import ask_until_valid

    def parse(text: str | None) -> tuple[int | None, str | None]:
        try:
            return int(json.loads(text or "")["n"]), None
        except (ValueError, KeyError, TypeError):
            return None, 'expected {"n": <integer>}'

    # conversation 0: invalid, then valid; 1: valid at once; 2: invalid twice (max_fixes=1) -> stays invalid
    srv.script(reply("oops"), reply('{"n": 2}'), reply("nope"), reply('{"n": 1}'), reply("still not"))
    client = make(srv, tmp_path, cache=False)
    asked, calls = ask_until_valid(
        client,
        [[{"role": "user", "content": f"q{i}"}] for i in range(3)],
        lambda i, messages: {"model": "m", "messages": messages},
        parse,
        max_fixes=1,
        max_workers=1,
    )
    assert [a.parsed for a in asked] == [1, 2, None]
    assert [a.valid for a in asked] == [True, True, False] and asked[2].error == 'expected {"n": <integer>}'
    assert len(calls) == 5  # 3 first answers + 2 corrective retries
    retry = srv.requests[3]["messages"]
    assert (
        retry[-2] == {"role": "assistant", "content": "oops"}
        and "Your answer is invalid" in retry[-1]["content"]
    )


# ---------------------------------------------------------------------------------------------------------
# Batches on the private event loop (openai.AsyncOpenAI), the canonical key, the cache file layout

HAS_AIOHTTP = importlib.util.find_spec("aiohttp") is not None


@pytest.fixture(params=["httpx", "aiohttp"])
def transport(request) -> str:
    """Each async transport of batches (aiohttp only where it is installed)."""
    if request.param == "aiohttp" and not HAS_AIOHTTP:
        pytest.skip("aiohttp is not installed (openai[aiohttp])")
    return request.param


def test_key_is_byte_for_byte_the_canonical_json_dumps():
    def reference(value):  # the definition the cache keys were made with: json.dumps of the None-less data
        def strip(v):
            if isinstance(v, dict):
                return {str(k): strip(x) for k, x in v.items() if x is not None}
            return [strip(x) for x in v] if isinstance(v, list | tuple) else v

        text = json.dumps(strip(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    long = (
        "Label it.\n" + '"quoted" é € \x7f \x00 \u2028 😀 \\ ' * 40
    )  # escapes, non-ASCII, DEL, > LONG_STRING
    requests = [
        {"model": "m", "messages": [{"role": "user", "content": "x"}]},
        {
            "model": "gpt-x",
            "messages": [
                {"role": "system", "content": long},
                {"role": "user", "content": long, "name": None},
            ],
            "temperature": 0.0,
            "top_p": 1e-7,
            "seed": 3,
            "max_tokens": 512,
            "logit_bias": {1: -100, "2": 5.5},
            "stop": ("a", None, "b"),
            "stream": False,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"strict": True, "schema": {"a": [1, None]}},
            },
        },
    ]
    assert [request_key(r) for r in requests] == [reference(r) for r in requests]
    # a batch encodes long strings once: same keys as one by one
    client = LLMClient(base_url="http://127.0.0.1:9/v1", cache=False)
    keys: list[str] = []
    list(client._plan(requests * 3, keys, {}, None))
    assert keys == [reference(r) for r in requests * 3]
    # pinned: the key of existing cache entries must never change
    pinned = {
        "model": "gpt-x",
        "messages": [
            {"role": "system", "content": 'Label it.\n"quoted" é € \x7f'},
            {"role": "user", "content": "x" * 300, "name": None},
        ],
        "temperature": 0.0,
        "seed": 3,
        "max_tokens": 512,
        "response_format": {"type": "json_object"},
        "top_p": None,
    }
    assert request_key(pinned) == "6cf2804bbace16c7a34ed0543eedd37e0159f72735ab4e03c18e911ffffb5ebb"


def test_cache_file_puts_the_request_last_and_reads_older_files(srv, tmp_path):
    client = make(srv, tmp_path)
    fresh = client.complete(req("new layout"))
    path = client._store.path(fresh.key)
    text = path.read_text(encoding="utf-8")
    record = json.loads(text)
    assert list(record)[0] == "schema" and list(record)[-1] == "request"
    assert record["request"] == normalize_request(req("new layout"))
    assert client._store.answer(fresh.key) == {k: v for k, v in record.items() if k != "request"}

    # a file as earlier versions wrote it (keys sorted: the request amid the answer) is still a hit
    old = req("old layout")
    key = request_key(old)
    answer = {f: None for f in ANSWER_FIELDS} | {"content": "from an old file", "response_id": "r1"}
    old_path = client._store.path(key)
    old_path.parent.mkdir(parents=True, exist_ok=True)
    old_record = {"schema": "rtlab.llm-cache/1", "request": normalize_request(old), **answer}
    old_path.write_text(json.dumps(old_record, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    hit = client.cached(old)
    assert hit is not None and hit.content == "from an old file" and hit.response_id == "r1" and hit.cached

    # a truncated or foreign file is not a hit: the call is made again
    old_path.write_text(text[: len(text) // 2], encoding="utf-8")
    assert client.cached(old) is None
    old_path.write_text(json.dumps({"schema": "other", "content": "x"}), encoding="utf-8")
    assert client.cached(old) is None


def test_batch_retries_429_and_500_on_the_event_loop(srv, tmp_path):
    srv.script(http_error(429, retry_after=0.5), http_error(500))
    start = time.monotonic()
    [r] = make(srv, tmp_path, cache=False).batch([req("retried")])
    assert r.ok and r.attempts == 3 and srv.n_requests == 3
    assert srv.request_times[1] - srv.request_times[0] >= 0.5  # Retry-After honoured, not the 0.01 s backoff
    assert time.monotonic() - start >= 0.5

    srv.reset()
    srv.script(*[http_error(503)] * 2)
    [r] = make(srv, tmp_path, max_attempts=2).batch([req("given up")])
    assert not r.ok and r.attempts == 2 and "HTTP 503" in r.error and r.cost is None
    assert make(srv, tmp_path).cached(req("given up")) is None  # failures are not cached


def test_batch_retries_a_timeout(srv, tmp_path, transport):
    srv.script(slow(HELD))
    [r] = make(srv, tmp_path, cache=False, transport=transport, timeout=TIMEOUT).batch(
        [req("timed out once")]
    )
    assert r.ok and r.attempts == 2 and srv.n_requests == 2


def test_batch_backoff_is_shared_and_does_not_block_the_loop(srv, tmp_path):
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(0)

    srv.script(http_error(502), http_error(502), http_error(502))
    client = make(srv, tmp_path, backoff=1.0, max_attempts=4, async_sleep=record)
    results = client.batch([req(f"b{i}") for i in range(4)], max_workers=1)
    assert [r.attempts for r in results] == [4, 1, 1, 1]
    assert len(waits) == 3 and all(0.5 * 2**n <= w <= 2**n for n, w in enumerate(waits))  # the sync policy

    # while one call waits for Retry-After, the other worker goes on: the wait is asyncio.sleep
    srv.reset()
    srv.script(http_error(429, retry_after=0.4))
    told: list[float] = []

    async def until_the_others_are_made(seconds: float) -> None:
        told.append(seconds)
        # returns once the 429 and the five other calls have reached the server: if waiting held the other
        # worker back, they never would, and this fails after the safety timeout
        assert await asyncio.to_thread(srv.wait_for_requests, 6, timeout=SAFETY)

    client = make(srv, tmp_path, cache=False, async_sleep=until_the_others_are_made)
    results = client.batch([req(f"w{i}") for i in range(6)], max_workers=2)
    assert all(r.ok for r in results) and sorted(r.attempts for r in results) == [1, 1, 1, 1, 1, 2]
    assert told == [0.4]  # Retry-After, not the backoff
    log = srv.requests
    assert len(log) == 7 and log[-1] == log[0]  # the retry went last, after the five others
    assert sorted(m["messages"][0]["content"] for m in log[1:]) == [f"w{i}" for i in range(6)]


@pytest.fixture(scope="module")
def own_server():
    """A server of its own, so that ``max_in_flight`` counts only this module's calls."""
    with SimulatedServer() as server:
        yield server


def test_concurrency_bound_is_respected(own_server, tmp_path, transport):
    srv = own_server
    client = make(srv, tmp_path, cache=False, transport=transport)
    for workers in (1, 5):
        srv.reset()
        srv.script(*[slow(HELD)] * workers)  # the first wave is held until it is all in flight, then answered
        released = release_when(srv, workers)
        results = client.batch([req(f"c{workers}-{i}") for i in range(2 * workers)], max_workers=workers)
        assert released()  # the bound is used: `workers` calls were in flight together
        assert all(r.ok for r in results) and srv.n_requests == 2 * workers
        assert srv.max_in_flight == workers  # and never more, while the first wave was held
    client.close()


def test_batch_works_inside_a_running_event_loop(srv, tmp_path):
    client = make(srv, tmp_path)

    async def notebook_cell() -> list[CallResult]:  # Jupyter runs cells inside its own loop
        return client.batch([req("in a loop"), req("also")])

    results = asyncio.run(notebook_cell())
    assert [r.content for r in results] == ["[simulated] in a loop", "[simulated] also"]

    async def awaited() -> list[CallResult]:
        return await client.abatch([req("in a loop"), req("awaited")], max_workers=2)

    again = asyncio.run(awaited())
    assert again[0].cached and not again[1].cached and again[1].content == "[simulated] awaited"
    assert srv.n_requests == 3


def test_cancelled_batch_keeps_finished_calls_cached(srv, tmp_path):
    requests = [req(f"cancel {i}") for i in range(8)]
    srv.script(Scripted(), Scripted(), slow(HELD), slow(HELD))  # two calls answered, the next two held
    client = make(srv, tmp_path)

    async def cancel_midway() -> None:
        task = asyncio.create_task(client.abatch(requests, max_workers=2))
        # the 3rd and 4th requests come from the two workers once their first calls are answered and cached
        assert await asyncio.to_thread(srv.wait_for_requests, 4)
        task.cancel()  # while two calls are in flight
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    assert wound_down(client)  # the calls cancelled in flight are not retried in the background
    srv.release()
    assert srv.n_requests == 4
    cached = [client.cached(r) is not None for r in requests]
    assert sum(cached) == 2 and not any(cached[4:])  # what finished is cached, nothing else
    assert not list((tmp_path / "cache").rglob("*.tmp"))
    results = make(srv, tmp_path).batch(requests, max_workers=4)
    assert all(r.ok for r in results) and [r.cached for r in results] == cached
    assert srv.n_requests == 4 + 6


def test_batch_cancelled_while_its_workers_start_leaves_none_running(tmp_path):
    # Workers start one loop turn apart; a cancellation that lands while they are still being started must
    # stop those already running (none may go on sending in the background)
    requests = [req(f"starting {i}") for i in range(200)]
    # a server of its own: requests the cancellation caught on the wire may still arrive, late, and would be
    # counted (and take scripted answers) in the tests after this one
    with SimulatedServer() as srv:
        srv.script(*[slow(HELD)] * 200)  # every call held: a worker left running would still wait on one
        client = make(srv, tmp_path, cache=False)

        async def cancel_at_the_first_requests() -> None:
            task = asyncio.create_task(client.abatch(requests, max_workers=200))
            assert await asyncio.to_thread(srv.wait_for_requests, 1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(cancel_at_the_first_requests())
        assert wound_down(client)  # every worker started was stopped: none is left waiting on its call
        srv.reset()  # the held calls answered, the rest of the script dropped
        assert all(r.ok for r in client.batch(requests[:4], max_workers=4))  # the client still works
        client.close()


@pytest.fixture
def ctrl_c():
    """SIGINT raises KeyboardInterrupt, as in an interactive Python, even where the suite was started with SIGINT
    ignored (a shell without job control starts background commands so, and Python then keeps SIG_IGN)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_keyboard_interrupt_cancels_a_batch_and_keeps_finished_calls(srv, tmp_path, ctrl_c):
    requests = [req(f"interrupt {i}") for i in range(8)]
    srv.script(Scripted(), Scripted(), slow(HELD), slow(HELD))  # two calls answered, the next two held
    client = make(srv, tmp_path)
    sent: list[bool] = []

    def ctrl_c_once_two_calls_are_held() -> None:
        sent.append(srv.wait_for_requests(4))
        if sent[0]:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while batch waits

    interrupter = threading.Thread(target=ctrl_c_once_two_calls_are_held, daemon=True)
    interrupter.start()
    with pytest.raises(KeyboardInterrupt):
        client.batch(requests, max_workers=2)
    interrupter.join()
    assert sent == [True]
    assert wound_down(client)  # nothing goes on after the interrupt: batch returned once its calls stopped
    srv.release()
    assert srv.n_requests == 4
    cached = [client.cached(r) is not None for r in requests]
    assert sum(cached) == 2 and not any(cached[4:])
    assert [r.cached for r in client.batch(requests, max_workers=4)] == cached
    assert srv.n_requests == 4 + 6


def test_invalid_request_in_a_batch_raises(srv, tmp_path):
    with pytest.raises(LLMError, match="'model' and 'messages'"):
        make(srv, tmp_path).batch([req("fine"), {"model": "m"}], max_workers=1)
    with pytest.raises(LLMError, match="transport"):
        make(srv, tmp_path, transport="carrier-pigeon")


def test_close_and_garbage_collection_stop_the_loop_thread(srv, tmp_path):
    with make(srv, tmp_path, cache=False) as client:
        client.batch([req("x")])
        thread = client._runner._thread
        assert thread.is_alive()
    assert not thread.is_alive()

    client = make(srv, tmp_path, cache=False)
    client.batch([req("y")])
    thread = client._runner._thread
    del client
    gc.collect()
    thread.join(timeout=SAFETY)  # the safety timeout only; the thread stops at once
    assert not thread.is_alive()


# ---------------------------------------------------------------------------------------------------------
# Choosing the model: a configured endpoint or the simulated one (open_llm)


def test_open_llm_simulated_announces_itself_and_stops_with_the_block(tmp_path, monkeypatch):
    import socket
    from urllib.parse import urlsplit

    from rtlab.llm import SIMULATED_NOTICE, open_llm

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    said: list[str] = []
    with open_llm(simulated=True, cache_dir=tmp_path, on_notice=said.append) as chosen:
        assert chosen.simulated and chosen.notice == SIMULATED_NOTICE and said == [SIMULATED_NOTICE]
        assert chosen.describe() == f"endpoint: {chosen.client.base_url} ({SIMULATED_NOTICE})"
        result = chosen.client.complete(req("hi"))
        assert result.ok and "simulated" in (result.response_model or "")
        assert chosen.client.complete(req("hi")).cached  # cache="all": the CLI's --simulated reruns for free
        where = urlsplit(chosen.client.base_url)
    with pytest.raises(OSError):
        socket.create_connection((where.hostname, where.port), timeout=2).close()


def test_open_llm_chooses_the_simulated_model_only_without_an_endpoint(monkeypatch):
    from rtlab.llm import configured_endpoint, open_llm

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert configured_endpoint() is None
    with open_llm() as chosen:
        assert chosen.simulated and chosen.client.base_url.startswith("http://127.0.0.1:")
    with open_llm(base_url="http://127.0.0.1:9/v1") as chosen:
        assert not chosen.simulated and chosen.notice is None
        assert chosen.client.base_url == "http://127.0.0.1:9/v1"
        assert chosen.describe() == "endpoint: http://127.0.0.1:9/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8/v1")
    assert configured_endpoint() == "http://127.0.0.1:8/v1"
    with open_llm(cache="none") as chosen:
        assert not chosen.simulated and chosen.client.base_url == "http://127.0.0.1:8/v1"
    with open_llm(simulated=True) as chosen:  # asked for: the simulated model, whatever is configured
        assert chosen.simulated


def test_open_llm_caches_the_simulated_model_only_when_asked(tmp_path, monkeypatch):
    from rtlab.llm import open_llm

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for cache, cached in (("real", False), ("none", False), ("all", True)):
        folder = tmp_path / cache
        with open_llm(cache=cache, cache_dir=folder) as chosen:
            assert chosen.simulated
            chosen.client.complete(req("same"))
            assert chosen.client.complete(req("same")).cached is cached
        assert folder.is_dir() == cached and (not cached or any(folder.rglob("*.json")))


def test_open_llm_never_shows_or_caches_the_api_key(tmp_path, monkeypatch):
    from rtlab.llm import open_llm

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    secret = "sk-test-do-not-show-4c1d"
    with open_llm(simulated=True, api_key=secret, cache_dir=tmp_path) as chosen:
        assert chosen.client.api_key == secret  # it is used ...
        assert chosen.client.complete(req("hi")).ok
        shown = [repr(chosen), repr(chosen.client), str(chosen.client), chosen.describe()]
    assert not any(secret in s for s in shown)  # ... and never shown
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files and not any(secret.encode() in p.read_bytes() for p in files)
    with open_llm(simulated=False, base_url="http://user:pa55word@127.0.0.1:9/v1", api_key=secret) as chosen:
        assert chosen.describe() == "endpoint: http://127.0.0.1:9/v1"


def test_open_llm_prices_from_a_table_or_a_file(tmp_path, monkeypatch):
    from rtlab.llm import DEFAULT_PRICES, open_llm

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    prices = tmp_path / "prices.json"
    prices.write_text('{"m": [1, 2]}', encoding="utf-8")
    with open_llm(cache="none") as chosen:
        assert dict(chosen.client.prices) == dict(DEFAULT_PRICES)
    with open_llm(cache="none", prices=prices) as chosen:
        assert dict(chosen.client.prices) == {"m": (1.0, 2.0)}
    with open_llm(cache="none", prices={"n": (3.0, 4.0)}) as chosen:
        assert dict(chosen.client.prices) == {"n": (3.0, 4.0)}
    said: list[str] = []
    prices.write_text('{"m": "free"}', encoding="utf-8")
    with pytest.raises(LLMError, match="price of 'm'"):
        with open_llm(simulated=True, prices=prices, on_notice=said.append):
            pass
    assert said  # the simulated model was announced before the bad table was read
