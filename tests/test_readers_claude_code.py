"""The Claude Code readers (stream-json output and session files): hand-made logs for every record kind and
edge case, the harness's frames, and the real logs of ``wild/claude-code-stream`` and ``wild/claude-code-session``
(counted here from their raw records, pinned per file, replayed, and one run's read log checked by hand)."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtlab.cli import main as cli_main
from rtlab.environment import Workspace, replay
from rtlab.errors import ReaderError
from rtlab.ingest import ingest
from rtlab.ingest.readers import ReadOptions, claude_code_session, claude_code_stream, detect
from rtlab.ingest.readers._frames import (
    _CC_FOUND_FILES,
    _CC_GLOB_CLIPPED,
    _CC_LINES_CLIPPED,
    _CC_PAGINATION,
    _CC_PERSISTED_TAIL,
    _CC_REMINDER,
    _reminders,
    claude_code_clipped,
    claude_code_frames,
    output_frames,
)
from rtlab.records import Action, Frame, Step, TokenUsage, trajectory_from_dict, trajectory_to_dict

CWD = "/work/proj"
SESSION = "5d3b1c2a-0000-4000-8000-00000000c0de"


def jsonl(path: Path, *records: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def numbered(*lines: str, start: int = 1) -> str:
    """Read's ``cat -n`` form as Claude Code 1.0-2.0 writes it."""
    return "\n".join(f"{i:>6}\u2192{text}" for i, text in enumerate(lines, start))


def frame_texts(step: Step) -> list[tuple[str, str]]:
    shown = step.shown or ""
    return [(f.kind, shown[f.start : f.end]) for f in step.frames]


# ---------------------------------------------------------------------------------------------------------
# stream-json: builders


def init(**extra: Any) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": CWD,
        "session_id": SESSION,
        "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "TodoWrite"],
        "mcp_servers": [],
        "model": "claude-sonnet-4-5-20250929",
        "permissionMode": "bypassPermissions",
        "apiKeySource": "none",
        "claude_code_version": "2.0.21",
        **extra,
    }


def usage(inp: int, out: int, write: int = 0, read: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": out,
        "service_tier": "standard",
    }


def say(msg_id: str, *blocks: dict[str, Any], parent: str | None = None, u: dict | None = None) -> dict:
    return {
        "type": "assistant",
        "message": {
            "model": "claude-sonnet-4-5-20250929",
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": list(blocks),
            "stop_reason": None,
            "usage": u or usage(3, 1),
        },
        "parent_tool_use_id": parent,
        "session_id": SESSION,
    }


def results(*blocks: dict[str, Any], parent: str | None = None) -> dict:
    return {
        "type": "user",
        "message": {"role": "user", "content": list(blocks)},
        "parent_tool_use_id": parent,
        "session_id": SESSION,
    }


