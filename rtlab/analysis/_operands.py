"""How a wrong one-number answer was built: from a wrong operand shown beside the right one, at the wrong
scale, or by copying the wrong cell (codebook 2.1, rules R10d, R10e, R10f).

An item whose expected value is one number, not delivered, by a run whose deliverable states one number (the
answer of a question-answering task such as OfficeQA) is looked at three ways, each a general condition:

- **operand** (R10d): the agent's own arithmetic is re-run with one of its operands replaced by a value shown
  beside it, and reproduces the expected value. The arithmetic is a Python program the agent ran (a ``-c``
  string, a here-document, a script call) whose printed value is the delivered answer; its operands are its
  numeric literals of three or more significant digits that appear as cells of a table (``|``-separated
  lines) shown before the program ran. A replacement is another cell of the operand's row (the wrong column),
  the cell in the same column of another row of its table (the wrong row), or every operand of one column
  moved together to another column (a shifted header). The program is evaluated by a small interpreter of
  straight-line arithmetic (assignments, ``+ - * / // % **``, ``abs round min max sum len``, ``math`` and
  ``statistics`` functions, ``print``); a program that does anything else is not re-run.
- **scale** (R10e): the answer times a power of a thousand (10^±3, ±6, ±9) is the expected value.
- **cell** (R10f): the expected value was shown as a cell of a table, and the answer is another cell of the same
  table in the same observation.

The match to the expected value is within :data:`REPRODUCE_TOLERANCE` (relative), ten times tighter than
OfficeQA's 1% so that a chance combination of shown numbers does not count.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
import statistics
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rtlab.records import Step, Trajectory
from rtlab.text import Compound, Number, find_numbers, parse

REPRODUCE_TOLERANCE = 0.001
"""Relative difference within which a re-run computation (or a rescaled answer) is the expected value."""
MIN_OPERAND_DIGITS = 3
"""Significant digits a literal needs to count as an operand read from a table (``3`` or ``12`` are
constants of the formula, a count of years, too common in tables to locate)."""
MAX_ANSWER_CHARS = 200
"""A deliverable longer than this (stripped) is not a one-number answer."""
MAX_EVALUATIONS = 5000
"""Re-runs tried per program at most (a program with many operands in wide tables is cut there)."""

MisbuiltKind = Literal["operand", "scale", "cell"]
"""How the answer was built wrong (the module's docstring defines each)."""


@dataclass(frozen=True)
class Misbuilt:
    """A wrong one-number answer explained: which operand was wrong, or its scale, and where it was shown."""

    kind: MisbuiltKind
    """``operand``, ``scale`` or ``cell`` (:data:`MisbuiltKind`)."""
    rationale: str
    """What was replaced by what and what it gives, in a sentence."""
    step: int | None
    """The step whose output showed the right value (the right operand's table, the expected cell); ``None``
    for a wrong scale."""
    excerpt: str
    """The table line that holds the right value (empty for a wrong scale)."""


# ---------------------------------------------------------------------------------------------------------
# The answer and the tables shown


def one_number_answer(files: Sequence[tuple[str, str]]) -> Number | None:
    """The deliverable's one number: every delivered file and the final message together are short
    (:data:`MAX_ANSWER_CHARS`) and state one value (repeats of it allowed); else ``None``."""
    numbers: list[Number] = []
    for _, text in files:
        if len(text.strip()) > MAX_ANSWER_CHARS:
            return None
        numbers += find_numbers(text)
    if not numbers or any(not _close(n.value, numbers[0].value, 1e-9) for n in numbers):
        return None
    return numbers[0]


@dataclass(frozen=True)
class _Cell:
    step: int
    table: int
    row: int
    column: int
    value: float
    line: str


def _tables(step: Step) -> list[list[list[tuple[int, float] | None]]]:
    """The step's tables: runs of ``|``-separated lines; per line, per cell, (column, first number) or None."""
    out: list[list[list[tuple[int, float] | None]]] = []
    current: list[list[tuple[int, float] | None]] = []
    for line in (step.shown or "").splitlines():
        if line.count("|") >= 2:
            cells: list[tuple[int, float] | None] = []
            for j, cell in enumerate(line.split("|")):
                found = find_numbers(cell)
                cells.append((j, found[0].value) if len(found) == 1 else None)
            current.append(cells)
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


class _Shown:
    """Every numeric table cell the steps showed, and where, to find an operand's neighbours."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.cells: list[_Cell] = []
        self.grid: dict[tuple[int, int], list[list[tuple[int, float] | None]]] = {}
        self.lines: dict[tuple[int, int, int], str] = {}
        for step in steps:
            lines = [ln for ln in (step.shown or "").splitlines() if ln.count("|") >= 2]
            k = 0
            for t, table in enumerate(_tables(step)):
                self.grid[(step.index, t)] = table
                for r, row in enumerate(table):
                    self.lines[(step.index, t, r)] = lines[k] if k < len(lines) else ""
                    k += 1
                    for cell in row:
                        if cell is not None:
                            self.cells.append(_Cell(step.index, t, r, cell[0], cell[1], ""))

    def find(self, value: float, *, before: int | None = None) -> list[_Cell]:
        """The cells holding ``value`` exactly (as written), in steps before ``before`` when given."""
        return [c for c in self.cells if c.value == value and (before is None or c.step < before)]

    def value(self, step: int, table: int, row: int, column: int) -> float | None:
        rows = self.grid.get((step, table), [])
        if not 0 <= row < len(rows):
            return None
        cell = next((c for c in rows[row] if c is not None and c[0] == column), None)
        return cell[1] if cell is not None else None

    def line(self, cell: _Cell) -> str:
        return self.lines.get((cell.step, cell.table, cell.row), "").strip()

    def columns(self, step: int, table: int, row: int) -> list[int]:
        rows = self.grid.get((step, table), [])
        return [c[0] for c in rows[row] if c is not None] if 0 <= row < len(rows) else []

    def n_rows(self, step: int, table: int) -> int:
        return len(self.grid.get((step, table), []))


# ---------------------------------------------------------------------------------------------------------
# The agent's arithmetic


_PYTHON = re.compile(r"^(?:.*/)?python(?:\d+(?:\.\d+)?)?$")


def python_programs(step: Step) -> list[str]:
    """The Python programs a step ran: a ``script`` action's program, and in a shell command every
    ``python -c CODE`` and ``python - <<EOF`` here-document (unparsable commands give none)."""
    action = step.action
    if action is None:
        return []
    if action.kind == "script" and (action.language or "python") == "python" and action.command:
        return [action.command]
    if action.kind != "shell":
        return []
    out: list[str] = []
    for part in action.parts or (action,):
        if not part.command:
            continue
        try:
            pipelines = parse(part.command)
        except Exception:  # noqa: BLE001 - a command the parser cannot read holds no program it can find
            continue
        stack = list(pipelines)
        while stack:
            pipeline = stack.pop(0)
            for stage in pipeline.stages:
                if isinstance(stage, Compound):
                    stack += [*stage.condition, *stage.body]
                    continue
                words = [w.text for w in stage.words]
                if not words or not _PYTHON.match(words[0]):
                    continue
                if "-c" in words[1:-1]:
                    out.append(words[words.index("-c") + 1])
                    continue
                heredoc = next((r.heredoc for r in stage.redirects if r.op == "<<" and r.heredoc), None)
                if heredoc is not None and (len(words) == 1 or words[1] == "-"):
                    out.append(heredoc)
    return out


class _Unsupported(Exception):
    """The program does something the interpreter does not re-run."""


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "sum": sum,
    "len": len,
    "float": float,
    "int": int,
    "pow": pow,
}
_MODULES: dict[str, dict[str, Callable[..., Any]]] = {
    "math": {n: getattr(math, n) for n in ("sqrt", "log", "log10", "log2", "exp", "pow", "fabs", "prod")},
    "statistics": {
        n: getattr(statistics, n)
        for n in ("mean", "median", "pstdev", "stdev", "pvariance", "variance", "geometric_mean", "fmean")
    },
}
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}


class _Program:
    """A straight-line arithmetic program, parsed once and re-run with some literals replaced."""

    def __init__(self, code: str) -> None:
        with warnings.catch_warnings():  # an agent's '\|' in a string is its own business
            warnings.simplefilter("ignore")
            self.tree = ast.parse(code)  # SyntaxError: not a program to re-run
        self.literals: list[ast.Constant] = [
            n
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Constant) and type(n.value) in (int, float) and not isinstance(n.value, bool)
        ]

    def run(self, replace: dict[int, float] | None = None) -> list[float]:
        """The numbers the program prints, with literal ``i`` (index into :attr:`literals`) replaced."""
        swap = {id(self.literals[i]): v for i, v in (replace or {}).items()}
        env: dict[str, Any] = {}
        printed: list[float] = []
        functions = dict(_FUNCTIONS)
        modules: dict[str, dict[str, Callable[..., Any]]] = {}

        def value(node: ast.expr) -> Any:
            if isinstance(node, ast.Constant):
                if id(node) in swap:
                    return swap[id(node)]
                if isinstance(node.value, (int, float, str)) and not isinstance(node.value, bool):
                    return node.value
                raise _Unsupported
            if isinstance(node, ast.Name):
                if node.id in env:
                    return env[node.id]
                raise _Unsupported
            if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
                a, b = value(node.left), value(node.right)
                if isinstance(node.op, ast.Pow) and abs(b) > 64:
                    raise _Unsupported
                return _BINARY[type(node.op)](a, b)
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
                v = value(node.operand)
                return -v if isinstance(node.op, ast.USub) else v
            if isinstance(node, (ast.List, ast.Tuple)):
                return [value(e) for e in node.elts]
            if isinstance(node, ast.Call) and not node.keywords:
                return callee(node.func)(*[value(arg) for arg in node.args])
            if isinstance(node, ast.JoinedStr):
                return [value(v.value) for v in node.values if isinstance(v, ast.FormattedValue)]
            raise _Unsupported

        def callee(node: ast.expr) -> Callable[..., Any]:
            if isinstance(node, ast.Name) and node.id in functions:
                return functions[node.id]
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr in modules[node.value.id]
            ):
                return modules[node.value.id][node.attr]
            raise _Unsupported

        def record(v: Any) -> None:
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                printed.append(float(v))
            elif isinstance(v, list):
                for x in v:
                    record(x)

        for stmt in self.tree.body:
            if isinstance(stmt, ast.Import):  # a module it may call; any other is harmless until used
                for a in stmt.names:
                    if a.name in _MODULES:
                        modules[a.asname or a.name] = _MODULES[a.name]
                continue
            if isinstance(stmt, ast.ImportFrom):
                for a in stmt.names:
                    if stmt.module in _MODULES and a.name in _MODULES[stmt.module]:
                        functions[a.asname or a.name] = _MODULES[stmt.module][a.name]
                continue
            if isinstance(stmt, ast.Assign):
                v = value(stmt.value)
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        env[target.id] = v
                    elif isinstance(target, (ast.Tuple, ast.List)) and all(
                        isinstance(e, ast.Name) for e in target.elts
                    ):
                        if not isinstance(v, list) or len(v) != len(target.elts):
                            raise _Unsupported
                        for e, x in zip(target.elts, v, strict=True):
                            env[e.id] = x  # type: ignore[attr-defined]
                    else:
                        raise _Unsupported
                continue
            if (
                isinstance(stmt, ast.AugAssign)
                and isinstance(stmt.target, ast.Name)
                and type(stmt.op) in _BINARY
            ):
                if stmt.target.id not in env:
                    raise _Unsupported
                env[stmt.target.id] = _BINARY[type(stmt.op)](env[stmt.target.id], value(stmt.value))
                continue
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Name)
                and stmt.value.func.id == "print"
            ):
                for arg in stmt.value.args:
                    record(value(arg))
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # a docstring
            raise _Unsupported
        return printed


def _close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol * max(abs(a), abs(b)) or a == b


def _significant(text: str) -> int:
    digits = re.sub(r"\D", "", text.split("e")[0].split("E")[0]).lstrip("0")
    return len(digits.rstrip("0")) if "." not in text else len(digits)


def _answers(printed: list[float], answer: float) -> bool:
    """Whether a printed value is the delivered answer as the agent wrote it down (rounded to its digits)."""
    return any(_close(p, answer, 0.005) or _close(abs(p), abs(answer), 0.005) for p in printed)


def _reproduces(printed: list[float], expected: float) -> float | None:
    return next((p for p in printed if _close(p, expected, REPRODUCE_TOLERANCE)), None)


def _replacements(
    program: _Program, operands: dict[int, list[_Cell]], shown: _Shown
) -> Iterator[tuple[dict[int, float], str, _Cell]]:
    """Every replacement to try: (literal index -> new value, what it is, the cell of the new value)."""
    for i, cells in operands.items():
        for cell in cells[:3]:  # the same number shown in several tables: each is a candidate source
            for column in shown.columns(cell.step, cell.table, cell.row):
                if column != cell.column:
                    v = shown.value(cell.step, cell.table, cell.row, column)
                    if v is not None and v != cell.value:
                        yield (
                            {i: v},
                            f"{_fmt(cell.value)} replaced by {_fmt(v)} from the same row",
                            _at(cell, row=cell.row, column=column, value=v),
                        )
            for row in range(shown.n_rows(cell.step, cell.table)):
                if row != cell.row:
                    v = shown.value(cell.step, cell.table, row, cell.column)
                    if v is not None and v != cell.value:
                        yield (
                            {i: v},
                            f"{_fmt(cell.value)} replaced by {_fmt(v)} from the same column",
                            _at(cell, row=row, column=cell.column, value=v),
                        )
    # every operand of one column of one table moved to another column together (a shifted header)
    groups: dict[tuple[int, int, int], list[tuple[int, _Cell]]] = {}
    for i, cells in operands.items():
        for cell in cells[:1]:
            groups.setdefault((cell.step, cell.table, cell.column), []).append((i, cell))
    for (step, table, column), members in groups.items():
        if len(members) < 2:
            continue
        others = sorted(
            set(itertools.chain.from_iterable(shown.columns(step, table, c.row) for _, c in members))
            - {column}
        )
        for other in others:
            swap: dict[int, float] = {}
            for i, c in members:
                v = shown.value(step, table, c.row, other)
                if v is None:
                    break
                swap[i] = v
            else:
                what = ", ".join(f"{_fmt(c.value)} by {_fmt(swap[i])}" for i, c in members)
                first = members[0][1]
                yield (
                    swap,
                    f"the column moved: {what}",
                    _at(first, row=first.row, column=other, value=swap[members[0][0]]),
                )


def _at(cell: _Cell, *, row: int, column: int, value: float) -> _Cell:
    return _Cell(cell.step, cell.table, row, column, value, "")


def _fmt(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e15 else str(v)


def wrong_operand(
    trajectory: Trajectory, expected: Number, answer: Number, *, shown: _Shown | None = None
) -> Misbuilt | None:
    """R10d: a program the agent ran prints ``answer`` and, with one operand (or one column of operands)
    replaced by a value shown beside it, prints ``expected`` instead (the module's docstring)."""
    shown = shown if shown is not None else _Shown(trajectory.steps)
    for step in reversed(trajectory.steps):
        for code in python_programs(step):
            try:
                program = _Program(code)
                printed = program.run()
            except (
                SyntaxError,
                _Unsupported,
                ArithmeticError,
                TypeError,
                ValueError,
                statistics.StatisticsError,
            ):
                continue
            if not _answers(printed, answer.value):
                continue
            operands: dict[int, list[_Cell]] = {}
            for i, node in enumerate(program.literals):
                text = ast.get_source_segment(code, node) or repr(node.value)
                if _significant(text) < MIN_OPERAND_DIGITS:
                    continue
                cells = shown.find(float(node.value), before=step.index)  # type: ignore[arg-type]
                if cells:
                    operands[i] = cells
            for n, (swap, what, cell) in enumerate(_replacements(program, operands, shown)):
                if n >= MAX_EVALUATIONS:
                    break
                try:
                    got = _reproduces(program.run(swap), expected.value)
                except (_Unsupported, ArithmeticError, TypeError, ValueError, statistics.StatisticsError):
                    continue
                if got is not None:
                    line = shown.line(_Cell(cell.step, cell.table, cell.row, 0, 0.0, ""))
                    return Misbuilt(
                        "operand",
                        f"The program of step {step.index} printed {_fmt(answer.value)}; with {what} "
                        f"(shown at step {cell.step}) it prints {_fmt(got)}, the expected {expected.text}",
                        cell.step,
                        line,
                    )
    return None


def wrong_scale(expected: Number, answer: Number) -> Misbuilt | None:
    """R10e: ``answer`` times 10^±3, ±6 or ±9 is ``expected``."""
    for k in (3, 6, 9, -3, -6, -9):
        if _close(answer.value * 10.0**k, expected.value, REPRODUCE_TOLERANCE):
            return Misbuilt(
                "scale",
                f"The answer {answer.text} times 10^{k} is the expected {expected.text}: the wrong scale",
                None,
                "",
            )
    return None


def wrong_cell(expected: Number, answer: Number, shown: _Shown) -> Misbuilt | None:
    """R10f: ``expected`` was shown as a table cell, and ``answer`` is another cell of the same table."""
    for cell in shown.find(expected.value):
        for other in shown.cells:
            if (
                (other.step, other.table) == (cell.step, cell.table)
                and (other.row, other.column) != (cell.row, cell.column)
                and abs(other.value) == abs(answer.value)
                and other.value != expected.value
            ):
                return Misbuilt(
                    "cell",
                    f"The expected {expected.text} was shown at step {cell.step}, in the table whose other cell "
                    f"{_fmt(other.value)} the answer {answer.text} copies: the wrong cell",
                    cell.step,
                    shown.line(cell),
                )
    return None


def misbuilt(trajectory: Trajectory, expected: Number, files: Sequence[tuple[str, str]]) -> Misbuilt | None:
    """How the one-number answer of ``files`` (:func:`one_number_answer`) was built wrong, if one of the three
    conditions of the module's docstring holds (tried in the order operand, scale, cell); ``None`` when the
    deliverable is no one-number answer, is the expected value, or no condition holds."""
    answer = one_number_answer(files)
    if answer is None or _close(answer.value, expected.value, REPRODUCE_TOLERANCE):
        return None
    shown = _Shown(trajectory.steps)
    return (
        wrong_operand(trajectory, expected, answer, shown=shown)
        or wrong_scale(expected, answer)
        or wrong_cell(expected, answer, shown)
    )
