"""How a wrong one-number answer was built: from a wrong operand shown beside the right one, at the wrong
scale, or by copying the wrong cell (codebook 2.1, rules R7a, R7b, R7c).

An item whose expected value is one number, not delivered, by a run whose deliverable states one number (the
answer of a question-answering task such as OfficeQA) is looked at three ways, each a general condition:

- **operand** (R7a): the agent's own arithmetic is re-run with one of its operands replaced by a value shown
  beside it, and reproduces the expected value. The arithmetic is a Python program the agent ran (a ``-c``
  string, a here-document, a script call) whose printed value is the delivered answer; its operands are its
  numeric literals of three or more significant digits that appear as cells of a table (``|``-separated
  lines) shown before the program ran (keys, indices and years are names, not operands). A replacement is
  another cell of the operand's row (the wrong column), the cell in the same column of another row of its
  table (the wrong row), every operand of one column moved together to another column (a shifted header), or
  every operand of one row moved together to another row of its table or to the row of the same name in
  another table (an estimate row for the actual one, a year read from the wrong bulletin); the likeliest kind
  that reproduces the expected value is reported, with how many others of that kind also do. The program is
  re-run by a small interpreter of its own arithmetic (assignments, ``+ - * / // % **``, comparisons, ``if``
  and ``for`` over its own data, lists, tuples, dicts and comprehensions, ``abs round min max sum len sorted
  zip range enumerate``, ``math`` and ``statistics`` functions, ``print``); a name bound to anything else (a
  file read, a library call) is unknown and stops the re-run where it is used.
- **scale** (R7b): the answer times a power of a thousand (10^±3, ±6, ±9) is the expected value.
- **cell** (R7c): the expected value was shown as a cell of a table, and the answer is another cell of the same
  table in the same observation.

A re-run (or a rescaled answer) reproduces the expected value when it is the expected value to the last digit
the expected value is written with (within half a unit of it) and within :data:`REPRODUCE_TOLERANCE`
(relative), so that a chance combination of shown numbers does not count.
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
from rtlab.text import YEAR_RANGE, Compound, Number, find_numbers, parse

REPRODUCE_TOLERANCE = 0.001
"""Relative difference within which a re-run computation (or a rescaled answer) is the expected value."""
MIN_OPERAND_DIGITS = 3
"""Significant digits a literal needs to count as an operand read from a table (``3`` or ``12`` are
constants of the formula, a count of years, too common in tables to locate)."""
MAX_ANSWER_CHARS = 200
"""A deliverable longer than this (stripped) is not a one-number answer."""
MAX_EVALUATIONS = 20_000
"""Replacements generated per program at most (a program with many operands in wide tables is cut there)."""
SEARCH_STEPS = 400_000
"""Interpreter steps one program's search may take in all: re-runs are tried likeliest first until they are
spent (about a second; a program of 40 steps gets every one of its replacements, one of 20,000 gets 20)."""

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


def _row_label(line: str) -> str:
    """What names a table row: the first word of its first non-empty cell (``2001`` of ``| 2001 - Est |``)."""
    for cell in line.split("|"):
        words = cell.split()
        if words:
            return words[0].rstrip(".:,").lower()
    return ""


class _Shown:
    """Every numeric table cell the steps showed, and where, to find an operand's neighbours."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.cells: list[_Cell] = []
        self.grid: dict[tuple[int, int], list[list[tuple[int, float] | None]]] = {}
        self.lines: dict[tuple[int, int, int], str] = {}
        self.labels: dict[tuple[int, int, int], str] = {}
        for step in steps:
            lines = [ln for ln in (step.shown or "").splitlines() if ln.count("|") >= 2]
            k = 0
            for t, table in enumerate(_tables(step)):
                self.grid[(step.index, t)] = table
                for r, row in enumerate(table):
                    line = lines[k] if k < len(lines) else ""
                    self.lines[(step.index, t, r)] = line
                    self.labels[(step.index, t, r)] = _row_label(line)
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