def use(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def result(call_id: str, content: Any, is_error: bool | None = None) -> dict[str, Any]:
    block = {"tool_use_id": call_id, "type": "tool_result", "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


def text(t: str) -> dict[str, str]:
    return {"type": "text", "text": t}


READ_BODY = numbered("def area(r):", "    return 3.14159 * r * r", "")
REMINDER = (
    "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks malicious. If it "
    "does, you MUST refuse to improve or augment the code.\n</system-reminder>\n"
)
LONG_OUT = "x" * 30_000 + "\n\n... [412 lines truncated] ..."
WRITTEN = "# Plan\n\nstep one\n"


def stream_run(tmp_path: Path, name: str = "agent_log_raw.txt") -> Path:
    """A stream-json run: parallel calls answered out of order, a Task sub-agent, a clipped Bash output, a
    Write then an Edit of the written file, a call cut off by the turn limit."""
    return jsonl(
        tmp_path / name,
        init(),
        say("msg_1", {"type": "thinking", "thinking": "Look at the code first.", "signature": "s"}),
        say("msg_1", text("I'll read the geometry module and search for callers.")),
        say("msg_1", use("toolu_read", "Read", file_path=f"{CWD}/src/geo.py", offset=1, limit=3)),
        say("msg_1", use("toolu_grep", "Grep", pattern="area\\(", output_mode="content", **{"-n": True})),
        say("msg_1", use("toolu_glob", "Glob", pattern="**/*.py"), u=usage(3, 40, 100, 2000)),
        results(
            result("toolu_grep", "src/app.py:7:    print(area(2))\nsrc/geo.py:1:def area(r):"),
            result("toolu_read", READ_BODY + REMINDER),
        ),
        results(
            result(
                "toolu_glob",
                f"{CWD}/src/app.py\n{CWD}/src/geo.py\n"
                "(Results are truncated. Consider using a more specific path or pattern.)",
            )
        ),
        say(
            "msg_2",
            use(
                "toolu_task",
                "Task",
                description="Find tests",
                prompt="List the tests.",
                subagent_type="Explore",
            ),
        ),  # fmt: skip
        say(
            "sub_1", use("toolu_sub_read", "Read", file_path=f"{CWD}/tests/test_geo.py"), parent="toolu_task"
        ),
        results(
            result("toolu_sub_read", numbered("def test_area():", "    assert area(1) > 3")),
            parent="toolu_task",
        ),  # fmt: skip
        say("sub_2", text("One test: tests/test_geo.py."), parent="toolu_task"),
        results(result("toolu_task", [text("One test: tests/test_geo.py.")])),
        say("msg_3", use("toolu_bash", "Bash", command="python -m pytest -q", description="Run tests")),
        results(result("toolu_bash", "Exit code 1\n" + LONG_OUT, is_error=True)),
        say("msg_4", use("toolu_write", "Write", file_path=f"{CWD}/PLAN.md", content=WRITTEN)),
        results(result("toolu_write", f"File created successfully at: {CWD}/PLAN.md")),
        say(
            "msg_5",
            use(
                "toolu_edit",
                "Edit",
                file_path=f"{CWD}/PLAN.md",
                old_string="step one",
                new_string="step one\nstep two",
            ),
        ),  # fmt: skip
        results(result("toolu_edit", f"The file {CWD}/PLAN.md has been updated.")),
        say("msg_6", text("Fixing the test next.")),
        say(
            "msg_6",
            use(
                "toolu_cut", "Edit", file_path=f"{CWD}/src/geo.py", old_string="3.14159", new_string="math.pi"
            ),
        ),  # fmt: skip
        {
            "type": "result",
            "subtype": "error_max_turns",
            "duration_ms": 1000,
            "is_error": False,
            "num_turns": 6,
            "session_id": SESSION,
            "total_cost_usd": 0.25,
            "usage": usage(20, 900, 300, 5000),
            "modelUsage": {"claude-sonnet-4-5-20250929": {"inputTokens": 20, "outputTokens": 900}},
            "permission_denials": [],
        },
    )


def read_stream(path: Path, clip: str | None = None, strict: bool = False):
    return claude_code_stream.read(path, ReadOptions(clip=clip, strict=strict))


# ---------------------------------------------------------------------------------------------------------
# stream-json: detection


def test_stream_is_detected_by_content_under_any_name(tmp_path: Path) -> None:
    for name in ("agent_log_raw.txt", "run.md", "out.jsonl", "stream"):
        path = stream_run(tmp_path, name)
        assert claude_code_stream.sniff(path), name
        assert detect(path) == "claude-code-stream", name
        assert not claude_code_session.sniff(path)


def test_stream_sniff_allows_hook_output_before_init_and_needs_an_init(tmp_path: Path) -> None:
    hook = {"type": "system", "subtype": "hook_response", "hook_name": "SessionStart", "stdout": ""}
    assert claude_code_stream.sniff(jsonl(tmp_path / "a.txt", hook, init()))
    # a 1.0-era init without claude_code_version still has tools, mcp_servers and apiKeySource
    old = init()
    del old["claude_code_version"]
    assert claude_code_stream.sniff(jsonl(tmp_path / "b.txt", old))
    del old["apiKeySource"]
    assert not claude_code_stream.sniff(jsonl(tmp_path / "c.txt", old))
    assert not claude_code_stream.sniff(jsonl(tmp_path / "d.txt", say("m", text("hi")), init()))
    assert not claude_code_stream.sniff(jsonl(tmp_path / "e.jsonl", {"type": "thread.started"}))
    assert not claude_code_stream.sniff(tmp_path)
    assert not claude_code_stream.sniff(tmp_path / "missing.txt")


def test_other_readers_fixtures_are_not_claimed(fixtures: Path) -> None:
    own = (fixtures / "claude-code", fixtures / "claude-code-2.1.332")
    for path in sorted(p for p in fixtures.rglob("*") if p.is_file() and not set(own) & set(p.parents)):
        assert not claude_code_stream.sniff(path), path
        assert not claude_code_session.sniff(path), path


def test_the_fixture_files_are_this_module_s_runs(fixtures: Path, tmp_path: Path) -> None:
    # tests/fixtures/claude-code holds stream_run and session_run as written by them (the CLI's every-format
    # test ingests them): the files must be what the builders write today
    own = fixtures / "claude-code"
    stream_run(tmp_path, "agent_log_raw.txt")
    session_run(tmp_path)
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    kept = sorted(p.relative_to(own) for p in own.rglob("*") if p.is_file())
    assert made == kept
    for rel in made:
        assert (own / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel


# ---------------------------------------------------------------------------------------------------------
# stream-json: reading


def test_stream_run(tmp_path: Path) -> None:
    main, sub = read_stream(stream_run(tmp_path))
    assert (main.id, main.format, main.harness, main.harness_version) == (
        f"claude-code-stream:{SESSION}",
        "claude-code-stream",
        "claude-code",
        "2.0.21",
    )
    assert (main.model, main.cwd, main.clip_policy) == ("claude-sonnet-4-5-20250929", CWD, "claude-code")
    assert main.instruction is None  # the -p prompt is not in the stream
    assert main.usage == TokenUsage(
        input_tokens=5320, output_tokens=900, cached_input_tokens=5000, cost_usd=0.25
    )
    assert main.meta["result_subtype"] == "error_max_turns" and main.meta["num_turns"] == 6
    assert main.meta["tools"][0] == "Task"
    assert main.meta["subagents"] == [sub.id]
    assert main.meta["unanswered_calls"] == ["toolu_cut"]

    names = [s.tool for s in main.steps]
    assert names == ["Read", "Grep", "Glob", "Task", "Bash", "Write", "Edit", "Edit"]
    assert main.n_steps == 7 and not main.steps[-1].answered
    read, grep, glob, task, bash, write, edit, cut = main.steps
    # parallel calls, answered out of order and in two messages: each result found its call by id
    assert read.output == READ_BODY + REMINDER and grep.output.startswith("src/app.py:7:")
    assert read.command == f"read {CWD}/src/geo.py 1 3"
    assert read.action == Action("read", path=f"{CWD}/src/geo.py", offset=1, limit=3, line_numbers=True)
    assert frame_texts(read) == [("frame", REMINDER)]
    assert grep.action == Action("search", pattern="area\\(", line_numbers=True)
    assert glob.action == Action("list", pattern="**/*.py") and glob.clipped
    assert frame_texts(glob)[-1][1].endswith(
        "(Results are truncated. Consider using a more specific path or pattern.)"
    )
    assert task.action == Action.other("Task") and task.output == "One test: tests/test_geo.py."
    assert bash.action == Action.shell("python -m pytest -q")
    assert (bash.exit_code, bash.is_error, bash.clipped) == (1, True, True)
    assert frame_texts(bash) == [("frame", "Exit code 1\n"), ("clip", "\n\n... [412 lines truncated] ...")]
    assert bash.shown == bash.output  # the log holds what Claude Code sent: its own cut included
    assert (write.action, edit.action) == (
        Action("write", path=f"{CWD}/PLAN.md"),
        Action("edit", path=f"{CWD}/PLAN.md"),
    )
    (plan,) = main.deliverable.files
    assert (plan.path, plan.origin, plan.content) == (
        f"{CWD}/PLAN.md",
        "write_tool",
        "# Plan\n\nstep one\nstep two\n",
    )
    assert (
        main.deliverable.final_message == "Fixing the test next."
    )  # no result text: the last assistant text

    kinds = [(x.kind if hasattr(x, "kind") else x.tool) for x in main.timeline()]
    assert kinds[:6] == ["reasoning", "message", "Read", "Grep", "Glob", "Task"]
    assert kinds[-1] == "error" and main.events[-1].data["subtype"] == "error_max_turns"
    assert [x.seq for x in main.timeline()] == list(range(len(kinds)))

    assert (sub.id, sub.parent_id, sub.parent_call_id) == (
        f"{main.id}/task-toolu_task",
        main.id,
        "toolu_task",
    )
    assert (sub.instruction, sub.deliverable.final_message) == (
        "List the tests.",
        "One test: tests/test_geo.py.",
    )
    assert [s.tool for s in sub.steps] == ["Read"] and sub.n_steps == 1
    assert sub.meta["subagent_type"] == "Explore"
    assert sub.usage == TokenUsage(input_tokens=6, cached_input_tokens=0)  # no output count in stream-json


def test_stream_final_message_is_the_result_text(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "s.txt",
        init(),
        say("m1", text("Working.")),
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": "Done: PLAN.md written.",
            "usage": usage(1, 2),
            "total_cost_usd": 0.01,
            "session_id": SESSION,
        },  # fmt: skip
    )
    (t,) = read_stream(path)
    assert t.deliverable.final_message == "Done: PLAN.md written."
    assert not [e for e in t.events if e.kind == "error"]


def test_stream_round_trip_and_clip_override(tmp_path: Path) -> None:
    path = stream_run(tmp_path)
    for t in read_stream(path):
        assert trajectory_from_dict(trajectory_to_dict(t)) == t
    main = read_stream(path, clip="codex-256-lines")[0]  # a user's choice of another harness's cut
    assert main.clip_policy == "codex-256-lines"
    bash = next(s for s in main.steps if s.tool == "Bash")
    assert bash.shown != bash.output and "output truncated to fit 10240 bytes" in (bash.shown or "")
    assert bash.clipped and len(bash.shown or "") < 10_400


def test_stream_redacted_ids_are_paired_by_order_and_shape(tmp_path: Path) -> None:
    """A sanitiser replaced every tool_use id by one token (as in the real issue-558 log): a Read and a Grep
    answered in the other order still get their own results, and the log says how it paired them."""
    rid = "[REDACTED_TOKEN]"
    path = jsonl(
        tmp_path / "redacted.txt",
        init(session_id=rid, model=rid),
        say(rid, use(rid, "Grep", pattern="area", output_mode="files_with_matches")),
        say(rid, use(rid, "Read", file_path=f"{CWD}/src/geo.py")),
        results(result(rid, READ_BODY)),
        results(result(rid, "Found 1 file\nsrc/geo.py")),
    )
    (t,) = read_stream(path)
    grep, read = t.steps
    assert read.output == READ_BODY and grep.output == "Found 1 file\nsrc/geo.py"
    assert t.id == "claude-code-stream:redacted" and t.model == rid
    warnings = " ".join([str(w) for w in t.warnings])
    assert "2 tool calls share 1 tool_use id" in warnings and "0 results had several" in warnings
    assert "not an id" in warnings


def test_stream_orphan_result_and_unknown_message(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "o.txt",
        init(),
        results(result("toolu_nowhere", "stray")),
        {"type": "control_response", "response": {}},
        {"type": "stream_event", "event": {"type": "message_start"}},
    )
    (t,) = read_stream(path)
    assert t.n_steps == 0
    orphan = next(e for e in t.events if e.data.get("orphan_result"))
    assert orphan.text == "stray" and orphan.kind == "other"
    warnings = " ".join([str(w) for w in t.warnings])
    assert "answers no open call" in warnings and "'control_response'" in warnings
    assert "no result message" in warnings
    assert t.meta["messages"]["stream_event"] == 1


@pytest.mark.parametrize(
    ("records", "match"),
    [
        ([init(), "not an object"], r"o\.txt:2: expected a message object"),
        ([init(), {"message": {}}], r"o\.txt:2 \[type\]: missing field"),
        ([init(), {"type": "assistant", "parent_tool_use_id": None}], r"o\.txt:2 \[message\]: missing field"),
        (
            [init(), say("m", {"type": "tool_use", "name": "Bash", "input": {}})],
            r"\[message\.content\[0\]\.id\]",
        ),
        (
            [init(), results({"type": "tool_result", "content": "x"})],
            r"\[message\.content\[0\]\.tool_use_id\]",
        ),
        ([init(), say("m", "not a block")], r"\[message\.content\[0\]\]: content block is str"),
        ([init(), {**results(), "parent_tool_use_id": 7}], r"\[parent_tool_use_id\]: expected str or null"),
    ],
)
def test_stream_malformed_records_name_line_and_field(tmp_path: Path, records: list, match: str) -> None:
    """A malformed record is skipped with a warning naming file, line and field (issue 24); ``--strict``
    refuses the file with that warning as its error."""
    path = jsonl(tmp_path / "o.txt", *records)
    (t,) = read_stream(path)
    assert any(re.search(match, str(w)) for w in t.warnings), t.warnings
    with pytest.raises(ReaderError, match=match):
        claude_code_stream.read(path, ReadOptions(strict=True))


def test_stream_bad_json_and_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(
        json.dumps(init()) + "\n{not json\n" + json.dumps(say("m", text("x"))) + "\n", encoding="utf-8"
    )
    (t,) = read_stream(path)  # the broken line is skipped, the rest read (issue 24)
    assert [str(w) for w in t.warnings if w.kind == "invalid-json"] == [
        f"{path}:2: invalid JSON: Expecting property name enclosed in double quotes (column 2); skipped"
    ]
    with pytest.raises(ReaderError, match=r"bad\.txt:2: invalid JSON"):
        claude_code_stream.read(path, ReadOptions(strict=True))
    cut = tmp_path / "cut.txt"
    cut.write_text(
        json.dumps(init()) + "\n" + json.dumps(say("m", text("x"))) + '\n{"type": "assist', encoding="utf-8"
    )
    (t,) = read_stream(cut)
    assert any("cut off" in w for w in [str(w) for w in t.warnings])
    (tmp_path / "empty.txt").write_text("\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="empty"):
        read_stream(tmp_path / "empty.txt", strict=True)


# ---------------------------------------------------------------------------------------------------------
# Session files: builders


class Session:
    """Session records linked by parentUuid, with line-by-line control over branches and side chains."""

    def __init__(self, version: str = "2.0.65", session: str = SESSION) -> None:
        self.records: list[dict[str, Any]] = []
        self.version = version
        self.session = session
        self.last: str | None = None
        self.n = 0

    def add(self, kind: str, *, parent: Any = "last", sidechain: bool = False, **fields: Any) -> str:
        self.n += 1
        uuid = f"u{self.n:03d}"
        rec = {
            "parentUuid": self.last if parent == "last" else parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": fields.pop("cwd", CWD),
            "sessionId": self.session,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": f"2025-12-11T21:{self.n // 60:02d}:{self.n % 60:02d}.000Z",
            **fields,
        }
        self.records.append(rec)
        self.last = uuid
        return uuid

    def user(self, content: Any, **kw: Any) -> str:
        return self.add("user", message={"role": "user", "content": content}, **kw)

    def assistant(self, msg_id: str, *blocks: dict, model: str = "claude-haiku-4-5-20251001",
                  u: dict | None = None, **kw: Any) -> str:  # fmt: skip
        message = {"model": model, "id": msg_id, "type": "message", "role": "assistant", "content": list(blocks),
                   "stop_reason": None, "usage": u or usage(10, 1, 0, 100)}  # fmt: skip
        return self.add("assistant", message=message, requestId=f"req_{msg_id}", **kw)

    def write(self, path: Path, *head: dict) -> Path:
        return jsonl(path, *head, *self.records)


def session_run(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A 2.x session: a queue-operation line first, a retried answer (an abandoned branch), a compaction, a
    Task whose sub-agent lives in its own file, Claude Code's meta text and an API error."""
    s = Session()
    ids: dict[str, str] = {}
    s.user("Summarise src/geo.py in NOTES.md.")
    root_answer = s.last
    s.assistant("msg_a", text("First try."), u=usage(10, 1, 50, 0))
    s.assistant("msg_a", use("toolu_old", "Bash", command="cat src/geo.py"), u=usage(10, 20, 50, 0))
    s.user([result("toolu_old", "def area(r): ...", is_error=False)],
           toolUseResult={"stdout": "def area(r): ...", "stderr": "", "interrupted": False})  # fmt: skip
    ids["abandoned_leaf"] = s.last or ""
    # the user pressed escape and retried: a new branch from the first message
    s.last = root_answer
    s.assistant(
        "msg_b", {"type": "thinking", "thinking": "Read it with the Read tool."}, u=usage(10, 1, 60, 0)
    )
    s.assistant("msg_b", use("toolu_read", "Read", file_path=f"{CWD}/src/geo.py"), u=usage(10, 30, 60, 0),
                cwd=f"{CWD}/src")  # fmt: skip
    s.user([result("toolu_read", READ_BODY + REMINDER)],
           toolUseResult={"type": "text", "file": {"filePath": f"{CWD}/src/geo.py", "content": "..."}})  # fmt: skip
    ids["before_compaction"] = s.last or ""
    boundary = s.add("system", parent=None, subtype="compact_boundary", content="Conversation compacted",
                     logicalParentUuid=ids["before_compaction"], compactMetadata={"trigger": "auto", "preTokens": 9000},
                     level="info")  # fmt: skip
    s.user("This session is being continued from a previous conversation. Summary: geo.py computes areas.",
           isCompactSummary=True, parent=boundary)  # fmt: skip
    s.user("Caveat: The messages below were generated by the user while running local commands.", isMeta=True)
    s.user([text("(no content)")])
    s.assistant("msg_c", use("toolu_task", "Task", description="Check tests", prompt="Find the tests of geo.py.",
                             subagent_type="general-purpose"), u=usage(5, 7, 0, 500))  # fmt: skip
    s.user([result("toolu_task", [text("tests/test_geo.py tests area().")])],
           toolUseResult={"status": "completed", "agentId": "a1b2c3d", "prompt": "Find the tests of geo.py.",
                          "content": [text("tests/test_geo.py tests area().")], "totalToolUseCount": 1})  # fmt: skip
    s.assistant("msg_err", text("API Error: Request was aborted."), model="<synthetic>", isApiErrorMessage=True,
                u=usage(0, 0))  # fmt: skip
    s.assistant("msg_d", use("toolu_write", "Write", file_path=f"{CWD}/NOTES.md", content=WRITTEN),
                u=usage(5, 9, 0, 700))  # fmt: skip
    s.user([result("toolu_write", f"File created successfully at: {CWD}/NOTES.md")],
           toolUseResult={"type": "create", "filePath": f"{CWD}/NOTES.md", "content": WRITTEN})  # fmt: skip
    s.assistant("msg_e", text("NOTES.md written."), u=usage(5, 4, 0, 800))
    head = [
        {
            "type": "queue-operation",
            "operation": "dequeue",
            "timestamp": "2025-12-11T21:00:00.000Z",
            "sessionId": SESSION,
        },  # fmt: skip
        {
            "type": "file-history-snapshot",
            "messageId": "u001",
            "snapshot": {"trackedFileBackups": {}},
            "isSnapshotUpdate": False,
        },  # fmt: skip
    ]
    return s.write(tmp_path / "project" / f"{SESSION}.jsonl", *head), ids


def agent_file(where: Path, agent_id: str = "a1b2c3d") -> Path:
    s = Session()
    s.user("Find the tests of geo.py.", sidechain=True, agentId=agent_id)
    s.assistant("sub_1", use("toolu_sub", "Glob", pattern="tests/**/*.py"), model="claude-sonnet-4-5-20250929",
                sidechain=True, agentId=agent_id)  # fmt: skip
    s.user([result("toolu_sub", f"{CWD}/tests/test_geo.py")], sidechain=True, agentId=agent_id)
    s.assistant("sub_2", text("tests/test_geo.py tests area()."), model="claude-sonnet-4-5-20250929",
                sidechain=True, agentId=agent_id)  # fmt: skip
    return s.write(where / f"agent-{agent_id}.jsonl")


def read_session(path: Path, strict: bool = False):
    return claude_code_session.read(path, ReadOptions(strict=strict))


# ---------------------------------------------------------------------------------------------------------
# Session files: detection


def test_session_sniff_skips_records_off_the_chain(tmp_path: Path) -> None:
    path, _ = session_run(tmp_path)
    assert claude_code_session.sniff(path) and detect(path) == "claude-code-session"
    assert not claude_code_stream.sniff(path)
    summary = {"type": "summary", "summary": "Geo notes", "leafUuid": "u009"}
    lines = path.read_text(encoding="utf-8").splitlines()
    with_summary = tmp_path / "with_summary.jsonl"
    with_summary.write_text(json.dumps(summary) + "\n" + "\n".join(lines[2:]) + "\n", encoding="utf-8")
    assert claude_code_session.sniff(with_summary)
    only_titles = jsonl(tmp_path / "titles.jsonl", summary, summary)
    assert claude_code_session.sniff(only_titles)  # claimed; reading says there is nothing to read
    with pytest.raises(ReaderError, match="no user or assistant records"):
        read_session(only_titles, strict=True)
    assert claude_code_session.sniff(jsonl(tmp_path / "saved.txt", *map(json.loads, lines)))  # any name
    assert not claude_code_session.sniff(
        jsonl(tmp_path / "pi.jsonl", {"type": "session", "id": "x", "version": 3})
    )
    assert not claude_code_session.sniff(
        jsonl(tmp_path / "mix.jsonl", summary, {"type": "message", "role": "user"})
    )


def test_session_sniff_reads_a_long_first_line_by_its_keys(tmp_path: Path) -> None:
    s = Session()
    s.user("x" * 100_000)
    s.assistant("m", text("ok"))
    path = s.write(tmp_path / "long.jsonl")
    assert claude_code_session.sniff(path)
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"type": "user", "text": "x" * 100_000}) + "\n", encoding="utf-8")
    assert not claude_code_session.sniff(other)


def test_session_of_2_1_332_bookkeeping_records_are_known(fixtures: Path, tmp_path: Path) -> None:
    # the session file of tests/test_harness_e2e.py's Claude Code 2.1.332 run (a Read, a Bash, tab_add, an early stop
    # blocked by the finish check, tab_resolve), its paths moved to /home/user and the long strings of its
    # bookkeeping records (the system prompt in api-request-shape, tool listings in attachments) cut; the
    # user / assistant / system records are as the CLI wrote them
    path = fixtures / "claude-code-2.1.332" / "session.jsonl"
    kinds = Counter(json.loads(line)["type"] for line in path.read_text(encoding="utf-8").splitlines())
    new = {"tools-used", "atis-latch", "api-request-shape", "api-request-blob", "api-request", "cost-state"}
    assert new <= set(kinds) and kinds["tools-used"] == 7 and kinds["api-request"] == 6
    assert new <= claude_code_session.OFF_CHAIN_TYPES
    (t,) = read_session(path, strict=True)  # not one warning (23 before these types were known)
    assert t.warnings == [] and t.harness_version == "2.1.332" and t.cwd == "/home/user/proj"
    assert [
        (s.tool, s.action.kind if s.action else None, s.action.op if s.action else None) for s in t.steps
    ] == [
        ("Read", "read", None),
        ("Bash", "shell", None),
        ("mcp__tab__tab_add", "tab", "add"),
        ("mcp__tab__tab_resolve", "tab", "resolve"),
    ]
    assert t.steps[0].shown is not None and t.steps[0].shown.startswith("1\tRevenue 2024: 12 million\n")
    assert replay(t, requirements="trajectory").tab.requirements[0].status == "done"
    # a type Claude Code's table does not name is still said, once per record
    lines = path.read_text(encoding="utf-8").splitlines()
    newer = tmp_path / "newer.jsonl"
    extra = {"type": "brand-new-record", "sessionId": t.id}
    newer.write_text("\n".join([*lines[:3], json.dumps(extra), *lines[3:]]) + "\n", encoding="utf-8")
    (u,) = read_session(newer)
    assert [w.reason for w in u.warnings] == ["unknown record type 'brand-new-record'; skipped"]
    assert u.warnings[0].line == 4


# ---------------------------------------------------------------------------------------------------------
# Session files: reading


def test_session_main_path(tmp_path: Path) -> None:
    path, ids = session_run(tmp_path)
    (t,) = read_session(path)
    assert (t.id, t.format, t.harness, t.harness_version, t.model) == (
        f"claude-code-session:{SESSION}",
        "claude-code-session",
        "claude-code",
        "2.0.65",
        "claude-haiku-4-5-20251001",  # the <synthetic> API error is not the run's model
    )
    assert t.meta["models"] == {"claude-haiku-4-5-20251001": 4}
    assert (t.cwd, t.instruction) == (CWD, "Summarise src/geo.py in NOTES.md.")
    assert (t.started_at, t.ended_at) == ("2025-12-11T21:00:01.000Z", "2025-12-11T21:00:17.000Z")
    # the retry's branch is the path; the first try is kept as facts only
    assert [s.call_id for s in t.steps] == ["toolu_read", "toolu_task", "toolu_write"]
    (branch,) = t.meta["abandoned_branches"]
    assert branch == {"leaf_uuid": ids["abandoned_leaf"], "leaf_line": 6, "from_line": 4, "forks_at_line": 3,
                      "records": 3, "tool_calls": 1}  # fmt: skip
    # the compaction boundary's logicalParentUuid joined the pieces before and after it
    assert t.meta["compactions_joined"] == 1
    compactions = [e for e in t.events if e.kind == "compaction"]
    assert [e.text for e in compactions] == ["Conversation compacted", compactions[1].text]
    assert (
        compactions[0].data["compactMetadata"]["preTokens"] == 9000
        and compactions[1].data["isCompactSummary"]
    )
    meta_text = next(e for e in t.events if e.data.get("isMeta"))
    assert meta_text.kind == "system" and meta_text.role == "user"
    empty = next(e for e in t.events if e.text == "(no content)")
    assert empty.kind == "system"  # Claude Code's stand-in for an empty message
    error = next(e for e in t.events if e.kind == "error")
    assert error.text == "API Error: Request was aborted." and error.data == {"model": "<synthetic>"}

    read, task, write = t.steps
    assert read.cwd == f"{CWD}/src" and read.started_at == "2025-12-11T21:00:06.000Z"
    assert read.ended_at == "2025-12-11T21:00:07.000Z"
    assert read.action == Action("read", path=f"{CWD}/src/geo.py", line_numbers=True)
    assert frame_texts(read) == [("frame", REMINDER)]
    assert task.output == "tests/test_geo.py tests area()."
    assert t.meta["subagent_files"] == [{"call_id": "toolu_task", "agent_id": "a1b2c3d"}]
    (notes,) = t.deliverable.files
    assert (notes.path, notes.content, notes.origin) == (f"{CWD}/NOTES.md", WRITTEN, "write_tool")
    assert t.deliverable.final_message == "NOTES.md written."
    # usage: each response once (the lines of msg_b share its usage, the largest output count is the final
    # one), the synthetic message none
    assert t.usage == TokenUsage(input_tokens=10 + 60 + 5 + 500 + 5 + 700 + 5 + 800, output_tokens=30 + 7 + 9 + 4,
                                 cached_input_tokens=500 + 700 + 800)  # fmt: skip
    assert t.meta["records"]["queue-operation"] == 1 and t.meta["records"]["file-history-snapshot"] == 1
    assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_agent_file_links_to_the_task_call_beside_it(tmp_path: Path) -> None:
    path, _ = session_run(tmp_path)
    # 2.1: <project>/<session>/subagents/agent-<id>.jsonl beside <project>/<session>.jsonl
    sub_path = agent_file(path.parent / SESSION / "subagents")
    assert detect(sub_path) == "claude-code-session"
    (sub,) = read_session(sub_path)
    assert (sub.id, sub.parent_id, sub.parent_call_id) == (
        f"claude-code-session:{SESSION}/agent-a1b2c3d",
        f"claude-code-session:{SESSION}",
        "toolu_task",
    )
    assert sub.meta["parent_session_file"] == str(path)
    assert (sub.instruction, sub.model, sub.n_steps) == (
        "Find the tests of geo.py.",
        "claude-sonnet-4-5-20250929",
        1,
    )
    assert sub.steps[0].action == Action("list", pattern="tests/**/*.py")
    # 2.0: the agent file sits in the project folder itself
    flat = agent_file(path.parent)
    assert read_session(flat)[0].parent_call_id == "toolu_task"
    # a run folder that renamed the session file: the .jsonl beside subagents/ whose records name the session
    renamed = tmp_path / "run"
    (renamed / "subagents").mkdir(parents=True)
    path.rename(renamed / "haiku-run.jsonl")
    (moved,) = read_session(agent_file(renamed / "subagents"))
    assert moved.parent_call_id == "toolu_task" and moved.meta["parent_session_file"].endswith(
        "haiku-run.jsonl"
    )
    # no session file beside it: linked by session id, the call unknown and said so
    alone = agent_file(tmp_path / "elsewhere")
    (lone,) = read_session(alone)
    assert lone.parent_id == f"claude-code-session:{SESSION}" and lone.parent_call_id is None
    assert "not beside it" in lone.meta["parent_call_note"]
    # a folder read whole: the session and its sub-agent, linked
    found = {t.id: t for t in ingest([renamed]).trajectories}
    assert found[sub.id].parent_id in found and found[sub.id].parent_call_id == "toolu_task"


def test_inline_side_chains_and_compactions_of_1_0(tmp_path: Path) -> None:
    """1.0.x: side chains inline under their own roots; a compaction starts a new root with no link back,
    so the piece written before it is joined by file order."""
    s = Session(version="1.0.29")
    s.user("Fix the router.")
    s.assistant("m1", use("toolu_t1", "Task", description="Look", prompt="Find router examples.",
                          subagent_type="general-purpose"), model="claude-opus-4-20250514")  # fmt: skip
    task_call = s.last
    s.user("Find router examples.", parent=None, sidechain=True)
    s.assistant("s1", use("toolu_s1", "Grep", pattern="Router", path=CWD), model="claude-opus-4-20250514",
                sidechain=True)  # fmt: skip
    s.user([result("toolu_s1", "Found 1 file\n/work/proj/src/router.ts")], sidechain=True)
    s.assistant("s2", text("src/router.ts has one."), model="claude-opus-4-20250514", sidechain=True)
    s.last = task_call
    s.user([result("toolu_t1", [text("src/router.ts has one.")])],
           toolUseResult={"content": [text("src/router.ts has one.")], "totalTokens": 900, "usage": {}})  # fmt: skip
    s.assistant(
        "m2", use("toolu_r", "Read", file_path=f"{CWD}/src/router.ts"), model="claude-opus-4-20250514"
    )
    s.user([result("toolu_r", numbered("export const router = {}"))])
    s.user("This session is being continued from a previous conversation that ran out of context.",
           parent=None, isCompactSummary=True)  # fmt: skip
    s.user("go")
    s.assistant("m3", use("toolu_b", "Bash", command="npm test"), model="claude-opus-4-20250514")
    s.user([result("toolu_b", "> test\nok", is_error=False)],
           toolUseResult={"stdout": "> test\nok", "stderr": "", "interrupted": False, "isImage": False})  # fmt: skip
    path = s.write(tmp_path / "old.jsonl", {"type": "summary", "summary": "Router fix", "leafUuid": s.last})
    main, side = read_session(path)
    assert [x.call_id for x in main.steps] == ["toolu_t1", "toolu_r", "toolu_b"]
    assert main.meta["compactions_joined"] == 1 and "abandoned_branches" not in main.meta
    assert main.instruction == "Fix the router."
    title = next(e for e in main.events if e.data.get("type") == "summary")
    assert (title.kind, title.text, title.data["leaf_line"]) == ("compaction", "Router fix", 14)
    assert (side.parent_id, side.parent_call_id) == (main.id, "toolu_t1")
    assert side.id == f"{main.id}/sidechain-u003"
    assert (
        side.instruction == "Find router examples."
        and side.deliverable.final_message == "src/router.ts has one."
    )
    assert side.steps[0].action == Action("list", pattern="Router")
    assert main.meta["sidechains"] == [side.id]
    assert main.harness_version == "1.0.29"


def test_session_tool_use_result_carries_edits_through_changes_made_elsewhere(tmp_path: Path) -> None:
    """An Edit after a formatter rewrote the written file applies to the file as the edit found it
    (``toolUseResult.originalFile``), not to the stale content of the Write."""
    s = Session()
    s.user("Write a.py")
    s.assistant("m1", use("w", "Write", file_path=f"{CWD}/a.py", content="x=1\n"))
    s.user([result("w", "File created successfully at: /work/proj/a.py")])
    s.assistant("m2", use("b", "Bash", command="black a.py"))
    s.user([result("b", "reformatted a.py", is_error=False)])
    s.assistant("m3", use("e", "Edit", file_path=f"{CWD}/a.py", old_string="x = 1", new_string="x = 2"))
    s.user([result("e", "The file /work/proj/a.py has been updated.")],
           toolUseResult={"filePath": f"{CWD}/a.py", "oldString": "x = 1", "newString": "x = 2",
                          "originalFile": "x = 1\n", "structuredPatch": [], "userModified": False})  # fmt: skip
    (t,) = read_session(s.write(tmp_path / "e.jsonl"))
    assert [f.content for f in t.deliverable.files] == ["x = 2\n"]
    # without originalFile (stream-json has none) the edit cannot apply to "x=1\n": content unknown, said so
    for rec in s.records:
        rec.pop("toolUseResult", None)
    (t,) = read_session(s.write(tmp_path / "f.jsonl"))
    assert [f.content for f in t.deliverable.files] == [None]
    assert any("does not apply" in w for w in [str(w) for w in t.warnings])


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda r: r.update(uuid=5), r"\[uuid\]: expected str"),
        (lambda r: r.update(parentUuid=3), r"\[parentUuid\]: expected str or null"),
        (lambda r: r.pop("message"), r"\[message\]: missing field"),
        (lambda r: r["message"].update(content=3), r"\[message\.content\]: expected list or str"),
    ],
)
def test_session_malformed_records_name_line_and_field(tmp_path: Path, change, match: str) -> None:
    s = Session()
    s.user("hi")
    s.assistant("m", text("hello"))
    change(s.records[1])
    path = s.write(tmp_path / "m.jsonl")
    (t,) = read_session(path)  # the record is skipped (or its parent taken as none), the rest read (issue 24)
    assert t.instruction == "hi"
    assert any(re.search(r"m\.jsonl:2 " + match, str(w)) for w in t.warnings), t.warnings
    with pytest.raises(ReaderError, match=r"m\.jsonl:2 " + match):
        claude_code_session.read(path, ReadOptions(strict=True))


