"""BM25: identical to rank_bm25.BM25Okapi on random corpora, clean empty cases, top_n order, the Lucene idf."""

from __future__ import annotations

import doctest
import math
import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

import rtlab.text._bm25
from rtlab.text import BM25


def _random_case(rng: random.Random) -> tuple[list[list[str]], list[list[str]]]:
    """A corpus (empty documents, repeated tokens, a skewed vocabulary) and queries (repeats, unknown tokens)."""
    vocab = [f"t{i}" for i in range(rng.randint(1, 40))]
    weights = [1 / (i + 1) ** rng.choice([0, 1, 2]) for i in range(len(vocab))]
    corpus = [
        rng.choices(vocab, weights, k=rng.choice([0, 0, 1, 2, 3, 5, 8, 20]))
        for _ in range(rng.randint(1, 60))
    ]
    if not any(corpus):
        corpus[0] = [vocab[0]]
    queries = [rng.choices([*vocab, "unknown", "zz"], k=rng.randint(0, 8)) for _ in range(4)]
    return corpus, queries


def test_scores_equal_rank_bm25_on_random_corpora() -> None:
    rng = random.Random(20240601)
    compared = 0
    for _ in range(400):
        corpus, queries = _random_case(rng)
        ref, ours = BM25Okapi(corpus), BM25(corpus)
        for query in queries:
            expected = ref.get_scores(query)
            got = ours.get_scores(query)
            assert got.dtype == np.float64 and got.shape == (len(corpus),)
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
            compared += 1
        for token, idf in ref.idf.items():
            assert ours.idf(token) == pytest.approx(idf, abs=1e-12)
    assert compared == 1600


@pytest.mark.parametrize(("k1", "b", "epsilon"), [(1.2, 0.75, 0.25), (2.0, 0.3, 0.5), (0.5, 1.0, 0.0)])
def test_other_parameters_equal_rank_bm25(k1: float, b: float, epsilon: float) -> None:
    rng = random.Random(7)
    for _ in range(50):
        corpus, queries = _random_case(rng)
        ref = BM25Okapi(corpus, k1=k1, b=b, epsilon=epsilon)
        ours = BM25(corpus, k1=k1, b=b, epsilon=epsilon)
        for query in queries:
            with np.errstate(invalid="ignore"):
                expected = ref.get_scores(query)
            if b == 1.0:
                # rank_bm25 computes 0 / 0 for an empty document when b = 1 (its length norm is 0).
                empty = np.array([not doc for doc in corpus])
                assert not np.isnan(expected[~empty]).any()
                expected = np.where(empty, 0.0, expected)
            np.testing.assert_allclose(ours.get_scores(query), expected, rtol=0, atol=1e-9)


def test_empty_document_scores_zero_where_rank_bm25_gives_nan_for_b_1() -> None:
    corpus = [["a", "b"], [], ["a"]]
    with np.errstate(invalid="ignore"):
        assert np.isnan(BM25Okapi(corpus, b=1.0).get_scores(["a"])[1])
    assert BM25(corpus, b=1.0).get_scores(["a"])[1] == 0.0


def test_term_in_exactly_half_the_documents_scores_zero() -> None:
    corpus = [["x", "a"], ["x", "b"], ["c"], ["d", "e"]]
    ours = BM25(corpus)
    assert ours.idf("x") == 0.0
    assert ours.get_scores(["x"]).tolist() == [0.0, 0.0, 0.0, 0.0]
    np.testing.assert_allclose(ours.get_scores(["x"]), BM25Okapi(corpus).get_scores(["x"]), atol=1e-9)


def test_term_in_every_document_gets_epsilon_times_mean_idf() -> None:
    corpus = [["all", "a1"], ["all", "b1", "b2"], ["all"], ["all", "d1"], ["all", "e1"]]
    ours = BM25(corpus)
    n = 5
    raw = {"all": math.log(0.5) - math.log(5.5)} | {
        t: math.log(n - 0.5) - math.log(1.5) for t in "a1 b1 b2 d1 e1".split()
    }
    eps = 0.25 * sum(raw.values()) / len(raw)
    assert ours.idf("all") == pytest.approx(eps, abs=1e-15)
    assert eps > 0
    scores = ours.get_scores(["all"])
    assert (scores > 0).all()
    np.testing.assert_allclose(scores, BM25Okapi(corpus).get_scores(["all"]), atol=1e-9)


def test_repeated_query_tokens_count_each_time_and_unknown_tokens_add_nothing() -> None:
    corpus = [["budget", "review"], ["budget", "budget", "plan"], ["notes"]]
    ours = BM25(corpus)
    once = ours.get_scores(["budget"])
    np.testing.assert_allclose(ours.get_scores(["budget", "budget", "nowhere"]), 2 * once, rtol=1e-15)
    assert ours.get_scores(["nowhere"]).tolist() == [0.0, 0.0, 0.0]


def test_empty_corpus_gives_empty_results_where_rank_bm25_divides_by_zero() -> None:
    with pytest.raises(ZeroDivisionError):
        BM25Okapi([])
    ours = BM25([])
    assert len(ours) == 0
    scores = ours.get_scores(["a", "b"])
    assert scores.dtype == np.float64 and scores.shape == (0,)
    assert ours.top_n(["a"], 5) == []
    assert ours.idf("a") == 0.0


