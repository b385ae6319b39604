"""Capture, family by family, on hand-made steps: what was read (with its exact excerpt), listed, written."""

from __future__ import annotations

from pathlib import Path

import pytest
from stepping import typed

from rtlab.environment import Capture, Workspace, capture_step
from rtlab.records import Step

ROOT = "/home/agent/ws"


@pytest.fixture(scope="module")
def ws_dir() -> Path:
    return Path(__file__).parent / "fixtures" / "capture" / "workspace"


@pytest.fixture(scope="module")
def ws(ws_dir: Path) -> Workspace:
    return Workspace(ws_dir, agent_root=ROOT)


@pytest.fixture(scope="module")
def text(ws_dir: Path):
    return lambda rel: (ws_dir / rel).read_text(encoding="utf-8")


def cap(
    command: str,
    shown: str | None,
    *,
    tool: str = "shell",
    cwd: str | None = ROOT,
    root: str | None = ROOT,
    workspace: Workspace | None = None,
    **fields,
) -> Capture:
    step = typed(Step(index=0, tool=tool, command=command, output=shown, shown=shown, **fields))
    result = capture_step(step, cwd=cwd, root=root, workspace=workspace)
    for r in result.reads:
        assert shown is not None and shown[r.start : r.start + len(r.excerpt)] == r.excerpt
    return result


def trimmed(text: str) -> str:
    """What capture keeps of a whole output: blank lines at both ends dropped, the last line's newline kept."""
    while text.startswith("\n") or (text.split("\n", 1)[0].strip() == "" and "\n" in text):
        text = text.split("\n", 1)[1]
    kept = text.rstrip()
    return kept + ("\n" if kept and "\n" in text[len(kept) :] else "")


def reads(c: Capture) -> list[tuple[str, str]]:
    return [(r.path, r.excerpt) for r in c.reads]


def paths(c: Capture) -> list[str]:
    return [r.path for r in c.reads]


# ---------------------------------------------------------------------------------------------------------
# cat-like commands


def test_cat_reads_the_whole_file(text) -> None:
    q1 = text("reports/q1.md")
    c = cap("cat reports/q1.md", q1)
    assert reads(c) == [("reports/q1.md", trimmed(q1))]
    assert c.listed == () and c.written == ()


@pytest.mark.parametrize(
    ("command", "path", "make"),
    [
        ("sed -n '2,3p' reports/q1.md", "reports/q1.md", lambda t: "".join(t.splitlines(True)[1:3])),
        ("head -n 2 notes.txt", "notes.txt", lambda t: "".join(t.splitlines(True)[:2])),
        ("tail -2 notes.txt", "notes.txt", lambda t: "".join(t.splitlines(True)[-2:])),
        (
            "nl -ba reports/q2.md",
            "reports/q2.md",
            lambda t: "".join(f"{i:6}\t{ln}" for i, ln in enumerate(t.splitlines(True), 1)),
        ),
        ("less notes.txt", "notes.txt", lambda t: t),
        (
            "awk -F, '$3 > 1000000' data/sales.csv",
            "data/sales.csv",
            lambda t: "".join(ln for ln in t.splitlines(True) if ln.endswith("00000\n") and ln[-9] != ","),
        ),
        (
            "cut -d, -f1,3 data/sales.csv",
            "data/sales.csv",
            lambda t: "".join(",".join(ln.split(",")[::2]) for ln in t.splitlines(True)),
        ),
        ("sort -t, -k3 -n data/sales.csv", "data/sales.csv", lambda t: t),
        ("cat < notes.txt", "notes.txt", lambda t: t),
        ("cat data/sales.csv | grep north | head -1", "data/sales.csv", lambda t: "north,Q1,1600000\n"),
    ],
)
def test_reading_commands(command: str, path: str, make, text) -> None:
    shown = make(text(path))
    assert reads(cap(command, shown)) == [(path, trimmed(shown))]


def test_head_of_several_files_splits_at_its_headers(text) -> None:
    q1, q2 = (text(f"reports/{n}").splitlines(True)[:2] for n in ("q1.md", "q2.md"))
    shown = "==> reports/q1.md <==\n" + "".join(q1) + "\n==> reports/q2.md <==\n" + "".join(q2)
    c = cap("head -n 2 reports/q1.md reports/q2.md", shown)
    assert reads(c) == [("reports/q1.md", trimmed("".join(q1))), ("reports/q2.md", trimmed("".join(q2)))]


def test_head_of_a_glob_names_files_by_its_headers(text) -> None:
    shown = "==> reports/q1.md <==\n# Q1 revenue report\n\n==> reports/q2.md <==\n# Q2 revenue report\n"
    assert paths(cap("head -n 1 reports/*.md", shown)) == ["reports/q1.md", "reports/q2.md"]


