"""What every reader shares: the options it takes and safe, error-naming ways to read raw logs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from rtlab.errors import ReaderError
from rtlab.model import DeliverableFile, Trajectory


@dataclass(frozen=True)
class ReadOptions:
    """Choices a user can make when reading logs."""

    clip: str | None = None
    """Name of a clipping policy (see :mod:`rtlab.clipping`) to use instead of the reader's default."""


class ReaderModule(Protocol):
    """The contract each ``rtlab.readers.<name>`` module fulfils."""

    NAME: str
    """Format name, as ``--format`` takes it."""
    LOOKS_FOR: str
    """One line saying what detection looks for, shown when nothing matches."""

    def sniff(self, path: Path) -> bool:
        """Cheap check: does this reader handle ``path`` (a file or a run folder)?"""
        ...

    def read(self, path: Path, options: ReadOptions) -> list[Trajectory]:
        """Parse ``path`` into trajectories; raise :class:`ReaderError` naming file, line and field."""
        ...


def read_text(path: Path) -> str:
    """A whole file as text; bytes that are not UTF-8 raise :class:`ReaderError` with their line."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReaderError(path, f"not valid UTF-8 (byte offset {exc.start})", line=line) from None


def head_bytes(path: Path, n: int = 4096) -> bytes:
    """The first ``n`` bytes of a file, or ``b""`` when it cannot be read (for sniffing)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError:
        return b""


def first_json_line(path: Path, n: int = 65536) -> Any:
    """The first line of a file parsed as JSON, or ``None`` (for sniffing JSONL formats)."""
    head = head_bytes(path, n)
    line = head.split(b"\n", 1)[0].strip()
    if not line:
        return None
    try:
        return json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def iter_json_lines(path: Path, warnings: list[str] | None = None) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each non-blank line of a JSONL file.

    A line that is not JSON raises :class:`ReaderError` naming it, except an unterminated last line (a log
    cut off mid-write): that one is skipped and reported in ``warnings`` when a list is given.
    """
    text = read_text(path)
    lines = text.split("\n")
    last = len(lines)
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            if lineno == last and warnings is not None:
                warnings.append(f"{path}:{lineno}: last line is not complete JSON (log cut off?); skipped")
                continue
            raise ReaderError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=lineno) from None


def load_json(path: Path) -> Any:
    """A whole JSON file; malformed JSON raises :class:`ReaderError` with line and column."""
    text = read_text(path)
    if not text.strip():
        raise ReaderError(path, "file is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReaderError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None


def field(obj: Any, key: str, kind: Any, path: Path, line: int | None, where: str = "") -> Any:
    """``obj[key]`` checked for type; a missing or mistyped field raises :class:`ReaderError` naming it."""
    name = f"{where}.{key}" if where else key
    if not isinstance(obj, dict):
        raise ReaderError(
            path, f"expected an object, got {type(obj).__name__}", line=line, field=where or None
        )
    if key not in obj:
        raise ReaderError(path, "missing field", line=line, field=name)
    value = obj[key]
    if not isinstance(value, kind):
        parts = kind if isinstance(kind, tuple) else getattr(kind, "__args__", (kind,))
        want = " or ".join(getattr(k, "__name__", str(k)) for k in parts)
        raise ReaderError(path, f"expected {want}, got {type(value).__name__}", line=line, field=name)
    return value


def parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as a dict, whether logged as an object or a JSON string; invalid JSON is kept raw.

    Returns ``(args, error)``: for unparseable text, ``({"_raw": text}, reason)``.
    """
    if raw is None:
        return {}, None
    if isinstance(raw, dict):
        return raw, None
    if isinstance(raw, str):
        if not raw.strip():
            return {}, None
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            return {"_raw": raw}, f"arguments are not valid JSON: {exc.msg} (column {exc.colno})"
        if isinstance(value, dict):
            return value, None
        return {"_raw": raw}, f"arguments are JSON {type(value).__name__}, not an object"
    return {"_raw": raw}, f"arguments are {type(raw).__name__}, not an object"


# ---------------------------------------------------------------------------------------------------------
# The one definition of Step.command for non-shell tools, and of a delivered file's facts


def read_command(path: str, offset: int | None = None, limit: int | None = None) -> str:
    """``read PATH [OFFSET [LIMIT]]``: OFFSET is the 1-based first line, LIMIT the number of lines.

    A limit without an offset starts at line 1. Capture parses this form back, so every reader uses it.
    """
    parts = ["read", path]
    if offset is not None or limit is not None:
        parts.append(str(offset if offset is not None else 1))
    if limit is not None:
        parts.append(str(limit))
    return " ".join(parts)


def compact_json(value: Any) -> str:
    """JSON on one line, non-ASCII kept, for commands and texts rebuilt from structured values."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def call_command(tool: str, args: dict[str, Any]) -> str:
    """``tool {compact json args}`` for a call with no shell or file equivalent; ``tool RAW`` for unparsed args."""
    if set(args) == {"_raw"}:
        return f"{tool} {args['_raw']}"
    if not args:
        return tool
    return f"{tool} {compact_json(args)}"


def deliverable_file(
    path: str,
    data: bytes,
    *,
    origin: Literal["output_dir", "write_tool", "listed"],
    local_path: str | None = None,
) -> DeliverableFile:
    """A delivered file's facts from its bytes: text content when it is UTF-8 text (no NUL), size, sha256."""
    content: str | None = None
    if b"\x00" not in data:
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError:
            content = None
    return DeliverableFile(
        path=path,
        local_path=local_path,
        content=content,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        origin=origin,
    )
