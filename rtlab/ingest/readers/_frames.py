"""The harnesses' own words in tool output, found and marked as frames for the environment.

A harness wraps and shortens output before the model sees it: Codex puts ``Total output lines: N`` in front
and a ``…N tokens truncated…`` marker in the middle, OpenHands a middle marker and a terminal's echo of the
command, Pi a bracketed notice and ``Command exited with code N`` at the end, G2B a ``Command: / stdout: /
stderr: / exit_code:`` frame around each of several commands, editors a ``cat -n`` header. None of that is
file content. Readers mark it here as :class:`~rtlab.records.Frame` spans of ``Step.shown`` (``clip`` for a
marker where content was cut, ``frame`` for other words), so that capture sees only what commands printed and
knows no harness. These rules were in capture before the reader / environment boundary; each reader applies
them to its own steps (:func:`output_frames`, :func:`read_tool_reply`, :func:`command_parts`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from rtlab.ingest._clipping import OPENHANDS_TRUNCATION_MARKER
from rtlab.records import Action, Frame, status_start

# ---------------------------------------------------------------------------------------------------------
# Pi's truncation notices (also used by the Pi reader to tell a clip from a window)

NoticeKind = Literal["clip", "window", "limit"]


@dataclass(frozen=True)
class Notice:
    """One wording a Pi tool appends when it shortens its output."""

    name: str
    """A short name for the wording (``read-showing-lines``, ...)."""
    pattern: re.Pattern[str]
    """What finds the notice in an output's tail."""
    kind: NoticeKind
    """``clip``: the tool cut the output at its own limit. ``window``: the model's own ``offset``/``limit`` window
    ended before the file did (nothing was cut). ``limit``: a count limit that is a window when the call set
    ``limit`` itself and a clip when the tool's default applied."""
    source: str
    """Where Pi writes it, and since when."""


_SIZE = r"[\d.]+(?:B|KB|MB)"  # truncate.ts formatSize: 512B, 50.0KB, 1.2MB
TRUNCATION_NOTICES: tuple[Notice, ...] = (
    Notice(
        "read-more-lines-v1",
        re.compile(
            r"\.\.\. \((?:[^()\n]*\. )?\d+ more lines not shown\. Use offset=\d+ to continue reading\)"
        ),
        "limit",
        "tools/read.ts before truncate.ts (2025): appended when `limit` or the 2000-line default ended the read",
    ),
    Notice(
        "read-long-lines-v1",
        re.compile(r"\.\.\. \(Some lines were truncated to \d+ characters for display"),
        "clip",
        "tools/read.ts before truncate.ts: lines over MAX_LINE_LENGTH (2000 chars) cut",
    ),
    Notice(
        "read-showing-lines",
        re.compile(
            rf"\[Showing lines \d+-\d+ of \d+(?: \({_SIZE} limit\))?\. Use offset=\d+ to continue\.?\]"
        ),
        "clip",
        "core/tools/read.ts: truncateHead hit DEFAULT_MAX_LINES (2000) or DEFAULT_MAX_BYTES (50KB)",
    ),
    Notice(
        "read-more-lines-in-file",
        re.compile(r"\[\d+ more lines in file\. Use offset=\d+ to continue\.?\]"),
        "window",
        "core/tools/read.ts: the model's `limit` ended before the file did (no truncation)",
    ),
    Notice(
        "read-line-exceeds-limit",
        re.compile(rf"\[Line \d+ is {_SIZE}, exceeds {_SIZE} limit\. Use bash: "),
        "clip",
        "core/tools/read.ts: first line at offset exceeds the byte limit",
    ),
    Notice(
        "bash-showing-lines",
        re.compile(rf"\[Showing lines \d+-\d+(?: of \d+)?(?: \({_SIZE} limit\))?\. Full output: [^\]\n]*\]"),
        "clip",
        "core/tools/bash.ts: truncateTail kept the last lines; full output saved to a temp file",
    ),
    Notice(
        "bash-showing-last-bytes",
        re.compile(
            rf"\[Showing last {_SIZE}(?: of line \d+(?: \(line is {_SIZE}\))?)?\. Full output: [^\]\n]*\]"
        ),
        "clip",
        "core/tools/bash.ts: a single last line longer than the byte limit",
    ),
    Notice(
        "bash-output-truncated",
        re.compile(r"\[Output truncated\. Full output: [^\]\n]*\]"),
        "clip",
        "core/messages.ts bashExecutionToText: user `!` commands",
    ),
    Notice(
        "count-limit-reached",
        re.compile(r"\[\d+ (?:matches|results|entries) limit reached"),
        "limit",
        "core/tools/grep.ts (matches, default 100), find.ts (results, 1000), ls.ts (entries, 500)",
    ),
    Notice(
        "byte-limit-reached",
        re.compile(rf"(?:\[|\. ){_SIZE} limit reached"),
        "clip",
        "core/tools/grep.ts, find.ts, ls.ts: truncateHead hit DEFAULT_MAX_BYTES",
    ),
    Notice(
        "grep-long-lines",
        re.compile(r"Some lines truncated to \d+ chars\. Use read tool to see full lines"),
        "clip",
        "core/tools/grep.ts: match lines over GREP_MAX_LINE_LENGTH (500 chars) cut",
    ),
)


