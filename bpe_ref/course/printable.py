"""Text a submission chose, printed where a person reads it: every control and format character written as an escape.

The reports (``python -m bpe_ref grade``, ``grade --class``) and nbgrader's log print text a submission chose: a path
its code opened (as the keeper read it from the caller's memory), an error message, a cell's nbgrader ``grade_id``. A
terminal obeys the escape codes in it: a refused open of a path of cursor-up and erase-line codes wiped a flagged
student's row and its review line from ``grade --class`` and wrote a clean row in their place
(``tests/test_grading_redteam.py``, section 25). So every line printed passes through :func:`shown`.
"""

from __future__ import annotations

import contextlib
import logging
import unicodedata


def shown(line: str) -> str:
    """One line as it is printed: every control or format character (escape codes, carriage returns and line breaks,
    bidirectional overrides) and every surrogate written as a Python escape; the rest as it is."""
    return "".join(repr(char)[1:-1] if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp")
                   else char for char in line)


def shown_lines(text: str) -> str:
    """:func:`shown` for each line of a text made of several (a table, a traceback): its line breaks kept."""
    return "\n".join(shown(line) for line in text.split("\n"))


class PrintableStreamHandler(logging.StreamHandler):
    """nbgrader's console log handler (``nbgrader_config.py``), each record's message and traceback :func:`shown` line
    by line before nbgrader's formatter lays it out (its own colours kept): a learner's grade_id that nbgrader does not
    know reached the instructor's terminal, escape codes and all, in a warning and in a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        record = logging.makeLogRecord(record.__dict__)  # a copy: any other handler gets the record as it came
        record.msg, record.args = shown_lines(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = (self.formatter or logging.Formatter()).formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = shown_lines(record.exc_text)
        if record.stack_info:
            record.stack_info = shown_lines(record.stack_info)
        return super().format(record)



def markdown_html(context, source: str) -> str:
    """nbconvert's ``markdown2html`` filter for nbgrader's feedback and formgrader pages (``nbgrader_config.py``):
    mistune's HTML of the markdown, with the HTML written in it shown as text and links and images to safe protocols
    only (mistune's allowlist: no ``javascript:``). nbgrader's templates render a markdown cell's raw HTML as it is
    (they leave out nbconvert's ``clean_html``), so a submission's ``<script>`` or ``<img onerror=...>`` ran in the
    instructor's browser on the formgrader's origin, whose API sets any student's grades
    (``tests/test_grading_redteam.py``, section 37). No lab's markdown writes HTML; cleaning it instead (bleach) cost
    minutes of CPU on 300 KB of unclosed tags. The cell's attachments are passed (without them an image pasted into
    the cell raised ``InvalidNotebook``: no feedback, no formgrader view, section 39): a raster image is shown from its
    data, an SVG one, which may hold a script, not at all (``data:image/svg+xml`` is no safe protocol)."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    attachments = context.get("cell", {}).get("attachments", {})
    return MarkdownWithMath(renderer=IPythonRenderer(escape=True, allow_harmful_protocols=False,
                                                     attachments=attachments)).render(source)


HIGHLIGHTED_CHARS = 20_000  # the longest cell of a lab's source: 4,106 characters


def code_html(source: str, language: str | None = None, metadata: dict | None = None) -> str:
    """nbconvert's ``highlight_code`` filter for nbgrader's feedback and formgrader pages (``nbgrader_config.py``): a
    code cell highlighted by Pygments' Python lexer, whatever lexer the notebook names (its ``language_info``, a cell's
    ``magics_language``: the learner's metadata), and shown as text past :data:`HIGHLIGHTED_CHARS`. IPython's lexer,
    which the labs name (``ipython3``), takes time growing as the square of a line's length on some text (an attribute
    chain ``a.a.a...``: 16 KB, 5 s of CPU; Pygments' ``ng2`` on ``((((``, too): a submission's long cells held
    nbgrader's ``generate_feedback``, which renders the class one notebook after another, and the formgrader, which
    serves every page from one thread, for minutes a cell (``tests/test_grading_redteam.py``, section 39). Python's
    lexer took 0.2 s at most on 10,000 characters of each of 50 repeated patterns tried."""
    from html import escape

    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    if len(source) > HIGHLIGHTED_CHARS:
        return f'<div class=" highlight hl-python"><pre>{escape(source)}</pre></div>'
    return highlight(source or " ", PythonLexer(), HtmlFormatter(cssclass=" highlight hl-python"))


with contextlib.suppress(ImportError):  # jinja2 comes with nbconvert, which alone calls the filter
    from jinja2 import pass_context

    pass_context(markdown_html)  # jinja then passes the template's context: the cell
