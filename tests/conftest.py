"""Shared fixtures of the training-half tests (pretokenization, trainers, serialization, data).

Keep fixtures here generic; fixtures of the GPT-2 encoding tests are prefixed ``gpt2_``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from bpe_ref import data_files
from bpe_ref.course.nbgrader_main import skip_unused_schema_formats
from bpe_ref.course.notebooks import lab_names

from bpe_ref.serialization import load_merges, load_vocab

REPO_ROOT = Path(__file__).resolve().parent.parent
# Test modules import nbgrader, and so jsonschema: without the IRI grammars it builds at import (about
# a second of CPU in each test process), as in every nbgrader the course starts (nbgrader_main.py).
skip_unused_schema_formats()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return REPO_ROOT / "data"


@pytest.fixture(scope="session")
def corpus_en_path() -> Path:
    """CS336's ``corpus.en``: the corpus of the reference train-BPE test."""
    return data_files.data_file(data_files.CORPUS_EN)


@pytest.fixture(scope="session")
def reference_merges() -> list[tuple[bytes, bytes]]:
    """CS336's reference merges for ``corpus.en``, vocab 500, special token ``<|endoftext|>``."""
    return load_merges(data_files.data_file(data_files.REFERENCE_MERGES))


@pytest.fixture(scope="session")
def reference_vocab() -> dict[int, bytes]:
    """CS336's reference vocabulary for the same run (its ids differ from ours: compare the byte sets)."""
    return load_vocab(data_files.data_file(data_files.REFERENCE_VOCAB))


@pytest.fixture
def write_corpus(tmp_path):
    """Factory: write ``str`` (as UTF-8) or ``bytes`` to a fresh file under ``tmp_path``; returns its path."""
    counter = iter(range(1_000_000))

    def write(content: str | bytes, name: str | None = None) -> Path:
        path = tmp_path / (name or f"corpus_{next(counter)}.txt")
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)
        return path

    return write


@pytest.fixture(scope="session")
def gpt2_tokenizer():
    """GPT-2's tokenizer, from the shipped files."""
    from bpe_ref import Tokenizer

    return Tokenizer.gpt2()


@pytest.fixture(scope="session")
def gpt2_tiktoken(gpt2_tokenizer):
    """tiktoken's ``Encoding`` built from the same files (offline)."""
    from bpe_ref.course.interop import to_tiktoken

    return to_tiktoken(gpt2_tokenizer, name="gpt2")


# ---- a wrong method's measured check, stopped at its verdict ------------------------------------


@pytest.fixture
def at_the_first_verdict():
    """A context manager for a test that shows a wrong method failing a measured check: inside it, the
    checks of ``bpe_ref/course/checks/measured.py`` (every copy loaded so far: the graders' private
    copies and the one the grading worker's tests import) stop once a check could first give its
    verdict, after ``PASS_AFTER`` tries, rather than trying on to ``TRIES``. The later tries exist for
    honest work slowed by a burst of load; a wrong method's ratio stays above its limit on every try,
    so it fails the same way, with the same message, sooner. Honest work is measured outside it, with
    every try, as it is graded."""

    @contextlib.contextmanager
    def first_verdict():
        import bpe_ref.course.checks.measured  # noqa: F401  (the copy remote grading uses, loaded)

        copies = [module for name, module in list(sys.modules.items()) if name.endswith("course.checks.measured")]
        tries = [(module, module.TRIES) for module in copies]
        for module in copies:
            module.TRIES = module.PASS_AFTER
        try:
            yield
        finally:
            for module, count in tries:
                module.TRIES = count

    return first_verdict


# ---- nothing of a run stays in /tmp ------------------------------------------------------------
#
# Every process of the run (pytest's own tmp_path, xdist's workers, kernels, nbgrader, graders and
# their workers, a hub) makes its temporary files in one folder, removed when the run ends: a
# process that is killed cannot remove its own (a notebook kernel's folder for the graders' file
# arguments, bpe_ref.course.checks.running._files_folder, is removed at the kernel's exit, which a
# kernel shut down by its client never reaches). xdist's workers inherit the controller's folder.


def pytest_configure(config):
    if hasattr(config, "workerinput"):  # an xdist worker: TMPDIR and BPE_SAMPLE_SEED are the controller's already
        return
    # The run's sample seed (tests/sampling.py, skip_unless_drawn): drawn here, once, unless given.
    os.environ.setdefault("BPE_SAMPLE_SEED", str(secrets.randbelow(1_000_000)))
    folder = tempfile.mkdtemp(prefix="bpe-tests-")
    os.environ["TMPDIR"] = tempfile.tempdir = folder
    config.add_cleanup(lambda: _remove_run_folder(Path(folder)))


