"""Capture on the real trajectories: three Workspace-Bench runs checked step by step (no workspace: the
command and the output's structure decide) and the OfficeQA traces (content matching against the bulletins).

Every pinned value was checked by hand against the step's command and shown text; where the raw log allows,
the test also recomputes it independently from the raw files with a few lines of json.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

import pytest

from rtlab import ingest
from rtlab.environment import Capture, Workspace, capture_step
from rtlab.records import Trajectory

F4 = "desktop/2-financial-analysis-tables/4-financial-table-income-expense-dashboard.xlsx"
F5 = "desktop/2-financial-analysis-tables/5-financial-table-income-expense-profit-statement_visual-charts_.xlsx"
F6 = "desktop/2-financial-analysis-tables/6-financial-table-income-and-expense-data-visual-charts.xlsx"
OUT15 = "model_output/financial-table-key-expense-analysis-concise-version.xlsx"
DEV = "desktop/product/product/development-task/"
D1, D2, D3 = (
    DEV + "development-task-list.xlsx",
    DEV + "development-task-2.xlsx",
    DEV + "development-task-3.xlsx",
)
HTML = "model_output/project-management/DevTask_Dashboard.html"
EVAL = "Desktop/Product_Evaluation/data/evaluation_{}.txt"
REPORT95 = "model_output/system_version_iteration_history_and_followup_report.md"

# step -> (read paths in order, number listed, written)
EXPECTED: dict[str, dict[int, tuple[list[str], int, list[str]]]] = {
    "15_plain": {
        0: ([], 200, []),  # pwd && ls -la (folders only) && find -type f | head -200
        1: ([F4, F4, F5, F6], 0, []),  # openpyxl dump; Codex cut inside F4's rows: head and tail of F4
        2: ([F4, F5, F6], 0, []),
        3: ([F4, F5, F6], 0, []),
        4: ([F5], 0, []),  # one workbook, rows printed
        5: ([F4], 0, []),
        6: ([], 0, [OUT15]),  # reads three workbooks but prints only computed top-5 sums: nothing read
        7: ([], 1, []),  # ls -l of its own deliverable
    },
    "44_plain": {
        0: ([], 0, []),  # pwd && ls -la: all 28 entries are folders
        1: ([], 0, []),  # find with no output
        2: ([], 3, []),  # os.walk printing paths
        3: ([D1, D2, D3], 0, []),  # pandas head(3) per file under 'FILE path' headers
        4: ([], 0, [HTML]),  # builds the dashboard; prints its path and a row count
        5: ([HTML], 0, []),  # prints the first 300 characters of the dashboard it wrote
    },
    "95_plain": {
        0: ([], 0, []),  # sed: can't read description_12.txt
        1: ([], 0, []),
        2: ([], 0, []),
        3: ([], 0, []),
        4: ([], 0, []),  # find with no output
        5: ([], 41, []),
        6: ([], 300, []),
        7: ([], 2, []),
        8: ([EVAL.format(9)], 0, []),
        9: ([EVAL.format(12)], 0, []),
        10: ([EVAL.format(22)], 0, []),
        11: ([EVAL.format(15)], 0, []),
        12: ([], 0, [REPORT95]),  # cat > report <<EOF; wc -c report
        13: ([], 1, []),  # ls -l of the report
    },
}
READ_LOG = {
    "15_plain": {F4, F5, F6},
    "44_plain": {D1, D2, D3, HTML},
    "95_plain": {EVAL.format(n) for n in (9, 12, 22, 15)},
}


def trimmed(text: str) -> str:
    """What capture keeps of a whole output: blank lines at both ends dropped, the last line's newline kept."""
    while text.startswith("\n"):
        text = text[1:]
    kept = text.rstrip()
    return kept + ("\n" if kept and "\n" in text[len(kept) :] else "")


