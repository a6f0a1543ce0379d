"""nbgrader configuration of *Fast BPE from Scratch* (the repository root is the course folder).

- ``solutions/<lab>/<lab>.ipynb`` is the nbgrader *source* (solutions and hidden tests);
- ``labs/<lab>/<lab>.ipynb`` is the *release*, produced by ``nbgrader generate_assignment`` and
  committed (``python -m bpe_ref.course.notebooks release`` regenerates it; a test keeps it exact);
- ``submitted/``, ``autograded/``, ``feedback/`` and ``gradebook.db`` are the instructor's state,
  created by nbgrader here and never committed (see ``.gitignore``).

solutions/README.md (the instructor guide) explains the commands. Every path here is relative to the folder nbgrader runs in,
so ``python -m bpe_ref grade`` can copy this file into a temporary course unchanged.
"""

c = get_config()  # noqa: F821 (nbgrader provides get_config when it loads this file)

c.CourseDirectory.course_id = "fast-bpe"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "labs"

# Files of solutions/<lab>/ that must never reach labs/ (nor be copied into a submission when it is
# autograded): the usual editor and cache clutter. (The drill answers of the theory pages are not
# here: they live in theory/drills/, part of the handout.)
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints",
    "*.pyc",
    "__pycache__",
    "feedback",
    ".*",
]

# Per cell: an infinite loop fails its own cell after 30 s (the kernel is interrupted) and the rest
# of the notebook still runs. The slowest graded cell (training on corpus.en) takes a few seconds.
c.Execute.timeout = 30
# A kernel that cannot be interrupted or dies fails the whole notebook instead of letting later
# test cells count as passed (nbgrader issue 427): that is nbclient's behaviour with these
# settings, and tests/test_grading_class.py checks it.
c.Execute.interrupt_on_timeout = True
c.Execute.raise_on_iopub_timeout = True

# A learner who deletes a test cell gets it back, run, and graded: deleting a failing test cannot
# earn its points, and deleting one by accident does not cost them.
c.OverwriteCells.add_missing_cells = True

# What the release shows in place of a solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
