"""The analyses: ``rtlab score``, ``values`` and ``diagnose``, each over runs or over a store
(``rtlab build``).

``diagnose`` is here, not with the annotation commands, although ``--annotator llm|FILE`` can label with LLM
annotators or a labels file: its output is the analysis of the failed rubric items (their labels, or lost
points by category per group), the rules by default."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from rtlab.cli._common import (
    EXIT_PARTIAL,
    _calls_status,
    _from_stores,
    _ingest,
    _json_safe,
    _llm_client,
    _nothing_read,
    _replayed,
)
from rtlab.cli._options import (
    annotator_options,
    bootstrap_options,
    by_option,
    command,
    input_options,
    jobs_option,
    json_option,
    level_option,
    llm_annotator_options,
    llm_options,
    sources_option,
)

if TYPE_CHECKING:
    from rtlab.environment import Replay

TITLE = "analyses"
"""The heading of these commands in ``rtlab --help``."""


def cmd_score(args: argparse.Namespace) -> int:
    from rtlab.analysis import aggregate, records, scores_frame
    from rtlab.ingest.benchmarks.officeqa_scorer import SCORER_VERSION
    from rtlab.ingest.benchmarks.workspace_bench import TCR_P

    by = [c.strip() for c in args.by.split(",") if c.strip()]
    stores = _from_stores(args)
    if stores is not None:  # the scores table: no trajectory read
        from types import SimpleNamespace

        from rtlab.store import concat_tables

        frame = concat_tables(stores, "scores")
        _nothing_read(args, len(frame))
        result = SimpleNamespace(
            failures=[
                SimpleNamespace(path=u, format="store", error=w)
                for st in stores
                for u, w in st.skipped.items()
            ]
        )
    else:
        result = _ingest(args)
        frame = scores_frame(result.trajectories)
    groups = aggregate(frame, by, n_boot=args.n_boot, seed=args.seed)
    if args.json:
        out = {
            "scorer_version": SCORER_VERSION,
            "by": by,
            "n_boot": args.n_boot,
            "seed": args.seed,
            "ci": 0.95,
            "tcr_p": TCR_P,
            "groups": records(groups),
            "failures": [{"path": f.path, "format": f.format, "error": f.error} for f in result.failures],
        }
        if args.trajectories:
            out["trajectories"] = records(frame)
        print(json.dumps(_json_safe(out), ensure_ascii=False, indent=1, allow_nan=False))
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", None, "display.width", 200, "display.max_columns", None):
            print(groups.to_string(index=False) if len(groups) else "no graded trajectories")
    return EXIT_PARTIAL if result.failures else 0


def cmd_values(args: argparse.Namespace) -> int:
    from rtlab.analysis import (
        anchor_rows,
        anchors_table,
        value_records,
        value_rows,
        value_summary,
        values_table,
    )

    stores = _from_stores(args)
    if stores is not None and args.anchors:
        print("rtlab values: a store holds the values table, not the anchors: give the runs", file=sys.stderr)
        return 2
    if stores is not None:  # the values table as built
        from rtlab.store import concat_tables

        frame, failed = concat_tables(stores, "values"), any(st.skipped for st in stores)
    else:
        rows, failed = _rows_per_run(args, anchor_rows if args.anchors else value_rows)
        frame = anchors_table(rows) if args.anchors else values_table(rows)
    if args.summary:
        print(json.dumps(_json_safe(value_summary(frame)), ensure_ascii=False, allow_nan=False))
    elif args.json:
        for row in value_records(frame):
            print(json.dumps(_json_safe(row), ensure_ascii=False, allow_nan=False))
    else:
        import pandas as pd

        cols = ["trajectory", "rubric_index", "passed", "value", "shown", "shown_step", "delivered", "held"]
        if args.anchors:
            cols[3:4] = ["kind", "value"]
            cols.insert(-1, "altered")
        empty = (
            "no anchors beyond values in these rubrics"
            if args.anchors
            else "no distinctive values in these rubrics"
        )
        with pd.option_context("display.max_rows", None, "display.width", 200):
            print(frame[cols].to_string(index=False) if len(frame) else empty)
        print(json.dumps(_json_safe(value_summary(frame)), ensure_ascii=False))
    return EXIT_PARTIAL if failed else 0


def _rows_per_run(
    args: argparse.Namespace, each: Callable[[Replay], list[dict[str, Any]]]
) -> tuple[list[dict[str, Any]], bool]:
    """``each(replay)``'s rows for every run under ``args.paths``, in order: each unit read, replayed (default
    tab) and turned into rows where it is (a worker with ``--jobs``); unreadable units reported, not fatal."""
    from rtlab.runner import ReplayOptions

    if args.clip is not None:
        from rtlab.ingest import get_policy

        get_policy(args.clip)  # an unknown name fails before any work
    rows: list[dict[str, Any]] = []
    failed = False
    options = ReplayOptions(
        format=args.format, clip=args.clip, join=not args.no_join, follow_links=args.follow_links
    )
    for done, failures in _replayed(args, options, each):
        failed = failed or bool(failures)
        for unit_rows in done:
            rows += unit_rows
    return rows, failed


def _diagnosis_by_annotator(args: argparse.Namespace) -> tuple[list[dict[str, Any]], bool, int]:
    """``rtlab diagnose``'s rows, from the annotator ``--annotator`` names: the rules (in worker processes
    with ``--jobs``), LLM annotators (the majority of their samples) or a labels FILE put on the rules' failed
    items; with the exit status calls that failed give (0 when none did)."""
    from rtlab.analysis import labels_frame
    from rtlab.annotation import annotator_diagnosis

    if args.annotator == "rules":
        return (*_rule_rows(args), 0)
    if args.annotator == "llm":
        from rtlab.annotation import annotate, annotator_grid
        from rtlab.llm import usage_summary

        if not args.model:
            raise _UsageError("--annotator llm needs --model (and an endpoint or --simulated)")
        result = _ingest(args)
        with contextlib.ExitStack() as stack:
            client = _llm_client(args, stack)
            run = annotate(
                result.trajectories,
                annotator_grid(args.model, args.prompt or ["p1"], args.samples),
                client,
                dry_run=args.dry_run,
                max_workers=args.concurrency,
                progress=args.progress,
            )
        if run.dry_run is not None:
            print(run.dry_run.describe())
            raise _Done()
        assert run.llm is not None
        print(f"rtlab: {json.dumps(_json_safe(usage_summary(run.llm.calls)))}", file=sys.stderr)
        frame = annotator_diagnosis(run.diagnosis, run.llm.labels, annotator="llm")
        status = _calls_status(run.llm.calls, result.failures)
        return frame.to_dict("records"), bool(result.failures), status
    from rtlab.annotation import read_annotator_labels

    labels = read_annotator_labels(args.annotator)
    rows, failed = _rule_rows(args)
    frame = annotator_diagnosis(labels_frame(rows), labels, annotator=args.name, missing="keep")
    unlabelled = frame["category"].isna()
    if unlabelled.any():
        print(
            f"rtlab: {int(unlabelled.sum())} of {len(frame)} failed items have no label in {args.annotator} "
            "(left out)",
            file=sys.stderr,
        )
    return frame[~unlabelled].to_dict("records"), failed, 0


def _rule_rows(args: argparse.Namespace) -> tuple[list[dict[str, Any]], bool]:
    """The rule labels' rows of the runs (worker processes with ``--jobs``) or of the stores given."""
    from rtlab.analysis import diagnosis_rows

    stores = _from_stores(args)
    if stores is not None:  # the rule labels as built
        from rtlab.store import concat_tables

        labels = concat_tables(stores, "labels")
        labels = labels[labels["annotator"] == "rules"].drop(columns="annotator")
        return labels.to_dict(orient="records"), any(st.skipped for st in stores)
    each = partial(diagnosis_rows, sources=args.sources) if getattr(args, "sources", None) else diagnosis_rows
    return _rows_per_run(args, each)  # only the label rows come back from a worker


