"""A folder on disk standing for an agent's workspace, and the line index capture matches shown text against.

A recorded agent saw its files under its own absolute path (``/srv/x/chanpin_workdir``); rtlab finds copies of
them elsewhere (``./task-3-files``). :class:`Workspace` maps the one onto the other, reads files safely (never
outside its root, symlinks resolved) and builds, once and lazily, a :class:`LineIndex`: every line of every
text file, hashed, so that capture can tell in time linear in the shown text which files a piece of output
came from.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from rtlab.text import is_under, normalize_path

BINARY_SUFFIXES = frozenset(
    {
        ".xlsx", ".xlsm", ".xls", ".docx", ".doc", ".pptx", ".ppt", ".pdf", ".odt", ".ods", ".odp", ".rtf",
        ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".jar", ".whl",
        ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp", ".ico", ".heic", ".psd", ".svgz",
        ".mp3", ".wav", ".flac", ".ogg", ".m4a", ".mp4", ".mov", ".avi", ".mkv", ".webm",
        ".exe", ".dll", ".so", ".dylib", ".bin", ".o", ".a", ".class", ".pyc", ".wasm",
        ".parquet", ".feather", ".arrow", ".pkl", ".pickle", ".npy", ".npz", ".h5", ".hdf5",
        ".db", ".sqlite", ".sqlite3", ".woff", ".woff2", ".ttf", ".otf", ".eot",
    }
)  # fmt: skip
"""Files whose bytes are not the text an agent's tools print; ``read_text`` returns None for them unread."""

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv"})
"""Folders left out of the inventory: tool internals no agent reads as workspace content."""

MIN_INDEXED_LINE = 8
"""Lines shorter than this (after stripping) carry too little to attribute text to a file; not indexed."""

COMMON_POSTINGS = 32
"""A line occurring more often than this across the workspace is boilerplate: indexed as common, no postings."""


def line_key(line: str) -> int | None:
    """The index key of one line (trailing whitespace ignored), or None for lines too short to tell anything."""
    text = line.rstrip()
    if len(text.lstrip()) < MIN_INDEXED_LINE or not any(c.isalnum() for c in text):
        return None
    return hash(text)


@dataclass(frozen=True)
class IndexedFile:
    """One text file of the index: its path, text, and where each line starts."""

    path: str
    """Path relative to the workspace root."""
    text: str
    """The file's whole text."""
    line_starts: tuple[int, ...]
    """Offset in ``text`` where each line starts (a final newline starts no line)."""

    def line_span(self, number: int) -> tuple[int, int]:
        """``(start, end)`` of line ``number`` (0-based) in ``text``, the newline excluded."""
        start = self.line_starts[number]
        if number + 1 < len(self.line_starts):
            return start, self.line_starts[number + 1] - 1
        return start, len(self.text) - (1 if self.text.endswith("\n") else 0)


class LineIndex:
    """Every indexed line of a workspace's text files: key -> postings ``(file id, line number)``.

    Built once per :class:`Workspace`. A line found in more than :data:`COMMON_POSTINGS` places is kept as
    *common* (``postings`` returns ``None``) so boilerplate never costs more than one lookup.
    """

    def __init__(self, files: list[tuple[str, str]]) -> None:
        self.files: list[IndexedFile] = []
        self._postings: dict[int, list[tuple[int, int]] | None] = {}
        self._by_path: dict[str, int] = {}
        for path, text in files:
            self._add(path, text)

    def _add(self, path: str, text: str) -> None:
        fid = len(self.files)
        lines = text.split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()  # a final newline does not start another line
        starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        self.files.append(IndexedFile(path, text, tuple(starts)))
        self._by_path[path] = fid
        postings = self._postings
        for number, line in enumerate(lines):
            key = line_key(line)
            if key is None:
                continue
            entry = postings.get(key, [])
            if entry is None:
                continue
            if len(entry) >= COMMON_POSTINGS:
                postings[key] = None
                continue
            if not entry:
                postings[key] = entry
            entry.append((fid, number))

    def file_id(self, path: str) -> int | None:
        """The id of an indexed file by its workspace-relative path."""
        return self._by_path.get(path)

    def postings(self, key: int) -> list[tuple[int, int]] | None:
        """Where a line key occurs: ``[]`` nowhere, ``None`` in too many places to say."""
        entry = self._postings.get(key, [])
        return entry

    def __len__(self) -> int:
        return len(self.files)


