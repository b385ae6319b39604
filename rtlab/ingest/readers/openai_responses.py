"""OpenAI Responses API item logs: ``message``, ``reasoning``, ``function_call``/``function_call_output``, ...

Item shapes from openai/openai-python ``src/openai/types/responses/response_input_item_param.py`` and
``response_output_item.py``. Accepted layouts:

- ``.json``: a list of items; an object with ``input`` (a string or an item list) and/or ``output`` (an item
  list), such as a request/response pair or a ``Response`` object (``model``, ``usage``, ``instructions``,
  ``created_at`` are kept); or a list of such objects (one trajectory each, id suffixed by position).
- ``.jsonl``: one item per line (one trajectory), or one such object per line (one trajectory per line, id
  suffixed by the line number).

The items become steps and events by the handlers of :mod:`rtlab.ingest.readers._responses_items` (calls and
results linked by ``call_id``; hosted tools hold their own result). The log is the model's own context, so
``shown == output``.

Provenance: ``line`` is the file line for item-per-line JSONL, the 1-based position for a JSON item list, the
position in ``input`` followed by ``output`` for a JSON object, and the object's line for object-per-line JSONL
(error fields then name ``input[i]``/``output[i]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import ReadOptions, typed
from rtlab.ingest.readers._openai_common import (
    Timeline,
    all_match,
    clip_policy,
    is_document,
    iso_time,
    sniff_log,
    tool_names,
    trajectory_id,
    type_step,
    usage_from,
    written_files,
)
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._responses_items import ItemState, dispatch
from rtlab.ingest.readers._tolerant import record
from rtlab.io import field, iter_json_lines, load_json
from rtlab.records import Deliverable, Trajectory

NAME = "openai-responses"
LOOKS_FOR = (
    'a .json/.jsonl of Responses API items ("type": function_call, function_call_output, reasoning, '
    'local_shell_call, message with role, ...), or objects with "input"/"output" item lists'
)

_MESSAGE_ROLES = frozenset({"user", "assistant", "system", "developer"})
_RESPONSES_PART_TYPES = frozenset({"input_text", "output_text", "input_image", "input_file", "input_audio"})
_REQUIRED: dict[str, tuple[str, ...]] = {
    "message": ("role", "content"),
    "function_call": ("name", "call_id"),
    "function_call_output": ("call_id", "output"),
    "custom_tool_call": ("name", "call_id"),
    "custom_tool_call_output": ("call_id", "output"),
    "local_shell_call": ("action",),
    "local_shell_call_output": ("output",),
    "shell_call": ("action", "call_id"),
    "shell_call_output": ("call_id", "output"),
    "apply_patch_call": ("operation", "call_id"),
    "apply_patch_call_output": ("call_id",),
    "computer_call": ("call_id",),
    "computer_call_output": ("call_id", "output"),
    "reasoning": ("summary",),
    "web_search_call": (),
    "file_search_call": (),
    "code_interpreter_call": (),
    "image_generation_call": (),
    "mcp_call": ("name",),
    "mcp_list_tools": ("tools",),
    "mcp_approval_request": (),
    "mcp_approval_response": (),
    "tool_search_call": (),
    "tool_search_output": (),
    "compaction": (),
    "compaction_trigger": (),
    "item_reference": ("id",),
    "additional_tools": (),
    "configuration_update": (),
    "program": ("call_id",),
    "program_output": ("call_id",),
}
"""Every item ``type`` of the Responses API, with the keys sniffing requires of it."""

# ---------------------------------------------------------------------------------------------------------
# Sniffing


def _is_item(x: Any) -> bool:
    """A Responses item: a known ``type`` with its keys (a ``message`` with top-level ``role``), or an easy
    input message (``role`` + ``content``, no ``type``)."""
    if not isinstance(x, dict):
        return False
    kind = x.get("type")
    if kind is None:
        return x.get("role") in _MESSAGE_ROLES and isinstance(x.get("content"), str | list)
    if not isinstance(kind, str) or kind not in _REQUIRED or "message" in x:
        return False
    return all(key in x for key in _REQUIRED[kind])


def _is_specific(x: Any) -> bool:
    """An item only the Responses API has: a typed item, or content parts such as ``input_text``."""
    if "type" in x:
        return True
    content = x.get("content")
    return isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") in _RESPONSES_PART_TYPES for p in content
    )


def _is_items(values: Any) -> bool:
    return isinstance(values, list) and all_match(values, _is_item) and any(_is_specific(v) for v in values)


def _holds_items(obj: Any) -> bool:
    """An object with ``input``/``output`` lists and no ``type``/``role`` of its own (a request/response)."""
    return (
        isinstance(obj, dict)
        and "type" not in obj
        and "role" not in obj
        and ("input" in obj or "output" in obj)
    )


def _is_conversation(obj: Any) -> bool:
    if not _holds_items(obj):
        return False
    inp, out = obj.get("input"), obj.get("output")
    if not (inp is None or isinstance(inp, str | list)) or not (out is None or isinstance(out, list)):
        return False
    items = [x for v in (inp, out) if isinstance(v, list) for x in v]
    return all(_is_item(x) for x in items) and any(_is_specific(x) for x in items)


def sniff(path: Path) -> bool:
    """A .json/.jsonl of Responses items, or of objects whose ``input``/``output`` lists hold them."""
    return sniff_log(path, is_conversation=_is_conversation, is_items=_is_items)


# ---------------------------------------------------------------------------------------------------------
# Reading: layouts


@dataclass
class _Conversation:
    """One trajectory's items as ``(line, field path, item)``, and the object that held them."""

    items: list[tuple[int | None, str, Any]]
    top: dict[str, Any] = dc_field(default_factory=dict)
    layout: str = "item-list"
    suffix: int | None = None
    line: int | None = None