def test_session_cycle_and_dangling_parent(tmp_path: Path) -> None:
    s = Session()
    s.user("hi")
    s.assistant("m", text("hello"))
    s.records[0]["parentUuid"] = "u002"
    s.records[1]["parentUuid"] = "u001"
    (t,) = read_session(s.write(tmp_path / "cycle.jsonl"))  # the loop broken at its first record (issue 24)
    assert t.instruction == "hi" and any("cycle" in str(w) for w in t.warnings)
    with pytest.raises(ReaderError, match="cycle"):
        claude_code_session.read(tmp_path / "cycle.jsonl", ReadOptions(strict=True))
    s.records[0]["parentUuid"] = "u999"  # a record of an earlier file (a resumed session)
    s.records[1]["parentUuid"] = "u001"
    (t,) = read_session(s.write(tmp_path / "dangling.jsonl"))
    assert t.instruction == "hi" and any("names no record" in w for w in [str(w) for w in t.warnings])


# ---------------------------------------------------------------------------------------------------------
# Claude Code's frames


@pytest.mark.parametrize(
    ("shown", "tool", "expected"),
    [
        ("No files found", "glob", [("frame", "No files found")]),
        ("No matches found", "content", [("frame", "No matches found")]),
        ("(Bash completed with no output)", "shell", [("frame", "(Bash completed with no output)")]),
        ("<tool_use_error>File does not exist.</tool_use_error>", "read",
         [("frame", "<tool_use_error>File does not exist.</tool_use_error>")]),
        ("[Request interrupted by user for tool use]", "shell",
         [("frame", "[Request interrupted by user for tool use]")]),
        ("<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>", "read",
         [("frame", "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>")]),
        ("File unchanged since last read. The content from the earlier Read tool_result is still current.",
         "read", [("frame", "File unchanged since last read. The content from the earlier Read tool_result is "
                   "still current.")]),
        ("Found 2 files\nsrc/a.py\nsrc/b.py", "files", [("frame", "Found 2 files\n")]),
        ("Found 2 files limit: 2, offset: 0\nsrc/a.py\nsrc/b.py", "files",
         [("frame", "Found 2 files limit: 2, offset: 0\n")]),
        ("src/a.py:3\nsrc/b.py:1\n\nFound 4 total occurrences across 2 files.", "count",
         [("frame", ":3"), ("frame", ":1"), ("frame", "\n\nFound 4 total occurrences across 2 files.")]),
        ("src/a.py:3:x = 1\n\n[Showing results with pagination = limit: 250, offset: 0]", "content",
         [("frame", "\n\n[Showing results with pagination = limit: 250, offset: 0]")]),
        ("out\nShell cwd was reset to /work/proj", "shell", [("frame", "Shell cwd was reset to /work/proj")]),
        ("partial\n<error>Command was aborted before completion</error>", "shell",
         [("frame", "<error>Command was aborted before completion</error>")]),
        ("Command running in background with ID: bash_1. Output is being written to: /tmp/x", "shell",
         [("frame", "Command running in background with ID: bash_1. Output is being written to: /tmp/x")]),
        ("<persisted-output>\nOutput too large (1.2MB). Full output saved to: /tmp/r.txt\n\nPreview (first 2KB):\n"
         "line 1\nline 2\n...\n</persisted-output>", "shell",
         [("frame", "<persisted-output>\nOutput too large (1.2MB). Full output saved to: /tmp/r.txt\n\n"
                    "Preview (first 2KB):\n"), ("clip", "\n..."), ("frame", "\n</persisted-output>")]),
        ("head\n\n... [3 lines truncated] ...\n\ntail", "shell", [("clip", "\n\n... [3 lines truncated] ...\n\n")]),
        ("Exit code 2\nboom", "shell", [("frame", "Exit code 2\n")]),
        ("Exit code 2\nboom", "read", []),  # only Bash writes an exit header
        ("src/a.py\nFound 2 files", "files", []),  # the header is only ever first
    ],
)  # fmt: skip
def test_claude_code_frames(shown: str, tool, expected: list[tuple[str, str]]) -> None:
    frames = claude_code_frames(shown, tool=tool, clipped=claude_code_clipped(shown))
    assert [(f.kind, shown[f.start : f.end]) for f in frames] == expected
    assert all(a.end <= b.start for a, b in zip(frames, frames[1:], strict=False))


