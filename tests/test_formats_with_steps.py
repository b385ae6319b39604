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

from rtlab.errors import ReaderError
from rtlab.ingest.readers import FORMATS, ReadOptions, get_reader
from rtlab.ingest.readers._registry import FileFacts, file_shape, offered
from rtlab.ingest.readers._tolerant import formats_with_steps
from rtlab.io import iter_json_lines, json_lines_refused

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
    assert called == ["codex"]  # the others' tests: no history, no tool_output, no session header, no message
    called.clear()
    assert formats_with_steps(tmp_path, "atif", ReadOptions()) == {}  # a folder: every reader offered
    assert sorted(called) == sorted(DECLARING)


# ---------------------------------------------------------------------------------------------------------
# Readers' own tests (``may_find_steps``): a necessary condition of their reading finding a tool call


TESTING = [name for name in FORMATS if hasattr(get_reader(name), "may_find_steps")]
DOCUMENT_TESTS = ("atif", "otel", "mini-swe-agent", "swe-agent", "openhands", "openhands-v1")
"""The tests told apart by the hand-made files of :func:`_tested` (each file's steps found by one of them);
the others' by :func:`_near_misses`."""


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
    assert set(TESTING) == set(FORMATS) - {"rtlab"}  # every reader detection may offer a file declares one


def test_a_reader_found_by_its_test_finds_steps_in_each_hand_made_file(tmp_path: Path) -> None:
    for path, fmt in _tested(tmp_path).values():
        found = _every_reader(path, "rtlab")
        for name in DOCUMENT_TESTS:
            assert (name in found) == (name == fmt), (path.name, name, found)


def test_formats_with_steps_as_every_reader_says_on_each_shape_of_a_test(tmp_path: Path) -> None:
    for path, _ in _tested(tmp_path).values():
        for fmt in ("rtlab", "otel", "openhands", "atif"):
            assert formats_with_steps(path, fmt, ReadOptions()) == _every_reader(path, fmt), (path.name, fmt)


@pytest.mark.parametrize("name", TESTING)
def test_a_reader_its_test_declines_finds_nothing(name: str, tmp_path: Path) -> None:
    """The claim each test makes, checked by running the reader on every file and every hand-made one."""
    declined = 0
    near = (p for p, _, _ in _near_misses(tmp_path).values())
    paths = [
        *FILES,
        *_shaped(tmp_path).values(),
        *(p for p, _ in _tested(tmp_path).values()),
        *near,
        *_odd(tmp_path),
        tmp_path,
    ]
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


# ---------------------------------------------------------------------------------------------------------
# json_lines_refused told line by line without the iterator's errors: the same verdict as running it


def _refused_by_the_iterator(path: Path) -> bool:
    """The definition: the tolerant iterator raises before it gives a record (an unreadable file: ``False``)."""
    try:
        for _, value in iter_json_lines(path, []):
            if isinstance(value, dict | list):
                return False
    except ReaderError:
        return True
    except OSError:
        return False
    return False


_LINES = [
    "{",
    "}",
    "},",
    "[",
    "],",
    '"key": 1,',
    '"key": [',
    '"key": {"a": [1, 2]},',
    '"last": "value"',
    ": 1",
    ", 2",
    "1",
    "-2.5",
    "true",
    "null",
    "NaN",
    '"a string"',
    "stray text on stderr",
    '{"k": 1}',
    "[1, 2]",
    '{"k": "bad \\q escape"}',
    '"bad \\q",',
    '{"k": "\\ud800"}',
    "\u00a0{}",
    "{}\u00a0",
    "{}\u2028,",
    "\ufeff{}",
    "   ",
    "\r",
    "1e400",
    "[" * 40 + ",",
    "[" * 31 + ",",
    "[" * 3000 + ",",
    "[" * 3000 + "]" * 3000,
    '{"a":' * 2000 + "1" + "}" * 2000,
    '{"a":' * 40 + ",",
    '"esc\\"aped": [1]',
    '"k" : ' + "[" * 3000,
    '"not a key" "x"',
]


_NO_RECORD = [line for line in _LINES if not line.lstrip("\ufeff\u00a0").startswith(("{", "["))]


