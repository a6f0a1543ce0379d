"""The untrusted side of grading: runs a learner's notebook cells and answers calls of their functions.

The trusted grader (:mod:`bpe_ref.course.trusted.sandbox`) starts this file as a script, in a fresh
interpreter (``python -I -S worker.py POLICY``: no site-packages, no environment variables, no
current folder on the path), then talks to it over two pipes in newline-delimited JSON. Before it
reads the first request, the worker locks itself in (see :func:`confine`): on Linux with Landlock
it can read only the standard library, the few third-party packages a lab may use, the system's shared libraries and its scratch
folder, and write only there; seccomp refuses network sockets and, unless the lab needs them, new
processes; rlimits cap memory, CPU time and file sizes. Nothing of ``bpe_ref`` is imported here:
the reference, the graders and the gradebook stay in the trusted process, which decides every
verdict. What the worker sends back is only ever data, the learner's answers.

Requests and replies (``id`` is echoed)::

    {"id": 1, "op": "exec", "name": "task1_solution", "code": "def f(x): ..."}
    -> {"id": 1, "ok": true, "stdout": "", "stderr": ""}     # or "ok": false, "error": {...}
    {"id": 2, "op": "call", "name": "count_pairs", "args": [...], "return_args": false, "spy": []}
    -> {"id": 2, "ok": true, "result": ..., "stdout": "", "stderr": ""}

A call may carry ``stand_ins`` (reference helpers bound in place of the learner's while it runs)
and a ``driver`` (a reference function called as ``driver(function, *args)``, for a function whose
arguments are not data: lab 09's harness, given a fake clock), both as source.

Values travel in the tagged JSON of :func:`encode` / :func:`decode`, which the trusted side imports
from this file too, so there is one wire format. This module uses the standard library only.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import ctypes
import functools
import importlib
import io
import json
import linecache
import os
import platform
import re
import stat
import sys
import time
import traceback

MAX_OUTPUT_CHARS = 20_000  # of a cell's or a call's captured stdout / stderr
MAX_DEPTH = 100  # nesting of a value sent back; deeper is reported, not sent
WORKER_FILE = os.path.abspath(__file__)

# ---- the wire format ---------------------------------------------------------------------------
# JSON has no bytes, tuples, sets or non-string keys, so those travel tagged: {"b": base64},
# {"t": [...]}, {"s": [...]}, {"d": [[key, value], ...]}; a list is a JSON array. Anything else
# (a numpy integer, a str subclass, an object) becomes {"x": type name, "r": short repr}: the
# trusted side reports it as the wrong type instead of trusting an object it cannot compare.


class Foreign:
    """A value of a type the wire format does not carry, as the trusted side sees it."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.text}>"


def encode(value, depth: int = 0):
    """``value`` as JSON-ready data. Exact builtin types only; containers read with builtin methods."""
    kind = type(value)
    if depth > MAX_DEPTH:
        return {"x": "a value nested too deeply", "r": "..."}
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is bytes:
        return {"b": base64.b64encode(value).decode("ascii")}
    if kind is tuple:
        return {"t": [encode(item, depth + 1) for item in tuple.__iter__(value)]}
    if kind is list:
        return [encode(item, depth + 1) for item in list.__iter__(value)]
    if isinstance(value, dict):  # dict, Counter, defaultdict, OrderedDict: their items, as a dict
        return {"d": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in dict.items(value)]}
    if kind in (set, frozenset):
        return {"s": [encode(item, depth + 1) for item in set.__iter__(set(value))]}
    try:
        text = object.__repr__(value) if kind.__repr__ is object.__repr__ else repr(value)
    except Exception:  # a broken __repr__ of the learner's: the type name says enough
        text = "?"
    return {"x": f"{kind.__module__}.{kind.__qualname__}", "r": text[:80]}


# A dict or set whose keys share one hash takes quadratic time to build (integers k * (2**61 - 1),
# crafted tuples): more keys than this with the same hash, and the reply is refused before it is built.
MAX_SAME_HASH = 8


def _distinct_hashes(keys: list) -> list:
    """``keys``, after checking that no hash is shared by more than :data:`MAX_SAME_HASH` of them."""
    seen: dict[int, int] = {}
    for key in keys:
        try:
            code = hash(key)
        except TypeError:
            raise ValueError(f"an unhashable key or set item: {str(key)[:80]}") from None
        seen[code] = count = seen.get(code, 0) + 1
        if count > MAX_SAME_HASH:
            raise ValueError(f"more than {MAX_SAME_HASH} keys or set items with the same hash (a hash flood)")
    return keys


