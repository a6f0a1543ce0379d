"""Step 08: counting tokens without the ids, from the table encoder's ``last[]`` array.

The table encoder (:mod:`.step08_table`) keeps, for every prefix ``data[:end]`` of a pretoken,
``last[end]``: the last token of that prefix's valid encoding. The valid encoding of a prefix is
the valid encoding of a shorter prefix plus one token (rust-gems' corollary: drop the last token
of a valid encoding and what remains is valid), so the number of tokens of every prefix follows
in one pass:

    count[0] = 0,    count[end] = count[end - len(last[end])] + 1

That is :func:`prefix_token_counts`. :class:`AppendableEncoder` runs the same recurrence as bytes
arrive: each new byte computes one more ``last`` entry (the suffix trie gives the tokens ending
there, at most ``max_token_length`` steps) and one more count, so appending costs O(1) per byte
whatever came before, where re-encoding the whole pretoken after each byte would cost O(L) per
byte. Only the last ``max_token_length`` entries can ever be looked at again (a token ending at a
later byte starts at most that far back), so the encoder keeps a window of that size: memory does
not grow with the text.

Both work on *one pretoken's bytes* (the corollaries hold inside a pretoken): how a tokenizer
cuts text so that counts of pieces add up is :mod:`bpe_ref.fast.exact_counts`.

>>> from bpe_ref.encode.step08_table import last_tokens
>>> from bpe_ref.encode.step06_naive import merge_ranks
>>> prefix_token_counts(last_tokens(b"abcbc", merge_ranks([(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")])))
[0, 1, 1, 1, 2, 2]
"""

from __future__ import annotations

from collections.abc import Sequence

from .common import NO_TOKEN, MergeTables
from .step08_table import TableEncoder
from .step08_valid_tokens import ValidTokens


def prefix_token_counts(last: Sequence[bytes | None]) -> list[int]:
    """``counts[end]``: how many tokens the valid encoding of ``data[:end]`` has, for every ``end``
    (lab 08, task 4).

    ``last`` is the table of last tokens as bytes (``last[end]`` is the last token of the valid
    encoding of ``data[:end]``, ``last[0]`` unused: :func:`~.step08_table.last_tokens`). The last
    token of ``data[:end]`` starts at ``end - len(last[end])``, and what comes before it is the valid
    encoding of that shorter prefix: one token more than it. (:class:`AppendableEncoder` runs the same
    recurrence on token numbers, one byte at a time.)

    >>> prefix_token_counts([None, b"a", b"aa", b"a"])   # "aaa" with the merge (a, a)
    [0, 1, 1, 2]
    """
    counts = [0] * len(last)
    for end in range(1, len(last)):
        counts[end] = counts[end - len(last[end])] + 1
    return counts


class AppendableEncoder:
    """The token count of one growing pretoken, O(1) per appended byte.

    ``append(data)`` adds bytes; ``count`` is the number of tokens of the valid encoding (= the
    BPE encoding) of everything appended so far. ``tables`` and ``valid`` as for the table
    encoder; pass ``encoder`` to share an existing :class:`TableEncoder` (and its trie).

    >>> from bpe_ref.encode.common import MergeTables
    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
    >>> appender = AppendableEncoder(MergeTables(vocab, [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]))
    >>> counts = []
    >>> for byte in b"abcbc":
    ...     appender.append(bytes([byte]))
    ...     counts.append(appender.count)
    >>> counts        # a | ab | abc | abc b | abc bc
    [1, 1, 1, 2, 2]
    """

    def __init__(
        self,
        tables: MergeTables | None = None,
        valid: ValidTokens | None = None,
        *,
        encoder: TableEncoder | None = None,
    ) -> None:
        if encoder is None:
            if tables is None:
                raise TypeError("AppendableEncoder needs the merge tables (or a TableEncoder as encoder=)")
            encoder = TableEncoder(tables, valid)
        self._encoder = encoder
        self._length = encoder.valid.token_length
        self._keep = encoder.valid.max_token_length  # how far back a new token can start
        self._window = b""  # the last bytes appended (at least `_keep` of them, once there are)
        self._last = [NO_TOKEN]  # last[i]: last token of the valid encoding up to window byte i
        self._counts = [0]  # counts[i]: its number of tokens (of everything, not just the window)
        self._size = 0

    def append(self, data: bytes) -> None:
        """Add ``data`` (bytes of the same pretoken) at the end."""
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"AppendableEncoder.append takes bytes, got {type(data).__name__}")
        if not data:
            return
        window = self._window + data
        last = self._encoder.last_tokens(window, self._last)  # extends self._last in place
        counts = self._counts
        length = self._length
        for end in range(len(counts), len(last)):
            counts.append(counts[end - length[last[end]]] + 1)
        self._size += len(data)
        # Forget what no later token can reach; trimming only once the window is 4x too long
        # keeps the copying O(1) per byte, amortized.
        if len(window) > 4 * self._keep:
            cut = len(window) - self._keep
            window = window[cut:]
            del last[:cut]
            del counts[:cut]
        self._window = window

    @property
    def count(self) -> int:
        """Tokens of the valid encoding of all the bytes appended so far."""
        return self._counts[-1]

    def __len__(self) -> int:
        """Bytes appended so far."""
        return self._size


__all__ = ["AppendableEncoder", "prefix_token_counts"]
