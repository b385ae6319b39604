"""The Gemini CLI reader: hand-made session files (2026 JSON lines, 2025 JSON) and stream-json, the real
session in ``../shared/real/wild/gemini-cli``, tolerance of damaged records, detection."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, wild_folder

from rtlab.cli import main
from rtlab.environment import capture_step, replay
from rtlab.errors import ReaderError
from rtlab.ingest import FORMATS, detect
from rtlab.ingest.readers import gemini_cli, get_reader
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import Step, Trajectory, trajectory_from_dict, trajectory_to_dict

HERE = FIXTURES / "gemini-cli"
SESSION = HERE / "session-2026-03-02T09-00-5e0c1f2a.jsonl"
LEGACY = HERE / "session-2025-08-14T15-20-0b7d2e44.json"
STREAM = HERE / "stream-json.jsonl"


def read_one(path: Path) -> Trajectory:
    [t] = gemini_cli.read(path, ReadOptions())
    return t


def said(t: Trajectory) -> list[tuple[int | None, str, str]]:
    """The reading warnings as (line, kind, reason); each names the file read."""
    assert all(w.path == t.source_path for w in t.warnings)
    return [(w.line, w.kind, w.reason) for w in t.warnings]


def refused_under_strict(path: Path, line: int | None) -> None:
    """``--strict`` turns the first warning into an error naming the file and the line."""
    where = f"{path}:{line}" if line is not None else str(path)
    with pytest.raises(ReaderError, match=re.escape(where)):
        gemini_cli.read(path, ReadOptions(strict=True))


def unframed(step: Step) -> str:
    """The shown text outside the step's frames: what the command or file printed."""
    shown, pos, out = step.shown or "", 0, []
    for f in step.frames:
        out.append(shown[pos : f.start])
        pos = f.end
    return "".join(out) + shown[pos:]


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------------------
# The 2026 JSON-lines recording


def test_session_steps_exactly() -> None:
    t = read_one(SESSION)
    got = [
        (s.tool, s.command, s.action.kind, s.action.path or s.action.base or s.action.pattern, s.answered)
        for s in t.steps
        if s.action is not None
    ]
    assert got == [
        ("read_file", "read calc/ops.py 1 3", "read", "calc/ops.py", True),
        ("grep_search", 'grep_search {"pattern":"def add"}', "read", "calc/ops.py", True),
        ("grep_search", 'grep_search {"pattern":"add\\\\("}', "other", None, True),
        ("glob", 'glob {"pattern":"tests/*.py"}', "list", "tests/*.py", True),
        ("list_directory", 'list_directory {"dir_path":"calc"}', "list", "/home/dev/calc/calc", True),
        (
            "replace",
            'replace {"file_path":"calc/ops.py","old_string":"    return a - b","new_string":"    return '
            'a + b","instruction":"add must add"}',
            "edit",
            "calc/ops.py",
            True,
        ),  # fmt: skip
        ("write_file", "write NOTES.md", "write", "NOTES.md", True),
        ("run_shell_command", "rm -rf build", "shell", None, True),
        ("run_shell_command", "make test", "shell", None, True),
        ("read_file", "read tests/test_ops.py", "read", "tests/test_ops.py", False),
    ]
    assert t.n_steps == 9 and len(t.steps) == 10
    assert [s.call_id for s in t.steps][:2] == ["read_file_1772442010000_0", "grep_search_1772442012000_0"]
    cancelled, failed_tests = t.steps[7], t.steps[8]
    assert cancelled.is_error and cancelled.shown == "[Operation Cancelled] Reason: User denied execution."
    assert unframed(cancelled) == ""
    assert not failed_tests.is_error and failed_tests.exit_code == 2
    assert unframed(failed_tests) == "FAILED tests/test_ops.py::test_sub - assert 0 == -1\n1 failed, 3 passed"
    assert t.steps[0].action.offset == 1 and t.steps[0].action.limit == 3
    assert unframed(t.steps[0]) == "def add(a, b):\n    return a - b\n"
    assert unframed(t.steps[1]) == "def add(a, b):\n    return a - b\n"
    assert unframed(t.steps[3]) == "/home/dev/calc/tests/test_ops.py"
    assert unframed(t.steps[4]) == "__pycache__\n__init__.py\nops.py"
    assert t.steps[0].started_at == "2026-03-02T09:00:10.000Z"
    assert t.steps[0].ended_at == "2026-03-02T09:00:10.500Z"


