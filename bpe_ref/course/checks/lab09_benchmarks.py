"""Graders of lab 09, measuring like an engineer: interleaved rounds, the spread of the runs, the
median of per-round ratios, a fitted growth exponent, a crossover found by interpolation, and peak
memory with tracemalloc.

Theory: ``theory/09-benchmarks.md``. Reference: :mod:`bpe_ref.measure`.

No test times anything real: every timing is a fake clock that advances by recorded amounts, every curve is
generated with a known exponent or crossover, so a verdict is the same on any machine and under any load.
``interleaved`` and ``peak_memory`` take functions, which cannot travel to the grading worker as data: each is called
through a *driver* (:attr:`.core.Task.driver`) that builds the fake clock, the contenders or the allocating function
from plain arguments and returns, as data, what came back and what the contenders saw. Floats are compared to 9
significant digits (exponents to 9 decimals), so a formula written another way passes.

A driver runs in the grading worker with the learner's code, which can rewrite what it reports: two checks do not
rest on it. Task 1's is measured from outside, the worker's CPU time for a call whose collections are made costly,
bounded by the reference's run meanwhile in the grading process (:func:`verify_collector_paused`); task 6's sends a
function whose size nothing in the worker knows before the call (:func:`verify_secret_size`).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import math
import os
import random
import statistics
import sys
import time
import tracemalloc
import weakref
from collections import deque
from collections.abc import Callable

from hypothesis import strategies as st

from ...measure import crossover, fit_exponent, interleaved, median, paired_ratio, peak_memory, spread
from . import measured
from .core import Case, CheckFailed, Lab, Task, TaskGraders, check_cases, current_seed, error_name, passed, stretch
from .core import call_learner
from .core import check_property as check_property  # named here for the tests of this lab's hidden inputs

# ---- comparing floats --------------------------------------------------------------------------


def significant(value: object) -> object:
    """A float rounded to 9 significant digits (other values unchanged, containers walked)."""
    if type(value) is float:
        return float(f"{value:.9g}")
    if type(value) is list:
        return [significant(v) for v in value]
    if type(value) is dict:
        return {k: significant(v) for k, v in value.items()}
    return value


def observe_significant(args: tuple, result: object) -> object:
    return significant(result)


def observe_decimals(args: tuple, result: object) -> object:
    """An exponent to 9 decimals: near 0, significant digits would compare rounding noise."""
    return round(result, 9) if type(result) is float else result


def value_or_error(function: Callable, *args: object) -> object:
    """Call ``function(*args)``; the error it should raise on bad input, as data (a driver). A str it returns is
    marked as returned: returned as it is, "raised ValueError" kept the points of a ValueError never raised
    (``tests/test_grading_redteam.py``, section 41)."""
    try:
        result = function(*args)
        return f"returned the str {result!r}" if isinstance(result, str) else result
    except KeyError:
        return "raised KeyError"
    except ValueError:  # statistics.StatisticsError is one
        return "raised ValueError"


value_or_error.passes_arguments = True  # the function gets the case's arguments as they are


def error_hint(args: tuple, expected: object, got: object) -> str | None:
    if isinstance(expected, str) and expected.startswith("raised") and not (isinstance(got, str) and got.startswith("raised")):
        return f"for this input the function must raise {expected.split()[1]} (say what is wrong), not return a value"
    if isinstance(got, str) and got.startswith("raised") and not isinstance(expected, str):
        return f"it raised {got.split()[1]} on valid input"
    return None


# ---- the fixed hidden cases, varied by the secret seed ----------------------------------------------------------
# Each task's fixed hidden cases are in this public source: graded as they are only, a table of their answers (keyed by
# the input) kept their points, next to the mistake each is there to catch. When graded, each is graded again with its
# values redrawn from the seed (``hidden_vary``), so that what it catches stays: one increasing map of the numbers,
# which keeps 0 and every sign, ties and the order of any two values (unsorted runs stay unsorted, a median 0 or
# negative, equal sizes equal, a repeated or out-of-order x so, two curves meeting at a point meet there); labels
# renamed; lengths, booleans and rounds below 1 kept.

LABEL_NAMES = ["naive", "incremental", "v4", "v5", "heap", "linked_list", "hf", "tiktoken"]


def relabelled(lists: list[list], rng: random.Random, high: int = 10**6) -> list[list]:
    """The numbers of ``lists`` mapped, all by one increasing map that keeps 0 and signs, to numbers drawn from ``rng``:
    ints to ints of 1 to ``high`` (sizes, loads), floats to thousandths of 0.001 to ``high / 1000`` (seconds)."""
    values = {value for values in lists for value in values}
    mapped: dict = {}
    for sign in (1, -1):
        for kind in (int, float):
            old = sorted(sign * value for value in values if type(value) is kind and sign * value > 0)
            new = sorted(rng.sample(range(1, high), len(old)))
            mapped.update({sign * o: sign * (n if kind is int else n / 1000) for o, n in zip(old, new)})
    return [[mapped.get(value, value) for value in values] for values in lists]


def renamed_labels(names: list[str], rng: random.Random) -> dict[str, str]:
    """Each of ``names`` (distinct) renamed to a distinct label drawn from ``rng``."""
    return dict(zip(names, rng.sample(LABEL_NAMES, len(names))))


def redrawn(vary: Callable[[tuple, random.Random], tuple]) -> Callable[[tuple, random.Random], tuple]:
    """``vary``, drawn again while it gives the case as it was (small ranges can draw it)."""
    def again(args: tuple, rng: random.Random) -> tuple:
        for _ in range(20):
            changed = vary(args, rng)
            if repr(changed) != repr(args):
                return changed
        return changed

    return again


# ---- task 1: interleaved rounds --------------------------------------------------------------------


def run_interleaved(function: Callable, costs: dict, loads: list, rounds: int, collector_on: bool) -> dict:
    """Call ``function`` (an ``interleaved``) on fake contenders and a fake clock (a driver).

    Contender ``label`` takes ``costs[label] * load`` seconds of the fake clock (a cost of 0: it
    raises ``RuntimeError``, which ``function`` must let through), where the load is
    the machine's at that moment: ``loads[k % len(loads)]`` for the ``k``-th call of any contender.
    The collector is switched on or off first (``collector_on``), and restored at the end. Returns
    what ``function`` returned, the calls in order with whether the collector was on during each,
    and whether it was on afterwards; or that it raised ``ValueError``. A collector whose first threshold is 0 is
    off too (it never collects: ``gc.set_threshold(0)``, put back after, pauses it as ``gc.disable()`` does).
    """
    now = [0.0]
    calls: list = []
    thresholds = gc.get_threshold()

    def clock() -> float:
        return now[0]

    def collecting() -> bool:
        return gc.isenabled() and gc.get_threshold()[0] != 0

    def contender(label: str) -> Callable[[], None]:
        def run() -> None:
            calls.append((label, collecting()))
            if costs[label] == 0:  # a contender that fails: the collector must be put back all the same
                raise RuntimeError(f"contender {label} failed")
            now[0] += float(costs[label] * loads[(len(calls) - 1) % len(loads)])

        return run

    contenders = {label: contender(label) for label in costs}
    was_enabled = gc.isenabled()
    if collector_on:
        gc.enable()
    else:
        gc.disable()
    try:
        try:
            times = function(contenders, rounds, clock=clock)
        except ValueError as error:  # saying which (no contenders, or the rounds): a message
            return {"raised": "ValueError", "with a message": bool(str(error).strip()), "calls": calls}
        except NotImplementedError:  # a RuntimeError too, but the skeleton's own: "not written yet"
            raise
        except RuntimeError:  # a contender's failure, passed on (the case's cost 0 asks for one)
            return {"raised": "RuntimeError", "calls (label, collector on)": calls, "collector on after": collecting()}
        # the caller's dict as it was, its order too (novel50: rotated in place, the first label moved last each round)
        return {"times": times, "calls (label, collector on)": calls, "collector on after": collecting(),
                "contenders after": list(contenders)}
    finally:
        gc.set_threshold(*thresholds)
        if was_enabled:
            gc.enable()
        else:
            gc.disable()


def interleaved_hint(args: tuple, expected: object, got: object) -> str | None:
    costs, loads, rounds, collector_on = args
    if not (isinstance(expected, dict) and isinstance(got, dict)):
        return None
    if expected.get("raised") == "RuntimeError" and got.get("raised") != "RuntimeError":
        return "a contender raised RuntimeError: let it through (do not catch it), after putting the collector back"
    if "raised" in expected and "raised" not in got:
        return "no contenders, or fewer than 1 round, is a mistake of the caller: raise ValueError, saying which"
    if "raised" in got and "raised" not in expected:
        return "it raised ValueError on valid input"
    if got.get("with a message") is False:
        return "say in the ValueError's message which input is wrong: no contenders, or the rounds (below 1)"
    want, have = expected.get("calls (label, collector on)"), got.get("calls (label, collector on)")
    if isinstance(have, list) and [c[0] for c in want] != [c[0] for c in have if isinstance(c, tuple)]:
        labels = list(costs)
        ran = [c[0] for c in have if isinstance(c, tuple)]
        extra = len(ran) - len(want)
        if extra > 0 and all(ran.count(label) >= rounds for label in labels):
            where = ("before the first round" if ran[extra:] == [c[0] for c in want]
                     else "besides the timed ones")
            return (f"{extra} call(s) more than rounds × contenders ({len(want)}), {where}: untimed warm-up runs? "
                    "This task times every call it makes: exactly one call of each contender per round. Whether to "
                    "warm up is the caller's choice (warm or cold cache, page 09, section 3): a caller who wants it "
                    "runs the contenders once before calling interleaved, or drops round 0")
        rule = "round r starts with the contender at position r % n, then the others in order, wrapping around " \
               "(labels[r % n:] + labels[:r % n])"
        if ran == labels * rounds:
            return f"every round starts with the same contender: {rule}"
        n = len(labels)
        for r in range(rounds):
            expected_round, got_round = [c[0] for c in want[r * n:(r + 1) * n]], ran[r * n:(r + 1) * n]
            if got_round != expected_round:
                reversed_note = (" (reversing every other round also mixes the order, but this task asks for the "
                                 "rotation)" if got_round == labels[::-1] else "")
                return (f"round {r} ran {got_round}, expected {expected_round}: {rule}{reversed_note}")
        return f"each contender once per round, rounds in order: {rule}"
    if isinstance(have, list) and any(isinstance(c, tuple) and c[1] for c in have):
        return "the collector must be paused (gc.disable()) while each call is timed"
    if got.get("collector on after") != expected.get("collector on after"):
        failed = " (here a contender raised: put it back in a finally block)" if expected.get("raised") else ""
        return ("after each call, put the collector back as it was before (on stays on, off stays off): "
                f"remember gc.isenabled(), and restore it in a finally block{failed}")
    if got.get("contenders after") != expected.get("contenders after"):
        return (f"the contenders dict was left in another order ({got.get('contenders after')}, given "
                f"{expected.get('contenders after')}): leave it as it is, the caller's; rotate a list of its labels, "
                "labels[r % n:] + labels[:r % n]")
    times = got.get("times")
    if isinstance(times, dict) and times and all(isinstance(t, list) and len(t) == 1 for t in times.values()) and rounds > 1:
        return (f"one time per contender, expected {rounds} (one per round): the times of the rounds before the last are "
                "lost; make the dict of lists once, before the loop over the rounds, not in it")
    if isinstance(times, dict) and any(isinstance(t, list) and any(isinstance(x, (int, float)) and x < 0 for x in t)
                                       for t in times.values()):
        return "negative times: a call's time is the clock after it minus the clock before it, clock() - start"
    return ("the calls are right but not their times: read the clock just before and just after each call, and "
            "keep the difference for that contender, in round order")


INTERLEAVED_TASK = Task("interleaved", ("contenders (label: cost)", "load", "rounds", "collector on"),
                        driver=run_interleaved, hint=interleaved_hint,
                        what="a dict {label: [seconds per round]} of floats")


def interleaved_cases() -> list[Case]:
    three = {"v4": 2, "v5": 1, "linked_list": 1}
    return [
        Case((three, [1], 3, True), labels={0: "{'v4': 2, 'v5': 1, 'linked_list': 1} (each call costs this, times the load)"}),
        Case(({"a": 1, "b": 1}, [1, 1, 1, 1, 2, 2, 2, 2], 4, True),
             labels={1: "[1, 1, 1, 1, 2, 2, 2, 2] (the load doubles after four calls)"}),
        Case(({"a": 3}, [1, 2], 2, False), labels={3: "False (the collector is off before the call)"}),
        Case(({"a": 1, "b": 2}, [1], 0, True), labels={2: "0 (no rounds: ValueError)"}),
        Case(({}, [1], 2, True), labels={0: "{} (no contenders: ValueError)"}),
    ]


LABELS = st.sampled_from(LABEL_NAMES)


@st.composite
def interleaved_inputs(draw) -> tuple:
    labels = draw(st.lists(LABELS, min_size=1, max_size=4, unique=True))
    if draw(st.integers(0, 7)) == 0:  # one time in 8 (in 15, a check of no contenders kept secret seed 1's points)
        labels = []  # nothing to time: ValueError
    costs = {label: draw(st.integers(1, 9)) for label in labels}
    # Half the time a contender raises (cost 0), and 3 times in 4 the collector is on: it must come back on, and the
    # error get through (with 1 raise in 5 and the collector on or off alike, 60 draws missed a collector left off
    # under 1 seed in 10).
    if labels and draw(st.booleans()):
        costs[draw(st.sampled_from(labels))] = 0
    loads = draw(st.lists(st.integers(1, 5), min_size=1, max_size=12))
    # below 1 one time in six: ValueError; up to 7, past n + 1 for 2 to 4 contenders (a rotation that stops after n rounds), and two
    # values in nine n + 2 or n + 3 (round n + 1 is the first where r % n and r % rounds part: a rotation by r % rounds
    # kept the generated inputs' points under 4 secret seeds of 0 to 5)
    rounds = draw(st.integers(-2, 0) if draw(st.integers(0, 5)) == 0
                  else st.integers(1, 9).map(lambda r: r if r <= 7 else len(labels) + r - 6))
    # When no contender raises and the loads drawn add up to an even number, the first contender's first run is its
    # slowest (a load of 6, then loads of 1 to 5 for two rounds at least): its times fall, so times returned sorted, or in
    # any order but the rounds', are wrong. What the fixed hidden cases hold, drawn (times sorted per contender kept the
    # generated inputs' points under 1 seed of 3). Told by what was drawn, not by a draw of its own, which would change
    # every later draw (a draw of its own took the negative rounds from the generated inputs under 2 seeds of 3).
    if labels and rounds >= 1 and all(costs.values()) and sum(loads) % 2 == 0:
        loads, rounds = [6, *loads, *[1] * (2 * len(labels))], max(rounds, 2)
    return costs, loads, rounds, draw(st.integers(0, 3)) > 0


# Fixed hidden inputs: the bad input of every kind, whatever the seed draws (a missing check of rounds < 1 lost only
# the visible point under the class's seed and a self-grade's: the generated rounds are below 1 in 3% of draws).
INTERLEAVED_HIDDEN_CASES = [
    Case(({"v4": 1, "v5": 2, "hf": 1}, [2], 0, False)),
    Case(({"naive": 3}, [1, 3], -1, True)),
    Case(({}, [2, 1], 4, False)),
    # more rounds than contenders, and then two more: round r starts at r % n (starting at r, the rotation stops after n)
    Case(({"v4": 1, "v5": 2}, [1, 2, 3], 5, False)),
    # three contenders: round 1 rotated right (labels[-1:] + labels[:-1]) is not rotated left, as with two it is
    Case(({"v4": 1, "v5": 2, "hf": 3}, [1, 2], 6, True)),
]


@redrawn
def varied_interleaved(args: tuple, rng: random.Random) -> tuple:
    """An interleaved hidden case with its labels, costs and loads drawn from ``rng``: rounds of 0 stay 0, below 0 below 0,
    past the contenders' number plus 1 past it, no contenders none (``hidden_vary``)."""
    costs, loads, rounds, collector_on = args
    (loads,) = relabelled([loads], rng, high=10)
    if rounds > 0:  # past n + 1 rounds (a second turn of the rotation) stays past it
        rounds = rng.randint(len(costs) + 2, len(costs) + 4) if rounds > len(costs) + 1 else rng.randint(1, 5)
    elif rounds < 0:
        rounds = -rng.randint(1, 5)
    return {label: rng.randint(1, 9) for label in renamed_labels(list(costs), rng).values()}, loads, rounds, collector_on


