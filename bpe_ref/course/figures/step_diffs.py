"""The diff of each step's merge loop (or, from step 07 on, encoder) against the previous step's,
generated from the code.

Every trainer writes its merge loop as ``merge_steps`` (:mod:`bpe_ref.train.driver`), and each step
copies the previous one and adds its idea, keeping names and helpers. So the unified diff of two
consecutive ``merge_steps`` is the step's idea, and nothing else: pages 02 to 05 quote it. A diff
that shows more than the idea is a reason to change the code, not the diff.

Docstrings are left out of the diff (they name their own step); everything else is the source
as :func:`inspect.getsource` reads it.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import inspect
import textwrap
from pathlib import Path
from types import FunctionType

# step -> (previous step's module, this step's module), under bpe_ref.train
STEP_MODULES: dict[str, tuple[str, str]] = {
    "02": ("step01_naive", "step02_incremental"),
    "03": ("step02_incremental", "step03_parallel"),
    "04": ("step03_parallel", "step04_inverted_index"),
    "05": ("step04_inverted_index", "step05_heap"),
}
VERSION = {"step01_naive": "V1", "step02_incremental": "V2", "step03_parallel": "V3",
           "step04_inverted_index": "V4", "step05_heap": "V5"}

_TRAIN_PACKAGE = __name__.rsplit(".", 3)[0] + ".train"  # bpe_ref.train, or a private copy of it


def merge_loop(module_name: str) -> FunctionType:
    """The ``merge_steps`` of ``bpe_ref.train.<module_name>``."""
    return importlib.import_module(f"{_TRAIN_PACKAGE}.{module_name}").merge_steps


def source_without_docstring(function: FunctionType) -> list[str]:
    """The lines of ``function``'s source, dedented, without its docstring."""
    source = textwrap.dedent(inspect.getsource(function))
    lines = source.splitlines()
    body = ast.parse(source).body[0].body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        del lines[first.lineno - 1 : first.end_lineno]
    return lines


def defined_in(function: FunctionType) -> str:
    """Where ``function`` is written, as a repository path: ``bpe_ref/train/step02_incremental.py``."""
    return function.__module__.split(".", 1)[1].replace(".", "/").join(["bpe_ref/", ".py"])


def merge_loop_diff(step: str) -> str:
    """Markdown: the unified diff of step ``step``'s ``merge_steps`` against the previous step's."""
    before_module, after_module = STEP_MODULES[step]
    before, after = merge_loop(before_module), merge_loop(after_module)
    old, new = VERSION[before_module], VERSION[after_module]
    if before is after:
        return (
            f"{new}'s merge loop is {old}'s, unchanged: `bpe_ref/train/{after_module}.py` imports "
            f"`merge_steps` from `{defined_in(after)}`. What {new} changes is where the pretoken counts "
            "come from, in the same file."
        )
    a, b = source_without_docstring(before), source_without_docstring(after)
    borrowed = ""
    if defined_in(before) != f"bpe_ref/train/{before_module}.py":  # V3's loop is V2's
        borrowed = f" {old}'s merge loop is the one it imports from `{defined_in(before)}`, hence that file name."
    diff = difflib.unified_diff(
        a, b, fromfile=f"{old}: {defined_in(before)}", tofile=f"{new}: {defined_in(after)}", n=max(len(a), len(b)),
        lineterm="",
    )
    return (
        f"{new}'s merge loop against {old}'s, generated from the code. In `bpe_ref`, each step's "
        "`train(pretoken_counts, num_merges)` runs its loop `merge_steps`, which yields one `MergeStep` "
        "(the pair, its count, the words rewritten) per merge; one driver shared by every step stops it "
        "after `num_merges` (`bpe_ref/train/driver.py`). Lines marked `-` are only in "
        f"{old} (`{defined_in(before)}`), lines marked `+` only in {new} (`{defined_in(after)}`); "
        f"docstrings are left out.{borrowed}\n\n"
        "```diff\n" + "\n".join(diff) + "\n```\n"
    )


# step -> ((previous step's module, function), (this step's module, function)), under bpe_ref: the
# encoders of one pretoken, from step 07 on (step 06 is the first encoder: nothing before it).
ENCODER_STEPS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "07": (("encode.step06_naive", "encode_pretoken"), ("encode.step07_heap", "heap_encode")),
    # step 08's lab functions run the encoder classes; the classes hold the algorithm
    "08": (("encode.step07_heap", "HeapEncoder"), ("encode.step08_backtrack", "BacktrackEncoder")),
}
_PACKAGE = __name__.rsplit(".", 3)[0]  # bpe_ref, or a private copy of it


def encoder_diff(step: str) -> str:
    """Markdown: the unified diff of step ``step``'s pretoken encoder against the previous step's."""
    (before_module, before_name), (after_module, after_name) = ENCODER_STEPS[step]
    before = getattr(importlib.import_module(f"{_PACKAGE}.{before_module}"), before_name)
    after = getattr(importlib.import_module(f"{_PACKAGE}.{after_module}"), after_name)
    a, b = source_without_docstring(before), source_without_docstring(after)
    previous = f"{int(step) - 1:02d}"
    diff = difflib.unified_diff(
        a, b, fromfile=f"step {previous}: {defined_in(before)}", tofile=f"step {step}: {defined_in(after)}",
        n=max(len(a), len(b)), lineterm="",
    )
    return (
        f"Step {step}'s encoder of one pretoken against step {previous}'s, generated from the code. Lines marked "
        f"`-` are only in `{before_name}` (`{defined_in(before)}`), lines marked `+` only in `{after_name}` "
        f"(`{defined_in(after)}`); docstrings are left out.\n\n"
        "```diff\n" + "\n".join(diff) + "\n```\n"
    )


def snippets_of(step: str) -> dict[str, str]:
    """``{"0N-diff-from-0M.md": Markdown}`` for step ``step``."""
    previous = f"{int(step) - 1:02d}"
    if step in ENCODER_STEPS:
        return {f"{step}-diff-from-{previous}.md": encoder_diff(step)}
    return {f"{step}-diff-from-{previous}.md": merge_loop_diff(step)}


class ComingPage:
    """The figure interface of a page still to be written: its step's diff, and no figure yet.

    When the page gets a figure module of its own, that module quotes :func:`snippets_of` instead.
    """

    def __init__(self, step: str, page: str) -> None:
        self.step = step
        self.PAGE = page

    def snippets(self) -> dict[str, str]:
        return snippets_of(self.step)

    def draw_figures(self, out_dir: Path) -> list[Path]:
        return []


COMING_PAGES: dict[str, ComingPage] = {}
