"""Codex CLI session rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl``.

Codex records a session as it runs (``RolloutRecorder``, openai/codex codex-rs/core/src/rollout/recorder.rs):
one ``RolloutLine`` a line, ``{timestamp, type, payload}`` (``RolloutItem`` in codex-rs/protocol/src/protocol.rs,
tagged ``type`` / ``payload``):

- ``session_meta``: ``SessionMetaLine`` (``id``, ``timestamp``, ``cwd``, ``originator``, ``cli_version``,
  ``instructions`` or, later, ``base_instructions {text}``, ``source`` (a sub-agent's names its parent thread),
  ``model_provider``, ``git``). The first one is the session's; a forked or resumed session may hold more.
- ``response_item``: a ``ResponseItem`` (codex-rs/protocol/src/models.rs), the model's context itself:
  ``message`` (roles ``user``, ``assistant``, ``developer``), ``reasoning``, ``function_call`` /
  ``function_call_output``, ``custom_tool_call`` / ``custom_tool_call_output`` (the freeform ``apply_patch``),
  ``local_shell_call``, ``web_search_call``, ``ghost_snapshot``, ``compaction``. A ``function_call_output``'s
  ``output`` is ``FunctionCallOutputPayload``: a string, a list of content items, or (older) ``{content,
  success}``.
- ``event_msg``: the ``EventMsg`` kinds ``should_persist_event_msg`` keeps (core/src/rollout/policy.rs):
  ``token_count`` (``info.total_token_usage``, cumulative), ``user_message`` / ``agent_message`` /
  ``agent_reasoning`` (the interface's copies of what the response items hold), ``task_started`` /
  ``task_complete`` (``last_agent_message``), ``turn_aborted``, ``context_compacted``, review-mode and undo
  markers, and with extended persistence ``error`` and ``exec_command_end``.
- ``turn_context``: per turn ``cwd``, ``model``, ``approval_policy``, ``sandbox_policy``, ``effort``, ...
- ``compacted``: ``CompactedItem`` (``message``: the summary the history was replaced by).

Older rollouts are read too: the ``record_type`` lines of Codex before the ``RolloutItem`` envelope
(``TaggedLine`` in recorder.rs of August 2025: ``session_meta``, ``prev_session_meta``, ``response``,
``event`` with ``{id, msg}``, ``state``), and the bare layout before them, where the first line is the
session meta itself (``{id, timestamp, instructions, git}``, which ``get_rollout_history`` still accepts) and
the items follow bare, between ``{"record_type": "state"}`` lines. Records pretty-printed over several lines
each (as some tools save rollouts) are read like JSON lines.

What becomes what:

- **Steps**: ``function_call``, ``custom_tool_call`` and ``local_shell_call`` items, each answered by the
  output item with its ``call_id`` (through the Responses handlers of ``_responses_items``), and
  ``web_search_call`` items (they hold their own result; Codex logs none). ``shell`` / ``container.exec``
  (an argv, ``["bash", "-lc", "..."]`` unwrapped as the exec reader does), ``shell_command``,
  ``exec_command`` and ``local_shell`` run a command line. A ``write_stdin`` call is a step of its own (it is
  its own call with its own output, and the model saw that output as a result of its own): its output is
  more output of the ``exec_command`` session it names, so it is typed as that session's command line (found
  from the session's ``Process running with session ID N`` result); when the session cannot be found it is
  an ``other`` call. ``apply_patch`` (freeform custom tool, function call, or invoked through the shell as
  ``apply_patch <<'EOF' ...`` or the argv ``["apply_patch", patch]``, which Codex intercepts) writes the files
  its patch adds (``write``) and changes the files it updates (``edit``; a moved file is written at its new
  path); a patch over several files is one action with a part per file, deletions left out.
  ``update_plan`` is an ``other`` call whose plan is also kept as a ``plan`` event; ``view_image`` reads its
  ``path`` (its reply is Codex's words only); web searches and other tools are ``other`` calls.
- **What the model was shown**: a tool result in the rollout is the ``ResponseItem`` Codex sent the model,
  recorded as its tool handler made it (``record_conversation_items`` persists the items it records into the
  history), so Codex's truncation is already in it: the 256-line / 10 KiB policy of Codex about 0.46-0.58
  (``Total output lines: N`` and ``[... omitted K of N lines ...]``), later ``TruncationPolicy`` budgets
  (``…N tokens truncated…``), the unified exec tools' ``max_output_tokens``. The default clip policy is
  therefore ``codex-rollout``: nothing more is cut. (The history keeps tool outputs within the model's
  budget times 1.2, ``ContextManager::process_item``, which leaves a result its handler already cut as it
  is.) The ``shell`` tool of Codex about 0.4x-0.5x answered with a JSON string ``{"output": ...,
  "metadata": {"exit_code", "duration_seconds"}}``: ``shown`` is its ``output`` text (the model read it
  inside that JSON string, whose escaping is not content), the exit code is the metadata's. Results of the
  freeform and unified exec formats keep their header lines (``Exit code``, ``Wall time``, ``Chunk ID``,
  ``Process exited with code``, ``Process running with session ID``, ``Original token count``, ``Output:``),
  which ``_frames.codex_result_frames`` marks with Codex's truncation headers and markers; the exit code is
  read from them.
- **Events**: messages (a ``user`` message that is one of Codex's own context injections, recognised as
  Codex does by its wrapper, ``<environment_context>``, ``<user_instructions>``, ``# AGENTS.md
  instructions for ...``, ``<skill>``, ... (``ContextualUserFragmentDefinition`` in
  core/src/contextual_user_message.rs), is a ``system`` event), reasoning summaries, token counts
  (``other``), turn starts, completions and aborts, model changes and review markers (``system``),
  compaction, errors. The ``user_message`` / ``agent_message`` / ``agent_reasoning`` events repeat what the
  response items hold and are counted only, unless the rollout has no response items of their kind.
- **The run**: ``id`` ``codex-rollout:<session id>``; ``model`` the first ``turn_context.model`` (every
  model, in order, in ``meta["models"]``); ``harness_version`` the ``cli_version``; ``usage`` the last
  cumulative ``token_count``; ``cwd`` the session's; ``instruction`` the first ``user_message`` event (Codex
  emits it for what the user typed, never for its own context), else the first user message that is not a
  context injection; ``deliverable`` the last assistant message (else the last ``task_complete``'s
  ``last_agent_message``) and the files ``apply_patch`` added, with their content (a file a later patch
  changed keeps its path only; a deleted one is dropped).
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import ClipPolicy, NoClip, get_policy
from rtlab.ingest.readers._base import (
    ReadOptions,
    call_command,
    checked_field,
    compact_json,
    deliverable_file,
    parse_arguments,
    typed,
    unparsed,
)
from rtlab.ingest.readers._frames import codex_result_frames, whole
from rtlab.ingest.readers._openai_common import Timeline, content_text, join_field
from rtlab.ingest.readers._openai_common import step_command as generic_step_command
from rtlab.ingest.readers._openai_common import type_step as generic_type_step
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._responses_items import HANDLERS, Handler, ItemState, dispatch, need
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.ingest.readers.codex import unwrap_shell
from rtlab.io import blank_text, first_json_value, head_bytes, iter_json_values, parse_json
from rtlab.records import Action, Deliverable, DeliverableFile, Frame, Step, TokenUsage, Trajectory

NAME = "codex-rollout"
LOOKS_FOR = (
    "a Codex session rollout (rollout-*.jsonl, any name): records {timestamp, type: session_meta | "
    "response_item | event_msg | turn_context | compacted, payload}, one a line or pretty-printed; or an older "
    "rollout (record_type lines, or a bare {id, timestamp, instructions} session meta then bare items)"
)
DEFAULT_CLIP = "codex-rollout"

_ROLLOUT_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_TAGGED: dict[str, str] = {
    "session_meta": "session_meta",
    "prev_session_meta": "session_meta",
    "response": "response_item",
    "event": "event_msg",
    "state": "state",
}
"""``record_type`` tags of the rollouts before the envelope, and the record kind each stands for."""

_SNIFF_HEAD = 65536
_STRING = r'"(?:[^"\\]|\\.)*"'
_ENVELOPE_TYPES = "|".join(sorted(_ROLLOUT_TYPES))
_OPENINGS = re.compile(
    r"\s*\{\s*(?:"
    rf'"timestamp"\s*:\s*{_STRING}\s*,\s*"type"\s*:\s*"(?:{_ENVELOPE_TYPES})"\s*,\s*"payload"\s*:\s*\{{'
    rf'|(?:"timestamp"\s*:\s*{_STRING}\s*,\s*)?"record_type"\s*:\s*"session_meta"\s*,'
    rf'|"id"\s*:\s*{_STRING}\s*,\s*"timestamp"\s*:\s*{_STRING}\s*,\s*'
    rf'(?:"cwd"\s*:\s*{_STRING}\s*,\s*"originator"\s*:\s*{_STRING}\s*,\s*'
    rf'"cli_version"\s*:\s*{_STRING}\s*,\s*)?"instructions"\s*:'
    r")"
)
"""The openings of a rollout's first record, in the order Codex writes its keys (the envelope's
``timestamp, type, payload``; a (timestamped) ``record_type`` session meta; the bare ``SessionMeta``'s ``id, timestamp,
[cwd, originator, cli_version,] instructions``), for a first record too long to parse from the head."""

EXEC_TOOLS = frozenset({"shell", "container.exec", "local_shell", "shell_command", "exec_command"})
"""Codex's tools that run a command line (``shell`` and ``container.exec`` take an argv)."""
_ARGV_TOOLS = frozenset({"shell", "container.exec", "local_shell"})


