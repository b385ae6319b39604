"""`make figures` in miniature: every notebook runs headless, with its kernel in notebooks/ as JupyterLab starts it,
on the sample data and on an embedded dataset found by itself; the notebooks name only public, current rtlab names;
failures name notebook and cell."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, EmbeddedRepo

from rtlab.figures import NotebookFailure, run_notebook
from rtlab.figures import main as run_all

BY_HAND = (
    "rtlab.ingest(",  # open_dataset reads the data
    "SimulatedServer",  # open_llm chooses the endpoint or the simulated model
    "LLMClient(",
    "os.environ",
    "rule_labels(",  # annotate runs the annotation pipeline
    "annotate_llm(",
    "random.",  # sample_at_most draws the seeded samples
    '"DCI"',  # BASELINE / TAB_METHOD name the arms, main_runs picks their runs
    '"RunningTab"',
    "t.method ==",
    "t.variant is None",
)


INSPECT_BOOK = "10_inspect.ipynb"
"""The notebook that runs its own Inspect task (rtlab.inspect.compare_arms) instead of opening a dataset."""


def test_notebooks_call_the_library_and_store_no_outputs() -> None:
    books = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    assert len(books) == 10 and books[-1].name == INSPECT_BOOK
    for path in books:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        source = "\n".join(c.source for c in code)
        # the one cell a reader edits is the first code cell: the embedded dataset unless DATA says otherwise
        # (notebook 10: where its Inspect logs go and which arms it runs)
        first = code[0]
        assert first.metadata.get("tags") == ["parameters"], path.name
        assert first.source.startswith("# Parameters: the one cell to edit"), path.name
        own = ("LOGS", "ARMS") if path.name == INSPECT_BOOK else ("DATA",)
        if path.name == INSPECT_BOOK:
            assert re.search(r'^LOGS = "build/inspect"  #', first.source, re.M), path.name
            assert re.search(r"^ARMS = \[", first.source, re.M), path.name
            assert source.count("compare_arms(locate(LOGS), arms=ARMS)") == 1, path.name
            assert "open_dataset(" not in source and "eval(" not in source, path.name
        else:
            data = re.search(r"^DATA = None  # None: the embedded simulated dataset", first.source, re.M)
            assert data, path.name
            assert source.count("open_dataset(DATA)") == 1 and "is_simulated(" not in source, path.name
        assert re.search(r'^FIGURES = "figures"  #', first.source, re.M), path.name
        names = "|".join((*own, "FIGURES"))
        assert not any(re.search(rf"^({names}) =", c.source, re.M) for c in code[1:]), path.name
        assert [w for w in BY_HAND if w in source] == [], path.name
        assert ("client" in source) == ("open_llm(" in source), path.name
        assert all(c.outputs == [] and c.execution_count is None for c in code), path.name


PRIVATE = re.compile(r"\brtlab(?:\.[A-Za-z]\w*)*\._\w+")
"""A private rtlab name: a dotted path with a segment below ``rtlab`` that starts with ``_``."""
DOTTED = re.compile(r"\brtlab(?:\.\w+)+")
FILES = re.compile(r"\brtlab/[\w./-]+\w")


def private_names(text: str) -> list[str]:
    return PRIVATE.findall(text)


def test_the_private_name_check_catches_private_names() -> None:
    assert private_names("the tab (`rtlab.environment._replay`) and rtlab.annotation._recovery.recover") == [
        "rtlab.environment._replay",
        "rtlab.annotation._recovery",
    ]
    assert private_names("from rtlab.figures._notebooks import skip_unless") == ["rtlab.figures._notebooks"]
    assert private_names("rtlab.environment.replay, rtlab.figures, rtlab_x._y, rtlab/analysis/_x.py") == []


def _resolves(name: str) -> bool:
    """Whether a dotted rtlab name is a module or an attribute of one (``rtlab.analysis.breakdown``)."""
    import importlib

    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_notebook_text_names_only_public_current_names() -> None:
    from rtlab.analysis import CODEBOOK_FILE

    for path in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells)  # markdown and code
        assert private_names(text) == [], path.name
        assert [n for n in DOTTED.findall(text) if not _resolves(n)] == [], path.name
        assert [f for f in FILES.findall(text) if not (ROOT / f).exists()] == [], path.name
        assert {m for m in re.findall(r"codebook_v\d+\.json", text)} <= {CODEBOOK_FILE}, path.name
    assert _resolves("rtlab.environment.replay") and not _resolves("rtlab.environment.no_such_name")


def test_every_notebook_runs_on_the_hand_made_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # from notebooks/, where JupyterLab starts kernels (make figures runs them from the root)
    figures = tmp_path / "figures"
    args = ["--data", str(ROOT / "data" / "sample"), "--figures", str(figures), "--cwd", str(ROOT / "notebooks")]
    assert run_all([*args, "--jobs", "2"]) == 0
    names = sorted(p.name for p in figures.iterdir())
    for stem in (
        "01_trajectory_sizes",
        "01_step_sizes",
        "02_failure_breakdown",
        "03_value_coverage",
        "08_tab_statistics",
        "09_annotator_kappa",
    ):
        assert f"{stem}.png" in names and f"{stem}.pdf" in names
    # notebook 10 runs its own task against the simulated model, whatever the data: its figure says so
    assert "10_inspect_arms-simulated.png" in names and "10_inspect_arms-simulated.pdf" in names
    assert all((figures / n).stat().st_size > 1000 for n in names)
    # notebook 09's REAL ("../shared/real", from the root) found from notebooks/ too
    if (ROOT.parent / "shared" / "real" / "officeqa" / "gold_labels.csv").is_file():  # real runs beside
        for stem in (
            "09_confusion_workspace_bench",
            "09_confusion_officeqa",
            "09_breakdown_rules_vs_gold_officeqa",
        ):
            assert f"{stem}.png" in names
    # the sample has no method arms: the result notebooks say why they made no figure
    out = capsys.readouterr().out
    for book in ("05_main_results", "06_reading_volume", "07_operating_styles"):
        assert f"skip {book}.ipynb  (needs " in out
    # the paper's masked-recovery sample is held values of *failed* items missing from the deliverable; the
    # sample's one held value (15,800) passed and is delivered, so notebook 04 (which made a figure from it when
    # every held value was asked about) says why it makes none
    assert "skip 04_masked_recovery.ipynb  (needs a held value of a failed item" in out


def test_every_notebook_runs_from_notebooks_on_the_embedded_dataset(
    embedded_repo: EmbeddedRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    # as in JupyterLab: kernels in notebooks/, the notebooks' own parameters (DATA = None, FIGURES = "figures"),
    # the repository's embedded dataset (here a small world, built by the commands its absence named)
    root = embedded_repo.root
    books = root / "notebooks"
    before = sorted(p.name for p in books.iterdir())
    executed = root.parent / "executed"
    assert run_all(["--notebooks", str(books), "--cwd", str(books), "--jobs", "2", "--executed", str(executed)]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()[:10]] == ["ok"] * 10, out
    names = sorted(p.name for p in (root / "figures").iterdir())  # the repository's figures/, as make figures
    for stem in (
        "01_trajectory_sizes",
        "02_failure_breakdown",
        "03_value_coverage",
        "05_main_pass_rate",
        "05_main_tcr70",
        "05_ablations",
        "06_reading_volume",
        "07_operating_styles",
        "08_tab_statistics",
        "09_annotator_kappa",
        "10_inspect_arms",
    ):
        assert f"{stem}-simulated.png" in names and f"{stem}-simulated.pdf" in names
    assert sorted(p.name for p in books.iterdir()) == before  # nothing written beside the notebooks
    # every figure drawn shows under its cell, not only a notebook's first (the style left interactive mode on)
    first = nbformat.read(executed / "01_trajectories.ipynb", as_version=4)
    shown = [o for c in first.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(shown) == 2


def test_the_runner_stops_before_any_notebook_when_the_embedded_dataset_is_not_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "data" / "simulated").mkdir(parents=True)
    (tmp_path / "data" / "simulated" / "config.json").write_text("{}")
    books = _books(tmp_path, {"01_never.ipynb": "open(FIGURES + '/01.txt', 'w').write('x')"})
    assert run_all(["--notebooks", str(books), "--cwd", str(books), "--figures", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not built yet" in err and "make store" in err and not (tmp_path / "01.txt").exists()
    assert run_all(["--data", str(tmp_path / "nowhere"), "--notebooks", str(books)]) == 2
    assert f"no dataset at {tmp_path / 'nowhere'}" in capsys.readouterr().err


def test_failure_names_notebook_and_cell(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("DATA = 'x'")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# t"),
        params,
        nbformat.v4.new_code_cell("y = 1"),
        nbformat.v4.new_code_cell("raise ValueError('boom ' + DATA)"),
    ]
    path = tmp_path / "99_broken.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(NotebookFailure) as err:
        run_notebook(path, {"DATA": "injected"}, cwd=tmp_path)
    # cells as a reader counts them, from 1: markdown, parameters, `y = 1`, the failing cell (injected one not counted)
    assert err.value.cell == 4
    assert "boom injected" in err.value.error
    assert "99_broken.ipynb" in str(err.value)


def test_a_run_leaves_no_kernel_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # nothing of the kernel outlives the notebook: no local sockets (POSIX) in the working folder, jupyter's
    # default place for them, nor in the temporary folder rtlab gives them
    import tempfile

    work, temp = tmp_path / "work", tmp_path / "temp"
    work.mkdir()
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 6 * 7")]
    nbformat.write(nb, tmp_path / "01_tiny.ipynb")
    run_notebook(tmp_path / "01_tiny.ipynb", {}, cwd=work)
    assert list(work.iterdir()) == []
    assert list(temp.iterdir()) == []


WAIT_FOR_02 = """import os, time
deadline = time.monotonic() + 120
while not os.path.exists(FIGURES + '/02.txt'):
    if time.monotonic() > deadline:
        raise TimeoutError('02 never ran beside 01')
    time.sleep(0.05)
