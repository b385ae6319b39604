"""A store that verifies its files (issue 30, item 5): a part damaged or swapped, a manifest edited, are found
(:mod:`rtlab.store._verify`); ``rtlab.open`` refuses the store naming the damaged part in an ``RtlabError``,
and a plain rebuild says what was damaged, rebuilds the runs it held and leaves a store equal to the runs.
Each case failed before: raw pyarrow/DuckDB errors, "8 unchanged" with the store still unreadable, 9
trajectories for 8 runs, another store's rows read, rows doubled, another table's file read silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from test_store import assert_same, memory_frames, world  # noqa: F401  (the module's fixture)

from rtlab.cli import main
from rtlab.errors import RtlabError
from rtlab.store import MANIFEST, TABLES, build_store, open_store, read_manifest


@pytest.fixture
def built(world: Path, tmp_path: Path) -> tuple[Path, Path]:  # noqa: F811
    runs = tmp_path / "world"
    shutil.copytree(world, runs, symlinks=True)
    store = tmp_path / "store"
    build_store([runs], store)
    return runs, store


def _manifest(store: Path) -> dict:
    """The whole manifest (a version-3 store's index read into it)."""
    manifest = read_manifest(store)
    assert manifest is not None
    return manifest


def _write_manifest(store: Path, manifest: dict) -> None:
    """The whole manifest written back as one file, the layout of version 2 (which rtlab still reads)."""
    (store / MANIFEST).write_text(json.dumps(manifest))


def _a_part(store: Path, table: str = "read_log") -> tuple[str, Path, list[str]]:
    """The first part holding ``table`` rows: its name, its file of that table, its runs."""
    for part, entry in sorted(_manifest(store)["parts"].items()):
        if table in entry["tables"]:
            shard, name = part.split("/")
            return part, store / table / shard / f"{name}.parquet", entry["runs"]
    raise AssertionError("no part")


def _read_everything(store: Path) -> None:
    s = open_store(store)
    for name in TABLES:
        s.table(name)
    s.load_trajectories()
    s.sql("SELECT count(*) FROM read_log")


def _repaired(runs: Path, store: Path, *, damaged: str, n_redone: int | None = None) -> None:
    """A plain rebuild names the damage, rebuilds the runs it touched and leaves the store equal to the runs;
    the next rebuild finds nothing."""
    summary = build_store([runs], store)
    assert summary.damaged and any(damaged in d for d in summary.damaged), summary.damaged
    assert "damaged, repaired: " in summary.format()
    if n_redone is not None:
        assert len(summary.changed) + len(summary.added) == n_redone
    assert not summary.skipped
    s = open_store(store)
    assert s.verify() == []
    memory = memory_frames([runs])
    assert len(s.trajectories()) == len(memory["trajectories"]) == 8
    for name in ("trajectories", "steps", "read_log", "labels"):
        assert_same(s.table(name), memory[name])
    again = build_store([runs], store)
    assert again.processed == 0 and not again.damaged and len(again.unchanged) == 8


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x10
    path.write_bytes(bytes(data))


def test_a_bit_flip_is_named_on_read_and_repaired(built: tuple[Path, Path]) -> None:
    runs, store = built
    part, path, held = _a_part(store, "records")
    _flip(path, path.stat().st_size // 2)  # the same size: opening cannot tell, reading and hashing can
    s = open_store(store)
    with pytest.raises(RtlabError, match=rf"damaged store .*\n  records/{part}\.parquet: its sha256 is not"):
        s.load_trajectories()
    [damage] = s.verify()
    assert damage.what == f"records/{part}.parquet" and damage.part == part
    opened = open_store(store)
    assert opened.sql("SELECT count(*) AS n FROM steps")["n"][0] > 0  # a query checks the tables it names
    with pytest.raises(
        RtlabError, match=rf"records/{part}\.parquet: its sha256"
    ):  # DuckDB checks no page CRC: the records' files are hashed before their view is made
        opened.sql("SELECT count(*) FROM steps JOIN records USING (trajectory)")
    with pytest.raises(RtlabError, match=rf"records/{part}\.parquet: its sha256"):
        open_store(store).connect()  # every table
    _repaired(runs, store, damaged=f"records/{part}.parquet", n_redone=len(held))


def test_a_bad_footer_is_named_and_repaired(built: tuple[Path, Path]) -> None:
    runs, store = built
    part, path, held = _a_part(store, "steps")
    _flip(path, path.stat().st_size - 6)  # the footer's length
    with pytest.raises(RtlabError, match=rf"steps/{part}\.parquet: "):
        open_store(store).steps()
    with pytest.raises(RtlabError, match=rf"steps/{part}\.parquet: "):
        open_store(store).sql("SELECT count(*) FROM steps")
    _repaired(runs, store, damaged=f"steps/{part}.parquet", n_redone=len(held))


@pytest.mark.parametrize("how", ["truncated", "deleted", "emptied"])
def test_a_truncated_or_deleted_part_is_named_on_first_use_and_repaired(
    built: tuple[Path, Path], how: str
) -> None:
    """Opening checks the manifest; a table's files are checked when the table is first used (a query pays for
    the tables it names only), and ``Store.check`` checks every table's, as the command line does."""
    runs, store = built
    part, path, held = _a_part(store)
    if how == "deleted":
        path.unlink()
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 3] if how == "truncated" else b"")
    why = r"missing \(deleted\?\)" if how == "deleted" else r"\d+ bytes, the manifest recorded"
    s = open_store(store)
    assert len(s.trajectories()) == 8  # an undamaged table answers
    assert s.sql("SELECT count(*) AS n FROM steps")["n"][0] > 0
    with pytest.raises(RtlabError, match=rf"read_log/{part}\.parquet: {why}"):
        s.read_log()
    with pytest.raises(RtlabError, match=rf"read_log/{part}\.parquet: {why}"):
        open_store(store).sql("SELECT count(*) FROM read_log")
    with pytest.raises(RtlabError, match=rf"read_log/{part}\.parquet: {why}"):
        open_store(store).check()
    _repaired(runs, store, damaged=f"read_log/{part}.parquet", n_redone=len(held))


