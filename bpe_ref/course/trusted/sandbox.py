"""The trusted side's handle on a worker process: start it confined, send it cells and calls, keep time.

>>> with Sandbox() as box:                                   # doctest: +SKIP
...     box.run_cell("def double(x):\\n    return 2 * x", "solution").ok
...     RemoteFunction(box, "double").invoke((21,))
True
((21,), 42)

Only JSON crosses, in the tagged format of :mod:`.worker.wire`. The threat model is THREAT_MODEL.md's.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import hmac
import importlib.util
import itertools
import json
import os
import queue
import secrets
import shutil
import signal
import stat
import struct
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any

from .cpu_limit import outside_the_limit
from .measure_worker import cpu_seconds, held_unlinked_bytes, queued_bytes, tree_cpu_seconds, tree_resident_bytes
from .stand_ins import stand_in_source
from .verdicts import CpuLimitReached, GradingStopped, LearnerError, timed_out
from .worker.keeper import (_PR_SET_CHILD_SUBREAPER, ENDED_CPU_AT, EXIT_RING, IN_FLIGHT_AT, IN_FLIGHT_SLOTS, _proc_table,
                             _status)
from .worker.wire import capped, decode, encode

# The worker loop, started as a script: only its own folder (the worker's modules) is on its sys.path.
WORKER_FILE = (Path(__file__).parent / "worker" / "__main__.py").resolve()
# The worker's start: seconds of wall time its hello may wait counted while none of its processes ran or waited for a CPU
# (a busy machine stretches a start of some 0.1 s of CPU time without bound: hog50, fix51b), and of their CPU time.
WORKER_START_SECONDS = 60.0
WORKER_START_CPU_SECONDS = 60.0
# How long the grader waits for the keeper's report as the sandbox closes, and for the keeper to end when the worker is
# gone: the keeper writes one line and exits at once, so only a lost keeper waits this long.
KEEPER_REPORT_SECONDS = 10.0
# A reply larger than this is refused unread. The largest honest reply of any lab is ~130 KB (the
# pretoken counts of corpus.en, sent back); parsing a reply costs the grader ~90 times its size
# (json.loads, decode, plain and same each build the value again), so 64 MiB of "[]," was ~6 GiB.
MAX_REPLY_BYTES = 4 * 2**20
# Lines read from the worker but not yet looked at. The reader thread waits when this many are
# queued (and the worker's writes then wait on the full pipe): junk lines written to the reply
# pipe between requests cannot pile up in the grader's memory.
MAX_QUEUED_LINES = 2
# The end of the worker's stderr that is kept, for its last words when it dies.
STDERR_TAIL_BYTES = 4096
# Folders deeper than this in the scratch folder stop the worker (no lab makes more than two).
MAX_SCRATCH_DEPTH = 32
# Third-party packages a lab's code may import inside the worker. Everything else outside the
# standard library (bpe_ref above all, and hypothesis, nbgrader, IPython) is unreachable there.
ALLOWED_PACKAGES = ("regex",)


@dataclass(frozen=True)
class Policy:
    """Limits of one worker. ``allow_processes`` is for labs that count in worker processes."""

    memory_mb: int = 2048
    cpu_seconds: int = 900
    file_mb: int = 64
    scratch_mb: int = 512  # all files in the scratch folder together; the worker is killed past it
    scratch_entries: int = 2000  # files and folders in the scratch folder (the trusted side walks it); killed past it
    allow_processes: bool = False
    packages: tuple[str, ...] = ALLOWED_PACKAGES
    # Modules of bpe_ref a lab gives its code (an earlier lab's functions), relative to the package,
    # e.g. ("train.step01_naive",): copied with what they import into the scratch folder, alone.
    provided: tuple[str, ...] = ()
    call_timeout: float = 30.0  # CPU seconds of the worker's processes for one call of a learner's function (request)
    cell_timeout: float = 30.0  # CPU seconds of the worker's processes for running one cell of the notebook
    wall_factor: float = 4.0  # a call or cell that waits is stopped after this many times its CPU seconds of waiting
    max_processes: int = 64  # processes the worker may have at once (with allow_processes); more kills it
    max_tasks: int = 512  # threads of all the worker's processes at once (the keeper refuses a thread past them: EAGAIN)
    watch_files: bool = True  # the keeper counts the opens Landlock refuses (every open goes by it; off to measure that)
    shm_mb: int = 256  # the worker's own /dev/shm (with allow_processes, where the kernel gives one: keeper.py); 0: none


@dataclass
class CellRun:
    """What running one cell of the learner's did, as nbgrader outputs can show it."""

    ok: bool
    stdout: str = ""
    stderr: str = ""
    error: dict[str, Any] | None = None

    def outputs(self) -> list[dict[str, Any]]:
        """The cell's outputs, capped as the worker caps them: its caps are globals of the learner's process (a cell that
        rebound them made each cell's outputs the 4 MiB of a reply: gigabytes in this process for a notebook of many,
        ``tests/test_grading_redteam.py``, section 39)."""
        outputs: list[dict[str, Any]] = []
        for name, text in (("stdout", self.stdout), ("stderr", self.stderr)):
            if text:
                outputs.append({"output_type": "stream", "name": name, "text": capped(text)})
        if self.error:
            lines = self.error.get("traceback", [])
            outputs.append({"output_type": "error", "ename": capped(self.error.get("ename", "Error"), 200),
                            "evalue": capped(self.error.get("evalue", ""), 2000),
                            "traceback": [capped(line, 2000) for line in lines[-30:]] if isinstance(lines, list) else []})
        return outputs


