"""How much of the lab-by-lab work the default run does, and the switch that does it all.

The default run (what CI runs, within its time budget) grades every lab's solution and release
(with feedback and export for the class) and the attacks that need no lab of their own choosing,
and sends the expensive lab-by-lab work to fixed samples of labs. The attacks built from each
lab's functions on its blank release (the reference imported or read from disk: cheap, nothing
runs far, but a submission each; a table of the visible answers goes to labs 00 and 01 only,
tests/test_grading_adversarial.py's ``TABLE_LABS``) go to one lab per grading path,
the cheapest that shows it: the worker given no module of the package (00, bytes and special
tokens; 01, a trainer graded on CS336's corpus.en, whose published merges a table can replay),
given modules of the package (07) and allowed processes and files (03). The submissions built
from each lab's complete notebook with one function broken (each
grades nearly the whole lab again, 5-15 s of CPU) go to lab 00 only: their code path (the
reference's helpers bound as stand-ins for the learner's, a task costing its own points) is the
same in every lab and runs in every lab's honest grading too (each later task is graded with
stand-ins, from the modules a lab gives the worker where it does), and
tests/test_stand_ins.py checks every lab's stand-ins themselves. Running a solution notebook top
to bottom with its exploration goes to one of labs 00 and 03 a run, drawn (the corpora their explorations time
cut to their first stories: the test needs them to run and plot, not their timings), and ``python -m
bpe_ref grade`` grades lab 00's solution (tests/test_grading_labs.py). nbgrader's feedback is
rendered for each lab's honest work, lab 00's release, and for a few of lab 00's notebooks that the grader
changed (tests/test_grading_adversarial.py's ``FEEDBACK``), not for every submission; tests/test_mistakes.py
grades each mistake marked ``seeded`` once, under the derandomized draw or one of its secret seeds (``drawn``), and
lab 02's trainer without its filter (a measured mistake) in the hidden test only. tests/test_sampling.py
checks that the sampled labs still cover every grading path and that every attack is graded on some lab.
A family of alike costly cases runs one member, drawn from the run's sample seed (``skip_unless_drawn``), and the
lab-by-lab tests of mistakes and hints take turns by lab (one heavy lab and ``LIGHT_LABS_PER_RUN`` others a run,
``drawn_labs``; ``BPE_LABS=NN`` adds a lab).
tests/test_grading_redteam.py's varied copies of the fixed hidden cases (section 27) are checked under one of the 3
secret seeds a run (``drawn``), and lab 00's class is graded again in two jobs with four of its members.
``BPE_EXHAUSTIVE=1`` runs every lab (about three times as long; maintainers run it before a release, see
CONTRIBUTING.md); ``BPE_EVERY_ATTACK=1``, its older name, does the same. The tests of the reference algorithms
read ``EXHAUSTIVE`` too: by default their differential runs take heads of the corpora and fewer merges and examples,
under it the full sizes.
"""

from __future__ import annotations

import hashlib
import os
import zlib

import pytest

EXHAUSTIVE = bool(os.environ.get("BPE_EXHAUSTIVE") or os.environ.get("BPE_EVERY_ATTACK"))
SAMPLED_LABS = ("00_pretokenization", "01_naive_bpe", "03_parallel", "07_heap_encoding")
# The lab-dependent submissions built on a complete notebook (a broken helper or last function).
COMPLETE_NOTEBOOK_LABS = ("00_pretokenization",)
# Running a solution notebook top to bottom checks that its exploration and plots run: two labs whose
# explorations differ most (bytes and plots; processes and timing) stand for the rest, one of them a run (drawn).
NOTEBOOK_RUN_LABS = ("00_pretokenization", "03_parallel")


def sampled(lab: str, sample: tuple[str, ...] = SAMPLED_LABS) -> bool:
    """Whether the run does the expensive lab-by-lab work of ``sample`` for ``lab``."""
    return EXHAUSTIVE or lab in sample


