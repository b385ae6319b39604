"""Where a computed answer comes from: a bounded search for a small expression over the tables a run was shown
(and over the task's source files, when given) that gives the expected value (codebook 2.2, rules R7d, R9,
R10, R9b).

A question-answering item (one expected number, a deliverable that states one number) often expects a value
that no text states: a calendar-year total summed from twelve monthly cells, a mean of three months, a
percentage change between two years. Such a value can still be traced to what the run was shown:

- **Tables** (:func:`tables_of`): runs of ``|``-separated lines (a harness's or the agent's own line numbers
  before them are dropped), each row with its label (its first cell, when that is text or a year) and each
  column with its header (the lines above a ``---`` separator, else the first line).
- **Expressions** (:data:`ExpressionKind`), over one row or one column of one table: one cell; the sum or the
  mean of a contiguous run of cells (two or more); the difference, ratio or relative change of two cells of
  the line. A value counts when it is the expected value to the last digit it is written with and within
  :data:`TOLERANCE` (a percentage also as a fraction).
- **Statistics a question names** (:data:`STATISTICS`, codebook 2.5): a standard deviation or a variance
  (the population's, the sample's, or both when the question does not say), a coefficient of variation, a
  median (runs of three cells or more), a geometric mean (two or more), and a compound annual growth rate
  between two cells (one period a cell). Searched only when the question names them: a run has many more
  ways to hit a value by chance than a sum has.
- **As that quantity, never by chance**: an expression counts only when its line's label or the headers of its
  cells share a term with the question that names a quantity, not a period (:func:`quantity_terms`: months,
  years, ``fiscal`` or ``calendar`` name when, not what); a large table holds many numbers with the expected
  digits, and a sum, mean or pair, which have many more ways to hit them, must share
  :data:`MIN_COMPUTED_OVERLAP` terms. Among the expressions that give the value, the one sharing most terms with the question,
  then the simplest, is kept.
- **The period asked**: a line whose names carry years (its label, its cells' headers or labels) holds the
  question's quantity only when one of those years falls in the span of the years the question names
  (:func:`period_agrees`; a year either side for fiscal years): the same digits in another year's line are a
  coincidence.
- **The operation asked**: a question that names operations (a total, an average, a change, a ratio:
  :data:`OPERATIONS`) is searched for those and single cells only.
- **Source files** are searched only for what the shown tables do not give, and more strictly: a whole file
  holds many times more lines than a run is shown, so the line must share at least half of the question's
  quantity terms (and two whatever the kind), counting those of its table's caption (:attr:`Table.caption`:
  the title, units line and section heading just above it, which in a whole document say what the table
  holds). The folder is given, or found near each run (``sources="auto"``, :class:`SourceFinder`).
- **Neighbours** (:func:`explain_answer`): the delivered answer is tested against the same expression over
  the neighbouring lines of its table (other rows for a row's run, other columns for a column's), the run
  moved or resized within its line, the line of the same label in another table (another bulletin, a revised
  figure), and a single cell whose row or column carries the expression's label (a fiscal-year total where a
  calendar year was asked, a total where a component was). One that reproduces the answer explains it: the
  right operands were shown and the wrong ones used.

The search is bounded (:data:`MAX_CANDIDATES` expressions in all) and reports how many it evaluated. A line
whose label and headers, all of them, share too few terms with the question holds no expression that could
count: none of its expressions is evaluated (codebook 2.5; the same finds, a fraction of the budget).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rtlab.text import Number, find_numbers, is_year_like, terms

ExpressionKind = Literal[
    "cell",
    "sum",
    "mean",
    "difference",
    "ratio",
    "change",
    "pstdev",
    "stdev",
    "pvariance",
    "variance",
    "geomean",
    "median",
    "pcv",
    "cv",
    "cagr",
]
"""What an expression computes over its cells (the module's docstring defines each; the statistics,
:data:`STATISTICS`, only when a question names them)."""
KIND_NAMES: dict[str, str] = {
    "pstdev": "population standard deviation",
    "stdev": "sample standard deviation",
    "pvariance": "population variance",
    "variance": "sample variance",
    "geomean": "geometric mean",
    "median": "median",
    "pcv": "coefficient of variation (population)",
    "cv": "coefficient of variation (sample)",
    "cagr": "compound annual growth rate",
}
"""How a statistic's kind is written in a rationale (the other kinds by their own names)."""
RUNS: frozenset[ExpressionKind] = frozenset(
    {"sum", "mean", "pstdev", "stdev", "pvariance", "variance", "geomean", "median", "pcv", "cv"}
)
"""The kinds over a contiguous run of cells (their ``cells``: the run's first and last)."""
MIN_STATISTIC_RUN = 3
"""Fewest cells a run's dispersion or median is taken over (of two cells they are a difference or a mean)."""
MIN_RUN: dict[str, int] = {"geomean": 2, "sum": 2, "mean": 2}
"""Fewest cells a run of a kind holds; :data:`MIN_STATISTIC_RUN` for the other run statistics."""
TOLERANCE = 0.001
"""Relative difference within which an expression's value is the expected value (besides the last written
digit)."""
MAX_CANDIDATES = 3_000_000
"""Expressions evaluated per search at most (vectorised: about a second); a search cut there says so."""
MIN_COMPUTED_OVERLAP = 2
"""Quantity terms a computed expression's line must share with the question (one for a single cell): a run
or a pair has many more ways to hit the expected digits by chance."""
MAX_RUN = 40
"""Longest run of cells summed or averaged."""
MAX_SHIFT = 12
"""How far a run is moved within its line, or resized, when neighbours are tried."""

