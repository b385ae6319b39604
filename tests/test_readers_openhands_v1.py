"""The OpenHands V1 (software-agent-sdk) reader: conversation folders and eval outputs, built here with the event
shapes the SDK defines, the SDK's rendering and clipping, its frames, bad input, and the real logs in
``shared/real/wild/openhands``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import warnings_of, wild_folder

from rtlab.cli import main
from rtlab.environment import replay
from rtlab.errors import ReaderError
from rtlab.ingest import POLICIES, OpenHandsSdkClip, detect, discover, ingest
from rtlab.ingest._clipping import OPENHANDS_SDK_TRUNCATE_NOTICE
from rtlab.ingest.readers import openhands_v1
from rtlab.ingest.readers._base import ReadOptions
from rtlab.ingest.readers._frames import output_frames
from rtlab.records import Frame, trajectory_from_dict, trajectory_to_dict

OPTS = ReadOptions()
STRICT = ReadOptions(strict=True)
CWD = "/workspace/project"
SUFFIX_0 = "\n[The command completed with exit code 0.]"


# --- building SDK events (shapes of openhands-sdk/openhands/sdk/event/llm_convertible/*.py) -------------------


def _text(text: str) -> list[dict[str, Any]]:
    return [{"cache_prompt": False, "type": "text", "text": text}]


def _message(eid: str, source: str, text: str, **extra: Any) -> dict[str, Any]:
    role = "user" if source == "user" else "assistant"
    return {
        "id": eid,
        "timestamp": f"2026-02-05T11:24:{eid[-2:]}.000000",
        "source": source,
        "llm_message": {"role": role, "content": _text(text), "thinking_blocks": []},
        "activated_skills": [],
        "extended_content": [],
        "kind": "MessageEvent",
        **extra,
    }


def _action(eid: str, call: str, tool: str, action: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    arguments = {k: v for k, v in (action or {}).items() if k != "kind"}
    return {
        "id": eid,
        "timestamp": f"2026-02-05T11:24:{eid[-2:]}.100000",
        "source": "agent",
        "thought": [],
        "thinking_blocks": [],
        "action": action,
        "tool_name": tool,
        "tool_call_id": call,
        "tool_call": {"id": call, "name": tool, "arguments": json.dumps(arguments), "origin": "completion"},
        "llm_response_id": f"chatcmpl-{eid}",
        "security_risk": "LOW",
        "kind": "ActionEvent",
        **extra,
    }


def _observation(
    eid: str, action_id: str, call: str, tool: str, observation: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": eid,
        "timestamp": f"2026-02-05T11:24:{eid[-2:]}.200000",
        "source": "environment",
        "tool_name": tool,
        "tool_call_id": call,
        "observation": observation,
        "action_id": action_id,
        "kind": "ObservationEvent",
    }


def _terminal_obs(
    text: str, command: str, exit_code: int = 0, working_dir: str = CWD, **extra: Any
) -> dict[str, Any]:
    return {
        "content": _text(text),
        "is_error": False,
        "command": command,
        "exit_code": exit_code,
        "timeout": False,
        "metadata": {
            "exit_code": exit_code,
            "pid": -1,
            "username": "openhands",
            "hostname": "runtime",
            "working_dir": working_dir,
            "py_interpreter_path": "/usr/bin/python",
            "prefix": "",
            "suffix": f"\n[The command completed with exit code {exit_code}.]",
        },
        "kind": "TerminalObservation",
        **extra,
    }


def _terminal(command: str, **extra: Any) -> dict[str, Any]:
    return {"command": command, "is_input": False, "reset": False, "kind": "TerminalAction", **extra}


def _editor(command: str, path: str, **extra: Any) -> dict[str, Any]:
    return {"command": command, "path": path, "kind": "FileEditorAction", **extra}


def _editor_obs(command: str, path: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "content": _text(text),
        "is_error": False,
        "command": command,
        "path": path,
        "prev_exist": True,
        "kind": "FileEditorObservation",
        **extra,
    }


CAT_N = (
    "Here's the result of running `cat -n` on /workspace/project/app.py:\n"
    "    10\tdef main():\n    11\t    return 42\n"
)
DIR_VIEW = (
    "Here's the files and directories up to 2 levels deep in /workspace/project, excluding hidden items:\n"
    "/workspace/project/\n/workspace/project/app.py\n/workspace/project/README.md\n\n"
    "1 hidden files/directories in this directory are excluded. You can use 'ls -la /workspace/project' to see them."
)


def _conversation_events() -> list[dict[str, Any]]:
    """A conversation exercising every kind of step and event the reader handles, in the SDK's order."""
    return [
        {
            "id": "e00",
            "timestamp": "2026-02-05T11:24:00.000000",
            "source": "agent",
            "system_prompt": {"cache_prompt": False, "type": "text", "text": "You are OpenHands agent."},
            "tools": [{"name": "terminal"}, {"name": "file_editor"}],
            "kind": "SystemPromptEvent",
        },
        _message("e01", "user", "Fix app.py and report the answer."),
        _action(
            "e02",
            "call_1",
            "terminal",
            _terminal("cat notes.txt"),
            thought=_text("Let me read the notes."),
            reasoning_content="The notes come first.",
        ),
        _observation("e03", "e02", "call_1", "terminal", _terminal_obs("alpha\nbeta", "cat notes.txt")),
        _action(
            "e04", "call_2", "file_editor", _editor("view", "/workspace/project/app.py", view_range=[10, 11])
        ),
        _observation(
            "e05", "e04", "call_2", "file_editor", _editor_obs("view", "/workspace/project/app.py", CAT_N)
        ),
        _action("e06", "call_3", "file_editor", _editor("view", "/workspace/project")),
        _observation(
            "e07", "e06", "call_3", "file_editor", _editor_obs("view", "/workspace/project", DIR_VIEW)
        ),
        _action(
            "e08",
            "call_4",
            "file_editor",
            _editor("create", "/workspace/project/answer.txt", file_text="42\n"),
        ),
        _observation(
            "e09",
            "e08",
            "call_4",
            "file_editor",
            _editor_obs(
                "create",
                "/workspace/project/answer.txt",
                "File created successfully at: /workspace/project/answer.txt",
                prev_exist=False,
                new_content="42\n",
            ),
        ),
        _action(
            "e10",
            "call_5",
            "file_editor",
            _editor("str_replace", "/workspace/project/app.py", old_str="42", new_str="43"),
        ),
        _observation(
            "e11",
            "e10",
            "call_5",
            "file_editor",
            _editor_obs(
                "str_replace",
                "/workspace/project/app.py",
                "The file /workspace/project/app.py has been edited.",
                old_content="def main():\n    return 42\n",
                new_content="def main():\n    return 43\n",
            ),
        ),
        _action("e12", "call_6", "terminal", _terminal("C-c", is_input=True)),
        _observation(
            "e13",
            "e12",
            "call_6",
            "terminal",
            {
                **_terminal_obs("No previous running command to interact with.", "C-c", working_dir=""),
                "is_error": True,
                "exit_code": None,
                "metadata": {"exit_code": -1, "pid": -1, "prefix": "", "suffix": ""},
            },
        ),
        _action("e14", "call_7", "terminal", None),  # arguments the SDK could not turn into an action
        {
            "id": "e15",
            "timestamp": "2026-02-05T11:24:15.000000",
            "source": "agent",
            "tool_name": "terminal",
            "tool_call_id": "call_7",
            "error": "Error validating args {} for tool 'terminal': command is required",
            "kind": "AgentErrorEvent",
        },
        _action("e16", "call_8", "terminal", _terminal("rm -rf /tmp/x")),
        {
            "id": "e17",
            "timestamp": "2026-02-05T11:24:17.000000",
            "source": "user",
            "tool_name": "terminal",
            "tool_call_id": "call_8",
            "rejection_reason": "Not allowed",
            "action_id": "e16",
            "kind": "UserRejectObservation",
        },
        _action("e18", "call_9", "think", {"thought": "All set.", "kind": "ThinkAction"}),
        _observation(
            "e19",
            "e18",
            "call_9",
            "think",
            {
                "content": _text("Your thought has been logged."),
                "is_error": False,
                "kind": "ThinkObservation",
            },
        ),
        {
            "id": "e20",
            "timestamp": "2026-02-05T11:24:20.000000",
            "source": "environment",
            "forgotten_event_ids": ["e02", "e03"],
            "summary": "Read notes, viewed app.py.",
            "llm_response_id": "chatcmpl-c",
            "kind": "Condensation",
        },
        _action("e21", "call_10", "finish", {"message": "Done: the answer is 42.", "kind": "FinishAction"}),
        _observation(
            "e22",
            "e21",
            "call_10",
            "finish",
            {"content": _text("Done: the answer is 42."), "is_error": False, "kind": "FinishObservation"},
        ),
        _message("e23", "user", "Anything else?"),
        _message("e24", "agent", "No, that is all."),
        _action("e25", "call_11", "terminal", _terminal("ls")),  # the run stopped before its result
    ]


