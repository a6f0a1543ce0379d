"""The site's sources: which files become pages, and the Sphinx source folder made from them.

Pages are the README, the theory pages, drill answers, benchmark pages and labs, and every Markdown
file they link, found by following links; none is special-cased. The staged copy differs from the
repository's file in four generic ways:

- a link to a Python file points at a generated page that shows the file (and offers it for
  download); a link to a folder points at its README.md, or at a generated listing of the folder;
- a theory page whose ``## Drills`` section links a drill-answers page gets those answers appended
  to the section, folded (``<details>``), so a reader opens them only after trying;
- each lab notebook starts with a banner saying that it is read-only here, and how to work it;
- the README's learning-path table becomes one page per step (``steps/NN``) and an index of them.

Nothing under ``solutions/`` but its README ever enters the site: the lab solutions stay private.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

# Markdown links and images, as tests/test_theory_pages.py reads them.
LINK_RE = re.compile(r"(!?\[(?:[^\]\\]|\\.)*\]\()([^)\s]+)(\))")
FENCE_RE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
CODE_SPAN_RE = re.compile(r"(`+).+?\1", re.DOTALL)
SCHEME_RE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)

# Where reading starts: every page is one of these, or is reached from them by links.
ROOT_PAGES = ("README.md",)
PAGE_GLOBS = ("theory/*.md", "theory/drills/*.md", "theory/benchmarks/**/*.md", "labs/*/*.ipynb")
# Generated fragments: each is quoted inside its page (between snippet markers), not a page itself.
FRAGMENT_GLOBS = ("theory/figures/*.md",)
PRIVATE = "solutions"  # only its README (the instructor guide) and the classroom files it explains may be published
PUBLIC_UNDER_PRIVATE = ("solutions/README.md", "solutions/classroom/")  # no solution in either
SKIPPED_NAMES = {"__pycache__", ".ipynb_checkpoints", ".DS_Store"}


@dataclass(frozen=True)
class Step:
    """One row of the README's learning-path table: a page, a lab and the modules of one step."""

    number: str  # "00"
    page: str  # repository-relative paths
    page_title: str
    lab: str
    modules: tuple[str, ...]
    idea: str


@dataclass
class Staged:
    """What :func:`stage` wrote: the Sphinx source folder and the pages in reading order."""

    srcdir: Path
    pages: list[str] = field(default_factory=list)  # repository-relative source paths
    code_pages: list[str] = field(default_factory=list)  # .py files shown as pages
    listings: list[str] = field(default_factory=list)  # folders shown as generated listings
    steps: list[Step] = field(default_factory=list)
    notebooks: list[str] = field(default_factory=list)  # lab notebooks, shipped for download


# Reading Markdown