def test_failed_or_error_only_commands_read_nothing() -> None:
    assert (
        cap("cat nope.txt", "cat: nope.txt: No such file or directory\n", exit_code=1, is_error=True)
        == Capture()
    )
    assert (
        cap("sed -n '1,20p' d.txt", "sed: can't read d.txt: No such file or directory\n", exit_code=2)
        == Capture()
    )
    tb = "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nFileNotFoundError: [Errno 2] No such file or directory: 'x.csv'\n"
    assert cap("python3 -c \"print(open('x.csv').read())\"", tb, exit_code=1) == Capture()
    # a program that did not compile: Python's report has no Traceback header, and the source line it quotes
    # (naming the file the program would have opened) is the program's text, not the file's
    program = "import csv; rows = list(csv.reader(open('data/sales.csv'))); for r in rows: if r: print(r)"
    syntax = f'  File "<string>", line 1\n    {program}\n{" " * 64}^^^\nSyntaxError: invalid syntax\n'
    assert cap(f'python3 -c "{program}"', syntax, exit_code=1) == Capture()
    # the same report after real output: the output before it is still read
    sales = "region,amount\nnorth,1200\nsouth,900\n"
    assert cap("cat data/sales.csv; python3 -c 'x ='", sales + '  File "<string>", line 1\n    x =\n       ^\n'
               "SyntaxError: invalid syntax\n") != Capture()  # fmt: skip
    assert cap("cat reports/q1.md", None) == Capture()  # unanswered


def test_counts_read_and_list_nothing() -> None:
    assert cap("cat data/sales.csv | wc -l", "7\n") == Capture()
    assert cap("grep -c north data/sales.csv", "2\n") == Capture()
    assert cap("find . -name '*.md' | wc -l", "2\n") == Capture()


def test_cd_changes_the_directory_for_the_rest_of_the_command(text) -> None:
    q1 = text("reports/q1.md")
    assert paths(cap("cd reports && cat q1.md", q1)) == ["reports/q1.md"]
    assert paths(cap(f"cd {ROOT}/reports; cat ../notes.txt", text("notes.txt"))) == ["notes.txt"]
    shown = q1 + "---\n" + text("notes.txt")
    c = cap("(cd reports && cat q1.md) && echo --- && cat notes.txt", shown)
    assert paths(c) == ["reports/q1.md", "notes.txt"]  # the subshell's cd ends with it


def test_bash_c_wrappers_are_unwrapped(text) -> None:
    assert paths(cap("bash -lc 'cat notes.txt'", text("notes.txt"))) == ["notes.txt"]
    assert paths(cap("timeout 10 cat notes.txt", text("notes.txt"))) == ["notes.txt"]


def test_echo_separators_split_several_commands(text) -> None:
    q1, q2 = text("reports/q1.md"), text("reports/q2.md")
    c = cap("cat reports/q1.md && echo '---' && cat reports/q2.md", q1 + "---\n" + q2)
    assert reads(c) == [("reports/q1.md", trimmed(q1)), ("reports/q2.md", trimmed(q2))]
    c = cap("cat reports/q1.md; printf '\\n== next ==\\n'; cat reports/q2.md", q1 + "\n== next ==\n" + q2)
    assert reads(c) == [("reports/q1.md", trimmed(q1)), ("reports/q2.md", trimmed(q2))]


def test_loop_over_literal_files_with_headers(text) -> None:
    parts = [
        f"--- reports/{n}\n" + "".join(text(f"reports/{n}").splitlines(True)[:2]) for n in ("q1.md", "q2.md")
    ]
    c = cap(
        'for f in reports/q1.md reports/q2.md; do echo "--- $f"; sed -n \'1,2p\' "$f"; done', "".join(parts)
    )
    assert reads(c) == [
        ("reports/q1.md", trimmed("".join(text("reports/q1.md").splitlines(True)[:2]))),
        ("reports/q2.md", trimmed("".join(text("reports/q2.md").splitlines(True)[:2]))),
    ]


def test_loop_over_a_glob_takes_the_file_from_its_echo_line(text, ws) -> None:
    shown = "== reports/q1.md ==\n# Q1 revenue report\n== reports/q2.md ==\n# Q2 revenue report\n"
    command = 'for f in reports/*.md; do echo "== $f =="; head -n 1 "$f"; done'
    assert reads(cap(command, shown)) == [
        ("reports/q1.md", "# Q1 revenue report\n"),
        ("reports/q2.md", "# Q2 revenue report\n"),
    ]
    # with a workspace the glob is expanded against its files instead
    assert paths(cap(command, shown, workspace=ws)) == ["reports/q1.md", "reports/q2.md"]


def test_several_files_without_headers(text, ws) -> None:
    q1, q2 = text("reports/q1.md"), text("reports/q2.md")
    c = cap("cat reports/q1.md reports/q2.md", q1 + q2)
    assert paths(c) == ["reports/q1.md", "reports/q2.md"]  # cannot tell where one ends: both get all of it
    assert {r.excerpt for r in c.reads} == {trimmed(q1 + q2)}
    c = cap("cat reports/q1.md reports/q2.md", q1 + q2, workspace=ws)
    assert reads(c) == [("reports/q1.md", trimmed(q1)), ("reports/q2.md", trimmed(q2))]


def test_lost_output_and_stopped_chains(text) -> None:
    q2 = text("reports/q2.md")
    # exit 0 but the separator is missing: the start of the output was lost (openai/codex#37207)
    c = cap("cat reports/q1.md && echo --- && cat reports/q2.md", q2, exit_code=0)
    assert reads(c) == [("reports/q2.md", trimmed(q2))]
    # a failure stopped the && chain: what follows never ran
    q1 = text("reports/q1.md")
    shown = q1 + "cat: nope.txt: No such file or directory\n"
    c = cap("cat reports/q1.md; cat nope.txt && echo --- && cat notes.txt", shown, exit_code=1)
    assert reads(c) == [("reports/q1.md", trimmed(q1))]


