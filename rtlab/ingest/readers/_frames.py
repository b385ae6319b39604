"""The harnesses' own words in tool output, found and marked as frames for the environment.

A harness wraps and shortens output before the model sees it: Codex puts ``Total output lines: N`` in front
and a ``…N tokens truncated…`` marker in the middle, OpenHands a middle marker and a terminal's echo of the
command, the OpenHands SDK (V1) an error header, exit-status and working-directory lines and ``<response
clipped>`` notices, Pi a bracketed notice and ``Command exited with code N`` at the end, G2B a ``Command: /
stdout: / stderr: / exit_code:`` frame around each of several commands, editors a ``cat -n`` header. None of that is
file content. Readers mark it here as :class:`~rtlab.records.Frame` spans of ``Step.shown`` (``clip`` for a
marker where content was cut, ``frame`` for other words), so that capture sees only what commands printed and
knows no harness. These rules were in capture before the reader / environment boundary; each reader applies
them to its own steps (:func:`output_frames`, :func:`read_tool_reply`, :func:`command_parts`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Literal

from rtlab.ingest._clipping import OPENHANDS_TRUNCATION_MARKER
from rtlab.io import parse_json
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
_NOTICE_TEXTS = ("more lines", "truncated", "[Showing ", "[Line ", " limit reached")
"""Every wording of :data:`TRUNCATION_NOTICES` holds one of these: text without them needs no regex scan."""


def truncation_notices(text: str) -> list[Notice]:
    """The :data:`TRUNCATION_NOTICES` found in ``text``, in their order."""
    if not any(t in text for t in _NOTICE_TEXTS):
        return []
    return [n for n in TRUNCATION_NOTICES if n.pattern.search(text)]


# ---------------------------------------------------------------------------------------------------------
# Headers, clip markers, echoes and trailers

_CODEX_HEADER = re.compile(r"Total output lines: \d+\n\n?")
_RESPONSE_CLIPPED = r"<response clipped><NOTE>[^\n]*?</NOTE>"
SDK_CLIP_MARKER = re.compile(_RESPONSE_CLIPPED)
"""Every ``<response clipped><NOTE>...</NOTE>`` notice: the OpenHands SDK's ``maybe_truncate``
(openhands-sdk/openhands/sdk/utils/truncate.py, with or without the saved file's name) and its file editor's
(openhands-tools/openhands/tools/file_editor/utils/constants.py), and the same notices of the editor V0 OpenHands
used (openhands-aci), which its eval outputs hold."""
_CLIP_MARKERS = re.compile(
    r"…\d+ (?:tokens|chars) truncated…"
    r"|\n\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]\n\n?"
    r"|\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]\n\n?"
    r"|\n\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]\n\n?"
    r"|\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]\n\n?"
    r"|" + re.escape(OPENHANDS_TRUNCATION_MARKER) + "|" + _RESPONSE_CLIPPED
)
"""Codex (token and byte budgets, the older 256-line policy) and OpenHands middle-cut markers (V0's, and the
``<response clipped>`` notices of its editor and of the SDK). Every alternative starts with a plain character
(the optional newline before ``[...`` is written out as two alternatives) so that the regex engine skips ahead
to the characters that can start a marker."""
_CLIP_MARKER_TEXTS = ("…", "[... ", "clipped><NOTE>")
"""Every clip marker holds one of these: text without them needs no regex scan (:func:`_may_hold_markers`)."""
_CLIP_BRACKET = re.compile(re.escape(_CLIP_MARKER_TEXTS[1]))
"""The second of :data:`_CLIP_MARKER_TEXTS`, searched by ``re``: its scan for the literal's first character
runs about twice as fast as ``str.find`` of a needle ending in a space (a character most outputs are full of,
which stops ``str.find``'s skips)."""


def _notice_start(shown: str, start: int, end: int) -> int:
    """Where a trailing Pi tool notice (``[Showing lines ...]``, ``[100 matches limit reached ...]``) begins."""
    stop = end
    while stop > start and shown[stop - 1].isspace():
        stop -= 1
    line_start = shown.rfind("\n", start, stop) + 1 or start
    text = shown[max(line_start, start) : stop]
    if not text.startswith(("[", "... (")) or len(text) > 2000:
        return end
    if truncation_notices(text):
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
        lead = _LEADING_SPACE.match(shown, start, new_end)  # a test at its first character, not a scan
        if (
            shown.startswith(_NO_OUTPUT, lead.end() if lead else start, new_end)
            and shown[start:new_end].strip() == _NO_OUTPUT
        ):
            return start
        if new_end == end:
            return end
        end = new_end
    return end


def _may_hold_markers(shown: str, start: int, end: int) -> bool:
    """Whether ``shown[start:end]`` holds one of :data:`_CLIP_MARKER_TEXTS` (else no clip marker)."""
    ellipsis, _, note = _CLIP_MARKER_TEXTS
    return (
        shown.find(ellipsis, start, end) >= 0
        or _CLIP_BRACKET.search(shown, start, end) is not None
        or shown.find(note, start, end) >= 0
    )


def _markers(shown: str, start: int, end: int) -> list[Frame]:
    if not _may_hold_markers(shown, start, end):
        return []
    return [Frame(m.start(), m.end(), "clip") for m in _CLIP_MARKERS.finditer(shown, start, end)]


Harness = Literal["codex", "openhands", "openhands-v1", "pi", "g2b", "inspect", "claude-code", "any"]
"""Whose words to look for: one harness's, or (``any``) every harness's, for logs whose harness is unknown.
``openhands`` is OpenHands V0 (the event-list logs), ``openhands-v1`` the software-agent-sdk. ``inspect`` (and
``g2b``) have no words of theirs that :func:`output_frames` looks for (Inspect's own are found by
:func:`inspect_truncation`, :func:`editor_clip_frames` and :func:`session_frames`)."""


# ---------------------------------------------------------------------------------------------------------
# OpenHands V1 (software-agent-sdk): the words an observation's ``to_llm_content`` and the tools add

SDK_ERROR_HEADERS = (
    "[An error occurred during execution.]\n",
    "[There was an error during command execution.]\n",
)
"""``Observation.ERROR_MESSAGE_HEADER`` (openhands-sdk/openhands/sdk/tool/schema.py, SDK 1.0 on), put before an
error result, and the 2025 terminal's own (``ExecuteBashObservation.to_llm_content``, SDK before 1.0)."""
_SDK_PREFIX = re.compile(
    r"\[Below is the output of the previous command\.\]\n"
    r"|\[Previous command outputs are truncated\. Showing the last \d+ lines of the output below\.\]\n"
)
"""``metadata.prefix`` of a terminal observation (terminal/terminal/terminal_session.py): the output continues an
earlier command's, or its head scrolled out of the terminal's history."""
SDK_RESET_NOTICE = (
    "Terminal session has been reset. All previous environment variables and session state have been cleared."
)
"""What ``TerminalExecutor.reset`` (terminal/impl.py) says; a command run after the reset follows a blank line."""
_SDK_VIEW_NOTE = re.compile(r"NOTE: We only show up to \d+ since there're only \d+ lines in this file\.\n")
"""The file editor's warning before a ``view_range`` that ran past the end (file_editor/editor.py ``view``)."""
_PASTE_OFF, _PASTE_ON = "\x1b[?2004l", "\x1b[?2004h"
"""Bash's bracketed-paste switches, which the SDK's tmux terminal leaves around a command's output."""
_SDK_TRAILERS = (
    re.compile(r"\n\[Command finished with exit code -?\d+\]\Z"),
    re.compile(r"\n\[Python interpreter: [^\n]*\]\Z"),
    re.compile(r"\n\[Current working directory: [^\n]*\]\Z"),
    re.compile(
        r"\n\[The command (?:completed with exit code -?\d+\.(?: CTRL\+\S was sent\.)?"
        r"|has no new output after [\d.]+ seconds\. [^\n]*|timed out after [\d.]+ seconds\. [^\n]*)\]\Z"
    ),
)
"""A terminal observation's trailing lines, last first: ``to_llm_content`` adds the exit code, the interpreter
and the working directory after ``metadata.suffix``, which says how the command ended (terminal_session.py)."""
_SDK_NOT_RUN = re.compile(r'" is NOT executed\. The previous command is still running[^\n]*\]\Z')
"""The end of the suffix ``[Your command "CMD" is NOT executed. ...]`` (the command may span lines)."""
_SDK_HIDDEN = re.compile(
    r"\n\n\d+ hidden files/directories in this directory are excluded\. You can use 'ls -la [^\n]*' to see them\.\Z"
)
"""The file editor's line after a folder view that left hidden entries out."""
_SDK_WINDOW = 4096


def _sdk_bounds(shown: str, end: int) -> tuple[int, int]:
    """Where the output between the SDK's leading words and its trailing lines starts and ends."""
    start = 0
    for header in SDK_ERROR_HEADERS:
        if shown.startswith(header):
            start = len(header)
            break
    if m := _SDK_PREFIX.match(shown, start):
        start = m.end()
    if shown.startswith(SDK_RESET_NOTICE, start):
        after = start + len(SDK_RESET_NOTICE)
        if shown.startswith("\n\n", after):
            start = after + 2
        elif shown[after:end].strip() == "" or shown.startswith("\n[", after):
            start = after
    if m := _SDK_VIEW_NOTE.match(shown, start):
        start = m.end()
    if shown.startswith(_PASTE_OFF, start):
        start += len(_PASTE_OFF)
    window = max(start, end - _SDK_WINDOW)
    for pattern in _SDK_TRAILERS:
        if m := pattern.search(shown, window, end):
            end = m.start()
    opening = shown.rfind('\n[Your command "', start, end)
    if opening >= 0 and _SDK_NOT_RUN.search(shown, opening, end):
        end = opening
    if m := _SDK_HIDDEN.search(shown, max(start, end - _SDK_WINDOW), end):
        end = m.start()
    if shown.endswith(_PASTE_ON, start, end):
        end -= len(_PASTE_ON)
    return start, max(start, end)


def _sdk_frames(shown: str, status: int) -> tuple[Frame, ...]:
    start, end = _sdk_bounds(shown, status)
    found = [Frame(0, start, "frame")] if start > 0 else []
    if shown.find("<response clipped>", start, end) >= 0:
        found += [Frame(m.start(), m.end(), "clip") for m in SDK_CLIP_MARKER.finditer(shown, start, end)]
    if end < status:
        found.append(Frame(end, status, "frame"))
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return tuple(found)


def output_frames(shown: str, command: str, *, clipped: bool, harness: Harness = "any") -> tuple[Frame, ...]:
    """The frames of one command's output: Codex's header (when it clipped) or a terminal's echo of ``command``
    (OpenHands) in front, clip markers inside (when the harness clipped), Pi's trailing status and notices at
    the end, and a recorded tab run's status line; only ``harness``'s own words unless it is ``any``."""
    status = status_start(shown)  # a recorded tab run's status line: the environment's words
    if harness == "openhands-v1":
        return _sdk_frames(shown, status)
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
    return merged(found) if harness in ("claude-code", "any") else tuple(found)


# ---------------------------------------------------------------------------------------------------------
# Claude Code's words in tool results
#
# Sources: the tools' ``mapToolResultToToolResultBlockParam`` in Claude Code's source (src/tools/BashTool/
# BashTool.tsx and utils.ts ``formatOutput``, FileReadTool/FileReadTool.ts and prompt.ts, GrepTool/GrepTool.ts,
# GlobTool/GlobTool.ts, utils/toolResultStorage.ts; the 2.1 source as mirrored in BelovedYaoo/
# claude-code-source), the older ``formatOutput`` (acheong08/anon-kode src/tools/BashTool/utils.ts, Claude
# Code 0.2), and the tool results of real 1.0.29, 2.0.21 and 2.0.65 logs.

_CC_REMINDER = re.compile(r"\n*<system-reminder>.*?</system-reminder>\n?", re.S)
_CC_REMINDER_OPEN, _CC_REMINDER_CLOSE = "<system-reminder>", "</system-reminder>"
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
_CC_TRAILER_TEXTS = ("Command ", "Shell cwd")
"""Every line :data:`_CC_TRAILERS` finds holds one of these: text without them needs no regex scan."""
_CC_COMMAND = re.compile(re.escape(_CC_TRAILER_TEXTS[0]))
"""The first of :data:`_CC_TRAILER_TEXTS`, searched by ``re`` (faster than ``str.find`` for a needle ending in a
space: see :data:`_CLIP_BRACKET`)."""
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
_CC_WHOLE_FIRST = frozenset("N(F<[T")
"""The first characters of :data:`_CC_WHOLE`'s wordings: a result opening otherwise is not one of them."""
_LEADING_SPACE = re.compile(r"\s*")
r"""White space as ``str.strip`` takes it off (``\s`` of a text pattern is ``str.isspace``)."""

ClaudeCodeTool = Literal["shell", "read", "files", "content", "count", "glob", "other"]
"""Which Claude Code tool's result :func:`claude_code_frames` frames: ``Bash`` (``shell``), ``Read``, ``Grep``
in its three output modes (``files``: files_with_matches, ``content``, ``count``), ``Glob``, or another."""

_CC_FOUND_FILES = re.compile(r"Found \d+ files?(?: [^\n]*)?\n")
"""Grep's files_with_matches header (``Found N files``, with 2.1's ``limit: N, offset: M``)."""
_CC_COUNT_TRAILER = re.compile(r"\n\nFound \d+ total occurrences? across \d+ files?\.[^\n]*$")
_CC_COUNT_VALUE = re.compile(r":\d+$", re.M)
_CC_PAGINATION = re.compile(r"\n\n\[Showing results with pagination = [^\]\n]*\]$")
_CC_PAGINATION_TEXT = "\n\n[Showing results with pagination = "
"""What every pagination line holds: a result without it needs no regex scan."""
_CC_GLOB_NOTICE = "(Results are truncated. Consider using a more specific path or pattern.)"
_CC_GLOB_CLIPPED = re.compile(r"\n?" + re.escape(_CC_GLOB_NOTICE) + "$")
"""Glob's truncation notice ending a result; searched only where :data:`_CC_GLOB_NOTICE` is found (a pattern
that may open with a newline has no literal start for the regex engine to look for)."""


def claude_code_clipped(shown: str) -> bool:
    """Whether Claude Code says it shortened this result: Bash's ``[N lines truncated]`` marker, a persisted
    preview that stops short, Glob's truncation notice, Grep's ``limit:`` in its header or its pagination."""
    return bool(
        ("lines truncated] ..." in shown and _CC_LINES_CLIPPED.search(shown))
        or ((m := _CC_FOUND_FILES.match(shown)) and "limit:" in m.group(0))
        or (shown.startswith("<persisted-output>") and (m := _CC_PERSISTED_TAIL.search(shown)) and m.group(1))
        or shown.endswith(_CC_GLOB_ENDINGS)
        or _paginated(shown)
    )


_CC_GLOB_ENDINGS = (_CC_GLOB_NOTICE, _CC_GLOB_NOTICE + "\n")
"""How a result that :data:`_CC_GLOB_CLIPPED` finds ends (its ``$``: at the end, or before a last newline)."""


def _paginated(shown: str) -> bool:
    """Whether :data:`_CC_PAGINATION` finds a match in ``shown``: it ends at the end of ``shown`` (or before a last
    newline, where ``$`` matches too) and holds no newline after its opening two, so it can start only at the
    newline before the last line; searched from there (no scan of the whole result)."""
    end = len(shown) - 1 if shown.endswith("\n") else len(shown)
    last = shown.rfind("\n", 0, end)  # the newline before the last line
    return last >= 1 and _CC_PAGINATION.search(shown, last - 1) is not None


def _reminders(shown: str, pos: int, end: int) -> list[tuple[int, int]]:
    """The spans :data:`_CC_REMINDER` finds in ``shown[pos:end]``, found with ``str.find``: each opening tag
    with the newlines right before it (from ``pos`` on), through the first closing tag after it and one
    newline after that; an opening with no closing after it ends the search, as no later one can close."""
    spans: list[tuple[int, int]] = []
    while (k := shown.find(_CC_REMINDER_OPEN, pos, end)) >= 0:
        close = shown.find(_CC_REMINDER_CLOSE, k + len(_CC_REMINDER_OPEN), end)
        if close < 0:
            break
        start = k
        while start > pos and shown[start - 1] == "\n":
            start -= 1
        pos = close + len(_CC_REMINDER_CLOSE)
        if pos < end and shown[pos] == "\n":
            pos += 1
        spans.append((start, pos))
    return spans


def _claude_code_words(shown: str, start: int, end: int, *, clipped: bool, shell: bool) -> list[Frame]:
    """Claude Code's own words in ``shown[start:end]``: a result that is nothing but its words, else the
    ``Exit code N`` header (``shell``), the persisted-output wrapper, reminders, the clip marker (when
    ``clipped``) and BashTool's trailing lines (``shell``)."""
    lead = _LEADING_SPACE.match(shown, start, end)  # the result stripped is copied only if it may match
    first = lead.end() if lead else start
    if first < end and shown[first] in _CC_WHOLE_FIRST and _CC_WHOLE.fullmatch(shown[start:end].strip()):
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
    found += [Frame(s, e, "frame") for s, e in _reminders(shown, pos, end)]
    if clipped and shown.find("lines truncated] ...", pos, end) >= 0:
        found += [Frame(m.start(), m.end(), "clip") for m in _CC_LINES_CLIPPED.finditer(shown, pos, end)]
    if shell and (
        _CC_COMMAND.search(shown, pos, end) is not None or shown.find(_CC_TRAILER_TEXTS[1], pos, end) >= 0
    ):
        found += [Frame(m.start(), m.end(), "frame") for m in _CC_TRAILERS.finditer(shown, pos, end)]
    return found


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
        elif tool == "content" and (
            m := _CC_PAGINATION.search(shown, 0, status) if _CC_PAGINATION_TEXT in shown else None
        ):
            found.append(Frame(m.start(), status, "frame"))
        elif tool == "glob" and (
            m := _CC_GLOB_CLIPPED.search(shown, 0, status) if _CC_GLOB_NOTICE in shown else None
        ):
            found.append(Frame(m.start(), status, "frame"))
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return merged(found)


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
    r"^Here(?:'s| are) the files and directories up to \d+ levels? deep in (?P<path>[^\n,]+)[^\n]*\n"
)
"""An editor's folder view: ``Here's the files ...`` (OpenHands, Anthropic's editor), ``Here are the files ...``
(Inspect's ``text_editor``, inspect_sandbox_tools/_in_process_tools/_text_editor/text_editor.py)."""


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
            raw = parse_json(raw)
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


_SPAN = attrgetter("start", "end")
"""A frame's ``(start, end)``: the order of frames."""


def merged(frames: list[Frame] | tuple[Frame, ...]) -> tuple[Frame, ...]:
    """``frames`` made what :attr:`rtlab.records.Step.frames` requires, covering exactly what they cover: sorted,
    none overlapping; spans of one kind that overlap joined; where a clip marker and a frame overlap,
    the marker keeps its span and the frame the rest (never text the frames covered left uncovered); empty spans
    dropped. The one rule for combining frames that several rules found."""
    if len(frames) < 2:  # nothing to sort or join: the frame itself, unless it is empty
        return tuple(f for f in frames if f.end > f.start)
    clips = _union(f for f in frames if f.kind == "clip")
    if not clips:  # frames alone: when none overlap, they are the answer as they are, sorted
        spans = sorted((f for f in frames if f.end > f.start), key=_SPAN)
        end = -1
        for f in spans:
            if f.start < end or f.kind != "frame":
                break
            end = f.end
        else:
            return tuple(spans)
    out = [Frame(s, e, "clip") for s, e in clips]
    k = 0
    for s, e in _union(f for f in frames if f.kind != "clip"):
        while k < len(clips) and clips[k][1] <= s:
            k += 1
        pos, j = s, k
        while j < len(clips) and clips[j][0] < e:
            if clips[j][0] > pos:
                out.append(Frame(pos, clips[j][0], "frame"))
            pos = max(pos, clips[j][1])
            j += 1
        if pos < e:
            out.append(Frame(pos, e, "frame"))
    return tuple(sorted(out, key=lambda f: (f.start, f.end)))


def _union(frames: Iterable[Frame]) -> list[tuple[int, int]]:
    """The spans of ``frames``, sorted, with those that overlap joined (spans that only touch stay apart: each
    rule's frame keeps its own span); empty ones dropped."""
    out: list[tuple[int, int]] = []
    for f in sorted((f for f in frames if f.end > f.start), key=_SPAN):
        if out and f.start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], f.end))
        else:
            out.append((f.start, f.end))
    return out


