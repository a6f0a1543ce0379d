"""Refusing a function that uses the reference solver, twice: :func:`refuse_reference_use` reads its
code (and that of the learner's functions it calls) for ``bpe_ref``, and :func:`reference_trapped`
makes every ``bpe_ref`` function in ``sys.modules`` raise while the learner's function runs. In the
grading process neither is needed (``bpe_ref`` is unreachable from the worker).
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..trusted.verdicts import CheckFailed
from .compare import short_repr
from .spec import Task, runs_remotely

# The directory of the reference package on disk. Functions whose code lives here are "the
# reference" when the learner's function calls them.
PACKAGE_DIR = Path(__file__).resolve().parents[2]
PACKAGE_NAME = "bpe_ref"


class ReferenceSolverCalled(Exception):
    """Raised inside the learner's function when it calls a ``bpe_ref`` function during grading."""


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


# provided -> (the number of modules in sys.modules, the key of the bpe_ref modules, each module with its size, the traps)
_REFERENCE_FUNCTIONS_CACHE: dict[tuple, tuple] = {}
_ACTIVE: list[list[str]] = []  # the list of calls of each trap active now, the innermost last


def _reference_functions(provided: tuple[str, ...] = ()) -> list[tuple[types.FunctionType, functools.partial]]:
    """Every function of the ``bpe_ref`` modules the learner can reach through ``sys.modules`` (but those of the
    ``provided`` modules), each with the reporter its trap calls. Looked up again only when those modules changed: a
    property test calls the learner's function hundreds of times, and a search costs milliseconds. Whether they changed
    is read from the modules found last time (each still there, of the same size) while the number of modules loaded
    stays the same, else from a scan of ``sys.modules`` (about 0.8 ms in a process that loaded the suite's 1,500)."""
    cached = _REFERENCE_FUNCTIONS_CACHE.get(provided)
    if cached is not None and cached[0] == len(sys.modules) and all(
            sys.modules.get(name) is module and len(vars(module)) == size for name, module, size in cached[2]):
        return cached[3]
    count = len(sys.modules)
    modules = [(name, module) for name, module in list(sys.modules.items())
               if (name == PACKAGE_NAME or name.startswith(PACKAGE_NAME + ".")) and module is not None]
    key = tuple((name, id(module), len(vars(module))) for name, module in modules)
    if cached is None or cached[1] != key:
        _REFERENCE_FUNCTIONS_CACHE.clear()
        traps = [(function, functools.partial(_report, f"{function.__module__}.{function.__qualname__}"))
                 for function in _search_reference_functions(modules, provided)]
    else:
        traps = cached[3]
    _REFERENCE_FUNCTIONS_CACHE[provided] = (count, key, [(name, module, len(vars(module))) for name, module in modules], traps)
    return traps


def _reporter(active: list[list[str]]):
    def report(qualified_name: str) -> None:
        """What a trapped function calls: the call is added to the innermost active trap's list, and refused."""
        if active:
            active[-1].append(qualified_name)
        raise ReferenceSolverCalled(f"{qualified_name} (the reference solution) was called")

    return report


_report = _reporter(_ACTIVE)  # a closure: never trapped itself (a function with free variables is not)


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
    traps = _reference_functions(provided)
    saved = [(function, function.__code__, function.__defaults__, function.__kwdefaults__) for function, _ in traps]
    _ACTIVE.append(calls)
    try:
        for function, reporter in traps:
            function.__code__ = _TRAP_CODE
            function.__defaults__ = None
            function.__kwdefaults__ = {_TRAP_KEYWORD: reporter}
        yield calls
    finally:
        for function, code, defaults, kwdefaults in saved:
            function.__code__ = code
            function.__defaults__ = defaults
            function.__kwdefaults__ = kwdefaults
        _ACTIVE.pop()


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


