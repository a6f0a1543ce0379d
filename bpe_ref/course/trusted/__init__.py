"""Trusted grading: the score comes from a process the submission cannot reach.

- :mod:`.worker`: the untrusted side, standard-library modules each read on its own: the worker loop
  (``worker/__main__.py``, a fresh ``python -I -S`` process that runs the submission's cells and answers calls of its
  functions), the wire format both sides import (:mod:`.worker.wire`), its confinement (:mod:`.worker.confinement`)
  and its keeper (:mod:`.worker.keeper`).
- :mod:`.sandbox`: the trusted side's handle on a worker (deadlines, restarts, a function proxy).
- :mod:`.autograde`: the nbgrader preprocessor that replaces ``Execute`` in ``nbgrader autograde`` (and in ``python -m
  bpe_ref grade``): the graders run here, with the reference, and decide.
- :mod:`.cells`: which grader each test cell runs, recorded from the source notebooks.
- :mod:`.review`: flags for an instructor's review; :mod:`.measure_worker`: the kernel's counters.
- :mod:`.stand_ins`: the reference's helpers, sent as source, bound in place of the learner's earlier functions while
  a later task is graded, so that one bug costs one task's points.
- :mod:`.verdicts`: what the graders share with this side (the verdicts, the hidden seed). Nothing here imports the
  graders (:mod:`bpe_ref.course.checks`): :mod:`.autograde` finds a lab's graders by name when it grades.

Threat model: ``THREAT_MODEL.md`` beside this file (what is defended, how, and what is not). "Section N" there
is the section of ``tests/test_grading_redteam.py`` that shows the attack.
"""
