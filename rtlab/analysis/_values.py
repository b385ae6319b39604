"""Numeric values a rubric expects: were they shown to the agent, delivered, and held by the tab?

:func:`expected_values` picks the distinctive numbers of a rubric item; :func:`values_frame` has one row per
(trajectory, rubric item, value) saying whether the value appeared in a tool observation (``shown``), in the
deliverable (``delivered``) and in the tab's read log after replay (``held``); :func:`value_summary` gives the
paper's two figures. Numbers are parsed and compared by :mod:`rtlab.text._numbers` only.

Which values are distinctive (:func:`expected_values`)
------------------------------------------------------
Every number :func:`rtlab.text._numbers.find_numbers` finds in the item, less:

1. numbers inside file names (a token ending in ``.xlsx``, ``.md``, ...), inside backticks that hold a
   name (any letter, ``_`` or ``/``: ```Top5 Sheet```, ```ID010```; ```$62,490,000``` is kept), and inside
   quotes that hold letters (titles, sheet and column names: ``"Comparison of Top 5 ..."``);
2. calendar dates written with month names (``March 18, 2025``, ``1 December 2024``, ``April 2024``); ISO
   dates, times and versions are not numbers at all;
3. labels and enumerations: an integer right after a label word (``Top 5``, ``item 3``, ``Article 3``,
   ``Partner 20``, ``Development Engineer 12``, ``page 1``, ``No. 5``) or after any capitalised word other
   than a sentence word (``Is``, ``Are``, ``Whether``, ...; ``Category 2``, ``City 28``); any number right
   after ``version``/``release``;
4. structural counts: an integer counting the deliverable's own parts (``7 columns``, ``16 worksheets``,
   ``15 complete rows``, ``20 CSV files``): they describe its shape, not a value written in it;
5. values written with fewer than three significant digits (leading zeros do not count, trailing zeros of
   an integer do): ``33``, ``8%``, ``4.2``, ``0.08%``, ``$10M``, ``3.2 million`` go; ``120``, ``50.4%``,
   ``1.65``, ``463 million`` stay. Such values are in any long observation by chance: over the 15
   Workspace-Bench runs in ``shared/real`` (all shown text of a run together), a given two-digit integer is
   found in 31% of the runs, a two-digit percent in 32%, a two-significant-digit decimal (``4.2``) in 13%,
   but a three-digit integer in 3%, a three-digit percent (``12.3%``) in 4% and a four-digit integer in
   0.3%. (``ls -la`` alone prints ``total 120`` and ``24 ubuntu``.)
6. years: a year-like integer (1900-2100, no separator, decimals, currency, percent or scale) unless the item
   makes it a value: a unit follows (``1900 yuan``, ``2000 bytes``); it stands in a list of amounts
   (``3200, 2800, 2500, and 1900``); it is asserted and ends a clause (``the statistical cycle is 2017?``,
   ``field is 2023 in``); or the item asks about a year or period and the number ends a clause (``Is the
   year of X in the output file 2023?``). A year range (``2024-2026``, ``2021 to 2024``) is kept or dropped
   as a whole.

A digit run whose commas are misplaced by the rubric's writer (``1001592,100``, ``3987,968,708.00``: a first
group of four or more digits, then proper groups) is one number with the commas ignored, where
``find_numbers`` would split it. Stated rounding ("about", "approximately", "rounded to one decimal") is read
as the written precision (see :func:`rtlab.text._numbers.matches`); no extra tolerance. The same value twice in an
item is one value.

Where a value is looked for (:func:`values_frame`)
--------------------------------------------------
- ``shown``: some answered step's ``Step.shown`` (tool observations only; the agent's own messages and
  commands are not observations). ``shown_step`` is the first such step's index.
- ``held``: some read-log entry's excerpt of the replayed tab. ``shown_path`` is the path of the first entry
  at ``shown_step`` that holds it, else of the first entry that holds it, else NA (so it is set exactly when
  ``held``). The read log keeps file content only: a value the agent computed and printed is shown, not held
  (a replay with ``TabConfig(derived=True)`` keeps derived entries too; ``held`` still counts file entries
  only, and :func:`derived_rows` says which kind of derived entry would hold each value).
- ``delivered``: :func:`deliverable_text`, the final message and the text of every delivered file
  (:func:`file_text`): xlsx/xlsm every cell's cached value (openpyxl ``data_only``; a formula's text where no
  value was cached, as in files openpyxl wrote; a percent-formatted cell holds its fraction, which matches
  the percent); docx/pptx the paragraphs of the document, headers, footers, notes (zip + XML, runs joined,
  tabs kept); html the text with ``<style>`` and comments dropped, tags as spaces, entities decoded, and
  ``<script>`` kept (chart data is delivered data); csv the cells joined by tabs; md, txt, json and any other
  text file as written. Binary files without a reader (pdf, png, legacy xls/doc) give nothing. A file name is
  never searched. Every file the run delivered counts, including leftovers an output folder holds from
  other tasks.
- Steps of tab tools count like any other: what they returned is what the model saw.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
import warnings
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from rtlab.records import DeliverableFile, RubricItem, Task, Trajectory
from rtlab.text import (
    FILE_MENTION,
    Anchor,
    AnchorIndex,
    Number,
    NumberIndex,
    file_mentions,
    find_anchors,
    find_numbers,
    is_year_like,
    number_index,
)

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.environment import Replay


VALUE_COLUMNS = [
    "trajectory",
    "source_path",
    "rubric_index",
    "passed",
    "value",
    "number",
    "shown",
    "shown_step",
    "shown_path",
    "delivered",
    "held",
]
"""The columns of :func:`values_frame`, in order."""

MIN_SIGNIFICANT = 3
"""A value written with fewer significant digits is not distinctive (rule 5 of the module docstring)."""

# ---------------------------------------------------------------------------------------------------------
# Which values a rubric item expects

_BACKTICKS = re.compile(r"`[^`\n]*`")
_QUOTED = re.compile(
    r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|《[^》\n]{1,300}》|「[^」\n]{1,300}」|『[^』\n]{1,300}』"
    r"|(?<![A-Za-z])'[^'\n]{1,300}'(?![A-Za-z])|(?<![A-Za-z])‘[^’\n]{1,300}’"
)
_NAME_CHARS = re.compile(r"[A-Za-z_/\\]")
_LETTER = re.compile(r"[^\W\d_]")
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_MONTH_DATE = re.compile(
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?(?![0-9])"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+\d{{4}})?(?![0-9])"
    rf"|\b{_MONTH},?\s+\d{{4}}(?![0-9])"
)
_LABEL_BEFORE = re.compile(
    r"(?:^|[^A-Za-z])(?:top|bottom|rank|ranked|item|items|article|chapter|section|part|page|step|table|figure"
    r"|fig\.|no\.?|partner|project|engineer|category|level|phase|stage|round|group|week|quarter|city"
    r"|lead|row|line|column|sheet|option|question|task|priority|grade|class|batch|floor|room|building|unit"
    r"|slide|tab|sample|case|scenario|id|code|episode|module|p)\s*(?:no\.?\s*|#\s*)?$",
    re.IGNORECASE,
)
_VERSION_BEFORE = re.compile(r"(?:^|[^A-Za-z])(?:version|release|ver\.?|v\.)\s*$", re.IGNORECASE)
_CAPITALISED_BEFORE = re.compile(r"(?:^|[^A-Za-z])([A-Z][a-z]+)\s$")
_SENTENCE_WORDS = frozenset(
    """Is Are Was Were Does Do Did Has Have Had Will Would Can Could Should Shall May Might Must Whether If
    When Where Which What Who How The A An And Or But Than Then Total Only All About Approximately Around
    Nearly Over Under Least Most Exactly Within With Without Of In On At By For To From Into Both Each Every
    Including Contains Contain Include Includes Show Shows Showing Display Displays Count Counts Counted
    Equal Equals Be Being Been Also Yes No Not Per Among Between After Before Since Until Than Less More
    Respectively Approx""".split()
)
_STRUCTURE_AFTER = re.compile(
    r"^\s+(?:[\w-]+\s+){0,2}?(?:rows?|columns?|(?:work)?sheets?|tabs?|charts?|graphs?|files?|documents?"
    r"|sections?|chapters?|pages?|slides?|headers?|headings?|tables?|fields?|modules?|paragraphs?|images?"
    r"|figures?)\b",
    re.IGNORECASE,
)
_UNIT_AFTER = re.compile(
    r"^\s*(?:yuan|rmb|dollars?|usd|cny|euros?|pieces?|pcs|units?|people|persons?|employees?|staff|orders?"
    r"|items?|tasks?|records?|bytes?|kb|mb|gb|days?|hours?|minutes?|seconds?|times?|points?|copies|sets?"
    r"|tons?|kg|km|households?|users?|customers?|students?|visits?|views?|元|人|件|个|台|份|次|天|吨|户|名)(?![\w-])",
    re.IGNORECASE,
)
_ASSERTED_BEFORE = re.compile(r"(?:\b(?:is|was|are|were|be|as|equals?)|[=:：])\s*$", re.IGNORECASE)
_CLAUSE_END_AFTER = re.compile(
    r"^\s*[`'\"”’]?\s*(?:[?.;,!)]|$|(?:in|for|on|at|and|or|with)\b)", re.IGNORECASE
)
_ABOUT_YEAR = re.compile(r"\b(?:years?|period|founded|established|dated?)\b", re.IGNORECASE)
_LIST_SEPARATOR = re.compile(r"^\s*(?:,\s*(?:and\s+)?|and\s+|、)$")
_RANGE_SEPARATOR = re.compile(r"^\s*(?:-|to|~|至|through)\s*$", re.IGNORECASE)
_MALFORMED_GROUPS = re.compile(r"(?<![\w.,])\d{4,}(?:,\d{3})+(?:\.\d+)?(?![\w,]|\.\d)")


def _excluded_spans(text: str) -> list[tuple[int, int]]:
    """Spans whose numbers are names, not values: file names, named backtick spans, quoted titles, dates."""
    spans = [m.span() for m in FILE_MENTION.finditer(text)]
    spans += [m.span() for m in _BACKTICKS.finditer(text) if _NAME_CHARS.search(m.group())]
    spans += [m.span() for m in _QUOTED.finditer(text) if _LETTER.search(m.group())]
    spans += [m.span() for m in _MONTH_DATE.finditer(text)]
    return spans


def _rubric_numbers(text: str) -> list[Number]:
    """``find_numbers`` of a rubric, with misplaced-comma numbers (``1001592,100``) read as one."""
    numbers = find_numbers(text)
    for m in _MALFORMED_GROUPS.finditer(text):
        start, end = m.span()
        joined = find_numbers(m.group().replace(",", "") + text[end : end + 20])
        if not joined or joined[0].start != 0:
            continue
        n = joined[0]
        stop = start + n.end + m.group().count(",")
        numbers = [x for x in numbers if x.end <= start or x.start >= end]
        numbers.append(replace(n, text=text[start:stop], start=start, end=stop))
    return sorted(numbers, key=lambda n: n.start)


def _is_integer(n: Number) -> bool:
    return n.decimals == 0 and n.scale == 1 and not n.percent and "," not in n.text and n.text[-1:].isdigit()


def _is_label(n: Number, before: str) -> bool:
    if _VERSION_BEFORE.search(before):
        return True
    if not (_is_integer(n) and n.text[:1].isdigit()):
        return False
    if _LABEL_BEFORE.search(before):
        return True
    word = _CAPITALISED_BEFORE.search(before)
    return word is not None and word.group(1) not in _SENTENCE_WORDS


def _year_kept(text: str, numbers: list[Number], i: int) -> bool:
    """Whether the year-like ``numbers[i]`` is a value of the item (rule 6 of the module docstring)."""
    n = numbers[i]
    before, after = text[max(0, n.start - 40) : n.start], text[n.end : n.end + 40]
    if _UNIT_AFTER.match(after):
        return True
    for j in (i - 1, i + 1):
        if 0 <= j < len(numbers):
            other = numbers[j]
            gap = text[other.end : n.start] if j < i else text[n.end : other.start]
            if _LIST_SEPARATOR.match(gap) and _is_integer(other) and not is_year_like(other):
                return True
    if _CLAUSE_END_AFTER.match(after):
        if _ASSERTED_BEFORE.search(before) or _ABOUT_YEAR.search(text):
            return True
    return False


def expected_values(item_text: str) -> list[Number]:
    """The distinctive numeric values a rubric item expects, in order (rules in the module docstring)."""
    numbers = _rubric_numbers(item_text)
    spans = _excluded_spans(item_text)
    candidates: list[Number] = []
    for n in numbers:
        if any(s <= n.start and n.end <= e for s, e in spans):
            continue
        before = item_text[max(0, n.start - 40) : n.start]
        if n.significant < MIN_SIGNIFICANT or _is_label(n, before):
            continue
        if _is_integer(n) and _STRUCTURE_AFTER.match(item_text[n.end : n.end + 60]):
            continue
        candidates.append(n)
    keep = [not is_year_like(n) or _year_kept(item_text, candidates, i) for i, n in enumerate(candidates)]
    for i in range(len(candidates) - 1):  # a year range is kept or dropped as a whole
        a, b = candidates[i], candidates[i + 1]
        if is_year_like(a) and is_year_like(b) and _RANGE_SEPARATOR.match(item_text[a.end : b.start]):
            keep[i] = keep[i + 1] = keep[i] or keep[i + 1]
    seen: set[tuple[float, bool]] = set()
    out = []
    for n, k in zip(candidates, keep, strict=True):
        key = (round(abs(n.value), 9), n.percent)
        if k and key not in seen:
            seen.add(key)
            out.append(n)
    return out


# ---------------------------------------------------------------------------------------------------------
# The deliverable's text

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_DOCX_PARTS = re.compile(r"word/(?:document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml")
_PPTX_PARTS = re.compile(r"ppt/(?:slides/slide\d+|notesSlides/notesSlide\d+)\.xml")
_HTML_DROP = re.compile(r"<style\b.*?</style\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]*>")


def _xml_text(data: bytes, ns: str) -> str:
    """Paragraph text of an OOXML part: runs joined, tabs and breaks kept as separators."""
    root = ElementTree.fromstring(data)
    lines = []
    for p in root.iter(f"{ns}p"):
        parts = []
        for el in p.iter():
            if el.tag == f"{ns}t" and el.text:
                parts.append(el.text)
            elif el.tag in (f"{ns}tab", f"{ns}br", f"{ns}cr"):
                parts.append("\t")
        lines.append("".join(parts))
    return "\n".join(lines)


def _within_limits(path: Path) -> None:
    """Refuse an office file (a ZIP) whose members declare more than the readers' decompression limits
    (``rtlab.ingest.ReadOptions.limits``): :mod:`zipfile`, and openpyxl through it, never inflate a member past
    its declared size, so the declared sizes bound what reading the file takes."""
    from rtlab.errors import TooLargeError
    from rtlab.ingest import ReadOptions

    limits = ReadOptions().limits()
    with zipfile.ZipFile(path) as z:
        sizes = [(i.file_size, i.filename) for i in z.infolist()]
    size, name = max(sizes, default=(0, ""))
    if size > limits.member:
        raise TooLargeError(
            path, f"member {name!r} declares {size} bytes, more than the limit of {limits.member}"
        )
    if sum(s for s, _ in sizes) > limits.archive:
        raise TooLargeError(path, f"members declare more than {limits.archive} bytes in all")


def _zip_text(path: Path, parts: re.Pattern[str], ns: str) -> str:
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if parts.fullmatch(n))
        return "\n".join(_xml_text(z.read(n), ns) for n in names)


def _xlsx_text(path: Path) -> str:
    """Every cell of every sheet: the cached value, or the formula where no value was cached."""
    from openpyxl import load_workbook

    values = load_workbook(path, data_only=True, read_only=True)
    formulas = load_workbook(path, data_only=False, read_only=True)
    lines = []
    try:
        for ws_v, ws_f in zip(values.worksheets, formulas.worksheets, strict=True):
            rows_f = ws_f.iter_rows(values_only=True)
            for row_v in ws_v.iter_rows(values_only=True):
                row_f = next(rows_f, ())
                cells = []
                for k, v in enumerate(row_v):
                    if v is None and k < len(row_f) and isinstance(row_f[k], str):
                        v = row_f[k]
                    if v is not None:
                        cells.append(str(v))
                if cells:
                    lines.append("\t".join(cells))
    finally:
        values.close()
        formulas.close()
    return "\n".join(lines)


def _html_text(source: str) -> str:
    """Visible text and script data of an HTML page: styles and comments dropped, tags made spaces."""
    return html.unescape(_HTML_TAG.sub(" ", _HTML_DROP.sub(" ", source)))


def _csv_text(source: str) -> str:
    """CSV cells separated by tabs, so that a comma between fields never reads as a thousands separator."""
    try:
        return "\n".join("\t".join(row) for row in csv.reader(io.StringIO(source)))
    except csv.Error:
        return source


def file_text(f: DeliverableFile) -> str | None:
    """The text of one delivered file as a reader of its format sees it; None when it has none to read."""
    suffix = PurePosixPath(f.path).suffix.lower()
    local = Path(f.local_path) if f.local_path else None
    try:
        if suffix in (".xlsx", ".xlsm", ".docx", ".pptx") and local is not None and local.is_file():
            _within_limits(local)
        if suffix in (".xlsx", ".xlsm") and local is not None and local.is_file():
            return _xlsx_text(local)
        if suffix == ".docx" and local is not None and local.is_file():
            return _zip_text(local, _DOCX_PARTS, _W)
        if suffix == ".pptx" and local is not None and local.is_file():
            return _zip_text(local, _PPTX_PARTS, _A)
    except Exception as exc:  # a corrupt office file: the rest of the deliverable still counts
        warnings.warn(
            f"{f.local_path}: cannot read delivered file ({type(exc).__name__}: {exc})", stacklevel=2
        )
        return None
    if f.content is None:
        return None
    if suffix in (".html", ".htm"):
        return _html_text(f.content)
    if suffix in (".csv", ".tsv"):
        return _csv_text(f.content) if suffix == ".csv" else f.content
    return f.content


def deliverable_text(trajectory: Trajectory) -> str:
    """The final message and the text of every delivered file, joined: where ``delivered`` values are sought."""
    parts = [trajectory.deliverable.final_message or ""]
    for f in trajectory.deliverable.files:
        text = file_text(f)
        if text:
            parts.append(text)
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------------------------
# The value table


@dataclass
class _Found:
    shown_step: int | None = None
    shown_path: str | None = None
    held: bool = False


def _replay_for(t: Trajectory, position: int, replays: Sequence[Replay] | Mapping[str, Replay]) -> Replay:
    if isinstance(replays, Mapping):
        if t.id not in replays:
            raise ValueError(f"no replay of {t.id!r} among the replays given")
        return replays[t.id]
    r = replays[position]
    if r.trajectory_id != t.id:
        raise ValueError(f"replays[{position}] is of {r.trajectory_id!r}, not {t.id!r}")
    return r


def _locate(t: Trajectory, r: Replay, values: list[Number]) -> list[_Found]:
    """Where each value was first shown and whether (and from which file) the read log holds it."""
    found = [_Found() for _ in values]
    pending = set(range(len(values)))
    for step in sorted(t.steps, key=lambda s: s.index):
        if not pending:
            break
        if not step.shown:
            continue
        index = number_index(step.shown)
        for k in sorted(pending):
            if index.find(values[k]) is not None:
                found[k].shown_step = step.index
                pending.discard(k)
    entries = [(e, number_index(e.excerpt)) for e in r.tab.read_log if e.excerpt and e.kind == "file"]
    for k, value in enumerate(values):
        holding = [e for e, index in entries if index.find(value) is not None]
        if holding:
            found[k].held = True
            at_step = [e for e in holding if e.step == found[k].shown_step]
            found[k].shown_path = (at_step or holding)[0].path
    return found


def item_values(task: Task, item: RubricItem) -> list[Number]:
    """The values an item expects: every number of the reference answer for an answer item (OfficeQA, whose
    rubric text is generic), else the distinctive numbers of the item's text (:func:`expected_values`)."""
    if item.type == "answer" and task.answer:
        return find_numbers(task.answer)
    return expected_values(item.text)


