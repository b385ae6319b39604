"""The simulated OpenAI-compatible server, driven by the real openai client.

Waits are checked from below (load only lengthens them) or by what the server was asked to wait, never
against a wall-clock ceiling that a loaded machine could pass.
"""

from __future__ import annotations

import json
import threading
import time

import openai
import pytest

from rtlab.llm import (
    SIMULATED_MODEL,
    SIMULATED_TAG,
    SimulatedServer,
    http_error,
    refuse,
    reply,
    simulate_label,
    slow,
)

PROMPT = """## Item
Rubric item 0: Does the report state the total revenue of 4,434.5 from sales_2024.csv?
## Judge evidence
No evidence of the total revenue in the report.
## Deliverable (relevant part)
report.md: North 1,234.5 and South 3,200.
## Read log (excerpts as shown)
[L1] step 1 data/sales_2024.csv: Total revenue 4,434.5 in 2024
## Candidates (listed, never read)
(none)
"""


@pytest.fixture(scope="module")
def srv():
    with SimulatedServer() as server:
        yield server


SAFETY = 30.0
"""Client timeout where the timeout is not under test: only a hang reaches it."""


@pytest.fixture
def client(srv):
    srv.reset()
    return openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=SAFETY)


def ask(client, text: str = PROMPT, **kw):
    return client.chat.completions.create(
        model=SIMULATED_MODEL, messages=[{"role": "user", "content": text}], **kw
    )


def test_simulated_answer_is_a_labelled_deterministic_json_label(client, srv):
    first, second = ask(client), ask(client)
    label = json.loads(first.choices[0].message.content)
    assert label["category"] == "shown_but_missing"  # S5: 4,434.5 in the read log, not in the deliverable
    assert label["rationale"].startswith(SIMULATED_TAG)
    assert first.choices[0].message.content == second.choices[0].message.content
    assert "simulated" in first.model
    assert first.object == "chat.completion" and first.choices[0].finish_reason == "stop"
    assert first.usage.prompt_tokens == -(-len(PROMPT) // 4)
    assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens
    assert srv.n_requests == 2 and srv.requests[0]["messages"][0]["content"] == PROMPT


def test_other_models_are_reported_as_simulated(client):
    r = client.chat.completions.create(model="gpt-x", messages=[{"role": "user", "content": "hi"}])
    assert r.model == "simulated:gpt-x"
    assert r.choices[0].message.content == f"{SIMULATED_TAG} hi"


@pytest.mark.parametrize(
    ("change", "category", "subreason"),
    [
        (("report.md: North 1,234.5 and South 3,200.", "(none)"), "other", "missing_deliverable"),
        (
            ("No evidence of the total", "The rubric is wrong; no evidence of the total"),
            "other",
            "judge_error",
        ),
        (("No evidence of the total", "4,400 does not match the total"), "dropped_or_distorted", None),
        (("Total revenue 4,434.5 in 2024", "region,revenue"), "other", "undetermined"),
    ],
)
def test_simulated_rules(change, category, subreason):
    label = simulate_label(PROMPT.replace(*change))
    assert (label["category"], label["subreason"]) == (category, subreason)


def test_discovery_rule():
    prompt = PROMPT.replace("[L1] step 1 data/sales_2024.csv: Total revenue 4,434.5 in 2024", "(none)")
    prompt = prompt.replace(
        "## Candidates (listed, never read)\n(none)", "## Candidates\ndata/sales_2024.csv (step 0)"
    )
    assert simulate_label(prompt)["category"] == "discovery"


def test_models_endpoint(client):
    assert [m.id for m in client.models.list()] == [SIMULATED_MODEL]


def test_scripted_queue_in_order(client, srv):
    srv.script(reply("not json"), http_error(500), refuse("no"))
    assert ask(client).choices[0].message.content == "not json"
    with pytest.raises(openai.InternalServerError):
        ask(client)
    assert ask(client).choices[0].message.refusal == "no"
    assert json.loads(ask(client).choices[0].message.content)["category"]  # queue empty: simulated again
    assert srv.n_requests == 4


def test_429_carries_retry_after(client, srv):
    srv.script(http_error(429, retry_after=2))
    with pytest.raises(openai.RateLimitError) as info:
        ask(client)
    assert info.value.response.headers["retry-after"] == "2"


def test_delay_beyond_client_timeout(srv):
    srv.reset()
    srv.script(slow(60))  # held far beyond the client's timeout (released at the end)
    quick = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=0.3)
    start = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        ask(quick)
    assert time.monotonic() - start < 30  # the client gave up; it did not wait for the answer
    assert srv.n_requests == 1
    srv.release()


def test_release_answers_held_requests_at_once(client, srv):
    srv.script(slow(60), slow(60))
    answers: list[str] = []
    asking = threading.Thread(target=lambda: answers.append(ask(client, "held").choices[0].message.content))
    asking.start()
    assert srv.wait_for_requests(1, timeout=SAFETY)  # the request is in, its answer held
    assert answers == []
    srv.release()
    asking.join(timeout=SAFETY)  # the safety timeout only: the answer comes at once
    assert answers == [f"{SIMULATED_TAG} held"]
    assert not srv.wait_for_requests(2, timeout=0)  # nothing else arrived
    srv.reset()  # the second scripted delay never used: dropped
    assert ask(client, "not held").choices[0].message.content == f"{SIMULATED_TAG} not held"


def test_latency_applies_to_every_answer():
    with SimulatedServer(latency=0.2) as server:
        c = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=SAFETY)
        for _ in range(2):
            start = time.monotonic()
            ask(c)
            assert time.monotonic() - start >= 0.2


def test_latency_includes_the_time_to_compute_the_answer(monkeypatch):
    # The answer is computed before the wait, and the wait is what is left of the latency: a simulation taking
    # 0.3 s inside a 0.5 s latency leaves at most 0.2 s to wait (less if the machine is slow), not 0.5 s (what
    # sleeping first, then computing, gave, and what computing, then sleeping the whole latency, would give)
    import rtlab.llm._simulated as testing

    real_completion, real_pause = testing._completion, testing._pause
    events: list[str | float] = []  # "computed", and the seconds of each wait, in order

    def slow_completion(*args, **kwargs):
        time.sleep(0.3)
        events.append("computed")
        return real_completion(*args, **kwargs)

    def pause(seconds, released):
        events.append(seconds)
        real_pause(seconds, released)

    monkeypatch.setattr(testing, "_completion", slow_completion)
    monkeypatch.setattr(testing, "_pause", pause)
    with SimulatedServer(latency=0.5) as server:
        c = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=SAFETY)
        start = time.monotonic()
        ask(c)
        elapsed = time.monotonic() - start
    computed, wait = events
    assert computed == "computed" and isinstance(wait, float) and wait <= 0.2 + 1e-6
    assert elapsed >= 0.5  # the latency still holds from arrival (checked from below: load only adds)


def test_base_url_needs_a_started_server():
    with pytest.raises(RuntimeError):
        _ = SimulatedServer().base_url
