"""Reader for G2B-Skill (SkillGrad) executor logs: ``exec_r<N>.jsonl`` beside ``output.txt``.

Format, as ``runners/trajectory_logger.py`` of littleQ235566673333/G2B-Skill @ 806fd261 writes it: one JSON
object per line, ``{"step", "timestamp", "event", "agent", "content"}``, appended as the OpenAI Agents SDK
stream yields items (``stream_with_logging``). Events: ``tool_call`` (``content.tool``, ``content.arguments``
as the JSON string the model sent), ``tool_output`` (``content.tool``, ``content.output`` = ``str(output)``),
``message`` / ``reasoning`` (``content.text``) and ``log_meta`` events from agent ``system`` (``phase``;
the post-processors also know ``query``, ``run_complete``, ``skills_discovered``, ``agent_created``,
``iteration_start``, ``feedback``).

Pairing. The log keeps no call ids: the logger maps the SDK's ``call_id`` to the tool name and then drops
it (an output whose id it never saw is labelled with the raw id). The SDK runs a turn's calls concurrently and
emits all calls first, then the outputs in call order (the one parallel pair in the real runs, two
``read_reference`` calls, shows exactly that), so each ``tool_output`` is paired with the **earliest pending
``tool_call`` of the same tool name**; an output whose name matches no pending call falls
back to the earliest pending call of any name, with a warning. ``Step.call_id`` stays ``None``.

Tools (``pipeline/executor.py``): ``shell`` runs each of ``commands`` in turn, each in the project root, and
returns per command ``Command: CMD\\n[stdout:\\n..\\n][stderr:\\n..\\n]exit_code: N`` joined by blank lines; a
timeout or an exception ends the list with ``Command: CMD\\nError: ...``. ``Step.command`` is the commands
joined by newlines; ``exit_code`` is that of the first failing command, else of the last one; ``is_error``
is true when any command failed, timed out or raised. ``read_file`` / ``read_reference`` become
``read PATH``, ``write_file`` ``write PATH`` (its content is a deliverable with origin ``write_tool``),
``activate_skill`` and others ``tool {json}``.

Clipping: no G2B tool shortens what it returns except the retired ``grep_files`` (10,000 characters, then
``...(truncated)``, already applied in the log), and the logger stores ``str(output)``, the string the SDK
sends back unchanged as the ``function_call_output`` (openai-agents-python ``ItemHelpers.tool_call_output_item``);
so the default policy is ``none`` and ``shown == output``. The 500-character cuts in ``format_trajectory``
and ``build_execution_trace`` only affect derived traces for other agents, not this log.

What the log does not hold: the model (the run scripts pass it, e.g. ``MODEL = "gpt-5.4"``), the task string,
token usage. The project root (``cwd``) is read from a ``write_file`` result, which names the absolute path it
wrote, or else inferred from the ``<skill_dir>`` of ``activate_skill`` and the ``.../sources`` folder the
commands use (``meta["cwd_from"]`` says which).
"""

from __future__ import annotations

import re
from collections import Counter, deque
from dataclasses import dataclass
from dataclasses import field as member
from pathlib import Path
from typing import Any, TypedDict

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import ClipPolicy, get_policy
from rtlab.ingest.readers._base import (
    ReadOptions,
    call_command,
    compact_json,
    deliverable_file,
    parse_arguments,
    read_command,
    read_inside,
    typed,
)
from rtlab.ingest.readers._frames import command_parts, listed_commands, output_frames, read_tool_reply, whole
from rtlab.ingest.readers._registry import FileFacts, FileShape
from rtlab.ingest.readers._tolerant import record
from rtlab.io import field, head_json_lines, iter_json_lines
from rtlab.records import Action, Deliverable, DeliverableFile, Event, EventKind, Frame, Step, Trajectory

NAME = "g2b"
FILE_SHAPE: FileShape = "json-lines"
"""A file this reader is given (not a folder) is read by ``rtlab.io.iter_json_lines`` alone, its refusal let
out: a file that iterator refuses holds no step for it (``_registry.FileShape``)."""

LOOKS_FOR = (
    "a run folder with exec_*.jsonl, or such a file, whose first line is {step, timestamp, event, agent, "
    "content} with a G2B event name (phase, tool_call, ...)"
)
HARNESS = "g2b-skill"
DEFAULT_CLIP = "none"

