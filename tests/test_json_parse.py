"""The JSON home parses with orjson and gives exactly what ``json`` gives: every place the two differ is sent
back to ``json`` (lone surrogates, integers past 64 bits, NaN / Infinity, numbers past the float range, a BOM,
nesting near the recursion limit), and the readers' files read to the same values and warnings."""

from __future__ import annotations

import json
import math
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtlab.errors import ReaderError
from rtlab.io import (
    first_json_line,
    iter_json_lines,
    iter_json_values,
    load_json,
    loads,
    parse_json,
    parse_json_each,
    parse_utf8_json,
)
from rtlab.io._files import _INT64, _SURE_DEPTH, _UNSURE, _WIDE, _by_orjson, _sure


def same(a: object, b: object) -> bool:
    """Equal values of equal types all the way down (``1 == 1.0`` and ``nan != nan`` are not what we want)."""
    return repr(a) == repr(b)


def outcome(parse, text):  # noqa: ANN001, ANN202
    try:
        return ("ok", repr(parse(text)))
    except Exception as exc:  # noqa: BLE001 - the error is the outcome compared
        return ("error", type(exc).__name__, str(exc))


# --- where orjson alone would differ ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('"\\udc80"', "lone low surrogate escape: orjson refuses"),
        ('["a\\ud800b"]', "lone high surrogate escape"),
        ('"\\ud800\\u0041"', "high surrogate then a letter"),
        ("NaN", "NaN: orjson refuses"),
        ('{"x": Infinity, "y": -Infinity}', "Infinity"),
        ("1e400", "past the float range: json gives inf, orjson refuses"),
        ("[-1e400]", "past the float range, negative"),
        ("18446744073709551616", "2**64: orjson gives a float"),
        ('{"n": -9223372036854775809}', "below -2**63: orjson gives a float"),
        ("[123456789012345678901234567890]", "30 digits"),
        ("[" * 500 + "]" * 500, "deep, within json's recursion limit"),
    ],
)
def test_where_orjson_differs_json_decides(text: str, why: str) -> None:
    assert _by_orjson(text) is _UNSURE, why
    assert outcome(parse_json, text) == outcome(json.loads, text)
    assert outcome(parse_json, text.encode("utf-8", "surrogatepass")) == outcome(
        json.loads, text.encode("utf-8", "surrogatepass")
    )


def test_integers_within_64_bits_and_paired_surrogates_stay_with_orjson() -> None:
    for text in ("18446744073709551615", "-9223372036854775808", '"\\ud83d\\ude00"', "[1.5e18, -0.0, 0]"):
        assert _by_orjson(text) is not _UNSURE
        assert same(parse_json(text), json.loads(text))
    assert parse_json("18446744073709551615") == 2**64 - 1
    assert parse_json("123456789012345678901234567890") == 123456789012345678901234567890


def test_nan_and_infinity_come_back_as_json_reads_them() -> None:
    value = parse_json('{"a": NaN, "b": Infinity, "c": 1e999}')
    assert math.isnan(value["a"]) and value["b"] == math.inf and value["c"] == math.inf


@pytest.mark.parametrize("depth", [100, 199, 200, 201, 900, 1024, 1025, 5000, 100_000])
def test_the_nesting_limit_is_json_s(depth: int) -> None:
    text = "[" * depth + "]" * depth
    assert outcome(parse_json, text) == outcome(json.loads, text)
    doc = '{"a":' * depth + "1" + "}" * depth
    assert outcome(parse_json, doc) == outcome(json.loads, doc)


