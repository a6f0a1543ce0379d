"""What a learner's code did, measured from outside its process: the kernel's counters, which the
code cannot write to.

A check of *how* a function works (it starts worker processes, it reads a file a buffer at a time)
must not rest on what the worker reports about itself. The trusted side reads, for the worker's
process (its pid) and for the processes it starts, what Linux keeps in ``/proc``:

- :func:`cpu_seconds`: user and system CPU time of a process, its threads included, and of its
  children that ended and were waited for;
- :func:`read_chars`: bytes the process read with ``read`` and its kin (``rchar``), files and pipes;
  :func:`tree_read_chars`, the same for every process under the worker's keeper;
- :class:`ProcessWatch`: the processes started below a process while a call runs, each with its
  command line (which says how it was started: ``spawn``, ``forkserver`` or ``fork``).

Elsewhere than on Linux these measurements are unavailable (``None``, :attr:`ProcessWatch.available`
false), and the checks that use them say so instead of passing or failing. Standard library and
:mod:`.worker.keeper`'s process table only.
"""

from __future__ import annotations

import gc
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .worker.keeper import _TCP_LISTEN, _descendants, _proc_table, _rchar_of, unix_sockets
from .worker.keeper import _stat_fields as _stat_bytes

PROC = "/proc"


def available() -> bool:
    """Whether this system has the ``/proc`` counters used here (Linux)."""
    return os.path.exists(f"{PROC}/self/stat") and os.path.exists(f"{PROC}/self/io")


