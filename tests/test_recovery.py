"""Masked recovery: masking, prompts per condition, answers and scoring, with the real openai client against
the simulated server (answers known by construction), and a smoke test on the real Workspace-Bench runs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from rtlab.analysis import values_frame
from rtlab.annotation import (
    CONDITIONS,
    FAILED,
    MASK,
    OVER_CONTEXT,
    RECOVERY_COLUMNS,
    REFUSED,
    UNPARSABLE,
    build_prompt,
    first_recovery_requests,
    mask_value,
    parse_value,
    recover,
    recovery_annotators,
    recovery_figures,
    recovery_items,
    recovery_summary,
    score,
)
from rtlab.environment import replay
from rtlab.ingest import ingest
from rtlab.llm import SIMULATED_MODEL, LLMClient, http_error, refuse, reply, usage_summary
from rtlab.records import Action, RubricItem, Step, Task, Trajectory
from rtlab.text import find_numbers

SALES = "region,revenue\nNorth,1234.5\nSouth,3200\nTotal revenue 4434.5 in 2024\n"
BUDGET = "Budget plan\nTotal budget 9870 for the year\n"
NOTES = [
    "vendor count pending; vendor count review\n",
    "vendor count agenda, vendor count\n",
    "vendor count meeting vendor\n",
    "vendor count draft\n",
]
CONTRACTS = (
    "Contract register\n"
    + "".join(f"clause {i}: standard terms apply to every party\n" for i in range(80))
    + "vendor count 317 active\n"
)
POLICY = "Policy\nspending cap 7,500 per quarter\n"
ITEMS = [
    "Does the report state the total revenue of 4434.5 from sales_2024.csv?",  # held in sales
    "Does the report give the budget total of 9,870?",  # held in budget (written 9870 there)
    "Is the North revenue 1234.5 in sales_2024.csv?",  # held in sales
    "Does the report mention the spending cap of 7,500?",  # held in policy, and in the task
    "Does the report give the vendor count of 317?",  # held in contracts only; the review shows notes
    "Is the headcount 4,321 stated?",  # never read: not held, no prompt
    "Is the travel allowance 7,500.00 per year?",  # held (policy's 7,500 matches); words nowhere
]
# What the simulated model answers, per held value and condition (its rule R1, worked by hand):
# no_tab sees only the task, which shares "spending" with item 3; the review shows the entries sharing terms
# with the masked requirement (for item 4 the four short notes files, not contracts.txt); the read log shows all.
EXPECTED = {
    "4434.5": (None, "4434.5", "4434.5"),
    "9,870": (None, "9870", "9870"),
    "1234.5": (None, "1234.5", "1234.5"),
    "7,500": ("7,500", "7,500", "7,500"),
    "317": (None, None, "317"),
    "7,500.00": (None, None, None),
}


def make_run(run_id: str = "fx:rec") -> Trajectory:
    calls = [
        ("ls data", "sales_2024.csv\nbudget_plan.csv\ncontracts.txt\npolicy.txt\n"),
        ("cat data/sales_2024.csv", SALES),
        ("cat data/budget_plan.csv", BUDGET),
        *[(f"cat data/notes_{k}.txt", n) for k, n in enumerate(NOTES)],
        ("cat data/contracts.txt", CONTRACTS),
        ("cat data/policy.txt", POLICY),
    ]
    steps = [
        Step(i, "shell", c, output=o, shown=o, seq=i, action=Action.shell(c))
        for i, (c, o) in enumerate(calls)
    ]
    task = Task(
        id="fx",
        benchmark="workspace-bench",
        instruction="Summarise revenue from sales_2024.csv and the budget into report.md. "
        "The plan caps spending at 7,500.",
        rubric=[RubricItem(index=i, text=t) for i, t in enumerate(ITEMS)],
    )
    return Trajectory(id=run_id, format="codex", source_path="/nowhere", cwd="/ws", steps=steps, task=task)


@pytest.fixture(scope="module")
def items():
    return recovery_items([make_run()], sample="held")  # the run is not judged: every held value


def client_for(srv, tmp_path, **kw) -> LLMClient:
    # timeout: a safety net only (a call that timed out would be retried and counted twice in n_requests)
    return LLMClient(
        base_url=srv.base_url, api_key="x", timeout=30, backoff=0.01, cache_dir=tmp_path / "c", **kw
    )


def user_text(item, condition, **kw) -> str:
    return build_prompt(item, condition, **kw).messages[1]["content"]


# ---------------------------------------------------------------------------------------------------------
# Masking, parsing, scoring


def test_mask_every_writing_of_the_value():
    (value,) = find_numbers("4434.5")
    text = "Total 4434.5 (also written 4,434.5 and $4434.50); not 14434.5 nor 4434.55 nor 4434"
    masked, n = mask_value(text, value)
    assert n == 3
    assert masked == f"Total {MASK} (also written {MASK} and {MASK}); not 14434.5 nor 4434.55 nor 4434"


def test_mask_misplaced_commas_and_percent():
    from rtlab.analysis import expected_values

    (value,) = expected_values("Is the total 1001592,100 yuan?")
    assert mask_value("Is the total 1001592,100 yuan?", value) == (f"Is the total {MASK} yuan?", 1)
    (pct,) = find_numbers("12.3%")
    assert mask_value("growth of 12.3% in 2024", pct) == (f"growth of {MASK} in 2024", 1)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ('{"value": "4,434.5"}', ("4,434.5", None)),
        ('{"value": 4434.5}', ("4434.5", None)),
        ('```json\n{"value": "317"}\n```', ("317", None)),
        ('{"value": null}', (None, None)),
    ],
)
def test_parse_value_valid(text, parsed):
    assert parse_value(text) == parsed


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("the value is 317", "not valid JSON"),
        ('["317"]', '"value" key'),
        ('{"answer": "317"}', '"value" key'),
        ('{"value": true}', "got bool"),
        ('{"value": ["317"]}', "got list"),
    ],
)
def test_parse_value_invalid(text, reason):
    value, error = parse_value(text)
    assert value is None and reason in (error or "")


@pytest.mark.parametrize(
    ("expected", "answer", "exact", "tolerant"),
    [
        ("4434.5", "4434.5", True, True),
        ("4434.5", "$4,434.50", True, True),
        ("4434.5", "4434", False, True),  # written less precisely, rounds to it
        ("4434.5", "4434.6", False, False),
        ("4434.5", "4434.5%", False, True),  # matches reads a plain number as a "%" column's
        ("12.3%", "0.123", False, True),  # the percent as a fraction
        ("12.34%", "12.3%", False, True),
        ("463 million", "463,000,000", True, True),
        ("4434.5", "about 1234.5 or 4434.5", False, False),  # the first number is scored
        ("4434.5", "unknown", False, False),
        ("4434.5", None, False, False),
    ],
)
def test_score(expected, answer, exact, tolerant):
    (e,) = find_numbers(expected)
    assert score(e, answer) == (exact, tolerant)


# ---------------------------------------------------------------------------------------------------------
# The items and the prompts of each condition


def test_items_are_the_held_values(items):
    t = make_run()
    frame = values_frame([t], [replay(t)])
    held = frame[frame["held"]]
    assert [(i.rubric_index, i.value) for i in items] == list(
        zip(held["rubric_index"], held["value"], strict=True)
    )
    assert [i.value for i in items] == list(EXPECTED)
    assert 5 not in {i.rubric_index for i in items}  # 4,321 was never read
    assert [i.in_task for i in items] == [False, False, False, True, False, True]
    assert all(i.n_masked == 1 for i in items)
    assert items[1].requirement == f"Does the report give the budget total of {MASK}?"


def test_the_value_is_masked_in_the_requirement_only(items):
    for item in items:
        for condition in CONDITIONS:
            text = user_text(item, condition)
            requirement = text.split("## Task", 1)[0]
            assert MASK in requirement
            assert not any(n.value == item.expected.value for n in find_numbers(requirement))
    assert "Total revenue 4434.5" in user_text(items[0], "read_log")
    assert "Total revenue 4434.5" in user_text(items[0], "review")


def test_conditions_add_context(items):
    vendor = items[4]
    none, review, log = (user_text(vendor, c) for c in CONDITIONS)
    assert "## Review" not in none and "## Read log" not in none and "## Notes" not in none
    # the review for the masked requirement: the notes files share both terms and are short; contracts.txt
    # (where 317 is) is not among the three shown
    assert [line.split()[0] for line in vendor.review.splitlines() if line.startswith("  L")] == [
        "L4",
        "L3",
        "L5",
    ]
    assert f"R5 Does the report give the vendor count of {MASK}?" in review
    assert "contracts.txt" not in review and "317" not in review
    assert "L4 · step 4 · data/notes_1.txt" in review  # tab_show of each entry shown
    assert "[L7] step 7 data/contracts.txt (cat data/contracts.txt)" in log and "vendor count 317" in log
    # each condition adds to the one before: the review's row is in the read-log prompt too, and every entry
    # the review opens is in the read log whole (given once, in read-log order)
    assert f"R5 Does the report give the vendor count of {MASK}?" in log and "## Review" in log
    assert all(vendor.read_log[k].split("\n", 1)[1] in log for k in vendor.opened)
    assert "## Notes" not in log and "truncated" not in log  # nothing is cut without a budget


def test_review_query_rubric_still_shows_the_masked_text(items):
    # ranked with the unmasked text (the value's token "317" too: contracts.txt is long, so it still ranks
    # below the short notes files here), shown masked
    (vendor,) = [
        i for i in recovery_items([make_run()], review_query="rubric", sample="held") if i.value == "317"
    ]
    assert vendor.review.splitlines()[1] == f"R5 Does the report give the vendor count of {MASK}?"
    assert list(vendor.opened) == ["L4", "L3", "L5"]
    with pytest.raises(ValueError, match="review_query"):
        recovery_items([make_run()], review_query="oracle")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sample"):
        recovery_items([make_run()], sample="all")  # type: ignore[arg-type]


def test_budget_truncates_and_says_so(items):
    vendor = items[4]
    prompt = build_prompt(vendor, "read_log", budget=3000)
    text = prompt.messages[1]["content"]
    assert prompt.truncated and not prompt.context_holds  # contracts.txt cut before its last line
    # 3000 characters now share the review's row too (the read-log condition includes it), so L7 is cut to
    # 1932 where it was cut to 2352 when the condition left the review out
    assert "L7 (3848 -> 1932 characters)" in text and "truncated (biggest first)" in text
    assert build_prompt(vendor, "read_log").context_holds


# ---------------------------------------------------------------------------------------------------------
# Through the LLM client, against the simulated server


def test_recover_end_to_end(srv, items, tmp_path):
    (annotator,) = recovery_annotators([SIMULATED_MODEL])
    client = client_for(srv, tmp_path)
    result = recover(items, [annotator], client, max_workers=4)
    frame = result.frame
    assert list(frame.columns) == RECOVERY_COLUMNS
    assert len(frame) == len(items) * 3 == 18
    assert srv.n_requests == 18
    for k, condition in enumerate(CONDITIONS):
        rows = frame[frame["condition"] == condition]
        assert [None if a is pd.NA else a for a in rows["answer"]] == [EXPECTED[v][k] for v in rows["value"]]
    assert set(frame["annotator"]) == {f"llm:{SIMULATED_MODEL}:r1:s0"}
    assert set(frame["status"]) == {"answered", "no_answer"}
    summary = recovery_summary(frame)
    assert list(summary["condition"]) == list(CONDITIONS)
    assert list(summary["values"]) == [6, 6, 6]
    assert list(summary["recovered_exact"]) == [1, 4, 5]
    assert list(summary["recovered_tolerant"]) == [1, 4, 5]
    assert list(summary["context_holds"]) == [2, 5, 6]  # the task writes 7,500 (and 7,500.00 within rounding)
    figures = recovery_figures(frame)
    assert figures[annotator.name]["read_log"]["share_tolerant"] == pytest.approx(5 / 6)
    json.dumps(figures)

    srv.reset()
    again = recover(items, [annotator], client_for(srv, tmp_path), max_workers=4)
    assert srv.n_requests == 0  # the rerun comes from the cache
    assert again.frame.equals(frame)
    assert usage_summary(again.calls)["calls"] == 0 and usage_summary(again.calls)["cached"] == 18


def test_first_requests_and_dry_run(srv, items, tmp_path):
    annotators = recovery_annotators([SIMULATED_MODEL, "other-model"], samples=2)
    assert [a.name for a in annotators][:2] == [
        f"llm:{SIMULATED_MODEL}:r1:s0",
        f"llm:{SIMULATED_MODEL}:r1:s1",
    ]
    assert {a.temperature for a in annotators} == {1.0}
    requests = first_recovery_requests(items, annotators)
    assert len(requests) == 4 * 3 * 6
    assert client_for(srv, tmp_path).dry_run(requests).n_calls == 72
    assert srv.n_requests == 0


def test_invalid_answers_are_retried_then_unparsable(srv, items, tmp_path):
    (annotator,) = recovery_annotators([SIMULATED_MODEL])
    one = [items[0]]
    srv.script(reply("the value is 4434.5"), reply('{"answer": 4434.5}'))  # then the simulation answers
    result = recover(one, [annotator], client_for(srv, tmp_path), conditions=["read_log"], max_workers=1)
    (row,) = result.frame.to_dict("records")
    assert row["status"] == "answered" and row["answer"] == "4434.5" and row["recovered_exact"]
    assert srv.n_requests == 3
    last = srv.requests[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert '"value" key' in last[-1]["content"]

    srv.reset()
    srv.script(*[reply("not json")] * 3)
    result = recover(one, [annotator], client_for(srv, tmp_path / "2"), conditions=["review"], max_workers=1)
    (row,) = result.frame.to_dict("records")
    assert row["status"] == UNPARSABLE and row["raw_response"] == "not json"
    assert not row["recovered_exact"] and not row["recovered_tolerant"]
    assert srv.n_requests == 3


def test_failures_refusals_and_null(srv, items, tmp_path):
    (annotator,) = recovery_annotators([SIMULATED_MODEL])
    srv.script(http_error(500), refuse(), reply('{"value": null}'))
    client = client_for(srv, tmp_path, max_attempts=1)
    result = recover([items[0]], [annotator], client, max_workers=1)
    assert list(result.frame["status"]) == [FAILED, REFUSED, "no_answer"]
    assert not result.frame["recovered_tolerant"].any()
    summary = recovery_summary(result.frame)
    assert list(summary["failed"]) == [1, 0, 0] and list(summary["refused"]) == [0, 1, 0]
    srv.reset()
    recover([items[0]], [annotator], client, max_workers=1)  # nothing of the above was cached
    assert srv.n_requests == 2  # the null answer was (it is an answer)


def test_unknown_condition(items, tmp_path):
    with pytest.raises(ValueError, match="unknown condition"):
        recover(
            items, [], LLMClient(base_url="http://127.0.0.1:9/v1", cache_dir=tmp_path), conditions=["all"]
        )


# ---------------------------------------------------------------------------------------------------------
# Real data: the 15 Workspace-Bench Codex runs


def test_real_workspace_bench_smoke(real: Path, srv, tmp_path):
    runs = real / "workspace-bench" / "codex-gpt-5.4-runs"
    result = ingest([runs])
    assert not result.failures
    trajectories = result.trajectories
    frame = values_frame(trajectories, [replay(t) for t in trajectories])
    assert int(frame["held"].sum()) == 10  # checked by hand: 5 in 15_cloud, 5 in 15_plain
    assert len(recovery_items(trajectories, sample="held")) == 10
    items = recovery_items(trajectories)
    # the paper's sample: 15_plain's item 11 (1700) passed and is delivered, so 9 of the 10 held values
    assert len(items) == 9 and (("codex:15_plain", 11) not in {(i.trajectory, i.rubric_index) for i in items})
    assert {i.trajectory for i in items} == {"codex:15_cloud", "codex:15_plain"}
    (annotator,) = recovery_annotators([SIMULATED_MODEL])
    out = recover(items, [annotator], client_for(srv, tmp_path), max_workers=8)
    assert len(out.frame) == 27
    assert srv.n_requests == 27
    assert set(out.frame["status"]) <= {"answered", "no_answer"}
    assert not out.frame["truncated"][out.frame["condition"] == "no_tab"].any()


# ---------------------------------------------------------------------------------------------------------
# The paper's sample, and a read log longer than the model's context


def judged_run() -> Trajectory:
    """make_run, judged, with a deliverable: the paper's sample is the held values of failed items that the
    deliverable lacks."""
    from rtlab.records import Deliverable, ItemResult, Judgement

    t = make_run("fx:judged")
    # items 1 (9,870) passed; 2 (1234.5) failed but the final message writes 1234.5; 0, 3, 4, 5, 6 failed
    t.judgement = Judgement(items=[ItemResult(index=i, passed=i == 1) for i in range(7)])
    t.deliverable = Deliverable(final_message="North revenue: 1234.5. Budget 9870.")
    return t


def test_the_paper_sample_is_failed_shown_missing_and_held():
    t = judged_run()
    held = recovery_items([t], sample="held")
    paper = recovery_items([t])
    assert [i.value for i in held] == list(EXPECTED)  # six held values, as before
    # the paper's: 9,870 goes (its item passed, and it is delivered), 1234.5 goes (delivered, though failed);
    # 4,321 (item 5, failed) was never shown, so never in either; 6 - 2 = 4 remain
    assert [i.value for i in paper] == ["4434.5", "7,500", "317", "7,500.00"]
    assert recovery_items([make_run()]) == []  # an unjudged run has no failed item: nothing in the sample


def test_a_prompt_over_the_context_is_reported_not_cut(srv, items, tmp_path):
    (annotator,) = recovery_annotators([SIMULATED_MODEL])
    vendor = items[4]
    sizes = {c: build_prompt(vendor, c).chars for c in CONDITIONS}
    # each condition adds to the one before, so the prompts grow; a context of the review prompt's size takes
    # no_tab and review whole and leaves read_log (the whole read log: every entry, contracts.txt's 3848
    # characters among them) unsent
    assert sizes["no_tab"] < sizes["review"] < sizes["read_log"]
    out = recover(
        [vendor], [annotator], client_for(srv, tmp_path), context_chars=sizes["review"], max_workers=1
    )
    assert srv.n_requests == 2  # the over-context prompt was never sent
    rows = out.frame.set_index("condition")
    assert (
        rows.loc["read_log", "status"] == OVER_CONTEXT
        and rows.loc["read_log", "prompt_chars"] == sizes["read_log"]
    )
    assert not rows.loc["read_log", "context_holds"] and not rows.loc["read_log", "truncated"]
    assert f"{sizes['read_log']} characters" in rows.loc["read_log", "raw_response"]
    assert list(rows["status"][["no_tab", "review"]]) == ["no_answer", "no_answer"]  # EXPECTED: None, None
    assert list(recovery_summary(out.frame)["over_context"]) == [0, 0, 1]
    assert len(first_recovery_requests([vendor], [annotator], context_chars=sizes["review"])) == 2
