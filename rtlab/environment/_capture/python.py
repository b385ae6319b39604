"""Python scripts (``python - <<EOF``, ``python -c``, ``run_ipython``): which files a script opens and writes,
and which part of its output is a file's content.

The script is read with :mod:`ast` (never run): string constants and the paths built from them
(``Path(a) / 'b'``, ``os.path.join``, f-strings over literal loop values) give the files it names; calls such
as ``.save(X)``, ``.to_excel(X)``, ``open(X, 'w')`` give the files it writes. Without a workspace the output is
attributed by its shape: header lines naming a file (``FILE: path``, ``=== name ===``) start that file's
excerpt; a script that names exactly one input and writes nothing prints that file; lines that are just paths
are listed. Anything else (a script computing totals) reads nothing unless content matching proves otherwise.
"""

from __future__ import annotations

import ast
import itertools
import posixpath
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from rtlab.environment._capture.collect import Collector
from rtlab.environment._capture.frame import Block, lines
from rtlab.text import normalize_path

FILE_SUFFIXES = frozenset(
    "txt md markdown csv tsv json jsonl ndjson xml yaml yml html htm xlsx xlsm xls docx doc pdf pptx ppt py js ts "
    "log ini cfg conf toml sql r ipynb rtf odt ods odp png jpg jpeg gif svg zip parquet tex rst sh java c cpp h "
    "go rs rb php css scss jsx tsx kt swift dat out eml msg ics vcf epub tsv gz tar pkl npy npz db sqlite "
    "numbers pages key".split()
)  # fmt: skip
"""Suffixes that make a bare name (``data.csv``) count as a file the script means."""

_READ_CALLS = frozenset(
    {"open", "Path", "PurePath", "PosixPath", "read_text", "read_bytes", "load_workbook", "read_excel",
     "read_csv", "read_table", "read_json", "read_parquet", "read_html", "read_xml", "ExcelFile", "Document",
     "Presentation", "PdfReader", "PdfFileReader", "open_workbook", "loadtxt", "genfromtxt", "load"}
)  # fmt: skip
_OPENING_CALLS = (_READ_CALLS - {"Path", "PurePath", "PosixPath"}) | {
    "read", "readlines", "readline", "reader", "DictReader", "ZipFile", "iter_rows"
}  # fmt: skip
"""Calls that show a script reads files (rather than only walking folders and printing names)."""
_WRITE_METHODS = frozenset(
    {"save", "to_excel", "to_csv", "to_json", "to_parquet", "to_html", "to_markdown", "to_xml", "savefig",
     "to_file", "dump_to"}
)  # fmt: skip
_DIR_WALKS = frozenset({"iterdir", "glob", "rglob", "listdir", "walk", "scandir"})
_PATH_LINE = re.compile(
    r"^(?:\.{1,2}/|/|~/)?[^\s:*?\"<>|/]+(?:/[^:*?\"<>|\t/]+)*\.(?=[A-Za-z0-9_]{0,9}[A-Za-z])[A-Za-z0-9_]{1,10}$"
)
"""A whole line that is a file path: the first name has no spaces (``created out/x.xlsx`` is not a path)."""
_MAX_VALUES = 64
_HEADER_AT = 40
"""A line names a file as a header only when the name starts within its first characters (``FILE: x``)."""
# Node classes tested together, built once (a union written inside a hot function is rebuilt per call)
_ASSIGNMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign)
_LOOPS = (ast.For, ast.comprehension)
_FLOW_KINDS = frozenset(_ASSIGNMENTS + _LOOPS)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SEQUENCES = (ast.List, ast.Tuple, ast.Set)
_NO_CONTENT = (ast.Constant, ast.Compare, ast.BoolOp, ast.Lambda)
_WRAPPERS = (ast.Subscript, ast.Starred, ast.FormattedValue)
_ITEM_TARGETS = (ast.Subscript, ast.Attribute)
_JOINING_OPS = (ast.Add, ast.Div)
_STRING_OPS = (ast.Add, ast.Mod)
_GLOB_CHAR = re.compile(r"[*?\[]")
_QUOTED = re.compile(r"""(['"])([^'"\n]{1,400})\1""")
_NAME_TOKEN = re.compile(r"[^\s'\"\[\](){}:,=]+\.[A-Za-z0-9_]{1,10}\b")


