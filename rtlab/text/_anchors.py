"""Anchors beyond numbers: the IDs and codes, dates, currency amounts, quantities with a unit and names a
rubric item expects, found in text and looked for in other text by one rule each (the one home of these
parsers; numbers are :mod:`rtlab.text._numbers`' and are read through it).

Kinds (:data:`AnchorKind`), tried in this order so that a span belongs to one anchor only:

- ``date``: ``2023-03-05``, ``2023/3/5``, ``2023.03.05``, ``05/03/2023`` (both day-month and month-day
  readings where both are valid), ``March 5, 2023``, ``5 March 2023``, ``Mar. 5 2023``, ``2023年3月5日``. Its
  keys are the ISO readings (``2023-03-05``); two dates are the same when they share a reading.
- ``code``: an identifier of capitals and digits with at least one digit, joined by ``-`` ``_`` or ``/``
  (``FA-2023-001``, ``PO_77``), letters glued to digits (``INV2023``, ``ID010``, ``Q3`` is too short: at
  least 4 characters), or a version (``V5.15``, ``v2.0.1``). Compared case-insensitively, whole.
- ``money``: a number after a currency symbol or code (``$45``, ``¥ 1,200``, ``USD 3.5 million``, ``RMB
  20``): the number as :func:`rtlab.text.find_numbers` reads it, compared by :func:`rtlab.text.matches`
  (stated rounding allowed).
- ``quantity``: a number with a unit after it (``12 kg``, ``50.4%``, ``3 days``, ``15 people``): the same
  number (:func:`rtlab.text.matches`) followed by the same unit (singular and plural alike).
- ``name``: two or more capitalised words, optionally with a number (``Product Manager 4``, ``Development
  Engineer 12``), not starting with a question or function word; compared case- and space-insensitively,
  whole.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from typing import Literal

from rtlab.text._fold import fold_text
from rtlab.text._numbers import find_numbers, matches

AnchorKind = Literal["date", "code", "money", "quantity", "name"]
"""What an anchor is (the module's docstring defines each)."""

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            "jan january",
            "feb february",
            "mar march",
            "apr april",
            "may",
            "jun june",
            "jul july",
            "aug august",
            "sep sept september",
            "oct october",
            "nov november",
            "dec december",
        ]
    )
    for m in names.split()
}
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DATE = re.compile(
    r"(?<![\d.])(?P<iy>\d{4})[-/.](?P<im>\d{1,2})[-/.](?P<id>\d{1,2})(?!\d|\.\d)"
    r"|(?<![\d./])(?P<a>\d{1,2})[/.](?P<b>\d{1,2})[/.](?P<y>\d{4})(?!\d)"
    r"|\b" + _MONTH.replace("mon", "m1") + r"\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y1>\d{4})\b"
    r"|\b(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH.replace("mon", "m2") + r",?\s+(?P<y2>\d{4})\b"
    r"|(?P<cy>\d{4})\s*年\s*(?P<cm>\d{1,2})\s*月\s*(?P<cd>\d{1,2})\s*[日号]",
    re.IGNORECASE,
)
_CODE = re.compile(
    r"(?<![\w.-])(?:[A-Z][A-Z0-9]*(?:[-_/][A-Z0-9]+)+|[A-Z]{2,}[0-9]{2,}[A-Z0-9]*|[Vv]\d+(?:\.\d+)+)(?![\w-])"
)
_CURRENCY = re.compile(r"(?:[$¥€£₹₩₽]|\b(?:USD|RMB|CNY|EUR|GBP|JPY|HKD|yuan)\b)\s?(?=[\d(+-])", re.IGNORECASE)
_UNITS = {
    "%": "%",
    "percent": "%",
    "kg": "kg",
    "g": "g",
    "km": "km",
    "m": "m",
    "cm": "cm",
    "mm": "mm",
    "h": "hour",
    "hr": "hour",
    "hrs": "hour",
    "hour": "hour",
    "hours": "hour",
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
    "people": "person",
    "person": "person",
    "persons": "person",
    "employees": "person",
    "employee": "person",
    "item": "item",
    "items": "item",
    "task": "task",
    "tasks": "task",
    "unit": "unit",
    "units": "unit",
    "pcs": "unit",
    "times": "time",
    "orders": "order",
    "order": "order",
    "records": "record",
    "record": "record",
    "rows": "row",
    "points": "point",
    "minutes": "minute",
    "min": "minute",
    "人": "person",
    "天": "day",
    "个": "item",
    "项": "item",
    "次": "time",
    "元": "yuan",
    "件": "item",
}
_UNIT = re.compile(
    r"\s?(%|"
    + "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True) if u != "%")
    + r")(?![A-Za-z])",
    re.IGNORECASE,
)
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[ ][A-Z][a-z]+)+(?:[ ]\d+)?\b")
_NOT_NAME_START = frozenset(
    "does do did is are was were has have the a an in on of for to and or if whether which what who how "
    "this that these those each every all any its their".split()
)