def test_session_facts_and_events() -> None:
    t = read_one(SESSION)
    assert t.id == "gemini-cli:5e0c1f2a-7d4b-4c3e-9a10-2b6f8d9e0c11"
    assert t.format == "gemini-cli" and t.harness == "gemini-cli"
    assert t.model == "gemini-2.5-pro"
    assert t.instruction == "Why does `make test` fail in calc/? Fix it."
    assert t.deliverable.final_message == "The subtraction in `add` is the bug; fixing it."
    assert [(f.path, f.content) for f in t.deliverable.files] == [("NOTES.md", "add() subtracted; fixed.\n")]
    assert t.started_at == "2026-03-02T09:00:00.000Z" and t.ended_at == "2026-03-02T09:00:50.001Z"
    assert t.meta["summary"] == "Fix add() in calc" and t.meta["layout"] == "session-jsonl"
    assert "warnings" not in t.meta and t.warnings == []
    u = t.usage
    assert u is not None
    assert (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.reasoning_tokens, u.total_tokens) == (
        1200 + 1400 + 1500 + 1600 + 1700 + 1800 + 1900,
        30 + 20 + 25 + 20 + 60 + 10 + 15 + 15 + 15,
        0 + 1100 + 1300 + 1400 + 1500 + 1600 + 1700,
        30,
        1250 + 1425 + 1520 + 1670 + 1715 + 1815 + 1915,
    )
    kinds = [(e.kind, e.text[:24]) for e in t.events]
    assert ("reasoning", "Reading the code\nI will ") in kinds
    assert ("other", "Request cancelled.") in kinds
    assert ("error", "[API Error: You have exh") in kinds
    assert not any("rewrite the whole module" in e.text for e in t.events)  # removed by $rewindTo
    assert [e.text for e in t.events if e.kind == "reasoning"] == [
        "Reading the code\nI will look at calc/ops.py first."
    ]
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t


def test_session_capture_reads_what_was_shown() -> None:
    t = read_one(SESSION)
    read = capture_step(t.steps[0]).reads
    assert [(r.path, r.excerpt) for r in read] == [("calc/ops.py", "def add(a, b):\n    return a - b\n")]
    assert {r.path for r in capture_step(t.steps[1]).reads} == {"calc/ops.py"}  # one excerpt a line
    assert capture_step(t.steps[2]).reads == ()  # matches in two files: not attributed
    entries = {(e.step, e.path) for e in replay(t).tab.read_log}
    assert (0, "calc/ops.py") in entries


# ---------------------------------------------------------------------------------------------------------
# The 2025 single-JSON session and stream-json


def test_legacy_session() -> None:
    t = read_one(LEGACY)
    assert t.meta["layout"] == "session-json"
    assert [(s.tool, s.action.kind, s.action.path) for s in t.steps if s.action] == [
        ("search_file_content", "read", "/work/app/src/main.py"),
        ("read_file", "read", "/work/app/src/main.py"),
        ("run_shell_command", "shell", None),
        ("read_file", "read", "/work/app/src/missing.py"),
    ]
    search, window, shell, missing = t.steps
    assert unframed(search) == "# TODO: handle empty input\n"
    assert (window.action.offset, window.action.limit, window.command) == (
        6,
        3,
        "read /work/app/src/main.py 6 3",
    )
    assert unframed(window) == "def main(argv):\n    # TODO: handle empty input\n    return run(argv[1])"
    assert shell.exit_code == 0 and unframed(shell) == "4"
    assert missing.is_error and unframed(missing) == "" and capture_step(missing).reads == ()
    assert t.deliverable.final_message.startswith("There is one TODO")
    assert t.model == "gemini-2.5-flash" and t.usage.total_tokens == 940 + 1120 + 1325


def test_stream_json() -> None:
    t = read_one(STREAM)
    assert t.id == "gemini-cli:c0ffee00-aaaa-4bbb-8ccc-123456789abc"
    assert t.meta["layout"] == "stream-json" and t.meta["status"] == "success"
    assert [(s.tool, s.command, s.answered, s.is_error) for s in t.steps] == [
        ("read_file", "read package.json", True, False),
        ("run_shell_command", "node -p \"require('./package.json').version\"", True, False),
        ("read_file", "read CHANGELOG.md", True, True),
    ]
    assert unframed(t.steps[1]) == "1.4.2"  # a command's display is its output
    assert t.steps[2].shown == "File not found: /repo/CHANGELOG.md" and unframed(t.steps[2]) == ""
    assert t.deliverable.final_message == "package.json declares version 1.4.2."
    assert t.instruction == "What version does package.json declare?"
    assert t.usage.input_tokens == 5100 and t.usage.total_tokens == 5210
    assert t.model == "gemini-2.5-pro"


