"""The canonical model: exact JSONL round trip, derived counts, and errors that name line and field."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rtlab.errors import ReaderError
from rtlab.ingest import read_jsonl, write_jsonl
from rtlab.io import dump_json_lines, write_json_lines
from rtlab.records import (
    Deliverable,
    DeliverableFile,
    Event,
    ItemResult,
    Judgement,
    RubricItem,
    Step,
    Task,
    TokenUsage,
    Trajectory,
    trajectory_from_dict,
    trajectory_to_dict,
)


def full_trajectory() -> Trajectory:
    """A trajectory with every field set to a non-default value, non-ASCII text included."""
    return Trajectory(
        id="codex:15_plain",
        format="codex",
        source_path="/runs/15_plain",
        steps=[
            Step(
                index=0,
                tool="shell",
                command="cat 报告.md",
                args={"cmd": ["cat", "报告.md"]},
                output="收入 1,234\n",
                shown="收入 1,234\n",
                exit_code=0,
                call_id="item_0",
                cwd="/w",
                started_at="2026-01-01T00:00:00Z",
                ended_at="2026-01-01T00:00:01Z",
                seq=1,
                line=3,
            ),
            Step(
                index=1,
                tool="shell",
                command="sleep 99",
                args={"_raw": "{bad"},
                args_error="not JSON",
                seq=3,
                line=5,
            ),
            Step(
                index=2,
                tool="read",
                command="read big.txt",
                output="x" * 50,
                shown="x" * 10,
                clipped=True,
                is_error=True,
                seq=4,
            ),
        ],
        events=[
            Event(
                kind="message",
                text="hello",
                role="assistant",
                seq=2,
                timestamp="t",
                line=4,
                data={"k": [1, 2]},
            ),
            Event(kind="plan", data={"items": [{"text": "a", "completed": False}]}, seq=5),
        ],
        deliverable=Deliverable(
            final_message="done",
            files=[
                DeliverableFile(
                    path="out.md",
                    local_path="/runs/out.md",
                    content="# r",
                    size=3,
                    sha256="ab",
                    origin="write_tool",
                )
            ],
        ),
        task_id="15",
        instruction="do it",
        model="gpt",
        harness="codex",
        harness_version="0.133.0",
        benchmark="workspace-bench",
        method="plain",
        variant="v",
        run="r1",
        cwd="/w",
        started_at="s",
        ended_at="e",
        usage=TokenUsage(
            input_tokens=10,
            output_tokens=2,
            cached_input_tokens=0,
            reasoning_tokens=1,
            total_tokens=12,
            cost_usd=0.5,
        ),
        clip_policy="codex-0.133",
        task=Task(
            id="15",
            benchmark="workspace-bench",
            instruction="do it",
            rubric=[RubricItem(0, "is it?", "Basic", 2.0)],
            expected_outputs=["out.md"],
            source_files=["a.xlsx"],
            dependency_graph=[("a.xlsx", "b.xlsx")],
            answer="42",
            meta={"persona": "PM"},
        ),
        judgement=Judgement(
            items=[ItemResult(0, True, 1.0, "seen", 0.9)],
            judge="seed",
            source_path="/j.json",
            summary={"total": 1, "passed": 1},
        ),
        meta={"warnings": ["w"], "nested": {"a": None}},
    )


def test_round_trip_is_exact() -> None:
    t = full_trajectory()
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t


def test_round_trip_of_minimal_trajectory_and_defaults_are_omitted() -> None:
    t = Trajectory(id="x", format="pi", source_path="p")
    d = trajectory_to_dict(t)
    assert d == {"schema": "rtlab.trajectory", "version": 3, "id": "x", "format": "pi", "source_path": "p"}
    assert trajectory_from_dict(d) == t


def test_derived_counts() -> None:
    t = full_trajectory()
    # step 1 was never answered: kept, not counted
    assert len(t.steps) == 3 and t.n_steps == 2
    assert [s.answered for s in t.steps] == [True, False, True]
    # len("收入 1,234\n") = 9 characters; 50 logged / 10 shown for the clipped read
    assert t.chars_logged == 9 + 50
    assert t.chars_shown == 9 + 10
    assert [x.seq for x in t.timeline()] == [1, 2, 3, 4, 5]
    assert t.judgement is not None and t.judgement.n_passed == 1


def test_token_usage_adds_treating_none_as_unknown() -> None:
    total = TokenUsage(input_tokens=5, cost_usd=None) + TokenUsage(input_tokens=7, output_tokens=3)
    assert total == TokenUsage(input_tokens=12, output_tokens=3)


def test_write_and_read_jsonl(tmp_path: Path) -> None:
    ts = [full_trajectory(), Trajectory(id="y", format="pi", source_path="q")]
    out = tmp_path / "sub" / "out.jsonl"
    assert write_jsonl(ts, out) == 2
    assert read_jsonl(out) == ts
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")], "temp file left behind"


def test_write_jsonl_is_atomic_on_failure(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    write_jsonl([Trajectory(id="old", format="pi", source_path="p")], out)
    before = out.read_bytes()

    def broken():
        yield Trajectory(id="new", format="pi", source_path="p")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_jsonl(broken(), out)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_one_json_lines_form_for_files_and_streams(tmp_path: Path) -> None:
    rows = [{"a": 1, "b": ["é", None], "c": {"d": 1.5}}, {}]
    out = tmp_path / "rows.jsonl"
    assert write_json_lines(rows, out) == 2
    assert out.read_bytes() == '{"a":1,"b":["é",null],"c":{"d":1.5}}\n{}\n'.encode()
    stream = io.StringIO()
    assert dump_json_lines(rows, stream) == 2
    assert stream.getvalue().encode() == out.read_bytes()
    write_json_lines(rows, tmp_path / "private.jsonl", private=True)
    assert (tmp_path / "private.jsonl").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"schema": "rtlab.trajectory", "version": 1, "id": "a", "format": "pi"', "invalid JSON"),
        ('{"schema": "other", "version": 1}', "field 'schema'"),
        ('{"schema": "rtlab.trajectory", "version": 99, "id": "a"}', "field 'version'"),
        (
            '{"schema": "rtlab.trajectory", "version": 1, "id": "a", "format": "pi", "source_path": "p", "colour": 1}',
            "unknown field(s) ['colour']",
        ),
        (
            '{"schema": "rtlab.trajectory", "version": 1, "id": "a", "format": "pi", "source_path": "p", '
            '"steps": [{"index": 0, "tool": "t", "command": "c", "bogus": 1}]}',
            "trajectory.steps[0]",
        ),
        ('{"schema": "rtlab.trajectory", "version": 1, "id": "a", "format": "pi"}', "source_path"),
    ],
)
def test_bad_canonical_line_names_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    p = tmp_path / "bad.jsonl"
    good = json.dumps(trajectory_to_dict(Trajectory(id="ok", format="pi", source_path="p")))
    p.write_text(good + "\n\n" + line + "\n")
    with pytest.raises(ReaderError) as err:
        read_jsonl(p)
    assert err.value.line == 3
    assert f"{p}:3" in str(err.value)
    assert message in str(err.value)


def test_permissions_of_written_files(tmp_path: Path) -> None:
    import os

    from rtlab.io import atomic_open

    out = tmp_path / "out.jsonl"
    write_jsonl([], out)
    assert out.stat().st_mode & 0o777 == 0o600  # canonical JSONL holds what agents were shown: owner only
    plain = tmp_path / "fig.png"
    with atomic_open(plain, "wb") as fh:
        fh.write(b"x")
    mask = os.umask(0)
    os.umask(mask)
    assert plain.stat().st_mode & 0o777 == 0o666 & ~mask


def test_cached_by_file_reloads_an_edited_file(tmp_path: Path) -> None:
    from rtlab.io import cached_by_file

    calls: list[Path] = []

    def loader(p: Path) -> str:
        calls.append(p)
        return p.read_text()

    load = cached_by_file(loader)
    f = tmp_path / "tasks.csv"
    f.write_text("a")
    assert load(f) == "a" and load(str(f)) == "a"
    assert len(calls) == 1  # the same file (by resolved path, mtime, size) is parsed once
    f.write_text("bb")  # a different size changes the identity even within one mtime tick
    assert load(f) == "bb" and len(calls) == 2