def decode(data, depth: int = 0):
    """The value :func:`encode` made, rebuilt from exact builtin types (or :class:`Foreign`).

    Bounded for the trusted side, which decodes what the learner's process wrote: nesting deeper
    than :func:`encode` makes and dicts or sets of keys sharing one hash are refused
    (``ValueError``) before they cost the grader anything but a linear pass."""
    if depth > MAX_DEPTH + 2:
        raise ValueError("a value nested too deeply")
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(item, depth + 1) for item in data]
    if type(data) is dict and len(data) >= 1:
        if "b" in data:
            return base64.b64decode(data["b"], validate=True)
        if "t" in data:
            return tuple(decode(item, depth + 1) for item in data["t"])
        if "d" in data:
            pairs = [(decode(key, depth + 1), decode(value, depth + 1)) for key, value in data["d"]]
            _distinct_hashes([key for key, _ in pairs])
            return dict(pairs)
        if "s" in data:
            return set(_distinct_hashes([decode(item, depth + 1) for item in data["s"]]))
        if "x" in data:
            return Foreign(str(data["x"]), str(data.get("r", "")))
    raise ValueError(f"not a value of the wire format: {str(data)[:80]}")


# ---- confinement -------------------------------------------------------------------------------

# Landlock (Linux 5.13+): unprivileged, allow-list file system access; ABI 4 adds TCP, ABI 6 scopes
# signals and abstract unix sockets to the sandbox. Syscall numbers are the same on x86_64 and arm64.
_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_FS = {name: 1 << bit for bit, name in enumerate(
    "execute write_file read_file read_dir remove_dir remove_file make_char make_dir make_reg "
    "make_sock make_fifo make_block make_sym refer truncate ioctl_dev".split())}
_FS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}  # how many of the rights above each ABI knows
_FILE_RIGHTS = _FS["execute"] | _FS["write_file"] | _FS["read_file"] | _FS["truncate"] | _FS["ioctl_dev"]
_READ = _FS["execute"] | _FS["read_file"] | _FS["read_dir"]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock(read_paths: list[str], list_paths: list[str], write_paths: list[str]) -> str:
    """Allow reading ``read_paths``, listing (not reading) the folders ``list_paths`` and what is
    below them, and reading and writing ``write_paths``; nothing else, no TCP, no signals to
    processes outside. Returns what was applied, or raises ``OSError``."""
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
        for paths, rights in ((read_paths, _READ), (list_paths, _FS["read_dir"]), (write_paths, handled)):
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


# seccomp: a classic BPF filter, written out because it is short and a maintained Python binding
# does not ship on PyPI. It refuses io_uring (whose queued operations no filter sees), sockets
# (AF_UNIX ones only where the lab allows processes, whose workers need them: Landlock does not stop
# a connect() to a unix socket file outside the sandbox), and, unless the lab allows processes,
# fork/vfork/execve and clone without CLONE_THREAD (threads stay possible); and a seccomp filter of
# the learner's own (see below). Where the kernel has user notification (5.0+),
# a refused call is not answered by the filter itself: it goes to the keeper (:func:`keep`), which
# runs none of the learner's code, counts it by name and answers it with the same error; so what
# the sandbox refused can be flagged from outside. The worker hands the notification fd over before
# any code of the learner's runs, and keeps no copy.
_SECCOMP_ARCH = {  # machine: AUDIT_ARCH, then the numbers of the calls the filter reads (None: no such call)
    "x86_64": (0xC000003E, {"socket": 41, "execve": 59, "execveat": 322, "fork": 57, "vfork": 58, "clone": 56,
                            "clone3": 435, "seccomp": 317, "prctl": 157, "open": 2, "creat": 85, "openat": 257,
                            "openat2": 437, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                            "socketpair": 53, "connect": 42}),
    "aarch64": (0xC00000B7, {"socket": 198, "execve": 221, "execveat": 281, "fork": None, "vfork": None, "clone": 220,
                             "clone3": 435, "seccomp": 277, "prctl": 167, "open": None, "creat": None, "openat": 56,
                             "openat2": 437, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                             "socketpair": 199, "connect": 203}),
}
# io_uring runs socket(), openat() and the like as queued operations that no filter sees: refused
# whole (Python never uses it), or a ring would make a UDP socket past the socket() rule below.
_IO_URING_CALLS = ("io_uring_setup", "io_uring_enter", "io_uring_register")
# The calls that open a file by path: sent to the keeper too, which reads the path, counts it if
# Landlock will refuse it, and lets the call go on (Landlock decides; see :class:`_FileWatch`).
_OPEN_CALLS = ("open", "creat", "openat", "openat2")
_EPERM, _EACCES, _ENOSYS = 1, 13, 38
_RET_ALLOW, _RET_ERRNO, _RET_USER_NOTIF = 0x7FFF0000, 0x00050000, 0x7FC00000
_PR_SET_SECCOMP, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_NEW_LISTENER = 22, 1, 8
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
        return "prctl(PR_SET_SECCOMP)", _EPERM
    if name == "clone3":
        return name, _ENOSYS
    return name, _EPERM


