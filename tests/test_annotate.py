"""Annotators: rule-based, LLM (real openai client against the simulated server) and human import."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from rtlab.analysis import CODEBOOK_VERSION, load_codebook
from rtlab.annotation import (
    FAILED,
    LABEL_COLUMNS,
    OPTIONAL_LABEL_COLUMNS,
    REFUSED,
    UNPARSABLE,
    annotate,
    annotate_llm,
    annotator_grid,
    build_messages,
    first_requests,
    item_contexts,
    parse_answer,
    read_human_labels,
    rule_labels,
    sample_at_most,
    user_prompt,
)
from rtlab.environment import replay
from rtlab.errors import ReaderError
from rtlab.llm import SIMULATED_MODEL, SIMULATED_TAG, LLMClient, http_error, refuse, reply, usage_summary
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

SALES = "region,revenue\nNorth,1234.5\nSouth,3200\nTotal revenue 4434.5 in 2024\n"
REPORT = "# Revenue\n\nNorth 1234.5 and South 3200.\nSouth declined.\n"
ITEMS = [  # (rubric text, judge evidence)
    ("Does the report state the total revenue of 4434.5 from sales_2024.csv?", "No total in the report."),
    ("Does the report give the budget_plan.xlsx total of 9870?", "The budget total is not found."),
    ("Is the North revenue 1234.5 in sales_2024.csv?", "The report gives 1243.5, which does not match."),
]


def make_run(run_id: str = "fx:1") -> Trajectory:
    calls = [
        ("ls data", "sales_2024.csv\nbudget_plan.xlsx\n"),
        ("cat data/sales_2024.csv", SALES),
        ("python make_report.py", "wrote report.md\n"),
    ]
    steps = [
        Step(i, "shell", c, output=o, shown=o, seq=i, action=Action.shell(c))
        for i, (c, o) in enumerate(calls)
    ]
    task = Task(
        id="fx",
        benchmark="workspace-bench",
        instruction="Summarise revenue from sales_2024.csv and budget_plan.xlsx into report.md.",
        rubric=[RubricItem(index=i, text=t, type="Outcome Evaluation") for i, (t, _) in enumerate(ITEMS)],
        expected_outputs=["report.md"],
        source_files=["sales_2024.csv", "budget_plan.xlsx"],
    )
    judgement = Judgement(
        items=[ItemResult(index=i, passed=False, evidence=e) for i, (_, e) in enumerate(ITEMS)]
    )
    return Trajectory(
        id=run_id,
        format="codex",
        source_path="/nowhere",
        cwd="/ws",
        steps=steps,
        deliverable=Deliverable(files=[DeliverableFile(path="report.md", content=REPORT, size=len(REPORT))]),
        task=task,
        judgement=judgement,
    )


@pytest.fixture(scope="module")
def run():
    t = make_run()
    return t, replay(t)


@pytest.fixture(scope="module")
def contexts(run):
    t, r = run
    return item_contexts([t], [r])


def client_for(srv, tmp_path) -> LLMClient:
    # timeout: a safety net only (a call that timed out would be retried and counted twice in n_requests)
    return LLMClient(base_url=srv.base_url, api_key="x", timeout=30, backoff=0.01, cache_dir=tmp_path / "c")


# ---------------------------------------------------------------------------------------------------------
# Rule-based


def test_rule_labels_wrap_diagnose(run):
    t, r = run
    frame = rule_labels([t], [r])
    # the rules' labels carry the diagnosis' rule and task id (and its confidence, where it gives one) after
    # the long form's own columns, in OPTIONAL_LABEL_COLUMNS' order
    extra = list(frame.columns)[len(LABEL_COLUMNS) :]
    assert list(frame.columns)[: len(LABEL_COLUMNS)] == LABEL_COLUMNS
    assert extra == [c for c in OPTIONAL_LABEL_COLUMNS if c in extra] and {"rule", "task_id"} <= set(extra)
    assert all(isinstance(x, str) and x.startswith("R") for x in frame["rule"])
    assert set(frame["task_id"]) == {t.task_id}
    assert list(frame["item"]) == ["fx:1#0", "fx:1#1", "fx:1#2"]
    assert list(frame["label"]) == ["shown_but_missing", "discovery", "dropped_or_distorted"]
    assert set(frame["annotator"]) == {"rules"} and set(frame["codebook_version"]) == {CODEBOOK_VERSION}
    assert json.loads(frame.loc[0, "evidence"])[0]["path"] == "data/sales_2024.csv"


# ---------------------------------------------------------------------------------------------------------
# Prompts


def test_contexts_carry_the_evidence(contexts):
    assert [c.item for c in contexts] == ["fx:1#0", "fx:1#1", "fx:1#2"]
    c = contexts[1]
    assert "budget_plan.xlsx" in c.candidates and "budget_plan.xlsx" not in c.read_log
    assert "Total revenue 4434.5" in c.read_log and c.judge_evidence == "The budget total is not found."
    assert "### report.md" in c.deliverable and "North 1234.5" in c.deliverable


def test_prompt_sections_and_codebook(contexts):
    system, user = build_messages(contexts[0])
    assert CODEBOOK_VERSION in system["content"] and "R9" in system["content"]  # p1: rules included
    assert "R9" not in build_messages(contexts[0], prompt="p2")[0]["content"]
    for heading in (
        "## Item",
        "## Task",
        "## Judge evidence",
        "## Deliverable",
        "## Read log",
        "## Candidates",
    ):
        assert heading in user["content"]
    assert "Nothing was truncated" in user["content"]
    with pytest.raises(ValueError, match="p9"):
        build_messages(contexts[0], prompt="p9")


def test_budget_truncates_the_biggest_part_first(contexts):
    import dataclasses

    big = dataclasses.replace(contexts[0], read_log="x" * 20_000, deliverable="y" * 3_000)
    text = user_prompt(big, budget=6_000)
    assert len(text) <= 6_000
    assert "read log (20000 ->" in text and "deliverable (3000 ->" in text
    assert "task (" not in text and contexts[0].task in text  # small parts kept whole
    assert "[… truncated:" in text


# ---------------------------------------------------------------------------------------------------------
# Answers


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "empty"),
        ("{oops", "not valid JSON"),
        ("[1]", "JSON object"),
        ('{"category": "lost", "rationale": "r"}', "category must be one of"),
        ('{"category": "other", "subreason": null, "rationale": "r"}', "subreason must be one of"),
        ('{"category": "discovery", "subreason": "judge_error", "rationale": "r"}', "must be null"),
        ('{"category": "discovery", "subreason": null, "rationale": ""}', "rationale"),
    ],
)
def test_invalid_answers_name_the_problem(text, error):
    answer, why = parse_answer(text)
    assert answer is None and error in why


def test_valid_answer_in_a_code_fence():
    answer, why = parse_answer(
        '```json\n{"category": "other", "subreason": "judge_error", "rationale": "r"}\n```'
    )
    assert why is None and (answer.category, answer.subreason) == ("other", "judge_error")


# ---------------------------------------------------------------------------------------------------------
# LLM annotators against the simulated server


def test_simulated_annotation_end_to_end_and_rerun_is_free(srv, tmp_path, contexts):
    annotators = annotator_grid([SIMULATED_MODEL], ["p1", "p2"], samples=2)
    assert [a.name for a in annotators][:2] == ["llm:rtlab-simulated:p1:s0", "llm:rtlab-simulated:p1:s1"]
    result = annotate_llm(contexts, annotators, client_for(srv, tmp_path), max_workers=4)
    labels = result.labels
    assert list(labels.columns) == LABEL_COLUMNS and len(labels) == 12 and srv.n_requests == 12
    first = labels[labels["annotator"] == "llm:rtlab-simulated:p1:s0"]
    assert list(first["label"]) == ["shown_but_missing", "discovery", "dropped_or_distorted"]
    assert all(r.startswith(SIMULATED_TAG) for r in labels["rationale"])
    assert srv.requests[0]["response_format"] == {"type": "json_object"}
    assert {b["seed"] for b in srv.requests} == {0, 1} and {b["temperature"] for b in srv.requests} == {1.0}
    again = annotate_llm(contexts, annotators, client_for(srv, tmp_path))
    assert srv.n_requests == 12  # everything from the cache
    pd.testing.assert_frame_equal(again.labels, labels)
    assert usage_summary(again.calls)["calls"] == 0 and usage_summary(result.calls)["cost"] == 0.0


def test_malformed_then_valid_after_a_corrective_message(srv, tmp_path, contexts):
    srv.script(reply("Sure! The category is discovery."))
    result = annotate_llm(contexts[:1], annotator_grid([SIMULATED_MODEL]), client_for(srv, tmp_path))
    assert result.labels.loc[0, "label"] == "shown_but_missing"
    assert srv.n_requests == 2
    retry = srv.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Sure! The category is discovery."}
    assert "not valid JSON" in retry[-1]["content"]


def test_unparsable_after_the_retries_is_recorded_raw(srv, tmp_path, contexts):
    bad = '{"category": "missing", "rationale": "x"}'
    srv.script(reply(bad), reply(bad), reply(bad))
    result = annotate_llm(
        contexts[:1], annotator_grid([SIMULATED_MODEL]), client_for(srv, tmp_path), max_fixes=2
    )
    row = result.labels.iloc[0]
    assert row["label"] == UNPARSABLE and row["raw_response"] == bad and row["subreason"] is None
    assert "category must be one of" in row["rationale"]
    assert srv.n_requests == 3


def test_refusals_and_failures_are_labelled_as_such(srv, tmp_path, contexts):
    srv.script(refuse("no"), http_error(500), http_error(500))
    client = LLMClient(base_url=srv.base_url, api_key="x", max_attempts=2, backoff=0.01, cache=False)
    result = annotate_llm(contexts[:2], annotator_grid([SIMULATED_MODEL]), client, max_workers=1)
    assert list(result.labels["label"]) == [REFUSED, FAILED]
    assert result.labels.loc[0, "raw_response"] == "no" and "HTTP 500" in result.labels.loc[1, "raw_response"]


def test_dry_run_counts_first_requests(srv, tmp_path, contexts):
    client = client_for(srv, tmp_path)
    requests = first_requests(contexts, annotator_grid(["gpt-x", SIMULATED_MODEL]))
    plan = client.dry_run(requests)
    assert (plan.n_calls, plan.cost, plan.unpriced) == (6, None, ("gpt-x",))
    assert srv.n_requests == 0


# ---------------------------------------------------------------------------------------------------------
# The pipeline (rtlab annotate, notebook 09): rules, then LLM annotators over the failed items


def test_pipeline_without_a_client_is_the_rules_alone(run):
    t, r = run
    result = annotate([t], [], None)
    assert result.llm is None and result.dry_run is None and result.contexts == []
    pd.testing.assert_frame_equal(result.rules, rule_labels([t], [r]))
    pd.testing.assert_frame_equal(result.labels, rule_labels([t], [r]))
    with pytest.raises(ValueError, match="need a client"):
        annotate([t], annotator_grid([SIMULATED_MODEL]), None)


def test_pipeline_is_the_rules_then_others_then_the_llm_annotators(srv, tmp_path, run, contexts):
    t, r = run
    others = pd.DataFrame({"item": ["fx:1#0"], "annotator": ["truth"], "label": ["discovery"]})
    grid = annotator_grid([SIMULATED_MODEL], ["p1", "p2"])
    result = annotate([t], grid, client_for(srv, tmp_path), others=[others], max_workers=2)
    assert result.contexts == contexts and srv.n_requests == 6
    alone = annotate_llm(contexts, grid, client_for(srv, tmp_path))  # the same answers, from the cache
    assert srv.n_requests == 6
    pd.testing.assert_frame_equal(result.llm.labels, alone.labels)
    expected = pd.concat([rule_labels([t], [r]), others, alone.labels], ignore_index=True)
    pd.testing.assert_frame_equal(result.labels, expected)
    assert list(result.labels["annotator"].unique()) == ["rules", "truth", *(a.name for a in grid)]


def test_pipeline_samples_the_llm_items_and_dry_runs_without_requests(srv, tmp_path, run, contexts):
    t, _ = run
    result = annotate([t], annotator_grid([SIMULATED_MODEL]), client_for(srv, tmp_path), max_items=2, seed=3)
    assert result.contexts == random.Random(3).sample(contexts, 2) == sample_at_most(contexts, 2, seed=3)
    assert len(result.rules) == 3 and set(result.llm.labels["item"]) == {c.item for c in result.contexts}
    srv.reset()
    plan = annotate([t], annotator_grid(["gpt-x", SIMULATED_MODEL]), client_for(srv, tmp_path), dry_run=True)
    assert plan.llm is None and (plan.dry_run.n_requests, plan.dry_run.unpriced) == (6, ("gpt-x",))
    assert srv.n_requests == 0
    assert sample_at_most(contexts, None) == contexts == sample_at_most(contexts, 3)


# ---------------------------------------------------------------------------------------------------------
# Human labels


def write(tmp_path, text: str):
    path = tmp_path / "labels.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_human_csv_import(tmp_path):
    path = write(
        tmp_path,
        "item,annotator,label,subreason,rationale\n"
        "fx:1#0,ann,shown_but_missing,,seen at step 1\n"
        "fx:1#1,ann,other/judge_error,,\n"
        "fx:1#1,bob,other,undetermined,\n",
    )
    frame = read_human_labels(path)
    assert list(frame.columns) == LABEL_COLUMNS
    assert list(frame["label"]) == ["shown_but_missing", "other", "other"]
    assert list(frame["subreason"]) == [None, "judge_error", "undetermined"]
    assert set(frame["codebook_version"]) == {load_codebook().version}
    parquet = tmp_path / "labels.parquet"
    frame.to_parquet(parquet)
    pd.testing.assert_frame_equal(read_human_labels(parquet), frame)


def test_human_import_by_trajectory_and_index(tmp_path):
    path = write(tmp_path, "trajectory,rubric_index,annotator,label\nfx:1,3,ann,discovery\n")
    assert read_human_labels(path).loc[0, "item"] == "fx:1#3"


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ("", 1, None, "empty file"),
        ("item,label\nfx:1#0,discovery\n", 1, "annotator", "missing column"),
        ("annotator,label\nann,discovery\n", 1, "item", "needs an 'item'"),
        (
            "item,annotator,label\nfx:1#0,ann,discovery\nfx:1#1,ann,lost\n",
            3,
            "label",
            "'lost' is not a category",
        ),
        ("item,annotator,label,subreason\nfx:1#0,ann,other,typo\n", 2, "subreason", "'typo'"),
        (
            "item,annotator,label,subreason\nfx:1#0,ann,discovery,judge_error\n",
            2,
            "subreason",
            "only 'other'",
        ),
        ("item,annotator,label\nfx:1#0,ann,discovery\nfx:1#0,ann,other/judge_error\n", 3, "item", "line 2"),
        ("item,annotator,label\nfx:1#0,,discovery\n", 2, "annotator", "empty annotator"),
        ("item,annotator,label\nfx:1#0,ann,discovery,extra\n", 2, None, "expected 3 fields as in the header"),
        ("item,annotator,label,subreason\nfx:1#0,ann,discovery\n", 2, None, "found 3"),
        ("item,annotator,label\nfx:1#0,ann,discovery\n\nfx:1#1,ann,lost\n", 4, "label", "'lost'"),
        (
            'item,annotator,label,rationale\nfx:1#0,ann,discovery,"a\nb"\nfx:1#1,ann,lost,\n',
            4,
            "label",
            "'lost'",
        ),
        ("trajectory,rubric_index,annotator,label\nfx:1,two,ann,discovery\n", 2, "rubric_index", "integer"),
    ],
)
def test_human_import_errors_name_file_line_and_column(tmp_path, text, line, field, message):
    path = write(tmp_path, text)
    with pytest.raises(ReaderError) as info:
        read_human_labels(path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), line, field)
    assert message in err.message


def test_human_parquet_errors_name_the_row(tmp_path):
    path = tmp_path / "labels.parquet"
    pd.DataFrame(
        {"item": ["a#0", "a#1"], "annotator": ["x", "x"], "label": ["discovery", "nope"]}
    ).to_parquet(path)
    with pytest.raises(ReaderError, match=r"labels.parquet:2 \[label\]: label 'nope'") as info:
        read_human_labels(path)
    assert (info.value.line, info.value.field) == (2, "label")  # the row, as agreement's loader counts it
    twice = tmp_path / "twice.parquet"
    pd.DataFrame(
        {"item": ["a#0", "a#0"], "annotator": ["x", "x"], "label": ["discovery", "other"]}
    ).to_parquet(twice)
    with pytest.raises(ReaderError, match=r"\(first at row 1\)") as info:
        read_human_labels(twice)
    assert info.value.line == 2
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(ReaderError, match="not a readable Parquet file"):
        read_human_labels(tmp_path / "bad.parquet")


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("absent.csv", None),
        ("latin.csv", b"item,annotator,label\nfx:1#0,ann,caf\xe9\n"),
        ("short.csv", b"item,annotator,label\nfx:1#0,ann\n"),
        ("header.csv", b"item,annotator,label,label\nfx:1#0,ann,discovery,x\n"),
        ("empty.csv", b"  \n"),
        ("junk.parquet", b"not parquet"),
    ],
)
def test_human_and_agreement_loaders_fail_alike_on_a_bad_file(tmp_path, name, content):
    from rtlab.annotation import load_labels

    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ReaderError) as human:
        read_human_labels(path)
    with pytest.raises(ReaderError) as agreement:
        load_labels(path)
    assert str(human.value) == str(agreement.value)
