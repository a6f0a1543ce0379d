"""The learner's and the instructor's JupyterLab: started at the repository root, it loads the
nbgrader extensions (formgrader, validate, the Nbgrader menu) and serves the labs and theory pages.

How the pages look is checked in a real browser on the course website (tests/test_site.py); a
screenshot of JupyterLab itself is a headless Chromium away (CONTRIBUTING.md, "Known pitfalls").
"""

from __future__ import annotations

import json
import re
import shutil
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
         "--LabApp.app_settings_dir=jupyterlab_settings",  # the learners' settings, as in the README
         f"--CourseDirectory.db_url=sqlite:///{server_log.parent / 'gradebook.db'}"],  # not an instructor's in the tree
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


# Ids a link can hold: each quote, tag and script of it reached nbgrader's page as it was (0.9.6's jinja Environment
# has no autoescape), in a <script> (``var student_id = "...";``) on the formgrader's origin, whose API sets grades.
CRAFTED = ('";fetch("/formgrader/api/grade");"', "</script><script>alert(1)</script>", "<img src=x onerror=alert(2)>")
FORMGRADER_PAGES = ("manage_students/{0}", "manage_students/{0}/{1}", "manage_submissions/{1}", "gradebook/{1}",
                    "gradebook/{1}/{0}")


def test_the_formgrader_writes_no_id_of_a_link_into_its_page_as_a_script(jupyterlab):
    """Every formgrader page that takes an id from its address (a student, a lab, a notebook), opened at a link a
    learner sent the instructor: the id is on the page as text, never as markup or code; an honest id renders its page
    as before. Safe: ``nbgrader_config.py``, which the formgrader loads before it builds its pages' Environment, has
    it escape what it writes (:func:`bpe_ref.course.printable.guard_nbgrader_server`)."""
    from urllib.parse import quote

    from markupsafe import escape

    for page in FORMGRADER_PAGES:
        status, html = get(f"{jupyterlab}/formgrader/" + page.format("bob.o-k@uni.edu", "01_naive_bpe"))
        assert status == 200 and "bob.o-k@uni.edu" in html.replace("01_naive_bpe", "bob.o-k@uni.edu"), (page, html[:500])
        assert re.search(r'var (student|assignment)_id = "(bob\.o-k@uni\.edu|01_naive_bpe)";', html), (page, html[:500])
        for crafted in CRAFTED:
            status, html = get(f"{jupyterlab}/formgrader/" + page.format(*[quote(crafted, safe="")] * 2))
            assert status == 200 and crafted not in html and str(escape(crafted)) in html, (page, crafted, html[:800])


@pytest.fixture(scope="module")
def gradebook(jupyterlab, server_log):
    """The gradebook of the server's formgrader (--CourseDirectory.db_url), made here before the server opens it (in
    the server, nbgrader runs ``alembic heads`` to make one: seconds of CPU)."""
    import nbgrader.api

    from bpe_ref.course.nbgrader_main import gradebook_revision_in_process

    by_command = nbgrader.api.get_alembic_version
    gradebook_revision_in_process()
    try:
        with nbgrader.api.Gradebook(f"sqlite:///{server_log.parent / 'gradebook.db'}") as made:
            yield made
    finally:
        nbgrader.api.get_alembic_version = by_command


def runs_no_script(headers) -> bool:
    """Whether a browser that opens a response with these headers runs no script of its body on the server's origin."""
    policy = headers.get("Content-Security-Policy", "")
    return not headers["Content-Type"].startswith("text/html") or bool(re.search(r"(^|;)\s*sandbox\s*(;|$)", policy))


def opened(url: str) -> tuple[int, str, object]:
    """The status, the body and the headers of the answer at ``url``."""
    try:
        with urllib.request.urlopen(url, timeout=20) as answer:
            return answer.status, answer.read().decode("utf-8", errors="replace"), answer.headers
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", errors="replace"), err.headers


