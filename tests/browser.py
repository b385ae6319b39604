"""Headless chromium driven by Selenium, for the tests that look at pages in a real browser (the viewer's,
JupyterLab's): Debian's ``chromium`` and ``chromium-driver``, Selenium from the dev extra. A test that needs them
skips, naming what to install, when they are absent."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
INSTALL = "apt-get install -y chromium chromium-driver (the Debian packages; .ci/run installs them)"

ARGS = (
    "--headless=new",
    "--no-sandbox",  # as root, chromium refuses to start without it
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1400,860",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # pages reach no host but loopback's address
    "--no-proxy-server",
)
"""Chromium's options: headless, quiet (no background requests, updates or sync), reaching no host but
127.0.0.1 (a local server under test)."""


@contextlib.contextmanager
def headless_chromium(profile: Path) -> Iterator[Any]:
    """A Selenium driver of headless chromium with a fresh profile in ``profile`` (an empty folder), quit at the
    end; the test skips when selenium, chromium or chromedriver is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')")
    if CHROMIUM is None or DRIVER is None:
        pytest.skip(f"no headless browser here: {INSTALL}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (*ARGS, f"--user-data-dir={profile}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[dict]:
    """The browser console's errors since the last call."""
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
