"""The viewer page and the notebook display: escaping, the payload's spans and citations, truncation with
counts, the CLI, and the page in a real headless browser (tests/browser.py: Debian's chromium and chromium-driver
with Selenium; skipped with the reason when either is absent)."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from browser import console_errors, headless_chromium
from conftest import ROOT
from view_fixture import CLIP, CSV, HOSTILE, hand_run

from rtlab.cli import main
from rtlab.display import Span, marked_text, table
from rtlab.environment import replay
from rtlab.view import embed_json, page_name, run_page, run_payload, view_runs

# --- escaping ------------------------------------------------------------------------------------------


def test_embedded_json_cannot_close_its_script_and_reads_back() -> None:
    data = {"s": HOSTILE + "<!-- \u2028 \u2029"}
    text = embed_json(data)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == data


def _scripts(page: str) -> list[str]:
    return re.findall(r"<script\b[^>]*>", page, flags=re.I)


def test_hostile_output_is_inert_in_the_page() -> None:
    page = run_page(run_payload(hand_run()))
    # exactly the data element and the viewer's script open a <script>; the output's never does
    assert _scripts(page) == ['<script type="application/json" id="rtlab-data">', "<script>"]
    assert "alert(1)" in page  # the text is there, as escaped JSON ...
    assert (
        "<script>alert(1)" not in page and "<img" not in page and "<b>bold" not in page
    )  # ... never as markup
    data = re.search(r'id="rtlab-data">(.*?)</script>', page, flags=re.S)
    assert data is not None and json.loads(data[1])["steps"][2]["shown"] == HOSTILE


def test_the_policy_admits_only_the_viewers_script_and_no_network() -> None:
    page = run_page(run_payload(hand_run()))
    policy = re.search(r'Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    script = page[page.rindex("<script>") + len("<script>") : page.rindex("</script>")]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy[1] and "default-src 'none'" in policy[1]
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # nothing fetched from anywhere
    assert "@import" not in page and "@font-face" not in page and "url(" not in page


def test_notebook_display_escapes_and_marks() -> None:
    t = hand_run()
    step = t.steps[2]
    h = step._repr_html_()
    assert "<script>alert" not in h and html.escape(HOSTILE, quote=True) in h
    clipped = t.steps[3]._repr_html_()
    assert f'<span class="clip" title="clip">{html.escape(CLIP)}</span>' in clipped
    assert "shown (637 characters)" in clipped and "logged (5,600 characters)" in clipped
    assert "<script>alert" not in t._repr_html_()


# --- the payload ---------------------------------------------------------------------------------------


def test_payload_reads_candidates_and_tab_counts() -> None:
    p = run_payload(hand_run())
    steps = p["steps"]
    # step 0 lists three files: all come into C; step 1 reads the CSV (offset 0, all 81 characters): it leaves C
    assert steps[0]["c_in"] == [
        "finance/freight_costs_q3.csv",
        "notes/todo.txt",
        "reports/carrier_selection.md",
    ]
    assert steps[1]["reads"] == [[0, len(CSV), "finance/freight_costs_q3.csv", "L1"]]
    assert steps[1]["c_out"] == ["finance/freight_costs_q3.csv"]
    assert (steps[1]["L"], steps[1]["C"]) == (1, 2)
    # the clipped step's two excerpts lie either side of the marker: 0..300 and 300 + len(marker) .. +300
    after = 300 + len(CLIP)
    assert [r[:2] for r in steps[3]["reads"]] == [[0, 300], [after, after + 300]]
    assert steps[3]["frames"] == [[300, after, "clip"]] and steps[3]["output"].startswith("x" * 300 + "z")
    assert "output" not in steps[1]  # shown = logged: not embedded twice


def test_payload_locates_each_cited_excerpt() -> None:
    p = run_payload(hand_run())
    failed, passed = p["rubric"]
    assert passed["passed"] is True and passed["label"] is None
    label = failed["label"]
    assert failed["passed"] is False and label["category"] == "dropped_or_distorted"
    shown = p["steps"][1]["shown"]
    cited = [e for e in label["evidence"] if e["step"] == 1]
    assert cited, label["evidence"]
    for e in cited:
        # the excerpt's words, white space folded, are what the span holds
        assert " ".join(shown[e["start"] : e["end"]].split()) == e["excerpt"].strip("…").strip()
    assert p["run"]["score"] == {"passed": 1, "items": 2, "points": 1.0, "points_total": 2.0, "score": 0.5}


# --- truncation with counts ----------------------------------------------------------------------------


def test_long_runs_are_truncated_with_counts() -> None:
    t = hand_run(n_filler=996)  # 4 + 996 = 1,000 steps
    h = t._repr_html_()
    # 40 rows shown: the first 35 and the last 5; 1,000 - 40 = 960 left out
    assert "40 of 1,000 steps shown" in h and "960 steps not shown" in h
    assert h.count("<tr>") == 1 + 40 + 1  # header, the rows, the row that counts the rest
    assert "echo 995" in h and "echo 40" not in h
    r = replay(t)
    rh = r._repr_html_()
    assert "40 of 1,000 steps shown" in rh and "R: 0 requirements" in rh
    text = marked_text("q" * 30_000, limit=20_000)
    # head 2/3 of the limit (13,333), tail the rest (6,667): 30,000 - 20,000 = 10,000 left out
    assert "10,000 characters not shown here" in text and text.count("q") == 20_000


def test_marked_text_nests_and_escapes() -> None:
    out = marked_text("a<b>cd", [Span(1, 4, "read", "f.txt"), Span(2, 3, "cited")])
    # each piece between span edges wrapped in every span covering it, the outermost first
    read = '<mark class="read" title="f.txt">'
    assert out == f'<pre>a{read}&lt;</mark>{read}<mark class="cited">b</mark></mark>{read}&gt;</mark>cd</pre>'
    assert "<td>&lt;x&gt;</td>" in table(["c"], [["<x>"]])


def test_replay_at_a_step_shows_the_tab_then_and_the_reads() -> None:
    r = replay(hand_run())
    at = r.at(1)
    h = at._repr_html_()
    assert "tab after step 1" in h and "L: 1 read-log entries" in h and "C: 2 candidates" in h
    assert '<mark class="read" title="finance/freight_costs_q3.csv">' in h
    assert r.tab._repr_html_().count("<h4>") == 3  # R, L and C


def test_plain_text_fallbacks_are_compact() -> None:
    class P:
        def __init__(self) -> None:
            self.out = ""

        def text(self, s: str) -> None:
            self.out += s

    t = hand_run(n_filler=996)
    p = P()
    t._repr_pretty_(p, False)
    assert "... 960 steps not shown ..." in p.out and len(p.out) < 20_000
    p = P()
    replay(hand_run())._repr_pretty_(p, False)
    assert p.out.endswith("[tab] 0 open · 3 read-log entries from 2 files · 2 candidates")


# --- the command line and the index --------------------------------------------------------------------


def _write_run(tmp_path: Path, t) -> Path:
    from rtlab.ingest import write_jsonl

    path = tmp_path / "run.jsonl"
    write_jsonl([t], path)
    return path


def test_cli_writes_one_page_and_an_index(tmp_path: Path) -> None:
    src = _write_run(tmp_path, hand_run())
    out = tmp_path / "run.html"
    assert main(["view", str(src), "--step", "1", "-o", str(out)]) == 0
    data = re.search(r'id="rtlab-data">(.*?)</script>', out.read_text(encoding="utf-8"), flags=re.S)
    assert data is not None and json.loads(data[1])["start_step"] == 1
    assert main(["view", str(src), "--step", "9", "-o", str(out)]) == 2  # no step 9: an error, not a page
    pages = view_runs([hand_run(), hand_run()], tmp_path / "index.html")
    assert pages.index is not None and [p.name for p in pages.pages] == ["hand_view.html", "hand_view~2.html"]
    index = pages.index.read_text(encoding="utf-8")
    assert '"href":"index_runs/hand_view.html"' in index and '"dropped_or_distorted":1' in index


def test_reading_warnings_are_in_the_payload_the_page_and_the_index(tmp_path: Path) -> None:
    """What reading skipped or repaired is shown with the run (issue 24): in its payload, as text on its page
    (escaped like everything else), and counted on the index."""
    from rtlab.records import ReadWarning

    t = hand_run()
    t.warnings = [
        ReadWarning("/logs/run.jsonl", 81, "not JSON ('Error: spawn ps <b>ENOENT</b>'); skipped", "not-json")
    ]
    payload = run_payload(t)
    assert payload["warnings"] == [
        {
            "path": "/logs/run.jsonl",
            "line": 81,
            "field": None,
            "reason": t.warnings[0].reason,
            "kind": "not-json",
        }
    ]
    page = run_page(payload)
    assert "<b>ENOENT" not in page and "reading warnings" in page  # data, not markup; the script shows it
    pages = view_runs([t, hand_run()], tmp_path / "index.html")
    assert pages.index is not None and '"warnings":1' in pages.index.read_text(encoding="utf-8")


def test_page_names_are_safe_and_unique() -> None:
    taken: set[str] = set()
    assert page_name("../a b/c", taken) == "a_b_c.html"
    assert page_name("../a b/c", taken) == "a_b_c~2.html"


# --- a real browser ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    with headless_chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


def test_page_in_a_real_browser(browser, tmp_path: Path) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "run.html"
    page.write_text(run_page(run_payload(hand_run(n_filler=20))), encoding="utf-8")
    browser.get(page.as_uri())
    assert console_errors(browser) == []
    with pytest.raises(NoAlertPresentException):  # the output's script never ran
        browser.switch_to.alert.text  # noqa: B018
    rows = browser.find_elements(By.CSS_SELECTOR, "#timeline .row")
    assert 0 < len(rows) <= 24 and browser.find_element(By.ID, "counter").text == "24 of 24 steps shown"

    # a citation shows its step with the cited span highlighted
    cite = browser.find_element(By.CSS_SELECTOR, ".item.fail a.cite[data-step='1']")
    cite.click()
    assert browser.find_element(By.ID, "detail").get_attribute("data-step") == "1"
    marks = browser.find_elements(By.CSS_SELECTOR, "#detail mark.cited")
    assert marks and "48213.50" in "".join(m.text for m in marks)
    assert browser.execute_script("return location.hash") == "#step=1"

    # the hostile output is text on the page
    browser.find_element(By.CSS_SELECTOR, "#timeline .row[data-step='2']").click()
    assert HOSTILE in browser.find_element(By.CSS_SELECTOR, "#detail pre.shown").text
    assert browser.find_elements(By.CSS_SELECTOR, "#detail img") == []

    # filters: reads only keeps steps 1 and 3; failed items only hides the passed item
    browser.find_element(By.ID, "f-reads").click()
    shown = [r.get_attribute("data-step") for r in browser.find_elements(By.CSS_SELECTOR, "#timeline .row")]
    assert shown == ["1", "3"] and browser.find_element(By.ID, "counter").text == "2 of 24 steps shown"
    assert len(browser.find_elements(By.CSS_SELECTOR, ".item")) == 2
    browser.find_element(By.ID, "f-failed").click()
    items = browser.find_elements(By.CSS_SELECTOR, ".item")
    assert [i.get_attribute("data-passed") for i in items] == ["false"]

    # keyboard: Escape clears the filters, j moves to the next step
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ESCAPE)
    assert browser.find_element(By.ID, "counter").text == "24 of 24 steps shown"
    browser.find_element(By.CSS_SELECTOR, "#timeline .row[data-step='3']").click()
    body.send_keys("j")
    assert browser.find_element(By.ID, "detail").get_attribute("data-step") == "4"
    assert console_errors(browser) == []


def test_a_thousand_step_ten_megabyte_run_opens_lazily(browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "big.html"
    page.write_text(run_page(run_payload(hand_run(n_filler=996, filler_chars=10_000))), encoding="utf-8")
    assert page.stat().st_size > 10_000_000
    browser.get(page.as_uri())
    assert console_errors(browser) == []
    assert browser.find_element(By.ID, "counter").text == "1000 of 1000 steps shown"
    # only the rows in view (and a margin of 10 either side) are in the page, not 1,000
    assert len(browser.find_elements(By.CSS_SELECTOR, "#timeline .row")) < 60
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert browser.find_element(By.ID, "detail").get_attribute("data-step") == "999"
    assert browser.find_elements(By.CSS_SELECTOR, "#timeline .row[data-step='999']")


def test_screenshot_of_a_real_workspace_bench_run(browser, real: Path, tmp_path: Path) -> None:
    """The README's picture: the viewer on a real Workspace-Bench run, at a cited step."""
    from selenium.webdriver.common.by import By

    run = real / "workspace-bench" / "codex-gpt-5.4-runs" / "15_plain"
    if not run.is_dir():
        pytest.skip(f"{run} is absent")
    out = tmp_path / "wb.html"
    assert main(["view", str(run), "-o", str(out)]) == 0
    browser.get(out.as_uri())
    assert console_errors(browser) == []
    cites = browser.find_elements(By.CSS_SELECTOR, ".item.fail a.cite")
    if cites:
        cites[0].click()
    from PIL import Image

    browser.save_screenshot(str(tmp_path / "shot.png"))
    with Image.open(tmp_path / "shot.png") as img:  # 64 colours keep the committed picture small
        img.convert("RGB").quantize(64).save(tmp_path / "small.png", optimize=True)
    assert 10_000 < (tmp_path / "small.png").stat().st_size < 200_000
    if os.environ.get("RTLAB_UPDATE_SCREENSHOTS"):  # the committed picture is replaced only when asked
        shutil.copyfile(tmp_path / "small.png", ROOT / "docs" / "view-workspace-bench.png")