def pytest_report_header(config):
    return (f"BPE_SAMPLE_SEED={os.environ.get('BPE_SAMPLE_SEED')}: the member of each sampled family this run takes "
            "(tests/sampling.py; set it to take the same ones again)")


# Folders that the course's processes make and remove themselves (a grader's scratch and inputs, a
# temporary course, a process's solution modules, the scopes of this run): one still there when the
# run ends is a leak that removing the run's folder would hide, so it is said on stderr.
OWN_FOLDERS = ("bpe_ref_grading_", "bpe_ref_inputs_", "bpe_course_", "bpe_ref_solution_modules_", "bpe-test-scopes-")


def _remove_run_folder(folder: Path) -> None:
    # (This process's own solution modules are removed at its exit, after this.)
    mine = set(getattr(sys.modules.get("bpe_ref.course.notebooks"), "_SOLUTION_MODULES", ()))
    left = sorted(path.name for path in folder.glob("*") if path.name.startswith(OWN_FOLDERS) and path not in mine)
    if left:
        print(f"\ntests/conftest.py: {len(left)} folders left behind in {folder}: {', '.join(left[:10])}", file=sys.stderr)
    shutil.rmtree(folder, ignore_errors=True)


def pytest_sessionfinish(session):
    # An xdist worker removes its solution modules before it tells the controller it has finished
    # (xdist sends that after this hook): its exit handler would run later, racing the controller's
    # look for leaks above, which then named the workers' folders.
    if hasattr(session.config, "workerinput"):
        for folder in getattr(sys.modules.get("bpe_ref.course.notebooks"), "_SOLUTION_MODULES", ()):
            shutil.rmtree(folder, ignore_errors=True)


# ---- the collector walks less of what a test process holds ------------------------------------------------------------
#
# A test process holds much that lives until it ends (the modules of nbgrader, hypothesis and the course, the collected
# tests), and a full collection walks all of it: the learner code that lab 09 grades calls gc.collect() between its runs
# (some 0.1-0.5 s each in a test process, a few milliseconds in a grading worker), and Python's own full collections grow
# with the heap too. So once the tests are collected, what is alive is moved out of the collector's reach (gc.freeze;
# collected first). Only then: frozen again at each module (tried), a cycle that became garbage after a freeze stayed
# until the process ended, the test processes grew past 3 GB, and forks of them (lab 03's pools, graded in process) cost
# the calling process CPU time enough to fail a measured check.
@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    gc.collect()
    gc.freeze()


# ---- the lab-by-lab tests that take turns (tests/sampling.py, drawn_labs) ---------------------
LAB_BY_LAB_MODULES = ("test_mistakes.py", "test_checks_labs.py")


def lab_of(item) -> str | None:
    """The number of the one lab a test is about: its ``lab`` parameter ("04_inverted_index"), or its name
    (test_lab04_...); None for a test of several labs or none."""
    lab = getattr(getattr(item, "callspec", None), "params", {}).get("lab")
    if isinstance(lab, str) and lab[:2].isdigit():
        return lab[:2]
    found = re.match(r"test_lab(\d\d)_", item.name)
    return found.group(1) if found else None


def pytest_runtest_setup(item):
    # before any fixture of the test is built (a lab's graders, a grading worker)
    number = lab_of(item) if item.path.name in LAB_BY_LAB_MODULES else None
    if number is not None:
        from sampling import skip_unless_lab_drawn

        skip_unless_lab_drawn(number, [lab[:2] for lab in lab_names()])
    family = _alike_family(item)
    if family is not None:
        from sampling import skip_unless_drawn

        skip_unless_drawn(family, item.nodeid, _alike_families(item.session)[family])


def _alike_families(session) -> dict[str, list[str]]:
    """Each family of alike attacks among the tests this run selected, with its members' node ids (built once)."""
    if not hasattr(session, "_bpe_alike_families"):
        families: dict[str, list[str]] = {}
        for item in session.items:
            family = _alike_family(item)
            if family is not None:
                families.setdefault(family, []).append(item.nodeid)
        session._bpe_alike_families = families
    return session._bpe_alike_families


def _alike_family(item) -> str | None:
    """The family of alike attacks ``item`` belongs to (tests/sampling.py, ``ALIKE_ATTACKS``), or None."""
    from sampling import alike_family

    params = getattr(getattr(item, "callspec", None), "params", {})
    return alike_family(item.path.name, getattr(item, "originalname", item.name), params)


