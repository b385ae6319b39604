"""The ``rtlab`` command line: batch work over trajectories."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rtlab.environment import Replay
    from rtlab.llm import LLMClient

EXIT_PARTIAL = 3
"""Exit status when some units failed to read but the rest were processed (without ``--strict``)."""
EXIT_NOTHING = 4
"""Exit status when the paths given held no trajectory that could be read."""
EXIT_CALLS_FAILED = 5
"""Exit status when some model calls failed after every attempt (their items are labelled ``failed``); it
takes precedence over :data:`EXIT_PARTIAL`."""
_EXAMPLES = 3
"""Files named per reason in the summary of a scan's unread files (``--list-unread`` names them all)."""


class _NothingRead(Exception):
    """The paths held no trajectory that could be read: the command stops with :data:`EXIT_NOTHING`."""


def _report_scan(unclaimed: Sequence[Any], renamed: Sequence[Any], *, full: bool) -> None:
    """On stderr: the files the scan found that no reader claimed (a count per reason and the first few names,
    or every one with ``full``), and the trajectories renamed because their id was taken."""
    by_reason: dict[str, list[Any]] = {}
    for u in unclaimed:
        by_reason.setdefault(u.reason, []).append(u)
    if unclaimed:
        print(f"rtlab: {len(unclaimed)} files found were not read (no reader claims them):", file=sys.stderr)
    for reason, files in sorted(by_reason.items(), key=lambda kv: (kv[0] == "not JSON", -len(kv[1]), kv[0])):
        shown = files if full else files[:_EXAMPLES]
        print(f"  {len(files)} {reason}:", file=sys.stderr)
        for u in shown:
            print(f"    {u.path}" + (f" ({u.detail})" if u.detail else ""), file=sys.stderr)
        if len(files) > len(shown):
            print(
                f"    ... and {len(files) - len(shown)} more (--list-unread names them all)", file=sys.stderr
            )
    for r in renamed:
        print(
            f"rtlab: trajectory id {r.old!r} of {r.path} was already taken (by {r.first_path}): renamed {r.new!r}",
            file=sys.stderr,
        )


def _nothing_read(args: argparse.Namespace, n_read: int) -> None:
    if n_read == 0:
        raise _NothingRead(f"no trajectory could be read from {', '.join(args.paths)}")


def _add_input_options(
    p: argparse.ArgumentParser,
    format_flag: str = "--format",
    *,
    nargs: str = "+",
    paths_help: str = "run folders, log files or canonical JSONL; folders are searched",
) -> None:
    from rtlab.ingest import FORMATS

    p.add_argument("paths", nargs=nargs, metavar="PATH", help=paths_help)
    p.add_argument(
        format_flag, dest="format", choices=FORMATS, help="force one reader instead of autodetection"
    )
    p.add_argument(
        "--clip", metavar="POLICY", help="clipping policy for `shown` instead of the harness default"
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first unit that fails to read; a reading warning (a record skipped or repaired) fails it",
    )
    p.add_argument("--no-join", action="store_true", help="do not look for benchmark tasks and judge files")
    p.add_argument("--progress", action="store_true", help="show a progress bar")
    p.add_argument(
        "--list-unread", action="store_true", help="name every file found that no reader claims, with why"
    )


def _add_tab_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--requirements",
        choices=("none", "rubric", "trajectory", "proposed", "trajectory+proposed"),
        default="none",
        help="none (plain runs), rubric (one per rubric item), trajectory (the agent's own tab_add calls), "
        "proposed (the environment's proposals from the task text, P1 ...), trajectory+proposed (both)",
    )
    p.add_argument(
        "--ablation",
        choices=("full", "no-capture", "no-review", "no-evidence-check", "no-finish-check"),
        default="full",
        help="switch one component of the tab off",
    )
    p.add_argument(
        "--derived",
        action="store_true",
        help="keep derived entries in the read log (counts, sizes, programs' results, with their sources)",
    )
    p.add_argument("--workspace", metavar="DIR", help="the workspace's files, to confirm reads by content")
    p.add_argument(
        "--agent-root", metavar="PATH", help="the path the agent knew the workspace by (with --workspace)"
    )


def _from_stores(args: argparse.Namespace) -> list[Any] | None:
    """The stores ``args.paths`` name (``rtlab build`` folders, told by their manifest), or ``None`` for runs;
    units a store could not build are reported as skipped."""
    from rtlab.store import stores_in

    stores = stores_in(args.paths)
    for store in stores or []:
        for unit, why in store.skipped.items():
            print(f"rtlab: skipped {unit} (when {store.path} was built): {why}", file=sys.stderr)
    return stores


def _ingest(args: argparse.Namespace):
    from rtlab.ingest import ingest

    stores = _from_stores(args)
    if stores is not None:
        from rtlab.ingest import IngestFailure, IngestResult

        result = IngestResult()
        for store in stores:
            result.trajectories += store.load_trajectories()
            result.failures += [IngestFailure(u, "store", why) for u, why in store.skipped.items()]
        _nothing_read(args, len(result.trajectories))
        return result

    if args.clip is not None:
        from rtlab.ingest import get_policy

        get_policy(args.clip)  # an unknown name fails before any work
    result = ingest(
        args.paths,
        format=args.format,
        clip=args.clip,
        strict=args.strict,
        join=not args.no_join,
        progress=args.progress,
    )
    for f in result.failures:
        print(f"rtlab: skipped {f.path} ({f.format}): {f.error}", file=sys.stderr)
    _report_scan(result.unclaimed, result.renamed, full=args.list_unread)
    _nothing_read(args, len(result.trajectories))
    return result