class _UsageError(Exception):
    """A combination of options that cannot run (exit 2, the message on stderr)."""


class _Done(Exception):
    """The command has printed all it had to (a dry run): exit 0."""


def cmd_diagnose(args: argparse.Namespace) -> int:
    from rtlab.analysis import LABEL_FIELDS, breakdown, labels_frame

    try:
        rows, failed, status = _diagnosis_by_annotator(args)
    except _UsageError as exc:
        print(f"rtlab diagnose: {exc}", file=sys.stderr)
        return 2
    except _Done:
        return 0
    if status:
        failed = True
    if args.breakdown:
        by = [c.strip() for c in args.by.split(",") if c.strip()]
        table = breakdown(labels_frame(rows), by, level=args.level)
        if args.json:
            for row in table.to_dict(orient="records"):
                print(json.dumps(_json_safe(row), ensure_ascii=False, default=str))
        else:
            print(table.to_string(index=False) if len(table) else "no failed rubric items")
        return status or (EXIT_PARTIAL if failed else 0)
    for row in rows:
        if args.json:
            label = {k: row[k] for k in LABEL_FIELDS}
            if args.annotator != "rules":
                label["annotator"] = row["annotator"]
            print(json.dumps(_json_safe(label), ensure_ascii=False, default=str))
        else:
            where = row["evidence"][0] if row["evidence"] else {}
            cite = f"  [{where.get('path')} step {where.get('step')}]" if where else ""
            kind = row["category"] + (f"/{row['subreason']}" if row["subreason"] else "")
            print(f"{row['trajectory']} #{row['rubric_index']}: {kind}{cite}\n    {row['rationale']}")
    if not args.json:
        print(f"{len(rows)} failed rubric items labelled")
    return status or (EXIT_PARTIAL if failed else 0)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the family's commands to ``sub``, the parser's subcommands."""
    p = command(
        sub,
        "score",
        cmd_score,
        help="the benchmarks' own metrics per group, with bootstrap 95%% CIs over tasks",
        description="Workspace-Bench pass rate and TCR@70, TheAgentCompany Success and Score, OfficeQA Acc@0%% and "
        "Acc@1%% (official scorer), averaged over runs, per group.",
    )
    input_options(p)
    by_option(p, default="benchmark,model,method,variant", help="grouping columns (comma-separated)")
    bootstrap_options(p, over="tasks")
    json_option(p, "print one JSON object")
    p.add_argument("--trajectories", action="store_true", help="with --json, also each trajectory's inputs")

    p = command(
        sub,
        "values",
        cmd_values,
        help="numeric values the rubrics expect: shown, delivered, held by the tab",
        description="One row per (trajectory, rubric item, distinctive value): was it shown to the model, is it "
        "in the deliverable, does the tab's read log hold it after replay.",
    )
    input_options(p)
    json_option(p, "one JSON object per row")
    p.add_argument("--summary", action="store_true", help="only the summary shares, as one JSON object")
    p.add_argument(
        "--anchors",
        action="store_true",
        help="the anchors beyond numbers instead (IDs and codes, dates, amounts, quantities, names: codebook 2), "
        "with the same shown / delivered / held test and the deliverable's near miss (altered)",
    )
    jobs_option(p)

    p = command(
        sub,
        "diagnose",
        cmd_diagnose,
        help="label each failed rubric item (shown but missing, dropped or distorted, discovery, other)",
        description="Deterministic failure labels from the evidence (read log, values shown and delivered, the "
        "task's source files, the judge's evidence), following the codebook shipped with rtlab.",
    )
    input_options(p)
    json_option(p, "one JSON object per failed rubric item")
    p.add_argument(
        "--breakdown", action="store_true", help="lost rubric points by category per group instead"
    )
    by_option(p, default="method", help="grouping for --breakdown (comma-separated; '' for overall)")
    level_option(p)
    sources_option(p)
    jobs_option(p)
    annotator_options(
        p,
        annotator_help="who labels: the rules (default), LLM annotators (--model; the majority of --samples), or a "
        "labels FILE (long form as rtlab annotate writes it, a human label file, or a gold file)",
        name_help="with a labels FILE: its annotator (a prefix such as llm: the majority of its samples)",
    )
    llm_annotator_options(p)
    llm_options(p, jobs_alias=False)
