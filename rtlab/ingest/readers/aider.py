"""Aider chat histories (``.aider.chat.history.md``): one trajectory per session.

How Aider writes the file (Aider-AI/aider ``aider/io.py``, ``aider/coders/base_coder.py``, ``aider/commands.py``,
``aider/run_cmd.py``; v0.5x to v0.86):

- ``InputOutput.__init__`` appends ``\\n# aider chat started at YYYY-MM-DD HH:MM:SS\\n\\n``: every session starts
  with that header, in local time; a file holds every session run in that folder, oldest first.
- ``user_input``: what the user typed, every line as ``#### LINE`` followed by two spaces (a Markdown line
  break); an empty input is ``#### <blank>``. A confirmation answered for a whole group (``(A)ll``) is echoed the
  same way (``#### Add file to the chat? ... [Yes]: all``).
- ``tool_output`` / ``tool_error`` / ``tool_warning``: Aider's own words as ``> TEXT`` followed by two spaces;
  ``tool_output`` of a text with several lines quotes only the first, the others follow unquoted up to the one
  that ends in two spaces. ``confirm_ask`` writes its subject (a file name, the shell commands) that way and then
  ``> QUESTION (Y)es/(N)o... [Yes]: ANSWER``.
- ``ai_output``: the model's reply as it came, unquoted, after a blank line (reasoning inside
  ``<thinking-content-...>`` tags or the model's own ``<think>`` tags).
- Not written: the content of files added to the chat, the output of shell commands (``run_cmd`` prints it to
  the terminal only), the messages Aider sends the model besides the user's (file contents, "I ran this
  command", "I committed the changes"), lint output and test output other than as the user saw them.

What a step is here (the contract: a tool call whose result the model received). Aider has no tool calls: the
user and Aider act on the model's behalf, and every result joins the chat and reaches the model with the
**next request Aider sends** (shown in the log by the model's next reply). So:

- a **read** (``Action.read``) for each file added to the chat: at start-up (``Added F to the chat.``,
  ``(read-only)``), by ``/add`` (``Added F to the chat``), ``/read-only`` (``Added F to read-only files.``) or by
  accepting ``Add file to the chat?`` for a file the model named. The model was shown the file as it stood at the
  next request (and at every later one while it stays in the chat); the log holds its name, not its content, so
  ``output`` and ``shown`` are ``""`` (capture sees the file named, nothing of its text). A file dropped
  (``/drop``, ``/reset``) before any request was never shown: unanswered.
- a **shell** step for each command run by ``/run`` (or ``!``), ``/test``, or suggested by the model and accepted
  (``Run shell command? y``, then ``Running CMD``). It is answered when its output was added to the chat (``Add
  ... output to the chat? y``, ``Added N lines of output to the chat.``; ``/test`` adds it when the command
  failed) and a request followed; ``args["lines_added"]`` is how many lines. The output itself is not in the log:
  ``output`` and ``shown`` are ``""``. Output the user declined to add never reached the model: unanswered.
- a **write** or **edit** for each file Aider changed (``Applied edit to F``): ``write`` when the file was new
  (``Create new file? y``) or the edit format sends whole files (``whole``, ``editor-whole``), else ``edit``
  (SEARCH/REPLACE, unified diff). Answered at the next request (Aider tells the model the edit was made);
  ``output`` is Aider's line, framed. An edit that failed (``The LLM did not conform to the edit format.``)
  is an ``edit`` step with ``is_error``, its output the error Aider sends the model as it is; when Aider
  stopped retrying (``Only 3 reflections allowed, stopping.``) the error was never sent: unanswered.

Everything else is an event: the user's messages and commands, the model's replies and reasoning, Aider's
notices, errors and questions. Token counts are Aider's rounded ``Tokens: 1.5k sent, 418 received.`` summed
(approximate); the cost is the session's last ``$X session``. The files written by an edit are not delivered
files: their content is not in the log.

Reading is tolerant: the two trailing spaces tell Aider's lines from the model's Markdown (a quoted line or a
``####`` heading of the reply); a file whose trailing spaces were stripped is read line by line (said in a
warning); text before the first session header is read as a session without a start time (warned).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import ReadOptions, call_command, read_command, typed
from rtlab.ingest.readers._frames import aider_frames
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import warn
from rtlab.io import head_text, read_text
from rtlab.records import Action, Deliverable, Event, Step, TokenUsage, Trajectory

NAME = "aider"
LOOKS_FOR = (
    'an Aider chat history (.aider.chat.history.md): Markdown starting "# aider chat started at '
    'YYYY-MM-DD HH:MM:SS", with "#### " user lines and "> " lines of Aider\'s own output'
)
HARNESS = "aider"

_HEADER = re.compile(r"# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})[^\S\n]*$", re.M)
"""A session header: a whole line (the blanks after it, a ``\\r`` included, are part of it), matched from a
line's start (``match``). Not anchored by ``^``, so that a search of a whole text looks for its words (and
keeps the matches at a line's start) instead of trying every position."""
_MARK = "  "
"""What ends every line Aider writes itself (``append_chat_history(..., linebreak=True)``)."""
_CONFIRM = re.compile(
    r"^(?P<q>.*?\?) \(Y\)es/\(N\)o(?:/\(A\)ll)?(?:/\(S\)kip all)?(?:/\(D\)on't ask again)?"
    r" \[[^\]\n]*\]: ?(?P<a>\S*)\s*$",
    re.S,
)
_OLD_CONFIRM = re.compile(
    r"^(?P<q>(?:Add .+ to the chat|Create new file|Allow edits to .+|Run shell commands?|Attempt to fix .+"
    r"|Fix lint errors in .+|Commit before the chat proceeds|Apply the changes)\?(?: \(y/n\))?(?: \[[yn]\])?:?)"
    r" (?P<a>y|n|yes|no|a|s|d)$",
    re.I,
)
"""Aider before its ``(Y)es/(N)o`` options (up to v0.4x): ``confirm_ask`` wrote ``QUESTION ANSWER``, and asked
``Add PATH to the chat?`` for each file the model named."""
_OLD_ADD_FILE = re.compile(
    r"^Add (?!file to|URL to|the output to|command output to|\S+ tokens of)(.+) to the chat\?$"
)
_VERSION = re.compile(r"^Aider v(\S+)$")
_MODEL = re.compile(r"^(?:Main model|Model): (\S+)(?: with (\S+) edit format)?")
_EDITOR = re.compile(r"^Editor model: (\S+) with (\S+) edit format")
_ADDED = re.compile(r"^Added (.+?) to the chat(?P<ro> \(read-only(?: stub)?\))?\.?$")
_ADDED_READ_ONLY = re.compile(r"^Added (.+?) to read-only files\.?$")
_REMOVED = re.compile(r"^Removed (?:read-only file )?(.+?) from the chat\.?$")
_DROP_ALL = "Dropping all files from the chat session."
_TOKENS = re.compile(
    r"^Tokens: (?P<sent>[\d.,]+k?) sent(?:, (?P<write>[\d.,]+k?) cache write)?(?:, (?P<hit>[\d.,]+k?) cache hit)?,"
    r" (?P<recv>[\d.,]+k?) received\.(?:\s+Cost: \$(?P<msg>[\d.]+) message, \$(?P<sess>[\d.]+) session\.)?"
)
_RUNNING = re.compile(r"^Running (.+)$", re.S)
_ADDED_LINES = re.compile(r"^Added (\d+) lines? of output to the chat\.$")
_APPLIED = re.compile(r"^Applied edit to (.+)$")
_DRY_RUN = re.compile(r"^Did not apply edit to (.+) \(--dry-run\)$")
_NOT_CONFORM = "The LLM did not conform to the edit format."
_REFLECTIONS = re.compile(r"^Only \d+ reflections allowed, stopping\.$")
_COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40})\b ?(.*)$", re.S)
_FAILED_PATH = re.compile(r"(?:failed to exactly match lines in|Malformed response.*? for) (\S+)")
_OUTPUT_QUESTION = re.compile(r"^Add (?:.+ )?output to the chat\?$")
_REASONING = re.compile(r"<(thinking-content-[0-9a-f]+|think|thinking|reasoning)>")
"""A reasoning tag opening; what it holds runs to its first closing tag, or to the end of the reply."""
_WHOLE_FORMATS = ("whole", "editor-whole", "whole-func")
_ANCHORS = (_TOKENS, _APPLIED, _COMMIT, _ADDED_LINES, _RUNNING)
_COMMANDS = (
    "add", "architect", "ask", "chat-mode", "clear", "code", "commit", "context", "copy", "copy-context", "diff",
    "drop", "edit", "editor", "editor-model", "exit", "git", "help", "lint", "load", "ls", "map", "map-refresh",
    "model", "models", "multiline-mode", "ok", "paste", "quit", "read-only", "reasoning-effort", "report", "reset",
    "run", "save", "settings", "test", "think-tokens", "tokens", "undo", "voice", "weak-model", "web",
)  # fmt: skip
"""Aider's commands (``Commands.cmd_*``, v0.86): a typed word that starts exactly one of them runs it."""


