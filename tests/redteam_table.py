"""On demand (not collected by pytest): the evidence table of issue 21, graded as an instructor would.

For each lab, one class: the solution, the release, every realistic mistake ``tests/test_mistakes.py``
defines for that lab (each the solution notebook with one cell changed), every attack of
``tests/test_grading_adversarial.py`` (``every_submission`` and the lab's ``ONE_LAB`` extras) and,
for lab 02, the forged watched calls of ``tests/test_grading_redteam.py``. The class is autograded
once (``nbgrader autograde``, the limits the adversarial tests use), then ``python -m bpe_ref grade
--class`` reports it, and each submission's score and flags are set against what the tests expect.
It also times grading: ``python -m bpe_ref grade`` on each lab's solution, and a class of 30 copies
of lab 01's solution.

    python tests/redteam_table.py [--labs 00 03 ...] [--work DIR] [--out FILE] [--no-timing] [--no-class-of-30] [--class-jobs N]

``--labs`` with no lab grades no lab's class: ``--labs --no-timing`` times the class of 30 alone (about 100 s of wall
time and 190 s of CPU with ``--class-jobs 2``).

``--class-jobs N`` grades the class of 30 with ``python -m bpe_ref autograde 01_naive_bpe --jobs N`` (N
nbgrader processes at once) instead of one ``nbgrader autograde``.

Each lab's rows are kept in ``DIR/<lab>.json`` (default ``/tmp/table21``), so labs can be run one
invocation at a time; the Markdown table (``--out``, and stdout) holds every lab found in ``DIR``.

The mistakes are not copied here: each ``test_labNN_*`` of ``tests/test_mistakes.py`` is called with
its module's ``variant``/``defined``/``remote`` replaced by a recorder that keeps the mistaken source
and stops the test (its parametrize marks give the cases). The worker-only twins (``..._too``) repeat
an in-process mistake and are left out.
"""

from __future__ import annotations

import argparse
import ast
import atexit
import contextlib
import inspect
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))  # the test modules import each other (and sampling) by name
# The table is the every-member evidence: no sampled family of tests/sampling.py (lab 02's one-sided filters) is
# left to a per-run draw here, or a test that skips its other members would stop the build of the class.
os.environ["BPE_EXHAUSTIVE"] = "1"

import test_grading_adversarial as adversarial  # noqa: E402
import test_grading_redteam as redteam  # noqa: E402
import test_mistakes as mistakes  # noqa: E402

from bpe_ref.course.notebooks import (  # noqa: E402
    REPO_ROOT,
    lab_names,
    nbgrader_environment,
    run_nbgrader,
    solution_namespace,
    temporary_course,
)
from bpe_ref.course.trusted import cells as test_cells  # noqa: E402

# What the issue says each kind scored when it was filed (2026-11, on main before the rework), by a
# piece of the test's or the attack's name. Kinds the issue does not name get "—".
BEFORE = {
    "merge_counts_that_adds_into_its_input": "full marks",
    "pop_best_that_changes_pair_counts": "full marks",
    "pool_done_otherwise": "full marks (threads, start_method, chunks_per_worker ignored)",
    "whole_file_read": "full marks",
    "threads_fail": "full marks",
    "count_chunk_in_a_cell": "cost two tasks (task 4 called it without a stand-in)",
    "search_of_the_whole_window": "full marks",
    "v4_that_visits_every_word": "full marks",
    "index_that_is_not_a_defaultdict": "full marks (visible test fails, grade passes)",
    "collector_left_off": "full marks",
    "naive_way_for_short_pretokens": "full marks",
    "split_one_at_a_time": "lost 1 visible point only",
    "invalid_tokens_taken_as_candidates": "lost 1 visible point only",
    "recounts_on_each_merge": "full marks (watched calls)",
    "calls_made_for_show": "full marks (watched calls)",
    "replay_of_the_merges": "full marks (watched calls)",
    "forged_watched_calls": "full marks, not flagged",
    # tests/test_grading_adversarial.py's METHOD_FOR_SHOW, on the release: lab 07's earned task 3 (3 points); labs 04
    # and 05 lost it already (their visible tests measured since 750e7ef), as they do now
    "method_for_show": "task 3 earned (lab 07); lost (labs 04, 05)",
    "keeps_a_stand_in": "inflated (tasks graded in the submission's order)",
    "reorders_and_tampers": "inflated, tampering not flagged",
    "honest_with_docstrings": "flagged (mentions bpe_ref)",
    "test_cells_deleted": "restored, not flagged",
}
# tests/test_grading_adversarial.py::test_class_report_flags_what_needs_review and the lab-01 test:
# the submissions grade --class must flag, and those it must not.
FLAGGED = {"writes_gradebook", "patches_imports", "hooks_ipython", "reference_subprocess", "reference_import",
           "reorders_and_tampers"}