# ---------------------------------------------------------------------------------------------------------
# Headers, clip markers, echoes and trailers

_CODEX_HEADER = re.compile(r"Total output lines: \d+\n\n?")
_CLIP_MARKERS = re.compile(
    r"…\d+ (?:tokens|chars) truncated…"
    r"|\n\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]\n\n?"
    r"|\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]\n\n?"
    r"|\n\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]\n\n?"
    r"|\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]\n\n?"
    r"|" + re.escape(OPENHANDS_TRUNCATION_MARKER)
)
"""Codex (token and byte budgets, the older 256-line policy) and OpenHands middle-cut markers. Every
alternative starts with a plain character (the optional newline before ``[...`` is written out as two
alternatives) so that the regex engine skips ahead to the characters that can start a marker."""
_CLIP_MARKER_TEXTS = ("…", "[... ")
"""Every clip marker holds one of these: text without them needs no regex scan."""


def _notice_start(shown: str, start: int, end: int) -> int:
    """Where a trailing Pi tool notice (``[Showing lines ...]``, ``[100 matches limit reached ...]``) begins."""
    stop = end
    while stop > start and shown[stop - 1].isspace():
        stop -= 1
    line_start = shown.rfind("\n", start, stop) + 1 or start
    text = shown[max(line_start, start) : stop]
    if not text.startswith(("[", "... (")) or len(text) > 2000:
        return end
    if any(n.pattern.search(text) for n in TRUNCATION_NOTICES):
        return max(line_start, start)  # the blank line before it goes with trimming
    return end


_PI_STATUS = re.compile(
    r"(?:^|\n\n)(?:Command exited with code -?\d+|Command aborted|Command timed out after [\d.]+ seconds?)\s*$"
)
"""The status Pi's bash tool appends to a failed command's output (core/tools/bash.ts ``appendStatus``)."""
_NO_OUTPUT = "(no output)"


def _trailer_start(shown: str, start: int, end: int) -> int:
    """Where the harness's trailing words begin: Pi's exit status, Pi's truncation notices, ``(no output)``."""
    for _ in range(3):
        window = max(start, end - 200)
        m = _PI_STATUS.search(shown, window, end) if shown.find("Command ", window, end) >= 0 else None
        new_end = m.start() if m else _notice_start(shown, start, end)
        if shown.find(_NO_OUTPUT, start, new_end) >= 0 and shown[start:new_end].strip() == _NO_OUTPUT:
            return start
        if new_end == end:
            return end
        end = new_end
    return end


def _markers(shown: str, start: int, end: int) -> list[Frame]:
    if not any(shown.find(text, start, end) >= 0 for text in _CLIP_MARKER_TEXTS):
        return []
    return [Frame(m.start(), m.end(), "clip") for m in _CLIP_MARKERS.finditer(shown, start, end)]


Harness = Literal["codex", "openhands", "pi", "g2b", "claude-code", "any"]
"""Whose words to look for: one harness's, or (``any``) every harness's, for logs whose harness is unknown."""


