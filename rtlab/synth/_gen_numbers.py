"""Numbers and names of the simulated workspaces: how a value is written, draws that keep facts unique.

A fact's value must be written in its own file and in no other file of its role, and its distorted twin
nowhere. :class:`Reserved` holds every such value (and the computed values of rubric items, which no file
states); every other number a generator writes is drawn by :func:`draw`, which refuses a value that
:func:`rtlab.text._numbers.matches` could take for a reserved one under any reading (the value itself, as a
percent or fraction, or the base of a scaled number). The window is wider than any match: a value with
three significant digits matches within half a unit of its last digit, 0.5% at most. Numbers with fewer
than three significant digits never match a fact (facts have at least three and never end in zero), so
small counts and years in templates are safe by construction.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rtlab.synth._vocab import (
    CODENAMES,
    COUNT,
    LEGAL_FORMS,
    MONEY,
    NAME_HEADS,
    NAME_TAILS,
    OPTION_LETTERS,
    PCT,
    SMALL,
    Metric,
)
from rtlab.text import Number, find_numbers, is_year_like, matches

REL_WINDOW = 0.006
"""Relative distance under which a drawn number counts as too close to a reserved one."""
YEAR_BAND = (1880.0, 2120.0)
"""A fact never reads (as itself, a percent or a fraction) as a number in this band: it could be a year."""
MIN_FACT_SIGNIFICANT = 3
MIN_FACT_COUNT = 1000


@dataclass(frozen=True)
class Num:
    """A number before it is written: the value, what it measures, how many decimals it is written with."""

    value: float
    kind: str
    decimals: int


def cell(num: Num, file_kind: str, *, where: str, currency: str) -> str | int | float:
    """What a file holds for ``num``: text for txt/md/csv, a JSON or spreadsheet number for json/xlsx.

    ``where`` is ``table`` (a table cell: money without its currency sign) or ``kv`` (a key figure or a
    sentence: money with it).
    """
    value, kind, d = num.value, num.kind, num.decimals
    if file_kind in ("json", "xlsx"):
        if kind in (COUNT, SMALL):
            return int(value)
        number = round(value, d)
        # openpyxl writes 2312.0 as 2312 and reads back an int
        return int(number) if file_kind == "xlsx" and number.is_integer() else number
    if file_kind == "csv":
        return str(int(value)) if kind in (COUNT, SMALL) else f"{value:.{d}f}"
    if kind in (COUNT, SMALL):
        return f"{int(value):,}"
    if kind == PCT:
        return f"{value:.{d}f}%"
    if kind == MONEY:
        return f"{currency if where == 'kv' else ''}{value:,.{d}f}"
    return f"{value:.{d}f}"


def printed(value: Any) -> str:
    """A cell as reading the file prints it (``str`` of a spreadsheet or JSON number, the text itself)."""
    return value if isinstance(value, str) else str(value)


def written(num: Num, file_kind: str, *, where: str, currency: str) -> str:
    return printed(cell(num, file_kind, where=where, currency=currency))


def single_number(text: str) -> Number | None:
    """The one number ``text`` writes, or ``None`` when it writes none or several."""
    found = find_numbers(text)
    return found[0] if len(found) == 1 else None


def _in_year_band(value: float) -> bool:
    v = abs(value)
    return any(YEAR_BAND[0] <= r <= YEAR_BAND[1] for r in (v, v * 100, v / 100))


def fact_shape_ok(text: str) -> bool:
    """A fact's written value: one number, three or more significant digits, not a year, not a small count."""
    n = single_number(text)
    if n is None or n.significant < MIN_FACT_SIGNIFICANT or is_year_like(n) or _in_year_band(n.value):
        return False
    digits = [c for c in text if c.isdigit()]
    if digits[-1] == "0":
        return False  # 38.0 would match a bare 38 elsewhere
    return not (n.decimals == 0 and not n.percent and abs(n.value) < MIN_FACT_COUNT)


# ---------------------------------------------------------------------------------------------------------
# Reserved values


def _core(text: str) -> str:
    """The digits of a written number with its separators (``€48,213.50`` -> ``48,213.50``)."""
    kept = "".join(c for c in text if c.isdigit() or c in ",.")
    return kept.strip(",.")


