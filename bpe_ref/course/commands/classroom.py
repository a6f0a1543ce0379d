"""``python -m bpe_ref classroom up|down|demo``: the course on a real JupyterHub, on this machine.

- ``up --students a,b,c``: JupyterHub on 127.0.0.1 with a shared-password login (a workshop's, not
  a class with accounts), every server run as this account in a home of its own (``CourseSpawner``),
  nbgrader's exchange for the course ``fast-bpe``, the formgrader for the instructor (started in the
  course folder) and the assignment list for students.
- ``down`` stops exactly what ``up`` started, by the pids recorded in the state folder, each
  process group as a whole.
- ``demo --students N`` runs one lab's whole round through such a hub over HTTP (release, fetch,
  write a solution of known quality, submit, collect, autograde with the trusted grader, feedback),
  prints a row per student and stops every process it started, on failure and Ctrl-C too.

``configurable-http-proxy`` (Node.js) comes from ``PATH`` or is installed once with npm into
``~/.cache/bpe_ref/node`` (``BPE_CLASSROOM_NODE``). solutions/README.md says how to move to the
institution's login and to Kubernetes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..notebooks import REPO_ROOT, nbgrader_environment, read_notebook_json, source_notebook
from ..trusted.cells import nbgrader_of
from ..trusted.measure_worker import command_line

COURSE_ID = "fast-bpe"
DEFAULT_STATE = Path("classroom")
DEFAULT_DEMO_STATE = Path("classroom-demo")
DEFAULT_LAB = "00_pretokenization"
PROXY_PACKAGE = "configurable-http-proxy@4"
RECORD = "classroom.json"
USER_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
WORK_KINDS = ("solution", "half", "blank")  # what demo students hand in, in turn
LAUNCHER = "bpe_ref.course.nbgrader_main"  # starts the hub and its servers (HUB_PROGRAMS there)


# Setting up: the proxy program, free ports, the state folder and JupyterHub's configuration

def node_prefix() -> Path:
    """Where the course installs ``configurable-http-proxy`` when ``PATH`` has none."""
    if os.environ.get("BPE_CLASSROOM_NODE"):
        return Path(os.environ["BPE_CLASSROOM_NODE"]).expanduser().resolve()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "bpe_ref" / "node"


def proxy_command(log: Callable[[str], None] = print) -> str:
    """The path of ``configurable-http-proxy``: on PATH, or installed with npm once."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return found
    prefix = node_prefix()
    installed = prefix / "node_modules" / ".bin" / "configurable-http-proxy"
    if installed.exists():
        return str(installed)
    npm = shutil.which("npm")
    if npm is None:
        raise FileNotFoundError("JupyterHub needs configurable-http-proxy, and neither it nor npm is on PATH: "
                                f"install Node.js (with npm), then `npm install --prefix {prefix} {PROXY_PACKAGE}`")
    log(f"Installing {PROXY_PACKAGE} with npm into {prefix} (once)...")
    prefix.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", PROXY_PACKAGE],
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0 or not installed.exists():
        raise FileNotFoundError(f"npm could not install {PROXY_PACKAGE} into {prefix}: {(result.stderr or result.stdout)[-800:]}")
    return str(installed)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def parse_students(text: str) -> list[str]:
    """``"a,b,c"`` -> ``["a", "b", "c"]``; a clear error for a name JupyterHub or nbgrader would not take."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise ValueError("--students needs at least one name, e.g. --students ada,bob")
    for name in names:
        if not USER_NAME.match(name) or "__" in name:
            raise ValueError(f"student name {name!r}: use lower-case letters, digits, '-' and single '_', starting with a letter")
    if len(set(names)) != len(names):
        raise ValueError("--students names a student twice")
    return names


def write_hub_config(state: Path, course: Path, instructor: str, students: list[str], port: int,
                     proxy: str, service_token: str, passwords: dict[str, str]) -> Path:
    """Write the state folder's layout and ``jupyterhub_config.py``; its path."""
    hub, home, exchange, config = state / "hub", state / "home", state / "exchange", state / "config"
    for folder in (hub, home, exchange, config):
        folder.mkdir(parents=True, exist_ok=True)
    # Every user's server runs as this one account, so the exchange needs no shared permissions;
    # nbgrader still checks that it can write there.
    exchange.chmod(0o755)
    # nbgrader reads this from JUPYTER_CONFIG_PATH in every user's server (the instructor's course
    # folder adds nbgrader_config.py on top): the exchange, and the course students fetch from.
    (config / "nbgrader_config.py").write_text(
        "# Written by `python -m bpe_ref classroom up`: nbgrader's exchange for every server of this hub.\n"
        "c = get_config()  # noqa: F821\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        "# Every server runs as the same unix account here, so a submission's owner cannot tell who\n"
        "# handed it in: each student's ~/.jupyter/nbgrader_config.py names the student.\n"
        "c.ExchangeCollect.check_owner = False\n", encoding="utf-8")
    for student in students:  # students get the assignment list, not the instructor's tools
        settings = home / student / ".jupyter"
        (settings / "labconfig").mkdir(parents=True, exist_ok=True)
        # nbgrader names a submission after the unix account (JUPYTERHUB_USER only when that is
        # `jovyan`, as on Zero to JupyterHub); here every server runs as one account, so each
        # student's own configuration names the student.
        (settings / "nbgrader_config.py").write_text(
            "c = get_config()  # noqa: F821\n"
            f"c.CourseDirectory.student_id = {student!r}  # written by `python -m bpe_ref classroom up`\n", encoding="utf-8")
        (settings / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {"jpserver_extensions": {
            "nbgrader.server_extensions.formgrader": False, "nbgrader.server_extensions.create_assignment": False,
            "bpe_ref.course.printable": True}}}))  # nbgrader's answers to a link sandboxed, as the course's config does
        (settings / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": {
            "@jupyter/nbgrader:formgrader": True, "@jupyter/nbgrader:create-assignment": True}}))
    scripts = Path(sys.executable).parent
    environment = {
        "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}",  # nbgrader runs alembic from PATH
        "JUPYTER_CONFIG_PATH": str(config),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parents[3]),  # the launcher's package, this one
    }
    args = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    lines = [
        "# Written by `python -m bpe_ref classroom up` (bpe_ref/course/commands/classroom.py): a hub for one",
        "# machine. It holds passwords: keep it private (mode 0600).",
        "c = get_config()  # noqa: F821",
        "c.JupyterHub.ip = '127.0.0.1'",
        f"c.JupyterHub.port = {port}",
        "c.JupyterHub.hub_ip = '127.0.0.1'",
        f"c.JupyterHub.hub_port = {free_port()}",
        f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{free_port()}'",
        f"c.ConfigurableHTTPProxy.command = [{proxy!r}]",
        f"c.ConfigurableHTTPProxy.pid_file = {str(hub / 'proxy.pid')!r}",
        f"c.JupyterHub.pid_file = {str(hub / 'hub.pid')!r}",
        f"c.JupyterHub.db_url = {'sqlite:///' + str(hub / 'jupyterhub.sqlite')!r}",
        f"c.JupyterHub.cookie_secret_file = {str(hub / 'jupyterhub_cookie_secret')!r}",
        "# Login: one password for the students, a long one for the instructor (a workshop or a lab",
        "# room). For a class with accounts, use the institution's: see solutions/README.md.",
        "c.JupyterHub.authenticator_class = 'shared-password'",
        f"c.SharedPasswordAuthenticator.user_password = {passwords['students']!r}",
        f"c.SharedPasswordAuthenticator.admin_password = {passwords['instructor']!r}",
        f"c.Authenticator.admin_users = {{{instructor!r}}}",
        f"c.Authenticator.allowed_users = {set(students)!r}",
        "# Every server runs as this account, in a home of its own: no unix users, and no isolation.",
        "c.JupyterHub.spawner_class = 'bpe_ref.course.classroom_spawner.CourseSpawner'",
        f"c.CourseSpawner.home_dir_template = {str(home) + '/{username}'!r}",
        f"c.CourseSpawner.course_dir = {str(course)!r}",
        f"c.CourseSpawner.instructor = {instructor!r}",
        "# jupyterhub-singleuser, started by the course's launcher (bpe_ref/course/nbgrader_main.py: about 3 s of CPU less)",
        f"c.Spawner.cmd = {[sys.executable, '-m', LAUNCHER, 'jupyterhub-singleuser']!r}",
        f"c.Spawner.args = {args!r}",
        "c.Spawner.default_url = '/lab'",
        f"c.Spawner.environment = {environment!r}",
        "c.Spawner.start_timeout = 300",
        "c.Spawner.http_timeout = 300",
        "# The classroom command's own token: it starts servers and asks the hub for users' tokens.",
        f"c.JupyterHub.services = [{{'name': 'classroom', 'api_token': {service_token!r}}}]",
        "c.JupyterHub.load_roles = [{'name': 'classroom', 'services': ['classroom'],",
        "                            'scopes': ['admin:users', 'admin:servers', 'tokens', 'access:servers']}]",
    ]
    path = state / "jupyterhub_config.py"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