def values_frame(
    trajectories: Iterable[Trajectory], replays: Sequence[Replay] | Mapping[str, Replay]
) -> pd.DataFrame:
    """One row per (trajectory, rubric item, expected value): shown, delivered and held (columns: VALUE_COLUMNS).

    ``replays``, the trajectories replayed (with the default tab for the paper's ``held``:
    ``rtlab.environment.replay``), is a sequence aligned with ``trajectories`` or a mapping by trajectory id
    holding every one of them.
    """
    rows: list[dict[str, Any]] = []
    for position, t in enumerate(trajectories):
        rows += _rows(t, _replay_for(t, position, replays))
    return values_table(rows)


def value_rows(replay: Replay) -> list[dict[str, Any]]:
    """The :func:`values_frame` rows of the trajectory ``replay`` replayed (``replay.trajectory``): what a
    worker of :func:`rtlab.environment._replay.replay_paths` sends back (``each=value_rows``)."""
    if replay.trajectory is None:
        raise ValueError(f"{replay.trajectory_id}: the replay does not hold its trajectory")
    return _rows(replay.trajectory, replay)


def _rows(t: Trajectory, r: Replay) -> list[dict[str, Any]]:
    import pandas as pd

    if t.task is None:
        return []
    items = [(item, item_values(t.task, item)) for item in t.task.rubric]
    values = [(item, v) for item, vs in items for v in vs]
    if not values:
        return []
    verdicts = {res.index: res.passed for res in t.judgement.items} if t.judgement is not None else {}
    found = _locate(t, r, [v for _, v in values])
    delivered = NumberIndex(deliverable_text(t))
    return [
        {
            "trajectory": t.id,
            "source_path": t.source_path,
            "rubric_index": item.index,
            "passed": verdicts.get(item.index, pd.NA),
            "value": value.text,
            "number": value.value,
            "shown": where.shown_step is not None,
            "shown_step": where.shown_step if where.shown_step is not None else pd.NA,
            "shown_path": where.shown_path if where.shown_path is not None else pd.NA,
            "delivered": delivered.find(value) is not None,
            "held": where.held,
        }
        for (item, value), where in zip(values, found, strict=True)
    ]