def _without_reasoning(text: str, reasoning: Callable[[str], object]) -> list[str]:
    """The pieces of ``text`` outside its reasoning blocks (each opened by :data:`_REASONING`, closed by the
    first matching closing tag after it or by the end of the text), each block's body given to ``reasoning``
    in order."""
    pieces: list[str] = []
    pos = 0
    while m := _REASONING.search(text, pos):
        closing = f"</{m.group(1)}>"
        close = text.find(closing, m.end())
        stop = close if close >= 0 else len(text)
        reasoning(text[m.end() : stop])
        pieces.append(text[pos : m.start()])
        pos = stop + len(closing) if close >= 0 else len(text)
    pieces.append(text[pos:])
    return pieces


_NOTICE_FIRST = frozenset("TRACODMEl")
"""The first letters of the lines :meth:`_Session.tool` interprets (``Tokens:``, ``The LLM did not conform``,
``Running``, ``Removed``, ``Restored``, ``Added``, ``Applied``, ``Aider v``, ``Commit``, ``Only``, ``Dropping``,
``Main model``, ``Model:``, ``Editor model:``, ``Error``, ``litellm.``), questions aside (they hold a ``?``): a
line opening otherwise is none of them."""
_USER_HEADS = ("####", "#### ")
_QUOTE_HEADS = (">", "> ")