CAPTION_LINES = 3
"""Short lines above a table kept as its caption."""
CAPTION_REACH = 10
"""How many lines above a table its caption is looked for (a title, a units line, a section heading above an
introductory paragraph)."""
CAPTION_WIDTH = 100
"""A line longer than this is prose, not a title: skipped when looking for a caption."""

_PREFIX = re.compile(r"^\s*(?:[^\s:|]+:)?\d+\s*(?::|\t|→)\s*")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}")


@dataclass
class Table:
    """One table of a shown text: its cells' numbers, row labels and column headers."""

    source: str
    """Where it was shown: ``step N`` (or a source file's name, for the workspace)."""
    step: int | None
    """The step whose output showed it (``None`` for a workspace file)."""
    rows: list[list[float | None]]
    """Per data row, per column, the cell's number (``None``: text, empty or several numbers)."""
    labels: list[str]
    """Per data row, its label (its first cell's text when that cell is text or a year; else empty)."""
    headers: list[str]
    """Per column, its header text (empty when the table has none)."""
    lines: list[str]
    """Per data row, the line as shown (for evidence)."""
    caption: str = ""
    """The short lines just above the table in its text (its title, a section heading, its units:
    :data:`CAPTION_LINES` of them at most, within :data:`CAPTION_REACH` lines; empty when none)."""


@dataclass(frozen=True)
class Expression:
    """A small expression over the cells of one line of one table, with its value."""

    kind: ExpressionKind
    """What it computes (:data:`ExpressionKind`)."""
    table: int
    """The table's index in the searched list."""
    axis: Literal["row", "column"]
    """Whether its cells lie along a row or down a column."""
    line: int
    """The row (axis ``row``) or column (axis ``column``) index."""
    cells: tuple[int, ...]
    """The positions along the line: a run's first and last, or the two cells of a pair (first, second)."""
    value: float
    """What it gives."""
    overlap: int = 0
    """Terms the line's label and the cells' headers share with the question."""

    def describe(self, tables: Sequence[Table]) -> str:
        t = tables[self.table]
        where = (
            f"row {t.labels[self.line]!r}" if self.axis == "row" and t.labels[self.line] else f"{self.axis}"
        )
        if self.axis == "column":
            where = f"column {t.headers[self.line]!r}" if t.headers[self.line] else "a column"
        span = (
            f"cells {self.cells[0] + 1}-{self.cells[-1] + 1}"
            if self.kind in RUNS
            else "cells " + ", ".join(str(c + 1) for c in self.cells)
        )
        name = KIND_NAMES.get(self.kind, self.kind)
        return f"the {name} of {span} of {where} ({t.source}) = {_fmt(self.value)}"


@dataclass
class Search:
    """The result of a bounded search."""

    found: Expression | None
    """The best expression giving the target, if any."""
    evaluated: int = 0
    """Expressions evaluated."""
    cut: bool = False
    """The search stopped at :data:`MAX_CANDIDATES`."""
    tables: list[Table] = field(default_factory=list)
    """The tables searched (the expression's ``table`` indexes them)."""


def _fmt(v: float) -> str:
    return f"{v:.6g}" if abs(v) < 1e6 else f"{v:.0f}"


# ---------------------------------------------------------------------------------------------------------
# Tables


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def _number(cell: str) -> float | None:
    """The cell's number when the cell is one number (a footnote mark such as ``2/`` or ``r`` allowed)."""
    found = find_numbers(cell)
    if not found:
        return None
    first = found[0]
    rest = (cell[: first.start] + cell[first.end :]).strip()
    rest = re.sub(r"\b\d{1,2}/|[*†‡]|\br\b|\bp\b|\be\b", "", rest).strip()
    if len(found) > 1 and not all(re.fullmatch(r"\d{1,2}/", n.text + "/") for n in found[1:]):
        if rest or len(found) > 2:
            return None
    if re.search(r"[A-Za-z]{2,}", rest):
        return None
    return first.value if math.isfinite(first.value) else None


def _label(cell: str) -> str | None:
    """A row's label: its first cell when that is text or a year (``1940``, ``1946-December``)."""
    if not cell:
        return None
    found = find_numbers(cell)
    if not found or re.search(r"[A-Za-z\u4e00-\u9fff]{2,}", cell):
        return cell
    if len(found) == 1 and is_year_like(found[0]):
        return cell
    return None


def tables_of(text: str, *, source: str, step: int | None = None) -> list[Table]:
    """The tables of ``text`` (the module's docstring)."""
    out: list[Table] = []
    block: list[str] = []
    above: list[str] = []  # the lines since the last table, at most CAPTION_REACH

    def close() -> None:
        if len(block) >= 2:
            table = _table(block, source=source, step=step)
            if table is not None:
                table.caption = _caption(above)
                out.append(table)
        if block:
            above.clear()
        block.clear()

    for raw in text.splitlines():
        line = _PREFIX.sub("", raw, count=1) if "|" in raw else raw
        if line.count("|") >= 2:
            block.append(line)
        else:
            close()
            above.append(line)
            if len(above) > CAPTION_REACH:
                del above[0]
    close()
    return out


def _caption(above: Sequence[str]) -> str:
    """The caption of a table from the lines above it (:attr:`Table.caption`): the nearest
    :data:`CAPTION_LINES` short, non-empty ones, top to bottom."""
    kept: list[str] = []
    for line in reversed(above):
        text = line.strip()
        if text and len(text) <= CAPTION_WIDTH:
            kept.append(text)
            if len(kept) == CAPTION_LINES:
                break
    return " ".join(reversed(kept))


