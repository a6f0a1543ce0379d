"""Flags for an instructor's review: what a submission did that no lab needs.

Three sources: what its worker did, seen from outside (:func:`.autograde.behaviour_lines`); what it
did to the cells autograde restores (:func:`tampering`); and, as a hint only, the capabilities its
own cells' text uses, for what behaviour cannot show (a failed import of the reference, a hook).
A flag changes no score; only the learner's cells are read, never a docstring.

>>> capability_uses("import subprocess\\nsubprocess.run(['ls'])")
['imports subprocess']
"""

from __future__ import annotations

import ast
import re
import sys
import time
from collections.abc import Callable, Iterator

from .cells import is_test_cell, kept_grade_ids, nbgrader_of, source_of
from .sandbox import ALLOWED_PACKAGES

# CPU seconds the review may spend on IPython's reading of one notebook's cells that are no Python without it
IPYTHON_REVIEW_SECONDS = 5.0
# Characters of a cell, and of a notebook's learner cells in all, the review parses: Python's parser and the walks of its
# tree cost some 8 s of CPU time and 800 MB a megabyte of a list literal, unbounded (a cell of 90 MB, under the
# exchange's limit, stopped grade --class: tests/test_grading_redteam.py, section 69). The course's solutions hold at most
# 4,106 characters in a cell and 17,214 in all.
REVIEW_CELL_CHARACTERS = 100_000
REVIEW_NOTEBOOK_CHARACTERS = 500_000

# module -> why a lab's code never needs it
MODULES = {
    "IPython": "IPython's shell",
    "ipykernel": "the kernel",
    "importlib": "the import machinery",
    "runpy": "runpy",
    "subprocess": "subprocess",
    "ctypes": "ctypes",
    "cffi": "cffi",
    "sqlite3": "sqlite3 (the gradebook is a SQLite file)",
    "sqlalchemy": "SQLAlchemy (the gradebook)",
    "nbgrader": "nbgrader",
    "hypothesis": "hypothesis (the graders' test library)",
    "tiktoken": "tiktoken (the encoder lab 06's hidden test compares with; no graded cell needs it)",
    "socket": "sockets",
    "signal": "signals",
    "inspect": "frame inspection",
    "gc": "the garbage collector's object lists",
    "shutil": "file-tree operations",
    "pickle": "pickle",
    "marshal": "marshal",
    "multiprocessing": "processes",
    "concurrent": "processes or threads",
    "os": None,  # fine in itself; its dangerous functions are listed below
    "sys": None,
    "builtins": "the builtins module",
}
ATTRIBUTES = {
    ("sys", "modules"): "sys.modules",
    ("sys", "settrace"): "sys.settrace",
    ("sys", "setprofile"): "sys.setprofile",
    ("sys", "_getframe"): "sys._getframe",
    ("sys", "excepthook"): "sys.excepthook",
    ("sys", "meta_path"): "the import machinery (sys.meta_path)",
    ("sys", "path_hooks"): "the import machinery (sys.path_hooks)",
    ("os", "system"): "os.system",
    ("os", "popen"): "os.popen",
    ("os", "fork"): "os.fork",
    ("os", "kill"): "os.kill",
    ("os", "killpg"): "os.killpg",
    ("os", "_exit"): "os._exit",
    ("os", "remove"): "os.remove",
    ("os", "unlink"): "os.unlink",
    ("os", "chdir"): "os.chdir",
    # Lab 09's measurements rest on the worker's interpreter as the driver finds it: a collection during a timed call is
    # costly (counted no longer by a callback: clearing them is a hint, section 33; by a cycle of the driver's, which
    # gc.get_objects finds, refused in the worker, and gc.freeze keeps from being freed: told by gc.get_count, which a
    # rebinding hides, flagged below), and os.urandom draws
    # the size its function allocates (checks/lab09_benchmarks.py)
    ("gc", "callbacks"): "gc.callbacks (the collector's callbacks: a driver's)",
    ("gc", "get_objects"): "gc.get_objects (every object of the interpreter: a driver's)",
    ("gc", "set_debug"): "gc.set_debug (the collector keeping what it frees: a driver's objects)",
    ("gc", "freeze"): "gc.freeze (every object kept from the collector: a driver's)",
    ("gc", "get_referents"): "gc.get_referents (another object's contents)",
    ("gc", "get_referrers"): "gc.get_referrers (the objects that hold another)",
    ("os", "urandom"): "os.urandom (the randomness a grader's driver draws)",
}
# Attributes that reach into another function's or frame's variables, on any object: no lab's code needs them, and
# through them a submission reads or rewrites what a grader's driver (lab 09) keeps in the worker (its call log, the
# size it allocates); lab 09's points rest on measurements that do not read them (tests/test_grading_redteam.py, section 14).
INTROSPECTION = {"__closure__", "cell_contents", "__globals__", "__code__", "__defaults__", "__kwdefaults__",
                 "f_locals", "f_globals", "f_back", "gi_frame", "cr_frame", "tb_frame"}