# Talking to the hub and to users' servers over HTTP

def http(method: str, url: str, token: str, body: Any = None, timeout: float = 60) -> Any:
    """One request with a JupyterHub token; the decoded JSON answer (or text). Raises on HTTP errors."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Authorization": f"token {token}",
                                                                              "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        raise ConnectionError(f"{method} {url}: HTTP {err.code}: {err.read().decode('utf-8', 'replace')[:500]}") from None
    try:
        return json.loads(text) if text else None
    except json.JSONDecodeError:
        return text


class Hub:
    """A running hub: its URL, the classroom's service token, and each user's token."""

    def __init__(self, url: str, service_token: str):
        self.url, self.service_token = url.rstrip("/"), service_token
        self.user_tokens: dict[str, str] = {}

    def api(self, method: str, path: str, body: Any = None, timeout: float = 60) -> Any:
        return http(method, f"{self.url}/hub/api{path}", self.service_token, body, timeout)

    def wait_until_up(self, timeout: float, alive: Callable[[], bool]) -> str:
        """Wait until the hub answers through its proxy; its version."""
        deadline = time.monotonic() + timeout
        while True:
            if not alive():
                raise ConnectionError("JupyterHub exited while starting: see the hub's log")
            with contextlib.suppress(OSError, ConnectionError):
                return self.api("GET", "/", timeout=5)["version"]
            if time.monotonic() > deadline:
                raise ConnectionError(f"JupyterHub did not answer at {self.url} within {timeout:.0f} s")
            time.sleep(0.5)

    def token_for(self, user: str) -> str:
        if user not in self.user_tokens:
            answer = self.api("POST", f"/users/{user}/tokens", {"note": "bpe_ref classroom", "expires_in": 24 * 3600})
            self.user_tokens[user] = answer["token"]
        return self.user_tokens[user]

    def start_servers(self, users: list[str], timeout: float) -> None:
        """Ask the hub to start every user's server, then wait until all are ready."""
        for user in users:
            self.api("POST", f"/users/{user}/server")
        deadline = time.monotonic() + timeout
        waiting = list(users)
        while waiting:
            waiting = [u for u in waiting if not self.api("GET", f"/users/{u}").get("servers", {}).get("", {}).get("ready")]
            if waiting and time.monotonic() > deadline:
                raise ConnectionError(f"the servers of {', '.join(waiting)} were not ready within {timeout:.0f} s")
            if waiting:
                time.sleep(0.5)

    def server(self, user: str, method: str, path: str, body: Any = None, timeout: float = 120) -> Any:
        """A request to ``user``'s own server, through the hub's proxy, with ``user``'s token."""
        return http(method, f"{self.url}/user/{user}/{path.lstrip('/')}", self.token_for(user), body, timeout)


