"""Step 10: counting pretokens on a Dask cluster equals the serial count.

One local cluster, started by ``bpe_ref.distributed.connect`` and scaled to 1, 2 and 4 workers in
turn, serves every example (a cluster's start costs seconds; an example, a fraction of one). One
test starts a scheduler and two workers with Dask's command-line programs, as on a real cluster, and
one lets ``count_pretokens_on_cluster`` start and stop its own cluster.
"""

from __future__ import annotations

import itertools
import json
import re
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import dask
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_ref
from bpe_ref.distributed import (
    MAX_RANGE_BYTES,
    Packed,
    check_scheduler_answers,
    connect,
    count_pretokens_on_cluster,
    count_pretokens_with,
    count_ranges,
    merge_two,
    packed_call,
    plan_ranges,
    plan_ranges_by_size,
    range_bytes_for,
    serial_count,
    tree_reduce,
    worker_error,
)

from sampling import EXHAUSTIVE


EOT = "<|endoftext|>"
PAD = "<|pad|>"
TOKEN_SETS = [[EOT], [EOT, PAD], [], ["<s>", "a<s>b"], ["aa"]]  # the last two overlap themselves
PIECES = ["a", "b", "s", " the", " cat", "\n", "\n\n", "  ", "é", "字", "🙂", "!", "<", "<|", "endoftext", "|>", " 42"]
PROPERTY = settings(derandomize=True, deadline=None, database=None, max_examples=8,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def corpora(draw) -> tuple[list[bytes], list[str]]:
    """1 to 4 files of text with special tokens anywhere (file edges too), now and then long enough
    to be cut into many ranges, and the special tokens."""
    tokens = draw(st.sampled_from(TOKEN_SETS))
    texts = draw(st.lists(st.lists(st.sampled_from(PIECES + tokens * 3), max_size=30).map("".join),
                          min_size=1, max_size=4))
    repeat = draw(st.sampled_from([1, 1, 40]))
    return [(text * repeat).encode("utf-8") for text in texts], tokens


counter = itertools.count()


def write_files(folder: Path, contents: list[bytes]) -> list[str]:
    paths = []
    for content in contents:
        path = folder / f"part_{next(counter)}.txt"
        path.write_bytes(content)
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def client():
    """A local cluster of processes, started by the module under test; tests scale it."""
    with connect(num_workers=1) as client:
        yield client


def scale(client, workers: int) -> None:
    client.cluster.scale(workers)
    deadline = time.monotonic() + 60
    while len(client.nthreads()) != workers:
        assert time.monotonic() < deadline, f"the cluster did not reach {workers} workers"
        time.sleep(0.05)


# ---- plain functions: no cluster -------------------------------------------------------------


def test_tree_reduce_keeps_order_and_is_log_deep():
    for n in range(1, 18):
        parts = [(str(i), 0) for i in range(n)]  # (text, depth of the combines that made it)
        text, depth = tree_reduce(parts, lambda left, right: (left[0] + right[0], max(left[1], right[1]) + 1))
        assert text == "".join(str(i) for i in range(n))
        assert depth == (n - 1).bit_length(), f"{n} parts: {depth} rounds, expected ceil(log2 {n})"
    with pytest.raises(ValueError, match="at least one"):
        tree_reduce([], merge_two)


def test_merge_two_adds_and_leaves_its_inputs_alone():
    left, right = {b"a": 1, b" the": 2}, {b" the": 3, b"\n": 1}
    assert merge_two(left, right) == {b"a": 1, b" the": 5, b"\n": 1}
    assert left == {b"a": 1, b" the": 2} and right == {b" the": 3, b"\n": 1}
    assert merge_two({}, {}) == {}


@settings(PROPERTY, max_examples=100)  # no cluster: cheap
@given(corpora(), st.integers(1, 9))
def test_ranges_cover_each_file_and_cut_only_at_special_tokens(tmp_path, corpus, ranges_per_file):
    contents, tokens = corpus
    paths = write_files(tmp_path, contents)
    ranges = plan_ranges(paths, tokens, ranges_per_file)
    for path, content in zip(paths, contents):
        own = [(start, end) for p, start, end in ranges if p == path]
        ends = [0] + [end for _, end in own]
        assert [start for start, _ in own] == ends[:-1] and ends[-1] == len(content), "ranges tile the file"
        assert all(start < end for start, end in own)
        assert len(own) <= ranges_per_file
        for start, _ in own[1:]:
            assert any(content.startswith(t.encode(), start) for t in tokens), f"cut at {start}, not at a special token"
    assert Counter(p for p, _, _ in ranges).keys() <= set(paths)
    # the map on each range, reduced as a tree, here, is the serial count
    assert count_ranges(ranges, tokens) == serial_count(paths, tokens)


@settings(PROPERTY, max_examples=60)
@given(corpora(), st.integers(1, 64))
def test_ranges_by_size_cut_each_file_by_its_own_size(tmp_path, corpus, range_bytes):
    contents, tokens = corpus
    paths = write_files(tmp_path, contents)
    ranges = plan_ranges_by_size(paths, tokens, range_bytes)
    for path, content in zip(paths, contents):
        own = [(start, end) for p, start, end in ranges if p == path]
        assert own == [(s, e) for _, s, e in plan_ranges([path], tokens, max(1, -(-len(content) // range_bytes)))]
    assert count_ranges(ranges, tokens) == serial_count(paths, tokens)


def test_several_files_count_as_if_cut_off_by_a_special_token(write_corpus):
    first, second = write_corpus("the ca"), write_corpus("t sat")  # no pretoken " cat" spans the two
    assert serial_count([first, second], [EOT]) == {b"the": 1, b" ca": 1, b"t": 1, b" sat": 1}
    assert plan_ranges([first, second], [EOT], 4) == [(str(first), 0, 6), (str(second), 0, 5)]


def test_bad_input_fails_before_any_work(write_corpus, tmp_path):
    good = write_corpus("hello<|endoftext|>world")
    missing = tmp_path / "missing_part.txt"
    start = time.monotonic()
    # checked before connecting: the address is unreachable, yet the error is the missing file
    with pytest.raises(FileNotFoundError, match="1 of 3 corpus files not found: .*missing_part.txt"):
        count_pretokens_on_cluster([good, missing, good], [EOT], scheduler="tcp://127.0.0.1:1")
    with pytest.raises(IsADirectoryError, match=str(tmp_path)):
        count_pretokens_on_cluster([good, tmp_path], [EOT])
    with pytest.raises(ValueError, match="no corpus files"):
        count_pretokens_on_cluster([], [EOT])
    with pytest.raises(TypeError, match="sequence of strings"):
        count_pretokens_on_cluster([good], EOT)
    with pytest.raises(ValueError, match="ranges_per_file"):
        plan_ranges([good], [EOT], 0)
    with pytest.raises(ValueError, match="range_bytes"):
        plan_ranges_by_size([good], [EOT], 0)
    with pytest.raises(ValueError, match="for a local cluster"):
        count_pretokens_on_cluster([good], [EOT], scheduler="tcp://127.0.0.1:1", num_workers=2)
    with pytest.raises(ValueError, match="not a Dask scheduler address: 'localhost'"):
        count_pretokens_on_cluster([good], [EOT], scheduler="localhost")
    assert time.monotonic() - start < 5


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_scheduler_is_named_within_seconds(write_corpus):
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    start = time.monotonic()
    with pytest.raises(ConnectionError, match=f"cannot reach the Dask scheduler at {address}"):
        count_pretokens_on_cluster([write_corpus("hello")], [EOT], scheduler=address)
    assert time.monotonic() - start < 10


@pytest.fixture
def not_schedulers():
    """Two addresses where something other than Dask listens, on 127.0.0.1: a tiny web server (as
    the dashboard's port would be) and a TCP listener that accepts and never says a word."""
    import http.server
    import threading

    class Quiet(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_error(404)

        def log_message(self, *args):
            pass

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:
        yield {"web server": f"tcp://127.0.0.1:{web.server_address[1]}",
               "silent listener": f"127.0.0.1:{silent.getsockname()[1]}"}
    finally:
        web.shutdown()
        web.server_close()
        thread.join()
        silent.close()


@pytest.mark.parametrize("kind", ["web server", "silent listener"])
def test_something_else_at_the_scheduler_address_is_named_within_seconds(not_schedulers, kind):
    """A web server there used to end in a traceback about allocating 3.07 EiB (Dask read
    'HTTP/1.x' as a message length), the dashboard's port in a wait of minutes."""
    address = not_schedulers[kind]
    start = time.monotonic()
    with pytest.raises(ConnectionError, match=rf"^{re.escape(address)} is not a Dask scheduler: something listens "
                                              r"there but said nothing in 1 s.*dashboard"):
        with connect(address, timeout=1):
            pass
    assert time.monotonic() - start < 5


def test_a_web_server_that_answers_first_is_not_taken_for_a_scheduler():
    """Bytes that are no Dask handshake (a length of exabytes) are refused at once."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        import threading

        def greet():
            connection, _ = server.accept()
            with connection:
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                time.sleep(0.5)

        thread = threading.Thread(target=greet)
        thread.start()
        with pytest.raises(ConnectionError, match=r"is not a Dask scheduler: it answered b'HTTP/1.1', not a Dask handshake"):
            check_scheduler_answers(address, 5)
        thread.join()


# ---- on the shared local cluster --------------------------------------------------------------


# One worker, and more workers than CI's two cores (3: ranges shared unevenly, 12 of them, not a power of two, for
# the tree's reduce; each worker is a process to start, a second or more of CPU); BPE_EXHAUSTIVE=1 adds 2 and 4.
@pytest.mark.parametrize("workers", [1, 2, 3, 4] if EXHAUSTIVE else [1, 3])
def test_distributed_counts_equal_serial_counts(client, tmp_path_factory, workers):
    scale(client, workers)

    @PROPERTY
    @given(corpora())
    def check(corpus):
        contents, tokens = corpus
        paths = write_files(tmp_path_factory.mktemp("corpus"), contents)
        assert count_pretokens_with(client, paths, tokens) == serial_count(paths, tokens)

    check()


def test_the_local_cluster_listens_on_this_machine_only(client):
    """The cluster connect() starts (scheduler, dashboard, workers, nannies) takes connections from this machine
    only: a learner's laptop on a shared network offers no one its dashboard. (The dashboard listened on every
    interface, 0.0.0.0, before its address was given.)"""
    import psutil

    here = psutil.Process()
    listening = [(process.pid, connection.laddr) for process in [here, *here.children(recursive=True)]
                 for connection in process.net_connections(kind="inet") if connection.status == psutil.CONN_LISTEN]
    assert listening, "no listening socket found: the test looks in the wrong processes"
    assert all(address.ip in ("127.0.0.1", "::1") for _, address in listening), listening
    assert client.dashboard_link.startswith("http://127.0.0.1:"), client.dashboard_link


def test_count_ranges_builds_a_dask_graph(client, write_corpus):
    paths = [write_corpus(f"story {i}: the cat sat.{EOT}" * 30) for i in range(3)]
    ranges = plan_ranges(paths, [EOT], 3)
    graph = count_ranges(ranges, [EOT], as_task=dask.delayed)
    assert isinstance(graph, dask.delayed(merge_two)(1, 2).__class__)
    assert client.compute(graph).result() == serial_count(paths, [EOT])


def test_a_file_that_is_not_utf8_is_named_with_its_offset(client, write_corpus):
    good = write_corpus(f"fine{EOT}" * 100)
    bad = write_corpus(f"fine{EOT}".encode() * 100 + b"\xff" + f"{EOT}x".encode() * 100)
    with pytest.raises(ValueError, match=f"{bad} is not valid UTF-8: byte offset 1700"):
        count_pretokens_with(client, [good, bad], [EOT])


# ---- clusters started otherwise --------------------------------------------------------------


def test_a_local_clusters_scheduler_shares_the_clients_process_and_only_workers_have_their_own(client):
    """Page 10, section 3: in a local cluster the scheduler (and the nannies) run in the client's
    process; each worker is a process of its own."""
    import os

    assert client.run_on_scheduler(os.getpid) == os.getpid()
    workers = client.run(os.getpid)
    assert workers and os.getpid() not in workers.values()


def test_count_pretokens_starts_and_stops_its_own_cluster(write_corpus, capsys):
    paths = [write_corpus(f"one two{EOT}three" * 50), write_corpus("four")]
    assert count_pretokens_on_cluster(paths, [EOT], num_workers=1, progress=True) == serial_count(paths, [EOT])


def test_a_local_cluster_whose_worker_processes_cannot_start_runs_threads_and_says_why(write_corpus, monkeypatch):
    """A script with no main guard, or read from standard input (bpe_ref.main_guard; the scripts
    themselves are run in test_train_errors.py): its Nannies failed to start, with tracebacks."""
    from bpe_ref import main_guard

    asked = []
    monkeypatch.setattr(main_guard, "main_module_problem",
                        lambda method: asked.append(method) or "put the script's work under its guard")
    paths = [write_corpus(f"one two{EOT}three" * 20)]
    with pytest.warns(RuntimeWarning, match="the local Dask cluster runs its workers as threads of this process: "
                                            "put the script's work under its guard"):
        with connect(None, 1) as client:
            assert not client.cluster.processes
            assert count_pretokens_with(client, paths, [EOT]) == serial_count(paths, [EOT])
    assert asked == [dask.config.get("distributed.worker.multiprocessing-method")]


@pytest.fixture
def cli_cluster(tmp_path):
    """A scheduler and two workers started by Dask's command-line programs, as on a real cluster."""
    scheduler_file = tmp_path / "scheduler.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(bpe_ref.__file__).parent.parent),
                                                          os.environ.get("PYTHONPATH", "")]))
    quiet = dict(env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    started = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                 "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)], **quiet)]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists():
            assert started[0].poll() is None, "dask scheduler exited"
            assert time.monotonic() < deadline, "dask scheduler did not start"
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        for _ in range(2):  # two worker processes, as two machines would run them
            started.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                             "--nthreads", "1", "--no-nanny", "--no-dashboard"], **quiet))
        yield address
    finally:
        for process in reversed(started):  # only the processes started here, by their ids
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def test_a_cluster_given_by_address(cli_cluster, write_corpus):
    paths = [write_corpus(f"é字 the cat{EOT}sat" * 40), write_corpus(f"{EOT}mat{EOT}")]
    with connect(cli_cluster) as client:
        client.wait_for_workers(2, timeout=60)
    assert count_pretokens_on_cluster(paths, [EOT], scheduler=cli_cluster) == serial_count(paths, [EOT])


