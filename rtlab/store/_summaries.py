"""``rtlab.summaries(paths)``: one row per trajectory, read the cheapest way each source allows: a store's
``trajectories`` table, a log's own summary (an Inspect ``.eval``'s header and ``summaries.json``), else the
whole log. Here, above both the readers and the store, because it takes either."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def summaries(
    paths: str | Path | Sequence[str | Path],
    *,
    format: str | None = None,
    clip: str | None = None,
    join: bool = True,
    strict: bool = False,
    follow_links: bool = False,
) -> pd.DataFrame:
    """One row per trajectory under ``paths`` (stores, or runs and logs), with the columns of
    :func:`rtlab.analysis.summaries_frame`: from a store its ``trajectories`` table (``read`` is ``store``),
    from a log whose format keeps a summary that summary, without decoding steps (``summary``: the step counts
    null), else the whole log (``full``). The numbers a summary gives are the whole reading's. Units that fail
    have no row, as :func:`rtlab.ingest.ingest` leaves them out (``strict``: the first raises), and are listed in
    ``frame.attrs["failures"]`` (:class:`rtlab.ingest.IngestFailure`; a store's: the units its build skipped);
    options as :func:`rtlab.ingest.read_summaries` takes them."""
    import pandas as pd

    from rtlab.analysis import summaries_frame
    from rtlab.ingest import read_summaries
    from rtlab.store._open import stores_in

    given = [paths] if isinstance(paths, str | Path) else list(paths)
    stores = stores_in(given)
    if stores is None:
        result = read_summaries(
            given, format=format, clip=clip, join=join, strict=strict, follow_links=follow_links
        )
        frame = summaries_frame(result.summarized)
        frame.attrs["failures"] = result.failures
        return frame
    from rtlab.ingest import IngestFailure

    empty = summaries_frame([])
    frames = []
    for store in stores:
        frame = store.trajectories()
        frame["read"], frame["why_full"] = "store", None
        frames.append(frame.astype(empty.dtypes.to_dict())[list(empty.columns)])
    out = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    out.attrs["failures"] = [IngestFailure(u, "store", why) for s in stores for u, why in s.skipped.items()]
    return out
