"""Clipping policies: how a harness shortens a tool's output before the model sees it.

``Step.output`` is what a log holds; ``Step.shown`` is ``policy.apply(output)`` for the harness's policy.
Each policy is a small frozen dataclass with a ``name``; readers pick their harness's default and a user can
pass another by name (``--clip NAME``) or build their own with other parameters.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NoClip:
    """The model saw the output whole (or the log already holds what it saw)."""

    name: str = "none"

    def apply(self, text: str) -> str:
        return text


ClipPolicy = NoClip  # widened below to the union of all policy classes


POLICIES: dict[str, ClipPolicy] = {"none": NoClip()}
"""Named policies that ``--clip`` accepts."""


def get_policy(policy: str | ClipPolicy) -> ClipPolicy:
    """A policy by name (or the policy itself); an unknown name raises ``ValueError`` listing the known ones."""
    if not isinstance(policy, str):
        return policy
    try:
        return POLICIES[policy]
    except KeyError:
        raise ValueError(f"unknown clip policy {policy!r}; known: {', '.join(sorted(POLICIES))}") from None
