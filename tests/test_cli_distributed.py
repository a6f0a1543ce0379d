"""Step 10's command line: ``train --engine dask`` learns the merges of the local engine, and
``encode-corpus`` writes exactly the ids of encoding each file on its own, one after another, with
either engine; bad input is one line and a non-zero exit code, before any work.

One Dask cluster (worker threads in this process, reached over TCP as a remote one would be) serves
every test that passes ``--scheduler``; one test starts the command's own local cluster of worker
processes.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
pytest.importorskip("distributed")

from bpe_ref import Tokenizer  # noqa: E402
from bpe_ref.corpus import read_corpus  # noqa: E402
from bpe_ref.course.cli import main  # noqa: E402
from bpe_ref.course.commands import encode_corpus  # noqa: E402
from bpe_ref.data_files import CORPUS_EN, CS336_FIXTURES  # noqa: E402
from bpe_ref.distributed import encode_range  # noqa: E402
from bpe_ref.serialization import load_vocab_and_merges, save_vocab_and_merges  # noqa: E402
from bpe_ref.train import train_bpe_on_text  # noqa: E402

EOT = "<|endoftext|>"
STORIES = CS336_FIXTURES / "tinystories_sample.txt"  # 4 KB with <|endoftext|> between stories
NO_SPECIALS = CS336_FIXTURES / "address.txt"  # no special token: one range, counted whole


@pytest.fixture(scope="module")
def scheduler():
    """The address of a small Dask cluster shared by the module's tests."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=":0",
                      host="127.0.0.1") as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[Path]:
    """Three files: stories (cut into ranges at <|endoftext|>), a text with no special token, and
    stories whose first and last lines continue each other across the two files."""
    folder = tmp_path_factory.mktemp("corpus")
    stories = STORIES.read_text(encoding="utf-8")
    half = len(stories) // 2
    paths = [folder / "stories.txt", folder / "address.txt", folder / "tail.txt"]
    paths[0].write_text(stories[:half], encoding="utf-8")  # ends in the middle of a word...
    paths[1].write_text(read_corpus(NO_SPECIALS), encoding="utf-8")
    paths[2].write_text(stories[half:] + EOT + "Once upon a time, café ☕ " * 40, encoding="utf-8")  # ...a new file starts
    return paths


@pytest.fixture(scope="module")
def model(tmp_path_factory, corpus) -> Path:
    folder = tmp_path_factory.mktemp("model")
    text = "".join(read_corpus(path) for path in corpus)
    vocab, merges = train_bpe_on_text(text, 400, [EOT])
    save_vocab_and_merges(vocab, merges, folder)
    return folder


def serial_ids(model_dir: Path, paths: list[Path], special_tokens=(EOT,)) -> list[int]:
    """The definition: each file encoded on its own, the ids one file after another."""
    tok = Tokenizer.from_files(model_dir / "vocab.json", model_dir / "merges.txt", special_tokens)
    return [i for path in paths for i in tok.encode(read_corpus(path))]


# --- train ------------------------------------------------------------------------------------


def merges_written(folder: Path) -> list[tuple[bytes, bytes]]:
    return load_vocab_and_merges(folder / "vocab.json", folder / "merges.txt")[1]


def test_train_on_dask_learns_the_merges_of_the_local_engine(tmp_path, corpus, scheduler, capsys):
    paths = [str(path) for path in corpus]
    assert main(["train", *paths, "--vocab-size", "330", "--out", str(tmp_path / "local"), "--no-progress"]) == 0
    local = capsys.readouterr()
    assert f"training on 3 files ({sum(p.stat().st_size for p in corpus):,} bytes)" in local.err
    assert main(["train", *paths, "--vocab-size", "330", "--out", str(tmp_path / "dask"), "--no-progress",
                 "--engine", "dask", "--scheduler", scheduler]) == 0
    on_dask = capsys.readouterr()
    assert f"Dask scheduler {scheduler}: 2 workers, 2 threads" in on_dask.err
    assert "Dask dashboard: http" in on_dask.err
    assert "merging here" in on_dask.err
    merges = merges_written(tmp_path / "local")
    assert len(merges) == 330 - 257
    assert merges_written(tmp_path / "dask") == merges
    # and both are what one trainer learns on the files' counts added up (not on the files joined)
    text_counts_merges = train_bpe_on_text(EOT.join(read_corpus(p) for p in corpus), 330, [EOT])[1]
    assert merges == text_counts_merges


