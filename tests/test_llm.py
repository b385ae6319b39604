"""LLMClient against the local simulated server with the real openai client: retries, cache, batches, cost."""

from __future__ import annotations

import json
import time

import pytest

from rtlab.llm import (
    CallResult,
    LLMClient,
    LLMError,
    call_cost,
    load_prices,
    normalize_request,
    request_key,
    results_frame,
    usage_summary,
)
from rtlab.testing import SIMULATED_MODEL, SimulatedServer, http_error, refuse, reply, slow


def make(srv, tmp_path, **kw) -> LLMClient:
    kw.setdefault("backoff", 0.01)
    return LLMClient(
        base_url=srv.base_url, api_key="x", timeout=5, cache_dir=tmp_path / "cache", seed=0, **kw
    )


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
    srv.script(slow(1.0))
    client = make(srv, tmp_path)
    client.timeout = 0.3
    r = client.complete(req())
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
    with SimulatedServer(latency=0.2) as srv:
        client = make(srv, tmp_path)
        start = time.monotonic()
        results = client.batch([req(t) for t in texts], max_workers=8, progress=True)
        elapsed = time.monotonic() - start
    assert [r.content for r in results] == [f"[simulated] {t}" for t in texts]
    assert elapsed < 2.0  # 16 calls of 0.2 s on 8 workers: about 0.4 s; one at a time: 3.2 s
    assert srv.n_requests == 16


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
    from rtlab.llm import ask_until_valid

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
