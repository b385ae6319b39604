"""The failure codebook: shipped as package data, typed, versioned, consistent with itself."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from importlib import resources

import pytest

from rtlab.analysis import (
    CATEGORIES,
    CODEBOOK_FILE,
    CODEBOOK_VERSION,
    CodebookError,
    load_codebook,
    parse_codebook,
)

REAL_RUN = re.compile(r"^codex:(15|44|95)_(plain|nokg|gfs_off|gfs_on|cloud)$")
RUBRIC_SIZE = {"15": 16, "44": 16, "95": 12}


def raw() -> dict:
    return json.loads(resources.files("rtlab.analysis").joinpath(CODEBOOK_FILE).read_text(encoding="utf-8"))


def test_packaged_codebook_loads_with_its_version():
    cb = load_codebook()
    # codebook 2 (anchors, item attribution), 2.1 (how a wrong one-number answer was built), 2.2 (what an item
    # needs, derived from the records shown)
    assert cb.version == CODEBOOK_VERSION == "rtlab-codebook/2.5"  # 2.5: statistics; 2.4: the trace
    assert cb.changes[0].startswith("2.5") and cb.changes[1].startswith("2.4")  # newest first
    assert tuple(c.key for c in cb.categories) == CATEGORIES
    assert load_codebook() is cb  # read once; records are immutable
    with pytest.raises(dataclasses.FrozenInstanceError):
        cb.version = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        cb.lexicon.lists["format_words"] = ()  # type: ignore[index]


def test_other_has_the_required_subreasons():
    other = load_codebook().category("other")
    keys = [s.key for s in other.subreasons]
    assert keys == [
        "reasoning_computation",
        "format_instructions",
        "judge_error",
        "missing_deliverable",
        "undetermined",
    ]
    assert load_codebook().subreasons == tuple(keys)


def test_rules_are_ordered_and_each_assigns_a_known_category():
    cb = load_codebook()
    # codebook 2 inserts the anchor rules R10a-R10c after the value rules, keeping v1's ids; 2.1 the rules of a
    # wrong one-number answer R7a-R7c after R7
    ids = [f"R{i}" for i in range(1, 17)]
    assert (
        [r.id for r in cb.rules]
        == [
            *ids[:2],
            "R2a",
            "R2b",
            *ids[2:7],
            "R7a",
            "R7b",
            "R7c",
            "R7d",
            *ids[7:9],
            "R9b",
            ids[9],
            "R10a",
            "R10b",
            "R10c",
            *ids[10:14],
            "R9a",
            "R7e",
            ids[14],
            "R15a",
            ids[15],
        ]
    )  # and 2.1's R2a (data asked of a run that opened no source), R15a (the judge's claim checked) before R16;
    # 2.2's R2b (a data file opened as far as its headers) after R2a, R9a (records shown, none delivered) before R15,
    # R7d (the expression's neighbour gives the answer) after R7c, R9b (only the source files hold it) after R9;
    # 2.5's R7e (the records of some needed files delivered, none of others') after R9a
    for r in cb.rules:
        assert r.category in CATEGORIES
        assert (r.subreason is None) == (r.category != "other")
        assert len(r.text) > 40
    # every category lists exactly the rules that assign it, in order
    for c in cb.categories:
        assert c.rules == tuple(r.id for r in cb.rules if r.category == c.key)
        assert c.definition and c.name


def test_every_category_and_subreason_has_a_real_example_or_says_why_not():
    cb = load_codebook()
    examples = [c.example for c in cb.categories] + [s.example for c in cb.categories for s in c.subreasons]
    for ex in examples:
        assert ex.why
        if ex.run is None:
            assert ex.rubric_index is None and ex.cite == "(no real example)"
            continue
        assert REAL_RUN.match(ex.run), ex.run
        task = ex.run.split(":")[1].split("_")[0]
        assert 0 <= ex.rubric_index < RUBRIC_SIZE[task]
        assert ex.cite == f"{ex.run} rubric {ex.rubric_index}"
    # the four categories cite real runs; only missing_deliverable has none
    assert all(c.example.run is not None for c in cb.categories)
    assert [s.key for c in cb.categories for s in c.subreasons if s.example.run is None] == [
        "missing_deliverable"
    ]


def test_lexicon_finds_judge_phrases_in_both_languages():
    lex = load_codebook().lexicon
    assert lex.has("absent_phrases", "No evidence confirms the output Excel contains a worksheet")
    assert lex.has("absent_phrases", "DevTask_Dashboard.html的内容被截断，无法验证该要求。")
    assert lex.has("mismatch_phrases", "The top expense amount is 1500, not 3200 as stated in the rubric")
    assert lex.has("mismatch_phrases", "与要求的Top5金额534、576、436、424、291完全不符")
    assert not lex.has("mismatch_phrases", "The dashboard only reports a source file access error")
    assert lex.has("rubric_error_phrases", "(the rubric incorrectly lists the second value as 576)")
    assert not lex.has("rubric_error_phrases", "which do not match the rubric's stated values of 3200")
    assert lex.find("format_words", "Does the new Excel file contain a Worksheet named `Top5`?") == [
        "named",
        "Worksheet",
    ]
    assert lex.find("mismatch_phrases", "is 1500, not 3200 as stated") == [", not 3"]
    assert lex.has("format_words", "是否包含名为“汇总”的工作表")
    assert not lex.has("format_words", "Does the HTML dashboard display a total of 120 tasks?")
    assert lex.has("access_words", "Are the three source files successfully located and accessible?")
    assert lex.has("reasoning_words", "ordered by development start date in ascending order")


def test_describe_lists_categories_and_rules_in_order():
    text = load_codebook().describe()
    assert text.startswith("Why a rubric point was lost")
    positions = [text.index(f"  R{i} -> ") for i in range(1, 17)]
    assert positions == sorted(positions)
    for name in ("Shown but Missing", "Dropped or Distorted", "Discovery failure", "Judge or rubric error"):
        assert name in text
    assert "labeler: " in text


def test_load_from_path_and_its_errors(tmp_path):
    good = tmp_path / "draft.json"
    data = raw()
    data["version"] = "rtlab-codebook/2-draft"
    good.write_text(json.dumps(data), encoding="utf-8")
    assert load_codebook(good).version == "rtlab-codebook/2-draft"
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": "x",\n  oops}', encoding="utf-8")
    with pytest.raises(CodebookError, match=r"bad\.json: invalid JSON at line 2"):
        load_codebook(bad)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.pop("rules"), r"codebook: missing field 'rules'"),
        (lambda d: d["rules"][3].pop("text"), r"codebook\.rules\[3\]: missing field 'text'"),
        (
            lambda d: d["categories"][0]["example"].update(rubric_index="8"),
            r"categories\[0\]\.example\.rubric_index",
        ),
        (lambda d: d["categories"].reverse(), r"categories must be"),
        (lambda d: d["rules"][1].update(id="R1"), r"rule ids repeat"),
        (
            lambda d: d["rules"][1].update(category="other"),
            r"category discovery: lists rules \[.R2., .R2a., .R2b., .R9b.\], rules assigning it are \(.R2a., .R2b., .R9b.\)",
        ),
        (lambda d: d["rules"][0].update(subreason="misc"), r"subreason missing_deliverable: lists rules"),
        (lambda d: d["lexicon"].pop("absent_phrases"), r"lexicon lacks \['absent_phrases'\]"),
        (lambda d: d["lexicon"]["format_words"].append("(unclosed"), r"lexicon\.format_words: pattern"),
        (lambda d: d["lexicon"].update(format_words="named"), r"lexicon\.format_words: expected a list"),
    ],
)
def test_malformed_codebooks_name_the_field(edit, message):
    data = copy.deepcopy(raw())
    edit(data)
    with pytest.raises(CodebookError, match=message):
        parse_codebook(data)


def test_codebook_file_is_package_data() -> None:
    """pyproject's package-data ships the JSON with the wheel (the lead owns pyproject.toml)."""
    import fnmatch
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["rtlab"]
    assert any(fnmatch.fnmatch(f"analysis/{CODEBOOK_FILE}", p) for p in patterns)
