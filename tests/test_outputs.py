"""Where rtlab writes: only a regular file or a new path is ever replaced (a device or a pipe is written as a
stream, anything else refused), and an output is never one of the command's inputs (issue: hostile input)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rtlab.errors import RtlabError
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
        pytest.raises(RtlabError, match="not a regular file .a folder."),
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