# Rebinding what a module holds (``json.dumps = ...``, ``json.JSONEncoder.encode = ...``, ``builtins.dict = ...``,
# ``setattr(json, ...)``) changes it for all the code of the interpreter, the grading worker's loop among it: no lab's
# code needs it, and a notebook did it to have a changed argument reported as it came (the loop now holds what writes a
# reply from before the learner's code runs, tests/test_grading_redteam.py, section 19). The roots: a name an import of
# the cell binds, a module of the standard library, ``__builtins__``.
STANDARD_MODULES = set(getattr(sys, "stdlib_module_names", ())) | {"builtins", "__builtins__"}


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


CALLS = {"__import__": "__import__", "exec": "exec", "eval": "eval", "compile": "compile",
         "get_ipython": "IPython's shell (get_ipython)", "open": "open (files)",
         "breakpoint": "breakpoint"}
# What a lab whose code counts a file in worker processes (lab 03) needs: processes, files to read,
# and a module of its own written with %%writefile NAME.py (for spawned workers to import).
ALLOWED_WITH_PROCESSES = {"multiprocessing", "concurrent", "os.fork", "open (files)"}
# What a lab whose code reads its own byte range of a file (lab 10's map) needs: files to read.
# Every lab's code may read its scratch folder anyway, so this only keeps open() out of the report.
ALLOWED_WITH_FILES = {"open (files)"}
# Keys of a lab's GRADING_POLICY that only this review reads, not the sandbox.
REVIEW_ONLY_POLICY = ("allow_files",)
WRITEFILE_MODULE = re.compile(r"%%writefile [A-Za-z_][A-Za-z0-9_]*\.py")
WRITTEN_MODULE = re.compile(r"%%writefile ([A-Za-z_][A-Za-z0-9_]*)\.py\s*\n")
# Third-party packages the grading worker loads: with the standard library, bpe_ref's given modules and the notebook's own
# %%writefile modules, all a graded cell can import there.
WORKER_PACKAGES = ALLOWED_PACKAGES
# What autograde skips by the course's convention (an exploration, a stretch's measuring cell): its imports never run there
SKIPPED_WHEN_GRADED = "NBGRADER_EXECUTION"
# The builtins namespace, read by name: no lab's code needs it, and through it a cell reaches what the worker's loop and
# a grader's driver hold (open, __import__, the functions a rebinding would change) past the flags above (walk52)
BUILTINS_NAMES = {"__builtins__"}


def _guarded_imports(tree: ast.AST) -> set[int]:
    """The ids of the import statements inside a ``try`` that catches their failure (``except ImportError``, ``except
    ModuleNotFoundError``, ``except Exception``, a bare ``except``): code that falls back when a module is missing."""
    catching = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                handler.type is None or any(isinstance(name, ast.Name) and name.id in catching for name in (
                    handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]))
                for handler in node.handlers):
            guarded |= {id(inner) for statement in node.body for inner in ast.walk(statement)
                        if isinstance(inner, (ast.Import, ast.ImportFrom))}
    return guarded


IPYTHON_SYNTAX = "IPython syntax other than a magic (autocall, help, prompts: read as IPython turns it into Python)"


