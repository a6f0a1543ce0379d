"""``python -m bpe_ref collect DOWNLOADS LAB``: LMS downloads of a lab, named for ``nbgrader zip_collect``.

``nbgrader zip_collect`` wants ``downloaded/<lab>/archive/<student-id>__<lab>.ipynb``. This copies
every notebook of ``DOWNLOADS`` there and says what it did with each: ``bob__01_naive_bpe.ipynb``
as it is; a browser's copy (``... (1).ipynb``, ``...-2.ipynb``) under the plain name, the newest of a
learner's files winning; a name without ``<id>__``, or another lab's, left out with the reason; a
file that is not notebook JSON copied and named, to ask for again; a link left out, never followed. A zip a learner
sent, ``bob__01_naive_bpe.zip``, is read here, never unpacked: its one notebook is bob's, whatever its name inside (the
names in a zip are the learner's: unpacked, one could replace a classmate's notebook, or be a link to any file the
instructor can read). DOWNLOADS is never changed.
Exit 0 when no file was left out, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..printable import shown

# "<id>__<lab><copy mark>.ipynb": the id is everything before the last "__" (an id may hold "_").
NAMED = re.compile(r"^(?P<student>.+)__(?P<lab>.+?)(?P<copy>\s*\(\d+\)|-\d+|\s+copy(\s*\d+)?)?\.(ipynb|zip)$", re.I)
STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
MAX_NOTEBOOK_BYTES = 64 << 20  # a notebook in a zip larger than this (unpacked) is left out


def notebook_bytes(path: Path) -> bytes:
    """The notebook ``path`` holds: the file itself, or the one notebook in a zip (``ValueError``: why none)."""
    if path.suffix.lower() != ".zip":
        return path.read_bytes()
    try:
        with zipfile.ZipFile(path) as archive:
            inside = [info for info in archive.infolist() if info.filename.lower().endswith(".ipynb") and not
                      info.is_dir() and not {"__MACOSX", ".ipynb_checkpoints"} & set(info.filename.split("/"))]
            if len(inside) != 1:
                raise ValueError(f"a zip of {len(inside)} notebooks, not of one: ask for the notebook itself")
            if inside[0].file_size > MAX_NOTEBOOK_BYTES:
                raise ValueError(f"a zip whose notebook unpacks to {inside[0].file_size} bytes: ask for the notebook itself")
            return archive.read(inside[0])  # reads no more than the size checked
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as err:
        raise ValueError(f"a zip that cannot be read ({err.__class__.__name__}): ask for the notebook itself") from None


@dataclass
class Outcome:
    """What happened to one downloaded file."""

    file: str
    student: str | None
    action: str  # "copied", "older" (the same learner's newer file was copied), "left out"
    reason: str


def plan(downloads: Path, lab: str) -> tuple[dict[str, Path], list[Outcome]]:
    """Which file stands for which student, and what happens to every file."""
    outcomes: list[Outcome] = []
    candidates: dict[str, list[Path]] = {}
    for path in sorted(p for p in downloads.iterdir() if p.is_file() or p.is_symlink()):
        if path.is_symlink():  # unzip makes the links a learner's zip holds: one named <id>__<lab>.ipynb read any file
            outcomes.append(Outcome(path.name, None, "left out", "a link, not a file: ask for the notebook itself"))
            continue
        if path.suffix.lower() not in (".ipynb", ".zip"):
            outcomes.append(Outcome(path.name, None, "left out", "not a notebook, nor a zip of one"))
            continue
        match = NAMED.match(path.name)
        if not match:
            outcomes.append(Outcome(path.name, None, "left out",
                                    f"no student id in the name: rename it <student-id>__{lab}.ipynb and run again"))
            continue
        student, named_lab = match["student"].strip(), match["lab"].strip()
        if named_lab != lab:
            outcomes.append(Outcome(path.name, student, "left out", f"a notebook of {named_lab!r}, not of {lab!r}"))
            continue
        if not STUDENT.match(student):
            outcomes.append(Outcome(path.name, student, "left out", f"{student!r} is not a usable student id (letters, digits, . _ -)"))
            continue
        try:
            notebook_bytes(path)  # a zip without one notebook is left out before the newest file is chosen
        except ValueError as err:
            outcomes.append(Outcome(path.name, student, "left out", str(err)))
            continue
        candidates.setdefault(student, []).append(path)
    chosen = {}
    for student, paths in candidates.items():
        newest = max(paths, key=lambda p: (p.stat().st_mtime, p.name))
        chosen[student] = newest
        for other in paths:
            if other is not newest:
                outcomes.append(Outcome(other.name, student, "older", f"{student} has a newer file: {newest.name}"))
    return chosen, outcomes


def collect(downloads: Path, lab: str, course: Path) -> list[Outcome]:
    """Copy the chosen notebooks to ``course/downloaded/LAB/archive/<id>__LAB.ipynb``; every file's outcome."""
    if not downloads.is_dir():
        raise FileNotFoundError(f"{downloads} is not a folder of downloaded notebooks")
    if not (course / "nbgrader_config.py").is_file():
        raise FileNotFoundError(f"{course} is not a course folder (no nbgrader_config.py); give --course")
    if not re.match(r"^[A-Za-z0-9_.-]+$", lab):
        raise ValueError(f"{lab!r} is not a lab name such as 01_naive_bpe")
    chosen, outcomes = plan(downloads, lab)
    archive = course / "downloaded" / lab / "archive"
    archive.mkdir(parents=True, exist_ok=True)
    for student, path in sorted(chosen.items()):
        target = archive / f"{student}__{lab}.ipynb"
        data = notebook_bytes(path)
        target.write_bytes(data)
        shutil.copystat(path, target)
        reason = "kept its name" if path.name == target.name else f"renamed {target.name}"
        reason += "; the notebook in the zip" if path.suffix.lower() == ".zip" else ""
        try:
            json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError) as err:  # not UTF-8, not JSON, or JSON Python will not read (a number of
            # 5,000 digits, 100,000 levels: each ended the command, the files after it not copied; redteam section 58)
            reason += f"; NOT valid notebook JSON ({err.__class__.__name__}): ask {student} for the file again"
        outcomes.append(Outcome(path.name, student, "copied", reason))
    return sorted(outcomes, key=lambda o: o.file)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("downloads", type=Path, help="the folder of downloaded notebooks (left unchanged)")
    parser.add_argument("lab", help="the lab, e.g. 01_naive_bpe")
    parser.add_argument("--course", type=Path, default=Path("."), help="the course folder (default: here)")


def run(args: argparse.Namespace) -> int:
    outcomes = collect(args.downloads, args.lab, args.course)
    width = max((len(o.file) for o in outcomes), default=4)
    for o in outcomes:
        print(shown(f"{o.file:<{width}}  {o.action:<8}  {o.student or '-':<12}  {o.reason}"))  # a file name is the learner's
    copied = sum(o.action == "copied" for o in outcomes)
    left = sum(o.action == "left out" for o in outcomes)
    archive = args.course / "downloaded" / args.lab / "archive"
    print(f"{copied} notebooks in {archive}, {left} files left out. Next: nbgrader zip_collect {args.lab} "
          "--FileNameCollectorPlugin.named_regexp='.*/(?P<student_id>[^/]+)__(?P<file_id>[^/]+)$'")
    return 0 if left == 0 else 1
