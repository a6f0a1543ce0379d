"""The lab notebooks as files: nbformat 4.5 with stable unique ids, the committed release exactly
what ``nbgrader generate_assignment`` produces, no solutions or hidden tests in ``labs/``, drill
answers in the handout (``theory/drills/``) rather than beside the lab solutions, points and links
that add up, and each solution notebook running top to bottom."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from sampling import EXHAUSTIVE, NOTEBOOK_RUN_LABS, skip_unless_drawn, skip_unless_sampled

from bpe_ref.course.notebooks import (
    LABS_DIR,
    NBGRADER_CONFIG,
    REPO_ROOT,
    lab_names,
    notebook_problems,
    read_notebook_json,
    release_notebook,
    run_nbgrader,
    source_notebook,
    temporary_course,
)

LABS = lab_names()

# tests/test_environment.py imports every bpe_ref module, bpe_ref.course.checks.fresh included; runpy then
# warns that it runs a file whose module is already imported. Running it from disk is the point.
pytestmark = pytest.mark.filterwarnings("ignore:'bpe_ref.course.checks.fresh' found in sys.modules:RuntimeWarning")


def theory_page(lab: str) -> str:
    """The link from a lab to its step's theory page, ``theory/NN-*.md`` (NN: the lab's number)."""
    pages = sorted((REPO_ROOT / "theory").glob(f"{lab[:2]}-*.md"))
    assert len(pages) == 1, f"{lab}: expected one theory page theory/{lab[:2]}-*.md, found {[p.name for p in pages]}"
    return f"../../theory/{pages[0].name}"


def cells(lab: str, *, release: bool = False) -> list[dict]:
    return read_notebook_json(release_notebook(lab) if release else source_notebook(lab))["cells"]


def nbgrader(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def test_the_three_first_labs_exist():
    assert {"00_pretokenization", "01_naive_bpe", "02_incremental"} <= set(LABS)


@pytest.mark.parametrize(
    "path",
    [source_notebook(lab) for lab in LABS] + [release_notebook(lab) for lab in LABS],
    ids=lambda p: str(p.relative_to(REPO_ROOT)),
)
def test_notebook_is_valid_nbformat_4_5_with_unique_readable_ids(path):
    release = LABS_DIR in path.parents
    assert notebook_problems(path, release=release) == []
    notebook = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    nbformat.validate(notebook)
    assert (notebook.nbformat, notebook.nbformat_minor) == (4, 5)
    ids = [cell.id for cell in notebook.cells]
    assert len(ids) == len(set(ids))
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id and not release:
            assert cell.id == grade_id  # stable: the id is the nbgrader name


def files_under(folder: Path) -> list[str]:
    """Relative paths of the files under ``folder``, except hidden ones such as the
    ``.ipynb_checkpoints/`` JupyterLab leaves next to a lab a learner opened."""
    return [
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ]


@pytest.fixture(scope="module")
def generated_releases():
    """``labs/`` as ``nbgrader generate_assignment`` makes it now, every lab in one run (one nbgrader
    start rather than one per lab)."""
    with temporary_course(LABS) as course:
        result = run_nbgrader(["generate_assignment", "*", "--force", "--no-db"], course, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
        yield course / "labs"


@pytest.mark.parametrize("lab", LABS)
def test_committed_release_is_exactly_what_nbgrader_generates(generated_releases, lab):
    generated = generated_releases / lab
    generated_files = sorted(files_under(generated))
    committed_files = sorted(files_under(LABS_DIR / lab))
    assert committed_files == generated_files
    for name in generated_files:
        new, old = (generated / name).read_bytes(), (LABS_DIR / lab / name).read_bytes()
        if name.endswith(".ipynb"):
            assert json.loads(new) == json.loads(old), f"labs/{lab}/{name} is stale: run python -m bpe_ref.course.notebooks release"
        else:
            assert new == old


def test_labs_hold_no_solutions_and_drill_answers_live_in_the_handout():
    assert list(LABS_DIR.rglob("*solution*")) == []
    # Drill answers belong to the theory pages (theory/drills/), which learners receive; the
    # solutions/ folder, which they do not receive, holds only the nbgrader sources.
    assert [p.name for p in (REPO_ROOT / "solutions").rglob("*.md") if p.name != "README.md"] == []
    assert sorted(p.name for p in (REPO_ROOT / "theory" / "drills").glob("*.md")) == [
        f"{lab[:2]}-answers.md" for lab in LABS
    ]


def test_nbgrader_config_of_the_course():
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader(NBGRADER_CONFIG.name, path=str(NBGRADER_CONFIG.parent)).load_config()
    assert config.CourseDirectory.source_directory == "solutions"
    assert config.CourseDirectory.release_directory == "labs"
    assert config.Execute.timeout == 30
    assert config.OverwriteCells.add_missing_cells is True
    gitignore = (REPO_ROOT / ".gitignore").read_text(encoding="utf-8").split()
    for instructor_state in ("gradebook.db", "submitted/", "autograded/", "feedback/"):
        assert instructor_state in gitignore


@pytest.mark.parametrize("lab", LABS)
def test_release_has_no_solution_code_and_no_hidden_tests(lab):
    released = {cell["id"]: cell for cell in cells(lab, release=True)}
    for cell in cells(lab):
        text = cell["source"]
        released_text = released[cell["id"]]["source"]
        if nbgrader(cell).get("solution"):
            solution = text.split("### BEGIN SOLUTION", 1)[1].split("### END SOLUTION", 1)[0]
            for line in solution.splitlines():
                if line.strip() and not line.strip().startswith("#"):
                    assert line not in released_text.splitlines(), f"{cell['id']}: {line!r} is in the release"
            assert "raise NotImplementedError()" in released_text
        if "### BEGIN HIDDEN TESTS" in text:
            assert nbgrader(cell).get("grade") and nbgrader(cell).get("locked")
            assert "BEGIN HIDDEN TESTS" not in released_text and "graders" not in released_text
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "_properties("):
            assert marker not in released_text
        if cell["cell_type"] == "code":
            assert released[cell["id"]]["outputs"] == [] and released[cell["id"]]["execution_count"] is None


@pytest.mark.parametrize("lab", LABS)
def test_intro_states_goals_links_the_theory_page_and_how_to_self_grade(lab):
    intro = cells(lab)[0]["source"]
    assert intro.startswith(f"# Lab {lab[:2]} ")
    assert "**Goals.**" in intro
    link = theory_page(lab)
    assert f"]({link})" in intro
    assert (source_notebook(lab).parent / link).resolve().is_file(), f"theory page {link} is missing"
    assert f"python -m bpe_ref grade labs/{lab}/{lab}.ipynb" in intro


@pytest.mark.parametrize("lab", LABS)
def test_points_shown_match_the_grading_metadata(lab):
    source = cells(lab)
    test_cells = [cell for cell in source if nbgrader(cell).get("grade")]
    by_task: dict[int, list[dict]] = {}
    for cell in test_cells:
        number = int(re.match(r"task(\d+)_", nbgrader(cell)["grade_id"]).group(1))
        by_task.setdefault(number, []).append(cell)
    intro = source[0]["source"]
    total = sum(nbgrader(c)["points"] for c in test_cells)
    assert f"**total** | | | **{total}** |" in intro
    for number, graded in by_task.items():
        visible = sum(nbgrader(c)["points"] for c in graded if not nbgrader(c)["grade_id"].endswith("_hidden"))
        hidden = sum(nbgrader(c)["points"] for c in graded if nbgrader(c)["grade_id"].endswith("_hidden"))
        statement = next(c["source"] for c in source if c["id"].startswith(f"task{number}_") and c["id"].endswith("_statement"))
        heading = statement.splitlines()[0]
        if hidden:
            assert heading.endswith(f"({visible + hidden} points: {visible} visible, {hidden} hidden)"), heading
        else:
            assert heading.endswith(f"({visible} points)"), heading
        hidden_column = f"{hidden} " if hidden else ""
        assert re.search(rf"\| {number} \| .* \| {visible} \| {hidden_column}\| {visible + hidden} \|", intro), number
    # Tasks come in order, each statement before its code and its tests.
    assert sorted(by_task) == list(range(1, len(by_task) + 1))


@pytest.mark.parametrize("lab", LABS)
def test_each_test_cells_title_shows_its_own_points(lab):
    """A test cell's first line says the points its metadata gives, "1 point" in the singular (lab 03's and lab 06's
    hidden cells once said "(1 points)")."""
    for cell in cells(lab):
        meta = nbgrader(cell)
        if not meta.get("grade"):
            continue
        points = meta["points"]
        shown = re.search(r"\((\d+) (points?)\)", cell["source"].splitlines()[0])
        assert shown, (meta["grade_id"], cell["source"].splitlines()[0])
        assert (int(shown[1]), shown[2]) == (points, "point" if points == 1 else "points"), (meta["grade_id"], shown[0])


@pytest.mark.parametrize("lab", LABS)
def test_test_cells_are_short_locked_and_load_fresh_graders(lab):
    from runpy import run_module

    graders = run_module("bpe_ref.course.checks.fresh")["graders"](lab)
    available = {name for name in dir(graders) if getattr(getattr(graders, name), "is_grader", False)}
    used = set()
    for cell in cells(lab):
        if not nbgrader(cell).get("grade"):
            continue
        meta = nbgrader(cell)
        assert meta["locked"] and not meta["solution"] and meta["points"] > 0
        code = [line for line in cell["source"].splitlines() if line.strip() and not line.startswith("#")]
        # a hidden test cell's one line kept in the release: when its tests run (they are not in the learner's copy)
        code = [line for line in code if not line.startswith('print("Task ') or not meta["grade_id"].endswith("_hidden")]
        assert len(code) <= 3, cell["id"]
        assert f'graders = run_module("bpe_ref.course.checks.fresh")["graders"]("{lab}")' in cell["source"]
        calls = re.findall(r"graders\.(check_\w+)\(", cell["source"])
        assert len(calls) == 1 and calls[0] in available, cell["id"]
        hidden_grader = calls[0].endswith("_properties") or calls[0].endswith("_on_other_corpus")
        assert hidden_grader == meta["grade_id"].endswith("_hidden"), cell["id"]
        used.add(calls[0])
    assert used == available, f"graders no test cell calls: {available - used}"


@pytest.mark.parametrize("lab", LABS)
def test_exploration_is_skipped_under_the_autograder(lab):
    free_code = [cell for cell in cells(lab) if cell["cell_type"] == "code" and not nbgrader(cell)]
    assert free_code, "each lab ends with an ungraded exploration"
    assert free_code[-1]["id"] == "your_grade", "each lab ends with a cell that grades it"
    assert 'if not os.environ.get("NBGRADER_EXECUTION"):' in free_code[-1]["source"]
    for cell in free_code[:-1]:
        assert 'if os.environ.get("NBGRADER_EXECUTION"):' in cell["source"], cell["id"]
    last_graded = max(i for i, cell in enumerate(cells(lab)) if nbgrader(cell).get("grade"))
    first_free = min(i for i, cell in enumerate(cells(lab)) if cell in free_code)
    assert first_free > last_graded


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_solution_notebook_runs_top_to_bottom_with_its_exploration(lab, tmp_path, monkeypatch):
    """What a learner sees: their notebook (the release, with the solution's code in its solution
    cells) runs every cell in the kernel, explorations included, and plots. The hidden tests, which
    a learner never runs, are the autograder's: tests/test_grading_adversarial.py grades every
    solution with them."""
    skip_unless_sampled(lab, "running the solution notebook top to bottom with its exploration", NOTEBOOK_RUN_LABS)
    skip_unless_drawn("a solution notebook run top to bottom", lab, NOTEBOOK_RUN_LABS)  # one of the two a run
    from nbclient import NotebookClient

    from bpe_ref.course.notebooks import nbgrader_environment

    for name, value in nbgrader_environment().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    notebook = nbformat.read(str(release_notebook(lab)), as_version=4)
    solutions = {cell["id"]: cell["source"] for cell in cells(lab) if nbgrader(cell).get("solution")}
    for cell in notebook.cells:
        if cell.id in solutions:
            cell.source = "\n".join(line for line in solutions[cell.id].splitlines() if "### BEGIN SOLUTION" not in line
                                    and "### END SOLUTION" not in line)
    assert len(solutions) >= 3 and all(cell.id in solutions for cell in notebook.cells if nbgrader(cell).get("solution"))
    if not EXHAUSTIVE:
        notebook.cells.insert(0, nbformat.v4.new_code_cell(small_corpora(tmp_path), id="test_small_corpora"))
    # The "Your grade" cell grades the saved copy it finds with python -m bpe_ref grade (tested in
    # tests/test_grading_labs.py); without a saved copy it says where to grade and returns.
    NotebookClient(notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    assert any(out.output_type == "display_data" and "image/png" in out.data for out in outputs)
    text = "".join(out.get("text", "") for out in outputs)
    # Each visible test cell ran its grader, which printed its one line on passing (a failure is an
    # error output, refused above); the hidden ones are placeholders in a release.
    visible_tests = [cell for cell in notebook.cells if nbgrader(cell).get("grade") and "graders." in cell.source]
    assert len(visible_tests) >= 3
    for cell in visible_tests:
        printed = "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")
        assert printed.strip(), cell.id
    assert "Exploration skipped" not in text
    assert "Could not find the saved notebook" in text


# What the test needs of an exploration (and a stretch measurement) is that it runs and plots, not
# what it times: by default the corpora they time are cut to their first stories, by a first cell the
# test adds to the notebook the kernel runs. It points bpe_ref.data_files at the cut copies, whose
# names the explorations import when they run. BPE_EXHAUSTIVE=1 runs them on the whole corpora.
TIMED_CORPORA = ("TINYSTORIES_SAMPLE", "TINYSTORIES_2MIB")
CUT_BYTES = 128 * 1024


def small_corpora(folder: Path) -> str:
    """The source of a cell that points ``bpe_ref.data_files``' timed corpora at cut copies in ``folder``."""
    from bpe_ref import data_files

    lines = ["# Added by tests/test_labs_notebooks.py: the explorations time the first stories only.",
             "import bpe_ref.data_files", "from pathlib import Path"]
    for name in TIMED_CORPORA:
        data = getattr(data_files, name).read_bytes()[:CUT_BYTES]
        data = data[: data.rindex(b"<|endoftext|>") + len(b"<|endoftext|>")]  # whole stories, whole characters
        cut = folder / f"cut_{name.lower()}.txt"
        cut.write_bytes(data)
        lines.append(f"bpe_ref.data_files.{name} = Path({str(cut)!r})")
    return "\n".join(lines) + "\n"


