"""The worker loop: runs a learner's cells and answers calls of their functions.

The sandbox runs ``python -I -S worker/__main__.py POLICY`` (no site-packages, no environment, this
folder on the path only to load its siblings) and talks to it in newline-delimited JSON over two
pipes. The worker becomes its keeper's child (:mod:`keeper`), then locks itself in
(:mod:`confinement`) before the first request. Nothing of ``bpe_ref`` is imported here; what goes
back is only data (:mod:`wire`).

The trusted side's first line is a key (``{"seal": HEX}``); every line the loop writes back is ``SEAL JSON``, where
SEAL is a keyed BLAKE2b of the request as the loop read it and of the reply (:func:`_serving`). The loop runs on two
threads: the main thread runs the cells and calls, as a kernel does; a thread of its own reads the requests, seals and
writes the replies, and alone holds the key, in its locals (no frame of the main thread, where the learner's code, its
signal handlers and its tracebacks run, holds it). Requests and replies (``id`` is echoed)::

    {"id": 1, "op": "exec", "name": "task1_solution", "code": "def f(x): ..."}
    -> {"id": 1, "ok": true, "stdout": "", "stderr": ""}     # or "ok": false, "error": {...}
    {"id": 2, "op": "call", "name": "count_pairs", "args": [...], "return_args": false, "spy": []}
    -> {"id": 2, "ok": true, "result": ..., "stdout": "", "stderr": ""}

A call may carry ``stand_ins`` (reference helpers bound in place of the learner's while it runs)
and a ``driver`` (a reference function called as ``driver(function, *args)``, for a function whose
arguments are not data: lab 09's harness, given a fake clock), both as source. A driver's namespace holds
``sealed_by_the_loop(message) -> bytes``: the sealing thread's keyed BLAKE2b of ``message``, of a kind of its own
(person :data:`DRIVERS_SEAL`), which the trusted side, holding the key, can check and the learner's code cannot make
but by handing ``message`` to the sealing thread (lab 10's nodes made by the function a driver hands in).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import linecache
import os
import platform
import signal
import stat
import sys
import tokenize
import traceback
import types

# The builtins this loop and the reference's code run here (stand-ins, drivers) look up, as they were before any of the
# learner's code ran: a cell that rebound ``type``, ``isinstance`` or ``all`` made drivers take what the learner's code
# built (``tests/test_grading_redteam.py``, section 42), ``next`` or ``exec`` this loop drop or change a call's driver
# (section 43). This file's functions look theirs up in this copy (a function takes its globals' builtins).
_BUILTINS = dict(vars(builtins))
__builtins__ = _BUILTINS

WORKER_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, WORKER_DIR)  # -I leaves the script's folder off sys.path; its modules come from there, and only they
from confinement import confine, set_apart  # noqa: E402
from keeper import keep  # noqa: E402
from wire import MAX_DEPTH, MAX_OUTPUT_CHARS, Foreign, capped  # noqa: E402

# The learner's code shares this interpreter and can rebind what a module or class holds (``json.dumps``,
# ``json.JSONEncoder.encode``, ``builtins.dict``): a notebook did, to write replies that showed a changed argument as
# it came. So what writes a reply is bound here, when this file is loaded, before any of the learner's code runs: the C
# encoder of json (nothing of it is looked up again), handed to the functions that answer (:data:`_REPLYING`) as
# defaults, as is everything they use (a name in this loop's globals is the learner's to rebind: section 28).
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_REPLY_ENCODER = _C_ENCODER and _C_ENCODER(None, None, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False, True)
_python_dumps = json.dumps
# And what reads a request: a cell that rebound ``json.loads`` had every request as it liked, a call's driver or stand-ins
# dropped (section 43). json's C scanner takes what it uses when it is made; its constants are read by float (a dict's
# __getitem__ here was reachable from the scanner, and the dict writable).
_C_SCANNER = getattr(json.scanner, "c_make_scanner", None)
_REQUEST_SCANNER = _C_SCANNER and _C_SCANNER(json.decoder.JSONDecoder(parse_constant=float))
_python_loads = json.loads
# The seal of a reply, bound at load as the encoder is (a C type, whose methods the learner's code cannot rebind).
from _blake2 import blake2b as _blake2b  # noqa: E402
from binascii import a2b_base64, b2a_base64  # noqa: E402
from _queue import SimpleQueue  # noqa: E402
from _thread import get_ident, start_new_thread  # noqa: E402


# What the notebook is handed (``get_ipython``, ``display``, the spies around its helpers) is defined here, from source,
# in a namespace of its own: a function's ``__globals__`` is its module's, and those of functions defined in this file
# were this loop's (``get_ipython.__globals__["_sealed"]``, rebound, was handed the key of the seals with each reply;
# ``Worker.run_call``, rebound, wrote any reply; no frame read, no event of the interpreter).
_NOTEBOOK_HELPERS = r'''
import importlib, os, re, stat, sys

_MODULE_FILE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.py")


class Shell:
    """IPython's ``get_ipython()`` while grading: magics and shell commands are skipped, but
    ``%%writefile NAME.py`` (lab 03: a module a ``spawn`` process can import) writes into the scratch folder."""

    def run_cell_magic(self, magic, line, cell):
        name = line.strip()
        if magic != "writefile" or not _MODULE_FILE.fullmatch(name):
            print(f"(skipped while grading: %%{magic} {line})", file=sys.stderr)
            return
        # The current folder is the scratch folder, whose files the learner's code makes: a fifo there blocked the
        # open until the cell's backstop of wall time (tests/test_grading_redteam.py, section 44). A regular file only.
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(f"{name} is not a regular file: remove it, then run this cell again")
        with open(fd, "w", encoding="utf-8") as file:
            file.write(cell)
        importlib.invalidate_caches()
        print(f"Writing {name}")

    def __getattr__(self, name):
        def skipped(*args, **kwargs):
            print(f"(skipped while grading: {name}{args[:2]!r})", file=sys.stderr)

        return skipped


def get_ipython():
    return Shell()


def display(*objects, **kwargs):
    for value in objects:
        print(repr(value))


def spy(function, calls):
    """``function``, recording the length of its first argument (-1 without one) at every call."""

    def spied(*args, **kwargs):
        first = args[0] if args else next(iter(kwargs.values()), None)
        try:
            calls.append(len(first))
        except Exception:
            calls.append(-1)
        return function(*args, **kwargs)

    return spied
'''
_HELPERS_FILE = "<the grading worker's notebook helpers>"  # its frames are left out of tracebacks, as this file's
_HELPERS: dict = {"__name__": "notebook_helpers", "__builtins__": builtins}
exec(compile(_NOTEBOOK_HELPERS, _HELPERS_FILE, "exec"), _HELPERS)
_spy = _HELPERS["spy"]  # bound here: the namespace is the notebook's to rebind

# The BLAKE2b person of the seals the sealing thread makes for drivers (``sealed_by_the_loop``), so that none is a
# reply's seal (person none): bytes handed in as ``asked digest + reply`` are sealed as no reply. The graders that check
# them hold the same constant (lab 10's ``checks/lab10_distributed.py``).
DRIVERS_SEAL = b"a driver's seal"
# What hands a driver's bytes to the sealing thread, on the main thread: defined from source in a namespace of its own,
# as the notebook's helpers are, not in this file, whose globals a function defined here would hand to the code that
# reaches it (a driver's namespace is the learner's to read). Its queues come in its closure.
_DRIVER_SEALING = r'''
def sealing_for_drivers(handed, sealed):
    def sealed_by_the_loop(message):
        """The sealing thread's keyed seal of ``message`` (bytes), of the drivers' kind: 32 bytes."""
        handed.put(bytes(message))
        return sealed.get()

    return sealed_by_the_loop
'''
_DRIVER_SEALING_NAMESPACE: dict = {"__name__": "sealing_for_drivers", "__builtins__": dict(_BUILTINS)}
exec(compile(_DRIVER_SEALING, "<the grading worker's sealing for drivers>", "exec"), _DRIVER_SEALING_NAMESPACE)


def _captured(stream: io.StringIO) -> str:
    return capped(stream.getvalue())


def _source_lines(filename: str, limit: int = 2**20) -> list[str]:
    """The lines of a traceback's file as linecache reads them (its encoding cookie), or none: a regular file only, of
    at most ``limit`` bytes, opened without blocking (``O_NONBLOCK``: a fifo or a pipe opens at once, and is refused)."""
    try:
        fd = os.open(filename, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, TypeError, ValueError):
        return []
    with open(fd, "rb") as file:
        data = file.read(limit + 1) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    try:
        return data.decode(tokenize.detect_encoding(io.BytesIO(data).readline)[0]).splitlines(True) if len(data) <= limit else []
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return []


def _error(exc: BaseException) -> dict:
    """An exception of the learner's code as data; traceback frames of this file left out."""
    # The lines of this folder's frames are never looked up: this process cannot read its own file, and
    # the refused open would be counted against the learner (its keeper watches opens).
    frames = [frame for frame in traceback.StackSummary.extract(traceback.walk_tb(exc.__traceback__), lookup_lines=False)
              if os.path.dirname(frame.filename) != WORKER_DIR and frame.filename not in (_HELPERS_FILE, _REPLIES_FILE)]
    # A frame's file name is its code object's, which the learner's code sets (``code.replace(co_filename=...)``): a
    # fifo there blocked linecache's read until the request's backstop of wall time (section 44). So the lines of files
    # not in its cache are read here, without blocking, for this traceback only.
    read = [name for name in dict.fromkeys(frame.filename for frame in frames)
            if not (type(linecache.cache.get(name)) is tuple and len(linecache.cache[name]) == 4)]
    for name in read:
        linecache.cache[name] = (0, None, _source_lines(name), name)
    try:
        lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    finally:
        for name in read:
            linecache.cache.pop(name, None)
    try:
        message = str(exc)
    except Exception:
        message = "?"
    # whether it is a ValueError, a subclass of the learner's included (a check that asks for one: lab 00's surrogates)
    return {"ename": type(exc).__name__, "evalue": message[:2000], "traceback": [line[:2000] for line in lines[-30:]],
            "value_error": isinstance(exc, ValueError)}


