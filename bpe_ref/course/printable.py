"""Text a submission chose, printed where a person reads it: every control and format character written as an escape.

The reports (``python -m bpe_ref grade``, ``grade --class``) and nbgrader's log print text a submission chose: a path
its code opened, an error message, a cell's nbgrader ``grade_id``. A terminal obeys the escape codes in it (a path
of cursor-up and erase-line codes wiped a flagged row from ``grade --class``: ``tests/test_grading_redteam.py``,
section 25), so every line printed passes through :func:`shown`.

Shown in a browser, a submission's text, or a link's, runs as script where nbgrader lets it: :func:`markdown_html`
(nbgrader's feedback and formgrade pages) and :func:`guard_nbgrader_server` (the formgrader and nbgrader's JSON
answers, in the Jupyter server) keep it text.
"""

from __future__ import annotations

import logging
import re
import unicodedata

import jinja2


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



# nbconvert's math plugin looks for the end of a LaTeX environment (``\begin{x}``) or of ``\\[`` and ``\\(`` math from
# each of them to the end of the cell: a markdown cell of 6,000 ``\begin{x}`` (54 KB) cost 5.7 s of CPU time a page
# (tests/test_grading_redteam.py, section 72). Past these many, the cell is shown as text, as its HTML is.
MATH_OPENERS = ("\\begin{", "\\\\[", "\\\\(")
MOST_MATH_OPENERS = 64


# A markdown cell's link reference definitions (``[a]: url``) are written again at each use (``[x][a]``, ``[a]``): one
# definition of a 1 KB address used 40,000 times (280 KB of markdown) made 41 MB of page, a cell of more such text
# gigabytes (tests/test_grading_redteam.py, section 96). Past these many definitions, or past these many "[" in a cell
# that has a definition (a bound on its uses), the cell is shown as text. No lab's markdown defines a reference.
MOST_LINK_DEFINITIONS = 64
MOST_BRACKETS_WITH_DEFINITIONS = 1_000
# An image's address a page may load: an attachment's, a raster ``data:`` image (mistune's allowlist) or a path relative
# to the page, no more. Any other (``https://tracker.example/p.png``, ``//host/p``) is a link to click, not an image
# loaded when the page is opened: nbgrader's feedback and formgrader pages loaded a learner's remote image, telling its
# server who opened which page, and when (tests/test_grading_redteam.py, section 99).
_LOCAL_IMAGE = re.compile(r"(?!.*//)[A-Za-z0-9_][A-Za-z0-9_./%-]{0,2000}")


# What the instructor's pages render of a notebook's cells, in all: each cell is bounded (HIGHLIGHTED_CHARS, the counts
# above), but what they make of a notebook costs CPU time per character of code or markdown and per tag of the page
# (Pygments makes one a token; bleach cleans them, and nbconvert's HTMLExporter parses the whole page again with
# BeautifulSoup, some 100 microseconds a tag): 2,000 code cells of 19,990 characters (40 MB, under the exchange's 100 MB)
# cost some 35 minutes a page (tests/test_grading_redteam.py, section 118). Past this many characters of the cells'
# sources a page has rendered (highlighted, made HTML), a cell is shown as text, and every cell after it. A lab's source
# notebook holds 33,000 at most.
RENDERED_NOTEBOOK_CHARS = 100_000
_RENDERED = "bpe_ref_rendered_chars"  # the key of a page's ``resources`` that counts them


def _rendered(context: jinja2.runtime.Context, source: str) -> bool:
    """Whether a cell's ``source`` is rendered on the page ``context`` makes (within :data:`RENDERED_NOTEBOOK_CHARS` of
    the page's cells, counted in its ``resources``, which nbconvert makes anew for each page), or shown as text."""
    resources = context.get("resources")
    if not isinstance(resources, dict):
        return len(source) <= RENDERED_NOTEBOOK_CHARS
    spent = resources.get(_RENDERED, 0) + len(source)
    resources[_RENDERED] = spent if spent <= RENDERED_NOTEBOOK_CHARS else RENDERED_NOTEBOOK_CHARS + 1
    return spent <= RENDERED_NOTEBOOK_CHARS


