"""Load a lab's graders, and the reference they compare with, fresh from disk.

A notebook's test cell runs this file with :func:`runpy.run_module`, which executes it from disk
in a new namespace instead of taking a module from ``sys.modules``, then asks it for a lab's
graders::

    from runpy import run_module
    graders = run_module("bpe_ref.course.checks.fresh")["graders"]("01_naive_bpe")
    graders.check_merge_word(merge_word)

:func:`graders` loads ``bpe_ref/course/checks/lab01_naive_bpe.py``, the grading mechanics it imports and the
reference modules they use as a *private copy* of the package, under a new random package name.
Whatever a learner's cell did to the modules named ``bpe_ref...`` (reassigned a grader, replaced
``bpe_ref.train.step01_naive.train``, patched a comparison helper) does not reach that copy.

Only the standard library is used here, and nothing is imported from ``bpe_ref`` by name.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import secrets
import sys
import types
from pathlib import Path

# bpe_ref/ on disk: this file is bpe_ref/course/checks/fresh.py (runpy sets __file__ to the real path).
PACKAGE_DIR = Path(__file__).resolve().parents[2]
PRIVATE_PREFIX = "_bpe_ref_private_"


def load_private_package() -> types.ModuleType:
    """A new, empty package whose submodules are loaded from ``bpe_ref/`` on disk.

    Its ``__init__`` is not run (the real one imports the whole library); submodules import each
    other relatively, so they resolve inside the private copy. The package stays in
    ``sys.modules`` under its random name because relative imports made at call time need it.
    """
    name = PRIVATE_PREFIX + secrets.token_hex(6)
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [str(PACKAGE_DIR)]
    package = types.ModuleType(name, "A private copy of bpe_ref, loaded for grading (see bpe_ref.course.checks.fresh).")
    package.__spec__ = spec
    package.__path__ = [str(PACKAGE_DIR)]
    package.__package__ = name
    sys.modules[name] = package
    return package


def graders(lab: str) -> types.ModuleType:
    """The grader module of ``lab`` (``"01_naive_bpe"`` -> ``checks/lab01_naive_bpe.py``), freshly loaded.

    Raises ``ValueError`` for a lab without graders and ``RuntimeError`` when the loaded graders
    would compare with anything but the private copy (an absolute ``bpe_ref`` import crept in).
    """
    module_file = PACKAGE_DIR / "course" / "checks" / f"lab{lab}.py"
    if not module_file.exists():
        known = sorted(p.stem[3:] for p in (PACKAGE_DIR / "course" / "checks").glob("lab*.py"))
        raise ValueError(f"no graders for lab {lab!r}; labs with graders: {', '.join(known)}")
    package = load_private_package()
    module = importlib.import_module(f"{package.__name__}.course.checks.lab{lab}")
    leaks = [
        f"{ref.__module__}.{ref.__qualname__}"
        for ref in getattr(module, "REFERENCES", ())
        if not getattr(ref, "__module__", "").startswith(package.__name__ + ".")
    ]
    if leaks:
        raise RuntimeError(f"graders of {lab} would compare with shared modules, not the private copy: {leaks}")
    return module
