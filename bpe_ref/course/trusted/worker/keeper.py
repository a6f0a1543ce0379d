"""The keeper: the worker's parent, which kills every process the worker started and answers its refused calls.

It runs none of the learner's code and confines nothing of itself; :func:`keep` is the entry
(the worker's first call, before it confines itself). Standard library only; imports nothing of
the course.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import platform
import re
import stat
import struct
import sys
import threading
import time

if __package__:  # imported by the trusted side's tests; in the worker this folder is on sys.path
    from .confinement import (_EACCES, _EPERM, _OPEN_CALLS, _PR_SET_CHILD_SUBREAPER, _SECCOMP_ARCH, _SOCKET_FAMILIES,
                              _kernel_at_least, _libc, refusal)
else:
    from confinement import (_EACCES, _EPERM, _OPEN_CALLS, _PR_SET_CHILD_SUBREAPER, _SECCOMP_ARCH, _SOCKET_FAMILIES,
                             _kernel_at_least, _libc, refusal)


def _stat_fields(pid: int | str) -> list[bytes]:
    """The fields of ``/proc/PID/stat`` after the command name (which may hold spaces and parentheses): state(0)
    ppid(1) ... utime(11) stime(12) cutime(13) cstime(14) ... starttime(19)."""
    with open(f"/proc/{pid}/stat", "rb") as stat_file:
        return stat_file.read().rsplit(b")", 1)[1].split()


def _proc_table() -> dict[int, tuple[int, int, str]]:
    """``pid -> (parent pid, session id, state)`` of every process, read from /proc."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = _stat_fields(name)
            table[int(name)] = (int(fields[1]), int(fields[3]), fields[0].decode())
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    return table


def _tasks_under(root: int, processes: bool = False) -> int:
    """The threads of every process under ``root`` (not ``root``'s own: the keeper's), zombies' included, found through
    ``/proc/PID/task/TID/children`` as :func:`.measure_worker.tree_cpu_seconds` does: a few reads where the worker is
    one process, not a read of every process of the machine. With ``processes``, the processes instead."""
    todo, seen, tasks = [root], set(), 0
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # gone meanwhile
        tasks += (1 if processes else len(tids)) if pid != root else 0
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as file:
                    todo.extend(int(child) for child in file.read().split())
            except (OSError, ValueError):
                continue
    return tasks


def _live_threads(pid: int) -> bool:
    """Whether zombie ``pid`` still runs threads: a process whose main thread ended alone (``SYS_exit``, not
    ``exit_group``) shows state Z while its other threads run, and is no zombie to wait for."""
    try:
        return len(os.listdir(f"/proc/{pid}/task")) > 1
    except OSError:
        return False


def _descendants(root: int, table: dict[int, tuple[int, int, str]]) -> list[int]:
    """The processes under ``root``, those whose main thread ended while others run among them (passed over as zombies
    before, they were neither counted nor killed: one that left the session outlived the grading; section 124)."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _, state) in table.items():
        if state != "Z" or _live_threads(pid):
            children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _rchar_of(pid: int | str) -> int:
    """``rchar`` of ``/proc/PID/io``: what process ``pid`` read (its threads, its reaped children); ``pid`` may be
    ``"PID/task/TID"``, one thread's own reads."""
    with open(f"/proc/{pid}/io", "rb") as io:
        return next(int(line.split()[1]) for line in io if line.startswith(b"rchar:"))


def _started_at(pid: int) -> int:
    """When process ``pid`` started (``/proc/PID/stat``'s starttime, in clock ticks since boot): a reused pid's differs."""
    return int(_stat_fields(pid)[19])


def _reap(keep: int = 0) -> None:
    """Collect this process's dead children (orphans it inherited), but not ``keep``'s status (the
    worker's, which the keeper waits for itself)."""
    me = os.getpid()
    for pid, (parent, _, state) in _proc_table().items():
        if parent == me and state == "Z" and pid != keep:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


def _kill_descendants(worker: int, waited: bool) -> int:
    """SIGKILL every descendant of this process until none is left (orphans come back to this
    process, a subreaper, so a process that left the session is still found). How many were killed."""
    killed: set[int] = set()
    for _ in range(200):
        pids = _descendants(os.getpid(), _proc_table())
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, 9)
            killed.add(pid)
        time.sleep(0.01)
        _reap(keep=-1 if waited else worker)
    return len(killed)


def _shm_entries() -> dict[str, os.stat_result]:
    try:
        return {entry.name: entry.stat(follow_symlinks=False) for entry in os.scandir("/dev/shm")}
    except OSError:
        return {}


_SEMAPHORE_BYTES = 64  # a POSIX semaphore's file holds one sem_t (32 bytes with glibc on 64-bit Linux)


def _file_id(info: os.stat_result) -> tuple[int, int, int]:
    return os.major(info.st_dev), os.minor(info.st_dev), info.st_ino


def _held_files(pids) -> set[tuple[int, int, int]]:
    """The files (device major, minor, inode) that processes ``pids`` have mapped or open, by inode: glibc makes a
    semaphore under a temporary name, maps it, then links it to its own, so its creator's ``/proc/PID/maps`` names
    the temporary file (deleted), never ``sem.mp-...``; a name, unlike an inode, also matches the names it begins."""
    held: set[tuple[int, int, int]] = set()
    for pid in pids:
        with contextlib.suppress(OSError, ValueError):
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
                for line in maps:  # start-end perms offset major:minor inode [path]
                    fields = line.split(maxsplit=5)
                    if len(fields) >= 5 and fields[4] != "0":
                        major, minor = fields[3].split(":")
                        held.add((int(major, 16), int(minor, 16), int(fields[4])))
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):  # opened, not mapped yet (shm_open, then mmap)
                with contextlib.suppress(OSError):
                    held.add(_file_id(os.stat(f"/proc/{pid}/fd/{fd}")))
    return held


def _mapped_anywhere(paths: set[str]) -> set[str]:
    """Which of ``paths`` some live process has mapped or open (another grader's semaphores), by inode (:func:`_held_files`)."""
    wanted: dict[tuple[int, int, int], str] = {}
    for path in paths:
        with contextlib.suppress(OSError):
            wanted[_file_id(os.lstat(path))] = path
    if not wanted:
        return set()
    # (not the keeper's own: its thread that answers the worker's calls may hold for an instant a file it was making
    # for it as the worker was stopped, section 79)
    others = (name for name in os.listdir("/proc") if name.isdigit() and int(name) != os.getpid())
    return {wanted[held] for held in _held_files(others) if held in wanted}


# A /dev/shm of the worker's own (Linux user and mount namespaces, unprivileged where the kernel allows them).
_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_CLONE_THREAD, _CLONE_FILES, _EAGAIN = 0x00010000, 0x00000400, 11
_MAP_SHARED_ANONYMOUS = 0x21  # MAP_SHARED | MAP_ANONYMOUS
_MAP_HUGETLB = 0x40000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
MAX_SHM_ENTRIES = 4096  # files the private /dev/shm holds (its tmpfs's inodes); the keeper lists them all


def _private_shm(megabytes: int) -> None:
    """Give this process, and every process it starts, a /dev/shm of its own: a new user namespace (this user
    mapped to itself only) owning a new mount namespace, with a tmpfs of ``megabytes`` mounted on /dev/shm; then
    drop the capabilities the new user namespace gave. Another grading then cannot see, remove or be charged for
    what this worker's processes make there, nor they see its; the tmpfs dies with the last process that holds it.
    Raises ``OSError`` where the kernel refuses (user namespaces off, or without capabilities, as under
    AppArmor's restriction): the process may then be in a new user namespace without its own /dev/shm, harmless."""
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER | CLONE_NEWNS)")
    try:
        for name, line in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w", encoding="ascii") as file:
                file.write(line)
        if libc.mount(b"none", b"/", None, ctypes.c_ulong(_MS_REC | _MS_PRIVATE), None) != 0:  # nothing goes out, nor in
            raise OSError(ctypes.get_errno(), "mount(MS_PRIVATE)")
        options = f"size={megabytes}m,nr_inodes={MAX_SHM_ENTRIES},mode=1777".encode()
        if libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV | _MS_NOEXEC), options) != 0:
            raise OSError(ctypes.get_errno(), "mount(tmpfs on /dev/shm)")
    finally:  # whatever failed above: the learner's code never holds the new namespace's capabilities
        header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()  # _LINUX_CAPABILITY_VERSION_3: none
        if libc.capset(header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset")


def _shm_by_keeper(policy: dict) -> bool:
    """Whether the keeper makes the files of the worker's processes in the machine's /dev/shm (:meth:`_FileWatch.made_in_shm`):
    it sees their opens and can give an fd as a call's answer (Linux 5.14)."""
    return bool(policy.get("allow_processes") and policy.get("watch_files", True) and _kernel_at_least(5, 14))


def _private_shm_handshake(channel, policy: dict) -> None:
    """In the worker, just forked (one thread, none of the learner's code run yet): try :func:`_private_shm`, tell the
    keeper (``1`` or ``0``) and wait for it to have opened the new /dev/shm (:func:`_open_private_shm`). The isolation
    line goes in ``policy["shm"]``."""
    megabytes = int(policy.get("shm_mb", 256))
    try:
        if megabytes <= 0:
            raise OSError(0, "none asked for")
        _private_shm(megabytes)
        policy["shm"] = f"/dev/shm: a private tmpfs of {megabytes} MiB, seen by this worker's processes only"
        channel.sendall(b"1")
    except OSError as error:
        policy["shm_by_keeper"] = _shm_by_keeper(policy)
        policy["shm"] = (f"/dev/shm: shared with the machine ({error.strerror or error}); " + (
            "the keeper makes the files the worker's processes make there, and removes them at the end" if
            policy["shm_by_keeper"] else "what the worker's processes left there is found by the opens the keeper saw "
            "and the files they held"))
        channel.sendall(b"0")
    channel.recv(1)


def _open_private_shm(channel, worker: int) -> int | None:
    """In the keeper: the worker's private /dev/shm, opened through ``/proc/WORKER/root`` (the keeper stays in the
    machine's namespaces) and held, so the keeper can list it once the worker's processes are gone; None if the
    worker has none (the machine's /dev/shm is then cleaned by attribution: see :func:`keep`)."""
    folder = None
    with contextlib.suppress(OSError):
        if channel.recv(1) == b"1":
            folder = os.open(f"/proc/{worker}/root/dev/shm", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            if os.fstat(folder).st_dev == os.stat("/dev/shm").st_dev:  # not its own after all
                os.close(folder)
                folder = None
    with contextlib.suppress(OSError):
        channel.sendall(b"g")  # go on: the worker confines itself next
    return folder


def _clean_private_shm(folder: int) -> list[str]:
    """Remove everything in the worker's private /dev/shm (all of it its processes', none another's); the paths to
    flag: all but a pool's semaphores (removed unflagged: an honest pool's, left by a worker killed at the end)."""
    flagged = []
    with contextlib.suppress(OSError):
        for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
            with contextlib.suppress(OSError):
                if not (entry.name.startswith("sem.mp-") and entry.stat(follow_symlinks=False).st_size <= _SEMAPHORE_BYTES):
                    flagged.append(f"/dev/shm/{entry.name}")
                os.unlink(entry.name, dir_fd=folder)  # (a folder, where Landlock did not refuse one, goes with the tmpfs)
    return flagged


# seccomp user notification (include/uapi/linux/seccomp.h): the structures and ioctls the keeper uses.
class _SeccompData(ctypes.Structure):
    _fields_ = [("nr", ctypes.c_int32), ("arch", ctypes.c_uint32), ("instruction_pointer", ctypes.c_uint64),
                ("args", ctypes.c_uint64 * 6)]


class _SeccompNotif(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64), ("pid", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("data", _SeccompData)]


class _SeccompNotifResp(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64), ("val", ctypes.c_int64), ("error", ctypes.c_int32), ("flags", ctypes.c_uint32)]


class _SeccompNotifAddfd(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64), ("flags", ctypes.c_uint32), ("srcfd", ctypes.c_uint32),
                ("newfd", ctypes.c_uint32), ("newfd_flags", ctypes.c_uint32)]