def output_frames(shown: str, command: str, *, clipped: bool, harness: Harness = "any") -> tuple[Frame, ...]:
    """The frames of one command's output: Codex's header (when it clipped) or a terminal's echo of ``command``
    (OpenHands) in front, clip markers inside (when the harness clipped), Pi's trailing status and notices at
    the end, and a recorded tab run's status line; only ``harness``'s own words unless it is ``any``."""
    status = status_start(shown)  # a recorded tab run's status line: the environment's words
    start = 0
    if clipped and harness in ("codex", "any") and (m := _CODEX_HEADER.match(shown)):
        start = m.end()
    elif (
        harness in ("openhands", "any")
        and command
        and "\n" not in command
        and shown.startswith(command)
        and shown[len(command) : len(command) + 1] in ("\r", "\n")
    ):
        start = (
            shown.find("\n", len(command)) + 1
        )  # a terminal's echo of the command (OpenHands' tmux session)
    end = _trailer_start(shown, start, status) if harness in ("pi", "any") else status
    found = [Frame(0, start, "frame")] if start > 0 else []
    if clipped:
        found += _markers(shown, start, end)
    if harness in ("claude-code", "any"):
        found += _claude_code_words(shown, start, end, clipped=clipped, shell=True)
    if end < status:
        found.append(Frame(end, status, "frame"))
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return _sorted(_disjoint(found)) if harness in ("claude-code", "any") else tuple(found)


# ---------------------------------------------------------------------------------------------------------
# Claude Code's words in tool results
#
# Sources: the tools' ``mapToolResultToToolResultBlockParam`` in Claude Code's source (src/tools/BashTool/
# BashTool.tsx and utils.ts ``formatOutput``, FileReadTool/FileReadTool.ts and prompt.ts, GrepTool/GrepTool.ts,
# GlobTool/GlobTool.ts, utils/toolResultStorage.ts; the 2.1 source as mirrored in BelovedYaoo/
# claude-code-source), the older ``formatOutput`` (acheong08/anon-kode src/tools/BashTool/utils.ts, Claude
# Code 0.2), and the tool results of real 1.0.29, 2.0.21 and 2.0.65 logs.

_CC_REMINDER = re.compile(r"\n*<system-reminder>.*?</system-reminder>\n?", re.S)
"""A reminder Claude Code appends to (or makes of) a result: Read's malware notice, the empty-file warning."""
_CC_EXIT_HEADER = re.compile(r"Exit code -?\d+\n")
"""Put before a failed command's output (2.x ``Exit code N``; 1.0 logs have none)."""
_CC_LINES_CLIPPED = re.compile(r"\n\n\.\.\. \[\d+ lines truncated\] \.\.\.(?:\n\n)?")
"""Where ``formatOutput`` cut a command's output at ``BASH_MAX_OUTPUT_LENGTH`` (30000 characters): after the
head (2.x), or between head and tail (0.2-era Claude Code, hence the optional blank line after it)."""
_CC_TRAILERS = re.compile(
    r"^(?:<error>Command was aborted before completion</error>"
    r"|Shell cwd was reset to [^\n]*"
    r"|Command (?:running in background|was manually backgrounded by user) with ID: [^\n]*"
    r"|Command exceeded the assistant-mode blocking budget [^\n]*)$\n?",
    re.M,
)
"""BashTool's own lines after the output: the abort notice, the cwd reset, background-task notices."""
_CC_PERSISTED_HEAD = re.compile(
    r"<persisted-output>\nOutput too large \([^)\n]*\)\. Full output saved to: [^\n]*\n\nPreview \(first [^)\n]*\):\n"
)
_CC_PERSISTED_TAIL = re.compile(r"(\n\.\.\.)?\n</persisted-output>\s*$")
"""2.1's wrapper round a preview of a result too large to send (``buildLargeToolResultMessage``); ``...``
before the closing tag says the preview stops short of the output."""
_CC_WHOLE = re.compile(
    r"No files found|No matches found|\(\w+ completed with no output\)"
    r"|File unchanged since last read\. [^\n]*"
    r"|<tool_use_error>.*</tool_use_error>"
    r"|\[Request interrupted by user(?: for tool use)?\]"
    r"|The user doesn't want to proceed with this tool use\..*",
    re.S,
)
"""Results that are Claude Code's words through and through: empty searches, 2.1's empty-output marker, the
Read stub for an unchanged file, a refused call, an interruption, a rejected call."""