@pytest.mark.filterwarnings("ignore:Object of type <Submitted")  # nbgrader's, as nbgrader_config.py says
def test_a_file_a_learner_handed_in_runs_no_script_on_the_formgrader_s_origin(jupyterlab, gradebook):
    """The formgrader serves the files beside a submission's autograded notebook (its images) at
    ``/formgrader/submissions/<id>/<file>``, on its own origin: a learner's ``page.html`` there, which a link in their
    markdown (``[my plot](page.html)``) reaches from the formgrade page, ran its script when the instructor followed
    it, on the origin whose API sets grades. Safe: the course's config has those files served sandboxed (no script;
    an origin of their own), the notebook's images as before."""
    student, lab = "form-test-student", "01_naive_bpe"
    autograded = REPO_ROOT / "autograded"
    made = not autograded.exists()
    (autograded / student / lab).mkdir(parents=True)
    try:
        (autograded / student / lab / "page.html").write_text("<script>fetch('/formgrader/api/grade')</script>")
        (autograded / student / lab / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
        gradebook.add_assignment(lab)
        gradebook.add_notebook(lab, lab)
        gradebook.add_student(student)
        submission = gradebook.add_submission(lab, student).notebooks[0].id
        for name, kind in (("page.html", "text/html"), ("plot.png", "image/png")):
            status, body, headers = opened(f"{jupyterlab}/formgrader/submissions/{submission}/{name}")
            assert status == 200 and headers["Content-Type"].startswith(kind) and body, (name, headers)
            assert runs_no_script(headers), (name, headers)
    finally:
        shutil.rmtree(autograded if made else autograded / student)


def test_the_formgrader_s_api_answers_a_link_with_no_page_that_runs_its_id(jupyterlab, gradebook):
    """nbgrader's formgrader API answers its JSON as ``text/html`` (it writes a string), and some of its answers repeat
    the id in the address (``/formgrader/api/student_submissions/<id>``: the student's submissions of every lab): a
    link a learner sent with a ``<script>`` for an id ran it on the formgrader's origin. Safe: the course's config has
    the API's answers sandboxed; what the formgrader's pages read from it is the same JSON."""
    from urllib.parse import quote

    crafted = quote("<script>fetch('/formgrader/api/grade')</script>", safe="")
    for path in (f"student_submissions/{crafted}", f"submission/01_naive_bpe/{crafted}", "student_submissions/bob"):
        status, body, headers = opened(f"{jupyterlab}/formgrader/api/{path}")
        answer = json.loads(body)
        assert status == 200 and runs_no_script(headers), (path, headers, body[:300])
        assert "bob" not in path or {lab["student"] for lab in answer} == {"bob"}, answer


def test_nbgrader_s_other_answers_to_a_link_run_no_script_in_the_server_s_pages(jupyterlab):
    """nbgrader's other server extensions (validate, the assignment and course lists) answer JSON as ``text/html`` too,
    on the Jupyter server's own origin, whose API runs code: ``/nbgrader_version?version=<script>...`` (the lab
    extension's version check) wrote the version of the address into its message, so a link ran its script there, in
    the instructor's server or a learner's. Safe: the course's config has every answer of nbgrader's JSON handlers
    sandboxed; the honest check answers as before."""
    from urllib.parse import quote

    from nbgrader import __version__

    for version in (quote("<script>fetch('/api/kernels', {method: 'POST'})</script>", safe=""), __version__):
        status, body, headers = opened(f"{jupyterlab}/nbgrader_version?version={version}")
        assert status == 200 and runs_no_script(headers), (headers, body[:300])
        assert json.loads(body)["success"] is (version == __version__), body
    for path in ("formgraders", "courses", "assignments?course_id=fast-bpe"):
        status, body, headers = opened(f"{jupyterlab}/{path}")
        assert status == 200 and "success" in json.loads(body) and runs_no_script(headers), (path, headers, body[:300])


def test_the_formgrader_runs_no_config_of_a_folder_a_link_names(jupyterlab, tmp_path):
    """nbgrader's formgrader opens the course of any folder its address names (``/formgrader?path=DIR``, the Nbgrader
    menu's "Formgrader (local)"): it runs that folder's ``nbgrader_config.py``, Python, in the instructor's server. A
    learner hands in such a file (collect copies it to ``submitted/<them>/<lab>/``; on a hub it is in the exchange) and
    sends the instructor the link: their code ran as the instructor, one click. Safe: the course's config refuses any
    folder but the course's own (403); the formgrader opens the course as before."""
    marker = tmp_path / "ran"
    (tmp_path / "nbgrader_config.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    try:
        status, html = get(f"{jupyterlab}/formgrader?path={tmp_path}")
        assert not marker.exists(), "a link's folder had its nbgrader_config.py run in the formgrader's server"
        assert status == 403, (status, html[:500])
        status, html = get(f"{jupyterlab}/formgrader?path={REPO_ROOT}")
        assert status == 200 and "Manage Assignments" in html, (status, html[:500])
    finally:
        get(f"{jupyterlab}/formgrader")  # back to the course the server started with, whatever happened