def test_too_deep_is_a_reader_error_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    with pytest.raises(ReaderError, match="nested too deeply") as caught:
        loads("[" * 100_000 + "]" * 100_000, path, 7)
    assert caught.value.line == 7 and caught.value.path == str(path)
    # deeper than orjson's 1,024 but past json's limit too: the same error, never a RecursionError
    with pytest.raises(ReaderError, match="nested too deeply"):
        loads("[" * 1100 + "]" * 1100, path, 1)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "[1,]",
        "01",
        '{"a":1} x',
        '"\x01"',
        "\ufeff{}",
        "{'a': 1}",
        '{"a" 1}',
        "[1 2]",
        "1.",
        "tru",
        '"\\x41"',
        '"\\u12"',
    ],
)
def test_errors_are_json_s_own(text: str) -> None:
    """orjson's messages differ ("trailing comma is not allowed"): what is raised is json's, word for word."""
    assert outcome(parse_json, text)[0] == "error"
    assert outcome(parse_json, text) == outcome(json.loads, text)


def test_what_json_refuses_to_take_is_refused() -> None:
    for value in (5, None, [1], memoryview(b"[1]")):
        assert outcome(parse_json, value) == outcome(json.loads, value)


def test_bytes_as_json_reads_them() -> None:
    """``json.loads`` of bytes detects a BOM and UTF-16/32; bytes that are not UTF-8 raise its own error."""
    for data in (
        b'\xef\xbb\xbf{"a": 1}',
        '{"a": "\u00e9"}'.encode("utf-16"),
        '["x"]'.encode("utf-32-le"),
        b'{"a": "\xff"}',
        b'"\xed\xa0\x80"',  # an encoded surrogate: json decodes with surrogatepass
    ):
        assert outcome(parse_json, data) == outcome(json.loads, data)


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": [1, "\xc3\xa9"]}',
        b'\xef\xbb\xbf{"a": 1}',  # a BOM: json.loads of the decoded text refuses it
        b'{"a": "\xff"}',  # not UTF-8
        b'"\xed\xa0\x80"',  # an encoded surrogate: not UTF-8 either
        b'{"n": 18446744073709551616, "s": "\\udc80", "x": NaN}',
        b"[" * 2000 + b"]" * 2000,
        b"[1,]",
    ],
)
def test_utf8_bytes_parse_as_their_decoded_text(data: bytes) -> None:
    assert outcome(parse_utf8_json, data) == outcome(lambda d: json.loads(d.decode("utf-8")), data)


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(), max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(_json_values, st.sampled_from([None, 2]), st.booleans())
def test_any_value_parses_as_json_parses_it(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert outcome(parse_json, text) == outcome(json.loads, text)
    data = text.encode("utf-8", "surrogatepass")
    assert outcome(parse_json, data) == outcome(json.loads, data)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='{}[]",:0123456789.eE+-tfnrula \\\n\t\x01', max_size=40))
def test_any_text_parses_or_fails_as_json(text: str) -> None:
    assert outcome(parse_json, text) == outcome(json.loads, text)


@settings(max_examples=300, deadline=None)
@given(
    st.from_regex(r"\A-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?\Z", fullmatch=True),
)
def test_every_number_reads_to_the_same_value(text: str) -> None:
    """Floats correctly rounded by both; integers past 64 bits (orjson: a float) and past the float range
    (orjson: refused) sent back to json."""
    assert outcome(parse_json, text) == outcome(json.loads, text)


# --- the certainty walk's wide levels (walked in C) ------------------------------------------------------


def _walked_node_by_node(values: list[object]) -> bool:
    """The certainty walk as it was before wide levels were walked in C: every node tested by Python."""
    level = values
    for _ in range(_SURE_DEPTH + 1):
        below: list[object] = []
        for node in level:
            if type(node) is dict:
                below.extend(node.values())
            elif type(node) is list:
                below.extend(node)
            elif type(node) is float and (node >= _INT64 or node <= -_INT64):
                return False
        if not below:
            return True
        level = below
    return False


