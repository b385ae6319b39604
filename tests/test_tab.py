"""The tab's rules, one test each: R (add, resolve, evidence check), L (record), C (candidates and their
ranking), the review with hand-computed BM25, show, the status line, the finish message and the caches."""

from __future__ import annotations

import math

import pytest

import rtlab.environment._tab as tab_module
from rtlab.environment import (
    ABLATIONS,
    Candidate,
    Capture,
    CapturedRead,
    ReplyReading,
    Review,
    Tab,
    TabConfig,
    read_reply,
    with_status,
)


def reads(*pairs: tuple[str, str]) -> Capture:
    """A capture that read each ``(path, excerpt)``."""
    return Capture(reads=tuple(CapturedRead(p, e, 0) for p, e in pairs), listed=(), written=())


def listed(*paths: str) -> Capture:
    return Capture(reads=(), listed=paths, written=())


# BM25 constants of rank_bm25.BM25Okapi, which rtlab.text._bm25 reproduces: k1 = 1.5, b = 0.75.
K1, B = 1.5, 0.75


def tf_part(tf: int, dl: float, avgdl: float) -> float:
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))


def idf(n_docs: int, df: int) -> float:
    return math.log((n_docs - df + 0.5) / (df + 0.5))


# ---------------------------------------------------------------------------------------------------------
# R: add


def test_add_numbers_requirements_and_keeps_the_step() -> None:
    tab = Tab("task")
    r1 = tab.add("total revenue 2023", step=4)
    r2 = tab.add("  staff head count  ")
    assert (r1.ok, r1.text) == (True, "Added R1: total revenue 2023")
    assert (r2.ok, r2.text) == (True, "Added R2: staff head count")
    assert [(r.id, r.text, r.status, r.step_added) for r in tab.requirements] == [
        ("R1", "total revenue 2023", "open", 4),
        ("R2", "staff head count", "open", None),
    ]


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_add_refuses_an_empty_text(text: str) -> None:
    tab = Tab("task")
    reply = tab.add(text)
    assert not reply.ok
    assert reply.text == "Not added: the requirement text is empty. State one thing the task needs."
    assert tab.requirements == []


def test_add_refuses_a_duplicate_after_folding_case_and_spaces_even_once_resolved() -> None:
    tab = Tab("task")
    tab.record(0, "cat r.csv", reads(("r.csv", "revenue 2023: 5")))
    tab.add("total revenue 2023")
    assert (
        tab.add("Total  Revenue\n2023").text
        == "Not added: this requirement is already on the tab as R1 (open)."
    )
    tab.resolve("R1", "done", cite="L1")
    reply = tab.add("TOTAL REVENUE 2023")
    assert (reply.ok, reply.text) == (
        False,
        "Not added: this requirement is already on the tab as R1 (done).",
    )
    assert len(tab.requirements) == 1
    assert tab.add("total revenue 2024").ok  # a different text is a different requirement


# ---------------------------------------------------------------------------------------------------------
# R: resolve and the evidence check


def evidence_tab(config: TabConfig | None = None) -> Tab:
    tab = Tab("task", config)
    tab.add("total revenue 2023")  # tokenize -> {total, revenue, 2023}
    tab.record(3, "cat hr/staff_list.csv", reads(("hr/staff_list.csv", "name,role\nAna,engineer")))
    tab.record(4, "cat finance/revenue.csv", reads(("finance/revenue.csv", "year,amount\n2023,1.2M")))
    tab.record(5, "cat misc/revenue_notes.txt", reads(("misc/revenue_notes.txt", "see the attached sheet")))
    return tab