def capability_uses(source: str, *, allow_processes: bool = False, allow_files: bool = False,
                    provided: tuple[str, ...] = (), as_ipython: Callable[[str], str] | None = None,
                    written: frozenset[str] = frozenset(), packages: tuple[str, ...] = WORKER_PACKAGES) -> list[str]:
    """What ``source`` (one cell of the learner's) uses that a lab never needs, one line each.
    ``allow_processes`` (lab 03) and ``allow_files`` (lab 10) leave out what those labs' tasks do;
    ``provided``: the modules of bpe_ref the lab gives its code (``"pretokenize"``), not flagged. ``as_ipython``: the
    cell as autograde runs it (:func:`.autograde.python_source`), read when the cell is no Python without it: IPython's
    autocall (``/f x``, ``,f a b``), help (``name?``) and prompts (``>>>``) are Python once turned, and one such line
    left the whole cell unread while it ran (tests/test_grading_redteam.py, section 62). ``written``: the modules the
    notebook writes with ``%%writefile NAME.py`` (its own, importable in the worker), ``packages``: the third-party ones
    the worker loads; an import of any other module outside the standard library fails when graded (section 101)."""
    found: list[str] = []
    stripped = [line.lstrip() for line in source.splitlines()]
    magics = [line for line in stripped if line.startswith(("%", "!"))]
    if allow_processes and source.startswith("%%writefile") and magics[:1] and WRITEFILE_MODULE.fullmatch(magics[0]):
        magics = magics[1:]
    if magics:
        found.append("an IPython magic or shell command")
    code = "\n".join("pass" if line.startswith(("%", "!")) else raw for raw, line in zip(source.splitlines(), stripped))
    try:
        tree = ast.parse(code)
    except SyntaxError:
        try:  # a line that starts with % or ! inside an expression (``(1\n% 2)``) is Python's, not a magic
            tree = ast.parse(source)
        except SyntaxError:
            turned = as_ipython(source) if as_ipython is not None else source
            try:
                tree = ast.parse(turned)
            except SyntaxError:
                return found  # no Python even as IPython reads it: the worker reported it, and ran none of it
            found.append(IPYTHON_SYNTAX)
            if "get_ipython" not in source:  # IPython's own calls in the code it wrote are not the learner's
                tree = ast.parse(turned.replace("get_ipython()", "_ipython()"))
    docstrings = {id(body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  for body in [node.body] if body and isinstance(body[0], ast.Expr)
                  and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)}
    imported = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    guarded = _guarded_imports(tree)
    skipped = SKIPPED_WHEN_GRADED in source
    # a name the cell binds otherwise (a variable called ``token`` or ``copy``) is no module of the standard library
    bound = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)} | {
        node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)} | {
        node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else node.targets if isinstance(node, ast.Delete) else []
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr")
                and node.args):
            name = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else "..."
            targets = [ast.Attribute(value=node.args[0], attr=str(name))]
        while any(isinstance(target, (ast.Tuple, ast.List, ast.Starred)) for target in targets):  # a, b = ...
            targets = [part for target in targets for part in (
                target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target.value] if isinstance(target, ast.Starred)
                else [target])]
        for target in targets:
            root = _root(target.value) if isinstance(target, ast.Attribute) else None
            if root is not None and (root in imported or root in STANDARD_MODULES - bound):
                found.append(f"rebinds {ast.unparse(target.value)}.{target.attr} (what a module holds, for all the code "
                             "of its process)")
        # the same through the module's namespace: ``json.__dict__["dumps"] = ...``, ``vars(json).update(dumps=...)``
        # rebinds as the attribute does, and no target above is an attribute (tests/test_grading_redteam.py, section 67)
        namespace = node.value if isinstance(node, ast.Attribute) and node.attr == "__dict__" else node.args[0] if (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars"
            and len(node.args) == 1) else None
        root = _root(namespace) if namespace is not None else None
        if root is not None and (root in imported or root in STANDARD_MODULES - bound):
            what = f"{ast.unparse(namespace)}.__dict__" if isinstance(node, ast.Attribute) else f"vars({ast.unparse(namespace)})"
            found.append(f"reaches {what} (what a module holds, for all the code of its process)")
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
        for module in modules:
            root = module.split(".")[0]
            if root == "bpe_ref":
                if module.removeprefix("bpe_ref.") not in provided:
                    found.append("imports bpe_ref (the reference)")
            elif MODULES.get(root) and not (allow_processes and root in ALLOWED_WITH_PROCESSES):
                found.append(f"imports {root}")
            elif (root not in MODULES and root not in STANDARD_MODULES and root not in packages and root not in written
                  and id(node) not in guarded and not skipped):
                found.append(f"imports {root}, which the grading worker cannot load (the standard library"
                             f"{''.join(f', {name}' for name in packages)} and the setup cell's modules only): the import "
                             "fails when graded, and the cells that need it score nothing")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            key = (node.value.id, node.attr)
            if key in ATTRIBUTES and not (allow_processes and ATTRIBUTES[key] in ALLOWED_WITH_PROCESSES):
                found.append(f"uses {ATTRIBUTES[key]}")
        if (isinstance(node, ast.Name) and node.id in BUILTINS_NAMES) or (
                isinstance(node, ast.Attribute) and node.attr in BUILTINS_NAMES) or (
                isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in BUILTINS_NAMES):
            found.append("reads __builtins__ (the interpreter's builtins: no lab's code needs them)")
        if isinstance(node, ast.Attribute) and node.attr in INTROSPECTION:
            found.append(f"reads {node.attr} (another function's or frame's variables)")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr")
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value in INTROSPECTION):
            found.append(f"reads {node.args[1].value} (another function's or frame's variables)")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALLS:
            what = CALLS[node.func.id]
            if not (allow_processes and what in ALLOWED_WITH_PROCESSES or allow_files and what in ALLOWED_WITH_FILES):
                found.append(f"calls {what}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings and (
            "bpe_ref" in node.value or "gradebook" in node.value or "solutions/" in node.value
        ):
            found.append(f"mentions {node.value[:40]!r}")
    return sorted(set(found))


