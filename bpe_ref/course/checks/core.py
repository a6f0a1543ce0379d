"""The mechanics every lab's graders share: call the learner's function safely, compare its result
with the reference's exactly, search for the smallest failing input, and say what went wrong.

A lab's grader module (``lab01_naive_bpe.py`` ...) only describes its tasks: the function's name and
parameters (:class:`Task`), the reference it must agree with, a few fixed cases and a hypothesis
strategy. Everything else is here, once:

- :func:`check_cases` runs fixed cases (the visible tests);
- :func:`check_property` runs hypothesis-generated cases (the hidden tests), bounded, derandomized
  in the learner's kernel and drawn from a secret seed when graded (:func:`hidden_seed`), and
  reports the smallest failing input hypothesis shrank to;
- a function that uses the reference solver is refused twice: :func:`refuse_reference_use`
  reads its code (and that of the learner's functions it calls) for ``bpe_ref``, and
  :func:`call_learner` runs it with every ``bpe_ref`` function in ``sys.modules`` made to raise
  (:func:`reference_trapped`);
- :func:`plain` and :func:`same` compare results by exact builtin types, so an object whose
  ``__eq__`` always says yes, a ``str`` where ``bytes`` were due, or ``True`` for ``1`` cannot pass.

This module imports nothing from ``bpe_ref`` by absolute name: the graders load it as part of a
private copy of the package (see :mod:`bpe_ref.course.checks`).
"""

from __future__ import annotations

import copy
import functools
import signal
import sys
import threading
import types
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The directory of the reference package on disk. Functions whose code lives here are "the
# reference" when the learner's function calls them.
PACKAGE_DIR = Path(__file__).resolve().parents[2]
PACKAGE_NAME = "bpe_ref"

# How long one line of a failure message may get before values are abbreviated.
SHORT_REPR_CHARS = 100


class CheckFailed(AssertionError):
    """A grader's verdict: the learner's function is wrong. The message says how, in a few lines."""

    def _render_traceback_(self) -> list[str]:
        """How IPython (the notebook) shows a failed check: the message alone. A traceback through
        the grading machinery would only bury it; the test cell holds a single call anyway."""
        lines = str(self).splitlines() or [""]
        return [f"\x1b[0;31m{type(self).__name__}\x1b[0m: {lines[0]}", *lines[1:]]


class ReferenceSolverCalled(Exception):
    """Raised inside the learner's function when it calls a ``bpe_ref`` function during grading."""


class LearnerError(Exception):
    """An exception the learner's code raised in the grading process, brought back as data."""

    def __init__(self, ename: str, evalue: str, traceback: list[str] | None = None) -> None:
        super().__init__(evalue)
        self.ename, self.evalue, self.traceback = ename, evalue, list(traceback or [])

    @classmethod
    def from_data(cls, data: dict) -> LearnerError:
        return cls(str(data.get("ename", "Error")), str(data.get("evalue", "")), [str(line) for line in data.get("traceback", [])])


class GradingStopped(BaseException):
    """The learner's code timed out or its process died: the check stops here and fails.

    A ``BaseException``, like ``KeyboardInterrupt``, so that no ``except Exception`` on the way
    (hypothesis's included) swallows it or retries a call that already took its whole time."""


def error_name(error: BaseException) -> str:
    """The class name of an exception of the learner's, wherever it was raised."""
    return error.ename if isinstance(error, LearnerError) else type(error).__name__


def runs_remotely(learner: Any) -> bool:
    """Whether ``learner`` is a function of a graded notebook run in the grading process (a
    :class:`~bpe_ref.course.trusted.sandbox.RemoteFunction`), not an object of this process."""
    return getattr(learner, "runs_remotely", False) is True and callable(getattr(learner, "invoke", None))


# --------------------------------------------------------------------------------------------
# Describing a task and a call


@dataclass(frozen=True)
class Task:
    """What a grader needs to know about the function it grades.

    ``params`` name the arguments (for messages). ``observe(args, result)`` turns a call into the
    value that is compared: by default the return value; a task that updates an argument in place
    observes that argument too.
    """

    name: str
    params: tuple[str, ...]
    observe: Callable[[tuple, Any], Any] | None = None
    what: str = ""  # what the function returns, for type errors ("a tuple of bytes tokens")
    item: str = "item"  # what a returned list holds, in messages: "merge 198" reads better than "item 197"
    first: int = 0  # the number of the first item in messages (merges are numbered from 1, as on the pages)
    hint: Callable[[tuple, Any, Any], str | None] | None = None  # (args, expected, got) -> a pointed hint
    # Modules of bpe_ref the learner may call (an earlier lab's functions, given in the setup cell),
    # relative to the package: ("train.step01_naive",). Everything else of bpe_ref is refused.
    provided: tuple[str, ...] = ()
    # The reference's functions bound in place of the learner's earlier tasks' (same names) while
    # this task's function runs, so that a bug in an earlier task costs that task's points only.
    # See bpe_ref.course.trusted.stand_ins.
    stand_ins: tuple[Callable, ...] = ()
    # Earlier tasks' functions that stay the learner's while this task runs (no stand-in can take
    # their place: lab 03's workers import count_chunk from the learner's own module).
    kept: tuple[str, ...] = ()
    # Seconds a call may take in the learner's kernel before the visible test stops it and says so
    # (None: no limit). The grading process has its own limit (GRADING_POLICY's call_timeout).
    kernel_time_limit: float | None = None
    # (args, the learner's exception) -> a pointed hint for an error this task's code commonly raises;
    # when it gives one, it replaces the generic hints for errors (which guess from the arguments).
    error_hint: Callable[[tuple, BaseException], str | None] | None = None
    # For a function whose arguments cannot be plain data (lab 09's harness takes functions and a
    # clock): a reference function ``driver(function, *args)`` that builds those objects from the
    # plain ``args`` (fake clocks, contenders that advance them), calls ``function`` with them and
    # returns plain data (what came back, what the objects saw). The learner's function and the
    # reference are both called through it; in the grading worker it runs as source, like a stand-in.
    driver: Callable[..., Any] | None = None
    # When the graded callable is a read-only helper of the notebook that calls the learner's
    # function (lab 10's tree_shape calls tree_reduce), that function's name: a skeleton is named
    # by it ("tree_reduce is not written yet"), not by the helper's.
    written_in: str = ""
    # Positions of the arguments the task says to leave as they are (lab 03's merge_counts must not
    # add into the first dict it was given): after each call they are compared with what was sent,
    # on the trusted side (the worker returns the arguments after the call, as data).
    unchanged: tuple[int, ...] = ()

    def observed(self, args: tuple, result: Any) -> Any:
        return result if self.observe is None else self.observe(args, result)


