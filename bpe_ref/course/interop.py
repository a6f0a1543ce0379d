"""Interop: the same tokenizer as a ``tiktoken.Encoding`` and as an HF ``tokenizers.Tokenizer``.

So a learner can compare their tokenizer with the tools they know (and the tests can), offline:
nothing is downloaded, everything is built from a :class:`~bpe_ref.tokenizer.Tokenizer` or, for
GPT-2's tiktoken encoding, from the vocabulary shipped with the course.

>>> from bpe_ref import Tokenizer
>>> tok = Tokenizer.gpt2()
>>> to_tiktoken(tok).encode("Hello world")
[15496, 995]
>>> to_hf_tokenizer(tok).encode("Hello world").ids
[15496, 995]

How each peer encodes, and where it can differ from the course's encoders:

- ``tiktoken`` has no merge list: it merges the adjacent pair whose *concatenation* is the token
  of lowest rank, and the rank is the token's id. So the ids of the merged tokens must grow in
  merge order (GPT-2's and ``bpe_ref``'s do); and on a vocabulary where a token can also be
  spelled by a pair that is not its merge, tiktoken may merge that pair where BPE would not (it
  never happens with GPT-2's files).
- HF ``tokenizers`` runs BPE from the merge list, lowest rank first, like the course.
Both use the GPT-2 pretokenization pattern and split special tokens out first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from ..pretokenize import GPT2_PATTERN
from ..serialization import token_to_string

if TYPE_CHECKING:  # pragma: no cover
    import tiktoken
    import tokenizers

    from ..tokenizer import Tokenizer


def _merge_and_byte_tokens(tok: Tokenizer) -> dict[bytes, int]:
    """``{token bytes: id}`` for the single bytes and the merged tokens (no special tokens)."""
    tables = tok._tables
    ranks: dict[bytes, int] = {}
    for token_bytes, token_id in zip(tables.token_bytes, tables.token_ids):
        if ranks.setdefault(token_bytes, token_id) != token_id:
            raise ValueError(
                f"two tokens have the bytes {token_bytes!r} (ids {ranks[token_bytes]} and {token_id}): "
                "tiktoken and HF tokenizers need one token per byte string"
            )
    return ranks


def to_tiktoken(tok: Tokenizer, name: str = "bpe_ref") -> tiktoken.Encoding:
    """A ``tiktoken.Encoding`` with the same vocabulary, pattern and special tokens.

    Encode with ``allowed_special="all"`` to split special tokens out as the course does (by
    default tiktoken refuses text that contains them). ``ValueError`` if the merged tokens' ids
    do not grow in merge order (tiktoken uses ids as ranks) or if two tokens share their bytes.
    """
    import tiktoken

    tables = tok._tables
    merged_ids = tables.token_ids[256:]
    for rank, (earlier, later) in enumerate(zip(merged_ids, merged_ids[1:]), start=1):
        if later <= earlier:
            raise ValueError(
                f"tiktoken uses token ids as merge ranks, but merge {rank} makes id {later}, "
                f"not larger than merge {rank - 1}'s id {earlier}"
            )
    if merged_ids and max(tables.token_ids[:256]) > merged_ids[0]:
        raise ValueError("tiktoken uses token ids as merge ranks: the single bytes' ids must come before the merges'")
    return tiktoken.Encoding(
        name=name,
        pat_str=GPT2_PATTERN,
        mergeable_ranks=_merge_and_byte_tokens(tok),
        special_tokens=dict(tok.special_token_ids),
    )


def to_hf_tokenizer(tok: Tokenizer) -> tokenizers.Tokenizer:
    """An HF ``tokenizers.Tokenizer``: byte-level BPE with the same vocabulary, merges and special tokens."""
    from tokenizers import AddedToken, decoders, models, pre_tokenizers
    from tokenizers import Tokenizer as HFTokenizer

    tokens = _merge_and_byte_tokens(tok)
    vocab = {token_to_string(token_bytes): token_id for token_bytes, token_id in tokens.items()}
    # Special tokens go in as their plain text (HF matches added tokens on the raw text), so HF
    # finds them in the vocabulary and keeps their ids instead of numbering them after it.
    for token, token_id in tok.special_token_ids.items():
        vocab.setdefault(token, token_id)
    merges = [(token_to_string(left), token_to_string(right)) for left, right in tok.merges]
    hf = HFTokenizer(models.BPE(vocab=vocab, merges=merges))
    # GPT-2's pattern on the raw text, then bytes shown as GPT-2's printable characters.
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    hf.decoder = decoders.ByteLevel()
    specials = [AddedToken(t, special=True, normalized=False) for t in tok.special_tokens]
    if specials:
        hf.add_special_tokens(specials)
        for token, token_id in tok.special_token_ids.items():
            if hf.token_to_id(token) != token_id:
                raise ValueError(
                    f"HF tokenizers gave the special token {token!r} the id {hf.token_to_id(token)}, "
                    f"not {token_id} (its text is also the printable form of a regular token)"
                )
    return hf


def gpt2_vocab_tiktoken(vocab: Mapping[int, bytes], special_tokens: Iterable[str] = ("<|endoftext|>",)) -> tiktoken.Encoding:
    """tiktoken's GPT-2 encoding from GPT-2's vocabulary alone: ``to_tiktoken(Tokenizer.gpt2())`` without building the
    ``Tokenizer`` (0.6 s of CPU once the files are read) nor reading the merges. GPT-2's ids are already tiktoken's
    ranks (the 256 bytes, then each merge's token in merge order, one token per byte string); its special tokens keep
    their ids in ``vocab``. ``tests/test_checks_labs.py`` checks that both give the same ranks, pattern and special
    tokens, and ids."""

    import tiktoken

    ids_of = {token: token_id for token_id, token in vocab.items()}
    specials = {text: ids_of[text.encode()] for text in special_tokens}
    return tiktoken.Encoding(
        name="gpt2",
        pat_str=GPT2_PATTERN,
        mergeable_ranks={token: token_id for token_id, token in vocab.items() if token_id not in specials.values()},
        special_tokens=specials,
    )


@lru_cache(maxsize=1)
def gpt2_tiktoken() -> tiktoken.Encoding:
    """tiktoken's GPT-2 encoding, built offline from the shipped vocabulary (cached)."""
    from ..tokenizer import _gpt2_files

    return gpt2_vocab_tiktoken(_gpt2_files()[0])


@lru_cache(maxsize=1)
def gpt2_hf_tokenizer() -> tokenizers.Tokenizer:
    """HF tokenizers' GPT-2 tokenizer, built offline from the shipped files (cached)."""
    from ..tokenizer import Tokenizer

    return to_hf_tokenizer(Tokenizer.gpt2())


__all__ = ["gpt2_hf_tokenizer", "gpt2_tiktoken", "gpt2_vocab_tiktoken", "to_hf_tokenizer", "to_tiktoken"]
