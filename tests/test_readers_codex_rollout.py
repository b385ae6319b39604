"""The Codex session-rollout reader: hand-made rollouts of each layout and record kind, and the real rollouts."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import warnings_of

from rtlab.cli import main
from rtlab.environment import replay
from rtlab.errors import ReaderError
from rtlab.ingest.readers import ReadOptions, codex_rollout, detect, discover
from rtlab.ingest.readers.codex_rollout import PatchFile, parse_patch
from rtlab.records import Action, TokenUsage, trajectory_from_dict, trajectory_to_dict

PRETTY = "rollout-2025-12-01T10-00-00-0199c0de-1111-7222-8333-944455566677.pretty.json"
LEGACY = "rollout-2025-08-18T01-16-13-c3c4b301-27c8-4c70-b6e4-46b99fdf0236.jsonl"
SID = "0199c0de-1111-7222-8333-944455566677"


def read_one(path: Path, clip: str | None = None, strict: bool = False):
    (t,) = codex_rollout.read(path, ReadOptions(clip=clip, strict=strict))
    return t


def rec(kind: str, payload: dict[str, Any], ts: str = "2026-01-05T09:00:00.000Z") -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


META = rec(
    "session_meta", {"id": "s1", "timestamp": "2026-01-05T09:00:00.000Z", "cwd": "/w", "cli_version": "0.9"}
)


def call(call_id: str, name: str, args: Any) -> dict[str, Any]:
    arguments = args if isinstance(args, str) else json.dumps(args)
    return rec(
        "response_item", {"type": "function_call", "name": name, "arguments": arguments, "call_id": call_id}
    )


def output(call_id: str, out: Any) -> dict[str, Any]:
    return rec("response_item", {"type": "function_call_output", "call_id": call_id, "output": out})


def write_rollout(path: Path, *records: dict[str, Any], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail, encoding="utf-8")
    return path


def json_values(path: Path) -> list[Any]:
    """Every JSON value of a file, one after another (JSON lines or pretty-printed), by plain decoding."""
    text, decoder, values, pos = path.read_text(encoding="utf-8"), json.JSONDecoder(), [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return values
        value, pos = decoder.raw_decode(text, pos)
        values.append(value)


def answered_calls(path: Path) -> int:
    """Tool calls that got a result, counted from the raw records without the reader: call items whose
    ``call_id`` an output item names, and web searches that completed."""
    items = [v["payload"] if "payload" in v else v for v in json_values(path)]
    items = [i for i in items if isinstance(i, dict)]
    calls = {
        i["call_id"]
        for i in items
        if i.get("type") in ("function_call", "custom_tool_call", "local_shell_call")
    }
    outputs = {
        i["call_id"] for i in items if i.get("type") in ("function_call_output", "custom_tool_call_output")
    }
    searches = sum(1 for i in items if i.get("type") == "web_search_call" and i.get("status") == "completed")
    return len(calls & outputs) + searches


# ---------------------------------------------------------------------------------------------------------
# Detection


def test_sniff_claims_every_layout_under_any_name(fixtures: Path, tmp_path: Path) -> None:
    folder = fixtures / "codex-rollout"
    assert codex_rollout.sniff(folder / PRETTY) and codex_rollout.sniff(folder / LEGACY)
    assert detect(folder / PRETTY) == detect(folder / LEGACY) == "codex-rollout"
    saved = write_rollout(tmp_path / "session.md", META)
    assert detect(saved) == "codex-rollout"
    assert [f for _, f in discover(saved, format="codex-rollout")] == ["codex-rollout"]
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps({"record_type": "session_meta", "id": "s", "timestamp": "t"}) + "\n")
    assert codex_rollout.sniff(old)
    # a first record too long for the sniffing head is judged by its opening, in Codex's key order
    long = "x" * 400_000
    big = rec("session_meta", {"id": "s", "base_instructions": {"text": long}})
    assert codex_rollout.sniff(write_rollout(tmp_path / "big.jsonl", big))
    bare = {
        "id": "s",
        "timestamp": "t",
        "cwd": "/w",
        "originator": "o",
        "cli_version": "0.2",
        "instructions": long,
    }
    assert codex_rollout.sniff(write_rollout(tmp_path / "bare.jsonl", bare))
    tagged = {"timestamp": "t", "record_type": "session_meta", "id": "s", "instructions": long}
    assert codex_rollout.sniff(write_rollout(tmp_path / "tagged.jsonl", tagged))
    assert not codex_rollout.sniff(
        write_rollout(tmp_path / "other.jsonl", {"id": "s", "timestamp": "t", "text": long})
    )


def test_sniff_claims_no_other_format(fixtures: Path, tmp_path: Path) -> None:
    for path in sorted(fixtures.rglob("*")):
        if path.is_file() and "codex-rollout" not in path.parts:
            assert not codex_rollout.sniff(path), path
    exec_stream = write_rollout(tmp_path / "exec.jsonl", {"type": "thread.started", "thread_id": "t"})
    assert detect(exec_stream) == "codex"
    items = write_rollout(tmp_path / "items.jsonl", {"type": "message", "role": "user", "content": "hi"})
    assert not codex_rollout.sniff(items)
    assert not codex_rollout.sniff(write_rollout(tmp_path / "meta.jsonl", {"id": "x", "timestamp": "t"}))
    assert not codex_rollout.sniff(tmp_path)
    assert not codex_rollout.sniff(tmp_path / "missing.jsonl")


def test_sniff_claims_none_of_the_other_wild_formats(real: Path) -> None:
    for path in sorted((real / "wild").rglob("*")):
        if path.is_file() and path.parent.name != "codex-rollout":
            assert not codex_rollout.sniff(path), path


# ---------------------------------------------------------------------------------------------------------
# A pretty-printed rollout of Codex ~0.77 shapes (one record over several lines)


@pytest.fixture
def pretty(fixtures: Path):
    return read_one(fixtures / "codex-rollout" / PRETTY)


def test_pretty_printed_rollout_run_facts(pretty, fixtures: Path) -> None:
    t = pretty
    assert (t.id, t.format, t.harness, t.harness_version) == (
        f"codex-rollout:{SID}",
        "codex-rollout",
        "codex",
        "0.77.0",
    )
    assert t.n_steps == len(t.steps) == answered_calls(fixtures / "codex-rollout" / PRETTY) == 9
    assert t.model == "gpt-5.1-codex" and t.meta["models"] == ["gpt-5.1-codex", "gpt-5.1-codex-max"]
    assert (t.cwd, t.started_at, t.ended_at) == (
        "/home/dev/shop",
        "2025-12-01T10:00:00.101Z",
        "2025-12-01T10:00:30.501Z",
    )
    # the user's words, not the AGENTS.md and environment-context messages Codex put before them
    assert (
        t.instruction
        == "Prices of zero get a negative discount. Fix apply_discount and add a CHANGELOG entry."
    )
    assert t.deliverable.final_message.startswith("Zero prices now stay at 0")
    # the last cumulative token count (not summed over the events)
    assert t.usage == TokenUsage(
        input_tokens=31877,
        output_tokens=1290,
        cached_input_tokens=18048,
        reasoning_tokens=704,
        total_tokens=33167,
    )
    assert t.clip_policy == "codex-rollout"
    assert t.meta["layout"] == "json-documents" and t.meta["records"] == "envelope"
    assert (t.meta["approval_policy"], t.meta["effort"]) == ("on-request", "medium")
    assert t.meta["event_msgs"]["token_count"] == 3 and not t.warnings
    assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_pretty_printed_rollout_steps(pretty) -> None:
    steps = {s.call_id or s.tool: s for s in pretty.steps}
    read = steps["call_read"]
    assert (read.tool, read.command, read.exit_code, read.cwd) == (
        "exec_command", "sed -n '1,20p' shop/discount.py", 0, "/home/dev/shop"
    )  # fmt: skip
    assert read.action == Action.shell("sed -n '1,20p' shop/discount.py")
    header = "Chunk ID: 3f2a1c\nWall time: 0.0512 seconds\nProcess exited with code 0\nOriginal token count: 24\nOutput:\n"
    assert read.shown == read.output and read.shown.startswith(header)
    assert [(f.start, f.end, f.kind) for f in read.frames] == [(0, len(header), "frame")]
    assert (read.started_at, read.ended_at) == ("2025-12-01T10:00:03.004Z", "2025-12-01T10:00:03.061Z")
    # a command still running answers with its session; write_stdin polls it and is typed as its command
    running, poll = steps["call_test"], steps["call_poll"]
    assert (running.exit_code, running.is_error) == (None, False)
    assert (poll.tool, poll.command, poll.exit_code, poll.is_error) == (
        "write_stdin", "pytest -q tests/test_discount.py", 1, True
    )  # fmt: skip
    assert poll.action == Action.shell("pytest -q tests/test_discount.py") and poll.args["session_id"] == 7
    # an output Codex cut: header lines, its Total output lines header and the token marker are frames
    grep = steps["call_grep"]
    assert grep.clipped and [f.kind for f in grep.frames] == ["frame", "frame", "clip"]
    cut = grep.shown[grep.frames[2].start : grep.frames[2].end]
    assert cut == "…14002 tokens truncated…" and grep.shown[grep.frames[1].start :].startswith(
        "Total output lines: 812\n\n"
    )
    patch = steps["call_patch"]
    assert patch.command == "edit shop/discount.py; write CHANGELOG.md"
    assert patch.action == Action(
        "edit", parts=(Action("edit", path="shop/discount.py"), Action("write", path="CHANGELOG.md"))
    )
    assert steps["call_plan"].action == Action.other("update_plan")
    image = steps["call_img"]
    assert image.action == Action.read("docs/receipt.png") and [(f.start, f.end) for f in image.frames] == [
        (0, 25)
    ]
    search = steps["web_search"]
    assert (search.output, search.args, search.action) == (
        "",
        {"type": "search", "query": "python round half up decimal"},
        Action.other("web_search"),
    )
    # the shell tool's JSON result: shown is its output text, the exit code its metadata's
    cat = steps["call_cat"]
    assert (cat.command, cat.exit_code) == ("cat CHANGELOG.md", 0)
    assert json.loads(cat.output)["output"] == cat.shown == "# Changelog\n\n- Fix discount on zero prices\n"
    assert not cat.clipped and cat.frames == ()


def test_pretty_printed_rollout_events(pretty) -> None:
    kinds = [(e.kind, e.role, e.data.get("context") or e.data.get("event")) for e in pretty.events]
    assert kinds == [
        ("system", "system", None),  # base_instructions
        ("system", "developer", None),
        ("system", "user", "agents_md"),
        ("system", "user", "environment_context"),
        ("system", None, "task_started"),
        ("message", "user", None),
        ("reasoning", "assistant", None),
        ("other", None, "token_count"),
        ("plan", "assistant", None),
        ("message", "user", None),  # the image view_image attached
        ("system", None, "model_change"),
        ("other", None, "token_count"),
        ("message", "assistant", None),
        ("system", None, "task_complete"),
        ("compaction", None, None),
    ]
    plan = next(e for e in pretty.events if e.kind == "plan")
    assert plan.text.splitlines() == [
        "Fix done; checking the receipt layout next.",
        "[x] Fix zero prices",
        "[x] Add CHANGELOG entry",
        "[ ] Check the receipt",
    ]
    seqs = [x.seq for x in pretty.timeline()]
    assert seqs == list(range(len(seqs)))


def test_pretty_printed_rollout_deliverable_and_replay(pretty) -> None:
    (changelog,) = pretty.deliverable.files
    assert (changelog.path, changelog.origin) == ("CHANGELOG.md", "write_tool")
    assert changelog.content == "# Changelog\n\n- Fix discount on zero prices\n"
    r = replay(pretty)
    # sed showed discount.py, cat the new CHANGELOG.md, rg the first discount.py line before its cut (the
    # test file's line after the marker starts mid-line); the image, the plan and the search show no file
    assert sorted({e.path for e in r.tab.read_log}) == ["CHANGELOG.md", "shop/discount.py"]


def test_pretty_and_json_lines_layouts_read_alike(fixtures: Path, tmp_path: Path) -> None:
    pretty = fixtures / "codex-rollout" / PRETTY
    lines = write_rollout(tmp_path / "rollout.jsonl", *json_values(pretty))
    a, b = read_one(pretty), read_one(lines)
    assert b.meta["layout"] == "json-lines" and a.meta["layout"] == "json-documents"

    def facts(t):
        return [(s.tool, s.command, s.output, s.shown, s.action, s.frames, s.exit_code) for s in t.steps], [
            (e.kind, e.text) for e in t.events
        ]

    assert facts(a) == facts(b) and a.usage == b.usage and a.deliverable == b.deliverable


def test_type_step_retypes_each_step_from_itself(pretty, fixtures: Path) -> None:
    legacy = read_one(fixtures / "codex-rollout" / LEGACY)
    for step in pretty.steps + legacy.steps:
        action, frames = step.action, step.frames
        step.action, step.frames = None, ()
        codex_rollout.type_step(step)
        assert (step.action, step.frames) == (action, frames), step.call_id


def test_another_clip_policy_can_be_chosen(fixtures: Path) -> None:
    t = read_one(fixtures / "codex-rollout" / PRETTY, clip="codex-0.133-bytes")
    assert t.clip_policy == "codex-0.133-bytes"
    assert all(s.shown == s.output for s in t.steps if s.tool != "shell")  # every output is under 10 kB


# ---------------------------------------------------------------------------------------------------------
# Older layouts


def test_bare_layout_of_the_first_rollouts(fixtures: Path) -> None:
    t = read_one(fixtures / "codex-rollout" / LEGACY)
    assert t.id == "codex-rollout:c3c4b301-27c8-4c70-b6e4-46b99fdf0236"
    assert t.n_steps == answered_calls(fixtures / "codex-rollout" / LEGACY) == 2
    assert (t.model, t.harness_version, t.usage) == (None, None, None)
    assert t.cwd == "/work/notes"  # from the environment context: the meta of the time names none
    assert (t.started_at, t.ended_at) == ("2025-08-18T01:16:13.522Z", None)
    assert t.instruction == "What is left in todo.txt?"
    assert [e.data.get("context") for e in t.events if e.kind == "system"] == [
        "user_instructions",
        "environment_context",
    ]
    cat, ls = t.steps
    assert (cat.command, cat.shown, cat.exit_code, cat.is_error) == (
        "cat todo.txt",
        "- buy milk\n- file taxes\n",
        0,
        False,
    )
    assert (ls.exit_code, ls.is_error) == (2, True)
    assert t.deliverable.final_message == "Two items are left: buy milk, file taxes."
    assert t.meta["records"] == "bare" and t.meta["git"]["branch"] == "main"


def test_record_type_layout(tmp_path: Path) -> None:
    lines = [
        {"record_type": "session_meta", "id": "r1", "timestamp": "2025-09-01T08:00:00Z", "cwd": "/p", "originator": "codex_cli_rs", "cli_version": "0.30.0", "instructions": None},
        {"record_type": "response", "timestamp": "2025-09-01T08:00:01Z", "type": "message", "role": "user", "content": [{"type": "input_text", "text": "run ls"}]},
        {"record_type": "response", "timestamp": "2025-09-01T08:00:02Z", "type": "local_shell_call", "call_id": "c1", "status": "completed", "action": {"type": "exec", "command": ["bash", "-lc", "ls"], "working_directory": "/p/src"}},
        {"record_type": "response", "timestamp": "2025-09-01T08:00:03Z", "type": "function_call_output", "call_id": "c1", "output": "a.py\n"},
        {"record_type": "event", "timestamp": "2025-09-01T08:00:04Z", "id": "0", "msg": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}}},
        {"record_type": "state", "timestamp": "2025-09-01T08:00:04Z"},
        {"record_type": "prev_session_meta", "id": "r0", "timestamp": "2025-08-31T08:00:00Z", "cwd": "/p", "originator": "codex_cli_rs", "cli_version": "0.29.0", "instructions": None},
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    assert detect(path) == "codex-rollout"
    t = read_one(path)
    (step,) = t.steps
    assert (step.tool, step.command, step.cwd, step.output) == ("local_shell", "ls", "/p/src", "a.py\n")
    assert step.action == Action.shell("ls")
    assert (t.harness_version, t.usage.total_tokens, t.meta["other_session_metas"]) == ("0.30.0", 7, ["r0"])
    assert t.meta["records"] == "record-type"


# ---------------------------------------------------------------------------------------------------------
# Record kinds and edge cases, built inline


def test_apply_patch_through_the_shell_and_as_a_function(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Add File: notes/plan.md\n+# Plan\n+step one\n*** End Patch"
    heredoc = f"cd docs && apply_patch <<'EOF'\n{patch}\nEOF\n"
    path = write_rollout(
        tmp_path / "r.jsonl",
        META,
        call("c1", "shell", {"command": ["bash", "-lc", heredoc]}),
        output("c1", json.dumps({"output": "Success. Updated the following files:\nA docs/notes/plan.md\n", "metadata": {"exit_code": 0, "duration_seconds": 0.0}})),
        call("c2", "shell", {"command": ["apply_patch", "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** End Patch"]}),
        output("c2", json.dumps({"output": "Success.", "metadata": {"exit_code": 0, "duration_seconds": 0.0}})),
        call("c3", "apply_patch", {"input": "*** Begin Patch\n*** Update File: docs/notes/plan.md\n@@\n-step one\n+step two\n*** Delete File: old.txt\n*** End Patch"}),
        output("c3", "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"),
        call("c4", "apply_patch", {"input": "*** Begin Patch\n*** Add File: broken.txt\n+x\n*** End Patch"}),
        output("c4", "apply_patch verification failed: invalid hunk at line 2"),
    )  # fmt: skip
    t = read_one(path)
    first, moved, changed, failed = t.steps
    assert first.action == Action("write", path="docs/notes/plan.md")
    assert moved.action == Action("write", path="b.py")
    assert changed.command == "edit docs/notes/plan.md; delete old.txt"
    assert changed.action == Action("edit", path="docs/notes/plan.md")  # the deletion is left out
    assert failed.is_error and failed.action == Action("write", path="broken.txt")
    # the added file was changed later: its path is kept, its content (no longer known) is not; the failed
    # patch wrote nothing
    (plan,) = t.deliverable.files
    assert (plan.path, plan.content, plan.origin) == ("docs/notes/plan.md", None, "write_tool")


def test_parse_patch() -> None:
    text = "<<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n+\n*** Delete File: b.txt\n*** Update File: c.py\n*** Move to: d.py\n@@\n-x\n+y\n*** End Patch\nEOF"
    assert parse_patch(text, "sub") == [
        PatchFile("add", "sub/a.txt", content="hi\n\n"),
        PatchFile("delete", "sub/b.txt"),
        PatchFile("update", "sub/c.py", move_to="sub/d.py"),
    ]
    assert parse_patch("[REDACTED_INPUT len=10 sha=1]") is None
    assert parse_patch("*** Begin Patch\n*** Add File: /abs/x\n+1\n*** End Patch", "sub") == [
        PatchFile("add", "/abs/x", content="1\n")
    ]


def _parse_patch_line_by_line(text: str, base: str | None = None) -> list[PatchFile] | None:
    """The patch read line by line, every line looked at: the form :func:`parse_patch` must equal."""
    lines = text.replace("\r\n", "\n").strip().split("\n")
    if (
        len(lines) > 2
        and (m := codex_rollout._HEREDOC_OPEN.match(lines[0]))
        and lines[-1].strip() == m.group(2)
    ):
        lines = lines[1:-1]
    if not lines or lines[0].strip() != "*** Begin Patch":
        return None

    def at(path: str) -> str:
        return path if base is None or path.startswith("/") else f"{base.rstrip('/')}/{path}"

    def content(added: list[str]) -> str:
        return "\n".join(added) + "\n" if added else ""

    files: list[PatchFile] = []
    added: list[str] | None = None
    for line in lines[1:]:
        if line[:1] == "+":
            if added is not None:
                added.append(line[1:])
            continue
        if line.strip() == "*** End Patch":
            break
        if m := codex_rollout._PATCH_FILE.match(line):
            if added is not None:
                files[-1] = PatchFile("add", files[-1].path, content=content(added))
            kind = codex_rollout._PATCH_KINDS[m.group(1)]
            files.append(PatchFile(kind, at(m.group(2))))
            added = [] if kind == "add" else None
        elif line.startswith("*** Move to: ") and files and files[-1].kind == "update":
            files[-1] = PatchFile("update", files[-1].path, move_to=at(line[len("*** Move to: ") :].strip()))
    if added is not None and files:
        files[-1] = PatchFile("add", files[-1].path, content=content(added))
    return files


_PATCH_LINES = [
    "*** Begin Patch", "*** End Patch", " *** End Patch ", "\t*** End Patch", "\u00a0*** End Patch",
    "\x1c*** End Patch", "*** End Patch x", "+*** End Patch", "*** Add File: a.txt", "*** Add File: b/c.md  ",
    "*** Update File: u.py", "*** Delete File: /abs/d", "*** Move to: m.py", "*** Move to:  n ", "***Add File: x",
    "*** other", "* bullet", "+added", "+", "++x", "-removed", " context", "@@ hunk", "", "<<'EOF'", "EOF",
    " EOF ", "\r", "x\r", "*** Add File: \u2028y", "+line\u2028more", "+a\x85b",
]  # fmt: skip


def test_parse_patch_reads_what_the_line_by_line_form_reads() -> None:
    """:func:`parse_patch` looks only at the lines that can matter, and cuts an added file's text out whole: the
    same files as looking at every line, on patches made of every kind of line (headers, ends with any
    whitespace around them, moves, added and other lines, here-document wrappers, CRLF, Unicode line breaks)."""
    rng = random.Random(29)
    found = 0
    for _ in range(30000):
        lines = [rng.choice(_PATCH_LINES) for _ in range(rng.randrange(0, 12))]
        if rng.random() < 0.7:
            lines.insert(0, rng.choice(["*** Begin Patch", " *** Begin Patch", "<<'EOF'"]))
        if lines and lines[0] == "<<'EOF'" and rng.random() < 0.5:
            lines.insert(1, "*** Begin Patch")
        text = rng.choice(["\n", "\n", "\r\n"]).join(lines)
        if rng.random() < 0.2:
            text = rng.choice([" ", "\n", "\t"]) + text + rng.choice(["", "\n", " \n"])
        base = rng.choice([None, "/w", "/w/"])
        expected = _parse_patch_line_by_line(text, base)
        assert parse_patch(text, base) == expected, repr(text)
        found += bool(expected)
    assert found > 3000


def test_outputs_in_every_payload_shape(tmp_path: Path) -> None:
    path = write_rollout(
        tmp_path / "r.jsonl",
        META,
        call("c1", "mcp__docs__fetch", {"url": "https://example.com"}),
        output("c1", [{"type": "input_text", "text": "page one"}, {"type": "input_image", "image_url": "data:image/png;base64,AA"}]),
        call("c2", "mcp__docs__fetch", {"url": "https://example.com/x"}),
        output("c2", {"content": "err: not found", "success": False}),
        call("c3", "shell_command", {"command": "make", "workdir": "/w/app"}),
        output("c3", "Exit code: 2\nWall time: 1.5 seconds\nOutput:\ncommand timed out after 1500 milliseconds\nmake: *** [all] Error 2\n"),
    )  # fmt: skip
    t = read_one(path)
    parts, failed, make = t.steps
    assert parts.output == "page one\n[input_image]" and not parts.is_error
    assert failed.output == "err: not found" and failed.is_error
    assert (make.command, make.cwd, make.exit_code, make.is_error) == ("make", "/w/app", 2, True)
    header, timeout = (
        "Exit code: 2\nWall time: 1.5 seconds\nOutput:\n",
        "command timed out after 1500 milliseconds\n",
    )
    assert [make.shown[f.start : f.end] for f in make.frames] == [header, timeout]


def test_structured_output_cut_by_the_256_line_policy(tmp_path: Path) -> None:
    body = (
        "Total output lines: 300\n\n"
        + "".join(f"{i}\n" for i in range(128))
        + "\n[... omitted 44 of 300 lines ...]\n\n"
        + "".join(f"{i}\n" for i in range(172, 300))
    )
    path = write_rollout(
        tmp_path / "r.jsonl",
        META,
        call("c1", "shell", {"command": ["bash", "-lc", "seq 0 299"]}),
        output("c1", json.dumps({"output": body, "metadata": {"exit_code": 0, "duration_seconds": 0.1}})),
    )  # fmt: skip
    (step,) = read_one(path).steps
    assert step.shown == body and step.clipped
    assert [step.shown[f.start : f.end] for f in step.frames] == [
        "Total output lines: 300\n\n",
        "\n[... omitted 44 of 300 lines ...]\n\n",
    ]


def test_event_copies_stand_in_when_no_response_item_holds_them(tmp_path: Path) -> None:
    path = write_rollout(
        tmp_path / "r.jsonl",
        META,
        rec("event_msg", {"type": "user_message", "message": "hello", "images": []}),
        rec("event_msg", {"type": "agent_reasoning", "text": "thinking"}),
        rec("event_msg", {"type": "agent_message", "message": "hi there"}),
        rec("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        rec("event_msg", {"type": "error", "message": "stream disconnected"}),
    )
    t = read_one(path)
    assert [(e.kind, e.text) for e in t.events] == [
        ("message", "hello"),
        ("reasoning", "thinking"),
        ("message", "hi there"),
        ("system", "turn aborted: interrupted"),
        ("error", "stream disconnected"),
    ]
    assert t.instruction == "hello" and t.deliverable.final_message == "hi there"
    assert t.meta["from_event_msgs"] == ["assistant", "reasoning", "user"]


def test_final_message_falls_back_to_task_complete(tmp_path: Path) -> None:
    t = read_one(
        write_rollout(
            tmp_path / "r.jsonl",
            META,
            rec(
                "response_item",
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
            ),
            rec("event_msg", {"type": "task_complete", "last_agent_message": "done"}),
            rec("response_item", {"type": "reasoning", "summary": []}),
        )
    )
    assert t.deliverable.final_message == "done"


def test_exec_command_end_gives_a_missing_exit_code(tmp_path: Path) -> None:
    t = read_one(
        write_rollout(
            tmp_path / "r.jsonl",
            META,
            call("c1", "exec_command", {"cmd": "false"}),
            output("c1", "[REDACTED_OUTPUT len=3 sha=0]"),
            rec(
                "event_msg",
                {"type": "exec_command_end", "call_id": "c1", "aggregated_output": "", "exit_code": 1},
            ),
        )
    )
    assert (t.steps[0].exit_code, t.steps[0].is_error) == (1, True)


def test_unresolved_write_stdin_and_sanitised_arguments_are_other_calls(tmp_path: Path) -> None:
    t = read_one(
        write_rollout(
            tmp_path / "r.jsonl",
            META,
            call("c1", "write_stdin", {"session_id": 9, "chars": "q"}),
            output(
                "c1", "Chunk ID: a\nWall time: 0.2500 seconds\nProcess exited with code 0\nOutput:\nbye\n"
            ),
            call("c2", "exec_command", "[REDACTED_ARGUMENTS len=20 sha=ab]"),
            output("c2", "[REDACTED_OUTPUT len=5 sha=cd]"),
        )
    )
    poll, hidden = t.steps
    assert (
        poll.action == Action.other("write_stdin")
        and poll.command == 'write_stdin {"session_id":9,"chars":"q"}'
    )
    assert hidden.action == Action.other("exec_command") and hidden.args_error and hidden.frames == ()


def test_subagent_session_names_its_parent(tmp_path: Path) -> None:
    meta = rec("session_meta", {"id": "child", "cwd": "/w", "source": {"subagent": {"thread_spawn": {"parent_thread_id": "parent", "depth": 1}}}, "agent_nickname": "scout"})  # fmt: skip
    t = read_one(write_rollout(tmp_path / "r.jsonl", meta))
    assert (t.id, t.parent_id, t.meta["agent_nickname"]) == (
        "codex-rollout:child",
        "codex-rollout:parent",
        "scout",
    )


def test_unanswered_call_is_kept_and_a_cut_last_line_tolerated(tmp_path: Path) -> None:
    path = write_rollout(
        tmp_path / "r.jsonl",
        META,
        call("c1", "exec_command", {"cmd": "sleep 100"}),
        tail='{"timestamp": "x", "ty',
    )
    t = read_one(path)
    assert (len(t.steps), t.n_steps, t.meta["unanswered_calls"]) == (1, 0, ["c1"])
    assert any("not complete JSON" in w for w in warnings_of(t))


def test_orphan_output_is_kept_as_an_event_and_warned_about(tmp_path: Path) -> None:
    t = read_one(write_rollout(tmp_path / "r.jsonl", META, output("ghost", "late output")))
    assert t.steps == [] and [(e.kind, e.text) for e in t.events] == [("other", "late output")]
    assert "matches no tool call in the file" in warnings_of(t)[0]


def test_unknown_record_type_is_kept_and_warned_about(tmp_path: Path) -> None:
    t = read_one(write_rollout(tmp_path / "r.jsonl", META, rec("world_state", {"x": 1})))
    assert [(e.kind, e.data["type"]) for e in t.events] == [("other", "world_state")]
    assert "unknown record type 'world_state'" in warnings_of(t)[0]


@pytest.mark.parametrize(
    ("records", "line", "field", "message"),
    [
        ([META, rec("response_item", "not an object")], 2, "payload", "expected dict"),
        (
            [META, rec("response_item", {"type": "function_call", "name": "x", "arguments": "{}"})],
            2,
            "payload.call_id",
            "missing field",
        ),
        ([META, rec("event_msg", {"message": "no type"})], 2, "payload.type", "missing field"),
        (
            [META, rec("response_item", {"type": "message", "role": "robot", "content": []})],
            2,
            "payload.role",
            "unknown message role",
        ),
        ([META, rec("compacted", {"replacement_history": []})], 2, "payload.message", "missing field"),
        ([META, {"no": "type"}], 2, "type", "expected a rollout record"),
        ([META, ["a list"]], 2, None, "expected a record object"),
    ],
)
def test_malformed_records_name_line_and_field(tmp_path: Path, records, line, field, message) -> None:
    path = write_rollout(tmp_path / "r.jsonl", *records)
    with pytest.raises(ReaderError, match=message) as err:
        read_one(path, strict=True)
    assert (err.value.line, err.value.field) == (line, field)


def test_invalid_json_and_empty_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(META) + "\n{oops\n" + json.dumps(META) + "\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="invalid JSON") as err:
        read_one(bad, strict=True)
    assert err.value.line == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="empty"):
        read_one(empty, strict=True)


# ---------------------------------------------------------------------------------------------------------
# Real rollouts

WILD = {
    "acidicsoil__rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl": 39,
    "localpush__rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl": 105,
    "openagents__qa-runner__codex-rollout.sample.jsonl": 2,
}
"""Tool calls that got a result, per real rollout: 0.58 (37 shell, 2 update_plan), 0.104 sanitised (71
exec_command, 9 write_stdin, 2 update_plan, 22 apply_patch, 1 web search), the 0.142 synthetic sample."""


@pytest.mark.parametrize("name", sorted(WILD))
def test_wild_rollouts(real: Path, name: str) -> None:
    path = real / "wild" / "codex-rollout" / name
    assert detect(path) == "codex-rollout"
    t = read_one(path)
    assert t.n_steps == answered_calls(path) == WILD[name] == len(t.steps)
    assert t.harness == "codex" and t.harness_version and t.model and t.usage is not None
    assert all(s.action is not None for s in t.steps)
    assert not t.warnings
    assert trajectory_from_dict(trajectory_to_dict(t)) == t
    assert main(["replay", str(path)]) == 0


def test_wild_0_58_run_facts(real: Path) -> None:
    t = read_one(real / "wild" / "codex-rollout" / next(n for n in WILD if n.startswith("acidicsoil")))
    assert (t.model, t.harness_version, t.meta["effort"]) == ("gpt-5.1-codex", "0.58.0", "high")
    assert t.cwd == "/home/user/projects/temp/chatbot-ui"
    assert t.instruction.startswith("finish up the users work by rigging up the chatbot-ui to use lmstudio")
    assert t.usage == TokenUsage(
        input_tokens=1099261,
        output_tokens=22305,
        cached_input_tokens=1027328,
        reasoning_tokens=19520,
        total_tokens=1121566,
    )
    assert t.deliverable.final_message is None  # the session stops after its last patch, before any answer
    assert [s.exit_code for s in t.steps if s.is_error] == [2, 2, 1]
    assert sum(s.clipped for s in t.steps) == 3  # three sed outputs over 256 lines, cut by Codex
    # the two patches ran through the shell as apply_patch here-documents: edits, not commands
    edits = [s for s in t.steps if s.action.kind == "edit"]
    assert [s.action.path for s in edits] == ["components/chat/chat-helpers/index.ts"] * 2


def test_wild_0_58_read_log_by_hand(real: Path) -> None:
    """The 0.58 session read step by step: every file whose content the model was shown, and no other."""
    t = read_one(real / "wild" / "codex-rollout" / next(n for n in WILD if n.startswith("acidicsoil")))
    read = {e.path for e in replay(t).tab.read_log}
    assert read == {
        # `cat 'LM Studio configuration.md'` (step 1), and its lines in the rg searches of steps 2, 5, 8
        "LM Studio configuration.md",
        # `sed -n '150,320p' README.md` (step 11); README lines also in rg steps 2 and 5
        "README.md",
        # `sed -n` over lines 1-220 and 220-640 (steps 3, 4; step 4 cut by Codex at 256 lines) and rg hits
        "components/chat/chat-helpers/index.ts",
        # `sed -n '1,420p'` (step 9, cut), `sed -n '200,240p'` (34), `rg -n "modelData" FILE` (33: one file
        # searched, so its unprefixed N:text lines are its excerpt), and rg hits of steps 8, 30, 31
        "components/chat/chat-hooks/use-chat-handler.tsx",
        # `sed -n '1,220p'` (step 6) and the LMSTUDIO / availableLocalModels hits (5, 30)
        "components/utility/global-state.tsx",
        # `sed -n '1,200p'` (step 7) and rg hits (5, 8)
        "lib/models/fetch-models.ts",
        # `sed -n '1,200p'` each (steps 10, 13-16, 18, 29), `sed -n '1,220p'` (23), `sed -n '1,320p'` (24, cut)
        "lib/consume-stream.ts",
        "types/models.ts",
        "types/index.ts",
        "types/llms.ts",
        "types/chat.ts",
        "lib/generate-local-embedding.ts",
        "lib/models/llm/llm-list.ts",
        "app/api/chat/custom/route.ts",
        "lib/build-prompt.ts",
        # `cat package.json` (step 28)
        "package.json",
        # `rg -n "LMSTUDIO" -n '.env.local.example'` (step 12): one file searched, line 9 shown
        ".env.local.example",
        # lines shown only by rg searches: `rg -n "lmstudio"` (8: model-option, model-select), `rg -n "local"
        # app/api` (17: the three retrieval routes), `rg -n "eventsource"` (25, 27: the two lock files),
        # `rg -n "availableLocalModels"` (30: context, chat-settings, message, chat-item, model-select)
        "components/models/model-option.tsx",
        "components/models/model-select.tsx",
        "app/api/retrieval/retrieve/route.ts",
        "app/api/retrieval/process/route.ts",
        "app/api/retrieval/process/docx/route.ts",
        "package-lock.json",
        "pnpm-lock.yaml",
        "context/context.tsx",
        "components/chat/chat-settings.tsx",
        "components/messages/message.tsx",
        "components/sidebar/items/chat/chat-item.tsx",
    }
    # not read: `ls`, `ls lib`, `ls app/api`, `ls app/api/chat` list (steps 0, 19, 21, 22), `ls lib/ai` (20)
    # and the searches of steps 26 and 32 failed, update_plan (35, 36) shows a plan, the patches (37, 38) write
    by_step = {r.step: r.new_entries for r in replay(t).records}
    assert all(not by_step[i] for i in (0, 19, 20, 21, 22, 26, 32, 35, 36, 37, 38))


def test_wild_sanitised_0_104_rollout(real: Path) -> None:
    """Every text of this rollout is `[REDACTED_...]`: it reads, with the calls it cannot type as others."""
    t = read_one(real / "wild" / "codex-rollout" / next(n for n in WILD if n.startswith("localpush")))
    assert (t.model, t.harness_version, t.meta["originator"]) == (
        "gpt-5.3-codex",
        "0.104.0-alpha.1",
        "Codex Desktop",
    )
    assert (
        t.instruction == "[REDACTED_MESSAGE len=516 sha=05857781]"
    )  # the user_message event's, not a context message
    assert t.usage.total_tokens == 7240100 and t.usage.input_tokens == 7204025
    tools = {}
    for s in t.steps:
        tools.setdefault(s.tool, set()).add(s.action.kind)
    assert tools == {
        "exec_command": {"other"},
        "write_stdin": {"other"},
        "apply_patch": {"other"},
        "update_plan": {"other"},
        "web_search": {"other"},
    }
    assert all(s.args_error for s in t.steps if s.tool in ("exec_command", "write_stdin", "update_plan"))
    assert t.deliverable.files == [] and t.deliverable.final_message.startswith("[REDACTED_TEXT")
    assert t.meta["event_msgs"]["task_complete"] == 5
    assert replay(t).tab.read_log == []


def test_wild_0_142_synthetic_sample(real: Path) -> None:
    t = read_one(real / "wild" / "codex-rollout" / "openagents__qa-runner__codex-rollout.sample.jsonl")
    ls, cat = t.steps
    assert (ls.command, ls.exit_code, ls.cwd) == ("pwd && ls", 0, "/Users/example/work")
    assert ls.shown[ls.frames[0].end :] == "/Users/example/work\nREADME.md\nsrc\npackage.json"
    assert (cat.command, cat.shown, cat.exit_code) == (
        "cat README.md",
        "# Example Project\nA small demo repo.",
        0,
    )
    assert t.instruction == "List the files in the repo root and tell me what's there."
    assert {e.path for e in replay(t).tab.read_log} == {"README.md"}


def test_the_usual_envelope_is_made_as_the_checked_reading_makes_it(tmp_path: Path) -> None:
    """``_records`` makes a well-formed envelope of a known kind itself; every record it gives is the one
    ``_normalise``, which checks each field, makes of the same value, and the others it leaves to it (warnings
    and all): envelopes of every known and an unknown kind, timestamps of every JSON type, payloads that are no
    object, record_type lines and bare items."""
    from rtlab.ingest.readers.codex_rollout import _normalise, _records

    rng = random.Random(29)
    kinds = ["session_meta", "response_item", "event_msg", "turn_context", "compacted", "future_kind", 7]
    stamps = ["2025-01-01T00:00:00Z", None, 3, [], {}]
    payloads = [{"type": "message"}, {}, [], "text"]
    values: list[Any] = [
        {"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x"}}
    ]
    for _ in range(400):
        shape = rng.random()
        if shape < 0.8:
            value = {"type": rng.choice(kinds), "payload": rng.choice(payloads)}
            if rng.random() < 0.8:
                value["timestamp"] = rng.choice(stamps)
        elif shape < 0.9:
            value = {"record_type": "state", "timestamp": rng.choice(stamps)}
        else:
            value = {"type": "message", "role": "user"}
        values.append(value)
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    got_warnings: list[str] = []
    records, _, _ = _records(path, got_warnings)
    expected, want_warnings = [], []
    for i, value in enumerate(values, start=1):
        try:
            rec = _normalise(path, i, value, first=i == 1, warnings=want_warnings)
        except ReaderError as exc:
            want_warnings.append(str(exc))
            continue
        if rec is not None:
            expected.append(rec)
    assert records == expected and all(type(r) is type(expected[0]) for r in records)
    assert len(got_warnings) == len(want_warnings) > 10
    assert sum(r.where == "payload" for r in records) > 100  # the usual envelope among them
