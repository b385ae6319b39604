"""Run labels that a harness log does not carry (method, variant, run, model, task id), from a ``run.json``.

Harness logs record what the agent did, not which arm of an experiment it was: a Pi session or an OpenAI message
list says nothing of "RunningTab without the review, run 2". A researcher states it once per run in a small
JSON object beside the log, and every command (``ingest``, ``info``, ``replay``, ``score``...) then groups by it::

    {"schema": "rtlab.run", "method": "RunningTab", "variant": "no-review", "run": "2", "model": "gpt-5.4-nano"}

Where it is looked for: for a log file ``x.jsonl``, ``x.run.json`` beside it, else ``run.json`` in the same
folder; for a run folder, ``run.json`` inside it. Labels given there override what the reader derived (the
researcher's statement is the authority on the experiment's design); ``meta["labels_from"]`` names the file.
A ``run.json`` whose settings name the ``cli`` (written by ``rtlab experiment --agent claude-code|codex``) also
makes the ``output/`` folder beside it the run's deliverables.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.records import Trajectory

SCHEMA = "rtlab.run"
LABEL_FIELDS: tuple[str, ...] = ("task_id", "model", "method", "variant", "run", "harness")
"""The :class:`rtlab.records._records.Trajectory` fields a ``run.json`` may set."""
FILE_NAME = "run.json"
SETTINGS_FIELD = "agent"
"""A ``run.json`` key that is not a label: an object of the live harness's settings and outcome (``rtlab run``:
context policy, clip policy, sandbox, seed, token usage, why the run ended), kept in ``meta["agent"]``."""


def run_labels_path(source: str | Path) -> Path | None:
    """The ``run.json`` that labels the run read from ``source``, or ``None``. Each candidate is tested by its
    name (:func:`_is`, a ``stat`` each); a :class:`~pathlib.Path` is made only for the one found."""
    path = source if isinstance(source, Path) else Path(source)
    if _is(path, stat.S_ISDIR):
        inside = path / FILE_NAME
        return inside if _is(inside, stat.S_ISREG) else None
    name = path.name
    stem = name.rsplit(".", 1)[0] if "." in name else name
    folder = os.path.dirname(path)
    for candidate in (f"{stem}.run.json", FILE_NAME):
        if candidate != name and _is(os.path.join(folder, candidate), stat.S_ISREG):
            return path.with_name(candidate)
    return None


_MISSING = frozenset((errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP))
"""What a ``stat`` may fail with for a path that is simply not there (as :meth:`pathlib.Path.is_file` says)."""


def _is(path: str | Path, kind: Callable[[int], bool]) -> bool:
    """:meth:`pathlib.Path.is_dir` / ``is_file`` (``kind``: ``stat.S_ISDIR`` / ``S_ISREG``) without a ``Path``:
    ``False`` for a path that is not there, any other error raised as they raise it."""
    try:
        return kind(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno not in _MISSING:
            raise
        return False
    except ValueError:  # a NUL in the name
        return False


def load_run_labels(path: str | Path) -> dict[str, str | None]:
    """The labels of one ``run.json``; a malformed file raises :class:`ReaderError` naming the field."""
    path = Path(path)
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ReaderError(path, f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ReaderError(path, f"not JSON: {exc.msg}", line=exc.lineno) from None
    if not isinstance(data, dict):
        raise ReaderError(path, f"expected a JSON object, got {type(data).__name__}")
    schema = data.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise ReaderError(path, f"expected schema {SCHEMA!r}, got {schema!r}", field="schema")
    labels: dict[str, str | None] = {}
    for key, value in data.items():
        if key == "schema" or key == SETTINGS_FIELD:
            if key == SETTINGS_FIELD and not isinstance(value, dict):
                raise ReaderError(path, f"expected an object, got {type(value).__name__}", field=key)
            continue
        if key not in LABEL_FIELDS:
            raise ReaderError(path, f"unknown label; expected one of {', '.join(LABEL_FIELDS)}", field=key)
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if value is not None and not isinstance(value, str):
            raise ReaderError(path, f"expected a string, got {type(value).__name__}", field=key)
        labels[key] = value
    return labels


def apply_run_labels(trajectory: Trajectory, source: str | Path | None = None) -> bool:
    """Set the labels of the ``run.json`` found for ``source`` (default: the trajectory's source) on the
    trajectory; ``False`` when there is none."""
    found = run_labels_path(source if source is not None else trajectory.source_path)
    if found is None:
        return False
    apply_labels_file(trajectory, found)
    return True


def apply_labels_file(trajectory: Trajectory, found: Path) -> None:
    """Set the labels of the ``run.json`` ``found`` (as :func:`run_labels_path` finds it) on the trajectory:
    :func:`apply_run_labels` once the file is known (a unit's trajectories share it: looked up once)."""
    for key, value in load_run_labels(found).items():
        setattr(trajectory, key, value)
    trajectory.meta["labels_from"] = str(found)
    settings = json.loads(found.read_text(encoding="utf-8")).get(SETTINGS_FIELD)
    if isinstance(settings, dict):
        trajectory.meta[SETTINGS_FIELD] = settings
        if isinstance(settings.get("cli"), str) and trajectory.parent_id is None:
            _cli_run_outputs(trajectory, found.parent)


def _cli_run_outputs(trajectory: Trajectory, folder: Path) -> None:
    """A run folder of ``rtlab experiment --agent claude-code|codex`` (its ``run.json`` names the ``cli``) holds the
    workspace's ``outputs/`` as the run left it, in ``output/``: those are the run's deliverables (origin
    ``output_dir``, paths ``outputs/...`` as in rtlab's own runs), whatever tool wrote them (a Codex shell command
    is no write the reader sees). Files the reader found written elsewhere are kept; its copies of these, whose
    paths lie in the run's deleted private workspace, are replaced."""
    from rtlab.ingest.readers._base import deliverable_file, read_inside, run_files
    from rtlab.records import Deliverable

    outputs = folder / "output"
    if not outputs.is_dir():
        return
    found = []
    for path in run_files(outputs, folder):
        data = read_inside(path, folder, checked=True)  # found inside the run folder just now
        if data is not None:
            rel = "outputs/" + path.relative_to(outputs).as_posix()
            found.append(deliverable_file(rel, data, origin="output_dir", local_path=str(path)))
    if trajectory.deliverable is None:
        trajectory.deliverable = Deliverable()
    delivered = {f.path for f in found}
    kept = [
        f
        for f in trajectory.deliverable.files
        if not any(f.path == d or f.path.endswith("/" + d) for d in delivered)
    ]
    trajectory.deliverable.files = found + kept