RECORD_KEYS = frozenset({"step", "timestamp", "event", "agent", "content"})
META_EVENTS = frozenset(
    {"phase", "query", "run_complete", "skills_discovered", "agent_created", "iteration_start", "feedback"}
)
KNOWN_EVENTS = frozenset({"tool_call", "tool_output", "message", "reasoning"}) | META_EVENTS

TRUNCATION_NOTICES: dict[str, str] = {"grep_files": "\n...(truncated)"}
"""Notices a G2B tool appends when it shortened its own result (already applied in the log)."""

SDK_ERROR_PREFIX = "An error occurred while running the tool."
"""Agents SDK's default failure text for a ``@function_tool`` that raised."""

ERROR_PREFIXES: dict[str, tuple[str, ...]] = {
    "activate_skill": ('Error: Skill "',),
    "read_reference": ("Error: ", "Error reading reference: ", "Error stat-ing file: "),
    "read_file": ("Error: file '", "Error: '", "Error reading file: "),
    "write_file": ("Error writing file: ",),
    "glob_files": ("Error in glob: ",),
    "grep_files": ("Error: grep timed out", "Error in grep: "),
}
"""How each G2B tool words a failure at the start of its result (``pipeline/executor.py``)."""

PATH_TOOLS = frozenset({"shell", "read_file", "write_file", "glob_files", "grep_files"})
"""Tools that resolve relative paths against the project root."""

_EXEC_NAME = re.compile(r"exec_r?(\d+)?.*\.jsonl$")
_RUN_FOLDER = re.compile(r"^(?P<prefix>.+?)__(?P<task>[^_]+)(?:_(?P<run>s\d+))?$")
_SOURCES = re.compile(r"(?<![\w.-])(/?(?:[\w.-]+/)+sources)(?![\w.-])")
"""A path ending in a ``sources`` folder; it starts where a word does (a start inside a run of word
characters would rescan the run: quadratic on a megabyte of them). Run by :func:`_sources_paths` over the
runs of path characters that hold the word only."""
_PATH_CHARS = re.compile(r"[\w./-]*")
"""A run of the characters a :data:`_SOURCES` match is made of (possibly empty)."""
_SKILL_DIR = re.compile(r'<activated_skill name="([^"]*)">\s*<skill_dir>([^<]*)</skill_dir>')
_EXIT_CODE = "exit_code: "
_EXIT_NUMBER = re.compile(r"-?\d+")
"""The end of one command's part of a shell result: ``exit_code: N`` (:func:`_segment_exit`)."""
_WROTE = re.compile(r"^Successfully wrote \d+ characters to (.+)$")


# ---------------------------------------------------------------------------------------------------------
# Detection


def _looks_like_record(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and RECORD_KEYS <= obj.keys()
        and obj.get("event") in KNOWN_EVENTS
        and isinstance(obj.get("content"), dict)
    )


def _round_of(path: Path) -> int:
    m = _EXEC_NAME.match(path.name)
    return int(m.group(1)) if m and m.group(1) else 0


def exec_files(folder: Path) -> list[Path]:
    """The ``exec_*.jsonl`` logs directly in ``folder``, in round order (r0, r1, ..., r10)."""
    return sorted(
        (p for p in folder.glob("exec_*.jsonl") if p.is_file()), key=lambda p: (_round_of(p), p.name)
    )


def sniff(path: Path) -> bool:
    """A G2B exec log, or a folder holding one, judged by the first record's keys and event name."""
    try:
        if path.is_dir():
            files = exec_files(path)
            return bool(files) and _head_is_record(files[0])
        return path.suffix == ".jsonl" and path.is_file() and _head_is_record(path)
    except OSError:
        return False


def _head_is_record(path: Path) -> bool:
    """The first record (lines that are not JSON passed over) is a G2B event."""
    head = head_json_lines(path, 5)
    return bool(head) and _looks_like_record(head[0])


# ---------------------------------------------------------------------------------------------------------
# Tool results


def shell_results(commands: list[str], output: str) -> list[tuple[str, int | None]]:
    """Per command ``(status, exit_code)`` with status ``exit``, ``timeout``, ``error`` or ``unparsed``.

    Walks the output with the known command texts and checks each part's shape, backtracking when a
    command's stdout happens to contain the next command's header.
    """
    results = _segments(commands, output, 0, 0) if commands else None
    if results is not None:
        return results
    m = re.search(r"(?:^|\n)exit_code: (-?\d+)$", output)
    return [("exit", int(m.group(1))) if m else ("unparsed", None)]