ClaudeCodeTool = Literal["shell", "read", "files", "content", "count", "glob", "other"]
"""Which Claude Code tool's result :func:`claude_code_frames` frames: ``Bash`` (``shell``), ``Read``, ``Grep``
in its three output modes (``files``: files_with_matches, ``content``, ``count``), ``Glob``, or another."""

_CC_FOUND_FILES = re.compile(r"Found \d+ files?(?: [^\n]*)?\n")
"""Grep's files_with_matches header (``Found N files``, with 2.1's ``limit: N, offset: M``)."""
_CC_COUNT_TRAILER = re.compile(r"\n\nFound \d+ total occurrences? across \d+ files?\.[^\n]*$")
_CC_COUNT_VALUE = re.compile(r":\d+$", re.M)
_CC_PAGINATION = re.compile(r"\n\n\[Showing results with pagination = [^\]\n]*\]$")
_CC_GLOB_CLIPPED = re.compile(
    r"\n?\(Results are truncated\. Consider using a more specific path or pattern\.\)$"
)


def claude_code_clipped(shown: str) -> bool:
    """Whether Claude Code says it shortened this result: Bash's ``[N lines truncated]`` marker, a persisted
    preview that stops short, Glob's truncation notice, Grep's ``limit:`` in its header or its pagination."""
    return bool(
        ("lines truncated] ..." in shown and _CC_LINES_CLIPPED.search(shown))
        or ((m := _CC_FOUND_FILES.match(shown)) and "limit:" in m.group(0))
        or (shown.startswith("<persisted-output>") and (m := _CC_PERSISTED_TAIL.search(shown)) and m.group(1))
        or _CC_GLOB_CLIPPED.search(shown)
        or _CC_PAGINATION.search(shown)
    )


def _claude_code_words(shown: str, start: int, end: int, *, clipped: bool, shell: bool) -> list[Frame]:
    """Claude Code's own words in ``shown[start:end]``: a result that is nothing but its words, else the
    ``Exit code N`` header (``shell``), the persisted-output wrapper, reminders, the clip marker (when
    ``clipped``) and BashTool's trailing lines (``shell``)."""
    text = shown[start:end]
    core = text.strip()
    if core and _CC_WHOLE.fullmatch(core):
        return [Frame(start, end, "frame")]
    found: list[Frame] = []
    pos = start
    if shell and (m := _CC_EXIT_HEADER.match(shown, start, end)):
        found.append(Frame(start, m.end(), "frame"))
        pos = m.end()
    if shown.startswith("<persisted-output>", pos) and (m := _CC_PERSISTED_HEAD.match(shown, pos, end)):
        found.append(Frame(pos, m.end(), "frame"))
        tail = _CC_PERSISTED_TAIL.search(shown, m.end(), end)
        if tail is not None:
            if tail.group(1):
                found.append(Frame(tail.start(), tail.end(1), "clip"))
            found.append(Frame(tail.end(1) if tail.group(1) else tail.start(), end, "frame"))
    if shown.find("<system-reminder>", pos, end) >= 0:
        found += [Frame(m.start(), m.end(), "frame") for m in _CC_REMINDER.finditer(shown, pos, end)]
    if clipped and shown.find("lines truncated] ...", pos, end) >= 0:
        found += [Frame(m.start(), m.end(), "clip") for m in _CC_LINES_CLIPPED.finditer(shown, pos, end)]
    if shell and any(shown.find(w, pos, end) >= 0 for w in ("<error>Command", "Shell cwd", "Command ")):
        found += [Frame(m.start(), m.end(), "frame") for m in _CC_TRAILERS.finditer(shown, pos, end)]
    return found


def _disjoint(frames: list[Frame]) -> list[Frame]:
    """``frames`` less any that overlaps one before it in the list (the first rule to claim a span wins)."""
    kept: list[Frame] = []
    for f in frames:
        if f.end > f.start and all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
    return kept


