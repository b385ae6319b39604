"""What one step's capture gathers while the parsers walk its output: reads, listed paths, written paths.

Every path goes through :func:`rtlab.text._paths.normalize_path` here and nowhere else in capture, so the same file
gets the same key whichever command named it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from rtlab.environment._capture.frame import trim
from rtlab.environment._workspace import Workspace
from rtlab.text import normalize_path, relative_to

_FILE_NAME = re.compile(r"^[^./][^/]*\.(?=[A-Za-z0-9_]{0,9}[A-Za-z])[A-Za-z0-9_]{1,10}$")
"""A name with an extension (``report.xlsx``, ``data.xls.extracted.md``): the rule for an entry whose listing
does not say whether it is a file or a folder."""


def has_extension(path: str) -> bool:
    """The file rule for listings that do not tell files from folders (plain ``ls``, ``find`` without
    ``-type``, ``du``): the last name has an extension. It is a guess, so it yields to evidence: a path the same
    step shows to be a folder (see :meth:`Collector.folder`) or the parent of another path it names is not
    listed. An entry without an extension (``Dockerfile``, ``LICENSE``, ``.env``) that such a listing prints is
    not listed: most of them are folders (``src``, ``docs``, ``.git``); a listing that tells (``ls -l``,
    ``ls -F``, ``find -type f``, ``tree``, ``git ls-files``) or a workspace lists it."""
    name = posixpath.basename(path.rstrip("/"))
    return bool(_FILE_NAME.match(name))


class Ref(NamedTuple):
    """A path as capture keys it (``key``: normalised against cwd and root) and as the agent saw it (``agent``)."""

    key: str
    agent: str


@lru_cache(maxsize=1 << 15)
def make_ref(text: str, cwd: str | None, root: str | None) -> Ref:
    """:meth:`Collector.ref`, kept for the paths every listing of a workspace prints again."""
    if cwd is not None and not cwd.startswith(("/", "~")) and root is not None:
        cwd = normalize_path(cwd, cwd=root)
    agent = normalize_path(text, cwd=cwd)
    return Ref(relative_to(agent, root), agent)


@dataclass(slots=True)
class Hit:
    """A read found in the output: the file and the span of the shown text attributed to it."""

    ref: Ref
    start: int
    end: int
    revision: str | None = None
    """The version-control revision the text is the file at (``git show REV:FILE``); None: the working copy."""
    confirm: bool = True
    """Content matching may check it against the workspace's copy (False: the output's own structure names
    the file line by line, or another version of it: git patches, ``git blame``, a file at a revision)."""


@dataclass
class Collector:
    """One step's findings while the parsers run; turned into a :class:`rtlab.environment._capture.Capture` at the end."""

    shown: str
    root: str | None = None
    """The workspace root as the agent knew it, normalised."""
    workspace: Workspace | None = None
    hits: list[Hit] = field(default_factory=list)
    listed: dict[str, None] = field(default_factory=dict)
    written: dict[str, None] = field(default_factory=dict)
    named: set[str] = field(default_factory=set)
    """Keys of files the command itself named (preferred when content matching finds identical copies)."""
    literal: list[tuple[int, int]] = field(default_factory=list)
    """Spans of text the command itself printed (``echo``, here-documents): never any file's content."""
    folders: dict[str, None] = field(default_factory=dict)
    """Paths the step shows to be folders (``ls -l`` mode ``d``, a trailing ``/``, ``tree`` nesting, ``find -type
    d``, a ``cd`` target), in order."""
    guessed: set[str] = field(default_factory=set)
    """Listed keys that only :func:`has_extension` made files (the listing did not say)."""
    derived: list[tuple[str, int, int, tuple[str, ...]]] = field(default_factory=list)
    """``(kind, start, end, sources)``: output that is a value computed from files, not their content (a
    count, a size, a program's result); see :class:`rtlab.environment._capture.core.CapturedDerived`."""

    def ref(self, text: str, cwd: str | None) -> Ref:
        """The key and agent path of a path the output or command named, seen from ``cwd``."""
        return make_ref(text, cwd, self.root)

    def local(self, ref: Ref) -> str | None:
        """The workspace-relative path of a reference, when a workspace is given and holds it."""
        if self.workspace is None:
            return None
        return self.workspace.to_local(ref.agent)

    def read(
        self, ref: Ref, start: int, end: int, *, revision: str | None = None, confirm: bool = True
    ) -> None:
        """A read of ``ref`` over ``[start, end)`` of the shown text (trimmed of blank edges); ``revision``
        when the text is the file at another version than the working copy (then never confirmed by the
        workspace's copy)."""
        start, end = trim(self.shown, start, end)
        if end > start:
            self.hits.append(Hit(ref, start, end, revision, confirm and revision is None))

    def derive(self, kind: str, pieces: Sequence[tuple[int, int]], sources: list[str]) -> None:
        """Output over ``pieces`` of the shown text that is a value ``kind`` computed from ``sources`` (keys)."""
        for s, e in pieces:
            start, end = trim(self.shown, s, e)
            if end > start:
                self.derived.append((kind, start, end, tuple(dict.fromkeys(sources))))

    def list(self, ref: Ref, is_file: bool | None = None) -> None:
        """A path that appeared in a listing; ``is_file`` None when the listing does not say, False when it
        says folder (then the path is a folder: :meth:`folder`)."""
        if ref.key in ("", ".", "/"):
            return
        if is_file is None:
            rel = self.local(ref)
            if rel is not None and self.workspace is not None and self.workspace.exists(rel):
                is_file = self.workspace.is_file(rel)
            elif has_extension(ref.key):
                if ref.key not in self.listed:
                    self.guessed.add(ref.key)
                self.listed[ref.key] = None
                return
            else:
                return  # no extension, and nothing says file or folder: not listed
        if is_file:
            if self.guessed:
                self.guessed.discard(ref.key)  # the listing says so: no longer a guess
            self.listed[ref.key] = None
        else:
            self.folder(ref)

    def folder(self, ref: Ref) -> None:
        """A path the output or the command shows to be a folder."""
        if ref.key not in ("", ".", "/"):
            self.folders[ref.key] = None

    def write(self, ref: Ref) -> None:
        """A path the step wrote (devices such as ``/dev/null`` ignored)."""
        if ref.key not in ("", ".", "/dev/null") and not ref.key.startswith("/dev/"):
            self.written[ref.key] = None
