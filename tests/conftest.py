"""Shared fixtures: where the private real data lives (``../shared/real``), skipping cleanly without it."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL = Path(os.environ.get("RTLAB_REAL_DATA", ROOT.parent / "shared" / "real"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def guard_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse every connection and name lookup off the loopback from now on (in ``monkeypatch``'s scope): a test
    that tries the network fails (the Inspect tests: mockllm and tokenizers would otherwise fetch)."""
    connect, lookup = socket.socket.connect, socket.getaddrinfo

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and address[0] not in LOOPBACK:
            raise AssertionError(f"network access attempted: {address}")
        return connect(self, address)

    def guarded_lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in (*LOOPBACK, None):
            raise AssertionError(f"name lookup attempted: {host}")
        return lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_lookup)


@pytest.fixture
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`guard_loopback` for one test."""
    guard_loopback(monkeypatch)


@pytest.fixture(scope="session")
def real() -> Path:
    """The real-data folder; tests that use it skip with a reason when it is absent."""
    if not REAL.is_dir():
        pytest.skip(f"real data not present at {REAL} (set RTLAB_REAL_DATA to point at shared/real)")
    return REAL


@pytest.fixture(scope="session")
def real_pinned(real: Path) -> list[Path]:
    """The folders of ``real`` whose counts the suite pins: all but ``wild/``, the logs of formats that rtlab
    does not read yet (they are the subject of the readers issue, and their tests count them themselves)."""
    return sorted(p for p in real.iterdir() if p.is_dir() and p.name != "wild")


def wild_folder(real: Path, name: str) -> Path:
    """``real / "wild" / name``, the public logs of one format; the test skips with the reason when it is absent
    (``real`` may be present without ``wild/``)."""
    folder = real / "wild" / name
    if not folder.is_dir():
        pytest.skip(f"no {folder}: the wild logs of this format are absent")
    return folder


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def server():
    """One local OpenAI-compatible server (simulated model) for the whole test session."""
    from rtlab.llm import SimulatedServer

    with SimulatedServer() as srv:
        yield srv


@pytest.fixture
def srv(server):
    """The shared server with its script and request log cleared for this test."""
    server.reset()
    return server


def warnings_of(trajectory) -> list[str]:
    """A trajectory's reading warnings as text (``path:line: reason``), for tests that look for words in them."""
    return [str(w) for w in trajectory.warnings]


fuzz_stats = {"cases": 0, "runs": 0}
"""What ``test_fuzz.py`` ran this session (mutated logs, command runs), printed at the end of the run."""


def pytest_terminal_summary(terminalreporter) -> None:
    if fuzz_stats["cases"]:
        terminalreporter.write_line(
            f"fuzz: {fuzz_stats['cases']} mutated logs, {fuzz_stats['runs']} command runs, 0 tracebacks ("
            + ", ".join(f"{k}: {v}" for k, v in sorted(fuzz_stats.items()) if k.startswith("exit"))
            + ")"
        )


SMALL_WORLD = {
    "seed": 1,
    "world": {"roles": ["operations"], "tasks_per_role": 3, "files_per_role": [120, 130]},
    "models": ["sim-reviewer", "sim-explorer"],
    "arms": ["DCI", "RunningTab", "RunningTab--no-capture"],
    "runs": 1,
}
"""A simulated world small enough for the suite, with every notebook's inputs (two methods, an ablation)."""


@dataclass
class EmbeddedRepo:
    """A repository in miniature (:func:`embedded_repo`) and what opening its embedded dataset said on the way."""

    root: Path
    """Its root: ``notebooks/`` (the notebooks), ``figures/``, ``data/simulated/config.json``, ``build/``."""
    nothing_built: Exception
    """What ``open_dataset(None)`` raised before anything was built."""
    no_store: Exception
    """What it raised once the world was generated (by the first command the first error named)."""


@pytest.fixture(scope="session")
def embedded_repo(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedRepo:
    """A copy of the repository's notebooks in a folder laid out as the repository is, whose embedded dataset is
    the small world :data:`SMALL_WORLD`, built by running the commands that ``open_dataset(None)``'s errors name,
    as a reader would (world first, then its store)."""
    import json
    import shutil
    import subprocess

    from rtlab.figures import DatasetNotBuilt, open_dataset

    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    (root / "figures").mkdir()
    (root / "data" / "simulated").mkdir(parents=True)
    (root / "data" / "simulated" / "config.json").write_text(json.dumps(SMALL_WORLD), encoding="utf-8")
    errors: list[Exception] = []
    for _ in range(3):
        try:
            open_dataset(cwd=root / "notebooks")
            break
        except DatasetNotBuilt as exc:
            errors.append(exc)
            subprocess.run(exc.commands[0], shell=True, cwd=exc.root, check=True)
    assert len(errors) == 2, errors
    return EmbeddedRepo(root, *errors)