def claude_code_frames(shown: str, *, tool: ClaudeCodeTool, clipped: bool) -> tuple[Frame, ...]:
    """The frames of a Claude Code tool result: its words common to every tool (a whole-reply notice, the
    persisted-output wrapper, ``<system-reminder>`` blocks), Bash's exit header, clip marker and trailing
    lines, Grep's ``Found N files`` header, count summary and ``:N`` counts (so that only the paths remain),
    its pagination line, Glob's truncation notice; and a recorded tab run's status line."""
    status = status_start(shown)
    found = _claude_code_words(shown, 0, status, clipped=clipped, shell=tool == "shell")
    if not (len(found) == 1 and found[0] == Frame(0, status, "frame")):
        if tool == "files" and (m := _CC_FOUND_FILES.match(shown, 0, status)):
            found.append(Frame(0, m.end(), "frame"))
        elif tool == "count":
            trailer = _CC_COUNT_TRAILER.search(shown, 0, status)
            stop = trailer.start() if trailer else status
            found += [Frame(m.start(), m.end(), "frame") for m in _CC_COUNT_VALUE.finditer(shown, 0, stop)]
            if trailer:
                found.append(Frame(trailer.start(), status, "frame"))
        elif tool == "content" and (m := _CC_PAGINATION.search(shown, 0, status)):
            found.append(Frame(m.start(), status, "frame"))
        elif tool == "glob" and (m := _CC_GLOB_CLIPPED.search(shown, 0, status)):
            found.append(Frame(m.start(), status, "frame"))
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return _sorted(_disjoint(found))


# ---------------------------------------------------------------------------------------------------------
# Codex's tool results as its session rollouts record them (what the model was sent)

_CODEX_RESULT_HEADER = re.compile(
    r"(?:(?:Chunk ID: [^\n]*|Wall time: [^\n]*|Exit code: -?\d+|Process exited with code -?\d+"
    r"|Process running with (?:session|command) ID [^\n]*|Original token count: \d+|Total output lines: \d+)\n)+"
    r"Output:\n"
)
"""The lines Codex puts in front of a command's output: ``format_exec_output_for_model_freeform``
(``Exit code``, ``Wall time``, ``Total output lines``, codex-rs/core/src/tools/mod.rs) and the unified exec
tools' ``format_response`` (``Chunk ID``, ``Wall time``, ``Process exited with code`` or ``Process running
with session ID``, ``Original token count``, core/src/tools/handlers/unified_exec.rs), each ending in
``Output:``."""
_CODEX_TIMEOUT = re.compile(r"command timed out after \d+ milliseconds\n")
"""``build_content_with_timeout`` (core/src/tools/mod.rs): the notice before a timed-out command's output."""
_CODEX_BODY_HEADER = re.compile(
    r"(?:Warning: truncated output \(original token count: \d+\)\n)?Total output lines: \d+\n\n?"
)
"""``formatted_truncate_text`` (codex-rs/utils/output-truncation; older ``format_exec_output_str`` and the
256-line policy): the header of an output Codex cut, before its head."""


def codex_result_frames(shown: str) -> tuple[Frame, ...]:
    """The frames of a tool result Codex sent the model, as its session rollout records it: the header lines
    in front (exit code, wall time, chunk and session ids, token count, ``Output:``), a timeout notice, the
    ``Total output lines`` header of a cut output and the markers where it was cut (``…N tokens
    truncated…``, ``[... omitted K of N lines ...]``, ...), and a recorded tab run's status line. The cut
    output's header is a frame only where a marker shows the output was cut (Codex writes it only then)."""
    status = status_start(shown)
    found: list[Frame] = []
    pos = 0
    if m := _CODEX_RESULT_HEADER.match(shown, 0, status):
        found.append(Frame(0, m.end(), "frame"))
        pos = m.end()
    if m := _CODEX_TIMEOUT.match(shown, pos, status):
        found.append(Frame(pos, m.end(), "frame"))
        pos = m.end()
    markers = _markers(shown, pos, status)
    if markers and (m := _CODEX_BODY_HEADER.match(shown, pos, status)) and m.end() <= markers[0].start:
        found.append(Frame(pos, m.end(), "frame"))
    found += markers
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return tuple(found)


def whole(shown: str) -> tuple[Frame, ...]:
    """All of ``shown`` is the harness's words (an empty-result message): nothing was printed."""
    return (Frame(0, len(shown), "frame"),) if shown else ()


# ---------------------------------------------------------------------------------------------------------
# Replies of read tools

