"""Execute every notebook headless (``make figures``): ``python -m rtlab.figures --data DIR --figures DIR``.

Each notebook's first code cell is tagged ``parameters`` (``DATA = None``, ``FIGURES = "figures"``, ...): the
one cell a reader edits. The runner inserts a cell after it with the values given here (``--data`` and
``--figures``, each when given), runs the notebook with its kernel in ``--cwd`` (the repository's root unless
told; JupyterLab starts kernels in ``notebooks/``, and the notebooks find their paths from either:
:func:`rtlab.figures.locate`), and on an error names the notebook and the cell that failed. Without ``--data``
the notebooks open the embedded simulated dataset themselves (:func:`rtlab.figures.embedded_dataset`, checked
here first). A notebook whose inputs the dataset lacks calls :func:`skip_unless`; it is reported as skipped,
with the reason, and the others go on. Executed copies are written to ``--executed`` when asked, never over the
sources.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rtlab.figures._dataset import embedded_dataset
from rtlab.figures._paths import ROOT, locate

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class SkipNotebook(Exception):  # noqa: N818 - it is a signal, not an error
    """Raised by a notebook whose inputs the dataset lacks: the runner reports the reason and goes on."""


def skip_unless(condition: object, reason: str) -> None:
    """Stop this notebook, as skipped with ``reason``, unless ``condition`` holds (e.g. the dataset has methods)."""
    if not condition:
        raise SkipNotebook(reason)


@dataclass
class NotebookSkipped(Exception):  # noqa: N818
    """A notebook that stopped itself with :func:`skip_unless`: reported as skipped, and the others go on."""

    notebook: Path
    """The notebook's path."""
    reason: str
    """The reason it gave."""


@dataclass
class NotebookFailure(Exception):
    """A notebook whose cell raised: which notebook, which cell, the cell's source and the error."""

    notebook: Path
    """The notebook's path."""
    cell: int
    """1-based number of the failed cell in the source notebook; 0 when no cell shows the error."""
    source: str
    """The failed cell's source; empty when no cell shows the error."""
    error: str
    """The kernel's error report, terminal colours removed."""

    def __str__(self) -> str:
        first = self.source.strip().splitlines()[0] if self.source.strip() else ""
        return f"{self.notebook}: cell {self.cell} failed ({first[:80]!r}):\n{self.error}"


def parameter_cell(values: dict[str, object]):
    import nbformat

    src = "# Parameters injected by rtlab.figures\n" + "".join(f"{k} = {v!r}\n" for k, v in values.items())
    cell = nbformat.v4.new_code_cell(src)
    cell.metadata["tags"] = ["injected-parameters"]
    return cell


def _kernel_config(sockets: str):
    """The kernel reached over local sockets in the folder ``sockets`` where the OS has them (only this user
    can connect, and the kernel does not warn about unencrypted TCP for every notebook), else over TCP on
    loopback."""
    from traitlets.config import Config

    config = Config()
    if os.name == "posix":
        config.KernelManager.transport = "ipc"
        # the sockets' path prefix: jupyter's default puts them in the working folder
        config.KernelManager.ip = os.path.join(sockets, "kernel")
    return config


