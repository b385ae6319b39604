"""Zip bombs (issue 30, item 4): an Inspect ``.eval`` whose member inflates to gigabytes is refused by the
limits of :mod:`rtlab.ingest.readers._zip` (256 MiB a member, 1 GiB an archive, both raisable), checked while
decompressing, with bounded memory; the sample is skipped with the reason naming file and member, and the
rest of the log is read. The bombs are built small (``tests/zipbomb.py``: 3 GiB of zeros in 3 MB of file).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import zipbomb as zb
from conftest import ROOT
from peak_rss import PEAK_RSS

from rtlab.cli import main
from rtlab.errors import ReaderError, RtlabError, TooLargeError
from rtlab.ingest import ReadOptions, ingest
from rtlab.ingest.readers import inspect
from rtlab.ingest.readers._zip import (
    ARCHIVE_ENV,
    MEMBER_ENV,
    ArchiveTooLargeError,
    Limits,
    ZipArchive,
    resolve_limits,
)
from rtlab.io import parse_size

GIB = 2**30
BOMB_GIB = 3


def _peak_rss_mb(*argv: str, env: dict[str, str] | None = None) -> tuple[int, float, str]:
    """``rtlab ARGV`` in a fresh Python process: its exit status, its peak resident memory (MB, measured in that
    process: :data:`PEAK_RSS`) and its stderr."""
    code = PEAK_RSS + (
        "from rtlab.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "sys.stdout.flush()\n"
        "print('PEAK', peak_kb(), file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600
    )
    peak = [line for line in proc.stderr.splitlines() if line.startswith("PEAK ")]
    assert peak, proc.stderr[-3000:]
    return proc.returncode, int(peak[-1].split()[1]) / 1024, proc.stderr


@pytest.mark.parametrize("kind", ["honest", "lying", "zip64", "zstd"])
def test_a_bomb_sample_is_skipped_with_bounded_memory(tmp_path: Path, kind: str) -> None:
    """A 3 GiB member (5 GiB for ZIP64) in a 3 MB log: ``rtlab info`` reads the genuine sample, names the
    bomb's file and member with why, and stays far below the bomb's size in memory (it took 3.1 GB before)."""
    bomb = zb.bomb_eval(tmp_path / f"{kind}.eval", kind, gib=BOMB_GIB)
    assert bomb.stat().st_size < 8 * 2**20
    status, peak, err = _peak_rss_mb("info", str(bomb))
    assert status == 0, err[-3000:]
    assert peak < 400, f"peak {peak:.0f} MB reading a {BOMB_GIB} GiB bomb"
    [t] = inspect.read(bomb, ReadOptions())
    assert t.id == "inspect:Bomb0001/ok/1"
    [warning] = [w.reason for w in t.warnings if w.reason.startswith("sample skipped")]
    assert str(bomb) in warning and "'samples/bomb_epoch_1.json'" in warning
    if kind == "lying":
        assert "more than the 1000 bytes its directory entry declares" in warning
    else:
        assert "more than the limit of 268435456 bytes (256 MiB) for one member" in warning
        assert MEMBER_ENV in warning  # how to raise it


def test_a_log_of_bombs_only_is_a_named_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bomb = zb.bomb_eval(tmp_path / "only.eval", "honest", genuine=False)
    with pytest.raises(TooLargeError, match=r"no sample read: 1 refused, the first: member 'samples/bomb_ep"):
        inspect.read(bomb, ReadOptions())
    assert main(["info", str(bomb)]) == 4
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"skipped {bomb}" in err and "samples/bomb_epoch_1.json" in err


def test_the_header_past_the_limit_fails_the_log_naming_it(tmp_path: Path) -> None:
    path = zb.write_zip(tmp_path / "h.eval", [zb.bomb_entry("header.json", "honest", 1)])
    with pytest.raises(
        TooLargeError, match=r"h\.eval: member 'header\.json' decompresses to 1073741824 bytes"
    ):
        inspect.read(path, ReadOptions())


def test_the_overlapping_bomb_is_refused_when_the_directory_is_read(tmp_path: Path) -> None:
    """David Fifield's non-recursive bomb: 16 entries share one 256 MiB kernel (4 GiB from 270 KB)."""
    bomb = zb.bomb_eval(tmp_path / "overlap.eval", "overlap")
    assert bomb.stat().st_size < 2**20
    with pytest.raises(
        ReaderError, match=r"members 'samples/b0_epoch_1\.json' and 'samples/b1_epoch_1\.json' overlap"
    ):
        inspect.read(bomb, ReadOptions())
    status, peak, err = _peak_rss_mb("info", str(bomb))
    assert status == 4 and "overlap" in err and peak < 400


def test_members_under_the_member_limit_stop_at_the_archive_limit(tmp_path: Path) -> None:
    """Many members, each under the member limit, add up: the archive's limit stops them, each one named."""
    members = [zb.plain("header.json", json.dumps(zb.HEADER).encode())]
    members += [zb.Entry(f"samples/s{i}_epoch_1.json", 8, zb.deflate_zeros(2), 2 * zb.MIB, zb.crc_of_zeros(2))
                for i in range(6)]  # fmt: skip
    path = zb.write_zip(tmp_path / "many.eval", members)
    with ZipArchive(path, limits=Limits(member=3 * zb.MIB, archive=5 * zb.MIB)) as z:
        z.read("header.json")
        z.read("samples/s0_epoch_1.json")
        z.read("samples/s1_epoch_1.json")
        with pytest.raises(TooLargeError, match=r"member 'samples/s2_epoch_1.json' \(2097152 bytes \(2 MiB\)\) "
                           r"would take the archive's members past the limit of 5242880 bytes"):  # fmt: skip
            z.read("samples/s2_epoch_1.json")
        assert z.decompressed < 5 * zb.MIB


