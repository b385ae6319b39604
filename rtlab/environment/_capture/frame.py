"""Which parts of a step's shown text are command output, and which are a harness's own words.

A harness wraps and shortens output before the model sees it: Codex puts ``Total output lines: N`` in front
and a ``…N tokens truncated…`` marker in the middle, OpenHands a middle marker, Pi a bracketed notice at the
end, G2B a ``Command: / stdout: / stderr: / exit_code:`` frame around each command. None of that is file
content. This module finds the output *regions* of the shown text and cuts them into *pieces* around clip
markers and error messages, so that every parser downstream sees only text a command printed.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from rtlab.ingest import OPENHANDS_TRUNCATION_MARKER
from rtlab.ingest.readers.pi import TRUNCATION_NOTICES

# ---------------------------------------------------------------------------------------------------------
# Blocks: spans of shown text with cuts


class Block(NamedTuple):
    """Spans of the shown text in order; ``clipped[i]`` says a clip marker sits between piece i and i + 1."""

    pieces: tuple[tuple[int, int], ...]
    clipped: tuple[bool, ...] = ()

    @property
    def start(self) -> int:
        """Where the first piece starts."""
        return self.pieces[0][0] if self.pieces else 0

    @property
    def end(self) -> int:
        """Where the last piece ends."""
        return self.pieces[-1][1] if self.pieces else 0

    def clip_after(self, i: int) -> bool:
        """Whether a clip marker follows piece ``i``."""
        return i < len(self.clipped) and self.clipped[i]

    def within(self, start: int, end: int) -> Block:
        """The part of this block inside ``[start, end)``."""
        pieces: list[tuple[int, int]] = []
        clipped: list[bool] = []
        for i, (s, e) in enumerate(self.pieces):
            s2, e2 = max(s, start), min(e, end)
            if s2 < e2:
                pieces.append((s2, e2))
                clipped.append(self.clip_after(i) and e2 == e)
        return Block(tuple(pieces), tuple(clipped))

    def empty(self, shown: str) -> bool:
        """Whether the block holds only whitespace."""
        return all(not shown[s:e].strip() for s, e in self.pieces)


class Line(NamedTuple):
    """One line of a block: ``[start, end)`` excludes the newline; ``partial`` when a clip marker cut it."""

    start: int
    end: int
    text: str
    partial: bool


def lines(shown: str, block: Block) -> Iterator[Line]:
    """The block's lines in order; a line touching a clip marker is ``partial``."""
    count = len(block.pieces)
    for i, (s, e) in enumerate(block.pieces):
        cut_before = i > 0 and block.clip_after(i - 1)
        cut_after = block.clip_after(i)
        pos = s
        first = True
        while pos < e:
            nl = shown.find("\n", pos, e)
            end = e if nl < 0 else nl
            last = nl < 0
            if end > pos or not last:
                partial = (first and cut_before) or (last and cut_after and i < count - 1)
                yield Line(pos, end, shown[pos:end], partial)
            first = False
            pos = end + 1


def lines_backward(shown: str, block: Block) -> Iterator[Line]:
    """The block's lines from the last to the first: ``reversed(list(lines(shown, block)))`` without
    splitting the lines before the ones the caller looks at."""
    count = len(block.pieces)
    for i in range(count - 1, -1, -1):
        s, e = block.pieces[i]
        if s >= e:
            continue
        cut_before = i > 0 and block.clip_after(i - 1)
        last = shown[e - 1] != "\n"  # a final line with no newline (a newline-ended piece has none)
        cut_last = last and block.clip_after(i) and i < count - 1
        end = e if last else e - 1
        while True:
            nl = shown.rfind("\n", s, end)
            start = s if nl < 0 else nl + 1
            yield Line(start, end, shown[start:end], (start == s and cut_before) or cut_last)
            if start == s:
                break
            end, cut_last = start - 1, False


