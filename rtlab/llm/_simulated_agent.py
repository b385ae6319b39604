"""The simulated server's scripted agent: tool calls for a request that offers ``tools`` (``rtlab run`` in tests).

Not a language model: a fixed procedure, a deterministic function of the request's ``messages`` and ``tools``,
so a test knows what a run does before it runs. It works a task the way the paper's agents do, one turn per
request, reading its own progress back from the conversation (the calls it made and the replies it got):

1. state requirements: ``tab_add`` for each clause of the task (when the tab tools are offered; all in one turn,
   parallel calls), or a ``todo`` list of them (the ``todo`` tool), or ``notes`` of kind requirement (``notes``);
2. list the workspace (``bash``: ``find . -type f``), search it for the task's most telling word (``grep -rli``);
3. read the :data:`READS` listed files whose paths share most words with the task (text files only), the first
   with the ``read`` tool, the next with ``bash`` (``sed -n``), and so on in turn; after each read a ``notes``
   entry of kind reading with the first line that holds a number (``notes`` tool);
4. with the tab: review it (``tab_list``), then resolve each open requirement, one a turn, citing the first
   read-log entry the review shows beside it (``done``, after a ``tab_show`` of that entry the first time it is
   cited); one the review shows no entry for waits for the finish check, then goes ``unavailable`` (as does one
   whose citation the evidence check refused); with ``todo``: mark every item done;
5. write the deliverable (``write``: the lines of what it read that share words with the task, each with its
   file) to the path the task names (``outputs/...``, else ``outputs/answer.md``), and stop with a message;
6. told to critique and revise (a user message starting ``[self-refine]``): read the deliverable back and write
   it again with a review section; given the finish check (``[tab] finish check``): review and resolve what is
   still open, then stop again.

It works with the tools it is offered, as Inspect AI's ``react()`` offers them (``rtlab.inspect``): without a
``read`` tool it reads every file with ``bash`` (``sed -n``), without a ``write`` tool it writes the deliverable
with ``bash`` (a here-document), and when a ``submit`` tool is offered it stops by submitting the deliverable's
text; a refused submission (the finish check, the Self-Refine request, sent back as the submit call's error)
counts as the user message it stands for.

Calls it did not make (a scripted malformed call) and replies that are errors are passed over. Scripted
failures for the agent loop: :func:`malformed_call`, :func:`unknown_tool_call`, :func:`length_stop` (and the
server's own :func:`~rtlab.llm._simulated.http_error`).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from rtlab.llm._scripted import Scripted
from rtlab.text import terms

READS = 4
"""Files the scripted agent opens."""
MAX_REQUIREMENTS = 4
"""Clauses of the task it states as requirements, at most."""
FINISH_PREFIX = "[tab] finish check"
"""How the environment's finish check starts (``rtlab.environment.FINISH_PREFIX``; rtlab.llm may not import
the environment)."""
REFINE_PREFIX = "[self-refine]"
"""How the Self-Refine policy's request to critique and revise starts."""
TEXT_SUFFIXES = (".txt", ".md", ".csv", ".json", ".xml", ".yaml", ".yml", ".html", ".tsv", ".log", ".xlsx")
"""Files it opens: text files, and workbooks (printed row by row with openpyxl)."""
LINES_PER_FILE = 12
"""Lines of each file read that the deliverable quotes, at most."""
_STALE = re.compile(r"(draft|old|_v\d|copy|archive)", re.IGNORECASE)
_QUOTED = re.compile(r'"([^"\n]{3,60})"')
_WORKBOOK = re.compile(r"load_workbook\((['\"])(.+?)\1")
_OUTPUT = re.compile(r"\b(outputs/[^\s`'\"),;]+[A-Za-z0-9])")
_REQ_ID = re.compile(r"^(?:Added )?(R\d+|P\d+)\b")
_NUMBER = re.compile(r"\d")
SUBMIT = "submit"
"""Inspect ``react()``'s submit tool: offered, the agent stops by calling it."""
_HEREDOC = "RTLAB_EOF"
"""The here-document's delimiter of a deliverable written with ``bash``."""


