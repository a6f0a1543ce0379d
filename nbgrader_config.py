"""nbgrader configuration of *Fast BPE from Scratch* (the repository root is the course folder).

- ``solutions/<lab>/<lab>.ipynb`` is the nbgrader *source* (solutions and hidden tests);
- ``labs/<lab>/<lab>.ipynb`` is the *release*, produced by ``nbgrader generate_assignment`` and
  committed (``python -m bpe_ref.course.notebooks release`` regenerates it; a test keeps it exact);
- ``submitted/``, ``autograded/``, ``feedback/`` and ``gradebook.db`` are the instructor's state,
  created by nbgrader here and never committed (see ``.gitignore``).

solutions/README.md (the instructor guide) explains the commands. Every path here is relative to the folder nbgrader runs in,
so ``python -m bpe_ref grade`` can copy this file into a temporary course unchanged.
"""

import sys
import warnings

c = get_config()  # noqa: F821 (nbgrader provides get_config when it loads this file)

# nbgrader 0.9.6 creates a student's submission rows while SQLAlchemy's session autoflushes, and
# SQLAlchemy warns three times per student ("Object of type <SubmittedAssignment> not in session,
# add operation along 'Assignment.submissions' will not proceed", twice more for 'Student.submissions'
# and 'Notebook.submissions'). The rows are added right after, explicitly: the gradebook is complete
# (the instructor guide's test checks the scores it exports). Only these three messages are hidden.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted(Assignment|Notebook)> not in session")

# nbgrader's log prints text a submission chose (a cell's grade_id it does not know, in a warning): each line is printed
# with its control characters written as escapes, so that escape codes in it cannot rewrite what the terminal shows.
c.Application.logging_config = {"handlers": {"console": {"class": "bpe_ref.course.printable.PrintableStreamHandler"}}}

# nbgrader's feedback and formgrader pages render a markdown cell's HTML as it is: a submission's <script> ran in the
# instructor's browser, on the formgrader's origin. Its markdown keeps what markdown makes; HTML in it is shown as text.
# Code is highlighted by Python's lexer, not the one the notebook names: IPython's took minutes on a long crafted cell.
# A raw cell's text is shown as text too: nbconvert's clean_html took seconds a page on a raw cell of nested tags, and its
# strip_files_prefix on a markdown line of many "[": both in time linear in the text here. What a page highlights, makes
# HTML of or colours (ansi2html) is bounded in all (printable.RENDERED_NOTEBOOK_CHARS): past it, cells and outputs are text.
c.HTMLExporter.filters = {"markdown2html": "bpe_ref.course.printable.markdown_html",
                          "highlight_code": "bpe_ref.course.printable.code_html",
                          "clean_html": "bpe_ref.course.printable.clean_html",
                          "strip_files_prefix": "bpe_ref.course.printable.strip_files_prefix",
                          "ansi2html": "bpe_ref.course.printable.ansi_html"}

# nbgrader's formgrader (in the Jupyter server, which loads this file before it builds its pages) wrote the ids in the
# address it was opened at into its pages' scripts as they were, ran the nbgrader_config.py of any folder ?path= named,
# and served a submission's files as pages of its origin; nbgrader's JSON answers are pages too (/nbgrader_version
# wrote the version asked for into one): a link a learner sent, or put in their notebook, ran their script, or their
# code. Its pages escape what they write, it opens this course only, and those files and answers come sandboxed.
if "nbgrader.server_extensions.formgrader.formgrader" in sys.modules:
    from bpe_ref.course.printable import guard_nbgrader_server

    guard_nbgrader_server()

# nbgrader stamps a new gradebook with its migrations' head revision by running `alembic heads` in a second process,
# which imports nbgrader again (4-6 s of CPU, and `alembic` must be on PATH); each cell's metadata it checks against its
# schema checks the schema too. The installed `nbgrader` command (the instructor guide's) reads the revision in its own
# process and checks the schema once, as the course's launcher does (bpe_ref/course/nbgrader_main.py).
from bpe_ref.course.nbgrader_main import gradebook_revision_in_process, schema_checked_once  # noqa: E402

gradebook_revision_in_process()
schema_checked_once()

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

# Grading: the learner's kernel never decides a grade. Autograde runs the submission's cells in a
# confined worker process and every test cell's grader in nbgrader's own process, which holds the
# reference and decides (bpe_ref/course/trusted/autograde.py). The rest of nbgrader's pipeline,
# scoring, late penalties, gradebook and feedback, is unchanged.
#
# A submission of more JSON objects and arrays than any lab's needs (200,000) is not read: nbgrader reads and
# validates each as a node before any preprocessor runs (1,000,000 "{}" in a cell's metadata: 38 s of CPU, 2.3 GB).
# Not graded; nbgrader's log says why.
c.Autograde.exporter_class = "bpe_ref.course.trusted.autograde.BoundedNotebookExporter"
c.Autograde.autograde_preprocessors = [
    "bpe_ref.course.trusted.autograde.TrustedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# CPU seconds per call of a learner's function and per cell of the learner's (an infinite loop fails that cell): of the
# worker and every process it started, measured from outside, so that how busy the machine is decides no grade; one that
# waits (sleeps, blocks) is stopped after wall_factor times as many seconds of wall time in which none of its processes
# ran or waited for a CPU (the backstop). total_timeout is CPU time too, the grader's and the learner's processes', with
# a backstop of wall_factor times it in wall time.
c.TrustedExecute.call_timeout = 30
c.TrustedExecute.cell_timeout = 30
c.TrustedExecute.wall_factor = 4
c.TrustedExecute.total_timeout = 300  # CPU seconds per notebook, its cells and calls included; what is left then fails

# The exchange's inbound folder is the learners': a link there made nbgrader's collect copy the file it points to, with
# the instructor's rights (the course's source notebook, the solutions, as a learner's submission). This one follows none.
c.ExchangeFactory.collect = "bpe_ref.course.trusted.autograde.LinkFreeCollect"

# nbgrader's CSV export joins fields with commas as they are: a student id (the name of a folder handed in to the
# exchange) with commas and line breaks wrote a classmate's row, one starting with "=" a formula. This one quotes them.
c.ExportApp.plugin_class = "bpe_ref.course.trusted.autograde.QuotedCsvExport"

# Validate (nbgrader validate, the Validate button) still runs the notebook in a kernel, with the
# visible tests only: advice, not a grade. There an infinite loop fails its own cell after 30 s
# (the kernel is interrupted), and a kernel that cannot be interrupted or dies fails the whole
# notebook instead of letting later test cells pass (nbgrader issue 427).
c.Execute.timeout = 30
c.Execute.interrupt_on_timeout = True
c.Execute.raise_on_iopub_timeout = True

# A learner who deletes a test cell gets it back, run, and graded: deleting a failing test cannot
# earn its points, and deleting one by accident does not cost them. nbgrader's own OverwriteCells
# fails on a deleted test cell that follows a read-only cell; this one puts it back there too.
c.OverwriteCells.add_missing_cells = True
c.Autograde.sanitize_preprocessors = [
    "bpe_ref.course.trusted.autograde.BoundedSubmission",  # cells past any lab's need cost nbgrader outside the budget
    "nbgrader.preprocessors.ClearOutput",
    "bpe_ref.course.trusted.autograde.NamedDeduplicateIds",  # nbgrader's, which fails on a grade cell with no grade_id
    "nbgrader.preprocessors.OverwriteKernelspec",
    "bpe_ref.course.trusted.autograde.RestoringOverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# What the release shows in place of a solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