def test_train_with_its_own_local_cluster_of_processes(tmp_path, capsys):
    """No --scheduler: the command starts a cluster of --workers processes and stops it."""
    assert main(["train", str(CORPUS_EN), "--vocab-size", "300", "--engine", "dask", "--workers", "1",
                 "--out", str(tmp_path), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "starting a local Dask cluster (1 worker)" in err and "Dask local cluster: 1 worker, 1 threads" in err
    assert merges_written(tmp_path) == train_bpe_on_text(read_corpus(CORPUS_EN), 300, [EOT])[1]


# --- encode-corpus ------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_encode_corpus_equals_encoding_each_file_in_order(engine, tmp_path, corpus, model, scheduler, monkeypatch,
                                                          capsys):
    monkeypatch.setattr(encode_corpus, "RANGE_BYTES", 500)  # many ranges: every cut must leave the ids unchanged
    out = tmp_path / "ids.npy"
    dask = ["--engine", "dask", "--scheduler", scheduler] if engine == "dask" else []
    assert main(["encode-corpus", *map(str, corpus), "--model", str(model), "--out", str(out), "--no-progress",
                 *dask]) == 0
    ranges = encode_corpus.plan([str(p) for p in corpus], [EOT], 8 if engine == "dask" else 1)
    assert len(ranges) >= 6  # the stories are cut at every story; the address (no special token) is not
    ids = np.load(out)
    assert ids.dtype == np.uint16
    assert ids.tolist() == serial_ids(model, corpus)
    printed = capsys.readouterr()
    assert f"wrote {out}: {len(ids):,} tokens (uint16)" in printed.out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ids.npy"]  # no partial file left behind
    # the array has no offsets: the command prints each file's count of ids, in order
    per_file = [len(serial_ids(model, [path])) for path in corpus]
    assert [f"  {count:,} ids from {os.path.abspath(path)}" for count, path in zip(per_file, corpus)] == [
        line for line in printed.err.splitlines() if " ids from " in line]


@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents=st.lists(st.text(alphabet="ab <|>\n\u00e9", max_size=12), min_size=1, max_size=6),
       tokens=st.sampled_from([("<|endoftext|>",), ("<|a|>", "<|a|>b", "b<|a")]),
       range_bytes=st.integers(1, 16))
def test_encode_corpus_cuts_never_change_the_ids(tmp_path_factory, documents, tokens, range_bytes):
    """Generated files whose special tokens overlap (the longest match wins): tiny ranges, same ids."""
    folder = tmp_path_factory.mktemp("generated")
    vocab, merges = train_bpe_on_text("".join(documents) * 3, 270, tokens)
    save_vocab_and_merges(vocab, merges, folder / "model")
    path = folder / "text.txt"
    path.write_text(tokens[0].join(documents) + "".join(tokens), encoding="utf-8")
    flags = [arg for token in tokens for arg in ("--special-token", token)]
    original = encode_corpus.RANGE_BYTES
    encode_corpus.RANGE_BYTES = range_bytes
    try:
        assert main(["encode-corpus", str(path), "--model", str(folder / "model"), "--out", str(folder / "ids.npy"),
                     "--no-progress", *flags]) == 0
    finally:
        encode_corpus.RANGE_BYTES = original
    assert np.load(folder / "ids.npy").tolist() == serial_ids(folder / "model", [path], tokens)


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_encode_corpus_of_empty_files_writes_an_empty_array(engine, tmp_path, model, scheduler):
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    dask = ["--engine", "dask", "--scheduler", scheduler] if engine == "dask" else []
    assert main(["encode-corpus", str(empty), str(empty), "--model", str(model), "--out", str(tmp_path / "ids.npy"),
                 "--no-progress", *dask]) == 0
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint16 and ids.shape == (0,)


