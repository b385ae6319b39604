"""How a trajectory and a step look in a notebook (``_repr_html_``) and as plain text (``_repr_pretty_``).

A trajectory is a compact step table: tool, command, characters logged and shown, clipped, and the files its
typed action names (a file tool's path; what a shell command read is capture's to say, so the replay's table
shows the files captured). A step is what was shown beside what was logged, with the harness's frames dimmed
and its clip markers marked. The HTML primitives are :mod:`rtlab.display`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rtlab.display import Span, block, escape, marked_text, side_by_side, table, text_table

if TYPE_CHECKING:
    from rtlab.records._records import Step, Trajectory

STEP_COLUMNS = ("step", "tool", "command", "logged", "shown", "clipped", "action", "file")
"""The columns of a trajectory's step table."""


def _one_line(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def step_row(s: Step) -> list[Any]:
    """One step's row of the step table."""
    a = s.action
    named = (a.path or a.base or a.pattern or "") if a is not None else ""
    return [
        s.index,
        s.tool,
        _one_line(s.command),
        len(s.output) if s.output is not None else "—",
        len(s.shown) if s.shown is not None else "—",
        s.clipped,
        a.kind if a is not None else "",
        named,
    ]


def _head(t: Trajectory) -> list[tuple[str, str]]:
    judged = ""
    if t.judgement is not None and t.judgement.items:
        passed = sum(1 for i in t.judgement.items if i.passed)
        judged = f"{passed}/{len(t.judgement.items)} rubric items passed"
    facts = [
        ("trajectory", t.id),
        ("format", t.format),
        ("model", t.model or ""),
        ("benchmark", t.benchmark or ""),
        ("task", t.task_id or ""),
        ("run", " ".join(x for x in (t.method, t.variant, t.run) if x)),
        ("steps", f"{t.n_steps:,} answered of {len(t.steps):,}"),
        ("characters", f"{t.chars_logged:,} logged, {t.chars_shown:,} shown"),
        ("judge", judged),
    ]
    return [(k, v) for k, v in facts if v]


def trajectory_html(t: Trajectory) -> str:
    """The notebook display of a trajectory: its facts, then the step table (long runs truncated with counts)."""
    facts = "".join(f"<b>{escape(k)}</b> {escape(v)}<br>" for k, v in _head(t))
    rows = [step_row(s) for s in t.steps]
    return block(f"<div>{facts}</div>", table(STEP_COLUMNS, rows, what="steps"))


def trajectory_text(t: Trajectory) -> str:
    """The plain-text display of a trajectory: the same facts and table."""
    facts = "\n".join(f"{k}: {v}" for k, v in _head(t))
    return facts + "\n" + text_table(STEP_COLUMNS, [step_row(s) for s in t.steps], what="steps")


def frame_spans(s: Step) -> list[Span]:
    """The step's frames as spans of its shown text: clip markers and the harness's own words."""
    return [Span(f.start, f.end, "clip" if f.kind == "clip" else "frame", f.kind) for f in s.frames]


def step_html(s: Step, reads: list[Span] | None = None) -> str:
    """The notebook display of a step: the command, then what was shown (frames dimmed, clip marked, ``reads``
    highlighted) beside what was logged when the two differ."""
    head = (
        f"<b>step {s.index}</b> · {escape(s.tool)}"
        + (" · <b>clipped</b>" if s.clipped else "")
        + (" · error" if s.is_error else "")
        + (f" · exit {s.exit_code}" if s.exit_code is not None else "")
        + f"<pre>{escape(s.command)}</pre>"
    )
    if s.output is None:
        return block(head, '<div class="note">no result (the call was cut off)</div>')
    shown = s.shown or ""
    spans = frame_spans(s) + list(reads or [])
    shown_html = marked_text(shown, spans)
    if shown == s.output:
        return block(head, f"<h4>shown = logged ({len(shown):,} characters)</h4>", shown_html)
    return block(
        head,
        side_by_side(
            (f"shown ({len(shown):,} characters)", shown_html),
            (f"logged ({len(s.output):,} characters)", marked_text(s.output)),
        ),
    )


def step_text(s: Step) -> str:
    """The plain-text display of a step: a one-line header and the command."""
    size = (
        "no result" if s.output is None else f"{len(s.output or ''):,} logged, {len(s.shown or ''):,} shown"
    )
    return f"step {s.index} {s.tool} ({size}{', clipped' if s.clipped else ''}): {_one_line(s.command, 200)}"
