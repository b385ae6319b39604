"""The LLM client when the endpoint misbehaves: empty and truncated bodies, resets, silence, persistent errors,
servers that echo the key, and what the commands that call a model do about it (exit status, count, no key).

Every case runs the real openai client against :class:`rtlab.llm.SimulatedServer` on 127.0.0.1, whose scripted
failures are real bytes on a real socket (an empty 200 body, a body cut short, a TCP reset). No verdict depends
on the clock: a deadline is checked by how many attempts it allowed (an upper bound that load can only lower).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import ROOT

from rtlab.cli import EXIT_CALLS_FAILED, build_parser, main
from rtlab.llm import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_TIMEOUT,
    REDACTED,
    SIMULATED_MODEL,
    DiskCache,
    LLMClient,
    LLMError,
    echo_authorization,
    empty_body,
    http_error,
    redact,
    request_key,
    reset_connection,
    slow,
    truncated_body,
)

SAMPLE = ROOT / "data" / "sample"
FAKE_KEY = "sk-rtlabFAKEkey-0123456789abcdef"
"""A key that is never real: what the tests grep for."""
SAFETY = 30.0


def make(srv, tmp_path: Path, **kw) -> LLMClient:
    kw.setdefault("backoff", 0.01)
    kw.setdefault("timeout", SAFETY)
    kw.setdefault("deadline", None)
    return LLMClient(base_url=srv.base_url, api_key=FAKE_KEY, cache_dir=tmp_path / "cache", seed=0, **kw)


def req(text: str = "hello") -> dict:
    return {"model": SIMULATED_MODEL, "messages": [{"role": "user", "content": text}]}


@pytest.fixture(params=["httpx", "aiohttp"])
def transport(request) -> str:
    return request.param


def one(client: LLMClient, mode: str, request: dict):
    return client.batch([request])[0] if mode == "batch" else client.complete(request)


BAD_BODIES = {
    "empty": (empty_body, "empty response body"),
    "cut, length matching": (truncated_body, "truncated response body"),
    "cut, length promised": (lambda: truncated_body(declared_in_full=True), "response body cut short"),
}


@pytest.mark.parametrize("mode", ["batch", "complete"])
@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_an_empty_or_truncated_body_is_retried_then_answers(srv, tmp_path, transport, mode, case):
    make_script, _ = BAD_BODIES[case]
    srv.script(make_script())
    result = one(make(srv, tmp_path, transport=transport), mode, req(f"{case} {mode}"))
    # before: a bare json.JSONDecodeError out of batch() and complete(), nothing retried
    assert result.ok and result.attempts == 2 and srv.n_requests == 2


@pytest.mark.parametrize("mode", ["batch", "complete"])
@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_a_body_bad_every_time_is_a_failed_result_named_for_it(srv, tmp_path, transport, mode, case):
    make_script, name = BAD_BODIES[case]
    srv.script(*[make_script() for _ in range(3)])
    client = make(srv, tmp_path, transport=transport, max_attempts=3)
    result = one(client, mode, req(f"bad {case} {mode}"))
    assert result.error is not None and result.error.startswith(name), result.error
    assert "after 3 attempts" in result.error and result.attempts == 3
    assert client.cached(req(f"bad {case} {mode}")) is None  # failures are never cached


@pytest.mark.parametrize("mode", ["batch", "complete"])
def test_a_reset_is_named_a_reset_not_a_timeout(srv, tmp_path, transport, mode):
    srv.script(reset_connection(), reset_connection())
    result = one(make(srv, tmp_path, transport=transport, max_attempts=2), mode, req(f"reset {mode}"))
    # before: "APITimeoutError: Request timed out." in an aiohttp batch, "Connection error." elsewhere
    assert result.error == "connection reset by the server (after 2 attempts)"
    srv.reset()
    srv.script(reset_connection())
    assert one(make(srv, tmp_path, transport=transport), mode, req(f"reset once {mode}")).ok


def test_a_server_that_never_answers_is_bounded_by_the_deadline(srv, tmp_path, transport):
    srv.script(*[slow(SAFETY) for _ in range(10)])
    client = make(srv, tmp_path, transport=transport, timeout=1.0, deadline=1.5, max_attempts=10)
    result = client.batch([req("silence")])[0]
    srv.release()
    # attempt 1 gets 1 s, attempt 2 what is left of 1.5 s (or none, if the wait would pass it): never 10
    assert 1 <= result.attempts <= 2 and srv.n_requests == result.attempts
    assert result.error is not None and result.error.startswith("no answer in time (timed out after")
    assert "deadline" in result.error or result.attempts == 2


def test_a_retry_after_past_the_deadline_is_not_waited_for(srv, tmp_path):
    slept: list[float] = []
    client = make(srv, tmp_path, deadline=30.0, sleep=slept.append)
    srv.script(http_error(429, retry_after=45))
    result = client.complete(req("rate limited"))
    assert slept == [] and result.attempts == 1 and "HTTP 429" in result.error and "deadline" in result.error


def test_defaults_bound_a_request_to_about_a_minute():
    client = LLMClient(base_url="http://127.0.0.1:9/v1", cache=False)
    assert (client.timeout, client.max_attempts, client.deadline) == (
        DEFAULT_TIMEOUT,
        DEFAULT_MAX_ATTEMPTS,
        DEFAULT_DEADLINE,
    )
    assert client.deadline == 60.0 and client.timeout < client.deadline
    for command in ("annotate", "recover"):
        base = [command, "x", "--model", "m"] + (["-o", "l.csv"] if command == "annotate" else [])
        args = build_parser().parse_args(base)
        assert (args.timeout, args.max_attempts, args.deadline) == (20.0, 4, 60.0)
        args = build_parser().parse_args([*base, "--timeout", "5", "--max-attempts", "2", "--deadline", "0"])
        assert (args.timeout, args.max_attempts, args.deadline) == (5.0, 2, 0.0)
        with pytest.raises(SystemExit):
            build_parser().parse_args([*base, "--max-attempts", "0"])


def test_an_echoed_key_is_redacted_from_errors_results_and_raises(srv, tmp_path, transport):
    srv.script(echo_authorization(500), echo_authorization(500))
    client = make(srv, tmp_path, transport=transport, max_attempts=2)
    result = client.batch([req("echo")])[0]
    assert FAKE_KEY not in result.error and f"Bearer {REDACTED}" in result.error
    srv.script(echo_authorization(401))
    with pytest.raises(LLMError) as raised:
        client.complete(req("echo 401"))
    assert FAKE_KEY not in str(raised.value) and REDACTED in str(raised.value)
    assert FAKE_KEY not in repr(client)


def test_redact_takes_the_key_and_credential_shapes_but_not_words():
    text = f"key {FAKE_KEY}; Authorization: Bearer abc.def; api_key=zzz9; 'api-key': \"q1\" sk-otherSECRET99"
    out = redact(text, [FAKE_KEY, "local", None])
    assert out == (
        f"key {REDACTED}; Authorization: Bearer {REDACTED}; api_key={REDACTED}; 'api-key': \"{REDACTED}\" "
        f"{REDACTED}"
    )
    assert redact("a local model said hi", ["local"]) == "a local model said hi"  # too short to hunt for


def test_cache_files_and_folders_are_owner_only(srv, tmp_path):
    client = make(srv, tmp_path)
    assert client.complete(req("private")).ok
    path = DiskCache(tmp_path / "cache").path(request_key(req("private")))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0


@pytest.mark.parametrize(
    "damage",
    ["cut after the answer", "cut in the answer", "empty", "not JSON", "a folder"],
)
def test_a_half_written_cache_entry_is_a_miss_and_is_rewritten(srv, tmp_path, damage):
    client = make(srv, tmp_path)
    request = req(f"half written {damage}")
    assert client.complete(request).ok
    path = DiskCache(tmp_path / "cache").path(request_key(request))
    whole = path.read_bytes()
    cut = whole.index(b', "request": ')
    damaged = {
        "cut after the answer": whole[
            : cut + 40
        ],  # the answer whole, the request cut: still not a whole file
        "cut in the answer": whole[: cut // 2],
        "empty": b"",
        "not JSON": b"\x00\xff garbage",
    }
    if damage == "a folder":
        path.unlink()
        path.mkdir()
    else:
        path.write_bytes(damaged[damage])
    again = make(srv, tmp_path)
    assert again.cached(request) is None  # a miss, not an error
    if damage == "a folder":
        with pytest.warns(RuntimeWarning, match="LLM cache entry not written"):
            assert again.complete(request).ok  # answered; the folder in the way is not the client's to remove
        return
    result = again.complete(request)
    assert result.ok and not result.cached and srv.n_requests == 2
    assert json.loads(path.read_bytes())["content"] == result.content  # rewritten whole
    assert make(srv, tmp_path).complete(request).cached


# ---------------------------------------------------------------------------------------------------------
# The commands


def run_cli(capsys, args: list[str]) -> tuple[int, str, str]:
    status = main(args)
    out = capsys.readouterr()
    return status, out.out, out.err


def llm_args(srv, tmp_path: Path, command: str, *extra: str) -> list[str]:
    # the sample's one held value passed and is delivered, so recover asks about it only with --sample held
    output = ["-o", str(tmp_path / "labels.csv")] if command == "annotate" else ["--json", "--sample", "held"]
    return [
        command,
        str(SAMPLE),
        *output,
        "--model",
        "m",
        "--base-url",
        srv.base_url,
        "--api-key",
        FAKE_KEY,
        "--cache-dir",
        str(tmp_path / "cache"),
        *extra,
    ]


@pytest.mark.parametrize("status", [429, 500])
@pytest.mark.parametrize("command", ["annotate", "recover"])
def test_persistent_errors_end_in_a_failing_exit_with_a_count(srv, tmp_path, capsys, command, status):
    srv.script(*[http_error(status) for _ in range(20)])
    args = llm_args(srv, tmp_path, command, "--max-attempts", "2", "--timeout", "5")
    code, out, err = run_cli(capsys, args)
    n = 2 if command == "annotate" else 3  # the sample: 2 failed rubric items; 1 held value x 3 conditions
    # before: exit 0, every label "failed"
    assert code == EXIT_CALLS_FAILED, err
    assert f"rtlab: {n} of {n} model calls failed after every attempt" in err
    assert f"{n} x HTTP {status}" in err and srv.n_requests == 2 * n
    srv.reset()
    code, out, err = run_cli(capsys, args)  # the endpoint is back: the failures were not cached
    assert code == 0 and srv.n_requests == n


def test_an_echoed_key_never_reaches_the_terminal_or_the_labels(srv, tmp_path, capsys):
    srv.script(echo_authorization(500), echo_authorization(500), echo_authorization(500))
    args = llm_args(srv, tmp_path, "annotate", "--max-attempts", "1")
    code, out, err = run_cli(capsys, args)
    assert code == EXIT_CALLS_FAILED
    labels = (tmp_path / "labels.csv").read_text(encoding="utf-8")
    assert "scripted HTTP 500; received Authorization: Bearer [redacted]" in labels + err
    assert FAKE_KEY not in out + err + labels
    srv.script(echo_authorization(401))
    code, out, err = run_cli(capsys, llm_args(srv, tmp_path, "recover"))
    assert code == 2 and "rtlab: error:" in err and REDACTED in err and FAKE_KEY not in out + err


def test_a_full_annotate_and_recover_run_leaves_the_key_nowhere(srv, tmp_path, capsys, monkeypatch):
    """Item 5 of issue 19: a fake key through a whole annotate and recover run (cache, tables, stdout and stderr,
    error messages), grepped for afterwards in every byte written."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)  # the key from the environment too, as users set it
    texts: list[str] = []
    for command in ("annotate", "recover"):
        args = [a for a in llm_args(srv, tmp_path, command) if a not in ("--api-key", FAKE_KEY)]
        code, out, err = run_cli(capsys, args)
        assert code == 0, err
        texts += [out, err]
        srv.script(http_error(500), echo_authorization(500))  # one retried failure and one echo, then answers
        code, out, err = run_cli(capsys, [*args, "--cache-dir", str(tmp_path / "cache2")])
        assert code == 0, err
        texts += [out, err]
    # annotate makes 2 calls and recover 3, each into two caches (2 x 5 = 10), plus two failed attempts in each
    # command's second run (2 x 2 = 4): 14
    assert srv.n_requests == 2 * (2 + 3) + 2 * 2
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert (
        len([p for p in files if p.suffix == ".json"]) == 2 * (2 + 3) and (tmp_path / "labels.csv") in files
    )
    for p in files:
        texts.append(p.read_bytes().decode("utf-8", errors="replace"))
    assert all(FAKE_KEY not in t for t in texts)
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)
    assert os.environ["OPENAI_API_KEY"] == FAKE_KEY  # the key was there to leak all along