def _nested(depth: int, width: int, leaf: str) -> str:
    """``leaf`` nested ``depth`` deep, every level also holding ``width`` siblings (strings, numbers, objects)."""
    siblings = "".join(('"s",', "1,", "2.5,", "null,", "true,", '{"k": "v"},')[i % 6] for i in range(width))
    text = leaf
    for d in range(depth):
        text = f"[{siblings}{text}]" if d % 2 else f'{{"x": [{siblings.rstrip(",")}], "y": {text}}}'
    return text


@pytest.mark.parametrize("width", [0, _WIDE - 1, _WIDE, _WIDE + 1, 200])
@pytest.mark.parametrize(
    ("leaf", "depth"),
    [
        ("18446744073709551616", 3),  # 2**64: orjson gives a float
        ("-9223372036854775809", 6),
        ("9223372036854775807", 6),  # within 64 bits: orjson's value
        ("1.5e300", 2),  # a large float literal: json gives the same float, still sent back (unsure)
        ("-1e19", 1),
        ("9.2e18", 4),  # just under 2**63
        ('"deep"', 198),  # with siblings, the deepest node is the sibling object's value: 198 + 2
        ('"deep"', 199),
        ('"deep"', 200),  # without siblings, the leaf at 200 is the deepest json surely reads
        ('"deep"', 201),
    ],
)
def test_wide_levels_are_walked_as_narrow_ones(leaf: str, depth: int, width: int) -> None:
    text = _nested(depth, width, leaf)
    value = orjson.loads(text)
    assert _sure([value]) == _walked_node_by_node([value])
    assert _sure([value, *[value] * width]) == _walked_node_by_node([value, *[value] * width])
    assert outcome(parse_json, text) == outcome(json.loads, text)


_wide_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**65), max_value=2**65)
    | st.sampled_from([2.0**63, -(2.0**63), 2.0**63 * (1 - 2**-52), 1e300, -0.0, 0.5])
    | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=40) | st.dictionaries(st.text(max_size=4), children, max_size=40)
    ),
    max_leaves=400,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_wide_values, max_size=40))
def test_any_wide_value_is_walked_as_node_by_node(values: list[object]) -> None:
    assert _sure(values) == _walked_node_by_node(values)
    for value in values:
        text = json.dumps(value)
        assert outcome(parse_json, text) == outcome(json.loads, text)


# --- files: the same values and warnings ------------------------------------------------------------------


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def test_json_lines_with_every_difference_read_as_before(tmp_path: Path) -> None:
    rows = [
        '{"a": "\\udc80", "b": "ok"}',
        '{"n": 123456789012345678901234567890}',
        '{"x": NaN}',
        '{"y": 1e400}',
        '{"z": "\\ud83d\\ude00"}',
        '{"plain": [1, 2.5, null, true]}',
    ]
    path = _write(tmp_path, "log.jsonl", "\n".join(rows) + "\n")
    warnings: list[str] = []
    got = list(iter_json_lines(path, warnings))
    assert [line for line, _ in got] == [1, 2, 3, 4, 5, 6]
    assert got[0][1] == {"a": "\ufffd", "b": "ok"}
    assert got[1][1] == {"n": 123456789012345678901234567890}
    assert math.isnan(got[2][1]["x"]) and got[3][1] == {"y": math.inf}
    assert got[4][1] == {"z": "\U0001f600"} and got[5][1] == {"plain": [1, 2.5, None, True]}
    assert warnings == [f"{path}:1: 1 strings held lone surrogate escapes; repaired: replaced by U+FFFD"]


def test_values_one_after_another_read_as_before(tmp_path: Path) -> None:
    text = (
        '{"a": 1}\n'
        '{"s": "\\udc80"}\n'
        '{\n  "pretty": [1,\n  2]\n}\n'
        '{"b": 2} {"c": 3}\n'
        '{"n": 99999999999999999999}\n'
    )
    path = _write(tmp_path, "values.jsonl", text)
    warnings: list[str] = []
    got = list(iter_json_values(path, warnings))
    assert got == [
        (1, {"a": 1}),
        (2, {"s": "\ufffd"}),
        (3, {"pretty": [1, 2]}),
        (7, {"b": 2}),
        (7, {"c": 3}),
        (8, {"n": 99999999999999999999}),
    ]
    assert warnings == [f"{path}:2: 1 strings held lone surrogate escapes; repaired: replaced by U+FFFD"]


