"""One language per step: the functions a lab asks for exist, with the same parameter names, in the
module the lab links as its reference code (CONTRIBUTING.md, "One step, one language"), so that the page, the
lab and the module read alike and the graders compare with the module's own functions."""

from __future__ import annotations

import ast
import importlib
import inspect
import re

import pytest

from bpe_ref.course.notebooks import read_notebook_json, source_notebook, written_module

# lab -> (the module it links as reference code, {function: its parameters}), as the course decided.
LAB_FUNCTIONS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "01_naive_bpe": (
        "bpe_ref.train.step01_naive",
        {
            "split_into_bytes": ("pretoken",),
            "count_pairs": ("word_counts",),
            "best_pair": ("pair_counts",),
            "merge_word": ("word", "pair"),
            "train": ("pretoken_counts", "num_merges"),
        },
    ),
    "02_incremental": (
        "bpe_ref.train.step02_incremental",
        {
            "pair_count_changes": ("word", "pair", "frequency"),
            "merge_and_update": ("word", "pair", "frequency", "pair_counts"),
            "train": ("pretoken_counts", "num_merges"),
        },
    ),
    "03_parallel": (
        "bpe_ref.train.step03_parallel",
        {
            "find_chunk_boundaries": ("path", "desired_num_chunks", "split_tokens", "buffer_size"),
            "count_chunk": ("path", "start", "end", "special_tokens"),
            "merge_counts": ("counts",),
            "count_pretokens_in_file": ("path", "special_tokens", "num_workers", "chunks_per_worker", "start_method"),
        },
    ),
    "04_inverted_index": (
        "bpe_ref.train.step04_inverted_index",
        {
            "index_words": ("words",),
            "pairs_with": ("word", "token"),
            "train": ("pretoken_counts", "num_merges"),
        },
    ),
    "05_heap": (
        "bpe_ref.train.step05_heap",
        {
            "heap_entry": ("count", "pair"),
            "pop_best": ("entries", "pair_counts"),
            "train": ("pretoken_counts", "num_merges"),
        },
    ),
    "06_encode_decode": (
        "bpe_ref.encode.step06_naive",
        {
            "merge_ranks": ("merges",),
            "encode_pretoken": ("pretoken", "ranks"),
            "encode_text": ("text", "ranks", "special_tokens"),
        },
    ),
    "07_heap_encoding": (
        "bpe_ref.encode.step07_heap",
        {
            "first_heap": ("parts", "ranks"),
            "merge_all": ("parts", "ranks", "heap"),
            "heap_encode": ("pretoken", "ranks"),
        },
    ),
    "08_linear_encoding": (
        "bpe_ref.encode.step08_valid_tokens",
        {
            "compatible": ("left", "right", "ranks"),
        },
    ),
    "09_benchmarks": (
        "bpe_ref.measure",
        {
            "interleaved": ("contenders", "rounds", "clock"),
            "spread": ("values",),
            "paired_ratio": ("times", "a", "b"),
            "fit_exponent": ("sizes", "seconds"),
            "crossover": ("xs", "ys_a", "ys_b"),
            "peak_memory": ("fn",),
        },
    ),
    "10_distributed": (
        "bpe_ref.distributed.pretoken_counts",
        {
            "count_range": ("path", "start", "end", "special_tokens"),
            "merge_two": ("left", "right"),
            "tree_reduce": ("parts", "combine"),
            "plan_ranges": ("paths", "special_tokens", "ranges_per_file"),
            "count_ranges": ("ranges", "special_tokens", "as_task"),
        },
    ),
}

# A lab whose step has two modules links both; its tasks on the second one are checked against that
# module (lab 05: the heap's tasks in step05_heap, the linked list's in step05_linked_list; lab 06: encoding in
# encode/step06_naive, the arena in decode). A step with more modules lists them (lab 08: one module per task).
ALSO_LINKED: dict[str, tuple[str, dict[str, tuple[str, ...]]] | list[tuple[str, dict[str, tuple[str, ...]]]]] = {
    "05_heap": (
        "bpe_ref.train.step05_linked_list",
        {
            "link_words": ("word_counts",),
            "merge_occurrences": ("pair", "token", "prev", "next_", "node_frequency", "occurrences"),
        },
    ),
    "06_encode_decode": (
        "bpe_ref.decode",
        {
            "build_arena": ("vocab",),
            "decode_with_arena": ("ids", "buffer", "offsets"),
        },
    ),
    "08_linear_encoding": [
        ("bpe_ref.encode.step08_backtrack", {"backtrack_encode": ("pretoken", "ranks")}),
        ("bpe_ref.encode.step08_table", {"last_tokens": ("pretoken", "ranks")}),
        ("bpe_ref.encode.step08_prefix_counts", {"prefix_token_counts": ("last",)}),
    ],
}


