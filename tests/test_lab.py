"""`make lab` in miniature: JupyterLab (a Jupyter server on 127.0.0.1, a free port, a token, settings and runtime
folders of its own) serving a repository's notebooks/, driven by headless chromium (tests/browser.py): one
notebook opened, all its cells run in the kernel JupyterLab starts in notebooks/, on the embedded dataset it
finds from there, and its figures shown in the page and written to the repository's figures/."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import headless_chromium
from conftest import EmbeddedRepo


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(root_dir: Path, home: Path) -> Iterator[str]:
    """JupyterLab serving ``root_dir`` on 127.0.0.1 (a free port, a random token; its configuration, runtime,
    settings and workspace folders under ``home``, so nothing of the user's is read or written); yields its
    base URL with the token, and shuts it down (kernels and all) at the end."""
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        **{
            name: str(home / folder)
            for name, folder in (
                ("JUPYTER_CONFIG_DIR", "config"),
                ("JUPYTER_RUNTIME_DIR", "runtime"),
                ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
                ("IPYTHONDIR", "ipython"),
            )
        },
    }
    env.pop("OPENAI_BASE_URL", None)  # the notebooks' simulated model, whatever this shell points at
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        "--expose-app-in-browser",  # window.jupyterapp: its commands, as JupyterLab's own UI tests use them
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
    ]
    log = (home / "server.log").open("wb")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"JupyterLab did not start:\n{(home / 'server.log').read_text()}")
            time.sleep(0.5)
        yield f"{base}|{token}"
    finally:
        with contextlib.suppress(OSError):  # a clean stop shuts its kernels down
            request = urllib.request.Request(f"{base}/api/shutdown?token={token}", method="POST")
            urllib.request.urlopen(request, timeout=10).close()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)  # its own session: the server and what it started
            server.wait()
        log.close()


def _state(driver) -> dict:
    """The open notebook's state in the page: its kernel's status, dialogs open, code cells, those run, the
    running, images and errors shown."""
    return driver.execute_script(
        """
        const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
            .map(p => p.textContent.trim());
        const app = window.jupyterapp, panel = app && app.shell.currentWidget;
        const session = panel && panel.sessionContext && panel.sessionContext.session;
        return {
            app: typeof app !== 'undefined',
            kernel: session && session.kernel ? session.kernel.status : null,
            dialogs: [...document.querySelectorAll('.jp-Dialog')].map(d => d.textContent.slice(0, 200)),
            cells: prompts.length,
            ran: prompts.filter(p => /^\\[\\d+\\]:$/.test(p)).length,
            busy: prompts.filter(p => p === '[*]:').length,
            images: document.querySelectorAll('.jp-Notebook .jp-OutputArea-output img').length,
            errors: [...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
                .map(e => e.textContent).filter(t => /Error|Traceback/.test(t)),
        };
        """
    )


def _wait(driver, what: str, done, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        state = _state(driver)
        if state["errors"]:
            raise AssertionError(f"the notebook failed: {state['errors']}")
        if done(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout:.0f}s ({json.dumps(state)})")
        time.sleep(0.5)


def test_a_notebook_runs_in_jupyterlab_and_shows_its_figures(
    embedded_repo: EmbeddedRepo, tmp_path: Path
) -> None:
    books, figures = embedded_repo.root / "notebooks", embedded_repo.root / "figures"
    for old in figures.glob("01_*"):
        old.unlink()
    (tmp_path / "home").mkdir()
    (tmp_path / "chromium").mkdir()
    with headless_chromium(tmp_path / "chromium") as driver, jupyterlab(books, tmp_path / "home") as server:
        base, token = server.split("|")
        driver.get(f"{base}/lab/tree/01_trajectories.ipynb?token={token}")
        opened = _wait(
            driver, "the notebook opened, its kernel idle", lambda s: s["cells"] >= 8 and s["kernel"] == "idle", 180
        )
        assert opened["ran"] == opened["images"] == 0 and opened["dialogs"] == []
        for attempt in range(3):  # Run > Run All Cells; again if the page was not ready for it
            driver.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            try:
                _wait(driver, "the cells started", lambda s: s["busy"] or s["ran"], 20)
                break
            except AssertionError:
                if attempt == 2:
                    raise
        _wait(driver, "every cell ran", lambda s: s["ran"] == s["cells"] and not s["busy"], 300)
        state = _wait(driver, "both figures shown", lambda s: s["images"] >= 2, 30)
    # the figures the notebook drew are in the page, and written where make figures writes them (FIGURES =
    # "figures", found from notebooks/: the repository's figures/), nothing beside the notebooks
    assert state["images"] == 2, state
    assert {p.name for p in figures.glob("01_*")} == {
        f"01_{name}-simulated.{ext}" for name in ("trajectory_sizes", "step_sizes") for ext in ("png", "pdf")
    }
    assert not (books / "figures").exists() and not (books / "build").exists()
    with pytest.raises(OSError):  # the server is gone
        urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