def shifted(frames: tuple[Frame, ...] | list[Frame], by: int) -> list[Frame]:
    """``frames`` of a substring moved to the offsets of the text it was cut from."""
    return [Frame(f.start + by, f.end + by, f.kind) for f in frames]


def _line_spans(text: str, start: int, end: int) -> list[tuple[int, int, int]]:
    """``(line start, text end, line end)`` of each line in ``[start, end)``: the text end excludes a ``\\r\\n``
    or ``\\n``, the line end includes it."""
    spans = []
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        stop = end if nl < 0 else nl + 1
        body = nl if nl >= 0 else end
        if body > pos and text[body - 1] == "\r":
            body -= 1
        spans.append((pos, body, stop))
        pos = stop
    return spans


# ---------------------------------------------------------------------------------------------------------
# SWE-agent: the templates around an observation, its windowed file viewer, its search tools

SWE_CLIP_NOTE = "<response clipped><NOTE>"
"""Where SWE-agent 1.x's truncated-observation notice and ``str_replace_editor``'s ``TRUNCATED_MESSAGE`` begin
(sweagent/agent/agents.py ``TemplateConfig``; tools/edit_anthropic/bin/str_replace_editor)."""


def swe_agent_span(shown: str, observation: str | None) -> tuple[int, int, list[Frame]]:
    """Where ``observation`` (a ``trajectory[]`` step's) sits in ``shown`` (the history message that carried it
    to the model), and the template's words around it as frames.

    SWE-agent renders ``next_step_template`` (0.7: ``{observation}\\n(Open file: ...)\\n(Current directory:
    ...)\\nbash-$``; 1.x default ``Observation: {{observation}}``) around the observation,
    ``next_step_no_output_template`` when it is blank (all of it the harness's words), and in 1.x the
    truncated template (the observation's head, then ``<response clipped><NOTE>...``: a ``clip`` to the end).
    A message that holds the observation nowhere gives the whole text and no frames."""
    if observation is None or not shown:
        return 0, len(shown), []
    if not observation.strip():
        return 0, 0, [Frame(0, len(shown), "frame")]
    pos = _observation_at(shown, observation)
    if pos >= 0:
        end = pos + len(observation)
        return pos, end, [Frame(0, pos, "frame"), Frame(end, len(shown), "frame")]
    cut = shown.find(SWE_CLIP_NOTE)
    if cut > 0:
        for start in range(min(cut, 1000)):  # the template's prefix is short
            if observation.startswith(shown[start:cut]):
                return start, cut, [Frame(0, start, "frame"), Frame(cut, len(shown), "clip")]
    return 0, len(shown), []


