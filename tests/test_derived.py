"""Derived entries: values computed from files (counts, sizes, programs' results) captured with their
provenance, kept in the tab only when ``TabConfig.derived`` is on, reviewed and cited like file entries."""

from __future__ import annotations

from pathlib import Path

import pytest
from stepping import typed

from rtlab.environment import Capture, CapturedDerived, CapturedRead, Tab, TabConfig, capture_step
from rtlab.records import Step

ROOT = "/w"


def cap(command: str, shown: str) -> Capture:
    c = capture_step(
        typed(Step(index=0, tool="shell", command=command, output=shown, shown=shown)), cwd=ROOT, root=ROOT
    )
    for d in c.derived:  # exactly as shown, like an excerpt
        assert shown[d.start : d.start + len(d.text)] == d.text
    return c


def derived(c: Capture) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(d.kind, d.text, d.sources) for d in c.derived]


@pytest.mark.parametrize(
    ("command", "shown", "expected"),
    [
        # a pipeline ending in a count: the count, from the file the pipeline's source read
        ("grep -i total data/sales.csv | wc -l", "128\n", [("count", "128\n", ("data/sales.csv",))]),
        ("cat notes.md | wc -w", "4410\n", [("count", "4410\n", ("notes.md",))]),
        # wc and grep -c of files: counts beside paths, from the operands
        (
            "wc -l a.csv b.csv",
            "10 a.csv\n20 b.csv\n30 total\n",
            [("count", "10 a.csv\n20 b.csv\n30 total\n", ("a.csv", "b.csv"))],
        ),
        ("grep -c Berlin offices.csv", "7\n", [("count", "7\n", ("offices.csv",))]),
        # sizes: du, ls -l (a plain ls shows no value)
        ("du -sh data", "4.0K\tdata\n", [("size", "4.0K\tdata\n", ("data",))]),
        (
            "ls -l data",
            "total 8\n-rw-r--r-- 1 u u 1234 Jan  1 10:00 a.csv\n",
            [("size", "total 8\n-rw-r--r-- 1 u u 1234 Jan  1 10:00 a.csv\n", ("data",))],
        ),  # fmt: skip
        ("ls data", "a.csv\nb.csv\n", []),
        # a program's result: what it printed that is not its input's content
        (
            "python -c \"import csv; print(sum(float(r['v']) for r in csv.DictReader(open('a.csv'))))\"",
            "48213.5\n",
            [("computed", "48213.5\n", ("a.csv",))],
        ),
        # the command's own echo is no computed value: only the program's line is
        (
            "echo '== chars'; python3 -c \"print(len(open('a.txt').read()))\"",
            "== chars\n4410\n",
            [("computed", "4410\n", ("a.txt",))],
        ),
        # file content is a read, not derived
        ("cat a.csv", "x,y\n1,2\n", []),
        ("python -c \"print(open('a.txt').read())\"", "hello world\n", []),
    ],
)
def test_derived_kinds_and_sources(command: str, shown: str, expected: list) -> None:
    assert derived(cap(command, shown)) == expected


def test_a_program_that_prints_a_header_and_a_sum_gives_the_sum_only() -> None:
    # the header names the file; "total 48213.5" is what the program computed (no line of a.csv)
    code = "import csv; rows=list(csv.reader(open('a.csv'))); print('FILE: a.csv'); print('total', 48213.5)"
    c = cap(f'python3 -c "{code}"', "FILE: a.csv\ntotal 48213.5\n")
    computed = [(d.kind, d.text) for d in c.derived]
    assert computed == [("computed", "total 48213.5\n")]  # the header holds no digit: no value
    assert "a.csv" in c.derived[0].sources


def test_a_program_that_prints_its_input_gives_a_read_and_no_derived_entry() -> None:
    # the whole output is a.csv's text as the program printed it: a read; nothing is left to be derived
    c = cap("python3 -c \"print(open('a.csv').read())\"", "x,y\n1,2\n")
    assert [(r.path, r.excerpt) for r in c.reads] == [("a.csv", "x,y\n1,2\n")] and c.derived == ()


def test_derived_is_left_out_of_capture_equality() -> None:
    # a count reads, lists and writes nothing: equal to the empty capture, with its derived value beside
    c = cap("grep x a.csv | wc -l", "3\n")
    assert c == Capture() and derived(c) == [("count", "3\n", ("a.csv",))]


# ---------------------------------------------------------------------------------------------------------
# The tab


def count_capture() -> Capture:
    return Capture(derived=(CapturedDerived("count", "128\n", 0, ("data/sales.csv",)),))


def test_off_by_default_the_tab_keeps_no_derived_entry() -> None:
    tab = Tab("How many sales rows mention a total?")
    tab.record(0, "grep -i total data/sales.csv | wc -l", count_capture())
    assert list(tab.read_log) == []
    assert TabConfig().derived is False and TabConfig().name == "full"