def _seccomp_program(allow_processes: bool, notify: bool, watch_files: bool = False,
                     keep_connects: bool = False) -> list[tuple[int, int, int, int]]:
    """The filter as ``(code, jt, jf, k)``; ``notify``: refused calls go to the listener (the keeper);
    ``watch_files``: so do the opens, which the keeper lets go on; ``keep_connects``: so do the
    connects, which the keeper makes itself (:class:`_Connects`)."""
    arch, numbers = _SECCOMP_ARCH[platform.machine()]
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, JMP|JSET|K, RET|K
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
    if watch_files:
        for name in _OPEN_CALLS:
            if numbers[name] is not None:
                emit(JEQ, numbers[name], 0, 1)
                emit(RET, _RET_USER_NOTIF)
    for name in _IO_URING_CALLS:
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
    # No seccomp filter of the learner's own: the kernel applies the strictest answer of all filters,
    # so one that answered a refused call with an error itself would hide it from the keeper's count.
    emit(JEQ, numbers["seccomp"], 0, 1)
    refuse(_EPERM)
    emit(JEQ, numbers["prctl"], 0, 4)
    emit(LD, 16)  # args[0], the option
    emit(JEQ, _PR_SET_SECCOMP, 0, 1)
    refuse(_EPERM)
    emit(RET, _RET_ALLOW)  # any other prctl
    if not allow_processes:
        for name in ("execve", "execveat", "fork", "vfork"):
            if numbers[name] is not None:
                emit(JEQ, numbers[name], 0, 1)
                refuse(_EPERM)
        emit(JEQ, numbers["clone3"], 0, 1)
        # glibc then falls back to clone, whose flags can be read: every thread start takes this
        # path, so it is answered here, never counted.
        emit(RET, _RET_ERRNO | _ENOSYS)
        emit(JEQ, numbers["clone"], 0, 4)
        emit(LD, 16)  # args[0], the clone flags (low 32 bits)
        emit(JSET, 0x00010000, 0, 1)  # CLONE_THREAD: a thread, allowed
        emit(RET, _RET_ALLOW)
        refuse(_EPERM)
    emit(RET, _RET_ALLOW)
    return program


def _kernel_at_least(major: int, minor: int) -> bool:
    found = re.match(r"(\d+)\.(\d+)", platform.release())
    return bool(found) and (int(found[1]), int(found[2])) >= (major, minor)


def seccomp(allow_processes: bool, handoff=None, watch_files: bool = True) -> str:
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

    def compiled(notify: bool, watch_files: bool = False, keep_connects: bool = False) -> _SockFprog:
        program = _seccomp_program(allow_processes, notify, watch_files, keep_connects)
        filters = (_SockFilter * len(program))(*[_SockFilter(c, jt, jf, k) for c, jt, jf, k in program])
        return _SockFprog(len(program), filters)

    what = "seccomp: no network sockets" + ("" if allow_processes else ", no new processes (threads allowed)")
    unix = "; unix sockets: connect() to any path, NOT restricted" if allow_processes else ""
    counted = "refused calls not counted (no keeper to count them)"
    import socket  # now: once the filter is in, an import's opens wait for the keeper, which has no listener yet

    if handoff is not None:
        # Letting a notified call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE) needs Linux 5.5.
        watch_files = watch_files and _kernel_at_least(5, 5)
        keep_connects = allow_processes and _kernel_at_least(5, 6)  # the keeper takes the socket with pidfd_getfd
        prog = compiled(True, watch_files, keep_connects)
        listener = libc.syscall(_SECCOMP_ARCH[machine][1]["seccomp"], _SECCOMP_SET_MODE_FILTER,
                                _SECCOMP_FILTER_FLAG_NEW_LISTENER, ctypes.byref(prog))
        if listener >= 0:
            try:
                socket.send_fds(handoff, [b"listener"], [listener])
                counted = "refused calls counted by the keeper" + (", and opens Landlock refuses" if watch_files else
                                                                   " (not the opens Landlock refuses)")
                if keep_connects:
                    unix = "; unix sockets: connect() made by the keeper, to the scratch folder's only"
            except OSError as error:  # the filter is in place; with no listener, the kernel answers ENOSYS
                counted = f"refused calls not counted (the keeper could not be given them: {error.strerror or error})"
            finally:
                os.close(listener)  # the learner's code must never hold it: it could answer its own calls
                handoff.close()
            return f"{what}; {counted}{unix}"
        counted = f"refused calls not counted (no seccomp user notification: {os.strerror(ctypes.get_errno())})"
    prog = compiled(False)
    if libc.prctl(_PR_SET_SECCOMP, 2, ctypes.byref(prog), 0, 0) != 0:  # SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP failed")
    return f"{what}; {counted}{unix}"


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
    return "rlimits: " + ", ".join(applied) if applied else ""


