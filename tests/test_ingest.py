"""Batch ingestion and detection: bad units are reported and the rest go on; --strict stops; unknown is explained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtlab.errors import ReaderError, UnknownFormatError
from rtlab.ingest import FORMATS, detect, discover, ingest, write_jsonl
from rtlab.ingest.readers._base import parse_arguments
from rtlab.io import first_json_line, first_json_value, iter_json_lines, iter_json_values, read_text
from rtlab.records import Trajectory, trajectory_to_dict


def _canonical(tmp: Path, name: str, ids: list[str]) -> Path:
    p = tmp / name
    write_jsonl([Trajectory(id=i, format="pi", source_path=str(p)) for i in ids], p)
    return p


def test_bad_unit_is_reported_and_the_rest_go_on(tmp_path: Path) -> None:
    _canonical(tmp_path, "a.jsonl", ["a1", "a2"])
    bad = tmp_path / "b.jsonl"
    bad.write_text(
        json.dumps(trajectory_to_dict(Trajectory(id="b1", format="pi", source_path="x"))) + "\n{not json\n"
    )
    sub = tmp_path / "z"
    sub.mkdir()
    _canonical(sub, "c.jsonl", ["c1"])
    (tmp_path / "notes.txt").write_text("not a trajectory")

    result = ingest([tmp_path])
    # b.jsonl's broken line is skipped with a warning naming it, the rest of it read (issue 24)
    assert [t.id for t in result.trajectories] == ["a1", "a2", "b1", "c1"]
    assert result.failures == []
    b1 = result.trajectories[2]
    assert [(w.path, w.line, w.kind) for w in b1.warnings] == [(str(bad), 2, "truncated")]  # its last line

    with pytest.raises(ReaderError, match="b.jsonl:2"):
        ingest([tmp_path], strict=True)


def test_unrecognised_file_given_directly_lists_the_formats(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("hello")
    with pytest.raises(UnknownFormatError) as err:
        list(discover(p))
    for name in FORMATS:
        assert f"  {name}:" in str(err.value)


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        ingest([tmp_path / "nope"])


def test_canonical_jsonl_is_detected(tmp_path: Path) -> None:
    p = _canonical(tmp_path, "x.jsonl", ["x"])
    assert detect(p) == "rtlab"


def test_read_text_names_the_line_of_bad_utf8(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')
    with pytest.raises(ReaderError) as err:
        read_text(p)
    assert err.value.line == 2 and "UTF-8" in str(err.value)


def test_iter_json_lines_tolerates_only_a_cut_off_last_line(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text('{"a": 1}\n\n{"b": 2}\n{"c": ')
    warnings: list[str] = []
    assert list(iter_json_lines(p, warnings)) == [(1, {"a": 1}), (3, {"b": 2})]
    assert len(warnings) == 1 and ":4:" in warnings[0]
    with pytest.raises(ReaderError, match=":4"):
        list(iter_json_lines(p))  # without a warnings list the cut line is an error
    p.write_text('{"a": 1}\n{"c": \n{"b": 2}\n')
    with pytest.raises(ReaderError) as err:
        list(iter_json_lines(p))  # without a warnings list, a line before the last is an error too
    assert err.value.line == 2
    warnings = []  # with one, it is skipped and said (issue 24)
    assert list(iter_json_lines(p, warnings)) == [(1, {"a": 1}), (3, {"b": 2})]
    assert len(warnings) == 1 and ":2: invalid JSON" in warnings[0]


def test_json_lines_readers_pass_over_a_byte_order_mark_and_leading_blank_lines(tmp_path: Path) -> None:
    p = tmp_path / "x.md"
    p.write_bytes(b'\xef\xbb\xbf\n  \n{"a": 1}\n{"b": 2}\n')
    assert first_json_line(p) == {"a": 1} == first_json_value(p)
    assert list(iter_json_lines(p)) == [(3, {"a": 1}), (4, {"b": 2})] == list(iter_json_values(p))
    p.write_text("# notes\n{}\n", encoding="utf-8")
    assert first_json_line(p) is None and first_json_value(p) is None


def test_iter_json_values_reads_documents_that_span_lines(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text('{\n  "a": 1,\n  "b": [\n    2\n  ]\n}\n{"c": 3}\n\n{\n  "d": "cut', encoding="utf-8")
    warnings: list[str] = []
    assert list(iter_json_values(p, warnings)) == [(1, {"a": 1, "b": [2]}), (7, {"c": 3})]
    assert first_json_value(p) == {"a": 1, "b": [2]} and first_json_line(p) is None
    assert len(warnings) == 1 and ":9:" in warnings[0]
    with pytest.raises(ReaderError) as err:
        list(iter_json_values(p))  # without a warnings list the cut value is an error
    assert err.value.line == 9
    p.write_text('{\n  "a": 1\n  "b": 2\n}\n{"c": 3}\n', encoding="utf-8")  # a fault before the last line
    with pytest.raises(ReaderError, match="line 3, column 3") as err:
        list(iter_json_values(p))
    assert err.value.line == 1
    warnings = []  # with a warnings list: skipped to the next value, said (issue 24)
    assert list(iter_json_values(p, warnings)) == [(5, {"c": 3})]
    assert len(warnings) == 1 and ":1: invalid JSON" in warnings[0] and "line 3, column 3" in warnings[0]
    assert first_json_value(p) is None


@pytest.mark.parametrize(
    ("raw", "args", "has_error"),
    [
        ('{"command": "ls"}', {"command": "ls"}, False),
        ({"path": "a"}, {"path": "a"}, False),
        ("", {}, False),
        (None, {}, False),
        ('{"command": "ls"', {"_raw": '{"command": "ls"'}, True),
        ("[1, 2]", {"_raw": "[1, 2]"}, True),
    ],
)
def test_parse_arguments(raw, args, has_error) -> None:
    got, error = parse_arguments(raw)
    assert got == args
    assert (error is not None) == has_error


@pytest.mark.parametrize("kind", [int, (int, float), int | float])
def test_field_names_the_field_for_any_type_spec(tmp_path: Path, kind) -> None:
    from rtlab.io import field

    assert field({"n": 3}, "n", kind, tmp_path, 1) == 3
    with pytest.raises(ReaderError) as err:
        field({"n": "x"}, "n", kind, tmp_path, 7, where="item")
    assert err.value.field == "item.n" and err.value.line == 7 and "expected int" in err.value.message
    with pytest.raises(ReaderError, match="missing field"):
        field({}, "n", kind, tmp_path, 7)