# ---------------------------------------------------------------------------------------------------------
# listings


LS_LA = """total 24
drwxr-xr-x  5 agent agent 4096 Jun 10 08:13 .
drwxr-xr-x 12 agent agent 4096 Jun 10 08:00 ..
drwxr-xr-x  2 agent agent 4096 Jun 10 08:13 data
-rw-r--r--  1 agent agent  139 Jun 10 08:13 notes.txt
lrwxrwxrwx  1 agent agent   15 Jun 10 08:13 latest.md -> reports/q2.md
drwxr-xr-x  2 agent agent 4096 Jun 10 08:13 reports
-rw-r--r--  1 agent agent 1532 2025-06-10 08:13 bulletin.txt
"""


def test_ls_long_keeps_files_and_drops_folders() -> None:
    c = cap("ls -la", LS_LA)
    assert c.listed == ("notes.txt", "latest.md", "bulletin.txt") and c.reads == ()


def test_ls_recursive_rebuilds_paths_from_its_headers() -> None:
    shown = ".:\ndata\nnotes.txt\nreports\n\n./data:\nsales.csv\n\n./reports:\nq1.md\nq2.md\n"
    assert cap("ls -R", shown).listed == ("notes.txt", "data/sales.csv", "reports/q1.md", "reports/q2.md")
    long = (
        "reports:\ntotal 8\n-rw-r--r-- 1 a a 170 Jun 10 08:13 q1.md\ndrwxr-xr-x 2 a a 4096 Jun 10 08:13 old\n"
    )
    assert cap("ls -lR reports", long).listed == ("reports/q1.md",)


@pytest.mark.parametrize(
    ("command", "shown", "listed"),
    [
        ("ls reports", "q1.md\nq2.md\n", ("reports/q1.md", "reports/q2.md")),
        # -F marks every folder with '/': 'run*' is an executable file (it was dropped as extensionless before)
        ("ls -F", "data/\nnotes.txt\nrun*\nreports/\n", ("notes.txt", "run")),
        ("ls -p", "data/\nMakefile\n.env\n", ("Makefile", ".env")),  # -p too: unmarked names are files
        ("ls --indicator-style=none", "data\nMakefile\n", ()),  # no markers: the extension rule again
        ("ls -p data", "sales.csv\narchive/\n", ("data/sales.csv",)),
        ("ls -l reports/q1.md", "-rw-r--r-- 1 a a 170 Jun 10 08:13 reports/q1.md\n", ("reports/q1.md",)),
        ("ls reports/*.md", "reports/q1.md\nreports/q2.md\n", ("reports/q1.md", "reports/q2.md")),
        ("ls data reports", "data:\nsales.csv\n\nreports:\nq1.md\n", ("data/sales.csv", "reports/q1.md")),
        (
            "ls",
            "bulletin.txt  data  notes.txt  reports\n",
            ("bulletin.txt", "notes.txt"),
        ),  # a terminal's columns
        ("ls nope", "ls: cannot access 'nope': No such file or directory\n", ()),
        ("ls reports | grep q1", "q1.md\n", ("reports/q1.md",)),
    ],
)
def test_ls_forms(command: str, shown: str, listed: tuple[str, ...]) -> None:
    c = cap(command, shown)
    assert c.listed == listed and c.reads == ()


def test_find_lists_files_by_type_or_extension() -> None:
    shown = "./notes.txt\n./reports\n./reports/q1.md\n./data/sales.csv\n./Makefile\n"
    assert cap("find . -maxdepth 2", shown).listed == ("notes.txt", "reports/q1.md", "data/sales.csv")
    assert cap("find . -type f", shown).listed == (
        "notes.txt",
        "reports",
        "reports/q1.md",
        "data/sales.csv",
        "Makefile",
    )
    assert cap("find . -type d", "./reports\n./data\n").listed == ()
    stripped = "notes.txt\nreports/q1.md\n"
    assert cap("find . -type f | sed 's#^./##' | sort | head -50", stripped).listed == (
        "notes.txt",
        "reports/q1.md",
    )
    assert cap("find reports -name '*.md' -printf '%P\\n'", "q1.md\nq2.md\n").listed == (
        "reports/q1.md",
        "reports/q2.md",
    )
    ls_form = "  1234      4 -rw-r--r--   1 a  a  170 Jun 10 08:13 ./reports/q1.md\n"
    assert cap("find reports -type f -ls", ls_form).listed == ("reports/q1.md",)


def test_tree_rebuilds_paths_and_tells_folders_from_files() -> None:
    shown = """.
├── bulletin.txt
├── data
│   └── sales.csv
├── reports
│   ├── old
│   │   └── q0.md
│   └── q1.md
└── LICENSE

3 directories, 5 files
"""
    assert cap("tree", shown).listed == (
        "bulletin.txt",
        "data/sales.csv",
        "reports/old/q0.md",
        "reports/q1.md",
        "LICENSE",
    )
    limited = "reports\n├── archive\n└── q1.md\n\n1 directory, 1 file\n"
    assert cap("tree -L 1 reports", limited).listed == (
        "reports/q1.md",
    )  # a leaf at the depth limit: extension rule
    ascii_tree = "reports\n|-- q1.md\n`-- q2.md\n"
    assert cap("tree --charset ascii reports", ascii_tree).listed == ("reports/q1.md", "reports/q2.md")
    assert cap("tree -d", ".\n└── reports\n").listed == ()


