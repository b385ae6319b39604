"""Why no reader claimed a file: the one explanation a folder scan gives for every file it did not read."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtlab.io import head_bytes, parse_json

_HEAD = 65536
_WHOLE_LIMIT = 64 * 1024 * 1024
"""Files up to this size are parsed whole to say what JSON they hold; larger ones are described from their head."""


@dataclass(frozen=True)
class Unclaimed:
    """A file (or folder) met in a scan that no reader claimed, and why."""

    path: str
    """The file or folder."""
    reason: str
    """What it holds, in a few words (``"not JSON"``, ``"JSON lines, but no known record type"``, ...)."""
    detail: str = ""
    """What was found, to help tell which format it might be (the first record's keys, the parse error)."""


def _keys(value: Any, limit: int = 6) -> str:
    if isinstance(value, dict):
        if isinstance(value.get("type"), str):
            return f"type {value['type']!r}, keys " + ", ".join(list(value)[:limit])
        names = list(value)[:limit]
        return "keys " + (", ".join(names) if names else "(none)") + (", ..." if len(value) > limit else "")
    return type(value).__name__


_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")
_PI_RECORDS = ("message", "model_change", "thinking_level_change", "compaction", "custom", "branch_summary")


def _hint(first: Any) -> str:
    """What a first record that almost matches a format lacks, said after its keys."""
    if not isinstance(first, dict):
        return ""
    role = first.get("role")
    if isinstance(role, str) and role not in _CHAT_ROLES and role.lower() in _CHAT_ROLES:
        return f"; role {role!r} is not a Chat Completions role ({'/'.join(_CHAT_ROLES)}: lower case)"
    if first.get("type") in _PI_RECORDS and "parentId" in first:
        return "; Pi session records without the session header ({'type': 'session', ...}) on the first line"
    return ""


def _hints(lines: list[str], limit: int = 50) -> str:
    """The first :func:`_hint` among the first ``limit`` records (a wrong role is rarely on the first line)."""
    for line in lines[:limit]:
        hint = _hint(_parse(line)[0])
        if hint:
            return hint
    return ""


def _parse(text: str) -> tuple[Any, str | None]:
    try:
        return parse_json(text), None
    except json.JSONDecodeError as exc:
        return None, f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        return None, "nested too deeply to parse"


def explain(path: Path) -> Unclaimed:
    """Say what ``path`` holds, for a file no reader claimed; never raises."""
    where = str(path)
    if path.is_dir():
        return Unclaimed(where, "a folder that could not be listed")
    try:
        size = path.stat().st_size
    except OSError as exc:
        return Unclaimed(where, "could not be read", exc.strerror or str(exc))
    if size == 0:
        return Unclaimed(where, "empty file")
    head = head_bytes(path, _HEAD)
    if not head:
        return Unclaimed(where, "could not be read")
    if head.startswith(b"PK\x03\x04"):
        return Unclaimed(where, "a zip archive that no reader knows")
    if b"\x00" in head:
        return Unclaimed(where, "binary, not text")
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # a character cut at the end of the head is fine
            return Unclaimed(where, "not UTF-8 text", f"byte {exc.start}")
        text = head[: exc.start].decode("utf-8")
    body = text.lstrip()
    if not body:
        return Unclaimed(where, "blank text")
    if body[0] not in "{[":
        return Unclaimed(where, "not JSON")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    first, _ = _parse(lines[0])
    if first is not None and len(lines) > 1:  # a whole JSON value on the first line, and more lines after it
        return Unclaimed(
            where, "JSON lines, but no known record type", "first record: " + _keys(first) + _hints(lines)
        )
    if size > _WHOLE_LIMIT:
        return Unclaimed(where, "JSON, but no known shape", f"not parsed whole ({size} bytes)")
    try:
        whole_text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return Unclaimed(where, "could not be read", str(exc))
    value, error = _parse(whole_text)
    if error is not None and error.startswith("Extra data") and error.endswith(", column 1)"):
        # one JSON value, then another from the start of a line: JSON lines (whose first line is longer than
        # the head), or pretty-printed records one after another
        first, _ = json.JSONDecoder().raw_decode(whole_text.lstrip("\ufeff \t\r\n"))
        kind = "JSON lines" if "(line 2, " in error else "JSON records one after another"
        return Unclaimed(where, f"{kind}, but no known record type", "first record: " + _keys(first))
    if error is not None:
        return Unclaimed(where, "looks like JSON, but does not parse", error)
    if isinstance(value, list):
        head_item = _keys(value[0]) if value else "empty"
        return Unclaimed(where, "a JSON array, but no known shape", f"{len(value)} items; first: {head_item}")
    return Unclaimed(where, "JSON, but no known shape", _keys(value))