def run_notebook(
    path: Path,
    values: dict[str, object],
    *,
    cwd: Path = ROOT,
    timeout: int = 600,
    executed: Path | None = None,
):
    """Execute one notebook with ``values`` injected after its ``parameters`` cell; raises NotebookFailure."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    at = next(
        (i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])), -1
    )
    nb.cells.insert(at + 1, parameter_cell(values))
    sockets = tempfile.TemporaryDirectory(prefix="rtlab-kernel-")
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        config=_kernel_config(sockets.name),
        resources={"metadata": {"path": str(cwd)}},
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        if exc.ename == "SkipNotebook":
            raise NotebookSkipped(path, str(exc.evalue)) from None
        failed = next(
            (
                i
                for i, c in enumerate(nb.cells)
                if c.cell_type == "code"
                and any(o.get("output_type") == "error" for o in c.get("outputs", []))
            ),
            -1,
        )
        # 1-based cell number as a reader counts cells in the source notebook (the injected cell is not there).
        number = (failed if failed > at else failed + 1) if failed >= 0 else 0
        error = _ANSI.sub("", str(exc))
        raise NotebookFailure(path, number, nb.cells[failed].source if failed >= 0 else "", error) from None
    finally:
        sockets.cleanup()
        if executed is not None:
            executed.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, executed / path.name)
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rtlab.figures", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        help="dataset each notebook reads: runs or a store (default: the notebooks' own DATA, the embedded"
        " simulated dataset build/simulated)",
    )
    parser.add_argument(
        "--figures",
        help="where figures are written (default: the notebooks' own FIGURES, the repository's figures/)",
    )
    parser.add_argument("--notebooks", default=str(ROOT / "notebooks"), help="folder of notebooks")
    parser.add_argument(
        "--cwd",
        default=str(ROOT),
        help="the kernels' working folder (default: the repository's root; JupyterLab's is notebooks/)",
    )
    parser.add_argument("--only", nargs="*", help="run only notebooks whose name starts with one of these")
    parser.add_argument("--executed", help="write executed copies of the notebooks here")
    parser.add_argument(
        "--jobs", type=int, default=1, help="notebooks run at once, each in its own process (default 1)"
    )
    args = parser.parse_args(argv)

    books = sorted(Path(args.notebooks).glob("[0-9]*.ipynb"))
    if args.only:
        books = [b for b in books if any(b.name.startswith(o) for o in args.only)]
    if not books:
        print(f"no notebooks found in {args.notebooks}", file=sys.stderr)
        return 2
    cwd = str(Path(args.cwd).resolve())
    values: dict[str, str] = {}  # what is not given here, each notebook's parameters cell decides
    if args.figures is not None:
        values["FIGURES"] = str(locate(args.figures).resolve())
    if args.data is not None:
        data = locate(args.data).resolve()
        if not data.exists():
            print(f"no dataset at {data}", file=sys.stderr)
            return 2
        values = {"DATA": str(data), **values}
    else:  # the notebooks open it themselves; stop now, not in nine first cells, when it is not built
        try:
            embedded_dataset(cwd=cwd)
        except FileNotFoundError as exc:
            print(exc, file=sys.stderr)
            return 2
    executed = str(Path(args.executed).resolve()) if args.executed else None
    figures = values.get("FIGURES", "the folder each notebook's FIGURES names")
    if args.jobs <= 1 or len(books) == 1:
        outcomes: Iterable[tuple[str, str, float]] = (_run_one(str(b), values, executed, cwd) for b in books)
        return _report(books, outcomes, figures)
    import multiprocessing

    from rtlab._workers import process_pool

    # spawned, not forked: each worker starts kernels of its own, with no event loop or socket state inherited;
    # workers die with this process, however it dies
    with process_pool(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_run_one, str(b), values, executed, cwd) for b in books]
        try:
            return _report(books, (f.result() for f in futures), figures)
        finally:
            for future in futures:  # after a failure, notebooks not yet started are not started
                future.cancel()


def _run_one(book: str, values: dict[str, str], executed: str | None, cwd: str) -> tuple[str, str, float]:
    """Run one notebook with its kernel in ``cwd``: ``("ok" | "skip" | "failed", reason or error, seconds)``
    (plain values, so that a worker process can send them back)."""
    start = time.perf_counter()
    try:
        run_notebook(Path(book), dict(values), cwd=Path(cwd), executed=Path(executed) if executed else None)
    except NotebookSkipped as exc:
        return "skip", exc.reason, time.perf_counter() - start
    except NotebookFailure as exc:
        return "failed", str(exc), time.perf_counter() - start
    return "ok", "", time.perf_counter() - start


def _report(books: list[Path], outcomes: Iterable[tuple[str, str, float]], figures: str) -> int:
    """Print each notebook's outcome in notebook order; stop at the first failure (exit status 1)."""
    for book, (status, detail, seconds) in zip(books, outcomes, strict=False):
        if status == "failed":
            print(f"FAILED {detail}", file=sys.stderr)
            return 1
        if status == "skip":
            print(f"skip {book.name}  ({detail})")
        else:
            print(f"ok  {book.name}  ({seconds:.1f}s)")
    print(f"figures in {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
