"""Context management: what of the conversation is sent to the model once it grows past a budget.

A policy is named by a spec (``--context``), recorded in the run's ``run.json`` and trajectory:

- ``keep-all``: every message as it was (the endpoint's own context limit decides; a 400 ends the run).
- ``drop-old-outputs[:TOKENS]``: while the conversation's estimated size (characters / 4) exceeds ``TOKENS``
  (default :data:`DEFAULT_BUDGET`), the oldest tool result still whole is replaced by a one-line notice saying
  which step's output was dropped and how long it was; the last :data:`KEEP_LAST` tool results are never
  dropped.
- ``truncate-old-outputs[:TOKENS]``: the same, but the result keeps its first :data:`HEAD_CHARS` characters
  before the notice (a summary by its head, made without a model call).

A message dropped once stays dropped (the conversation sent only shrinks at its old end, so a server's prompt
cache keeps working between drops). Each drop is recorded as an event of kind ``compaction``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ContextKind = Literal["keep-all", "drop-old-outputs", "truncate-old-outputs"]
CONTEXT_KINDS: tuple[ContextKind, ...] = ("keep-all", "drop-old-outputs", "truncate-old-outputs")
DEFAULT_BUDGET = 100_000
"""Tokens (estimated) the conversation may reach before old outputs go, by default."""
KEEP_LAST = 4
"""Most recent tool results never dropped."""
HEAD_CHARS = 400
"""Characters ``truncate-old-outputs`` keeps of a result."""
CHARS_PER_TOKEN = 4


def _size(message: dict[str, Any]) -> int:
    content = message.get("content")
    n = len(content) if isinstance(content, str) else 0
    for call in message.get("tool_calls") or []:
        n += len(str((call.get("function") or {}).get("arguments") or ""))
    return n


@dataclass(frozen=True)
class ContextPolicy:
    """A named context-management policy (module docstring)."""

    kind: ContextKind = "keep-all"
    """What happens past the budget."""
    budget: int = DEFAULT_BUDGET
    """Estimated tokens the conversation may reach."""

    @property
    def name(self) -> str:
        """The spec that names it (``drop-old-outputs:100000``)."""
        return self.kind if self.kind == "keep-all" else f"{self.kind}:{self.budget}"

    @classmethod
    def parse(cls, spec: str) -> ContextPolicy:
        """The policy a spec names; a bad one is a ``ValueError`` naming the choices."""
        kind, _, budget = spec.partition(":")
        if kind not in CONTEXT_KINDS:
            raise ValueError(
                f"unknown context policy {spec!r}; known: {', '.join(CONTEXT_KINDS)} (with :TOKENS)"
            )
        if kind == "keep-all":
            if budget:
                raise ValueError("keep-all takes no budget")
            return cls("keep-all")
        try:
            tokens = int(budget) if budget else DEFAULT_BUDGET
        except ValueError:
            raise ValueError(f"context budget must be a whole number of tokens, not {budget!r}") from None
        if tokens < 1:
            raise ValueError("context budget must be at least 1 token")
        return cls(kind, tokens)

    def compact(self, messages: list[dict[str, Any]], dropped: dict[int, str]) -> list[int]:
        """Drop old tool results of ``messages`` in place until under the budget; ``dropped`` (message index ->
        its original content) is updated; returns the indices dropped now."""
        if self.kind == "keep-all":
            return []
        total = sum(_size(m) for m in messages)
        limit = self.budget * CHARS_PER_TOKEN
        tools = [i for i, m in enumerate(messages) if m.get("role") == "tool"]
        now: list[int] = []
        for i in tools[: max(0, len(tools) - KEEP_LAST)]:
            if total <= limit:
                break
            if i in dropped:
                continue
            original = str(messages[i].get("content") or "")
            notice = f"[output dropped by the context policy {self.name}: {len(original)} characters]"
            if self.kind == "truncate-old-outputs":
                notice = (
                    original[:HEAD_CHARS]
                    + f"\n[... the rest ({len(original) - HEAD_CHARS} characters) dropped by the context policy {self.name}]"
                )
            if len(notice) >= len(original):
                continue
            dropped[i] = original
            messages[i] = {**messages[i], "content": notice}
            total -= len(original) - len(notice)
            now.append(i)
        return now
