"""Trusted autograding: the verdict of every test cell comes from this process, never from the notebook.

nbgrader's own ``Execute`` runs the submission and its tests in one kernel, so a solution cell can
hook, patch or skip the tests. :class:`TrustedExecute` replaces it (``nbgrader_config.py``):

1. every code cell but the test cells runs, in order, in a confined worker (:mod:`.sandbox`); its
   output and errors become the cell's outputs, for the feedback;
2. every test cell's grader, looked up by ``grade_id`` (:mod:`.cells`), runs *here*, with the
   reference and hypothesis, calling the learner's functions in the worker by name, JSON only;
3. the cell's outputs become the verdict, which nbgrader's ``SaveAutoGrades`` scores as usual.

:class:`RestoringOverwriteCells` puts back deleted test cells where nbgrader's ``OverwriteCells``
fails. A record of every verdict and the isolation in force goes to
``trusted_grades/<student>/<lab>/<notebook>.json`` (``grade --class`` compares the gradebook with it).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import re
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from . import cells as test_cells
from .cells import is_test_cell, nbgrader_of, source_of
from .cpu_limit import OutOfCpuTime, within_cpu
from .sandbox import Policy, RemoteFunction, Sandbox, scheduled_threads
from .worker.wire import capped
from .verdicts import CheckFailed, GradingStopped, hidden_seed

RECORDS_DIR = "trusted_grades"
# What a submitted notebook may hold (:class:`BoundedSubmission`): nbgrader's own steps cost CPU time and memory per cell
# outside the notebook's budget. The largest lab's source has 35 cells and no outputs.
MAX_CELLS, MAX_OUTPUTS = 2_000, 20_000
# JSON objects and arrays a submitted notebook may hold, in all: nbformat and nbgrader read, validate and copy each as a
# node, some 40 microseconds of CPU time and 2 KB apiece, before any bound of theirs on cells or outputs can look
# (1,000,000 ``{}`` in a cell's metadata, a 4 MB file, cost a self-grade's autograde 38 s of CPU time and 2.3 GB:
# tests/test_grading_redteam.py, section 94). A lab's notebook holds at most 200, MAX_CELLS cells of MAX_OUTPUTS outputs
# some 50,000.
MAX_JSON_CONTAINERS = 200_000
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')


def json_containers(text: str) -> int:
    """The objects and arrays of the JSON ``text``, counted without parsing it: its ``{`` and ``[`` outside strings
    (when the text holds no more than :data:`MAX_JSON_CONTAINERS` of them at all, that count, its strings not looked
    at)."""
    count = text.count("{") + text.count("[")
    if count <= MAX_JSON_CONTAINERS:
        return count
    text = _JSON_STRING.sub("", text)
    return text.count("{") + text.count("[")


def too_many_containers(text: str, most: int = MAX_JSON_CONTAINERS) -> str | None:
    """Why a notebook of JSON ``text`` is not read, or ``None``: more than ``most`` objects and arrays."""
    count = json_containers(text)
    if count <= most:
        return None
    return (f"it holds {count:,} JSON objects and arrays, more than the {most:,} a submission may have (reading so "
            "many costs nbgrader minutes of CPU time and gigabytes of memory)")


# Characters of what the learner's cells printed or raised that the autograded notebook keeps, all its cells together (a
# stream is capped at 20,000 a cell, an error at some 62,000): 2,000 cells printing made 80 MB of outputs, written into
# the autograded notebook, the feedback and the formgrader's page (tests/test_grading_redteam.py, section 98). The
# course's solutions print a few hundred characters in all.
MAX_LEARNER_OUTPUT_CHARS = 1_000_000
# Characters of attachments (images pasted into markdown cells: their names, types and base64 data) a submission keeps,
# all its cells together (:func:`bounded_attachments`, in autograde's first sanitizing step): each is written into the
# autograded notebook, and into the feedback's and the formgrader's page once a cell (section 95), so 1,900 cells of one
# 48 KB image each (a 92 MB notebook, under the exchange's max_dir_size) made 92 MB of each page and of the autograded
# copy (tests/test_grading_redteam.py, section 115). No lab's notebook holds one; a few screenshots fit.
MAX_ATTACHMENT_CHARS = 4_000_000


def bounded_attachments(cells: list, most: int = MAX_ATTACHMENT_CHARS) -> list[str]:
    """Keep ``most`` characters of the ``cells``' attachments in all, in the notebook's order: the first attachment that
    does not fit, and every one after it, is dropped from its cell (an attachment that is no name's bundle of text
    data too), where the pages show its images as text saying it is not in the notebook
    (:func:`bpe_ref.course.printable.markdown_html`). The names dropped."""
    dropped, left = [], most
    for cell in cells:
        attachments = cell.get("attachments") if isinstance(cell, dict) else None
        if attachments is None:
            continue
        if not isinstance(attachments, dict):
            del cell["attachments"]
            dropped.append("(attachments that are no names' data)")
            continue
        for name in list(attachments):
            bundle = attachments[name]
            size = len(str(name)) + (sum(len(str(kind)) + (len(data) if isinstance(data, str) else most + 1)
                                         for kind, data in bundle.items()) if isinstance(bundle, dict) else most + 1)
            if size > left:
                left = 0
                del attachments[name]
                dropped.append(str(name))
            else:
                left -= size
    return dropped


# Where a lab's graders are found: ``<GRADERS_PACKAGE>.lab<lab>``. Looked up by name when a notebook is graded
# (:func:`load_graders`), never imported with this module: the trusted side's code does not depend on the graders'.
GRADERS_PACKAGE = __package__.rsplit(".", 1)[0] + ".checks"


def load_graders(lab: str) -> Any:
    """The grader module of ``lab`` (its ``check_*`` functions and ``GRADING_POLICY``), imported by name."""
    return importlib.import_module(f"{GRADERS_PACKAGE}.lab{lab}")


# A verdict's message as the trusted record keeps it (and a failed test cell shows it: ``_error_output``): a grader's
# message quotes the learner's values and errors, each bounded, but in any number (tests/test_grading_redteam.py, 93).
MAX_VERDICT_CHARS = 20_000


@dataclass
class Verdict:
    grade_id: str
    points: float
    passed: bool
    message: str

    def __post_init__(self) -> None:
        self.message = capped(self.message, MAX_VERDICT_CHARS)


@dataclass
class GradingRecord:
    """What the trusted grader decided for one notebook."""

    lab: str
    notebook: str
    student: str
    isolation: list[str] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    seconds: float = 0.0
    seed: int | None = None  # the hidden inputs' seed (a regrade with it draws the same inputs)
    # What the worker's processes did, seen from outside (the keeper's report, the scratch folder
    # looked at with lstat): one line each, for the instructor's review; the refused system calls first.
    behaviour: list[str] = field(default_factory=list)
    # System calls the sandbox refused, by name, and files Landlock refused ("read PATH", "write PATH"),
    # as the keepers of every worker of this notebook counted them.
    refused: dict[str, int] = field(default_factory=dict)
    refused_files: dict[str, int] = field(default_factory=dict)
    # The limits the learner's code ran under, as the self-grade tells them (grade.isolation_summary): CPU seconds of a
    # call, of a cell and of the whole notebook, and MiB of memory of each of the worker's processes.
    limits: dict[str, float] = field(default_factory=dict)

    def note(self, report: dict) -> None:
        """Add what one worker did (:meth:`Sandbox.behaviour`) to :attr:`behaviour`."""
        for key, counts in (("refused", self.refused), ("refused_files", self.refused_files)):
            for name, count in dict(report.get(key) or {}).items():
                if name in counts or len(counts) < MAX_REFUSED_NAMES:
                    counts[str(name)] = counts.get(str(name), 0) + int(count)
        others = [line for line in self.behaviour if not line.startswith((REFUSED_LINE, REFUSED_FILES_LINE))]
        for line in behaviour_lines({**report, "refused": {}, "refused_files": {}}):
            if line not in others:
                others.append(line)
        self.behaviour = refused_lines(self.refused, self.refused_files) + others

    @property
    def earned(self) -> float:
        return sum(v.points for v in self.verdicts if v.passed)

    def save(self, course: Path) -> Path:
        path = course / RECORDS_DIR / self.student / self.lab / f"{self.notebook}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=1) + "\n", encoding="utf-8")
        return path

    @staticmethod
    def load(course: Path, student: str, lab: str, notebook: str) -> GradingRecord | None:
        path = course / RECORDS_DIR / student / lab / f"{notebook}.json"
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        data["verdicts"] = [Verdict(**v) for v in data["verdicts"]]
        known = set(GradingRecord.__dataclass_fields__)
        return GradingRecord(**{key: value for key, value in data.items() if key in known})


REFUSED_LINE = "made system calls the sandbox refused: "
REFUSED_FILES_LINE = "opened files the sandbox refused: "
MAX_REFUSED_NAMES = 32
# What each refused call (named by the keeper, :func:`.worker.confinement.refusal`) would have done.
REFUSED_WHAT = {"socket": "network", "execve": "run a program", "execveat": "run a program", "fork": "a new process",
                "vfork": "a new process", "clone": "a new process", "seccomp": "a seccomp filter of its own",
                "prctl(PR_SET_SECCOMP)": "a seccomp filter of its own", "io_uring_setup": "io_uring",
                "io_uring_enter": "io_uring", "io_uring_register": "io_uring",
                **dict.fromkeys(("rt_sigaction(SIGCHLD, SIG_IGN)", "rt_sigaction(SIGCHLD, SA_NOCLDWAIT)",
                                 "rt_sigaction(SIGCHLD, unread)"), "children nobody waits for, their CPU time uncounted"),
                "prctl(PR_SET_CHILD_SUBREAPER)": "a subreaper of its own"}


def refused_lines(refused: dict[str, int], files: dict[str, int] | None = None) -> list[str]:
    """The system calls the sandbox refused (``{name: count}``) and the files it refused to open
    (``{"read PATH": count}``), a review line each; none if none."""
    lines = []
    if refused:
        parts = []
        for name, count in sorted(refused.items(), key=lambda item: (-item[1], item[0])):
            what = REFUSED_WHAT.get(name.split("(")[0] if name.startswith("socket(") else name)
            parts.append(f"{name}{f' ({what})' if what else ''} x{count}")
        lines.append(REFUSED_LINE + ", ".join(parts))
    if files:
        lines.append(REFUSED_FILES_LINE + ", ".join(f"{name} x{count}" for name, count in
                                                     sorted(files.items(), key=lambda item: (-item[1], item[0]))))
    return lines


def behaviour_lines(report: dict) -> list[str]:
    """The keeper's report of one worker (:meth:`Sandbox.behaviour`) as review lines; none for a
    worker that did nothing a lab's honest code does not."""
    lines = refused_lines(dict(report.get("refused") or {}), dict(report.get("refused_files") or {}))
    if report.get("left_session"):
        lines.append(f"started {report['left_session']} process(es) that left the worker's session (killed at the end)")
    if report.get("reason"):
        lines.append(f"was stopped: {report['reason']}")
    if report.get("report_lost"):
        lines.append(f"was not reported on: {report['report_lost']}")
    for path in report.get("shm_removed", []):  # a pool's semaphores are removed, not flagged (keeper.py)
        lines.append(f"left {path} behind (removed)")
    if report.get("shm_removed_more"):
        lines.append(f"left {report['shm_removed_more']} more file(s) in /dev/shm behind (removed)")
    for odd in report.get("odd_files", []):
        lines.append(f"made {odd} in its folder")
    return lines + noticed_lines(report.get("noticed") or [])


# What the worker's audit hook noted (``worker/__main__.py``, ``Worker.noticing`` and ``Worker.told``): codes, each told
# here in this side's words; a graded function's name (an identifier) follows the last two.
NOTICED = {"__code__": "replaced a function's code, setting its __code__",
           "code.__new__": "made a code object by hand, with code.replace or types.CodeType",
           "function.__new__": "made a function of a code object, with types.FunctionType",
           "__module__": "gave {} a __module__ other than its own module's, as if another module's",
           "__qualname__": "gave {} a __qualname__ other than its code's"}


def noticed_lines(codes: list[str]) -> list[str]:
    """The review lines of what the worker's own audit hook noted (:data:`NOTICED`), said to be its word; unknown
    codes left out, and names not of ASCII letters, digits and underscores (every graded function's: another script's
    letters reorder the line around them)."""
    lines = []
    for code in sorted(set(codes)):
        what, _, name = str(code).partition(" ")
        if what in NOTICED and ("{}" in NOTICED[what]) == (name.isascii() and name.isidentifier()):
            lines.append(f"{NOTICED[what].format(name)} (the worker's own report)")
    return lines


def python_source(cell_source: str, cpu_seconds: float | None = None) -> str:
    """A cell's code as plain Python: IPython's ``%magics`` and ``!commands`` become calls of
    ``get_ipython()``, which the worker answers by skipping them. IPython tokenizes the whole cell again for each such
    line, 500 times at most: a cell of them cost this process minutes, so past ``cpu_seconds`` of this process's CPU time
    (a cell's limit; in the main thread) the cell is sent as it is (``tests/test_grading_redteam.py``, section 35)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # nbgrader always brings IPython; without it, the code is run as it is
        return cell_source
    transform = TransformerManager().transform_cell
    try:
        return transform(cell_source) if cpu_seconds is None else within_cpu(cpu_seconds, transform, cell_source)
    except (Exception, OutOfCpuTime):  # not even IPython can read it, or not in time: the worker reports the SyntaxError
        return cell_source


def lab_policy(graders: Any, base: Policy) -> Policy:
    """``base`` with what the lab's graders ask for (``GRADING_POLICY = {"allow_processes": True}``)."""
    from .review import REVIEW_ONLY_POLICY

    wanted = getattr(graders, "GRADING_POLICY", {})
    return replace(base, **{key: value for key, value in wanted.items() if key not in REVIEW_ONLY_POLICY})


def _output_chars(output: dict) -> int:
    """The characters of one output of a learner's cell (:meth:`.sandbox.CellRun.outputs`: a stream or an error)."""
    lines = output.get("traceback")
    return (len(output.get("text", "")) + len(output.get("ename", "")) + len(output.get("evalue", ""))
            + (sum(len(line) for line in lines) if isinstance(lines, list) else 0))


def _within(outputs: list[dict], left: int) -> tuple[list[dict], int]:
    """``outputs`` of a learner's cell as kept when ``left`` characters of :data:`MAX_LEARNER_OUTPUT_CHARS` are left,
    and what is left after them: the first that does not fit, and those after it, are a line saying so."""
    kept = []
    for output in outputs:
        size = _output_chars(output)
        if size > left:
            kept.append({"output_type": "stream", "name": "stderr", "text": f"({size:,} characters of output not kept: "
                         f"the notebook's cells keep {MAX_LEARNER_OUTPUT_CHARS:,} in all)\n"})
            return kept, 0
        kept.append(output)
        left -= size
    return kept, left


def _error_output(ename: str, message: str) -> dict:
    message = capped(message)
    return {"output_type": "error", "ename": ename, "evalue": message, "traceback": [f"{ename}: {message}"]}


SEED_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")


def course_seed(course: Path, name: str = "hidden_seed") -> int:
    """The course's secret seed for hidden inputs, made at the first autograde in ``trusted_grades/``
    (beside the gradebook) and read at every later one, so that a regrade draws the same inputs. ``name``: the file
    that holds it; another name, another seed, kept as well (``TrustedExecute.seed_name``: work handed in after the
    feedback, which may show the inputs a learner's cell printed, tests/test_grading_redteam.py, section 66), in
    ``trusted_grades/.seeds/``: a student's records are ``trusted_grades/<id>/``, and a student named as the seed, graded
    before it was made, would have stopped the batch graded under it (no id is a hidden folder's name: nbgrader and
    ``students_of`` skip those)."""
    import secrets

    if not SEED_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is no seed's name: letters, digits, '_', '.', '-' (not first), 64 at most")
    folder = course / RECORDS_DIR if name == "hidden_seed" else course / RECORDS_DIR / ".seeds"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if not path.exists():  # written whole, then linked: nbgrader processes that start at once read one seed, never ""
        import tempfile

        fd, written = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(f"{secrets.randbits(63)}\n")
            with contextlib.suppress(FileExistsError):
                os.link(written, path)
        finally:
            os.unlink(written)
    return int(path.read_text(encoding="utf-8").strip())


def grade_cells(cells: list[dict], lab: str, *, policy: Policy = Policy(), total_seconds: float = 300.0,
                student: str = "", notebook: str = "", seed: int | None = None, whole_class: bool = False) -> GradingRecord:
    """Run ``cells`` (updated in place with outputs) the trusted way; the record.

    The learner's cells run in the submission's order, the test cells are graded in the source's
    (a test cell met early has the source's earlier ones graded first, where it stands): a task is
    graded before any stand-in for it is bound, and no stand-in defines a function still to be graded
    (:attr:`Sandbox.not_graded_yet`). ``seed``, ``whole_class``: see :func:`.verdicts.hidden_seed`."""
    start, cpu_start, busy_start = time.monotonic(), time.process_time(), sum(scheduled_threads().values())
    for cell in cells:
        # nbconvert leaves out the source of a cell whose metadata says ``transient.remove_source``, which no Jupyter
        # writes: nbgrader's formgrade and feedback pages showed such a cell's output without its code, to an instructor
        # reviewing what it did (tests/test_grading_redteam.py, section 59). Flagged from the submission (review.tampering).
        if isinstance(cell.get("metadata"), dict):
            cell["metadata"].pop("transient", None)
    graders = load_graders(lab)
    spec_list = test_cells.load(lab)
    specs = {cell.grade_id: cell for cell in spec_list}
    order = [cell.grade_id for cell in spec_list]  # the source's order
    policy = lab_policy(graders, policy)
    record = GradingRecord(lab, notebook or lab, student, seed=seed, limits={
        "call_seconds": policy.call_timeout, "cell_seconds": policy.cell_timeout, "notebook_seconds": total_seconds,
        "memory_mb": policy.memory_mb})
    by_id = {}
    for cell in cells:
        if is_test_cell(cell):
            by_id.setdefault(nbgrader_of(cell).get("grade_id"), cell)
    graded: set[str] = set()
    with Sandbox(policy) as box, hidden_seed(seed, whole_class=whole_class):
        record.isolation = list(box.isolation)
        # Every cell, call and replay of the notebook's ends once it has spent its CPU seconds, or waited too long (a
        # backstop of wall time in which nothing of it ran nor waited for a CPU); the CPU time of the grading's start
        # (the worker, the graders loaded) counts, and of its wall time what this process did not spend running or
        # waiting for a CPU (on a loaded machine the graders' import alone outlasted a backstop of 4 s).
        busy = (sum(scheduled_threads().values()) - busy_start) / 1e9
        box.budget(total_seconds, total_seconds * max(1.0, box.policy.wall_factor), time.process_time() - cpu_start,
                   max(0.0, time.monotonic() - start - busy))
        ran: list[tuple[str, str]] = []  # learner cells that ran cleanly, replayed after a restart
        output_left = MAX_LEARNER_OUTPUT_CHARS  # what the learner's cells printed or raised, kept in all

        def spent() -> str:
            return f"not run: {box.out_of_budget()}"

        def restart_and_replay() -> None:
            if box.out_of_budget():
                return  # nothing of this notebook's may run any more: no worker needed
            record.note(box.restart())
            box.measured_passes.clear()  # the functions are defined again, by cells run again
            for code, name in ran:
                box.run_cell(code, name)

        def grade(cell: dict, name: str) -> None:
            graded.add(name)
            meta = nbgrader_of(cell)
            spec = specs.get(name)
            points = float(meta.get("points", 0))
            if spec is None:
                verdict = Verdict(name, points, False, f"no grader is recorded for the test cell {name!r} of {lab}")
            elif box.out_of_budget():
                verdict = Verdict(name, points, False, spent())
            else:
                if not box.alive:
                    restart_and_replay()
                later = order[order.index(name) + 1:]
                box.not_graded_yet = {function for grade_id in later for function in specs[grade_id].functions}
                verdict, printed = run_test(spec, graders, box, points)
                cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": capped(printed)}] if printed else []
                if not box.alive:  # the learner's code timed out or died during the check
                    restart_and_replay()
            if not verdict.passed:
                cell["outputs"] = [_error_output("CheckFailed", verdict.message)]
            record.verdicts.append(verdict)
            cell["execution_count"] = None

        for index, cell in enumerate(cells):
            if cell.get("cell_type") != "code":
                continue
            meta = nbgrader_of(cell)
            name = meta.get("grade_id") or cell.get("id") or f"cell{index}"
            if not is_test_cell(cell):
                if box.out_of_budget():
                    cell["outputs"] = [_error_output("CellSkipped", spent())]
                    continue
                if not box.alive:
                    restart_and_replay()
                code = python_source(source_of(cell), box.policy.cell_timeout)
                # A measure passed in a task's visible test stands for its hidden test only while the function is the
                # one measured: a cell may define it again (redteam section 48). None runs between the two in the source.
                box.measured_passes.clear()
                run = box.run_cell(code, name)
                cell["outputs"], output_left = _within(run.outputs(), output_left)
                if run.ok:
                    ran.append((code, name))
                continue
            if name in graded:
                continue  # a duplicate, or graded already because a later test cell came first
            if name in specs:  # the source's earlier test cells first
                for earlier in order[: order.index(name)]:
                    if earlier not in graded and earlier in by_id:
                        grade(by_id[earlier], earlier)
            grade(cell, name)
        for cell in cells:  # what the learner's code printed or raised, written where no UTF-8 file could hold it
            if cell.get("cell_type") == "code":
                cell["outputs"] = _utf8(cell.get("outputs", []))
        box.close()
        record.note(box.behaviour())
    record.seconds = round(time.monotonic() - start, 2)
    return record


def _utf8(value: Any) -> Any:
    """``value`` (an output of a cell) with every lone surrogate of its strings written as a Python escape: one crosses
    the wire, and the notebook holding it could not be written (``tests/test_grading_redteam.py``, section 35)."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_utf8(item) for item in value]
    if isinstance(value, dict):
        return {_utf8(key): _utf8(item) for key, item in value.items()}
    return value


def run_test(spec: test_cells.TestCell, graders: Any, box: Sandbox, points: float) -> tuple[Verdict, str]:
    """Run one grader on the learner's functions in ``box``: the verdict, and what it printed."""
    grader = getattr(graders, spec.grader, None)
    if not getattr(grader, "is_grader", False):
        return Verdict(spec.grade_id, points, False, f"the graders of this lab have no {spec.grader}"), ""
    functions = [RemoteFunction(box, name) for name in spec.functions]
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            grader(*functions)
    except CheckFailed as failure:
        return Verdict(spec.grade_id, points, False, str(failure)), ""
    except GradingStopped as stopped:
        return Verdict(spec.grade_id, points, False, str(stopped)), ""
    except Exception as problem:  # a fault of the grading itself: never a pass, and said as such
        return Verdict(spec.grade_id, points, False,
                       f"the grader itself failed ({type(problem).__name__}: {problem}); tell your instructor"), ""
    return Verdict(spec.grade_id, points, True, printed.getvalue().strip()), printed.getvalue()


try:  # the nbgrader preprocessor; the functions above work without nbgrader
    from nbgrader.preprocessors import NbGraderPreprocessor
    from traitlets import Bool, Float, Integer, Unicode
except ImportError:  # pragma: no cover - nbgrader is in the course's dev extra
    NbGraderPreprocessor = None

if NbGraderPreprocessor is not None:

    class TrustedExecute(NbGraderPreprocessor):
        """nbgrader autograde preprocessor: run the submission confined, decide in this process."""

        call_timeout = Float(30.0, help="CPU seconds for one call of a learner's function: of the worker and every "
                             "process it started, measured from outside, so a busy machine fails no call.").tag(config=True)
        cell_timeout = Float(30.0, help="CPU seconds for running one cell of the learner's, counted as call_timeout's."
                             ).tag(config=True)
        wall_factor = Float(4.0, help="A call or cell that waits (sleeps, blocks) is stopped after this many times its "
                            "CPU seconds of wall time in which none of its processes ran or waited for a CPU (at least 1)."
                            ).tag(config=True)
        total_timeout = Float(300.0, help="CPU seconds for grading one notebook, its cells, calls and test cells: the grader's "
                              "and the learner's processes', so a busy machine fails no notebook; one that waits is stopped "
                              "after wall_factor times as many seconds of wall time in which neither the grader nor its processes "
                              "ran or waited for a CPU.").tag(config=True)
        memory_mb = Integer(2048, help="Address space of each of the worker's processes, MiB, and where a lab allows "
                            "processes, the memory resident in all of them together.").tag(config=True)
        seed_name = Unicode("hidden_seed", help="The file of trusted_grades/ that holds the hidden inputs' seed (made at "
                            "its first autograde). Grade work handed in after the feedback went out under another name: "
                            "the feedback shows what a learner's cells printed, the inputs of the hidden tests among it, "
                            "and every notebook graded under one seed draws the same.").tag(config=True)
        whole_class = Bool(True, help="The notebooks graded share the course's seed: each property test's hidden inputs "
                           "are drawn once and replayed (python -m bpe_ref grade, one notebook, turns it off).").tag(config=True)

        def preprocess(self, nb, resources):
            info = resources.get("nbgrader", {})
            lab, student, notebook = info.get("assignment"), info.get("student", ""), info.get("notebook", "")
            policy = Policy(memory_mb=self.memory_mb, call_timeout=self.call_timeout, cell_timeout=self.cell_timeout,
                            wall_factor=self.wall_factor)
            from nbgrader.coursedir import CourseDirectory

            course = Path(CourseDirectory(parent=self).root)
            record = grade_cells(nb.cells, lab, policy=policy, total_seconds=self.total_timeout,
                                 student=student, notebook=notebook, seed=course_seed(course, self.seed_name),
                                 whole_class=self.whole_class)
            # nbformat wants NotebookNodes; the outputs were set as plain dicts
            from nbformat import from_dict

            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs = [from_dict(output) for output in cell.get("outputs", [])]
            saved = record.save(course)
            self.log.info("Trusted grading of %s/%s: %g points in %.1f s; isolation: %s; record: %s",
                          student, notebook, record.earned, record.seconds, " | ".join(record.isolation), saved)
            return nb, resources

    from nbgrader.nbgraderformat import MetadataValidator
    from nbgrader.preprocessors import DeduplicateIds, OverwriteCells

    class BoundedSubmission(NbGraderPreprocessor):
        """The first of autograde's sanitizing steps (``nbgrader_config.py``): a submission of more cells, or outputs, than
        any lab's work could need is not graded (nbgrader logs the error; ``grade --class`` reports it not graded, scored
        0). nbgrader's steps before and after the trusted grading (validating, copying, writing the notebook, its
        gradebook and feedback) cost some 0.4 ms of CPU time a cell, outside the notebook's budget (``total_timeout``):
        200,000 empty markdown cells (15 MB, under the exchange's ``max_dir_size``) cost the class's autograde 76 s of CPU
        and 1.2 GB of memory, 100 MB some 8 minutes and 8 GB (``tests/test_grading_redteam.py``, section 47). The
        attachments it keeps are bounded in all (:func:`bounded_attachments`: the autograded notebook and the pages made
        of it held every one, section 115)."""

        max_cells = Integer(MAX_CELLS, help="Cells a submitted notebook may have: the largest lab's source has 35."
                            ).tag(config=True)
        max_outputs = Integer(MAX_OUTPUTS, help="Outputs a submitted notebook's cells may have in all (autograde clears "
                              "them).").tag(config=True)
        max_attachment_chars = Integer(MAX_ATTACHMENT_CHARS, help="Characters of attachments (images pasted into "
                                       "markdown) a submitted notebook keeps in all; those past it are dropped, their "
                                       "images shown as text.").tag(config=True)

        def preprocess(self, nb, resources):
            # (a cell or its outputs of another shape is for nbgrader's own checks to refuse, as before)
            outputs = sum(len(cell["outputs"]) for cell in nb.cells if isinstance(cell, dict) and isinstance(cell.get("outputs"), list))
            if len(nb.cells) > self.max_cells or outputs > self.max_outputs:
                raise ValueError(f"not graded: the notebook has {len(nb.cells):,} cells and {outputs:,} outputs, more than "
                                 f"the {self.max_cells:,} cells and {self.max_outputs:,} outputs a submission may have")
            dropped = bounded_attachments(nb.cells, self.max_attachment_chars)
            if dropped:
                self.log.warning("%d attachment(s) not kept, past the %s characters of attachments a submission keeps: %s",
                                 len(dropped), f"{self.max_attachment_chars:,}", ", ".join(dropped[:5])[:200])
            return nb, resources

    from nbconvert.exporters import NotebookExporter

    class BoundedNotebookExporter(NotebookExporter):
        """The exporter of ``nbgrader autograde`` (``nbgrader_config.py``): a notebook of more JSON objects and arrays
        than ``max_containers`` is not read, the notebook not graded (nbgrader logs why; ``grade --class`` reports it
        not graded). nbgrader reads a submission, nbformat validating every node of it, before its first preprocessor
        (:class:`BoundedSubmission`) can count its cells: 1,000,000 ``{}`` in one cell's metadata cost 38 s of CPU time
        and 2.3 GB of memory (``tests/test_grading_redteam.py``, section 94)."""

        max_containers = Integer(MAX_JSON_CONTAINERS, help="JSON objects and arrays a submitted notebook may hold in "
                                 "all (the largest lab's notebook holds some 200).").tag(config=True)

        def from_filename(self, filename, resources=None, **kw):
            with open(filename, encoding="utf-8", errors="replace") as file:
                why = too_many_containers(file.read(), self.max_containers)
            if why:
                raise ValueError(f"not graded: {filename}: {why}")
            return super().from_filename(filename, resources, **kw)

    class NamedDeduplicateIds(DeduplicateIds):
        """nbgrader's ``DeduplicateIds``, which failed the notebook (a ``KeyError``) on a cell marked graded, a solution
        or read-only with no grade_id, as a learner may mark one: such metadata is dropped, a plain cell, as
        :class:`RestoringOverwriteCells` makes one whose grade_id the gradebook lacks (flagged: ``review.tampering``;
        ``tests/test_grading_redteam.py``, section 35). A cell that holds a grade_id unmarked (neither graded, a solution
        nor read-only) where another cell holds it marked, or a later one unmarked, is a plain cell too
        (:func:`.cells.kept_grade_ids`): nbgrader put the marks of its grade_id back, two test cells of one grade_id,
        and refused the notebook (section 117)."""

        def preprocess(self, nb, resources):
            kept = test_cells.kept_grade_ids(nb.cells)
            for index, cell in enumerate(nb.cells):
                meta = cell.get("metadata", {}).get("nbgrader") if isinstance(cell.get("metadata"), dict) else None
                grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
                if isinstance(grade_id, str) and kept.get(grade_id, index) != index:
                    if not (meta.get("grade") or meta.get("solution") or meta.get("locked")):
                        del cell.metadata["nbgrader"]
            return super().preprocess(nb, resources)

        def preprocess_cell(self, cell, resources, cell_index):
            meta = cell.metadata.get("nbgrader")
            if meta is not None and not (isinstance(meta, dict) and meta.get("grade_id")):
                del cell.metadata["nbgrader"]
            return super().preprocess_cell(cell, resources, cell_index)

    class RestoringOverwriteCells(OverwriteCells):
        """nbgrader's ``OverwriteCells``, whose putting back of deleted test cells cannot fail: nbgrader's
        looks up the cell before it among solution and test cells only, a ``KeyError`` after a read-only
        cell (lab 10's ``task_graph``); here it goes after the nearest earlier source cell still there.
        It puts back every cell's ``schema_version``, ``grade`` and ``solution`` too, and makes a cell whose grade_id is
        gone a plain cell: each stopped the grading of a class, or of the notebook (``tests/test_grading_redteam.py``,
        section 35)."""

        schema_version = MetadataValidator().schema_version

        def preprocess(self, nb, resources):
            self.flags = None  # {grade_id: (grade, solution)} of the source notebook, read at its first cell
            return super().preprocess(nb, resources)

        def preprocess_cell(self, cell, resources, cell_index):
            meta = cell.metadata.get("nbgrader")
            if isinstance(meta, dict) and meta.get("grade_id"):
                if self.flags is None:
                    source = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
                    graded, solutions = {c.name for c in source.grade_cells}, {c.name for c in source.solution_cells}
                    self.flags = {c.name: (c.name in graded, c.name in solutions) for c in source.source_cells}
                if meta["grade_id"] in self.flags:
                    # Not put back by nbgrader: its checksum of the restored source then differs, a RuntimeError.
                    meta["grade"], meta["solution"] = self.flags[meta["grade_id"]]
                    if meta["grade"]:
                        meta.setdefault("points", 0.0)  # put back below
            cell, resources = super().preprocess_cell(cell, resources, cell_index)
            meta = cell.metadata.get("nbgrader")
            if isinstance(meta, dict) and not meta.get("grade_id"):
                # A cell copied in Jupyter (DeduplicateIds empties all but the last) or from another notebook (a
                # grade_id the gradebook lacks, deleted above): nbgrader's next step fails the notebook on it, a KeyError.
                del cell.metadata["nbgrader"]
            elif isinstance(meta, dict) and meta.get("schema_version") != self.schema_version:
                # nbgrader gives up on the whole class at a schema_version not its own (CheckCellMetadata's
                # SchemaTooOldError, SchemaTooNewError): a learner's, put back as points are, stops no one else's grading.
                meta["schema_version"] = self.schema_version
            return cell, resources

        def add_missing_grade_cells(self, nb, resources):
            source_nb = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
            source_cells = source_nb.source_cells
            source_ids = [cell.name for cell in source_cells]
            grade_cells = {cell.name: cell for cell in source_nb.grade_cells}
            solution_ids = {cell.name for cell in source_nb.solution_cells}
            for index, grade_id in enumerate(source_ids):
                if grade_id not in grade_cells:
                    continue
                present = {cell.metadata.get("nbgrader", {}).get("grade_id"): i for i, cell in enumerate(nb.cells)}
                if grade_id in present:
                    continue
                self.log.warning("Missing grade cell %s encountered, adding to notebook", grade_id)
                position = next((present[earlier] + 1 for earlier in reversed(source_ids[:index]) if earlier in present), 0)
                cell = self.missing_cell_transform(source_cells[index], grade_cells[grade_id].max_score,
                                                   is_solution=grade_id in solution_ids)
                nb.cells.insert(position, cell)
            return nb, resources

    import stat
    import tempfile
    from datetime import datetime, timedelta, timezone

    from nbgrader.exchange.default.collect import ExchangeCollect

    from ..printable import shown

    def _owner(uid: int) -> str:
        import pwd

        try:
            return pwd.getpwuid(uid).pw_name
        except KeyError:
            return f"uid {uid}"

    class LinkFreeCollect(ExchangeCollect):
        """nbgrader's exchange ``collect`` (``nbgrader_config.py``), copying a submission from the inbound folder, where
        the learner writes, without following a link (nbgrader's copied a link to the course's solutions with the
        instructor's rights: ``tests/test_grading_redteam.py``, section 37). Each entry is opened ``O_NOFOLLOW`` beneath
        the folder opened before it, so a link swapped in meanwhile is not followed either; links, hard links (a file
        the user cannot read, linked) and what is neither a file nor a folder are left out and logged. The copy, made in
        a folder of this process's, then goes through nbgrader's own (its size limits, ignored files, permissions).
        What stopped nbgrader's collect for the whole class is bounded: at most 32 levels and 10,000 entries (nbgrader's
        ``os.walk`` recursed), a time in the name nbgrader cannot read is left out. A student id is a hub user's name
        (letters, digits and ``_ . @ + -``): a line break stopped the class's autograde, quotes or ``<>`` ran a script
        in the formgrader's pages. With ``check_owner`` (each user an account of their own) the folder must be that
        user's and every entry in it too (nbgrader only warned, and a classmate's folder replaced the submitter's work).

        The time handed in, which nbgrader's late penalty reads, is not the learner's word (the folder's name and its
        ``timestamp.txt``): the copy writes its own, the later of the name's time and the latest ``st_ctime`` of what was
        copied, read after its copy, less ``clock_slack``. No owner can set a ctime to the past; the top folder's own is
        left out (nbgrader makes it writable by all)."""

        clock_slack = 60.0  # seconds: what nbgrader's submit takes to copy after it took its time, and clock skew
        most = {"entries": 10_000, "levels": 32}  # copied of a folder handed in, with max_dir_size's bytes

        def _path_to_record(self, path):
            try:
                record = super()._path_to_record(path)
            except Exception as err:  # a time dateutil cannot read (ValueError), a name nbgrader refuses (ExchangeError)
                record = {"username": None, "filename": os.path.basename(path), "why": f"{type(err).__name__}: {err}"}
            student = record["username"]
            if "why" not in record and not re.fullmatch(r"\w[\w.@+-]*", student):
                record["why"] = "not a student id: letters, digits and _ . @ + - only"
            if "why" not in record and self.check_owner:  # nbgrader's only warned, and took the folder as the id's
                owner = _owner(os.lstat(path).st_uid)
                if owner != student:
                    record["why"] = f"handed in by {owner}, not by {student}"
            if "why" in record:  # a group of its own, left out by init_src
                record.update(username=("refused", record["filename"]), timestamp=datetime.min)
            return record

        def init_src(self):
            super().init_src()
            for record in [record for record in self.src_records if "why" in record]:
                self.log.warning("Not collected: %s (%s)", shown(record["filename"]), shown(record["why"]))
                self.src_records.remove(record)

        def do_copy(self, src, dest, log=None):
            try:
                fd = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            except OSError as err:  # the folder handed in is a link (to the course's solutions/<lab>, say)
                self.log.warning("Not collected: %s (%s; a link is never followed)", shown(src), err.strerror)
                return
            # What may still be copied: bytes (nbgrader's max_dir_size), entries, levels.
            self._left = {"bytes": 1000 * self.coursedir.max_dir_size, **self.most}
            # With check_owner, what another user put in the folder (writable by all) is not the submitter's.
            self._owner = os.fstat(fd).st_uid if self.check_owner else None
            with tempfile.TemporaryDirectory(prefix="collect_") as scratch:
                try:
                    changed = self._copy_beneath(fd, src, Path(scratch, "submission"))
                except OverflowError as err:
                    self.log.warning("Not collected: %s (more than %s)", shown(src), err)
                    return
                finally:
                    os.close(fd)
                super().do_copy(os.path.join(scratch, "submission"), dest, log)
            claimed = super()._path_to_record(src)["timestamp"]  # the time in its name
            filed = datetime.fromtimestamp(changed, timezone.utc).replace(tzinfo=None) - timedelta(seconds=self.clock_slack)
            if filed > claimed:
                self.log.warning("%s: dated %s, its files changed at %s: collected as handed in then", shown(src),
                                 claimed, filed + timedelta(seconds=self.clock_slack))
            Path(dest, "timestamp.txt").write_text(max(claimed, filed).strftime("%Y-%m-%d %H:%M:%S.%f UTC"))

        def _copy_beneath(self, folder: int, where: str, dest: Path) -> float:
            """Copy the folder open at ``folder`` into ``dest``: the latest ctime of what it copied, read after."""
            dest.mkdir()
            changed = 0.0
            self._spend("levels", 1)
            for name in os.listdir(folder):
                self._spend("entries", 1)
                try:
                    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
                except OSError as err:  # ELOOP: a link
                    self.log.warning("Not collected: %s (%s; a link is never followed)", os.path.join(where, name), err.strerror)
                    continue
                try:
                    status = os.fstat(fd)
                    if self._owner is not None and status.st_uid != self._owner:
                        self.log.warning("Not collected: %s (%s's, not the folder owner's)", os.path.join(where, name),
                                         _owner(status.st_uid))
                        continue
                    if stat.S_ISDIR(status.st_mode):
                        changed = max(changed, self._copy_beneath(fd, os.path.join(where, name), dest / name))
                    elif stat.S_ISREG(status.st_mode) and status.st_nlink == 1:
                        self._spend("bytes", status.st_size)
                        with open(os.dup(fd), "rb") as source, open(dest / name, "wb") as target:
                            # its size as it was opened: a file the learner's process grows would fill the disk
                            while (left := status.st_size - target.tell()) > 0 and (part := source.read(min(left, 1 << 20))):
                                target.write(part)
                    else:
                        self.log.warning("Not collected: %s (%s)", os.path.join(where, name), "a hard link" if
                                         stat.S_ISREG(status.st_mode) else "neither a file nor a folder")
                        continue
                    changed = max(changed, os.fstat(fd).st_ctime)
                finally:
                    os.close(fd)
            self._left["levels"] += 1
            return changed

        def _spend(self, what: str, amount: int) -> None:
            self._left[what] -= amount
            if self._left[what] < 0:
                raise OverflowError("CourseDirectory.max_dir_size" if what == "bytes" else f"{self.most[what]:,} {what}")

    import csv

    from nbgrader.api import MissingEntry
    from nbgrader.plugins.export import CsvExportPlugin

    def _inert(value: Any) -> str:
        """A text field as a spreadsheet shows it and runs none of: one that starts as a formula gets a ``'`` first."""
        text = "" if value is None else str(value)
        return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text

    class QuotedCsvExport(CsvExportPlugin):
        """nbgrader's ``export`` to CSV (``nbgrader_config.py``), its columns and rows, each field quoted as CSV wants and
        each text field :func:`_inert`. nbgrader's joins the fields with commas as they are, and a student id is the
        name of the folder a learner hands in to the exchange: one holding commas and line breaks wrote a row of its
        own, a classmate's id with 100 points, and one starting with ``=`` a formula the spreadsheet ran
        (``tests/test_grading_redteam.py``, section 37)."""

        def export(self, gradebook) -> None:
            students, labs = {str(item) for item in self.student}, {str(item) for item in self.assignment}
            with open(self.to or "grades.csv", "w", newline="", encoding="utf-8") as file:
                rows = csv.writer(file)
                rows.writerow(["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
                               "raw_score", "late_submission_penalty", "score", "max_score"])
                for lab in (lab for lab in gradebook.assignments if not labs or lab.name in labs):
                    for student in (student for student in gradebook.students if not students or student.id in students):
                        try:
                            done = gradebook.find_submission(lab.name, student.id)
                            scores = [done.timestamp, done.score, done.late_submission_penalty,
                                      max(0.0, done.score - done.late_submission_penalty)]
                        except MissingEntry:
                            scores = ["", 0.0, 0.0, 0.0]
                        rows.writerow([_inert(lab.name), lab.duedate or "", scores[0] or "", _inert(student.id),
                                       _inert(student.last_name), _inert(student.first_name), _inert(student.email),
                                       *scores[1:], lab.max_score])
