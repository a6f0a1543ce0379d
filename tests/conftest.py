"""Shared fixtures of the training-half tests (pretokenization, trainers, serialization, data).

Keep fixtures here generic; fixtures of the GPT-2 encoding tests are prefixed ``gpt2_``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_ref import data_files
from bpe_ref.serialization import load_merges, load_vocab

REPO_ROOT = Path(__file__).resolve().parent.parent


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
