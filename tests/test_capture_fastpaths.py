"""Capture's fast paths agree with the general path they stand in for, on many generated inputs.

Each fast path skips work the general path would do to reach the same answer: plain command lines skip the
shell lexer, blocks with no traceback or warning look only at their end lines, the clip-marker regex starts
every alternative with a plain character, the trailer and clip scans look for a literal first, and the
Python analysis lists each node's children once for both of its walks. The references below are the general
forms (the line-by-line scan kept in the module, or the straightforward form of the rule written out here).
"""

from __future__ import annotations

import ast
import posixpath
import random
import re
import warnings
from pathlib import Path

import pytest

from rtlab.environment._capture import frame as fr
from rtlab.environment._capture import python as py
from rtlab.ingest import OPENHANDS_TRUNCATION_MARKER
from rtlab.ingest.readers import _frames as hf
from rtlab.text import _shell as shell

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------------------------
# Plain command lines


_WORDS = [
    "cat", "head", "-n", "20", "sed", "-n", "1,40p", "ls", "-la", "find", ".", "-type", "f", "notes.md",
    "data/q3_sales.csv", "/w/report.txt", "a=b", "X=1", "~/x", "{", "}", "{a,b}", "!", "for", "do", "done",
    "if", "then", "fi", "case", "esac", "in", "while", "until", "else", "elif", "é.txt", "报告.md", "a]b",
    "x\r", "x\x0b", "\xa0", "sudo", "timeout", "5", "bash", "-c", "cd", "..", "python3", "script.py", "--",
    "2", "&1", "%d", "+5", "@x", "a,b", "k=v=w",
]  # fmt: skip
_SPECIALS = list("\t\n;&|()<>'\"\\$`#*?[") + ["&&", "||", "2>&1", "$(pwd)", "'a b'", '"c d"', "# note"]


def _command(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randrange(0, 7))]
    if rng.random() < 0.3 and words:
        words.insert(rng.randrange(len(words) + 1), rng.choice(_SPECIALS))
    sep = rng.choice([" ", "  ", " ", ""])
    text = sep.join(words)
    return (" " * rng.randrange(2)) + text + (" " * rng.randrange(2))


def test_plain_commands_parse_as_the_lexer_reads_them() -> None:
    rng = random.Random(7)
    plain = 0
    for _ in range(20000):
        command = _command(rng)
        expected = shell._parse_tokens(command)
        fast = shell._plain(command)
        if fast is not None:
            plain += 1
            assert fast == expected, repr(command)
        assert shell.parse(command) == expected, repr(command)
    assert plain > 5000  # the fast path was taken often enough to mean something


@pytest.mark.parametrize(
    "command",
    [
        "cat notes.md",
        "  head -n 5  a.txt ",
        "ls",
        "X=1 cat a",
        "{ cat a; }",
        "! cat a",
        "for",
        "done",
        "cat a#b",
    ],
)
def test_plain_command_examples(command: str) -> None:
    assert shell.parse(command) == shell._parse_tokens(command)


# ---------------------------------------------------------------------------------------------------------
# Lines and blocks

_LINES = [
    "data 1,234.5", "", "   ", "plain text", "cat: x.txt: No such file or directory", "Usage: tool [-h]",
    "Error: bad input", "Traceback (most recent call last):", '  File "x.py", line 1, in <module>',
    "ValueError: boom", "/x/site-packages/y.py:3: UserWarning: careful", "  warnings.warn(",
    "Warning: not from python", "ls: cannot access 'q': No such file or directory", "| a | b |", "\r",
]  # fmt: skip


def _text(rng: random.Random) -> str:
    parts = [rng.choice(_LINES) + rng.choice(["\n", "\n", "\r\n", ""]) for _ in range(rng.randrange(0, 12))]
    return "".join(parts)


def _block(rng: random.Random, shown: str) -> fr.Block:
    """Pieces in order with gaps between them (where clip markers stood), some flagged, some empty."""
    cuts = sorted(rng.randrange(len(shown) + 1) for _ in range(2 * rng.randrange(1, 4)))
    pieces = tuple((cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2))
    if rng.random() < 0.8:
        pieces = tuple(p for p in pieces if p[1] > p[0])
    flags = tuple(rng.random() < 0.5 for _ in pieces)
    return fr.Block(pieces, flags)


