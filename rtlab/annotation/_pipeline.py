"""The annotation pipeline that ``rtlab annotate`` and notebook 09 run: every failed rubric item labelled by
the rule-based labeler and by LLM annotators (cached by the client), in one long-form label table.

Steps: each run is replayed (default tab); the rules label every failed item (:func:`rule_labels`); each
failed item's evidence becomes a prompt context (:func:`item_contexts`), all of them or a seeded sample
(:func:`sample_at_most`); every LLM annotator labels every context (:func:`annotate_llm`). A dry run stops
before the first request and says what the requests would cost. With ``batch``, the first requests go through
the OpenAI Batch API (:func:`rtlab.llm.run_batch`) into the client's cache first, and the labelling then reads
them from it (corrective retries, and lines the batch failed, are asked directly).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from rtlab.analysis import diagnose_frame
from rtlab.annotation._annotators import (
    ItemContext,
    LLMAnnotation,
    LLMAnnotator,
    annotate_llm,
    first_requests,
    item_contexts,
    long_form,
)
from rtlab.environment import replay

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.analysis import SourceFinder
    from rtlab.llm import BatchRun, DryRun, LLMClient
    from rtlab.records import Trajectory

T = TypeVar("T")


@dataclass
class Annotation:
    """What :func:`annotate` did."""

    rules: pd.DataFrame
    """The rule-based labeler's labels of every failed rubric item (long form)."""
    diagnosis: pd.DataFrame
    """The same labels as :func:`rtlab.analysis.diagnose_frame` gives them: one row per failed item with its
    grouping columns, what :func:`rtlab.annotation.annotator_diagnosis` puts other annotators' labels on."""
    others: list[pd.DataFrame]
    """Label tables of other annotators that the caller brought (human files, a simulated world's truth)."""
    contexts: list[ItemContext]
    """The failed items put to the LLM annotators: every one, or a seeded sample of ``max_items``."""
    llm: LLMAnnotation | None
    """The LLM annotators' labels and every call made; ``None`` without a client, and on a dry run."""
    dry_run: DryRun | None
    """On a dry run, the first requests' count and estimated cost (no request was made); else ``None``."""
    batch: BatchRun | None = None
    """With ``batch``: what the Batch API did (submitted, resumed, collected, failed); else ``None``."""

    @property
    def labels(self) -> pd.DataFrame:
        """Every label in one long-form table: the rules', the others', then the LLM annotators' rows."""
        import pandas as pd

        llm = [self.llm.labels] if self.llm is not None else []
        return pd.concat([self.rules, *self.others, *llm], ignore_index=True)


def sample_at_most(items: Sequence[T], n: int | None, *, seed: int = 0) -> list[T]:
    """``items`` when there are at most ``n`` (or ``n`` is ``None``), else a seeded random sample of ``n``."""
    if n is None or len(items) <= n:
        return list(items)
    return random.Random(seed).sample(list(items), n)


def annotate(
    trajectories: Iterable[Trajectory],
    annotators: Sequence[LLMAnnotator],
    client: LLMClient | None,
    *,
    others: Sequence[pd.DataFrame] = (),
    max_items: int | None = None,
    seed: int = 0,
    dry_run: bool = False,
    max_workers: int = 8,
    progress: bool = False,
    batch: bool = False,
    batch_dir: str | Path | None = None,
    batch_poll: float | None = None,
    sources: str | Path | SourceFinder | None = None,
) -> Annotation:
    """Label every failed rubric item of ``trajectories`` with the rules and with every LLM annotator.

    Without a ``client`` only the rules label (``annotators`` must then be empty).
    ``others``: label tables placed after the rules' in :attr:`Annotation.labels`. ``max_items`` bounds the
    items put to the LLM annotators (a sample drawn with ``seed``); the rules label all of them.
    ``max_workers``: requests in flight at once. ``batch``: send the first requests through the Batch API
    (state files in ``batch_dir``, default the cache's ``batches/``; first poll after ``batch_poll`` seconds).
    ``sources``: the tasks' source files, for the rules (:func:`rtlab.analysis.diagnose`: a folder, ``"auto"``
    or a :class:`~rtlab.analysis.SourceFinder`).
    """
    trajectories = list(trajectories)
    replays = [replay(t) for t in trajectories]
    diagnosis = diagnose_frame(trajectories, replays, sources=sources)
    rules = long_form(diagnosis)
    if client is None:
        if annotators:
            raise ValueError("LLM annotators need a client (rtlab.llm.open_llm)")
        return Annotation(rules, diagnosis, list(others), [], None, None)
    contexts = sample_at_most(item_contexts(trajectories, replays), max_items, seed=seed)
    if dry_run:
        return Annotation(
            rules,
            diagnosis,
            list(others),
            contexts,
            None,
            client.dry_run(first_requests(contexts, annotators)),
        )
    batched = None
    if batch:
        from rtlab.llm import DEFAULT_POLL, run_batch

        batched = run_batch(
            client,
            first_requests(contexts, annotators),
            state_dir=batch_dir,
            poll=DEFAULT_POLL if batch_poll is None else batch_poll,
            progress=progress,
        )
    run = annotate_llm(contexts, annotators, client, max_workers=max_workers, progress=progress)
    return Annotation(rules, diagnosis, list(others), contexts, run, None, batched)
