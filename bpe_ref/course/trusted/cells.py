"""What each graded test cell of a lab checks, read from the source notebooks once and kept in a file.

A test cell ends with one grader call on the learner's functions::

    from runpy import run_module
    graders = run_module("bpe_ref.course.checks.fresh")["graders"]("01_naive_bpe")
    graders.check_count_pairs(count_pairs)

At grading time nothing of the cell runs: the trusted grader looks it up by ``grade_id`` in
``checks/cells.json`` (written by ``python -m bpe_ref.course.notebooks release``), so the file, not
the submission, says what a cell checks; a handout's release notebooks, without hidden tests, grade the same.
"""

from __future__ import annotations

import ast
import json
from dataclasses import asdict, dataclass
from pathlib import Path

MANIFEST = Path(__file__).resolve().parent.parent / "checks" / "cells.json"


@dataclass(frozen=True)
class TestCell:
    """One graded test cell: the grader it calls, on which of the learner's functions, for how much."""

    grade_id: str
    grader: str
    functions: tuple[str, ...]
    points: float


def source_of(cell: dict) -> str:
    """A notebook cell's source as one string (nbformat stores a list of lines or a string)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def nbgrader_of(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def kept_grade_ids(cells: list) -> dict[str, int]:
    """``grade_id -> index`` of the cell that holds it once nbgrader's sanitizing steps are done: the last cell marked
    graded, a solution or read-only (nbgrader's ``DeduplicateIds`` keeps the last), or, where no cell is marked so, the
    last that holds it unmarked (``autograde.RestoringOverwriteCells`` puts its marks back). Every other cell holding it
    is a plain cell (``autograde.NamedDeduplicateIds``): an unmarked copy of a test cell beside it made two test cells of
    one grade_id, which nbgrader refused, the notebook not graded (tests/test_grading_redteam.py, section 117)."""
    marked, unmarked = {}, {}
    for index, cell in enumerate(cells):
        meta = nbgrader_of(cell) if isinstance(cell, dict) and isinstance(cell.get("metadata"), dict) else None
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        if isinstance(grade_id, str) and grade_id:
            held = marked if meta.get("grade") or meta.get("solution") or meta.get("locked") else unmarked
            held[grade_id] = index
    return {**unmarked, **marked}


def is_test_cell(cell: dict) -> bool:
    """A locked code cell with points: nbgrader's test cell, which the trusted grader runs itself."""
    meta = nbgrader_of(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


class NotATestCell(ValueError):
    """A graded cell whose code is not the one-grader-call form (an instructor's mistake)."""


def parse_test_cell(source: str, lab: str) -> tuple[str, tuple[str, ...]]:
    """``(grader name, learner function names)`` of a test cell's source, or :class:`NotATestCell`."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise NotATestCell(f"the test cell does not parse: {error}") from None
    labs = [
        node.value.args[0].value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and node.value.args
        and isinstance(node.value.args[0], ast.Constant)
    ]
    if labs != [lab]:
        raise NotATestCell(f"the test cell must load the graders of {lab!r} once, found {labs}")
    calls = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and isinstance(node.value.func.value, ast.Name)
        and node.value.func.value.id == "graders"
    ]
    if len(calls) != 1 or not (isinstance(tree.body[-1], ast.Expr) and tree.body[-1].value is calls[0]):
        raise NotATestCell("a test cell ends with exactly one call graders.check_...(function, ...)")
    call = calls[0]
    if call.keywords or not all(isinstance(arg, ast.Name) for arg in call.args) or not call.args:
        raise NotATestCell("a grader is called with the learner's functions, by name, as positional arguments")
    return call.func.attr, tuple(arg.id for arg in call.args)


def test_cells_of(notebook: dict, lab: str) -> list[TestCell]:
    """The graded test cells of a source notebook, in order (locked code cells with points)."""
    cells = []
    for cell in notebook["cells"]:
        meta = nbgrader_of(cell)
        if is_test_cell(cell):
            try:
                grader, functions = parse_test_cell(source_of(cell), lab)
            except NotATestCell as problem:
                raise NotATestCell(f"{lab}, cell {meta.get('grade_id')}: {problem}") from None
            cells.append(TestCell(meta["grade_id"], grader, functions, float(meta.get("points", 0))))
    return cells


def manifest(source_notebooks: dict[str, dict]) -> dict:
    """The contents of ``cells.json`` for ``{lab: source notebook JSON}``."""
    return {
        lab: {"notebook": lab, "cells": [asdict(cell) for cell in test_cells_of(notebook, lab)]}
        for lab, notebook in sorted(source_notebooks.items())
    }


def load(lab: str, path: Path = MANIFEST) -> list[TestCell]:
    """The test cells of ``lab`` as recorded; ``KeyError`` naming the labs that are known."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if lab not in data:
        raise KeyError(f"no test cells recorded for lab {lab!r} (known: {', '.join(data)}); run python -m bpe_ref.course.notebooks release")
    return [TestCell(c["grade_id"], c["grader"], tuple(c["functions"]), float(c["points"])) for c in data[lab]["cells"]]