def confine(policy: dict, handoff=None) -> list[str]:
    """Lock this process in as ``policy`` says; return a line per mechanism (what is in force).
    ``handoff``: the keeper's socket, for the seccomp filter's notifications; closed here in any case."""
    report = []
    scratch = policy["scratch"]
    os.chdir(scratch)
    if os.name == "posix":
        report.append(rlimits(policy["memory_mb"], policy["cpu_seconds"], policy["file_mb"]))
    if sys.platform.startswith("linux"):
        try:
            report.append(landlock(policy["read_paths"], policy.get("list_paths", []),
                                   [scratch, "/dev/null"] + policy.get("write_paths", [])))
        except OSError as error:
            report.append(f"no Landlock ({error.strerror or error}): files and network NOT restricted")
        try:
            report.append(seccomp(policy.get("allow_processes", False), handoff, policy.get("watch_files", True)))
        except OSError as error:
            report.append(f"no seccomp ({error.strerror or error}): sockets and processes NOT restricted")
    if handoff is not None:
        handoff.close()  # (seccomp closed it already where it was used): nothing of it is left to the learner
    if not sys.platform.startswith("linux"):
        report.append(f"{sys.platform}: files, network and processes NOT restricted (Landlock and seccomp are Linux only)")
    return [line for line in report if line]


# ---- running the learner's code ----------------------------------------------------------------


_MODULE_FILE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.py")


class _Shell:
    """Stands in for IPython's ``get_ipython()``: magics and shell commands are skipped while grading,
    but ``%%writefile NAME.py``, with which a lab has the learner write a module of their own
    (lab 03: worker functions that a ``spawn`` process can import), writes it into the scratch
    folder, which is on ``sys.path``."""

    def run_cell_magic(self, magic: str, line: str, cell: str) -> None:
        name = line.strip()
        if magic != "writefile" or not _MODULE_FILE.fullmatch(name):
            print(f"(skipped while grading: %%{magic} {line})", file=sys.stderr)
            return
        with open(name, "w", encoding="utf-8") as file:  # the current folder is the scratch folder
            file.write(cell)
        importlib.invalidate_caches()
        print(f"Writing {name}")

    def __getattr__(self, name):
        def skipped(*args, **kwargs):
            print(f"(skipped while grading: {name}{args[:2]!r})", file=sys.stderr)

        return skipped


def _display(*objects, **kwargs) -> None:
    for value in objects:
        print(repr(value))


def _captured(stream: io.StringIO) -> str:
    text = stream.getvalue()
    return text if len(text) <= MAX_OUTPUT_CHARS else text[:MAX_OUTPUT_CHARS] + f"\n... ({len(text)} characters in all)"


def _error(exc: BaseException) -> dict:
    """An exception of the learner's code as data; traceback frames of this file left out."""
    # The lines of this file's frames are never looked up: this process cannot read its own file, and
    # the refused open would be counted against the learner (its keeper watches opens).
    frames = [frame for frame in traceback.StackSummary.extract(traceback.walk_tb(exc.__traceback__), lookup_lines=False)
              if frame.filename != WORKER_FILE]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    try:
        message = str(exc)
    except Exception:
        message = "?"
    return {"ename": type(exc).__name__, "evalue": message[:2000], "traceback": [line[:2000] for line in lines[-30:]]}


