"""What the viewer page shows of one run, as JSON-native data (the page embeds it and renders it lazily).

:func:`run_payload` replays the trajectory once (with :func:`rtlab.environment.replay`'s ``on_step`` keeping, per
step, which candidates came into C and which left it), finds where each captured excerpt lies in the step's
shown text, labels every failed rubric item with :func:`rtlab.analysis.diagnose` and locates each label's cited
evidence in the step it names, so the page can link a citation to its step and span.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rtlab.environment import read_spans, replay

if TYPE_CHECKING:
    from rtlab.analysis import Label
    from rtlab.environment import Replay, RequirementSource, StepRecord, Tab, TabConfig, Workspace
    from rtlab.records import Step, Trajectory

SCHEMA = "rtlab.view"
"""The payload's schema name (a page's data says which version of the viewer wrote it)."""
VERSION = 1
"""The payload's version."""
_ELLIPSIS = "…"


def _locate(excerpt: str, shown: str) -> tuple[int, int] | None:
    """Where a cited excerpt lies in ``shown``: the first place its words occur in order with any white space
    between them (a label's excerpt is cut with ``…`` at either end and its white space folded to one space,
    :func:`rtlab.analysis._diagnose._clip` style)."""
    words = excerpt.strip().strip(_ELLIPSIS).split()
    if not words:
        return None
    found = re.search(r"\s+".join(re.escape(w) for w in words), shown)
    return found.span() if found else None


def score_of(trajectory: Trajectory) -> dict[str, Any] | None:
    """The judge's verdict: items passed of all, and points passed of all (rubric points, 1 each when the task
    gives none); ``None`` without a judgement."""
    j = trajectory.judgement
    if j is None or not j.items:
        return None
    points = {r.index: r.points for r in trajectory.task.rubric} if trajectory.task is not None else {}
    total = sum(points.get(i.index, 1.0) for i in j.items)
    won = sum(points.get(i.index, 1.0) for i in j.items if i.passed)
    return {
        "passed": sum(1 for i in j.items if i.passed),
        "items": len(j.items),
        "points": won,
        "points_total": total,
        "score": won / total if total else None,
    }


def _step_payload(
    s: Step, rec: StepRecord | None, reads: list[list[Any]], c_in: list[str], c_out: list[str]
) -> dict[str, Any]:
    shown = s.shown or ""
    out: dict[str, Any] = {
        "i": s.index,
        "tool": s.tool,
        "cmd": s.command,
        "kind": rec.kind if rec is not None else "unreplayed",
        "answered": s.answered,
        "logged": len(s.output) if s.output is not None else None,
        "shown": shown,
        "clipped": s.clipped,
        "error": s.is_error,
        "exit": s.exit_code,
        "frames": [[f.start, f.end, f.kind] for f in s.frames],
        "reads": reads,
        "c_in": c_in,
        "c_out": c_out,
    }
    if s.output is not None and s.output != shown:
        out["output"] = s.output  # what was logged, when the model was shown something else
    if rec is not None:
        out.update(
            status=rec.status_line,
            reply=rec.reply,
            R=rec.n_requirements,
            open=rec.n_open,
            L=rec.n_entries,
            files=rec.n_files,
            C=rec.n_candidates,
        )
    return out


def _label_payload(
    label: Label, steps: dict[int, Step], reads_at: dict[int, list[list[Any]]]
) -> dict[str, Any]:
    evidence = []
    for ev in label.evidence:
        step = ev.get("step")
        row: dict[str, Any] = {"step": step, "path": ev.get("path"), "excerpt": ev.get("excerpt") or ""}
        if isinstance(step, int) and step in steps:
            span = _locate(row["excerpt"], steps[step].shown or "")
            if span is None and row["path"]:  # the excerpt was cut differently: the read of that file
                span = next(((r[0], r[1]) for r in reads_at.get(step, []) if r[2] == row["path"]), None)
            if span is not None:
                row["start"], row["end"] = span
        evidence.append(row)
    return {
        "category": label.category,
        "subreason": label.subreason,
        "rule": label.rule,
        "rationale": label.rationale,
        "codebook": label.codebook_version,
        "evidence": evidence,
    }


