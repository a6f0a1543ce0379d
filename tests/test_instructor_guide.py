"""The instructor guide's commands, run verbatim on a copy of the repository, in the guide's order.

``solutions/README.md`` sections 1-6 hold the commands an instructor types: release, hand out,
collect (student ids with ``_`` included), autograde, check who was graded, export, feedback. This
test copies the tracked files to a new folder (what a fresh clone holds), puts two LMS downloads
where the guide's ``collect`` command reads them, runs every command of those sections exactly as
written (exchange-only lines excepted: there is no exchange there), and checks the outcome. Then it
grades a lab from the learner handout, which has no ``solutions/``, as a learner would, and runs the
handout's own test command there.

The guide's ``nbgrader`` lines run as the shell parses them, word for word. The first (which makes the
gradebook) runs the installed ``nbgrader`` script; the rest, by default, the course's launcher of the same
nbgrader ``main`` (``bpe_ref/course/nbgrader_main.py``, which every other grading of the suite runs): about
3 s of CPU less per command, for jsonschema's IRI grammars nbgrader never uses (tests/test_nbgrader_main.py).
``BPE_EXHAUSTIVE=1`` runs every line with the installed script. An ``alembic`` that fails comes first on ``PATH``:
the course's ``nbgrader_config.py`` makes nbgrader stamp a new gradebook in its own process, not by running
``alembic heads`` in a second one (which imports nbgrader again: 4-6 s of CPU), for the installed script too.

Section 7's commands (a JupyterHub on this machine: ``classroom up``, ``down``, ``demo``) run in a
second copy, against a real hub on 127.0.0.1: real processes, real HTTP, the whole round of a lab
through the hub's exchange. By default the demo runs with the first two of the guide's three students
(the solution and half of it; the blank release's zero is every class batch's): ``BPE_EXHAUSTIVE=1``
runs all three.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import socket
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bpe_ref.course.commands.classroom import free_port
from bpe_ref.course.notebooks import REPO_ROOT, nbgrader_environment, read_notebook_json, release_notebook, source_notebook
from sampling import EXHAUSTIVE

pytestmark = pytest.mark.slow
GUIDE = REPO_ROOT / "solutions" / "README.md"
LAB = "01_naive_bpe"
# The lab a learner grades in the handout: one whose graders give the worker modules of the
# handout's own package (earlier steps'), and cheap to grade; the guide's class already grades
# lab 01's solution. BPE_EXHAUSTIVE=1 grades lab 01 in the handout too.
HANDOUT_LABS = ("07_heap_encoding", LAB) if EXHAUSTIVE else ("07_heap_encoding",)


def guide_commands() -> list[str]:
    """The shell commands of sections 1-6, in order (``nbgrader ...`` and ``python -m bpe_ref ...``)."""
    text = GUIDE.read_text(encoding="utf-8")
    return _commands(text[text.index("## 1. Release a lab"):text.index("## 7. A class on a JupyterHub")])


def hub_commands() -> list[str]:
    """The shell commands of section 7, the hub, in order."""
    text = GUIDE.read_text(encoding="utf-8")
    return _commands(text[text.index("## 7. A class on a JupyterHub"):text.index("## Self-study")])


def _commands(text: str) -> list[str]:
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith(("nbgrader ", "python -m bpe_ref ")) and "exchange only" not in line:
                commands.append(re.sub(r"\s+#.*$", "", line))
    return commands


def completed(notebook: dict, lab: str = LAB) -> dict:
    solutions = {c["id"]: c["source"] for c in read_notebook_json(source_notebook(lab))["cells"]}
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            cell["source"] = "\n".join(line for line in solutions[cell["id"]].splitlines() if "### " not in line)
    return notebook


def copy_of_the_repository(target: Path) -> Path:
    """What a fresh clone holds: the tracked files as they are in the working tree, committed."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, names):
        if (REPO_ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, target / name)
    identity = {"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "test",
                "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": os.environ.get("PATH", "")}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "clone"]):
        subprocess.run(command, cwd=target, check=True, capture_output=True, env=identity)
    return target


