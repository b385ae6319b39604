"""What every reader shares: the options it takes and safe, error-naming ways to read raw logs."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Literal

import orjson

from rtlab.ingest.readers._registry import ReadOptions  # noqa: E402  (re-exported)
from rtlab.io import field, parse_json_by, without_surrogates
from rtlab.records import Action, DeliverableFile, Event, Step, Trajectory

ReadFn = Callable[[Path, "ReadOptions"], list[Trajectory]]


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""The escape of a UTF-16 surrogate: text that is ASCII and holds none gives no lone surrogate when parsed."""


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
            value, by = parse_json_by(raw)
        except json.JSONDecodeError as exc:
            return {"_raw": raw}, f"arguments are not valid JSON: {exc.msg} (column {exc.colno})"
        except RecursionError:
            return {"_raw": raw}, "arguments are nested too deeply to parse"
        # only json's value may hold lone surrogates; of an ASCII text, the escape's pattern alone tells
        if by == "json" and (_SURROGATE_ESCAPE.search(raw) if raw.isascii() else "\\u" in raw):
            value = without_surrogates(value)[0]  # a lone "\udc80" no output file can hold
        if isinstance(value, dict):
            return value, None
        return {"_raw": raw}, f"arguments are JSON {type(value).__name__}, not an object"
    return {"_raw": raw}, f"arguments are {type(raw).__name__}, not an object"


def checked_field(obj: Any, key: str, kind: Any, path: Path, line: int | None, where: str = "") -> Any:
    """:func:`rtlab.io.field` (``obj[key]`` checked for type, else its error naming the field), at the cost of one
    lookup where ``obj`` is an object holding the field with its kind: for the fields read from every record."""
    if isinstance(obj, dict):
        value = obj.get(key)
        if isinstance(value, kind):
            return value
    return field(obj, key, kind, path, line, where)


def unparsed(args: dict[str, Any]) -> bool:
    """Whether ``args`` are arguments :func:`parse_arguments` kept raw (``{"_raw": text}``)."""
    return len(args) == 1 and "_raw" in args


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


def file_tool_command(
    tool: str,
    args: dict[str, Any],
    path: str | None,
    *,
    shell: Collection[str],
    read: Collection[str],
    write: Collection[str],
    edit: Collection[str] = (),
    window: tuple[int | None, int | None] = (None, None),
) -> str:
    """``Step.command`` for a harness whose tools are named sets (``path``: the call's file, as its reader finds
    it): a shell tool's ``command`` as it is, ``read PATH [OFFSET [LIMIT]]`` for a read tool (``window``: its
    offset and limit), ``write PATH``, ``edit PATH``, else ``tool {json args}`` (``tool RAW`` for arguments that
    were not JSON)."""
    if unparsed(args):
        return call_command(tool, args)
    if tool in shell and isinstance(args.get("command"), str):
        return str(args["command"])
    if path is not None:
        if tool in read:
            return read_command(path, *window)
        if tool in write:
            return f"write {path}"
        if tool in edit:
            return f"edit {path}"
    return call_command(tool, args)


_MCP_TAB = re.compile(r"mcp__[^_].*?__tab_(add|resolve|list|show)")


def mcp_tab_op(tool: str) -> str | None:
    """The tab operation (``add``, ``resolve``, ``list``, ``show``) of a tab tool reached through an MCP server
    (``rtlab tab serve``): ``mcp__<server>__tab_add`` as Claude Code and Codex name it; ``None`` otherwise."""
    m = _MCP_TAB.fullmatch(tool)
    return m.group(1) if m else None


def search_action(tool: str, pattern: str, files: list[str]) -> Action:
    """What a search did whose result names the files it matched in (under a heading per file, as Gemini CLI,
    OpenCode and Cline print them): matches in one file are a read of it, none a search for ``pattern``; matches
    in several are not typed (capture reads a search's lines as ``path:N:text`` only)."""
    if len(files) == 1:
        return Action.read(files[0])
    if not files:
        return Action("search", pattern=pattern)
    return Action.other(tool)


