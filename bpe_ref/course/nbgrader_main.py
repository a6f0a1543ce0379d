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

The rest is nbgrader's own ``main``.
"""

import sys


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


if __name__ == "__main__":
    skip_unused_schema_formats()
    gradebook_revision_in_process()
    from nbgrader.apps.nbgraderapp import main

    main()
