"""Can worker processes start here? The main script's part in it, checked before any pool starts.

A worker process started by ``spawn`` or ``forkserver`` (step 03's pool, a local Dask cluster's
workers) first imports the main script again, as ``__mp_main__``, to find what the parent defined
there. Two kinds of script break that, and both used to end in ``BrokenProcessPool`` and one
traceback per worker:

- a script whose work is not under ``if __name__ == "__main__":``: each worker, importing it,
  starts the training again (and Python stops it: a process may not start processes while it
  is being started);
- a script read from standard input (``python - < script.py``): there is no file to import.

:func:`main_module_problem` finds both before any process starts, by reading the script (where the
call comes from, and whether an ``if __name__ == "__main__":`` holds that line). A notebook, the
interactive prompt, ``python -c`` and ``python -m package`` are fine: the workers do not re-run them.
"""

from __future__ import annotations

import ast
import contextlib
import multiprocessing.context
import os
import sys
import warnings
from functools import lru_cache

__all__ = ["GUARD", "main_module_problem", "warn_from_caller", "workers_can_start"]

GUARD = 'if __name__ == "__main__":'


def main_module_problem(start_method: str) -> str | None:
    """Why worker processes started by ``start_method`` cannot start from this script, or ``None``.

    ``fork`` copies the parent and imports nothing, so it is always ``None``. Otherwise the answer
    names the script and, for a call outside ``if __name__ == "__main__":``, its line.
    """
    if start_method == "fork":
        return None
    main = sys.modules.get("__main__")
    if main is None:
        return None
    spec = getattr(main, "__spec__", None)
    if spec is not None:  # python -m NAME: workers import NAME, unless it is a package's __main__
        if spec.name == "__main__" or spec.name.endswith(".__main__"):
            return None
        path = spec.origin
    else:
        path = getattr(main, "__file__", None)
    if not path:
        return None  # the interactive prompt, python -c, a notebook's kernel: workers re-run nothing
    if not os.path.isfile(path):
        return (f"the main script ({path}) was not read from a file (standard input?), and worker processes "
                "import the main script: save it to a file, with its work under " + GUARD)
    line = _calling_line(main)
    if line is not None and not _guarded(path, os.path.getmtime(path), line):
        return (f"worker processes import the main script again, and {path} makes this call at line {line}, "
                f"outside {GUARD}, so each worker would start it again: put the script's work under {GUARD}")
    return None


def _calling_line(main: object) -> int | None:
    """The line of the main script's top level that is running now (the call that led here)."""
    frame = sys._getframe(1)
    namespace = getattr(main, "__dict__", None)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is namespace:
            return frame.f_lineno
        frame = frame.f_back
    return None  # not called from the script's top level (a thread, a callback): nothing to say


@lru_cache(maxsize=8)
def _guarded(path: str, mtime: float, line: int) -> bool:
    """Whether ``line`` of the script at ``path`` lies inside an ``if __name__ == "__main__":``.
    A script that cannot be read or parsed gets the benefit of the doubt. (``mtime``: the cache key.)"""
    try:
        with open(path, "rb") as file:
            tree = ast.parse(file.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_main_test(node.test) and node.body:
            if node.body[0].lineno <= line <= (node.body[-1].end_lineno or node.body[-1].lineno):
                return True
    return False


def _is_main_test(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round, possibly within an ``and``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_is_main_test(value) for value in test.values)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
            and any(isinstance(side, ast.Constant) and side.value == "__main__" for side in sides))


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_from_caller(message: str) -> None:
    """A ``RuntimeWarning`` shown at the first line outside ``bpe_ref`` (and ``contextlib``) that led here (the
    script's own call, whatever chain of the package's functions it went through)."""
    level, frame = 2, sys._getframe(1)  # stacklevel 2: the frame that called this function
    while frame is not None and (os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE)
                                 or frame.f_code.co_filename == contextlib.__file__):  # a `with connect(...)`
        level, frame = level + 1, frame.f_back
    warnings.warn(message, RuntimeWarning, stacklevel=level)


def workers_can_start(context: multiprocessing.context.BaseContext, instead: str) -> bool:
    """Whether worker processes of ``context`` can start from this script; if not, a warning at the
    script's line says ``instead`` (what happens in their place) and why (:func:`main_module_problem`)."""
    problem = main_module_problem(context.get_start_method())
    if problem is None:
        return True
    warn_from_caller(f"{instead}: {problem}")
    return False
