"""The set-up promises: cheap import, a CLI that lists its subcommands, conda and pip dependencies in step, the
README's three commands (`make lab` among them)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT


def test_import_rtlab_is_cheap() -> None:
    code = "import sys, rtlab; print(','.join(m for m in ('pandas', 'numpy', 'matplotlib', 'openai', 'sklearn') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


def test_cli_help_lists_subcommands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "rtlab", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for sub in ("ingest", "info", "formats"):
        assert re.search(rf"^\s+{sub}\s", out, re.M), sub


def test_environment_yml_mirrors_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = set(project["dependencies"]) | set(extras["dev"]) | set(extras["bench"]) | set(extras["mcp"])
    env = (ROOT / "environment.yml").read_text()
    pinned = {
        m.group(1)
        for m in re.finditer(r"^\s+- ([A-Za-z][\w.-]*(?:\[[\w,-]+\])?[<>=!~][^\s#]*)\s*$", env, re.M)
    }
    assert "python>=3.11" in pinned
    assert pinned - {"python>=3.11"} == wanted


def test_python_requirement_matches_readme() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    readme = (ROOT / "README.md").read_text()
    first_commands = re.findall(r"^\s*(make \w+)", readme, re.M)[:3]
    assert first_commands == ["make figures", "make test", "make lab"]


def test_make_lab_builds_the_embedded_dataset_then_opens_jupyterlab_on_the_notebooks() -> None:
    import shutil

    make = (ROOT / "Makefile").read_text()
    assert re.search(r"^lab: \$\(STAMP\) \$\(STORE\)/_manifest\.json$", make, re.M)  # the store make store builds
    if shutil.which("make") is None:
        pytest.skip("no make here")
    dry = subprocess.run(
        ["make", "-n", "--no-print-directory", "lab"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    last = dry.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\.venv/bin/jupyter lab --notebook-dir=notebooks( --allow-root)?", last.strip()), last


def test_lazy_public_names_resolve() -> None:
    import rtlab

    for name in rtlab.__all__:
        assert getattr(rtlab, name) is not None, name
    assert set(rtlab.__all__) <= set(dir(rtlab))
