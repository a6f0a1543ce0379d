"""Cheap checks of ``python -m bpe_ref collect`` and of the classroom command's input handling.

The whole classroom round, against a real JupyterHub, runs in tests/test_instructor_guide.py.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from bpe_ref.course.commands.classroom import parse_students, written_work
from bpe_ref.course.commands.collect import collect
from bpe_ref.course.notebooks import read_notebook_json, release_notebook

LAB = "01_naive_bpe"


@pytest.fixture
def course(tmp_path):
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "nbgrader_config.py").write_text("c = get_config()\n")
    (tmp_path / "dl").mkdir()
    return tmp_path


def put(folder, name, text="{}", age=0.0):
    path = folder / name
    path.write_text(text)
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))


def test_collect_says_what_it_did_with_every_file(course):
    downloads = course / "dl"
    put(downloads, f"bob__{LAB}.ipynb", '{"old": 1}', age=100)
    put(downloads, f"bob__{LAB} (1).ipynb", '{"new": 1}')
    put(downloads, f"alice_smith__{LAB}-2.ipynb")
    put(downloads, f"carol__{LAB}.ipynb", "{ truncated")
    put(downloads, f"{LAB}.ipynb")
    put(downloads, "dave__00_pretokenization.ipynb")
    put(downloads, "notes.pdf", "x")
    outcomes = {o.file: (o.action, o.student, o.reason) for o in collect(downloads, LAB, course / "course")}
    archive = course / "course" / "downloaded" / LAB / "archive"
    assert sorted(p.name for p in archive.iterdir()) == [f"alice_smith__{LAB}.ipynb", f"bob__{LAB}.ipynb", f"carol__{LAB}.ipynb"]
    assert json.loads((archive / f"bob__{LAB}.ipynb").read_text()) == {"new": 1}  # the newest of bob's files
    assert outcomes[f"bob__{LAB} (1).ipynb"] == ("copied", "bob", f"renamed bob__{LAB}.ipynb")
    assert outcomes[f"bob__{LAB}.ipynb"][0] == "older"
    assert outcomes[f"alice_smith__{LAB}-2.ipynb"][:2] == ("copied", "alice_smith")
    assert outcomes[f"carol__{LAB}.ipynb"][0] == "copied" and "NOT valid notebook JSON" in outcomes[f"carol__{LAB}.ipynb"][2]
    assert outcomes[f"{LAB}.ipynb"][0] == "left out" and "no student id" in outcomes[f"{LAB}.ipynb"][2]
    assert outcomes["dave__00_pretokenization.ipynb"][0] == "left out"
    assert outcomes["notes.pdf"][0] == "left out"
    assert sorted(p.name for p in downloads.iterdir()) == sorted(outcomes)  # the downloads stay as they were


def test_collect_follows_no_link(course):
    """A learner's zip, unpacked as the guide says (``unzip`` makes the links it holds), put a link named
    ``mallory__<lab>.ipynb`` to a file of the instructor's in the downloads: collect copied the file it points to into
    the course as mallory's notebook (and on to submitted/ and the feedback). Safe: a link is left out, and said so."""
    downloads = course / "dl"
    secret = course / "instructor_secret.txt"
    secret.write_text("the instructor's")
    (downloads / f"mallory__{LAB}.ipynb").symlink_to(secret)
    (downloads / f"eve__{LAB}.ipynb").symlink_to(course / "nowhere")
    outcomes = {o.file: (o.action, o.reason) for o in collect(downloads, LAB, course / "course")}
    assert outcomes == dict.fromkeys((f"eve__{LAB}.ipynb", f"mallory__{LAB}.ipynb"),
                                     ("left out", "a link, not a file: ask for the notebook itself"))
    assert not list((course / "course" / "downloaded" / LAB / "archive").iterdir())


