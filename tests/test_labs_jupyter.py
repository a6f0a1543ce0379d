"""The learner's and the instructor's JupyterLab: started at the repository root, it loads the
nbgrader extensions (formgrader, validate, the Nbgrader menu) and serves the labs and theory pages.

How the pages look is checked in a real browser on the course website (tests/test_site.py); a
screenshot of JupyterLab itself is a headless Chromium away (CONTRIBUTING.md, "Known pitfalls").
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bpe_ref.course.notebooks import REPO_ROOT, nbgrader_environment

# The server extensions nbgrader enables (its jupyter_server_config.d file), each logged when loaded.
SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.validate_assignment")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return response.status, response.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", errors="replace")


@pytest.fixture(scope="module")
def server_log(tmp_path_factory) -> Path:
    """Where :func:`jupyterlab` writes its server's log."""
    return tmp_path_factory.mktemp("jupyterlab") / "server.log"


@pytest.fixture(scope="module")
def jupyterlab(server_log):
    """JupyterLab at the repository root, as the README starts it; stopped by its process id."""
    port = free_port()
    gradebook = REPO_ROOT / "gradebook.db"
    had_gradebook = gradebook.exists()
    log = server_log.open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
         "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={REPO_ROOT}",
         "--LabApp.app_settings_dir=jupyterlab_settings"],  # the learners' settings, as in the README
        cwd=REPO_ROOT, env=nbgrader_environment(), stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited with code {server.returncode}")
            try:
                if get(f"{base}/api/status")[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start within 90 s")
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        if not had_gradebook and gradebook.exists():  # nothing of ours may stay in the tree
            gradebook.unlink()


def test_nbgrader_server_extensions_are_enabled(jupyterlab, server_log):
    # What `jupyter server extension list` reads (the enabled extensions), seen where it matters: the
    # server started as the README starts it loaded them (its log), and the validate extension answers.
    log = server_log.read_text(encoding="utf-8")
    for extension in SERVER_EXTENSIONS:
        assert f"{extension} | extension was successfully loaded." in log, log[-3000:]
    from nbgrader import __version__

    status, body = get(f"{jupyterlab}/nbgrader_version?version={__version__}")  # the validate extension's own handler
    assert status == 200 and json.loads(body) == {"success": True}, body


def test_nbgrader_lab_extension_is_enabled(jupyterlab):
    # What `jupyter labextension list` shows (enabled, OK), seen where it matters: the page lists the
    # prebuilt extension for loading, and the server serves its code.
    status, page = get(f"{jupyterlab}/lab/tree/labs/01_naive_bpe/01_naive_bpe.ipynb")
    config = page_config(page)
    nbgrader = next((e for e in config["federated_extensions"] if e["name"] == "@jupyter/nbgrader"), None)
    assert nbgrader, [e["name"] for e in config["federated_extensions"]]
    assert "@jupyter/nbgrader" not in config["disabledExtensions"]
    assert get(f"{jupyterlab}/lab/extensions/@jupyter/nbgrader/{nbgrader['load']}")[0] == 200, nbgrader


def test_jupyterlab_loads_with_the_nbgrader_extension(jupyterlab):
    status, page = get(f"{jupyterlab}/lab/tree/labs/01_naive_bpe/01_naive_bpe.ipynb")
    assert status == 200
    assert "@jupyter/nbgrader" in page  # the Nbgrader menu, Validate button and Create Assignment sidebar


def test_formgrader_loads(jupyterlab):
    status, page = get(f"{jupyterlab}/formgrader")
    assert status == 200
    assert "Manage Assignments" in page


def test_labs_and_theory_pages_are_served(jupyterlab):
    status, body = get(f"{jupyterlab}/api/contents/labs/01_naive_bpe/01_naive_bpe.ipynb")
    assert status == 200
    notebook = json.loads(body)
    assert notebook["type"] == "notebook" and notebook["content"]["nbformat_minor"] == 5
    for page in ("00-bytes-and-pretokenization.md", "01-naive-bpe.md", "02-incremental-updates.md"):
        assert get(f"{jupyterlab}/api/contents/theory/{page}")[0] == 200, page


def page_config(page: str) -> dict:
    match = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S)
    assert match, "no page config in the JupyterLab page"
    return json.loads(match.group(1))


def test_learners_do_not_get_the_instructor_tools_or_validate(jupyterlab):
    status, page = get(f"{jupyterlab}/lab/tree/labs/01_naive_bpe/01_naive_bpe.ipynb")
    disabled = set(page_config(page)["disabledExtensions"])
    assert {"@jupyter/nbgrader:validate-assignment", "@jupyter/nbgrader:create-assignment",
            "@jupyter/nbgrader:menu"} <= disabled
    assert "@jupyter/nbgrader:assignment-list" not in disabled  # fetch and submit on a JupyterHub


def test_instructors_get_every_nbgrader_tool():
    instructor = REPO_ROOT / "jupyterlab_settings" / "instructor"
    assert (instructor / "overrides.json").read_text() == (REPO_ROOT / "jupyterlab_settings" / "overrides.json").read_text()
    assert not (instructor / "page_config.json").exists()