@pytest.mark.parametrize(
    ("command", "shown", "listed"),
    [
        ("fd -t f md", "reports/q1.md\nreports/q2.md\n", ("reports/q1.md", "reports/q2.md")),
        ("fd report", "reports/\nreports/q1.md\n", ("reports/q1.md",)),
        (
            "du -a reports",
            "4\treports/q1.md\n4\treports/q2.md\n12\treports\n",
            ("reports/q1.md", "reports/q2.md"),
        ),
        (
            "wc -l notes.txt data/sales.csv",
            "  3 notes.txt\n  7 data/sales.csv\n 10 total\n",
            ("notes.txt", "data/sales.csv"),
        ),
        ("wc -c notes.txt", "139 notes.txt\n", ("notes.txt",)),
        ("file notes.txt reports", "notes.txt: ASCII text\nreports:   directory\n", ("notes.txt",)),
        (
            "stat notes.txt",
            "  File: notes.txt\n  Size: 139       \tBlocks: 8          IO Block: 4096   regular file\n",
            ("notes.txt",),
        ),
        ("stat -c '%s %n' notes.txt", "139 notes.txt\n", ("notes.txt",)),
        ("realpath notes.txt", f"{ROOT}/notes.txt\n", ("notes.txt",)),
        ("grep -rl revenue reports", "reports/q1.md\nreports/q2.md\n", ("reports/q1.md", "reports/q2.md")),
        ("grep -L north reports/q1.md reports/q2.md", "reports/q2.md\n", ("reports/q2.md",)),
        (
            "grep -rc Revenue reports",
            "reports/q1.md:1\nreports/q2.md:1\n",
            ("reports/q1.md", "reports/q2.md"),
        ),
        ("grep -r x .", "Binary file ./img/logo.png matches\n", ("img/logo.png",)),
    ],
)
def test_listing_commands(command: str, shown: str, listed: tuple[str, ...]) -> None:
    c = cap(command, shown)
    assert c.listed == listed and c.reads == ()


def test_pwd_ls_and_find_split_by_line_shape() -> None:
    shown = f"{ROOT}\n" + LS_LA + "./bulletin.txt\n./data/sales.csv\n./reports/q1.md\n"
    c = cap("pwd && ls -la && find . -type f | sort", shown)
    assert c.listed == ("notes.txt", "latest.md", "bulletin.txt", "data/sales.csv", "reports/q1.md")


def test_pi_listing_tools_are_relative_to_the_folder_searched() -> None:
    assert cap("ls reports", "old/\nq1.md\nq2.md", tool="ls").listed == ("reports/q1.md", "reports/q2.md")
    shown = "q1.md\nold/q0.md\n\n[1000 results limit reached. Use limit=2000 for more, or refine pattern]"
    assert cap("find reports -name '*.md'", shown, tool="find").listed == (
        "reports/q1.md",
        "reports/old/q0.md",
    )
    assert cap("ls empty", "(empty directory)", tool="ls") == Capture()


# ---------------------------------------------------------------------------------------------------------
# searches


def test_grep_path_prefixed_lines_are_excerpts_of_their_files() -> None:
    shown = (
        "reports/q1.md:2:Revenue grew 12 percent to 4.2 million dollars.\n"
        "reports/q1.md-3-Operating costs held at 1.9 million dollars.\n"
        "--\n"
        "reports/q1.md:5:Headcount rose from 41 to 47 employees.\n"
        "reports/q2.md:2:Revenue grew 9 percent to 4.6 million dollars.\n"
    )
    c = cap("grep -rn -A1 -e Revenue -e Headcount reports", shown)
    lines = shown.splitlines()
    assert reads(c) == [("reports/q1.md", "\n".join(lines[:4])), ("reports/q2.md", lines[4])]


def test_grep_of_one_file_has_no_prefix_and_is_that_files_excerpt() -> None:
    shown = "2:north,Q1,1600000\n6:north,Q2,1750000\n"
    assert reads(cap("grep -n north data/sales.csv", shown)) == [("data/sales.csv", trimmed(shown))]
    assert reads(cap("grep -n north data/sales.csv | head -1", "2:north,Q1,1600000\n")) == [
        ("data/sales.csv", "2:north,Q1,1600000\n")
    ]


def test_a_recursive_search_of_one_operand_is_told_file_or_folder_by_its_output() -> None:
    # a folder whose name looks like a file's (a version suffix) prints path prefixes: each line is its file's
    shown = "/w/ponyc__0.1/packages/cli/command_parser.pony:class CommandParser\n"
    assert reads(cap('grep -r "class CommandParser" /w/ponyc__0.1', shown)) == [
        ("/w/ponyc__0.1/packages/cli/command_parser.pony", shown.rstrip("\n"))
    ]
    # and a file searched recursively prints none, whatever its name looks like
    assert reads(cap("grep -rn FROM Dockerfile", "1:FROM python:3.11\n")) == [
        ("Dockerfile", "1:FROM python:3.11\n")
    ]
    assert reads(cap("grep -r north data/sales.csv", "north,Q1,1600000\n")) == [
        ("data/sales.csv", "north,Q1,1600000\n")
    ]