"""


def _books(tmp_path: Path, bodies: dict[str, str]) -> Path:
    """A folder of two-cell notebooks: the parameters cell, then ``bodies[name]``."""
    books = tmp_path / "books"
    books.mkdir()
    for name, body in bodies.items():
        nb = nbformat.v4.new_notebook()
        params = nbformat.v4.new_code_cell("DATA = 'sim'\nFIGURES = '.'")
        params.metadata["tags"] = ["parameters"]
        nb.cells = [params, nbformat.v4.new_code_cell(body)]
        nbformat.write(nb, books / name)
    return books


def test_a_notebook_can_skip_with_a_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    books = _books(
        tmp_path,
        {
            "01_skips.ipynb": "from rtlab.figures import skip_unless\nskip_unless(DATA == 'sim', 'no method labels')",
            "02_runs.ipynb": "open(FIGURES + '/02.txt', 'w').write('x')",
        },
    )
    figures = tmp_path / "figures"
    figures.mkdir()
    assert run_all(["--data", str(tmp_path), "--figures", str(figures), "--notebooks", str(books)]) == 0
    out = capsys.readouterr().out
    assert "skip 01_skips.ipynb  (no method labels)" in out
    assert "ok  02_runs.ipynb" in out and (figures / "02.txt").exists()


def test_notebooks_run_in_parallel_and_report_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --jobs 2: notebooks run two at a time, each in a process of its own; outcomes are printed in notebook
    # order whatever finishes first, and a failure is reported with its notebook and cell and ends the run.
    # 01 ends only once 02 has written its file: 02 finishes first, and 01 fails if the two do not run at once
    # (the deadline only turns a hang into a failure)
    books = _books(
        tmp_path,
        {
            "01_slow.ipynb": WAIT_FOR_02 + "open(FIGURES + '/01.txt', 'w').write('x')",
            "02_fast.ipynb": "open(FIGURES + '/02.txt', 'w').write('x')",
            "03_skips.ipynb": "from rtlab.figures import skip_unless\nskip_unless(False, 'nothing to draw')",
            "04_fails.ipynb": "raise ValueError('boom')",
        },
    )
    figures = tmp_path / "figures"
    figures.mkdir()
    args = ["--data", str(tmp_path), "--figures", str(figures), "--notebooks", str(books), "--jobs", "2"]
    assert run_all(args) == 1
    captured = capsys.readouterr()
    lines = [line.rsplit("  (", 1)[0] for line in captured.out.splitlines()]
    assert lines == ["ok  01_slow.ipynb", "ok  02_fast.ipynb", "skip 03_skips.ipynb"]
    assert "04_fails.ipynb: cell 2 failed" in captured.err and "boom" in captured.err
    assert (figures / "01.txt").exists() and (figures / "02.txt").exists()
