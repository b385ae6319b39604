"""Codebook 2.1's check of the judge's evidence against the trajectory (R15a): a judge that says the task's
source files were not found or not read, of a run whose read log shows them opened, rests its verdict on a
claim the trajectory contradicts; and file names in Chinese prose, which glues them to the word before."""

from __future__ import annotations

from rtlab.analysis import diagnose
from rtlab.environment import replay
from rtlab.records import (
    Action,
    Deliverable,
    DeliverableFile,
    ItemResult,
    Judgement,
    RubricItem,
    Step,
    Task,
    Trajectory,
)
from rtlab.text import file_mentions

NOTES = (
    "Release Notes Document\nVersion: V5.15\nRelease Date: 2024-07-15\nRelease Owner: Product Manager 3\n" * 3
)
ITEM = "Does the iteration report fully cover the feature fixes of each version?"


def run(judge: str, *, open_notes: bool = True) -> Trajectory:
    calls = [("ls history", "35ccb5991494324f_notes_3.txt\nb4418640fb00a12f_evaluation_3.txt\n")]
    if open_notes:
        calls.append(("cat history/35ccb5991494324f_notes_3.txt", NOTES))
    calls.append(
        (
            "cat history/b4418640fb00a12f_evaluation_3.txt",
            "Evaluation of product PLM-0012: user count 1200\n" * 3,
        )
    )
    steps = [
        Step(i, "shell", cmd, output=out, shown=out, seq=i, action=Action.shell(cmd))
        for i, (cmd, out) in enumerate(calls)
    ]
    task = Task(
        id="t95",
        benchmark="workspace-bench",
        instruction="Write the full-lifecycle iteration report from the release notes.",
        rubric=[RubricItem(index=0, text=ITEM, type="Outcome Evaluation")],
        expected_outputs=["iteration_report.doc"],
        source_files=["35ccb5991494324f_notes_3.txt"],
    )
    return Trajectory(
        id="fx:t95",
        format="codex",
        source_path="/nowhere",
        cwd="/ws",
        steps=steps,
        deliverable=Deliverable(
            final_message=None,
            files=[DeliverableFile("report.md", content="# Report\n\nPLM-0012 has 1200 users.\n")],
        ),
        task=task,
        judgement=Judgement(items=[ItemResult(index=0, passed=False, evidence=judge)]),
    )


def label(t: Trajectory):
    (lab,) = diagnose(t, replay(t))
    return lab


def test_a_judge_saying_the_sources_were_not_found_is_checked_against_the_read_log() -> None:
    # the judge (in Chinese): "no tool call found the source file notes_3.txt the task depends on"
    lab = label(
        run("工作区内未生成目标输出文件，且所有文件检索工具调用均未找到任务依赖的源文件notes_3.txt、无法校验")
    )
    assert (lab.rule, lab.category, lab.subreason) == ("R15a", "other", "judge_error")
    assert "35ccb5991494324f_notes_3.txt opened at step 1" in lab.rationale
    lab = label(
        run("The source file notes_3.txt could not be found in the workspace, so nothing can be verified.")
    )
    assert lab.rule == "R15a"


def test_no_contradiction_no_judge_error() -> None:
    # the run never opened the notes: the judge's claim holds, and the item is a discovery failure
    lab = label(run("均未找到任务依赖的源文件notes_3.txt", open_notes=False))
    assert lab.category == "discovery"
    # the judge says the *output* was not found (true: the run wrote report.md), naming no source file
    lab = label(run("The file iteration_report.doc was not found."))
    assert (lab.rule, lab.subreason) == ("R16", "undetermined")
    # a judge that names the source without saying it was not found makes no claim to check
    lab = label(run("The report ignores notes_3.txt and uses the evaluation files instead."))
    assert lab.rule != "R15a" and "contradicted" not in lab.rationale


def test_file_names_in_chinese_prose() -> None:
    text = "且所有文件检索工具调用均未找到四个源文件description_9.txt、description_12.txt，见[报告.docx]。"
    assert file_mentions(text)[-2:] == ["description_12.txt", "报告.docx"]
    assert file_mentions("文件a.csv；b.xlsx：c.md") == ["文件a.csv", "b.xlsx", "c.md"]
