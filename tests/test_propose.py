"""Environment-proposed requirements: the rule proposer, the tab's proposed requirements, their replay, the
LLM proposer against the simulated server, and the coverage of rubric items."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import FIXTURES

from rtlab.analysis import content_terms, cover_share, covers, proposal_coverage
from rtlab.annotation import LLMProposer, parse_proposals
from rtlab.environment import Proposal, RuleProposer, Tab, propose_requirements, replay
from rtlab.ingest import ingest
from rtlab.llm import SIMULATED_MODEL, LLMClient, SimulatedServer
from rtlab.llm._simulated import reply
from rtlab.records import RubricItem, Task

TASK = (
    "Using the sales records in `sales_2024.xlsx`, find the top 10 customers by revenue and "
    'compile them into a "Key Accounts Table". Cover the North, South, and East regions. '
    "Generate a Markdown report named `key_accounts.md` for the Finance Team."
)


def _by_kind(proposals: list[Proposal]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in proposals:
        out.setdefault(p.kind, []).append(p.text)
    return out


def test_rule_proposer_finds_the_four_kinds() -> None:
    got = _by_kind(propose_requirements(TASK))
    # sales_2024.xlsx follows "Using" (an input cue, no output verb before it): an input, proposed as a name
    # to use; key_accounts.md follows "Generate ... named": the deliverable
    assert got["deliverable"] == ["Deliver `key_accounts.md`"]
    assert "Use `sales_2024.xlsx`" in got["entity"]
    assert "find the top 10 customers by revenue" in got["quantity"]
    assert got["enumeration"] == ["Cover each of: North; South; East regions"]
    # the quoted name is one entity; its capitalised words are not proposed again inside it
    assert "Key Accounts Table" in got["entity"] and "Key Accounts" not in got["entity"]
    assert "Finance Team" in got["entity"]
    # "Using" and "Generate" open their sentences: capitalised by grammar, never names
    assert not any(t in ("Using", "Generate", "Cover") for t in got["entity"])
    assert all(
        p.proposer == "rules" and TASK[p.start :].startswith(p.basis[:3])
        for p in propose_requirements(TASK)
        if p.kind != "quantity"
    )


def test_rule_proposer_is_deterministic_and_dedupes() -> None:
    task = "Create `a.md`. Create `a.md` again and name the Finance Team, the Finance Team."
    first = RuleProposer().propose([task, task])
    assert first[0] == first[1]
    texts = [p.text for p in first[0]]
    assert texts.count("Deliver `a.md`") == 1 and texts.count("Finance Team") == 1


def test_a_file_after_an_output_verb_then_an_input_cue_is_an_input() -> None:
    # "create" is an output cue but "from" comes between it and the name: the name is an input
    (p,) = [p for p in propose_requirements("Create a summary from `notes.txt`.") if "notes" in p.text]
    assert (p.kind, p.text) == ("entity", "Use `notes.txt`")
    assert RuleProposer(kinds=("deliverable",)).propose(["Create a summary from `notes.txt`."]) == [[]]


def test_content_terms_and_covers_by_hand() -> None:
    item = "Was the output file `key_accounts.md` created?"
    # tokens less frame words (was, output, file, created) and the file name as one term
    assert content_terms(item) == {"key_accounts.md"}
    assert covers("Deliver `key_accounts.md`", item)  # 1 of 1 term = 1.0 >= 0.5
    # "Week 2" and lone digits: "2" is not a term, so an item sharing only it is not covered
    assert content_terms("Sessions growth in Week 2") == {"sessions", "growth", "week"}
    assert not covers("lunch menu 2", "Sessions growth in Week 2")
    item2 = "Does key_accounts.md list the top 10 customers by revenue for Finance?"
    # K(item2) = {key_accounts.md, list, top, 10, customers, revenue, finance} (7 terms)
    # the quantity proposal holds top, 10, customers, revenue = 4 of 7 = 0.571 >= 0.5: covered
    assert content_terms(item2) == {"key_accounts.md", "list", "top", "10", "customers", "revenue", "finance"}
    assert cover_share("find the top 10 customers by revenue", item2) == pytest.approx(4 / 7)
    assert covers("find the top 10 customers by revenue", item2)
    # the deliverable holds 1 of 7 = 0.143 < 0.5: a broad proposal does not cover what is checked inside
    assert not covers("Deliver `key_accounts.md`", item2)
    assert not covers("anything", "Was the file created?")  # an item with no content terms is never covered


def test_proposal_coverage_recall_and_precision_by_hand() -> None:
    task = Task(
        "t1",
        "workspace-bench",
        TASK,
        rubric=[
            RubricItem(0, "Was the output file `key_accounts.md` created?"),
            RubricItem(1, "Does key_accounts.md list the top 10 customers by revenue for Finance?"),
            RubricItem(2, "Is the North region total 48,213.50?"),
        ],
        expected_outputs=["key_accounts.md", "chart.png"],
    )
    c = proposal_coverage([task])
    props = c.proposals.set_index("text")
    # item 0: the deliverable (1/1); item 1: the quantity (4/7); item 2: K = {north, region, total, 48, 213, 50}
    # (6 terms), the enumeration holds north only = 1/6 < 0.5: not covered. Recall 2/3.
    assert c.items["covered"].tolist() == [True, True, False]
    row = c.tasks.iloc[0]
    assert (row["n_items"], row["n_covered"]) == (3, 2) and row["recall"] == pytest.approx(2 / 3)
    # proposals: Use sales_2024.xlsx, quantity, "Key Accounts Table", enumeration, Markdown, deliverable,
    # Finance Team = 7; two of them cover an item: precision 2/7
    assert row["n_proposals"] == 7 and row["n_covering"] == 2 and row["precision"] == pytest.approx(2 / 7)
    assert props.loc["Deliver `key_accounts.md`", "covered"] == [0]
    # deliverables: 1 of the 2 expected outputs proposed (recall 1/2), the 1 deliverable proposed is expected
    assert row["deliverable_recall"] == 0.5 and row["deliverable_precision"] == 1.0
    s = c.summary()
    assert s["recall_micro"] == pytest.approx(2 / 3) and s["precision_micro"] == pytest.approx(2 / 7)
    assert (
        s["n_deliverable"] == 1
        and s["precision_deliverable"] == 1.0
        and math.isnan(proposal_coverage([Task("t2", "x", "")]).summary()["recall_micro"])
    )
    with pytest.raises(ValueError, match="1 lists of proposals for 2 tasks"):
        proposal_coverage([task, task], proposals=[[]])


def test_tab_numbers_proposals_apart_and_marks_their_origin() -> None:
    tab = Tab("task")
    assert tab.add("Deliver `a.md`", origin="proposed", proposed_by="rules/deliverable").text.startswith(
        "Added P1"
    )
    assert tab.add("base salary").text == "Added R1: base salary"
    # the agent may state a proposal's text: the duplicate check is within each numbering
    assert tab.add("Deliver `a.md`").ok
    assert not tab.add("deliver `A.md`", origin="proposed").ok
    assert [(r.id, r.origin, r.proposed_by) for r in tab.requirements] == [
        ("P1", "proposed", "rules/deliverable"),
        ("R1", "agent", None),
        ("R2", "agent", None),
    ]
    assert "P1 and R1–R2" in tab.resolve("R9", "done", cite="L1").text
    assert tab.resolve("p1", "unavailable", reason="not needed").ok


def test_replay_with_proposals_keeps_the_agents_ids() -> None:
    (t,) = ingest([FIXTURES / "runningtab" / "hr-offer-chat.json"]).trajectories
    own = replay(t, requirements="trajectory")
    both = replay(t, requirements="trajectory+proposed")
    # the task: "Write offer_summary.md with the base salary and the start date of the accepted offer for Dana
    # Kim." -> P1 Deliver `offer_summary.md` ("Write" is an output cue), P2 Dana Kim
    proposed = [(q.id, q.text, q.status) for q in both.tab.requirements if q.origin == "proposed"]
    assert proposed == [("P1", "Deliver `offer_summary.md`", "open"), ("P2", "Dana Kim", "open")]
    agent = [(q.id, q.status, q.cite) for q in both.tab.requirements if q.origin == "agent"]
    assert agent == [(q.id, q.status, q.cite) for q in own.tab.requirements]
    # the agent resolved its own two; the proposals stay open, so the finish check now fires
    assert own.finish_check is None and both.finish_check is not None and "P1" in both.finish_check
    only = replay(t, requirements="proposed")
    assert [q.id for q in only.tab.requirements] == ["P1", "P2"]
    assert {rec.kind for rec in only.records} >= {"skipped_tab_call"}
    given = replay(t, requirements="proposed", proposals=[Proposal("x", "entity", "x", -1, "llm:m")])
    assert [(q.text, q.proposed_by) for q in given.tab.requirements] == [("x", "llm:m/entity")]


def test_parse_proposals_refuses_bad_kinds() -> None:
    ok, err = parse_proposals('{"requirements": [{"text": "a", "kind": "entity"}]}')
    assert ok == [("a", "entity", "")] and err is None
    assert parse_proposals('{"requirements": [{"text": "a", "kind": "wish"}]}')[1].startswith(
        "requirement 0 has kind"
    )
    assert parse_proposals('{"requirements": [{"kind": "entity"}]}')[0] is None


def test_llm_proposer_against_the_simulated_server(tmp_path: Path) -> None:
    task = "Write `summary.md` for Dana Kim."
    good = {"requirements": [{"text": "Deliver summary.md", "kind": "deliverable", "basis": "`summary.md`"}]}
    with SimulatedServer() as server:
        client = LLMClient(base_url=server.base_url, api_key="x", cache_dir=tmp_path, cache=False)
        try:
            # the first answer is not JSON, so it is asked again with the reason; the second is valid
            server.script(reply("no json here"), reply(json.dumps(good)))
            proposer = LLMProposer(client, SIMULATED_MODEL)
            (got,) = proposer.propose([task])
            assert got == [
                Proposal("Deliver summary.md", "deliverable", "`summary.md`", 6, f"llm:{SIMULATED_MODEL}")
            ]
            assert server.n_requests == 2 and proposer.failures == []
            # an answer that stays invalid gives no proposals and is reported
            server.script(*[reply('{"requirements": 3}')] * 3)
            assert proposer.propose([task]) == [[]]
            assert proposer.failures and "must be a list" in proposer.failures[0][1]
        finally:
            client.close()


def test_real_lite_tasks_coverage(real: Path) -> None:
    from rtlab.ingest.benchmarks.workspace_bench import load_tasks

    table = real / "workspace-bench" / "lite_metadata" / "task_lite_clean_en_metadata_table.csv"
    tasks = load_tasks(table)
    c = proposal_coverage(tasks.values())
    s = c.summary()
    assert s["n_tasks"] == 100 and s["n_items"] == sum(len(t.rubric) for t in tasks.values())
    # every covered item is covered by a proposal that holds at least half its terms
    covered = c.items[c.items["covered"]]
    assert (covered["best_share"] >= 0.5).all() and len(covered) == round(s["recall_micro"] * s["n_items"])
    # a deliverable proposal is a file name the task mentions after an output verb: most are the task's outputs
    assert s["deliverable_precision_micro"] > 0.7