def test_a_document_reads_as_before(tmp_path: Path) -> None:
    path = _write(tmp_path, "doc.json", '\ufeff{"a": "\\udc80", "n": 18446744073709551616, "f": -Infinity}')
    warnings: list[str] = []
    assert same(load_json(path, warnings), {"a": "\ufffd", "n": 18446744073709551616, "f": -math.inf})
    assert warnings == [f"{path}: 1 strings held lone surrogate escapes; repaired: replaced by U+FFFD"]
    plain = _write(tmp_path, "plain.json", '\ufeff{"a": [1, {"b": "\u00e9"}]}')
    assert load_json(plain, []) == load_json(plain) == {"a": [1, {"b": "\u00e9"}]}


def test_a_document_of_replacement_characters_is_still_called_binary(tmp_path: Path) -> None:
    """Valid JSON orjson reads, but the tolerant reading refuses a head that is mostly U+FFFD, as before."""
    path = _write(tmp_path, "odd.json", json.dumps({"s": "\ufffd" * 3000}, ensure_ascii=False))
    with pytest.raises(ReaderError, match="binary"):
        load_json(path, [])
    assert load_json(path) == {"s": "\ufffd" * 3000}


def test_a_bad_document_names_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.json", '{\n  "a": 1,\n  "b": [1,]\n}')
    with pytest.raises(ReaderError) as caught:
        load_json(path)
    assert caught.value.line == 3 and "Expecting value" in caught.value.message


# --- JSON lines read from a UTF-8 file's bytes ----------------------------------------------------------------


def _outcome(iterate, path: Path, *, by_text: bool, strict: bool = False) -> tuple[object, ...]:  # noqa: ANN001
    """Every value with its line, the warnings and the error of ``iterate`` (``iter_json_lines`` or
    ``iter_json_values``) over the file: from its bytes, or from its text as the reading before made it
    (``text=``); tolerant, or ``strict`` (no warnings list)."""
    from rtlab.io._files import _text

    warnings: list[str] | None = None if strict else []
    got: list[tuple[int, str]] = []
    try:
        text = _text(path, warnings) if by_text else None
        for line, value in iterate(path, warnings, text=text):
            got.append((line, repr(value)))
    except ReaderError as exc:
        return (got, warnings, str(exc))
    return (got, warnings, None)


def _log(factory: pytest.TempPathFactory, pieces: list[str], bom: bool, junk: bytes, at: int) -> Path:
    """A JSON-lines file of ``pieces`` (a line each), after a BOM if ``bom``, with a record holding the bytes
    ``junk`` (not UTF-8) put at line ``at`` if any."""
    lines = [p.encode("utf-8") for p in pieces]
    if junk:
        lines.insert(min(at, len(lines)), b'{"j": "' + junk + b'"}')
    path = factory.mktemp("log") / "log.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines))
    return path