def test_lines_backward_is_lines_reversed() -> None:
    rng = random.Random(11)
    for _ in range(5000):
        shown = _text(rng)
        block = _block(rng, shown)
        assert list(fr.lines_backward(shown, block)) == list(fr.lines(shown, block))[::-1]


def test_without_errors_looks_at_the_ends_only_when_that_gives_the_line_scan_answer() -> None:
    rng = random.Random(13)
    fast = 0
    for _ in range(20000):
        shown = _text(rng)
        block = _block(rng, shown)
        expected = fr._without_errors_by_line(shown, block)
        assert fr.without_errors(shown, block) == expected, (shown, block)
        if all(t not in shown for t in fr._INNER_DROP_TEXTS):
            fast += 1
            assert fr._without_edge_errors(shown, block) == expected, (shown, block)
    assert fast > 3000


# ---------------------------------------------------------------------------------------------------------
# Clip markers and trailers

_CLIP_MARKERS_PLAIN = re.compile(
    r"…\d+ (?:tokens|chars) truncated…"
    r"|\n?\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]\n\n?"
    r"|\n?\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]\n\n?"
    r"|" + re.escape(OPENHANDS_TRUNCATION_MARKER)
)
"""The markers written with an optional leading newline: the form the module's regex must equal."""

_MARKER_PARTS = [
    "abc ", "\n", "[", "[... ", "…", "12", " tokens truncated…", "…12 tokens truncated…", "…3 chars truncated…",
    "\n[... omitted 3 of 10 lines ...]\n", "[... omitted 3 of 10 lines ...]\n\n",
    "\n[... output truncated to fit 100 bytes ...]\n", "[... output truncated to fit 9 bytes ...]\n",
    OPENHANDS_TRUNCATION_MARKER, "\n\n", "lines ...]\n",
]  # fmt: skip


def test_clip_marker_regex_finds_what_the_plain_form_finds() -> None:
    rng = random.Random(17)
    found = 0
    for _ in range(20000):
        text = "".join(rng.choice(_MARKER_PARTS) for _ in range(rng.randrange(1, 10)))
        start, end = sorted((rng.randrange(len(text) + 1), rng.randrange(len(text) + 1)))
        expected = [m.span() for m in _CLIP_MARKERS_PLAIN.finditer(text, start, end)]
        assert [m.span() for m in hf._CLIP_MARKERS.finditer(text, start, end)] == expected, repr(text)
        found += bool(expected)
        plain_block = _clip_block_plain(text, start, end, True)
        assert fr.between(tuple(hf._markers(text, start, end)), start, end) == plain_block
    assert found > 3000


_PREFILTERED_PARTS = [
    *_MARKER_PARTS, "<response clipped>", "<NOTE>", "</NOTE>", "<response clipped><NOTE>", "x</NOTE>",
    "<response clipped><NOTE>Observations should not exceed 100 chars.</NOTE>", "clipped><NOTE>", "[...", " ...",
    "Command ", "Command", "Shell cwd", "Shell cwd was reset to /w", "Command running in background with ID: b1",
    "<error>Command was aborted before completion</error>", "Command exceeded the assistant-mode blocking budget x",
]  # fmt: skip


def test_prefilters_decline_only_texts_without_a_match() -> None:
    """The clip markers' and Claude Code trailers' prefilters (``str.find`` and ``re`` searches for literal
    words) find the regexes' matches: where they decline a text, the regex finds nothing in it."""
    rng = random.Random(23)
    found = trailers = 0
    for _ in range(20000):
        text = "".join(rng.choice(_PREFILTERED_PARTS) for _ in range(rng.randrange(1, 10)))
        start, end = sorted((rng.randrange(len(text) + 1), rng.randrange(len(text) + 1)))
        expected = [(m.start(), m.end(), "clip") for m in hf._CLIP_MARKERS.finditer(text, start, end)]
        assert [(f.start, f.end, f.kind) for f in hf._markers(text, start, end)] == expected, repr(text)
        found += bool(expected)
        has_trailer = hf._CC_TRAILERS.search(text, start, end) is not None
        words = [
            f for f in hf._claude_code_words(text, start, end, clipped=False, shell=True) if f.kind == "frame"
        ]
        if has_trailer:
            trailers += 1
            spans = {(m.start(), m.end()) for m in hf._CC_TRAILERS.finditer(text, start, end)}
            assert spans <= {(f.start, f.end) for f in words}, repr(text)
        assert not has_trailer or hf._CC_COMMAND.search(text, start, end) or "Shell cwd" in text[start:end]
    assert found > 2000 and trailers > 200


