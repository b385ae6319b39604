"""Which parts of a step's shown text are command output: the *regions* left once the harness's frames
(marked by its reader, :attr:`rtlab.records.Step.frames`) are cut out, cut into *pieces* around clip markers
and error messages, so that every parser downstream sees only text a command printed. Nothing here knows a
harness: the frames say where its words are.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from rtlab.records import Frame, Step

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
# Output regions: what is left of the shown text once the harness's frames are cut out


@dataclass(frozen=True)
class Region:
    """The output of one command: its command text and its block of the shown text."""

    command: str
    """The command line (or program) whose output this is; empty for tools that have none."""
    block: Block
    """The spans of the shown text that the command printed."""
    exit_code: int | None = None
    """The command's exit status, where known."""


def between(frames: tuple[Frame, ...], start: int, end: int) -> Block:
    """``[start, end)`` without the frames in it, cut into pieces where they were; a piece followed by a
    ``clip`` frame is marked clipped (its text goes on past the marker, not before it)."""
    pieces: list[tuple[int, int]] = []
    flags: list[bool] = []
    pos = start
    for f in frames:
        if f.end <= start or f.start >= end:
            continue
        if f.start > pos:
            pieces.append((pos, f.start))
            flags.append(f.kind == "clip")
        pos = max(pos, f.end)
    if pos < end:
        pieces.append((pos, end))
        flags.append(False)
    return Block(tuple(pieces), tuple(flags))


def regions(step: Step) -> list[Region]:
    """The command-output regions of a step's shown text, from its action and frames: one for each part of
    a call that ran several commands, else one for the whole step."""
    shown = step.shown or ""
    action = step.action
    if action is not None and action.parts:
        return [
            Region(p.command or "", between(step.frames, *(p.output or (0, 0))), p.exit_code)
            for p in action.parts
        ]
    command = (action.command or "") if action is not None else ""
    return [Region(command, between(step.frames, 0, len(shown)), step.exit_code)]


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

_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):|^  File \"[^\"\n]+\", line \d+")
"""Where Python's report of an exception starts: its traceback header, or (a program that did not compile, whose
report has no header: ``python -c``'s ``  File "<string>", line 1``, the source line, a caret line,
``SyntaxError: ...``) its first location line. The report runs to the exception's own line."""
_WARNING = re.compile(r"^\S+\.py:\d+: \w*Warning: ")
"""Python's ``warnings`` line on stderr (``/x/site-packages/openpyxl/reader/excel.py:227: UserWarning: ...``)."""
_EXCEPTION_LINE = re.compile(r"^[\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b(?::.*)?$")
_INNER_DROP_TEXTS = ("Traceback (most recent call last):", '  File "', "Warning: ")
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