def activated_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a shell where the course's venv is activated (``nbgrader``, ``python``)."""
    env = nbgrader_environment()
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
    env.update(extra or {})
    return env


def course_launcher(folder: Path) -> Path:
    """A folder holding an ``nbgrader`` that starts the course's launcher of nbgrader's ``main`` with the
    arguments it is given (put first on ``PATH``, it answers the guide's ``nbgrader`` lines)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "nbgrader"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m bpe_ref.course.nbgrader_main "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return folder


def failing_alembic(folder: Path) -> Path:
    """A folder holding an ``alembic`` that fails, saying nbgrader started it (put first on ``PATH``)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "alembic"
    script.write_text("#!/bin/sh\necho 'nbgrader ran alembic: nbgrader_config.py makes a gradebook in process' >&2\nexit 1\n",
                      encoding="utf-8")
    script.chmod(0o755)
    return folder


@pytest.fixture(scope="module")
def instructor_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("guide")
    course = copy_of_the_repository(root / "course")
    commands = guide_commands()
    launcher = course_launcher(root / "launcher")
    no_alembic = failing_alembic(root / "no-alembic")
    results = []
    installed_script_ran = False
    for command in commands:
        if command.startswith("python -m bpe_ref collect "):
            # What an LMS gives: one file named as the guide asks, one a browser's second download.
            downloads = course / command.split()[4]
            downloads.mkdir(parents=True)
            (downloads / f"alice_smith__{LAB}.ipynb").write_text(json.dumps(completed(read_notebook_json(release_notebook(LAB)))))
            (downloads / f"bob__{LAB} (1).ipynb").write_text(json.dumps(read_notebook_json(release_notebook(LAB))))
        # The guide's commands use the course's own package: put this copy first on the path.
        env = activated_environment({"PYTHONPATH": str(course)})
        env["PATH"] = str(no_alembic) + os.pathsep + env["PATH"]
        if command.startswith("nbgrader "):
            if installed_script_ran and not EXHAUSTIVE:  # the course's launcher (see the module's docstring)
                env["PATH"] = str(launcher) + os.pathsep + env["PATH"]
            installed_script_ran = True
        result = subprocess.run(command, shell=True, cwd=course, capture_output=True, text=True, timeout=900, env=env)
        results.append((command, result))
    return {"root": root, "course": course, "commands": commands, "results": results}


def test_the_guide_names_the_whole_route():
    commands = guide_commands()
    for needed in ("nbgrader generate_assignment", "python -m bpe_ref handout", "python -m bpe_ref collect", "nbgrader zip_collect",
                   "python -m bpe_ref autograde", "nbgrader autograde",
                   "python -m bpe_ref grade --class", "nbgrader export", "nbgrader generate_feedback"):
        assert any(c.startswith(needed) for c in commands), f"the guide has no {needed!r} command"


def test_every_command_succeeds(instructor_run):
    failed = [(c, r.returncode, (r.stdout + r.stderr)[-1500:]) for c, r in instructor_run["results"] if r.returncode != 0]
    assert not failed, failed


def test_collect_keeps_ids_with_underscores(instructor_run):
    submitted = sorted(p.name for p in (instructor_run["course"] / "submitted").iterdir())
    assert submitted == ["alice_smith", "bob"]
    said = next(r.stdout for c, r in instructor_run["results"] if c.startswith("python -m bpe_ref collect"))
    assert re.search(rf"^bob__{LAB} \(1\)\.ipynb\s+copied\s+bob\s+renamed bob__{LAB}\.ipynb$", said, re.M), said


def test_export_per_lab_holds_that_lab_only(instructor_run):
    rows = list(csv.DictReader((instructor_run["course"] / "grades-lab01.csv").open()))
    assert rows and {row["assignment"] for row in rows} == {LAB}


def test_grades_and_feedback_come_out(instructor_run):
    course = instructor_run["course"]
    summary = next(r.stdout for c, r in instructor_run["results"] if "grade --class" in c)
    assert re.search(r"^alice_smith\s+17 / 17\s+graded$", summary, re.M), summary
    assert re.search(r"^bob\s+0 / 17\s+graded$", summary, re.M), summary
    rows = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader((course / "grades.csv").open())}
    assert rows == {"alice_smith": 17.0, "bob": 0.0}
    assert (course / "grades-lab01.csv").exists()
    assert sorted(p.parts[-3] for p in (course / "feedback").glob(f"*/{LAB}/{LAB}.html")) == ["alice_smith", "bob"]


