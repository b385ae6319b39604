"""A store's verification stamps (issue 29, item 3): a file verified in full (sha256 and schema) is stamped
with its stat (size, mtime, ctime, inode, device) in ``_stamps.json``; a later open trusts it only while that
stat is exactly the same. A file rewritten after it was verified, its size and mtime put back, is still
caught (its ctime moved); a copied store's stamps are not trusted (new inodes); a store that cannot be
written works without stamps.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_store import world  # noqa: F401  (the module's fixture)

from rtlab.errors import RtlabError
from rtlab.store import _open, _verify, build_store, open_store, read_manifest
from rtlab.store._verify import STAMPS, read_stamps

QUERY = "SELECT count(*) AS n, sum(chars) AS chars FROM read_log"


@pytest.fixture(scope="module")
def pristine(world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    store = tmp_path_factory.mktemp("stamps") / "store"
    build_store([world], store)
    return store


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    """A fresh copy of the built store (new files: no stamp of the original applies to them)."""
    copy = tmp_path / "store"
    shutil.copytree(pristine, copy)
    return copy


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files count as settled at once (they were just written: by default, a file changed within the last
    2 s is verified again rather than stamped)."""
    monkeypatch.setattr(_verify, "RACY_NS", 0)


def _files(store: Path, table: str) -> list[str]:
    manifest = read_manifest(store, whole=False)
    assert manifest is not None
    return list(manifest["files"][table])


