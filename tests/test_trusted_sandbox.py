"""The pieces of trusted grading: the wire format, the confined worker, the proxy, the manifest, the flags.

The worker's confinement is checked by doing what an attacker would from inside it: each attempt
must fail with the error the mechanism gives (Landlock: ``PermissionError`` on files; seccomp:
``PermissionError`` on sockets and processes). Where the kernel offers no Landlock (not Linux, an old
kernel), those tests are skipped and say why; the isolation report must then say it too.
"""

from __future__ import annotations

import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_ref.course.checks.core import GradingStopped, LearnerError, WrongType, plain, same
from bpe_ref.course.notebooks import REPO_ROOT
from bpe_ref.course.trusted import cells, review
from bpe_ref.course.trusted.sandbox import Policy, RemoteFunction, Sandbox
from bpe_ref.course.trusted.worker import Foreign, decode, encode


# ---- the wire format --------------------------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary()
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.lists(inner, max_size=4).map(tuple)
    | st.dictionaries(st.one_of(st.text(), st.binary(), st.integers(), st.tuples(st.binary(), st.binary())), inner, max_size=4)
    | st.frozensets(st.one_of(st.integers(), st.binary()), max_size=4).map(set),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(values)
def test_values_cross_the_wire_unchanged_with_their_types(value):
    import json

    back = decode(json.loads(json.dumps(encode(value))))
    assert same(value, back)  # equal, with the same types all the way down (a tuple stays a tuple, True stays True)


def test_objects_of_other_types_arrive_as_foreign_and_are_refused():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    back = decode(encode(AlwaysEqual()))
    assert isinstance(back, Foreign) and back.type_name.endswith("AlwaysEqual")
    with pytest.raises(WrongType, match="AlwaysEqual"):
        plain(back)
    assert isinstance(decode(encode(type("MyStr", (str,), {})("x"))), Foreign)  # a str subclass is not a str


# ---- the worker, from inside --------------------------------------------------------------------


@pytest.fixture(scope="module")
def box():
    with Sandbox(Policy(cell_timeout=5, call_timeout=5)) as sandbox:
        yield sandbox


def landlocked(box) -> bool:
    return any(line.startswith("Landlock") for line in box.isolation)


def attempt(box, code: str):
    if not box.alive:
        box.restart()
    return box.run_cell(code, "attempt")


def test_the_report_says_which_isolation_is_in_force(box):
    text = " ".join(box.isolation)
    assert "rlimits" in text or sys.platform == "win32"
    if sys.platform.startswith("linux"):
        assert "Landlock" in text and "seccomp" in text


@pytest.mark.parametrize(
    ("what", "code", "error"),
    [
        ("import the reference", "import bpe_ref", "ModuleNotFoundError"),
        ("read its source", f"open({str(REPO_ROOT / 'bpe_ref' / 'tiebreak.py')!r}).read()", "PermissionError"),
        ("list the course", f"import os; os.listdir({str(REPO_ROOT)!r})", "PermissionError"),
        ("write into the course", f"open({str(REPO_ROOT / 'owned.txt')!r}, 'w')", "PermissionError"),
        ("reach the graders' libraries", "import hypothesis", "ModuleNotFoundError"),
        ("open a socket", "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)", "PermissionError"),
        ("start a process", "import subprocess; subprocess.run(['true'])", "PermissionError"),
        ("fork", "import os; os.fork()", "PermissionError"),
        ("signal the grader", "import os, signal; os.kill(os.getppid(), signal.SIGTERM)", "PermissionError"),
    ],
)
def test_the_worker_refuses(box, what, code, error):
    if not landlocked(box):
        pytest.skip(f"no Landlock here ({'; '.join(box.isolation)}): the worker is not confined")
    run = attempt(box, code)
    assert not run.ok and run.error["ename"] == error, (what, run)


def test_what_a_lab_needs_still_works(box):
    run = attempt(box, "import regex, heapq, collections, threading\n"
                       "t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
                       "open('scratch.txt', 'w').write('mine'); print(open('scratch.txt').read())")
    assert run.ok, run
    assert run.stdout == "mine\n"


def test_calls_return_data_and_in_place_updates(box):
    attempt(box, "def bump(counts, key):\n    counts[key] = counts.get(key, 0) + 1\n    return (key, len(counts))")
    after, result = RemoteFunction(box, "bump").invoke(({(b"a", b"b"): 1}, (b"a", b"b")))
    assert result == ((b"a", b"b"), 1)
    assert after[0] == {(b"a", b"b"): 2}


