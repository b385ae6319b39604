"""An LLM server at fault (issue 30, item 6): one that drips its body a byte a second is cut at the deadline
(the deadline bounds the whole call, reading the body included), a huge body is refused within the stated
limit (``RTLAB_MAX_RESPONSE_BYTES``, 32 MiB) with bounded memory, and a 200 answer with no ``choices``, an
empty list of them or null content is a failed call, retried, never cached.

The servers are real sockets on 127.0.0.1: a scripted raw HTTP server below (its bytes and their timing
exactly as written) and :class:`rtlab.llm.SimulatedServer`; the client is never patched. Time appears only as
generous upper bounds of correctness (the deadline plus 10 s), never as a speed test.
"""

from __future__ import annotations

import gzip
import itertools
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT
from peak_rss import PEAK_RSS

from rtlab.cli import EXIT_CALLS_FAILED, main
from rtlab.llm import SIMULATED_MODEL, LLMClient, Scripted

SAMPLE = ROOT / "data" / "sample"
KEY = "sk-rtlabFAKEkey-0123456789abcdef"
ANSWER = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}
        ],
    }
).encode()


def _read_request(conn: socket.socket) -> bool:
    """Read one HTTP request (headers and its Content-Length body); ``False`` when the client went away."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        body += chunk
    return True


Behaviour = Callable[[socket.socket], None]


@contextmanager
def scripted_server(behaviour: Behaviour) -> Iterator[tuple[str, list[float]]]:
    """A raw HTTP server on 127.0.0.1 answering every request with ``behaviour(conn)`` (which writes the whole
    response, headers and all); yields its base URL and the arrival time of each request."""
    listener = socket.create_server(("127.0.0.1", 0))
    arrivals: list[float] = []
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                while not stop.is_set() and _read_request(conn):
                    arrivals.append(time.monotonic())
                    behaviour(conn)
            except OSError:  # the client hung up: what a cut body looks like from here
                pass

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", arrivals
    finally:
        stop.set()
        listener.close()


def _head(status: str = "200 OK", **headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status}", "Content-Type: application/json"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def drip(conn: socket.socket) -> None:
    """The whole answer promised (Content-Length), then sent one byte a second."""
    conn.sendall(_head(Content_Length=str(len(ANSWER))))
    for i in range(len(ANSWER)):
        conn.sendall(ANSWER[i : i + 1])
        time.sleep(1.0)


def drip_chunked(conn: socket.socket) -> None:
    """Chunked transfer, one byte a second, each byte its own chunk."""
    conn.sendall(_head(Transfer_Encoding="chunked"))
    for i in range(len(ANSWER)):
        conn.sendall(b"1\r\n" + ANSWER[i : i + 1] + b"\r\n")
        time.sleep(1.0)


GIB2 = 2 * 2**30
_MIB_OF_A = b"a" * 2**20


def huge(framing: str) -> Behaviour:
    """A 2 GB body (never held by the server: 1 MiB sent again and again until the client hangs up), framed
    by a ``Content-Length``, by chunks, or by the connection's end."""

    def behaviour(conn: socket.socket) -> None:
        if framing == "length":
            conn.sendall(_head(Content_Length=str(GIB2)))
        elif framing == "chunked":
            conn.sendall(_head(Transfer_Encoding="chunked"))
        else:
            conn.sendall(_head(Connection="close"))
        pieces = itertools.chain(
            [b'{"choices": [{"message": {"content": "'], itertools.repeat(_MIB_OF_A, 2048)
        )
        for piece in pieces:
            conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if framing == "chunked" else piece)
        conn.close()

    return behaviour


def gzip_bomb(conn: socket.socket) -> None:
    """A gzip body of 200 MB of zeros in 200 KB, sent though the client asked for ``identity``."""
    body = gzip.compress(b"0" * (200 * 2**20), compresslevel=9)
    conn.sendall(_head(Content_Length=str(len(body)), Content_Encoding="gzip") + body)


def make(base_url: str, tmp_path: Path, **kw) -> LLMClient:
    kw.setdefault("backoff", 0.01)
    return LLMClient(base_url=base_url, api_key=KEY, cache_dir=tmp_path / "cache", seed=0, **kw)


def req(text: str = "hello", **kw) -> dict:
    return {"model": SIMULATED_MODEL, "messages": [{"role": "user", "content": text}], **kw}


@pytest.fixture(params=["httpx", "aiohttp"])
def transport(request) -> str:
    return request.param


def one(client: LLMClient, mode: str, request: dict):
    return client.batch([request])[0] if mode == "batch" else client.complete(request)


DEADLINE = 3.0