def _from_object(path: Path, obj: dict[str, Any], line: int | None, layout: str) -> _Conversation:
    """The items of an ``{input, output}`` object; ``line`` is its file line (``None`` for a whole JSON file)."""
    if "input" not in obj and "output" not in obj:
        raise ReaderError(path, "missing field (need 'input' or 'output')", line=line, field="output")
    inp = field(obj, "input", (str, list), path, line) if obj.get("input") is not None else []
    out = field(obj, "output", list, path, line) if obj.get("output") is not None else []
    items: list[tuple[int | None, str, Any]] = []
    if isinstance(inp, str):
        items.append(
            (line if line is not None else 1, "input", {"type": "message", "role": "user", "content": inp})
        )
        inp = []
    for name, values in (("input", inp), ("output", out)):
        for i, item in enumerate(values):
            items.append((line if line is not None else len(items) + 1, f"{name}[{i}]", item))
    return _Conversation(items, obj, layout, suffix=line if layout != "object" else None, line=line)


def _conversations(path: Path, warnings: list[str]) -> list[_Conversation]:
    """Split a file into conversations according to its layout (see the module docstring)."""
    if is_document(path):
        doc = load_json(path, warnings)
        if isinstance(doc, dict):
            return [_from_object(path, doc, None, "object")]
        if not isinstance(doc, list):
            raise ReaderError(
                path, f"expected a list of items or an object with 'output', got {type(doc).__name__}"
            )
        if doc and _holds_items(doc[0]):
            return [
                _from_object(path, _dict(path, obj, pos), pos, "object-list")
                for pos, obj in enumerate(doc, 1)
            ]
        return [_Conversation([(i, "", item) for i, item in enumerate(doc, 1)], layout="item-list")]

    values = list(iter_json_lines(path, warnings))
    if not values:
        raise ReaderError(path, "file is empty")
    if _holds_items(values[0][1]):
        found = []
        for line, obj in values:
            if _holds_items(obj):
                found.append(_from_object(path, obj, line, "object-per-line"))
            else:
                warnings.append(f"{path}:{line}: not an {{input, output}} object among such objects; skipped")
        return found
    items: list[tuple[int | None, str, Any]] = []
    for line, value in values:
        if _holds_items(value):
            warnings.append(
                f"{path}:{line} [output]: an {{input, output}} object among per-line items; skipped"
            )
        else:
            items.append((line, "", value))
    return [_Conversation(items, layout="item-per-line")]


def _dict(path: Path, obj: Any, line: int | None) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ReaderError(path, f"expected an object, got {type(obj).__name__}", line=line)
    return obj


def _build(path: Path, conv: _Conversation, options: ReadOptions, file_warnings: list[str]) -> Trajectory:
    """One trajectory from one conversation's items."""
    policy = clip_policy(options)
    st = ItemState(Timeline(path, policy))
    top = conv.top
    if isinstance(top.get("instructions"), str):
        st.tl.event("system", top["instructions"], conv.line, role="system", source="instructions")
    if not conv.items:
        raise ReaderError(path, "no items", line=conv.line, field="output" if top else None)
    for line, where, item in conv.items:
        with record(st.tl.warnings, path, line, "item"):
            dispatch(st, item, line, where)
    st.tl.close()
    if isinstance(top.get("error"), dict):
        st.tl.event("error", str(top["error"].get("message", "")), conv.line, error=top["error"])

    meta: dict[str, Any] = {"layout": conv.layout, "n_items": len(conv.items)}
    for key in ("id", "previous_response_id", "status"):
        if isinstance(top.get(key), str):
            meta["response_id" if key == "id" else key] = top[key]
    if tool_names(top.get("tools")):
        meta["tools"] = tool_names(top.get("tools"))
    warnings = file_warnings + st.tl.warnings
    at = f"{path}:{conv.line}" if conv.line is not None else str(path)
    started_at = iso_time(top.get("created_at"), warnings, f"{at} [created_at]")
    ended_at = iso_time(top.get("completed_at"), warnings, f"{at} [completed_at]")
    if warnings:
        meta["warnings"] = warnings
    return Trajectory(
        id=trajectory_id(NAME, path, conv.suffix),
        format=NAME,
        source_path=str(path),
        steps=st.tl.steps,
        events=st.tl.events,
        deliverable=Deliverable(final_message=st.final, files=written_files(st.tl.steps)),
        instruction=st.instruction,
        model=top.get("model") if isinstance(top.get("model"), str) else None,
        started_at=started_at,
        ended_at=ended_at,
        usage=usage_from(top.get("usage")),
        clip_policy=policy.name,
        meta=meta,
    )


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares, whichever
    layout :func:`_conversations` reads: a document that is an ``{input, output}`` object, or a list holding
    an item or such an object (an object with a ``type``, an ``input`` or an ``output``), else a line that is
    one. A folder is offered as it is."""
    if not facts.is_file:
        return True
    doc = facts.document
    if isinstance(doc, dict):
        return "input" in doc or "output" in doc
    if isinstance(doc, list) and any(_may_hold_items(v) for v in doc):
        return True
    return any(_may_hold_items(v) for v in facts.lines)


def _may_hold_items(value: Any) -> bool:
    return isinstance(value, dict) and ("type" in value or "input" in value or "output" in value)


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """Trajectories from a Responses item log: one per conversation (see the module docstring)."""
    warnings: list[str] = []
    return [_build(path, conv, options, list(warnings)) for conv in _conversations(path, warnings)]
