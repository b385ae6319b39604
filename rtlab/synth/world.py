"""The simulated world's vocabulary: roles with their workspace files, the facts files hold, tasks and rubric items.

Everything here is **simulated**: invented organisations, files and numbers, generated from a seed by
:mod:`rtlab.synth.workspaces`. The records carry the ground truth the simulated agents and the deterministic
judge need (which file holds which value, what a distorted value looks like, which files a task needs); the
world is saved beside the generated data as ``world.json`` so analyses can check labels against it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

SIMULATED_MARKER = "README_SIMULATED.md"
"""The file every generated world has at its top (and each role's workspace has a ``README_SIMULATED.txt``)."""

FileKind = Literal["txt", "md", "csv", "json", "xlsx"]
FileRole = Literal["source", "version", "distractor", "filler"]
ItemKind = Literal["value", "statement", "computed", "format"]


@dataclass(frozen=True)
class Fact:
    """One value a file states, as it is written there."""

    key: str
    """Stable id within the world (``ops-f017``)."""
    label: str
    """What the value is, in the words the file uses next to it (``Route North freight cost, Q3``)."""
    value: str
    """The value exactly as written in the file (``48,213.50``, ``Nordlicht Logistik GmbH``)."""
    file: str
    """Path of the file holding it, relative to its role's workspace root (POSIX separators)."""
    distorted: str
    """A plausible wrong value an agent that lost the fact might write instead (``48,231.50``)."""
    numeric: bool = True
    """A number (matched by :func:`rtlab.text._numbers.matches`) or a name / phrase (matched as quoted text)."""


@dataclass(frozen=True)
class WorkspaceFile:
    """One file of a role's workspace."""

    path: str
    """Relative to the role's workspace root, POSIX separators; may hold non-ASCII characters."""
    kind: FileKind
    """The file's format: ``txt``, ``md``, ``csv``, ``json`` or ``xlsx``."""
    role: FileRole
    """``source``: a task needs it; ``version``: an older or draft near-duplicate of a source (stale values);
    ``distractor``: on-topic but not needed; ``filler``: the rest of an organisation's folders."""
    facts: tuple[str, ...] = ()
    """Keys of the facts it states (sources: the current values; versions: none of them, stale ones instead)."""
    chars: int = 0
    """Size of what reading the whole file prints (the text for txt/md/csv/json, the rows for xlsx)."""


@dataclass(frozen=True)
class Item:
    """One rubric item of a simulated task, with what the deliverable must contain to pass it."""

    index: int
    """Position in the task's rubric, from 0."""
    text: str
    """The rubric text the judge and the labeler read. Names its source file; quotes expected wording."""
    kind: ItemKind
    """``value``: states fact values; ``statement``: a quoted name or phrase from a file; ``computed``: a value
    derived from facts (a sum, a difference) that no file states; ``format``: naming or structure only."""
    rubric_type: str
    """Workspace-Bench's rubric-type vocabulary (``Content Completeness``, ``Data Accuracy``, ``Format``...)."""
    facts: tuple[str, ...] = ()
    """Keys of the facts the item needs."""
    expected: tuple[str, ...] = ()
    """Strings the deliverable must contain (values as written, a computed value, a heading)."""


@dataclass(frozen=True)
class SynthTask:
    """A task: build one deliverable from several files of one role's workspace."""

    id: str
    """``sim-<role>-NN``."""
    role: str
    """Name of the role whose workspace the task is over."""
    instruction: str
    """What the agent is asked: the session's first user message."""
    deliverable: str
    """File name the task asks for (``q3_freight_review.md``), written in the run's output folder."""
    sources: tuple[str, ...]
    """Files the task needs (relative to the role's root), in the order a careful reader would use them."""
    items: tuple[Item, ...]
    """The rubric items, in rubric order."""
    dependency_graph: tuple[tuple[str, str], ...] = ()
    """Edges ``(source file, deliverable)`` and between sources, as Workspace-Bench's ``file_dep_graph``."""


@dataclass(frozen=True)
class Role:
    """A professional role and its workspace folder."""

    name: str
    """``operations``, ``logistics``, ``research``, ``backend``, ``product``."""
    title: str
    """The persona (``Operations Manager at Harbourline Foods``)."""
    root: str
    """The workspace folder relative to the generated world's root (``workspaces/operations``)."""
    files: tuple[WorkspaceFile, ...] = ()
    """Every file of its workspace."""


@dataclass(frozen=True)
class World:
    """A whole simulated world: roles, their files and facts, and the tasks over them."""

    seed: int
    """The seed it was generated from."""
    roles: tuple[Role, ...]
    """The roles, each with its workspace's files."""
    tasks: tuple[SynthTask, ...]
    """Every task, role by role."""
    facts: dict[str, Fact] = field(default_factory=dict)
    """Every role's facts, by key."""

    def role(self, name: str) -> Role:
        return next(r for r in self.roles if r.name == name)

    def task(self, task_id: str) -> SynthTask:
        return next(t for t in self.tasks if t.id == task_id)

    def file(self, role: str, path: str) -> WorkspaceFile:
        return next(f for f in self.role(role).files if f.path == path)


def world_to_dict(world: World) -> dict[str, Any]:
    """JSON-ready form of a world (``world.json``)."""
    data = dataclasses.asdict(world)
    return {"schema": "rtlab.synth.world", "version": 1, "simulated": True, **data}


def world_from_dict(data: dict[str, Any]) -> World:
    """The world ``world_to_dict`` wrote."""
    roles = tuple(
        Role(
            name=r["name"],
            title=r["title"],
            root=r["root"],
            files=tuple(WorkspaceFile(**{**f, "facts": tuple(f["facts"])}) for f in r["files"]),
        )
        for r in data["roles"]
    )
    tasks = tuple(
        SynthTask(
            id=t["id"],
            role=t["role"],
            instruction=t["instruction"],
            deliverable=t["deliverable"],
            sources=tuple(t["sources"]),
            items=tuple(
                Item(**{**i, "facts": tuple(i["facts"]), "expected": tuple(i["expected"])})
                for i in t["items"]
            ),
            dependency_graph=tuple((a, b) for a, b in t["dependency_graph"]),
        )
        for t in data["tasks"]
    )
    facts = {k: Fact(**v) for k, v in data["facts"].items()}
    return World(seed=data["seed"], roles=roles, tasks=tasks, facts=facts)


def is_simulated(path: str | Path) -> bool:
    """Whether ``path`` is (inside) a world :mod:`rtlab.synth` generated: its marker file is there or above."""
    here = Path(path).resolve()
    return any((folder / SIMULATED_MARKER).is_file() for folder in [here, *here.parents][:6])