def test_evidence_check_refuses_a_citation_sharing_no_term() -> None:
    tab = evidence_tab()
    # R1 {total, revenue, 2023}; L1 path hr/staff_list.csv -> {hr, staff, list, csv}, excerpt "name,role\nAna,
    # engineer" -> {name, role, ana, engineer}. Intersection: {} -> refused, R1 stays open.
    assert tab.evidence("R1", "L1") == frozenset()
    reply = tab.resolve("R1", "done", cite="L1", step=9)
    assert not reply.ok
    assert reply.text.startswith(
        'Refused by the evidence check: L1 (hr/staff_list.csv) shares no term with R1 "total revenue 2023".'
    )
    assert (tab.requirements[0].status, tab.requirements[0].cite, tab.requirements[0].step_resolved) == (
        "open",
        None,
        None,
    )


def test_evidence_check_accepts_a_citation_sharing_a_term() -> None:
    tab = evidence_tab()
    # L2 path finance/revenue.csv -> {finance, revenue, csv}; excerpt "year,amount\n2023,1.2M" -> {year,
    # amount, 2023, 1, 2} ("M" is one letter, dropped). Shared with R1 {total, revenue, 2023}: {revenue, 2023}.
    assert tab.evidence("R1", "L2") == {"revenue", "2023"}
    reply = tab.resolve("r1", "Done", cite=" l2 ", step=9)  # ids and status are case- and space-tolerant
    assert (reply.ok, reply.text) == (True, "R1 done, citing L2 (finance/revenue.csv).")
    r1 = tab.requirements[0]
    assert (r1.status, r1.cite, r1.step_resolved) == ("done", "L2", 9)


def test_evidence_check_counts_the_path_and_ignores_stop_words() -> None:
    tab = evidence_tab()
    # L3 shares only through its path: misc/revenue_notes.txt -> {misc, revenue, notes, txt}; excerpt "see
    # the attached sheet" -> {see, attached, sheet}. Shared with R1: {revenue}.
    assert tab.evidence("R1", "L3") == {"revenue"}
    tab.add("the total of it all")  # R2: stop words out -> {total}
    tab.record(6, "cat a.txt", reads(("a.txt", "it is all of the above")))  # L4 -> {txt} ("a" dropped)
    assert tab.evidence("R2", "L4") == frozenset()
    assert not tab.resolve("R2", "done", cite="L4").ok


def test_resolve_rejects_bad_ids_status_and_missing_parts() -> None:
    tab = evidence_tab()
    assert (
        tab.resolve("R7", "done", cite="L2").text
        == "Not resolved: there is no requirement 'R7' (the tab holds R1)."
    )
    assert tab.resolve("R1", "done", cite="L9").text == (
        "Not resolved: there is no read-log entry 'L9' (the log holds L1–L3)."
    )
    assert tab.resolve("R1", "done").text == (
        "Not resolved: marking R1 done needs cite, the read-log entry (Lk) that supports it."
    )
    assert (
        tab.resolve("R1", "open").text == "Not resolved: status must be 'done' or 'unavailable', not 'open'."
    )
    assert tab.resolve("R1", "unavailable").text == "Not resolved: marking R1 unavailable needs a reason."
    assert (
        tab.resolve("R1", "unavailable", reason="   ").text
        == "Not resolved: marking R1 unavailable needs a reason."
    )
    assert Tab("t").resolve("R1", "done", cite="L1").text == (
        "Not resolved: there is no requirement 'R1' (the tab holds no requirements yet)."
    )
    assert tab.requirements[0].status == "open"


def test_resolve_unavailable_with_a_reason_and_resolved_stays_resolved() -> None:
    tab = evidence_tab()
    reply = tab.resolve("R1", "unavailable", reason=" no 2023 figures in the workspace ", step=7)
    assert (reply.ok, reply.text) == (True, "R1 unavailable: no 2023 figures in the workspace")
    r1 = tab.requirements[0]
    assert (r1.status, r1.reason, r1.cite, r1.step_resolved) == (
        "unavailable",
        "no 2023 figures in the workspace",
        None,
        7,
    )
    again = tab.resolve("R1", "done", cite="L2")
    assert (again.ok, again.text) == (
        False,
        "Not resolved: R1 unavailable already; a resolved requirement stays so.",
    )
    tab.add("revenue")
    tab.resolve("R2", "done", cite="L2")
    assert tab.resolve("R2", "unavailable", reason="x").text == (
        "Not resolved: R2 done (L2) already; a resolved requirement stays so."
    )