class Worker:
    def __init__(self) -> None:
        # The notebook's namespace is the module ``__main__`` (as in a Jupyter kernel): ``import __main__`` and
        # ``sys.modules["__main__"]`` give the learner's own names, never this loop's (its decode and encode, which
        # write what the trusted side is told of a call's arguments: a notebook rewrote them to report arguments it had
        # changed as they came).
        notebook = types.ModuleType("__main__")
        notebook.__dict__.update({"__builtins__": builtins, "get_ipython": _HELPERS["get_ipython"], "display": _HELPERS["display"]})
        self.loop = sys.modules["__main__"]  # this file's module, kept alive by its loop only
        sys.modules["__main__"] = notebook
        self.namespace: dict = notebook.__dict__
        self.stand_in_modules: dict[str, dict] = {}  # source -> the namespace it defined, built once
        self.failed_cells: list[str] = []  # "cell NAME raised ERROR: ...", to explain a name never defined
        self.noticed: set[str] = set()  # what :meth:`noticing` saw, sent with every reply
        self.sealed_by_the_loop = None  # a driver's seals (:func:`_serving`), set once the sealing thread runs

    def noticing(self):
        """An audit hook that notes what the learner's code did that no lab's code does and the interpreter announces
        (sent with every reply, for the instructor's review: a hint, the worker's own word): a function's code replaced
        (``object.__setattr__`` of ``__code__``), a code object made (``code.replace``), a function made of one
        (``types.FunctionType``). Lab 03's count_chunk of a cell was told as its module's so (redteam section 42)."""
        noticed, function, kind, made = self.noticed, types.FunctionType, type, frozenset({"code.__new__", "function.__new__"})

        def notice(event: str, args: tuple) -> None:
            if event in made:
                noticed.add(event)
            elif event == "object.__setattr__" and args[1] == "__code__" and kind(args[0]) is function:
                noticed.add("__code__")

        return notice

    def told(self, name: str, function: object) -> None:
        """Note a graded function whose ``__module__`` is not its globals' module, or whose ``__qualname__`` is not its
        code's: set by a cell (no event announces it), as ``functools.wraps`` does (a function that wraps another,
        ``__wrapped__``, is left out, and so is one that closes over a function of its ``__qualname__``: a decorator's
        wrapper that copies the names by hand, honest work that was flagged, tests/test_review_flags.py)."""
        if type(function) is not types.FunctionType or "__wrapped__" in function.__dict__:
            return
        for cell in function.__closure__ or ():
            try:
                inner = cell.cell_contents
            except ValueError:  # a cell not yet filled
                continue
            if type(inner) is types.FunctionType and inner.__qualname__ == function.__qualname__:
                return
        if function.__module__ != function.__globals__.get("__name__"):
            self.noticed.add(f"__module__ {name}")
        if function.__qualname__ != getattr(function.__code__, "co_qualname", function.__qualname__):  # (3.11+)
            self.noticed.add(f"__qualname__ {name}")

    def stand_ins(self, request: dict, key: str = "stand_ins") -> dict:
        """``name -> function`` of the request's stand-ins (or its driver, ``key="driver"``), run from
        their source in a namespace of their own (not the learner's, not importable); a driver's holds
        ``sealed_by_the_loop``."""
        wanted = request.get(key)
        if not wanted:
            return {}
        source = wanted["source"]
        if source not in self.stand_in_modules:
            namespace: dict = {"__name__": "stand_ins", "__builtins__": dict(_BUILTINS)}
            if key == "driver" and self.sealed_by_the_loop is not None:
                namespace["sealed_by_the_loop"] = self.sealed_by_the_loop
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

    def prepare_call(self, request: dict) -> tuple | dict:
        """What a call runs, before it runs: ``(function, driver, originals, spies)`` (the notebook's function, the
        reference's driver or ``None``, the names the stand-ins and spies replaced, the spies' counts), or the reply of a
        call that cannot start. The learner's code can rewrite what decides these (this class, the loop's globals, the
        stand-ins' namespaces), as it can the driver's namespace while it runs (``trusted/THREAT_MODEL.md``, "Faking
        results"); what the call's reply says of its arguments and value is :data:`_REPLYING`'s alone."""
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
        driver = next(iter(self.stand_ins(request, "driver").values()), None)  # calls the function for the grader
        spies: dict[str, list[int]] = {}
        missing = _MISSING
        stand_ins = self.stand_ins(request)  # bound first, so that a spy watches the stand-in
        originals = {helper: self.namespace.get(helper, missing) for helper in stand_ins}
        self.namespace.update(stand_ins)
        for spied in request.get("spy", []):
            original = self.namespace.get(spied)
            if callable(original):
                spies[spied] = calls = []
                originals.setdefault(spied, original)
                self.namespace[spied] = _spy(original, calls)
        with contextlib.suppress(Exception):
            self.told(name, function)
        return function, driver, originals, spies

    def calling(self, function, driver, args: tuple) -> object:
        """The call itself, in a frame of the worker's (as a kernel's: code that walks its callers finds ``self``); it
        looks up no name, and its code is refused to change as what answers is (:data:`_REPLYING`)."""
        return function(*args) if driver is None else driver(function, *args)

    def restore_call(self, originals: dict, spies: dict) -> dict:
        """The notebook's names as they were before the call's stand-ins and spies; the spies' counts."""
        for restored, value in originals.items():
            if value is _MISSING:
                self.namespace.pop(restored, None)
            else:
                self.namespace[restored] = value
        return spies