def _segments(commands: list[str], output: str, i: int, pos: int) -> list[tuple[str, int | None]] | None:
    header = f"Command: {commands[i]}\n"
    if not output.startswith(header, pos):
        return None
    body = pos + len(header)
    if i + 1 < len(commands):
        next_header = f"Command: {commands[i + 1]}\n"
        for m in re.finditer(r"exit_code: (-?\d+)\n\n" + re.escape(next_header), output[body:]):
            code_end = body + m.start() + len(m.group(0)) - len(next_header) - 2
            if _segment_exit(output, body, code_end) is None:
                continue
            rest = _segments(commands, output, i + 1, code_end + 2)
            if rest is not None:
                return [("exit", int(m.group(1))), *rest]
    last = _last_segment(output, body)
    return [last] if last[0] != "unparsed" else None


def _segment_exit(output: str, start: int, end: int | None = None) -> int | None:
    """The exit code of one command's part of a shell result after its ``Command:`` line, ``output[start:end]``,
    when the part is ``[stdout:\\n...\\n][stderr:\\n...\\n]exit_code: N`` (``pipeline/executor.py``); else
    ``None``. What a command printed may hold anything (a ``stderr:`` line too), so only the part's ends
    decide, without a scan of the output between: it ends in ``exit_code: N`` (the last ``exit_code: ``, a
    number after it to the end), and what precedes that is nothing, or opens with a ``stdout:`` or ``stderr:``
    line and ends in a newline of its own."""
    end = len(output) if end is None else end
    at = output.rfind(_EXIT_CODE, start, end)
    if at < 0:
        return None
    number = _EXIT_NUMBER.fullmatch(output, at + len(_EXIT_CODE), end)
    if number is None:
        return None
    if at > start and not (
        at - start > len("stdout:\n")
        and output.startswith(("stdout:\n", "stderr:\n"), start)
        and output[at - 1] == "\n"
    ):
        return None
    return int(number.group())


def _last_segment(output: str, start: int) -> tuple[str, int | None]:
    """``(status, exit_code)`` of the last command's part of a shell result, from ``output[start]`` on."""
    code = _segment_exit(output, start)
    if code is not None:
        return "exit", code
    if output.startswith("Error: timed out after", start):
        return "timeout", None
    if output.startswith("Error: ", start):
        return "error", None
    return "unparsed", None


def shell_outcome(commands: list[str], output: str) -> tuple[int | None, bool]:
    """``(exit_code, is_error)`` of a shell call: first failing command's code, else the last command's."""
    if not commands and output == "No output":
        return None, False
    results = shell_results(commands, output)
    failed = [r for r in results if r[0] in ("timeout", "error") or (r[0] == "exit" and r[1] != 0)]
    code = failed[0][1] if failed else results[-1][1]
    return code, bool(failed)


def tool_is_error(tool: str, output: str) -> bool:
    """Whether a non-shell G2B tool reported a failure, by the wording its handler uses."""
    return output.startswith(SDK_ERROR_PREFIX) or output.startswith(ERROR_PREFIXES.get(tool, ()))


def _commands(args: dict[str, Any]) -> list[str] | None:
    cmds = args.get("commands")
    if isinstance(cmds, str):
        return [cmds]
    if isinstance(cmds, list) and all(isinstance(c, str) for c in cmds):
        return cmds
    return None


def command_for(tool: str, args: dict[str, Any], skill_dirs: dict[str, str]) -> str:
    """``Step.command``: shell text, ``read PATH``, ``write PATH`` or ``tool {json args}``."""
    cmds = _commands(args) if tool == "shell" else None
    if cmds is not None:
        return "\n".join(cmds)
    if tool == "read_file" and isinstance(args.get("file_path"), str):
        return read_command(args["file_path"])
    if tool == "read_reference" and isinstance(args.get("ref_path"), str):
        base = skill_dirs.get(str(args.get("skill_name", "")).lower())
        return read_command(f"{base}/{args['ref_path']}" if base else args["ref_path"])
    if tool == "write_file" and isinstance(args.get("file_path"), str):
        return f"write {args['file_path']}"
    return call_command(tool, args)


# ---------------------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Run:
    """What accumulates while one exec log is read."""

    path: Path
    steps: list[Step] = member(default_factory=list)
    events: list[Event] = member(default_factory=list)
    pending: dict[str, deque[Step]] = member(default_factory=dict)
    skill_dirs: dict[str, str] = member(default_factory=dict)
    agents: Counter[str] = member(default_factory=Counter)
    warnings: list[str] = member(default_factory=list)
    seq: int = 0

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq - 1

    def earliest_pending(self, tool: str) -> Step | None:
        queue = self.pending.get(tool)
        if queue:
            return queue.popleft()
        waiting = [q[0] for q in self.pending.values() if q]
        if not waiting:
            return None
        step = min(waiting, key=lambda s: s.index)
        self.pending[step.tool].popleft()
        return step


