"""The Cline / Roo Code reader: a hand-made XML-era Cline task and a native-tool Roo Code task, the real Cline
3.51 task in ``../shared/real/wild/cline``, damaged records, detection."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, wild_folder

from rtlab.cli import main
from rtlab.environment import capture_step
from rtlab.errors import ReaderError
from rtlab.ingest import FORMATS, detect
from rtlab.ingest.readers import cline, get_reader
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import Step, Trajectory, trajectory_from_dict, trajectory_to_dict

HERE = FIXTURES / "cline"
XML_TASK = HERE / "1733010000000"
ROO_TASK = HERE / "roo-task-7c1e9a42"


def read_one(path: Path) -> Trajectory:
    [t] = cline.read(path, ReadOptions())
    return t


def said(t: Trajectory, history: Path) -> list[tuple[int | None, str, str]]:
    """The reading warnings as (position, kind, reason); each names the history file."""
    assert all(w.path == str(history) for w in t.warnings)
    return [(w.line, w.kind, w.reason) for w in t.warnings]


def refused_under_strict(task: Path, history: Path, line: int) -> None:
    """``--strict`` turns the first warning into an error naming the history file and the position."""
    with pytest.raises(ReaderError, match=re.escape(f"{history}:{line}")):
        cline.read(task, ReadOptions(strict=True))


def unframed(step: Step) -> str:
    shown, pos, out = step.shown or "", 0, []
    for f in step.frames:
        out.append(shown[pos : f.start])
        pos = f.end
    return "".join(out) + shown[pos:]


def copy_task(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def test_xml_task_steps_exactly() -> None:
    t = read_one(XML_TASK)
    assert [
        (
            s.tool,
            s.command,
            s.action.kind,
            s.action.path or s.action.base or s.action.pattern,
            s.answered,
            s.is_error,
        )
        for s in t.steps
        if s.action
    ] == [  # fmt: skip
        ("read_file", "read src/report.py", "read", "src/report.py", True, False),
        ("execute_command", "head -3 data/q3.csv", "shell", None, True, False),
        ("list_files", 'list_files {"path":"data","recursive":"false"}', "list", "data", True, False),
        ("read_file", "read README.md", "read", "README.md", True, True),
        (
            "search_files",
            'search_files {"path":"src","regex":"rows\\\\[1:\\\\]","file_pattern":"*.py"}',
            "read",
            "src/report.py",
            True,
            False,
        ),  # fmt: skip
        ("replace_in_file", t.steps[5].command, "edit", "src/report.py", True, False),
        ("write_to_file", "write CHANGES.md", "write", "CHANGES.md", True, False),
        ("execute_command", "rm -rf data/archive", "shell", None, True, True),
        ("attempt_completion", t.steps[8].command, "other", None, False, False),
    ]
    read, shell, listing, not_run, search = t.steps[:5]
    assert (
        read.shown == "import csv\n\n\ndef total(rows):\n    return sum(int(r['amount']) for r in rows[1:])\n"
    )
    assert unframed(shell) == "region,amount\nnorth,120\nsouth,80"
    assert unframed(listing) == "q3.csv\narchive/"
    assert not_run.shown.startswith("Tool [read_file] was not executed") and unframed(not_run) == ""
    assert unframed(search) == "def total(rows):\n    return sum(int(r['amount']) for r in rows[1:])\n"
    assert t.steps[5].args["diff"].startswith("------- SEARCH\n    return sum(")
    assert [(r.path, r.excerpt) for r in capture_step(read).reads] == [("src/report.py", read.shown)]
    assert {r.path for r in capture_step(search).reads} == {"src/report.py"}
    assert capture_step(t.steps[7]).reads == ()


def test_xml_task_facts() -> None:
    t = read_one(XML_TASK)
    assert t.id == "cline:1733010000000" and t.format == "cline"
    assert (t.harness, t.harness_version, t.model) == ("cline", "3.0.4", "claude-3-5-sonnet-20241022")
    assert t.instruction == "The Q3 report prints the wrong total. Find out why and fix src/report.py."
    assert (
        t.deliverable.final_message
        == "The total skipped the first data row (rows[1:]); it now sums every row."
    )
    assert [(f.path, f.content) for f in t.deliverable.files] == [
        ("CHANGES.md", "- report: the first data row is counted again")
    ]
    assert t.usage.input_tokens == 1500 + 200 + 1500 and t.usage.output_tokens == 140
    assert t.usage.cost_usd == pytest.approx(0.0128)
    assert t.started_at == "2024-11-30T23:40:00.100000Z" and t.ended_at == "2024-11-30T23:40:42Z"
    assert "warnings" not in t.meta
    said = [e.text for e in t.events if e.kind == "message" and e.role == "assistant"]
    assert said[0] == "<thinking>\nI should look at the report script first.\n</thinking>"
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t


def test_roo_task_native_calls() -> None:
    t = read_one(ROO_TASK)
    assert [(s.tool, s.call_id, s.action.kind, s.action.path, s.answered, s.is_error) for s in t.steps] == [
        ("read_file", "toolu_01A", "read", "config.yaml", True, False),
        ("execute_command", "toolu_01B", "shell", None, True, False),
        ("read_file", "toolu_01C", "read", "missing.yaml", True, True),
        ("attempt_completion", "toolu_01D", "other", None, False, False),
    ]
    assert unframed(t.steps[0]) == "server:\n  host: 0.0.0.0\n  port: 8080\n"
    assert unframed(t.steps[1]) == "12:PORT = int(os.environ.get('PORT', 8080))"
    assert unframed(t.steps[2]) == "" and capture_step(t.steps[2]).reads == ()
    assert t.steps[0].started_at == "2025-02-19T21:20:01Z"
    assert t.harness is None and t.deliverable.final_message.startswith("It listens on port 8080")


# ---------------------------------------------------------------------------------------------------------
# Damaged records


def test_damaged_messages_are_skipped_by_position(tmp_path: Path) -> None:
    task = copy_task(XML_TASK, tmp_path)
    history = task / cline.HISTORY
    doc = json.loads(history.read_text(encoding="utf-8"))
    doc[3]["content"] = 42  # a mistyped field: the command call is lost
    doc.insert(5, "a stray string")
    doc.insert(6, {"role": "system", "content": "?"})
    history.write_text(json.dumps(doc), encoding="utf-8")
    t = read_one(task)
    assert t.n_steps == 7
    assert said(t, history) == [
        (4, "bad-record", "content: expected a list of blocks, got int; skipped"),
        (5, "orphan-result", "a result for 'execute_command' answers no open call of that tool; kept as a message"),
        (6, "bad-record", "expected an object, got str; message skipped"),
        (7, "unknown-record", "unknown role 'system'; skipped"),
    ]  # fmt: skip
    refused_under_strict(task, history, 4)


def test_a_tool_result_before_its_call_is_paired_by_id(tmp_path: Path) -> None:
    task = copy_task(ROO_TASK, tmp_path)
    history = task / cline.HISTORY
    doc = json.loads(history.read_text(encoding="utf-8"))
    doc[3], doc[4] = doc[4], doc[3]
    doc.append(
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nobody", "content": "x"}]}
    )
    history.write_text(json.dumps(doc), encoding="utf-8")
    t = read_one(task)
    assert [s.answered for s in t.steps] == [True, True, True, False]
    assert unframed(t.steps[1]) == "12:PORT = int(os.environ.get('PORT', 8080))"
    assert said(t, history) == [
        (4, "orphan-result", "result for call id 'toolu_01B' came before its call (line 5); paired by id"),
        (4, "orphan-result", "result for call id 'toolu_01C' came before its call (line 5); paired by id"),
        (7, "orphan-result", "result for call id 'nobody' matches no tool call in the file; kept as an 'other' event"),
    ]  # fmt: skip
    assert [w.field for w in t.warnings] == ["tool_use_id"] * 3
    refused_under_strict(task, history, 4)


def test_a_history_that_is_not_json_is_refused_and_a_cut_one_is_read(tmp_path: Path) -> None:
    task = copy_task(XML_TASK, tmp_path)
    history = task / cline.HISTORY
    history.write_text("Error: ENOSPC: no space left on device\n", "utf-8")
    assert detect(task) is None
    with pytest.raises(ReaderError, match="invalid JSON"):
        read_one(task)
    history.write_text('{"role": "user"}', "utf-8")
    with pytest.raises(ReaderError, match="not a Cline conversation history"):
        read_one(task)
    doc = json.loads((XML_TASK / cline.HISTORY).read_text(encoding="utf-8"))
    text = json.dumps(doc, indent=1)
    history.write_text(text[: text.rindex('"role"')], "utf-8")  # cut inside the last message
    t = read_one(task)
    assert t.n_steps == read_one(XML_TASK).n_steps
    assert [(w.kind, w.path) for w in t.warnings] == [("truncated", str(history))]
    with pytest.raises(ReaderError, match="--strict"):
        cline.read(task, ReadOptions(strict=True))


def test_xml_calls_parse_like_cline() -> None:
    text = "Let me write it.\n<write_to_file>\n<path>a.md</path>\n<content>\nx </content> y\n</content>\n</write_to_file>"
    [call] = cline.xml_calls(text)
    assert (call.name, call.params) == ("write_to_file", {"path": "a.md", "content": "x </content> y"})
    assert text[: call.start] == "Let me write it.\n" and call.end == len(text)
    [cut] = cline.xml_calls("<read_file>\n<path>src/a.py")  # a response cut off mid-call
    assert cut.params == {"path": "src/a.py"}


# ---------------------------------------------------------------------------------------------------------
# Detection


def test_detection() -> None:
    for task in (XML_TASK, ROO_TASK):
        assert [n for n in FORMATS if get_reader(n).sniff(task)] == ["cline"]
        assert detect(task / cline.HISTORY) == "cline"
    for path in sorted(FIXTURES.rglob("*")):
        if HERE not in path.parents and path != HERE:
            assert not cline.sniff(path), path


def test_sniff_claims_none_of_the_other_wild_formats(real: Path) -> None:
    for path in sorted((real / "wild").rglob("*")):
        if "cline" not in path.parts:
            assert not cline.sniff(path), path


# ---------------------------------------------------------------------------------------------------------
# The real task


_HEADER = re.compile(r"\[([a-z_]+)(?: for .*?)?\] Result:", re.S)


def raw_counts(history: Path) -> tuple[int, int]:
    """Tool calls, and those a later user message answers with a ``[name ...] Result:`` text, from the raw list:
    the answered ones are counted as the headers naming a call's tool in the message right after its own."""
    doc = json.loads(history.read_text(encoding="utf-8"))
    calls = answered = 0
    for i, msg in enumerate(doc):
        if msg["role"] != "assistant":
            continue
        names = [b["name"] for b in msg["content"] if b.get("type") == "tool_use"]
        calls += len(names)
        nxt = doc[i + 1]["content"] if i + 1 < len(doc) else []
        heads = [m.group(1) for b in nxt if b.get("type") == "text" and (m := _HEADER.match(b["text"]))]
        answered += sum(1 for name in names if name in heads)
    return calls, answered


def test_real_task(real: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = wild_folder(real, "cline") / "online-card-architecture__task-1769053680585"
    assert detect(task) == "cline"
    t = read_one(task)
    calls, answered = raw_counts(task / cline.HISTORY)
    assert len(t.steps) == calls == 47
    assert t.n_steps == answered == 46
    assert "warnings" not in t.meta
    assert (t.harness, t.harness_version, t.model) == ("cline", "3.51.0", "claude-sonnet-4-5-20250929")
    assert [s.tool for s in t.steps if not s.answered] == ["attempt_completion"]
    assert sum(1 for s in t.steps if s.action.kind == "write") == 26
    assert t.usage is not None and t.usage.cost_usd is not None
    assert t.started_at == "2026-01-22T03:48:00.628000Z"
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t
    assert main(["replay", str(task)]) == 0
    assert "cline:online-card-architecture__task-1769053680585" in capsys.readouterr().out