def statement_examples(markdown: str) -> list[str]:
    """The lines of the ```python blocks of a markdown cell, a ``-> result`` line joined to its call."""
    lines: list[str] = []
    for block in re.findall(r"```python\n(.*?)```", markdown, re.S):
        for line in block.splitlines():
            if line.strip().startswith("->") and lines:
                lines[-1] += " " + line.strip()
            elif line.strip():
                lines.append(line.strip())
    return lines


@pytest.mark.parametrize("lab", LABS)
def test_examples_in_the_task_statements_are_right(lab):
    """Every ``call  ->  result`` a statement shows is what the course's solution returns."""
    from bpe_ref.course.notebooks import solution_namespace

    namespace = solution_namespace(lab)
    checked = 0
    for cell in cells(lab):
        if cell["cell_type"] != "markdown":
            continue
        for line in statement_examples(cell["source"]):
            if "->" not in line:
                exec(line, namespace)  # a setup line such as `pair_counts = {...}`
                continue
            call, result = line.split("->", 1)
            result = re.sub(r"\s+#.*$", "", result.strip())
            assert eval(call, namespace) == eval(result, namespace), f"{cell['id']}: {line}"
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("lab", LABS)
def test_visible_tests_earn_at_most_a_third_and_every_fixed_task_has_a_hidden_variant(lab):
    # Hard-coding what the notebook shows must not pass a lab (CONTRIBUTING.md, "Labs and grading").
    graded = [nbgrader(cell) for cell in cells(lab) if nbgrader(cell).get("grade")]
    total = sum(meta["points"] for meta in graded)
    visible = sum(meta["points"] for meta in graded if not meta["grade_id"].endswith("_hidden"))
    assert visible <= total / 3, f"{lab}: visible tests earn {visible} of {total} points"
    ids = {meta["grade_id"] for meta in graded}
    assert all(f"{grade_id}_hidden" in ids for grade_id in ids if not grade_id.endswith("_hidden")), ids


