"""Readers turn one harness's raw logs into :class:`~rtlab.records._records.Trajectory` records.

Each format lives in its own module (``rtlab/readers/<module>.py``) exposing ``NAME``, ``LOOKS_FOR``,
``sniff(path)`` and ``read(path, options)``. Modules are imported only when used, so ``import rtlab`` stays cheap.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path

from rtlab.errors import UnknownFormatError
from rtlab.ingest.readers._base import ReaderModule, ReadOptions
from rtlab.ingest.readers._unclaimed import Unclaimed, explain

# Detection order: run folders and specific formats before generic ones.
_MODULES: dict[str, str] = {
    "rtlab": "canonical",
    "codex": "codex",
    "codex-rollout": "codex_rollout",
    "g2b": "g2b",
    "dci": "dci",
    "pi": "pi",
    "inspect": "inspect",
    "openhands-v1": "openhands_v1",
    "openhands": "openhands",
    "claude-code-stream": "claude_code_stream",
    "claude-code-session": "claude_code_session",
    "swe-agent": "swe_agent",
    "mini-swe-agent": "mini_swe_agent",
    "atif": "atif",
    "openai-responses": "openai_responses",
    "openai-chat": "openai_chat",
}

FORMATS: tuple[str, ...] = tuple(_MODULES)
"""Every format name ``--format`` accepts, in detection order."""

_SKIP_DIRS = {".git", "__pycache__", ".venv", "node_modules", ".ipynb_checkpoints"}


def get_reader(name: str) -> ReaderModule:
    """The reader module for a format name; an unknown name lists the known ones."""
    if name not in _MODULES:
        raise UnknownFormatError(f"unknown format {name!r}; known formats: {', '.join(FORMATS)}")
    return importlib.import_module(f"rtlab.ingest.readers.{_MODULES[name]}")


def detect(path: str | Path) -> str | None:
    """The format that claims ``path`` (a file or a run folder), or ``None``."""
    path = Path(path)
    for name in FORMATS:
        if get_reader(name).sniff(path):
            return name
    return None


def describe_formats() -> str:
    """What each reader looks for, one line each (for error messages and ``rtlab formats``)."""
    return "\n".join(f"  {name}: {get_reader(name).LOOKS_FOR}" for name in FORMATS)


def discover(
    path: str | Path, *, format: str | None = None, unclaimed: list[Unclaimed] | None = None
) -> Iterator[tuple[Path, str]]:
    """Yield ``(unit, format)`` for every trajectory unit at or under ``path``.

    A folder a reader claims (a run folder) is one unit and is not descended into; other folders are walked
    in sorted order. A file given directly that no reader claims raises :class:`UnknownFormatError` saying what
    it holds; files met while walking that no reader claims, and folders that cannot be listed, are added to
    ``unclaimed`` (with :func:`explain`'s reason) when a list is given: a scan never passes over a file unsaid.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    names = [format] if format else list(FORMATS)
    readers = [(n, get_reader(n)) for n in names]

    def claim(p: Path) -> str | None:
        for n, r in readers:
            if r.sniff(p):
                return n
        return None

    if path.is_file():
        found = claim(path)
        if found is None:
            wanted = f"format {format!r}" if format else "any known format"
            why = explain(path)
            held = why.reason + (f"; {why.detail}" if why.detail else "")
            raise UnknownFormatError(
                f"{path}: not recognised as {wanted} ({held}). Known formats and what each looks for:\n"
                f"{describe_formats()}"
            )
        yield path, found
        return

    stack = [path]
    while stack:
        d = stack.pop()
        found = claim(d)
        if found is not None:
            yield d, found
            continue
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as exc:
            if unclaimed is not None:
                unclaimed.append(
                    Unclaimed(str(d), "a folder that could not be listed", exc.strerror or str(exc))
                )
            continue
        subdirs = []
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if e.name not in _SKIP_DIRS:
                    subdirs.append(Path(e.path))
            elif e.is_file():
                f = Path(e.path)
                n = claim(f)
                if n is not None:
                    yield f, n
                elif unclaimed is not None:
                    unclaimed.append(explain(f))
        stack.extend(reversed(subdirs))


__all__ = [
    "FORMATS",
    "ReadOptions",
    "Unclaimed",
    "describe_formats",
    "detect",
    "discover",
    "explain",
    "get_reader",
]