def _clip_block_plain(shown: str, start: int, end: int, clipped: bool) -> fr.Block:
    pieces, flags, pos = [], [], start
    if clipped:
        for m in _CLIP_MARKERS_PLAIN.finditer(shown, start, end):
            pieces.append((pos, m.start()))
            flags.append(True)
            pos = m.end()
    pieces.append((pos, end))
    flags.append(False)
    kept = [(p, f) for p, f in zip(pieces, flags, strict=True) if p[1] > p[0]]
    return fr.Block(tuple(p for p, _ in kept), tuple(f for _, f in kept))


_TRAILERS = [
    "", "\n\nCommand exited with code 1", "Command exited with code 2\n", "\n\nCommand aborted",
    "\n\nCommand timed out after 30 seconds", "\n\n[Showing lines 1-10 of 100. Use offset=11 to continue.]",
    "\n\n... (12 more lines not shown. Use offset=40 to continue reading)", "(no output)", "  (no output)\n",
    "\n\nCommand: ls", "\n\n[just a bracket]",
]  # fmt: skip


def _trailer_start_plain(shown: str, start: int, end: int) -> int:
    for _ in range(3):
        m = hf._PI_STATUS.search(shown, max(start, end - 200), end)
        new_end = m.start() if m else hf._notice_start(shown, start, end)
        if shown[start:new_end].strip() == "(no output)":
            return start
        if new_end == end:
            return end
        end = new_end
    return end


def test_trailer_scan_finds_what_the_plain_scan_finds() -> None:
    rng = random.Random(19)
    for _ in range(10000):
        shown = _text(rng) + "".join(rng.choice(_TRAILERS) for _ in range(rng.randrange(0, 4)))
        start = rng.randrange(len(shown) + 1)
        assert hf._trailer_start(shown, start, len(shown)) == _trailer_start_plain(shown, start, len(shown))


# ---------------------------------------------------------------------------------------------------------
# Python scripts

_STATEMENTS = [
    "{v} = open({path!r}).read()", "{v} = {w}", "{v} = {w}[1:5]", "{v} = len({w})", "{v} = sum({w})",
    "for {v} in {w}:\n    print({v})", "for {v} in open({path!r}):\n    {w}.append({v})",
    "{v} = [x for x in {w} if x]", "{v} = {{k: {w} for k in {w}}}", "{v} = ({w} for _ in range(3))",
    "with open({path!r}) as {v}:\n    {w} = {v}.read()", "with {w}:\n    pass", "print({v})",
    "print(len({v}))", "print(f'{{{v}}} rows')", "sys.stdout.write({v})", "{v}.append({w})",
    "{v} = {w}.split(',')", "{v}: str = {w}", "{v} += {w}", "{v} = {{'a': {w}}}", "{v} = pd.read_csv({path!r})",
    "print({v}.shape)", "print({v}.head())", "{v} = Path({folder!r}) / {name!r}", "{v}.to_csv({path!r})",
    "{v} = os.path.join({folder!r}, {name!r})", "for root, dirs, files in os.walk({folder!r}):\n    print(files)",
    "{v} = re.search('x', {w}).start()", "{v}[0] = {w}", "{v}.x = {w}", "print({v} if {w} else 0)",
    "print(*{v})", "def f({v}):\n    return {w}", "lambda: {w}", "{v} = not {w}", "print({v} % 3, {w} + 'x')",
]  # fmt: skip


def _script(rng: random.Random) -> str:
    names = ["a", "b", "c", "rows", "text", "df"]
    out = []
    for _ in range(rng.randrange(1, 14)):
        template = rng.choice(_STATEMENTS)
        out.append(
            template.format(
                v=rng.choice(names),
                w=rng.choice(names),
                path=rng.choice(["data/q3.csv", "notes.md", "/w/r.txt"]),
                folder=rng.choice(["data", "/w/in", "."]),
                name=rng.choice(["x.xlsx", "y.md"]),
            )
        )
    if rng.random() < 0.3:  # a chain written backwards: the taint needs one pass per link
        n = rng.randrange(2, 10)
        out += [f"t{k + 1} = t{k}" for k in range(n, 0, -1)] + [
            "t1 = open('f.txt').read()",
            f"print(t{n + 1})",
        ]
    return "\n".join(out) + "\n"


