"""Operating styles: how an agent operated the tab, one row of flags per RunningTab attempt, and shares per model.

The paper contrasts the LLMs by how they use the tab: stating requirements and pulling the review before the
finish check, citing a reviewed entry for done, operating the tab and editing the deliverable after the finish
check, using ``show``, how many distinct files they read, and opening a listed candidate.

Decisions:

- **The finish check** is the first event of kind ``message`` whose text starts with
  :data:`rtlab.environment._tab.FINISH_PREFIX`; "before" and "after" it compare timeline positions (``seq``). Without one,
  "before the finish check" means before the agent's stop (anywhere in the run) and the "after" flags are
  undefined (``<NA>``).
- **Steps** count only when answered. Tab calls are recognised by :func:`rtlab.environment._environment.is_tab_call` and
  read through the environment's replies (``Step.output``, read back by :func:`rtlab.environment._tab.read_reply`):
  a requirement is stated by a ``tab_add`` the environment accepted (``Added Rk: ...``); the review is pulled by
  any ``tab_list`` call; an entry is reviewed when a ``tab_list`` reply in review form (``[tab] review ...``)
  showed it beside a requirement (a line ``  Lk path (step n) — ...``; the plain listing of the no-review
  ablation matches nothing to a requirement, so it reviews nothing); a reviewed entry is cited for done when a
  later ``tab_resolve`` was accepted as ``Rj done, citing Lk`` (for any requirement).
- **Deliverable edits** are what capture knows of writes (:attr:`rtlab.environment.Capture.written`, from each
  step's typed action and its command: ``write`` / ``edit`` tools, redirects and heredocs (``cat > f <<EOF``),
  ``tee``, ``sed -i``, ``cp`` / ``mv`` onto a file, a Python or other script that saves the file
  (``wb.save("report.xlsx")``, ``df.to_excel``)), from the same pass as the files read below. A written path is
  the deliverable when it names a file the run delivered (:attr:`rtlab.records.Deliverable.files`, compared by
  :func:`rtlab.text.name_key`); a run that records no delivered file counts any file it wrote (scratch
  scripts included). Where a step wrote counts by its timeline position (``seq``), like the tab calls.
- **Files read** come from one pass of the environment over the run with the full tab (capture on, whatever
  the variant: this measures what the agent read, not what its tab kept). With ``replays`` given, ``n_files``
  is taken from them (e.g. replays against a workspace).
- **A listed candidate opened** means the agent worked through the tab's candidates: a path a ``tab_list``
  reply offered as an unopened candidate beside a requirement (the review's ``  unopened: ...`` line) was read
  at a later step. Merely reading a file some earlier ``ls`` or ``find`` printed does not count: an agent that
  lists the workspace first would open "a candidate" with every read, and the paper's shares (54.7% for its
  candidate-driven model) show the flag is about the tab's offer. The plain listing of the no-review ablation
  offers no candidate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from rtlab.analysis._arms import TAB_METHOD
from rtlab.environment import FINISH_PREFIX, Environment, is_tab_call, read_reply, task_text
from rtlab.records import Event, Step, Trajectory
from rtlab.text import name_key

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.environment import Capture, Replay, Workspace

FLAGS = (
    "requirements_before_finish",
    "review_before_finish",
    "cited_reviewed_entry",
    "tab_after_finish",
    "edited_after_finish",
    "used_show",
    "opened_candidate",
    "finish_check",
)
"""Per-attempt flags, in the order of the paper's discussion."""
AFTER_FINISH = ("tab_after_finish", "edited_after_finish")
"""Flags defined only for attempts that got a finish check."""
STYLE_COLUMNS = (
    "trajectory",
    "source_path",
    "task_id",
    "model",
    "method",
    "variant",
    "run",
    *FLAGS,
    "n_files",
)
SUMMARY_COLUMNS = ("flag", "statistic", "value", "n_true", "n")


def finish_check_event(trajectory: Trajectory) -> Event | None:
    """The finish check the environment issued in this run (the first such message), or ``None``."""
    for e in sorted(trajectory.events, key=lambda e: e.seq):
        if e.kind == "message" and e.text.startswith(FINISH_PREFIX):
            return e
    return None


def offered_candidates(steps: Iterable[Step]) -> dict[str, int]:
    """Each path the review offered as a candidate, with the index of the first ``tab_list`` step offering it."""
    offered: dict[str, int] = {}
    for s in steps:
        if s.answered and s.tool == "tab_list":
            for path in read_reply(s.tool, s.output or "").offered:
                offered.setdefault(path, s.index)
    return offered


def _tab_flags(steps: Sequence[Step], finish_seq: float) -> dict[str, bool]:
    """The flags read from the run's own tab calls (see the module doc); ``edited_after_finish`` is set by the
    caller from the reading pass's writes."""
    stated = pulled = cited = after_tab = show = False
    reviewed: set[str] = set()
    for s in steps:
        before = s.seq < finish_seq
        output = s.output or ""
        if not is_tab_call(s):
            continue
        after_tab |= not before
        show |= s.tool == "tab_show"
        reply = read_reply(s.tool, output)
        if s.tool == "tab_add":
            stated |= before and reply.added
        elif s.tool == "tab_list":
            pulled |= before
            reviewed |= reply.reviewed
        elif s.tool == "tab_resolve" and reply.cited is not None:
            cited |= reply.cited in reviewed
    return {
        "requirements_before_finish": stated,
        "review_before_finish": pulled,
        "cited_reviewed_entry": cited,
        "tab_after_finish": after_tab,
        "used_show": show,
    }


