"""What Claude Code's two log shapes share: message content blocks, call/result pairing, its tools in
harness-neutral terms, usage, delivered files. Used by :mod:`rtlab.ingest.readers.claude_code_stream`
(``claude -p --output-format stream-json --verbose``) and :mod:`rtlab.ingest.readers.claude_code_session`
(the session files of ``~/.claude/projects/``).

Both shapes carry Anthropic API messages: an assistant message's ``content`` is a list of ``text``,
``thinking``, ``redacted_thinking`` and ``tool_use`` (``id``, ``name``, ``input``) blocks; the next user
message answers with ``tool_result`` blocks (``tool_use_id``, ``content`` a string or a list of ``text`` /
``image`` blocks, ``is_error``), several a message and not necessarily in call order. One API response may be
logged as several assistant lines (one content block each) sharing ``message.id`` and ``usage``; the usage of
the last of them is the response's final one. Sources: the Agent SDK's message types (``SDKAssistantMessage``
/ ``SDKUserMessage`` with ``parent_tool_use_id``, ``SDKResultMessage``; anthropics/claude-agent-sdk-python
``types.py`` as documented), the session-file models of meridianlabs-ai/inspect_scout
(src/inspect_scout/sources/_claude_code/models.py, detection.py, tree.py, client.py) and daaain/claude-code-log
(claude_code_log/models.py), and Claude Code's tool source (2.1, as mirrored in BelovedYaoo/claude-code-source:
src/tools/*/ and src/services/tools/toolExecution.ts).

What the model was shown: Claude Code logs the ``tool_result`` block it built for the model
(``mapToolResultToToolResultBlockParam`` of each tool, then ``processToolResultBlock``), so ``shown`` is the
logged content (clip policy ``claude-code``, "as sent"). Bash output was already cut at
``BASH_MAX_OUTPUT_LENGTH`` (30000 characters) by ``formatOutput`` before the block was made; the session files'
``toolUseResult.stdout``/``stderr`` are the same cut text (checked on the real 1.0.29 and 2.0.65 files), so the
log holds no fuller output and ``output`` is the block's content too.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import ClipPolicy, get_policy
from rtlab.ingest.readers._base import (
    ReadOptions,
    checked_field,
    deliverable_file,
    file_tool_command,
    parse_arguments,
    tab_action,
    unparsed,
)
from rtlab.ingest.readers._frames import (
    ClaudeCodeTool,
    claude_code_clipped,
    claude_code_frames,
    whole,
)
from rtlab.ingest.readers._openai_common import content_text
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.io import field as get_field
from rtlab.records import Action, DeliverableFile, Event, EventKind, Step, TokenUsage

HARNESS = "claude-code"
DEFAULT_CLIP = "claude-code"
SYNTHETIC_MODEL = "<synthetic>"
"""The ``model`` of messages Claude Code wrote itself (API errors, interruptions): not the run's model."""
NO_CONTENT = "(no content)"
"""What Claude Code puts in an empty text block (``NO_CONTENT_MESSAGE``)."""

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
"""The tool that starts a sub-agent: ``Task``, renamed ``Agent`` in 2.1 (``sdkCompatToolName``)."""
SHELL_TOOLS = frozenset({"Bash"})
READ_TOOLS = frozenset({"Read"})
WRITE_TOOLS = frozenset({"Write"})
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "NotebookEdit"})
_PATH_KEYS = ("file_path", "notebook_path")
_EXIT_CODE = re.compile(r"Exit code (-?\d+)\n")
_NUMBERED = re.compile(r"\s*\d+[\u2192\t]")
"""A Read result line: ``     1→text`` (1.0 to 2.1) or ``1\\ttext`` (2.1's compact prefix, ``addLineNumbers``)."""
_GREP_NUMBERED = re.compile(r"[^:\n]+:\d+:")
"""A content-mode match line with its number: ``path:N:text``."""
_GREP_PLAIN = re.compile(r"[^:\n]+:")
_GREP_CONTEXT = re.compile(r"[^:\n]*?-\d+-")
"""A numbered context line (``path-N-text``), which is not a plain match line even when its text has a colon."""