def _table(block: list[str], *, source: str, step: int | None) -> Table | None:
    sep = next((i for i, line in enumerate(block) if _SEPARATOR.match(line)), None)
    header_lines = block[:sep] if sep is not None else block[:1]
    data = block[sep + 1 :] if sep is not None else block[1:]
    parsed = [_cells(line) for line in data if not _SEPARATOR.match(line)]
    kept = [line for line in data if not _SEPARATOR.match(line)]
    if not parsed:
        return None
    width = max(len(r) for r in parsed)
    headers = [""] * width
    for line in header_lines:
        for j, cell in enumerate(_cells(line)[:width]):
            if cell and not re.fullmatch(r"__EMPTY(_\d+)?|nan|Unnamed: \d+", cell):
                headers[j] = f"{headers[j]} {cell}".strip()
    rows: list[list[float | None]] = []
    labels: list[str] = []
    for cells in parsed:
        label = _label(cells[0]) if cells else None
        labels.append(label or "")
        values: list[float | None] = [None] * width
        for j, cell in enumerate(cells):
            if j == 0 and label is not None:
                continue
            values[j] = _number(cell)
        rows.append(values)
    if not any(v is not None for r in rows for v in r):
        return None
    return Table(source=source, step=step, rows=rows, labels=labels, headers=headers, lines=kept)


def shown_tables(steps: Iterable[tuple[int, str]]) -> list[Table]:
    """The tables of every step's shown text, ``(step index, shown)`` pairs in order."""
    return [t for index, shown in steps for t in tables_of(shown, source=f"step {index}", step=index)]


# ---------------------------------------------------------------------------------------------------------
# The search


def _matches(values: Any, target: Number) -> Any:
    """Elementwise: the value is ``target`` to its last written digit and within :data:`TOLERANCE` (a
    percentage also read as a fraction)."""
    import numpy as np

    v = np.asarray(values, dtype=float)
    out = np.zeros(v.shape, dtype=bool)
    goals = [(target.value, target.ulp)]
    if target.percent:
        goals.append((target.value / 100, target.ulp / 100))
    with np.errstate(all="ignore"):
        for goal, ulp in goals:
            close = np.abs(v - goal) <= ulp / 2 + 1e-9 * abs(goal)
            rel = np.abs(v - goal) <= TOLERANCE * np.maximum(np.abs(v), abs(goal))
            out |= close & rel & np.isfinite(v)
    return out


def _lines(table: Table) -> Iterator[tuple[Literal["row", "column"], int, list[int], list[float]]]:
    """Each row and each column of ``table``: (axis, index, positions of numeric cells, their values)."""
    for i, row in enumerate(table.rows):
        pos = [j for j, v in enumerate(row) if v is not None]
        if pos:
            yield "row", i, pos, [row[j] for j in pos]  # type: ignore[misc]
    width = max((len(r) for r in table.rows), default=0)
    for j in range(width):
        pos = [i for i, r in enumerate(table.rows) if j < len(r) and r[j] is not None]
        if pos:
            yield "column", j, pos, [table.rows[i][j] for i in pos]  # type: ignore[misc]


_PERIOD = re.compile(
    r"^(?:\d+|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t|tember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|year|years|month|months|monthly|annual|fiscal|calendar|quarter|"
    r"week|weeks|weekly|day|days|daily|end|ended|ending|period|est|estimate|actual|half|first|second|third|"
    r"fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|last|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|fy|cy|q[1-4]|h[12])$"
)
"""Terms that name a period, not a quantity: months, numbers, ``fiscal``, ``calendar``, ``year``, ...; a line
shares the question's quantity only through other terms."""


_NOT_QUANTITY = re.compile(
    r"^(?:answer|answers|report|reported|reporting|round|rounded|rounding|nearest|decimal|decimals|places?|"
    r"commas?|numeric|numerical|value|values|number|numbers|single|using|use|used|data|calculate|calculated|"
    r"tenths?|hundredths?|thousandths?|"
    r"compute|computed|find|express|expressed|provide|give|given|according|based|figure|figures|nominal|real|"
    r"dollars?|cents?|units?|millions?|billions?|thousands?|trillions?|percent|percentage|points?|bulletins?|"
    r"treasury|department|statistics|statistical|table|tables|total|totals|sum|average|mean|amount|amounts|"
    r"overall|net|change|difference|ratio|rate|rates|growth|increase|decrease|standard|deviations?|geometric|"
    r"medians?|variances?|coefficient|variation|compound|compounded|cagr)$"
)
"""Words a question uses about its answer or its operation, not to name the quantity (the answer's format and
units, the sources, an operation's name: a label sharing only these names nothing the question asks)."""


_STATISTIC_OF = re.compile(r"\b(?:population|sample)\s+(?=(?:standard\s+deviation|variance)\b)", re.I)
"""``population`` / ``sample`` naming which standard deviation or variance, not a quantity."""


def quantity_terms(text: str) -> set[str]:
    """The terms of ``text`` that name a quantity: periods (:data:`_PERIOD`) and words about the answer or its
    operation (:data:`_NOT_QUANTITY`, :data:`_STATISTIC_OF`) left out."""
    text = _STATISTIC_OF.sub(" ", text)
    return {t for t in terms(text) if not _PERIOD.match(t) and not _NOT_QUANTITY.match(t)}


_YEAR = re.compile(r"(?<!\d)(?<!\d[.,])(1[89]\d\d|20\d\d)(?!\d|[.,]\d)")
YEAR_SLACK = 1
"""Years beyond the question's own that a line may name (a fiscal year straddling a calendar one)."""


