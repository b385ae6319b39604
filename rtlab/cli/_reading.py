"""Reading and export: ``rtlab ingest``, ``export``, ``info`` and ``formats``.

``formats`` is here, not with the live runs or the analyses: it describes what the readers recognise and the
clip policies they apply, the knowledge every reading command uses. ``export`` is reading's other direction
(the same input options, the trajectories written in another harness's format)."""

from __future__ import annotations

import argparse
import json
import sys

from rtlab.cli._common import (
    EXIT_PARTIAL,
    _from_stores,
    _ingest,
    _json_safe,
    _nothing_read,
    _report_reading,
)
from rtlab.cli._options import command, input_options, json_option, output_option

TITLE = "reading and export"
"""The heading of these commands in ``rtlab --help``."""


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

    if args.summary:
        return _info_summary(args)

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


def _info_summary(args: argparse.Namespace) -> int:
    """``rtlab info --summary``: a row per trajectory from a store's table, a log's own summary, or the whole
    log (:func:`rtlab.ingest.read_summaries`)."""
    from rtlab.analysis import format_summary_row, summary_row

    stores = _from_stores(args)
    rows: list[dict] = []
    failed = 0
    if stores is not None:
        for store in stores:
            frame = store.trajectories()
            frame = frame.astype(object).where(frame.notna(), None)
            rows += [{**r, "read": "store", "why_full": None} for r in frame.to_dict("records")]
            failed += len(store.skipped)
    else:
        from rtlab.ingest import get_policy, read_summaries

        if args.clip is not None:
            get_policy(args.clip)  # an unknown name fails before any work
        result = read_summaries(
            args.paths,
            format=args.format,
            clip=args.clip,
            join=not args.no_join,
            strict=args.strict,
            follow_links=args.follow_links,
        )
        _report_reading(result, full=args.list_unread)
        rows = [summary_row(s) for s in result.summarized]
        failed = len(result.failures)
    _nothing_read(args, len(rows))
    for row in rows:
        print(json.dumps(_json_safe(row), ensure_ascii=False) if args.json else format_summary_row(row))
    if not args.json:
        reads = {k: sum(1 for r in rows if r["read"] == k) for k in ("summary", "full", "store")}
        said = {"summary": "from summaries", "full": "read whole", "store": "from stores"}
        print(
            f"{len(rows)} trajectories ("
            + ", ".join(f"{n} {said[k]}" for k, n in reads.items() if n)
            + ")"
            + (f", {failed} failed" if failed else "")
        )
    return EXIT_PARTIAL if failed else 0


def cmd_formats(args: argparse.Namespace) -> int:
    from rtlab.ingest import POLICIES, describe_formats

    print("Formats (autodetected in this order; --format NAME forces one):")
    print(describe_formats())
    print("\nClip policies (--clip NAME):")
    for name, policy in sorted(POLICIES.items()):
        doc = (type(policy).__doc__ or "").strip().splitlines()[0]
        print(f"  {name}: {doc}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the family's commands to ``sub``, the parser's subcommands."""
    p = command(
        sub,
        "ingest",
        cmd_ingest,
        help="read harness logs into canonical JSONL",
        description="Read every trajectory under PATH... and write canonical JSONL. "
        f"Units that fail are reported and skipped (exit {EXIT_PARTIAL}) unless --strict.",
    )
    input_options(p)
    output_option(p, metavar="OUT.jsonl", help="output file ('-' for stdout); written atomically")

    p = command(
        sub,
        "export",
        cmd_export,
        help="write trajectories in another format (ATIF: Harbor's Agent Trajectory Interchange Format)",
        description="Read every trajectory under PATH... and write each to DIR/<safe id>.json as ATIF-v1.5, "
        "with what ATIF has no field for under extra.rtlab (rtlab reads the files back to the same steps). "
        f"Units that fail are reported and skipped (exit {EXIT_PARTIAL}) unless --strict.",
    )
    input_options(p, format_flag="--from")
    p.add_argument(
        "--format", dest="to", choices=("atif",), default="atif", help="the format to write (atif)"
    )
    output_option(p, metavar="DIR", help="the folder to write to; each file written atomically")

    p = command(
        sub, "info", cmd_info, help="summarise trajectories (readable, or one JSON object per trajectory)"
    )
    input_options(p)
    json_option(p, "one JSON object per trajectory")
    p.add_argument(
        "--summary",
        action="store_true",
        help="read each log's own summary where its format keeps one (an Inspect .eval's header and "
        "summaries.json), without decoding steps: step counts are not given for those (a store's table, "
        "or the whole log, for the others)",
    )

    p = command(sub, "formats", cmd_formats, help="list the log formats and clip policies rtlab knows")