def _codex_outputs(run: Path) -> list[str]:
    """``aggregated_output`` of each completed ``command_execution`` item, in log order (independent of rtlab)."""
    out = []
    for line in (run / "output" / "raw" / "codex_stdout.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line) if line.strip() else {}
        item = event.get("item") or {}
        if event.get("type") == "item.completed" and item.get("type") == "command_execution":
            out.append(item["aggregated_output"])
    return out


def _captures(t: Trajectory, **kw) -> list[Capture]:
    return [capture_step(s, cwd=t.cwd, root=t.cwd, **kw) for s in t.steps]


@pytest.fixture(scope="module")
def wb(real: Path) -> dict[str, tuple[Trajectory, list[Capture], list[str]]]:
    runs = real / "workspace-bench" / "codex-gpt-5.4-runs"
    out = {}
    for name in EXPECTED:
        [t] = ingest([runs / name]).trajectories
        out[name] = (t, _captures(t), _codex_outputs(runs / name))
    return out


@pytest.mark.parametrize("run", sorted(EXPECTED))
def test_workspace_bench_runs_step_by_step(run: str, wb) -> None:
    t, caps, raw = wb[run]
    assert t.n_steps == len(raw) == len(EXPECTED[run])
    for step, c in zip(t.steps, caps, strict=True):
        reads, n_listed, written = EXPECTED[run][step.index]
        assert [r.path for r in c.reads] == reads, step.index
        assert len(c.listed) == n_listed, step.index
        assert list(c.written) == written, step.index
        for r in c.reads:
            assert step.shown[r.start : r.start + len(r.excerpt)] == r.excerpt
            assert "tokens truncated" not in r.excerpt and not r.excerpt.startswith("Total output lines")
    assert {r.path for c in caps for r in c.reads} == READ_LOG[run]


def test_15_plain_against_the_raw_log(wb) -> None:
    t, caps, raw = wb["15_plain"]
    found = [ln for ln in raw[0].splitlines()[1:] if not re.match(r"^(total \d+|[-dl][-rwxsStT]{9} )", ln)]
    assert list(caps[0].listed) == found  # the find part of pwd && ls -la && find
    for i in (4, 5):  # whole outputs of single-workbook dumps, shown unclipped
        assert caps[i].reads[0].excerpt == trimmed(raw[i])
    head, tail = caps[1].reads[0].excerpt, caps[1].reads[1].excerpt
    assert t.steps[1].clipped and len(raw[1]) == 1024 * 1024 and len(t.steps[1].shown) == 40048
    assert raw[1].find(head) == raw[1].index("SHEETS:")  # the head excerpt is the output's own text
    assert tail in raw[1] and raw[1].find(tail) > len(raw[1]) // 2
    assert caps[1].reads[2].excerpt in raw[1] and caps[1].reads[3].excerpt in raw[1]


def test_44_plain_against_the_raw_log(wb) -> None:
    _, caps, raw = wb["44_plain"]
    assert list(caps[2].listed) == [ln.removeprefix("./") for ln in raw[2].splitlines()]
    parts = re.split(r"^FILE \./(.*)\n", raw[3], flags=re.M)[1:]
    assert [(r.path, r.excerpt) for r in caps[3].reads] == [
        (path, trimmed(body)) for path, body in zip(parts[::2], parts[1::2], strict=True)
    ]
    assert caps[5].reads[0].excerpt == trimmed(raw[5])


def test_95_plain_against_the_raw_log(wb) -> None:
    _, caps, raw = wb["95_plain"]
    for i in (5, 6, 7):
        assert list(caps[i].listed) == raw[i].splitlines()
    for i in (8, 9, 10, 11):
        assert caps[i].reads[0].excerpt == trimmed(raw[i])
    for i in range(4):
        assert "No such file or directory" in raw[i]


# ---------------------------------------------------------------------------------------------------------
# OfficeQA: content matching against the bulletins


@pytest.fixture(scope="module")
def bulletins(real: Path) -> Workspace:
    """One workspace over all 40 bulletins (each run saw only its question's few); rebased per run."""
    return Workspace(real / "officeqa" / "treasury_bulletins_transformed_subset")


@pytest.fixture(scope="module")
def officeqa(real: Path, bulletins: Workspace):
    traces = real / "officeqa" / "g2b-gpt-5.4-traces"
    sources = {
        e["id"]: set(e["source_files"])
        for e in json.loads((traces / "g2b_officeqa_pro_dataset.json").read_text())
    }
    out = {}
    for t in ingest([traces]).trajectories:
        agent_root = posixpath.join(t.cwd, t.meta["sources_dir"])
        ws = bulletins.rebased(agent_root)
        out[t.id.removeprefix("g2b:")] = (
            t,
            [capture_step(s, cwd=t.cwd, workspace=ws) for s in t.steps],
            sources[t.task_id],
        )
    return out


def _text(real: Path, name: str) -> str:
    return (real / "officeqa" / "treasury_bulletins_transformed_subset" / name).read_text(encoding="utf-8")


def _bulletin_reads(c: Capture) -> list[tuple[str, int]]:
    return [(r.path, len(r.excerpt)) for r in c.reads if r.path.startswith("treasury_bulletin_")]


def test_officeqa_read_log_holds_only_the_questions_bulletins(officeqa) -> None:
    """The workspace holds all 40 bulletins; every run's read log names only its question's source files."""
    assert len(officeqa) == 32
    for name, (t, caps, sources) in officeqa.items():
        log = {path for c in caps for path, _ in _bulletin_reads(c)}
        assert log and log <= sources, name
        for step, c in zip(t.steps, caps, strict=True):
            for r in c.reads:
                assert step.shown[r.start : r.start + len(r.excerpt)] == r.excerpt


def test_officeqa_python_slices_are_captured_to_the_character(real: Path, officeqa) -> None:
    t, caps, _ = officeqa["eval_results__seed__oqa-40"]
    text = _text(real, "treasury_bulletin_1982_03.txt")
    # step 4: print(text[start:end]) between two markers; step 5: text[start:start+9000]; step 6: 6000 chars
    start = text.index("Table FFO-5. - Budget Outlays by Function")
    assert (
        caps[4].reads[0].excerpt.rstrip()
        == text[start : text.index("Footnotes at end of table.", start)].rstrip()
    )
    start = text.index("Table FFO-5. - Budget Outlays by Function -Continued")
    assert caps[5].reads[0].excerpt.rstrip() == text[start : start + 9000].rstrip()
    start = text.index("| Interest |")
    assert caps[6].reads[0].excerpt.rstrip() == text[start : start + 6000].rstrip()
    assert [_bulletin_reads(c) for c in caps] == [
        [], [], [("treasury_bulletin_1982_03.txt", 3101)], [("treasury_bulletin_1982_03.txt", 10585)],
        [("treasury_bulletin_1982_03.txt", 5591)], [("treasury_bulletin_1982_03.txt", 9000)],
        [("treasury_bulletin_1982_03.txt", 5999)], [("treasury_bulletin_1982_03.txt", 2710)], [], [],
    ]  # fmt: skip
    assert caps[9].written == ("/Users/unique/auto_research/Project/G2B-Skill/" + t.steps[9].command[6:],)


def test_officeqa_oqa126_step_by_step(real: Path, officeqa) -> None:
    t, caps, _ = officeqa["v2_branch3__oqa-126_s0"]
    b = "treasury_bulletin_2007_09.txt"
    text = _text(real, b)
    assert [_bulletin_reads(c) for c in caps] == [
        [], [], [],  # skill, skill reference (outside the workspace), `python` not found
        [(b, 5009)], [(b, 16780)],  # keyword contexts, several slices in one excerpt
        [(b, 12000)],  # text[idx:idx+12000]
        [(b, 25060)],  # grep -n on the one file: numbered lines
        [(b, 9941)], [(b, 3390)],  # sed -n ranges
        [], [],  # arithmetic on typed-in values; cat > output.txt
    ]  # fmt: skip
    idx = text.find("Estimated Ownership of U.S. Treasury Securities")
    assert caps[5].reads[0].excerpt == text[idx : idx + 12000]
    sed = t.steps[7].shown
    assert caps[7].reads[0].excerpt == trimmed(sed[sed.index("stdout:\n") + 8 : sed.rindex("\nexit_code")])
    assert caps[7].reads[0].excerpt in text and caps[8].reads[0].excerpt in text
    assert [r.path for r in caps[1].reads] == [t.steps[1].command[5:]]  # the reference, by absolute path
    assert caps[10].written == (
        "/Users/unique/auto_research/Project/G2B-Skill/analysis/c_topo_ablation/v2_branch3/oqa-126_s0/evolve_oqa-126/output.txt",
    )


def test_officeqa_only_content_matching_attributes_a_folder_walk(real: Path, officeqa) -> None:
    """oqa-58: scripts walk ``sources/`` and print slices; the names come from the folder, not the code."""
    t, caps, _ = officeqa["v2_branch2__oqa-58_s0"]
    years = ("1996", "2001", "2006", "2011")
    assert "iterdir()" in t.steps[4].command and "txt[s:e]" in t.steps[4].command
    assert _bulletin_reads(caps[3]) == []  # prints only the offsets where keywords were found
    assert _bulletin_reads(caps[4]) == [(f"treasury_bulletin_{y}_09.txt", 3300) for y in years]  # 800 + 2500
    for r in caps[4].reads:
        assert r.excerpt in _text(real, r.path)
    assert _bulletin_reads(caps[5]) == [("treasury_bulletin_2011_09.txt", 12000)]
    assert _bulletin_reads(caps[6]) == [
        ("treasury_bulletin_1996_09.txt", 8000),
        ("treasury_bulletin_2001_09.txt", 8000),
    ]
    assert _bulletin_reads(caps[10]) == [
        ("treasury_bulletin_2006_09.txt", 750),
        ("treasury_bulletin_2011_09.txt", 863),
    ]
    assert [bool(_bulletin_reads(c)) for c in caps] == [False] * 4 + [True] * 3 + [False] * 3 + [True] + [
        False
    ] * 2


def test_without_the_workspace_the_structure_still_names_the_bulletins(real: Path) -> None:
    [t] = ingest([real / "officeqa" / "g2b-gpt-5.4-traces" / "v2_branch3__oqa-126_s0"]).trajectories
    root = posixpath.join(t.cwd, t.meta["sources_dir"])
    caps = [capture_step(s, cwd=t.cwd, root=root) for s in t.steps]
    assert [len(c.reads) for c in caps] == [0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0]
    assert {r.path for c in caps[3:9] for r in c.reads} == {"treasury_bulletin_2007_09.txt"}


# ---------------------------------------------------------------------------------------------------------
# the whole corpus


def test_capture_never_fails_on_any_real_step(real_pinned: list[Path]) -> None:
    result = ingest(real_pinned)
    assert len(result.trajectories) == 56 and not result.failures
    steps = 0
    for t in result.trajectories:
        for s in t.steps:
            c = capture_step(s, cwd=t.cwd, root=t.cwd)
            steps += 1
            keys = {r.path for r in c.reads}
            assert not keys & set(c.listed) and not set(c.written) & set(c.listed)
            for r in c.reads:
                assert s.shown is not None and s.shown[r.start : r.start + len(r.excerpt)] == r.excerpt
                assert r.excerpt.strip() and not r.excerpt.startswith("\n") and not r.excerpt.endswith("\n\n")
                if s.clipped:
                    assert "tokens truncated…" not in r.excerpt and "Total output lines:" not in r.excerpt
            if not s.answered:
                assert c == Capture()
    assert steps == sum(len(t.steps) for t in result.trajectories) == 945
