"""What an item needs, derived from what was shown rather than read off its words (codebook 2.2).

An item that names no value ("all five records are listed", "each amount carries the currency", "records are
in date order") still needs content: the records of the files it needs. Those records are what the run was
shown of those files, and each is tested in the deliverable the way values are:

- **Records** of a text (:func:`record_keys`): the distinctive data it holds, never its labels: numbers that are
  not years and not small counts (a value of at least :data:`MIN_RECORD_VALUE`, or written with decimals),
  dates, codes, and money and quantities whose number is such a value (:func:`rtlab.text.find_anchors`; names
  are left out: in tables they are mostly headers and labels, which a template copies). A line number a harness put before each line (``cat
  -n``, ``nl``, a search's ``path:N:``) is not data. A record the task's own instruction states is left out
  (an empty template copies the instruction's words and numbers).
- **The files an item needs** are the sources it refers to (its named files, or the files whose shown
  content holds its values or anchors), else every source of the task.
- **Shown records** (:attr:`Coverage.shown`): the records of the read-log entries of those files. A data file
  (a spreadsheet, delimited text, JSON) whose entries hold fewer than :data:`MIN_SHOWN_RECORDS` records was
  opened only as far as its headers, a title or a summary line: its data was never shown
  (:meth:`Coverage.data_shown`).
- **Delivered** (:attr:`Coverage.delivered`): how many shown records the deliverable holds, every delivered
  file and the final message together: a number as :class:`rtlab.text.NumberIndex` finds it (stated rounding
  allowed), an anchor as :class:`rtlab.text.AnchorIndex` does. An empty template, a placeholder row or a
  notice that the sources were inaccessible holds none, or almost none (:data:`EMPTY_SHARE`). All files count,
  not only the one the task names: a harness may collect the run's own output under another name beside a
  stale file of that name, and a record held anywhere was delivered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlab.text import AnchorIndex, AnchorKind, Number, find_anchors, find_numbers, is_year_like, number_index

if TYPE_CHECKING:
    from rtlab.environment import ReadEntry

MIN_RECORD_VALUE = 100
"""A number below this, written without decimals, is a count, a rank or an index, too common to be a record."""
MIN_SHOWN_RECORDS = 3
"""A file whose shown excerpts hold fewer records than this showed no data (headers, a title, a summary)."""
EMPTY_SHARE = 0.05
"""A deliverable holding less than this share of the shown records holds none of them: an empty template or a
placeholder may repeat a date or a total by chance."""
RECORD_KINDS: tuple[AnchorKind, ...] = ("date", "code", "money", "quantity")
"""The anchor kinds that are records (names are left out: mostly headers and labels)."""

_LINE_NUMBER = re.compile(r"^[ \t]*\d+(?:\t|:|→|\|)|^[^\s:]+:\d+:", re.MULTILINE)
"""A harness's line number before a line: ``cat -n``/``nl`` (``  12\\t``), Read's arrow, a search's ``path:N:``."""


@dataclass(frozen=True)
class Record:
    """One distinctive datum of a shown text, with how to find it again."""

    kind: str
    """``number`` or an anchor kind of :data:`RECORD_KINDS`."""
    key: str
    """The value (a number's ``repr``) or the anchor's folded text: two records are the same when kind and
    key are."""
    text: str
    """As written where first found."""


def _strip_line_numbers(text: str) -> str:
    return _LINE_NUMBER.sub("", text)


def _distinctive_number(n: Number) -> bool:
    return not is_year_like(n) and (abs(n.value) >= MIN_RECORD_VALUE or n.decimals > 0)


def _distinctive(text: str) -> bool:
    """An amount or quantity is a record when its number is (``35%`` or ``3 days`` are as common as counts)."""
    return any(_distinctive_number(n) for n in find_numbers(text))


def record_keys(text: str, *, known: str = "") -> dict[tuple[str, str], Record]:
    """The records of ``text`` by (kind, key), first writing kept; records that ``known`` (the task's
    instruction) states are left out."""
    body = _strip_line_numbers(text)
    known_numbers = {n.value for n in find_numbers(known)} if known else set()
    known_folded = known.lower()
    out: dict[tuple[str, str], Record] = {}
    for n in find_numbers(body):
        if not _distinctive_number(n):
            continue
        if n.value in known_numbers:
            continue
        out.setdefault(("number", repr(n.value)), Record("number", repr(n.value), n.text))
    for a in find_anchors(body, kinds=RECORD_KINDS):
        if a.text.lower() in known_folded or (a.kind in ("money", "quantity") and not _distinctive(a.text)):
            continue
        out.setdefault((a.kind, a.text.lower()), Record(a.kind, a.text.lower(), a.text))
    return out


