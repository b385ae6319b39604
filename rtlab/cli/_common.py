"""What several command families share: the exit statuses, reading the paths a command is given (runs or
stores) with the report of what a scan did not read, model clients and the status their failed calls give,
JSON that has no NaN, and ``_positive`` (a number option's type)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def _report_reading(result: Any, *, full: bool) -> None:
    """Say on stderr what a reading skipped: each unit that failed, then the scan's report (:func:`_report_scan`);
    ``result`` an :class:`rtlab.ingest.IngestResult` or a summary reading's result."""
    for f in result.failures:
        print(f"rtlab: skipped {f.path} ({f.format}): {f.error}", file=sys.stderr)
    _report_scan(result.unclaimed, result.renamed, full=full)


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


def _from_stores(args: argparse.Namespace) -> list[Any] | None:
    """The stores ``args.paths`` name (``rtlab build`` folders, told by their manifest), or ``None`` for runs;
    units a store could not build are reported as skipped."""
    from rtlab.store import stores_in

    stores = stores_in(args.paths)
    for store in stores or []:
        store.check()  # every table's files present and whole, named before any work
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
        follow_links=args.follow_links,
    )
    _report_reading(result, full=args.list_unread)
    _nothing_read(args, len(result.trajectories))
    return result


def _report_skipped(failures: Sequence[Any]) -> None:
    """One line on stderr per run that could not be read or replayed (the batch goes on)."""
    for f in failures:
        where = f" [{f.trajectory}]" if f.trajectory else ""
        print(f"rtlab: skipped {f.path}{where}: {f.error}", file=sys.stderr)


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


COUNT = _positive(int)
"""The type of an option that counts something there must be at least one of (``--jobs``, ``--shards``,
``--concurrency``, ``--samples``, ``--max-turns``, ...): 0 and negative numbers are refused by name."""


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative: {text}")
    return value


_non_negative_int.__name__ = "int"
NON_NEGATIVE = _non_negative_int
"""The type of a whole-number option where 0 means none (``--max-fixes``, ``--candidates``, ``--max-chars``)."""


def existing_folder(text: str) -> str:
    """The type of an option naming a folder that must exist (``--workspace``): a file or a missing path is
    refused by name, before any work."""
    import os

    if not os.path.isdir(text):
        what = "a file" if os.path.exists(text) else "no such folder"
        raise argparse.ArgumentTypeError(f"{text}: {what}; a folder is needed")
    return text


def _replayed(args: argparse.Namespace, options: Any, each: Any) -> Iterator[tuple[list[Any], list[Any]]]:
    """``replay_paths`` over ``args.paths`` as every replaying command runs it (``--jobs``, ``--progress``,
    ``--strict``): each unit's ``(done, failures)`` as it is finished, its failures reported on stderr; once all
    are, the files the scan did not read are reported and a scan that read nothing stops the command."""
    from rtlab.runner import replay_paths

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
        n_read += len(done) + sum(1 for f in failures if f.trajectory is not None)
        yield done, failures
    _report_scan(unclaimed, renamed, full=args.list_unread)
    _nothing_read(args, n_read)
