"""Replay recorded trajectories through the environment and keep what the tab held, step by step.

``replay(trajectory)`` feeds every answered step to an :class:`~rtlab.environment._environment.Environment` in order, as a
live agent's harness would, and returns a :class:`Replay`: the final tab, one :class:`StepRecord` per step
(counts and the status line the agent would have read), and the finish check. The tab at step N is
``replay(trajectory, until=N).tab``. Many runs at once, read from their files in worker processes:
:func:`rtlab.runner.replay_paths`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from rtlab.display import Span, block, escape, one_line, side_by_side, table, text_table
from rtlab.environment._environment import Environment, tab_tool
from rtlab.environment._propose import Proposal, propose_requirements
from rtlab.environment._tab import Tab, TabConfig, tab_body_html
from rtlab.records import Step, Trajectory, step_html

if TYPE_CHECKING:
    from rtlab.environment._workspace import Workspace

RequirementSource = Literal["none", "rubric", "trajectory", "proposed", "trajectory+proposed"]
StepKind = Literal["observe", "tab_call", "skipped_tab_call", "unanswered"]
T = TypeVar("T")
REQUIREMENT_SOURCES: tuple[RequirementSource, ...] = (
    "none",
    "rubric",
    "trajectory",
    "proposed",
    "trajectory+proposed",
)


@dataclass
class StepRecord:
    """What the environment did at one step, and what the tab held right after it."""

    step: int
    """``Step.index`` in the trajectory."""
    tool: str
    """The step's tool name, as logged."""
    kind: StepKind
    """``observe`` (captured into the tab), ``tab_call`` (run on the tab), ``skipped_tab_call`` (a
    tab call left out: requirements do not come from the trajectory) or ``unanswered`` (no result)."""
    n_requirements: int
    """Requirements on the tab after the step."""
    n_open: int
    """Of those, the ones still open."""
    n_entries: int
    """Read-log entries after the step."""
    n_files: int
    """Distinct files in the read log."""
    n_candidates: int
    """Candidates (listed, never read nor written) after the step."""
    status_line: str
    """The status line the agent would have read after the step."""
    new_entries: list[str] = field(default_factory=list)
    """Read-log ids this step added."""
    reply: str | None = None
    """The environment's answer to a tab call."""