NOT_FLAGGED = {"honest", "blank", "noisy_but_correct", "honest_with_docstrings"}


# ---- the mistakes of tests/test_mistakes.py -------------------------------------------------------


class _Built(Exception):
    """Raised by the recorders: the test built its mistake (cell id, new source)."""


def _imports_for(namespace: dict, solutions: dict) -> str:
    """Imports for the names a test added to the solution namespace (lab 03's ThreadPoolExecutor)."""
    lines = []
    for name, value in namespace.items():
        if name in solutions:
            continue
        if isinstance(value, types.ModuleType):
            lines.append(f"import {value.__name__} as {name}")
        elif getattr(value, "__module__", None):
            lines.append(f"from {value.__module__} import {value.__name__} as {name}")
    return "".join(line + "\n" for line in lines)


# a cell's %%writefile of lab 03's module, as code run in a worker spells it
WRITTEN_MODULE = re.compile(r"get_ipython\(\)\.run_cell_magic\('writefile', 'chunk_counting\.py', "
                            r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)")


def _recorders(lab: str, solutions: dict):
    def cell_of(name: str) -> str:
        try:
            return adversarial.solution_cell_of(lab, name)
        except StopIteration:  # graded through a read-only helper (lab 10's tree_reduce, by tree_shape): its cell's name
            return next(spec.grade_id for spec in adversarial.test_cells.load(lab)
                        if spec.grade_id.split("_", 1)[1] == name) + "_solution"

    def with_code(name: str, code: str) -> str:
        cell = cell_of(name)
        original = mistakes.source_of(lab, cell)
        if original.lstrip().startswith("%%"):  # a %%writefile cell: the mistake replaces it (lab 03's count_chunk)
            return cell, code
        return cell, original + "\n\n" + code  # the cell's imports kept, the mistaken definition last

    def variant(lab_, namespace, cell_id, name, old, new):
        source = mistakes.source_of(lab_, cell_id)
        assert old in source, old
        raise _Built(cell_id, _imports_for(namespace, solutions) + source.replace(old, new))

    def defined(namespace, source, name):
        raise _Built(*with_code(name, _imports_for(namespace, solutions) + source))

    def remote(lab_, code, name, grader, **policy):
        written = WRITTEN_MODULE.search(code)
        if written:  # lab 03's count_chunk module, written by the code: a mistake there is task 2's cell, a %%writefile
            cell = cell_of("count_chunk")
            module = ast.literal_eval(written.group(1))
            if module != mistakes.source_of(lab, cell).split("\n", 1)[1]:
                raise _Built(cell, "%%writefile chunk_counting.py\n" + module)
        raise _Built(*with_code(name, code))

    return {"variant": variant, "defined": defined, "remote": remote}