@dataclass(frozen=True)
class Coverage:
    """How much of what the run was shown of the files an item needs its deliverable holds."""

    needed: tuple[str, ...]
    """The source files the item needs (as the task names them)."""
    per_file: tuple[int, ...]
    """Per needed file, the distinct records its read-log entries showed (0: never opened, or no data)."""
    shown: int
    """Distinct records shown of the needed files, all together."""
    delivered: int
    """How many of them the deliverable holds."""
    examples: tuple[str, ...] = ()
    """Up to five shown records the deliverable lacks, as written (for the rationale)."""
    per_file_delivered: tuple[int, ...] = ()
    """Per needed file, how many of its shown records the deliverable holds (aligned with ``per_file``; empty
    when not counted)."""

    @property
    def with_records(self) -> tuple[str, ...]:
        """The needed files whose excerpts showed at least one record."""
        return tuple(f for f, n in zip(self.needed, self.per_file, strict=True) if n > 0)

    def data_shown(self, source: str) -> bool:
        """Whether ``source`` showed its data: at least :data:`MIN_SHOWN_RECORDS` records (a data file with
        fewer showed its headers, a title or a summary line only)."""
        return self.per_file[self.needed.index(source)] >= MIN_SHOWN_RECORDS

    @property
    def share(self) -> float:
        """``delivered / shown``; 0 when nothing was shown."""
        return self.delivered / self.shown if self.shown else 0.0

    @property
    def files_dropped(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(kept, dropped): the needed files that showed their data (:meth:`data_shown`) whose records the
        deliverable holds at least half of, and those of which it holds none. Both non-empty: the records of
        whole files were read, and some made it into the deliverable while others were dropped."""
        if len(self.per_file_delivered) != len(self.needed):
            return (), ()
        kept, dropped = [], []
        for f, n, held in zip(self.needed, self.per_file, self.per_file_delivered, strict=True):
            if n < MIN_SHOWN_RECORDS:
                continue
            if held == 0:
                dropped.append(f)
            elif 2 * held >= n:
                kept.append(f)
        return tuple(kept), tuple(dropped)

    @property
    def none_delivered(self) -> bool:
        """At least :data:`MIN_SHOWN_RECORDS` records were shown and the deliverable holds (almost) none."""
        return self.shown >= MIN_SHOWN_RECORDS and self.share < EMPTY_SHARE


class DeliverableIndex:
    """The deliverable's numbers and anchors, built once per run."""

    def __init__(self, files: Iterable[tuple[str, str]]) -> None:
        text = "\n".join(t for _, t in files)
        self.numbers = number_index(text)
        self.anchors = AnchorIndex(text)
        self._found: dict[tuple[str, str], bool] = {}
        self._text = text

    def holds(self, record: Record) -> bool:
        key = (record.kind, record.key)
        if key not in self._found:
            if record.kind == "number":
                found = find_numbers(record.text)
                self._found[key] = bool(found) and self.numbers.find(found[0]) is not None
            else:
                kind = next(k for k in RECORD_KINDS if k == record.kind)
                anchors = find_anchors(record.text, kinds=(kind,))
                self._found[key] = bool(anchors) and self.anchors.find(anchors[0]) is not None
        return self._found[key]


def coverage(
    needed: Sequence[str],
    entries: dict[str, list[ReadEntry]],
    deliverable: DeliverableIndex,
    *,
    known: str = "",
    memo: dict[str, dict[tuple[str, str], Record]] | None = None,
) -> Coverage:
    """:class:`Coverage` of the ``needed`` files, given each one's read-log entries that opened it. ``memo``: the
    records of excerpts already read (by excerpt; one per run and ``known``), so a run's items share the work."""
    memo = {} if memo is None else memo
    shown: dict[tuple[str, str], Record] = {}
    per_file = []
    per_file_held = []
    for source in needed:
        mine: dict[tuple[str, str], Record] = {}
        for e in entries.get(source, []):
            if e.excerpt not in memo:
                memo[e.excerpt] = record_keys(e.excerpt, known=known)
            for key, rec in memo[e.excerpt].items():
                mine.setdefault(key, rec)
        per_file.append(len(mine))
        per_file_held.append(sum(1 for r in mine.values() if deliverable.holds(r)))
        for key, rec in mine.items():
            shown.setdefault(key, rec)
    held = [r for r in shown.values() if deliverable.holds(r)]
    lacking = tuple(r.text for r in shown.values() if not deliverable.holds(r))[:5]  # holds() is memoised
    return Coverage(
        needed=tuple(needed),
        per_file=tuple(per_file),
        shown=len(shown),
        delivered=len(held),
        examples=lacking,
        per_file_delivered=tuple(per_file_held),
    )
