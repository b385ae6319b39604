"""Detection's other readers offered a file by its shape (rtlab issue 29): when the detected reader finds no tool
call, ``_tolerant.formats_with_steps`` names the formats whose readers do; a reader declaring
``FILE_SHAPE = "json-lines"`` is not run on a file ``rtlab.io.iter_json_lines`` refuses. These tests hold the
verdicts to what running every reader gives:

- ``json_lines_refused`` on hand-made files of each shape (a pretty-printed document, JSON lines, a text, a
  binary file, a document whose head holds a one-line record, 64 stray lines before the records);
- every declaring reader, run on every file the iterator refuses (the fixtures, the sample, the real logs),
  finds no step in it: the claim each declaration makes, checked by running the reader;
- ``formats_with_steps`` equals the same question asked of every reader, on all those files and the hand-made
  ones, and a declaring reader is really not run on a refused file;
- a reader's own test (``may_find_steps``, on the file's facts every reader shares: ``_registry.FileFacts``)
  declines only files in which its reading finds no step: hand-made files of each shape it tells apart (and
  near misses), every file above, a folder; each shape gets the same verdicts as running every reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, REAL

from rtlab.ingest.readers import FORMATS, ReadOptions, get_reader
from rtlab.ingest.readers._registry import FileFacts, file_shape, offered
from rtlab.ingest.readers._tolerant import formats_with_steps
from rtlab.io import json_lines_refused

ROOT = Path(__file__).resolve().parent.parent
PROBE = ReadOptions(alternatives=False)
Reader = Callable[[Path, ReadOptions], Any]
DECLARING = [name for name in FORMATS if file_shape(name) is not None]


def _files() -> list[Path]:
    roots = [FIXTURES, ROOT / "data" / "sample", REAL / "wild"]
    found = [p for root in roots if root.is_dir() for p in sorted(root.rglob("*")) if p.is_file()]
    return [p for p in found if p.stat().st_size <= 2_000_000]


FILES = _files()


def _every_reader(path: Path, fmt: str) -> dict[str, int]:
    """What ``formats_with_steps`` answered before shapes: every other reader run on the file."""
    found: dict[str, int] = {}
    for name in FORMATS:
        if name in (fmt, "rtlab"):
            continue
        try:
            got = get_reader(name).read(path, PROBE)
        except Exception:
            continue
        n = sum(t.n_steps for t in got)
        if n:
            found[name] = n
    return dict(sorted(found.items(), key=lambda kv: -kv[1]))


_CODEX_STREAM = [
    {"type": "thread.started", "thread_id": "t1"},
    {
        "type": "item.completed",
        "item": {
            "id": "i1",
            "type": "command_execution",
            "command": "ls",
            "aggregated_output": "a\n",
            "exit_code": 0,
            "status": "completed",
        },
    },
]


def _shaped(tmp: Path) -> dict[str, Path]:
    """Hand-made files of every shape the sniff tells apart."""
    doc = {"schema_version": "x", "steps": [{"id": i, "text": f"line {i}"} for i in range(40)]}
    records = "\n".join(json.dumps(r) for r in _CODEX_STREAM) + "\n"
    files = {
        "document": json.dumps(doc, indent=2),
        "lines": records,
        "text": "".join(f"plain text line {i}\n" for i in range(100)),
        "binary": "\x00\x01\x02" * 50,
        "document-with-a-record-line": '[\n  {"type": "thread.started", "thread_id": "t1"}\n  ,\n'
        + json.dumps(doc, indent=2)
        + "\n]\n",
        "64-stray-then-records": "".join(f"stray {i}\n" for i in range(64)) + records,
        "63-stray-then-records": "".join(f"stray {i}\n" for i in range(63)) + records,
        "empty": "",
    }
    out = {}
    for name, text in files.items():
        p = tmp / f"{name}.json"
        p.write_text(text, encoding="utf-8")
        out[name] = p
    return out


def test_json_lines_refused_by_shape(tmp_path: Path) -> None:
    f = _shaped(tmp_path)
    assert json_lines_refused(f["document"])
    assert json_lines_refused(f["text"])
    assert json_lines_refused(f["binary"])
    assert json_lines_refused(f["64-stray-then-records"])  # the iterator's own rule: 64 lines, no record
    assert not json_lines_refused(f["lines"])
    assert not json_lines_refused(f["63-stray-then-records"])
    assert not json_lines_refused(f["document-with-a-record-line"])  # a record on its own line: offered
    assert not json_lines_refused(f["empty"])  # nothing refused: the readers say "empty" themselves
    assert not json_lines_refused(tmp_path / "missing.jsonl")


def test_the_declaring_readers_are_the_json_lines_ones() -> None:
    assert set(DECLARING) == {
        "codex",
        "g2b",
        "pi",
        "claude-code-stream",
        "claude-code-session",
        "openhands-v1",
    }
    assert all(file_shape(name) == "json-lines" for name in DECLARING)


@pytest.mark.parametrize("name", DECLARING)
def test_a_declaring_reader_finds_nothing_in_a_refused_file(name: str, tmp_path: Path) -> None:
    refused = [p for p in [*FILES, *_shaped(tmp_path).values()] if json_lines_refused(p)]
    assert len(refused) >= 5
    reader = get_reader(name)
    for path in refused:
        try:
            got = reader.read(path, PROBE)
        except Exception:
            continue
        assert sum(t.n_steps for t in got) == 0, path


def test_formats_with_steps_as_every_reader_says(tmp_path: Path) -> None:
    shaped = list(_shaped(tmp_path).values())
    assert formats_with_steps(shaped[1], "rtlab", ReadOptions()) == {"codex": 1}
    differ = []
    for path in [*FILES, *shaped]:
        if formats_with_steps(path, "rtlab", ReadOptions()) != _every_reader(path, "rtlab"):
            differ.append(path)
    assert not differ


def _spy_on_reads(names: Iterable[str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the readers among ``names`` whose ``read`` runs from now on, in order (each still reads)."""
    called: list[str] = []
    for name in names:
        module = get_reader(name)
        original = module.read

        def spy(path: Path, options: ReadOptions, name: str = name, original: Reader = original) -> Any:
            called.append(name)
            return original(path, options)

        monkeypatch.setattr(module, "read", spy)
    return called


