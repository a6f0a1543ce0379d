"""``python -m bpe_ref.course.nbgrader_main ARGS``: nbgrader's command line, started sooner.

The course runs nbgrader as a subprocess (``notebooks.run_nbgrader``: every ``grade``, and the
tests' hundred-odd gradings). Two costs of nbgrader's own are avoided here, neither changing what
nbgrader does:

- nbgrader imports ``jsonschema``, and ``jsonschema`` imports ``rfc3987_syntax`` when it is
  installed (``jupyter-events`` asks for ``jsonschema[format-nongpl]``), which builds 38 grammars
  at import time: about 1.2 s of CPU per process, for the IRI format checks of JSON Schema that
  neither nbformat nor nbgrader use. :func:`skip_unused_schema_formats` marks that module as
  absent, so ``jsonschema`` goes without those two format checks.
- A new gradebook is stamped with the newest revision of nbgrader's database migrations, which
  nbgrader finds by running the ``alembic heads`` command in a second Python process: about 4 s of
  CPU for every gradebook (each ``grade`` makes one). :func:`gradebook_revision_in_process` reads
  the same revision from the same migration scripts with alembic's library, in this process.

The rest is nbgrader's own ``main``. :func:`run_in_process` runs nbgrader's commands in the calling
process instead (``python -m bpe_ref grade``: the two commands of a self-grade then cost no interpreter
start and no import of nbgrader of their own, about 2 s of CPU each).
"""

import contextlib
import io
import os
import sys
import traceback
from pathlib import Path


def skip_unused_schema_formats() -> None:
    """Before nbgrader is imported: make ``import rfc3987_syntax`` raise ImportError in this process."""
    sys.modules.setdefault("rfc3987_syntax", None)


def gradebook_revision_in_process() -> None:
    """Make nbgrader find its migrations' head revision in this process instead of ``alembic heads``
    in a child (the same scripts, read by the same library); with several heads, nbgrader's own way."""
    import nbgrader.api
    from nbgrader.dbutil import ALEMBIC_DIR

    by_command = nbgrader.api.get_alembic_version

    def head_revision() -> str:
        from alembic.script import ScriptDirectory

        heads = ScriptDirectory(ALEMBIC_DIR).get_heads()
        return heads[0] if len(heads) == 1 else by_command()

    nbgrader.api.get_alembic_version = head_revision


def run_in_process(arguments: list[str], course: Path) -> tuple[int, str]:
    """``nbgrader ARGUMENTS`` run in this process with ``course`` as the current folder (where nbgrader
    finds the course and its ``nbgrader_config.py``, as a subprocess started there does): its exit
    code and everything it logged or printed. The current folder, ``sys.path`` and the environment
    are restored afterwards and nbgrader's applications reset (as nbgrader's own tests run it), so a
    next command starts from nbgrader's defaults."""
    skip_unused_schema_formats()
    gradebook_revision_in_process()
    from jupyter_core.application import NoStart
    from nbgrader.apps.nbgraderapp import NbGraderApp

    output = io.StringIO()
    folder, path, environment = os.getcwd(), list(sys.path), dict(os.environ)
    app = NbGraderApp.instance()
    code = 0
    try:
        os.chdir(course)
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            app.initialize(list(arguments))  # its log handler is made here, writing to ``output``
            app.start()
    except NoStart:  # how a subcommand that ran says so to jupyter_core's launcher
        pass
    except SystemExit as exit:  # nbgrader's way to fail (or to end after --help)
        code = exit.code if isinstance(exit.code, int) else 1
    except Exception:  # noqa: BLE001 - a crash of nbgrader is a failed command, with its traceback
        output.write(traceback.format_exc())
        code = 1
    finally:
        app.reset()
        os.chdir(folder)
        sys.path[:] = path
        os.environ.clear()
        os.environ.update(environment)
    return code, output.getvalue()


if __name__ == "__main__":
    skip_unused_schema_formats()
    gradebook_revision_in_process()
    from nbgrader.apps.nbgraderapp import main

    main()