@dataclass
class Case:
    """One input of a task; ``labels`` replace argument reprs that would be too long to read."""

    args: tuple
    labels: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CorpusFile:
    """An argument that is the path of a file holding ``data`` (lab 03 reads files). The file is
    written just before each call, where the learner's code can read it (:func:`materialized`):
    in grading, a folder of the trusted side's that the worker may read but not change (see
    ``Sandbox.write_input``); in the learner's kernel, a temporary folder."""

    data: bytes

    def __repr__(self) -> str:
        shown = self.data if len(self.data) <= 40 else self.data[:32] + b"..."
        return f"<path of a file of {len(self.data)} bytes: {shown!r}>"


_LOCAL_FILES: list[Path] = []  # the kernel's temporary folder for CorpusFile arguments, made once


def _files_folder(learner: Any) -> Path:
    if not _LOCAL_FILES:
        import atexit
        import shutil
        import tempfile

        _LOCAL_FILES.append(Path(tempfile.mkdtemp(prefix="bpe_ref_check_files_")))
        atexit.register(shutil.rmtree, _LOCAL_FILES[0], True)
    return _LOCAL_FILES[0]


def _holds_file(value: Any) -> bool:
    return isinstance(value, CorpusFile) or (
        isinstance(value, (list, tuple)) and any(_holds_file(item) for item in value))


def materialized(args: tuple, learner: Any) -> tuple:
    """``args`` with each :class:`CorpusFile` written to disk (again, every call: a call of the
    learner's cannot change what the next one reads) and replaced by its path, a ``str``; also
    inside lists and tuples (lab 10's lists of files, and of ``(path, start, end)`` ranges)."""
    if not any(_holds_file(arg) for arg in args):
        return args
    import hashlib

    def real(value: Any) -> Any:
        if isinstance(value, CorpusFile):
            if runs_remotely(learner):  # the trusted side's own folder, which the worker can only read
                return learner.sandbox.write_input(value.data)
            path = _files_folder(learner) / f"corpus_{hashlib.sha256(value.data).hexdigest()[:16]}.txt"
            path.write_bytes(value.data)
            return str(path)
        if isinstance(value, (list, tuple)) and _holds_file(value):
            return type(value)(real(item) for item in value)
        return value

    return tuple(real(arg) for arg in args)


def short_repr(value: Any, limit: int = SHORT_REPR_CHARS) -> str:
    """``repr(value)``, abbreviated in the middle of containers when longer than ``limit``."""
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, dict) and value:
        items = list(value.items())
        shown = []
        for key, val in items:
            shown.append(f"{key!r}: {val!r}")
            if sum(len(s) + 2 for s in shown) > limit - 30:
                break
        return "{" + ", ".join(shown) + f", ... ({len(items)} items)}}"
    if isinstance(value, (list, tuple)) and value:
        shown = []
        for item in value:
            shown.append(repr(item))
            if sum(len(s) + 2 for s in shown) > limit - 30:
                break
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        return open_ + ", ".join(shown) + f", ... ({len(value)} items){close}"
    return text[: limit - 4] + " ..."


def call_repr(task: Task, case: Case) -> str:
    """``merge_word(word=(b'a', b'b'), pair=(b'a', b'b'))``: the call, as the learner would type it."""
    parts = []
    for i, (param, arg) in enumerate(zip(task.params, case.args)):
        parts.append(f"{param}={case.labels.get(i) or short_repr(arg, 60)}")
    return f"{task.name}({', '.join(parts)})"


# --------------------------------------------------------------------------------------------
# Exact comparison


class WrongType(Exception):
    """A value that is not made of the plain builtin types a task returns."""


_SCALARS = (type(None), bool, int, float, str, bytes)