# ---- planning and paths (review of lab 10) ---------------------------------------------------


def test_ranges_are_a_few_per_worker_but_never_over_the_cap():
    assert range_bytes_for(4_000_000, 2) == 500_000  # RANGES_PER_WORKER = 4 per thread
    assert range_bytes_for(10**13, 1000) == MAX_RANGE_BYTES == 64 * 2**20  # not 2.5 GB ranges
    assert range_bytes_for(0, 3) == 1
    with pytest.raises(ValueError, match="threads"):
        range_bytes_for(100, 0)


def test_an_error_on_a_worker_says_so_and_names_the_path():
    error = worker_error(FileNotFoundError(2, "No such file or directory", "/data/part_7.txt"))
    assert isinstance(error, FileNotFoundError)
    assert str(error).startswith("on a worker of the Dask cluster: No such file or directory: '/data/part_7.txt'")
    assert "same absolute path on every worker" in str(error)
    not_utf8 = ValueError("x.txt is not valid UTF-8: byte offset 3")
    assert worker_error(not_utf8) is not_utf8


def test_relative_paths_are_made_absolute_before_they_reach_the_workers(client, tmp_path, monkeypatch):
    (tmp_path / "relative.txt").write_text(f"the cat{EOT}sat", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # this process only: the worker runs in the folder it was started in
    assert count_pretokens_with(client, ["relative.txt"], [EOT]) == serial_count(["relative.txt"], [EOT])


def test_a_file_missing_on_a_worker_is_reported_as_such(client, write_corpus, monkeypatch):
    import bpe_ref.distributed.pretoken_counts as module  # where count_pretokens_with looks it up

    path = write_corpus("here, not on the worker")
    gone = f"{path}.gone"
    monkeypatch.setattr(module, "plan_ranges_by_size", lambda paths, tokens, size: [(gone, 0, 5)])
    with pytest.raises(FileNotFoundError, match=f"on a worker of the Dask cluster: .*{gone}"):
        count_pretokens_with(client, [path], [EOT])


def test_counts_cross_the_network_as_one_pickle():
    # Dask sends a task's plain dict result entry by entry, a frame per key: the reason for Packed.
    from distributed.protocol import dumps, loads, to_serialize

    counts = {bytes([i % 256]) * (1 + i // 256): i for i in range(1000)}
    plain = dumps({"op": "task-finished", "result": to_serialize(counts)})
    packed = dumps({"op": "task-finished", "result": to_serialize(Packed(counts))})
    assert len(plain) > 1000
    assert len(packed) <= 3
    assert loads(packed)["result"].value == counts
    # on a worker, a task's Packed arguments are unwrapped before the call, and its result wrapped
    assert packed_call(merge_two, Packed({b"a": 1}), {b"a": 2}).value == {b"a": 3}