_MISSING = object()  # a name the notebook did not hold before a call's stand-ins

# What answers a request, and what writes the reply of a call (its value, its arguments as they came back, a driver's
# report): the learner's code shares this thread and reaches the globals of every frame below it (a signal handler's
# frame, ``f_back``, ``f_globals``: no audit event), the classes and modules of what those frames hold, and their names,
# which it can rebind: a cell rebound this loop's ``encode`` and ``decode`` so and kept a mistake's points (section 28).
# So these functions look up no name when they run: every name they use is a parameter, bound as a default when they
# are defined, before any of the learner's code runs, to a builtin, a C type's method or one of these functions (whose
# ``__defaults__``, ``__kwdefaults__`` and ``__code__`` the loop's audit hook refuses to change, :func:`_serving`), and
# they recurse by passing themselves (no closure of theirs, whose cells are writable; a comprehension's cells are held
# by its function, which only its interpreter frame holds). What they build is never a local: a comprehension's list, a
# literal handed to the C encoder at once, or text (immutable); so a frame's ``f_locals`` shows nothing to rewrite but
# the values being encoded, which are the learner's own (its arguments and value) or the driver's (the reference's code,
# whose namespace the learner's code reaches anyway: "Faking results"). tests/test_grading_redteam.py, section 28.
_REPLIES_FILE = "<the grading worker's replies>"  # its frames are left out of tracebacks, as this file's
_REPLYING_FUNCTIONS = ("encoded", "decoded", "capped", "scanned", "dumped", "flagged", "held", "recorded", "reached",
                       "intact", "replied", "answering")
