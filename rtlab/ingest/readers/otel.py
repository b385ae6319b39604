"""OpenTelemetry trace exports of agents: spans in the GenAI semantic conventions or OpenInference's.

Layouts read (by content, whatever the file's name):

- OTLP JSON (``opentelemetry-proto`` ``ExportTraceServiceRequest``, as the collector's file exporter and OTLP/HTTP
  JSON write it): ``{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans": [...]}]}]}``, one document
  or one a line; spans have ``traceId`` / ``spanId`` / ``parentSpanId`` (hex), ``name``,
  ``startTimeUnixNano`` / ``endTimeUnixNano``, ``status`` ``{code, message}``, ``events`` and ``attributes`` as
  ``[{key, value: {stringValue | intValue | doubleValue | boolValue | arrayValue | kvlistValue}}]``;
- flat span dumps (the OpenTelemetry SDK's ``ReadableSpan.to_json``, any-agent's ``AgentTrace``, hand-written
  exporters): ``{"spans": [...]}`` or a list of spans, each ``{name, context: {trace_id, span_id}, parent or
  parent_id, start_time, end_time, status, attributes: {...}, events}`` (ids hex or decimal, times in ns or ISO).

A **tool span** is a step: ``gen_ai.operation.name = execute_tool`` (open-telemetry/semantic-conventions
``docs/gen-ai/gen-ai-spans.md``: ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``,
``gen_ai.tool.call.result``; any-agent writes ``gen_ai.tool.args`` and ``gen_ai.output``) or
``openinference.span.kind = TOOL`` (Arize-ai/openinference spec: ``tool.name``, ``input.value``,
``output.value``). Its recorded result is its output as the model was shown it; a tool span that records no
result (GenAI content capture is opt-in) is an unanswered step, said once per trace. LLM spans
(``chat`` / ``call_llm`` / ``text_completion`` / ``generate_content``, OpenInference ``LLM``) give the model
(``gen_ai.request.model`` / ``gen_ai.response.model``, ``llm.model_name``), token counts and cost
(``gen_ai.usage.*``, ``llm.token_count.*``), the first user message (the instruction) and the last answer.
Spans are ordered by start time; each trace id is one trajectory. The file is read under the tolerant reading
contract (``_tolerant``): a span or value that cannot be understood is skipped and reported as a warning naming
its line (JSON lines; in a document, its 1-based position among the spans) and its place in the export (the
warning's ``field``); a damaged document is repaired where that keeps every intact span
(``rtlab.io.load_json``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import ReadOptions, compact_json, parse_arguments, typed
from rtlab.ingest.readers._openai_common import Timeline, clip_policy, step_command
from rtlab.ingest.readers._openai_common import type_step as type_step
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import record, warn
from rtlab.io import first_json_line, head_json_lines, head_text, iter_json_lines, load_json, parse_json
from rtlab.records import Deliverable, TokenUsage, Trajectory

NAME = "otel"
LOOKS_FOR = (
    'an OpenTelemetry trace export: OTLP JSON ({"resourceSpans": [...]}, a document or one a line) or a flat '
    'span dump ({"spans": [...]} or a list of spans with trace and span ids), GenAI or OpenInference attributes'
)

_LLM_OPERATIONS = frozenset({"chat", "call_llm", "text_completion", "generate_content", "completion"})
_SNIFF_PARSE = 8 * 1024 * 1024
_OTLP_KEY = re.compile(r'"resourceSpans"\s*:\s*\[')
_FLAT_KEY = re.compile(r'"spans"\s*:\s*\[\s*\{')
_ID_KEY = re.compile(r'"(?:trace_id|traceId|span_id|spanId)"\s*:')


# ---------------------------------------------------------------------------------------------------------
# Sniffing


def _is_span(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return False
    ctx = value.get("context")
    ids = ctx if isinstance(ctx, dict) else value
    return any(k in ids for k in ("trace_id", "traceId")) and any(k in ids for k in ("span_id", "spanId"))


def _is_export(value: Any) -> bool:
    """An OTLP request, a ``{"spans": [...]}`` dump, or a list of spans: recognised by a span among the first
    five (one damaged or foreign entry does not hide the export)."""
    if isinstance(value, dict):
        if isinstance(value.get("resourceSpans"), list):
            return True
        spans = value.get("spans")
        return isinstance(spans, list) and any(_is_span(s) for s in spans[:5])
    return isinstance(value, list) and any(_is_span(s) for s in value[:5])


def sniff(path: Path) -> bool:
    """A JSON document or JSON lines (any name) holding OTLP ``resourceSpans`` or flat spans with trace and span
    ids."""
    head = head_text(path, 65536)
    if not head.startswith(("{", "[")) or not (_OTLP_KEY.search(head) or _ID_KEY.search(head)):
        return False  # no span ids in the head: not parsed further (sniffing runs on every file of a scan)
    try:
        small = path.stat().st_size <= _SNIFF_PARSE
    except OSError:
        return False
    if small:
        try:
            return _is_export(parse_json(path.read_bytes()))
        except (ValueError, RecursionError, OSError):
            pass  # not one document: JSON lines?
    values = head_json_lines(path, n_lines=3)
    if values and all(_is_export(v) or _is_span(v) for v in values):
        return True
    return not small and bool(_OTLP_KEY.search(head) or (_FLAT_KEY.search(head) and _ID_KEY.search(head)))


# ---------------------------------------------------------------------------------------------------------
# Spans in one shape


@dataclass
class Span:
    """One span, whatever layout it came in."""

    trace_id: str
    """The trace's id as 32 hex digits (decimal ids converted)."""
    span_id: str
    """The span's id as 16 hex digits."""
    parent_id: str | None
    """The parent span's id, ``None`` for a root."""
    name: str
    """The span's name."""
    start: int | None
    """Start time in ns since the epoch."""
    end: int | None
    """End time in ns since the epoch."""
    attributes: dict[str, Any]
    """Attributes as plain values."""
    events: list[dict[str, Any]]
    """Events as ``{name, time, attributes}``."""
    error: str | None
    """The status message (or ``""``) when the status is an error, else ``None``."""
    where: str
    """Where the span is in its export value (``resourceSpans[0].scopeSpans[0].spans[3]``, for warnings)."""
    position: int
    """Its 1-based place among the spans of its export value: in a document, the line its step and warnings
    name, as the readers of other JSON documents name a record by its place."""


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value (``intValue`` strings as ints, lists and key-value lists unpacked)."""
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        raw = value["intValue"]
        try:
            return int(raw)
        except (TypeError, ValueError):
            return raw
    for key in ("doubleValue", "boolValue", "bytesValue"):
        if key in value:
            return value[key]
    if "arrayValue" in value:
        items = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else None
        return [any_value(v) for v in items] if isinstance(items, list) else []
    if "kvlistValue" in value:
        items = value["kvlistValue"].get("values") if isinstance(value["kvlistValue"], dict) else None
        pairs = items if isinstance(items, list) else []
        return {str(kv.get("key")): any_value(kv.get("value")) for kv in pairs if isinstance(kv, dict)}
    return None


def _attributes(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, list):
        return {kv["key"]: any_value(kv.get("value")) for kv in raw if isinstance(kv, dict) and "key" in kv}
    return {}


def _hex(value: Any, width: int) -> str | None:
    """A trace or span id as hex: hex text kept (lower case), a decimal integer converted."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return f"{value:0{width}x}" if value >= 0 else None
    if isinstance(value, str) and value:
        text = value.lower().removeprefix("0x")
        if re.fullmatch(r"[0-9a-f]+", text):
            return text.rjust(width, "0")
        return value
    return None