def test_corpus_of_empty_documents_scores_zero_and_matches_nothing() -> None:
    with pytest.raises(ZeroDivisionError):
        BM25Okapi([[], [], []])
    ours = BM25([[], [], []])
    assert len(ours) == 3
    assert ours.get_scores(["a"]).tolist() == [0.0, 0.0, 0.0]
    assert ours.top_n(["a"], 2) == []


def test_empty_query() -> None:
    ours = BM25([["a"], ["b"]])
    assert ours.get_scores([]).tolist() == [0.0, 0.0]
    assert ours.top_n([], 3) == []


def test_top_n_order_ties_and_only_matching_documents() -> None:
    corpus = [["b"], ["a"], ["c"], ["a"], ["a"], ["a", "x"], ["y"]]
    ours = BM25(corpus)
    scores = ours.get_scores(["a"])
    assert scores[1] == scores[3] == scores[4] > scores[5] > 0
    assert ours.top_n(["a"], 10) == [(1, scores[1]), (3, scores[3]), (4, scores[4]), (5, scores[5])]
    # The tie at the cut is broken by index: the lower indices win.
    assert ours.top_n(["a"], 2) == [(1, scores[1]), (3, scores[3])]
    assert ours.top_n(["a"], 0) == [] and ours.top_n(["a"], -1) == []
    assert ours.top_n(["zz"], 3) == []
    assert all(isinstance(i, int) and isinstance(s, float) for i, s in ours.top_n(["a"], 3))


def test_top_n_keeps_matching_documents_with_zero_or_negative_okapi_scores() -> None:
    # Two documents: "a" (in both) gets a negative epsilon, "b" (in one, exactly half) gets idf 0.
    corpus = [["a", "b"], ["a"]]
    ours = BM25(corpus)
    scores = ours.get_scores(["a", "b"])
    assert (scores < 0).all()
    np.testing.assert_allclose(scores, BM25Okapi(corpus).get_scores(["a", "b"]), atol=1e-9)
    assert [i for i, _ in ours.top_n(["a", "b"], 5)] == [int(np.argmax(scores)), int(np.argmin(scores))]
    assert ours.top_n(["b"], 5) == [(0, 0.0)]


def test_top_n_equals_sorting_all_matching_documents() -> None:
    rng = random.Random(5)
    for _ in range(200):
        corpus, queries = _random_case(rng)
        for kind in ("okapi", "lucene"):
            ours = BM25(corpus, idf=kind)
            for query in queries:
                scores = ours.get_scores(query)
                matching = [i for i, doc in enumerate(corpus) if set(doc) & set(query)]
                expected = sorted(matching, key=lambda i, s=scores: (-s[i], i))
                for n in (1, 3, len(corpus)):
                    assert ours.top_n(query, n) == [(i, scores[i]) for i in expected[:n]]


def _lucene_reference(
    corpus: list[list[str]], query: list[str], k1: float = 1.5, b: float = 0.75
) -> list[float]:
    n_docs = len(corpus)
    avgdl = sum(map(len, corpus)) / n_docs
    scores = []
    for doc in corpus:
        score = 0.0
        for token in query:
            df = sum(token in d for d in corpus)
            if df == 0:
                continue
            idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            tf = doc.count(token)
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(score)
    return scores


def test_lucene_idf_is_positive_and_matches_a_direct_computation() -> None:
    rng = random.Random(9)
    for _ in range(100):
        corpus, queries = _random_case(rng)
        ours = BM25(corpus, idf="lucene")
        for token in {t for doc in corpus for t in doc}:
            assert ours.idf(token) > 0
        for query in queries:
            np.testing.assert_allclose(
                ours.get_scores(query), _lucene_reference(corpus, query), rtol=1e-12, atol=0
            )


def test_lucene_orders_terms_by_document_frequency_where_okapi_does_not() -> None:
    # "common" is in 9 of 10 documents, "half" in 5, "rare" in 1; every other token is unique.
    corpus = [[f"u{i}", f"v{i}"] for i in range(10)]
    for i in range(9):
        corpus[i].append("common")
    for i in range(5):
        corpus[i].append("half")
    corpus[0].append("rare")
    okapi, lucene = BM25(corpus), BM25(corpus, idf="lucene")
    assert okapi.idf("common") > okapi.idf("half") == 0.0
    assert lucene.idf("rare") > lucene.idf("half") > lucene.idf("common") > 0


def test_docstring_example() -> None:
    result = doctest.testmod(rtlab.text._bm25)
    assert result.attempted >= 4 and result.failed == 0


def test_scores_are_a_fresh_array_and_inputs_may_be_tuples() -> None:
    ours = BM25((("a", "b"), ("a",), ("c",)))
    first = ours.get_scores(("a",))
    first[:] = 99.0
    np.testing.assert_allclose(
        ours.get_scores(["a"]), BM25Okapi([["a", "b"], ["a"], ["c"]]).get_scores(["a"])
    )


def test_rejects_untokenised_input_and_unknown_idf() -> None:
    with pytest.raises(TypeError, match="tokenize"):
        BM25(["desktop/report.pdf", "notes.md"])
    with pytest.raises(TypeError, match="tokenize"):
        BM25([["a"]]).get_scores("a")
    with pytest.raises(ValueError, match="idf"):
        BM25([["a"]], idf="bm25+")  # type: ignore[arg-type]