def _iowr(number: int, size: int) -> int:
    return (3 << 30) | (size << 16) | (ord("!") << 8) | number  # _IOWR('!', number, size)


_NOTIF_RECV = _iowr(0, ctypes.sizeof(_SeccompNotif))
_NOTIF_SEND = _iowr(1, ctypes.sizeof(_SeccompNotifResp))
_NOTIF_ID_VALID = (1 << 30) | (8 << 16) | (ord("!") << 8) | 2  # _IOW('!', 2, __u64)
_NOTIF_ADDFD = (1 << 30) | (ctypes.sizeof(_SeccompNotifAddfd) << 16) | (ord("!") << 8) | 3  # _IOW('!', 3, ...)
_ADDFD_FLAG_SEND = 2  # the fd added is the call's answer (Linux 5.14)
_USER_NOTIF_FLAG_CONTINUE = 1
EXIT_RING = 1024  # processes' ends the keeper keeps in mapped_fd (_FileWatch.log_exit), the latest ones
ENDED_CPU_AT = 24 + 32 * EXIT_RING  # then the CPU time (clock ticks) of every process that ended so (_FileWatch.log_exit)
# then the files the keeper sent (_Sends.record): how many slots are used (the highest), then IN_FLIGHT_SLOTS of
# (kind: 0 free, 1 a socket, 2 a pipe; its inode; the inode of the socket it was sent to; 0), four 4-byte ints
IN_FLIGHT_AT, IN_FLIGHT_SLOTS = ENDED_CPU_AT + 8, 1024
MAX_REFUSAL_NAMES = 16  # distinct calls (and files) named in a report; the rest are counted together
# Items added to the epolls of a worker whose lab allows processes (lab 03), all its processes together, before the keeper
# answers ENOSPC, as the kernel does past the account's allowance: each is some 200 bytes of the kernel's that no watch
# counts, kept once its fd is closed while the file is open (5.5 million took 1.1 GiB, the grading account's whole
# fs.epoll.max_user_watches: tests/test_grading_redteam.py, section 74). Removals are not subtracted (the keeper sees a
# call before it runs, not whether it did anything): multiprocessing's forkserver adds 2 an instance.
MOST_EPOLL_ITEMS = 4096
_ENOSPC, _EEXIST = 28, 17


_SOCK_DIAG_BY_FAMILY, _NETLINK_SOCK_DIAG, _NLMSG_ERROR, _NLMSG_DONE = 20, 4, 2, 3
_UDIAG_SHOW = 4 | 8 | 16 | 32  # UDIAG_SHOW_PEER, _ICONS, _RQLEN, _MEMINFO
_UNIX_DIAG_PEER, _UNIX_DIAG_ICONS, _UNIX_DIAG_RQLEN, _UNIX_DIAG_MEMINFO = 2, 3, 4, 5
_SK_MEMINFO_WMEM_ALLOC, _SK_MEMINFO_SNDBUF = 2, 3
_TCP_LISTEN = 10