def also_linked(lab: str) -> list[tuple[str, dict[str, tuple[str, ...]]]]:
    """The modules ``lab`` links besides its first, with their functions (none, one or several)."""
    value = ALSO_LINKED.get(lab, [])
    return [value] if isinstance(value, tuple) else list(value)

# Notebook functions that do not follow the decision yet (the notebooks are renamed in another
# change). An entry that the notebook has caught up with is harmless; delete it then.
PENDING: dict[tuple[str, str], str] = {
}


def parameters(function) -> tuple[str, ...]:
    return tuple(inspect.signature(function).parameters)


def notebook_functions(lab: str, *, solution_cells: bool) -> dict[str, tuple[str, ...]]:
    """The functions a source notebook defines, with their parameters: in the solution cells of its
    graded tasks, or in its read-only setup cells (what the lab hands out). A stretch task's
    functions are the learner's design, not the reference module's (its self-check names what it
    compares with)."""
    found = {}
    for cell in read_notebook_json(source_notebook(lab))["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        is_setup = meta.get("locked") and not meta.get("grade") and not meta.get("solution")
        if cell["cell_type"] != "code" or not (meta.get("solution") if solution_cells else is_setup):
            continue
        if cell["id"].startswith("stretch_"):
            continue
        module = written_module(cell["source"])  # %%writefile NAME.py: a module of the learner's
        for node in ast.parse(cell["source"] if module is None else module[1]).body:
            if isinstance(node, ast.FunctionDef):  # keyword-only parameters too (lab 09's clock)
                found[node.name] = tuple(arg.arg for arg in node.args.args + node.args.kwonlyargs)
    return found


@pytest.mark.parametrize("lab", sorted(LAB_FUNCTIONS))
def test_the_linked_module_has_the_labs_functions_with_their_parameters(lab):
    for module_name, functions in [LAB_FUNCTIONS[lab], *also_linked(lab)]:
        module = importlib.import_module(module_name)
        for name, expected in functions.items():
            assert callable(getattr(module, name, None)), f"{module_name} has no {name}"
            assert parameters(getattr(module, name)) == expected, f"{module_name}.{name}{parameters(getattr(module, name))}"


@pytest.mark.parametrize("lab", sorted(LAB_FUNCTIONS))
def test_the_lab_links_that_module_as_its_reference_code(lab):
    module_name, _ = LAB_FUNCTIONS[lab]
    intro = read_notebook_json(source_notebook(lab))["cells"][0]["source"]
    reference = re.search(r"\*\*After the lab, compare with:\*\* \[`([^`]+)`\]", intro)
    assert reference and reference.group(1) == module_name.replace(".", "/") + ".py"
    for also_name, _ in also_linked(lab):
        also = also_name.replace(".", "/") + ".py"
        assert f"[`{also}`](../../{also})" in intro


@pytest.mark.parametrize("lab", sorted(LAB_FUNCTIONS))
def test_what_the_notebook_defines_is_what_the_module_defines(lab):
    """Every task function of the solution notebook, and every handed-out helper the module also
    has, takes the parameters of the module's function of the same name."""
    module_names = [LAB_FUNCTIONS[lab][0], *(name for name, _ in also_linked(lab))]
    modules = [importlib.import_module(name) for name in module_names]

    def defining(name: str):
        """The first linked module that has ``name``, and its name (``None, None`` if none has)."""
        return next(((m, n) for m, n in zip(modules, module_names) if callable(getattr(m, name, None))), (None, None))

    tasks = notebook_functions(lab, solution_cells=True)
    assert tasks, f"no task functions found in {lab}"
    mismatches = []
    for name, params in tasks.items():
        if (lab, name) in PENDING:
            continue
        module, module_name = defining(name)
        if module is None:
            mismatches.append(f"{name}{params}: not in {' or '.join(module_names)}")
        elif parameters(getattr(module, name)) != params:
            mismatches.append(f"{name}{params}: {module_name} has {name}{parameters(getattr(module, name))}")
    for name, params in notebook_functions(lab, solution_cells=False).items():
        module, module_name = defining(name)
        if module is not None and parameters(getattr(module, name)) != params:
            mismatches.append(f"setup's {name}{params}: {module_name} has {name}{parameters(getattr(module, name))}")
    assert not mismatches, mismatches