def cmd_ingest(args: argparse.Namespace) -> int:
    from rtlab.ingest import write_jsonl
    from rtlab.io import dump_json_lines
    from rtlab.records import trajectory_to_dict

    result = _ingest(args)
    if args.output == "-":
        dump_json_lines((trajectory_to_dict(t) for t in result.trajectories), sys.stdout)
    else:
        n = write_jsonl(result.trajectories, args.output)
        print(
            f"wrote {n} trajectories to {args.output}"
            + (f"; {len(result.failures)} failed" if result.failures else ""),
            file=sys.stderr,
        )
    return EXIT_PARTIAL if result.failures else 0


def cmd_export(args: argparse.Namespace) -> int:
    from rtlab.ingest.readers.atif import export_atif

    result = _ingest(args)
    exported = export_atif(result.trajectories, args.output, strict=args.strict)
    for tid, error in exported.failures:
        print(f"rtlab: skipped {tid}: {error}", file=sys.stderr)
    failed = len(result.failures) + len(exported.failures)
    print(
        f"wrote {len(exported.written)} {args.to.upper()} files to {args.output}"
        + (f"; {failed} failed" if failed else ""),
        file=sys.stderr,
    )
    return EXIT_PARTIAL if failed else 0


def cmd_info(args: argparse.Namespace) -> int:
    from rtlab.analysis import format_summary, trajectory_summary

    result = _ingest(args)
    for t in result.trajectories:
        if args.json:
            print(json.dumps(trajectory_summary(t), ensure_ascii=False))
        else:
            print(format_summary(t))
    if not args.json:
        n_warnings = sum(len(t.warnings) for t in result.trajectories)
        print(
            f"{len(result.trajectories)} trajectories"
            + (f", {n_warnings} reading warnings" if n_warnings else "")
            + (f", {len(result.failures)} failed" if result.failures else "")
        )
    return EXIT_PARTIAL if result.failures else 0


def _replay_options(args: argparse.Namespace):
    from dataclasses import replace

    from rtlab.environment import TabConfig
    from rtlab.runner import ReplayOptions

    if args.clip is not None:
        from rtlab.ingest import get_policy

        get_policy(args.clip)
    if args.agent_root and not args.workspace:
        raise ValueError("--agent-root needs --workspace")
    return ReplayOptions(
        format=args.format,
        clip=args.clip,
        config=replace(TabConfig.ablation(args.ablation), derived=args.derived),
        requirements=args.requirements,
        workspace=args.workspace,
        agent_root=args.agent_root,
        join=not args.no_join,
    )


def _summary_json(replay: Any, *, redact: bool) -> str:
    """One ``rtlab replay --json`` line (made in the worker that replayed the run)."""
    from rtlab.environment import replay_summary

    return json.dumps(replay_summary(replay, redact=redact), ensure_ascii=False)


def cmd_replay(args: argparse.Namespace) -> int:
    from rtlab.environment import export_parquet, replay_summary
    from rtlab.runner import replay_paths

    options = _replay_options(args)
    # Without --out the replays themselves are not needed here: workers send back only what is printed
    each: Any = None
    if not args.out:
        each = functools.partial(_summary_json, redact=args.redact) if args.json else replay_summary
    replays, failures = [], []
    unclaimed: list[Any] = []
    renamed: list[Any] = []
    n_read = 0
    for done, failed in replay_paths(
        args.paths,
        options,
        jobs=args.jobs,
        progress=args.progress,
        strict=args.strict,
        each=each,
        unclaimed=unclaimed,
        renamed=renamed,
    ):
        _report_skipped(failed)
        failures.extend(failed)
        n_read += len(done) + sum(1 for f in failed if f.trajectory is not None)
        if args.out:
            replays.extend(done)
            if args.json:
                for r in done:
                    print(_summary_json(r, redact=args.redact), flush=True)
        elif args.json:
            for line in done:
                print(line, flush=True)
        else:
            for s in done:
                print(
                    f"{s['id']}: {len(s['read_log'])} read-log entries from "
                    f"{len({e['path'] for e in s['read_log']})} files, {len(s['candidates'])} candidates, "
                    f"{len(s['requirements'])} requirements"
                    + (f", finish check: {s['finish_check'].splitlines()[0]}" if s["finish_check"] else "")
                )
    _report_scan(unclaimed, renamed, full=args.list_unread)
    _nothing_read(args, n_read)
    if args.out:
        for path in export_parquet(replays, args.out, redact=args.redact):
            print(f"wrote {path}", file=sys.stderr)
    return EXIT_PARTIAL if failures else 0