# ---- spreading the suite over the cores (pytest-xdist, ``--dist loadscope``) --------------------
#
# xdist's loadscope runs each module in one process, so a module's module-scoped fixtures are built
# once; a long module then keeps one core busy while the other waits. The scopes here are finer:
# tests sharing a module-scoped fixture stay together (the fixture, or the fixture and its parameter
# when it is built once per parameter, e.g. one graded class per group of labs; tests of one module
# that share no fixture, such as the instructor guide's class and its hub, are scopes apart), and
# any other test is a scope of its own, run by whichever process is free. Scopes are handed out in
# the collection's order (``--no-loadscope-reorder``), which the workers make costliest first: the
# per-parameter scopes (the grading batches), then scopes holding a test marked ``slow``, then
# larger before smaller, so that the processes finish together. A new lab brings its scopes by
# itself. (xdist's ``loadgroup`` marks cannot do this: with pytest 9 they are ignored.)
#
# The workers decide the scopes, since they hold the tests; each writes them to a file that the
# controller's scheduler reads once every worker has collected.

_SCOPES_DIR = "bpe_test_scopes_dir"


def _shared_fixtures(item) -> list[tuple[str, bool]]:
    """``(key, per parameter)`` of each module-scoped fixture ``item`` uses: the fixture's module and
    name, and its parameter when it is built once per parameter."""
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    # A module-scoped direct parameter (``parametrize(..., scope="module")``, e.g. the lab beside
    # the graded class of its group) is pytest's stand-in fixture, shared by nothing: not counted.
    shared = [name for name in item.fixturenames if name in definitions and definitions[name][-1].scope == "module"
              and getattr(definitions[name][-1].func, "__name__", "") != "get_direct_param_fixture_func"]
    params = getattr(getattr(item, "callspec", None), "params", {})
    module = item.nodeid.split("::", 1)[0]
    return [(f"{module}::{name}" + (f"={params[name]}" if name in params else ""), name in params) for name in shared]


def _scopes_of(items) -> tuple[dict[str, list], set[str]]:
    """Scope -> its tests, and the scopes built once per parameter. Tests using a common module-scoped
    fixture are one scope, directly or through another test (a union of the fixtures they use)."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    uses = [_shared_fixtures(item) for item in items]
    for keys in uses:
        for key, _ in keys[1:]:
            parent[root(key)] = root(keys[0][0])
    scopes: dict[str, list] = {}
    per_parameter: set[str] = set()
    for item, keys in zip(items, uses):
        scope = root(keys[0][0]) if keys else item.nodeid
        if any(by_parameter for _, by_parameter in keys):
            per_parameter.add(scope)
        scopes.setdefault(scope, []).append(item)
    return scopes, per_parameter


@pytest.hookimpl(trylast=True)  # after pytest's own reordering, which keeps a fixture's tests together
def pytest_collection_modifyitems(config, items):
    workerinput = getattr(config, "workerinput", None)
    if not workerinput or _SCOPES_DIR not in workerinput:  # not an xdist worker of this scheduler
        return
    scopes, per_parameter = _scopes_of(items)

    def cost(scope: str) -> tuple:
        members = scopes[scope]
        slow = any(member.get_closest_marker("slow") for member in members)
        return (scope not in per_parameter, not slow, -len(members))

    order = sorted(scopes, key=cost)  # stable: the collection's order among equals
    items[:] = [item for scope in order for item in scopes[scope]]
    path = Path(workerinput[_SCOPES_DIR]) / f"{workerinput['workerid']}.json"
    path.with_suffix(".tmp").write_text(json.dumps({item.nodeid: scope for scope in order for item in scopes[scope]}))
    path.with_suffix(".tmp").replace(path)


def _scopes_dir(config) -> str:
    """The controller's folder for the workers' scope files, made on first use, removed at the end."""
    if not hasattr(config, "_bpe_test_scopes_dir"):
        config._bpe_test_scopes_dir = tempfile.mkdtemp(prefix="bpe-test-scopes-")
        config.add_cleanup(lambda: shutil.rmtree(config._bpe_test_scopes_dir, ignore_errors=True))
    return config._bpe_test_scopes_dir


def pytest_configure_node(node):  # the controller, once per worker
    if node.config.getoption("dist") == "loadscope":
        node.workerinput[_SCOPES_DIR] = _scopes_dir(node.config)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getoption("dist") != "loadscope":
        return None  # xdist's own scheduler for any other --dist
    from xdist.scheduler import LoadScopeScheduling

    class FinerScopes(LoadScopeScheduling):
        scopes: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.scopes is None:
                written = sorted(Path(_scopes_dir(config)).glob("*.json"))
                self.scopes = json.loads(written[0].read_text()) if written else {}
            return self.scopes.get(nodeid) or super()._split_scope(nodeid)

    return FinerScopes(config, log)