def clip_policy(options: ReadOptions) -> ClipPolicy:
    """``options.clip`` or ``claude-code``: the log holds what Claude Code sent the model."""
    return get_policy(options.clip or DEFAULT_CLIP)


def _optional(obj: dict[str, Any], key: str, kind: Any, path: Path, line: int | None, where: str) -> Any:
    value = obj.get(key)
    if value is None or isinstance(value, kind):
        return value
    return get_field(obj, key, kind, path, line, where)  # raises: the field's type is wrong


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def tool_path(args: dict[str, Any]) -> str | None:
    """The file a Read, Write or edit call names (``file_path``; ``notebook_path`` for NotebookEdit)."""
    for key in _PATH_KEYS:
        if isinstance(args.get(key), str) and args[key]:
            return str(args[key])
    return None


def step_command(tool: str, args: dict[str, Any]) -> str:
    """``Step.command``: Bash's command line, ``read PATH [OFFSET [LIMIT]]``, ``write PATH`` / ``edit PATH``, or
    ``tool {json args}``."""
    return file_tool_command(
        tool,
        args,
        tool_path(args),
        shell=SHELL_TOOLS,
        read=READ_TOOLS,
        write=WRITE_TOOLS,
        edit=EDIT_TOOLS,
        window=(_int(args.get("offset")), _int(args.get("limit"))),
    )


# ---------------------------------------------------------------------------------------------------------
# Usage


