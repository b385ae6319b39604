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


Harness = Literal["codex", "openhands", "pi", "g2b", "any"]
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
    if end < status:
        found.append(Frame(end, status, "frame"))
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
    i = 0
    while i < len(text):
        if pos >= end:
            return None
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
    return tuple(parts), _disjoint(found)


def _disjoint(frames: list[Frame]) -> tuple[Frame, ...]:
    """Frames in order, none overlapping: where a frame and a clip marker overlap, the marker keeps its span."""
    out: list[Frame] = []
    for f in sorted(frames, key=lambda f: (f.start, f.end)):
        if out and f.start < out[-1].end:
            prev = out[-1]
            if prev.kind == f.kind:
                out[-1] = Frame(prev.start, max(prev.end, f.end), f.kind)
                continue
            if prev.kind == "clip":
                f = Frame(prev.end, f.end, f.kind)
            else:
                out[-1] = Frame(prev.start, f.start, prev.kind)
                if out[-1].end <= out[-1].start:
                    out.pop()
        if f.end > f.start:
            out.append(f)
    return tuple(out)


def has_clip_marker(shown: str) -> bool:
    """Whether ``shown`` holds a clip marker of a harness rtlab knows (Codex, OpenHands, Terminus 2): the
    log already holds the cut output."""
    if TERMINAL_CLIP.search(shown):
        return True
    return bool(_markers(shown, 0, len(shown)))
