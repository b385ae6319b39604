"""rtlab's own canonical JSONL (``rtlab ingest -o OUT.jsonl``), so every command accepts ingested files too."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import ReadOptions
from rtlab.io import head_bytes, iter_json_lines, write_json_lines
from rtlab.records import SCHEMA, SCHEMA_VERSION, Trajectory, trajectory_from_dict, trajectory_to_dict

NAME = "rtlab"
LOOKS_FOR = f'a .jsonl file whose first line is an object starting with "schema": "{SCHEMA}"'

# Lines can be megabytes long, so sniff the opening bytes rather than parse the first line.
_OPENING = re.compile(rb'^\s*\{\s*"schema"\s*:\s*"' + re.escape(SCHEMA.encode()) + rb'"')


def sniff(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    return bool(_OPENING.match(head_bytes(path, 256)))


def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """Trajectories as written by :func:`write_jsonl`; ``options.clip`` does not apply. The warnings each
    carries from its reading (a version-2 file's ``meta["warnings"]`` typed) count under ``options.strict``."""
    from rtlab.ingest.readers._tolerant import settle

    warnings: list[str] = []
    found = list(iter_jsonl(path, warnings))
    if not found:
        raise ReaderError(path, "no trajectory could be read" + (f" ({warnings[0]})" if warnings else ""))
    found[0].meta["warnings"] = warnings  # what was skipped in the file, typed by settle
    settle(found, path, None, options)
    return found


def write_jsonl(trajectories: Iterable[Trajectory], path: str | Path) -> int:
    """Write trajectories to ``path`` atomically (a failure leaves any old file intact); returns the count.

    The file is readable by its owner only: it holds everything the agents were shown of their workspaces.
    """
    return write_json_lines((trajectory_to_dict(t) for t in trajectories), path, private=True)


def iter_jsonl(path: str | Path, warnings: list[str] | None = None) -> Iterator[Trajectory]:
    """Read trajectories from canonical JSONL. A bad line raises :class:`ReaderError` with its line number; with
    a ``warnings`` list, it is skipped and said there (the tolerant reading of :func:`read`)."""
    path = Path(path)
    for lineno, data in iter_json_lines(path, warnings):
        try:
            trajectory = trajectory_from_dict(data) if isinstance(data, dict) else None
            if trajectory is None:
                raise ValueError(f"expected a trajectory object, got {type(data).__name__}")
        except ValueError as exc:
            if warnings is None:
                raise ReaderError(path, str(exc), line=lineno) from None
            warnings.append(f"{path}:{lineno}: {exc}; trajectory not understood, skipped")
            continue
        version = data.get("version", SCHEMA_VERSION)
        if version < 3:
            from rtlab.ingest.readers._tolerant import typed_warnings

            typed_warnings(trajectory)  # version 2 kept its warnings as text in meta
        yield _typed(trajectory) if version < 2 else trajectory


def read_jsonl(path: str | Path) -> list[Trajectory]:
    """All trajectories in a canonical JSONL file."""
    return list(iter_jsonl(path))


def _typed(trajectory: Trajectory) -> Trajectory:
    """A trajectory written by an rtlab before schema version 2 (its steps carry no action): each step typed by
    the reader of the trajectory's format, as if it were read from its log again (a format rtlab no longer
    knows: by the generic rules of tool-calling logs)."""
    if all(s.action is not None for s in trajectory.steps):
        return trajectory
    from rtlab.ingest.readers import FORMATS, get_reader
    from rtlab.ingest.readers._openai_common import type_step as generic

    known = trajectory.format in FORMATS and trajectory.format != NAME
    type_step = get_reader(trajectory.format).type_step if known else generic
    for step in trajectory.steps:
        if step.action is None:
            type_step(step)
    return trajectory
