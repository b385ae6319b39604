"""Worker processes that die with their parent, however it dies (``kill -9`` included).

A ``ProcessPoolExecutor`` worker outlives a parent killed with SIGKILL: nothing tells it, so it keeps
computing (and holding memory) for good. :func:`process_pool` gives every worker two guards:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (through ``ctypes``): the kernel kills the worker the moment
  its parent goes; the parent's pid is checked right after, for a parent that died before the call;
- everywhere, a daemon thread that watches ``os.getppid()`` and ends the worker (``os._exit``) once the parent
  it was started by is gone (the worker is re-parented), within :data:`WATCH_SECONDS`.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

WATCH_SECONDS = 1.0
"""How often a worker's watcher thread looks for its parent (where no kernel signal does it at once)."""

_PR_SET_PDEATHSIG = 1
_SIGKILL = 9


def _kernel_guard() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; whether it was set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(WATCH_SECONDS)


def die_with_parent(parent: int) -> None:
    """Make this process (a worker started by ``parent``) end when ``parent`` ends; a pool initializer."""
    _kernel_guard()
    if os.getppid() != parent:  # the parent died before the guard was set
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="rtlab-parent-watch", daemon=True).start()


def process_pool(max_workers: int, *, mp_context: Any = None) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` whose workers die with this process (:func:`die_with_parent`)."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(
        max_workers=max_workers, mp_context=mp_context, initializer=die_with_parent, initargs=(os.getpid(),)
    )