def years_of(text: str) -> set[int]:
    """The years ``text`` names (four digits, 1800-2099, not part of a longer number)."""
    return {int(m) for m in _YEAR.findall(text)}


def line_years(table: Table, axis: str, line: int, cells: Sequence[int]) -> set[int]:
    """The years naming a line's cells (the names :func:`line_terms` reads)."""
    return years_of(" ".join(_line_names(table, axis, line, cells)))


def period_agrees(named: set[int], asked: set[int]) -> bool:
    """A line naming years ``named`` can hold a question's quantity about years ``asked``: one of them falls in
    the question's span (:data:`YEAR_SLACK` either side), or either names none."""
    if not named or not asked:
        return True
    lo, hi = min(asked) - YEAR_SLACK, max(asked) + YEAR_SLACK
    return any(lo <= y <= hi for y in named)


PAIRS: frozenset[ExpressionKind] = frozenset({"difference", "ratio", "change", "cagr"})
"""The kinds over two cells picked anywhere in a line: each cell must be named by the question
(:func:`operand_named`)."""


def operand_named(table: Table, axis: str, cell: int, named: set[str]) -> bool:
    """Whether one operand of a pair is named by the question: its own name (its column header on a row, its row
    label in a column) shares a term with ``named`` (the question's quantity terms, periods and years). A line of
    n cells holds n(n-1) ordered pairs, and their ratios and changes cover small values densely: a pair of
    unnamed cells hits the expected digits by chance."""
    if axis == "row":
        name = table.headers[cell] if cell < len(table.headers) else ""
    else:
        name = table.labels[cell] if cell < len(table.labels) else ""
    return bool(set(terms(name)) & named)


def line_terms(
    table: Table, axis: str, line: int, cells: Sequence[int], *, caption: bool = False
) -> set[str]:
    """The quantity terms naming a line's cells (:func:`_line_names`); with ``caption``, the table's caption's
    too."""
    words = _line_names(table, axis, line, cells)
    if caption:
        words.append(table.caption)
    return quantity_terms(" ".join(words))


def _line_names(table: Table, axis: str, line: int, cells: Sequence[int]) -> list[str]:
    """What names a line's cells: the row's label and the cells' column headers (axis ``row``), or the
    column's header and the cells' row labels (axis ``column``)."""
    if axis == "row":
        return [table.labels[line], *(table.headers[c] for c in cells if c < len(table.headers))]
    return [table.headers[line] if line < len(table.headers) else "", *(table.labels[c] for c in cells)]


def candidates(
    vals: Sequence[float], kinds: Sequence[ExpressionKind] | None = None
) -> list[tuple[ExpressionKind, Any, Any]]:
    """Every expression of one line of ``kinds`` (the simple ones, :data:`_SIMPLE`, by default), vectorised:
    (kind, values, index pairs into ``vals``). Overflow and division by zero give inf or NaN, which match
    nothing."""
    import numpy as np

    wanted = set(kinds) if kinds is not None else set(_SIMPLE)
    v = np.asarray(vals, dtype=float)
    n = len(v)
    out: list[tuple[ExpressionKind, Any, Any]] = []
    with np.errstate(all="ignore"):
        if "cell" in wanted:
            out.append(("cell", v, np.stack([np.arange(n), np.arange(n)], axis=1)))
        if n < 2:
            return out
        runs = wanted & {"sum", "mean", "geomean"}
        if runs:
            i, j = np.triu_indices(n, k=1)
            keep = (j - i) < MAX_RUN
            i, j = i[keep], j[keep]
            size = (j - i + 1).astype(float)
            idx = np.stack([i, j], axis=1)
            prefix = np.concatenate([[0.0], np.cumsum(v)])
            sums = prefix[j + 1] - prefix[i]
            if "sum" in runs:
                out.append(("sum", sums, idx))
            if "mean" in runs:
                out.append(("mean", sums / size, idx))
            if "geomean" in runs:
                logs = np.log(np.where(v > 0, v, 1.0))
                bad = np.concatenate([[0], np.cumsum(v <= 0)])
                lp = np.concatenate([[0.0], np.cumsum(logs)])
                geo = np.exp((lp[j + 1] - lp[i]) / size)
                out.append(("geomean", np.where(bad[j + 1] - bad[i] == 0, geo, np.nan), idx))
        windowed = wanted & (RUNS - {"sum", "mean", "geomean"})
        if windowed and n >= MIN_STATISTIC_RUN:
            # each run length's windows at once, computed the way a single run is (two passes: exact)
            from numpy.lib.stride_tricks import sliding_window_view

            values: dict[str, list[Any]] = {k: [] for k in windowed}
            spans = []
            for k in range(MIN_STATISTIC_RUN, min(MAX_RUN, n) + 1):
                w = sliding_window_view(v, k)
                start = np.arange(n - k + 1)
                spans.append(np.stack([start, start + k - 1], axis=1))
                if "median" in windowed:
                    values["median"].append(np.median(w, axis=1))
                if windowed - {"median"}:
                    mean = w.mean(axis=1)
                    spread = ((w - mean[:, None]) ** 2).sum(axis=1)
                    for kind, value in (
                        ("pvariance", spread / k),
                        ("variance", spread / (k - 1)),
                        ("pstdev", np.sqrt(spread / k)),
                        ("stdev", np.sqrt(spread / (k - 1))),
                        ("pcv", np.sqrt(spread / k) / mean),
                        ("cv", np.sqrt(spread / (k - 1)) / mean),
                    ):
                        if kind in windowed:
                            values[kind].append(value)
            idx = np.concatenate(spans)
            for kind in sorted(windowed):
                out.append((kind, np.concatenate(values[kind]), idx))
        if wanted & PAIRS:
            a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
            off = a != b
            a, b = a[off], b[off]
            pairs = np.stack([a, b], axis=1)
            if "difference" in wanted:
                out.append(("difference", v[a] - v[b], pairs))
            if "ratio" in wanted:
                out.append(("ratio", v[a] / v[b], pairs))
            if "change" in wanted:
                out.append(("change", (v[a] - v[b]) / v[b], pairs))
            if "cagr" in wanted:
                # from the second cell to the first, one period a cell between them
                growth = v[a] / v[b]
                rate = np.power(np.where(growth > 0, growth, np.nan), 1.0 / np.abs(a - b)) - 1
                out.append(("cagr", rate, pairs))
    return out


