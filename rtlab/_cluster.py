"""Per-run work past one machine: a picklable function mapped over items on a Dask distributed cluster.

:func:`map_on_cluster` is the cluster's counterpart of mapping over :func:`rtlab._workers.process_pool`: it
connects to the scheduler at ``address`` (``tcp://HOST:PORT``, what ``dask scheduler`` prints, or a
:func:`local_cluster`'s), submits ``fn(item)`` for every item (``chunksize`` items per task, so that a
scheduler is not handed 100,000 tiny tasks), and yields a :class:`Mapped` for each item as its task
finishes, carrying the item's index. An item whose call raises, or whose task is lost with its worker
(Dask's ``KilledWorker`` after the scheduler's ``allowed-failures``; a lost chunk's items are tried again one
by one, so only the item that kills its worker fails), comes back as a failure (``error`` set) and the map goes
on. :func:`cluster_mapper` wraps it as the pluggable mapper of ``rtlab build`` (values, failures turned into the
caller's own failure record). A progress bar (tqdm, with ETA) counts the items.

``fn`` must be a top-level function (workers import it by name, as a process pool's do) and its results must
pickle. Inputs and outputs on object storage: items may be fsspec URLs, and :func:`as_local_path` gives a worker
a local path for one (a copy for a remote filesystem, the file itself for a local one), since rtlab's readers
read local files. Checked: ``file://`` URLs and plain paths on a cluster's workers; ``memory://`` only within
one process (each worker has its own memory filesystem, so it cannot carry data to a cluster). Object stores
(``s3://``, ``gs://``, ``abfs://``) go through the same fsspec calls but need their packages (s3fs, gcsfs,
adlfs) and credentials on every worker; they were not checked here (no network).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Mapped(Generic[R]):
    """The outcome of one item of :func:`map_on_cluster`."""

    index: int
    """The item's position in the items given."""
    value: R | None = None
    """What ``fn`` returned (``None`` on a failure)."""
    error: str | None = None
    """Why the item failed: the exception's type and message, or the lost worker; ``None`` when it did not."""
    detail: str | None = None
    """The traceback of a failed call, as the worker saw it."""

    @property
    def ok(self) -> bool:
        """The call returned."""
        return self.error is None


def _run_chunk(fn: Callable[[Any], Any], start: int, chunk: Sequence[Any]) -> list[Mapped[Any]]:
    """Run ``fn`` over one chunk in a worker, each item's failure caught and kept (the chunk goes on)."""
    out: list[Mapped[Any]] = []
    for i, item in enumerate(chunk, start):
        try:
            out.append(Mapped(i, fn(item)))
        except Exception as exc:  # reported per item; the map goes on
            out.append(Mapped(i, None, f"{type(exc).__name__}: {exc}", traceback.format_exc()))
    return out


MAX_CHUNK = 32
"""Most items per task when :func:`map_on_cluster` chooses (``chunksize=None``)."""
TASKS_PER_THREAD = 32
"""With ``chunksize=None``: items are cut so that each worker thread gets about this many tasks (a balance
between the scheduler's cost per task, about a millisecond, and an even spread at the end)."""


IN_FLIGHT_PER_THREAD = 4
"""With ``in_flight=None``: tasks submitted ahead per worker thread (enough to keep every worker busy)."""