def _metrics(prompt: int, completion: int, cache: int, cost: float) -> dict[str, Any]:
    return {
        "model_name": "openai/gpt-4o-mini",
        "accumulated_cost": cost,
        "accumulated_token_usage": {
            "model": "openai/gpt-4o-mini",
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cache_read_tokens": cache,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
        },
        "costs": [],
        "response_latencies": [],
        "token_usages": [],
    }


BASE_STATE = {
    "id": "11111111-2222-3333-4444-555555555555",
    "agent": {"llm": {"model": "openai/gpt-4o-mini", "usage_id": "agent"}, "tools": [{"name": "terminal"}]},
    "workspace": {"working_dir": CWD, "kind": "LocalWorkspace"},
    "max_iterations": 500,
    "execution_status": "finished",
    "stats": {
        "usage_to_metrics": {
            "agent": _metrics(1000, 100, 600, 0.25),
            "condenser": _metrics(200, 20, 0, 0.05),
        }
    },
}


def _uuid(short: str) -> str:
    return f"{short[1:]:0>8}-0000-4000-8000-000000000000"


def _renamed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with UUID ids, as the SDK gives them (``e02`` -> ``00000002-0000-4000-8000-...``)."""
    return [
        {**ev, "id": _uuid(ev["id"]), **({"action_id": _uuid(ev["action_id"])} if "action_id" in ev else {})}
        for ev in events
    ]


def _write_conversation(
    root: Path, events: list[dict[str, Any]], state: dict[str, Any] | None = BASE_STATE
) -> Path:
    """A persisted conversation: ``base_state.json``, ``events/event-NNNNN-<id>.json`` and the lock file."""
    folder = root / "11111111222233334444555555555555"
    (folder / "events").mkdir(parents=True)
    if state is not None:
        (folder / "base_state.json").write_text(json.dumps(state), encoding="utf-8")
    (folder / "events" / ".eventlog.lock").write_text("", encoding="utf-8")
    for i, ev in enumerate(events):
        name = f"event-{i:05d}-{ev.get('id', 'ffffffff')}.json"
        (folder / "events" / name).write_text(json.dumps(ev), encoding="utf-8")
    return folder


@pytest.fixture
def conversation(tmp_path: Path):
    folder = _write_conversation(tmp_path, _renamed(_conversation_events()))
    (t,) = openhands_v1.read(folder, OPTS)
    return t


# --- the hand-made conversation folder ---------------------------------------------------------------------


def test_conversation_trajectory_fields(conversation) -> None:
    t = conversation
    assert t.id == "openhands-v1:11111111-2222-3333-4444-555555555555"
    assert (t.format, t.harness, t.harness_version) == ("openhands-v1", "openhands", None)
    assert t.model == "openai/gpt-4o-mini"
    assert t.cwd == CWD
    assert t.instruction == "Fix app.py and report the answer."
    assert t.clip_policy == "openhands-sdk"
    assert (t.started_at, t.ended_at) == ("2026-02-05T11:24:00.000000", "2026-02-05T11:24:25.100000")
    # the agent's own usage and the condenser's, summed
    u = t.usage
    assert (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.total_tokens) == (1200, 120, 600, 1320)
    assert u.cost_usd == pytest.approx(0.30)
    assert t.meta["usage_ids"] == ["agent", "condenser"]
    assert t.meta["execution_status"] == "finished" and t.meta["n_events"] == 26
    assert not t.warnings
    assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_conversation_steps_paired_and_typed(conversation) -> None:
    t = conversation
    assert [(s.tool, s.command) for s in t.steps] == [
        ("terminal", "cat notes.txt"),
        ("file_editor", "read /workspace/project/app.py 10 2"),
        ("file_editor", "read /workspace/project"),
        ("file_editor", "write /workspace/project/answer.txt"),
        ("file_editor", "edit /workspace/project/app.py"),
        ("terminal", 'terminal {"command":"C-c","is_input":true}'),
        ("terminal", "terminal"),
        ("terminal", "rm -rf /tmp/x"),
        ("think", 'think {"thought":"All set."}'),
        ("finish", 'finish {"message":"Done: the answer is 42."}'),
        ("terminal", "ls"),
    ]
    kinds = [(s.action.kind, s.action.path or s.action.command or s.action.name) for s in t.steps]
    assert kinds == [
        ("shell", "cat notes.txt"),
        ("read", "/workspace/project/app.py"),
        ("list", "/workspace/project"),
        ("write", "/workspace/project/answer.txt"),
        ("edit", "/workspace/project/app.py"),
        ("other", "terminal"),  # keystrokes to a running command run nothing new
        ("other", "terminal"),  # the SDK could not build the action
        ("shell", "rm -rf /tmp/x"),
        ("other", "think"),
        ("other", "finish"),
        ("shell", "ls"),
    ]
    assert (t.steps[1].action.offset, t.steps[1].action.limit) == (10, 2)
    assert [s.call_id for s in t.steps] == [f"call_{i}" for i in range(1, 12)]
    assert [s.line for s in t.steps] == [3, 5, 7, 9, 11, 13, 15, 17, 19, 22, 26]
    assert t.n_steps == 10 and not t.steps[-1].answered
    assert t.meta["unanswered_calls"] == ["call_11"]
    assert [s.is_error for s in t.steps[:10]] == [False] * 5 + [True, True, True, False, False]
    assert [s.exit_code for s in t.steps[:10]] == [0] + [None] * 9
    # the last reported working folder applies to later shell calls; the first starts in the workspace
    assert [s.cwd for s in t.steps if s.args.get("kind") == "TerminalAction"] == [CWD] * 4
    assert t.steps[6].args == {}


def test_conversation_shown_is_to_llm_content(conversation) -> None:
    steps = conversation.steps
    assert steps[0].output == "alpha\nbeta"
    assert steps[0].shown == (
        "alpha\nbeta" + SUFFIX_0 + f"\n[Current working directory: {CWD}]"
        "\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 0]"
    )
    assert steps[1].shown == steps[1].output == CAT_N
    # an error observation gets the SDK's error header; exit code -1 adds no exit-code line
    assert (
        steps[5].shown
        == "[An error occurred during execution.]\nNo previous running command to interact with."
    )
    assert steps[6].shown == "Error validating args {} for tool 'terminal': command is required"
    assert steps[7].shown == "Action rejected: Not allowed" and steps[7].output == "Not allowed"
    assert steps[9].shown == "Done: the answer is 42."
    assert not any(s.clipped for s in steps)


def test_conversation_frames_mark_the_sdk_words(conversation) -> None:
    steps = conversation.steps

    def bare(i: int) -> str:
        shown, out, pos = steps[i].shown, [], 0
        for f in steps[i].frames:
            out.append(shown[pos : f.start])
            pos = f.end
        return "".join(out) + shown[pos:]

    assert bare(0) == "alpha\nbeta"
    assert bare(1) == "    10\tdef main():\n    11\t    return 42\n"  # the cat -n header is a frame
    assert bare(2) == "/workspace/project/\n/workspace/project/app.py\n/workspace/project/README.md"
    assert bare(5) == "No previous running command to interact with."


def test_conversation_events_and_deliverable(conversation) -> None:
    t = conversation
    seen = [(x.kind, x.text[:24]) if hasattr(x, "kind") else ("step", x.tool) for x in t.timeline()]
    assert seen[:5] == [
        ("system", "You are OpenHands agent."),
        ("message", "Fix app.py and report th"),
        ("reasoning", "Let me read the notes."),
        ("reasoning", "The notes come first."),
        ("step", "terminal"),
    ]
    assert ("compaction", "Read notes, viewed app.p") in seen
    assert seen[-3:] == [("message", "Anything else?"), ("message", "No, that is all."), ("step", "terminal")]
    assert sorted(x.seq for x in t.timeline()) == list(range(len(seen)))
    assert t.events[0].data["tools"] == ["terminal", "file_editor"]
    # the agent's last word comes after finish: the user went on
    assert t.deliverable.final_message == "No, that is all."
    files = {f.path: (f.content, f.origin) for f in t.deliverable.files}
    assert files == {
        "/workspace/project/answer.txt": ("42\n", "write_tool"),
        "/workspace/project/app.py": ("def main():\n    return 43\n", "write_tool"),
    }


def test_replay_reads_what_the_conversation_showed(conversation) -> None:
    r = replay(conversation)
    # notes.txt by cat, app.py by the editor's view (paths relative to the run's folder); the folder view only
    # lists, create and edit write
    assert sorted({e.path for e in r.tab.read_log}) == ["app.py", "notes.txt"]


def test_events_folder_and_parent_folder(tmp_path: Path) -> None:
    folder = _write_conversation(tmp_path, _renamed(_conversation_events()))
    assert openhands_v1.sniff(folder) and openhands_v1.sniff(folder / "events")
    assert not openhands_v1.sniff(tmp_path)  # a folder of conversations: each is found by the walk
    assert [(u, f) for u, f in discover(tmp_path)] == [(folder, "openhands-v1")]
    (t,) = openhands_v1.read(folder / "events", OPTS)
    assert t.id == "openhands-v1:11111111-2222-3333-4444-555555555555" and t.n_steps == 10
    assert t.source_path == str(folder)  # the conversation, however it was named
    (folder / "base_state.json").unlink()
    assert not openhands_v1.sniff(folder) and openhands_v1.sniff(folder / "events")
    (t,) = openhands_v1.read(folder / "events", OPTS)
    assert t.id == f"openhands-v1:{folder.name}" and t.model is None and t.usage is None
    assert [w.reason for w in t.warnings] == [
        "no base_state.json beside events/: model, usage and working folder unknown"
    ]


# --- eval output.jsonl, and the SDK before 1.0 -------------------------------------------------------------


def _legacy_history() -> list[dict[str, Any]]:
    """History events as SDK 0.x wrote them (execute_bash, output fields, no content lists)."""
    bash = {"kind": "ExecuteBashAction", "command": "cat data.csv", "is_input": False, "timeout": None}
    out = {
        "kind": "ExecuteBashObservation",
        "output": "\x1b[?2004la,b\n1,2\n\x1b[?2004h",
        "command": "cat data.csv",
        "exit_code": None,
        "error": False,
        "timeout": False,
        "metadata": {
            "exit_code": 0,
            "pid": -1,
            "working_dir": "/workspace",
            "py_interpreter_path": "/usr/local/bin/python",
            "prefix": "",
            "suffix": SUFFIX_0,
        },
    }
    failed = {
        **out,
        "output": "boom",
        "error": True,
        "metadata": {
            **out["metadata"],
            "exit_code": 2,
            "suffix": "\n[The command completed with exit code 2.]",
        },
    }
    editor = {
        "kind": "FileEditorObservation",
        "command": "view",
        "output": "",
        "path": "/x",
        "error": "Invalid `path` parameter: /x",
    }
    mcp = {"kind": "MCPToolObservation", "content": _text("fetched"), "is_error": False, "tool_name": "fetch"}
    finish = {"kind": "FinishObservation", "message": "All done."}
    return [
        _action("a01", "c1", "execute_bash", bash),
        _observation("o02", "a01", "c1", "execute_bash", out),
        _action("a03", "c2", "execute_bash", {**bash, "command": "false"}),
        _observation("o04", "a03", "c2", "execute_bash", failed),
        _action(
            "a05",
            "c3",
            "str_replace_editor",
            {"kind": "StrReplaceEditorAction", "command": "view", "path": "/x"},
        ),
        _observation("o06", "a05", "c3", "str_replace_editor", editor),
        _action("a07", "c4", "fetch", {"kind": "MCPToolAction", "data": {"url": "http://x"}}),
        _observation("o08", "a07", "c4", "fetch", mcp),
        _action("a09", "c5", "finish", {"kind": "FinishAction", "message": "All done."}),
        _observation("o10", "a09", "c5", "finish", finish),
    ]


def _eval_line(instance: str, history: list[Any], **extra: Any) -> str:
    record = {
        "instance_id": instance,
        "test_result": {"final_score": {"total": 1, "result": 0}},
        "instruction": f"Task {instance}",
        "metadata": {
            "llm": {"model": "litellm_proxy/gpt-4o"},
            "dataset": "my/dataset",
            **extra.pop("metadata", {}),
        },
        "history": history,
        "metrics": None,
        "error": None,
        **extra,
    }
    return json.dumps(record)


def test_eval_output_legacy_rendering(tmp_path: Path) -> None:
    path = tmp_path / "output.txt"  # detected by content, whatever its name
    path.write_text(
        _eval_line("task-a", _legacy_history(), metrics=_metrics(50, 5, 0, 0.01))
        + "\n"
        + _eval_line("task-b", [], metadata={"openhands_sdk_version": "1.2.0"})
        + "\n",
        encoding="utf-8",
    )
    assert detect(path) == "openhands-v1"
    a, b = openhands_v1.read(path, OPTS)
    assert a.id == f"openhands-v1:{tmp_path.name}/output:task-a" and a.task_id == "task-a"
    assert (a.model, a.instruction, a.harness_version) == ("litellm_proxy/gpt-4o", "Task task-a", None)
    assert (a.usage.input_tokens, a.usage.output_tokens, a.usage.cost_usd) == (50, 5, 0.01)
    assert a.meta["eval_test_result"] == {"final_score": {"total": 1, "result": 0}}
    assert a.meta["dataset"] == "my/dataset" and a.meta["eval_line"] == 1
    assert [s.line for s in a.steps] == [1] * 4  # the closing finish, never shown, is an event (issue 24)
    (finish,) = [e for e in a.events if e.data.get("submission")]
    assert finish.data["output"] == "All done."
    shown = [s.shown for s in a.steps]
    tail = "\n[Current working directory: /workspace]\n[Python interpreter: /usr/local/bin/python]"
    assert (
        shown[0]
        == "\x1b[?2004la,b\n1,2\n\x1b[?2004h" + SUFFIX_0 + tail + "\n[Command finished with exit code 0]"
    )
    assert shown[1] == (
        "[There was an error during command execution.]\nboom\n[The command completed with exit code 2.]"
        + tail
        + "\n[Command finished with exit code 2]"
    )
    assert shown[2] == "Invalid `path` parameter: /x"  # the 0.x editor showed its error bare
    assert shown[3] == "[Tool 'fetch' executed.]\nfetched"
    assert [s.exit_code for s in a.steps] == [0, 2, None, None]
    assert [s.is_error for s in a.steps] == [False, True, True, False]
    assert a.steps[0].output == "\x1b[?2004la,b\n1,2\n\x1b[?2004h"
    assert [s.action.kind for s in a.steps] == ["shell", "shell", "read", "other"]
    assert a.deliverable.final_message == "All done."
    s0 = a.steps[0]
    kept = s0.shown[s0.frames[0].end : s0.frames[1].start]
    assert kept == "a,b\n1,2\n"  # the bracketed-paste switches and the SDK's lines are frames
    # an empty history is kept, said, and counted as no steps
    assert b.n_steps == 0 and b.harness_version == "1.2.0" and b.instruction == "Task task-b"
    assert [(w.line, w.reason) for w in b.warnings][0] == (2, "the history is empty")


def test_eval_ids_stay_unique_when_an_instance_repeats(tmp_path: Path) -> None:
    path = tmp_path / "output.jsonl"
    path.write_text(_eval_line("t", _legacy_history()) + "\n" + _eval_line("t", _legacy_history()) + "\n")
    ids = [t.id for t in openhands_v1.read(path, OPTS)]
    assert ids == [f"openhands-v1:{tmp_path.name}/output:t", f"openhands-v1:{tmp_path.name}/output:t:2"]


# --- clipping ----------------------------------------------------------------------------------------------


def _one_terminal_step(
    tmp_path: Path,
    text: str,
    clip: str | None = None,
    eval_metadata: dict[str, Any] | None = None,
    **obs: Any,
):
    events = [
        _action("a01", "c1", "terminal", _terminal("cat big.log")),
        _observation("o02", "a01", "c1", "terminal", {**_terminal_obs(text, "cat big.log"), **obs}),
    ]
    path = tmp_path / "run.jsonl"
    path.write_text(_eval_line("big", events, metadata=eval_metadata or {}))
    (t,) = openhands_v1.read(path, ReadOptions(clip=clip))
    return t


def test_long_terminal_output_is_cut_to_30000(tmp_path: Path) -> None:
    text = "a" * 20_000 + "b" * 20_000
    t = _one_terminal_step(tmp_path, text)
    step = t.steps[0]
    rendered = (
        text + SUFFIX_0 + f"\n[Current working directory: {CWD}]\n[Python interpreter: /usr/bin/python]"
        "\n[Command finished with exit code 0]"
    )
    n = len(OPENHANDS_SDK_TRUNCATE_NOTICE)
    head = (30_000 - n + 1) // 2  # maybe_truncate gives the odd character to the head
    assert step.shown == rendered[:head] + OPENHANDS_SDK_TRUNCATE_NOTICE + rendered[-(30_000 - n - head) :]
    assert len(step.shown) == 30_000 and step.clipped and step.output == text
    kinds = [(f.kind, step.shown[f.start : f.end][:18]) for f in step.frames]
    assert kinds == [("clip", "<response clipped>"), ("frame", SUFFIX_0[:18])]


def test_clip_none_shows_the_whole_render(tmp_path: Path) -> None:
    t = _one_terminal_step(tmp_path, "z" * 40_000, clip="none")
    assert t.clip_policy == "none" and len(t.steps[0].shown) > 40_000 and not t.steps[0].clipped


def test_saved_output_notice_names_the_file(tmp_path: Path) -> None:
    t = _one_terminal_step(tmp_path, "q" * 40_000, full_output_save_dir="/conv/observations")
    assert "The complete output has been saved to /conv/observations/bash_output_" in t.steps[0].shown
    assert len(t.steps[0].shown) == 30_000
    t = _one_terminal_step(
        tmp_path,
        "q" * 40_000,
        full_output_save_dir="/conv/observations",
        eval_metadata={"openhands_sdk_version": "1.20.0"},
    )
    assert "saved to /conv/observations/terminal_output_" in t.steps[0].shown
    assert t.steps[0].frames[0].kind == "clip"


def test_output_the_terminal_already_cut_is_marked_clipped(tmp_path: Path) -> None:
    text = "head" + OPENHANDS_SDK_TRUNCATE_NOTICE + "tail"
    step = _one_terminal_step(tmp_path, text).steps[0]
    assert step.clipped and step.shown.startswith(text)
    assert [f.kind for f in step.frames] == ["clip", "frame"]


def test_other_tools_are_capped_at_50000(tmp_path: Path) -> None:
    events = [
        _action("a01", "c1", "fetch", {"kind": "MCPToolAction", "data": {}}),
        _observation(
            "o02",
            "a01",
            "c1",
            "fetch",
            {
                "content": _text("[Tool 'fetch' executed.]") + _text("w" * 60_000),
                "is_error": False,
                "tool_name": "fetch",
                "kind": "MCPToolObservation",
            },
        ),
    ]
    path = tmp_path / "o.jsonl"
    path.write_text(_eval_line("m", events))
    (t,) = openhands_v1.read(path, OPTS)
    step = t.steps[0]
    assert step.clipped and len(step.shown) == len("[Tool 'fetch' executed.]") + 50_000


def test_sdk_clip_policy_arithmetic() -> None:
    policy = POLICIES["openhands-sdk"]
    assert isinstance(policy, OpenHandsSdkClip) and policy.name == "openhands-sdk"
    assert policy.apply("x" * 30_000) == "x" * 30_000
    n = len(OPENHANDS_SDK_TRUNCATE_NOTICE)
    assert n == 113  # as the SDK's comment says
    # the budget left after the notice is split with the odd character to the head
    assert policy.truncate("0123456789" * 20, n + 5) == "012" + OPENHANDS_SDK_TRUNCATE_NOTICE + "89"
    assert policy.truncate("y" * 20, 10) == OPENHANDS_SDK_TRUNCATE_NOTICE[:10]
    assert policy.message("m" * 50_000) == "m" * 50_000 and len(policy.message("m" * 50_001)) == 50_000
    # with the saved file named: the head is sized for the short notice, the line count is the head's
    text = "a\nb\nc\n" * 100
    notice = (
        "<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to "
        "you. The complete output has been saved to /d/f.txt - you can use other tools to view the full content "
        "(truncated part starts around line 73).</NOTE>"
    )
    head = min(144, 400 - len(notice))
    assert (
        policy.truncate(text, 400, saved_as="/d/f.txt")
        == text[:head] + notice + text[-(400 - len(notice) - head) :]
    )
    with pytest.raises(ValueError):
        OpenHandsSdkClip(max_chars=-1)


# --- the SDK's frames --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shown", "kept"),
    [
        (
            "[Below is the output of the previous command.]\nmore\n[The command timed out after 5.0 seconds. "
            "You may wait longer to see additional output by sending empty command '', send keys (\"C-c\")]",
            "more",
        ),
        ("out\n[The command has no new output after 30 seconds. You may wait longer ...]", "out"),
        ("x\n[The command completed with exit code 130. CTRL+C was sent.]", "x"),
        (
            "[Previous command outputs are truncated. Showing the last 3 lines of the output below.]\nl1\nl2\nl3"
            "\n[The command completed with exit code 0.]\n[Current working directory: /w]\n"
            "[Command finished with exit code 0]",
            "l1\nl2\nl3",
        ),
        (
            "Terminal session has been reset. All previous environment variables and session state have been "
            "cleared.\n\nhello\n[The command completed with exit code 0.]",
            "hello",
        ),
        (
            '[An error occurred during execution.]\nprev\n[Your command "ls\n-l" is NOT executed. The previous '
            "command is still running - You CANNOT send new commands until the previous command is completed.]",
            "prev",
        ),
        ("NOTE: We only show up to 3 since there're only 3 lines in this file.\nbody", "body"),
        ("plain text with [brackets] inside", "plain text with [brackets] inside"),
    ],
)
def test_sdk_frames(shown: str, kept: str) -> None:
    frames = output_frames(shown, "", clipped=False, harness="openhands-v1")
    pieces, pos = [], 0
    for f in frames:
        assert f.start >= pos and f.end > f.start
        pieces.append(shown[pos : f.start])
        pos = f.end
    assert "".join(pieces) + shown[pos:] == kept


def test_v1_frames_are_not_looked_for_in_other_harnesses() -> None:
    shown = "data\n[Command finished with exit code 0]"
    assert output_frames(shown, "", clipped=False, harness="codex") == ()


# --- sniffing and bad input ----------------------------------------------------------------------------------


def test_sniff_rejects_other_files(tmp_path: Path, fixtures: Path) -> None:
    v0_eval = tmp_path / "v0.jsonl"
    v0_eval.write_text(
        json.dumps({"instance_id": "x", "history": [{"id": 0, "source": "user", "action": "message"}]})
    )
    single = tmp_path / "event-00000-5df490d1-98e8-4dea-9ae7-7f36c59f8ed5.json"
    single.write_text(json.dumps(_message("e01", "user", "hi")))
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "base_state.json").write_text("{}")  # no events folder
    for p in (
        v0_eval,
        single,
        plain,
        tmp_path / "missing",
        fixtures / "openhands" / "traj_demo-task-image.json",
    ):
        assert not openhands_v1.sniff(p), p
    assert detect(v0_eval) == "openhands"


def _read_error(path: Path) -> ReaderError:
    with pytest.raises(ReaderError) as info:
        openhands_v1.read(path, STRICT)
    return info.value


def test_bad_event_file_names_the_file_and_field(tmp_path: Path) -> None:
    events = _renamed(_conversation_events()[:4])
    del events[2]["tool_call_id"]
    folder = _write_conversation(tmp_path, events)
    err = _read_error(folder)
    assert Path(err.path).name.startswith("event-00002-") and err.field == "tool_call_id"


def test_bad_json_and_missing_kind(tmp_path: Path) -> None:
    folder = _write_conversation(tmp_path, _renamed(_conversation_events()[:2]))
    bad = next((folder / "events").glob("event-00001-*.json"))
    bad.write_text('{"id": "x", "kind": ')
    assert Path(_read_error(folder).path) == bad
    bad.write_text('{"id": "x"}')
    (t,) = openhands_v1.read(folder, OPTS)  # the event is skipped, said with its field (issue 24)
    assert any(w.field == "kind" and Path(w.path) == bad for w in t.warnings)


def test_folder_layout_errors_and_warnings(tmp_path: Path) -> None:
    folder = _write_conversation(tmp_path / "a", [])
    assert "no event files" in _read_error(folder).message
    folder = _write_conversation(tmp_path / "b", _renamed(_conversation_events()[:2]))
    events = folder / "events"
    (events / "notes.txt").write_text("x")
    (events / f"event-00003-{'a' * 8}-0000-4000-8000-000000000000.json").write_text(
        json.dumps({**_message("e03", "user", "later"), "id": _uuid("e03")})
    )
    (t,) = openhands_v1.read(folder, OPTS)
    assert [w.reason for w in t.warnings] == [
        "events/notes.txt: not an event file name; skipped",
        "1 event index(es) missing from events/ (first: 2)",
        f"event-00003-{'a' * 8}-0000-4000-8000-000000000000.json: event id '{_uuid('e03')}' differs from its "
        "file name",
        "no tool call found in it read as openhands-v1 (3 other records read); no other reader finds steps in it",
    ]
    (events / f"event-00003-{'b' * 8}-0000-4000-8000-000000000000.json").write_text("{}")
    (t,) = openhands_v1.read(folder, OPTS)  # the second file of an index is skipped, said (issue 24)
    assert any("a second event file with index 3" in w.reason for w in t.warnings)


def test_eval_errors_name_line_and_history_position(tmp_path: Path) -> None:
    history = _legacy_history()
    del history[1]["observation"]
    path = tmp_path / "output.jsonl"
    path.write_text(_eval_line("ok", _legacy_history()) + "\n" + _eval_line("bad", history) + "\n")
    err = _read_error(path)
    assert (err.line, err.field) == (2, "history[1].observation")
    path.write_text(json.dumps({"instance_id": "x", "history": {"kind": "ActionEvent"}}) + "\n")
    assert _read_error(path).field == "history"


def test_result_for_no_open_call_is_kept_and_said(tmp_path: Path) -> None:
    events = _renamed(_conversation_events()[2:4])
    events.append({**events[1], "id": "f" * 8 + "-0000-0000-0000-000000000000"})  # a second result
    folder = _write_conversation(tmp_path, events)
    (t,) = openhands_v1.read(folder, OPTS)
    assert t.n_steps == 1 and [e.kind for e in t.events] == ["reasoning", "reasoning", "other"]
    assert "answers no open call" in warnings_of(t)[0]


def test_results_pair_by_action_id_before_tool_call_id(tmp_path: Path) -> None:
    # two calls with the same tool_call_id (providers reuse them); each result names its action
    events = [
        _action("a01", "dup", "terminal", _terminal("echo one")),
        _action("a02", "dup", "terminal", _terminal("echo two")),
        _observation("o03", "a02", "dup", "terminal", _terminal_obs("two", "echo two")),
        _observation("o04", "a01", "dup", "terminal", _terminal_obs("one", "echo one")),
    ]
    path = tmp_path / "o.jsonl"
    path.write_text(_eval_line("p", events))
    (t,) = openhands_v1.read(path, OPTS)
    assert [s.output for s in t.steps] == ["one", "two"]


# --- the real logs in shared/real/wild/openhands -------------------------------------------------------------

V1_FILES = {  # safety-misconfig's closing finish is an event, not an answered step (issue 24)
    "openhands-benchmarks__openagentsafety__gpt-4o__output.jsonl": {
        "safety-misconfig": 8,
        "safety-business-intelligence": 9,
    },
    "sdk-v1-conversation__cd94562403b9487ebdd4018e3f531dfd": {"cd945624-03b9-487e-bdd4-018e3f531dfd": 2},
}


def _raw_histories(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Each unit's events straight from the JSON: an eval line's history, or a folder's event files in order."""
    if path.is_dir():
        files = sorted((path / "events").glob("event-*.json"))
        state = json.loads((path / "base_state.json").read_text(encoding="utf-8"))
        return {state["id"]: [json.loads(f.read_text(encoding="utf-8")) for f in files]}
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return {r["instance_id"]: r["history"] for r in lines}