_REPLYING = r'''
def encoded(value, depth, again, kind=type, boolean=bool, integer=int, real=float, text=str, octets=bytes, pair=tuple,
            array=list, mapping=dict, group=set, frozen=frozenset, subclass=issubclass, base64=b2a_base64,
            ascii=bytes.decode, pair_items=tuple.__iter__, array_items=list.__iter__, mapping_items=dict.items,
            group_items=set.__iter__, frozen_items=frozenset.__iter__, deepest=MAX_DEPTH, get=getattr,
            object_repr=object.__repr__, show=repr, failure=Exception):
    """wire.encode's data for ``value`` (the same format): exact builtin types, containers read by their C methods."""
    made = kind(value)
    if depth > deepest:
        return {"x": "a value nested too deeply", "r": "..."}
    if value is None or made is boolean or made is integer or made is real or made is text:
        return value
    if made is octets:
        return {"b": ascii(base64(value, newline=False), "ascii")}
    if made is pair:
        return {"t": [again(item, depth + 1, again) for item in pair_items(value)]}
    if made is array:
        return [again(item, depth + 1, again) for item in array_items(value)]
    if subclass(made, mapping):  # dict, Counter, defaultdict, OrderedDict: their items, as a dict
        return {"d": [[again(key, depth + 1, again), again(item, depth + 1, again)] for key, item in mapping_items(value)]}
    if made is group:
        return {"s": [again(item, depth + 1, again) for item in group_items(value)]}
    if made is frozen:
        return {"s": [again(item, depth + 1, again) for item in frozen_items(value)]}
    try:  # another type: what it says of itself (the learner's code may run here: this value is no answer anyway)
        shown = object_repr(value) if get(made, "__repr__", None) is object_repr else show(value)
        shown = shown[:80] if kind(shown) is text else "?"
    except failure:
        shown = "?"
    try:
        module, name = get(made, "__module__", "?"), get(made, "__qualname__", "?")
        name = (module if kind(module) is text else "?") + "." + (name if kind(name) is text else "?")
    except failure:
        name = "?"
    return {"x": name, "r": shown}


def decoded(data, depth, again, kind=type, real=float, text=str, array=list, mapping=dict, pair=tuple, group=set,
            size=len, lookup=dict.get, unbase64=a2b_base64, foreign=Foreign, deepest=MAX_DEPTH, refused=ValueError):
    """wire.decode's value of ``data`` (a request's, which the trusted side wrote)."""
    if depth > deepest + 2:
        raise refused("a value nested too deeply")
    made = kind(data)
    if made is real and data != data:
        return real("nan")  # a NaN of its own, as the trusted side's decode makes each
    if data is None or made is not array and made is not mapping:
        return data
    if made is array:
        return [again(item, depth + 1, again) for item in data]
    if size(data) >= 1:
        if "b" in data:
            return unbase64(data["b"], strict_mode=True)
        if "t" in data:
            return pair(again(item, depth + 1, again) for item in data["t"])
        if "d" in data:
            return mapping([(again(key, depth + 1, again), again(item, depth + 1, again)) for key, item in data["d"]])
        if "s" in data:
            return group(again(item, depth + 1, again) for item in data["s"])
        if "x" in data:
            return foreign(text(data["x"]), text(lookup(data, "r", "")))
    raise refused("not a value of the wire format")


def capped(value, limit=MAX_OUTPUT_CHARS, text=str, size=len):
    """wire.capped: ``value`` cut at ``limit`` characters, saying how long it was."""
    value = text(value)
    return value if size(value) <= limit else value[:limit] + "\n... (" + text(size(value)) + " characters in all)"


def scanned(text, scanner=SCANNER, loads=LOADS):
    """A request line's JSON value, by json's C scanner bound when the loop was loaded (its Python one where none)."""
    return scanner(text, 0)[0] if scanner is not None else loads(text)


def dumped(value, encoder=ENCODER, join=str.join, dumps=DUMPS):
    """``value`` as JSON (ASCII), by json's C encoder bound when the loop was loaded (its Python one where none)."""
    return join("", encoder(value, 0)) if encoder is not None else dumps(value, ensure_ascii=True)


def flagged(noticed, dumps=dumped, ordered=sorted, everything=BaseException):
    """What the worker's audit hook noticed (``noticed``, the worker's set), as the reply's ``"noticed"``, or nothing."""
    try:
        return ', "noticed": ' + dumps(ordered(noticed)[:16]) if noticed else ""
    except everything:
        return ""


def held(value, kind=type, pair=tuple, array=list, mapping=dict, group=set, subclass=issubclass,
         array_items=list.__iter__, mapping_items=dict.items, group_items=set.__iter__):
    """The objects a list, dict (a dict's keys and values in turn) or set holds, read by its C methods; None for another."""
    made = kind(value)
    if made is array:
        return pair(array_items(value))
    if subclass(made, mapping):
        return pair(part for entry in mapping_items(value) for part in entry)
    if made is group:
        return pair(group_items(value))
    return None


def recorded(value, depth, again, held=held, kind=type, pair=tuple, frozen=frozenset, pair_items=tuple.__iter__,
             frozen_items=frozenset.__iter__, subclass=issubclass, walked=(tuple, list, dict, set, frozenset),
             deepest=MAX_DEPTH):
    """Before a call, every list, dict and set reachable from ``value`` (tuples and frozensets walked through), each
    with the objects it holds: ``((container, items), ...)``. The arguments are the request's, decoded: exact builtin
    types, read by C methods; no learner's code runs while it does."""
    made = kind(value)
    if depth > deepest or made is not pair and made is not frozen and held(value) is None:
        return ()
    if made is pair or made is frozen:
        return pair(entry for item in (pair_items(value) if made is pair else frozen_items(value))
                    if subclass(kind(item), walked) for entry in again(item, depth + 1, again))
    return pair(entry for items in (held(value),)
                for entry in ((value, items),) + pair(inner for item in items if subclass(kind(item), walked)
                for inner in again(item, depth + 1, again)))


def reached(value, depth, again, held=held, kind=type, pair=tuple, frozen=frozenset, pair_items=tuple.__iter__,
            frozen_items=frozenset.__iter__, ident=id, subclass=issubclass,
            walked=(tuple, list, dict, set, frozenset), deepest=MAX_DEPTH):
    """After a call, the ids of the lists, dicts and sets reachable from ``value`` (as :func:`encoded` walks it; C
    methods, identities and ``issubclass`` of builtin classes only: no learner's code runs). Only containers are
    walked into (a call per scalar would cost more than encoding it)."""
    made = kind(value)
    if depth > deepest:
        return ()
    if made is pair or made is frozen:
        return pair(entry for item in (pair_items(value) if made is pair else frozen_items(value))
                    if subclass(kind(item), walked) for entry in again(item, depth + 1, again))
    return pair(entry for items in (held(value),) if items is not None
                for entry in (ident(value),) + pair(inner for item in items if subclass(kind(item), walked)
                for inner in again(item, depth + 1, again)))


def same_plain(one, other, kind=type, size=len, every=all, zipped=zip, scalars=(bytes, str, int), pair=tuple):
    """Whether ``one`` (a key the request held: exact builtin types) and ``other`` are equal, compared only where no
    learner's code can run: exact bytes, str and int, and tuples of them; False for anything else (so: swapped)."""
    if kind(one) is not kind(other):
        return False
    if kind(one) in scalars:
        return one == other
    return (kind(one) is pair and size(one) == size(other)  # a pair of tokens: one level of tuple, no recursion
            and every(kind(a) in scalars and kind(a) is kind(b) and a == b for a, b in zipped(one, other)))


def taken_out(container, entries, seen, held=held, ident=id, kind=type, mapping=dict, size=len, spans=range,
              anything=any, same=same_plain):
    """Whether ``container``, recorded before the call and no longer reached, was taken out of the arguments rather than
    swapped out: every container that held it is reached still, and each is a dict that no longer holds its key (the
    statement of lab 05's merge_occurrences says to take the pair's list out of ``occurrences``: then sorting, clearing or
    popping it is the function's own business, walk62's red team). A list that held it, a parent no longer reached, or a
    key that holds something else now: swapped (the copy put in its place hides the change)."""
    parents = [(parent, items) for parent, items in entries if anything(item is container for item in items)]
    if not parents:
        return False
    for parent, items in parents:
        if ident(parent) not in seen or kind(parent) is not mapping:
            return False
        keys = [items[at - 1] for at in spans(1, size(items), 2) if items[at] is container]
        now = held(parent)
        current_keys = [now[at] for at in spans(0, size(now), 2)]
        if anything(key is current or same(key, current) for key in keys for current in current_keys):
            return False
    return True


def intact(entries, seen, held=held, ident=id, size=len, every=all, zipped=zip, out=taken_out):
    """Whether each container ``entries`` recorded (:func:`recorded`) is reached still (``seen``: then what it holds now is
    encoded, and compared), holds the very objects it held, or was taken out of a dict (:func:`taken_out`): one changed
    and no longer reached otherwise was swapped out of what the caller handed over, which holds it still (a changed chunk
    replaced by a copy of it as it came)."""
    return every(ident(container) in seen or every(now is then for now, then in zipped(current, items))
                 and size(current) == size(items) or out(container, entries, seen)
                 for container, items in entries for current in (held(container),))


def replied(kept, result, asked, encoded=encoded, dumps=dumped, reached=reached, intact=intact, pair=tuple,
            group=frozenset, zipped=zip, join=str.join, text=str, unsendable=(TypeError, ValueError, RecursionError)):
    """A call's ``"ok"``, ``"result"`` and ``"args"`` (when ``asked``): the arguments as the objects handed over are now
    (``kept``: the decoded arguments and, for each, what :func:`recorded` saw before the call), not as a name holds them
    after it; one of which a changed container was swapped out is reported as no value sent (:func:`intact`). The
    arguments first: what the value's encoding may run (another type's repr) comes after."""
    try:
        return join("", ['"ok": true, "result": ' + dumps(encoded(result, 0, encoded)) + arguments for arguments in (
            ', "args": ' + dumps(pair(
                encoded(item, 0, encoded) if intact(entries, seen) else
                {"x": "an argument whose objects were swapped", "r": "it held a container that changed, then was replaced"}
                for seen in (group(reached(kept[0], 0, reached)),) for item, entries in zipped(kept[0], kept[1])))
            if asked else "",)])
    except unsendable as exc:
        return '"ok": false, "error": ' + dumps({"ename": "UnsendableResult", "evalue": text(exc)[:200], "traceback": []})


def answering(line, prepare=prepare, calling=calling, restore=restore, run_exec=run_exec, error_of=error_of,
              noticed=noticed, flagged=flagged, scan=scanned, dumps=dumped, encoded=encoded, decoded=decoded,
              capped=capped, replied=replied, recorded=recorded, utf8=bytes.decode, kind=type,
              mapping=dict, array=list, text=str, pair=tuple, lookup=dict.get, mapping_items=dict.items,
              everything=BaseException, refused=ValueError,
              stringio=StringIO, written=StringIO.getvalue, get=getattr, put=setattr, system=sys):
    """The reply to a request line, as one line of JSON with the request's id (``prepare``, ``calling``,
    ``restore``, ``run_exec``, ``error_of`` and ``noticed`` are the worker's, :func:`_serving`)."""
    request = None
    try:
        request = scan(utf8(line, "utf-8"))
        if kind(request) is not mapping:
            raise refused("a request is a JSON object")
        head = '{"id": ' + dumps(lookup(request, "id"))
        if lookup(request, "op") == "exec":
            reply = run_exec(request)
            return head + flagged(noticed) + ", " + (dumps({**reply})[1:] if kind(reply) is mapping and reply else '"ok": false}')
        if lookup(request, "op") != "call":
            raise refused("no such request")
        args = pair(decoded(item, 0, decoded) for item in lookup(request, "args"))  # a tuple: its items stay these
        prepared = prepare(request)
        if kind(prepared) is mapping:
            return head + flagged(noticed) + ", " + (dumps({**prepared})[1:] if prepared else '"ok": false}')
        function, driver, originals, spies = prepared
        out, err, before = stringio(), stringio(), (get(system, "stdout"), get(system, "stderr"))
        try:
            put(system, "stdout", out)
            put(system, "stderr", err)
            try:
                # What the arguments held is recorded before the call, held by no name (an operand of this call, on
                # the frame's stack), and read after it: not what ``args`` names then (:func:`replied`).
                asked = lookup(request, "return_args")
                body = replied((args, pair(recorded(item, 0, recorded) for item in args)) if asked else None,
                               calling(function, driver, args), asked)
            except everything as exc:
                try:
                    body = '"ok": false, "error": ' + dumps(error_of(exc))
                except everything:
                    body = '"ok": false, "error": {"ename": "UnsendableError", "evalue": "", "traceback": []}'
        finally:
            put(system, "stdout", before[0])
            put(system, "stderr", before[1])
            spies = restore(originals, spies)
        try:
            spied = {name: pair(counts) for name, counts in mapping_items(spies)
                     if kind(name) is text and kind(counts) is array} if kind(spies) is mapping and spies else None
            spied = ', "spy": ' + dumps(spied) if spied else ""
        except everything:
            spied = ""
        return (head + flagged(noticed) + spied + ', "stdout": ' + dumps(capped(written(out))) + ', "stderr": '
                + dumps(capped(written(err))) + ", " + body + "}")
    except everything as exc:
        number = lookup(request, "id") if kind(request) is mapping else None
        try:
            return dumps({"id": number, "ok": False, "error": error_of(exc)})[:-1] + flagged(noticed) + "}"
        except everything:
            return dumps({"id": number, "ok": False, "error": {"ename": "WorkerError", "evalue": "", "traceback": []}})
'''


