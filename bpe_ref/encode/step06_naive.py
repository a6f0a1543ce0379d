"""Step 06: encoding in training order, the way a learner writes it first (lab 06's functions).

Encoding replays training on one pretoken: start from its bytes, find the adjacent pair whose merge
has the lowest *rank* (the earliest in training), merge it everywhere in one left-to-right pass,
and repeat until no adjacent pair is a merge. Merges that do not occur are skipped, so this is
"every merge in training order, one pass per merge" without scanning the 50,000 merges that cannot
apply (it is GPT-2's original ``encoder.py``). Each round scans the pretoken, and a pretoken of
``L`` bytes can take up to ``L - 1`` rounds: O(L²), fine for words, hopeless for one long piece.

The lab's functions work on ``bytes`` tokens, as labs 01-05 do:

- :func:`merge_ranks`: the merges as ``{pair: rank}``;
- :func:`encode_pretoken`: one pretoken's tokens, lowest rank first (lab 01's ``merge_word`` does
  each pass);
- :func:`encode_text`: special tokens first (leftmost, then longest), then the GPT-2 pretokens,
  each encoded alone.

:class:`NaiveEncoder` runs the same loop for the :class:`~bpe_ref.tokenizer.Tokenizer` on tokens
numbered by rank (:mod:`.common`), which keeps apart two merges that make the same bytes and maps
to any vocabulary's ids (GPT-2's are not the byte values). Theory: ``theory/06-encode-decode.md``.

>>> ranks = merge_ranks([(b"a", b"a"), (b"aa", b"a")])
>>> encode_pretoken(b"aaaa", ranks)
[b'aa', b'aa']
>>> encode_text("aaa<|eot|>a", ranks, ["<|eot|>"])
[b'aaa', b'<|eot|>', b'a']
>>> from bpe_ref.encode.common import MergeTables
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaa"}
>>> NaiveEncoder(MergeTables(vocab, [(b"a", b"a"), (b"aa", b"a")])).encode(b"aaaa")
[256, 256]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..pretokenize import PRETOKEN_RE, split_keeping_special_tokens, validate_special_tokens
from ..train.step01_naive import merge_word, split_into_bytes
from .common import NOT_A_MERGE, MergeTables

Pair = tuple[bytes, bytes]



def merge_ranks(merges: Iterable[Pair]) -> dict[Pair, int]:
    """``{pair: rank}``, the rank being the merge's position in training order (0 first).

    A pair listed twice keeps its first rank: training can never make it again (once merged, the
    pair is gone), so a later copy could never apply.

    >>> merge_ranks([(b"s", b"t"), (b"e", b"st"), (b"s", b"t")])
    {(b's', b't'): 0, (b'e', b'st'): 1}
    """
    ranks: dict[Pair, int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(tuple(pair), rank)
    return ranks


def encode_pretoken(pretoken: bytes, ranks: Mapping[Pair, int]) -> list[bytes]:
    """The tokens of one pretoken: the lowest-rank merge first, everywhere, left to right; repeat.

    >>> ranks = merge_ranks([(b"o", b"r"), (b"w", b"or"), (b"or", b"k")])
    >>> encode_pretoken(b"work", ranks)   # (w, or) has rank 1, (or, k) rank 2: w+or wins
    [b'wor', b'k']
    """
    word = split_into_bytes(pretoken)
    while len(word) > 1:
        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, NOT_A_MERGE))
        if best not in ranks:
            break  # no adjacent pair is a merge: done
        word = merge_word(word, best)  # every occurrence, left to right: "aaa" -> ["aa", "a"]
    return list(word)


def encode_text(text: str, ranks: Mapping[Pair, int], special_tokens: Sequence[str]) -> list[bytes]:
    """The tokens of ``text``: each special token whole (leftmost first, then the longest), the rest
    cut into GPT-2 pretokens, each encoded alone by :func:`encode_pretoken`.

    >>> encode_text("a<|eot|><|eot|>!", {}, ["<|eot|>", "<|eot|><|eot|>"])
    [b'a', b'<|eot|><|eot|>', b'!']
    """
    special_tokens = validate_special_tokens(special_tokens)
    tokens: list[bytes] = []
    for piece, is_special in split_keeping_special_tokens(text, special_tokens):
        if is_special:
            tokens.append(piece.encode("utf-8"))
            continue
        for pretoken in PRETOKEN_RE.findall(piece):
            tokens += encode_pretoken(pretoken.encode("utf-8"), ranks)
    return tokens


class NaiveEncoder:
    """:func:`encode_pretoken` over tokens numbered by rank: the same rounds, ints instead of bytes."""

    def __init__(self, tables: MergeTables) -> None:
        self.pair_to_token = tables.pair_to_token
        self.token_ids = tables.token_ids

    def encode(self, data: bytes) -> list[int]:
        """The vocabulary ids of one pretoken's bytes."""
        rank_of = self.pair_to_token.get
        parts = list(data)  # token number of a single byte = the byte
        while len(parts) > 1:
            # Merged tokens are numbered by rank: the smallest number is the earliest merge.
            best = min(rank_of(pair, NOT_A_MERGE) for pair in zip(parts, parts[1:]))
            if best == NOT_A_MERGE:
                break
            merged: list[int] = []
            i = 0
            last = len(parts) - 1
            while i <= last:
                # `== best` rather than a fixed (left, right): with repeated token bytes, several
                # pairs of token numbers can stand for the same merge.
                if i < last and rank_of((parts[i], parts[i + 1])) == best:
                    merged.append(best)
                    i += 2  # non-overlapping: "aaa" -> ["aa", "a"]
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        ids = self.token_ids
        return [ids[t] for t in parts]
