"""The reader -> environment contract: every step a reader gives carries a typed action and frames, capture
decides from those and the shown text only, and canonical files keep them (older files are typed on reading)."""

from __future__ import annotations

import json
from pathlib import Path

from rtlab.environment import capture_step
from rtlab.ingest import ingest, read_jsonl, write_jsonl
from rtlab.records import Action, Frame, Step, Trajectory, trajectory_from_dict, trajectory_to_dict

ROOT = Path(__file__).resolve().parent.parent


def _check_typed(trajectories: list[Trajectory]) -> int:
    n = 0
    for t in trajectories:
        for s in t.steps:
            assert s.action is not None, (t.id, s.index, s.tool)
            shown = s.shown or ""
            ends = [(f.start, f.end) for f in s.frames]
            assert ends == sorted(ends), (t.id, s.index)
            assert all(0 <= a <= b <= len(shown) for a, b in ends), (t.id, s.index)
            assert all(b <= c for (_, b), (c, _) in zip(ends, ends[1:], strict=False)), (t.id, s.index)
            for part in s.action.parts:
                if part.output is not None:
                    assert 0 <= part.output[0] <= part.output[1] <= len(shown)
            n += 1
    return n


def test_every_step_of_the_sample_and_fixtures_is_typed() -> None:
    result = ingest([ROOT / "data" / "sample", ROOT / "tests" / "fixtures"])
    assert _check_typed(result.trajectories) > 50


def test_every_step_of_the_real_runs_is_typed(real_pinned: list[Path]) -> None:
    result = ingest(real_pinned)
    assert _check_typed(result.trajectories) > 900
    kinds = {s.action.kind for t in result.trajectories for s in t.steps if s.action is not None}
    assert {"shell", "read", "write", "edit", "other"} <= kinds


def test_capture_follows_the_action_not_the_tool_name() -> None:
    shown = "alpha\nbeta\n"
    named = Step(
        0, "some_harness_tool", "whatever", output=shown, shown=shown, action=Action.shell("cat a.txt")
    )
    assert [r.path for r in capture_step(named).reads] == ["a.txt"]
    other = Step(0, "bash", "cat a.txt", output=shown, shown=shown, action=Action.other("bash"))
    assert capture_step(other).reads == ()
    untyped = Step(0, "bash", "cat a.txt", output=shown, shown=shown)
    assert capture_step(untyped).reads == ()  # no action: nothing is captured (readers always set one)


def test_frames_are_not_content_and_clip_frames_cut_an_excerpt() -> None:
    # 0..21 a header the harness wrote; then two pieces of the file around a clip marker "[cut]"
    shown = "Total output lines: 9\nline one\n[cut]line nine\n"
    frames = (Frame(0, 22, "frame"), Frame(31, 36, "clip"))
    step = Step(
        0, "x", "cat f.txt", output=shown, shown=shown, action=Action.shell("cat f.txt"), frames=frames
    )
    reads = capture_step(step).reads
    assert [(r.path, r.excerpt) for r in reads] == [("f.txt", "line one\n"), ("f.txt", "line nine\n")]


def test_several_commands_in_one_call_each_have_their_output() -> None:
    # G2B-style: two command parts, each with the span of its output
    shown = "Command: cat a.txt\nstdout:\nA1\nexit_code: 0\n\nCommand: cat b.txt\nstdout:\nB1\nexit_code: 0"
    a, b = shown.index("A1"), shown.index("B1")
    parts = (
        Action("shell", command="cat a.txt", output=(a, a + 3), exit_code=0),
        Action("shell", command="cat b.txt", output=(b, b + 3), exit_code=0),
    )
    step = Step(0, "x", "", output=shown, shown=shown, action=Action("shell", parts=parts))
    assert [(r.path, r.excerpt) for r in capture_step(step).reads] == [("a.txt", "A1\n"), ("b.txt", "B1\n")]


def test_actions_and_frames_round_trip_through_canonical_jsonl(tmp_path: Path) -> None:
    parts = (Action("shell", command="ls", output=(3, 9), exit_code=1),)
    step = Step(0, "shell", "ls", output="x", shown="x", action=Action("shell", parts=parts),
                frames=(Frame(0, 1, "frame"),))  # fmt: skip
    t = Trajectory(id="t", format="pi", source_path="p", steps=[step])
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t
    write_jsonl([t], tmp_path / "t.jsonl")
    assert read_jsonl(tmp_path / "t.jsonl") == [t]


def test_a_version_1_file_is_typed_by_the_reader_of_its_format(tmp_path: Path) -> None:
    shown = "Total output lines: 3\n\nhead…9 tokens truncated…tail\n"
    v1 = {
        "schema": "rtlab.trajectory", "version": 1, "id": "codex:x", "format": "codex", "source_path": "p",
        "steps": [{"index": 0, "tool": "command_execution", "command": "cat r.md", "output": shown, "shown": shown,
                   "clipped": True}],
    }  # fmt: skip
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(v1) + "\n", encoding="utf-8")
    (t,) = read_jsonl(path)
    step = t.steps[0]
    assert step.action == Action.shell("cat r.md")
    assert [f.kind for f in step.frames] == ["frame", "clip"]
    assert [r.excerpt for r in capture_step(step).reads] == ["head", "tail\n"]


def test_a_version_2_file_keeps_what_it_says(tmp_path: Path) -> None:
    record = {"schema": "rtlab.trajectory", "version": 2, "id": "x", "format": "codex", "source_path": "p",
              "steps": [{"index": 0, "tool": "command_execution", "command": "cat r.md"}]}  # fmt: skip
    path = tmp_path / "new.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert read_jsonl(path)[0].steps[0].action is None


def test_status_start_finds_the_status_line_the_environment_appends() -> None:
    import random

    from rtlab.records import STATUS_PREFIX, status_start

    def by_partition(text: str) -> int:  # the definition: the last line, after a blank line, is a status line
        if text.startswith(STATUS_PREFIX) and "\n" not in text:
            return 0
        head, sep, last = text.rpartition("\n\n")
        return len(head) if sep and last.startswith(STATUS_PREFIX) and "\n" not in last else len(text)

    rng = random.Random(5)
    pieces = ["a", "\n", "\n\n", STATUS_PREFIX, "[tab]", " 2 open", "x\n"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        assert status_start(text) == by_partition(text), repr(text)
    assert status_start(f"out\n\n{STATUS_PREFIX}1 open") == 3