def values_table(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """:func:`values_frame`'s typed table from its rows (e.g. rows :func:`value_rows` made in worker processes)."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=VALUE_COLUMNS)
    return frame.astype(
        {
            "trajectory": "string",
            "source_path": "string",
            "rubric_index": "int64",
            "passed": "boolean",
            "value": "string",
            "number": "float64",
            "shown": "bool",
            "shown_step": "Int64",
            "shown_path": "string",
            "delivered": "bool",
            "held": "bool",
        }
    )


# ---------------------------------------------------------------------------------------------------------
# Anchors beyond numbers (codebook 2): the same shown / delivered / held test


ANCHOR_COLUMNS = [
    "trajectory",
    "source_path",
    "rubric_index",
    "passed",
    "kind",
    "value",
    "shown",
    "shown_step",
    "shown_path",
    "delivered",
    "altered",
    "held",
]
"""The columns of :func:`anchors_frame`, in order: ``kind`` is the anchor's (:data:`rtlab.text.AnchorKind`),
``value`` the anchor as the item writes it, ``altered`` the deliverable's near miss of an anchor it does not
hold (a date moved, a code with other digits), else missing."""


def item_anchors(text: str, values: Sequence[Number]) -> list[Anchor]:
    """The anchors an item's ``text`` states beyond its expected ``values`` (an amount or quantity whose number
    is a value is not an anchor twice) and beyond the file names it mentions (a file the item names is
    attribution, not content): what codebook 2 checks like the values."""
    numbers = {abs(v.value) for v in values}
    files = [m.lower() for m in file_mentions(text)]
    out = []
    for a in find_anchors(text):
        if a.kind in ("money", "quantity") and any(abs(n.value) in numbers for n in find_numbers(a.text)):
            continue
        if any(a.text.lower() in f for f in files):
            continue
        out.append(a)
    return out


def anchor_rows(replay: Replay) -> list[dict[str, Any]]:
    """The :func:`anchors_frame` rows of the trajectory ``replay`` replayed (``each=anchor_rows`` in a
    worker)."""
    import pandas as pd

    t = replay.trajectory
    if t is None:
        raise ValueError(f"{replay.trajectory_id}: the replay does not hold its trajectory")
    if t.task is None:
        return []
    wanted = [(item, a) for item in t.task.rubric for a in item_anchors(item.text, item_values(t.task, item))]
    if not wanted:
        return []
    verdicts = {res.index: res.passed for res in t.judgement.items} if t.judgement is not None else {}
    delivered = AnchorIndex(deliverable_text(t))
    steps = [(s.index, AnchorIndex(s.shown)) for s in sorted(t.steps, key=lambda s: s.index) if s.shown]
    entries = [(e, AnchorIndex(e.excerpt)) for e in replay.tab.read_log if e.excerpt and e.kind == "file"]
    rows = []
    for item, a in wanted:
        step = next((i for i, index in steps if index.find(a) is not None), None)
        holding = [e for e, index in entries if index.find(a) is not None]
        at_step = [e for e in holding if e.step == step]
        hit = delivered.find(a)
        near = delivered.near_miss(a) if hit is None else None
        rows.append(
            {
                "trajectory": t.id,
                "source_path": t.source_path,
                "rubric_index": item.index,
                "passed": verdicts.get(item.index, pd.NA),
                "kind": a.kind,
                "value": a.text,
                "shown": step is not None,
                "shown_step": step if step is not None else pd.NA,
                "shown_path": (at_step or holding)[0].path if holding else pd.NA,
                "delivered": hit is not None,
                "altered": near.text if near is not None else pd.NA,
                "held": bool(holding),
            }
        )
    return rows


def anchors_table(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """:func:`anchors_frame`'s typed table from its rows."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=ANCHOR_COLUMNS)
    return frame.astype(
        {
            "trajectory": "string",
            "source_path": "string",
            "rubric_index": "int64",
            "passed": "boolean",
            "kind": "string",
            "value": "string",
            "shown": "bool",
            "shown_step": "Int64",
            "shown_path": "string",
            "delivered": "bool",
            "altered": "string",
            "held": "bool",
        }
    )