@pytest.mark.parametrize("mode", ["complete", "batch"])
@pytest.mark.parametrize("behaviour", [drip, drip_chunked], ids=["length", "chunked"])
def test_a_dripping_body_is_cut_at_the_deadline(tmp_path, transport, mode, behaviour) -> None:
    """Before: each byte reset the transport's read timeout, so the call ran for as long as the server
    dripped (300 s and more with ``--deadline 15``)."""
    with scripted_server(behaviour) as (url, arrivals):
        client = make(url, tmp_path, transport=transport, timeout=20.0, deadline=DEADLINE, max_attempts=4)
        start = time.monotonic()
        result = one(client, mode, req(f"drip {mode}"))
        elapsed = time.monotonic() - start
        client.close()
    assert elapsed < DEADLINE + 10, f"{elapsed:.1f} s for a {DEADLINE} s deadline"
    assert result.error is not None and not result.ok and result.content is None
    assert result.error.startswith("no answer in time (timed out after")
    assert "the answer's whole body included" in result.error and len(arrivals) == result.attempts
    assert client.cached(req(f"drip {mode}")) is None


def test_annotate_keeps_its_deadline_against_a_dripping_server(tmp_path, capsys) -> None:
    """``rtlab annotate --deadline 3``: both calls fail at their deadline, the command exits 5 with the count."""
    with scripted_server(drip) as (url, _):
        start = time.monotonic()
        code = main(
            ["annotate", str(SAMPLE), "-o", str(tmp_path / "labels.csv"), "--model", "m", "--base-url", url,
             "--api-key", KEY, "--cache-dir", str(tmp_path / "cache"), "--deadline", str(DEADLINE),
             "--timeout", "20", "--concurrency", "2"]
        )  # fmt: skip
        elapsed = time.monotonic() - start
    err = capsys.readouterr().err
    assert code == EXIT_CALLS_FAILED, err
    assert "2 of 2 model calls failed after every attempt" in err and "no answer in time" in err
    assert elapsed < DEADLINE + 10, f"{elapsed:.1f} s"


def _peak_rss_call(url: str, tmp_path: Path, transport: str, mode: str) -> tuple[dict, float]:
    """One call in a fresh Python process: its result and that process's peak resident memory in MB (measured
    there: ``peak_rss.PEAK_RSS``)."""
    code = PEAK_RSS + (
        "import json\n"
        "from rtlab.llm import LLMClient\n"
        "url, cache, transport, mode = sys.argv[1:]\n"
        "c = LLMClient(base_url=url, api_key='x', cache_dir=cache, transport=transport, timeout=60,\n"
        "              deadline=120, max_attempts=3, backoff=0.01)\n"
        "r = {'model': 'rtlab-simulated', 'messages': [{'role': 'user', 'content': 'big'}]}\n"
        "res = c.batch([r])[0] if mode == 'batch' else c.complete(r)\n"
        "peak = peak_kb() / 1024\n"
        "print(json.dumps({'error': res.error, 'attempts': res.attempts, 'ok': res.ok, 'peak': peak}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, url, str(tmp_path / "cache"), transport, mode],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return out, out["peak"]


@pytest.mark.parametrize("mode", ["complete", "batch"])
@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
def test_a_huge_body_is_refused_with_bounded_memory(tmp_path, transport, mode, framing) -> None:
    """A 2 GB answer (it took the process to 4.4 GB before): refused at the 32 MiB limit, not retried, and
    the process stays far below the body's size."""
    with scripted_server(huge(framing)) as (url, arrivals):
        out, peak = _peak_rss_call(url, tmp_path, transport, mode)
    assert not out["ok"] and out["attempts"] == 1 and len(arrivals) == 1
    if framing == "length":
        assert (
            "response body of 2147483648 bytes (2,048 MiB) (Content-Length), more than the limit"
            in out["error"]
        )
    else:
        assert "response body past the limit of 33554432 bytes (32 MiB) (cut there)" in out["error"]
    assert "RTLAB_MAX_RESPONSE_BYTES" in out["error"] and "(not retried)" in out["error"]
    assert peak < 500, f"peak {peak:.0f} MB for a 2 GB body"


def test_a_compressed_body_is_refused(tmp_path, transport) -> None:
    with scripted_server(gzip_bomb) as (url, _):
        result = make(url, tmp_path, transport=transport).complete(req("gzip"))
    assert result.error is not None and "compressed (gzip) though identity was asked" in result.error


def test_the_body_limit_is_raised_by_the_option_or_the_environment(tmp_path, monkeypatch) -> None:
    with scripted_server(lambda c: c.sendall(_head(Content_Length=str(len(ANSWER))) + ANSWER)) as (url, _):
        assert make(url, tmp_path, cache=False).complete(req()).content == "hello"
        small = make(url, tmp_path, cache=False, max_response_bytes=64)
        assert "more than the limit of 64 bytes" in (small.complete(req()).error or "")
        monkeypatch.setenv("RTLAB_MAX_RESPONSE_BYTES", "64")
        assert "more than the limit of 64 bytes" in (
            make(url, tmp_path, cache=False).complete(req()).error or ""
        )
        monkeypatch.setenv("RTLAB_MAX_RESPONSE_BYTES", "1K")
        assert make(url, tmp_path, cache=False).complete(req()).content == "hello"


EMPTY = {
    "no choices": b'{"id": "chatcmpl-x", "object": "chat.completion", "model": "m"}',
    "empty choices": b'{"id": "chatcmpl-x", "object": "chat.completion", "model": "m", "choices": []}',
    "null content": json.dumps(
        {
            "id": "x",
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None}}],
        }
    ).encode(),
}
WHY = {
    "no choices": "HTTP 200 without an answer: no choices",
    "empty choices": "HTTP 200 without an answer: an empty list of choices",
    "null content": "HTTP 200 without an answer: the message's content is null",
}