class Worker:
    def __init__(self) -> None:
        self.namespace: dict = {"__name__": "__main__", "__builtins__": builtins, "get_ipython": lambda: _Shell(), "display": _display}
        self.stand_in_modules: dict[str, dict] = {}  # source -> the namespace it defined, built once
        self.failed_cells: list[str] = []  # "cell NAME raised ERROR: ...", to explain a name never defined

    def stand_ins(self, request: dict, key: str = "stand_ins") -> dict:
        """``name -> function`` of the request's stand-ins (or, with ``key="driver"``, its driver):
        the reference's helpers, sent as source by the trusted side, run in a namespace of their own
        (not the learner's, not importable)."""
        wanted = request.get(key)
        if not wanted:
            return {}
        source = wanted["source"]
        if source not in self.stand_in_modules:
            namespace: dict = {"__name__": "stand_ins", "__builtins__": builtins}
            exec(compile(source, "<the reference's helpers>", "exec"), namespace)
            self.stand_in_modules[source] = namespace
        return {name: self.stand_in_modules[source][name] for name in wanted["names"]}

    def run_exec(self, request: dict) -> dict:
        name = str(request.get("name", "cell"))
        filename = f"<cell {name}>"
        code = request["code"]
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)  # tracebacks show lines
        out, err = io.StringIO(), io.StringIO()
        reply: dict = {"ok": True}
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                exec(compile(code, filename, "exec"), self.namespace)
            except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the cell failed
                reply = {"ok": False, "error": _error(exc)}
                self.failed_cells.append(f"cell {name} raised {type(exc).__name__}: {str(exc)[:200]}")
        reply.update(stdout=_captured(out), stderr=_captured(err))
        return reply

    def run_call(self, request: dict) -> dict:
        name = request["name"]
        function = self.namespace.get(name)
        if function is None:
            why = (f"; it may be defined in a cell that failed ({self.failed_cells[-1]})" if self.failed_cells
                   else ": write it (and run its cell) in the notebook")
            return {"ok": False, "error": {"ename": "NameError", "evalue": f"name {name!r} is not defined{why}", "traceback": []}}
        if not callable(function):
            return {"ok": False, "error": {"ename": "TypeError",
                                           "evalue": f"{name} should be a function, but it is a {type(function).__name__}",
                                           "traceback": []}}
        args = [decode(arg) for arg in request["args"]]
        driver = next(iter(self.stand_ins(request, "driver").values()), None)  # calls the function for the grader
        spies: dict[str, list[int]] = {}
        missing = object()
        stand_ins = self.stand_ins(request)  # bound first, so that a spy watches the stand-in
        originals = {helper: self.namespace.get(helper, missing) for helper in stand_ins}
        self.namespace.update(stand_ins)
        for spied in request.get("spy", []):
            original = self.namespace.get(spied)
            if callable(original):
                spies[spied] = calls = []
                originals.setdefault(spied, original)
                self.namespace[spied] = _spy(original, calls)
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    result = function(*args) if driver is None else driver(function, *args)
                    reply = {"ok": True, "result": encode(result)}
                    if request.get("return_args"):
                        reply["args"] = [encode(arg) for arg in args]
                except BaseException as exc:
                    reply = {"ok": False, "error": _error(exc)}
        finally:
            for restored, value in originals.items():
                if value is missing:
                    self.namespace.pop(restored, None)
                else:
                    self.namespace[restored] = value
        if spies:
            reply["spy"] = spies
        reply.update(stdout=_captured(out), stderr=_captured(err))
        return reply


def _spy(function, calls: list[int]):
    """``function``, recording the length of its first argument (-1 without one) at every call."""

    def spied(*args, **kwargs):
        first = args[0] if args else next(iter(kwargs.values()), None)
        try:
            calls.append(len(first))
        except Exception:
            calls.append(-1)
        return function(*args, **kwargs)

    return spied


def serve(requests, replies) -> None:
    worker = Worker()
    for line in requests:
        try:
            request = json.loads(line)
            handler = {"exec": worker.run_exec, "call": worker.run_call}[request["op"]]
            reply = handler(request)
        except BaseException as exc:  # a request the worker could not even start on
            request = request if isinstance(request, dict) else {}
            reply = {"ok": False, "error": _error(exc)}
        reply["id"] = request.get("id")
        try:
            data = json.dumps(reply, ensure_ascii=True)
        except (TypeError, ValueError, RecursionError) as exc:
            data = json.dumps({"id": request.get("id"), "ok": False,
                               "error": {"ename": "UnsendableResult", "evalue": str(exc)[:200], "traceback": []}})
        replies.write(data + "\n")
        replies.flush()


# ---- the keeper: the worker's parent, which kills every process the worker started ---------------

_PR_SET_CHILD_SUBREAPER = 36


def _proc_table() -> dict[int, tuple[int, int, str]]:
    """``pid -> (parent pid, session id, state)`` of every process, read from /proc."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat_file:
                fields = stat_file.read().rsplit(b")", 1)[1].split()
            table[int(name)] = (int(fields[1]), int(fields[3]), fields[0].decode())
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    return table


def _descendants(root: int, table: dict[int, tuple[int, int, str]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (parent, _, state) in table.items():
        if state != "Z":
            children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


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


def _shm_entries() -> dict[str, float]:
    try:
        return {entry.name: entry.stat(follow_symlinks=False).st_ctime for entry in os.scandir("/dev/shm")}
    except OSError:
        return {}


def _mapped_anywhere(paths: set[str]) -> set[str]:
    """Which of ``paths`` some live process has open or mapped (another grader's semaphores)."""
    used: set[str] = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{name}/maps", encoding="utf-8", errors="replace") as maps:
                used.update(path for path in paths if path in maps.read())
    return used


# seccomp user notification (include/uapi/linux/seccomp.h): the structures and ioctls the keeper uses.
class _SeccompData(ctypes.Structure):
    _fields_ = [("nr", ctypes.c_int32), ("arch", ctypes.c_uint32), ("instruction_pointer", ctypes.c_uint64),
                ("args", ctypes.c_uint64 * 6)]


class _SeccompNotif(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64), ("pid", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("data", _SeccompData)]


class _SeccompNotifResp(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64), ("val", ctypes.c_int64), ("error", ctypes.c_int32), ("flags", ctypes.c_uint32)]