def test_the_recorded_test_cells_match_the_source_notebooks():
    from bpe_ref.course.notebooks import test_cells_manifest_problems

    assert test_cells_manifest_problems() == []


# ---- stretch tasks (CONTRIBUTING.md; the convention: bpe_ref.course.notebooks) ---------------

POINTS = {"00_pretokenization": 13, "01_naive_bpe": 17, "02_incremental": 14, "03_parallel": 14, "04_inverted_index": 14,
          "05_heap": 14, "06_encode_decode": 16, "07_heap_encoding": 10,
          "08_linear_encoding": 15, "09_benchmarks": 19, "10_distributed": 17}


def stretch_sections(lab: str, *, release: bool = False) -> dict[str, list[dict]]:
    """Title -> cells of each stretch task, found by its heading ``## Stretch (ungraded) · <title>``."""
    from bpe_ref.course.notebooks import STRETCH_HEADING

    found, notebook = {}, cells(lab, release=release)
    for i, cell in enumerate(notebook):
        if cell["cell_type"] == "markdown" and cell["source"].startswith(STRETCH_HEADING):
            found[cell["source"].splitlines()[0].removeprefix(STRETCH_HEADING)] = notebook[i : i + 5]
    return found


@pytest.mark.parametrize("lab", LABS)
def test_each_lab_has_a_stretch_task_in_source_and_release(lab):
    from bpe_ref.course.notebooks import stretch_problems

    titles = list(stretch_sections(lab))
    assert titles and titles == list(stretch_sections(lab, release=True))
    assert stretch_problems(cells(lab)) == [] and stretch_problems(cells(lab, release=True)) == []
    source = cells(lab)
    ids = [cell["id"] for cell in source]
    last_graded = max(i for i, cell in enumerate(source) if nbgrader(cell).get("grade"))
    for title, section in stretch_sections(lab).items():
        assert last_graded < ids.index(section[0]["id"]) < ids.index("exploration_statement"), title
        assert [cell["id"].rsplit("_", 1)[1] for cell in section] == ["statement", "solution", "check", "measure", "decision"]


