"""Headless Chromium for the tests that check what a page lays out: the
browser, the flags this machine's closed network needs, and a probe that
writes what the page laid out into the DOM, which `--dump-dom` prints.

scripts/setup.sh installs Debian's chromium; under scripts/test.sh
(DTLSIM_REQUIRE_PEERS=1) a missing browser fails the test, never skips it."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
VIEWPORT = (1280, 900)


def require_browser() -> None:
    """Skip the calling module without a browser, unless the suite requires one."""
    if BROWSER is None and os.environ.get("DTLSIM_REQUIRE_PEERS") != "1":
        pytest.skip(
            "chromium is not installed (scripts/setup.sh installs it)", allow_module_level=True
        )


def chromium(*args: str, profile: Path) -> str:
    """Run headless Chromium with no background connections, no updates and
    a fresh profile; its standard output."""
    assert BROWSER is not None, "chromium is not installed; scripts/setup.sh installs it"
    flags = [
        "--headless",
        "--no-sandbox",  # tests run as root here
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}",
        "--virtual-time-budget=10000",  # let every image load before the dump
    ]
    done = subprocess.run(
        [BROWSER, *flags, *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def probe(page: Path, script: str, profile: Path) -> dict:
    """Load a copy of `page` (beside it, so its relative links resolve) with
    `script`, which must build an object `out` once the page has loaded;
    that object, as the browser computed it."""
    text = page.read_text(encoding="utf-8")
    runner = (
        "<script>addEventListener('load', () => {" + script + "\n"
        "const pre = document.createElement('pre'); pre.id = 'probe';"
        "pre.textContent = JSON.stringify(out); document.body.appendChild(pre); });</script>"
    )
    copy = page.with_name(f"probe-{page.stem}.html")
    if "</body>" in text:
        copy.write_text(text.replace("</body>", runner + "</body>"), encoding="utf-8")
    else:  # an SVG file: shown inside a page of its own
        copy.write_text(f"<!doctype html><html><body>{text}{runner}</body></html>", "utf-8")
    dom = chromium("--dump-dom", copy.as_uri(), profile=profile)
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run: " + dom[-500:]
    return json.loads(html.unescape(found.group(1)))