def _ns(value: Any) -> int | None:
    """A time as ns since the epoch: an integer (or its text) of ns, or an ISO-8601 string."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        if value.isdigit():
            return int(value)
        try:
            stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=UTC)
        return int(stamp.timestamp() * 1e9)
    return None


def _iso(ns: int | None) -> str | None:
    if ns is None:
        return None
    try:
        return datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _status_error(status: Any) -> str | None:
    if not isinstance(status, dict):
        return None
    code = status.get("code", status.get("status_code"))
    if code in (2, "2", "ERROR", "STATUS_CODE_ERROR", "error"):
        message = status.get("message", status.get("description"))
        return message if isinstance(message, str) else ""
    return None


Note = Callable[[str | None, str, int | None], None]
"""How a span's fault is said: ``note(where in the value, reason, the span's position or None)``."""


def _span(raw: Any, where: str, note: Note, position: int) -> Span | None:
    """One span from either layout, or ``None`` (said) when it has no ids; a mistyped ``attributes`` is said
    and read as none."""
    if not isinstance(raw, dict):
        note(where, f"expected an object (a span), got {type(raw).__name__}; skipped", position)
        return None
    ctx: dict[str, Any] = raw["context"] if isinstance(raw.get("context"), dict) else raw
    trace = _hex(ctx.get("trace_id", ctx.get("traceId")), 32)
    span_id = _hex(ctx.get("span_id", ctx.get("spanId")), 16)
    if trace is None or span_id is None:
        note(where, "a span without a trace id and span id (missing field); skipped", position)
        return None
    attributes = raw.get("attributes")
    if attributes is not None and not isinstance(attributes, dict | list):
        note(
            f"{where}.attributes",
            f"expected an object or a list, got {type(attributes).__name__}; the span read without attributes",
            position,
        )
    parent = raw.get("parent")
    parent_id = (
        parent.get("span_id") if isinstance(parent, dict) else raw.get("parent_id", raw.get("parentSpanId"))
    )
    events = []
    raw_events = raw.get("events")
    for ev in raw_events if isinstance(raw_events, list) else []:
        if isinstance(ev, dict):
            events.append(
                {
                    "name": ev.get("name"),
                    "time": _ns(ev.get("timestamp", ev.get("timeUnixNano"))),
                    "attributes": _attributes(ev.get("attributes")),
                }
            )
    return Span(
        trace_id=trace,
        span_id=span_id,
        parent_id=_hex(parent_id, 16) if parent_id not in (None, "", 0) else None,
        name=str(raw["name"]) if isinstance(raw.get("name"), str) else "",
        start=_ns(raw.get("start_time", raw.get("startTimeUnixNano"))),
        end=_ns(raw.get("end_time", raw.get("endTimeUnixNano"))),
        attributes=_attributes(attributes),
        events=events,
        error=_status_error(raw.get("status")),
        where=where,
        position=position,
    )


def _spans_of(doc: Any, where: str, note: Note) -> list[Span]:
    """Every span of one export value (an OTLP request, a flat dump, a list of spans, or one span)."""
    found: list[Span] = []
    position = 0
    if isinstance(doc, dict) and isinstance(doc.get("resourceSpans"), list):
        for r, resource in enumerate(doc["resourceSpans"]):
            scopes = resource.get("scopeSpans", resource.get("instrumentationLibrarySpans")) if isinstance(
                resource, dict
            ) else None  # fmt: skip
            if not isinstance(scopes, list):
                note(f"{where}resourceSpans[{r}]", "missing field scopeSpans (a list); skipped", None)
                continue
            for s, scope in enumerate(scopes):
                spans = scope.get("spans") if isinstance(scope, dict) else None
                for i, raw in enumerate(spans if isinstance(spans, list) else []):
                    position += 1
                    span = _span(raw, f"{where}resourceSpans[{r}].scopeSpans[{s}].spans[{i}]", note, position)
                    if span is not None:
                        found.append(span)
        return found
    if isinstance(doc, dict) and isinstance(doc.get("spans"), list):
        items, prefix = doc["spans"], f"{where}spans"
    elif isinstance(doc, list):
        items, prefix = doc, where.rstrip(".") or ""
    elif _is_span(doc):
        items, prefix = [doc], where.rstrip(".")
    else:
        note(where.rstrip(".") or None, "unknown record: not an OpenTelemetry export value; skipped", None)
        return found
    for i, raw in enumerate(items):
        span = _span(
            raw, f"{prefix}[{i}]" if items is not doc or isinstance(doc, list) else prefix, note, i + 1
        )
        if span is not None:
            found.append(span)
    return found


# ---------------------------------------------------------------------------------------------------------
# Spans to steps


def _first(attrs: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in attrs and attrs[key] is not None:
            return attrs[key]
    return None


def is_tool(span: Span) -> bool:
    """A tool execution: GenAI ``execute_tool`` or OpenInference ``TOOL``."""
    a = span.attributes
    return a.get("gen_ai.operation.name") == "execute_tool" or a.get("openinference.span.kind") == "TOOL"


def is_llm(span: Span) -> bool:
    a = span.attributes
    operation = a.get("gen_ai.operation.name")
    return (isinstance(operation, str) and operation in _LLM_OPERATIONS) or a.get(
        "openinference.span.kind"
    ) == "LLM"


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else compact_json(value)


def _messages(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        try:
            value = parse_json(value)
        except json.JSONDecodeError:
            return []
    return [m for m in value if isinstance(m, dict)] if isinstance(value, list) else []


def _content(message: dict[str, Any]) -> str | None:
    """A message's text: ``content`` as text, or the text ``parts`` (GenAI's ``{type: text, content}``)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = message.get("parts", content)
    if isinstance(parts, list):
        texts = [
            p.get("content", p.get("text")) for p in parts if isinstance(p, dict) and p.get("type") == "text"
        ]
        return "\n".join(t for t in texts if isinstance(t, str)) or None
    return None