@pytest.mark.parametrize("lab", LABS)
def test_stretch_cells_carry_no_points_and_the_totals_stay(lab):
    for section in stretch_sections(lab).values():
        for cell in section:
            assert not nbgrader(cell).get("grade") and "points" not in nbgrader(cell), cell["id"]
    assert sum(nbgrader(c).get("points", 0) for c in cells(lab)) == POINTS[lab]
    assert f"**total** | | | **{POINTS[lab]}** |" in cells(lab)[0]["source"]
    assert "| stretch · ungraded |" in cells(lab)[0]["source"]
    assert re.search(r"\*\*Time\.\*\* About \d+ minutes with the (two )?stretch tasks?", cells(lab)[0]["source"])


@pytest.mark.parametrize("lab", LABS)
def test_the_release_has_the_stretch_skeleton_not_the_solution(lab):
    released = {cell["id"]: cell for cell in cells(lab, release=True)}
    for section in stretch_sections(lab).values():
        statement, solution, check, measure, decision = section
        skeleton = released[solution["id"]]["source"]
        assert "raise NotImplementedError()" in skeleton and "BEGIN SOLUTION" not in skeleton
        body = solution["source"].split("### BEGIN SOLUTION", 1)[1].split("### END SOLUTION", 1)[0]
        assert not [line for line in body.splitlines() if line.strip() and line in skeleton.splitlines()]
        # Everything else reaches the learner unchanged; the decision cell holds no model answer.
        for cell in (statement, check, measure, decision):
            assert released[cell["id"]]["source"] == cell["source"], cell["id"]
        assert decision["source"].count("…") >= 2, "the decision cell is a template to fill in"


