"""The ``rtlab`` command line: batch work over trajectories."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

EXIT_PARTIAL = 3
"""Exit status when some units failed to read but the rest were processed (without ``--strict``)."""


def _add_input_options(p: argparse.ArgumentParser) -> None:
    from rtlab.readers import FORMATS

    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="run folders, log files or canonical JSONL; folders are searched",
    )
    p.add_argument("--format", choices=FORMATS, help="force one reader instead of autodetection")
    p.add_argument(
        "--clip", metavar="POLICY", help="clipping policy for `shown` instead of the harness default"
    )
    p.add_argument("--strict", action="store_true", help="stop at the first unit that fails to read")
    p.add_argument("--no-join", action="store_true", help="do not look for benchmark tasks and judge files")
    p.add_argument("--progress", action="store_true", help="show a progress bar")


def _ingest(args: argparse.Namespace):
    from rtlab.ingest import ingest

    if args.clip is not None:
        from rtlab.clipping import get_policy

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
    return result


def cmd_ingest(args: argparse.Namespace) -> int:
    from rtlab.model import trajectory_to_dict, write_jsonl

    result = _ingest(args)
    if args.output == "-":
        for t in result.trajectories:
            sys.stdout.write(
                json.dumps(trajectory_to_dict(t), ensure_ascii=False, separators=(",", ":")) + "\n"
            )
    else:
        n = write_jsonl(result.trajectories, args.output)
        print(
            f"wrote {n} trajectories to {args.output}"
            + (f"; {len(result.failures)} failed" if result.failures else ""),
            file=sys.stderr,
        )
    return EXIT_PARTIAL if result.failures else 0


def cmd_info(args: argparse.Namespace) -> int:
    from rtlab.summary import format_summary, trajectory_summary

    result = _ingest(args)
    for t in result.trajectories:
        if args.json:
            print(json.dumps(trajectory_summary(t), ensure_ascii=False))
        else:
            print(format_summary(t))
    if not args.json:
        print(
            f"{len(result.trajectories)} trajectories"
            + (f", {len(result.failures)} failed" if result.failures else "")
        )
    return EXIT_PARTIAL if result.failures else 0


def cmd_formats(args: argparse.Namespace) -> int:
    from rtlab.clipping import POLICIES
    from rtlab.readers import describe_formats

    print("Formats (autodetected in this order; --format NAME forces one):")
    print(describe_formats())
    print("\nClip policies (--clip NAME):")
    for name, policy in sorted(POLICIES.items()):
        doc = (type(policy).__doc__ or "").strip().splitlines()[0]
        print(f"  {name}: {doc}")
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

    p = sub.add_parser("info", help="summarise trajectories (readable, or one JSON object per trajectory)")
    _add_input_options(p)
    p.add_argument("--json", action="store_true", help="one JSON object per trajectory")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("formats", help="list the log formats and clip policies rtlab knows")
    p.set_defaults(func=cmd_formats)
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
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
