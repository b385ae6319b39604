"""The one path rule: normalize_path (lexical, cwd-joined, root-relative)."""

from __future__ import annotations

import pytest

from rtlab.text import is_under, normalize_path, relative_to


@pytest.mark.parametrize(
    ("path", "cwd", "root", "expected"),
    [
        ("a/b.txt", "/w", "/w", "a/b.txt"),
        ("./a/./b.txt", "/w", "/w", "a/b.txt"),
        ("a/../b.txt", "/w/sub", "/w", "sub/b.txt"),
        ("../x.txt", "/w", "/w", "/x.txt"),  # above the root: absolute
        ("/w/a.txt", "/elsewhere", "/w", "a.txt"),
        ("/other/a.txt", "/w", "/w", "/other/a.txt"),
        ("/w", None, "/w", "."),
        (".", "/w", "/w", "."),
        ("a//b/", "/w", "/w", "a/b"),
        ("/w/a.txt", None, "/w/", "a.txt"),  # a root with a trailing slash
        ("b.txt", "sub", "/w", "sub/b.txt"),  # a relative cwd is relative to the root
        ("/../../etc/passwd", None, None, "/etc/passwd"),  # .. above / stays at /
        ("//srv//x", None, None, "/srv/x"),
    ],
)
def test_normalize_path(path: str, cwd: str | None, root: str | None, expected: str) -> None:
    assert normalize_path(path, cwd=cwd, root=root) == expected


def test_relative_paths_without_cwd_stay_relative() -> None:
    assert normalize_path("./a/../b/c.txt") == "b/c.txt"
    assert normalize_path("../up.txt") == "../up.txt"
    assert normalize_path("") == "."
    assert normalize_path("x.txt", root="/w") == "x.txt"


def test_tilde_is_kept_not_expanded() -> None:
    assert normalize_path("~/notes/../a.md") == "~/a.md"
    assert normalize_path("a.md", cwd="~/proj") == "~/proj/a.md"
    assert normalize_path("~/proj/a.md", root="~/proj") == "a.md"


def test_never_touches_the_disk(tmp_path) -> None:
    link = tmp_path / "link"
    link.symlink_to("/")
    # a symlink on disk changes nothing: the rule is lexical
    assert normalize_path(f"{link}/../x", root=str(tmp_path)) == "x"


def test_relative_to_and_is_under() -> None:
    assert relative_to("/w/a/b", "/w") == "a/b"
    assert relative_to("/w", "/w") == "."
    assert relative_to("/wx/a", "/w") == "/wx/a"  # a sibling sharing the prefix is not under it
    assert relative_to("a/b", "/w") == "a/b"
    assert is_under("a/b") and not is_under("/a") and not is_under("../a") and not is_under("~/a")
