"""The asciinema cast reader: the screen model on its own, two hand-made casts (a v2 Terminal-Bench pane with
recorded keystrokes and bracketed-paste prompts; a v3 recording of output only), tolerance of damaged lines,
and the two real casts of ``wild/terminal-bench-cast`` counted from their raw events."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import warnings_of, wild_folder

from rtlab.cli import main
from rtlab.environment import replay
from rtlab.errors import ReaderError
from rtlab.ingest.readers import ReadOptions, asciicast, detect
from rtlab.ingest.readers._terminal import Mark, Screen
from rtlab.records import trajectory_from_dict, trajectory_to_dict

V2 = Path("asciicast") / "terminus-v2.cast"
V3 = Path("asciicast") / "shell-v3.cast"


def read_one(path: Path):
    (t,) = asciicast.read(path, ReadOptions())
    return t


def shown(data: str, width: int = 20, height: int = 5) -> str:
    s = Screen(width, height)
    s.feed(data)
    return s.text(Mark(0, 0), Mark(s.main.row + 1, 0)).rstrip("\n")


# ---------------------------------------------------------------------------------------------------------
# The screen model


def test_screen_interprets_returns_erases_and_colours() -> None:
    assert shown("10%\r60%\r100%\r\nok") == "100%\nok"
    assert shown("abcdef\r\x1b[Kxy") == "xy"
    assert shown("abc\b\bZ") == "aZc"
    assert shown("\x1b[1;31mred\x1b[0m \x1b]0;title\x07done") == "red done"
    assert shown("one\r\ntwo\r\n\x1b[H\x1b[J\x1b[3Jthree") == "three"  # a cleared screen shows nothing before
    assert shown("a" * 25) == "a" * 25  # an autowrapped row joins the next
    assert shown("x\x1b[?1049h\x1b[Hfull screen\x1b[?1049ly") == "xy"  # the alternate screen leaves nothing


def test_screen_waits_for_an_escape_cut_between_events() -> None:
    s = Screen(20, 5)
    s.feed("ab\x1b[")
    s.feed("2Kc")
    assert s.text(Mark(0, 0), s.mark()) == "  c"  # the line erased, "c" written where the cursor stood


def test_screen_reports_bracketed_paste_switches() -> None:
    seen: list[tuple[str, int, int]] = []
    s = Screen(40, 5, on_mode=lambda mode, m: seen.append((mode, m.row, m.col)))
    s.feed("\x1b[?2004h$ ls\r\n\x1b[?2004l\rfile\r\n")
    assert seen == [("2004h", 0, 0), ("2004l", 1, 0)]


# ---------------------------------------------------------------------------------------------------------
# The hand-made casts


def test_detected_by_content_under_any_name(fixtures: Path, tmp_path: Path) -> None:
    for rel in (V2, V3):
        assert detect(fixtures / rel) == "asciicast"
        shutil.copy(fixtures / rel, tmp_path / "x.json")
        assert detect(tmp_path / "x.json") == "asciicast"


def test_no_other_fixture_is_claimed(fixtures: Path) -> None:
    own = fixtures / "asciicast"
    for path in sorted(p for p in fixtures.rglob("*") if p.is_file() and own not in p.parents):
        assert not asciicast.sniff(path), path


def test_v2_terminal_bench_pane(fixtures: Path) -> None:
    t = read_one(fixtures / V2)
    assert (t.id, t.format, t.harness, t.started_at) == (
        "asciicast:terminus-v2",
        "asciicast",
        "terminal-bench",
        "2025-09-14T18:25:28Z",
    )
    assert [(s.command, s.answered, s.output) for s in t.steps] == [
        ("ls -la", True, "total 8\n-rw-r--r-- 1 root root 12 Jan  1 00:00 data.csv\n"),
        ("cat > notes.txt << 'EOF'\nhello\nEOF", True, ""),  # continued at bash's "> " prompt: one step
        (
            "pip install -q rich; tmux wait -S done",
            True,
            "Downloading rich 100%\nWARNING: Running pip as root\n",
        ),
        (
            "python3 -c 'import time; time.sleep(60)'",
            True,
            "^CTraceback (most recent call last):\nKeyboardInterrupt\n",
        ),
        ("sleep 100", False, None),  # still running when the recording ended
    ]
    assert [s.action.command for s in t.steps][
        2
    ] == "pip install -q rich"  # the harness's wait is not the command
    assert all(s.action.kind == "shell" and s.frames == () for s in t.steps)
    assert t.steps[3].args == {
        "prompt": "root@c0ffee:/app# ",
        "keystrokes": "python3 -c 'import time; time.sleep(60)'\r\x03",  # Ctrl-C typed while it ran
    }
    assert (t.steps[0].started_at, t.steps[0].ended_at) == (
        "2025-09-14T18:25:30.001000Z",
        "2025-09-14T18:25:30.020000Z",
    )
    assert [(e.kind, e.data.get("type"), e.text) for e in t.events] == [
        ("system", "harness-keys", "clear (typed by Terminal-Bench's harness when the recording starts)"),
        ("other", "marker", "episode-1"),
    ]
    assert t.meta["prompts_by"] == "bracketed-paste" and t.meta["terminal_bench_clear"] is True
    assert "warnings" not in t.meta
    assert trajectory_from_dict(trajectory_to_dict(t)) == t
    assert [rec.step for rec in replay(t).records] == [0, 1, 2, 3, 4]


def test_v3_output_only_recording(fixtures: Path) -> None:
    t = read_one(fixtures / V3)
    assert [(s.command, s.answered, s.output) for s in t.steps] == [
        ("echo hi", True, "hi\n"),  # typed a key at a time: the screen's line, not the keys
        ("cat a.txt", True, "line 1\nline 2\n"),
        ("vim a.txt", True, ""),  # a full-screen program leaves nothing on the main screen
        ("exit", False, None),
    ]
    # v3 times are intervals: the clock is their sum
    assert [s.started_at for s in t.steps][:2] == [
        "2023-11-14T22:13:20.800000Z",
        "2023-11-14T22:13:21.900000Z",
    ]
    assert t.harness is None and t.meta["prompts_by"] == "prompt-line" and t.meta["fullscreen_programs"] == 1
    assert [(e.kind, e.text) for e in t.events] == [("system", "exit status 0")]
    assert t.meta["asciicast_version"] == 3 and t.meta["command"] == "/bin/sh"


# ---------------------------------------------------------------------------------------------------------
# Tolerance


def test_damaged_lines_are_skipped_with_warnings(fixtures: Path, tmp_path: Path) -> None:
    lines = (fixtures / V2).read_text(encoding="utf-8").splitlines()
    lines.insert(3, "Error: spawn ps ENOENT")  # a stray line
    lines.insert(5, json.dumps({"time": 1.0}))  # not an event
    lines.insert(7, json.dumps([1.0005, "z", "?"]))  # an unknown code
    lines.append('[9.5, "o", "partial')  # cut off
    path = tmp_path / "damaged.cast"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = read_one(path)
    assert warnings_of(t) == [
        f"{path}:4: not JSON ('Error: spawn ps ENOENT'); skipped",
        f"{path}:6: expected an event [time, code, data], got something else; skipped",
        f"{path}:34: last line is not complete JSON (log cut off?); skipped",
        f"{path}:8: unknown event code 'z'; skipped",
    ]
    assert [w.kind for w in t.warnings] == ["not-json", "bad-record", "truncated", "unknown-record"]
    with pytest.raises(ReaderError, match=re.escape(f"{path}:4: not JSON")):
        asciicast.read(path, ReadOptions(strict=True))  # --strict: the first damaged line refuses the file
    assert [(s.command, s.output) for s in t.steps] == [
        (s.command, s.output) for s in read_one(fixtures / V2).steps
    ]


def test_a_file_that_is_not_a_cast_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.cast"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="file is empty"):
        asciicast.read(empty, ReadOptions())
    other = tmp_path / "other.cast"
    other.write_text('{"version": 1, "width": 80, "height": 24, "stdout": []}\n', encoding="utf-8")
    assert not asciicast.sniff(other)
    with pytest.raises(ReaderError, match=r"other\.cast:1 \[version\]: first line is not an asciicast"):
        asciicast.read(other, ReadOptions())


# ---------------------------------------------------------------------------------------------------------
# The real casts


REAL = {
    "tb-agent-devrev__analyze-access-logs__agent.cast": 0,  # the agent never typed: the harness's clear only
    "tb-agent-devrev__analyze-access-logs__tests.cast": 1,  # the test run
}


@pytest.fixture(scope="module")
def wild(real: Path) -> Path:
    return wild_folder(real, "terminal-bench-cast")


def _raw_answered(path: Path) -> int:
    """From the raw events: lines entered (an input ending in a carriage return) after which bash drew another
    prompt (``ESC[?2004h`` in a later output), less Terminal-Bench's ``clear`` when it is the first."""
    events = [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines()[1:] if ln.strip()]
    entered = [(i, e[2]) for i, e in enumerate(events) if e[1] == "i" and e[2].endswith("\r")]
    answered = [
        data for i, data in entered if any(e[1] == "o" and "\x1b[?2004h" in e[2] for e in events[i + 1 :])
    ]
    return len(answered) - (1 if entered and entered[0][1] == "clear\r" else 0)


def test_real_casts_counted_from_their_raw_events(wild: Path) -> None:
    assert sorted(p.name for p in wild.glob("*.cast")) == sorted(REAL)
    for name, expected in REAL.items():
        path = wild / name
        assert detect(path) == "asciicast", name
        t = read_one(path)
        assert t.n_steps == _raw_answered(path) == expected, name
        assert "warnings" not in t.meta, name
        assert t.harness == "terminal-bench"
        assert trajectory_from_dict(trajectory_to_dict(t)) == t
    tests = read_one(wild / "tb-agent-devrev__analyze-access-logs__tests.cast")
    (step,) = tests.steps
    assert step.action.command == "bash /tests/run-tests.sh"
    assert "\x1b" not in step.output and "\r" not in step.output  # what a screen showed
    assert "1 failed, 2 passed in 0.02s" in step.output.rstrip().splitlines()[-1]
    assert detect(wild / "SPEC__asciinema__asciicast-v2.md") is None


def test_real_casts_replay_through_the_cli(wild: Path, capsys) -> None:
    for name in REAL:
        assert main(["replay", str(wild / name)]) == 0, name
    capsys.readouterr()
