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