def test_a_run_dropped_from_the_manifest_is_not_counted_twice(built: tuple[Path, Path]) -> None:
    """A run removed from ``runs`` while its part still holds its rows: 9 trajectories for 8 runs before."""
    runs, store = built
    m = _manifest(store)
    unit = sorted(m["runs"])[0]
    del m["runs"][unit]
    _write_manifest(store, m)
    with pytest.raises(RtlabError, match="holds rows of run .*which the manifest's runs do not list"):
        open_store(store)
    _repaired(runs, store, damaged="which the manifest's runs do not list")


def test_a_manifest_pointing_outside_the_store_is_refused(built: tuple[Path, Path], tmp_path: Path) -> None:
    """Another store's files named in the manifest (by its file list, or by a part name climbing out):
    another store's rows appeared before."""
    runs, store = built
    other = tmp_path / "other.store"
    shutil.copytree(store, other)
    m = _manifest(store)
    theirs = str(other / _manifest(other)["files"]["read_log"][0])
    m["files"]["read_log"].append(theirs)
    _write_manifest(store, m)
    with pytest.raises(RtlabError, match=r"file list does not match its parts: .*which no part holds"):
        open_store(store)
    _repaired(runs, store, damaged="which no part holds")
    m = _manifest(store)
    part = sorted(m["parts"])[0]
    m["parts"]["shard=00/../../../other.store/read_log/" + part.split("/")[1]] = m["parts"].pop(part)
    _write_manifest(store, m)
    with pytest.raises(RtlabError, match=r"not a part name rtlab writes"):
        open_store(store)
    _repaired(runs, store, damaged="not a part name rtlab writes")
    assert open_store(other).verify() == []  # the other store untouched


