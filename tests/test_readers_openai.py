"""Readers for OpenAI message logs: Chat Completions messages (openai-chat) and Responses API items."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from conftest import warnings_of

from rtlab.errors import ReaderError
from rtlab.ingest.readers import _openai_common, openai_chat, openai_responses
from rtlab.ingest.readers._base import ReadOptions
from rtlab.ingest.readers._openai_common import step_command
from rtlab.records import Trajectory, trajectory_from_dict, trajectory_to_dict


@pytest.fixture(scope="module")
def oa(fixtures: Path) -> Path:
    return fixtures / "openai"


def chat(path: Path, strict: bool = False) -> list[Trajectory]:
    return openai_chat.read(path, ReadOptions(strict=strict))


def resp(path: Path, strict: bool = False) -> list[Trajectory]:
    return openai_responses.read(path, ReadOptions(strict=strict))


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def raw_text(content: Any) -> str:
    """Independent of the reader: the text of a string or a list of text parts."""
    return content if isinstance(content, str) else "\n".join(p["text"] for p in content)


def call(cid: str, name: str, args: str = "{}") -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


USER = {"role": "user", "content": "go"}


# ---------------------------------------------------------------------------------------------------------
# openai-chat: the exploring agent (JSON object with "messages")


def test_chat_explore_steps_exact(oa: Path) -> None:
    (t,) = chat(oa / "chat_explore.json")
    got = [(s.index, s.tool, s.command, s.call_id, s.line, s.answered) for s in t.steps]
    assert got == [
        (0, "bash", "ls -la service", "call_Xk1lsA", 3, True),
        (1, "bash", "cat service/config.yaml", "call_Qw2cat", 5, True),
        (2, "read_file", "read service/client.py 1 40", "call_Ru3rd", 5, True),
        (3, "bash", "grep -rn retries service", "call_Zt4grp", 5, True),
        (
            4,
            "read_file",
            'read_file {"path": "service/tests/test_client.py", "limit": 20',
            "call_Pm5bad",
            9,
            True,
        ),
        (5, "write_file", "write REPORT.md", "call_Wr6rep", 11, True),
        (6, "bash", "wc -l service/client.py", "call_Vc7wc", 14, False),
    ]
    assert t.n_steps == 6 and len(t.steps) == 7


def test_chat_parallel_results_linked_by_id(oa: Path) -> None:
    raw = json.loads((oa / "chat_explore.json").read_text())
    results = {m["tool_call_id"]: raw_text(m["content"]) for m in raw["messages"] if m["role"] == "tool"}
    n_calls = sum(len(m.get("tool_calls") or []) for m in raw["messages"])
    (t,) = chat(oa / "chat_explore.json")
    assert len(t.steps) == n_calls and t.n_steps == len(results)
    for s in t.steps:
        assert s.output == results.get(s.call_id)
    # The three parallel calls were answered grep, read, cat: outputs still follow their ids.
    assert t.steps[1].output.startswith("service:\n  name: billing")
    assert t.steps[2].output.startswith("     1\timport yaml")
    assert t.steps[3].output.startswith("service/config.yaml:4:retries:")


def test_chat_invalid_arguments_kept_raw(oa: Path) -> None:
    (t,) = chat(oa / "chat_explore.json")
    bad = t.steps[4]
    raw = '{"path": "service/tests/test_client.py", "limit": 20'
    assert bad.args == {"_raw": raw}
    assert bad.args_error is not None and bad.args_error.startswith("arguments are not valid JSON")
    assert bad.output == "Error: arguments are not valid JSON: Expecting ',' delimiter"


def test_chat_unanswered_call_kept(oa: Path) -> None:
    (t,) = chat(oa / "chat_explore.json")
    last = t.steps[-1]
    assert last.output is None and last.shown is None and not last.answered
    assert last.args == {"cmd": "wc -l service/client.py"}


def test_chat_trajectory_fields(oa: Path) -> None:
    (t,) = chat(oa / "chat_explore.json")
    assert t.id == "openai-chat:openai/chat_explore"
    assert t.format == "openai-chat" and t.source_path == str(oa / "chat_explore.json")
    assert t.model == "gpt-4.1-2025-04-14"
    assert t.instruction == (
        "Where is the retry limit of the billing service configured? The screenshot shows the failing run."
        "\n[image_url]"
    )
    assert t.deliverable.final_message.startswith("The retry limit is 5: `retries.max_attempts`")
    assert t.usage is not None
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.cached_input_tokens) == (5821, 412, 3072)
    assert (t.usage.reasoning_tokens, t.usage.total_tokens) == (0, 6233)
    assert t.clip_policy == "none"
    assert all(s.shown == s.output and not s.clipped for s in t.steps)
    assert t.meta["tools"] == ["bash", "read_file", "write_file"]
    assert [(e.kind, e.role, e.line) for e in t.events] == [
        ("system", "system", 1),
        ("message", "user", 2),
        ("message", "assistant", 3),
        ("message", "assistant", 13),
    ]
    # One seq counter over steps and events, in log order.
    assert sorted(x.seq for x in t.timeline()) == list(range(len(t.steps) + len(t.events)))
    assert [x.seq for x in t.timeline()] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert t.timeline()[9].text == t.deliverable.final_message


def test_chat_write_tool_deliverable(oa: Path) -> None:
    raw = json.loads((oa / "chat_explore.json").read_text())
    content = json.loads(raw["messages"][10]["tool_calls"][0]["function"]["arguments"])["content"]
    (t,) = chat(oa / "chat_explore.json")
    (f,) = t.deliverable.files
    assert (f.path, f.origin, f.content, f.size) == ("REPORT.md", "write_tool", content, 146)
    assert f.sha256 == hashlib.sha256(content.encode()).hexdigest()


def test_chat_message_per_line_jsonl(oa: Path) -> None:
    (t,) = chat(oa / "chat_messages.jsonl")
    assert t.id == "openai-chat:openai/chat_messages"
    assert [(s.tool, s.command, s.call_id, s.line) for s in t.steps] == [
        ("execute_bash", "cd /workspace/astropy && ls", "toolu_01", 3),
        ("str_replace_editor", "read /workspace/astropy/setup.cfg 1 30", "toolu_02", 3),
        ("str_replace_editor", "write /workspace/answer.txt", "toolu_03", 6),
    ]
    assert t.steps[0].output.endswith("[The command completed with exit code 0.]")
    assert t.steps[1].output.startswith("Here's the result of running `cat -n`")
    assert [(e.kind, e.role, e.line) for e in t.events] == [
        ("system", "system", 1),
        ("message", "user", 2),
        ("message", "assistant", 3),
        ("message", "assistant", 8),
    ]
    assert t.deliverable.final_message == "setup.cfg declares `python_requires = >=3.9`."
    assert [(f.path, f.content) for f in t.deliverable.files] == [("/workspace/answer.txt", ">=3.9\n")]
    assert t.meta["layout"] == "message-per-line"


def test_chat_conversation_per_line_jsonl(oa: Path) -> None:
    lines = (oa / "chat_conversations.jsonl").read_text().splitlines()
    trajs = chat(oa / "chat_conversations.jsonl")
    assert len(trajs) == len(lines) == 2
    assert [t.id for t in trajs] == [
        "openai-chat:openai/chat_conversations:1",
        "openai-chat:openai/chat_conversations:2",
    ]
    for lineno, (t, line) in enumerate(zip(trajs, lines, strict=True), 1):
        argv = json.loads(json.loads(line)["messages"][1]["tool_calls"][0]["function"]["arguments"])[
            "command"
        ]
        assert [s.command for s in t.steps] == [shlex.join(argv)]
        assert {s.line for s in t.steps} | {e.line for e in t.events} == {lineno}
    assert trajs[0].steps[0].command == "bash -lc 'ls data/*.csv | wc -l'"
    assert trajs[1].steps[0].command == "head -n 1 data/sales.csv"
    assert [t.deliverable.final_message for t in trajs] == [
        "There are 3 CSV files in data/.",
        "The header is: date,region,amount.",
    ]


def test_chat_bare_json_list_and_list_of_conversations(tmp_path: Path) -> None:
    msgs = [USER, {"role": "assistant", "tool_calls": [call("c1", "bash", '{"command": "ls"}')]}]
    msgs.append({"role": "tool", "tool_call_id": "c1", "content": "a\n"})
    (t,) = chat(write_json(tmp_path / "m.json", msgs))
    assert (t.steps[0].line, t.steps[0].output, t.meta["layout"]) == (2, "a\n", "message-list")
    two = chat(write_json(tmp_path / "c.json", [{"messages": msgs}, {"messages": msgs, "model": "m"}]))
    assert [t.id.rsplit(":", 1)[1] for t in two] == ["1", "2"] and two[1].model == "m"


def test_chat_legacy_function_call_linked_by_name(tmp_path: Path) -> None:
    rows = [
        USER,
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "cat", "arguments": '{"path": "a.txt"}'},
        },
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "bash", "arguments": '{"command": "pwd"}'},
        },
        {"role": "function", "name": "bash", "content": "/work\n"},
        {"role": "function", "name": "cat", "content": "alpha\n"},
    ]
    (t,) = chat(write_jsonl(tmp_path / "legacy.jsonl", rows))
    assert [(s.tool, s.command, s.output, s.call_id) for s in t.steps] == [
        ("cat", "read a.txt", "alpha\n", None),
        ("bash", "pwd", "/work\n", None),
    ]
    rows.append({"role": "function", "name": "cat", "content": "again"})
    with pytest.raises(ReaderError) as err:
        chat(write_jsonl(tmp_path / "legacy2.jsonl", rows), strict=True)
    assert (err.value.line, err.value.field) == (6, "name")


def test_chat_reasoning_refusal_custom_call(tmp_path: Path) -> None:
    rows = [
        USER,
        {"role": "assistant", "reasoning_content": "Check the patch tool.", "content": "",
         "tool_calls": [{"id": "c9", "type": "custom", "custom": {"name": "apply_patch", "input": "*** Begin Patch"}}]},
        {"role": "tool", "tool_call_id": "c9", "content": [{"type": "text", "text": "ok"}, {"type": "text", "text": "done"}]},
        {"role": "assistant", "content": None, "refusal": "I can't help with that."},
    ]  # fmt: skip
    (t,) = chat(write_jsonl(tmp_path / "r.jsonl", rows))
    assert [(e.kind, e.text) for e in t.events] == [
        ("message", "go"),
        ("reasoning", "Check the patch tool."),
        ("message", "I can't help with that."),
    ]
    assert t.events[2].data == {"refusal": True}
    (s,) = t.steps
    assert (s.tool, s.args, s.command, s.output) == (
        "apply_patch", {"input": "*** Begin Patch"}, 'apply_patch {"input":"*** Begin Patch"}', "ok\ndone"
    )  # fmt: skip
    assert t.deliverable.final_message == "I can't help with that."


# --- openai-chat: bad input


def test_chat_unmatched_tool_call_id_names_line_and_field(tmp_path: Path) -> None:
    rows = [
        USER,
        {"role": "assistant", "tool_calls": [call("c1", "bash")]},
        {"role": "tool", "tool_call_id": "zz", "content": ""},
    ]
    with pytest.raises(ReaderError) as err:
        chat(write_jsonl(tmp_path / "x.jsonl", rows), strict=True)
    assert (err.value.line, err.value.field) == (3, "tool_call_id")
    assert "'zz'" in err.value.message and "matches no tool call in the file" in err.value.message
    with pytest.raises(ReaderError) as err:  # in a JSON array: the message's position
        chat(write_json(tmp_path / "x.json", rows), strict=True)
    assert (err.value.line, err.value.field) == (3, "tool_call_id")
    with pytest.raises(ReaderError) as err:  # one conversation per line: the line and the message's index
        chat(write_jsonl(tmp_path / "c.jsonl", [{"messages": rows[:2]}, {"messages": rows}]), strict=True)
    assert (err.value.line, err.value.field) == (2, "messages[2].tool_call_id")


def test_chat_result_before_call_and_second_result_raise(tmp_path: Path) -> None:
    """A result before its call pairs by id, said (issue 24); a second result stays an event; --strict refuses."""
    early = [
        USER,
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
        {"role": "assistant", "tool_calls": [call("c1", "bash")]},
    ]
    (t,) = chat(write_jsonl(tmp_path / "a.jsonl", early))
    assert t.n_steps == 1 and t.steps[0].output == "x" and not [e for e in t.events if e.role == "tool"]
    assert [(w.line, w.field, w.kind) for w in t.warnings] == [(2, "tool_call_id", "orphan-result")]
    with pytest.raises(ReaderError) as err:
        chat(write_jsonl(tmp_path / "a.jsonl", early), strict=True)
    assert (err.value.line, err.value.field) == (2, "tool_call_id")
    twice = [early[0], early[2], early[1], early[1]]
    with pytest.raises(ReaderError) as err:
        chat(write_jsonl(tmp_path / "b.jsonl", twice), strict=True)
    assert (err.value.line, err.value.field) == (4, "tool_call_id") and "already has a result" in str(
        err.value
    )


def test_chat_reused_id_links_to_the_open_call(tmp_path: Path) -> None:
    rows = [
        USER,
        {"role": "assistant", "tool_calls": [call("call_0", "bash", '{"command": "ls"}')]},
        {"role": "tool", "tool_call_id": "call_0", "content": "one"},
        {"role": "assistant", "tool_calls": [call("call_0", "bash", '{"command": "pwd"}')]},
        {"role": "tool", "tool_call_id": "call_0", "content": "two"},
    ]
    (t,) = chat(write_jsonl(tmp_path / "reuse.jsonl", rows))
    assert [(s.command, s.output) for s in t.steps] == [("ls", "one"), ("pwd", "two")]


@pytest.mark.parametrize(
    ("rows", "line", "field"),
    [
        ([USER, {"content": "no role"}], 2, "role"),
        ([USER, {"role": "critic", "content": "?"}], 2, "role"),
        ([USER, {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {}}]}], 2, "tool_calls[0].function.name"),
        ([USER, {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "x"}}]}], 2, "tool_calls[0].id"),
        ([USER, {"role": "assistant", "tool_calls": {"id": "c"}}], 2, "tool_calls"),
        ([USER, {"role": "tool", "content": "x"}], 2, "tool_call_id"),
        ([USER, {"role": "user", "content": 7}], 2, "content"),
        ([USER, ["not", "an", "object"]], 2, None),
    ],
)  # fmt: skip
def test_chat_malformed_message_names_line_and_field(
    tmp_path: Path, rows: list[Any], line: int, field: str | None
) -> None:
    with pytest.raises(ReaderError) as err:
        chat(write_jsonl(tmp_path / "bad.jsonl", rows), strict=True)
    assert (err.value.line, err.value.field) == (line, field)


def test_chat_bad_files(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n")
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "latin.jsonl").write_bytes(
        b'{"role": "user", "content": "ok"}\n{"role": "user", "content": "caf\xe9"}\n'
    )
    (tmp_path / "broken.jsonl").write_text(
        '{"role": "user", "content": "a"}\n{"role": oops}\n{"role": "user"}\n'
    )
    for name in ("empty.jsonl", "empty.json"):
        with pytest.raises(ReaderError, match="empty"):
            chat(tmp_path / name, strict=True)
    with pytest.raises(ReaderError) as err:
        chat(tmp_path / "latin.jsonl", strict=True)
    assert err.value.line == 2 and "UTF-8" in err.value.message
    with pytest.raises(ReaderError) as err:
        chat(tmp_path / "broken.jsonl", strict=True)
    assert err.value.line == 2 and "invalid JSON" in err.value.message
    with pytest.raises(ReaderError) as err:
        chat(write_json(tmp_path / "nomsg.json", {"model": "m"}), strict=True)
    assert err.value.field == "messages"


def test_chat_truncated_last_line_is_a_warning(oa: Path, tmp_path: Path) -> None:
    text = (oa / "chat_messages.jsonl").read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text + '{"role": "assistant", "content": "half')
    (t,) = chat(cut)
    assert len(t.steps) == 3 and t.meta["n_messages"] == 8
    assert len(warnings_of(t)) == 1 and ":9: last line is not complete JSON" in warnings_of(t)[0]


# ---------------------------------------------------------------------------------------------------------
# openai-responses


def test_responses_run_steps_exact(oa: Path) -> None:
    (t,) = resp(oa / "responses_run.json")
    got = [(s.index, s.tool, s.command, s.call_id, s.line, s.exit_code, s.is_error, s.cwd) for s in t.steps]
    assert got == [
        (0, "local_shell", shlex.join(["bash", "-lc", "grep -rln 'import requests' src"]), "call_sh1", 3, 0, False, "/repo"),
        (1, "read_file", "read src/sync/client.py 1 20", "call_rd2", 5, None, False, None),
        (2, "read_file", "read src/fetch.py", "call_rd3", 6, None, False, None),
        (3, "local_shell", "pip show requests", "call_sh4", 9, 1, True, "/repo"),
        (4, "web_search", 'web_search {"type":"search","query":"requests latest version pypi"}', "ws_05", 11, None, False, None),
        (5, "apply_patch", "write src/sync/client.py", "call_ap7", 13, None, False, None),
    ]  # fmt: skip
    assert t.n_steps == 6 and all(s.answered and s.shown == s.output for s in t.steps)


def test_responses_results_linked_by_call_id(oa: Path) -> None:
    raw = json.loads((oa / "responses_run.json").read_text())
    items = raw["input"] + raw["output"]
    outputs = {}
    for it in items:
        if it["type"] in ("function_call_output", "apply_patch_call_output"):
            outputs[it["call_id"]] = raw_text(it["output"])
        elif it["type"] == "local_shell_call_output":
            outputs[it["id"]] = it["output"]  # the SDK's field for the call's id on this item
    (t,) = resp(oa / "responses_run.json")
    linked = {s.call_id: s.output for s in t.steps if s.call_id in outputs}
    assert linked == outputs and len(linked) == 5
    assert t.steps[1].output.startswith(
        "import requests  # requires requests==2.5.0"
    )  # answered after call_rd3
    assert t.steps[4].output == '[{"type":"url","url":"https://pypi.org/project/requests/"}]'


def test_responses_run_fields_and_events(oa: Path) -> None:
    (t,) = resp(oa / "responses_run.json")
    assert t.id == "openai-responses:openai/responses_run"
    assert (t.model, t.started_at, t.ended_at) == (
        "codex-mini-latest",
        "2025-03-08T23:29:02+00:00",
        "2025-03-08T23:29:09+00:00",
    )
    assert t.usage is not None
    assert (t.usage.input_tokens, t.usage.cached_input_tokens, t.usage.output_tokens) == (4210, 3840, 356)
    assert (t.usage.reasoning_tokens, t.usage.total_tokens) == (192, 4566)
    assert (
        t.instruction
        == "Which Python files under src/ import requests? Fix the one that pins an old version."
    )
    assert t.deliverable.final_message.startswith(
        "Two files import requests: src/fetch.py and src/sync/client.py."
    )
    assert t.meta["response_id"] == "resp_67cb61fa3a448190bcf2c42d96f0d1a8"
    assert t.meta["tools"] == ["local_shell", "read_file", "web_search", "apply_patch"]
    assert [(e.kind, e.role, e.line) for e in t.events] == [
        ("system", "system", None),
        ("message", "user", 1),
        ("reasoning", "assistant", 2),
        ("message", "assistant", 12),
        ("reasoning", "assistant", 15),
        ("message", "assistant", 16),
    ]
    assert t.events[0].text.startswith("You are a coding agent working in /repo.")
    assert t.events[2].text == "**Searching imports**\n\nI'll grep src/ for imports of requests."
    assert t.events[4].data == {"encrypted": True} and t.events[4].text == ""
    assert [x.seq for x in t.timeline()] == list(range(12))
    assert [(f.path, f.content, f.origin) for f in t.deliverable.files] == [
        ("src/sync/client.py", None, "write_tool")
    ]


def test_responses_item_per_line(oa: Path) -> None:
    (t,) = resp(oa / "responses_items.jsonl")
    assert [(s.tool, s.command, s.call_id, s.line, s.answered) for s in t.steps] == [
        ("shell", "grep -rn TODO src | head -n 5\ngrep -rc TODO src | grep -v ':0'", "call_s1", 4, True),
        ("read_file", 'read_file {"path": "src/a.py", "limit": 10', "call_f2", 6, True),
        ("code_exec", 'code_exec {"input":"print(open(\'src/a.py\').read()[:40])"}', "call_c3", 7, True),
        ("bash", "git log -1 --format=%H", "call_f4", 11, False),
    ]
    shell = t.steps[0]
    assert shell.output == "src/a.py:3:# TODO: retry on 503\nsrc/a.py:1\ngrep: src/bin: Is a directory\n"
    assert (shell.exit_code, shell.is_error) == (2, True)
    assert t.steps[1].args == {"_raw": '{"path": "src/a.py", "limit": 10'} and t.steps[1].args_error
    assert t.steps[1].output == "Error: could not parse arguments"
    assert t.steps[2].output == "import os\n\n# TODO: retry on 503\n"
    assert t.n_steps == 3
    assert [(e.kind, e.role) for e in t.events] == [
        ("system", "developer"),
        ("message", "user"),
        ("reasoning", "assistant"),
        ("message", "assistant"),
    ]
    assert t.instruction == "Summarise the TODO markers in src/."


def test_responses_object_per_line(oa: Path) -> None:
    trajs = resp(oa / "responses_pairs.jsonl")
    assert [t.id for t in trajs] == [
        "openai-responses:openai/responses_pairs:1",
        "openai-responses:openai/responses_pairs:2",
    ]
    assert [(s.command, s.output, s.line) for s in trajs[0].steps] == [
        ("du -h logs/app.log", "4.0K\tlogs/app.log\n", 1)
    ]
    assert trajs[1].steps == [] and trajs[1].instruction == "Say hello."
    assert [t.deliverable.final_message for t in trajs] == ["logs/app.log is 4.0K.", "Hello!"]
    assert {t.model for t in trajs} == {"gpt-5-mini"}


def test_responses_hosted_and_other_items(tmp_path: Path) -> None:
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look"}]},
        {"type": "web_search_call", "id": "ws_1", "status": "searching", "action": {"type": "search", "query": "q"}},
        {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["retry"], "results": [{"filename": "a.md", "score": 0.9}]},
        {"type": "code_interpreter_call", "id": "ci_1", "status": "completed", "container_id": "cntr", "code": "print(1)",
         "outputs": [{"type": "logs", "logs": "1\n"}, {"type": "image", "url": "https://x/y.png"}]},
        {"type": "mcp_call", "id": "mcp_1", "name": "read_file", "server_label": "fs", "arguments": '{"path": "/etc/hosts"}',
         "output": None, "error": "permission denied", "status": "failed"},
        {"type": "computer_call", "id": "cu_1", "call_id": "call_cu", "status": "completed", "pending_safety_checks": [],
         "action": {"type": "click", "button": "left", "x": 10, "y": 20}},
        {"type": "computer_call_output", "call_id": "call_cu", "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "zzz"},
        {"type": "brand_new_item", "id": "n_1"},
    ]  # fmt: skip
    (t,) = resp(write_jsonl(tmp_path / "hosted.jsonl", items))
    got = [(s.tool, s.command, s.output, s.is_error, s.call_id) for s in t.steps]
    assert got == [
        ("web_search", 'web_search {"type":"search","query":"q"}', None, False, "ws_1"),
        ("file_search", 'file_search {"queries":["retry"]}', '[{"filename":"a.md","score":0.9}]', False, "fs_1"),
        ("code_interpreter", 'code_interpreter {"code":"print(1)"}', "1\n\n[image: https://x/y.png]", False, "ci_1"),
        ("read_file", "read /etc/hosts", "permission denied", True, "mcp_1"),
        ("computer", 'computer click {"button":"left","x":10,"y":20}', "[computer_screenshot]", False, "call_cu"),
    ]  # fmt: skip
    assert [(e.kind, e.data) for e in t.events[1:]] == [
        ("compaction", {"type": "compaction"}),
        ("other", {"type": "brand_new_item"}),
    ]
    assert warnings_of(t) == [
        f"{tmp_path / 'hosted.jsonl'}:9: unknown item type 'brand_new_item' kept as an 'other' event"
    ]


def test_responses_local_shell_output_by_call_id_too(tmp_path: Path) -> None:
    items = [
        {"type": "local_shell_call", "id": "lsh", "call_id": "c1", "status": "completed", "action": {"type": "exec", "command": ["ls"], "env": {}}},
        {"type": "local_shell_call_output", "call_id": "c1", "output": "a\nb\n"},
    ]  # fmt: skip
    (t,) = resp(write_jsonl(tmp_path / "ls.jsonl", items))
    assert [(s.command, s.output, s.exit_code) for s in t.steps] == [("ls", "a\nb\n", None)]


def test_responses_unmatched_call_id_names_line_and_field(tmp_path: Path) -> None:
    items = [
        {"role": "user", "content": "x"},
        {"type": "function_call_output", "call_id": "nope", "output": "?"},
    ]
    with pytest.raises(ReaderError) as err:
        resp(write_jsonl(tmp_path / "u.jsonl", items), strict=True)
    assert (err.value.line, err.value.field) == (2, "call_id")
    doc = {"input": items[:1], "output": [items[1]]}
    with pytest.raises(ReaderError) as err:
        resp(write_json(tmp_path / "u.json", doc), strict=True)
    assert (err.value.line, err.value.field) == (2, "output[0].call_id")
    shell = [{"type": "local_shell_call_output", "id": "ghost", "output": "{}"}]
    with pytest.raises(ReaderError) as err:
        resp(write_jsonl(tmp_path / "s.jsonl", shell), strict=True)
    assert (err.value.line, err.value.field) == (1, "id")


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({"type": "function_call", "name": "bash", "arguments": "{}"}, "call_id"),
        ({"type": "function_call", "call_id": "c", "arguments": "{}"}, "name"),
        ({"type": "function_call_output", "call_id": "c"}, "output"),
        ({"type": "local_shell_call", "call_id": "c", "action": {"command": []}}, "action.command"),
        ({"type": "message", "content": "hi"}, "role"),
        ({"type": "message", "role": "user", "content": 3}, "content"),
        ({"id": "x"}, "type"),
    ],
)
def test_responses_malformed_item_names_field(tmp_path: Path, item: dict[str, Any], field: str) -> None:
    with pytest.raises(ReaderError) as err:
        resp(write_jsonl(tmp_path / "bad.jsonl", [{"role": "user", "content": "x"}, item]), strict=True)
    assert (err.value.line, err.value.field) == (2, field)


def test_responses_bad_files(oa: Path, tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(ReaderError, match="empty"):
        resp(tmp_path / "empty.jsonl", strict=True)
    (tmp_path / "b.jsonl").write_text(
        '{"role": "user", "content": "x"}\n{"type": \n{"role": "user", "content": "y"}\n'
    )
    with pytest.raises(ReaderError) as err:
        resp(tmp_path / "b.jsonl", strict=True)
    assert err.value.line == 2
    (tmp_path / "bin.jsonl").write_bytes(b'{"role": "user", "content": "\xff"}\n')
    with pytest.raises(ReaderError, match="UTF-8"):
        resp(tmp_path / "bin.jsonl", strict=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text(
        (oa / "responses_items.jsonl").read_text() + '{"type": "function_call_output", "call_id": "call_f4"'
    )
    (t,) = resp(cut)
    assert not t.steps[-1].answered and len(warnings_of(t)) == 1


# ---------------------------------------------------------------------------------------------------------
# Shared rules, round trip, options


@pytest.mark.parametrize(
    ("tool", "args", "command"),
    [
        ("bash", {"command": "ls -la"}, "ls -la"),
        ("shell", {"command": ["bash", "-lc", "echo hi"]}, "bash -lc 'echo hi'"),
        ("exec_command", {"cmd": "pwd", "workdir": "/w"}, "pwd"),
        ("run_tests", {"command": "pytest -q"}, "pytest -q"),
        ("shell", {"commands": ["ls", "pwd"], "timeout_ms": 5}, "ls\npwd"),
        ("read", {"path": "a.py", "offset": 10, "limit": 5}, "read a.py 10 5"),
        ("read_file", {"file_path": "a.py", "limit": 5}, "read a.py 1 5"),  # a limit alone starts at line 1
        ("cat", {"path": "a.py"}, "read a.py"),
        ("view", {"path": "docs/"}, "read docs/"),
        ("str_replace_editor", {"command": "view", "path": "a.py"}, "read a.py"),
        ("str_replace_editor", {"command": "str_replace", "path": "a.py", "old_str": "x", "new_str": "y"},
         'str_replace_editor {"command":"str_replace","path":"a.py","old_str":"x","new_str":"y"}'),
        ("write_file", {"file_path": "out.txt", "content": "hi"}, "write out.txt"),
        ("create_file", {"path": "n.md"}, "write n.md"),
        ("search", {"query": "retry", "k": 3}, 'search {"query":"retry","k":3}'),
        ("bash", {"_raw": '{"command": "ls'}, 'bash {"command": "ls'),
        ("noargs", {}, "noargs"),
    ],
)  # fmt: skip
def test_step_command_rules(tool: str, args: dict[str, Any], command: str) -> None:
    assert step_command(tool, args) == command


def test_round_trip_every_fixture(oa: Path) -> None:
    n = 0
    for path in sorted(oa.iterdir()):
        reader = openai_chat if path.name.startswith("chat_") else openai_responses
        for t in reader.read(path, ReadOptions()):
            assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t
            n += 1
    assert n == 8


def test_clip_option(oa: Path) -> None:
    (t,) = openai_chat.read(oa / "chat_explore.json", ReadOptions(clip="none"))
    assert t.clip_policy == "none"
    with pytest.raises(ValueError, match="unknown clip policy"):
        openai_responses.read(oa / "responses_run.json", ReadOptions(clip="no-such-policy"))


# ---------------------------------------------------------------------------------------------------------
# Sniffing precision

FOREIGN: dict[str, tuple[str, list[Any] | dict[str, Any]]] = {
    "pi session": (".jsonl", [
        {"type": "session", "id": "d703", "timestamp": "2025-11-20T23:33:50.805Z", "cwd": "/w", "provider": "anthropic"},
        {"type": "message", "timestamp": "2025-11-20T23:33:51Z", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
        {"type": "message", "timestamp": "2025-11-20T23:33:52Z", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}]}},
    ]),
    "pi messages only": (".jsonl", [
        {"type": "message", "timestamp": "2025-11-20T23:33:51Z", "message": {"role": "user", "content": "hi"}},
    ]),
    "codex exec stream": (".jsonl", [
        {"type": "thread.started", "thread_id": "019e"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "command_execution", "command": "ls", "aggregated_output": "", "exit_code": 0, "status": "completed"}},
    ]),
    "codex rollout": (".jsonl", [
        {"timestamp": "2025-09-01T10:00:00Z", "type": "session_meta", "payload": {"id": "s1", "cwd": "/w"}},
        {"timestamp": "2025-09-01T10:00:01Z", "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}},
    ]),
    "g2b exec log": (".jsonl", [
        {"step": 1, "timestamp": "2026-06-20T16:23:14Z", "event": "phase", "agent": "system", "content": {"phase": "EXECUTE"}},
        {"step": 2, "timestamp": "2026-06-20T16:23:15Z", "event": "message", "agent": "SkillAgent", "content": {"role": "assistant", "text": "hi"}},
    ]),
    "openhands events": (".json", [
        {"id": 0, "timestamp": "2024-12-07T06:19:34", "source": "user", "message": "Complete the task", "action": "message", "args": {"content": "x"}},
        {"id": 4, "timestamp": "2024-12-07T06:19:38", "source": "agent", "message": "Command ran", "cause": 3, "observation": "run", "content": "ok", "extras": {}},
    ]),
    "dci conversation": (".json", {"question": "q", "model": "m", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "toolCall", "id": "t", "name": "bash", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "t", "content": [{"type": "text", "text": "ok"}]},
    ]}),
    "anthropic messages": (".json", [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]},
    ]),
    "rtlab canonical": (".jsonl", [{"schema": "rtlab.trajectory", "version": 1, "id": "x", "format": "codex", "source_path": "p"}]),
    "eval strings": (".json", {"input": "2+2?", "output": "4"}),
    "plain config": (".json", {"name": "x", "messages": "none"}),
    "numbers": (".json", [1, 2, 3]),
    "empty list": (".json", []),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_sniff_rejects_other_formats(tmp_path: Path, name: str) -> None:
    suffix, doc = FOREIGN[name]
    path = tmp_path / f"log{suffix}"
    if suffix == ".jsonl":
        write_jsonl(path, doc)  # type: ignore[arg-type]
    else:
        write_json(path, doc)
    assert not openai_chat.sniff(path)
    assert not openai_responses.sniff(path)


def test_sniff_claims_each_fixture_for_one_reader(oa: Path) -> None:
    claims = {p.name: (openai_chat.sniff(p), openai_responses.sniff(p)) for p in sorted(oa.iterdir())}
    assert claims == {
        "chat_conversations.jsonl": (True, False),
        "chat_explore.json": (True, False),
        "chat_messages.jsonl": (True, False),
        "responses_items.jsonl": (False, True),
        "responses_pairs.jsonl": (False, True),
        "responses_run.json": (False, True),
    }


def test_sniff_boundary_between_the_two(tmp_path: Path) -> None:
    easy = write_json(
        tmp_path / "easy.json", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    )
    assert openai_chat.sniff(easy) and not openai_responses.sniff(easy)
    parts = [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    typed = write_json(tmp_path / "typed.json", parts)
    assert openai_responses.sniff(typed) and not openai_chat.sniff(typed)
    pair = write_json(
        tmp_path / "pair.json",
        {"input": "hi", "output": [{"type": "message", "role": "assistant", "content": []}]},
    )
    assert openai_responses.sniff(pair) and not openai_chat.sniff(pair)


def test_sniff_non_candidates(oa: Path, tmp_path: Path) -> None:
    txt = tmp_path / "chat.txt"
    txt.write_text((oa / "chat_messages.jsonl").read_text())
    (tmp_path / "bad.json").write_text('[{"role": "user", "content": "x"}')
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "latin.jsonl").write_bytes(b'{"role": "user", "content": "caf\xe9"}\n')
    for p in (
        oa,
        txt,
        tmp_path / "bad.json",
        tmp_path / "empty.jsonl",
        tmp_path / "latin.jsonl",
        tmp_path / "nope.json",
    ):
        assert not openai_chat.sniff(p) and not openai_responses.sniff(p)


def test_sniff_big_files_by_their_first_element(oa: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_openai_common, "SNIFF_FULL_PARSE", 16)
    assert openai_chat.sniff(oa / "chat_explore.json") and not openai_responses.sniff(
        oa / "chat_explore.json"
    )
    assert openai_responses.sniff(oa / "responses_run.json") and not openai_chat.sniff(
        oa / "responses_run.json"
    )


def test_sniff_claims_no_real_file_of_other_formats(real_pinned: list[Path]) -> None:
    candidates = sorted(
        p for r in real_pinned for p in r.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")
    )
    assert len(candidates) == 167
    claimed = [p for p in candidates if openai_chat.sniff(p) or openai_responses.sniff(p)]
    assert claimed == []
    folders = [p for r in real_pinned for p in r.rglob("*") if p.is_dir()]
    assert not any(openai_chat.sniff(d) or openai_responses.sniff(d) for d in folders)


class _NeverDisjoint:
    """A stand-in for ``_PATH_KEY_SET`` that sends every call to the key-by-key lookup."""

    def isdisjoint(self, other: Any) -> bool:
        return False


def test_targets_of_calls_naming_no_path_key_are_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """``read_target`` / ``write_target`` tell a call whose arguments hold no path key by one set test: the same
    answers as looking each key up, on arguments with and without each key, of every JSON type."""
    values: list[Any] = ["a.txt", 3, None, True, ["x"], {"k": 1}]
    cases = []
    for tool in ("read_file", "write_file", "view", "apply_patch", "str_replace_editor", "bash", "other"):
        for key in (*_openai_common.PATH_KEYS, "cmd", "command"):
            for value in values:
                for extra in ({}, {"command": "view"}, {"command": "create"}, {"type": "create_file"}):
                    cases.append((tool, {key: value, **extra}))
    fast = [(_openai_common.read_target(t, a), _openai_common.write_target(t, a)) for t, a in cases]
    monkeypatch.setattr(_openai_common, "_PATH_KEY_SET", _NeverDisjoint())
    plain = [(_openai_common.read_target(t, a), _openai_common.write_target(t, a)) for t, a in cases]
    assert fast == plain
    assert sum(r is not None for r, _ in fast) > 20 and sum(w is not None for _, w in fast) > 20