def _clipped_by_the_patterns(shown: str) -> bool:
    """:func:`claude_code_clipped` as its patterns say it, each searched over the whole result."""
    return bool(
        _CC_LINES_CLIPPED.search(shown)
        or ((m := _CC_FOUND_FILES.match(shown)) and "limit:" in m.group(0))
        or (shown.startswith("<persisted-output>") and (m := _CC_PERSISTED_TAIL.search(shown)) and m.group(1))
        or _CC_GLOB_CLIPPED.search(shown)
        or _CC_PAGINATION.search(shown)
    )


_CLIP_PIECES = [
    "\n", "\n\n", "]", "[", "x", " ", "\r", "\u2028", "Found 3 files", "limit: 5, offset: 0]",
    "(Results are truncated. Consider using a more specific path or pattern.)",
    "[Showing results with pagination = ", "\n\n[Showing results with pagination = ",
    "\n\n... [3 lines truncated] ...\n\n", "<persisted-output>", "\n...\n</persisted-output>",
]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_CLIP_PIECES), max_size=9))
def test_claude_code_clipped_is_what_its_patterns_find(pieces: list[str]) -> None:
    """The glob notice and the pagination line are told from the result's end, not searched for: the same
    answer as the patterns searched over the whole result."""
    shown = "".join(pieces)
    assert claude_code_clipped(shown) == _clipped_by_the_patterns(shown)


