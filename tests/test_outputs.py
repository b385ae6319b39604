"""Where rtlab writes: only a regular file or a new path is ever replaced (a device or a pipe is written as a
stream, anything else refused), and an output is never one of the command's inputs (issue: hostile input)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rtlab.io import atomic_open

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "pi"


def _is_char_device(path: str | Path) -> bool:
    return stat.S_ISCHR(os.stat(path).st_mode)


@pytest.fixture
def devices(tmp_path: Path) -> tuple[Path, Path]:
    """Copies of ``/dev/null`` and ``/dev/full`` (character devices 1,3 and 1,7) in a temporary folder, so a
    regression replaces these and never the machine's own (making device nodes needs root: CI runs as root)."""
    null, full = tmp_path / "null", tmp_path / "full"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        with open(full, "w") as fh:
            fh.write("probe")
    except PermissionError as exc:
        pytest.skip(
            f"cannot make or open device nodes here ({exc}): needs root on a filesystem without nodev"
        )
    except OSError:
        pass  # the probe's write to "full" fails: the node works
    return null, full


def test_a_character_device_is_written_as_a_stream_never_replaced(devices: tuple[Path, Path]) -> None:
    null, full = devices
    with atomic_open(null) as fh:
        fh.write("nothing\n")
    assert _is_char_device(null)
    with pytest.raises(OSError, match="No space left"), atomic_open(full) as fh:
        fh.write("x" * 100_000)  # a full device refuses every write: the error reaches the caller
    assert _is_char_device(full)
    assert sorted(p.name for p in full.parent.iterdir()) == ["full", "null"]  # no temporary file beside them


def test_a_named_pipe_is_written_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so opening for writing does not block
    try:
        with atomic_open(fifo) as fh:
            fh.write("through the pipe\n")
        assert os.read(reader, 100) == b"through the pipe\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_folder_in_place_of_the_output_is_refused_and_kept(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("keep", encoding="utf-8")
    with (
        pytest.raises(IsADirectoryError, match="not a regular file .a folder."),
        atomic_open(tmp_path / "out") as fh,
    ):
        fh.write("x")
    assert (tmp_path / "out" / "keep.txt").read_text(encoding="utf-8") == "keep"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary file left beside it


def test_the_command_line_never_replaces_a_device(
    devices: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from rtlab.cli import main

    null, full = devices
    assert main(["view", str(SAMPLE), "-o", str(full)]) == 2  # `rtlab view F -o /dev/full` once exited 0
    assert "No space left on device" in capsys.readouterr().err
    assert _is_char_device(full)
    assert main(["ingest", str(SAMPLE), "-o", str(null)]) == 0
    assert _is_char_device(null)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    from rtlab.cli import main

    code = main(list(argv))
    return code, capsys.readouterr().err


def test_an_output_that_is_one_of_the_inputs_is_refused(tmp_path: Path, capsys) -> None:
    log = tmp_path / "in.jsonl"
    log.write_bytes((SAMPLE / "hiring-summary-v3.jsonl").read_bytes())
    before = log.read_bytes()
    (tmp_path / "link.jsonl").symlink_to(log)
    for argv in (
        ["view", str(log), "-o", str(log)],  # once turned the log into HTML, exit 0
        ["ingest", str(log), "-o", str(log)],  # once replaced the raw log by its canonical form
        ["ingest", str(log), "-o", str(tmp_path / "link.jsonl")],  # the same file by another route
        ["ingest", str(tmp_path / ".." / tmp_path.name / "in.jsonl"), "-o", str(log)],
    ):
        code, err = _run(capsys, *argv)
        assert code == 2 and "the output is one of the inputs" in err, argv
        assert log.read_bytes() == before
    code, err = _run(capsys, "replay", str(tmp_path), "--out", str(tmp_path))
    assert code == 2 and "the output is one of the inputs" in err
    assert _run(capsys, "ingest", str(log), "-o", str(tmp_path / "out.jsonl"))[0] == 0  # another path is fine


@pytest.mark.parametrize(
    "argv",
    [
        ["build", str(SAMPLE), "-o", "STORE", "--shards", "0"],  # once a ZeroDivisionError traceback
        ["build", str(SAMPLE), "-o", "STORE", "--shards", "-3"],
        ["build", str(SAMPLE), "-o", "STORE", "--jobs", "0"],
        ["replay", str(SAMPLE), "--jobs", "-1"],
        ["annotate", str(SAMPLE), "--simulated", "--model", "m", "-o", "L.csv", "--concurrency", "0"],
        ["annotate", str(SAMPLE), "--simulated", "--model", "m", "-o", "L.csv", "--jobs", "-1"],
        ["replay", str(SAMPLE), "--workspace", str(SAMPLE / "hiring-summary-v3.jsonl")],  # a file
        ["replay", str(SAMPLE), "--workspace", str(SAMPLE / "no-such-folder")],
    ],
)
def test_arguments_out_of_range_are_refused_by_name(argv: list[str], tmp_path: Path, capsys) -> None:
    from rtlab.cli import main

    argv = [a.replace("STORE", str(tmp_path / "s")).replace("L.csv", str(tmp_path / "l.csv")) for a in argv]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert ("must be positive" in err) or ("a folder is needed" in err), err
    assert not (tmp_path / "s").exists() and not (tmp_path / "l.csv").exists()


def test_build_over_nothing_readable_exits_4_as_info_does(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("no run here\n", encoding="utf-8")
    assert _run(capsys, "info", str(tmp_path))[0] == 4
    code, err = _run(capsys, "build", str(tmp_path), "-o", str(tmp_path / "store"))
    assert code == 4 and "no trajectory could be read" in err


def test_a_failed_write_to_standard_output_is_an_error(devices: tuple[Path, Path]) -> None:
    import subprocess
    import sys

    _, full = devices
    with open(full, "w") as out:  # `rtlab info --json > /dev/full` once exited 0
        done = subprocess.run(
            [sys.executable, "-m", "rtlab", "info", str(SAMPLE), "--json"],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 2 and "No space left on device" in done.stderr
    assert "Exception ignored" not in done.stderr  # nothing left buffered to fail again at exit


def test_a_linked_folder_outside_the_input_is_not_scanned_unless_it_is_a_run(tmp_path: Path, capsys) -> None:
    big = tmp_path / "elsewhere"  # stands for `/root`: a large tree a link in the input leads to
    (big / "deep").mkdir(parents=True)
    (big / "deep" / "log.jsonl").write_bytes((SAMPLE / "hiring-summary-v3.jsonl").read_bytes())
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "s.jsonl").write_bytes((SAMPLE / "hiring-summary-v3.jsonl").read_bytes())
    (runs / "home").symlink_to(big)
    from rtlab.ingest import ingest, iter_units

    result = ingest([runs])
    assert [Path(t.source_path).name for t in result.trajectories] == ["s.jsonl"]
    (note,) = [u for u in result.unclaimed if u.path == str(runs / "home")]
    assert (
        note.reason == "a link to a folder outside the input, not scanned"
        and "name it as a PATH" in note.detail
    )
    followed = [u.name for u, _ in iter_units([runs], follow_links=True)]
    assert followed == ["s.jsonl", "log.jsonl"]
    code, err = _run(capsys, "info", str(runs))
    assert code == 0 and "a link to a folder outside the input, not scanned" in err
    from rtlab.cli import main

    assert main(["info", str(runs), "--follow-links"]) == 0  # asked for: scanned
    said = capsys.readouterr()
    assert "a link to a folder outside the input" not in said.err and "2 trajectories" in said.out
