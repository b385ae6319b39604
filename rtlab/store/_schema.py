"""The store's tables: every column with its Parquet type, the pandas type it is read back as, and its meaning.

One :class:`Column` list per table is the one statement of a table's schema: the build casts each frame to it
(:func:`arrow_schema`), the reader restores the in-memory types from it (:func:`restore`), and docs/STORE.md
describes the same columns (a test checks the two agree). Every table also carries :data:`KEY_COLUMNS`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

ArrowType = Literal["string", "int64", "float64", "bool", "list<string>", "json"]


@dataclass(frozen=True)
class Column:
    """One column of a store table."""

    name: str
    """The column's name, as in the in-memory frame it comes from."""
    type: ArrowType
    """Its Parquet type; ``json`` is a string holding JSON (nested values), decoded when read through rtlab."""
    pandas: str
    """The pandas dtype the in-memory frame has: ``object`` where pandas infers it from the values (``str`` for
    text), ``python`` for Python objects with ``None`` kept, ``nan`` as ``object`` but NaN where no row has it, or the dtype the analysis sets (``Int64``, ...)."""
    doc: str
    """What it means."""


def _c(name: str, type: ArrowType, pandas: str, doc: str) -> Column:
    return Column(name, type, pandas, doc)


VERSION = 3
"""The store's format. 2: every part records its files' sizes and sha256 (``parts[PART]["checksums"]``), checked on open and rebuild.
3: the manifest's entries that grow with the runs (``runs``, each part's runs, ``skipped``, ``files_seen``,
``order``) live in a content-named index file (``_index-<sha256 16>.json``) whose size and sha256 the manifest
records (``index``), read only when something needs them; a store of version 1 or 2 (one manifest file) is read
as it is, and its next build writes it in this layout."""

KEY_COLUMNS: tuple[Column, ...] = (
    _c(
        "run_hash",
        "string",
        "object",
        "the content hash of the run (unit) the row comes from (16 hex digits)",
    ),
    _c(
        "shard", "int64", "int64", "the run's shard (a function of its unit path); also the folder `shard=NN`"
    ),
)
"""Columns every table has beside its own: which run a row belongs to and where it is stored."""

_TRAJ = _c("trajectory", "string", "object", "the trajectory's id")
_SRC = _c("source_path", "string", "object", "the file or folder the trajectory was read from")
_LABELS = (
    _c(
        "benchmark",
        "string",
        "object",
        "the benchmark joined (`workspace-bench`, `officeqa`, `theagentcompany`)",
    ),
    _c("task_id", "string", "object", "the benchmark's task id"),
    _c("model", "string", "object", "the model that ran"),
    _c("method", "string", "object", "the experimental arm's method (run label)"),
    _c("variant", "string", "object", "the arm's variant, e.g. an ablation (run label)"),
    _c("run", "string", "object", "the repetition's label (run label)"),
)