_PIECES = [
    '{"a": 1}',
    '[1, "é"]',
    '{"s": "\\udc80"}',  # a lone surrogate escape: json reads it, repaired
    '{"n": 123456789012345678901234}',  # past 64 bits: json's exact integer
    '{"bad": \\q}',  # invalid
    '{"esc": "C:\\dir"}',  # an invalid escape, repaired
    "stray stderr line",
    "",
    "   ",
    "\u3000",  # a line of Unicode whitespace: blank as text
    "\x1c",  # a separator str.strip() takes as whitespace
    '{"cut": [1, 2',
    '{"x": "\u2028"}',
    "42",
    '"a string"',
    "NaN",
    '{"crlf": true}\r',
    "\ufeff{}",  # a BOM inside the file
]


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(_PIECES), min_size=0, max_size=12),
    bom=st.booleans(),
    junk=st.sampled_from([b"", b"\xff", b"\xc3", b"\x00" * 4]),
    at=st.integers(min_value=0, max_value=12),
)
def test_json_lines_from_bytes_read_as_from_text(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[str], bom: bool, junk: bytes, at: int
) -> None:
    """Lines read from a UTF-8 file's bytes give what lines of its text gave: the same values, warnings (a BOM,
    bytes that are not UTF-8, blank lines of Unicode whitespace, a last line cut off) and errors."""
    path = _log(tmp_path_factory, pieces, bom, junk, at)
    assert _outcome(iter_json_lines, path, by_text=False) == _outcome(iter_json_lines, path, by_text=True)


def test_json_lines_from_bytes_on_the_real_logs() -> None:
    """Every JSON-lines file of the sample and the shared real runs reads the same from its bytes as from its
    text (values, lines, warnings)."""
    root = Path(__file__).resolve().parent.parent
    files = sorted(
        p
        for d in (root / "data" / "sample", root.parent / "shared" / "real")
        if d.is_dir()
        for p in d.rglob("*.jsonl")
    )
    if not files:
        pytest.skip("no JSON-lines files (../shared/real absent)")
    for path in files:
        assert _outcome(iter_json_lines, path, by_text=False) == _outcome(
            iter_json_lines, path, by_text=True
        ), path


@settings(max_examples=400, deadline=None)
@given(
    data=st.lists(
        st.sampled_from(
            [
                b"",
                b" ",
                b"\n",
                b"\t\r",
                b"\xef\xbb\xbf",
                b"\x1c",
                b"\xe3\x80\x80",
                b"\xc2\x85",
                b"\xff",
                b"\x00",
                b"{}",
                b"x",
                b"\xc3\xa9",
                b"\x0b\x0c",
            ]
        ),
        max_size=6,
    ).map(b"".join)
)
def test_blank_text_is_what_the_text_says(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    """``blank_text`` of a file's bytes is ``not t or t.isspace()`` of its text as ``read_text`` gives it (the
    readers' "file is empty"): a BOM, Unicode whitespace, separators, bytes that are not UTF-8."""
    from rtlab.io import blank_text, read_text

    path = tmp_path_factory.mktemp("blank") / "f"
    path.write_bytes(data)
    try:
        text = read_text(path, [])
    except ReaderError:  # binary: never blank
        assert not blank_text(data)
        return
    assert blank_text(data) == (not text or text.isspace())


_VALUE_PIECES = [
    *_PIECES,
    '{\n  "pretty": [1,\n 2]\n}',  # a value over several lines
    '  {"indented": 1}',
    '\u3000{"after": "ideographic space"}',
    '{"a": 1} {"b": 2}',  # two values on a line
    "[1,\n2",  # cut off over two lines
]


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(_VALUE_PIECES), min_size=0, max_size=10),
    bom=st.booleans(),
    junk=st.sampled_from([b"", b"\xff", b"\xe2\x82"]),
    at=st.integers(min_value=0, max_value=10),
    strict=st.booleans(),
)
def test_json_values_from_bytes_read_as_from_text(
    tmp_path_factory: pytest.TempPathFactory,
    pieces: list[str],
    bom: bool,
    junk: bytes,
    at: int,
    strict: bool,
) -> None:
    """Values read from a UTF-8 file's bytes while each line is one, then from its text, give what the text
    gave from the start: the same values, lines, warnings and errors, tolerant or strict."""
    path = _log(tmp_path_factory, pieces, bom, junk, at)
    assert _outcome(iter_json_values, path, by_text=False, strict=strict) == _outcome(
        iter_json_values, path, by_text=True, strict=strict
    )