def skip_unless_sampled(lab: str, what: str, sample: tuple[str, ...] = SAMPLED_LABS) -> None:
    """Skip, saying why and how to run it, ``what`` for a lab outside ``sample``."""
    if not (EXHAUSTIVE or lab in sample):
        pytest.skip(f"{lab}: {what} runs on the sampled labs ({', '.join(sample)}); "
                    "BPE_EXHAUSTIVE=1 runs it on every lab")


# A family of alike costly cases (the same check failing the same way on a few spellings of one mistake) runs one
# member by default, drawn from the run's sample seed, so that different runs cover different members over time:
# tests/conftest.py draws the seed once per run, in the process that starts xdist's workers (they inherit it), and
# prints it in the header; BPE_SAMPLE_SEED=N takes the same members again. BPE_EXHAUSTIVE=1 runs every member.
def sample_seed() -> int:
    """The run's sample seed (0 when the run was not started by pytest with tests/conftest.py)."""
    return int(os.environ.get("BPE_SAMPLE_SEED", "0"))


def _draw(text: str) -> int:
    """A number drawn from ``text``, alike for no two texts. Not a CRC: a CRC is linear, so the CRCs of
    "SEED:labs:02" and "SEED:labs:04" differ by the same bits whatever the seed is, and the labs ranked by them came in
    5 orders in all (labs 04 and 08 drawn by one run in 8, 02 by one in 2); members of two families were drawn
    together in 4 pairs of the 16."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def drawn(family: str, members) -> str:
    """The member of ``family`` (its names, e.g. a parametrized test's ids) this run takes."""
    members = list(members)
    return members[_draw(f"{sample_seed()}:{family}") % len(members)]


def skip_unless_drawn(family: str, member: str, members) -> None:
    """Skip ``member`` of ``family`` unless this run draws it (see :func:`drawn`) or ``BPE_EXHAUSTIVE=1``."""
    taken = drawn(family, members)
    if not EXHAUSTIVE and member != taken:
        pytest.skip(f"{family}: this run takes one of {len(list(members))}, {taken!r} (BPE_SAMPLE_SEED={sample_seed()}); "
                    "BPE_EXHAUSTIVE=1 runs every one")


# The lab-by-lab tests of mistakes and hints (every test of tests/test_mistakes.py, and the tests of one lab in
# tests/test_checks_labs.py: about a third of the suite's work when every lab runs) take turns by lab: the default run
# takes one of the six labs whose mistakes cost most (HEAVY_LABS: measured trainers and encoders, 45-50 s of a run's
# CPU each; labs 06 and 07, once among the others, cost as much, and a run that drew both took some 50 s more than one
# that drew two of the rest, 15-25 s each) and LIGHT_LABS_PER_RUN of the others, drawn from the run's sample seed, so
# that every run costs about the same, and the labs that BPE_LABS names (their numbers, BPE_LABS=04,05: run it for the
# labs whose graders or solutions you changed); BPE_EXHAUSTIVE=1 takes every lab. Every lab's solution and release
# are still graded in every run (tests/test_grading_adversarial.py).
HEAVY_LABS = ("02", "04", "05", "06", "07", "08")
LIGHT_LABS_PER_RUN = 2


def drawn_labs(numbers: list[str]) -> set[str]:
    """The lab numbers (``"04"``) of ``numbers`` whose lab-by-lab tests this run takes (see :data:`HEAVY_LABS`)."""
    if EXHAUSTIVE:
        return set(numbers)
    asked = {number.strip().zfill(2) for number in os.environ.get("BPE_LABS", "").split(",") if number.strip()}

    def ranked(labs: list[str]) -> list[str]:
        return sorted(labs, key=lambda number: _draw(f"{sample_seed()}:labs:{number}"))

    heavy = ranked([number for number in numbers if number in HEAVY_LABS])[:1]
    light = ranked([number for number in numbers if number not in HEAVY_LABS])[:LIGHT_LABS_PER_RUN]
    return set(heavy + light) | (asked & set(numbers))


def skip_unless_lab_drawn(number: str, numbers: list[str]) -> None:
    """Skip a lab-by-lab test of lab ``number`` unless this run takes that lab (:func:`drawn_labs`)."""
    taken = drawn_labs(numbers)
    if number not in taken:
        pytest.skip(f"lab {number}'s mistakes and hints: this run takes labs {', '.join(sorted(taken))} "
                    f"(BPE_SAMPLE_SEED={sample_seed()}; BPE_LABS=NN adds a lab, BPE_EXHAUSTIVE=1 takes all)")


def one_of(key: str, choices: tuple):
    """The one of ``choices`` the default run takes for ``key`` (e.g. a test and its parameters), where
    ``BPE_EXHAUSTIVE=1`` takes them all: spread over the keys, and the same on every run and machine (a CRC)."""
    return choices[zlib.crc32(key.encode("utf-8")) % len(choices)]


# The red team's costly attacks (tests/test_grading_redteam.py) also come in families of alike cases: the same check
# defeated by several spellings of one attack, each tried on its own submission (5-25 s of CPU time each). The default
# run takes one member of each family below, drawn from the run's sample seed among the family's tests that the run
# selected (``-k`` or a node id that names one member runs it), and one of the two grading paths of every test
# parametrized by them (``whole_class``: a self-grade, or a class's kept inputs replayed) for each of its other
# parameters; BPE_EXHAUSTIVE=1 runs them all. A family's name says the check its members try to defeat.
ALIKE_ATTACKS = {
    "lab 04 task 3's cost per merge, measured on a corpus a trainer scans a part of": (
        "test_a_scanning_trainer_on_the_frequent_words_alone_loses_lab_04_task_3",
        "test_a_scanning_trainer_over_the_words_of_the_first_ranked_pairs_loses_lab_04_task_3",
        "test_a_scanning_trainer_over_the_words_of_the_pairs_first_ranked_after_the_first_merge_loses_lab_04_task_3",
        "test_a_scanning_trainer_over_the_words_of_the_few_pairs_first_ranked_after_the_first_merge_loses_lab_04_task_3",
        "test_a_scanning_trainer_over_the_words_of_the_hot_pairs_loses_lab_04_task_3",
    ),
    "a trainer's cost per merge, against its one-merge run padded to a floor": (
        "test_a_recounting_trainer_that_pads_its_one_merge_run_loses_task_3",
        "test_in_the_worker_a_v4_that_visits_every_word_padded_to_a_floor_fails_the_cost_per_merge",
        "test_in_the_worker_a_v5_with_a_max_scan_padded_to_a_floor_fails_the_cost_per_merge",
        "test_in_the_worker_a_replay_padded_on_short_pretokens_fails_the_growth_check",
    ),
    "lab 03 task 4's count in several processes, done in one": (
        "test_worker_processes_started_for_show_while_threads_count_lose_lab_03_task_4",
        "test_one_worker_process_counting_the_whole_file_loses_lab_03_task_4",
        "test_a_serial_count_in_one_worker_of_a_pool_for_show_loses_lab_03_task_4",
        "test_a_file_read_in_halves_and_counted_in_one_process_loses_lab_03_task_4",
        "test_halves_handed_through_a_pipe_or_a_mapped_file_lose_lab_03_task_4",
    ),
    "the CPU time of lab 03's processes that nobody waits for": (
        "test_cpu_time_of_processes_nobody_waits_for_counts_against_the_call_and_the_notebook",
    ),
    "lab 09 task 1's collections, counted while the collector is left on": (
        "test_a_collector_left_on_fails_by_the_cpu_time_of_costly_collections",
    ),
}
GRADING_PATH_PARAMETER = "whole_class"


def alike_family(module: str, name: str, params: dict) -> str | None:
    """The family (see :data:`ALIKE_ATTACKS`) of the test ``name`` of ``module`` with parameters ``params``: its
    family's name, or the test's own name and parameters but its grading path; None for a test that runs every time."""
    if module != "test_grading_redteam.py":
        return None
    family = next((family for family, names in ALIKE_ATTACKS.items() if name in names), None)
    if family is None and GRADING_PATH_PARAMETER in params:
        family = name + repr(sorted((key, repr(value)) for key, value in params.items() if key != GRADING_PATH_PARAMETER))
    return family
