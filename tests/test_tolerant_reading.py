"""The tolerant reading contract (issue 24): a record that cannot be parsed or is not understood is skipped or
repaired and reported as a warning naming file, line and reason, the rest of the file is read, and ``--strict``
refuses such a file.

Three parts:

- the contract's own rules on small hand-made logs (the warnings' form and kinds, repairs, ``--strict``, the
  warnings in the canonical JSONL, a file no reader finds a step in);
- every real log in ``../shared/real/wild/`` of a format rtlab reads: its answered steps equal a count made here
  from the raw records (a few lines of JSON walking per format, independent of the readers; for Aider's
  Markdown, asciinema casts, Gemini CLI, Cline, OpenCode and OpenTelemetry, the raw counts of those readers'
  own tests), its warnings are pinned, and ``rtlab replay`` runs on it;
- a corruption suite: one real file of every format (a fixture where no real file exists: DCI, the OpenAI
  Responses log; an asciinema cast, the real ones holding one step at most), copied into ``tmp_path`` and damaged in one way at a time (a line that is not JSON, the last
  record cut off, a record of an unknown type, a result before its call, a mistyped field). Each damaged copy
  reads every intact record (the steps of the intact copy, less what the damage touched, as pinned per format
  with the reason) and reports the damage at its line; ``ReadOptions(strict=True)`` refuses it naming the file.
"""

from __future__ import annotations

import copy
import io
import json
import re
import shutil
from collections import Counter
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, REAL
from test_readers_aider import _raw_answered as aider_answered
from test_readers_asciicast import _raw_answered as cast_answered
from test_readers_cline import raw_counts as cline_counts
from test_readers_gemini_cli import raw_answered_calls as gemini_counts
from test_readers_opencode import raw_counts as opencode_counts
from test_readers_otel import raw_tool_spans as otel_counts

from rtlab.cli import main
from rtlab.errors import ReaderError
from rtlab.ingest import ReadOptions, detect, get_reader, ingest, read_unit
from rtlab.ingest.readers._tolerant import read_warning, warning_kind
from rtlab.io import iter_json_lines, load_json
from rtlab.records import ReadWarning, Trajectory, trajectory_from_dict, trajectory_to_dict

CHAT = FIXTURES / "openai" / "chat_messages.jsonl"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------------------
# The contract's rules