def _confirm(text: str) -> re.Match[str] | None:
    """:data:`_CONFIRM` at the start of ``text``, tried only when the text holds the question's options (else
    its lazy question would be stretched over the whole text first)."""
    return _CONFIRM.match(text) if "? (Y)es/(N)o" in text else None


def _is_user(raw: str) -> bool:
    """A line of the user's input: ``####`` alone or followed by a space."""
    return raw[:5] in _USER_HEADS


def _is_quote(raw: str) -> bool:
    """A line of Aider's own output: ``>`` alone or followed by a space."""
    return raw[:2] in _QUOTE_HEADS


def _is_own(raw: str) -> bool:
    """A line Aider wrote itself: :func:`_is_user` or :func:`_is_quote` (one test, for the scans of replies)."""
    return raw[:1] in ("#", ">") and (raw[:5] in _USER_HEADS or raw[:2] in _QUOTE_HEADS)


_STARTED = "# aider chat started at "
_STARTED_LINE = re.compile(r"# aider chat started at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\s*$", re.M)
"""A session's header line (``\\s*`` may take the blank lines after it), tried where :data:`_STARTED` opens
a line."""


def _session_start(head: str) -> re.Match[str] | None:
    """The first session header at a line's start in ``head`` (``re.search`` of ``^`` and
    :data:`_STARTED_LINE` in multi-line mode), found by its words (``str.find``) rather than by trying every
    position."""
    at = head.find(_STARTED)
    while at >= 0:
        if (at == 0 or head[at - 1] == "\n") and (m := _STARTED_LINE.match(head, at)) is not None:
            return m
        at = head.find(_STARTED, at + 1)
    return None


