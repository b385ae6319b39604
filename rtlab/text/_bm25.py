"""Okapi BM25 over tokenised documents, vectorised, scoring exactly as ``rank_bm25.BM25Okapi``.

The index is one sparse term-by-document weight matrix in CSC form (a column per term, its documents in
ascending order): building it computes every ``idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``
once, so a query is a gather of its terms' columns and one ``numpy.bincount``; no Python loop touches a document.
The index is immutable: rebuild it when the corpus changes. On 30,000 paths (``bench/bm25.py``) building takes
about half of rank_bm25's constructor time and a query is several hundred times faster; below about ten
documents numpy's fixed cost (~40 µs) makes building slower than rank_bm25's, but build plus one query is faster.

``idf="okapi"`` (the default) reproduces ``rank_bm25.BM25Okapi`` (version 0.2.2, ``rank_bm25.py``):

- ``idf(t) = log(N - n(t) + 0.5) - log(n(t) + 0.5)``, for ``N`` documents of which ``n(t)`` contain ``t``;
- ``avgdl`` = total number of tokens / ``N``;
- a negative idf (a term in more than half the documents) becomes ``eps = epsilon * mean idf``, the mean taken
  over every term of the corpus before the replacement; a term in exactly half the documents keeps idf 0;
- every occurrence of a query token adds its term once (``["a", "a"]`` counts ``a`` twice); a token absent from
  the corpus adds nothing.

Scores agree with rank_bm25 to the last bit in practice (same ``math.log``, same operation order, terms summed in
query order), and are tested to 1e-9. Where rank_bm25 fails, this class answers: an empty corpus (rank_bm25
divides by zero) gives an empty score array and ``top_n`` returns ``[]``; a corpus of only empty documents
(rank_bm25 divides by zero too) gives all-zero scores and ``top_n`` returns ``[]``; with ``b=1`` an empty
document scores 0 (rank_bm25 computes 0 / 0 and gives NaN).

``idf="lucene"`` takes Lucene's ``idf(t) = log(1 + (N - n(t) + 0.5) / (n(t) + 0.5))`` (no epsilon), which is
positive and falls steadily as a term gets more common. Okapi's floor breaks that order: every term in more than
half the documents gets the same ``eps``, which is above the idf of a term in exactly half (0) and of terms
slightly rarer than that; so in a workspace where nearly every path starts ``desktop/``, the word ``desktop`` in a
task outweighs a moderately common word that actually picks out files. Six candidate paths, a task asking for the
budget files on the desktop (``budget`` is in 3 of 6 paths, ``desktop`` in 5 of 6):

>>> from rtlab.text._tokens import tokenize
>>> paths = ["desktop/notes/meeting.md", "desktop/photos/trip.jpg", "desktop/finance/budget_2024.xlsx",
...          "desktop/finance/budget_2023.xlsx", "desktop/finance/invoice.pdf", "archive/budget_2025.xlsx"]
>>> task = tokenize("Compare the budget files on the desktop")
>>> [(i, round(s, 3)) for i, s in BM25([tokenize(p) for p in paths]).top_n(task, 6)]
[(0, 0.231), (1, 0.231), (4, 0.231), (2, 0.209), (3, 0.209), (5, 0.0)]
>>> [(i, round(s, 3)) for i, s in BM25([tokenize(p) for p in paths], idf="lucene").top_n(task, 6)]
[(2, 0.874), (3, 0.874), (5, 0.718), (0, 0.25), (1, 0.25), (4, 0.25)]

Okapi ranks the meeting notes, the holiday photos and the invoice first and the archived budget last: ``budget``
has idf 0 and ``desktop`` has ``eps`` = 0.223, which the shorter paths weigh more. Lucene ranks the three budget
files first (idf 0.693 for ``budget``, 0.241 for ``desktop``). Lucene's tf part is kept as above (with the
``k1 + 1`` factor Lucene dropped in version 8), which scales every score alike and changes no ranking.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain
from typing import Literal

import numpy as np

IdfKind = Literal["okapi", "lucene"]


class BM25:
    """A BM25 index over ``corpus`` (one token sequence per document); see the module docstring for the rules.

    ``k1``, ``b`` and ``epsilon`` default to rank_bm25's; ``epsilon`` only matters for ``idf="okapi"``.
    """

    def __init__(
        self,
        corpus: Sequence[Sequence[str]],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        idf: IdfKind = "okapi",
    ) -> None:
        if idf not in ("okapi", "lucene"):
            raise ValueError(f"idf must be 'okapi' or 'lucene', got {idf!r}")
        if isinstance(corpus, str) or str in set(map(type, corpus)):
            raise TypeError(
                "corpus must be a sequence of token sequences, not of strings (tokenize them first)"
            )
        self.k1, self.b, self.epsilon, self.idf_kind = k1, b, epsilon, idf
        self.n_docs = len(corpus)
        lengths = np.fromiter(map(len, corpus), dtype=np.int64, count=self.n_docs)
        total = int(lengths.sum())
        self.avgdl = total / self.n_docs if total else 0.0
        flat = list(chain.from_iterable(corpus))
        # Term ids in order of first occurrence, as rank_bm25 fills its dicts (this fixes the mean idf's sum order).
        self._vocab: dict[str, int] = dict(zip(dict.fromkeys(flat), range(len(flat)), strict=False))
        term_of_token = np.fromiter(map(self._vocab.__getitem__, flat), dtype=np.int64, count=total)
        doc_of_token = np.repeat(np.arange(self.n_docs, dtype=np.int64), lengths)
        # One sort of (term, doc) keys gives the CSC order and each (term, doc) pair's frequency.
        keys, tf = np.unique(term_of_token * max(self.n_docs, 1) + doc_of_token, return_counts=True)
        terms, self._rows = np.divmod(keys, max(self.n_docs, 1))
        df = np.bincount(terms, minlength=len(self._vocab))
        # Column t of the weight matrix is _rows / _weights[_bounds[t]:_bounds[t + 1]] (a list: cheap to index).
        self._bounds: list[int] = [0, *np.cumsum(df).tolist()]
        self._idf = self._idf_values(df)
        # Same expression and operation order as BM25Okapi.get_scores, so each weight is bit-identical.
        norm = k1 * (1 - b + b * lengths / self.avgdl) if total else np.zeros(self.n_docs)
        self._weights = self._idf[terms] * (tf * (k1 + 1) / (tf + norm[self._rows]))

    def _idf_values(self, df: np.ndarray) -> np.ndarray:
        """idf per term id; ``math.log`` on each distinct document frequency, as rank_bm25 computes it."""
        n = self.n_docs
        distinct, inverse = np.unique(df, return_inverse=True)
        if self.idf_kind == "lucene":
            values = [math.log(1 + (n - f + 0.5) / (f + 0.5)) for f in distinct.tolist()]
            return np.array(values, dtype=np.float64)[inverse]
        values = [math.log(n - f + 0.5) - math.log(f + 0.5) for f in distinct.tolist()]
        idf = np.array(values, dtype=np.float64)[inverse]
        if idf.size:
            # rank_bm25 sums idf one term at a time in first-occurrence order; cumsum adds in the same order.
            eps = self.epsilon * (float(np.cumsum(idf)[-1]) / idf.size)
            idf[idf < 0] = eps
        return idf

    def __len__(self) -> int:
        return self.n_docs

    def idf(self, token: str) -> float:
        """The idf the index gives ``token`` (after okapi's epsilon floor); 0.0 for a token not in the corpus."""
        term = self._vocab.get(token)
        return 0.0 if term is None else float(self._idf[term])

    def _gather(self, query: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(documents, weights) of every (query token, document) pair with a nonzero frequency, in query order."""
        if isinstance(query, str):
            raise TypeError("query must be a sequence of tokens, not a string (tokenize it first)")
        get, bounds = self._vocab.get, self._bounds
        spans = [(bounds[t], bounds[t + 1]) for t in map(get, query) if t is not None]
        if len(spans) == 1:
            start, end = spans[0]
            return self._rows[start:end], self._weights[start:end]
        if not spans:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        # Concatenating column slices (views) is cheaper than one fancy-indexed gather of the same entries.
        rows = np.concatenate([self._rows[start:end] for start, end in spans])
        return rows, np.concatenate([self._weights[start:end] for start, end in spans])

    def get_scores(self, query: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for ``query`` (float64, one per document, 0 where no term matches)."""
        rows, weights = self._gather(query)
        if rows.size == 0:
            return np.zeros(self.n_docs)  # bincount would return integers
        # bincount adds in input order, i.e. per document in query-token order, as rank_bm25 does.
        return np.bincount(rows, weights=weights, minlength=self.n_docs)

    def top_n(self, query: Sequence[str], n: int) -> list[tuple[int, float]]:
        """The best ``n`` documents as ``(index, score)``: score descending, ties by index ascending.

        Only documents sharing at least one token with the query are returned (so fewer than ``n`` when fewer
        match): a document with no query token has no evidence of relevance, and padding with such documents
        would list arbitrary files as best matches. A matching document is kept even when okapi's idf gives it
        a score of 0 or below (a term in exactly half the documents; a corpus of one or two documents, where
        every idf is 0 or negative), so both idf kinds return the same documents, only ordered differently.
        """
        rows, weights = self._gather(query)
        if n <= 0 or rows.size == 0:
            return []
        scores = np.bincount(rows, weights=weights, minlength=self.n_docs)
        hit = np.zeros(self.n_docs, dtype=bool)
        hit[rows] = True
        docs = np.flatnonzero(hit)
        found = scores[docs]
        if docs.size > n:
            # Keep everything tied with the n-th best so the index order among ties is decided below.
            kth = np.partition(found, docs.size - n)[docs.size - n]
            keep = found >= kth
            docs, found = docs[keep], found[keep]
        order = np.argsort(-found, kind="stable")[:n]
        return [(int(d), float(s)) for d, s in zip(docs[order].tolist(), found[order].tolist(), strict=True)]