def _iowr(number: int, size: int) -> int:
    return (3 << 30) | (size << 16) | (ord("!") << 8) | number  # _IOWR('!', number, size)


_NOTIF_RECV = _iowr(0, ctypes.sizeof(_SeccompNotif))
_NOTIF_SEND = _iowr(1, ctypes.sizeof(_SeccompNotifResp))
_NOTIF_ID_VALID = (1 << 30) | (8 << 16) | (ord("!") << 8) | 2  # _IOW('!', 2, __u64)
_USER_NOTIF_FLAG_CONTINUE = 1
MAX_REFUSAL_NAMES = 16  # distinct calls (and files) named in a report; the rest are counted together


def _beneath(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


class _FileWatch:
    """Which opens of the worker's Landlock will refuse, seen by the keeper: the path is read from
    the caller's memory (``/proc/PID/mem``) and resolved against the rules the worker gave Landlock
    (:func:`confine`). The call then goes on and Landlock decides: a path changed between this read
    and the open (another thread) changes the count, never what is allowed."""

    def __init__(self, policy: dict, numbers: dict[str, int | None]) -> None:
        def resolved(paths: list[str]) -> list[str]:
            return [os.path.realpath(path) for path in paths]

        self.calls = {numbers[name]: name for name in _OPEN_CALLS if numbers.get(name) is not None}
        self.read = resolved(policy.get("read_paths", []))
        self.listed = resolved(policy.get("list_paths", []))
        self.write = resolved([policy.get("scratch", "/nonexistent"), "/dev/null"] + policy.get("write_paths", []))
        # What the interpreter, its loader and the C library probe on their own, refused and harmless
        # (seen in lab 03's spawned processes): a virtual environment's pyvenv.cfg, libpython next to
        # the interpreter, the locale aliases, the CPU count and the memory overcommit policy.
        self.probes = resolved([os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "pyvenv.cfg"),
                                os.path.join(os.path.dirname(sys.executable), "pyvenv.cfg")]) + [
            "/sys/devices/system/cpu", "/proc/stat", "/proc/cpuinfo", "/proc/sys/vm/overcommit_memory", "/etc/locale.alias"]
        self.memory: dict[int, int] = {}  # pid -> its /proc/PID/mem, open
        self.opens = 0

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

    def refused(self, pid: int, nr: int, args: tuple[int, ...]) -> str | None:
        """``"read PATH"`` or ``"write PATH"`` if Landlock will refuse this open, else None."""
        self.opens += 1
        name = self.calls[nr]
        text = self._text(pid, args[1] if name.startswith("openat") else args[0])
        flags = self._flags(pid, name, args)
        if not text or flags is None or flags & getattr(os, "O_PATH", 0):
            return None  # unreadable (the caller is gone), or an O_PATH open, which Landlock does not check
        own = re.match(r"/proc/(self|thread-self)(/|$)", text)  # its own /proc entries (a child closing its fds lists them)
        text = re.sub(r"^/proc/(self|thread-self)(?=/|$)", f"/proc/{pid}", text)
        if not text.startswith("/"):
            dirfd = ctypes.c_int32(args[0] & 0xFFFFFFFF).value if name.startswith("openat") else -100  # AT_FDCWD
            try:
                base = os.readlink(f"/proc/{pid}/cwd" if dirfd == -100 else f"/proc/{pid}/fd/{dirfd}")
            except OSError:
                return None
            text = os.path.join(base, text)
        path = os.path.realpath(text)
        writes = flags & os.O_ACCMODE != os.O_RDONLY or bool(flags & (os.O_CREAT | os.O_TRUNC))
        if not os.path.exists(path):
            if not flags & os.O_CREAT:
                return None  # "no such file": refused by no one
            allowed = _beneath(os.path.dirname(path), self.write)
        elif writes:
            allowed = _beneath(path, self.write)
        else:
            allowed = _beneath(path, self.read + self.write) or (os.path.isdir(path) and _beneath(path, self.listed))
        name_only = os.path.basename(path)
        if allowed or _beneath(path, self.probes) or (own and path.startswith("/proc/")) or (
                name_only.startswith("libpython") and ".so" in name_only):
            return None
        return f"{'write' if writes else 'read'} {path[:160]}"


