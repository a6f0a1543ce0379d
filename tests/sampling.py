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
rendered for each lab's honest work and release, and for a few of lab 00's notebooks that the grader
changed (tests/test_grading_adversarial.py's ``FEEDBACK``), not for every submission; tests/test_mistakes.py
grades each mistake marked ``seeded`` under one of its secret seeds besides the derandomized draw (``one_of``), and
lab 02's trainer without its filter (a measured mistake) in the hidden test only. tests/test_sampling.py
checks that the sampled labs still cover every grading path and that every attack is graded on some lab.
A family of alike costly cases runs one member, drawn from the run's sample seed (``skip_unless_drawn``), and the
lab-by-lab tests of mistakes and hints take turns by lab (one heavy lab and ``LIGHT_LABS_PER_RUN`` others a run,
``drawn_labs``; ``BPE_LABS=NN`` adds a lab).
``BPE_EXHAUSTIVE=1`` runs every lab (about three times as long; maintainers run it before a release, see
CONTRIBUTING.md); ``BPE_EVERY_ATTACK=1``, its older name, does the same. The tests of the reference algorithms
read ``EXHAUSTIVE`` too: by default their differential runs take heads of the corpora and fewer merges and examples,
under it the full sizes.
"""

from __future__ import annotations

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


def drawn(family: str, members) -> str:
    """The member of ``family`` (its names, e.g. a parametrized test's ids) this run takes."""
    members = list(members)
    return members[zlib.crc32(f"{sample_seed()}:{family}".encode("utf-8")) % len(members)]


def skip_unless_drawn(family: str, member: str, members) -> None:
    """Skip ``member`` of ``family`` unless this run draws it (see :func:`drawn`) or ``BPE_EXHAUSTIVE=1``."""
    taken = drawn(family, members)
    if not EXHAUSTIVE and member != taken:
        pytest.skip(f"{family}: this run takes one of {len(list(members))}, {taken!r} (BPE_SAMPLE_SEED={sample_seed()}); "
                    "BPE_EXHAUSTIVE=1 runs every one")


# The lab-by-lab tests of mistakes and hints (every test of tests/test_mistakes.py, and the tests of one lab in
# tests/test_checks_labs.py: about a third of the suite's work when every lab runs) take turns by lab: the default run
# takes one of the four labs whose mistakes are measured trainers and encoders (HEAVY_LABS: three quarters of that
# work) and LIGHT_LABS_PER_RUN of the others, drawn from the run's sample seed, so that every run costs about the same,
# and the labs that BPE_LABS names (their numbers, BPE_LABS=04,05: run it for the labs whose graders or solutions you
# changed); BPE_EXHAUSTIVE=1 takes every lab. Every lab's solution and release are still graded in every run
# (tests/test_grading_adversarial.py).
HEAVY_LABS = ("02", "04", "05", "08")
LIGHT_LABS_PER_RUN = 3


def drawn_labs(numbers: list[str]) -> set[str]:
    """The lab numbers (``"04"``) of ``numbers`` whose lab-by-lab tests this run takes (see :data:`HEAVY_LABS`)."""
    if EXHAUSTIVE:
        return set(numbers)
    asked = {number.strip().zfill(2) for number in os.environ.get("BPE_LABS", "").split(",") if number.strip()}

    def ranked(labs: list[str]) -> list[str]:
        return sorted(labs, key=lambda number: zlib.crc32(f"{sample_seed()}:labs:{number}".encode("utf-8")))

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
