"""``python -m bpe_ref.course.nbgrader_main ARGS``: nbgrader's command line, started sooner.

Two costs of nbgrader's own are avoided, neither changing what it does:

- ``jsonschema`` imports ``rfc3987_syntax`` when installed, which builds 38 grammars (about 1.2 s
  of CPU per process) for IRI format checks neither nbformat nor nbgrader use:
  :func:`skip_unused_schema_formats` marks it absent.
- ``nbgrader.utils`` imports ``setuptools.archive_util`` (setuptools and ``pkg_resources``: about 0.26 s of CPU per
  process) for ``zip_collect`` alone: the same function marks a stand-in that imports it on its first call.
- Hypothesis, first imported by the course's config, keeps its Unicode table in the caller's folder, not the course's
  (a temporary one for ``grade``: 0.24 s of CPU per grading to build it again).
- nbgrader finds its migrations' head revision for a new gradebook by running ``alembic heads`` in
  a second process (about 4 s of CPU): :func:`gradebook_revision_in_process` reads it here, from the scripts.
- nbgrader checks its own schema again with each cell's metadata it checks: :func:`schema_checked_once`.

:data:`HUB_PROGRAMS` start ``python -m bpe_ref classroom``'s hub and servers without the same costs.
:func:`run_in_process` runs nbgrader's commands in the calling process (a self-grade's two commands
then cost no interpreter start and no import of nbgrader, about 2 s of CPU each).
"""

import contextlib
import io
import os
import sys
import traceback
from pathlib import Path


def skip_unused_schema_formats() -> None:
    """Before nbgrader is imported: make ``import rfc3987_syntax`` raise ImportError in this process, and
    ``setuptools.archive_util`` a stand-in whose functions import it when one is called."""
    sys.modules.setdefault("rfc3987_syntax", None)
    if "setuptools.archive_util" not in sys.modules:
        import types

        def when_called(name: str):
            def call(*args, **kwargs):
                if sys.modules.get("setuptools.archive_util") is stand_in:
                    del sys.modules["setuptools.archive_util"]
                import setuptools.archive_util

                return getattr(setuptools.archive_util, name)(*args, **kwargs)
            return call

        stand_in = types.ModuleType("setuptools.archive_util", "imported when one of its functions is called")
        for name in ("unpack_archive", "unpack_tarfile", "unpack_zipfile"):
            setattr(stand_in, name, when_called(name))
        sys.modules["setuptools.archive_util"] = stand_in


def gradebook_revision_in_process() -> None:
    """Make nbgrader find its migrations' head revision in this process instead of ``alembic heads``
    in a child: the one revision of its scripts no other names as its parent, read as alembic reads them (``revision``
    and ``down_revision``) without importing alembic (about 0.3 s of CPU); with several heads, nbgrader's own way. Once per
    process: the launcher and the course's ``nbgrader_config.py``, which it loads too, both call it."""
    import nbgrader.api
    from nbgrader.dbutil import ALEMBIC_DIR

    by_command = nbgrader.api.get_alembic_version
    if by_command.__name__ == "head_revision":
        return

    def head_revision() -> str:
        import ast

        revisions, parents = set(), set()
        for script in Path(ALEMBIC_DIR, "versions").glob("*.py"):
            for statement in ast.parse(script.read_text(encoding="utf-8")).body:
                names = [target.id for target in getattr(statement, "targets", ()) if isinstance(target, ast.Name)]
                if names in (["revision"], ["down_revision"]):
                    value = ast.literal_eval(statement.value)
                    values = value if isinstance(value, (tuple, list)) else [value]
                    (revisions if names == ["revision"] else parents).update(v for v in values if v)
        heads = revisions - parents
        return next(iter(heads)) if len(heads) == 1 else by_command()

    nbgrader.api.get_alembic_version = head_revision


def schema_checked_once() -> None:
    """Make nbgrader check a cell's metadata against its schema without checking the schema itself each time:
    ``jsonschema.validate`` does, about 1.2 ms of CPU a cell (a notebook's cells twice in each autograde, 1,092 times for
    lab 00's class of the tests). The schema, nbgrader's own file, is checked once per process; a cell's error is
    the one ``jsonschema.validate`` raises (its ``best_match``)."""
    import json
    import types

    import jsonschema
    import nbgrader.nbgraderformat.common as common

    validators = {}

    def validate(instance, schema) -> None:
        key = json.dumps(schema, sort_keys=True)
        if key not in validators:
            kind = jsonschema.validators.validator_for(schema)
            kind.check_schema(schema)
            validators[key] = kind(schema)
        error = jsonschema.exceptions.best_match(validators[key].iter_errors(instance))
        if error is not None:
            raise error

    common.jsonschema = types.SimpleNamespace(validate=validate)


def run_in_process(arguments: list[str], course: Path) -> tuple[int, str]:
    """``nbgrader ARGUMENTS`` run in this process from ``course``: its exit code and everything it logged
    or printed. The current folder, ``sys.path`` and the environment are restored and nbgrader's
    applications reset afterwards, so a next command starts from nbgrader's defaults."""
    skip_unused_schema_formats()
    gradebook_revision_in_process()
    schema_checked_once()
    from jupyter_core.application import NoStart
    from nbgrader.apps.nbgraderapp import NbGraderApp

    output = io.StringIO()
    folder, path, environment = os.getcwd(), list(sys.path), dict(os.environ)
    app = NbGraderApp.instance()
    code = 0
    # Hypothesis keeps its files (the table of Unicode's categories: 0.24 s of CPU to build) in the folder current
    # when it is first imported, which the course's config does: the caller's, as without this, not a course deleted after.
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(folder, ".hypothesis"))
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


# The hub and the single-user servers of ``python -m bpe_ref classroom``, started here the same way (``python -m
# bpe_ref.course.nbgrader_main jupyterhub ARGS``): jupyter_server and JupyterHub load jsonschema's IRI grammars too (about
# 3 s of CPU a process), and the instructor's server makes the gradebook when the formgrader generates a lab.
HUB_PROGRAMS = {"jupyterhub": "jupyterhub.app", "jupyterhub-singleuser": "jupyterhub.singleuser"}

if __name__ == "__main__":
    import importlib

    skip_unused_schema_formats()
    program = HUB_PROGRAMS.get(sys.argv[1]) if len(sys.argv) > 1 else None
    if program:
        del sys.argv[1]
    if program != "jupyterhub.app":  # nbgrader, or a server that runs it
        gradebook_revision_in_process()
        schema_checked_once()
    sys.exit(importlib.import_module(program or "nbgrader.apps.nbgraderapp").main())
