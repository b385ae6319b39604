"""The simulated workspaces: five professional roles' folder trees on disk, with tasks and rubric items.

:func:`build_world` plans each role (:mod:`rtlab.synth._gen_plan`: tasks, the files they need, the facts those
files state, versions, distractors, fillers), writes every file under ``out_root / role.root`` and returns the
:class:`~rtlab.synth.world.World`. Everything depends only on the seed and the :class:`WorldConfig`: random
streams come from SHA-256 of the seed and a name, files are written in sorted order, and xlsx files have fixed
properties and zip entries (:mod:`rtlab.synth._gen_docs`), so the same seed gives the same bytes anywhere
(with the same Python and openpyxl).

Guarantees checked while writing (a file that breaks one is rewritten from the next random stream):

- every fact's value is in its own file's printed text (what ``cat`` prints; for xlsx the openpyxl rows);
- no other file of the role writes it, as text or as a number :func:`rtlab.text._numbers.matches` accepts;
- no file writes a fact's distorted value or an item's computed value.

:func:`metadata_record` gives a task as Workspace-Bench's ``metadata.json``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtlab.synth._gen_content import FileSpec, RoleCtx, build_doc
from rtlab.synth._gen_docs import Doc, file_bytes, printed_text
from rtlab.synth._gen_numbers import Reserved
from rtlab.synth._gen_plan import RolePlan, TaskPlan, derive, plan_role
from rtlab.synth._vocab import ROLES
from rtlab.synth.world import Role, SynthTask, WorkspaceFile, World
from rtlab.text import NumberIndex

MAX_ATTEMPTS = 40
"""Rewrites of one file before giving up (a rewrite is needed for a few files per role)."""


@dataclass(frozen=True)
class WorldConfig:
    """How big the simulated world is (the defaults give about 1,700 files and 20 tasks)."""

    roles: tuple[str, ...] = ("operations", "logistics", "research", "backend", "product")
    """Names of the roles to build (``operations``, ``logistics``, ``research``, ``backend``, ``product``)."""
    tasks_per_role: int = 4
    """Tasks per role, 1 to 5."""
    files_per_role: tuple[int, int] = (260, 420)
    """Range of the number of files in each role's workspace (drawn per role)."""
    xlsx_share: tuple[float, float] = (0.15, 0.19)
    """Range of the share of xlsx files in each workspace."""
    sources_per_task: tuple[int, int] = (3, 8)
    """Bounds of the number of source files a task needs (each task draws within them; 3 to 8)."""
    items_per_task: tuple[int, int] = (8, 14)
    """Bounds of the number of rubric items a task has."""

    def __post_init__(self) -> None:
        unknown = [r for r in self.roles if r not in ROLES]
        if unknown:
            raise ValueError(f"unknown role(s) {', '.join(unknown)}; known: {', '.join(ROLES)}")
        if not 1 <= self.tasks_per_role <= 5:
            raise ValueError("tasks_per_role must be 1..5")
        for name in ("files_per_role", "xlsx_share", "sources_per_task", "items_per_task"):
            lo, hi = getattr(self, name)
            if lo > hi or lo < 0:
                raise ValueError(f"{name} must be a (low, high) range, got {(lo, hi)}")
        if self.sources_per_task[0] < 3 or self.sources_per_task[1] > 8:
            raise ValueError("sources_per_task must lie within 3..8")
        if self.items_per_task[0] < 6 or self.items_per_task[1] < self.sources_per_task[1] + 4:
            raise ValueError("items_per_task must start at 6 or more and reach sources_per_task's top + 4")
        if self.files_per_role[0] < 120:
            raise ValueError("files_per_role must start at 120 or more (sources, versions and distractors)")


@dataclass
class _Written:
    spec: FileSpec
    doc: Doc
    text: str


def build_world(out_root: Path, *, seed: int, config: WorldConfig | None = None) -> World:
    """Write every role's workspace under ``out_root`` (``workspaces/<role>``) and return the world."""
    config = config or WorldConfig()
    out_root = Path(out_root)
    roles: list[Role] = []
    tasks: list[SynthTask] = []
    facts = {}
    for name in config.roles:
        plan = plan_role(ROLES[name], seed, config)
        root = f"workspaces/{name}"
        written = _render(plan, seed)
        _write(out_root / root, plan, written)
        files = tuple(
            WorkspaceFile(
                path=w.spec.path,
                kind=w.spec.kind,
                role=w.spec.role,
                facts=tuple(w.spec.facts),
                chars=len(w.text),
            )
            for w in written
        )
        roles.append(Role(name=name, title=f"{plan.vocab.persona} at {plan.ctx.org}", root=root, files=files))
        tasks += [_task(plan, t) for t in plan.tasks]
        facts.update({key: plan.fact(key) for key in plan.facts})
    return World(seed=seed, roles=tuple(roles), tasks=tuple(tasks), facts=facts)


