"""The store: ``rtlab build``, the analysis store's Parquet tables built (and updated) from runs.

A family of one command: the store is a stage of its own (``rtlab.store``), and the commands that read a
store (``info``, ``score``, ``values``, ``diagnose``) take it where they take runs, in their own families."""

from __future__ import annotations

import argparse
import sys

from rtlab.cli._common import COUNT, EXIT_PARTIAL, _nothing_read
from rtlab.cli._options import command, input_options, jobs_option, output_option, quiet_option

TITLE = "the store"
"""The heading of these commands in ``rtlab --help``."""


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
        follow_links=args.follow_links,
    )
    if not args.quiet:
        print(summary.format(), file=sys.stderr)
    if not summary.skipped:  # the paths held nothing readable (a skipped run was found, and said above)
        _nothing_read(args, len(summary.added) + len(summary.changed) + len(summary.unchanged))
    return EXIT_PARTIAL if summary.skipped else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the family's commands to ``sub``, the parser's subcommands."""
    p = command(
        sub,
        "build",
        cmd_build,
        help="build or update the analysis store (Parquet tables) from runs",
        description="Build the store's Parquet tables from every run under the paths, processing only new and "
        "changed runs; the manifest is written last (docs/STORE.md).",
    )
    input_options(p)
    output_option(p, metavar="STORE", help="the store's folder")
    jobs_option(p)
    p.add_argument("--shards", type=COUNT, default=16, metavar="N", help="shards of the runs (default 16)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the per-run work on the Dask cluster at ADDRESS")
    quiet_option(p, "no progress bars and no summary")
