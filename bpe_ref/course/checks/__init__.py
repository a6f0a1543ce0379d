"""Graders of the course's labs: one module per lab, one function per task, the mechanics once.

Layout
------
- :mod:`.spec`: what a lab declares: the task's function (:class:`~.spec.Task`), its inputs, and the
  lab as one :class:`~.spec.Lab` of :class:`~.spec.TaskGraders` (visible cases, hidden cases and
  strategy, how-checks, stand-ins, policy).
- :mod:`.compare` (exact comparison, failure messages and hints), :mod:`.trap` (refusing the reference),
  :mod:`.running` (calling the learner's function, fixed and generated cases, the derived graders),
  :mod:`.measured` (how-checks measured from outside the learner's code); :mod:`.core` names them all.
- ``lab<NN_name>.py``, one per lab: its cases, strategies, hints and how-checks, and at its end the
  ``Lab`` declaration, whose ``install`` defines ``check_<task>(fn)`` (the visible test cell) and
  ``check_<task>_properties(fn)`` (the hidden one). A failure raises ``CheckFailed`` (an
  ``AssertionError``, from :mod:`bpe_ref.course.trusted.verdicts`) whose first line is the call, what
  was expected and what came back.
- :mod:`.fresh`: loads a lab's graders and the reference fresh from disk.

How a test cell calls a grader
------------------------------
::

    from runpy import run_module
    graders = run_module("bpe_ref.course.checks.fresh")["graders"]("01_naive_bpe")
    graders.check_merge_word(merge_word)

Where a verdict counts
----------------------
In a learner's own kernel, a test cell loads the graders fresh from disk (:mod:`.fresh`, a private
copy that reassigning ``bpe_ref`` names in the notebook does not reach) and calls them on the
notebook's functions: instant advice, which code in the same kernel could fool, but only to fool
its author. When a lab is graded (``nbgrader autograde``, ``python -m bpe_ref grade``), none of
that runs: the same graders run in the trusted process of :mod:`bpe_ref.course.trusted`, and the
learner's functions run in a confined worker that exchanges JSON with them. The threat model, what
is defended and what is not, is in ``bpe_ref/course/trusted/THREAT_MODEL.md``.
"""