def test_a_zip_s_notebook_is_its_sender_s_whatever_its_name_inside(course):
    """collect told the instructor to unpack a zip a learner sent ("not a notebook (unpack archives first)"), and the
    names inside a zip are the learner's: a notebook named ``alice__<lab>.ipynb``, dated in the future, in mallory's
    zip then stood for alice, newest of her files, and replaced her work (a link in it read any file, see above).
    Safe: collect reads the zip itself, never unpacks it; its one notebook is the zip's sender's, dated as the zip."""
    import zipfile

    downloads = course / "dl"
    put(downloads, f"alice__{LAB}.ipynb", '{"by": "alice"}', age=100)
    with zipfile.ZipFile(downloads / f"mallory__{LAB}.zip", "w") as archive:
        archive.writestr(zipfile.ZipInfo(f"work/alice__{LAB}.ipynb", date_time=(2099, 1, 1, 0, 0, 0)), '{"by": "mallory"}')
        archive.writestr("work/.ipynb_checkpoints/x-checkpoint.ipynb", "{}")
    with zipfile.ZipFile(downloads / f"eve__{LAB}.zip", "w") as archive:
        archive.writestr("a.ipynb", "{}")
        archive.writestr("b.ipynb", "{}")
    put(downloads, f"dan__{LAB}.zip", "not a zip")
    outcomes = {o.file: (o.action, o.student, o.reason) for o in collect(downloads, LAB, course / "course")}
    archive = course / "course" / "downloaded" / LAB / "archive"
    assert sorted(p.name for p in archive.iterdir()) == [f"alice__{LAB}.ipynb", f"mallory__{LAB}.ipynb"]
    assert json.loads((archive / f"alice__{LAB}.ipynb").read_text()) == {"by": "alice"}
    assert json.loads((archive / f"mallory__{LAB}.ipynb").read_text()) == {"by": "mallory"}
    assert outcomes[f"mallory__{LAB}.zip"] == ("copied", "mallory", f"renamed mallory__{LAB}.ipynb; the notebook in the zip")
    assert outcomes[f"eve__{LAB}.zip"] == ("left out", "eve", "a zip of 2 notebooks, not of one: ask for the notebook itself")
    assert outcomes[f"dan__{LAB}.zip"] == ("left out", "dan", "a zip that cannot be read (BadZipFile): ask for the notebook itself")


def test_collect_refuses_a_folder_that_is_not_a_course(course):
    with pytest.raises(FileNotFoundError, match="not a course folder"):
        collect(course / "dl", LAB, course / "dl")


@pytest.mark.parametrize("text, message", [
    ("", "at least one"), ("Ada", "lower-case"), ("a__b", "lower-case"), ("ada,ada", "twice"), ("1x", "lower-case"),
])
def test_classroom_refuses_bad_student_names(text, message):
    with pytest.raises(ValueError, match=message):
        parse_students(text)


def test_classroom_takes_names_with_single_underscores():
    assert parse_students("ada, bob_smith ,cy") == ["ada", "bob_smith", "cy"]


def test_demo_work_of_known_quality():
    release = read_notebook_json(release_notebook(LAB))
    solution_cells = lambda nb: [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution")]
    stubs = lambda nb: sum("raise NotImplementedError" in "".join(c["source"]) for c in solution_cells(nb))
    total = len(solution_cells(release))
    assert stubs(written_work(read_notebook_json(release_notebook(LAB)), LAB, "blank")) == stubs(release)
    assert stubs(written_work(read_notebook_json(release_notebook(LAB)), LAB, "solution")) == 0
    assert stubs(written_work(read_notebook_json(release_notebook(LAB)), LAB, "half")) == stubs(release) - total // 2


def test_a_student_s_server_on_the_classroom_hub_loads_the_course_s_guard(tmp_path):
    """A student's server on ``classroom up``'s hub starts in their home, where no course's ``nbgrader_config.py`` is
    loaded: nbgrader's version check answered ``/nbgrader_version?version=<script>...`` there unsandboxed, a page of the
    server's origin (whose API runs code), as it did in the instructor's before the course's config guarded it. The
    students' server config enables the guard as a Jupyter server extension, which jupyter_server finds and can load
    (what it does is checked on a real server in tests/test_labs_jupyter.py)."""
    from jupyter_server.extension.manager import ExtensionPackage

    from bpe_ref.course.commands.classroom import write_hub_config

    write_hub_config(tmp_path, tmp_path / "course", "instructor", ["ada"], 8000, "configurable-http-proxy", "t" * 64,
                     {"students": "s", "instructor": "i"})
    config = json.loads((tmp_path / "home" / "ada" / ".jupyter" / "jupyter_server_config.json").read_text())
    enabled = [name for name, on in config["ServerApp"]["jpserver_extensions"].items() if on]
    assert enabled == ["bpe_ref.course.printable"], config
    package = ExtensionPackage(name=enabled[0], enabled=True)
    assert package.validate() and [point.module.__name__ for point in package.extension_points.values()] == enabled
