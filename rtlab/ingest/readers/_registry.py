"""The format registry: every format name, its reader module, the detection order (readers are imported only
when asked for), what a reader module is (``ReaderModule``) and the options every reader takes
(``ReadOptions``, re-exported by ``_base``). The face (:mod:`rtlab.ingest.readers`) re-exports it; the tolerant reading contract
(``_tolerant``: which other readers find steps in a file) uses it without importing the face, which imports
the readers' shared modules."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, cast

from rtlab.errors import UnknownFormatError
from rtlab.ingest.readers._zip import Limits, resolve_limits
from rtlab.records import Step, Trajectory


@dataclass(frozen=True)
class ReadOptions:
    """Choices a user can make when reading logs."""

    clip: str | None = None
    """Name of a clipping policy (see :mod:`rtlab.ingest._clipping`) to use instead of the reader's default."""
    strict: bool = False
    """Refuse a log with any reading warning (``--strict``): the first one is raised as a
    :class:`~rtlab.errors.ReaderError` naming its file and line, instead of the record being skipped."""
    alternatives: bool = True
    """When a file yields no tool call, try the other readers on it to name the formats that find steps
    (:func:`rtlab.ingest.readers._tolerant.settle`); off while those readers are tried."""
    max_member_bytes: int | None = None
    """The most one member of an archive (an Inspect ``.eval``'s sample) may decompress to, in bytes; ``None``:
    ``RTLAB_MAX_MEMBER_BYTES`` from the environment, else 256 MiB (:mod:`rtlab.ingest.readers._zip`)."""
    max_archive_bytes: int | None = None
    """The most the members read from one archive may decompress to in all; ``None``: ``RTLAB_MAX_ARCHIVE_BYTES``
    from the environment, else 1 GiB."""

    def limits(self) -> Limits:
        """The decompression limits in force for these options (the fields, else the environment, else the
        defaults)."""
        return resolve_limits(self.max_member_bytes, self.max_archive_bytes)


class ReaderModule(Protocol):
    """The contract each ``rtlab.ingest.readers.<name>`` module fulfils."""

    NAME: str
    """Format name, as ``--format`` takes it."""
    LOOKS_FOR: str
    """One line saying what detection looks for, shown when nothing matches."""

    def sniff(self, path: Path) -> bool:
        """Cheap check: does this reader handle ``path`` (a file or a run folder)?"""
        ...

    def read(self, path: Path, options: ReadOptions) -> list[Trajectory]:
        """Parse ``path`` into trajectories; raise :class:`ReaderError` naming file, line and field."""
        ...

    def type_step(self, step: Step) -> None:
        """Set ``step.action`` and ``step.frames`` from the step as read (also for canonical files of version 1)."""
        ...


FileShape = Literal["json-lines"]
"""What a reader needs a file (not a folder) to be before it can find any tool call in it, declared by its
module as ``FILE_SHAPE``; a module without one may find steps in any file. ``"json-lines"``: the reader reads a
file given to it through :func:`rtlab.io.iter_json_lines` alone and lets that iterator's refusal out, so in a
file the iterator refuses (:func:`rtlab.io.json_lines_refused`: a pretty-printed document, a text, a binary
file) it finds nothing. Detection's other readers are offered a file by it and by their ``may_find_steps``
(:func:`offered`, :func:`rtlab.ingest.readers._tolerant.formats_with_steps`): a reader that cannot find steps
in the file is not run on it, which changes no verdict (``tests/test_formats_with_steps.py`` runs them all to
check)."""


_UNREAD: Any = object()