def test_the_limits_are_raised_by_options_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = zb.sample("big", "x" * 5000)
    path = zb.write_zip(
        tmp_path / "b.eval",
        [zb.plain("header.json", json.dumps(zb.HEADER).encode()), zb.plain("samples/big_epoch_1.json", big)],
    )
    assert [t.instruction for t in inspect.read(path, ReadOptions())] == ["x" * 5000]
    with pytest.raises(TooLargeError, match="more than the limit of 4096 bytes for one member"):
        inspect.read(path, ReadOptions(max_member_bytes=4096))
    monkeypatch.setenv(MEMBER_ENV, "4K")
    with pytest.raises(TooLargeError, match="more than the limit of 4096 bytes"):
        inspect.read(path, ReadOptions())
    assert len(inspect.read(path, ReadOptions(max_member_bytes=65536))) == 1  # the option wins
    monkeypatch.setenv(MEMBER_ENV, "1M")
    monkeypatch.setenv(ARCHIVE_ENV, "2k")
    with pytest.raises(ArchiveTooLargeError, match="past the limit of 2048 bytes decompressed in all"):
        inspect.read(path, ReadOptions())
    monkeypatch.setenv(ARCHIVE_ENV, "lots")
    with pytest.raises(
        RtlabError, match=r"RTLAB_MAX_ARCHIVE_BYTES='lots': expected a positive number of bytes"
    ):
        resolve_limits()
    result = ingest([path])  # a bad setting is one named failure per unit, never a traceback
    assert not result.trajectories and "RTLAB_MAX_ARCHIVE_BYTES='lots'" in result.failures[0].error


def test_sizes_are_read_in_powers_of_1024() -> None:
    assert parse_size("268435456", name="X") == 256 * 2**20
    assert parse_size("256M", name="X") == parse_size("256MiB", name="X") == parse_size("256 mb", name="X")
    assert parse_size("2G", name="X") == 2 * GIB
    for bad in ("", "0", "-1", "1.5G", "2Q"):
        with pytest.raises(RtlabError, match="X="):
            parse_size(bad, name="X")
    assert resolve_limits() == Limits(256 * 2**20, GIB)


def test_build_keeps_the_genuine_samples_and_the_reason(tmp_path: Path) -> None:
    """``rtlab build`` over a folder with a bomb log: the genuine sample is built and the bomb's reason is in
    its warnings; a log of bombs only is a skipped unit naming the member."""
    runs = tmp_path / "runs"
    runs.mkdir()
    zb.bomb_eval(runs / "mixed.eval", "honest")
    zb.bomb_eval(runs / "only.eval", "zstd", genuine=False)
    from rtlab.store import build_store, open_store

    summary = build_store([runs], tmp_path / "store")
    assert [Path(u).name for u in summary.added] == ["mixed.eval"]
    [(unit, why)] = summary.skipped.items()
    assert unit.endswith("only.eval") and "samples/bomb_epoch_1.json" in why and MEMBER_ENV in why
    [t] = open_store(tmp_path / "store").load_trajectories()
    assert any("samples/bomb_epoch_1.json" in str(w) for w in t.warnings)


@pytest.mark.parametrize("suffix", [".docx", ".xlsx"])
def test_a_delivered_office_file_bomb_is_not_inflated(tmp_path: Path, suffix: str) -> None:
    """A delivered ``.docx`` / ``.xlsx`` (a ZIP) whose part declares 3 GiB: its text is not read (a warning
    names the file), nothing is inflated; the values and the judge's evidence read delivered files this way."""
    from rtlab.analysis import file_text
    from rtlab.records import DeliverableFile

    part = "word/document.xml" if suffix == ".docx" else "xl/sharedStrings.xml"
    path = zb.write_zip(tmp_path / f"report{suffix}", [zb.bomb_entry(part, "honest", BOMB_GIB)])
    with pytest.warns(
        UserWarning, match=rf"report\{suffix}: cannot read delivered file \(TooLargeError: .*{part}"
    ):
        assert file_text(DeliverableFile(path=f"report{suffix}", local_path=str(path))) is None


def test_a_log_past_the_archive_limit_fails_whole(tmp_path: Path) -> None:
    """Members each under the member limit but past the archive's in all (a log of 1 MB whose four samples of
    250 MiB took ``info`` to 1.3 GB): the log is refused whole, naming the member where the limit was
    reached, never read in part."""
    members = [
        zb.plain("header.json", json.dumps(zb.HEADER).encode()),
        zb.plain("samples/ok_epoch_1.json", zb.sample()),
    ]
    members += [zb.json_sample_entry(f"s{i}", 250) for i in range(6)]
    path = zb.write_zip(tmp_path / "many.eval", members)
    assert path.stat().st_size < 4 * zb.MIB
    with pytest.raises(
        ArchiveTooLargeError, match=r"member 'samples/s4_epoch_1.json' .* past the limit of 1073741824"
    ):
        inspect.read(path, ReadOptions())
    status, peak, err = _peak_rss_mb("info", str(path))
    assert status == 4 and "RTLAB_MAX_ARCHIVE_BYTES" in err and peak < 2000, peak