_SIMPLE: dict[ExpressionKind, int] = {
    "cell": 0,
    "sum": 1,
    "mean": 1,
    "difference": 2,
    "change": 2,
    "ratio": 3,
}
"""The kinds searched when a question names no operation, by simplicity (the simplest expression giving a value
is kept among those sharing as many terms with the question)."""
OPERATIONS: dict[ExpressionKind, re.Pattern[str]] = {
    "sum": re.compile(
        r"\b(?:total|sum|combined|aggregate|cumulative|altogether)\b|合计|总计|总额|总和", re.I
    ),
    "mean": re.compile(r"(?<!geometric )(?<!harmonic )\b(?:average|mean)\b|(?<!几何)平均", re.I),
    "difference": re.compile(r"\b(?:difference|differ|minus|net|gap|more than|less than)\b|差", re.I),
    "change": re.compile(
        r"\b(?:change|growth|grew|increase|decrease|decline|rise|fall|rate of|percent(?:age)? (?:change|increase|"
        r"decrease))\b|增长|下降|变化",
        re.I,
    ),
    "ratio": re.compile(
        r"\b(?:ratio|share|proportion|fraction|percent of|percentage of|per)\b|比例|占比", re.I
    ),
}
"""The operations a question can name: when it names some, only those (and a single cell) are searched."""

_STDEV = r"standard deviation|\bstd\.? ?dev\b|\bstdev\b"
STATISTICS: dict[ExpressionKind, re.Pattern[str]] = {
    "pstdev": re.compile(rf"(?<!sample )(?:{_STDEV})|标准差", re.I),
    "stdev": re.compile(rf"(?<!population )(?:{_STDEV})|标准差", re.I),
    "pvariance": re.compile(r"(?<!sample )\bvariance\b|方差", re.I),
    "variance": re.compile(r"(?<!population )\bvariance\b|方差", re.I),
    "geomean": re.compile(r"\bgeometric (?:mean|average)\b|几何平均", re.I),
    "median": re.compile(r"\bmedian\b|中位数", re.I),
    "pcv": re.compile(r"\bcoefficient of variation\b|变异系数", re.I),
    "cv": re.compile(r"\bcoefficient of variation\b|变异系数", re.I),
    "cagr": re.compile(
        r"\bcompound(?:ed)? (?:annual )?(?:growth|rate)|\bcagr\b|\bannuali[sz]ed (?:growth|rate)|复合(?:年)?增长",
        re.I,
    ),
}
"""Statistics over a run of cells (or, for a compound rate, between two cells), searched only when a question
names them (many more ways to hit a value by chance than a sum): a standard deviation or a variance unqualified
both the population's and the sample's, qualified the one named."""
_RANK: dict[ExpressionKind, int] = {**_SIMPLE, **dict.fromkeys(RUNS - set(_SIMPLE), 1), "cagr": 2}
"""Every kind's simplicity (:data:`_SIMPLE`; a statistic of a run counts as a sum, a compound rate as a
change)."""


def asked_kinds(question: str) -> tuple[ExpressionKind, ...] | None:
    """The expression kinds ``question`` names (:data:`OPERATIONS`, :data:`STATISTICS`), with ``cell``;
    ``None`` when it names none (every simple kind is searched)."""
    named = [k for k, pattern in (*OPERATIONS.items(), *STATISTICS.items()) if pattern.search(question)]
    return ("cell", *named) if named else None


