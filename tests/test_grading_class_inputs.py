"""A class's hidden inputs are drawn once and replayed (``bpe_ref.course.checks.running.class_inputs``): graded
with them kept, a class gets the same scores and the same feedback, word for word, as with every notebook drawing
its own, on honest work and on wrong work (the smallest failing input still shrunk, a learner's code that changes
with its calls still called as it would be); a new seed (a self-grade's) draws afresh; and the inputs a seed draws
hang on the seed alone, not on which modules the grading process happens to have loaded."""

from __future__ import annotations

import json
import sys

import pytest

from bpe_ref.course.checks import running
from bpe_ref.course.checks.core import hidden_seed
from bpe_ref.course.notebooks import read_notebook_json, source_notebook
from bpe_ref.course.trusted.autograde import grade_cells
from bpe_ref.course.trusted.sandbox import Policy

pytestmark = pytest.mark.slow
LAB = "01_naive_bpe"
# Task 5 trains on two corpora and has no property test: left out, it would only add a minute to each grading.
NOT_GRADED_HERE = ("task5_train_on_corpus_en", "task5_train_on_corpus_en_hidden")
SEED = 20261129

# Each submission: the course's solution with some (cell id, old, new) changes, mistakes a learner could make, or
# functions whose answers change with their calls (the replay and hypothesis's shrinking must call them alike).
# Every task is graded with the reference's helpers standing in for the learner's earlier functions, so mistakes
# in different tasks cost their own task only: one notebook holds several, and the class is three notebooks.
COUNTS_ONCE_PER_WORD = ("task1_count_pairs_solution", "zip(word, word[1:])", "set(zip(word, word[1:]))")
# (Ties on decoded text: a mistake that only generated inputs find in the hidden test, whose smallest is shrunk. The
# concatenation of the tokens is now caught by a hidden fixed case first.)
TIES_ON_DECODED_TEXT = ("task2_best_pair_solution", "(pair_counts[pair], pair)",
                        "(pair_counts[pair], pair[0].decode('utf-8', 'replace'), pair[1].decode('utf-8', 'replace'))")
STOPS_AFTER_EIGHT = ("task4_train_solution", "for _ in range(num_merges):", "for _ in range(min(num_merges, 8)):")
RIGHT_THEN_WRONG = ("task1_count_pairs_solution", "    for word, frequency in word_counts.items():",
                    "    CALLS.append(1)\n    frequency_bonus = len(CALLS) > 40  # right for 40 calls, then wrong\n"
                    "    for word, frequency in word_counts.items():\n        frequency += frequency_bonus")
WRONG_ONCE = [("task3_merge_word_solution", "    merged = []", "    MERGES.append(1)\n    merged = []"),
              ("task3_merge_word_solution", "    return tuple(merged)",
               "    return tuple(merged) + ((b'!',) if len(MERGES) == 30 else ())  # one wrong answer")]
SUBMISSIONS = {
    "honest": [],
    "three_mistakes": [COUNTS_ONCE_PER_WORD, TIES_ON_DECODED_TEXT, STOPS_AFTER_EIGHT],
    "changes_with_its_calls": [("setup", "# Setup (read-only). Run it first.", "CALLS, MERGES = [], []"), RIGHT_THEN_WRONG, *WRONG_ONCE],
}


def notebook(changes: list[tuple[str, str, str]]) -> list[dict]:
    cells = [cell for cell in read_notebook_json(source_notebook(LAB))["cells"] if cell.get("id") not in NOT_GRADED_HERE]
    for cell_id, old, new in changes:
        cell = next(cell for cell in cells if cell.get("id") == cell_id)
        assert old in cell["source"], (cell_id, old)
        cell["source"] = cell["source"].replace(old, new, 1)
    return cells


def graded_class(monkeypatch, whole_class: bool) -> dict[str, list[tuple]]:
    """Every submission graded in turn under the class's seed, in this process, as ``nbgrader autograde`` grades a
    class (``whole_class``: the inputs kept), or each as a self-grade would (drawn as it goes): each one's verdicts
    (test cell, points, passed, message)."""
    monkeypatch.setattr(running, "_KEPT", {"seed": None, "tests": {}})
    verdicts = {}
    for student, changes in SUBMISSIONS.items():
        record = grade_cells(notebook(changes), LAB, policy=Policy(cell_timeout=30, call_timeout=30), seed=SEED,
                             whole_class=whole_class)
        verdicts[student] = [(v.grade_id, v.points, v.passed, v.message) for v in record.verdicts]
    return verdicts