def sniff(path: Path) -> bool:
    """The first line that is not blank is a session header; or the file opens with Aider's own lines (``> ``
    and ``#### `` lines ending in two spaces) before one. A Markdown file without the header is not claimed."""
    head = head_text(path, 65536)
    if not head:
        return False
    first = head.split("\n", 1)[0].rstrip("\r")
    if _HEADER.match(first):
        return True
    m = _session_start(head)
    if m is None:
        return False
    before = [ln.rstrip("\r") for ln in head[: m.start()].split("\n") if ln.strip()]
    return (
        bool(before)
        and all(
            ((_is_quote(ln) or _is_user(ln)) and ln.endswith(_MARK)) or not (_is_quote(ln) or _is_user(ln))
            for ln in before
        )
        and sum(1 for ln in before if (_is_quote(ln) or _is_user(ln)) and ln.endswith(_MARK)) >= 2
    )


def type_step(step: Step) -> None:
    """Reads show a file (its text not logged); shell steps ran a command line; edits changed a file. Frames:
    Aider's line about an applied edit; a failed edit's error is what the model was shown."""
    path = step.args.get("path")
    if step.tool in ("add", "read-only") and isinstance(path, str):
        step.action = Action.read(path)
    elif step.tool in ("run", "test", "shell") and isinstance(step.args.get("command"), str):
        step.action = Action.shell(step.args["command"])
    elif step.tool in ("edit", "write") and isinstance(path, str):
        step.action = Action(step.tool, path=path)  # type: ignore[arg-type]  # "edit" or "write"
    else:
        step.action = Action.other(step.tool)
    step.frames = aider_frames(step.shown or "", fed_back=step.is_error)


# ---------------------------------------------------------------------------------------------------------
# Lines into records


@dataclass
class _Record:
    """A run of lines Aider wrote in one call: the user's input, its own words, or the model's reply."""

    kind: Literal["user", "tool", "assistant"]
    text: str
    line: int
    subject: bool = False
    """A confirmation's subject (the lines before ``Run shell commands?``), merged from the records it spans."""


def _records(lines: list[str], base: int, marked: bool, path: Path, warnings: list[str]) -> list[_Record]:
    """The records of one session's lines (``base``: the file line of ``lines[0]``, 1-based)."""
    out: list[_Record] = []
    n = len(lines)
    i = 0
    blank = True
    while i < n:
        raw = lines[i]
        if not raw.strip():
            blank = True
            i += 1
            continue
        ends = raw.endswith(_MARK)
        prev = out[-1].kind if out else None
        if _is_user(raw) and (ends or not marked):
            j = i
            texts = []
            while j < n and _is_user(lines[j]) and (lines[j].endswith(_MARK) or not marked):
                t = lines[j][5:] if lines[j].startswith("#### ") else lines[j][4:]
                texts.append(t[:-2] if t.endswith(_MARK) else t.rstrip())
                j += 1
            text = "\n".join(texts)
            out.append(_Record("user", "" if text == "<blank>" else text, base + i))
            i, blank = j, False
            continue
        if _is_quote(raw) and (ends or not marked or (prev in ("tool", "user") and not blank)):
            j = i
            if marked and not ends:  # tool_output of several lines: the rest unquoted, to the marked one
                while j + 1 < n and not lines[j].endswith(_MARK) and not _HEADER.match(lines[j + 1]):
                    j += 1
                if not lines[j].endswith(_MARK):
                    warn(
                        warnings,
                        path,
                        base + i,
                        "a note of Aider's runs to the end of its session (cut off?)",
                    )
            text = "\n".join(lines[i : j + 1])
            text = text[2:] if text.startswith("> ") else text[1:]
            if text.endswith(_MARK):
                text = text[:-2]
            out.append(_Record("tool", text.strip() if "\n" not in text else text, base + i))
            i, blank = j + 1, False
            continue
        j = i
        while j + 1 < n:
            nxt = lines[j + 1]
            if (not marked or nxt.endswith(_MARK)) and _is_own(nxt):  # the rarer test first
                break
            j += 1
        out.append(_Record("assistant", "\n".join(lines[i : j + 1]).strip("\n"), base + i))
        i, blank = j + 1, False
    return _merge_subjects(out)


