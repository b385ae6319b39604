"""Writing a simulated run as a Pi coding-agent session (format version 3), the format DCI-Agent-Lite records.

The entries are the ones :mod:`rtlab.ingest.readers.pi` reads from real sessions: a ``session`` header with ``cwd``, a
``model_change``, then ``message`` entries (``user``, ``assistant`` with ``toolCall`` blocks, ``toolResult``)
chained by ``id`` / ``parentId``. Times come from a simulated clock so the same run gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

VERSION = 3
PROVIDER = "simulated"


@dataclass
class PiSession:
    """Entries of one session, appended in order; :meth:`text` is the ``.jsonl`` file."""

    session_id: str
    """The session's id (the header's ``id``)."""
    cwd: str
    """The agent's working directory (the header's ``cwd``)."""
    model: str
    """The simulated model's name, logged as the ``modelId`` and each assistant turn's model."""
    start: datetime
    """When the session starts; the simulated clock counts from it."""
    entries: list[dict[str, Any]] = field(default_factory=list)
    """The entries so far, the ``session`` header first."""
    _clock: float = 0.0
    """Seconds of the simulated clock since ``start``."""
    _context_chars: int = 0
    """Characters the model has had in context so far (the simulated usage is estimated from it)."""
    _calls: int = 0
    """Tool calls made so far (their ids are numbered from it)."""

    def __post_init__(self) -> None:
        self.entries.append(
            {
                "type": "session",
                "version": VERSION,
                "id": self.session_id,
                "timestamp": self._stamp(),
                "cwd": self.cwd,
            }
        )
        self._append({"type": "model_change", "provider": PROVIDER, "modelId": self.model})

    def _stamp(self, advance: float = 0.0) -> str:
        self._clock += advance
        moment = self.start + timedelta(seconds=self._clock)
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

    def _millis(self) -> int:
        return int((self.start + timedelta(seconds=self._clock)).timestamp() * 1000)

    def _append(self, entry: dict[str, Any], advance: float = 1.0) -> None:
        parent = self.entries[-1]["id"] if len(self.entries) > 1 else None
        n = len(self.entries)
        self.entries.append(
            {
                "type": entry.pop("type"),
                "id": f"{n:08x}",
                "parentId": parent,
                "timestamp": self._stamp(advance),
                **entry,
            }
        )

    def user(self, text: str) -> None:
        """A user message (the task, or a message the environment sends, such as the finish check)."""
        self._context_chars += len(text)
        message = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": self._millis()}
        self._append({"type": "message", "message": message})

    def assistant(self, text: str | None, calls: Sequence[tuple[str, dict[str, Any]]] = ()) -> list[str]:
        """An assistant turn: optional text, then tool calls ``(name, arguments)``; returns the calls' ids."""
        content: list[dict[str, Any]] = []
        if text:
            content.append({"type": "text", "text": text})
        ids = []
        for name, arguments in calls:
            self._calls += 1
            call_id = f"call_{self._calls:04d}"
            ids.append(call_id)
            content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": arguments})
        produced = sum(len(json.dumps(c, ensure_ascii=False)) for c in content)
        usage_in, usage_out = 1200 + self._context_chars // 4, 20 + produced // 4
        self._context_chars += produced
        message = {
            "role": "assistant",
            "content": content,
            "api": "openai-completions",
            "provider": PROVIDER,
            "model": self.model,
            "usage": {
                "input": usage_in,
                "output": usage_out,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": usage_in + usage_out,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            },
            "stopReason": "toolUse" if calls else "stop",
            "timestamp": self._millis(),
        }
        self._append({"type": "message", "message": message}, advance=3.0)
        return ids

    def tool_result(self, call_id: str, name: str, text: str, *, is_error: bool = False) -> None:
        """The answer to one tool call, exactly as the model read it."""
        self._context_chars += len(text)
        message = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": [{"type": "text", "text": text}],
            "isError": is_error,
            "timestamp": self._millis(),
        }
        self._append({"type": "message", "message": message}, advance=0.5)

    def text(self) -> str:
        return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self.entries)