def test_stream_json_display_of_a_file_tool_is_not_file_content(tmp_path: Path) -> None:
    lines = lines_of(STREAM)
    display = json.loads(lines[3])
    display["output"] = "Read lines 1-20 of 20 from package.json"
    lines[3] = json.dumps(display)
    t = read_one(write(tmp_path / "s.jsonl", [x for x in lines if x]))
    assert t.steps[0].shown == "Read lines 1-20 of 20 from package.json"
    assert unframed(t.steps[0]) == "" and capture_step(t.steps[0]).reads == ()


# ---------------------------------------------------------------------------------------------------------
# Damaged records: each case reads every intact record and says where the damage is


def _session_lines() -> list[str]:
    return [x for x in lines_of(SESSION) if x]


def test_a_non_json_line_is_skipped(tmp_path: Path) -> None:
    lines = _session_lines()
    lines.insert(3, "Error: spawn ps ENOENT")
    path = write(tmp_path / "s.jsonl", lines)
    t = read_one(path)
    assert t.n_steps == 9
    assert said(t) == [(4, "not-json", "not JSON ('Error: spawn ps ENOENT'); skipped")]
    refused_under_strict(path, 4)


def test_a_truncated_last_record_is_skipped(tmp_path: Path) -> None:
    lines = _session_lines()
    last = lines[-1]
    lines[-1] = last[: len(last) // 2]
    path = write(tmp_path / "s.jsonl", lines)
    t = read_one(path)
    assert t.n_steps == 9
    assert said(t) == [(len(lines), "truncated", "last line is not complete JSON (log cut off?); skipped")]
    refused_under_strict(path, len(lines))


def test_an_unknown_record_and_a_mistyped_field(tmp_path: Path) -> None:
    lines = _session_lines()
    g2 = json.loads(lines[5])
    assert g2["id"] == "g2"
    g2["toolCalls"] = "oops"
    lines[5] = json.dumps(g2)
    lines.insert(2, json.dumps({"kind": "something new", "value": 1}))
    path = write(tmp_path / "s.jsonl", lines)
    t = read_one(path)
    assert t.n_steps == 7  # the two searches of g2 are lost, nothing else
    assert said(t) == [
        (3, "unknown-record", "unknown record: not a Gemini CLI record (no id, $set, $rewindTo or sessionId); skipped"),
        (7, "bad-record", "toolCalls: expected a list, got str; skipped"),
    ]  # fmt: skip
    refused_under_strict(path, 3)


def test_a_call_without_a_name_and_a_repeated_id(tmp_path: Path) -> None:
    lines = _session_lines()
    g3 = json.loads(lines[6])
    assert g3["id"] == "g3"
    g3["toolCalls"][0].pop("name")
    g3["toolCalls"][1]["id"] = "read_file_1772442010000_0"
    lines[6] = json.dumps(g3)
    path = write(tmp_path / "s.jsonl", lines)
    t = read_one(path)
    assert t.n_steps == 8
    assert said(t) == [
        (7, "bad-record", "toolCalls[0]: a tool call without a name (missing field name); skipped"),
        (7, "duplicate-id", "tool call id 'read_file_1772442010000_0' seen twice; both calls kept"),
    ]
    refused_under_strict(path, 7)


def test_a_record_of_an_unknown_type_before_the_header_does_not_hide_the_file(tmp_path: Path) -> None:
    for source in (SESSION, STREAM):
        lines = [x for x in lines_of(source) if x]
        lines.insert(0, json.dumps({"type": "telemetry", "version": 2}))  # a newer version's first record
        path = write(tmp_path / source.name, lines)
        assert detect(path) == "gemini-cli", source.name
        t = read_one(path)
        assert t.n_steps == read_one(source).n_steps
        assert [(w.line, w.kind) for w in t.warnings] == [(1, "unknown-record")]


def test_stream_result_before_its_call_is_paired_by_id(tmp_path: Path) -> None:
    lines = [x for x in lines_of(STREAM) if x]
    lines[4], lines[5] = lines[5], lines[4]  # the shell result before its tool_use
    lines.insert(0, "Loaded cached credentials.")
    lines.append(json.dumps({"type": "tool_result", "tool_id": "nobody", "status": "success", "output": "x"}))
    path = write(tmp_path / "s.jsonl", lines)
    t = read_one(path)
    assert [s.answered for s in t.steps] == [True, True, True]
    assert unframed(t.steps[1]) == "1.4.2"
    assert said(t) == [
        (1, "not-json", "not JSON ('Loaded cached credentials.'); skipped"),
        (6, "orphan-result", "result for call id 'run_shell_command-1768903203000-0' came before its call (line 7); paired by id"),
        (13, "orphan-result", "result for call id 'nobody' matches no tool call in the file; kept as an 'other' event"),
    ]  # fmt: skip
    assert t.warnings[1].field == "tool_id"
    assert detect(path) == "gemini-cli"  # a banner line before the stream does not hide it
    refused_under_strict(path, 1)


def test_nothing_recognisable_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="not a Gemini CLI log"):
        gemini_cli.read(write(tmp_path / "y.jsonl", ["{}", "[]"]), ReadOptions())
    header = json.dumps({"sessionId": "s", "projectHash": "h"})
    path = write(tmp_path / "x.jsonl", [header, '{"id": "u1", "type": "user", "content": "hi"'])
    t = read_one(path)  # the header and a cut message: a session with nothing in it yet
    assert t.steps == [] and said(t)[0] == (
        2, "truncated", "last line is not complete JSON (log cut off?); skipped"
    )  # fmt: skip
    assert [w.kind for w in t.warnings] == ["truncated", "no-steps"]