def _optional_str(obj: dict[str, Any], key: str, path: Path, line: int) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ReaderError(path, f"expected str, got {type(value).__name__}", line=line, field=key)
    return value


def _on_call(run: _Run, content: dict[str, Any], ts: str | None, line: int) -> None:
    tool = field(content, "tool", str, run.path, line, "content")
    raw = field(content, "arguments", object, run.path, line, "content")
    args, err = parse_arguments(raw)
    step = Step(
        index=len(run.steps),
        tool=tool,
        command=command_for(tool, args, run.skill_dirs),
        args=args,
        args_error=err,
        started_at=ts,
        seq=run.next_seq(),
        line=line,
    )
    run.steps.append(step)
    run.pending.setdefault(tool, deque()).append(step)


def _on_output(run: _Run, content: dict[str, Any], ts: str | None, line: int, clip: ClipPolicy) -> None:
    tool = field(content, "tool", str, run.path, line, "content")
    output = field(content, "output", str, run.path, line, "content")
    step = run.earliest_pending(tool)
    if step is None:
        run.warnings.append(f"{run.path}:{line}: tool_output of {tool!r} with no pending call; kept as event")
        data = {"event": "tool_output", "tool": tool}
        run.events.append(Event("other", output, "tool", run.next_seq(), ts, line, data))
        return
    if step.tool != tool:
        run.warnings.append(
            f"{run.path}:{line}: tool_output of {tool!r} matched no pending call of that name; "
            f"paired with the earliest pending call ({step.tool!r}, line {step.line})"
        )
    step.output, step.ended_at = output, ts
    step.shown = clip.apply(output)
    notice = TRUNCATION_NOTICES.get(step.tool)
    step.clipped = len(step.shown) < len(output) or bool(notice and output.endswith(notice))
    if step.tool == "shell" and (cmds := _commands(step.args)) is not None:
        step.exit_code, step.is_error = shell_outcome(cmds, output)
    else:
        step.is_error = tool_is_error(step.tool, output)
    if step.tool == "activate_skill" and (m := _SKILL_DIR.search(output)):
        run.skill_dirs[m.group(1).lower()] = m.group(2).strip()


def _on_event(
    run: _Run, event: str, agent: str | None, content: dict[str, Any], ts: str | None, line: int
) -> None:
    if event in ("message", "reasoning"):
        text = field(content, "text", str, run.path, line, "content")
        kind: EventKind = "message" if event == "message" else "reasoning"
        run.events.append(Event(kind, text, "assistant", run.next_seq(), ts, line))
        return
    if event == "phase":
        text = field(content, "phase", str, run.path, line, "content")
    else:
        text = compact_json(content)
    if event not in KNOWN_EVENTS:
        run.warnings.append(f"{run.path}:{line}: unknown event {event!r} kept as an 'other' event")
    kind = "system" if event in META_EVENTS else "other"
    role = "system" if agent == "system" else None
    run.events.append(Event(kind, text, role, run.next_seq(), ts, line, {"event": event, **content}))


def _parse(path: Path, clip: ClipPolicy) -> tuple[_Run, list[str | None]]:
    run = _Run(path)
    stamps: list[str | None] = []
    faults: list[BaseException] = []
    for line, obj in iter_json_lines(path, run.warnings):
        with record(run.warnings, path, line, "event", faults):
            event = field(obj, "event", str, path, line)
            content = field(obj, "content", dict, path, line)
            ts = _optional_str(obj, "timestamp", path, line)
            agent = _optional_str(obj, "agent", path, line)
            stamps.append(ts)
            if agent:
                run.agents[agent] += 1
            if event == "tool_call":
                _on_call(run, content, ts, line)
            elif event == "tool_output":
                _on_output(run, content, ts, line, clip)
            else:
                _on_event(run, event, agent, content, ts, line)
    if not stamps and faults:  # events there, none understood: the first one's fault
        raise faults[0]
    if not stamps:
        raise ReaderError(path, "file is empty (no events)")
    cut = sum(len(q) for q in run.pending.values())
    if cut:
        run.warnings.append(f"{path}: {cut} tool call(s) never got a result (run cut off?)")
    return run, stamps


