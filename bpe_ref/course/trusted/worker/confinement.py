"""Confinement of the worker, applied to itself before it reads the first request: Landlock, seccomp, rlimits.

:func:`confine` is the entry; :func:`refusal` names a refused call for the keeper (:mod:`.keeper`),
which answers what this filter sends it. Standard library only; imports nothing of the course.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import re
import sys

# Landlock (Linux 5.13+): unprivileged, allow-list file system access; ABI 4 adds TCP, ABI 6 scopes
# signals and abstract unix sockets to the sandbox. Syscall numbers are the same on x86_64 and arm64.
_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_FS = {name: 1 << bit for bit, name in enumerate(
    "execute write_file read_file read_dir remove_dir remove_file make_char make_dir make_reg "
    "make_sock make_fifo make_block make_sym refer truncate ioctl_dev".split())}
_FS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}  # how many of the rights above each ABI knows
_FILE_RIGHTS = _FS["execute"] | _FS["write_file"] | _FS["read_file"] | _FS["truncate"] | _FS["ioctl_dev"]
_READ = _FS["execute"] | _FS["read_file"] | _FS["read_dir"]
# In a folder shared with other processes (/dev/shm, where multiprocessing's semaphores live): regular files only,
# made, read, written, truncated and removed (glibc's sem_open links its temporary file within the folder, which
# needs no more); no folders, links, sockets, pipes or devices (mknod), which the keeper would have to look into. In the
# machine's /dev/shm the keeper makes the files itself where it can (keeper._FileWatch.made_in_shm): no make_reg then.
_SHARED = _FS["read_file"] | _FS["write_file"] | _FS["read_dir"] | _FS["remove_file"] | _FS["make_reg"] | _FS["truncate"]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock(read_paths: list[str], list_paths: list[str], write_paths: list[str], shared_paths: list[str] = (),
             shared: int = 0, file_paths: list[str] = ()) -> str:
    """Allow reading ``read_paths``, listing (not reading) the folders ``list_paths`` and what is
    below them, reading and writing ``write_paths``, regular files only in ``shared_paths``
    (``_SHARED``, less the rights ``shared`` takes off), and reading the files below ``file_paths`` by name, never
    listing them (the grader's inputs: a file written before the call it is for was read whole, unmeasured, by an
    earlier call that listed the folder: section 46); nothing else, no TCP, no signals to processes outside.
    Returns what was applied, or raises ``OSError``."""
    libc = _libc()
    abi = libc.syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        raise OSError(ctypes.get_errno(), "Landlock is not available in this kernel")
    handled = sum(1 << bit for bit in range(_FS_BY_ABI.get(abi, 16)))
    attr = _RulesetAttr(handled, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = libc.syscall(_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for paths, rights in ((read_paths, _READ), (list_paths, _FS["read_dir"]), (write_paths, handled),
                              (shared_paths, _SHARED & ~shared), (file_paths, _FS["read_file"])):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue  # a path this machine does not have
                try:
                    allowed = rights & handled
                    if not os.path.isdir(path):
                        allowed &= _FILE_RIGHTS
                    rule = _PathBeneath(allowed, fd)
                    if libc.syscall(_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0) != 0:
                        raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
                finally:
                    os.close(fd)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS, required to restrict oneself
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
        if libc.syscall(_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    parts = [f"Landlock ABI {abi}: files readable only in the standard library, allowed packages, system libraries "
             "and the scratch folder, writable only in the scratch folder"]
    parts.append("no TCP" if abi >= 4 else "TCP not restricted by Landlock (ABI < 4)")
    parts.append("no signals to processes outside the sandbox" if abi >= 6 else "signals not scoped (ABI < 6)")
    return "; ".join(parts)


# seccomp: a classic BPF filter, written out because it is short and a maintained Python binding does not ship on
# PyPI. What it refuses, and why, is said at each rule (below and in :func:`_seccomp_program`). Where the kernel has
# user notification (5.0+), a refused call is not answered by the filter itself: it goes to the keeper
# (:func:`keeper.keep`), which runs none of the learner's code, counts it by name and answers it with the same error,
# so what the sandbox refused can be flagged from outside. The worker hands the notification fd over before any code
# of the learner's runs, and keeps no copy.
_SECCOMP_ARCH = {  # machine: AUDIT_ARCH, then the numbers of the calls the filter reads (None: no such call)
    "x86_64": (0xC000003E, {"socket": 41, "execve": 59, "execveat": 322, "fork": 57, "vfork": 58, "clone": 56,
                            "clone3": 435, "seccomp": 317, "prctl": 157, "open": 2, "creat": 85, "openat": 257,
                            "openat2": 437, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                            "io_setup": 206, "io_submit": 209, "socketpair": 53, "connect": 42, "mmap": 9, "mremap": 25,
                            "splice": 275, "tee": 276, "vmsplice": 278, "inotify_add_watch": 254, "fanotify_mark": 301,
                            "close": 3, "dup2": 33, "dup3": 292, "close_range": 436, "link": 86, "linkat": 265, "exit_group": 231,
                            "recvmsg": 47, "recvmmsg": 299, "pidfd_getfd": 438, "rt_sigaction": 13, "fcntl": 72,
                            "ioctl": 16, "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66,
                            "semtimedop": 220, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "add_key": 248,
                            "request_key": 249, "keyctl": 250, "prlimit64": 302, "setpriority": 141, "ioprio_set": 251,
                            "sched_setaffinity": 203, "sched_setscheduler": 144, "sched_setparam": 142,
                            "sched_setattr": 314, "sendmsg": 46, "sendmmsg": 307, "setsockopt": 54,
                            "memfd_secret": 447, "landlock_create_ruleset": 444, "landlock_add_rule": 445,
                            "landlock_restrict_self": 446, "epoll_create": 213, "epoll_create1": 291, "unshare": 272,
                            "epoll_ctl": 233, "mq_open": 240, "timer_create": 222,
                            "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "setxattrat": 463, "unlink": 87,
                            "unlinkat": 263, "memfd_create": 319}),
    "aarch64": (0xC00000B7, {"socket": 198, "execve": 221, "execveat": 281, "fork": None, "vfork": None, "clone": 220,
                             "clone3": 435, "seccomp": 277, "prctl": 167, "open": None, "creat": None, "openat": 56,
                             "openat2": 437, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                             "io_setup": 0, "io_submit": 2, "socketpair": 199, "connect": 203, "mmap": 222, "mremap": 216,
                             "splice": 76, "tee": 77, "vmsplice": 75, "inotify_add_watch": 27, "fanotify_mark": 263,
                             "close": 57, "dup2": None, "dup3": 24, "close_range": 436, "link": None, "linkat": 37, "exit_group": 94,
                             "recvmsg": 212, "recvmmsg": 243, "pidfd_getfd": 438, "rt_sigaction": 134, "fcntl": 25,
                             "ioctl": 29, "shmget": 194, "shmat": 196, "shmctl": 195, "semget": 190, "semop": 193,
                             "semctl": 191, "semtimedop": 192, "msgget": 186, "msgsnd": 189, "msgrcv": 188, "msgctl": 187,
                             "add_key": 217, "request_key": 218, "keyctl": 219, "prlimit64": 261, "setpriority": 140,
                             "ioprio_set": 30, "sched_setaffinity": 122, "sched_setscheduler": 119, "sched_setparam": 118,
                             "sched_setattr": 274, "sendmsg": 211, "sendmmsg": 269, "setsockopt": 208,
                             "memfd_secret": 447, "landlock_create_ruleset": 444, "landlock_add_rule": 445,
                             "landlock_restrict_self": 446, "epoll_create": None, "epoll_create1": 20, "unshare": 97,
                             "epoll_ctl": 21, "mq_open": 180, "timer_create": 107,
                             "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463, "unlink": None,
                             "unlinkat": 35, "memfd_create": 279}),
}
# io_uring runs socket(), openat() and the like as queued operations that no filter sees: refused
# whole (Python never uses it), or a ring would make a UDP socket past the socket() rule below.
# Linux's native asynchronous I/O reads a file without the kernel counting the bytes (rchar: tests/test_grading_redteam.py,
# section 31), so refused too (no module of the standard library uses it; ctypes reaches it).
_IO_URING_CALLS = ("io_uring_setup", "io_uring_enter", "io_uring_register", "io_setup", "io_submit")
# splice moves a file's bytes into a pipe without the kernel counting them as read (rchar), and vmsplice, or a
# splice on to a socket and a recv, takes them out uncounted: the bytes a process reads are measured (lab 03's
# "never the whole file"), so refused (Python's own code never uses them).
_SPLICE_CALLS = ("splice", "tee", "vmsplice")
# A folder watched tells the names of the files made in it: the grader's inputs are written there before the call they
# are for (lab 03's measured file, before an unmeasured call), so their names are no one's to learn (section 46 of
# tests/test_grading_redteam.py; Landlock does not see a watch). No lab's code watches files.
_WATCH_CALLS = ("inotify_add_watch", "fanotify_mark")
# System V IPC and the kernel's keyrings keep what a process put there once it has ended, in no folder, under no limit of
# the worker's and past its closing: shared memory segments filled and detached outlived the sandbox, memory of the
# machine's up to the OOM killer (section 54 of tests/test_grading_redteam.py), and the account's keyring is every
# grading's. No lab's code uses them (multiprocessing's semaphores are POSIX ones, files of /dev/shm).
_PERSISTENT_CALLS = ("shmget", "shmat", "shmctl", "semget", "semop", "semctl", "semtimedop", "msgget", "msgsnd", "msgrcv",
                     "msgctl", "add_key", "request_key", "keyctl")
# Kernel memory that a call makes without end, in no process's resident memory, no folder and no queue the memory watch
# reads (section 74 of tests/test_grading_redteam.py): a memfd_secret's pages, once unmapped, are unevictable memory held
# by an fd whose file shows no blocks (8 of 60 MiB held past a memory limit of 200 MiB); each rule added to a Landlock
# ruleset is some 70 bytes of the kernel's (60 rulesets of 65,536 TCP ports held 277 MiB; no bound but memory, an fd each),
# and an epoll instance holds an item for each (file, fd) added, kept once the fd is closed while the file lives on (5.5
# million items, 1.1 GiB of the kernel's, the grading account's whole allowance, max_user_watches, whose other epolls then
# fail). The worker confines itself with Landlock before this filter is in; no lab's code calls the others. epoll only
# where a lab allows no processes: multiprocessing's forkserver waits on an epoll (selectors.DefaultSelector); where it
# allows them, the keeper counts each item added and refuses past its bound (keeper.MOST_EPOLL_ITEMS).
_KERNEL_MEMORY_CALLS = ("memfd_secret", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self")
_EPOLL_CALLS = ("epoll_create", "epoll_create1")
# Their POSIX kin (section 78 of tests/test_grading_redteam.py): a message queue (mq_open) is made in the machine's IPC
# namespace and outlives the worker, under the machine's queues_max and the account's RLIMIT_MSGQUEUE (a channel between
# two gradings, every other grading's allowance); each timer (timer_create) is kernel memory charged to the account's
# pending signals (shared by every process of the grading user); each record lock on a range apart from the others
# (fcntl's F_SETLK, F_SETLKW and their OFD kinds) some 200 bytes of slab while its file is open (400,000 on 200 files with
# 20,000 timers held 82 MiB, in no count). No lab's code, nor the standard library it uses, calls them (multiprocessing's
# semaphores are files of /dev/shm and futexes); flock, one lock an open file, is bounded by the fds and left.
_POSIX_KERNEL_STATE_CALLS = ("mq_open", "timer_create")
_RECORD_LOCKS = {6: "F_SETLK", 7: "F_SETLKW", 37: "F_OFD_SETLK", 38: "F_OFD_SETLKW"}
# A file's extended attributes on tmpfs (Linux 6.6+) are kernel memory, a page each at most, bounded by the mount's inode
# space only, and not at all on the kernel's own tmpfs that backs memfds; a file's size and blocks show none: 50,000 of
# 3,900 bytes on one memfd held 195 MiB past every limit (section 81). No lab's code sets one; shutil.copystat passes
# EPERM over.
_XATTR_CALLS = ("setxattr", "lsetxattr", "fsetxattr", "setxattrat")
_EPOLL_CTL_ADD = 1
# A thread with an fd table of its own (unshare(CLONE_FILES), or a clone of a thread without CLONE_FILES): /proc/PID/fd
# shows the table of the process's main thread only, so the files such a thread held (memfds, sockets' queues) were in no
# count of the trusted side's (section 75). Python's threads share their process's table; no lab's code unshares it.
_CLONE_THREAD, _CLONE_FILES = 0x00010000, 0x00000400
_MAP_SHARED, _MAP_ANONYMOUS = 0x01, 0x20  # MAP_SHARED_VALIDATE (0x03) has MAP_SHARED's bit
# Pages of the kernel's hugetlb pool (mmap's MAP_HUGETLB, memfd_create's MFD_HUGETLB) are in no resident count: each of
# lab 03's processes could take up to its RLIMIT_AS of the machine's pool, past the limit of all of them together
# (section 83). No lab's code asks for them.
_MAP_HUGETLB, _MFD_HUGETLB = 0x40000, 0x4
# The calls that open a file by path: sent to the keeper too, which reads the path, counts it if
# Landlock will refuse it, and lets the call go on (Landlock decides; see :class:`_FileWatch`).
_OPEN_CALLS = ("open", "creat", "openat", "openat2")
# Calls that set another process's limits or scheduling, which the kernel allows on any process of the same user (no
# ptrace, so Landlock does not scope them): a cell lowered the grading process's RLIMIT_NOFILE (RLIMIT_CPU kills it, and
# every notebook after), and could slow a classmate's grading (section 55). Each only of the caller itself (pid or who 0;
# ioprio_set of the process, not of a group or the user, the grader's processes among them; scheduling: _SCHEDULING_CALLS).
_OWN_ONLY_CALLS = ("prlimit64", "sched_setaffinity")
_OWN_ONLY_WHICH = {"ioprio_set": 1}  # IOPRIO_WHO_PROCESS
# Nor its own scheduling class or priority, refused whole: a worker that made itself SCHED_IDLE (or nice 19) on a CPU
# shared with other work got almost no CPU time and was always waiting for one, so neither its CPU limits nor its
# wall-clock backstops (which count the time it neither ran nor waited) moved, and it held its notebook's grading, and
# the class batch behind it, for hours (walk59's red team, section 127). No lab's code changes its scheduling.
_SCHEDULING_CALLS = ("sched_setscheduler", "sched_setparam", "sched_setattr", "setpriority")
# The calls that put an fd in flight (SCM_RIGHTS): a memfd sent on a socketpair to itself and closed is held by the
# socket's queue, in no process's fd table, so neither the scratch folder's limit nor the files held unlinked see it
# (section 53). Where a lab allows no processes, refused whole (no lab's code passes fds; the listener goes to the keeper
# by pidfd_getfd, :func:`seccomp`); where it does (lab 03's forkserver passes its children's pipes so), the keeper makes
# each sendmsg itself (keeper._Sends) and sendmmsg, which no module of the standard library calls, is refused.
_SEND_FDS_CALLS = ("sendmsg", "sendmmsg")
_EPERM, _EACCES, _ENOSYS = 1, 13, 38
_RET_ALLOW, _RET_ERRNO, _RET_USER_NOTIF = 0x7FFF0000, 0x00050000, 0x7FC00000
_PR_SET_SECCOMP, _PR_SET_CHILD_SUBREAPER, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_NEW_LISTENER = 22, 36, 1, 8
# Nor a process's memory map rewritten (PR_SET_MM; its PR_SET_MM_MAP needs no capability): it moves where the kernel reads
# its command line (arg_start, arg_end), by which a process is told a copy of the worker's, forked, whatever its command
# line says (measure_worker.start_method_of; redteam section 80). Only checkpoint-restore tools call it.
_PR_SET_MM = 35
_SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 32  # Linux 5.19
_SIGCHLD = 17
_F_SETFL, _FIONBIO = 4, 0x5421
# A socket's queue and a pipe's are kernel memory, which the trusted side counts in the worker's memory limit from outside
# (measure_worker.queued_bytes: a socket's queue read from the kernel, a pipe at its default capacity): their buffers keep
# the kernel's default sizes, so what an fd can hold is bounded (and a worker's fds are, RLIMIT_NOFILE: set_apart).
_SO_BUFFERS = {7: "SO_SNDBUF", 8: "SO_RCVBUF", 32: "SO_SNDBUFFORCE", 33: "SO_RCVBUFFORCE"}  # level SOL_SOCKET (1)
_F_SETPIPE_SZ = 1031
_SOCKET_FAMILIES = {1: "AF_UNIX", 2: "AF_INET", 10: "AF_INET6", 16: "AF_NETLINK", 17: "AF_PACKET", 40: "AF_VSOCK"}
_SOCKET_TYPES = {1: "SOCK_STREAM", 2: "SOCK_DGRAM", 3: "SOCK_RAW", 5: "SOCK_SEQPACKET"}


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def refusal(arch: int, nr: int, args: tuple[int, ...], machine: str | None = None) -> tuple[str, int]:
    """The name of a call the filter refused (``arch``, ``nr`` and ``args`` of its ``seccomp_data``)
    and the error the filter answers it with: the one table the filter and the keeper share."""
    own_arch, numbers = _SECCOMP_ARCH[machine or platform.machine()]
    if arch != own_arch:
        return f"a system call of another architecture (#{nr})", _ENOSYS
    if nr >= 0x40000000:
        return f"an x32 system call (#{nr & 0xFFFF})", _ENOSYS
    name = next((name for name, number in numbers.items() if number == nr), f"system call #{nr}")
    kind = _SOCKET_TYPES.get(args[1] & 0xF, f"type {args[1] & 0xF}")
    if name == "socket":
        family = args[0] & 0xFFFFFFFF
        stream = family != 1 or args[1] & 0xF == 1
        return f"socket({_SOCKET_FAMILIES.get(family, f'family {family}')}{'' if stream else f', {kind}'})", _EACCES
    if name == "socketpair":
        return f"socketpair({kind})", _EACCES
    if name == "prctl":
        option = args[0] & 0xFFFFFFFF
        return {_PR_SET_CHILD_SUBREAPER: "prctl(PR_SET_CHILD_SUBREAPER)", _PR_SET_MM: "prctl(PR_SET_MM)"}.get(
            option, "prctl(PR_SET_SECCOMP)"), _EPERM
    if name == "clone3":
        return name, _ENOSYS
    if name == "mmap":  # the filter sends only shared anonymous memory (section 76) and huge pages as a refusal
        return "mmap(MAP_HUGETLB)" if args[3] & _MAP_HUGETLB else "mmap(MAP_SHARED | MAP_ANONYMOUS)", _EPERM
    if name == "memfd_create":  # likewise, huge pages only
        return "memfd_create(MFD_HUGETLB)", _EPERM
    if name == "unshare":  # the filter sends only those of the fd table (section 75)
        return "unshare(CLONE_FILES)", _EPERM
    if name == "clone" and args[0] & _CLONE_THREAD:  # likewise: a thread sent here has an fd table of its own
        return "clone of a thread without CLONE_FILES", _EPERM
    if name in ("dup2", "dup3"):  # the filter sends only those onto the loop's fds (:func:`set_apart`)
        return f"{name} onto the worker loop's pipes", _EPERM
    if name in _OWN_ONLY_CALLS or name in _OWN_ONLY_WHICH:  # the filter sends only those of another process
        return f"{name} of another process", _EPERM
    if name in _SCHEDULING_CALLS:  # of any process, its own too
        return f"{name} (its scheduling or priority)", _EPERM
    if name == "setsockopt":  # the filter sends only those of a buffer's size
        return f"setsockopt({_SO_BUFFERS.get(args[2] & 0xFFFFFFFF, 'a buffer size')})", _EPERM
    if name == "fcntl" and args[1] & 0xFFFFFFFF == _F_SETPIPE_SZ:
        return "fcntl(F_SETPIPE_SZ)", _EPERM
    if name == "fcntl" and args[1] & 0xFFFFFFFF in _RECORD_LOCKS:
        return f"fcntl({_RECORD_LOCKS[args[1] & 0xFFFFFFFF]})", _EPERM
    if name in ("fcntl", "ioctl"):  # likewise: F_SETFL and FIONBIO on them
        return f"{name} making the worker loop's pipes non-blocking", _EPERM
    return name, _EPERM


# The fds of each of the worker's processes (RLIMIT_NOFILE, hard; the soft one less the loop's two: set_apart). Each may be a
# socket or a pipe holding a queue (kernel memory, counted from outside: measure_worker.queued_bytes, which reads every fd
# of every process ten times a second); the machine's default was some 20,000 a process here. No lab's code holds 100.
MAX_FDS = 1024


def set_apart(request_fd: int, reply_fd: int) -> tuple[int, int]:
    """Copies of the worker loop's two pipe ends (close-on-exec) at the top two fd numbers this process may have,
    which the filter then keeps (:func:`_seccomp_program`, ``loop_fds``); the soft ``RLIMIT_NOFILE`` is lowered
    below them, so that no other file of this process or of one it starts is ever given those numbers (a spawned
    child may then close every fd it has, as multiprocessing's do, without meeting them), and the hard one to
    :data:`MAX_FDS` at most (the top of the two)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    top = min(soft if soft != resource.RLIM_INFINITY else MAX_FDS, MAX_FDS)
    kept = (top - 2, top - 1)
    for fd in kept:
        try:
            os.fstat(fd)
        except OSError:
            continue
        raise OSError(0, f"fd {fd}, where the worker loop's pipes go, is taken")
    os.dup2(request_fd, kept[0], inheritable=False)
    os.dup2(reply_fd, kept[1], inheritable=False)
    resource.setrlimit(resource.RLIMIT_NOFILE, (kept[0], top))  # hard too: no process of the worker's passes it
    return kept


def _seccomp_program(allow_processes: bool, notify: bool, watch_files: bool = False,
                     keep_connects: bool = False, loop_fds: tuple[int, int] | None = None,
                     send_fds: str = "refused") -> list[tuple[int, int, int, int]]:
    """The filter as ``(code, jt, jf, k)``; ``notify``: refused calls go to the listener (the keeper);
    ``watch_files``: so do the opens, which the keeper lets go on, and, where processes are allowed, every
    fork (the keeper counts them); ``keep_connects``: so do the
    connects, which the keeper makes itself (:class:`_Connects`); ``loop_fds``: the worker loop's
    request and reply fds (consecutive, :func:`set_apart`), which no call may replace or close; ``send_fds``: what
    becomes of ``sendmsg`` and ``sendmmsg`` (``_SEND_FDS_CALLS``): ``"refused"``, ``"kept"`` (sendmsg made by the
    keeper, keeper._Sends; sendmmsg refused) or ``"open"`` (allowed: the listener's handoff needs it)."""
    arch, numbers = _SECCOMP_ARCH[platform.machine()]
    count_processes = allow_processes and notify and watch_files  # the keeper's answer "go on" needs Linux 5.5
    # Each thread start goes by the keeper too, which lets it go on below its bound of the worker's tasks (keeper.py,
    # _tasks_under): nothing else bounds the threads a worker holds, each a pid of the machine's (redteam section 63).
    count_threads = notify and watch_files
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, JMP|JSET|K, RET|K
    JGT = 0x25  # BPF_JMP|BPF_JGT|BPF_K
    ALU_AND = 0x54  # BPF_ALU|BPF_AND|BPF_K
    program: list[tuple[int, int, int, int]] = []

    def emit(code, k, jt=0, jf=0):
        program.append((code, jt, jf, k))

    def refuse(errno: int) -> None:
        emit(RET, _RET_USER_NOTIF if notify else _RET_ERRNO | errno)

    emit(LD, 4)  # seccomp_data.arch
    emit(JEQ, arch, 1, 0)
    # Another ABI's syscall table (on x86_64, ``int 0x80`` reaches the i386 one, with its own
    # numbers for fork, socket, socketcall...): refused whole, or it would bypass every rule below.
    # Python never makes such a call.
    refuse(_ENOSYS)
    emit(LD, 0)  # seccomp_data.nr
    # x32 (x86_64's arch with bit 30 set in the number) has the same calls under other numbers.
    emit(JGE, 0x40000000, 0, 1)
    refuse(_ENOSYS)
    # No shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS): its pages belong to an object that outlives a partial
    # unmapping, so a page left mapped held 60 MiB each, in no resident count and no folder (section 76). Python's
    # standard library maps none on Linux (multiprocessing's heap maps files of /dev/shm, whose fds it keeps).
    # Nor hugetlb pages (_MAP_HUGETLB).
    emit(JEQ, numbers["mmap"], 0, 6)
    emit(LD, 40)  # args[3], the flags
    emit(JSET, _MAP_HUGETLB, 2, 0)
    emit(ALU_AND, _MAP_SHARED | _MAP_ANONYMOUS)
    emit(JEQ, _MAP_SHARED | _MAP_ANONYMOUS, 0, 1)
    refuse(_EPERM)
    emit(LD, 0)  # seccomp_data.nr again
    emit(JEQ, numbers["memfd_create"], 0, 4)
    emit(LD, 24)  # args[1], the flags
    emit(JSET, _MFD_HUGETLB, 0, 1)
    refuse(_EPERM)
    emit(LD, 0)  # seccomp_data.nr again
    if watch_files:
        for name in _OPEN_CALLS:
            if numbers[name] is not None:
                emit(JEQ, numbers[name], 0, 1)
                emit(RET, _RET_USER_NOTIF)
        # An mremap, which grows a mapping (of a file: one page mapped, then the whole file, section 31) with no mmap
        emit(JEQ, numbers["mremap"], 0, 1)
        emit(RET, _RET_USER_NOTIF)
        # An mmap of a file (ld.so's of libraries too, a few per library loaded; with PROT_EXEC or not, as a
        # file's pages can be read either way): the keeper counts the bytes mapped of a grader's input or of
        # a file the worker can write, which no read() count shows, and lets it go on (:class:`_FileWatch`).
        # Anonymous memory (the allocator's, the most frequent) is never sent.
        emit(JEQ, numbers["mmap"], 0, 6)
        emit(LD, 48)  # args[4], the fd (low 32 bits)
        emit(JEQ, 0xFFFFFFFF, 3, 0)  # -1: no file
        emit(LD, 40)  # args[3], the flags
        emit(JSET, 0x20, 1, 0)  # MAP_ANONYMOUS
        emit(RET, _RET_USER_NOTIF)
        emit(RET, _RET_ALLOW)
    for name in _IO_URING_CALLS + _SPLICE_CALLS + _WATCH_CALLS + _PERSISTENT_CALLS + _KERNEL_MEMORY_CALLS + (
            _POSIX_KERNEL_STATE_CALLS + _XATTR_CALLS) + (
            () if allow_processes else _EPOLL_CALLS):
        if numbers[name] is not None:
            emit(JEQ, numbers[name], 0, 1)
            refuse(_EPERM)
    # No fd table of a thread's own (section 75): unshare(CLONE_FILES), and a clone of a thread without CLONE_FILES.
    emit(JEQ, numbers["unshare"], 0, 3)
    emit(LD, 16)  # args[0], the flags (low 32 bits)
    emit(JSET, _CLONE_FILES, 0, 1)
    refuse(_EPERM)
    emit(LD, 0)  # seccomp_data.nr again, for the rules below
    emit(JEQ, numbers["clone"], 0, 4)
    emit(LD, 16)  # args[0], the clone flags (low 32 bits)
    emit(ALU_AND, _CLONE_THREAD | _CLONE_FILES)
    emit(JEQ, _CLONE_THREAD, 0, 1)  # a thread, its fd table not shared
    refuse(_EPERM)
    emit(LD, 0)  # seccomp_data.nr again
    if send_fds != "open":  # files in flight (``_SEND_FDS_CALLS``)
        if send_fds == "kept":
            if not notify:
                raise ValueError("the keeper makes the sends only where it is notified of them")
            emit(JEQ, numbers["sendmsg"], 0, 1)
            emit(RET, _RET_USER_NOTIF)
        for name in _SEND_FDS_CALLS[send_fds == "kept":]:
            emit(JEQ, numbers[name], 0, 1)
            refuse(_EPERM)
    if allow_processes:  # its workers talk over unix stream sockets (multiprocessing's forkserver)
        emit(JEQ, numbers["socket"], 0, 7)  # not socket(): on to the next test, past the seven below
        emit(LD, 16)  # args[0], the address family
        emit(JEQ, 1, 0, 3)  # AF_UNIX, or refused
        emit(LD, 24)  # args[1], the type and its flags
        emit(ALU_AND, 0xF)
        emit(JEQ, 1, 1, 0)  # SOCK_STREAM: allowed (a datagram could be sent to any address, connected or not)
        refuse(_EACCES)
        emit(RET, _RET_ALLOW)
        if keep_connects:  # Landlock does not stop connect() to a unix socket file outside: the keeper
            emit(JEQ, numbers["connect"], 0, 1)  # makes each connect itself, to the scratch folder only
            emit(RET, _RET_USER_NOTIF)
    else:  # no socket() at all (Landlock does not stop connect() to a unix socket file outside)
        emit(JEQ, numbers["socket"], 0, 1)
        refuse(_EACCES)
    # socketpair() gives two ends already connected to each other, stream ones only: sendto() from a
    # datagram end reaches any unix datagram socket by its path (a system log, a session bus).
    emit(JEQ, numbers["socketpair"], 0, 5)
    emit(LD, 24)  # args[1], the type
    emit(ALU_AND, 0xF)
    emit(JEQ, 1, 1, 0)  # SOCK_STREAM
    refuse(_EACCES)
    emit(RET, _RET_ALLOW)
    # No buffer made larger than the kernel's default (``_SO_BUFFERS``, ``_F_SETPIPE_SZ``): what a socket or pipe can hold
    # queued is then bounded, and counted at its most where it cannot be read.
    emit(JEQ, numbers["setsockopt"], 0, 9)
    emit(LD, 24)  # args[1], the level
    emit(JEQ, 1, 0, 6)  # SOL_SOCKET, or allowed
    emit(LD, 32)  # args[2], the option
    emit(JEQ, 7, 3, 0)  # SO_SNDBUF
    emit(JEQ, 8, 2, 0)  # SO_RCVBUF
    emit(JEQ, 32, 1, 0)  # SO_SNDBUFFORCE
    emit(JEQ, 33, 0, 1)  # SO_RCVBUFFORCE
    refuse(_EPERM)
    emit(RET, _RET_ALLOW)
    # Nor a record lock (``_RECORD_LOCKS``): kernel memory, one a range.
    locks = sorted(_RECORD_LOCKS)
    emit(JEQ, numbers["fcntl"], 0, 4 + len(locks))
    emit(LD, 24)  # args[1], the command (low 32 bits)
    for index, command in enumerate([_F_SETPIPE_SZ, *locks]):
        last = index == len(locks)
        emit(JEQ, command, len(locks) - index, 1 if last else 0)  # to the refusal; the last one past it
    refuse(_EPERM)
    emit(LD, 0)  # seccomp_data.nr again, for the rules below (fcntl's among them)
    if loop_fds:
        # The worker loop reads requests and writes replies on two fds of the process the learner's code runs in. A
        # cell once put pipes of its own in their place (dup2 onto them), relayed the requests and rewrote the replies:
        # a changed argument reported as it came. Why the kernel, not the loop: a loop that compared its fds' inodes
        # before each read and write would take the word of the process the learner's code runs in, and that code can
        # reach the comparison too; a filter it cannot remove refuses the replacement in every thread (they share the
        # fd table: a thread's close is the loop's close) and every process started (a clone that shares the table
        # too). The fds are fixed numbers above every other (:func:`set_apart`), so the refusal is a comparison of
        # arguments: dup2 and dup3 onto them, close of them, close_range over them. What else gives an fd a number
        # hands out the lowest free one (open, pipe, dup, fcntl F_DUPFD, a received fd), never an fd in use. A child
        # process's close of them would be harmless (its own table), but the filter cannot tell a process from a thread.
        request_fd, reply_fd = loop_fds
        if reply_fd != request_fd + 1:
            raise ValueError("the loop's fds must be consecutive")
        for name in ("dup2", "dup3"):  # no honest code puts a file there: sent to the keeper, counted
            if numbers[name] is not None:
                emit(JEQ, numbers[name], 0, 5)
                emit(LD, 24)  # args[1], the new fd (low 32 bits)
                emit(JEQ, request_fd, 1, 0)
                emit(JEQ, reply_fd, 0, 1)
                refuse(_EPERM)
                emit(RET, _RET_ALLOW)
        # Nor made non-blocking (fcntl F_SETFL, ioctl FIONBIO; the flag is the open file's, shared by every fd of it): the
        # loop's sealing thread must never raise (worker/__main__.py, _serving), as a read or write that would block does.
        for name, command in (("fcntl", _F_SETFL), ("ioctl", _FIONBIO)):
            emit(JEQ, numbers[name], 0, 7)
            emit(LD, 16)  # args[0], the fd
            emit(JEQ, request_fd, 1, 0)
            emit(JEQ, reply_fd, 0, 3)
            emit(LD, 24)  # args[1], the command (low 32 bits)
            emit(JEQ, command, 0, 1)
            refuse(_EPERM)
            emit(RET, _RET_ALLOW)
        # close and close_range are answered by the filter itself, never counted: multiprocessing's processes close
        # every fd they do not keep before they run (close_range over all, or close of each fd /proc/self/fd lists).
        emit(JEQ, numbers["close"], 0, 5)
        emit(LD, 16)  # args[0], the fd
        emit(JEQ, request_fd, 1, 0)
        emit(JEQ, reply_fd, 0, 1)
        emit(RET, _RET_ERRNO | _EPERM)
        emit(RET, _RET_ALLOW)
        emit(JEQ, numbers["close_range"], 0, 6)
        emit(LD, 16)  # args[0], the first fd
        emit(JGT, reply_fd, 3, 0)  # above both: allowed
        emit(LD, 24)  # args[1], the last fd
        emit(JGE, request_fd, 0, 1)  # reaches the first of them: refused (flags or not: CLOSE_RANGE_UNSHARE closes too)
        emit(RET, _RET_ERRNO | _EPERM)
        emit(RET, _RET_ALLOW)
    # No seccomp filter of the learner's own: the kernel applies the strictest answer of all filters,
    # so one that answered a refused call with an error itself would hide it from the keeper's count.
    emit(JEQ, numbers["seccomp"], 0, 1)
    refuse(_EPERM)
    for name in _SCHEDULING_CALLS:
        emit(JEQ, numbers[name], 0, 1)
        refuse(_EPERM)
    for name in _OWN_ONLY_CALLS:  # the limits and affinity of the caller alone (pid 0)
        emit(JEQ, numbers[name], 0, 4)
        emit(LD, 16)  # args[0], the pid (low 32 bits: a pid_t)
        emit(JEQ, 0, 1, 0)
        refuse(_EPERM)
        emit(RET, _RET_ALLOW)
    for name, which in _OWN_ONLY_WHICH.items():  # (which, who, value): the caller's process alone
        emit(JEQ, numbers[name], 0, 6)
        emit(LD, 16)  # args[0], which
        emit(JEQ, which, 0, 2)
        emit(LD, 24)  # args[1], who
        emit(JEQ, 0, 1, 0)
        refuse(_EPERM)
        emit(RET, _RET_ALLOW)
    # Nor a subreaper of its own: the keeper is the one (orphans come to it, which waits for them: their CPU time counts).
    # Nor a memory map of its own (PR_SET_MM): where its command line lies tells a forked process (_PR_SET_MM).
    emit(JEQ, numbers["prctl"], 0, 10)
    emit(LD, 16)  # args[0], the option
    emit(JEQ, _PR_SET_SECCOMP, 6, 0)
    emit(JEQ, _PR_SET_MM, 5, 0)
    emit(JEQ, _PR_SET_CHILD_SUBREAPER, 0, 5)
    emit(LD, 24)  # args[1], low 32 bits: 0 unsets it, allowed
    emit(JEQ, 0, 0, 2)
    emit(LD, 28)  # and high
    emit(JEQ, 0, 1, 0)
    refuse(_EPERM)
    emit(RET, _RET_ALLOW)  # any other prctl
    if not allow_processes or count_processes:
        # No new process where the lab allows none; where it allows them (``count_processes``), each goes by the
        # keeper, which counts it and lets it go on: looks at /proc (ProcessWatch) miss one that ends between two.
        # and links, which the keeper makes itself into the machine's /dev/shm (keeper._FileWatch.made_in_shm)
        # and unlinks, which it makes there too, of the worker's own files only (another grading's semaphores: section 82)
        for name in ("fork", "vfork", "link", "linkat", "unlink", "unlinkat") if allow_processes else (
                "execve", "execveat", "fork", "vfork"):
            if numbers[name] is not None:
                emit(JEQ, numbers[name], 0, 1)
                refuse(_EPERM)
        if count_processes:  # and each process's end, at which the keeper reads what it read (log_exit), and what
            # ends its program's start-up (an exec, an fd received), whose reads it leaves out
            for name in ("exit_group", "execve", "execveat", "recvmsg", "recvmmsg", "pidfd_getfd"):
                emit(JEQ, numbers[name], 0, 1)
                emit(RET, _RET_USER_NOTIF)
            # and each item added to an epoll, which the keeper counts and refuses past its bound (keeper.MOST_EPOLL_ITEMS):
            # epoll is allowed here (multiprocessing's forkserver waits on one), and its items are kernel memory that no
            # watch counts, kept once their fd is closed (section 74)
            emit(JEQ, numbers["epoll_ctl"], 0, 4)
            emit(LD, 24)  # args[1], the operation
            emit(JEQ, _EPOLL_CTL_ADD, 0, 1)
            emit(RET, _RET_USER_NOTIF)
            emit(LD, 0)  # seccomp_data.nr again
            # and each new action for SIGCHLD, which the keeper reads (a pointer: the filter cannot) and refuses if it
            # has the kernel reap children alone, unwaited for (SIG_IGN, SA_NOCLDWAIT: keeper._FileWatch.reaped_alone)
            emit(JEQ, numbers["rt_sigaction"], 0, 4)
            emit(LD, 16)  # args[0], the signal
            emit(JEQ, _SIGCHLD, 0, 1)
            emit(RET, _RET_USER_NOTIF)
            emit(RET, _RET_ALLOW)
        emit(JEQ, numbers["clone3"], 0, 1)
        # glibc then falls back to clone, whose flags are registers (clone3's are in memory, which another thread
        # can change after the keeper read them): every thread start takes this path, answered here, never counted.
        emit(RET, _RET_ERRNO | _ENOSYS)
        emit(JEQ, numbers["clone"], 0, 4)
        emit(LD, 16)  # args[0], the clone flags (low 32 bits)
        emit(JSET, 0x00010000, 0, 1)  # CLONE_THREAD: a thread, allowed (by the keeper, under its bound, where it answers)
        emit(RET, _RET_USER_NOTIF if count_threads else _RET_ALLOW)
        refuse(_EPERM)
    emit(RET, _RET_ALLOW)
    return program


def _kernel_at_least(major: int, minor: int) -> bool:
    found = re.match(r"(\d+)\.(\d+)", platform.release())
    return bool(found) and (int(found[1]), int(found[2])) >= (major, minor)


def seccomp(allow_processes: bool, handoff=None, watch_files: bool = True, loop_fds: tuple[int, int] | None = None) -> str:
    """Install the filter described above. ``handoff``: a unix socket to the keeper, which is sent
    the filter's notification fd (then closed here); without it, or where the kernel cannot notify,
    the filter answers refused calls itself and they are not counted. ``watch_files``: every open
    goes by the keeper too (Linux 5.5+), which counts those Landlock will refuse. Returns what was
    applied, or raises ``OSError``."""
    machine = platform.machine()
    if machine not in _SECCOMP_ARCH:
        raise OSError(0, f"no seccomp filter written for {machine}")
    libc = _libc()
    if libc.prctl(38, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")

    def compiled(notify: bool, watch_files: bool = False, keep_connects: bool = False,
                 send_fds: str = "refused") -> _SockFprog:
        program = _seccomp_program(allow_processes, notify, watch_files, keep_connects, loop_fds, send_fds)
        filters = (_SockFilter * len(program))(*[_SockFilter(c, jt, jf, k) for c, jt, jf, k in program])
        return _SockFprog(len(program), filters)

    what = ("seccomp: no network sockets, no System V IPC or keyrings, no POSIX message queues, timers or record locks, "
            "no extended attributes set, no huge pages of the kernel's pool, "
            "no other process's limits or scheduling, no scheduling class or priority of its own, "
            "no memfd_secret or Landlock rules, no memory map of its own (PR_SET_MM), "
            "no fd table of a thread's own, no shared anonymous memory" + (
                "" if allow_processes else ", no epoll, no new processes (threads allowed)"))
    threads = ""  # the line's word on threads, once the keeper took the listener
    if loop_fds:
        what += f", the worker loop's pipes (fds {loop_fds[0]} and {loop_fds[1]}) neither replaced, closed nor made non-blocking"
    unix = "; unix sockets: connect() to any path, NOT restricted" if allow_processes else ""
    counted = "refused calls not counted (no keeper to count them)"
    import socket  # now: once the filter is in, an import's opens wait for the keeper, which has no listener yet

    if handoff is not None:
        # Letting a notified call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE) needs Linux 5.5.
        watch_files = watch_files and _kernel_at_least(5, 5)
        # The keeper takes a socket or the listener with pidfd_getfd (5.6): so no sendmsg of the worker's is needed.
        by_pidfd = _kernel_at_least(5, 6)
        keep_connects = allow_processes and by_pidfd
        send_fds = ("kept" if allow_processes else "refused") if by_pidfd else "open"
        prog = compiled(True, watch_files, keep_connects, send_fds)
        flags = _SECCOMP_FILTER_FLAG_NEW_LISTENER
        if send_fds == "kept" and _kernel_at_least(5, 19):
            # A signal to a caller whose sendmsg the keeper has made would restart the call, which the keeper would then
            # make again (the bytes and fds sent twice): once received, a call waits for its answer, killable only.
            flags |= _SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
        listener = libc.syscall(_SECCOMP_ARCH[machine][1]["seccomp"], _SECCOMP_SET_MODE_FILTER, flags, ctypes.byref(prog))
        if listener >= 0:
            try:
                if by_pidfd:  # the keeper takes it (keeper._count_refusals) and says so: a write and a read, no sendmsg
                    os.write(handoff.fileno(), b"listener %d" % listener)
                    if os.read(handoff.fileno(), 1) != b"k":
                        raise OSError(0, "the keeper did not take the listener")
                else:
                    socket.send_fds(handoff, [b"listener"], [listener])
                counted = "refused calls counted by the keeper" + (", and opens Landlock refuses" if watch_files else
                                                                   " (not the opens Landlock refuses)")
                counted += ", and every process started" if allow_processes and watch_files else ""
                threads = ", threads bounded by the keeper" if watch_files else ", threads NOT bounded"
                if keep_connects:
                    unix = "; unix sockets: connect() made by the keeper, to the scratch folder's only"
            except OSError as error:  # the filter is in place; with no listener, the kernel answers ENOSYS
                counted = f"refused calls not counted (the keeper could not be given them: {error.strerror or error})"
            finally:
                os.close(listener)  # the learner's code must never hold it: it could answer its own calls
                handoff.close()
            return f"{what}{threads}{_SENDS_SAID[send_fds]}; {counted}{unix}"
        counted = f"refused calls not counted (no seccomp user notification: {os.strerror(ctypes.get_errno())})"
    send_fds = "open" if allow_processes else "refused"
    prog = compiled(False, send_fds=send_fds)
    if libc.prctl(_PR_SET_SECCOMP, 2, ctypes.byref(prog), 0, 0) != 0:  # SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP failed")
    return f"{what}{_SENDS_SAID[send_fds]}; {counted}{unix}"


# What the isolation line says of the files in flight (section 53), by ``send_fds`` (:func:`_seccomp_program`).
_SENDS_SAID = {"refused": ", no fds passed (sendmsg and sendmmsg refused)",
               "kept": ", fds passed by the keeper only (sendmsg made by it: no memfd or other file but those of a private "
                       "/dev/shm)",
               "open": ", fds passed NOT bounded (sendmsg allowed: files in flight in no process's fd table)"}


def rlimits(memory_mb: int, cpu_seconds: int, file_mb: int) -> str:
    import resource

    applied = []
    for name, soft, label in (
        ("RLIMIT_AS", memory_mb * 2**20, f"{memory_mb} MiB of memory"),
        ("RLIMIT_CPU", cpu_seconds, f"{cpu_seconds} s of CPU"),
        ("RLIMIT_FSIZE", file_mb * 2**20, f"files up to {file_mb} MiB"),
        ("RLIMIT_CORE", 0, "no core dumps"),
    ):
        limit = getattr(resource, name, None)
        if limit is None:
            continue
        try:
            hard = resource.getrlimit(limit)[1]
            new_hard = soft if hard == resource.RLIM_INFINITY or hard > soft else hard
            resource.setrlimit(limit, (min(soft, new_hard), new_hard))
            applied.append(label)
        except (ValueError, OSError):
            pass
    with contextlib.suppress(ValueError, OSError, AttributeError):  # set by set_apart, before
        applied.append(f"{resource.getrlimit(resource.RLIMIT_NOFILE)[1]} open files a process")
    return "rlimits: " + ", ".join(applied) if applied else ""


_PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, _CAP_LAST = 24, 47, 4, 63


def drop_capabilities() -> str:
    """Drop every capability this process holds (a grading run as root, in a container say, gave the worker all of
    them: reboot, the clock, kernel modules, BPF, another process's limits and scheduling: section 56 of
    tests/test_grading_redteam.py), from its bounding and ambient sets too, so that no program it starts gets them back;
    the line that says so, or ``""`` where it held none."""
    libc = _libc()
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()  # _LINUX_CAPABILITY_VERSION_3
    if libc.capget(header, data) != 0 or not any(data):
        return ""
    for capability in range(_CAP_LAST + 1):  # the bounding set first: that needs CAP_SETPCAP, dropped last
        libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)  # EINVAL past the kernel's last capability
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if libc.capset(header, (ctypes.c_uint32 * 6)()) != 0:
        return f"capabilities NOT dropped ({os.strerror(ctypes.get_errno())}): the grading user's are the worker's"
    return "capabilities: none (the grading user's dropped)"


def confine(policy: dict, handoff=None, loop_fds: tuple[int, int] | None = None) -> list[str]:
    """Lock this process in as ``policy`` says; return a line per mechanism (what is in force).
    ``handoff``: the keeper's socket, for the seccomp filter's notifications; closed here in any case.
    ``loop_fds``: the worker loop's request and reply fds (:func:`set_apart`), kept by the filter."""
    report = []
    scratch = policy["scratch"]
    os.chdir(scratch)
    if os.name == "posix":
        report.append(rlimits(policy["memory_mb"], policy["cpu_seconds"], policy["file_mb"]))
    if sys.platform.startswith("linux"):
        try:
            # where the keeper makes the files in the machine's /dev/shm (keeper._FileWatch.made_in_shm), none here
            report.append(landlock(policy["read_paths"], policy.get("list_paths", []), [scratch, "/dev/null"],
                                   policy.get("write_paths", []), _FS["make_reg"] if policy.get("shm_by_keeper") else 0,
                                   policy.get("file_paths", [])))
        except OSError as error:
            report.append(f"no Landlock ({error.strerror or error}): files and network NOT restricted")
        try:
            report.append(seccomp(policy.get("allow_processes", False), handoff, policy.get("watch_files", True), loop_fds))
        except OSError as error:
            report.append(f"no seccomp ({error.strerror or error}): sockets and processes NOT restricted")
    if handoff is not None:
        handoff.close()  # (seccomp closed it already where it was used): nothing of it is left to the learner
    if sys.platform.startswith("linux"):
        report.append(drop_capabilities())
    if not sys.platform.startswith("linux"):
        report.append(f"{sys.platform}: files, network and processes NOT restricted (Landlock and seccomp are Linux only)")
    return [line for line in report if line]