def run_payload(
    trajectory: Trajectory,
    *,
    config: TabConfig | None = None,
    requirements: RequirementSource = "none",
    workspace: Workspace | None = None,
    labels: list[Label] | None = None,
    step: int | None = None,
) -> dict[str, Any]:
    """The viewer's data for one run: its facts and score, every step (command, shown text with frames and
    captured reads, what the tab did and held after it), the tab's requirements and read log with the steps
    they came at, the rubric with each failed item's diagnosis and its evidence located, and the step to open
    at (``step``).

    ``labels`` are the run's diagnosis labels, computed with the default tab when not given."""
    from rtlab.analysis import diagnose

    came: dict[int, tuple[list[str], list[str]]] = {}
    before: set[str] = set()

    def keep(rec: StepRecord, tab: Tab) -> None:
        nonlocal before
        now = set(tab.candidates)
        if now != before:
            came[rec.step] = (sorted(now - before), sorted(before - now))
            before = now

    r: Replay = replay(
        trajectory, config=config, requirements=requirements, workspace=workspace, on_step=keep
    )
    if labels is None:
        default = r if config is None and requirements == "none" else replay(trajectory, workspace=workspace)
        labels = diagnose(trajectory, default)
    by_step: dict[int, list[tuple[str, str, str]]] = {}
    for e in r.tab.read_log:
        by_step.setdefault(e.step, []).append((e.id, e.path, e.excerpt))
    steps = {s.index: s for s in trajectory.steps}
    reads_at: dict[int, list[list[Any]]] = {}
    for index, entries in by_step.items():
        spans = read_spans(steps[index], [(p, x) for _, p, x in entries])
        ids = iter(e[0] for e in entries)
        reads_at[index] = [[sp.start, sp.end, sp.title, next(ids, None)] for sp in spans]
    records = {rec.step: rec for rec in r.records}
    by_item = {label.rubric_index: label for label in labels}
    judged = {i.index: i for i in trajectory.judgement.items} if trajectory.judgement is not None else {}
    rubric = []
    for item in trajectory.task.rubric if trajectory.task is not None else []:
        res = judged.get(item.index)
        label = by_item.get(item.index)
        rubric.append(
            {
                "index": item.index,
                "text": item.text,
                "type": item.type,
                "points": item.points,
                "passed": None if res is None else res.passed,
                "judge": None if res is None else res.evidence,
                "label": None if label is None else _label_payload(label, steps, reads_at),
            }
        )
    files = sorted(
        {p for rows in reads_at.values() for _, _, p, _ in rows} | {p for a, _ in came.values() for p in a}
    )
    t = trajectory
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "run": {
            "id": t.id,
            "format": t.format,
            "source_path": t.source_path,
            "model": t.model,
            "harness": t.harness,
            "benchmark": t.benchmark,
            "task": t.task_id,
            "method": t.method,
            "variant": t.variant,
            "run": t.run,
            "instruction": (
                t.task.instruction if t.task is not None and t.task.instruction else t.instruction
            )
            or "",
            "clip_policy": t.clip_policy,
            "tab": r.config.name,
            "requirements_source": requirements,
            "score": score_of(t),
            "final_message": t.deliverable.final_message,
            "deliverable": [f.path for f in t.deliverable.files],
        },
        "warnings": [
            {"path": w.path, "line": w.line, "field": w.field, "reason": w.reason, "kind": w.kind}
            for w in t.warnings
        ],
        "steps": [
            _step_payload(s, records.get(s.index), reads_at.get(s.index, []), *came.get(s.index, ([], [])))
            for s in t.steps
        ],
        "log": [
            {"id": e.id, "step": e.step, "path": e.path, "chars": len(e.excerpt), "rev": e.revision}
            for e in r.tab.read_log
        ],
        "requirements": [
            {
                "id": q.id,
                "text": q.text,
                "status": q.status,
                "cite": q.cite,
                "added": q.step_added,
                "resolved": q.step_resolved,
            }
            for q in r.tab.requirements
        ],
        "rubric": rubric,
        "files": files,
        "finish_check": r.finish_check,
        "start_step": step,
    }


def index_row(payload: dict[str, Any], href: str) -> dict[str, Any]:
    """One run's row of the index page: its facts, score, label counts by category, and its page."""
    counts: dict[str, int] = {}
    for item in payload["rubric"]:
        if item["label"] is not None:
            kind = item["label"]["category"]
            counts[kind] = counts.get(kind, 0) + 1
    run = payload["run"]
    return {
        "id": run["id"],
        "benchmark": run["benchmark"],
        "task": run["task"],
        "model": run["model"],
        "arm": " ".join(x for x in (run["method"], run["variant"], run["run"]) if x),
        "steps": len(payload["steps"]),
        "warnings": len(payload["warnings"]),
        "score": run["score"],
        "labels": counts,
        "href": href,
    }
