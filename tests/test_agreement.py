"""Agreement statistics: published worked examples, parity with scikit-learn and ``krippendorff``, the
undefined cases, the bootstrap, and loading label files."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from rtlab.analysis import bootstrap_weights
from rtlab.annotation import _agreement as ag
from rtlab.errors import ReaderError

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", C. "Nominal data, any number of
# observers, missing data": 4 observers, 12 units, "." = no value.
KRIPPENDORFF_2011 = {
    "A": "1 2 3 3 2 1 4 1 2 . . .",
    "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    "C": ". 3 3 3 2 3 4 2 2 5 1 .",
    "D": "1 2 3 3 2 4 4 1 2 5 1 .",
}


def frame_of(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


def wide_to_frame(wide: dict[str, list[str | None]]) -> pd.DataFrame:
    """Annotator -> labels by item position (None = missing) as a long labels frame."""
    return frame_of(
        [(f"u{u:03d}", a, v) for a, values in wide.items() for u, v in enumerate(values) if v is not None]
    )


def krippendorff_frame() -> pd.DataFrame:
    return wide_to_frame(
        {a: [None if v == "." else v for v in s.split()] for a, s in KRIPPENDORFF_2011.items()}
    )


def wikipedia_kappa() -> tuple[list[str], list[str]]:
    """Wikipedia's Cohen's kappa example: 50 grant proposals, readers A and B say Yes/No.

    A\\B   Yes  No
    Yes   20    5
    No    10   15
    """
    a = ["Yes"] * 20 + ["Yes"] * 5 + ["No"] * 10 + ["No"] * 15
    b = ["Yes"] * 20 + ["No"] * 5 + ["Yes"] * 10 + ["No"] * 15
    return a, b


def random_wide(rng: np.random.Generator) -> dict[str, list[str | None]]:
    """Random labels: 1-40 items, 2-6 annotators, 2-5 categories, up to half the labels missing."""
    n_items, n_ann, n_cats = int(rng.integers(1, 41)), int(rng.integers(2, 7)), int(rng.integers(2, 6))
    p_missing = float(rng.uniform(0, 0.5))
    # a skewed category distribution so that some sets agree well, others not at all
    probs = rng.dirichlet(np.ones(n_cats) * 0.7)
    truth = rng.choice(n_cats, size=n_items, p=probs)
    wide: dict[str, list[str | None]] = {}
    for j in range(n_ann):
        noise = rng.random(n_items) < rng.uniform(0, 0.8)
        values = np.where(noise, rng.choice(n_cats, size=n_items, p=probs), truth)
        missing = rng.random(n_items) < p_missing
        missing[rng.integers(0, n_items)] = False  # every annotator labels something, so it is in the frame
        wide[f"ann{j}"] = [None if m else f"c{v}" for v, m in zip(values, missing, strict=True)]
    return wide


def same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, abs=1e-12)


# ---------------------------------------------------------------------------------------------------------
# Published worked examples


def test_krippendorff_2011_nominal_example() -> None:
    f = krippendorff_frame()
    # Pairable units: u1..u11 (u12 has one value). m_u = 3,4,4,4,4,4,4,4,4,3,2 -> n = 40 pairable values.
    # Coincidences o_ck = sum_u (n_uc n_uk - [c=k] n_uc) / (m_u - 1); the diagonal:
    #   o_11 = u1 3*2/2 + u8 3*2/3 + u11 2*1/1 = 3 + 2 + 2 = 7
    #   o_22 = u2 3*2/3 + u5 4*3/3 + u9 4*3/3 = 2 + 4 + 4 = 10
    #   o_33 = u3 4 + u4 4 = 8;  o_44 = u7 4;  o_55 = u10 3*2/2 = 3   -> sum 32
    # n_c = 9, 13, 10, 5, 3 (sum 40). D_o = (40 - 32)/40 = 0.2;
    # D_e = (40*39 - sum n_c(n_c - 1)) / (40*39) = (1560 - (72+156+90+20+6)) / 1560 = 1216/1560;
    # alpha = 1 - D_o/D_e = 1 - 39*8/1216 = 1 - 312/1216 = 0.743 (Krippendorff's printed value).
    o = ag.coincidence_matrix(f)
    assert list(o.index) == ["1", "2", "3", "4", "5"]
    assert np.diag(o.to_numpy()).tolist() == pytest.approx([7, 10, 8, 4, 3])
    assert o.loc["1", "2"] == pytest.approx(4 / 3)  # u6: 1/3 and u8: 3*1/3 = 1
    assert o.sum(axis=1).tolist() == pytest.approx([9, 13, 10, 5, 3])
    alpha = ag.krippendorff_alpha(f)
    assert alpha == pytest.approx(1 - 312 / 1216, abs=1e-12)
    assert round(alpha, 3) == 0.743
    data = ag.reliability_data(f)
    assert data.shape == (4, 12) and pd.isna(data.loc["A", "u011"]) and data.loc["B", "u011"] == "3"


def test_krippendorff_2011_matches_package() -> None:
    f = krippendorff_frame()
    data = ag.reliability_data(f).to_numpy(dtype=float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert ag.krippendorff_alpha(f) == pytest.approx(expected, abs=1e-12)


def test_wikipedia_cohen_kappa_example() -> None:
    a, b = wikipedia_kappa()
    # p_o = (20 + 15)/50 = 0.70; A says Yes 25/50 = 0.5, B says Yes 30/50 = 0.6;
    # p_e = 0.5*0.6 + 0.5*0.4 = 0.50; kappa = (0.70 - 0.50)/(1 - 0.50) = 0.40
    assert ag.cohen_kappa_score(a, b) == pytest.approx(0.4, abs=1e-12)
    assert ag.cohen_kappa_score(b, a) == pytest.approx(0.4, abs=1e-12)
    f = wide_to_frame({"A": a, "B": b})
    assert ag.pairwise_kappa(f) == {"A|B": pytest.approx(0.4, abs=1e-12)}
    assert ag.percent_agreement(f) == pytest.approx(0.70)  # two annotators: percent agreement is p_o
    cm = ag.confusion_matrix(f, "A", "B")
    assert cm.loc["Yes", "No"] == 5 and cm.loc["No", "Yes"] == 10  # reference (A) labels are the rows
    assert cm.index.name == "A" and cm.columns.name == "B"


# ---------------------------------------------------------------------------------------------------------
# Parity


def test_kappa_parity_with_sklearn_on_random_sequences() -> None:
    rng = np.random.default_rng(20240501)
    checked = 0
    for _ in range(300):
        n, n_cats = int(rng.integers(1, 60)), int(rng.integers(1, 6))
        a = [f"c{v}" for v in rng.integers(0, n_cats, n)]
        b = [a[i] if rng.random() < 0.6 else f"c{rng.integers(0, n_cats)}" for i in range(n)]
        labels = None
        if rng.random() < 0.3:
            labels = sorted({*a, *b})[: max(1, n_cats - 1)]
            if not set(labels) & set(a):  # scikit-learn refuses labels absent from y1; ours gives nan
                continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = skm.cohen_kappa_score(a, b, labels=labels)
        assert same(ag.cohen_kappa_score(a, b, labels=labels), expected), (a, b, labels)
        checked += 1
    assert checked > 250


def test_pairwise_kappa_parity_with_sklearn_on_shared_items() -> None:
    rng = np.random.default_rng(7)
    defined = 0
    for _ in range(60):
        wide = random_wide(rng)
        result = ag.pairwise_kappa(wide_to_frame(wide))
        names = sorted(wide)
        assert list(result) == [f"{x}|{y}" for i, x in enumerate(names) for y in names[i + 1 :]]
        for key, value in result.items():
            x, y = key.split("|")
            shared = [i for i, (p, q) in enumerate(zip(wide[x], wide[y], strict=True)) if p and q]
            if not shared:
                assert math.isnan(value)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = skm.cohen_kappa_score([wide[x][i] for i in shared], [wide[y][i] for i in shared])
            assert same(value, expected), key
            defined += not math.isnan(value)
    assert defined > 300


def test_alpha_parity_with_krippendorff_package_on_random_data_with_missing() -> None:
    rng = np.random.default_rng(11)
    compared = 0
    for _ in range(300):
        wide = random_wide(rng)
        f = wide_to_frame(wide)
        ours = ag.krippendorff_alpha(f)
        codes = sorted({v for vs in wide.values() for v in vs if v})
        data = np.array([[np.nan if v is None else codes.index(v) for v in vs] for vs in wide.values()])
        if len(codes) < 2:  # the package refuses a one-value domain; alpha is undefined
            assert math.isnan(ours)
            continue
        with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
            warnings.simplefilter("ignore")
            expected = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
        assert same(ours, expected), wide
        compared += 1
    assert compared > 250


def test_confusion_matrix_and_category_scores_parity_with_sklearn() -> None:
    rng = np.random.default_rng(3)
    for _ in range(60):
        wide = random_wide(rng)
        f = wide_to_frame(wide)
        shared = [i for i, (p, q) in enumerate(zip(wide["ann0"], wide["ann1"], strict=True)) if p and q]
        y_ref, y_ann = [wide["ann0"][i] for i in shared], [wide["ann1"][i] for i in shared]
        cm = ag.confusion_matrix(f, "ann0", "ann1")
        labels = sorted({*y_ref, *y_ann})
        assert list(cm.index) == labels == list(cm.columns)
        if not shared:
            assert cm.shape == (0, 0)
            continue
        scores = ag.category_scores(f, "ann0", "ann1")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert (cm.to_numpy() == skm.confusion_matrix(y_ref, y_ann, labels=labels)).all()
            p, r, f1, support = skm.precision_recall_fscore_support(
                y_ref, y_ann, labels=labels, zero_division=np.nan
            )
        np.testing.assert_allclose(scores["precision"], p, equal_nan=True)
        np.testing.assert_allclose(scores["recall"], r, equal_nan=True)
        np.testing.assert_allclose(scores["f1"], f1, equal_nan=True)
        assert scores["support"].tolist() == support.tolist()


def test_category_scores_by_hand() -> None:
    f = wide_to_frame({"ref": ["x", "x", "y", "z"], "ann": ["x", "y", "y", "y"]})
    s = ag.category_scores(f, "ref", "ann")
    # x: tp 1, fp 0, fn 1; y: tp 1, fp 2 (items 2 and 4), fn 0; z: tp 0, fp 0, fn 1 (precision 0/0)
    assert s.loc["x"].tolist() == pytest.approx([1.0, 0.5, 2 / 3, 2])
    assert s.loc["y"].tolist() == pytest.approx([1 / 3, 1.0, 0.5, 1])
    assert math.isnan(s.loc["z", "precision"]) and s.loc["z", "recall"] == 0 and s.loc["z", "f1"] == 0
    assert s["support"].tolist() == [2, 1, 1]
    restricted = ag.confusion_matrix(f, "ref", "ann", labels=["y", "x"])
    assert list(restricted.index) == ["y", "x"] and restricted.to_numpy().tolist() == [[1, 0], [1, 1]]


def test_kappa_against_reference() -> None:
    a, b = wikipedia_kappa()
    f = wide_to_frame({"gold": a, "llm": b, "copy": a})
    result = ag.kappa_against(f, "gold")
    assert result == {"copy": 1.0, "llm": pytest.approx(0.4)}
    with pytest.raises(ValueError, match="unknown annotator 'nobody'"):
        ag.kappa_against(f, "nobody")


def test_percent_agreement_pools_pairs_over_items() -> None:
    f = krippendorff_frame()
    # agreeing pairs / pairs per item: u1 3/3, u2 3/6, u3 6/6, u4 6/6, u5 6/6, u6 0/6, u7 6/6, u8 3/6, u9 6/6,
    # u10 3/3, u11 1/1 (u12: one label, no pair) -> 43/55. The mean over items would be 9/11 and
    # Krippendorff's 1 - D_o (items weighted by m_u) 32/40: the three differ when labels are missing.
    assert ag.percent_agreement(f) == pytest.approx(43 / 55)
    assert ag.percent_agreement(f) != pytest.approx(9 / 11)
    assert ag.percent_agreement(f) != pytest.approx(32 / 40)


# ---------------------------------------------------------------------------------------------------------
# Undefined cases


def test_one_category_only() -> None:
    f = wide_to_frame({"A": ["x", "x", "x"], "B": ["x", "x", "x"]})
    # p_e = 1: kappa is 0/0, as scikit-learn says (nan with a warning); alpha's D_e = 0 likewise.
    assert math.isnan(ag.cohen_kappa_score(["x"] * 3, ["x"] * 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(skm.cohen_kappa_score(["x"] * 3, ["x"] * 3))
    assert math.isnan(ag.pairwise_kappa(f)["A|B"])
    assert math.isnan(ag.krippendorff_alpha(f))
    assert ag.percent_agreement(f) == 1.0
    # each annotator constant but on different categories: p_o = 0 = p_e, kappa = 0 (defined)
    assert ag.cohen_kappa_score(["x", "x"], ["y", "y"]) == 0.0


def test_one_rater() -> None:
    f = wide_to_frame({"solo": ["x", "y", "z"]})
    assert math.isnan(ag.krippendorff_alpha(f))
    assert math.isnan(ag.percent_agreement(f))
    assert ag.pairwise_kappa(f) == {}
    report = ag.agreement_report(f, n_boot=50)
    assert report["krippendorff_alpha"] is None and report["krippendorff_alpha_ci"] is None
    assert report["n_annotators"] == 1 and report["n_pairable_items"] == 0 and report["cohen_kappa"] == {}


def test_no_pairable_items() -> None:
    f = wide_to_frame({"A": ["x", "y", None, None], "B": [None, None, "x", "y"]})
    assert math.isnan(ag.pairwise_kappa(f)["A|B"])
    assert math.isnan(ag.krippendorff_alpha(f))
    assert math.isnan(ag.percent_agreement(f))
    report = ag.agreement_report(f, n_boot=20)
    assert report["cohen_kappa"] == {"A|B": None} and report["cohen_kappa_ci"] == {"A|B": None}
    assert report["cohen_kappa_n_items"] == {"A|B": 0}


def test_empty_frame() -> None:
    f = frame_of([])
    assert math.isnan(ag.krippendorff_alpha(f)) and math.isnan(ag.percent_agreement(f))
    assert ag.pairwise_kappa(f) == {}
    assert math.isnan(ag.cohen_kappa_score([], []))
    assert ag.coincidence_matrix(f).shape == (0, 0)
    report = ag.agreement_report(f)
    assert (
        report["n_items"] == 0
        and report["krippendorff_alpha"] is None
        and report["percent_agreement"] is None
    )
    json.dumps(report, allow_nan=False)


def test_single_disagreeing_item() -> None:
    f = wide_to_frame({"A": ["x"], "B": ["y"]})
    # o_xy = o_yx = 1, n = 2: D_o = 2/2 = 1, D_e = 2/(2*1) = 1 -> alpha = 0; kappa: p_o = 0 = p_e -> 0
    assert ag.krippendorff_alpha(f) == 0.0
    assert ag.pairwise_kappa(f) == {"A|B": 0.0}


def test_invalid_inputs() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        ag.cohen_kappa_score(["x"], ["x", "y"])
    with pytest.raises(ValueError, match="missing label"):
        ag.cohen_kappa_score(["x", None], ["x", "y"])
    with pytest.raises(ValueError, match="only 'nominal'"):
        ag.krippendorff_alpha(krippendorff_frame(), level="interval")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="missing column 'label'"):
        ag.percent_agreement(pd.DataFrame({"item": ["1"], "annotator": ["A"]}))
    with pytest.raises(ValueError, match=r"labelled 'x' and 'y' \(rows 0, 2\)"):
        ag.check_labels(frame_of([("1", "A", "x"), ("2", "A", "x"), ("1", "A", "y")]))
    with pytest.raises(ValueError, match="contains '\\|'"):
        ag.pairwise_kappa(frame_of([("1", "A|B", "x")]))
    with pytest.raises(ValueError, match="n_boot"):
        ag.agreement_report(krippendorff_frame(), n_boot=-1)


def test_check_labels_cleans() -> None:
    f = pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3],
            "annotator": ["A", "A", " B", "A", "B"],
            "label": ["x", "x", "y ", None, ""],
        }
    )
    clean = ag.check_labels(f)
    # numbers become strings, whitespace is stripped, the exact repeat and the empty labels are dropped
    assert clean[["item", "annotator", "label"]].values.tolist() == [["1", "A", "x"], ["2", "B", "y"]]


# ---------------------------------------------------------------------------------------------------------
# Bootstrap and report


def test_report_values_match_functions_and_are_strict_json() -> None:
    f = krippendorff_frame()
    report = ag.agreement_report(f, reference="A", n_boot=200, seed=1)
    assert report["krippendorff_alpha"] == ag.krippendorff_alpha(f)
    assert report["percent_agreement"] == ag.percent_agreement(f)
    assert report["cohen_kappa"] == ag.pairwise_kappa(f)
    assert report["kappa_against_reference"] == ag.kappa_against(f, "A")
    assert (report["n_items"], report["n_annotators"], report["n_labels"], report["n_pairable_items"]) == (
        12,
        4,
        41,
        11,
    )
    assert report["cohen_kappa_n_items"]["A|B"] == 9  # u1..u9 labelled by both
    assert report["confusion_matrices"]["C"]["1"] == {
        "1": 0,
        "2": 1,
        "3": 1,
        "4": 0,
    }  # u8: A 1, C 2; u6: A 1, C 3
    assert report["category_scores"]["C"]["1"]["precision"] is None  # C never says 1 where A labelled
    low, high = report["krippendorff_alpha_ci"]
    assert -1 <= low < report["krippendorff_alpha"] < high <= 1
    json.dumps(report, allow_nan=False)
    with pytest.raises(ValueError, match="unknown annotator"):
        ag.agreement_report(f, reference="Z")


def test_bootstrap_matches_explicit_resampling() -> None:
    """The vectorised replicates equal the statistics recomputed on explicitly resampled frames."""
    f = krippendorff_frame()
    n_boot, seed = 40, 5
    items = sorted(f["item"].unique())
    weights = bootstrap_weights(len(items), n_boot, seed)
    alphas, kappas = [], []
    for counts in weights:
        copies = [
            f[f["item"] == item].assign(item=f"{item}#{k}")
            for item, count in zip(items, counts, strict=True)
            for k in range(count)
        ]
        resampled = pd.concat(copies, ignore_index=True)
        alphas.append(ag.krippendorff_alpha(resampled))
        kappas.append(ag.pairwise_kappa(resampled)["A|C"])
    report = ag.agreement_report(f, n_boot=n_boot, seed=seed)

    def interval(values: list[float]) -> list[float]:
        finite = np.array(values)[np.isfinite(values)]
        return np.percentile(finite, [2.5, 97.5]).tolist()

    assert report["krippendorff_alpha_ci"] == pytest.approx(interval(alphas), abs=1e-12)
    assert report["cohen_kappa_ci"]["A|C"] == pytest.approx(interval(kappas), abs=1e-12)


def test_bootstrap_is_deterministic_by_seed() -> None:
    f = krippendorff_frame()
    first = ag.agreement_report(f, n_boot=300, seed=42)
    assert ag.agreement_report(f, n_boot=300, seed=42) == first
    other = ag.agreement_report(f, n_boot=300, seed=43)
    assert other["krippendorff_alpha_ci"] != first["krippendorff_alpha_ci"]
    assert other["krippendorff_alpha"] == first["krippendorff_alpha"]


def test_bootstrap_degenerate_intervals() -> None:
    # one item: every replicate draws it, so the interval collapses onto the value
    single = ag.agreement_report(wide_to_frame({"A": ["x"], "B": ["y"]}), n_boot=100)
    assert single["krippendorff_alpha_ci"] == [0.0, 0.0] and single["cohen_kappa_ci"]["A|B"] == [0.0, 0.0]
    # perfect agreement on two categories: replicates are 1, or undefined when only one category is drawn
    perfect = ag.agreement_report(wide_to_frame({"A": ["x", "y", "x"], "B": ["x", "y", "x"]}), n_boot=100)
    assert perfect["krippendorff_alpha"] == 1.0 and perfect["krippendorff_alpha_ci"] == [1.0, 1.0]
    assert perfect["percent_agreement_ci"] == [1.0, 1.0]
    # one category: undefined in every replicate -> no interval
    flat = ag.agreement_report(wide_to_frame({"A": ["x", "x"], "B": ["x", "x"]}), n_boot=100)
    assert flat["krippendorff_alpha"] is None and flat["krippendorff_alpha_ci"] is None
    # no resampling asked for
    none = ag.agreement_report(krippendorff_frame(), n_boot=0)
    assert (
        none["krippendorff_alpha"] == pytest.approx(0.743, abs=5e-4) and none["krippendorff_alpha_ci"] is None
    )


def test_report_is_fast_enough_for_thousands_of_items() -> None:
    rng = np.random.default_rng(0)
    n = 3000
    truth = rng.integers(0, 4, n)
    wide = {
        f"m{j}": [
            None if rng.random() < 0.2 else f"c{v if rng.random() < 0.8 else rng.integers(0, 4)}"
            for v in truth
        ]
        for j in range(5)
    }
    report = ag.agreement_report(wide_to_frame(wide), reference="m0", n_boot=1000)
    assert 0.5 < report["krippendorff_alpha"] < 0.9 and len(report["cohen_kappa"]) == 10


# ---------------------------------------------------------------------------------------------------------
# Loading label files


def write(tmp_path: Path, text: str, name: str = "labels.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_load_csv_with_extra_columns_and_quoted_newlines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "item,annotator,label,evidence\n"
        't1:3,gpt,not_read,"line one\nline two"\n'
        "t1:3,human,not_read,\n"
        "t1:3,human,not_read,again\n"  # exact repeat of (item, annotator, label): dropped
        "t2:0,human,,\n"  # empty label: missing
        "\n"
        "t2:0, gpt ,misread ,x\n",
    )
    f = ag.load_labels(path)
    assert f[["item", "annotator", "label"]].values.tolist() == [
        ["t1:3", "gpt", "not_read"],
        ["t1:3", "human", "not_read"],
        ["t2:0", "gpt", "misread"],
    ]
    assert f["evidence"].tolist() == ["line one\nline two", "", "x"]


def test_load_csv_conflict_names_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path, 'item,annotator,label,note\n1,A,x,"a\nb"\n2,A,y,\n1,A,z,\n')
    with pytest.raises(ReaderError) as err:
        ag.load_labels(path)
    # the first row spans lines 2-3, so the conflicting one is on line 5
    assert err.value.line == 5 and err.value.field == "label"
    assert "on lines 2 and 5" in str(err.value) and "'x' and 'z'" in str(err.value)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ("item,annotator\n1,A\n", 1, "label", "missing column 'label'"),
        ("item,annotator,label\n1,A,x\n,B,y\n", 3, "item", "empty item"),
        ("item,annotator,label\n1,A,x\n2,,y\n", 3, "annotator", "empty annotator"),
        ("item,annotator,label\n1,A|B,x\n", 2, "annotator", "contains '|'"),
        ("item,annotator,label\n1,A,x\n2,B\n", 3, None, "expected 3 fields"),
        ("item,annotator,label,label\n1,A,x,y\n", 1, None, "repeated column"),
        ("  \n", 1, None, "empty file"),
    ],
)
def test_load_csv_errors(tmp_path: Path, text: str, line: int, field: str | None, message: str) -> None:
    with pytest.raises(ReaderError, match=message.replace("|", "\\|")) as err:
        ag.load_labels(write(tmp_path, text))
    assert (err.value.line, err.value.field) == (line, field)


def test_load_csv_non_utf8_bom_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes(b"item,annotator,label\n1,A,caf\xe9\n")
    with pytest.raises(ReaderError, match="UTF-8") as err:
        ag.load_labels(path)
    assert err.value.line == 2
    bom = tmp_path / "bom.csv"
    bom.write_bytes("item,annotator,label\n1,A,x\n".encode("utf-8-sig"))
    assert ag.load_labels(bom).values.tolist() == [["1", "A", "x"]]
    with pytest.raises(ReaderError, match="no such file"):
        ag.load_labels(tmp_path / "absent.csv")


def test_load_parquet(tmp_path: Path) -> None:
    path = tmp_path / "labels.parquet"
    pd.DataFrame({"item": [1, 2, 2], "annotator": ["A", "A", "B"], "label": ["x", "y", None]}).to_parquet(
        path
    )
    assert ag.load_labels(path).values.tolist() == [["1", "A", "x"], ["2", "A", "y"]]
    bad = tmp_path / "conflict.parquet"
    pd.DataFrame({"item": ["1", "1"], "annotator": ["A", "A"], "label": ["x", "y"]}).to_parquet(bad)
    with pytest.raises(ReaderError, match="on rows 1 and 2") as err:  # a Parquet file has rows, not lines
        ag.load_labels(bad)
    assert err.value.line == 2 and err.value.field == "label"
    no_label = tmp_path / "nolabel.parquet"
    pd.DataFrame({"item": ["1"], "annotator": ["A"]}).to_parquet(no_label)
    with pytest.raises(ReaderError, match="missing column 'label'") as err:
        ag.load_labels(no_label)
    assert err.value.line is None and err.value.field == "label"
    junk = write(tmp_path, "not parquet", "junk.parquet")
    with pytest.raises(ReaderError, match="not a readable Parquet file"):
        ag.load_labels(junk)


def test_loaded_file_gives_published_alpha(tmp_path: Path) -> None:
    f = krippendorff_frame()
    path = tmp_path / "k.csv"
    f.sample(frac=1, random_state=0).to_csv(path, index=False)  # row order must not matter
    assert ag.krippendorff_alpha(ag.load_labels(path)) == pytest.approx(1 - 312 / 1216, abs=1e-12)