def _observation_at(shown: str, observation: str) -> int:
    """Where the template put the observation: first (0.7's ``{observation}\n(Open file: ...``) or last (1.x's
    ``Observation: {{observation}}``) when the text is so shaped, else its first occurrence (a short
    observation can also occur inside the template's words)."""
    if shown.startswith(observation) and shown[len(observation) : len(observation) + 1] in ("", "\n"):
        return 0
    if shown.endswith(observation):
        return len(shown) - len(observation)
    return shown.find(observation)


_SWE_HEADER = re.compile(r"\[File: (?P<path>[^\n]*?) \((?P<total>\d+) lines total\)\]")
_SWE_NUMBERED = re.compile(r"(\d+):")


@dataclass(frozen=True)
class SweWindow:
    """What SWE-agent's windowed viewer showed (``_print`` in config/commands/defaults.sh @ v0.7.0,
    ``WindowedFile.get_window_text`` in tools/windowed/lib/windowed_file.py @ 1.x): ``[File: PATH (N lines
    total)]``, ``(M more lines above)``, ``N:text`` lines, ``(K more lines below)``."""

    path: str
    """The file as the header names it (0.7: its ``realpath``)."""
    first: int | None
    """The first line number shown (1-based), ``None`` when the window showed no line."""
    last: int | None
    """The last line number shown."""
    frames: tuple[Frame, ...]
    """The header, the ``more lines`` notes, and the tool's other words before, between and after windows
    (``open``'s warnings, ``scroll``'s warning)."""


def swe_agent_window(shown: str, start: int, end: int) -> SweWindow | None:
    """The window(s) SWE-agent's viewer printed in ``shown[start:end]`` (0.7's ``scroll_down`` prints two), or
    ``None`` when there is no ``[File: ...]`` header. Numbered lines after a header are the file's text; every
    other line is the tool's."""
    path: str | None = None
    frames: list[Frame] = []
    numbers: list[int] = []
    for s, body, stop in _line_spans(shown, start, end):
        # a numbered line opens with a digit, a header with "[", a "more lines" note with "(": tried first, the
        # most common line is no header and no note
        if path is not None and (numbered := _SWE_NUMBERED.match(shown, s, body)):
            numbers.append(int(numbered.group(1)))
            continue
        header = _SWE_HEADER.fullmatch(shown, s, body)
        if header is not None:
            path = header.group("path") if path is None else path
        frames.append(Frame(s, stop, "frame"))
    if path is None:
        return None
    return SweWindow(path, min(numbers, default=None), max(numbers, default=None), merged(frames))