def test_a_vocabulary_past_uint16_is_written_as_uint32_and_said(tmp_path, corpus, model, capsys):
    vocab = json.loads((model / "vocab.json").read_text(encoding="utf-8"))
    vocab[EOT] = 70_000  # the special token's id: past 65,535
    big = tmp_path / "big"
    big.mkdir()
    (big / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (big / "merges.txt").write_text((model / "merges.txt").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "ids.npy"
    assert main(["encode-corpus", str(corpus[0]), "--model", str(big), "--out", str(out), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "largest id is 70,000, more than uint16 holds (65,535): writing uint32" in err
    ids = np.load(out)
    assert ids.dtype == np.uint32 and 70_000 in ids.tolist()
    assert ids.tolist() == serial_ids(big, [corpus[0]])


# --- bad input ----------------------------------------------------------------------------------


def error_line(capsys) -> str:
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    return captured.err.strip().splitlines()[-1]


def test_an_unreachable_scheduler_is_named_within_seconds(tmp_path, corpus, model, capsys):
    """train and encode-corpus reach a scheduler through the same engine code; one of them is timed
    here (each attempt waits out the connection timeout, 5 s)."""
    address = "tcp://127.0.0.1:9"  # the discard port: nothing listens there
    started = time.perf_counter()
    assert main(["encode-corpus", str(corpus[0]), "--model", str(model), "--out", str(tmp_path / "ids.npy"),
                 "--engine", "dask", "--scheduler", address, "--no-progress"]) == 2
    assert time.perf_counter() - started < 15
    assert error_line(capsys).startswith(f"error: cannot reach the Dask scheduler at {address} within 5 s")
    assert not (tmp_path / "ids.npy").exists()


def test_a_web_server_at_the_scheduler_address_is_one_line(tmp_path, corpus, capsys, monkeypatch):
    """The dashboard's port given for the scheduler's: it used to hang for minutes, and a plain
    web server to end in a traceback about allocating 3.07 EiB."""
    import http.server
    import threading

    from bpe_ref.distributed import cluster as cluster_module

    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1.0)  # a scheduler greets within milliseconds
    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    address = f"tcp://127.0.0.1:{web.server_address[1]}"
    try:
        started = time.perf_counter()
        assert main(["train", str(corpus[0]), "--engine", "dask", "--scheduler", address, "--no-progress"]) == 2
        assert time.perf_counter() - started < 5
    finally:
        web.shutdown()
        web.server_close()
        thread.join()
    assert error_line(capsys).startswith(f"error: {address} is not a Dask scheduler: something listens there but "
                                         "said nothing in 1 s")


def test_a_missing_file_among_many_is_named_before_any_work(tmp_path, corpus, model, capsys):
    missing = tmp_path / "no_such_part.txt"
    paths = [str(corpus[0]), str(missing), str(corpus[1])]
    out = tmp_path / "ids.npy"
    assert main(["encode-corpus", *paths, "--model", str(model), "--out", str(out), "--engine", "dask",
                 "--scheduler", "tcp://127.0.0.1:9", "--no-progress"]) == 2  # refused before connecting
    assert error_line(capsys) == f"error: 1 of 3 corpus files not found: {missing}"
    assert not out.exists()
    assert main(["train", *paths, "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9", "--no-progress"]) == 2
    assert error_line(capsys) == f"error: corpus file not found: {missing}"


@pytest.mark.parametrize("arguments, message", [
    (["--out", "ids.bin"], "the output is a NumPy .npy file, so its name must end in .npy"),
    (["--out", "no/such/folder/ids.npy"], "folder no/such/folder not found"),
    (["--model", "no/such/model"], "model folder not found: no/such/model"),
    (["--out", "."], "--out .: a folder is there, and this writes a file"),
    (["--out", f"{STORIES}/ids.npy"], f"{STORIES} is a file, not a folder"),
    (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler is for --engine dask (pass both)"),
    (["--workers", "2"], "--workers is for --engine dask"),
])
def test_encode_corpus_refuses_bad_options_in_one_line(arguments, message, tmp_path, model, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = {"--model": str(model), "--out": "ids.npy"}
    for flag, value in zip(arguments[::2], arguments[1::2]):
        base[flag] = value
    command = ["encode-corpus", str(STORIES), "--no-progress", *[a for pair in base.items() for a in pair]]
    assert main(command) == 2
    line = error_line(capsys)
    assert line.startswith("error: ") and message in line
    assert list(tmp_path.iterdir()) == []


def test_dask_sends_a_count_dict_as_its_pickle():
    """Page 10 measures what crosses the network by pickling the counts: Dask's own choice for them."""
    import pickle

    from distributed.protocol import serialize

    from bpe_ref.distributed import count_range

    counts = count_range(str(STORIES), 0, STORIES.stat().st_size, [EOT])
    header, frames = serialize(counts)
    assert header["serializer"] == "pickle"
    assert sum(len(frame) for frame in frames) == len(pickle.dumps(counts, protocol=5))


# --- a cluster that loses workers, or has none ----------------------------------------------------


def encoding_inputs(corpus, model):
    """What encode-corpus hands to its Dask engine: the ranges (several per file) and the model."""
    from bpe_ref.distributed import encoding_model

    tokenizer = Tokenizer.from_files(model / "vocab.json", model / "merges.txt", [EOT])
    return encode_corpus.plan([str(path) for path in corpus], [EOT], 8), encoding_model(tokenizer)


def test_encode_corpus_survives_its_worker_replaced(tmp_path, corpus, model):
    """The only worker leaves as soon as the ranges are submitted, and a new one joins: what a nanny
    does with a killed worker (in this process, to stay cheap; a real nanny's restart was tried by
    hand). The model used to be scattered data, lost with the worker: FutureCancelledError, lost
    dependencies."""
    from distributed import Client, LocalCluster

    ranges, encoding = encoding_inputs(corpus, model)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        [first] = client.nthreads()
        submit_ranges = client.map

        def map_then_replace_the_worker(*args, **kwargs):
            futures = submit_ranges(*args, **kwargs)
            if args[0] is encode_range:
                cluster.scale(0)
                deadline = time.monotonic() + 30
                while client.nthreads():
                    assert time.monotonic() < deadline, "the worker did not leave"
                    time.sleep(0.05)
                cluster.scale(1)
            return futures

        client.map = map_then_replace_the_worker
        out = tmp_path / "ids.npy"
        lengths = encode_corpus.encode_on_dask(client, ranges, encoding, "uint16", out, progress=False)
        assert list(client.nthreads()) != [first]  # a new worker did the work
    assert np.load(out).tolist() == serial_ids(model, corpus)
    assert sum(lengths) == len(np.load(out))


def test_a_cluster_that_loses_its_last_worker_is_one_line(tmp_path, corpus, model, monkeypatch):
    from distributed import Client, LocalCluster

    from bpe_ref.distributed import cluster as cluster_module

    monkeypatch.setattr(cluster_module, "WORKERLESS_SECONDS", 1.0)
    ranges, encoding = encoding_inputs(corpus, model)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        submit_ranges = client.map

        def map_then_stop_the_worker(*args, **kwargs):
            futures = submit_ranges(*args, **kwargs)
            cluster.scale(0)
            return futures

        client.map = map_then_stop_the_worker
        started = time.perf_counter()
        with pytest.raises(ConnectionError, match=rf"^the Dask cluster at {cluster.scheduler_address} has had no "
                                                  r"worker for 1 s while tasks wait: its last worker died"):
            encode_corpus.encode_on_dask(client, ranges, encoding, "uint16", tmp_path / "ids.npy", progress=False)
        assert time.perf_counter() - started < 10
    assert list(tmp_path.iterdir()) == []


def test_a_cluster_with_no_workers_is_one_line_for_both_commands(tmp_path, corpus, model, capsys, monkeypatch):
    """encode-corpus used to divide by zero threads, train to print this message as a traceback."""
    from distributed import LocalCluster

    from bpe_ref.distributed import cluster as cluster_module

    # how long a first worker may take to join; connecting keeps its own 5 s (at 0.5 s for both, a loaded CI machine's
    # connection timed out first: "cannot reach" where "no workers" was expected)
    monkeypatch.setattr(cluster_module, "FIRST_WORKER_TIMEOUT", 0.5)
    with LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster:
        address = cluster.scheduler_address
        expected = (f"error: the Dask cluster at {address} has no workers (none joined within 0.5 s): start some with "
                    f"`dask worker {address}`")
        assert main(["encode-corpus", str(corpus[0]), "--model", str(model), "--out", str(tmp_path / "ids.npy"),
                     "--engine", "dask", "--scheduler", address, "--no-progress"]) == 2
        assert error_line(capsys) == expected
        assert main(["train", str(corpus[0]), "--engine", "dask", "--scheduler", address, "--no-progress"]) == 2
        assert error_line(capsys) == expected
    assert list(tmp_path.iterdir()) == []