@dataclass
class Script:
    """What a script names: input files (in order of appearance), written files, folders it walks."""

    inputs: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    walked: list[str] = field(default_factory=list)
    code_seen: bool = True
    """False for ``python script.py``: the code is not in the log, only its arguments are."""
    reads_files: bool = True
    """The script opens files (``open``, ``read_text``, ``load_workbook``, ...), not only walks folders."""
    prints_content: bool = True
    """Something it prints is derived from what it read (rows, lines, slices), not only computed from it
    (``sum(...)``, ``len(...)``, ``m.start()``); see :func:`_prints_content`."""


def _is_file_name(text: str) -> bool:
    if not text or len(text) > 400 or "\n" in text or _has_glob(text) or "://" in text:
        return False
    if text.startswith(".") and "/" not in text and text.count(".") == 1:
        return False  # an extension such as '.xlsx'
    suffix = posixpath.splitext(text.rstrip("/"))[1].lower().lstrip(".")
    return suffix in FILE_SUFFIXES or (bool(suffix) and "/" in text and suffix.isalnum() and len(suffix) <= 6)


_OPENED_ARG = frozenset(
    {"open", "read_csv", "read_excel", "read_json", "read_table", "read_parquet", "load_workbook", "ExcelFile",
     "open_workbook", "loadtxt", "genfromtxt"}
)  # fmt: skip
"""Calls whose first argument is a file they open."""
_OPENED_RECEIVER = frozenset({"read_text", "read_bytes", "open"})
"""Path methods whose receiver is a file they open (``Path('LICENSE').read_text()``)."""
_OPENED = _OPENED_ARG | _OPENED_RECEIVER


def _opened_name(text: str) -> bool:
    """A value a file-opening call received that names a file: not a descriptor number, a device, a URL, a
    glob or a folder."""
    return (
        bool(text)
        and len(text) < 400
        and "\n" not in text
        and not text.isdigit()
        and not text.startswith("/dev/")
        and not text.endswith("/")
        and "://" not in text
        and not _has_glob(text)
    )


def _has_glob(text: str) -> bool:
    return _GLOB_CHAR.search(text) is not None


def _is_dir_name(text: str) -> bool:
    return (
        bool(text)
        and "\n" not in text
        and len(text) < 400
        and not _has_glob(text)
        and ("/" in text or text in (".", ".."))
        and not _is_file_name(text)
    )


class _Evaluator:
    """Constant-folds the string and path expressions of a script (names bound to literals, joins, f-strings)."""

    def __init__(self) -> None:
        self.env: dict[str, list[str]] = {}

    def values(self, node: ast.AST | None) -> list[str]:
        """Every string the expression can take (empty when unknown)."""
        if node is None:
            return []
        if isinstance(node, ast.Constant):
            return (
                [node.value]
                if isinstance(node.value, str)
                else [str(node.value)]
                if isinstance(node.value, int)
                else []
            )
        if isinstance(node, ast.Name):
            return self.env.get(node.id, [])
        if isinstance(node, ast.JoinedStr):
            parts: list[list[str]] = []
            for v in node.values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    parts.append([v.value])
                elif isinstance(v, ast.FormattedValue):
                    got = self.values(v.value)
                    if not got:
                        return []
                    parts.append(got)
            return self._product(parts, "")
        if isinstance(node, ast.BinOp) and isinstance(node.op, _JOINING_OPS):
            left, right = self.values(node.left), self.values(node.right)
            sep = "/" if isinstance(node.op, ast.Div) else ""
            return self._product([left, right], sep) if left and right else []
        if isinstance(node, ast.Call):
            name = _call_name(node.func)
            if name in (
                "Path",
                "PurePath",
                "PosixPath",
                "join",
                "joinpath",
                "str",
                "abspath",
                "resolve",
                "expanduser",
            ):
                parts = [self.values(a) for a in node.args]
                if isinstance(node.func, ast.Attribute) and name in (
                    "joinpath",
                    "resolve",
                    "expanduser",
                    "abspath",
                ):
                    base = self.values(node.func.value)
                    if name != "abspath":
                        parts = [base, *parts]
                if parts and all(parts):
                    return self._product(parts, "/")
        if isinstance(node, _SEQUENCES):
            out: list[str] = []
            for elt in node.elts:
                out.extend(self.values(elt))
            return out[:_MAX_VALUES]
        return []

    @staticmethod
    def _product(parts: list[list[str]], sep: str) -> list[str]:
        out = []
        for combo in itertools.islice(itertools.product(*parts), _MAX_VALUES):
            out.append(sep.join(combo) if sep != "/" else _join(combo))
        return out

    def bind(self, target: ast.AST, values: list[str]) -> None:
        """Assign values to a name (an unknown value forgets the name)."""
        if isinstance(target, ast.Name):
            if values:
                self.env[target.id] = values
            else:
                self.env.pop(target.id, None)


