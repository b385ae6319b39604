"""BM25 speed and fidelity: rtlab.text._bm25.BM25 against rank_bm25.BM25Okapi and bm25s on synthetic workspace paths.

    python bench/bm25.py [--sizes 300 3000 30000] [--queries 20] [--seed 0]

Corpora are deterministic synthetic paths (a seeded RNG draws folders, Zipf-weighted file-name words, CJK
folders and stems, versions, dates and extensions, shaped after Workspace-Bench listings; over half of them start
``desktop/`` as in a real workspace), tokenised with ``rtlab.text._tokens.tokenize``; queries are 20 task texts of the
Workspace-Bench kind, tokenised the same way. Times are best of N: build = constructing the index from the
tokenised corpus; query = one ``get_scores`` call, averaged over the queries.

bm25s runs with ``method="atire"`` (tf part ``tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))``, as rank_bm25),
``idf_method="robertson"`` (``log((N - n + 0.5) / (n + 0.5))``, as rank_bm25, but clipped at 0 where rank_bm25
puts ``epsilon * mean idf``) and ``dtype="float64"``: the variant closest to Okapi. Its scores match rank_bm25's
only for queries without a term in more than half the documents; the table says how many did.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best  # noqa: E402
from rank_bm25 import BM25Okapi  # noqa: E402

from rtlab.text import BM25, tokenize  # noqa: E402

try:
    import bm25s
except ImportError:  # optional: pip install -e .[bench]
    bm25s = None

TOP = [
    "desktop",
    "Desktop",
    "Documents",
    "Downloads",
    "chanpin",
    "by-topic",
    "user_research",
    "finance_and_admin",
]
TOP_WEIGHTS = [60, 8, 6, 5, 8, 6, 4, 3]
FOLDERS = (
    "financial-data medical-data hr_records Purchase_Orders Images meeting_minutes contracts release_notes "
    "requirements_and_design data_review_and_feedback growth_and_monetization quality_assurance_and_testing "
    "risk_management content_risk_control design_guidelines platform_and_open_capabilities summary archive "
    "Q1 Q2 Q3 Q4 2023 2024 2025 drafts final shared templates vendor_management marketing sales_reports"
).split()
CJK_FOLDERS = "测试周期 测试管理组 问题编号 美国 品牌C Java后端组 数据要素 财务报表 人力资源 会议纪要 项目管理 市场部".split()
WORDS = (
    "report analysis budget review expense revenue quarterly monthly annual summary plan table list data store "
    "flagship income expenditure reconciliation product feature usage monitoring dashboard requirements "
    "resolution tracker privacy policy enterprise appendix customer research competitor comparison matrix "
    "staff salary structure hospital grade distribution statistics bed allocation department dynamic "
    "assessment security compliance checklist incident retrospective sync delay platform governance "
    "release schedule overview channel traffic quality growth experiment execution vendor contract "
    "partner agreement employee birthday greeting card event notice poster invoice purchase order meeting "
    "minutes project proposal risk control violation content guide component library test defect escape rate "
    "okr metric system design brand visual asset kpi roadmap sprint backlog onboarding training survey results "
    "pricing forecast inventory shipment logistics procurement audit tax payroll headcount"
).split()
CJK_STEMS = (
    "季度预算报告 员工名单 财务分析 会议记录 项目计划书 市场调研 合同草案 销售数据 用户反馈 年度总结".split()
)
EXTS = ["xlsx", "pdf", "docx", "md", "csv", "pptx", "txt", "json", "png", "xls"]
EXT_WEIGHTS = [30, 20, 15, 10, 8, 5, 5, 3, 3, 1]
QUERIES = [
    "Summarise the quarterly budget review for the finance department and list every expense above plan.",
    "Using the medical data, count the distribution of tertiary, secondary, and primary hospitals across regions.",
    "Incorporate the bed allocation data from 2023 and generate public-hospital-grade-distribution-statistics.xlsx.",
    "Compile the flagship store monthly income and expenditure reconciliation into one table.",
    "Which vendor contracts expire in 2025? Check the partner agreements and the vendor management policy.",
    "Draft a project proposal from the meeting minutes and the previous contract.",
    "Build a hiring summary from the resumes and interview notes in the HR records.",
    "Compare competitor features using the product feature comparison matrix and the user research report.",
    "List all defects from the Q1 test report and compute the defect escape rate.",
    "Prepare the annual OKR metric summary with the KPI roadmap for 2025.",
    "Create a salary structure overview for flagship store staff including payroll and headcount.",
    "Find the privacy policy enterprise appendix and summarise the security compliance checklist.",
    "根据季度预算报告和财务分析，整理2024年的销售数据。",
    "汇总会议记录中的项目计划书要点，并生成年度总结。",
    "Review the release schedule overview and the release notes for version v2.1.",
    "Check the channel traffic quality analysis report and the growth experiment tracker.",
    "Summarise the risk control violation content guide and the risk tracking records.",
    "Collect every invoice and purchase order from Downloads and reconcile them with the budget.",
    "Prepare the employee birthday greeting card and the event notice poster for March.",
    "Desktop files: which reports on the desktop mention inventory, shipment or logistics forecasts?",
]


def zipf_weights(n: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(n)]


def make_paths(n: int, seed: int) -> list[str]:
    """``n`` deterministic workspace-like relative paths."""
    rng = random.Random(seed)
    word_w = zipf_weights(len(WORDS))
    folder_w = zipf_weights(len(FOLDERS))
    paths = []
    for i in range(n):
        parts = [rng.choices(TOP, TOP_WEIGHTS)[0]]
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
            parts.append(
                rng.choice(CJK_FOLDERS) if rng.random() < 0.12 else rng.choices(FOLDERS, folder_w)[0]
            )
        if rng.random() < 0.08:
            stem = rng.choice(CJK_STEMS)
        else:
            words = rng.choices(WORDS, word_w, k=rng.randint(2, 6))
            style = rng.random()
            if style < 0.6:
                stem = "_".join(words)
            elif style < 0.85:
                stem = "-".join(words)
            else:
                stem = words[0] + "".join(w.capitalize() for w in words[1:])
        extra = rng.random()
        if extra < 0.15:
            stem += f"_v{rng.randint(1, 5)}_{rng.randint(0, 9)}"
        elif extra < 0.30:
            stem += f"_{rng.randint(2019, 2025)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
        elif extra < 0.40:
            stem += f"_{rng.randint(2023, 2025)}q{rng.randint(1, 4)}"
        elif extra < 0.50:
            stem = f"{rng.randint(1, 9)}-{stem}"
        elif extra < 0.60:
            stem += f"_{i % 997}"
        parts.append(f"{stem}.{rng.choices(EXTS, EXT_WEIGHTS)[0]}")
        paths.append("/".join(parts))
    return paths


def per_query(fn: Callable[[list[str]], object], queries: list[list[str]], repeat: int) -> float:
    """Mean over queries of the best-of-``repeat`` time of one scoring call, in seconds."""
    return sum(best(lambda q=q: fn(q), repeat) for q in queries) / len(queries)


def build_bm25s(corpus: list[list[str]]) -> object:
    retriever = bm25s.BM25(method="atire", idf_method="robertson", dtype="float64", k1=1.5, b=0.75)
    retriever.index(corpus, show_progress=False)
    return retriever


def run(size: int, queries: list[list[str]], seed: int) -> dict[str, float]:
    paths = make_paths(size, seed)
    tok_time = best(lambda: [tokenize(p) for p in paths], 3)
    corpus = [tokenize(p) for p in paths]
    big = size >= 10_000
    row: dict[str, float] = {"size": size, "tokenize": tok_time, "tokens": sum(map(len, corpus)) / size}
    row["build_rank"] = best(lambda: BM25Okapi(corpus), 3)
    row["build_rtlab"] = best(lambda: BM25(corpus), 5)
    ref, ours = BM25Okapi(corpus), BM25(corpus)
    row["query_rank"] = per_query(ref.get_scores, queries, 2 if big else 5)
    row["query_rtlab"] = per_query(ours.get_scores, queries, 30)
    diffs = [float(np.max(np.abs(ref.get_scores(q) - ours.get_scores(q)))) for q in queries]
    row["maxdiff_rtlab"] = max(diffs)
    row["exact_rtlab"] = sum(np.array_equal(ref.get_scores(q), ours.get_scores(q)) for q in queries)
    if bm25s is not None:
        row["build_bm25s"] = best(lambda: build_bm25s(corpus), 2 if big else 3)
        other = build_bm25s(corpus)
        row["query_bm25s"] = per_query(other.get_scores, queries, 30)
        close = [np.allclose(other.get_scores(q), ref.get_scores(q), rtol=0, atol=1e-9) for q in queries]
        row["match_bm25s"] = sum(close)
        row["maxdiff_bm25s"] = max(
            float(np.max(np.abs(other.get_scores(q) - ref.get_scores(q)))) for q in queries
        )
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[300, 3_000, 30_000])
    ap.add_argument("--queries", type=int, default=len(QUERIES))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    queries = [tokenize(q) for q in QUERIES[: args.queries]]
    started = time.perf_counter()
    rows = [run(size, queries, args.seed) for size in args.sizes]

    ms, us = 1e3, 1e6
    print(
        f"rtlab BM25 benchmark: {len(queries)} queries (mean {np.mean([len(q) for q in queries]):.1f} tokens)"
    )
    print(
        "times: build in ms (best of N); query = one get_scores call in µs (mean over queries of best of N)"
    )
    print("bm25s: method=atire, idf_method=robertson, dtype=float64" if bm25s else "bm25s: not installed")
    print()
    print(
        "| paths | tok/path | tokenize ms | build rank_bm25 | build bm25s | build rtlab | rtlab/rank build "
        "| query rank_bm25 | query bm25s | query rtlab | rank/rtlab query | rtlab/bm25s query |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        b_s = f"{r['build_bm25s'] * ms:.1f}" if "build_bm25s" in r else "-"
        q_s = f"{r['query_bm25s'] * us:.1f}" if "query_bm25s" in r else "-"
        vs_s = f"{r['query_rtlab'] / r['query_bm25s']:.2f}x" if "query_bm25s" in r else "-"
        print(
            f"| {r['size']:,} | {r['tokens']:.1f} | {r['tokenize'] * ms:.1f} | {r['build_rank'] * ms:.1f} | {b_s} "
            f"| {r['build_rtlab'] * ms:.1f} | {r['build_rtlab'] / r['build_rank']:.2f}x "
            f"| {r['query_rank'] * us:.1f} | {q_s} | {r['query_rtlab'] * us:.1f} "
            f"| {r['query_rank'] / r['query_rtlab']:.1f}x | {vs_s} |"
        )
    print()
    for r in rows:
        line = (
            f"{r['size']:>6,} paths: rtlab vs rank_bm25 max |diff| = {r['maxdiff_rtlab']:.3g} "
            f"({r['exact_rtlab']}/{len(queries)} queries bit-identical)"
        )
        if "match_bm25s" in r:
            line += (
                f"; bm25s vs rank_bm25 max |diff| = {r['maxdiff_bm25s']:.3g} "
                f"({r['match_bm25s']}/{len(queries)} queries within 1e-9)"
            )
        print(line)
    last = rows[-1]
    print()
    print(f"goals at {last['size']:,} paths:")
    goals = [
        ("scores equal rank_bm25 to 1e-9", all(r["maxdiff_rtlab"] <= 1e-9 for r in rows)),
        ("scoring >= 40x faster than rank_bm25", last["query_rank"] / last["query_rtlab"] >= 40),
        ("building no slower than rank_bm25", last["build_rtlab"] <= last["build_rank"]),
    ]
    if "query_bm25s" in last:
        goals.append(("scoring within 2x of bm25s", last["query_rtlab"] <= 2 * last["query_bm25s"]))
    for name, ok in goals:
        print(f"  {'met   ' if ok else 'MISSED'} {name}")
    print(f"\ntotal {time.perf_counter() - started:.1f} s")
    assert goals[0][1], "rtlab BM25 scores differ from rank_bm25 by more than 1e-9"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
