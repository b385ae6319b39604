"""The parser, built from the command families, and ``main``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rtlab.cli._common import EXIT_NOTHING, _NothingRead

FAMILIES = ("_reading", "_replay", "_analyses", "_annotation", "_live", "_store", "_tab")
"""The command families, in the order ``rtlab --help`` lists them: each a module of this package with a
``TITLE`` (its heading in the help) and ``register(sub)`` (adds its commands to the subparsers ``sub``). A new
family is a new module and its name here."""


@dataclass(frozen=True)
class _Family:
    """One heading of ``rtlab --help``."""

    title: str
    """The family's heading (its module's ``TITLE``)."""
    commands: tuple[str, ...]
    """Its commands, in the order its module registers them."""


class _GroupedHelp(argparse.ArgumentParser):
    """The top-level parser: its help lists the commands under a heading per family, where argparse would list
    them all in one block; everything else (parsing, usage, errors, the commands' own parsers and help) is
    argparse's."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.families: list[_Family] = []
        """The headings, in order (``build_parser`` appends one per family)."""

    def format_help(self) -> str:
        # argparse's own format_help, but for the subcommands' block: argparse keeps the commands' one-line
        # help as pseudo-actions of the subparsers action; each family's are formatted as a section of its own
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(self.description)
        for group in self._action_groups:
            subparsers = [a for a in group._group_actions if isinstance(a, argparse._SubParsersAction)]
            others = [a for a in group._group_actions if a not in subparsers]
            if others or not subparsers:
                formatter.start_section(group.title)
                formatter.add_text(group.description)
                formatter.add_arguments(others)
                formatter.end_section()
            for action in subparsers:
                lines = {a.dest: a for a in action._get_subactions()}
                for family in self.families:
                    formatter.start_section(family.title)
                    formatter.add_arguments([lines[c] for c in family.commands if c in lines])
                    formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = _GroupedHelp(
        prog="rtlab",
        description="Replay recorded LLM-agent trajectories and rebuild the RunningTab environment-side tab.",
    )
    from rtlab import __version__

    parser.add_argument("--version", action="version", version=f"rtlab {__version__}")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=argparse.ArgumentParser
    )
    for name in FAMILIES:
        family = importlib.import_module(f"{__package__}.{name}")  # a sibling module of this package
        known = set(sub.choices)
        family.register(sub)
        parser.families.append(_Family(family.TITLE, tuple(c for c in sub.choices if c not in known)))
    return parser


def _refuse_output_over_input(args: argparse.Namespace) -> None:
    """An output (``-o``/``--output``, ``--out``) that is one of the command's inputs (``rtlab view in.jsonl -o
    in.jsonl`` once turned the log into HTML, ``rtlab ingest x.jsonl -o x.jsonl`` replaced the raw log) is refused
    before any work, whatever route names the two (a link, ``..``)."""
    import os

    from rtlab.errors import RtlabError

    inputs = [p for p in (getattr(args, "paths", None) or []) if os.path.exists(p)]
    for name in ("output", "out"):
        target = getattr(args, name, None)
        if not isinstance(target, str) or target == "-" or not os.path.exists(target):
            continue
        for given in inputs:
            if os.path.samefile(target, given):
                raise RtlabError(
                    f"{target}: the output is one of the inputs ({given}); choose another output"
                )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from rtlab.errors import RtlabError

    try:
        _refuse_output_over_input(args)
        status = args.func(args)
        sys.stdout.flush()  # a write error of the last output (a full disk, a closed terminal) is said here
        return status
    except (RtlabError, FileNotFoundError, ValueError) as exc:
        print(f"rtlab: error: {exc}", file=sys.stderr)
        return 2
    except _NothingRead as exc:
        print(f"rtlab: {exc}", file=sys.stderr)
        return EXIT_NOTHING
    except BrokenPipeError:  # the reader went away (`rtlab info ... | head`): not an error
        _drop_stdout()
        return 0
    except OSError as exc:  # a folder where a file is expected, no permission, a full disk: said, not traced
        if exc.errno is not None and _stdout_failed():
            _drop_stdout()
        print(f"rtlab: error: {exc}", file=sys.stderr)
        return 2


def _stdout_failed() -> bool:
    """Whether standard output itself can no longer be written (``rtlab info --json > /dev/full``)."""
    try:
        sys.stdout.flush()
    except OSError:
        return True
    return False


def _drop_stdout() -> None:
    """Point standard output at ``/dev/null``, so what is still buffered for a stream that failed is not
    written again at exit (Python would report it and exit with 120)."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # replaced by a test's capture, or closed
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