def _task(plan: RolePlan, t: TaskPlan) -> SynthTask:
    return SynthTask(
        id=t.id,
        role=plan.vocab.name,
        instruction=t.instruction,
        deliverable=t.deliverable,
        sources=tuple(s.path for s in t.sources),
        items=tuple(t.items),
        dependency_graph=tuple(t.graph),
    )


def _render(plan: RolePlan, seed: int) -> list[_Written]:
    """Every file's doc and printed text, each rewritten until it breaks no guarantee."""
    out = []
    for spec in plan.files:
        for attempt in range(MAX_ATTEMPTS):
            rng = derive(seed, plan.vocab.name, "file", spec.seed_key or spec.path, attempt)
            doc = build_doc(spec, plan.ctx, rng)
            text = printed_text(doc, spec.kind, plan.vocab.currency)
            if not _violations(spec, text, plan.ctx):
                break
        else:
            raise RuntimeError(f"{plan.vocab.name}/{spec.path}: {_violations(spec, text, plan.ctx)}")
        out.append(_Written(spec, doc, text))
    return out


def _violations(spec: FileSpec, text: str, ctx: RoleCtx) -> list[str]:
    """What ``text`` (the file of ``spec``) writes that it must not: another file's fact, a distorted or a
    computed value. Raises when the file lacks one of its own facts (a generator bug, not bad luck)."""
    reserved: Reserved = ctx.reserved
    index = NumberIndex(text)
    problems = []
    for entry in reserved.entries:
        mine = entry.owner == spec.path
        if mine and entry.text not in text:
            raise AssertionError(f"{spec.path} lacks its own fact {entry.key} {entry.text!r}")
        if mine and entry.number is not None and index.find(entry.number) is None:
            raise AssertionError(f"{spec.path}: fact {entry.key} {entry.text!r} is not read as its number")
        if not mine and entry.text in text:
            problems.append(f"writes {entry.what} {entry.key} {entry.text!r}")
    for number in index.numbers:
        for entry in reserved.matched_by(number):
            if entry.owner != spec.path:
                problems.append(f"{number.text!r} matches {entry.what} {entry.key} {entry.text!r}")
    return problems


def _write(root: Path, plan: RolePlan, written: list[_Written]) -> None:
    """Write the files (a fresh folder: refuses one that holds anything)."""
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} exists and is not empty; build_world writes only into a new folder")
    for w in written:
        path = root / w.spec.path
        path.parent.mkdir(parents=True, exist_ok=True)
        if w.spec.kind == "xlsx":
            with open(path, "wb") as fh:
                fh.write(file_bytes(w.doc, "xlsx", plan.vocab.currency, w.text))
        else:
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(w.text)


# ---------------------------------------------------------------------------------------------------------
# Workspace-Bench metadata


def _difficulty(world: World, task: SynthTask) -> str:
    files = {f.path: f for f in world.role(task.role).files}
    chars = sum(files[s].chars for s in task.sources)
    if len(task.sources) >= 7 or chars > 25000:
        return "hard"
    return "easy" if len(task.sources) <= 3 else "medium"


def metadata_record(world: World, task: SynthTask) -> dict[str, Any]:
    """The task as a Workspace-Bench ``metadata.json``, marked simulated: file names in the graph and the
    manifest, paths relative to the role's workspace in ``stored_relpath``."""
    role = world.role(task.role)
    persona, _, org = role.title.partition(" at ")
    name = posixpath.basename
    capabilities = ["Workspace Exploration", "Task-Providing File Utilization", "Lineage Tracing"]
    if len({s.rsplit(".", 1)[-1] for s in task.sources}) > 1:
        capabilities.append("Heterogeneous File Understanding")
    if any(i.kind == "computed" for i in task.items):
        capabilities.append("Semantic Content Relations Understanding")
    return {
        "id": task.id,
        "language": "en",
        "persona": persona,
        "job": persona,
        "organisation": org,
        "task": task.instruction,
        "task_diff": _difficulty(world, task),
        "output_files": [task.deliverable],
        "rubrics": [i.text for i in task.items],
        "rubric_types": [i.rubric_type for i in task.items],
        "file_dep_graph": [{"from": name(a), "to": name(b)} for a, b in task.dependency_graph],
        "data_manifest": [{"filename": name(s), "stored_relpath": s} for s in task.sources],
        "tested_capabilities": capabilities,
        "simulated": True,
        "generator": "rtlab.synth",
        "seed": world.seed,
    }
