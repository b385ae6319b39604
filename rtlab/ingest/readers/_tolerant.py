"""Reading raw logs record by record without losing the file to one bad record.

The readers of Gemini CLI, Cline, OpenCode and OpenTelemetry exports read this way: a line that is not JSON (a
stderr line a harness printed into its stream, a record cut off by a crash) or a value nested too deeply is
skipped and said through the reader's ``note(line, reason)``; the rest of the file is read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.io import loads

Note = Callable[[int | None, str], None]
"""How a reader hears of a record it skipped or repaired: ``note(line, reason)`` (line 1-based, or ``None``)."""


def text_of(path: Path, note: Note) -> str:
    """A file's text; bytes that are not UTF-8 are replaced by U+FFFD and said (with the first one's line)."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        note(data.count(b"\n", 0, exc.start) + 1, "bytes that are not UTF-8 were replaced by U+FFFD")
        text = data.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff")


def json_lines(path: Path, note: Note, text: str | None = None) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` for every non-blank line of a JSON-lines file that is JSON; a line that is not (or is
    nested too deeply) is skipped and said, a last line cut off as such."""
    lines = (text_of(path, note) if text is None else text).split("\n")
    last = max((i for i, ln in enumerate(lines, 1) if ln.strip()), default=0)
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        found: list[str] = []
        try:
            value = loads(raw, path, lineno, found)
        except json.JSONDecodeError as exc:
            cut = " (the log cut off?)" if lineno == last else ""
            note(lineno, f"not a JSON record{cut}: {exc.msg} (column {exc.colno}); skipped")
            continue
        except ReaderError as exc:
            note(lineno, f"{exc.message}; skipped")
            continue
        for warning in found:
            note(lineno, warning.split(": ", 1)[-1])
        yield lineno, value


def json_document(path: Path, note: Note) -> Any:
    """A whole JSON file's value, or ``None`` (said) when it is not JSON."""
    text = text_of(path, note)
    if not text.strip():
        note(None, "the file is empty")
        return None
    found: list[str] = []
    try:
        value = loads(text, path, None, found)
    except json.JSONDecodeError as exc:
        note(exc.lineno, f"not JSON: {exc.msg} (column {exc.colno})")
        return None
    except ReaderError as exc:
        note(None, exc.message)
        return None
    for warning in found:
        note(None, warning.split(": ", 1)[-1])
    return value


def first_values(path: Path, n: int = 20, budget: int = 65536) -> list[Any]:
    """For sniffing: the JSON values of the first ``n`` lines that parse among the first ``budget`` bytes
    (lines that do not parse, a cut last line, are passed over)."""
    try:
        if not path.is_file():
            return []
        with open(path, "rb") as fh:
            data = fh.read(budget)
    except OSError:
        return []
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    if len(data) == budget:
        lines = lines[:-1]
    out: list[Any] = []
    for raw in lines:
        if len(out) >= n:
            break
        if not raw.strip():
            continue
        try:
            out.append(json.loads(raw))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            continue
    return out