def _join(parts: tuple[str, ...]) -> str:
    path = ""
    for p in parts:
        path = p if p.startswith("/") or not path else path.rstrip("/") + "/" + p
    return path


def _call_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def analyze(code: str) -> Script:
    """The files a script names as inputs, writes and walks (best effort; unparsable code falls back to its
    quoted strings). A fresh copy each call: callers may change it."""
    script = _analyze(code)
    return replace(script, inputs=list(script.inputs), writes=list(script.writes), walked=list(script.walked))


@lru_cache(maxsize=256)
def _analyze(code: str) -> Script:
    """:func:`analyze`, kept for scripts seen again (a run replayed under several tab configurations)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # '\|' in the agent's regexes: not our warning to give
            tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return _fallback(code)
    ev = _Evaluator()
    script = Script()
    seen: set[str] = set()
    opens = False

    def note(values: list[str], into: list[str]) -> None:
        for v in values:
            if v not in seen or into is script.writes:
                into.append(v)
                seen.add(v)

    nodes = _Tree(tree)
    # isinstance, not exact-class tests: it narrows for the type checker, and the parser makes only the exact
    # classes (none of these has a subclass but Constant's deprecated Num/Str/..., which it never builds)
    for node in nodes.ordered():
        if isinstance(node, ast.Assign):
            vals = ev.values(node.value)
            for target in node.targets:
                ev.bind(target, vals)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            ev.bind(node.target, ev.values(node.value))
        elif isinstance(node, _LOOPS):
            ev.bind(node.target, ev.values(node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            ev.bind(node.optional_vars, [])
        elif isinstance(node, ast.Call):
            name = _call_name(node.func)
            if name == "open" and _write_mode(node):
                note([v for a in node.args[:1] for v in ev.values(a)], script.writes)
            elif name in ("write_text", "write_bytes"):
                if isinstance(node.func, ast.Attribute):
                    note(ev.values(node.func.value), script.writes)
            elif name in _WRITE_METHODS:
                if node.args:
                    note(ev.values(node.args[0]), script.writes)
            elif (
                name in ("copy", "copyfile", "copy2", "move", "rename", "replace")
                and len(node.args) >= 2
                and (
                    isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ("shutil", "os")
                )
            ):
                note(ev.values(node.args[1]), script.writes)
            elif name in _DIR_WALKS:
                walked = [v for a in node.args[:1] for v in ev.values(a)]
                if isinstance(node.func, ast.Attribute):
                    walked += ev.values(node.func.value)
                script.walked.extend(v for v in walked if not _has_glob(v))
            if name in _OPENING_CALLS:
                opens = True
            if name in _READ_CALLS or name in ("join", "joinpath"):
                note([v for a in node.args for v in ev.values(a) if _is_file_name(v)], script.inputs)
            if name in _OPENED:  # what these open is a file, whatever its name (``open('Dockerfile')``)
                opened = node.args[:1] if name in _OPENED_ARG else []
                if isinstance(node.func, ast.Attribute) and name in _OPENED_RECEIVER:
                    opened = [node.func.value]
                note([v for a in opened for v in ev.values(a) if _opened_name(v)], script.inputs)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            note([v for v in ev.values(node) if _is_file_name(v)], script.inputs)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_file_name(node.value):
            note([node.value], script.inputs)
    script.reads_files = opens
    script.prints_content = _prints_content(nodes.breadth_first)
    written = set(script.writes)
    script.inputs = _prefer_full(
        [p for p in script.inputs if p not in written and not any(w.endswith("/" + p) for w in written)]
    )
    return script


_AGGREGATES = frozenset(
    {"sum", "len", "max", "min", "round", "abs", "int", "float", "bool", "mean", "median", "stdev", "pstdev",
     "variance", "fsum", "prod", "count", "any", "all", "isinstance", "type", "hash", "id", "exists", "is_file",
     "is_dir", "getsize", "stat", "range", "hex", "ord"}
)  # fmt: skip
"""Calls whose value is computed from their arguments: printing it shows no file content."""
_COMPUTED_METHODS = frozenset(
    {"start", "end", "span", "find", "rfind", "index", "rindex", "count", "sum", "mean", "median", "std", "var",
     "min", "max", "nunique", "exists", "is_file", "is_dir", "stat", "startswith", "endswith", "isdigit",
     "isnumeric", "__len__", "total_seconds", "cumsum", "pct_change", "corr", "cov", "prod", "quantile"}
)  # fmt: skip
_METADATA = frozenset(
    {"shape", "size", "sheetnames", "sheet_names", "max_row", "max_column", "min_row", "min_column", "dtypes",
     "title", "name", "suffix", "stem", "parent", "st_size", "ndim", "nrows", "ncols"}
)  # fmt: skip
_CONTENT_METHODS = frozenset(
    {"read", "read_text", "readlines", "readline", "head", "tail", "to_string", "to_json", "to_markdown",
     "iter_rows", "iter_cols", "itertuples", "iterrows", "sample", "get_text", "extract_text", "values"}
)  # fmt: skip
_COLLECTING = frozenset({"append", "extend", "add", "insert", "update", "write", "writelines"})


class _Taint:
    """Which names hold data read from files, and whether an expression carries such data."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def carries(self, node: ast.AST | None) -> bool:
        if node is None or isinstance(node, _NO_CONTENT):
            return False
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Call):
            name = _call_name(node.func)
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            if name in _AGGREGATES and receiver is None or name in _COMPUTED_METHODS:
                return False
            if name in _OPENING_CALLS or name in _CONTENT_METHODS:
                return True
            args = [*node.args, *(kw.value for kw in node.keywords)]
            return self.carries(receiver) or any(self.carries(a) for a in args)
        if isinstance(node, ast.Attribute):
            return node.attr not in _METADATA and self.carries(node.value)
        if isinstance(node, _WRAPPERS):
            return self.carries(node.value)
        if isinstance(node, ast.JoinedStr):
            return any(self.carries(v) for v in node.values)
        if isinstance(node, ast.BinOp):  # arithmetic computes; string building (+, %) passes content on
            if isinstance(node.op, _STRING_OPS):
                return self.carries(node.left) or self.carries(node.right)
            return False
        if isinstance(node, ast.IfExp):
            return self.carries(node.body) or self.carries(node.orelse)
        if isinstance(node, _SEQUENCES):
            return any(self.carries(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(self.carries(v) for v in node.values)
        if isinstance(node, _COMPREHENSIONS):
            for gen in node.generators:
                if self.carries(gen.iter):
                    self.taint(gen.target)
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return any(self.carries(p) for p in parts)
        return False

    def taint(self, target: ast.AST) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self.names.add(node.id)


def _prints_content(nodes: list[ast.AST]) -> bool:
    """Whether some ``print(...)`` shows data the script read: names bound to read results, loop variables
    over rows and lines, slices and string formatting of them carry it; aggregates (``sum``, ``len``) and
    position lookups (``.start()``, ``.find()``) do not. Assignments are followed to a fixed point.

    ``nodes`` is every node of the script in :func:`ast.walk` order (see :class:`_Tree`)."""
    taint = _Taint()
    flows: list[ast.AST] = []  # the nodes that can pass data on, in walk order: only they are revisited
    outputs: list[ast.Call] = []
    for node in nodes:
        # isinstance narrows for the type checker; the parser makes only the exact classes (see _analyze())
        if isinstance(node, ast.Call):
            if _is_output(node):
                outputs.append(node)
            if isinstance(node.func, ast.Attribute) and node.func.attr in _COLLECTING:
                flows.append(node)
        elif type(node) in _FLOW_KINDS or (isinstance(node, ast.withitem) and node.optional_vars is not None):
            flows.append(node)
    for _ in range(6):
        before = len(taint.names)
        for node in flows:
            if isinstance(node, _ASSIGNMENTS) and taint.carries(node.value):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    taint.taint(target.value if isinstance(target, _ITEM_TARGETS) else target)
            elif isinstance(node, _LOOPS) and taint.carries(node.iter):
                taint.taint(node.target)
            elif (
                isinstance(node, ast.withitem)
                and node.optional_vars is not None
                and taint.carries(node.context_expr)
            ):
                taint.taint(node.optional_vars)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and any(taint.carries(a) for a in node.args)
            ):
                taint.taint(node.func.value)  # a collecting call: rows.append(line)
        if len(taint.names) == before:
            break
    return any(any(taint.carries(a) for a in node.args) for node in outputs)


def _is_output(node: ast.Call) -> bool:
    """``print(...)``, ``pprint(...)``, ``display(...)`` or ``sys.stdout.write(...)``."""
    name = _call_name(node.func)
    if name in ("print", "pprint", "display"):
        return True
    return (
        name == "write"
        and isinstance(node.func, ast.Attribute)
        and getattr(node.func.value, "attr", None) == "stdout"
    )


_LEAVES = frozenset({ast.Name, ast.Constant, ast.alias})
"""The commonest nodes whose fields hold no node (names, constants, imported names)."""


def _children(node: ast.AST) -> list[ast.AST]:
    """The node's children in :func:`ast.iter_child_nodes` order, as one list (no generator per field), less
    the expression contexts (``Load``, ``Store``: leaves that say nothing the analysis uses)."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            if name != "ctx":
                out.append(value)
        elif isinstance(value, list):
            out.extend([item for item in value if isinstance(item, ast.AST)])
    return out


class _Tree:
    """A parsed script's nodes, each node's children listed once for both orders the analysis needs."""

    def __init__(self, tree: ast.AST) -> None:
        self.root = tree
        self.children: dict[ast.AST, list[ast.AST]] = {}
        self.breadth_first: list[ast.AST] = [tree]
        """Every node in :func:`ast.walk` order (the expression contexts left out)."""
        for node in self.breadth_first:  # the loop also visits what it appends: children queue up by level
            kids = [] if type(node) in _LEAVES else _children(node)
            self.children[node] = kids
            self.breadth_first.extend(kids)

    def ordered(self) -> list[ast.AST]:
        """Nodes in source order, each statement's value before its targets (so names bind before use)."""
        out: list[ast.AST] = []
        children = self.children

        def visit(node: ast.AST) -> None:
            child: ast.AST  # statements, expressions, any node: one loop variable for all
            if isinstance(node, ast.Assign):
                visit(node.value)
                out.append(node)
                return
            if isinstance(node, ast.For):
                visit(node.iter)
                out.append(node)
                for child in node.body + node.orelse:
                    visit(child)
                return
            if isinstance(node, _COMPREHENSIONS):
                for gen in node.generators:
                    visit(gen.iter)
                    out.append(gen)
                    for cond in gen.ifs:
                        visit(cond)
                for child in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
                    visit(child)
                return
            out.append(node)
            for child in children[node]:
                visit(child)

        visit(self.root)
        return out


def _write_mode(node: ast.Call) -> bool:
    mode: ast.AST | None = node.args[1] if len(node.args) > 1 else None
    for kw in node.keywords:
        if kw.arg == "mode":
            mode = kw.value
    return (
        isinstance(mode, ast.Constant) and isinstance(mode.value, str) and any(c in mode.value for c in "wax")
    )


def _prefer_full(paths: list[str]) -> list[str]:
    """Bare names dropped when a longer path naming the same file is also there (``base / name``)."""
    full = {posixpath.basename(p) for p in paths if "/" in p}
    out: list[str] = []
    for p in paths:
        if "/" not in p and p in full:
            continue
        if p not in out:
            out.append(p)
    return out


def _fallback(code: str) -> Script:
    found = [m.group(2) for m in _QUOTED.finditer(code)]
    return Script(inputs=_prefer_full([f for f in found if _is_file_name(f)]))


# ---------------------------------------------------------------------------------------------------------
# Output attribution


def is_path_line(text: str) -> bool:
    """A line that is nothing but a file path (``./a/b.xlsx``, ``data/x.csv``)."""
    text = text.strip()
    return len(text) < 400 and bool(_PATH_LINE.match(text))


def attribute(
    col: Collector,
    shown: str,
    block: Block,
    cwd: str | None,
    script: Script,
    *,
    stdin_files: Sequence[str] = (),
) -> None:
    """Attribute a script's output by its shape (see the module docstring)."""
    inputs = list(script.inputs) + [f for f in stdin_files if f not in script.inputs]
    written = {normalize_path(w) for w in script.writes}
    basenames: dict[str, list[str]] = {}
    for p in inputs:
        basenames.setdefault(posixpath.basename(p), []).append(p)
    headers: list[
        tuple[int, int, str | None, bool]
    ] = []  # (line start, content start, path, whole-line path)
    for line in lines(shown, block):
        if line.partial:
            continue
        path, whole = _header_path(line.text, inputs, basenames, script.walked)
        if path is None or normalize_path(path) in written:
            continue
        if whole and not script.reads_files:
            if len(script.walked) == 1 and "/" not in path and script.walked[0] not in (".", "./"):
                path = _join((script.walked[0], path))  # names of one folder's entries (os.listdir)
            col.list(col.ref(path, cwd), True)  # a listing script (os.walk, glob): paths only
            continue
        content_start = line.end + 1 if whole or len(line.text) < 200 else line.start
        headers.append((line.start, content_start, path, whole))
    if headers and not script.prints_content:
        for _, _, path, whole in headers:
            if whole and path is not None:
                col.list(col.ref(path, cwd), True)
        return
    if headers:
        _split_by_headers(col, shown, block, cwd, headers, inputs)
        return
    if len(inputs) == 1 and not script.writes and script.code_seen and script.prints_content:
        for s, e in block.pieces:
            col.read(col.ref(inputs[0], cwd), s, e)


def _header_path(
    text: str, inputs: list[str], basenames: dict[str, list[str]], walked: list[str]
) -> tuple[str | None, bool]:
    """The file a header line names, and whether the line is only that path."""
    stripped = text.strip()
    if len(stripped) > 400:
        return None, False
    if is_path_line(stripped):
        return stripped, True
    for p in inputs:
        if text.find(p, 0, _HEADER_AT + len(p)) >= 0:  # the first occurrence starts within _HEADER_AT
            return p, False
    if len(walked) != 1 and not any(text.find(b, 0, _HEADER_AT + len(b)) >= 0 for b in basenames):
        return None, False  # then only a token equal to an input's name could count, and none is there
    for m in _NAME_TOKEN.finditer(text):
        if m.start() > _HEADER_AT:
            break
        tok = m.group(0)
        if tok in basenames and len(basenames[tok]) == 1:
            return basenames[tok][0], False
        if len(walked) == 1 and len(stripped) < len(tok) + 60 and _is_file_name(tok):
            return _join((walked[0], tok)) if "/" not in tok else tok, False
    return None, False


def _split_by_headers(
    col: Collector,
    shown: str,
    block: Block,
    cwd: str | None,
    headers: list[tuple[int, int, str | None, bool]],
    inputs: list[str],
) -> None:
    """Each header's file owns the text up to the next header; a header with nothing after it is only listed.

    The text after a clip marker and before the next visible header belongs to the file whose header the
    marker cut away: with the inputs' order known, the one just before the next visible header (the last
    input when none follows).
    """
    bounds = [h[0] for h in headers[1:]] + [block.end]
    for (_, content_start, path, whole), bound in zip(headers, bounds, strict=True):
        part = block.within(content_start, bound)
        pieces = [p for p in part.pieces if shown[p[0] : p[1]].strip()]
        if not pieces or path is None:
            if whole and path is not None:
                col.list(col.ref(path, cwd), True)
            continue
        owner = path
        for i, (s, e) in enumerate(part.pieces):
            if not shown[s:e].strip():
                continue
            col.read(col.ref(owner, cwd), s, e)
            if part.clip_after(i):
                owner = _after_cut(path, headers, bound, inputs) or owner
                if owner is None:
                    break


def _after_cut(
    path: str, headers: list[tuple[int, int, str | None, bool]], bound: int, inputs: list[str]
) -> str | None:
    if path not in inputs:
        return None
    following = [h[2] for h in headers if h[0] >= bound and h[2] in inputs]
    if following:
        index = inputs.index(following[0]) - 1
    else:
        index = len(inputs) - 1
    return inputs[index] if index >= inputs.index(path) else None
