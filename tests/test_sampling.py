"""The default run's samples (tests/sampling.py) still cover every grading path.

The default run sends the lab-by-lab attacks to a few labs, one per grading path, and
``BPE_EXHAUSTIVE=1`` runs them on every lab. A grading path is what a lab's graders let the
confined worker have (``GRADING_POLICY``): modules of the package or none, processes or none. A new
lab with a path no sampled lab has, or a sample that loses one, fails here rather than leaving that
path to the on-demand run. Every attack of the adversarial class is graded on one lab at least. A family
of alike costly cases runs one member a run, drawn from the run's sample seed, and every member over runs.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bpe_ref.course.grade import lab_grading_policy
from bpe_ref.course.notebooks import lab_names
from bpe_ref.course.trusted import cells as test_cells
from sampling import COMPLETE_NOTEBOOK_LABS, NOTEBOOK_RUN_LABS, SAMPLED_LABS, sampled

LABS = lab_names()


def grading_path(lab: str) -> tuple[bool, bool]:
    """``(modules given, processes allowed)`` of the worker that runs ``lab``'s code."""
    policy = lab_grading_policy(lab)
    return bool(policy.get("provided")), bool(policy.get("allow_processes"))


def replays_published_answers(lab: str) -> bool:
    """Whether a grader checks a trainer on CS336's corpus.en, whose published merges a table can replay."""
    return any(spec.grader.endswith("on_corpus_en") for spec in test_cells.load(lab))


def test_the_sampled_labs_cover_every_grading_path():
    every = {grading_path(lab) for lab in LABS}
    sampled = {grading_path(lab) for lab in SAMPLED_LABS}
    assert len(every) > 1, every  # a policy that says nothing would make this test pass on anything
    assert every == sampled, f"paths no sampled lab has: {every - sampled}; add one lab of each to sampling.SAMPLED_LABS"


def test_a_sampled_lab_has_a_trainer_graded_on_published_answers():
    from test_grading_adversarial import TABLE_LABS

    assert any(replays_published_answers(lab) for lab in LABS)
    assert any(replays_published_answers(lab) for lab in SAMPLED_LABS)
    assert any(replays_published_answers(lab) for lab in TABLE_LABS)  # where the table of visible answers is graded


def test_every_attack_is_graded_on_some_lab_by_default():
    # tests/test_grading_adversarial.py: each submission its builders make is in the default class of one lab at least
    # (the lab-independent ones on the every-attack lab, the others on a sample of labs); the wrong method whose calls
    # look right on one of its labs.
    from test_grading_adversarial import METHOD_FOR_SHOW, ONE_LAB, graded_by_default, submission_builders

    every = set().union(*(submission_builders(lab, Path("course")) for lab in LABS))
    graded = set().union(*(graded_by_default(lab) for lab in LABS))
    assert len(every) > 20 and every == graded, f"attacks no lab's default class holds: {every - graded}"
    assert set(ONE_LAB) <= set(LABS) and any(sampled(lab) for lab in METHOD_FOR_SHOW)


def test_the_other_samples_are_labs_of_the_course():
    assert set(SAMPLED_LABS) <= set(LABS) and set(NOTEBOOK_RUN_LABS) <= set(LABS)
    assert set(COMPLETE_NOTEBOOK_LABS) <= set(SAMPLED_LABS)


def test_the_attacks_that_depend_on_the_policy_run_on_a_lab_of_each():
    # tests/test_grading_adversarial.py: starting a process and killing the grader are tried on a lab
    # whose code may start processes (PROCESS_LABS) and on the lab holding every attack, which may not.
    from test_grading_adversarial import EVERY_ATTACK_LABS, PROCESS_LABS

    assert PROCESS_LABS and all(grading_path(lab)[1] for lab in PROCESS_LABS)
    assert not all(grading_path(lab)[1] for lab in EVERY_ATTACK_LABS)


def test_a_family_runs_one_member_a_run_and_every_member_over_runs(monkeypatch):
    import sampling

    members = ["left", "right", "both", "count"]
    monkeypatch.setattr(sampling, "EXHAUSTIVE", False)
    taken = set()
    for seed in range(64):
        monkeypatch.setenv("BPE_SAMPLE_SEED", str(seed))
        ran = []
        for member in members:
            try:
                sampling.skip_unless_drawn("a family", member, members)
                ran.append(member)
            except pytest.skip.Exception:
                pass
        assert ran == [sampling.drawn("a family", members)], (seed, ran)  # one, the same that drawn names
        taken.update(ran)
    assert taken == set(members)  # some run takes each
    monkeypatch.setattr(sampling, "EXHAUSTIVE", True)
    for member in members:
        sampling.skip_unless_drawn("a family", member, members)  # BPE_EXHAUSTIVE=1: every one


