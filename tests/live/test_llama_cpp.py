"""The wire against a real server (llama.cpp's, Gemma 3 270M; see conftest.py): what rtlab's client sends and
reads, the errors and timeouts the server really gives, and ``rtlab judge`` end to end. Never the answers'
quality: the model is far too small for rtlab's tasks."""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest
from judge_mini import write_run
from llama_live import CONTEXT, LiveServer
from synth_mini import build_mini_world

from rtlab.cli import main
from rtlab.ingest import ingest
from rtlab.llm import LLMClient, LLMError, parse_json_object

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city", "days"],
}
TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast of a city.",
        "parameters": SCHEMA,
    },
}


def _client(live: LiveServer, tmp_path: Path, **kw) -> LLMClient:
    return LLMClient(base_url=live.base_url, cache_dir=tmp_path / "cache", timeout=600, deadline=None, **kw)


def test_a_plain_completion_through_the_client(live: LiveServer, tmp_path: Path) -> None:
    request = {
        "model": live.model,
        "messages": [{"role": "user", "content": "Say hello."}],
        "max_tokens": 8,
        "temperature": 0,
    }
    with _client(live, tmp_path) as client:
        result = client.complete(request)
        assert result.error is None and isinstance(result.content, str)
        assert result.finish_reason in ("stop", "length")
        assert result.prompt_tokens and result.prompt_tokens > 0 and result.completion_tokens is not None
        assert result.attempts == 1 and not result.cached
        if result.content:  # an empty answer is not cached; any other is, and a second call makes no request
            again = client.complete(request)
            assert again.cached and again.content == result.content


def test_a_json_schema_answer_parses(live: LiveServer, tmp_path: Path) -> None:
    # llama.cpp's Python server takes a JSON schema as {"type": "json_object", "schema": ...} and decodes under
    # the grammar it compiles from it
    request = {
        "model": live.model,
        "messages": [
            {"role": "user", "content": "Plan a trip: which city, for how many days? Answer in JSON."}
        ],
        "max_tokens": 64,
        "temperature": 0,
        "response_format": {"type": "json_object", "schema": SCHEMA},
    }
    with _client(live, tmp_path) as client:
        result = client.complete(request)
    data, error = parse_json_object(result.content, required=("city", "days"))
    assert error is None and data is not None, result.content
    assert isinstance(data["city"], str) and isinstance(data["days"], int)


def test_openais_json_schema_form_is_a_server_error_the_client_names(
    live: LiveServer, tmp_path: Path
) -> None:
    # the same schema in OpenAI's form ({"type": "json_schema", ...}) fails the server's request validation,
    # which it answers with HTTP 500: retried as a server error, then named
    request = {
        "model": live.model,
        "messages": [{"role": "user", "content": "x"}],
        "max_tokens": 4,
        "response_format": {"type": "json_schema", "json_schema": {"name": "trip", "schema": SCHEMA}},
    }
    with _client(live, tmp_path, max_attempts=2, backoff=0.0) as client:
        result = client.complete(request)
    assert result.error is not None and result.error.startswith("HTTP 500"), result.error
    assert "json_object" in result.error and result.attempts == 2


def test_a_tool_call_answer(live: LiveServer, tmp_path: Path) -> None:
    # the tool call as the raw openai client reads it, and as LLMClient keeps it (the agent loop's path)
    messages = [{"role": "user", "content": "What is the weather in Paris for the next 3 days?"}]
    choice = {"type": "function", "function": {"name": "get_weather"}}
    raw = openai.OpenAI(base_url=live.base_url, api_key="local", max_retries=0, timeout=600)
    answer = raw.chat.completions.create(
        model=live.model, messages=messages, tools=[TOOL], tool_choice=choice, max_tokens=64, temperature=0
    )
    (call,) = answer.choices[0].message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_weather" and call.id
    arguments = json.loads(call.function.arguments)
    assert isinstance(arguments["city"], str) and isinstance(arguments["days"], int)
    assert answer.choices[0].finish_reason == "tool_calls"
    request = {
        "model": live.model,
        "messages": messages,
        "tools": [TOOL],
        "tool_choice": choice,
        "max_tokens": 64,
        "temperature": 0,
    }
    with _client(live, tmp_path) as client:
        result = client.complete(request)
    assert result.error is None and result.finish_reason == "tool_calls" and result.content is None
    (kept,) = result.tool_calls or []
    assert kept["function"]["name"] == "get_weather" and json.loads(kept["function"]["arguments"]) == arguments


