"""How a tab and a replay look in a notebook (``_repr_html_``) and as plain text (``_repr_pretty_``).

A tab is its three parts: R (requirements and their status), L (the read log: file, step, characters) and C
(candidates, ranked). A replay is the trajectory's step table with what the environment did at each step (kind,
files read into L, the tab's counts after it) beside the tab; ``replay.at(n)`` is the same run with the tab as it
was after step ``n`` and that step shown with its captured excerpts highlighted. The HTML primitives are
:mod:`rtlab.display`'s; a step's own display is the records'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtlab.display import Span, block, escape, side_by_side, table, text_table
from rtlab.records import step_html

if TYPE_CHECKING:
    from rtlab.environment._replay import Replay
    from rtlab.environment._tab import Tab
    from rtlab.records import Step

REPLAY_COLUMNS = ("step", "tool", "kind", "command", "shown", "clipped", "read", "L", "C", "open R")
"""The columns of a replay's step table."""


def _one_line(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _tab_parts(tab: Tab) -> tuple[list[list[Any]], list[list[Any]], list[list[Any]]]:
    reqs = [[r.id, r.status, r.cite or "", _one_line(r.text)] for r in tab.requirements]
    log = [[e.id, e.step, e.path, len(e.excerpt)] for e in tab.read_log]
    cands = [[c.path, round(c.score, 3), c.step_listed] for c in tab.candidates_ranked()]
    return reqs, log, cands


def tab_html(tab: Tab) -> str:
    """The notebook display of a tab: R, L and C as three tables (each truncated with counts), the status line."""
    reqs, log, cands = _tab_parts(tab)
    return block(_tab_body(tab, reqs, log, cands))


def _tab_body(tab: Tab, reqs: list[list[Any]], log: list[list[Any]], cands: list[list[Any]]) -> str:
    return (
        f"<div><b>{escape(tab.status_line())}</b></div>"
        + table(
            ("id", "status", "cites", "text"),
            reqs,
            title=f"R: {len(reqs)} requirements",
            what="requirements",
            limit=15,
        )
        + table(
            ("id", "step", "path", "chars"),
            log,
            title=f"L: {len(log)} read-log entries",
            what="entries",
            limit=15,
        )
        + table(
            ("path", "score", "listed at"),
            cands,
            title=f"C: {len(cands)} candidates",
            what="candidates",
            limit=15,
        )
    )


def tab_text(tab: Tab) -> str:
    """The plain-text display of a tab: the status line and the three tables."""
    reqs, log, cands = _tab_parts(tab)
    return "\n".join(
        [
            tab.status_line(),
            f"R ({len(reqs)})",
            text_table(("id", "status", "cites", "text"), reqs, limit=15, what="requirements"),
            f"L ({len(log)})",
            text_table(("id", "step", "path", "chars"), log, limit=15, what="entries"),
            f"C ({len(cands)})",
            text_table(("path", "score", "listed at"), cands, limit=15, what="candidates"),
        ]
    )


def _replay_rows(r: Replay, until: int | None = None) -> list[list[Any]]:
    steps = {s.index: s for s in r.trajectory.steps} if r.trajectory is not None else {}
    paths = {e.id: e.path for e in r.tab.read_log}
    rows = []
    for rec in r.records:
        if until is not None and rec.step > until:
            break
        s = steps.get(rec.step)
        read = sorted({paths[i] for i in rec.new_entries if i in paths})
        rows.append(
            [
                rec.step,
                rec.tool,
                rec.kind,
                _one_line(s.command) if s is not None else "",
                len(s.shown) if s is not None and s.shown is not None else "—",
                bool(s is not None and s.clipped),
                ", ".join(read),
                rec.n_entries,
                rec.n_candidates,
                rec.n_open,
            ]
        )
    return rows


def _head(r: Replay) -> str:
    return (
        f"<b>replay</b> {escape(r.trajectory_id)} · tab {escape(r.config.name)} · requirements from "
        f"{escape(r.requirements)} · {len(r.records):,} steps"
    )


def replay_html(r: Replay) -> str:
    """The notebook display of a replay: the step table beside the final tab."""
    steps = table(REPLAY_COLUMNS, _replay_rows(r), what="steps")
    reqs, log, cands = _tab_parts(r.tab)
    return block(
        f"<div>{_head(r)}</div>",
        side_by_side(("steps", steps), ("tab after the last step", _tab_body(r.tab, reqs, log, cands))),
    )


def replay_text(r: Replay) -> str:
    """The plain-text display of a replay: the step table, then the final tab's status line."""
    return (
        f"replay {r.trajectory_id} (tab {r.config.name}, requirements from {r.requirements}, {len(r.records):,} steps)\n"
        + text_table(REPLAY_COLUMNS, _replay_rows(r), what="steps")
        + "\n"
        + r.tab.status_line()
    )


def read_spans(step: Step, excerpts: list[tuple[str, str]]) -> list[Span]:
    """Where each captured excerpt ``(path, excerpt)`` lies in the step's shown text, in order (capture gives
    them in the order they appear, each exactly as shown)."""
    shown = step.shown or ""
    spans: list[Span] = []
    at = 0
    for path, excerpt in excerpts:
        i = shown.find(excerpt, at) if excerpt else -1
        if i < 0:
            i = shown.find(excerpt) if excerpt else -1
        if i >= 0:
            spans.append(Span(i, i + len(excerpt), "read", path))
            at = i + len(excerpt)
    return spans


@dataclass
class ReplayAt:
    """A replay shown at one step: the steps up to it, that step's shown text with its captured reads
    highlighted, and the tab as it was right after it."""

    replay: Replay
    """The whole replay (its trajectory is replayed again up to ``step`` for the tab then)."""
    step: int
    """``Step.index`` of the step shown."""

    def tab(self) -> Tab:
        """The tab right after ``step``: the trajectory replayed again with the same switches, stopped there."""
        from rtlab.environment._replay import replay

        r = self.replay
        if r.trajectory is None:
            raise ValueError(f"{r.trajectory_id}: the replay no longer holds its trajectory (it was pickled)")
        return replay(r.trajectory, config=r.config, requirements=r.requirements, until=self.step).tab

    def _repr_html_(self) -> str:
        """The notebook display."""
        return replay_at_html(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The plain-text display."""
        p.text(replay_at_text(self))


def _step_of(r: Replay, index: int) -> Step:
    if r.trajectory is None:
        raise ValueError(f"{r.trajectory_id}: the replay no longer holds its trajectory (it was pickled)")
    for s in r.trajectory.steps:
        if s.index == index:
            return s
    raise ValueError(f"{r.trajectory_id}: no step {index} (steps 0 to {len(r.trajectory.steps) - 1})")


def replay_at_html(at: ReplayAt) -> str:
    """The notebook display of a replay at one step."""
    r = at.replay
    step = _step_of(r, at.step)
    tab = at.tab()
    reads = [(e.path, e.excerpt) for e in tab.read_log if e.step == at.step]
    steps = table(REPLAY_COLUMNS, _replay_rows(r, until=at.step), what="steps")
    reqs, log, cands = _tab_parts(tab)
    return block(
        f"<div>{_head(r)} · shown at step {at.step}</div>",
        side_by_side(("steps", steps), (f"tab after step {at.step}", _tab_body(tab, reqs, log, cands))),
        step_html(step, read_spans(step, reads)),
    )


def replay_at_text(at: ReplayAt) -> str:
    """The plain-text display of a replay at one step."""
    return f"{replay_text(at.replay)}\nat step {at.step}: {at.tab().status_line()}"
