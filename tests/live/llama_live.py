"""What the live tier's tests share with its fixture (``conftest.py``): the server's settings and handle."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CHAT_FORMAT = "chatml-function-calling"
"""llama-cpp-python's chat handler that answers OpenAI ``tools`` / ``tool_choice`` with ``tool_calls``."""
CONTEXT = 4096
"""The server's context size in tokens (a prompt over it is answered with HTTP 400)."""
START_TIMEOUT = 300.0
"""Seconds the server may take to load the model and answer ``/v1/models`` before the tier fails."""


@dataclass(frozen=True)
class LiveServer:
    """A running llama.cpp server."""

    base_url: str
    """``http://127.0.0.1:PORT/v1``."""
    model: str
    """The model name to request (the server answers any name with its one model)."""
    log: Path
    """The server's stdout and stderr."""
