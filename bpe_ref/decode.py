"""Step 06: decoding with an arena: every token's bytes in one buffer, a token is a slice of it.

Decoding is concatenation: ``b"".join(bytes of each id)``. The question is only how the token
bytes are stored. A dict of 50,000 small ``bytes`` objects costs an object header and a dict entry
per token; the *arena* keeps them all in one buffer, with an offset array: token ``i`` is
``buffer[offsets[i]:offsets[i + 1]]``. Lab 06 writes the two functions:

- :func:`build_arena`: the buffer and the offsets, from a vocabulary;
- :func:`decode_with_arena`: the bytes of a sequence of ids, with a clear error for an id that is
  not a token.

:class:`ArenaDecoder` is what the :class:`~bpe_ref.tokenizer.Tokenizer` decodes with: the arena,
plus a cache of the tokens already decoded as ``bytes`` objects, so that decoding a long sequence is
one C-level ``join`` over dict lookups (in CPython a join needs ready ``bytes`` objects; cutting a
slice out of the arena for every id costs about four times as much; theory page 06 measures it).
The cache holds only the tokens a text used, so memory stays close to the arena's.

>>> buffer, offsets = build_arena({0: b"a", 1: b"b", 2: b"ab", 4: b"<|eot|>"})
>>> buffer, offsets
(b'abab<|eot|>', [0, 1, 2, 4, 4, 11])
>>> decode_with_arena([2, 0, 4], buffer, offsets)
b'aba<|eot|>'
>>> decoder = ArenaDecoder({0: b"a", 1: b"b", 2: b"ab", 4: b"<|eot|>"})
>>> decoder.decode_bytes([2, 1, 4])
b'abb<|eot|>'
>>> decoder.token_bytes(2)
b'ab'
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Iterable, Mapping, Sequence


def build_arena(vocab: Mapping[int, bytes]) -> tuple[bytes, list[int]]:
    """The arena of ``vocab``: every token's bytes, in id order, in one ``bytes`` buffer, and the
    ``max id + 2`` offsets that cut it (token ``i`` is ``buffer[offsets[i]:offsets[i + 1]]``).

    An id that no token has gets an empty range (``offsets[i] == offsets[i + 1]``): every token has
    at least one byte, so an empty range means "no such token". ``ValueError`` for an empty token
    or a negative id.

    >>> build_arena({0: b"h", 1: b"i", 2: b"hi"})
    (b'hihi', [0, 1, 2, 4])
    """
    size = max(vocab, default=-1) + 1
    if min(vocab, default=0) < 0:
        raise ValueError(f"token ids must be non-negative, got {min(vocab)}")
    pieces: list[bytes] = []
    offsets = [0]
    for token_id in range(size):
        token = vocab.get(token_id, b"")
        if token_id in vocab and not token:
            raise ValueError(f"token {token_id} is empty: every token has at least one byte")
        pieces.append(token)
        offsets.append(offsets[-1] + len(token))
    return b"".join(pieces), offsets


def decode_with_arena(ids: Iterable[int], buffer: bytes, offsets: Sequence[int]) -> bytes:
    """The bytes of ``ids``, each token cut out of the arena; ``ValueError`` naming the first id
    that is not a token (outside ``0 .. len(offsets) - 2``, or with an empty range).

    >>> decode_with_arena([1, 0], *build_arena({0: b"h", 1: b"i"}))
    b'ih'
    """
    last = len(offsets) - 2  # the largest id the arena has room for
    pieces = []
    for token_id in ids:
        # A negative index would count from the end of `offsets`: a wrong token, silently.
        if not 0 <= token_id <= last or offsets[token_id] == offsets[token_id + 1]:
            raise unknown_id(token_id)
        pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]])
    return b"".join(pieces)


class ArenaDecoder:
    """Token id -> bytes, stored as one arena (:func:`build_arena`), decoded through a cache of the
    tokens already used.

    Ids scattered far apart (a hand-made vocabulary with an id of 10**12) would make the offsets
    huge: the arena then holds the tokens by their position in sorted id order instead.
    """

    def __init__(self, vocab: Mapping[int, bytes]) -> None:
        ids = sorted(vocab)
        self.position: dict[int, int] | None = None  # id -> place in the arena, when ids are sparse
        if ids and ids[-1] >= 2 * len(ids) + 256:
            self.position = {token_id: place for place, token_id in enumerate(ids)}
            vocab = {place: vocab[token_id] for place, token_id in enumerate(ids)}
        self.buffer, offsets = build_arena(vocab)
        # 4 bytes per offset instead of a 28-byte int object and an 8-byte list slot (theory page 06)
        self.offsets = array("I" if len(self.buffer) < 1 << 32 else "Q", offsets)
        self._cache = _TokenCache()
        self._cache.decoder = self

    def __contains__(self, token_id: object) -> bool:
        try:
            self.token_bytes(token_id)  # type: ignore[arg-type]
        except (ValueError, TypeError):
            return False
        return True

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token; ``ValueError`` naming the id if there is no such token."""
        if type(token_id) is not int:
            token_id = as_token_id(token_id)
        place = token_id if self.position is None else self.position.get(token_id, -1)
        try:
            return decode_with_arena((place,), self.buffer, self.offsets)
        except ValueError:
            raise unknown_id(token_id) from None

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The concatenated bytes of ``ids``; ``ValueError`` naming the first unknown id.

        ``ids`` may hold NumPy integers, or be a NumPy integer array (what ``encode-corpus``
        writes); ``TypeError`` for anything that is not an integer, ``bool`` included.
        """
        dtype = getattr(ids, "dtype", None)
        if dtype is not None and hasattr(ids, "tolist"):  # a NumPy array: plain ints, in C
            if dtype.kind not in "iu":
                raise NotAnId(f"token ids are integers: got an array of {dtype}")
            ids = ids.tolist()
        try:
            return b"".join(map(self._cache.__getitem__, ids))
        except NotAnId:
            raise
        except TypeError as err:  # ids not iterable, or an unhashable id such as a list
            raise TypeError(f"decode takes an iterable of int token ids: {err}") from None

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``; bytes that are not valid UTF-8 become U+FFFD."""
        return self.decode_bytes(ids).decode("utf-8", errors="replace")