# Starting and stopping: the hub is a process group of its own; the proxy and every user's server
# are too (JupyterHub starts them in new sessions), so each is stopped as a whole.

def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:  # no /proc: ask the kernel (another user's process is alive too)
        try:
            with contextlib.suppress(PermissionError):
                os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def _stop_group(pid: int, wait: float) -> str:
    """SIGTERM ``pid``'s process group (it leads one), SIGKILL what is left after ``wait`` s."""
    if not _alive(pid):
        return "had already exited"
    try:
        group = os.getpgid(pid)
    except ProcessLookupError:
        return "had already exited"
    kill: Callable[[int, int], None] = os.killpg if group == pid else os.kill
    with contextlib.suppress(ProcessLookupError):
        kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while _alive(pid) and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaps it when it is our child (demo)
        time.sleep(0.1)
    if _alive(pid) or (group == pid and _group_alive(pid)):
        with contextlib.suppress(ProcessLookupError):
            kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        return "stopped (killed)"
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)  # it exited; reap it when it is our child (demo), so its CPU time is counted
    return "stopped"


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return any(_pgid(int(p.name)) == group and _alive(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit())


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def recorded_processes(state: Path) -> dict[str, int]:
    """What ``up`` started and the hub started since, by pid: the hub, the proxy, users' servers."""
    record = json.loads((state / RECORD).read_text(encoding="utf-8"))
    processes = {"hub": int(record["hub_pid"])}
    proxy_pid = state / "hub" / "proxy.pid"
    if proxy_pid.exists() and proxy_pid.read_text().strip().isdigit():
        processes["proxy"] = int(proxy_pid.read_text().strip())
    database = state / "hub" / "jupyterhub.sqlite"
    if database.exists():
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)) as db:
            with contextlib.suppress(sqlite3.Error):
                rows = db.execute("SELECT users.name, spawners.state FROM spawners JOIN users ON users.id = spawners.user_id")
                for name, saved in rows:
                    pid = json.loads(saved or "{}").get("pid") if saved else None
                    if pid:
                        processes[f"server of {name}"] = int(pid)
    return processes


