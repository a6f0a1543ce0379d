"""``python -m bpe_ref.course.nbgrader_main ARGS``: nbgrader's command line, started a second sooner.

The course runs nbgrader as a subprocess (``notebooks.run_nbgrader``: every ``grade``, and the
tests' hundred-odd gradings). nbgrader imports ``jsonschema``, and ``jsonschema`` imports
``rfc3987_syntax`` when it is installed (``jupyter-events`` asks for ``jsonschema[format-nongpl]``),
which builds 38 grammars at import time: about 1.2 s of CPU per process, for the IRI format checks
of JSON Schema that neither nbformat nor nbgrader use. :func:`skip_unused_schema_formats` marks that
module as absent, so ``jsonschema`` goes without those two format checks; the rest is nbgrader's
own ``main``.
"""

import sys


def skip_unused_schema_formats() -> None:
    """Before nbgrader is imported: make ``import rfc3987_syntax`` raise ImportError in this process."""
    sys.modules.setdefault("rfc3987_syntax", None)


if __name__ == "__main__":
    skip_unused_schema_formats()
    from nbgrader.apps.nbgraderapp import main

    main()