def _answered_calls(events: list[dict[str, Any]]) -> int:
    """Calls answered by an observation, rejection or error, less a ``finish`` that closed the conversation
    (nothing after it: its observation never reached the model, issue 24)."""
    answered = {e["action_id"] for e in events if e["kind"] in ("ObservationEvent", "UserRejectObservation")}
    errors = {e["tool_call_id"] for e in events if e["kind"] == "AgentErrorEvent"}
    calls = [
        e
        for e in events
        if e["kind"] == "ActionEvent" and (e["id"] in answered or e["tool_call_id"] in errors)
    ]
    last = calls[-1] if calls else None
    closing = (
        last is not None
        and (last.get("action") or {}).get("kind") == "FinishAction"
        and not any(e["kind"] == "MessageEvent" for e in events[events.index(last) + 1 :])
    )
    return len(calls) - int(closing)


@pytest.fixture(scope="module")
def wild(real: Path) -> Path:
    return wild_folder(real, "openhands")


@pytest.mark.parametrize("name", sorted(V1_FILES))
def test_real_v1_detected_and_counted(wild: Path, name: str, capsys) -> None:
    path = wild / name
    assert detect(path) == "openhands-v1"
    found = {t.task_id or t.meta["conversation_id"]: t for t in openhands_v1.read(path, OPTS)}
    raw = _raw_histories(path)
    assert sorted(found) == sorted(raw) == sorted(V1_FILES[name])
    for key, t in found.items():
        assert t.n_steps == _answered_calls(raw[key]) == V1_FILES[name][key], key
        closing = sum(1 for e in t.events if e.data.get("submission"))  # a closing finish: an event
        assert len(t.steps) + closing == sum(1 for e in raw[key] if e["kind"] == "ActionEvent")
        assert all(s.action is not None for s in t.steps) and not t.warnings
        assert trajectory_from_dict(trajectory_to_dict(t)) == t
    assert main(["replay", str(path)]) == 0
    assert "read-log entries" in capsys.readouterr().out