class ReadingPass(NamedTuple):
    """What :func:`reading_pass` found: files read, a tab-offered candidate opened, and every write."""

    n_files: int
    """Distinct files read."""
    opened_candidate: bool
    """A path the review offered was read at a later step."""
    writes: tuple[tuple[float, int, str], ...] = ()
    """``(seq, step index, path)`` of every file a step wrote, in step order (capture's ``written``)."""


def reading_pass(
    trajectory: Trajectory, *, offered: Mapping[str, int] | None = None, workspace: Workspace | None = None
) -> ReadingPass:
    """Distinct files read, whether a path in ``offered`` (path -> step that offered it) was read at a later
    step, and every file written, from one pass of the full-tab environment over the run's answered non-tab
    steps."""
    from rtlab.environment import capture_step

    offered = offered or {}
    opened = False
    writes: list[tuple[float, int, str]] = []

    def capture(step: Step, **kwargs: Any) -> Capture:
        nonlocal opened
        captured = capture_step(step, **kwargs)
        opened |= any(offered.get(read.path, step.index) < step.index for read in captured.reads)
        writes.extend((step.seq, step.index, path) for path in captured.written)
        return captured

    root = workspace.agent_root if workspace is not None and workspace.agent_root else trajectory.cwd
    env = Environment(
        task_text(trajectory), cwd=trajectory.cwd, root=root, workspace=workspace, capture=capture
    )
    for step in trajectory.steps:
        if step.answered and not is_tab_call(step):
            env.record(step)
    return ReadingPass(env.tab.files_read, opened, tuple(writes))


def deliverable_writes(
    trajectory: Trajectory, writes: Iterable[tuple[float, int, str]]
) -> list[tuple[float, int, str]]:
    """The writes (of :attr:`ReadingPass.writes`) onto the run's deliverable: a file it delivered, compared by
    :func:`rtlab.text.name_key`; every write when the run records no delivered file."""
    delivered = {name_key(f.path) for f in trajectory.deliverable.files}
    return [w for w in writes if not delivered or name_key(w[2]) in delivered]


def style_record(trajectory: Trajectory, replay: Replay | None = None) -> dict[str, Any]:
    """One row of :func:`operating_styles` (flags ``None`` where undefined)."""
    finish = finish_check_event(trajectory)
    answered = [s for s in trajectory.steps if s.answered]
    finish_seq = finish.seq if finish is not None else float("inf")
    flags: dict[str, Any] = _tab_flags(answered, finish_seq)
    n_files, opened, writes = reading_pass(trajectory, offered=offered_candidates(answered))
    flags["edited_after_finish"] = any(
        seq >= finish_seq for seq, _, _ in deliverable_writes(trajectory, writes)
    )
    if finish is None:
        flags.update(dict.fromkeys(AFTER_FINISH))
    if replay is not None:
        n_files = replay.tab.files_read
    return {
        "trajectory": trajectory.id,
        "source_path": trajectory.source_path,
        "task_id": trajectory.task_id,
        "model": trajectory.model,
        "method": trajectory.method,
        "variant": trajectory.variant,
        "run": trajectory.run,
        **flags,
        "opened_candidate": opened,
        "finish_check": finish is not None,
        "n_files": n_files,
    }


def operating_styles(
    trajectories: Iterable[Trajectory],
    replays: Iterable[Replay] | None = None,
    *,
    method: str = TAB_METHOD,
) -> pd.DataFrame:
    """One row per ``method`` trajectory (any variant): the operating-style flags (nullable booleans, ``<NA>``
    where undefined) and ``n_files``. ``replays`` (matched by trajectory id) supply ``n_files`` where given.
    Columns: :data:`STYLE_COLUMNS`; rules in the module doc."""
    import pandas as pd

    by_id = {r.trajectory_id: r for r in replays} if replays is not None else {}
    rows = [style_record(t, by_id.get(t.id)) for t in trajectories if t.method == method]
    frame = pd.DataFrame(rows, columns=list(STYLE_COLUMNS))
    for col in ("trajectory", "task_id", "model", "method", "variant", "run"):
        frame[col] = pd.Series([r[col] for r in rows], index=frame.index, dtype=object)
    return frame.astype({**dict.fromkeys(FLAGS, "boolean"), "n_files": "Int64"})


def styles_summary(frame: pd.DataFrame, by: str | Sequence[str] = "model") -> pd.DataFrame:
    """Per group: the share of attempts with each flag, among the attempts where it is defined (``n``; the
    "after the finish check" flags only where one was issued), and the median of distinct files read.

    Long form, one row per (group, flag): columns ``by`` + :data:`SUMMARY_COLUMNS`, with ``statistic``
    ``share`` (``value`` = ``n_true / n``, NaN when ``n`` is 0) or, for the row ``n_files``, ``median``
    (``n_true`` NA).
    """
    import pandas as pd

    keys = [by] if isinstance(by, str) else list(by)
    rows: list[dict[str, Any]] = []
    groups = frame.groupby(keys, sort=True, dropna=False) if keys else [((), frame)]
    for key, g in groups:
        labels = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        for flag in FLAGS:
            col = g[flag].dropna()
            n, n_true = int(len(col)), int(col.astype(bool).sum())
            rows.append(
                {
                    **labels,
                    "flag": flag,
                    "statistic": "share",
                    "value": n_true / n if n else float("nan"),
                    "n_true": n_true,
                    "n": n,
                }
            )
        files = g["n_files"].dropna()
        median = float(files.median()) if len(files) else float("nan")
        rows.append(
            {
                **labels,
                "flag": "n_files",
                "statistic": "median",
                "value": median,
                "n_true": None,
                "n": int(len(files)),
            }
        )
    out = pd.DataFrame(rows, columns=[*keys, *SUMMARY_COLUMNS])
    return out.astype({"value": float, "n_true": "Int64", "n": int})