def _count_full_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file hashed and schema-checked from now on (by a query's view or a table's read)."""
    seen: list[str] = []
    real_bytes, real_schema = _verify._bytes_problem, _open.schema_problem

    def counted_bytes(path: Path, *a: Any) -> str | None:
        seen.append(path.as_posix())
        return real_bytes(path, *a)

    def counted_schema(path: Path, *a: Any) -> str | None:
        seen.append(Path(path).as_posix())
        return real_schema(path, *a)

    monkeypatch.setattr(_verify, "_bytes_problem", counted_bytes)
    monkeypatch.setattr(_open, "schema_problem", counted_schema)
    return seen


def test_a_stamp_is_written_and_used(store: Path, settled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not (store / STAMPS.format(table="read_log")).exists()
    checked = _count_full_checks(monkeypatch)
    answer = open_store(store).sql(QUERY)
    read_log = _files(store, "read_log")
    assert len(checked) == len(read_log) > 0  # the first query verifies its table's files in full
    stamps = read_stamps(store, "read_log")
    assert sorted(stamps) == sorted(read_log)  # only the files verified, each with its stat and sha256
    for rel, stamp in stamps.items():
        st = os.lstat(store / rel)
        assert stamp[:5] == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    checked.clear()
    again = open_store(store)
    assert again.sql(QUERY).equals(answer)
    assert checked == []  # trusted: not hashed again
    again.table("read_log")
    assert checked == []  # nor their footers read for the schema (pages' CRCs are still checked)
    assert open_store(store).sql("SELECT count(*) AS n FROM steps")["n"][0] > 0
    assert len(checked) == len(_files(store, "steps"))  # an unstamped table is verified in full
    assert sorted(read_stamps(store, "steps")) == sorted(_files(store, "steps"))
    assert sorted(read_stamps(store, "read_log")) == sorted(read_log)  # a stamp file per table
    checked.clear()
    assert open_store(store).verify() == []  # verify reads every file, stamped or not
    assert len(checked) == sum(len(f) for f in read_manifest(store, whole=False)["files"].values())
    assert sorted(read_stamps(store, "labels")) == sorted(_files(store, "labels"))  # and stamps them all


def test_a_file_changed_within_the_racy_window_is_not_stamped(store: Path) -> None:
    open_store(store).sql(QUERY)  # the files were written just now: not settled
    assert read_stamps(store, "read_log") == {}


@pytest.mark.parametrize("how", ["in place", "replaced", "restamped"])
def test_a_file_rewritten_with_its_size_and_mtime_is_still_caught(
    store: Path, settled: None, how: str
) -> None:
    open_store(store).sql(QUERY)
    rel = _files(store, "read_log")[0]
    path = store / rel
    before = os.lstat(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10  # the same size
    if how == "replaced":  # another file (another inode) moved over it
        other = path.with_name("other.tmp")
        other.write_bytes(bytes(data))
        os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
        os.replace(other, path)
    else:
        with open(path, "r+b") as fh:  # the same inode
            fh.write(bytes(data))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    if how == "restamped":  # the stamp edited to the new stat, its recorded sha256 kept
        doc = json.loads((store / STAMPS.format(table="read_log")).read_text())
        st = os.lstat(path)
        doc["files"][rel][:5] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        (store / STAMPS.format(table="read_log")).write_text(json.dumps(doc))
    after = os.lstat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    if how == "restamped":  # a forged stamp is trusted by a query (docs/LIMITS.md); verify reads every byte
        assert [d.what for d in open_store(store).verify()] == [rel]
        return
    with pytest.raises(RtlabError, match=rf"{rel}: its sha256 is not"):
        open_store(store).sql(QUERY)
    [damage] = open_store(store).verify()
    assert damage.what == rel


def test_a_stamp_is_trusted_only_with_the_recorded_sha256(
    store: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_store(store).sql(QUERY)
    doc = json.loads((store / STAMPS.format(table="read_log")).read_text())
    rel = sorted(doc["files"])[0]
    doc["files"][rel][5] = "0" * 64  # a stamp of other bytes than the manifest records
    (store / STAMPS.format(table="read_log")).write_text(json.dumps(doc))
    checked = _count_full_checks(monkeypatch)
    open_store(store).sql(QUERY)
    assert checked == [(store / rel).as_posix()]
    assert read_stamps(store, "read_log")[rel][5] != "0" * 64  # renewed once verified


@pytest.mark.parametrize("content", ["not json", '{"schema": "another", "files": {}}', "[1, 2]"])
def test_a_stamp_file_rtlab_did_not_write_is_ignored(
    store: Path, settled: None, monkeypatch: pytest.MonkeyPatch, content: str
) -> None:
    (store / STAMPS.format(table="read_log")).write_text(content)
    checked = _count_full_checks(monkeypatch)
    open_store(store).sql(QUERY)
    assert len(checked) == len(_files(store, "read_log"))
    assert sorted(read_stamps(store, "read_log")) == sorted(_files(store, "read_log"))


def test_a_copied_store_verifies_its_files_again(
    store: Path, settled: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_store(store).sql(QUERY)
    copy = tmp_path / "copy"
    shutil.copytree(store, copy)  # the stamps come along; the files are new ones
    checked = _count_full_checks(monkeypatch)
    open_store(copy).sql(QUERY)
    assert len(checked) == len(_files(copy, "read_log"))


def test_a_store_on_a_read_only_mount_works_without_stamps(store: Path) -> None:
    """In a private mount namespace (``unshare``), the store bind-mounted read-only; the query runs, no stamp
    is written, and nothing is left in the store."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare here")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"unshare cannot make a mount namespace here: {probe.stderr.decode().strip()}")
    before = sorted(p.relative_to(store) for p in store.rglob("*"))
    code = (
        "import sys; from rtlab.store import _verify, open_store; _verify.RACY_NS = 0\n"
        "s = open_store(sys.argv[1]); print(s.sql(sys.argv[2]).values.tolist()); print(s.verify())\n"
        "import os; os.close(os.open(sys.argv[1] + '/probe', os.O_CREAT | os.O_WRONLY))\n"
    )
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'  # $1: the store
    done = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            script,
            "sh",
            str(store),
            sys.executable,
            "-c",
            code,
            str(store),
            QUERY,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    assert "Read-only file system" in done.stderr, done.stderr  # the mount is read-only: the probe failed
    after = sorted(p.relative_to(store) for p in store.rglob("*"))
    assert after == before  # no stamp, no temporary file
    # (listed before this process's own query, which stamps the files once they are older than RACY_NS)
    lines = done.stdout.splitlines()
    assert lines[0] == str(open_store(store).sql(QUERY).values.tolist()) and lines[1] == "[]", done.stdout