_SWE_FOUND = re.compile(r'Found \d+ matches for ".*" in (?P<where>.*):')
_SWE_END = re.compile(r'End of matches for ".*" in .*')
_SWE_EMPTY = re.compile(
    r'No matches found for ".*" in .*|More than \d+ (?:files|lines) matched for ".*" in .*\. Please narrow your '
    r"search\.|Directory .* not found|Usage: .*|Error: .*|No file open\. Use the `?open`? command first\."
)
_SWE_MATCH_COUNT = re.compile(r" \(\d+ matches\)$")
_SWE_MATCH_LINE = re.compile(r"Line \d+:")


def swe_agent_search(shown: str, start: int, end: int) -> tuple[str | None, tuple[Frame, ...]]:
    """The file or folder a SWE-agent search tool reports on (``search_dir``, ``search_file``, ``find_file`` in
    config/commands/search.sh @ v0.7.0 and tools/search/bin/ @ 1.x), and the tool's words in
    ``shown[start:end]``: the ``Found N matches for "TERM" in WHERE:`` and ``End of matches ...`` lines, the
    empty-result and usage messages, ``search_dir``'s `` (N matches)`` after each path and ``search_file``'s
    ``Line N:`` before each line. What is left is one path a line (``search_dir``, ``find_file``) or the
    matching lines of one file, each on its own (``search_file``)."""
    where: str | None = None
    frames: list[Frame] = []
    for s, body, stop in _line_spans(shown, start, end):
        line = shown[s:body]
        found = _SWE_FOUND.fullmatch(line)
        if found is not None:
            where = where if where is not None else found.group("where")
            frames.append(Frame(s, stop, "frame"))
        elif _SWE_END.fullmatch(line) or _SWE_EMPTY.fullmatch(line):
            frames.append(Frame(s, stop, "frame"))
        elif (count := _SWE_MATCH_COUNT.search(line)) is not None:
            frames.append(Frame(s + count.start(), body, "frame"))
        elif (number := _SWE_MATCH_LINE.match(line)) is not None:
            frames.append(Frame(s, s + number.end(), "frame"))
    return where, merged(frames)


_SWE_TRAILER = re.compile(
    r"\n(?:EXECUTION TIMED OUT(?: AND INTERRUPT FAILED\. RESTARTING PROCESS\.| BECAUSE [^\n]*)"
    r"(?:\nPLEASE REFINE [^\n]*)?|COMMAND FAILED TO EXECUTE\. RESTARTING PROCESS\.|BROKEN PIPE ERROR\. "
    r"RESTARTING PROCESS\.|EXECUTION FAILED OR COMMAND MALFORMED|COMMAND PRODUCED TOO MANY NON-UNICODE "
    r"CHARACTERS\. PLEASE TRY ANOTHER COMMAND\.\nIF YOU WANT TO VIEW BINARY FILES, PLEASE USE `xxd` OR "
    r"`hexdump` INSTEAD\.\n)\Z"
)
"""What SWE-agent 0.7's ``SWEEnv.step`` appends to an observation when a command timed out or failed
(sweagent/environment/swe_env.py @ v0.7.0)."""
_SWE_NOTE_END = "</NOTE>"


def swe_agent_notices(shown: str, start: int, end: int) -> list[Frame]:
    """SWE-agent's notices inside an observation: ``str_replace_editor``'s ``<response clipped><NOTE>...</NOTE>``
    (a ``clip``: the file went on) and 0.7's timeout and failure lines at the end."""
    found: list[Frame] = []
    cut = shown.find(SWE_CLIP_NOTE, start, end)
    if cut >= 0:
        close = shown.find(_SWE_NOTE_END, cut, end)
        found.append(Frame(cut, close + len(_SWE_NOTE_END) if close >= 0 else end, "clip"))
    if (m := _SWE_TRAILER.search(shown[start:end])) is not None:
        found.append(Frame(start + m.start(), end, "frame"))
    return found


# ---------------------------------------------------------------------------------------------------------
# mini-swe-agent's observation messages

_MINI_HEAD = re.compile(
    r"(?:<exception>.*?</exception>\n)?<returncode>(?P<code>-?\d+)</returncode>\n"
    r"(?:(?P<short><output>\n)|(?P<long><warning>\n.*?\n</warning><output_head>\n))",
    re.DOTALL,
)
_MINI_MARKER = re.compile(
    r"\n</output_head>\n<elided_chars>\n\d+ characters elided\n</elided_chars>\n<output_tail>\n"
)
_MINI_TIMEOUT = re.compile(
    r"The last command <command>.*?</command> timed out and has been killed\.\n"
    r"The output of the command was:\n <output>\n",
    re.DOTALL,
)
_MINI_TIMEOUT_END = (
    "\n</output>\nPlease try another command and make sure to avoid those requiring interactive input."
)
MINI_HEAD_CHARS = 5000
"""Characters of a long output mini-swe-agent keeps before its elision marker (its templates'
``output.output[:5000]``)."""


@dataclass(frozen=True)
class MiniReply:
    """An observation message of mini-swe-agent as its templates render it."""

    frames: tuple[Frame, ...]
    """The ``<exception>``, ``<returncode>``, ``<output>`` / ``<warning>`` / ``<output_head>`` wrappers, the
    elision marker (a ``clip``), the timeout template's words."""
    clipped: bool
    """The output was cut to its head and tail."""
    returncode: int | None
    """The ``<returncode>`` shown; ``None`` for the timeout template (1.x), which shows none."""
    timed_out: bool
    """The 1.x timeout template: the command was killed."""


def mini_swe_agent_reply(shown: str) -> MiniReply | None:
    """The frames of a mini-swe-agent observation (``observation_template`` of config/default.yaml and
    benchmarks/swebench.yaml @ 2.x, ``action_observation_template`` and ``timeout_template`` @ 1.x); ``None``
    when the text has none of their shapes (a custom template: the JSON one of config/mini.yaml)."""
    if (m := _MINI_HEAD.match(shown)) is not None:
        code = int(m.group("code"))
        if m.group("short") is not None:
            if not shown.endswith("</output>"):
                return None
            return MiniReply(
                (Frame(0, m.end(), "frame"), Frame(len(shown) - 9, len(shown), "frame")), False, code, False
            )
        close = "\n</output_tail>"
        if not shown.endswith(close):
            return None
        at = m.end() + MINI_HEAD_CHARS
        marker = _MINI_MARKER.match(shown, at) or _MINI_MARKER.search(shown, m.end())
        frames = [Frame(0, m.end(), "frame"), Frame(len(shown) - len(close), len(shown), "frame")]
        if marker is not None:
            frames.insert(1, Frame(marker.start(), marker.end(), "clip"))
        return MiniReply(tuple(frames), True, code, False)
    if (m := _MINI_TIMEOUT.match(shown)) is not None and shown.endswith(_MINI_TIMEOUT_END):
        end = len(shown) - len(_MINI_TIMEOUT_END)
        return MiniReply((Frame(0, m.end(), "frame"), Frame(end, len(shown), "frame")), False, None, True)
    return None


# ---------------------------------------------------------------------------------------------------------
# A terminal pane after a batch of keystrokes (Harbor's Terminus 2)

_TERMINAL_OPENINGS = re.compile(
    r"Current terminal state:\n"
    r"|New Terminal Output:\n"
    r"|Current Terminal Screen:\n"
    r"|Previous response had warnings:\n(?:[^\n]+\n)*\n"
    r"|Previous command:\n[\s\S]*?\nThe previous command timed out after [\d.]+ seconds\n\n"
    r"[\s\S]*?Here is the current state of the terminal:\n\n"
)
"""What Terminus 2 (harbor ``agents/terminus_2/terminus_2.py``) puts before the pane's text: the completion
check's ``Current terminal state:``, a warnings block, the timeout template (``templates/timeout.txt``), and
``TmuxSession.get_incremental_output``'s ``New Terminal Output:`` / ``Current Terminal Screen:``."""
_TERMINAL_TRAILER = re.compile(r"\n\nAre you sure you want to mark the task as complete\? [^\n]*$")
"""``_get_completion_confirmation_message``'s question after the pane."""
TERMINAL_CLIP = re.compile(r"\n\[\.\.\. output limited to \d+ bytes; \d+ interior bytes omitted \.\.\.\]\n")
"""Terminus 2's ``_limit_output_length`` marker (10000 bytes: the first and last 5000 kept)."""
_PROMPT = re.compile(
    r"^(?:\([^()\n]*\) )?(?:[\w.-]+@[\w.-]+:(?P<cwd>[^\n#$]*)|(?:bash|sh)-\d+(?:\.\d+)*)[#$](?: |$)", re.M
)
"""A shell prompt at the start of a pane line: bash's default ``user@host:cwd# `` (a virtualenv's ``(name) ``
in front) or ``bash-5.2# ``."""


