"""bpe_ref.measure, the course's measuring harness (step 09): deterministic checks with fake clocks
and generated data whose exponents and crossovers are known. Nothing here times real work."""

from __future__ import annotations

import gc
import math
import statistics
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

from bpe_ref.measure import crossover, fit_exponent, interleaved, median, paired_ratio, peak_memory, spread, timed


class FakeClock:
    """A clock that only moves when a contender says how long it took."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls: list[tuple[str, bool]] = []

    def __call__(self) -> float:
        return self.now

    def contender(self, label: str, seconds: float):
        def run() -> None:
            self.calls.append((label, gc.isenabled()))
            self.now += seconds

        return run


def test_interleaved_rotates_the_first_contender_and_returns_each_contenders_times():
    clock = FakeClock()
    contenders = {label: clock.contender(label, cost) for label, cost in (("a", 1.0), ("b", 2.0), ("c", 4.0))}
    times = interleaved(contenders, 4, clock=clock)
    assert "".join(label for label, _ in clock.calls) == "abc" "bca" "cab" "abc"
    assert times == {"a": [1.0] * 4, "b": [2.0] * 4, "c": [4.0] * 4}
    assert list(times) == ["a", "b", "c"]


@pytest.mark.parametrize("collector_on", [True, False])
def test_interleaved_pauses_the_collector_during_each_call_and_restores_it(collector_on):
    clock = FakeClock()
    was = gc.isenabled()
    (gc.enable if collector_on else gc.disable)()
    try:
        interleaved({"a": clock.contender("a", 1.0)}, 2, clock=clock)
        assert [enabled for _, enabled in clock.calls] == [False, False]
        assert gc.isenabled() == collector_on
    finally:
        (gc.enable if was else gc.disable)()


def test_load_that_drifts_hits_interleaved_contenders_alike():
    """A machine whose load doubles half-way: timed one after the other, b looks twice as slow as a;
    interleaved, their per-round ratio is exactly 1."""
    clock = FakeClock()
    calls = []

    def contender(label):
        def run():
            calls.append(label)
            clock.now += 1.0 if len(calls) <= 4 else 2.0  # the load doubles after four calls
        return run

    times = interleaved({"a": contender("a"), "b": contender("b")}, 4, clock=clock)
    assert paired_ratio(times, "b", "a") == 1.0
    calls.clear()
    blocked = {label: [timed(contender(label), clock=clock) for _ in range(4)] for label in ("a", "b")}
    assert median(blocked["b"]) / median(blocked["a"]) == 2.0


@given(costs=st.lists(st.integers(1, 50), min_size=1, max_size=5), rounds=st.integers(1, 6))
@settings(max_examples=40, deadline=None, derandomize=True)
def test_interleaved_runs_each_contender_once_per_round(costs, rounds):
    clock = FakeClock()
    labels = [f"m{i}" for i in range(len(costs))]
    contenders = {label: clock.contender(label, float(c)) for label, c in zip(labels, costs)}
    times = interleaved(contenders, rounds, clock=clock)
    assert times == {label: [float(c)] * rounds for label, c in zip(labels, costs)}
    order = [label for label, _ in clock.calls]
    n = len(labels)
    for r in range(rounds):
        assert order[r * n : (r + 1) * n] == labels[r % n :] + labels[: r % n]


def test_interleaved_refuses_nothing_to_time():
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        interleaved({"a": lambda: None}, 0)
    with pytest.raises(ValueError, match="no contenders"):
        interleaved({}, 3)


def test_median_and_spread():
    assert median([3.0, 1.0, 2.0]) == 2.0 and median([1.0, 2.0, 3.0, 10.0]) == 2.5
    assert spread([10, 11, 12, 13, 30]) == pytest.approx(2 / 12)  # the outlier 30 is outside the quartiles
    assert spread([5.0, 5.0]) == 0.0
    with pytest.raises(ValueError, match="no values"):
        median([])
    with pytest.raises(ValueError, match="at least two"):
        spread([1.0])
    with pytest.raises(ValueError, match="positive"):
        spread([0.0, 0.0, 0.0])


@given(st.lists(st.integers(1, 10_000), min_size=2, max_size=12), st.integers(1, 1000))
@settings(max_examples=60, deadline=None, derandomize=True)
def test_spread_is_relative_and_matches_the_inclusive_quartiles(values, scale):
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    assert spread(values) == pytest.approx((q3 - q1) / statistics.median(values))
    assert spread([v * scale for v in values]) == pytest.approx(spread(values))  # same in ms or s


@given(st.lists(st.tuples(st.integers(1, 1000), st.integers(1, 1000)), min_size=1, max_size=9), st.integers(1, 50))
@settings(max_examples=60, deadline=None, derandomize=True)
def test_paired_ratio_is_the_median_of_per_round_ratios(rounds, factor):
    a = [float(x) for x, _ in rounds]
    b = [float(y) for _, y in rounds]
    assert paired_ratio({"a": a, "b": b}, "a", "b") == statistics.median([x / y for x, y in zip(a, b)])
    # a round whose load slows both contenders alike changes nothing
    slowed = {"a": [x * factor for x in a], "b": [y * factor for y in b]}
    assert paired_ratio(slowed, "a", "b") == pytest.approx(paired_ratio({"a": a, "b": b}, "a", "b"))


def test_paired_ratio_errors_name_the_problem():
    with pytest.raises(KeyError, match="'c'"):
        paired_ratio({"a": [1.0], "b": [1.0]}, "a", "c")
    with pytest.raises(ValueError, match="round by round"):
        paired_ratio({"a": [1.0, 2.0], "b": [1.0]}, "a", "b")
    with pytest.raises(ValueError, match="no rounds"):
        paired_ratio({"a": [], "b": []}, "a", "b")


@given(k=st.integers(-20, 30).map(lambda i: i / 10), c=st.floats(1e-6, 1e3),
       sizes=st.lists(st.integers(1, 10**7), min_size=2, max_size=8, unique=True))
@settings(max_examples=80, deadline=None, derandomize=True)
def test_fit_exponent_recovers_a_known_power_law(k, c, sizes):
    assert fit_exponent(sizes, [c * s**k for s in sizes]) == pytest.approx(k, abs=1e-9)


def test_fit_exponent_is_the_least_squares_slope_on_noisy_data():
    sizes = [1, 2, 4, 8]
    seconds = [1.0, 2.0 * 1.1, 4.0 / 1.1, 8.0]  # noise around slope 1, symmetric on the log scale
    assert fit_exponent(sizes, seconds) == pytest.approx(1 - 2 * math.log(1.1) / (10 * math.log(2)), abs=1e-12)
    for bad, message in ((([1, 2], [1.0]), "2 sizes but 1"), (([3], [1.0]), "at least two"),
                         (([1, 2], [0.0, 1.0]), "positive"), (([2, 2], [1.0, 3.0]), "same")):
        with pytest.raises(ValueError, match=message):
            fit_exponent(*bad)


@given(xs=st.lists(st.integers(0, 10_000), min_size=2, max_size=8, unique=True).map(sorted),
       at=st.floats(0.05, 0.95), slope_a=st.integers(1, 20), slope_b=st.integers(-20, 0))
@settings(max_examples=80, deadline=None, derandomize=True)
def test_crossover_of_two_lines_is_where_they_meet(xs, at, slope_a, slope_b):
    """Two straight lines through a point inside the measured range cross there (the interpolation
    between the bracketing points is exact for lines)."""
    x0 = xs[0] + at * (xs[-1] - xs[0])
    a = [5.0 + slope_a * (x - x0) for x in xs]
    b = [5.0 + slope_b * (x - x0) for x in xs]
    found = crossover(xs, a, b)
    assert found is not None and found == pytest.approx(x0, abs=1e-6)
    assert crossover(xs, b, a) == pytest.approx(found)  # symmetric
    assert crossover(xs, [y + 1e6 for y in a], b) is None  # a always above b: no crossing


def test_crossover_takes_the_first_crossing_and_exact_meetings():
    xs = [1, 2, 3, 4, 5]
    assert crossover(xs, [1.0, 3.0, 1.0, 3.0, 1.0], [2.0] * 5) == 1.5  # noisy curves: the first crossing
    assert crossover(xs, [1.0, 2.0, 3.0, 4.0, 5.0], [3.0] * 5) == 3.0  # equal at a measured point
    assert isinstance(crossover([10, 20], [1.0, 1.0], [1.0, 2.0]), float)
    for bad, message in ((([1], [1.0], [2.0]), "at least two"), (([1, 2], [1.0], [2.0, 1.0]), "one of each"),
                         (([2, 1], [1.0, 2.0], [2.0, 1.0]), "increase")):
        with pytest.raises(ValueError, match=message):
            crossover(*bad)


def test_crossover_on_page_05s_measurement_of_v4_and_v5():
    """The page-05 file (cumulative seconds after each tenth merge): V5 overtakes V4 within the first
    ten merges, which page 05 states with its own reading of the same curves."""
    from bpe_ref.course.figures.heaps import crossover_data, first_lasting_lead

    for corpus in crossover_data()["corpora"]:
        v4, v5 = corpus["seconds"].values()
        found = crossover(corpus["merges"], v4, v5)
        assert found is None or found <= first_lasting_lead(corpus["merges"], v4, v5)


MIB = 2**20


@pytest.mark.parametrize("tracing_before", [False, True])
def test_peak_memory_counts_the_call_alone(tracing_before):
    if tracing_before:
        tracemalloc.start()
    try:
        held = bytearray(3 * MIB)  # live before the call (traced when tracing is on): not the call's
        spike = bytearray(4 * MIB)
        del spike  # an earlier peak: not the call's either
        result, peak = peak_memory(lambda: len(bytearray(2 * MIB)))
        assert result == 2 * MIB and 2 * MIB <= peak < 2 * MIB + 64 * 1024
        assert tracemalloc.is_tracing() == tracing_before
        kept, peak = peak_memory(lambda: bytearray(MIB))
        assert len(kept) == MIB and MIB <= peak < MIB + 64 * 1024
        del held
    finally:
        if tracing_before:
            tracemalloc.stop()


def test_peak_memory_stops_tracing_when_the_call_raises():
    def fails():
        bytearray(MIB)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        peak_memory(fails)
    assert not tracemalloc.is_tracing()


def test_load_warning_says_when_a_timing_cannot_be_trusted():
    from bpe_ref.measure import load_warning

    # Busy: more runnable processes than cores once the measurement's own are added.
    assert "the machine is busy" in load_warning(load=1.2, cores=2, workers=2)
    assert load_warning(load=1.2, cores=2, workers=1) is None
    assert load_warning(load=0.1, cores=2, workers=2) is None
    # Noisy: repeats that disagree, named; repeats that agree, or a single run, say nothing.
    noisy = load_warning({"1 worker": [1.0, 1.0, 1.0], "2 workers": [0.4, 0.9, 0.5]}, load=None)
    assert noisy.startswith("the repeats disagree: 2 workers spread") and "1 worker spread" not in noisy
    assert load_warning({"once": [3.0], "steady": [1.0, 1.05, 1.02]}, load=None) is None
    both = load_warning({"x": [1.0, 2.0, 3.0]}, load=9.0, cores=2)
    assert "busy" in both and "disagree" in both and both.endswith("before trusting the verdict")
    # Reading the load now works wherever os.getloadavg exists, and gives a sentence or None.
    assert load_warning() is None or "busy" in load_warning()
    with pytest.raises(ValueError, match="workers must be at least 0"):
        load_warning(workers=-1)


def test_load_note_warns_after_a_timing_on_load_above_the_cores_or_on_spread_repeats():
    from bpe_ref.measure import load_note

    assert load_note(load=3.5, cores=2).startswith("WARNING: the machine is busy: a 1-minute load of 3.5 on 2 cores")
    assert load_note(load=1.9, cores=2).startswith("The machine was quiet enough")  # the load counts the timing itself
    noisy = load_note({"heap": [1.0, 1.0, 1.6, 2.0, 1.1]}, load=0.2, cores=2)
    assert noisy.startswith("WARNING") and "heap spread" in noisy
    quiet = load_note({"heap": [1.0, 1.01, 1.02], "zero": [0.0, 0.0, 0.0]}, load=0.2, cores=2)
    assert quiet.startswith("The machine was quiet enough")