# ---- task 1, measured from outside: the collector paused, seen in the worker's CPU time ----------------------------
# The log above is the driver's, in the worker: a function that leaves the collector on can rewrite it afterwards (or
# replace gc.isenabled), so it alone proves nothing (tests/test_grading_redteam.py, section 14). So the trusted side also
# measures: contenders that keep 200,000 new lists alive each, so that the collector, left on, runs 100 to 300 times
# during each call, each collection made costly by the driver and counted by what it does, not by a callback the
# function could remove (section 33; how: run_costly_collections). The worker's CPU time for the whole call (read from
# /proc) is bounded by the reference's on the same driver, run meanwhile in this process: at most a slack plus a factor
# times it (the collector was paused), at least a share of it (every call was made). Measured (load 16 to 20, over the
# reference's): honest work 0.8 to 1.4, the collector left on 28 to 44 (8 to 13 on Python 3.13).
SURVIVORS = 200_000  # lists each contender call keeps alive until it returns
COLLECTION_TURNS = 40_000  # loop turns a contender spends for each collection during its call (about 1 to 2 ms)
# Rounds enough that the share below stands clear of the clock's 10 ms ticks: with 3, on a faster machine, a call
# that made no call passed 2 tries in 6 (the reference's 0.065 s); with 8, the reference's 0.17 s, the share's 0.05 s.
PAUSED_ROUNDS, PAUSED_LABELS = 8, ("v4", "v5")
PAUSED_FACTOR, PAUSED_SLACK = 3.0, 0.25  # at most 0.25 s + 3 times the reference's CPU time
PAUSED_SHARE = 0.4  # at least 0.4 times it, less a clock tick and a half (0.015 s): the calls were made
PAUSED_TIMEOUT = 30.0


def run_costly_collections(function: Callable, labels: list, survivors: int, rounds: int, turns: int) -> dict:
    """Call ``function`` (an ``interleaved``) with the collector on, on contenders that each keep ``survivors`` new
    lists alive until they return, and then spend ``turns`` loop turns for each collection that ran during the call
    (as a collection of a large heap costs), counted by what a collection does: it frees a cycle, a deque that holds
    itself (a builtin type: no finaliser of Python, nothing of the driver's in it, for gc.garbage to show), whose weak
    reference, held here, calls back to count it and leave a new cycle for the next. A driver measured from outside: its
    CPU time tells whether the collector ran during the calls; collections that freed nothing of it (its objects
    frozen, section 36) are told by the collector's count of new objects, which each sets back to 0. Returns how many
    times each label was timed, as ``function`` returned it."""
    during = [False, 0]  # a contender running; collections since it started
    waiting = []  # the weak reference to the cycle the next collection frees

    def collected(reference: weakref.ref) -> None:
        waiting.clear()
        if during[0]:
            during[1] += 1
            leave()  # for the next collection

    def leave() -> None:
        cycle = deque()
        cycle.append(cycle)  # only a collection frees it
        waiting.append(weakref.ref(cycle, collected))

    def contender() -> int:
        during[:2] = [True, 0]
        try:
            if not waiting:
                leave()
            young = gc.get_count()[0]
            kept = [[] for _ in range(survivors)]
            young = gc.get_count()[0] - young  # each collection sets it back to 0
        finally:
            during[0] = False
        if not during[1] and young < survivors // 2:  # collections ran and freed none of it: its objects kept from them
            during[1] = survivors // max(thresholds[0], 1)  # (gc.freeze from a callback): as many as ran, each costly
        spent = 0
        for turn in range(during[1] * turns):  # here, not in the callback: a CPU stop's signal must not be lost there
            spent += turn
        return len(kept)

    contenders = {label: (lambda: contender()) for label in labels}
    was_enabled, thresholds = gc.isenabled(), gc.get_threshold()
    gc.enable()
    try:
        times = function(contenders, rounds, clock=time.process_time)
    finally:
        gc.set_threshold(*thresholds)
        if not was_enabled:
            gc.disable()
    if not isinstance(times, dict):
        return {"returned": type(times).__name__}
    return {"rounds timed per label": {label: len(runs) if isinstance(runs, list) else type(runs).__name__
                                       for label, runs in times.items()}}


PAUSED_TASK = Task("interleaved", ("contenders", "rounds"), driver=run_costly_collections,
                   what="a dict {label: [seconds per round]}")


def reference_costly_collections(labels: list, survivors: int, rounds: int, turns: int) -> dict:
    """The reference's ``interleaved`` on :func:`run_costly_collections`'s driver, in this process."""
    return run_costly_collections(interleaved, labels, survivors, rounds, turns)