# ---------------------------------------------------------------------------------------------------------
# Run-level facts


def sources_dir(steps: list[Step]) -> str | None:
    """The ``.../sources`` folder the agent's calls name most often (G2B symlinks the task's files there)."""
    found: Counter[str] = Counter()
    for s in steps:
        if "sources" in s.command:
            found.update(_sources_paths(s.command))
    return found.most_common(1)[0][0] if found else None


def _sources_paths(text: str) -> list[str]:
    """``_SOURCES.findall(text)``, run only over the runs of path characters (``[\\w./-]``) that hold
    ``sources``: a match is made of such characters and its look-arounds end at a character that is not one,
    so the matches in a run are those of the whole text, and a long command is not scanned by the regex
    position by position."""
    found: list[str] = []
    at = text.find("sources")
    backwards = text[::-1] if at >= 0 else ""  # the run's start: its end in the reversed text
    n = len(text)
    while at >= 0:
        start = n - _PATH_CHARS.match(backwards, n - at).end()  # type: ignore[union-attr]  # empty runs too
        end = _PATH_CHARS.match(text, at).end()  # type: ignore[union-attr]
        found += _SOURCES.findall(text, start, end)
        at = text.find("sources", end)
    return found


def project_root(
    steps: list[Step], skill_dirs: dict[str, str], sources: str | None
) -> tuple[str | None, str]:
    """The project root the tools ran in, and how it was found (``write_file`` or ``skill_dir``)."""
    for s in steps:
        path = s.args.get("file_path")
        m = _WROTE.match(s.output or "") if s.tool == "write_file" else None
        if m and isinstance(path, str) and not path.startswith("/"):
            rel = path.removeprefix("./")
            if m.group(1).endswith("/" + rel):
                return m.group(1)[: -len(rel) - 1], "write_file"
    if sources and not sources.startswith("/"):
        run_rel = str(Path(sources).parent.parent)
        for skill_dir in skill_dirs.values():
            at = skill_dir.find(f"/{run_rel}/")
            if run_rel != "." and at > 0:
                return skill_dir[:at], "skill_dir"
    return None, ""


class RunLabels(TypedDict):
    """The run labels a G2B folder's name gives (keyword arguments of :class:`Trajectory`)."""

    task_id: str | None
    """The task (``oqa-3``)."""
    method: str | None
    """The method (``v2_branch3``, ``eval_results``)."""
    variant: str | None
    """The variant (``seed``), ``/``-joined when there are several."""
    run: str | None
    """The run (``s4``)."""


def labels(folder: Path, sources: str | None) -> RunLabels:
    """task_id / method / variant / run from the run folder's name.

    ``v2_branch3__oqa-3_s4`` -> method ``v2_branch3``, run ``s4``; ``eval_results__seed__oqa-129`` -> method
    ``eval_results``, variant ``seed``. Elsewhere the task id comes from an ``evolve_<id>`` folder (G2B's task
    workdir name) and a ``<id>_s<k>`` parent gives the run.
    """
    m = _RUN_FOLDER.match(folder.name)
    if m:
        head, *rest = m.group("prefix").split("__")
        return {
            "task_id": m.group("task"),
            "method": head,
            "variant": "/".join(rest) or None,
            "run": m.group("run"),
        }
    names = [folder.name, *(Path(sources).parts[-2:-1] if sources else ())]
    task = next((n.removeprefix("evolve_") for n in names if n.startswith("evolve_")), None)
    run = None
    if task and folder.name.startswith("evolve_") and folder.parent.name.startswith(f"{task}_s"):
        run = folder.parent.name.removeprefix(f"{task}_")
    return {"task_id": task, "method": None, "variant": None, "run": run}


def deliverable(folder: Path, steps: list[Step], events: list[Event]) -> Deliverable:
    """The last message and the answer files: ``output.txt`` on disk, plus each successful ``write_file``."""
    messages = [e.text for e in events if e.kind == "message"]
    files: list[DeliverableFile] = []
    answer = folder / "output.txt"
    data = read_inside(answer, folder) if answer.is_file() else None  # never through a link out of the run
    if data is not None:
        files.append(deliverable_file("output.txt", data, origin="output_dir", local_path=str(answer)))
    written: dict[str, str] = {}
    for s in steps:
        path, content = s.args.get("file_path"), s.args.get("content")
        if s.tool == "write_file" and s.answered and not s.is_error and isinstance(path, str):
            if isinstance(content, str):
                written[path] = content
    files += [
        deliverable_file(p, content.encode("utf-8"), origin="write_tool") for p, content in written.items()
    ]
    return Deliverable(final_message=messages[-1] if messages else None, files=files)


