"""The agent's workspace copy and confinement: links out of the workspace are not copied, ``read`` / ``write``
refuse ``..``, absolute paths and links out of the copy, and commands under bubblewrap see nothing of the host."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rtlab.agent import Sandbox, SandboxError, bwrap_works, copy_workspace
from rtlab.agent._tools import run_bash, run_read, run_write
from rtlab.ingest import get_policy

CLIP = get_policy("openhands-v0")


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace with a file, a link inside it, links out of it (to a file and a folder), and a secret beside."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET 4711\n", encoding="utf-8")
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.txt").write_text("alpha 1\nbeta 2\ngamma 3\n", encoding="utf-8")
    os.symlink("docs/a.txt", ws / "inner_link.txt")
    os.symlink(secret, ws / "out_link.txt")
    os.symlink(tmp_path, ws / "out_dir")
    os.symlink("../secret.txt", ws / "docs" / "relative_out.txt")
    return ws, secret


def test_the_copy_keeps_links_inside_and_leaves_out_links_out(layout, tmp_path: Path) -> None:
    ws, _ = layout
    skipped = copy_workspace(ws, tmp_path / "copy")
    assert sorted(skipped) == ["docs/relative_out.txt", "out_dir", "out_link.txt"]
    copy = tmp_path / "copy"
    assert (copy / "inner_link.txt").is_symlink() and (
        copy / "inner_link.txt"
    ).read_text() == "alpha 1\nbeta 2\ngamma 3\n"
    assert not (copy / "out_link.txt").exists() and not (copy / "out_dir").exists()


@pytest.mark.parametrize("kind", ["bwrap", "none"])
def test_read_and_write_refuse_paths_out_of_the_copy(layout, tmp_path: Path, kind: str) -> None:
    if kind == "bwrap" and bwrap_works() is not None:
        pytest.skip(f"no bubblewrap confinement here: {bwrap_works()}")
    ws, secret = layout
    box = Sandbox(ws, tmp_path / "copy", kind=kind)  # type: ignore[arg-type]  # a literal of SandboxKind
    ok = run_read(box, {"path": "docs/a.txt", "offset": 2, "limit": 1}, CLIP)
    assert ok.shown.startswith("beta 2\n") and not ok.is_error and ok.action.kind == "read"
    assert ok.shown.endswith("[Showing lines 2-2 of 3. Use offset=3 to continue.]")
    assert run_read(box, {"path": f"{box.agent_root}/docs/a.txt"}, CLIP).output.startswith("alpha")
    os.symlink(secret, box.root / "planted.txt")  # a link the agent made in the copy, pointing out
    for path in (
        "../secret.txt",
        str(secret),
        f"{box.agent_root}/../secret.txt",
        "planted.txt",
        "/etc/passwd",
    ):
        refused = run_read(box, {"path": path}, CLIP)
        assert refused.is_error and "outside the workspace" in refused.output, path
        written = run_write(box, {"path": path, "content": "x"})
        assert written.is_error and "outside the workspace" in written.output, path
    assert secret.read_text() == "TOP SECRET 4711\n"
    done = run_write(box, {"path": "outputs/report.md", "content": "# r\n"})
    assert not done.is_error and (box.root / "outputs" / "report.md").read_text() == "# r\n"


def test_commands_under_bubblewrap_see_nothing_of_the_host(layout, tmp_path: Path) -> None:
    if bwrap_works() is not None:
        pytest.skip(f"no bubblewrap confinement here: {bwrap_works()}")
    ws, secret = layout
    box = Sandbox(ws, tmp_path / "copy", kind="bwrap", timeout=20)
    assert box.agent_root == "/workspace"
    assert run_bash(box, {"command": "cat docs/a.txt"}, CLIP).output == "alpha 1\nbeta 2\ngamma 3\n"
    for command in (
        "cat ../secret.txt",
        f"cat {secret}",
        f"ln -s {secret} l && cat l",
        "cat /workspace/../secret.txt",
        f"ls {tmp_path}",
    ):
        result = run_bash(box, {"command": command}, CLIP)
        assert result.is_error and "TOP SECRET" not in result.output, command
    assert run_bash(box, {"command": "touch /usr/x"}, CLIP).is_error  # system folders are read-only
    net = run_bash(
        box, {"command": "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 80), 3)\""}, CLIP
    )
    assert net.is_error and "unreachable" in net.output.lower()
    wrote = run_bash(box, {"command": "mkdir -p outputs && echo hi > outputs/x.txt"}, CLIP)
    assert not wrote.is_error and (box.root / "outputs" / "x.txt").read_text() == "hi\n"
    assert run_bash(box, {"command": "python3 -c 'import openpyxl; print(1)'"}, CLIP).output == "1\n"


def test_commands_under_bubblewrap_hold_no_capability_even_as_root(layout, tmp_path: Path) -> None:
    """Run as root (as CI runs), a confined command once kept root's capabilities (``CapEff: 000001fffeffffff``):
    ``mount -o remount,bind,rw /usr`` succeeded and a file written then appeared on the host's ``/usr``. Every
    capability is dropped and no new privileges can be gained."""
    if bwrap_works() is not None:
        pytest.skip(f"no bubblewrap confinement here: {bwrap_works()}")
    if os.geteuid() != 0:
        pytest.skip("needs root: an unprivileged user holds no capability to drop (CI runs as root)")
    ws, _ = layout
    box = Sandbox(ws, tmp_path / "copy", kind="bwrap", timeout=20)
    status = run_bash(
        box, {"command": "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status"}, CLIP
    )
    fields = dict(line.split(":\t") for line in status.output.splitlines())
    assert fields == {"CapPrm": "0" * 16, "CapEff": "0" * 16, "CapBnd": "0" * 16, "NoNewPrivs": "1"}
    planted = Path("/usr/rtlab-sandbox-escape-probe")
    remount = run_bash(
        box, {"command": f"mount -o remount,bind,rw /usr && echo escaped > {planted}; echo $?"}, CLIP
    )
    assert "permission denied" in remount.output.lower() and not planted.exists()


def test_a_command_past_its_timeout_is_killed_and_said_so(layout, tmp_path: Path) -> None:
    ws, _ = layout
    box = Sandbox(ws, tmp_path / "copy", kind="none", timeout=0.5)
    result = run_bash(box, {"command": "sleep 30; echo never"}, CLIP)
    assert result.is_error and result.exit_code == 124 and "never" not in result.output
    assert result.shown.endswith("Command timed out after 0.5 s and was killed")
    assert result.frames[-1].kind == "frame"


def test_an_unknown_sandbox_kind_is_refused(layout, tmp_path: Path) -> None:
    ws, _ = layout
    with pytest.raises(SandboxError, match="sandbox must be one of"):
        Sandbox(ws, tmp_path / "copy", kind="chroot")  # type: ignore[arg-type]  # deliberately wrong


def test_an_output_past_the_harness_limit_is_cut_and_said_so(layout, tmp_path: Path) -> None:
    from rtlab.agent._sandbox import MAX_OUTPUT_BYTES

    ws, _ = layout
    box = Sandbox(ws, tmp_path / "copy", kind="none")
    result = run_bash(box, {"command": f"head -c {MAX_OUTPUT_BYTES + 10} /dev/zero | tr '\\0' a"}, CLIP)
    assert len(result.output) == MAX_OUTPUT_BYTES + len(
        f"\n\n[output cut by the harness at {MAX_OUTPUT_BYTES} bytes]"
    )
    assert result.clipped and result.shown.endswith(
        f"[output cut by the harness at {MAX_OUTPUT_BYTES} bytes]"
    )
    assert [f.kind for f in result.frames] == ["clip", "frame"]


def test_a_python_installed_under_tmp_stays_visible_in_the_private_tmp() -> None:
    """A clone (and its .venv) under /tmp: the private /tmp is mounted first and the interpreter's folders on it,
    else `python3` inside the sandbox lost the virtualenv (openpyxl) when the repository lived under /tmp."""
    from rtlab.agent._sandbox import _python_dirs, bwrap_command

    args = bwrap_command(Path("/tmp/ws"), "true")
    tmpfs = args.index("--tmpfs")
    for d in _python_dirs():
        assert args.index(d) > tmpfs, d