def learner_cells(notebook: dict, release: dict) -> list[tuple[str, str]]:
    """``(cell id, source)`` of the code cells the learner wrote: every cell autograde runs as the learner wrote it that
    is not, to the letter, a code cell of the ``release`` the learner started from (solution cells filled in, cells
    added, shipped cells edited).

    Which cells those are is what nbgrader's sanitizing steps make of the notebook. A cell holding a grade_id of the
    lab's gets back the release cell's type and flags, and a read-only (locked) cell its source: a test cell never runs,
    a solution cell made markdown or raw runs as code (tests/test_grading_redteam.py, section 61). Of the cells graded,
    solutions or read-only that share a grade_id, DeduplicateIds keeps the last, and the others, as every cell whose
    grade_id the lab lacks, become plain cells, run if they are code: a copy of a test cell before it, or a cell with
    test metadata of its own, was run and not read (section 60); a cell holding a grade_id unmarked keeps it only where
    no cell holds it marked, the last such (:func:`.cells.kept_grade_ids`, section 117)."""
    shipped = {(cell.get("id"), source_of(cell)) for cell in release.get("cells", []) if cell.get("cell_type") == "code"}
    known = {_grade_id(cell): cell for cell in release.get("cells", []) if _grade_id(cell)}
    cells = notebook.get("cells", [])
    kept = kept_grade_ids(cells)  # the cell each grade_id stays on; the others holding it are plain (section 117)
    found = []
    for index, cell in enumerate(cells):
        grade_id = _grade_id(cell)
        source_cell = known.get(grade_id) if kept.get(grade_id) == index else None
        if source_cell is None:  # a plain cell as autograde runs it
            runs = cell.get("cell_type") == "code"
        else:  # put back as the release has it: run as written only if a code cell neither locked nor a test cell
            meta = nbgrader_of(source_cell)
            runs = source_cell.get("cell_type") == "code" and not meta.get("locked") and not is_test_cell(source_cell)
        if runs and (cell.get("id"), source_of(cell)) not in shipped:
            found.append((str(cell.get("id") or f"cell {index}"), source_of(cell)))
    return found