def trim(shown: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without blank lines at either end; the last line keeps its own newline."""
    while start < end:
        nl = shown.find("\n", start, end)
        if nl < 0 or shown[start:nl].strip():
            break
        start = nl + 1
    last = end
    while last > start and shown[last - 1].isspace():
        last -= 1
    if last == start:
        return start, start
    nl = shown.find("\n", last, end)
    return start, (nl + 1 if nl >= 0 else last)


# ---------------------------------------------------------------------------------------------------------
# Harness frames and markers

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
_EXIT_CODE = re.compile(r"\nexit_code: (-?\d+)")


@dataclass(frozen=True)
class Region:
    """The output of one command: its command text and its block of the shown text."""

    command: str
    block: Block
    exit_code: int | None = None


def _clip_block(shown: str, start: int, end: int, clipped: bool) -> Block:
    """``[start, end)`` cut at clip markers (only when the harness said it clipped)."""
    pieces: list[tuple[int, int]] = []
    flags: list[bool] = []
    pos = start
    if clipped and any(shown.find(text, start, end) >= 0 for text in _CLIP_MARKER_TEXTS):
        for m in _CLIP_MARKERS.finditer(shown, start, end):
            pieces.append((pos, m.start()))
            flags.append(True)
            pos = m.end()
    pieces.append((pos, end))
    flags.append(False)
    kept = [(p, f) for p, f in zip(pieces, flags, strict=True) if p[1] > p[0]]
    return Block(tuple(p for p, _ in kept), tuple(f for _, f in kept))


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


def regions(
    shown: str, command: str, *, clipped: bool, args: dict | None = None, exit_code: int | None = None
) -> list[Region]:
    """The command-output regions of a step's shown text: one per command (G2B runs several), frames removed."""
    commands = _g2b_commands(args) if shown.startswith("Command: ") else None
    if commands:
        found = _g2b_regions(shown, commands, clipped)
        if found is not None:
            return found
    start = 0
    if clipped and (m := _CODEX_HEADER.match(shown)):
        start = m.end()
    elif (
        command
        and "\n" not in command
        and shown.startswith(command)
        and shown[len(command) : len(command) + 1] in ("\r", "\n")
    ):
        start = (
            shown.find("\n", len(command)) + 1
        )  # a terminal's echo of the command (OpenHands' tmux session)
    end = _trailer_start(shown, start, len(shown))
    return [Region(command, _clip_block(shown, start, end, clipped), exit_code)]


def _g2b_commands(args: dict | None) -> list[str] | None:
    raw = (args or {}).get("commands")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    if isinstance(raw, list) and raw and all(isinstance(c, str) for c in raw):
        return raw
    return None


def _g2b_regions(shown: str, commands: list[str], clipped: bool) -> list[Region] | None:
    """G2B's shell frame (pipeline/executor.py): per command ``Command: CMD\\n[stdout:\\nOUT\\n][stderr:\\nERR\\n]exit_code: N``."""
    out: list[Region] = []
    pos = 0
    for i, cmd in enumerate(commands):
        header = f"Command: {cmd}\n"
        if not shown.startswith(header, pos):
            return out or None
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
            out.append(Region(cmd, _clip_block(shown, body + 8, out_end, clipped), exit_code))
        else:
            out.append(Region(cmd, Block(()), exit_code))
        pos = seg_end + 2
    return out


# ---------------------------------------------------------------------------------------------------------
# Error messages

_ERROR_LINE = re.compile(
    r"^(?:[\w./+-]+: )+(?:line \d+: )?.*?(?:No such file or directory|Is a directory|Not a directory|"
    r"Permission denied|cannot access|cannot open|can't read|can't open|[Cc]ommand not found|not found|"
    r"Operation not permitted|[Ii]nvalid option|unrecognized option|illegal option|[Nn]o such file|"
    r"binary file matches|[Uu]nknown option|missing operand|extra operand|syntax error|unexpected EOF)"
    r"|^(?:[Uu]sage|Try '[\w-]+ --help'|Error|ERROR|error|fatal|FATAL)\b.*"
    r"|^(?:bash|sh|zsh|/bin/\w+): .*"
    r"|^(?:cat|head|tail|sed|g?awk|[ef]?grep|rg|ls|find|wc|sort|cut|nl|less|more|python[\d.]*|jq|tree|fd|stat|file|"
    r"du|cd|xargs|tr|uniq|diff|cp|mv|rm|mkdir|touch|tee|realpath|readlink|column|tac|strings): .*"
)
"""A line a failing tool prints instead of output (``cat: x: No such file or directory``, ``Usage: ...``)."""

_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):")
_WARNING = re.compile(r"^\S+\.py:\d+: \w*Warning: ")
"""Python's ``warnings`` line on stderr (``/x/site-packages/openpyxl/reader/excel.py:227: UserWarning: ...``)."""
_EXCEPTION_LINE = re.compile(r"^[\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b(?::.*)?$")
_INNER_DROP_TEXTS = ("Traceback (most recent call last):", "Warning: ")
"""A line that :func:`without_errors` drops inside a block holds one of these (``_TRACEBACK``, ``_WARNING``)."""