def test_without_evidence_check_any_existing_entry_is_accepted() -> None:
    tab = evidence_tab(TabConfig.ablation("no-evidence-check"))
    assert tab.resolve("R1", "done", cite="L9").text.startswith(
        "Not resolved: there is no read-log entry 'L9'"
    )
    assert tab.resolve("R1", "done", cite="L1").text == "R1 done, citing L1 (hr/staff_list.csv)."


# ---------------------------------------------------------------------------------------------------------
# L: the read log


def test_record_logs_each_read_as_shown_and_a_file_read_twice_twice() -> None:
    tab = Tab("task")
    new = tab.record(2, "sed -n 1,2p a/report.md", reads(("a/report.md", "line 1\nline 2")))
    assert [e.id for e in new] == ["L1"]
    tab.record(
        5, "cat a/report.md b.csv", reads(("a/report.md", "line 1\nline 2\nline 3"), ("b.csv", "x,y\n"))
    )
    assert [(e.id, e.step, e.path, e.command, e.excerpt) for e in tab.read_log] == [
        ("L1", 2, "a/report.md", "sed -n 1,2p a/report.md", "line 1\nline 2"),
        ("L2", 5, "a/report.md", "cat a/report.md b.csv", "line 1\nline 2\nline 3"),
        ("L3", 5, "b.csv", "cat a/report.md b.csv", "x,y\n"),
    ]
    assert tab.files_read == 2
    assert tab.record(6, "ls", listed("c.txt")) == ()


def test_show_gives_the_whole_excerpt_and_its_anchor() -> None:
    tab = Tab("task")
    tab.record(5, "cat b.csv", reads(("b.csv", "x,y\n1,2\n")))
    reply = tab.show(" l1")
    assert (reply.ok, reply.text) == (
        True,
        "L1 · step 5 · b.csv\ncommand: cat b.csv\nexcerpt (8 chars):\nx,y\n1,2\n",
    )
    assert tab.show("L2").text == "There is no read-log entry 'L2' (the log holds L1)."
    assert Tab("t").show("L1").text == "There is no read-log entry 'L1' (the log holds no entries yet)."


# ---------------------------------------------------------------------------------------------------------
# C: candidates


def test_candidates_are_listed_unread_unwritten_files_and_leave_c_when_read() -> None:
    tab = Tab("quarterly budget")
    tab.record(0, "ls", listed("budget.csv", "notes.txt", "out/report.md"))
    assert dict(tab.candidates) == {"budget.csv": 0, "notes.txt": 0, "out/report.md": 0}
    tab.record(1, "cat > out/report.md", Capture(reads=(), listed=(), written=("out/report.md",)))
    tab.record(2, "cat budget.csv", reads(("budget.csv", "q,amount")))
    assert dict(tab.candidates) == {"notes.txt": 0}
    # listed again after being read or written: never a candidate again; a new listing keeps the first step
    tab.record(3, "ls -R", listed("budget.csv", "out/report.md", "notes.txt", "extra.txt"))
    assert dict(tab.candidates) == {"notes.txt": 0, "extra.txt": 3}
    assert [c.path for c in tab.candidates_ranked()] == ["extra.txt", "notes.txt"]  # both 0: by path


