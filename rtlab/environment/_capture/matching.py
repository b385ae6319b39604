"""Content matching: which workspace files a piece of shown text came from, found through the line index.

Each shown line is looked up whole (and, failing that, without a ``cat -n``/``grep -n``/``N→`` prefix) in the
workspace's :class:`rtlab.environment._workspace.LineIndex`. Consecutive lines that share a file form a *run*; a run's
ends are then extended character by character against that file, so a slice that starts or ends mid-line
(``print(text[a:b])``) is captured exactly. Runs need at least :data:`MIN_RUN_CHARS` characters of indexed
lines to count on their own, and break after :data:`MAX_GAP` lines that belong to no candidate file. Cost:
one dictionary lookup per shown line plus the extension; no file is searched as a whole string except the
one file a confirmation names, and then only for a few long lines.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from rtlab.environment._capture.frame import Block, lines
from rtlab.environment._workspace import IndexedFile, LineIndex, line_key

MIN_RUN_CHARS = 40
"""Indexed characters a run needs when only content matching attributes it."""
MIN_CONFIRM_CHARS = 12
"""Indexed characters that confirm a read the command and output structure already point at."""
MAX_GAP = 10
"""Lines in a row that match no candidate file and end a run (a script's own headers in between are fewer)."""
MAX_TIES = 5
"""Identical copies a run may be credited to when the command names none of them."""
SUBSTRING_LINES = 20
"""Long unmatched lines searched as substrings of a confirmed file (a slice inside one long line)."""
COMMON_CANDIDATES = 32
"""Long unmatched lines searched as substrings of a confirmed file (a slice inside one long line)."""

_PREFIXES = (
    re.compile(r"^\s*\d+\t"),  # cat -n, nl, editor views, Claude Code 2.1's Read
    re.compile(r"^\s*\d+\u2192"),  # Claude Code's Read before 2.1 (``     1→``)
    re.compile(r"^\s*\d+[:-]\s?"),  # grep -n on one file, Pi's read/grep line numbers
    re.compile(r"^[^\n:]{1,300}?[:-]\d+[:-]\s?"),  # grep -n path:N:
    re.compile(r"^[^\n:]{1,300}?:"),  # grep path:
)


@dataclass
class _Line:
    start: int
    end: int
    offset: int
    """Where the file text starts within the line (after a stripped prefix)."""
    key: int
    files: set[int]


@dataclass
class _Run:
    files: set[int]
    lines: list[_Line] = field(default_factory=list)
    chars: int = 0


@dataclass(frozen=True)
class Span:
    """A span of the shown text credited to one indexed file."""

    file_id: int
    start: int
    end: int


def _classify(
    index: LineIndex, text: str, restrict: set[int] | None
) -> tuple[int, int, set[int]] | None | bool:
    """``(offset, key, files)`` for a line found in the index; ``None`` for a neutral line (blank, short,
    boilerplate); ``False`` for an informative line found in no candidate file."""
    variants = [(0, text)]
    for rx in _PREFIXES:
        m = rx.match(text)
        if m and m.end() < len(text):
            variants.append((m.end(), text[m.end() :]))
    informative = False
    for offset, variant in variants:
        key = line_key(variant)
        if key is None:
            continue
        informative = True
        postings = index.postings(key)
        if postings is None:
            return None
        files = {fid for fid, _ in postings}
        if restrict is not None:
            files &= restrict
        if files:
            return offset, key, files
    return False if informative else None


def find_spans(
    index: LineIndex,
    shown: str,
    block: Block,
    *,
    restrict: set[int] | None = None,
    prefer: AbstractSet[int] = frozenset(),
) -> list[Span]:
    """Spans of ``block`` that are text of indexed files (of ``restrict`` only, when given)."""
    runs: list[_Run] = []
    current: _Run | None = None
    gap = 0
    min_chars = MIN_CONFIRM_CHARS if restrict is not None else MIN_RUN_CHARS
    for line in lines(shown, block):
        found = _classify(index, line.text, restrict)
        if found is None:
            continue
        if found is False:
            gap += 1
            if current is not None and gap >= MAX_GAP:
                runs.append(current)
                current = None
            continue
        offset, key, files = found  # type: ignore[misc]
        entry = _Line(line.start, line.end, offset, key, files)
        gap = 0
        if current is not None and current.files & files:
            current.files &= files
        else:
            if current is not None:
                runs.append(current)
            current = _Run(set(files))
        current.lines.append(entry)
        current.chars += line.end - line.start - offset
    if current is not None:
        runs.append(current)
    spans: list[Span] = []
    for run in runs:
        if run.chars < min_chars:
            continue
        chosen = _choose(run.files, prefer)
        for fid in chosen:
            spans.append(_extend(index.files[fid], index, fid, run, shown, block))
    if restrict is not None and not spans:
        spans = _substring_spans(index, shown, block, restrict)
    return spans


def _choose(files: set[int], prefer: AbstractSet[int]) -> list[int]:
    named = files & prefer
    if named:
        return sorted(named)
    if len(files) <= MAX_TIES:
        return sorted(files)
    return []


def _occurrences(index: LineIndex, fid: int, key: int) -> list[int]:
    return sorted(n for f, n in index.postings(key) or [] if f == fid)


def _piece_of(block: Block, pos: int) -> tuple[int, int]:
    for s, e in block.pieces:
        if s <= pos <= e:
            return s, e
    return pos, pos


def _common_prefix(a: str, a_start: int, a_end: int, b: str, b_start: int) -> int:
    """Length of the common prefix of ``a[a_start:a_end]`` and ``b[b_start:]``."""
    n = min(a_end - a_start, len(b) - b_start)
    step = 256
    k = 0
    while k < n:
        m = min(step, n - k)
        if a[a_start + k : a_start + k + m] == b[b_start + k : b_start + k + m]:
            k += m
            continue
        while k < n and a[a_start + k] == b[b_start + k]:
            k += 1
        break
    return k


def _extend(file: IndexedFile, index: LineIndex, fid: int, run: _Run, shown: str, block: Block) -> Span:
    """The run's span, widened at both ends as far as the shown text keeps agreeing with the file.

    The run is placed in the file at the occurrence of its first line from which the shown text agrees
    longest (a repeated line such as a table's unit note occurs many times); a slice that starts or ends
    mid-line is then captured to the character.
    """
    first, last = run.lines[0], run.lines[-1]
    start = first.start + first.offset
    end = last.end
    piece_start, _ = _piece_of(block, first.start)
    _, piece_end = _piece_of(block, last.end)
    best_pos, best_len = None, -1
    for number in _occurrences(index, fid, first.key)[:COMMON_CANDIDATES]:
        pos = file.line_span(number)[0]
        agree = _common_prefix(shown, start, piece_end, file.text, pos)
        if agree > best_len:
            best_pos, best_len = pos, agree
    if best_pos is None:
        return Span(fid, start, end)
    if first.offset == 0:
        k = 0
        while (
            start - k - 1 >= piece_start
            and best_pos - k - 1 >= 0
            and shown[start - k - 1] == file.text[best_pos - k - 1]
        ):
            k += 1
        start -= k
        best_pos -= k
        best_len += k
    return Span(fid, start, max(end, start + best_len))


def _substring_spans(index: LineIndex, shown: str, block: Block, restrict: set[int]) -> list[Span]:
    """For a confirmation that found no indexed line: the whole text, or its long lines, searched inside the
    named file (a file of short lines; a slice inside one long line)."""
    whole = [(s, e) for s, e in block.pieces if shown[s:e].strip()]
    if whole and all(shown[s:e].strip() in index.files[fid].text for s, e in whole for fid in restrict):
        return [Span(fid, s, e) for fid in sorted(restrict) for s, e in whole]
    candidates = sorted(
        (ln for ln in lines(shown, block) if len(ln.text.strip()) >= 20), key=lambda ln: -len(ln.text)
    )[:SUBSTRING_LINES]
    hits = [ln for ln in candidates for fid in restrict if ln.text.strip() in index.files[fid].text]
    if not hits:
        return []
    start = min(ln.start for ln in hits)
    end = max(ln.end for ln in hits)
    return [Span(fid, start, end) for fid in sorted(restrict)]
