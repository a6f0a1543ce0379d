"""What every encoder shares, from step 06 on: the merges as tables over tokens numbered by rank.

**Tokens by rank.** Encoders do not work on the vocabulary's ids (GPT-2's ids are not the byte
values) but on *ranks*: token ``b`` (``0 <= b < 256``) is the single byte ``b``, and token
``256 + k`` is the result of merge ``k`` (training order). So a smaller number means "created
earlier", and the first parts of a pretoken are simply its bytes: ``list(b"hi") == [104, 105]``.
:class:`MergeTables` keeps ``pair -> merged token`` and maps each rank back to its vocabulary id.
The step-08 encoders add the valid tokens and their compatibility: :mod:`.step08_valid_tokens`.

>>> tables = MergeTables({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
>>> tables.pair_to_token[(ord("a"), ord("b"))], tables.token_bytes[256]
(256, b'ab')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Vocab = Mapping[int, bytes]
Merges = Sequence[tuple[bytes, bytes]]

NO_TOKEN = -1  # "no such token" in integer tables (faster to test than None in hot loops)
NOT_A_MERGE = 1 << 62  # a rank above every merge: what encoders give a pair that is not a merge


def check_vocab_and_merges(vocab: Vocab, merges: Merges) -> None:
    """Types and shapes: a clear ``TypeError``/``ValueError`` before any table is built."""
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a dict mapping int ids to bytes, got {type(vocab).__name__}")
    for token_id, token in vocab.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"vocab ids must be ints, got {token_id!r} ({type(token_id).__name__})")
        if token_id < 0:
            raise ValueError(f"vocab ids must be non-negative, got {token_id}")
        if not isinstance(token, bytes):
            raise TypeError(f"vocab[{token_id}] must be bytes, got {type(token).__name__} {token!r}")
        if not token:
            raise ValueError(f"vocab[{token_id}] is the empty byte string; every token has at least one byte")
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Sequence):
        raise TypeError(f"merges must be a list of (bytes, bytes) pairs, got {type(merges).__name__}")
    for rank, merge in enumerate(merges):
        if not (isinstance(merge, (tuple, list)) and len(merge) == 2):
            raise TypeError(f"merge {rank} must be a pair (left_bytes, right_bytes), got {merge!r}")
        left, right = merge
        if not (isinstance(left, bytes) and isinstance(right, bytes)) or not left or not right:
            raise TypeError(f"merge {rank} must be a pair of non-empty bytes, got {merge!r}")


class MergeTables:
    """The merges as encoders use them: ``pair -> merged token`` over tokens numbered by rank.

    - ``token_bytes[t]``: the bytes of token ``t`` (``t < 256``: one byte; ``256 + k``: merge ``k``);
    - ``token_ids[t]``: its id in the vocabulary;
    - ``pair_to_token[(left, right)]``: the token the merge of that adjacent pair makes. Merged
      tokens are numbered by rank, so the *smallest* value is the merge BPE applies first;
    - ``merge_parts[k]``: the two tokens merge ``k`` joins (``None`` if no earlier merge makes
      one of them, so that merge can never apply).

    Raises ``ValueError`` naming the merge when a merge's parts or result are not in the vocabulary,
    and when a single byte has no token (byte-level BPE must be able to encode any byte).
    """

    def __init__(self, vocab: Vocab, merges: Merges, *, checked: bool = False) -> None:
        if not checked:  # the tokenizer checks before it copies the vocabulary: once is enough
            check_vocab_and_merges(vocab, merges)
        ids_of: dict[bytes, list[int]] = {}
        for token_id in sorted(vocab):
            ids_of.setdefault(vocab[token_id], []).append(token_id)
        missing = [b for b in range(256) if bytes([b]) not in ids_of]
        if missing:
            raise ValueError(
                f"the vocabulary has no token for {len(missing)} single byte(s), e.g. {bytes([missing[0]])!r}: "
                "a byte-level vocabulary needs all 256"
            )
        self.merges: list[tuple[bytes, bytes]] = [(left, right) for left, right in merges]
        self.token_bytes: list[bytes] = [bytes([b]) for b in range(256)]
        self.token_ids: list[int] = [ids_of[bytes([b])][0] for b in range(256)]
        self.pair_to_token: dict[tuple[int, int], int] = {}
        self.merge_parts: list[tuple[int, int] | None] = []
        # Tokens already made, by their bytes: a merge joins parts that exist *before* it, as in
        # training. A list, because BPE can make the same bytes twice (merges (a, bc) and (ab, c)).
        made: dict[bytes, list[int]] = {bytes([b]): [b] for b in range(256)}
        for rank, (left, right) in enumerate(merges):
            merged = left + right
            for part in (left, right):
                if part not in ids_of:
                    raise ValueError(
                        f"merge {rank} ({left!r}, {right!r}) does not fit the vocabulary: its part {part!r} is not in it"
                    )
            if merged not in ids_of:
                raise ValueError(
                    f"merge {rank} ({left!r}, {right!r}) does not fit the vocabulary: its result {merged!r} is not in it"
                )
            token = 256 + rank
            # The parts as tokens (the latest ones made with those bytes), for the decoder's DP.
            if left in made and right in made:
                self.merge_parts.append((made[left][-1], made[right][-1]))
            else:
                self.merge_parts.append(None)
            for left_token in made.get(left, ()):
                for right_token in made.get(right, ()):
                    # setdefault: a repeated merge never fires again, the first one keeps the pair
                    self.pair_to_token.setdefault((left_token, right_token), token)
            same = made.setdefault(merged, [])
            same.append(token)
            # The n-th merge that makes these bytes gets the n-th id holding them (one id: shared).
            candidates = ids_of[merged]
            self.token_ids.append(candidates[min(len(same), len(candidates)) - 1])
            self.token_bytes.append(merged)
        self.num_tokens = len(self.token_bytes)
        self._made = made
        self.tokens_by_bytes: dict[bytes, list[int]] = made  # bytes -> the tokens made with them, in order

    @classmethod
    def from_ranks(cls, ranks: Mapping[tuple[bytes, bytes], int]) -> MergeTables:
        """The tables of lab 06's ranks (``{pair: rank}``): ids ``0..255`` the bytes, then one id per
        merge in rank order (the ids are the tokens' numbers by rank). Labs 07 and 08 use it.

        >>> MergeTables.from_ranks({(b"a", b"b"): 0}).token_bytes[256]
        b'ab'
        """
        merges = sorted(ranks, key=ranks.__getitem__)
        vocab = {b: bytes([b]) for b in range(256)}
        for number, (left, right) in enumerate(merges, start=256):
            vocab[number] = left + right
        return cls(vocab, merges)

    def unique_bytes(self) -> bool:
        """Whether no two tokens have the same bytes (then a token is known by its bytes)."""
        return len(self._made) == self.num_tokens

    def token_with_bytes(self, data: bytes) -> int | None:
        """The token whose bytes are ``data`` (the first made, if several are), or ``None``.

        >>> MergeTables.from_ranks({(b"a", b"b"): 0}).token_with_bytes(b"ab")
        256
        """
        tokens = self._made.get(data)
        return tokens[0] if tokens else None

    def duplicate_bytes(self) -> list[tuple[bytes, list[int]]]:
        """Byte strings made by more than one merge, with their ranks: ``[(b"abc", [12, 40]), ...]``."""
        return [(b, [t - 256 for t in tokens]) for b, tokens in self._made.items() if len(tokens) > 1]