def notebook_flags(notebook: dict, release: dict, *, allow_processes: bool = False, allow_files: bool = False,
                   provided: tuple[str, ...] = ()) -> list[str]:
    """One line per learner cell that uses something :func:`capability_uses` flags."""
    from .autograde import python_source

    left = [IPYTHON_REVIEW_SECONDS]  # of this process's CPU time for IPython's reading of a notebook's cells, in all

    def as_ipython(source: str) -> str:
        if left[0] <= 0:
            raise TimeoutError
        start = time.process_time()
        try:
            return python_source(source, min(1.0, left[0]))
        finally:
            left[0] -= time.process_time() - start

    flags, read = [], 0
    written = frozenset(WRITTEN_MODULE.match(source_of(cell)).group(1) for cell in notebook.get("cells", [])
                        if cell.get("cell_type") == "code" and WRITTEN_MODULE.match(source_of(cell)))
    for cell_id, source in learner_cells(notebook, release):
        if len(source) > REVIEW_CELL_CHARACTERS or read + len(source) > REVIEW_NOTEBOOK_CHARACTERS:
            limit = (f"{REVIEW_CELL_CHARACTERS:,} for a cell" if len(source) > REVIEW_CELL_CHARACTERS
                     else f"{REVIEW_NOTEBOOK_CHARACTERS:,} for a notebook")
            flags.append(f"cell {cell_id}: its text was not read: {len(source):,} characters, past the review's {limit}")
            continue
        read += len(source)
        try:
            uses = capability_uses(source, allow_processes=allow_processes, allow_files=allow_files, provided=provided,
                                   as_ipython=as_ipython, written=written)
        except (RecursionError, MemoryError):  # past the parser's limits (or ast.unparse's): a class's report goes on
            uses = ["its text is nested too deeply to read"]
        except TimeoutError:  # IPython's reading is quadratic in a cell's magics (section 35): bounded per notebook
            uses = [f"its text was not read: IPython's syntax, past the review's {IPYTHON_REVIEW_SECONDS:g} s for a notebook"]
        if uses:
            flags.append(f"cell {cell_id}: {', '.join(uses)}")
    return flags


def _parsed_learner_cells(notebook: dict, release: dict) -> Iterator[tuple[str, ast.Module]]:
    """``(cell id, its syntax tree)`` of each learner cell the review reads for answers kept: within the review's limits on
    a cell's and a notebook's text (past them :func:`notebook_flags` says the text was not read), and plain Python (a
    cell of IPython's syntax, or too deep to parse, is left to :func:`notebook_flags` too)."""
    read = 0
    for cell_id, source in learner_cells(notebook, release):
        read += len(source)
        if len(source) > REVIEW_CELL_CHARACTERS or read > REVIEW_NOTEBOOK_CHARACTERS:
            continue
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        yield cell_id, tree


def answer_tables(notebook: dict, release: dict, visible_inputs: list[tuple]) -> list[str]:
    """One line per learner cell holding a dict display keyed by two or more of ``visible_inputs`` (the arguments of
    the visible tests' fixed cases: a tuple of them, or a one-argument task's argument): answers kept for the cases the
    learner was shown. They earn the visible point and nothing hidden, and were not flagged (walk50a)."""
    wanted = set()
    for args in visible_inputs:
        for form in (args, *(args if len(args) == 1 else ())):
            try:
                wanted.add(form)
            except TypeError:  # a dict among the arguments: no key of a dict display either
                pass
    flags = []
    for cell_id, tree in _parsed_learner_cells(notebook, release):
        for node in ast.walk(tree):
            if not isinstance(node, ast.Dict):
                continue
            held = _held_keys(node, wanted)
            if len(held) >= 2:
                flags.append(f"cell {cell_id}: a dict literal keyed by {len(held)} inputs of the visible tests (answers kept "
                             "for the cases it was shown?)")
                break
        for node in ast.walk(tree):
            held = _keys_in_text(node.value, wanted) if isinstance(node, ast.Constant) and isinstance(
                node.value, (str, bytes)) and len(node.value) >= 4 else set()
            if len(held) >= 2:
                flags.append(f"cell {cell_id}: a string literal holding a dict keyed by {len(held)} inputs of the visible "
                             "tests (answers kept for the cases it was shown, read back with json.loads, eval or "
                             "ast.literal_eval?)")
                break
    return flags


