"""A scan says what it did not read, ids stay unique across files, and every table says where a run came from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rtlab.cli import EXIT_NOTHING, main
from rtlab.environment import tables
from rtlab.errors import UnknownFormatError
from rtlab.ingest import discover, explain, ingest, unique_ids
from rtlab.records import Trajectory
from rtlab.runner import replay_paths

ROOT = Path(__file__).resolve().parent.parent
PI_SESSION = ROOT / "data" / "sample" / "pi" / "hiring-summary-v3.jsonl"


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("data", "reason", "detail"),
    [
        (b"", "empty file", ""),
        (b"   \n\n", "blank text", ""),
        (b"# notes\nnothing here\n", "not JSON", ""),
        (b"PK\x03\x04rest of a zip", "a zip archive that no reader knows", ""),
        (b"\x7fELF\x00\x00binary", "binary, not text", ""),
        (b'{"a": 1}\n\xff\xfe not utf-8 at all here\n', "not UTF-8 text", "byte 9"),
        (
            b'{"type": "span", "id": 1}\n{"type": "span", "id": 2}\n',
            "JSON lines, but no known record type",
            "first record: type 'span', keys type, id",
        ),
        (
            b'{\n  "a": 1\n}\n{\n  "a": 2\n}\n',
            "JSON records one after another, but no known record type",
            "first record: keys a",
        ),
        (b'{"x": 1, "y": [1, 2]}', "JSON, but no known shape", "keys x, y"),
        (b'\xef\xbb\xbf{"x": 1}', "JSON, but no known shape", "keys x"),  # a BOM is not an error here
        (b'[{"k": 1}, {"k": 2}]', "a JSON array, but no known shape", "2 items; first: keys k"),
        (
            b'{"x": [1, 2',
            "looks like JSON, but does not parse",
            "Expecting ',' delimiter (line 1, column 12)",
        ),
        (b"[" * 100_000, "looks like JSON, but does not parse", "nested too deeply to parse"),
    ],
)
def test_explain_says_what_a_file_holds(tmp_path: Path, data: bytes, reason: str, detail: str) -> None:
    found = explain(_write(tmp_path / "f.jsonl", data))
    assert (found.reason, found.detail) == (reason, detail)


def test_explain_reads_json_lines_whose_first_line_is_longer_than_the_head(tmp_path: Path) -> None:
    big = json.dumps({"instance_id": "x", "history": ["y" * 100_000]})
    found = explain(_write(tmp_path / "output.jsonl", big + "\n" + big + "\n"))
    assert found.reason == "JSON lines, but no known record type"
    assert found.detail == "first record: keys instance_id, history"


def test_a_scan_lists_every_file_it_did_not_read(tmp_path: Path) -> None:
    shutil.copy(PI_SESSION, tmp_path / "session.jsonl")
    _write(tmp_path / "notes.md", "# notes\n")
    _write(tmp_path / "deep" / "spans.log", '{"type": "span"}\n{"type": "span"}\n')
    _write(tmp_path / "deep" / "empty.json", "")
    unclaimed: list = []
    units = list(discover(tmp_path, unclaimed=unclaimed))
    assert [(u.name, f) for u, f in units] == [("session.jsonl", "pi")]
    assert sorted((Path(u.path).name, u.reason) for u in unclaimed) == [
        ("empty.json", "empty file"),
        ("notes.md", "not JSON"),
        ("spans.log", "JSON lines, but no known record type"),
    ]
    # the same through ingest: nothing dropped without a word
    result = ingest([tmp_path], join=False)
    assert len(result.trajectories) == 1 and len(result.unclaimed) == 3


def test_a_file_given_directly_that_no_reader_claims_says_what_it_holds(tmp_path: Path) -> None:
    f = _write(tmp_path / "spans.log", '{"type": "span"}\n{"type": "span"}\n')
    with pytest.raises(
        UnknownFormatError, match=r"spans.log: not recognised as any known format \(JSON lines"
    ):
        list(discover(f))


def test_repeated_ids_are_made_unique_first_one_kept() -> None:
    ts = [Trajectory(id="x", format="pi", source_path=p) for p in ("a", "b", "c")]
    ts.append(Trajectory(id="x~2", format="pi", source_path="d"))  # a later id that the renaming took
    taken: dict[str, str] = {}
    renamed = unique_ids(ts, taken)
    assert [t.id for t in ts] == ["x", "x~2", "x~3", "x~2~2"]
    assert [(r.path, r.old, r.new, r.first_path) for r in renamed] == [
        ("b", "x", "x~2", "a"),
        ("c", "x", "x~3", "a"),
        ("d", "x~2", "x~2~2", "b"),
    ]
    assert taken == {"x": "a", "x~2": "b", "x~3": "c", "x~2~2": "d"}


def test_two_copies_of_one_session_get_two_ids_in_ingest_and_replay(tmp_path: Path) -> None:
    for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
        shutil.copy(PI_SESSION, tmp_path / name)
    result = ingest([tmp_path], join=False)
    first = result.trajectories[0].id
    assert [t.id for t in result.trajectories] == [first, f"{first}~2", f"{first}~3"]
    assert [Path(r.path).name for r in result.renamed] == ["b.jsonl", "c.jsonl"]
    for jobs in (1, 2):  # workers replay with their unit's ids; the parent renames the same way
        renamed: list = []
        replays = [r for done, _ in replay_paths([tmp_path], jobs=jobs, renamed=renamed) for r in done]
        assert [r.trajectory_id for r in replays] == [first, f"{first}~2", f"{first}~3"]
        assert [Path(r.path).name for r in renamed] == ["b.jsonl", "c.jsonl"]
        frames = tables(replays)
        for name, frame in frames.items():  # every table tells the copies apart by their source
            assert list(frame.columns[:2]) == ["trajectory", "source_path"], name
        steps = frames["steps"]
        assert steps.groupby("trajectory")["source_path"].nunique().eq(1).all()
        assert {Path(p).name for p in steps["source_path"]} == {"a.jsonl", "b.jsonl", "c.jsonl"}


def test_cli_reports_unread_files_and_fails_when_it_read_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(5):
        _write(tmp_path / f"n{i}.md", "# notes\n")
    _write(tmp_path / "spans.log", '{"type": "span"}\n{"type": "span"}\n')
    out = tmp_path / "out.jsonl"
    for command in (
        ["ingest", str(tmp_path), "-o", str(out)],
        ["replay", str(tmp_path)],
        ["values", str(tmp_path)],
    ):
        assert main(command) == EXIT_NOTHING, command
        err = capsys.readouterr().err
        assert "6 files found were not read" in err
        assert (
            "1 JSON lines, but no known record type:" in err and "spans.log (first record: type 'span'" in err
        )
        assert "5 not JSON:" in err and "... and 2 more (--list-unread names them all)" in err
        assert f"no trajectory could be read from {tmp_path}" in err
    assert not out.exists()
    assert main(["info", str(tmp_path), "--list-unread"]) == EXIT_NOTHING
    err = capsys.readouterr().err
    assert all(f"n{i}.md" in err for i in range(5)) and "more (--list-unread" not in err


def test_cli_reports_renamed_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a.jsonl", "b.jsonl"):
        shutil.copy(PI_SESSION, tmp_path / name)
    assert main(["info", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    ids = [json.loads(line)["id"] for line in captured.out.splitlines()]
    assert ids[1] == f"{ids[0]}~2"
    assert f"trajectory id {ids[0]!r} of {tmp_path / 'b.jsonl'} was already taken" in captured.err


def test_detection_reads_a_file_s_head_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sniffer tried on a file judges the same head, read once (``rtlab.io.one_head_read``): a text no
    reader claims, so every sniffer is tried; the answer is what each sniffer alone gives."""
    import builtins

    from rtlab.ingest import FORMATS, detect, get_reader
    from rtlab.io import head_bytes, head_text, one_head_read

    path = tmp_path / "notes.md"
    path.write_text("# notes\n" + "a line of text\n" * 5000)
    alone = [name for name in FORMATS if get_reader(name).sniff(path)]
    opened: list[str] = []
    real_open = builtins.open

    def counting_open(file: object, *args: object, **kwargs: object) -> object:
        if str(file) == str(path):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", counting_open)
    assert detect(path) is None and alone == []
    assert len(opened) == 1
    data = path.read_bytes()
    text = head_text(path)
    with one_head_read():  # the text made once, as it is made alone
        assert head_text(path) == head_text(path) == text
        assert head_text(tmp_path) == ""  # a folder
    opened.clear()
    with one_head_read():  # a shorter head is cut from the one read (10), a longer one is read (1000, 10**6)
        assert head_bytes(path, 100) == data[:100]
        assert head_bytes(path, 10) == data[:10]
        assert head_bytes(path, 1000) == data[:1000]
        assert head_bytes(path, 10**6) == head_bytes(path, 10**7) == data  # all of it: not read again
    assert len(opened) == 3
    head_bytes(path, 10)
    head_bytes(path, 10)  # outside: read each time
    assert len(opened) == 5