_REFERENCE = re.compile(r"^<reference [^>\n]*>\n")
_CAT_N_HEADER = re.compile(r"^Here's the result of running `cat -n` on (?P<path>[^\n]+?):\n")
_DIR_VIEW = re.compile(
    r"^Here's the files and directories up to \d+ levels? deep in (?P<path>[^\n,]+)[^\n]*\n"
)


def _output_start(shown: str, frames: list[Frame]) -> int:
    """Where the first output piece between ``frames`` starts (0 when there is none)."""
    pos = 0
    for f in frames:
        if f.start > pos:
            return pos
        pos = max(pos, f.end)
    return pos if pos < len(shown) else 0


def read_tool_reply(
    shown: str, path: str, *, clipped: bool, harness: Harness = "any"
) -> tuple[Action, tuple[Frame, ...]]:
    """A read tool's reply: ``read`` of ``path`` with its frames (the wrapper of G2B's ``<reference>``, an
    editor's ``cat -n`` header, and ``harness``'s words as in :func:`output_frames`), or ``list`` when the
    reply is an editor's folder view."""
    frames = list(output_frames(shown, "", clipped=clipped, harness=harness))
    start = _output_start(shown, frames)
    text = shown[start:]
    if m := _DIR_VIEW.match(text):
        return Action("list", path=path), _sorted([*frames, Frame(start, start + m.end(), "frame")])
    if m := _REFERENCE.match(text):
        frames.append(Frame(start, start + m.end(), "frame"))
        close = shown.rfind("\n</reference>")
        if close >= start + m.end():
            frames = [f for f in frames if f.end <= close] + [Frame(close, len(shown), "frame")]
        return Action.read(path), _sorted(frames)
    if m := _CAT_N_HEADER.match(text):
        frames.append(Frame(start, start + m.end(), "frame"))
    return Action.read(path), _sorted(frames)


def _sorted(frames: list[Frame]) -> tuple[Frame, ...]:
    return tuple(sorted(frames, key=lambda f: (f.start, f.end)))


# ---------------------------------------------------------------------------------------------------------
# Several commands in one call, each in its own frame (G2B's shell tool)

_EXIT_CODE = re.compile(r"\nexit_code: (-?\d+)")


def listed_commands(args: dict[str, Any] | None) -> list[str] | None:
    """The ``commands`` list of a call that ran several command lines (a JSON string of one is accepted)."""
    raw = (args or {}).get("commands")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    if isinstance(raw, list) and raw and all(isinstance(c, str) for c in raw):
        return raw
    return None


def command_parts(
    shown: str, commands: list[str], *, clipped: bool
) -> tuple[tuple[Action, ...], tuple[Frame, ...]] | None:
    """G2B's shell frame (pipeline/executor.py): per command ``Command: CMD\\n[stdout:\\nOUT\\n][stderr:\\nERR\\n]
    exit_code: N``. Each command becomes a part with the span of its stdout; ``None`` when the first frame is
    not there (the output is then one command's)."""
    if not shown.startswith("Command: "):
        return None
    parts: list[Action] = []
    frames: list[Frame] = []
    pos = 0
    for i, cmd in enumerate(commands):
        header = f"Command: {cmd}\n"
        if not shown.startswith(header, pos):
            break
        body = pos + len(header)
        seg_end = len(shown)
        if i + 1 < len(commands):
            nxt = shown.find(f"\n\nCommand: {commands[i + 1]}\n", body)
            seg_end = nxt if nxt >= 0 else seg_end
        code = shown.rfind("\nexit_code: ", body - 1, seg_end)
        m = _EXIT_CODE.match(shown, code, seg_end) if code >= 0 else None
        exit_code = int(m.group(1)) if m else None
        if shown.startswith("stdout:\n", body):
            stop = code if code >= 0 else seg_end
            err = shown.rfind("\nstderr:\n", body, stop)
            out_end = err if err >= 0 else stop  # both searches start at the newline the executor adds
            output = (body + 8, out_end)
            if clipped:
                frames += _markers(shown, body + 8, out_end)
        else:
            output = (body, body)
        parts.append(Action("shell", command=cmd, output=output, exit_code=exit_code))
        pos = seg_end + 2
    return (tuple(parts), tuple(frames)) if parts else None