class _AnyGrader:
    """Stands for a lab's graders while a test builds its mistake: a grader named in the same call
    (``failure(graders.check_x, defined(...))``) is looked up before the mistake is built."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _cases(test) -> list[tuple[str, dict]]:
    """(id, keyword arguments) of each parametrized case of ``test`` (one case if it has none)."""
    cases = [("", {})]
    for mark in getattr(test, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = [n.strip() for n in (mark.args[0].split(",") if isinstance(mark.args[0], str) else mark.args[0])]
        ids = mark.kwargs.get("ids")
        new = []
        for i, value in enumerate(mark.args[1]):
            values = getattr(value, "values", value)
            values = values if len(names) > 1 else (values[0] if hasattr(value, "values") else values,)
            if ids:  # a list, a dict's keys or a function
                label = str(ids(value)) if callable(ids) else str(list(ids)[i])
            elif all(isinstance(v, str) for v in values):  # named as pytest names it (a lab and a mistake: 06_encode_decode-...)
                label = "-".join(values)
            else:
                label = str(i)
            for case_id, kwargs in cases:
                new.append(((case_id + "-" if case_id else "") + label, {**kwargs, **dict(zip(names, values))}))
        cases = new
    return cases


def mistake_notebooks(lab: str) -> tuple[dict[str, tuple[str, dict]], list[str]]:
    """student id -> (test name, notebook), and what could not be built (with why)."""
    prefix = f"test_lab{lab[:2]}_"
    # A lab's own tests, and those of several labs (test_labs06_to_08_...), whose cases name the lab in ``lab``.
    tests = [(name, test) for name, test in vars(mistakes).items()
             if (name.startswith(prefix) or name.startswith("test_labs")) and callable(test) and not name.endswith("_too")]
    if not tests:
        return {}, []
    solutions = solution_namespace(lab)
    graders_stub = _AnyGrader()
    built, problems, seen = {}, [], set()
    saved = {name: getattr(mistakes, name) for name in ("variant", "defined", "remote")}
    try:
        for name, value in _recorders(lab, solutions).items():
            setattr(mistakes, name, value)
        for test_name, test in tests:
            for case_id, kwargs in _cases(test):
                if not test_name.startswith(prefix) and kwargs.get("lab") != lab:
                    continue  # a case of another lab
                label = test_name + (f"[{case_id}]" if case_id else "")
                arguments = {}
                for parameter in inspect.signature(test).parameters:
                    if parameter in kwargs:
                        arguments[parameter] = kwargs[parameter]
                    elif re.fullmatch(r"lab\d\d", parameter):
                        arguments[parameter] = (graders_stub, solutions)
                    elif parameter == "request":  # only its fixtures of the lab's graders are asked for
                        arguments[parameter] = types.SimpleNamespace(getfixturevalue=lambda _name: (graders_stub, solutions))
                    elif parameter == "at_the_first_verdict":  # the test is stopped before it measures anything
                        arguments[parameter] = contextlib.nullcontext
                    elif parameter == "tmp_path":
                        arguments[parameter] = Path(tempfile.mkdtemp(prefix="redteam-table-"))
                        atexit.register(shutil.rmtree, arguments[parameter], True)
                    else:
                        arguments = None
                        problems.append(f"{label}: needs the fixture {parameter}")
                        break
                if arguments is None:
                    continue
                try:
                    test(**arguments)
                except _Built as mistake:
                    cell_id, source = mistake.args
                    if (cell_id, source) in seen:
                        continue
                    seen.add((cell_id, source))
                    notebook = adversarial.complete(lab)
                    cell = next(c for c in notebook["cells"] if c["id"] == cell_id)
                    cell["source"] = source
                    unprefixed = re.sub(r"^test_labs?\d\d(?:_to_\d\d)?_", "", test_name)
                    short = re.split(r"_(?:fails?|costs?|loses?|passes)(?:_|$)", unprefixed)[0]
                    student = "m_" + re.sub(r"[^a-z0-9]+", "_", short.lower())[:48].strip("_")
                    case_id = case_id.replace(f"{lab}-", "")  # the lab is the table's own
                    student += f"_{case_id}" if case_id else ""
                    student = re.sub(r"[^a-z0-9_]+", "_", student.lower())
                    while student in built:  # two tests of one mistake shorten alike (in-process and worker twins)
                        student += "_b"
                    built[student] = (label, notebook)
                except Exception as error:  # noqa: BLE001  (reported, not hidden)
                    problems.append(f"{label}: built no mistake ({type(error).__name__}: {error})")
                else:
                    problems.append(f"{label}: built no mistake")
    finally:
        for name, value in saved.items():
            setattr(mistakes, name, value)
    return built, problems


# ---- the attacks ----------------------------------------------------------------------------------


def attack_notebooks(lab: str, course: Path) -> dict[str, dict | str]:
    everyone = adversarial.every_submission(lab, course)
    everyone.update({student: build() for student, build in adversarial.ONE_LAB.get(lab, {}).items()})
    if lab == "02_incremental":  # tests/test_grading_redteam.py: a recounting trainer that forges the watched calls
        notebook = adversarial.complete(lab)
        cell = next(c for c in notebook["cells"] if c["id"] == "task3_train_solution")
        cell["source"] = redteam.FORGED_SPY
        everyone["forged_watched_calls"] = notebook
    if lab in adversarial.METHOD_FOR_SHOW:  # a wrong method whose calls are made for show, or whose count is forged
        everyone["method_for_show"] = adversarial.method_for_show(lab)
    return everyone


def expected(student: str, kind: str, full: float, scores: dict[str, float | None], lab: str) -> str:
    """What the tests assert of ``student`` (score, then flags)."""
    if kind == "mistake":
        score = f"< {full:g}"
    elif kind == "not a mistake":  # a test that says the variant passes (page 02's toy filter, an honest way)
        score = f"{full:g}"
    elif student == "honest" or student in adversarial.FULL_MARKS:
        score = f"{full:g}"
    elif student in adversarial.BLANK_BASED:
        score = "0"
    elif student in adversarial.LIKE_LAST_RAISES:
        score = f"= last_raises ({scores.get('last_raises')})"
    elif student == "last_raises":
        score = f"0 < s < {full:g}"
    elif student in ("helper_raises", "keeps_a_stand_in"):
        helper = adversarial.helper_and_user(lab)[0]
        worth = sum(c.points for c in test_cells.load(lab) if c.functions[0] == helper)
        score = f"{full - worth:g}"
    elif student == "hardcoded":
        score = f"<= {full / 3:.3g}"
    elif student == "method_for_show":  # the release: only the points of its function's other tasks are left
        score = f"<= {adversarial.points_left(lab):g}"
    elif student == "invalid_json":
        score = "could not be read"
    elif student == "reorders_and_tampers":
        worth = sum(c.points for c in test_cells.load(lab) if c.functions == ("count_pairs",))
        score = f"<= {full - worth:g}"
    else:  # solution_cell_exits, forged_watched_calls
        score = f"< {full:g}"
    flags = "; flagged" if student in FLAGGED else "; not flagged" if student in NOT_FLAGGED else ""
    return score + flags


def meets(expectation: str, status: str, earned: float, flagged: bool) -> bool:
    score, _, flags = expectation.partition("; ")
    if flags == "flagged" and not flagged or flags == "not flagged" and flagged:
        return False
    if score == "could not be read":
        return status == "could not be read"
    if status != "graded":
        return False
    if score.startswith("= last_raises"):
        number = score.split("(")[1].rstrip(")")
        return number != "None" and earned == float(number)
    if score.startswith("0 < s < "):
        return 0 < earned < float(score.split("< ")[-1])
    for op, test in (("<= ", lambda a, b: a <= b + 1e-9), ("< ", lambda a, b: a < b)):
        if score.startswith(op):
            return test(earned, float(score[len(op):]))
    return earned == float(score)


def before_of(name: str) -> str:
    return next((text for key, text in BEFORE.items() if key in name), "—")


# ---- grading ---------------------------------------------------------------------------------------


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def parse_class_report(text: str) -> dict[str, dict]:
    """``grade --class``'s printout -> student -> {score, status, flags}."""
    rows, current = {}, None
    for line in text.splitlines():
        flag = re.match(r"^\s+- (.*)$", line)
        if flag and current:
            rows[current]["flags"].append(flag.group(1))
            continue
        row = re.match(r"^(\S+)\s+(\S+ / \S+|-)\s+(.*)$", line)
        if row and row.group(1) != "student":
            current = row.group(1)
            status = row.group(3).removesuffix("; NEEDS REVIEW")
            earned = float(row.group(2).split(" / ")[0]) if row.group(2) != "-" else None
            rows[current] = {"score": row.group(2), "earned": earned, "status": status.split(":")[0], "detail": status,
                             "flags": []}
    return rows