def test_the_lab_by_lab_tests_take_turns_by_lab(monkeypatch):
    """A run takes the mistakes and hints of one heavy lab and two others, drawn from its sample seed, and those BPE_LABS names;
    every lab is taken by some of a few runs, and by BPE_EXHAUSTIVE=1."""
    import sampling
    from conftest import lab_of

    numbers = [lab[:2] for lab in LABS]
    monkeypatch.setattr(sampling, "EXHAUSTIVE", False)
    monkeypatch.delenv("BPE_LABS", raising=False)
    taken = set()
    for seed in range(16):
        monkeypatch.setenv("BPE_SAMPLE_SEED", str(seed))
        drawn = sampling.drawn_labs(numbers)
        assert len(drawn & set(sampling.HEAVY_LABS)) == 1 and len(drawn - set(sampling.HEAVY_LABS)) == sampling.LIGHT_LABS_PER_RUN, drawn
        assert drawn <= set(numbers), drawn
        left_out = sorted(set(numbers) - drawn)
        if left_out:
            with pytest.raises(pytest.skip.Exception, match=f"lab {left_out[0]}'s mistakes"):
                sampling.skip_unless_lab_drawn(left_out[0], numbers)
            monkeypatch.setenv("BPE_LABS", f"{int(left_out[0])}, 99")  # a number without its zero, one of no lab
            assert sampling.drawn_labs(numbers) == drawn | {left_out[0]}
            monkeypatch.delenv("BPE_LABS")
        taken |= drawn
    assert taken == set(numbers)
    monkeypatch.setattr(sampling, "EXHAUSTIVE", True)
    assert sampling.drawn_labs(numbers) == set(numbers)

    # Over many runs every lab is drawn about as often as the others of its kind (a heavy lab by one run in 6, another by
    # 2 in 5), and the runs draw most of the 60 sets of labs (6 heavy, 10 pairs of the 5 others): the labs once ranked
    # by a CRC came in 5 sets in all, labs 04 and 08 drawn by one run in 8.
    monkeypatch.setattr(sampling, "EXHAUSTIVE", False)
    counts = dict.fromkeys(numbers, 0)
    sets = set()
    runs = 2_000
    for seed in range(runs):
        monkeypatch.setenv("BPE_SAMPLE_SEED", str(100_000 + 37 * seed))
        drawn = sampling.drawn_labs(numbers)
        sets.add(frozenset(drawn))
        for number in drawn:
            counts[number] += 1
    heavy = [number for number in numbers if number in sampling.HEAVY_LABS]
    light = [number for number in numbers if number not in sampling.HEAVY_LABS]
    for group, share in ((heavy, 1 / len(heavy)), (light, sampling.LIGHT_LABS_PER_RUN / len(light))):
        for number in group:
            assert abs(counts[number] / runs - share) < 0.05, (number, counts[number] / runs, share)
    possible = len(heavy) * math.comb(len(light), sampling.LIGHT_LABS_PER_RUN)
    assert len(sets) > 0.9 * possible, (len(sets), possible)
    pairs = set()
    for seed in range(400):
        monkeypatch.setenv("BPE_SAMPLE_SEED", str(seed))
        pairs.add((sampling.drawn("family a", range(4)), sampling.drawn("family b", range(4))))
    assert len(pairs) == 16, sorted(pairs)  # two families' members drawn together in every pair

    class Test:  # what lab_of reads of a test: its name, and its parameters when it has some
        def __init__(self, name, **params):
            self.name, self.callspec = name, type("CallSpec", (), {"params": params})()

    assert lab_of(Test("test_lab04_a_v4_that_visits_every_word_fails_the_hidden_test")) == "04"
    assert lab_of(Test("test_labs07_to_09_a_mistake[x]", lab="08_linear_encoding")) == "08"
    assert lab_of(Test("test_labs_07_and_08_graders_read_gpt2_merges_without_its_vocabulary")) is None


def test_the_families_of_alike_attacks_name_tests_of_the_red_team():
    """Each family of ``sampling.ALIKE_ATTACKS`` names tests that exist (a renamed test would otherwise run every time,
    unnoticed) and the grading path of a test is a family of its own per other parameter."""
    import test_grading_redteam

    from sampling import ALIKE_ATTACKS, alike_family

    names = [name for family in ALIKE_ATTACKS.values() for name in family]
    assert len(names) == len(set(names)), "a test in two families"
    assert not [name for name in names if not callable(getattr(test_grading_redteam, name, None))]
    module = "test_grading_redteam.py"
    assert all(alike_family(module, name, {"how": "x", "whole_class": True}) == family
               for family, members in ALIKE_ATTACKS.items() for name in members)
    paths = [alike_family(module, "test_x", {"whole_class": whole_class, "lab": "03"}) for whole_class in (False, True)]
    assert paths[0] == paths[1] != alike_family(module, "test_x", {"whole_class": False, "lab": "04"})
    assert alike_family(module, "test_x", {"lab": "03"}) is None and alike_family("test_other.py", names[0], {}) is None