def find_expression(
    tables: Sequence[Table],
    target: Number,
    question: str,
    *,
    kinds: Sequence[ExpressionKind] | None = None,
    strict: bool = False,
) -> Search:
    """The best expression over ``tables`` giving ``target`` whose line shares a quantity term with
    ``question``; ``kinds`` defaults to what the question names (:func:`asked_kinds`). ``strict`` (a search
    of whole source files, many times larger than what a run is shown): the line must share at least half of
    the question's quantity terms, and :data:`MIN_COMPUTED_OVERLAP` whatever the kind."""
    import numpy as np

    wanted = quantity_terms(question)
    asked = years_of(question)
    named = {t for t in terms(question) if not _NOT_QUANTITY.match(t)}
    floor = max(MIN_COMPUTED_OVERLAP, math.ceil(len(wanted) / 2)) if strict else 0
    if kinds is None:
        kinds = asked_kinds(question)
    every: tuple[ExpressionKind, ...] = tuple(kinds) if kinds is not None else tuple(_SIMPLE)
    single = tuple(k for k in every if k == "cell")
    computed_need = min(MIN_COMPUTED_OVERLAP, len(wanted))
    search = Search(found=None, tables=list(tables))
    best: tuple[int, int, int] | None = None
    for ti, table in enumerate(tables):
        # what can name a line at most (its label and every header, or its header and every label): a line
        # sharing too few terms with the question that way holds no expression that could count, so none is
        # evaluated (the same finds, a smaller budget used)
        label_terms = [quantity_terms(x) & wanted for x in table.labels]
        header_terms = [quantity_terms(x) & wanted for x in table.headers]
        for axis, line, pos, vals in _lines(table):
            if axis == "row":
                most = label_terms[line].union(*(header_terms[c] for c in pos if c < len(header_terms)))
            else:
                own = header_terms[line] if line < len(header_terms) else set()
                most = own.union(*(label_terms[c] for c in pos))
            if not most:
                continue
            line_kinds = every if len(most) >= computed_need else single
            if not line_kinds:
                continue
            for kind, values, idx in candidates(vals, line_kinds):
                arr = np.asarray(values)
                search.evaluated += int(arr.size)
                hits = np.flatnonzero(_matches(arr, target))
                for h in hits[:50]:
                    a, b = (int(x) for x in np.asarray(idx)[h])
                    value = float(arr[h])
                    if kind in STATISTICS and kind in RUNS:  # vectorised to screen, computed exactly
                        exact = _statistic(kind, list(vals[a : b + 1]))
                        if exact is None or not bool(_matches([exact], target)[0]):
                            continue
                        value = exact
                    cells = (pos[a],) if kind == "cell" else (pos[a], pos[b])
                    overlap = len(line_terms(table, axis, line, cells) & wanted)
                    need = 1 if kind == "cell" else computed_need
                    if overlap < need or overlap == 0:
                        continue
                    if floor and len(line_terms(table, axis, line, cells, caption=True) & wanted) < floor:
                        continue
                    if not period_agrees(line_years(table, axis, line, cells), asked):
                        continue
                    if kind in PAIRS and not all(operand_named(table, axis, c, named) for c in cells):
                        continue
                    key = (-overlap, _RANK[kind], ti)
                    if best is None or key < best:
                        best = key
                        search.found = Expression(
                            kind=kind,
                            table=ti,
                            axis=axis,
                            line=line,
                            cells=cells,
                            value=value,
                            overlap=overlap,
                        )
                if search.evaluated >= MAX_CANDIDATES:
                    search.cut = True
                    return search
    return search


# ---------------------------------------------------------------------------------------------------------
# The answer against the expression's neighbours


@dataclass(frozen=True)
class Neighbour:
    """The same expression over other operands, and what it gives."""

    what: str
    """How it differs: ``another row``, ``another column``, ``the run moved``, ``the run resized``, ``the row of
    the same name in another table``, ``a cell of the same name``."""
    value: float
    """What it gives."""
    table: int
    """The table it reads (an index into the searched tables)."""
    line: str
    """A line of that table holding one of its operands, as shown."""


def _statistic(kind: ExpressionKind, run: list[float]) -> float | None:
    """A run statistic of ``run`` (:data:`RUNS`), as :func:`candidates` computes it; ``None`` where undefined."""
    n = len(run)
    if n < MIN_RUN.get(kind, MIN_STATISTIC_RUN):
        return None
    total = float(sum(run))
    if kind == "sum":
        return total
    mean = total / n
    if kind == "mean":
        return mean
    if kind == "geomean":
        return math.exp(math.fsum(math.log(x) for x in run) / n) if all(x > 0 for x in run) else None
    if kind == "median":
        ordered = sorted(run)
        return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    spread = math.fsum((x - mean) ** 2 for x in run)
    var = spread / n if kind in ("pvariance", "pstdev", "pcv") else spread / (n - 1)
    if kind in ("pvariance", "variance"):
        return var
    sd = math.sqrt(var)
    if kind in ("pstdev", "stdev"):
        return sd
    return sd / mean if mean else None


def _evaluate(kind: ExpressionKind, vals: Sequence[float | None], cells: tuple[int, ...]) -> float | None:
    if any(c >= len(vals) or c < 0 for c in cells):
        return None
    if kind in RUNS:
        lo, hi = cells[0], cells[-1]
        run = vals[lo : hi + 1]
        if not run or any(v is None for v in run):
            return None
        return _statistic(kind, [float(v) for v in run if v is not None])
    picked = [vals[c] for c in cells]
    if any(v is None for v in picked):
        return None
    if kind == "cell":
        return float(picked[0])  # type: ignore[arg-type]
    a, b = float(picked[0]), float(picked[1])  # type: ignore[arg-type]
    if kind == "difference":
        return a - b
    if b == 0:
        return None
    if kind == "cagr":
        lo, hi = sorted(cells)
        periods = sum(v is not None for v in vals[lo : hi + 1]) - 1
        ratio = a / b
        return ratio ** (1 / periods) - 1 if periods > 0 and ratio > 0 else None
    return a / b if kind == "ratio" else (a - b) / b


def _line_values(table: Table, axis: str, line: int) -> list[float | None]:
    if axis == "row":
        return table.rows[line] if line < len(table.rows) else []
    return [r[line] if line < len(r) else None for r in table.rows]


def _row_of(table: Table, axis: str, line: int, cells: tuple[int, ...]) -> str:
    index = line if axis == "row" else cells[0]
    return table.lines[index] if index < len(table.lines) else ""


