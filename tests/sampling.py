"""How much of the lab-by-lab work the default run does, and the switch that does it all.

The default run (what CI runs, within its time budget) grades every lab's solution and release
and the attacks that need no lab of their own choosing, and sends the expensive lab-by-lab work
(the attacks built from each lab's functions, feedback and export for a class) to a fixed sample
of labs that covers every kind of task: bytes and special tokens (00), processes and files (03), a
heap trainer (05) and an encoder (08). Running a solution notebook top to bottom with its
exploration goes to two of them (00 and 03), and ``python -m bpe_ref grade`` grades lab 00's
solution (tests/test_grading_labs.py). ``BPE_EXHAUSTIVE=1`` runs every lab (about three times as
long; maintainers run it before a release, see CONTRIBUTING.md); ``BPE_EVERY_ATTACK=1``, its older
name, does the same.
"""

from __future__ import annotations

import os

import pytest

EXHAUSTIVE = bool(os.environ.get("BPE_EXHAUSTIVE") or os.environ.get("BPE_EVERY_ATTACK"))
SAMPLED_LABS = ("00_pretokenization", "03_parallel", "05_heap", "08_linear_encoding")
# Running a solution notebook top to bottom checks that its exploration and plots run: two labs whose
# explorations differ most (bytes and plots; processes and timing) stand for the rest.
NOTEBOOK_RUN_LABS = ("00_pretokenization", "03_parallel")


def sampled(lab: str) -> bool:
    """Whether the run does the expensive lab-by-lab work for ``lab``."""
    return EXHAUSTIVE or lab in SAMPLED_LABS


def skip_unless_sampled(lab: str, what: str, sample: tuple[str, ...] = SAMPLED_LABS) -> None:
    """Skip, saying why and how to run it, ``what`` for a lab outside ``sample``."""
    if not (EXHAUSTIVE or lab in sample):
        pytest.skip(f"{lab}: {what} runs on the sampled labs ({', '.join(sample)}); "
                    "BPE_EXHAUSTIVE=1 runs it on every lab")