class _Connects:
    """The connect() calls of the worker's processes (where the lab allows processes), made by the keeper.

    Landlock (up to ABI 7) does not stop a connect() to a unix socket file outside the sandbox (a
    session bus, a database, another program's listener), and letting a notified call go on would
    trust an address another thread can change after the keeper read it. So the keeper connects the
    caller's socket itself: it reads the address once, opens the socket file *beneath the scratch
    folder* (``openat2`` with ``RESOLVE_BENEATH``: no ``..``, no link out of it), takes the caller's
    socket (``pidfd_getfd``, the same open socket) and connects it to that file, then answers with
    the result. Any other address is refused and counted; abstract names too (none of multiprocessing's)."""

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
            pidfd = self.libc.syscall(self._PIDFD_OPEN, pid, 0)
            if pidfd < 0:
                return 3, None
            opened.append(pidfd)
            if not still_waiting():  # the pid is the caller's (not reused) only while its call waits
                return 3, None
            caller = self.libc.syscall(self._PIDFD_GETFD, pidfd, ctypes.c_int32(fd & 0xFFFFFFFF).value, 0)
            if caller < 0:
                return ctypes.get_errno(), None  # EBADF: no such fd
            import socket

            try:
                with socket.socket(fileno=caller) as sock:  # the caller's socket (seccomp lets it make AF_UNIX only)
                    sock.connect(f"/proc/self/fd/{target}")  # the file opened above, not the path again
            except OSError as error:
                return error.errno or 22, None
            return 0, None
        finally:
            for fd_opened in opened:
                os.close(fd_opened)


def _count_refusals(handoff, refused: dict[str, int], files: dict[str, int], policy: dict, stats: dict) -> None:
    """The keeper's thread: receive the worker's notification fd on ``handoff``, then answer every
    call the filter refused with the filter's error (never "continue"), counting it in ``refused``;
    and let every open go on, counting in ``files`` those Landlock will refuse (:class:`_FileWatch`).
    Blocks only this thread; the worker waits for an answer only as long as this loop takes for it.
    The names kept are bounded; the counts are integers; a learner who loops on a refused call pays
    one answer per call, within the notebook's time budget."""
    import socket

    try:
        _, fds, _, _ = socket.recv_fds(handoff, 64, 1)
    except OSError:
        return
    finally:
        handoff.close()
    if not fds:
        return  # the worker had no notifications to hand over (the kernel answers refused calls itself)
    listener = fds[0]
    libc = _libc()
    notif, answer = _SeccompNotif(), _SeccompNotifResp()
    machine = platform.machine()
    arch, numbers = _SECCOMP_ARCH[machine]
    watch = _FileWatch(policy, numbers)
    connects = _Connects(policy, watch)

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
            if notif.data.arch == arch and notif.data.nr in watch.calls:
                answer.flags = _USER_NOTIF_FLAG_CONTINUE  # Landlock decides
                try:
                    refused_open = watch.refused(notif.pid, notif.data.nr, args)
                except Exception:  # a path this code did not foresee: the open is answered all the same
                    refused_open = None
                # the path was read from the caller's memory: count it only if the caller was still waiting then
                if refused_open and waiting(notif.id):
                    count(files, refused_open, "other files")
            elif notif.data.arch == arch and notif.data.nr == numbers["connect"]:
                try:
                    error, refused_connect = connects.answer(notif.pid, args, functools.partial(waiting, notif.id))
                except Exception:  # what this code did not foresee: refused, not made
                    error, refused_connect = _EACCES, "connect(an address the keeper could not read)"
                if refused_connect and waiting(notif.id):
                    count(refused, refused_connect, "other refused calls")
                answer.error = -error
            else:
                try:
                    name, error = refusal(notif.data.arch, notif.data.nr, args, machine)
                except Exception:
                    name, error = f"system call #{notif.data.nr}", _EPERM
                count(refused, name, "other refused calls")
                answer.error = -error
            libc.ioctl(listener, ctypes.c_ulong(_NOTIF_SEND), ctypes.byref(answer))  # ENOENT if the caller died: fine
            stats["notified_opens"] = watch.opens
            stats["seconds"] = stats.get("seconds", 0.0) + time.perf_counter() - started
    finally:
        os.close(listener)  # from now on the kernel answers every notified call itself (ENOSYS)