def test_screenshot_of_a_notebook_cell_displaying_a_replay(browser, real: Path, tmp_path: Path) -> None:
    """The README's second picture: what a notebook cell shows for ``replay.at(n)`` of a real Workspace-Bench
    run (its ``_repr_html_``, in a page styled like JupyterLab's output area), with no console error."""
    from rtlab.ingest import ingest

    run = real / "workspace-bench" / "codex-gpt-5.4-runs" / "15_plain"
    if not run.is_dir():
        pytest.skip(f"{run} is absent")
    (t,) = ingest([run]).trajectories
    cell = replay(t, requirements="rubric").at(3)._repr_html_()
    page = tmp_path / "cell.html"
    page.write_text(
        "<!doctype html><meta charset=utf-8><body style='font: 13px system-ui, sans-serif; margin: 16px'>"
        f"<div style='border-left: 3px solid #1976d2; padding-left: 12px'>{cell}</div>",
        encoding="utf-8",
    )
    browser.get(page.as_uri())
    assert console_errors(browser) == []
    from PIL import Image

    browser.save_screenshot(str(tmp_path / "shot.png"))
    with Image.open(tmp_path / "shot.png") as img:
        img.convert("RGB").quantize(64).save(tmp_path / "small.png", optimize=True)
    assert 5_000 < (tmp_path / "small.png").stat().st_size < 200_000
    if os.environ.get("RTLAB_UPDATE_SCREENSHOTS"):
        shutil.copyfile(tmp_path / "small.png", ROOT / "docs" / "notebook-replay.png")