# Audit events that reach the frames of another thread, the sealing one's (sys._current_frames; on Python 3.10 every
# frame is an object the collector lists), or the cells the dispatcher shares with it (a frame's referents hold its
# function, whose closure they are), or that put a hook of the learner's on every thread (which would run on the
# sealing one): refused once the learner's code may run, as is every event raised on the sealing thread, which raises
# none of its own. No lab needs them (lab 09's tasks use the collector's switches, callbacks and counts).
_REFUSED_EVENTS = frozenset({"sys._current_frames", "sys._current_exceptions", "gc.get_objects", "gc.get_referrers",
                             "sys._setprofileallthreads", "sys._settraceallthreads", "sys.monitoring.register_callback",
                             "sys.remote_exec"})


def _serving(request_fd: int, reply_fd: int, hello: str, worker: Worker):
    """Start the thread that seals (it reads the key, then every request) and return the dispatcher, which the main
    thread runs until the requests end: ``answer(line)`` (``answering`` of :data:`_REPLYING`: the reply to a request
    line, as JSON) for each line handed over; ``worker`` is given ``sealed_by_the_loop(message)``, a driver's seal of bytes
    (:data:`DRIVERS_SEAL`; see below), and its audit hook (:meth:`Worker.noticing`) after the loop's own.

    Why two threads: the learner's code runs on the main thread, and a signal handler there is given the frame it
    interrupted, a failed cell's traceback holds the frames it passed (kept in ``gc.garbage`` under ``gc.DEBUG_SAVEALL``),
    ``traceback.walk_stack`` walks them; none of them raises an audit event. When the loop's frames were below every
    cell's, each gave the key of the seals from their locals, and a thread of the learner's sealed replies of its own
    (``tests/test_grading_redteam.py``, section 28). The sealing thread must run none of the learner's code, ever: a
    collection of the garbage started there runs the learner's callbacks and finalizers on it, whose frames' ``f_back``
    is its frame (a callback's exception, handed to another thread, gave the sealer so). So it calls no function of
    Python and looks up no global or builtin (which a cell could rebind): what it calls is bound here, before any of the
    learner's code runs; it makes no object the collector tracks (bytes, str and int only: no slice, no tuple of
    arguments, no exception: the seccomp filter keeps its pipes blocking, no signal is delivered to it) and drops none
    of the learner's. The two threads share only cells of this function, which the learner's code cannot rebind:
    ``line``, the request handed over, ``answered`` and ``data``, the request answered and its reply; and two queues of
    C (``_queue.SimpleQueue``, whose put and get make no such object and raise nothing), which the dispatcher's frame
    shows: what the learner's code puts in them wakes a thread for nothing (the dispatcher answers only the request in
    ``line``, once; the sealing thread waits until ``answered`` is the request it handed over, and keeps what it took
    from its queue, whose last reference it would otherwise drop); what it takes stalls the loop. The function objects,
    whose closures hold the cells, are kept by no frame's locals (a frame's referents are refused,
    :data:`_REFUSED_EVENTS`; the dispatcher is called as it is returned, :func:`main`): a cell is writable, and a queue
    of the learner's put in ``done`` would have its ``get`` run on the sealing thread (redteam section 49).

    A driver's seal: while a request is answered the sealing thread waits on ``done``; exact bytes found there (put by
    ``sealed_by_the_loop``, on the main thread) it seals under the same key with a person of their own
    (:data:`DRIVERS_SEAL`: no such seal is a reply's) and puts the 32 bytes in ``sealed``, which it makes nothing else
    of; bytes hold no code to run, so the last reference it drops runs none. The learner's code can reach both queues
    (the function's closure, from the driver's namespace) and have any bytes sealed so, as the driver does: what such a
    seal proves is that those bytes were handed to this thread, never that the key was read."""
    line = answered = data = None
    # What answers (the main thread's), made from source in a namespace of its own, its names bound as it is defined:
    # before any of the learner's code runs (:data:`_REPLYING`). The audit hook below refuses changes of its functions'
    # defaults and code.
    replying: dict = {"__builtins__": dict(_BUILTINS), "b2a_base64": b2a_base64, "a2b_base64": a2b_base64,
                      "MAX_DEPTH": MAX_DEPTH, "MAX_OUTPUT_CHARS": MAX_OUTPUT_CHARS, "Foreign": Foreign,
                      "StringIO": io.StringIO, "sys": sys, "SCANNER": _REQUEST_SCANNER, "LOADS": _python_loads,
                      "ENCODER": _REPLY_ENCODER, "DUMPS": _python_dumps, "prepare": worker.prepare_call, "calling": worker.calling,
                      "restore": worker.restore_call, "run_exec": worker.run_exec, "error_of": _error,
                      "noticed": worker.noticed}
    exec(compile(_REPLYING, _REPLIES_FILE, "exec"), replying)
    answer = replying["answering"]
    guarded = frozenset([*(id(replying[name]) for name in _REPLYING_FUNCTIONS), id(Worker.calling)])
    work, done, sealed = SimpleQueue(), SimpleQueue(), SimpleQueue()
    kind, text = type, str

    def sealing(read=os.read, write=os.write, loads=json.loads, fromhex=bytes.fromhex, blake2b=_blake2b, size=len,
                leave=os._exit, kind=type, octets=bytes, drivers=DRIVERS_SEAL):  # (kind: no cell the dispatcher shares)
        nonlocal line
        request, sealer, driver_sealer, plain, taken = b"", None, None, blake2b(digest_size=32), []
        try:
            while True:
                chunk = read(request_fd, 1 << 16)
                if not chunk:
                    break
                request += chunk
                # One request at a time: the trusted side writes the next once it has the reply, so what ends with a
                # newline is a request (lines the learner's code wrote there too make one that is no request: not cut
                # apart, as a slice, a tuple of arguments, bytes.find's or endswith's, are objects the collector tracks).
                if request[-1] != 10:
                    continue
                if sealer is None:  # the first line: the key, read before any of the learner's code runs
                    sealer = blake2b(key=fromhex(loads(request)["seal"]), digest_size=32)
                    driver_sealer = blake2b(key=fromhex(loads(request)["seal"]), digest_size=32, person=drivers)
                    reply = hello
                else:
                    line = request
                    work.put(request)
                    while answered is not request:
                        handed = done.get()
                        if kind(handed) is octets:  # a driver's bytes to seal (sealed_by_the_loop)
                            seal = driver_sealer.copy()
                            seal.update(handed)
                            sealed.put(seal.digest())
                        else:
                            taken.append(handed)
                    reply = data
                asked = plain.copy()
                asked.update(request)
                seal = sealer.copy()
                seal.update(asked.digest())
                seal.update(reply.encode("utf-8"))
                out = (seal.hexdigest() + " " + reply + "\n").encode("utf-8")
                if write(reply_fd, out) != size(out):  # whole, on a blocking pipe, with no signal for this thread
                    leave(70)
                request = b""
            line = None  # the requests ended: so does the dispatcher
            work.put(None)
        except BaseException:  # the reply pipe closed, memory gone (making its MemoryError can start a collection
            # first, which runs the learner's callbacks on this thread: open, redteam section 34)
            leave(70)

    def dispatching() -> None:
        nonlocal answered, data
        while True:
            try:
                request = work.get()
            except BaseException:  # a signal handler of the learner's raised while the loop waited
                continue
            if request is not line or request is answered:  # put there by the learner's code, or answered already
                continue
            if request is None:
                return
            try:
                reply = answer(request)
            except BaseException:  # raised by a signal handler of the learner's as the answer returned
                reply = None
            data = reply if kind(reply) is text else '{"ok": false, "error": {"ename": "WorkerError"}}'
            answered = request
            done.put(True)

    # Every signal goes to the main thread, whose handlers run there only (blocked here, the new thread's mask is the
    # same): the sealing thread's reads and writes are never cut short, as they would be by a signal it took.
    masks = getattr(signal, "pthread_sigmask", None)  # POSIX
    unblocked = masks and masks(signal.SIG_BLOCK, signal.valid_signals())
    thread, process = start_new_thread(sealing, ()), os.getpid()
    if masks:
        masks(signal.SIG_SETMASK, unblocked)

    def refusing(event: str, args: tuple, refused=_REFUSED_EVENTS, ident=get_ident, frame=types.FrameType, kinds=map,
                 refusal=PermissionError, getpid=os.getpid, number=id) -> None:
        # (a thread of a forked child, which has no sealing thread, may be given its ident)
        if (event in refused or (ident() == thread and getpid() == process)
                or (event == "gc.get_referents" and frame in kinds(kind, args[0]))):
            raise refusal(f"{event} is refused while grading (it reaches the worker loop's other thread)")
        # A function that answers, its defaults (what it calls) or code changed (``__closure__`` and ``__globals__``
        # are read-only; it has no closure and looks up no global): what writes the replies, the learner's.
        if (event == "object.__setattr__" or event == "object.__delattr__") and number(args[0]) in guarded:
            raise refusal(f"{event} of {args[1]} is refused while grading (a function of the worker loop's replies)")

    sys.addaudithook(refusing)
    sys.addaudithook(worker.noticing())  # after the loop's own hook, which runs first (and alone on the sealing thread)
    worker.sealed_by_the_loop = _DRIVER_SEALING_NAMESPACE["sealing_for_drivers"](done, sealed)
    return dispatching