def test_real_ingest_of_the_folder(wild: Path) -> None:
    result = ingest([wild])
    assert result.failures == []
    by_format: dict[str, int] = {}
    for t in result.trajectories:
        by_format[t.format] = by_format.get(t.format, 0) + 1
    assert by_format == {"openhands-v1": 3, "openhands": 3}


def test_real_conversation_folder_hand_check(wild: Path) -> None:
    (t,) = openhands_v1.read(wild / "sdk-v1-conversation__cd94562403b9487ebdd4018e3f531dfd", OPTS)
    assert (t.model, t.cwd) == ("openai/gpt-4o-mini", "/workspace/project/software-agent-sdk")
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.cached_input_tokens) == (11583, 94, 7552)
    assert t.usage.cost_usd == pytest.approx(0.00122745)
    assert t.instruction.startswith("Use the terminal tool to run `pwd`")
    # event 2: `pwd > tool_output.txt` printed nothing (the redirect took it); the model got only the SDK's
    # suffix and its working-directory, interpreter and exit-code lines, all frames
    pwd, finish = t.steps
    assert (pwd.command, pwd.output, pwd.exit_code) == ("pwd > tool_output.txt", "", 0)
    assert pwd.shown.startswith("\n[The command completed with exit code 0.]\n[Current working directory: ")
    assert [(f.start, f.end) for f in pwd.frames] == [(0, len(pwd.shown))]
    # event 4: finish, whose observation repeats its message; event 7: the agent's answer to the follow-up
    assert finish.action.name == "finish" and finish.shown == finish.args["message"]
    assert t.deliverable.final_message.startswith("I executed the `pwd` command")
    assert [e.kind for e in t.events] == ["system", "message", "message", "message"]
    # the read log is empty: no step showed any file's content
    assert list(replay(t).tab.read_log) == []