@dataclass
class Usage:
    """Token counts summed once per API response (``message.id``): the fields' largest values over the lines
    that share the id, since a split response logs its growing ``output_tokens`` on each of them."""

    responses: dict[str, dict[str, int]] = field(default_factory=dict)
    redacted: bool = False
    """A usage object had field names replaced (a log sanitiser's ``[REDACTED_...]`` keys)."""

    def add(self, response_id: str, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        seen = self.responses.setdefault(response_id, {})
        for key, value in usage.items():
            if "REDACTED" in key:
                self.redacted = True
            elif type(value) is int:  # a count (JSON gives no other int than bool, which is not one)
                old = seen.get(key, 0)
                seen[key] = value if value > old else old

    def total(self, *, outputs: bool = True) -> TokenUsage | None:
        """The sum; ``outputs=False`` leaves output tokens out (stream-json logs only their first count).
        ``None`` when no response logged a count it keeps."""
        summed: dict[str, int] = {}
        for counts in self.responses.values():
            for key, value in counts.items():
                summed[key] = summed.get(key, 0) + value
        usage = token_usage(summed, redacted=self.redacted, outputs=outputs)
        return None if usage == TokenUsage() else usage


def token_usage(
    usage: dict[str, Any], *, redacted: bool = False, outputs: bool = True, cost: float | None = None
) -> TokenUsage:
    """An Anthropic ``usage`` object as :class:`TokenUsage`: input counts the fresh, cache-written and
    cache-read prompt tokens; cached is the cache reads. Redacted field names leave input and cache unknown."""
    redacted = redacted or any("REDACTED" in k for k in usage)
    fresh = _int(usage.get("input_tokens"))
    written = _int(usage.get("cache_creation_input_tokens")) or 0
    read = _int(usage.get("cache_read_input_tokens"))
    return TokenUsage(
        input_tokens=None if redacted or fresh is None else fresh + written + (read or 0),
        output_tokens=_int(usage.get("output_tokens")) if outputs else None,
        cached_input_tokens=None if redacted else read,
        cost_usd=cost,
    )


# ---------------------------------------------------------------------------------------------------------
# The timeline of one agent


_INTERRUPT = re.compile(r"\[Request interrupted by user[^\]\n]*\]")
_COMMAND_TAGS = ("<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>")


def harness_user_text(text: str) -> bool:
    """Text in a user message that Claude Code wrote, not the user: an interruption notice, a slash
    command's echo or its local output, a ``<system-reminder>``, the ``(no content)`` of an empty message."""
    stripped = text.strip()
    return bool(
        _INTERRUPT.fullmatch(stripped)
        or stripped.startswith(_COMMAND_TAGS)
        or stripped.startswith("<system-reminder>")
        or stripped == NO_CONTENT
    )


@dataclass
class Timeline:
    """One agent's steps and events in the order the log gives them, with tool calls answered by id.

    ``tool_result`` blocks answer the open call with their ``tool_use_id``. A log whose ids are not unique (a
    sanitiser replaced them all by one token) is paired in order among the calls sharing the id, preferring
    one whose tool fits the result's shape; that is said in the warnings.
    """

    path: Path
    policy: ClipPolicy
    warnings: list[str]
    steps: list[Step] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    models: Counter[str] = field(default_factory=Counter)
    final_text: str | None = None
    """The last assistant text (not Claude Code's own ``(no content)``)."""
    instruction: str | None = None
    """The first user text that is not Claude Code's words."""
    agent_ids: dict[str, str] = field(default_factory=dict)
    """Sub-agent call id -> ``agentId`` (from the session files' ``toolUseResult``)."""
    tool_results: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Step index -> the ``toolUseResult`` object logged with its result (session files)."""
    shared_ids: set[str] = field(default_factory=set)
    guessed: int = 0
    """Results paired by a guess among several waiting calls that fit them (ids not unique)."""
    _open: dict[str, list[Step]] = field(default_factory=dict)
    _early: dict[str, tuple[dict[str, Any], int, str | None, str, Any, Event]] = field(default_factory=dict)
    """Results that came before any call with their id: ``(block, line, timestamp, field, toolUseResult, the
    'other' event standing for them)``, paired when the call comes."""
    _called: set[str] = field(default_factory=set)
    _responses: set[str] = field(default_factory=set)
    _seq: int = 0

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq - 1

    def event(
        self,
        kind: EventKind,
        text: str,
        *,
        line: int | None,
        timestamp: str | None = None,
        role: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> Event:
        # positional (kind, text, role, seq, timestamp, line, data): the dataclass's __init__ called with
        # keywords costs about twice as much
        ev = Event(kind, text, role, self.next_seq(), timestamp, line, data or {})
        self.events.append(ev)
        return ev

    # --- assistant messages ------------------------------------------------------------------------------

    def assistant(
        self,
        message: dict[str, Any],
        *,
        line: int,
        timestamp: str | None = None,
        cwd: str | None = None,
        where: str = "message",
    ) -> None:
        """One assistant line: its text, thinking and tool calls; its response's model and usage."""
        path = self.path
        content = checked_field(message, "content", (list, str), path, line, where)
        model = _optional(message, "model", str, path, line, where)
        response = _optional(message, "id", str, path, line, where) or f"line-{line}"
        synthetic = model == SYNTHETIC_MODEL
        if model is not None and not synthetic and response not in self._responses:
            self.models[model] += 1
        self._responses.add(response)
        if not synthetic:
            self.usage.add(response, message.get("usage"))
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for i, block in enumerate(blocks):
            at = f"{where}.content[{i}]"
            try:  # what _tolerant.record does, without an object a block
                self._assistant_block(block, at, line, timestamp, cwd, model, synthetic)
            except SKIPPED_ERRORS as exc:
                self.warnings.append(skipped_because(exc, path, line, f"content block {at}"))

    def _assistant_block(
        self,
        block: Any,
        at: str,
        line: int,
        timestamp: str | None,
        cwd: str | None,
        model: str | None,
        synthetic: bool,
    ) -> None:
        path = self.path
        if not isinstance(block, dict):
            raise ReaderError(
                path, f"content block is {type(block).__name__}, not an object", line=line, field=at
            )
        kind = checked_field(block, "type", str, path, line, at)
        if kind == "text":
            text = checked_field(block, "text", str, path, line, at)
            data = {"model": model} if synthetic else {}
            self.event(
                "error" if synthetic else "message",
                text,
                line=line,
                timestamp=timestamp,
                role="assistant",
                data=data,
            )
            if not synthetic and text.strip() and text.strip() != NO_CONTENT:
                self.final_text = text
        elif kind == "thinking":
            text = checked_field(block, "thinking", str, path, line, at)
            self.event("reasoning", text, line=line, timestamp=timestamp, role="assistant")
        elif kind == "redacted_thinking":
            self.event(
                "reasoning", "", line=line, timestamp=timestamp, role="assistant", data={"redacted": True}
            )
        elif kind == "tool_use":
            self.call(block, line=line, timestamp=timestamp, cwd=cwd, where=at)
        else:  # server tool use and its results, images, ...: kept, nothing read from them
            self.event("other", kind, line=line, timestamp=timestamp, role="assistant", data=block)

    def call(
        self, block: dict[str, Any], *, line: int, timestamp: str | None, cwd: str | None, where: str
    ) -> Step:
        path = self.path
        call_id = checked_field(block, "id", str, path, line, where)
        name = checked_field(block, "name", str, path, line, where)
        args, args_error = parse_arguments(block.get("input"))
        step = Step(
            index=len(self.steps),
            tool=name,
            command=step_command(name, args),
            args=args,
            args_error=args_error,
            call_id=call_id,
            cwd=cwd,
            started_at=timestamp,
            seq=self.next_seq(),
            line=line,
        )
        if call_id in self._called:
            self.shared_ids.add(call_id)
        self._called.add(call_id)
        self.steps.append(step)
        self._open.setdefault(call_id, []).append(step)
        early = self._early.pop(call_id, None)
        if early is not None:  # its result came first: paired by id all the same
            block, at_line, at_time, where, result, orphan = early
            self.events.remove(orphan)
            self.warnings.append(
                f"{path}:{at_line}: tool_result for {call_id!r} came before its call (line {line}); paired by id"
            )
            self.answer(block, line=at_line, timestamp=at_time, where=where, tool_use_result=result)
        return step

    # --- user messages -----------------------------------------------------------------------------------

    def user(
        self,
        message: dict[str, Any],
        *,
        line: int,
        timestamp: str | None = None,
        where: str = "message",
        tool_use_result: Any = None,
        kind: EventKind | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        """One user line: tool results answer their calls; text becomes a user event (``kind`` overrides
        its kind: a compaction summary, Claude Code's meta text)."""
        path = self.path
        content = checked_field(message, "content", (list, str), path, line, where)
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for i, block in enumerate(blocks):
            at = f"{where}.content[{i}]"
            try:  # what _tolerant.record does, without an object a block
                self._user_block(block, at, line, timestamp, tool_use_result, kind, data)
            except SKIPPED_ERRORS as exc:
                self.warnings.append(skipped_because(exc, path, line, f"content block {at}"))

    def _user_block(
        self,
        block: Any,
        at: str,
        line: int,
        timestamp: str | None,
        tool_use_result: Any,
        kind: EventKind | None,
        data: dict[str, Any] | None,
    ) -> None:
        path = self.path
        if not isinstance(block, dict):
            raise ReaderError(
                path, f"content block is {type(block).__name__}, not an object", line=line, field=at
            )
        btype = checked_field(block, "type", str, path, line, at)
        if btype == "tool_result":
            self.answer(block, line=line, timestamp=timestamp, where=at, tool_use_result=tool_use_result)
        elif btype == "text":
            text = checked_field(block, "text", str, path, line, at)
            own = harness_user_text(text)
            ev_kind: EventKind = kind or ("system" if own else "message")
            self.event(ev_kind, text, line=line, timestamp=timestamp, role="user", data=data)
            if kind is None and not own and self.instruction is None and text.strip():
                self.instruction = text
        else:
            self.event("other", btype, line=line, timestamp=timestamp, role="user", data={"type": btype})

    def answer(
        self,
        block: dict[str, Any],
        *,
        line: int,
        timestamp: str | None,
        where: str,
        tool_use_result: Any = None,
    ) -> Step | None:
        path = self.path
        call_id = checked_field(block, "tool_use_id", str, path, line, where)
        waiting = self._open.get(call_id)
        output = content_text(block.get("content"), path, line, f"{where}.content")
        if not waiting:
            orphan = self.event(
                "other",
                output,
                line=line,
                timestamp=timestamp,
                role="tool",
                data={"tool_use_id": call_id, "orphan_result": True},
            )
            if call_id in self._called or call_id in self._early:
                self.warnings.append(
                    f"{path}:{line}: tool_result for {call_id!r} answers no open call (its call already has a "
                    "result); kept as an 'other' event"
                )
            else:  # perhaps its call comes later (a log written out of order): held until the end
                self._early[call_id] = (block, line, timestamp, where, tool_use_result, orphan)
            return None
        step, guessed = _pick(waiting, block, output)
        self.guessed += guessed
        if not waiting:
            del self._open[call_id]
        step.output = output
        step.shown = self.policy.apply(output)
        step.clipped = step.shown != output or claude_code_clipped(step.shown)
        step.is_error = block.get("is_error") is True
        step.ended_at = timestamp
        if step.tool in SHELL_TOOLS and (m := _EXIT_CODE.match(output)):
            step.exit_code = int(m.group(1))
        if isinstance(tool_use_result, dict):
            self.tool_results[step.index] = tool_use_result
            agent = tool_use_result.get("agentId")
            if step.tool in SUBAGENT_TOOLS and isinstance(agent, str):
                self.agent_ids[call_id] = agent
        return step

    def written_files(self) -> list[DeliverableFile]:
        """The files this agent wrote (:func:`written_files`)."""
        return written_files(self.steps, self.path, self.warnings, self.tool_results)

    def unanswered(self) -> list[str]:
        return [s.call_id or "" for s in self.steps if not s.answered]

    def close(self) -> None:
        """The log has ended: results still waiting for a call that never came are said (kept as events)."""
        for call_id, (_, line, *_rest) in self._early.items():
            self.warnings.append(
                f"{self.path}:{line}: tool_result for {call_id!r} answers no open call (no call in the file has its "
                "id); kept as an 'other' event"
            )
        self._early.clear()

    def pairing_warning(self) -> None:
        if self.shared_ids:
            shared = sum(1 for s in self.steps if s.call_id in self.shared_ids)
            self.warnings.append(
                f"{self.path}: {shared} tool calls share {len(self.shared_ids)} tool_use id(s) "
                f"({', '.join(sorted(self.shared_ids)[:3])}): the ids were replaced (a log sanitiser?), so results "
                "were paired in order among the calls sharing an id, each with the first whose tool fits the "
                f"result's shape; {self.guessed} results had several such calls waiting (parallel calls of one "
                "tool) and may be paired with each other's calls"
            )


def _pick(waiting: list[Step], block: dict[str, Any], output: str) -> tuple[Step, bool]:
    """The call a result answers among those waiting under its id (the only one, or the first whose tool
    fits the result, else the first), and whether that was a guess among several that fit equally."""
    if len(waiting) == 1:
        return waiting.pop(0), False
    fitting = [i for i, step in enumerate(waiting) if _fits(step.tool, block, output)]
    if not fitting:
        return waiting.pop(0), True
    return waiting.pop(fitting[0]), len(fitting) > 1


_READ_REPLY = re.compile(
    r"\s*\d+[\u2192\t]|<system-reminder>|File content \(|File does not exist|EISDIR|<tool_use_error>"
)


def _fits(tool: str, block: dict[str, Any], output: str) -> bool:
    """Whether a result has the shape of ``tool``'s results (only used when ids do not tell)."""
    if tool in SHELL_TOOLS:
        return "is_error" in block  # BashTool always sets it; the file tools only on errors
    if tool in READ_TOOLS:
        return bool(_READ_REPLY.match(output))
    if tool == "Grep":
        return output.startswith("Found ") or output in ("No files found", "No matches found")
    if tool == "Glob":
        lines = output.splitlines()
        return output == "No files found" or bool(lines) and all(ln.startswith("/") for ln in lines)
    if tool in SUBAGENT_TOOLS:
        return isinstance(block.get("content"), list)
    if tool == "TodoWrite":
        return output.startswith("Todos have been modified")
    if tool in WRITE_TOOLS:
        return output.startswith("File created successfully") or "has been updated" in output
    if tool in EDIT_TOOLS:
        return "has been updated" in output
    return False


# ---------------------------------------------------------------------------------------------------------
# Claude Code's tools in harness-neutral terms


def _grep_mode(step: Step) -> ClaudeCodeTool:
    mode = step.args.get("output_mode")
    if mode == "content":
        return "content"
    if mode == "count":
        return "count"
    return "files"  # GrepTool's default output_mode: files_with_matches


def _first_lines(text: str, n: int) -> list[str]:
    """``text.splitlines()[:n]``, split from a head of ``text`` long enough to hold more than ``n`` lines (a
    line is cut from the head only when a line after it starts there too, so the first ``n`` are whole)."""
    size = 16384
    while size < len(text):
        lines = text[:size].splitlines()
        if len(lines) > n:
            return lines[:n]
        size *= 4
    return text.splitlines()[:n]


def _numbered_matches(shown: str, sample: int = 200) -> bool:
    """Whether a content-mode Grep result's lines carry line numbers: numbered match lines (``path:N:``) are
    there and outnumber plain ones (``path:text``; a path's own ``-123-`` makes context lines ambiguous, so
    they are not counted)."""
    numbered = plain = 0
    for ln in _first_lines(shown, sample):
        if _GREP_NUMBERED.match(ln):
            numbered += 1
        elif _GREP_PLAIN.match(ln) and not _GREP_CONTEXT.match(ln):
            plain += 1
    return numbered > 0 and numbered >= plain


def type_step(step: Step) -> None:
    """Claude Code's tools: ``Bash`` runs a command line; ``Read`` shows ``file_path`` from ``offset`` for
    ``limit`` lines, each line numbered (``     1→`` or ``1\\t``); ``Write`` writes a file, ``Edit`` /
    ``MultiEdit`` / ``NotebookEdit`` change one; ``Grep`` prints ``path:N:text`` lines in its ``content``
    mode (numbered when ``-n`` is set or the lines show it) and paths in its ``files_with_matches`` and
    ``count`` modes, ``Glob`` prints paths (all relative to the working directory, as Claude Code makes
    them, or absolute); everything else (``Task``, ``TodoWrite``, ``WebFetch``, ``LS``'s indented tree, MCP
    tools, ...) is ``other``. Frames: Claude Code's own words (:func:`claude_code_frames`)."""
    tool, args, shown = step.tool, step.args, step.shown or ""
    path = tool_path(args)
    raw = unparsed(args)
    pattern = args.get("pattern") if isinstance(args.get("pattern"), str) else None
    if tool in SHELL_TOOLS and isinstance(args.get("command"), str):
        step.action = Action.shell(args["command"])
        step.frames = claude_code_frames(shown, tool="shell", clipped=step.clipped)
    elif tool in READ_TOOLS and path is not None and not raw:
        step.action = Action(
            "read",
            path=path,
            offset=_int(args.get("offset")),
            limit=_int(args.get("limit")),
            line_numbers=True,
        )
        image_only = shown.strip() == "[image]" or shown.startswith("[image: ")
        step.frames = (
            whole(shown) if image_only else claude_code_frames(shown, tool="read", clipped=step.clipped)
        )
    elif tool in WRITE_TOOLS and path is not None and not raw:
        step.action = Action("write", path=path)
    elif tool in EDIT_TOOLS and path is not None and not raw:
        step.action = Action("edit", path=path)
    elif tool == "Grep" and pattern is not None:
        mode = _grep_mode(step)
        if mode == "content":
            numbered = args.get("-n")
            if not isinstance(numbered, bool):  # the default changed (off in 2.0, on in 2.1): ask the output
                numbered = _numbered_matches(shown)
            step.action = Action("search", pattern=pattern, line_numbers=numbered)
        else:
            step.action = Action("list", pattern=pattern)
        step.frames = claude_code_frames(shown, tool=mode, clipped=step.clipped)
    elif tool == "Glob" and pattern is not None:
        step.action = Action("list", pattern=pattern)
        step.frames = claude_code_frames(shown, tool="glob", clipped=step.clipped)
    elif (tab := tab_action(tool)) is not None:
        step.action = tab
    else:
        step.action = Action.other(tool)


# ---------------------------------------------------------------------------------------------------------
# A tool call seen live, from a hook (``PostToolUse``): what the model is shown, rebuilt from ``tool_response``


def claude_code_shown(tool: str, tool_input: dict[str, Any], tool_response: Any) -> str | None:
    """The ``tool_result`` text Claude Code builds for the model from a tool's output object (the
    ``tool_response`` of a ``PostToolUse`` hook), by its tools' ``mapToolResultToToolResultBlockParam``, for
    the tools whose rule is known; ``None`` for the others (the caller must not claim to know what was shown).

    - ``Read`` of a text file (``{"type": "text", "file": {"content", "startLine", ...}}``): each line of
      ``content`` numbered from ``startLine`` as ``N\\tline`` (2.1's compact ``addLineNumbers``, the form
      :func:`type_step` reads), a file's final newline an empty last line (``3\\t``): what 2.1.332's session
      log holds (the API request then trims the trailing tab); an empty file is said in a reminder, not rebuilt.
    - ``Bash`` (``{"stdout", "stderr", "interrupted", ...}``): stdout without its leading blank lines and
      trailing white space, then stderr stripped, then the abort notice when interrupted, then the background
      task's id, joined by newlines (empty parts left out).
    - ``Glob`` (``filenames``) and ``Grep`` in its three modes (``content``; ``files_with_matches``: ``Found N
      files`` and the names; ``count``: the counts and ``Found N total occurrences across M files.``), as 2.1.332
      showed them; a truncated or paginated result is not rebuilt.
    - an MCP tool (``mcp__server__tool``): the result as Claude Code passes it, a string, or the text of its
      content blocks.
    """
    if tool in READ_TOOLS:
        if not isinstance(tool_response, dict) or tool_response.get("type") != "text":
            return None
        file = tool_response.get("file")
        if not isinstance(file, dict) or not isinstance(file.get("content"), str) or not file["content"]:
            return None
        start = _int(file.get("startLine")) or 1
        lines = file["content"].split("\n")
        return "\n".join(f"{start + i}\t{line}" for i, line in enumerate(lines))
    if tool in SHELL_TOOLS:
        if not isinstance(tool_response, dict) or not isinstance(tool_response.get("stdout"), str):
            return None
        if tool_response.get("isImage") is True or tool_response.get("structuredContent"):
            return None
        stdout = re.sub(r"^(\s*\n)+", "", tool_response["stdout"]).rstrip()
        stderr = str(tool_response.get("stderr") or "").strip()
        if tool_response.get("interrupted") is True:
            stderr += ("\n" if stderr else "") + "<error>Command was aborted before completion</error>"
        background = tool_response.get("backgroundTaskId")
        tail = f"Command running in background with ID: {background}" if background else ""
        return "\n".join(part for part in (stdout, stderr, tail) if part)
    if tool in ("Glob", "Grep"):
        return _search_shown(tool, tool_response)
    if tool.startswith("mcp__"):
        if isinstance(tool_response, str):
            return tool_response
        if isinstance(tool_response, list) and all(isinstance(b, dict) for b in tool_response):
            return "\n".join(str(b.get("text", "")) for b in tool_response if b.get("type") == "text")
        return None
    return None


def _search_shown(tool: str, response: Any) -> str | None:
    """Glob's and Grep's shown text from their output objects (the forms checked with 2.1.332); ``None`` for a
    truncated or paginated result, whose notice is not rebuilt here."""
    if not isinstance(response, dict) or response.get("truncated") or "appliedLimit" in response:
        return None
    if "appliedOffset" in response:
        return None
    names = response.get("filenames")
    names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    if tool == "Glob":
        return "\n".join(names) if names else "No files found"
    mode = response.get("mode")
    content = response.get("content")
    if mode == "content":
        return content if isinstance(content, str) and content else "No matches found"
    if mode == "count":
        matches, files = _int(response.get("numMatches")), _int(response.get("numFiles"))
        if not isinstance(content, str) or matches is None or files is None:
            return None
        if not content:
            return "No matches found"
        occurrences = "occurrence" if matches == 1 else "occurrences"
        return f"{content}\n\nFound {matches} total {occurrences} across {files} {'file' if files == 1 else 'files'}."
    if mode == "files_with_matches":
        if not names:
            return "No files found"
        return f"Found {len(names)} {'file' if len(names) == 1 else 'files'}\n" + "\n".join(names)
    return None


def claude_code_hook_step(
    index: int,
    tool: str,
    tool_input: Any,
    tool_response: Any,
    *,
    call_id: str | None = None,
    cwd: str | None = None,
) -> Step:
    """The step a ``PostToolUse`` hook event stands for, built and typed as this module builds and types a
    logged call (:func:`step_command`, :func:`type_step`), so live capture sees what replay of the session log
    sees. ``shown`` is :func:`claude_code_shown` (``None`` when its rule is unknown: the step is then
    unanswered and captured as nothing)."""
    args, args_error = parse_arguments(tool_input)
    shown = claude_code_shown(tool, args, tool_response)
    step = Step(
        index=index,
        tool=tool,
        command=step_command(tool, args),
        args=args,
        args_error=args_error,
        call_id=call_id,
        cwd=cwd,
        output=shown,
        shown=shown,
        clipped=shown is not None and claude_code_clipped(shown),
    )
    if tool in SHELL_TOOLS and shown is not None and (m := _EXIT_CODE.match(shown)):
        step.exit_code = int(m.group(1))
    type_step(step)
    return step


# ---------------------------------------------------------------------------------------------------------
# Delivered files


def written_files(
    steps: list[Step], path: Path, warnings: list[str], results: dict[int, dict[str, Any]] | None = None
) -> list[DeliverableFile]:
    """Files the agent wrote with ``Write`` (content from the call), carried through later successful
    ``Edit`` / ``MultiEdit`` calls on them (Claude Code's string replacement), applied to the file as the edit
    found it when the session file logs that (``toolUseResult.originalFile`` / ``originalFileContents``: a
    formatter or a command may have changed it in between), else to the content known; the last state of a
    path wins. An edit whose text is not in the content it applies to leaves the content unknown."""
    content: dict[str, str | None] = {}
    results = results or {}
    for step in steps:
        if not step.answered or step.is_error:
            continue
        target = tool_path(step.args)
        if target is None:
            continue
        if step.tool in WRITE_TOOLS:
            text = step.args.get("content")
            content[target] = text if isinstance(text, str) else None
        elif step.tool in ("Edit", "MultiEdit") and target in content:
            found = results.get(step.index, {})
            before = found.get("originalFile", found.get("originalFileContents"))
            base = before if isinstance(before, str) else content[target]
            if base is None:
                continue
            edits = step.args.get("edits") if step.tool == "MultiEdit" else [step.args]
            content[target] = _apply_edits(base, edits)
            if content[target] is None:
                warnings.append(
                    f"{path}:{step.line}: {step.tool} of {target} does not apply to the content written before; "
                    "its delivered content is unknown"
                )
    files: list[DeliverableFile] = []
    for target, text in content.items():
        if text is None:
            files.append(DeliverableFile(path=target, origin="write_tool"))
        else:
            files.append(deliverable_file(target, text.encode("utf-8", "surrogatepass"), origin="write_tool"))
    return files


def _apply_edits(text: str, edits: Any) -> str | None:
    if not isinstance(edits, list):
        return None
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old or old not in text:
            return None
        text = text.replace(old, new) if edit.get("replace_all") is True else text.replace(old, new, 1)
    return text