class Workspace:
    """A folder standing for the agent's workspace; ``agent_root`` is where the agent saw that folder.

    ``Workspace(Path("task-3-files"), agent_root="/srv/x/chanpin_workdir")`` reads the agent's
    ``/srv/x/chanpin_workdir/a/b.txt`` (or ``a/b.txt`` relative to that root) from ``task-3-files/a/b.txt``.
    Without ``agent_root`` the agent's paths are taken relative to the folder itself.
    """

    def __init__(
        self, root: Path, *, agent_root: str | None = None, max_bytes: int = 32 * 1024 * 1024
    ) -> None:
        self.root = Path(root)
        self.agent_root = normalize_path(agent_root) if agent_root else None
        self.max_bytes = max_bytes
        self._real_root = self.root.resolve()
        self._files: list[str] | None = None
        self._texts: dict[str, str | None] = {}
        self._index: LineIndex | None = None

    def rebased(self, agent_root: str | None) -> Workspace:
        """The same folder seen by another agent (another run over copies of the same files): the inventory,
        texts and line index are shared, so a batch of runs pays for the index once."""
        other = Workspace.__new__(Workspace)
        other.__dict__.update(self.__dict__)
        other.agent_root = normalize_path(agent_root) if agent_root else None
        other._index = self.index
        return other

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r}, agent_root={self.agent_root!r})"

    def files(self) -> list[str]:
        """Every regular file under the root, as sorted relative posix paths (tool folders such as ``.git`` left out)."""
        if self._files is None:
            self._files = sorted(self._walk())
        return list(self._files)

    def _walk(self) -> Iterator[str]:
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            base = Path(folder).relative_to(self.root)
            for name in names:
                full = Path(folder) / name
                if full.is_file() and self._inside(full):
                    yield (base / name).as_posix()

    def _inside(self, path: Path) -> bool:
        try:
            path.resolve().relative_to(self._real_root)
        except (ValueError, OSError, RuntimeError):  # outside; a link loop (RuntimeError before Python 3.13)
            return False
        return True

    def _local(self, rel: str) -> Path | None:
        """The on-disk path of a workspace-relative path, or None when it would leave the root."""
        clean = normalize_path(rel)
        if not is_under(clean):
            return None
        full = self.root / clean
        return full if self._inside(full) else None

    def exists(self, rel: str) -> bool:
        """Whether a file or folder exists at this workspace-relative path (never outside the root)."""
        full = self._local(rel)
        return full is not None and full.exists()

    def is_dir(self, rel: str) -> bool:
        """Whether this workspace-relative path is a folder of the workspace."""
        full = self._local(rel)
        return full is not None and full.is_dir()

    def is_file(self, rel: str) -> bool:
        """Whether this workspace-relative path is a regular file of the workspace."""
        full = self._local(rel)
        return full is not None and full.is_file()

    def read_text(self, rel: str) -> str | None:
        """The file's text, or None: outside the root, missing, binary by suffix or content, not UTF-8, too big."""
        if rel in self._texts:
            return self._texts[rel]
        text = self._read(rel)
        self._texts[rel] = text
        return text

    def _read(self, rel: str) -> str | None:
        full = self._local(rel)
        if full is None or full.suffix.lower() in BINARY_SUFFIXES:
            return None
        try:
            if not full.is_file() or full.stat().st_size > self.max_bytes:
                return None
            data = full.read_bytes()
        except OSError:
            return None
        if b"\x00" in data[:8192]:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def to_local(self, agent_path: str) -> str | None:
        """The workspace-relative path of a path the agent used, or None when it lies outside the workspace.

        Absolute paths must lie under ``agent_root``; relative ones are taken relative to it (callers resolve
        the agent's working directory first, with :func:`rtlab.text._paths.normalize_path`).
        """
        if agent_path.startswith(("/", "~")):
            if self.agent_root is None:
                return None
            rel = normalize_path(agent_path, root=self.agent_root)
        else:
            rel = normalize_path(agent_path)
        return rel if is_under(rel) else None

    @property
    def index(self) -> LineIndex:
        """The line index of every text file, built on first use and kept."""
        if self._index is None:
            self._index = LineIndex([(rel, text) for rel in self.files() if (text := self.read_text(rel))])
        return self._index