def test_the_handout_has_no_solutions(instructor_run):
    handout = instructor_run["root"] / "fast-bpe-handout"
    assert (handout / "labs" / LAB / f"{LAB}.ipynb").exists() and (handout / "bpe_ref").is_dir()
    assert not (handout / "solutions").exists()
    # its own checks, not the course's tests (and the compiled-module cache its own test run may have written there)
    assert [p.name for p in (handout / "tests").iterdir() if p.name != "__pycache__"] == ["test_handout.py"]
    for path in handout.rglob("*.ipynb"):
        assert "### BEGIN SOLUTION" not in path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize("lab", HANDOUT_LABS)
def test_the_handout_grades_itself(instructor_run, lab):
    # A learner's finished notebook, graded with the handout's own package (no solutions/ there).
    handout = instructor_run["root"] / "fast-bpe-handout"
    finished = handout / "labs" / lab / "mine.ipynb"
    finished.write_text(json.dumps(completed(read_notebook_json(release_notebook(lab)), lab)), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "bpe_ref", "grade", str(finished), "--lab", lab], cwd=handout,
                            capture_output=True, text=True, timeout=600, env=activated_environment({"PYTHONPATH": str(handout)}))
    assert result.returncode == 0, result.stdout + result.stderr
    full = int(sum(c["metadata"].get("nbgrader", {}).get("points", 0) for c in read_notebook_json(source_notebook(lab))["cells"]))
    assert f"All tasks passed: {full} / {full} points" in result.stdout, result.stdout


def test_the_handout_readme_fits_the_handout_and_its_test_command_runs(instructor_run):
    handout = instructor_run["root"] / "fast-bpe-handout"
    readme = (handout / "README.md").read_text(encoding="utf-8")
    links = {link for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme) if "://" not in link}
    assert not [link for link in links if not (handout / link).exists()], links
    assert "solutions/" not in readme
    quickstart = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    command = re.findall(r"```bash\n(.*?)\n```", quickstart, flags=re.S)[1]
    assert command.endswith(".venv/bin/python -m pytest"), command
    # The handout's tests, with this environment (the README's command would first install it).
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider"], cwd=handout,
                            capture_output=True, text=True, timeout=600, env=activated_environment({"PYTHONPATH": str(handout)}))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert re.search(r"\d+ passed", result.stdout), result.stdout


# ------------------------------------------------------------------------------------------------
# Section 7: a class on a JupyterHub, on this machine
# ------------------------------------------------------------------------------------------------


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def _processes_under(folder: Path) -> list[str]:
    """Command lines of live processes that name ``folder`` or run in it: what a hub left behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if str(folder) in line or cwd.startswith(str(folder)):
            found.append(f"{entry.name}: {line[:200]}")
    return found


def demo_with_two_students(command: str) -> str:
    """The guide's demo with its first two students, the solution and half of it: a full and a partial
    grade through the exchange. The third hands in the blank release, whose zero every lab's class batch
    shows (tests/test_grading_adversarial.py); its server and round cost 6-11 s of CPU, so
    ``BPE_EXHAUSTIVE=1`` runs the guide's command as written."""
    two = re.sub(r"--students \d+", "--students 2", command)
    assert two != command, f"the guide's demo names no --students: {command}"
    return two