def test_claude_code_words_in_logs_of_unknown_harness() -> None:
    """``any`` (openai-format logs of an unknown harness) includes Claude Code's words; other harnesses'
    rules do not see them."""
    shown = numbered("a", "b") + REMINDER
    (reminder,) = output_frames(shown, "", clipped=False, harness="any")
    assert shown[reminder.start :] == REMINDER
    assert output_frames(shown, "", clipped=False, harness="codex") == ()
    tab = "out\n\n[tab] 3 entries"
    assert output_frames(tab, "", clipped=False, harness="claude-code") == (Frame(3, len(tab), "frame"),)


def test_numbered_read_is_confirmed_against_the_workspace(tmp_path: Path) -> None:
    """Claude Code's ``     N→`` prefixes do not keep a read from matching the file it showed."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "geo.py").write_text("def area(r):\n    return 3.14159 * r * r\n", encoding="utf-8")
    path = jsonl(
        tmp_path / "s.txt",
        init(),
        say("m1", use("r1", "Read", file_path=f"{CWD}/src/geo.py")),
        results(result("r1", READ_BODY + REMINDER)),
    )
    (t,) = read_stream(path)
    r = replay(t, workspace=Workspace(ws, agent_root=CWD))
    (entry,) = r.tab.read_log
    assert entry.path == "src/geo.py" and "return 3.14159 * r * r" in entry.excerpt
    assert "<system-reminder>" not in entry.excerpt


# ---------------------------------------------------------------------------------------------------------
# The real logs


STREAMS = {
    # file -> {trajectory id suffix: tool calls that got a result}
    "tielec__issue-10__06_testing__revise__agent_log_raw.txt": {
        "": 35,
        "/task-toolu_01XqnNRq4A1fvjPvYXMBb3iB": 39,
        "/task-toolu_01WgNPBt1GfNvgRpVsCCCQu5": 57,
        "/task-toolu_01H3NwBZue3Wy1eeiybAUUGV": 99,
        "/task-toolu_01F4C7k7urpdgCk6V8JV9qDo": 39,
    },
    "tielec__issue-221__04_implementation__execute__agent_log_raw.txt": {"": 42},
    "tielec__issue-38__05_test_implementation__execute__agent_log_raw.txt": {"": 40},
    "tielec__issue-558__00_planning__execute__agent_log_raw.txt": {"": 13, "/task-[REDACTED_TOKEN]": 26},
    # each message wrapped as {type, message, timestamp}; no result line (cut off): one call unanswered
    "openagents__20251222__143545-call-issue-ready-now-to.jsonl": {"": 61},
}
STREAM_VERSIONS = {"openagents__20251222__143545-call-issue-ready-now-to.jsonl": "2.0.75"}
"""Claude Code's version per stream where it is not 2.0.21."""
SESSIONS = {
    "openagents__ingest__claude-code-example.jsonl": {
        "": 196,
        "/sidechain-7b206873-8bbb-4e01-a5c4-061e2b2f8995": 22,
        "/sidechain-56442671-7354-48c3-a122-4bf295c2beb3": 16,
    },
    "openagents__regex-log__haiku-testgen-v2.jsonl": {"": 31},
    "openagents__regex-log__subagents__agent-a1df203.jsonl": {"": 3},
    # 2.1.x: parallel calls' results hang off each call's record; progress records on the chain (issue 24)
    "apanloco-random__session.jsonl": {"": 12},
    "fitcommerce15__sessions__session-1.jsonl": {"": 83},
    "speakfree__session.jsonl": {"": 73},
    "strawhat404-task119__sessions__session.jsonl": {"": 131},
}