def auto_chunksize(n_items: int, n_threads: int) -> int:
    """Items per task for ``n_items`` over ``n_threads`` worker threads: 1 for few items, at most
    :data:`MAX_CHUNK` (100,000 runs on 2 threads: 100000 // (2 * 32) = 1562, so 32)."""
    return max(1, min(MAX_CHUNK, n_items // max(1, n_threads * TASKS_PER_THREAD)))


def map_on_cluster(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    address: str,
    chunksize: int | None = None,
    progress: bool = False,
    desc: str = "cluster",
    timeout: float = 30.0,
    in_flight: int | None = None,
) -> Iterator[Mapped[R]]:
    """``fn(item)`` for every item on the Dask scheduler at ``address``, yielded as each finishes (any order).

    ``chunksize``: items per task (``None``: :func:`auto_chunksize` from the cluster's threads). ``timeout``:
    seconds to wait for the scheduler when connecting. ``in_flight``: most tasks submitted and not yet taken
    (``None``: :data:`IN_FLIGHT_PER_THREAD` per worker thread), so that results a slow consumer has not taken
    yet do not pile up in the workers' memory or this process's. A failed item is a :class:`Mapped` with ``error`` set,
    never an exception; an unreachable scheduler raises ``OSError``. Stopping early (``close`` on the
    generator) cancels what is left.
    """
    from distributed import Client, as_completed

    items = list(items)
    client = Client(address, timeout=timeout, set_as_default=False)
    futures: dict[Any, tuple[int, int]] = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=desc, unit="item")
    try:
        threads = sum(client.nthreads().values())
        if chunksize is None:
            chunksize = auto_chunksize(len(items), threads)
        chunksize = max(1, chunksize)
        window = max(2, in_flight or IN_FLIGHT_PER_THREAD * max(1, threads))
        chunks = iter(range(0, len(items), chunksize))
        done = as_completed([], loop=client.loop)

        def submit(start: int, n: int) -> None:
            future = client.submit(_run_chunk, fn, start, items[start : start + n], pure=False)
            futures[future] = (start, n)
            done.add(future)

        def top_up() -> None:  # at most `window` tasks submitted and not yet taken: memory stays bounded
            while len(futures) < window:
                start = next(chunks, None)
                if start is None:
                    return
                submit(start, min(chunksize, len(items) - start))

        top_up()
        for future in done:
            start, n = futures.pop(future)
            try:
                results = future.result()
            except Exception as exc:  # the task was lost: its worker died (every time it ran)
                results = []
                if n > 1:  # one item may have killed it: each again alone, so only that one fails
                    for i in range(start, start + n):
                        submit(i, 1)
                else:
                    results = [Mapped(start, None, f"{type(exc).__name__}: {exc}")]
            finally:
                future.release()
            top_up()
            for result in results:
                if bar is not None:
                    bar.update(1)
                yield result
    finally:
        if bar is not None:
            bar.close()
        if futures:
            client.cancel(list(futures))
        client.close()


def cluster_mapper(
    address: str,
    *,
    on_failure: Callable[[Any, Mapped[Any]], Any] | None = None,
    chunksize: int | None = None,
    progress: bool = False,
    desc: str = "cluster",
) -> Callable[[Callable[[Any], Any], Sequence[Any]], Iterator[Any]]:
    """A *mapper* ``(fn, items) -> results as they finish`` over :func:`map_on_cluster`, the shape of a local
    process pool's (``rtlab build``'s pluggable mapper): each item's value, and for a failed item
    ``on_failure(item, mapped)`` (the caller's own failure record, e.g. a run skipped with ``mapped.error``);
    without ``on_failure`` a failed item raises ``RuntimeError`` naming its index and error."""

    def mapper(fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[Any]:
        items = list(items)
        for m in map_on_cluster(
            fn, items, address=address, chunksize=chunksize, progress=progress, desc=desc
        ):
            if m.ok:
                yield m.value
            elif on_failure is not None:
                yield on_failure(items[m.index], m)
            else:
                raise RuntimeError(f"item {m.index} failed on the cluster: {m.error}")

    return mapper


@contextlib.contextmanager
def local_cluster(n_workers: int = 2, *, threads_per_worker: int = 1) -> Iterator[str]:
    """A Dask cluster of ``n_workers`` worker processes on 127.0.0.1 for the ``with`` block; yields its address
    (for tests, benchmarks, and a laptop that wants the cluster path). No dashboard is started."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=n_workers,
        threads_per_worker=threads_per_worker,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        yield cluster.scheduler_address


def is_local(url: str | os.PathLike[str]) -> bool:
    """Whether ``url`` names a local file (a plain path or ``file://``), which needs no copy."""
    text = os.fspath(url)
    return "://" not in text or text.startswith("file://")


@contextlib.contextmanager
def as_local_path(url: str | os.PathLike[str]) -> Iterator[Path]:
    """A local path for ``url`` during the ``with`` block: the file or folder itself when local (a plain path
    or ``file://``), else a temporary copy fetched with fsspec (a folder recursively), removed afterwards."""
    text = os.fspath(url)
    if is_local(text):
        yield Path(text.removeprefix("file://"))
        return
    import fsspec

    fs, path = fsspec.core.url_to_fs(text)
    with tempfile.TemporaryDirectory(prefix="rtlab-fetch-") as tmp:
        target = Path(tmp) / (Path(path.rstrip("/")).name or "item")
        if fs.isdir(path):
            fs.get(path.rstrip("/") + "/", str(target), recursive=True)
        else:
            fs.get(path, str(target))
        yield target