@dataclass(frozen=True)
class Anchor:
    """One thing a text states that another text can be checked for."""

    kind: AnchorKind
    """What it is (:data:`AnchorKind`)."""
    text: str
    """As written."""
    keys: tuple[str, ...]
    """What it is compared by: the ISO readings of a date, a folded code or name, ``unit`` for a quantity."""
    start: int
    """Offset of its first character in the text it was found in."""
    end: int
    """Offset after its last character."""


def _iso(y: int, m: int, d: int) -> str | None:
    if not (1 <= m <= 12 and 1 <= d <= 31 and 1000 <= y <= 2999):
        return None
    return f"{y:04d}-{m:02d}-{d:02d}"


def _date_keys(m: re.Match[str]) -> tuple[str, ...]:
    g = m.groupdict()
    if g["iy"]:
        keys = [_iso(int(g["iy"]), int(g["im"]), int(g["id"]))]
    elif g["y"]:
        a, b, y = int(g["a"]), int(g["b"]), int(g["y"])
        keys = [_iso(y, b, a), _iso(y, a, b)]  # day-month, then month-day
    elif g["y1"]:
        keys = [_iso(int(g["y1"]), _MONTHS[g["m1"].lower()], int(g["d1"]))]
    elif g["y2"]:
        keys = [_iso(int(g["y2"]), _MONTHS[g["m2"].lower()], int(g["d2"]))]
    else:
        keys = [_iso(int(g["cy"]), int(g["cm"]), int(g["cd"]))]
    return tuple(dict.fromkeys(k for k in keys if k))


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", fold_text(text, compatibility=True)).strip()


def find_anchors(text: str, *, kinds: tuple[AnchorKind, ...] | None = None) -> list[Anchor]:
    """The anchors of ``text`` in order of position, one per span (dates, then codes, money, quantities,
    names claim spans in that order), repeats of the same kind and keys dropped."""
    starts: list[int] = []  # the spans claimed, disjoint, by start (so their ends are in order too)
    ends: list[int] = []
    empty: list[int] = []  # claimed spans of no length, apart (they never overlap each other)
    out: list[Anchor] = []

    def free(s: int, e: int) -> bool:
        """No claimed span ``[a, b)`` overlaps ``[s, e)`` (``e <= a or s >= b`` for each): of those starting
        before ``e``, the last ends furthest."""
        if s >= e:
            return all(e <= a or s >= b for a, b in zip(starts, ends, strict=True))
        j = bisect.bisect_left(starts, e) - 1
        return (j < 0 or ends[j] <= s) and not any(s < p < e for p in empty)

    def claim(s: int, e: int) -> None:
        if s >= e:
            empty.append(s)
            return
        at = bisect.bisect_left(starts, s)
        starts.insert(at, s)
        ends.insert(at, e)

    def add(kind: AnchorKind, s: int, e: int, keys: tuple[str, ...]) -> None:
        if keys and free(s, e):
            claim(s, e)
            if kinds is None or kind in kinds:
                out.append(Anchor(kind, text[s:e], keys, s, e))

    for m in _DATE.finditer(text):
        add("date", m.start(), m.end(), _date_keys(m))
    for m in _CODE.finditer(text):
        if any(c.isdigit() for c in m.group(0)) and len(m.group(0)) >= 4:
            add("code", m.start(), m.end(), (m.group(0).upper(),))
    for n in find_numbers(text):
        before = text[max(0, n.start - 6) : n.start]
        cur = _CURRENCY.search(before + "0")
        prefixed = cur is not None and cur.end() == len(before)
        if prefixed or any(c in n.text for c in "$¥€£₹₩₽"):
            start = n.start - (len(before) - cur.start()) if prefixed and cur is not None else n.start
            add("money", start, n.end, ("money",))
            continue
        unit = _UNIT.match(text, n.end) if not n.percent else None
        if n.percent:
            add("quantity", n.start, n.end, ("%",))
        elif unit is not None:
            add("quantity", n.start, unit.end(), (_UNITS[unit.group(1).lower()],))
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        if words[0].lower() in _NOT_NAME_START:
            words = words[1:]
            if len([w for w in words if not w.isdigit()]) < 2:
                continue
            s = m.end() - len(" ".join(words))
        else:
            s = m.start()
        add("name", s, m.end(), (_fold(text[s : m.end()]),))
    seen: set[tuple[str, tuple[str, ...]]] = set()
    unique = []
    for a in sorted(out, key=lambda a: a.start):
        key = (a.kind, a.keys if a.kind not in ("money", "quantity") else (*a.keys, a.text))
        if key not in seen:
            seen.add(key)
            unique.append(a)
    return unique