def _bounded_range(*args: int) -> range:
    r = range(*args)
    if len(r) > MAX_LOOP:
        raise _Unsupported
    return r


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
    "sorted": sorted,
    "reversed": lambda x: list(reversed(x)),
    "zip": lambda *xs: list(zip(*xs, strict=False)),
    "enumerate": lambda x, start=0: list(enumerate(x, start)),
    "range": _bounded_range,
    "list": list,
    "tuple": tuple,
    "dict": dict,
}
_MODULES: dict[str, dict[str, Callable[..., Any]]] = {
    "math": {n: getattr(math, n) for n in ("sqrt", "log", "log10", "log2", "exp", "pow", "fabs", "prod")},
    "statistics": {
        n: getattr(statistics, n)
        for n in ("mean", "median", "pstdev", "stdev", "pvariance", "variance", "geometric_mean", "fmean")
    },
}
_METHODS: dict[type, tuple[str, ...]] = {
    dict: ("items", "values", "keys", "get"),
    list: ("append", "extend", "index", "count"),
    tuple: ("index", "count"),
}
"""Methods of the program's own data that it may call (nothing that reads or writes outside it)."""
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_UNKNOWN = object()
"""What a name is bound to when its value came from something the program cannot re-run."""
MAX_LOOP = 100_000
"""Iterations of one loop, and steps of one run, at most (a program past them is not re-run)."""


