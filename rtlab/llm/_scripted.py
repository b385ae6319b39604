"""What one request to the simulated server gets instead of the simulated answer (:class:`Scripted`).

The server (:mod:`rtlab.llm._simulated`) answers by it and its scripted agent (:mod:`rtlab.llm._simulated_agent`)
builds its scripted turns with it; both import it from here, so neither imports the other's module for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Scripted:
    """What one request gets instead of the simulated answer (fields left at default keep the simulation)."""

    status: int = 200
    """HTTP status to answer with; other than 200, an error body instead of a completion."""
    content: str | None = None
    """Message content to return verbatim (``None``: the simulated answer)."""
    refusal: str | None = None
    """A refusal message (content ``None``)."""
    headers: dict[str, str] = field(default_factory=dict)
    """HTTP headers to add to the answer (``Retry-After``)."""
    delay: float = 0.0
    """Seconds to wait before answering; :meth:`SimulatedServer.release` ends the wait early."""
    finish_reason: str = "stop"
    """The completion's ``finish_reason``."""
    body: bytes | None = None
    """A raw 200 body to send instead of the JSON completion (``b""``: an empty body)."""
    cut: float | None = None
    """Send only this fraction of the completion's JSON: with ``declared_in_full`` the ``Content-Length`` promises
    the whole of it and the connection closes early, else the header matches the bytes sent (a body cut short
    by the server: not valid JSON)."""
    declared_in_full: bool = False
    """With ``cut``: ``Content-Length`` is the whole body's, and the connection closes after the part sent."""
    reset: bool = False
    """Close the connection with a TCP reset (RST) after reading the request, answering nothing."""
    echo_authorization: bool = False
    """With an error ``status``: the error message repeats the request's ``Authorization`` header (a server that
    leaks the key back, which the client must not print)."""
    tool_calls: tuple[dict[str, Any], ...] | None = None
    """Tool calls to return verbatim (the Chat Completions shape, arguments as text, valid JSON or not); for a
    request that offers ``tools`` and scripts none, the scripted agent answers (:mod:`rtlab.llm._simulated_agent`)."""