def stop_classroom(state: Path, log: Callable[[str], None] = print) -> int:
    """Stop what ``up`` (or ``demo``) started in ``state``; the number of processes stopped."""
    if not (state / RECORD).exists():
        raise FileNotFoundError(f"no classroom runs from {state} (no {RECORD} there)")
    processes = recorded_processes(state)
    expected = {"hub": "jupyterhub", "proxy": "configurable-http-proxy"}
    stopped = 0
    running = {name for name, pid in processes.items() if _alive(pid)}
    # The hub first: it stops the users' servers and its proxy itself; then whatever is left.
    for name, pid in processes.items():
        if not _alive(pid):
            if name in running:
                log(f"  {name} (pid {pid}): stopped by the hub")
                stopped += 1
            continue
        needle = expected.get(name, "jupyterhub-singleuser")
        if needle not in command_line(pid):
            log(f"  {name}: pid {pid} is no longer {needle}; left alone")
            continue
        outcome = _stop_group(pid, wait=20 if name == "hub" else 10)
        stopped += 1
        log(f"  {name} (pid {pid}): {outcome}")
    (state / RECORD).unlink()
    return stopped


def start_hub(state: Path, config: Path, port: int, service_token: str, instructor: str, students: list[str],
              course: Path) -> tuple[Hub, str]:
    """Start JupyterHub in a session of its own, record it (with who it serves), wait until it answers."""
    log = (state / "hub" / "jupyterhub.log").open("ab")
    process = subprocess.Popen([sys.executable, "-m", LAUNCHER, "jupyterhub", "-f", str(config)], cwd=state / "hub",
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                               env=nbgrader_environment(), start_new_session=True)
    log.close()
    record = {"hub_pid": process.pid, "url": f"http://127.0.0.1:{port}", "service_token": service_token,
              "instructor": instructor, "students": students, "course": str(course)}
    (state / RECORD).write_text(json.dumps(record, indent=1), encoding="utf-8")
    (state / RECORD).chmod(0o600)
    hub = Hub(record["url"], service_token)
    return hub, hub.wait_until_up(300, alive=lambda: process.poll() is None)


