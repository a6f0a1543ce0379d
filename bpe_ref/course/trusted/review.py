"""Flags for an instructor's review: capabilities a submission's own cells use that no lab needs.

A flag changes no score (the trusted grader already decided, and the sandbox already refused what
it refuses); it says where a person should look. Only the learner's cells are read (solution
cells and cells the learner added or edited), never the cells the course shipped.

>>> capability_uses("import subprocess\\nsubprocess.run(['ls'])")
['imports subprocess']
"""

from __future__ import annotations

import ast
import re

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
}
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


def capability_uses(source: str, *, allow_processes: bool = False, allow_files: bool = False,
                    provided: tuple[str, ...] = ()) -> list[str]:
    """What ``source`` (one cell of the learner's) uses that a lab never needs, one line each.
    ``allow_processes`` (lab 03) and ``allow_files`` (lab 10) leave out what those labs' tasks do;
    ``provided``: the modules of bpe_ref the lab gives its code (``"pretokenize"``), not flagged."""
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
        return found  # the grader reported it already; nothing to read here
    for node in ast.walk(tree):
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        for module in modules:
            root = module.split(".")[0]
            if root == "bpe_ref":
                if module.removeprefix("bpe_ref.") not in provided:
                    found.append("imports bpe_ref (the reference)")
            elif MODULES.get(root) and not (allow_processes and root in ALLOWED_WITH_PROCESSES):
                found.append(f"imports {root}")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            key = (node.value.id, node.attr)
            if key in ATTRIBUTES and not (allow_processes and ATTRIBUTES[key] in ALLOWED_WITH_PROCESSES):
                found.append(f"uses {ATTRIBUTES[key]}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALLS:
            what = CALLS[node.func.id]
            if not (allow_processes and what in ALLOWED_WITH_PROCESSES or allow_files and what in ALLOWED_WITH_FILES):
                found.append(f"calls {what}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
            "bpe_ref" in node.value or "gradebook" in node.value or "solutions/" in node.value
        ):
            found.append(f"mentions {node.value[:40]!r}")
    return sorted(set(found))


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def learner_cells(notebook: dict, release: dict) -> list[tuple[str, str]]:
    """``(cell id, source)`` of the code cells the learner wrote: every code cell that is not, to
    the letter, a cell of the ``release`` the learner started from (solution cells filled in,
    cells added, shipped cells edited)."""
    shipped = {(cell.get("id"), _source(cell)) for cell in release.get("cells", []) if cell.get("cell_type") == "code"}
    cells = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code" or (cell.get("id"), _source(cell)) in shipped:
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            continue  # a test cell: nbgrader restores it, and the grader never runs it anyway
        cells.append((str(cell.get("id") or f"cell {index}"), _source(cell)))
    return cells


def notebook_flags(notebook: dict, release: dict, *, allow_processes: bool = False, allow_files: bool = False,
                   provided: tuple[str, ...] = ()) -> list[str]:
    """One line per learner cell that uses something :func:`capability_uses` flags."""
    flags = []
    for cell_id, source in learner_cells(notebook, release):
        uses = capability_uses(source, allow_processes=allow_processes, allow_files=allow_files, provided=provided)
        if uses:
            flags.append(f"cell {cell_id}: {', '.join(uses)}")
    return flags