@pytest.mark.parametrize("lab", LABS)
def test_stretch_code_the_grading_worker_runs_only_defines_functions(lab):
    """Solution cells run in the confined worker at grading time: the stretch one must only define
    functions, using nothing the review flags. Its self-check and measurement are skipped there."""
    import ast

    from bpe_ref.course.grade import lab_grading_policy
    from bpe_ref.course.trusted.review import capability_uses

    policy = lab_grading_policy(lab)  # lab 03's code may open files and start processes
    for section in stretch_sections(lab).values():
        solution, check, measure = section[1:4]
        tree = ast.parse(solution["source"])
        assert all(isinstance(node, (ast.FunctionDef, ast.Import, ast.ImportFrom)) for node in tree.body), solution["id"]
        uses = capability_uses(solution["source"], allow_processes=policy.get("allow_processes", False),
                               allow_files=policy.get("allow_files", False), provided=policy.get("provided", ()))
        assert uses == [], solution["id"]
        for cell in (check, measure):
            guarded = [node for node in ast.parse(cell["source"]).body if isinstance(node, ast.If)]
            assert len(guarded) == 1 and ast.unparse(guarded[0].test) == "os.environ.get('NBGRADER_EXECUTION')", cell["id"]
            assert "bpe_ref" not in ast.unparse(guarded[0].body), cell["id"]  # the autograder's branch


