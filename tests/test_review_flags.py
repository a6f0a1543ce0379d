"""Review flags from behaviour (issue 21, item 7): what the sandbox refused is counted from outside.

The worker's seccomp filter sends every call it refuses to the keeper (seccomp user notification),
which runs none of the learner's code, counts the call by name and answers it with the filter's
error; and every open, whose path the keeper reads and counts if Landlock will refuse it, letting
the call go on. These tests play a submission that makes refused calls or opens refused files, one
that tries to get hold of the notification fd (to answer its own calls, or to hide them), and honest
work, through the sandbox, ``python -m bpe_ref grade`` and ``nbgrader autograde`` with ``grade --class``.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time

import pytest

from bpe_ref.course.notebooks import REPO_ROOT
from bpe_ref.course.trusted.worker import confinement, keeper
from bpe_ref.course.trusted.sandbox import Policy, Sandbox

from test_grading_adversarial import complete, with_cell_after_setup

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux only")]


def counting(box: Sandbox) -> bool:
    return any("refused calls counted by the keeper" in line for line in box.isolation)


@pytest.fixture
def box():
    with Sandbox(Policy(cell_timeout=20)) as sandbox:
        if not counting(sandbox):
            pytest.skip(f"refused calls are not counted here ({'; '.join(sandbox.isolation)})")
        yield sandbox


REFUSED_CALLS = '''
import ctypes, errno, os, socket
seen = {}
for family in (socket.AF_INET, socket.AF_INET6, socket.AF_INET):
    try:
        socket.socket(family, socket.SOCK_DGRAM)
    except OSError as error:
        seen.setdefault("socket", errno.errorcode[error.errno])
try:
    os.fork()
except OSError as error:
    seen["fork"] = errno.errorcode[error.errno]
libc = ctypes.CDLL(None, use_errno=True)
# a seccomp filter of its own, which would answer the refused calls before the keeper sees them
if libc.prctl(22, 2, 0, 0, 0) != 0:
    seen["prctl"] = errno.errorcode[ctypes.get_errno()]
import threading
thread = threading.Thread(target=seen.setdefault, args=("thread", "ran"))
thread.start()
thread.join()
a, b = socket.socketpair()  # AF_UNIX: allowed
print(sorted(seen.items()))
'''


def test_refused_calls_are_counted_by_name_and_answered_with_the_filters_error(box):
    run = box.run_cell(REFUSED_CALLS, "refused")
    assert run.ok, run
    # the same errors as the filter answers by itself: EACCES for a socket, EPERM for a process
    assert run.stdout.strip() == "[('fork', 'EPERM'), ('prctl', 'EPERM'), ('socket', 'EACCES'), ('thread', 'ran')]", run
    box.close()
    refused = box.behaviour()["refused"]
    # threads (clone3, then clone with CLONE_THREAD) and unix sockets are not refused, so not counted
    assert refused == {"socket(AF_INET)": 2, "socket(AF_INET6)": 1, "clone": 1, "prctl(PR_SET_SECCOMP)": 1}, refused


@pytest.mark.skipif(platform.machine() != "x86_64", reason="i386 system calls are an x86_64 matter")
def test_a_call_of_another_architecture_is_counted_too(box):
    from test_grading_redteam import I386_SYSCALLS

    run = box.run_cell(I386_SYSCALLS, "i386")
    assert run.ok, run
    box.close()
    refused = box.behaviour()["refused"]
    assert refused.get("a system call of another architecture (#2)") == 1, refused  # fork, i386 number 2
    assert refused.get("a system call of another architecture (#359)") == 1, refused  # socket


# What a learner tries with the notification fd: find it among its own fds (where it could read the
# notifications and answer its own calls "continue"), or take it from the keeper with pidfd_getfd.
STEAL_THE_LISTENER = '''
import ctypes, errno, os, socket
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NOTIF_ID_VALID = (1 << 30) | (8 << 16) | (ord("!") << 8) | 2   # SECCOMP_IOCTL_NOTIF_ID_VALID
found, fds = [], []
for fd in range(4096):
    try:
        os.fstat(fd)
    except OSError:
        continue
    fds.append(fd)
    some_id = ctypes.c_uint64(1)
    if libc.ioctl(fd, ctypes.c_ulong(NOTIF_ID_VALID), ctypes.byref(some_id)) == 0 or ctypes.get_errno() == errno.ENOENT:
        found.append(fd)   # only a seccomp listener answers this ioctl
stolen = []
try:
    keeper = os.pidfd_open(os.getppid())
    for target in range(64):
        got = libc.syscall(438, keeper, target, 0)  # pidfd_getfd
        if got >= 0:
            stolen.append(target)
except OSError as error:
    stolen.append(errno.errorcode[error.errno])
try:
    socket.socket(socket.AF_INET)
    after = "a network socket"
except OSError as error:
    after = errno.errorcode[error.errno]
print(found, stolen, after, fds)
'''


def test_the_learner_cannot_get_the_listener_to_answer_its_own_calls(box):
    """The worker hands the notification fd to the keeper and closes its copy before the learner's
    code runs: no fd of the worker's is a seccomp listener, the keeper's cannot be taken (Landlock
    scopes ptrace, which pidfd_getfd needs), and a refused call is still refused and counted."""
    run = box.run_cell(STEAL_THE_LISTENER, "steal")
    assert run.ok, run
    found, stolen, after = run.stdout.split(" ", 3)[:3]
    assert found == "[]", f"the worker holds the seccomp listener: fd {found} ({run.stdout})"
    assert stolen == "[]", f"the keeper's fds could be taken: {stolen}"
    assert after == "EACCES", run.stdout
    box.close()
    assert box.behaviour()["refused"] == {"socket(AF_INET)": 1}


def test_a_learner_looping_on_a_refused_call_costs_one_answer_per_call_and_a_bounded_report(box):
    """Every refused call is answered (one round trip to the keeper, within the notebook's time
    budget); the report names at most ``MAX_REFUSAL_NAMES`` calls, the rest counted together."""
    start = time.monotonic()
    run = box.run_cell("import socket\nfor family in range(3, 40):\n    for _ in range(300):\n        try:\n"
                       "            socket.socket(family)\n        except OSError:\n            pass\nprint('all refused')\n", "loop")
    assert run.ok and run.stdout == "all refused\n", run
    assert time.monotonic() - start < 20
    box.close()
    refused = box.behaviour()["refused"]
    assert len(refused) == keeper.MAX_REFUSAL_NAMES + 1, refused  # and "other refused calls"
    assert sum(refused.values()) == 37 * 300 and refused["other refused calls"] > 0, refused


# What the learner opens: the reference's source, a file of the system's, one outside its folder to
# write; its own folder and a file that does not exist are not flagged (Landlock refuses neither).
OPENS = '''
import errno, os
for path, mode in (({reference!r}, "r"), ("/etc/hostname", "r"), ("/tmp/owned_by_a_learner.txt", "w"),
                   ("mine.txt", "w"), ("mine.txt", "r"), ("/no/such/file", "r")):
    try:
        open(path, mode).close()
        print("opened", path)
    except OSError as error:
        print(errno.errorcode[error.errno], path)
import collections, heapq, json, regex  # imports open files the sandbox allows
os.cpu_count()  # the C library probes /sys and /proc: not flagged
'''


IO_URING = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
fd = libc.syscall(425, 8, params)  # io_uring_setup: a ring would run socket() and openat() unseen
print(fd, errno.errorcode.get(ctypes.get_errno()))
"""