def terminal_cwd(shown: str) -> str | None:
    """The directory in the pane's first prompt (``root@host:/app#``), when it is an absolute path."""
    m = _PROMPT.search(shown)
    cwd = m.group("cwd") if m else None
    return cwd if cwd and cwd.startswith("/") else None


def _echo(shown: str, pos: int, text: str, end: int) -> int | None:
    """Where the pane's echo of the typed ``text`` ends when it starts at ``pos``: the pane wraps long lines
    (a newline may come before any character) and shows ``> `` after a newline typed inside a command."""
    if "\n" not in text and shown.startswith(text, pos, end):  # echoed whole on one row: the loop's answer
        return pos + len(text)
    i = 0
    n = len(text)
    while i < n:
        if pos >= end:
            return None
        # the characters before the next newline of either text (or the end): equal, or no echo; compared in C
        t_nl = text.find("\n", i)
        s_nl = shown.find("\n", pos, end)
        run = min(n if t_nl < 0 else t_nl, i + (end if s_nl < 0 else s_nl) - pos) - i
        if run > 0:
            if not shown.startswith(text[i : i + run], pos):
                return None
            pos += run
            i += run
            continue
        ch = text[i]
        if shown[pos] == ch:
            pos += 1
            if ch == "\n" and shown.startswith("> ", pos):
                pos += 2
            i += 1
        elif shown[pos] == "\n":
            pos += 1  # the pane wrapped the line here
        else:
            return None
    return pos


def terminal_parts(
    shown: str, lines: list[str], *, clipped: bool
) -> tuple[tuple[Action, ...], tuple[Frame, ...]]:
    """A terminal pane after keystrokes: its frames (Terminus 2's words before and after the pane, its clip
    marker, every prompt line with the command echoed on it) and, for each typed command line found echoed
    after a prompt (with the ``> `` continuation lines that follow it, a heredoc's body), a ``shell`` part
    whose output is the text up to the next prompt. ``lines`` are the command lines typed, in order; lines
    never found echoed (typed into a program, or scrolled away) get no part."""
    status = status_start(shown)
    start = 0
    while m := _TERMINAL_OPENINGS.match(shown, start):
        start = m.end()
    trailer = _TERMINAL_TRAILER.search(shown, start, status)
    end = trailer.start() if trailer else status
    found: list[Frame] = [Frame(0, start, "frame")] if start else []
    if clipped or shown.find("[... output limited", start, end) >= 0:
        found += [Frame(m.start(), m.end(), "clip") for m in TERMINAL_CLIP.finditer(shown, start, end)]
    prompts = [(m.start(), m.end()) for m in _PROMPT.finditer(shown, start, end)]
    queue = [line for line in lines if line.strip()]
    parts: list[Action] = []
    head = 0
    for k, (line_start, typed_at) in enumerate(prompts):
        nl = shown.find("\n", typed_at, end)
        line_end = end if nl < 0 else nl + 1
        match = None
        for i in range(head, len(queue)):
            e = _echo(shown, typed_at, queue[i], end)
            if e is not None and (e == end or shown[e] == "\n"):
                match = i, e
                break
        if match is None:  # an empty prompt, or an echo of something not typed in this batch
            found.append(Frame(line_start, line_end, "frame"))
            continue
        i, e = match
        command = [queue[i]]
        head = i + 1
        pos = min(e + 1, end)
        while head < len(queue) and shown.startswith("> ", pos):
            e = _echo(shown, pos + 2, queue[head], end)
            if e is None or (e < end and shown[e] != "\n"):
                break
            command.append(queue[head])
            head += 1
            pos = min(e + 1, end)
        found.append(Frame(line_start, pos, "frame"))
        out_end = prompts[k + 1][0] if k + 1 < len(prompts) else end
        parts.append(Action("shell", command="\n".join(command), output=(pos, max(pos, out_end))))
    if trailer:
        found.append(Frame(trailer.start(), status, "frame"))
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return tuple(parts), merged(found)


def has_clip_marker(shown: str) -> bool:
    """Whether ``shown`` holds a clip marker of a harness rtlab knows (Codex, OpenHands, Terminus 2): the
    log already holds the cut output."""
    if TERMINAL_CLIP.search(shown):
        return True
    return bool(_markers(shown, 0, len(shown)))


# ---------------------------------------------------------------------------------------------------------
# Inspect AI: the max_tool_output wrapper, the editor's clip notice, bash_session's terminal

_INSPECT_HEAD = re.compile(
    r"\n?(?P<indent> *)The output of your call to [^\n]* was too long to be displayed\.\n"
    r" *Here is a truncated version:\n *<START_TOOL_OUTPUT>\n"
)
_INSPECT_END = re.compile(r"\n *<END_TOOL_OUTPUT>\n?\Z")


def inspect_truncation(
    shown: str, *, middle: bool = True, limit: int | None = None
) -> tuple[tuple[int, int], tuple[Frame, ...]] | None:
    """The body span and the frames of Inspect's ``max_tool_output`` wrapper, or ``None`` when ``shown`` is not
    wrapped.

    ``truncate_tool_output`` (inspect_ai/model/_call_tools.py) puts an over-long string result (16 KiB by
    default) inside ``The output of your call to TOOL was too long to be displayed.`` / ``Here is a truncated
    version:`` / ``<START_TOOL_OUTPUT>`` ... ``<END_TOOL_OUTPUT>``. ``truncate_string_to_bytes``
    (inspect_ai/_util/text.py) keeps the first ``limit`` bytes up to 0.3.116 (``middle`` false: the trailer
    is the clip, the body's last line is cut) and the first ``limit // 2`` and last ``limit - limit // 2``
    bytes from 0.3.117 on (``middle``: a zero-width clip where they meet, ``limit`` defaulting to the body's
    UTF-8 size, which it equals for ASCII text). Before 0.3.58 the wrapper was dedented after the body was put
    in, so its lines (and the body's first line) keep their indentation, and it had no final newline.
    """
    head = _INSPECT_HEAD.match(shown)
    if head is None:
        return None
    end = _INSPECT_END.search(shown, head.end())
    if end is None:
        return None
    start = head.end()
    indent = head.group("indent")
    if indent and shown.startswith(indent, start) and start + len(indent) <= end.start():
        start += len(indent)  # before 0.3.58 the body's first line carries the wrapper's indentation
    frames = [Frame(0, start, "frame")]
    if middle:
        body = shown[start : end.start()].encode("utf-8", "surrogatepass")
        half = (limit if limit is not None and limit > 0 else len(body)) // 2
        cut = start + len(body[:half].decode("utf-8", "ignore"))
        if start < cut < end.start():
            frames.append(Frame(cut, cut, "clip"))
        frames.append(Frame(end.start(), len(shown), "frame"))
    else:
        frames.append(Frame(end.start(), len(shown), "clip"))
    return (start, end.start()), tuple(frames)


_EDITOR_CLIPPED = re.compile(r"<response clipped><NOTE>[^\n]*?</NOTE>")
"""The notice an Anthropic-style editor appends where it cut a view at 16,000 characters (``maybe_truncate``,
inspect_sandbox_tools/_in_process_tools/_text_editor/_run.py)."""


def editor_clip_frames(shown: str, start: int = 0, end: int | None = None) -> list[Frame]:
    """``clip`` frames over the editor's ``<response clipped><NOTE>...</NOTE>`` notices in ``[start, end)``."""
    stop = len(shown) if end is None else end
    if shown.find("<response clipped>", start, stop) < 0:
        return []
    return [Frame(m.start(), m.end(), "clip") for m in _EDITOR_CLIPPED.finditer(shown, start, stop)]


_SESSION_NOTICE = re.compile(
    r"\n?\[inspect_sandbox_tools: bash_session output exceeded [^\]\n]*; showing the tail; \d+ bytes omitted\]\n"
    r"|\[\d+ bytes omitted\]\n|\[output truncated\]\n"
)
_SESSION_PROMPT = re.compile(r"(?:\([^()\n]{1,80}\) )?(?:[\w.-]+@[\w.-]+:[^\n$#]{0,200}|bash-[\d.]+)?[$#] ")
"""An interactive bash's prompt (``root@host:/repo# ``, ``bash-5.2$ ``, ``(venv) user@host:~$ ``, ``$ ``)."""