class FileFacts:
    """What a file read by several readers in turn (detection's other readers:
    :func:`rtlab.ingest.readers._tolerant.formats_with_steps`) is, each fact found once, when a reader's test
    first asks for it, and shared by every test: they read it, never change it. A reader's own reading parses
    the file again (readers change what they read)."""

    __slots__ = ("path", "is_file", "_refused", "_document", "_repaired", "_lines", "_types", "_data")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.is_file = path.is_file()
        """Whether the path is a regular file (a folder is a run folder)."""
        self._refused: bool | None = None
        self._document: Any = _UNREAD
        self._repaired = True
        self._lines: Any = _UNREAD
        self._types: frozenset[str] | None = None
        self._data: Any = _UNREAD

    @property
    def data(self) -> bytes | None:
        """The file's bytes, or ``None`` when it cannot be read (a folder, a file gone or unreadable)."""
        if self._data is _UNREAD:
            try:
                self._data = self.path.read_bytes() if self.is_file else None
            except OSError:
                self._data = None
        return self._data

    @property
    def refused(self) -> bool:
        """Whether :func:`rtlab.io.iter_json_lines`, reading the file tolerantly, refuses it
        (:func:`rtlab.io.json_lines_refused`); ``False`` for a folder."""
        if self._refused is None:
            from rtlab.io import json_lines_refused

            self._refused = self.is_file and json_lines_refused(self.path)
        return self._refused

    @property
    def document(self) -> Any:
        """The file as one JSON document, as the tolerant reading every document reader does gives it
        (:func:`rtlab.io.load_json` with a warnings list), or ``None`` when that reading raises (whatever the
        error: not JSON, a folder, unreadable)."""
        if self._document is _UNREAD:
            from rtlab.io import load_json

            said: list[str] = []
            try:
                self._document = load_json(self.path, said)
            except Exception:  # what the reader's own load_json raises too: it reads no document here
                self._document = None
            self._repaired = bool(said)
        return self._document

    @property
    def whole_document(self) -> bool:
        """Whether the file is one JSON text, read as it is (:attr:`document` is not ``None`` and its reading
        repaired nothing: no stray line, no cut, no bad escape or byte); then every reading of the file's JSON
        values one after another (:func:`rtlab.io.iter_json_values`) gives that document alone."""
        return self.document is not None and not self._repaired

    @property
    def lines(self) -> list[Any]:
        """The values of the file's lines, as the tolerant :func:`rtlab.io.iter_json_lines` gives them, or
        ``[]`` when it raises (it refuses the file, or the file cannot be read)."""
        if self._lines is _UNREAD:
            from rtlab.io import iter_json_lines

            try:
                self._lines = [] if self.refused else [v for _, v in iter_json_lines(self.path, [])]
            except Exception:  # what the reader's own iterator raises too: it reads no line here
                self._lines = []
        return self._lines

    @property
    def types(self) -> frozenset[str]:
        """The ``type`` of every line that is an object with a string ``type`` (:attr:`lines`): what a
        JSON-lines reader dispatches its records by."""
        if self._types is None:
            self._types = frozenset(
                t for v in self.lines if isinstance(v, dict) and isinstance(t := v.get("type"), str)
            )
        return self._types


def offered(name: str, facts: FileFacts) -> bool:
    """Whether the format's reader may find steps in the file of ``facts``: ``False`` only where its own
    reading provably finds none, by its declared shape (``FILE_SHAPE``: a JSON-lines reader is not offered a
    file :func:`rtlab.io.iter_json_lines` refuses) or by its module's test ``may_find_steps(facts)`` (a
    necessary condition of its reading finding a tool call, on the facts shared by every reader)."""
    module = get_reader(name)
    if facts.is_file and getattr(module, "FILE_SHAPE", None) == "json-lines" and facts.refused:
        return False
    test: Callable[[FileFacts], bool] | None = getattr(module, "may_find_steps", None)
    return test is None or test(facts)


def file_shape(name: str) -> FileShape | None:
    """The shape a file must have for the format's reader to find steps in it (its ``FILE_SHAPE``), or
    ``None`` when it may find them in any file."""
    return cast("FileShape | None", getattr(get_reader(name), "FILE_SHAPE", None))


SUMMARY_ONLY = "summary_only"
"""The ``meta`` key of a trajectory read from a log's own summary (a reader's ``summarize``) rather than whole:
its value names what was read (``"header.json + summaries.json"``); such a trajectory holds no steps or events,
its counts of them unknown."""


class NoSummary(Exception):
    """A log whose summary cannot stand for its whole reading (none there, or it does not cover what the log
    stores): the caller reads it whole. The message says why."""


Summarize = Callable[[Path, "ReadOptions"], list[Trajectory]]
"""A reader's ``summarize``: a log's trajectories from its own summary, without their steps."""


def get_summarizer(name: str) -> Summarize | None:
    """The format's ``summarize(path, options) -> list[Trajectory]`` (trajectories without steps, marked
    :data:`SUMMARY_ONLY`, raising :class:`NoSummary` where the log's summary cannot stand for it), or ``None``
    for a format whose logs hold no summary."""
    return cast("Summarize | None", getattr(get_reader(name), "summarize", None))


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
    "gemini-cli": "gemini_cli",
    "cline": "cline",
    "opencode": "opencode",
    "otel": "otel",
    "atif": "atif",
    "openai-responses": "openai_responses",
    "openai-chat": "openai_chat",
    "aider": "aider",
    "asciicast": "asciicast",
}

FORMATS: tuple[str, ...] = tuple(_MODULES)
"""Every format name ``--format`` accepts, in detection order."""


def get_reader(name: str) -> ReaderModule:
    """The reader module for a format name; an unknown name lists the known ones."""
    module = _LOADED.get(name)
    if module is None:
        if name not in _MODULES:
            raise UnknownFormatError(f"unknown format {name!r}; known formats: {', '.join(FORMATS)}")
        module = _LOADED[name] = importlib.import_module(f"{__package__}.{_MODULES[name]}")  # of this package
    return module


_LOADED: dict[str, ReaderModule] = {}
"""The reader modules imported so far, by format name (a module, once imported, stays: the same object
``importlib`` would give again, found without its import machinery)."""