class _TokenCache(dict):
    """id -> bytes of the tokens decoded so far; ``__missing__`` cuts a new one out of the arena
    (called from C by ``map``, so a known id costs one dict lookup)."""

    __slots__ = ("decoder",)

    def __missing__(self, token_id: int) -> bytes:
        token = self.decoder.token_bytes(token_id)
        # False == 0 and True == 1 as dict keys: with 0 or 1 cached, a bool would be taken for an
        # id without a word. Never caching them sends every 0, 1 and bool here, where a bool fails.
        if token_id not in (0, 1):
            self[token_id] = token
        return token


def as_token_id(value: object) -> int:
    """``value`` as a plain ``int`` token id: an ``int``, or a NumPy integer (``np.int64``,
    ``np.uint16``: anything with ``__index__``); ``TypeError`` for a ``bool`` (NumPy's too) and for
    anything that is not an integer.

    >>> as_token_id(15496)
    15496
    """
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):
        raise NotAnId(f"token ids are integers, not bool: got {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise NotAnId(f"token ids are integers: got {value!r} ({type(value).__name__})") from None


class NotAnId(TypeError):
    """A token id that is not an integer (its message is final: nothing is added to it)."""


def unknown_id(token_id: object) -> ValueError:
    """The error for an id that is not a token, naming it."""
    return ValueError(f"cannot decode token id {token_id!r}: it is not in the vocabulary")


__all__ = ["ArenaDecoder", "as_token_id", "build_arena", "decode_with_arena", "unknown_id"]