def neighbours(expr: Expression, tables: Sequence[Table]) -> Iterator[Neighbour]:
    """The same expression over neighbouring operands (the module's docstring)."""
    t = tables[expr.table]
    count = len(t.rows) if expr.axis == "row" else max((len(r) for r in t.rows), default=0)
    for other in range(count):  # another row (a row's run) or another column (a column's)
        if other != expr.line:
            v = _evaluate(expr.kind, _line_values(t, expr.axis, other), expr.cells)
            if v is not None:
                what = "another row" if expr.axis == "row" else "another column"
                yield Neighbour(what, v, expr.table, _row_of(t, expr.axis, other, expr.cells))
    own = _line_values(t, expr.axis, expr.line)
    if expr.kind in RUNS:
        lo, hi = expr.cells[0], expr.cells[-1]
        for shift in range(-MAX_SHIFT, MAX_SHIFT + 1):
            for grow in range(-MAX_SHIFT, MAX_SHIFT + 1):
                if (shift, grow) == (0, 0) or hi + grow < lo:
                    continue
                cells = (lo + shift, hi + shift + grow)
                if cells[0] < 0 or cells[1] <= cells[0]:
                    continue
                v = _evaluate(expr.kind, own, cells)
                if v is not None:
                    what = "the run moved" if grow == 0 else "the run resized"
                    yield Neighbour(what, v, expr.table, _row_of(t, expr.axis, expr.line, expr.cells))
    label = (t.labels[expr.line] if expr.axis == "row" else t.headers[expr.line]).strip().lower()
    if not label:
        return
    for ti, other_table in enumerate(tables):  # the line of the same name elsewhere
        names = other_table.labels if expr.axis == "row" else other_table.headers
        for li, name in enumerate(names):
            if name.strip().lower() != label or (ti, li) == (expr.table, expr.line):
                continue
            v = _evaluate(expr.kind, _line_values(other_table, expr.axis, li), expr.cells)
            if v is not None:
                yield Neighbour(
                    "the line of the same name in another table",
                    v,
                    ti,
                    _row_of(other_table, expr.axis, li, expr.cells),
                )
    key = set(terms(label))
    for ti, other_table in enumerate(tables):  # one cell of a row or column carrying the label
        for ri, row in enumerate(other_table.rows):
            row_named = bool(key) and key <= set(terms(other_table.labels[ri]))
            for j, v in enumerate(row):
                if v is None:
                    continue
                header = other_table.headers[j] if j < len(other_table.headers) else ""
                if row_named or (bool(key) and key <= set(terms(header))):
                    yield Neighbour(
                        "a cell of the same name",
                        v,
                        ti,
                        other_table.lines[ri] if ri < len(other_table.lines) else "",
                    )


def explain_answer(
    expr: Expression, tables: Sequence[Table], answer: Number, *, scales: bool = True
) -> Neighbour | None:
    """The first neighbour of ``expr`` (also scaled by a power of a thousand) that gives ``answer`` as the
    agent wrote it (to its last written digit), else ``None``."""
    for n in neighbours(expr, tables):
        for scale in (1.0, 1e3, 1e-3, 1e6, 1e-6) if scales else (1.0,):
            if bool(_matches([n.value * scale], answer)[0]):
                what = n.what if scale == 1.0 else f"{n.what}, at another scale (x{scale:g})"
                return Neighbour(what, n.value * scale, n.table, n.line)
    return None


# ---------------------------------------------------------------------------------------------------------
# Tracing one expected value


RESULT_LINE = 80
"""An output line this short holding the value (``size_on_rank -1.17198``, ``total: 2602``) is a printed result:
the value stands there as what was computed, whatever its name (its sign aside)."""
PROSE_WINDOW = 150
"""Characters either side of a value stated in prose that name it (its quantity terms)."""


class SourceFolder:
    """A folder holding a task's source files by name (the workspace, when given): each file's tables are
    parsed once, when first needed."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._tables: dict[str, list[Table]] = {}

    def tables(self, names: Iterable[str]) -> list[Table]:
        """The tables of the files ``names`` that the folder holds (by file name; others are skipped)."""
        out: list[Table] = []
        for name in names:
            base = Path(name).name
            if base not in self._tables:
                path = self.root / base
                try:
                    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
                except OSError:
                    text = ""
                self._tables[base] = tables_of(text, source=base)
            out += self._tables[base]
        return out


AUTO_SOURCES = "auto"
"""The ``sources`` that stands for "look for the source files near each run" (:class:`SourceFinder`; a
folder named ``auto`` is ``./auto``)."""
SOURCE_SEARCH_LEVELS = 3
"""How many folders above a run's folder :class:`SourceFinder` looks (``sources="auto"``)."""