def tab_action(tool: str) -> Action | None:
    """The action of a call of one of the environment-side tab's tools (``tab_add``, ``tab_resolve``,
    ``tab_list``, ``tab_show``: named ``tab_<op>``, or ``mcp__<server>__tab_<op>`` through ``rtlab tab serve``,
    :func:`mcp_tab_op`), else ``None``: the one rule every tool-calling reader types a recorded tab run's tab
    calls by."""
    if tool.startswith("tab_") and len(tool) > 4:
        return Action("tab", op=tool[len("tab_") :])
    op = mcp_tab_op(tool)
    return Action("tab", op=op) if op is not None else None


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
"""``json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)``, made once (``dumps`` makes an
encoder a call); an encoder keeps no state between calls."""


def _orjson_writes_alike(value: Any) -> bool:
    """Whether ``value`` holds only objects, lists, strings, integers, booleans and nulls, which ``orjson.dumps``
    writes as :data:`_COMPACT` does (the same minimal escapes, non-ASCII kept: checked on every code point and
    on random values). A float (written otherwise: ``1e-05``, ``NaN``) or any other type leaves it to ``json``;
    what orjson refuses (integers past 64 bits, keys that are not strings, lone surrogates, deep nesting) it
    raises, and ``json`` writes it."""
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is str or kind is int or kind is bool or node is None:
            continue
        if kind is dict:
            stack.extend(node.values())
        elif kind is list:
            stack.extend(node)
        else:
            return False
    return True


def compact_json(value: Any) -> str:
    """JSON on one line, non-ASCII kept, for commands and texts rebuilt from structured values: ``json``'s text
    (:data:`_COMPACT`), written by orjson where that gives the same (a ``Write`` call's arguments with the
    whole file: 24 us by ``json``, 2 by orjson)."""
    if _orjson_writes_alike(value):
        try:
            return orjson.dumps(value).decode("utf-8")
        except orjson.JSONEncodeError:
            pass
    return _COMPACT.encode(value)


def call_command(tool: str, args: dict[str, Any]) -> str:
    """``tool {compact json args}`` for a call with no shell or file equivalent; ``tool RAW`` for unparsed args."""
    if unparsed(args):
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


def files_written_by_tools(
    steps: list[Step], tools: Collection[str], path_of: Callable[[dict[str, Any]], str | None]
) -> list[DeliverableFile]:
    """The files a run delivered through its write tools (``tools``; ``path_of`` finds a call's path in its
    arguments): for each path, the ``content`` of its last answered, successful call (a call whose content is not
    text gives the path alone), in the order the paths were first written."""
    files: dict[str, DeliverableFile] = {}
    for step in steps:
        path = path_of(step.args)
        if step.tool not in tools or path is None or not step.answered or step.is_error:
            continue
        content = step.args.get("content")
        files[path] = (
            deliverable_file(path, content.encode("utf-8", "surrogatepass"), origin="write_tool")
            if isinstance(content, str)
            else DeliverableFile(path=path, origin="write_tool")
        )
    return list(files.values())


def inside(path: Path, root: Path) -> bool:
    """Whether ``path``, every symbolic link on the way followed, is a regular file inside ``root`` (itself
    resolved): a reader reads a run's own files only, never through a link out of the run folder
    (``output/passwd.md -> /etc/passwd``), never a FIFO, never a link loop. A regular file directly in
    ``root`` that is no link is inside it by what it is (its real place is the root's own): told by one
    ``lstat``, with no path resolved."""
    if path.parent == root:
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                return True
        except (OSError, ValueError):
            pass  # missing, unreadable or a NUL in its name: as the full check says
    return _real_inside(path, None, _resolved(root)) is not None


def _resolved(folder: Path) -> Path | None:
    """``folder`` with every link on the way followed, or ``None`` when it is not there (or in a loop)."""
    try:
        return folder.resolve(strict=True)
    except (OSError, ValueError, RuntimeError):  # missing, a NUL in its name, a loop (3.11, 3.12)
        return None


def read_inside(
    path: Path, root: Path, warnings: list[str] | None = None, *, checked: bool = False
) -> bytes | None:
    """The bytes of a run's own file, or ``None`` when it is missing or not :func:`inside` ``root`` (said in
    ``warnings`` when it exists but leads out of the run folder or is not a regular file). ``checked``: the
    file is one :func:`run_files` has just found inside ``root``, not checked again."""
    if not checked and not inside(path, root):
        if warnings is not None and (path.is_symlink() or path.exists()):
            warnings.append(f"{path}: not read (a link out of the run folder, a loop, or not a regular file)")
        return None
    try:
        return path.read_bytes()
    except OSError as exc:
        if warnings is not None:
            warnings.append(f"{path}: not read ({exc.strerror or exc})")
        return None