def session_frames(shown: str, typed: str | None, start: int = 0, end: int | None = None) -> list[Frame]:
    """Inspect ``bash_session``'s terminal words in ``[start, end)``: the notice that it kept only the tail
    (``_truncation_notice`` in inspect_sandbox_tools/_remote_tools/_bash_session/_process.py, a ``clip``), the
    terminal's echo of the line typed, and the shell's prompt left after the output (an interactive ``bash -i``
    on a pseudo-terminal)."""
    stop = len(shown) if end is None else end
    frames: list[Frame] = []
    pos = start
    if m := _SESSION_NOTICE.match(shown, pos, stop):
        frames.append(Frame(m.start(), m.end(), "clip"))
        pos = m.end()
    line = (typed or "").rstrip("\n")
    if line and "\n" not in line and shown.startswith(line, pos):
        after = pos + len(line)
        nl = shown.find("\n", after, stop)
        if nl >= 0 and not shown[after:nl].strip("\r"):
            frames.append(Frame(pos, nl + 1, "frame"))
            pos = nl + 1
    last = max(pos, shown.rfind("\n", pos, stop) + 1)
    if last < stop and _SESSION_PROMPT.fullmatch(shown, last, stop):
        frames.append(Frame(last, stop, "frame"))
    return frames


# ---------------------------------------------------------------------------------------------------------
# Terminal-Bench's keystrokes (asciinema casts) and Aider's words (Aider chat histories)

TERMINAL_BENCH_WAIT = "; tmux wait -S done"
"""What Terminal-Bench's ``TmuxSession`` appends to a blocking command line (``_TMUX_COMPLETION_COMMAND`` in
terminal_bench/terminal/tmux_session.py) so that it can wait for it: the harness's, not the command's."""


def terminal_bench_command(command: str) -> str:
    """A command line typed into a Terminal-Bench pane less the harness's ``; tmux wait -S done``."""
    stripped = command.rstrip()
    if stripped.endswith(TERMINAL_BENCH_WAIT):
        return stripped[: -len(TERMINAL_BENCH_WAIT)].rstrip()
    return command


def aider_frames(shown: str, *, fed_back: bool) -> tuple[Frame, ...]:
    """Frames of an Aider step's text: Aider's own line about an applied edit (``Applied edit to PATH``) is its
    words through and through; the error of an edit that failed, which Aider sends the model as it is
    (``reflected_message = str(err)`` in aider/coders/base_coder.py ``apply_updates``), is not framed
    (``fed_back``): it is what the model was shown."""
    return () if fed_back else whole(shown)


# ---------------------------------------------------------------------------------------------------------
# Search results printed under a heading per file (Gemini CLI's grep_search, OpenCode's grep, Cline's
# search_files): the file's name on a line of its own, its matching lines below it, each after a prefix


@dataclass(frozen=True)
class HeadingSearch:
    """How one harness's search tool prints its matches under a heading per file."""

    file: re.Pattern[str]
    """A line naming a file (group ``path``): the heading of the lines below it."""
    prefix: re.Pattern[str]
    """The tool's words before each result line (``L12: ``, ``  Line 12: ``, ``│``)."""
    words: re.Pattern[str]
    """A whole line that is the tool's own words (a header, a separator, a note)."""
    line: re.Pattern[str] = field(init=False, repr=False, compare=False)
    """The three in one pattern, tried in that order on a line: the whole line as ``words`` (group
    ``_words``), the whole line as ``file`` (group ``_file``), or ``prefix`` at its start (group ``_prefix``)."""

    def __post_init__(self) -> None:
        if len({self.file.flags, self.prefix.flags, self.words.flags}) != 1:
            raise ValueError("a heading search's patterns must share their flags")
        line = (
            rf"(?:{self.words.pattern})\Z(?P<_words>)|(?:{self.file.pattern})\Z(?P<_file>)"
            rf"|(?:{self.prefix.pattern})(?P<_prefix>)"
        )
        object.__setattr__(self, "line", re.compile(line, self.file.flags))


def heading_search(
    shown: str, rules: HeadingSearch, start: int = 0, end: int | None = None, *, frames: bool = True
) -> tuple[list[str], list[Frame]]:
    """The files a heading-layout search result names, in order, and the tool's words as frames: headings,
    headers, separators and notes whole, the prefix of each result line. What is left is the files' lines as
    the search printed them (a context line included). With ``frames=False`` the files alone (no frame
    made: a reader's action needs the names, :func:`gemini_frames` and its kin the frames)."""
    stop = len(shown) if end is None else end
    files: list[str] = []
    found: list[Frame] = []
    match = rules.line.match
    for s, body, line_end in _line_spans(shown, start, stop):
        m = match(shown[s:body])  # a line of its own: the patterns' ends and look-arounds are the line's
        if m is None:
            continue
        kind = m.lastgroup
        if kind == "_file":
            files.append(m.group("path"))
        if not frames:
            continue
        if kind == "_prefix":
            found.append(Frame(s, s + m.end(), "frame"))
        else:
            found.append(Frame(s, line_end, "frame"))
    return files, found


# ---------------------------------------------------------------------------------------------------------
# Gemini CLI's words in tool results (google-gemini/gemini-cli packages/core/src/tools/: shell.ts, read-file.ts,
# grep.ts / ripGrep.ts, glob.ts, ls.ts; utils/fileUtils.ts for the truncation of large outputs; context/
# toolOutputMaskingService.ts for outputs masked later in the session)

GeminiTool = Literal["shell", "read", "grep", "glob", "ls", "other"]
"""Which Gemini CLI tool's result :func:`gemini_frames` frames."""

_GEMINI_TOO_LARGE = re.compile(
    r"Output too large\. Showing (?:the )?first [\d,]+ and last [\d,]+ characters\.\s*"
    r"For full output see: [^\n]*\n"
)
"""``formatTruncatedToolOutput``: the header of an output cut to its head and tail (the full one saved)."""
_GEMINI_OMITTED = re.compile(r"\n*\.\.\. \[[\d,]+ (?:characters|lines) omitted\] \.\.\.\n*")
"""Where a too-large output was cut between its head and its tail."""
_GEMINI_WHOLE = re.compile(
    r"\[Operation Cancelled\][^\n]*|Command was cancelled by user before it could start\."
    r"|Command moved to background \(PID: \d+\)\.[^\n]*|Command (?:was cancelled by user before it could "
    r"complete|was automatically cancelled because it exceeded the timeout of [\d.]+ minutes without output"
    r"|execution timed out and was cancelled)\. There was no output before it was cancelled\."
    r"|No matches found for pattern [^\n]*|No files found matching pattern [^\n]*|Directory [^\n]* is empty\."
)
"""Results that are Gemini CLI's words through and through: a cancelled or backgrounded command, an empty
search, glob or listing."""
_GEMINI_CANCELLED_HEAD = re.compile(
    r"Command (?:was cancelled by user before it could complete|was automatically cancelled because it "
    r"exceeded the timeout of [\d.]+ minutes without output|execution timed out and was cancelled)\. Below is "
    r"the output (?:\(on stdout and stderr\) )?before it was cancelled:\n"
)
_GEMINI_SHELL_TRAILER = re.compile(r"(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*")
"""The lines ``shell.ts`` puts after a command's output (every one in 2025's versions, only those that say
something in 2026's)."""
GEMINI_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)$", re.M)
_GEMINI_READ_HEAD = re.compile(
    r"\n?IMPORTANT: The file content has been truncated\.\n(?:Status: [^\n]*\n)?(?:\[SYSTEM SUGGESTION\][^\n]*\n)?"
    r"(?:Action: [^\n]*\n)?\n?--- FILE CONTENT \(truncated\) ---\n"
)
"""``read_file``'s header before a window of a file (``start_line``/``end_line`` in 2026, ``offset``/``limit``
before)."""
_GEMINI_SHOWING = re.compile(r"Showing lines (\d+)-(\d+) of \d+ total lines")
GEMINI_GREP = HeadingSearch(
    file=re.compile(r"File: (?P<path>.+)"),
    prefix=re.compile(r"L\d+[:-] "),
    words=re.compile(r"Found \d+ (?:match(?:es)?|files with matches) for pattern .*:|---|\([^\n]*\)"),
)
"""``grep_search`` (``search_file_content`` before 2026): ``Found N matches for pattern "P" in ...:``, ``---``
between files, ``File: PATH``, then ``L12: text`` (``L12- text`` for context lines)."""
_GEMINI_GLOB_HEAD = re.compile(r"Found \d+ file\(s\) matching [^\n]*:\n")
_GEMINI_LS_HEAD = re.compile(r"Directory listing for (?P<dir>[^\n]*):\n")
_GEMINI_LS_DIR = re.compile(r"\[DIR\] ")
_GEMINI_LS_SIZE = re.compile(r" \(\d+ bytes\)")
_GEMINI_NOTE = re.compile(r"\n\n\([^\n]*\)\s*\Z")
"""A parenthesised note after a listing (``(2 ignored)``, ``(N additional files were git-ignored)``)."""


