"""A local OpenAI-compatible HTTP server with a deterministic **simulated** model, for tests and offline use.

:class:`SimulatedServer` listens on 127.0.0.1 (the OS picks the port) and speaks enough of the Chat
Completions API for the real ``openai`` client: ``POST /v1/chat/completions`` and ``GET /v1/models``. Its
model is not a language model: :func:`simulate_answer` reads the annotation (or masked-recovery) prompt
rtlab builds and applies a few keyword rules, so every answer is a deterministic function of the request.
The returned model name contains ``simulated`` and every label's rationale starts with :data:`SIMULATED_TAG`,
so nothing it says can pass for a real annotation.

Tests script what the next requests get (:meth:`SimulatedServer.script`): malformed content, an HTTP error
with ``Retry-After``, a delay longer than the client's timeout, a refusal, an empty or truncated 200 body, a
connection reset, an error that echoes the ``Authorization`` header. ``latency`` (for benchmarks) sends
every answer that many seconds after its request arrived, the simulation's own work included;
:attr:`SimulatedServer.requests` logs every request body received and :attr:`SimulatedServer.max_in_flight` is
the most chat-completion requests it was answering at once.

So that tests synchronise on events rather than on the clock, a test can wait until the server has received
so many requests (:meth:`SimulatedServer.wait_for_requests`), and hold answers with a long scripted delay
(``slow(60)``) that it ends when it chooses (:meth:`SimulatedServer.release`, also done by ``reset`` and
``stop``): "these calls are in flight now" is then a fact, not a guess about how fast the machine is.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import struct
import sys
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rtlab.llm._scripted import Scripted
from rtlab.llm._simulated_agent import agent_message
from rtlab.llm._simulated_batch import SimulatedBatches
from rtlab.llm._simulated_judge import is_judge_prompt, simulate_judgement
from rtlab.text import FILE_MENTION, file_mentions

SIMULATED_MODEL = "rtlab-simulated"
"""The model name to request from the server; answers report ``simulated:<requested>`` unless the name
already says ``simulated``."""
SIMULATED_TAG = "[simulated]"
"""Prefix of every rationale and free-text answer the simulated model gives."""


def reply(content: str) -> Scripted:
    """Answer with this message content (e.g. malformed JSON)."""
    return Scripted(content=content)


def http_error(status: int, *, retry_after: float | None = None) -> Scripted:
    """Answer with an HTTP error status (429, 500, ...), optionally with a ``Retry-After`` header in seconds."""
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    return Scripted(status=status, headers=headers)


def slow(seconds: float) -> Scripted:
    """Answer the simulated answer after ``seconds`` (longer than the client's timeout: a timeout), or when
    :meth:`SimulatedServer.release` is called, whichever comes first (a test holds a call in flight with a
    long delay, and ends it when it has seen what it needs)."""
    return Scripted(delay=seconds)


def empty_body() -> Scripted:
    """Answer HTTP 200 with an empty body."""
    return Scripted(body=b"")


def truncated_body(fraction: float = 0.5, *, declared_in_full: bool = False) -> Scripted:
    """Answer HTTP 200 with the first ``fraction`` of the completion's JSON: a complete message whose body is cut
    short, or (``declared_in_full``) one whose ``Content-Length`` promised more before the connection closed."""
    return Scripted(cut=fraction, declared_in_full=declared_in_full)


def reset_connection() -> Scripted:
    """Read the request, then reset the connection (TCP RST) without answering."""
    return Scripted(reset=True)


def echo_authorization(status: int = 401) -> Scripted:
    """Answer with HTTP ``status`` and an error message quoting the request's ``Authorization`` header."""
    return Scripted(status=status, echo_authorization=True)


def refuse(text: str = "I can't help with that.") -> Scripted:
    """Answer with a refusal instead of content."""
    return Scripted(refusal=text)


# ---------------------------------------------------------------------------------------------------------
# The simulated model

_SECTION = re.compile(r"^## (.+?)\s*$", re.MULTILINE)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?%?")
_RUBRIC_ERROR = re.compile(r"rubric (?:is )?(?:wrong|incorrect)|rubric incorrectly|incorrectly lists", re.I)
_MISMATCH = re.compile(r"does not match|doesn't match|inconsistent|incorrect|wrong value|distort", re.I)


def sections(prompt: str) -> dict[str, str]:
    """The ``## Title`` sections of a prompt: lower-cased first word of the title -> body."""
    marks = list(_SECTION.finditer(prompt))
    out: dict[str, str] = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(prompt)
        out[m.group(1).split()[0].lower()] = prompt[m.end() : end].strip()
    return out


def simulate_label(prompt: str) -> dict[str, Any]:
    """A codebook label for an rtlab annotation prompt by keyword rules S1-S6 (first that holds decides)."""
    part = sections(prompt)
    item, judge = part.get("item", ""), part.get("judge", "")
    deliverable, read_log, candidates = (
        part.get("deliverable", ""),
        part.get("read", ""),
        part.get("candidates", ""),
    )

    def label(rule: str, category: str, subreason: str | None, why: str) -> dict[str, Any]:
        return {"category": category, "subreason": subreason, "rationale": f"{SIMULATED_TAG} {rule}: {why}"}

    if deliverable in ("", "(none)"):
        return label("S1", "other", "missing_deliverable", "the prompt shows no deliverable")
    if _RUBRIC_ERROR.search(judge):
        return label("S2", "other", "judge_error", "the judge says the rubric is wrong")
    if _MISMATCH.search(judge):
        return label("S3", "dropped_or_distorted", None, "the judge reports a mismatch")
    files = {f.lower() for f in file_mentions(item)}
    if any(f in candidates.lower() and f not in read_log.lower() for f in files):
        return label("S4", "discovery", None, "a file the item names was listed but never read")
    numbers = [n for n in _NUMBER.findall(FILE_MENTION.sub(" ", item)) if len(n.strip(",.%")) >= 2]
    if any(n in read_log and n not in deliverable for n in numbers):
        return label("S5", "shown_but_missing", None, "a value of the item was read but is not delivered")
    return label("S6", "other", "undetermined", "no keyword rule applies")


_VALUE = re.compile(r"(?<![\w.])[$¥€£]?\d[\d,]*(?:\.\d+)?%?(?![\w])")
_WORD = re.compile(r"[a-z]{3,}")
_COMMON = frozenset("the and does did for from with are was were this that its into has have".split())
RECOVERY_WINDOW = 24
"""Characters before a number (same line) that the simulated recovery rule compares with the requirement."""


def simulate_recovery(prompt: str) -> dict[str, Any]:
    """The simulated answer to an rtlab masked-recovery prompt (it has a ``## Masked requirement`` section).

    Rule R1: over the task and every context section (in prompt order; notes and answer aside), each number
    with three or more digits that the requirement does not itself write is scored by the words (3+ letters,
    a few common ones aside) it shares with the requirement within :data:`RECOVERY_WINDOW` characters
    before it on its line; the best (first on ties, score at least 1) is the answer, as written. R2: no such
    number: ``null``.
    """
    part = sections(prompt)
    requirement = part.get("masked", "").split("\n", 1)[-1]  # the requirement, its heading line aside
    words = set(_WORD.findall(requirement.lower())) - _COMMON - {"masked"}
    own = set(_VALUE.findall(requirement))
    best, best_score = None, 0
    for name, body in part.items():
        if name in ("masked", "notes", "answer"):
            continue
        for line in body.splitlines():
            for m in _VALUE.finditer(line):
                if m.group() in own or sum(c.isdigit() for c in m.group()) < 3:
                    continue
                window = line[max(0, m.start() - RECOVERY_WINDOW) : m.start()].lower()
                score = len(words & set(_WORD.findall(window)))
                if score > best_score:
                    best, best_score = m.group(), score
    return {"value": best}


def simulate_answer(messages: list[dict[str, Any]]) -> str:
    """The simulated model's message content for a conversation: a JSON label when the first user message is
    an rtlab annotation prompt (it has an ``## Item`` section), a JSON value for a masked-recovery prompt
    (``## Masked requirement``), JSON verdicts for a judge prompt (``## Evidence`` and its JSON), else a tagged
    echo."""
    user = [m for m in messages if m.get("role") == "user"]
    first = str(user[0].get("content") or "") if user else ""
    if "## Item" in first:
        return json.dumps(simulate_label(first), ensure_ascii=False)
    if "## Masked requirement" in first:
        return json.dumps(simulate_recovery(first), ensure_ascii=False)
    if is_judge_prompt(first):  # rtlab's rubric judge (rtlab.llm._simulated_judge)
        return json.dumps(simulate_judgement(first), ensure_ascii=False)
    return f"{SIMULATED_TAG} {first[:200]}"


def _tokens(text: str) -> int:
    return max(1, -(-len(text) // 4))


# ---------------------------------------------------------------------------------------------------------
# The server


class SimulatedServer:
    """An OpenAI-compatible server on 127.0.0.1 with a simulated model; a context manager.

    ``with SimulatedServer() as srv: openai.OpenAI(base_url=srv.base_url, api_key="x")``.
    """

    def __init__(self, *, latency: float = 0.0, host: str = "127.0.0.1", port: int = 0) -> None:
        self.latency = latency
        self._host, self._port = host, port
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        """Notified at each request's arrival (:meth:`wait_for_requests`)."""
        self._released = threading.Event()
        """Set by :meth:`release` to end the scripted delays of requests already received (then replaced)."""
        self._script: deque[Scripted] = deque()
        self._log: list[dict[str, Any]] = []
        self._times: list[float] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.batches = SimulatedBatches(lambda body: _completion(body, body["messages"], Scripted()))
        """The Files and Batch API (``/v1/files``, ``/v1/batches``): each line answered like a chat completion."""

    # -- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> SimulatedServer:
        """Bind and serve in a daemon thread."""
        handler = type("Handler", (_Handler,), {"server_obj": self})
        self._httpd = _HTTPServer((self._host, self._port), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="rtlab-simulated", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (answers held by a scripted delay are released first)."""
        self.release()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> SimulatedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: what ``openai.OpenAI(base_url=...)`` takes."""
        if self._httpd is None:
            raise RuntimeError("server not started")
        host, port = self._httpd.server_address[:2]
        # an AF_INET socket names its host as a str (typeshed allows bytes for other address families)
        assert isinstance(host, str)
        return f"http://{host}:{port}/v1"

    # -- scripting and the log --------------------------------------------------------------------------

    def script(self, *responses: Scripted) -> None:
        """Queue what the next requests get, in order; once the queue is empty the simulation answers."""
        with self._lock:
            self._script.extend(responses)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of every chat-completion request received, in arrival order."""
        with self._lock:
            return list(self._log)

    @property
    def request_times(self) -> list[float]:
        """``time.monotonic()`` at each request's arrival."""
        with self._lock:
            return list(self._times)

    @property
    def n_requests(self) -> int:
        with self._lock:
            return len(self._log)

    @property
    def max_in_flight(self) -> int:
        """The most chat-completion requests answered at once (received, their answer not yet ready to go) since
        the last :meth:`reset`: what a client's concurrency bound is checked against."""
        with self._lock:
            return self._max_in_flight

    def wait_for_requests(self, n: int, *, timeout: float = 60.0) -> bool:
        """Block until at least ``n`` chat-completion requests have arrived since the last :meth:`reset`; ``False``
        if ``timeout`` seconds pass first. For tests: wait for "the client has sent its calls" on the event
        itself; the timeout only turns a hang into a failure."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self._log) >= n, timeout=timeout)

    def release(self) -> None:
        """Answer now every request received so far that a scripted delay (:func:`slow`) still holds; requests
        arriving later wait their own delay."""
        with self._lock:
            released, self._released = self._released, threading.Event()
        released.set()

    def reset(self) -> None:
        """Forget the log, the most requests in flight and any scripted responses left; release held answers."""
        self.release()
        with self._lock:
            self._log.clear()
            self._times.clear()
            self._script.clear()
            self._max_in_flight = self._in_flight

    def _next(self, body: dict[str, Any]) -> tuple[Scripted | None, threading.Event]:
        """Log an arrived request: what the script says it gets, and the event that releases its delay."""
        with self._lock:
            self._log.append(body)
            self._times.append(time.monotonic())
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._arrived.notify_all()
            return (self._script.popleft() if self._script else None), self._released

    def _answered(self) -> None:
        with self._lock:
            self._in_flight -= 1


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    """The listen backlog (socketserver's default is 5): an asyncio client opens its connections in one
    burst, and connections beyond the backlog would wait a second for a SYN retry or be reset."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return  # the client went away (its timeout, a cancelled batch): nothing to report
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server_obj: SimulatedServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart (Nagle + delayed ACK)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        pass  # quiet: tests read the request log instead

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): nothing to answer

    def _batch_api(self, method: str, raw: bytes) -> bool:
        """Answer a Files / Batch API request (``rtlab.llm._simulated_batch``); ``False`` for other paths."""
        if not self.path.startswith(("/v1/files", "/v1/batches")):
            return False
        status, payload = self.server_obj.batches.handle(method, self.path, self.headers, raw)
        if isinstance(payload, bytes):
            self._send_raw(Scripted(body=payload), payload)
        else:
            self._send(status, payload)
        return True

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self._batch_api("GET", b""):
            return
        if self.path.rstrip("/") == "/v1/models":
            model = {"id": SIMULATED_MODEL, "object": "model", "created": 0, "owned_by": "rtlab (simulated)"}
            self._send(200, {"object": "list", "data": [model]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        arrived = time.monotonic()  # the whole request is in: the latency counts from here
        if self._batch_api("POST", raw):
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw)
            messages = body["messages"]
        except (ValueError, KeyError, TypeError):
            self._send(
                400, {"error": {"message": "body must be JSON with messages", "type": "invalid_request"}}
            )
            return
        srv = self.server_obj
        next_, released = srv._next(body)
        scripted = next_ or Scripted()
        if scripted.reset:
            srv._answered()
            self._reset()
            return
        try:
            if scripted.status != 200:
                status = scripted.status
                message = f"scripted HTTP {status}"
                if scripted.echo_authorization:
                    message += f"; received Authorization: {self.headers.get('Authorization')}"
                payload = {"error": {"message": message, "type": "scripted_error", "code": None}}
            else:
                status, payload = 200, _completion(body, messages, scripted)
            # The answer is ready before the wait, so it goes out `latency` after arrival however many
            # answers are due at once (computing them after the wait would queue them on this process's GIL)
            _pause(
                arrived + srv.latency + scripted.delay - time.monotonic(),
                released if scripted.delay else None,
            )
        finally:
            # no longer in flight once its answer is ready to go: counted after the write, the next request of a
            # client that got this answer could arrive first and count as one more in flight
            srv._answered()
        if status == 200 and (scripted.body is not None or scripted.cut is not None):
            self._send_raw(scripted, json.dumps(payload).encode("utf-8"))
        else:
            self._send(status, payload, scripted.headers)

    def _send_raw(self, scripted: Scripted, whole: bytes) -> None:
        """A 200 answer whose body is not the completion: raw bytes, or the completion cut short."""
        data = scripted.body if scripted.body is not None else whole[: int(len(whole) * (scripted.cut or 0))]
        declared = len(whole) if scripted.declared_in_full else len(data)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(declared))
            if declared != len(data):
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return
        if declared != len(data):
            self.close_connection = True

    def _reset(self) -> None:
        """Abort the connection with a TCP RST (SO_LINGER on, zero seconds) instead of an answer."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()


def _pause(seconds: float, released: threading.Event | None) -> None:
    """Wait ``seconds`` before an answer goes out; a scripted delay (``released`` given) ends early when the server
    releases it. The latency alone is a plain sleep."""
    if released is None:
        time.sleep(max(0.0, seconds))
    elif seconds > 0:
        released.wait(seconds)


def _completion(body: dict[str, Any], messages: list[dict[str, Any]], scripted: Scripted) -> dict[str, Any]:
    requested = str(body.get("model") or SIMULATED_MODEL)
    model = requested if "simulated" in requested else f"simulated:{requested}"
    finish_reason = scripted.finish_reason
    if scripted.refusal is not None:
        content, message = "", {"role": "assistant", "content": None, "refusal": scripted.refusal}
    elif scripted.tool_calls is not None or (scripted.content is None and body.get("tools")):
        message, finish_reason = agent_message(body, scripted)  # an agent's turn: tool calls
        content = (message.get("content") or "") + json.dumps(message.get("tool_calls") or "")
    else:
        content = scripted.content if scripted.content is not None else simulate_answer(messages)
        message = {"role": "assistant", "content": content, "refusal": None}
    prompt = _tokens("".join(str(m.get("content") or "") for m in messages))
    completion = _tokens(content or scripted.refusal or "")
    return {
        "id": f"chatcmpl-sim-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
        "system_fingerprint": "rtlab-simulated",
    }
