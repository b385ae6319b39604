"""Workspace: inventory, safe reading (no escapes, no binaries), agent path mapping, the line index."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.environment import COMMON_POSTINGS, Workspace, line_key


@pytest.fixture
def ws_dir(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# Title\nfirst line of a\nsecond line of a\n", encoding="utf-8")
    (root / "b.txt").write_text("only line of b, no final newline", encoding="utf-8")
    (root / "sheet.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    (root / "blob.dat").write_bytes(b"text\x00with a NUL byte")
    (root / "latin1.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret line here\n")
    (root / "escape.txt").symlink_to(outside)
    (root / "inside_link.txt").symlink_to(root / "b.txt")
    return root


def test_files_inventory_is_sorted_relative_and_skips_tool_folders_and_escapes(ws_dir: Path) -> None:
    ws = Workspace(ws_dir)
    assert ws.files() == ["b.txt", "blob.dat", "docs/a.md", "inside_link.txt", "latin1.txt", "sheet.xlsx"]


def test_read_text_refuses_escapes_binaries_and_undecodable_text(ws_dir: Path) -> None:
    ws = Workspace(ws_dir)
    assert ws.read_text("docs/a.md") == "# Title\nfirst line of a\nsecond line of a\n"
    assert ws.read_text("./docs/../b.txt") == "only line of b, no final newline"
    assert ws.read_text("inside_link.txt") == "only line of b, no final newline"
    assert ws.read_text("escape.txt") is None  # a symlink out of the root
    assert ws.read_text("../secret.txt") is None
    assert ws.read_text("/etc/passwd") is None
    assert ws.read_text("sheet.xlsx") is None  # binary by suffix, never decoded
    assert ws.read_text("blob.dat") is None  # NUL bytes
    assert ws.read_text("latin1.txt") is None  # not UTF-8
    assert ws.read_text("missing.txt") is None
    assert ws.read_text("docs") is None


def test_exists_is_file_is_dir_stay_inside(ws_dir: Path) -> None:
    ws = Workspace(ws_dir)
    assert ws.exists("docs") and ws.is_dir("docs") and not ws.is_file("docs")
    assert ws.exists("docs/a.md") and ws.is_file("docs/a.md")
    assert not ws.exists("../secret.txt") and not ws.exists("escape.txt")


def test_to_local_maps_the_agents_paths(ws_dir: Path) -> None:
    ws = Workspace(ws_dir, agent_root="/srv/x/workdir/")
    assert ws.agent_root == "/srv/x/workdir"
    assert ws.to_local("/srv/x/workdir/docs/a.md") == "docs/a.md"
    assert ws.to_local("/srv/x/workdir") == "."
    assert ws.to_local("/srv/x/workdir/../other.txt") is None
    assert ws.to_local("/srv/x/workdir2/a.md") is None
    assert ws.to_local("docs/./a.md") == "docs/a.md"
    assert ws.to_local("../a.md") is None
    assert (
        Workspace(ws_dir).to_local("/srv/x/workdir/docs/a.md") is None
    )  # no agent root: absolute is outside


def test_line_index_postings_and_spans(ws_dir: Path) -> None:
    ws = Workspace(ws_dir)
    index = ws.index
    assert ws.index is index  # built once
    assert sorted(f.path for f in index.files) == ["b.txt", "docs/a.md", "inside_link.txt"]
    fid = index.file_id("docs/a.md")
    assert fid is not None
    key = line_key("second line of a")
    assert key is not None and index.postings(key) == [(fid, 2)]
    assert index.postings(line_key("never seen anywhere") or 0) == []
    assert line_key("# Title") is None  # too short to attribute anything
    assert line_key("   ") is None
    f = index.files[fid]
    assert f.text[slice(*f.line_span(1))] == "first line of a"
    assert f.text[slice(*f.line_span(2))] == "second line of a"
    b = index.files[index.file_id("b.txt")]  # type: ignore[index]
    assert b.text[slice(*b.line_span(0))] == "only line of b, no final newline"


def test_common_lines_become_boilerplate(tmp_path: Path) -> None:
    for i in range(COMMON_POSTINGS + 1):
        (tmp_path / f"f{i}.txt").write_text(f"| --- | --- | shared header |\nunique line number {i}\n")
    index = Workspace(tmp_path).index
    assert index.postings(line_key("| --- | --- | shared header |")) is None  # type: ignore[arg-type]
    assert len(index.postings(line_key("unique line number 3")) or []) == 1  # type: ignore[arg-type]


def test_rebased_shares_the_index_and_changes_only_the_mapping(ws_dir: Path) -> None:
    ws = Workspace(ws_dir, agent_root="/run1/sources")
    other = ws.rebased("/run2/sources")
    assert other.index is ws.index
    assert (
        other.to_local("/run2/sources/docs/a.md") == "docs/a.md" and other.to_local("/run1/sources/x") is None
    )
    assert ws.to_local("/run1/sources/docs/a.md") == "docs/a.md"
