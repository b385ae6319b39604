"""Readers turn one harness's raw logs into :class:`~rtlab.records._records.Trajectory` records.

Each format lives in its own module (``rtlab/readers/<module>.py``) exposing ``NAME``, ``LOOKS_FOR``,
``sniff(path)`` and ``read(path, options)``. Modules are imported only when used, so ``import rtlab`` stays cheap.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from rtlab.errors import UnknownFormatError
from rtlab.ingest.readers._base import ReadOptions
from rtlab.ingest.readers._registry import FORMATS, SUMMARY_ONLY, NoSummary, get_reader, get_summarizer
from rtlab.ingest.readers._unclaimed import Unclaimed, explain
from rtlab.io import one_head_read

_SKIP_DIRS = {".git", "__pycache__", ".venv", "node_modules", ".ipynb_checkpoints"}


def detect(path: str | Path) -> str | None:
    """The format that claims ``path`` (a file or a run folder), or ``None``."""
    path = Path(path)
    with one_head_read():  # the sniffers share the file's head, read once
        for name in FORMATS:
            if get_reader(name).sniff(path):
                return name
    return None


def describe_formats() -> str:
    """What each reader looks for, one line each (for error messages and ``rtlab formats``)."""
    return "\n".join(f"  {name}: {get_reader(name).LOOKS_FOR}" for name in FORMATS)


def discover(
    path: str | Path,
    *,
    format: str | None = None,
    unclaimed: list[Unclaimed] | None = None,
    follow_links: bool = False,
) -> Iterator[tuple[Path, str]]:
    """Yield ``(unit, format)`` for every trajectory unit at or under ``path``.

    A folder a reader claims (a run folder) is one unit and is not descended into; other folders are walked
    in sorted order. A file given directly that no reader claims raises :class:`UnknownFormatError` saying what
    it holds; files met while walking that no reader claims, and folders that cannot be listed, are added to
    ``unclaimed`` (with :func:`explain`'s reason) when a list is given: a scan never passes over a file unsaid.

    A link to a folder outside ``path`` (a link to ``/root`` in a folder of runs) is read when a reader claims
    the folder it leads to (a folder of links to run folders reads every run), and otherwise not walked (it is
    said in ``unclaimed``) unless ``follow_links``: a scan never wanders into a large tree it was not given.
    """
    path = Path(path)
    if not path.exists():
        if path.is_symlink():
            raise FileNotFoundError(f"{path}: {_broken_link(path)}")
        raise FileNotFoundError(f"{path}: no such file or folder")
    names = [format] if format else list(FORMATS)
    readers = [(n, get_reader(n)) for n in names]

    def claim(p: Path) -> str | None:
        with one_head_read():  # the sniffers share the file's head, read once
            for n, r in readers:
                try:
                    if r.sniff(p):
                        return n
                except Exception as exc:  # a sniffer must not stop a scan; the file is reported instead
                    raise _SniffFailed(
                        Unclaimed(str(p), "could not be examined", f"{n}: {_describe(exc)}")
                    ) from exc
        return None

    if path.is_file():
        try:
            found = claim(path)
        except _SniffFailed as failed:
            raise UnknownFormatError(f"{path}: {failed.why.reason} ({failed.why.detail})") from None
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
    if not path.is_dir():
        raise UnknownFormatError(f"{path}: {_not_regular(path)}, not a log file or a folder")

    def note(u: Unclaimed) -> None:
        if unclaimed is not None:
            unclaimed.append(u)

    def claimed(p: Path) -> str | None:
        try:
            return claim(p)
        except _SniffFailed as failed:
            note(failed.why)
            return None

    root = _real(path)
    seen = {root}  # every folder walked, by its real path: a link back up is not walked twice
    stack = [(path, True)]
    while stack:
        d, walk = stack.pop()
        found = claimed(d)
        if found is not None:
            yield d, found
            continue
        if not walk:
            note(
                Unclaimed(
                    str(d),
                    "a link to a folder outside the input, not scanned",
                    f"-> {_real(d)}; name it as a PATH to scan it",
                )
            )
            continue
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as exc:
            note(Unclaimed(str(d), "a folder that could not be listed", exc.strerror or str(exc)))
            continue
        subdirs = []
        for e in entries:
            p = Path(e.path)
            try:
                link = e.is_symlink()
                is_dir, is_file = e.is_dir(), e.is_file()  # links followed
            except OSError:
                link, is_dir, is_file = True, False, False
            if link and not (is_dir or is_file) and not os.path.exists(p):
                note(Unclaimed(str(p), _broken_link(p)))
            elif is_dir:
                if e.name in _SKIP_DIRS:
                    continue
                real = _real(p)
                if real in seen:  # a link to a folder this scan walks anyway (or to one above it: a loop)
                    note(Unclaimed(str(p), "a link to a folder already scanned", f"-> {real}"))
                    continue
                seen.add(real)
                inside = real == root or real.startswith(root.rstrip(os.sep) + os.sep)
                subdirs.append((p, inside or follow_links or not link))
            elif is_file:
                n = claimed(p)
                if n is not None:
                    yield p, n
                elif unclaimed is not None:
                    unclaimed.append(explain(p))
            else:
                note(Unclaimed(str(p), _not_regular(p)))
        stack.extend(reversed(subdirs))


class _SniffFailed(Exception):
    """A reader's sniffer raised on a path: the path is reported, not the scan stopped."""

    def __init__(self, why: Unclaimed) -> None:
        super().__init__(why.reason)
        self.why = why


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def _real(p: Path) -> str:
    try:
        return str(p.resolve(strict=True))
    except (OSError, RuntimeError):  # a loop (RuntimeError before Python 3.13)
        return str(p.absolute())


def _broken_link(p: Path) -> str:
    """What a link that leads nowhere is: a loop, or a link to nothing."""
    try:
        p.resolve(strict=True)
    except RuntimeError:
        return "a symbolic link loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop"
    return f"a broken symbolic link (to {os.readlink(p)!r})" if p.is_symlink() else "no such file"


def _not_regular(p: Path) -> str:
    try:
        mode = p.stat().st_mode
    except OSError as exc:
        return f"could not be examined ({exc.strerror or exc})"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    return "not a regular file"


__all__ = [
    "FORMATS",
    "SUMMARY_ONLY",
    "NoSummary",
    "get_summarizer",
    "ReadOptions",
    "Unclaimed",
    "describe_formats",
    "detect",
    "discover",
    "explain",
    "get_reader",
]