def prepare_state(state: Path, fresh: bool) -> Path:
    state = state.expanduser().resolve()
    if (state / RECORD).exists():
        raise ValueError(f"a classroom already runs from {state}: stop it with `python -m bpe_ref classroom down --state {state}`")
    if fresh and state.exists():
        shutil.rmtree(state)
    state.mkdir(parents=True, exist_ok=True)
    return state


# up / down

def run_up(args: argparse.Namespace) -> int:
    students = parse_students(args.students)
    if args.instructor in students:
        raise ValueError(f"{args.instructor!r} is the instructor: it cannot be a student too")
    course = args.course.expanduser().resolve()
    if not (course / "nbgrader_config.py").is_file():
        raise FileNotFoundError(f"{course} is not a course folder (no nbgrader_config.py)")
    state = prepare_state(args.state, fresh=False)
    credentials = state / "credentials.txt"
    if credentials.exists():  # the same passwords across up/down, so the class keeps them
        passwords = json.loads(credentials.read_text(encoding="utf-8"))
    else:
        passwords = {"students": secrets.token_urlsafe(9), "instructor": secrets.token_urlsafe(33)}
        credentials.write_text(json.dumps(passwords), encoding="utf-8")
        credentials.chmod(0o600)
    token = secrets.token_hex(32)
    config = write_hub_config(state, course, args.instructor, students, args.port, proxy_command(), token, passwords)
    print(f"Starting JupyterHub for {len(students)} students in {state} ...", flush=True)
    try:
        hub, version = start_hub(state, config, args.port, token, args.instructor, students, course)
    except BaseException:
        stop_classroom(state, log=lambda _: None)
        raise
    print(f"JupyterHub {version} is up: {hub.url}/")
    print(f"  instructor: {args.instructor}, password {passwords['instructor']} (formgrader: Nbgrader menu; course {course})")
    print(f"  students:   {', '.join(students)}, shared password {passwords['students']} (Nbgrader > Assignment List)")
    print(f"  nbgrader exchange: {state / 'exchange'}, course id {COURSE_ID}; homes: {state / 'home'}")
    print(f"  passwords are kept in {credentials}; the hub's log: {state / 'hub' / 'jupyterhub.log'}")
    print(f"Stop it with: python -m bpe_ref classroom down --state {args.state}")
    return 0


def run_down(args: argparse.Namespace) -> int:
    state = args.state.expanduser().resolve()
    print(f"Stopping the classroom of {state}:")
    count = stop_classroom(state)
    print(f"Stopped {count} processes, each with its process group.")
    return 0


# demo: one lab's round through the hub

def copy_course(target: Path, lab: str) -> Path:
    """A course folder for the demo: the course's nbgrader configuration and the lab's source."""
    if not source_notebook(lab).exists():
        raise ValueError(f"no lab {lab!r} (solutions/{lab}/{lab}.ipynb is missing)")
    target.mkdir(parents=True)
    shutil.copy2(REPO_ROOT / "nbgrader_config.py", target / "nbgrader_config.py")
    shutil.copytree(REPO_ROOT / "solutions" / lab, target / "solutions" / lab,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "*.py[cod]"))
    return target