@pytest.mark.parametrize(
    ("text", "by"),
    [
        ('{"a": "\\udc80"}', "json"),  # a lone surrogate: orjson refuses it, json reads it
        ('{"a": 123456789012345678901234}', "json"),  # past 64 bits
        ('{"a": "\\ud83d\\ude00", "b": [1, 2.5]}', "orjson"),  # a pair is no lone surrogate
        ('{"command": "ls -la"}', "orjson"),
    ],
)
def test_parse_json_by_says_which_parser_gave_the_value(text: str, by: str) -> None:
    """``parse_json_by``: ``parse_json``'s value and its parser; only json's may hold lone surrogates, so
    ``parse_arguments`` repairs those only (rtlab.ingest.readers._base)."""
    from rtlab.io import parse_json_by

    value, got = parse_json_by(text)
    assert got == by and same(value, json.loads(text))


# --- a document read once by orjson; many small values read together -------------------------------------------


class _CountingOrjson:
    """``orjson`` with its ``loads`` calls counted."""

    JSONDecodeError = orjson.JSONDecodeError

    def __init__(self) -> None:
        self.calls = 0

    def loads(self, data: object) -> object:
        self.calls += 1
        return orjson.loads(data)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (
            b'{"trace_id": 115825058289444712299650141807529952578}',
            {"trace_id": 115825058289444712299650141807529952578},
        ),
        (b'\xef\xbb\xbf{"n": 18446744073709551616, "x": NaN}', {"n": 18446744073709551616, "x": math.nan}),
        (b'{"s": "\\udc80"}', {"s": "\ufffd"}),
    ],
)
def test_a_document_orjson_cannot_settle_is_parsed_by_orjson_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, value: object
) -> None:
    """orjson reads the bytes; where it cannot say what json gives, json reads the text at once (orjson is not
    tried again on the same text), with the same value and warnings as before."""
    path = tmp_path / "doc.json"
    path.write_bytes(data)
    counting = _CountingOrjson()
    monkeypatch.setattr("rtlab.io._files.orjson", counting)
    for warnings in (None, []):
        counting.calls = 0
        assert same(load_json(path, warnings), value)
        assert counting.calls == 1
    assert same(load_json(tmp_path / "not-there.json", [], data=data), value)  # the bytes given: not read


def test_a_document_that_is_not_utf8_is_repaired_and_said_as_before(tmp_path: Path) -> None:
    """Bytes that are not UTF-8: orjson refuses them, the text is repaired (said), and read (orjson may read the
    repaired text, which is not the bytes it refused)."""
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": "caf\xe9", "n": 1}')
    warnings: list[str] = []
    assert load_json(path, warnings) == {"a": "caf\ufffd", "n": 1}
    assert warnings == [f"{path}:1: not valid UTF-8 (byte offset 10); repaired: the bytes replaced by U+FFFD"]
    with pytest.raises(ReaderError, match="not valid UTF-8"):
        load_json(path)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"\xef\xbb\xbf \n")
    with pytest.raises(ReaderError, match="file is empty"):
        load_json(empty, [])


