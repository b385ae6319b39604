"""Where the tab of each harness session lives: one folder per session id under a state folder, outside the
workspace, owner-only (folders 0700, files 0600).

A session's folder holds its **journal** (``events/00000001.json``, ...: what happened, in order, each event
written atomically as its own file) and a snapshot of the tab (``tab.json``: requirements, read log, ranked
candidates, the status line) rewritten atomically for people and tools to read, after every event but tool
results, and after every tenth of those (ranking every candidate on every step would cost more than the rest of
a hook: ``rtlab tab show`` rebuilds it from the journal). The journal is the state: a session is rebuilt by applying its events again to a new session object
(:class:`rtlab.harnesses._session.LiveSession`), so a restarted server or harness resumes its tab, and two
processes that serve one session (Codex's hook and its MCP server) see each other's events. Each use of a
session takes its folder's lock (``flock`` on ``lock``), reads the events it has not applied yet, applies
them, then applies and writes its own.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rtlab.errors import RtlabError
from rtlab.harnesses._names import STATE_ENV as STATE_ENV
from rtlab.harnesses._names import default_state_dir as default_state_dir
from rtlab.io import atomic_open

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_EVENT = re.compile(r"(\d{8})\.json")


def session_folder_name(session_id: str) -> str:
    """The folder of a session id: the id itself when it is a plain name (a UUID), else its sha256 (an id is
    never a path)."""
    if _SAFE_ID.fullmatch(session_id) and session_id not in (".", ".."):
        return session_id
    return "sha256-" + hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)


class SessionFiles:
    """One session's folder: its journal, its snapshot and its lock."""

    def __init__(self, root: Path, session_id: str) -> None:
        self.session_id = session_id
        self.path = root / "sessions" / session_folder_name(session_id)
        self.events_dir = self.path / "events"
        self.snapshot = self.path / "tab.json"

    def exists(self) -> bool:
        return self.events_dir.is_dir()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the session's lock (other processes serving the same session wait)."""
        _private_dir(self.path)
        _private_dir(self.events_dir)
        fd = os.open(self.path / "lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def event_numbers(self) -> list[int]:
        """The journal's event numbers, in order (1, 2, ...)."""
        if not self.events_dir.is_dir():
            return []
        return sorted(
            int(m.group(1)) for name in os.listdir(self.events_dir) if (m := _EVENT.fullmatch(name))
        )

    def read_events(self, after: int) -> list[tuple[int, dict[str, Any]]]:
        """The events numbered past ``after``; a damaged one raises naming its file."""
        events = []
        for n in self.event_numbers():
            if n <= after:
                continue
            path = self.events_dir / f"{n:08d}.json"
            try:
                event = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise RtlabError(f"{path}: the tab's journal event cannot be read ({exc})") from exc
            if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
                raise RtlabError(f"{path} [kind]: a journal event is an object with a 'kind'")
            events.append((n, event))
        return events

    def write_event(self, number: int, event: dict[str, Any]) -> None:
        text = json.dumps(event, ensure_ascii=False)  # encoded whole (the C encoder), then written
        with atomic_open(self.events_dir / f"{number:08d}.json", private=True) as f:
            f.write(text)

    def write_snapshot(self, snapshot: dict[str, Any]) -> None:
        text = json.dumps(snapshot, ensure_ascii=False)
        with atomic_open(self.snapshot, private=True) as f:
            f.write(text)


class SessionStore:
    """The state folder: every session's files under ``root/sessions/`` (created owner-only)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_state_dir()

    def session(self, session_id: str) -> SessionFiles:
        if not session_id:
            raise RtlabError("a harness session id is needed (the hook's session_id was empty)")
        _private_dir(self.root)
        _private_dir(self.root / "sessions")
        return SessionFiles(self.root, session_id)

    def session_ids(self) -> list[str]:
        """The ids of the sessions stored (each from its journal's first event; a folder without one is left
        out)."""
        folder = self.root / "sessions"
        ids = []
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            try:
                begin = json.loads((path / "events" / f"{1:08d}.json").read_text(encoding="utf-8"))
                ids.append(str(begin["session_id"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return ids