def cmd_show(args: argparse.Namespace) -> int:
    from rtlab.analysis import format_step
    from rtlab.environment import replay, with_status
    from rtlab.ingest import ingest
    from rtlab.runner import workspace_for

    options = _replay_options(args)
    result = ingest(args.paths, format=args.format, clip=args.clip, strict=args.strict, join=options.join)
    if result.failures:
        raise ValueError(f"{result.failures[0].path}: {result.failures[0].error}")
    pool = [t for t in result.trajectories if args.id is None or t.id == args.id]
    if not pool:
        known = ", ".join(t.id for t in result.trajectories[:10])
        raise ValueError(f"no trajectory {args.id!r} here; known: {known}")
    if len(pool) > 1:
        raise ValueError(f"{len(pool)} trajectories here; choose one with --id (e.g. {pool[0].id})")
    t = pool[0]
    steps = {s.index: s for s in t.steps}
    if args.step not in steps:
        raise ValueError(f"{t.id} has steps 0..{len(t.steps) - 1}; no step {args.step}")
    workspace = workspace_for(t, options.workspace, options.agent_root)
    r = replay(
        t, config=options.config, requirements=options.requirements, workspace=workspace, until=args.step
    )
    step = steps[args.step]
    rule = "─" * 100
    print(
        f"{t.id}  step {args.step} of {len(t.steps) - 1}  ({r.config.name}, requirements: {r.requirements})"
    )
    print(rule)
    print(format_step(step, max_chars=args.max_chars))
    print(with_status("", r.tab.status_line()).strip())
    print(rule)
    print("The review (tab_list) at this step:")
    print(r.tab.review().render())
    print(rule)
    print(f"Read log ({len(r.tab.read_log)} entries):")
    for e in r.tab.read_log:
        print(f"  {e.id:>5}  step {e.step:<4} {len(e.excerpt):>8,} chars  {e.path}")
    ranked = r.tab.candidates_ranked()
    print(f"Candidates ({len(ranked)}; top {min(args.candidates, len(ranked))}):")
    for c in ranked[: args.candidates]:
        print(f"  {c.score:8.3f}  {c.path}")
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    from rtlab.runner import workspace_for
    from rtlab.view import view_runs

    options = _replay_options(args)
    result = _ingest(args)
    pool = [t for t in result.trajectories if args.id is None or t.id == args.id]
    if not pool:
        known = ", ".join(t.id for t in result.trajectories[:10])
        raise ValueError(f"no trajectory {args.id!r} here; known: {known}")
    if args.step is not None and len(pool) > 1:
        raise ValueError(f"--step needs one run; {len(pool)} here (choose one with --id, e.g. {pool[0].id})")
    out = args.output or ("run.html" if len(pool) == 1 else "index.html")
    workspaces = {t.id: workspace_for(t, options.workspace, options.agent_root) for t in pool}
    done = view_runs(
        pool,
        out,
        config=options.config,
        requirements=options.requirements,
        workspaces=workspaces,
        step=args.step,
        strict=args.strict,
    )
    for f in done.failures:
        print(f"rtlab: skipped {f['path']} [{f['trajectory']}]: {f['error']}", file=sys.stderr)
    if done.index is not None:
        print(f"wrote {done.index} ({len(done.pages)} runs)", file=sys.stderr)
    else:
        print(f"wrote {done.pages[0]}", file=sys.stderr)
    return EXIT_PARTIAL if done.failures or result.failures else 0


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


def _json_safe(obj):
    """NaN and infinities become null: JSON has no such numbers."""
    import math

    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_json_safe(v) for v in obj]
    return obj


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


def _report_skipped(failures: Sequence[Any]) -> None:
    """One line on stderr per run that could not be read or replayed (the batch goes on)."""
    for f in failures:
        where = f" [{f.trajectory}]" if f.trajectory else ""
        print(f"rtlab: skipped {f.path}{where}: {f.error}", file=sys.stderr)


def _rows_per_run(
    args: argparse.Namespace, each: Callable[[Replay], list[dict[str, Any]]]
) -> tuple[list[dict[str, Any]], bool]:
    """``each(replay)``'s rows for every run under ``args.paths``, in order: each unit read, replayed (default
    tab) and turned into rows where it is (a worker with ``--jobs``); unreadable units reported, not fatal."""
    from rtlab.runner import ReplayOptions, replay_paths

    if args.clip is not None:
        from rtlab.ingest import get_policy

        get_policy(args.clip)  # an unknown name fails before any work
    rows: list[dict[str, Any]] = []
    failed = False
    options = ReplayOptions(format=args.format, clip=args.clip, join=not args.no_join)
    unclaimed: list[Any] = []
    renamed: list[Any] = []
    n_read = 0
    for done, failures in replay_paths(
        args.paths,
        options,
        jobs=args.jobs,
        progress=args.progress,
        strict=args.strict,
        each=each,
        unclaimed=unclaimed,
        renamed=renamed,
    ):
        _report_skipped(failures)
        failed = failed or bool(failures)
        n_read += len(done) + sum(1 for f in failures if f.trajectory is not None)
        for unit_rows in done:
            rows += unit_rows
    _report_scan(unclaimed, renamed, full=args.list_unread)
    _nothing_read(args, n_read)
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
    return _rows_per_run(args, diagnosis_rows)  # only the label rows come back from a worker


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


"""The module that maps work over a Dask cluster (``map_on_cluster``), when it is installed."""


