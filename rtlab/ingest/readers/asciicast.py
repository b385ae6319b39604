"""asciinema recordings (``.cast``, asciicast v2 and v3): a terminal session, read as the shell commands typed
at its prompt and what each printed.

What the format's own documents say (asciinema/asciinema ``doc/asciicast-v2.md``, docs.asciinema.org
``manual/asciicast/v3``, ``src/asciicast/v3.rs``):

- **v2**: a JSON header line ``{"version": 2, "width", "height"[, "timestamp", "duration", "idle_time_limit",
  "command", "title", "env", "theme"]}``, then one event a line, ``[time, code, data]``, ``time`` in seconds
  since the start; ``code`` ``"o"`` (output written to the terminal), ``"i"`` (input typed, recorded with
  ``--stdin``), ``"m"`` (a marker, ``data`` its label), ``"r"`` (a resize, ``"COLSxROWS"``).
- **v3** (asciinema 3.0 on): the header holds ``"term": {"cols", "rows"[, "type", "version", "theme"]}``
  instead of ``width`` / ``height``; an event's first element is the interval since the previous event; a
  fourth code ``"x"`` gives the exit status; lines starting with ``#`` are comments.

Terminal-Bench (``terminal_bench/terminal/tmux_session.py``) records every trial's tmux pane with
``asciinema rec --stdin``: its harness types ``clear`` and Enter right after the recording starts and ends it
with Ctrl-D; an agent's keystrokes (Terminus sends them with ``tmux send-keys``) arrive as ``"i"`` events, and a
blocking command gets ``; tmux wait -S done`` appended.

How a cast becomes a trajectory (one per file). The output is replayed on a screen model
(:mod:`rtlab.ingest.readers._terminal`): escape sequences and carriage returns are interpreted, so a
command's output is the text as the screen showed it when the next prompt appeared (a progress line shows its
last state; a cleared screen shows nothing). Prompts are found by bash's bracketed-paste switches (``?2004h``
before each prompt, ``?2004l`` when a line is accepted), and, in casts without them, by a line that ends in
``$ ``, ``# ``, ``% `` or ``> `` when output pauses. Each command line accepted at a prompt is a ``shell`` step
(a line continued at bash's ``> `` prompt, such as a here-document, belongs to it); its result is the output
up to the next prompt; keys typed while it runs (answers, Ctrl-C) are kept in ``args["keystrokes"]``. A command
still running when the recording ends is unanswered. A cast records a terminal, not a model: what a harness
showed its model of this output (Terminus captures the pane) is not in the file, so the steps are what the
terminal showed. Terminal-Bench's own ``clear`` at the start and the Ctrl-D at the end are events, not steps.

Limits: a command typed where no prompt is recognisable is not found (it becomes part of the output before
it); full-screen programs (editors, pagers: the alternate screen) leave no text in the output, and are counted
in ``meta["fullscreen_programs"]``; exit statuses are not recorded (``exit_code`` is ``None``); asciicast v1
(one JSON document with ``stdout``) is not read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import ReadOptions, typed
from rtlab.ingest.readers._frames import terminal_bench_command
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._terminal import Mark, Screen
from rtlab.ingest.readers._tolerant import warn
from rtlab.io import first_json_line, parse_json, parse_json_each, read_text, skip_reason
from rtlab.records import Action, Event, Step, Trajectory

NAME = "asciicast"
LOOKS_FOR = (
    'an asciinema recording (asciicast v2 or v3): a JSON header line {"version": 2, "width", "height"} or '
    '{"version": 3, "term": {"cols", "rows"}}, then [time, code, data] event lines'
)

_PS2 = "> "
_FALLBACK_PROMPT = re.compile(r"^.{0,200}?[$#%>❯➜] $")
"""A prompt where the cast has no bracketed-paste switches: a short line ending in a prompt character."""
_DEFAULT_SIZE = (80, 24)


def _header_size(header: dict[str, Any]) -> tuple[int, int] | None:
    """``(cols, rows)`` of a v2 or v3 header, or ``None`` when it is not one."""
    version = header.get("version")
    if version == 2:
        w, h = header.get("width"), header.get("height")
    elif version == 3:
        term = header.get("term")
        if not isinstance(term, dict):
            return None
        w, h = term.get("cols"), term.get("rows")
    else:
        return None
    if isinstance(w, int) and isinstance(h, int) and not isinstance(w, bool) and not isinstance(h, bool):
        return w, h
    return None


def sniff(path: Path) -> bool:
    """The first line is an asciicast v2 or v3 header (its version and terminal size); any name."""
    if not path.is_file():
        return False
    head = first_json_line(path)
    return isinstance(head, dict) and _header_size(head) is not None


def type_step(step: Step) -> None:
    """Every step is a command line the shell ran; Terminal-Bench's ``; tmux wait -S done`` (its way of
    waiting for a blocking command) is not part of it. The output holds no harness words."""
    step.action = Action.shell(terminal_bench_command(step.command))
    step.frames = ()


@dataclass
class _Open:
    """A command line accepted at a prompt, running until the next prompt."""

    command: str
    out_start: Mark
    line: int
    time: float
    keys: list[str] = field(default_factory=list)
    prompt: str = ""


@dataclass
class _Prompt:
    start: Mark
    end: Mark | None = None
    text: str = ""
    keys: list[str] = field(default_factory=list)


class _Cast:
    """One recording replayed event by event."""

    def __init__(self, path: Path, header: dict[str, Any], size: tuple[int, int], warnings: list[str]):
        self.path = path
        self.header = header
        self.warnings = warnings
        self.screen = Screen(size[0], size[1], on_mode=self._mode)
        self.steps: list[Step] = []
        self.events: list[Event] = []
        self.seq = 0
        self.line = 0
        self.time = 0.0
        self.start_ts = header.get("timestamp") if isinstance(header.get("timestamp"), (int, float)) else None
        self.bracketed = False  # the shell writes bracketed-paste switches: prompts are found by them
        self.prompt: _Prompt | None = None
        self.running: _Open | None = None
        self.accepted_in_event = False
        self.n_inputs = 0
        self.ended = False

    # --- time and the timeline ------------------------------------------------------------------------

    def _iso(self, t: float) -> str | None:
        if self.start_ts is None:
            return None
        return datetime.fromtimestamp(self.start_ts + t, tz=UTC).isoformat().replace("+00:00", "Z")

    def _event(self, kind: Any, text: str, **data: Any) -> None:
        self.events.append(
            Event(kind, text, seq=self.seq, timestamp=self._iso(self.time), line=self.line, data=dict(data))
        )
        self.seq += 1

    # --- prompts and accepted lines -------------------------------------------------------------------

    def _mode(self, mode: str, mark: Mark) -> None:
        self.bracketed = True
        if mode == "2004h":
            self.prompt = _Prompt(start=mark)
        elif self.prompt is not None:
            self._accept(mark)

    def _close_prompt_text(self) -> None:
        """Fix the prompt's text once something was drawn after its start (or input began)."""
        p = self.prompt
        if p is None or p.end is not None:
            return
        here = self.screen.mark()
        if (here.row, here.col) > (p.start.row, p.start.col):
            p.end = here
            p.text = self.screen.text(p.start, here)
            self._prompt_seen(p)

    def _prompt_seen(self, p: _Prompt) -> None:
        """A prompt was drawn: it ends the running command, unless it is bash's continuation prompt."""
        run = self.running
        if run is None:
            return
        if p.text == _PS2 and self.screen.text(run.out_start, p.start).strip() == "":
            return  # a continued line (a here-document, an open quote): the command goes on
        self._finish(run, p.start)

    def _finish(self, run: _Open, end: Mark) -> None:
        shown = self.screen.text(run.out_start, end)
        step = self.steps[-1]
        step.output = shown
        step.shown = shown
        step.ended_at = self._iso(self.time)
        if run.keys:
            step.args["keystrokes"] = "".join(run.keys)
        self.running = None

    def _accept(self, mark: Mark) -> None:
        """A line was accepted at the prompt (Enter): a new command, or the next line of a continued one."""
        p = self.prompt
        self.prompt = None
        if p is None:
            return
        if p.end is None:
            p.end = p.start
        typed = self.screen.text(p.end, mark).rstrip("\n")
        if typed.endswith("^C") or (p.keys and p.keys[-1].endswith("\x03")):
            return  # the line was cancelled
        run = self.running
        if run is not None and p.text == _PS2:
            run.command += "\n" + typed
            run.out_start = mark
            run.keys.extend(p.keys)
            self.steps[-1].command = run.command
            return
        if run is not None:  # a prompt that did not end it: a program's own line editor
            run.keys.extend(p.keys)
            return
        if not typed.strip():
            return
        self.running = _Open(typed, mark, self.line, self.time, keys=list(p.keys), prompt=p.text)
        self.steps.append(
            Step(
                index=len(self.steps),
                tool="terminal",
                command=typed,
                args={"prompt": p.text} if p.text else {},
                started_at=self._iso(self.time),
                seq=self.seq,
                line=self.line,
            )
        )
        self.seq += 1

    def _fallback_prompt(self) -> None:
        """Casts without bracketed-paste switches: a prompt is a short line ending in a prompt character
        that the cursor sits at the end of when output pauses; a line is accepted when the cursor leaves it."""
        s = self.screen
        if s.on_alt:
            return
        here = s.mark()
        p = self.prompt
        if p is not None and p.end is not None and here.row > p.end.row:
            typed_end = Mark(p.end.row, 0)
            r = p.end.row
            while r < here.row and s.main.wrapped[r]:
                r += 1
            typed_end = Mark(r + 1, 0)
            self._accept(typed_end)
            p = None
        if self.running is not None or self.prompt is None:
            text = s.row_text(here.row, 0, here.col)
            if _FALLBACK_PROMPT.match(text) and (self.running is None or text != _PS2):
                self.prompt = _Prompt(start=Mark(here.row, 0), end=here, text=text)
                self._prompt_seen(self.prompt)

    # --- events ---------------------------------------------------------------------------------------

    def output(self, data: str) -> None:
        self.screen.feed(data)
        if self.bracketed:
            self._close_prompt_text()
        else:
            self._fallback_prompt()

    def input(self, data: str) -> None:
        self.n_inputs += 1
        if self.prompt is not None:
            self._close_prompt_text()
            if self.prompt is not None:
                if data == "\x04" and not self.prompt.keys and self.running is None:
                    self._event("system", "Ctrl-D at the prompt: end of input, the shell exits", type="eof")
                    self.ended = True
                    return
                self.prompt.keys.append(data)
                return
        if self.running is not None:
            self.running.keys.append(data)
        elif data == "\x04":
            self._event("system", "Ctrl-D: end of input", type="eof")

    def finish(self) -> None:
        if self.running is not None and self.steps:
            if self.running.keys:
                self.steps[-1].args["keystrokes"] = "".join(self.running.keys)
            self.running = None  # still running when the recording ended: unanswered