def _package_location(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    return Path(spec.origin).resolve() if spec.origin else None


def stdlib_folders() -> list[Path]:
    return sorted({Path(sysconfig.get_paths()[key]).resolve() for key in ("stdlib", "platstdlib")})


def readable_paths(packages: tuple[str, ...]) -> list[str]:
    """What the worker may read: the standard library (not its site-packages; its folder is only
    listed, ``list_paths``), the allowed packages, the shared libraries, the Python binary."""
    paths: set[str] = {"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime",
                       "/usr/share/zoneinfo", "/dev/urandom", "/dev/zero", str(Path(sys.executable).resolve())}
    for stdlib in stdlib_folders():
        if stdlib.is_dir():
            for entry in stdlib.iterdir():
                if entry.name not in ("site-packages", "dist-packages"):
                    paths.add(str(entry))
    for name in packages:
        location = _package_location(name)
        if location is not None:
            paths.add(str(location))
    return sorted(paths)


PACKAGE_DIR = Path(__file__).resolve().parents[2]


def provided_closure(modules: tuple[str, ...]) -> list[str]:
    """``modules`` of bpe_ref and every bpe_ref module they import, relatively, at any depth.

    >>> provided_closure(("train.step01_naive",))
    ['tiebreak', 'train.common', 'train.driver', 'train.step01_naive']
    """
    return list(_closure(tuple(modules)))


@functools.lru_cache(maxsize=None)  # every call sends the closure's names: parsing each time cost seconds per notebook
def _closure(modules: tuple[str, ...]) -> tuple[str, ...]:
    import ast

    found: set[str] = set()
    todo = list(modules)
    while todo:
        module = todo.pop()
        if module in found:
            continue
        found.add(module)
        path = PACKAGE_DIR.joinpath(*module.split(".")).with_suffix(".py")
        package = module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                base = package[: len(package) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
                for alias in node.names:  # "from . import x" may name a module
                    if PACKAGE_DIR.joinpath(*target, alias.name).with_suffix(".py").is_file():
                        todo.append(".".join(target + [alias.name]))
                if target and PACKAGE_DIR.joinpath(*target).with_suffix(".py").is_file():
                    todo.append(".".join(target))
    return tuple(sorted(found))


@functools.lru_cache(maxsize=None)
def narrowed(modules: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """The modules of ``modules``' closure that the lab does not give its code, only its modules need (dependencies):
    each with the names they import from it. The worker's copy of such a module holds those names alone
    (:func:`narrowed_source`): lab 05 gives V1's module, which takes ``best_pair`` from ``tiebreak``, and a whole copy
    of ``tiebreak`` gave task 1's answer, ``token_sort_key``, to an import (walk51a). A dependency imported whole
    (``from . import module``) is copied whole.

    >>> narrowed(("train.step01_naive", "train.common", "train.driver"))
    {'tiebreak': frozenset({'best_pair'})}
    """
    import ast

    closure = _closure(tuple(modules))
    names: dict[str, set[str]] = {module: set() for module in closure if module not in modules}
    for module in closure:
        package = module.split(".")[:-1]
        tree = ast.parse(PACKAGE_DIR.joinpath(*module.split(".")).with_suffix(".py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                target = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
                for alias in node.names:
                    whole = ".".join(target + [alias.name])
                    if whole in names:  # a module imported whole: its copy is whole
                        names.pop(whole)
                if node.module and ".".join(target) in names:
                    names[".".join(target)].update(alias.name for alias in node.names)
    return {module: frozenset(found) for module, found in sorted(names.items()) if found and "*" not in found}


def whole_modules(modules: tuple[str, ...]) -> tuple[str, ...]:
    """The modules of ``modules``' closure the worker holds whole (a stand-in imports its functions from them)."""
    narrow = narrowed(tuple(modules))
    return tuple(module for module in _closure(tuple(modules)) if module not in narrow)


def narrowed_source(source: str, names: frozenset[str]) -> str:
    """``source`` (a module's) with only its imports and the top-level definitions of ``names`` and of the module's
    names they use, at any depth."""
    import ast

    tree = ast.parse(source)
    defined: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        defined[name.id] = node
    needed: set[int] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        node = defined.get(name)
        if node is None or id(node) in needed:
            continue
        needed.add(id(node))
        todo += [used.id for used in ast.walk(node) if isinstance(used, ast.Name)]
    lines = source.splitlines()
    kept = ['"""Of this module, only what the modules this lab gives its code import from it."""']
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in needed:
            start = min([node.lineno] + [decorator.lineno for decorator in getattr(node, "decorator_list", [])])
            kept.append("\n".join(lines[start - 1 : node.end_lineno]))
    return "\n\n\n".join(kept) + "\n"


def copy_provided(modules: tuple[str, ...], packages_dir: Path) -> None:
    """A bpe_ref in ``packages_dir`` with only ``modules`` and what they import (empty ``__init__``
    files: the real ones import the whole reference); of a module only they import, only the names they import
    (:func:`narrowed`)."""
    narrow = narrowed(tuple(modules))
    for module in _closure(tuple(modules)):
        parts = module.split(".")
        folder = packages_dir / "bpe_ref"
        for part in ["", *parts[:-1]]:
            folder = folder / part if part else folder
            folder.mkdir(exist_ok=True)
            init = folder / "__init__.py"
            if not init.exists():
                init.write_text('"""Only the modules of bpe_ref that this lab gives its code."""\n', encoding="utf-8")
        source_path = PACKAGE_DIR.joinpath(*parts).with_suffix(".py")
        if module in narrow:
            (folder / f"{parts[-1]}.py").write_text(narrowed_source(source_path.read_text(encoding="utf-8"), narrow[module]),
                                                    encoding="utf-8")
        else:
            shutil.copyfile(source_path, folder / f"{parts[-1]}.py")


class ScratchTooBig(Exception):
    """A scratch folder with more files and folders than the trusted side looks at (its text says what)."""


def scratch_entries(scratch: Path, most: int) -> Iterator[tuple[Path, os.stat_result]]:
    """``(path relative to scratch, lstat)`` of every file and folder below ``scratch``, links never
    followed; past ``most`` entries or ``MAX_SCRATCH_DEPTH`` levels, :class:`ScratchTooBig` (the
    walk of the learner's folder must cost the worker, not the grader)."""
    todo, seen = [(scratch, 0)], 0
    while todo:
        folder, depth = todo.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(itertools.islice(listing, most + 1 - seen))
        except OSError:
            continue  # removed meanwhile, or not listable
        seen += len(entries)
        if seen > most:
            raise ScratchTooBig(f"more than {most} files and folders")
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield Path(entry.path).relative_to(scratch), info
            if stat.S_ISDIR(info.st_mode):
                if depth + 1 > MAX_SCRATCH_DEPTH:
                    raise ScratchTooBig(f"folders more than {MAX_SCRATCH_DEPTH} deep")
                todo.append((Path(entry.path), depth + 1))


def _shown(name: str) -> str:
    """A name the learner chose, with control characters (a forged newline, escape codes) and non-UTF-8
    bytes (surrogates, which would stop a UTF-8 report) written as Python escapes."""
    return repr(name)[1:-1]


def odd_files(scratch: Path, limit: int = 20, most: int = Policy.scratch_entries) -> list[str]:
    """Links, pipes, sockets and devices the worker made in its folder (``lstat``, never followed; the
    package links in ``packages/`` are the trusted side's), and a folder too big to look at whole."""
    found = []
    try:
        for relative, info in scratch_entries(scratch, most):
            if relative.parts[0] == "packages" and len(relative.parts) <= 2:
                continue
            if stat.S_ISLNK(info.st_mode):
                with contextlib.suppress(OSError):
                    found.append(f"a link {_shown(str(relative))} -> {_shown(os.readlink(scratch / relative)[:80])}")
            elif stat.S_ISSOCK(info.st_mode) and relative.parts[0].startswith("pymp-"):
                continue  # multiprocessing's forkserver listens there (lab 03)
            elif not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
                found.append(f"a special file {_shown(str(relative))}")
            if len(found) >= limit:
                return found
    except ScratchTooBig as too_big:
        found.append(str(too_big))
    return found


def pipe_holders(inodes: set[int]) -> set[int]:
    """Processes, other than this one, with an fd on one of the pipes ``inodes`` (from /proc/*/fd).
    A process that made itself undumpable hides its fds from this scan (see :meth:`Sandbox.close`)."""
    me, found = os.getpid(), set()
    wanted = {f"pipe:[{inode}]" for inode in inodes}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours to look at
            for fd in os.listdir(f"/proc/{name}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{name}/fd/{fd}") in wanted:
                        found.add(int(name))
                        break
    return found


# Sandboxes this process holds (started, not closed): it is a child subreaper while it holds any (_hold).
_held = {"sandboxes": 0, "was_subreaper": False}
_held_lock = threading.Lock()


def _hold(sandboxes: int) -> None:
    """Count ``sandboxes`` more (or fewer) held; while any is held this process is a child subreaper
    (Linux), so a worker's process whose keeper died comes here, not to init (:func:`kill_escaped`)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None)
    with _held_lock:
        before = _held["sandboxes"]
        _held["sandboxes"] += sandboxes
        if before == 0:
            flag = ctypes.c_int(0)
            libc.prctl(_PR_SET_CHILD_SUBREAPER + 1, ctypes.byref(flag), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
            _held["was_subreaper"] = bool(flag.value)
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        elif _held["sandboxes"] == 0 and not _held["was_subreaper"]:
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def _confinement(pid: int | str) -> tuple[str | None, ...] | None:
    """``pid``'s no-new-privileges flag, seccomp mode and filter count (/proc/PID/status, readable for
    an undumpable process too); None if it is gone."""
    status = _status(pid)
    return None if status is None else tuple(status.get(key) for key in ("NoNewPrivs", "Seccomp", "Seccomp_filters"))


def scheduled_threads() -> dict[str, int]:
    """Nanoseconds each thread of this process has run or waited for a CPU so far (``/proc/self/task/*/schedstat``:
    time on a CPU and in a run queue), by thread id; empty without /proc."""
    scheduled: dict[str, int] = {}
    try:
        threads = os.listdir("/proc/self/task")
    except OSError:
        return scheduled
    for tid in threads:
        try:
            with open(f"/proc/self/task/{tid}/schedstat", "rb") as file:
                ran, queued = file.read().split()[:2]
            scheduled[tid] = int(ran) + int(queued)
        except (OSError, ValueError):
            continue  # ended meanwhile
    return scheduled


def kill_escaped(session: int, within: float = 5.0) -> tuple[int, int]:
    """Kill and reap the processes of a worker's whose keeper died, which came to this subreaper
    (:func:`_hold`): its children more confined than itself (no-new-privileges and seccomp, kept for
    ever by every descendant of a worker's, and by no other child). Only children are signalled: their
    pids cannot be reused before they are reaped here; their own children come here in the next round.
    How many killed had left the worker's ``session`` (the group kill took the others), and how many
    were still there when ``within`` seconds ran out."""
    me, mine = os.getpid(), _confinement("self")
    killed: set[int] = set()
    deadline = time.monotonic() + within
    while True:
        escaped = {pid: (sid, state) for pid, (parent, sid, state) in _proc_table().items()
                   if parent == me and _confinement(pid) not in (None, mine)}
        if not escaped or time.monotonic() > deadline:
            return len(killed), len(escaped)
        for pid, (sid, state) in escaped.items():
            if state != "Z":
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                if sid != session:
                    killed.add(pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        time.sleep(0.01)


def _kill_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(OSError):
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


class CpuLimit:
    """CPU seconds a request may spend: ``read()`` gives the count so far and whether the processes counted are running
    or ready to run (``None``: unreadable); past ``seconds``, ``past(spent)`` is raised. Counted from ``start`` or, without
    one, from the first look: a request's first tenth of a second is not counted (at most that much CPU time per CPU),
    so that one that ends before reads nothing of /proc (most calls: a property check makes hundreds)."""

    def __init__(self, read: Callable[[], tuple[float | None, bool] | None], seconds: float,
                 past: Callable[[float], Exception], start: float | None = None) -> None:
        self.read, self.seconds, self.past, self.start = read, seconds, past, start

    def look(self) -> tuple[float, bool]:
        """CPU seconds spent since the start (0 if unreadable now), and whether its processes are running or ready to run."""
        seconds, running = self.read() or (None, False)
        self.start = seconds if self.start is None else self.start
        return (0.0 if seconds is None or self.start is None else max(0.0, seconds - self.start)), running


class Sandbox:
    """One worker process, started on :meth:`start` (or ``with``), replaced by :meth:`restart`."""

    def __init__(self, policy: Policy = Policy()) -> None:
        self.policy = policy
        self.process: subprocess.Popen | None = None
        self.isolation: list[str] = []
        self._replies: queue.Queue = queue.Queue(maxsize=MAX_QUEUED_LINES)
        self._reading = threading.Event()
        self._request_id = 0
        # Functions whose call timed out or killed the worker: not called again in this notebook,
        # so one infinite loop costs one time limit, not one per check that uses the function.
        self.stopped_functions: dict[str, str] = {}
        self.timed_out_functions: set[str] = set()  # those stopped by their call's time limit (verdicts.timed_out)
        # The how-checks (measured costs) that passed in a visible test, by check and function: the hidden test of the
        # same task takes their verdict rather than measuring again (checks/running.py, _measure).
        self.measured_passes: dict[tuple[str, str, str], str] = {}
        # The functions that raised NotImplementedError in a test: their hidden tests call them before measuring.
        self.unwritten: set[str] = set()
        # The notebook's budget, across restarts: no request runs past it, so it bounds every cell and call of its code,
        # not just when the next test cell may start (a slow call made 100 times by a property check, or hundreds of
        # slow cells, would otherwise hold the batch for hours). CPU seconds (:meth:`notebook_cpu_seconds`: this
        # process's and every worker's, so a busy machine brings no notebook nearer it), and a wall-clock backstop
        # (time.monotonic()) for a notebook that waits: :meth:`budget`, :meth:`out_of_budget`. The backstop moves on by
        # the time in which this process or a process of the worker ran or waited for a CPU (:meth:`_busy_since`): a
        # loaded machine stretches an honest grading's wall time, its waits not at all.
        self.cpu_budget: float | None = None
        self.deadline: float | None = None
        self._scheduled: dict[str, int] | None = None  # this process's threads' ns run and queued, as last read
        self._wall_budget = 0.0
        self._cpu_at_budget = 0.0  # this process's CPU time when the budget was set
        self._ended_workers_cpu = 0.0  # the CPU time of the workers that ended since
        self._last_spent = (0.0, -float("inf"))  # notebook_cpu_seconds() as last read, and when (time.monotonic())
        # Functions of the test cells not graded yet: no stand-in or driver sent to the worker may
        # define one (set by the autograder as it goes, in the source's order).
        self.not_graded_yet: set[str] = set()
        self.scratch: Path | None = None
        self.inputs: Path | None = None
        self._control = self._report = self._mapped = None
        self._control_lock = threading.Lock()
        self.last_report: dict = {}

    def budget(self, cpu_seconds: float, wall_seconds: float, cpu_spent: float = 0.0, wall_spent: float = 0.0) -> None:
        """Give the notebook ``cpu_seconds`` of CPU time, this process's (the graders') and its workers', and at most
        ``wall_seconds`` of wall-clock time, of which ``cpu_spent`` and ``wall_spent`` are spent already."""
        self.cpu_budget, self._wall_budget, self.deadline = cpu_seconds, wall_seconds, time.monotonic() + wall_seconds - wall_spent
        self._cpu_at_budget, self._ended_workers_cpu = time.process_time() - cpu_spent, 0.0
        self._last_spent = (0.0, -float("inf"))
        self._scheduled = None
        self._busy_since()  # from now on

    def _busy_since(self) -> float:
        """Seconds this process's threads ran or waited for a CPU since the last call (:func:`scheduled_threads`, each
        thread's growth, a thread new since counted whole; 0 the first time: a deadline set without :meth:`budget`)."""
        now, before = scheduled_threads(), self._scheduled
        self._scheduled = now
        return 0.0 if before is None else sum(max(0, ns - before.get(tid, 0)) for tid, ns in now.items()) / 1e9

    def _past_deadline(self) -> bool:
        """Whether the notebook's wall-clock backstop has passed, once moved on by this process's busy time since it was
        last read (read only when it looks passed: some 0.1 ms a look)."""
        if self.deadline is None or time.monotonic() <= self.deadline:
            return False
        self.deadline += self._busy_since()
        return time.monotonic() > self.deadline

    def notebook_cpu_seconds(self) -> float:
        """CPU seconds spent since :meth:`budget`: by this process and by the processes of every worker (the one
        running, read from /proc; those that ended, as last read when they were closed)."""
        return time.process_time() - self._cpu_at_budget + self._ended_workers_cpu + self._worker_cpu()

    def _worker_cpu(self) -> float:
        keeper = self.process.pid if self.process is not None and self._report is not None else None
        seconds = tree_cpu_seconds(keeper, self.ended_cpu(), keeper_own=True) if keeper is not None else None
        return seconds[0] if seconds else 0.0

    def ended_cpu(self) -> tuple[float, set[int]] | None:
        """The CPU seconds of the worker's processes that ended (``exit_group``), each read by the keeper as it ended,
        and the pids of the latest ends (:func:`.measure_worker.tree_cpu_seconds`); ``None`` where the keeper does not
        see them end. Read in this order: an end recorded between the two reads is left out of both (less, never more).
        Only the ring's records written so far are read (its count first, then as many records): read whole, it cost
        0.44 ms a look."""
        if self._mapped is None or self.processes_started() is None:
            return None
        try:
            ticks = int.from_bytes(os.pread(self._mapped, 8, ENDED_CPU_AT), "little")
            written = min(int.from_bytes(os.pread(self._mapped, 8, 16), "little"), EXIT_RING)
            ring = os.pread(self._mapped, 32 * written, 24) if written else b""
        except OSError:
            return None
        return ticks / os.sysconf("SC_CLK_TCK"), {int.from_bytes(ring[at:at + 8], "little") for at in range(0, len(ring), 32)}

    def out_of_budget(self) -> str | None:
        """Why nothing more of the notebook's may run (its budget is spent), or ``None``."""
        if self.cpu_budget is not None and self._past_cpu_budget():
            return f"grading this notebook took more than its {self.cpu_budget:g} s of CPU time"
        if self._past_deadline():
            return (f"grading this notebook took more than {self.deadline_seconds():g} s of wall-clock time (its backstop), "
                    "counted while nothing of it ran nor waited for a CPU")
        return None

    def _past_cpu_budget(self) -> bool:
        """Whether :meth:`notebook_cpu_seconds` passed the budget. Reading it (/proc, the worker's tree) costs some 0.25 ms
        of CPU, asked before every request: it is read again only when the last reading is a second old, or when that
        reading plus what every CPU of the machine could have spent since comes within a second of the budget. The
        verdict is always a reading's; one it would give now is given at the latest a second of wall-clock time later."""
        spent, at = self._last_spent
        now = time.monotonic()
        if now - at < 1.0 and spent + (now - at) * (os.cpu_count() or 1) + 1.0 < self.cpu_budget:
            return False
        self._last_spent = (self.notebook_cpu_seconds(), now)
        return self._last_spent[0] > self.cpu_budget

    def deadline_seconds(self) -> float:
        """The wall-clock seconds of the notebook's backstop (:meth:`budget`)."""
        return self._wall_budget

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- life cycle

    def start(self) -> None:
        self.scratch = Path(tempfile.mkdtemp(prefix="bpe_ref_grading_")).resolve()
        # Grader inputs (file arguments) live outside the scratch folder, in a folder of the trusted
        # side's that the worker may only read: no name the learner can link or replace.
        self.inputs = Path(tempfile.mkdtemp(prefix="bpe_ref_inputs_")).resolve()
        packages_dir = self.scratch / "packages"
        packages_dir.mkdir()
        for name in self.policy.packages:
            location = _package_location(name)
            if location is not None:  # a link, so the folder listed on sys.path holds nothing else
                (packages_dir / location.name).symlink_to(location, target_is_directory=location.is_dir())
        copy_provided(self.policy.provided, packages_dir)
        policy = {
            "scratch": str(self.scratch),
            "packages_dir": str(packages_dir),
            "read_paths": readable_paths(self.policy.packages),
            # the inputs' files by name only: the folder is not listed (nor watched: the filter), so a file written
            # before the call it is for is not read by an earlier one, unmeasured (redteam section 46)
            "file_paths": [str(self.inputs)],
            "list_paths": [str(folder) for folder in stdlib_folders()],
            "write_paths": ["/dev/shm"] if self.policy.allow_processes else [],
            "memory_mb": self.policy.memory_mb,
            "cpu_seconds": self.policy.cpu_seconds,
            "file_mb": self.policy.file_mb,
            "allow_processes": self.policy.allow_processes,
            "max_processes": self.policy.max_processes,
            "max_tasks": self.policy.max_tasks,
            "watch_files": self.policy.watch_files,
            "shm_mb": self.policy.shm_mb,
        }
        env = {"NBGRADER_EXECUTION": "autograde", "HOME": str(self.scratch), "TMPDIR": str(self.scratch),
               "PATH": os.defpath, "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
        if os.name == "nt":
            env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
        pass_fds: tuple[int, ...] = ()
        self._control = self._report = self._mapped = None
        if sys.platform.startswith("linux"):
            # The keeper (worker/keeper.py) reads the control pipe: its end means "stop"; it writes what the
            # worker's processes did on the report pipe.
            control_read, self._control = os.pipe()
            self._report, report_write = os.pipe()
            policy.update(control_fd=control_read, report_fd=report_write, inputs=str(self.inputs))
            pass_fds = (control_read, report_write)
            if hasattr(os, "memfd_create"):  # the keeper's count of the bytes the worker mapped of its inputs
                self._mapped = os.memfd_create("bpe_ref_mapped", os.MFD_CLOEXEC)
                # and of the processes they started, their ends, and the files the keeper sent
                os.ftruncate(self._mapped, IN_FLIGHT_AT + 8 + 16 * IN_FLIGHT_SLOTS)
                policy.update(mapped_fd=self._mapped)
                pass_fds += (self._mapped,)
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", str(WORKER_FILE), json.dumps(policy)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=self.scratch, env=env, start_new_session=(os.name == "posix"), pass_fds=pass_fds,
        )
        _hold(1)
        for fd in pass_fds:
            if fd != self._mapped:
                os.close(fd)
        self._stderr_tail = bytearray()
        self._noticed: set[str] = set()  # what the worker's audit hook noted (its replies' "noticed"): for review
        self._replies = queue.Queue(maxsize=MAX_QUEUED_LINES)
        self._reading = threading.Event()  # cleared by close(): the reader thread then stops
        self._reading.set()
        # The pipes to and from the worker, by inode: a process still holding one after the worker and
        # its keeper are gone is found by them when closing (see close()).
        self._pipes = {os.fstat(fd).st_ino for fd in (self.process.stdin.fileno(), self.process.stdout.fileno(),
                                                      self.process.stderr.fileno(), self._control, self._report)
                       if fd is not None}
        if os.name == "posix":
            os.set_blocking(self.process.stdin.fileno(), False)  # requests are written with a deadline (_send)
        self._readers = [
            threading.Thread(target=self._read_replies, args=(self.process.stdout, self._replies, self._reading), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.process.stderr, self._stderr_tail), daemon=True)]
        for reader in self._readers:
            reader.start()
        self.killed_because = ""
        self.last_report: dict = {}
        threading.Thread(target=self._watch_disk, args=(self.process, self.scratch, self._reading), daemon=True).start()
        if self._report is not None:  # every worker: its sockets' and pipes' queues, its processes' memory together
            threading.Thread(target=self._watch_memory, args=(self.process, self._reading), daemon=True).start()
        # The key of the replies' seals (worker/__main__.py, _serving), this worker's only, sent before any learner's code runs.
        self._seal_key = secrets.token_bytes(32)
        self._asking((json.dumps({"seal": self._seal_key.hex()}) + "\n").encode("ascii"))
        what = "starting the grading process"
        self._send(self._asked, time.monotonic() + 60, 60, what)  # a pipe's buffer holds the key: never waits
        keeper = self.process.pid if self._report is not None else None
        # The hello's wait counts, as a request's backstop does, only the looks at which none of the worker's processes nor
        # its keeper ran or waited for a CPU: a start on a loaded machine is not stopped, one that sleeps or blocks is
        # (tests/test_grading_redteam.py, section 90). Without a keeper (not Linux), wall time.
        start = () if keeper is None else (CpuLimit(lambda: tree_cpu_seconds(keeper, keeper_own=True),
                                                    WORKER_START_CPU_SECONDS, lambda spent: GradingStopped(
            f"{what} did not finish within {WORKER_START_CPU_SECONDS:g} s of its CPU time")),)
        hello = self._receive(None, timeout=WORKER_START_SECONDS, what=what, limits=start)
        self.isolation = [str(line) for line in hello.get("isolation", [])]

    @staticmethod
    def _read_stderr(stream, tail: bytearray) -> None:
        """Keep the last few KiB the worker wrote to stderr (its last words when it dies)."""
        while True:
            try:
                chunk = stream.read1(65536)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            tail.extend(chunk)
            del tail[:-STDERR_TAIL_BYTES]

    def write_input(self, data: bytes) -> str:
        """A grader input file the worker can read and not change, created anew (``O_EXCL | O_NOFOLLOW``); its path."""
        if self.inputs is None:
            raise GradingStopped("the process running your code is not running")
        path = self.inputs / f"corpus_{hashlib.sha256(data).hexdigest()[:16]}.txt"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # this call's copy, whatever an earlier one's became
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o444)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        return str(path)

    def behaviour(self) -> dict:
        """What the last worker's processes did, as its keeper and :func:`odd_files` saw it (after :meth:`close`)."""
        return dict(self.last_report)

    def close(self) -> None:
        if self.process is not None:
            self._ended_workers_cpu += self._worker_cpu()  # read before its processes are stopped
            self._reading.clear()
            report = self._stop_keeper()
            _kill_group(self.process)  # the keeper is gone; anything left of its group too
            escaped, left = kill_escaped(self.process.pid) if sys.platform.startswith("linux") else (0, 0)
            stragglers, hidden = self._release_pipes(look=bool(report.get("report_lost")))
            _hold(-1)
            # Walked once the worker and its processes are gone: while it ran, it could make a link as soon as it saw the
            # walk go by (an inotify watch on a folder the walk lists), too late for the walk to see it.
            odd = odd_files(self.scratch, most=self.policy.scratch_entries) if self.scratch is not None else []
            # The keeper kills every process of the worker's before it reports: one still running
            # escaped it (the keeper died, or lost its report), which is itself for review.
            said = [report.get("report_lost"),
                    escaped and f"{escaped} process(es) that left its session and outlived its keeper were killed",
                    left and f"{left} more that outlived it were still being started, and were left running",
                    stragglers and f"{stragglers} process(es) still holding its pipes after its keeper was done were killed",
                    hidden and "a process still holding its pipes could not be found and was left running"]
            if escaped or left or stragglers or hidden:
                report["report_lost"] = "; ".join(line for line in said if line)
            with contextlib.suppress(OSError):
                self.process.stdin.close()
            if not hidden:  # a reader thread blocked in a read holds its stream's lock: close() would wait for it
                for stream in (self.process.stdout, self.process.stderr):
                    with contextlib.suppress(OSError):
                        stream.close()
            self.process = None
            report["odd_files"] = odd
            report["noticed"] = sorted(self._noticed)
            self.last_report = report
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
        if getattr(self, "inputs", None) is not None:
            shutil.rmtree(self.inputs, ignore_errors=True)
            self.inputs = None
        if self._mapped is not None:
            os.close(self._mapped)
            self._mapped = None

    def mapped_bytes(self, counter: int = 0, counted: str = "and opens Landlock refuses") -> int | None:
        """Bytes the worker's processes mapped of grader inputs or of files they can write, as the keeper
        counted them (:class:`worker.keeper._FileWatch`); ``None`` where it does not count them. ``counter=1``:
        the processes they started, each fork counted as the filter sent it to the keeper (:meth:`processes_started`)."""
        if self._mapped is None or not any(counted in line for line in self.isolation):
            return None
        try:
            return int.from_bytes(os.pread(self._mapped, 8, 8 * counter), "little")
        except OSError:
            return None

    def processes_started(self) -> int | None:
        """How many processes the worker's processes have started so far (every fork, however short its process
        lived), counted by the keeper; ``None`` where it does not count them."""
        return self.mapped_bytes(1, "and every process started")

    def process_ends(self, since: int = 0) -> tuple[int, list[tuple[int, ...]]] | None:
        """How many of the worker's processes ended (``exit_group``) so far, and those after the first ``since``, each
        as ``(pid, parent pid, bytes read, bytes counted)``, read by the keeper as it ended
        (:meth:`worker.keeper._FileWatch.log_exit`); ``None`` where the keeper does not see them, or more ended than it keeps."""
        count = self.processes_started()
        if count is None:
            return None
        try:
            ended = int.from_bytes(os.pread(self._mapped, 8, 16), "little")
            if ended - since > EXIT_RING:
                return None
            records = [os.pread(self._mapped, 32, 24 + 32 * (i % EXIT_RING)) for i in range(since, ended)]
        except OSError:
            return None
        return ended, [tuple(int.from_bytes(r[k:k + 8], "little") for k in range(0, 32, 8)) for r in records]

    def _release_pipes(self, look: bool, within: float = 5.0) -> tuple[int, bool]:
        """Wait ``within`` s at most for the reader threads to see the end of the worker's pipes, killing
        every process still holding one (by inode in /proc/*/fd; looked for at least once if ``look``).
        How many were killed, and whether one could not be found (its streams are then left to their
        threads, never closed under them, so closing never waits for a process outside)."""
        killed: set[int] = set()
        deadline = time.monotonic() + within
        readers = getattr(self, "_readers", [])
        for reader in readers:
            reader.join(timeout=0.2)
        while (look or any(reader.is_alive() for reader in readers)) and time.monotonic() < deadline:
            look = False
            if sys.platform.startswith("linux"):
                for pid in pipe_holders(self._pipes) - {self.process.pid}:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                        killed.add(pid)
            for reader in readers:
                reader.join(timeout=0.1)
        return len(killed), any(reader.is_alive() for reader in readers)

    def _signal_stop(self) -> None:
        """Close the control pipe: the keeper kills every process of the worker's (any thread may)."""
        with self._control_lock:
            if self._control is not None:
                with contextlib.suppress(OSError):
                    os.close(self._control)
                self._control = None

    def _stop_keeper(self) -> dict:
        """Close the control pipe and read the keeper's report; ``{}`` without a keeper. A report that does
        not come in time or cannot be read is a review line (``report_lost``): only the worker can have lost it."""
        if self._report is None:
            return {}
        self._signal_stop()
        import select

        data, problem = b"", ""
        deadline = time.monotonic() + KEEPER_REPORT_SECONDS
        readable = select.poll()  # not select(), which refuses an fd numbered past 1024 (a class's grader holds many)
        readable.register(self._report, select.POLLIN)
        while len(data) <= 2**20:  # the keeper bounds its report far below this
            if not readable.poll(max(0.0, deadline - time.monotonic()) * 1000):
                problem = f"no report from its sandbox's keeper within {KEEPER_REPORT_SECONDS:g} s"
                break
            try:
                chunk = os.read(self._report, 65536)
            except OSError as error:
                problem = f"its sandbox's report could not be read ({error.strerror or error})"
                break
            data += chunk
            if not chunk or data.endswith(b"\n"):  # the report is one line, then the keeper exits
                break
        with contextlib.suppress(OSError):
            os.close(self._report)
        self._report = None
        report = None
        if not problem:
            try:
                report = json.loads(data.decode())
            except (ValueError, UnicodeDecodeError):
                problem = "its sandbox's report was missing or malformed"
        if not isinstance(report, dict):
            return {"report_lost": problem or "its sandbox's report was malformed"}
        return report

    def restart(self) -> dict:
        """A fresh worker; what the one that ended did (:meth:`behaviour`)."""
        self.close()
        report = self.behaviour()
        self.start()
        return report

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def worker_pid(self) -> int | None:
        """The process that runs the learner's code, for measuring it from outside (its CPU time, bytes
        read, children): on Linux the keeper's first child, elsewhere the process started."""
        if self.process is None:
            return None
        keeper = self.process.pid
        try:
            with open(f"/proc/{keeper}/task/{keeper}/children", encoding="ascii") as children:
                first = children.read().split()[:1]
        except OSError:
            return keeper
        return int(first[0]) if first else keeper

    # -- talking

    @staticmethod
    def _read_replies(stream, replies: queue.Queue, reading: threading.Event) -> None:
        def put(item) -> bool:  # wait for room in the queue, unless the sandbox was closed meanwhile
            while reading.is_set():
                try:
                    replies.put(item, timeout=0.2)
                    return True
                except queue.Full:
                    continue
            return False

        while True:
            try:
                line = stream.readline(MAX_REPLY_BYTES + 1)
            except (OSError, ValueError):  # the stream was closed under this thread
                return
            if not line:
                put(None)  # end of file: the worker is gone
                return
            if len(line) > MAX_REPLY_BYTES:
                put(ValueError(f"a reply of more than {MAX_REPLY_BYTES // 2**20} MiB"))
                return
            if not put(line):
                return

    def _watch_disk(self, process: subprocess.Popen, scratch: Path, running: threading.Event) -> None:
        """Twice a second: kill the worker when its folder grows past ``scratch_mb`` (RLIMIT_FSIZE caps one
        file, not many) or ``scratch_entries`` files and folders."""
        limit = self.policy.scratch_mb * 2**20
        while running.is_set() and process.poll() is None:
            started = time.thread_time()
            try:
                total = sum(info.st_size for _, info in scratch_entries(scratch, self.policy.scratch_entries)
                            if stat.S_ISREG(info.st_mode))
                # and the files its processes hold that no folder links (unlinked, memfd): section 53; and those they
                # map, unlinked, of which they hold no fd: counted at the most one can hold (section 76)
                held = held_unlinked_bytes(process.pid, with_root=self._report is None,
                                           mapped_most=self.policy.file_mb * 2**20,
                                           mapped_under=(str(scratch), os.path.realpath(scratch)))
                if held is None:
                    too_much = "hid the files it holds open"
                elif total + held > limit:
                    too_much = f"wrote more than {self.policy.scratch_mb} MiB to disk (with the files it holds unlinked or in memory)"
                else:
                    too_much = ""
            except ScratchTooBig as too_big:
                too_much = f"made {too_big} in its folder"
            if too_much:
                self.killed_because = f"it {too_much}"
                if self._report is not None:
                    self._signal_stop()  # the keeper kills the worker and every process it started
                else:
                    _kill_group(process)
                return
            # not running.wait(0.5): that Event is set while the worker runs, so it never waited; and never more than a
            # tenth of a CPU, however many fds and mappings the worker's processes hold (each look reads them all)
            time.sleep(max(0.5, 9 * (time.thread_time() - started)))

    def _watch_memory(self, process: subprocess.Popen, running: threading.Event) -> None:
        """Ten times a second: stop the worker when the memory resident in all its processes together, with the bytes
        queued in the unix sockets and pipes they hold (:func:`.measure_worker.queued_bytes`), passes ``memory_mb``.
        ``RLIMIT_AS`` holds each process to it, not their sum: ``max_processes`` of them held 64 times it, more than the
        machine's, and the kernel's OOM killer then ends the largest processes on it, a classmate's grading among them
        (``tests/test_grading_redteam.py``, section 52); nor does it count a socket's queue, kernel memory (1,000
        socketpairs filled held 222 MiB past a limit of 200 MiB, section 53), which is why every worker is watched, one
        process or many. Ten looks a second (fewer where a look costs more than a hundredth of a second of CPU time: at most a
        tenth of a CPU): what two cores can fault in between is some hundreds of MiB, not the machine."""
        limit = self.policy.memory_mb * 2**20
        while running.is_set() and process.poll() is None:
            started = time.thread_time()
            resident = tree_resident_bytes(process.pid)
            queued = queued_bytes(process.pid, with_root=False, also=self._in_flight())
            if queued is None:
                self.killed_because = "it hid the files its processes hold (their queued bytes could not be counted)"
            elif resident + queued[0] > limit:
                self.killed_because = (f"its processes held {resident / 2**20:.0f} MiB of memory together, with "
                                       f"{queued[0] / 2**20:.0f} MiB queued in sockets and pipes ({queued[1]} of them), "
                                       f"more than {self.policy.memory_mb} MiB")
            if queued is None or resident + queued[0] > limit:
                self._signal_stop()  # the keeper kills the worker and every process it started
                return
            # A look reads every fd of every process (1,022 sockets: some 5 ms of CPU time; 64 processes of them, a third
            # of a second): never more than a tenth of a CPU, however many the worker holds.
            time.sleep(max(0.1, 9 * (time.thread_time() - started)))

    def _in_flight(self) -> tuple[tuple[str, int, int], ...]:
        """The sockets and pipes the keeper sent in a message, which may be in flight, held by no process:
        ``("socket" or "pipe", inode, the socket it was sent to)`` (:meth:`.worker.keeper._Sends.record`)."""
        if self._mapped is None:
            return ()
        try:
            used = min(int.from_bytes(os.pread(self._mapped, 8, IN_FLIGHT_AT), "little"), IN_FLIGHT_SLOTS)
            slots = os.pread(self._mapped, 16 * used, IN_FLIGHT_AT + 8) if used else b""
        except OSError:
            return ()
        return tuple(("socket" if kind == 1 else "pipe", inode, receiver)
                     for kind, inode, receiver, _ in struct.iter_unpack("=IIII", slots) if kind in (1, 2))

    def _worker_gone(self, what: str) -> GradingStopped:
        keeper_code = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            keeper_code = self.process.wait(timeout=KEEPER_REPORT_SECONDS) if self.process else None
        tail = bytes(getattr(self, "_stderr_tail", b""))
        self.close()
        code = self.last_report.get("status") if "status" in self.last_report else keeper_code
        if isinstance(code, int) and self.last_report:  # a wait status, as the keeper got it
            code = -os.WTERMSIG(code) if os.WIFSIGNALED(code) else os.WEXITSTATUS(code) if os.WIFEXITED(code) else code
        how = f"exit code {code}" if code is None or code >= 0 else f"killed by signal {-code} ({signal.Signals(-code).name})"
        because = getattr(self, "killed_because", "") or self.last_report.get("reason", "")
        if because:
            how = f"{how}: {because}"
        lines = tail.decode("utf-8", errors="replace").strip().splitlines()
        last = f"; its last words: {lines[-1][:200]}" if lines else ""
        return GradingStopped(f"the process running your code stopped while {what} ({how}{last})")

    def _receive(self, request_id: int | None, timeout: float, what: str, limits: tuple[CpuLimit, ...] = (),
                 late: Callable[[], GradingStopped] | None = None, until: float = float("inf"),
                 notebook: bool = False) -> dict:
        """The reply to ``request_id`` within ``timeout`` s of wall-clock time and before ``until`` (``time.monotonic()``;
        past either, ``late()`` says why it was stopped). With ``limits``, checked ten times a second (past one, the
        worker is stopped as on the timeout), ``timeout`` counts only the looks at which none of their processes was
        running or ready to run: the time the request waited on something, not for a CPU of a busy machine. With
        ``notebook``, ``until`` is the notebook's backstop (:attr:`deadline`), moved on by the looks at which one was."""
        # One deadline for the whole wait: lines that are not the reply (the learner's, written to the
        # channel now and then) must not start the wait again.
        last = time.monotonic()
        deadline, waited = min(until, last + timeout) if not limits else until, 0.0
        next_look = last + 0.1  # of the CPU time: on time whatever comes meanwhile (a line at least every
        # 0.1 s that is not the reply once kept the wait from ever finding the queue empty, and a call from its stop)
        while True:
            now = time.monotonic()
            if limits and now >= next_look:
                looks = [(limit, *limit.look()) for limit in limits]
                for limit, spent, _ in looks:
                    if spent > limit.seconds:
                        self.close()
                        raise limit.past(spent)
                ran = any(running for _, _, running in looks)
                waited += 0.0 if ran else now - last
                if ran and notebook and self.deadline is not None:  # the notebook's backstop moves on as well
                    self.deadline += now - last
                    deadline = self.deadline
                last, next_look = now, now + 0.1
            if notebook and limits and now >= deadline and self.deadline is not None and not self._past_deadline():
                deadline = self.deadline  # moved on by this process's busy time
            if now >= deadline or waited >= timeout:
                stopped = late() if late else GradingStopped(f"{what} did not finish within {timeout:g} s")
                self.close()
                raise stopped
            try:
                line = self._replies.get(timeout=max(0.0, min(deadline, next_look if limits else deadline) - now))
            except queue.Empty:
                continue
            if line is None:
                raise self._worker_gone(what)
            if isinstance(line, Exception):
                self.close()
                raise GradingStopped(f"{what}: the answer could not be read ({line})")
            seal, _, body = line.rstrip(b"\n").partition(b" ")
            if not self._sealed_by_the_loop(seal, body):
                continue  # not the loop's reply to this request (the learner's code wrote to the channel, or rewrote a request)
            try:
                reply = json.loads(body)
            except (ValueError, RecursionError):
                continue
            if isinstance(reply, dict) and (reply.get("id") == request_id or (request_id is None and reply.get("hello"))):
                return reply

    def _asking(self, request: bytes) -> None:
        """Record ``request``, about to be sent, as the one whose reply is awaited (its digest once: a worker that
        writes many lines before its reply must not cost a hash of a long request per line)."""
        self._asked = request
        self._asked_digest = hashlib.blake2b(request, digest_size=32).digest()

    def _sealed_by_the_loop(self, seal: bytes, body: bytes) -> bool:
        """Whether ``seal`` is the worker loop's for ``body`` in answer to the last request sent, :attr:`_asked` (the
        worker's ``_serving``): the loop's fds are in the learner's process, which can read, write and reopen them."""
        expected = hashlib.blake2b(self._asked_digest + body, key=self._seal_key, digest_size=32).hexdigest().encode("ascii")
        return hmac.compare_digest(seal, expected)

    def request(self, message: dict, timeout: float, what: str, cpu_limit: float | None = None) -> dict:
        """Send ``message`` and return its reply. ``timeout``: the CPU seconds the worker's processes may spend on it, the
        worker's and every process's under its keeper (:func:`.measure_worker.tree_cpu_seconds`, read from /proc, so a
        busy machine slows a call without bringing it nearer its limit); a request that spends less but waits (a sleep,
        a lock, a pipe nobody writes) is stopped at a backstop, ``Policy.wall_factor`` times ``timeout`` of wall time in
        which none of those processes, nor the keeper, ran or waited for a CPU; the notebook's :attr:`deadline` is wall
        time. Without a keeper (not Linux), ``timeout`` s of wall-clock time. With ``cpu_limit``,
        that many CPU seconds of the worker's process too (a grader's measured call: past them it cannot pass, so it
        stops there: :class:`CpuLimitReached`)."""
        if not self.alive:
            raise GradingStopped(f"{what}: the process running your code is not running")
        keeper = self.process.pid if self._report is not None else None  # the worker's keeper (Linux)
        tree = None if keeper is None else CpuLimit(lambda: tree_cpu_seconds(keeper, self.ended_cpu(), keeper_own=True),
                                                    timeout, lambda spent: timed_out(
            GradingStopped(f"{what} did not finish within {timeout:g} s of CPU time (measured from outside your code): an "
                           "infinite loop, or a much slower algorithm than needed?")))
        waiting = timeout * max(1.0, self.policy.wall_factor) if tree is not None else timeout
        if self.out_of_budget():
            raise GradingStopped(f"{what}: not run, {self.out_of_budget()}")
        until = float("inf") if self.deadline is None else self.deadline  # as moved on by out_of_budget()
        pid = self.worker_pid
        start = cpu_seconds(pid, children=False) if cpu_limit is not None and pid is not None else None
        measured = None if start is None else CpuLimit(lambda: (cpu_seconds(pid, children=False), False), cpu_limit,
                                                       CpuLimitReached, start)
        notebook = None if self.cpu_budget is None else CpuLimit(lambda: (self.notebook_cpu_seconds(), False), self.cpu_budget, (
            lambda spent: GradingStopped(f"{what}: stopped when the time for grading this notebook ran out ({self.cpu_budget:g} s "
                                         "of CPU time, the grader's and your code's, measured from outside your code)")), 0.0)
        limits = tuple(limit for limit in (measured, tree, notebook) if limit is not None)
        started = time.monotonic()

        def late() -> GradingStopped:
            used = f"{tree.look()[0]:.1f} s of CPU time" if tree is not None else ""
            if self.deadline is not None and time.monotonic() >= self.deadline:
                return GradingStopped(
                    f"{what}: stopped when the wall-clock time for grading this notebook ran out (its backstop, "
                    f"{self.deadline_seconds():g} s), after {time.monotonic() - started:.0f} s{used and ', '}{used}")
            if not used:
                return timed_out(GradingStopped(f"{what} did not finish within {waiting:g} s (an infinite loop, or a "
                                                "much slower algorithm than needed?)"))
            return timed_out(GradingStopped(
                f"{what} waited {waiting:g} s without running (its backstop) and used only {used} (its limit: "
                f"{timeout:g} s): waiting on something (a sleep, a lock, a pipe or a process that never answers)?"))

        # An id the worker cannot guess: a line the learner's code writes on the reply pipe (found by trying its fds)
        # with the next id of a count was taken for the reply, arguments "as they came" and all (redteam section 21).
        self._request_id = secrets.randbits(62)
        message = {**message, "id": self._request_id}
        self._asking((json.dumps(message) + "\n").encode("utf-8"))
        send_by = min(until, started + waiting)  # a worker that reads no request spends no CPU: the backstop, in wall time
        self._send(self._asked, send_by, send_by - started, what)
        reply = self._receive(self._request_id, waiting, what, limits, late, until, notebook=self.deadline is not None)
        noticed = reply.get("noticed")  # codes, the worker's own word: autograde.noticed_lines words them its own way
        for code in noticed[:16] if type(noticed) is list else ():  # 16 codes in all: a worker that sent new ones with
            if len(self._noticed) < 16 and type(code) is str and len(code) <= 80:  # each reply made a line of review each
                self._noticed.add(code)
        return reply

    def _send(self, data: bytes, deadline: float, timeout: float, what: str) -> None:
        """Write a request under the call's deadline: a worker that stops reading (stopped by a signal
        of its own, or busy in a thread that holds the interpreter) would otherwise block a write
        larger than the pipe's buffer for ever, before any deadline runs."""
        import select

        try:
            if os.name != "posix":  # no poll on a pipe there: written as before, without a deadline
                self.process.stdin.write(data)
                self.process.stdin.flush()
                return
            fd, left, writable = self.process.stdin.fileno(), memoryview(data), select.poll()
            writable.register(fd, select.POLLOUT)
            while left:
                if not writable.poll(max(0.0, deadline - time.monotonic()) * 1000):
                    self.close()
                    raise GradingStopped(f"{what}: the process running your code did not read its input within {timeout:g} s")
                with contextlib.suppress(BlockingIOError):
                    left = left[os.write(fd, left[:2**20]):]
        except OSError:
            raise self._worker_gone(what) from None

    # -- the two operations

    def run_cell(self, code: str, name: str, timeout: float | None = None) -> CellRun:
        """Run one cell of the notebook; a timeout or a crash is a failed cell, after which the worker
        is gone (:attr:`alive` is false) until the caller starts a new one and replays what it needs."""
        try:
            reply = self.request({"op": "exec", "code": code, "name": name}, timeout or self.policy.cell_timeout, f"running cell {name}")
        except GradingStopped as stopped:
            return CellRun(False, error={"ename": "CellStopped", "evalue": str(stopped), "traceback": []})
        error = reply.get("error")
        return CellRun(bool(reply.get("ok")), str(reply.get("stdout", "")), str(reply.get("stderr", "")),
                       error if isinstance(error, dict) or error is None else {"ename": "WorkerError", "evalue": "?"})

    def call(self, name: str, args: tuple, *, timeout: float | None = None, return_args: bool = False,
             spy: tuple[str, ...] = (), stand_ins: tuple[Callable, ...] = (), driver: Callable | None = None,
             cpu_limit: float | None = None) -> dict:
        """Call the learner's ``name(*args)``; the raw reply (see :class:`RemoteFunction` for values).

        ``spy``: names whose calls the worker counts; ``stand_ins``: reference functions bound in
        place of the learner's during the call (sent as source, see :mod:`.stand_ins`); ``driver``:
        a reference function sent the same way, which the worker calls as ``driver(function, *args)``
        (a grader's ``Task.driver``); ``cpu_limit``: see :meth:`request`. A function stopped by its timeout is not
        called again in this notebook; one stopped past a CPU limit is (only that measured call was too slow)."""
        if name in self.stopped_functions:
            stopped = GradingStopped(f"not called: {self.stopped_functions[name]}, earlier in this notebook")
            raise timed_out(stopped) if name in self.timed_out_functions else stopped
        if not self.alive:  # stopped by an earlier call, of a grader's that goes on: not recorded against this function
            raise GradingStopped(f"{name}(...): the process running your code is not running")
        message = {"op": "call", "name": name, "args": [encode(arg) for arg in args], "return_args": return_args, "spy": list(spy)}
        if stand_ins:
            message["stand_ins"] = {"source": stand_in_source(stand_ins, forbidden=(name, *sorted(self.not_graded_yet)),
                                                              provided=whole_modules(tuple(self.policy.provided))),
                                    "names": [function.__name__ for function in stand_ins]}
        if driver is not None:
            message["driver"] = {"source": stand_in_source((driver,), forbidden=(name, *sorted(self.not_graded_yet))),
                                 "names": [driver.__name__]}
        try:
            return self.request(message, timeout or self.policy.call_timeout, f"{name}(...)", cpu_limit)
        except CpuLimitReached:
            raise
        except GradingStopped as stopped:
            self.stopped_functions[name] = str(stopped)
            if getattr(stopped, "timed_out", False):
                self.timed_out_functions.add(name)
            raise


@dataclass
class RemoteFunction:
    """A learner's function as the graders see it: calling it calls it in the worker, by name.

    :meth:`invoke` returns ``(arguments after the call, result)`` as plain values, so a task that
    updates an argument in place can be observed; the learner's exceptions come back as
    :class:`~.verdicts.LearnerError`, a timeout or a crash as ``GradingStopped``.
    """

    sandbox: Sandbox
    name: str
    timeout: float | None = None
    cpu_limit: float | None = None  # CPU seconds of the worker's each call may spend (:meth:`Sandbox.request`)
    runs_remotely: bool = field(default=True, init=False)  # what the graders test for

    @property
    def __name__(self) -> str:  # messages name the function as the learner wrote it
        return self.name

    def invoke(self, args: tuple, spy: tuple[str, ...] = (), stand_ins: tuple[Callable, ...] = (),
               driver: Callable | None = None, return_args: bool | None = None) -> tuple[tuple, Any]:
        """``return_args=False``: the arguments are not sent back (``args`` is returned as given), for a
        call whose inputs the grader does not observe (a measured one: sending them back costs time)."""
        mutable = any(isinstance(arg, (dict, list, set)) for arg in args) if return_args is None else return_args
        with outside_the_limit():  # the call's own limits hold it; reading its reply is the check's (cpu_limit)
            reply = self.invoke_raw(args, spy, stand_ins, driver, mutable)
        if not reply.get("ok"):
            raise LearnerError.from_data(reply.get("error") or {})
        try:
            # Arguments asked for come back, all of them: a reply without them is not "left unchanged" (a notebook
            # that rewrote the worker's replies dropped them)
            after = tuple(decode(arg) for arg in reply["args"]) if mutable else args
            if len(after) != len(args):
                raise ValueError(f"{len(after)} arguments sent back for {len(args)}")
            return after, decode(reply.get("result"))
        except (ValueError, TypeError, KeyError, RecursionError) as problem:
            raise LearnerError("UnreadableResult", f"what {self.name} returned could not be read: {problem}") from None

    def invoke_raw(self, args: tuple, spy: tuple[str, ...] = (), stand_ins: tuple[Callable, ...] = (),
                   driver: Callable | None = None, return_args: bool | None = None) -> dict:
        mutable = any(isinstance(arg, (dict, list, set)) for arg in args) if return_args is None else return_args
        return self.sandbox.call(self.name, args, timeout=self.timeout, return_args=mutable, spy=spy, stand_ins=stand_ins,
                                 driver=driver, cpu_limit=self.cpu_limit)

    def __call__(self, *args):
        return self.invoke(args)[1]