class _Run:
    """One run of a :class:`_Program`: its names, what it printed, and the budget of steps left."""

    def __init__(self, swap: dict[int, float]) -> None:
        self.swap = swap
        self.env: dict[str, Any] = {}
        self.printed: list[float] = []
        self.functions = dict(_FUNCTIONS)
        self.modules: dict[str, dict[str, Callable[..., Any]]] = {}
        self.budget = MAX_LOOP

    def tick(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise _Unsupported

    def value(self, node: ast.expr, env: dict[str, Any] | None = None) -> Any:
        self.tick()
        env = self.env if env is None else env
        if isinstance(node, ast.Constant):
            if id(node) in self.swap:
                return self.swap[id(node)]
            if node.value is None or isinstance(node.value, (int, float, str)):
                return node.value
            raise _Unsupported
        if isinstance(node, ast.Name):
            if node.id in env and env[node.id] is not _UNKNOWN:
                return env[node.id]
            raise _Unsupported
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            a, b = self.value(node.left, env), self.value(node.right, env)
            if isinstance(node.op, ast.Pow) and isinstance(b, (int, float)) and abs(b) > 64:
                raise _Unsupported
            if isinstance(node.op, ast.Mult) and (
                isinstance(a, (str, list, tuple)) or isinstance(b, (str, list, tuple))
            ):
                if isinstance(a, int) and a > MAX_LOOP or isinstance(b, int) and b > MAX_LOOP:
                    raise _Unsupported
            out = _BINARY[type(node.op)](a, b)
            if isinstance(out, int) and out.bit_length() > 4096:
                raise _Unsupported
            return out
        if isinstance(node, ast.UnaryOp):
            v = self.value(node.operand, env)
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return +v
            if isinstance(node.op, ast.Not):
                return not v
            raise _Unsupported
        if isinstance(node, ast.Compare):
            left = self.value(node.left, env)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                if type(op) not in _COMPARE:
                    raise _Unsupported
                right = self.value(right_node, env)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            result: Any = isinstance(node.op, ast.And)
            for v in node.values:
                result = self.value(v, env)
                if isinstance(node.op, ast.And) and not result or isinstance(node.op, ast.Or) and result:
                    return result
            return result
        if isinstance(node, ast.IfExp):
            return self.value(node.body if self.value(node.test, env) else node.orelse, env)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e, env) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise _Unsupported
            return {
                self.value(k, env): self.value(v, env)
                for k, v in zip(node.keys, node.values, strict=True)
                if k
            }
        if isinstance(node, ast.Subscript):
            container = self.value(node.value, env)
            if isinstance(node.slice, ast.Slice):
                parts = [
                    None if p is None else self.value(p, env)
                    for p in (node.slice.lower, node.slice.upper, node.slice.step)
                ]
                return container[slice(*parts)]
            return container[self.value(node.slice, env)]
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self.comprehension(node, env)
        if isinstance(node, ast.Call) and not node.keywords:
            return self.callee(node.func, env)(*[self.value(arg, env) for arg in node.args])
        if isinstance(node, ast.JoinedStr):
            return [self.value(v.value, env) for v in node.values if isinstance(v, ast.FormattedValue)]
        raise _Unsupported

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, env: dict[str, Any]) -> list[Any]:
        out: list[Any] = []

        def walk(k: int, scope: dict[str, Any]) -> None:
            if k == len(node.generators):
                out.append(self.value(node.elt, scope))
                return
            gen = node.generators[k]
            for item in self.value(gen.iter, scope):
                inner = dict(scope)
                self.bind(gen.target, item, inner)
                if all(self.value(cond, inner) for cond in gen.ifs):
                    walk(k + 1, inner)

        walk(0, dict(env))
        return out

    def callee(self, node: ast.expr, env: dict[str, Any]) -> Callable[..., Any]:
        if isinstance(node, ast.Name) and node.id in self.functions and node.id not in env:
            return self.functions[node.id]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in self.modules and node.value.id not in env:
                if node.attr in self.modules[node.value.id]:
                    return self.modules[node.value.id][node.attr]
                raise _Unsupported
        if isinstance(node, ast.Attribute):
            owner = self.value(node.value, env)
            if node.attr in _METHODS.get(type(owner), ()):
                method = getattr(owner, node.attr)
                return (lambda *a: list(method(*a))) if node.attr in ("items", "values", "keys") else method
        raise _Unsupported

    def bind(self, target: ast.expr, value: Any, env: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(value)
            if len(items) != len(target.elts):
                raise _Unsupported
            for e, x in zip(target.elts, items, strict=True):
                self.bind(e, x, env)
        elif isinstance(target, ast.Subscript):
            container = self.value(target.value, env)
            if not isinstance(container, (dict, list)) or isinstance(target.slice, ast.Slice):
                raise _Unsupported
            container[self.value(target.slice, env)] = value
        else:
            raise _Unsupported

    def _on_own_data(self, node: ast.expr) -> bool:
        """Whether an expression statement acts on the program's own data (a name it bound to a value)."""
        root = node.func if isinstance(node, ast.Call) else node
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
            root = root.func if isinstance(root, ast.Call) else root.value
        return isinstance(root, ast.Name) and root.id in self.env and self.env[root.id] is not _UNKNOWN

    def record(self, v: Any) -> None:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            self.printed.append(float(v))
        elif isinstance(v, (list, tuple)):
            for x in v:
                self.record(x)

    def block(self, body: Sequence[ast.stmt]) -> None:
        for stmt in body:
            self.tick()
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Import):  # a module it may call; any other is harmless until used
            for alias in stmt.names:
                if alias.name in _MODULES:
                    self.modules[alias.asname or alias.name] = _MODULES[alias.name]
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if stmt.module in _MODULES and alias.name in _MODULES[stmt.module]:
                    self.functions[alias.asname or alias.name] = _MODULES[stmt.module][alias.name]
        elif isinstance(stmt, ast.Assign):
            try:
                v = self.value(stmt.value)
            except _Unsupported:
                # a name bound to what the program cannot re-run (a file read, a library call) is unknown:
                # the program may go on, and any use of the name stops it
                if not all(isinstance(t, ast.Name) for t in stmt.targets):
                    raise
                v = _UNKNOWN
            for target in stmt.targets:
                self.bind(target, v, self.env)
        elif isinstance(stmt, ast.AugAssign) and type(stmt.op) in _BINARY:
            current = self.value(stmt.target) if isinstance(stmt.target, (ast.Name, ast.Subscript)) else None
            if current is None:
                raise _Unsupported
            self.bind(stmt.target, _BINARY[type(stmt.op)](current, self.value(stmt.value)), self.env)
        elif isinstance(stmt, ast.Expr):
            call = stmt.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print":
                for arg in call.args:
                    try:
                        self.record(self.value(arg))
                    except _Unsupported:
                        continue  # printing what is unknown prints no number of the arithmetic
            elif isinstance(call, ast.Constant):
                pass  # a docstring
            elif self._on_own_data(call):
                self.value(call)  # a method call such as xs.append(v): it changes the program's data
            # else: a call on something the program cannot re-run (a file, a module) changes none of its data
        elif isinstance(stmt, ast.For) and not stmt.orelse:
            items = list(self.value(stmt.iter))
            if len(items) > MAX_LOOP:
                raise _Unsupported
            for item in items:
                self.bind(stmt.target, item, self.env)
                self.block(stmt.body)
        elif isinstance(stmt, ast.If):
            self.block(stmt.body if self.value(stmt.test) else stmt.orelse)
        elif isinstance(stmt, ast.Pass):
            pass
        else:
            raise _Unsupported