def cmd_build(args: argparse.Namespace) -> int:
    from rtlab.store import BuildOptions, build_store

    if args.clip is not None:
        from rtlab.ingest import get_policy

        get_policy(args.clip)  # an unknown name fails before any work
    mapper = None
    if args.cluster:
        from rtlab.store import cluster_mapper

        mapper = cluster_mapper(args.cluster, progress=not args.quiet)

    options = BuildOptions(format=args.format, clip=args.clip, join=not args.no_join, shards=args.shards)
    summary = build_store(
        args.paths,
        args.output,
        options,
        jobs=args.jobs,
        mapper=mapper,
        progress=(args.progress or sys.stderr.isatty()) and not args.quiet,
        strict=args.strict,
    )
    if not args.quiet:
        print(summary.format(), file=sys.stderr)
    return EXIT_PARTIAL if summary.skipped else 0


def cmd_agree(args: argparse.Namespace) -> int:
    if args.gold is not None:
        return _agree_with_gold(args)
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
        gold, labels, annotator=name, level=args.level, n_boot=args.n_boot, seed=args.seed
    )
    if args.json:
        print(json.dumps(_json_safe(report.to_dict()), ensure_ascii=False, indent=2, allow_nan=False))
    else:
        print(report.describe())
    return EXIT_PARTIAL if failed else 0


def _llm_client(args: argparse.Namespace, stack: contextlib.ExitStack) -> LLMClient:
    """The LLM client the options ask for (:func:`rtlab.llm.open_llm`), open until ``stack`` closes; the
    simulated model is announced on stderr as soon as it starts."""
    from rtlab.llm import open_llm

    chosen = stack.enter_context(
        open_llm(
            simulated=args.simulated,
            base_url=args.base_url,
            api_key=args.api_key,
            cache_dir=args.cache_dir,
            prices=args.prices or None,
            on_notice=lambda notice: print(f"rtlab: {notice}", file=sys.stderr),
            timeout=args.timeout,
            max_attempts=args.max_attempts,
            deadline=args.deadline or None,
        )
    )
    return chosen.client


def _calls_status(calls: Sequence[Any], read_failures: Sequence[Any]) -> int:
    """The exit status of a command that called a model: :data:`EXIT_CALLS_FAILED` (with a count and the
    first errors on stderr) when some calls failed after every attempt, else as the reading went."""
    failed = [c for c in calls if c.error is not None]
    if failed:
        print(
            f"rtlab: {len(failed)} of {len(calls)} model calls failed after every attempt "
            "(their items are labelled 'failed'; a rerun makes only those calls again):",
            file=sys.stderr,
        )
        errors: dict[str, int] = {}
        for c in failed:
            errors[c.error] = errors.get(c.error, 0) + 1
        for error, n in sorted(errors.items(), key=lambda kv: -kv[1])[:_EXAMPLES]:
            print(f"  {n} x {error}", file=sys.stderr)
        return EXIT_CALLS_FAILED
    return EXIT_PARTIAL if read_failures else 0