@pytest.mark.parametrize("mode", ["complete", "batch"])
@pytest.mark.parametrize("shape", list(EMPTY))
def test_an_answer_without_content_is_a_failed_call_never_cached(srv, tmp_path, mode, shape) -> None:
    """Before: a success (``ok`` false but no error: exit 0, ``failed: 0``, labels "unparsable")."""
    srv.script(*[Scripted(body=EMPTY[shape]) for _ in range(3)])
    client = make(srv.base_url, tmp_path, max_attempts=3, timeout=30.0)
    result = one(client, mode, req(f"{shape} {mode}"))
    assert result.error == f"{WHY[shape]} (after 3 attempts)" and result.attempts == 3 == srv.n_requests
    assert client.cached(req(f"{shape} {mode}")) is None and not any((tmp_path / "cache").rglob("*.json"))
    srv.script(Scripted(body=EMPTY[shape]))  # retried: the next attempt's real answer is taken
    again = one(client, mode, req(f"{shape} {mode}"))
    assert again.ok and again.attempts == 2 and client.cached(req(f"{shape} {mode}")) is not None


def test_tool_calls_answer_only_where_tools_were_offered(srv, tmp_path) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "ls"}'}}
    body = json.dumps(
        {
            "id": "x",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                    "finish_reason": "tool_calls",
                }
            ],
        }  # fmt: skip
    ).encode()
    tools = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    srv.script(Scripted(body=body))
    client = make(srv.base_url, tmp_path, max_attempts=1, timeout=30.0)
    offered = client.complete(req("tools", tools=tools))
    assert offered.ok and offered.tool_calls and offered.tool_calls[0]["function"]["name"] == "bash"
    srv.script(Scripted(body=body))
    plain = client.complete(req("no tools"))
    assert plain.error is not None and "only tool calls where no tools were offered" in plain.error
    srv.script(Scripted(body=EMPTY["null content"]))
    none = client.complete(req("tools, nothing", tools=tools))
    assert none.error is not None and "content is null and it has no tool calls" in none.error


def test_annotate_counts_empty_answers_as_failed_calls(srv, tmp_path, capsys) -> None:
    srv.script(*[Scripted(body=EMPTY["empty choices"]) for _ in range(4)])
    code = main(
        ["annotate", str(SAMPLE), "-o", str(tmp_path / "labels.csv"), "--model", "m", "--base-url", srv.base_url,
         "--api-key", KEY, "--cache-dir", str(tmp_path / "cache"), "--max-attempts", "2"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == EXIT_CALLS_FAILED, err
    assert "2 of 2 model calls failed after every attempt" in err and "an empty list of choices" in err


def test_complete_works_in_a_child_forked_after_a_call(srv, tmp_path) -> None:
    """``complete`` runs its attempts on the client's event loop thread, which a forked child does not have:
    the child makes its own (it hung forever before this was seen to)."""
    import os
    import signal

    client = make(srv.base_url, tmp_path, cache=False, timeout=30.0)
    assert client.complete(req("parent")).ok
    pid = os.fork()
    if pid == 0:  # the child: a bounded life, its verdict in its exit status
        signal.alarm(60)
        os._exit(0 if client.complete(req("child")).ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


DEEP = b"[" * 100_000 + b"]" * 100_000
HUGE_INT = b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": ' + b"7" * 5000 + b"}}"


@pytest.mark.parametrize("mode", ["complete", "batch"])
@pytest.mark.parametrize("body", [DEEP, HUGE_INT], ids=["nested", "digits"])
def test_json_no_parser_can_hold_is_a_failed_attempt(tmp_path, transport, mode, body) -> None:
    """A body nested 100,000 deep, or a number of 5,000 digits: a ``RecursionError`` / ``ValueError`` escaped
    ``complete`` and ``batch`` before (a traceback in every command that calls a model)."""
    with scripted_server(lambda c: c.sendall(_head(Content_Length=str(len(body))) + body)) as (url, arrivals):
        result = one(make(url, tmp_path, transport=transport, max_attempts=2), mode, req(f"deep {mode}"))
    assert result.error is not None and result.error.startswith("an answer whose JSON cannot be read")
    assert result.attempts == 2 == len(arrivals)