def _anchor(rec: _Record) -> bool:
    """A record that cannot be part of a confirmation's subject."""
    if rec.kind == "user":
        return True
    if rec.kind == "assistant":
        return False
    return bool(_confirm(rec.text)) or any(p.match(rec.text) for p in _ANCHORS)


def _merge_subjects(recs: list[_Record]) -> list[_Record]:
    """``confirm_ask`` writes a subject of several lines (the shell commands) padded to one width, so a line can
    end in two spaces before the subject does: the records between the last anchor and ``Run shell
    command(s)?`` are that subject, merged into one."""
    out: list[_Record] = []
    for rec in recs:
        m = _confirm(rec.text) if rec.kind == "tool" else None
        if m and m.group("q").startswith("Run shell command"):
            k = len(out)
            while k > 0 and not _anchor(out[k - 1]):
                prev = out[k - 1]
                if prev.kind == "assistant" and ("\n\n" in prev.text or k < 2 or out[k - 2].kind != "tool"):
                    break
                k -= 1
            if k < len(out):
                parts = out[k:]
                del out[k:]
                text = "\n".join(p.text.rstrip() for p in parts)
                out.append(_Record("tool", text, parts[0].line, subject=True))
        out.append(rec)
    return out


# ---------------------------------------------------------------------------------------------------------
# Records into a trajectory