def test_json_lines_refused_is_the_iterator_s_verdict(tmp_path: Path) -> None:
    """On every file above, and on seeded files of lines no JSON value, scalars, records, bad escapes, deep
    nesting, whitespace JSON does not allow and bytes that are not UTF-8 (before, among and after 64 lines)."""
    import random

    rng = random.Random(29)
    made: list[Path] = []
    for i in range(400):
        lines = [rng.choice(_LINES) for _ in range(rng.choice([0, 1, 5, 63, 64, 65, 90]))]
        if rng.random() < 0.3:
            lines = [rng.choice(_LINES[:11]) for _ in range(rng.choice([62, 63, 64, 65]))] + lines
        elif rng.random() < 0.3:  # no record: a scalar decides (a file of faults alone is refused at its end)
            lines = [rng.choice(_NO_RECORD) for _ in range(rng.choice([1, 2, 5, 70]))]
        data = "\n".join(lines).encode("utf-8", "surrogatepass")
        if rng.random() < 0.1:
            data = b"\xef\xbb\xbf" + data
        if rng.random() < 0.1:
            data = data.replace(b"1", b"\xff", 1)
        if rng.random() < 0.05:
            data = b"\x00" * 40 + data
        p = tmp_path / f"made-{i}.json"
        p.write_bytes(data)
        made.append(p)
    paths = [*FILES, *_shaped(tmp_path).values(), *made, tmp_path, tmp_path / "missing.jsonl"]
    verdicts = [json_lines_refused(p) for p in paths]
    assert verdicts == [_refused_by_the_iterator(p) for p in paths]
    assert 50 < sum(verdicts[-len(made) - 2 :]) < len(made) - 50  # both verdicts, many times each


# ---------------------------------------------------------------------------------------------------------
# The other readers' tests: a hand-made file each finds steps in, and near misses its test declines


def _text(rel: str) -> str:
    return (FIXTURES / rel).read_text(encoding="utf-8")


def _json_lines(rel: str) -> list[Any]:
    return [json.loads(line) for line in _text(rel).splitlines() if line.strip()]


def _inspect_json_log() -> dict[str, Any]:
    """The fixture ``.eval`` as a JSON log: its header's fields, its samples in a list."""
    from rtlab.ingest.readers._zip import ZipArchive

    with ZipArchive(FIXTURES / "inspect" / "rich.eval") as z:  # zstd members: rtlab's own unzip
        header = json.loads(z.read("header.json"))
        samples = [json.loads(z.read(n)) for n in z.names if n.startswith("samples/")]
    return {**header, "samples": samples}