@dataclass
class _Progress:
    """What the conversation says the agent has done so far."""

    task: str = ""
    where: str = "outputs/answer.md"
    """Where the task asks for the deliverable."""
    calls: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    """(tool, arguments, reply) of every call it made that was answered, in order."""
    last_user: str = ""
    """The last user message after the task (a finish check, a request to revise), or ''."""
    user_turns: int = 0

    def made(self, tool: str) -> list[tuple[dict[str, Any], str]]:
        return [(a, r) for t, a, r in self.calls if t == tool]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _progress(messages: list[dict[str, Any]]) -> _Progress:
    p = _Progress()
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    users = [m for m in messages if m.get("role") == "user"]
    p.task = _text(users[0].get("content")) if users else ""
    p.where = _deliverable_path(p.task)
    p.task = p.task.split("\n\nWrite the ")[0]  # the task itself, without where the deliverable goes
    p.user_turns = len(users)
    for m in messages:
        role = m.get("role")
        if role == "assistant":
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except (TypeError, ValueError):
                    continue
                if isinstance(args, dict) and isinstance(call.get("id"), str):
                    pending[call["id"]] = (str(fn.get("name")), args)
        elif role == "tool" and m.get("tool_call_id") in pending:
            tool, args = pending.pop(m["tool_call_id"])
            p.calls.append((tool, args, _text(m.get("content"))))
        elif role == "user" and users and m is not users[0]:
            p.last_user = _text(m.get("content"))
            p.calls.append(("<user>", {}, p.last_user))
    return p


def requirements_of(task: str) -> list[str]:
    """The clauses of a task the scripted agent states as requirements (sentences and ``;`` parts of three
    words or more, at most :data:`MAX_REQUIREMENTS`)."""
    clauses = [c.strip(" .\n-*") for c in re.split(r"(?<=[.;:?!])\s+|\n+", task)]
    out = [c for c in clauses if len(c.split()) >= 3 and "outputs/" not in c]
    return out[:MAX_REQUIREMENTS]


def _listed(p: _Progress) -> list[str]:
    paths: list[str] = []
    for args, reply in p.made("bash"):
        command = str(args.get("command", ""))
        if command.startswith(("find", "grep -rl")):
            for line in reply.splitlines():
                line = line.strip()
                if line.startswith("./"):
                    line = line[2:]
                if line and not line.startswith(("[tab]", "outputs/")) and line not in paths:
                    paths.append(line)
    return paths


def _to_read(p: _Progress) -> list[str]:
    """The files to open: listed text files ranked by the words their paths share with the task."""
    want = set(terms(p.task))
    files = [f for f in _listed(p) if f.lower().endswith(TEXT_SUFFIXES)]

    def score(f: str) -> tuple[int, int, str]:
        shared = len(want & set(terms(f.replace("/", " ").replace("_", " "))))
        return (-shared, 1 if _STALE.search(f) else 0, f)  # then the latest version: no draft, old or v1

    ranked = sorted(files, key=score)
    return ranked[:READS]


def _opened(p: _Progress) -> list[str]:
    out = []
    for tool, args, _ in p.calls:
        if tool == "read" and isinstance(args.get("path"), str):
            out.append(args["path"])
        elif tool == "bash" and str(args.get("command", "")).startswith(("sed -n", "python3 -c")):
            out.append(_sed_path(str(args["command"])))
    return out


def xlsx_command(path: str) -> str:
    """The one-liner that prints a workbook's rows (the simulated world's own agents use the same)."""
    code = (
        f"import openpyxl; wb = openpyxl.load_workbook({path!r}, data_only=True); "
        "[print('\\t'.join('' if c is None else str(c) for c in r)) for ws in wb for r in ws.iter_rows(values_only=True)]"
    )
    return "python3 -c " + shlex.quote(code)