class _DeprecatedJobs(argparse.Action):
    """``--jobs`` on a command that sends requests: the old name of ``--concurrency``, with a notice (elsewhere
    ``--jobs`` counts worker processes)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        print(
            f"rtlab: {option_string} is deprecated here (it counts worker processes elsewhere); "
            "use --concurrency N for requests in flight",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if value < 0 or (value == 0 and kind is int):
            raise argparse.ArgumentTypeError(
                f"must be {'positive' if kind is int else 'non-negative'}: {text}"
            )
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its error
    return parse


def _add_llm_options(p: argparse.ArgumentParser, *, jobs_alias: bool = True) -> None:
    """The options of a command that calls an LLM; ``jobs_alias``: ``--jobs`` as the deprecated alias of
    ``--concurrency`` (not where ``--jobs`` means worker processes)."""
    from rtlab.llm import DEFAULT_DEADLINE, DEFAULT_MAX_ATTEMPTS, DEFAULT_TIMEOUT

    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
    p.add_argument("--api-key", help="API key (default: OPENAI_API_KEY)")
    p.add_argument(
        "--cache-dir", help="where responses are cached (default: RTLAB_CACHE_DIR or ~/.cache/rtlab)"
    )
    p.add_argument("--prices", metavar="FILE", help='JSON {"model": [input $/1M, output $/1M]}')
    p.add_argument(
        "--concurrency", type=int, default=8, metavar="N", help="requests in flight at once (default 8)"
    )
    if jobs_alias:
        p.add_argument(
            "--jobs",
            type=int,
            dest="concurrency",
            metavar="N",
            action=_DeprecatedJobs,
            help="deprecated alias of --concurrency (prints a notice)",
        )
    p.add_argument(
        "--timeout",
        type=_positive(float),
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=f"seconds one HTTP attempt may take (default {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--max-attempts",
        type=_positive(int),
        default=DEFAULT_MAX_ATTEMPTS,
        metavar="N",
        help=f"HTTP attempts per request, the first included (default {DEFAULT_MAX_ATTEMPTS})",
    )
    p.add_argument(
        "--deadline",
        type=_positive(float),
        default=DEFAULT_DEADLINE,
        metavar="S",
        help=f"seconds one request may take in all, attempts and waits included (default {DEFAULT_DEADLINE:g}; "
        "0: no deadline)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the number of calls and the estimated cost")
    p.add_argument("--simulated", action="store_true", help="use rtlab.llm's local simulated model")


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


def cmd_synth(args: argparse.Namespace) -> int:
    from rtlab.synth import SynthConfig, generate, load_config

    try:
        config = load_config(args.config) if args.config else SynthConfig()
        if args.seed is not None:
            config = SynthConfig.from_dict({**config.to_dict(), "seed": args.seed})
        out = generate(args.out_dir, config, jobs=args.jobs, progress=args.progress)
    except (FileExistsError, ValueError, OSError) as exc:
        print(f"rtlab synth: {exc}", file=sys.stderr)
        return 2
    print(f"wrote a simulated world to {out} (seed {config.seed}); see {out}/README_SIMULATED.md")
    return 0


def cmd_formats(args: argparse.Namespace) -> int:
    from rtlab.ingest import POLICIES, describe_formats

    print("Formats (autodetected in this order; --format NAME forces one):")
    print(describe_formats())
    print("\nClip policies (--clip NAME):")
    for name, policy in sorted(POLICIES.items()):
        doc = (type(policy).__doc__ or "").strip().splitlines()[0]
        print(f"  {name}: {doc}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from rtlab.agent import RunConfig, load_task, run_agent
    from rtlab.llm import load_prices

    task = load_task(args.task, files=args.files)
    config = RunConfig(
        method=args.method,
        ablation=args.ablation,
        model=args.model,
        base_url=args.base_url,
        api_key=args.api_key,
        max_turns=args.max_turns,
        time_limit=args.time_limit,
        context=args.context,
        seed=args.seed,
        run=args.run,
        sandbox=args.sandbox,
        command_timeout=args.command_timeout,
        clip=args.clip,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        cache=args.cache,
        prices=load_prices(args.prices) if args.prices else None,
    )
    if args.sim_judge and task.dataset is None:
        print("rtlab run: --sim-judge judges simulated-world tasks only", file=sys.stderr)
        return 2
    try:
        summary = run_agent(task, config, args.out, before_complete=_sim_judge if args.sim_judge else None)
    except FileExistsError as exc:
        print(f"rtlab run: {exc}", file=sys.stderr)
        return 2
    if args.sim_judge:
        print("judged by the SIMULATED world's deterministic judge (rubrics_judge--sim-judge.json)")
    cost = "?" if summary.cost is None else f"${summary.cost:.4f}"
    print(
        f"{summary.trajectory_id}: {summary.end_reason} after {summary.turns} turns, {summary.steps} tool calls; "
        f"{summary.prompt_tokens} prompt + {summary.completion_tokens} completion tokens, {cost}; "
        f"delivered {', '.join(summary.deliverables) or 'nothing'}; wrote {summary.run_dir}"
    )
    return 0 if summary.end_reason in ("finished", "max_turns", "time_limit") else 5


def _sim_judge(task: Any, out: Any) -> None:
    """``--sim-judge``: a simulated-world run's deliverable judged by that world's deterministic judge."""
    if task.dataset is None:
        return  # not a simulated-world task: rtlab judge judges it
    from rtlab.synth import judge_run

    delivered = out / "output" / task.deliverable.split("/", 1)[1]
    text = delivered.read_text(encoding="utf-8") if delivered.is_file() else ""
    judge_run(task.dataset, out, task.task.id, text)


def cmd_experiment(args: argparse.Namespace) -> int:
    from rtlab.agent import format_table, load_experiment, run_experiment

    config = load_experiment(args.config)
    if args.base_url:
        config.base_url = args.base_url
    if args.concurrency:
        config.concurrency = args.concurrency
    progress = sys.stderr.isatty() and not args.quiet
    result = run_experiment(
        config,
        args.out,
        api_key=args.api_key,
        progress=progress,
        strict=args.strict,
        before_complete=_sim_judge if args.sim_judge else None,
    )
    print(
        f"{len(result.done)} runs made, {len(result.skipped)} already finished, {len(result.failed)} failed"
    )
    for folder, error in result.failed:
        print(f"  failed: {folder}: {error}", file=sys.stderr)
    print(format_table(result.rows, result.totals))
    return 5 if result.failed else 0


def cmd_serve_simulated(args: argparse.Namespace) -> int:
    import threading

    from rtlab.llm import SIMULATED_MODEL, SimulatedServer

    server = SimulatedServer(port=args.port, latency=args.latency).start()
    print(
        f"simulated OpenAI-compatible server (model {SIMULATED_MODEL}, SIMULATED answers) at {server.base_url}"
    )
    sys.stdout.flush()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rtlab",
        description="Replay recorded LLM-agent trajectories and rebuild the RunningTab environment-side tab.",
    )
    from rtlab import __version__

    parser.add_argument("--version", action="version", version=f"rtlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "ingest",
        help="read harness logs into canonical JSONL",
        description="Read every trajectory under PATH... and write canonical JSONL. "
        f"Units that fail are reported and skipped (exit {EXIT_PARTIAL}) unless --strict.",
    )
    _add_input_options(p)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.jsonl",
        help="output file ('-' for stdout); written atomically",
    )
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser(
        "export",
        help="write trajectories in another format (ATIF: Harbor's Agent Trajectory Interchange Format)",
        description="Read every trajectory under PATH... and write each to DIR/<safe id>.json as ATIF-v1.5, "
        "with what ATIF has no field for under extra.rtlab (rtlab reads the files back to the same steps). "
        f"Units that fail are reported and skipped (exit {EXIT_PARTIAL}) unless --strict.",
    )
    _add_input_options(p, format_flag="--from")
    p.add_argument(
        "--format", dest="to", choices=("atif",), default="atif", help="the format to write (atif)"
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="DIR",
        help="the folder to write to; each file written atomically",
    )
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("info", help="summarise trajectories (readable, or one JSON object per trajectory)")
    _add_input_options(p)
    p.add_argument("--json", action="store_true", help="one JSON object per trajectory")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser(
        "replay",
        help="rebuild the environment-side tab for each trajectory",
        description="Replay trajectories through the environment and report what the tab held.",
    )
    _add_input_options(p)
    _add_tab_options(p)
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON object per trajectory")
    p.add_argument("--out", metavar="DIR", help="write read_log, candidates, requirements, steps as Parquet")
    p.add_argument("--redact", action="store_true", help="mask excerpt and requirement text (shape kept)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "score",
        help="the benchmarks' own metrics per group, with bootstrap 95%% CIs over tasks",
        description="Workspace-Bench pass rate and TCR@70, TheAgentCompany Success and Score, OfficeQA Acc@0%% and "
        "Acc@1%% (official scorer), averaged over runs, per group.",
    )
    _add_input_options(p)
    p.add_argument(
        "--by", default="benchmark,model,method,variant", help="grouping columns (comma-separated)"
    )
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples over tasks")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--trajectories", action="store_true", help="with --json, also each trajectory's inputs")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser(
        "values",
        help="numeric values the rubrics expect: shown, delivered, held by the tab",
        description="One row per (trajectory, rubric item, distinctive value): was it shown to the model, is it "
        "in the deliverable, does the tab's read log hold it after replay.",
    )
    _add_input_options(p)
    p.add_argument("--json", action="store_true", help="one JSON object per row")
    p.add_argument("--summary", action="store_true", help="only the summary shares, as one JSON object")
    p.add_argument(
        "--anchors",
        action="store_true",
        help="the anchors beyond numbers instead (IDs and codes, dates, amounts, quantities, names: codebook 2), "
        "with the same shown / delivered / held test and the deliverable's near miss (altered)",
    )
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.set_defaults(func=cmd_values)

    p = sub.add_parser(
        "diagnose",
        help="label each failed rubric item (shown but missing, dropped or distorted, discovery, other)",
        description="Deterministic failure labels from the evidence (read log, values shown and delivered, the "
        "task's source files, the judge's evidence), following the codebook shipped with rtlab.",
    )
    _add_input_options(p)
    p.add_argument("--json", action="store_true", help="one JSON object per failed rubric item")
    p.add_argument(
        "--breakdown", action="store_true", help="lost rubric points by category per group instead"
    )
    p.add_argument(
        "--by", default="method", help="grouping for --breakdown (comma-separated; '' for overall)"
    )
    p.add_argument("--level", choices=("category", "subreason"), default="category")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument(
        "--annotator",
        default="rules",
        metavar="rules|llm|FILE",
        help="who labels: the rules (default), LLM annotators (--model; the majority of --samples), or a "
        "labels FILE (long form as rtlab annotate writes it, a human label file, or a gold file)",
    )
    p.add_argument(
        "--name", help="with a labels FILE: its annotator (a prefix such as llm: the majority of its samples)"
    )
    p.add_argument("--model", action="append", default=[], help="with --annotator llm: an LLM (repeatable)")
    p.add_argument("--prompt", action="append", choices=("p1", "p2"), help="prompt version(s); default p1")
    p.add_argument("--samples", type=int, default=1, help="samples per model and prompt (majority taken)")
    _add_llm_options(p, jobs_alias=False)
    p.set_defaults(func=cmd_diagnose)

    p = sub.add_parser(
        "annotate",
        help="label failed rubric items with the rule-based labeler and LLM annotators",
        description="Writes long-form labels (item, annotator, label, ...) to CSV: the rule-based labeler always, "
        "plus one LLM annotator per model x prompt version x sample through any OpenAI-compatible endpoint "
        "(cached on disk; a rerun makes no requests).",
    )
    _add_input_options(p)
    p.add_argument(
        "-o", "--output", required=True, metavar="LABELS.csv", help="written atomically, owner-only"
    )
    p.add_argument("--model", action="append", default=[], help="an LLM to annotate with (repeatable)")
    p.add_argument("--prompt", action="append", choices=("p1", "p2"), help="prompt version(s); default p1")
    p.add_argument("--samples", type=int, default=1, help="samples per model and prompt")
    p.add_argument(
        "--batch",
        action="store_true",
        help="send the requests through the OpenAI Batch API (/v1/files, /v1/batches) into the cache first; "
        "an interrupted run resumes polling the same batch",
    )
    p.add_argument("--batch-dir", metavar="DIR", help="batch state files (default: CACHE_DIR/batches)")
    p.add_argument(
        "--batch-poll", type=_positive(float), metavar="S", help="seconds before the first poll (default 10)"
    )
    _add_llm_options(p)
    p.set_defaults(func=cmd_annotate)

    p = sub.add_parser(
        "judge",
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
    _add_input_options(p)
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
        "--max-fixes", type=int, default=2, metavar="N", help="corrective requests after an invalid answer"
    )
    p.add_argument(
        "--max-str-len",
        type=_positive(int),
        default=2000,
        metavar="N",
        help="characters kept of each file excerpt, command and output (default 2000, the protocol's)",
    )
    p.add_argument(
        "--max-trace-items",
        type=_positive(int),
        default=30,
        metavar="N",
        help="tool calls shown (default 30)",
    )
    p.add_argument(
        "--max-output-files",
        type=_positive(int),
        default=10,
        metavar="N",
        help="delivered files shown (default 10)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per run on stdout")
    _add_llm_options(p)
    p.set_defaults(func=cmd_judge)

    p = sub.add_parser(
        "recover",
        help="masked recovery: can the LLM find a held value without the tab, from the review, from the read log",
    )
    _add_input_options(p)
    p.add_argument("--model", action="append", required=True, help="the LLM to ask (repeatable)")
    p.add_argument("--samples", type=int, default=1, help="samples per model")
    p.add_argument(
        "--sample",
        choices=("paper", "held"),
        default="paper",
        help="paper: held values of failed items, shown and not delivered (default); held: every held value",
    )
    p.add_argument(
        "--context-chars",
        type=int,
        default=None,
        metavar="N",
        help="longest prompt sent, in characters (longer ones are reported over_context); default ~272K tokens",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per (value, condition, model) row")
    _add_llm_options(p)
    p.set_defaults(func=cmd_recover)

    p = sub.add_parser(
        "agree",
        help="agreement between annotators, or of one annotator (rules, LLM, a file) against gold labels",
        description="Without --gold: Krippendorff's alpha, Cohen's kappa and percent agreement of the annotators "
        "of one LABELS file. With --gold GOLD.csv (GOLD_LABELS.md's format): Cohen's kappa with a bootstrap "
        "interval over all items and over the clear ones, per-category precision / recall / F1, the confusion "
        "matrix and every disagreeing item with both labels' evidence, of --annotator rules (the rule labels "
        "of the runs at PATH), llm (LLM annotators over them, the majority of their samples) or FILE (a "
        "long-form labels file).",
    )
    _add_input_options(
        p,
        nargs="*",
        paths_help="LABELS (CSV or Parquet: item, annotator, label); with --gold and --annotator rules|llm, "
        "the runs to label",
    )
    p.add_argument("--reference", help="annotator to score the others against (precision, recall, F1, kappa)")
    p.add_argument("--gold", metavar="GOLD.csv", help="careful human labels to score one annotator against")
    p.add_argument(
        "--annotator",
        default="rules",
        metavar="rules|llm|FILE",
        help="with --gold: who labels (default rules)",
    )
    p.add_argument(
        "--name",
        help="with --gold: the annotator of the labels to score (a prefix such as llm stands for all its "
        "samples, reduced to their majority); default: the only one, or rules / llm",
    )
    p.add_argument("--level", choices=("category", "subreason"), default="category")
    p.add_argument("--model", action="append", default=[], help="with --annotator llm: an LLM (repeatable)")
    p.add_argument("--prompt", action="append", choices=("p1", "p2"), help="prompt version(s); default p1")
    p.add_argument("--samples", type=int, default=1, help="samples per model and prompt (majority taken)")
    _add_llm_options(p)
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples over items")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_agree)

    p = sub.add_parser(
        "build",
        help="build or update the analysis store (Parquet tables) from runs",
        description="Build the store's Parquet tables from every run under the paths, processing only new and "
        "changed runs; the manifest is written last (docs/STORE.md).",
    )
    _add_input_options(p)
    p.add_argument("-o", "--output", required=True, metavar="STORE", help="the store's folder")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--shards", type=int, default=16, metavar="N", help="shards of the runs (default 16)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the per-run work on the Dask cluster at ADDRESS")
    p.add_argument("--quiet", action="store_true", help="no progress bars and no summary")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("show", help="the tab at step N as the agent would have seen it")
    _add_input_options(p)
    _add_tab_options(p)
    p.add_argument("--id", help="the trajectory, when PATH holds several")
    p.add_argument("--step", type=int, required=True, metavar="N", help="step index (from 0)")
    p.add_argument("--max-chars", type=int, default=2000, help="how much of the observation to print")
    p.add_argument("--candidates", type=int, default=10, metavar="K", help="how many candidates to list")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser(
        "view",
        help="a self-contained HTML page of a run (steps, tab, rubric and labels), or an index of runs",
        description="One run: its page (-o run.html). Several: an index with scores and labels (-o index.html) "
        "and each run's page in the folder <index stem>_runs/ beside it. No network is needed to open them.",
    )
    _add_input_options(p)
    _add_tab_options(p)
    p.add_argument("--id", help="show only this trajectory")
    p.add_argument("--step", type=int, metavar="N", help="open the page at step N (one run)")
    p.add_argument(
        "-o", "--output", metavar="FILE", help="the page to write (default run.html or index.html)"
    )
    p.set_defaults(func=cmd_view)

    p = sub.add_parser(
        "synth",
        help="generate a simulated world: workspaces, tasks, agent runs, judge results, ground truth",
        description="Write a seeded, clearly labelled SIMULATED dataset (rtlab.synth) into a new folder: the same "
        "seed and configuration give the same bytes.",
    )
    p.add_argument("out_dir", metavar="OUT_DIR", help="a new (or empty) folder")
    p.add_argument("--seed", type=int, help="random seed (default: the configuration's, else 0)")
    p.add_argument("--config", metavar="CONFIG.json", help="a configuration written by a previous run")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--progress", action="store_true", help="show a progress bar")
    p.set_defaults(func=cmd_synth)

    p = sub.add_parser("formats", help="list the log formats and clip policies rtlab knows")
    p.set_defaults(func=cmd_formats)

    p = sub.add_parser(
        "run",
        help="run one live agent on one task with one method and model (OpenAI-compatible endpoint)",
        description="Run an agent (read, bash, write in a confined private copy of the task's workspace) with a "
        "method's policy over any OpenAI-compatible endpoint, and write the run folder rtlab reads.",
    )
    p.add_argument(
        "task",
        metavar="TASK",
        help="DATASET:TASK_ID (rtlab synth), a Workspace-Bench task folder, "
        "TABLE.csv:ID, QUESTIONS.csv:UID or g2b_officeqa_pro_dataset.json:oqa-N",
    )
    p.add_argument(
        "--method", required=True, choices=["dci", "todo", "self-refine", "self-tracking", "runningtab"]
    )
    p.add_argument(
        "--ablation",
        choices=["full", "no-capture", "no-review", "no-evidence-check", "no-finish-check"],
        help="RunningTab with one component switched off",
    )
    p.add_argument(
        "--model", required=True, help="the model to request (rtlab-simulated for the simulated server)"
    )
    p.add_argument("--base-url", help="the endpoint (default: OPENAI_BASE_URL)")
    p.add_argument("--api-key", help="the API key (default: OPENAI_API_KEY; never written)")
    p.add_argument(
        "--out", required=True, metavar="RUN_DIR", help="the run folder to write (new, or unfinished)"
    )
    p.add_argument(
        "--files", metavar="DIR", help="the task's files (a Lite table's task, OfficeQA bulletins)"
    )
    p.add_argument("--max-turns", type=int, default=300, metavar="N")
    p.add_argument("--time-limit", type=float, default=3600.0, metavar="SECONDS")
    p.add_argument(
        "--context",
        default="keep-all",
        metavar="POLICY",
        help="keep-all (default), drop-old-outputs[:TOKENS], truncate-old-outputs[:TOKENS]",
    )
    p.add_argument("--seed", type=int, help="sent as the requests' seed; the run label unless --run")
    p.add_argument("--run", help="the run label (default: the seed, else 1)")
    p.add_argument(
        "--sandbox",
        choices=["auto", "bwrap", "none"],
        default="auto",
        help="how commands are confined (auto: bubblewrap, refused without it; none: UNCONFINED)",
    )
    p.add_argument("--command-timeout", type=float, default=60.0, metavar="SECONDS")
    p.add_argument(
        "--clip", default="openhands-v0", metavar="NAME", help="clip policy of outputs (rtlab formats)"
    )
    p.add_argument("--temperature", type=float)
    p.add_argument("--max-tokens", type=int, metavar="N", help="output limit of a turn")
    p.add_argument("--cache", action="store_true", help="cache model turns on disk (off by default)")
    p.add_argument("--prices", metavar="PRICES.json", help='{"model": [input_per_1M, output_per_1M]}')
    p.add_argument(
        "--sim-judge",
        action="store_true",
        help="a simulated-world task: judge the deliverable with that world's deterministic judge",
    )
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "experiment",
        help="run a grid of tasks x methods x models x runs, resumable",
        description="Run every unfinished run of an experiment configuration (JSON or YAML) concurrently; "
        "finished runs (their completion marker) are never redone, so rerunning resumes an interrupted one.",
    )
    p.add_argument("config", metavar="CONFIG", help="the experiment configuration (.json, .yaml)")
    p.add_argument("--out", required=True, metavar="DIR", help="where the runs go (OUT/runs/...)")
    p.add_argument("--base-url", help="override the configuration's endpoint")
    p.add_argument("--api-key", help="the API key (default: OPENAI_API_KEY; never written)")
    p.add_argument("--concurrency", type=int, metavar="N", help="override the configuration's concurrency")
    p.add_argument("--strict", action="store_true", help="stop at the first run that fails")
    p.add_argument(
        "--sim-judge",
        action="store_true",
        help="judge simulated-world runs with that world's deterministic judge (before each marker)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_experiment)

    p = sub.add_parser(
        "serve-simulated",
        help="serve the local SIMULATED OpenAI-compatible model (scripted agent turns, annotations) on 127.0.0.1",
    )
    p.add_argument("--port", type=int, default=8089, help="port on 127.0.0.1 (default 8089; 0: any free)")
    p.add_argument("--latency", type=float, default=0.0, metavar="SECONDS", help="delay of every answer")
    p.set_defaults(func=cmd_serve_simulated)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from rtlab.errors import RtlabError

    try:
        return args.func(args)
    except (RtlabError, FileNotFoundError, ValueError) as exc:
        print(f"rtlab: error: {exc}", file=sys.stderr)
        return 2
    except _NothingRead as exc:
        print(f"rtlab: {exc}", file=sys.stderr)
        return EXIT_NOTHING
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a folder where a file is expected, no permission, a full disk: said, not traced
        print(f"rtlab: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
