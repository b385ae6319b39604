"""The DCI-Agent-Lite run-folder reader, against a run folder written in the runner's own formats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import warnings_of

from rtlab.errors import ReaderError
from rtlab.ingest.readers import dci, pi
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import Trajectory, trajectory_from_dict, trajectory_to_dict

RUN = "20260210-141503"


@pytest.fixture
def run(fixtures: Path, tmp_path: Path) -> Path:
    """A private copy of the fixture run folder, safe to damage."""
    return Path(shutil.copytree(fixtures / "dci" / RUN, tmp_path / RUN))


def read_one(path: Path, **options: Any) -> Trajectory:
    [t] = dci.read(path, ReadOptions(**options))
    return t


def conversation(run: Path) -> dict:
    return json.loads((run / "conversation_full.json").read_text(encoding="utf-8"))


def events(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def test_sniff(fixtures: Path, tmp_path: Path, run: Path) -> None:
    folder = fixtures / "dci" / RUN
    assert dci.sniff(folder)
    assert dci.sniff(folder / "conversation_full.json")
    assert not dci.sniff(folder / "events.jsonl")  # the folder is the unit
    assert not dci.sniff(folder / "final.txt")
    assert not dci.sniff(fixtures / "pi" / "session-v2-tree.jsonl")
    assert not pi.sniff(folder / "events.jsonl")
    assert not dci.sniff(tmp_path / "nothing-here")
    (run / "conversation_full.json").unlink()
    assert dci.sniff(run)  # events.jsonl beside question.txt/state.json still is a DCI run
    other = tmp_path / "other"
    other.mkdir()
    (other / "events.jsonl").write_text('{"type":"thread.started","thread_id":"t"}\n')
    (other / "state.json").write_text("{}")
    assert not dci.sniff(other)


def test_steps_match_the_conversation(run: Path) -> None:
    t = read_one(run)
    messages = conversation(run)["messages"]
    calls = [b for m in messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "toolCall"]
    results = {m["toolCallId"]: m for m in messages if m["role"] == "toolResult"}
    assert [s.call_id for s in t.steps] == [c["id"] for c in calls]
    assert t.n_steps == len(results) == 4
    for step in t.steps:
        assert step.output == "\n".join(b["text"] for b in results[step.call_id]["content"])
        assert step.started_at == results[step.call_id]["tool_execution"]["started_at"]
        assert step.ended_at == results[step.call_id]["tool_execution"]["finished_at"]
    assert [s.command for s in t.steps] == [
        'rg -l "Bonang Matheba" .',
        "read doc_81234.txt",
        'rg -n "radio listeners" doc_81234.txt',
        "read doc_81234.txt 30 6",
    ]
    assert [s.line for s in t.steps] == [2, 4, 4, 7]  # 1-based positions in conversation_full.json's messages
    assert all(s.cwd == "/data/dci/corpus/bc_plus_docs" for s in t.steps)


def test_shown_is_the_first_snapshot_holding_the_result(run: Path) -> None:
    t = read_one(run)
    first: dict[str, str] = {}
    for event in events(run):
        if event["type"] == "provider_request_context":
            for m in event["messages"]:
                if m["role"] == "toolResult":
                    first.setdefault(m["toolCallId"], "\n".join(b["text"] for b in m["content"]))
    assert {s.call_id: s.shown for s in t.steps} == first
    read_step = t.steps[1]
    assert read_step.output is not None and read_step.shown is not None
    assert len(read_step.output) == 2457 and len(read_step.shown) == 600  # level cap in the request
    assert read_step.output.startswith(read_step.shown)
    assert [s.clipped for s in t.steps] == [False, True, False, False]
    # rg's result was cleared from the 4th request, after the model had reacted to it: shown stays full.
    assert t.steps[0].shown == t.steps[0].output
    assert t.meta["dci"] == {
        "n_snapshots": 4,
        "n_shown_from_snapshot": 4,
        "n_shown_from_conversation": 0,
        "n_results_changed_later": 1,
    }
    assert t.meta["n_window_notices"] == 1  # read with offset/limit: the model's own window


def test_run_facts(run: Path) -> None:
    t = read_one(run)
    question = (run / "question.txt").read_text(encoding="utf-8")
    assert t.id == f"dci:{RUN}"
    assert t.instruction == question.strip()
    assert t.instruction.endswith("one supporting file path.")
    assert t.deliverable.final_message == "Adaku\n\nSupporting file: doc_81234.txt"
    # final.txt concatenates every text delta of the run, so it differs from the last message.
    assert t.meta["final_txt"] == (run / "final.txt").read_text(encoding="utf-8")
    assert t.meta["final_txt"].startswith("I'll search the corpus for the interview first.Adaku")
    assert (t.model, t.meta["provider"], t.harness, t.method, t.variant) == (
        "gpt-5.4-nano",
        "openai",
        "dci-agent-lite",
        "DCI",
        "level3",
    )
    assert t.started_at == conversation(run)["started_at"]
    assert t.ended_at == conversation(run)["finished_at"]
    assert t.meta["status"] == "completed"
    assert t.meta["latest_model_context"]["request_count"] == 4
    usages = [m["usage"] for m in conversation(run)["messages"] if m["role"] == "assistant"]
    assert t.usage is not None
    assert t.usage.output_tokens == sum(u["output"] for u in usages) == 278
    assert t.usage.input_tokens == sum(u["input"] + u["cacheRead"] + u["cacheWrite"] for u in usages) == 13808
    assert t.usage.cost_usd == pytest.approx(sum(u["cost"]["total"] for u in usages))
    kinds = [(e.kind, e.role) for e in t.events]
    assert kinds == [("message", "user"), ("message", "assistant"), ("message", "assistant")]
    assert [x.seq for x in t.timeline()] == list(range(7))


def test_round_trip(run: Path) -> None:
    t = read_one(run)
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t


def test_conversation_file_given_directly(run: Path) -> None:
    folder, file = read_one(run), read_one(run / "conversation_full.json")
    assert file.source_path.endswith("conversation_full.json")
    assert (file.steps, file.events, file.meta) == (folder.steps, folder.events, folder.meta)


def test_events_only_run(run: Path) -> None:
    full = read_one(run)
    (run / "conversation_full.json").unlink()
    t = read_one(run)
    assert [(s.call_id, s.output, s.shown, s.clipped) for s in t.steps] == [
        (s.call_id, s.output, s.shown, s.clipped) for s in full.steps
    ]
    message_end_lines = [i for i, e in enumerate(events(run), 1) if e["type"] == "message_end"]
    assert t.steps[0].line in message_end_lines
    assert t.steps[0].started_at == "2026-02-10T14:15:05.400Z"  # no runner annotation: the message's own time
    assert t.started_at == json.loads((run / "state.json").read_text())["started_at"]


def test_conversation_only_run_falls_back_to_logged_text(run: Path) -> None:
    (run / "events.jsonl").unlink()
    t = read_one(run)
    assert all(s.shown == s.output for s in t.steps)
    assert t.meta["dci"]["n_shown_from_conversation"] == 4
    assert [s.clipped for s in t.steps] == [False, False, False, False]


def test_clip_option_overrides_snapshots(run: Path) -> None:
    t = read_one(run, clip="none")
    assert all(s.shown == s.output for s in t.steps)
    assert t.clip_policy == "none"


def test_unanswered_call(run: Path) -> None:
    data = conversation(run)
    data["messages"] = data["messages"][:7]  # through the assistant message that calls read with offset/limit
    data["status"], data["error"] = "failed", "RPC process exited unexpectedly."
    (run / "conversation_full.json").write_text(json.dumps(data))
    (run / "events.jsonl").unlink()
    t = read_one(run)
    assert (len(t.steps), t.n_steps) == (4, 3)
    assert (t.steps[-1].output, t.steps[-1].shown) == (None, None)
    assert t.events[-1].kind == "error" and t.events[-1].text == "RPC process exited unexpectedly."


# ---------------------------------------------------------------------------------------------------------
# Error paths, one or more per file


def test_conversation_invalid_json(run: Path) -> None:
    path = run / "conversation_full.json"
    path.write_text('{\n  "messages": [\n    {"role": "user",,}\n  ]\n}')
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert (err.value.path, err.value.line) == (str(path), 3)


def test_conversation_missing_fields(run: Path) -> None:
    path = run / "conversation_full.json"
    original = conversation(run)
    data = json.loads(json.dumps(original))
    del data["messages"]
    path.write_text(json.dumps(data))
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert err.value.field == "messages"

    data = json.loads(json.dumps(original))
    del data["messages"][1]["content"][1]["id"]
    path.write_text(json.dumps(data))
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert (err.value.line, err.value.field) == (2, "messages[1].content[1].id")

    data = json.loads(json.dumps(original))
    del data["messages"][2]["role"]
    path.write_text(json.dumps(data))
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert (err.value.line, err.value.field) == (3, "messages[2].role")

    path.write_text("[]")
    with pytest.raises(ReaderError, match="JSON object"):
        read_one(run, strict=True)
    path.write_text("  \n")
    with pytest.raises(ReaderError, match="empty"):
        read_one(run, strict=True)


def test_events_invalid_line(run: Path) -> None:
    path = run / "events.jsonl"
    lines = path.read_text().splitlines()
    lines[4] = "{broken"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert (err.value.path, err.value.line) == (str(path), 5)


def test_events_missing_fields(run: Path) -> None:
    path = run / "events.jsonl"
    original = events(run)
    no_type = [dict(original[0]), *original[1:]]
    del no_type[0]["type"]
    path.write_text("".join(json.dumps(e) + "\n" for e in no_type))
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert (err.value.line, err.value.field) == (1, "type")

    index = next(i for i, e in enumerate(original) if e["type"] == "provider_request_context")
    broken = [dict(e) for e in original]
    del broken[index]["messages"]
    path.write_text("".join(json.dumps(e) + "\n" for e in broken))
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert (err.value.line, err.value.field) == (index + 1, "messages")

    path.write_text("")
    with pytest.raises(ReaderError, match="empty"):
        read_one(run, strict=True)


def test_events_truncated_last_line_is_a_warning(run: Path) -> None:
    path = run / "events.jsonl"
    with path.open("a") as fh:
        fh.write('{"type": "message_upd')
    t = read_one(run)
    assert t.n_steps == 4
    assert any("last line is not complete JSON" in w for w in warnings_of(t))


@pytest.mark.parametrize("name", ["question.txt", "final.txt", "conversation_full.json", "events.jsonl"])
def test_non_utf8(run: Path, name: str) -> None:
    path = run / name
    path.write_bytes(path.read_bytes()[:40] + b"\xff\xfe" + path.read_bytes()[40:])
    with pytest.raises(ReaderError, match="UTF-8") as err:
        read_one(run, strict=True)
    assert err.value.path == str(path)


def test_state_and_latest_context_malformed(run: Path) -> None:
    (run / "state.json").write_text('{"status": "completed",}')
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert err.value.path == str(run / "state.json")
    (run / "state.json").write_text("{}")
    (run / "latest_model_context.json").write_text('"just a string"')
    with pytest.raises(ReaderError, match="JSON object") as err:
        read_one(run, strict=True)
    assert err.value.path == str(run / "latest_model_context.json")


def test_folder_without_transcript(run: Path) -> None:
    (run / "conversation_full.json").unlink()
    (run / "events.jsonl").unlink()
    with pytest.raises(ReaderError, match="neither"):
        read_one(run, strict=True)


def test_snapshot_tool_result_without_call_id(run: Path) -> None:
    path = run / "events.jsonl"
    broken = events(run)
    index = next(
        i
        for i, e in enumerate(broken)
        if e["type"] == "provider_request_context" and any(m["role"] == "toolResult" for m in e["messages"])
    )
    position = next(j for j, m in enumerate(broken[index]["messages"]) if m["role"] == "toolResult")
    del broken[index]["messages"][position]["toolCallId"]
    path.write_text("".join(json.dumps(e) + "\n" for e in broken))
    with pytest.raises(ReaderError) as err:
        read_one(run, strict=True)
    assert (err.value.line, err.value.field) == (index + 1, f"messages[{position}].toolCallId")


def test_system_prompt_message_and_unknown_role(run: Path) -> None:
    data = conversation(run)
    system = {"role": "system", "content": [{"type": "text", "text": "You are an expert."}], "sources": {}}
    data["messages"] = [system, *data["messages"], {"role": "mystery", "timestamp": 1770732999000}]
    (run / "conversation_full.json").write_text(json.dumps(data))
    t = read_one(run)
    assert (t.events[0].kind, t.events[0].role, t.events[0].text) == (
        "system",
        "system",
        "You are an expert.",
    )
    assert t.events[-1].kind == "other" and t.events[-1].data == {"role": "mystery"}
    assert any("unknown message role 'mystery'" in w for w in warnings_of(t))
    assert t.n_steps == 4 and t.steps[0].line == 3