@dataclass
class Replay:
    """A trajectory replayed through the environment: the final tab and the per-step record."""

    trajectory_id: str
    """The replayed trajectory's ``id``."""
    requirements: RequirementSource
    """Where R came from: ``none``, ``rubric`` (the task's items, added before the first step),
    ``trajectory`` (the run's own tab calls, replayed), ``proposed`` (the environment's proposals from the task
    text, added before the first step; the run's tab calls left out) or ``trajectory+proposed`` (both: the
    proposals, ``P1`` ..., then the run's own tab calls, whose ids ``R1`` ... are unchanged)."""
    config: TabConfig
    """The tab's switches and sizes (its ablation)."""
    tab: Tab
    """The tab after the last step replayed."""
    records: list[StepRecord] = field(default_factory=list)
    """One record per step replayed, in order."""
    finish_check: str | None = None
    """The finish check's text when requirements were open at the end; ``None`` when none were, the
    check is off, or ``until`` stopped the replay."""
    model_kept: list[dict[str, Any]] = field(default_factory=list)
    """The agent's own plan / todo-list updates (e.g. Codex ``todo_list``), reported beside the tab."""
    trajectory: Trajectory | None = field(default=None, repr=False, compare=False)
    """The trajectory replayed (for analyses that need both); not kept when a replay is pickled."""
    source_path: str = ""
    """The replayed trajectory's ``source_path`` (every table of a replay carries it beside the id)."""

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "trajectory": None}  # a worker sends back the tab, not the whole run again

    def at(self, step: int) -> ReplayAt:
        """This replay displayed at ``step``: the steps up to it, its shown text with the captured reads
        highlighted, and the tab as it was right after it."""
        return ReplayAt(self, step)

    def _repr_html_(self) -> str:
        """The notebook display: the step table (truncated with counts) beside the final tab."""
        return replay_html(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The plain-text display (IPython's)."""
        p.text(replay_text(self))


def task_text(trajectory: Trajectory) -> str:
    """What the tab ranks candidates against: the benchmark's task text, else the instruction the agent got."""
    if trajectory.task is not None and trajectory.task.instruction:
        return trajectory.task.instruction
    return trajectory.instruction or ""


def replay(
    trajectory: Trajectory,
    *,
    config: TabConfig | None = None,
    requirements: RequirementSource = "none",
    workspace: Workspace | None = None,
    until: int | None = None,
    proposals: Sequence[Proposal] | None = None,
    on_step: Callable[[StepRecord, Tab], None] | None = None,
) -> Replay:
    """Replay one trajectory; ``until=N`` stops after the step with index N (the tab as it was then).

    With ``requirements="proposed"`` or ``"trajectory+proposed"``, ``proposals`` are put on the tab before
    the first step (default: :class:`~rtlab.environment._propose.RuleProposer` on :func:`task_text`), each
    ``origin="proposed"`` with ``proposed_by`` ``<proposer>/<kind>``. ``on_step(record, tab)`` is called after
    each step with its record and the live tab (read it, never change it): what a caller keeps of the tab at
    every step (the viewer keeps which candidates came and went).
    """
    if requirements not in REQUIREMENT_SOURCES:
        raise ValueError(f"requirements must be one of {REQUIREMENT_SOURCES}, got {requirements!r}")
    config = config or TabConfig()
    env = Environment(
        task_text(trajectory),
        config=config,
        cwd=trajectory.cwd,
        root=workspace.agent_root if workspace is not None and workspace.agent_root else trajectory.cwd,
        workspace=workspace,
    )
    if requirements == "rubric":
        if trajectory.task is None or not trajectory.task.rubric:
            raise ValueError(f"{trajectory.id}: requirements='rubric' needs a task with a rubric attached")
        for item in trajectory.task.rubric:
            env.tab.add(item.text, origin="rubric")  # oracle requirements: stated by no step of the agent
    if requirements in ("proposed", "trajectory+proposed"):
        if proposals is None:
            proposals = propose_requirements(task_text(trajectory))
        for p in proposals:
            env.tab.add(p.text, origin="proposed", proposed_by=f"{p.proposer}/{p.kind}")

    result = Replay(
        trajectory.id,
        requirements,
        config,
        env.tab,
        trajectory=trajectory,
        source_path=trajectory.source_path,
    )
    for step in trajectory.steps:
        if until is not None and step.index > until:
            break
        before = len(env.tab.read_log)
        reply: str | None = None
        kind: StepKind
        if not step.answered:
            kind = "unanswered"
        elif (tool := tab_tool(step)) is not None:
            if requirements in ("trajectory", "trajectory+proposed"):
                kind, reply = "tab_call", env.call(tool, step.args, step=step.index)
            else:
                kind = "skipped_tab_call"
        else:
            kind = "observe"
            env.record(step)  # what observe does, less composing the text the model would read
        result.records.append(_record(step.index, step.tool, kind, env, before, reply))
        if on_step is not None:
            on_step(result.records[-1], env.tab)

    if until is None:
        result.finish_check = env.finish()
    result.model_kept = [
        {"seq": e.seq, "line": e.line, **e.data} for e in trajectory.events if e.kind == "plan"
    ]
    return result


def _record(
    index: int, tool: str, kind: StepKind, env: Environment, before: int, reply: str | None
) -> StepRecord:
    tab = env.tab
    new = [e.id for e in tab.read_log[before:]]  # the read log only grows
    return StepRecord(
        step=index,
        tool=tool,
        kind=kind,
        n_requirements=len(tab.requirements),
        n_open=sum(1 for r in tab.requirements if r.status == "open"),
        n_entries=len(tab.read_log),
        n_files=tab.files_read,
        n_candidates=len(tab.candidates),
        status_line=tab.status_line(),
        new_entries=new,
        reply=reply,
    )


# ---------------------------------------------------------------------------------------------------------
# Summaries and tables


def replay_summary(r: Replay, *, redact: bool = False) -> dict[str, Any]:
    """The ``rtlab replay --json`` object: read log, candidates (score descending), requirements, finish check."""
    return {
        "id": r.trajectory_id,
        "requirements_source": r.requirements,
        "config": r.config.name,
        "read_log": [
            {
                "id": e.id,
                "step": e.step,
                "path": e.path,
                **({"revision": e.revision} if e.revision else {}),  # git's; absent for the working copy
                **({"kind": e.kind, "sources": list(e.sources)} if e.kind != "file" else {}),  # derived
                "command": e.command,
                "chars": len(e.excerpt),
            }
            for e in r.tab.read_log
        ],
        "candidates": [{"path": c.path, "score": c.score} for c in r.tab.candidates_ranked()],
        "requirements": [
            {
                "id": q.id,
                "text": redact_text(q.text) if redact else q.text,
                "status": q.status,
                "cite": q.cite,
                "origin": q.origin,
            }
            for q in r.tab.requirements
        ],
        "finish_check": r.finish_check,
        "n_steps": len(r.records),
        "model_kept": len(r.model_kept),
    }


def redact_text(text: str) -> str:
    """Mask text but keep its shape: letters become ``x``, digits ``0``; spaces and punctuation stay.

    Lengths, line structure and where numbers stood survive, so sizes and positions can still be analysed
    and shared; the words and values cannot be read back.
    """
    return "".join("0" if ch.isdigit() else "x" if ch.isalpha() else ch for ch in text)


def read_log_frame(replays: Iterable[Replay], *, redact: bool = False):
    """One row per read-log entry: trajectory, id, step, path, revision (git's, None for the working copy),
    kind (``file``, or a derived entry's ``count`` / ``size`` / ``computed``), command, chars, excerpt."""
    import pandas as pd

    rows = [
        {
            "trajectory": r.trajectory_id,
            "source_path": r.source_path,
            "id": e.id,
            "step": e.step,
            "path": e.path,
            "revision": e.revision,
            "kind": e.kind,
            "command": e.command,
            "chars": len(e.excerpt),
            "excerpt": redact_text(e.excerpt) if redact else e.excerpt,
        }
        for r in replays
        for e in r.tab.read_log
    ]
    columns = [
        "trajectory",
        "source_path",
        "id",
        "step",
        "path",
        "revision",
        "kind",
        "command",
        "chars",
        "excerpt",
    ]
    return pd.DataFrame(rows, columns=columns)


def candidates_frame(replays: Iterable[Replay]):
    """One row per remaining candidate: trajectory, rank (from 1), path, score, step listed."""
    import pandas as pd

    rows = [
        {
            "trajectory": r.trajectory_id,
            "source_path": r.source_path,
            "rank": k,
            "path": c.path,
            "score": c.score,
            "step_listed": c.step_listed,
        }
        for r in replays
        for k, c in enumerate(r.tab.candidates_ranked(), 1)
    ]
    return pd.DataFrame(rows, columns=["trajectory", "source_path", "rank", "path", "score", "step_listed"])


def requirements_frame(replays: Iterable[Replay], *, redact: bool = False):
    """One row per requirement: trajectory, id, text, status, cite, reason, steps added and resolved, origin
    (``agent``, ``rubric``, ``proposed``) and proposer."""
    import pandas as pd

    rows = [
        {
            "trajectory": r.trajectory_id,
            "source_path": r.source_path,
            "id": q.id,
            "text": redact_text(q.text) if redact else q.text,
            "status": q.status,
            "cite": q.cite,
            "reason": q.reason,
            "step_added": q.step_added,
            "step_resolved": q.step_resolved,
            "origin": q.origin,
            "proposed_by": q.proposed_by,
        }
        for r in replays
        for q in r.tab.requirements
    ]
    cols = [
        "trajectory",
        "source_path",
        "id",
        "text",
        "status",
        "cite",
        "reason",
        "step_added",
        "step_resolved",
        "origin",
        "proposed_by",
    ]
    return pd.DataFrame(rows, columns=cols)


def steps_tab_frame(replays: Iterable[Replay]):
    """One row per step: what the tab held after it and the status line the agent read."""
    import pandas as pd

    cols = [
        "trajectory",
        "source_path",
        "step",
        "tool",
        "kind",
        "n_requirements",
        "n_open",
        "n_entries",
        "n_files",
        "n_candidates",
        "n_new_entries",
        "status_line",
    ]
    rows = [
        {
            "trajectory": r.trajectory_id,
            "source_path": r.source_path,
            "step": s.step,
            "tool": s.tool,
            "kind": s.kind,
            "n_requirements": s.n_requirements,
            "n_open": s.n_open,
            "n_entries": s.n_entries,
            "n_files": s.n_files,
            "n_candidates": s.n_candidates,
            "n_new_entries": len(s.new_entries),
            "status_line": s.status_line,
        }
        for r in replays
        for s in r.records
    ]
    return pd.DataFrame(rows, columns=cols)


TABLES = ("read_log", "candidates", "requirements", "steps")


def tables(replays: Sequence[Replay], *, redact: bool = False) -> dict[str, Any]:
    """All four tidy tables by name."""
    return {
        "read_log": read_log_frame(replays, redact=redact),
        "candidates": candidates_frame(replays),
        "requirements": requirements_frame(replays, redact=redact),
        "steps": steps_tab_frame(replays),
    }


MANIFEST = "_COMPLETE.json"
"""The completeness marker of a set of tables :func:`export_parquet` wrote: written last, removed first, it
lists every table with its sha256, so a set cut off by a kill (or mixed with an older run's tables) is told
from a whole one (:func:`read_parquet_tables`)."""


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export_parquet(replays: Sequence[Replay], out_dir: str | Path, *, redact: bool = False) -> list[Path]:
    """Write the four tables as Parquet files in ``out_dir``, atomically and readable by the owner only, as
    one set: the marker :data:`MANIFEST` is removed before the first table is replaced and written (with each
    table's sha256) after the last, so readers (:func:`read_parquet_tables`) never take part of a set, or
    tables of different runs, for a whole one.

    The read log holds excerpts of workspace files, which may be sensitive (the paper's own caution), so every
    file gets mode 0600 whether or not ``redact`` masks the excerpt text.
    """
    import json

    from rtlab.io import atomic_open

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).unlink(missing_ok=True)
    written = []
    for name, frame in tables(replays, redact=redact).items():
        target = out / f"{name}.parquet"
        with atomic_open(target, "wb", private=True) as fh:
            frame.to_parquet(fh, index=False)
        written.append(target)
    manifest = {
        "schema": "rtlab.replay-tables",
        "version": 1,
        "tables": {p.stem: {"file": p.name, "sha256": _sha256(p)} for p in written},
    }
    with atomic_open(out / MANIFEST, private=True) as fh:
        json.dump(manifest, fh, indent=1)
    return written


def read_parquet_tables(out_dir: str | Path) -> dict[str, Any]:
    """The tables :func:`export_parquet` wrote, by name, once the set is checked whole: its marker present
    and every table's sha256 the one recorded; otherwise :class:`~rtlab.errors.RtlabError` naming the folder
    and what is wrong (no marker: the writer was stopped, or the folder was not written by rtlab)."""
    import json

    import pandas as pd

    from rtlab.errors import RtlabError

    out = Path(out_dir)
    marker = out / MANIFEST
    try:
        manifest = json.loads(marker.read_text(encoding="utf-8"))
        listed = manifest["tables"]
    except FileNotFoundError:
        raise RtlabError(
            f"{out}: not a complete set of replay tables (no {MANIFEST}: the writer was stopped before the "
            "end, or did not write this folder); write it again with rtlab replay --out"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RtlabError(f"{marker}: unreadable completeness marker ({exc})") from None
    found: dict[str, Any] = {}
    for name, entry in listed.items():
        path = out / entry["file"]
        if not path.is_file() or _sha256(path) != entry["sha256"]:
            raise RtlabError(
                f"{path}: not the table {MANIFEST} lists (changed or missing since it was written)"
            )
        found[name] = pd.read_parquet(path)
    return found


# ---------------------------------------------------------------------------------------------------------
# Display: a replay in a notebook (``_repr_html_``) and as plain text (``_repr_pretty_``) is the trajectory's
# step table with what the environment did at each step (kind, files read into L, the tab's counts after it)
# beside the tab; ``replay.at(n)`` is the same run with the tab as it was after step ``n`` and that step shown
# with its captured excerpts highlighted. The HTML primitives are :mod:`rtlab.display`'s; a step's own display
# is the records', the tab's is :mod:`rtlab.environment._tab`'s.

REPLAY_COLUMNS = ("step", "tool", "kind", "command", "shown", "clipped", "read", "L", "C", "open R")
"""The columns of a replay's step table."""


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
                one_line(s.command, 80) if s is not None else "",
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
    return block(
        f"<div>{_head(r)}</div>",
        side_by_side(("steps", steps), ("tab after the last step", tab_body_html(r.tab))),
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
    return block(
        f"<div>{_head(r)} · shown at step {at.step}</div>",
        side_by_side(("steps", steps), (f"tab after step {at.step}", tab_body_html(tab))),
        step_html(step, read_spans(step, reads)),
    )


def replay_at_text(at: ReplayAt) -> str:
    """The plain-text display of a replay at one step."""
    return f"{replay_text(at.replay)}\nat step {at.step}: {at.tab().status_line()}"