def _renderer(attachments: dict):
    """nbconvert's ``IPythonRenderer`` (with ``attachments``) that writes each attachment's data into the page once, at
    its first image: later images of it are text naming it (an attachment of 100 KB shown 1,000 times made a page of
    133 MB, tests/test_grading_redteam.py, section 95); an image of an attachment the cell lacks (or of no data: an empty
    bundle, data not text) is text saying so: nbconvert raised, and the formgrader could not show the notebook, nor
    ``generate_feedback`` write its feedback (section 116; ``BoundedSubmission`` drops the attachments past a notebook's
    bound); and shows an image from elsewhere than an attachment, raster ``data:`` or the page's folder as a link
    (:data:`_LOCAL_IMAGE`)."""
    from html import escape

    from nbconvert.filters.markdown_mistune import IPythonRenderer

    class BoundedRenderer(IPythonRenderer):
        shown: set[str]

        def image(self, text: str, url: str, title: str | None = None) -> str:
            if url.startswith("attachment:"):
                name = url[len("attachment:"):]
                if name in self.shown:
                    return f"<em>[the image attachment:{escape(name)}, shown above]</em>"
                bundle = self.attachments.get(name)
                if not (isinstance(bundle, dict) and bundle and all(isinstance(data, str) for data in bundle.values())):
                    return f"<em>[the image attachment:{escape(name)}, not in the notebook]</em>"
                self.shown.add(name)
                return super().image(text, url, title)
            if url.lower().startswith("data:image/") or _LOCAL_IMAGE.fullmatch(url):
                return super().image(text, url, title)
            return self.link(text or escape(url), url, title)

    renderer = BoundedRenderer(escape=True, allow_harmful_protocols=False,
                               attachments=attachments if isinstance(attachments, dict) else {})
    renderer.shown = set()
    return renderer


@jinja2.pass_context
def markdown_html(context: jinja2.runtime.Context, source: str) -> str:
    """nbconvert's ``markdown2html`` filter for nbgrader's feedback and formgrader pages (``nbgrader_config.py``):
    mistune's HTML of the markdown, with the HTML written in it shown as text and links and images to safe protocols
    only (mistune's allowlist: no ``javascript:``; of ``data:``, raster images). nbgrader's templates render a markdown
    cell's raw HTML as it is (they leave out nbconvert's ``clean_html``), so a submission's ``<script>`` or
    ``<img onerror=...>`` ran in the instructor's browser on the formgrader's origin, whose API sets any student's
    grades (``tests/test_grading_redteam.py``, section 37). No lab's markdown writes HTML; cleaning it instead (bleach)
    cost minutes of CPU on 300 KB of unclosed tags. The cell's attachments (an image pasted in) are given, as nbconvert
    gives them, each once a cell; an image from elsewhere is a link (:func:`_renderer`). A cell of more link reference
    definitions than :data:`MOST_LINK_DEFINITIONS`, or of one and many ``[``, is shown as text, as one of many LaTeX
    openers is, and a cell past the page's :data:`RENDERED_NOTEBOOK_CHARS`."""
    from html import escape

    from nbconvert.filters.markdown_mistune import MarkdownWithMath

    if not _rendered(context, source):  # past the page's bound in all (section 118)
        return f"<pre>{escape(source)}</pre>"
    if sum(source.count(opener) for opener in MATH_OPENERS) > MOST_MATH_OPENERS:  # each scans the rest of the cell
        return f"<pre>{escape(source)}</pre>"
    definitions = source.count("]:")  # every link reference definition holds one ("[label]:")
    if definitions > MOST_LINK_DEFINITIONS or (definitions and source.count("[") > MOST_BRACKETS_WITH_DEFINITIONS):
        return f"<pre>{escape(source)}</pre>"
    renderer = _renderer(context.get("cell", {}).get("attachments", {}))
    return MarkdownWithMath(renderer=renderer).render(source)