@pytest.fixture(scope="module")
def hub_run(tmp_path_factory):
    from bpe_ref.course.commands.classroom import proxy_command

    try:
        proxy_command(log=lambda _: None)  # installs configurable-http-proxy with npm when missing
    except FileNotFoundError as err:
        if os.environ.get("CI"):
            raise  # CI must run the hub: a missing Node.js is a failure there, not a skip
        pytest.skip(f"no JupyterHub proxy here: {err}")
    course = copy_of_the_repository(tmp_path_factory.mktemp("hub") / "course")
    results = []
    env = activated_environment({"PYTHONPATH": str(course)})
    for command in hub_commands():
        if " classroom up " in command and "--port" not in command and not _port_free(8000):
            command += f" --port {free_port()}"  # 8000 is taken on this machine: the guide says --port P
        if " classroom demo " in command and not EXHAUSTIVE:
            command = demo_with_two_students(command)
        started = time.monotonic()
        result = subprocess.run(command, shell=True, cwd=course, capture_output=True, text=True, timeout=1200, env=env)
        answer = None
        if " classroom up " in command and result.returncode == 0:
            url = re.search(r"is up: (http://\S+)/", result.stdout).group(1)
            with urllib.request.urlopen(f"{url}/hub/api/", timeout=30) as response:
                answer = json.loads(response.read())
            hub_pid = json.loads((course / "classroom" / "classroom.json").read_text(encoding="utf-8"))["hub_pid"]
            answer["hub command"] = Path(f"/proc/{hub_pid}/cmdline").read_bytes().split(b"\0")
        results.append((command, result, time.monotonic() - started, answer))
    return {"course": course, "results": results}


def test_the_guide_names_the_hub_route():
    commands = hub_commands()
    assert [c.split()[4] for c in commands] == ["up", "down", "demo"], commands


def test_every_hub_command_succeeds(hub_run):
    failed = [(c, r.returncode, (r.stdout + r.stderr)[-2500:]) for c, r, _, _ in hub_run["results"] if r.returncode != 0]
    assert not failed, failed


def test_up_serves_a_hub_and_down_stops_it(hub_run):
    (_, up, _, answer), (_, down, _, _) = hub_run["results"][:2]
    assert answer and re.match(r"\d+\.\d+", answer["version"]), (answer, up.stdout)
    assert re.search(r"students:\s+ada, bob, cy, shared password \S{8,}", up.stdout), up.stdout
    assert "hub (pid" in down.stdout and not (hub_run["course"] / "classroom" / "classroom.json").exists()
    # The hub and its servers start through the course's launcher (tests/test_nbgrader_main.py): about 3 s of CPU less each.
    launcher = [b"-m", b"bpe_ref.course.nbgrader_main", b"jupyterhub", b"-f"]
    assert answer["hub command"][1:5] == launcher, answer["hub command"]
    config = (hub_run["course"] / "classroom" / "jupyterhub_config.py").read_text(encoding="utf-8")
    spawner = [line for line in config.splitlines() if line.startswith("c.Spawner.cmd = ")]
    singleuser = r"c\.Spawner\.cmd = \['[^']+', '-m', 'bpe_ref\.course\.nbgrader_main', 'jupyterhub-singleuser'\]"
    assert len(spawner) == 1 and re.fullmatch(singleuser, spawner[0]), spawner


def test_the_demo_round_grades_every_student_and_returns_feedback(hub_run):
    command, demo, seconds, _ = hub_run["results"][2]
    out = demo.stdout
    assert re.search(r"^JupyterHub \d+\.\d+\.\d+, nbgrader exchange course fast-bpe, lab 00_pretokenization$", out, re.M), out
    rows = {m["name"]: (float(m["score"]), float(m["max"]), m["work"])
            for m in re.finditer(r"^(?P<name>student\d)\s+(?P<score>[\d.]+) / (?P<max>[\d.]+)\s+\((?P<work>\w+) work; "
                                 r"autograded in \d+ s; feedback fetched\)$", out, re.M)}
    assert set(rows) == ({"student1", "student2", "student3"} if EXHAUSTIVE else {"student1", "student2"}), out
    assert rows["student1"] == (13.0, 13.0, "solution"), out
    assert rows["student2"][2] == "half" and 0 < rows["student2"][0] < 13, out
    if EXHAUSTIVE:  # the guide's third student (demo_with_two_students)
        assert rows["student3"] == (0.0, 13.0, "blank"), out
    print(f"{command}: {seconds:.0f} s")


def test_nothing_the_hub_started_is_left_running(hub_run):
    assert not _processes_under(hub_run["course"]), _processes_under(hub_run["course"])