WINDOW = 80
"""Characters each side of a probe's hit that :meth:`AnchorIndex.find` reads anchors from in a long text."""
LONG_TEXT = 50_000
"""A text longer than this is searched through windows around probes rather than read whole."""


def _probe(anchor: Anchor) -> re.Pattern[str]:
    """What every writing of ``anchor`` contains, to find where in a long text to look: a date's year, a
    code's characters, a name's first word, a currency mark, a quantity's unit."""
    if anchor.kind == "date":
        years = sorted({k[:4] for k in anchor.keys})
        return re.compile("|".join(years))
    if anchor.kind == "code":
        return re.compile(re.escape(anchor.keys[0]), re.IGNORECASE)
    if anchor.kind == "name":
        return re.compile(re.escape(anchor.text.split()[0]), re.IGNORECASE)
    if anchor.kind == "money":
        return re.compile(_CURRENCY.pattern.replace(r"\s?(?=[\d(+-])", ""), re.IGNORECASE)
    unit = anchor.keys[0]
    spellings = [u for u, v in _UNITS.items() if v == unit] + (["percent", "‰"] if unit == "%" else [])
    return re.compile("|".join(re.escape(u) for u in sorted(spellings, key=len, reverse=True)), re.IGNORECASE)


class AnchorIndex:
    """The anchors of one text, to ask many times whether an anchor (found elsewhere) occurs in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        """The text indexed (its anchors are found on the first question: a run's whole shown text is indexed
        for every run, and asked about only when one of its failed items has anchors)."""
        self._windows: dict[tuple[int, int], list[Anchor]] = {}

    @functools.cached_property
    def _anchors(self) -> list[Anchor]:
        return find_anchors(self.text)

    @functools.cached_property
    def _folded(self) -> str:
        return _fold(self.text)

    def _candidates(self, anchor: Anchor) -> list[Anchor]:
        """The text's anchors that could be ``anchor``: all of them for a short text; in a long one, those
        read from windows around the hits of :func:`_probe` (offsets in the whole text)."""
        if len(self.text) <= LONG_TEXT or "_anchors" in self.__dict__:
            return self._anchors
        spans: list[list[int]] = []
        for m in _probe(anchor).finditer(self.text):
            start, end = max(0, m.start() - WINDOW), min(len(self.text), m.end() + WINDOW)
            if spans and start <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], end)
            else:
                spans.append([start, end])
        out: list[Anchor] = []
        for start, end in spans:
            key = (start, end)
            if key not in self._windows:
                self._windows[key] = [
                    Anchor(a.kind, a.text, a.keys, a.start + start, a.end + start)
                    for a in find_anchors(self.text[start:end])
                ]
            out += self._windows[key]
        return out

    def find(self, anchor: Anchor) -> Anchor | None:
        """The first anchor of this text that is ``anchor`` (same kind, same reading), else ``None``. A code
        or name also counts when it occurs whole in the text's folded words (a code inside a longer path).
        A long text (:data:`LONG_TEXT`) is read only around the places every writing of ``anchor`` passes
        through (:func:`_probe`), so asking costs what the anchor's probe finds, not the text's length."""
        for a in self._candidates(anchor):
            if a.kind == anchor.kind and self._same(anchor, a):
                return a
        if anchor.kind in ("code", "name"):
            pattern = r"(?<![\w])" + re.escape(_fold(anchor.text)) + r"(?![\w])"
            m = re.search(pattern, self._folded)
            if m is not None:
                return Anchor(anchor.kind, m.group(0), anchor.keys, -1, -1)
        return None

    def near_miss(self, anchor: Anchor) -> Anchor | None:
        """An anchor of this text that looks like ``anchor`` altered: a date sharing its year and its month
        or day but not equal; a code of the same shape (letters and separators) with other digits."""
        for a in self._anchors:
            if a.kind != anchor.kind or self._same(anchor, a):
                continue
            if a.kind == "date":
                for x in anchor.keys:
                    for y in a.keys:
                        if x[:4] == y[:4] and (x[5:7] == y[5:7] or x[8:] == y[8:]):
                            return a
            if a.kind == "code" and re.sub(r"\d", "0", a.keys[0]) == re.sub(r"\d", "0", anchor.keys[0]):
                return a
        return None

    @staticmethod
    def _same(expected: Anchor, found: Anchor) -> bool:
        if expected.kind in ("date", "code", "name"):
            return bool(set(expected.keys) & set(found.keys))
        if expected.keys != found.keys:
            return False
        e, f = find_numbers(expected.text), find_numbers(found.text)
        return bool(e and f and matches(e[0], f[0], rounding=True))


def anchor_in(anchor: Anchor, text: str) -> bool:
    """Whether ``anchor`` occurs in ``text`` (:meth:`AnchorIndex.find`)."""
    return AnchorIndex(text).find(anchor) is not None
