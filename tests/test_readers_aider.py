"""The Aider chat-history reader: a hand-made history of two sessions (every kind of step, read exactly), the
two trailing spaces that tell Aider's lines from the model's Markdown, tolerance of damaged files, and the three
real histories of ``wild/aider`` counted from their raw lines."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import warnings_of, wild_folder
from hypothesis import given, settings
from hypothesis import strategies as st

from rtlab.cli import main
from rtlab.environment import replay
from rtlab.errors import ReaderError
from rtlab.ingest.readers import ReadOptions, aider, detect
from rtlab.records import trajectory_from_dict, trajectory_to_dict

HISTORY = Path("aider") / ".aider.chat.history.md"


def read_all(path: Path):
    return aider.read(path, ReadOptions())


@pytest.fixture(scope="module")
def sessions(fixtures: Path):
    return read_all(fixtures / HISTORY)


def summary(t) -> list[tuple]:
    return [(s.tool, s.command, s.answered, s.is_error) for s in t.steps]


def test_detected_by_content_under_any_name(fixtures: Path, tmp_path: Path) -> None:
    assert detect(fixtures / HISTORY) == "aider"
    for name in ("history.md", "x.txt", "x"):
        shutil.copy(fixtures / HISTORY, tmp_path / name)
        assert detect(tmp_path / name) == "aider", name


def test_markdown_that_is_not_a_history_is_not_claimed(tmp_path: Path) -> None:
    doc = tmp_path / "README.md"
    doc.write_text("# My project\n\n> a quote  \n#### a heading  \n", encoding="utf-8")
    assert not aider.sniff(doc)
    # a page that quotes a transcript further down is documentation, not a history
    doc.write_text(
        "# Using aider\n\nA transcript:\n\n# aider chat started at 2024-01-01 10:00:00\n\n#### hi  \n",
        encoding="utf-8",
    )
    assert not aider.sniff(doc)
    assert detect(doc) is None


def test_one_trajectory_per_session(sessions) -> None:
    assert [t.id for t in sessions] == [
        "aider:aider/.aider.chat.history.md#1",
        "aider:aider/.aider.chat.history.md#2",
    ]
    t = sessions[0]
    assert (t.format, t.harness, t.harness_version, t.model, t.started_at) == (
        "aider",
        "aider",
        "0.86.1",
        "gpt-4o",
        "2025-03-01T10:00:00",
    )
    assert t.instruction == "Add a /health endpoint to app.py\nand keep the tests passing"
    assert (
        t.deliverable.final_message
        == "The failure is in `utils.py`: `parse()` returns `None` for an empty string."
    )
    # Aider's rounded token counts summed; the cost is the session's running total
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.cost_usd) == (
        2100 + 3000 + 3400 + 3900,
        257,
        0.022,
    )
    assert t.meta["edit_format"] == "diff" and t.meta["n_requests"] == 4 and t.meta["commits"] == ["3f9c2ab"]
    assert "warnings" not in t.meta
    assert sessions[1].started_at == "2025-03-02T09:00:00" and sessions[1].meta["session"] == 2


def test_steps_of_the_first_session(sessions) -> None:
    t = sessions[0]
    assert summary(t) == [
        ("add", "read app.py", True, False),  # announced at start, shown with the first request
        ("read-only", "read README.md", True, False),  # shown at the first request, dropped later
        ("edit", 'edit {"path":"app.py"}', True, False),
        ("shell", "pytest -q", True, False),  # suggested by the model, run, output added
        ("shell", "python -m flake8 app.py", True, False),
        ("run", "ls", False, False),  # output declined: the model never saw it
        ("run", "cat setup.cfg", True, False),
        ("add", "read tests/test_app.py", True, False),  # /add
        ("add", "read utils.py", True, False),  # the user named it; added on confirmation
        ("edit", 'edit {"path":"tests/test_app.py"}', True, True),  # failed: its error sent back
        ("test", "pytest -q", True, True),  # /test adds a failing command's output
    ]
    assert t.n_steps == 10
    kinds = [(s.action.kind, s.action.path or s.action.command) for s in t.steps]
    assert kinds[:4] == [
        ("read", "app.py"),
        ("read", "README.md"),
        ("edit", "app.py"),
        ("shell", "pytest -q"),
    ]
    assert [s.args.get("via") for s in t.steps] == [
        "start", "start", None, "suggested", "suggested", "/run", "/run", "/add", "mention", None, "/test"
    ]  # fmt: skip
    assert t.steps[6].args["lines_added"] == 12 and t.steps[10].args["lines_added"] == 9
    assert t.steps[4].args["lines_added"] == 7  # the block's output, counted once
    assert t.steps[2].args["commit"] == "3f9c2ab"
    # what the log holds of each result: nothing of files and command output; Aider's line for an edit
    assert {
        s.output for s in t.steps if s.tool in ("add", "read-only", "run", "shell", "test") and s.answered
    } == {""}
    edit = t.steps[2]
    assert (edit.output, edit.shown) == ("Applied edit to app.py", "Applied edit to app.py")
    assert [(f.start, f.end, f.kind) for f in edit.frames] == [(0, len(edit.output), "frame")]
    failed = t.steps[9]
    assert failed.output.startswith(
        "# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch"
    )
    assert failed.output.endswith("including all white space, comments, indentation, docstrings, etc")
    assert failed.frames == ()  # the error is what the model was shown
    assert [s.seq for s in t.steps] == sorted(s.seq for s in t.steps)


def test_steps_of_the_second_session_end_unanswered(sessions) -> None:
    # the session ends without another request: the new file and the command output never reached the model
    t = sessions[1]
    assert summary(t) == [
        ("add", "read app.py", True, False),
        ("write", 'write {"path":"docs/notes.md"}', False, False),  # a new file: written whole
        ("run", "make docs", False, False),
    ]
    assert t.steps[2].args["lines_added"] == 3


def test_events_tell_aiders_lines_from_the_models_markdown(sessions) -> None:
    t = sessions[0]
    users = [e.text for e in t.events if e.kind == "message" and e.role == "user"]
    assert users[0] == "Add a /health endpoint to app.py\nand keep the tests passing"
    assert "What changes" not in " ".join(users)  # the reply's "#### What changes" heading is the model's
    replies = [e.text for e in t.events if e.kind == "message" and e.role == "assistant"]
    assert replies[0].startswith(
        "Here is the change.\n\n#### What changes\n> The old route stays.\n\napp.py\n```"
    )
    assert [e.text for e in t.events if e.kind == "reasoning"] == ["I need to edit app.py and run the tests."]
    questions = [
        (e.data["question"], e.data["answer"], e.data.get("subject"))
        for e in t.events
        if e.data.get("type") == "question"
    ]  # noqa: E501
    assert questions[0] == ("Run shell commands?", "y", "pytest -q\npython -m flake8 app.py")
    assert ("Add file to the chat?", "y", "utils.py") in questions
    seqs = [x.seq for x in [*t.steps, *t.events]]
    assert sorted(seqs) == list(range(len(seqs)))


def test_round_trip_and_replay(sessions) -> None:
    for t in sessions:
        assert trajectory_from_dict(trajectory_to_dict(t)) == t
    t = sessions[0]
    r = replay(t)
    assert [rec.step for rec in r.records] == [s.index for s in t.steps]
    assert r.tab.read_log == []  # no file text is in the log: nothing read into the tab, nothing invented


def test_an_older_aiders_questions(tmp_path: Path) -> None:
    # before v0.5x confirm_ask wrote "QUESTION ANSWER", and asked for each file the model named by its name
    path = tmp_path / "old.md"
    path.write_text(
        "\n# aider chat started at 2023-08-01 12:00:00\n\n> Aider v0.12.0  \n> Model: gpt-4  \n\n"
        "#### fix the bug in calc.py  \n\nThe bug is in calc.py.\n\n> Add calc.py to the chat? y  \n\n"
        "calc.py\n```\nprint(1)\n```\n\n> Applied edit to calc.py  \n\n#### /run python calc.py  \n"
        "> Add the output to the chat? y  \n\n#### thanks  \n\nDone.\n",
        encoding="utf-8",
    )
    (t,) = aider.read(path, ReadOptions())
    assert summary(t) == [
        ("add", "read calc.py", True, False),
        ("edit", 'edit {"path":"calc.py"}', True, False),
        ("run", "python calc.py", True, False),
    ]
    assert (t.harness_version, t.model) == ("0.12.0", "gpt-4")


# ---------------------------------------------------------------------------------------------------------
# Tolerance


def test_stripped_trailing_spaces_are_read_line_by_line(fixtures: Path, tmp_path: Path) -> None:
    text = (fixtures / HISTORY).read_text(encoding="utf-8")
    stripped = tmp_path / "h.md"
    stripped.write_text("\n".join(ln.rstrip() for ln in text.split("\n")), encoding="utf-8")
    ts = read_all(stripped)
    assert len(ts) == 2
    assert warnings_of(ts[0]) == [
        f"{stripped}: no line ends in Aider's two spaces (stripped?): Aider's notes of several lines are read "
        "line by line"
    ]
    # the steps that do not rest on a note of several lines are all still there
    assert [s.tool for s in ts[0].steps][:3] == ["add", "read-only", "edit"]
    assert ts[1].n_steps == 1


def test_text_before_the_first_header_is_a_session_with_a_warning(fixtures: Path, tmp_path: Path) -> None:
    text = (fixtures / HISTORY).read_text(encoding="utf-8")
    cut = text[text.index("#### /run ls") :]  # a history whose top was cut off
    path = tmp_path / "cut.md"
    path.write_text(cut, encoding="utf-8")
    ts = aider.read(path, ReadOptions())
    assert ts[0].started_at is None and warnings_of(ts[0]) == [
        f"{path}:1: text before the first session header; read as a session of its own"
    ]
    with pytest.raises(ReaderError, match=re.escape(f"{path}:1: text before the first session header")):
        aider.read(path, ReadOptions(strict=True))
    assert [s.command for s in ts[0].steps] == ["ls", "cat setup.cfg", "read tests/test_app.py", "read utils.py",
                                                'edit {"path":"tests/test_app.py"}', "pytest -q"]  # fmt: skip


def test_a_file_with_no_session_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nnothing here\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="no Aider session header"):
        aider.read(path, ReadOptions())


def test_bytes_that_are_not_utf8_are_replaced_with_a_warning(fixtures: Path, tmp_path: Path) -> None:
    data = (fixtures / HISTORY).read_bytes().replace(b"misspelt", b"missp\xffelt")
    path = tmp_path / "h.md"
    path.write_bytes(data)
    ts = aider.read(path, ReadOptions())
    line = data[: data.index(b"\xff")].count(b"\n") + 1
    offset = data.index(b"\xff")
    assert warnings_of(ts[0]) == [
        f"{path}:{line}: not valid UTF-8 (byte offset {offset}); repaired: the bytes replaced by U+FFFD"
    ]
    assert [w.kind for w in ts[0].warnings] == ["repaired"]
    assert summary(ts[0]) == summary(read_all(fixtures / HISTORY)[0])
    with pytest.raises(ReaderError, match=re.escape(f"{path}:{line}: not valid UTF-8")):
        aider.read(path, ReadOptions(strict=True))  # --strict: the repair is refused


# ---------------------------------------------------------------------------------------------------------
# The real histories


REAL = {
    "mozgoslav__.aider.chat.history.md": [0, 5, 13],
    "rfp-response-platform__.aider.chat.history.md": [0, 7],
    "supplychaintracker2__.aider.chat.history.md": [0, 0, 0, 0, 0, 4, 2, 0, 0, 0, 0, 2, 2, 1, 3, 1, 12],
}
"""Answered steps per session, as :func:`_raw_answered` counts them."""


@pytest.fixture(scope="module")
def wild(real: Path) -> Path:
    return wild_folder(real, "aider")


_ADD = re.compile(
    r"^> Added (?!\d+ lines? of output)(.+?) to (?:the chat(?: \(read-only\))?|read-only files)\.?  $"
)
_ASK_FILE = re.compile(r"^> Add file to the chat\? .*\]: [ya]  $")
_OUTPUT_YES = re.compile(r"^> Add .*output to the chat\? .*\]: y  $")


def _raw_answered(text: str) -> list[int]:
    """Per session, from the raw lines: the results that joined the chat before a later request (a
    ``Tokens:`` line, or a line of the model's reply: not blank, not quoted, not typed, not the rest of a quoted
    note of several lines): files added (each once), applied edits, failed edits not given up on, command
    output added."""
    counts = []
    for session in re.split(r"^# aider chat started at .*$", text, flags=re.M)[1:]:
        lines = session.split("\n")
        waiting: list[str] = []
        seen: set[str] = set()
        n = 0
        in_note = False  # inside a quoted note of several lines (its last line ends in two spaces)
        running, testing = 0, False
        for i, ln in enumerate(lines):
            if in_note:
                in_note = not ln.endswith("  ")
                continue
            if ln.startswith("> ") and not ln.endswith("  "):
                in_note = True
            reply = ln.strip() and not ln.startswith((">", "####"))
            if ln.startswith("> Tokens: ") or reply:
                n += len(waiting)
                waiting = []
            elif (m := _ADD.match(ln)) and m.group(1) not in seen:
                seen.add(m.group(1))
                waiting.append("read")
            elif _ASK_FILE.match(ln):
                # the subject: the quoted line before, past the blank line and the echo of a group's answer
                k = i - 1
                while not lines[k].strip() or lines[k].startswith("#### "):
                    k -= 1
                if lines[k][2:-2] not in seen:
                    seen.add(lines[k][2:-2])
                    waiting.append("read")
            elif ln.startswith("> Applied edit to "):
                waiting.append("edit")
            elif ln.startswith("> The LLM did not conform to the edit format."):
                waiting.append("failed")
            elif ln.startswith("> Only 3 reflections allowed"):
                waiting = [w for w in waiting if w != "failed"]
            elif ln.startswith("> Running "):
                running += 1
            elif _OUTPUT_YES.match(ln):
                waiting += ["output"] * max(running, 1)  # each command of a suggested block, or the /run
                running = 0
            elif ln.startswith("#### /test "):
                testing = True
            elif testing and re.match(r"^> Added \d+ lines? of output to the chat\.  $", ln):
                waiting.append("output")
            if ln.startswith("#### ") and not ln.startswith("#### /test "):
                testing = False
        counts.append(n)
    return counts


def test_the_raw_count_agrees_on_the_fixture(fixtures: Path) -> None:
    assert _raw_answered((fixtures / HISTORY).read_text(encoding="utf-8")) == [10, 1]


def test_real_histories_counted_from_their_raw_lines(wild: Path) -> None:
    assert sorted(p.name for p in wild.iterdir()) == sorted(REAL)
    for name, expected in REAL.items():
        path = wild / name
        assert detect(path) == "aider", name
        ts = aider.read(path, ReadOptions())
        raw = _raw_answered(path.read_text(encoding="utf-8"))
        assert [t.n_steps for t in ts] == raw == expected, name
        assert [warnings_of(t) for t in ts] == [[]] * len(ts), name
        for t in ts:
            assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_real_histories_replay_through_the_cli(wild: Path, capsys) -> None:
    for name in REAL:
        assert main(["replay", str(wild / name)]) == 0, name
    capsys.readouterr()


_OLD_REASONING = re.compile(r"<(thinking-content-[0-9a-f]+|think|thinking|reasoning)>(.*?)(?:</\1>|\Z)", re.S)
"""The rule as one regex (what the reader did before it split the work): the reference."""


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "<think>",
                "</think>",
                "<thinking>",
                "</thinking>",
                "<reasoning>",
                "</reasoning>",
                "<thinking-content-3f>",
                "</thinking-content-3f>",
                "<thinking-content-zz>",
                "<thin",
                ">",
                "</",
                "a",
                "b c\n",
                "<",
                "<THINK>",
            ]  # fmt: skip
        ),
        max_size=14,
    ).map("".join)
)
def test_reasoning_blocks_as_the_regex_finds_them(text: str) -> None:
    bodies: list[str] = []
    rest = "".join(aider._without_reasoning(text, bodies.append))
    assert bodies == [m.group(2) for m in _OLD_REASONING.finditer(text)]
    assert rest == _OLD_REASONING.sub("", text)


def test_a_session_header_is_found_as_a_multiline_search_finds_it() -> None:
    """The header found by its words where it opens a line is the one ``re.search`` of ``^...$`` in
    multi-line mode finds (random heads of headers, near misses, blank lines and text)."""
    import random
    import re

    from rtlab.ingest.readers.aider import _session_start

    rng = random.Random(29)
    pieces = ["# aider chat started at 2024-01-02 03:04:05", "# aider chat started at 2024-01-02 03:04:0",
              "\n", "\n\n", " ", "\t", "\r", "x", "#"]  # fmt: skip
    pattern = re.compile(r"^# aider chat started at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\s*$", re.M)
    found = 0
    for _ in range(20000):
        head = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        expected = pattern.search(head)
        got = _session_start(head)
        assert (got and got.span()) == (expected and expected.span()), head
        found += expected is not None
    assert found > 1000


def test_every_notice_the_session_reads_opens_with_a_letter_it_tells_at_once() -> None:
    """``_Session.tool`` passes a line whose first letter opens none of its notices (and that asks nothing)
    straight to the failed-edit check: every notice it reads, each pattern, constant and literal its source
    names, must open with a letter of ``_NOTICE_FIRST`` (a notice added without its letter would be skipped)."""
    import inspect
    import re

    from rtlab.ingest.readers import aider

    source = inspect.getsource(aider._Session.tool)
    asking = {"_CONFIRM", "_OLD_CONFIRM"}  # questions: they hold a '?', which is always read in full
    names = set(re.findall(r"\b(_[A-Z][A-Z_]+)\b", source)) - asking - {"_NOTICE_FIRST"}
    openings: dict[str, str] = {}
    for name in sorted(names):
        value = getattr(aider, name)
        if isinstance(value, re.Pattern):
            body = value.pattern.removeprefix("^")
            alternatives = body[3 : body.index(")")].split("|") if body.startswith("(?:") else [body]
            for alt in alternatives:
                openings[f"{name}: {alt[:20]}"] = alt[:1]
        elif isinstance(value, str):
            openings[name] = value[:1]
    for literal in re.findall(r'text(?: == |\.startswith\()"([^"]+)"', source):
        if literal != "https://":  # the failed-edit check's own exception, after the early exit
            openings[literal] = literal[:1]
    assert len(openings) >= 15  # the patterns and literals read
    assert all(first.isalpha() for first in openings.values()), openings  # each read as a plain letter
    assert {k: v for k, v in openings.items() if v not in aider._NOTICE_FIRST} == {}