def test_candidates_ranked_by_hand_computed_bm25_over_every_path_seen() -> None:
    tab = hand_tab()
    # The idf corpus is every path seen: the five read files and the three listed ones (N = 8).
    # Task "Summarise the quarterly budget" -> [summarise, quarterly, budget]. A file name's extension is no
    # term (rtlab.text.terms), so dl: each read path 1 (notes.txt -> [notes]), revenue_quarterly.csv 2,
    # revenue_notes.csv 2, budget.csv 1; avgdl = (5*1 + 2 + 2 + 1) / 8 = 1.25.
    avgdl = 10 / 8
    budget = idf(8, 1) * tf_part(1, 1, avgdl)  # ln 5 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 0.8)) = 1.76861
    quarterly = idf(8, 1) * tf_part(1, 2, avgdl)  # ln 5 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 1.6)) = 1.26727
    ranked = tab.candidates_ranked()
    assert [c.path for c in ranked] == ["budget.csv", "revenue_quarterly.csv", "revenue_notes.csv"]
    assert [c.score for c in ranked] == pytest.approx([budget, quarterly, 0.0], abs=1e-9)
    assert ranked[0] == Candidate("budget.csv", pytest.approx(1.7686130906), 1)
    # reading a candidate removes it and leaves the others' scores alone (the corpus did not change)
    tab.record(9, "cat budget.csv", reads(("budget.csv", "amount")))
    assert [(c.path, c.score) for c in tab.candidates_ranked()] == [
        ("revenue_quarterly.csv", pytest.approx(quarterly, abs=1e-9)),
        ("revenue_notes.csv", 0.0),
    ]


def test_paths_seen_after_a_ranking_join_the_corpus_of_the_next() -> None:
    # The path index is built when a ranking needs it: ranking in the middle of a run, then listing more,
    # must give what a tab that saw everything before ranking once gives (same scores, bit for bit)
    task = "Summarise the quarterly budget"
    first = ("budget.csv", "notes/quarterly.md", "misc/readme.txt")
    later = ("budget_2024.xlsx", "quarterly/budget_summary.csv")
    stepwise = Tab(task)
    stepwise.record(0, "ls", listed(*first))
    assert [c.path for c in stepwise.candidates_ranked()][0] == "budget.csv"
    stepwise.record(1, "cat misc/readme.txt", reads(("misc/readme.txt", "nothing")))
    stepwise.record(2, "ls", listed(*later))
    once = Tab(task)
    once.record(0, "ls", listed(*first))
    once.record(1, "cat misc/readme.txt", reads(("misc/readme.txt", "nothing")))
    once.record(2, "ls", listed(*later))
    assert stepwise.candidates_ranked() == once.candidates_ranked()
    assert len(stepwise.candidates_ranked()) == 4
    # and the review of a requirement (which reads the path postings) agrees too
    stepwise.add("the quarterly budget total")
    once.add("the quarterly budget total")
    assert stepwise.review() == once.review()


def test_a_pickled_tab_keeps_its_content_and_rebuilds_its_indexes() -> None:
    # What a worker process sends back: R, L, C and the last ranking and review, without the indexes (they are
    # rebuilt on demand), and a tab that goes on from there equals one that was never pickled
    import pickle

    live = hand_tab()
    live.add("the quarterly budget total")
    ranked, review = live.candidates_ranked(), live.review()
    sent = pickle.loads(pickle.dumps(live))
    assert sent._path_tokens == [] and sent._path_index == (-1, None)  # indexes left behind
    assert sent.candidates_ranked() == ranked and sent.review() == review
    for tab in (live, sent):
        tab.record(6, "ls", listed("quarterly_budget_2024.xlsx", "notes/budget.md"))
        tab.add("the budget owner")
    assert sent.candidates_ranked() == live.candidates_ranked()
    assert sent.review() == live.review()
    assert sent.evidence("R1", "L3") == live.evidence("R1", "L3")


# ---------------------------------------------------------------------------------------------------------
# The review


