"""The rules every reader shares: the read-command form, generic commands, a delivered file's facts."""

from __future__ import annotations

import hashlib

import pytest

from rtlab.ingest.readers._base import call_command, deliverable_file, read_command


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("a.txt",), "read a.txt"),
        (("a.txt", 10), "read a.txt 10"),
        (("a.txt", 10, 5), "read a.txt 10 5"),
        (("a.txt", None, 5), "read a.txt 1 5"),  # a limit alone starts at line 1
        (("dir/报告 v2.md", 1, 1), "read dir/报告 v2.md 1 1"),
    ],
)
def test_read_command(args, expected) -> None:
    assert read_command(*args) == expected


def test_call_command() -> None:
    assert call_command("fetch", {"url": "http://x", "n": [1, 2]}) == 'fetch {"url":"http://x","n":[1,2]}'
    assert call_command("fetch", {}) == "fetch"
    assert call_command("fetch", {"_raw": '{"url": '}) == 'fetch {"url": '
    assert call_command("t", {"s": "é"}) == 't {"s":"é"}'


def test_deliverable_file_facts() -> None:
    text = "总计 1,234\n".encode()
    f = deliverable_file("out.md", text, origin="write_tool")
    # "总计 1,234\n": two 3-byte CJK characters + 7 ASCII bytes = 13 bytes
    assert (f.path, f.content, f.size, f.origin, f.local_path) == (
        "out.md",
        "总计 1,234\n",
        13,
        "write_tool",
        None,
    )
    assert f.sha256 == hashlib.sha256(text).hexdigest()
    binary = deliverable_file("a.xlsx", b"PK\x03\x04\x00\x00", origin="output_dir", local_path="/x/a.xlsx")
    assert binary.content is None and binary.size == 6 and binary.local_path == "/x/a.xlsx"
    assert deliverable_file("b.bin", b"\xff\xfe", origin="output_dir").content is None


def test_merged_frames_cover_what_they_covered_without_overlap() -> None:
    import random

    from rtlab.ingest.readers._frames import merged
    from rtlab.records import Frame

    # by hand: a frame [0, 100) with a clip marker [10, 20) inside it: the marker keeps its span and the frame
    # both sides of it (the tail [20, 100) is not left uncovered); a frame inside a clip adds nothing
    assert merged([Frame(0, 100, "frame"), Frame(10, 20, "clip")]) == (
        Frame(0, 10, "frame"), Frame(10, 20, "clip"), Frame(20, 100, "frame"),
    )  # fmt: skip
    assert merged([Frame(5, 30, "clip"), Frame(10, 20, "frame"), Frame(30, 40, "frame")]) == (
        Frame(5, 30, "clip"), Frame(30, 40, "frame"),
    )  # fmt: skip
    rng = random.Random(7)
    for _ in range(2000):
        given = []
        for _ in range(rng.randrange(0, 8)):
            a = rng.randrange(0, 60)
            given.append(Frame(a, a + rng.randrange(0, 15), rng.choice(["frame", "clip"])))
        out = merged(given)
        covered = {i for f in given for i in range(f.start, f.end)}
        clipped = {i for f in given if f.kind == "clip" for i in range(f.start, f.end)}
        assert {i for f in out for i in range(f.start, f.end)} == covered
        assert {i for f in out if f.kind == "clip" for i in range(f.start, f.end)} == clipped
        assert all(f.end > f.start for f in out)
        assert all(a.end <= b.start for a, b in zip(out, out[1:], strict=False))


def test_event_fields_in_the_order_readers_pass_them() -> None:
    """The readers' timelines (Chat Completions / Responses / Codex / Gemini CLI, Claude Code, Pi, Inspect) make
    each event with positional arguments (the dataclass's ``__init__`` costs about twice as much with keywords):
    ``Event``'s fields must stay in this order, and each helper must give what it was given."""
    from dataclasses import fields
    from pathlib import Path

    from rtlab.ingest._clipping import NoClip
    from rtlab.ingest.readers._openai_common import Timeline
    from rtlab.records import Event

    assert [f.name for f in fields(Event)] == ["kind", "text", "role", "seq", "timestamp", "line", "data"]
    tl = Timeline(Path("x.jsonl"), NoClip())
    tl.now = "2026-01-01T00:00:00Z"
    tl.event("message", "hi", 3)
    ev = tl.event("reasoning", "think", 4, role="assistant", encrypted=True)
    assert ev == Event(
        kind="reasoning", text="think", role="assistant", seq=1, timestamp="2026-01-01T00:00:00Z", line=4,
        data={"encrypted": True},
    )  # fmt: skip