def main() -> None:
    policy = json.loads(sys.argv[1])
    handoff = None
    if policy.get("control_fd") is not None:
        handoff = keep(policy, policy["control_fd"], policy["report_fd"])  # returns in the worker only
    # sys.path: the standard library, then a folder of links to the packages a lab may import (not this folder).
    sys.path = [p for p in sys.path if p and os.path.isdir(p) and os.path.abspath(p) != WORKER_DIR] + [policy["packages_dir"]]
    for name in ("confinement", "keeper", "wire"):  # loaded: the names are the learner's again (a module of theirs)
        sys.modules.pop(name, None)
    # The protocol keeps the pipes the trusted side opened as stdin and stdout, moved to the top fd numbers, which the
    # seccomp filter keeps from being replaced or closed (:func:`confinement.set_apart`); the learner's code gets
    # /dev/null and the stderr pipe as stdin and stdout, so what it prints cannot garble a reply.
    loop_fds = set_apart(0, 1) if sys.platform.startswith("linux") else (os.dup(0), os.dup(1))
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    isolation = confine(policy, handoff, loop_fds if sys.platform.startswith("linux") else None)
    isolation += [policy["shm"]] if policy.get("shm") else []  # the keeper's line (keep)
    # A module the learner writes (``%%writefile``) is imported from the scratch folder, here and in
    # the processes a lab may start (spawn and forkserver children get this sys.path).
    sys.path.insert(0, policy["scratch"])
    # Like a Jupyter kernel's, this process's __main__ (the notebook's namespace, :class:`Worker`) has no file for a
    # spawned child to re-run (it could not read this file anyway): functions defined in the notebook's cells do not
    # reach a spawned worker, those of a module written with %%writefile do.
    # The sealing thread starts now, confined as this one is (Landlock and seccomp hold for the threads started after).
    hello = json.dumps({"hello": True, "isolation": isolation, "python": platform.python_version()})
    worker = Worker()
    # Called as it is returned: a local here would hold the dispatcher, whose closure's cells (writable) it shares with
    # the sealing thread, for any frame below it to reach (a signal handler's f_back, then f_locals).
    _serving(*loop_fds, hello, worker)()


if __name__ == "__main__":
    main()