def hand_tab(config: TabConfig | None = None) -> Tab:
    """Five read entries of three terms each (path 1, its extension being no term, + excerpt 2) and three
    listed candidates."""
    tab = Tab("Summarise the quarterly budget", config)
    tab.record(0, "cat notes.txt", reads(("notes.txt", "revenue growth")))  # notes revenue growth
    tab.record(1, "ls", listed("revenue_quarterly.csv", "revenue_notes.csv", "budget.csv"))
    tab.record(2, "cat sales.txt", reads(("sales.txt", "revenue revenue")))  # sales revenue revenue
    tab.record(3, "cat total.txt", reads(("total.txt", "quarterly summary")))  # total quarterly summary
    tab.record(4, "cat staff.txt", reads(("staff.txt", "headcount list")))
    tab.record(5, "cat costs.txt", reads(("costs.txt", "office rent")))
    return tab


def test_review_orders_entries_and_candidates_by_hand_computed_bm25() -> None:
    tab = hand_tab()
    tab.add("quarterly revenue total")  # R1 -> [quarterly, revenue, total]
    tab.add("office rent")  # R2, resolved below: not in the review
    tab.add("parking permits")  # R3: shares no term with anything
    tab.resolve("R2", "done", cite="L5")
    review = tab.review()
    assert [item.requirement for item in review.items] == ["R1", "R3"]
    r1 = review.items[0]
    # Entries: N = 5, every dl = 3 = avgdl, so tf_part(1) = 1 and tf_part(2) = 2*2.5/3.5 = 1.428571.
    # revenue in L1, L2 (df 2): idf ln(3.5/2.5) = 0.336472; total, quarterly in L3 only: idf ln 3 = 1.098612.
    # L1 = 0.336472 * 1; L2 = 0.336472 * 1.428571 = 0.480675; L3 = 1.098612 + 1.098612 = 2.197225.
    # L4, L5 share no term: not shown.
    assert [(e.id, e.path, e.step) for e in r1.entries] == [
        ("L3", "total.txt", 3),
        ("L2", "sales.txt", 2),
        ("L1", "notes.txt", 0),
    ]
    assert [e.score for e in r1.entries] == pytest.approx(
        [2 * idf(5, 1), idf(5, 2) * tf_part(2, 3, 3), idf(5, 2)], abs=1e-9
    )
    assert [e.score for e in r1.entries] == pytest.approx(
        [2.1972245773, 0.4806746237, 0.3364722366], abs=1e-9
    )
    # Candidates (path corpus N = 8, avgdl 1.25, extensions being no terms): tf_part(1, dl 2) = 2.5/3.175 =
    # 0.787402; revenue_quarterly.csv = (ln 5 + ln 2.6) * 0.787402 = 2.019645; revenue_notes.csv = ln 2.6 *
    # 0.787402 = 0.752371; budget.csv shares no term; total.txt is read, not a candidate.
    assert [(c.path, c.step_listed) for c in r1.candidates] == [
        ("revenue_quarterly.csv", 1),
        ("revenue_notes.csv", 1),
    ]
    assert [c.score for c in r1.candidates] == pytest.approx(
        [(idf(8, 1) + idf(8, 2)) * tf_part(1, 2, 1.25), idf(8, 2) * tf_part(1, 2, 1.25)], abs=1e-9
    )
    assert review.items[1].entries == () and review.items[1].candidates == ()
    assert review.render() == "\n".join(
        [
            "[tab] review · 2 open",
            "R1 quarterly revenue total",
            "  L3 total.txt (step 3) — quarterly summary",
            "  L2 sales.txt (step 2) — revenue revenue",
            "  L1 notes.txt (step 0) — revenue growth",
            "  unopened: revenue_quarterly.csv · revenue_notes.csv",
            "R3 parking permits",
            "  no read-log entry shares a term with R3",
            "  no unopened candidate shares a term with R3",
            "resolved: R2 done (L5)",
            "tab_show Lk gives a whole excerpt; tab_resolve Rk done citing Lk, or unavailable with a reason.",
        ]
    )
    rows = review.records()
    assert [(r["requirement"], r["kind"], r["rank"], r["path"]) for r in rows] == [
        ("R1", "entry", 1, "total.txt"),
        ("R1", "entry", 2, "sales.txt"),
        ("R1", "entry", 3, "notes.txt"),
        ("R1", "candidate", 1, "revenue_quarterly.csv"),
        ("R1", "candidate", 2, "revenue_notes.csv"),
    ]