class _Program:
    """A straight-line arithmetic program (with loops over its own data), parsed once and re-run with some
    literals replaced."""

    def __init__(self, code: str) -> None:
        with warnings.catch_warnings():  # an agent's '\\|' in a string is its own business
            warnings.simplefilter("ignore")
            self.tree = ast.parse(code)  # SyntaxError: not a program to re-run
        self.steps = 0
        """Interpreter steps the last run took (what one re-run costs)."""
        self.keys: set[int] = set()
        """The literals used as dictionary keys or subscripts (``rows[2001]``): names of data, not values."""
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Dict):
                self.keys |= {id(k) for k in n.keys if k is not None}
            elif isinstance(n, ast.Subscript):
                self.keys |= {id(x) for x in ast.walk(n.slice)}
        self.literals: list[ast.Constant] = [
            n
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Constant) and type(n.value) in (int, float) and not isinstance(n.value, bool)
        ]

    def run(self, replace: dict[int, float] | None = None) -> list[float]:
        """The numbers the program prints, with literal ``i`` (index into :attr:`literals`) replaced."""
        state = _Run({id(self.literals[i]): v for i, v in (replace or {}).items()})
        try:
            state.block(self.tree.body)
        finally:
            self.steps = MAX_LOOP - state.budget
        return state.printed


def _year(value: object) -> bool:
    """A literal integer that reads as a year (the range :func:`rtlab.text.is_year_like` uses)."""
    return isinstance(value, int) and YEAR_RANGE[0] <= value <= YEAR_RANGE[1]


def _close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol * max(abs(a), abs(b)) or a == b


def _significant(text: str) -> int:
    digits = re.sub(r"\D", "", text.split("e")[0].split("E")[0]).lstrip("0")
    return len(digits.rstrip("0")) if "." not in text else len(digits)


def _answers(printed: list[float], answer: float) -> bool:
    """Whether a printed value is the delivered answer as the agent wrote it down (rounded to its digits)."""
    return any(_close(p, answer, 0.005) or _close(abs(p), abs(answer), 0.005) for p in printed)


def _as_written(value: float, expected: Number) -> bool:
    """Whether ``value`` is ``expected`` to the last digit it is written with (within half a unit of it, and
    within :data:`REPRODUCE_TOLERANCE`): ``-550.271`` is ``-550.3``, ``108.008`` is ``108.01%``."""
    return abs(value - expected.value) <= expected.ulp / 2 + 1e-9 * abs(expected.value) and _close(
        value, expected.value, REPRODUCE_TOLERANCE
    )


def _reproduces(printed: list[float], expected: Number) -> float | None:
    return next((p for p in printed if _as_written(p, expected)), None)


def _replacements(
    program: _Program, operands: dict[int, list[_Cell]], shown: _Shown
) -> Iterator[tuple[int, dict[int, float], str, _Cell]]:
    """Every replacement to try: (its rank, literal index -> new value, what it is, the cell of the new value).
    The rank orders explanations of the same answer: a row of the same name in another table (0), a column
    moved (1), another row of the table (2), one cell (3)."""
    for i, cells in operands.items():
        for cell in cells[:3]:  # the same number shown in several tables: each is a candidate source
            for column in shown.columns(cell.step, cell.table, cell.row):
                if column != cell.column:
                    v = shown.value(cell.step, cell.table, cell.row, column)
                    if v is not None and v != cell.value:
                        yield (
                            3,
                            {i: v},
                            f"{_fmt(cell.value)} replaced by {_fmt(v)} from the same row",
                            _at(cell, row=cell.row, column=column, value=v),
                        )
            for row in range(shown.n_rows(cell.step, cell.table)):
                if row != cell.row:
                    v = shown.value(cell.step, cell.table, row, cell.column)
                    if v is not None and v != cell.value:
                        yield (
                            3,
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
                    1,
                    swap,
                    f"the column moved: {what}",
                    _at(first, row=first.row, column=other, value=swap[members[0][0]]),
                )


