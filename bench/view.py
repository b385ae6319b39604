"""The viewer's page for a 1,000-step, 10 MB run: how long building it takes, and (with a headless chromium
here) how long the page takes to first paint, each against a baseline measured in the same run.

Build: ``run_page(payload)`` (the JSON embedded, escaped, in the page) against ``json.dumps`` of the same
payload; ``run_payload`` (one replay, labels, spans) against ``replay`` of the same trajectory. Load: the page's
first contentful paint (the Performance API) against that of a page holding the same JSON in a
``<script type="application/json">`` and nothing else (the browser's own cost of reading 10 MB).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best  # noqa: E402
from view_fixture import hand_run  # noqa: E402

from rtlab.environment import replay  # noqa: E402
from rtlab.view import embed_json, run_page, run_payload  # noqa: E402


def _paint(driver, url: str) -> float:
    driver.get(url)
    return driver.execute_script(
        "var p = performance.getEntriesByName('first-contentful-paint')[0];"
        "return p ? p.startTime : performance.timing.domComplete - performance.timing.navigationStart;"
    )


def main() -> None:
    t = hand_run(n_filler=996, filler_chars=10_000)
    payload = run_payload(t)
    page = run_page(payload)
    print(f"run: {len(t.steps):,} steps, {t.chars_shown:,} characters shown; page {len(page):,} bytes")
    dumps = best(lambda: json.dumps(payload, ensure_ascii=False), 5)
    build = best(lambda: run_page(payload), 5)
    rep = best(lambda: replay(t), 3)
    pay = best(lambda: run_payload(t), 3)
    print(
        f"page from payload  {build * 1e3:8.1f} ms   json.dumps of it {dumps * 1e3:8.1f} ms   ratio {build / dumps:5.2f}"
    )
    print(
        f"payload from run   {pay * 1e3:8.1f} ms   replay of the run {rep * 1e3:8.1f} ms   ratio {pay / rep:5.2f}"
    )

    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    try:
        from selenium import webdriver
    except ImportError:
        webdriver = None  # type: ignore[assignment]
    if webdriver is None or chromium is None or driver_path is None:
        print("load: skipped (no selenium, chromium or chromedriver here)")
        return
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,860",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            viewer, bare = Path(tmp) / "view.html", Path(tmp) / "bare.html"
            viewer.write_text(page, encoding="utf-8")
            bare.write_text(
                '<!DOCTYPE html><html><body><p>baseline</p><script type="application/json" id="d">'
                f"{embed_json(payload)}</script></body></html>",
                encoding="utf-8",
            )
            v = min(_paint(driver, viewer.as_uri()) for _ in range(3))
            b = min(_paint(driver, bare.as_uri()) for _ in range(3))
        print(f"first paint        {v:8.1f} ms   same JSON, no viewer {b:8.1f} ms   ratio {v / b:5.2f}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
