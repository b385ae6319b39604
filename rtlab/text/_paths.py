"""The one path rule of rtlab: how a path an agent named becomes the key the tab, candidates and tests use.

``normalize_path`` works on text only (it never touches the disk), so it gives the same answer for a recorded
trajectory whose machine is long gone as for a live run.
"""

from __future__ import annotations

import functools
import posixpath
import re
import unicodedata


def _clean(path: str) -> str:
    """``.`` and ``..`` resolved lexically, repeated and trailing slashes dropped; ``""`` becomes ``.``."""
    if not path:
        return "."
    if "/." not in path and "//" not in path and not path.startswith(".") and not path.endswith("/"):
        return path  # already normal: the common case, kept cheap
    cleaned = posixpath.normpath(path)
    if cleaned.startswith("//"):  # POSIX keeps a leading double slash; a path an agent typed never means it
        cleaned = "/" + cleaned.lstrip("/")
    return cleaned


def normalize_path(path: str, *, cwd: str | None = None, root: str | None = None) -> str:
    """The canonical form of ``path`` as the agent named it, seen from ``cwd`` and relative to ``root``.

    Rules, in order: ``~`` is kept as written (never expanded: it names the agent's home, not ours); a relative
    path is joined onto ``cwd`` (a relative ``cwd`` is itself taken relative to ``root``); ``.`` and ``..`` are
    resolved lexically (``..`` above ``/`` stays at ``/``); a result at or under ``root`` is returned relative
    to it (posix, no leading ``./``; ``root`` itself is ``.``); anything else is the absolute posix path. With
    ``cwd`` None a relative path stays relative (normalised), which callers read as relative to ``root``.
    """
    if root is not None:
        root = _clean(root)
    if cwd is not None and not cwd.startswith(("/", "~")) and root is not None and root.startswith("/"):
        cwd = posixpath.join(root, cwd)
    if not path.startswith(("/", "~")) and cwd is not None:
        path = posixpath.join(cwd, path)
    return relative_to(_clean(path), root)


def relative_to(path: str, root: str | None) -> str:
    """A normalised path made relative to a normalised ``root`` when it lies at or under it (the last step of
    :func:`normalize_path`, for callers that already hold a normalised absolute path)."""
    if root is None or not path.startswith(("/", "~")):
        return path
    if path == root:
        return "."
    prefix = root if root.endswith("/") else root + "/"
    if path.startswith(prefix):
        return path[len(prefix) :]
    return path


def is_under(path: str) -> bool:
    """Whether a normalised path is relative (inside the root it was normalised against)."""
    return not path.startswith(("/", "~")) and path != ".." and not path.startswith("../")


_HEX_ID = re.compile(r"^([0-9a-f]{16})_", re.IGNORECASE)


_SIDECAR = ".extracted.md"


@functools.lru_cache(maxsize=1 << 15)
def name_key(path: str) -> str:
    """A file's comparable name: base name, NFKC, lower case, without a leading 16-hex content id or a
    ``.extracted.md`` sidecar suffix (``data/18fec6689633b536_Notes.TXT`` -> ``notes.txt``)."""
    name = unicodedata.normalize("NFKC", posixpath.basename(path.replace("\\", "/"))).lower()
    if name.endswith(_SIDECAR):
        name = name[: -len(_SIDECAR)]
    while (m := _HEX_ID.match(name)) is not None:
        name = name[m.end() :]
    return name


@functools.lru_cache(maxsize=1 << 15)
def content_id(path: str) -> str | None:
    """The leading 16-hex content id of a file name, lower case, or ``None``."""
    m = _HEX_ID.match(posixpath.basename(path.replace("\\", "/")))
    return m.group(1).lower() if m else None