def _row_moves(
    operands: dict[int, list[_Cell]], shown: _Shown, before: int
) -> Iterator[tuple[int, dict[int, float], str, _Cell]]:
    """Every operand of one row moved together to another row, keeping their columns: another row of the
    same table, or a row of the same name in another table shown before the program ran (an estimate row
    taken for the actual one, a year's row read from the wrong bulletin)."""
    groups: dict[tuple[int, int, int], list[tuple[int, _Cell]]] = {}
    for i, cells in operands.items():
        for cell in cells[:3]:
            groups.setdefault((cell.step, cell.table, cell.row), []).append((i, cell))
    for (step, table, row), members in groups.items():
        if len({c.column for _, c in members}) < 2:
            continue  # one cell: the single replacements try it
        label = shown.labels.get((step, table, row), "")
        targets = [(step, table, r) for r in range(shown.n_rows(step, table)) if r != row]
        targets += [
            key
            for key, other in shown.labels.items()
            if label and other == label and key[0] < before and key[:2] != (step, table)
        ]
        for t_step, t_table, t_row in targets:
            swap: dict[int, float] = {}
            for i, c in members:
                v = shown.value(t_step, t_table, t_row, c.column)
                if v is None:
                    break
                swap[i] = v
            else:
                if all(swap[i] == c.value for i, c in members):
                    continue
                what = ", ".join(dict.fromkeys(f"{_fmt(c.value)} by {_fmt(swap[i])}" for i, c in members))
                first = members[0][1]
                moved = _Cell(t_step, t_table, t_row, first.column, swap[members[0][0]], "")
                same_table = (t_step, t_table) == (step, table)
                where = "another row of its table" if same_table else f"the row {label!r} of another table"
                yield (2 if same_table else 0), swap, f"the row moved to {where}: {what}", moved


def _at(cell: _Cell, *, row: int, column: int, value: float) -> _Cell:
    return _Cell(cell.step, cell.table, row, column, value, "")


def _fmt(v: float) -> str:
    """A value as a reader would write it: ``1258265``, ``0.829784``, ``-550.271``."""
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else f"{v:.6g}"


def wrong_operand(
    trajectory: Trajectory, expected: Number, answer: Number, *, shown: _Shown | None = None
) -> Misbuilt | None:
    """R7a: a program the agent ran prints ``answer`` and, with one operand (or one column of operands)
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
                if id(node) in program.keys or _year(node.value):
                    continue  # a key or an index names data; a year labels it: neither is an operand
                text = ast.get_source_segment(code, node) or repr(node.value)
                if _significant(text) < MIN_OPERAND_DIGITS:
                    continue
                cells = shown.find(float(node.value), before=step.index)  # type: ignore[arg-type]
                if cells:
                    operands[i] = cells
            tries = sorted(
                itertools.islice(
                    itertools.chain(
                        _replacements(program, operands, shown), _row_moves(operands, shown, step.index)
                    ),
                    MAX_EVALUATIONS,
                ),
                key=lambda t: t[0],
            )  # the likelier explanations first; the first rank with a hit ends the search
            hits: list[tuple[int, int, str, _Cell, float]] = []
            affordable = SEARCH_STEPS // max(program.steps, 1)  # a long program is re-run fewer times
            for n, (rank, swap, what, cell) in enumerate(tries[:affordable]):
                if hits and rank > hits[0][0]:
                    break
                try:
                    got = _reproduces(program.run(swap), expected)
                except (_Unsupported, ArithmeticError, TypeError, ValueError, statistics.StatisticsError):
                    continue
                if got is not None:
                    hits.append((rank, n, what, cell, got))
            if hits:
                rank, _, what, cell, got = min(hits, key=lambda h: (h[0], h[1]))
                line = shown.line(_Cell(cell.step, cell.table, cell.row, 0, 0.0, ""))
                others = (
                    f" ({len(hits) - 1} other replacements of that kind also give it)"
                    if len(hits) > 1
                    else ""
                )
                return Misbuilt(
                    "operand",
                    f"The program of step {step.index} printed {_fmt(answer.value)}; with {what} "
                    f"(shown at step {cell.step}) it prints {_fmt(got)}, the expected {expected.text}{others}",
                    cell.step,
                    line,
                )
    return None


def wrong_scale(expected: Number, answer: Number) -> Misbuilt | None:
    """R7b: ``answer`` times 10^±3, ±6 or ±9 is ``expected``."""
    for k in (3, 6, 9, -3, -6, -9):
        if _as_written(answer.value * 10.0**k, expected):
            return Misbuilt(
                "scale",
                f"The answer {answer.text} times 10^{k} is the expected {expected.text}: the wrong scale",
                None,
                "",
            )
    return None


def wrong_cell(expected: Number, answer: Number, shown: _Shown) -> Misbuilt | None:
    """R7c: ``expected`` was shown as a table cell, and ``answer`` is another cell of the same table."""
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
