"""What a term is (rtlab.text.terms), and the tab's four comparisons on it: the evidence check, the review's
entries, the review's candidates and the candidates' ranking against the task (identical to rank_bm25 on the
same terms)."""

from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from rtlab.environment import Capture, CapturedRead, Tab
from rtlab.text import terms, tokenize


def reads(*pairs: tuple[str, str]) -> Capture:
    return Capture(reads=tuple(CapturedRead(p, e, 0) for p, e in pairs))


def listed(*paths: str) -> Capture:
    return Capture(listed=paths)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # lone digits go: 1, 2 of "Week 1", "Week 2"
        ("Sessions growth from Week 1 to Week 2", ["sessions", "growth", "week", "week"]),
        # the extension of a file name goes, the rest of the name stays
        ("notes/lunch_menu.txt", ["notes", "lunch", "menu"]),
        ("README.md and Q3_budget.XLSX", ["readme", "budget"]),
        # the same word standing alone stays: it is what the text says, not a name's suffix
        ("the CSV export and the error log", ["csv", "export", "error", "log"]),
        # two or more digits stay (a year, a count, a zero-padded month)
        ("2024 totals: 12 sites, month 05", ["2024", "totals", "12", "sites", "month", "05"]),
        # a lone CJK character stays (the script has no spaces); the dot of a sentence end is no extension
        ("季度 report. Done", ["季", "度", "report", "done"]),
        # a version's digits: v and 2 both go (one letter, lone digit)
        ("budget_v2.csv", ["budget"]),
        ("", []),
    ],
)
def test_terms_by_hand(text: str, expected: list[str]) -> None:
    assert terms(text) == expected


def test_terms_are_tokens_less_lone_digits_and_extensions() -> None:
    # every term is a token of the text; what tokenize keeps and terms drops is a lone digit or an extension
    text = "Q3 report: see data/q3_sales.xlsx, 2 tabs, 2024 totals, the xlsx export"
    assert tokenize(text) == [
        "3", "report", "see", "data", "3", "sales", "xlsx", "2", "tabs", "2024", "totals", "xlsx", "export"
    ]  # fmt: skip
    assert terms(text) == ["report", "see", "data", "sales", "tabs", "2024", "totals", "xlsx", "export"]


# ---------------------------------------------------------------------------------------------------------
# The lunch-menu case, both ways


def lunch_tab() -> Tab:
    tab = Tab("Report the weekly sessions growth")
    tab.record(0, "cat notes/lunch_menu.txt", reads(("notes/lunch_menu.txt", "Monday: 2 eggs, 1 toast\n")))
    tab.record(
        1, "cat analytics/weekly.csv", reads(("analytics/weekly.csv", "week,sessions\n1,1200\n2,1350\n"))
    )
    tab.add("Sessions growth from Week 1 to Week 2")  # R1 -> terms [sessions, growth, week, week]
    tab.add("Save the summary as summary.md")  # R2 -> terms [save, summary, summary] (md is no term)
    return tab


def test_a_citation_sharing_only_a_lone_digit_is_refused() -> None:
    tab = lunch_tab()
    # tokens of L1 hold 2 and 1, as R1's do; terms of L1 are [notes, lunch, menu, monday, eggs, toast]
    assert set(tokenize("Sessions growth from Week 1 to Week 2")) & set(
        tokenize("notes/lunch_menu.txt Monday: 2 eggs, 1 toast")
    ) == {"1", "2"}
    assert tab.evidence("R1", "L1") == frozenset()
    reply = tab.resolve("R1", "done", cite="L1")
    assert not reply.ok and reply.text.startswith("Refused by the evidence check: L1 (notes/lunch_menu.txt)")
    assert tab.requirement("R1").status == "open"


def test_a_citation_sharing_a_real_word_is_accepted() -> None:
    tab = lunch_tab()
    # L2's terms: [analytics, weekly, week, sessions, 1200, 1350] (csv, 1 and 2 are no terms): shares week, sessions
    assert tab.evidence("R1", "L2") == {"week", "sessions"}
    reply = tab.resolve("R1", "done", cite="L2")
    assert reply.ok and reply.text == "R1 done, citing L2 (analytics/weekly.csv)."


def test_a_citation_sharing_only_an_extension_is_refused() -> None:
    tab = lunch_tab()
    tab.record(
        2, "cat old/menu.md", reads(("old/menu.md", "soup of the day\n"))
    )  # L3: [old, menu, soup, day]
    # R2's tokens hold md (summary.md), as L3's path does; as terms neither has it
    assert "md" in tokenize("Save the summary as summary.md") and "md" in tokenize("old/menu.md")
    assert tab.evidence("R2", "L3") == frozenset()
    assert not tab.resolve("R2", "done", cite="L3").ok


def test_the_review_offers_nothing_through_a_lone_digit_or_an_extension() -> None:
    tab = lunch_tab()
    tab.record(2, "ls", listed("misc/3.md", "misc/week_2_plan.txt", "menus/jan.txt"))
    review = {item.requirement: item for item in tab.review().items}
    # R1: L2 shares week and sessions; L1 (lunch menu) shares only 1 and 2, so it is not shown. Candidates:
    # misc/3.md has terms [misc] (3 a lone digit, md an extension): not offered; week_2_plan shares week.
    assert [e.id for e in review["R1"].entries] == ["L2"]
    assert [c.path for c in review["R1"].candidates] == ["misc/week_2_plan.txt"]
    # R2 (summary.md) shares no term with anything: misc/3.md's md and every .txt no longer match it
    assert review["R2"].entries == () and review["R2"].candidates == ()


def test_candidate_ranking_equals_rank_bm25_on_the_same_terms() -> None:
    task = "Summarise the Q3 budget review and the 2024 headcount in budget.xlsx"
    paths = [
        "finance/Q3_budget_review.xlsx", "finance/budget_2023.xlsx", "hr/headcount_2024.csv", "notes/3.md",
        "misc/lunch_menu.txt", "reports/review_notes.md", "finance/q3_summary.xlsx",
    ]  # fmt: skip
    tab = Tab(task)
    tab.record(0, "ls -R", listed(*paths))
    ranked = {c.path: c.score for c in tab.candidates_ranked()}
    ref = BM25Okapi([terms(p) for p in paths]).get_scores(terms(task))
    np.testing.assert_allclose([ranked[p] for p in paths], ref, rtol=0, atol=1e-12)
    # and the review's candidate scores for a requirement equal rank_bm25's over the same corpus
    tab.add("Q3 budget review")  # terms [budget, review]
    item = tab.review().items[0]
    ref_req = BM25Okapi([terms(p) for p in paths]).get_scores(terms("Q3 budget review"))
    for c in item.candidates:
        assert c.score == pytest.approx(ref_req[paths.index(c.path)], abs=1e-12)
    # notes/3.md shares only "3" with the task through tokenize; as terms it scores 0 and is last
    assert ranked["notes/3.md"] == 0.0