def test_a_class_graded_with_its_inputs_kept_gets_the_same_scores_and_feedback(monkeypatch):
    runs = []
    shrinking = running._run_hypothesis

    def counted(*args, **kwargs):
        runs.append(args[0].name)
        return shrinking(*args, **kwargs)

    monkeypatch.setattr(running, "_run_hypothesis", counted)
    fresh = graded_class(monkeypatch, whole_class=False)
    assert running._KEPT["tests"] == {}  # one notebook at a time, as in a self-grade: nothing kept
    drawn_afresh = len(runs)
    runs.clear()
    kept = graded_class(monkeypatch, whole_class=True)
    for student in SUBMISSIONS:
        assert kept[student] == fresh[student], student
    # The class as it should be graded: the honest notebook full marks, each mistake caught by its hidden test.
    lost = {student: sorted(grade_id for grade_id, _, passed, _ in verdicts if not passed) for student, verdicts in fresh.items()}
    assert lost == {"honest": [],
                    "three_mistakes": ["task1_count_pairs", "task1_count_pairs_hidden", "task2_best_pair",
                                       "task2_best_pair_hidden", "task4_train_hidden"],
                    "changes_with_its_calls": ["task1_count_pairs_hidden", "task3_merge_word_hidden"]}
    messages = {(student, grade_id): message for student, verdicts in fresh.items() for grade_id, _, _, message in verdicts}
    assert "smallest failing input hypothesis found" in messages["three_mistakes", "task2_best_pair_hidden"]
    assert "smallest failing input hypothesis found" in messages["changes_with_its_calls", "task1_count_pairs_hidden"]
    assert "failed once but not when run again" in messages["changes_with_its_calls", "task3_merge_word_hidden"]
    # Kept, hypothesis ran only to shrink the failures of the wrong notebooks' property tests (5 of them), not once
    # per property test of each notebook (4 per notebook, 3 notebooks).
    assert drawn_afresh == 4 * len(SUBMISSIONS)
    assert sorted(runs) == ["best_pair", "count_pairs", "count_pairs", "merge_word", "train"]


def recorded_inputs() -> list[str]:
    """The inputs the hidden test of lab 01's ``train`` draws afresh (its learner in this process: nothing kept)."""
    import bpe_ref.course.checks.lab01_naive_bpe as graders

    seen: list[str] = []

    def train(pretoken_counts, num_merges):
        return []

    def judge(args):  # passes every input: no shrinking, only the inputs drawn
        seen.append(repr(args))

    running.check_property(graders.TRAIN_TASK, train, graders.train, graders.train_inputs, max_examples=60,
                           judge=judge)
    return seen


def test_the_kept_inputs_are_those_a_fresh_run_draws_and_a_new_seed_draws_others(monkeypatch):
    import bpe_ref.course.checks.lab01_naive_bpe as graders

    monkeypatch.setattr(running, "_KEPT", {"seed": None, "tests": {}})

    def kept(seed):
        with hidden_seed(seed):
            return running.class_inputs(graders.TRAIN_TASK, graders.train, graders.train_inputs, 60, False)

    first = kept(SEED)
    assert kept(SEED) is first  # the class's: drawn once
    with hidden_seed(SEED):
        assert [repr(args) for args in first.inputs] == recorded_inputs()
    assert first.expected == [graders.train(dict(counts), merges) for counts, merges in first.inputs]
    other = kept(SEED + 1)  # a self-grade's new seed
    assert other.inputs != first.inputs
    again = kept(SEED)
    assert again is not first and again.inputs == first.inputs  # a regrade with the class's seed draws the same


def test_a_seed_draws_the_same_inputs_whatever_modules_are_loaded(tmp_path, monkeypatch):
    """Hypothesis mixes in constants from the source of the local modules loaded so far: a grader importing a module
    halfway through a class changed the inputs the same seed drew for the notebooks after it."""
    with hidden_seed(SEED):
        before = recorded_inputs()
    (tmp_path / "words_of_a_later_module.py").write_text(
        'WORDS = ["cab", "bca é", "é é", "acé", "bbc", "c a", "aé", "cc", "b é"]\nCOUNTS = [0, 3, 7, 9, 11, 12]\n',
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import words_of_a_later_module  # noqa: F401

    try:
        with hidden_seed(SEED):
            assert recorded_inputs() == before
    finally:
        sys.modules.pop("words_of_a_later_module", None)


def test_a_self_grade_draws_its_inputs_as_it_goes(monkeypatch, tmp_path):
    """``python -m bpe_ref grade`` grades one notebook with a fresh seed: nothing to replay, so nothing is drawn ahead.
    The notebook: lab 00's release with task 1 written (one property test, the others' skeletons failing at once; every
    solution's full marks through the command: tests/test_grading_labs.py)."""
    from bpe_ref.course.grade import autograde_notebook
    from test_grading_adversarial import complete

    lab = "00_pretokenization"
    (tmp_path / f"{lab}.ipynb").write_text(json.dumps(complete(lab, "task1_utf8_bytes_solution")), encoding="utf-8")
    kept, compared = [], []
    monkeypatch.setattr(running, "class_inputs", lambda *args, **kwargs: kept.append(args) or None)
    generated = running._run_hypothesis
    monkeypatch.setattr(running, "_run_hypothesis", lambda *args, **kwargs: compared.append(1) or generated(*args, **kwargs))
    cells = autograde_notebook(tmp_path / f"{lab}.ipynb", lab)
    assert {cell.grade_id for cell in cells if cell.earned == cell.possible > 0} == {"task1_utf8_bytes", "task1_utf8_bytes_hidden"}
    assert compared and not kept