def plain(value: Any, where: str = "the result") -> Any:
    """``value`` rebuilt from exact builtin types, without calling any method the value overrides.

    Containers (dict, list, tuple, set and their subclasses such as ``Counter`` or
    ``defaultdict``) are read with the builtin types' own methods; scalars must be exactly
    ``int``, ``bytes``, ``str``, ``bool``, ``float`` or ``None``. Anything else raises
    :class:`WrongType` naming what was found and where.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind.__name__ == "Foreign" and hasattr(value, "type_name"):  # a type the worker could not send
        raise WrongType(f"{where} is a {value.type_name} ({value.text})")
    if isinstance(value, dict):
        return {plain(k, f"a key of {where}"): plain(v, f"a value of {where}") for k, v in dict.items(value)}
    if isinstance(value, list):
        return [plain(item, f"an item of {where}") for item in list.__iter__(value)]
    if isinstance(value, tuple):
        return tuple(plain(item, f"an item of {where}") for item in tuple.__iter__(value))
    if isinstance(value, (set, frozenset)):
        return {plain(item, f"an item of {where}") for item in set.__iter__(set(value))}
    raise WrongType(f"{where} is a {kind.__module__}.{kind.__qualname__} ({short_repr(value, 60)})")


def same(expected: Any, got: Any) -> bool:
    """Whether two plain values are equal with the same types all the way down (``1`` is not ``True``).

    Compared item by item: nothing of ``got`` is hashed but its own keys and set items, which the
    wire format refuses when many share a hash (a composite of them, hashed in a frozenset, could
    still be made to collide and cost the grader quadratic time)."""
    kind = type(expected)
    if kind is not type(got):
        return False
    if kind in _SCALARS:
        return expected == got
    if kind is list or kind is tuple:
        return len(expected) == len(got) and all(same(e, g) for e, g in zip(expected, got))
    if kind is dict:
        if len(expected) != len(got):
            return False
        keys = {key: key for key in expected}  # the reference's own key objects, to compare types
        return all(key in keys and same(keys[key], key) and same(expected[key], value) for key, value in got.items())
    if kind is set:
        if len(expected) != len(got):
            return False
        items = {item: item for item in expected}
        return all(item in items and same(items[item], item) for item in got)
    raise WrongType(f"unexpected {kind.__name__}")  # plain() never lets this happen


def _type_name(value: Any) -> str:
    return type(value).__name__


def difference(expected: Any, got: Any, where: str = "", item: str = "item", first: int = 0) -> str:
    """Where two plain values first differ, in words (empty when they are the same). A top-level
    list's items are called ``item`` and numbered from ``first``."""
    at = f"{where}: " if where else ""
    if type(expected) is not type(got):
        return f"{at}expected a {_type_name(expected)}, got a {_type_name(got)} ({short_repr(got, 60)})"
    if isinstance(expected, (list, tuple)):
        for i, (e, g) in enumerate(zip(expected, got)):
            if not same(e, g):
                label = f"{where}[{i}]" if where else f"{item} {i + first}"
                if len(repr(e)) <= 60 and len(repr(g)) <= 60:  # small enough to show whole
                    return f"{label}: expected {e!r}, got {g!r}"
                return difference(e, g, label)
        if len(expected) != len(got):
            if len(got) < len(expected):
                return f"{at}{_items(len(got))} instead of {len(expected)}; the first missing is {short_repr(expected[len(got)], 60)}"
            return f"{at}{_items(len(got))} instead of {len(expected)}; the first extra is {short_repr(got[len(expected)], 60)}"
        return ""
    if isinstance(expected, dict):
        missing = [k for k in expected if k not in got]
        extra = [k for k in got if k not in expected]
        wrong = [k for k in expected if k in got and not same(expected[k], got[k])]
        parts = []
        if missing:
            parts.append(f"missing keys {short_repr(missing[:3], 70)}{' ...' if len(missing) > 3 else ''} ({len(missing)} in all)")
        if extra:
            zeros = " (their values are 0: leave out, or delete, a key whose value reaches 0)" if all(
                got[k] == 0 and type(got[k]) is int for k in extra) else ""
            parts.append(
                f"unexpected keys {short_repr(extra[:3], 70)}{' ...' if len(extra) > 3 else ''} ({len(extra)} in all){zeros}"
            )
        if not missing and not extra and len(wrong) == 1 and isinstance(expected[wrong[0]], (dict, list, tuple)):
            # One nested value differs (a dict inside the observed result): say where, inside it.
            label = f"{where}[{wrong[0]!r}]" if where else f"[{wrong[0]!r}]"
            return difference(expected[wrong[0]], got[wrong[0]], label)
        for k in wrong[:3]:
            parts.append(f"[{k!r}] is {short_repr(got[k], 40)}, expected {short_repr(expected[k], 40)}")
        if len(wrong) > 3:
            parts.append(f"... {len(wrong)} wrong values in all")
        return at + ("; ".join(parts) or "keys of the wrong type")
    if same(expected, got):
        return ""
    return f"{at}expected {short_repr(expected, 60)}, got {short_repr(got, 60)}"


# --------------------------------------------------------------------------------------------
# Refusing a function that uses the reference solver


def _provided_module(name: str, provided: tuple[str, ...]) -> bool:
    """Whether the module ``bpe_ref.<...>`` named ``name`` is one the learner may use."""
    return any(name == f"{PACKAGE_NAME}.{module}" for module in provided)


@functools.lru_cache(maxsize=4096)  # asked for every bpe_ref function on every call of a learner's function
def _provided_file(filename: str, provided: tuple[str, ...]) -> bool:
    try:
        path = Path(filename).resolve()
    except (OSError, ValueError):
        return False
    return any(path == PACKAGE_DIR.joinpath(*module.split(".")).with_suffix(".py") for module in provided)


def _is_reference_object(value: Any, provided: tuple[str, ...] = ()) -> str | None:
    """A description of ``value`` when it belongs to the ``bpe_ref`` package (and not to one of the
    ``provided`` modules), else ``None``."""
    if isinstance(value, types.ModuleType):
        name = getattr(value, "__name__", "") or ""
        if (name == PACKAGE_NAME or name.startswith(PACKAGE_NAME + ".")) and not _provided_module(name, provided):
            return f"the module {name}"
        return None
    code = getattr(value, "__code__", None)
    if isinstance(code, types.CodeType) and _in_package(code.co_filename):
        if _provided_file(code.co_filename, provided):
            return None
        return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', '?')}"
    module = getattr(value, "__module__", None)
    if isinstance(module, str) and (module == PACKAGE_NAME or module.startswith(PACKAGE_NAME + ".")):
        if _provided_module(module, provided):
            return None
        return f"{module}.{getattr(value, '__qualname__', getattr(value, '__name__', '?'))}"
    return None


