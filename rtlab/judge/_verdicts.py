"""The judge's answer, checked, and the judge file written from it (Workspace-Bench's ``rubrics_judge--*.json``).

An answer is valid when it is one JSON object (bare, in a code fence, or the first object in the text, as
Workspace-Bench's parser takes it, raw control characters inside its strings tolerated) with a ``rubrics`` list holding exactly one entry per rubric index, each with
an integer ``index`` and a boolean ``passed``; ``confidence`` (a number in [0, 1]) and ``evidence`` (a string) may
be missing. Anything else is sent back with what is wrong (:func:`rtlab.llm.ask_until_valid`), and a run whose
answer stays invalid gets no judge file: a judge file holds verdicts, never a parse failure passed off as failed
items (Workspace-Bench's runner wrote such files; its scores then count the judge's failure as the agent's).

The file has the layout of Workspace-Bench's (``taskId``, ``agentKind``, ``createdAt``, ``rubrics`` with
``index, rubric, passed, confidence, evidence``, ``summary`` with ``total, passed, failed``, ``judge`` with the
model, its name, the endpoint, usage, duration, tries and the head of the raw answer, ``prompt`` with the system
message and the head of the user message), plus an ``rtlab`` block saying how it was made (protocol, limits,
trajectory, cache).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from rtlab.llm import parse_json_object
from rtlab.records import Task

JUDGE_PREFIX = "rubrics_judge--"
"""Judge files are named ``rubrics_judge--<judge name>.json`` (Workspace-Bench's naming)."""
PROMPT_HEAD = 4000
"""Characters of the user message kept in the judge file (Workspace-Bench keeps 4,000)."""
RAW_HEAD = 2000
"""Characters of the raw answer kept in the judge file (Workspace-Bench keeps 2,000)."""


@dataclass(frozen=True)
class Verdict:
    """The judge's decision on one rubric item."""

    index: int
    """The rubric item's index (:attr:`rtlab.records.RubricItem.index`)."""
    passed: bool
    """Whether the judge found the item met."""
    confidence: float | None
    """The judge's confidence in [0, 1], where it gave one."""
    evidence: str
    """What the judge cites for its decision (empty when it gave nothing)."""


def _first_object(text: str) -> Any:
    """The first JSON value that starts with ``{`` in ``text`` (Workspace-Bench's tolerant reading), control
    characters inside strings allowed (a raw newline in ``evidence``, which servers decoding under a grammar
    let through), or None."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder(strict=False).raw_decode(text[start:])
    except json.JSONDecodeError:
        return None
    return value


def _span(indices: set[int]) -> str:
    ordered = sorted(indices)
    if ordered and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]} to {ordered[-1]}"
    return ", ".join(str(i) for i in ordered)


def parse_verdicts(text: str | None, indices: Collection[int]) -> tuple[list[Verdict] | None, str | None]:
    """``(verdicts in index order, None)`` when ``text`` is a valid answer for a rubric of these item
    ``indices``, else ``(None, what is wrong)`` (the words sent back to the model)."""
    data, error = parse_json_object(text, required=("rubrics",))
    if data is None:
        found = _first_object(text or "")
        if not isinstance(found, dict) or "rubrics" not in found:
            return None, error
        data = found
    entries = data["rubrics"]
    if not isinstance(entries, list):
        return None, '"rubrics" must be a list'
    wanted = set(indices)
    verdicts: dict[int, Verdict] = {}
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict):
            return None, f"rubrics[{n}] must be an object"
        index, passed = entry.get("index"), entry.get("passed")
        if not isinstance(index, int) or isinstance(index, bool):
            return None, f"rubrics[{n}].index must be an integer"
        if index not in wanted:
            return None, f"rubrics[{n}].index {index} is not a rubric index (they are {_span(wanted)})"
        if index in verdicts:
            return None, f"rubric {index} has two entries"
        if not isinstance(passed, bool):
            return None, f"rubrics[{n}].passed must be true or false"
        confidence = entry.get("confidence")
        if confidence is not None and (
            isinstance(confidence, bool)
            or not isinstance(confidence, int | float)
            or not 0 <= confidence <= 1
        ):
            return None, f"rubrics[{n}].confidence must be a number from 0 to 1"
        evidence = entry.get("evidence")
        if evidence is not None and not isinstance(evidence, str):
            return None, f"rubrics[{n}].evidence must be a string"
        verdicts[index] = Verdict(
            index, passed, float(confidence) if confidence is not None else None, evidence or ""
        )
    missing = sorted(wanted - set(verdicts))
    if missing:
        return None, "no entry for rubric " + ", ".join(str(i) for i in missing)
    return [verdicts[i] for i in sorted(verdicts)], None


def judge_record(
    task: Task,
    verdicts: list[Verdict],
    *,
    agent_kind: str,
    created_at: str,
    judge: dict[str, Any],
    system: str,
    user: str,
    rtlab: dict[str, Any],
) -> dict[str, Any]:
    """The judge file's content in Workspace-Bench's layout (module docstring); ``judge`` is its ``judge``
    block (model, modelName, baseUrl, usage, durationMs, tries, error, rawResponseHead), ``rtlab`` rtlab's own."""
    text = {item.index: item.text for item in task.rubric}
    passed = sum(v.passed for v in verdicts)
    return {
        "taskId": task.id,
        "agentKind": agent_kind,
        "createdAt": created_at,
        "rubrics": [
            {
                "index": v.index,
                "rubric": text.get(v.index),
                "passed": v.passed,
                "confidence": v.confidence,
                "evidence": v.evidence,
            }
            for v in verdicts
        ],
        "summary": {"total": len(verdicts), "passed": passed, "failed": len(verdicts) - passed},
        "judge": judge,
        "prompt": {
            "system": system,
            "user": user[:PROMPT_HEAD],
            "userPromptSizeBytes": len(user.encode("utf-8")),
            "userPromptSizeChars": len(user),
        },
        "rtlab": rtlab,
    }


JUDGE_SCHEMA: dict[str, Any] = {
    "name": "rubric_verdicts",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {
            "rubrics": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "index": {"type": "integer"},
                        "passed": {"type": "boolean"},
                        "confidence": {"type": "number"},
                        "evidence": {"type": "string"},
                    },
                    "required": ["index", "passed", "confidence", "evidence"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["rubrics"],
        "additionalProperties": False,
    },
}
"""The answer's JSON schema in OpenAI's ``json_schema`` response format (``--response-format json_schema``)."""


MAX_EVIDENCE = 200
"""Longest ``evidence`` string :func:`answer_schema` allows (a small model under a grammar could otherwise write
evidence until its context is full)."""


def answer_schema(indices: Collection[int]) -> dict[str, Any]:
    """The JSON schema of a valid answer for a rubric of these item ``indices``: one entry per index, in
    order (``prefixItems`` with each ``index`` a constant), ``confidence`` one of 0, 0.1, ..., 1, ``evidence`` at most
    :data:`MAX_EVIDENCE` characters. A server that decodes under a schema (llama.cpp's grammars) can then
    produce only valid answers."""
    ordered = sorted(indices)

    def entry(i: int) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "index": {"const": i},
                "passed": {"type": "boolean"},
                "confidence": {"$ref": "#/$defs/confidence"},
                "evidence": {"$ref": "#/$defs/evidence"},
            },
            "required": ["index", "passed", "confidence", "evidence"],
            "additionalProperties": False,
        }

    return {
        "$defs": {
            # grammars know no minimum / maximum: the confidence is one of 0, 0.1, ..., 1
            "confidence": {"enum": [round(k / 10, 1) for k in range(11)]},
            "evidence": {"type": "string", "maxLength": MAX_EVIDENCE},
        },
        "type": "object",
        "properties": {
            "rubrics": {
                "type": "array",
                "prefixItems": [entry(i) for i in ordered],
                "minItems": len(ordered),
                "maxItems": len(ordered),
            }
        },
        "required": ["rubrics"],
    }