def test_rg_and_git_grep() -> None:
    shown = "reports/q1.md:2:Revenue grew 12 percent to 4.2 million dollars.\n"
    assert paths(cap("rg -n Revenue", shown)) == ["reports/q1.md"]
    assert paths(cap("git grep -n Revenue", shown)) == ["reports/q1.md"]
    assert paths(cap("rg Revenue reports/q1.md", "Revenue grew 12 percent to 4.2 million dollars.\n")) == [
        "reports/q1.md"
    ]


def test_grep_errors_and_quiet_read_nothing() -> None:
    assert cap("grep -rn x nope", "grep: nope: No such file or directory\n", exit_code=2) == Capture()
    assert cap("grep -q north data/sales.csv && echo yes", "yes\n") == Capture()


def test_pi_grep_tool_paths_are_relative_to_the_search_folder() -> None:
    shown = "q1.md:2: Revenue grew 12 percent to 4.2 million dollars.\nq2.md-3- Operating costs rose to 2.1 million dollars."
    c = cap("grep -rn -C 1 Revenue reports", shown, tool="grep")
    assert paths(c) == ["reports/q1.md", "reports/q2.md"]
    assert cap("grep -rn zzz reports", "No matches found", tool="grep") == Capture()


def test_semfs_grep_results_are_excerpts() -> None:
    shown = (
        '# supermemory semantic search — 2 results for "revenue"\n'
        "# output: <filepath>:<line_start>-<line_end>:<chunk>\n\n"
        "/reports/q1.md:1-3:# Q1 revenue report\\nRevenue grew 12 percent to 4.2 million dollars.\n"
        "# ^ COMPLETE FILE — excerpt above is this file's entire content\n\n"
        "/data/sales.csv:## Sheet1\\n| region | amount |\n"
    )
    c = cap('semfs grep "revenue" .', shown)
    assert paths(c) == ["reports/q1.md", "data/sales.csv"]
    assert c.reads[0].excerpt.startswith("/reports/q1.md:1-3:# Q1")


# ---------------------------------------------------------------------------------------------------------
# python


def test_python_headers_split_the_output_per_file() -> None:
    command = """python - <<'PY'
from openpyxl import load_workbook
files = ['data/a.xlsx', 'data/b.xlsx']
for f in files:
    print('\\nFILE:', f)
    wb = load_workbook(f, data_only=True)
    for row in wb.active.iter_rows(values_only=True):
        print(row)
PY"""
    shown = "\nFILE: data/a.xlsx\n('region', 'amount')\n('north', 1600000)\n\nFILE: data/b.xlsx\n('month', 'cost')\n('Jan', 1200)\n"
    assert reads(cap(command, shown)) == [
        ("data/a.xlsx", "('region', 'amount')\n('north', 1600000)\n"),
        ("data/b.xlsx", "('month', 'cost')\n('Jan', 1200)\n"),
    ]


def test_python_one_input_prints_that_file(text) -> None:
    command = (
        "python3 - <<'PY'\nimport csv\nfor row in csv.reader(open('data/sales.csv')):\n    print(row)\nPY"
    )
    shown = "".join(f"{ln.strip().split(',')}\n" for ln in text("data/sales.csv").splitlines())
    assert reads(cap(command, shown)) == [("data/sales.csv", trimmed(shown))]
    c = cap("python3 -c \"print(open('notes.txt').read())\"", text("notes.txt"))
    assert paths(c) == ["notes.txt"]


def test_python_that_writes_is_not_a_read() -> None:
    command = """python - <<'PY'
import os, pandas as pd
outdir = 'model_output'
df = pd.read_excel('data/a.xlsx')
out = os.path.join(outdir, 'summary.xlsx')
df.groupby('region').sum().to_excel(out)
print('created', out)
print(df['amount'].sum())
PY"""
    c = cap(command, "created model_output/summary.xlsx\n5000000\n")
    assert c.reads == () and c.written == ("model_output/summary.xlsx",) and c.listed == ()
    c = cap("python3 -c \"from pathlib import Path; Path('out.txt').write_text('42')\"", "")
    assert c.written == ("out.txt",)


def test_python_that_walks_folders_lists_paths() -> None:
    command = "python - <<'PY'\nimport os\nfor root, dirs, files in os.walk('.'):\n    for f in files:\n        print(os.path.join(root, f))\nPY"
    c = cap(command, "./notes.txt\n./reports/q1.md\n")
    assert c.listed == ("notes.txt", "reports/q1.md") and c.reads == ()


def test_python_with_several_inputs_and_no_headers_reads_nothing_without_a_workspace() -> None:
    command = "python3 - <<'PY'\nimport pandas as pd\nfor p in ['a.csv', 'b.csv', 'c.csv']:\n    print(pd.read_csv(p).shape)\nPY"
    assert cap(command, "(10, 3)\n(12, 3)\n(9, 3)\n").reads == ()


def test_python_slices_are_attributed_by_content(ws, text) -> None:
    bulletin = text("bulletin.txt")
    start = bulletin.index("ership of U.S. Treasury")  # mid-line
    end = bulletin.index("| 119504 |") + 4  # mid-line too
    piece = bulletin[start:end]
    command = (
        "python3 - <<'PY'\nfrom pathlib import Path\n"
        "for f in sorted(Path('.').glob('*.txt')):\n    t = f.read_text()\n    i = t.find('OFS-2')\n"
        "    print('###', f.name, i)\n    print(t[i+20:i+400])\nPY"
    )
    shown = f"### bulletin.txt 7\n{piece}\n### notes.txt -1\n\n"
    c = cap(command, shown, workspace=ws)
    assert reads(c) == [("bulletin.txt", piece)]