def _sed_path(command: str) -> str:
    """The file a read command of the scripted agent opens (``sed -n '1,400p' PATH``, the workbook one-liner)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    m = _WORKBOOK.search(words[-1]) if words else None
    if m:
        return m.group(2)
    return words[-1] if words else command


def _told(p: _Progress, prefix: str) -> int | None:
    """Where the conversation last answered a stop with ``prefix`` (a user message, or a refused submission's
    reply, ``Error: [tab] finish check ...`` as Inspect's OpenAI provider sends it): its index in ``p.calls``."""
    told = [
        i
        for i, (tool, _, reply) in enumerate(p.calls)
        if (tool == "<user>" and reply.startswith(prefix)) or (tool == SUBMIT and prefix in reply)
    ]
    return told[-1] if told else None


def _writes(p: _Progress, after: int = -1) -> bool:
    """Whether it wrote the deliverable (after call ``after``): the ``write`` tool or its ``bash`` here-document."""
    return any(
        tool == "write" or (tool == "bash" and str(args.get("command", "")).endswith(_HEREDOC))
        for tool, args, _ in p.calls[after + 1 :]
    )


def _write(n: int, path: str, content: str, tools: list[str]) -> dict[str, Any]:
    """The call that writes the deliverable: ``write`` when offered, else ``bash`` with a here-document."""
    if "write" in tools or "bash" not in tools:
        return _call(n, "write", {"path": path, "content": content})
    folder = path.rsplit("/", 1)[0] if "/" in path else "."
    command = (
        f"mkdir -p {shlex.quote(folder)} && cat > {shlex.quote(path)} <<'{_HEREDOC}'\n{content}{_HEREDOC}"
    )
    return _call(n, "bash", {"command": command})


def _read(n: int, path: str, tools: list[str], *, by_tool: bool) -> dict[str, Any]:
    """The call that reads a text file: the ``read`` tool when asked for and offered, else ``bash`` (``sed``)."""
    if by_tool and "read" in tools:
        return _call(n, "read", {"path": path, "limit": 400})
    return _call(n, "bash", {"command": f"sed -n '1,400p' {shlex.quote(path)}"})


def _deliverable_path(task: str) -> str:
    m = _OUTPUT.search(task)
    return m.group(1) if m else "outputs/answer.md"


def _call(n: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_sim_{n:04d}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
    }


def _open_requirements(p: _Progress) -> list[str]:
    """Requirement ids added and not yet resolved (a refused resolution leaves one open)."""
    added: list[str] = []
    closed: set[str] = set()
    for tool, args, reply in p.calls:
        if tool == "tab_add":
            m = _REQ_ID.match(reply)
            if m:
                added.append(m.group(1))
        elif tool == "tab_resolve":
            rid = str(args.get("id", ""))
            if reply.startswith((f"{rid} done", f"{rid} unavailable")) or "already" in reply.split("\n")[0]:
                closed.add(rid)
    return [r for r in added if r not in closed]


def _review_cites(review: str) -> dict[str, str | None]:
    """Requirement id -> the first read-log entry a ``tab_list`` reply shows beside it."""
    cites: dict[str, str | None] = {}
    current: str | None = None
    for line in review.splitlines():
        m = re.match(r"^(R\d+|P\d+) ", line)
        if m:
            current = m.group(1)
            cites.setdefault(current, None)
            continue
        e = re.match(r"^\s+(L\d+) ", line)
        if e and current is not None and cites.get(current) is None:
            cites[current] = e.group(1)
    return cites


def _compose(p: _Progress) -> str:
    want = set(terms(p.task))
    lines = ["# Deliverable", ""]
    for tool, args, reply in p.calls:
        command = str(args.get("command", ""))
        if tool not in ("read", "bash") or (tool == "bash" and not command.startswith(("sed", "python3 -c"))):
            continue
        path = args.get("path") or _sed_path(str(args.get("command", "")))
        kept = [
            ln.strip()
            for ln in reply.split("\n\n[tab]")[0].splitlines()
            if ln.strip() and (want & set(terms(ln)) or _NUMBER.search(ln))
        ][:LINES_PER_FILE]
        if kept:
            lines += [f"## From {path}", "", *[f"- {ln}" for ln in kept], ""]
    for title in _QUOTED.findall(p.task):  # sections the task names
        lines += [f"## {title}", "", "See the figures above.", ""]
    return "\n".join(lines).rstrip() + "\n"


def next_turn(messages: list[dict[str, Any]], tools: list[str]) -> tuple[str | None, list[dict[str, Any]]]:
    """The scripted agent's next turn: (message content, tool calls); no calls means it stops."""
    p = _progress(messages)
    n = len(p.calls) + 1
    tab, todo, notes = "tab_add" in tools, "todo" in tools, "notes" in tools
    reqs = requirements_of(p.task)
    out = p.where
    if tab and not p.made("tab_add") and reqs:
        return "Stating the task's requirements.", [
            _call(n + i, "tab_add", {"text": r}) for i, r in enumerate(reqs)
        ]
    if todo and not p.made("todo"):
        items = [{"text": r, "status": "pending"} for r in reqs]
        return "A plan.", [_call(n, "todo", {"items": items})]
    if notes and not p.made("notes"):
        return None, [_call(n, "notes", {"kind": "requirement", "text": "; ".join(reqs) or p.task[:200]})]
    if not any(str(a.get("command", "")).startswith("find") for a, _ in p.made("bash")):
        return "Let me look at the workspace.", [_call(n, "bash", {"command": "find . -type f | sort"})]
    if not any(str(a.get("command", "")).startswith("grep -rl") for a, _ in p.made("bash")):
        words = sorted(terms(p.task), key=lambda w: (-len(w), w))
        word = words[0] if words else "report"
        return None, [_call(n, "bash", {"command": f"grep -rli {word} . | sort | head -n 20"})]
    opened = _opened(p)
    readings = sum(a.get("kind") == "reading" for a, _ in p.made("notes"))
    if notes and p.calls and p.calls[-1][0] in ("read", "bash") and readings < len(opened):
        reply = p.calls[-1][2]
        line = next((ln.strip() for ln in reply.splitlines() if _NUMBER.search(ln)), reply[:80].strip())
        return None, [_call(n, "notes", {"kind": "reading", "text": f"{opened[-1]}: {line[:160]}"})]
    for i, path in enumerate(_to_read(p)):
        if path in opened:
            continue
        if path.lower().endswith(".xlsx"):
            return f"Reading the workbook {path}.", [_call(n, "bash", {"command": xlsx_command(path)})]
        if i % 2 == 0:
            return f"Reading {path}.", [_read(n, path, tools, by_tool=True)]
        return None, [_read(n, path, tools, by_tool=False)]
    finished_once = _told(p, FINISH_PREFIX) is not None
    written = _writes(p)
    if tab and (not written or finished_once):
        open_ids = _open_requirements(p)
        last_list = max((i for i, c in enumerate(p.calls) if c[0] == "tab_list"), default=-1)
        last_read = max(
            (i for i, c in enumerate(p.calls) if c[0] in ("read", "bash", "<user>", SUBMIT)), default=-1
        )
        if open_ids and last_list < last_read:
            return "Reviewing the tab.", [_call(n, "tab_list", {})]
        cites = _review_cites(p.calls[last_list][2]) if last_list >= 0 else {}
        for rid in open_ids:
            tried = [a.get("cite") for a, _ in p.made("tab_resolve") if a.get("id") == rid]
            cite = cites.get(rid)
            shown = {a.get("id") for a, _ in p.made("tab_show")}
            if cite is not None and cite not in tried and cite not in shown:
                return f"Checking {cite} for {rid}.", [_call(n, "tab_show", {"id": cite})]
            if cite is not None and cite not in tried:
                return None, [_call(n, "tab_resolve", {"id": rid, "status": "done", "cite": cite})]
            if (
                finished_once
            ):  # before the deliverable, one without support waits; the finish check settles it
                reason = "nothing I read states it" if cite is None else "the file I read does not support it"
                return None, [_call(n, "tab_resolve", {"id": rid, "status": "unavailable", "reason": reason})]
    if todo and not any(
        all(i.get("status") == "done" for i in a.get("items", [])) for a, _ in p.made("todo")
    ):
        items = [{"text": r, "status": "done"} for r in reqs]
        return "All items covered.", [_call(n, "todo", {"items": items})]
    if not written:
        return "Writing the deliverable.", [_write(n, out, _compose(p), tools)]
    asked = _told(p, REFINE_PREFIX)
    review = "\n## Review\n\n- Checked against the files read; nothing to add.\n"
    if asked is not None:
        after = p.calls[asked + 1 :]
        if not any(t == "read" and a.get("path") == out for t, a, _ in after) and not any(
            t == "bash" and str(a.get("command", "")).startswith("sed -n") and _sed_path(a["command"]) == out
            for t, a, _ in after
        ):
            return "Checking the draft.", [_read(n, out, tools, by_tool=True)]
        if not _writes(p, asked):
            return "Revising the draft.", [_write(n, out, _compose(p) + review, tools)]
    if SUBMIT in tools:
        answer = _compose(p) + (review if asked is not None else "")
        return f"Submitting the deliverable {out}.", [_call(n, SUBMIT, {"answer": answer})]
    return f"Done: the deliverable is {out}.", []


def agent_message(body: dict[str, Any], scripted: Scripted) -> tuple[dict[str, Any], str]:
    """The assistant message and ``finish_reason`` for an agent request (one that offers ``tools``): the
    scripted tool calls when the script gives some, else the scripted agent's next turn."""
    if scripted.tool_calls is not None:
        calls: list[dict[str, Any]] = [dict(c) for c in scripted.tool_calls]
        content = scripted.content
    else:
        names = [str((t.get("function") or {}).get("name")) for t in body.get("tools") or []]
        content, calls = next_turn(list(body.get("messages") or []), names)
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if calls:
        message["tool_calls"] = calls
    reason = scripted.finish_reason
    if reason == "stop" and calls:
        reason = "tool_calls"
    return message, reason


def malformed_call(tool: str = "read", arguments: str = '{"path": "notes.txt",') -> Scripted:
    """A turn whose one tool call's arguments are not valid JSON (cut off mid-object)."""
    call = {"id": "call_bad_args", "type": "function", "function": {"name": tool, "arguments": arguments}}
    return Scripted(tool_calls=(call,))


def unknown_tool_call(tool: str = "browse_web") -> Scripted:
    """A turn that calls a tool the request did not offer."""
    call = {"id": "call_unknown", "type": "function", "function": {"name": tool, "arguments": "{}"}}
    return Scripted(tool_calls=(call,))


def length_stop(content: str = "I will now read the") -> Scripted:
    """A turn cut off by the output limit: partial content, ``finish_reason`` ``length``, no tool calls."""
    return Scripted(content=content, finish_reason="length")
