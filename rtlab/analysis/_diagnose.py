"""Why each rubric point was lost: a deterministic labeler that applies the codebook to the evidence.

For every failed rubric item of a trajectory, :func:`item_facts` gathers what the codebook's rules read (the
source files the item refers to and whether each was opened or only listed, the item's expected values with
their shown / delivered / held flags from :func:`rtlab.analysis._values.values_frame`, quoted wording, whether the item
is about format, and what the judge's evidence text claims), and :func:`diagnose` applies the rules of
``codebook_v1.json`` in their order. Each :class:`Label` names the rule that decided, records the codebook
version and cites its evidence: read-log entries ``{step, path, excerpt}`` and the deliverable ``{step: None,
path, excerpt}``. :func:`diagnose_frame` labels many trajectories; :func:`breakdown` gives the lost rubric
points by category per group (counts and shares).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rtlab.analysis._codebook import CATEGORIES, Codebook, Confidence, load_codebook
from rtlab.analysis._coverage import Coverage, DeliverableIndex, coverage
from rtlab.analysis._expressions import AUTO_SOURCES, SourceFinder, SourceFolder, Trace, trace
from rtlab.analysis._operands import Misbuilt, misbuilt, one_number_answer
from rtlab.records import Deliverable, Trajectory
from rtlab.text import (
    Anchor,
    AnchorIndex,
    content_id,
    file_mentions,
    find_numbers,
    fold_text,
    name_key,
    tokenize,
)

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.environment import ReadEntry, Replay

EXCERPT_CHARS = 200
"""Longest excerpt a label cites: the text around a value, or the first characters of an entry or file."""
_CONTEXT = 80  # characters either side of a located value or quote
_QUOTE = re.compile(r"\"([^\"]{3,}?)\"|\u201c([^\u201d]{3,}?)\u201d|\u300c([^\u300d]{3,}?)\u300d")
_MIN_NAME_TOKENS = 2  # a source named only by tokens needs at least this many, all present in the item
MIN_CONTENT_CHARS = 40
"""A read-log entry opens its file only when its excerpt holds at least this many characters besides the
file's path, white space and markdown punctuation (``# | : -``): a search hit showing only the path and a
heading line (``/x/4-dashboard.xlsx:## Income Expense Dashboard``) does not open the file."""
_NOT_CONTENT = re.compile(r"[\s#|:\-]+")
DATA_SUFFIXES = frozenset({".xlsx", ".xlsm", ".xls", ".csv", ".tsv", ".json", ".jsonl", ".parquet"})
"""Files made of records (spreadsheets, delimited text, JSON): one whose shown excerpts hold no records showed
its headers only (codebook 2.2, R2b)."""
RefMode = Literal["named", "tokens", "anchors", "format", "all"]
"""How an item's referred files were found (:attr:`ItemFacts.ref_mode`)."""


@dataclass
class Label:
    """The diagnosis of one failed rubric item: one lost rubric point."""

    trajectory: str
    """Trajectory id."""
    rubric_index: int
    """The item's index in the task's rubric."""
    category: str
    """``shown_but_missing``, ``dropped_or_distorted``, ``discovery`` or ``other``."""
    subreason: str | None
    """Under ``other``: ``reasoning_computation``, ``format_instructions``, ``judge_error``,
    ``missing_deliverable`` or ``undetermined``; ``None`` for the other categories."""
    codebook_version: str
    """Version of the codebook whose rules decided (``Codebook.version``)."""
    evidence: list[dict[str, Any]]
    """What decided, as ``{step, path, excerpt}``: read-log entries (step index, file path) and the deliverable
    (step ``None``, delivered file path or ``final_message``)."""
    rationale: str
    """One or two sentences: the rule's finding in this item's terms."""
    rule: str = ""
    """Id of the codebook rule that decided (``R9``)."""
    confidence: Confidence = "high"
    """The deciding rule's confidence (:attr:`rtlab.analysis.Rule.confidence`): ``low`` marks a label to check
    by hand before quoting it."""


@dataclass
class ItemFacts:
    """Everything the codebook's rules read about one failed rubric item."""

    rubric_index: int
    """The item's index in the task's rubric."""
    text: str
    """The item's text; empty when the task has no item of that index."""
    type: str | None
    """The item's rubric type, where the benchmark gives one."""
    sources: list[str]
    """The task's source files (data manifest names and dependency-graph nodes, deduplicated)."""
    referred: list[str]
    """The source files the item refers to (see ``ref_mode``)."""
    ref_mode: RefMode
    """How ``referred`` was found: ``named`` (file names in the text), ``tokens`` (all name tokens in the text),
    ``format`` (a format item names none: it needs none), ``all`` (no mention: every source file)."""
    opened: dict[str, list[ReadEntry]]
    """Referred file -> the read-log entries that opened it (empty list: never opened)."""
    glimpsed: dict[str, list[ReadEntry]]
    """Unopened referred file -> read-log entries of it that show no content (a path and a heading)."""
    listed: dict[str, tuple[str, int]]
    """Unopened referred file -> (candidate path, step that listed it)."""
    values: list[dict[str, Any]]
    """The item's rows of the values frame (value, number, shown, shown_step, shown_path, delivered, held)."""
    anchors: list[Anchor] = field(default_factory=list)
    """The item's anchors beyond its values (:func:`rtlab.text.find_anchors`; codebook 2)."""
    anchors_shown: list[bool] = field(default_factory=list)
    """Per anchor: it occurs in what the steps showed the model."""
    anchors_delivered: list[bool] = field(default_factory=list)
    """Per anchor: it occurs in the deliverable."""
    anchors_altered: list[Anchor | None] = field(default_factory=list)
    """Per anchor not delivered: the deliverable's near miss of it (a changed date, a code with other
    digits), else ``None``."""
    quotes: list[str] = field(default_factory=list)
    """Wording the item's text quotes (in ``"..."``, “...” or 「...」, 3 characters or more)."""
    quotes_shown: list[bool] = field(default_factory=list)
    """Per quote: it occurs in what the steps showed the model (NFKC, case and white space folded)."""
    quotes_delivered: list[bool] = field(default_factory=list)
    """Per quote: it occurs in the delivered files or the final message (folded the same way)."""
    format_item: bool = False
    """The item is about format: a ``format_words`` phrase in its text, and no expected value."""
    data_item: bool = False
    """The item asks for the sources' data in the deliverable (a ``data_words`` phrase: rows or records of
    data, all the data; codebook 2.1)."""
    nothing_opened: bool = False
    """The task names source files and the run opened none of them (no read-log entry shows the content of
    any)."""
    access_item: bool = False
    """The item asks that a source file be located or opened: an ``access_words`` phrase, with files
    named in its text or a ``source_file_words`` phrase."""
    reasoning_item: bool = False
    """Its text has a ``reasoning_words`` phrase (a calculation, an order, logic)."""
    judge_evidence: str = ""
    """The judge's evidence text for the item; empty when it gave none."""
    judge_says: dict[str, list[str]] = field(default_factory=dict)
    """``rubric_error`` / ``mismatch`` / ``absent`` / ``unread`` (codebook 2.1) -> the text of the judge's
    evidence that the codebook's phrases of that kind matched (empty: the judge does not say so)."""
    has_deliverable: bool = True
    """The run delivered something: a final message that is not blank, or a file with content or a size."""
    deliverable_files: list[tuple[str, str]] = field(default_factory=list)
    """(path, text) of the delivered files and the final message, the run's own outputs first."""
    unread_claims: list[tuple[str, int]] = field(default_factory=list)
    """Task source files the judge's evidence names while saying files were not found or not read
    (``unread_phrases``), each with the step that opened it, when the read log shows every one it names
    opened; else empty (codebook 2.1, R15a)."""
    coverage: Coverage | None = None
    """The records the run was shown of the files the item needs, and how many the deliverable holds
    (:mod:`rtlab.analysis._coverage`; codebook 2.2); ``None`` for a format item that does not ask for the
    records' data (codebook 2.3: one that does, ``data_item``, is judged on them first)."""
    deliverable_opaque: bool = False
    """The run delivered files and rtlab reads text in none of them (an image, a binary): what they hold is
    unknown, so no rule concludes that they lack the records shown (R9a)."""
    data_files: tuple[str, ...] = ()
    """The needed files that are data files (:data:`DATA_SUFFIXES`): their records are what they hold."""
    trace: Trace | None = None
    """Where a one-number item's expected value comes from (:func:`rtlab.analysis._expressions.trace`), for an
    item that expects one value, not delivered, by a run whose deliverable states one number and whose answer
    R7a-R7c do not explain (codebook 2.2); else ``None``."""
    misbuilt: Misbuilt | None = None
    """How a wrong one-number answer was built, where the item expects one value that was not delivered and
    one of R7a-R7c's conditions holds (:func:`rtlab.analysis._operands.misbuilt`; codebook 2.1)."""

    @property
    def unopened(self) -> list[str]:
        return [f for f in self.referred if not self.opened.get(f)]


# ---------------------------------------------------------------------------------------------------------
# File names: the one matching rule between the task's file names and the paths an agent read


def same_file(source: str, path: str) -> bool:
    """Whether a workspace ``path`` is the task's ``source`` file: same name key, or the same content id."""
    if name_key(source) == name_key(path):
        return True
    cid = content_id(source)
    return cid is not None and cid == content_id(path)


def opens_file(entry: ReadEntry) -> bool:
    """Whether a read-log entry shows its file's content (see :data:`MIN_CONTENT_CHARS`)."""
    text = entry.excerpt
    forms = {entry.path, "/" + entry.path.lstrip("/"), posixpath.basename(entry.path)}
    for form in sorted(forms, key=len, reverse=True):  # the whole path before its base name
        text = text.replace(form, "")
    return len(_NOT_CONTENT.sub("", text)) >= MIN_CONTENT_CHARS


def task_sources(trajectory: Trajectory) -> list[str]:
    """The task's source files: data-manifest names, then dependency-graph nodes not already named; never the
    deliverables the task asks for (a graph may end in them)."""
    if trajectory.task is None:
        return []
    outputs = {name_key(n) for n in trajectory.task.expected_outputs}
    out: list[str] = []
    for name in [
        *trajectory.task.source_files,
        *(n for edge in trajectory.task.dependency_graph for n in edge),
    ]:
        key = name_key(name)
        if key not in outputs and not any(key == name_key(o) for o in out):
            out.append(name)
    return out


def _stem_tokens(name: str) -> set[str]:
    key = name_key(name)
    return set(tokenize(key.rsplit(".", 1)[0] if "." in key else key))


def referred_files(
    text: str, sources: Sequence[str], *, format_item: bool, located: Sequence[str] = ()
) -> tuple[list[str], RefMode]:
    """The sources an item refers to and how (the codebook's "referred files" feature); ``located``: the
    sources whose shown content holds the item's values or anchors (codebook 2)."""
    named: list[str] = []
    for mention in file_mentions(text):
        exact = [s for s in sources if name_key(s) == name_key(mention)]
        mention_tokens = _stem_tokens(mention)
        loose = [s for s in sources if mention_tokens and mention_tokens <= _stem_tokens(s)]
        for s in exact or loose:
            if s not in named:
                named.append(s)
    if named:
        return named, "named"
    item_tokens = set(tokenize(text))
    by_tokens = [
        s for s in sources if len(_stem_tokens(s)) >= _MIN_NAME_TOKENS and _stem_tokens(s) <= item_tokens
    ]
    if by_tokens:
        return by_tokens, "tokens"
    if located:
        return list(located), "anchors"
    if format_item:
        return [], "format"
    return list(sources), "all"


# ---------------------------------------------------------------------------------------------------------
# Text helpers


def _clip(text: str, start: int = 0, end: int | None = None) -> str:
    """The text around ``[start, end)`` (or the head of the text), white space collapsed, at most
    :data:`EXCERPT_CHARS` characters, with ``…`` where it was cut."""
    if end is None:
        head = re.sub(r"\s+", " ", text[: EXCERPT_CHARS * 2]).strip()
        return head[:EXCERPT_CHARS] + (
            "…" if len(head) > EXCERPT_CHARS or len(text) > EXCERPT_CHARS * 2 else ""
        )
    lo, hi = max(0, start - _CONTEXT), min(len(text), end + _CONTEXT)
    piece = re.sub(r"\s+", " ", text[lo:hi]).strip()[:EXCERPT_CHARS]
    return ("…" if lo > 0 else "") + piece + ("…" if hi < len(text) else "")


def locate_value(value: str, text: str, number: float | None = None) -> tuple[int, int] | None:
    """Where the rubric value ``value`` (as written; ``number`` picks the right reading when the text holds
    several numbers) occurs in ``text``, by :class:`rtlab.text._numbers.NumberIndex` (the rule ``delivered`` uses),
    else literally; ``None`` when absent."""
    from rtlab.text import find_numbers, number_index

    readings = find_numbers(value)
    expected = next((n for n in readings if number is not None and n.value == number), None)
    expected = expected or (readings[0] if readings else None)
    found = number_index(text).find(expected) if expected is not None else None
    if found is not None:
        if text[found.start : found.end] == found.text:
            return found.start, found.end
        i = text.find(found.text)  # a piece of a CSV-grouped number: its offsets are the piece's own
        if i >= 0:
            return i, i + len(found.text)
    i = text.find(value)
    return (i, i + len(value)) if i >= 0 and value else None


def _locate_quote(quote: str, text: str) -> tuple[int, int] | None:
    m = re.search(r"\s+".join(re.escape(w) for w in quote.split()), text, re.IGNORECASE)
    return (m.start(), m.end()) if m else None


# ---------------------------------------------------------------------------------------------------------
# The deliverable


def _has_deliverable(d: Deliverable) -> bool:
    if d.final_message and d.final_message.strip():
        return True
    return any((f.content and f.content.strip()) or (f.size or 0) > 0 for f in d.files)


def deliverable_files(trajectory: Trajectory) -> list[tuple[str, str]]:
    """(path, text) of each delivered file and of the final message (path ``final_message``), as
    :func:`rtlab.analysis._values.deliverable_text` reads them. Files the task names (``expected_outputs``) come first,
    then files some step's command names (the run's own outputs), then the rest (left over from other runs)."""
    from rtlab.analysis._values import deliverable_text

    expected = {name_key(p) for p in (trajectory.task.expected_outputs if trajectory.task else [])}
    commands = "\n".join(s.command for s in trajectory.steps)

    def rank(path: str) -> int:
        if name_key(path) in expected:
            return 0
        return 1 if posixpath.basename(path) in commands else 2

    out: list[tuple[str, str]] = []
    for f in sorted(trajectory.deliverable.files, key=lambda f: rank(f.path)):
        one = dataclasses.replace(trajectory, deliverable=Deliverable(final_message=None, files=[f]))
        text = deliverable_text(one)
        if text.strip():
            out.append((f.path, text))
    if trajectory.deliverable.final_message and trajectory.deliverable.final_message.strip():
        out.append(("final_message", trajectory.deliverable.final_message))
    return out


def _deliverable_head(facts: ItemFacts) -> list[dict[str, Any]]:
    if not facts.deliverable_files:
        return []
    path, text = facts.deliverable_files[0]
    return [{"step": None, "path": path, "excerpt": _clip(text)}]


def _deliverable_at(facts: ItemFacts, find: Callable[[str], tuple[int, int] | None]) -> dict[str, Any] | None:
    """The first delivered file (run's own outputs first) where ``find`` locates something, with an excerpt."""
    for path, text in facts.deliverable_files:
        span = find(text)
        if span is not None:
            return {"step": None, "path": path, "excerpt": _clip(text, *span)}
    return None


# ---------------------------------------------------------------------------------------------------------
# Facts of one item


def _value_rows(values: pd.DataFrame | None, trajectory_id: str) -> dict[int, list[dict[str, Any]]]:
    """The values frame's rows of one trajectory, by rubric item."""
    if values is None or values.empty:
        return {}
    mine = values[values["trajectory"] == trajectory_id]
    out: dict[int, list[dict[str, Any]]] = {}
    for row in mine.to_dict("records"):
        out.setdefault(int(row["rubric_index"]), []).append(row)
    return out


@dataclass(frozen=True)
class RunEvidence:
    """What every failed item of one run is checked against, computed once per run (:func:`run_evidence`)."""

    rows: dict[int, list[dict[str, Any]]]
    """The values frame's rows by rubric item."""
    files: list[tuple[str, str]]
    """The deliverable's files and the final message (:func:`deliverable_files`)."""
    shown_text: str
    """Everything the agent was shown, folded."""
    delivered_text: str
    """Everything it delivered, folded."""
    shown_anchors: AnchorIndex | None = None
    """The anchors of everything the agent was shown (codebook 2)."""
    delivered_anchors: AnchorIndex | None = None
    """The anchors of everything it delivered."""
    delivered_index: DeliverableIndex | None = None
    """The numbers and anchors of everything it delivered, to test shown records in (codebook 2.2)."""
    instruction: str = ""
    """The task's instruction (records it states are not the sources' records)."""
    shown_records: dict[str, Any] = field(default_factory=dict)
    """The records of each read-log excerpt read so far (:func:`rtlab.analysis._coverage.coverage`'s memo):
    every item of the run shares them."""


def run_evidence(
    trajectory: Trajectory,
    values: pd.DataFrame | None = None,
    *,
    delivered: list[tuple[str, str]] | None = None,
) -> RunEvidence:
    """:class:`RunEvidence` of ``trajectory`` (``values``: a values frame holding its rows, if any)."""
    files = delivered if delivered is not None else deliverable_files(trajectory)
    return RunEvidence(
        rows=_value_rows(values, trajectory.id),
        files=files,
        shown_text=fold_text("\n".join(s.shown or "" for s in trajectory.steps), compatibility=True),
        delivered_text=fold_text("\n".join(t for _, t in files), compatibility=True),
        shown_anchors=AnchorIndex("\n".join(s.shown or "" for s in trajectory.steps)),
        delivered_anchors=AnchorIndex("\n".join(t for _, t in files)),
        delivered_index=DeliverableIndex(files),
        instruction=trajectory.task.instruction if trajectory.task else "",
    )


def _missing(value: Any) -> bool:
    """None, NaN or pandas' NA (which refuses ``bool()``)."""
    import pandas as pd

    if value is None:
        return True
    return isinstance(value, float | type(pd.NA)) and bool(pd.isna(value))


def _flag(row: dict[str, Any], key: str) -> bool:
    value = row.get(key)
    return not _missing(value) and bool(value)


def _item_anchors(text: str, rows: list[dict[str, Any]]) -> list[Anchor]:
    """The item's anchors that its value rows do not already cover (:func:`rtlab.analysis.item_anchors`)."""
    from rtlab.analysis._values import item_anchors
    from rtlab.text import find_numbers

    values = [n for r in rows if not _missing(r.get("number")) for n in find_numbers(str(r["value"]))[:1]]
    return item_anchors(text, values)


def _located(
    sources: Sequence[str], rows: list[dict[str, Any]], anchors: list[Anchor], replay: Replay
) -> list[str]:
    """The sources whose shown content holds one of the item's shown values (the values frame's
    ``shown_path``) or shown anchors (a read-log entry of the file that holds the anchor)."""
    paths = {str(r["shown_path"]) for r in rows if _flag(r, "shown") and not _missing(r.get("shown_path"))}
    out = [s for s in sources if any(same_file(s, p) for p in paths)]
    if anchors:
        for e in replay.tab.read_log:
            if not any(AnchorIndex(e.excerpt).find(a) is not None for a in anchors):
                continue
            for s in sources:
                if s not in out and same_file(s, e.path):
                    out.append(s)
    return out


def item_facts(
    trajectory: Trajectory,
    index: int,
    replay: Replay,
    values: pd.DataFrame | None,
    *,
    codebook: Codebook | None = None,
    delivered: list[tuple[str, str]] | None = None,
    run: RunEvidence | None = None,
    folder: SourceFolder | None = None,
) -> ItemFacts:
    """The codebook's features for rubric item ``index`` (see ``codebook_v1.json``, "features"). ``run``, the
    run's :func:`run_evidence` when several of its items are looked at, stands for ``values`` and
    ``delivered``."""
    seen = run if run is not None else run_evidence(trajectory, values, delivered=delivered)
    cb = codebook or load_codebook()
    lex = cb.lexicon
    item = next((r for r in trajectory.task.rubric if r.index == index), None) if trajectory.task else None
    text = item.text if item is not None else ""
    result = (
        next((r for r in trajectory.judgement.items if r.index == index), None)
        if trajectory.judgement
        else None
    )
    judge = (result.evidence or "") if result is not None else ""
    rows = seen.rows.get(index, [])
    sources = task_sources(trajectory)
    v2 = "no_source_words" in lex.lists
    anchors = _item_anchors(text, rows) if v2 else []
    shown_idx, delivered_idx = seen.shown_anchors, seen.delivered_anchors
    anchors_shown = [shown_idx is not None and shown_idx.find(a) is not None for a in anchors]
    anchors_delivered = [delivered_idx is not None and delivered_idx.find(a) is not None for a in anchors]
    altered = [
        None if d or delivered_idx is None else delivered_idx.near_miss(a)
        for a, d in zip(anchors, anchors_delivered, strict=True)
    ]
    format_item = (
        (lex.has("format_words", text) or (v2 and lex.has("no_source_words", text)))
        and not rows
        and not any(anchors_shown)
    )
    located = (
        _located(sources, rows, [a for a, sh in zip(anchors, anchors_shown, strict=True) if sh], replay)
        if v2
        else []
    )
    referred, mode = referred_files(text, sources, format_item=format_item, located=located)
    entries = {s: [e for e in replay.tab.read_log if same_file(s, e.path)] for s in referred}
    opened = {s: [e for e in found if opens_file(e)] for s, found in entries.items()}
    glimpsed = {s: found for s, found in entries.items() if found and not opened[s]}
    listed: dict[str, tuple[str, int]] = {}
    for s in referred:
        if not opened[s]:
            hits = sorted((step, path) for path, step in replay.tab.candidates.items() if same_file(s, path))
            if hits:
                listed[s] = (hits[0][1], hits[0][0])
    quotes = [next(g for g in m.groups() if g) for m in _QUOTE.finditer(text)]
    data_item = "data_words" in lex.lists and lex.has("data_words", text)
    needed = referred if referred else ([] if format_item and not data_item else sources)
    cover = None
    if seen.delivered_index is not None and needed and (data_item or not format_item):
        shown_of = {s: [e for e in replay.tab.read_log if same_file(s, e.path)] for s in needed}
        cover = coverage(
            needed, shown_of, seen.delivered_index, known=seen.instruction, memo=seen.shown_records
        )
    unread = lex.find("unread_phrases", judge) if judge and "unread_phrases" in lex.lists else []
    built = _misbuilt(trajectory, rows, seen.files) if any(r.id == "R7a" for r in cb.rules) else None
    traces = any(r.id == "R7d" for r in cb.rules)
    return ItemFacts(
        rubric_index=index,
        text=text,
        type=item.type if item is not None else None,
        sources=sources,
        referred=referred,
        ref_mode=mode,
        opened=opened,
        glimpsed=glimpsed,
        listed=listed,
        values=rows,
        anchors=anchors,
        anchors_shown=anchors_shown,
        anchors_delivered=anchors_delivered,
        anchors_altered=altered,
        quotes=quotes,
        quotes_shown=[fold_text(q, compatibility=True) in seen.shown_text for q in quotes],
        quotes_delivered=[fold_text(q, compatibility=True) in seen.delivered_text for q in quotes],
        format_item=format_item,
        data_item=data_item,
        nothing_opened=bool(sources)
        and not any(opens_file(e) for e in replay.tab.read_log if any(same_file(s, e.path) for s in sources)),
        access_item=lex.has("access_words", text) and (mode == "named" or lex.has("source_file_words", text)),
        reasoning_item=lex.has("reasoning_words", text),
        judge_evidence=judge,
        judge_says={
            **{k: lex.find(f"{k}_phrases", judge) for k in ("rubric_error", "mismatch", "absent") if judge},
            **({"unread": unread} if unread else {}),
        },
        has_deliverable=_has_deliverable(trajectory.deliverable),
        deliverable_files=seen.files,
        coverage=cover if any(r.id == "R9a" for r in cb.rules) else None,
        deliverable_opaque=bool(trajectory.deliverable.files)
        and not any(path != "final_message" for path, _ in seen.files),
        data_files=tuple(s for s in needed if posixpath.splitext(name_key(s))[1] in DATA_SUFFIXES),
        misbuilt=built,
        trace=_trace(trajectory, rows, seen.files, folder) if built is None and traces else None,
        unread_claims=_unread_claims(judge, sources, replay) if unread else [],
    )


def _names(text: str, source: str) -> bool:
    """Whether ``text`` writes ``source``'s comparable name whole (prose in a language without spaces glues a
    file name to the word before it: ``四个源文件description_9.txt``)."""
    key = name_key(source)
    return (
        re.search(r"(?<![A-Za-z0-9_.-])" + re.escape(key) + r"(?![A-Za-z0-9])", text, re.IGNORECASE)
        is not None
    )


def _unread_claims(judge: str, sources: list[str], replay: Replay) -> list[tuple[str, int]]:
    """R15a's feature: the task's source files the judge's evidence names, each with the first step that
    opened it, when every one it names was opened (a claim that some were not found is then contradicted)."""
    mentions = file_mentions(judge)
    named = [s for s in sources if any(same_file(s, m) for m in mentions) or _names(judge, s)]
    out = []
    for s in named:
        first = next((e for e in replay.tab.read_log if same_file(s, e.path) and opens_file(e)), None)
        if first is None:
            return []
        out.append((s, first.step))
    return out


def _trace(
    trajectory: Trajectory,
    rows: list[dict[str, Any]],
    files: list[tuple[str, str]],
    sources: SourceFolder | None,
) -> Trace | None:
    """R7d / R9 / R9b's reading of an item with one expected value, not delivered, whose deliverable states
    one number (:func:`rtlab.analysis._expressions.trace`)."""
    if len(rows) != 1 or _flag(rows[0], "delivered") or trajectory.task is None:
        return None
    expected = find_numbers(str(rows[0]["value"]))
    answer = one_number_answer(files)
    if len(expected) != 1 or answer is None:
        return None
    return trace(
        [(s.index, s.shown or "") for s in trajectory.steps if s.answered],
        expected[0],
        answer,
        trajectory.task.instruction,
        sources=sources,
        source_files=trajectory.task.source_files,
    )


def _misbuilt(
    trajectory: Trajectory, rows: list[dict[str, Any]], files: list[tuple[str, str]]
) -> Misbuilt | None:
    """R7a-R7c's reading of a wrong one-number answer, for an item with one expected value, not delivered."""
    if len(rows) != 1 or _flag(rows[0], "delivered"):
        return None
    expected = find_numbers(str(rows[0]["value"]))
    return misbuilt(trajectory, expected[0], files) if len(expected) == 1 else None


# ---------------------------------------------------------------------------------------------------------
# Evidence


def _entry(e: ReadEntry, span: tuple[int, int] | None = None) -> dict[str, Any]:
    return {"step": e.step, "path": e.path, "excerpt": _clip(e.excerpt, *span) if span else _clip(e.excerpt)}


def _value_evidence(facts: ItemFacts, trajectory: Trajectory, replay: Replay) -> list[dict[str, Any]]:
    """Per value: where it was shown (the read-log entry, else the step's observation), and where delivered."""
    out: list[dict[str, Any]] = []
    for row in facts.values:
        value = str(row["value"])
        number = None if _missing(row.get("number")) else float(row["number"])
        if _flag(row, "shown"):
            out.append(_shown_at(row, value, number, trajectory, replay))
        if _flag(row, "delivered"):
            hit = _deliverable_at(facts, partial(locate_value, value, number=number))
            if hit is not None:
                out.append(hit)
    if not any(e["step"] is None for e in out):
        out += _deliverable_head(facts)
    return [e for i, e in enumerate(out) if e not in out[:i]]


def _shown_at(
    row: dict[str, Any], value: str, number: float | None, trajectory: Trajectory, replay: Replay
) -> dict[str, Any]:
    """Where a value was first shown: the read-log entry of that step holding it (the values frame's
    ``shown_path`` first), else the step's observation itself (path ``None``: not a file read)."""
    step = None if _missing(row.get("shown_step")) else int(row["shown_step"])
    path = None if _missing(row.get("shown_path")) else str(row["shown_path"])
    at_step = sorted((e for e in replay.tab.read_log if e.step == step), key=lambda e: e.path != path)
    for e in at_step:
        span = locate_value(value, e.excerpt, number)
        if span is not None:
            return _entry(e, span)
    shown = next((s.shown for s in trajectory.steps if s.index == step), None) if step is not None else None
    if shown:
        span = locate_value(value, shown, number)
        return {"step": step, "path": None, "excerpt": _clip(shown, *span) if span else _clip(shown)}
    return {"step": step, "path": None, "excerpt": value}


def _listing_evidence(facts: ItemFacts, trajectory: Trajectory) -> list[dict[str, Any]]:
    out = [_entry(facts.glimpsed[s][0]) for s in facts.unopened if s in facts.glimpsed]
    for source in facts.unopened:
        if source not in facts.listed:
            continue
        path, step = facts.listed[source]
        shown = next((s.shown or "" for s in trajectory.steps if s.index == step), "")
        i = shown.find(posixpath.basename(path))
        out.append(
            {"step": step, "path": path, "excerpt": _clip(shown, i, i + len(path)) if i >= 0 else path}
        )
    return out


def _first_reads(facts: ItemFacts) -> list[dict[str, Any]]:
    return [_entry(entries[0]) for entries in facts.opened.values() if entries]


# ---------------------------------------------------------------------------------------------------------
# The rules, in codebook order


def _says(facts: ItemFacts, kind: str) -> bool:
    return bool(facts.judge_says.get(kind))


def _quote_judge(facts: ItemFacts, kind: str) -> str:
    found = facts.judge_says.get(kind) or []
    return (
        f"the judge says {kind} ({', '.join(repr(f) for f in found)})"
        if found
        else f"the judge says no {kind}"
    )


def _describe_values(facts: ItemFacts) -> str:
    parts = []
    for row in facts.values:
        bits = []
        if _flag(row, "shown"):
            bits.append(f"shown at step {int(row['shown_step'])}")
        bits.append("delivered" if _flag(row, "delivered") else "not delivered")
        if _flag(row, "held"):
            where = "" if _missing(row.get("shown_path")) else f" in {row['shown_path']}"
            bits.append(f"held{where}")
        parts.append(f"{row['value']} ({', '.join(bits)})")
    return "; ".join(parts)


def _describe_files(facts: ItemFacts) -> str:
    if not facts.referred:
        return "refers to no source file"
    bits = []
    for s in facts.referred:
        if facts.opened.get(s):
            bits.append(f"{s} opened at step {facts.opened[s][0].step}")
        elif s in facts.glimpsed:
            e = facts.glimpsed[s][0]
            bits.append(f"{s} seen only as a path and heading at step {e.step} ({e.path}), never opened")
        elif s in facts.listed:
            bits.append(f"{s} listed at step {facts.listed[s][1]} as {facts.listed[s][0]}, never opened")
        else:
            bits.append(f"{s} never listed, never opened")
    return f"refers to ({facts.ref_mode}) " + "; ".join(bits)


def _decide_anchors(facts: ItemFacts, files: str) -> tuple[str, str, str | None, str] | None:
    """R10a, R10b, R10c: the item's anchors, read against what was shown (codebook 2)."""
    trio = list(
        zip(facts.anchors, facts.anchors_shown, facts.anchors_delivered, facts.anchors_altered, strict=True)
    )
    delivered = [a.text for a, _, d, _ in trio if d]
    missing_shown = [a.text for a, sh, d, alt in trio if sh and not d and alt is None]
    altered = [(a.text, alt.text) for a, sh, d, alt in trio if sh and not d and alt is not None]
    if altered or (delivered and missing_shown):
        what = "; ".join(f"{x!r} shown, {y!r} delivered" for x, y in altered)
        part = (
            f"{delivered} delivered, {missing_shown} shown and missing" if delivered and missing_shown else ""
        )
        return (
            "R10a",
            "dropped_or_distorted",
            None,
            f"Anchors: {'; '.join(p for p in (what, part) if p)}; {files}.",
        )
    if missing_shown and not delivered and not _says(facts, "mismatch"):  # as R11 yields to R14
        return (
            "R10b",
            "shown_but_missing",
            None,
            f"Anchors {missing_shown} shown in an observation, absent from the deliverable; {files}.",
        )
    if len(delivered) == len(trio) and _says(facts, "absent") and not _says(facts, "mismatch"):
        return (
            "R10c",
            "other",
            "judge_error",
            f"Anchors {delivered} all delivered; {_quote_judge(facts, 'absent')}.",
        )
    return None


def _empty_of_records(facts: ItemFacts) -> bool:
    """R9a's condition: the files the item needs showed records and the deliverable, which rtlab can read,
    holds (almost) none of them (an empty template, a placeholder, a notice)."""
    cover = facts.coverage
    return (
        cover is not None
        and bool(cover.with_records)
        and cover.none_delivered
        and not facts.deliverable_opaque
    )


def _r9a(facts: ItemFacts, files: str) -> tuple[str, str, str | None, str]:
    cover = facts.coverage
    assert cover is not None
    return (
        "R9a",
        "shown_but_missing",
        None,
        f"The item names no value; the run was shown {cover.shown} records of "
        f"{', '.join(cover.with_records)} and the deliverable holds {cover.delivered} of them (lacking "
        f"e.g. {', '.join(cover.examples[:3])}); {files}.",
    )


def _files_dropped(facts: ItemFacts) -> tuple[str, str, str | None, str] | None:
    """R7e (codebook 2.5): the item names no value but asks for the records' data or names the files it needs,
    those files showed their records, and the deliverable, which rtlab can read, holds at least half of the
    records of some of them and none of others': whole files were read and their records dropped."""
    cover = facts.coverage
    if (
        cover is None
        or facts.deliverable_opaque
        or not (facts.data_item or facts.ref_mode in ("named", "tokens"))
    ):
        return None  # an item about the deliverable itself (its method, its sections) needs no file's records
    kept, dropped = cover.files_dropped
    if not kept or not dropped:
        return None
    held = dict(zip(cover.needed, zip(cover.per_file_delivered, cover.per_file, strict=True), strict=True))
    return (
        "R7e",
        "dropped_or_distorted",
        None,
        "The item names no value; the deliverable holds the records shown of "
        + ", ".join(f"{f} ({held[f][0]} of {held[f][1]})" for f in kept)
        + " and none of those shown of "
        + ", ".join(f"{f} ({held[f][1]})" for f in dropped)
        + f": read and dropped; {_describe_files(facts)}.",
    )


def decide(facts: ItemFacts) -> tuple[str, str, str | None, str]:
    """Apply the rules in codebook order: (rule id, category, sub-reason, rationale)."""
    values = facts.values
    shown = [r for r in values if _flag(r, "shown")]
    delivered = [r for r in values if _flag(r, "delivered")]
    files = _describe_files(facts)
    if not facts.has_deliverable:
        return (
            "R1",
            "other",
            "missing_deliverable",
            "The run delivered no file with content and no final message.",
        )
    if facts.unopened:
        return "R2", "discovery", None, f"Item {files}."
    if facts.data_item and facts.nothing_opened:
        return (
            "R2a",
            "discovery",
            None,
            f"The item asks for the sources' data and the run opened none of the task's source files "
            f"({', '.join(facts.sources)}).",
        )
    cover = facts.coverage
    if (
        cover is not None
        and not facts.format_item
        and facts.data_files
        and not any(cover.data_shown(s) for s in cover.needed)
        and not any(_flag(r, "delivered") for r in values)
        and not any(facts.anchors_delivered)
    ):
        return (
            "R2b",
            "discovery",
            None,
            f"The item needs {', '.join(facts.data_files)}: opened, but no excerpt shown of "
            f"{'it' if len(facts.data_files) == 1 else 'them'} holds their records (headers, a title or a "
            f"summary line only); {files}.",
        )
    if _says(facts, "rubric_error"):
        return (
            "R3",
            "other",
            "judge_error",
            f"The judge states the rubric is wrong ({_quote_judge(facts, 'rubric_error')}).",
        )
    if facts.access_item and facts.referred:
        return (
            "R4",
            "other",
            "judge_error",
            f"Access item; the read log shows every referred file opened: {files}.",
        )
    if facts.format_item:
        if facts.data_item and not facts.quotes and not _says(facts, "mismatch") and _empty_of_records(facts):
            return _r9a(facts, files)  # a format item of the records' data: an empty template has no format
        return "R5", "other", "format_instructions", f"Format item (type {facts.type}); {files}."
    if values:
        summary = f"Values: {_describe_values(facts)}; {files}"
        if len(delivered) == len(values) and not _says(facts, "mismatch"):
            return (
                "R6",
                "other",
                "judge_error",
                f"{summary}. Every value is delivered; {_quote_judge(facts, 'absent')}.",
            )
        if delivered:
            return "R7", "dropped_or_distorted", None, f"{summary}. Only part of the values is delivered."
        if facts.misbuilt is not None:
            rule = {"operand": "R7a", "scale": "R7b", "cell": "R7c"}[facts.misbuilt.kind]
            return rule, "dropped_or_distorted", None, f"{summary}. {facts.misbuilt.rationale}."
        traced = facts.trace
        if traced is not None and traced.answer:
            return (
                "R7d",
                "dropped_or_distorted",
                None,
                f"{summary}. The expected value is {traced.expression}; the same over other operands gives the "
                f"answer ({traced.answer}): the right operands were shown, others used.",
            )
        if _says(facts, "mismatch"):
            return "R8", "dropped_or_distorted", None, f"{summary}; {_quote_judge(facts, 'mismatch')}."
        if shown and (traced is None or traced.shown_as_quantity):
            return (
                "R9",
                "shown_but_missing",
                None,
                f"{summary}. Shown in an observation, absent from the deliverable.",
            )
        if traced is not None and traced.where == "workspace":
            return (
                "R9b",
                "discovery",
                None,
                f"{summary}. Never shown: the source files hold it as {traced.expression}, which the run never "
                "printed.",
            )
        if traced is not None:
            where = (
                f"computed from shown operands as {traced.expression}; the answer is none of its neighbours"
                if traced.where == "shown"
                else "no small expression over what was shown"
                + (" or the source files" if traced.sources_searched else "")
                + " gives it"
            )
            coincidence = " (its digits appear in what was shown, not as that quantity)" if shown else ""
            budget = f" ({traced.evaluated:,} expressions tried{', search cut' if traced.cut else ''})"
            return (
                "R10",
                "other",
                "reasoning_computation",
                f"{summary}. Not shown as that quantity{coincidence}: {where}{budget}.",
            )
        return (
            "R10",
            "other",
            "reasoning_computation",
            f"{summary}. Never shown (derived value), not delivered.",
        )
    if facts.anchors and any(facts.anchors_shown):
        decided = _decide_anchors(facts, files)
        if decided is not None:
            return decided
    if facts.quotes:
        missing = [q for q, d in zip(facts.quotes, facts.quotes_delivered, strict=True) if not d]
        seen = [q for q, s in zip(facts.quotes, facts.quotes_shown, strict=True) if s and q in missing]
        if seen and not _says(facts, "mismatch"):
            return (
                "R11",
                "shown_but_missing",
                None,
                f"Quoted {seen} shown in an observation, not delivered; {files}.",
            )
        if missing and not seen:
            return (
                "R12",
                "other",
                "format_instructions",
                f"Quoted {missing} neither shown nor delivered; {files}.",
            )
        if _says(facts, "absent") and not _says(facts, "mismatch"):
            return (
                "R13",
                "other",
                "judge_error",
                f"Quoted {facts.quotes} delivered; {_quote_judge(facts, 'absent')}.",
            )
    if _says(facts, "mismatch"):
        return "R14", "dropped_or_distorted", None, f"{_quote_judge(facts, 'mismatch')}; {files}."
    if _empty_of_records(facts):
        return _r9a(facts, files)
    if (dropped := _files_dropped(facts)) is not None:
        return dropped
    if facts.reasoning_item:
        return (
            "R15",
            "other",
            "reasoning_computation",
            f"The item asks for order, logic or computation; {files}.",
        )
    if facts.unread_claims:
        opened = "; ".join(f"{s} opened at step {step}" for s, step in facts.unread_claims)
        return (
            "R15a",
            "other",
            "judge_error",
            f"{_quote_judge(facts, 'unread')} of files the task names, but the read log shows {opened}.",
        )
    return (
        "R16",
        "other",
        "undetermined",
        f"No rule decides: no value, no quote, no mismatch claimed; {files}.",
    )


def _evidence(rule: str, facts: ItemFacts, trajectory: Trajectory, replay: Replay) -> list[dict[str, Any]]:
    if rule == "R1":
        last = [s for s in trajectory.steps if s.answered][-1:]
        return [{"step": s.index, "path": None, "excerpt": _clip(s.shown or "")} for s in last]
    if rule == "R2":
        return _listing_evidence(facts, trajectory) + _first_reads(facts) + _deliverable_head(facts)
    if rule == "R4":
        return _first_reads(facts)
    if facts.values and rule in {"R3", "R6", "R7", "R8", "R9", "R10"}:
        return _value_evidence(facts, trajectory, replay)
    if rule in {"R11", "R12", "R13"}:
        return _quote_evidence(facts, trajectory)
    if rule in {"R10a", "R10b", "R10c"}:
        return _anchor_evidence(facts, trajectory)
    if rule in {"R7a", "R7b", "R7c"} and facts.misbuilt is not None:
        shown = facts.misbuilt
        right = (
            [{"step": shown.step, "path": None, "excerpt": _clip(shown.excerpt)}]
            if shown.step is not None
            else []
        )
        return right + _deliverable_head(facts)
    return _first_reads(facts)[:3] + _deliverable_head(facts)


def _anchor_evidence(facts: ItemFacts, trajectory: Trajectory) -> list[dict[str, Any]]:
    """Per anchor: the first step that showed it, and where the deliverable holds it (or its near miss)."""
    out: list[dict[str, Any]] = []
    for a, shown, alt in zip(facts.anchors, facts.anchors_shown, facts.anchors_altered, strict=True):
        if shown:
            for s in trajectory.steps:
                hit = AnchorIndex(s.shown or "").find(a) if s.shown else None
                if hit is not None:
                    span = (hit.start, hit.end) if hit.start >= 0 else None
                    out.append(
                        {
                            "step": s.index,
                            "path": None,
                            "excerpt": _clip(s.shown or "", *span) if span else _clip(s.shown or ""),
                        }
                    )
                    break
        target = alt or a
        found = _deliverable_at(facts, partial(_anchor_span, target))
        if found is not None:
            out.append(found)
    return [e for i, e in enumerate(out) if e not in out[:i]] or _deliverable_head(facts)


def _anchor_span(anchor: Anchor, text: str) -> tuple[int, int] | None:
    hit = AnchorIndex(text).find(anchor)
    if hit is None:
        return None
    return (hit.start, hit.end) if hit.start >= 0 else _locate_quote(anchor.text, text)


def _quote_evidence(facts: ItemFacts, trajectory: Trajectory) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for quote, was_shown in zip(facts.quotes, facts.quotes_shown, strict=True):
        if was_shown:
            for s in trajectory.steps:
                span = _locate_quote(quote, s.shown or "")
                if span is not None:
                    out.append({"step": s.index, "path": None, "excerpt": _clip(s.shown or "", *span)})
                    break
        hit = _deliverable_at(facts, partial(_locate_quote, quote))
        if hit is not None:
            out.append(hit)
    return out or _deliverable_head(facts)


# ---------------------------------------------------------------------------------------------------------
# Public API


def failed_items(trajectory: Trajectory) -> list[int]:
    """Indices of the rubric items the judge failed (none without a judgement)."""
    if trajectory.judgement is None:
        return []
    return sorted(r.index for r in trajectory.judgement.items if not r.passed)


def diagnose(
    trajectory: Trajectory,
    replay: Replay,
    values: pd.DataFrame | None = None,
    *,
    codebook: Codebook | None = None,
    sources: str | Path | SourceFolder | SourceFinder | None = None,
) -> list[Label]:
    """One :class:`Label` per failed rubric item (judge ``passed`` false), deterministic, from the evidence.

    ``replay`` is the trajectory replayed with the default tab (``rtlab.environment.replay(trajectory)``);
    ``values`` its :func:`rtlab.analysis._values.values_frame` rows, computed from ``replay`` when not given
    (pass a frame to reuse one computed for many trajectories). A trajectory without a judgement has no
    failed items and gets no label. ``sources``: a folder holding the task's source files by name (the
    workspace), searched for an expected value the run never showed (R9b); ``"auto"``: such a folder looked
    for near the run (:class:`~rtlab.analysis._expressions.SourceFinder`); without it such a value is traced
    through what was shown only.
    """
    indices = failed_items(trajectory)
    if not indices:
        return []
    cb = codebook or load_codebook()
    if values is None:
        from rtlab.analysis._values import values_frame

        values = values_frame([trajectory], [replay])
    run = run_evidence(trajectory, values)
    folder = _folder_of(trajectory, _source_lookup(sources))
    confidence = {r.id: r.confidence for r in cb.rules}
    labels = []
    for index in indices:
        facts = item_facts(trajectory, index, replay, None, codebook=cb, run=run, folder=folder)
        rule, category, subreason, rationale = decide(facts)
        if facts.unread_claims and rule != "R15a":  # the judge's claim is checked whatever rule decided
            opened = "; ".join(f"{s} opened at step {step}" for s, step in facts.unread_claims)
            rationale += f" The judge's claim that files were not found or read is contradicted: {opened}."
        labels.append(
            Label(
                trajectory=trajectory.id,
                rubric_index=index,
                category=category,
                subreason=subreason,
                codebook_version=cb.version,
                evidence=_evidence(rule, facts, trajectory, replay),
                rationale=f"{rule}: {rationale}",
                rule=rule,
                confidence=confidence.get(rule, "high"),
            )
        )
    return labels


def _source_lookup(
    sources: str | Path | SourceFolder | SourceFinder | None,
) -> SourceFolder | SourceFinder | None:
    """What ``sources`` stands for (:func:`diagnose`): one folder for every run, a finder (``"auto"``), or none;
    made once for many runs, so that each source file is parsed once."""
    if sources is None or isinstance(sources, (SourceFolder, SourceFinder)):
        return sources
    if isinstance(sources, str) and sources == AUTO_SOURCES:
        return SourceFinder()
    return SourceFolder(sources)


def _folder_of(trajectory: Trajectory, lookup: SourceFolder | SourceFinder | None) -> SourceFolder | None:
    """The folder of ``trajectory``'s source files (:func:`_source_lookup`)."""
    if isinstance(lookup, SourceFinder):
        names = trajectory.task.source_files if trajectory.task is not None else []
        return lookup.folder_for(trajectory.source_path, names)
    return lookup


def label_to_dict(label: Label) -> dict[str, Any]:
    """The JSON object of a label (what ``rtlab diagnose --json`` prints, one per line)."""
    return dataclasses.asdict(label)


LABEL_COLUMNS = [
    "trajectory",
    "source_path",
    "task_id",
    "benchmark",
    "model",
    "method",
    "variant",
    "run",
    "rubric_index",
    "rubric_type",
    "category",
    "subreason",
    "rule",
    "confidence",
    "codebook_version",
    "rationale",
    "evidence",
    "n_evidence",
]


def diagnose_frame(
    trajectories: Iterable[Trajectory],
    replays: Sequence[Replay],
    *,
    values: pd.DataFrame | None = None,
    sources: str | Path | SourceFinder | None = None,
) -> pd.DataFrame:
    """One row per failed rubric item of every trajectory: the label plus the trajectory's grouping columns
    (task, benchmark, model, method, variant, run) for :func:`breakdown`. ``replays`` are the trajectories
    replayed, in the same order; ``values`` their values frame, computed from them when not given; ``sources``
    the tasks' source files (:func:`diagnose`: a folder, ``"auto"``, or a
    :class:`~rtlab.analysis._expressions.SourceFinder` whose ``used`` then says which folders served)."""
    trajectories = list(trajectories)
    if values is None:
        from rtlab.analysis._values import values_frame

        values = values_frame(trajectories, list(replays))
    of = values_of(values)
    folder = _source_lookup(sources)  # each file parsed once for all runs
    rows = []
    for t, r in zip(trajectories, replays, strict=True):
        rows += _label_rows(t, diagnose(t, r, of(t.id), sources=folder))
    return labels_frame(rows)


def _label_rows(t: Trajectory, labels: list[Label]) -> list[dict[str, Any]]:
    """Each label as a row of :func:`diagnose_frame`: the label plus the trajectory's grouping columns."""
    types = {i.index: i.type for i in t.task.rubric} if t.task else {}
    return [
        {
            **label_to_dict(label),
            "source_path": t.source_path,
            "task_id": t.task_id,
            "benchmark": t.benchmark,
            "model": t.model,
            "method": t.method,
            "variant": t.variant,
            "run": t.run,
            "rubric_type": types.get(label.rubric_index),
            "n_evidence": len(label.evidence),
        }
        for label in labels
    ]


def labels_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """:func:`diagnose_frame`'s table from its rows (e.g. rows that :func:`diagnosis_rows` made in worker
    processes)."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=LABEL_COLUMNS)
    frame["subreason"] = pd.Series(
        [r["subreason"] for r in rows], index=frame.index, dtype=object
    )  # None, not NaN
    return frame


def values_of(values: pd.DataFrame) -> Callable[[str], pd.DataFrame]:
    """A values frame of many trajectories split by trajectory: the rows of one (none: an empty frame of the
    same columns), as :func:`diagnose` takes them."""
    by_trajectory = dict(tuple(values.groupby("trajectory", sort=False))) if not values.empty else {}
    none = values.iloc[0:0]
    return lambda trajectory_id: by_trajectory.get(trajectory_id, none)


def diagnosis_rows(
    replay: Replay, values: pd.DataFrame | None = None, *, sources: str | Path | None = None
) -> list[dict[str, Any]]:
    """The :func:`diagnose_frame` rows of the trajectory ``replay`` replayed (``replay.trajectory``): what a
    worker of :func:`rtlab.environment._replay.replay_paths` sends back (``each=diagnosis_rows``). ``values``:
    its values rows, where the caller has them (:func:`values_of`), else computed here."""
    t = replay.trajectory
    if t is None:
        raise ValueError(f"{replay.trajectory_id}: the replay does not hold its trajectory")
    return _label_rows(t, diagnose(t, replay, values, sources=sources))


LABEL_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Label))
"""The keys of :func:`label_to_dict`, in order: a label row less the grouping columns."""


def breakdown(
    labels: pd.DataFrame,
    by: Sequence[str] = ("method",),
    *,
    level: Literal["category", "subreason"] = "category",
) -> pd.DataFrame:
    """Lost rubric points by category per group: ``lost`` (failed items), ``share`` (of the group's lost
    points) and ``group_lost``. Every category appears in every group, with 0 where none fell in it.

    ``by=[]`` gives the overall breakdown, ``by=["trajectory"]`` one per trajectory. ``level="subreason"``
    splits ``other`` into ``other/<sub-reason>``.
    """
    import pandas as pd

    if level not in ("category", "subreason"):
        raise ValueError(f"level must be 'category' or 'subreason', got {level!r}")
    by = list(by)
    cb = load_codebook()
    if level == "category":
        keys = list(CATEGORIES)
        label = labels["category"]
    else:
        keys = [c for c in CATEGORIES if c != "other"] + [f"other/{s}" for s in cb.subreasons]
        label = labels["category"].where(
            labels["category"] != "other", "other/" + labels["subreason"].astype(str)
        )
    frame = labels.assign(_label=label)
    groups = frame.groupby(by, dropna=False, sort=True) if by else [((), frame)]
    rows = []
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        counts = group["_label"].value_counts()
        total = int(len(group))
        for k in keys:
            lost = int(counts.get(k, 0))
            rows.append(
                {
                    **dict(zip(by, key, strict=True)),
                    level: k,
                    "lost": lost,
                    "share": lost / total if total else float("nan"),
                    "group_lost": total,
                }
            )
    return pd.DataFrame(rows, columns=[*by, level, "lost", "share", "group_lost"])
