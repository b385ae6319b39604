"""The agent's private copy of a task's workspace, and the confinement its commands run under.

:class:`Sandbox` copies the task's workspace into the run's own folder (regular files and folders only; a
symbolic link is kept only when it points inside the workspace, as a link inside the copy; one that points
outside is left out and reported in :attr:`Sandbox.skipped`, never followed; fifos, sockets and devices are
left out too). Then:

- ``bash`` commands run under **bubblewrap** (``bwrap``, Debian package ``bubblewrap``) when ``kind`` is
  ``bwrap`` (``auto`` picks it when a trial confinement works here): the copy is bound read-write at
  :data:`AGENT_ROOT` (the working directory), the system folders (``/usr``, the libraries, a few files of
  ``/etc``, this Python's installation, so ``python3`` has openpyxl) read-only, a private ``/tmp``, ``/proc`` and
  ``/dev``, no network (every namespace unshared), a cleared environment, every capability dropped and no new
  privileges (run as root, a command still cannot remount or write the system folders), and the whole process
  tree killed at the per-command timeout or when rtlab dies. Nothing else of the machine is visible: ``..`` out of the
  copy and absolute paths name nothing of the host.
- With ``kind="none"`` commands run unconfined in the copy (they can reach anything the user can): only when
  asked for by name (``--sandbox none``); ``auto`` never falls back to it, it raises :class:`SandboxError`.
- ``read`` and ``write`` resolve their paths in Python (:meth:`Sandbox.resolve`): the real path, links
  followed, must lie inside the copy.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rtlab.errors import RtlabError

SandboxKind = Literal["auto", "bwrap", "none"]
SANDBOX_KINDS: tuple[SandboxKind, ...] = ("auto", "bwrap", "none")
AGENT_ROOT = "/workspace"
"""Where the copy is mounted inside the sandbox: the agent's working directory (and the cwd its run records)."""
COMMAND_TIMEOUT = 60.0
"""Seconds a command may run by default before it is killed."""
MAX_OUTPUT_BYTES = 4_000_000
"""Bytes of a command's output kept (the rest is cut before any clip policy: memory, not what is shown)."""
_ETC = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
)
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32")


class SandboxError(RtlabError):
    """The sandbox cannot be made as asked (no confinement here, a bad workspace), or a path escapes it."""


@dataclass(frozen=True)
class CommandResult:
    """What one command printed and how it ended."""

    output: str
    """Stdout and stderr merged, as UTF-8 (undecodable bytes replaced), cut at :data:`MAX_OUTPUT_BYTES`."""
    exit_code: int
    """Its exit status (``-N``: killed by signal N; 124 when it timed out)."""
    timed_out: bool = False
    """Killed at the per-command timeout."""
    cut: bool = False
    """The output was longer than :data:`MAX_OUTPUT_BYTES` and was cut there."""


def _python_dirs() -> list[str]:
    """This interpreter's installation and virtualenv (read-only in the sandbox, so ``python3`` works)."""
    dirs = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    return sorted(d for d in dirs if not d.startswith("/usr"))