def test_review_sizes_are_configurable() -> None:
    tab = hand_tab(TabConfig(review_entries=2, review_candidates=1))
    tab.add("quarterly revenue total")
    item = tab.review().items[0]
    assert [e.id for e in item.entries] == ["L3", "L2"]
    assert [c.path for c in item.candidates] == ["revenue_quarterly.csv"]


def test_review_snippet_starts_near_the_first_shared_term() -> None:
    tab = Tab("t", TabConfig(snippet_chars=20))
    excerpt = "header line\n" + "filler " * 20 + "Revenue 2023:   42\n" + "tail " * 10
    tab.record(0, "cat r.txt", reads(("r.txt", excerpt)))
    tab.add("revenue 2023")
    # whitespace folded; the 20-char window starts width // 4 = 5 chars before "revenue", inside "filler",
    # and ends inside "42": both ends widen to whole words, so the value is not cut to "4"
    assert tab.review().items[0].entries[0].snippet == "…filler Revenue 2023: 42…"


def test_review_switched_off_lists_requirements_and_the_log_without_matching() -> None:
    tab = hand_tab(TabConfig.ablation("no-review"))
    tab.add("quarterly revenue total")
    tab.add("office rent")
    tab.resolve("R2", "done", cite="L5")
    review = tab.review()
    assert not review.enabled
    assert [(i.requirement, i.entries, i.candidates) for i in review.items] == [("R1", (), ())]
    assert review.render() == "\n".join(
        [
            "[tab] requirements (the review is switched off)",
            "R1 open: quarterly revenue total",
            "R2 done (L5): office rent",
            "read log: 5 entries:",
            "  L1 notes.txt (step 0)",
            "  L2 sales.txt (step 2)",
            "  L3 total.txt (step 3)",
            "  L4 staff.txt (step 4)",
            "  L5 costs.txt (step 5)",
        ]
    )


def test_review_of_an_empty_tab() -> None:
    assert Tab("t").review().render() == (
        "[tab] review · 0 open\nNo requirements yet: state what the task needs with tab_add."
    )


# ---------------------------------------------------------------------------------------------------------
# Status line and finish message


def test_status_line_format() -> None:
    tab = Tab("t")
    assert tab.status_line() == "[tab] 0 open · 0 read-log entries from 0 files · 0 candidates"
    tab.add("alpha")
    tab.record(0, "cat a.txt", reads(("a.txt", "alpha")))
    tab.record(1, "ls", listed("b.txt"))
    assert tab.status_line() == "[tab] 1 open (R1) · 1 read-log entry from 1 file · 1 candidate"
    for word in ["beta", "gamma", "delta"]:
        tab.add(word)
    tab.record(2, "cat a.txt", reads(("a.txt", "alpha")))
    tab.resolve("R2", "unavailable", reason="none")
    assert tab.status_line() == "[tab] 3 open (R1, R3, R4) · 2 read-log entries from 1 file · 1 candidate"
    small = Tab("t", TabConfig(status_ids=2))
    for word in ["one", "two", "three", "four", "five"]:
        small.add(word)
    assert (
        small.status_line()
        == "[tab] 5 open (R1, R2, +3 more) · 0 read-log entries from 0 files · 0 candidates"
    )


def test_finish_message_lists_open_requirements_or_is_none() -> None:
    tab = evidence_tab()
    tab.add("staff head count")
    assert tab.finish_message() == "\n".join(
        [
            "[tab] finish check: 2 requirements are still open.",
            "R1 total revenue 2023",
            "R2 staff head count",
            "Before finishing, see them beside what you read with tab_list, then tab_resolve each: done citing "
            "a read-log entry (Lk), or unavailable with a reason.",
        ]
    )
    tab.resolve("R1", "done", cite="L2")
    assert tab.finish_message().startswith(
        "[tab] finish check: 1 requirement is still open.\nR2 staff head count\n"
    )
    tab.resolve("R2", "done", cite="L1")
    assert tab.finish_message() is None
    assert Tab("t").finish_message() is None


