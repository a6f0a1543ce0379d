"""The course website (``python -m bpe_ref site OUT``): built once, then opened page by page in a real
headless Chromium over the DevTools protocol, as a reader opens ``OUT/index.html`` from disk.

In every page: no console error and no failed load; every math element typeset by MathJax (no raw
``$...$`` or ``\\(...\\)`` left); every image loaded; every local link pointing at a file of the site.
And the site is self-contained: no script, stylesheet, image or font from the network.

Chromium comes from Debian's packages (``apt-get install chromium``; .ci/run installs it). Without it
the browser tests skip on a developer's machine, and fail under CI (``CI=true``), where a skip would
hide that nothing was checked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from bpe_ref.course.site import build_site
from bpe_ref.course.site.sources import local_links, rewrite_links, steps_from_readme
from sampling import EXHAUSTIVE

# The build and the browser take tens of seconds: conftest.py schedules the module's scope early.
pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


# --- the build ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_site(tmp_path_factory.mktemp("site") / "out")


def test_the_build_is_clean_and_has_every_page(site):
    assert site.warnings == [], "\n".join(site.warnings)
    out = site.out
    pages = {p.relative_to(out).as_posix() for p in site.html_pages}
    expected = {"index.html", "README.html", "steps/index.html", "theory/README.html"}
    expected |= {p.relative_to(REPO_ROOT).with_suffix(".html").as_posix() for p in (REPO_ROOT / "theory").glob("*.md")}
    expected |= {p.relative_to(REPO_ROOT).with_suffix(".html").as_posix() for p in (REPO_ROOT / "theory").glob("drills/*.md")}
    expected |= {p.relative_to(REPO_ROOT).with_suffix(".html").as_posix() for p in (REPO_ROOT / "theory").glob("benchmarks/**/*.md")}
    expected |= {p.relative_to(REPO_ROOT).with_suffix(".html").as_posix() for p in REPO_ROOT.glob("labs/*/*.ipynb")}
    expected |= {f"steps/{i:02d}.html" for i in range(11)}
    assert not expected - pages, f"missing pages: {sorted(expected - pages)}"
    # The notebooks ship unchanged next to their pages; no solution is published.
    for notebook in REPO_ROOT.glob("labs/*/*.ipynb"):
        assert (out / notebook.relative_to(REPO_ROOT)).read_bytes() == notebook.read_bytes()
    published = {p.relative_to(out).as_posix() for p in (out / "solutions").rglob("*") if p.is_file()}
    assert {p for p in published if not p.startswith("solutions/classroom/")} <= {"solutions/README.html"}
    assert not any(p.endswith(".ipynb") for p in published)
    for path in out.rglob("*"):
        if path.suffix in (".html", ".ipynb", ".py", ".js", ".txt"):
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "### BEGIN SOLUTION" not in text and "### BEGIN HIDDEN TESTS" not in text, path


def test_the_search_index_is_stemmed_in_c(site):
    # PyStemmer (the dev extra) stems the search index's words in C, the same stems as snowballstemmer's pure
    # Python: about 4 s of CPU less in the build's main process (pip install -e ".[dev]" installs it).
    assert (site.out / "searchindex.js").is_file()
    assert "Stemmer" in sys.modules, "Sphinx stemmed the search index in pure Python: install pystemmer"


def test_step_pages_come_from_the_readme_table(site):
    steps = steps_from_readme((REPO_ROOT / "README.md").read_text(encoding="utf-8"))
    assert [s.number for s in steps] == [f"{i:02d}" for i in range(11)]
    for step in steps:
        html = (site.out / "steps" / f"{step.number}.html").read_text(encoding="utf-8")
        page = Path(step.page).with_suffix(".html").name
        lab = Path(step.lab)
        assert f'href="../{Path(step.page).parent.as_posix()}/{page}' in html, step
        assert f'href="../{lab.with_suffix(".html").as_posix()}' in html and f'href="../{lab.as_posix()}" download' in html
        for module in step.modules:
            assert f'href="../{module}.html' in html, module


def test_drill_answers_are_folded_into_their_pages(site):
    html = (site.out / "theory" / "05-heap.html").read_text(encoding="utf-8")
    fold = html[html.index('<details class="drill-answers">') :]
    fold = fold[: fold.index("</details>")]
    assert "Quick check" in fold and "<summary>" in fold
    assert html.index("drill-answers") > html.index('id="drills"')


def test_labs_are_read_only_with_a_banner_and_the_notebook(site):
    for notebook in REPO_ROOT.glob("labs/*/*.ipynb"):
        html = (site.out / notebook.relative_to(REPO_ROOT).with_suffix(".html")).read_text(encoding="utf-8")
        assert "To work this lab, install the course" in html
        assert f'href="{notebook.name}" download' in html
        assert "<h1>" in html and html.index("<h1>") < html.index("To work this lab")


def test_answers_fold_at_the_end_of_the_drills_whatever_follows(tmp_path):
    """No per-page rule: a page with any sections after its drills (a Spanish summary, say) keeps
    them, after the folded answers."""
    from bpe_ref.course.site.sources import fold_drill_answers

    (tmp_path / "theory" / "drills").mkdir(parents=True)
    (tmp_path / "theory" / "drills" / "01-answers.md").write_text(
        "# Drill answers\n\nSee [the page](../01-x.md).\n\n## 1. First\n\n$a_1$ is 2.\n", encoding="utf-8")
    page = "# 01 · X\n\n## Drills\n\nAnswers: [here](drills/01-answers.md).\n\n1. **First.** Why?\n\n## Resumen\n\nEn pocas palabras.\n"
    folded = fold_drill_answers(tmp_path, "theory/01-x.md", page, lambda at, target: target)
    assert folded.index("1. **First.**") < folded.index("<details") < folded.index("</details>") < folded.index("## Resumen")
    assert "**1. First**" in folded and "[the page](01-x.md)" in folded and "# Drill answers" not in folded
    assert folded.endswith("## Resumen\n\nEn pocas palabras.\n")


def test_links_are_rewritten_outside_code_only():
    text = "[a](x.py) `[b](y.py)`\n```\n[c](z.py)\n```\n![d](e.png)"
    assert rewrite_links(text, lambda t: t + "!") == "[a](x.py!) `[b](y.py)`\n```\n[c](z.py)\n```\n![d](e.png!)"
    assert local_links("[w](https://x.org) [h](#here) [l](a/b.md#c)") == ["a/b.md#c"]


def test_a_bad_output_folder_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not an empty folder"):
        build_site(tmp_path)


class Resources(HTMLParser):
    """The URLs an HTML page loads by itself: script and image sources, stylesheets, icons."""

    def __init__(self):
        super().__init__()
        self.loaded: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "video", "audio") and attrs.get("src"):
            self.loaded.append(attrs["src"])
        if tag == "link" and attrs.get("href") and attrs.get("rel") not in ("next", "prev", "index", "search"):
            self.loaded.append(attrs["href"])


# The start tags that can load something, whole (an attribute's quoted value may hold ">"): the parser reads those
# alone, not the rest of every page (2.6 s of CPU for the 128 pages), each script's text ended after its tag. A
# "<script" in a script's text is read too.
LOADING_TAG = re.compile(r"""<(?:script|img|iframe|source|video|audio|link)\b(?:[^>"']|"[^"]*"|'[^']*')*>""", re.I)


def test_nothing_is_loaded_from_the_network(site):
    remote = []
    for page in site.html_pages:
        parser = Resources()
        parser.feed("</script>".join(LOADING_TAG.findall(page.read_text(encoding="utf-8"))))  # a script's text ends
        remote += [f"{page.relative_to(site.out)}: {url}" for url in parser.loaded if re.match(r"^(https?:)?//", url)]
    for css in site.out.rglob("*.css"):
        remote += [f"{css.relative_to(site.out)}: {url}"
                   for url in re.findall(r"url\(\s*['\"]?((?:https?:)?//[^)'\"]+)", css.read_text(errors="replace"))]
        remote += [f"{css.relative_to(site.out)}: @import {url}"
                   for url in re.findall(r"@import\s+(?:url\()?['\"]?(https?://[^)'\"]+)", css.read_text(errors="replace"))]
    assert not remote, remote


# --- the browser -----------------------------------------------------------------------------------


class Chromium:
    """A headless Chromium with its DevTools server on a free local port; :meth:`tab` opens a tab."""

    def __init__(self, profile: Path):
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio",
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", f"--user-data-dir={profile}",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                raise RuntimeError("Chromium did not start its DevTools server")
            time.sleep(0.1)
        self.port = port_file.read_text().split()[0]

    def tab(self) -> Tab:
        deadline = time.monotonic() + 30
        while True:
            try:
                request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
                with urllib.request.urlopen(request, timeout=10) as response:
                    return Tab(json.load(response)["webSocketDebuggerUrl"])
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()


class Tab:
    """One browser tab driven over its own DevTools WebSocket."""

    def __init__(self, url: str):
        import websocket  # websocket-client, in the dev extra

        self.socket = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(method)

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for(self, event: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not any(e["method"] == event for e in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {event} within {timeout} s")
            message = json.loads(self.socket.recv())
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True, timeout=60000)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str) -> None:
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def errors(self) -> list[str]:
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                found.append(f"exception: {details.get('text')} {details.get('exception', {}).get('description', '')}")
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append("console.error: " + " ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"{params['entry']['source']}: {params['entry']['text']} {params['entry'].get('url', '')}")
        return found

    def close(self) -> None:
        self.socket.close()


# What the page shows once MathJax has finished (its startup promise resolves after the first
# typesetting pass): math elements and MathJax's output, raw TeX left in the text, images, links.
# (Adjacent raw literals, split mid-line only to keep the source lines short: one script.)
CHECK_PAGE = (r"""
(async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const maths = Array.from(document.querySelectorAll('.math'));
  const untypeset = maths.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.slice(0, 80));
  // MathJax marks TeX errors with mjx-merror, and shows an undefined macro as its own name in red.
  const merrors = Array.from(document.querySelectorAll('mjx-merror')).map(m => m.textContent.slice(0, 80)).concat(
      Array.from(document.querySelectorAll('mjx-container')).filter(m => m.textContent.includes('\\'))"""
              r""".map(m => m.textContent.slice(0, 80)));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.parentElement.closest('pre, code, script, style, mjx-container, .highlight') ? NodeFilter.FILTER_REJECT"""
              r""" : NodeFilter.FILTER_ACCEPT});
  const raw = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n.textContent;
    if (/\$[^$\s][^$]*\$|\$\$|\\\(|\\\[/.test(t)) raw.push(t.trim().slice(0, 100));
  }
  await Promise.all(Array.from(document.images).map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
  const images = Array.from(document.images).map(i => [i.src, i.naturalWidth]);
  const links = Array.from(document.querySelectorAll('a[href]')).map(a => a.href);
  return {maths: maths.length, mjx: document.querySelectorAll('mjx-container').length, untypeset, merrors, raw,
          images, links, title: document.title};
})()
""")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed: .ci/run installs it (apt-get install -y chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium); CI runs this test")
    chromium = Chromium(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield chromium
    finally:
        chromium.close()


# The folders of pages made by one template each (the package's source listings, the labs' read-only
# notebooks, the steps): the default run opens the first page of each, BPE_EXHAUSTIVE=1 every page.
ONE_TEMPLATE_FOLDERS = ("bpe_ref", "labs", "steps")


def opened_pages(site) -> list[Path]:
    """The pages the browser opens: every page written by hand (the theory pages, their drills and
    benchmarks, the home) and one of each folder of ONE_TEMPLATE_FOLDERS; every page under BPE_EXHAUSTIVE=1."""
    pages, seen = [], set()
    for page in sorted(site.html_pages):
        folder = page.relative_to(site.out).parts[0]
        if EXHAUSTIVE or folder not in ONE_TEMPLATE_FOLDERS or folder not in seen:
            pages.append(page)
            seen.add(folder)
    return pages


@pytest.fixture(scope="module")
def rendered(site, browser) -> dict[str, dict]:
    """The pages of :func:`opened_pages` as Chromium renders them: the CHECK_PAGE report plus its errors.

    Two tabs share the pages (a renderer process each, so both cores work)."""
    pages = opened_pages(site)
    opened = len(pages)

    def check(tab: Tab) -> dict[str, dict]:
        reports = {}
        try:
            while True:
                try:
                    page = pages.pop()
                except IndexError:
                    return reports
                tab.open(page.as_uri())
                report = tab.evaluate(CHECK_PAGE)
                report["errors"] = tab.errors()
                reports[page.relative_to(site.out).as_posix()] = report
        finally:
            tab.close()

    tabs = [browser.tab() for _ in range(2)]
    with ThreadPoolExecutor(len(tabs)) as pool:
        results = list(pool.map(check, tabs))
    reports = {page: report for result in results for page, report in result.items()}
    assert len(reports) == opened
    return reports


def test_every_page_loads_without_a_console_error(rendered):
    failing = {page: r["errors"] for page, r in rendered.items() if r["errors"]}
    assert not failing, failing


def test_math_is_typeset_everywhere(rendered, site):
    problems = {page: {"untypeset": r["untypeset"], "errors": r["merrors"], "raw TeX": r["raw"]}
                for page, r in rendered.items() if r["untypeset"] or r["merrors"] or r["raw"]}
    assert not problems, problems
    # The pages with math show MathJax's output: each theory page, and the home has none to show.
    for page in sorted(REPO_ROOT.glob("theory/[0-9][0-9]-*.md")):
        report = rendered[f"theory/{page.stem}.html"]
        assert report["maths"] > 10 and report["mjx"] >= report["maths"], (page.name, report["maths"], report["mjx"])


def test_every_image_loads(rendered):
    broken = {page: [src for src, width in r["images"] if not width] for page, r in rendered.items()}
    assert not {page: b for page, b in broken.items() if b}
    assert sum(len(r["images"]) for r in rendered.values()) >= len(list((REPO_ROOT / "theory" / "figures").glob("*.png")))


def test_every_local_link_resolves_to_a_file_of_the_site(rendered, site):
    out = site.out.resolve()
    broken = {}
    for page, report in rendered.items():
        for href in report["links"]:
            url = urlparse(href)
            if url.scheme in ("http", "https", "mailto"):
                continue
            path = Path(unquote(url.path)).resolve()
            if url.scheme != "file" or not path.is_relative_to(out) or not path.is_file():
                broken.setdefault(page, []).append(href)
    assert not broken, broken