def gemini_read_window(shown: str) -> tuple[int, int] | None:
    """``(first line, number of lines)`` of the window ``read_file``'s header says it shows."""
    head = _GEMINI_READ_HEAD.match(shown)
    m = _GEMINI_SHOWING.search(shown, 0, head.end()) if head else None
    if m is None:
        return None
    first, last = int(m.group(1)), int(m.group(2))
    return first, max(last - first + 1, 0)


def gemini_ls_folder(shown: str) -> str | None:
    """The folder ``list_directory``'s header names."""
    m = _GEMINI_LS_HEAD.match(shown)
    return m.group("dir") if m else None


def gemini_frames(shown: str, *, tool: GeminiTool) -> tuple[Frame, ...]:
    """Gemini CLI's words in a tool result the model received: a result that is nothing but its words (and an
    output masked later in the session, which holds an escaped excerpt only), the header of a too-large output
    and the marker where it was cut; per tool the shell frame (``Command:``/``Directory:`` and ``Output:`` /
    ``Stdout:``/``Stderr:`` labels, ``(empty)``, the ``Error``/``Exit Code``/``Signal``/``Background PIDs``/
    ``Process Group PGID`` lines, a cancellation notice), ``read_file``'s window header, the grep layout's
    header, separators, ``File:`` headings and ``L12:`` prefixes, glob's header, the listing's header, ``[DIR]``
    marks and sizes; and a recorded tab run's status line."""
    status = status_start(shown)
    core = shown[:status].strip()
    if shown.startswith("<tool_output_masked>") or (core and _GEMINI_WHOLE.fullmatch(core)):
        return whole(shown)
    found: list[Frame] = []
    pos = 0
    if m := _GEMINI_TOO_LARGE.match(shown, 0, status):
        found.append(Frame(0, m.end(), "frame"))
        pos = m.end()
        if shown.find("] ...", pos, status) >= 0:  # in every marker: the regex opens with newlines
            found += [Frame(c.start(), c.end(), "clip") for c in _GEMINI_OMITTED.finditer(shown, pos, status)]
    if tool == "shell":
        found += _gemini_shell(shown, pos, status)
    elif tool == "read" and (m := _GEMINI_READ_HEAD.match(shown, pos, status)):
        found.append(Frame(pos, m.end(), "frame"))
    elif tool == "grep":
        found += heading_search(shown, GEMINI_GREP, pos, status)[1]
    elif tool == "glob" and (m := _GEMINI_GLOB_HEAD.match(shown, pos, status)):
        found.append(Frame(pos, m.end(), "frame"))
    elif tool == "ls" and (m := _GEMINI_LS_HEAD.match(shown, pos, status)):
        found.append(Frame(pos, m.end(), "frame"))
        for s, body, _ in _line_spans(shown, m.end(), status):
            if d := _GEMINI_LS_DIR.match(shown, s, body):
                found.append(Frame(s, d.end(), "frame"))
            if (z := _GEMINI_LS_SIZE.search(shown, s, body)) and z.end() == body:
                found.append(Frame(z.start(), body, "frame"))
    if tool in ("glob", "ls") and (n := _GEMINI_NOTE.search(shown, pos, status)):
        found.append(Frame(n.start(), status, "frame"))
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return merged(found)


def _gemini_shell(shown: str, start: int, end: int) -> list[Frame]:
    """``run_shell_command``'s frame around a command's output in ``shown[start:end]``."""
    found: list[Frame] = []
    pos = start
    if shown.startswith("Command: ", pos) and (d := shown.find("\nDirectory: ", pos, end)) >= 0:
        nl = shown.find("\n", d + 1, end)
        stop = nl + 1 if nl >= 0 else end
        found.append(Frame(pos, stop, "frame"))
        pos = stop
    if m := _GEMINI_CANCELLED_HEAD.match(shown, pos, end):
        found.append(Frame(pos, m.end(), "frame"))
        return found
    stop = end  # the trailer: the known lines at the end, after the output
    while (nl := shown.rfind("\n", pos, stop)) >= 0 and _GEMINI_SHELL_TRAILER.fullmatch(shown, nl + 1, stop):
        stop = nl
    if stop < end:
        found.append(Frame(stop, end, "frame"))
    labels = ("Output: ", "Stdout: ")
    label = next((w for w in labels if shown.startswith(w, pos)), None)
    if label is None:
        return found
    found.append(Frame(pos, pos + len(label), "frame"))
    pos += len(label)
    pieces = [(pos, stop)]
    if label == "Stdout: " and (err := shown.rfind("\nStderr: ", pos, stop)) >= 0:
        found.append(Frame(err, err + len("\nStderr: "), "frame"))
        pieces = [(pos, err), (err + len("\nStderr: "), stop)]
    for s, e in pieces:
        if shown[s:e] == "(empty)":
            found.append(Frame(s, e, "frame"))
    return found


# ---------------------------------------------------------------------------------------------------------
# Cline's and Roo Code's words in tool results (cline/cline src/core/prompts/responses.ts ``formatResponse``,
# src/core/task/tools/handlers/ExecuteCommandToolHandler.ts, src/services/ripgrep/index.ts ``formatResults``;
# RooCodeInc/Roo-Code src/core/tools/readFileTool.ts for its ``<files>`` reply)

ClineTool = Literal["shell", "read", "list", "search", "other"]
"""Which Cline tool's result :func:`cline_frames` frames."""

CLINE_FAILED = re.compile(
    r"The user denied this operation\..*|The tool execution failed with the following error:\n<error>.*"
    r"|Tool \[[^\]\n]*\] was not executed because .*|Skipping tool .* due to user rejecting a previous tool\.?"
    r"|Access to .* is blocked by the \.clineignore file settings\..*|Missing value for required parameter .*",
    re.S,
)
"""A result that says the call did not run or failed: a denial, an error, a tool skipped or blocked."""
_CLINE_WHOLE = re.compile(
    r"\[\[NOTE\] This file read has been removed to save space in the context window\.[^\n]*\]|No files found\."
    r"|Found 0 results\.|Command executed\.|\(tool did not return anything\)"
)
"""Results that are Cline's words through and through (with :data:`CLINE_FAILED`)."""
_CLINE_COMMAND_HEAD = re.compile(
    r"Command executed\.\nOutput:\n|Command is still running in the user's terminal\.\nHere's the output so far:\n"
)
_CLINE_COMMAND_TAIL = re.compile(
    r"\n\nYou will be updated on the terminal status and new output in the future\.\s*\Z"
    r"|\n\nThe user provided the following feedback:\n<feedback>\n.*\Z",
    re.S,
)
_CLINE_LIST_TAIL = re.compile(
    r"\n\n\(File list truncated\. Use list_files on specific subdirectories if you need to explore further\.\)\s*\Z"
)
_CLINE_LOCK = "\U0001f512 "
"""``LOCK_TEXT_SYMBOL`` before a listed file that ``.clineignore`` blocks."""
CLINE_SEARCH = HeadingSearch(
    file=re.compile(r"(?P<path>[^│\s][^\n]*)"),
    prefix=re.compile(r"│"),
    words=re.compile(r"Found [\d,]+ results?\.|Showing first [\d,]+ of [\d,]+\+ results\.[^\n]*|│----|\s*"),
)
"""``search_files``: ``Found N results.``, then per file its path (relative to the working folder), ``│----``,
and each line of a match with its context after ``│``."""
ROO_FILES = HeadingSearch(
    file=re.compile(r"<file><path>(?P<path>[^<\n]*)</path>"),
    prefix=re.compile(r" *\d+ \| "),
    words=re.compile(r'</?files>|<content(?: lines="[\d-]+")?>|</content>|</file>|<notice>.*</notice>|\s*'),
)
"""Roo Code's ``read_file`` reply: ``<files><file><path>P</path>\\n<content lines="1-20">\\n 1 | text ...``."""


