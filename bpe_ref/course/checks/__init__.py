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

Threat model (what the graders defend against, and what not)
------------------------------------------------------------
Learners run arbitrary Python in the same process as the tests, so nothing in-process is
tamper-proof in an absolute sense. The graders are built to resist what a learner realistically
does, by accident or as a casual shortcut:

1. *Reassigning or monkeypatching graders or the reference* from a notebook cell, e.g.
   ``bpe_ref.course.checks.lab01_naive_bpe.check_train = lambda f: None``,
   ``import bpe_ref.train.step01_naive as n; n.train = my_train``, or patching ``core.same``. Defence:
   every test cell loads the graders, the comparison helpers and the reference functions fresh
   from the files on disk, as a private copy under a random package name (:mod:`.fresh`, run
   with :func:`runpy.run_module`, so not taken from ``sys.modules``). Expected values come from
   that copy. Defining a name ``graders`` or ``check_train`` in the notebook is overwritten by
   the test cell itself.
2. *Deleting or editing a test cell*: nbgrader restores locked cells and, with
   ``OverwriteCells.add_missing_cells`` (set in ``nbgrader_config.py``), re-adds deleted ones.
3. *Calling the reference solver* instead of writing the function. Defence, twice: the
   function's code (and that of the learner's functions it calls, its defaults and closure) is
   inspected for ``bpe_ref`` modules, functions, imports and module names; and while it runs,
   every function of the ``bpe_ref`` modules in ``sys.modules`` is swapped for a trap that
   records the call and raises (the private copy is unaffected).
4. *Results that only look right*: values are rebuilt from exact builtin types before comparing,
   so an object whose ``__eq__`` always returns ``True``, a ``str`` for ``bytes`` or ``True`` for
   ``1`` fails. Inputs are deep-copied, so the learner cannot corrupt the reference's input.
5. *Hypothesis switched off* (settings profiles, patched ``given``): explicit settings on every
   property, and a property that tried no input fails.

Out of scope, and documented as such: code that patches the standard library or third-party
modules the graders use (``runpy``, ``importlib``, ``hypothesis``), walks the grader's stack
frames, installs import hooks, or edits files on disk. An instructor who needs more than this
runs the autograder in a sandbox and reviews flagged submissions by hand.
"""