# ---------------------------------------------------------------------------------------------------------
# Config and caches


def test_tab_config_ablations_switch_exactly_one_component() -> None:
    assert TabConfig.ablation("full") == TabConfig()
    switches = ("capture", "review", "evidence_check", "finish_check")
    for name in ABLATIONS[1:]:
        config = TabConfig.ablation(name)
        assert config.name == name
        assert [s for s in switches if not getattr(config, s)] == [name.removeprefix("no-").replace("-", "_")]
        assert (config.review_entries, config.review_candidates) == (3, 5)
    assert TabConfig().name == "full"
    assert TabConfig(review=False, capture=False).name == "no-capture+no-review"
    with pytest.raises(ValueError, match="unknown ablation 'no-tab'"):
        TabConfig.ablation("no-tab")
    with pytest.raises(ValueError, match="review_entries"):
        TabConfig(review_entries=-1)


class CountingBM25(tab_module.BM25):
    built = 0
    queries = 0

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        type(self).built += 1
        super().__init__(*args, **kwargs)

    def get_scores(self, query):  # type: ignore[no-untyped-def]
        type(self).queries += 1
        return super().get_scores(query)


def test_rankings_and_review_are_recomputed_only_when_the_tab_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    CountingBM25.built = CountingBM25.queries = 0
    monkeypatch.setattr(tab_module, "BM25", CountingBM25)
    tab = hand_tab()
    tab.add("quarterly revenue total")
    for _ in range(50):
        tab.status_line()  # never ranks anything
    assert CountingBM25.built == 0
    first = tab.candidates_ranked()
    assert (CountingBM25.built, CountingBM25.queries) == (1, 1)  # the path index, scored for the task
    assert tab.candidates_ranked() == first and (CountingBM25.built, CountingBM25.queries) == (1, 1)
    review = tab.review()
    assert CountingBM25.built == 2  # + the read-log index; the path index is reused
    assert CountingBM25.queries == 3  # R1 against the read log and against the paths
    assert tab.review() is review and (CountingBM25.built, CountingBM25.queries) == (2, 3)
    tab.record(6, "ls", listed("budget.csv"))  # a known candidate listed again: nothing changes
    assert tab.review() is review and CountingBM25.built == 2
    tab.record(7, "cat budget.csv", reads(("budget.csv", "amount")))  # C and L change, no new path
    assert [c.path for c in tab.candidates_ranked()] == ["revenue_quarterly.csv", "revenue_notes.csv"]
    assert (CountingBM25.built, CountingBM25.queries) == (2, 3)  # the task's scores are reused
    tab.review()
    assert CountingBM25.built == 3  # only the read-log index is rebuilt
    tab.record(8, "ls", listed("new_revenue.csv"))  # a new path: the path index is rebuilt once
    tab.candidates_ranked()
    tab.review()
    assert CountingBM25.built == 4


def test_same_inputs_give_the_same_tab() -> None:
    a, b = hand_tab(), hand_tab()
    for tab in (a, b):
        tab.add("quarterly revenue total")
    assert a.review() == b.review()
    assert a.to_dict() == b.to_dict()
    assert a.to_dict(excerpts=False)["read_log"][0] == {
        "id": "L1",
        "step": 0,
        "path": "notes.txt",
        "command": "cat notes.txt",
        "chars": 14,
    }


# ---------------------------------------------------------------------------------------------------------
# Replies read back (what the analyses of recorded runs see)