def unix_sockets(inode: int = 0) -> dict[int, tuple[int, int, tuple[int, ...], int, int, int]] | None:
    """Every unix socket of this network namespace (or the one of ``inode``: ``{}`` if there is none) by inode, from
    ``sock_diag`` (the kernel's netlink answer, as ``ss -x`` reads it): ``(state, peer inode or 0, inodes of the
    connections a listener has not accepted, bytes queued to be read, bytes it sent that are still queued (their kernel
    memory, each packet's overhead included), its send buffer)``; ``None`` where the kernel does not answer (no
    ``unix_diag``)."""
    import socket
    import struct

    try:
        channel = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, _NETLINK_SOCK_DIAG)
    except (OSError, AttributeError):
        return None
    found: dict[int, tuple[int, int, tuple[int, ...], int, int, int]] = {}
    with channel:
        request = struct.pack("=BBHIIIII", socket.AF_UNIX, 0, 0, 0xFFFFFFFF, inode, _UDIAG_SHOW, 0xFFFFFFFF, 0xFFFFFFFF)
        flags = 1 if inode else 0x301  # NLM_F_REQUEST, and NLM_F_DUMP for all
        try:
            channel.sendto(struct.pack("=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, flags, 1, 0) + request, (0, 0))
            while True:  # NLM_F_REQUEST | NLM_F_DUMP: answered in parts, then NLMSG_DONE
                data, at = channel.recv(1 << 17), 0
                if not data:
                    return None
                while at + 16 <= len(data):
                    length, kind = struct.unpack_from("=IH", data, at)
                    if kind == _NLMSG_DONE:
                        return found
                    if kind == _NLMSG_ERROR and inode:
                        return {}  # ENOENT: no such socket
                    if kind == _NLMSG_ERROR or length < 32:
                        return None
                    state, number = data[at + 18], struct.unpack_from("=I", data, at + 20)[0]
                    peer, pending, read, sent, buffer = 0, (), 0, 0, 0
                    attribute = at + 32
                    while attribute + 4 <= at + length:
                        size, name = struct.unpack_from("=HH", data, attribute)
                        if size < 4:
                            break
                        value = data[attribute + 4:attribute + size]
                        if name == _UNIX_DIAG_PEER and len(value) >= 4:
                            peer = struct.unpack_from("=I", value)[0]
                        elif name == _UNIX_DIAG_ICONS:
                            pending = tuple(struct.unpack(f"={len(value) // 4}I", value[:len(value) // 4 * 4]))
                        elif name == _UNIX_DIAG_RQLEN and len(value) >= 8:
                            read = struct.unpack_from("=I", value)[0]
                        elif name == _UNIX_DIAG_MEMINFO and len(value) >= 16:
                            sent, buffer = struct.unpack_from("=II", value, 4 * _SK_MEMINFO_WMEM_ALLOC)
                        attribute += (size + 3) & ~3
                    found[number] = (state, peer, pending, read, sent, buffer)
                    at += (length + 3) & ~3
                if inode:
                    return found
        except OSError:
            return None


def _beneath(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _status(pid: int | str) -> dict[str, str] | None:
    """The fields of /proc/PID/status (readable for any process, an undumpable one's too); None if it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            return {key: value.strip() for key, _, value in (line.partition(":") for line in status)}
    except OSError:
        return None


def _thread_group(pid: int) -> int:
    """The process (thread group) of thread ``pid``: /proc/self is that of the process, not of the thread."""
    tgid = (_status(pid) or {}).get("Tgid", "")
    return int(tgid) if tgid.isdigit() else pid


def _resolved_for(path: str, pid: int, tgid: int) -> str:
    """``os.path.realpath(path)`` (an absolute path) as thread ``pid`` of process ``tgid`` sees it.

    realpath in the keeper reads /proc as the keeper: ``/proc/self`` is the keeper's, however it is
    reached (``/proc//self``, ``/proc/./self``, a relative path from /proc, a link in the scratch
    folder), and ``/proc/N/fd/M`` is followed with the keeper's rights. So ``/proc/self`` and
    ``/proc/thread-self`` are the caller's here, whatever the spelling, and the links of another
    process's /proc entries (the keeper's own fds, say, which the kernel will not let the caller
    follow) are left as they are, so they are counted as the /proc paths they are."""
    own = {"self": [str(tgid)], "thread-self": [str(tgid), "task", str(pid)]}
    resolved, todo, links = "/", [part for part in reversed(path.split("/")) if part], 0
    while todo:
        part = todo.pop()
        if part == ".":
            continue
        if part == "..":
            resolved = os.path.dirname(resolved)
            continue
        if resolved == "/proc" and part in own:
            todo.extend(reversed(own[part]))
            continue
        candidate = os.path.join(resolved, part)
        foreign = re.match(r"/proc/(\d+)/", candidate)  # below another process's /proc entry
        if foreign and int(foreign[1]) not in (pid, tgid) and _thread_group(int(foreign[1])) != tgid:
            resolved = candidate
            continue
        try:
            target = os.readlink(candidate)
        except OSError:  # not a link, or no such file: taken as it is, as realpath does
            resolved = candidate
            continue
        links += 1
        if links > 40:  # the kernel's limit (ELOOP): refused by the kernel, whatever Landlock says
            return candidate
        if target.startswith("/"):
            resolved = "/"
        todo.extend(part for part in reversed(target.split("/")) if part)
    return resolved


class _KeptShmFiles:
    """The files the keeper made for the worker's processes in the machine's /dev/shm (:meth:`_FileWatch.made_in_shm`),
    each held by an fd of the keeper's so that their bytes can be added up whatever holds them: a name, an fd, or a
    mapping alone (a file written to 30 MiB, a page of it mapped, its fd closed and its name unlinked, is in no fd table,
    no folder and no resident count: 16 held 480 MiB past the folder's limit of 64 MiB and a memory limit of 200 MiB;
    tests/test_grading_redteam.py, section 79). A /dev/shm of the worker's own bounds them by its tmpfs (``shm_mb``, its
    inodes :data:`MAX_SHM_ENTRIES`); in the machine's the keeper does: at most that many files at once (a file past them
    not made: ENOSPC, as the tmpfs answers), and their bytes at most ``limit``, past which the worker is stopped (the
    keeper's look, :func:`keep`). A file is let go once no name links it and no process of the worker's holds or maps
    it (an honest pool's semaphores, unlinked at once, mapped until the pool ends)."""

    def __init__(self, megabytes: int) -> None:
        self.limit = max(1, megabytes) << 20
        # held while a file is made (:meth:`_FileWatch.made_in_shm`) too: once :meth:`close` has it, every file made
        # is recorded for the cleaning, and none is made after
        self.lock, self.closed = threading.RLock(), False
        self.fds: dict[tuple[int, int, int], int] = {}  # the file (device major, minor, inode) -> the keeper's fd of it

    def keep(self, fd: int) -> bool:
        """Hold the file of ``fd`` (the keeper's own fd, which stays the caller's to close); False past the bound."""
        with self.lock:
            if len(self.fds) >= MAX_SHM_ENTRIES:
                return False
            try:
                kept = fcntl_dup(fd)
            except OSError:
                return False
            file = _file_id(os.fstat(kept))
            if file in self.fds:
                os.close(kept)
            else:
                self.fds[file] = kept
            return True

    def held_bytes(self, pids: list[int]) -> int:
        """The bytes the files still held take (their blocks); those no name links and none of ``pids`` holds or maps
        are let go first."""
        total, held = 0, None
        with self.lock:
            for file, fd in list(self.fds.items()):
                info = os.fstat(fd)
                if info.st_nlink == 0:
                    held = _held_files(pids) if held is None else held
                    if file not in held:
                        os.close(fd)
                        del self.fds[file]
                        continue
                total += info.st_blocks * 512
        return total

    def stop(self) -> list[str]:
        """Make no file from now on, and remove at once every name in the machine's /dev/shm of a file still held: this
        worker's, whoever else holds it (no other grading opens it, section 82), so neither a process of the worker's
        slow to die (its mappings not yet undone, which :func:`_mapped_anywhere` would see as another's) nor a kill that
        outlasts the trusted side's wait for the report (the keeper then killed before its cleaning) leaves it
        (tests/test_grading_redteam.py, section 87). Done before the kill, with the files still held (no inode reused
        meanwhile). The paths removed that are flagged (a pool's semaphore is not)."""
        removed = []
        with self.lock:
            self.closed = True
            for name, info in _shm_entries().items():
                if _file_id(info) in self.fds and stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid():
                    with contextlib.suppress(OSError):
                        os.unlink(f"/dev/shm/{name}")
                        if not (name.startswith("sem.mp-") and info.st_size <= _SEMAPHORE_BYTES):
                            removed.append(f"/dev/shm/{name}")  # flagged as in :func:`keep`'s cleaning
        return removed

    def close(self) -> None:
        """Let every file go (before the cleaning, which leaves what a live process holds: the keeper would be one)."""
        with self.lock:
            for fd in self.fds.values():
                os.close(fd)
            self.fds.clear()
            self.closed = True


def fcntl_dup(fd: int) -> int:
    """A close-on-exec copy of ``fd``, at the lowest free number (``F_DUPFD_CLOEXEC``)."""
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 0)


class _FileWatch:
    """Which opens of the worker's Landlock will refuse, seen by the keeper: the path is read from
    the caller's memory (``/proc/PID/mem``) and resolved against the rules the worker gave Landlock
    (:func:`confine`). The call then goes on and Landlock decides: a path changed between this read
    and the open (another thread) changes the count, never what is allowed."""

    def __init__(self, policy: dict, numbers: dict[str, int | None], created_in_shm: set[str],
                 kept_shm: _KeptShmFiles | None = None) -> None:
        def resolved(paths: list[str]) -> list[str]:
            return [os.path.realpath(path) for path in paths]

        self.calls = {numbers[name]: name for name in _OPEN_CALLS if numbers.get(name) is not None}
        self.read = resolved(policy.get("read_paths", []))
        self.listed = resolved(policy.get("list_paths", []))
        self.files = resolved(policy.get("file_paths", []))  # files read by name, the folders never listed
        self.write = resolved([policy.get("scratch", "/nonexistent"), "/dev/null"] + policy.get("write_paths", []))
        # What the interpreter, its loader and the C library probe on their own, refused and harmless
        # (seen in lab 03's spawned processes): a virtual environment's pyvenv.cfg, libpython next to
        # the interpreter, the locale aliases, the CPU count and the memory overcommit policy.
        self.probes = resolved([os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "pyvenv.cfg"),
                                os.path.join(os.path.dirname(sys.executable), "pyvenv.cfg")]) + [
            "/sys/devices/system/cpu", "/proc/stat", "/proc/cpuinfo", "/proc/sys/vm/overcommit_memory", "/etc/locale.alias"]
        self.memory: dict[int, int] = {}  # pid -> its /proc/PID/mem, open
        self.opens = 0
        # mmap: the bytes mapped of a grader's input, or of a file the worker can write (a copy of an input
        # made by splice or sendfile), added up in the counter the trusted side reads (``mapped_fd``, a memfd)
        self.mapped_from = resolved([policy.get("inputs", "/nonexistent")]) + self.write
        # and, where the lab allows processes, every fork of the worker's processes (its clone, seen by the filter): the
        # counter's second 8 bytes, which the trusted side reads before and after a call (ProcessWatch)
        self.mapped_fd, self.counts, self.exits, self.ended_cpu = policy.get("mapped_fd"), [0, 0], 0, 0
        # What each process read of the files the worker may change or was given, at its end (:meth:`log_exit`): all it
        # read, less its interpreter's start-up after an exec (bytes read between the exec and its first open of
        # anything but the standard library, packages and system files, or fd received), when it held no grader input
        self.inputs = resolved([policy.get("inputs", "/nonexistent")])
        self.start_up: dict[int, list] = {}  # tgid -> [its start time, rchar at its exec, rchar when its start-up ended]
        self.mapped_by: dict[int, int] = {}  # tgid -> bytes it mapped of inputs or writable files
        # Names the worker's processes opened with O_CREAT in the machine's /dev/shm, and the inodes of the files the
        # keeper made there for them: what it may remove there when the worker has no /dev/shm of its own (:func:`keep`);
        # bounded, the rest left.
        self.shm, self.created_in_shm = os.path.realpath("/dev/shm"), created_in_shm
        # In the machine's /dev/shm (no private one), the keeper makes the worker's files itself (:meth:`made_in_shm`)
        self.shm_fd = os.open(self.shm, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) if policy.get("shm_by_keeper") else None
        self.kept_shm = kept_shm  # and holds each, its bytes bounded (:class:`_KeptShmFiles`)
        self.links = [numbers[name] for name in ("link", "linkat") if numbers.get(name) is not None]  # linkat last
        self.unlinks = [numbers[name] for name in ("unlink", "unlinkat") if numbers.get(name) is not None]  # unlinkat last
        self.foreign = False  # the last call made_in_shm answered was refused another grading's file (counted)

    def mapped_file(self, pid: int, args: tuple[int, ...]) -> int:
        """Bytes of the file that ``mmap(args...)`` maps, when the file is one :attr:`mapped_from`; else 0.
        (The fd is read once: a thread that swaps it for another file meanwhile changes what is counted.)"""
        fd, length, offset = ctypes.c_int32(args[4] & 0xFFFFFFFF).value, args[1], args[5]
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            size = os.stat(f"/proc/{pid}/fd/{fd}").st_size
        except OSError:
            return 0
        if not target.startswith("/") or not _beneath(target, self.mapped_from):
            return 0
        return max(0, min(length, size - offset))

    def executed(self, pid: int) -> None:
        """An ``execve`` of thread ``pid``: the reads that follow are its program's start-up (:meth:`start_up_over`),
        if its process has one thread (no other opening a file meanwhile) and holds no file but pipes, sockets and
        /dev/null (a grader input, a copy of one, a memfd, which the new program could read); a process that never ran
        exec, or did so holding one, has every read counted."""
        tgid = _thread_group(pid)
        self.start_up.pop(tgid, None)
        with contextlib.suppress(OSError, StopIteration, ValueError):
            held = [os.readlink(f"/proc/{tgid}/fd/{fd}") for fd in os.listdir(f"/proc/{tgid}/fd")]
            if len(os.listdir(f"/proc/{tgid}/task")) == 1 and all(
                    target.startswith(("pipe:", "socket:", "anon_inode:")) or target == os.devnull for target in held):
                self.start_up[tgid] = [_started_at(tgid), _rchar_of(tgid), None]

    def _start_up(self, tgid: int) -> list | None:
        state = self.start_up.get(tgid)
        return state if state is not None and state[0] == _started_at(tgid) else None  # not a reused pid's

    def start_up_over(self, pid: int, *paths: str) -> None:
        """Thread ``pid`` opened a file by ``paths`` (as written, made absolute, and resolved; none: it received an fd):
        if one lies where the learner's code or the grader put files (the scratch folder, /dev/shm, the grader's
        inputs) or in /proc (another process's fds), the start-up of its process's program (:meth:`executed`) is over.
        (Elsewhere the worker writes nothing: the standard library, packages and system files are its start-up's.)"""
        if paths and not any(_beneath(os.path.normpath(path), self.inputs + self.write + ["/proc"]) and path != os.devnull
                             for path in paths):
            return
        tgid = _thread_group(pid)
        state = self._start_up(tgid)
        if state is not None and state[2] is None:
            state[2] = _rchar_of(tgid)

    def log_exit(self, pid: int) -> None:
        """Record the end of process ``pid`` (its ``exit_group``, which waits for the keeper's answer): its pid, its
        parent's, the bytes it read (``rchar``: its threads' and its reaped children's), read before it ends and is
        reaped into its parent's count, and those counted: less its program's start-up (:meth:`executed`), plus what it
        mapped of inputs or writable files. In the ring after the counters of ``mapped_fd`` (:data:`EXIT_RING` records
        of four 8-byte ints, at ``24 + 32 * (n % EXIT_RING)``; ``n``, the ends recorded so far, at 16, written next), and
        its CPU time, added last to the ended processes' at :data:`ENDED_CPU_AT`: a process whose parent ignores SIGCHLD
        (or set SA_NOCLDWAIT) is reaped by the kernel alone, and its time reaches no parent's count."""
        tgid = _thread_group(pid)
        fields = _stat_fields(tgid)
        parent = int(fields[1])
        whole = counted = _rchar_of(tgid)
        state = self._start_up(tgid)
        if state is not None:  # its program's start-up's reads left out
            counted -= (state[2] if state[2] is not None else whole) - state[1]
        self.start_up.pop(tgid, None)
        counted += self.mapped_by.pop(tgid, 0)
        if self.mapped_fd is not None:
            record = b"".join(value.to_bytes(8, "little") for value in (tgid, parent, whole, counted))
            os.pwrite(self.mapped_fd, record, 24 + 32 * (self.exits % EXIT_RING))
            self.exits += 1
            os.pwrite(self.mapped_fd, self.exits.to_bytes(8, "little"), 16)
            self.ended_cpu += int(fields[11]) + int(fields[12])  # utime, stime: all its threads', not its children's
            os.pwrite(self.mapped_fd, self.ended_cpu.to_bytes(8, "little"), ENDED_CPU_AT)

    def remapped_file(self, pid: int, args: tuple[int, ...]) -> int:
        """Bytes that ``mremap(args...)`` adds to a mapping of a file that is one :attr:`mapped_from` (found in the
        caller's ``/proc/PID/maps``), which its mmap did not count; else 0."""
        address, old, new = args[0], args[1], args[2]
        if new <= old:
            return 0
        with open(f"/proc/{_thread_group(pid)}/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:  # start-end perms offset major:minor inode [path]
                fields = line.split(maxsplit=5)
                start, end = (int(bound, 16) for bound in fields[0].split("-"))
                if start <= address < end:
                    path = fields[5].strip() if len(fields) > 5 else ""
                    return new - old if path.startswith("/") and _beneath(path, self.mapped_from) else 0
        return 0

    def count(self, which: int, count: int) -> None:
        """Add ``count`` to counter ``which`` (0: bytes mapped, 1: processes started) of ``mapped_fd``."""
        self.counts[which] += count
        if self.mapped_fd is not None:
            with contextlib.suppress(OSError):
                os.pwrite(self.mapped_fd, self.counts[which].to_bytes(8, "little"), 8 * which)

    def _memory(self, pid: int, fresh: bool = False) -> int | None:
        """``/proc/PID/mem`` of the caller, kept open; ``fresh``: reopened (the pid may be another
        process's now, whose memory the old fd does not show)."""
        if fresh and pid in self.memory:
            os.close(self.memory.pop(pid))
        if pid not in self.memory:
            if len(self.memory) >= 64:
                for old in self.memory.values():
                    os.close(old)
                self.memory.clear()
            try:
                self.memory[pid] = os.open(f"/proc/{pid}/mem", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return None
        return self.memory[pid]

    def _text(self, pid: int, address: int, limit: int = 4096) -> str | None:
        fresh = pid in self.memory
        text = self._read_text(self._memory(pid), address, limit)
        if text is None and fresh:
            text = self._read_text(self._memory(pid, fresh=True), address, limit)
        return text

    def read_bytes(self, pid: int, address: int, size: int) -> bytes | None:
        """``size`` bytes of the caller's memory at ``address`` (a connect's address), or None."""
        for fresh in (False, True):
            fd = self._memory(pid, fresh)
            with contextlib.suppress(OSError):
                data = os.pread(fd, size, address) if fd is not None else b""
                if len(data) == size:
                    return data
        return None

    def reaped_alone(self, pid: int, args: tuple[int, ...]) -> str | None:
        """The refusal of ``rt_sigaction(SIGCHLD, act, ...)`` whose new action has the kernel reap the caller's children
        alone, unwaited for (``SIG_IGN``, or ``SA_NOCLDWAIT``): a child that then ends by a signal (no ``exit_group``)
        leaves its CPU time in no count. ``None``: no new action, or another (a handler, as multiprocessing's forkserver
        sets), which goes on. The kernel's struct sigaction begins with the handler and the flags (8 bytes each, on
        x86_64 and aarch64), read once: a thread that changes them after this read is not seen (threat model). Unread
        (an undumpable caller, a bad address): refused too."""
        if not args[1]:
            return None
        action = self.read_bytes(pid, args[1], 16)
        if action is None:
            return "rt_sigaction(SIGCHLD, unread)"
        if int.from_bytes(action[:8], sys.byteorder) == 1:
            return "rt_sigaction(SIGCHLD, SIG_IGN)"
        return "rt_sigaction(SIGCHLD, SA_NOCLDWAIT)" if int.from_bytes(action[8:], sys.byteorder) & 2 else None

    @staticmethod
    def _read_text(fd: int | None, address: int, limit: int) -> str | None:
        if fd is None:
            return None
        data = b""
        while len(data) < limit:
            chunk_end = (address + len(data) + 4096) & ~4095  # never read across a page that may not be mapped
            try:
                chunk = os.pread(fd, chunk_end - address - len(data), address + len(data))
            except OSError:
                return None
            if not chunk:
                return None
            data += chunk
            if b"\0" in chunk:
                return data.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        return None

    def _flags(self, pid: int, name: str, args: tuple[int, ...]) -> int | None:
        if name == "open":
            return args[1]
        if name == "creat":
            return os.O_CREAT | os.O_WRONLY | os.O_TRUNC
        if name == "openat":
            return args[2]
        fd = self.memory.get(pid)  # openat2: the flags are the first field of its struct open_how
        try:
            return int.from_bytes(os.pread(fd, 8, args[2]), sys.byteorder) if fd is not None else None
        except OSError:
            return None

    def _path(self, pid: int, address: int, dirfd: int = -100) -> str | None:
        """The path at ``address`` of the caller's memory, read once, made absolute (``dirfd``: AT_FDCWD or an fd of
        the caller's); None if unreadable (the caller is gone)."""
        text = self._text(pid, address)
        if text and not text.startswith("/"):
            try:
                text = os.path.join(os.readlink(f"/proc/{pid}/cwd" if dirfd == -100 else f"/proc/{pid}/fd/{dirfd}"), text)
            except OSError:
                return None
        return text or None

    def _in_shm(self, pid: int, path: str | None) -> str | None:
        """The name ``path`` has directly in the machine's /dev/shm (its folder resolved as the caller sees it, the name
        itself not followed), or None."""
        if path is None or self.shm_fd is None:
            return None
        folder, name = os.path.split(path)
        return name if name not in ("", ".", "..") and _resolved_for(folder, pid, _thread_group(pid)) == self.shm else None

    def _record(self, name: str, fd: int | None = None) -> None:
        if len(self.created_in_shm) < MAX_SHM_ENTRIES:
            info = os.fstat(fd) if fd is not None else os.lstat(name, dir_fd=self.shm_fd)
            self.created_in_shm.update((name, _file_id(info)))

    def _ours(self, name: str) -> tuple[int, int, int] | None:
        """The file ``name`` of the machine's /dev/shm if the keeper made it for this worker and holds it
        (:class:`_KeptShmFiles`), else None: another grading's (its semaphores, its shared memory), or anyone's."""
        with contextlib.suppress(OSError):
            file = _file_id(os.lstat(name, dir_fd=self.shm_fd))
            if self.kept_shm is not None and file in self.kept_shm.fds:
                return file
        return None

    def _open_ours(self, name: str, flags: int) -> int:
        """An fd of the file ``name`` of the machine's /dev/shm, opened with ``flags`` (no O_CREAT), if it is this
        worker's (:meth:`_ours`, by the file opened); else ``-EACCES``, noted in :attr:`foreign`, or ``-errno``."""
        try:  # (truncated once known to be this worker's: another's is left as it was)
            fd = os.open(name, flags & ~os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=self.shm_fd)
        except OSError as error:
            return -(error.errno or _EACCES)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or self.kept_shm is None or _file_id(info) not in self.kept_shm.fds:
            os.close(fd)
            self.foreign = True
            return -_EACCES
        if flags & os.O_TRUNC:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
        os.set_blocking(fd, bool(~flags & os.O_NONBLOCK))
        return fd

    def made_in_shm(self, pid: int, nr: int, args: tuple[int, ...]) -> int | None:
        """A file made in the machine's /dev/shm (an open with O_CREAT, or a link there), made by the keeper, which
        then records it by name and inode (Landlock lets the worker make none there itself, :func:`confinement.confine`):
        an open's answer is the fd (for the caller, :data:`_NOTIF_ADDFD`), a link's 0; ``-errno`` if refused; None
        for any other call (it goes on as asked, and Landlock refuses it a new name in /dev/shm). The paths are read
        once: a thread that swaps them cannot have another name recorded than the one made, and a link made of the
        file later is recorded too, so neither escapes the cleaning (:func:`keep`). Regular files only, no link
        followed in /dev/shm, as Landlock allowed the worker there. The files there that it did not make for this worker
        (another grading's, whose names a listing shows) are opened and unlinked by no process of it: an open without
        O_CREAT and an unlink in /dev/shm are made by the keeper too, of this worker's own files only, else refused
        with EACCES and counted (section 82: a classmate's grading read another's file there, and could unlink a pool's
        semaphore between its making and its own unlink, which then raises)."""
        self.foreign = False
        if self.shm_fd is None or (nr not in self.calls and nr not in self.links and nr not in self.unlinks):
            return None
        if nr in self.unlinks:
            unlinkat = nr == self.unlinks[-1]
            if unlinkat and args[2] & 0x200:  # AT_REMOVEDIR: no folder of the worker's there (Landlock decides)
                return None
            gone = self._in_shm(pid, self._path(pid, args[1] if unlinkat else args[0],
                                                ctypes.c_int32(args[0] & 0xFFFFFFFF).value if unlinkat else -100))
            if gone is None:
                return None
            if self._ours(gone) is None:
                self.foreign = True
                return -_EACCES
            try:
                os.unlink(gone, dir_fd=self.shm_fd)
            except OSError as error:
                return -(error.errno or _EACCES)
            return 0
        name, linkat = self.calls.get(nr, "link"), nr == self.links[-1]
        at = ctypes.c_int32(args[0] & 0xFFFFFFFF).value if linkat or name.startswith("openat") else -100
        if name == "link":
            new_at = ctypes.c_int32(args[2] & 0xFFFFFFFF).value if linkat else -100
            old = self._in_shm(pid, self._path(pid, args[1] if linkat else args[0], at))
            new = self._in_shm(pid, self._path(pid, args[3] if linkat else args[1], new_at))
            if old is None or new is None:
                return None
            if self.kept_shm is not None and self._ours(old) is None and os.path.lexists(os.path.join(self.shm, old)):
                self.foreign = True  # another grading's file: no name of this worker's for it
                return -_EACCES
            with self.kept_shm.lock if self.kept_shm is not None else contextlib.nullcontext():
                if self.kept_shm is not None and self.kept_shm.closed:
                    return -_ENOSPC  # the worker is being stopped: no name made after the cleaning (section 87)
                try:
                    if not stat.S_ISREG(os.lstat(old, dir_fd=self.shm_fd).st_mode):
                        return -_EPERM
                    os.link(old, new, src_dir_fd=self.shm_fd, dst_dir_fd=self.shm_fd, follow_symlinks=False)
                except OSError as error:
                    return -(error.errno or _EACCES)
                self._record(new)
            return 0
        flags = self._flags(pid, name, args)
        if flags is None:
            return None
        made = self._in_shm(pid, self._path(pid, args[1] if name.startswith("openat") else args[0], at))
        if made is None:
            return None
        if not flags & os.O_CREAT:  # a file there opened: this worker's own only, opened by the keeper
            return self._open_ours(made, flags)
        mode = (args[2] if name == "open" else args[1] if name == "creat" else args[3] if name == "openat" else
                int.from_bytes(os.pread(self.memory[pid], 8, args[2] + 8), sys.byteorder)) & 0o7777
        if name == "creat":
            flags = os.O_CREAT | os.O_WRONLY | os.O_TRUNC
        with self.kept_shm.lock if self.kept_shm is not None else contextlib.nullcontext():
            if self.kept_shm is not None and self.kept_shm.closed:
                return -_ENOSPC  # the worker is being stopped: no file made after the cleaning's record
            try:  # a new file; one that is there already is opened as above, if this worker's
                fd = os.open(made, flags | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=self.shm_fd)
            except FileExistsError:
                return -_EEXIST if flags & os.O_EXCL else self._open_ours(made, flags & ~os.O_CREAT)
            except OSError as error:
                return -(error.errno or _EACCES)
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # a fifo or a device someone else made there: as Landlock answers
                os.close(fd)
                return -_EACCES
            os.set_blocking(fd, bool(~flags & os.O_NONBLOCK))
            self._record(made, fd)
            if self.kept_shm is not None and not self.kept_shm.keep(fd):
                os.close(fd)  # (the name made is recorded: removed at the end)
                return -_ENOSPC
        return fd

    def refused(self, pid: int, nr: int, args: tuple[int, ...]) -> str | None:
        """``"read PATH"`` or ``"write PATH"`` if Landlock will refuse this open, else None."""
        self.opens += 1
        name = self.calls[nr]
        text = self._path(pid, args[1] if name.startswith("openat") else args[0],
                          ctypes.c_int32(args[0] & 0xFFFFFFFF).value if name.startswith("openat") else -100)
        flags = self._flags(pid, name, args)
        if not text or flags is None or flags & getattr(os, "O_PATH", 0):
            if not text or flags is None:
                self.start_up_over(pid)
            return None  # unreadable (the caller is gone), or an O_PATH open, which Landlock does not check
        tgid = _thread_group(pid)  # (pid is the calling thread's)
        path = _resolved_for(text, pid, tgid)  # /proc/self the caller's, not the keeper's
        if not flags & getattr(os, "O_DIRECTORY", 0):  # a folder listed (by the import system) reads no bytes
            self.start_up_over(pid, text, path)
        writes = flags & os.O_ACCMODE != os.O_RDONLY or bool(flags & (os.O_CREAT | os.O_TRUNC))
        if flags & os.O_CREAT and os.path.dirname(path) == self.shm and len(self.created_in_shm) < MAX_SHM_ENTRIES:
            self.created_in_shm.add(os.path.basename(path))
        if not os.path.exists(path):
            if not flags & os.O_CREAT:
                return None  # "no such file": refused by no one
            allowed = _beneath(os.path.dirname(path), self.write)
        elif writes:
            allowed = _beneath(path, self.write)
        else:
            folder = os.path.isdir(path)
            allowed = (_beneath(path, self.read + self.write) or (folder and _beneath(path, self.listed))
                       or (not folder and _beneath(path, self.files)))
        name_only = os.path.basename(path)
        # its own /proc entries (a child closing its fds lists them), once resolved: /proc/self/../1 is another's
        own = path.startswith("/proc/") and _beneath(path, [f"/proc/{pid}", f"/proc/{tgid}"])
        if allowed or _beneath(path, self.probes) or own or (
                name_only.startswith("libpython") and ".so" in name_only):
            return None
        return f"{'write' if writes else 'read'} {path[:160]}"


class _Connects:
    """The connect() calls of the worker's processes (where the lab allows processes), made by the keeper.

    Landlock (up to ABI 7) does not stop a connect() to a unix socket file outside, and letting a
    notified call go on would trust an address another thread can change after the keeper read it.
    So the keeper reads the address once, opens the socket file beneath the scratch folder (``openat2``,
    ``RESOLVE_BENEATH``), takes the caller's socket (``pidfd_getfd``) and connects it there itself.
    Any other address is refused and counted; abstract names too (none of multiprocessing's).
    A connect that waits (a listener's full backlog) holds the keeper's other answers until it ends,
    or until the worker is killed at its deadline: it costs the learner's time only."""

    _PIDFD_OPEN, _PIDFD_GETFD, _OPENAT2 = 434, 438, 437  # the same on x86_64 and arm64
    _RESOLVE_NO_MAGICLINKS, _RESOLVE_BENEATH = 0x02, 0x08

    def __init__(self, policy: dict, watch: _FileWatch) -> None:
        self.scratch = os.path.realpath(policy.get("scratch", "/nonexistent"))
        self.watch = watch
        self.libc = _libc()

    def answer(self, pid: int, args: tuple[int, ...], still_waiting) -> tuple[int, str | None]:
        """``(errno or 0, what to count as refused or None)`` for ``connect(args[0], args[1], args[2])``."""
        size = args[2] & 0xFFFFFFFF
        if not 2 <= size <= 110:  # sizeof(struct sockaddr_un)
            return 22, None  # EINVAL, as the kernel answers
        address = self.watch.read_bytes(pid, args[1], size)
        if address is None:
            return 14, None  # EFAULT
        family = int.from_bytes(address[:2], sys.byteorder)
        if family != 1:
            return _EACCES, f"connect({_SOCKET_FAMILIES.get(family, f'family {family}')})"
        name = address[2:]
        if not name:
            return 22, None
        if name[0] == 0:
            return _EACCES, "connect(an abstract unix socket)"
        path = name.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        if not path.startswith("/"):
            try:
                path = os.path.join(os.readlink(f"/proc/{pid}/cwd"), path)
            except OSError:
                return 3, None  # ESRCH: the caller is gone
        if not path.startswith(self.scratch + "/"):
            return _EACCES, f"connect(unix socket {path[:160]})"
        return self._connect(pid, args[0], path[len(self.scratch) + 1:], still_waiting)

    def _connect(self, pid: int, fd: int, relative: str, still_waiting) -> tuple[int, str | None]:
        opened = []
        try:
            how = (ctypes.c_uint64 * 3)(os.O_PATH | os.O_CLOEXEC, 0, self._RESOLVE_BENEATH | self._RESOLVE_NO_MAGICLINKS)
            folder = os.open(self.scratch, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            opened.append(folder)
            target = self.libc.syscall(self._OPENAT2, folder, relative.encode("utf-8", "surrogateescape"),
                                       ctypes.byref(how), ctypes.c_size_t(24))
            if target < 0:
                error = ctypes.get_errno()
                if error in (18, 40):  # EXDEV, ELOOP: out of the scratch folder, by ".." or a link
                    return _EACCES, f"connect(unix socket {os.path.join(self.scratch, relative)[:160]})"
                return error, None  # ENOENT and the like, as the kernel would answer
            opened.append(target)
            if not stat.S_ISSOCK(os.fstat(target).st_mode):
                return 111, None  # ECONNREFUSED, as the kernel answers for a file that is no socket
            # pid is the calling thread's, and pidfd_open takes a process (a thread's pid is EINVAL
            # before Linux 6.9): its threads share the fd table, so the process's is the caller's.
            pidfd = self.libc.syscall(self._PIDFD_OPEN, _thread_group(pid), 0)
            if pidfd < 0:
                return 3, None
            opened.append(pidfd)
            if not still_waiting():  # the pid is the caller's (not reused) only while its call waits
                return 3, None
            caller = self.libc.syscall(self._PIDFD_GETFD, pidfd, ctypes.c_int32(fd & 0xFFFFFFFF).value, 0)
            if caller < 0:
                return ctypes.get_errno(), None  # EBADF: no such fd
            opened.append(caller)  # closed below whatever it is: a pipe's copy kept here, per call, ran the keeper out of fds
            if not stat.S_ISSOCK(os.fstat(caller).st_mode):
                return 88, None  # ENOTSOCK, as the kernel answers
            import socket

            sock = socket.socket(fileno=caller)  # the caller's socket (seccomp lets it make AF_UNIX only)
            try:
                sock.connect(f"/proc/self/fd/{target}")  # the file opened above, not the path again
            except OSError as error:
                return error.errno or 22, None
            finally:
                sock.detach()  # its fd is closed with the others
            return 0, None
        finally:
            for fd_opened in opened:
                os.close(fd_opened)


class _Sends:
    """The sendmsg() calls of the worker's processes (where the lab allows processes), made by the keeper.

    A file passed in a message (SCM_RIGHTS) and closed by its sender is held by the receiving socket's queue, in no
    process's fd table: a memfd sent on a socketpair to itself escaped every limit of storage (section 53). Checking
    the message and letting the call go on would trust memory another thread can change after the keeper read it; so
    the keeper reads the message once (its bytes, 1 MiB at most a call, and its fds), takes the caller's socket and each
    fd (``pidfd_getfd``), refuses a regular file (a memfd, a file of the scratch folder, which could be unlinked in
    flight, one made ``O_TMPFILE``) unless it is of the worker's own /dev/shm, whose tmpfs bounds it, and sends what it
    read and took itself. The sender the receiver sees (``SO_PASSCRED``) is the keeper; ``SCM_CREDENTIALS`` is
    refused, and any other control message. A send that would block waits in a thread of its own, never holding the
    keeper's other answers. Fds in flight are then pipes, sockets (whose queues hold what the keeper sent) and the
    like, each holding what its buffer holds: the keeper records each socket and pipe before it sends it (:meth:`record`),
    and the trusted side counts their queues in the worker's memory limit; past the records' slots, a send is refused."""

    MAX_BYTES = 1 << 20  # a call's bytes the keeper sends: a stream socket's send may take fewer than asked
    MAX_CONTROL = 1 << 16  # ENOBUFS past it (the kernel's optmem_max is 20 KiB to 128 KiB)
    MAX_WAITING = 64  # sends that wait at once, each in a thread of the keeper's; past it EAGAIN (no honest send waits)
    _MSG_DONTWAIT, _MSG_NOSIGNAL = 0x40, 0x4000

    def __init__(self, policy: dict, watch: _FileWatch, listener: int) -> None:
        self.watch, self.listener, self.libc = watch, listener, _libc()
        self.shm_dev = policy.get("shm_dev")  # the private /dev/shm's device (keep), or None
        self.waiting = threading.BoundedSemaphore(self.MAX_WAITING)
        self.slots: dict[tuple[int, int, int], int] = {}  # (kind, inode, receiver) -> its slot in mapped_fd (record)
        self.used = 0  # slots used so far, the highest

    def record(self, taken: list[int]) -> bool:
        """Write the sockets and pipes among ``taken[1:]`` (the fds a message passes) in ``mapped_fd``'s slots, with the
        socket they go to (the peer of the sender, ``taken[0]``), before they are sent: in flight they are in no process's
        fd table, and the trusted side counts their queues with the worker's memory (:func:`.measure_worker.queued_bytes`:
        a socket's own, read from the kernel; a pipe's capacity while the socket it went to has bytes not read). When the
        slots are all used, those of files no longer in flight are freed (a socket the kernel no longer has, a pipe whose
        receiver has read all or is gone); False when none is: the send is refused (the kernel's own error for too many
        files in flight), so no file in flight goes unrecorded."""
        mapped = self.watch.mapped_fd
        kinds = [stat.S_ISSOCK(mode) or 2 * stat.S_ISFIFO(mode) for mode in (os.fstat(copy).st_mode for copy in taken[1:])]
        if mapped is None or not any(kinds):
            return True
        sender = unix_sockets(os.fstat(taken[0]).st_ino & 0xFFFFFFFF) or {}
        receiver = next(iter(sender.values()))[1] if sender else 0
        # a socket once (the kernel has it or not); a pipe once for each socket it went to (its liveness is theirs)
        files = {(int(kind), os.fstat(copy).st_ino & 0xFFFFFFFF, receiver if kind == 2 else 0)
                 for kind, copy in zip(kinds, taken[1:]) if kind}
        new = sorted(files - set(self.slots))
        free = list(range(self.used, IN_FLIGHT_SLOTS))[:len(new)]
        if len(free) < len(new):
            free = self._free_slots()[:len(new)]
            if len(free) < len(new):
                return False  # nothing recorded: the message is not sent
        for file, slot in zip(new, free):
            self.slots[file] = slot
            os.pwrite(mapped, struct.pack("=IIII", *file, 0), IN_FLIGHT_AT + 8 + 16 * slot)
            if slot >= self.used:
                self.used = slot + 1
                os.pwrite(mapped, self.used.to_bytes(8, "little"), IN_FLIGHT_AT)
        return True

    def _free_slots(self) -> list[int]:
        """The slots free once those of files no longer in flight are freed (none where the kernel gives no sockets)."""
        table = unix_sockets()
        if table is None:
            return []
        for (kind, inode, receiver), slot in list(self.slots.items()):
            if not ((inode in table) if kind == 1 else (receiver in table and table[receiver][3])):
                del self.slots[(kind, inode, receiver)]
                os.pwrite(self.watch.mapped_fd, bytes(16), IN_FLIGHT_AT + 8 + 16 * slot)
        taken = set(self.slots.values())
        return [slot for slot in range(IN_FLIGHT_SLOTS) if slot not in taken]

    def respond(self, notif_id: int, value: int, error: int) -> None:
        """Answer call ``notif_id`` (from any thread: each answer is its own structure)."""
        answer = _SeccompNotifResp(notif_id, value, -error, 0)
        self.libc.ioctl(self.listener, ctypes.c_ulong(_NOTIF_SEND), ctypes.byref(answer))  # ENOENT: the caller is gone

    def _message(self, pid: int, address: int) -> tuple[int, bytes, list[int], str | None] | int:
        """``(name length, bytes, fds, what to refuse)`` of the ``struct msghdr`` at ``address``, read once; or an errno."""
        import struct

        header = self.watch.read_bytes(pid, address, 56)
        if header is None:
            return 14  # EFAULT
        _, name_length, vectors, count, control, control_length = struct.unpack("=QI4xQQQQ", header[:48])
        if count > 1024:  # UIO_MAXIOV
            return 90  # EMSGSIZE
        data = bytearray()
        listed = self.watch.read_bytes(pid, vectors, 16 * count) if count else b""
        if listed is None:
            return 14
        for base, length in struct.iter_unpack("=QQ", listed):
            length = min(length, self.MAX_BYTES - len(data))
            if length:
                chunk = self.watch.read_bytes(pid, base, length)
                if chunk is None:
                    return 14
                data += chunk
        fds, refused = [], None
        if control_length > self.MAX_CONTROL:
            return 105  # ENOBUFS
        ancillary = self.watch.read_bytes(pid, control, control_length) if control_length else b""
        if ancillary is None:
            return 14
        at = 0
        while at + 16 <= len(ancillary):  # struct cmsghdr: size_t length, int level, int type; then its data
            length, level, kind = struct.unpack_from("=Qii", ancillary, at)
            if length < 16 or at + length > len(ancillary):
                return 22  # EINVAL
            if (level, kind) == (1, 1):  # SOL_SOCKET, SCM_RIGHTS
                fds += [fd for (fd,) in struct.iter_unpack("=i", ancillary[at + 16:at + 16 + (length - 16) // 4 * 4])]
            elif (level, kind) == (1, 2):  # SCM_CREDENTIALS: the keeper's own would be sent, not the caller's
                refused = "sendmsg(SCM_CREDENTIALS)"
            else:
                return 22
            at += (length + 7) & ~7
        if len(fds) > 253:  # SCM_MAX_FD
            return 22
        return name_length, bytes(data), fds, refused

    def answer(self, notif_id: int, pid: int, args: tuple[int, ...], still_waiting) -> tuple[int, int, str | None] | None:
        """``(value, errno or 0, what to count as refused or None)`` for ``sendmsg(args[0], args[1], args[2])``, or None
        where a thread of its own answers it once the socket takes it."""
        message = self._message(pid, args[1])
        if isinstance(message, int):
            return 0, message, None
        name_length, data, fds, refused = message
        if refused:
            return 0, _EPERM, refused
        if name_length:  # a stream socket's send takes no address (the only sockets the filter lets be made)
            return 0, 106, None  # EISCONN
        opened = []
        try:
            pidfd = self.libc.syscall(_Connects._PIDFD_OPEN, _thread_group(pid), 0)
            if pidfd < 0:
                return 0, 3, None  # ESRCH
            opened.append(pidfd)
            if not still_waiting():  # the pid is the caller's (not reused) only while its call waits
                return 0, 3, None
            taken = []
            for fd in [args[0], *fds]:
                copy = self.libc.syscall(_Connects._PIDFD_GETFD, pidfd, ctypes.c_int32(fd & 0xFFFFFFFF).value, 0)
                if copy < 0:
                    return 0, ctypes.get_errno(), None  # EBADF: no such fd
                opened.append(copy)
                taken.append(copy)
            if not stat.S_ISSOCK(os.fstat(taken[0]).st_mode):
                return 0, 88, None  # ENOTSOCK
            for copy in taken[1:]:
                info = os.fstat(copy)
                if stat.S_ISREG(info.st_mode) and (self.shm_dev is None or info.st_dev != self.shm_dev):
                    return 0, _EPERM, "sendmsg(SCM_RIGHTS of a memfd or a file outside a private /dev/shm)"
            if not self.record(taken):
                return 0, 109, "sendmsg(SCM_RIGHTS of more files than the keeper records in flight)"  # ETOOMANYREFS
            flags = (args[2] & 0xFFFFFFFF) | self._MSG_NOSIGNAL  # EPIPE, not SIGPIPE for the keeper
            sent = self._send(taken, data, flags)
            if sent is not None:
                return sent
            if not self.waiting.acquire(blocking=False):
                return 0, 11, None  # EAGAIN
            threading.Thread(target=self._wait_and_send, args=(notif_id, taken, data, flags, still_waiting, opened[:]),
                             daemon=True).start()
            opened.clear()  # the thread closes them
            return None
        finally:
            for fd in opened:
                os.close(fd)

    def _send(self, taken: list[int], data: bytes, flags: int) -> tuple[int, int, None] | None:
        """Send now, never waiting: the outcome, or None where the caller's socket is a blocking one that is full."""
        import array
        import socket

        sock = socket.socket(fileno=taken[0])
        try:
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", taken[1:]).tobytes())] if taken[1:] else []
            return sock.sendmsg([data], rights, flags | self._MSG_DONTWAIT), 0, None
        except BlockingIOError:
            if flags & self._MSG_DONTWAIT or not os.get_blocking(taken[0]):
                return 0, 11, None  # EAGAIN, as the caller asked
            return None
        except OSError as error:
            return 0, error.errno or 22, None
        finally:
            sock.detach()  # its fd is closed by the caller of this

    def _wait_and_send(self, notif_id: int, taken: list[int], data: bytes, flags: int, still_waiting,
                       opened: list[int]) -> None:
        """A blocking send: wait until the socket can take it (or its ``SO_SNDTIMEO`` passes: EAGAIN), while the caller
        waits for its answer."""
        import select
        import socket
        import struct

        try:
            timeout = 0.0
            with contextlib.suppress(OSError):
                probe = socket.socket(fileno=taken[0])
                try:
                    seconds, micros = struct.unpack("=qq", probe.getsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, 16))
                    timeout = seconds + micros / 1e6
                finally:
                    probe.detach()
            deadline = time.monotonic() + timeout if timeout > 0 else None
            ready = select.poll()
            ready.register(taken[0], select.POLLOUT)
            while still_waiting():
                if deadline is not None and time.monotonic() > deadline:
                    self.respond(notif_id, 0, 11)  # EAGAIN, as the kernel answers a send past SO_SNDTIMEO
                    return
                if ready.poll(100):
                    outcome = self._send(taken, data, flags)
                    if outcome is not None:
                        self.respond(notif_id, outcome[0], outcome[1])
                        return
        except Exception:  # a case not foreseen: answered all the same
            self.respond(notif_id, 0, _EPERM)
        finally:
            for fd in opened:
                os.close(fd)
            self.waiting.release()


def _guarded(function, default, *args):
    """``function(*args)``, or ``default`` if it raised: a case the keeper did not foresee must not stop its answers."""
    try:
        return function(*args)
    except Exception:
        return default


def _listener_of(handoff, worker: int) -> int | None:
    """The worker's notification fd: sent on ``handoff`` (before Linux 5.6), or taken from the worker with
    ``pidfd_getfd`` at the number it wrote there (the filter refuses its sendmsg then, or sends it here), which the
    worker waits to hear taken (``k``) before it closes its copy. None: it had none to hand over."""
    import socket

    taken = None
    try:
        message, fds, _, _ = socket.recv_fds(handoff, 64, 1)
        if fds:
            return fds[0]
        if not message.startswith(b"listener "):
            return None
        libc = _libc()
        pidfd = libc.syscall(_Connects._PIDFD_OPEN, worker, 0)
        if pidfd >= 0:
            try:
                taken = libc.syscall(_Connects._PIDFD_GETFD, pidfd, int(message.split()[1]), 0)
            finally:
                os.close(pidfd)
        return taken if taken is not None and taken >= 0 else None
    except (OSError, ValueError):
        return None
    finally:
        with contextlib.suppress(OSError):
            handoff.send(b"k" if taken is not None and taken >= 0 else b"n")  # (the worker that sent it waits for none)
        handoff.close()


def _count_refusals(handoff, refused: dict[str, int], files: dict[str, int], policy: dict, stats: dict,
                    created_in_shm: set[str], worker: int, kept_shm: _KeptShmFiles | None = None) -> None:
    """The keeper's thread: receive the worker's notification fd on ``handoff`` (:func:`_listener_of`), then answer
    every call the filter refused with its error (never "continue"), counted in ``refused``; let opens and mmaps go
    on, counting in ``files`` the opens Landlock will refuse and in ``created_in_shm`` the names they create in
    /dev/shm; make the connects (:class:`_Connects`) and the sendmsgs (:class:`_Sends`).
    The names kept are bounded; a learner who loops on a refused call pays one answer per call."""
    listener = _listener_of(handoff, worker)
    if listener is None:
        return  # the worker had no notifications to hand over (the kernel answers refused calls itself)
    libc = _libc()
    notif, answer = _SeccompNotif(), _SeccompNotifResp()
    machine = platform.machine()
    arch, numbers = _SECCOMP_ARCH[machine]
    watch = _FileWatch(policy, numbers, created_in_shm, kept_shm)
    connects = _Connects(policy, watch)
    sends = _Sends(policy, watch, listener) if policy.get("allow_processes") else None
    forks = {numbers[name] for name in ("fork", "vfork", "clone") if numbers[name] is not None}
    most_tasks = int(policy.get("max_tasks", 512))  # threads of the worker's processes together, at once
    most_processes = int(policy.get("max_processes", 64))  # the worker's processes (the worker not counted), at once
    starts_up = [numbers[name] for name in ("execve", "execveat", "recvmsg", "recvmmsg", "pidfd_getfd")]
    epoll_items = 0  # added by the worker's processes (where it allows processes: the filter sends them)

    def waiting(notif_id: int) -> bool:
        """Whether the call ``notif_id`` still waits for its answer (its caller alive, its pid not reused)."""
        request_id = ctypes.c_uint64(notif_id)
        return libc.ioctl(listener, ctypes.c_ulong(_NOTIF_ID_VALID), ctypes.byref(request_id)) == 0

    def count(counts: dict[str, int], name: str, other: str) -> None:
        if name not in counts and len(counts) >= MAX_REFUSAL_NAMES:
            name = other
        counts[name] = counts.get(name, 0) + 1

    try:
        while True:
            ctypes.memset(ctypes.byref(notif), 0, ctypes.sizeof(notif))  # the kernel wants it zeroed
            if libc.ioctl(listener, ctypes.c_ulong(_NOTIF_RECV), ctypes.byref(notif)) != 0:
                if ctypes.get_errno() in (4, 2):  # EINTR; ENOENT: the caller was killed meanwhile
                    continue
                return
            started = time.perf_counter()
            args = tuple(notif.data.args)
            answer.id, answer.val, answer.error, answer.flags = notif.id, 0, 0, 0
            # What the keeper reads from the caller (a path, an fd, an address) is counted only if the caller
            # still waited then (its pid not reused); whatever this code did not foresee is answered all the same.
            ours = notif.data.arch == arch
            made = _guarded(watch.made_in_shm, None, notif.pid, notif.data.nr, args) if ours else None
            if made is not None and made > 0 and notif.data.nr in watch.calls:  # the file made, given as the answer
                addfd = _SeccompNotifAddfd(notif.id, _ADDFD_FLAG_SEND, made, 0, os.O_CLOEXEC if
                                           _guarded(watch._flags, 0, notif.pid, watch.calls[notif.data.nr], args) & os.O_CLOEXEC else 0)
                given = libc.ioctl(listener, ctypes.c_ulong(_NOTIF_ADDFD), ctypes.byref(addfd))
                os.close(made)
                if given >= 0 or ctypes.get_errno() == 2:  # answered, or the caller is gone (ENOENT)
                    continue
                answer.error = -ctypes.get_errno()
            elif made is not None:  # a link made (0) or a refusal
                answer.error = made
                if watch.foreign and waiting(notif.id):
                    count(refused, "open or unlink of another grading's file in /dev/shm", "other refused calls")
            elif ours and (notif.data.nr in watch.links or notif.data.nr in watch.unlinks):
                answer.flags = _USER_NOTIF_FLAG_CONTINUE  # not into /dev/shm: Landlock decides
            elif ours and notif.data.nr in watch.calls:
                answer.flags = _USER_NOTIF_FLAG_CONTINUE  # Landlock decides
                refused_open = _guarded(watch.refused, None, notif.pid, notif.data.nr, args)
                if refused_open and waiting(notif.id):
                    count(files, refused_open, "other files")
            elif ours and notif.data.nr in (numbers["mmap"], numbers["mremap"]) and not (
                    notif.data.nr == numbers["mmap"] and (args[3] & _MAP_SHARED_ANONYMOUS == _MAP_SHARED_ANONYMOUS
                                                          or args[3] & _MAP_HUGETLB)):
                # (shared anonymous memory and huge pages, which the filter sends as refusals, are refused below:
                # sections 76 and 83)
                answer.flags = _USER_NOTIF_FLAG_CONTINUE  # mapped as asked; counted
                mapped = _guarded(watch.mapped_file if notif.data.nr == numbers["mmap"] else watch.remapped_file, 0,
                                  notif.pid, args)
                if mapped and waiting(notif.id):
                    watch.count(0, mapped)
                    tgid = _thread_group(notif.pid)
                    watch.mapped_by[tgid] = watch.mapped_by.get(tgid, 0) + mapped
            elif ours and policy.get("allow_processes") and notif.data.nr in starts_up:
                answer.flags = _USER_NOTIF_FLAG_CONTINUE  # an exec, or an fd received: what the process read since
                (_guarded(watch.executed, None, notif.pid) if notif.data.nr in starts_up[:2]
                 else _guarded(watch.start_up_over, None, notif.pid))
            elif ours and policy.get("allow_processes") and notif.data.nr == numbers["exit_group"]:
                answer.flags = _USER_NOTIF_FLAG_CONTINUE  # it ends as asked, once its reads are recorded
                if waiting(notif.id):
                    _guarded(watch.log_exit, None, notif.pid)
            elif ours and policy.get("allow_processes") and notif.data.nr == numbers["rt_sigaction"]:
                refused_action = _guarded(watch.reaped_alone, "rt_sigaction(SIGCHLD, unread)", notif.pid, args)
                if refused_action is None:
                    answer.flags = _USER_NOTIF_FLAG_CONTINUE
                else:
                    answer.error = -_EPERM
                    if waiting(notif.id):
                        count(refused, refused_action, "other refused calls")
            elif ours and notif.data.nr == numbers["clone"] and args[0] & _CLONE_THREAD and args[0] & _CLONE_FILES:
                # (a thread without CLONE_FILES, an fd table of its own, is refused below: section 75)
                # A thread (the filter sends them here only where this can answer "go on"): each is a pid of the
                # machine's, which a worker of unbounded threads took from a classmate graded beside it (section 63).
                # Calls let go on meanwhile may not have made their thread yet: at most about twice the bound.
                if _guarded(_tasks_under, 0, os.getpid()) < most_tasks:
                    answer.flags = _USER_NOTIF_FLAG_CONTINUE
                else:
                    answer.error = -_EAGAIN  # as the kernel's own limits answer: Python raises "can't start new thread"
                    if waiting(notif.id):
                        count(refused, f"clone(a thread past {most_tasks} at once)", "other refused calls")
            elif ours and policy.get("allow_processes") and notif.data.nr == numbers["epoll_ctl"]:  # an item added
                epoll_items += 1
                if epoll_items <= MOST_EPOLL_ITEMS:
                    answer.flags = _USER_NOTIF_FLAG_CONTINUE
                else:
                    answer.error = -_ENOSPC
                    if waiting(notif.id):
                        count(refused, f"epoll_ctl(an item past {MOST_EPOLL_ITEMS})", "other refused calls")
            elif ours and policy.get("allow_processes") and notif.data.nr in forks:
                # A new process (a thread is answered above), bounded here as threads are: the watch that kills the
                # worker past max_processes looks every 0.1 s, and a fork bomb on a loaded machine held 565 processes
                # before it looked (verify49). Calls let go on meanwhile may not have made their process yet.
                if (_guarded(_tasks_under, 0, os.getpid(), True) - 1 < most_processes  # the worker itself not counted
                        and _guarded(_tasks_under, 0, os.getpid()) < most_tasks):
                    answer.flags = _USER_NOTIF_FLAG_CONTINUE
                    watch.count(1, 1)
                else:
                    answer.error = -_EAGAIN  # as the kernel's RLIMIT_NPROC answers: Python raises BlockingIOError
                    if waiting(notif.id):
                        count(refused, f"fork(a process past {most_processes} at once)", "other refused calls")
            elif ours and sends is not None and notif.data.nr == numbers["sendmsg"]:  # made here (section 53)
                outcome = _guarded(sends.answer, (0, _EPERM, "sendmsg(a message the keeper could not read)"), notif.id,
                                   notif.pid, args, functools.partial(waiting, notif.id))
                if outcome is None:
                    continue  # answered by the thread that waits for the socket to take it (_Sends.answer)
                answer.val, error, refused_send = outcome
                if refused_send and waiting(notif.id):
                    count(refused, refused_send, "other refused calls")
                answer.error = -error
            elif ours and notif.data.nr == numbers["connect"]:  # not foreseen: refused, not made
                error, refused_connect = _guarded(connects.answer, (_EACCES, "connect(an address the keeper could not read)"),
                                                  notif.pid, args, functools.partial(waiting, notif.id))
                if refused_connect and waiting(notif.id):
                    count(refused, refused_connect, "other refused calls")
                answer.error = -error
            else:
                name, error = _guarded(refusal, (f"system call #{notif.data.nr}", _EPERM), notif.data.arch, notif.data.nr, args, machine)
                count(refused, name, "other refused calls")
                answer.error = -error
            libc.ioctl(listener, ctypes.c_ulong(_NOTIF_SEND), ctypes.byref(answer))  # ENOENT if the caller died: fine
            stats["notified_opens"] = watch.opens
            stats["seconds"] = stats.get("seconds", 0.0) + time.perf_counter() - started
    finally:
        os.close(listener)  # from now on the kernel answers every notified call itself (ENOSYS)


def keep(policy: dict, control_fd: int, report_fd: int):
    """Become the worker's keeper (Linux): a child subreaper that forks the worker, counts and limits the
    processes under it and, when the worker exits or the control pipe closes, kills them all, cleans
    /dev/shm, reports and exits; it answers the filter's notifications (:func:`_count_refusals`). Where the lab
    allows processes, the worker gets a /dev/shm of its own first where the kernel allows (:func:`_private_shm`).
    Returns, in the worker only, the socket to hand the notification fd over on (:func:`seccomp`).
    The confined worker can neither signal nor trace it (Landlock scopes both from ABI 6)."""
    libc = _libc()
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_CHILD_SUBREAPER failed")
    shm_before = _shm_entries() if policy.get("allow_processes") else {}
    started_at = time.time()
    import socket
    import threading

    keeper_end, worker_end = socket.socketpair()  # the seccomp filter's notification fd comes this way
    worker = os.fork()
    if worker == 0:
        os.close(control_fd)
        os.close(report_fd)
        if policy.get("mapped_fd") is not None:
            os.close(policy["mapped_fd"])  # the keeper's counter: the worker never holds it
        keeper_end.close()
        if policy.get("allow_processes"):
            _private_shm_handshake(worker_end, policy)
        return worker_end  # the child goes on to be the worker
    worker_end.close()
    shm_folder = _open_private_shm(keeper_end, worker) if policy.get("allow_processes") else None
    policy["shm_by_keeper"] = _shm_by_keeper(policy) and shm_folder is None
    # the bytes of the files it makes there, bounded as a /dev/shm of the worker's own would be (file_mb where none was
    # asked for): section 79
    shm_megabytes = int(policy.get("shm_mb", 256)) if int(policy.get("shm_mb", 256)) > 0 else int(policy.get("file_mb", 64))
    kept_shm = _KeptShmFiles(shm_megabytes) if policy["shm_by_keeper"] else None
    refused: dict[str, int] = {}
    refused_files: dict[str, int] = {}
    notified: dict = {}  # how many opens the keeper looked at, and its seconds answering (overhead)
    created_in_shm: set[str] = set()
    if shm_folder is not None:  # the files of the worker's /dev/shm may be passed in flight: its tmpfs bounds them
        policy["shm_dev"] = os.fstat(shm_folder).st_dev
    threading.Thread(target=_count_refusals, args=(keeper_end, refused, refused_files, policy, notified, created_in_shm,
                                                   worker, kept_shm), daemon=True).start()
    # The keeper holds none of the worker's pipes: the trusted side sees their end when the worker's
    # processes are gone.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    watch = bool(policy.get("allow_processes"))
    limit = int(policy.get("max_processes", 64))
    seen: set[int] = set()
    left_session: set[int] = set()
    my_session = os.getsid(0)
    reason, status = "", None

    def look() -> list[int]:
        """The worker's processes now (not the worker), each counted, and noted if it left the session."""
        table = _proc_table()
        alive = [pid for pid in _descendants(os.getpid(), table) if pid != worker]
        seen.update(alive)
        left_session.update(pid for pid in alive if table[pid][1] != my_session)
        return alive

    import select

    control = select.poll()  # not select(): the fd keeps the trusted side's number, which may be past 1024
    control.register(control_fd, select.POLLIN)
    while True:
        if control.poll(100 if watch else 500) and not os.read(control_fd, 64):
            break  # the trusted side is done with this worker
        with contextlib.suppress(ChildProcessError):
            pid, code = os.waitpid(worker, os.WNOHANG)
            if pid == worker:
                status = code
                break
        if watch:
            alive = look()
            _reap(keep=worker)
            if len(alive) > limit:
                reason = f"it started more than {limit} processes at once"
                break
            if kept_shm is not None and kept_shm.held_bytes([worker, *alive]) > kept_shm.limit:
                reason = f"its files in /dev/shm held more than {shm_megabytes} MiB"
                break
    # The files the keeper made for it in the machine's /dev/shm: none made from now on, their names removed now
    removed_at_once = kept_shm.stop() if kept_shm is not None else []
    alive = look()
    # Without a /dev/shm of its own, what the worker's processes hold there now is theirs (a pool's semaphore, which
    # glibc linked from a temporary name): taken before they are killed.
    held = _held_files([worker, *alive]) if watch and shm_folder is None else set()
    worker_was_running = status is None
    killed = _kill_descendants(worker, waited=not worker_was_running)
    if status is None:
        with contextlib.suppress(ChildProcessError):
            status = os.waitpid(worker, 0)[1]
    if kept_shm is not None:
        kept_shm.close()
    removed = removed_at_once
    if shm_folder is not None:
        removed = _clean_private_shm(shm_folder)
        os.close(shm_folder)
    elif watch:
        # The machine's /dev/shm, shared with every process of this user's (a concurrent grading's worker, the
        # learner's kernel): only what this worker's processes made is removed (every new entry would be another
        # grading's too: section 13), a new entry that they opened with O_CREAT or held when they were killed. Where the
        # keeper makes their files there (Linux 5.14+, :meth:`_FileWatch.made_in_shm`), each is known by name and
        # inode, links to it too, whatever a thread swapped. What another live process maps or holds is left.
        created = set(created_in_shm)
        new = {name: _file_id(info) for name, info in _shm_entries().items()
               if name not in shm_before and info.st_ctime >= started_at - 1}
        paths = {f"/dev/shm/{name}" for name, file in new.items() if name in created or file in created or file in held}
        for path in sorted(paths - _mapped_anywhere(paths)):
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                if info.st_uid == os.getuid():
                    os.unlink(path)
                    if not (path.startswith("/dev/shm/sem.mp-") and info.st_size <= _SEMAPHORE_BYTES):
                        removed.append(path)  # flagged; a pool's semaphore left by a worker killed at the end is not
    # Bounded like the counts (a learner's thousands of long /dev/shm names must not make the report
    # too long for the trusted side to read, which would lose every line of it).
    report = {"status": status, "processes_started": len(seen), "left_session": len(left_session),
              "killed_at_end": max(0, killed - (1 if worker_was_running else 0)), "shm_removed": removed[:16],
              "shm_removed_more": max(0, len(removed) - 16), "reason": reason,
              "refused": dict(refused), "refused_files": dict(refused_files), "notified": dict(notified)}
    with contextlib.suppress(OSError):
        os.write(report_fd, (json.dumps(report) + "\n").encode())
    os._exit(0)