def written_work(release: dict[str, Any], lab: str, kind: str) -> dict[str, Any]:
    """The fetched release with solution cells filled: all (``solution``), the first half, or none."""
    answers = {cell["id"]: cell["source"] for cell in read_notebook_json(source_notebook(lab))["cells"]}
    cells = [cell for cell in release["cells"] if nbgrader_of(cell).get("solution")]
    fill = {"solution": len(cells), "half": len(cells) // 2, "blank": 0}[kind]
    for cell in cells[:fill]:  # read_notebook_json joined each source into one string
        cell["source"] = "\n".join(line for line in answers[cell["id"]].splitlines() if "### BEGIN SOLUTION" not in line
                                   and "### END SOLUTION" not in line)
    return release


def _checked(answer: Any, what: str) -> Any:
    """nbgrader's handlers answer ``{"success": false, "error"/"value": ...}`` on failure."""
    if isinstance(answer, dict) and answer.get("success") is False:
        detail = answer.get("error") or answer.get("value") or answer.get("log") or answer
        raise RuntimeError(f"{what} failed: {str(detail)[-1500:]}")
    return answer


def demo_round(hub: Hub, instructor: str, students: list[str], lab: str, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Release, fetch, write, submit, collect, autograde, feedback: all over HTTP. One row per student."""
    grader = f"formgrader/api/assignment/{lab}"
    course = {"assignment_id": lab, "course_id": COURSE_ID}

    def step(text: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        say(f"  {text} ({time.monotonic() - started:.1f} s)")

    for _ in step(f"instructor: generate and release {lab} (formgrader API)"):
        _checked(hub.server(instructor, "POST", f"{grader}/assign", {}), "generate_assignment")
        _checked(hub.server(instructor, "POST", f"{grader}/release", {}), "release_assignment")
    kinds = {student: WORK_KINDS[i % len(WORK_KINDS)] for i, student in enumerate(students)}
    notebook = f"api/contents/{lab}/{lab}.ipynb"
    for _ in step("students: fetch, write (Contents API), submit (assignment list API)"):
        for student in students:
            listed = _checked(hub.server(student, "POST", "assignments/fetch", course), f"{student}'s fetch")
            if not any(a["assignment_id"] == lab and a["status"] == "fetched" for a in listed["value"]):
                raise RuntimeError(f"{student} fetched, but {lab} is not listed as fetched: {listed}")
            release = hub.server(student, "GET", notebook)["content"]
            hub.server(student, "PUT", notebook, {"type": "notebook", "format": "json",
                                                  "content": written_work(release, lab, kinds[student])})
            _checked(hub.server(student, "POST", "assignments/submit", course), f"{student}'s submit")
    for _ in step("instructor: collect"):
        _checked(hub.server(instructor, "POST", f"{grader}/collect", {}), "collect")
    seconds = {}
    for student in students:
        for _ in step(f"instructor: autograde {student} (trusted grader)"):
            started = time.monotonic()
            _checked(hub.server(instructor, "POST", f"formgrader/api/submission/{lab}/{student}/autograde", {}, timeout=900),
                     f"autograde of {student}")
            seconds[student] = time.monotonic() - started
    for _ in step("instructor: generate and release feedback"):
        _checked(hub.server(instructor, "POST", f"{grader}/generate_feedback", {}, timeout=300), "generate_feedback")
        _checked(hub.server(instructor, "POST", f"{grader}/release_feedback", {}), "release_feedback")
    submissions = {s["student"]: s for s in hub.server(instructor, "GET", f"formgrader/api/submissions/{lab}")}
    rows = []
    for _ in step("students: fetch feedback"):
        for student in students:
            _checked(hub.server(student, "POST", "assignments/fetch_feedback", course), f"{student}'s fetch_feedback")
            folders = hub.server(student, "GET", f"api/contents/{lab}/feedback")["content"]
            html = [f["path"] for folder in folders
                    for f in hub.server(student, "GET", f"api/contents/{urllib.parse.quote(folder['path'])}")["content"]
                    if f["name"] == f"{lab}.html"]
            entry = submissions.get(student, {})
            rows.append({"student": student, "work": kinds[student], "score": entry.get("score"),
                         "max_score": entry.get("max_score"), "autograded": entry.get("autograded"),
                         "feedback": html[0] if html else None, "seconds": seconds[student]})
    return rows


def _points(value: Any) -> str:
    return "-" if value is None else f"{value:g}"


def run_demo(args: argparse.Namespace) -> int:
    if not 1 <= args.students <= 20:
        raise ValueError("--students must be between 1 and 20")
    started = time.monotonic()
    state = prepare_state(args.state, fresh=True)
    students = [f"student{i + 1}" for i in range(args.students)]
    instructor = "instructor"
    course = copy_course(state / "course", args.lab)
    port, token = args.port or free_port(), secrets.token_hex(32)
    passwords = {"students": secrets.token_urlsafe(9), "instructor": secrets.token_urlsafe(33)}
    config = write_hub_config(state, course, instructor, students, port, proxy_command(), token, passwords)
    print(f"Classroom demo in {state}: lab {args.lab}, {args.students} students", flush=True)
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        hub, version = start_hub(state, config, port, token, instructor, students, course)
        print(f"  JupyterHub {version} up at {hub.url}/ ({time.monotonic() - started:.1f} s)", flush=True)
        t0 = time.monotonic()
        hub.start_servers([instructor, *students], timeout=300)
        print(f"  {len(students) + 1} single-user servers started through the hub API ({time.monotonic() - t0:.1f} s)", flush=True)
        rows = demo_round(hub, instructor, students, args.lab, say=lambda text: print(text, flush=True))
    finally:
        print("Stopping every process the demo started:", flush=True)
        stop_classroom(state)
        signal.signal(signal.SIGTERM, previous)
    print()
    print(f"JupyterHub {version}, nbgrader exchange course {COURSE_ID}, lab {args.lab}")
    width = max(len(r["student"]) for r in rows)
    for row in rows:
        feedback = "feedback fetched" if row["feedback"] else "NO FEEDBACK"
        print(f"{row['student']:<{width}}  {_points(row['score']):>5} / {_points(row['max_score']):<4} "
              f" ({row['work']} work; autograded in {row['seconds']:.0f} s; {feedback})")
    # Every process the demo started was waited for (the hub waits for its proxy and servers, they
    # for their kernels and graders), so their CPU time is all in RUSAGE_CHILDREN: what the round
    # costs whatever else the machine is doing.
    cpu = sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for field in ("ru_utime", "ru_stime"))
    print(f"Wall time: {time.monotonic() - started:.0f} s; CPU time of every process it started: {cpu:.0f} s")
    ok = all(row["autograded"] and row["feedback"] for row in rows)
    return 0 if ok else 1


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


# The command line

def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    up = actions.add_parser("up", help="start JupyterHub on 127.0.0.1 for an instructor and students")
    up.add_argument("--students", required=True, help="comma-separated student names, e.g. ada,bob,cy")
    up.add_argument("--instructor", default="instructor", help="the instructor's user name (default: instructor)")
    up.add_argument("--port", type=int, default=8000, help="the hub's port on 127.0.0.1 (default: 8000)")
    up.add_argument("--course", type=Path, default=REPO_ROOT, help="the course folder (default: this repository)")
    up.add_argument("--state", type=Path, default=DEFAULT_STATE,
                    help="the classroom's folder: config, pids, homes, exchange (default: ./classroom)")
    up.set_defaults(_action=run_up)
    down = actions.add_parser("down", help="stop what `classroom up` started")
    down.add_argument("--state", type=Path, default=DEFAULT_STATE, help="the classroom's folder (default: ./classroom)")
    down.set_defaults(_action=run_down)
    demo = actions.add_parser("demo", help="start a hub, run one lab's round through it, print the grades, stop it")
    demo.add_argument("--students", type=int, default=3, help="how many students (default: 3)")
    demo.add_argument("--lab", default=DEFAULT_LAB, help=f"the lab (default: {DEFAULT_LAB})")
    demo.add_argument("--port", type=int, default=0, help="the hub's port (default: a free one)")
    demo.add_argument("--state", type=Path, default=DEFAULT_DEMO_STATE,
                      help="the demo's folder, emptied first (default: ./classroom-demo)")
    demo.set_defaults(_action=run_demo)


def run(args: argparse.Namespace) -> int:
    return args._action(args)