def test_io_uring_is_refused_and_counted(box):
    # A ring runs socket() and openat() as queued operations that no seccomp rule sees: with it, a
    # UDP socket left the sandbox (red team, 2026-11-29). Refused whole, and counted.
    run = box.run_cell(IO_URING, "uring")
    assert run.ok, run
    assert run.stdout.split() == ["-1", "EPERM"], run
    box.close()
    assert box.behaviour()["refused"] == {"io_uring_setup": 1}, box.behaviour()


def test_a_lab_without_processes_makes_no_unix_socket_but_keeps_socketpair(box, tmp_path):
    # Landlock (ABI 7) does not stop connect() to a unix socket file outside the sandbox (red team,
    # 2026-11-29, to a listener in /tmp): socket() is refused whole; socketpair() is another call.
    cell = ("import errno, socket\n"
            "try:\n    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n    print('made')\n"
            "except OSError as error:\n    print(errno.errorcode[error.errno])\n"
            "a, b = socket.socketpair()\na.send(b'ok')\nprint(b.recv(2).decode())\n")
    run = box.run_cell(cell, "unix")
    assert run.ok, run
    assert run.stdout.split() == ["EACCES", "ok"], run
    box.close()
    assert box.behaviour()["refused"] == {"socket(AF_UNIX)": 1}, box.behaviour()



