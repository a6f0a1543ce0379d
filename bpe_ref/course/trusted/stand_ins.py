"""Stand-ins: the reference's helpers, put in place of the learner's while one task is graded.

A lab's later tasks call its earlier ones (lab 02's ``train`` calls ``merge_and_update``). Graded
end to end, one early bug would cost every task that uses it; so while a task is graded, the earlier
tasks' names are bound to the reference's functions (a grader's ``Task.stand_ins``). The worker has
no ``bpe_ref``: it receives :func:`stand_in_source`, the source of the stand-ins and the module-level
names they use, never the function being graded nor a later task's (:class:`StandInError`), so a
learner who catches a stand-in gets a helper already graded, never an answer.

>>> from bpe_ref.train.step01_naive import merge_word
>>> source = stand_in_source((merge_word,), forbidden=("train",))
>>> namespace = {}
>>> exec(source, namespace)
>>> namespace["merge_word"]((b"a", b"b"), (b"a", b"b"))
(b'ab',)
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import types
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path

# The package on disk: its functions travel as source, wherever they were loaded from (the graders
# use a private copy of the package under another name, see bpe_ref.course.checks.fresh).
PACKAGE_DIR = Path(__file__).resolve().parents[2]
_LITERALS = (bool, int, float, str, bytes, type(None))


class StandInError(ValueError):
    """A stand-in cannot be sent: it needs a forbidden name, or a value that has no source."""


def _names_used(code: types.CodeType) -> Iterator[str]:
    """Every global name ``code`` (and the functions and comprehensions inside it) may look up."""
    yield from code.co_names
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _names_used(constant)


def _names_in_defaults(function: types.FunctionType) -> list[str]:
    """The names a function's default values are written with (``special_tokens=DEFAULT_SPECIAL_TOKENS``):
    they are looked up when the ``def`` runs, so its code object does not list them; its source does."""
    definition = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    defaults = [*definition.args.defaults, *(d for d in definition.args.kw_defaults if d is not None)]
    return [node.id for default in defaults for node in ast.walk(default) if isinstance(node, ast.Name)]


def _is_literal(value: object) -> bool:
    if isinstance(value, _LITERALS):
        return True
    if isinstance(value, (tuple, list, frozenset, set)):
        return all(_is_literal(item) for item in value)
    if isinstance(value, dict):
        return all(_is_literal(key) and _is_literal(item) for key, item in value.items())
    return False


def _in_package(function: types.FunctionType) -> bool:
    return Path(function.__code__.co_filename).resolve().is_relative_to(PACKAGE_DIR)


def _from_package(module_name: str) -> bool:
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    return module_name.split(".")[0] == PACKAGE_DIR.name or (file is not None and Path(file).resolve().is_relative_to(PACKAGE_DIR))


def _definition(name: str, value: object, provided: frozenset[str]) -> str | None:
    """The line(s) that bind ``name`` to ``value`` in the worker; ``None`` for a function of the
    package (its source is emitted by the caller, after its own dependencies)."""
    if isinstance(value, types.ModuleType):
        return f"import {value.__name__} as {name}" if value.__name__ != name else f"import {name}"
    if isinstance(value, types.FunctionType) and _in_package(value):
        module = value.__module__.split(".", 1)[-1]  # relative to the package (a private copy has another name)
        if module in provided:  # the worker holds that module: import the function there, send nothing
            return f"from {PACKAGE_DIR.name}.{module} import {value.__name__} as {name}"
        return None
    if _is_literal(value):
        return f"{name} = {value!r}"
    pattern_type = type(value).__name__ == "Pattern" and hasattr(value, "pattern") and hasattr(value, "flags")
    if pattern_type:  # a compiled regular expression of `re` or `regex`
        module = type(value).__module__.split(".")[0].lstrip("_")
        module = "regex" if module == "regex" else "re"
        return f"import {module} as _{module}\n{name} = _{module}.compile({value.pattern!r}, {value.flags!r})"
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if module and qualname and "." not in qualname and not _from_package(module):
        return f"from {module} import {qualname} as {name}"  # a class or function of another library
    raise StandInError(f"cannot send {name} = {value!r} to the worker as source")


def stand_in_source(functions: Iterable[Callable], forbidden: Iterable[str] = (), provided: Iterable[str] = ()) -> str:
    """Python source that defines ``functions`` (by their ``__name__``) and what they need.

    ``forbidden``: names never sent (:class:`StandInError` if a stand-in needs one). ``provided``:
    modules of the package the worker holds (``GRADING_POLICY``), imported there, not sent.
    """
    return _source(tuple(functions), frozenset(forbidden), frozenset(provided))


@lru_cache(maxsize=64)
def _source(functions: tuple[Callable, ...], forbidden: frozenset[str], provided: frozenset[str] = frozenset()) -> str:
    lines = ["from __future__ import annotations"]
    done: dict[str, object] = {}

    def emit(name: str, value: object, needed_by: str) -> None:
        if name in done:
            if done[name] is not value:
                raise StandInError(f"two different values are called {name}")
            return
        if name in forbidden:
            raise StandInError(f"{needed_by} needs {name}, which must not reach the worker")
        done[name] = value
        line = _definition(name, value, provided)
        if line is not None:
            lines.append(line)
            return
        for used in dict.fromkeys([*_names_in_defaults(value), *_names_used(value.__code__)]):
            if used in value.__globals__ and not (used.startswith("__") and used.endswith("__")):
                # else a builtin, or an attribute name (type(x).__name__ is no use of the module's __name__)
                emit(used, value.__globals__[used], name)
        lines.append(textwrap.dedent(inspect.getsource(value)))
        if value.__name__ != name:
            lines.append(f"{name} = {value.__name__}")

    for function in functions:
        if not isinstance(function, types.FunctionType):
            raise StandInError(f"a stand-in must be a function, got {function!r}")
        emit(function.__name__, function, "the grader")
    return "\n".join(lines) + "\n"