def test_on_a_derived_entry_is_reviewed_cited_and_shown_but_is_no_file_read() -> None:
    config = TabConfig(derived=True)
    assert config.name == "full+derived"
    tab = Tab("Count the sales rows that mention a total", config)
    tab.record(0, "ls data", Capture(listed=("data/sales.csv",)))
    tab.record(1, "grep -i total data/sales.csv | wc -l", count_capture())
    (entry,) = tab.read_log
    assert (entry.id, entry.kind, entry.path, entry.sources, entry.excerpt) == (
        "L1", "count", "data/sales.csv", ("data/sales.csv",), "128\n"
    )  # fmt: skip
    # no file was read: the status line counts 0 files, and data/sales.csv stays a candidate
    assert tab.status_line().endswith("1 read-log entry from 0 files · 1 candidate")
    tab.add("Number of sales rows with a total")  # terms [number, sales, rows, total]
    # the entry's terms are its sources' and its text's: [data, sales, 128]; shares "sales"
    assert tab.evidence("R1", "L1") == {"sales"}
    text = tab.review().render()
    assert "  L1 count of data/sales.csv (step 1) — 128" in text
    assert tab.show("L1").text.startswith("L1 · step 1 · count of data/sales.csv\ncommand: grep -i total")
    reply = tab.resolve("R1", "done", cite="L1")
    assert reply.ok and reply.text == "R1 done, citing L1 (data/sales.csv)."
    row = tab.to_dict()["read_log"][0]
    assert row["kind"] == "count" and row["sources"] == ["data/sales.csv"]


def test_a_derived_entry_beside_a_file_entry_keeps_ids_in_capture_order() -> None:
    tab = Tab("Report the total", TabConfig(derived=True))
    both = Capture(
        reads=(CapturedRead("a.csv", "x\n1\n", 0),),
        derived=(CapturedDerived("computed", "sum 1\n", 5, ("a.csv",)),),
    )
    tab.record(0, "python3 s.py", both)
    assert [(e.id, e.kind) for e in tab.read_log] == [("L1", "file"), ("L2", "computed")]
    assert tab.status_line().endswith("2 read-log entries from 1 file · 0 candidates")


# ---------------------------------------------------------------------------------------------------------
# The real runs: how many of the shown-but-missing values each derived kind would hold


def _derived_frame(path: Path):
    from rtlab.analysis import derived_frame, derived_rows
    from rtlab.runner import ReplayOptions, replay_paths

    rows: list[dict] = []
    options = ReplayOptions(config=TabConfig(derived=True))
    for got, failures in replay_paths([path], options, each=derived_rows):
        assert not failures
        for r in got:
            rows += r
    return derived_frame(rows)


def test_real_workspace_bench_runs_derived_kinds(real: Path) -> None:
    from rtlab.analysis import derived_summary, value_summary

    frame = _derived_frame(real / "workspace-bench" / "codex-gpt-5.4-runs")
    # held counts file entries only, so the paper's figures are those of the default tab (test_values_real:
    # 9 shown-but-missing values, all 9 held): the gap derived entries could close is empty on these runs
    assert value_summary(frame)["shown_missing"] == 9 and value_summary(frame)["shown_missing_held"] == 9
    assert derived_summary(frame) == {
        "shown_missing": 9, "gap": 0, "count": 0, "size": 0, "computed": 0, "any": 0,
        "failed_shown_missing": 9, "failed_gap": 0, "failed_count": 0, "failed_size": 0, "failed_computed": 0,
        "failed_any": 0,
    }  # fmt: skip
    # what they would hold beyond the gap: of the 16 shown values no file entry holds (26 shown - 10 held;
    # delivered ones included), a program's printed result holds all 16 and an ls -l / du size 3
    not_held = frame["shown"] & ~frame["held"]
    assert int(not_held.sum()) == 16
    assert [int((not_held & frame[f"held_{k}"]).sum()) for k in ("count", "size", "computed")] == [0, 3, 16]


def test_real_officeqa_traces_derived_kinds(real: Path) -> None:
    from rtlab.analysis import derived_summary

    frame = _derived_frame(real / "officeqa" / "g2b-gpt-5.4-traces")
    s = derived_summary(frame)
    # 4 answer values shown and not delivered, 3 held by the read log; the fourth is a value the agent's
    # Python printed (a computed entry holds it): 1 of 1 in the gap
    assert (s["shown_missing"], s["gap"], s["computed"], s["any"], s["count"], s["size"]) == (
        4,
        1,
        1,
        1,
        0,
        0,
    )
    assert (s["failed_shown_missing"], s["failed_gap"], s["failed_computed"]) == (4, 1, 1)


def test_the_command_line_switches_derived_entries_on() -> None:
    from rtlab.cli import build_parser
    from rtlab.cli._replay import _replay_options

    parser = build_parser()
    off = _replay_options(parser.parse_args(["replay", "x.jsonl"]))
    on = _replay_options(parser.parse_args(["replay", "x.jsonl", "--derived", "--ablation", "no-review"]))
    assert off.config == TabConfig()
    assert on.config == TabConfig(review=False, derived=True) and on.config.name == "no-review+derived"


def test_a_replay_with_derived_entries_keeps_their_kind_in_its_tables() -> None:
    from rtlab.environment import read_log_frame, replay, replay_summary
    from rtlab.records import Trajectory

    steps = [
        typed(Step(index=0, tool="shell", command="cat a.csv", output="x\n1\n", shown="x\n1\n")),
        typed(Step(index=1, tool="shell", command="grep 1 a.csv | wc -l", output="1\n", shown="1\n")),
    ]
    t = Trajectory(id="t", format="test", source_path="t.jsonl", steps=steps)
    on, off = replay(t, config=TabConfig(derived=True)), replay(t)
    assert [(e.kind, e.path) for e in off.tab.read_log] == [("file", "a.csv")]
    assert [(e.kind, e.path) for e in on.tab.read_log] == [("file", "a.csv"), ("count", "a.csv")]
    assert list(read_log_frame([on])["kind"]) == ["file", "count"]
    rows = replay_summary(on)["read_log"]
    assert "kind" not in rows[0] and (rows[1]["kind"], rows[1]["sources"]) == ("count", ["a.csv"])