def _env(home: str) -> dict[str, str]:
    bin_dirs = [os.path.join(d, "bin") for d in (sys.prefix, sys.base_prefix)]
    path = os.pathsep.join([*dict.fromkeys(bin_dirs), "/usr/local/bin", "/usr/bin", "/bin"])
    return {"PATH": path, "HOME": home, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TZ": "UTC", "TERM": "dumb"}


def bwrap_command(root: Path, command: str) -> list[str]:
    """The ``bwrap`` argument list that runs ``command`` with ``bash -c`` confined to ``root`` (module docstring)."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL"]
    for d in _SYSTEM:
        args += ["--ro-bind-try", d, d]
    for f in _ETC:
        args += ["--ro-bind-try", f, f]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    # after the private /tmp: a virtualenv under /tmp stays visible (bwrap mounts in order)
    for d in _python_dirs():
        args += ["--ro-bind-try", d, d]
    args += ["--bind", str(root), AGENT_ROOT, "--chdir", AGENT_ROOT]
    for key, value in _env(AGENT_ROOT).items():
        args += ["--setenv", key, value]
    return [*args, "bash", "-c", command]


@functools.cache
def bwrap_works() -> str | None:
    """``None`` when bubblewrap confines a command here (a trial run that must not see the host's files nor
    reach the network, and holds no capability), else why not."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed (Debian package bubblewrap)"
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp)
        (probe / "inside.txt").write_text("ok", encoding="utf-8")
        test = (
            f"cat inside.txt && test ! -e {tmp} && ! cat /proc/1/root/etc/hostname 2>/dev/null"
            " && grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status"
        )
        try:
            done = subprocess.run(bwrap_command(probe, test), capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bwrap did not run: {exc}"
        if done.returncode != 0 or done.stdout.strip() != b"ok":
            return f"bwrap failed here (exit {done.returncode}): {done.stderr.decode(errors='replace')[:300]}"
    return None


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def copy_workspace(source: Path, dest: Path, *, exclude: tuple[str, ...] = ()) -> list[str]:
    """Copy ``source`` into ``dest`` (which must not exist): folders, regular files, and symbolic links that
    point inside ``source`` (as relative links); returns the paths (relative to ``source``) left out: links out
    of it, special files, and the top-level names in ``exclude``."""
    src = os.path.realpath(source)
    if not os.path.isdir(src):
        raise SandboxError(f"{source}: the task's workspace is not a folder")
    dest.mkdir(parents=True)
    skipped: list[str] = []
    for folder, dirs, files in os.walk(src, followlinks=False):
        rel_folder = os.path.relpath(folder, src)
        out_folder = dest if rel_folder == "." else dest / rel_folder
        names = sorted(dirs) + sorted(files)
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        for name in names:
            rel = name if rel_folder == "." else os.path.join(rel_folder, name)
            here = os.path.join(folder, name)
            if rel_folder == "." and name in exclude:
                if name in dirs:
                    dirs.remove(name)
                skipped.append(rel)
                continue
            if os.path.islink(here):
                target = os.path.realpath(here)
                if not _inside(target, src) or not os.path.exists(target):
                    skipped.append(rel)
                    continue
                os.symlink(os.path.relpath(target, os.path.dirname(here)), out_folder / name)
            elif os.path.isdir(here):
                (out_folder / name).mkdir()
            elif os.path.isfile(here):
                shutil.copy2(here, out_folder / name, follow_symlinks=False)
            else:
                skipped.append(rel)
    return skipped


class Sandbox:
    """A private copy of a workspace and the way its commands run (module docstring)."""

    def __init__(
        self,
        source: str | Path,
        copy_to: str | Path,
        *,
        kind: SandboxKind = "auto",
        timeout: float = COMMAND_TIMEOUT,
        exclude: tuple[str, ...] = (),
    ) -> None:
        if kind not in SANDBOX_KINDS:
            raise SandboxError(f"sandbox must be one of {', '.join(SANDBOX_KINDS)}, not {kind!r}")
        if kind in ("auto", "bwrap"):
            why = bwrap_works()
            if why is not None:
                raise SandboxError(
                    f"no confinement for commands: {why}. Install bubblewrap, or pass --sandbox none to run "
                    "commands UNCONFINED (they can then reach anything this user can)"
                )
        self.kind: Literal["bwrap", "none"] = "none" if kind == "none" else "bwrap"
        self.timeout = timeout
        self.root = Path(copy_to)
        self.skipped = copy_workspace(Path(source), self.root, exclude=exclude)
        self.real_root = os.path.realpath(self.root)
        self.agent_root = AGENT_ROOT if kind == "bwrap" else self.real_root
        """The copy's path as the agent sees it (its working directory)."""

    def resolve(self, path: str) -> Path:
        """The real file a ``read`` / ``write`` path names (relative to the working directory, or absolute under
        :attr:`agent_root`); raises :class:`SandboxError` when it lies outside the copy, links followed."""
        if not isinstance(path, str) or not path.strip():
            raise SandboxError("the path is empty")
        if "\x00" in path:
            raise SandboxError("the path holds a NUL character")
        if os.path.isabs(path):
            if not _inside(os.path.normpath(path), self.agent_root):
                raise SandboxError(f"{path} is outside the workspace ({self.agent_root})")
            rel = os.path.relpath(os.path.normpath(path), self.agent_root)
        else:
            rel = path
        real = os.path.realpath(os.path.join(self.real_root, rel))
        if not _inside(real, self.real_root):
            raise SandboxError(f"{path} is outside the workspace ({self.agent_root})")
        return Path(real)

    def run(self, command: str) -> CommandResult:
        """Run ``command`` with ``bash -c`` in the copy, confined as :attr:`kind` says, killed at the timeout."""
        if self.kind == "bwrap":
            argv, cwd, env = bwrap_command(self.root, command), None, None
        else:
            argv, cwd, env = ["bash", "-c", command], str(self.root), _env(self.real_root)
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        timed_out = False
        try:
            data, _ = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            data, _ = proc.communicate()
        except BaseException:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            raise
        text = data[:MAX_OUTPUT_BYTES].decode("utf-8", errors="replace")
        cut = len(data) > MAX_OUTPUT_BYTES
        return CommandResult(text, 124 if timed_out else proc.returncode, timed_out, cut)

    def remove(self) -> None:
        """Delete the copy."""
        shutil.rmtree(self.root, ignore_errors=True)
