"""The Codex exec-stream reader: hand-made fixtures for the format's edge cases, and the 15 real Workspace-Bench runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import warnings_of

from rtlab.cli import main
from rtlab.errors import ReaderError, UnknownFormatError
from rtlab.ingest import CodexTruncation
from rtlab.ingest.readers import ReadOptions, codex, detect, discover
from rtlab.records import TokenUsage, trajectory_from_dict, trajectory_to_dict

RUN = "runs/7_plain"
STREAM = "runs/7_plain/output/raw/codex_stdout.jsonl"


def read_one(path: Path, clip: str | None = None, strict: bool = False):
    (t,) = codex.read(path, ReadOptions(clip=clip, strict=strict))
    return t


def write_stream(path: Path, *events: object, tail: str = "") -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events) + tail, encoding="utf-8")
    return path


START = {"type": "thread.started", "thread_id": "t1"}


def command(phase: str, item_id: str, cmd: str, **result: object) -> dict:
    return {
        "type": f"item.{phase}",
        "item": {"id": item_id, "type": "command_execution", "command": cmd, **result},
    }


# ---------------------------------------------------------------------------------------------------------
# Detection


def test_sniff_claims_run_folders_and_streams(fixtures: Path) -> None:
    assert codex.sniff(fixtures / "codex" / RUN)
    assert codex.sniff(fixtures / "codex" / RUN / "output")
    assert codex.sniff(fixtures / "codex" / STREAM)
    assert codex.sniff(fixtures / "codex" / "all_items.jsonl")


def test_sniff_rejects_other_files(fixtures: Path, tmp_path: Path) -> None:
    other = write_stream(tmp_path / "pi.jsonl", {"type": "session", "version": 1, "cwd": "/x"})
    assert not codex.sniff(other)
    assert not codex.sniff(fixtures / "codex" / RUN / "output" / "metadata.json")
    assert not codex.sniff(tmp_path / "missing.jsonl")
    assert not codex.sniff(tmp_path)  # a folder without a stream
    (tmp_path / "trunc.jsonl").write_text('{"type": "thread.sta', encoding="utf-8")
    assert not codex.sniff(tmp_path / "trunc.jsonl")


def test_run_folder_sniff_reads_only_the_first_event(tmp_path: Path) -> None:
    stream = tmp_path / "5_plain" / "raw" / "codex_stdout.jsonl"
    stream.parent.mkdir(parents=True)
    write_stream(stream, {"type": "message", "text": "not codex"})
    assert not codex.sniff(tmp_path / "5_plain")
    stream.write_bytes(b'\xff\xfe{"type": "thread.started"}\n')
    assert codex.sniff(tmp_path / "5_plain")  # unreadable: claimed, and reading says why
    with pytest.raises(ReaderError, match="UTF-8"):
        codex.read(tmp_path / "5_plain", ReadOptions(strict=True))


def test_run_folder_with_empty_stream_is_claimed_and_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "3_plain" / "raw").mkdir(parents=True)
    (tmp_path / "3_plain" / "raw" / "codex_stdout.jsonl").write_text("", encoding="utf-8")
    assert codex.sniff(tmp_path / "3_plain")
    with pytest.raises(ReaderError, match="empty"):
        codex.read(tmp_path / "3_plain", ReadOptions(strict=True))


# ---------------------------------------------------------------------------------------------------------
# The run-folder fixture


def test_run_folder_fixture(fixtures: Path) -> None:
    t = read_one(fixtures / "codex" / RUN)
    assert (t.id, t.format, t.task_id, t.method, t.harness, t.harness_version) == (
        "codex:7_plain",
        "codex",
        "7",
        "plain",
        "codex",
        None,
    )
    assert t.model == "openai/gpt-5.4"
    assert t.cwd == "/work/ws"
    assert t.instruction == "Summarise the Q3 sales tables into model_output/summary.md."
    assert t.meta["argv"][-1] == "openai/gpt-5.4"
    assert t.meta["thread_id"] == "0199a213-81c0-7800-8aa1-bbab2a035a53"
    assert t.usage == TokenUsage(
        input_tokens=2100, output_tokens=180, cached_input_tokens=1024, reasoning_tokens=64
    )
    assert t.clip_policy == "codex-0.133"

    assert [s.call_id for s in t.steps] == ["item_2", "item_3", "item_4", "item_5"]
    assert [s.index for s in t.steps] == [0, 1, 2, 3]
    assert t.n_steps == 3
    grep, cat, change, sleep = t.steps
    assert grep.command == "grep -rl 'Q3 sales' data | head -n 5"
    assert grep.args == {"command": "/bin/bash -lc \"grep -rl 'Q3 sales' data | head -n 5\""}
    assert grep.output == grep.shown == "data/sales_q3.csv\ndata/销售_第三季度.csv\n"
    assert (grep.exit_code, grep.is_error, grep.clipped, grep.line, grep.tool) == (
        0,
        False,
        False,
        5,
        "command_execution",
    )
    assert cat.command == "cat 'data/missing file.csv'"
    assert (cat.exit_code, cat.is_error) == (1, True)
    assert (change.tool, change.command, change.output) == (
        "file_change",
        "write model_output/summary.md",
        "completed",
    )
    assert sleep.command == "sleep 600"
    assert (sleep.answered, sleep.output, sleep.shown, sleep.line) == (False, None, None, 11)
    assert t.meta["unanswered_calls"] == ["item_5"]

    kinds = [(x.kind if hasattr(x, "kind") else "step", x.seq) for x in t.timeline()]
    assert [k for k, _ in kinds] == [
        "plan",
        "reasoning",
        "step",
        "step",
        "plan",
        "step",
        "step",
        "message",
        "plan",
    ]
    assert [s for _, s in kinds] == list(range(9))
    plans = [e for e in t.events if e.kind == "plan"]
    assert [e.data["phase"] for e in plans] == ["started", "updated", "completed"]
    assert plans[1].text == "[x] Find the sales tables\n[ ] Write the summary"

    assert t.deliverable.final_message == "['model_output/summary.md']"
    files = {f.path: f for f in t.deliverable.files}
    assert sorted(files) == ["summary.md", "tables/q3.csv"]
    assert files["tables/q3.csv"].content == "region,units\n北区,604\n南区,600\n"
    assert files["tables/q3.csv"].size == len("region,units\n北区,604\n南区,600\n".encode())
    assert Path(files["summary.md"].local_path).is_absolute()
    assert len(files["summary.md"].sha256) == 64


def test_same_trajectory_from_folder_output_folder_and_stream(fixtures: Path) -> None:
    base = read_one(fixtures / "codex" / RUN)
    for path in (fixtures / "codex" / RUN / "output", fixtures / "codex" / STREAM):
        t = read_one(path)
        assert (t.id, t.task_id, t.method, t.n_steps, t.deliverable) == (
            base.id,
            base.task_id,
            base.method,
            base.n_steps,
            base.deliverable,
        )
        assert t.source_path == str(path)


def test_round_trip(fixtures: Path) -> None:
    for path in (fixtures / "codex" / RUN, fixtures / "codex" / "all_items.jsonl"):
        t = read_one(path)
        assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_binary_deliverable_has_no_content(fixtures: Path, tmp_path: Path) -> None:
    run = tmp_path / "7_plain"
    shutil.copytree(fixtures / "codex" / RUN, run)
    (run / "output" / "output" / "chart.xlsx").write_bytes(b"PK\x03\x04\x00\xff\xfe")
    files = {f.path: f for f in read_one(run).deliverable.files}
    assert files["chart.xlsx"].content is None
    assert files["chart.xlsx"].size == 7


def test_final_message_falls_back_to_last_message_txt(fixtures: Path, tmp_path: Path) -> None:
    run = tmp_path / "12_nokg"
    shutil.copytree(fixtures / "codex" / RUN, run)
    stream = run / "output" / "raw" / "codex_stdout.jsonl"
    lines = [ln for ln in stream.read_text(encoding="utf-8").splitlines() if "agent_message" not in ln]
    stream.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = read_one(run)
    assert t.deliverable.final_message == "['model_output/summary.md']"
    assert (t.task_id, t.method) == ("12", "nokg")


# ---------------------------------------------------------------------------------------------------------
# Every item type of exec_events.rs


def test_all_item_types(fixtures: Path) -> None:
    t = read_one(fixtures / "codex" / "all_items.jsonl")
    assert t.id == "codex:t-all-items"  # no run folder: the thread id
    assert (t.task_id, t.method, t.usage) == (None, None, None)
    search, fetch, web, spawn = t.steps
    assert (search.tool, search.command) == ("mcp__docs__search", 'mcp__docs__search {"query":"rate limits"}')
    assert search.output == 'Rate limits are per key.\n{"type":"image","data":"AAAA","mimeType":"image/png"}'
    assert (search.is_error, search.line) == (False, 3)
    assert fetch.args == {"_raw": '{"url": '} and fetch.args_error.startswith("arguments are not valid JSON")
    assert (fetch.output, fetch.is_error) == ("server disconnected", True)
    assert (
        web.command
        == 'web_search {"query":"codex exec json events","action":{"type":"search","query":"codex exec json events"}}'
    )
    assert (web.output, web.answered) == ("", True)
    assert spawn.tool == "spawn_agent"
    assert spawn.output == '{"t-child":{"status":"running","message":null}}'
    assert spawn.args["receiver_thread_ids"] == ["t-child"]

    events = [(e.kind, e.text) for e in t.events]
    assert events == [
        ("plan", "1. Read the docs\n2. Answer"),
        ("error", "command output was not valid UTF-8"),
        ("message", "Which API version?"),
        ("message", "Rate limits are per key."),
        ("other", "hologram"),
        ("other", "session.configured"),
        ("error", "stream disconnected before completion"),
        ("error", "Reconnecting... 1/5"),
    ]
    assert t.deliverable.final_message == "Rate limits are per key."
    assert t.meta["plan_deltas"] == 1
    assert len(warnings_of(t)) == 2 and "'hologram'" in warnings_of(t)[0]


# ---------------------------------------------------------------------------------------------------------
# Clipping


def test_long_output_is_clipped_by_codex_0_133(tmp_path: Path) -> None:
    lines = [f"row {i:05d} 数据\n" for i in range(4000)]  # 17 bytes each, 68000 bytes in all
    out = "".join(lines)
    done = command(
        "completed", "item_0", "/bin/bash -lc 'seq'", aggregated_output=out, exit_code=0, status="completed"
    )
    stream = write_stream(tmp_path / "s.jsonl", START, done)
    step = read_one(stream).steps[0]
    assert step.clipped and step.output == out
    # head: the first 20000 bytes = 1176 whole lines (19992 bytes) + "row 0117"; tail: the last 20000 bytes start
    # at byte 48000 = offset 9 of line 2823 (" 数据\n"); marker ceil((68000 - 40000) / 4) = 7000 tokens; the body
    # has 2353 lines instead of 4000, so Codex adds the line count
    expected = (
        "Total output lines: 4000\n"
        + "".join(lines[:1176])
        + "row 0117"
        + "…7000 tokens truncated…"
        + " 数据\n"
        + "".join(lines[2824:])
    )
    assert step.shown == expected
    assert step.shown == CodexTruncation().apply(out)
    none = read_one(stream, clip="none").steps[0]
    assert (none.shown, none.clipped) == (out, False)
    assert read_one(stream, clip="none").clip_policy == "none"
    with pytest.raises(ValueError, match="unknown clip policy"):
        read_one(stream, clip="no-such-policy")


# ---------------------------------------------------------------------------------------------------------
# Bad input


def test_invalid_json_line_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps(START) + "\n{not json\n" + json.dumps({"type": "turn.started"}) + "\n", encoding="utf-8"
    )
    with pytest.raises(ReaderError) as err:
        codex.read(path, ReadOptions(strict=True))
    assert err.value.line == 2


def test_missing_field_names_the_field(tmp_path: Path) -> None:
    bad = {
        "type": "item.completed",
        "item": {"id": "item_0", "type": "command_execution", "aggregated_output": ""},
    }
    stream = write_stream(tmp_path / "s.jsonl", START, bad)
    with pytest.raises(ReaderError) as err:
        codex.read(stream, ReadOptions(strict=True))
    assert (err.value.line, err.value.field) == (2, "item.command")
    stream = write_stream(tmp_path / "s.jsonl", START, {"item": {}})
    with pytest.raises(ReaderError) as err:
        codex.read(stream, ReadOptions(strict=True))
    assert (err.value.line, err.value.field) == (2, "type")
    stream = write_stream(
        tmp_path / "s.jsonl", START, command("completed", "i", "ls", aggregated_output="", exit_code="0")
    )
    with pytest.raises(ReaderError) as err:
        codex.read(stream, ReadOptions(strict=True))
    assert err.value.field == "item.exit_code"


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="empty"):
        codex.read(path, ReadOptions(strict=True))


def test_non_utf8_bytes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(json.dumps(START).encode() + b"\n" + b'{"type": "error", "message": "\xff"}\n')
    with pytest.raises(ReaderError) as err:
        codex.read(path, ReadOptions(strict=True))
    assert err.value.line == 2


def test_truncated_last_line_is_tolerated(tmp_path: Path) -> None:
    done = command(
        "completed", "item_0", "/bin/bash -lc ls", aggregated_output="a\n", exit_code=0, status="completed"
    )
    stream = write_stream(
        tmp_path / "s.jsonl", START, done, tail='{"type": "item.completed", "item": {"id": "it'
    )
    t = read_one(stream)
    assert t.n_steps == 1
    assert "last line is not complete JSON" in warnings_of(t)[0]


def test_unanswered_call_is_kept(tmp_path: Path) -> None:
    started = command(
        "started", "item_0", "/bin/bash -lc 'make test'", aggregated_output="", status="in_progress"
    )
    t = read_one(write_stream(tmp_path / "s.jsonl", START, started))
    assert len(t.steps) == 1 and t.n_steps == 0
    assert (t.steps[0].command, t.steps[0].output, t.steps[0].shown) == ("make test", None, None)


def test_unwrap_keeps_non_shell_commands() -> None:
    assert codex.unwrap_shell("/bin/bash -lc 'echo \"$HOME\"'") == 'echo "$HOME"'
    assert codex.unwrap_shell("/usr/bin/zsh -c 'ls -la'") == "ls -la"
    assert codex.unwrap_shell("python3 run.py") == "python3 run.py"
    assert codex.unwrap_shell("/bin/bash -lc 'unterminated") == "/bin/bash -lc 'unterminated"


# ---------------------------------------------------------------------------------------------------------
# Real data: 15 Workspace-Bench-Lite runs of Codex + GPT-5.4


def _raw_counts(stream: Path) -> tuple[int, int]:
    """Completed command executions, and started ones that never completed, counted from the raw events."""
    started, completed = set(), set()
    for line in stream.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        ev = json.loads(line)
        item = ev.get("item") or {}
        if item.get("type") == "command_execution":
            if ev["type"] == "item.started":
                started.add(item["id"])
            elif ev["type"] == "item.completed":
                completed.add(item["id"])
    return len(completed), len(started - completed)


def test_real_runs(real: Path) -> None:
    root = real / "workspace-bench" / "codex-gpt-5.4-runs"
    runs = sorted(p for p in root.iterdir() if p.is_dir())
    assert len(runs) == 15
    clipped = 0
    for run in runs:
        assert codex.sniff(run)
        t = read_one(run)
        completed, unanswered = _raw_counts(run / "output" / "raw" / "codex_stdout.jsonl")
        assert t.n_steps == completed, run.name
        assert sum(1 for s in t.steps if not s.answered) == unanswered, run.name
        assert t.model == "openai/gpt-5.4" and t.harness == "codex" and t.harness_version is None
        assert t.id == f"codex:{run.name}"
        assert trajectory_from_dict(trajectory_to_dict(t)) == t
        clipped += sum(s.clipped for s in t.steps)
    assert clipped == 16


def test_real_run_15_plain(real: Path) -> None:
    t = read_one(real / "workspace-bench" / "codex-gpt-5.4-runs" / "15_plain")
    assert (t.n_steps, t.task_id, t.method, t.model) == (8, "15", "plain", "openai/gpt-5.4")
    assert [f.path for f in t.deliverable.files] == [
        "financial-table-key-expense-analysis-concise-version.xlsx"
    ]
    assert t.deliverable.files[0].content is None and t.deliverable.files[0].size == 7985
    assert (
        t.deliverable.final_message
        == "['model_output/financial-table-key-expense-analysis-concise-version.xlsx']"
    )
    assert t.usage == TokenUsage(
        input_tokens=181489, output_tokens=3080, cached_input_tokens=0, reasoning_tokens=0
    )
    assert t.steps[0].command.startswith("pwd && ls -la && find . -maxdepth 3 -type f")
    assert t.instruction.startswith("【重要要求 1：工作目录】")
    # item_1 printed 1 MiB exactly: Codex's capture cap, flagged
    assert len(t.steps[1].output.encode()) == 1024 * 1024
    assert any("capture cap" in w for w in warnings_of(t))


def test_real_run_95_gfs_on_has_unanswered_calls(real: Path) -> None:
    t = read_one(real / "workspace-bench" / "codex-gpt-5.4-runs" / "95_gfs_on")
    assert (len(t.steps), t.n_steps) == (17, 16)
    errors = [e.text for e in t.events if e.kind == "error"]
    assert errors == [
        "in-process app-server event stream lagged; dropped 24 events",
        "in-process app-server event stream lagged; dropped 28 events",
    ]


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("ls -la", ["ls", "-la"]),
        ("/bin/bash -lc 'cat a.txt'", ["/bin/bash", "-lc", "cat a.txt"]),
        # Codex's double-quoted form: inside "...", \$ \" \\ and \` lose the backslash as bash reads them
        (
            '/bin/bash -lc "echo \\"\\$HOME\\" && ls \'a b\'"',
            ["/bin/bash", "-lc", "echo \"$HOME\" && ls 'a b'"],
        ),
        ("/bin/bash -lc 'it'\"'\"'s'", ["/bin/bash", "-lc", "it's"]),
        ('echo "a\\nb"', ["echo", "a\\nb"]),  # other backslashes stay inside double quotes
        ("echo a\\ b\\\nc", ["echo", "a bc"]),  # escaped space joins; backslash-newline vanishes
        ("  ", []),
        ('""', [""]),
        ("echo 报告.md", ["echo", "报告.md"]),
    ],
)
def test_split_shell_words(raw: str, words: list[str]) -> None:
    from rtlab.text import split_shell_words

    assert split_shell_words(raw) == words


@pytest.mark.parametrize("raw", ["echo 'open", 'echo "open', "echo \\"])
def test_split_shell_words_rejects_unterminated(raw: str) -> None:
    from rtlab.text import split_shell_words

    with pytest.raises(ValueError):
        split_shell_words(raw)


# ---------------------------------------------------------------------------------------------------------
# Streams saved under any name (CI systems keep them as agent_log.md, agent_log_raw.txt, ...)


@pytest.mark.parametrize("name", ["agent_log.md", "agent_log_raw.txt", "stream", "out.json"])
def test_stream_is_detected_by_content_under_any_name(tmp_path: Path, name: str) -> None:
    done = command("completed", "item_0", "/bin/bash -lc ls", aggregated_output="a\n", exit_code=0)
    path = write_stream(tmp_path / name, START, done)
    assert detect(path) == "codex"
    assert [(p.name, f) for p, f in discover(path, format="codex")] == [(name, "codex")]
    assert read_one(path).n_steps == 1


def test_leading_blank_lines_and_a_byte_order_mark_are_passed_over(tmp_path: Path) -> None:
    done = command("completed", "item_0", "/bin/bash -lc ls", aggregated_output="a\n", exit_code=0)
    body = "".join(json.dumps(e) + "\n" for e in (START, done))
    path = tmp_path / "agent_log.md"
    path.write_bytes(b"\xef\xbb\xbf\n\r\n" + body.encode())
    assert codex.sniff(path)
    t = read_one(path)
    assert (t.n_steps, t.meta["thread_id"], t.steps[0].line) == (1, "t1", 4)


def test_a_markdown_file_that_is_not_a_stream_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "agent_log.md"
    notes.write_text('# Agent log\n\n{"type": "thread.started"}\n', encoding="utf-8")
    assert not codex.sniff(notes)
    with pytest.raises(UnknownFormatError, match="not recognised as format 'codex'"):
        list(discover(notes, format="codex"))


def _completed_commands(path: Path) -> int:
    """``command_execution`` items that completed, counted from the raw events (the README's number)."""
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return sum(
        1 for e in events if e["type"] == "item.completed" and e["item"].get("type") == "command_execution"
    )


WILD_EXEC = {
    "tielec__pr-436__analyze__agent_log.md": 12,
    "tielec__pr-451__analyze__agent_log.md": 25,
    "tielec__pr-464__analyze__agent_log.md": 22,
}
"""Completed command executions per real stream (the README gives 12 and 25; 22 counted by hand for pr-464)."""


@pytest.mark.parametrize("name", sorted(WILD_EXEC))
def test_wild_exec_streams_saved_as_markdown(real: Path, name: str) -> None:
    path = real / "wild" / "codex-exec" / name
    assert detect(path) == "codex"
    t = read_one(path)
    assert t.n_steps == _completed_commands(path) == WILD_EXEC[name]
    assert len(t.steps) == t.n_steps and all(s.tool == "command_execution" for s in t.steps)
    assert t.id == f"codex:{t.meta['thread_id']}" and t.deliverable.final_message
    assert all(s.action is not None and s.action.kind == "shell" for s in t.steps)
    assert main(["replay", str(path)]) == 0