def grade_class(lab: str, work: Path) -> dict:
    """Autograde ``lab``'s class once, report it with ``grade --class``: the lab's rows."""
    folder = work / lab
    folder.mkdir(parents=True, exist_ok=True)
    with temporary_course((lab,)) as course:
        if run_nbgrader(["generate_assignment", lab, "--force"], course, timeout=600).returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment {lab} failed")
        submissions = attack_notebooks(lab, course)
        kinds = {student: ("attack", student) for student in submissions}
        built, problems = mistake_notebooks(lab)
        for student, (label, notebook) in built.items():
            submissions[student] = notebook
            # a test that says the variant passes: page 02's toy filter, honest ways the statement does not show
            honest = re.search(r"_passes(_|$|\[)|_an_honest_", label)
            kinds[student] = ("not a mistake" if honest else "mistake", label)
        kinds["honest"] = ("solution", "honest")
        kinds["blank"] = ("release", "blank")
        for student, notebook in submissions.items():
            target = course / "submitted" / student / lab
            target.mkdir(parents=True)
            text = notebook if isinstance(notebook, str) else json.dumps(notebook, indent=1)
            (target / f"{lab}.ipynb").write_text(text, encoding="utf-8")
        options = [*adversarial.BATCH_OPTIONS, adversarial.call_limit(adversarial.group_of(lab))]
        start, cpu = time.perf_counter(), children_cpu()
        autograde = run_nbgrader(["autograde", lab, *options], course, timeout=7200)
        seconds, cpu_seconds = time.perf_counter() - start, children_cpu() - cpu
        (folder / "autograde.log").write_text(autograde.stdout + autograde.stderr, encoding="utf-8")
        summary = subprocess.run([sys.executable, "-m", "bpe_ref", "grade", "--class", lab, "--course", str(course)],
                                 cwd=REPO_ROOT, env=nbgrader_environment(), capture_output=True, text=True, timeout=900)
        (folder / "grade-class.txt").write_text(summary.stdout + summary.stderr, encoding="utf-8")
        report = parse_class_report(summary.stdout)
        failures = task_failures(course, lab, report)
    full = sum(cell.points for cell in test_cells.load(lab))
    scores = {s: r["earned"] for s, r in report.items()}
    rows = []
    order = {"solution": 0, "release": 1, "mistake": 2, "not a mistake": 2, "attack": 3}
    for student in sorted(kinds, key=lambda s: (order[kinds[s][0]], s)):
        kind, label = kinds[student]
        got = report.get(student)
        expectation = expected(student, kind, full, scores, lab)
        ok = got is not None and meets(expectation, got["status"], got["earned"] or 0.0, bool(got["flags"]))
        rows.append({"lab": lab, "kind": kind, "name": student, "test": label, "before": before_of(label),
                     "score": got["score"] if got and got["earned"] is not None else (got["status"] if got else "no row"),
                     "flags": got["flags"] if got else [], "expected": expectation, "ok": ok,
                     "why": failures.get(student, "")})
    return {"lab": lab, "full": full, "rows": rows, "not_built": problems, "autograde_seconds": seconds,
            "autograde_cpu_seconds": cpu_seconds, "autograde_returncode": autograde.returncode,
            "class_returncode": summary.returncode, "submissions": len(submissions)}


