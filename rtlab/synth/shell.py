"""Running the simulated agents' commands for real in a generated workspace.

Every observation in the simulated dataset is the genuine output of its command: ``bash -c`` in the role's
workspace folder, stdout and stderr merged (as Pi's bash tool returns them), in a fixed environment so the bytes
do not depend on the machine (``LC_ALL=C`` for sorting, ``TZ=UTC``, this interpreter's folder first on ``PATH``
so ``python3`` has openpyxl). Commands that list files end in ``| sort``: ``find`` and ``grep -r`` walk folders in
the file system's order, which differs between machines. Results are memoised per (folder, command): many
simulated runs issue the same command over the same unchanging files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from rtlab.environment import Workspace

TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ShellResult:
    """What one command printed and how it exited."""

    output: str
    """Stdout and stderr merged, decoded as UTF-8 (undecodable bytes replaced)."""
    exit_code: int
    """The command's exit status (negative: killed by that signal)."""


def shell_environment(root: Path) -> dict[str, str]:
    """The fixed environment the commands run in: C locale, UTC, this interpreter first on ``PATH``."""
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "/usr/bin:/bin")])
    return {"PATH": path, "LC_ALL": "C", "LANG": "C", "TZ": "UTC", "HOME": str(root)}


class Shell:
    """A role's workspace as the agents' terminal: ``run(command)`` executes in ``root`` and remembers the answer."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        self._env = shell_environment(self.root)
        self._workspace = Workspace(self.root)
        self._memo: dict[str, ShellResult] = {}

    def run(self, command: str) -> ShellResult:
        """The command's merged output and exit code; raises ``RuntimeError`` when it does not finish in time."""
        hit = self._memo.get(command)
        if hit is not None:
            return hit
        try:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=self.root,
                env=self._env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"simulated command did not finish in {TIMEOUT_S:.0f} s: {command}") from None
        result = ShellResult(done.stdout.decode("utf-8", errors="replace"), done.returncode)
        self._memo[command] = result
        return result

    def read_text(self, relpath: str) -> str:
        """A workspace file's text, as Pi's ``read`` tool returns it (the file's own bytes as UTF-8); read through
        :class:`rtlab.environment._workspace.Workspace`, so never outside the root."""
        text = self._workspace.read_text(relpath)
        if text is None:
            raise ValueError(f"{relpath!r} is not a text file of the workspace {self.root}")
        return text