@pytest.mark.parametrize("lab", LABS)
def test_a_stretch_measurement_run_before_the_stretch_is_written_says_so(lab):
    """Run before its stretch is written, a measurement cell says so in one line: the skeleton's NotImplementedError
    was a 30-line traceback through the course's measuring code, which read as the course's own code broken."""
    import ast

    for section in stretch_sections(lab, release=True).values():
        measure = section[3]
        guarded = next(node for node in ast.parse(measure["source"]).body if isinstance(node, ast.If))
        tries = [node for node in guarded.orelse if isinstance(node, ast.Try)]
        assert len(tries) == 1 and [ast.unparse(handler.type) for handler in tries[0].handlers] == ["NotImplementedError"], \
            measure["id"]
        assert "Not written yet" in ast.unparse(tries[0].handlers[0].body), measure["id"]


def test_lab_00s_stretch_measurement_run_on_the_skeleton_prints_one_line(monkeypatch, capsys):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    released = {cell["id"]: cell["source"] for cell in cells("00_pretokenization", release=True)}
    namespace = {"EOT": "<|endoftext|>"}
    exec(released["stretch_count_in_pieces_solution"], namespace)
    exec(released["stretch_count_in_pieces_measure"], namespace)
    assert capsys.readouterr().out == "Not written yet: write the stretch above, run its cell, then run this one again.\n"


@pytest.mark.parametrize("lab", LABS)
def test_a_released_hidden_test_cell_says_when_its_tests_run(lab, capsys):
    """Released, a hidden-test cell holds only its comments: run, it showed nothing, which a new learner (learn31)
    read as passed. Each says in one line that its tests run when the lab is graded, and how."""
    hidden = [cell for cell in cells(lab, release=True) if nbgrader(cell).get("grade_id", "").endswith("_hidden")]
    assert hidden, lab
    for cell in hidden:
        exec(cell["source"], {})
        task = cell["source"].split(",")[0].removeprefix("# ")
        assert capsys.readouterr().out == (f"{task}'s hidden tests run when the lab is graded: "
                                           f"python -m bpe_ref grade labs/{lab}/{lab}.ipynb\n"), cell["id"]


def test_the_stretch_convention_catches_a_graded_or_unguarded_stretch_cell():
    from bpe_ref.course.notebooks import stretch_problems

    notebook = cells("00_pretokenization")
    assert stretch_problems(notebook) == []
    graded = [dict(cell, metadata={"nbgrader": {**nbgrader(cell), "grade": True, "points": 1}})
              if cell["id"] == "stretch_count_in_pieces_solution" else cell for cell in notebook]
    assert stretch_problems(graded) == ["stretch_count_in_pieces_solution: a stretch cell carries no grade or points"]
    unguarded = [dict(cell, source=cell["source"].replace("NBGRADER_EXECUTION", "X"))
                 if cell["id"] == "stretch_count_in_pieces_measure" else cell for cell in notebook]
    assert "skipped with" in stretch_problems(unguarded)[0]
    assert stretch_problems([c for c in notebook if not c["id"].startswith("stretch_")])[0].startswith("no stretch task")