def _held_keys(node: ast.Dict, wanted: set) -> set:
    """The keys of a dict display that are among ``wanted``."""
    held = set()
    for key in node.keys:
        try:
            value = ast.literal_eval(key) if key is not None else None
            if value in wanted:
                held.add(value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
    return held


def _keys_in_text(text: str | bytes, wanted: set) -> set:
    """The visible inputs that key a dict written in ``text``, a string literal of a learner's cell: a dict display of
    Python (what ``eval`` or ``ast.literal_eval`` reads back), anywhere in an expression, or a JSON object (``json.loads``)
    whose keys are the inputs, or their text (a JSON key is a str: b"abc" is written "abc") (walk52, section 103)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if "{" not in text or ":" not in text:
        return set()
    held: set = set()
    try:
        for node in ast.walk(ast.parse(text.strip(), mode="eval")):
            if isinstance(node, ast.Dict):
                held |= _held_keys(node, wanted)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        pass
    try:
        import json

        found = json.loads(text)
    except (ValueError, RecursionError, MemoryError):
        return held
    for table in [found] if isinstance(found, dict) else [item for item in found if isinstance(item, dict)] if isinstance(
            found, list) else []:
        for key in table:
            for form in (key, key.encode("utf-8", errors="replace")):
                try:
                    if form in wanted:
                        held.add(form)
                except TypeError:
                    continue
    return held


def _distinctive(value: object) -> bool:
    """Whether a literal equal to a visible test's input says which input it is: a string or bytes of two characters or
    more, or a container that is not empty. Numbers, booleans, None, empty and one-character values are what honest code
    compares an argument to for an edge case (``if n == 0``, ``if text == ""``, ``if char == " "``)."""
    if isinstance(value, (str, bytes)):
        return len(value) >= 2
    return isinstance(value, (tuple, list, dict, set, frozenset)) and len(value) > 0


# Calls that only convert a value the code holds (``str(text)``, ``text.strip()``): an if-chain on the converted value
# keeps answers as one on the value does. Any other call's result is a function's output, which a learner's own check
# compares to a visible input honestly (``decode(encode(text)) == "hello"``).
CONVERTING_CALLS = frozenset(("str", "bytes", "bytearray", "tuple", "list", "dict", "set", "frozenset", "repr", "sorted"))
CONVERTING_METHODS = frozenset(("lower", "upper", "casefold", "strip", "lstrip", "rstrip", "encode", "decode", "copy"))


def _is_subject(node: ast.expr) -> bool:
    """Whether ``node`` names a value the code holds (an argument, a name, an attribute, an item, a tuple of them, one of
    them converted: :data:`CONVERTING_CALLS`, :data:`CONVERTING_METHODS`): what an if-chain compares to the visible
    inputs, not another call's result (a learner's own check of a function's output)."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and all(_is_subject(item) for item in node.elts)
    if isinstance(node, ast.Call) and not node.keywords:
        if isinstance(node.func, ast.Name) and node.func.id in CONVERTING_CALLS:
            return len(node.args) == 1 and _is_subject(node.args[0])
        if isinstance(node.func, ast.Attribute) and node.func.attr in CONVERTING_METHODS:
            return _is_subject(node.func.value)
        return False
    return isinstance(node, (ast.Name, ast.Attribute, ast.Subscript))


def _literal(node: ast.AST) -> tuple[bool, object]:
    """``(True, value)`` of a literal expression, ``(False, None)`` of anything else."""
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False, None


def _pattern_values(pattern: ast.pattern) -> list[object]:
    """The literals a ``case`` pattern matches a subject against: a value's, each alternative's, a sequence's as a tuple
    when every item is a value, and each item's."""
    if isinstance(pattern, ast.MatchValue):
        known, value = _literal(pattern.value)
        return [value] if known else []
    if isinstance(pattern, ast.MatchOr):
        return [value for alternative in pattern.patterns for value in _pattern_values(alternative)]
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
        return _pattern_values(pattern.pattern)
    if isinstance(pattern, ast.MatchSequence):
        items = [_pattern_values(item) if isinstance(item, ast.MatchValue) else [] for item in pattern.patterns]
        whole = [tuple(item[0] for item in items)] if items and all(len(item) == 1 for item in items) else []
        return whole + [value for item in pattern.patterns for value in _pattern_values(item)]
    return []


def answer_branches(notebook: dict, release: dict, visible_inputs: list[tuple]) -> list[str]:
    """One line per learner cell that compares a value it holds (an argument, a name) to two or more of the visible
    tests' inputs, in ``==`` or ``in`` tests (an ``if``/``elif`` chain, a conditional expression) or ``case`` patterns of
    a ``match``: answers kept for the cases the learner was shown, as :func:`answer_tables` finds them in a dict display
    (fix51b). An input here is the arguments of a visible fixed case as a tuple, or one of them, when it says which
    input it is (:func:`_distinctive`), but no word among several arguments (lab 09's names of methods, "naive", "heap",
    which honest code may compare a name to); a comparison in an ``assert`` (a learner's own check) is not read."""
    def forms(args: tuple) -> tuple:
        return (args, *(args if len(args) == 1 else [arg for arg in args if not (isinstance(arg, str) and arg.isidentifier())]))

    wanted = [form for args in visible_inputs for form in forms(args) if _distinctive(form)]

    def visible(value: object) -> bool:
        if not _distinctive(value):
            return False
        for form in wanted:
            try:
                if type(form) is type(value) and form == value:
                    return True
            except Exception:  # noqa: BLE001 - an input's own equality: no match
                continue
        return False

    flags = []
    for cell_id, tree in _parsed_learner_cells(notebook, release):
        checked = {id(node) for statement in ast.walk(tree) if isinstance(statement, ast.Assert)
                   for node in ast.walk(statement)}
        nodes = [node for node in ast.walk(tree) if id(node) not in checked]
        found: list[object] = []  # the visible inputs tested for, each once
        for node in nodes:
            values: list[object] = []
            if isinstance(node, ast.Compare) and any(_is_subject(side) for side in (node.left, *node.comparators)):
                for op, side in zip((None, *node.ops), (node.left, *node.comparators)):
                    known, value = _literal(side)
                    if not known:
                        continue
                    if visible(value):
                        values.append(value)
                    elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(value, (tuple, list, set, frozenset)):
                        values += [item for item in value if visible(item)]  # ``text in ("hi", "naïve café")``
                    elif isinstance(value, tuple) and any(visible(item) for item in value):
                        values.append(value)  # ``(text, n) == ("hi", 3)``, some of the arguments
            elif isinstance(node, ast.match_case):  # one input per alternative of the pattern (its first tested)
                alternatives = node.pattern.patterns if isinstance(node.pattern, ast.MatchOr) else [node.pattern]
                for alternative in alternatives:
                    values += [value for value in _pattern_values(alternative) if visible(value)][:1]
            for value in values:
                if not any(type(value) is type(seen) and value == seen for seen in found):
                    found.append(value)
        if len(found) >= 2:
            flags.append(f"cell {cell_id}: compares a value to {len(found)} inputs of the visible tests in if/elif or match "
                         "(answers kept for the cases it was shown?)")
    return flags


def _grade_id(cell: dict) -> str | None:
    return nbgrader_of(cell).get("grade_id")


# What nbgrader grades a protected cell by: points raised on a test cell, or a test cell made a solution cell, are put
# back from the gradebook when autograded (the score is the gradebook's), and flagged here like an edited source.
NBGRADER_FIELDS = ("grade", "solution", "locked", "points", "schema_version")


def _plain(value: object) -> object:
    """A metadata value as compared: a number as a float (3 and 3.0 are the same points); an int past every float as it
    is (``float`` raised OverflowError on it, which ended grade --class for the whole class: redteam section 58)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return value
    return value


def _shown_value(value: object) -> str:
    """A metadata value of the learner's in a flag: its repr, cut at 40 characters (an int may have 4,300 digits)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _language(notebook: dict) -> object:
    """The language a notebook says its kernel runs (``metadata.kernelspec.language``, else ``language_info.name``),
    lower case; a kernel named otherwise (a venv's "Python 3 (bpe)") is the learner's choice, its language is not."""
    meta = notebook.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = meta.get(key).get(field) if isinstance(meta.get(key), dict) else None
        if value is not None:
            return value.lower() if isinstance(value, str) else value
    return None


def tampering(notebook: dict, release: dict) -> list[str]:
    """What the learner did to the cells nbgrader protects, which autograde silently puts right: a
    test or read-only cell deleted (put back), a read-only cell edited (its source restored), the nbgrader metadata of
    any cell of the lab changed (points, grade, solution, locked, schema_version: put back), a graded cell added (a
    grade_id the lab does not have: graded as a plain cell), a test cell moved (graded in the source's order anyway).
    One line each; none for an honest notebook."""
    def protected(cell: dict) -> bool:
        meta = nbgrader_of(cell)
        return bool(meta.get("grade_id")) and (bool(meta.get("locked")) or (bool(meta.get("grade")) and not meta.get("solution")))

    known = [cell for cell in release.get("cells", []) if _grade_id(cell)]
    shipped = [cell for cell in known if protected(cell)]
    cells = notebook.get("cells", [])
    # the cell nbgrader grades and puts right: the last of its grade_id marked so, else the last unmarked (section 117)
    submitted = {grade_id: cells[index] for grade_id, index in kept_grade_ids(cells).items()}
    copies: dict = {}
    for cell in cells:
        if isinstance(_grade_id(cell), str) and _grade_id(cell):
            copies[_grade_id(cell)] = copies.get(_grade_id(cell), 0) + 1
    flags = []
    for cell in known:
        grade_id, guarded = _grade_id(cell), protected(cell)
        kind = "test" if cell["metadata"]["nbgrader"].get("grade") else "read-only" if guarded else "solution"
        mine = submitted.get(grade_id)
        if mine is None:
            flags += [f"deleted the {kind} cell {grade_id} (nbgrader put it back)"] if guarded else []
            continue
        if guarded and source_of(mine) != source_of(cell):
            flags.append(f"edited the {kind} cell {grade_id} (its source was restored)")
        if mine.get("cell_type") != cell.get("cell_type"):  # a solution cell's too: put back, it runs (section 61)
            flags.append(f"made the {kind} cell {grade_id} a {mine.get('cell_type')} cell (nbgrader put it back)")
        shipped_meta, my_meta = nbgrader_of(cell), nbgrader_of(mine)
        changed = [f"{key} {_shown_value(_plain(shipped_meta.get(key)))} -> {_shown_value(_plain(my_meta.get(key)))}"
                   for key in NBGRADER_FIELDS
                   if _plain(shipped_meta.get(key)) != _plain(my_meta.get(key))
                   # True == 1.0 to Python: points of true, a grade of 1, are another type than nbgrader writes
                   or isinstance(shipped_meta.get(key), bool) != isinstance(my_meta.get(key), bool)]
        if changed:
            flags.append(f"changed the nbgrader metadata of the {kind} cell {grade_id} ({', '.join(changed)}; nbgrader "
                         "put it back)")
    ids = {_grade_id(cell) for cell in known}
    for cell in known:  # an unchanged copy before an edited cell hid what nbgrader put right in the last (section 68)
        if copies.get(_grade_id(cell), 0) > 1:
            flags.append(f"holds {copies[_grade_id(cell)]} cells marked {_grade_id(cell)} (nbgrader keeps one; the "
                         "others are plain cells, run if code)")
    for index, cell in enumerate(notebook.get("cells", [])):
        meta = nbgrader_of(cell)
        if meta.get("grade") and _grade_id(cell) not in ids:
            flags.append(f"added a graded cell {_grade_id(cell) or f'(cell {index}, no grade_id)'} "
                         f"({_shown_value(_plain(meta.get('points')))} points; not graded: autograde made it a plain cell)")
    transient = [str(cell.get("id") or f"cell {index}") for index, cell in enumerate(notebook.get("cells", []))
                 if isinstance(cell.get("metadata"), dict) and "transient" in cell["metadata"]]
    if transient:  # no Jupyter writes it; nbconvert leaves out the source of a cell marked transient.remove_source
        flags.append(f"marked {len(transient)} cell(s) transient ({', '.join(transient[:5])}{' ...' if len(transient) > 5 else ''}"
                     "), which hides their code from nbgrader's pages (removed when autograded)")
    languages = [_language(notebook), _language(release)]
    if languages[0] != languages[1] and languages[1]:  # the trusted worker runs Python whatever the notebook names
        flags.append(f"names a kernel of another language ({_shown_value(languages[0])}, the lab's is {languages[1]!r}): "
                     "graded in Python all the same; its outputs are not what the grader ran")
    position = {_grade_id(cell): index for index, cell in enumerate(shipped)}
    latest = -1
    for cell in notebook.get("cells", []):
        index = position.get(_grade_id(cell))
        if index is None:
            continue
        if index < latest:
            flags.append(f"moved the cell {_grade_id(cell)} after a cell that follows it in the lab "
                         "(graded in the lab's order anyway)")
        latest = max(latest, index)
    return flags
