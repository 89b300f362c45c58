"""`--html FILE` on solve and check: one self-contained page (no scripts, nothing fetched), a
section per answer with its timing diagram, cores and vacuous occurrences highlighted; shown by
a real browser where one is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from cli_support import ROOT, run


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.marked: list[str] = []
        self._in_mark = False
        self.fetches: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)
        self._in_mark = tag == "mark"
        self.fetches += [v for k, v in attrs if k in ("src", "href") and v and not v.startswith("#")]

    def handle_data(self, data) -> None:
        if self._in_mark:
            self.marked.append(data)
            self._in_mark = False


def _page(path) -> _Page:
    page = _Page()
    page.feed(path.read_text())
    return page


def test_solve_report_has_a_diagram_per_trace_and_the_core_marked(tmp_path) -> None:
    out = tmp_path / "s.html"
    result = run(
        "solve", "--model", "none", "--core", "--html", str(out), "G(req -> F grant) & F req", "G a & b & F !a", "a | b"
    )
    assert result.exit_code == 1
    page = _page(out)
    assert page.tags.count("section") == 3 and page.tags.count("svg") == 1  # the assignment has no diagram
    assert page.marked == ["G a", "F !a"] and "script" not in page.tags and not page.fetches
    assert run("solve", "--html", str(out), "--jobs", "2", "F a").exit_code == 2


def test_check_report_marks_vacuous_occurrences(tmp_path) -> None:
    out = tmp_path / "c.html"
    run("check", "--vacuity", "--html", str(out), str(ROOT / "examples" / "vacuous.spec"))
    page = _page(out)
    assert page.tags.count("section") == 4 and page.marked == ["grant"]


def _browser() -> str | None:
    return next(
        (b for b in ("chromium", "chromium-browser", "google-chrome", "headless_shell") if shutil.which(b)), None
    )


@pytest.mark.skipif(
    _browser() is None,
    reason="no Chromium installed to render the report (Debian: apt install chromium; CI installs it)",
)
def test_a_browser_draws_the_timing_diagram(tmp_path) -> None:
    """Wherever a Chromium is installed: in CI, .ci/run installs Debian's where it is missing."""
    out, shot = tmp_path / "s.html", tmp_path / "s.png"
    run("solve", "--model", "none", "--html", str(out), "G(req -> X grant) & F req")
    subprocess.run(
        [
            _browser(),
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            f"--screenshot={shot}",
            "--window-size=800,400",
            out.as_uri(),
        ],
        capture_output=True,
        timeout=60,
        check=True,
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000  # a picture, not a blank page


def test_an_argument_that_is_not_utf8_is_reported_in_the_page(tmp_path) -> None:
    """A byte that is not UTF-8 in an argument: its input is an error as on the terminal, the
    page is written (UTF-8, the byte as \\udcXX) and the other input still answered."""

    from cli_support import run_process

    out = tmp_path / "report.html"
    result = run_process("solve", "--html", str(out), "--", os.fsdecode(b"\xd5"), "a")
    assert result.returncode == 2 and b"internal error" not in result.stderr
    page = out.read_bytes().decode("utf-8")
    assert "\\udcd5" in page and page.count("<section>") == 2 and "SAT" in page
