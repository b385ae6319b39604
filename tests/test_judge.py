"""``rtlab judge`` against the simulated server over HTTP: the judge file is written beside the run in
Workspace-Bench's format, read back by the adapter and scored by ``rtlab score``; a second judge is answered by
the cache; an invalid answer is asked again and then reported as a failure; OfficeQA runs are scored by the
official rules without any request."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from judge_mini import DELIVERABLE, EXPECTED, write_run
from synth_mini import build_mini_world

from rtlab.cli import EXIT_CALLS_FAILED, main
from rtlab.ingest import ingest
from rtlab.ingest.benchmarks.workspace_bench import load_task, load_tasks, task_record
from rtlab.judge import JudgeLimits, Verdict, answer_schema, evidence, judge_runs, parse_verdicts
from rtlab.llm import SIMULATED_MODEL, LLMClient, reply, simulate_judgement

JUDGE_FILE = f"rubrics_judge--{SIMULATED_MODEL}.json"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    return build_mini_world(tmp_path_factory.mktemp("mini"))


def _judge(srv, cache: Path, *paths: Path, extra: tuple[str, ...] = ()) -> int:
    return main(
        [
            "judge",
            *map(str, paths),
            "--model",
            SIMULATED_MODEL,
            "--base-url",
            srv.base_url,
            "--cache-dir",
            str(cache),
            *extra,
        ]
    )


def test_judge_file_reads_back_and_scores_as_computed_by_hand(srv, world, tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "runs" / "r1", world)
    assert _judge(srv, tmp_path / "cache", run) == 0
    assert srv.n_requests == 1
    path = run / JUDGE_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    # Workspace-Bench's layout
    assert list(data)[:7] == ["taskId", "agentKind", "createdAt", "rubrics", "summary", "judge", "prompt"]
    assert data["summary"] == {"total": 7, "passed": 5, "failed": 2}
    assert data["judge"]["model"] == SIMULATED_MODEL and data["judge"]["tries"] == 1
    assert data["prompt"]["system"] == "You are a strict task evaluator."
    assert data["rtlab"]["cached"] is False
    (t,) = ingest([run]).trajectories
    assert t.judgement is not None and t.judgement.source_path == str(path)
    assert [i.passed for i in t.judgement.items] == EXPECTED
    assert "not found" in t.judgement.items[4].evidence  # the codebook's lexicon reads the judge's words
    assert not t.meta.get("warnings")
    capsys.readouterr()
    assert main(["score", str(run), "--json"]) == 0
    groups = {g["metric"]: g["value"] for g in json.loads(capsys.readouterr().out)["groups"]}
    assert groups["pass_rate"] == pytest.approx(5 / 7)
    assert groups["tcr@70"] == 1.0


def test_a_second_judge_is_answered_by_the_cache(srv, world, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r1", world)
    assert _judge(srv, tmp_path / "cache", run) == 0
    first = json.loads((run / JUDGE_FILE).read_text(encoding="utf-8"))
    assert srv.n_requests == 1
    assert _judge(srv, tmp_path / "cache", run, extra=("--force",)) == 0
    assert srv.n_requests == 1  # no new request: the same normalised request is in the cache
    again = json.loads((run / JUDGE_FILE).read_text(encoding="utf-8"))
    assert again["rtlab"]["cached"] is True and again["rubrics"] == first["rubrics"]


def test_an_existing_judge_file_is_kept_without_force(srv, world, tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "r1", world)
    (run / JUDGE_FILE).write_text('{"rubrics": []}', encoding="utf-8")
    assert _judge(srv, tmp_path / "cache", run) == 0
    assert srv.n_requests == 0 and (run / JUDGE_FILE).read_text(encoding="utf-8") == '{"rubrics": []}'
    assert "kept" in capsys.readouterr().err


def test_an_invalid_answer_is_asked_again_then_a_failure_and_the_batch_goes_on(
    srv, world, tmp_path: Path, capsys
) -> None:
    bad = write_run(tmp_path / "a", world)  # 7 items: asked first (one round of asking per rubric shape)
    good = write_run(tmp_path / "b", world, drop_items=1)  # 6 items
    srv.script(reply("no JSON here"), reply('{"rubrics": "all passed"}'), reply('{"verdict": true}'))
    assert _judge(srv, tmp_path / "cache", bad, good) == EXIT_CALLS_FAILED
    # 3 requests for the bad run (the first and 2 corrective ones), then 1 for the good one
    assert srv.n_requests == 4
    corrective = srv.requests[1]["messages"]
    assert corrective[-2] == {"role": "assistant", "content": "no JSON here"}
    assert corrective[-1]["content"].startswith("Your answer is invalid: the answer is not valid JSON")
    assert not (bad / JUDGE_FILE).exists()  # no verdicts, no judge file: a rerun asks again
    assert json.loads((good / JUDGE_FILE).read_text(encoding="utf-8"))["summary"]["total"] == 6
    err = capsys.readouterr().err
    assert "failed" in err and 'a "rubrics" key' in err and "still invalid after 3 requests" in err


def test_strict_stops_at_the_first_failed_run(srv, world, tmp_path: Path) -> None:
    bad = write_run(tmp_path / "a", world)
    good = write_run(tmp_path / "b", world, drop_items=1)
    srv.script(*[reply("nope")] * 3)
    assert _judge(srv, tmp_path / "cache", bad, good, extra=("--strict",)) == 2
    assert not (bad / JUDGE_FILE).exists() and not (good / JUDGE_FILE).exists()
    assert srv.n_requests == 3  # the later run was never asked


def test_runs_sharing_a_folder_are_not_given_one_judge_file(srv, world, tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "r1", world)
    shutil.copy(run / "session.jsonl", run / "session-2.jsonl")  # a second session beside the first
    assert _judge(srv, tmp_path / "cache", run) == 3
    assert srv.n_requests == 0 and not (run / JUDGE_FILE).exists()
    assert capsys.readouterr().err.count("2 runs read here share") == 2


def test_dry_run_estimates_and_sends_nothing(srv, world, tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "r1", world)
    assert _judge(srv, tmp_path / "cache", run, extra=("--dry-run",)) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 calls to make (0 of 1 requests cached)") and "estimated cost $0.0000" in out
    assert srv.n_requests == 0 and not (run / JUDGE_FILE).exists()


def test_a_run_without_a_task_is_reported_not_judged(srv, world, tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "r1", world)
    (run / "metadata.json").unlink()
    assert _judge(srv, tmp_path / "cache", run) == 0
    assert srv.n_requests == 0
    assert "not judged" in capsys.readouterr().err


def test_officeqa_is_scored_by_the_official_rules_without_any_request(
    srv, fixtures: Path, tmp_path: Path
) -> None:
    traces = tmp_path / "traces"
    shutil.copytree(fixtures / "g2b" / "traces", traces)
    shutil.copytree(fixtures / "g2b" / "questions", tmp_path / "questions")
    # no --model: OfficeQA needs none; demo__oqa-8_s0 has no assessment yet, demo__oqa-7_s1 has G2B's
    assert main(["judge", str(traces)]) == 0
    assert srv.n_requests == 0
    written = json.loads((traces / "demo__oqa-8_s0" / "assessment_r0.json").read_text(encoding="utf-8"))
    # oqa-8 handed in no answer (no output.txt, no final message): the scorer's guard gives 0 at any tolerance
    assert (written["is_correct"], written["accuracy"], written["details"]["acc_1pct"]) == (False, 0.0, 0.0)
    assert written["match_type"].startswith("guard:") and written["target"] == ["1,200"]
    g2b = (fixtures / "g2b" / "traces" / "demo__oqa-7_s1" / "assessment_r0.json").read_text(encoding="utf-8")
    assert (traces / "demo__oqa-7_s1" / "assessment_r0.json").read_text(encoding="utf-8") == g2b  # kept
    assert main(["judge", str(traces / "demo__oqa-7_s1"), "--force"]) == 0
    again = json.loads((traces / "demo__oqa-7_s1" / "assessment_r0.json").read_text(encoding="utf-8"))
    # output.txt holds 42.5 and the answer is 42.5: exact, so correct at 0% and at 1%
    assert (again["is_correct"], again["details"]["acc_exact"], again["details"]["acc_1pct"]) == (
        True,
        1.0,
        1.0,
    )
    (t,) = [t for t in ingest([traces]).trajectories if t.task_id == "oqa-7"]
    assert t.judgement is not None and t.judgement.items[0].passed is True
    assert srv.n_requests == 0


# ---------------------------------------------------------------------------------------------------------
# The parts


def test_parse_verdicts_checks_every_index() -> None:
    ok = '```json\n{"rubrics": [{"index": 1, "passed": false}, {"index": 0, "passed": true, "confidence": 1}]}\n```'
    verdicts, error = parse_verdicts(ok, {0, 1})
    assert error is None and verdicts is not None
    assert [(v.index, v.passed, v.confidence, v.evidence) for v in verdicts] == [
        (0, True, 1.0, ""),
        (1, False, None, ""),
    ]
    # Workspace-Bench's reader takes the first JSON object in a chatty answer, and so does rtlab's
    assert parse_verdicts('Here: {"rubrics": [{"index": 0, "passed": true}]} done', {0})[1] is None
    # a raw newline inside a string, as a grammar-decoding server lets through (seen from llama.cpp's)
    raw = '{"rubrics": [{"index": 0, "passed": false, "evidence": "a\nb"}]}'
    assert parse_verdicts(raw, {0})[0] == [Verdict(0, False, None, "a\nb")]
    for answer, why in [
        ('{"rubrics": [{"index": 0, "passed": true}]}', "no entry for rubric 1"),
        (
            '{"rubrics": [{"index": 0, "passed": true}, {"index": 0, "passed": false}]}',
            "rubric 0 has two entries",
        ),
        (
            '{"rubrics": [{"index": 0, "passed": "yes"}, {"index": 1, "passed": true}]}',
            "passed must be true or false",
        ),
        (
            '{"rubrics": [{"index": 0, "passed": true, "confidence": 2}]}',
            "confidence must be a number from 0 to 1",
        ),
        ('{"rubrics": [{"index": 5, "passed": true}]}', "is not a rubric index (they are 0 to 1)"),
    ]:
        assert why in (parse_verdicts(answer, {0, 1})[1] or ""), answer


def test_evidence_follows_the_protocol_and_its_limits(world, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r1", world)
    (t,) = ingest([run]).trajectories
    assert t.task is not None
    full = evidence(t, t.task)
    assert list(full) == [
        "taskId",
        "task",
        "steps",
        "expectedOutputs",
        "workDir",
        "outputs",
        "traceSummary",
        "rubrics",
    ]
    assert full["expectedOutputs"] == ["q3_freight_review.md"]
    (output,) = full["outputs"]
    assert output["path"] == "outputs/q3_freight_review.md" and output["excerpt"] == DELIVERABLE
    assert [c["tool"] for c in full["traceSummary"]["toolCalls"]] == ["read", "write"]
    assert full["traceSummary"]["textOutputs"] == ["Done: the deliverable is outputs/q3_freight_review.md."]
    assert [r["index"] for r in full["rubrics"]] == list(range(7))
    small = evidence(t, t.task, JudgeLimits(max_str_len=10, max_trace_items=1))
    assert small["outputs"][0]["excerpt"] == DELIVERABLE[:10] + "...[truncated]"
    assert small["traceSummary"]["toolCalls"][1:] == ["...[truncated 1 more items]"]


def test_the_simulated_judge_rules() -> None:
    prompt = "rules\n\n## Evidence\n" + json.dumps(
        {
            "outputs": [{"path": "out/report.xlsx", "excerpt": "Total\t1,234.5\nOwner: Ada Lovelace"}],
            "traceSummary": {"textOutputs": ["done"]},
            "rubrics": [
                {"index": 0, "rubric": 'Names "Ada Lovelace" and the total 1234.50 for 2024.'},  # J1
                {"index": 1, "rubric": "States the count from data_2024.csv: 98765."},  # J2
                {"index": 2, "rubric": "Was a new Excel file named `report.xlsx` generated?"},  # J3
                {"index": 3, "rubric": "Is the tone professional?"},  # J4
            ],
        }
    )
    answer = simulate_judgement(prompt)["rubrics"]
    assert [(a["passed"], a["evidence"].split(":")[0]) for a in answer] == [
        (True, "[simulated] J1"),
        (False, "[simulated] J2"),
        (True, "[simulated] J3"),
        (False, "[simulated] J4"),
    ]
    assert "98765" in answer[1]["evidence"] and "not found" in answer[1]["evidence"]


def test_judge_runs_from_python(srv, world, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r1", world)
    trajectories = ingest([run]).trajectories
    with LLMClient(base_url=srv.base_url, cache_dir=tmp_path / "cache") as client:
        report = judge_runs(trajectories, client, model=SIMULATED_MODEL, judge_name="j1")
    (outcome,) = report.outcomes
    assert (outcome.status, outcome.n_passed, outcome.n_items) == ("written", 5, 7)
    assert outcome.path == str(run / "rubrics_judge--j1.json") and len(report.calls) == 1


def test_the_response_format_asks_for_the_runs_exact_answer_schema(srv, world, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r1", world)
    assert _judge(srv, tmp_path / "cache", run, extra=("--response-format", "json_object_schema")) == 0
    (request,) = srv.requests
    assert request["temperature"] == 0 and "max_tokens" not in request
    assert request["response_format"] == {"type": "json_object", "schema": answer_schema(range(7))}
    entries = answer_schema([0, 1])["properties"]["rubrics"]
    assert [e["properties"]["index"] for e in entries["prefixItems"]] == [{"const": 0}, {"const": 1}]
    assert entries["minItems"] == entries["maxItems"] == 2


def test_a_task_from_the_lite_table_is_written_beside_the_judge_file(srv, world, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r1", world)
    task = load_task(run / "metadata.json")
    (run / "metadata.json").unlink()  # the run alone, its task in a table
    (t,) = ingest([run]).trajectories
    assert t.task is None and t.task_id == task.id
    with LLMClient(base_url=srv.base_url, cache_dir=tmp_path / "cache") as client:
        report = judge_runs([t], client, model=SIMULATED_MODEL, tasks={task.id: task})
    assert [o.status for o in report.outcomes] == ["written"]
    assert load_task(run / "metadata.json") == task
    (back,) = ingest([run]).trajectories
    assert back.task == task and back.judgement is not None
    assert [i.passed for i in back.judgement.items] == EXPECTED


def test_task_record_reads_back_to_every_lite_task(real: Path, tmp_path: Path) -> None:
    table = real / "workspace-bench" / "lite_metadata" / "task_lite_clean_en_metadata_table.csv"
    tasks = load_tasks(table)
    assert len(tasks) == 100
    for task in tasks.values():
        path = tmp_path / f"{task.id}.json"
        path.write_text(json.dumps(task_record(task)), encoding="utf-8")
        assert load_task(path) == task