def _run_id(folder: Path, log: Path) -> str:
    base = folder.name
    if folder.name.startswith("evolve_"):
        base = f"{folder.parent.parent.name}/{folder.parent.name}/{folder.name}"
    return f"{NAME}:{base}" if log.name == "exec_r0.jsonl" else f"{NAME}:{base}:{log.stem}"


def read_log(log: Path, options: ReadOptions, source: Path | None = None) -> Trajectory:
    """One exec log (and the ``output.txt`` beside it) as a trajectory."""
    policy = get_policy(options.clip or DEFAULT_CLIP)
    run, stamps = _parse(log, policy)
    folder = log.parent
    sources = sources_dir(run.steps)
    cwd, cwd_from = project_root(run.steps, run.skill_dirs, sources)
    for s in run.steps:
        if s.tool in PATH_TOOLS:
            s.cwd = cwd
    meta: dict[str, Any] = {"exec_file": log.name, "round": _round_of(log), "agents": dict(run.agents)}
    if sources:
        meta["sources_dir"] = sources
    if cwd:
        meta["cwd_from"] = cwd_from
    if run.skill_dirs:
        meta["skill_dirs"] = dict(run.skill_dirs)
    if run.warnings:
        meta["warnings"] = run.warnings
    known = [t for t in stamps if t]
    return Trajectory(
        id=_run_id(folder, log),
        format=NAME,
        source_path=str(source or log),
        steps=run.steps,
        events=run.events,
        deliverable=deliverable(folder, run.steps, run.events),
        harness=HARNESS,
        cwd=cwd,
        started_at=known[0] if known else None,
        ended_at=known[-1] if known else None,
        clip_policy=policy.name,
        meta=meta,
        **labels(folder, sources),
    )


_NOTHING_FOUND = ("No files matched", "No matches found", "Error")
"""How G2B's retired glob_files and grep_files replies begin when they found nothing."""


def type_step(step: Step) -> None:
    """G2B's tools in harness-neutral terms: ``shell`` runs one or several command lines (each output in a
    ``Command: / stdout: / stderr: / exit_code:`` frame); ``read_file`` and ``read_reference`` show a file;
    ``write_file`` writes one; the retired ``glob_files`` prints paths relative to the project root and
    ``grep_files`` prints ``grep -rn`` lines, cut at 10,000 characters with ``...(truncated)``."""
    tool, args, shown = step.tool, step.args, step.shown or ""
    command = step.command or ""
    if tool == "shell":
        commands = listed_commands(args)
        parts = command_parts(shown, commands, clipped=step.clipped) if commands else None
        if parts is not None:
            step.action = Action("shell", command=command, parts=parts[0])
            step.frames = parts[1]
        else:
            step.action = Action.shell(command)
            step.frames = output_frames(shown, command, clipped=step.clipped, harness="g2b")
    elif tool in ("read_file", "read_reference") and command.startswith("read "):
        step.action, step.frames = read_tool_reply(
            shown, command[len("read ") :], clipped=step.clipped, harness="g2b"
        )
    elif tool == "write_file" and command.startswith("write "):
        step.action = Action("write", path=command[len("write ") :])
    elif tool in ("glob_files", "grep_files"):
        step.action = Action("list") if tool == "glob_files" else Action("search", line_numbers=True)
        notice = TRUNCATION_NOTICES["grep_files"]
        if shown.startswith(_NOTHING_FOUND):
            step.frames = whole(shown)
        elif shown.endswith(notice):
            step.frames = (Frame(len(shown) - len(notice), len(shown), "frame"),)  # the cut is at the end
    else:
        step.action = Action.other(tool)


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: a step is a
    ``tool_call`` event answered by a ``tool_output`` one (:func:`_parse`), so a file's lines hold both (a run
    folder is offered as it is)."""
    if not facts.is_file:
        return True
    events = {e for v in facts.lines if isinstance(v, dict) and isinstance(e := v.get("event"), str)}
    return "tool_call" in events and "tool_output" in events


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """A run folder (one trajectory per ``exec_*.jsonl``) or a single exec log."""
    if path.is_dir():
        logs = exec_files(path)
        if not logs:
            raise ReaderError(path, "no exec_*.jsonl file in this folder")
        return [read_log(log, options, path) for log in logs]
    return [read_log(path, options)]