@pytest.mark.parametrize(
    "texts",
    [
        ['[0.5, "o", "x"]', '[1, "i", "\\udc80"]', "[2, 3]"],
        ["[1]", "18446744073709551616", "NaN", '{"a": 1e400}'],
        ["[1]", "not json", "[2", '"\\q"', "", "[" * 500 + "]" * 500, "[" * 5000 + "]" * 5000],
        [],
    ],
)
def test_values_parsed_together_are_each_as_parse_json_gives_it(texts: list[str]) -> None:
    got = parse_json_each(texts)
    assert len(got) == len(texts)
    for text, value in zip(texts, got, strict=True):
        if isinstance(value, BaseException):
            assert outcome(parse_json, text) == ("error", type(value).__name__, str(value))
        else:
            assert outcome(parse_json, text) == ("ok", repr(value))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=20), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3),
    max_leaves=8,
).map(lambda v: json.dumps(v))), max_size=8))  # fmt: skip
def test_any_values_parsed_together_are_each_as_parse_json_gives_it(texts: list[str]) -> None:
    for text, value in zip(texts, parse_json_each(texts), strict=True):
        expected = outcome(parse_json, text)
        if isinstance(value, BaseException):
            assert expected == ("error", type(value).__name__, str(value))
        else:
            assert expected == ("ok", repr(value))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{\n  "spans": [\n    1\n  ]\n}\n', None),  # a pretty-printed document: its "{" told by its bytes
        ('\ufeff\n\n{"a": 1}\n{"b": 2}\n', {"a": 1}),
        ("  [1,\n2]", None),
        ('"key": 1,\n', None),
        ("not json\n", None),
        ("", None),
    ],
)
def test_the_first_json_line_from_the_file_or_its_bytes(tmp_path: Path, text: str, value: object) -> None:
    path = _write(tmp_path, "f.json", text)
    assert first_json_line(path) == value
    assert first_json_line(tmp_path / "not-there", data=text.encode("utf-8")) == value


def _head_json_lines_parsing_each(path: Path, n_lines: int = 20, n: int = 65536) -> list[object]:
    """``head_json_lines`` as it was written first, every line parsed: the rule its byte tests must keep."""
    from rtlab.io import head_bytes, repair_escapes

    head = head_bytes(path, n).removeprefix(b"\xef\xbb\xbf")
    lines = head.split(b"\n")
    whole = len(head) < n - 3
    if not whole:
        lines = lines[:-1]
    last = max((i for i, raw in enumerate(lines) if raw.strip()), default=-1)
    out: list[object] = []
    other = 0
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        n_lines -= 1
        if n_lines < 0:
            break
        try:
            out.append(loads(raw, path))
        except json.JSONDecodeError as exc:
            try:
                if not exc.msg.startswith(("Invalid \\escape", "Invalid \\uXXXX")):
                    raise
                out.append(loads(repair_escapes(raw.decode("utf-8")), path))
            except (json.JSONDecodeError, UnicodeDecodeError, ReaderError):
                other += not (whole and i == last and raw.lstrip()[:1] in (b"{", b"["))
        except (UnicodeDecodeError, ReaderError):
            other += 1
    return out if len(out) > other else []


def test_head_json_lines_tells_lines_by_their_bytes_as_parsing_each_tells_them(tmp_path: Path) -> None:
    """Lines no JSON value opens (Markdown, logs) or holds (a pretty-printed document's ``"key": 1,``) are
    passed over by their bytes; what the sniffers get is what parsing every line gave (random heads of
    records, such lines, invalid escapes, bytes json reads as UTF-16, lines cut by the head's size)."""
    import random

    from rtlab.io import head_json_lines

    rng = random.Random(29)
    pieces = [b'{"a": 1}', b"#### hi", b"> note", b'[1, "o", "x"]', b"\x00{\x00}", b"NaN", b"-1", b"x", b" ",
              b"\x0c", b'"\\q"', b'{"a": "\\q"}', b"{", b"\xff", b"\xc3\xa9", b"null", b"#\x00#\x00",
              b'  "role": "user",', b"},", b"[", b'"k": [', b'"a\\q": 1,', b"1,", b"\\", b"\x00{\x00,"]  # fmt: skip
    path = tmp_path / "head"
    kept = 0
    for _ in range(3000):
        lines = [
            b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 25))
        ]
        path.write_bytes((b"\xef\xbb\xbf" if rng.random() < 0.1 else b"") + b"\n".join(lines))
        size = rng.choice([65536, 40, 200])
        expected = _head_json_lines_parsing_each(path, 20, size)
        assert repr(head_json_lines(path, 20, size)) == repr(expected)
        kept += bool(expected)
    assert kept > 20  # heads with records, not only refused ones