def test_a_refused_file_is_not_offered_to_a_declaring_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shaped = _shaped(tmp_path)
    called = _spy_on_reads(DECLARING, monkeypatch)
    assert formats_with_steps(shaped["document"], "atif", ReadOptions()) == {}
    assert called == []
    assert formats_with_steps(shaped["lines"], "atif", ReadOptions()) == {"codex": 1}
    assert sorted(called) == sorted(set(DECLARING) - {"openhands-v1"})  # its test: no history in the lines
    called.clear()
    assert formats_with_steps(tmp_path, "atif", ReadOptions()) == {}  # a folder: every reader offered
    assert sorted(called) == sorted(DECLARING)


# ---------------------------------------------------------------------------------------------------------
# Readers' own tests (``may_find_steps``): a necessary condition of their reading finding a tool call


TESTING = [name for name in FORMATS if hasattr(get_reader(name), "may_find_steps")]


def _load(rel: str) -> Any:
    return json.loads((FIXTURES / rel).read_text(encoding="utf-8"))


def _lines(values: list[Any]) -> str:
    return "".join(json.dumps(v) + "\n" for v in values)


def _tested(tmp: Path) -> dict[str, tuple[Path, str | None]]:
    """Hand-made files of each shape a reader's test tells apart, each with the format whose reader finds
    steps in it (``None``: none of the testing readers should), built from the fixtures: the layouts the
    fixtures do not hold (a bare message list, a retried run's attempts, an event list under each wrapper
    key, an evaluation output, an export or spans a line) and near misses of each."""
    events = _load("openhands/traj_demo-task-image.json")
    mini = _load("mini-swe-agent/calc__calc-7.traj.json")
    swe = _load("swe-agent/0_7_run/a1b2c3.traj")
    otlp = _load("otel/genai-otlp.json")
    atif = _load("atif/harbor_tools.json")
    stream = (FIXTURES / "atif" / "stream.atif.jsonl").read_text(encoding="utf-8")
    flat = [s for r in otlp["resourceSpans"] for sc in r["scopeSpans"] for s in sc["spans"]]
    made: dict[str, tuple[Any, str | None]] = {
        "mini-list.json": (mini["messages"], "mini-swe-agent"),
        "mini-messages-not-a-list.json": ({**mini, "messages": {"0": mini["messages"][0]}}, None),
        "swe-attempts.json": ({"attempts": [swe]}, "swe-agent"),
        "swe-no-trajectory.json": ({k: v for k, v in swe.items() if k != "trajectory"}, None),
        "swe-attempts-not-a-list.json": ({"attempts": {"0": swe}}, None),
        "openhands-trajectory.json": ({"trajectory": events}, "openhands"),
        "openhands-history.json": ({"history": events}, "openhands"),
        "openhands-events.json": ({"events": events}, "openhands"),
        "openhands-history-not-a-list.json": ({"history": {"0": events[0]}}, None),
        "otel-spans.json": ({"spans": flat}, "otel"),
        "otel-flat-list.json": (flat, "otel"),
        "otel-not-spans.json": ({"spans": "none"}, None),
        "atif-array.json": ([atif, atif], "atif"),
        "atif-no-version.json": ({**atif, "schema_version": "v1.5"}, None),
    }
    texts: dict[str, tuple[str, str | None]] = {
        "openhands-eval.jsonl": (_lines([{"instance_id": "i1", "history": events}]), "openhands"),
        "openhands-eval-empty-history.jsonl": (_lines([{"instance_id": "i1", "history": []}]), None),
        "openhands-eval-no-id.jsonl": (_lines([{"instance_id": 1, "history": events}]), None),
        "otel-export-lines.jsonl": (_lines([otlp, otlp]), "otel"),
        "otel-span-lines.jsonl": (_lines(flat), "otel"),
        "otel-span-list-line.jsonl": (_lines([{"note": 1}, flat]), "otel"),
        "otel-foreign-lines.jsonl": (_lines([{"note": 1}, {"spans": 2}]), None),
        "otel-export-pretty.json": (json.dumps(otlp, indent=2), "otel"),
        "atif-lines.jsonl": (_lines([atif, atif]), "atif"),
        "atif-lines-one-unversioned.jsonl": (_lines([{"note": 1}, atif]), None),  # refused whole
        "atif-stream.jsonl": (stream, "atif"),  # a header line, then steps
        "atif-stream-unversioned.jsonl": (stream.replace('"ATIF-', '"v'), None),
        "atif-one-line.json": (json.dumps(atif) + "\n" + json.dumps(atif) + "\n", "atif"),
    }
    out: dict[str, tuple[Path, str | None]] = {}
    for name, (value, fmt) in made.items():
        texts[name] = (json.dumps(value, indent=1), fmt)
    for name, (text, fmt) in texts.items():
        p = tmp / name
        p.write_text(text, encoding="utf-8")
        out[name] = (p, fmt)
    return out