def anchors_frame(
    trajectories: Iterable[Trajectory], replays: Sequence[Replay] | Mapping[str, Replay]
) -> pd.DataFrame:
    """One row per (trajectory, rubric item, anchor beyond its values): shown (first step, file), delivered,
    altered, held (columns: :data:`ANCHOR_COLUMNS`); :func:`value_summary` gives its shares as for values."""
    rows: list[dict[str, Any]] = []
    for position, t in enumerate(trajectories):
        r = _replay_for(t, position, replays)
        rows += anchor_rows(replace(r, trajectory=t) if r.trajectory is None else r)
    return anchors_table(rows)


def _share(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def failed_shown_missing(frame: pd.DataFrame) -> pd.Series:
    """The rows (a boolean mask) of the values "a failed rubric expected, that appeared in an observation, and
    that are absent from the deliverable": ``passed`` False (NA, an unjudged item, is not failed), ``shown``,
    not ``delivered``. The paper's 94.8% is the held share of these; masked recovery asks about the held ones."""
    failed = frame["passed"].astype("boolean").eq(False).fillna(False).astype(bool)
    return failed & frame["shown"].astype(bool) & ~frame["delivered"].astype(bool)


def value_summary(frame: pd.DataFrame) -> dict[str, Any]:
    """The paper's figures with their counts: shown values missing from the deliverable, and of those, held.

    ``share_shown_missing`` = shown & ~delivered / shown; ``share_missing_held`` = held among shown &
    ~delivered; the ``failed_*`` figures restrict the second to rubric items the judge failed (the paper's
    94.8% is of values "a failed rubric expected").
    """
    shown = frame["shown"].astype(bool)
    missing = shown & ~frame["delivered"].astype(bool)
    held = frame["held"].astype(bool)
    failed_missing = failed_shown_missing(frame)
    n_shown, n_missing = int(shown.sum()), int(missing.sum())
    n_missing_held = int((missing & held).sum())
    n_failed_missing = int(failed_missing.sum())
    n_failed_missing_held = int((failed_missing & held).sum())
    return {
        "values": len(frame),
        "shown": n_shown,
        "delivered": int(frame["delivered"].astype(bool).sum()),
        "held": int(held.sum()),
        "shown_missing": n_missing,
        "share_shown_missing": _share(n_missing, n_shown),
        "shown_missing_held": n_missing_held,
        "share_missing_held": _share(n_missing_held, n_missing),
        "failed_shown_missing": n_failed_missing,
        "failed_shown_missing_held": n_failed_missing_held,
        "share_failed_missing_held": _share(n_failed_missing_held, n_failed_missing),
    }


def value_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows as JSON-ready dicts (NA as None, numpy scalars as Python ones), for ``rtlab values --json``."""
    records = []
    for row in frame.astype(object).itertuples(index=False):
        record: dict[str, Any] = {}
        for name, v in zip(frame.columns, row, strict=True):
            if v is None or (not isinstance(v, str) and _is_na(v)):
                record[name] = None
            elif hasattr(v, "item"):
                record[name] = v.item()
            else:
                record[name] = v
        records.append(record)
    return records


def _is_na(v: Any) -> bool:
    import pandas as pd

    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------------------------
# Derived entries: which kind would hold the values the read log does not

DERIVED_VALUE_COLUMNS = [*VALUE_COLUMNS, "held_count", "held_size", "held_computed"]
"""The columns of :func:`derived_frame`: :data:`VALUE_COLUMNS` and, per derived kind, whether an entry of that
kind holds the value."""


def derived_rows(replay: Replay) -> list[dict[str, Any]]:
    """:func:`value_rows` of a replay with derived entries kept (``TabConfig(derived=True)``), each row with
    ``held_<kind>``: some derived entry of that kind (``count``, ``size``, ``computed``) holds the value
    (compared by :mod:`rtlab.text._numbers`, like ``held``). ``held`` stays the file entries' alone."""
    if not replay.config.derived:
        raise ValueError(
            f"{replay.trajectory_id}: replayed without derived entries (TabConfig(derived=True))"
        )
    rows = value_rows(replay)
    if not rows:
        return rows
    t = replay.trajectory
    assert t is not None and t.task is not None
    values = [v for item in t.task.rubric for v in item_values(t.task, item)]
    kinds = ("count", "size", "computed")
    indexes = {k: [number_index(e.excerpt) for e in replay.tab.read_log if e.kind == k] for k in kinds}
    for row, value in zip(rows, values, strict=True):
        for k in kinds:
            row[f"held_{k}"] = any(index.find(value) is not None for index in indexes[k])
    return rows


def derived_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """:func:`derived_rows`' rows (of many replays) as a typed table (columns :data:`DERIVED_VALUE_COLUMNS`)."""
    import pandas as pd

    base = values_table(rows)
    extra = pd.DataFrame(list(rows), columns=DERIVED_VALUE_COLUMNS[len(VALUE_COLUMNS) :]).astype(bool)
    return pd.concat([base, extra.set_index(base.index)], axis=1)


def derived_summary(frame: pd.DataFrame) -> dict[str, Any]:
    """How many of the shown-but-missing values the read log does not hold each derived kind would hold.

    ``gap`` = shown & ~delivered & ~held (the paper's footnote: values the read log cannot hold); ``count``,
    ``size``, ``computed``: of those, held by an entry of that kind; ``any``: by some derived entry; then the
    same restricted to failed rubric items (``failed_*``, the paper's 94.8% sample).
    """
    missing = frame["shown"].astype(bool) & ~frame["delivered"].astype(bool)
    gap = missing & ~frame["held"].astype(bool)
    failed = frame["passed"].astype("boolean").eq(False).fillna(False).astype(bool)
    kinds = ("count", "size", "computed")
    any_kind = frame[[f"held_{k}" for k in kinds]].any(axis=1)
    out: dict[str, Any] = {"shown_missing": int(missing.sum()), "gap": int(gap.sum())}
    for k in kinds:
        out[k] = int((gap & frame[f"held_{k}"]).sum())
    out["any"] = int((gap & any_kind).sum())
    out["failed_shown_missing"] = int((missing & failed).sum())
    out["failed_gap"] = int((gap & failed).sum())
    for k in kinds:
        out[f"failed_{k}"] = int((gap & failed & frame[f"held_{k}"]).sum())
    out["failed_any"] = int((gap & failed & any_kind).sum())
    return out