@functools.lru_cache(maxsize=4096)
def _in_package(filename: str) -> bool:
    try:
        return Path(filename).resolve().is_relative_to(PACKAGE_DIR)
    except (OSError, ValueError):
        return False


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _unwrap(value: Any) -> Any:
    for _ in range(10):
        if isinstance(value, functools.partial):
            value = value.func
        elif isinstance(value, types.MethodType):
            value = value.__func__
        elif hasattr(value, "__wrapped__"):
            value = value.__wrapped__
        else:
            break
    return value


def reference_use(function: Any, depth: int = 3, provided: tuple[str, ...] = ()) -> str | None:
    """How ``function`` uses ``bpe_ref`` (in its code, or in functions of the learner it calls), or ``None``.

    Looks at what the code can reach: the names it loads (globals and imports), string
    constants naming ``bpe_ref`` modules, default arguments and closure cells. Learner functions it
    calls are followed ``depth`` levels deep.
    """
    seen: set[int] = set()

    def visit(value: Any, depth: int, via: str) -> str | None:
        value = _unwrap(value)
        if id(value) in seen:
            return None
        seen.add(id(value))
        found = _is_reference_object(value, provided)
        if found:
            return f"{via}{found}"
        if not isinstance(value, types.FunctionType):
            return None
        globals_ = value.__globals__
        for code in _code_objects(value.__code__):
            for name in code.co_names:
                if name == PACKAGE_NAME or name.startswith(PACKAGE_NAME + "."):
                    return f"{via}an import of {name}"
            for const in code.co_consts:
                if isinstance(const, str) and const != value.__doc__ and (
                    const == PACKAGE_NAME or const.startswith(PACKAGE_NAME + ".")
                ):
                    return f"{via}the name {const!r}"
            for name in code.co_names:
                if name in globals_:
                    target = globals_[name]
                    found = _is_reference_object(_unwrap(target), provided)
                    if found:
                        return f"{via}{found} (as {name})"
                    if depth > 0 and isinstance(_unwrap(target), types.FunctionType):
                        found = visit(target, depth - 1, f"{via}{name} -> ")
                        if found:
                            return found
        extras = list(value.__defaults__ or ()) + list((value.__kwdefaults__ or {}).values())
        for cell in value.__closure__ or ():
            try:
                extras.append(cell.cell_contents)
            except ValueError:  # an empty cell
                pass
        for extra in extras:
            found = visit(extra, depth - 1, via) if depth > 0 else _is_reference_object(_unwrap(extra), provided)
            if found:
                return found
        return None

    return visit(function, depth, "")


def _trap_code() -> types.CodeType:
    def reference_trap(*args, _bpe_ref_reference_called=None, **kwargs):
        _bpe_ref_reference_called()

    return reference_trap.__code__


_TRAP_CODE = _trap_code()
_TRAP_KEYWORD = "_bpe_ref_reference_called"


_REFERENCE_FUNCTIONS_CACHE: dict[tuple, list[types.FunctionType]] = {}


def _reference_functions(provided: tuple[str, ...] = ()) -> list[types.FunctionType]:
    """Every function of the ``bpe_ref`` modules the learner can reach through ``sys.modules``
    (but those of the ``provided`` modules). Looked up again only when those modules changed: a
    property test calls the learner's function hundreds of times, and a search costs milliseconds."""
    modules = [(name, module) for name, module in list(sys.modules.items())
               if (name == PACKAGE_NAME or name.startswith(PACKAGE_NAME + ".")) and module is not None]
    key = (provided, tuple((name, id(module), len(vars(module))) for name, module in modules))
    if key not in _REFERENCE_FUNCTIONS_CACHE:
        _REFERENCE_FUNCTIONS_CACHE.clear()
        _REFERENCE_FUNCTIONS_CACHE[key] = _search_reference_functions(modules, provided)
    return _REFERENCE_FUNCTIONS_CACHE[key]


def _search_reference_functions(modules: list[tuple[str, types.ModuleType]], provided: tuple[str, ...]) -> list[types.FunctionType]:
    found: dict[int, types.FunctionType] = {}
    for _, module in modules:
        for value in list(vars(module).values()):
            candidates = [value]
            if isinstance(value, type):
                for attribute in vars(value).values():
                    candidates.append(getattr(attribute, "__func__", getattr(attribute, "fget", attribute)))
            for candidate in candidates:
                candidate = _unwrap(candidate)
                if (
                    isinstance(candidate, types.FunctionType)
                    and not candidate.__code__.co_freevars  # a code swap needs the same free variables
                    and _in_package(candidate.__code__.co_filename)
                    and not _provided_file(candidate.__code__.co_filename, provided)
                ):
                    found[id(candidate)] = candidate
    return list(found.values())


