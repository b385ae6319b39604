"""Per-trajectory and per-step summaries: plain dicts for the CLI, DataFrames for notebooks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtlab.records import Step, Trajectory

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.ingest import Summarized

_WARNINGS_SHOWN = 5
"""Reading warnings ``rtlab info`` prints per trajectory (``--json`` gives all)."""


def trajectory_summary(t: Trajectory) -> dict[str, Any]:
    """One flat record per trajectory; rubric counts are ``None`` where no task or judgement is attached."""
    n_items: int | None = None
    if t.task is not None and t.task.rubric:
        n_items = len(t.task.rubric)
    elif t.judgement is not None:
        n_items = len(t.judgement.items)
    return {
        "id": t.id,
        "label": f"{Path(t.source_path).name} [{t.format}]",
        "format": t.format,
        "benchmark": t.benchmark,
        "task_id": t.task_id,
        "model": t.model,
        "harness": t.harness,
        "method": t.method,
        "variant": t.variant,
        "run": t.run,
        "n_steps": t.n_steps,
        "n_unanswered": len(t.steps) - t.n_steps,
        "n_errors": sum(1 for s in t.steps if s.is_error),
        "n_clipped": sum(1 for s in t.steps if s.clipped),
        "n_events": len(t.events),
        "chars_logged": t.chars_logged,
        "chars_shown": t.chars_shown,
        "clip_policy": t.clip_policy,
        "deliverable_files": [f.path for f in t.deliverable.files],
        "has_final_message": t.deliverable.final_message is not None,
        "n_rubric_items": n_items,
        "n_rubric_passed": t.judgement.n_passed if t.judgement is not None else None,
        "input_tokens": t.usage.input_tokens if t.usage else None,
        "output_tokens": t.usage.output_tokens if t.usage else None,
        "n_warnings": len(t.warnings),
        "warnings": [
            {"path": w.path, "line": w.line, "field": w.field, "reason": w.reason, "kind": w.kind}
            for w in t.warnings
        ],
        "source_path": t.source_path,
    }


def summary_frame(trajectories: Iterable[Trajectory]) -> pd.DataFrame:
    """One row per trajectory with the columns of :func:`trajectory_summary`."""
    import pandas as pd

    rows = [trajectory_summary(t) for t in trajectories]
    frame = pd.DataFrame(rows, columns=list(trajectory_summary(Trajectory("", "", "")).keys()))
    for col in ("n_rubric_items", "n_rubric_passed", "input_tokens", "output_tokens"):
        frame[col] = frame[col].astype("Int64")
    return frame


STEP_COLUMNS = (
    "n_steps",
    "n_unanswered",
    "n_errors",
    "n_clipped",
    "n_events",
    "chars_logged",
    "chars_shown",
    "deliverable_files",
    "has_final_message",
    "n_warnings",
    "warnings",
)
"""The columns of :func:`trajectory_summary` that only a whole reading knows (its steps, events, delivered files
and every record's warnings): null in a row read from a log's summary."""
_COUNTS = tuple(c for c in STEP_COLUMNS if c.startswith(("n_", "chars_")))
"""The counts among :data:`STEP_COLUMNS` (nullable integers in :func:`summaries_frame`)."""


def summary_row(summarized: Summarized) -> dict[str, Any]:
    """:func:`trajectory_summary` of a trajectory as summary reading got it, with ``read`` and ``why_full``
    (:func:`summaries_frame`); :data:`STEP_COLUMNS` are ``None`` in a row read from a log's summary."""
    row = trajectory_summary(summarized.trajectory)
    if summarized.read == "summary":
        row.update(dict.fromkeys(STEP_COLUMNS))
    row["read"], row["why_full"] = summarized.read, summarized.why_full
    return row


def format_summary_row(row: dict[str, Any]) -> str:
    """A few readable lines about one row of :func:`summaries_frame` (``rtlab info --summary``)."""
    lines = [f"{row['id']}  [{row['format']}]  {row['source_path']}"]
    facts = [f"{k}={row[k]}" for k in ("benchmark", "task_id", "model", "harness", "method", "run") if row[k]]
    if facts:
        lines.append("  " + "  ".join(facts))
    if row["read"] == "summary":
        lines.append("  steps not counted (read from the log's summary)")
    else:
        lines.append(
            f"  steps {row['n_steps']} answered, {row['n_unanswered']} cut off, {row['n_errors']} errors, "
            f"{row['n_clipped']} clipped; events {row['n_events']}; {row['n_warnings']} warnings"
            + (f" (read whole: {row['why_full']})" if row["why_full"] else "")
        )
    if row["n_rubric_items"] is not None:
        passed = "?" if row["n_rubric_passed"] is None else row["n_rubric_passed"]
        lines.append(f"  rubric: {passed}/{row['n_rubric_items']} passed")
    if row["input_tokens"] is not None or row["output_tokens"] is not None:
        lines.append(f"  tokens: {row['input_tokens']} in, {row['output_tokens']} out")
    return "\n".join(lines)


def summaries_frame(summarized: Iterable[Summarized]) -> pd.DataFrame:
    """One row per trajectory with the columns of :func:`summary_frame` and ``read`` (``summary``: from the
    log's own summary, :data:`STEP_COLUMNS` null; ``full``: read whole) and ``why_full`` (why a log whose
    format keeps a summary was read whole); the counts are nullable integers (``Int64``)."""
    import pandas as pd

    columns = [*trajectory_summary(Trajectory("", "", "")).keys(), "read", "why_full"]
    frame = pd.DataFrame([summary_row(s) for s in summarized], columns=columns)
    for col in (*_COUNTS, "n_rubric_items", "n_rubric_passed", "input_tokens", "output_tokens"):
        frame[col] = frame[col].astype("Int64")
    frame["has_final_message"] = frame["has_final_message"].astype("boolean")
    return frame


def steps_frame(t: Trajectory) -> pd.DataFrame:
    """One row per tool call: index, tool, command, sizes logged and shown, and flags."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "trajectory": t.id,
                "source_path": t.source_path,
                "index": s.index,
                "tool": s.tool,
                "command": s.command,
                "answered": s.answered,
                "is_error": s.is_error,
                "exit_code": s.exit_code,
                "clipped": s.clipped,
                "chars_logged": len(s.output) if s.output is not None else 0,
                "chars_shown": len(s.shown) if s.shown is not None else 0,
                "started_at": s.started_at,
            }
            for s in t.steps
        ],
        columns=[
            "trajectory",
            "source_path",
            "index",
            "tool",
            "command",
            "answered",
            "is_error",
            "exit_code",
            "clipped",
            "chars_logged",
            "chars_shown",
            "started_at",
        ],
    )


def format_summary(t: Trajectory) -> str:
    """A few readable lines about a trajectory, for ``rtlab info``."""
    s = trajectory_summary(t)
    lines = [f"{t.id}  [{t.format}]  {t.source_path}"]
    facts = [f"{k}={s[k]}" for k in ("benchmark", "task_id", "model", "harness", "method", "run") if s[k]]
    if facts:
        lines.append("  " + "  ".join(facts))
    lines.append(
        f"  steps {s['n_steps']} answered, {s['n_unanswered']} cut off, {s['n_errors']} errors, "
        f"{s['n_clipped']} clipped; events {s['n_events']}"
    )
    lines.append(
        f"  chars logged {s['chars_logged']:,}, shown {s['chars_shown']:,} (clip policy {s['clip_policy'] or 'none'})"
    )
    if s["deliverable_files"]:
        lines.append("  deliverable: " + ", ".join(s["deliverable_files"]))
    if s["n_rubric_items"] is not None:
        passed = "?" if s["n_rubric_passed"] is None else s["n_rubric_passed"]
        lines.append(f"  rubric: {passed}/{s['n_rubric_items']} passed")
    if t.warnings:
        kinds = Counter(w.kind for w in t.warnings)
        lines.append(
            f"  {len(t.warnings)} warnings ("
            + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
            + ")"
        )
        for w in t.warnings[:_WARNINGS_SHOWN]:
            lines.append(f"  warning: {w}")
        if len(t.warnings) > _WARNINGS_SHOWN:
            lines.append(f"  ... and {len(t.warnings) - _WARNINGS_SHOWN} more (--json lists them all)")
    return "\n".join(lines)


def format_step(step: Step, *, max_chars: int = 1500) -> str:
    """A step as a reader pages through it: the command, then what the model was shown (and what was logged)."""
    head = f"[{step.index}] {step.tool}"
    if step.exit_code is not None:
        head += f"  exit {step.exit_code}"
    if step.is_error:
        head += "  ERROR"
    if not step.answered:
        return f"{head}  (no result: the run was cut off)\n$ {step.command}"
    shown = step.shown or ""
    out = [head, f"$ {step.command}"]
    if step.clipped:
        out.append(f"(clipped: {len(step.output or ''):,} characters logged, {len(shown):,} shown)")
    out.append(
        shown
        if len(shown) <= max_chars
        else shown[:max_chars] + f"\n… [{len(shown) - max_chars:,} more characters]"
    )
    return "\n".join(out)