def test_the_testing_readers() -> None:
    assert set(TESTING) == {"atif", "otel", "mini-swe-agent", "swe-agent", "openhands", "openhands-v1"}


def test_a_reader_found_by_its_test_finds_steps_in_each_hand_made_file(tmp_path: Path) -> None:
    for path, fmt in _tested(tmp_path).values():
        found = _every_reader(path, "rtlab")
        for name in TESTING:
            assert (name in found) == (name == fmt), (path.name, name, found)


def test_formats_with_steps_as_every_reader_says_on_each_shape_of_a_test(tmp_path: Path) -> None:
    for path, _ in _tested(tmp_path).values():
        for fmt in ("rtlab", "otel", "openhands", "atif"):
            assert formats_with_steps(path, fmt, ReadOptions()) == _every_reader(path, fmt), (path.name, fmt)


@pytest.mark.parametrize("name", TESTING)
def test_a_reader_its_test_declines_finds_nothing(name: str, tmp_path: Path) -> None:
    """The claim each test makes, checked by running the reader on every file and every hand-made one."""
    declined = 0
    paths = [*FILES, *_shaped(tmp_path).values(), *(p for p, _ in _tested(tmp_path).values()), tmp_path]
    for path in paths:
        if offered(name, FileFacts(path)):
            continue
        declined += 1
        try:
            got = get_reader(name).read(path, PROBE)
        except Exception:
            continue
        assert sum(t.n_steps for t in got) == 0, path
    assert declined >= 5


def test_a_declined_reader_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    called = _spy_on_reads(TESTING, monkeypatch)
    tested = _tested(tmp_path)
    assert formats_with_steps(_shaped(tmp_path)["document"], "atif", ReadOptions()) == {}
    assert called == []  # a document none of them reads: one parse shared, no reader run
    assert formats_with_steps(tested["openhands-history.json"][0], "atif", ReadOptions()) == {"openhands": 6}
    assert called == ["openhands"]