def _ordered_plain(tree: ast.AST) -> list[ast.AST]:
    """The source-order walk written with :func:`ast.iter_child_nodes` (expression contexts left out)."""
    out: list[ast.AST] = []

    def visit(node: ast.AST) -> None:
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
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            for gen in node.generators:
                visit(gen.iter)
                out.append(gen)
                for cond in gen.ifs:
                    visit(cond)
            for child in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
                visit(child)
            return
        if not isinstance(node, ast.expr_context):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _prints_content_plain(tree: ast.AST) -> bool:
    """The taint fixed point over every node of :func:`ast.walk`, each pass testing each node's kind."""
    taint = py._Taint()
    nodes = list(ast.walk(tree))
    for _ in range(6):
        before = len(taint.names)
        for node in nodes:
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and taint.carries(node.value):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    taint.taint(target.value if isinstance(target, ast.Subscript | ast.Attribute) else target)
            elif isinstance(node, ast.For | ast.comprehension) and taint.carries(node.iter):
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
                and node.func.attr in py._COLLECTING
                and any(taint.carries(a) for a in node.args)
            ):
                taint.taint(node.func.value)
        if len(taint.names) == before:
            break
    for node in nodes:
        if isinstance(node, ast.Call) and py._call_name(node.func) in ("print", "pprint", "display"):
            if any(taint.carries(a) for a in node.args):
                return True
        elif (
            isinstance(node, ast.Call)
            and py._call_name(node.func) == "write"
            and isinstance(node.func, ast.Attribute)
        ):
            if getattr(node.func.value, "attr", None) == "stdout" and any(
                taint.carries(a) for a in node.args
            ):
                return True
    return False


def _scripts() -> list[str]:
    rng = random.Random(23)
    own = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "rtlab").rglob("*.py"))]
    return [_script(rng) for _ in range(1500)] + own


def test_python_walks_match_ast_walk_and_the_recursive_walk() -> None:
    prints = 0
    for code in _scripts():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
        nodes = py._Tree(tree)
        assert nodes.breadth_first == [n for n in ast.walk(tree) if not isinstance(n, ast.expr_context)]
        assert nodes.ordered() == _ordered_plain(tree)
        expected = _prints_content_plain(tree)
        assert py._prints_content(nodes.breadth_first) is expected, code
        prints += expected
    assert prints > 300


def test_analysis_is_a_fresh_copy_each_time() -> None:
    code = "import pandas as pd\ndf = pd.read_csv('data/q3.csv')\nprint(df.head())\n"
    first = py.analyze(code)
    first.inputs.append("changed.csv")
    assert py.analyze(code).inputs == ["data/q3.csv"]


def _header_path_plain(
    text: str, inputs: list[str], basenames: dict[str, list[str]], walked: list[str]
) -> tuple[str | None, bool]:
    stripped = text.strip()
    if len(stripped) > 400:
        return None, False
    if py.is_path_line(stripped):
        return stripped, True
    for p in inputs:
        at = text.find(p)
        if 0 <= at <= py._HEADER_AT:
            return p, False
    tokens = [m.group(0) for m in py._NAME_TOKEN.finditer(text) if m.start() <= py._HEADER_AT]
    for tok in tokens:
        if tok in basenames and len(basenames[tok]) == 1:
            return basenames[tok][0], False
        if py._is_file_name(tok) and len(walked) == 1 and len(stripped) < len(tok) + 60:
            return py._join((walked[0], tok)) if "/" not in tok else tok, False
    return None, False


def test_header_lines_are_read_as_the_plain_scan_reads_them() -> None:
    rng = random.Random(29)
    files = ["data/q3.csv", "notes.md", "sources/treasury_2001.txt", "q3.csv", "report", "x.xlsx"]
    fillers = ["", "FILE: ", "=== ", "| 30.0 | 2.5 |", " " * 45, "row 12.5 and 3.75 ", "./", "word " * 20]
    named = 0
    for _ in range(20000):
        inputs = rng.sample(files, rng.randrange(0, 3))
        basenames: dict[str, list[str]] = {}
        for p in inputs:
            basenames.setdefault(posixpath.basename(p), []).append(p)
        walked = rng.sample(["data", "/w/in"], rng.randrange(0, 3))
        text = "".join(rng.choice(fillers + files) for _ in range(rng.randrange(1, 5)))
        expected = _header_path_plain(text, inputs, basenames, walked)
        assert py._header_path(text, inputs, basenames, walked) == expected, (text, inputs, walked)
        named += expected[0] is not None
    assert named > 3000