def _indexed_messages(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """OpenInference's flattened ``llm.input_messages.N.message.role`` / ``.content`` as messages."""
    found: dict[int, dict[str, Any]] = {}
    pattern = re.compile(rf"{re.escape(prefix)}\.(\d+)\.message\.(role|content)$")
    for key, value in attrs.items():
        if m := pattern.match(key):
            found.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return [found[i] for i in sorted(found)]


def _usage(attrs: dict[str, Any]) -> TokenUsage | None:
    def count(*keys: str) -> int | None:
        value = _first(attrs, *keys)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    cost = [
        attrs.get(k) for k in ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost", "gen_ai.usage.cost")
    ]
    costs = [c for c in cost if isinstance(c, int | float) and not isinstance(c, bool)]
    usage = TokenUsage(
        input_tokens=count(
            "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"
        ),
        output_tokens=count(
            "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion"
        ),
        cached_input_tokens=count(
            "gen_ai.usage.cache_read.input_tokens", "llm.token_count.prompt_details.cache_read"
        ),
        total_tokens=count("llm.token_count.total", "gen_ai.usage.total_tokens"),
        cost_usd=float(sum(costs)) if costs else None,
    )
    return None if usage == TokenUsage() else usage


@dataclass
class _Trace:
    """What one trace's spans build."""

    trace_id: str
    timeline: Timeline
    models: Counter[str] = field(default_factory=Counter)
    usage: TokenUsage | None = None
    instruction: str | None = None
    final: str | None = None
    agents: list[str] = field(default_factory=list)
    unrecorded: int = 0


def _tool_step(trace: _Trace, span: Span, line: int | None) -> None:
    a = span.attributes
    tl = trace.timeline
    name = _first(a, "gen_ai.tool.name", "tool.name")
    if not isinstance(name, str):
        name = span.name.removeprefix("execute_tool ").strip() or "tool"
    raw_args = _first(a, "gen_ai.tool.call.arguments", "gen_ai.tool.args", "input.value", "tool.arguments")
    args, error = parse_arguments(raw_args)
    call_id = _first(a, "gen_ai.tool.call.id", "tool_call.id", "tool.id")
    call_id = str(call_id) if call_id is not None else None
    if call_id is not None and not tl.unknown(call_id) and tl.open_call(call_id) is None:
        warn(
            tl.warnings,
            tl.path,
            line,
            f"tool call id {call_id!r} seen twice; both calls kept",
            field=span.where or None,
        )  # fmt: skip  (an open one: said by the timeline)
    tl.now = _iso(span.start)
    step = tl.call(name, args, line, call_id=call_id, args_error=error, command=step_command(name, args))
    result = _text(_first(a, "gen_ai.tool.call.result", "gen_ai.output", "output.value", "tool.output"))
    if result is None and span.error is not None:
        exception = next((e for e in span.events if e["name"] == "exception"), None)
        message = exception["attributes"].get("exception.message") if exception else None
        result = message if isinstance(message, str) else span.error
    if result is None:
        trace.unrecorded += 1
        return
    tl.now = _iso(span.end)
    tl.give(step, result, is_error=span.error is not None)


def _llm_span(trace: _Trace, span: Span) -> None:
    a = span.attributes
    model = _first(a, "gen_ai.response.model", "gen_ai.request.model", "llm.model_name")
    if isinstance(model, str):
        trace.models[model] += 1
    usage = _usage(a)
    if usage is not None:
        trace.usage = usage if trace.usage is None else trace.usage + usage
    if trace.instruction is None:
        inputs = _messages(a.get("gen_ai.input.messages")) or _indexed_messages(a, "llm.input_messages")
        first_user = next((m for m in inputs if m.get("role") == "user"), None)
        if first_user is not None:
            trace.instruction = _content(first_user)
    outputs = _messages(a.get("gen_ai.output.messages")) or _indexed_messages(a, "llm.output_messages")
    said = next((_content(m) for m in reversed(outputs) if _content(m)), None)
    if said is None and a.get("gen_ai.output.type") == "text" and isinstance(a.get("gen_ai.output"), str):
        said = a["gen_ai.output"]
    if said:
        trace.timeline.now = _iso(span.end)
        trace.timeline.event("message", said, None, role="assistant", span=span.name)
        trace.final = said


def _trajectory(
    path: Path, trace: _Trace, spans: list[Span], warnings: list[str], extra: dict[str, Any]
) -> Trajectory:
    tl = trace.timeline
    starts = [s.start for s in spans if s.start is not None]
    ends = [s.end for s in spans if s.end is not None]
    meta: dict[str, Any] = {"n_spans": len(spans), "trace_id": trace.trace_id}
    if trace.agents:
        meta["agents"] = trace.agents
    if trace.models:
        meta["models"] = dict(trace.models)
    if warnings:
        meta["warnings"] = warnings
    final = extra.get("final_output")
    return Trajectory(
        id=f"{NAME}:{trace.trace_id}",
        format=NAME,
        source_path=str(path),
        steps=tl.steps,
        events=tl.events,
        deliverable=Deliverable(final_message=_text(final) if final is not None else trace.final),
        instruction=trace.instruction,
        model=trace.models.most_common(1)[0][0] if trace.models else None,
        started_at=_iso(min(starts)) if starts else None,
        ended_at=_iso(max(ends)) if ends else None,
        usage=trace.usage,
        clip_policy=tl.policy.name,
        meta=meta,
    )


def _may_hold_spans(value: Any) -> bool:
    """Whether :func:`_spans_of` may find a span in one export value (an OTLP request, a flat dump, a list,
    one span): every other value is skipped as unknown."""
    if isinstance(value, dict):
        return (
            isinstance(value.get("resourceSpans"), list)
            or isinstance(value.get("spans"), list)
            or _is_span(value)
        )
    return isinstance(value, list)


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: the values
    it reads (:func:`_values`) are the file as one document, an export or a span, or its lines, of which one
    at least may hold spans (:func:`_may_hold_spans`); a tool call is a span."""
    doc = facts.document
    return _is_export(doc) or _is_span(doc) or any(_may_hold_spans(v) for v in facts.lines)


def _values(path: Path, warnings: list[str]) -> list[tuple[int | None, Any]]:
    """The file's export values with their lines: one document (``None``: its spans are named by their
    position in it), or one value a line. The file is read once."""
    data = path.read_bytes()
    first = first_json_line(path, data=data)
    if first is None or not (_is_export(first) or _is_span(first)):  # not JSON lines of spans: a document?
        tried: list[str] = []
        try:
            doc = load_json(path, tried, data=data)
        except ReaderError:
            doc = None
        if doc is not None and (_is_export(doc) or _is_span(doc)):
            warnings += tried
            return [(None, doc)]
    return list(iter_json_lines(path, warnings, data=data))


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per trace id in an OpenTelemetry export (see the module docstring)."""
    warnings: list[str] = []
    values = _values(path, warnings)
    if not values:
        raise ReaderError(path, "file is empty")
    spans: list[tuple[Span, int | None]] = []
    extra: dict[str, Any] = {}
    for line, value in values:

        def note(where: str | None, reason: str, position: int | None, line: int | None = line) -> None:
            warn(warnings, path, line if line is not None else position, reason, field=where or None)

        spans += [(s, line if line is not None else s.position) for s in _spans_of(value, "", note)]
        if isinstance(value, dict) and "final_output" in value:
            extra["final_output"] = value["final_output"]
    if not spans:
        why = f"; {warnings[-1].removeprefix(f'{path}')}" if warnings else ""
        raise ReaderError(
            path, f"no OpenTelemetry span here (no resourceSpans, no spans with trace and span ids{why})"
        )
    by_trace: dict[str, list[tuple[Span, int | None]]] = {}
    for found, at in spans:
        by_trace.setdefault(found.trace_id, []).append((found, at))
    policy = clip_policy(options)
    out: list[Trajectory] = []
    for trace_id, members in by_trace.items():
        members.sort(key=lambda m: (m[0].start is None, m[0].start or 0))
        trace_warnings = list(warnings)  # the file's own warnings are every trace's
        trace = _Trace(trace_id, Timeline(path, policy, warnings=trace_warnings))
        for span, where in members:
            with record(trace_warnings, path, where, "span"):
                _one_span(trace, span, where)
        trace.timeline.close()
        if trace.unrecorded:
            warn(trace_warnings, path, None, f"trace {trace_id}: {trace.unrecorded} tool span(s) record no result "
                 "(content capture off?); kept as unanswered steps")  # fmt: skip
        if not trace.timeline.steps:
            warn(trace_warnings, path, None,
                 f"trace {trace_id}: no GenAI (execute_tool) or OpenInference (TOOL) tool span; no steps")  # fmt: skip
        out.append(_trajectory(path, trace, [m[0] for m in members], trace_warnings, extra))
    return out


def _one_span(trace: _Trace, span: Span, where: int | None) -> None:
    """One span of a trace, in start order (``where``: its line in JSON lines, its position in a document)."""
    if is_tool(span):
        _tool_step(trace, span, where)
    elif is_llm(span):
        _llm_span(trace, span)
    elif span.parent_id is None and span.attributes.get("openinference.span.kind") in ("AGENT", "CHAIN"):
        said = span.attributes.get("input.value")  # the request, when no LLM span names it
        if trace.instruction is None and isinstance(said, str):
            trace.instruction = said
    elif span.attributes.get("gen_ai.operation.name") == "invoke_agent":
        agent = span.attributes.get("gen_ai.agent.name")
        if isinstance(agent, str):
            trace.agents.append(agent)
    if span.error is not None and not is_tool(span):
        trace.timeline.now = _iso(span.end)
        trace.timeline.event("error", span.error or span.name, where, span=span.name)