def task_failures(course: Path, lab: str, report: dict) -> dict[str, str]:
    """student -> the tasks that lost points, each with its first failure's first line."""
    from bpe_ref.course.grade import grades_from_course, group_by_task

    lost = {}
    for student, row in report.items():
        if row["status"] != "graded":
            continue
        try:
            tasks = group_by_task(grades_from_course(course, lab, student, lab))
        except Exception as error:  # noqa: BLE001
            lost[student] = f"(details unavailable: {error})"
            continue
        lost[student] = "; ".join(f"{t.name} {t.earned:g}: {first_line(t.first_failure)}" for t in tasks if not t.passed)
    return lost


def first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0][:160] if lines else ""


def self_grade_time(lab: str, work: Path) -> dict:
    """``python -m bpe_ref grade`` of the lab's solution notebook: wall and CPU seconds."""
    path = work / lab / f"{lab}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(adversarial.complete(lab)), encoding="utf-8")
    start, cpu = time.perf_counter(), children_cpu()
    result = subprocess.run([sys.executable, "-m", "bpe_ref", "grade", str(path)], cwd=REPO_ROOT,
                            env=nbgrader_environment(), capture_output=True, text=True, timeout=1800)
    took, cpu_took = time.perf_counter() - start, children_cpu() - cpu
    (work / lab / "self-grade.txt").write_text(result.stdout + result.stderr, encoding="utf-8")
    total = re.search(r"^total\s+(\S+ / \S+)", result.stdout, re.M)
    return {"lab": lab, "wall": took, "cpu": cpu_took, "total": total.group(1) if total else "?",
            "returncode": result.returncode, "load": os.getloadavg()[0]}


