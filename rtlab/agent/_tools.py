"""The workspace tools of direct workspace interaction: ``read``, ``bash``, ``write`` (OpenAI function definitions
and what running each one returns: the text logged, the text shown, its typed action and the harness's frames).

What the model is shown follows a named clip policy of :mod:`rtlab.ingest` (``Trajectory.clip_policy``), so a
reader of the run knows what was cut; where a policy cut an output, the span of its marker is a ``clip`` frame
(found as what lies between the longest common head and tail of the output and the text shown). The harness's
own words (an exit status, a timeout, a notice that more lines follow) are ``frame`` spans, after the output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtlab.agent._sandbox import MAX_OUTPUT_BYTES, Sandbox, SandboxError
from rtlab.environment import function_tool
from rtlab.ingest import ClipPolicy
from rtlab.records import Action, Frame

DEFAULT_CLIP = "openhands-v0"
"""The clip policy by default: an output over 30,000 characters loses its middle (a named :mod:`rtlab.ingest`
policy, so ``rtlab`` readers and the run's reader agree on what was shown)."""
DEFAULT_READ_LINES = 2000
"""Lines the ``read`` tool returns when no ``limit`` is given."""
MAX_WRITE_BYTES = 5_000_000
"""Largest file the ``write`` tool writes."""


function = function_tool
"""An OpenAI function-tool definition (:func:`rtlab.environment.function_tool`)."""


WORKSPACE_TOOLS: list[dict[str, Any]] = [
    function(
        "read",
        "Read a text file of the workspace: its lines from offset (1-based, default 1), at most limit lines "
        f"(default {DEFAULT_READ_LINES}). Paths are relative to the working directory.",
        {
            "path": {"type": "string", "description": "The file, relative to the working directory."},
            "offset": {"type": "integer", "description": "The first line to show (1-based)."},
            "limit": {"type": "integer", "description": "How many lines to show at most."},
        },
        ["path"],
    ),
    function(
        "bash",
        "Run a bash command line in the workspace (the working directory); stdout and stderr are returned. "
        "No network. python3 with openpyxl is available for spreadsheets.",
        {"command": {"type": "string", "description": "The command line."}},
        ["command"],
    ),
    function(
        "write",
        "Write a file (the deliverable) with the given content, replacing it if it exists; folders are made.",
        {
            "path": {"type": "string", "description": "The file, relative to the working directory."},
            "content": {"type": "string", "description": "The file's whole text."},
        },
        ["path", "content"],
    ),
]


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call as run: what is logged, what the model is shown, its typed action and frames."""

    output: str
    """The whole output with the harness's words (what the log keeps)."""
    shown: str
    """What the model is shown: the output as the clip policy left it, then the harness's words."""
    action: Action
    """What the call did (:class:`rtlab.records.Action`)."""
    frames: tuple[Frame, ...] = ()
    """Spans of ``shown`` that are the harness's words or clip markers."""
    is_error: bool = False
    """The call failed (bad arguments, a path outside the workspace, a non-zero exit status)."""
    exit_code: int | None = None
    """A command's exit status."""
    clipped: bool = False
    """The clip policy cut the output."""


def clip_frame(output: str, shown: str) -> Frame | None:
    """The span of ``shown`` a head-and-tail clip put in place of what it cut, or ``None`` when nothing was cut."""
    if shown == output:
        return None
    n = min(len(output), len(shown))
    head = 0
    while head < n and output[head] == shown[head]:
        head += 1
    tail = 0
    while tail < n - head and output[-1 - tail] == shown[-1 - tail]:
        tail += 1
    return Frame(head, max(head, len(shown) - tail), "clip")


def _outcome(
    body: str,
    notice: str,
    clip: ClipPolicy,
    action: Action,
    *,
    is_error: bool = False,
    exit_code: int | None = None,
) -> ToolOutcome:
    shown_body = clip.apply(body)
    frames: list[Frame] = []
    cut = clip_frame(body, shown_body)
    if cut is not None:
        frames.append(cut)
    if notice:
        frames.append(Frame(len(shown_body), len(shown_body) + len(notice), "frame"))
    return ToolOutcome(
        output=body + notice,
        shown=shown_body + notice,
        action=action,
        frames=tuple(frames),
        is_error=is_error,
        exit_code=exit_code,
        clipped=cut is not None,
    )


def error(text: str, action: Action) -> ToolOutcome:
    """A call refused by the harness: its reason is the harness's words, all of it a frame."""
    return ToolOutcome(text, text, action, (Frame(0, len(text), "frame"),), is_error=True)


def _int_arg(args: dict[str, Any], key: str) -> tuple[int | None, str | None]:
    value = args.get(key)
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None, f"{key} must be a positive integer"
    return value, None


def run_read(sandbox: Sandbox, args: dict[str, Any], clip: ClipPolicy) -> ToolOutcome:
    """The ``read`` tool: lines ``offset`` .. ``offset + limit - 1`` of a text file inside the workspace."""
    path = args.get("path")
    if not isinstance(path, str):
        return error("read: path must be a string.", Action.other("read"))
    offset, bad = _int_arg(args, "offset")
    limit, bad2 = _int_arg(args, "limit")
    action = Action.read(path, offset, limit)
    if bad or bad2:
        return error(f"read: {bad or bad2}.", action)
    try:
        real = sandbox.resolve(path)
    except SandboxError as exc:
        return error(f"read: {exc}.", action)
    if real.is_dir():
        return error(f"read: {path} is a folder; list it with bash (ls, find).", action)
    try:
        data = real.read_bytes()
    except OSError as exc:
        return error(f"read: cannot read {path}: {exc.strerror or exc}.", action)
    if b"\x00" in data[:8192]:
        return error(f"read: {path} is a binary file; use bash (python3 with openpyxl for .xlsx).", action)
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines(keepends=True)
    first = (offset or 1) - 1
    last = min(len(lines), first + (limit or DEFAULT_READ_LINES))
    body = "".join(lines[first:last])
    notice = ""
    if first >= len(lines) and lines:
        return error(f"read: offset {offset} is past the end of {path} ({len(lines)} lines).", action)
    if last < len(lines):
        notice = f"\n\n[Showing lines {first + 1}-{last} of {len(lines)}. Use offset={last + 1} to continue.]"
    return _outcome(body, notice, clip, action)


def run_bash(sandbox: Sandbox, args: dict[str, Any], clip: ClipPolicy) -> ToolOutcome:
    """The ``bash`` tool: the command line run in the sandbox; a non-zero exit or a timeout noted after it."""
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        return error("bash: command must be a non-empty string.", Action.other("bash"))
    action = Action.shell(command)
    result = sandbox.run(command)
    notice = ""
    if result.cut:
        notice = f"\n\n[output cut by the harness at {MAX_OUTPUT_BYTES} bytes]"
    if result.timed_out:
        notice += f"\n\nCommand timed out after {sandbox.timeout:g} s and was killed"
    elif result.exit_code != 0:
        notice += f"\n\nCommand exited with code {result.exit_code}"
    return _outcome(
        result.output, notice, clip, action, is_error=result.exit_code != 0, exit_code=result.exit_code
    )


def run_write(sandbox: Sandbox, args: dict[str, Any]) -> ToolOutcome:
    """The ``write`` tool: the file written (folders made) inside the workspace."""
    path, content = args.get("path"), args.get("content")
    if not isinstance(path, str):
        return error("write: path must be a string.", Action.other("write"))
    action = Action("write", path=path)
    if not isinstance(content, str):
        return error("write: content must be a string.", action)
    data = content.encode("utf-8", errors="replace")
    if len(data) > MAX_WRITE_BYTES:
        return error(f"write: {len(data)} bytes is more than the {MAX_WRITE_BYTES} a file may hold.", action)
    try:
        real = sandbox.resolve(path)
        real.parent.mkdir(parents=True, exist_ok=True)
        sandbox.resolve(path)  # the folders made may not lead out either
        if real.is_dir():
            return error(f"write: {path} is a folder.", action)
        real.write_bytes(data)
    except SandboxError as exc:
        return error(f"write: {exc}.", action)
    except OSError as exc:
        return error(f"write: cannot write {path}: {exc.strerror or exc}.", action)
    text = f"Successfully wrote {len(data)} bytes to {path}"
    return ToolOutcome(text, text, action, (Frame(0, len(text), "frame"),))