def test_content_that_does_not_appear_is_not_read(ws, text) -> None:
    computed = "python3 - <<'PY'\nimport pandas as pd\ndf = pd.read_csv('data/sales.csv')\nprint(df.amount.sum())\nPY"
    assert cap(computed, "7750000\n", workspace=ws).reads == ()  # computed from the file, not shown
    assert cap(computed, "7750000\n").reads == ()  # the script prints an aggregate: the structure says so too
    dump = "python3 - <<'PY'\nprint(open('data/sales.csv').read())\nPY"
    assert paths(cap(dump, "region,amount\nnowhere,0\n")) == ["data/sales.csv"]  # the structure says read
    assert cap(dump, "region,amount\nnowhere,0\n", workspace=ws).reads == ()  # the content says otherwise
    # the command names q1.md, but what was printed is notes.txt (a stale copy, a symlink): content decides
    c = cap("cat reports/q1.md", text("notes.txt"), workspace=ws)
    assert paths(c) == ["notes.txt"]


def test_identical_copies_go_to_the_file_named(ws, text) -> None:
    readme = text("copies/one/readme.txt")
    assert paths(cap("cat copies/two/readme.txt", readme, workspace=ws)) == ["copies/two/readme.txt"]
    unnamed = "python3 - <<'PY'\nimport glob\nfor p in glob.glob('copies/*/readme.txt'):\n    print(open(p).read())\nPY"
    assert sorted(paths(cap(unnamed, readme, workspace=ws))) == [
        "copies/one/readme.txt",
        "copies/two/readme.txt",
    ]


# ---------------------------------------------------------------------------------------------------------
# read, write and edit tools


def test_read_tools_of_every_harness(text) -> None:
    notes = text("notes.txt")
    pi = notes + "\n[3 more lines in file. Use offset=4 to continue.]"
    assert reads(cap("read notes.txt 1 3", pi, tool="read")) == [("notes.txt", trimmed(notes))]
    numbered = "".join(f"{i:6}\t{ln}" for i, ln in enumerate(notes.splitlines(True), 1))
    assert reads(cap(f"read {ROOT}/notes.txt 1 3", numbered, tool="read")) == [
        ("notes.txt", trimmed(numbered))
    ]
    editor = f"Here's the result of running `cat -n` on {ROOT}/notes.txt:\n{numbered}"
    assert reads(cap(f"read {ROOT}/notes.txt", editor, tool="str_replace_editor")) == [
        ("notes.txt", trimmed(numbered))
    ]
    reference = f'<reference skill="officeqa" path="references/a.md">\n{notes}\n</reference>'
    assert reads(cap("read /skills/officeqa/references/a.md", reference, tool="read_reference")) == [
        ("/skills/officeqa/references/a.md", trimmed(notes))
    ]
    assert reads(cap("read notes.txt", notes, tool="read_file")) == [("notes.txt", trimmed(notes))]


def test_read_tool_errors_and_folders() -> None:
    assert cap("read missing.txt", "Error: file 'missing.txt' not found.", tool="read_file") == Capture()
    assert cap("read x.txt", "ENOENT: no such file or directory", tool="read", is_error=True) == Capture()
    view = (
        f"Here's the files and directories up to 2 levels deep in {ROOT}/reports, excluding hidden items:\n"
        f"{ROOT}/reports/\n{ROOT}/reports/q1.md\n{ROOT}/reports/q2.md\n"
    )
    c = cap(f"read {ROOT}/reports", view, tool="str_replace_editor")
    assert c.reads == () and c.listed == ("reports/q1.md", "reports/q2.md")


def test_write_and_edit_tools_write() -> None:
    assert cap("write model_output/report.md", "Successfully wrote 12 bytes", tool="write").written == (
        "model_output/report.md",
    )
    c = cap("edit notes.txt", "Successfully replaced text in notes.txt.", tool="edit")
    assert c == Capture(written=("notes.txt",))
    assert cap("edit notes.txt", "Could not find the text", tool="edit", is_error=True) == Capture()


def test_openhands_file_editor_calls() -> None:
    view = f"print(file_editor(**{{'command': 'view', 'path': '{ROOT}/notes.txt'}}))"
    numbered = "     1\tMeeting notes from the planning session.\n"
    assert paths(
        cap(
            view,
            f"Here's the result of running `cat -n` on {ROOT}/notes.txt:\n{numbered}",
            tool="run_ipython",
        )
    ) == ["notes.txt"]
    create = f"print(file_editor(**{{'command': 'create', 'path': '{ROOT}/out.md', 'file_text': 'x'}}))"
    assert cap(create, f"File created successfully at: {ROOT}/out.md", tool="run_ipython") == Capture(
        written=("out.md",)
    )


# ---------------------------------------------------------------------------------------------------------
# shell writes


