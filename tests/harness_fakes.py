"""Scripted local model servers for the end-to-end runs of the real harness CLIs (tests/test_harness_e2e.py).

:class:`AnthropicFake` speaks the Anthropic Messages API as Claude Code calls it (``POST /v1/messages``, with
``?beta=true``, streamed as server-sent events or answered whole): it accepts the mid-conversation ``system``
messages and the ``anthropic-beta`` flags Claude Code sends, keeps every request body, and answers each request
with the next move of a script, a function of the conversation so far (so retries and extra requests do not
shift it). Only 127.0.0.1; nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Move = dict[str, Any]
"""One answer: ``{"text": ...}`` or ``{"tool": name, "input": {...}}``."""


def blocks(body: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """Every content block of ``kind`` in the request's messages, in order."""
    found = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            found += [b for b in content if isinstance(b, dict) and b.get("type") == kind]
    return found


def texts(body: dict[str, Any], role: str | None = None) -> list[str]:
    """The text of every message (text blocks, string contents) of ``role`` (any when None)."""
    out = []
    for message in body.get("messages", []):
        if role is not None and message.get("role") != role:
            continue
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return out


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


class AnthropicFake:
    """A scripted Anthropic Messages server on 127.0.0.1 (``script(body) -> Move``)."""

    def __init__(self, script: Callable[[dict[str, Any]], Move]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.end_headers()

            def do_GET(self) -> None:
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.startswith("/v1/messages") or self.path.startswith(
                    "/v1/messages/count_tokens"
                ):
                    payload = json.dumps({"input_tokens": 10}).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                fake.requests.append(body)
                fake.headers.append(dict(self.headers))
                move = fake.script(body)
                message_id = f"msg_{len(fake.requests)}"
                if body.get("stream"):
                    self._stream(body, move, message_id)
                else:
                    self._whole(body, move, message_id)

            def _content(self, move: Move, message_id: str) -> tuple[dict[str, Any], str]:
                if "tool" in move:
                    block = {
                        "type": "tool_use",
                        "id": f"toolu_{message_id}",
                        "name": move["tool"],
                        "input": move["input"],
                    }
                    return block, "tool_use"
                return {"type": "text", "text": move["text"]}, "end_turn"

            def _whole(self, body: dict[str, Any], move: Move, message_id: str) -> None:
                block, stop = self._content(move, message_id)
                payload = json.dumps(
                    {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": body.get("model", "fake"),
                        "content": [block],
                        "stop_reason": stop,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 5},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _stream(self, body: dict[str, Any], move: Move, message_id: str) -> None:
                block, stop = self._content(move, message_id)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()

                def event(kind: str, data: dict[str, Any]) -> None:
                    self.wfile.write(
                        f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()
                    )

                event(
                    "message_start",
                    {
                        "message": {
                            "id": message_id,
                            "type": "message",
                            "role": "assistant",
                            "model": body.get("model", "fake"),
                            "content": [],
                            "stop_reason": None,
                            "stop_sequence": None,
                            "usage": {"input_tokens": 10, "output_tokens": 1},
                        }
                    },
                )
                if block["type"] == "tool_use":
                    event("content_block_start", {"index": 0, "content_block": {**block, "input": {}}})
                    delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                else:
                    event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
                    delta = {"type": "text_delta", "text": block["text"]}
                event("content_block_delta", {"index": 0, "delta": delta})
                event("content_block_stop", {"index": 0})
                event(
                    "message_delta",
                    {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}},
                )
                event("message_stop", {})
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> AnthropicFake:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


class ResponsesFake:
    """A scripted OpenAI Responses server on 127.0.0.1 as Codex calls it (``POST /v1/responses``, streamed as
    server-sent events: ``response.created``, one ``response.output_item.done`` per item, ``response.completed``;
    Codex removed ``wire_api = "chat"``). ``script(body) -> Move``, where a tool move may name a ``namespace``
    (an MCP server's tools reach the model as one namespace tool)."""

    def __init__(self, script: Callable[[dict[str, Any]], Move]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                payload = json.dumps({"object": "list", "data": [], "models": []}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) or b"{}"
                if self.headers.get("content-encoding") == "zstd":
                    import zstandard

                    raw = zstandard.ZstdDecompressor().decompress(raw, max_output_size=1 << 28)
                body = json.loads(raw)
                fake.requests.append(body)
                move = fake.script(body)
                n = len(fake.requests)
                if "tool" in move:
                    item: dict[str, Any] = {
                        "type": "function_call",
                        "id": f"fc_{n}",
                        "call_id": f"call_{n}",
                        "name": move["tool"],
                        "arguments": json.dumps(move["input"]),
                        "status": "completed",
                    }
                    if move.get("namespace"):
                        item["namespace"] = move["namespace"]
                else:
                    item = {
                        "type": "message",
                        "id": f"msg_{n}",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": move["text"], "annotations": []}],
                    }
                response = {"id": f"resp_{n}", "object": "response", "status": "in_progress", "output": []}
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()

                def event(kind: str, data: dict[str, Any]) -> None:
                    self.wfile.write(
                        f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()
                    )

                event("response.created", {"response": response})
                event("response.output_item.done", {"output_index": 0, "item": item})
                usage = {
                    "input_tokens": 10,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": 5,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": 15,
                }
                event(
                    "response.completed",
                    {"response": {**response, "status": "completed", "output": [item], "usage": usage}},
                )
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ResponsesFake:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