def test_a_file_listed_twice_is_refused(built: tuple[Path, Path]) -> None:
    """Rows doubled before."""
    runs, store = built
    m = _manifest(store)
    m["files"]["steps"].append(m["files"]["steps"][0])
    _write_manifest(store, m)
    with pytest.raises(RtlabError, match="listed twice"):
        open_store(store)
    _repaired(runs, store, damaged="listed twice")


def test_another_tables_part_swapped_in_is_named(built: tuple[Path, Path]) -> None:
    """A ``steps`` file copied over a ``read_log`` file, its size and sha256 written into the manifest too:
    only the schema tells, and it is checked before the table is read (read silently before)."""
    runs, store = built
    part, path, held = _a_part(store, "read_log")
    steps = store / "steps" / path.relative_to(store / "read_log")
    shutil.copy(steps, path)
    m = _manifest(store)
    m["parts"][part]["checksums"]["read_log"] = m["parts"][part]["checksums"]["steps"]
    _write_manifest(store, m)
    s = open_store(store)  # the sizes agree
    with pytest.raises(RtlabError, match=rf"read_log/{part}\.parquet: not a file of table 'read_log'"):
        s.read_log()
    assert open_store(store).sql("SELECT 1 AS one")["one"][0] == 1  # names no table: none checked
    with pytest.raises(RtlabError, match="not a file of table 'read_log'"):
        open_store(store).sql("SELECT count(*) FROM read_log")
    _repaired(runs, store, damaged="not a file of table 'read_log'", n_redone=len(held))