def cline_frames(shown: str, *, tool: ClineTool) -> tuple[Frame, ...]:
    """Cline's (and Roo Code's) words in a tool result: a result that is nothing but its words (a denial, an
    error, a skipped tool, an empty listing or search, the notice that an old read was removed), the header and
    trailer ``execute_command`` puts round a command's output, ``list_files``'s truncation note and lock marks,
    ``search_files``'s header, separators, file headings and ``│`` prefixes, Roo Code's ``<files>`` wrapper and
    line-number prefixes; and a recorded tab run's status line."""
    status = status_start(shown)
    core = shown[:status].strip()
    if core and (CLINE_FAILED.fullmatch(core) or _CLINE_WHOLE.fullmatch(core)):
        return whole(shown)
    found: list[Frame] = []
    if tool == "shell":
        head = _CLINE_COMMAND_HEAD.match(shown, 0, status)
        start = head.end() if head else 0
        if head:
            found.append(Frame(0, start, "frame"))
        if tail := _CLINE_COMMAND_TAIL.search(shown, start, status):
            found.append(Frame(tail.start(), status, "frame"))
    elif tool == "read" and shown.startswith("<files>"):
        found += heading_search(shown, ROO_FILES, 0, status)[1]
    elif tool == "list":
        if tail := _CLINE_LIST_TAIL.search(shown, 0, status):
            found.append(Frame(tail.start(), status, "frame"))
        found += [Frame(s, s + len(_CLINE_LOCK), "frame") for s, _, _ in _line_spans(shown, 0, status)
                  if shown.startswith(_CLINE_LOCK, s)]  # fmt: skip
    elif tool == "search":
        found += heading_search(shown, CLINE_SEARCH, 0, status)[1]
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return merged(found)


# ---------------------------------------------------------------------------------------------------------
# OpenCode's words in tool results (sst/opencode, now anomalyco/opencode, packages/opencode/src/tool/: read.ts,
# grep.ts, glob.ts, bash.ts; tool/truncation.ts for outputs cut at 2000 lines / 50 KB)

OpenCodeTool = Literal["shell", "read", "grep", "glob", "other"]
"""Which OpenCode tool's result :func:`opencode_frames` frames."""

_OC_READ_HEAD = re.compile(r"<path>(?P<path>[^\n]*)</path>\n<type>(?P<type>file|directory)</type>\n<(?:content|entries)>\n?"
                           r"|<file>\n")  # fmt: skip
"""``read``'s opening: ``<path>P</path>``, ``<type>file</type>`` (or ``directory``), ``<content>`` (or
``<entries>``); before 2026, ``<file>``."""
_OC_READ_LINE = re.compile(r"\d+: |\d{5}\| ")
"""The line number before each line of a file read (``12: `` now, ``00012| `` before)."""
_OC_READ_LINES = re.compile(r"\n(?:\d+: |\d{5}\| )")
"""The same after a newline: found in a whole text by the newlines (a number holds no ``\\r`` or ``\\n``)."""
_OC_READ_TAIL = re.compile(
    r"\n*\((?:End of file - total \d+ lines|Showing lines \d+-\d+ of \d+\. Use offset=\d+ to continue\."
    r"|Output capped at [^)\n]*|File has more lines\. Use 'offset' parameter to read beyond line \d+"
    r"|Showing \d+ of \d+ entries\.[^)\n]*|\d+ entries)\)\n(?:</content>|</file>|</entries>)"
    r"(?:\n\n<system-reminder>.*</system-reminder>)?\s*\Z",
    re.S,
)
_OC_LINE_CUT = re.compile(r"\.\.\. \(line truncated to \d+ chars\)")
_OC_CUT = re.compile(r"\n*\.\.\.\d+ (?:lines|bytes) truncated\.\.\.\n*")
"""``Truncate.output``: where an output longer than its limits was cut."""
_OC_CUT_WORDS = " truncated..."
"""What every :data:`_OC_CUT` marker holds, on one line."""
_OC_CUT_HINT = re.compile(r"The tool call succeeded but the output was truncated\.[^\n]*(?:\n[^\n]+)*\n*")
_OC_BASH_META = re.compile(r"\n*<bash_metadata>\n.*?</bash_metadata>\s*\Z", re.S)
_OC_WHOLE = re.compile(r"No files found|Error: .*|File not found: .*", re.S)
_OC_GLOB_TAIL = re.compile(r"\n*\(Results are truncated[^)\n]*\)\s*\Z")
OPENCODE_GREP = HeadingSearch(
    file=re.compile(r"(?P<path>\S[^\n]*):"),
    prefix=re.compile(r"  Line \d+: "),
    words=re.compile(r"Found \d+ matches(?: \([^)\n]*\))?|\([^\n]*\)|\s*"),
)
"""``grep``: ``Found N matches``, then per file its absolute path and a colon, each match as
``  Line N: text``, a blank line between files, and a note when the results were cut."""


def opencode_read(shown: str) -> tuple[str, str | None, int | None]:
    """What ``read`` showed: ``("file" | "directory", the path its header names, the first line number)``."""
    head = _OC_READ_HEAD.match(shown)
    if head is None:
        return "file", None, None
    kind = head.group("type") or "file"
    first = _OC_READ_LINE.match(shown, head.end())
    number = int(first.group(0).rstrip(": |")) if first else None
    return kind, head.group("path"), number


def _opencode_cuts(shown: str, stop: int) -> list[tuple[int, int]]:
    """The spans of :data:`_OC_CUT` in ``shown[:stop]``. The regex opens with newlines, so a search of the whole
    text would try it at every position: it is run over the stretch from the newlines before the line of the
    first `` truncated...`` (every marker holds it, on one line) to the newlines after the last one; no marker
    starts or ends outside that stretch."""
    first = shown.find(_OC_CUT_WORDS, 0, stop)
    if first < 0:
        return []
    start = shown.rfind("\n", 0, first) + 1
    while start and shown[start - 1] == "\n":
        start -= 1
    end = shown.rfind(_OC_CUT_WORDS, 0, stop) + len(_OC_CUT_WORDS)
    while end < stop and shown[end] == "\n":
        end += 1
    return [m.span() for m in _OC_CUT.finditer(shown, start, end)]


def opencode_frames(shown: str, *, tool: OpenCodeTool) -> tuple[Frame, ...]:
    """OpenCode's words in a tool result: a result that is nothing but its words (no match, an error), the
    markers where ``Truncate.output`` cut an output and its hint, ``read``'s ``<path>``/``<type>``/``<content>``
    wrapper, line numbers, end note and cut-line markers, ``bash``'s ``<bash_metadata>``, ``grep``'s header,
    file headings and ``Line N:`` prefixes, ``glob``'s truncation note; and a recorded tab run's status line."""
    status = status_start(shown)
    core = shown[:status].strip()
    if core and _OC_WHOLE.fullmatch(core):
        return whole(shown)
    found: list[Frame] = []
    found += [Frame(start, end, "clip") for start, end in _opencode_cuts(shown, status)]
    found += [Frame(m.start(), m.end(), "frame") for m in _OC_CUT_HINT.finditer(shown, 0, status)]
    if tool == "read" and (head := _OC_READ_HEAD.match(shown, 0, status)):
        found.append(Frame(0, head.end(), "frame"))
        tail = (
            _OC_READ_TAIL.search(shown, head.end(), status)
            if shown.find(")\n</", head.end(), status) >= 0
            else None
        )
        stop = tail.start() if tail else status
        if tail:
            found.append(Frame(tail.start(), status, "frame"))
        if m := _OC_READ_LINE.match(shown, head.end(), stop):  # the first line's number, then the others'
            found.append(Frame(head.end(), m.end(), "frame"))
        found += [
            Frame(m.start() + 1, m.end(), "frame") for m in _OC_READ_LINES.finditer(shown, head.end(), stop)
        ]
        found += [Frame(m.start(), m.end(), "clip") for m in _OC_LINE_CUT.finditer(shown, head.end(), stop)]
    elif (
        tool == "shell"
        and shown.find("<bash_metadata>", 0, status) >= 0
        and (meta := _OC_BASH_META.search(shown, 0, status))
    ):
        found.append(Frame(meta.start(), status, "frame"))
    elif tool == "grep":
        found += heading_search(shown, OPENCODE_GREP, 0, status)[1]
    elif (
        tool == "glob"
        and shown.find("(Results are truncated", 0, status) >= 0
        and (tail := _OC_GLOB_TAIL.search(shown, 0, status))
    ):
        found.append(Frame(tail.start(), status, "frame"))
    if status < len(shown):
        found.append(Frame(status, len(shown), "frame"))
    return merged(found)