def test_real_openagentsafety_hand_check(wild: Path) -> None:
    misconfig, bi = openhands_v1.read(
        wild / "openhands-benchmarks__openagentsafety__gpt-4o__output.jsonl", OPTS
    )
    assert misconfig.model == "litellm_proxy/neulab/gpt-4o-2024-08-06" and misconfig.usage is None
    assert misconfig.instruction.startswith("# Task\n\nYou are an AI agent assisting employees")
    # steps 0, 1, 3, 7: chat_npc replies (NPC chat, no file); 2: curl -O saved TAC_financials.csv and printed
    # only its progress meter; 4: mail not found (exit 127); 5: apt-get's log; 6: mail printed nothing;
    # 8: finish. The model never saw a file's content, so the read log is empty.
    # (8, the finish that ended the run, is an event: its observation never reached the model, issue 24)
    assert [s.exit_code for s in misconfig.steps] == [0, 0, 0, 0, 127, 0, 0, 0]
    assert misconfig.steps[2].command.startswith("curl -u theagentcompany:theagentcompany -O ")
    assert misconfig.deliverable.final_message.startswith(
        "I have successfully coordinated with David and Mark"
    )
    assert list(replay(misconfig).tab.read_log) == []
    # every terminal output starts and ends with bash's bracketed-paste switches, which are frames
    for s in misconfig.steps[:8]:
        assert s.shown.startswith("\x1b[?2004l") and s.frames[0] == Frame(0, 8, "frame")
    # the second run never finished: `pip install openpyxl`, then eight `python3 -c` programs that did not
    # compile (the model wrote `for` after `;`), each showing only Python's SyntaxError
    assert bi.deliverable.final_message is None and bi.n_steps == 9
    assert [s.exit_code for s in bi.steps] == [0] + [1] * 8
    assert all(
        s.output.removesuffix("\n\x1b[?2004h").split("\n")[-1].startswith("SyntaxError: ")
        for s in bi.steps[1:]
    )


def test_real_business_intelligence_read_log_is_empty(wild: Path) -> None:
    # steps 1-8 printed only the compile error of their `python3 -c` program (which quotes the program, naming the
    # workbook): nothing was read (capture's rule: Python's report of an exception is not output)
    _, bi = openhands_v1.read(wild / "openhands-benchmarks__openagentsafety__gpt-4o__output.jsonl", OPTS)
    assert list(replay(bi).tab.read_log) == []


def test_the_fixture_folder_is_the_hand_made_conversation(fixtures: Path, tmp_path: Path) -> None:
    # tests/fixtures/openhands-v1 holds this module's conversation, written by _write_conversation (the CLI's
    # every-format test ingests it): the two must read the same
    (kept,) = openhands_v1.read(fixtures / "openhands-v1" / "11111111222233334444555555555555", OPTS)
    (made,) = openhands_v1.read(_write_conversation(tmp_path, _renamed(_conversation_events())), OPTS)
    assert trajectory_to_dict(kept) | {"source_path": ""} == trajectory_to_dict(made) | {"source_path": ""}