def writings(value: float, metric_kind: str, decimals: int) -> tuple[str, ...]:
    """Every way a file may write ``value``: plain, grouped, and as a spreadsheet or JSON number prints it."""
    if metric_kind in (COUNT, SMALL):
        v = int(value)
        return (str(v), f"{v:,}")
    number = round(value, decimals)
    shown = str(int(number)) if number.is_integer() else str(number)
    return (f"{value:.{decimals}f}", f"{value:,.{decimals}f}", str(number), shown)


@dataclass(frozen=True)
class Entry:
    """A reserved value: a fact (held by ``owner``), a distorted value or a computed one (held by no file)."""

    text: str
    number: Number | None
    owner: str | None
    what: str
    key: str


class Reserved:
    """The reserved values of one role, searchable by magnitude (every reading) and by text."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._keys: list[tuple[float, int]] = []
        self._cores: set[str] = set()
        self._core_lengths: list[int] = []

    def add(self, text: str, *, owner: str | None, what: str, key: str) -> Entry:
        number = single_number(text) if what != "name" else None
        entry = Entry(text, number, owner, what, key)
        index = len(self.entries)
        self.entries.append(entry)
        if number is not None:
            v = abs(number.value)
            for k in sorted({v, v * 100, v / 100, abs(number.base)}):
                bisect.insort(self._keys, (k, index))
            core = _core(text)
            self._cores.add(core)
            if len(core) not in self._core_lengths:
                self._core_lengths = sorted({*self._core_lengths, len(core)})
        return entry

    def in_writing(self, writings: tuple[str, ...]) -> bool:
        """Whether a reserved number's digits (``48,213.50`` of ``€48,213.50``) lie inside a writing."""
        cores, lengths = self._cores, self._core_lengths
        for w in writings:
            n = len(w)
            for i in range(n):
                for length in lengths:
                    if i + length > n:
                        break
                    if w[i : i + length] in cores:
                        return True
        return False

    def _near_indices(self, value: float) -> Iterator[int]:
        v = abs(value)
        lo = bisect.bisect_left(self._keys, (v * (1 - REL_WINDOW) - 1e-12, -1))
        hi = bisect.bisect_right(self._keys, (v * (1 + REL_WINDOW) + 1e-12, len(self.entries)))
        for _, index in self._keys[lo:hi]:
            yield index

    def near(self, value: float, *, ignore: Entry | None = None) -> bool:
        """Whether ``value`` lies in the window of some reserved value (other than ``ignore``)."""
        return any(self.entries[i] is not ignore for i in self._near_indices(value))

    def matched_by(self, found: Number) -> Iterator[Entry]:
        """Reserved values that ``found`` (a number written in some file) matches."""
        seen: set[int] = set()
        for value in (found.value, found.base):
            for i in self._near_indices(value):
                entry = self.entries[i]
                if i not in seen and entry.number is not None and matches(entry.number, found):
                    seen.add(i)
                    yield entry

    def text_clash(self, text: str, *, ignore: Entry | None = None) -> bool:
        """Whether ``text`` holds a reserved text or a reserved text holds it."""
        return any(e is not ignore and (e.text in text or text in e.text) for e in self.entries)


# ---------------------------------------------------------------------------------------------------------
# Draws


def _round(value: float, metric_kind: str, decimals: int) -> float:
    return float(round(value)) if metric_kind in (COUNT, SMALL) else round(value, decimals)


def draw(rng: random.Random, metric: Metric, reserved: Reserved, *, scale: float = 1.0) -> Num:
    """An ordinary value of ``metric`` (not a fact) that no reserved value can be mistaken for."""
    lo, hi = metric.lo * scale, metric.hi * scale
    value = 0.0
    for attempt in range(60):
        widen = 1.0 + attempt // 20  # a crowded range: look further up
        value = _round(rng.uniform(lo, hi * widen), metric.kind, metric.decimals)
        if metric.kind == SMALL:
            break
        if not reserved.near(value) and not reserved.in_writing(
            writings(value, metric.kind, metric.decimals)
        ):
            break
    else:
        raise RuntimeError(f"no free value for {metric.header} in {lo}..{hi}")
    return Num(value, metric.kind, metric.decimals)


