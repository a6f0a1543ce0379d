"""The diff of each step's merge loop (or, from step 07 on, encoder) against the previous step's,
generated from the code, docstrings left out (they name their own step).

Each step's ``merge_steps`` copies the previous one and adds its idea, keeping names and helpers, so the
diff of two consecutive ones is the step's idea and nothing else: a diff that shows more is a reason to
change the code, not the diff.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import inspect
import textwrap
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

# Functions a step adds for its merge loop to call: its diff shows them above the loop. V4's loop over
# words is one, because step 05 calls it too.
LOOP_HELPERS: dict[str, tuple[str, ...]] = {"step04_inverted_index": ("merge_indexed_words",)}

_PACKAGE = __name__.rsplit(".", 3)[0]  # bpe_ref, or a private copy of it


def merge_loop(module_name: str) -> FunctionType:
    """The ``merge_steps`` of ``bpe_ref.train.<module_name>``."""
    return importlib.import_module(f"{_PACKAGE}.train.{module_name}").merge_steps


def loop_lines(module_name: str) -> list[str]:
    """What the diff shows of the step ``module_name`` adds: the helpers it adds for its loop
    (:data:`LOOP_HELPERS`), then its ``merge_steps``, without docstrings."""
    module = importlib.import_module(f"{_PACKAGE}.train.{module_name}")
    lines: list[str] = []
    for name in LOOP_HELPERS.get(module_name, ()):
        lines += [*source_without_docstring(getattr(module, name)), "", ""]
    return lines + source_without_docstring(module.merge_steps)


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
    a, b = source_without_docstring(before), loop_lines(after_module)
    borrowed = ""
    if defined_in(before) != f"bpe_ref/train/{before_module}.py":  # V3's loop is V2's
        borrowed = f" {old}'s merge loop is the one it imports from `{defined_in(before)}`, hence that file name."
    helpers = LOOP_HELPERS.get(after_module, ())
    if helpers:
        names = " and ".join(f"`{name}`" for name in helpers)
        borrowed += (f" {new}'s loop over the words of one merge is a function of its own, {names}, shown above "
                     "`merge_steps` (the next step calls it too).")
    return (
        f"{new}'s merge loop against {old}'s, generated from the code. In `bpe_ref`, each step's "
        "`train(pretoken_counts, num_merges)` runs its loop `merge_steps`, which yields one `MergeStep` "
        "(the pair, its count, the words rewritten) per merge; one driver shared by every step stops it "
        "after `num_merges` (`bpe_ref/train/driver.py`). Lines marked `-` are only in "
        f"{old} (`{defined_in(before)}`), lines marked `+` only in {new} (`{defined_in(after)}`); "
        f"docstrings are left out.{borrowed}\n\n" + diff_block(a, b, f"{old}: {defined_in(before)}", f"{new}: {defined_in(after)}")
    )


def diff_block(a: list[str], b: list[str], fromfile: str, tofile: str) -> str:
    """The whole unified diff of ``a`` and ``b`` (every line as context) as a fenced Markdown block."""
    diff = difflib.unified_diff(a, b, fromfile=fromfile, tofile=tofile, n=max(len(a), len(b)), lineterm="")
    return "```diff\n" + "\n".join(diff) + "\n```\n"


# The encoders of one pretoken. The first replays training on one word: its diff is against V1's
# merge loop; each later one is against the previous step's encoder. Step 10 changes no encoder and
# no loop, but where the counts come from: its diff is its count against step 03's.
# step -> ((module, function, label) before, (module, function, label) after, the intro), modules under bpe_ref
ENCODER_DIFFS: dict[str, tuple[tuple[str, str, str], tuple[str, str, str], str]] = {
    "06": (
        ("train.step01_naive", "merge_steps", "V1"),
        ("encode.step06_naive", "encode_pretoken", "encoding (step 06)"),
        "The encoder of one pretoken against V1's merge loop, generated from the code. Training counts the pairs of "
        "every word and merges the most frequent; encoding looks at one word and merges the pair learned earliest, "
        "with the same `merge_word`.",
    ),
    "07": (
        ("encode.step06_naive", "encode_pretoken", "step 06"),
        ("encode.step07_heap", "heap_encode", "step 07"),
        "Step 07's encoder of one pretoken against step 06's, generated from the code: the rounds go, and the "
        "first heap (`first_heap`) and the pop loop (`merge_all`) come.",
    ),
    "08": (
        ("encode.step07_heap", "HeapEncoder", "step 07"),
        ("encode.step08_backtrack", "BacktrackEncoder", "step 08"),
        "Step 08's backtracking encoder against step 07's heap encoder, generated from the code (the lab's functions "
        "run these classes, which hold the algorithm): the heap and the linked list go, the longest prefix token, "
        "the compatibility test and the bitfield come.",
    ),
    "10": (
        ("train.step03_parallel", "count_pretokens_in_file", "step 03"),
        ("distributed.pretoken_counts", "count_pretokens_with", "step 10"),
        "Step 10's count on a Dask cluster against step 03's count in processes (`count_pretokens_in_parallel` "
        "runs `count_pretokens_in_file`), generated from the code. Nearly every line differs: one file and a pool "
        "of this machine's processes go; many files, the cluster's threads, the plan of ranges by size and "
        "`count_ranges` with an `as_task` that submits each call come. What does not change is not in the diff: "
        "the map is step 03's `count_chunk` (step 10's `count_range` calls it), and the reduce adds the same "
        "dicts, as a tree of `merge_two` instead of one `merge_counts`.",
    ),
}


def encoder_diff(step: str) -> str:
    """Markdown: the unified diff of step ``step``'s encoder against the code before it."""
    (before_module, before_name, before_label), (module, name, label), intro = ENCODER_DIFFS[step]
    before = getattr(importlib.import_module(f"{_PACKAGE}.{before_module}"), before_name)
    after = getattr(importlib.import_module(f"{_PACKAGE}.{module}"), name)
    return (
        f"{intro} Lines marked `-` are only in `{defined_in(before)}`, lines marked `+` only in "
        f"`{defined_in(after)}`; docstrings are left out.\n\n"
        + diff_block(source_without_docstring(before), source_without_docstring(after),
                     f"{before_label}: {defined_in(before)} ({before_name})", f"{label}: {defined_in(after)} ({name})")
    )


def diff_snippets(step: str) -> dict[str, str]:
    """``{"0N-diff-from-0M.md": Markdown}``, the diff a page quotes of its step's code; ``{}`` for a step with
    none (00, 01, 09). A trainer's diff is against the step before; an encoder's, against the module it names."""
    if step in STEP_MODULES:
        return {f"{step}-diff-from-{int(step) - 1:02d}.md": merge_loop_diff(step)}
    if step in ENCODER_DIFFS:
        previous = ENCODER_DIFFS[step][0][0].split(".step")[1][:2]  # train.step01_naive -> 01
        return {f"{step}-diff-from-{previous}.md": encoder_diff(step)}
    return {}

