"""The G2B-Skill exec-log reader, on hand-made fixtures and on the 32 real OfficeQA runs."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from conftest import warnings_of

from rtlab.errors import ReaderError
from rtlab.ingest import ingest
from rtlab.ingest.readers import ReadOptions, g2b
from rtlab.ingest.readers._base import read_inside
from rtlab.records import Trajectory, trajectory_from_dict, trajectory_to_dict

TRACES = "officeqa/g2b-gpt-5.4-traces"
ROOT = "/home/user/G2B-Skill"


def read_one(path: Path, clip: str | None = None, strict: bool = False) -> Trajectory:
    [t] = g2b.read(path, ReadOptions(clip=clip, strict=strict))
    return t


def raw_events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def record(event: str, content: dict, step: int = 1) -> str:
    obj = {"step": step, "timestamp": "2026-01-05T10:00:00+00:00", "event": event, "agent": "SkillAgent"}
    return json.dumps({**obj, "content": content})


def write_log(tmp_path: Path, lines: list[str], name: str = "exec_r0.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture
def demo(fixtures: Path) -> Trajectory:
    return read_one(fixtures / "g2b" / "traces" / "demo__oqa-7_s1")


def test_sniff_claims_runs_and_logs_only(fixtures: Path, tmp_path: Path) -> None:
    traces = fixtures / "g2b" / "traces"
    assert g2b.sniff(traces / "demo__oqa-7_s1")
    assert g2b.sniff(traces / "demo__oqa-7_s1" / "exec_r0.jsonl")
    assert not g2b.sniff(traces)
    assert not g2b.sniff(traces / "g2b_officeqa_pro_dataset.json")
    assert not g2b.sniff(traces / "demo__oqa-7_s1" / "assessment_r0.json")
    assert not g2b.sniff(fixtures / "g2b" / "questions" / "officeqa_pro.csv")
    assert not g2b.sniff(tmp_path / "missing")
    codex_like = write_log(
        tmp_path, [json.dumps({"type": "thread.started", "thread_id": "x"})], "exec_r0.jsonl"
    )
    assert not g2b.sniff(codex_like)
    unknown_event = write_log(tmp_path, [record("shell_call", {})], "other.jsonl")
    assert not g2b.sniff(unknown_event)
    # a log is a .jsonl file, as for every JSON-lines reader (other files are not opened while walking)
    renamed = tmp_path / "exec_r0.txt"
    renamed.write_bytes((traces / "demo__oqa-7_s1" / "exec_r0.jsonl").read_bytes())
    assert not g2b.sniff(renamed)


def test_demo_run_labels_and_timeline(demo: Trajectory, fixtures: Path) -> None:
    assert demo.id == "g2b:demo__oqa-7_s1"
    assert demo.format == "g2b"
    assert demo.source_path == str(fixtures / "g2b" / "traces" / "demo__oqa-7_s1")
    assert (demo.task_id, demo.method, demo.variant, demo.run) == ("oqa-7", "demo", None, "s1")
    assert demo.harness == "g2b-skill"
    assert demo.model is None
    assert demo.clip_policy == "none"
    assert (demo.started_at, demo.ended_at) == (
        "2026-01-05T10:00:00.000000+00:00",
        "2026-01-05T10:00:11.000000+00:00",
    )
    assert [s.tool for s in demo.steps] == [
        "activate_skill",
        "read_reference",
        "read_reference",
        "shell",
        "shell",
        "write_file",
    ]
    assert demo.n_steps == 6
    kinds = [(x.kind, x.text) if not hasattr(x, "tool") else x.tool for x in demo.timeline()]
    assert kinds[0] == ("system", "EXECUTE")
    assert kinds[4] == ("message", "Searching the bulletin.")
    assert kinds[-1] == ("message", "Done")
    assert [x.seq for x in demo.timeline()] == list(range(9))
    assert demo.meta["sources_dir"] == "analysis/demo/oqa-7_s1/evolve_oqa-7/sources"
    assert not demo.warnings


def test_parallel_calls_pair_in_call_order(demo: Trajectory) -> None:
    first, second = demo.steps[1], demo.steps[2]
    assert first.output.startswith('<reference skill="officeqa" path="references/a.md">')
    assert second.output.startswith('<reference skill="officeqa" path="references/b.md">')
    assert first.command == f"read {ROOT}/analysis/demo/oqa-7_s1/_skills/officeqa/references/a.md"
    assert (first.line, first.started_at, first.ended_at) == (
        4,
        "2026-01-05T10:00:02.000000+00:00",
        "2026-01-05T10:00:03.000000+00:00",
    )
    assert demo.steps[0].command == 'activate_skill {"name":"officeqa"}'
    assert demo.steps[0].call_id is None


def test_shell_steps_exit_codes(demo: Trajectory) -> None:
    multi, timed_out = demo.steps[3], demo.steps[4]
    assert multi.command.startswith("python - <<'PY'\n")
    assert multi.command.endswith("| head -3")
    assert multi.args["timeout_ms"] == 120000
    assert (multi.exit_code, multi.is_error) == (127, True)
    assert g2b.shell_results(multi.args["commands"], multi.output) == [("exit", 127), ("exit", 0)]
    assert (timed_out.exit_code, timed_out.is_error) == (None, True)
    assert g2b.shell_results(timed_out.args["commands"], timed_out.output) == [("exit", 0), ("timeout", None)]
    assert multi.cwd == ROOT and demo.cwd == ROOT and demo.meta["cwd_from"] == "write_file"
    assert demo.steps[0].cwd is None
    assert all(s.shown == s.output and not s.clipped for s in demo.steps)


def test_shell_results_edge_cases() -> None:
    assert g2b.shell_outcome([], "No output") == (None, False)
    assert g2b.shell_outcome(["true"], "Command: true\nexit_code: 0") == (0, False)
    assert g2b.shell_outcome(["x"], "Command: x\nError: [Errno 2] no such file") == (None, True)
    fake = "Command: a\nstdout:\nexit_code: 3\n\nCommand: b\n\nexit_code: 0\n\nCommand: b\nexit_code: 2"
    assert g2b.shell_results(["a", "b"], fake) == [("exit", 0), ("exit", 2)]
    assert g2b.shell_outcome(["other"], "something else\nexit_code: 1") == (1, True)


def test_deliverable(demo: Trajectory, fixtures: Path) -> None:
    d = demo.deliverable
    assert d.final_message == "Done"
    on_disk, written = d.files
    assert (on_disk.path, on_disk.content, on_disk.origin, on_disk.size) == (
        "output.txt",
        "42.5\n",
        "output_dir",
        5,
    )
    assert on_disk.local_path == str(fixtures / "g2b" / "traces" / "demo__oqa-7_s1" / "output.txt")
    assert (written.path, written.content, written.origin) == (
        "analysis/demo/oqa-7_s1/evolve_oqa-7/output.txt",
        "42.5\n",
        "write_tool",
    )
    assert written.sha256 == on_disk.sha256


def test_a_file_directly_in_the_run_is_inside_it_as_the_full_check_says(tmp_path: Path) -> None:
    """``inside`` tells a regular file directly in the run folder (no link) by one ``lstat``: the same verdict
    as following every link (``_real_inside``), for a plain file, a link inside the run, a link out of it, a
    dangling link, a folder, a FIFO, no file, ``..`` and a run folder that is itself a link; and G2B's answer
    file read accordingly."""
    from rtlab.ingest.readers._base import _real_inside, _resolved, inside

    outside = tmp_path / "elsewhere.txt"
    outside.write_text("secret")
    cases = ("plain", "link-in", "link-out", "dangling", "folder", "fifo", "missing", "dotdot", "linked-run")
    for case in cases:
        run = tmp_path / case
        run.mkdir()
        answer = run / "output.txt"
        if case in ("plain", "dotdot", "linked-run"):
            answer.write_text("42\n")
        elif case == "link-in":
            (run / "real.txt").write_text("7\n")
            answer.symlink_to("real.txt")
        elif case == "link-out":
            answer.symlink_to(outside)
        elif case == "dangling":
            answer.symlink_to("gone.txt")
        elif case == "folder":
            answer.mkdir()
        elif case == "fifo":
            os.mkfifo(answer)
        if case == "dotdot":
            answer = run / ".."
        if case == "linked-run":
            (tmp_path / "run-link").symlink_to(run)
            run = tmp_path / "run-link"
            answer = run / "output.txt"
        full = _real_inside(answer, None, _resolved(run)) is not None
        assert inside(answer, run) == full, case
        assert full == (case in ("plain", "link-in", "linked-run")), case
        expected = read_inside(answer, run) if answer.is_file() else None
        assert expected == {"plain": b"42\n", "link-in": b"7\n", "linked-run": b"42\n"}.get(case), case
        if case != "dotdot":
            got = g2b.deliverable(run, [], []).files
            assert [f.content for f in got] == ([] if expected is None else [expected.decode()]), case


def test_cut_off_run(fixtures: Path) -> None:
    t = read_one(fixtures / "g2b" / "traces" / "demo__oqa-8_s0" / "exec_r0.jsonl")
    assert len(t.steps) == 2 and t.n_steps == 1
    last = t.steps[-1]
    assert (last.answered, last.output, last.shown, last.exit_code, last.is_error) == (
        False,
        None,
        None,
        None,
        False,
    )
    warnings = warnings_of(t)
    assert any("exec_r0.jsonl:5: last line is not complete JSON" in w for w in warnings)
    assert any("1 tool call(s) never got a result" in w for w in warnings)
    assert t.deliverable.final_message is None and t.deliverable.files == []
    assert t.cwd is None and t.task_id == "oqa-8" and t.run == "s0"


def test_round_trip(demo: Trajectory, fixtures: Path) -> None:
    cut = read_one(fixtures / "g2b" / "traces" / "demo__oqa-8_s0")
    for t in (demo, cut):
        assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t


def test_clip_option(fixtures: Path) -> None:
    t = read_one(fixtures / "g2b" / "traces" / "demo__oqa-7_s1", clip="none")
    assert t.clip_policy == "none"
    with pytest.raises(ValueError, match="unknown clip policy"):
        read_one(fixtures / "g2b" / "traces" / "demo__oqa-7_s1", clip="no-such-policy")


# ---------------------------------------------------------------------------------------------------------
# Bad input


def test_invalid_json_line_names_the_line(tmp_path: Path) -> None:
    path = write_log(
        tmp_path, [record("phase", {"phase": "EXECUTE"}), "{not json", record("message", {"text": "x"})]
    )
    with pytest.raises(ReaderError) as err:
        g2b.read(path, ReadOptions(strict=True))
    assert err.value.line == 2 and "invalid JSON" in str(err.value)


def test_missing_field_names_the_field(tmp_path: Path) -> None:
    path = write_log(tmp_path, [record("tool_call", {"arguments": "{}"})])
    with pytest.raises(ReaderError) as err:
        g2b.read(path, ReadOptions(strict=True))
    assert (err.value.line, err.value.field) == (1, "content.tool")
    path = write_log(
        tmp_path,
        [record("tool_call", {"tool": "shell", "arguments": "{}"}), record("tool_output", {"tool": "shell"})],
    )
    with pytest.raises(ReaderError) as err:
        g2b.read(path, ReadOptions(strict=True))
    assert (err.value.line, err.value.field) == (2, "content.output")
    path = write_log(tmp_path, [json.dumps({"step": 1, "event": "message", "content": "text"})])
    with pytest.raises(ReaderError) as err:
        g2b.read(path, ReadOptions(strict=True))
    assert err.value.field == "content"


def test_empty_file_and_empty_folder(tmp_path: Path) -> None:
    empty = tmp_path / "exec_r0.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="empty"):
        g2b.read(empty, ReadOptions(strict=True))
    (tmp_path / "run").mkdir()
    with pytest.raises(ReaderError, match="no exec_"):
        g2b.read(tmp_path / "run", ReadOptions(strict=True))


def test_non_utf8_bytes(tmp_path: Path) -> None:
    path = tmp_path / "exec_r0.jsonl"
    path.write_bytes(
        record("phase", {"phase": "EXECUTE"}).encode() + b"\n" + b'{"event": "message", "x": "\xff"}\n'
    )
    with pytest.raises(ReaderError) as err:
        g2b.read(path, ReadOptions(strict=True))
    assert err.value.line == 2 and "UTF-8" in str(err.value)


def test_invalid_arguments_kept_raw(tmp_path: Path) -> None:
    path = write_log(tmp_path, [record("tool_call", {"tool": "shell", "arguments": '{"commands": ["ls"'})])
    [t] = g2b.read(path, ReadOptions())
    step = t.steps[0]
    assert step.args == {"_raw": '{"commands": ["ls"'}
    assert step.args_error.startswith("arguments are not valid JSON")
    assert step.command == 'shell {"commands": ["ls"'  # unparsed arguments are shown raw


def test_unmatched_outputs_warn(tmp_path: Path) -> None:
    lines = [
        record("tool_call", {"tool": "read_file", "arguments": '{"file_path": "a.txt"}'}),
        record("tool_output", {"tool": "call_abc123", "output": "Error: file 'a.txt' not found."}),
        record("tool_output", {"tool": "shell", "output": "stray"}),
        record("iteration_start", {"iteration": 1}),
        record("surprise", {"k": 1}),
    ]
    [t] = g2b.read(write_log(tmp_path, lines), ReadOptions())
    step = t.steps[0]
    assert step.command == "read a.txt" and step.is_error and step.answered
    assert [e.kind for e in t.events] == ["other", "system", "other"]
    assert t.events[0].role == "tool" and t.events[0].text == "stray"
    assert t.events[1].data == {"event": "iteration_start", "iteration": 1}
    assert len(warnings_of(t)) == 3


# ---------------------------------------------------------------------------------------------------------
# Real data: 32 OfficeQA-Pro runs of G2B-Skill's executor


@pytest.fixture(scope="module")
def runs(real: Path) -> dict[str, Trajectory]:
    result = ingest([real / TRACES])
    assert result.failures == []
    return {Path(t.source_path).name: t for t in result.trajectories}


def test_all_runs_ingest(real: Path, runs: dict[str, Trajectory]) -> None:
    folders = sorted(p.name for p in (real / TRACES).iterdir() if p.is_dir())
    assert len(folders) == 32
    assert sorted(runs) == folders
    assert {t.format for t in runs.values()} == {"g2b"}
    assert len({t.id for t in runs.values()}) == 32


def test_steps_match_raw_events(real: Path, runs: dict[str, Trajectory]) -> None:
    for name, t in runs.items():
        events = raw_events(real / TRACES / name / "exec_r0.jsonl")
        calls = Counter(e["content"]["tool"] for e in events if e["event"] == "tool_call")
        outputs = Counter(e["content"]["tool"] for e in events if e["event"] == "tool_output")
        assert len(t.steps) == sum(calls.values()), name
        assert t.n_steps == sum(min(calls[k], outputs[k]) for k in calls), name
        assert len(t.events) == sum(1 for e in events if e["event"] not in ("tool_call", "tool_output")), name
        messages = [e["content"]["text"] for e in events if e["event"] == "message"]
        assert t.deliverable.final_message == (messages[-1] if messages else None), name
        answer = (real / TRACES / name / "output.txt").read_text(encoding="utf-8")
        assert t.deliverable.files[0].content == answer and t.deliverable.files[0].origin == "output_dir"
        assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_outputs_pair_with_their_calls(runs: dict[str, Trajectory]) -> None:
    for t in runs.values():
        for s in t.steps:
            if s.tool == "shell":
                assert s.output.startswith(f"Command: {s.args['commands'][0]}\n")
            elif s.tool == "read_reference":
                assert s.output.startswith(f'<reference skill="officeqa" path="{s.args["ref_path"]}">')
            elif s.tool == "write_file":
                assert s.output.endswith("/" + s.args["file_path"])
            assert s.shown == s.output and not s.clipped


def test_v2_main_oqa0_s4_by_hand(runs: dict[str, Trajectory]) -> None:
    t = runs["v2_main__oqa-0_s4"]
    assert t.id == "g2b:v2_main__oqa-0_s4"
    assert (t.task_id, t.method, t.variant, t.run) == ("oqa-0", "v2_main", None, "s4")
    assert (len(t.steps), t.n_steps) == (6, 6)
    assert [s.tool for s in t.steps] == ["activate_skill"] + ["shell"] * 5
    assert t.steps[0].command == 'activate_skill {"name":"officeqa"}'
    assert t.steps[1].command.startswith(
        "python - <<'PY'\nfrom pathlib import Path\n"
        "p = Path('analysis/c_topo_ablation/v2_main/oqa-0_s4/evolve_oqa-0/sources/treasury_bulletin_1941_01.txt')"
    )
    failing = [s for s in t.steps if s.is_error]
    assert [(s.index, s.exit_code) for s in failing] == [(1, 127)]
    assert "/bin/sh: python: command not found" in failing[0].output
    assert [s.exit_code for s in t.steps] == [None, 127, 0, 0, 0, 0]
    # the model put a real newline inside the quotes (the logged arguments hold "\\n" in JSON)
    assert (
        t.steps[5].command
        == "printf '1580\n' > analysis/c_topo_ablation/v2_main/oqa-0_s4/evolve_oqa-0/output.txt"
    )
    assert t.deliverable.final_message is None
    assert [(f.path, f.content) for f in t.deliverable.files] == [("output.txt", "1580\n")]
    assert t.cwd == "/Users/unique/auto_research/Project/G2B-Skill" and t.meta["cwd_from"] == "skill_dir"
    assert t.meta["sources_dir"] == "analysis/c_topo_ablation/v2_main/oqa-0_s4/evolve_oqa-0/sources"
    assert (t.started_at, t.ended_at) == (
        "2026-06-20T20:26:47.549755+00:00",
        "2026-06-20T20:27:06.957245+00:00",
    )
    assert t.task.answer == "2,602"
    assert t.judgement.items[0].passed is False


def test_labels_of_other_folder_shapes(runs: dict[str, Trajectory]) -> None:
    seed = runs["eval_results__seed__oqa-129"]
    assert (seed.task_id, seed.method, seed.variant, seed.run) == ("oqa-129", "eval_results", "seed", None)
    v3 = runs["v3_results__Sb__oqa-118"]
    assert (v3.task_id, v3.method, v3.variant, v3.run) == ("oqa-118", "v3_results", "Sb", None)
    parallel = runs["v2_branch3__oqa-3_s4"]
    assert [s.args["ref_path"] for s in parallel.steps[1:3]] == [
        "references/external-operands.md",
        "references/series-scope-reconstruction.md",
    ]


def test_totals_over_all_runs(runs: dict[str, Trajectory]) -> None:
    steps = [s for t in runs.values() for s in t.steps]
    assert len(steps) == 297
    assert sum(t.n_steps for t in runs.values()) == 297
    assert Counter(s.tool for s in steps) == {
        "shell": 225,
        "activate_skill": 32,
        "read_reference": 24,
        "write_file": 16,
    }
    assert Counter(s.exit_code for s in steps if s.is_error) == {127: 32, 1: 3}
    assert Counter(e.kind for t in runs.values() for e in t.events) == {"system": 32, "message": 12}
    assert sum(t.deliverable.final_message is not None for t in runs.values()) == 12
    assert sum(f.origin == "write_tool" for t in runs.values() for f in t.deliverable.files) == 16
    assert Counter(t.meta["cwd_from"] for t in runs.values()) == {"write_file": 16, "skill_dir": 16}
    assert all(not t.warnings for t in runs.values())


def test_clip_option_on_real_runs(real: Path) -> None:
    folders = sorted(p for p in (real / TRACES).iterdir() if p.is_dir())
    trajectories = [read_one(f, clip="openhands-v0") for f in folders]
    clipped = [s for t in trajectories for s in t.steps if s.clipped]
    longest = max(len(s.output) for t in trajectories for s in t.steps)
    assert {t.clip_policy for t in trajectories} == {"openhands-v0"}
    assert [len(s.output) for s in clipped] == [longest] == [35431]
    assert clipped[0].shown.startswith(clipped[0].output[:15000]) and len(clipped[0].shown) < longest