@pytest.mark.parametrize(
    ("command", "shown", "written"),
    [
        (
            "cat > model_output/r.md <<'EOF'\n# Report\nRevenue grew 12 percent to 4.2 million dollars.\nEOF",
            "",
            ("model_output/r.md",),
        ),
        ("echo done > status.txt", "", ("status.txt",)),
        ("printf 'a\\n' >> log.txt 2>/dev/null", "", ("log.txt",)),
        (
            "cat <<'EOF' | tee out/a.md\nRevenue grew 12 percent to 4.2 million dollars.\nEOF",
            "Revenue grew 12 percent to 4.2 million dollars.\n",
            ("out/a.md",),
        ),
        ("sed -i 's/41/42/' reports/q1.md", "", ("reports/q1.md",)),
        ("sed -i '' 's/41/42/' reports/q1.md", "", ("reports/q1.md",)),
        ("cp reports/q1.md backup/", "", ("backup/q1.md",)),
        ("mv draft.md final.md", "", ("final.md",)),
        ("cat reports/q1.md > copy.md", "", ("copy.md",)),
    ],
)
def test_shell_writes_are_not_reads(command: str, shown: str, written: tuple[str, ...], ws) -> None:
    for workspace in (None, ws):
        c = cap(command, shown, workspace=workspace)
        assert c.reads == () and c.written == written and c.listed == ()


def test_a_path_written_and_listed_in_one_step_is_written_only() -> None:
    c = cap("cat > r.md <<'EOF'\nx\nEOF\nwc -c r.md", "2 r.md\n")
    assert c.written == ("r.md",) and c.listed == ()


# ---------------------------------------------------------------------------------------------------------
# clipped observations and harness frames


def test_codex_clip_gives_clipped_excerpts_without_the_markers(text) -> None:
    bulletin = text("bulletin.txt")
    head, tail = bulletin[:400], bulletin[-300:]
    shown = f"Total output lines: 24\n{head}…812 tokens truncated…{tail}"
    c = cap("cat bulletin.txt", shown, clipped=True)
    assert reads(c) == [("bulletin.txt", trimmed(head)), ("bulletin.txt", trimmed(tail))]
    assert all("truncated" not in r.excerpt and "Total output lines" not in r.excerpt for r in c.reads)


def test_clip_markers_count_only_when_the_harness_clipped() -> None:
    shown = "a line mentioning …12 tokens truncated… as text\n"
    assert reads(cap("cat notes.txt", shown)) == [("notes.txt", trimmed(shown))]


@pytest.mark.parametrize(
    "marker",
    ["\n[... Observation truncated due to length ...]\n", "\n[... omitted 40 of 300 lines ...]\n\n"],
)
def test_other_clip_markers(marker: str, text) -> None:
    notes = text("notes.txt")
    shown = notes + marker + notes
    c = cap("cat notes.txt", shown, clipped=True)
    assert [r.excerpt for r in c.reads] == [trimmed(notes), trimmed(notes)]


def test_clipped_listing_drops_the_cut_lines() -> None:
    shown = "./a/one.txt\n./a/tw…100 tokens truncated…ee.txt\n./a/four.txt\n"
    assert cap("find . -type f", shown, clipped=True).listed == ("a/one.txt", "a/four.txt")


def test_python_headers_cut_by_a_clip_marker_follow_the_script_order() -> None:
    command = "python - <<'PY'\nfiles = ['a.xlsx', 'b.xlsx', 'c.xlsx']\nfor f in files:\n    print('FILE:', f)\n    print(open(f).read())\nPY"
    shown = "FILE: a.xlsx\nrow a1\nrow a2 …900 tokens truncated… row c9\nrow c10\n"
    assert [r.path for r in cap(command, shown, clipped=True).reads] == ["a.xlsx", "c.xlsx"]


def test_g2b_frame_several_commands(text) -> None:
    notes = text("notes.txt")
    commands = ["python - <<'PY'\nprint(1)\nPY", "cat notes.txt"]
    shown = (
        f"Command: {commands[0]}\nstderr:\n/bin/sh: python: command not found\n\nexit_code: 127\n\n"
        f"Command: {commands[1]}\nstdout:\n{notes}\nexit_code: 0"
    )
    c = cap("\n".join(commands), shown, args={"commands": commands}, exit_code=127, is_error=True)
    assert reads(c) == [("notes.txt", trimmed(notes))]


def test_terminal_echo_of_the_command_is_not_content(text) -> None:
    notes = text("notes.txt").replace("\n", "\r\n")
    c = cap("cat notes.txt", "cat notes.txt\r\n" + notes, tool="run")
    assert c.reads[0].excerpt.startswith("Meeting notes")


def test_pi_bash_status_lines_are_not_content(text) -> None:
    notes = text("notes.txt")
    assert reads(cap("cat notes.txt; false", notes + "\n\nCommand exited with code 1", tool="bash")) == [
        ("notes.txt", trimmed(notes))
    ]
    assert cap("find . -name zz", "(no output)", tool="bash") == Capture()


# ---------------------------------------------------------------------------------------------------------
# paths and speed


def test_paths_are_normalised_against_cwd_and_root(text) -> None:
    notes = text("notes.txt")
    assert paths(cap(f"cat {ROOT}/notes.txt", notes)) == ["notes.txt"]
    assert paths(cap("cat ../other/x.txt", notes)) == ["/home/agent/other/x.txt"]
    assert paths(cap("cat notes.txt", notes, cwd=None, root=None)) == ["notes.txt"]
    assert paths(cap("cat ./a/../notes.txt", notes, cwd=f"{ROOT}/reports")) == ["reports/notes.txt"]