def error_line(text: str) -> bool:
    """Whether a line is a tool's error message rather than output."""
    return bool(_ERROR_LINE.match(text))


def without_errors(shown: str, block: Block) -> Block:
    """The block without Python tracebacks, and without error messages and blank lines at its two ends.

    Error-looking lines inside the output are kept: a file may well contain a line ``Usage: ...``.
    """
    if all(shown.find(text, block.start, block.end) < 0 for text in _INNER_DROP_TEXTS):
        return _without_edge_errors(shown, block)
    return _without_errors_by_line(shown, block)


def _without_errors_by_line(shown: str, block: Block) -> Block:
    """:func:`without_errors` for any block: every line looked at."""
    found = list(lines(shown, block))
    drop = [False] * len(found)
    in_traceback = False
    for k, line in enumerate(found):
        if in_traceback:
            drop[k] = True
            in_traceback = not _EXCEPTION_LINE.match(line.text)
        elif _TRACEBACK.match(line.text):
            drop[k] = in_traceback = True
        elif _WARNING.match(line.text):
            drop[k] = True
            if k + 1 < len(found) and found[k + 1].text.startswith((" ", "\t")):
                drop[k + 1] = True
    for order in (range(len(found)), range(len(found) - 1, -1, -1)):
        for k in order:
            if drop[k] or not _kept_at_edge(found[k]):
                drop[k] = True
            else:
                break
    return _rebuild(shown, block, found, drop)


def _kept_at_edge(line: Line) -> bool:
    """Whether a line at either end of an output stays: not blank, and not a tool's error message."""
    return bool(line.text.strip()) and (line.partial or not error_line(line.text))


def _without_edge_errors(shown: str, block: Block) -> Block:
    """:func:`without_errors` for a block with no traceback or warning: only lines at its two ends can go, so
    only those lines are looked at (on a large output, a few lines instead of all)."""
    first = next((line for line in lines(shown, block) if _kept_at_edge(line)), None)
    if first is None:
        return Block(())
    last = next(line for line in lines_backward(shown, block) if _kept_at_edge(line))
    piece_end = next(e for s, e in block.pieces if s <= last.start < e)
    return block.within(first.start, last.end + 1 if last.end < piece_end else last.end)


def _rebuild(shown: str, block: Block, found: list[Line], drop: list[bool]) -> Block:
    """Pieces made of the kept lines: a new piece wherever a line was dropped or the original pieces changed."""
    starts = [s for s, _ in block.pieces]
    pieces: list[tuple[int, int]] = []
    flags: list[bool] = []
    current: int | None = None
    previous_kept = -2
    for k, line in enumerate(found):
        if drop[k]:
            continue
        index = bisect_right(starts, line.start) - 1
        piece_end = block.pieces[index][1]
        end = line.end + 1 if line.end < piece_end and shown[line.end] == "\n" else line.end
        if current != index or previous_kept != k - 1:
            pieces.append((line.start, end))
            flags.append(False)
            current = index
        else:
            pieces[-1] = (pieces[-1][0], end)
        previous_kept = k
        flags[-1] = block.clip_after(index) and end >= piece_end
    return Block(tuple(pieces), tuple(flags))