def _answered(uses: list[str], answers: list[str]) -> int:
    """Calls that got a result: per id, as many as there are both calls and results (ids repeat only in a
    redacted log)."""
    used, answered = Counter(uses), Counter(answers)
    return sum(min(n, answered[i]) for i, n in used.items())


def _blocks(rec: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = rec.get("message", {}).get("content")
    return (
        [b for b in content if isinstance(b, dict) and b.get("type") == kind]
        if isinstance(content, list)
        else []
    )


def raw_stream_counts(path: Path) -> dict[str | None, int]:
    """Per agent (``parent_tool_use_id``), tool_use blocks answered by a tool_result block of the same agent."""
    uses: dict[str | None, list[str]] = defaultdict(list)
    answers: dict[str | None, list[str]] = defaultdict(list)
    for raw in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(raw)
        agent = rec.get("parent_tool_use_id")
        uses[agent] += [b["id"] for b in _blocks(rec, "tool_use")]
        answers[agent] += [b["tool_use_id"] for b in _blocks(rec, "tool_result")]
    return {agent: _answered(uses[agent], answers[agent]) for agent in uses}


def raw_session_counts(path: Path) -> dict[str | None, int]:
    """Per chain (the main one, ``None``, and each side chain by its root uuid, followed up ``parentUuid``),
    tool_use blocks answered by a tool_result block of the same chain."""
    recs = [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines()]
    by_uuid = {r["uuid"]: r for r in recs if "uuid" in r}

    def chain(rec: dict[str, Any]) -> str | None:
        if not rec.get("isSidechain"):
            return None
        while rec.get("parentUuid") in by_uuid and by_uuid[rec["parentUuid"]].get("isSidechain"):
            rec = by_uuid[rec["parentUuid"]]
        return rec["uuid"]

    uses: dict[str | None, list[str]] = defaultdict(list)
    answers: dict[str | None, list[str]] = defaultdict(list)
    for rec in recs:
        if rec.get("type") in ("user", "assistant"):
            uses[chain(rec)] += [b["id"] for b in _blocks(rec, "tool_use")]
            answers[chain(rec)] += [b["tool_use_id"] for b in _blocks(rec, "tool_result")]
    return {c: _answered(uses[c], answers[c]) for c in uses}


@pytest.fixture(scope="module")
def wild(real: Path) -> dict[str, Path]:
    files = {
        p.name: p
        for d in ("claude-code-stream", "claude-code-session")
        for p in (real / "wild" / d).iterdir()
    }
    files.pop("README.md", None)
    assert sorted(files) == sorted([*STREAMS, *SESSIONS]), (
        "the wild folders changed: update the pinned counts"
    )
    return files


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_real_stream(wild: dict[str, Path], name: str) -> None:
    path = wild[name]
    assert detect(path) == "claude-code-stream"
    found = read_stream(path)
    main = found[0]
    got = {t.id.removeprefix(main.id): t.n_steps for t in found}
    assert got == STREAMS[name]
    raw = raw_stream_counts(path)
    assert sorted(raw.values()) == sorted(got.values())
    assert main.n_steps == raw[None]
    for t in found[1:]:
        assert t.n_steps == raw[t.parent_call_id]
        assert t.parent_id == main.id and t.parent_call_id in {
            s.call_id for s in main.steps if s.tool == "Task"
        }
    for t in found:
        assert all(s.action is not None for s in t.steps)
        assert t.harness == "claude-code" and t.harness_version == STREAM_VERSIONS.get(name, "2.0.21")
        assert trajectory_from_dict(trajectory_to_dict(t)) == t
    if name in STREAM_VERSIONS:  # no result line: no usage, and the reader says so
        assert main.usage is None and any("no result message" in str(w) for w in main.warnings)
    else:
        assert main.usage is not None and main.usage.cost_usd is not None and main.usage.output_tokens


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_real_session(wild: dict[str, Path], name: str) -> None:
    path = wild[name]
    assert detect(path) == "claude-code-session"
    found = read_session(path)
    main = found[0]
    got = {t.id.removeprefix(main.id): t.n_steps for t in found}
    assert got == SESSIONS[name]
    raw = raw_session_counts(path)
    assert sorted(raw.values()) == sorted(got.values())
    # the path holds every main-chain call counted raw: a branch left out holds none (2.1 files have
    # progress and local-command records hanging off the chain)
    assert sum(b["tool_calls"] for b in main.meta.get("abandoned_branches", [])) == 0
    for t in found:
        assert all(s.action is not None for s in t.steps)
        assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_real_session_1_0_29(wild: dict[str, Path]) -> None:
    main, first, second = read_session(wild["openagents__ingest__claude-code-example.jsonl"])
    assert (main.harness_version, main.model) == ("1.0.29", "claude-opus-4-20250514")
    assert main.meta["compactions_joined"] == 1  # line 473 starts a new root after the first compaction
    assert main.meta["records_on_path"] == 697 - 4 - 104  # all but the 4 titles and the 104 side-chain lines
    assert sum(e.data.get("type") == "summary" for e in main.events) == 4
    assert sum(bool(e.data.get("isCompactSummary")) for e in main.events) == 2
    assert sum(e.kind == "error" for e in main.events) == 3  # the three <synthetic> API errors
    assert (first.parent_call_id, second.parent_call_id) == (
        "toolu_01WnD6JQcccSCPSaVd9z4HoF",
        "toolu_01LwEyrajc7PMN2DQAJ3nD7b",
    )
    assert main.instruction.startswith("pause and look through ../effectexamples")
    ls = [s for t in (main, first, second) for s in t.steps if s.tool == "LS"]
    assert len(ls) == 3 and all(s.action == Action.other("LS") for s in ls)  # an indented tree, not paths


def test_real_session_tool_use_result_holds_the_sent_text(wild: dict[str, Path]) -> None:
    """Why ``output`` is the tool_result's content: the structured ``toolUseResult.stdout``/``stderr`` of a
    Bash call is the same (already cut) text, not a fuller output, in every real 1.0 and 2.0 session file. (2.1
    sends ``(Bash completed with no output)`` for an empty output and a ``<persisted-output>`` preview for a
    large one, keeping the whole output in ``toolUseResult``: what the model was sent is still the block.)"""
    checked = 0
    for name in [n for n in SESSIONS if n.startswith("openagents__")]:
        for raw in wild[name].read_text(encoding="utf-8").splitlines():
            rec = json.loads(raw)
            found = rec.get("toolUseResult")
            if not (isinstance(found, dict) and "stdout" in found and "stderr" in found):
                continue
            (block,) = _blocks(rec, "tool_result")
            sent = "\n".join(x for x in (found["stdout"], found["stderr"]) if x)
            assert block["content"] == sent
            checked += 1
    assert checked == 67 + 13 + 1


def test_real_agent_file(wild: dict[str, Path]) -> None:
    (sub,) = read_session(wild["openagents__regex-log__subagents__agent-a1df203.jsonl"])
    assert sub.parent_id == "claude-code-session:90b4f0e9-c3f6-4599-aed9-f6cf43ecc756"
    # its parent session (90b4f0e9) is not in the folder (the session beside it is another, 05623f5b)
    assert sub.parent_call_id is None and "not beside it" in sub.meta["parent_call_note"]
    assert sub.meta["agent_id"] == "a1df203"


def test_real_redacted_stream(wild: dict[str, Path]) -> None:
    main, sub = read_stream(wild["tielec__issue-558__00_planning__execute__agent_log_raw.txt"])
    assert main.model == "[REDACTED_TOKEN]"  # kept as the sanitiser left it
    assert main.id == "claude-code-stream:tielec__issue-558__00_planning__execute__agent_log_raw"
    assert main.usage is not None and main.usage.input_tokens is None and main.usage.output_tokens == 8988
    # Read and Grep results found their calls by shape although every id is the same token
    reads = [s for t in (main, sub) for s in t.steps if s.tool == "Read" and not s.is_error]
    assert reads and all((s.output or "").lstrip().startswith(f"{s.action.offset or 1}\u2192") for s in reads)
    greps = [
        s for t in (main, sub) for s in t.steps if s.tool == "Grep" and s.args.get("output_mode") != "content"
    ]
    assert greps and all((s.output or "").startswith("Found ") for s in greps)
    assert any("share 1 tool_use id" in w for w in [str(w) for w in main.warnings])


def test_real_replay_cli(wild: dict[str, Path], capsys) -> None:
    for name, path in sorted(wild.items()):
        assert cli_main(["replay", str(path)]) == 0, name
    capsys.readouterr()


def test_real_hand_check_issue_38(wild: dict[str, Path]) -> None:
    """issue-38 (2.0.21, error_max_turns): 41 calls, read by hand. The read log holds exactly the files whose
    content a result showed:

    - src/core/codex-agent-client.ts (step 1, Read; step 0's Read of tests/unit/core/helpers/... failed:
      ``File does not exist``, so that file is not read);
    - tests/unit/codex-agent-client.test.ts, tests/unit/claude-agent-client.test.ts,
      src/core/claude-agent-client.ts, tests/unit/metadata-manager.test.ts, src/core/metadata-manager.ts
      (lines 1-100), tests/integration/agent-client-execution.test.ts,
      tests/integration/metadata-persistence.test.ts, tests/unit/helpers/log-formatter.test.ts (read twice:
      steps 31 and 34, around the failed Edit of step 33), src/core/helpers/agent-event-parser.ts,
      tests/unit/helpers/dependency-messages.test.ts: Read calls, shown with line numbers;
    - src/types.ts: the ``grep -r "export.*type PhaseName" src/`` of step 37 printed its matching line.

    Nothing else: the Glob calls only listed paths (the three never opened are the candidates), the Edit
    results are edits, and the last Glob (step 40) never got its result."""
    (t,) = read_stream(wild["tielec__issue-38__05_test_implementation__execute__agent_log_raw.txt"])
    r = replay(t)
    log = [(e.step, e.path) for e in r.tab.read_log]
    assert log == [
        (1, "src/core/codex-agent-client.ts"),
        (5, "tests/unit/codex-agent-client.test.ts"),
        (9, "tests/unit/claude-agent-client.test.ts"),
        (10, "src/core/claude-agent-client.ts"),
        (12, "tests/unit/metadata-manager.test.ts"),
        (13, "src/core/metadata-manager.ts"),
        (19, "tests/integration/agent-client-execution.test.ts"),
        (25, "tests/integration/metadata-persistence.test.ts"),
        (31, "tests/unit/helpers/log-formatter.test.ts"),
        (32, "src/core/helpers/agent-event-parser.ts"),
        (34, "tests/unit/helpers/log-formatter.test.ts"),
        (36, "tests/unit/helpers/dependency-messages.test.ts"),
        (37, "src/types.ts"),
    ]
    assert sorted(r.tab.candidates) == [
        "tests/unit/branch-validation.test.ts",
        "tests/unit/helpers/validation.test.ts",
        "tests/unit/phases/formatters/log-formatter.test.ts",
    ]
    for e in r.tab.read_log:  # excerpts hold file text only: no reminder, no error
        assert "<system-reminder>" not in e.excerpt and "tool_use_error" not in e.excerpt
    step13 = t.steps[13]
    assert step13.action == Action("read", path=step13.args["file_path"], limit=100, line_numbers=True)
    assert r.tab.read_log[5].excerpt.rstrip().splitlines()[-1].lstrip().startswith("100\u2192")


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["<system-reminder>", "</system-reminder>", "\n", "\n\n", "a", "b c", "<system-", ">"]
        ),
        max_size=16,
    ).map("".join),
    st.integers(0, 6),
    st.integers(0, 6),
)
def test_reminders_are_the_regex_s_spans(text: str, cut_head: int, cut_tail: int) -> None:
    """Claude Code's reminders found with str.find: the spans the reminder regex finds, within any bounds."""
    pos, end = min(cut_head, len(text)), max(min(cut_head, len(text)), len(text) - cut_tail)
    assert _reminders(text, pos, end) == [m.span() for m in _CC_REMINDER.finditer(text, pos, end)]