def class_of_30(work: Path, copies: int = 30, jobs: int | None = None) -> dict:
    """A class of ``copies`` copies of lab 01's solution, autograded and reported as a teacher would (with
    ``jobs``: by ``python -m bpe_ref autograde --jobs``)."""
    lab = "01_naive_bpe"
    with temporary_course((lab,)) as course:
        if run_nbgrader(["generate_assignment", lab, "--force"], course, timeout=600).returncode != 0:
            raise RuntimeError("nbgrader generate_assignment failed")
        text = json.dumps(adversarial.complete(lab), indent=1)
        for i in range(copies):
            (course / "submitted" / f"student{i:02d}" / lab).mkdir(parents=True)
            (course / "submitted" / f"student{i:02d}" / lab / f"{lab}.ipynb").write_text(text, encoding="utf-8")
        load_before = os.getloadavg()
        start, cpu = time.perf_counter(), children_cpu()
        if jobs:
            autograde = subprocess.run([sys.executable, "-m", "bpe_ref", "autograde", lab, "--jobs", str(jobs), "--course",
                                        str(course)], cwd=REPO_ROOT, env=nbgrader_environment(), capture_output=True,
                                       text=True, timeout=7200)
        else:
            autograde = run_nbgrader(["autograde", lab], course, timeout=7200)
        graded, graded_cpu = time.perf_counter() - start, children_cpu() - cpu
        summary = subprocess.run([sys.executable, "-m", "bpe_ref", "grade", "--class", lab, "--course", str(course)],
                                 cwd=REPO_ROOT, env=nbgrader_environment(), capture_output=True, text=True, timeout=900)
        took, cpu_took = time.perf_counter() - start, children_cpu() - cpu
    (work / "class-of-30.txt").write_text(autograde.stdout[-5000:] + autograde.stderr[-5000:] + summary.stdout, encoding="utf-8")
    report = parse_class_report(summary.stdout)
    return {"copies": copies, "jobs": jobs or 1, "autograde_wall": graded, "autograde_cpu": graded_cpu, "wall": took, "cpu": cpu_took,
            "full_marks": sum(1 for r in report.values() if r["score"] != "-" and len(set(r["score"].split(" / "))) == 1),
            "load_before": load_before, "load_after": os.getloadavg(), "returncode": autograde.returncode}