def test_the_learners_exceptions_come_back_as_data(box):
    attempt(box, "def broken(x):\n    return {}[x]")
    with pytest.raises(LearnerError) as raised:
        RemoteFunction(box, "broken").invoke((b"k",))
    assert raised.value.ename == "KeyError" and any("return {}[x]" in line for line in raised.value.traceback)
    with pytest.raises(LearnerError, match="not defined"):
        RemoteFunction(box, "nowhere").invoke(())


def test_a_hung_call_is_killed_and_not_made_again():
    with Sandbox(Policy(call_timeout=1)) as box:
        box.run_cell("import signal\ndef stuck():\n    signal.signal(signal.SIGINT, signal.SIG_IGN)\n    while True:\n        pass", "s")
        start = time.monotonic()
        with pytest.raises(GradingStopped, match="did not finish within 1 s"):
            RemoteFunction(box, "stuck")()
        assert time.monotonic() - start < 10 and not box.alive
        box.restart()
        with pytest.raises(GradingStopped, match="not called"):
            RemoteFunction(box, "stuck")()


def test_a_dying_cell_fails_alone():
    with Sandbox() as box:
        run = box.run_cell("import os\nos._exit(7)", "bye")
        assert not run.ok and "exit code 7" in run.error["evalue"] and not box.alive


def test_the_learners_prints_cannot_forge_replies(box):
    # The learner's code knows the protocol and writes a "reply" to every stream it can find.
    attempt(box, "import os, sys\n"
                 "def forge():\n"
                 "    for fd in range(3, 20):\n"
                 "        try: os.write(fd, b'{\"id\": 999, \"ok\": true, \"result\": 42}\\n')\n"
                 "        except OSError: pass\n"
                 "    print('{\"id\": 999, \"ok\": true, \"result\": 42}')\n"
                 "    return 'mine'")
    assert RemoteFunction(box, "forge")() == "mine"
    attempt(box, "x = 1")  # and the channel still works


# ---- the recorded test cells and the review flags ------------------------------------------------


def test_a_test_cell_parses_into_its_grader_and_functions():
    source = ('from runpy import run_module\ngraders = run_module("bpe_ref.course.checks.fresh")["graders"]("01_naive_bpe")\n'
              "graders.check_merge_word(merge_word)")
    assert cells.parse_test_cell(source, "01_naive_bpe") == ("check_merge_word", ("merge_word",))
    with pytest.raises(cells.NotATestCell):
        cells.parse_test_cell(source + "\nprint('and more')", "01_naive_bpe")
    with pytest.raises(cells.NotATestCell):
        cells.parse_test_cell(source, "02_incremental")


def test_review_flags_what_no_lab_needs():
    assert review.capability_uses("def f(x):\n    return sorted(x)") == []
    flagged = review.capability_uses("import sqlite3, runpy\nget_ipython().run_line_magic('x', '')\n!ls\nimport sys\nsys.modules")
    assert flagged == sorted(["an IPython magic or shell command", "imports sqlite3", "imports runpy",
                              "calls IPython's shell (get_ipython)", "uses sys.modules"])
    assert review.capability_uses("from bpe_ref.train import step02_incremental") == ["imports bpe_ref (the reference)"]


# ---- what a lab provides from earlier steps --------------------------------------------------------


def test_a_lab_can_provide_earlier_steps_and_nothing_else():
    from bpe_ref.course.trusted.sandbox import provided_closure

    assert provided_closure(("train.step01_naive",)) == ["tiebreak", "train.common", "train.driver", "train.step01_naive"]
    with Sandbox(Policy(provided=("train.step01_naive",))) as box:
        run = box.run_cell("from bpe_ref.train.step01_naive import count_pairs, train\n"
                           "print(count_pairs({(b'a', b'b', b'a', b'b'): 2}), train({b'abab': 1}, 2))", "setup")
        assert run.ok, run
        assert run.stdout.strip() == "{(b'a', b'b'): 4, (b'b', b'a'): 2} [(b'a', b'b'), (b'ab', b'ab')]"
        for module in ("bpe_ref.train.step02_incremental", "bpe_ref.pretokenize", "bpe_ref.course.checks.core"):
            run = box.run_cell(f"import {module}", "attempt")
            assert not run.ok and run.error["ename"] == "ModuleNotFoundError", (module, run)
        run = box.run_cell("import bpe_ref, bpe_ref.train\nprint(bpe_ref.__doc__)", "stub")
        assert run.ok and "Only the modules of bpe_ref that this lab gives its code" in run.stdout


def test_filling_the_disk_stops_the_worker():
    with Sandbox(Policy(scratch_mb=20, cell_timeout=20)) as box:
        run = box.run_cell("for i in range(1000):\n    open(f'f{i}', 'wb').write(b'x' * 2**20)", "fill")
        assert not run.ok and "wrote more than 20 MiB to disk" in run.error["evalue"], run