def verify_collector_paused(learner: Callable) -> None:
    """The how-check of task 1 (:func:`measure_collector_paused`), a failure told first by the fixed cases where they
    explain it: untimed warm-up calls, made with the collector on, cost more than the bound, and the cases name them."""
    with measured.cases_explain_a_failure(INTERLEAVED_TASK, learner, interleaved, interleaved_cases):
        measure_collector_paused(learner)


def measure_collector_paused(learner: Callable) -> None:
    """The collector paused during the timed calls and every call made, measured from outside the learner's code: the
    CPU time of ``interleaved`` on :func:`run_costly_collections`'s contenders is at most a slack plus a factor times
    the reference's on the same driver (run meanwhile in this process), at least a share of it; in one of two tries."""
    args = (list(PAUSED_LABELS), SURVIVORS, PAUSED_ROUNDS, COLLECTION_TURNS)
    calls = len(PAUSED_LABELS) * PAUSED_ROUNDS
    describe = f"<{len(PAUSED_LABELS)} contenders that each keep {SURVIVORS:,} new lists alive>, {PAUSED_ROUNDS}"
    too_slow = ("the garbage collector ran during the timed calls: pause it (gc.disable()) around each call, and put it "
                "back after (gc.enable() if it was on)")
    task, timed = measured.with_timeout(PAUSED_TASK, learner, PAUSED_TIMEOUT)
    tries = []
    for _ in range(2):
        reference_seconds, expected = measured.reference_cost(reference_costly_collections, args, describe)
        most = PAUSED_SLACK + PAUSED_FACTOR * reference_seconds
        got, seconds = measured.measured_call(
            task, timed, args, describe, too_slow,
            most=(most, f"the reference's {calls} calls {reference_seconds:.2f} s: more than {PAUSED_SLACK:g} s + "
                        f"{PAUSED_FACTOR:g} times that"))
        if not measured.answers_right(expected, got):
            raise CheckFailed(f"interleaved({describe}) returned {got!r} (as the driver saw it), expected "
                              f"{expected!r}: each contender timed once per round")
        if seconds != seconds:
            print("interleaved: its CPU time could not be measured on this system; the collector's pause is not "
                  "checked from outside.")
            return
        least = PAUSED_SHARE * reference_seconds - 0.015
        if least <= seconds <= most:
            return
        tries.append((seconds, reference_seconds, least, most))
    seconds, reference_seconds, least, most = min(tries, key=lambda t: max(t[2] - t[0], t[0] - t[3]))
    if seconds < least:
        raise CheckFailed(
            f"interleaved({describe}) took {seconds:.2f} s of CPU time, the reference's {calls} calls "
            f"{reference_seconds:.2f} s: less than {PAUSED_SHARE:g} times that (the best of {len(tries)} tries, measured "
            "from outside your code), so not every contender ran once per round: call each one, once per round")
    raise CheckFailed(
        f"interleaved({describe}) took {seconds:.2f} s of CPU time, the reference's {calls} calls "
        f"{reference_seconds:.2f} s: more than {PAUSED_SLACK:g} s + {PAUSED_FACTOR:g} times that (the best of "
        f"{len(tries)} tries, measured from outside your code). The driver makes each collection costly: {too_slow}")


# ---- task 1: the clock by default ------------------------------------------------------------------------------------
# The cases above always pass a clock, so the default went unchecked: time.process_time ("CPU time is steadier on a
# shared machine", page 09) or time.time ("the wall clock") kept every point, where the statement asks for
# time.perf_counter (wall time at the finest resolution, never set back). Which clock a call reads when none is given:
# the default as bound when the function was defined, or else (a default of None, the clock looked up when called)
# found by a call with each clock of the time module replaced by one that tells itself apart.
CLOCKS = ("perf_counter", "time", "process_time", "monotonic", "thread_time")


def run_default_clock(function: Callable) -> dict:
    """Which clock of the time module ``function`` (an ``interleaved``) reads when it is given none (a driver). Its
    default is read where its calls take it (its ``__kwdefaults__`` and ``__defaults__``, not ``inspect.signature``, which
    tells what a ``__signature__`` set on the function, or ``inspect`` rebound, says), and is a clock only as the time
    module's own builtin of that name (``time.perf_counter = time.time`` made time.time pass: redteam section 42)."""
    default = None
    if type(function) is type(run_default_clock):  # a function of Python's: the defaults its calls take
        code, positional = function.__code__, function.__defaults__ or ()
        names = code.co_varnames[code.co_argcount - len(positional):code.co_argcount]
        default = {**dict(zip(names, positional)), **(function.__kwdefaults__ or {})}.get("clock")
    if type(default) is type(len) and getattr(default, "__self__", None) is time and default.__name__ in CLOCKS:
        return {"clock by default": f"time.{default.__name__}"}
    saved = {name: getattr(time, name) for name in CLOCKS}
    reads = {name: 0 for name in CLOCKS}

    def fake(name: str, step: int) -> Callable[[], float]:
        def read() -> float:
            reads[name] += 1
            return float(reads[name] * step)  # each read moves it by step: one call's time is step seconds

        return read

    try:
        for step, name in enumerate(CLOCKS, start=1):
            setattr(time, name, fake(name, step))
        times = function({"only": lambda: None}, 1)
    finally:
        for name, clock in saved.items():
            setattr(time, name, clock)
    seconds = times.get("only", [None])[0] if isinstance(times, dict) and isinstance(times.get("only"), list) else None
    for step, name in enumerate(CLOCKS, start=1):
        if seconds == step and reads[name]:
            return {"clock by default": f"time.{name}"}
    # A default bound at definition inside a wrapper (a decorator's functools.wraps: the wrapper has no defaults, the
    # function it calls took the clock itself, which no replacement in the time module reaches): the clocks a call
    # reads, seen as the calls of the time module's own builtins that they are, not as anything the function says.
    called: list[str] = []

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "c_call":
            called.extend(name for name, clock in saved.items() if arg is clock)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        function({"only": lambda: None}, 1)
    finally:
        sys.setprofile(previous)
    if called and len(set(called)) == 1:
        return {"clock by default": f"time.{called[0]}"}
    return {"clock by default": f"none of the time module's clocks (one call timed {seconds!r})"}


def default_clock_hint(args: tuple, expected: object, got: object) -> str | None:
    return ("the clock by default is time.perf_counter (clock=time.perf_counter in the signature): wall time at the "
            "finest resolution the system has, never set back. time.time can jump when the system's clock is set and "
            "is coarser on some systems; time.process_time is CPU time, which a caller asks for by passing it")


DEFAULT_CLOCK = TaskGraders(Task("interleaved", (), driver=run_default_clock, hint=default_clock_hint,
                                 what="the clock it reads by default"),
                            interleaved, [Case(())], st.just(()), max_examples=1, hidden_cases=[Case(())])

# 150 examples: with 60, a rotation by r % rounds kept the generated inputs' points under 3 secret seeds of 0 to 19.
INTERLEAVED = TaskGraders(INTERLEAVED_TASK, interleaved, interleaved_cases(), interleaved_inputs(), max_examples=150,
                          hidden_cases=INTERLEAVED_HIDDEN_CASES, hidden_vary=varied_interleaved,
                          verify=(verify_collector_paused,), then=DEFAULT_CLOCK)

# ---- task 2: the spread of the runs ----------------------------------------------------------------


def unsorted_quartile_range(values: list) -> float:
    """``q3 - q1`` interpolated at positions ``p * (n - 1)`` of the values as given, not sorted: what a
    spread that forgets to sort computes."""
    def at(p: float) -> float:
        position = p * (len(values) - 1)
        low = int(position)
        high = min(low + 1, len(values) - 1)
        return values[low] + (values[high] - values[low]) * (position - low)

    return at(0.75) - at(0.25)


def quartile_range_at_p_times_n(values: list[float]) -> float:
    """q3 - q1 interpolated at position p * n of the sorted values (clamped to the last), not p * (n - 1): a mistake's."""
    ordered = sorted(values)
    last = len(ordered) - 1

    def at(p: float) -> float:
        position = p * len(ordered)
        low = min(int(position), last)
        return ordered[low] + (ordered[min(low + 1, last)] - ordered[low]) * (position - low)

    return at(0.75) - at(0.25)