# ---------------------------------------------------------------------------------------------------------
# Detection


def test_detection_claims_these_files_only() -> None:
    for path in (SESSION, LEGACY, STREAM):
        assert detect(path) == "gemini-cli"
        assert [n for n in FORMATS if get_reader(n).sniff(path)] == ["gemini-cli"]
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.parent != HERE:
            assert not gemini_cli.sniff(path), path


def test_sniff_claims_none_of_the_other_wild_formats(real: Path) -> None:
    for path in sorted((real / "wild").rglob("*")):
        if path.is_file() and path.parent.name != "gemini-cli":
            assert not gemini_cli.sniff(path), path


# ---------------------------------------------------------------------------------------------------------
# The real session


def raw_answered_calls(path: Path) -> tuple[int, int]:
    """Tool calls and those with a result, counted from the raw lines as Gemini CLI loads them: the last
    version of each message id, in the place it first took, minus what a ``$rewindTo`` removed."""
    messages: dict[str, dict] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(raw) if raw.strip() else None
        if not isinstance(rec, dict):
            continue
        if "$rewindTo" in rec:
            keys = list(messages)
            for key in keys[keys.index(rec["$rewindTo"]) :] if rec["$rewindTo"] in messages else keys:
                del messages[key]
        elif isinstance(rec.get("id"), str):
            messages[rec["id"]] = rec
    calls = [tc for m in messages.values() for tc in m.get("toolCalls") or []]
    return len(calls), sum(1 for tc in calls if tc.get("result") is not None)


def test_real_session(real: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = wild_folder(real, "gemini-cli") / "axe__session.jsonl"
    assert detect(path) == "gemini-cli"
    t = read_one(path)
    calls, answered = raw_answered_calls(path)
    assert len(t.steps) == calls == 106
    assert t.n_steps == answered == 106
    assert "warnings" not in t.meta
    assert t.id == "gemini-cli:808bbe03-132f-4378-a7ad-2375f4375231"
    assert t.model == "gemini-3-flash-preview"
    assert sum(1 for s in t.steps if s.is_error) == 9  # 5 errors, 4 cancelled
    assert sum(1 for s in t.steps if s.tool == "run_shell_command" and s.exit_code == 0) == 7
    assert all(s.action is not None for s in t.steps)
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t
    assert main(["replay", str(path)]) == 0
    assert "gemini-cli:808bbe03" in capsys.readouterr().out


def test_a_subagent_recording_names_its_parent(tmp_path: Path) -> None:
    parent = "808bbe03-0000-4000-8000-000000000001"
    folder = tmp_path / "chats" / parent
    folder.mkdir(parents=True)
    header = {
        "sessionId": "sub-1",
        "projectHash": "h",
        "startTime": "2026-05-06T16:00:00Z",
        "kind": "subagent",
    }
    message = {
        "id": "m1",
        "timestamp": "2026-05-06T16:00:01Z",
        "type": "user",
        "content": [{"text": "rename x"}],
    }
    path = write(folder / "sub-1.jsonl", [json.dumps(header), json.dumps(message)])
    t = read_one(path)
    assert (t.id, t.parent_id, t.meta["kind"]) == ("gemini-cli:sub-1", f"gemini-cli:{parent}", "subagent")
