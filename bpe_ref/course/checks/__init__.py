"""Graders of the course's labs: one module per lab, one function per task, the mechanics once.

Layout
------
- :mod:`bpe_ref.course.checks.core`: running the learner's function, exact comparison, hypothesis search
  and shrinking, refusing reference calls, messages. Shared by every lab.
- :mod:`bpe_ref.course.checks.lab00_pretokenization`, :mod:`~bpe_ref.course.checks.lab01_naive_bpe`,
  :mod:`~bpe_ref.course.checks.lab02_incremental`: ``check_<task>(fn)`` runs the task's fixed cases
  (the visible test cell); ``check_<task>_properties(fn)`` compares with the reference on
  hypothesis-generated inputs (the hidden test cell). A failure raises :class:`core.CheckFailed`
  (an ``AssertionError``) whose first line is the call, what was expected and what came back.
- :mod:`bpe_ref.course.checks.fresh`: loads a lab's graders and the reference fresh from disk.

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
is defended and what is not, is in :mod:`bpe_ref.course.trusted`.
"""