def keep(policy: dict, control_fd: int, report_fd: int):
    """Become the worker's parent and keeper (Linux): a child subreaper that forks the worker, counts
    and limits the processes under it, and when the worker exits or the trusted side closes the
    control pipe, kills every one of them, removes what they left in /dev/shm, reports, and exits.
    It also answers and counts the system calls the worker's seccomp filter refused
    (:func:`_count_refusals`). Returns, in the worker only, the socket on which the worker hands
    over the filter's notification fd (:func:`seccomp`).
    The keeper confines nothing of itself and runs none of the learner's code; the worker, confined,
    can neither signal nor trace it (Landlock scopes both from ABI 6)."""
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
        keeper_end.close()
        return worker_end  # the child goes on to be the worker
    worker_end.close()
    refused: dict[str, int] = {}
    refused_files: dict[str, int] = {}
    notified: dict = {}  # how many opens the keeper looked at, and its seconds answering (overhead)
    threading.Thread(target=_count_refusals, args=(keeper_end, refused, refused_files, policy, notified), daemon=True).start()
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
    import select

    while True:
        ready, _, _ = select.select([control_fd], [], [], 0.1 if watch else 0.5)
        if ready and not os.read(control_fd, 64):
            break  # the trusted side is done with this worker
        with contextlib.suppress(ChildProcessError):
            pid, code = os.waitpid(worker, os.WNOHANG)
            if pid == worker:
                status = code
                break
        if watch:
            table = _proc_table()
            alive = [pid for pid in _descendants(os.getpid(), table) if pid != worker]
            seen.update(alive)
            left_session.update(pid for pid in alive if table[pid][1] != my_session)
            _reap(keep=worker)
            if len(alive) > limit:
                reason = f"it started more than {limit} processes at once"
                break
    table = _proc_table()
    still = [pid for pid in _descendants(os.getpid(), table) if pid != worker]
    seen.update(still)
    left_session.update(pid for pid in still if table[pid][1] != my_session)
    worker_was_running = status is None
    killed = _kill_descendants(worker, waited=not worker_was_running)
    if status is None:
        with contextlib.suppress(ChildProcessError):
            status = os.waitpid(worker, 0)[1]
    removed = []
    if shm_before is not None and watch:
        # multiprocessing's own semaphores and blocks (sem.mp-*, psm_*) are left alone: another process's
        # pool (a concurrent grading, the learner's kernel) may have created one that its spawned child
        # has not opened yet, and removing it broke that pool (seen in the test suite).
        new = {name for name, ctime in _shm_entries().items()
               if name not in shm_before and ctime >= started_at - 1 and not name.startswith(("sem.mp-", "psm_"))}
        paths = {f"/dev/shm/{name}" for name in new}
        for path in sorted(paths - _mapped_anywhere(paths)):
            with contextlib.suppress(OSError):
                if os.lstat(path).st_uid == os.getuid():
                    os.unlink(path)
                    removed.append(path)
    # Bounded like the counts (a learner's thousands of long /dev/shm names must not make the report
    # too long for the trusted side to read, which would lose every line of it).
    report = {"status": status, "processes_started": len(seen), "left_session": len(left_session),
              "killed_at_end": max(0, killed - (1 if worker_was_running else 0)), "shm_removed": removed[:16],
              "shm_removed_more": max(0, len(removed) - 16), "reason": reason,
              "refused": dict(refused), "refused_files": dict(refused_files), "notified": dict(notified)}
    with contextlib.suppress(OSError):
        os.write(report_fd, (json.dumps(report) + "\n").encode())
    os._exit(0)


def main() -> None:
    policy = json.loads(sys.argv[1])
    handoff = None
    if policy.get("control_fd") is not None:
        handoff = keep(policy, policy["control_fd"], policy["report_fd"])  # returns in the worker only
    # sys.path: the standard library, then a folder of links to the packages a lab may import.
    sys.path = [p for p in sys.path if p and os.path.isdir(p)] + [policy["packages_dir"]]
    # The protocol keeps the pipes the trusted side opened as stdin and stdout; the learner's code
    # gets /dev/null and the stderr pipe instead, so what it prints cannot garble a reply.
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    isolation = confine(policy, handoff)
    # A module the learner writes (``%%writefile``) is imported from the scratch folder, here and in
    # the processes a lab may start (spawn and forkserver children get this sys.path).
    sys.path.insert(0, policy["scratch"])
    # Like a Jupyter kernel's, this process's __main__ has no file for a spawned child to re-run (it
    # could not read this file anyway): functions defined in the notebook's cells do not reach a
    # spawned worker, those of a module written with %%writefile do.
    sys.modules["__main__"].__dict__.pop("__file__", None)
    replies.write(json.dumps({"hello": True, "isolation": isolation, "python": platform.python_version()}) + "\n")
    replies.flush()
    serve(requests, replies)


if __name__ == "__main__":
    main()
