"""Annotation and agreement: ``rtlab annotate``, ``agree``, ``recover`` and ``judge``, the commands that ask
annotators (the rules, LLMs through any OpenAI-compatible endpoint, people's label files) and compare them.

``judge`` is here rather than with the reading commands, although the judge files it writes are read back by
every command: it asks a model one question per run (its rubric), with the same endpoint, cache, retry and
cost options and the same exit statuses as the annotators. ``recover`` (masked recovery) asks LLM annotators
too."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from rtlab.cli._common import (
    _EXAMPLES,
    COUNT,
    EXIT_CALLS_FAILED,
    EXIT_PARTIAL,
    NON_NEGATIVE,
    _calls_status,
    _ingest,
    _json_safe,
    _llm_client,
)
from rtlab.cli._options import (
    GROUPINGS,
    annotator_options,
    bootstrap_options,
    command,
    input_options,
    json_option,
    level_option,
    limit_options,
    llm_annotator_options,
    llm_options,
    output_option,
    sources_option,
)

TITLE = "annotation and agreement"
"""The heading of these commands in ``rtlab --help``."""


def cmd_annotate(args: argparse.Namespace) -> int:
    from rtlab.annotation import annotate, annotator_grid
    from rtlab.io import atomic_open
    from rtlab.llm import usage_summary

    result = _ingest(args)
    annotators = annotator_grid(args.model, args.prompt or ["p1"], args.samples)
    with contextlib.ExitStack() as stack:
        client = _llm_client(args, stack) if args.model else None  # the rules alone need no endpoint
        run = annotate(
            result.trajectories,
            annotators,
            client,
            dry_run=args.dry_run,
            max_workers=args.concurrency,
            progress=args.progress,
            batch=args.batch,
            batch_dir=args.batch_dir,
            batch_poll=args.batch_poll,
        )
    if run.dry_run is not None:
        print(run.dry_run.describe())
        return 0
    if run.batch is not None:
        print(f"rtlab: {run.batch.describe()}", file=sys.stderr)
        for failure in run.batch.failures[:_EXAMPLES]:
            print(f"  {failure.key[:12]}: {failure.error}", file=sys.stderr)
    if run.llm is not None:
        print(f"rtlab: {json.dumps(_json_safe(usage_summary(run.llm.calls)))}", file=sys.stderr)
    labels = run.labels
    with atomic_open(args.output, private=True) as fh:
        labels.to_csv(fh, index=False)
    print(f"wrote {len(labels)} labels to {args.output}", file=sys.stderr)
    return _calls_status(run.llm.calls if run.llm is not None else [], result.failures)


def cmd_agree(args: argparse.Namespace) -> int:
    if args.gold is not None:
        return _agree_with_gold(args)
    if args.by is not None:
        print("rtlab agree: --by needs --gold GOLD.csv", file=sys.stderr)
        return 2
    from rtlab.annotation import NON_LABELS, agreement_report, check_labels, load_labels

    if len(args.paths) != 1:
        print("rtlab agree: give one LABELS file (or --gold GOLD.csv with --annotator)", file=sys.stderr)
        return 2
    frame = load_labels(args.paths[0])
    dropped = frame["label"].isin(NON_LABELS)
    if dropped.any():
        # unparsable / refused / failed calls are no labels: counted as missing, never as a category
        print(
            f"rtlab: {int(dropped.sum())} non-labels ({', '.join(NON_LABELS)}) counted as missing",
            file=sys.stderr,
        )
        frame = check_labels(frame[~dropped])
    report = agreement_report(frame, reference=args.reference, n_boot=args.n_boot, seed=args.seed)
    if args.json:
        print(json.dumps(_json_safe(report), ensure_ascii=False, indent=2, allow_nan=False))
        return 0
    print(f"{report['n_items']} items, {report['n_annotators']} annotators, {report['n_labels']} labels")
    print(f"Krippendorff's alpha {report['krippendorff_alpha']:.3f}  CI {report['krippendorff_alpha_ci']}")
    print(f"percent agreement   {report['percent_agreement']:.3f}  CI {report['percent_agreement_ci']}")
    for pair, kappa in report["cohen_kappa"].items():
        print(f"Cohen's kappa {pair:<30} {kappa:.3f}  CI {report['cohen_kappa_ci'][pair]}")
    return 0


def _agree_with_gold(args: argparse.Namespace) -> int:
    """``rtlab agree --gold GOLD.csv --annotator rules|llm|FILE [PATH ...]``: one annotator against gold."""
    from rtlab.annotation import agree_with_gold, annotate, annotator_grid, read_gold_labels

    gold = read_gold_labels(args.gold)
    failed = False
    name = args.name
    if args.annotator in ("rules", "llm"):
        if not args.paths:
            print(f"rtlab agree: --annotator {args.annotator} needs the runs' PATHs", file=sys.stderr)
            return 2
        if args.annotator == "llm" and not args.model:
            print(
                "rtlab agree: --annotator llm needs --model (and an endpoint or --simulated)", file=sys.stderr
            )
            return 2
        result = _ingest(args)
        failed = bool(result.failures)
        with contextlib.ExitStack() as stack:
            client = _llm_client(args, stack) if args.annotator == "llm" else None
            annotators = annotator_grid(args.model, args.prompt or ["p1"], args.samples) if client else []
            run = annotate(
                result.trajectories,
                annotators,
                client,
                max_workers=args.concurrency,
                progress=args.progress,
                sources=args.sources,
            )
        labels = run.labels
        if run.llm is not None:
            from rtlab.llm import usage_summary

            print(f"rtlab: {json.dumps(_json_safe(usage_summary(run.llm.calls)))}", file=sys.stderr)
        name = name or args.annotator
    else:
        from rtlab.annotation import read_annotator_labels

        labels = read_annotator_labels(args.annotator)
    report = agree_with_gold(
        gold, labels, annotator=name, level=args.level, n_boot=args.n_boot, seed=args.seed, by=args.by
    )
    if args.json:
        print(json.dumps(_json_safe(report.to_dict()), ensure_ascii=False, indent=2, allow_nan=False))
    else:
        print(report.describe())
    return EXIT_PARTIAL if failed else 0


def cmd_recover(args: argparse.Namespace) -> int:
    from rtlab.annotation import (
        CONDITIONS,
        RECOVERY_CONTEXT_CHARS,
        first_recovery_requests,
        recover,
        recovery_annotators,
        recovery_figures,
        recovery_items,
    )
    from rtlab.llm import usage_summary

    result = _ingest(args)
    items = recovery_items(result.trajectories, sample=args.sample)
    annotators = recovery_annotators(args.model, samples=args.samples)
    context = args.context_chars or RECOVERY_CONTEXT_CHARS
    with contextlib.ExitStack() as stack:
        client = _llm_client(args, stack)
        if args.dry_run:
            requests = first_recovery_requests(items, annotators, CONDITIONS, context_chars=context)
            print(client.dry_run(requests).describe())
            return 0
        run = recover(
            items,
            annotators,
            client,
            context_chars=context,
            max_workers=args.concurrency,
            progress=args.progress,
        )
    if args.json:
        for row in run.frame.to_dict(orient="records"):
            print(json.dumps(_json_safe(row), ensure_ascii=False, default=str))
    out = {"figures": recovery_figures(run.frame), "usage": usage_summary(run.calls)}
    print(
        json.dumps(_json_safe(out), ensure_ascii=False, default=str),
        file=sys.stderr if args.json else sys.stdout,
    )
    return _calls_status(run.calls, result.failures)


def cmd_judge(args: argparse.Namespace) -> int:
    from rtlab.judge import JudgeLimits, judge_runs
    from rtlab.llm import usage_summary

    result = _ingest(args)
    limits = JudgeLimits(args.max_str_len, args.max_trace_items, args.max_output_files)
    tasks = None
    if args.tasks:
        from rtlab.ingest.benchmarks.workspace_bench import load_tasks

        tasks = load_tasks(args.tasks)
    with contextlib.ExitStack() as stack:
        client = _llm_client(args, stack) if args.model else None  # OfficeQA runs alone need no endpoint
        report = judge_runs(
            result.trajectories,
            client,
            model=args.model,
            judge_name=args.judge_name,
            limits=limits,
            response_format=args.response_format,
            force=args.force,
            strict=args.strict,
            dry_run=args.dry_run,
            max_fixes=args.max_fixes,
            max_workers=args.concurrency,
            progress=args.progress,
            tasks=tasks,
        )
    if report.dry_run is not None or args.dry_run:
        print(report.dry_run.describe() if report.dry_run is not None else "no judge calls to make")
        return 0
    if args.json:
        for row in report.to_records():
            print(json.dumps(row, ensure_ascii=False))
    for o in report.outcomes:
        if o.status == "written":
            line = f"wrote {o.path}: {o.n_passed}/{o.n_items} passed"
        elif o.status == "exists":
            line = f"kept {o.path} (it exists; --force replaces it)"
        else:
            line = f"{o.status.replace('_', ' ')} {o.source_path} [{o.trajectory}]: {o.error}"
        print(f"rtlab judge: {line}", file=sys.stderr)
    counts = {s: report.count(s) for s in ("written", "exists", "failed", "not_judged")}
    usage = usage_summary(report.calls)
    print(f"rtlab: {json.dumps(_json_safe({**counts, 'usage': usage}))}", file=sys.stderr)
    if report.count("failed"):
        return (
            EXIT_CALLS_FAILED
            if any(o.calls for o in report.outcomes if o.status == "failed")
            else EXIT_PARTIAL
        )
    return EXIT_PARTIAL if result.failures else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the family's commands to ``sub``, the parser's subcommands."""
    p = command(
        sub,
        "annotate",
        cmd_annotate,
        help="label failed rubric items with the rule-based labeler and LLM annotators",
        description="Writes long-form labels (item, annotator, label, ...) to CSV: the rule-based labeler always, "
        "plus one LLM annotator per model x prompt version x sample through any OpenAI-compatible endpoint "
        "(cached on disk; a rerun makes no requests).",
    )
    input_options(p)
    output_option(p, metavar="LABELS.csv", help="written atomically, owner-only")
    llm_annotator_options(
        p, model_help="an LLM to annotate with (repeatable)", samples_help="samples per model and prompt"
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="send the requests through the OpenAI Batch API (/v1/files, /v1/batches) into the cache first; "
        "an interrupted run resumes polling the same batch",
    )
    p.add_argument("--batch-dir", metavar="DIR", help="batch state files (default: CACHE_DIR/batches)")
    limit_options(p, ("--batch-poll", float, None, "S", "seconds before the first poll (default 10)"))
    llm_options(p)

    p = command(
        sub,
        "agree",
        cmd_agree,
        help="agreement between annotators, or of one annotator (rules, LLM, a file) against gold labels",
        description="Without --gold: Krippendorff's alpha, Cohen's kappa and percent agreement of the annotators "
        "of one LABELS file. With --gold GOLD.csv (GOLD_LABELS.md's format): Cohen's kappa with a bootstrap "
        "interval over all items and over the clear ones, per-category precision / recall / F1, the confusion "
        "matrix and every disagreeing item with both labels' evidence, of --annotator rules (the rule labels "
        "of the runs at PATH), llm (LLM annotators over them, the majority of their samples) or FILE (a "
        "long-form labels file); --by task|run|rule adds kappa, agreement and counts per group, and labels "
        "that name their rule (the rules') add each rule's decided items and precision.",
    )
    input_options(
        p,
        nargs="*",
        paths_help="LABELS (CSV or Parquet: item, annotator, label); with --gold and --annotator rules|llm, "
        "the runs to label",
    )
    p.add_argument("--reference", help="annotator to score the others against (precision, recall, F1, kappa)")
    p.add_argument("--gold", metavar="GOLD.csv", help="careful human labels to score one annotator against")
    sources_option(p)
    annotator_options(
        p,
        annotator_help="with --gold: who labels (default rules)",
        name_help="with --gold: the annotator of the labels to score (a prefix such as llm stands for all its "
        "samples, reduced to their majority); default: the only one, or rules / llm",
    )
    level_option(p)
    p.add_argument(
        "--by",
        choices=GROUPINGS,
        help="with --gold: kappa, agreement and n per task (Workspace-Bench task, OfficeQA question), per run "
        "or per deciding rule; a group whose kappa is undefined (one class on both sides) says so",
    )
    llm_annotator_options(p)
    llm_options(p)
    bootstrap_options(p, over="items")
    json_option(p, "print one JSON object")

    p = command(
        sub,
        "recover",
        cmd_recover,
        help="masked recovery: can the LLM find a held value without the tab, from the review, from the read log",
    )
    input_options(p)
    p.add_argument("--model", action="append", required=True, help="the LLM to ask (repeatable)")
    p.add_argument("--samples", type=COUNT, default=1, help="samples per model")
    p.add_argument(
        "--sample",
        choices=("paper", "held"),
        default="paper",
        help="paper: held values of failed items, shown and not delivered (default); held: every held value",
    )
    p.add_argument(
        "--context-chars",
        type=COUNT,
        default=None,
        metavar="N",
        help="longest prompt sent, in characters (longer ones are reported over_context); default ~272K tokens",
    )
    json_option(p, "one JSON object per (value, condition, model) row")
    llm_options(p)

    p = command(
        sub,
        "judge",
        cmd_judge,
        help="judge each run's rubric (Workspace-Bench protocol, any OpenAI-compatible model; OfficeQA by its "
        "official scorer) and write its judge file beside it",
        description="For each Workspace-Bench run, one request in Workspace-Bench's judge protocol (the task, the "
        "delivered files' text, the tool calls as evaluators read them, the rubric; per item passed, evidence, "
        "confidence), cached on disk, and rubrics_judge--NAME.json written beside the run's metadata.json; for "
        "each OfficeQA run, the official scorer's verdict as assessment_r<round>.json (no model). rtlab score and "
        "rtlab diagnose read the files unchanged. Existing judge files are kept unless --force. A run that "
        f"cannot be judged is reported and the others go on (exit {EXIT_PARTIAL}; {EXIT_CALLS_FAILED} when a "
        "judge call or answer failed) unless --strict.",
    )
    input_options(p)
    p.add_argument("--model", help="the judge model (needed for Workspace-Bench runs)")
    p.add_argument(
        "--judge-name", metavar="NAME", help="the judge's name in file names (default: the model's name)"
    )
    p.add_argument("--force", action="store_true", help="replace judge files that exist")
    p.add_argument(
        "--tasks",
        metavar="CSV",
        help="Workspace-Bench-Lite's task table: the task of a run with no metadata.json beside it, by its "
        "task id (its metadata.json is written beside the judge file)",
    )
    p.add_argument(
        "--response-format",
        choices=("none", "json_object", "json_schema", "json_object_schema"),
        default="none",
        help="ask for the answer's form: nothing (the protocol's default), a JSON object, its JSON schema "
        "(OpenAI's json_schema), or the run's exact answer schema as llama.cpp's server takes it "
        "(json_object with a schema)",
    )
    p.add_argument(
        "--max-fixes",
        type=NON_NEGATIVE,
        default=2,
        metavar="N",
        help="corrective requests after an invalid answer",
    )
    limit_options(  # what the judge is shown of a run
        p,
        (
            "--max-str-len",
            int,
            2000,
            "N",
            "characters kept of each file excerpt, command and output (default 2000, the protocol's)",
        ),
        ("--max-trace-items", int, 30, "N", "tool calls shown (default 30)"),
        ("--max-output-files", int, 10, "N", "delivered files shown (default 10)"),
    )
    json_option(p, "one JSON object per run on stdout")
    llm_options(p)
