"""The one number parser for analyses, and the rule that says when a number written in a text is a value.

``find_numbers(text)`` finds every number as written, in one compiled regex over the whole text (no Python
loop over characters: the 0.9 MB of shown text of the 15 real Codex runs parse in about 0.06 s; the cost is
per number found, about 4 µs each), and ``matches`` decides
whether a number found in some text is an expected value. ``NumberIndex`` answers "is this value anywhere
in this text?" for many values at once.

What counts as a number (:func:`find_numbers`)
----------------------------------------------
Input is read through a one-to-one character map first, so offsets stay those of the original text:
full-width digits and signs (``１２．５％``) read as ASCII, and the unicode minus ``−`` (and ``‒ – ﹣ －``)
as ``-``.

- Digits with an optional fraction ``.5`` and exponent ``e-05``; a fraction alone is a number too (``.4``, ``-.25``:
  tables that drop the leading zero), where no word, digit or point comes before it. Commas are thousands separators only in
  proper groups (``1,234,567``; ``1,234.5``); anywhere else a comma separates two numbers (``1,2,3`` is
  three numbers, ``1234,56`` is ``1234`` and ``56``). Integers written with a leading zero (``007``,
  ``0006``) are codes, not numbers.
- A sign ``-``/``+`` counts only where it cannot be a hyphen: not after a letter or digit (``2024-2026`` is
  ``2024`` and ``2026``; ``x-5`` is not ``-5``; nor after ``%``, ``)`` or ``]``: ``35%-45%``). Accounting
  parentheses are negative when what they hold is an amount, written with a currency symbol, thousands
  separators or decimals: ``(1,234)``, ``($5)``, ``(12.5)``. A bare integer in parentheses is a code, a year
  or an enumeration and stays positive: ``Huili B (900939)``, ``(2023)``, ``(1)`` (OfficeQA's scorer makes
  every non-year one negative; values here are compared by magnitude, so only ``value``'s sign differs).
- Currency symbols ``$ ¥ € £ ₹ ₩ ₽`` may precede the digits (also after a sign, ``-$5``); they are part of
  ``text`` but not of the value.
- ``%``, ``‰`` and the word ``percent`` after the number set ``percent``; the value stays as written
  (``12.3%`` has ``value == 12.3``).
- Scale words after the number multiply the value: ``thousand``, ``million``, ``billion``, ``trillion``,
  ``hundred million`` (1e8) and ``ten thousand`` (1e4) (spaced or not, any case, plural allowed); glued
  ``k``/``K``, ``M``, ``B``, ``bn``, ``mn`` (``$10M``; ``5 M`` is not scaled); Chinese ``千 万 十万 百万 千万
  亿 十亿 百亿 千亿 万亿`` (``千`` not before ``米 克 瓦 卡``). ``value`` is the number as written times
  ``scale``, ``base`` the number as written (``57,615.04 million``: ``base`` 57615.04, ``scale`` 1e6,
  ``value`` 57615040000.0).
- Not numbers at all (skipped whole, so none of their digits is found): dates ``2024-02-10``, ``2024/2/1``,
  ``10/02/2024``, ``2024-01`` (a four-digit year and a month); times ``16:30``, ``00:00:00``; versions and
  dotted codes ``4.4.0``, ``192.168.0.1``; ratios and paths ``1/100,000``, ``a/2/b``; digits glued to a
  letter or underscore before them or to letters followed by more digits after them (``ID010``, ``Q3``,
  ``v1``, ``2025Q1``, ``2601.12234v1``, ``e98f0f4f``, ``2019_report``); identifier parts after
  ``letter-`` (``DES-0006``, ``FA-2023``); numbers after ``#``, ``@``, ``&``, ``\\``. A unit glued after the
  number is fine: ``500ms`` is 500, ``5th`` is 5, ``3kg`` is 3.

When a found number matches an expected one (:func:`matches`)
-------------------------------------------------------------
Values are compared by magnitude: the sign is ignored, because deliverables write a fall as "down 8.97%"
as often as "-8.97%" (``signed=True`` makes the sign count). Several readings of the pair are tried and
any one that agrees is a match:

1. ``value`` against ``value`` (scales applied: ``1.2345万`` is 12345; ``RMB 463 million`` is 463000000).
2. One side a percent, the other not: the plain number as the same percent (a table column headed "%":
   ``12.3`` for ``12.3%``) or as a fraction (``0.123`` for ``12.3%``).
3. One side scaled, the other not: the scaled side's ``base`` against the other's value (a table "in RMB
   million" holding ``463`` for ``463 million``). Scaled values are never compared with another scale's base.

A reading agrees when the two values are within ``rel_tol`` of each other (relative to the larger; default
1e-9, float noise), or, with ``rounding=True``:

- within half a unit of the expected value's last written digit (its ``ulp``: ``10**-decimals * scale``).
  ``12.3%`` matches ``12.34%`` and ``12.35%``, not ``12.36%``; ``57,615.04 million`` matches
  ``57615040000`` and ``57,615,043,210``; ``534`` matches ``534.0`` and ``534.4``; or
- the found number is written less precisely than the expected one, has at least three significant digits,
  and the expected value rounds to it (within half of the found number's ``ulp``): ``1,710,971.47`` matches
  ``1,710,971`` and ``$1.71 million``; ``12.34%`` matches ``12.3%``. Two significant digits are too few to
  call a rounding a match: ``50.4%`` does not match ``50%``, and ``12,345`` does not match ``1.2万``.

Near misses that do not match: ``1234`` vs ``12345``; ``12.3`` vs ``123``; ``1234.5`` vs ``1234.56``
(``1234.56`` rounds to ``1234.6``); ``12.3%`` vs ``1.23``. The comparison knows nothing of context: the
year ``2023`` in a text matches an expected amount of 2023. Context is judged where values are chosen
(:func:`rtlab.analysis._values.expected_values` keeps a year-like integer only when the rubric makes it an amount or asks
for a year), and dates are not numbers at all, so ``2023-05-01`` never matches ``2023``.

CSV in a text (:class:`NumberIndex`)
------------------------------------
A comma between digit groups is ambiguous in raw CSV (``Project,534,476`` holds 534 and 476, not 534476).
``NumberIndex`` also reads each comma-separated piece of a grouped number as a number of its own when the
number's line reads as CSV: it has a comma with no space after it that is not between two digits
(``2024-01-05,Project 1,534,476``). Prose (``Total: 1,534,476 yuan, up 5%``) does not, so 534 is not found
there. A line of digits and commas only (``534,476,436``) cannot be told from one grouped number and is read
as one.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

YEAR_RANGE = (1900, 2100)
"""Inclusive bounds of a year-like integer."""
MIN_SIGNIFICANT_FOR_ROUNDING = 3
"""A found number written less precisely than the expected value needs this many significant digits."""

_CHAR_MAP_DICT = {
    **{chr(0xFF10 + i): str(i) for i in range(10)},
    "\uff0e": ".",  # full-width full stop (the full-width comma is a clause mark in Chinese: left alone)
    "\uff05": "%",
    "\uff0b": "+",
    "\uff04": "$",
    "\uffe5": "¥",
    "\uff08": "(",
    "\uff09": ")",
    "\u2212": "-",  # minus sign
    "\u2012": "-",  # figure dash
    "\u2013": "-",  # en dash
    "\ufe63": "-",  # small hyphen-minus
    "\uff0d": "-",  # full-width hyphen-minus
}
_CHAR_MAP_KEYS = tuple(_CHAR_MAP_DICT)
_CURRENCY = "$¥€£₹₩₽"
_WORD_SCALES = {
    "thousand": 1e3,
    "ten thousand": 1e4,
    "million": 1e6,
    "hundred million": 1e8,
    "billion": 1e9,
    "trillion": 1e12,
}
_GLUED_SCALES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9, "mn": 1e6}
_CJK_SCALES = {
    "千": 1e3,
    "万": 1e4,
    "十万": 1e5,
    "百万": 1e6,
    "千万": 1e7,
    "亿": 1e8,
    "十亿": 1e9,
    "百亿": 1e10,
    "千亿": 1e11,
    "万亿": 1e12,
}

_YEAR = r"(?:1[89]|20)\d\d"
_NOT_AFTER = r"(?<![A-Za-z0-9_.\\/#@&])(?<![A-Za-z_]-)"  # not glued to a word, a path, a code
_PATTERN = re.compile(
    rf"""
    (?=[0-9(+\-{_CURRENCY}]|\.\d)  # cheap first test: most positions fail here
    (?:
    (?P<skip>
        (?<![A-Za-z0-9_.:/-])
        (?: {_YEAR}[-/.]\d{{1,2}}[-/.]\d{{1,2}}          # 2024-02-10, 2024/2/1, 2024.02.10
          | \d{{1,2}}[-/.]\d{{1,2}}[-/.]{_YEAR}          # 10/02/2024
          | {_YEAR}-(?:0?[1-9]|1[0-2])(?![0-9.])         # 2024-01
          | \d{{1,2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?     # 16:30, 00:00:00.5
          | \d+(?:\.\d+){{2,}}                           # 4.4.0, 192.168.0.1
          | {_YEAR}\.\d{{1,2}}\s?[-~]\s?{_YEAR}\.\d{{1,2}}   # 2013.09-2018.07
        )
        (?![0-9])
    )
    |
    (?P<num>
        {_NOT_AFTER}
        (?:(?P<paren>\()(?=[-+]?[{_CURRENCY}]?[-+]?\.?\d))?
        (?:(?<![%)\]])(?P<sign>[-+]))?
        (?:(?P<cur>[{_CURRENCY}])(?P<sign2>[-+])?)?
        (?!0\d)
        (?P<int>\d{{1,3}}(?:,\d{{3}})+(?![0-9])|\d+|(?=\.\d))  # empty: a leading-point decimal, .4
        (?P<frac>\.\d+)?
        (?P<exp>[eE][-+]?\d{{1,3}}(?![A-Za-z0-9_]))?
        (?![0-9_])(?![.:/]\d)(?![A-Za-z]*[0-9])(?![Xx*]{{2}})
        (?:
            (?P<pct>\s?[%‰]|\s(?i:percent(?:age\s+points?)?)\b)
          | (?P<cjk>\s?(?:万亿|千亿|百亿|十亿|亿|千万|百万|十万|万|千(?![米克瓦卡])))
          | (?P<glued>(?:bn|mn|[kKMB])(?![A-Za-z0-9_]))
          | \s?(?P<word>(?i:hundred\s+million|ten\s+thousand|thousand|million|billion|trillion))(?i:s)?\b
        )?
        (?(paren)\))
    )
    )
    """,
    re.VERBOSE,
)
_NEEDS_MAP = re.compile("[" + "".join(re.escape(c) for c in _CHAR_MAP_KEYS) + "]")
_CSV_COMMA = re.compile(r"(?<![0-9\s]),(?!\s)|,(?![0-9\s])")
"""A comma as CSV writes it: no space after, and not between two digits."""


@dataclass(frozen=True, slots=True)
class Number:
    """A number as written in a text: its value, where it is, and what its writing says about precision."""

    value: float
    """The number as written times ``scale``, with its sign (accounting parentheses negative)."""
    text: str
    """Exactly as written, sign, currency, percent and scale word included (``$1,234.5``, ``3.2万``)."""
    start: int
    """Where ``text`` starts in the text searched (a character offset)."""
    end: int
    """Where it ends: ``text`` is the searched text's ``[start:end]``."""
    percent: bool
    """Written with ``%``, ``‰`` or ``percent``; ``value`` is then the percent as written (12.3 for 12.3%)."""
    scale: float
    """1, or the multiplier of the scale word: 1e3, 1e4 (万), 1e6, 1e8 (亿), 1e9, ..."""
    decimals: int
    """Digits after the decimal point as written (less the exponent); precision is ``10**-decimals * scale``."""
    base: float
    """The number as written, without the scale (57615.04 for ``57,615.04 million``), with its sign."""

    @property
    def ulp(self) -> float:
        """One unit of the last written digit, in the units of ``value``."""
        return 10.0 ** (-self.decimals) * self.scale

    @property
    def significant(self) -> int:
        """Significant digits as written (leading zeros not counted; trailing zeros of an integer are)."""
        digits = re.sub(r"[eE][-+]?\d+", "", _mapped(self.text))
        digits = re.sub(r"[^0-9]", "", digits).lstrip("0")
        return max(len(digits), 1)


def _scale(cjk: str | None, glued: str | None, word: str | None) -> float:
    if cjk:
        return _CJK_SCALES[cjk.strip()]
    if glued:
        return _GLUED_SCALES[glued]
    if word:
        return _WORD_SCALES[" ".join(word.lower().split())]
    return 1.0


def _number(m: re.Match[str], original: str) -> Number:
    _, num, paren, sign, cur, sign2, digits, frac, exp, pct, cjk, glued, word = m.groups()
    start, end = m.span(2)
    if not (paren or sign or cur or frac or exp or pct or cjk or glued or word) and "," not in digits:
        value = float(digits)  # the common case: a plain integer
        return Number(value, original[start:end], start, end, False, 1.0, 0, value)
    power = int(exp[1:]) if exp else 0
    base = float(f"{digits.replace(',', '')}{frac or ''}e{power}")  # 1e999 is inf, never an OverflowError
    decimals = max((len(frac) - 1 if frac else 0) - power, 0)
    accounting = bool(paren) and bool(cur or frac or "," in digits)
    if accounting or sign == "-" or sign2 == "-":
        base = -base
    scale = _scale(cjk, glued, word)
    return Number(base * scale, original[start:end], start, end, bool(pct), scale, decimals, base)


def _mapped(text: str) -> str:
    """``text`` with full-width digits and unicode minus signs as ASCII, same length (skipped when not needed)."""
    return _NEEDS_MAP.sub(_map_char, text)


def _map_char(m: re.Match[str]) -> str:
    return _CHAR_MAP_DICT[m.group()]


def find_numbers(text: str) -> list[Number]:
    """Every number written in ``text``, in order (the rules are in the module docstring)."""
    mapped = _mapped(text)
    numbers = [_number(m, text) for m in _PATTERN.finditer(mapped) if m["num"] is not None]
    return [n for n in numbers if math.isfinite(n.value)]


# ---------------------------------------------------------------------------------------------------------
# Matching


def _readings(expected: Number, found: Number) -> Iterable[tuple[float, float, float, float]]:
    """``(expected, found, expected ulp, found ulp)`` for every reading of the pair (see the docstring)."""
    e, f = expected, found
    yield e.value, f.value, e.ulp, f.ulp  # also a plain number in a "%" column when one side is a percent
    if e.percent != f.percent:
        if e.percent:
            yield e.value, f.value * 100, e.ulp, f.ulp * 100  # found as a fraction
        else:
            yield e.value, f.value / 100, e.ulp, f.ulp / 100
    if e.scale != 1 and f.scale == 1:
        yield e.base, f.value, 10.0**-e.decimals, f.ulp
    elif f.scale != 1 and e.scale == 1:
        yield e.value, f.base, e.ulp, 10.0**-f.decimals


def matches(
    expected: Number, found: Number, *, rel_tol: float = 1e-9, rounding: bool = True, signed: bool = False
) -> bool:
    """True when ``found`` writes the value ``expected`` stands for (the exact rule is in the module docstring)."""
    if signed and (expected.value < 0) != (found.value < 0) and expected.value != 0 and found.value != 0:
        return False
    coarse_ok = found.significant >= MIN_SIGNIFICANT_FOR_ROUNDING
    for ev, fv, e_ulp, f_ulp in _readings(expected, found):
        ev, fv = abs(ev), abs(fv)
        diff = abs(ev - fv)
        slack = 1e-9 * max(ev, fv)  # float noise in the ulp comparisons
        if diff <= rel_tol * max(ev, fv) or diff == 0:
            return True
        if not rounding:
            continue
        if diff <= e_ulp / 2 + slack:
            return True
        if coarse_ok and f_ulp > e_ulp and diff <= f_ulp / 2 + slack:
            return True
    return False


# ---------------------------------------------------------------------------------------------------------
# Finding values in a text


def _csv_pieces(mapped: str, n: Number) -> list[Number]:
    """Each comma-separated piece of a grouped number, when the number's line reads as CSV."""
    if "," not in n.text or n.scale != 1 or n.percent:
        return []
    line_start = mapped.rfind("\n", 0, n.start) + 1
    line_end = mapped.find("\n", n.end)
    if not _CSV_COMMA.search(mapped, line_start, len(mapped) if line_end < 0 else line_end):
        return []
    pieces, offset = [], n.start
    for part in n.text.split(","):
        pieces += [replace(p, start=offset + p.start, end=offset + p.end) for p in find_numbers(part)]
        offset += len(part) + 1
    return pieces


class NumberIndex:
    """The numbers of one text, sorted by magnitude, to ask quickly whether a value is written there."""

    def __init__(self, text: str) -> None:
        self.numbers: list[Number] = find_numbers(text)
        if any("," in n.text for n in self.numbers):
            mapped = _mapped(text)
            extra = [p for n in self.numbers for p in _csv_pieces(mapped, n)]
            self.numbers.extend(extra)
        keyed: list[tuple[float, int]] = []
        for i, n in enumerate(self.numbers):
            v = abs(n.value)
            for key in {v, v * 100, v / 100, abs(n.base)}:
                keyed.append((key, i))
        keyed.sort()
        self._keys = [k for k, _ in keyed]
        self._owners = [i for _, i in keyed]

    def __len__(self) -> int:
        return len(self.numbers)

    def find(self, expected: Number, *, rel_tol: float = 1e-9, rounding: bool = True) -> Number | None:
        """The first number (in text order) that matches ``expected``, or None."""
        best: Number | None = None
        for target in {abs(expected.value), abs(expected.base)}:
            window = max(expected.ulp, 10.0**-expected.decimals, 0.01 * target, rel_tol * target) + 1e-12
            lo = bisect.bisect_left(self._keys, target - window)
            hi = bisect.bisect_right(self._keys, target + window)
            for i in self._owners[lo:hi]:
                n = self.numbers[i]
                if (best is None or n.start < best.start) and matches(
                    expected, n, rel_tol=rel_tol, rounding=rounding
                ):
                    best = n
        return best


_INDEXED_CHARS = 1 << 15
"""Texts up to this long are kept by :func:`number_index`, 64 of them at most: what the cache holds stays
bounded (a dense 32K-character table holds a few thousand numbers)."""


@functools.lru_cache(maxsize=64)
def _kept_index(text: str) -> NumberIndex:
    return NumberIndex(text)


def number_index(text: str) -> NumberIndex:
    """:class:`NumberIndex` of ``text``, kept for texts asked about again: an observation that many runs over one
    workspace were shown, an excerpt that is a step's whole observation. Treat it as read-only."""
    return _kept_index(text) if len(text) <= _INDEXED_CHARS else NumberIndex(text)


def is_year_like(n: Number) -> bool:
    """A bare integer 1900-2100 as written: no separator, sign, decimals, scale, percent or currency."""
    return (
        re.fullmatch(r"\(?\d{4}\)?", _mapped(n.text)) is not None
        and YEAR_RANGE[0] <= n.value <= YEAR_RANGE[1]
    )