TABLES: dict[str, tuple[Column, ...]] = {
    "trajectories": (
        _c("id", "string", "object", "the trajectory's id"),
        _c("label", "string", "object", "a short label: the source's name and the format"),
        _c("format", "string", "object", "the reader's format name"),
        _LABELS[0],
        _LABELS[1],
        _LABELS[2],
        _c("harness", "string", "object", "the harness that recorded it"),
        *_LABELS[3:],
        _c("n_steps", "int64", "int64", "answered tool calls"),
        _c("n_unanswered", "int64", "int64", "tool calls without a result"),
        _c("n_errors", "int64", "int64", "tool calls that failed"),
        _c("n_clipped", "int64", "int64", "tool results the harness clipped"),
        _c("n_events", "int64", "int64", "non-step events (messages, errors, ...)"),
        _c("chars_logged", "int64", "int64", "characters of tool output logged"),
        _c("chars_shown", "int64", "int64", "characters of tool output the model was shown"),
        _c("clip_policy", "string", "object", "the clipping policy applied"),
        _c("deliverable_files", "list<string>", "object", "paths of the delivered files"),
        _c("has_final_message", "bool", "bool", "whether the run ended with a final message"),
        _c("n_rubric_items", "int64", "Int64", "rubric items of its task (null: no task)"),
        _c("n_rubric_passed", "int64", "Int64", "rubric items the judge passed (null: no judgement)"),
        _c("input_tokens", "int64", "Int64", "input tokens used (null: not logged)"),
        _c("output_tokens", "int64", "Int64", "output tokens used (null: not logged)"),
        _c("n_warnings", "int64", "int64", "reading warnings: records skipped, repaired or not understood"),
        _c(
            "warnings",
            "json",
            "object",
            "the reading warnings: a list of `{path, line, field, reason, kind}` (`Trajectory.warnings`)",
        ),
        _SRC,
    ),
    "records": (
        _TRAJ,
        _c(
            "record",
            "string",
            "object",
            "the whole trajectory as canonical JSON (`rtlab.trajectory` version 3)",
        ),
    ),
    "steps": (
        _TRAJ,
        _SRC,
        _c("step", "int64", "int64", "the step's index in the trajectory"),
        _c("tool", "string", "object", "the tool name, as logged"),
        _c("kind", "string", "object", "`observe`, `tab_call`, `skipped_tab_call` or `unanswered`"),
        _c("n_requirements", "int64", "int64", "requirements on the tab after the step"),
        _c("n_open", "int64", "int64", "of those, still open"),
        _c("n_entries", "int64", "int64", "read-log entries after the step"),
        _c("n_files", "int64", "int64", "distinct files in the read log after the step"),
        _c("n_candidates", "int64", "int64", "candidates (listed, never read) after the step"),
        _c("n_new_entries", "int64", "int64", "read-log entries the step added"),
        _c("status_line", "string", "object", "the status line the agent would have read after the step"),
    ),
    "read_log": (
        _TRAJ,
        _SRC,
        _c("id", "string", "object", "the entry's id (`L1`, ...)"),
        _c("step", "int64", "int64", "the step that showed it"),
        _c("path", "string", "object", "the file it is an excerpt of"),
        _c("revision", "string", "object", "git's revision (`show REV:FILE`); null for the working copy"),
        _c("kind", "string", "object", "`file`, or a derived entry's `count` / `size` / `computed`"),
        _c("command", "string", "object", "the command that showed it"),
        _c("chars", "int64", "int64", "the excerpt's length in characters"),
        _c("excerpt", "string", "object", "the text exactly as the model was shown it"),
    ),
    "candidates": (
        _TRAJ,
        _SRC,
        _c("rank", "int64", "int64", "its rank, from 1 (BM25 of its path against the task)"),
        _c("path", "string", "object", "the file listed but never opened"),
        _c("score", "float64", "float64", "its BM25 score"),
        _c("step_listed", "int64", "int64", "the step that listed it"),
    ),
    "requirements": (
        _TRAJ,
        _SRC,
        _c("id", "string", "object", "the requirement's id (`R1`, `P1`, ...)"),
        _c("text", "string", "object", "its text"),
        _c("status", "string", "object", "`open` or `resolved`"),
        _c("cite", "string", "object", "the read-log entry it was resolved with"),
        _c("reason", "string", "object", "why a resolution was refused or accepted"),
        _c("step_added", "int64", "object", "the step that added it"),
        _c("step_resolved", "float64", "object", "the step that resolved it (null: open)"),
        _c("origin", "string", "object", "`agent`, `rubric` or `proposed`"),
        _c("proposed_by", "string", "object", "the proposer of a proposed requirement"),
    ),
    "tab_stats": (
        _TRAJ,
        _SRC,
        _c("n_requirements", "int64", "int64", "requirements on the final tab"),
        _c("n_entries", "int64", "int64", "read-log entries on the final tab"),
        _c("n_files", "int64", "int64", "distinct files read"),
        _c("excerpt_chars", "int64", "int64", "characters of excerpts held"),
        _c("n_candidates", "int64", "int64", "candidates left"),
        _c("review_coverage", "float64", "float64", "review coverage over the replayed `tab_list` calls"),
        _c("final_review_coverage", "float64", "float64", "review coverage of the final tab"),
    ),
    "values": (
        _c("trajectory", "string", "string", "the trajectory's id"),
        _c("source_path", "string", "string", "the file or folder it was read from"),
        _c("rubric_index", "int64", "int64", "the rubric item (or OfficeQA answer) expecting the value"),
        _c("passed", "bool", "boolean", "whether the judge passed the item (null: not judged)"),
        _c("value", "string", "string", "the value as the rubric writes it"),
        _c("number", "float64", "float64", "its number"),
        _c("shown", "bool", "bool", "shown to the model in some tool result"),
        _c("shown_step", "int64", "Int64", "the first step that showed it"),
        _c("shown_path", "string", "string", "the file that step read"),
        _c("delivered", "bool", "bool", "in the deliverable (final message or files)"),
        _c("held", "bool", "bool", "in the tab's read log after replay"),
    ),
    "labels": (
        _TRAJ,
        _SRC,
        _LABELS[1],
        _LABELS[0],
        *_LABELS[2:],
        _c("rubric_index", "int64", "int64", "the failed rubric item"),
        _c("rubric_type", "string", "object", "the item's rubric type"),
        _c(
            "annotator", "string", "object", "who labelled it (`rules`: the codebook's deterministic labeler)"
        ),
        _c(
            "category",
            "string",
            "object",
            "`shown_but_missing`, `dropped_or_distorted`, `discovery` or `other`",
        ),
        _c("subreason", "string", "python", "under `other`, the sub-reason; else null"),
        _c("rule", "string", "object", "the codebook rule that decided (`R9`)"),
        _c(
            "confidence",
            "string",
            "object",
            "the rule's confidence, `high` or `low` (check a `low` one by hand)",
        ),
        _c("codebook_version", "string", "object", "the codebook's version (`rtlab-codebook/2.0`)"),
        _c("rationale", "string", "object", "the rule's finding in the item's terms"),
        _c("evidence", "json", "object", "what decided: a list of `{step, path, excerpt}`"),
        _c("n_evidence", "int64", "int64", "items of evidence"),
    ),
    "scores": (
        _TRAJ,
        _SRC,
        *_LABELS,
        _c("n_rubric_items", "int64", "nan", "Workspace-Bench: rubric items"),
        _c("n_passed", "int64", "nan", "Workspace-Bench: items passed"),
        _c("fraction", "float64", "nan", "Workspace-Bench: share passed (Rubric Pass Rate's input)"),
        _c("result", "float64", "nan", "TheAgentCompany: checkpoint points earned"),
        _c("total", "float64", "nan", "TheAgentCompany: checkpoint points possible"),
        _c("score", "float64", "nan", "TheAgentCompany: the benchmark's score"),
        _c("success", "bool", "nan", "TheAgentCompany: whether every checkpoint passed"),
        _c("correct@0", "float64", "nan", "OfficeQA: 1.0 when correct at 0% tolerance, else 0.0"),
        _c("correct@1", "float64", "nan", "OfficeQA: 1.0 when correct at 1% tolerance, else 0.0"),
        _c("prediction", "string", "nan", "OfficeQA: the answer read from the run"),
        _c("answer_source", "string", "nan", "OfficeQA: where the answer was read"),
        _c("scorer_version", "string", "nan", "OfficeQA: the official scorer's version"),
    ),
}
"""Every table of the store, its columns in order (:data:`KEY_COLUMNS` follow)."""