def _near_misses(tmp: Path) -> dict[str, tuple[Path, str, bool]]:
    """``name: (file, reader, found)``: a file the reader finds steps in (``True``: its test must offer it to
    the reader) or a near miss of one (``False``: its test must decline it, and the reader indeed finds
    nothing there: :func:`test_a_reader_its_test_declines_finds_nothing`)."""
    codex = _text("codex/all_items.jsonl")
    g2b = _text("g2b/traces/demo__oqa-8_s0/exec_r0.jsonl")
    pi = _json_lines("pi/session-v3.jsonl")
    stream = _json_lines("claude-code/agent_log_raw.txt")
    session_file = next((FIXTURES / "claude-code" / "project").glob("*.jsonl"))
    session = _json_lines(str(session_file.relative_to(FIXTURES)))
    gemini_doc = _load("gemini-cli/session-2025-08-14T15-20-0b7d2e44.json")
    gemini_lines = _text("gemini-cli/session-2026-03-02T09-00-5e0c1f2a.jsonl")
    gemini_stream = _json_lines("gemini-cli/stream-json.jsonl")
    cline = _load("cline/1733010000000/api_conversation_history.json")
    opencode = _load("opencode/session__ses_4a1f09c2effeQ7x2Lm9TzKpB3w.json")
    dci = _load("dci/20260210-141503/conversation_full.json")
    chat = _load("openai/chat_explore.json")
    chat_lines = _text("openai/chat_messages.jsonl")
    responses = _load("openai/responses_run.json")
    responses_lines = _text("openai/responses_items.jsonl")
    rollout = _text("codex-rollout/rollout-2025-08-18T01-16-13-c3c4b301-27c8-4c70-b6e4-46b99fdf0236.jsonl")
    aider = _text("aider/.aider.chat.history.md")
    cast = _text("asciicast/terminus-v2.cast")
    inspect_log = _inspect_json_log()
    texts: dict[str, tuple[str, str, bool]] = {
        "codex.jsonl": (codex, "codex", True),
        "codex-no-item.jsonl": (codex.replace('"item.', '"thing.'), "codex", False),
        "g2b.jsonl": (g2b, "g2b", True),
        "g2b-calls-only.jsonl": (g2b.replace('"tool_output"', '"tool_said"'), "g2b", False),
        "pi.jsonl": (_lines(pi), "pi", True),
        "pi-header-second.jsonl": (_lines([pi[1], pi[0], *pi[2:]]), "pi", False),
        "stream.jsonl": (_lines(stream), "claude-code-stream", True),
        "stream-no-assistant.jsonl": (
            _lines([r for r in stream if r.get("type") != "assistant"]),
            "claude-code-stream",
            False,
        ),
        "session.jsonl": (_lines(session), "claude-code-session", True),
        "session-no-message.jsonl": (
            _lines([{**r, "type": "note"} if r.get("type") in ("user", "assistant") else r for r in session]),
            "claude-code-session",
            False,
        ),
        "gemini.json": (json.dumps(gemini_doc, indent=2), "gemini-cli", True),
        "gemini-no-messages.json": (
            json.dumps({**gemini_doc, "messages": {"0": gemini_doc["messages"][0]}}, indent=2),
            "gemini-cli",
            False,
        ),
        "gemini.jsonl": (gemini_lines, "gemini-cli", True),
        "gemini-stream.jsonl": (_lines(gemini_stream), "gemini-cli", True),
        "gemini-stream-no-call.jsonl": (
            _lines([e for e in gemini_stream if e.get("type") != "tool_use"]),
            "gemini-cli",
            False,
        ),
        "cline.json": (json.dumps(cline, indent=2), "cline", True),
        "cline-no-role.json": (
            json.dumps([{"speaker": m["role"], "content": m["content"]} for m in cline], indent=2),
            "cline",
            False,
        ),
        "opencode.json": (json.dumps(opencode, indent=2), "opencode", True),
        "opencode-no-parts.json": (
            json.dumps({**opencode, "messages": [{**m, "parts": None} for m in opencode["messages"]]}),
            "opencode",
            False,
        ),
        "opencode-messages-not-a-list.json": (
            json.dumps({**opencode, "messages": {"0": opencode["messages"][0]}}, indent=2),
            "opencode",
            False,
        ),
        "dci.json": (json.dumps(dci, indent=2), "dci", True),
        "dci-no-result.json": (
            json.dumps({**dci, "messages": [m for m in dci["messages"] if m.get("role") != "toolResult"]}),
            "dci",
            False,
        ),
        "dci-no-messages.json": (
            json.dumps({k: v for k, v in dci.items() if k != "messages"}, indent=2),
            "dci",
            False,
        ),
        "inspect.json": (json.dumps(inspect_log, indent=2), "inspect", True),
        "inspect-no-sample-object.json": (
            json.dumps({**inspect_log, "samples": [1, "two"]}, indent=2),
            "inspect",
            False,
        ),
        "chat.json": (json.dumps(chat, indent=2), "openai-chat", True),
        "chat-list.json": (json.dumps(chat["messages"], indent=2), "openai-chat", True),
        "chat.jsonl": (chat_lines, "openai-chat", True),
        "chat-no-result.json": (
            json.dumps({**chat, "messages": [m for m in chat["messages"] if m.get("role") != "tool"]}),
            "openai-chat",
            False,
        ),
        "chat-conversations.jsonl": (_text("openai/chat_conversations.jsonl"), "openai-chat", True),
        "chat-no-role.jsonl": (chat_lines.replace('"role"', '"speaker"'), "openai-chat", False),
        "chat-no-role.json": (
            json.dumps([{"speaker": m.get("role")} for m in chat["messages"]], indent=2),
            "openai-chat",
            False,
        ),
        "responses.json": (json.dumps(responses, indent=2), "openai-responses", True),
        "responses.jsonl": (responses_lines, "openai-responses", True),
        "responses-no-items.json": (
            json.dumps({k: v for k, v in responses.items() if k not in ("input", "output")}, indent=2),
            "openai-responses",
            False,
        ),
        "rollout.jsonl": (rollout, "codex-rollout", True),
        "rollout-escaped-keys.jsonl": (
            rollout.replace('"type"', '"\\u0074ype"').replace('"record_type"', '"record_\\u0074ype"'),
            "codex-rollout",
            True,
        ),
        "rollout-no-keys.jsonl": (
            rollout.replace('"type"', '"kind"').replace('"record_type"', '"kind"'),
            "codex-rollout",
            False,
        ),
        "aider.md": (aider, "aider", True),
        "aider-no-header.md": (
            aider.replace("# aider chat started at", "# aider chat begun at"),
            "aider",
            False,
        ),
        "cast.cast": (cast, "asciicast", True),
        "cast-blank-lines-first.cast": ("\ufeff \n\u2028\n\t\n" + cast, "asciicast", True),
        "cast-text-first.cast": ("recording:\n" + cast, "asciicast", False),
    }
    out: dict[str, tuple[Path, str, bool]] = {}
    for name, (text, reader, found) in texts.items():
        p = tmp / name
        p.write_text(text, encoding="utf-8")
        out[name] = (p, reader, found)
    return out