# ---------------------------------------------------------------------------------------------------------
# Detection


def _is_bare_meta(value: dict[str, Any]) -> bool:
    """The first line of a rollout before ``record_type``: ``SessionMeta`` itself (``instructions`` is always
    written, ``null`` when there were none)."""
    return (
        "type" not in value
        and isinstance(value.get("id"), str)
        and isinstance(value.get("timestamp"), str)
        and "instructions" in value
    )


def _is_first_record(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("type") in _ROLLOUT_TYPES and isinstance(value.get("payload"), dict):
        return True
    if value.get("record_type") == "session_meta":
        return True
    return _is_bare_meta(value)


def sniff(path: Path) -> bool:
    """A file (any name) whose first JSON record, on one line or several, is a rollout record or an older
    rollout's session meta."""
    try:
        if not path.is_file():
            return False
        first = first_json_value(path, _SNIFF_HEAD)
        if first is not None:
            return _is_first_record(first)
        head = head_bytes(path, 4096).decode("utf-8", errors="ignore").lstrip("\ufeff")
        return bool(_OPENINGS.match(head))
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------------------
# Records


RecordKind = Literal["session_meta", "response_item", "event_msg", "turn_context", "compacted", "state"]


class _Record(NamedTuple):
    """One record of a rollout, normalised (a tuple: a rollout holds thousands, made one each)."""

    line: int
    kind: RecordKind | str
    """The rollout item kind (an unknown ``type`` of a newer Codex is kept as it is)."""
    payload: dict[str, Any]
    timestamp: str | None
    where: str
    """The field path of the payload, for errors (``payload``; ``""`` for a bare item; ``msg`` for an old
    event)."""
    stamped: bool = True
    """The record is an envelope or a ``record_type`` line, not a bare item or the bare layout's session
    meta."""


def _records(path: Path, warnings: list[str]) -> tuple[list[_Record], str, str]:
    """Every record as ``_Record``, the file's layout (``json-lines`` / ``json-documents``) and the record
    layout (``envelope``, ``record-type``, ``bare``)."""
    data = path.read_bytes()
    if blank_text(data):
        raise ReaderError(path, "file is empty")
    values = list(iter_json_values(path, warnings, data=data))
    if not values:
        raise ReaderError(path, "no JSON records")
    layout = "json-lines" if _whole_line(data, values[0][0]) else "json-documents"
    records: list[_Record] = []
    append = records.append
    kinds: set[str] = set()
    enveloped = False
    for i, (line, value) in enumerate(values):
        # the usual record, an envelope of a known kind, made here (without a call and the NamedTuple's own
        # constructor); any other value goes to _normalise, which checks it all and makes the same of this one
        if type(value) is dict and "payload" in value:
            kind, payload = value.get("type"), value["payload"]
            if type(kind) is str and kind in _ROLLOUT_TYPES and type(payload) is dict:
                stamp = value.get("timestamp")
                stamp = stamp if type(stamp) is str else None
                append(_new(_Record, (line, kind, payload, stamp, "payload", True)))
                enveloped = True
                continue
        try:
            rec = _normalise(path, line, value, first=i == 0, warnings=warnings)
        except SKIPPED_ERRORS as exc:
            warnings.append(skipped_because(exc, path, line))
            continue
        if rec is not None:
            records.append(rec)
            kinds.add("envelope" if rec.where == "payload" else "record-type" if rec.stamped else "bare")
    if enveloped:
        kinds.add("envelope")
    if not records:
        raise ReaderError(path, "no rollout record could be read", line=values[0][0])
    # the bare layout's ``{"record_type": "state"}`` lines are its own, not the record_type layout's
    record_layout = "bare" if "bare" in kinds else "+".join(sorted(kinds))
    return records, layout, record_layout


_new = tuple.__new__
"""A :class:`_Record` made of its six fields as the tuple it is (``_new(_Record, fields)``)."""


def _whole_line(data: bytes, line: int) -> bool:
    """Whether line ``line`` of the file of bytes ``data`` is a JSON value by itself (the file is JSON lines), as
    its text reads (a leading BOM dropped, bytes that are not UTF-8 as U+FFFD)."""
    body = data.removeprefix(b"\xef\xbb\xbf")
    start = 0
    for _ in range(line - 1):
        start = body.index(b"\n", start) + 1
    end = body.find(b"\n", start)
    try:
        parse_json((body[start:] if end < 0 else body[start:end]).decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return False
    return True


def _normalise(path: Path, line: int, value: Any, *, first: bool, warnings: list[str]) -> _Record | None:
    if not isinstance(value, dict):
        raise ReaderError(path, f"expected a record object, got {type(value).__name__}", line=line)
    stamp = value.get("timestamp")
    stamp = stamp if isinstance(stamp, str) else None
    if "payload" in value:  # (the usual envelope is made in _records before this is called)
        kind = checked_field(value, "type", str, path, line)
        payload = checked_field(value, "payload", dict, path, line)
        if kind not in _ROLLOUT_TYPES:
            warnings.append(f"{path}:{line}: unknown record type {kind!r}; kept as an 'other' event")
        return _Record(line, kind, payload, stamp, "payload")
    if "record_type" in value:
        tag = checked_field(value, "record_type", str, path, line)
        if tag not in _TAGGED:
            warnings.append(f"{path}:{line}: unknown record_type {tag!r}; skipped")
            return None
        rest = {k: v for k, v in value.items() if k not in ("record_type", "timestamp")}
        if tag == "event":
            return _Record(line, "event_msg", checked_field(value, "msg", dict, path, line), stamp, "msg")
        return _Record(line, _TAGGED[tag], rest, stamp, "")
    if first and _is_bare_meta(value):  # its timestamp is the session's start (meta), not a record's
        return _Record(line, "session_meta", value, None, "", stamped=False)
    if isinstance(value.get("type"), str):
        return _Record(line, "response_item", value, None, "", stamped=False)
    raise ReaderError(
        path,
        "expected a rollout record ({timestamp, type, payload}), a record_type line or a bare item with 'type'",
        line=line,
        field="type",
    )


# ---------------------------------------------------------------------------------------------------------
# Codex's own user messages, and its patches

_CONTEXT_FRAGMENTS: tuple[tuple[str, str, str], ...] = (
    ("agents_md", "# AGENTS.md instructions for ", "</INSTRUCTIONS>"),
    ("user_instructions", "<user_instructions>", "</user_instructions>"),
    ("environment_context", "<environment_context>", "</environment_context>"),
    ("skill", "<skill>", "</skill>"),
    ("user_shell_command", "<user_shell_command>", "</user_shell_command>"),
    ("turn_aborted", "<turn_aborted>", "</turn_aborted>"),
    ("subagent_notification", "<subagent_notification>", "</subagent_notification>"),
    ("additional_context", "<additional_context>", "</additional_context>"),
)
"""The wrappers of the user messages Codex writes itself (``CONTEXTUAL_USER_FRAGMENTS`` of
core/src/contextual_user_message.rs, and the older ``<user_instructions>``): a text that starts with the
opening marker and ends with the closing one, case aside."""


def _context_fragment(content: Any) -> str | None:
    """The name of the Codex context wrapper a user message's content is, if any part is one (Codex treats
    the whole message as context then)."""
    parts = content if isinstance(content, list) else [content]
    for part in parts:
        text = part.get("text") if isinstance(part, dict) else part
        if not isinstance(text, str):
            continue
        head, tail = text.lstrip(), text.rstrip()
        for name, start, end in _FRAGMENT_MARKERS:
            # the ends lowered, not the text: a character's lower case comes from it alone (but for the sigma
            # at a word's end, never ASCII like the markers)
            if head[: len(start)].lower().startswith(start) and tail[-len(end) :].lower().endswith(end):
                return name
    return None


_FRAGMENT_MARKERS = tuple((name, start.lower(), end.lower()) for name, start, end in _CONTEXT_FRAGMENTS)
""":data:`_CONTEXT_FRAGMENTS` with the markers lowered."""


_ENV_CWD = re.compile(r"<cwd>([^<\n]+)</cwd>")


@dataclass(frozen=True)
class PatchFile:
    """One file of an ``apply_patch`` patch."""

    kind: Literal["add", "update", "delete"]
    """What the patch does to the file (``*** Add File``, ``*** Update File``, ``*** Delete File``)."""
    path: str
    """As the patch names it (joined to a ``cd`` folder the shell command gave)."""
    move_to: str | None = None
    """``update``: the new path of a moved file."""
    content: str | None = None
    """``add``: the new file's text."""


_PATCH_KINDS: dict[str, Literal["add", "update", "delete"]] = {
    "Add": "add",
    "Update": "update",
    "Delete": "delete",
}
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$")
_HEREDOC_OPEN = re.compile(r"^\s*<<-?\s*(['\"]?)(\w+)\1\s*$")
_PATCH_HEREDOC = re.compile(
    r"^\s*(?:cd\s+(?P<dir>'[^']*'|\"[^\"]*\"|[^\s&;|]+)\s*&&\s*)?(?:apply_patch|applypatch)\s*<<-?\s*"
    r"(?P<q>['\"]?)(?P<tag>\w+)(?P=q)[ \t]*\n(?P<body>.*?)\n(?P=tag)[ \t]*\n?\s*$",
    re.DOTALL,
)
"""``apply_patch <<'EOF' ... EOF`` (optionally after ``cd DIR &&``), the shell form Codex intercepts and runs
itself (``maybe_parse_apply_patch_verified`` in codex-rs/apply-patch)."""


def parse_patch(text: str, base: str | None = None) -> list[PatchFile] | None:
    """The files of a patch in Codex's ``apply_patch`` format (``*** Begin Patch``, ``*** Add File:`` with
    ``+`` lines, ``*** Update File:`` with an optional ``*** Move to:``, ``*** Delete File:``, ``*** End
    Patch``); ``None`` when ``text`` is not one. Paths are joined to ``base`` unless absolute.

    The patch is read line by line as its lines are split at ``\\n``, but only the lines that can matter are
    looked at: the file headers and moves (lines opening with ``*** ``), the end (a line holding ``*** End
    Patch``, stripped), and an added file's ``+`` lines, taken from the text between its header and the next
    header or the end (an update's hunks, most of a patch, are passed over without a look)."""
    body = (text.replace("\r\n", "\n") if "\r" in text else text).strip()  # "\r": one fast scan
    first_nl = body.find("\n")
    if first_nl >= 0 and (last_nl := body.rfind("\n")) > first_nl:  # more than two lines
        if (m := _HEREDOC_OPEN.match(body, 0, first_nl)) and body[last_nl + 1 :].strip() == m.group(2):
            body = body[first_nl + 1 : last_nl]  # the here-document wrapper Codex's lenient parser takes off
            first_nl = body.find("\n")
    if (body if first_nl < 0 else body[:first_nl]).strip() != "*** Begin Patch":
        return None
    if first_nl < 0:
        return []
    body = body[first_nl + 1 :]  # the lines after ``*** Begin Patch``

    def at(path: str) -> str:
        return path if base is None or path.startswith("/") else f"{base.rstrip('/')}/{path}"

    files: list[PatchFile] = []
    added_from = -1  # where the open added file's lines start, if one is open
    stop = len(body)
    for start in _patch_marks(body):
        end = body.find("\n", start)
        line = body[start:] if end < 0 else body[start:end]
        if line.strip() == "*** End Patch":
            stop = start
            break
        if m := _PATCH_FILE.match(line):
            if added_from >= 0:
                files[-1] = PatchFile("add", files[-1].path, content=_added_text(body, added_from, start))
            kind = _PATCH_KINDS[m.group(1)]
            files.append(PatchFile(kind, at(m.group(2))))
            added_from = len(body) if end < 0 else end + 1
            added_from = added_from if kind == "add" else -1
        elif line.startswith("*** Move to: ") and files and files[-1].kind == "update":
            files[-1] = PatchFile("update", files[-1].path, move_to=at(line[len("*** Move to: ") :].strip()))
    if added_from >= 0 and files:
        files[-1] = PatchFile("add", files[-1].path, content=_added_text(body, added_from, stop))
    return files


def _patch_marks(body: str) -> list[int]:
    """Where the lines of ``body`` that :func:`parse_patch` looks at start, in order: each line opening with
    ``*** `` (a file header or a move, or the end) and each line holding ``*** End Patch``, whatever its
    first character (the end is told by the stripped line)."""
    marks: set[int] = set()
    if body.startswith("*** "):
        marks.add(0)
    pos = body.find("\n*** ")
    while pos >= 0:
        marks.add(pos + 1)
        pos = body.find("\n*** ", pos + 1)
    pos = body.find("*** End Patch")
    while pos >= 0:
        marks.add(body.rfind("\n", 0, pos) + 1)
        pos = body.find("*** End Patch", pos + 1)
    return sorted(marks)


def _added_text(body: str, start: int, end: int) -> str:
    """An added file's text: the ``+`` lines of ``body[start:end]`` (whole lines), each ended by a newline. The
    usual section, nothing but ``+`` lines, is cut out whole: its text less each line's ``+``."""
    lines = body[start:end]
    if lines.endswith("\n"):
        lines = lines[:-1]  # the newline that ends the section's last line (split off, an empty last piece)
    if lines.startswith("+") and lines.count("\n") == lines.count("\n+"):
        return lines[1:].replace("\n+", "\n") + "\n"
    added = [line[1:] for line in lines.split("\n") if line[:1] == "+"]
    return "\n".join(added) + "\n" if added else ""


def _unquote(word: str) -> str:
    try:
        parts = shlex.split(word)
    except ValueError:
        return word
    return parts[0] if len(parts) == 1 else word


def step_patch(step: Step) -> list[PatchFile] | None:
    """The files of the patch a step applied: an ``apply_patch`` call's ``input`` (freeform or JSON), or a
    shell call that runs ``apply_patch`` (argv or here-document); ``None`` for any other step."""
    source = _patch_source(step)
    return None if source is None else parse_patch(*source)


def _patch_source(step: Step) -> tuple[str, str | None] | None:
    """What :func:`step_patch` parses: the text of the patch a step applied and the folder its paths are
    joined to (a here-document's ``cd``), or ``None`` when the step applies no patch."""
    args = step.args
    if unparsed(args):
        return None
    if step.tool in ("apply_patch", "applypatch"):
        text = args.get("input", args.get("patch"))
        return (text, None) if isinstance(text, str) else None
    if step.tool not in EXEC_TOOLS:
        return None
    argv = args.get("command")
    if (
        isinstance(argv, list)
        and len(argv) == 2
        and argv[0] in ("apply_patch", "applypatch")
        and isinstance(argv[1], str)
    ):
        return argv[1], None
    if m := _PATCH_HEREDOC.match(step.command):
        base = _unquote(m.group("dir")) if m.group("dir") else None
        return m.group("body"), base
    return None


def patch_command(files: list[PatchFile]) -> str:
    """``Step.command`` of an ``apply_patch`` call: ``write PATH`` / ``edit PATH`` / ``delete PATH`` per
    file, joined with ``; `` (a moved file is written at its new path)."""
    words = {"add": "write", "update": "edit", "delete": "delete"}
    return "; ".join(f"write {f.move_to}" if f.move_to else f"{words[f.kind]} {f.path}" for f in files)


def _patch_action(files: list[PatchFile]) -> Action:
    parts = tuple(
        Action("write", path=f.path)
        if f.kind == "add"
        else Action("write", path=f.move_to)
        if f.move_to
        else Action("edit", path=f.path)
        for f in files
        if f.kind != "delete"
    )
    if not parts:
        return Action.other("apply_patch")
    if len(parts) == 1:
        return parts[0]
    return Action("write" if all(p.kind == "write" for p in parts) else "edit", parts=parts)


# ---------------------------------------------------------------------------------------------------------
# Typing


def _session_resolved(step: Step) -> bool:
    """A ``write_stdin`` step whose ``exec_command`` session was found: its command is that session's."""
    return step.command != call_command(step.tool, step.args)


def type_step(step: Step) -> None:
    """A Codex call in harness-neutral terms (see the module docstring): command-line tools run their
    command, ``write_stdin`` more of its session's command, ``apply_patch`` (however called) writes and edits
    its patch's files, ``view_image`` reads its path; Codex's result headers and truncation markers are
    frames. Calls whose arguments were not JSON (a sanitised log's) are ``other``."""
    _type_step(step, codex_result_frames(step.shown or ""), step_patch(step))


def _type_step(step: Step, frames: tuple[Frame, ...], patch: list[PatchFile] | None) -> None:
    """:func:`type_step` given the step's result frames (:func:`codex_result_frames` of its shown text) and
    its patch (:func:`step_patch`), which a reading has found already."""
    shown = step.shown or ""
    if unparsed(step.args):
        step.action, step.frames = Action.other(step.tool), frames
        return
    if patch is not None:
        step.action, step.frames = _patch_action(patch), frames
    elif step.tool in EXEC_TOOLS:
        step.action, step.frames = Action.shell(step.command), frames
    elif step.tool == "write_stdin":
        resolved = _session_resolved(step)
        step.action = Action.shell(step.command) if resolved else Action.other(step.tool)
        step.frames = frames
    elif step.tool == "view_image" and isinstance(step.args.get("path"), str):
        step.action, step.frames = Action.read(step.args["path"]), whole(shown)
    elif step.tool in ("update_plan", "web_search"):
        step.action, step.frames = Action.other(step.tool), frames
    else:
        generic_type_step(step)


def codex_hook_step(
    index: int,
    tool: str,
    tool_input: Any,
    tool_response: Any,
    *,
    call_id: str | None = None,
    cwd: str | None = None,
) -> Step:
    """The step a Codex ``PostToolUse`` hook event stands for, built and typed as this reader builds and types
    the rollout's call (:func:`type_step`), so live capture sees what replay of the rollout sees.

    Codex (0.171.0) reports ``exec_command`` as ``tool_name: "Bash"`` with ``tool_input: {"command"}`` and the
    command's raw output as ``tool_response``; the model reads that output under Codex's result header
    (``Chunk ID`` ... ``Output:``), which the hook does not carry: ``shown`` is the output, and the header is
    a frame the rollout's replay never reads, so both capture the same. An MCP call (``mcp__server__tool``)
    answers ``{"content": [...], "isError"}``: its text is what it showed (under a ``Wall time`` line)."""
    args, args_error = parse_arguments(tool_input)
    if tool == "Bash" and isinstance(args.get("command"), str):
        tool, args = "exec_command", {"cmd": args["command"]}
    shown: str | None = None
    if isinstance(tool_response, str):
        shown = tool_response
    elif isinstance(tool_response, dict) and isinstance(tool_response.get("content"), list):
        shown = "\n".join(
            str(b.get("text", ""))
            for b in tool_response["content"]
            if isinstance(b, dict) and b.get("type") == "text"
        )
    step = Step(
        index=index,
        tool=tool,
        command=generic_step_command(tool, args),
        args=args,
        args_error=args_error,
        call_id=call_id,
        cwd=cwd,
        output=shown,
        shown=shown,
        is_error=isinstance(tool_response, dict) and tool_response.get("isError") is True,
    )
    type_step(step)
    return step


# ---------------------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Rollout(ItemState):
    """What one rollout accumulates besides the timeline."""

    policy: ClipPolicy = field(default_factory=NoClip)
    session: dict[str, Any] = field(default_factory=dict)
    other_sessions: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    first_turn: dict[str, Any] | None = None
    turn_contexts: int = 0
    cwd: str | None = None
    """The working directory now (the last ``turn_context``'s)."""
    start_cwd: str | None = None
    """The first working directory the rollout names (session meta, turn context, environment context)."""
    usage: TokenUsage | None = None
    event_msgs: Counter[str] = field(default_factory=Counter)
    sessions: dict[str, str] = field(default_factory=dict)
    """Unified exec session id -> the command line it runs."""
    exit_codes: dict[str, int] = field(default_factory=dict)
    """``exec_command_end`` exit codes by call id (extended persistence)."""
    user_typed: str | None = None
    last_agent_message: str | None = None
    from_events: frozenset[str] = frozenset()
    """The kinds (``user``, ``assistant``, ``reasoning``) taken from ``event_msg`` copies because no response
    item holds them."""
    unknown_kinds: Counter[str] = field(default_factory=Counter)
    patches: dict[tuple[str, str | None], list[PatchFile] | None] = field(default_factory=dict)
    """Each patch text (and ``cd`` folder) parsed, memoised: a step's patch is asked for when it is shaped,
    typed and delivered."""
    frames: dict[int, tuple[str, tuple[Frame, ...]]] = field(default_factory=dict)
    """By step index, the result text framed (:func:`codex_result_frames`) and its frames: a result is framed
    when it is read (for its header), and typing its step takes them again while that text is its shown one
    (the same object: no hash of a long text)."""

    def patch(self, step: Step) -> list[PatchFile] | None:
        """:func:`step_patch`, each patch parsed once."""
        source = _patch_source(step)
        return None if source is None else self._parsed(source)

    def _parsed(self, source: tuple[str, str | None]) -> list[PatchFile] | None:
        if source not in self.patches:
            self.patches[source] = parse_patch(*source)
        return self.patches[source]

    def command(self, tool: str, args: dict[str, Any]) -> str | None:
        """An ``apply_patch`` call's command is its patch's files (:func:`patch_command`), made with the step
        (the generic command, its whole patch as JSON, is not made to be replaced)."""
        if tool not in ("apply_patch", "applypatch") or unparsed(args):
            return None
        text = args.get("input", args.get("patch"))
        patch = self._parsed((text, None)) if isinstance(text, str) else None
        if patch is None:
            return None
        return patch_command(patch) or None  # a patch naming no file: the generic command

    def frames_of(self, step: Step, shown: str) -> tuple[Frame, ...]:
        """:func:`codex_result_frames` of ``shown``, a text of ``step``'s, framed once."""
        kept = self.frames.get(step.index)
        if kept is not None and kept[0] is shown:
            return kept[1]
        found = codex_result_frames(shown)
        self.frames[step.index] = (shown, found)
        return found


def _rollout(st: ItemState) -> _Rollout:
    assert isinstance(st, _Rollout)
    return st


# --- response items Codex handles its own way


def _message(st: ItemState, item: dict[str, Any], line: int | None, where: str) -> None:
    ro = _rollout(st)
    role = need(item, "role", str, st, line, where)
    content = item.get("content")
    text = content_text(content, st.tl.path, line, join_field(where, "content"))
    data = {"phase": item["phase"]} if isinstance(item.get("phase"), str) else {}
    if role == "assistant":
        st.tl.event("message", text, line, role=role, **data)
        st.final = text or st.final
    elif role == "user":
        fragment = _context_fragment(content)
        if fragment is None:
            st.tl.event("message", text, line, role=role)
            st.instruction = text if st.instruction is None else st.instruction
            return
        st.tl.event("system", text, line, role=role, context=fragment)
        if fragment == "environment_context" and ro.cwd is None and (m := _ENV_CWD.search(text)):
            ro.cwd = ro.start_cwd = m.group(1).strip()
    elif role in ("developer", "system"):
        st.tl.event("system", text, line, role=role, **data)
    else:
        raise ReaderError(
            st.tl.path, f"unknown message role {role!r}", line=line, field=join_field(where, "role")
        )


def _shape_call(st: _Rollout, step: Step, line: int | None) -> None:
    """What Codex's tools need beyond the generic call: the folder, an argv unwrapped, a session found."""
    args = step.args
    if unparsed(args):
        step.cwd = step.cwd or st.cwd
        return
    workdir = args.get("workdir")
    step.cwd = workdir if isinstance(workdir, str) and workdir else step.cwd or st.cwd
    argv = args.get("command")
    if step.tool in _ARGV_TOOLS and (
        isinstance(argv, str) or isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)
    ):
        step.command = unwrap_shell(argv)
    elif step.tool == "write_stdin":
        command = st.sessions.get(str(args.get("session_id")))
        if command is not None:
            step.command = command
    elif step.tool == "update_plan" and isinstance(args.get("plan"), list):
        plan = [p for p in args["plan"] if isinstance(p, dict)]
        explanation = args.get("explanation")
        lines = [explanation] if isinstance(explanation, str) and explanation else []
        lines += [f"[{'x' if p.get('status') == 'completed' else ' '}] {p.get('step', '')}" for p in plan]
        text = "\n".join(lines)
        st.tl.event("plan", text, line, role="assistant", call_id=step.call_id, plan=plan)


def _calling(handler: Handler) -> Handler:
    """The Responses handler for a call item, then Codex's shaping of the step it appended."""

    def handle(st: ItemState, item: dict[str, Any], line: int | None, where: str) -> None:
        before = len(st.tl.steps)
        handler(st, item, line, where)
        if len(st.tl.steps) > before:
            _shape_call(_rollout(st), st.tl.steps[-1], line)

    return handle


def _payload_text(st: ItemState, item: dict[str, Any], line: int | None, where: str) -> tuple[str, bool]:
    """A ``FunctionCallOutputPayload`` as text: a string, content items joined, or an old ``{content,
    success}`` object; and whether it says the call failed (``success: false``)."""
    output = need(item, "output", (str, list, dict), st, line, where)
    if isinstance(output, str):  # the usual: the text itself
        return output, False
    name = join_field(where, "output")
    if isinstance(output, dict) and isinstance(output.get("content"), str | list):
        content = output["content"]
        return content_text(content, st.tl.path, line, join_field(name, "content")), output.get(
            "success"
        ) is False
    if isinstance(output, dict):  # an object of another shape: the model was sent it serialised
        st.tl.warnings.append(
            f"{st.tl.path}:{line} [{name}]: an object without 'content' (keys {', '.join(sorted(output)[:6])}); "
            "repaired: read as its JSON text"
        )
        return compact_json(output), output.get("success") is False
    return content_text(output, st.tl.path, line, name), False


_HEADER_EXIT = re.compile(r"^(?:Exit code: |Process exited with code )(-?\d+)$", re.MULTILINE)
_HEADER_SESSION = re.compile(r"^Process running with (?:session|command) ID (\S+)$", re.MULTILINE)


def _structured(text: str) -> tuple[str, int | None] | None:
    """The ``output`` text and exit code of the ``shell`` tool's JSON result (``{"output": ..., "metadata":
    {"exit_code": N, "duration_seconds": S}}``, ``format_exec_output_for_model_structured``), else ``None``."""
    if not text.startswith('{"output"'):
        return None
    try:
        data = parse_json(text)
    except (ValueError, RecursionError):
        return None
    if not (
        isinstance(data, dict)
        and isinstance(data.get("output"), str)
        and isinstance(data.get("metadata"), dict)
        and set(data) <= {"output", "metadata", "executed_command"}
    ):
        return None
    meta = data["metadata"]
    code = next(
        (
            meta[k]
            for k in ("exit_code", "shell_exit_code")
            if isinstance(meta.get(k), int) and not isinstance(meta.get(k), bool)
        ),
        None,
    )
    return data["output"], code


def _tool_output(st: ItemState, item: dict[str, Any], line: int | None, where: str) -> None:
    """A ``function_call_output`` / ``custom_tool_call_output``: the step's output as logged, ``shown`` what
    the model read (the structured shell result's ``output``), the exit code from the metadata or Codex's
    header lines. An output whose call is not in the rollout is kept as an event and warned about."""
    ro = _rollout(st)
    call_id = need(item, "call_id", str, st, line, where)
    text, failed = _payload_text(st, item, line, where)
    step = st.tl.open_call(call_id)
    if step is None and st.tl.unknown(call_id):  # perhaps its call comes later: it waits for it
        st.tl.hold(
            call_id, text, line, lambda: _tool_output(st, item, line, where), join_field(where, "call_id")
        )
        return
    if step is None:
        ro.tl.warnings.append(
            f"{st.tl.path}:{line}: output for call id {call_id!r} has no open call (the id already has a "
            "result); kept as an event"
        )
        st.tl.event("other", text, line, type=item.get("type"), call_id=call_id)
        return
    structured = _structured(text)
    seen, code = structured if structured is not None else (text, None)
    frames = ro.frames_of(step, seen)
    header = next((f for f in frames if f.start == 0 and f.kind == "frame"), None)
    if header is not None:
        block = seen[: header.end]
        if code is None and (m := _HEADER_EXIT.search(block)):
            code = int(m.group(1))
        if (m := _HEADER_SESSION.search(block)) and step.tool == "exec_command":
            ro.sessions[m.group(1)] = step.command
    failed = failed or code not in (None, 0) or text.startswith("apply_patch verification failed")
    st.tl.answer(call_id, text, line, join_field(where, "call_id"), exit_code=code, is_error=failed)
    shown = ro.policy.apply(seen)
    step.shown = shown
    step.clipped = shown != seen or any(f.kind == "clip" for f in frames)  # shown is seen: its frames


def _ghost_snapshot(st: ItemState, item: dict[str, Any], line: int | None, where: str) -> None:
    commit = item.get("ghost_commit")
    ident = commit.get("id") if isinstance(commit, dict) else None
    st.tl.event("other", "", line, type="ghost_snapshot", commit=ident)


_HANDLERS: dict[str, Handler] = {
    **HANDLERS,
    "message": _message,
    "function_call": _calling(HANDLERS["function_call"]),
    "custom_tool_call": _calling(HANDLERS["custom_tool_call"]),
    "local_shell_call": _calling(HANDLERS["local_shell_call"]),
    "function_call_output": _tool_output,
    "custom_tool_call_output": _tool_output,
    "web_search_call": _calling(HANDLERS["web_search_call"]),
    "ghost_snapshot": _ghost_snapshot,
    "compaction_summary": HANDLERS["compaction"],
}
"""The Responses handlers, with Codex's own for messages, call shaping and results."""


# --- the other records


def _usage(total: Any) -> TokenUsage | None:
    """Codex's ``TokenUsage`` counts (``input_tokens``, ``output_tokens``, ``cached_input_tokens``,
    ``reasoning_output_tokens``, ``total_tokens``, in the order of :class:`TokenUsage`'s first fields); ``None``
    when it holds none."""
    if not isinstance(total, dict):
        return None
    # a parsed JSON number is an ``int`` exactly or a ``float`` (never a ``bool``, which is no count); the keys
    # looked up in place (a comprehension costs a frame a record)
    get = total.get
    i, o, c, r, t = (
        get("input_tokens"),
        get("output_tokens"),
        get("cached_input_tokens"),
        get("reasoning_output_tokens"),
        get("total_tokens"),
    )
    i, o, c, r, t = (
        i if type(i) is int else None,
        o if type(o) is int else None,
        c if type(c) is int else None,
        r if type(r) is int else None,
        t if type(t) is int else None,
    )
    if i is None and o is None and c is None and r is None and t is None:
        return None  # no count at all: no usage
    return TokenUsage(i, o, c, r, t)


_SYSTEM_EVENTS = frozenset(
    {
        "entered_review_mode",
        "exited_review_mode",
        "undo_completed",
        "thread_rolled_back",
        "thread_name_updated",
        "model_reroute",
        "warning",
    }
)
"""Persisted event messages kept as ``system`` events (markers of the session's course)."""


def _text(payload: dict[str, Any], key: str) -> str:
    """An event message's text field (``""`` when it is missing or not text)."""
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def _event_msg(st: _Rollout, rec: _Record) -> None:
    path, line, payload, where = st.tl.path, rec.line, rec.payload, rec.where
    kind = checked_field(payload, "type", str, path, line, where)
    st.event_msgs[kind] += 1
    if kind == "token_count":
        info = payload.get("info")
        if isinstance(info, dict) and (usage := _usage(info.get("total_token_usage"))) is not None:
            st.usage = usage
            st.tl.event(
                "other",
                f"{usage.total_tokens} tokens in total" if usage.total_tokens is not None else "",
                line,
                event=kind,
                total=info.get("total_token_usage"),
                last=info.get("last_token_usage"),
            )
    elif kind in ("task_started", "turn_started"):
        extra = {k: payload[k] for k in ("turn_id", "model_context_window") if k in payload}
        st.tl.event("system", "turn started", line, event=kind, **extra)
    elif kind in ("task_complete", "turn_complete"):
        if _text(payload, "last_agent_message"):
            st.last_agent_message = _text(payload, "last_agent_message")
        st.tl.event("system", "turn complete", line, event=kind, turn_id=payload.get("turn_id"))
    elif kind == "turn_aborted":
        reason = _text(payload, "reason")
        st.tl.event("system", f"turn aborted: {reason}", line, event=kind, reason=payload.get("reason"))
    elif kind == "user_message":
        st.user_typed = _text(payload, "message") if st.user_typed is None else st.user_typed
        if "user" in st.from_events:
            st.tl.event("message", _text(payload, "message"), line, role="user", event=kind)
    elif kind == "agent_message":
        if "assistant" in st.from_events:
            st.tl.event("message", _text(payload, "message"), line, role="assistant", event=kind)
            st.final = _text(payload, "message") or st.final
    elif kind in ("agent_reasoning", "agent_reasoning_raw_content"):
        if "reasoning" in st.from_events:
            st.tl.event("reasoning", _text(payload, "text"), line, role="assistant", event=kind)
    elif kind in ("error", "stream_error"):
        st.tl.event("error", _text(payload, "message"), line, event=kind)
    elif kind == "exec_command_end":
        code = payload.get("exit_code")
        if isinstance(payload.get("call_id"), str) and isinstance(code, int) and not isinstance(code, bool):
            st.exit_codes[payload["call_id"]] = code
    elif kind in _SYSTEM_EVENTS:
        st.tl.event("system", _text(payload, "message") or kind, line, event=kind)
    # other kinds (context_compacted: the compacted record holds the summary) are counted in meta only


def _turn_context(st: _Rollout, rec: _Record) -> None:
    payload = rec.payload
    st.turn_contexts += 1
    if st.first_turn is None:
        st.first_turn = payload
    if isinstance(payload.get("cwd"), str) and payload["cwd"]:
        st.cwd = payload["cwd"]
        st.start_cwd = st.start_cwd or st.cwd
    model = payload.get("model")
    if isinstance(model, str) and model:
        if st.models and st.models[-1] != model:
            st.tl.event("system", f"model: {model}", rec.line, event="model_change", model=model)
        if not st.models or st.models[-1] != model:
            st.models.append(model)


def _session_meta(st: _Rollout, rec: _Record) -> None:
    payload = rec.payload
    ident = payload.get("id")
    if st.session:
        if isinstance(ident, str):
            st.other_sessions.append(ident)
        return
    st.session = payload
    if isinstance(payload.get("cwd"), str) and payload["cwd"]:
        st.cwd = st.start_cwd = payload["cwd"]
    base = payload.get("base_instructions")
    instructions = base.get("text") if isinstance(base, dict) else payload.get("instructions")
    if isinstance(instructions, str) and instructions:
        source = "base_instructions" if isinstance(base, dict) else "instructions"
        st.tl.event("system", instructions, rec.line, role="system", source=source)


def _compacted(st: _Rollout, rec: _Record) -> None:
    message = checked_field(rec.payload, "message", str, st.tl.path, rec.line, rec.where)
    history = rec.payload.get("replacement_history")
    items = len(history) if isinstance(history, list) else None
    st.tl.event("compaction", message, rec.line, replacement_items=items)


def _from_events(records: list[_Record]) -> frozenset[str]:
    """The kinds no response item holds, so that their ``event_msg`` copies are the only record of them."""
    held: set[str] = set()
    for rec in records:
        if rec.kind != "response_item":
            continue
        kind, role = rec.payload.get("type"), rec.payload.get("role")
        if kind == "reasoning":
            held.add("reasoning")
        elif kind == "message" and role == "assistant":
            held.add("assistant")
        elif kind == "message" and role == "user" and _context_fragment(rec.payload.get("content")) is None:
            held.add("user")
    return frozenset({"user", "assistant", "reasoning"} - held)


# --- the trajectory


def _written(st: _Rollout) -> list[DeliverableFile]:
    """Files ``apply_patch`` added, with their content, in the order first added; a file a later patch changed
    keeps its path only, a deleted one is dropped."""
    files: dict[str, DeliverableFile] = {}
    for step in st.tl.steps:
        if not step.answered or step.is_error:
            continue
        for f in st.patch(step) or []:
            if f.kind == "add" and f.content is not None:
                files[f.path] = deliverable_file(f.path, f.content.encode("utf-8"), origin="write_tool")
            elif f.kind == "delete":
                files.pop(f.path, None)
            elif f.path in files:
                moved = files.pop(f.path)
                target = f.move_to or f.path
                files[target] = DeliverableFile(path=target, origin=moved.origin)
    return list(files.values())


def _parent(session: dict[str, Any]) -> str | None:
    """The thread a sub-agent's session was spawned by (``source.subagent.thread_spawn.parent_thread_id``)."""
    source = session.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return parent if isinstance(parent, str) else None


_SESSION_KEYS = (
    "originator",
    "source",
    "model_provider",
    "git",
    "forked_from_id",
    "agent_nickname",
    "agent_role",
)
_TURN_KEYS = ("approval_policy", "sandbox_policy", "effort", "summary", "truncation_policy", "personality")


def _meta(st: _Rollout, layout: str, record_layout: str, n_records: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"layout": layout, "records": record_layout, "n_records": n_records}
    session = st.session
    if isinstance(session.get("id"), str):
        meta["session_id"] = session["id"]
    meta.update({k: session[k] for k in _SESSION_KEYS if session.get(k) is not None})
    if st.models:
        meta["models"] = st.models
    if st.first_turn is not None:
        meta.update({k: st.first_turn[k] for k in _TURN_KEYS if st.first_turn.get(k) is not None})
    meta["turn_contexts"] = st.turn_contexts
    if st.event_msgs:
        meta["event_msgs"] = dict(sorted(st.event_msgs.items()))
    if st.from_events:
        meta["from_event_msgs"] = sorted(st.from_events)
    if st.other_sessions:
        meta["other_session_metas"] = st.other_sessions
    unanswered = [s.call_id for s in st.tl.steps if not s.answered]
    if unanswered:
        meta["unanswered_calls"] = unanswered
    return meta


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: a record is
    an object with a ``payload``, a ``record_type`` or a string ``type`` (:func:`_normalise` refuses any
    other value), so a file that is one JSON document read as it is (its only value) is such an object, and
    any other file's bytes hold one of those keys as written (``"type"``) or a ``\\u`` escape (a key may be
    written with one). A folder is offered as it is."""
    if not facts.is_file:
        return True
    if facts.whole_document:
        doc = facts.document
        return isinstance(doc, dict) and (
            "payload" in doc or "record_type" in doc or isinstance(doc.get("type"), str)
        )
    data = facts.data
    return data is None or any(key in data for key in _RECORD_KEYS)


_RECORD_KEYS = (b'"type"', b'"payload"', b'"record_type"', b"\\u")
"""What the bytes of a file holding a rollout record hold (a key as written, or an escape)."""


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory from a rollout (see the module docstring); results as recorded (policy
    ``codex-rollout``)."""
    path = Path(path)
    warnings: list[str] = []
    records, layout, record_layout = _records(path, warnings)
    policy = get_policy(options.clip or DEFAULT_CLIP)
    st = _Rollout(Timeline(path, policy), policy=policy, from_events=_from_events(records))
    for rec in records:
        st.tl.now = rec.timestamp
        kind = rec.kind
        try:  # what ``_tolerant.record`` does, without an object a record
            if kind == "response_item":
                dispatch(st, rec.payload, rec.line, rec.where, _HANDLERS)
            elif kind == "event_msg":
                _event_msg(st, rec)
            elif kind == "turn_context":
                _turn_context(st, rec)
            elif kind == "session_meta":
                _session_meta(st, rec)
            elif kind == "compacted":
                _compacted(st, rec)
            elif kind != "state":
                st.tl.event("other", "", rec.line, type=kind)
        except SKIPPED_ERRORS as exc:
            st.tl.warnings.append(skipped_because(exc, path, rec.line))
    st.tl.close()
    for step in st.tl.steps:
        code = st.exit_codes.get(step.call_id or "")
        if step.answered and step.exit_code is None and code is not None:
            step.exit_code, step.is_error = code, step.is_error or code != 0
    for step in st.tl.steps:  # typed here, where each result is framed and each patch parsed once
        if step.action is None:
            _type_step(step, st.frames_of(step, step.shown or ""), st.patch(step))
    session = st.session
    ident = session.get("id") if isinstance(session.get("id"), str) else path.stem
    stamps = [r.timestamp for r in records if r.timestamp]
    started = session.get("timestamp") if isinstance(session.get("timestamp"), str) else None
    meta = _meta(st, layout, record_layout, len(records))
    all_warnings = warnings + st.tl.warnings
    if all_warnings:
        meta["warnings"] = all_warnings
    parent = _parent(session)
    return [
        Trajectory(
            id=f"{NAME}:{ident}",
            format=NAME,
            source_path=str(path),
            steps=st.tl.steps,
            events=st.tl.events,
            deliverable=Deliverable(final_message=st.final or st.last_agent_message, files=_written(st)),
            instruction=st.user_typed if st.user_typed is not None else st.instruction,
            model=st.models[0] if st.models else None,
            harness="codex",
            harness_version=session.get("cli_version")
            if isinstance(session.get("cli_version"), str)
            else None,
            cwd=st.start_cwd,
            started_at=started or (stamps[0] if stamps else None),
            ended_at=stamps[-1] if stamps else None,
            usage=st.usage,
            clip_policy=policy.name,
            meta=meta,
            parent_id=f"{NAME}:{parent}" if parent else None,
        )
    ]