def _tokens(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.replace(",", "")
    try:
        return round(float(text[:-1]) * 1000) if text.endswith("k") else int(float(text))
    except ValueError:
        return None


@dataclass
class _Pending:
    step: Step
    text: str
    kind: Literal["read", "result", "failed-edit"]


@dataclass
class _Session:
    path: Path
    number: int
    started: str | None
    line: int
    warnings: list[str]
    steps: list[Step] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    seq: int = 0
    pending: list[_Pending] = field(default_factory=list)
    awaiting: list[Step] = field(default_factory=list)
    test_step: Step | None = None
    shell_ok: bool = False
    created: set[str] = field(default_factory=set)
    since_request: list[Step] = field(default_factory=list)
    version: str | None = None
    model: str | None = None
    edit_format: str | None = None
    editor_format: str | None = None
    instruction: str | None = None
    final: str | None = None
    usage: TokenUsage | None = None
    n_requests: int = 0
    commits: list[str] = field(default_factory=list)
    restored: bool = False
    failed_edit: Step | None = None
    in_chat: set[str] = field(default_factory=set)
    last_command: str | None = None
    notes: list[_Record] = field(default_factory=list)

    # --- the timeline ---------------------------------------------------------------------------------

    def flush(self) -> None:
        """Aider's notices since the last thing interpreted, as one event (in their place on the timeline)."""
        if self.notes:
            notes, self.notes = self.notes, []
            self.event("other", "\n".join(r.text for r in notes), notes[0].line, role="tool")

    def event(self, kind: Any, text: str, line: int, role: str | None = None, **data: Any) -> None:
        self.flush()
        self.events.append(Event(kind, text, role=role, seq=self.seq, line=line, data=dict(data)))
        self.seq += 1

    def step(self, tool: str, command: str, args: dict[str, Any], line: int) -> Step:
        self.flush()
        s = Step(index=len(self.steps), tool=tool, command=command, args=args, seq=self.seq, line=line)
        self.seq += 1
        self.steps.append(s)
        self.since_request.append(s)
        return s

    def read(self, path: str, line: int, *, via: str, read_only: bool) -> None:
        if path in self.in_chat:  # announced again (a switch of chat mode): already in the chat
            return
        self.in_chat.add(path)
        s = self.step(
            "read-only" if read_only else "add", read_command(path), {"path": path, "via": via}, line
        )
        self.pending.append(_Pending(s, "", "read"))

    def request(self) -> None:
        """The model was sent a request and replied: every result waiting in the chat reached it."""
        self.n_requests += 1
        for p in self.pending:
            p.step.output = p.text
            p.step.shown = p.text
        self.pending = []
        self.since_request = []

    def lose(self, kinds: tuple[str, ...], paths: set[str] | None = None) -> None:
        """Results that left the chat before any request (``/clear``, ``/drop``, ``/reset``): never shown."""
        self.pending = [
            p
            for p in self.pending
            if p.kind not in kinds or (paths is not None and p.step.args.get("path") not in paths)
        ]
        if "read" in kinds:
            self.in_chat = set() if paths is None else self.in_chat - paths

    def settle_awaiting(self) -> None:
        """Commands whose output was never offered or added: the model never received it."""
        self.awaiting = []
        self.test_step = None

    # --- records --------------------------------------------------------------------------------------

    def walk(self, recs: list[_Record]) -> None:
        prev: _Record | None = None
        for rec in recs:
            if rec.kind == "user" and _confirm(rec.text):
                continue  # a group's answer echoed as input: the quoted answer follows, after the subject
            if rec.kind == "user":
                self.user(rec)
            elif rec.kind == "assistant":
                self.reply(rec)
            elif rec.subject:
                pass  # read with its question
            elif not self.tool(rec, prev):
                self.notes.append(rec)
            prev = rec
        self.flush()

    def user(self, rec: _Record) -> None:
        self.settle_awaiting()
        text = rec.text
        word, _, rest = text.partition(" ")
        command = None
        if text.startswith("!"):
            command, rest = "run", text[1:]
        elif text.startswith("/") and len(word) > 1:
            matches = [c for c in _COMMANDS if c.startswith(word[1:])]
            command = word[1:] if word[1:] in _COMMANDS else matches[0] if len(matches) == 1 else None
        self.event("message", text, rec.line, role="user", **({"command": command} if command else {}))
        self.last_command = command
        rest = rest.strip()
        if command in ("run", "test") and rest:
            s = self.step(command, rest, {"command": rest, "via": f"/{command}"}, rec.line)
            if command == "run":
                self.awaiting = [s]
            else:
                self.test_step = s
        elif command == "drop":
            self.lose(("read",), set(rest.split()) if rest else None)
        elif command == "clear":
            self.lose(("result", "failed-edit"))
        elif command == "reset":
            self.lose(("read", "result", "failed-edit"))
        elif command is None and self.instruction is None and text.strip():
            self.instruction = text
        elif command in ("code", "ask", "architect", "context", "help") and rest and self.instruction is None:
            self.instruction = rest

    def reply(self, rec: _Record) -> None:
        text = rec.text
        answer = "".join(
            _without_reasoning(
                text, lambda body: self.event("reasoning", body.strip(), rec.line, role="assistant")
            )
        ).strip()
        if answer:
            self.event("message", answer, rec.line, role="assistant")
            self.final = answer
        self.request()

    def tool(self, rec: _Record, prev: _Record | None) -> bool:
        """Interpret one of Aider's lines; ``False`` for a line that is only a notice."""
        text = rec.text
        if text[:1] not in _NOTICE_FIRST and "?" not in text:  # none of the notices below: told at once
            return self._failed_edit_error(text)
        if m := _TOKENS.match(text):
            u = TokenUsage(
                input_tokens=_tokens(m.group("sent")),
                output_tokens=_tokens(m.group("recv")),
                cached_input_tokens=_tokens(m.group("hit")),
            )
            total = self.usage + u if self.usage is not None else u
            if m.group("sess"):
                total.cost_usd = float(m.group("sess"))
            self.usage = total
            if self.since_request or self.pending:
                self.request()  # a reply with no text (or only reasoning) still answered the request
            return True
        if m := _confirm(text) or (_OLD_CONFIRM.match(text) if "?" in text else None):
            self.confirm(m.group("q").split(" (y/n)")[0].rstrip(":"), m.group("a").lower(), rec, prev)
            return True
        if m := _RUNNING.match(text):
            if self.shell_ok:
                cmd = m.group(1).strip()
                self.awaiting.append(self.step("shell", cmd, {"command": cmd, "via": "suggested"}, rec.line))
                return True
            return False
        if m := _ADDED_LINES.match(text):
            n = int(m.group(1))
            if self.test_step is not None:  # /test adds a failed command's output without asking
                s = self.test_step
                s.is_error = True
                s.args["lines_added"] = n
                self.pending.append(_Pending(s, "", "result"))
                self.test_step = None
            else:
                for s in self.steps[::-1]:
                    if s.tool in ("run", "shell") and s.args.get("lines_added") is None:
                        if any(p.step is s for p in self.pending):
                            s.args["lines_added"] = n
                        break
                else:
                    self.event("other", text, rec.line, role="tool", type="output-added")
            return True
        if m := _APPLIED.match(text):
            path = m.group(1).strip()
            fmt = self.editor_format if self.edit_format == "architect" else self.edit_format
            kind = "write" if path in self.created or fmt in _WHOLE_FORMATS else "edit"
            s = self.step(kind, call_command(kind, {"path": path}), {"path": path}, rec.line)
            if fmt:
                s.args["edit_format"] = fmt
            self.pending.append(_Pending(s, text, "result"))
            return True
        if m := _COMMIT.match(text):
            self.commits.append(m.group(1))
            for s in self.since_request:
                if s.tool in ("edit", "write") and not s.is_error:
                    s.args["commit"] = m.group(1)
            self.event("other", text, rec.line, role="tool", type="commit")
            return True
        if text == _NOT_CONFORM:
            s = self.step("edit", "edit", {}, rec.line)
            s.is_error = True
            self.failed_edit = s
            self.pending.append(_Pending(s, "", "failed-edit"))
            self.event("error", text, rec.line, role="tool")
            return True
        if self._failed_edit_error(text):
            return True
        if _REFLECTIONS.match(text):
            self.lose(("failed-edit",))
            self.event("error", text, rec.line, role="tool")
            return True
        if m := _ADDED.match(text):
            via = "/add" if self.last_command == "add" else "start"
            self.read(m.group(1).strip(), rec.line, via=via, read_only=bool(m.group("ro")))
            return True
        if m := _ADDED_READ_ONLY.match(text):
            self.read(m.group(1).strip(), rec.line, via="/read-only", read_only=True)
            return True
        if m := _REMOVED.match(text):
            self.lose(("read",), {m.group(1).strip()})
            return False
        if text == _DROP_ALL:
            self.lose(("read",))
            return False
        if m := _VERSION.match(text):
            self.version = m.group(1)
        elif m := _MODEL.match(text):
            self.model, self.edit_format = m.group(1), m.group(2)
        elif m := _EDITOR.match(text):
            self.editor_format = m.group(2)
        elif text == "Restored previous conversation history.":
            self.restored = True
        elif text.startswith("litellm.") or text.startswith("Error"):
            self.event("error", text, rec.line, role="tool")
            return True
        return False

    def _failed_edit_error(self, text: str) -> bool:
        """After a failed edit, the line that follows is the error Aider sent back to the model (a link
        aside): it is the failed step's result. Whether it was."""
        if self.failed_edit is None or text.startswith("https://"):
            return False
        s = self.failed_edit  # str(err): what Aider sends back to the model
        self.failed_edit = None
        for p in self.pending:
            if p.step is s:
                p.text = text
        if fm := _FAILED_PATH.search(text):
            s.args["path"] = fm.group(1)
            s.command = call_command("edit", {"path": fm.group(1)})
        return True

    def confirm(self, question: str, answer: str, rec: _Record, prev: _Record | None) -> None:
        yes = answer[:1] in ("y", "a")
        subject = ""  # written just before the question: a notice not otherwise understood, or merged lines
        if prev is not None and (prev.subject or (self.notes and self.notes[-1] is prev)):
            subject = prev.text.strip()
            if not prev.subject:
                self.notes.pop()  # the subject goes with its question
        extra = {"subject": subject} if subject else {}
        self.event(
            "other",
            rec.text,
            rec.line,
            role="tool",
            type="question",
            question=question,
            answer=answer,
            **extra,
        )
        if question == "Add file to the chat?" and subject:
            if yes:
                self.read(subject, rec.line, via="mention", read_only=False)
        elif m := _OLD_ADD_FILE.match(question):
            if yes:
                self.read(m.group(1).strip(), rec.line, via="mention", read_only=False)
        elif question == "Create new file?" and subject and yes:
            self.created.add(subject)
        elif question.startswith("Run shell command"):
            self.shell_ok = yes
            self.awaiting = []
            if not yes:
                self.event("other", subject, rec.line, role="assistant", type="shell-suggestion", run=False)
        elif _OUTPUT_QUESTION.match(question):
            for s in self.awaiting:
                if yes:
                    self.pending.append(_Pending(s, "", "result"))
            self.awaiting = []
            self.shell_ok = False


def _sessions(path: Path, text: str, warnings: list[str]) -> list[tuple[str | None, int, list[str]]]:
    """``(start time, line of the header, lines)`` per session; text before the first header is a session of
    its own, without a start time."""
    lines = text.split("\n")
    if "\r" in text:
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    found: list[tuple[str | None, int, list[str]]] = []
    start: str | None = None
    first = 0  # the header's line (1-based), which is also the index of the session's first line
    row, pos = 0, 0
    for m in _HEADER.finditer(text):  # the header lines, in order, without matching every line
        if m.start() and text[m.start() - 1] != "\n":
            continue  # the words inside a line
        row += text.count("\n", pos, m.start())
        pos = m.start()
        current = lines[first:row]
        if found or start is not None or any(ln.strip() for ln in current):
            if start is None:
                warn(
                    warnings,
                    path,
                    1,
                    "text before the first session header; read as a session of its own",
                )
            found.append((start, first, current))
        start, first = m.group(1), row + 1
    current = lines[first:]
    if start is not None or any(ln.strip() for ln in current):
        found.append((start, first, current))
    return found


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: the file
    holds a session header (:func:`read` refuses a file without), whose words are ASCII, so its bytes hold
    them as written (a byte that is not UTF-8 is read as U+FFFD, never as one of them)."""
    data = facts.data
    return not facts.is_file or data is None or _HEADER_WORDS in data


_HEADER_WORDS = b"# aider chat started at "
"""What every match of :data:`_HEADER` starts with."""


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per session of the file, in order."""
    path = Path(path)
    warnings: list[str] = []
    text = read_text(path, warnings)  # bytes that are not UTF-8 replaced, said
    sessions = _sessions(path, text, warnings)
    if not any(start is not None for start, _, _ in sessions):
        raise ReaderError(path, 'no Aider session header ("# aider chat started at ...") in the file', line=1)
    quoted = marked = False  # a line of Aider's own; one of them ending in its two spaces
    for _, _, lines in sessions:
        for ln in lines:
            if _is_own(ln):
                quoted = True
                if ln.endswith(_MARK):
                    marked = True
                    break
        if marked:
            break
    if quoted and not marked:
        warn(
            warnings,
            path,
            None,
            "no line ends in Aider's two spaces (stripped?): Aider's notes of several lines are read line by line",
        )
    out: list[Trajectory] = []
    folder = path.parent.name or "."
    for k, (start, header_line, lines) in enumerate(sessions, start=1):
        local: list[str] = []
        s = _Session(path, k, start, header_line, local)
        recs = _records(lines, header_line + 1 if start is not None else 1, marked, path, local)
        s.walk(recs)
        meta: dict[str, Any] = {
            "session": k,
            "n_sessions": len(sessions),
            "header_line": header_line if start is not None else None,
            "edit_format": s.edit_format,
            "n_requests": s.n_requests,
            "output_logged": False,
        }
        if s.editor_format:
            meta["editor_edit_format"] = s.editor_format
        if s.commits:
            meta["commits"] = s.commits
        if s.restored:
            meta["restored_history"] = True
        if s.usage is not None:
            meta["usage_approximate"] = True
        all_warnings = (warnings if k == 1 else []) + local
        if all_warnings:
            meta["warnings"] = all_warnings
        out.append(
            Trajectory(
                id=f"{NAME}:{folder}/{path.name}#{k}",
                format=NAME,
                source_path=str(path),
                steps=s.steps,
                events=s.events,
                deliverable=Deliverable(final_message=s.final),
                instruction=s.instruction,
                model=s.model,
                harness=HARNESS,
                harness_version=s.version,
                started_at=start.replace(" ", "T") if start else None,
                usage=s.usage,
                meta=meta,
            )
        )
    return out