# ---- the table ------------------------------------------------------------------------------------


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(work: Path) -> str:
    labs = [json.loads(p.read_text()) for p in sorted(work.glob("*.json")) if re.fullmatch(r"\d\d_.*", p.stem)]
    out = ["| lab | kind | name | before (issue) | score | tasks that lost points | flags from `grade --class` | expected (tests) "
           "| as expected |", "|---|---|---|---|---|---|---|---|---|"]
    for lab in labs:
        for row in lab["rows"]:
            flags = "; ".join(row["flags"]) or "none"
            name = row["name"] if row["test"] == row["name"] else f"{row['name']} (`{row['test']}`)"
            lost = ", ".join(re.findall(r"(?:^|; )(task\w+) [\d.]+:", row["why"])) or "—"
            out.append(f"| {lab['lab'][:2]} | {row['kind']} | {cell(name)} | {cell(before_of(row['test']))} | {row['score']} | {lost} | "
                       f"{cell(flags)} | {cell(row['expected'])} | {'yes' if row['ok'] else '**NO**'} |")
    findings = [(lab["lab"], row) for lab in labs for row in lab["rows"] if not row["ok"]]
    out += ["", f"Rows not as the tests expect: {len(findings)}."]
    for lab, row in findings:
        out.append(f"- {lab} {row['name']}: {row['score']}, expected {row['expected']}; lost: {row['why'] or '-'}")
    for lab in labs:
        if lab["not_built"]:
            out.append(f"- {lab['lab']}: mistakes not built: " + "; ".join(lab["not_built"]))
    out += ["", "| lab | submissions | autograde wall s | autograde CPU s | autograde exit |", "|---|---|---|---|---|"]
    out += [f"| {lab['lab']} | {lab['submissions']} | {lab['autograde_seconds']:.0f} | {lab['autograde_cpu_seconds']:.0f} "
            f"| {lab['autograde_returncode']} |" for lab in labs]
    timing = work / "timing.json"
    if timing.exists():
        data = json.loads(timing.read_text())
        honest = data.get("self_grade", [])
        if honest:
            out += ["", "Self-grade of each solution (`python -m bpe_ref grade`):", "",
                    "| lab | total | wall s | CPU s | load (1 min) |", "|---|---|---|---|---|"]
            out += [f"| {t['lab']} | {t['total']} | {t['wall']:.1f} | {t['cpu']:.1f} | {t['load']:.1f} |" for t in honest]
            out.append(f"\nMedian per honest notebook: {statistics.median(t['wall'] for t in honest):.1f} s wall, "
                       f"{statistics.median(t['cpu'] for t in honest):.1f} s CPU over {len(honest)} labs (issue: 4-6 s).")
        thirty = data.get("class_of_30")
        if thirty:
            out.append(f"Class of {thirty['copies']} (lab 01 solution, {thirty.get('jobs', 1)} job(s)): autograde "
                       f"{thirty['autograde_wall']:.0f} s wall, {thirty.get('autograde_cpu', 0):.0f} s CPU, "
                       f"with grade --class {thirty['wall']:.0f} s wall, {thirty['cpu']:.0f} s CPU, {thirty['full_marks']} "
                       f"at full marks; load average {thirty['load_before'][0]:.1f} before, {thirty['load_after'][0]:.1f} "
                       f"after (issue: 96 s).")
        out.append(f"Machine: nproc {data.get('nproc')}, {data.get('platform')}.")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labs", nargs="*", help="lab numbers or names (default: every lab; --labs alone: none, e.g. "
                        "for the class of 30 only)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/table21"), help="where each lab's rows and logs go")
    parser.add_argument("--out", type=Path, help="write the Markdown table here too")
    parser.add_argument("--no-timing", action="store_true", help="skip the self-grade of each lab's solution")
    parser.add_argument("--no-class-of-30", action="store_true", help="skip the class of 30 copies of lab 01")
    parser.add_argument("--class-jobs", type=int, metavar="N", help="grade the class of 30 with python -m bpe_ref autograde --jobs N")
    args = parser.parse_args(argv)
    labs = [lab for lab in lab_names() if args.labs is None or any(lab.startswith(x) or lab == x for x in args.labs)]
    args.work.mkdir(parents=True, exist_ok=True)
    timing_path = args.work / "timing.json"
    timing = json.loads(timing_path.read_text()) if timing_path.exists() else {}
    timing.update({"nproc": os.cpu_count(), "platform": platform.platform()})
    for lab in labs:
        print(f"{time.strftime('%H:%M:%S')} {lab}: grading its class (load {os.getloadavg()[0]:.1f})", flush=True)
        result = grade_class(lab, args.work)
        (args.work / f"{lab}.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
        print(f"{time.strftime('%H:%M:%S')} {lab}: {result['submissions']} submissions in {result['autograde_seconds']:.0f} s, "
              f"{sum(not r['ok'] for r in result['rows'])} rows not as expected", flush=True)
        if not args.no_timing:
            done = [t for t in timing.get("self_grade", []) if t["lab"] != lab]
            timing["self_grade"] = sorted(done + [self_grade_time(lab, args.work)], key=lambda t: t["lab"])
        timing_path.write_text(json.dumps(timing, indent=1), encoding="utf-8")
    if not args.no_class_of_30:
        print(f"{time.strftime('%H:%M:%S')} class of 30 (lab 01, load {os.getloadavg()[0]:.1f})", flush=True)
        timing["class_of_30"] = class_of_30(args.work, jobs=args.class_jobs)
        timing_path.write_text(json.dumps(timing, indent=1), encoding="utf-8")
    table = markdown(args.work)
    if args.out:
        args.out.write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