def draw_fact(
    rng: random.Random,
    metric: Metric,
    reserved: Reserved,
    *,
    file_kind: str,
    where: str,
    currency: str,
) -> tuple[Num, str]:
    """A fact's value and its text as written in a ``file_kind`` file, unlike every reserved value."""
    lo = max(metric.lo, MIN_FACT_COUNT) if metric.kind == COUNT else metric.lo
    for _ in range(500):
        num = Num(
            _round(rng.uniform(lo, metric.hi), metric.kind, metric.decimals), metric.kind, metric.decimals
        )
        text = written(num, file_kind, where=where, currency=currency)
        if fact_shape_ok(text) and not reserved.near(num.value) and not reserved.text_clash(text):
            return num, text
    raise RuntimeError(f"no free fact value for {metric.header}")


def draw_stale(
    rng: random.Random, num: Num, reserved: Reserved, *, file_kind: str, where: str, currency: str
) -> str:
    """An older version's value of a fact: 2-15% off, written the same way, unlike every reserved value."""
    for _ in range(500):
        factor = 1 + rng.choice((-1, 1)) * rng.uniform(0.02, 0.15)
        stale = Num(_round(num.value * factor, num.kind, num.decimals), num.kind, num.decimals)
        text = written(stale, file_kind, where=where, currency=currency)
        if fact_shape_ok(text) and not reserved.near(stale.value) and not reserved.text_clash(text):
            return text
    raise RuntimeError("no free stale value")


def _transpose(rng: random.Random, text: str) -> str:
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    pairs = [(a, b) for a, b in zip(digits, digits[1:], strict=False) if text[a] != text[b]]
    if not pairs:
        return text
    a, b = rng.choice(pairs)
    chars = list(text)
    chars[a], chars[b] = chars[b], chars[a]
    return "".join(chars)


def _change_digit(rng: random.Random, text: str) -> str:
    digits = [i for i, c in enumerate(text) if c.isdigit()][1:]
    if not digits:
        return text
    i = rng.choice(digits)
    new = (int(text[i]) + rng.choice((1, 2, 3, 7, 8, 9))) % 10
    return text[:i] + str(new) + text[i + 1 :]


def distort(
    rng: random.Random,
    num: Num,
    text: str,
    metric: Metric,
    reserved: Reserved,
    entry: Entry,
    *,
    file_kind: str,
    where: str,
    currency: str,
) -> str:
    """A plausible wrong value for a fact: digits transposed or changed, the decimal point shifted, or a
    neighbouring row's value, written the same way; it neither matches the fact nor any reserved value."""
    fact = entry.number
    assert fact is not None
    for _ in range(500):
        how = rng.choice(("transpose", "transpose", "digit", "shift", "neighbour"))
        if how == "transpose":
            cand = _transpose(rng, text)
        elif how == "digit":
            cand = _change_digit(rng, text)
        else:
            if how == "shift":
                value = num.value * 10 if num.kind in (COUNT,) or rng.random() < 0.5 else num.value / 10
            else:
                value = rng.uniform(metric.lo, metric.hi)
            other = Num(_round(value, num.kind, num.decimals), num.kind, num.decimals)
            cand = written(other, file_kind, where=where, currency=currency)
        if cand == text or not fact_shape_ok(cand) or cand.startswith("0") and not text.startswith("0"):
            continue
        d = single_number(cand)
        if d is None or matches(fact, d) or matches(d, fact):
            continue
        if reserved.near(d.value, ignore=entry) or reserved.near(d.base, ignore=entry):
            continue
        if reserved.text_clash(cand):
            continue
        return cand
    raise RuntimeError(f"no distortion for {text}")


# ---------------------------------------------------------------------------------------------------------
# Names


def make_name(rng: random.Random, kind: str, *, industry: tuple[str, ...], options: tuple[str, ...]) -> str:
    """An invented company, option or project name."""
    if kind == "company":
        head, tail = rng.choice(NAME_HEADS), rng.choice(NAME_TAILS)
        return f"{head}{tail} {rng.choice(industry)} {rng.choice(LEGAL_FORMS)}"
    if kind == "option":
        return f"Option {rng.choice(OPTION_LETTERS)}: {rng.choice(options)}"
    return f"Project {rng.choice(CODENAMES)}"


def fresh_name(
    rng: random.Random,
    kind: str,
    reserved: Reserved,
    taken: set[str],
    *,
    industry: tuple[str, ...],
    options: tuple[str, ...],
) -> str:
    """A name of ``kind`` not yet used in the role and clashing with no reserved text."""
    for _ in range(2000):
        name = make_name(rng, kind, industry=industry, options=options)
        if name not in taken and not reserved.text_clash(name):
            taken.add(name)
            return name
    raise RuntimeError(f"no free {kind} name")