def test_a_table_folder_linked_out_of_the_store_is_refused_and_nothing_outside_is_deleted(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    runs, store = built
    other = tmp_path / "other.store"
    shutil.copytree(store, other)
    before = sorted(p.relative_to(other) for p in other.rglob("*.parquet"))
    shutil.rmtree(store / "read_log")
    os.symlink(other / "read_log", store / "read_log")
    with pytest.raises(RtlabError, match="lies outside the store"):
        open_store(store).check()
    with pytest.raises(RtlabError, match="lies outside the store"):
        open_store(store).read_log()
    _repaired(runs, store, damaged="lies outside the store")
    assert not (store / "read_log").is_symlink()
    assert sorted(p.relative_to(other) for p in other.rglob("*.parquet")) == before


def test_the_cli_names_the_damage_and_a_rebuild_repairs(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    runs, store = built
    part, path, held = _a_part(store)
    path.write_bytes(path.read_bytes()[:100])
    assert main(["info", str(store)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"read_log/{part}.parquet" in err and "rtlab build" in err
    assert main(["build", str(runs), "-o", str(store)]) == 0
    err = capsys.readouterr().err
    assert f"damaged, repaired: read_log/{part}.parquet" in err
    assert f"{len(held)} changed" in err
    assert main(["info", str(store)]) == 0
    _read_everything(store)


def test_a_version_1_store_opens_and_a_rebuild_upgrades_it(built: tuple[Path, Path]) -> None:
    """A store written before checksums (version 1) opens as before; a rebuild rebuilds every run (the store's
    version is in its key) and records every file's checksum. Saying "version 1" of a store whose parts record
    checksums checks them all the same."""
    runs, store = built
    m = _manifest(store)
    part, path, _ = _a_part(store)
    downgraded = json.loads(json.dumps(m))
    downgraded["version"] = 1
    _write_manifest(store, downgraded)
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(RtlabError, match=r"bytes, the manifest recorded"):
        open_store(store).check()
    build_store([runs], store)  # repaired
    m = _manifest(store)
    m["version"], m["options"]["store_version"] = 1, 1
    for entry in m["parts"].values():
        del entry["checksums"]
    _write_manifest(store, m)
    assert len(open_store(store).trajectories()) == 8  # an old store still reads
    summary = build_store([runs], store)
    assert summary.rebuild_reason and len(summary.changed) == 8 and not summary.damaged
    m = _manifest(store)
    assert m["version"] == 3 and all("checksums" in e for e in m["parts"].values())
    assert open_store(store).verify() == []


def _index(store: Path) -> Path:
    """The index file a version-3 store's manifest names."""
    return store / json.loads((store / MANIFEST).read_text())["index"]["file"]


def test_the_index_is_read_only_when_needed(built: tuple[Path, Path]) -> None:
    """Version 3: the manifest file holds the parts and files; the runs' entries are in the index it names,
    read (and checked) only when something needs them: a query reads none of it."""
    runs, store = built
    head = json.loads((store / MANIFEST).read_text())
    assert head["version"] == 3 and "runs" not in head and head["n_runs"] == 8
    assert all("runs" not in e for e in head["parts"].values())
    index = _index(store)
    assert sorted(p.name for p in store.glob("_index-*.json")) == [index.name]
    whole = _manifest(store)
    assert len(whole["runs"]) == 8 and all(e["runs"] for e in whole["parts"].values())
    moved = index.rename(index.with_suffix(".away"))
    s = open_store(store)
    assert repr(s).endswith(": 8 runs)")
    assert s.sql("SELECT count(*) AS n FROM trajectories")["n"][0] == 8  # no index needed
    with pytest.raises(RtlabError, match=rf"_manifest.json: its index {index.name} is missing"):
        s.trajectories()  # the runs' order is in the index
    moved.rename(index)
    assert len(open_store(store).trajectories()) == 8


@pytest.mark.parametrize("how", ["damaged", "deleted", "runs edited"])
def test_a_damaged_index_is_named_and_a_rebuild_repairs_it(built: tuple[Path, Path], how: str) -> None:
    runs, store = built
    index = _index(store)
    if how == "deleted":
        index.unlink()
        said = "is missing"
    elif how == "damaged":
        _flip(index, index.stat().st_size // 2)
        said = "not the size and sha256 it records"
    else:  # edited with its sha256 recorded anew: the runs' entries are checked against the parts
        head = json.loads((store / MANIFEST).read_text())
        data = json.loads(index.read_bytes())
        data["runs"].pop(sorted(data["runs"])[0])
        raw = json.dumps(data).encode()
        index.write_bytes(raw)
        head["index"].update(size=len(raw), sha256=hashlib.sha256(raw).hexdigest())
        (store / MANIFEST).write_text(json.dumps(head))
        said = "which the manifest's runs do not list"
    with pytest.raises(RtlabError, match=said):
        open_store(store).trajectories()
    summary = build_store([runs], store)
    assert summary.damaged and any(said in d for d in summary.damaged), summary.damaged
    assert open_store(store).verify() == []
    for name in ("trajectories", "steps"):
        assert_same(open_store(store).table(name), memory_frames([runs])[name])


def test_a_version_2_store_reads_and_its_next_build_writes_version_3(built: tuple[Path, Path]) -> None:
    """The migration: a store of version 2 (one manifest file holding the runs) opens and reads as before;
    its next build (a new store version is a new key: every run rebuilt) writes the index layout."""
    runs, store = built
    m = _manifest(store)
    m["version"] = 2
    m["options"]["store_version"] = 2
    _write_manifest(store, m)
    for old in store.glob("_index-*.json"):
        old.unlink()
    s = open_store(store)
    assert len(s.runs) == 8 and s.verify() == []
    assert_same(s.steps(), memory_frames([runs])["steps"])
    summary = build_store([runs], store)
    assert summary.rebuild_reason and not summary.damaged
    head = json.loads((store / MANIFEST).read_text())
    assert head["version"] == 3 and "runs" not in head and _index(store).is_file()
    assert len(open_store(store).runs) == 8