class SourceFinder:
    """``sources="auto"``: for each run, a folder near it holding its task's source files by name. Looked for
    in the run's folder and up to :data:`SOURCE_SEARCH_LEVELS` folders above it, in each of them and in its
    direct subfolders (a corpus beside the runs: ``officeqa/treasury_bulletins/`` beside
    ``officeqa/traces/``); the nearest level holding any of them wins, and there the folder holding the most
    (then the first by name). Each folder found is one :class:`SourceFolder`, its files parsed once for all
    the runs that use it."""

    def __init__(self) -> None:
        self._folders: dict[Path, SourceFolder] = {}
        self._found: dict[tuple[Path, tuple[str, ...]], Path | None] = {}
        self._subfolders: dict[Path, list[Path]] = {}

    @property
    def used(self) -> list[Path]:
        """The folders found so far, in the order first found."""
        return list(self._folders)

    def _children(self, folder: Path) -> list[Path]:
        if folder not in self._subfolders:
            try:
                self._subfolders[folder] = sorted(p for p in folder.iterdir() if p.is_dir())
            except OSError:
                self._subfolders[folder] = []
        return self._subfolders[folder]

    def folder_for(self, run_path: str | Path, names: Sequence[str]) -> SourceFolder | None:
        """The :class:`SourceFolder` of the run at ``run_path`` (its file or folder) for the source files
        ``names`` (``None`` when no folder near it holds any of them)."""
        bases = tuple(sorted({Path(n).name for n in names if Path(n).name}))
        if not bases:
            return None
        start = Path(run_path)
        start = start if start.is_dir() else start.parent
        key = (start, bases)
        if key not in self._found:
            self._found[key] = self._search(start, bases)
        root = self._found[key]
        if root is None:
            return None
        if root not in self._folders:
            self._folders[root] = SourceFolder(root)
        return self._folders[root]

    def _search(self, start: Path, bases: tuple[str, ...]) -> Path | None:
        for folder in [start, *start.parents][: SOURCE_SEARCH_LEVELS + 1]:
            best: tuple[int, Path] | None = None
            for candidate in [folder, *self._children(folder)]:
                held = sum((candidate / b).is_file() for b in bases)
                if held and (best is None or held > best[0]):
                    best = (held, candidate)
            if best is not None:
                return best[1]
        return None


@dataclass(frozen=True)
class Trace:
    """Where one expected value comes from in what a run was shown (or in its sources), and what the answer
    given is made of."""

    shown_as_quantity: bool
    """The expected value stands in what was shown as that quantity: a table cell whose row or column names
    it, a short output line of its own (a printed result, :data:`RESULT_LINE`), or prose around it sharing a
    quantity term with the question (not a bare coincidence of digits)."""
    where: Literal["shown", "workspace", "nowhere"]
    """Where an expression giving it was found: what was shown, only the source files, or neither."""
    expression: str = ""
    """The expression found, described (empty when none)."""
    step: int | None = None
    """The step that showed the expression's table."""
    excerpt: str = ""
    """A line of that table (or of the source file) holding its operands."""
    answer: str = ""
    """What reproduces the answer given: a neighbour of the expression (empty when none does)."""
    answer_excerpt: str = ""
    """A line holding the neighbour's operands."""
    evaluated: int = 0
    """Expressions evaluated in all (the search's budget used)."""
    cut: bool = False
    """A search stopped at :data:`MAX_CANDIDATES`."""
    sources_searched: bool = False
    """The task's source files were searched too (a folder was given and holds some of them)."""


def _prose_names(text: str, start: int, end: int, wanted: set[str]) -> bool:
    window = text[max(0, start - PROSE_WINDOW) : end + PROSE_WINDOW]
    return bool(quantity_terms(window) & wanted)


def shown_as_quantity(
    steps: Sequence[tuple[int, str]], tables: Sequence[Table], target: Number, question: str
) -> bool:
    """Whether ``target`` stands in the shown text as the question's quantity (:attr:`Trace.shown_as_quantity`)."""
    if find_expression(tables, target, question, kinds=("cell",)).found is not None:
        return True
    wanted = quantity_terms(question)
    for _, text in steps:
        for n in find_numbers(text):
            if not bool(_matches([n.value, -n.value], target).any()):
                continue
            line_start = text.rfind("\n", 0, n.start) + 1
            line_end = text.find("\n", n.end)
            line = text[line_start : line_end if line_end >= 0 else len(text)]
            if line.count("|") >= 2:
                continue  # a table cell: named by its row and column only (above)
            if len(line.strip()) <= RESULT_LINE or _prose_names(text, n.start, n.end, wanted):
                return True
    return False


def trace(
    steps: Sequence[tuple[int, str]],
    target: Number,
    answer: Number | None,
    question: str,
    *,
    sources: SourceFolder | None = None,
    source_files: Sequence[str] = (),
) -> Trace:
    """Trace ``target`` (the expected value) through the shown ``steps`` (``(index, shown)`` pairs), then the
    ``source_files`` in ``sources`` when it is not found there, and test ``answer`` against the expression's
    neighbours (the module's docstring)."""
    tables = shown_tables(steps)
    as_quantity = shown_as_quantity(steps, tables, target, question)
    search = find_expression(tables, target, question)
    evaluated, cut = search.evaluated, search.cut
    if search.found is not None:
        expr = search.found
        t = tables[expr.table]
        explained = explain_answer(expr, tables, answer) if answer is not None else None
        return Trace(
            shown_as_quantity=as_quantity,
            where="shown",
            expression=expr.describe(tables),
            step=t.step,
            excerpt=_row_of(t, expr.axis, expr.line, expr.cells),
            answer=f"{explained.what}: {_fmt(explained.value)}" if explained else "",
            answer_excerpt=explained.line if explained else "",
            evaluated=evaluated,
            cut=cut,
        )
    searched = False
    if sources is not None and source_files:
        workspace = sources.tables(source_files)
        searched = bool(workspace)
        found = find_expression(workspace, target, question, strict=True)
        evaluated, cut = evaluated + found.evaluated, cut or found.cut
        if found.found is not None:
            expr = found.found
            return Trace(
                shown_as_quantity=as_quantity,
                where="workspace",
                expression=expr.describe(workspace),
                excerpt=_row_of(workspace[expr.table], expr.axis, expr.line, expr.cells),
                evaluated=evaluated,
                cut=cut,
                sources_searched=True,
            )
    return Trace(
        shown_as_quantity=as_quantity,
        where="nowhere",
        evaluated=evaluated,
        cut=cut,
        sources_searched=searched,
    )