def test_a_file_read_twice_gives_two_entries(text) -> None:
    notes = text("notes.txt")
    c = cap("cat notes.txt && echo --- && cat notes.txt", notes + "---\n" + notes)
    assert [r.path for r in c.reads] == ["notes.txt", "notes.txt"]
    assert c.reads[0].start < c.reads[1].start


def test_capture_of_megabyte_outputs() -> None:
    # how fast, and that it grows linearly: bench/large_inputs.py
    body = "\n".join(
        f"line {i}: the quick brown fox jumps over the lazy dog {i * 7919 % 10007}" for i in range(16000)
    )
    listing = "\n".join(f"./dir{i % 97}/sub{i % 13}/file_{i}.txt" for i in range(30000))
    grep = "\n".join(f"./d{i % 40}/f{i % 400}.txt:{i}:match {i}" for i in range(30000))
    assert min(len(body), len(listing), len(grep)) > 700_000
    assert reads(cap("cat big.txt", body)) == [("big.txt", body)]
    found = cap("find . -type f", listing)
    assert found.reads == () and found.listed == tuple(
        f"dir{i % 97}/sub{i % 13}/file_{i}.txt" for i in range(30000)
    )
    hits = cap("grep -rn match .", grep)
    assert paths(hits) == [f"d{i % 40}/f{i % 400}.txt" for i in range(30000)]
    assert hits.reads[-1].excerpt == "./d39/f399.txt:29999:match 29999"  # each hit line as shown


def test_workspace_confirms_short_line_files_and_keeps_what_it_cannot_check(tmp_path: Path) -> None:
    (tmp_path / "tiny.csv").write_text("a,1\nb,2\n")
    (tmp_path / "sheet.xlsx").write_bytes(b"PK\x03\x04")
    ws = Workspace(tmp_path, agent_root=ROOT)
    assert paths(cap("cat tiny.csv", "a,1\nb,2\n", workspace=ws)) == ["tiny.csv"]
    assert cap("cat tiny.csv", "x,9\n", workspace=ws).reads == ()
    dump = "python3 -c \"import openpyxl; print(list(openpyxl.load_workbook('sheet.xlsx').active.values))\""
    assert paths(cap(dump, "[('a', 1)]\n", workspace=ws)) == ["sheet.xlsx"]  # binary: the structure decides
    assert paths(cap("cat model_output/new.md", "# Draft\n", workspace=ws)) == [
        "model_output/new.md"
    ]  # not copied


def test_python_script_files_are_attributed_only_by_headers() -> None:
    assert cap("python3 stats.py data/sales.csv", "mean 1107142.9\n").reads == ()
    assert paths(cap("python3 dump.py data/sales.csv", "FILE: data/sales.csv\nnorth,Q1,1600000\n")) == [
        "data/sales.csv"
    ]


def test_g2b_search_tools() -> None:
    c = cap('glob_files {"pattern":"**/*.md"}', "reports/q1.md\nreports/q2.md", tool="glob_files")
    assert c.listed == ("reports/q1.md", "reports/q2.md")
    shown = f"{ROOT}/reports/q1.md:2:Revenue grew 12 percent to 4.2 million dollars.\n...(truncated)"
    c = cap('grep_files {"pattern":"Revenue"}', shown, tool="grep_files")
    assert reads(c) == [("reports/q1.md", shown.splitlines()[0])]
    assert (
        cap('glob_files {"pattern":"*.x"}', "No files matched the pattern.", tool="glob_files") == Capture()
    )


# ---------------------------------------------------------------------------------------------------------
# the shell structure underneath


def test_shell_structure_heredocs_quotes_loops_and_cwd() -> None:
    from rtlab.environment._capture.units import Repeat, Unit, units

    items = units(
        "cd /a && cat > 'x y.md' <<'EOF'\nline $HOME\nEOF\n"
        'for f in one.txt "two words.txt"; do wc -l "$f"; done; (cd sub; ls) | sort; ls',
        "/start",
    )
    assert all(isinstance(i, Unit) for i in items)
    cat, wc1, wc2, ls_sub, ls_top = items  # type: ignore[misc]
    assert [s.name for s in ls_sub.stages] == ["ls", "sort"]  # type: ignore[union-attr]
    assert cat.cwd == "/a" and cat.stages[0].redirects[0].target.text == "x y.md"  # type: ignore[union-attr]
    assert cat.stages[0].heredoc == "line $HOME\n"  # type: ignore[union-attr]
    assert [w.text for w in wc1.stages[0].words] == ["-l", "one.txt"]  # type: ignore[union-attr]
    assert [w.text for w in wc2.stages[0].words] == ["-l", "two words.txt"]  # type: ignore[union-attr]
    assert ls_sub.cwd == "/a/sub" and ls_top.cwd == "/a"  # type: ignore[union-attr]
    [loop] = units("for f in $(ls *.md); do head -1 $f; done", "/a")
    assert isinstance(loop, Repeat) and loop.var == "f"
    [unit] = units("bash -lc 'sed -n \"1,5p\" notes.txt 2>/dev/null'", "/a")
    assert isinstance(unit, Unit) and unit.stages[0].name == "sed" and not unit.silent_output
    assert units("echo 'unterminated", "/a")  # never raises
    assert units("", None) == []