def columns(table: str) -> list[str]:
    """The table's own column names, in order (without :data:`KEY_COLUMNS`)."""
    return [c.name for c in TABLES[table]]


def _arrow(t: ArrowType) -> pa.DataType:
    import pyarrow as pa

    return {
        "string": pa.string(),
        "json": pa.string(),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "list<string>": pa.list_(pa.string()),
    }[t]


def arrow_schema(table: str) -> pa.Schema:
    """The Parquet schema of ``table``: its columns, then ``run_hash`` (``shard`` is the folder's)."""
    import pyarrow as pa

    return pa.schema([pa.field(c.name, _arrow(c.type)) for c in (*TABLES[table], KEY_COLUMNS[0])])


def _none(v: Any) -> Any:
    """``None`` for every missing value (NaN, NA, NaT); the value otherwise."""
    if v is None:
        return None
    try:
        import pandas as pd

        if not isinstance(v, list | tuple | dict) and pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return v


def to_arrow(table: str, frame: pd.DataFrame, run_hash: str) -> pa.Table:
    """``frame`` (an in-memory table's rows) as Arrow data of :func:`arrow_schema`: nested ``json`` columns
    encoded, missing values null, every row tagged with ``run_hash``."""
    import pyarrow as pa

    schema = arrow_schema(table)
    arrays = []
    for c in TABLES[table]:
        values = [_none(v) for v in frame[c.name].tolist()] if c.name in frame else [None] * len(frame)
        if c.type == "json":
            values = [None if v is None else json.dumps(v, ensure_ascii=False) for v in values]
        elif c.type == "int64":
            values = [None if v is None else int(v) for v in values]
        elif c.type == "float64":
            values = [None if v is None else float(v) for v in values]
        elif c.type == "bool":
            values = [None if v is None else bool(v) for v in values]
        elif c.type == "string":
            values = [None if v is None else str(v) for v in values]
        arrays.append(pa.array(values, type=_arrow(c.type)))
    arrays.append(pa.array([run_hash] * len(frame), type=pa.string()))
    return pa.Table.from_arrays(arrays, schema=schema)


def restore(table: str, data: pa.Table, names: Sequence[str]) -> pd.DataFrame:
    """Arrow data read from the store as the frame the analyses compute in memory: built from Python values
    as they build theirs (so pandas infers the same types), ``json`` decoded, and the extension types they set
    (``Int64``, ``boolean``, ``string``) set again."""
    import pandas as pd

    specs = {c.name: c for c in (*TABLES[table], *KEY_COLUMNS)}
    columns: dict[str, list[Any]] = {}
    for name in names:
        values = data.column(name).to_pylist()
        if specs[name].type == "json":
            values = [None if v is None else json.loads(v) for v in values]
        columns[name] = values
    frame = pd.DataFrame(columns, columns=list(names))
    for name in names:
        if specs[name].pandas == "nan" and not frame[name].notna().any():  # absent from every row: NaN
            frame[name] = pd.Series(float("nan"), index=frame.index, dtype="float64")
        elif specs[name].pandas == "python":  # Python values, None for missing (not NaN)
            frame[name] = pd.Series(columns[name], index=frame.index, dtype=object)
        elif specs[name].pandas in ("Int64", "boolean", "string", "float64"):
            frame[name] = frame[name].astype(specs[name].pandas)
    return frame
