"""The Pi session reader: real session (format v1), hand-made v1/v2/v3 fixtures, notices, commands, bad input."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import warnings_of

from rtlab.errors import ReaderError
from rtlab.ingest.readers import pi
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import Trajectory, trajectory_from_dict, trajectory_to_dict

V1 = "session-v1-linear.jsonl"
V2 = "session-v2-tree.jsonl"
V3 = "session-v3.jsonl"


def read_one(path: Path, **options: Any) -> Trajectory:
    [t] = pi.read(path, ReadOptions(**options))
    return t


def raw_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_lines(path: Path, lines: list[object]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def assert_round_trip(t: Trajectory) -> None:
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t


# ---------------------------------------------------------------------------------------------------------
# Real data


@pytest.fixture(scope="module")
def large(real: Path) -> tuple[Path, Trajectory]:
    path = real / "pi" / "large-session.jsonl"
    return path, read_one(path)


def test_real_session_counts_match_the_raw_file(large: tuple[Path, Trajectory]) -> None:
    path, t = large
    calls, results = [], []
    for entry in raw_lines(path):
        message = entry.get("message", {})
        if message.get("role") == "assistant":
            calls += [b for b in message["content"] if b["type"] == "toolCall"]
        if message.get("role") == "toolResult":
            results.append(message["toolCallId"])
    assert len(t.steps) == len(calls) == 391
    assert t.n_steps == len(results) == 373
    assert [s.call_id for s in t.steps] == [c["id"] for c in calls]
    unanswered = {s.call_id for s in t.steps if not s.answered}
    assert unanswered == {c["id"] for c in calls} - set(results)
    assert len(unanswered) == 18
    assert Counter(s.tool for s in t.steps) == Counter(c["name"] for c in calls)
    assert Counter(s.tool for s in t.steps) == {"bash": 192, "edit": 146, "read": 50, "write": 3}


def test_real_session_hand_pinned_values(large: tuple[Path, Trajectory]) -> None:
    _, t = large
    assert t.id == "pi:d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
    assert t.steps[0].command == "read packages/coding-agent/docs/theme.md"
    assert t.steps[2].command == 'find packages/coding-agent/src -name "*selector.ts" -type f'
    assert t.model == "claude-sonnet-4-5"
    assert t.meta["models"] == {"openai/gpt-5.1-codex": 1, "anthropic/claude-sonnet-4-5": 452}
    assert t.cwd == "/Users/badlogic/workspaces/pi-mono"
    assert t.instruction == "/mode"  # the first user message of the session is a slash command
    assert t.meta["session_version"] == 1
    assert t.meta["n_entries_off_path"] == 0
    assert t.started_at == "2025-11-20T23:33:01.550Z"
    assert t.ended_at == "2025-11-21T02:14:02.980Z"
    assert sum(s.is_error for s in t.steps) == 19
    assert Counter(s.exit_code for s in t.steps if s.tool == "bash" and s.answered) == {
        0: 173,
        1: 14,
        2: 3,
        None: 2,
    }
    # The 25 "... (N more lines not shown ...)" notices all follow reads that set `limit`: windows, not clips.
    assert t.meta["n_window_notices"] == 25
    assert t.meta["n_clipped_notices"] == 0
    assert not any(s.clipped for s in t.steps)
    assert all(s.shown == s.output for s in t.steps)
    assert [f.path for f in t.deliverable.files] == [
        "packages/tui/test/test-themes.ts",
        "packages/tui/test/truncated-text.test.ts",
        "packages/coding-agent/test/test-theme-colors.ts",
    ]
    assert t.deliverable.final_message is not None
    assert t.deliverable.final_message.startswith("Oh wait, these errors look like we have API mismatches!")


def test_real_session_usage(large: tuple[Path, Trajectory]) -> None:
    path, t = large
    usages = [
        e["message"]["usage"] for e in raw_lines(path) if e.get("message", {}).get("role") == "assistant"
    ]
    assert t.usage is not None
    assert t.usage.output_tokens == sum(u["output"] for u in usages) == 83156
    assert t.usage.cached_input_tokens == sum(u["cacheRead"] for u in usages) == 43229469
    assert (
        t.usage.input_tokens == sum(u["input"] + u["cacheRead"] + u["cacheWrite"] for u in usages) == 47526750
    )
    assert t.usage.cost_usd == pytest.approx(sum(u["cost"]["total"] for u in usages))
    assert t.usage.cost_usd == pytest.approx(30.3301977)


def test_real_session_round_trip(large: tuple[Path, Trajectory]) -> None:
    assert_round_trip(large[1])


# ---------------------------------------------------------------------------------------------------------
# Fixtures


def test_sniff(fixtures: Path, tmp_path: Path) -> None:
    for name in (V1, V2, V3):
        assert pi.sniff(fixtures / "pi" / name)
    assert not pi.sniff(fixtures / "pi")
    assert not pi.sniff(fixtures / "dci" / "20260210-141503" / "events.jsonl")
    other = write_lines(tmp_path / "codex.jsonl", [{"type": "session_meta", "payload": {}}])
    assert not pi.sniff(other)
    binary = tmp_path / "x.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    assert not pi.sniff(binary)
    assert not pi.sniff(tmp_path / "missing.jsonl")


def test_v2_tree_keeps_only_the_path_to_the_last_entry(fixtures: Path) -> None:
    path = fixtures / "pi" / V2
    t = read_one(path)
    entries = raw_lines(path)[1:]
    by_id = {e["id"]: e for e in entries}
    on_path, current = [], entries[-1]
    while current:
        on_path.append(current["id"])
        current = by_id.get(current["parentId"])
    expected_calls = [
        b["id"]
        for e in entries
        if e["id"] in on_path and e["type"] == "message" and e["message"]["role"] == "assistant"
        for b in e["message"]["content"]
        if b["type"] == "toolCall"
    ]
    assert [s.call_id for s in t.steps] == expected_calls
    assert "toolu_90" not in {s.call_id for s in t.steps}  # the abandoned branch's write
    assert t.meta["n_entries_off_path"] == len(entries) - len(on_path) == 3
    assert t.meta["n_tool_calls_off_path"] == 1
    assert [f.path for f in t.deliverable.files] == ["CHANGELOG.md"]  # not the abandoned src/parse.ts rewrite


def test_v2_parallel_calls_answered_out_of_order_link_by_id(fixtures: Path) -> None:
    t = read_one(fixtures / "pi" / V2)
    read_step, grep_step = t.steps[1], t.steps[2]
    assert (read_step.call_id, read_step.command) == ("toolu_02", "read src/parse.ts")
    assert read_step.output is not None and read_step.output.startswith("line 1\nline 2")
    assert (grep_step.call_id, grep_step.command) == ("toolu_03", "grep -rn parseEmpty src")
    assert grep_step.output == "parse.ts:12: export function parseEmpty(input?: string) {"
    assert grep_step.ended_at == "2025-12-10T09:00:19.000Z" < read_step.ended_at == "2025-12-10T09:00:20.000Z"


def test_v2_unanswered_call_and_counts(fixtures: Path) -> None:
    t = read_one(fixtures / "pi" / V2)
    assert len(t.steps) == 7
    assert t.n_steps == 6
    last = t.steps[-1]
    assert (last.call_id, last.command, last.answered, last.shown) == (
        "toolu_07",
        "git diff --stat",
        False,
        None,
    )
    first = t.steps[0]
    assert (first.is_error, first.exit_code, first.command) == (True, 1, "npm test 2>&1 | tail -20")
    assert t.steps[4].exit_code == 0
    assert t.deliverable.final_message == "Adding the entry, then checking the diff."
    assert t.instruction == "Fix the failing test in src/parse.ts and add a CHANGELOG entry."


def test_v2_compaction_records_the_compacted_steps(fixtures: Path) -> None:
    t = read_one(fixtures / "pi" / V2)
    [compaction] = [e for e in t.events if e.data.get("type") == "compaction"]
    assert compaction.kind == "compaction"
    assert compaction.data["firstKeptEntryId"] == "a1000010"
    assert compaction.data["compacted_steps"] == [0, 1, 2]  # the calls before the first kept entry
    assert t.meta["compacted_steps"] == [0, 1, 2]
    assert compaction.text.startswith("The user asked to fix the failing parse test.")
    [branch] = [e for e in t.events if e.data.get("type") == "branch_summary"]
    assert branch.kind == "compaction"
    assert branch.seq < compaction.seq


def test_v2_truncation_notices_clip(fixtures: Path) -> None:
    t = read_one(fixtures / "pi" / V2)
    assert [s.index for s in t.steps if s.clipped] == [1, 4]  # read (2000-line head), bash (tail)
    assert all(s.shown == s.output for s in t.steps)
    assert t.clip_policy == "none"


def test_v2_messages_become_events(fixtures: Path) -> None:
    t = read_one(fixtures / "pi" / V2)
    [bash] = [e for e in t.events if e.data.get("type") == "bashExecution"]
    assert (bash.kind, bash.role, bash.data["command"], bash.data["exitCode"]) == (
        "message",
        "user",
        "npm test",
        0,
    )
    assert bash.text.startswith("Ran `npm test`\n```\n")
    assert bash.text.endswith("[Output truncated. Full output: /tmp/pi-bash-7f3a10.log]")
    [hook] = [e for e in t.events if e.data.get("type") == "hookMessage"]
    assert (hook.role, hook.text) == ("user", "Remember to run the linter before finishing.")
    assert [e.kind for e in t.events if e.data.get("type") == "model_change"] == ["system"]
    seqs = [x.seq for x in t.timeline()]
    assert seqs == list(range(len(t.steps) + len(t.events)))


def test_v2_usage_is_summed_from_assistant_messages(fixtures: Path) -> None:
    path = fixtures / "pi" / V2
    t = read_one(path)
    usages = [
        e["message"]["usage"]
        for e in raw_lines(path)[1:]
        if e.get("message", {}).get("role") == "assistant"
        and e["id"] not in {"b2000001", "b2000003"}  # off the path
    ]
    assert t.usage is not None
    assert t.usage.output_tokens == sum(u["output"] for u in usages) == 280
    assert t.usage.cost_usd == pytest.approx(sum(u["cost"]["total"] for u in usages))


def test_v3_commands_windows_and_writes(fixtures: Path) -> None:
    t = read_one(fixtures / "pi" / V3)
    assert [s.command for s in t.steps] == [
        "find src -name '*.ts'",
        "ls docs",
        "grep -rn -i PI_HOME src",
        "read src/config/loader.ts 1 40",
        "write docs/config.md",
        "write docs/config.md",
    ]
    # find hit its default 1000-result limit (clip); grep's limit=5 and read's limit=40 were the model's own.
    assert [s.clipped for s in t.steps] == [True, False, False, False, False, False]
    assert (t.meta["n_clipped_notices"], t.meta["n_window_notices"]) == (1, 2)
    [config] = t.deliverable.files
    assert (config.path, config.origin) == ("docs/config.md", "write_tool")
    assert (
        config.content
        == "# Configuration\n\n`PI_HOME` overrides the agent directory (default `~/.pi/agent`).\n"
    )
    assert config.size == len(config.content.encode())
    assert t.model == "gpt-5.1-codex"
    assert t.meta["provider"] == "openai"
    assert t.meta["parentSession"].endswith("_1b2c.jsonl")


def test_v3_entry_types(fixtures: Path) -> None:
    t = read_one(fixtures / "pi" / V3)
    types = Counter(e.data.get("type") for e in t.events)
    assert types["custom"] == types["custom_message"] == types["label"] == types["session_info"] == 1
    assert types["thinking_level_change"] == 1
    [reminder] = [e for e in t.events if e.data.get("type") == "custom_message"]
    assert (reminder.kind, reminder.role) == ("message", "user")
    [reasoning] = [e for e in t.events if e.kind == "reasoning"]
    assert reasoning.text == "Locate the loader first, then the docs folder."
    assert t.usage is not None and t.usage.total_tokens == 46215  # from the logged totalTokens
    assert (
        t.deliverable.final_message
        == "Documented `PI_HOME` in docs/config.md: it overrides the agent directory."
    )


def test_v1_linear_with_index_compaction(fixtures: Path) -> None:
    t = read_one(fixtures / "pi" / V1)
    assert t.meta["session_version"] == 1
    assert [s.command for s in t.steps] == ["ls", "read a.min.js"]
    assert t.meta["compacted_steps"] == [0]  # firstKeptEntryIndex 5 = the second user message
    assert [s.clipped for s in t.steps] == [False, True]  # "Some lines were truncated to 2000 characters"
    assert t.instruction == "List the files here."


@pytest.mark.parametrize("name", [V1, V2, V3])
def test_fixture_round_trip(fixtures: Path, name: str) -> None:
    assert_round_trip(read_one(fixtures / "pi" / name))


# ---------------------------------------------------------------------------------------------------------
# Notices and commands

CLIPS = [
    ("line\n\n[Showing lines 1-2000 of 2400. Use offset=2001 to continue.]", {}),
    ("line\n\n[Showing lines 1-812 of 3000 (50.0KB limit). Use offset=813 to continue.]", {"limit": 5000}),
    ("[Line 1 is 61.2KB, exceeds 50.0KB limit. Use bash: sed -n '1p' a.json | head -c 51200]", {}),
    (
        "x\n\n[Showing lines 1001-3000 of 3000. Full output: /tmp/pi-bash-1.log]\n\nCommand exited with code 2",
        {},
    ),
    ("x\n\n[Showing lines 10-400 of 400 (50.0KB limit). Full output: /tmp/pi-bash-2.log]", {}),
    ("x\n\n[Showing last 50.0KB of line 7 (line is 1.2MB). Full output: /tmp/pi-bash-3.log]", {}),
    ("x\n\n[Showing lines 5-20. Full output: /tmp/pi-bash-4.log]", {}),
    ("x\n\n[Showing last 50.0KB. Full output: /tmp/pi-bash-5.log]", {}),
    ("Ran `make`\n```\nx\n```\n\n[Output truncated. Full output: /tmp/pi-bash-6.log]", {}),
    ("a:1: x\n\n[100 matches limit reached. Use limit=200 for more, or refine pattern]", {}),
    ("a.ts\n\n[1000 results limit reached. Use limit=2000 for more, or refine pattern]", {}),
    ("a/\n\n[500 entries limit reached. Use limit=1000 for more]", {}),
    ("a:1: x\n\n[50.0KB limit reached]", {}),
    (
        "a:1: x\n\n[5 matches limit reached. Use limit=10 for more, or refine pattern. 50.0KB limit reached]",
        {"limit": 5},
    ),
    ("a:1: x... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]", {}),
    ("x\n\n... (Some lines were truncated to 2000 characters for display)", {}),
    ("x\n\n... (400 more lines not shown. Use offset=2001 to continue reading)", {}),
]
WINDOWS = [
    ("x\n\n[120 more lines in file. Use offset=41 to continue.]", {"limit": 40}),
    ("x\n\n... (620 more lines not shown. Use offset=770 to continue reading)", {"offset": 720, "limit": 50}),
    ("a:1: x\n\n[5 matches limit reached. Use limit=10 for more, or refine pattern]", {"limit": 5}),
]


@pytest.mark.parametrize(("text", "args"), CLIPS)
def test_clip_notices(text: str, args: dict) -> None:
    assert pi.notice_kind(text, args) == "clip"


@pytest.mark.parametrize(("text", "args"), WINDOWS)
def test_window_notices(text: str, args: dict) -> None:
    assert pi.notice_kind(text, args) == "window"


def test_no_notice() -> None:
    source = (
        "outputText += `\\n\\n[Showing lines ${start}-${end} of ${total}. Use offset=${next} to continue.]`;"
    )
    assert pi.notice_kind(source, {}) is None  # the tool's own source, read back: no digits, no notice
    buried = "[Showing lines 1-2000 of 2400. Use offset=2001 to continue.]\n" + "y" * 5000
    assert pi.notice_kind(buried, {}) is None  # notices are appended at the end, not quoted mid-output
    assert pi.notice_kind("", {}) is None
    assert pi.notice_kind(None, {}) is None


def test_structured_details() -> None:
    assert pi.notice_kind("x", {}, {"truncation": {"truncated": True}}) == "clip"
    assert pi.notice_kind("x", {}, {"truncation": {"truncated": False}}) is None
    assert pi.notice_kind("x", {}, {"linesTruncated": True}) == "clip"
    assert pi.notice_kind("x", {"limit": 3}, {"matchLimitReached": 3}) == "window"
    assert pi.notice_kind("x", {}, {"entryLimitReached": 500}) == "clip"


@pytest.mark.parametrize(
    ("tool", "args", "command"),
    [
        ("bash", {"command": "ls -la", "timeout": 5}, "ls -la"),
        ("read", {"path": "/a/b.py"}, "read /a/b.py"),
        ("read", {"path": "b.py", "offset": 10, "limit": 20}, "read b.py 10 20"),
        ("read", {"path": "b.py", "offset": 10}, "read b.py 10"),
        ("read", {"path": "b.py", "limit": 20}, "read b.py 1 20"),
        ("write", {"path": "out.md", "content": "x"}, "write out.md"),
        ("edit", {"path": "a.ts", "oldText": "a", "newText": "b"}, "edit a.ts"),
        ("ls", {}, "ls ."),
        ("ls", {"path": "my dir"}, "ls 'my dir'"),
        ("find", {"pattern": "*.ts"}, "find . -name '*.ts'"),
        (
            "grep",
            {"pattern": "a b", "path": "src", "literal": True, "context": 2},
            "grep -rn -F -C 2 'a b' src",
        ),
        ("grep", {"pattern": "x", "glob": "*.ts"}, "grep -rn --include='*.ts' x ."),
        ("bash", {}, "bash"),
        ("web_fetch", {"url": "https://x.org"}, 'web_fetch {"url":"https://x.org"}'),
    ],
)
def test_tool_command(tool: str, args: dict, command: str) -> None:
    assert pi.tool_command(tool, args) == command


# ---------------------------------------------------------------------------------------------------------
# Bad input

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}


def entry(eid: str, parent: str | None, message: dict) -> dict:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": message,
    }


def call_message(arguments: object) -> dict:
    return {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": arguments}],
    }


def test_invalid_json_line_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps(HEADER) + "\n{not json\n" + json.dumps(entry("e1", None, call_message({}))) + "\n"
    )
    with pytest.raises(ReaderError) as err:
        pi.read(path, ReadOptions(strict=True))
    assert (err.value.line, str(path)) == (2, err.value.path)


def test_missing_field_names_the_field(tmp_path: Path) -> None:
    result = {
        "role": "toolResult",
        "toolName": "bash",
        "content": [{"type": "text", "text": "x"}],
        "isError": False,
    }
    path = write_lines(
        tmp_path / "s.jsonl", [HEADER, entry("e1", None, call_message({})), entry("e2", "e1", result)]
    )
    with pytest.raises(ReaderError) as err:
        pi.read(path, ReadOptions(strict=True))
    assert (err.value.line, err.value.field) == (3, "message.toolCallId")

    no_parent = {k: v for k, v in entry("e1", None, call_message({})).items() if k != "parentId"}
    path = write_lines(tmp_path / "p.jsonl", [HEADER, no_parent])
    with pytest.raises(ReaderError) as err:
        pi.read(path, ReadOptions(strict=True))
    assert (err.value.line, err.value.field) == (2, "parentId")

    no_id = {"role": "assistant", "content": [{"type": "toolCall", "name": "bash", "arguments": {}}]}
    path = write_lines(tmp_path / "i.jsonl", [HEADER, entry("e1", None, no_id)])
    with pytest.raises(ReaderError) as err:
        pi.read(path, ReadOptions(strict=True))
    assert err.value.field == "message.content[0].id"


def test_empty_and_headerless_files(tmp_path: Path) -> None:
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n")
    with pytest.raises(ReaderError, match="empty"):
        pi.read(empty, ReadOptions(strict=True))
    headerless = write_lines(tmp_path / "h.jsonl", [entry("e1", None, call_message({}))])
    with pytest.raises(ReaderError) as err:
        pi.read(headerless, ReadOptions(strict=True))
    assert (err.value.line, err.value.field) == (1, "type")
    bad_version = write_lines(tmp_path / "v.jsonl", [{**HEADER, "version": "3"}])
    with pytest.raises(ReaderError) as err:
        pi.read(bad_version, ReadOptions(strict=True))
    assert err.value.field == "version"


def test_non_utf8_bytes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(json.dumps(HEADER).encode() + b"\n" + b'{"type":"message","x":"\xff"}\n')
    with pytest.raises(ReaderError) as err:
        pi.read(path, ReadOptions(strict=True))
    assert err.value.line == 2


def test_truncated_last_line_is_a_warning(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [HEADER, entry("e1", None, call_message({"command": "ls"}))])
    with path.open("a") as fh:
        fh.write('{"type":"message","id":"e2","parentId":"e1","message":{"role":"toolRes')
    t = read_one(path)
    assert len(t.steps) == 1 and not t.steps[0].answered
    assert any("last line is not complete JSON" in w for w in warnings_of(t))


def test_invalid_arguments_json_is_kept_raw(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [HEADER, entry("e1", None, call_message('{"command": "ls'))])
    [step] = read_one(path).steps
    assert step.args == {"_raw": '{"command": "ls'}
    assert step.args_error is not None and "not valid JSON" in step.args_error
    assert step.command == 'bash {"command": "ls'  # unparsed arguments are shown raw


def test_parent_cycle_and_duplicate_ids(tmp_path: Path) -> None:
    user = {"role": "user", "content": "hi"}
    cycle = write_lines(tmp_path / "c.jsonl", [HEADER, entry("e1", "e2", user), entry("e2", "e1", user)])
    with pytest.raises(ReaderError, match="cycle") as err:
        pi.read(cycle, ReadOptions(strict=True))
    assert err.value.field == "parentId"
    duplicate = write_lines(tmp_path / "d.jsonl", [HEADER, entry("e1", None, user), entry("e1", "e1", user)])
    with pytest.raises(ReaderError, match="duplicate") as err:
        pi.read(duplicate, ReadOptions(strict=True))
    assert (err.value.line, err.value.field) == (3, "id")


def test_orphan_result_is_an_event_with_a_warning(tmp_path: Path) -> None:
    result = {
        "role": "toolResult",
        "toolCallId": "zz",
        "toolName": "bash",
        "content": "out",
        "isError": False,
    }
    path = write_lines(tmp_path / "s.jsonl", [HEADER, entry("e1", None, result)])
    t = read_one(path)
    assert t.steps == []
    assert t.events[0].data["orphan"] is True
    assert t.meta["n_orphan_results"] == 1


def test_wrong_types_raise_reader_errors(tmp_path: Path) -> None:
    bad_content = {"role": "assistant", "content": "text instead of blocks"}
    path = write_lines(tmp_path / "s.jsonl", [HEADER, entry("e1", None, bad_content)])
    with pytest.raises(ReaderError) as err:
        pi.read(path, ReadOptions(strict=True))
    assert err.value.field == "message.content"
    path = write_lines(
        tmp_path / "t.jsonl", [HEADER, {"type": "message", "id": "e1", "parentId": None, "message": []}]
    )
    with pytest.raises(ReaderError) as err:
        pi.read(path, ReadOptions(strict=True))
    assert err.value.field == "message"
    path = write_lines(tmp_path / "u.jsonl", [HEADER, ["not", "an", "object"]])
    with pytest.raises(ReaderError):
        pi.read(path, ReadOptions(strict=True))