def test_json_lines_skip_and_repair_and_say_where(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(
        '{"a": 1}\nError: spawn ps ENOENT\n{"b": "C:\\dir\\x"}\n{"c": [1,\n{"d": 2}\n{"e": "cut',
        encoding="utf-8",
    )
    warnings: list[str] = []
    assert [line for line, _ in iter_json_lines(path, warnings)] == [1, 3, 5]
    typed = [read_warning(w, str(path)) for w in warnings]
    assert [(w.line, w.kind) for w in typed] == [
        (2, "not-json"),
        (3, "repaired"),
        (4, "invalid-json"),
        (6, "truncated"),
    ]
    assert all(w.path == str(path) for w in typed)
    with pytest.raises(ReaderError, match=r"log\.jsonl:2: invalid JSON"):
        list(iter_json_lines(path))  # without a warnings list: the first fault raises, as before
    nothing = tmp_path / "notes.jsonl"
    nothing.write_text("a stderr line\nanother one\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="no line is a JSON record"):
        list(iter_json_lines(nothing, []))  # nothing in it is a record: refused


def test_a_json_document_is_repaired_where_that_keeps_every_intact_part(tmp_path: Path) -> None:
    doc = {
        "info": {"n": 1},
        "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}],
    }
    text = json.dumps(doc, indent=2)
    path = tmp_path / "doc.json"
    path.write_text(
        text.replace('"role": "assistant",', '"role": "assistant",\nTraceback (most recent call last):')
    )
    warnings: list[str] = []
    assert load_json(path, warnings) == doc and "not JSON ('Traceback" in warnings[0]
    path.write_text(text[: text.rindex('"y"')])  # cut inside the last message
    warnings = []
    assert load_json(path, warnings)["messages"] == doc["messages"][:1]  # the cut message left out whole
    assert read_warning(warnings[0], str(path)).kind == "truncated"
    with pytest.raises(ReaderError):
        load_json(path)  # without a warnings list, as before


def test_text_warnings_become_typed_records() -> None:
    w = read_warning(
        "/r/a.jsonl:7 [message.content[0].id]: missing field; record not understood, skipped", "/r/a.jsonl"
    )
    assert (w.path, w.line, w.field, w.kind) == ("/r/a.jsonl", 7, "message.content[0].id", "bad-record")
    assert str(w) == "/r/a.jsonl:7 [message.content[0].id]: missing field; record not understood, skipped"
    assert read_warning("line 3: the history is empty", "/r/o.jsonl") == ReadWarning(
        "/r/o.jsonl", 3, "the history is empty"
    )
    assert read_warning("samples[0]: no messages", "/r/x.eval").path == "/r/x.eval"  # not a path: the source
    kinds = {
        "unknown record type 'x'; skipped": "unknown-record",
        "call id 'c' is used by more than one open call": "duplicate-id",
        "tool_result for 'c' came before its call (line 9); paired by id": "orphan-result",
        "result for call id 'c' matches no tool call in the file; kept as an 'other' event": "orphan-result",
        "last line is not complete JSON (log cut off?); skipped": "truncated",
        "a note": "other",
    }
    assert {r: warning_kind(r) for r in kinds} == kinds


def test_warnings_round_trip_and_a_version_2_file_is_upgraded(tmp_path: Path) -> None:
    t = Trajectory(
        "x:1",
        "pi",
        "/r/s.jsonl",
        warnings=[ReadWarning("/r/s.jsonl", 4, "not JSON ('x'); skipped", "not-json")],
    )
    assert trajectory_from_dict(trajectory_to_dict(t)) == t
    old = trajectory_to_dict(
        Trajectory("x:2", "pi", "/r/s.jsonl", meta={"warnings": ["/r/s.jsonl:4: invalid JSON: y; skipped"]})
    )
    old["version"] = 2
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(old) + "\n", encoding="utf-8")
    (back,) = ingest([path]).trajectories
    assert back.warnings == [ReadWarning("/r/s.jsonl", 4, "invalid JSON: y; skipped", "invalid-json")]
    assert "warnings" not in back.meta


def _damaged_chat(tmp_path: Path) -> Path:
    lines = CHAT.read_text(encoding="utf-8").splitlines()
    lines.insert(2, "Error: spawn ps ENOENT")
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_strict_refuses_any_warning_naming_file_and_line(tmp_path: Path) -> None:
    path = _damaged_chat(tmp_path)
    intact = get_reader("openai-chat").read(CHAT, ReadOptions())[0]
    (t,) = get_reader("openai-chat").read(path, ReadOptions())
    assert t.n_steps == intact.n_steps and [(w.line, w.kind) for w in t.warnings] == [(3, "not-json")]
    with pytest.raises(ReaderError, match=r"chat\.jsonl:3: not JSON .*--strict"):
        get_reader("openai-chat").read(path, ReadOptions(strict=True))
    with pytest.raises(ReaderError, match=r"chat\.jsonl:3"):
        ingest([path], strict=True)
    code, out, err = run("info", str(path))
    assert code == 0 and "1 warnings (1 not-json)" in out and "1 reading warnings" in out
    code, out, _ = run("info", "--json", str(path))
    row = json.loads(out)
    assert (
        row["n_warnings"] == 1
        and row["warnings"][0]["line"] == 3
        and row["warnings"][0]["kind"] == "not-json"
    )
    code, _, err = run("info", "--strict", str(path))
    assert code == 2 and "chat.jsonl:3" in err
    code, _, err = run("replay", "--strict", "--json", str(path))
    assert code == 2 and "chat.jsonl:3" in err


def test_warnings_travel_through_canonical_jsonl(tmp_path: Path) -> None:
    path = _damaged_chat(tmp_path)
    out = tmp_path / "out.jsonl"
    assert run("ingest", str(path), "-o", str(out))[0] == 0
    (back,) = ingest([out]).trajectories
    assert [(w.path, w.line, w.kind) for w in back.warnings] == [(str(path), 3, "not-json")]
    with pytest.raises(ReaderError, match=r"chat\.jsonl:3"):
        ingest([out], strict=True)  # the warnings a canonical file carries count under --strict too


def test_a_file_with_no_step_says_so_and_detection_moves_to_a_reader_that_finds_steps(tmp_path: Path) -> None:
    """A text-based agent's chat log (a fenced command answered by the next user message): the Chat Completions
    reader, which detection picks, finds no tool call; the mini-swe-agent reader finds the command, so the file
    is read by it, saying why; asked for ``openai-chat``, the reader says which formats find steps."""
    messages = [
        {"role": "system", "content": "Reply with one bash block."},
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": "THOUGHT: look.\n\n```bash\nls\n```"},
        {"role": "user", "content": "a.txt\nb.txt"},
        {"role": "assistant", "content": "Done."},
    ]
    path = tmp_path / "text_agent.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    assert detect(path) == "openai-chat"
    (t,) = read_unit(path, "openai-chat", detected=True)
    assert t.format == "mini-swe-agent" and t.n_steps == 1 and t.steps[0].command == "ls"
    assert any(w.kind == "no-steps" and "detected as openai-chat" in w.reason for w in t.warnings)
    (asked,) = read_unit(path, "openai-chat")
    assert asked.n_steps == 0
    (said,) = [w for w in asked.warnings if w.kind == "no-steps"]
    assert "mini-swe-agent (1 steps)" in said.reason
    code, out, _ = run("info", "--json", str(path))
    assert code == 0 and json.loads(out)["format"] == "mini-swe-agent"


def test_mini_swe_agent_test_data_is_its_format(tmp_path: Path) -> None:
    """mini-swe-agent's own test data (tests/test_data/*.traj.json): a bare message list, no info, the
    ``mswea_bash_command`` fence; the submission is an event, not an answered step."""
    fence = "```mswea_bash_command"
    messages = [
        {
            "role": "system",
            "content": f"Format:\n{fence}\nyour_command_here\n```\nTo finish: `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`",
        },
        {"role": "user", "content": "Please solve this issue: fix it"},
        {"role": "assistant", "content": f"Look.\n\n{fence}\nls -la\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>"},
        {
            "role": "assistant",
            "content": f"Submit.\n\n{fence}\ngit diff && echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
        },
        {"role": "user", "content": "diff --git a/a.py b/a.py"},
    ]
    path = tmp_path / "github_issue.traj.json"
    path.write_text(json.dumps(messages, indent=2), encoding="utf-8")
    assert detect(path) == "mini-swe-agent"
    (t,) = ingest([path]).trajectories
    assert [s.command for s in t.steps] == ["ls -la"] and t.n_steps == 1
    (submitted,) = [e for e in t.events if e.data.get("submission")]
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in submitted.text
    assert submitted.data["output"] == "diff --git a/a.py b/a.py"


# ---------------------------------------------------------------------------------------------------------
# Every real log of the wild folders: answered steps counted from the raw records


def _jl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _values(path: Path) -> list[Any]:
    """JSON values one after another (JSON lines, or pretty-printed records)."""
    text, decoder, pos, out = path.read_text(encoding="utf-8"), json.JSONDecoder(), 0, []
    while m := re.compile(r"\S").search(text, pos):
        value, pos = decoder.raw_decode(text, m.start())
        out.append(value)
    return out


def _both(calls: list[Any], results: list[Any]) -> int:
    """Calls that got a result, by id (as many per id as there are both: ids repeat in a redacted log)."""
    made, got = Counter(calls), Counter(results)
    return sum(min(n, got[k]) for k, n in made.items())


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def raw_codex_exec(path: Path) -> int:
    """Tool items (commands, MCP and agent calls, web searches, file changes) that completed."""
    tools = {"command_execution", "mcp_tool_call", "file_change", "web_search", "collab_tool_call"}
    return len(
        {e["item"]["id"] for e in _jl(path) if e["type"] == "item.completed" and e["item"]["type"] in tools}
    )


def raw_codex_rollout(path: Path) -> int:
    """Function, custom and local shell calls answered by an output with their ``call_id``; web searches (their
    results come in the item itself)."""
    items = [v["payload"] for v in _values(path) if v.get("type") == "response_item"]
    calls = [
        i["call_id"] for i in items if i["type"] in ("function_call", "custom_tool_call", "local_shell_call")
    ]
    outputs = [i["call_id"] for i in items if i["type"].endswith("_call_output")]
    return _both(calls, outputs) + sum(1 for i in items if i["type"] == "web_search_call")


def raw_claude_code(path: Path) -> int:
    """``tool_use`` blocks answered by a ``tool_result`` block of the same agent (a stream's messages may be
    wrapped as ``{type, message: <message>}``)."""
    calls, results = [], []
    for rec in _jl(path):
        message = rec.get("message")
        if isinstance(message, dict) and isinstance(message.get("message"), dict):
            message = message["message"]
        agent = rec.get("parent_tool_use_id") if "parent_tool_use_id" in rec else rec.get("agentId")
        for block in (
            message.get("content")
            if isinstance(message, dict) and isinstance(message.get("content"), list)
            else []
        ):
            if block.get("type") == "tool_use":
                calls.append((agent, block["id"]))
            elif block.get("type") == "tool_result":
                results.append((agent, block["tool_use_id"]))
    return _both(calls, results)


def raw_chat(path: Path) -> int:
    """Calls (``tool_call`` blocks or ``tool_calls`` entries, once per id) answered by a message with their
    ``tool_call_id``."""
    messages = json.loads(path.read_text(encoding="utf-8"))["messages"]
    calls = {b["tool_call_id"] for m in messages for b in m["content"] if b.get("type") == "tool_call"}
    calls |= {c["id"] for m in messages for c in m.get("tool_calls") or []}
    return len(calls & {m["tool_call_id"] for m in messages if "tool_call_id" in m})


def raw_atif(path: Path) -> int:
    """Tool calls answered by an observation result naming them; a Terminus agent's keystroke batch (commands
    in its message's JSON) answered by the next (user) step."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        trajectories = doc if isinstance(doc, list) else [doc]
    except json.JSONDecodeError:  # a stream: a header line, then one step a line
        head, *steps = _jl(path)
        trajectories = [{**head, "steps": steps}]
    n = 0
    for t in trajectories:
        steps = t["steps"]
        for k, s in enumerate(steps):
            calls = [c["tool_call_id"] for c in s.get("tool_calls") or []]
            results = [r.get("source_call_id") for r in (s.get("observation") or {}).get("results") or []]
            n += _both(calls, results)
            if s["source"] == "agent" and not calls and isinstance(s.get("message"), str):
                try:
                    said = json.loads(s["message"])
                except json.JSONDecodeError:
                    continue
                answered = k + 1 < len(steps) and steps[k + 1]["source"] == "user"
                n += int(isinstance(said, dict) and bool(said.get("commands")) and answered)
    return n


def raw_inspect(path: Path) -> int:
    """Per sample, the assistants' tool calls answered by a tool message with their id (the ``.eval`` ZIP opened
    with rtlab's ZIP reader, which decompresses zstd members; the walk over the samples' JSON is this test's)."""
    if path.suffix == ".eval":
        from rtlab.ingest.readers._zip import ZipArchive

        with ZipArchive(path) as z:
            samples = [
                json.loads(z.read(n)) for n in z.names if n.startswith("samples/") and n.endswith(".json")
            ]
    else:
        samples = json.loads(path.read_text(encoding="utf-8")).get("samples") or []
    n = 0
    for sample in samples:
        messages = sample.get("messages", [])
        calls = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        n += _both(calls, [m.get("tool_call_id") for m in messages if m["role"] == "tool"])
    return n


def raw_mini_swe_agent(path: Path) -> int:
    """1.1: the tool messages (the submission has none: its output became the submission); 1: an assistant
    message with one command block answered by an observation (``<returncode>`` or the timeout template)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    messages = data["messages"] if isinstance(data, dict) else data
    if any(m["role"] == "tool" for m in messages):
        return sum(1 for m in messages if m["role"] == "tool")
    fence = re.compile(r"```(?:bash|mswea_bash_command)\s*\n")
    return sum(
        1
        for a, b in zip(messages, messages[1:], strict=False)
        if a["role"] == "assistant"
        and len(fence.findall(_text(a["content"]))) == 1
        and b["role"] == "user"
        and _text(b["content"]).startswith(("<returncode>", "The last command <command>"))
    )


def raw_swe_agent(path: Path) -> int:
    """The actions the model issued (not the harness's exits), less the last one when the history ends on its
    assistant entry (its result never reached the model)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    actions = [
        i for i in data["trajectory"] if i["action"].strip() and not i["action"].strip().startswith("exit")
    ]
    history = [h for h in data.get("history", []) if not h.get("is_demo")]
    return len(actions) - int(bool(history) and history[-1]["role"] == "assistant")


def _openhands_v1(events: list[dict[str, Any]]) -> int:
    calls = [e for e in events if e.get("kind") == "ActionEvent"]
    answered = {
        e.get("tool_call_id")
        for e in events
        if e.get("kind") in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation")
    }
    n = sum(1 for c in calls if c["tool_call_id"] in answered)
    if (
        calls
        and (calls[-1].get("action") or {}).get("kind") == "FinishAction"
        and calls[-1]["tool_call_id"] in answered
    ):
        after = events[events.index(calls[-1]) + 1 :]
        n -= int(not any(e.get("kind") == "MessageEvent" for e in after))  # a closing finish: never shown
    return n


def raw_openhands(path: Path) -> int:
    """V1 (``kind`` events): calls answered by an observation, error or rejection with their id, less a closing
    ``finish``; V0: agent actions (not messages, finish, thoughts, state changes) an observation names as its
    ``cause``."""
    if path.is_dir():
        return _openhands_v1(
            [
                json.loads(f.read_text(encoding="utf-8"))
                for f in sorted((path / "events").glob("event-*.json"))
            ]
        )
    n = 0
    quiet = {
        "message",
        "finish",
        "system",
        "think",
        "recall",
        "change_agent_state",
        "condensation",
        "delegate",
    }
    for rec in _jl(path):
        history = rec.get("history") or []
        if any("kind" in e for e in history):
            n += _openhands_v1(history)
        else:
            acts = {
                e["id"]
                for e in history
                if e.get("source") == "agent" and e.get("action") not in (None, *quiet)
            }
            n += len({e["cause"] for e in history if "observation" in e and e.get("cause") in acts})
    return n


def raw_pi(path: Path) -> int:
    """``toolCall`` blocks answered by a ``toolResult`` message with their id."""
    calls, results = [], []
    for entry in _jl(path):
        message = entry.get("message") or {}
        if message.get("role") == "assistant":
            calls += [b["id"] for b in message["content"] if b.get("type") == "toolCall"]
        elif message.get("role") == "toolResult":
            results.append(message["toolCallId"])
    return _both(calls, results)


RAW: dict[str, Callable[[Path], int]] = {
    "codex-exec": raw_codex_exec,
    "codex-rollout": raw_codex_rollout,
    "claude-code-stream": raw_claude_code,
    "claude-code-session": raw_claude_code,
    "chat-converted": raw_chat,
    "atif": raw_atif,
    "inspect": raw_inspect,
    "mini-swe-agent": raw_mini_swe_agent,
    "swe-agent": raw_swe_agent,
    "openhands": raw_openhands,
    "pi": raw_pi,
    # the raw counts of these readers' own tests (Markdown lines, terminal events, JSON walks)
    "aider": lambda path: sum(aider_answered(path.read_text(encoding="utf-8"))),
    "terminal-bench-cast": cast_answered,
    "gemini-cli": lambda path: gemini_counts(path)[1],
    "cline": lambda path: cline_counts(path / "api_conversation_history.json")[1],
    "opencode": lambda path: opencode_counts(path)[1],
    "otel-genai": lambda path: otel_counts(path)[1],
}

WARNINGS: dict[str, dict[str, int]] = {
    # file -> reading warnings over its trajectories, by kind (every other file: none)
    "openagents__session-2025-12-05T07-45-57-649Z-x8251x.atif.json": {"no-steps": 1, "other": 4},
    "openagents__session-2025-12-05T07-45-57-649Z-x8251x.atif.jsonl": {"no-steps": 1, "other": 4},
    "ibxbit-ledger__sessions__develop-1.jsonl": {"orphan-result": 2, "other": 1},
    "proctorworks__sessions__2026-04-02-003826-trajectory.json": {"no-steps": 1, "other": 1},
    "openagents__20251222__143545-call-issue-ready-now-to.jsonl": {"truncated": 1},
    "tielec__issue-558__00_planning__execute__agent_log_raw.txt": {"duplicate-id": 2, "other": 1},
    "inspect_ai__2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json": {"no-steps": 1},
    "scout__2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval": {"no-steps": 16},
    "mini__deepseek_reasoner_dev__pvlib__pvlib-python-1154.traj.json": {"no-steps": 1},
    "tb-agent-devrev__analyze-access-logs__agent.cast": {"no-steps": 1},
    "open-agent-traces__otel_traces_2025-06-29_00-23-24.json": {"no-steps": 1, "other": 1},
}
"""Why: ATIF sessions of a non-Harbor producer hold no tool call (observations only: said, plus its own notes);
the converted chat log has 2 results whose call the converter dropped; the empty conversion has no message; the
wrapped stream stops without its result line; the redacted stream's ids were all replaced (paired by shape);
Inspect logs without tools; a mini-swe-agent run that timed out before its first command; a Terminal-Bench cast in
which the agent never typed; a span dump with neither GenAI nor OpenInference attributes (said for its trace too)."""


def _wild_units(real: Path) -> list[Path]:
    wild = real / "wild"
    units = []
    for folder in sorted(p for p in wild.iterdir() if p.is_dir()):
        assert folder.name in RAW, f"a new wild folder {folder.name}: count its steps here"
        units += [p for p in sorted(folder.iterdir()) if not p.name.startswith("SPEC__")]
    return units


def test_every_wild_folder_has_its_raw_count(real: Path) -> None:
    assert {p.name for p in (real / "wild").iterdir() if p.is_dir()} == set(RAW)


def test_every_wild_log_reads_its_answered_steps_with_its_warnings_pinned(real: Path) -> None:
    units = _wild_units(real)
    assert len(units) == 61
    for unit in units:
        result = ingest([unit], join=False)
        assert result.failures == [] and result.trajectories, unit
        folder = unit.parent.name if unit.is_file() else unit.name
        if folder not in RAW:
            folder = unit.parent.name
        assert sum(t.n_steps for t in result.trajectories) == RAW[folder](unit), unit
        kinds = Counter(w.kind for t in result.trajectories for w in t.warnings)
        assert dict(kinds) == WARNINGS.get(unit.name, {}), (
            unit,
            [str(w) for t in result.trajectories for w in t.warnings],
        )
        for t in result.trajectories:
            assert all(Path(w.path).name == unit.name or unit.is_dir() for w in t.warnings), t.id


def test_replay_runs_on_every_wild_log(real: Path) -> None:
    units = _wild_units(real)
    code, out, err = run("replay", "--json", "--jobs", "2", "--no-join", *map(str, units))
    assert code == 0, err
    assert len(out.splitlines()) == sum(len(ingest([u], join=False).trajectories) for u in units)


def test_claude_code_2_1_parallel_results_and_progress_forks(real: Path) -> None:
    """2.1.x sessions: every parallel call's result (off the ``parentUuid`` walk, under its own call record) and the
    turn hung off a call whose chain went on through ``progress`` records are on the path the model saw."""
    folder = real / "wild" / "claude-code-session"
    for name, calls in (("strawhat404-task119__sessions__session.jsonl", 131), ("speakfree__session.jsonl", 74),
                        ("fitcommerce15__sessions__session-1.jsonl", 83)):  # fmt: skip
        (t,) = ingest([folder / name], join=False).trajectories
        assert len(t.steps) == calls and t.meta["records_recovered"] > 0
        assert [s.index for s in t.steps] == list(range(len(t.steps)))


# ---------------------------------------------------------------------------------------------------------
# The corruption suite


STRAY = "Error: spawn ps ENOENT"
"""A stderr line among the records (as a harness saved it in one real Claude Code log)."""


@dataclass
class Damageable:
    """One format's real file and where its records are."""

    fmt: str
    source: Path
    """The file (or run folder) copied and damaged."""
    log: str | None
    """In a run folder: the file of records damaged (relative); ``None``: the source is the file."""
    layout: str
    """``lines`` (one record a line) or ``doc`` (a list of records in one JSON document)."""
    records: Callable[[Any], list[Any]]
    """The list of records in the parsed document (``doc``) or in the list of lines (``lines``)."""
    unknown: Any
    """A record of a type the reader does not know."""
    pair: Callable[[list[Any]], tuple[int, int]] | None
    """``(call, result)`` positions of a call and its result; ``None`` where the format links by order alone."""
    mistype: Callable[[list[Any]], tuple[int, Any]]
    """A record given a field of the wrong type, and its position."""
    mistype_lost: int
    """Steps lost by it (its call left unanswered) or 0 (repaired, or not a step's record)."""
    cut_lost: int
    """Steps lost when the last record is cut off (it answered them)."""
    line: Callable[[int], int] | None = None
    """The line a record at a position is reported at (default: its position plus one)."""
    unpaired: str = "results are not linked to calls by file order and id"
    """Why a result cannot come before its call, where ``pair`` is ``None`` (the skip reason)."""


def _first(records: list[Any], test: Callable[[Any], bool]) -> int:
    return next(i for i, r in enumerate(records) if test(r))


def _pair_by(
    call: Callable[[Any], str | None], result: Callable[[Any], str | None]
) -> Callable[[list[Any]], tuple[int, int]]:
    """The first result and the call with its id, given how each names it."""

    def find(records: list[Any]) -> tuple[int, int]:
        r = _first(records, lambda rec: result(rec) is not None)
        cid = result(records[r])
        return _first(records, lambda rec: call(rec) == cid), r

    return find


def _blocks(rec: Any, kind: str, key: str) -> str | None:
    message = rec.get("message") if isinstance(rec, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and b.get("type") == kind:
            return b.get(key)
    return None


def _retyped(rec: dict[str, Any], path: list[str], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    node = out
    for key in path[:-1]:
        node = node[key] if not isinstance(node, list) else node[int(key)]
    node[path[-1]] = value
    return out


def _mistype_at(
    test: Callable[[Any], bool], path: list[str], value: Any = 12345
) -> Callable[[list[Any]], tuple[int, Any]]:
    def make(records: list[Any]) -> tuple[int, Any]:
        i = _first(records, test)
        return i, _retyped(records[i], path, value)

    return make


def _pi_result(r: Any) -> str | None:
    message = r.get("message", {})
    return message.get("toolCallId") if message.get("role") == "toolResult" else None


def _rollout(kind: str) -> Callable[[Any], str | None]:
    def call_id(r: Any) -> str | None:
        payload = r.get("payload", {})
        return (
            payload.get("call_id")
            if r.get("type") == "response_item" and payload.get("type") == kind
            else None
        )

    return call_id


def _chat_tool(m: Any) -> str | None:
    return m.get("tool_call_id") if m.get("role") == "tool" else None


def _chat_call(m: Any) -> str | None:
    return (m.get("tool_calls") or [{}])[0].get("id") if m.get("role") == "assistant" else None


def _gemini_mistyped(records: list[Any]) -> tuple[int, Any]:
    """The last version of the first ``gemini`` message with one tool call, its ``toolCalls`` an int (an earlier
    version of a message is replaced by its last, unread)."""
    ids = [r.get("id") for r in records]
    i = next(
        i
        for i, r in enumerate(records)
        if r.get("type") == "gemini" and len(r.get("toolCalls") or []) == 1 and r["id"] not in ids[i + 1 :]
    )
    return i, _retyped(records[i], ["toolCalls"], 12345)


_CLINE_RESULT = re.compile(r"\[[\w-]+(?: for .*?)?\] Result:", re.S)


def _cline_mistyped(records: list[Any]) -> tuple[int, Any]:
    """The first user message holding one tool result (``[tool for ...] Result:`` text), its content an int."""
    i = _first(
        records,
        lambda m: (
            m["role"] == "user"
            and sum(1 for b in m["content"] if b.get("type") == "text" and _CLINE_RESULT.match(b["text"]))
            == 1
        ),
    )
    return i, _retyped(records[i], ["content"], 12345)


def _opencode_mistyped(records: list[Any]) -> tuple[int, Any]:
    """The first completed tool part of the export, its ``state`` an int."""
    i = _first(records, lambda m: any(p.get("state", {}).get("status") == "completed" for p in m["parts"]))
    j = next(j for j, p in enumerate(records[i]["parts"]) if p.get("state", {}).get("status") == "completed")
    return i, _retyped(records[i], ["parts", str(j), "state"], 12345)


def _cast_mistyped(records: list[Any]) -> tuple[int, Any]:
    """An output event that is neither a prompt nor a command's echo, its time a string."""
    i = _first(records, lambda r: isinstance(r, list) and r[1] == "o" and r[2].startswith("total "))
    return i, [str(records[i][0]), *records[i][1:]]


def _specs() -> list[Damageable]:
    wild = REAL / "wild"
    pi_result, chat_tool, chat_call = _pi_result, _chat_tool, _chat_call
    rollout_out, rollout_call = _rollout("function_call_output"), _rollout("function_call")
    return [
        Damageable(
            "codex",
            wild / "codex-exec" / "tielec__pr-436__analyze__agent_log.md",
            None,
            "lines",
            lambda r: r,
            {"type": "thread.forked", "thread_id": "x"},
            _pair_by(
                lambda r: r["item"]["id"] if r.get("type") == "item.started" else None,
                lambda r: (
                    r["item"]["id"]
                    if r.get("type") == "item.completed" and r["item"].get("type") == "command_execution"
                    else None
                ),
            ),
            _mistype_at(
                lambda r: r.get("type") == "item.completed" and r["item"].get("type") == "command_execution",
                ["item", "aggregated_output"],
            ),
            1,
            0,  # the first command's result lost; the last line is turn.completed (usage only)
        ),  # fmt: skip
        Damageable(
            "codex-rollout",
            wild
            / "codex-rollout"
            / "acidicsoil__rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
            None,
            "lines",
            lambda r: r,
            {"timestamp": "2025-11-17T15:30:28Z", "type": "world_state", "payload": {}},
            _pair_by(rollout_call, rollout_out),
            _mistype_at(
                lambda r: rollout_out(r) is not None, ["payload", "output"], {"exit": 0, "text": "x"}
            ),
            0,
            0,  # an object output is read as its JSON text; the last record is a token count
        ),  # fmt: skip
        Damageable(
            "claude-code-stream",
            wild / "claude-code-stream" / "tielec__issue-221__04_implementation__execute__agent_log_raw.txt",
            None,
            "lines",
            lambda r: r,
            {"type": "control_request", "request": {}},
            _pair_by(
                lambda r: _blocks(r, "tool_use", "id"), lambda r: _blocks(r, "tool_result", "tool_use_id")
            ),
            _mistype_at(
                lambda r: _blocks(r, "tool_result", "tool_use_id") is not None, ["message", "content"], 7
            ),
            1,
            0,  # the result's line not understood: its call unanswered; the last line is the result message
        ),  # fmt: skip
        Damageable(
            "claude-code-session",
            wild / "claude-code-session" / "apanloco-random__session.jsonl",
            None,
            "lines",
            lambda r: r,
            {"type": "worktree-snapshot", "sessionId": "s"},
            None,  # results hang off their call's record (parentUuid): the file's order does not link them
            _mistype_at(
                lambda r: _blocks(r, "tool_result", "tool_use_id") is not None, ["message", "content"], 7
            ),
            1,
            0,
        ),  # fmt: skip
        Damageable(
            "pi",
            wild / "pi" / "civ6ch__session.jsonl",
            None,
            "lines",
            lambda r: r,
            {"type": "rewind", "id": "zz-unknown", "parentId": None},
            None,  # the branch is the parentId chain from the last entry: the file's order does not link them
            _mistype_at(lambda r: pi_result(r) is not None, ["message", "toolCallId"], 7),
            1,
            0,
        ),  # fmt: skip
        Damageable(
            "openai-chat",
            wild / "chat-converted" / "amansolo9-task20__sessions__bugfix-1.json",
            None,
            "doc",
            lambda d: d["messages"],
            {"role": "narrator", "content": [{"type": "text", "text": "?"}]},
            _pair_by(chat_call, chat_tool),
            _mistype_at(lambda m: chat_tool(m) is not None, ["tool_call_id"], 7),
            1,
            0,  # the last message is the assistant's summary
        ),  # fmt: skip
        Damageable(
            "mini-swe-agent",
            wild / "mini-swe-agent" / "mini__deepseek_chat_dev__sqlfluff__sqlfluff-2419.traj.json",
            None,
            "doc",
            lambda d: d["messages"],
            {"role": "narrator", "content": "?"},
            _pair_by(
                lambda m: (
                    (m.get("extra", {}).get("actions") or [{}])[0].get("tool_call_id")
                    if m["role"] == "assistant"
                    else None
                ),
                lambda m: m.get("tool_call_id") if m["role"] == "tool" else None,
            ),
            _mistype_at(lambda m: m["role"] == "tool", ["tool_call_id"], 7),
            1,
            0,  # the last message is the exit (the submission)
        ),  # fmt: skip
        Damageable(
            "swe-agent",
            wild / "swe-agent" / "sweagent__demo__marshmallow-1867__function_calling_replace.traj",
            None,
            "doc",
            lambda d: d["history"],
            {"role": "narrator", "content": "?", "agent": "main"},
            None,  # a step and its observation are one trajectory item
            _mistype_at(lambda h: h["role"] == "tool", ["role"], 7),
            1,
            1,  # an observation's history entry skipped, or cut off: its step's result is not on record as shown
        ),  # fmt: skip
        Damageable(
            "atif",
            wild / "atif" / "openagents__qa-runner__login-trace__trajectory.json",
            None,
            "doc",
            lambda d: d["steps"],
            {"step_id": 99, "source": "narrator", "message": "?"},
            None,  # a call and its observation are one step
            _mistype_at(lambda s: bool(s.get("tool_calls")), ["tool_calls"], 7),
            1,
            1,
        ),  # fmt: skip
        Damageable(
            "openhands",
            REAL / "theagentcompany" / "openhands-trajectories" / "traj_pm-send-hello-message-image.json",
            None,
            "doc",
            lambda d: d,
            {"id": 999, "source": "agent", "mystery": True},
            _pair_by(
                lambda e: e["id"] if e.get("action") == "run" else None,
                lambda e: e.get("cause") if e.get("observation") == "run" else None,
            ),
            _mistype_at(lambda e: e.get("observation") == "run", ["cause"], "3"),
            1,
            0,  # the last event is the finish
        ),  # fmt: skip
        Damageable(
            "openhands-v1",
            wild / "openhands" / "openhands-benchmarks__openagentsafety__gpt-4o__output.jsonl",
            None,
            "eval",
            lambda r: r[0]["history"],
            {"kind": "MysteryEvent", "id": "m1", "source": "agent"},
            _pair_by(
                lambda e: e.get("tool_call_id") if e.get("kind") == "ActionEvent" else None,
                lambda e: e.get("tool_call_id") if e.get("kind") == "ObservationEvent" else None,
            ),
            _mistype_at(lambda e: e.get("kind") == "ObservationEvent", ["observation"], 7),
            1,
            9,
            lambda i: 1,  # the second instance's line is the last record (its 9 steps); events of line 1
        ),  # fmt: skip
        Damageable(
            "g2b",
            REAL / "officeqa" / "g2b-gpt-5.4-traces" / "v2_branch2__oqa-58_s0",
            "exec_r0.jsonl",
            "lines",
            lambda r: r,
            {
                "step": 0,
                "timestamp": "2026-06-20T17:45:45+00:00",
                "event": "mystery",
                "agent": "system",
                "content": {},
            },
            None,  # results follow their calls by order and tool name (no ids)
            _mistype_at(lambda r: r.get("event") == "tool_output", ["content", "output"], 7),
            1,
            0,
        ),  # fmt: skip
        Damageable(
            "dci",
            FIXTURES / "dci" / "20260210-141503",
            "conversation_full.json",
            "doc",
            lambda d: d["messages"],
            {"role": "narrator", "content": "?"},
            _pair_by(
                lambda m: _blocks({"message": m}, "toolCall", "id") if m.get("role") == "assistant" else None,
                lambda m: m.get("toolCallId") if m.get("role") == "toolResult" else None,
            ),
            _mistype_at(lambda m: m.get("role") == "toolResult", ["toolCallId"], 7),
            1,
            0,
        ),  # fmt: skip
        Damageable(
            "openai-responses",
            FIXTURES / "openai" / "responses_items.jsonl",
            None,
            "lines",
            lambda r: r,
            {"type": "mystery_call", "id": "m1"},
            _pair_by(
                lambda r: r.get("call_id") if r.get("type") == "function_call" else None,
                lambda r: r.get("call_id") if r.get("type") == "function_call_output" else None,
            ),
            _mistype_at(lambda r: r.get("type") == "function_call_output", ["call_id"], 7),
            1,
            0,
        ),  # fmt: skip
        Damageable(
            "inspect",
            wild / "inspect" / "inspect_ai__log_message_deduplication.eval",
            None,
            "inspect",
            lambda d: d["samples"][0]["messages"],
            {"role": "narrator", "content": "?"},
            _pair_by(
                lambda m: (m.get("tool_calls") or [{}])[0].get("id") if m["role"] == "assistant" else None,
                lambda m: m.get("tool_call_id") if m["role"] == "tool" else None,
            ),
            _mistype_at(lambda m: m["role"] == "tool", ["tool_call_id"], 7),
            1,
            0,
        ),  # fmt: skip
        Damageable(
            "gemini-cli",
            wild / "gemini-cli" / "axe__session.jsonl",
            None,
            "lines",
            lambda r: r,
            {"kind": "checkpoint", "value": 1},
            None,
            _gemini_mistyped,
            1,
            0,  # the last line is a $set of the session's facts
            unpaired="a session's tool call holds its own result",
        ),  # fmt: skip
        Damageable(
            "cline",
            wild / "cline" / "online-card-architecture__task-1769053680585",
            "api_conversation_history.json",
            "doc",
            lambda d: d,
            {"role": "narrator", "content": [{"type": "text", "text": "?"}]},
            None,
            _cline_mistyped,
            1,
            0,  # the last message is the attempt_completion call, never answered
            unpaired="Cline 3.51's results are text naming their tool, not an id: each answers the earliest open "
            "call of its tool, so order is what links them",
        ),  # fmt: skip
        Damageable(
            "opencode",
            wild / "opencode" / "dark-factory__session__silent-nebula__ses_39b2e52e8ffeokU5mBDCeUvc8t.json",
            None,
            "doc",
            lambda d: d["messages"],
            {"info": {"role": "narrator"}, "parts": []},
            None,
            _opencode_mistyped,
            1,
            0,  # the last message holds the one tool part still running
            unpaired="a tool part holds its call and its result",
        ),  # fmt: skip
        Damageable(
            "otel",
            wild / "otel-genai" / "any-agent__OPENAI_trace.json",
            None,
            "doc",
            lambda d: d["spans"],
            {"name": "gen_ai.client.operation.duration", "kind": "HISTOGRAM", "data_points": []},
            None,
            _mistype_at(
                lambda s: s["attributes"].get("gen_ai.operation.name") == "execute_tool", ["attributes"], 7
            ),
            1,
            0,  # the last span is invoke_agent
            unpaired="a tool span records its call and its result together",
        ),  # fmt: skip
        Damageable(
            "asciicast",
            FIXTURES / "asciicast" / "terminus-v2.cast",
            None,
            "lines",
            lambda r: r,
            [2.5, "z", "?"],
            None,
            _cast_mistyped,
            0,
            0,
            unpaired="no ids: a command's output is what the terminal printed after it, in time",
        ),  # fmt: skip
    ]


UNDAMAGEABLE: dict[str, dict[str, str]] = {
    "aider": {
        "stray_line": "Markdown: a stray line is text of the conversation, not a record that fails to parse",
        "cut_last_record": "Aider appends whole lines as it goes: a history cut off is a shorter one",
        "unknown_record": "Aider's own lines ('> ...') are notices of any words: none has a type to be unknown",
        "result_before_call": "no ids: a result reaches the model with the next request, whatever it answers",
        "mistyped_field": "Markdown lines have no typed fields",
    },
}
"""Formats none of whose records the damages of the suite apply to, and why (each case skipped, saying so)."""


def _copy(spec: Damageable, tmp_path: Path) -> tuple[Path, Path]:
    """The unit copied into ``tmp_path`` (an Inspect ``.eval`` as the equivalent ``.json`` log), and its log."""
    if spec.layout == "inspect":
        from rtlab.ingest.readers._zip import ZipArchive

        tmp_path.mkdir(parents=True, exist_ok=True)
        with ZipArchive(spec.source) as z:
            header = json.loads(z.read("header.json"))
            samples = [
                json.loads(z.read(n)) for n in z.names if n.startswith("samples/") and n.endswith(".json")
            ]
        unit = tmp_path / "log.json"
        unit.write_text(json.dumps({**header, "samples": samples}, indent=1), encoding="utf-8")
        return unit, unit
    tmp_path.mkdir(parents=True, exist_ok=True)
    unit = tmp_path / spec.source.name
    if spec.source.is_dir():
        shutil.copytree(spec.source, unit)
    else:
        shutil.copy(spec.source, unit)
    return unit, unit / spec.log if spec.log else unit


def _parse(spec: Damageable, log: Path) -> Any:
    if spec.layout in ("lines", "eval"):
        return _jl(log)
    return json.loads(log.read_text(encoding="utf-8"))


def _write(spec: Damageable, log: Path, data: Any) -> None:
    if spec.layout in ("lines", "eval"):
        log.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in data) + "\n", encoding="utf-8")
    else:
        log.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")


def _steps(spec: Damageable, unit: Path, **options: Any) -> list[Trajectory]:
    return get_reader(spec.fmt).read(unit, ReadOptions(**options))


DAMAGES = ("stray_line", "cut_last_record", "unknown_record", "result_before_call", "mistyped_field")


def _damage(spec: Damageable, log: Path, kind: str) -> tuple[int, set[int]]:
    """Damage ``log`` in one way; returns ``(steps lost, the lines the damage may be reported at)``."""
    data = _parse(spec, log)
    records = spec.records(data)
    at = spec.line or (lambda i: i + 1)
    if kind in ("stray_line", "cut_last_record"):
        text = log.read_text(encoding="utf-8")
        if spec.layout in ("lines", "eval"):
            lines = text.rstrip("\n").split("\n")
            if kind == "stray_line":
                k = len(lines) // 2
                lines.insert(k, STRAY)
                log.write_text("\n".join(lines) + "\n", encoding="utf-8")
                return 0, {k + 1}
            lines[-1] = lines[-1][: len(lines[-1]) // 2]
            log.write_text("\n".join(lines), encoding="utf-8")
            return spec.cut_lost, {len(lines)}
        # a document: mark a record, then find its line in the pretty-printed text
        target = len(records) // 2 if kind == "stray_line" else len(records) - 1
        records[target] = (
            {"__mark__": 1, **records[target]} if isinstance(records[target], dict) else records[target]
        )
        lines = json.dumps(data, indent=1, ensure_ascii=False).split("\n")
        mark = next(k for k, ln in enumerate(lines) if '"__mark__": 1' in ln)
        del lines[mark]
        if kind == "stray_line":
            lines.insert(mark - 1, STRAY)  # before the line opening the marked record
            log.write_text("\n".join(lines), encoding="utf-8")
            return 0, {mark}
        log.write_text("\n".join(lines[: mark + 1]), encoding="utf-8")  # cut inside the last record
        return spec.cut_lost, {mark + 1}
    if kind == "unknown_record":
        k = len(records) // 2
        records.insert(k, spec.unknown)
        _write(spec, log, data)
        return 0, {at(k)}
    if kind == "result_before_call":
        assert spec.pair is not None
        call, result = spec.pair(records)
        records.insert(call, records.pop(result))
        _write(spec, log, data)
        return 0, {at(call), at(call + 1)}  # the result, now first, or its call after it
    i, record = spec.mistype(records)
    records[i] = record
    _write(spec, log, data)
    return spec.mistype_lost, {at(i)}


def _cases() -> list[Any]:
    if not REAL.is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=f"real data not present at {REAL}"))]
    out = []
    for spec in _specs():
        for kind in DAMAGES:
            marks = []
            if kind == "result_before_call" and spec.pair is None:
                marks = [pytest.mark.skip(reason=f"{spec.fmt}: {spec.unpaired}")]
            out.append(pytest.param(spec, kind, id=f"{spec.fmt}-{kind}", marks=marks))
    for fmt, why in UNDAMAGEABLE.items():
        for kind in DAMAGES:
            skip = pytest.mark.skip(reason=f"{fmt}: {why[kind]}")
            out.append(pytest.param(None, kind, id=f"{fmt}-{kind}", marks=[skip]))
    return out


@pytest.mark.parametrize(("spec", "kind"), _cases())
def test_a_damaged_real_log_reads_every_intact_record(spec: Damageable, kind: str, tmp_path: Path) -> None:
    unit, log = _copy(spec, tmp_path / "intact")
    _write(spec, log, _parse(spec, log))  # the same records, written as the damaged copy will be
    intact = sum(t.n_steps for t in _steps(spec, unit))
    assert intact > 1, "a file with steps to lose"
    damaged_unit, damaged_log = _copy(spec, tmp_path / "damaged")
    _write(spec, damaged_log, _parse(spec, damaged_log))
    lost, lines = _damage(spec, damaged_log, kind)
    found = _steps(spec, damaged_unit)
    assert sum(t.n_steps for t in found) == intact - lost
    warnings = [w for t in found for w in t.warnings]
    assert any(w.line in lines and Path(w.path).name == damaged_log.name for w in warnings), (
        lines,
        [str(w) for w in warnings],
    )
    with pytest.raises(ReaderError, match=re.escape(damaged_log.name)):
        _steps(spec, damaged_unit, strict=True)
