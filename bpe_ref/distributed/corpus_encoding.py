"""Encoding a corpus on a Dask cluster: each range of a file to token ids, on a worker, in order.

For ``python -m bpe_ref encode-corpus`` (``bpe_ref/course/commands/encode_corpus.py`` runs it); not a
step of the course, but step 10's plan applied to encoding. A trained tokenizer turns the corpus
into the token ids a language model trains on. Encoding is additive where
:func:`~bpe_ref.distributed.pretoken_counts.plan_ranges` cuts: the tokenizer cuts special tokens out
of the text before anything else, so at the start of a special token that no other occurrence
straddles, the ids of the whole text are the ids of the text before it followed by those of the
text from it (step 03 shows the same cut for counting). So each range is encoded on its own, on
any worker (:func:`encode_range`), and a file's ids are its ranges' ids in order. Files are encoded
one by one, never joined. A worker rebuilds the tokenizer from an :class:`EncodingModel`, once per
model.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from ..corpus import decode_utf8

if TYPE_CHECKING:
    import numpy as np

    from ..tokenizer import Tokenizer

__all__ = ["EncodingModel", "encode_range", "encoding_model", "model_task", "token_dtype"]


class EncodingModel(NamedTuple):
    """What a worker needs to rebuild a tokenizer: small to send, and named by ``digest`` so that a
    worker builds each model's tokenizer once, however many ranges it encodes with it."""

    digest: str
    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    special_tokens: tuple[str, ...]


UINT16_IDS = 1 << 16  # ids 0..65,535 fit two bytes each


def encoding_model(tokenizer: Tokenizer) -> EncodingModel:
    """The :class:`EncodingModel` of ``tokenizer`` (its vocabulary, merges and special tokens)."""
    vocab = dict(tokenizer.vocab)
    digest = hashlib.sha256(pickle.dumps((sorted(vocab.items()), tokenizer.merges, tokenizer.special_tokens))).hexdigest()
    return EncodingModel(digest, vocab, list(tokenizer.merges), tuple(tokenizer.special_tokens))


def token_dtype(vocab: Mapping[int, bytes]) -> str:
    """``"uint16"`` when every id of ``vocab`` fits in two bytes (ids below 65,536), else ``"uint32"``.

    >>> token_dtype({0: b"a", 65_535: b"b"}), token_dtype({70_000: b"c"})
    ('uint16', 'uint32')
    """
    largest = max(vocab, default=0)
    if largest >= 1 << 32:
        raise ValueError(f"token id {largest:,} does not fit in 32 bits")
    return "uint16" if largest < UINT16_IDS else "uint32"


_TOKENIZERS: dict[str, Tokenizer] = {}  # digest -> tokenizer, in this process (a worker keeps it between tasks)


def _tokenizer_of(model: EncodingModel) -> Tokenizer:
    tokenizer = _TOKENIZERS.get(model.digest)
    if tokenizer is None:
        from ..tokenizer import Tokenizer

        if len(_TOKENIZERS) >= 2:  # a long-running worker may see several models: keep the last ones
            _TOKENIZERS.clear()
        tokenizer = _TOKENIZERS[model.digest] = Tokenizer(model.vocab, model.merges, model.special_tokens)
    return tokenizer


def model_task(model: EncodingModel) -> EncodingModel:
    """A task that gives back ``model``: submitted with the model as its argument, its result can
    be made again by the scheduler if every worker that held it dies (scattered data could not)."""
    return model


def encode_range(path: str, start: int, end: int, model: EncodingModel, dtype: str) -> np.ndarray:
    """The token ids of bytes ``[start, end)`` of the file at ``path``, as a NumPy array of ``dtype``.

    Like :func:`~bpe_ref.distributed.pretoken_counts.count_range`, the worker reads its own range;
    ``model`` is sent once per worker (``client.scatter(..., broadcast=True)``), and its tokenizer is
    built once per process. A range that is not UTF-8 raises ``ValueError`` with the path and the
    byte offset in the file.
    """
    import numpy as np

    with open(path, "rb") as file:
        file.seek(start)
        data = file.read(end - start)
    text = decode_utf8(data, path, offset=start)
    return np.array(_tokenizer_of(model).encode(text), dtype=dtype)