@jinja2.pass_context
def clean_html(context: jinja2.runtime.Context, element: str | bytes) -> str:
    """nbconvert's ``clean_html`` filter for nbgrader's feedback and formgrader pages (``nbgrader_config.py``), but for a
    raw cell, whose text is shown as text (as the HTML in a markdown cell is: :func:`markdown_html`). nbconvert's templates
    pass a raw cell's source to ``clean_html`` (bleach), whose time grows as the square of the tags left open or nested: a
    raw cell of 40 KB of ``<div>`` cost 4 s of CPU a page, so 2,000 of them in a submission (80 MB, under the exchange's
    limit) hours of ``generate_feedback``, which renders the class one notebook after another, and of the formgrader,
    which serves every page from one thread (``tests/test_grading_redteam.py``, section 70). No lab has a raw cell.
    HTML of Pygments' tags and escaped text alone (a code cell as :func:`code_html` highlights it) is kept as it is:
    bleach cost some 40 microseconds of CPU time a character of code (section 118)."""
    from html import escape

    from nbconvert.filters.strings import clean_html as nbconvert_clean_html

    cell = context.get("cell") or {}
    if isinstance(cell, dict) and cell.get("cell_type") == "raw":
        text = element.decode("utf-8", "replace") if isinstance(element, bytes) else str(element)
        return f"<pre>{escape(text)}</pre>"
    if isinstance(element, str) and "<" not in _HIGHLIGHTED_TAG.sub("", element):
        return element  # code_html's: escaped text in Pygments' tags, nothing for bleach to take out (section 118)
    return nbconvert_clean_html(element)


# The tags of Pygments' HTML (code_html), a class their one attribute: HTML of these and text holds nothing to clean.
_HIGHLIGHTED_TAG = re.compile(r'</?(?:span|pre|div)>|<(?:span|div) class="[A-Za-z0-9 _-]{0,100}">')


# An escape code of the terminal's (SGR and the rest of ECMA-48's CSI sequences, and the lone ESC): what ansi2html reads.
_ANSI_CODE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_]?)")


@jinja2.pass_context
def ansi_html(context: jinja2.runtime.Context, text: str) -> str:
    """nbconvert's ``ansi2html`` filter for nbgrader's feedback and formgrader pages (``nbgrader_config.py``): an output's
    text (a stream, a traceback's line) with its terminal colours as spans, within the page's
    :data:`RENDERED_NOTEBOOK_CHARS`; past them the text escaped, its escape codes left out. A colour changed at each
    character made a span of every few (1,000,000 characters of the learner's outputs, as many as a notebook keeps: 8 s of
    CPU time a page, nbconvert parsing every span again, tests/test_grading_redteam.py, section 119)."""
    from markupsafe import escape  # as ansi2html escapes text

    from nbconvert.filters.ansi import ansi2html

    text = str(text)
    if "\x1b" not in text:
        return str(escape(text))
    if _rendered(context, text):
        return ansi2html(text)
    return str(escape(_ANSI_CODE.sub("", text)))


# nbconvert's strip_files_prefix, its markdown pattern's captions and locations bounded: ``\[(.*?)\]\(`` tried from each
# ``[`` of a line scans the rest of it, so a markdown cell of one line of 20,000 ``[`` cost 3 s a page, 200,000 some 300.
_FILES_URL = re.compile(r"(src|href)\=([\'\"]?)/?files/")
_MARKDOWN_FILES_URL = re.compile(r"(!?)\[(?P<caption>[^\[\]\n]{0,2000})\]\(/?files/(?P<location>[^)\n]{0,2000})\)")


def strip_files_prefix(text: str) -> str:
    """nbconvert's ``strip_files_prefix`` filter for nbgrader's feedback and formgrader pages (``nbgrader_config.py``):
    ``src="files/x"`` becomes ``src="x"``, and a markdown link ``[a](files/x)`` ``[a](x)``, in time linear in the text.
    nbconvert's markdown pattern, applied to every markdown cell's HTML, took time growing as the square of a line's
    ``[`` (``tests/test_grading_redteam.py``, section 71); here a caption or location is at most 2,000 characters, none
    holding a bracket of its own, as no link of a lab's does."""
    return _MARKDOWN_FILES_URL.sub(r"\1[\2](\3)", _FILES_URL.sub(r"\1=\2", text))


