"""What the two OpenHands readers share: the evaluation harness's ``output.jsonl`` and OpenHands' ``Metrics``.

Both generations of OpenHands' evaluation harness write one ``EvalOutput`` a line, ``model_dump_json()``,
``instance_id`` first: V0 in ``evaluation/utils/shared.py`` (All-Hands-AI/OpenHands: ``instance_id``,
``test_result``, ``instruction``, ``metadata`` (``EvalMetadata``: ``agent_class``, ``llm_config``,
``eval_output_dir``, ``git_commit``, ...), ``history`` (serialised V0 events), ``metrics``, ``error``,
``instance``), V1 in ``benchmarks/utils/models.py`` (OpenHands/benchmarks: the same names, ``metadata.llm``
instead of ``llm_config``, ``history`` of software-agent-sdk events with a ``kind``, and from 2026 ``attempt``
and ``metadata.openhands_sdk_version``). Which generation a file is comes from its first history event:
V0 events carry an integer ``id`` and ``action`` / ``observation`` names, V1 events a ``kind``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rtlab.errors import ReaderError
from rtlab.ingest.readers._tolerant import skipped_because
from rtlab.io import field, head_bytes, iter_json_lines
from rtlab.records import TokenUsage

Generation = Literal["v0", "v1"]

_OPENING = re.compile(rb'\A\s*\{\s*"instance_id"\s*:')
_HISTORY = re.compile(r'"history"\s*:\s*\[\s*(?=\{)')
_SNIFF_HEAD = 4 * 1024 * 1024
"""How much of an eval file sniffing reads to find the first history event (its line may be megabytes)."""
_V0_EVENT = (
    re.compile(r'"id"\s*:\s*-?\d'),
    re.compile(r'"source"\s*:\s*"(?:agent|user|environment)"'),
    re.compile(r'"(?:action|observation)"\s*:\s*"'),
)
_V1_EVENT = re.compile(r'"kind"\s*:\s*"[A-Za-z]+"')


def is_eval_output(path: Path) -> bool:
    """The file opens as an ``EvalOutput`` line does: ``{"instance_id": ...``."""
    try:
        return path.is_file() and bool(_OPENING.match(head_bytes(path, 256)))
    except OSError:
        return False


def eval_generation(path: Path) -> Generation | None:
    """``v0`` / ``v1`` for an evaluation ``output.jsonl`` (any file name) whose first line's history holds that
    generation's events; ``None`` for anything else (or an empty history: nothing says which)."""
    if not is_eval_output(path):
        return None
    head = head_bytes(path, _SNIFF_HEAD).split(b"\n", 1)[0].decode("utf-8", errors="ignore")
    m = _HISTORY.search(head)
    if m is None:
        return None
    try:
        first, _ = json.JSONDecoder().raw_decode(head, m.end())
    except json.JSONDecodeError:
        first = None  # the event is longer than the head: judge by its opening
    if isinstance(first, dict):
        if isinstance(first.get("kind"), str) and isinstance(first.get("id"), str):
            return "v1"
        is_int = isinstance(first.get("id"), int) and not isinstance(first.get("id"), bool)
        named = isinstance(first.get("action"), str) or isinstance(first.get("observation"), str)
        return "v0" if is_int and named and isinstance(first.get("source"), str) else None
    if first is not None:
        return None
    opening = head[m.end() : m.end() + 4096]
    if all(p.search(opening) for p in _V0_EVENT):
        return "v0"
    return "v1" if _V1_EVENT.search(opening) and re.search(r'"id"\s*:\s*"', opening) else None


@dataclass
class EvalLine:
    """One instance of an evaluation output: its line, its fields, and its trajectory's id."""

    line: int
    instance_id: str
    history: list[Any]
    record: dict[str, Any]
    id: str
    """``<format>:<folder>/<file stem>:<instance_id>`` (``:<line>`` added when an instance id repeats)."""

    @property
    def metadata(self) -> dict[str, Any]:
        value = self.record.get("metadata")
        return value if isinstance(value, dict) else {}

    def text(self, key: str) -> str | None:
        value = self.record.get(key)
        return value if isinstance(value, str) and value else None

    def meta(self) -> dict[str, Any]:
        """The eval facts a trajectory keeps: line, test result, error, attempt, dataset and output folder."""
        out: dict[str, Any] = {"eval_line": self.line}
        for key in ("test_result", "error", "attempt"):
            if self.record.get(key) not in (None, {}, ""):
                out[f"eval_{key}"] = self.record[key]
        for key in ("dataset", "dataset_split", "data_split", "eval_output_dir", "agent_class", "git_commit"):
            value = self.metadata.get(key)
            if isinstance(value, str) and value:
                out[key] = value
        return out


def iter_eval_lines(name: str, path: Path, warnings: list[str]) -> Iterator[EvalLine]:
    """Every line of an evaluation output, checked for the fields a trajectory needs (``instance_id``,
    ``history``); a line that is not JSON or lacks them is skipped with a warning."""
    seen: set[str] = set()
    base = f"{name}:{path.resolve().parent.name}/{path.stem}"
    found = False
    first: ReaderError | None = None
    for line, record in iter_json_lines(path, warnings):
        try:
            if not isinstance(record, dict):
                raise ReaderError(
                    path, f"expected an EvalOutput object, got {type(record).__name__}", line=line
                )
            instance = field(record, "instance_id", str, path, line)
            history = record.get("history")
            if history is None:
                history = []
            if not isinstance(history, list):
                raise ReaderError(
                    path, f"expected a list, got {type(history).__name__}", line=line, field="history"
                )
        except ReaderError as exc:  # this instance's line is not understood: the others are read
            first = first or exc
            warnings.append(skipped_because(exc, path, line, "evaluation output line"))
            continue
        found = True
        ident = f"{base}:{instance}" if instance not in seen else f"{base}:{instance}:{line}"
        seen.add(instance)
        yield EvalLine(line, instance, history, record, ident)
    if not found:
        raise first if first is not None else ReaderError(path, "file is empty")


def may_hold_histories(lines: list[Any]) -> bool:
    """Whether an evaluation output whose lines hold ``lines`` (what :func:`rtlab.io.iter_json_lines` gives)
    may give a step: steps come only from the events of a history, and :func:`iter_eval_lines` gives a line's
    history only for an object with a string ``instance_id`` and a list ``history``."""
    return any(
        isinstance(v, dict)
        and isinstance(v.get("instance_id"), str)
        and isinstance(v.get("history"), list)
        and bool(v["history"])
        for v in lines
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def metrics_usage(metrics: Any) -> TokenUsage | None:
    """A run's totals from OpenHands ``Metrics`` (``accumulated_cost``, ``accumulated_token_usage`` with
    ``prompt_tokens`` (cache reads included, as LiteLLM counts them), ``completion_tokens``, ``cache_read_tokens``,
    ``reasoning_tokens``;
    openhands/llm/metrics.py in V0, openhands-sdk/openhands/sdk/llm/utils/metrics.py in V1). ``total_tokens`` is
    prompt plus completion (Metrics keeps no total). ``None`` when it records neither tokens nor cost."""
    if not isinstance(metrics, dict):
        return None
    tokens = metrics.get("accumulated_token_usage")
    tokens = tokens if isinstance(tokens, dict) else {}
    prompt, completion = _count(tokens.get("prompt_tokens")), _count(tokens.get("completion_tokens"))
    cost = metrics.get("accumulated_cost")
    cost = float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None
    if prompt is None and completion is None and cost is None:
        return None
    return TokenUsage(
        input_tokens=prompt,
        output_tokens=completion,
        cached_input_tokens=_count(tokens.get("cache_read_tokens")),
        reasoning_tokens=_count(tokens.get("reasoning_tokens")),
        total_tokens=prompt + completion if prompt is not None and completion is not None else None,
        cost_usd=cost,
    )


_EVAL_NOTE_VERSION = re.compile(r"_maxiter_\d+_N_v(\d+\.\d+(?:\.\d+)?[A-Za-z0-9.+]*)(?:-|$)")


def v0_version(eval_output_dir: str | None) -> str | None:
    """The OpenHands version in a V0 eval's output folder name (``..._maxiter_50_N_v0.35.0-no-hint-run_1``):
    ``make_metadata`` (evaluation/utils/shared.py) names the folder ``<model>_maxiter_<n>_N_<eval note>``, and
    the benchmarks' ``run_infer.sh`` start the note with ``$OPENHANDS_VERSION`` (``v`` + ``get_version()``,
    evaluation/utils/version_control.sh)."""
    if not eval_output_dir:
        return None
    m = _EVAL_NOTE_VERSION.search(eval_output_dir.rstrip("/").rsplit("/", 1)[-1])
    return m.group(1) if m else None
