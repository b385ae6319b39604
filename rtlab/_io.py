"""Atomic file writes: results and caches are replaced whole or not at all."""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

T = TypeVar("T")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_open(
    path: str | Path, mode: str = "w", encoding: str | None = "utf-8", *, private: bool = False
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success it replaces ``path``, on any error it is removed.

    The file gets the permissions a plain ``open`` would give (0666 less the umask), or owner-only (0600) when
    ``private``: for files holding what agents read in workspaces, which may be sensitive.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600 if private else 0o666 & ~_umask())
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cached_by_file(loader: Callable[[Path], T]) -> Callable[[str | Path], T]:
    """Memoise a one-file loader on the file's identity (resolved path, mtime, size).

    A batch joining thousands of runs to one task file parses it once; an edited file is read again. What
    it returns is shared between callers, so they must copy before they change anything.
    """

    @functools.lru_cache(maxsize=32)
    def cached(resolved: str, mtime_ns: int, size: int) -> T:
        return loader(Path(resolved))

    def load(path: str | Path) -> T:
        resolved = Path(path).resolve()
        st = resolved.stat()
        return cached(str(resolved), st.st_mtime_ns, st.st_size)

    return load