def spread_hint(args: tuple, expected: object, got: object) -> str | None:
    found = error_hint(args, expected, got)
    if found or not (isinstance(expected, float) and isinstance(got, float)):
        return found
    (values,) = args
    middle = median(values)
    # Name what the answer equals: forgetting to sort and taking the whole range can coincide (when
    # the unsorted positions of q1 and q3 hold the minimum and the maximum), and then both are said.
    middles = {middle, values[len(values) // 2]}  # the median of the sorted values, or the middle as given
    unsorted = values != sorted(values) and any(got == significant(unsorted_quartile_range(values) / m)
                                                for m in middles if m)
    whole_range = got == significant((max(values) - min(values)) / middle)
    upper = sorted(values)[len(values) // 2]
    if len(values) % 2 == 0 and upper != middle and upper and got == significant(spread(values) * middle / upper):
        # walk57: told nothing, or (values unsorted) only that the values were not sorted
        return (f"divided by {upper!r}, the upper of the two middle values: with an even number of values the median is "
                f"the mean of the two middle ones, {middle!r} here (statistics.median)" + (
                    "; or else sort the values first: the quartiles were taken in the values as given" if unsorted else ""))
    if unsorted and whole_range:
        return ("sort the values first: the quartiles sit at positions p * (n - 1) of the SORTED values; here the "
                "unsorted positions happen to hold the minimum and the maximum, so your answer is (max - min) / median")
    if unsorted:
        return ("sort the values first: that is q3 - q1 interpolated in the values as given; the quartiles sit at "
                "positions p * (n - 1) of the sorted values (sorted(values))")
    if whole_range:
        return "that is the whole range (max - min): the spread is the interquartile range, q3 - q1"
    if got == significant(quartile_range_at_p_times_n(values) / middle):
        return ("quartiles at position p * n of the sorted values: the course's sit at p * (n - 1), counting from 0 (the "
                "first value at 0, the last at n - 1: with 5 values, q1 at 1 and q3 at 3)")
    q1, _, q3 = statistics.quantiles(values, n=4)  # the default method, "exclusive"
    if got == significant((q3 - q1) / middle):
        return ("quartiles by the 'exclusive' method (statistics.quantiles' default): the course interpolates at "
                "position p * (n - 1) in the sorted values (method='inclusive')")
    if middle and significant(got * middle) == expected:
        return "relative to the median: divide the interquartile range by the median"
    if statistics.mean(values) and got == significant(statistics.stdev(values) / statistics.mean(values)):
        return ("that is the coefficient of variation (stdev / mean), which one slow run moves far: the spread here is "
                "the interquartile range over the median, (q3 - q1) / median")
    if any(got == round(expected, digits) != expected for digits in range(1, 7)):
        return f"that is {expected} rounded: return the ratio as it is (rounding is for display, and loses what a later use needs)"
    return None


# The values are the caller's runs, in round order (task 3 pairs them by round): sorting them in place would pair
# rounds that were never timed together, so they must be left as they are.
SPREAD_TASK = Task("spread", ("values",), observe=observe_significant, driver=value_or_error, hint=spread_hint,
                   what="a float", unchanged=(0,))

SPREAD_CASES = [
    Case(([10, 11, 12, 13, 30],)),  # sorted: the whole range (max - min) fails here, an unsorted IQR does not
    Case(([0.33, 0.31, 0.95, 0.30, 0.32],)),  # unsorted: forgetting to sort gives q3 - q1 < 0, not the range
    Case(([0.31, 0.30, 0.33, 0.95, 0.32],)),
    Case(([1.0, 2.0, 3.0, 4.0],)),
    Case(([5.0, 5.0],)),
    Case(([2.5],)),
    Case(([0.0, 0.0, 0.0],)),
]

TIMES = st.integers(1, 10**6).map(lambda micro: micro / 1000)  # seconds with three decimals, as a timer gives
SPREAD_INPUTS = st.one_of(
    st.lists(TIMES, min_size=2, max_size=15),
    st.lists(st.integers(1, 20), min_size=2, max_size=9),  # ties and exact quartiles
    st.lists(TIMES, max_size=1),  # too few runs: ValueError
    # a median of 0 or below (ValueError), what the fixed hidden cases hold, drawn: times are positive, values need not be
    st.lists(st.integers(-8, 2).map(lambda v: v / 8), min_size=2, max_size=7),
).map(lambda values: (values,))

# Fixed hidden inputs: a median of 0 and a negative one (ValueError: the generated times are all positive, so a
# missing check, or one of median == 0 only, lost no hidden point), and unsorted runs (left as they are).
SPREAD_HIDDEN_CASES = [
    Case(([0.0, 0.0, 0.4, 0.0],)),
    Case(([-0.25, -0.5, -0.125],)),
    Case(([0.9, 0.2, 0.4, 0.3, 0.7, 0.1],)),
]

SPREAD = TaskGraders(SPREAD_TASK, spread, SPREAD_CASES, SPREAD_INPUTS, max_examples=80, hidden_cases=SPREAD_HIDDEN_CASES,
                     hidden_vary=lambda args, rng: tuple(relabelled(list(args), rng)))

# ---- task 3: the median of per-round ratios ---------------------------------------------------------


def ratio_hint(args: tuple, expected: object, got: object) -> str | None:
    times, a, b = args
    if isinstance(expected, float) and isinstance(times, dict) and a in times and b in times and len(times) > 1:
        # the dict's first two labels taken for a and b (walk49: first, second = times.values()), which raises past two
        first, second = list(times.values())[:2]
        in_order = [x / y for x, y in zip(first, second)] if all(y for y in second) and (a, b) != tuple(times)[:2] else []
        if (got == "raised ValueError" and len(times) > 2) or (in_order and got == significant(median(in_order))):
            return (f"take a's runs and b's by their labels, times[{a!r}] and times[{b!r}]: times holds other labels "
                    "too, in any order, so its first two values need not be a's and b's")
    found = error_hint(args, expected, got)
    if found or not (isinstance(expected, float) and isinstance(got, float)):
        return found
    if got == significant(1 / expected):
        return f"the ratio is a over b: how many times as long {a!r} takes as {b!r}"
    if got == significant(median(times[a]) / median(times[b])):
        return ("that is the ratio of the two medians: take the ratio of each round first (a and b timed together), "
                "then the median of those ratios")
    if got == significant(median([x - y for x, y in zip(times[a], times[b])])):
        return (f"that is the median of the differences, times[{a!r}][r] - times[{b!r}][r]: a ratio divides, "
                "how many times as long a takes as b in each round")
    ratios = [x / y for x, y in zip(times[a], times[b])]
    if len(ratios) > 1 and got == significant(median(ratios[:-1])):
        return f"that is the median of the first {len(ratios) - 1} rounds' ratios: every round counts, the last one too"
    return None


# The times are the caller's runs (task 1's), which it reads again (a spread, another ratio): a ratio divided into
# times[a] in place ("no second list") gives the right answer and leaves the caller ratios where its seconds were.
RATIO_TASK = Task("paired_ratio", ("times", "a", "b"), observe=observe_significant, driver=value_or_error,
                  hint=ratio_hint, what="a float", unchanged=(0,))

RATIO_CASES = [
    Case(({"naive": [2.0, 4.0, 2.2], "heap": [0.1, 0.2, 0.1]}, "naive", "heap")),
    Case(({"a": [1.0, 2.0, 1.0], "b": [2.0, 2.0, 4.0]}, "b", "a")),
    Case(({"a": [1.0, 3.0, 2.0, 8.0], "b": [1.0, 1.0, 1.0, 2.0]}, "a", "b")),  # even: the mean of the middle two
    Case(({"a": [1.0, 2.0], "b": [1.0]}, "a", "b")),
    Case(({"a": [1.0], "b": [1.0]}, "a", "heap")),
]


@st.composite
def ratio_inputs(draw) -> tuple:
    labels = draw(st.lists(LABELS, min_size=2, max_size=3, unique=True))
    rounds = draw(st.integers(1, 9))
    times = {label: draw(st.lists(TIMES, min_size=rounds, max_size=rounds)) for label in labels}
    a, b = draw(st.permutations(labels))[:2]
    kind = draw(st.integers(0, 11))
    if kind == 0:
        times[b] = times[b][:-1]  # rounds that do not pair up
    elif kind == 1:
        b = "missing"
    return times, a, b


# Fixed hidden inputs: rounds that do not pair up, no rounds, a label not timed (each drawn in 1 case of 12 otherwise).
RATIO_HIDDEN_CASES = [
    Case(({"v4": [0.5, 0.25, 0.75], "v5": [0.5, 0.25]}, "v4", "v5")),
    Case(({"hf": [], "tiktoken": []}, "hf", "tiktoken")),
    Case(({"naive": [2.0, 1.0]}, "heap", "naive")),
]


def varied_ratio(args: tuple, rng: random.Random) -> tuple:
    """A paired_ratio hidden case with its labels renamed (a label not timed stays so) and its times redrawn, the lengths
    kept (``hidden_vary``)."""
    times, a, b = args
    names = renamed_labels(list(dict.fromkeys([*times, a, b])), rng)
    runs = relabelled(list(times.values()), rng)
    return {names[label]: values for label, values in zip(times, runs)}, names[a], names[b]


PAIRED_RATIO = TaskGraders(RATIO_TASK, paired_ratio, RATIO_CASES, ratio_inputs(), max_examples=80,
                           hidden_cases=RATIO_HIDDEN_CASES, hidden_vary=varied_ratio)

# ---- task 4: a fitted exponent -------------------------------------------------------------------


def least_squares_slope(xs: list, ys: list) -> float:
    """The least-squares slope of ``ys`` against ``xs`` (for the hints: what a fit without a logarithm gives; a fit on
    ``math.e ** size`` overflowed from a size of about 710 on, which dropped every hint of the first visible case,
    walk57)."""
    xs, ys = [float(x) for x in xs], [float(y) for y in ys]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)


def one_pass_slope(xs: list[float], ys: list[float]) -> float:
    """The slope by raw sums, ``(n Sxy - Sx Sy) / (n Sxx - Sx**2)``: the same line in exact arithmetic, a mistake's answer
    in floats (walk61): for sizes close together, the sums are large and nearly equal, and their difference keeps few
    of its digits (10**6, +10, +20, +30 at k = 2 gave 2.000341)."""
    n, sum_x, sum_y = len(xs), sum(xs), sum(ys)
    return ((n * sum(x * y for x, y in zip(xs, ys)) - sum_x * sum_y)
            / (n * sum(x * x for x in xs) - sum_x * sum_x))


CANCELLATION = ("these sizes lie close together: the sums of the one-pass formula, n * sum(x * y) - sum(x) * sum(y) over "
                "n * sum(x * x) - sum(x) ** 2, are large and nearly equal, and their difference loses most of its digits "
                "(cancellation). Subtract the means first, as the formula of the statement does: sum((x - mean_x) * (y - "
                "mean_y)) / sum((x - mean_x) ** 2)")


def close_sizes(rng: random.Random, points: int, exponent: float) -> tuple[list[int], list[float]]:
    """``points`` sizes some 40 to 150 apart near 200,000 to 1,000,000, and times exactly on ``c * size**exponent``: each
    honest fit (two passes with either mean, statistics, numpy.polyfit, any base of logarithm) gives the exponent to 9
    decimals, the one-pass formula misses it in some 9 draws of 10 (walk61)."""
    base, step = rng.randint(2 * 10**5, 10**6), rng.randint(40, 150)
    scale = rng.choice([1e-6, 3e-4, 0.02, 1.0, 50.0])
    sizes = [base + i * step for i in range(points)]
    return sizes, [scale * (size / base) ** exponent for size in sizes]


def exponent_hint(args: tuple, expected: object, got: object) -> str | None:
    sizes, seconds = args
    if (got in ("raised ValueError", "raised StatisticsError") and expected == 0.0 and len(set(sizes)) > 1
            and len(set(seconds)) == 1):  # statistics.correlation raises on constant times (walk49)
        return ("it raised where the sizes differ and the times are all equal: their line is flat, and the exponent is "
                "the slope, 0.0 here (a correlation coefficient, undefined for constant times, is not the slope)")
    found = error_hint(args, expected, got)
    if found or not (isinstance(expected, float) and isinstance(got, float)):
        return found
    if expected != 0 and abs(expected) != 1 and math.isclose(got * expected, 1.0, rel_tol=1e-6):  # learn52: sxx / sxy
        return ("that is 1 / the slope: the exponent is sum((x - mean_x) * (y - mean_y)) / sum((x - mean_x) ** 2), the "
                "log times' change per log size, not the other way round")
    logged = [math.log(size) for size in sizes], [math.log(second) for second in seconds]
    with contextlib.suppress(ArithmeticError):
        if round(one_pass_slope(*logged), 9) == got:
            return CANCELLATION
    ends = math.log(seconds[-1] / seconds[0]) / math.log(sizes[-1] / sizes[0])
    if round(ends, 9) == got and len(sizes) > 2:
        return "that is the slope between the first and the last point: fit all the points (least squares)"
    if any(round(expected * factor, 9) == got for factor in (math.log(10), 1 / math.log(10), math.log(2), 1 / math.log(2))):
        return ("that is the slope times a ratio of logarithms (ln 10 = 2.303, ln 2 = 0.693): log sizes and times with "
                "the same logarithm (math.log for both), so that its base cancels out")
    logged = [math.log(size) for size in sizes], [math.log(second) for second in seconds]
    if len(set(logged[0])) > 1 and len(set(logged[1])) > 1 and round(statistics.correlation(*logged), 9) == got:
        return ("that is the correlation coefficient r of (log size, log seconds), how close the points lie to a line, "
                "not the line's slope: the exponent is the slope, sum((x - mean_x) * (y - mean_y)) / sum((x - mean_x) ** 2)")
    half = len(sizes) // 2
    if len(sizes) > 3 and len(set(sizes[half:])) > 1 and round(fit_exponent(sizes[half:], seconds[half:]), 9) == got:
        return ("that is the slope over the longer half of the points: fit over all the points given. Page 09 picks "
                "the sizes where the growth dominates before it calls the fit; the function fits what it is given")
    if len(set(sizes)) > 1 and got == round(least_squares_slope(sizes, seconds), 9):
        return ("that is the slope of the seconds against the sizes, neither logged: the exponent is the slope in "
                "log-log space, x = math.log(size) and y = math.log(seconds)")
    if len(set(sizes)) > 1 and got == round(least_squares_slope(sizes, [math.log(second) for second in seconds]), 9):
        return ("that is the slope of log(seconds) against the sizes themselves: log the sizes too, "
                "x = math.log(size), as the times are")
    if sizes != sorted(sizes) and len(sizes) == len(seconds) and round(fit_exponent(sorted(sizes), seconds), 9) == got:
        return ("that is the slope with the sizes sorted and the times not: sizes[i] and seconds[i] are one point, so "
                "keep each size with its time (or sort the points, zip(sizes, seconds), together)")
    return "the slope of the straight line fitted to (log size, log seconds) by least squares"


def exponent_error_hint(args: tuple, error: BaseException) -> str | None:
    """A division by zero where the points given have two sizes or more: the fit was made over fewer of them (walk49:
    over the longer half, one point of two)."""
    sizes, seconds = args[0], args[1]
    if (error_name(error) == "ZeroDivisionError" and isinstance(sizes, list) and len(set(sizes)) > 1
            and min(sizes) > 0 and max(sizes) < 1.001 * min(sizes)):  # walk61: the one-pass formula's sum of squares
        return "a division by zero, though these sizes differ: " + CANCELLATION  # rounds off to 0
    if (error_name(error) == "ZeroDivisionError" and isinstance(sizes, list) and len(set(sizes)) > 1
            and isinstance(seconds, list) and len(seconds) == len(sizes) and len(set(seconds)) == 1):
        # learn52: sxx / sxy, the slope turned upside down, divides by 0 when the times do not change
        return ("a division by zero, though the sizes differ: the times are all equal, so the slope is 0 and "
                "sum((x - mean_x) * (y - mean_y)) is 0; it is the numerator: divide it by sum((x - mean_x) ** 2), "
                "the spread of the log sizes, over all the points given (fitted over some of them, one size only, "
                "that is 0 too)")
    if error_name(error) == "ZeroDivisionError" and isinstance(sizes, list) and len(set(sizes)) > 1:
        return ("a division by zero, though these sizes differ: the points you fitted had one size only. Fit over all "
                "the points given (page 09 picks the sizes where the growth dominates before it calls the fit); "
                "raise ValueError only when the sizes are all equal")
    return None


# sizes and seconds unchanged (the statement says so, as tasks 2 and 3 do): the points sorted in place by size, the
# slope is the same, and the caller's lists, which it plots again, are reordered (novel50).
EXPONENT_TASK = Task("fit_exponent", ("sizes", "seconds"), observe=observe_decimals, driver=value_or_error,
                     hint=exponent_hint, error_hint=exponent_error_hint, what="a float", unchanged=(0, 1))

EXPONENT_CASES = [
    Case(([1000, 2000, 4000], [0.1, 0.4, 1.6])),
    Case(([10, 20, 40, 80], [0.03, 0.06, 0.12, 0.24])),
    Case(([1, 2, 4, 8], [1.0, 2.2, 4.0 / 1.1, 8.0])),  # noise: the least-squares slope, not the ends
    Case(([100, 1000], [5.0, 5.0])),
    Case(([100], [1.0])),
    Case(([100, 200], [1.0, 0.0])),
    Case(([300, 300], [1.0, 2.0])),
]

NOISE = st.sampled_from([0.8, 0.9, 0.95, 1.0, 1.0, 1.05, 1.1, 1.25])


@st.composite
def exponent_inputs(draw) -> tuple:
    sizes = sorted(draw(st.lists(st.integers(1, 10**6), min_size=2, max_size=8, unique=True)))
    k = draw(st.integers(-10, 30)) / 10
    c = draw(st.sampled_from([1e-6, 3e-4, 0.02, 1.0, 50.0]))
    seconds = [c * s**k * draw(NOISE) for s in sizes]
    kind = draw(st.integers(0, 14))
    if kind == 0:
        seconds[draw(st.integers(0, len(seconds) - 1))] = 0.0
    elif kind == 1:
        sizes, seconds = sizes[:1], seconds[:1]
    elif kind == 2:
        seconds = seconds[:-1]
    elif kind == 3:  # every size equal (ValueError: no slope), what a fixed hidden case holds, drawn
        sizes = [sizes[0]] * len(sizes)
    elif kind == 4:  # seven equal sizes whose logarithms' mean rounds off the logarithm (sxx is not 0), as another one
        size = draw(st.sampled_from([5, 6, 10, 11, 17]))
        sizes, seconds = [size] * 7, [c * size**k * draw(NOISE) for _ in range(7)]
    elif kind in (5, 6, 7):  # sizes close together, the times exactly on a power law: cancellation in the one-pass
        # formula (one kind in 15 missed it under secret seeds 1 and 3: hypothesis varies few shapes)
        sizes, seconds = close_sizes(random.Random(draw(st.integers(0, 2**32))), draw(st.integers(4, 6)), k or 1.5)
    elif kind > 9:  # the points in another order (no rule sorts them): sizes sorted alone lose their pairs
        order = draw(st.permutations(range(len(sizes))))
        sizes, seconds = [sizes[i] for i in order], [seconds[i] for i in order]
    return sizes, seconds


# Fixed hidden inputs: all sizes equal (the generated sizes are distinct, so a missing check lost only the visible
# point), lists of different lengths, one point.
EXPONENT_HIDDEN_CASES = [
    Case(([2000, 2000], [0.5, 1.0])),
    # seven equal sizes whose logarithms' mean rounds off the logarithm: sxx is not 0 (a check of sxx == 0 returned 0.0)
    Case(([5] * 7, [0.5] * 7)),
    Case(([100, 200, 400], [0.1, 0.2])),
    Case(([1000], [0.25])),
    # sizes close together (walk61): the one-pass formula gives 2.000341 here (and divides by 0 at 10**9, where numpy's
    # polyfit, an honest fit, is off by some 1e-8 too: not a case)
    Case(([10**6, 10**6 + 10, 10**6 + 20, 10**6 + 30], [(size / 10**6) ** 2 / 1000 for size in range(10**6, 10**6 + 31, 10)])),
]



def sxx_rounds_off(size: int, n: int) -> bool:
    """Whether ``n`` sizes equal to ``size`` leave fit_exponent's sxx above 0: their logarithms' mean rounds off it."""
    mean = sum([math.log(size)] * n) / n
    return n * (math.log(size) - mean) ** 2 != 0


def varied_exponent(args: tuple, rng: random.Random) -> tuple:
    """A fit_exponent hidden case with its sizes and seconds redrawn, each by its own map (``hidden_vary``); equal sizes
    whose sxx rounds off 0 stay so (redrawn until they do: about 6 values in 10 of 7 sizes)."""
    if len(set(args[0])) > 1 and min(args[0]) > 0 and max(args[0]) < 1.001 * min(args[0]):  # close: kept so, and kept
        # off an exponent of 1, where the axes swapped give the same slope (as the case's 2 does not)
        return close_sizes(rng, len(args[0]), rng.choice([1.5, 2.0, 2.5]))
    (sizes,), (seconds,) = relabelled([args[0]], rng), relabelled([args[1]], rng)
    if len(set(sizes)) == 1 and sxx_rounds_off(args[0][0], len(sizes)):
        while not sxx_rounds_off(sizes[0], len(sizes)):
            sizes = [rng.randint(1, 10**6)] * len(sizes)
    return sizes, seconds


# 150 examples: with 80, the generated inputs alone missed a mistake under one secret seed of 1-3 (walk61's kinds added)
FIT_EXPONENT = TaskGraders(EXPONENT_TASK, fit_exponent, EXPONENT_CASES, exponent_inputs(), max_examples=150,
                           hidden_cases=EXPONENT_HIDDEN_CASES, hidden_vary=varied_exponent)

# ---- task 5: a crossover -------------------------------------------------------------------------


def crossover_hint(args: tuple, expected: object, got: object) -> str | None:
    found = error_hint(args, expected, got)
    if found:
        return found
    xs, ys_a, ys_b = args
    if type(got) is int and isinstance(expected, float) and got == expected:  # walk57: the table said 2.0 and 2
        return f"{got!r} is an int, where a float is due (a measured x of ints is one too): return float(x)"
    d = [a - b for a, b in zip(ys_a, ys_b)] if len(xs) == len(ys_a) == len(ys_b) else []
    apart = [i for i, x in enumerate(xs[:len(d)]) if got == float(x) and d[i] != 0  # no crossing beside it either
             and (abs(d[i]) < 1e-6 or math.isclose(ys_a[i], ys_b[i], rel_tol=1e-3))  # walk57: math.isclose's tolerance
             and all((d[j] < 0) == (d[i] < 0) and d[j] != 0 for j in (i - 1, i + 1) if 0 <= j < len(d))]
    if isinstance(got, float) and apart:
        return (f"a and b differ at x = {xs[apart[0]]!r}, by {d[apart[0]]:.3g} (seconds of fast calls are that small): they "
                "meet only where d[i] == 0 exactly or d changes sign; compare with == 0, no tolerance (math.isclose's "
                "relative one too: two curves 0.05% apart that never cross do not meet)")
    if expected is None and got is not None:
        return "the curves never meet: a stays on one side of b everywhere, so return None"
    if isinstance(expected, float) and got is None and len(xs) == len(ys_a) == len(ys_b) and expected == float(xs[-1]):
        return (f"a and b are equal at the last point (x = {xs[-1]!r}): a loop over range(len(xs) - 1) never checks "
                "d[-1] == 0; test d[i] == 0 for every i, the last included")
    distance = ("that is where |a - b| is 0 only: the distance never changes sign, so a crossing between two points is "
                "lost; keep the sign of d = a - b, and look for d[i] == 0 or a change of sign between d[i] and d[i + 1]"
                if expected != got and d and got == value_or_error(crossover, xs, [abs(x) for x in d], [0.0] * len(d))
                else None)
    earlier = next((i for i in range(len(d) - 1) if d[i] != 0 and d[i + 1] != 0 and (d[i] < 0) != (d[i + 1] < 0)),
                   None) if distance and isinstance(got, float) else None
    if earlier is not None and xs[earlier + 1] <= got:
        # walk57: a scan for exact meetings first, then one for changes of sign, was told only of |a - b|
        distance = (f"that is the first x where a - b is 0 exactly, but a and b cross before it, between x = "
                    f"{xs[earlier]!r} and x = {xs[earlier + 1]!r}, where d = a - b changes sign: scan the points once and "
                    "return the first of either, d[i] == 0 or a change of sign between d[i] and d[i + 1] (two scans, "
                    "one for each, find a later meeting first; so does a scan of where |a - b| is 0 only, which loses "
                    "the sign)")
    one_way = [significant(one_way_crossover(xs, d, falling)) for falling in (True, False)] if d else []
    if isinstance(expected, float) and not distance and (got is None or isinstance(got, float)) and got != expected \
            and significant(got) in one_way:
        i = next(i for i in range(len(d) - 1) if d[i] * d[i + 1] < 0)  # the first crossing (no d[i] == 0 before it)
        return (f"a and b cross between x = {xs[i]!r} and x = {xs[i + 1]!r}, where d = a - b goes from {d[i]:.3g} to "
                f"{d[i + 1]:.3g}: a change of sign either way is a crossing, test (d[i] < 0) != (d[i + 1] < 0)")
    if isinstance(expected, float) and got is None and len(xs) > 1 and expected <= xs[1]:
        return (f"they meet at or before the second point (x = {xs[1]!r}): start the scan at the first point, i = 0, "
                "where d[0] can be 0 and the sign can change between the first two points" + (
                    f". Or, if you took |a - b|: {distance}" if distance else ""))
    if distance:
        return distance
    if isinstance(expected, float) and got is None:
        return "they do meet: where a - b changes sign between two points (or is 0 at one), there is a crossing"
    if isinstance(got, (int, float)) and got in [float(x) for x in xs] and expected not in [float(x) for x in xs]:
        return ("that is a measured x: interpolate between the two points around the crossing, "
                "x_i + (x_(i+1) - x_i) * d_i / (d_i - d_(i+1)) with d = a - b")
    if isinstance(got, float) and isinstance(expected, float) and d and got != expected:
        i = next((i for i in range(len(d) - 1) if d[i] != 0 and (d[i] < 0) != (d[i + 1] < 0) and d[i + 1] != 0), None)
        if i is not None and expected not in (float(x) for x in xs) and got == significant(
                xs[i] + (xs[i + 1] - xs[i]) * d[i] / (d[i + 1] - d[i])):
            return (f"that x lies outside the two points around the crossing ({xs[i]!r} and {xs[i + 1]!r}), as far below "
                    f"x_i as the crossing is above it: d_i / (d_i - d_(i+1)) is a fraction between 0 and 1, the way "
                    "from x_i to x_(i+1); d_i / (d_(i+1) - d_i) is minus that")
    if isinstance(got, float) and isinstance(expected, float) and d and got != expected:
        # learn52: the right interval, another interpolation (in log x, or of a relative difference (a - b) / b)
        i = next((i for i in range(len(d) - 1) if d[i] != 0 and (d[i] < 0) != (d[i + 1] < 0) and d[i + 1] != 0), None)
        if i is not None and all(d[j] != 0 for j in range(i + 1)) and xs[i] < expected < xs[i + 1] \
                and xs[i] < got < xs[i + 1]:
            return (f"the right two points ({xs[i]!r} and {xs[i + 1]!r}), another x between them: "
                    + interpolated_otherwise(xs, ys_a, ys_b, d, i, got) + "interpolate x and d = a - b linearly (not log "
                    "x, not a ratio or a relative difference), x_i + (x_(i+1) - x_i) * d_i / (d_i - d_(i+1))")
    if isinstance(got, float) and isinstance(expected, float) and got > expected:
        return "the first crossing, scanning from the smallest x: noisy curves can cross several times"
    return None


def interpolated_otherwise(xs: list, ys_a: list, ys_b: list, d: list[float], i: int, got: float) -> str:
    """Which other interpolation between points ``i`` and ``i + 1`` gave ``got``, said (with a space after it), or "":
    log x (the sizes grow geometrically), or the relative difference (a - b) / b (fix53: the two got one hint)."""
    def near(value: float) -> bool:
        return math.isclose(got, value, rel_tol=1e-6)

    t = d[i] / (d[i] - d[i + 1])
    try:
        if xs[i] > 0 and xs[i + 1] > 0 and near(math.exp(math.log(xs[i]) + (math.log(xs[i + 1]) - math.log(xs[i])) * t)):
            return "you interpolated log x (from log x_i to log x_(i+1)), where x itself is interpolated; "
        r = [(ys_a[j] - ys_b[j]) / ys_b[j] for j in (i, i + 1)]
        if r[0] != r[1] and near(xs[i] + (xs[i + 1] - xs[i]) * r[0] / (r[0] - r[1])):
            return "you interpolated the relative difference (a - b) / b, where the difference d = a - b is; "
    except (ArithmeticError, TypeError, ValueError):
        pass
    return ""


def one_way_crossover(xs: list, d: list[float], falling: bool) -> float | None:
    """The crossover a scan finds that looks for d = a - b falling through 0 only (or rising only): a mistake's answer."""
    for i in range(len(d)):
        if d[i] == 0:
            return float(xs[i])
        if i + 1 < len(d) and (d[i] > 0 > d[i + 1] if falling else d[i] < 0 < d[i + 1]):
            return xs[i] + (xs[i + 1] - xs[i]) * d[i] / (d[i] - d[i + 1])
    return None


CROSSOVER_TASK = Task("crossover", ("xs", "ys_a", "ys_b"), observe=observe_significant, driver=value_or_error,
                      hint=crossover_hint, what="a float, or None")

CROSSOVER_CASES = [
    Case(([500, 1000, 2000], [1.0, 2.0, 4.0], [2.0, 2.5, 3.0])),
    Case(([1000, 2000, 3000], [1.0, 2.0, 3.0], [1.5, 1.5, 1.5])),
    Case(([1, 2, 3, 4, 5], [1.0, 3.0, 1.0, 3.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0])),  # noisy: the first crossing
    Case(([1, 2, 3], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0])),  # equal at a measured point
    Case(([1, 2, 3], [1.0, 1.0, 1.0], [2.0, 3.0, 4.0])),  # never
    Case(([1], [1.0], [2.0])),
    Case(([2, 1], [1.0, 2.0], [2.0, 1.0])),
]


@st.composite
def crossover_inputs(draw) -> tuple:
    # The kind first. Hypothesis makes most of a run's examples by mutating earlier ones (about a dozen shapes in 80
    # examples, each varied several times), so a kind in 17 was missing from whole runs: under secret seed 3, curves that
    # meet only at the last point and curves that never meet, which only fixed hidden cases then caught. 200 examples
    # (CROSSOVER, below): neither missing under any of the secret seeds 0 to 19.
    kind = draw(st.integers(0, 18))
    xs = sorted(draw(st.lists(st.integers(0, 10_000), min_size=2, max_size=8, unique=True)))
    ys = st.integers(0, 40).map(lambda v: v / 4)  # quarters: exact meetings happen too
    ys_a = [draw(ys) for _ in xs]
    ys_b = [draw(ys) for _ in xs]
    if kind == 0:
        ys_b = ys_b[:-1]
    elif kind == 1:
        xs, ys_a, ys_b = xs[:1], ys_a[:1], ys_b[:1]
    elif kind == 2:
        xs = xs[::-1]
    elif kind == 3:
        ys_b = [y + 20.0 for y in ys_a]  # never meet
    elif kind == 4:  # seconds of fast calls: b comes within 5e-11 of a at one point, above it everywhere (never meet)
        ys_a = [y * 1e-9 for y in ys_a]
        ys_b = [y + 2e-9 for y in ys_a]
        ys_b[len(xs) // 2] = ys_a[len(xs) // 2] + 5e-11
    elif kind >= 17:  # b above a everywhere, within a relative 1e-10 (two in three) or 5e-4 of it at one point (never
        # meet): what math.isclose's default tolerance, or a relative one of 1e-3, takes for a meeting (walk57); told by
        # the xs drawn
        ys_a = [1.0 + y for y in ys_a]
        ys_b = [y + 1.0 for y in ys_a]
        ys_b[len(xs) // 2] = ys_a[len(xs) // 2] * (1 + (5e-4 if xs[1] % 3 == 0 else 1e-10))
    elif kind in (5, 6):  # they meet only at the last point (5) or the first (6): the ends of the scan
        apart = draw(st.sampled_from([-20.0, 20.0]))
        ys_b = [y + apart for y in ys_a]
        end = -1 if kind == 5 else 0
        ys_b[end] = ys_a[end]
    elif kind in (7, 8, 9):  # a repeated x (ValueError: xs must increase strictly), what a fixed hidden case holds, drawn
        xs[-1] = xs[-2]
    elif xs[0] % 2 == 0 and all(a != b for a, b in zip(ys_a, ys_b)):  # half the other curves that never touch: a crosses
        # b from below first (a scan for d falling through 0 alone misses it)
        rise = xs[1] % (len(xs) - 1)  # told by the xs drawn, not by a draw of its own, which hypothesis could keep at one value
        for i in range(rise + 1):
            ys_b[i] = ys_a[i] + 0.25 + ys_b[i]
        ys_a[rise + 1] = ys_b[rise + 1] + 0.25 + ys_a[rise + 1]
    if kind != 4 and kind < 17 and sum(xs) % 2:  # seconds of fast calls, a few ns: a tolerance on d[i] == 0 meets curves apart
        ys_a, ys_b = [y * 1e-10 for y in ys_a], [y * 1e-10 for y in ys_b]
    return xs, ys_a, ys_b


# Fixed hidden inputs the notebook never shows: the curves meet exactly at the last point (a scan over
# range(len(xs) - 1) misses it) or at the first; the generated inputs include such meetings too.
CROSSOVER_HIDDEN_CASES = [
    Case(([100, 200, 400], [3.0, 2.5, 2.0], [1.0, 1.5, 2.0])),
    Case(([10, 20], [1.0, 2.0], [2.0, 2.0])),
    Case(([5, 6, 7], [2.0, 3.0, 5.0], [2.0, 1.0, 1.0])),
    # xs that do not increase strictly (ValueError): out of order, and a repeated x (drawn rarely otherwise)
    Case(([10, 30, 20], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0])),
    Case(([10, 20, 20, 40], [1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0])),
    # seconds of fast calls: a comes within 5e-11 of b at 2000 and never meets it (a tolerance on d[i] == 0 meets it)
    Case(([1000, 2000, 4000], [5e-09, 3e-09, 9e-09], [1e-09, 2.95e-09, 4e-09])),
    # a within a relative 1e-10 of b at 1 (math.isclose's default tolerance meets it), and 0.05% above it at 1000 (a
    # relative tolerance of 1e-3 does): neither crosses (walk57, "never compare floats with ==")
    Case(([1, 2], [1.0000000001, 2.0], [1.0, 1.0])),
    Case(([1000, 2000, 4000], [1.0005, 2.0, 4.0], [1.0, 1.5, 2.0])),
    # a crosses b from below first (d: -1, -0.5, 1), then from above: a scan for d falling through 0 alone finds the second
    Case(([100, 200, 400, 800], [1.0, 2.0, 4.0, 3.0], [2.0, 2.5, 3.0, 3.5])),
]



def verify_too_few_points(learner: Callable) -> None:
    """Task 5's hidden test, last: curves of one point (the two values equal, then apart) and of none, drawn from the
    grading's secret seed: ValueError, a crossover needs two points at least. The generated inputs cut the curves to one
    point in one kind of 17 only: a check of len(xs) < 1 kept the hidden points under secret seed 7 of 0-7."""
    rng = random.Random(hashlib.sha256(f"{current_seed()}:09_benchmarks:too few points".encode()).digest())
    x, a = rng.randint(0, 10_000), rng.randint(0, 40) / 4
    count = check_cases(CROSSOVER_TASK, learner, crossover,
                        [Case(([x], [a], [a])), Case(([x], [a], [a + rng.randint(1, 40) / 4])), Case(([], [], []))])
    passed(f"crossover: raises ValueError for curves of fewer than two points ({count} drawn).")


CROSSOVER = TaskGraders(CROSSOVER_TASK, crossover, CROSSOVER_CASES, crossover_inputs(), max_examples=200,
                        hidden_cases=CROSSOVER_HIDDEN_CASES,  # the xs by one map, the two curves together by another
                        hidden_vary=lambda args, rng: (*relabelled([args[0]], rng), *relabelled(list(args[1:]), rng)),
                        hidden_then=verify_too_few_points)

# ---- task 6: peak memory -------------------------------------------------------------------------

MIB = 2**20
PEAK_UNIT = 2**16  # peaks are compared in units of 64 KiB: an allocator's few hundred bytes do not count


OUTER_KEPT = "outer measurement's traces kept"


def run_peak_memory(function: Callable, allocate_mib: int, keep: bool, tracing_before: bool, held_mib: int,
                    spike_mib: int, fails: bool) -> dict:
    """Call ``function`` (a ``peak_memory``) on a function that allocates ``allocate_mib`` MiB (a driver).

    Before the call: tracemalloc is started if ``tracing_before`` (an outer measurement), an object
    of ``held_mib`` MiB is allocated and kept alive across the call, and one of ``spike_mib`` MiB is
    allocated and freed (an earlier peak). The measured function keeps its allocation and returns it
    (``keep``) or frees it and returns ``"done"``, or raises ``RuntimeError`` after allocating (``fails``).
    Returns what came back (a description), the peak in units of 64 KiB, whether tracing was on
    after the call, and, with ``tracing_before``, whether the outer measurement still traces what it
    traced before the call (``tracemalloc.stop()`` and ``start()`` again forget it: reset only the peak).
    """
    tracing_at_first = tracemalloc.is_tracing()
    if tracing_before:
        tracemalloc.start()
    try:
        held = bytearray(held_mib * MIB)
        spike = bytearray(spike_mib * MIB)
        del spike

        def measured():
            block = bytearray(allocate_mib * MIB)
            if fails:
                raise RuntimeError("the measured function failed")
            return block if keep else "done"

        traced_before = tracemalloc.get_traced_memory()[0]
        outer: dict = {}
        try:
            try:
                result, peak = function(measured)
            finally:  # while held is alive: the outer measurement traced it before the call
                if tracing_before:
                    outer[OUTER_KEPT] = (tracemalloc.is_tracing()
                                         and tracemalloc.get_traced_memory()[0] >= traced_before - PEAK_UNIT)
        except NotImplementedError:
            raise  # a skeleton, not the measured function's error
        except RuntimeError:
            return {"raised": "RuntimeError", "tracing after": tracemalloc.is_tracing(), **outer}
        finally:
            del held
        shown = f"a bytearray of {len(result) // MIB} MiB" if isinstance(result, bytearray) else result
        units = round(peak / PEAK_UNIT) if type(peak) is int else f"not an int: {type(peak).__name__}"
        return {"result": shown, "peak (64 KiB units)": units, "tracing after": tracemalloc.is_tracing(), **outer}
    finally:  # as it was, whatever the function did: the next call starts from the same state
        if tracemalloc.is_tracing() and not tracing_at_first:
            tracemalloc.stop()


def peak_hint(args: tuple, expected: object, got: object) -> str | None:
    allocate_mib, keep, tracing_before, held_mib, spike_mib, fails = args
    if not (isinstance(expected, dict) and isinstance(got, dict)):
        return None
    if got.get("tracing after") != expected.get("tracing after"):
        if tracing_before:
            return "tracing was on before the call (an outer measurement): leave it on, do not stop it"
        return "stop tracing after the call if it was off before, also when the function raises (try ... finally)"
    if got.get(OUTER_KEPT) is False and expected.get(OUTER_KEPT):
        return ("tracing was on before the call (someone measures around you): tracemalloc.clear_traces(), like stop() "
                "then start(), forgets everything it traced before, the caller's allocations included; reset only the "
                "peak (tracemalloc.reset_peak())")
    want, have = expected.get("peak (64 KiB units)"), got.get("peak (64 KiB units)")
    if isinstance(have, int) and isinstance(want, int) and have > want + 1:
        units = MIB // PEAK_UNIT
        if tracing_before and spike_mib > allocate_mib and abs(have - spike_mib * units) <= 1:
            return ("an earlier peak counts too: when tracing is already on, call tracemalloc.reset_peak() first, so "
                    "that the peak is this call's")
        if tracing_before and held_mib and abs(have - (want + held_mib * units)) <= 2:
            return "subtract the memory already allocated when the call starts (tracemalloc.get_traced_memory()[0])"
        return ("the peak of this call alone: when tracing is already on, reset the peak first "
                "(tracemalloc.reset_peak()) and subtract what was allocated when the call started")
    if isinstance(have, int) and isinstance(want, int) and have < want - 1:
        units = MIB // PEAK_UNIT
        if tracing_before and spike_mib and abs(have - (want - spike_mib * units)) <= 2:
            # novel50: the earlier peak (get_traced_memory()[1], read before the reset) subtracted, not the start
            return ("what you subtract is the peak before the call (get_traced_memory()[1], read before reset_peak): "
                    "subtract what is allocated when the call starts, tracemalloc.get_traced_memory()[0], read after "
                    "the reset, just before fn()")
        if keep and abs(have) <= 1:
            return ("what was allocated before the call is read before fn() runs: read after it, it holds what fn "
                    "kept (its result), so the peak less it is about 0")
        if not keep and not fails and abs(have) <= 1:
            # learn52: a snapshot compared after the call, or the process's maximum RSS: what fn freed is not seen
            return (f"a peak of about 0, though fn allocated {allocate_mib} MiB during the call and freed it before it "
                    "returned: what is held after the call (snapshots compared, current memory after less before, the "
                    "process's maximum RSS) misses it; the peak is tracemalloc.get_traced_memory()[1], read right "
                    "after fn() returns")
    if got.get("result") != expected.get("result"):
        return "return (what the function returned, the peak in bytes): the function's own result first"
    return None


# The call shown in a failure describes the scenario in plain words, one named value each: the learner's
# peak_memory takes only fn, a function that allocates fn_allocates_MiB (see run_peak_memory).
PEAK_TASK = Task("peak_memory", ("fn_allocates_MiB", "fn_returns_its_allocation", "tracing_already_on",
                                 "MiB_held_during_the_call", "earlier_peak_MiB", "fn_raises"),
                 driver=run_peak_memory, hint=peak_hint, what="a tuple (fn's result, peak in bytes as an int)")

PEAK_CASES = [
    Case((2, False, False, 0, 0, False)),
    Case((1, True, True, 2, 5, False)),
    Case((1, False, False, 0, 0, True)),
]

# Half the earlier peaks above the call's own (1 to 3 MiB more), which a peak not reset when tracing is on already
# returns: drawn from 0 to 8 MiB alone, one seed in seven drew none with tracing on (section 27 of
# tests/test_grading_redteam.py).
PEAK_INPUTS = st.integers(1, 6).flatmap(lambda allocate: st.tuples(
    st.just(allocate), st.booleans(), st.booleans(), st.integers(0, 4),
    st.integers(0, 8) | st.integers(1, 3).map(lambda more: allocate + more), st.integers(0, 7).map(lambda n: n == 0)))

# Fixed hidden inputs: an outer measurement holding memory, with an earlier peak, the call keeping or raising.
PEAK_HIDDEN_CASES = [
    Case((2, True, True, 3, 6, False)),
    Case((1, False, True, 2, 0, True)),
    Case((3, False, False, 1, 4, True)),
]


@redrawn
def varied_peak(args: tuple, rng: random.Random) -> tuple:
    """A peak_memory hidden case with its three sizes redrawn from ``rng`` by one increasing map (:func:`relabelled`: none
    held or no earlier peak stays so, and which of the call's, the held and the earlier peak is the largest stays), what
    the function does and whether tracing is on kept (``hidden_vary``)."""
    allocate, keep, tracing_before, held, spike, fails = args
    allocate, held, spike = relabelled([[allocate, held, spike]], rng, high=9)[0]
    return allocate, keep, tracing_before, held, spike, fails


# ---- task 6, against what the worker cannot know: a size drawn inside fn, sealed for the trusted side ------------
# The cases above tell the driver's function its size before the call, and the driver runs in the worker: a
# peak_memory can read it there (fn's closure, the caller's frame) and return it with nothing measured
# (tests/test_grading_redteam.py, section 14). So the trusted side also sends a function that draws its size when it is
# called (os.urandom, in the worker), allocates that many bytes and frees them, and reports the size sealed with a
# public key whose private half never leaves this process (textbook RSA on a random salt: the worker cannot read it
# back, nor confirm a guess by sealing it again). Only a measurement of the call finds the size; this process opens
# the seal and compares. Code that replaces os.urandom before the call, or traces fn's frame, could still learn the
# size: those are flagged for review (trusted/review.py), not decided here.
SECRET_UNITS = (16, 160)  # the drawn size, in 64 KiB units: 1 to 10 MiB
SECRET_CALLS = 2  # calls, each with its own size: a guess passes one in 145, both one in 21,000
_SEALING_KEY: list[tuple[int, int]] = []  # (modulus, private exponent) of this process, made on first use
SEAL_EXPONENT = 65537


SMALL_PRIMES = [n for n in range(3, 2000, 2) if all(n % d for d in range(3, int(n**0.5) + 1, 2))]


def _probable_prime(bits: int) -> int:
    """A random prime of ``bits`` bits (trial division, then Miller-Rabin, 32 rounds), from the system's randomness."""
    draw = random.SystemRandom()
    while True:
        candidate = draw.getrandbits(bits) | (1 << (bits - 1)) | 1
        if any(candidate % small == 0 for small in SMALL_PRIMES):
            continue
        odd, twos = candidate - 1, 0
        while odd % 2 == 0:
            odd, twos = odd // 2, twos + 1
        for _ in range(32):
            x = pow(draw.randrange(2, candidate - 1), odd, candidate)
            if x in (1, candidate - 1):
                continue
            for _ in range(twos - 1):
                x = pow(x, 2, candidate)
                if x == candidate - 1:
                    break
            else:
                break  # a witness: composite
        else:
            return candidate


def sealing_key() -> tuple[int, int]:
    """``(modulus, private exponent)`` of this grading process's key: the worker gets the modulus only."""
    while not _SEALING_KEY:
        p, q = _probable_prime(512), _probable_prime(512)
        phi = (p - 1) * (q - 1)
        if p != q and math.gcd(SEAL_EXPONENT, phi) == 1:
            _SEALING_KEY.append((p * q, pow(SEAL_EXPONENT, -1, phi)))
    return _SEALING_KEY[0]


def run_secret_size(function: Callable, modulus: int, exponent: int, low: int, high: int, unit: int) -> dict:
    """Call ``function`` (a ``peak_memory``) on a function that, when called, draws a size of ``low`` to ``high``
    ``unit`` s, allocates it and frees it, and returns ``"done"`` (a driver). The size is sealed with the public key
    ``(modulus, exponent)`` as soon as it is drawn; returns what came back and the seals, one per call of the function."""
    sealed: list = []

    def measured_fn() -> str:
        units = low + int.from_bytes(os.urandom(8), "big") % (high - low + 1)
        salt = int.from_bytes(os.urandom(64), "big")
        sealed.append(pow((salt << 32) | units, exponent, modulus))
        block = bytearray(units * unit)
        del block, units, salt
        return "done"

    returned = function(measured_fn)
    if not (isinstance(returned, tuple) and len(returned) == 2):
        return {"returned": f"not a pair: {type(returned).__name__}", "sealed": sealed}
    result, peak = returned
    return {"result": result, "peak": peak if type(peak) is int else f"not an int: {type(peak).__name__}",
            "sealed": sealed}


def verify_secret_size(learner: Callable) -> None:
    """``peak_memory`` finds a size that nothing knows before the call: :data:`SECRET_CALLS` calls of
    :func:`run_secret_size`'s driver, each fn allocating a size drawn when it is called; the seal is opened here."""
    modulus, private = sealing_key()
    low, high = SECRET_UNITS
    with measured.cases_explain_a_failure(PEAK_TASK, learner, peak_memory, lambda: PEAK_CASES):
        for _ in range(SECRET_CALLS):
            _one_secret_size(learner, modulus, private, low, high)


def _one_secret_size(learner: Callable, modulus: int, private: int, low: int, high: int) -> None:
    """One call of :func:`verify_secret_size`: the peak must be the size fn drew, opened from its seal here."""
    outcome = call_learner(learner, (modulus, SEAL_EXPONENT, low, high, PEAK_UNIT), driver=run_secret_size)
    describe = f"<a fn that allocates {low * PEAK_UNIT // MIB} to {high * PEAK_UNIT // MIB} MiB, drawn when it is called>"
    outcome.fail_on_error(f"peak_memory({describe})")
    report = outcome.value[1]
    seals = report.get("sealed") if isinstance(report, dict) else None
    if isinstance(report, dict) and "returned" in report:
        raise CheckFailed(f"peak_memory({describe}) returned {report['returned']}: return (what fn returned, the peak)")
    if not isinstance(seals, list) or len(seals) != 1 or type(seals[0]) is not int:
        count = len(seals) if isinstance(seals, list) else 0
        raise CheckFailed(f"peak_memory({describe}) called fn {count} times: call it once, between the two readings "
                          "of tracemalloc")
    units = pow(seals[0], private, modulus) & 0xFFFF_FFFF
    peak = report.get("peak")
    if report.get("result") != "done" or not (type(peak) is int and abs(peak - units * PEAK_UNIT) < PEAK_UNIT):
        shown = f"{peak:,} bytes" if type(peak) is int else repr(peak)
        raise CheckFailed(
            f"peak_memory({describe}) returned ({report.get('result')!r}, {shown}); fn allocated {units * PEAK_UNIT:,} "
            f"bytes and freed them, so expected ('done', about {units * PEAK_UNIT:,}) (to the nearest 64 KiB). fn "
            "draws its size when it is called: only a measurement of the call finds it. hint: start tracing "
            "(tracemalloc.start()) before calling fn, read the peak after (tracemalloc.get_traced_memory()[1]), "
            "minus what was allocated at the start")


PEAK_MEMORY = TaskGraders(PEAK_TASK, peak_memory, PEAK_CASES, PEAK_INPUTS, max_examples=30, hidden_cases=PEAK_HIDDEN_CASES,
                          hidden_vary=varied_peak,
                          verify=(verify_secret_size,))

LAB = Lab(
    "09_benchmarks",
    (INTERLEAVED, SPREAD, PAIRED_RATIO, FIT_EXPONENT, CROSSOVER, PEAK_MEMORY),
    references=(interleaved, spread, paired_ratio, fit_exponent, crossover, peak_memory),
    policy={},  # the standard library only: statistics, math, time, gc, tracemalloc
)
LAB.install(globals())

# ---- stretch (ungraded): which crossover to report ---------------------------------------------------


def noisy_lines(seed: int, meet: bool = True, noise: float = 0.10, points: int = 12
                ) -> tuple[list[int], list[float], list[float], float | None]:
    """Two curves measured at ``points`` xs (250, 500, ...), each value times a recorded factor
    within ``1 ± noise``: a ``b`` that rises slowly, and an ``a`` whose line crosses it at a known x
    (returned last), or, with ``meet=False``, an ``a`` that stays 15% above ``b`` everywhere."""
    rng = random.Random(seed)
    xs = [250 * (i + 1) for i in range(points)]
    x0 = rng.uniform(xs[1], xs[-3]) if meet else None
    slow = [1.0 + 0.2 * x / 1000 for x in xs]
    steep = [y + 0.3 * (x - x0) / 1000 for y, x in zip(slow, xs)] if meet else [1.15 * y for y in slow]
    factor = lambda: 1 + rng.uniform(-noise, noise)  # noqa: E731
    return xs, [y * factor() for y in steep], [y * factor() for y in slow], x0


STRETCH_NOISY, STRETCH_CLOSE = 60, 50  # noisy pairs that cross, and how many answers must land close
STRETCH_APART, STRETCH_SPURIOUS = 20, 2  # noisy pairs that never meet, and how many crossings are tolerated


def stretch_scores(function: Callable) -> tuple[int, list[str], int]:
    """How many of the noisy crossing pairs ``function`` places within an eighth of the range of the
    true crossing (with up to three misses described), and how many never-meeting pairs it finds a
    crossing in. The first crossing (``crossover``) scores about 46 and 9: noise fools it."""
    close, misses = 0, []
    for seed in range(STRETCH_NOISY):
        xs, ys_a, ys_b, x0 = noisy_lines(seed)
        got = function(xs, ys_a, ys_b)
        if isinstance(got, (int, float)) and abs(got - x0) <= (xs[-1] - xs[0]) / 8:
            close += 1
        elif len(misses) < 3:
            misses.append(f"noisy_lines({seed}): the lines cross at {x0:.0f}, yours {got!r}, the first crossing "
                          f"{crossover(xs, ys_a, ys_b)!r}")
    spurious = sum(function(*noisy_lines(seed, meet=False)[:3]) is not None for seed in range(STRETCH_APART))
    return close, misses, spurious


def verify_noisy_curves(reported_crossover: Callable) -> None:
    """Better than the first crossing on noisy curves: close to the true crossing on at least 50 of 60 pairs,
    and a crossing in at most 2 of 20 pairs that never meet (after the clean curves, the stretch's cases)."""
    close, misses, spurious = stretch_scores(reported_crossover)
    if close < STRETCH_CLOSE:
        range_ = (noisy_lines(0)[0][-1] - noisy_lines(0)[0][0]) / 8
        raise CheckFailed(f"reported_crossover lands within {range_:.0f} of the true crossing on {close} of "
                          f"{STRETCH_NOISY} noisy pairs of curves, fewer than {STRETCH_CLOSE}:\n  " + "\n  ".join(misses)
                          + "\n  hint: noise makes the curves cross back and forth around the true crossing; which of "
                            "those crossings (or what else) says where one curve is below the other for good?")
    if spurious > STRETCH_SPURIOUS:
        raise CheckFailed(f"reported_crossover finds a crossing in {spurious} of {STRETCH_APART} pairs of curves that "
                          f"never meet (noisy_lines(seed, meet=False): a is 15% above b everywhere, the noise is ±10%), "
                          f"more than {STRETCH_SPURIOUS}")
    passed(f"reported_crossover: the crossing on clean curves; close on {close} of {STRETCH_NOISY} noisy pairs; "
           f"a crossing in {spurious} of {STRETCH_APART} pairs that never meet.")


# Stretch: on straight lines without noise (that cross, that never meet, and task 5's that meet at a measured x and
# that never meet), the crossing itself (crossover's); then, on noisy curves, better than the first crossing.
CLEAN_CURVES = [noisy_lines(seed, noise=0.0)[:3] for seed in range(5)] + [
    noisy_lines(seed, meet=False, noise=0.0)[:3] for seed in range(2)]
check_stretch_crossover = stretch("crossover", TaskGraders(
    Task("reported_crossover", ("xs", "ys_a", "ys_b"), observe=observe_significant, what="a float, or None"), crossover,
    [*CLEAN_CURVES, *CROSSOVER_CASES[3:5]], visible_then=verify_noisy_curves))