def _stat_fields(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (:func:`.worker.keeper._stat_fields`), or ``None``."""
    try:
        return [field.decode("ascii", "replace") for field in _stat_bytes(pid)]
    except (OSError, IndexError):
        return None


def cpu_seconds(pid: int, children: bool = True, own: bool = True) -> float | None:
    """CPU seconds (user and system) of process ``pid`` so far, all its threads (not with ``own=False``); with
    ``children``, also of its children that ended and were waited for. ``None`` when it cannot be read."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    # After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14), in clock ticks.
    ticks = (int(fields[11]) + int(fields[12]) if own else 0) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def _threads(pid: int) -> tuple[list[int], bool]:
    """The children of process ``pid``, of any of its threads, zombies included (``/proc/PID/task/TID/children``), and
    whether one of its threads is running or ready to run (state ``R``: on a busy machine, waiting for a CPU)."""
    children, running = [], False
    try:
        tids = os.listdir(f"{PROC}/{pid}/task")
    except OSError:
        return children, running
    for tid in tids:
        try:
            with open(f"{PROC}/{pid}/task/{tid}/children", "rb") as file:
                children.extend(int(child) for child in file.read().split())
            running = running or _stat_bytes(f"{pid}/task/{tid}")[0] == b"R"
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile: its children went to another
    return children, running


def tree_cpu_seconds(keeper: int, ended: tuple[float, set[int]] | None = None, *,
                     keeper_own: bool = False) -> tuple[float, bool] | None:
    """CPU seconds (user and system) spent so far by every process under ``keeper`` (the worker's keeper, a child
    subreaper, whose own threads run none of the learner's code: left out, but with ``keeper_own``), and whether a thread
    of theirs or of the keeper (which answers their opens) is running or ready to run; ``None`` when the keeper cannot be
    read. The sandbox counts the keeper's own time (``keeper_own``): it answers each open, mmap and refused call of the
    learner's processes, some 0.1 ms of its CPU time for a few microseconds of theirs, so a loop of opens spent 9 times
    the worker's CPU time there, outside every limit and the notebook's budget (``tests/test_grading_redteam.py``,
    section 50).

    A process's CPU time is in its own ``/proc/PID/stat`` while it exists, live or a zombie, then in its reaper's
    children's time (``cutime``, ``cstime``; every orphan comes to the keeper). So: each descendant's own and reaped
    children's time, plus the keeper's reaped children's. Parents are read before their children: a child reaped
    between the two reads is missed by this look (less, never more: a call is never stopped early), and counted at the
    next. A process the kernel reaps unwaited for (``SIGCHLD`` ignored, ``SA_NOCLDWAIT``) leaves no such count; with
    ``ended`` (:meth:`.sandbox.Sandbox.ended_cpu`: the CPU seconds of every process that ended by ``exit_group``, and the
    pids of the latest, still exiting, left out here), the larger of this count and the ended processes' plus each live
    one's own time (both less than spent, never more; a process in neither is the threat model's open case)."""
    fields = _stat_fields(keeper)
    if fields is None:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    keeper_seconds = (int(fields[11]) + int(fields[12])) / tick if keeper_own else 0.0
    total = keeper_seconds + (int(fields[13]) + int(fields[14])) / tick  # and its reaped children's
    todo, running = _threads(keeper)
    seen: set[int] = set()
    own_total = (ended[0] if ended is not None else 0.0) + keeper_seconds
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        fields = _stat_fields(pid)  # gone meanwhile: its time is its reaper's now (or in ended)
        if fields is not None:  # after the name: state(0) ... utime(11) stime(12) cutime(13) cstime(14), in ticks
            own = (int(fields[11]) + int(fields[12])) / tick
            total += own + (int(fields[13]) + int(fields[14])) / tick
            own_total += own if fields[0] not in ("Z", "X") and ended is not None and pid not in ended[1] else 0.0
        children, busy = _threads(pid)
        todo.extend(children)
        running = running or busy
    return max(total, own_total), running


def _running_thread(pid: int, state: str | None) -> str | None:
    """``"PID/task/TID"`` of a thread of process ``pid`` still running where its main thread has ended (``state``, that of
    ``/proc/PID/stat``, is ``Z``) and others have not, else ``None``. The process's own ``/proc/PID`` is then its main
    thread's, which holds no memory and no fds: ``/proc/PID/fd`` listed nothing and its ``stat`` no resident page, while
    a thread left held memfds and memory past every limit (``tests/test_grading_redteam.py``, section 75)."""
    if state != "Z":
        return None
    try:
        tids = os.listdir(f"{PROC}/{pid}/task")
    except OSError:
        return None
    return next((f"{pid}/task/{tid}" for tid in tids if tid != str(pid)), None)


def tree_resident_bytes(keeper: int) -> int:
    """Bytes of memory resident in every process under ``keeper`` (the worker's keeper, whose own are left out), from
    ``rss`` of each ``/proc/PID/stat``, which an undumpable process does not hide. Pages a forked process shares with its
    parent count in both (more, never less); a process gone meanwhile counts nothing."""
    page = os.sysconf("SC_PAGE_SIZE")
    total, todo, seen = 0, _threads(keeper)[0], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        fields = _stat_fields(pid)  # after the name: ... vsize(20) rss(21), in pages
        thread = _running_thread(pid, fields[0] if fields else None)
        if thread is not None:  # its main thread ended, another runs: the memory is that thread's to show
            fields = _stat_fields(thread)  # type: ignore[arg-type]
        if fields is not None:
            total += int(fields[21]) * page
        todo.extend(_threads(pid)[0])
    return total


def held_unlinked_bytes(root: int, *, with_root: bool, mapped_most: int = 0, mapped_under: tuple[str, ...] = ()) -> int | None:
    """Bytes of storage in the files that the processes under ``root`` (and ``root`` itself, ``with_root``) hold open
    and that no folder links: a file unlinked once opened, ``O_TMPFILE``, a memfd (memory). No walk of the scratch
    folder sees them, and ``RLIMIT_AS`` counts a memfd only where mapped: 4 of 60 MiB each held past a folder's limit of
    64 MiB and a memory limit of 200 MiB (``tests/test_grading_redteam.py``, section 53). Each file once (by inode), its
    allocated blocks. With ``mapped_most``, also each such file that a process maps and none holds an fd of (a memfd or
    a file of a folder of ``mapped_under``, unlinked: a page of it mapped, its fd closed, held 16 memfds of 30 MiB past
    those limits, section 76): its size cannot be read from outside without privileges, so it counts ``mapped_most``
    bytes, the most it can hold (``RLIMIT_FSIZE``). ``None`` when a live process hides its open files (an undumpable
    one, to a grader not root)."""
    folders = _process_folders(root, with_root=with_root)
    if folders is None:
        return None
    total, counted = 0, set()
    for folder in folders:
        try:
            fds = os.listdir(f"{PROC}/{folder}/fd")
        except OSError:
            continue  # gone meanwhile (a process that hides its fds was refused above)
        for fd in fds:
            try:
                info = os.stat(f"{PROC}/{folder}/fd/{fd}")  # the file itself, linked or not
            except OSError:
                continue
            if (info.st_dev, info.st_ino) not in counted:
                counted.add((info.st_dev, info.st_ino))
                total += info.st_blocks * 512 if info.st_nlink == 0 else 0
    if mapped_most:
        total += mapped_most * len(_mapped_unlinked(folders, mapped_under) - counted)
    return total


def _mapped_unlinked(folders: list[str], under: tuple[str, ...]) -> set[tuple[int, int]]:
    """``(device, inode)`` of each unlinked file mapped by the processes of ``folders`` (``/proc`` folders, as
    :func:`_process_folders` gives them) that is a memfd or was in a folder of ``under``, from their ``maps``."""
    mapped = set()
    for folder in folders:
        try:
            with open(f"{PROC}/{folder}/maps", "rb") as maps:
                lines = maps.read().splitlines()
        except OSError:
            continue
        for line in lines:
            if not line.endswith(b" (deleted)"):
                continue
            fields = line.split(maxsplit=5)  # range, permissions, offset, device, inode, path
            if len(fields) < 6 or fields[4] == b"0":
                continue
            path = fields[5].decode("utf-8", "replace")
            if path.startswith("/memfd:") or any(path.startswith(folder.rstrip("/") + "/") for folder in under):
                major, _, minor = fields[3].partition(b":")
                mapped.add((os.makedev(int(major, 16), int(minor, 16)), int(fields[4])))
    return mapped


def _process_folders(root: int, *, with_root: bool) -> list[str] | None:
    """The ``/proc`` folder of each process under ``root`` (and ``root`` itself, ``with_root``): ``PID``, or that of a
    thread still running where its main thread ended (:func:`_running_thread`); ``None`` when a live process hides its
    open files (an undumpable one, to a grader not root)."""
    folders, seen, todo = [], set(), ([root] if with_root else _threads(root)[0])
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        fields = _stat_fields(pid)
        folder = _running_thread(pid, fields[0] if fields else None) or str(pid)  # its main thread ended: another's
        try:
            os.listdir(f"{PROC}/{folder}/fd")
        except PermissionError:
            return None
        except OSError:
            pass  # gone meanwhile, or a zombie: it holds nothing
        folders.append(folder)
        todo.extend(_threads(pid)[0])
    return folders


def held_fds(root: int, *, with_root: bool) -> list[str] | None:
    """The ``/proc/PID/fd/FD`` links of every file the processes under ``root`` (and ``root`` itself, ``with_root``) hold
    open, read from outside; ``None`` when a live process hides them (an undumpable one, to a grader not root)."""
    folders = _process_folders(root, with_root=with_root)
    if folders is None:
        return None
    links = []
    for folder in folders:
        try:
            links.extend(f"{PROC}/{folder}/fd/{fd}" for fd in os.listdir(f"{PROC}/{folder}/fd"))
        except OSError:
            continue  # gone meanwhile, or a zombie: it holds nothing
    return links


# A pipe held counts its capacity: 16 pages, the kernel's default (the worker cannot make one larger: fcntl F_SETPIPE_SZ is
# refused, confinement.py), whatever it holds now (its fill is not readable from outside without opening it).
PIPE_BYTES = 16 * os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 65536
def _default_send_buffer() -> int:
    try:
        with open(f"{PROC}/sys/net/core/wmem_default", encoding="ascii") as file:
            return int(file.read())
    except (OSError, ValueError):
        return 212992


def queued_bytes(root: int, *, with_root: bool, also: tuple[tuple[str, int, int], ...] = ()) -> tuple[int, int] | None:
    """Bytes of kernel memory queued in the unix sockets and pipes that the processes under ``root`` (and ``root`` itself,
    ``with_root``) hold, and how many sockets and pipes that is: neither ``RLIMIT_AS`` nor the resident memory of a
    process counts them (1,000 socketpairs filled held 222 MiB past a memory limit of 200 MiB,
    ``tests/test_grading_redteam.py``, section 53). ``also``: ``("socket" or "pipe", inode, the socket it was sent to)``
    of the files the keeper sent (:meth:`.worker.keeper._Sends.record`), which may be in flight, held by no process.

    Read from outside: each process's fds (``/proc/PID/fd``, by inode), the sockets' queues from the kernel's
    ``sock_diag`` (:func:`unix_sockets`), never a call on the worker's files. A socket counts what it sent that is still
    queued (its ``wmem_alloc``, each packet's overhead included: one byte sent at a time fills its buffer with 278
    bytes), its peer and the connections it has not accepted are looked at too (they hold what was sent to them); bytes
    queued to a socket whose sender is gone count as its full buffer (twice its send buffer: what a sender can queue), and
    so do every socket where the kernel gives no queue and each connection a listener has not accepted (the kernel shows
    none of its queue: 20 clients that filled theirs and closed left 4 MiB there). A pipe counts its capacity
    (:data:`PIPE_BYTES`), whatever it holds. ``None`` when a live process hides its fds (an undumpable one, to a grader not root)."""
    fds = held_fds(root, with_root=with_root)
    if fds is None:
        return None
    sockets, pipes = set(), set()
    sent_pipes: set[tuple[int, int]] = set()  # (pipe, the socket it was sent to)
    for kind, inode, receiver in also:
        if kind == "socket":
            sockets.add(inode)
        else:
            sent_pipes.add((inode, receiver))
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            sockets.add(int(target[8:-1]))
        elif target.startswith("pipe:["):
            pipes.add(int(target[6:-1]))
    if not sockets and not {pipe for pipe, _ in sent_pipes} - pipes:
        return len(pipes) * PIPE_BYTES, len(pipes)
    table = unix_sockets()
    if table is None:
        pipes |= {pipe for pipe, _ in sent_pipes}
        return (len(pipes) * PIPE_BYTES + len(sockets) * 2 * _default_send_buffer(), len(pipes) + len(sockets))
    # a pipe sent and held by no process: in flight while the socket it was sent to has bytes not read (a receiver freed,
    # or one that read all, has none in flight: the kernel's queue keeps a message's fds until it is read)
    for receiver in {receiver for _, receiver in sent_pipes} - table.keys():
        table.update(unix_sockets(receiver) or {})  # skipped by the dump (below)
    pipes |= {pipe for pipe, receiver in sent_pipes if receiver in table and table[receiver][3]}
    total = len(pipes) * PIPE_BYTES
    todo, counted = [(inode, True) for inode in sockets], set()
    while todo:  # each socket once, with its peer and pending connections
        inode, held = todo.pop()
        if inode in counted:
            continue
        if inode not in table and held:
            # A dump is read in parts, each resumed at a place in the kernel's table: a socket that moves up as others
            # close meanwhile (a classmate's grading) is skipped. Asked for by its inode alone, it is not. (A connection
            # not accepted is in no dump: its listener's count covers it, below.)
            table.update(unix_sockets(inode) or {})
        if inode not in table:
            continue  # not a unix socket (none other can be made), or freed meanwhile
        counted.add(inode)
        state, peer, pending, read, sent, buffer = table[inode]
        total += sent
        if state == _TCP_LISTEN:  # ``read``: the connections not accepted yet, which the kernel shows no queue of
            total += read * 2 * buffer  # (their sender may be gone): each counts full
        elif read and (not peer or peer not in table):
            total += 2 * buffer  # a sender gone: what it left here counts full
        todo.extend((connection, False) for connection in pending)
        if peer:
            todo.append((peer, True))
    return total, len(pipes) + len(counted)


def parent_of(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[1]) if fields is not None else None


def read_chars(pid: int | str) -> int | None:
    """Bytes process ``pid`` has read so far (``rchar`` of ``/proc/PID/io``: its threads', and its reaped
    children's), or ``None``; ``pid`` may be ``"PID/task/TID"``, one thread's own reads."""
    try:
        return _rchar_of(pid)
    except (OSError, ValueError, StopIteration):
        return None


def command_line(pid: int) -> str:
    """The command line of process ``pid``, its arguments joined by spaces ("" when gone)."""
    try:
        with open(f"{PROC}/{pid}/cmdline", "rb") as file:
            return file.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def argument_range(pid: int) -> tuple[int, int] | None:
    """Where the command line of process ``pid`` lies in its memory (``arg_start`` and ``arg_end``, fields 48 and 49 of
    ``/proc/PID/stat``): set by the kernel at its program's start (exec), kept by a fork, never moved by the process
    (``prctl(PR_SET_MM)`` is refused: confinement.py). ``(0, 0)`` where the process hides it (undumpable); ``None``
    when gone."""
    fields = _stat_fields(pid)
    try:
        return (int(fields[45]), int(fields[46])) if fields else None
    except (IndexError, ValueError):
        return None


def start_method_of(command: str, root_command: str, arguments: tuple[int, int] | None = None,
                    root_arguments: tuple[int, int] | None = None) -> str:
    """How a process below the worker was started, from its command line: ``"spawn"``,
    ``"forkserver"`` (the server and the workers it forks share its command line), ``"fork"`` (a
    copy of the worker, same command line), ``"resource_tracker"`` (a helper of spawn and
    forkserver, no worker) or ``"other"``. A command line is the process's own memory, which its code can rewrite
    in place: a forked worker that wrote a spawned one's there was taken for spawned (redteam section 80). So where
    the ranges of the command lines (:func:`argument_range`) are known, a process whose range is the worker's
    (``root_arguments``) is a copy of it, ``"fork"``, whatever its command line says, and one that hides it
    ``"other"``."""
    if arguments is not None and root_arguments is not None:
        if arguments == root_arguments:
            return "fork"
        if arguments == (0, 0):
            return "other"
    if "multiprocessing.resource_tracker" in command:
        return "resource_tracker"
    if "multiprocessing.spawn" in command or "spawn_main" in command:
        return "spawn"
    if "multiprocessing.forkserver" in command:
        return "forkserver"
    if command and command == root_command:
        return "fork"
    return "other"


class ProcessWatch:
    """The processes started below ``root`` (its children, theirs, ...) while the watch runs.

    A thread lists ``/proc`` every ``interval`` seconds and looks only at processes it has not seen
    (new pids), so a look costs little however many processes the machine runs. ``started`` maps each
    pid to its command line. A process that starts and ends between two looks is missed by the looks;
    ``forks`` (the keeper's count of the processes started, every fork, :meth:`.sandbox.Sandbox.processes_started`)
    counts it all the same, as ``"unseen"`` in :meth:`start_methods` (a pool for show that ends in a
    few ms; ``tests/test_trusted_sandbox.py``).
    """

    def __init__(self, root: int, interval: float = 0.005, forks: Callable[[], int | None] | None = None) -> None:
        self.root, self.interval, self.forks = root, interval, forks
        self.forked: int | None = None  # processes the keeper counted while the watch ran
        self.available = available()
        self.root_command = command_line(root)
        self.root_arguments = argument_range(root)
        self.started: dict[int, str] = {}
        self.arguments: dict[int, tuple[int, int] | None] = {}  # pid -> where its command line lies (argument_range)
        self._others: set[int] = set()  # pids seen that are not below root (never looked at again)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _below_root(self, pid: int) -> bool:
        for _ in range(64):  # a chain of parents, not a loop
            parent = parent_of(pid)
            if parent is None or parent <= 1:
                return False
            if parent == self.root or parent in self.started:
                return True
            pid = parent
        return False

    def look(self) -> None:
        """One look at ``/proc``: record the new processes below the root."""
        try:
            names = os.listdir(PROC)
        except OSError:
            return
        # A process started by fork and exec shows the parent's command line until its exec: read
        # again those seen while alive (spawn's workers live long after their exec).
        for pid in self.started:
            command = command_line(pid)
            if command:
                self.started[pid] = command
                self.arguments[pid] = argument_range(pid) or self.arguments.get(pid)
        for name in names:
            if not name.isdigit():
                continue
            pid = int(name)
            if pid == self.root or pid in self.started or pid in self._others:
                continue
            if self._below_root(pid):
                self.started[pid] = command_line(pid)
                self.arguments[pid] = argument_range(pid)
            else:
                self._others.add(pid)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.look()
            self._stop.wait(self.interval)

    def __enter__(self) -> ProcessWatch:
        self._forks_before = self.forks() if self.forks else None
        if self.available:
            self.look()  # what is there already (a pool from an earlier call) is not this call's
            self._others |= set(self.started)
            self.started.clear()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self.look()
        after = self.forks() if self._forks_before is not None else None
        self.forked = after - self._forks_before if after is not None else None

    def method_of(self, pid: int, command: str) -> str:
        """How process ``pid`` (of command line ``command``, as last read) was started (:func:`start_method_of`)."""
        return start_method_of(command, self.root_command, self.arguments.get(pid), self.root_arguments)

    def still_running(self) -> dict[str, int]:
        """How many of the processes started still run (not ended, nor a zombie), by start method; the fork server
        itself (a child of the root, which forkserver keeps for the next pools) is left out."""
        counts: Counter[str] = Counter()
        for pid, command in self.started.items():
            fields = _stat_fields(pid)
            if fields is None or fields[0] in ("Z", "X", "x") or not self._below_root(pid):
                continue
            method = self.method_of(pid, command)
            if not (method == "forkserver" and int(fields[1]) == self.root):
                counts[method] += 1
        return dict(counts)

    def fork_servers(self) -> int:
        """How many of the processes started are a fork server (started by forkserver, still a child of the root after
        the call: forkserver keeps it for the next pools; a pool's workers are its children)."""
        return sum(1 for pid, command in self.started.items() if self.method_of(pid, command) == "forkserver"
                   and (_stat_fields(pid) or [])[1:2] == [str(self.root)])

    def start_methods(self) -> dict[str, int]:
        """How many processes were started, by start method (see :func:`start_method_of`); ``"unseen"``: those
        the keeper counted and no look saw (ended between two)."""
        counts = Counter(self.method_of(pid, command) for pid, command in self.started.items())
        if self.forked is not None and self.forked > len(self.started):
            counts["unseen"] = self.forked - len(self.started)
        return dict(counts)


def _own_read_chars(pid: int) -> int | None:
    """Bytes the threads of process ``pid`` read themselves (``rchar`` of each ``/proc/PID/task/TID/io``,
    which leaves out its children's), or ``None``."""
    try:
        tids = os.listdir(f"{PROC}/{pid}/task")
    except OSError:
        return None
    counts = [read_chars(f"{pid}/task/{tid}") for tid in tids]  # type: ignore[arg-type]
    return sum(counts) if all(count is not None for count in counts) else None


def tree_read_chars(keeper: int) -> int | None:
    """Bytes read so far by every process under ``keeper`` (the worker's keeper, a child subreaper), or ``None``.

    The kernel adds a process's ``rchar`` (and what its own reaped children read) to its parent's when the
    parent reaps it, so each process's reads are in exactly one place: in itself while it exists, live or
    a zombie nobody waited for, then in whoever reaped it: a process under the keeper, or the keeper (every
    orphan comes to it). So: the sum over the keeper's descendants, zombies included, plus what the keeper
    reaped (its whole count less its own threads' reads of /proc). Descendants are read first: one reaped
    meanwhile is counted twice (more, never less); the keeper's own threads until their count holds still. ``None``
    too when a live descendant hides its count (an undumpable process's ``/proc/PID/io`` is closed to a grader that is
    not root): the caller must not take that for "not measurable here"."""
    children: dict[int, list[int]] = {}
    try:
        table = _proc_table()
    except OSError:
        return None
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0, list(children.get(keeper, []))
    while todo:
        pid = todo.pop()
        try:
            total += _rchar_of(pid)
        except PermissionError:  # alive and undumpable: to a grader that is not root, it hides what it read
            return None
        except (OSError, ValueError, StopIteration):
            pass  # gone meanwhile: its count is now its reaper's, read below
        todo.extend(children.get(pid, []))
    for _ in range(5):
        own = _own_read_chars(keeper)
        whole = read_chars(keeper)
        if own is None or whole is None:
            return None
        if own == _own_read_chars(keeper):  # the keeper read no /proc file between the two counts
            break
    return total + whole - own


def live_reads(keeper: int) -> dict[int, int | None]:
    """Each live process under ``keeper`` (zombies left out): the bytes it has read so far (``rchar``: its threads' and
    its reaped children's), ``None`` where it hides them (undumpable)."""
    return {pid: read_chars(pid) for pid in _descendants(keeper, _proc_table())}


@contextmanager
def reads_of(pid: int, keeper: int | None = None) -> Iterator[dict[str, int | None]]:
    """``{"bytes": ...}``: what process ``pid`` read while the block ran (``None`` when unavailable); with
    ``keeper``, what every process under that keeper read (:func:`tree_read_chars`): the worker, and each
    process it started, whether it ended, was waited for, or left the worker's care."""
    def count() -> int | None:
        return read_chars(pid) if keeper is None else tree_read_chars(keeper)

    # Measured in this very process (a notebook's advice, the tests' grading in process), a child of an earlier call
    # reaped meanwhile adds what it read to this process's count: a subprocess.Popen left in a cycle is reaped by its
    # __del__ when a collection frees it. So no automatic collection runs in the block (tests/test_trusted_sandbox.py
    # shows a child's 3 MB counted so without it).
    here = keeper is None and str(pid).split("/")[0] == str(os.getpid())
    collecting = gc.isenabled()
    measured: dict[str, int | None] = {"bytes": None}
    if here:
        gc.disable()
    try:
        before = count()
        try:
            yield measured
        finally:
            after = count()
            if before is not None and after is not None:
                measured["bytes"] = after - before
    finally:
        if here and collecting:
            gc.enable()