@contextmanager
def reference_trapped(provided: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """While active, every ``bpe_ref`` function in ``sys.modules`` raises :class:`ReferenceSolverCalled`.

    The functions are changed in place (their code object is swapped), so a learner who bound one
    to another name (``from bpe_ref.train.common import merge_word as m``) is caught too. Yields
    the list of functions called, filled even when the learner's code swallows the exception.
    The graders' own private copy of the package is separate function objects, unaffected.
    """
    calls: list[str] = []
    saved = []

    def report(qualified_name: str) -> None:
        calls.append(qualified_name)
        raise ReferenceSolverCalled(f"{qualified_name} (the reference solution) was called")

    for function in _reference_functions(provided):
        saved.append((function, function.__code__, function.__defaults__, function.__kwdefaults__))
    try:
        for function, _, _, _ in saved:
            function.__code__ = _TRAP_CODE
            function.__defaults__ = None
            function.__kwdefaults__ = {_TRAP_KEYWORD: functools.partial(report, f"{function.__module__}.{function.__qualname__}")}
        yield calls
    finally:
        for function, code, defaults, kwdefaults in saved:
            function.__code__ = code
            function.__defaults__ = defaults
            function.__kwdefaults__ = kwdefaults


def refuse_reference_use(task: Task, learner: Any) -> None:
    """Fail when ``learner`` is not a function of the learner's own, or visibly uses ``bpe_ref``.

    A function run in the grading process needs neither check: ``bpe_ref`` is unreachable there,
    and whether the name is a function is the worker's to say at the first call."""
    if runs_remotely(learner):
        return
    if not callable(learner):
        raise CheckFailed(f"{task.name} should be a function, but it is a {type(learner).__name__}: {short_repr(learner, 60)}")
    found = reference_use(learner, provided=task.provided)
    if found:
        raise CheckFailed(
            f"{task.name} uses the reference solution ({found}). The graders compare your code with "
            "bpe_ref, so a function that calls it proves nothing: write it yourself, without bpe_ref."
        )


# --------------------------------------------------------------------------------------------
# Calling the learner's function and comparing


@dataclass
class Outcome:
    """What one call of the learner's function did."""

    value: Any = None
    error: BaseException | None = None
    reference_calls: list[str] = field(default_factory=list)


@contextmanager
def standing_in(learner: Callable, stand_ins: Sequence[Callable]) -> Iterator[None]:
    """Bind each of ``stand_ins`` under its name in ``learner``'s globals (the notebook's), then
    put back what was there (or nothing). In a notebook only: the worker does it remotely."""
    namespace = getattr(learner, "__globals__", None)
    if not stand_ins or not isinstance(namespace, dict):
        yield
        return
    missing = object()
    saved = {function.__name__: namespace.get(function.__name__, missing) for function in stand_ins}
    namespace.update({function.__name__: function for function in stand_ins})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value


class TookTooLong(BaseException):
    """A learner's call in the kernel ran past its task's ``kernel_time_limit``. A ``BaseException``,
    as ``KeyboardInterrupt`` is: a learner's ``except Exception`` inside a loop must not swallow it."""


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`TookTooLong` in the code run under it after ``seconds`` (a timer signal: only in
    the main thread, on systems that have one; elsewhere, and with ``None``, no limit)."""
    if seconds is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise TookTooLong(f"did not finish within {seconds:g} s (a loop that never ends? at the end of a file, read "
                          "returns b'' for ever)")

    previous = signal.signal(signal.SIGALRM, expire)
    # Then again every quarter second until the block is left: one raise can be lost (a learner's
    # bare ``except:``, a finaliser running when the signal arrives), the next ones stop the call.
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.25)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def call_learner(learner: Callable, args: tuple, provided: tuple[str, ...] = (),
                 stand_ins: Sequence[Callable] = (), time_limit_seconds: float | None = None,
                 driver: Callable[..., Any] | None = None) -> Outcome:
    """Call ``learner(*args)`` on a deep copy of ``args`` with the reference trapped, and the
    ``stand_ins`` (reference helpers, :attr:`Task.stand_ins`) bound in place of the learner's.
    With a ``driver`` (:attr:`Task.driver`), call ``driver(learner, *args)`` instead.

    ``Outcome.value`` is ``(args_copy, result)``: the copy the learner received (a task may update
    it in place) and what it returned. Exceptions of the learner's code are captured, not raised;
    ``KeyboardInterrupt`` (the autograder's timeout) and ``SystemExit`` pass through.
    """
    outcome = Outcome()
    if runs_remotely(learner):  # in the grading process: no reference to trap, only data back
        try:
            outcome.value = learner.invoke(args, stand_ins=tuple(stand_ins), driver=driver)
        except LearnerError as error:
            outcome.error = error
        return outcome
    learner_args = copy.deepcopy(args)
    # The stand-ins and the driver are the graders' private copy of the reference: the trap leaves them alone.
    with standing_in(learner, stand_ins), reference_trapped(provided) as calls:
        try:
            with time_limit(time_limit_seconds):
                result = learner(*learner_args) if driver is None else driver(learner, *learner_args)
                outcome.value = (learner_args, result)
        except (Exception, TookTooLong) as error:  # the learner's bug, reported as such
            outcome.error = error
    outcome.reference_calls = list(calls)
    return outcome


def call_watching(learner: Callable, args: tuple, names: Sequence[str], provided: tuple[str, ...] = (),
                  stand_ins: Sequence[Callable] = ()) -> tuple[Outcome, dict[str, list[int]]]:
    """Call ``learner(*args)`` while the learner's functions ``names`` are watched: the outcome,
    and for each name the length of its first argument at every call (-1 when it has none).

    In the grading process the worker does the watching; in a notebook the names are wrapped in
    the function's own globals for the length of the call, then put back.
    """
    if runs_remotely(learner):
        outcome = Outcome()
        try:
            reply = learner.invoke_raw(args, spy=tuple(names), stand_ins=tuple(stand_ins))
        except Exception as problem:  # the arguments could not be sent: the grader's fault
            raise RuntimeError(f"could not call {learner.__name__}: {problem}") from None
        if not reply.get("ok"):
            outcome.error = LearnerError.from_data(reply.get("error") or {})
        spied = reply.get("spy") or {}
        return outcome, {name: [int(n) for n in spied.get(name, []) if type(n) is int] for name in names}
    namespace = getattr(learner, "__globals__", None)
    if not isinstance(namespace, dict):
        raise CheckFailed(f"{getattr(learner, '__name__', 'the function')} must be a function defined in the notebook")
    lengths: dict[str, list[int]] = {name: [] for name in names}
    with standing_in(learner, stand_ins):  # watched through the stand-ins, as in the worker
        originals = {name: namespace[name] for name in names if callable(namespace.get(name))}
        namespace.update({name: watched(name, function, lengths) for name, function in originals.items()})
        try:
            outcome = call_learner(learner, args, provided)
        finally:
            namespace.update(originals)
    return outcome, lengths


def watched(name: str, function: Callable, lengths: dict[str, list[int]]) -> Callable:
    """``function``, appending the length of its first argument (-1 without one) to ``lengths[name]``."""

    def call(*call_args, **kwargs):
        first = call_args[0] if call_args else next(iter(kwargs.values()), None)
        try:
            lengths[name].append(len(first))
        except TypeError:
            lengths[name].append(-1)
        return function(*call_args, **kwargs)

    return call


def expected_result(task: Task, reference: Callable, args: tuple) -> Any:
    """What the reference gives for ``args`` (on a copy; through the task's driver if it has one), as a plain value."""
    reference_args = copy.deepcopy(args)
    result = reference(*reference_args) if task.driver is None else task.driver(reference, *reference_args)
    return plain(task.observed(reference_args, result))


def _first_line_of(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{error_name(error)}: {text[0]}" if text else error_name(error)


def verdict(task: Task, learner: Callable, reference: Callable, case: Case) -> str | None:
    """``None`` when the learner agrees with the reference on ``case``; else the failure message."""
    args = materialized(case.args, learner)
    expected = expected_result(task, reference, args)
    call = call_repr(task, case)
    outcome = call_learner(learner, args, task.provided, task.stand_ins, task.kernel_time_limit, task.driver)
    if outcome.reference_calls:
        return (
            f"{task.name} calls the reference solution ({outcome.reference_calls[0]}) in {call}. "
            "The graders compare your code with bpe_ref, so calling it proves nothing: write it yourself."
        )
    if outcome.error is not None:
        if error_name(outcome.error) == "NotImplementedError":
            return (f"{task.written_in or task.name} is not written yet: it still raises NotImplementedError (write your "
                    "code in place of the skeleton's raise)")
        return "\n".join([f"{call} raised {_first_line_of(outcome.error)}", f"  expected: {short_repr(expected, 300)}",
                          *hints(task, args, expected, error=outcome.error), *stand_in_note(task)])
    learner_args, result = outcome.value
    changed = changed_argument(task, args, learner_args)
    if changed:
        return "\n".join([f"{call} {changed}", *stand_in_note(task)])
    try:
        got = plain(task.observed(learner_args, result), f"what {task.name} returned")
    except WrongType as wrong:
        what = f" ({task.what})" if task.what else ""
        return f"{call} returned the wrong type: {wrong}\n  expected: {short_repr(expected, 300)}{what}"
    if same(expected, got):
        return None
    where = difference(expected, got, item=task.item, first=task.first)
    shown = in_order_of(expected, got)
    if len(repr(expected)) <= SHORT_REPR_CHARS and len(repr(got)) <= SHORT_REPR_CHARS:
        lines = [f"{call}: expected {expected!r}, got {shown!r}", f"  where they differ: {where}"]
    else:  # too long to read whole: the first line says where they differ
        lines = [f"{call}: {where}"]
        index = first_differing_item(expected, got)
        if index is not None and len(repr(expected)) > SHORT_REPR_CHARS:
            # A long list: show the items around the first difference, not its (identical) start.
            label = f"{task.item} {index + task.first}"
            lines += [f"  expected, around {label}: {window_repr(expected, index, first=task.first)}",
                      f"  got, around {label}:      {window_repr(got, index, first=task.first)}"]
        else:
            lines += [f"  expected: {short_repr(expected, 300)}", f"  got:      {short_repr(shown, 300)}"]
    lines += hints(task, args, expected, got)
    lines += stand_in_note(task)
    return "\n".join(lines)


def changed_argument(task: Task, before: tuple, after: tuple) -> str | None:
    """What ``task``'s function did to an argument it must leave unchanged (:attr:`Task.unchanged`), or ``None``."""
    for index in task.unchanged:
        if index >= len(before) or index >= len(after):
            continue
        try:
            was, now = plain(before[index]), plain(after[index], f"{task.params[index]} after the call")
        except WrongType as wrong:
            return f"changed its argument {task.params[index]}: {wrong}"
        if not same(was, now):
            where = difference(was, now, task.params[index])
            return (f"changed its argument {task.params[index]}, which the task says to leave as it is "
                    f"(expected: as it was before the call; {where}).\n"
                    f"  hint: build a new value (a new dict, a copy) instead of updating the one you were given: the "
                    f"caller still uses it")
    return None


def stand_in_note(task: Task) -> list[str]:
    """The line that says which earlier functions were the reference's while ``task`` ran."""
    if not task.stand_ins:
        return []
    names = [function.__name__ for function in task.stand_ins]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "was" if len(names) == 1 else "were"
    name = task.written_in or task.name
    if task.kept:
        kept = " and ".join(task.kept)
        return [f"  note: while {name} ran, {listed} {verb} the reference's but {kept} was yours, "
                f"so this difference comes from {name} itself or from your {kept}"]
    return [f"  note: while {name} ran, {listed} {verb} the reference's, "
            f"so this difference comes from {name} itself"]


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def in_order_of(expected: Any, got: Any) -> Any:
    """``got``, a dict shown with its keys in ``expected``'s order (then its extra keys), so that the
    two can be read side by side; any other value unchanged."""
    if not (isinstance(expected, dict) and isinstance(got, dict)):
        return got
    return {**{k: got[k] for k in expected if k in got}, **{k: v for k, v in got.items() if k not in expected}}


def _leaves(value: Any, in_tuple: bool = False) -> Iterator[tuple[Any, bool]]:
    """Every scalar in ``value`` (keys included), with whether it is an item of a tuple (a word or a
    pair, in the labs: where tokens are). Only a tuple's own items count: the counts in a dict that a
    tuple holds (lab 05's ``(changes, merged_nodes)``) are not tokens."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(key)
            yield from _leaves(item)
    elif isinstance(value, (list, tuple, set)):
        for item in value:
            yield from _leaves(item, isinstance(value, tuple))
    else:
        yield value, in_tuple


def hints(task: Task, args: tuple, expected: Any, got: Any = None, error: BaseException | None = None) -> list[str]:
    """Hints for the commonest mistakes, as message lines (none when nothing matches)."""
    found = []
    specific_error = task.error_hint(args, error) if error is not None and task.error_hint is not None else None
    if specific_error:
        found.append(specific_error)
    elif error is not None:
        text = str(error)
        if error_name(error) == "ValueError" and "empty" in text and ("max()" in text or "min()" in text):
            found.append("max() or min() of nothing: when no pair is left (every word is a single token), "
                         "stop early instead of picking a best pair")
        if error_name(error) == "KeyError" and any(isinstance(arg, dict) and not isinstance(arg, defaultdict) for arg in args):
            found.append("a KeyError on a dict of counts: a plain dict has no default, so counts[key] += change "
                         "fails for a new key; write counts.get(key, 0) + change (and delete a count that reaches 0)")
    else:
        def token_ints(value: Any) -> int:
            return sum(1 for leaf, in_tuple in _leaves(value) if in_tuple and type(leaf) is int)

        if any(type(leaf) is bytes for leaf, _ in _leaves(expected)) and token_ints(got) > token_ints(expected):
            found.append("ints where bytes were expected: iterating over bytes yields ints (b'ab'[0] == 97); "
                         "a one-byte token is bytes([b]) or data[i:i + 1]")
        if task.hint is not None:
            specific = task.hint(args, expected, got)
            if specific:
                found.append(specific)
    return [f"  hint: {text}" for text in found]


def first_differing_item(expected: Any, got: Any) -> int | None:
    """The index of the first item where two lists (or tuples) differ; ``None`` for other values."""
    if not (isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple))):
        return None
    for i, (e, g) in enumerate(zip(expected, got)):
        if not same(e, g):
            return i
    return min(len(expected), len(got)) if len(expected) != len(got) else None


def window_repr(items: Sequence[Any], index: int, radius: int = 3, first: int = 0) -> str:
    """Items ``index - radius .. index + radius``: ``... [30] x, [31] y ... (243 items)`` with Python's
    indices (``first=0``), or ``... #31 x, #32 y ...`` numbered from ``first`` (merges count from 1)."""
    start, end = max(0, index - radius), min(len(items), index + radius + 1)
    label = (lambda i: f"[{i}]") if first == 0 else (lambda i: f"#{i + first}")
    shown = ", ".join(f"{label(i)} {items[i]!r}" for i in range(start, end)) or "(nothing here)"
    return f"{'... ' if start else ''}{shown}{' ...' if end < len(items) else ''} ({len(items)} items)"


def check_cases(task: Task, learner: Callable, reference: Callable, cases: Sequence[Case | tuple]) -> int:
    """Run fixed cases in order; raise :class:`CheckFailed` at the first disagreement. Returns the count."""
    refuse_reference_use(task, learner)
    cases = [c if isinstance(c, Case) else Case(tuple(c)) for c in cases]
    for case in cases:
        message = verdict(task, learner, reference, case)
        if message:
            raise CheckFailed(message)
    return len(cases)


_HIDDEN_SEED: list[int | None] = [None]  # the grading's secret seed; None in the learner's kernel


@contextmanager
def hidden_seed(seed: int | None) -> Iterator[None]:
    """While active, :func:`check_property` draws its inputs from ``seed`` (and the task's name)
    instead of hypothesis's fixed derandomized sequence. The trusted grader sets it from a seed the
    learner cannot know (the course's, kept with the gradebook; a fresh one per self-grade); in the
    learner's kernel it is unset, so the advice is the same at every run."""
    saved = _HIDDEN_SEED[0]
    _HIDDEN_SEED[0] = seed
    try:
        yield
    finally:
        _HIDDEN_SEED[0] = saved


def hypothesis_randomness(name: str) -> tuple[dict, Callable[[Callable], Callable]]:
    """``(settings keywords, decorator)`` that make a hypothesis test draw as :func:`hidden_seed`
    says: derandomized without a seed, else seeded from it and ``name`` (every task its own inputs,
    the same for the whole class and at a regrade)."""
    seed = _HIDDEN_SEED[0]
    if seed is None:
        return {"derandomize": True}, lambda test: test
    import hashlib

    from hypothesis import seed as seeded

    drawn = int.from_bytes(hashlib.sha256(f"{seed}:{name}".encode()).digest()[:8], "big")
    return {"derandomize": False}, seeded(drawn)


def check_property(
    task: Task,
    learner: Callable,
    reference: Callable,
    strategy: Any,
    *,
    max_examples: int = 100,
    min_examples: int | None = None,
) -> int:
    """Compare ``learner`` with ``reference`` on inputs drawn from ``strategy`` (tuples of arguments).

    Hypothesis runs derandomized in the learner's kernel (the same inputs every run) and from the
    grading's secret seed when graded (:func:`hidden_seed`), with no deadline, no example
    database and at most ``max_examples`` inputs; on a disagreement it shrinks the input, and the
    message reports that smallest failing input. Returns how many inputs were tried. Fewer than
    ``min_examples`` (default: a quarter of ``max_examples``, at least 1) compared inputs is a
    failure, never a pass: the count is kept here, where the learner's code does not run.
    """
    minimum = max(1, max_examples // 4) if min_examples is None else min_examples
    from hypothesis import HealthCheck, Phase, given, settings

    refuse_reference_use(task, learner)
    tried = [0]
    failures: list[str] = []
    randomness, seeded = hypothesis_randomness(task.name)

    @seeded
    @settings(
        max_examples=max_examples,
        **randomness,
        deadline=None,
        database=None,
        print_blob=False,
        report_multiple_bugs=False,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def agrees_with_reference(args: tuple) -> None:
        tried[0] += 1
        message = verdict(task, learner, reference, Case(tuple(args)))
        if message:
            failures.append(message)
            raise CheckFailed(message)

    try:
        agrees_with_reference()
    except CheckFailed:
        # Hypothesis re-raises the failure of the smallest input last: that is the one to show.
        raise CheckFailed(
            f"{failures[-1]}\n  (the smallest failing input hypothesis found, among {tried[0]} generated inputs)"
        ) from None
    except Exception:
        if not failures:  # a problem of the grader itself: let it show
            raise
        # Hypothesis's "flaky" error: the same input failed once and passed when run again.
        raise CheckFailed(
            f"{failures[-1]}\n  (this input failed once but not when run again: does {task.name} depend on "
            "anything besides its arguments, such as a global variable it changes?)"
        ) from None
    if tried[0] < minimum:  # hypothesis switched off or patched, or a strategy that ran dry
        raise CheckFailed(
            f"only {tried[0]} generated inputs were compared for {task.name}, fewer than the {minimum} required: "
            "the property test did not really run"
        )
    return tried[0]


def _one_short_failure(function: Callable) -> Callable:
    """``function``, whose failure surfaces as one short :class:`CheckFailed` traceback (the cell,
    then this line), not the grading machinery's inner frames."""

    @functools.wraps(function)
    def entry_point(*args, **kwargs):
        __tracebackhide__ = True  # pytest leaves this frame out of its tracebacks
        try:
            return function(*args, **kwargs)
        except CheckFailed as failure:
            message = str(failure)
        raise CheckFailed(message) from None

    return entry_point


def grader(function: Callable) -> Callable:
    """Decorate a grader's entry point, the one call of a graded test cell (see
    :func:`_one_short_failure` for how it fails)."""
    entry_point = _one_short_failure(function)
    entry_point.is_grader = True  # what tests and tools list as a lab's graders
    return entry_point


def advisory(function: Callable) -> Callable:
    """Decorate the self-check of a stretch task: it fails like a grader, with the call, what was
    expected, what came back, the smallest failing input and a hint, but it is advice only. No
    graded test cell calls it, the trusted grader never runs it (it is not ``is_grader``), and it
    carries no points: a stretch cell calls it in the learner's kernel, skipped under the autograder."""
    entry_point = _one_short_failure(function)
    entry_point.is_advisory = True  # what tests list as a lab's stretch self-checks
    return entry_point


def passed(message: str) -> None:
    """Tell the learner a check passed (graded cells print one line when they pass)."""
    print(message)


def task_graders(
    task: Task,
    reference: Callable,
    cases: Sequence[Case | tuple],
    strategy: Any,
    *,
    max_examples: int = 100,
    verify: Callable[[Callable], None] | None = None,
) -> tuple[Callable[[Callable], None], Callable[[Callable], None]]:
    """The two graders of a task: ``check_<name>`` (fixed cases, the visible test cell) and
    ``check_<name>_properties`` (generated inputs against the reference, the hidden test cell).
    ``verify(learner)``, when given, is a check of how the function works (its calls, its time) that
    both run: the visible one after its cases, the hidden one first (else the cases alone could pass)."""

    @grader
    def check(learner: Callable) -> None:
        count = check_cases(task, learner, reference, cases)
        if verify is not None:
            verify(learner)
        passed(f"{task.name}: all {count} visible cases pass.")

    @grader
    def check_properties(learner: Callable) -> None:
        if verify is not None:
            verify(learner)
        count = check_property(task, learner, reference, strategy, max_examples=max_examples)
        passed(f"{task.name}: agrees with the reference on {count} generated inputs.")

    check.task, check.reference, check.cases = task, reference, [c if isinstance(c, Case) else Case(tuple(c)) for c in cases]
    check.__name__ = check.__qualname__ = f"check_{task.name}"
    check.__doc__ = f"Visible test of {task.name}: its fixed cases, compared with the reference."
    check_properties.__name__ = check_properties.__qualname__ = f"check_{task.name}_properties"
    check_properties.__doc__ = f"Hidden test of {task.name}: hypothesis-generated inputs, compared with the reference."
    return check, check_properties
