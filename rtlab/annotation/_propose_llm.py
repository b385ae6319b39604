"""The LLM proposer of requirements: the same interface as :class:`rtlab.environment.RuleProposer`, a model's
decomposition of the task text.

It lives here, not in :mod:`rtlab.environment`, because it needs :mod:`rtlab.llm` (the environment imports
no model client). The prompt asks for a JSON object ``{"requirements": [{"text", "kind", "basis"}]}``;
``kind`` must be one of :data:`rtlab.environment.PROPOSAL_KINDS` and ``text`` non-empty, and an answer that is
not so is asked again with the reason (:func:`rtlab.llm.ask_until_valid`). A task whose answer stays invalid,
or whose call failed, gets no proposals (it is reported in :attr:`LLMProposer.failures` of the last call).
``basis`` is the words of the task the model says it read the requirement from; its offset in the task text
is ``start`` (``-1`` when the words are not there verbatim).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rtlab.environment import PROPOSAL_KINDS, Proposal, ProposalKind
from rtlab.llm import LLMClient, ask_until_valid, parse_json_object

PROPOSE_PROMPT = """You decompose a knowledge-work task into the requirements its deliverable must meet.
List each thing the task asks for that a checker could verify: each deliverable file (kind "deliverable"), each
named thing it must use or mention (kind "entity"), each quantity it states (kind "quantity"), and each list
of items it must cover (kind "enumeration"). Use only what the task text says.

Answer with one JSON object: {"requirements": [{"text": "...", "kind": "deliverable|entity|quantity|enumeration",
"basis": "the words of the task it comes from"}]}

## Task
"""


@dataclass
class LLMProposer:
    """Requirements proposed by a model through an :class:`rtlab.llm.LLMClient`."""

    client: LLMClient
    """The client (a configured endpoint, or the simulated server's)."""
    model: str
    """The model to ask."""
    temperature: float = 0.0
    """Sampling temperature."""
    max_tokens: int = 1500
    """Most tokens per answer."""
    max_fixes: int = 2
    """Corrective retries for an invalid answer."""
    failures: list[tuple[int, str]] = field(default_factory=list)
    """``(task position, why)`` for every task of the last :meth:`propose` that got no valid answer."""

    @property
    def name(self) -> str:
        """``llm:<model>``."""
        return f"llm:{self.model}"

    def _request(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "response_format": {"type": "json_object"},
        }

    def propose(self, tasks: Sequence[str]) -> list[list[Proposal]]:
        """The proposals for each task text, in input order (an empty list where the model gave none valid)."""
        conversations = [[{"role": "user", "content": PROPOSE_PROMPT + task}] for task in tasks]
        asked, _ = ask_until_valid(
            self.client,
            conversations,
            lambda _i, messages: self._request(messages),
            parse_proposals,
            max_fixes=self.max_fixes,
            desc="proposing",
        )
        self.failures = []
        out: list[list[Proposal]] = []
        for k, (task, a) in enumerate(zip(tasks, asked, strict=True)):
            if a.parsed is None:
                why = a.error or a.result.error or a.result.refusal or "no answer"
                self.failures.append((k, str(why)))
                out.append([])
                continue
            out.append(
                [
                    Proposal(text, kind, basis, task.find(basis) if basis else -1, self.name)
                    for text, kind, basis in a.parsed
                ]
            )
        return out


def parse_proposals(content: str | None) -> tuple[list[tuple[str, ProposalKind, str]] | None, str | None]:
    """``([(text, kind, basis), ...], None)`` for a valid answer, else ``(None, what is wrong)``."""
    data, error = parse_json_object(content, required=("requirements",))
    if data is None:
        return None, error
    items = data["requirements"]
    if not isinstance(items, list):
        return None, '"requirements" must be a list'
    out: list[tuple[str, ProposalKind, str]] = []
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            return None, f"requirement {k} is not an object"
        text, kind, basis = item.get("text"), item.get("kind"), item.get("basis", "")
        if not isinstance(text, str) or not text.strip():
            return None, f'requirement {k} has no "text"'
        if kind not in PROPOSAL_KINDS:
            return None, f"requirement {k} has kind {kind!r}; use one of {', '.join(PROPOSAL_KINDS)}"
        out.append((text.strip(), kind, basis if isinstance(basis, str) else ""))
    return out, None