CONNECTS = '''
import errno, os, socket
def attempt(what, make):
    try:
        make()
        print(what, "made")
    except OSError as error:
        print(what, errno.errorcode.get(error.errno, error.errno))
def connect(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(path)
        sock.send(b"escaped")
def linked():
    if not os.path.lexists("outside.sock"):
        os.symlink({path!r}, "outside.sock")
    connect("outside.sock")
def datagram():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendto(b"escaped", {path!r})
attempt("path", lambda: connect({path!r}))
attempt("link", linked)
attempt("datagram", datagram)
'''


# Where no listener is: the batch's probe (refused all the same, by its path; test_review_flags' runs serve one there).
NOWHERE = "/tmp/bpe_ref_outside_none/served.sock"


def probes_unix_sockets() -> dict:
    """Lab 03's complete solution with the probe of a unix socket outside the sandbox (at :data:`NOWHERE`): full marks,
    flagged. It stands for lab 03's honest work in its batch of tests/test_grading_adversarial.py (one grading of the
    solution for both: test_a_unix_socket_probe_is_flagged_and_costs_lab_03_nothing)."""
    return with_cell_after_setup(complete("03_parallel"), "probe", CONNECTS.format(path=NOWHERE))


@pytest.mark.parametrize("lab, points, refused", [
    # lab 03 allows processes, whose workers need unix sockets: the keeper makes each connect() itself, only
    # to a socket file beneath the scratch folder (multiprocessing's forkserver listens there); graded (None) in lab
    # 03's batch, where the probe stands for its honest work (probes_unix_sockets)
    ("03_parallel", None, lambda path, scratch: {f"connect(unix socket {path})": 1,
                                                 f"connect(unix socket {scratch}/outside.sock)": 1, "socketpair(SOCK_DGRAM)": 1}),
    # lab 10 allows none: no socket() at all, and socketpair() makes stream ends only
    ("10_distributed", 17, lambda path, scratch: {"socket(AF_UNIX)": 2, "socketpair(SOCK_DGRAM)": 1}),
])
def test_a_unix_socket_outside_the_sandbox_cannot_be_reached_and_is_flagged(lab, points, refused):
    """Landlock (ABI 7) does not stop connect() to a unix socket file outside the sandbox, nor a datagram
    sent to one by path (red team, 2026-11-29: a listener in /tmp). The test serves one outside;
    a submission that tries it, directly, through a link in its folder and from a datagram socketpair,
    reaches neither, is flagged, and keeps the full marks its functions earn (lab 03's in its batch)."""
    import socket
    import tempfile

    from bpe_ref.course.trusted.autograde import grade_cells
    from bpe_ref.course.trusted.sandbox import Policy

    folder = tempfile.mkdtemp(prefix="bpe_ref_outside_")
    path = os.path.join(folder, "served.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen()
    listener.setblocking(False)
    try:
        with Sandbox(Policy(allow_processes=lab == "03_parallel")) as box:
            if not counting(box):
                pytest.skip("refused calls are not counted here")
            run = box.run_cell(CONNECTS.format(path=path), "probe")
            scratch = str(box.scratch)
            box.close()
            report = box.behaviour()
        assert run.ok and run.stdout.split() == ["path", "EACCES", "link", "EACCES", "datagram", "EACCES"], run
        assert report["refused"] == refused(path, scratch), report["refused"]
        notebook = with_cell_after_setup(complete(lab), "probe", CONNECTS.format(path=path))
        record = grade_cells(notebook["cells"], lab, policy=Policy(cell_timeout=60, call_timeout=60)) if points else None
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody ever connected
    finally:
        listener.close()
        os.unlink(path)
        os.rmdir(folder)
    if record:
        assert record.earned == points, [verdict for verdict in record.verdicts if not verdict.passed]
        assert any(name.startswith("socket(AF_UNIX") for name in record.refused), record.refused


def test_a_flood_of_dev_shm_files_cannot_blank_the_report():
    # The keeper listed every /dev/shm file it removed; 400 long names made the report too long to
    # read, and the trusted side then saw an empty one: no flag at all (red team, 2026-11-29).
    cell = ("import os, socket\n"
            "for _ in range(2):\n"
            "    try:\n        socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "    except OSError:\n        pass\n"
            "for i in range(400):\n"
            "    with open(f'/dev/shm/bpe_flood_{i:03d}_' + 'x' * 220, 'w') as f:\n        f.write('x')\n")
    with Sandbox(Policy(allow_processes=True, cell_timeout=60)) as box:  # a lab with processes may use /dev/shm
        if not counting(box):
            pytest.skip("refused calls are not counted here")
        run = box.run_cell(cell, "flood")
        box.close()
        report = box.behaviour()
    leftover = [name for name in os.listdir("/dev/shm") if name.startswith("bpe_flood_")]
    for name in leftover:  # where the lab's policy did not let the worker write there, nothing to clean
        os.unlink(f"/dev/shm/{name}")
    assert "report_lost" not in report, report
    assert report["refused"] == {"socket(AF_INET)": 2}, report
    if run.ok:  # the files were made: the keeper removed them, and says so in a bounded report
        assert len(report["shm_removed"]) == 16 and report["shm_removed_more"] == 384, report


def test_a_lost_report_is_a_flag_itself():
    from bpe_ref.course.trusted.autograde import behaviour_lines

    lines = behaviour_lines({"report_lost": "its sandbox's report was missing or malformed"})
    assert lines == ["was not reported on: its sandbox's report was missing or malformed"]


# A function told as another's (lab 03's count_chunk of a cell told as its module's: tests/test_grading_redteam.py,
# section 42), and the same kinds of code written honestly: what the interpreter announces of the first (its audit
# events: a function's code replaced, a code object made, a function made of one) and what the worker sees of the
# function it calls (a __module__ not its globals', a __qualname__ not its code's) is flagged, the second is not.
TELLS_A_FUNCTION_AS_ANOTHER = """
import types


def count(x):
    return x


def other(x):
    return x + 1


count.__module__ = "chunk_counting"
count.__qualname__ = "count_chunk"
other.__code__ = count.__code__
made = types.FunctionType(count.__code__.replace(co_filename="chunk_counting.py"), {})
"""
WRAPS_AND_MAKES_CLASSES = """
import collections, dataclasses, functools


def timed(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(*args)
    return wrapper


@timed
def count(x):
    return sorted([x], key=lambda y: -y)[0]


@dataclasses.dataclass(order=True)
class Entry:
    count: int = 0


Pair = collections.namedtuple("Pair", "left right")
"""

# A decorator written by hand, as older tutorials write one: its wrapper takes the function's names (no functools.wraps,
# no __wrapped__), and was flagged as told as another.
COPIES_NAMES_BY_HAND = """
def timed(function):
    def wrapper(*args):
        return function(*args)
    wrapper.__name__, wrapper.__qualname__ = function.__name__, function.__qualname__
    wrapper.__module__, wrapper.__doc__ = function.__module__, function.__doc__
    return wrapper


@timed
def count(x):
    return x
"""


@pytest.mark.parametrize("code, flags", [
    (TELLS_A_FUNCTION_AS_ANOTHER, [
        "replaced a function's code, setting its __code__ (the worker's own report)",
        "gave count a __module__ other than its own module's, as if another module's (the worker's own report)",
        "gave count a __qualname__ other than its code's (the worker's own report)",
        "made a code object by hand, with code.replace or types.CodeType (the worker's own report)",
        "made a function of a code object, with types.FunctionType (the worker's own report)"]),
    (WRAPS_AND_MAKES_CLASSES, []), (COPIES_NAMES_BY_HAND, [])], ids=["told-as-another", "honest", "wrapper-by-hand"])
def test_a_function_told_as_another_is_flagged_from_what_the_worker_saw(code, flags):
    from bpe_ref.course.trusted.autograde import behaviour_lines
    from bpe_ref.course.trusted.sandbox import RemoteFunction

    with Sandbox(Policy(cell_timeout=20)) as box:
        run = box.run_cell(code, "cell")
        assert run.ok, run
        assert RemoteFunction(box, "count")(1) == 1
        box.close()
        report = box.behaviour()
    assert behaviour_lines({**report, "refused": {}, "refused_files": {}}) == flags, report


# The worker's codes, sent with each reply, are its word: code below a cell reaches the set they come from (a frame's
# locals) and fills it anew at each call, 16 codes a reply (names of any script too); the trusted side kept every code
# of every reply, a review line each, thousands over a lab's calls.
FLOODS_THE_NOTICED = """
import sys


def count(x):
    frame = sys._getframe(1)
    while frame is not None and not hasattr(frame.f_locals.get("self"), "noticed"):
        frame = frame.f_back
    noticed = frame.f_locals["self"].noticed
    noticed.clear()
    noticed.update(f"__module__ n{x}_{i}" for i in range(16))
    noticed.add("__qualname__ \u05d0\u05d1count")
    return x
"""


def test_a_flood_of_codes_from_the_worker_makes_a_few_review_lines():
    from bpe_ref.course.trusted.autograde import behaviour_lines, noticed_lines
    from bpe_ref.course.trusted.sandbox import RemoteFunction

    with Sandbox(Policy(cell_timeout=20)) as box:
        assert box.run_cell(FLOODS_THE_NOTICED, "cell").ok
        for x in range(20):
            assert RemoteFunction(box, "count")(x) == x
        box.close()
        report = box.behaviour()
    assert len(report["noticed"]) <= 16, report["noticed"]
    assert 0 < len(behaviour_lines({**report, "refused": {}, "refused_files": {}})) <= 16
    assert noticed_lines(["__qualname__ \u05d0\u05d1count", "__module__ count"]) == [
        "gave count a __module__ other than its own module's, as if another module's (the worker's own report)"]


def test_opens_landlock_refuses_are_counted_with_their_path(box):
    from bpe_ref.course.trusted.autograde import behaviour_lines

    if not any("and opens Landlock refuses" in line for line in box.isolation):
        pytest.skip(f"opens are not watched here ({'; '.join(box.isolation)})")
    reference = str(REPO_ROOT / "bpe_ref" / "tiebreak.py")
    run = box.run_cell(OPENS.format(reference=reference), "opens")
    assert run.ok, run
    assert run.stdout.splitlines() == [f"EACCES {reference}", "EACCES /etc/hostname", "EACCES /tmp/owned_by_a_learner.txt",
                                       "opened mine.txt", "opened mine.txt", "ENOENT /no/such/file"], run.stdout
    box.close()
    report = box.behaviour()
    assert report["refused_files"] == {f"read {reference}": 1, "read /etc/hostname": 1,
                                       "write /tmp/owned_by_a_learner.txt": 1}, report["refused_files"]
    assert report["refused"] == {}
    # Equal counts are listed by name, so where the checkout lives decides the order.
    listed = ", ".join(f"{name} x1" for name in sorted(report["refused_files"]))
    assert behaviour_lines(report) == [f"opened files the sandbox refused: {listed}"]


def test_another_process_s_proc_reached_through_its_own_is_counted(box):
    """The caller's own /proc entries are not counted (the interpreter lists /proc/self/fd), but only once the
    path is resolved: /proc/self/../1/status is another process's, refused by Landlock and counted."""
    cell = ("import errno, os, threading\nseen = []\n"
            "def attempt(path):\n    try:\n        open(path).close()\n        seen.append('opened')\n"
            "    except OSError as error:\n        seen.append(errno.errorcode[error.errno])\n"
            "attempt('/proc/self/../1/status')\nattempt('/proc/thread-self/../../../1/status')\n"
            "attempt('/proc/self/status')\nthread = threading.Thread(target=attempt, args=('/proc/self/status',))\n"
            "thread.start()\nthread.join()\nprint(seen)\n")
    run = box.run_cell(cell, "proc")
    assert run.ok and run.stdout == "['EACCES', 'EACCES', 'EACCES', 'EACCES']\n", run
    box.close()
    assert box.behaviour()["refused_files"] == {"read /proc/1/status": 2}, box.behaviour()

SPAWNS = '''
import multiprocessing, os
with multiprocessing.get_context("spawn").Pool(2) as pool:
    print(pool.map(abs, [-1, -2, -3]), os.cpu_count() > 0)
'''


def test_a_lab_that_starts_processes_is_not_flagged_for_what_the_interpreter_probes():
    """Lab 03's honest code spawns interpreters, which probe files Landlock refuses on their own
    (their pyvenv.cfg, libpython, their own /proc/self/fd, the locale aliases): not the learner's doing."""
    with Sandbox(Policy(allow_processes=True, cell_timeout=60)) as box:
        if not any("and opens Landlock refuses" in line for line in box.isolation):
            pytest.skip(f"opens are not watched here ({'; '.join(box.isolation)})")
        run = box.run_cell(SPAWNS, "spawns")
        assert run.ok and run.stdout == "[1, 2, 3] True\n", run
        box.close()
        report = box.behaviour()
    assert report["refused_files"] == {} and report["refused"] == {} and report["noticed"] == [], report
    assert report["notified"]["notified_opens"] > 50, report["notified"]  # the children's opens went by the keeper too


FALLBACK = '''
import errno, socket, sys
sys.path.insert(0, {folder!r})
import confinement
{change}
keeper, handoff = socket.socketpair()
if confinement._kernel_at_least(5, 6):  # the keeper takes the listener by pidfd_getfd and says so: this one says so only
    import threading
    threading.Thread(target=lambda: keeper.recv(64) and keeper.send(b"k"), daemon=True).start()
print(confinement.seccomp(False, handoff))
keeper.close()  # a keeper that died: the listener it was sent (or left untaken) is closed with it
try:
    socket.socket(socket.AF_INET)
except OSError as error:
    print(errno.errorcode[error.errno])
'''


@pytest.mark.parametrize("change, why", [
    ("", "refused calls counted by the keeper, and opens Landlock refuses"),
    ("confinement._SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 30  # a kernel without user notification",
     "refused calls not counted (no seccomp user notification: Invalid argument)"),
])
def test_without_user_notification_calls_are_still_refused_and_the_isolation_says_they_are_not_counted(change, why):
    """Where the kernel cannot notify, the filter answers refused calls itself (as before), and the
    isolation line that ``grade`` prints says they are not counted."""
    import textwrap

    if platform.machine() not in confinement._SECCOMP_ARCH:
        pytest.skip(f"no seccomp filter for {platform.machine()}")
    code = FALLBACK.format(folder=os.path.dirname(confinement.__file__), change=textwrap.dedent(change))
    # Nobody answers the notifications here: with user notification, the kernel answers a refused
    # call ENOSYS once the keeper's end (and the listener sent to it) is closed, as when a keeper dies.
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    isolation, error = result.stdout.splitlines()
    assert isolation.endswith(why), isolation
    assert error == ("ENOSYS" if not change else "EACCES"), result.stdout


# ---- both grading paths -------------------------------------------------------------------------

LAB = "00_pretokenization"
OPENS_A_SOCKET = ("import socket\ntry:\n    socket.socket(socket.AF_INET6, socket.SOCK_STREAM)\n"
                  "except OSError as error:\n    print('refused:', error)\n"
                  "try:\n    open('/etc/hostname').read()\nexcept OSError as error:\n    print('refused:', error)\n")
FLAGS = ["its code made system calls the sandbox refused: socket(AF_INET6) (network) x1",
         "its code opened files the sandbox refused: read /etc/hostname x1"]


def opens_a_socket() -> dict:
    """The complete solution, with a cell that tries a network socket and a file of the system's:
    full marks, flagged."""
    return with_cell_after_setup(complete(LAB), "probe", OPENS_A_SOCKET)


def honest_with_a_docstring() -> dict:
    """The complete solution, whose first solution cell says in a docstring what it is compared with."""
    notebook = complete(LAB)
    first = next(cell for cell in notebook["cells"] if cell["id"].endswith("_solution"))
    first["source"] = '"""Mine; the graders compare it with bpe_ref.pretokenize."""\n' + first["source"]
    return notebook


def tampers() -> dict:
    """The complete solution with its first test cell deleted, a read-only cell edited and the points of its last
    test cell raised tenfold in its nbgrader metadata: nbgrader puts all three right (full marks, no more), and the
    class report says what was done."""
    notebook = complete(LAB)
    meta = [cell.get("metadata", {}).get("nbgrader", {}) for cell in notebook["cells"]]
    tests = [i for i, m in enumerate(meta) if m.get("grade") and not m.get("solution")]
    test = tests[0]
    locked = next(i for i, m in enumerate(meta) if m.get("locked") and not m.get("grade") and i != test)
    notebook["cells"][locked]["source"] = "print('my own setup')\n"
    meta[tests[-1]]["points"] = 10 * meta[tests[-1]]["points"]
    del notebook["cells"][test]
    return notebook


# These three are graded where the same lab's solution is graded anyway, so that each is graded once
# per run: the class (refused call, tampering and honest work through nbgrader autograde and grade
# --class) in lab 00's batch of tests/test_grading_adversarial.py, whose honest work
# honest_with_a_docstring stands for; opens_a_socket through python -m bpe_ref grade in
# tests/test_grading_labs.py, whose lab-00 self-grade it is (its flags and full marks checked there).