def protected_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of fenced blocks and code spans, where ``[x](y)`` is not a link."""
    spans = fence_spans(text)
    outside = FENCE_RE.sub(lambda m: " " * len(m.group(0)), text)
    spans += [m.span() for m in CODE_SPAN_RE.finditer(outside)]
    return sorted(spans)


def sub_outside(pattern: re.Pattern, replace, text: str, spans: list[tuple[int, int]]) -> str:
    """``pattern.sub(replace, text)`` for the matches that start outside ``spans`` (code, where
    Markdown syntax is text); a match inside one stays as it is."""
    def guarded(match: re.Match) -> str:
        return match.group(0) if any(start <= match.start() < end for start, end in spans) else replace(match)

    return pattern.sub(guarded, text)


def fence_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in FENCE_RE.finditer(text)]


def rewrite_links(text: str, rewrite) -> str:
    """``text`` with each link target ``t`` outside code replaced by ``rewrite(t)``."""
    return sub_outside(LINK_RE, lambda m: m.group(1) + rewrite(m.group(2)) + m.group(3), text, protected_spans(text))


def local_links(text: str) -> list[str]:
    """The targets of links in ``text`` that point into the repository (no scheme, not ``#x``)."""
    found: list[str] = []
    rewrite_links(text, lambda target: found.append(target) or target)
    return [t for t in found if not SCHEME_RE.match(t) and not t.startswith("#")]


def markdown_of(path: Path) -> str:
    """A page's Markdown; a notebook's Markdown cells, joined (for following their links)."""
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return "\n\n".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")


def resolve(page: str, target: str) -> str:
    """A link ``target`` of repository-relative ``page``, as a repository-relative path (no anchor)."""
    file_part = target.partition("#")[0]
    if not file_part:
        return page
    return os.path.normpath(str(PurePosixPath(page).parent / file_part)).replace(os.sep, "/")


def relative(from_page: str, to_path: str) -> str:
    """The link from ``from_page`` to ``to_path`` (both repository-relative)."""
    return os.path.relpath(to_path, str(PurePosixPath(from_page).parent) or ".").replace(os.sep, "/")


# The learning path

ROW_RE = re.compile(r"^\| (\d\d) \|(.*)\|\s*$", re.MULTILINE)
CELL_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def steps_from_readme(readme: str) -> list[Step]:
    """The README's learning-path table (the one record of a step's page, lab and modules), a :class:`Step` per row."""
    steps = []
    for match in ROW_RE.finditer(readme):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", match.group(2))]
        if len(cells) != 4:
            raise ValueError(f"README.md: the learning-path row {match.group(1)} has {len(cells) + 1} cells, not 5")
        page_links, lab_links, module_links = (CELL_LINK_RE.findall(c) for c in cells[:3])
        if len(page_links) != 1 or len(lab_links) != 1 or not module_links:
            raise ValueError(f"README.md: the learning-path row {match.group(1)} needs one page, one lab and its modules")
        steps.append(Step(
            number=match.group(1),
            page=page_links[0][1],
            page_title=page_links[0][0],
            lab=lab_links[0][1],
            modules=tuple(target for _, target in module_links),
            idea=cells[3],
        ))
    numbers = [s.number for s in steps]
    if not steps or numbers != [f"{i:02d}" for i in range(len(steps))]:
        raise ValueError(f"README.md: the learning-path table's steps are {numbers}, not 00, 01, ... in order")
    return steps


# Staging

def is_private(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(parts) and parts[0] == PRIVATE and not path.startswith(PUBLIC_UNDER_PRIVATE)


def collect(root: Path) -> tuple[list[str], set[str], set[str], set[str]]:
    """(pages in reading order, linked Python files, linked folders, other linked files), from the README
    and the page globs by links. A link into ``solutions/`` (but its README) is an error: no solution is published."""
    fragments = {p.relative_to(root).as_posix() for g in FRAGMENT_GLOBS for p in root.glob(g)}
    queue = [*ROOT_PAGES, *(p.relative_to(root).as_posix() for g in PAGE_GLOBS for p in sorted(root.glob(g)))]
    pages: list[str] = []
    code: set[str] = set()
    folders: set[str] = set()
    files: set[str] = set()
    while queue:
        page = queue.pop(0)
        if page in pages or page in fragments:
            continue
        pages.append(page)
        for target in local_links(markdown_of(root / page)):
            path = resolve(page, target)
            full = root / path
            if not full.exists():
                raise FileNotFoundError(f"{page} links {target}, which does not exist")
            if is_private(path):
                raise ValueError(f"{page} links {target}: nothing under {PRIVATE}/ but its README may be published")
            if full.is_dir():
                readme = f"{path}/README.md" if path != "." else "README.md"
                if (root / readme).exists():
                    queue.append(readme)
                else:
                    folders.add(path)
            elif full.suffix in (".md", ".ipynb"):
                queue.append(path)
            elif full.suffix == ".py":
                code.add(path)
            else:
                files.add(path)
    return pages, code, folders, files


def listing_entries(root: Path, folder: str) -> list[tuple[str, str]]:
    """(name, repository-relative path) of what a folder listing shows: its visible files and
    sub-folders, sorted, without caches and anything private."""
    entries = []
    for child in sorted((root / folder).iterdir()):
        if child.name.startswith(".") or child.name in SKIPPED_NAMES or child.suffix == ".pyc":
            continue
        path = child.relative_to(root).as_posix()
        if not is_private(path):
            entries.append((child.name + ("/" if child.is_dir() else ""), path))
    return entries


def stage(root: Path, srcdir: Path) -> Staged:
    """Write the Sphinx source folder ``srcdir`` (new or empty) from the course at ``root``."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    staged = Staged(srcdir=srcdir)
    staged.steps = steps_from_readme(readme)
    pages, code, folders, files = collect(root)
    for step in staged.steps:
        code.update(step.modules)
    # Folders show their files; the Python ones need pages, the others plain copies.
    for folder in sorted(folders):
        for name, path in listing_entries(root, folder):
            if name.endswith(".py"):
                code.add(path)
            elif not name.endswith("/") and path not in pages and not path.endswith((".md", ".ipynb")):
                files.add(path)
    staged.pages = pages
    staged.code_pages = sorted(code)
    staged.listings = sorted(folders)
    staged.notebooks = [p for p in pages if p.endswith(".ipynb")]
    page_set = set(pages)

    def target_for(page: str, target: str) -> str:
        if SCHEME_RE.match(target) or target.startswith("#"):
            return target
        path = resolve(page, target)
        anchor = target.partition("#")[2]
        if (root / path).is_dir():
            readme_path = f"{path}/README.md" if path != "." else "README.md"
            path = readme_path if readme_path in page_set else f"{path}/index.md"
        elif path.endswith(".py"):
            path += ".md"
        elif path.endswith(".ipynb") and path in page_set:
            path = path.removesuffix(".ipynb") + ".md"  # the notebook's read-only page
        return relative(page, path) + (f"#{anchor}" if anchor else "")

    for page in pages:
        source = root / page
        out = srcdir / page
        out.parent.mkdir(parents=True, exist_ok=True)
        if page.endswith(".ipynb"):
            text = notebook_page(source, page, lambda t, p=page: target_for(p, t))
            out.with_suffix(".md").write_text(named_anchors(text), encoding="utf-8")
            continue
        text = rewrite_links(source.read_text(encoding="utf-8"), lambda t, p=page: target_for(p, t))
        text = fold_drill_answers(root, page, text, target_for)
        text = named_anchors(text)
        out.write_text(text, encoding="utf-8")
    for path in sorted(files) + staged.code_pages:
        (srcdir / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / path, srcdir / path)
    for path in staged.code_pages:
        write(srcdir / f"{path}.md", code_page(path))
    for folder in staged.listings:
        write(srcdir / folder / "index.md", listing_page(root, folder, page_set))
    for i, step in enumerate(staged.steps):
        write(srcdir / "steps" / f"{step.number}.md", step_page(step, staged.steps, i))
    write(srcdir / "steps" / "index.md", steps_index(staged.steps))
    # The home page carries the site's navigation, in the order a reader follows.
    home = srcdir / "README.md"
    home.write_text(home.read_text(encoding="utf-8") + navigation(staged), encoding="utf-8")
    return staged


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# Generated and changed pages

SECTION_RE = re.compile(r"^## ", re.MULTILINE)


def fold_drill_answers(root: Path, page: str, text: str, target_for) -> str:
    """``text`` with the one ``drills/`` page its ``## Drills`` section links appended there, folded:
    title dropped, headings made bold lines (none may sit in a fold), links rewritten relative to ``page``."""
    match = re.search(r"^## Drills\b.*$", text, re.MULTILINE)
    if not match:
        return text
    end_match = SECTION_RE.search(text, match.end())
    end = end_match.start() if end_match else len(text)
    drills = text[match.end() : end]
    answers = sorted({resolve(page, t) for t in local_links(drills)
                      if "/drills/" in f"/{resolve(page, t)}" and t.partition("#")[0].endswith(".md")})
    if len(answers) != 1:
        return text
    answers_page = answers[0]
    body = (root / answers_page).read_text(encoding="utf-8")
    body = re.sub(r"\A# .*\n", "", body)
    def rebase(target: str) -> str:
        if SCHEME_RE.match(target) or target.startswith("#"):
            return target
        moved = target_for(answers_page, target)  # relative to the answers page, rewritten
        anchor = moved.partition("#")[2]
        return relative(page, resolve(answers_page, moved)) + (f"#{anchor}" if anchor else "")

    body = rewrite_links(body, rebase)
    body = demote_headings(body)
    fold = (
        '\n<details class="drill-answers">\n<summary>Answers to the drills (try them first)</summary>\n\n'
        + body.strip("\n")
        + "\n\n</details>\n\n"
    )
    return text[:end].rstrip("\n") + "\n" + fold + text[end:]


ANCHOR_RE = re.compile(r'^<a id="([^"]+)"></a>', re.MULTILINE)


def named_anchors(text: str) -> str:
    """A paragraph's explicit ``<a id="x"></a>`` anchor (GitHub's and JupyterLab's way to link into a
    page) becomes a MyST target ``(x)=``, which Sphinx knows, so links to ``page.md#x`` resolve."""
    return sub_outside(ANCHOR_RE, lambda m: f"({m.group(1)})=\n", text, fence_spans(text))


HEADING_RE = re.compile(r"^(#{1,6}) (.+)$", re.MULTILINE)


def demote_headings(text: str) -> str:
    """ATX headings outside code become bold paragraphs."""
    return sub_outside(HEADING_RE, lambda m: f"**{m.group(2).strip()}**", text, fence_spans(text))


BANNER = """\
```{{admonition}} To work this lab, install the course
:class: lab-banner

This is lab {number} shown read-only: nothing runs here, and the test cells cannot check your
work. To work it, install the course (one command, in the
[Quickstart]({readme}#quickstart)), open the notebook in JupyterLab and grade it with its last
cell. <a class="download-notebook" href="{name}" download>Download the notebook ({name})</a>.
```
"""


def notebook_page(path: Path, page: str, target_for) -> str:
    """A lab notebook as a read-only MyST page: the banner, then its cells in order (Markdown cells
    as they are, links rewritten; code cells as Python code blocks). Lab notebooks carry no outputs,
    so nothing is executed and nothing is lost."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    parts = [BANNER.format(number=path.stem.split("_")[0], name=path.name, readme=relative(page, "README.md"))]
    for cell in notebook["cells"]:
        source = "".join(cell["source"]).strip("\n")
        if cell["cell_type"] == "markdown":
            parts.append(rewrite_links(source, target_for))
        elif cell["cell_type"] == "code" and source:
            longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
            fence = "`" * max(3, longest + 1)
            parts.append(f"{fence}python\n{source}\n{fence}")
    # The banner goes after the notebook's title, so the page keeps the title as its own.
    if len(parts) > 1 and re.match(r"# ", parts[1]):
        title, _, rest = parts[1].partition("\n")
        parts[0:2] = [title, parts[0], rest]
    return "\n\n".join(part for part in parts if part.strip()) + "\n"


# Code pages and folder listings are reached from the pages' links, not from the sidebar's outline
# (which Sphinx renders on every page: a hundred more entries there would double the build time).
ORPHAN = "---\norphan: true\n---\n\n"


def code_page(path: str) -> str:
    name = PurePosixPath(path).name
    return (
        ORPHAN + f"# `{path}`\n\n"
        f"The reference code, as in the repository. {{download}}`Download {name} <{name}>`\n\n"
        f"```{{literalinclude}} {name}\n:language: python\n```\n"
    )


def listing_page(root: Path, folder: str, pages: set[str]) -> str:
    lines = [ORPHAN + f"# `{folder}/`\n", "The files of this folder of the course repository.\n"]
    for name, path in listing_entries(root, folder):
        if name.endswith("/"):
            # A sub-folder shows the pages directly inside it (a lab folder: its notebook's page).
            inside = sorted(p for p in pages if PurePosixPath(p).parent.as_posix() == path)
            links = ", ".join(f"[`{PurePosixPath(p).name}`]({relative(folder + '/index.md', page_source(p))})" for p in inside)
            lines.append(f"- `{name}`" + (f": {links}" if links else ""))
        else:
            target = path + ".md" if path.endswith(".py") else path
            if path.endswith((".md", ".ipynb")) and path not in pages:
                lines.append(f"- `{name}`")
            else:
                lines.append(f"- [`{name}`]({relative(folder + '/index.md', target)})")
    return "\n".join(lines) + "\n"


def page_source(path: str) -> str:
    """The staged source of page ``path``: a notebook's read-only page is Markdown."""
    return path.removesuffix(".ipynb") + ".md" if path.endswith(".ipynb") else path


def step_page(step: Step, steps: list[Step], i: int) -> str:
    here = f"steps/{step.number}.md"
    lab_name = PurePosixPath(step.lab).name
    modules = ", ".join(f"[`{PurePosixPath(m).with_suffix('').as_posix().removeprefix('bpe_ref/')}`]({relative(here, m + '.md')})"
                        for m in step.modules)
    lines = [
        f"# Step {step.number} · {step.page_title}\n",
        f"{step.idea}\n",
        f"- **Read the page:** [{step.page_title}]({relative(here, step.page)})",
        f"- **Work the lab:** [{PurePosixPath(step.lab).stem}]({relative(here, step.lab.removesuffix('.ipynb') + '.md')}) "
        f"(read-only here; <a href=\"{relative(here, step.lab)}\" download>download {lab_name}</a>)",
        f"- **Read the module:** {modules}",
        "",
        "Read the page, work the lab in JupyterLab after installing the course (the home page's "
        f"[Quickstart]({relative(here, 'README.md')}#quickstart)), then read the module next to it.\n",
    ]
    neighbours = []
    if i > 0:
        neighbours.append(f"Previous: [step {steps[i - 1].number}]({steps[i - 1].number}.md)")
    if i + 1 < len(steps):
        neighbours.append(f"Next: [step {steps[i + 1].number}]({steps[i + 1].number}.md)")
    lines.append(" · ".join(neighbours) + "\n")
    return "\n".join(lines)


def steps_index(steps: list[Step]) -> str:
    lines = ["# The steps\n", "Each step is one theory page, one lab and one module of `bpe_ref`.\n",
             "| step | page | idea |", "|---|---|---|"]
    for step in steps:
        lines.append(f"| [{step.number}]({step.number}.md) | [{step.page_title}](../{step.page}) | {step.idea} |")
    return "\n".join(lines) + "\n"


# The sidebar's groups, in the order a reader follows; a page goes in the first whose folder holds it.
NAVIGATION_GROUPS = (("Labs", "labs/"), ("Benchmarks", "theory/benchmarks/"), ("Drill answers", "theory/drills/"),
                     ("Theory", "theory/"), ("More", ""))
NAVIGATION_ORDER = ("Steps", "Theory", "Labs", "Benchmarks", "Drill answers", "More")


def navigation(staged: Staged) -> str:
    """Hidden toctrees for the home page: the sidebar's outline of the site."""
    groups: dict[str, list[str]] = {"Steps": ["steps/index", *(f"steps/{s.number}" for s in staged.steps)]}
    for page in staged.pages[1:]:
        group = next(name for name, folder in NAVIGATION_GROUPS if page.startswith(folder))
        groups.setdefault(group, []).append(page.rsplit(".", 1)[0])
    entries = {name: "\n".join(groups[name]) for name in NAVIGATION_ORDER if groups.get(name)}
    return "\n" + "".join(f"\n```{{toctree}}\n:hidden:\n:caption: {name}\n:maxdepth: 1\n\n{docs}\n```\n"
                          for name, docs in entries.items())