def test_a_prompt_over_the_context_is_a_400_named_by_the_client(live: LiveServer, tmp_path: Path) -> None:
    request = {
        "model": live.model,
        "messages": [{"role": "user", "content": "word " * (2 * CONTEXT)}],
        "max_tokens": 4,
    }
    with _client(live, tmp_path) as client, pytest.raises(LLMError) as raised:
        client.complete(request)
    message = str(raised.value)
    assert "HTTP 400 (BadRequestError)" in message and "maximum context length" in message


def test_rtlab_judge_end_to_end(live: LiveServer, tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", build_mini_world(tmp_path / "mini"))
    status = main(
        [
            "judge",
            str(run),
            *("--model", live.model, "--base-url", live.base_url, "--cache-dir", str(tmp_path / "cache")),
            *("--response-format", "json_object_schema", "--max-str-len", "400", "--timeout", "900"),
            *("--deadline", "0", "--concurrency", "1"),
        ]
    )
    assert status == 0
    path = run / f"rubrics_judge--{live.model}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [r["index"] for r in data["rubrics"]] == list(range(7))  # any verdicts, one per item
    assert data["judge"]["baseUrl"] == live.base_url and data["judge"]["usage"]["prompt_tokens"] > 0
    (t,) = ingest([run]).trajectories
    assert t.judgement is not None and t.judgement.source_path == str(path) and len(t.judgement.items) == 7


def test_a_timeout_is_named_a_timeout(live: LiveServer, tmp_path: Path) -> None:
    # last: the server goes on generating the answer nobody waits for, and the next request queues behind it
    request = {
        "model": live.model,
        "messages": [{"role": "user", "content": "Write a long story about a lighthouse."}],
        "max_tokens": 256,
        "temperature": 0,
    }
    with LLMClient(base_url=live.base_url, cache=False, timeout=0.05, max_attempts=1) as client:
        result = client.complete(request)
    assert result.error is not None and result.error.startswith("no answer in time (timed out after 0.05 s)")


@pytest.mark.parametrize("method", ["dci", "runningtab"])
def test_rtlab_run_end_to_end(live: LiveServer, tmp_path: Path, method: str) -> None:
    # the agent loop against the real server: its tool definitions and messages accepted or refused as the
    # server does, every answer (a tool call, text, an error) recorded, and the run folder read back whole; what
    # the model does with the task is not checked (it cannot do it)
    from rtlab.agent import is_complete

    world = tmp_path / "world"
    assert (
        main(
            [
                "synth",
                str(world),
                "--config",
                str(Path(__file__).parents[1] / "fixtures" / "agent_world.json"),
            ]
        )
        == 0
    )
    out = tmp_path / method
    status = main(
        [
            "run",
            f"{world}:sim-operations-01",
            *("--method", method, "--model", live.model, "--base-url", live.base_url, "--out", str(out)),
            *(
                "--max-turns",
                "3",
                "--max-tokens",
                "128",
                "--temperature",
                "0",
                "--context",
                "truncate-old-outputs:1500",
            ),
        ]
    )
    assert status in (0, 5)  # finished (or out of turns), or ended by a request the server refused, recorded
    assert is_complete(out)
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["method"] in ("DCI", "RunningTab") and run["model"] == live.model
    assert run["agent"]["end_reason"] in ("finished", "max_turns", "client_error", "server_error", "length")
    assert run["agent"]["requests"] >= 1
    if run["agent"]["end_reason"] != "client_error":
        assert run["agent"]["usage"]["prompt_tokens"] > 0  # the server's own token counts
    (t,) = ingest([out]).trajectories
    assert t.method == run["method"] and t.task is not None