def _events(
    path: Path, lines: list[str], first: int, version: int, warnings: list[str]
) -> list[tuple[int, float, str, str]]:
    """``(line, time since start, code, data)`` for every event line understood; the others warned about."""
    found: list[tuple[int, float, str, str]] = []
    clock = 0.0
    last = next((i + 1 for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), 0)  # from the end
    kept = [
        i
        for i in range(first, len(lines))
        if lines[i].strip() and not (version == 3 and lines[i].lstrip().startswith("#"))
    ]
    for i, ev in zip(kept, parse_json_each([lines[i] for i in kept]), strict=True):
        raw = lines[i]
        lineno = i + 1
        if isinstance(ev, json.JSONDecodeError):
            warn(warnings, path, lineno, skip_reason(raw, ev, lineno == last))
            continue
        if isinstance(ev, RecursionError):
            warn(warnings, path, lineno, "invalid JSON: nested too deeply to parse; skipped")
            continue
        if (
            not isinstance(ev, list)
            or len(ev) < 3
            or not isinstance(ev[0], (int, float))
            or isinstance(ev[0], bool)
            or not isinstance(ev[1], str)
            or not isinstance(ev[2], str)
        ):
            warn(warnings, path, lineno, "expected an event [time, code, data], got something else; skipped")
            continue
        t = float(ev[0])
        if version == 3:
            clock += t
            t = clock
        found.append((lineno, t, ev[1], ev[2]))
    return found


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: the file's
    first line that is not blank is a v2 or v3 header (:func:`read` refuses anything else), told from the
    file's head up to its last newline, which is where a line of the whole text ends too (the text's lines
    there are the same, bytes that are not UTF-8 read as U+FFFD the same); a head with no such line is
    offered."""
    data = facts.data
    if not facts.is_file or data is None:
        return True
    head = data[: data.rfind(b"\n", 0, _HEAD) + 1]
    lines = head.decode("utf-8", "replace").removeprefix("\ufeff").splitlines()
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        return True
    try:
        header = parse_json(first)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(header, dict) and _header_size(header) is not None


_HEAD = 65536
"""The bytes of a file :func:`may_find_steps` looks at for its first line."""


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per recording."""
    path = Path(path)
    warnings: list[str] = []
    text = read_text(path, warnings)  # bytes that are not UTF-8 replaced, said
    lines = text.splitlines()
    first = next((i for i, raw in enumerate(lines) if raw.strip()), None)
    if first is None:
        raise ReaderError(path, "file is empty")
    try:
        header = parse_json(lines[first])
    except (json.JSONDecodeError, RecursionError):
        raise ReaderError(path, "first line is not an asciicast header (JSON)", line=first + 1) from None
    size = _header_size(header) if isinstance(header, dict) else None
    if not isinstance(header, dict) or size is None:
        raise ReaderError(
            path,
            "first line is not an asciicast v2 or v3 header (version and terminal size)",
            line=first + 1,
            field="version",
        )
    version = header["version"]
    events = _events(path, lines, first + 1, version, warnings)
    cast = _Cast(path, header, size, warnings)
    codes: dict[str, int] = {}
    for lineno, t, code, payload in events:
        cast.line, cast.time = lineno, t
        codes[code] = codes.get(code, 0) + 1
        if code == "o":
            cast.output(payload)
        elif code == "i":
            cast.input(payload)
        elif code == "m":
            cast._event("other", payload, type="marker")
        elif code == "r":
            m = re.fullmatch(r"(\d+)x(\d+)", payload.strip())
            if m:
                cast.screen.resize(int(m.group(1)), int(m.group(2)))
            else:
                warn(warnings, path, lineno, f"resize {payload!r} is not COLSxROWS; ignored")
        elif code == "x":
            cast._event("system", f"exit status {payload}", type="exit", status=payload)
        else:
            warn(warnings, path, lineno, f"unknown event code {code!r}; skipped")
    cast.finish()
    steps, evs = cast.steps, cast.events
    tb_start = _terminal_bench_setup(cast)

    meta: dict[str, Any] = {
        "asciicast_version": version,
        "size": list(size),
        "n_events": len(events),
        "event_codes": codes,
        "prompts_by": "bracketed-paste" if cast.bracketed else "prompt-line",
        "fullscreen_programs": cast.screen.fullscreen_entries,
    }
    for key in ("title", "command", "idle_time_limit", "duration"):
        if header.get(key) is not None:
            meta[key] = header[key]
    env = header.get("env")
    if isinstance(env, dict):
        meta["env"] = env
    if tb_start:
        meta["terminal_bench_clear"] = True
    if warnings:
        meta["warnings"] = warnings
    stem = path.stem
    if path.parent.name == "sessions" and path.parent.parent.name:  # Terminal-Bench: <trial>/sessions/<name>
        stem = f"{path.parent.parent.name}/{stem}"
    ends = [t for _, t, _, _ in events]
    return [
        Trajectory(
            id=f"{NAME}:{stem}",
            format=NAME,
            source_path=str(path),
            steps=steps,
            events=sorted(evs, key=lambda e: e.seq),
            started_at=cast._iso(0.0),
            ended_at=cast._iso(ends[-1]) if ends else None,
            harness="terminal-bench" if tb_start else None,
            meta=meta,
        )
    ]


def _terminal_bench_setup(cast: _Cast) -> bool:
    """Terminal-Bench's harness types ``clear`` first in every recording it makes (``TmuxSession.start``, right
    after ``asciinema rec --stdin``): when a cast with recorded input starts with that command, it is the
    harness's, an event, not a step. Whether it was found."""
    steps = cast.steps
    if not (cast.n_inputs and steps and steps[0].command.strip() == "clear" and steps[0].answered):
        return False
    first = steps.pop(0)
    cast.events.append(
        Event(
            "system",
            "clear (typed by Terminal-Bench's harness when the recording starts)",
            seq=first.seq,
            timestamp=first.started_at,
            line=first.line,
            data={"type": "harness-keys", "command": first.command},
        )
    )
    for i, s in enumerate(steps):
        s.index = i
    return True