HIGHLIGHTED_CHARS = 20_000  # the longest cell of a lab's source: 4,106 characters


@jinja2.pass_context
def code_html(context: jinja2.runtime.Context, source: str, language: str | None = None,
              metadata: dict | None = None) -> str:
    """nbconvert's ``highlight_code`` filter for nbgrader's feedback and formgrader pages (``nbgrader_config.py``): a
    code cell highlighted by Pygments' Python lexer, whatever lexer the notebook names (its ``language_info``, a cell's
    ``magics_language``: the learner's metadata), and shown as text past :data:`HIGHLIGHTED_CHARS`. IPython's lexer,
    which the labs name (``ipython3``), takes time growing as the square of a line's length on some text (an attribute
    chain ``a.a.a...``: 16 KB, 5 s of CPU; Pygments' ``ng2`` on ``((((``, too): a submission's long cells held
    nbgrader's ``generate_feedback``, which renders the class one notebook after another, and the formgrader, which
    serves every page from one thread, for minutes a cell (``tests/test_grading_redteam.py``, section 39). Python's
    lexer took 0.2 s at most on 10,000 characters of each of 50 repeated patterns tried. A cell past the page's
    :data:`RENDERED_NOTEBOOK_CHARS` in all is shown as text too (2,000 cells of 19,990 characters: some 35 minutes a
    page, section 118)."""
    from html import escape

    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    if len(source) > HIGHLIGHTED_CHARS or not _rendered(context, source):
        return f'<div class=" highlight hl-python"><pre>{escape(source)}</pre></div>'
    return highlight(source or " ", PythonLexer(), HtmlFormatter(cssclass=" highlight hl-python"))


def guard_nbgrader_server() -> None:
    """nbgrader's pages in a Jupyter server, made safe to open at a link a learner sent; ``nbgrader_config.py`` calls
    this in the server, which loads it before the formgrader builds its pages' jinja Environment
    (``tests/test_labs_jupyter.py``). nbgrader 0.9.6 wrote the id in a page's address into the page's ``<script>``, on
    the origin whose API sets grades: its templates now escape what they write. It opened the course of any folder
    ``?path=`` named, running that folder's ``nbgrader_config.py`` (a learner's, handed in): now only the course it was
    started in. It served the files handed in beside a notebook on its own origin, and its JSON handlers answer as
    ``text/html``, some with the address's id in them: all of these now come sandboxed."""
    import functools
    import importlib
    import os

    from jupyter_server.base.handlers import JupyterHandler
    from nbgrader.server_extensions.formgrader import formgrader
    from tornado import web

    if formgrader.Environment is not jinja2.Environment:  # this file runs at every reload of the config: once is enough
        return
    formgrader.Environment = functools.partial(jinja2.Environment, autoescape=True)
    course, opens = os.path.realpath(os.getcwd()), formgrader.handlers.FormgraderHandler.get

    @web.authenticated
    def get(handler) -> None:
        path = handler.get_argument("path", "")
        if path and os.path.realpath(path) != course:
            raise web.HTTPError(403, "this formgrader opens the course it was started in only")
        return opens(handler)

    formgrader.handlers.FormgraderHandler.get = get
    sandboxed = property(lambda handler: JupyterHandler.content_security_policy.fget(handler) + "; sandbox")
    formgrader.handlers.SubmissionFilesHandler.content_security_policy = sandboxed
    for name in ("formgrader.apihandlers", "assignment_list.handlers", "course_list.handlers", "validate_assignment.handlers"):
        module = importlib.import_module(f"nbgrader.server_extensions.{name}")
        for kind in vars(module).values():
            if isinstance(kind, type) and issubclass(kind, JupyterHandler) and kind.__module__ == module.__name__:
                kind.content_security_policy = sandboxed


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """This module as a Jupyter server extension: :func:`guard_nbgrader_server` in a server that does not load the
    course's ``nbgrader_config.py`` (a student's on ``classroom up``'s hub, whose config enables it)."""
    return [{"module": __name__}]


def _load_jupyter_server_extension(server_app: object) -> None:
    guard_nbgrader_server()
