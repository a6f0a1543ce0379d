"""The worker loop: runs a learner's cells and answers calls of their functions.

The sandbox runs ``python -I -S worker/__main__.py POLICY`` (no site-packages, no environment, this
folder on the path only to load its siblings) and talks to it in newline-delimited JSON over two
pipes. The worker becomes its keeper's child (:mod:`keeper`), then locks itself in
(:mod:`confinement`) before the first request. Nothing of ``bpe_ref`` is imported here; what goes
back is only data (:mod:`wire`).

The trusted side's first line is a key (``{"seal": HEX}``), read before any learner's code runs; every line the
loop writes back is ``SEAL JSON``, where SEAL is a keyed BLAKE2b of the request as the loop read it and of the reply
(:func:`_sealed`). Requests and replies (``id`` is echoed)::

    {"id": 1, "op": "exec", "name": "task1_solution", "code": "def f(x): ..."}
    -> {"id": 1, "ok": true, "stdout": "", "stderr": ""}     # or "ok": false, "error": {...}
    {"id": 2, "op": "call", "name": "count_pairs", "args": [...], "return_args": false, "spy": []}
    -> {"id": 2, "ok": true, "result": ..., "stdout": "", "stderr": ""}

A call may carry ``stand_ins`` (reference helpers bound in place of the learner's while it runs)
and a ``driver`` (a reference function called as ``driver(function, *args)``, for a function whose
arguments are not data: lab 09's harness, given a fake clock), both as source.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import linecache
import os
import platform
import sys
import traceback
import types

WORKER_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, WORKER_DIR)  # -I leaves the script's folder off sys.path; its modules come from there, and only they
from confinement import confine, set_apart  # noqa: E402
from keeper import keep  # noqa: E402
from wire import decode, encode  # noqa: E402

MAX_OUTPUT_CHARS = 20_000  # of a cell's or a call's captured stdout / stderr

# The learner's code shares this interpreter and can rebind what a module or class holds (``json.dumps``,
# ``json.JSONEncoder.encode``, ``builtins.dict``): a notebook did, to write replies that showed a changed argument as
# it came. So what writes a reply is bound here, when this file is loaded, before any of the learner's code runs: the C
# encoder of json (nothing of it is looked up again) and the wire format's names (:mod:`wire`). Only a reach into this
# loop's own frames or globals could change them, which the review flags (:mod:`..review`).
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_REPLY_ENCODER = _C_ENCODER and _C_ENCODER(None, None, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False, True)
_python_dumps = json.dumps
# The seal of a reply, bound at load as the encoder is (a C type, whose methods the learner's code cannot rebind).
from _blake2 import blake2b as _blake2b  # noqa: E402


def _sealed(key: bytes, request: str, data: str) -> str:
    """The line that carries ``data`` (a reply, as JSON) back: its seal, then ``data``. The seal is a MAC, under a key only
    this loop and the trusted side hold, of the request line as this loop read it and of the reply. Why: the learner's
    code runs in this process and reaches the loop's two fds, which the seccomp filter keeps from being replaced but not
    from being read, written, or reopened through /proc/self/fd (a pipe opens again there, in either direction): a thread
    that took each request first and wrote it back with another function's name made a changed argument pass. A line
    without the key's seal, or sealed for another request, is not a reply to the trusted side (:mod:`..sandbox`)."""
    asked = _blake2b(request.encode("utf-8"), digest_size=32).digest()
    return _blake2b(asked + data.encode("utf-8"), key=key, digest_size=32).hexdigest() + " " + data


def _dumps(reply: dict) -> str:
    """``reply`` as one line of JSON (ASCII), by the encoder bound at load (json's Python one where it has no C one)."""
    return "".join(_REPLY_ENCODER(reply, 0)) if _REPLY_ENCODER else _python_dumps(reply, ensure_ascii=True)


# What the notebook is handed (``get_ipython``, ``display``, the spies around its helpers) is defined here, from source,
# in a namespace of its own: a function's ``__globals__`` is its module's, and those of functions defined in this file
# were this loop's (``get_ipython.__globals__["_sealed"]``, rebound, was handed the key of the seals with each reply;
# ``Worker.run_call``, rebound, wrote any reply; no frame read, no event of the interpreter).
_NOTEBOOK_HELPERS = r'''
import importlib, re, sys

_MODULE_FILE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.py")


class Shell:
    """IPython's ``get_ipython()`` while grading: magics and shell commands are skipped, but
    ``%%writefile NAME.py`` (lab 03: a module a ``spawn`` process can import) writes into the scratch folder."""

    def run_cell_magic(self, magic, line, cell):
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


def _captured(stream: io.StringIO) -> str:
    text = stream.getvalue()
    return text if len(text) <= MAX_OUTPUT_CHARS else text[:MAX_OUTPUT_CHARS] + f"\n... ({len(text)} characters in all)"


def _error(exc: BaseException) -> dict:
    """An exception of the learner's code as data; traceback frames of this file left out."""
    # The lines of this folder's frames are never looked up: this process cannot read its own file, and
    # the refused open would be counted against the learner (its keeper watches opens).
    frames = [frame for frame in traceback.StackSummary.extract(traceback.walk_tb(exc.__traceback__), lookup_lines=False)
              if os.path.dirname(frame.filename) != WORKER_DIR and frame.filename != _HELPERS_FILE]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    try:
        message = str(exc)
    except Exception:
        message = "?"
    return {"ename": type(exc).__name__, "evalue": message[:2000], "traceback": [line[:2000] for line in lines[-30:]]}


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

    def stand_ins(self, request: dict, key: str = "stand_ins") -> dict:
        """``name -> function`` of the request's stand-ins (or its driver, ``key="driver"``), run from
        their source in a namespace of their own (not the learner's, not importable)."""
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


def serve(requests, replies, key: bytes) -> None:
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
            data = _dumps(reply)
        except (TypeError, ValueError, RecursionError) as exc:
            data = _dumps({"id": request.get("id"), "ok": False,
                           "error": {"ename": "UnsendableResult", "evalue": str(exc)[:200], "traceback": []}})
        replies.write(_sealed(key, line, data) + "\n")
        replies.flush()


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
    # /dev/null and the stderr pipe as stdin and stdout, so what it prints cannot garble a reply. The files never
    # close their fds (the filter would refuse it at exit).
    loop_fds = set_apart(0, 1) if sys.platform.startswith("linux") else (os.dup(0), os.dup(1))
    requests = os.fdopen(loop_fds[0], "r", encoding="utf-8", closefd=False)
    replies = os.fdopen(loop_fds[1], "w", encoding="utf-8", closefd=False)
    first = requests.readline()  # the key of the seals, before any of the learner's code runs
    key = bytes.fromhex(json.loads(first)["seal"])
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
    hello = json.dumps({"hello": True, "isolation": isolation, "python": platform.python_version()})
    replies.write(_sealed(key, first, hello) + "\n")
    replies.flush()
    serve(requests, replies, key)


if __name__ == "__main__":
    main()