def test_every_reply_form_reads_back() -> None:
    """Every reply the tab renders, read back by read_reply, alone and with the status line appended."""

    def shown(review: Review) -> ReplyReading:  # what the review, as a structure, showed
        return ReplyReading(
            reviewed=frozenset(e.id for item in review.items for e in item.entries),
            offered=tuple(c.path for item in review.items for c in item.candidates),
            open_requirements=tuple(item.requirement for item in review.items),
            covered=frozenset(item.requirement for item in review.items if item.entries),
            review_form=True,
        )

    tab = Tab("total revenue 2023 and the staff list")
    nothing = ReplyReading()
    forms: list[tuple[str, str, ReplyReading]] = [
        ("tab_list", tab.review().render(), ReplyReading(review_form=True)),  # no requirements yet
        ("tab_list", Tab("x", TabConfig(review=False)).review().render(), nothing),
        ("tab_add", tab.add("  ").text, nothing),
        ("tab_add", tab.add("total revenue 2023", step=1).text, ReplyReading(added=True)),
        ("tab_add", tab.add("Total  REVENUE 2023").text, nothing),  # a duplicate
        ("tab_add", tab.add("staff list names", step=2).text, ReplyReading(added=True)),
        ("tab_add", tab.add("the weather").text, ReplyReading(added=True)),  # R3: matches nothing
    ]
    tab.record(3, "cat finance/revenue.csv", reads(("finance/revenue.csv", "year,amount\n2023,1.2M")))
    tab.record(4, "cat hr/staff_list.csv", reads(("hr/staff_list.csv", "name,role\nAna,engineer")))
    tab.record(5, "ls", listed("finance/revenue_2022.csv", "hr/staff_photos.zip", "misc/other.txt"))
    review = tab.review()
    assert len(shown(review).reviewed) == 2 and len(shown(review).offered) == 2
    # R1 (revenue.csv) and R2 (staff_list.csv) each beside an entry; R3 "the weather" beside none: 2 of 3
    assert shown(review).open_requirements == ("R1", "R2", "R3") and shown(review).covered == {"R1", "R2"}
    forms += [
        ("tab_list", review.render(), shown(review)),
        ("tab_show", tab.show("L1").text, nothing),
        ("tab_show", tab.show("L9").text, nothing),
        ("tab_resolve", tab.resolve("R1", "finished").text, nothing),
        ("tab_resolve", tab.resolve("R7", "done", cite="L1").text, nothing),
        ("tab_resolve", tab.resolve("R1", "done").text, nothing),
        ("tab_resolve", tab.resolve("R1", "done", cite="L9").text, nothing),
        ("tab_resolve", tab.resolve("R1", "done", cite="L2").text, nothing),  # refused by the evidence check
        ("tab_resolve", tab.resolve("R1", "done", cite="L1", step=6).text, ReplyReading(cited="L1")),
        ("tab_resolve", tab.resolve("R1", "done", cite="L1").text, nothing),  # already resolved
        ("tab_resolve", tab.resolve("R3", "unavailable").text, nothing),
        ("tab_resolve", tab.resolve("R3", "unavailable", reason="not in the files").text, nothing),
    ]
    later = tab.review()  # with a "resolved: ..." line
    assert "resolved: R1 done (L1)" in later.render()
    forms.append(("tab_list", later.render(), shown(later)))
    plain = Tab("total revenue 2023", TabConfig(review=False))
    plain.add("total revenue 2023")
    plain.record(1, "cat finance/revenue.csv", reads(("finance/revenue.csv", "2023,1.2M")))
    plain.record(2, "ls", listed("finance/revenue_2022.csv"))
    listing = plain.review().render()
    assert "  L1 finance/revenue.csv (step 1)" in listing  # shown, but beside no requirement
    forms.append(("tab_list", listing, ReplyReading(open_requirements=("R1",))))  # open, beside nothing
    forms.append(("tab_add", tab.finish_message() or "", nothing))  # no reply of any tool
    for tool, text, expected in forms:
        assert read_reply(tool, text) == expected, text
        assert read_reply(tool, with_status(text, tab.status_line())) == expected, text
    assert read_reply("tab_resolve", forms[3][1]) == nothing  # a reply is read as its own tool's
