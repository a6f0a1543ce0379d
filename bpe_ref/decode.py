"""Step 06: decoding with an arena: every token's bytes in one buffer, a token is a slice.

Decoding is concatenation: ``b"".join(bytes of each id)``. The question is only how the token
bytes are stored. A dict of 50 000 small ``bytes`` objects costs an object header per token; the
*arena* keeps them all in one contiguous buffer, with ``start[id]`` and ``end[id]`` offsets, so
the bytes of a token are the slice ``arena[start[id]:end[id]]``.

The arena is filled by dynamic programming over the merges: single bytes first, then, in
training order, each merged token as the bytes of its left part followed by those of its right
part, both already in the arena. Tokens that no merge makes (special tokens) are copied in from
the vocabulary. Decoding a sequence joins zero-copy ``memoryview`` slices of the arena.

>>> from bpe_ref.encode.common import MergeTables
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"<|eot|>"}
>>> decoder = ArenaDecoder(vocab, MergeTables(vocab, [(b"a", b"b")]))
>>> decoder.decode_bytes([256, 99, 257])
b'abc<|eot|>'
>>> decoder.token_bytes(256)
b'ab'
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping

from .encode.common import MergeTables


class ArenaDecoder:
    """Token id -> bytes, stored as slices of one contiguous buffer (``arena``)."""

    def __init__(self, vocab: Mapping[int, bytes], tables: MergeTables) -> None:
        arena = bytearray()
        size = max(vocab) + 1
        start: array | dict[int, int]
        end: array | dict[int, int]
        if size <= 2 * len(vocab) + 256:
            start = array("q", [-1]) * size  # -1: no token with that id
            end = array("q", [-1]) * size
        else:  # ids scattered far apart (a hand-made vocabulary): dicts, not huge mostly-empty arrays
            start = dict.fromkeys(vocab, -1)
            end = dict.fromkeys(vocab, -1)
        # Where each token (numbered by rank, see MergeTables) sits in the arena.
        token_start: list[int] = []
        token_end: list[int] = []
        for b in range(256):
            token_start.append(len(arena))
            arena.append(b)
            token_end.append(len(arena))
        for token, parts in enumerate(tables.merge_parts, start=256):
            begin = len(arena)
            if parts is None:  # a merge whose parts no earlier merge makes: copy its bytes
                arena += tables.token_bytes[token]
            else:
                # The DP step: a merged token is its left part's bytes, then its right part's.
                left, right = parts
                arena += arena[token_start[left] : token_end[left]]
                arena += arena[token_start[right] : token_end[right]]
            token_start.append(begin)
            token_end.append(len(arena))
        for token, token_id in enumerate(tables.token_ids):
            start[token_id] = token_start[token]
            end[token_id] = token_end[token]
        for token_id, token in vocab.items():
            if start[token_id] == -1:  # made by no merge (a special token): copy it in
                start[token_id] = len(arena)
                arena += token
                end[token_id] = len(arena)
        self.arena = bytes(arena)
        self.start = start
        self.end = end
        view = memoryview(self.arena)
        # One zero-copy slice per id, made once: decoding is then a C-level join over lookups.
        # A dict (not a list) so that a negative or unknown id is a KeyError, never a wrong token.
        self._slices: dict[int, memoryview] = {
            token_id: view[start[token_id] : end[token_id]] for token_id in vocab
        }

    def __contains__(self, token_id: object) -> bool:
        return token_id in self._slices

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token; ``ValueError`` naming the id if there is no such token."""
        try:
            return self._slices[token_id].tobytes()
        except (KeyError, TypeError):
            raise _unknown_id(token_id) from None

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The concatenated bytes of ``ids``; ``ValueError`` naming the first unknown id."""
        try:
            return b"".join(map(self._slices.__getitem__, ids))
        except KeyError as err:
            raise _unknown_id(err.args[0]) from None
        except TypeError as err:  # ids not iterable, or an unhashable id such as a list
            raise TypeError(f"decode takes an iterable of int token ids: {err}") from None

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``; bytes that are not valid UTF-8 become U+FFFD."""
        return self.decode_bytes(ids).decode("utf-8", errors="replace")


def _unknown_id(token_id: object) -> ValueError:
    return ValueError(f"cannot decode token id {token_id!r}: it is not in the vocabulary")