def run_files(folder: Path, root: Path, warnings: list[str] | None = None) -> list[Path]:
    """Every regular file under ``folder``, sorted, that is :func:`inside` ``root``: links leading out of the
    run folder (or in a loop) are left out and said in ``warnings``; linked folders are not descended into."""
    return [path for path, _ in located_run_files(folder, root, warnings)]


def located_run_files(folder: Path, root: Path, warnings: list[str] | None = None) -> list[tuple[Path, Path]]:
    """:func:`run_files`, each with its real location (every link followed).

    The run folder and each folder walked are resolved once: a file that is no link is where its folder
    really is, and only a link is followed to its end (as :func:`inside` does)."""
    real_root = _resolved(root)
    found: list[tuple[Path, Path]] = []
    for base, dirs, names in os.walk(folder, followlinks=False):
        dirs.sort()
        here = Path(base)
        for name in dirs:
            if warnings is not None and (here / name).is_symlink():
                warnings.append(f"{here / name}: a linked folder, not read")
        real_here = _resolved(here)
        for name in names:
            p = here / name
            real = _real_inside(p, real_here, real_root)
            if real is not None:
                found.append((p, real))
            elif warnings is not None:
                warnings.append(
                    f"{p}: not read (a link out of the run folder, a loop, or not a regular file)"
                )
    return sorted(found)


def _real_inside(path: Path, real_folder: Path | None, real_root: Path | None) -> Path | None:
    """The rule of :func:`inside`, for a file of a folder whose real location is ``real_folder`` (``None``:
    unknown), the run folder resolved already (``real_root``; ``None``: it is not there, so nothing is
    inside it): the file's real location when it is a regular file inside the run folder, else ``None``. A
    file that is no link is where its folder really is; a link is followed to its end."""
    if real_root is None:
        return None  # no file is inside a run folder that is not there
    try:
        if real_folder is not None and not stat.S_ISLNK(mode := os.lstat(path).st_mode):
            real = real_folder / path.name
        else:
            real = path.resolve(strict=True)
            mode = real.stat().st_mode
        real.relative_to(real_root)
    except (OSError, ValueError, RuntimeError):  # missing, a loop (RuntimeError before 3.13), outside
        return None
    return real if stat.S_ISREG(mode) else None


def typed(type_step: Callable[[Step], None]) -> Callable[[ReadFn], ReadFn]:
    """Decorate a reader's ``read`` so that every step it returns carries its typed action and frames, and
    what it read fulfils the tolerant reading contract: ``type_step(step)`` sets :attr:`Step.action` and
    :attr:`Step.frames` from the step as read (tool, arguments, shown text), for every step that has no action
    yet; then :func:`~rtlab.ingest.readers._tolerant.settle` types the reader's warnings, says when the file
    held no tool call and applies ``options.strict``."""
    from rtlab.ingest.readers._tolerant import settle

    def wrap(read: ReadFn) -> ReadFn:
        @functools.wraps(read)
        def typed_read(path: Path, options: ReadOptions) -> list[Trajectory]:
            fmt = getattr(sys.modules.get(read.__module__), "NAME", None)
            found = read(path, options)
            for t in found:
                for step in t.steps:
                    if step.action is None:
                        type_step(step)
            settle(found, path if isinstance(path, Path) else Path(path), fmt, options)
            return found

        return typed_read

    return wrap


def submission_event(
    steps: list[Step], events: list[Event], step: Step, output: str | None, **data: Any
) -> Event:
    """The one rule of what a step is (docs/ARCHITECTURE.md): a call whose result the model never received (a
    final submission that ended the run) is not an answered step. ``step`` leaves ``steps`` (the later ones
    renumbered) and becomes an ``other`` event in its place on the timeline (its ``seq``), holding its
    command, tool, call id and ``output`` (``data["submission"]``); the event is appended to ``events``."""
    steps.remove(step)
    for k, later in enumerate(steps):
        later.index = k
    ev = Event(
        kind="other",
        text=step.command,
        role="assistant",
        seq=step.seq,
        timestamp=step.started_at,
        line=step.line,
        data={"submission": True, "tool": step.tool, "call_id": step.call_id, "output": output, **data},
    )
    events.append(ev)
    return ev