def test_each_reader_s_test_on_its_hand_made_files(tmp_path: Path) -> None:
    """A file the reader finds steps in is offered to it; a near miss is declined, and the reader finds nothing
    in it (the claim, checked by running the reader)."""
    made = _near_misses(tmp_path)
    assert {reader for _, reader, _ in made.values()} == set(TESTING) - set(DOCUMENT_TESTS)
    for name, (path, reader, found) in made.items():
        n = sum(t.n_steps for t in _read_or_nothing(reader, path))
        assert (n > 0) == found, (name, n)
        assert offered(reader, FileFacts(path)) == found, name


def _read_or_nothing(name: str, path: Path) -> list[Any]:
    try:
        return get_reader(name).read(path, PROBE)
    except Exception:
        return []


def test_formats_with_steps_as_every_reader_says_on_the_hand_made_files(tmp_path: Path) -> None:
    for path, _, _ in _near_misses(tmp_path).values():
        for fmt in ("rtlab", "atif"):
            assert formats_with_steps(path, fmt, ReadOptions()) == _every_reader(path, fmt), (path.name, fmt)


_KEYS = (
    "type", "event", "role", "id", "$set", "$rewindTo", "messages", "samples", "parts", "info", "input", "output",
    "payload", "record_type", "schema_version", "trajectory", "attempts", "history", "events", "spans",
    "resourceSpans", "version", "width", "height", "term", "sessionId", "projectHash", "session_id", "model",
    "instance_id", "content", "tool_call_id", "name",
)  # fmt: skip
_ODD = ({}, [], [{}], {"a": 1}, [1, "x"], 1, 2.5, None, True, "x", "tool", "assistant", "session", "tool_use")


def _odd(tmp: Path) -> list[Path]:
    """Files whose records hold every key the readers' tests look at with values of every JSON type
    (unhashable ones where a string is expected): the tests must decide on them, never fail."""
    records = [{key: value} for key in _KEYS for value in _ODD]
    records += [{**r, "role": "tool", "type": "assistant"} for r in records[:40]]
    shapes = {
        "odd.jsonl": _lines([*records, [1], "x", 3]),
        "odd-first.jsonl": _lines([{"type": {"a": 1}}, *records[:30]]),
        "odd-doc.json": json.dumps({key: value for key, value in zip(_KEYS, [*_ODD, *_ODD], strict=False)}),
        "odd-list.json": json.dumps(records, indent=1),
        "odd-messages.json": json.dumps(
            {"messages": records, "samples": records, "input": records}, indent=1
        ),
    }
    out = []
    for name, text in shapes.items():
        p = tmp / name
        p.write_text(text, encoding="utf-8")
        out.append(p)
    return out


def test_every_reader_s_test_decides_on_odd_values(tmp_path: Path) -> None:
    """A test that met a value of an unexpected type (a list where a string was looked for) would raise; where
    one did, detection would run the reader (``_tolerant._offered``), but no test may."""
    for path in _odd(tmp_path):
        facts = FileFacts(path)
        for name in TESTING:
            assert isinstance(offered(name, facts), bool), (name, path.name)
        assert formats_with_steps(path, "rtlab", ReadOptions()) == _every_reader(path, "rtlab"), path.name
